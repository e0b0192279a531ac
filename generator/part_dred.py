"""Part `dred`: DRED names and values (spec/dred.yaml) -> generated/runtime/d12_dred_names.h/.c, the ops the
installed headers lack (into d12rt/d3d12_ext.h, through templates/_dred_supplement.h.j2) and
generated/tests/dred_names_cases.c.

Checked here: the shape (schema.py); per enum unique names and values, values fitting a UINT, names that make C
identifiers with the prefix, `sdk` a retail version of spec/sdk.yaml and `tag` one of its tags; then, against the
installed DirectX-Headers (pycparser, headers.py), crosscheck.py's rules for enums: a value present at the
headers' D3D12_SDK_VERSION is declared with the same number in the same enum, one dated later is not declared,
and every enumerator the headers declare in the enum is in the spec. Decisions: docs/dred-report.md.
"""
import re
from dataclasses import dataclass
from pathlib import Path

import headers
import loader
import schema
from schema import IDENT, Bool, Int, ListOf, Map, MapOf, Str, fail

NAME = "dred"
FILES = ("dred.yaml",)
OUTPUTS = (
    ("dred_names.h.j2", "generated/runtime/d12_dred_names.h", "c"),
    ("dred_names.c.j2", "generated/runtime/d12_dred_names.c", "c"),
    ("dred_names_cases.c.j2", "generated/tests/dred_names_cases.c", "c"),
)

UINT_MAX = 0xFFFFFFFF
SUFFIX = re.compile(r"^[A-Za-z0-9_]+$")
VALUE = Map({"name": Str(SUFFIX, "letters, digits and _ (the C name without the prefix)"), "value": Int(0)},
            {"sdk": Int(1), "tag": Str(), "marker": Bool(), "call": Str()})
SCHEMA = Map({"enums": MapOf(Map({"prefix": schema.NAME, "function": schema.NAME,
                                  "values": ListOf(VALUE, 1)}), 1)})


@dataclass
class DredValue:
    name: str          # without the prefix: the report's spelling
    value: int
    c_name: str        # the header's enumerator
    sdk: int | None    # first retail SDK version declaring it; None: every header we build against
    tag: str | None
    marker: bool
    call: str | None
    in_headers: bool = False  # declared by the installed headers (so a _Static_assert checks it)

    @property
    def literal(self):
        return f"{self.value:#x}u" if self.value > 0xFFFF else f"{self.value}u"


@dataclass
class DredEnum:
    c_type: str
    prefix: str
    function: str
    values: list

    @property
    def supplemented(self):
        return [v for v in self.values if not v.in_headers]

    @property
    def unknown_probes(self):
        """Numbers the spec lacks that a name function must answer NULL for: every gap up to two past the
        largest value below 0x10000, and the far end of UINT."""
        known = {v.value for v in self.values}
        small = max(v.value for v in self.values if v.value < 0x10000)
        probes = [n for n in range(small + 3) if n not in known]
        probes += [n for n in (0x10000, 0x7FFFFFFF, 0x80000000, UINT_MAX - 1, UINT_MAX) if n not in known]
        return probes

    @property
    def largest(self):
        return max(v.value for v in self.values if v.value < 0x10000)


@dataclass
class DredModel:
    enums: list
    headers_sdk: int

    def enum(self, c_type):
        return next(e for e in self.enums if e.c_type == c_type)

    @property
    def supplement(self):
        return [(e, v) for e in self.enums for v in e.supplemented]


def _retail_versions(context):
    """{version: [tags]} of spec/sdk.yaml's retail line when the caps part loaded it, else None (a `--parts dred`
    run checks only the shape of `sdk` and `tag`)."""
    model = context.get("model")
    if model is None:
        return None
    return dict(model.sdk.lines["retail"].versions)


def _value(node, path, prefix, retail):
    if node["value"] > UINT_MAX:
        fail(node, f"{path}.value", f"{node['value']:#x} does not fit a UINT", "value")
    sdk, tag = node.get("sdk"), node.get("tag")
    if tag is not None and sdk is None:
        fail(node, f"{path}.tag", "a tag needs the `sdk` version it belongs to", "tag")
    if sdk is not None and retail is not None:
        if sdk not in retail:
            fail(node, f"{path}.sdk", f"{sdk} is not a retail SDK version of spec/sdk.yaml", "sdk")
        if tag is not None and tag not in retail[sdk]:
            fail(node, f"{path}.tag", f"{tag} is not a tag of retail SDK version {sdk} in spec/sdk.yaml "
                 f"({', '.join(retail[sdk]) or 'none'})", "tag")
    return DredValue(node["name"], node["value"], prefix + node["name"], sdk, tag, bool(node.get("marker")),
                     node.get("call"))


def _enum(c_type, node, path, retail):
    values, names, numbers = [], {}, {}
    for index, item in enumerate(node["values"]):
        item_path = f"{path}.values[{index}]"
        value = _value(item, item_path, node["prefix"], retail)
        if value.name in names:
            fail(item, f"{item_path}.name", f"duplicate name {value.name} (also values[{names[value.name]}])", "name")
        if value.value in numbers:
            fail(item, f"{item_path}.value", f"duplicate value {value.value} (also {numbers[value.value]})", "value")
        names[value.name], numbers[value.value] = index, value.name
        values.append(value)
    return DredEnum(c_type, node["prefix"], node["function"], values)


def _cross_check(data, enums, installed):
    """crosscheck.py's enum rules, located at the spec's lines."""
    version = installed.sdk_version
    for enum in enums:
        node = data["enums"][enum.c_type]
        items = node["values"]
        for index, value in enumerate(enum.values):
            path = f"enums.{enum.c_type}.values[{index}]"
            present = value.sdk is None or value.sdk <= version
            declared = installed.enumerators.get(value.c_name)
            if declared is not None and declared[0] != enum.c_type:
                fail(items, path, f"the installed headers declare {value.c_name} in {declared[0]}", index)
            if declared is not None and present and declared[1] != value.value:
                fail(items, path, f"{value.c_name} is {value.value} here but {declared[1]} in the installed headers "
                     f"(SDK {version})", index)
            if declared is not None and not present:
                fail(items, path, f"{value.c_name} is dated SDK {value.sdk} here, but the installed headers "
                     f"(SDK {version}) declare it", index)
            if declared is None and present:
                fail(items, path, f"{value.c_name} is present at retail {version} here (no `sdk`), but the installed "
                     f"headers (SDK {version}) do not declare it", index)
            value.in_headers = declared is not None
        spec_names = {v.c_name for v in enum.values}
        for name, number in installed.enums.get(enum.c_type, {}).items():
            if name not in spec_names:
                fail(node, f"enums.{enum.c_type}.values", f"the installed headers declare {name} = {number} in "
                     f"{enum.c_type}, which the spec lacks", "values")
        if enum.c_type not in installed.enums:
            fail(data["enums"], f"enums.{enum.c_type}", f"the installed headers declare no enum {enum.c_type}",
                 enum.c_type)


def build(data, installed, retail):
    enums = [_enum(c_type, node, f"enums.{c_type}", retail) for c_type, node in data["enums"].items()]
    functions = {}
    for enum in enums:
        if enum.function in functions:
            fail(data["enums"][enum.c_type], f"enums.{enum.c_type}.function",
                 f"duplicate function {enum.function} (also enums.{functions[enum.function]})", "function")
        functions[enum.function] = enum.c_type
    _cross_check(data, enums, installed)
    return DredModel(enums, installed.sdk_version)


def load(spec_dir, spec_display, context):
    """Load and check spec/dred.yaml; add `dred` (a DredModel) to the context."""
    data = loader.load(Path(spec_dir) / "dred.yaml", f"{spec_display}/dred.yaml")
    schema.check(SCHEMA, data)
    installed = context.get("headers") or headers.parse_installed()
    context.update(dred=build(data, installed, _retail_versions(context)))
