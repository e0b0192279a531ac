"""Part `messages`: the runtime's message catalogue (spec/messages.yaml) -> generated/runtime/d12_messages.h/.c.

Each entry has a catalogue name, a D3D12_MESSAGE_ID (an enumerator of the installed headers, or a project number
inside `project_ids`), a category and severity (enumerators of the installed headers), a printf format and its
typed arguments. Checked here: the shape (schema.py), unique names and IDs, the names against the installed
DirectX-Headers, the project range against every installed D3D12_MESSAGE_ID value and the driver-reported
sentinel, and every printf conversion against its argument's type. Decisions: docs/infoqueue.md.
"""
import re
from dataclasses import dataclass
from pathlib import Path

import headers
import loader
import schema
from schema import IDENT, Int, ListOf, Map, Str, fail

NAME = "messages"
FILES = ("messages.yaml",)
OUTPUTS = (
    ("messages.h.j2", "generated/runtime/d12_messages.h", "c"),
    ("messages.c.j2", "generated/runtime/d12_messages.c", "c"),
)

# D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE (driver-reported-messages.txt); not in DirectX-Headers 1.606.
DRIVER_REPORTED_MESSAGE = 1506
# D3D12_MESSAGE_ID is a C enum: a value must fit a signed 32-bit int.
ENUM_MAX = 0x7FFFFFFF

# Argument type -> (C parameter type, printf conversions it accepts, length modifier it needs, cast when passed)
ARG_TYPES = {
    "string": ("const char *", "s", "", ""),
    "int": ("int", "di", "", ""),
    "uint": ("unsigned int", "uxXo", "", ""),
    "int64": ("long long", "di", "ll", ""),
    "uint64": ("unsigned long long", "uxXo", "ll", ""),
    "hresult": ("HRESULT", "xX", "", "(unsigned int)"),
}

CONVERSION = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d*)(?:\.(?P<precision>\*|\d*))?"
                        r"(?P<length>hh|h|ll|l|j|z|t|L)?(?P<conv>.?)", re.S)


class MessageId(schema.Schema):
    """A D3D12_MESSAGE_ID enumerator name or a project number."""

    def check(self, node, path, parent, key):
        if isinstance(node, bool) or not (isinstance(node, int) or (isinstance(node, str) and IDENT.match(node))):
            fail(parent, path, f"expected a D3D12_MESSAGE_ID enumerator or a number, got {schema.describe(node)}",
                 key)


ARG = Map({"name": schema.NAME, "type": schema.Enum(*ARG_TYPES)})
MESSAGE = Map({"name": schema.NAME, "id": MessageId(), "category": schema.NAME, "severity": schema.NAME,
               "format": Str()},
              {"args": ListOf(ARG), "note": Str()})
MESSAGES = Map({"project_ids": Map({"first": Int(1), "last": Int(1)}), "messages": ListOf(MESSAGE, 1)})


@dataclass
class Arg:
    name: str
    c_type: str
    cast: str


@dataclass
class Message:
    name: str          # catalogue name: D12_MSG_<name>
    id_value: int
    id_name: str       # the header's enumerator, or None for a project ID
    category: str
    severity: str
    format: str
    args: list

    @property
    def id_expr(self):
        return self.id_name or f"D12_MESSAGE_ID_{self.name}"


@dataclass
class Catalogue:
    first: int
    last: int
    messages: list
    header_max_id: int


def _conversions(text, node, path):
    """The printf conversions of a format (not %%), as (length, conversion) pairs."""
    found = []
    for match in CONVERSION.finditer(text):
        if match.group("conv") == "%" and match.group(0) == "%%":
            continue
        if "*" in (match.group("width") or "") + (match.group("precision") or ""):
            fail(node, path, f"'{match.group(0)}': a '*' width or precision takes an argument; not supported", "format")
        if not match.group("conv") or match.group("conv") not in "diouxXcsfFeEgGaAp":
            fail(node, path, f"'{match.group(0)}' is not a printf conversion", "format")
        found.append((match.group(0), match.group("length") or "", match.group("conv")))
    return found


def _check_format(entry, path, args):
    conversions = _conversions(entry["format"], entry, f"{path}.format")
    if len(conversions) != len(args):
        fail(entry, f"{path}.format", f"{len(conversions)} conversion(s) but {len(args)} argument(s) in args",
             "format")
    for (text, length, conv), arg in zip(conversions, args):
        c_type, accepted, needed_length, _ = ARG_TYPES[arg["type"]]
        if conv not in accepted or length != needed_length:
            wanted = " or ".join(f"%{needed_length}{c}" for c in accepted)
            fail(entry, f"{path}.format", f"'{text}' does not fit argument '{arg['name']}' ({arg['type']}: "
                 f"{wanted})", "format")


def _enumerator(installed, enum, name, entry, path, key):
    values = installed.enums.get(enum, {})
    if name not in values:
        fail(entry, f"{path}.{key}", f"unknown {enum} enumerator {name} (not in the installed DirectX-Headers)", key)
    return values[name]


def _check_range(data, installed):
    ids = data["project_ids"]
    first, last = ids["first"], ids["last"]
    header_max = max(installed.enums.get("D3D12_MESSAGE_ID", {0: 0}).values())
    floor = max(header_max, DRIVER_REPORTED_MESSAGE)
    if first <= floor:
        fail(ids, "project_ids.first", f"{first:#x} must lie above every D3D12_MESSAGE_ID ({floor} = the highest of "
             f"the installed headers and DRIVER_REPORTED_MESSAGE)", "first")
    if last < first or last > ENUM_MAX:
        fail(ids, "project_ids.last", f"{last:#x} must lie in [first, {ENUM_MAX:#x}]", "last")
    return first, last, header_max


def _message(entry, path, installed, first, last):
    id_value, id_name = entry["id"], None
    if isinstance(id_value, str):
        id_name = id_value
        id_value = _enumerator(installed, "D3D12_MESSAGE_ID", id_name, entry, path, "id")
    elif not first <= id_value <= last:
        fail(entry, f"{path}.id", f"project ID {id_value:#x} is outside project_ids [{first:#x}, {last:#x}]; "
             f"use a D3D12_MESSAGE_ID enumerator name for a real ID", "id")
    _enumerator(installed, "D3D12_MESSAGE_CATEGORY", entry["category"], entry, path, "category")
    _enumerator(installed, "D3D12_MESSAGE_SEVERITY", entry["severity"], entry, path, "severity")
    args = list(entry.get("args", []))
    seen = {}
    for index, arg in enumerate(args):
        if arg["name"] in seen:
            fail(arg, f"{path}.args[{index}].name", f"duplicate argument {arg['name']} (also args[{seen[arg['name']]}])",
                 "name")
        seen[arg["name"]] = index
    _check_format(entry, path, args)
    return Message(entry["name"], id_value, id_name, entry["category"], entry["severity"], entry["format"],
                   [Arg(a["name"], ARG_TYPES[a["type"]][0], ARG_TYPES[a["type"]][3]) for a in args])


def build(data, installed):
    first, last, header_max = _check_range(data, installed)
    messages, names, ids = [], {}, {}
    for index, entry in enumerate(data["messages"]):
        path = f"messages[{index}]"
        message = _message(entry, path, installed, first, last)
        if message.name in names:
            fail(entry, f"{path}.name", f"duplicate name {message.name} (also messages[{names[message.name]}])", "name")
        if message.id_value in ids:
            fail(entry, f"{path}.id", f"duplicate ID {message.id_value:#x} (also messages[{ids[message.id_value]}])",
                 "id")
        names[message.name], ids[message.id_value] = index, index
        messages.append(message)
    return Catalogue(first, last, messages, header_max)


def load(spec_dir, spec_display, context):
    """Load and check spec/messages.yaml; add `messages` (a Catalogue) to the context."""
    data = loader.load(Path(spec_dir) / "messages.yaml", f"{spec_display}/messages.yaml")
    schema.check(MESSAGES, data)
    installed = context.get("headers") or headers.parse_installed()
    context.update(messages=build(data, installed))
