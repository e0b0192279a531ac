"""The `validation` section of spec/ddi.yaml: what the runtime checks in what a driver passes to a callback.

Each entry names a callback, the pointer parameter it validates and its rules in checking order; the model
checks every name against the DDI declarations (the callback, the struct, each field, each enum bound), that a
rule dereferencing the parameter comes after the rule that the parameter is non-NULL, and that `example` names
every field of the struct exactly once with a value of the field's type. Templates render the predicates
(generated/runtime/d12_ddi_validation.h) and the positive and negative cases (generated/tests/).
"""
from dataclasses import dataclass, field as dc_field

from schema import Enum, Int, ListOf, Map, Str, fail
import schema

RULE_KINDS = ("precondition", "non_null", "in_range", "any")

RULE = Map({"kind": Enum(*RULE_KINDS), "quote": Str()}, {
    "name": schema.NAME, "field": schema.NAME, "hresult": schema.NAME, "min": schema.NAME, "max": schema.NAME,
    "samples": ListOf(Int(0), 1)})


class AnyValue(schema.Schema):
    """An example value: an integer, or a string (an enumerator name or a C string)."""

    def check(self, node, path, parent, key):
        if not isinstance(node, (int, str)) or isinstance(node, bool):
            fail(parent, path, f"expected an integer or a string, got {schema.describe(node)}", key)


ENTRY = Map({"callback": schema.NAME, "function": schema.NAME, "param": schema.NAME, "source": Str(),
             "example": schema.MapOf(AnyValue(), 1), "rules": ListOf(RULE, 1)})
# Rules need these keys besides kind and quote (and may have no others).
NEEDS = {"precondition": {"name", "hresult"}, "non_null": {"field", "hresult"},
         "in_range": {"field", "min", "max", "hresult"}, "any": {"field", "samples"}}
HRESULTS = ("E_INVALIDARG", "E_POINTER", "E_FAIL")


@dataclass
class Case:
    """One generated test case: `assign` is C assignments to the example payload `m` (or None: NULL param)."""
    name: str
    expected: str            # HRESULT name
    rule: str | None         # the rule expected to fail, or None
    enabled: bool = True     # preconditions hold
    null_param: bool = False
    assign: list = dc_field(default_factory=list)


@dataclass
class Rule:
    kind: str
    quote: str
    name: str
    hresult: str | None = None
    field: str | None = None
    c_type: str | None = None
    min: str | None = None
    max: str | None = None
    samples: list = dc_field(default_factory=list)


@dataclass
class Validation:
    callback: str
    function: str
    param: str
    struct: str
    source: str
    example: list            # [(field, C expression)]
    rules: list
    cases: list

    @property
    def preconditions(self):
        return [r for r in self.rules if r.kind == "precondition"]


def _struct_fields(decl):
    return {m.name: m.c_type for m in decl.fields if not isinstance(m, list)}


def _literal(value, c_type, enums, node, path, key):
    """A C expression for an example value of a field of type c_type."""
    if c_type in enums:
        if value not in enums[c_type]:
            fail(node, path, f"{value!r} is not a value of {c_type}", key)
        return value
    if c_type in ("LPCSTR", "const char*"):
        if not isinstance(value, str):
            fail(node, path, "expected a string", key)
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if not isinstance(value, int):
        fail(node, path, f"expected an integer for {c_type}", key)
    return f"0x{value:X}ull" if value > 0xFFFFFFFF else f"0x{value:X}u"


def _param_struct(entry, callback, by_name, path):
    param = next((p for p in callback.params if p.name == entry["param"]), None)
    if param is None:
        fail(entry, f"{path}.param", f"{callback.name} has no parameter {entry['param']}", "param")
    base = param.c_type.replace("const", "").replace("*", "").strip()
    decl = by_name.get(base)
    if decl is None or decl.kind != "struct" or not param.c_type.endswith("*"):
        fail(entry, f"{path}.param", f"{entry['param']} is not a pointer to a declared struct", "param")
    return decl


def _rule(item, index, entry, path, fields, enums, param):
    rpath = f"{path}.rules[{index}]"
    extra = set(item) - {"kind", "quote"} - NEEDS[item["kind"]]
    missing = NEEDS[item["kind"]] - set(item)
    if missing or extra:
        what = f"missing {', '.join(sorted(missing))}" if missing else f"unexpected {', '.join(sorted(extra))}"
        fail(entry["rules"], rpath, f"a {item['kind']} rule: {what}", index)
    if item.get("hresult") is not None and item["hresult"] not in HRESULTS:
        fail(item, f"{rpath}.hresult", f"expected one of {', '.join(HRESULTS)}", "hresult")
    rule = Rule(item["kind"], " ".join(item["quote"].split()), item.get("name") or item["field"],
                item.get("hresult"), item.get("field"), samples=list(item.get("samples", [])))
    if rule.kind == "precondition":
        return rule
    if rule.field != param and rule.field not in fields:
        fail(item, f"{rpath}.field", f"{rule.field} is neither {param} nor a field of the struct", "field")
    rule.c_type = fields.get(rule.field)
    if rule.kind == "non_null" and rule.field != param and not (rule.c_type.endswith("*") or rule.c_type == "LPCSTR"):
        fail(item, f"{rpath}.field", f"{rule.field} is not a pointer", "field")
    if rule.kind == "in_range":
        values = enums.get(rule.c_type)
        if values is None:
            fail(item, f"{rpath}.field", f"{rule.field} is not of a declared enum type", "field")
        for bound in ("min", "max"):
            if item[bound] not in values:
                fail(item, f"{rpath}.{bound}", f"{item[bound]} is not a value of {rule.c_type}", bound)
        if values[item["min"]] > values[item["max"]]:
            fail(item, f"{rpath}.max", "max is below min", "max")
        rule.min, rule.max = item["min"], item["max"]
    return rule


def _check_order(rules, entry, path, param):
    param_checked = False
    for index, rule in enumerate(rules):
        if rule.kind == "non_null" and rule.field == param:
            param_checked = True
        elif rule.kind != "precondition" and not param_checked:
            fail(entry["rules"], f"{path}.rules[{index}]", f"checks a field before the rule that {param} is non-NULL",
                 index)
    if not param_checked:
        fail(entry, f"{path}.rules", f"no non_null rule for {param}", "rules")


def _cases(v, enums):
    """Positive and negative cases: one per precondition, NULL pointer, each bound and beyond, every enum value
    in range, every sample of an unvalidated field, and the example itself."""
    cases = [Case(f"{v.function}: the example is valid", "S_OK", None)]
    for rule in v.rules:
        if rule.kind == "precondition":
            cases.append(Case(f"{v.function}: {rule.name} is false", rule.hresult, rule.name, enabled=False))
        elif rule.kind == "non_null" and rule.field == v.param:
            cases.append(Case(f"{v.function}: {v.param} is NULL", rule.hresult, rule.name, null_param=True))
        elif rule.kind == "non_null":
            cases.append(Case(f"{v.function}: {rule.field} is NULL", rule.hresult, rule.name,
                              assign=[f"m->{rule.field} = NULL;"]))
        elif rule.kind == "in_range":
            values = enums[rule.c_type]
            low, high = values[rule.min], values[rule.max]
            for name, value in values.items():
                if low <= value <= high:
                    cases.append(Case(f"{v.function}: {rule.field} = {name}", "S_OK", None,
                                      assign=[f"m->{rule.field} = {name};"]))
            for label, expr in ((f"{rule.min} - 1", f"(long long){rule.min} - 1"),
                                (f"{rule.max} + 1", f"(long long){rule.max} + 1"),
                                ("0x7FFFFFFF", "0x7FFFFFFF")):
                cases.append(Case(f"{v.function}: {rule.field} = {label}", rule.hresult, rule.name,
                                  assign=[f"m->{rule.field} = ({rule.c_type})({expr});"]))
        else:
            for sample in rule.samples:
                cases.append(Case(f"{v.function}: {rule.field} = 0x{sample:X} (not validated)", "S_OK", None,
                                  assign=[f"m->{rule.field} = ({rule.c_type})0x{sample:X}ull;"]))
    return cases


def build(data, declarations, node_path="validation"):
    by_name = {d.name: d for d in declarations}
    enums = {d.name: {m.name: int(m.c_type, 0) for m in d.values} for d in declarations if d.kind == "enum"}
    result, functions = [], set()
    for index, entry in enumerate(data):
        path = f"{node_path}[{index}]"
        callback = by_name.get(entry["callback"])
        if callback is None or callback.kind != "callback":
            fail(entry, f"{path}.callback", f"{entry['callback']} is not a declared callback", "callback")
        if entry["function"] in functions:
            fail(entry, f"{path}.function", f"duplicate function {entry['function']}", "function")
        functions.add(entry["function"])
        struct = _param_struct(entry, callback, by_name, path)
        fields = _struct_fields(struct)
        example_node = entry["example"]
        for name in fields:
            if name not in example_node:
                fail(entry, f"{path}.example", f"the example does not set {name}", "example")
        example = []
        for name, value in example_node.items():
            if name not in fields:
                fail(example_node, f"{path}.example.{name}", f"{struct.name} has no field {name}", name)
            example.append((name, _literal(value, fields[name], enums, example_node, f"{path}.example.{name}", name)))
        rules = [_rule(item, i, entry, path, fields, enums, entry["param"]) for i, item in enumerate(entry["rules"])]
        _check_order(rules, entry, path, entry["param"])
        v = Validation(callback.name, entry["function"], entry["param"], struct.name,
                       " ".join(entry["source"].split()), example, rules, [])
        v.cases = _cases(v, enums)
        result.append(v)
    return result
