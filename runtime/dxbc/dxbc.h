/* runtime/dxbc: the DXBC reader (and writer) shared by the runtime and both drivers (docs/shaders.md).
 *
 * Owns: the container (header, chunk table, checksum: d12_dxbc_parse / d12_dxbc_write), the shader program of a
 * SHEX/SHDR chunk (version token and every declaration: d12_dxbc_program_parse) and the RTS0 root signature
 * (d12_rts0_parse / d12_rts0_write, rts0.c) with version conversion (d12_rootsig_convert). It calls nothing but
 * libc. Every parser takes untrusted bytes: it accepts them whole or refuses them with one line of text in `error`
 * (never a partial result), and never reads outside them (fuzzed: tests/fuzz/fuzz_dxbc.c). */
#ifndef D12_DXBC_H
#define D12_DXBC_H

#include <stddef.h>
#include <stdint.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#define D12_DXBC_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define D12_DXBC_TAG_SHEX D12_DXBC_TAG('S', 'H', 'E', 'X')
#define D12_DXBC_TAG_SHDR D12_DXBC_TAG('S', 'H', 'D', 'R')
#define D12_DXBC_TAG_RTS0 D12_DXBC_TAG('R', 'T', 'S', '0')
#define D12_DXBC_TAG_ISGN D12_DXBC_TAG('I', 'S', 'G', 'N')
#define D12_DXBC_TAG_OSGN D12_DXBC_TAG('O', 'S', 'G', 'N')
#define D12_DXBC_MAX_CHUNKS 32

typedef struct d12_dxbc_chunk {
    uint32_t tag;
    uint32_t size;
    const uint8_t *data; /* inside the container */
} d12_dxbc_chunk;

typedef struct d12_dxbc {
    uint32_t chunk_count;
    d12_dxbc_chunk chunks[D12_DXBC_MAX_CHUNKS];
} d12_dxbc;

/* The container's checksum (16 bytes as four little-endian words) of `size` bytes: MD5's compression over the
 * bytes from offset 20 with DXBC's own last block. */
void d12_dxbc_checksum(const void *data, size_t size, uint32_t checksum[4]);

/* Parses and verifies a container (magic, checksum, version 1, total size, every chunk inside it).
 * 0, or -1 with a line in `error`. */
int d12_dxbc_parse(const void *data, size_t size, d12_dxbc *out, char *error, size_t error_size);

/* The first chunk with `tag`, or NULL. */
const d12_dxbc_chunk *d12_dxbc_find(const d12_dxbc *dxbc, uint32_t tag);

/* A container of `count` chunks (data padded to 4 bytes) with its checksum, malloc'd; NULL when out of memory. */
void *d12_dxbc_write(const d12_dxbc_chunk *chunks, uint32_t count, size_t *size);

/* ---- The program (SHEX/SHDR) ---- */

typedef enum d12_dxbc_binding_kind {
    D12_DXBC_CBV,
    D12_DXBC_SRV,
    D12_DXBC_UAV,
    D12_DXBC_SAMPLER,
} d12_dxbc_binding_kind;

typedef enum d12_dxbc_resource {
    D12_DXBC_RESOURCE_CONSTANT_BUFFER,
    D12_DXBC_RESOURCE_RAW,
    D12_DXBC_RESOURCE_STRUCTURED,
    D12_DXBC_RESOURCE_TYPED, /* `dimension` says which */
    D12_DXBC_RESOURCE_SAMPLER,
} d12_dxbc_resource;

#define D12_DXBC_UNBOUNDED UINT32_MAX
#define D12_DXBC_GLOBALLY_COHERENT 0x1u
#define D12_DXBC_ORDER_PRESERVING_COUNTER 0x2u
#define D12_DXBC_COUNTER_USED 0x4u /* imm_atomic_alloc/consume on it */
#define D12_DXBC_DYNAMIC_INDEXED 0x8u /* a constant buffer declared dynamicIndexed */

typedef struct d12_dxbc_binding {
    d12_dxbc_binding_kind kind;
    d12_dxbc_resource resource;
    uint32_t id;           /* 5.0: the register; 5.1: the range ID the instructions use */
    uint32_t space;        /* 0 in 5.0 */
    uint32_t lower, upper; /* registers, inclusive; upper D12_DXBC_UNBOUNDED for [n:*]; lower == upper in 5.0 */
    uint32_t dimension;    /* typed: D3D10_SB_RESOURCE_DIMENSION (1 = buffer) */
    uint32_t return_type;  /* typed: four 4-bit return types (x in bits 0-3) */
    uint32_t stride;       /* structured: bytes */
    uint32_t size;         /* constant buffer: 16-byte vectors */
    uint32_t flags;        /* D12_DXBC_GLOBALLY_COHERENT, ... */
} d12_dxbc_binding;

typedef struct d12_dxbc_tgsm {
    uint32_t id;
    uint32_t stride; /* 0: raw */
    uint32_t bytes;  /* in all */
} d12_dxbc_tgsm;

typedef struct d12_dxbc_program {
    uint32_t type;  /* D3D10_SB_TOKENIZED_PROGRAM_TYPE: 5 = compute */
    uint32_t major, minor;
    uint32_t global_flags; /* the dcl_globalFlags bits, shifted down to bit 0 */
    uint32_t temps;
    uint32_t thread_group[3]; /* 0s when undeclared */
    uint32_t inputs;          /* bit (register type - 32) per declared compute input (vThreadID = bit 0, ...) */
    uint32_t instruction_count; /* not declarations */
    uint32_t binding_count;
    d12_dxbc_binding *bindings; /* in declaration order */
    uint32_t tgsm_count;
    d12_dxbc_tgsm *tgsm;
} d12_dxbc_program;

/* Parses the SHEX (or SHDR) chunk of a parsed container: 0, or -1 with a line in `error` and *out zeroed. */
int d12_dxbc_program_parse(const d12_dxbc *dxbc, d12_dxbc_program *out, char *error, size_t error_size);
void d12_dxbc_program_free(d12_dxbc_program *program);

/* ---- Locating a register in a root signature (locate.c) ---- */

/* Where a root signature binds one register, as the compute stage sees it (parameters of visibility ALL only). */
typedef struct d12_rootsig_location {
    UINT parameter;                 /* the root parameter; UINT_MAX for a static sampler */
    D3D12_ROOT_PARAMETER_TYPE type; /* its type */
    UINT range;                     /* a table: the range that covers the register */
    uint64_t table_offset;          /* a table: the register's descriptor, counted from the table's start */
    UINT static_sampler;            /* a static sampler: its index */
    uint64_t end;                   /* the first register after what this parameter (or range) covers */
} d12_rootsig_location;

/* The first root parameter of `desc` (1.1) that binds register `reg` of `kind` in `space`: a table range of the
 * register's type, a root view of its type, root constants (a CBV), or a static sampler. 0 with *where, or -1. */
int d12_rootsig_locate(const D3D12_ROOT_SIGNATURE_DESC1 *desc, d12_dxbc_binding_kind kind, uint32_t space,
                       uint32_t reg, d12_rootsig_location *where);

/* ---- RTS0 (rts0.c) ---- */

/* Parses an RTS0 chunk's data into one allocation (free() it) holding the description at the blob's version
 * (1.0 or 1.1) and everything it points to: 0, or -1 with a line in `error` and *out NULL. */
int d12_rts0_parse(const void *data, size_t size, D3D12_VERSIONED_ROOT_SIGNATURE_DESC **out, char *error,
                   size_t error_size);

/* The RTS0 chunk's data for a description, byte for byte what Windows writes; malloc'd; NULL when out of memory
 * or when the version is neither 1.0 nor 1.1. */
void *d12_rts0_write(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, size_t *size);

/* A copy of `desc` at `version` (1.0 or 1.1), in one allocation (free() it). 1.0 -> 1.1 gives CBV/SRV/UAV ranges
 * DESCRIPTORS_VOLATILE | DATA_VOLATILE, sampler ranges DESCRIPTORS_VOLATILE and root descriptors DATA_VOLATILE;
 * 1.1 -> 1.0 drops the flags. NULL when out of memory or the version is unknown. */
D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d12_rootsig_convert(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                                         D3D_ROOT_SIGNATURE_VERSION version);

/* Little-endian DWORD at byte `at` (the caller checked the bounds). */
static inline uint32_t d12_dxbc_u32(const uint8_t *data, size_t at)
{
    return (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 | (uint32_t)data[at + 2] << 16 |
           (uint32_t)data[at + 3] << 24;
}

#endif
