"""A small strict schema checker for the spec files.

Schemas are plain objects (Map, MapOf, ListOf, ...). `check(schema, node, path)` raises SpecError at the first
problem: unknown key, missing key, wrong type. Semantic rules (duplicates, history order, references) live in
model.py, which reads only data that passed these checks.
"""
import re

from loader import Located, LocatedList, SpecError

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def describe(node):
    """How a wrong value is named in an error: YAML words, not Python classes."""
    if isinstance(node, dict):
        return "a mapping"
    if isinstance(node, list):
        return "a list"
    if node is None:
        return "null"
    if isinstance(node, bool):
        return "true" if node else "false"
    return repr(node)


def _where(node):
    return getattr(node, "file", "?"), getattr(node, "line", 0)


def join(path, name):
    return f"{path}.{name}" if path else str(name)


def fail(node, path, message, key=None):
    path = path or "(top)"
    file, line = _where(node)
    if key is not None and isinstance(node, (Located, LocatedList)):
        line = node.line_of(key)
    raise SpecError(file, line, path, message)


class Schema:
    def check(self, node, path, parent, key):
        raise NotImplementedError


class Int(Schema):
    def __init__(self, minimum=None):
        self.minimum = minimum

    def check(self, node, path, parent, key):
        if isinstance(node, bool) or not isinstance(node, int):
            fail(parent, path, f"expected an integer, got {describe(node)}", key)
        if self.minimum is not None and node < self.minimum:
            fail(parent, path, f"must be at least {self.minimum}, got {node}", key)


class Str(Schema):
    def __init__(self, pattern=None, what="a string"):
        self.pattern, self.what = pattern, what

    def check(self, node, path, parent, key):
        if not isinstance(node, str):
            fail(parent, path, f"expected {self.what}, got {describe(node)}", key)
        if self.pattern is not None and not self.pattern.match(node):
            fail(parent, path, f"expected {self.what}, got {describe(node)}", key)


class Bool(Schema):
    def check(self, node, path, parent, key):
        if not isinstance(node, bool):
            fail(parent, path, f"expected true or false, got {describe(node)}", key)


class Enum(Schema):
    def __init__(self, *choices):
        self.choices = choices

    def check(self, node, path, parent, key):
        if node not in self.choices:
            fail(parent, path, f"expected one of {', '.join(self.choices)}, got {describe(node)}", key)


class Nullable(Schema):
    def __init__(self, inner):
        self.inner = inner

    def check(self, node, path, parent, key):
        if node is not None:
            self.inner.check(node, path, parent, key)


class LineRange(Schema):
    """When a value is present on one line: null, N (from N on), or [N, M] (from N, gone from M on)."""

    def check(self, node, path, parent, key):
        if node is None or (isinstance(node, int) and not isinstance(node, bool)):
            return
        if isinstance(node, list) and len(node) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in node):
            return
        shown = "[" + ", ".join(describe(v) for v in node) + "]" if isinstance(node, list) else describe(node)
        fail(parent, path, f"expected null, a version or [first, stop], got {shown}", key)


class ListOf(Schema):
    def __init__(self, item, min_items=0):
        self.item, self.min_items = item, min_items

    def check(self, node, path, parent, key):
        if not isinstance(node, list):
            fail(parent, path, f"expected a list, got {describe(node)}", key)
        if len(node) < self.min_items:
            fail(parent, path, f"expected at least {self.min_items} item(s)", key)
        for index, item in enumerate(node):
            self.item.check(item, f"{path}[{index}]", node, index)


class Map(Schema):
    """A mapping with fixed keys: `required` and `optional` are {key: schema}."""

    def __init__(self, required, optional=None):
        self.required, self.optional = required, optional or {}

    def check(self, node, path, parent, key):
        if not isinstance(node, dict):
            fail(parent, path, f"expected a mapping, got {describe(node)}", key)
        for name in node:
            if name not in self.required and name not in self.optional:
                known = ", ".join(list(self.required) + list(self.optional))
                fail(node, join(path, name), f"unknown key (expected: {known})", name)
        for name, schema in self.required.items():
            if name not in node:
                fail(node, path or "(top)", f"missing key '{name}'")
            schema.check(node[name], join(path, name), node, name)
        for name, schema in self.optional.items():
            if name in node:
                schema.check(node[name], join(path, name), node, name)


class MapOf(Schema):
    """A mapping from identifiers to values of one schema."""

    def __init__(self, value, min_items=0):
        self.value, self.min_items = value, min_items

    def check(self, node, path, parent, key):
        if not isinstance(node, dict):
            fail(parent, path, f"expected a mapping, got {describe(node)}", key)
        if len(node) < self.min_items:
            fail(parent, path, f"expected at least {self.min_items} entry(ies)", key)
        for name, value in node.items():
            if not isinstance(name, str) or not IDENT.match(name):
                fail(node, join(path, name), "expected a C identifier as key", name)
            self.value.check(value, join(path, name), node, name)


def check(schema, node):
    schema.check(node, "", node, None)


NAME = Str(IDENT, "a C identifier")
FLAVOR_PAIR = Map({"retail": Int(0), "preview": Int(0)})
VERSION_ENTRY = Map({"version": Int(0), "tags": ListOf(Str())})

SDK = Map({
    "lines": Map({
        "retail": Map({"versions": ListOf(VERSION_ENTRY, 1)}),
        "preview": Map({"first": Int(1), "versions": ListOf(VERSION_ENTRY, 1)}),
    }),
    "runtime": FLAVOR_PAIR,
    "check_feature_support1": FLAVOR_PAIR,
})

ENUM_KINDS = ("feature", "tier", "flags", "shader_model", "root_signature_version", "feature_level")
ENUMS = Map({"enums": MapOf(Map(
    {"kind": Enum(*ENUM_KINDS),
     "values": ListOf(Map({"name": NAME, "value": Int(), "retail": LineRange(), "preview": LineRange(),
                           "tag": Str()},
                          {"alias_of": NAME}), 1)},
    {"c_type": NAME}), 1)})

FIELD_KINDS = ("tier", "flags", "shader_model", "root_signature_version", "feature_level", "bool", "integer",
               "input", "inout", "opaque")
FIELD = Map({"name": NAME, "type": Str(), "kind": Enum(*FIELD_KINDS)},
            {"count": Int(1), "anonymous": Bool(), "enum": NAME})
LAYOUT = Map({"retail": Nullable(Int(0)), "preview": Nullable(Int(0)), "fields": ListOf(FIELD, 1)})
FEATURES = Map({"features": MapOf(Map(
    {"value": Int(0), "struct": Nullable(NAME)},
    {"layouts": ListOf(LAYOUT, 1), "never_clamped": Bool()}), 1)})

AGG_FIELD = Map({"name": NAME, "type": NAME}, {"count": Int(1)})
TYPES = Map({
    "scalars": MapOf(Map({"size": Int(1)}, {"align": Int(1)}), 1),
    "parameter_enums": ListOf(NAME),
    "aggregates": MapOf(Map({"fields": ListOf(AGG_FIELD, 1)}, {"union": Bool()})),
})
