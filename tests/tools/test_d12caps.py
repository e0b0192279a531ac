#!/usr/bin/env python3
"""Tests of the d12caps tool: run the built executable, assert concrete output. Every group but `future` runs
the tool over the production spec; `future` runs it built over tests/fixtures/future-spec.

    test_d12caps.py PATH/TO/d12caps GROUP     GROUP: one of GROUPS below (each is its own CTest test)

Ends with `N passed, N failed`; exits 1 when anything failed (or nothing was checked).
"""
import json
import os
import subprocess
import sys

PASSED = 0
FAILED = 0


def check(condition, what, detail=""):
    global PASSED, FAILED
    if condition:
        PASSED += 1
    else:
        FAILED += 1
        print(f"check failed: {what}", file=sys.stderr)
        if detail:
            print(f"    {detail}", file=sys.stderr)
    return condition


class Run:
    def __init__(self, tool, args, env=None):
        environment = {k: v for k, v in os.environ.items() if k != "D12RT_FLAVOR"}  # tests name the flavor
        environment.update(env or {})
        result = subprocess.run([tool, *args], capture_output=True, text=True, env=environment, timeout=60)
        self.args, self.code, self.out, self.err = args, result.returncode, result.stdout, result.stderr

    def json(self):
        try:
            return json.loads(self.out)
        except json.JSONDecodeError as error:
            check(False, f"d12caps {' '.join(self.args)} prints valid JSON", str(error))
            return None

    def line_with(self, text):
        return next((line for line in self.out.splitlines() if text in line), None)


def feature(data, name):
    return next((f for f in data["features"] if f["name"] == name), None)


def field(data, feature_name, field_name):
    f = feature(data, feature_name)
    return next((x for x in f.get("fields", []) if x["name"] == field_name), None) if f else None


def test_history(tool):
    run = Run(tool, ["history", "D3D12_WORK_GRAPHS_TIER"])
    check(run.code == 0, "history exits 0", run.err)
    row = run.line_with("D3D12_WORK_GRAPHS_TIER_0_1 ")
    check(row is not None, "history lists D3D12_WORK_GRAPHS_TIER_0_1", run.out)
    if row:
        check("711, removed at 714" in row, "0_1 is shown removed at preview 714", row)
        check(" never " in row, "0_1 never existed on the retail line", row)
        check(row.split()[1] == "1", "0_1 has number 1", row)
    row = run.line_with("D3D12_WORK_GRAPHS_TIER_1_0 ")
    check(row is not None and "613 on" in row and "714 on" in row, "1_0: retail 613, preview 714", str(row))
    data = Run(tool, ["history", "D3D12_WORK_GRAPHS_TIER", "--json"]).json()
    if data:
        values = {v["name"]: v for v in data["values"]}
        v01 = values.get("D3D12_WORK_GRAPHS_TIER_0_1", {})
        check(v01.get("preview") == {"first": 711, "stop": 714}, "0_1 preview history", str(v01))
        check(v01.get("protected") is False and v01.get("tag") == "v1.711.3-preview", "0_1 shipped: unprotected",
              str(v01))
        check(v01.get("retail", {}).get("first") is None, "0_1 retail first is null", str(v01))
        check(len(data["values"]) == 4 and data["kind"] == "tier", "4 tier values", str(data)[:200])
    alias = Run(tool, ["history", "D3D_ROOT_SIGNATURE_VERSION"]).line_with("D3D_ROOT_SIGNATURE_VERSION_1_0")
    check(alias is not None and "(alias)" in alias, "an alias is marked", str(alias))


def test_unavailable(tool):
    run = Run(tool, ["--sdk", "610", "--flavor", "retail"])
    check(run.code == 0, "--sdk 610 exits 0", run.err)
    check("D3D12_FEATURE_D3D12_OPTIONS21 (53): not available at SDK 610 (E_INVALIDARG)" in run.out,
          "OPTIONS21 is unavailable at retail 610", run.out[-2000:])
    check(run.line_with("D3D12_FEATURE_D3D12_OPTIONS19 (48): D3D12_FEATURE_DATA_D3D12_OPTIONS19, 40 bytes")
          is not None, "OPTIONS19 (first at 610) is available at 610")
    check("not answered by this runtime" in (run.line_with("D3D12_FEATURE_D3D12_OPTIONS_EXPERIMENTAL (9)") or ""),
          "OPTIONS_EXPERIMENTAL has no struct")
    data = Run(tool, ["--sdk", "610", "--flavor", "retail", "--json"]).json()
    if data:
        options21 = feature(data, "D3D12_FEATURE_D3D12_OPTIONS21")
        check(options21 and options21["available"] is False and options21["hresult"] == "E_INVALIDARG",
              "JSON: OPTIONS21 unavailable with E_INVALIDARG", str(options21))
        # RAYTRACING_TIER_1_2 shipped at 616, before CheckFeatureSupport1: unprotected, so it passes through.
        rt = field(data, "D3D12_FEATURE_D3D12_OPTIONS5", "RaytracingTier")
        check(rt and rt["reported"] == 12 and rt["reported_name"] == "D3D12_RAYTRACING_TIER_1_2"
              and rt["clamped"] is False, "1_2 is not clamped at 610 (introduced before CFS1)", str(rt))
        sm = field(data, "D3D12_FEATURE_SHADER_MODEL", "HighestShaderModel")
        check(sm and sm["true"] == 106 and sm["reported"] == 104 and sm["limited_by_request"] is True
              and sm["clamped"] is False, "a 610 app asks for shader model 6_8 and gets it", str(sm))
        check(data["clamped"] == 0, "nothing is clamped on the retail line at 610", str(data["clamped"]))


def test_too_new(tool):
    run = Run(tool, ["--sdk", "722", "--flavor", "preview"])
    check(run.code == 1, "--sdk 722 on preview exits 1", f"exit {run.code}")
    check("E_INVALIDARG" in run.err and "722" in run.err and "721" in run.err, "the reason names E_INVALIDARG",
          run.err)
    check(run.out == "", "nothing on stdout", run.out[:200])
    data = Run(tool, ["--sdk", "722", "--flavor", "preview", "--json"]).json()
    check(data is not None and data.get("hresult") == "E_INVALIDARG" and data.get("requested") == 722,
          "JSON error object", str(data))
    for args in (["--sdk", "621", "--flavor", "retail"], ["--sdk", "700", "--flavor", "retail"],
                 ["--sdk", "720", "--flavor", "retail"], ["compare", "619", "722", "--flavor", "preview"]):
        rejected = Run(tool, args)
        check(rejected.code == 1 and "E_INVALIDARG" in rejected.err, f"d12caps {' '.join(args)} is rejected",
              f"exit {rejected.code}: {rejected.err}")
    check(Run(tool, ["--sdk", "721", "--flavor", "preview"]).code == 0, "721 is accepted on preview")


def test_remap(tool):
    run = Run(tool, ["--sdk", "721", "--flavor", "retail"])
    check(run.code == 0, "--sdk 721 on retail exits 0", run.err)
    check("treated as 620" in run.out.splitlines()[0] if run.out else False, "721 is treated as 620",
          run.out[:300])
    remapped = Run(tool, ["--sdk", "721", "--flavor", "retail", "--json"]).json()
    plain = Run(tool, ["--sdk", "620", "--flavor", "retail", "--json"]).json()
    if remapped and plain:
        check(remapped["requested"] == 721 and remapped["resolved"] == 620 and remapped["line"] == "retail",
              "JSON: requested 721, resolved 620 on the retail line", str({k: remapped[k] for k in
                                                                         ("requested", "resolved", "line")}))
        check(remapped["features"] == plain["features"], "721 on retail sees exactly what 620 sees")
        check(feature(remapped, "D3D12_FEATURE_GUID_TEXTURE_LAYOUT")["available"] is False,
              "preview-only GUID_TEXTURE_LAYOUT is unavailable to a remapped 721")


def test_json(tool):
    data = Run(tool, ["--sdk", "721", "--flavor", "preview", "--json"]).json()
    if not data:
        return
    check(data["runtime"] == {"flavor": "preview", "version": 721}, "runtime preview 721", str(data["runtime"]))
    wg = field(data, "D3D12_FEATURE_D3D12_OPTIONS21", "WorkGraphsTier")
    check(wg and wg["true"] == 11 and wg["reported"] == 11 and wg["reported_name"] == "D3D12_WORK_GRAPHS_TIER_1_1"
          and wg["enum"] == "D3D12_WORK_GRAPHS_TIER", "WorkGraphsTier 1_1 at preview 721", str(wg))
    fence = feature(data, "D3D12_FEATURE_FENCE_BARRIERS")
    check(fence and fence["size"] == 12 and fence["fields"][2]["offset"] == 8,
          "FENCE_BARRIERS uses the 12-byte layout at 721", str(fence))
    fmt = feature(data, "D3D12_FEATURE_FORMAT_SUPPORT")
    check(fmt and fmt["never_clamped"] is True, "FORMAT_SUPPORT is never clamped", str(fmt)[:200])
    flags = field(data, "D3D12_FEATURE_SHADER_CACHE", "SupportFlags")
    check(flags and flags["true"] == 0x7f and len(flags["reported_name"]) == 7,
          "SupportFlags: 7 named bits", str(flags))
    bool_field = field(data, "D3D12_FEATURE_D3D12_OPTIONS21", "ExtendedCommandInfoSupported")
    check(bool_field and bool_field["kind"] == "bool" and "true" not in bool_field, "bools carry no values",
          str(bool_field))
    check(data["unavailable"] == 2 and data["clamped"] == 0, "only the two structless features fail at 721",
          f"{data['unavailable']} unavailable, {data['clamped']} clamped")
    for args in (["versions", "--json"], ["enums", "--json"], ["compare", "4", "721", "--flavor", "preview",
                                                               "--json", "--all"]):
        check(Run(tool, args).json() is not None, f"d12caps {' '.join(args)} is JSON")


def test_compare(tool):
    run = Run(tool, ["compare", "619", "721", "--flavor", "preview", "--changed"])
    check(run.code == 0, "compare exits 0", run.err)
    # WORK_GRAPHS_TIER_1_1 shipped in preview 715, before CheckFeatureSupport1: a retail-line caller (619) on a
    # preview runtime sees it unclamped (docs/clamping.md 2). The production spec clamps nothing today.
    check(run.line_with("WorkGraphsTier") is None, "no field differs, so --changed lists none", run.out)
    check("* clamped" in run.out, "the legend explains *")
    check("SDK 619: 50 features available, 16 not; 0 fields clamped" in run.out, "619 summary", run.out[-300:])
    data = Run(tool, ["compare", "619", "721", "--flavor", "preview", "--json"]).json()
    if data:
        a, b = data["compare"]
        wa = field(a, "D3D12_FEATURE_D3D12_OPTIONS21", "WorkGraphsTier")
        wb = field(b, "D3D12_FEATURE_D3D12_OPTIONS21", "WorkGraphsTier")
        check(wa and wa["clamped"] is False and wa["reported"] == 11 and wa["true"] == 11,
              "JSON: 619 sees the already-shipped preview tier 1_1", str(wa))
        check(wb and wb["clamped"] is False and wb["reported"] == 11, "JSON: 721 unclamped", str(wb))
    retail = Run(tool, ["compare", "610", "620", "--flavor", "retail"])
    check("D3D12_FEATURE_D3D12_OPTIONS21 (53): not available at SDK 610 (E_INVALIDARG)" in retail.out,
          "compare says OPTIONS21 is unavailable at 610", retail.out[:500])
    check(Run(tool, ["compare", "610", "620"], env={"D12RT_FLAVOR": "preview"}).out.find("preview runtime (721)")
          >= 0, "D12RT_FLAVOR picks the default flavor")


def test_usage(tool):
    cases = (([], "nothing to do"), (["history", "D3D12_NO_SUCH_TIER"], "unknown enum 'D3D12_NO_SUCH_TIER'"),
             (["history"], "history takes one enum"), (["--sdk"], "--sdk needs a value"),
             (["--sdk", "-5"], "is not a number"), (["--sdk", "6x"], "is not a number"),
             (["--sdk", "99999999999"], "is not a number"), (["--sdk", "610", "--flavor", "beta"], "unknown flavor"),
             (["compare", "610"], "compare takes two"), (["frobnicate"], "unknown command"),
             (["--sdk", "610", "--bogus"], "unknown option"), (["versions", "extra"], "takes no argument"))
    for args, message in cases:
        run = Run(tool, args)
        check(run.code == 2, f"d12caps {' '.join(args)} exits 2", f"exit {run.code}")
        check(message in run.err, f"d12caps {' '.join(args)} says '{message}'", run.err[:300])
        check(run.out == "", f"d12caps {' '.join(args)} prints nothing on stdout", run.out[:200])
    check(Run(tool, ["--sdk", "610"], env={"D12RT_FLAVOR": "beta"}).code == 2, "a bad D12RT_FLAVOR is a usage error")
    help_run = Run(tool, ["--help"])
    check(help_run.code == 0 and help_run.out.startswith("usage:"), "--help prints usage on stdout")


def test_versions(tool):
    run = Run(tool, ["versions"])
    check(run.code == 0, "versions exits 0", run.err)
    lines = [" ".join(line.split()) for line in run.out.splitlines()]
    check("620 (no tag) retail runtime; CheckFeatureSupport1" in lines, "620 is the retail runtime and CFS1", run.out)
    check("721 v1.721.0-preview, v1.721.1-preview preview runtime; CheckFeatureSupport1" in lines,
          "721 is the preview runtime and CFS1", run.out)
    check("619 v1.619.0, v1.619.1 legacy CheckFeatureSupport pinned here" in lines, "legacy retail pin at 619", run.out)
    check("4 v1.0, v1.0.1, v1.0.2, v1.4.9, v1.4.10" in lines and "702 (no tag)" in lines, "plain versions listed",
          run.out)
    data = Run(tool, ["versions", "--json"]).json()
    if data:
        check(data["retail"]["runtime"] == 620 and data["preview"]["legacy"] == 720 and data["preview_first"] == 700,
              "JSON versions", str(data)[:300])
        check(data["retail"]["versions"][0] == 4 and data["preview"]["versions"][-1] == 721, "JSON version lists")
    enums = Run(tool, ["enums"])
    check(any(line.startswith("D3D12_WORK_GRAPHS_TIER ") for line in enums.out.splitlines()), "enums lists tiers")


def test_future(tool):
    """Against the fixture spec (runtime retail 622 / preview 723, CheckFeatureSupport1 at 620 / 721), where
    hypothetical values after CheckFeatureSupport1 are really clamped."""
    run = Run(tool, ["compare", "610", "622", "--flavor", "retail"])
    check(run.code == 0, "compare 610 622 exits 0", run.err)
    row = run.line_with("RaytracingTier")
    check(row is not None and row.split()[2:] == ["1_3", "(13)", "1_2", "(12)*", "1_3", "(13)"],
          "a true 1_3 reads 1_2 at 610 (1_2 is unprotected, so visible there: never lower than a true 1_2), "
          "1_3 at 622", str(row))
    data = Run(tool, ["compare", "620", "622", "--flavor", "retail", "--json"]).json()
    if data:
        a, b = data["compare"]
        flags = field(a, "D3D12_FEATURE_SHADER_CACHE", "SupportFlags")
        check(flags and flags["true"] == 0xFF and flags["reported"] == 0x7F and flags["clamped"] is True
              and "D3D12_SHADER_CACHE_SUPPORT_FUTURE_PRECOMPILED" in flags["true_name"],
              "the 621 flag bit is cleared at 620", str(flags))
        check(field(b, "D3D12_FEATURE_SHADER_CACHE", "SupportFlags")["reported"] == 0xFF, "and kept at 622")
        check(feature(a, "D3D12_FEATURE_FUTURE_WIDGETS")["available"] is False, "FUTURE_WIDGETS n/a at 620")
    data = Run(tool, ["--sdk", "621", "--flavor", "retail", "--json"]).json()
    if data:
        widgets = feature(data, "D3D12_FEATURE_FUTURE_WIDGETS")
        check(widgets and widgets["size"] == 8, "the 8-byte layout at 621", str(widgets))
        widget = field(data, "D3D12_FEATURE_FUTURE_WIDGETS", "WidgetTier")
        gadget = field(data, "D3D12_FEATURE_FUTURE_WIDGETS", "GadgetTier")
        check(widget and (widget["true"], widget["reported"], widget["clamped"]) == (2, 1, True),
              "WidgetTier 2 reads 1 at 621", str(widget))
        check(gadget and (gadget["true"], gadget["reported"], gadget["clamped"]) == (2, 0, True),
              "GadgetTier (no value yet at 621) reads 0", str(gadget))
    preview = Run(tool, ["--sdk", "723", "--flavor", "preview", "--json"]).json()
    if preview:
        widget = field(preview, "D3D12_FEATURE_FUTURE_WIDGETS", "WidgetTier")
        check(widget and widget["true"] == 3 and widget["reported_name"] == "D3D12_WIDGET_TIER_3",
              "the preview-only TIER_3 at preview 723", str(widget))
    remapped = Run(tool, ["--sdk", "723", "--flavor", "retail"])
    check(remapped.code == 0 and "treated as 622" in remapped.out, "a retail runtime remaps 723 to 622",
          remapped.out[:200] + remapped.err)
    check(Run(tool, ["--sdk", "721", "--flavor", "retail"]).code == 1, "721 is not remapped by this runtime")
    history = Run(tool, ["history", "D3D12_WIDGET_TIER"])
    tier3 = history.line_with("D3D12_WIDGET_TIER_3")
    check(tier3 is not None and tier3.split()[-1] == "yes", "TIER_3 (preview 722 only) is protected", str(tier3))
    shipped = Run(tool, ["history", "D3D12_RAYTRACING_TIER"]).line_with("D3D12_RAYTRACING_TIER_1_2")
    check(shipped is not None and shipped.split()[-1] == "no", "RAYTRACING_TIER_1_2 (616) is not", str(shipped))


GROUPS = {"history": test_history, "unavailable": test_unavailable, "too_new": test_too_new, "remap": test_remap,
          "json": test_json, "compare": test_compare, "usage": test_usage, "versions": test_versions,
          "future": test_future}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in GROUPS:
        print(f"usage: {sys.argv[0]} TOOL {'|'.join(GROUPS)}", file=sys.stderr)
        return 2
    GROUPS[sys.argv[2]](sys.argv[1])
    print(f"{PASSED} passed, {FAILED} failed")
    return 0 if FAILED == 0 and PASSED > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
