# cmake -DIN=x.spv -DOUT=x.c -DNAME=symbol -P embed_spirv.cmake: the SPIR-V module as `const uint32_t NAME[]` and
# `const size_t NAME_size` (its bytes), so the driver carries its kernels and needs no file at run time.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" length)
math(EXPR bytes "${length} / 2")
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}") # SPIR-V words are little-endian
string(REGEX REPLACE "((0x[0-9a-f]+u,){8})" "\\1\n" words "${words}")
file(WRITE ${OUT} "/* Generated from ${IN} by embed_spirv.cmake at build time. */\n#include <stddef.h>\n#include <stdint.h>\n\n"
     "extern const uint32_t ${NAME}[];\nextern const size_t ${NAME}_size;\n"
     "const uint32_t ${NAME}[] = {\n${words}};\nconst size_t ${NAME}_size = ${bytes};\n")
