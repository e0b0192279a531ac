"""Part `abi`: compile-time pins of the ABI (issue 8 item 10; docs/abi.md).

- generated/tests/abi_ddi_layout.c: every DDI struct of spec/ddi.yaml, its size and every field's offset, as this
  part computes them on its own from the LP64 sizes of spec/types.yaml (pointers, handles and function pointers 8
  bytes, enums 4) and the C layout rules (each member at the next multiple of its alignment, a union's members all
  at its offset, the size rounded up to the largest alignment) — asserted against the compiler's view of the
  generated d3d12ddi.h, so the header's layout really is the one the spec describes.
- generated/tests/abi_values.c: every value of the capability enums of spec/enums.yaml that the installed
  DirectX-Headers also declare, asserted equal to the header's enumerator.

The values the specs themselves fix (feature 32, table type 47, ...) and the vtable slots are pinned by hand in
tests/abi/test_abi.c, outside spec/, so that no spec edit can move them.
"""
import re
from dataclasses import dataclass
from pathlib import Path

import loader

NAME = "abi"
FILES = ("ddi.yaml", "types.yaml", "enums.yaml")
OUTPUTS = (
    ("abi_ddi_layout.c.j2", "generated/tests/abi_ddi_layout.c", "c"),
    ("abi_values.c.j2", "generated/tests/abi_values.c", "c"),
)

POINTER = (8, 8)      # LP64
ENUM = (4, 4)         # every C enum here is an int
TYPE_RE = re.compile(r"^(const\s+)?([A-Za-z_][A-Za-z0-9_]*)((\s*\*(\s*const)?)*)$")


class AbiError(Exception):
    pass


@dataclass
class Offset:
    field: str
    offset: int


@dataclass
class StructLayout:
    name: str
    size: int
    align: int
    offsets: list  # [Offset], union members included


def _round_up(value, align):
    return (value + align - 1) // align * align


class DdiLayout:
    """Sizes and alignments of the DDI's types, from spec/types.yaml and the DDI's own declarations."""

    def __init__(self, ddi, scalars, parameter_enums):
        self.decls = {d.name: d for d in ddi.declarations}
        self.scalars, self.enums = scalars, set(parameter_enums)
        self.cache = {}

    def of(self, text):
        match = TYPE_RE.match(" ".join(text.split()))
        if not match:
            raise AbiError(f"cannot lay out C type '{text}'")
        if match.group(3).strip():
            return POINTER
        name = match.group(2)
        if name in self.scalars:
            return self.scalars[name]
        if name in self.enums:
            return ENUM
        decl = self.decls.get(name)
        if decl is None:
            raise AbiError(f"no size for '{name}': add it to spec/types.yaml (scalars or parameter_enums)")
        if decl.kind == "handle" or decl.kind in ("function", "callback"):
            return POINTER  # a handle is a struct of one pointer; PFN typedefs are pointers
        if decl.kind == "enum":
            return ENUM
        if decl.kind == "struct":
            layout = self.struct(name)
            return layout.size, layout.align
        raise AbiError(f"'{name}' ({decl.kind}) has no layout")

    def struct(self, name):
        if name in self.cache:
            return self.cache[name]
        decl = self.decls[name]
        offset, align, offsets = 0, 1, []
        for member in decl.fields:
            group = member if isinstance(member, list) else [member]  # a list is an anonymous union
            sizes = [self.of(m.c_type) for m in group]
            member_align = max(a for _, a in sizes)
            member_size = _round_up(max(s for s, _ in sizes), member_align)
            offset = _round_up(offset, member_align)
            offsets.extend(Offset(m.name, offset) for m in group)
            offset += member_size
            align = max(align, member_align)
        layout = StructLayout(name, _round_up(offset, align), align, offsets)
        self.cache[name] = layout
        return layout

    def structs(self):
        return [self.struct(d.name) for d in self.decls.values() if d.kind == "struct"]


def header_values(model, installed):
    """(name, number) for every value of the spec's capability enums that the installed headers declare: the entry
    present at the headers' retail SDK version when the name has several (removed or renumbered values)."""
    version = installed.sdk_version
    values = []
    for enum in model.enum_list():
        declared = installed.enums.get(enum.name, {})
        for value in enum.values:
            if value.name not in declared:
                continue
            presence = value.presence["retail"]
            if presence.first is None or presence.first > version or (presence.stop is not None and version >= presence.stop):
                continue
            values.append((value.name, value.value))
    return values


def load(spec_dir, spec_display, context):
    """Needs the caps part's model and the ddi part's model; adds `abi` to the context."""
    types = loader.load(Path(spec_dir) / "types.yaml", f"{spec_display}/types.yaml")
    scalars = {name: (s["size"], s.get("align", s["size"])) for name, s in types["scalars"].items()}
    layout = DdiLayout(context["ddi"], scalars, types["parameter_enums"])
    try:
        structs = layout.structs()
    except AbiError as error:
        raise SystemExit(f"{spec_display}/ddi.yaml: {error}")
    context.update(abi={"structs": structs, "values": header_values(context["model"], context["headers"])})
