"""Part `ddi`: spec/ddi.yaml -> generated/include/d12rt/d3d12ddi.h, the driver interface.

The schema is strict (schema.py's checker); the model checks what a schema cannot: duplicate names and enum
values, type references (known, and declared before use, because the header is emitted in spec order),
version builds. Templates read `ddi`, a DdiModel, never the YAML.
"""
import re
import textwrap
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import ddi_validation
import headers
import loader
import schema
from schema import Enum, Int, ListOf, Map, Str, fail

NAME = "ddi"
FILES = ("ddi.yaml",)
OUTPUTS = (
    ("d3d12ddi.h.j2", "generated/include/d12rt/d3d12ddi.h", "c"),
    ("ddi_validation.h.j2", "generated/runtime/d12_ddi_validation.h", "c"),
    ("ddi_validation_cases.c.j2", "generated/tests/ddi_validation_cases.c", "c"),
)

KINDS = ("handle", "enum", "struct", "function", "callback", "define")
DEFINE_TYPES = {"int": "", "UINT": "u", "UINT32": "u", "UINT64": "ull", "HRESULT": ""}
# A C type as the spec writes it: optional const, one name, then pointers (each optionally const).
TYPE_RE = re.compile(r"^(const\s+)?([A-Za-z_][A-Za-z0-9_]*)((\s*\*(\s*const)?)*)$")
WIDTH = 110


class ByKind(schema.Schema):
    """A mapping whose `kind` key picks the schema for the rest (so each kind's keys are checked exactly)."""

    def __init__(self, schemas):
        self.schemas = schemas

    def check(self, node, path, parent, key):
        if not isinstance(node, dict):
            fail(parent, path, f"expected a mapping, got {schema.describe(node)}", key)
        if "kind" not in node:
            fail(node, path, "missing key 'kind'")
        Enum(*self.schemas).check(node["kind"], schema.join(path, "kind"), node, "kind")
        self.schemas[node["kind"]].check(node, path, parent, key)


class FieldOrUnion(schema.Schema):
    """A struct field, or {union: [fields]} for an anonymous union of alternatives."""

    def check(self, node, path, parent, key):
        if isinstance(node, dict) and "union" in node:
            Map({"union": ListOf(FIELD, 1)}).check(node, path, parent, key)
        else:
            FIELD.check(node, path, parent, key)


IDENT = schema.NAME
DOC = Str()
FIELD = Map({"name": IDENT, "type": Str(), "doc": DOC})
PARAM = Map({"name": IDENT, "type": Str()}, {"doc": DOC})
COMMON = {"kind": Enum(*KINDS), "name": IDENT, "doc": DOC}
OPTIONAL = {"differs": DOC}


class TraceItem(schema.Schema):
    """A trace item (part_ddi_trace.py): "EXPR [as NAME] [hex|hex8]", or {name, format, value}."""

    def check(self, node, path, parent, key):
        if isinstance(node, dict):
            Map({"name": IDENT, "format": Str(), "value": Str()}).check(node, path, parent, key)
        elif not isinstance(node, str):
            fail(parent, path, f"expected a string or a mapping, got {schema.describe(node)}", key)


FUNCTION = Map({**COMMON, "returns": Str(), "params": ListOf(PARAM)}, {**OPTIONAL, "trace": ListOf(TraceItem())})
CALLBACK = Map({**COMMON, "returns": Str(), "params": ListOf(PARAM)}, OPTIONAL)
TRACE = Map({"tables": ListOf(Map({"struct": IDENT, "store": IDENT}), 1)})
DECLARATION = ByKind({
    "handle": Map({**COMMON, "side": Enum("driver", "runtime")}, OPTIONAL),
    "enum": Map({**COMMON, "values": ListOf(Map({"name": IDENT, "value": Int(), "doc": DOC}, {"maps_to": IDENT}), 1)},
                {**OPTIONAL, "maps_to": IDENT}),
    "struct": Map({**COMMON, "fields": ListOf(FieldOrUnion(), 1)}, OPTIONAL),
    "function": FUNCTION,
    "callback": CALLBACK,
    "define": Map({**COMMON, "value": Int(), "type": Enum(*DEFINE_TYPES)}, OPTIONAL),
})
DDI = Map({
    "header": Map({"guard": IDENT, "doc": DOC}),
    "external_types": ListOf(IDENT, 1),
    "versions": Map({"major": Int(1), "releases": ListOf(Map({
        "name": IDENT, "minor": Int(0),
        "builds": ListOf(Map({"build": Int(1), "doc": DOC}), 1)}), 1)}),
    "entry_point": Map({"name": IDENT, "type": IDENT, "doc": DOC}),
    "declarations": ListOf(DECLARATION, 1),
}, {"validation": ListOf(ddi_validation.ENTRY, 1), "trace": TRACE})


def comment(text, indent=""):
    """A C comment holding `text`, wrapped; one line when it fits."""
    text = " ".join(text.split())
    one = f"{indent}/* {text} */"
    if len(one) <= WIDTH:
        return one
    lines = textwrap.wrap(text, WIDTH - len(indent) - 3)
    return f"{indent}/* " + f"\n{indent} * ".join(lines) + " */"


@dataclass
class Member:
    """A struct field or a function parameter; `declarator` is `type name` as C wants it."""
    name: str
    c_type: str
    doc: str = ""
    where: tuple = ("?", 0, "?")  # (file, line, key path) in spec/ddi.yaml, for errors found after loading

    @property
    def declarator(self):
        return f"{self.c_type} {self.name}"


@dataclass
class Declaration:
    kind: str
    name: str
    doc: str
    differs: str | None = None
    side: str | None = None
    values: list = dc_field(default_factory=list)   # enum: [Member with value in c_type]
    fields: list = dc_field(default_factory=list)   # struct: [Member | [Member] (a union)]
    returns: str | None = None
    params: list = dc_field(default_factory=list)
    value: int = 0
    suffix: str = ""
    cast: str = ""   # define: "(HRESULT)" for an HRESULT value, so 0x8... is not an unsigned int
    maps_to: str | None = None      # enum: the API enum its values surface as
    mapping: list = dc_field(default_factory=list)  # enum: [(value name, API enumerator)]
    where: tuple = ("?", 0, "?")  # (file, line, key path) in spec/ddi.yaml, for errors found after loading
    trace: list | None = None     # function: its `trace` items (part_ddi_trace.py); None: the default fields
    trace_node: object = None     # the YAML list holding them, for errors

    @property
    def shown_value(self):
        return f"0x{self.value:X}" if self.value >= 0x10000 else str(self.value)

    @property
    def map_function(self):
        """d12__ddi_map_<name without D3D12DDI_, lower case>: the DDI value as its API value."""
        return "d12__ddi_map_" + self.name.removeprefix("D3D12DDI_").lower()

    @property
    def comment(self):
        text = self.doc + (f" d12rt differs from the WDK: {self.differs}" if self.differs else "")
        return comment(text)


@dataclass
class Build:
    release: str
    major: int
    minor: int
    build: int
    doc: str

    @property
    def interface(self):
        return (self.major << 16) | self.minor

    @property
    def token(self):
        return (self.interface << 32) | (self.build << 16)

    @property
    def suffix(self):
        return f"{self.build:04d}"


@dataclass
class DdiModel:
    guard: str
    doc: str
    major: int
    releases: list   # [(name, minor, interface)]
    builds: list     # [Build], increasing
    entry_point: Member
    entry_function: Declaration
    declarations: list
    validations: list = dc_field(default_factory=list)   # [ddi_validation.Validation]
    trace_tables: list = dc_field(default_factory=list)  # spec `trace.tables` entries (part_ddi_trace.py)
    comment: staticmethod = staticmethod(comment)

    @property
    def mapped_enums(self):
        return [d for d in self.declarations if d.kind == "enum" and d.maps_to]

    @staticmethod
    def line(code, doc, indent="    "):
        """`code` with its doc as a trailing comment when that fits, else with the comment above it."""
        one = f"{indent}{code} /* {' '.join(doc.split())} */"
        if not doc or len(one) <= WIDTH:
            return one if doc else f"{indent}{code}"
        return comment(doc, indent) + f"\n{indent}{code}"

    @staticmethod
    def signature(head, params, tail=";"):
        """`head(params)tail` on one line when it fits, else one parameter per line."""
        flat = f"{head}({', '.join(p.declarator for p in params) or 'void'}){tail}"
        if len(flat) <= WIDTH:
            return flat
        return f"{head}(\n    " + ",\n    ".join(p.declarator for p in params) + f"){tail}"


class _Names:
    """Every identifier the header declares, with where it was declared, so a second one is an error."""

    def __init__(self):
        self.seen = {}

    def add(self, name, node, path, key):
        if name in self.seen:
            fail(node, path, f"duplicate name {name} (also {self.seen[name]})", key)
        self.seen[name] = path


class _Types:
    """Types usable so far: the external ones, then each declaration once it has been emitted."""

    def __init__(self, external, declarations):
        self.known = set(external)
        self.later = {d["name"]: f"declarations[{i}]" for i, d in enumerate(declarations)}

    def check(self, text, node, path, key):
        match = TYPE_RE.match(text)
        if not match:
            fail(node, path, f"expected a C type (const? NAME, then *), got {text!r}", key)
        base = match.group(2)
        if base in self.known:
            return " ".join(text.split()).replace(" *", "*")
        if base in self.later:
            fail(node, path, f"type {base} is used before its declaration ({self.later[base]})", key)
        fail(node, path, f"unknown type {base}", key)


def _members(items, node_list, path, types, what):
    names, result = {}, []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if "union" in item:
            result.append(_members(item["union"], item["union"], f"{item_path}.union", types, what))
            for member in result[-1]:
                _unique_member(names, member.name, item["union"], f"{item_path}.union", what)
            continue
        c_type = types.check(item["type"], item, f"{item_path}.type", "type")
        _unique_member(names, item["name"], node_list, item_path, what, index)
        where = (node_list.file, node_list.line_of(index), item_path)
        result.append(Member(item["name"], c_type, item.get("doc", ""), where))
    return result


def _unique_member(names, name, node, path, what, key=None):
    if name in names:
        fail(node, path, f"duplicate {what} {name} (also {names[name]})", key)
    names[name] = path


def _enum_values(decl, path, names):
    by_value, values = {}, []
    for index, item in enumerate(decl["values"]):
        item_path = f"{path}.values[{index}]"
        names.add(item["name"], decl["values"], item_path, index)
        if item["value"] in by_value:
            fail(decl["values"], item_path, f"duplicate value {item['value']} (also {by_value[item['value']]})",
                 index)
        by_value[item["value"]] = item["name"]
        shown = f"0x{item['value']:08X}" if item["value"] >= 0x10000 else str(item["value"])
        values.append(Member(item["name"], shown, item["doc"]))
    return values


def _api_enumerators(spec_dir, display, api_enum):
    """The API enumerators of `api_enum`: the installed DirectX-Headers' plus the constants spec/com.yaml adds
    to the public extension header (d12rt/d3d12_ext.h), e.g. D3D12_MESSAGE_CATEGORY_STATE_OBJECT_DATABASE."""
    names = set(headers.parse_installed().enums.get(api_enum, {}))
    com = loader.load(Path(spec_dir) / "com.yaml", f"{display}/com.yaml")
    names.update(c["name"] for c in com.get("constants", []) if c.get("type") == api_enum)
    return names


def _mapping(decl, path, api_names):
    """maps_to on an enum: every value names an enumerator of that API enum (and only then)."""
    result = []
    for index, item in enumerate(decl["values"]):
        target = item.get("maps_to")
        if decl.get("maps_to") is None:
            if target is not None:
                fail(item, f"{path}.values[{index}].maps_to", "the enum has no maps_to", "maps_to")
            continue
        if target is None:
            fail(decl["values"], f"{path}.values[{index}]", f"missing maps_to (the enum maps to {decl['maps_to']})",
                 index)
        if target not in api_names(decl["maps_to"]):
            fail(item, f"{path}.values[{index}].maps_to",
                 f"unknown {decl['maps_to']} enumerator {target} (not in DirectX-Headers nor spec/com.yaml)", "maps_to")
        result.append((item["name"], target))
    return result


def _declaration(decl, path, names, types, api_names):
    kind = decl["kind"]
    names.add(decl["name"], decl, path, "name")
    result = Declaration(kind, decl["name"], " ".join(decl["doc"].split()), decl.get("differs"))
    result.where = (decl.file, decl.line_of("name"), path)
    if kind == "handle":
        result.side = decl["side"]
    elif kind == "enum":
        result.values = _enum_values(decl, path, names)
        result.maps_to, result.mapping = decl.get("maps_to"), _mapping(decl, path, api_names)
    elif kind == "struct":
        result.fields = _members(decl["fields"], decl["fields"], f"{path}.fields", types, "field")
    elif kind in ("function", "callback"):
        result.returns = types.check(decl["returns"], decl, f"{path}.returns", "returns")
        result.params = _members(decl["params"], decl["params"], f"{path}.params", types, "parameter")
        result.trace = result.trace_node = decl.get("trace")
    else:
        result.value, result.suffix = decl["value"], DEFINE_TYPES[decl["type"]]
        result.cast = "(HRESULT)" if decl["type"] == "HRESULT" else ""
    types.known.add(decl["name"])
    return result


def _builds(versions):
    builds, previous = [], None
    for r_index, release in enumerate(versions["releases"]):
        for b_index, entry in enumerate(release["builds"]):
            if previous is not None and entry["build"] <= previous:
                fail(release["builds"], f"versions.releases[{r_index}].builds[{b_index}].build",
                     f"builds must increase: {entry['build']} after {previous}", b_index)
            previous = entry["build"]
            builds.append(Build(release["name"], versions["major"], release["minor"], entry["build"],
                                " ".join(entry["doc"].split())))
    return builds


def _entry_point(data, declarations):
    entry = data["entry_point"]
    target = next((d for d in declarations if d.name == entry["type"]), None)
    if target is None or target.kind != "function":
        fail(entry, "entry_point.type", f"{entry['type']} is not a function declared in declarations", "type")
    return Member(entry["name"], entry["type"], " ".join(entry["doc"].split())), target


def build_model(data, api_names):
    names, types = _Names(), _Types(data["external_types"], data["declarations"])
    declarations = [_declaration(decl, f"declarations[{index}]", names, types, api_names)
                    for index, decl in enumerate(data["declarations"])]
    versions = data["versions"]
    builds = _builds(versions)
    releases = [(r["name"], r["minor"], (versions["major"] << 16) | r["minor"]) for r in versions["releases"]]
    entry, entry_function = _entry_point(data, declarations)
    return DdiModel(data["header"]["guard"], " ".join(data["header"]["doc"].split()), versions["major"],
                    releases, builds, entry, entry_function, declarations,
                    ddi_validation.build(data.get("validation", []), declarations),
                    data["trace"]["tables"] if "trace" in data else [])


def load(spec_dir, spec_display, context):
    """Load and check spec/ddi.yaml; add `ddi` (a DdiModel) to the context."""
    data = loader.load(Path(spec_dir) / "ddi.yaml", f"{spec_display}/ddi.yaml")
    schema.check(DDI, data)
    cache = {}

    def api_names(api_enum):
        if api_enum not in cache:
            cache[api_enum] = _api_enumerators(spec_dir, spec_display, api_enum)
        return cache[api_enum]

    context["ddi"] = build_model(data, api_names)
