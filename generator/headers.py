"""Parse the installed DirectX-Headers with pycparser and cross-check the spec against them.

The headers are preprocessed with `gcc -E` against pycparser's fake libc headers (Debian's python3-pycparser
ships them in /usr/share/python3-pycparser/fake_libc_include), GCC extensions defined away. What the headers
declare is compared with the spec: an enumerator's number, whether a value exists at the headers' SDK version,
a struct's fields and their order and types. What the headers lack is reported so the templates can emit it.
"""
import hashlib
import os
import pickle
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field as dc_field

import pycparser
from pycparser import c_ast, c_generator, c_parser

FAKE_LIBC_CANDIDATES = ("/usr/share/python3-pycparser/fake_libc_include",)
HEADER_FILES = ("wsl/winadapter.h", "directx/d3d12.h", "directx/d3d12sdklayers.h", "directx/d3dcommon.h")
GCC_EXTENSIONS = ("-D__attribute__(x)=", "-D__extension__=", "-D__inline=", "-D__restrict=", "-D__asm__(x)=")
# Aliases whose number moves with every SDK; not capability values (dxheaders-history.md section 3).
IGNORED_ENUMERATORS = {"D3D_HIGHEST_SHADER_MODEL"}


class HeaderError(Exception):
    pass


@dataclass
class InstalledHeaders:
    sdk_version: int
    preview_sdk_version: int
    include_dirs: list
    enums: dict = dc_field(default_factory=dict)      # enum typedef name -> {enumerator: value}
    structs: dict = dc_field(default_factory=dict)    # struct typedef name -> [(field, type text)]
    typedefs: set = dc_field(default_factory=set)     # every typedef name
    enumerators: dict = dc_field(default_factory=dict)  # enumerator -> (enum name, value)
    vtables: dict = dc_field(default_factory=dict)     # interface name -> [VtableSlot], in slot order


@dataclass
class VtableSlot:
    """One method slot of a COM interface's C vtable (the `This` parameter excluded)."""
    name: str
    returns: str      # C type text, e.g. "HRESULT", "D3D12_RESOURCE_ALLOCATION_INFO"
    params: list      # [(declaration text, parameter name)], e.g. [("const IID * const riid", "riid")]


def _find_fake_libc():
    override = os.environ.get("D12_FAKE_LIBC_INCLUDE")
    for candidate in ((override,) if override else ()) + FAKE_LIBC_CANDIDATES:
        if candidate and os.path.isdir(candidate):
            return candidate
    raise HeaderError("pycparser's fake libc headers are missing (apt-get install python3-pycparser)")


def include_dirs():
    """DirectX-Headers' include directories from pkg-config (falling back to /usr/include)."""
    try:
        out = subprocess.run(["pkg-config", "--cflags-only-I", "DirectX-Headers"], check=True,
                             capture_output=True, text=True).stdout
        dirs = [flag[2:] for flag in out.split() if flag.startswith("-I")]
    except (OSError, subprocess.CalledProcessError):
        raise HeaderError("DirectX-Headers not found by pkg-config (apt-get install directx-headers-dev)") from None
    return ["/usr/include"] + [d for d in dirs if d != "/usr/include"]


def _preprocess(dirs, extra):
    """Preprocess the headers, read from stdin so the output names no temporary file (it keys the parse cache)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise HeaderError("no C compiler (gcc) to preprocess the headers")
    source = "".join(f"#include <{h}>\n" for h in HEADER_FILES)
    flags = [f"-I{d}" for d in dirs]
    run = subprocess.run([compiler, "-E", "-std=c11", *extra, *flags, "-x", "c", "-"], input=source,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise HeaderError(f"preprocessing DirectX-Headers failed:\n{run.stderr.strip()}")
    return run.stdout


def _macro(macros, name):
    match = re.search(rf"^#define {name} \(? *(\d+) *\)?\s*$", macros, re.M)
    if not match:
        raise HeaderError(f"the installed d3d12.h does not define {name}")
    return int(match.group(1))


def _type_text(node):
    if isinstance(node, c_ast.PtrDecl):
        inner = _type_text(node.type)
        quals = " ".join(node.quals)
        return f"{inner} *" + (f" {quals}" if quals else "")
    if isinstance(node, c_ast.ArrayDecl):
        return _type_text(node.type)
    if isinstance(node, c_ast.TypeDecl):
        quals = " ".join(node.quals)
        base = node.type
        name = " ".join(base.names) if isinstance(base, c_ast.IdentifierType) else getattr(base, "name", "?")
        return f"{quals} {name}".strip()
    return "?"


_C = c_generator.CGenerator()


def _slot(decl):
    """A vtable member `R (*Name)(I *This, ...)` as a VtableSlot."""
    func = decl.type.type  # PtrDecl -> FuncDecl
    returns = _C._generate_type(func.type, emit_declname=False)
    params = []
    for param in func.args.params[1:]:
        params.append((_C._generate_decl(param).strip(), param.name))
    return VtableSlot(decl.name, " ".join(returns.split()), params)


class _Collector(c_ast.NodeVisitor):
    def __init__(self, result):
        self.result = result

    def visit_Typedef(self, node):
        self.result.typedefs.add(node.name)
        inner = node.type.type if isinstance(node.type, c_ast.TypeDecl) else None
        if isinstance(inner, c_ast.Enum) and inner.values is not None:
            self._enum(node.name, inner)
        elif isinstance(inner, c_ast.Struct) and inner.decls is not None:
            self.result.structs[node.name] = [(d.name, _type_text(d.type)) for d in inner.decls]
            if node.name.endswith("Vtbl"):
                self.result.vtables[node.name[:-4]] = [_slot(d) for d in inner.decls]

    def _enum(self, name, enum):
        values, previous = {}, -1
        for enumerator in enum.values.enumerators:
            if enumerator.value is None:
                number = previous + 1
            else:
                number = self._evaluate(enumerator.value, values)
            values[enumerator.name] = number
            previous = number
            if enumerator.name not in IGNORED_ENUMERATORS:
                self.result.enumerators[enumerator.name] = (name, number)
        self.result.enums[name] = {k: v for k, v in values.items() if k not in IGNORED_ENUMERATORS}

    def _evaluate(self, node, known):
        if isinstance(node, c_ast.Constant):
            text = node.value.rstrip("uUlL")
            return int(text, 0) if not re.fullmatch(r"0\d+", text) else int(text, 8)
        if isinstance(node, c_ast.ID):
            if node.name in known:
                return known[node.name]
            return self.result.enumerators[node.name][1]
        if isinstance(node, c_ast.UnaryOp) and node.op == "-":
            return -self._evaluate(node.expr, known)
        if isinstance(node, c_ast.BinaryOp):
            left, right = self._evaluate(node.left, known), self._evaluate(node.right, known)
            return {"|": left | right, "+": left + right, "<<": left << right, "-": left - right}[node.op]
        if isinstance(node, c_ast.Cast):
            return self._evaluate(node.expr, known)
        raise HeaderError(f"cannot evaluate enumerator value {node!r}")


_CACHE = {}
PARSE_CACHE_FORMAT = 1  # bump when InstalledHeaders or the collector changes


def _parse_cache_path(text, macros):
    """Where the parse of exactly this preprocessed text is kept: content-addressed, so it can never be stale."""
    key = hashlib.sha256(f"{PARSE_CACHE_FORMAT}\0{pycparser.__version__}\0{macros}\0{text}".encode()).hexdigest()
    return os.path.join(tempfile.gettempdir(), f"d12rt-gen-cache-{os.getuid()}", f"{key}.pickle")


def _load_cached(path):
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except (OSError, pickle.PickleError, EOFError, AttributeError):
        return None


def _store_cached(path, result):
    """Best effort: a cache that cannot be written only costs time."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as handle:
            pickle.dump(result, handle)
        os.replace(tmp, path)
    except OSError:
        pass


def parse_installed():
    """Parse the installed headers once per process (and, across processes, once per header content: parsing
    takes seconds and the generator runs many times in the tests)."""
    if "headers" in _CACHE:
        return _CACHE["headers"]
    dirs = include_dirs()
    macros = _preprocess(dirs, ["-dM"])
    text = _preprocess([_find_fake_libc()] + dirs, ["-nostdinc", *GCC_EXTENSIONS])
    cache_path = _parse_cache_path(text, macros)
    result = _load_cached(cache_path)
    if not isinstance(result, InstalledHeaders):
        result = InstalledHeaders(_macro(macros, "D3D12_SDK_VERSION"), _macro(macros, "D3D12_PREVIEW_SDK_VERSION"),
                                  dirs)
        _Collector(result).visit(c_parser.CParser().parse(text, "DirectX-Headers"))
        _store_cached(cache_path, result)
    _CACHE["headers"] = result
    return result
