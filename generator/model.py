"""The typed model that templates read: built from schema-checked YAML, with every cross-reference resolved
and every semantic rule checked (duplicates, history order, unknown versions, enums and types).
"""
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import loader
import schema
from loader import SpecError

LINES = ("retail", "preview")
SPEC_FILES = ("sdk.yaml", "enums.yaml", "features.yaml", "types.yaml")
POINTER_SIZE = 8
# Field kinds whose value a clamp rule can change.
CLAMPED_KINDS = ("tier", "flags", "shader_model", "root_signature_version", "feature_level")


@dataclass
class Presence:
    """When something exists on one line: from `first` (None: never), gone from `stop` on (None: still)."""
    first: int | None
    stop: int | None = None

    def at(self, version):
        return self.first is not None and self.first <= version and (self.stop is None or version < self.stop)

    def overlaps(self, other):
        if self.first is None or other.first is None:
            return False
        self_end = self.stop if self.stop is not None else float("inf")
        other_end = other.stop if other.stop is not None else float("inf")
        return self.first < other_end and other.first < self_end


@dataclass
class SdkLine:
    name: str
    versions: list  # [(number, [tags])], increasing


@dataclass
class Sdk:
    lines: dict
    preview_first: int
    runtime: dict
    cfs1: dict
    where: tuple = ("?", 0, "?")  # the retail versions list, for errors found after loading

    def line_of(self, number):
        """The line a requested SDK version number belongs to."""
        return "preview" if number >= self.preview_first else "retail"


@dataclass
class EnumValue:
    name: str
    value: int
    presence: dict  # line -> Presence
    tag: str
    alias_of: str | None = None
    where: tuple = ("?", 0, "?")  # (file, line, key path) for errors found after loading

    @property
    def current(self):
        """In the newest headers of at least one line (not removed everywhere)."""
        return any(p.first is not None and p.stop is None for p in self.presence.values())


@dataclass
class EnumDef:
    name: str
    kind: str
    c_type: str
    values: list
    index: int = 0

    @property
    def is_flags(self):
        return self.kind == "flags"


@dataclass
class Field:
    name: str
    c_type: str
    kind: str
    count: int
    anonymous: bool
    enum: EnumDef | None
    size: int = 0
    align: int = 0
    offset: int = 0
    where: tuple = ("?", 0, "?")

    @property
    def clamped(self):
        return self.kind in CLAMPED_KINDS


@dataclass
class Layout:
    presence: dict  # line -> first version (None: never on that line)
    fields: list
    size: int = 0
    align: int = 1


@dataclass
class Feature:
    name: str
    value: int
    struct: str | None
    never_clamped: bool
    layouts: list
    where: tuple = ("?", 0, "?")

    @property
    def supported(self):
        return self.struct is not None


@dataclass
class Aggregate:
    name: str
    union: bool
    fields: list  # [(name, type, count)]
    size: int = 0
    align: int = 1


@dataclass
class Model:
    sdk: Sdk
    enums: dict
    features: dict
    scalars: dict
    parameter_enums: list
    aggregates: dict
    spec_files: list = dc_field(default_factory=list)

    def enum_list(self):
        return list(self.enums.values())

    def feature_list(self):
        return sorted(self.features.values(), key=lambda f: f.value)

    def clamped_fields(self):
        """Every (feature, layout, field) that a clamp rule can touch."""
        for feature in self.feature_list():
            if feature.never_clamped:
                continue
            for layout in feature.layouts:
                for f in layout.fields:
                    if f.clamped:
                        yield feature, layout, f


def _fail(node, path, message, key=None):
    schema.fail(node, path, message, key)


def _versions_of(line_node, path, node):
    result, previous = [], None
    for index, entry in enumerate(line_node):
        number = entry["version"]
        if previous is not None and number <= previous:
            _fail(line_node, f"{path}[{index}].version",
                  f"history goes backwards: {number} after {previous}", index)
        result.append((number, list(entry["tags"])))
        previous = number
    return result


def _build_sdk(data, file_name):
    lines_node = data["lines"]
    lines = {name: SdkLine(name, _versions_of(lines_node[name]["versions"], f"lines.{name}.versions", lines_node))
             for name in LINES}
    first = lines_node["preview"]["first"]
    _check_line_range(lines_node["retail"]["versions"], "lines.retail.versions", lambda n: n < first,
                      f"is not below preview.first ({first})", "retail")
    _check_line_range(lines_node["preview"]["versions"], "lines.preview.versions", lambda n: n >= first,
                      f"is below preview.first ({first})", "preview")
    retail_versions = lines_node["retail"]["versions"]
    sdk = Sdk(lines, first, {}, {}, (retail_versions.file, retail_versions.line, "lines.retail.versions"))
    for key, target in (("runtime", sdk.runtime), ("check_feature_support1", sdk.cfs1)):
        for line in LINES:
            number = data[key][line]
            _check_known_version(sdk, line, number, data[key], f"{key}.{line}", line)
            target[line] = number
    for line in LINES:
        if sdk.cfs1[line] > sdk.runtime[line]:
            _fail(data["check_feature_support1"], f"check_feature_support1.{line}",
                  f"{sdk.cfs1[line]} is newer than the runtime's version {sdk.runtime[line]}", line)
    return sdk


def _check_line_range(versions_node, path, belongs, complaint, line):
    for index, entry in enumerate(versions_node):
        if not belongs(entry["version"]):
            _fail(entry, f"{path}[{index}].version", f"{line} version {entry['version']} {complaint}", "version")


def _check_known_version(sdk, line, number, node, path, key):
    if number not in [n for n, _ in sdk.lines[line].versions]:
        _fail(node, path, f"unknown {line} SDK version {number}", key)


def _presence(sdk, node, line, path):
    raw = node[line]
    if raw is None:
        return Presence(None)
    first, stop = (raw, None) if isinstance(raw, int) else (raw[0], raw[1])
    _check_known_version(sdk, line, first, node, path, line)
    if stop is not None:
        _check_known_version(sdk, line, stop, node, path, line)
        if stop <= first:
            _fail(node, path, f"history goes backwards: gone at {stop}, not after first {first}", line)
    return Presence(first, stop)


def _build_enums(sdk, data):
    enums = {}
    for index, (name, node) in enumerate(data["enums"].items()):
        values = []
        for i, v in enumerate(node["values"]):
            path = f"enums.{name}.values[{i}]"
            presence = {line: _presence(sdk, v, line, f"{path}.{line}") for line in LINES}
            if all(p.first is None for p in presence.values()):
                _fail(v, path, "value is on neither line (retail and preview are both null)")
            value = EnumValue(v["name"], v["value"], presence, v["tag"], v.get("alias_of"), (v.file, v.line, path))
            _check_duplicates(values, value, v, path, node["values"], i)
            values.append(value)
        enums[name] = EnumDef(name, node["kind"], node.get("c_type", name), values, index)
    return enums


def _check_duplicates(previous, value, node, path, list_node, index):
    if value.alias_of is not None and not any(o.name == value.alias_of for o in previous):
        _fail(node, f"{path}.alias_of", f"unknown value {value.alias_of} (an alias follows its target)", "alias_of")
    for other in previous:
        same_name, same_number = other.name == value.name, other.value == value.value
        if value.alias_of is not None and value.alias_of == other.name:
            if not same_number:
                _fail(node, f"{path}.alias_of", f"alias of {other.name} ({other.value}) has another number")
            continue
        if not (same_name or same_number):
            continue
        if any(value.presence[line].overlaps(other.presence[line]) for line in LINES):
            what = f"name {value.name}" if same_name else f"value {value.value} (also {other.name})"
            _fail(list_node, path, f"duplicate {what} with an overlapping history", index)


class _Types:
    """Sizes and alignments of the C types feature structs use (LP64 Linux)."""

    def __init__(self, data, enums):
        self.scalars = {n: (s["size"], s.get("align", s["size"])) for n, s in data["scalars"].items()}
        self.parameter_enums = list(data["parameter_enums"])
        self.enums = enums
        self.aggregates = {}
        for name, node in data["aggregates"].items():
            aggregate = Aggregate(name, node.get("union", False),
                                  [(f["name"], f["type"], f.get("count", 1)) for f in node["fields"]])
            self._lay_out_aggregate(aggregate, node)
            self.aggregates[name] = aggregate

    def size_align(self, c_type):
        """(size, align) of a type name, or None when unknown."""
        text = c_type.strip()
        if text.endswith("*"):
            return POINTER_SIZE, POINTER_SIZE
        if text in self.scalars:
            return self.scalars[text]
        if text in self.enums or text in self.parameter_enums:
            return 4, 4
        if text in self.aggregates:
            return self.aggregates[text].size, self.aggregates[text].align
        return None

    def _lay_out_aggregate(self, aggregate, node):
        offset, align, size = 0, 1, 0
        for index, (name, c_type, count) in enumerate(aggregate.fields):
            known = self.size_align(c_type)
            if known is None:
                _fail(node["fields"][index], f"aggregates.{aggregate.name}.fields[{index}].type",
                      f"unknown type {c_type}", "type")
            fsize, falign = known
            align = max(align, falign)
            if aggregate.union:
                size = max(size, fsize * count)
            else:
                offset = _round_up(offset, falign) + fsize * count
                size = offset
        aggregate.size, aggregate.align = _round_up(size, align), align


def _round_up(value, align):
    return (value + align - 1) // align * align


def _build_features(sdk, enums, types, data):
    feature_enum = enums.get("D3D12_FEATURE")
    features, numbers = {}, {}
    for name, node in data["features"].items():
        path = f"features.{name}"
        current = _current_feature_value(feature_enum, name, node, path)
        if node["value"] in numbers:
            _fail(node, f"{path}.value", f"duplicate value {node['value']} (also {numbers[node['value']]})", "value")
        numbers[node["value"]] = name
        layouts = []
        if node["struct"] is None:
            if "layouts" in node:
                _fail(node, f"{path}.layouts", "a feature without a struct has no layouts", "layouts")
        elif "layouts" not in node:
            _fail(node, path, "missing key 'layouts'")
        else:
            layouts = [_build_layout(sdk, enums, types, lnode, f"{path}.layouts[{i}]", current)
                       for i, lnode in enumerate(node["layouts"])]
            _check_layout_history(layouts, node["layouts"], path)
        features[name] = Feature(name, node["value"], node["struct"], node.get("never_clamped", False), layouts,
                                 (node.file, node.line, path))
    return features


def _current_feature_value(feature_enum, name, node, path):
    if feature_enum is None:
        _fail(node, path, "unknown enum D3D12_FEATURE (enums.yaml must define it)")
    matches = [v for v in feature_enum.values if v.name == name and v.value == node["value"]]
    if not matches:
        _fail(node, f"{path}.value", f"D3D12_FEATURE has no value {name} = {node['value']}", "value")
    return matches[-1]


def _build_layout(sdk, enums, types, node, path, feature_value):
    presence = {}
    for line in LINES:
        first = node[line]
        if first is not None:
            _check_known_version(sdk, line, first, node, f"{path}.{line}", line)
            enum_first = feature_value.presence[line].first
            if enum_first is None or first < enum_first:
                _fail(node, f"{path}.{line}",
                      f"layout at {first} predates {feature_value.name} on the {line} line ({enum_first})", line)
        presence[line] = first
    if all(first is None for first in presence.values()):
        _fail(node, path, "layout is on neither line")
    fields, offset, align, seen = [], 0, 1, set()
    for index, fnode in enumerate(node["fields"]):
        fpath = f"{path}.fields[{index}]"
        f = _build_field(enums, types, fnode, fpath)
        if f.name in seen:
            _fail(node["fields"], f"{fpath}.name", f"duplicate field {f.name}", index)
        seen.add(f.name)
        f.offset = _round_up(offset, f.align)
        offset = f.offset + f.size * f.count
        align = max(align, f.align)
        fields.append(f)
    return Layout(presence, fields, _round_up(offset, align), align)


def _build_field(enums, types, node, path):
    kind, c_type = node["kind"], node["type"]
    known = types.size_align(c_type)
    if known is None:
        _fail(node, f"{path}.type", f"unknown type {c_type}", "type")
    enum = None
    if kind in CLAMPED_KINDS:
        key = "enum" if "enum" in node else "type"
        enum_name = node[key]
        enum = enums.get(enum_name)
        if enum is None:
            _fail(node, f"{path}.{key}", f"unknown enum {enum_name} for a {kind} field", key)
        expected = {"tier": ("tier",), "flags": ("flags",)}.get(kind, (kind,))
        if enum.kind not in expected:
            _fail(node, f"{path}.kind", f"{kind} field of {enum_name}, which is a {enum.kind} enum", "kind")
    size, align = known
    return Field(node["name"], c_type, kind, node.get("count", 1), node.get("anonymous", False), enum, size, align,
                 where=(node.file, node.line, path))


def _check_layout_history(layouts, node, path):
    for line in LINES:
        previous = None
        for index, layout in enumerate(layouts):
            first = layout.presence[line]
            if first is None:
                continue
            if previous is not None and first <= previous:
                _fail(node[index], f"{path}.layouts[{index}].{line}",
                      f"history goes backwards: layout at {first} after one at {previous}", line)
            previous = first
    sizes = {}
    for index, layout in enumerate(layouts):
        if layout.size in sizes:
            _fail(node, f"{path}.layouts[{index}]",
                  f"two layouts of {layout.size} bytes (also layouts[{sizes[layout.size]}]): the size must tell "
                  "them apart", index)
        sizes[layout.size] = index


def load_model(spec_dir, display_dir=None):
    """Load and check every spec file; raise SpecError at the first problem."""
    spec_dir = Path(spec_dir)
    display_dir = display_dir if display_dir is not None else spec_dir
    raw, schemas = {}, {"sdk.yaml": schema.SDK, "enums.yaml": schema.ENUMS,
                        "features.yaml": schema.FEATURES, "types.yaml": schema.TYPES}
    for name in SPEC_FILES:
        data = loader.load(spec_dir / name, f"{display_dir}/{name}")
        schema.check(schemas[name], data)
        raw[name] = data
    sdk = _build_sdk(raw["sdk.yaml"], "sdk.yaml")
    enums = _build_enums(sdk, raw["enums.yaml"])
    types = _Types(raw["types.yaml"], enums)
    features = _build_features(sdk, enums, types, raw["features.yaml"])
    return Model(sdk, enums, features, types.scalars, types.parameter_enums, types.aggregates,
                 [f"{display_dir}/{name}" for name in SPEC_FILES])


__all__ = ["load_model", "Model", "SpecError", "LINES", "CLAMPED_KINDS"]
