"""Root signatures in .asm files (the RTS0 chunk a shader may embed; docs/shaders.md).

Directives, before the shader version, one a line:
    .root_signature 1.0|1.1 [flags=N]
    .root_cbv b0 | .root_srv t0 | .root_uav u0   [space=N] [visibility=V] [flags=N (1.1)]
    .root_constants b0 count=N [space=N] [visibility=V]
    .root_table [visibility=V]: RANGE; RANGE; ...   RANGE = cbv|srv|uav|sampler REG [count=N|unbounded]
                                                     [space=N] [offset=N|append] [flags=N (1.1)]
V is all, vertex, hull, domain, geometry, pixel or amplification/mesh; the serialized layout is the one
D3D12SerializeVersionedRootSignature writes (runtime/rootsig/ writes it too, and its test compares both with
vkd3d-shader's serializer).
"""
import re
import struct
from dataclasses import dataclass, field

VISIBILITY = {"all": 0, "vertex": 1, "hull": 2, "domain": 3, "geometry": 4, "pixel": 5, "amplification": 6,
              "mesh": 7}
# D3D12_ROOT_PARAMETER_TYPE and D3D12_DESCRIPTOR_RANGE_TYPE.
TABLE, CONSTANTS, CBV, SRV, UAV = 0, 1, 2, 3, 4
ROOT_VIEWS = {".root_cbv": (CBV, "b"), ".root_srv": (SRV, "t"), ".root_uav": (UAV, "u")}
RANGES = {"srv": (0, "t"), "uav": (1, "u"), "cbv": (2, "b"), "sampler": (3, "s")}
APPEND = 0xFFFFFFFF


@dataclass
class Parameter:
    kind: int
    visibility: int = 0
    register: int = 0
    space: int = 0
    count: int = 0   # constants: 32-bit values
    flags: int = 0
    ranges: list = field(default_factory=list)  # (type, count, base, space, flags, offset)


@dataclass
class RootSignature:
    version: int  # 1: 1.0, 2: 1.1 (D3D_ROOT_SIGNATURE_VERSION)
    flags: int
    parameters: list = field(default_factory=list)


def _options(words, allowed, fail):
    result = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or key not in allowed:
            fail(f"'{word}': expected one of {', '.join(k + '=' for k in allowed)}")
        if key in result:
            fail(f"'{key}=' given twice")
        result[key] = value
    return result


def _uint(text, what, fail):
    if not re.match(r"^(0x[0-9a-fA-F]+|\d+)$", text) or int(text, 0) > 0xFFFFFFFF:
        fail(f"{what}: '{text}' is not a 32-bit unsigned integer")
    return int(text, 0)


def _register(text, letter, fail):
    m = re.match(r"^" + letter + r"(\d+)$", text or "")
    if not m:
        fail(f"'{text}': expected {letter}<register>")
    return int(m.group(1))


def _visibility(options, fail):
    name = options.get("visibility", "all")
    if name not in VISIBILITY:
        fail(f"visibility '{name}' is one of {', '.join(VISIBILITY)}")
    return VISIBILITY[name]


def _flags(options, rs, fail):
    if "flags" in options and rs.version < 2:
        fail("flags on parameters and ranges are root signature 1.1")
    return _uint(options.get("flags", "0"), "flags", fail)


def _range(text, rs, fail):
    words = text.split()
    if not words or words[0] not in RANGES:
        fail(f"range '{text}': starts with cbv, srv, uav or sampler")
    kind, letter = RANGES[words[0]]
    base = _register(words[1] if len(words) > 1 else "", letter, fail)
    options = _options(words[2:], ("count", "space", "offset", "flags"), fail)
    count = options.get("count", "1")
    count = 0xFFFFFFFF if count == "unbounded" else _uint(count, "count", fail)
    offset = options.get("offset", "append")
    offset = APPEND if offset == "append" else _uint(offset, "offset", fail)
    return (kind, count, base, _uint(options.get("space", "0"), "space", fail), _flags(options, rs, fail), offset)


def directive(rs, line, fail):
    """Apply one directive line to `rs` (None before .root_signature); returns the root signature."""
    head = re.match(r"^\.\w*", line).group(0)
    rest = line[len(head):].strip()
    if head == ".root_signature":
        if rs is not None:
            fail(".root_signature given twice")
        words = rest.split()
        if not words or words[0] not in ("1.0", "1.1"):
            fail(".root_signature: version 1.0 or 1.1 expected")
        options = _options(words[1:], ("flags",), fail)
        return RootSignature(1 if words[0] == "1.0" else 2, _uint(options.get("flags", "0"), "flags", fail))
    if rs is None:
        fail(f"{head}: .root_signature must come first")
    if head in ROOT_VIEWS:
        kind, letter = ROOT_VIEWS[head]
        words = rest.split()
        options = _options(words[1:], ("space", "visibility", "flags"), fail)
        rs.parameters.append(Parameter(kind, _visibility(options, fail), _register(words[0] if words else "",
                                       letter, fail), _uint(options.get("space", "0"), "space", fail),
                                       flags=_flags(options, rs, fail)))
    elif head == ".root_constants":
        words = rest.split()
        options = _options(words[1:], ("count", "space", "visibility"), fail)
        if "count" not in options:
            fail(".root_constants needs count=N")
        rs.parameters.append(Parameter(CONSTANTS, _visibility(options, fail),
                                       _register(words[0] if words else "", "b", fail),
                                       _uint(options.get("space", "0"), "space", fail),
                                       _uint(options["count"], "count", fail)))
    elif head == ".root_table":
        options_text, colon, ranges = rest.partition(":")
        if not colon or not ranges.strip():
            fail(".root_table [visibility=V]: RANGE; RANGE; ... expected")
        options = _options(options_text.split(), ("visibility",), fail)
        parameter = Parameter(TABLE, _visibility(options, fail))
        parameter.ranges = [_range(r.strip(), rs, fail) for r in ranges.split(";")]
        rs.parameters.append(parameter)
    else:
        fail(f"unknown directive '{head}'")
    return rs


def serialize(rs):
    """The RTS0 chunk: a 24-byte header (version, parameter count and offset, static sampler count and offset,
    flags), the parameter headers (type, visibility, payload offset), each parameter's payload in order (a table:
    its range count and offset, then the ranges), then the static samplers (none from .asm)."""
    words_1_1 = rs.version >= 2
    out = bytearray(struct.pack("<6I", rs.version, len(rs.parameters), 24, 0, 0, rs.flags))
    headers_at = len(out)
    out += bytes(12 * len(rs.parameters))
    for index, p in enumerate(rs.parameters):
        struct.pack_into("<3I", out, headers_at + 12 * index, p.kind, p.visibility, len(out))
        if p.kind == TABLE:
            out += struct.pack("<2I", len(p.ranges), len(out) + 8)
            for kind, count, base, space, flags, offset in p.ranges:
                out += struct.pack("<6I", kind, count, base, space, flags, offset) if words_1_1 else \
                    struct.pack("<5I", kind, count, base, space, offset)
        elif p.kind == CONSTANTS:
            out += struct.pack("<3I", p.register, p.space, p.count)
        else:
            out += struct.pack("<3I" if words_1_1 else "<2I", p.register, p.space, *([p.flags] if words_1_1 else []))
    struct.pack_into("<I", out, 16, len(out))
    return bytes(out)
