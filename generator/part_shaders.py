"""Part `shaders`: the project's own shaders (spec/shaders/*.asm, one a file) -> DXBC containers as C arrays in
generated/shaders/d12_shaders.h/.c (docs/shaders.md).

Each file is assembled (shader_asm.py: SM 5.0/5.1 compute, a header comment first), optionally with an embedded
root signature (rootsig.py), and wrapped in a container (dxbc_container.py): empty ISGN and OSGN, SHEX, and RTS0
when the file has one, with the container's checksum. An error is `file:line: what is wrong`.
"""
import re
from pathlib import Path

import dxbc_container
import shader_asm
from shader_asm import AsmError

NAME = "shaders"
_SPEC = Path(__file__).resolve().parent.parent / "spec"
FILES = tuple(f"shaders/{p.name}" for p in sorted((_SPEC / "shaders").glob("*.asm")))
OUTPUTS = (
    ("shaders.h.j2", "generated/shaders/d12_shaders.h", "c"),
    ("shaders.c.j2", "generated/shaders/d12_shaders.c", "c"),
)
IDENT = re.compile(r"^[a-z][a-z0-9_]*$")


class Blob:
    def __init__(self, shader, code):
        self.shader, self.code = shader, code

    @property
    def name(self):
        return self.shader.name

    def rows(self, width=16):
        """The bytes as C initializer lines."""
        return [", ".join(f"0x{b:02x}" for b in self.code[at:at + width]) for at in range(0, len(self.code), width)]


def build(shader):
    chunks = [("ISGN", dxbc_container.empty_signature()), ("OSGN", dxbc_container.empty_signature()),
              ("SHEX", shader.shex())]
    if shader.rts0 is not None:
        chunks.append(("RTS0", shader.rts0))
    return dxbc_container.container(chunks)


def load(spec_dir, spec_display, context):
    blobs = []
    for path in sorted((Path(spec_dir) / "shaders").glob("*.asm")):
        display = f"{spec_display}/shaders/{path.name}"
        if not IDENT.match(path.stem):
            raise AsmError(display, 1, f"the file name '{path.stem}' is not a C identifier of a-z, 0-9 and _")
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise AsmError(display, 1, f"not UTF-8 at byte {error.start}") from None
        blobs.append(Blob(shader_asm.assemble(text, display, path.stem), None))
        blobs[-1].code = build(blobs[-1].shader)
    if not blobs:
        raise AsmError(f"{spec_display}/shaders", 0, "no .asm files (the tests need the project's shaders)")
    context["shaders"] = blobs
