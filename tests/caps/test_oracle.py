"""Checks of generator/oracle.py itself against the examples in docs/clamping.md, so that the oracle behind the
exhaustive C tests is not trusted blindly. Ends with `N passed, N failed` like every test here.

    python3 tests/caps/test_oracle.py
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "generator"))

import model as spec_model  # noqa: E402
import oracle as oracle_module  # noqa: E402

passed = failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"check failed: {what}", file=sys.stderr)


def value(o, enum_name, name):
    return next(v.value for v in o.model.enums[enum_name].values if v.name == name)


def clamp(o, kind, enum_name, true_value, flavor, requested, levels=None):
    resolved = o.resolve(flavor, requested)
    assert resolved.status == oracle_module.STATUS_OK, (flavor, requested)
    return o.clamp_value(kind, o.model.enums[enum_name], true_value, resolved, levels)


def production():
    o = oracle_module.Oracle(spec_model.load_model(ROOT / "spec"))
    # Section 1: 721 -> 620 on a retail runtime; 700..720 stay preview numbers and are too new there.
    check(tuple(o.resolve("retail", 721)) == ("D12_CAPS_OK", 620, "retail"), "retail 721 -> 620")
    check(o.resolve("retail", 720).status == "D12_CAPS_VERSION_TOO_NEW", "retail 720 too new")
    check(o.resolve("retail", 621).status == "D12_CAPS_VERSION_TOO_NEW", "retail 621 too new")
    check(tuple(o.resolve("preview", 721)) == ("D12_CAPS_OK", 721, "preview"), "preview 721 stays")
    check(tuple(o.resolve("preview", 609)) == ("D12_CAPS_OK", 609, "retail"), "preview runtime, retail 609")
    check(o.resolve("preview", 722).status == "D12_CAPS_VERSION_TOO_NEW", "preview 722 too new")
    # Older than every SDK (issue 17 item 2): 0 ... 3 read as 4 and see OPTIONS; 5 stays 5.
    options = o.model.features["D3D12_FEATURE_D3D12_OPTIONS5"]
    for sdk in range(4):
        r = o.resolve("retail", sdk)
        check(tuple(r) == ("D12_CAPS_OK", 4, "retail") and r.requested == sdk, f"retail {sdk} -> 4")
        check(o.query_status(options, options.layouts[0].size, r) == "D12_CAPS_OK", f"OPTIONS5 at {sdk}")
    check(o.resolve("retail", 5).number == 5, "retail 5 stays")
    # Levels are numbers (issue 17 item 5): a requested level the enum never had passes; one not requested does not.
    levels = o.model.enums["D3D_FEATURE_LEVEL"]
    r610 = o.resolve("retail", 610)
    check(o.clamp_value("feature_level", levels, 0x3000, r610, [0, 0x3000]) == 0x3000, "0x3000 requested passes")
    check(o.clamp_value("feature_level", levels, 0x3001, r610, [0, 0x3000]) == 0x3000, "0x3001 not requested")
    check(not o.input_known(o.model.enums["D3D_SHADER_MODEL"], 0, "retail"), "HighestShaderModel 0 is no input")
    # Section 2: the production spec clamps no known value at any accepted version.
    changed = [c for c in o.cases() if c.expected is not None and c.expected != c.true_value
               and not o.is_protected(c.field.enum, c.true_value, c.line)]
    check(not changed, f"production: unprotected values changed: {changed[:3]}")
    # Section 4: FENCE_BARRIERS' 8-byte layout (719) stays valid after the 12-byte one (720); nothing on retail.
    fence = o.model.features["D3D12_FEATURE_FENCE_BARRIERS"]
    check(o.check_size(fence, 8, o.resolve("preview", 721)) is not None, "FENCE_BARRIERS 8 bytes at 721")
    check(o.check_size(fence, 12, o.resolve("preview", 719)) is None, "FENCE_BARRIERS 12 bytes not at 719")
    check(o.check_size(fence, 8, o.resolve("preview", 620)) is None, "FENCE_BARRIERS not on retail")
    # Section 5.
    check(o.legacy_version("retail").number == 619 and o.legacy_version("preview").number == 720, "legacy")


def future():
    o = oracle_module.Oracle(spec_model.load_model(ROOT / "tests/fixtures/future-spec"))
    rt = "D3D12_RAYTRACING_TIER"
    t13, t12, t11 = (value(o, rt, f"D3D12_RAYTRACING_TIER_{n}") for n in ("1_3", "1_2", "1_1"))
    check(clamp(o, "tier", rt, t13, "retail", 621) == t12, "1_3 at 621 -> 1_2")
    check(clamp(o, "tier", rt, t13, "retail", 622) == t13, "1_3 at 622 stays")
    check(clamp(o, "tier", rt, t13, "retail", 723) == t13, "1_3 at remapped 723 stays")
    # Monotonic (issue 8 item 4): a true 1_2 stays 1_2 at 610 (unprotected), so a true 1_3 reads as 1_2 there,
    # never as the 1_1 that a worse GPU would not even read.
    check(clamp(o, "tier", rt, t13, "retail", 610) == t12, "1_3 at 610 -> 1_2")
    check(clamp(o, "tier", rt, t12, "retail", 610) == t12, "1_2 at 610 stays")
    check(clamp(o, "tier", rt, 14, "preview", 722) == t12, "unknown 14 at 722 -> 1_2")
    flags = "D3D12_SHADER_CACHE_SUPPORT_FLAGS"
    check(clamp(o, "flags", flags, 0xFF, "retail", 620) == 0x7F, "bit 0x80 cleared at 620")
    check(clamp(o, "flags", flags, 0xFF, "preview", 722) == 0xFF, "bit 0x80 kept at 722")
    check(clamp(o, "flags", flags, 0x40000001, "preview", 723) == 0x1, "unknown bit cleared")
    gadget = "D3D12_GADGET_TIER"
    check(clamp(o, "tier", gadget, 2, "retail", 621) == 0, "no gadget value yet at 621 -> 0")
    check(clamp(o, "tier", gadget, 2, "retail", 622) == 2, "gadget 2 at 622")
    widget = "D3D12_WIDGET_TIER"
    check(clamp(o, "tier", widget, 3, "retail", 622) == 2, "preview-only tier 3 unknown on retail -> 2")
    check(clamp(o, "tier", widget, 3, "preview", 723) == 3, "tier 3 at preview 723")
    check(clamp(o, "tier", widget, 9, "preview", 722) == 9, "experimental 9 at 722")
    check(clamp(o, "tier", widget, 9, "preview", 723) == 3, "experimental 9 gone at 723 -> 3")
    fl = "D3D_FEATURE_LEVEL"
    l120, l122, l123 = (value(o, fl, f"D3D_FEATURE_LEVEL_{n}") for n in ("12_0", "12_2", "12_3"))
    check(clamp(o, "feature_level", fl, l123, "retail", 621, [l120, l122, l123]) == l122, "12_3 at 621 -> 12_2")
    check(clamp(o, "feature_level", fl, l123, "retail", 621, [l120, l123]) == l120, "12_3 at 621, gap -> 12_0")
    check(clamp(o, "feature_level", fl, l123, "retail", 621, [l123]) == 0, "12_3 at 621, none -> 0")
    check(clamp(o, "feature_level", fl, l123, "retail", 622, [l120, l123]) == l123, "12_3 at 622 stays")
    sm = o.model.enums["D3D_SHADER_MODEL"]
    check(o.input_known(sm, 0x6b, "retail") and not o.input_known(sm, 0x6c, "retail"), "shader model inputs")
    widgets = o.model.features["D3D12_FEATURE_FUTURE_WIDGETS"]
    check(o.check_size(widgets, 8, o.resolve("retail", 620)) is None, "new feature: no size at 620")
    check(o.check_size(widgets, 12, o.resolve("retail", 621)) is None, "new feature: 12 bytes not at 621")
    check(o.check_size(widgets, 8, o.resolve("retail", 622)) is not None, "new feature: 8 bytes still at 622")
    legacy = o.legacy_version("retail")
    check(o.clamp_value("tier", o.model.enums[rt], t13, legacy) == t12, "legacy hides 1_3")
    check(o.clamp_value("tier", o.model.enums[rt], t12, legacy) == t12, "legacy keeps 1_2")
    # Section 5: legacy CheckFeatureSupport refuses a feature (or a size) newer than its pin.
    check(o.legacy_status(widgets, 8, "retail") == oracle_module.STATUS_BAD_SIZE, "legacy: FUTURE_WIDGETS refused")
    options5 = o.model.features["D3D12_FEATURE_D3D12_OPTIONS5"]
    check(o.legacy_status(options5, options5.layouts[-1].size, "retail") == oracle_module.STATUS_OK,
          "legacy: OPTIONS5 answered")
    check(o.legacy_status(None, 4, "preview") == oracle_module.STATUS_UNKNOWN_FEATURE, "legacy: unknown number")


def monotonic():
    """The oracle's own monotonicity guard: it must refuse a rule that shows a better GPU less (issue 8 item 4)."""
    o = oracle_module.Oracle(spec_model.load_model(ROOT / "tests/fixtures/future-spec"))

    class Field:
        def __init__(self, kind):
            self.kind = kind

    def refuses(kind, probes, results):
        try:
            o.check_monotonic(Field(kind), probes, results, "probe")
        except ValueError:
            return True
        return False

    check(refuses("tier", [11, 12, 13], [11, 12, 11]), "monotonic: 1_3 -> 1_1 beside 1_2 -> 1_2 is refused")
    check(refuses("tier", [11, 12], [11, 13]), "monotonic: a value above the true one is refused")
    check(not refuses("tier", [11, 12, 13, 14], [11, 12, 12, 12]), "monotonic: a plateau is fine")
    check(refuses("flags", [0x1, 0x3], [0x1, 0x2]), "monotonic: a superset losing a bit is refused")
    check(refuses("flags", [0x1], [0x3]), "monotonic: a bit the GPU lacks is refused")
    check(not refuses("flags", [0x1, 0x3, 0x80], [0x1, 0x3, 0x0]), "monotonic: clearing an unknown bit is fine")
    table = o.exhaustive_table()  # raises if any generated case breaks monotonicity
    check(table["case_count"] > 0, "monotonic: the fixture's exhaustive table passes the guard")


production()
future()
monotonic()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
