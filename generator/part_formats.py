"""Part `formats`: every DXGI_FORMAT and the reference adapter's support for it (spec/formats.yaml) ->
generated/caps/d12_formats.c (the table runtime/caps/d12_formats.h describes) and generated/tests/format_cases.c
(the expected answer of every format query, computed here from the rules of docs/formats.md, not from the C).

Checked: the shape; every flag of a set is a value of D3D12_FORMAT_SUPPORT1/2 (spec/enums.yaml); names and
numbers unique and increasing; the DXGI_FORMAT names and numbers against the installed dxgiformat.h, both ways;
consistency rules a real adapter's answers obey (a render target format multisamples at 4x, blending needs a
render target, a format that is no D3D12 format supports nothing). Decisions: docs/formats.md.
"""
from dataclasses import dataclass
from pathlib import Path

import headers
import loader
import schema
from schema import IDENT, Int, ListOf, Map, MapOf, Nullable, Str, fail

NAME = "formats"
FILES = ("formats.yaml",)
OUTPUTS = (
    ("formats.c.j2", "generated/caps/d12_formats.c", "c"),
    ("format_cases.c.j2", "generated/tests/format_cases.c", "c"),
)

FLAG = Str(IDENT, "a flag name without its prefix")
SET = Map({}, {"support1": ListOf(FLAG), "support2": ListOf(FLAG)})
FORMAT = Map({"name": schema.NAME, "value": Int(0), "planes": Nullable(Int(1))}, {"support": ListOf(schema.NAME)})
FORMATS = Map({"sets": MapOf(SET, 1), "multisample": ListOf(Map({"count": Int(2), "levels": Int(0)}), 1),
               "formats": ListOf(FORMAT, 1)})

# The sample counts D3D12 defines (D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS): any other count has 0 levels.
SAMPLE_COUNTS = (1, 2, 4, 8, 16, 32)
# Probed by the generated cases: every count, 0, and counts D3D12 does not define.
PROBE_COUNTS = (0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 0x80000000)
# HRESULTs of the expected answers.
S_OK, E_FAIL, E_INVALIDARG = 0, 0x80004005, 0x80070057


@dataclass
class Format:
    name: str
    value: int
    planes: int | None  # None: not a D3D12 format (FORMAT_INFO E_INVALIDARG)
    support1: int
    support2: int
    sets: list


@dataclass
class FormatTable:
    formats: list
    multisample: dict   # count -> levels, for a format with MULTISAMPLE_RENDERTARGET
    flag1: dict         # short flag name -> value
    flag2: dict

    def find(self, value):
        return next((f for f in self.formats if f.value == value), None)

    def has1(self, fmt, short):
        return bool(fmt.support1 & self.flag1[short])

    # ---- The rules of docs/formats.md, evaluated directly (the expected answers of the generated cases) ----

    def format_info(self, value):
        """(HRESULT, PlaneCount)."""
        fmt = self.find(value)
        if fmt is None or fmt.planes is None:
            return E_INVALIDARG, None
        return S_OK, fmt.planes

    def format_support(self, value):
        """(HRESULT, Support1, Support2): E_FAIL and zeroes for a format the adapter does not support."""
        fmt = self.find(value)
        if fmt is None or (fmt.support1 == 0 and fmt.support2 == 0):
            return E_FAIL, 0, 0
        return S_OK, fmt.support1, fmt.support2

    def quality_levels(self, value, count):
        """(HRESULT, NumQualityLevels)."""
        if count == 0:
            return E_FAIL, 0
        if count not in SAMPLE_COUNTS:
            return S_OK, 0
        if count == 1:
            return S_OK, 1
        fmt = self.find(value)
        if fmt is None or value == 0 or not self.has1(fmt, "MULTISAMPLE_RENDERTARGET"):
            return S_OK, 0
        return S_OK, self.multisample.get(count, 0)

    def probe_numbers(self):
        """Every format number, every gap between them and a few beyond."""
        top = max(f.value for f in self.formats)
        return list(range(0, top + 3)) + [0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF]


def _flags(enum, prefix, names, node, path):
    by_name = {v.name: v.value for v in enum.values}
    total = 0
    for index, short in enumerate(names):
        full = prefix + short
        if full not in by_name:
            fail(names, f"{path}[{index}]", f"{full} is not a value of {enum.name} (spec/enums.yaml)", index)
        total |= by_name[full]
    return total


def _check_consistency(fmt, table, node, path):
    def has(short):
        return table.has1(fmt, short)
    if fmt.planes is None and (fmt.support1 or fmt.support2):
        fail(node, path, f"{fmt.name} is no D3D12 format (planes: null) but lists support", "support")
    if has("RENDER_TARGET") and not has("MULTISAMPLE_RENDERTARGET"):
        fail(node, path, f"{fmt.name}: a render target format multisamples (MULTISAMPLE_RENDERTARGET)", "support")
    if has("MULTISAMPLE_RENDERTARGET") and table.multisample.get(4, 0) < 1:
        fail(node, path, f"{fmt.name}: MULTISAMPLE_RENDERTARGET needs at least one quality level at 4x", "support")
    if has("BLENDABLE") and not has("RENDER_TARGET"):
        fail(node, path, f"{fmt.name}: BLENDABLE without RENDER_TARGET", "support")
    if (has("SHADER_SAMPLE") or has("SHADER_GATHER")) and not has("SHADER_LOAD"):
        fail(node, path, f"{fmt.name}: sampled but not loadable", "support")


def _check_headers(formats, data, installed):
    declared = {name: value for name, value in installed.enums.get("DXGI_FORMAT", {}).items()
                if name != "DXGI_FORMAT_FORCE_UINT"}
    if not declared:
        fail(data, "formats", "the installed DirectX-Headers declare no DXGI_FORMAT", "formats")
    ours = {f.name: f.value for f in formats}
    for index, fmt in enumerate(formats):
        if fmt.name not in declared:
            fail(data["formats"][index], f"formats[{index}].name", f"{fmt.name} is not declared by the installed "
                 "DirectX-Headers (dxgiformat.h)", "name")
        if declared[fmt.name] != fmt.value:
            fail(data["formats"][index], f"formats[{index}].value", f"{fmt.name} is {fmt.value} here but "
                 f"{declared[fmt.name]} in the installed headers", "value")
    missing = sorted(set(declared) - set(ours), key=lambda n: declared[n])
    if missing:
        fail(data, "formats", f"the installed headers declare {', '.join(missing)}; every DXGI_FORMAT must be "
             "listed", "formats")


def build(data, model, installed):
    enums = model.enums
    s1, s2 = enums["D3D12_FORMAT_SUPPORT1"], enums["D3D12_FORMAT_SUPPORT2"]
    sets = {}
    for name, entry in data["sets"].items():
        sets[name] = (_flags(s1, "D3D12_FORMAT_SUPPORT1_", entry.get("support1", []), entry, f"sets.{name}.support1"),
                      _flags(s2, "D3D12_FORMAT_SUPPORT2_", entry.get("support2", []), entry, f"sets.{name}.support2"))
    multisample = {}
    for index, entry in enumerate(data["multisample"]):
        if entry["count"] not in SAMPLE_COUNTS or entry["count"] in multisample:
            fail(entry, f"multisample[{index}].count", f"expected a distinct count of {SAMPLE_COUNTS[1:]}", "count")
        multisample[entry["count"]] = entry["levels"]
    flag1 = {v.name[len("D3D12_FORMAT_SUPPORT1_"):]: v.value for v in s1.values}
    flag2 = {v.name[len("D3D12_FORMAT_SUPPORT2_"):]: v.value for v in s2.values}
    table = FormatTable([], multisample, flag1, flag2)
    names, previous = set(), -1
    for index, entry in enumerate(data["formats"]):
        path = f"formats[{index}]"
        if entry["name"] in names:
            fail(entry, f"{path}.name", f"duplicate format {entry['name']}", "name")
        if entry["value"] <= previous:
            fail(entry, f"{path}.value", "formats must be listed by increasing value", "value")
        names.add(entry["name"])
        previous = entry["value"]
        support1 = support2 = 0
        for si, set_name in enumerate(entry.get("support", [])):
            if set_name not in sets:
                fail(entry["support"], f"{path}.support[{si}]", f"unknown set {set_name}", si)
            support1 |= sets[set_name][0]
            support2 |= sets[set_name][1]
        fmt = Format(entry["name"], entry["value"], entry["planes"], support1, support2, list(entry.get("support", [])))
        _check_consistency(fmt, table, entry, path)
        table.formats.append(fmt)
    _check_headers(table.formats, data, installed)
    return table


def load(spec_dir, spec_display, context):
    """Load and check spec/formats.yaml; add `formats` (a FormatTable) to the context. Needs the caps part's
    model (the D3D12_FORMAT_SUPPORT1/2 flags)."""
    data = loader.load(Path(spec_dir) / "formats.yaml", f"{spec_display}/formats.yaml")
    schema.check(FORMATS, data)
    installed = context.get("headers") or headers.parse_installed()
    context.update(formats=build(data, context["model"], installed))
