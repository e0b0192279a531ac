"""The shader-model 5.0/5.1 assembler: `spec/shaders/*.asm` text -> SHEX tokens (docs/shaders.md).

The token format is the "tokenized program format" (Microsoft's d3d11TokenizedProgramFormat.hpp): a version
token, a length token, then instructions. An instruction is an opcode token (type in bits 0-10, opcode-specific
controls in bits 11-23, length in DWORDs in bits 24-30) followed by operands; an operand is a token (component
count in bits 0-1, selection mode in bits 2-3, mask/swizzle/select in bits 4-11, register type in bits 12-19,
index dimension in bits 20-21, one index representation per dimension from bit 22, bit 31: an extended operand
token follows) followed by its immediate indices or values. Only what the project's shaders need is accepted; every
other input is an error `file:line: what is wrong`.
"""
import re
import struct

from loader import SpecError


class AsmError(SpecError):
    """`file:line: what is wrong` (no key path: an .asm file has none)."""

    def __init__(self, file, line, message):
        Exception.__init__(self, f"{file}:{line}: {message}")
        self.file, self.line, self.path, self.message = file, line, "", message


# ---- Tables (values from the token format; the C reader, runtime/dxbc/, holds the ones it decodes) ----

PROGRAM_TYPES = {"ps": 0, "vs": 1, "gs": 2, "hs": 3, "ds": 4, "cs": 5}

# Operand register types.
TEMP, IMM32, RESOURCE, CBUFFER, NULL, UAV, TGSM = 0, 4, 7, 8, 13, 30, 31
THREAD_REGS = {"vThreadID": (32, 4), "vThreadGroupID": (33, 4), "vThreadIDInGroup": (34, 4),
               "vThreadIDInGroupFlattened": (36, 1)}

# Instructions: mnemonic -> (opcode, operand kinds: d destination, s source; flags: 'sat' takes _sat,
# 'test' takes _z/_nz (bit 18 = nonzero)).
INSTRUCTIONS = {
    "add": (0, "dss", "sat"), "and": (1, "dss", ""), "break": (2, "", ""), "breakc": (3, "s", "test"),
    "continue": (7, "", ""), "continuec": (8, "s", "test"), "div": (14, "dss", "sat"),
    "dp2": (15, "dss", "sat"), "dp3": (16, "dss", "sat"), "dp4": (17, "dss", "sat"), "else": (18, "", ""),
    "endif": (21, "", ""), "endloop": (22, "", ""), "eq": (24, "dss", ""), "exp": (25, "ds", "sat"),
    "frc": (26, "ds", "sat"), "ftoi": (27, "ds", ""), "ftou": (28, "ds", ""), "ge": (29, "dss", ""),
    "iadd": (30, "dss", ""), "if": (31, "s", "test"), "ieq": (32, "dss", ""), "ige": (33, "dss", ""),
    "ilt": (34, "dss", ""), "imad": (35, "dsss", ""), "imax": (36, "dss", ""), "imin": (37, "dss", ""),
    "imul": (38, "ddss", ""), "ine": (39, "dss", ""), "ineg": (40, "ds", ""), "ishl": (41, "dss", ""),
    "ishr": (42, "dss", ""), "itof": (43, "ds", ""), "ld": (45, "dss", ""), "log": (47, "ds", "sat"),
    "loop": (48, "", ""), "lt": (49, "dss", ""), "mad": (50, "dsss", "sat"), "min": (51, "dss", "sat"),
    "max": (52, "dss", "sat"), "mov": (54, "ds", "sat"), "movc": (55, "dsss", "sat"), "mul": (56, "dss", "sat"),
    "ne": (57, "dss", ""), "nop": (58, "", ""), "not": (59, "ds", ""), "or": (60, "dss", ""),
    "ret": (62, "", ""), "retc": (63, "s", "test"), "round_ne": (64, "ds", "sat"), "round_ni": (65, "ds", "sat"),
    "round_pi": (66, "ds", "sat"), "round_z": (67, "ds", "sat"), "rsq": (68, "ds", "sat"),
    "sqrt": (75, "ds", "sat"), "udiv": (78, "ddss", ""), "ult": (79, "dss", ""), "uge": (80, "dss", ""),
    "umul": (81, "ddss", ""), "umad": (82, "dsss", ""), "umax": (83, "dss", ""), "umin": (84, "dss", ""),
    "ushr": (85, "dss", ""), "utof": (86, "ds", ""), "xor": (87, "dss", ""), "bufinfo": (121, "ds", ""),
    "rcp": (129, "ds", "sat"), "countbits": (134, "ds", ""), "firstbit_hi": (135, "ds", ""),
    "firstbit_lo": (136, "ds", ""), "firstbit_shi": (137, "ds", ""), "ubfe": (138, "dsss", ""),
    "ibfe": (139, "dsss", ""), "bfi": (140, "dssss", ""), "bfrev": (141, "ds", ""),
    "ld_uav_typed": (163, "dss", ""), "store_uav_typed": (164, "dss", ""), "ld_raw": (165, "dss", ""),
    "store_raw": (166, "dss", ""), "ld_structured": (167, "dsss", ""), "store_structured": (168, "dsss", ""),
    "atomic_and": (169, "dss", ""), "atomic_or": (170, "dss", ""), "atomic_xor": (171, "dss", ""),
    "atomic_cmp_store": (172, "dsss", ""), "atomic_iadd": (173, "dss", ""), "atomic_imax": (174, "dss", ""),
    "atomic_imin": (175, "dss", ""), "atomic_umax": (176, "dss", ""), "atomic_umin": (177, "dss", ""),
    "imm_atomic_alloc": (178, "dd", ""), "imm_atomic_consume": (179, "dd", ""),
    "imm_atomic_iadd": (180, "ddss", ""), "imm_atomic_and": (181, "ddss", ""), "imm_atomic_or": (182, "ddss", ""),
    "imm_atomic_xor": (183, "ddss", ""), "imm_atomic_exch": (184, "ddss", ""),
    "imm_atomic_cmp_exch": (185, "ddsss", ""), "imm_atomic_imax": (186, "ddss", ""),
    "imm_atomic_imin": (187, "ddss", ""), "imm_atomic_umax": (188, "ddss", ""),
    "imm_atomic_umin": (189, "ddss", ""),
}
SYNC = 190
SYNC_FLAGS = {"t": 1, "g": 2, "ugroup": 4, "uglobal": 8}
OPENS = {"if": "endif", "loop": "endloop"}

# Declarations.
DCL_RESOURCE, DCL_CONSTANT_BUFFER, DCL_INPUT, DCL_TEMPS, DCL_GLOBAL_FLAGS = 88, 89, 95, 104, 106
DCL_THREAD_GROUP, DCL_UAV_TYPED, DCL_UAV_RAW, DCL_UAV_STRUCTURED = 155, 156, 157, 158
DCL_TGSM_RAW, DCL_TGSM_STRUCTURED, DCL_RESOURCE_RAW, DCL_RESOURCE_STRUCTURED = 159, 160, 161, 162
GLOBAL_FLAGS = {"refactoringAllowed": 1 << 11, "enableDoublePrecisionFloatOps": 1 << 12,
                "forceEarlyDepthStencil": 1 << 13, "enableRawAndStructuredBuffers": 1 << 14,
                "skipOptimization": 1 << 15, "enableMinimumPrecision": 1 << 16,
                "enable11_1DoubleExtensions": 1 << 17, "enable11_1ShaderExtensions": 1 << 18}
RETURN_TYPES = {"unorm": 1, "snorm": 2, "sint": 3, "uint": 4, "float": 5}
DIMENSION_BUFFER = 1 << 11
GLOBALLY_COHERENT = 1 << 16
ORDER_PRESERVING_COUNTER = 1 << 23
DYNAMIC_INDEXED = 1 << 11
UNBOUNDED = 0xFFFFFFFF

COMPONENTS = "xyzw"
NUMBER = re.compile(r"^[-+]?(0x[0-9a-fA-F]+|\d+(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$")


def opcode_token(opcode, length, controls=0):
    if length > 127:
        raise ValueError(f"instruction of {length} DWORDs (the format allows 127)")
    return opcode | controls | (length << 24)


def operand_token(reg_type, components, indices, mode=None, selector=0):
    """components: 0, 1 or 4; mode for 4: 'mask' (selector = mask bits), 'swizzle' (4 indices), 'select'
    (one index); indices: the immediate index values (their count is the index dimension)."""
    token = {0: 0, 1: 1, 4: 2}[components] | (reg_type << 12) | (len(indices) << 20)
    if components == 4:
        if mode == "mask":
            token |= selector << 4
        elif mode == "swizzle":
            token |= (1 << 2) | sum(c << (4 + 2 * i) for i, c in enumerate(selector))
        else:
            token |= (2 << 2) | (selector << 4)
    return token


def _split_top(text):
    """Split at commas outside (), [] and ||."""
    parts, depth, bars, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|":
            bars = not bars
        elif ch == "," and depth == 0 and not bars:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [] if parts == [""] else parts


def _number(text):
    """An immediate value as a 32-bit word: an integer (decimal or 0x hex, two's complement if negative) or a
    float (it has a point or an exponent)."""
    if not NUMBER.match(text):
        return None
    if "x" in text.lower() or re.match(r"^[-+]?\d+$", text):
        value = int(text, 0)
        if not -0x80000000 <= value <= 0xFFFFFFFF:
            return None
        return value & 0xFFFFFFFF
    return struct.unpack("<I", struct.pack("<f", float(text)))[0]


class Shader:
    """One assembled shader: its name, description (the header comment), version and chunks."""

    def __init__(self, name, description, program, major, minor, tokens, rts0):
        self.name, self.description = name, description
        self.program, self.major, self.minor = program, major, minor
        self.tokens, self.rts0 = tokens, rts0

    @property
    def profile(self):
        return f"cs_{self.major}_{self.minor}"

    def shex(self):
        return struct.pack(f"<{len(self.tokens)}I", *self.tokens)


class Assembler:
    def __init__(self, file):
        self.file = file
        self.line = 0
        self.version = None
        self.tokens = []
        self.temps = 0
        self.declared = {}   # (register letter, id) -> line
        self.blocks = []     # open if/loop: (mnemonic, line)
        self.rootsig = None  # rootsig.RootSignature under construction
        self.has_ret = False

    def error(self, message):
        raise AsmError(self.file, self.line, message)

    @property
    def sm51(self):
        return self.version == (5, 1)

    # ---- operands ----

    def _components(self, text, what):
        if not text or any(c not in COMPONENTS for c in text) or len(text) > 4:
            self.error(f"{what}: bad component selection '.{text}' (letters of xyzw)")
        return [COMPONENTS.index(c) for c in text]

    def _check_declared(self, letter, ident):
        if (letter, ident) not in self.declared:
            self.error(f"{letter}{ident} is used but not declared")

    def _register(self, text):
        """(type, components, indices) of a register name without modifiers or selection."""
        m = re.match(r"^r(\d+)$", text)
        if m:
            index = int(m.group(1))
            if index >= self.temps:
                self.error(f"r{index} is past dcl_temps {self.temps}")
            return TEMP, 4, [index]
        if text in THREAD_REGS:
            self._check_declared("v", text)
            reg, comps = THREAD_REGS[text]
            return reg, comps, []
        if text == "null":
            return NULL, 0, []
        m = re.match(r"^(cb|t|u|g)(\d+)(?:\[(\d+)\])?$", text)
        if m:
            letter, ident, index = m.group(1), int(m.group(2)), m.group(3)
            if self.sm51 and letter != "g":
                self.error(f"{text}: shader model 5.1 names {letter}{ident} as {letter.upper()}{ident}[register]"
                           f"{'[index]' if letter == 'cb' else ''}")
            if (letter == "cb") != (index is not None):
                self.error(f"{text}: " + ("a constant buffer takes an index: cb<n>[i]" if letter == "cb"
                                          else f"{letter}<n> takes no index"))
            self._check_declared(letter, ident)
            reg = {"cb": CBUFFER, "t": RESOURCE, "u": UAV, "g": TGSM}[letter]
            return reg, 4, [ident] + ([int(index)] if index is not None else [])
        m = re.match(r"^(CB|T|U)(\d+)\[(\d+)\](?:\[(\d+)\])?$", text)
        if m:
            letter, ident = m.group(1).lower(), int(m.group(2))
            if not self.sm51:
                self.error(f"{text}: {m.group(1)}<id>[register] is shader model 5.1 syntax; 5.0 names it "
                           f"{letter}{ident}")
            if (letter == "cb") != (m.group(4) is not None):
                self.error(f"{text}: " + ("CB<id>[register][index]" if letter == "cb"
                                          else f"{m.group(1)}<id>[register]") + " expected")
            self._check_declared(letter, ident)
            lo, hi = self.declared[(letter, ident)][1]
            register = int(m.group(3))
            if not lo <= register <= hi:
                self.error(f"{text}: register {register} is outside {m.group(1)}{ident}'s declared range "
                           f"[{lo}:{'*' if hi == UNBOUNDED else hi}]")
            reg = {"cb": CBUFFER, "t": RESOURCE, "u": UAV}[letter]
            extra = [int(m.group(4))] if m.group(4) is not None else []
            return reg, 4, [ident, register] + extra
        if re.search(r"\[[^\]]*[^\d\]][^\]]*\]", text):
            self.error(f"{text}: relative addressing is not supported (immediate indices only)")
        self.error(f"unknown register '{text}'")

    def _immediate(self, text):
        values = _split_top(text[2:-1])
        if len(values) not in (1, 4):
            self.error(f"{text}: l() takes 1 or 4 values, not {len(values)}")
        words = []
        for value in values:
            word = _number(value)
            if word is None:
                self.error(f"{text}: '{value}' is not a 32-bit integer or a float")
            words.append(word)
        if len(words) == 1:
            return [operand_token(IMM32, 1, [])] + words
        return [operand_token(IMM32, 4, [], "mask", 0)] + words

    def operand(self, text, kind):
        """Tokens of one operand; kind 'd' (destination: write mask) or 's' (source: swizzle)."""
        if kind == "s" and text.startswith("l(") and text.endswith(")"):
            return self._immediate(text)
        modifier, body = 0, text
        if kind == "s" and body.startswith("-"):
            modifier, body = 1, body[1:]
        if kind == "s" and len(body) > 2 and body.startswith("|") and "|" in body[1:]:
            close = body.index("|", 1)
            body = body[1:close] + body[close + 1:]
            modifier |= 2
        if body.startswith("l("):
            self.error(f"{text}: an immediate cannot be a destination" if kind == "d"
                       else f"{text}: modifiers on an immediate are not supported")
        name, _, selection = body.partition(".")
        if "." in selection:
            self.error(f"{text}: more than one component selection")
        reg, comps, indices = self._register(name)
        if comps == 4:
            if kind == "d":
                picked = self._components(selection, text) if selection else [0, 1, 2, 3]
                if picked != sorted(set(picked)):
                    self.error(f"{text}: a write mask names components once, in xyzw order")
                token = operand_token(reg, 4, indices, "mask", sum(1 << c for c in picked))
            elif len(selection) == 1:
                token = operand_token(reg, 4, indices, "select", self._components(selection, text)[0])
            else:
                picked = self._components(selection, text) if selection else [0, 1, 2, 3]
                token = operand_token(reg, 4, indices, "swizzle", picked + [picked[-1]] * (4 - len(picked)))
        else:
            if selection:
                self.error(f"{text}: {name} has {comps} component(s): no component selection")
            token = operand_token(reg, comps, indices)
        tokens = [token]
        if modifier:
            tokens[0] |= 1 << 31
            tokens.append(1 | (modifier << 6))
        return tokens + indices

    # ---- lines ----

    def emit(self, opcode, operands, controls=0):
        try:
            self.tokens += [opcode_token(opcode, 1 + len(operands), controls)] + operands
        except ValueError as error:
            self.error(str(error))

    def instruction(self, mnemonic, args):
        controls, base = 0, mnemonic
        if base.endswith("_sat"):
            base, controls = base[:-4], 1 << 13
        test = None
        for suffix, value in (("_nz", 1 << 18), ("_z", 0)):
            if base.endswith(suffix) and base[:-len(suffix)] in INSTRUCTIONS:
                base, test = base[:-len(suffix)], value
        if base not in INSTRUCTIONS:
            self.error(f"unknown instruction '{mnemonic}'")
        opcode, kinds, flags = INSTRUCTIONS[base]
        if controls and flags != "sat":
            self.error(f"{base} does not take _sat")
        if (test is None) != (flags != "test"):
            self.error(f"{base} needs _z or _nz" if test is None else f"{base} takes no _z/_nz")
        if len(args) != len(kinds):
            self.error(f"{base} takes {len(kinds)} operand(s), not {len(args)}")
        self.flow(base)
        self.has_ret |= base == "ret"
        operands = []
        for arg, kind in zip(args, kinds):
            operands += self.operand(arg, kind)
        self.emit(opcode, operands, controls | (test or 0))

    def flow(self, base):
        """if/else/endif and loop/endloop nest; break and continue stand in a loop."""
        if base in OPENS:
            self.blocks.append((base, self.line))
        elif base in ("endif", "endloop", "else"):
            want = "if" if base != "endloop" else "loop"
            if not self.blocks or self.blocks[-1][0] != want:
                self.error(f"{base} without an open {want}")
            if base != "else":
                self.blocks.pop()
        elif base in ("break", "breakc", "continue", "continuec"):
            if not any(b == "loop" for b, _ in self.blocks):
                self.error(f"{base} outside a loop")

    def sync(self, mnemonic):
        flags = 0
        for word in mnemonic.split("_")[1:]:
            if word not in SYNC_FLAGS or flags & SYNC_FLAGS[word]:
                self.error(f"{mnemonic}: bad or repeated sync flag '{word}' (t, g, ugroup, uglobal)")
            flags |= SYNC_FLAGS[word]
        if not flags or (flags & 12) == 12:
            self.error(f"{mnemonic}: sync needs a flag, and at most one of ugroup and uglobal")
        self.emit(SYNC, [], flags << 11)

    # ---- declarations ----

    def _int(self, text, what, low=0, high=0xFFFFFFFF):
        value = _number(text.strip()) if re.match(r"^(0x[0-9a-fA-F]+|\d+)$", text.strip()) else None
        if value is None or not low <= value <= high:
            self.error(f"{what}: '{text}' is not an integer in [{low}, {high}]")
        return value

    def _declare(self, letter, ident, bounds):
        if (letter, ident) in self.declared:
            self.error(f"{letter}{ident} is declared twice (first at line {self.declared[(letter, ident)][0]})")
        self.declared[(letter, ident)] = (self.line, bounds)

    def _space(self, args):
        """SM 5.1's trailing `space=N` (0 when absent); none in 5.0."""
        if args and args[-1].startswith("space="):
            if not self.sm51:
                self.error("register spaces are shader model 5.1 (cs_5_1)")
            return args[:-1], [self._int(args[-1][6:], "space")]
        return args, ([0] if self.sm51 else [])

    def _binding(self, text, letter, extra_index=False):
        """The operand of a resource declaration: 5.0 `t3` (1D), 5.1 `T0[lo:hi]` (3D: id, lower, upper);
        cb adds its size (5.0: `cb0[4]`, a second index; 5.1: `CB0[lo:hi][4]`, a separate DWORD).
        Returns (operand tokens, size or None)."""
        reg = {"cb": CBUFFER, "t": RESOURCE, "u": UAV}[letter]
        comps = 4 if letter == "cb" else 0
        mode = ("swizzle", [0, 1, 2, 3]) if comps else (None, 0)
        if self.sm51:
            m = re.match(r"^" + letter.upper() + r"(\d+)\[(\d+):(\d+|\*)\]" + (r"\[(\d+)\]$" if extra_index else "$"),
                         text)
            if not m:
                self.error(f"'{text}': shader model 5.1 declares {letter.upper()}<id>[lower:upper]"
                           + ("[size]" if extra_index else "") + " (upper may be *)")
            ident, lo = int(m.group(1)), int(m.group(2))
            hi = UNBOUNDED if m.group(3) == "*" else int(m.group(3))
            if hi < lo:
                self.error(f"'{text}': upper register {hi} below lower {lo}")
            self._declare(letter, ident, (lo, hi))
            size = int(m.group(4)) if extra_index else None
            return [operand_token(reg, comps, [ident, lo, hi], *mode), ident, lo, hi], size
        m = re.match(r"^" + letter + r"(\d+)" + (r"\[(\d+)\]$" if extra_index else "$"), text)
        if not m:
            self.error(f"'{text}': expected {letter}<register>" + ("[size]" if extra_index else ""))
        ident = int(m.group(1))
        self._declare(letter, ident, (ident, ident))
        if extra_index:
            size = int(m.group(2))
            return [operand_token(reg, comps, [ident, size], *mode), ident, size], size
        return [operand_token(reg, comps, [ident], *mode), ident], None

    def _return_type(self, text):
        m = re.match(r"^\((\w+),\s*(\w+),\s*(\w+),\s*(\w+)\)$", text)
        if not m or any(t not in RETURN_TYPES for t in m.groups()):
            self.error(f"'{text}': expected a return type (t,t,t,t) of {', '.join(RETURN_TYPES)}")
        return sum(RETURN_TYPES[t] << (4 * i) for i, t in enumerate(m.groups()))

    def _args(self, args, count, mnemonic):
        if len(args) != count:
            self.error(f"{mnemonic} takes {count} argument(s), not {len(args)}")
        return args

    def declaration(self, mnemonic, rest):
        args = _split_top(rest)
        if mnemonic == "dcl_globalFlags":
            flags = 0
            for name in (w.strip() for w in rest.split("|")):
                if name not in GLOBAL_FLAGS:
                    self.error(f"unknown global flag '{name}' ({', '.join(GLOBAL_FLAGS)})")
                flags |= GLOBAL_FLAGS[name]
            return self.emit(DCL_GLOBAL_FLAGS, [], flags)
        if mnemonic == "dcl_temps":
            self.temps = self._int(self._args(args, 1, mnemonic)[0], "dcl_temps", 0, 4096)
            return self.emit(DCL_TEMPS, [self.temps])
        if mnemonic == "dcl_thread_group":
            x, y, z = (self._int(a, "thread group size", 1, 1024) for a in self._args(args, 3, mnemonic))
            # D3D11_CS_THREAD_GROUP_MAX_Z 64, ..._MAX_THREADS_PER_GROUP 1024.
            if z > 64 or x * y * z > 1024:
                self.error(f"thread group {x}x{y}x{z}: z is at most 64 and x*y*z at most 1024")
            return self.emit(DCL_THREAD_GROUP, [x, y, z])
        if mnemonic == "dcl_input":
            name, _, selection = self._args(args, 1, mnemonic)[0].partition(".")
            if name not in THREAD_REGS:
                self.error(f"dcl_input: '{name}' is not a compute input ({', '.join(THREAD_REGS)})")
            reg, comps = THREAD_REGS[name]
            self._declare("v", name, None)
            if comps == 1:
                if selection:
                    self.error(f"{name} is a scalar: no component selection")
                return self.emit(DCL_INPUT, [operand_token(reg, 1, [])])
            picked = self._components(selection or "xyz", name)
            return self.emit(DCL_INPUT, [operand_token(reg, 4, [], "mask", sum(1 << c for c in picked))])
        if mnemonic == "dcl_constantbuffer":
            args, space = self._space(args)
            access = self._args(args, 2, mnemonic)[1]
            if access not in ("immediateIndexed", "dynamicIndexed"):
                self.error(f"dcl_constantbuffer: access '{access}' is immediateIndexed or dynamicIndexed")
            operand, size = self._binding(args[0], "cb", extra_index=True)
            if not 1 <= size <= 4096:
                self.error(f"dcl_constantbuffer: size {size} vectors is outside [1, 4096]")
            if self.sm51:
                operand.append(size)
            return self.emit(DCL_CONSTANT_BUFFER, operand + space, DYNAMIC_INDEXED if access[0] == "d" else 0)
        if mnemonic in ("dcl_resource_raw", "dcl_uav_raw", "dcl_uav_raw_glc"):
            args, space = self._space(args)
            letter = "t" if mnemonic == "dcl_resource_raw" else "u"
            operand, _ = self._binding(self._args(args, 1, mnemonic)[0], letter)
            opcode = DCL_RESOURCE_RAW if letter == "t" else DCL_UAV_RAW
            return self.emit(opcode, operand + space, GLOBALLY_COHERENT if mnemonic.endswith("_glc") else 0)
        m = re.match(r"^dcl_(resource|uav)_structured((?:_glc|_opc)*)$", mnemonic)
        if m:
            args, space = self._space(args)
            letter = "t" if m.group(1) == "resource" else "u"
            if letter == "t" and m.group(2):
                self.error(f"{mnemonic}: _glc and _opc are for UAVs")
            self._args(args, 2, mnemonic)
            operand, _ = self._binding(args[0], letter)
            stride = self._int(args[1], "structure stride", 4, 2048)
            if stride % 4:
                self.error(f"structure stride {stride} is not a multiple of 4")
            controls = (GLOBALLY_COHERENT if "_glc" in m.group(2) else 0) | \
                (ORDER_PRESERVING_COUNTER if "_opc" in m.group(2) else 0)
            opcode = DCL_RESOURCE_STRUCTURED if letter == "t" else DCL_UAV_STRUCTURED
            return self.emit(opcode, operand + [stride] + space, controls)
        if mnemonic in ("dcl_resource_buffer", "dcl_uav_typed_buffer", "dcl_uav_typed_buffer_glc"):
            args, space = self._space(args)
            kind, _, reg = self._args(args, 1, mnemonic)[0].rpartition(" ")
            letter = "t" if mnemonic == "dcl_resource_buffer" else "u"
            operand, _ = self._binding(reg, letter)
            controls = DIMENSION_BUFFER | (GLOBALLY_COHERENT if mnemonic.endswith("_glc") else 0)
            opcode = DCL_RESOURCE if letter == "t" else DCL_UAV_TYPED
            return self.emit(opcode, operand + [self._return_type(kind.strip())] + space, controls)
        if mnemonic in ("dcl_tgsm_raw", "dcl_tgsm_structured"):
            raw = mnemonic == "dcl_tgsm_raw"
            self._args(args, 2 if raw else 3, mnemonic)
            m = re.match(r"^g(\d+)$", args[0])
            if not m:
                self.error(f"'{args[0]}': expected g<register>")
            self._declare("g", int(m.group(1)), None)
            sizes = [self._int(a, "size", 1) for a in args[1:]]
            total = sizes[0] if raw else sizes[0] * sizes[1]
            if (raw and total % 4) or total > 32768:
                self.error(f"{mnemonic}: {total} bytes (a multiple of 4, at most 32768 in all)")
            token = operand_token(TGSM, 0, [int(m.group(1))])
            return self.emit(DCL_TGSM_RAW if raw else DCL_TGSM_STRUCTURED, [token, int(m.group(1))] + sizes)
        self.error(f"unknown declaration '{mnemonic}'")

    # ---- the file ----

    def version_line(self, word):
        m = re.match(r"^(\w\w)_(\d)_(\d)$", word)
        if not m or m.group(1) not in PROGRAM_TYPES:
            self.error(f"expected the shader version (cs_5_0 or cs_5_1), not '{word}'")
        if m.group(1) != "cs" or (int(m.group(2)), int(m.group(3))) not in ((5, 0), (5, 1)):
            self.error(f"{word}: only compute shaders of shader model 5.0 and 5.1 (cs_5_0, cs_5_1) are assembled")
        self.version = (int(m.group(2)), int(m.group(3)))

    def statement(self, text):
        mnemonic, _, rest = text.partition(" ")
        if self.version is None:
            return self.version_line(mnemonic)
        if mnemonic.startswith("dcl_"):
            return self.declaration(mnemonic, rest.strip())
        if mnemonic.startswith("sync"):
            if rest.strip():
                self.error(f"{mnemonic} takes no operands")
            return self.sync(mnemonic)
        return self.instruction(mnemonic, _split_top(rest.strip()))


def assemble(text, file, name):
    """Assemble one .asm file; raises AsmError. Returns a Shader."""
    import rootsig  # the RTS0 directives (generator/rootsig.py)
    asm = Assembler(file)
    description, in_header = [], True
    for number, raw in enumerate(text.split("\n"), 1):
        asm.line = number
        line = raw.split("//", 1)[0].strip() if not raw.lstrip().startswith("//") else ""
        if raw.lstrip().startswith("//"):
            if in_header:
                description.append(raw.lstrip()[2:].strip())
            continue
        if "\t" in raw:
            asm.error("a tab character (indent with spaces)")
        if not line:
            continue
        if in_header:
            in_header = False
            if not " ".join(description).strip():
                asm.error("the file starts with no header comment saying what the shader is for (// lines)")
        if line.startswith("."):
            if asm.version is not None:
                asm.error(f"{line.split()[0]}: root signature directives come before the shader version")
            asm.rootsig = rootsig.directive(asm.rootsig, line, asm.error)
            continue
        asm.statement(line)
    asm.line = max(1, text.count("\n"))
    if asm.version is None:
        asm.error("no shader version (cs_5_0 or cs_5_1) and no instructions")
    if asm.blocks:
        kind, line = asm.blocks[-1]
        asm.line = line
        asm.error(f"{kind} is never closed ({OPENS[kind]})")
    if not asm.has_ret:
        asm.error("the shader has no ret")
    tokens = [(PROGRAM_TYPES["cs"] << 16) | (asm.version[0] << 4) | asm.version[1], 2 + len(asm.tokens)]
    rts0 = rootsig.serialize(asm.rootsig) if asm.rootsig else None
    return Shader(name, " ".join(d for d in description if d), "cs", *asm.version, tokens + asm.tokens, rts0)
