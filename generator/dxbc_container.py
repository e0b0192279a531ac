"""The DXBC container (docs/shaders.md): header, chunk table, chunks, and its checksum.

Layout: `DXBC`, a 16-byte checksum, version 1, total size, chunk count, one offset per chunk; each chunk is a
4-byte tag, its size and its data (sizes kept multiples of 4 here). The checksum is MD5's compression function run
over the bytes from offset 20 (everything after the checksum) with DXBC's own last block instead of MD5's padding:
the bit count as the first word, the leftover bytes, 0x80, zeros, and `(bit count >> 2) | 1` as the last word
(when the leftover bytes leave no room, they go in a block of their own padded as MD5 pads, and the two words
follow in one more block). The runtime's C reader (runtime/dxbc/) computes the same thing; vkd3d-shader 1.2
refuses a container whose checksum differs, which tests/shaders checks for every generated blob.
"""
import math
import struct

_SHIFTS = (7, 12, 17, 22) * 4 + (5, 9, 14, 20) * 4 + (4, 11, 16, 23) * 4 + (6, 10, 15, 21) * 4
_SINES = [int(abs(math.sin(i + 1)) * 2 ** 32) & 0xFFFFFFFF for i in range(64)]
_MASK = 0xFFFFFFFF


def _rotl(value, count):
    return ((value << count) | (value >> (32 - count))) & _MASK


def _compress(state, block):
    """One MD5 compression of a 64-byte block (RFC 1321, section 3.4)."""
    words = struct.unpack("<16I", block)
    a, b, c, d = state
    for i in range(64):
        if i < 16:
            f, g = (b & c) | (~b & d), i
        elif i < 32:
            f, g = (d & b) | (~d & c), (5 * i + 1) % 16
        elif i < 48:
            f, g = b ^ c ^ d, (3 * i + 5) % 16
        else:
            f, g = c ^ (b | ~d & _MASK), (7 * i) % 16
        f = (f + a + _SINES[i] + words[g]) & _MASK
        a, d, c = d, c, b
        b = (b + _rotl(f, _SHIFTS[i])) & _MASK
    return [(x + y) & _MASK for x, y in zip(state, (a, b, c, d))]


def checksum(container):
    """The 16 checksum bytes of a container (its first 20 bytes are skipped)."""
    data = bytes(container[20:])
    state = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476]
    whole = len(data) - len(data) % 64
    for at in range(0, whole, 64):
        state = _compress(state, data[at:at + 64])
    rest, bits = data[whole:], (len(data) * 8) & _MASK
    if len(rest) < 56:
        last = struct.pack("<I", bits) + rest + b"\x80"
        last += bytes(60 - len(last)) + struct.pack("<I", (bits >> 2) | 1)
        state = _compress(state, last)
    else:
        block = rest + b"\x80"
        state = _compress(state, block + bytes(64 - len(block)))
        state = _compress(state, struct.pack("<I", bits) + bytes(56) + struct.pack("<I", (bits >> 2) | 1))
    return struct.pack("<4I", *state)


def container(chunks):
    """A DXBC container of [(tag, data), ...] with its checksum."""
    header_size = 32 + 4 * len(chunks)
    offsets, body, at = [], b"", header_size
    for tag, data in chunks:
        data = bytes(data) + bytes(-len(data) % 4)
        offsets.append(at)
        body += tag.encode("ascii") + struct.pack("<I", len(data)) + data
        at += 8 + len(data)
    head = struct.pack("<I", 1) + struct.pack("<I", at) + struct.pack("<I", len(chunks))
    head += struct.pack(f"<{len(chunks)}I", *offsets)
    blob = b"DXBC" + bytes(16) + head + body
    return blob[:4] + checksum(blob) + blob[20:]


def empty_signature():
    """An ISGN/OSGN chunk without elements: count 0, elements at offset 8."""
    return struct.pack("<2I", 0, 8)
