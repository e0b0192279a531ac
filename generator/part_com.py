"""Part `com`: COM objects and interface extensions (spec/com.yaml) -> the public d12rt/d3d12_ext.h and the
vtable boilerplate (every slot, QueryInterface, entry thunks, not-implemented stubs) of each runtime object.

Vtables are the installed DirectX-Headers' own (`<Interface>Vtbl`, parsed by headers.py), so the objects are
ABI-compatible with any client compiled against those headers.
"""
import re
import uuid
from dataclasses import dataclass, field as dc_field

import loader
import schema
from headers import VtableSlot
from loader import SpecError

NAME = "com"
FILES = ("com.yaml",)
OUTPUTS = (
    ("d3d12_ext.h.j2", "generated/include/d12rt/d3d12_ext.h", "c"),
    ("com_objects.h.j2", "generated/runtime/d12_com.h", "c"),
    ("com_objects.c.j2", "generated/runtime/d12_com.c", "c"),
    ("com_interfaces_table.h.j2", "generated/tests/com_interfaces.h", "c"),
)

IID_TEXT = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
PARAM = re.compile(r"^(?P<type>.*?[\s*])(?P<name>[A-Za-z_][A-Za-z0-9_]*)$")
IUNKNOWN = ("QueryInterface", "AddRef", "Release")

SCHEMA = schema.Map({
    "extensions": schema.MapOf(schema.Map({
        "base": schema.NAME,
        "iid": schema.Str(IID_TEXT, "an IID like 01234567-89ab-cdef-0123-456789abcdef"),
        "methods": schema.ListOf(schema.Map({"name": schema.NAME, "returns": schema.Str(),
                                             "params": schema.ListOf(schema.Str())}), 1)})),
    "constants": schema.ListOf(schema.Map({"name": schema.NAME, "type": schema.NAME, "value": schema.Int()})),
    "objects": schema.MapOf(schema.Map({
        "struct": schema.NAME,
        "header": schema.Str(),
        "groups": schema.ListOf(schema.Map({"name": schema.NAME, "chain": schema.ListOf(schema.NAME, 1)},
                                           {"forward": schema.NAME, "optional": schema.Bool()}), 1),
        "implemented": schema.ListOf(schema.NAME)},
        {"delegate": schema.MapOf(schema.NAME)}), 1),
}, {
    # HRESULTs the installed headers (the WSL stubs) may lack: emitted guarded by #ifndef.
    "hresults": schema.ListOf(schema.Map({"name": schema.NAME, "value": schema.Int()})),
    # Types d12rt's extension interfaces use, emitted before them in order: a flags or plain enum (`values`), a
    # struct (`fields`, C declarations), or a function pointer (`returns` and `params`, C declarations).
    "types": schema.ListOf(schema.Map({"name": schema.NAME, "doc": schema.Str()},
                                      {"values": schema.ListOf(schema.Map({"name": schema.NAME, "value": schema.Int()}), 1),
                                       "flags": schema.Bool(),
                                       "fields": schema.ListOf(schema.Str(), 1),
                                       "returns": schema.Str(),
                                       "params": schema.ListOf(schema.Str(), 1)})),
})


@dataclass
class Interface:
    name: str
    slots: list            # [VtableSlot] in slot order, IUnknown's three first
    iid: tuple | None = None  # (l, w1, w2, [8 bytes]) for extensions; None: the IID comes from DirectX-Guids
    base: str | None = None
    new_slots: list = dc_field(default_factory=list)  # an extension's own methods

    @property
    def uuid_text(self):
        l, w1, w2, b = self.iid
        return f"{l:08x}-{w1:04x}-{w2:04x}-{b[0]:02x}{b[1]:02x}-" + "".join(f"{x:02x}" for x in b[2:])

    @property
    def iid_args(self):
        """The GUID as DEFINE_GUID / __CRT_UUID_DECL arguments."""
        l, w1, w2, b = self.iid
        return ", ".join([f"0x{l:08x}", f"0x{w1:04x}", f"0x{w2:04x}"] + [f"0x{x:02x}" for x in b])

    def introducing(self, slot_name, chain):
        """The interface of `chain` that first declares `slot_name` (for messages)."""
        for interface in chain:
            if any(s.name == slot_name for s in interface.slots):
                return interface.name
        return self.name


@dataclass
class Group:
    name: str
    chain: list            # [Interface], base first
    forward: str | None
    optional: bool

    @property
    def top(self):
        return self.chain[-1]


@dataclass
class ComObject:
    name: str
    struct: str
    header: str
    groups: list
    implemented: set
    delegate: dict         # interface -> member: the interface's own methods go to d12_<member>_<Method>(&self-><member>)

    def delegate_of(self, group, slot):
        """The member a slot is delegated to, or None."""
        return self.delegate.get(group.top.introducing(slot.name, group.chain))

    def implements(self, group, slot):
        return group.forward is not None or slot.name in self.implemented or self.delegate_of(group, slot) is not None


@dataclass
class ComType:
    name: str
    kind: str              # "enum", "struct" or "funcptr"
    doc: str
    values: list = dc_field(default_factory=list)   # enum: [(name, value)]
    flags: bool = False
    fields: list = dc_field(default_factory=list)   # struct: ["TYPE Name", ...]
    returns: str = ""
    params: list = dc_field(default_factory=list)   # funcptr: ["TYPE Name", ...]


@dataclass
class ComModel:
    extensions: list
    constants: list
    objects: list
    hresults: list
    types: list = dc_field(default_factory=list)


def _iid_parts(text):
    value = uuid.UUID(text)
    fields = value.fields
    return (fields[0], fields[1], fields[2], list(value.bytes[8:]))


def _parse_params(texts, node, path):
    params = []
    for index, text in enumerate(texts):
        match = PARAM.match(text.strip())
        if match is None:
            schema.fail(node, f"{path}[{index}]", f"expected a C parameter declaration like 'UINT Size', got {text!r}",
                        index)
        params.append((" ".join(text.split()), match.group("name")))
    return params


def _extensions(data, vtables):
    result = []
    for name, node in data["extensions"].items():
        path = f"extensions.{name}"
        if name in vtables:
            schema.fail(node, path, f"{name} is already declared by the installed headers")
        if node["base"] not in vtables:
            schema.fail(node, f"{path}.base", f"unknown interface {node['base']}", "base")
        new = [VtableSlot(m["name"], " ".join(m["returns"].split()),
                          _parse_params(m["params"], m["params"], f"{path}.methods[{i}].params"))
               for i, m in enumerate(node["methods"])]
        inherited = [s.name for s in vtables[node["base"]]]
        for index, slot in enumerate(new):
            if slot.name in inherited:
                schema.fail(node["methods"][index], f"{path}.methods[{index}].name",
                            f"{slot.name} is already a method of {node['base']}", "name")
        interface = Interface(name, vtables[node["base"]] + new, _iid_parts(node["iid"]), node["base"], new)
        result.append(interface)
    return result


def _check_chain(chain, node, path):
    for index in range(1, len(chain)):
        parent, child = chain[index - 1], chain[index]
        prefix = [s.name for s in child.slots[:len(parent.slots)]]
        if prefix != [s.name for s in parent.slots]:
            schema.fail(node, f"{path}[{index}]", f"{child.name} does not derive from {parent.name}", index)


def _objects(data, interfaces):
    result = []
    for name, node in data["objects"].items():
        groups, seen = [], {}
        for gi, gnode in enumerate(node["groups"]):
            gpath = f"objects.{name}.groups[{gi}]"
            chain = []
            for ci, iface in enumerate(gnode["chain"]):
                if iface not in interfaces:
                    schema.fail(gnode["chain"], f"{gpath}.chain[{ci}]", f"unknown interface {iface}", ci)
                if iface in seen:
                    schema.fail(gnode["chain"], f"{gpath}.chain[{ci}]", f"{iface} is already in group {seen[iface]}",
                                ci)
                seen[iface] = gnode["name"]
                chain.append(interfaces[iface])
            _check_chain(chain, gnode["chain"], f"{gpath}.chain")
            groups.append(Group(gnode["name"], chain, gnode.get("forward"), gnode.get("optional", False)))
        methods = {s.name for g in groups for s in g.top.slots}
        for index, method in enumerate(node["implemented"]):
            if method not in methods or method in IUNKNOWN:
                schema.fail(node["implemented"], f"objects.{name}.implemented[{index}]",
                            f"{method} is not a method of {name}'s interfaces (IUnknown's are always implemented)",
                            index)
        delegate = node.get("delegate", {})
        chains = {i.name for g in groups for i in g.chain}
        for interface in delegate:
            if interface not in chains:
                schema.fail(delegate, f"objects.{name}.delegate.{interface}",
                            f"{interface} is not an interface of {name}", interface)
        result.append(ComObject(name, node["struct"], node["header"], groups, set(node["implemented"]), delegate))
    return result


def _constants(data, installed):
    result = []
    for index, node in enumerate(data["constants"]):
        path = f"constants[{index}]"
        if node["type"] not in installed.enums:
            schema.fail(node, f"{path}.type", f"unknown enum type {node['type']}", "type")
        if node["name"] in installed.enumerators:
            schema.fail(node, f"{path}.name", f"the installed headers already declare {node['name']}", "name")
        taken = {v: k for k, v in installed.enums[node["type"]].items()}
        if node["value"] in taken:
            schema.fail(node, f"{path}.value", f"{node['value']} is {taken[node['value']]} in the installed headers",
                        "value")
        result.append(node)
    return result


def _types(data, installed):
    result, seen = [], set()
    for index, node in enumerate(data.get("types", [])):
        path = f"types[{index}]"
        name = node["name"]
        kinds = [k for k in ("values", "fields", "params") if k in node]
        if len(kinds) != 1:
            schema.fail(node, path, "a type has exactly one of values (enum), fields (struct), params (function pointer)")
        if name in seen or name in installed.enums or name in installed.vtables:
            schema.fail(node, f"{path}.name", f"{name} is declared twice (here or in the installed headers)", "name")
        seen.add(name)
        if "values" in node:
            values = [(v["name"], v["value"]) for v in node["values"]]
            for vi, (vname, _) in enumerate(values):
                if vname in installed.enumerators:
                    schema.fail(node["values"], f"{path}.values[{vi}]", f"the installed headers already declare {vname}", vi)
            result.append(ComType(name, "enum", node["doc"], values=values, flags=node.get("flags", False)))
        elif "fields" in node:
            fields = [decl for decl, _ in _parse_params(node["fields"], node["fields"], f"{path}.fields")]
            result.append(ComType(name, "struct", node["doc"], fields=fields))
        else:
            if "returns" not in node:
                schema.fail(node, path, "a function pointer needs returns")
            params = [decl for decl, _ in _parse_params(node["params"], node["params"], f"{path}.params")]
            result.append(ComType(name, "funcptr", node["doc"], returns=" ".join(node["returns"].split()), params=params))
    return result


def load(spec_dir, spec_display, context):
    installed = context["headers"]
    path = f"{spec_dir}/com.yaml"
    data = loader.load(path, f"{spec_display}/com.yaml")
    schema.check(SCHEMA, data)
    interfaces = {name: Interface(name, slots) for name, slots in installed.vtables.items()}
    extensions = _extensions(data, installed.vtables)
    interfaces.update({e.name: e for e in extensions})
    context["com"] = ComModel(extensions, _constants(data, installed), _objects(data, interfaces),
                              data.get("hresults", []), _types(data, installed))
    context["implemented_slots"] = implemented_slots


def implemented_slots(obj):
    """The hand-written methods of an object (not forwarded groups), each once, in slot order."""
    result, seen = [], set()
    for group in obj.groups:
        if group.forward is not None:
            continue
        for slot in group.top.slots[3:]:
            if slot.name in obj.implemented and slot.name not in seen and obj.delegate_of(group, slot) is None:
                seen.add(slot.name)
                result.append(slot)
    return result


__all__ = ["load", "NAME", "FILES", "OUTPUTS", "SpecError"]
