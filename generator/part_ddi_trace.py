"""Part `ddi_trace`: spec/ddi.yaml -> generated/runtime/d12_ddi_trace_wrappers.h, the runtime->driver wrappers of
the DDI trace (docs/conformance.md "The DDI trace") and of failure injection (docs/reliability.md "Failure
injection"), one per slot of every driver table spec/ddi.yaml's `trace.tables` lists, so a DDI entry added to such
a table is traced, lock-checked and failable without a hand-written line.

What a wrapper writes is the `>` line "> #<call> t=<tid> <slot> <Name>=<value> ..." at entry and, for an entry point
that returns a value, the `=` line "= #<call> t=<tid> <slot> hr=0x<HRESULT>" (size=, value=) at return. The fields
come from the function type's `trace` list, or, without one, from its parameters that are handles, enums or numbers
(pointers are left out). A trace item is a string "EXPR [as NAME] [hex|hex8]", EXPR being a parameter or
`param.field` (a field of the struct a pointer parameter points at, NULL-checked), or a mapping {name, format,
value} with a printf format and a C expression over the parameters. A wrapper of an entry point returning an
HRESULT asks d12__fault_ddi_fails() first (constant false outside the injection build) and answers E_OUTOFMEMORY
without calling the driver when it says so.

Checked here: each table names a struct of spec/ddi.yaml whose fields are all function types; each trace item names
a parameter (and a field of a struct it points at) or is a full mapping; store names are unique identifiers. The
hand-written runtime/ddi_trace.c supplies ENTER / LEAVE / LEAVE_RESULT, wrap_slot and the callbacks' wrappers.
"""
import re
from dataclasses import dataclass, field as dc_field

import part_ddi
from schema import fail

NAME = "ddi_trace"
FILES = ("ddi.yaml",)
OUTPUTS = (("ddi_trace_wrappers.h.j2", "generated/runtime/d12_ddi_trace_wrappers.h", "c"),)

WIDTH = 120
ITEM_RE = re.compile(r"^(?P<expr>[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?)"
                     r"(\s+as\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*))?(\s+(?P<fmt>hex8|hex))?$")
# Numbers: printf format, cast, hex format.
NUMBERS = {
    "UINT": ("%u", "(unsigned)", "0x%X"), "UINT32": ("%u", "(unsigned)", "0x%X"), "INT": ("%d", "(int)", "0x%X"),
    "BOOL": ("%d", "(int)", "0x%X"), "UINT64": ("%llu", "(unsigned long long)", "0x%llX"),
    "SIZE_T": ("%zu", "(size_t)", "0x%zX"),
}
RESULTS = {"HRESULT": ("hr", "0x%08X", "(unsigned)"), "SIZE_T": ("size", "%zu", "(size_t)"),
           "UINT64": ("value", "0x%llX", "(unsigned long long)"), "UINT": ("value", "0x%X", "(unsigned)")}


@dataclass
class Field:
    name: str     # as the line shows it
    format: str   # printf
    value: str    # C expression over the wrapper's parameters


@dataclass
class Wrapper:
    store: str
    slot: str
    returns: str
    params: list            # part_ddi Members
    fields: list = dc_field(default_factory=list)

    @property
    def function(self):
        return f"w_{self.store}_{self.slot}"

    @property
    def result(self):
        """(name, format, cast) of the `=` line, or None for VOID."""
        return RESULTS.get(self.returns)

    @property
    def failable(self):
        return self.returns == "HRESULT"

    @property
    def invoke(self):
        """The statement calling the driver's function (through the failure countdown when it returns an HRESULT)."""
        call = f"od.{self.store}.{self.slot}("
        if self.failable:
            head = f"    {self.returns} result = d12__fault_ddi_fails() ? E_OUTOFMEMORY : {call}"
        elif self.result:
            head = f"    {self.returns} result = {call}"
        else:
            head = f"    {call}"
        return wrapped_call(head, [p.name for p in self.params], ");")

    @property
    def head(self):
        return wrapped_call(f"static {self.returns} APIENTRY {self.function}(", [p.declarator for p in self.params],
                            ")")

    @property
    def enter(self):
        text = " ".join(f"{f.name}={f.format}" for f in self.fields)
        return wrapped_call("    ENTER(", [self.slot, f'"{text}"', *[f.value for f in self.fields]], ");")


@dataclass
class Table:
    struct: str
    store: str
    wrappers: list

    @property
    def installs(self):
        return [wrapped_call("    wrap_slot(", [f"&table->{w.slot}", f"&od.{self.store}.{w.slot}", f"(any_fn){w.function}"],
                             ");") for w in self.wrappers]


@dataclass
class TraceModel:
    tables: list


def wrapped_call(head, args, tail):
    """`head` + args + `tail` on one line when it fits WIDTH, else filled line by line under the first argument."""
    flat = head + ", ".join(args) + tail
    if len(flat) <= WIDTH:
        return flat
    pad = " " * len(head) if len(head) <= 64 else " " * (len(head) - len(head.lstrip()) + 8)
    lines, line = [], head
    if pad != " " * len(head):  # a deep head: every argument on the continuation lines
        lines, line = [head.rstrip()], pad
    for i, arg in enumerate(args):
        piece = arg + ("," if i + 1 < len(args) else tail)
        fresh = line in (head, pad)
        candidate = line + ("" if fresh else " ") + piece
        if len(candidate) > WIDTH and not fresh:
            lines.append(line)
            line = pad + piece
        else:
            line = candidate
    lines.append(line)
    return "\n".join(lines)


def _base(c_type):
    return c_type.replace("const", "").replace("*", "").strip()


def _render(c_type, expr, hex_kind, kinds, node, path, key):
    """(format, C expression) of one value of type c_type."""
    kind = kinds.get(c_type)
    if kind is not None and kind.kind == "handle":
        return "%p", f"{expr}.{'pDrvPrivate' if kind.side == 'driver' else 'handle'}"
    if kind is not None and kind.kind == "enum":
        return ("0x%X" if hex_kind == "hex" else "0x%08X" if hex_kind == "hex8" else "%d"), f"(int){expr}"
    if c_type in NUMBERS:
        plain, cast, hexa = NUMBERS[c_type]
        fmt = hexa if hex_kind == "hex" else "0x%08X" if hex_kind == "hex8" else plain
        return fmt, f"{cast}{expr}"
    fail(node, path, f"cannot trace a value of type {c_type} (give {{name, format, value}})", key)


def _item(item, function, kinds, node, path, key):
    """One trace item of `function` as a Field."""
    if isinstance(item, dict):
        missing = [k for k in ("name", "format", "value") if k not in item]
        if missing or set(item) - {"name", "format", "value"}:
            fail(node, path, "a trace mapping has exactly the keys name, format, value", key)
        return Field(item["name"], item["format"], item["value"])
    match = ITEM_RE.match(item) if isinstance(item, str) else None
    if not match:
        fail(node, path, f"expected 'PARAM[.FIELD] [as NAME] [hex|hex8]', got {item!r}", key)
    param_name, _, member = match.group("expr").partition(".")
    param = next((p for p in function.params if p.name == param_name), None)
    if param is None:
        fail(node, path, f"{function.name} has no parameter {param_name}", key)
    if not member:
        fmt, value = _render(param.c_type, param.name, match.group("fmt"), kinds, node, path, key)
        return Field(match.group("name") or param.name, fmt, value)
    struct = kinds.get(_base(param.c_type))
    if not param.c_type.endswith("*") or struct is None or struct.kind != "struct":
        fail(node, path, f"{param_name} is no pointer to a struct of spec/ddi.yaml", key)
    fields = [f for f in struct.fields if not isinstance(f, list)] + [f for u in struct.fields if isinstance(u, list)
                                                                        for f in u]
    target = next((f for f in fields if f.name == member), None)
    if target is None:
        fail(node, path, f"{struct.name} has no field {member}", key)
    fmt, value = _render(target.c_type, f"{param.name}->{member}", match.group("fmt"), kinds, node, path, key)
    zero = "NULL" if fmt == "%p" else "0"
    return Field(match.group("name") or member, fmt, f"({param.name} ? {value} : {zero})")


def _fields(function, kinds):
    if function.trace is None:
        result = []
        for p in function.params:
            kind = kinds.get(p.c_type)
            if p.c_type in NUMBERS or (kind is not None and kind.kind in ("handle", "enum")):
                result.append(Field(p.name, *_render(p.c_type, p.name, None, kinds, None, "", None)))
        return result
    node, path = function.trace_node, f"{function.where[2]}.trace"
    return [_item(item, function, kinds, node, f"{path}[{i}]", i) for i, item in enumerate(function.trace)]


def build(ddi):
    kinds = {d.name: d for d in ddi.declarations}
    tables, stores = [], {}
    for index, entry in enumerate(ddi.trace_tables):
        path = f"trace.tables[{index}]"
        struct = kinds.get(entry["struct"])
        if struct is None or struct.kind != "struct":
            fail(entry, f"{path}.struct", f"{entry['struct']} is no struct of spec/ddi.yaml", "struct")
        if entry["store"] in stores:
            fail(entry, f"{path}.store", f"duplicate store {entry['store']} (also {stores[entry['store']]})", "store")
        stores[entry["store"]] = path
        wrappers = []
        for slot in struct.fields:
            function = kinds.get(slot.c_type) if not isinstance(slot, list) else None
            if function is None or function.kind != "function":
                fail(entry, f"{path}.struct", f"{struct.name}.{getattr(slot, 'name', '?')} is no driver function "
                     "(every slot of a traced table is)", "struct")
            wrappers.append(Wrapper(entry["store"], slot.name, function.returns, function.params,
                                    _fields(function, kinds)))
        tables.append(Table(struct.name, entry["store"], wrappers))
    return TraceModel(tables)


def load(spec_dir, spec_display, context):
    """Reads part `ddi`'s model (the functions and the raw `trace` entries; loaded here when that part is not
    selected); adds `trace`."""
    if "ddi" not in context:
        part_ddi.load(spec_dir, spec_display, context)
    context["trace"] = build(context["ddi"])
