"""Part `abi`: compile-time pins of the ABI (issue 8 item 10; docs/abi.md).

- The DDI layout is pinned by a hand-maintained snapshot, tests/abi/ddi_layout.txt (`STRUCT size align` and
  `STRUCT.field offset` lines), which the generator reads but never writes. This part computes every DDI struct's
  size, alignment and field offsets on its own from spec/ddi.yaml, the LP64 sizes of spec/types.yaml (pointers,
  handles and function pointers 8 bytes, enums 4) and the C layout rules (each member at the next multiple of its
  alignment, a union's members all at its offset, the size rounded up to the largest alignment), and refuses to
  generate (`spec/ddi.yaml:LINE: ...`) when that disagrees with the snapshot: an edit to spec/ cannot move the ABI
  unless the author also edits the snapshot, on purpose.
- generated/tests/abi_ddi_layout.c: the snapshot's numbers, asserted against the compiler's view of the generated
  d3d12ddi.h, so the header really has the pinned layout (a template or type-size change the arithmetic above does
  not model still breaks the build of tests/abi).
- generated/tests/abi_values.c: every value of the capability enums of spec/enums.yaml that the installed
  DirectX-Headers also declare, asserted equal to the header's enumerator.

The values the specs themselves fix (feature 32, table type 47, ...) and the vtable slots are pinned by hand in
tests/abi/test_abi.c, outside spec/, so that no spec edit can move them.
"""
import re
from dataclasses import dataclass
from pathlib import Path

import loader
from loader import SpecError

NAME = "abi"
FILES = ("ddi.yaml", "types.yaml", "enums.yaml")
ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT_DISPLAY = "tests/abi/ddi_layout.txt"
SNAPSHOT = ROOT / SNAPSHOT_DISPLAY
INPUTS = (SNAPSHOT,)  # read besides the spec files (gen.py --list-inputs, so CMake regenerates when it changes)
UPDATE_HINT = (f"if this ABI change is intended, update {SNAPSHOT_DISPLAY} by hand in the same commit "
               "(docs/abi.md)")
OUTPUTS = (
    ("abi_ddi_layout.c.j2", "generated/tests/abi_ddi_layout.c", "c"),
    ("abi_values.c.j2", "generated/tests/abi_values.c", "c"),
)

POINTER = (8, 8)      # LP64
ENUM = (4, 4)         # every C enum here is an int
TYPE_RE = re.compile(r"^(const\s+)?([A-Za-z_][A-Za-z0-9_]*)((\s*\*(\s*const)?)*)$")
SNAPSHOT_STRUCT_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) ([0-9]+) ([0-9]+)$")
SNAPSHOT_FIELD_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) ([0-9]+)$")


class AbiError(Exception):
    pass


@dataclass
class Offset:
    field: str
    offset: int
    line: int = 0  # in the snapshot: the line of `STRUCT.field offset`


@dataclass
class StructLayout:
    name: str
    size: int
    align: int
    offsets: list  # [Offset], union members included
    line: int = 0  # in the snapshot: the line of `STRUCT size align`


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


def read_snapshot(path=SNAPSHOT, display=SNAPSHOT_DISPLAY):
    """{struct name: StructLayout} of the snapshot, in file order; each Offset also carries its `line`."""
    structs = {}
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise SpecError(display, 0, "(file)", f"cannot read the ABI snapshot: {error.strerror}")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        struct, field = SNAPSHOT_STRUCT_RE.match(line), SNAPSHOT_FIELD_RE.match(line)
        if struct:
            name = struct.group(1)
            if name in structs:
                raise SpecError(display, number, name, f"struct pinned twice (also line {structs[name].line})")
            structs[name] = StructLayout(name, int(struct.group(2)), int(struct.group(3)), [], number)
        elif field:
            name, member = field.group(1), field.group(2)
            if name not in structs:
                raise SpecError(display, number, f"{name}.{member}", f"field before its struct's `{name} size align` line")
            if any(o.field == member for o in structs[name].offsets):
                raise SpecError(display, number, f"{name}.{member}", "field pinned twice")
            structs[name].offsets.append(Offset(member, int(field.group(3)), number))
        else:
            raise SpecError(display, number, "(line)", "expected `STRUCT size align` or `STRUCT.field offset`")
    return structs


def check_against_snapshot(computed, decls, pinned):
    """Raise a SpecError at the spec's line for the first struct or field whose computed layout is not the pinned
    one (and at the snapshot's line for a pinned struct the spec no longer declares)."""
    for layout in computed:
        decl = decls[layout.name]
        file, line, path = decl.where
        snap = pinned.get(layout.name)
        if snap is None:
            raise SpecError(file, line, path, f"DDI struct {layout.name} is not in the ABI snapshot "
                                              f"{SNAPSHOT_DISPLAY}; {UPDATE_HINT}")
        snap_offsets = {o.field: o.offset for o in snap.offsets}
        members = {m.name: m for item in decl.fields for m in (item if isinstance(item, list) else [item])}
        for offset in layout.offsets:
            m_file, m_line, m_path = members[offset.field].where
            where = f"{layout.name}.{offset.field}"
            if offset.field not in snap_offsets:
                raise SpecError(m_file, m_line, m_path, f"field {where} is not in the ABI snapshot "
                                                        f"{SNAPSHOT_DISPLAY}; {UPDATE_HINT}")
            if offset.offset != snap_offsets[offset.field]:
                raise SpecError(m_file, m_line, m_path,
                                f"{where} is at offset {offset.offset}, but {SNAPSHOT_DISPLAY} pins it at "
                                f"{snap_offsets[offset.field]}; {UPDATE_HINT}")
        gone = [o.field for o in snap.offsets if o.field not in members]
        if gone:
            raise SpecError(file, line, path, f"{SNAPSHOT_DISPLAY} pins field {layout.name}.{gone[0]}, which the "
                                              f"struct no longer has; {UPDATE_HINT}")
        if (layout.size, layout.align) != (snap.size, snap.align):
            raise SpecError(file, line, path,
                            f"{layout.name} has size {layout.size} and alignment {layout.align}, but "
                            f"{SNAPSHOT_DISPLAY} pins size {snap.size} and alignment {snap.align}; {UPDATE_HINT}")
    names = {layout.name for layout in computed}
    for snap in pinned.values():
        if snap.name not in names:
            raise SpecError(SNAPSHOT_DISPLAY, snap.line, snap.name,
                            "pinned struct that spec/ddi.yaml no longer declares; if this ABI change is intended, "
                            "delete its lines here by hand in the same commit (docs/abi.md)")


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
    pinned = read_snapshot()
    check_against_snapshot(structs, layout.decls, pinned)
    # The C assertions hold the header to the snapshot's numbers (equal to the computed ones once the check passed,
    # but the snapshot is what pins: the generated file changes only when it does).
    context.update(abi={"structs": list(pinned.values()),
                        "values": header_values(context["model"], context["headers"])})
