/* The program of a SHEX/SHDR chunk: the version token, then instructions (d3d11TokenizedProgramFormat.hpp's
 * "tokenized program format"), of which the declarations are decoded (bindings with register, space and range,
 * thread group, temps, inputs, TGSM) and the rest checked for shape (lengths, operands) and counted. Every
 * length and index is checked against the chunk before it is used. */
#include "dxbc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opcodes and operand types of the format used here. */
enum {
    OP_CUSTOMDATA = 53, OP_IMM_ATOMIC_ALLOC = 178, OP_IMM_ATOMIC_CONSUME = 179, OP_INTERFACE_CALL = 120,
    OP_DCL_RESOURCE = 88, OP_DCL_CONSTANT_BUFFER = 89, OP_DCL_SAMPLER = 90, OP_DCL_INPUT = 95, OP_DCL_TEMPS = 104,
    OP_DCL_GLOBAL_FLAGS = 106, OP_DCL_THREAD_GROUP = 155, OP_DCL_UAV_TYPED = 156, OP_DCL_UAV_RAW = 157,
    OP_DCL_UAV_STRUCTURED = 158, OP_DCL_TGSM_RAW = 159, OP_DCL_TGSM_STRUCTURED = 160, OP_DCL_RESOURCE_RAW = 161,
    OP_DCL_RESOURCE_STRUCTURED = 162, OP_DCL_GS_INSTANCE_COUNT = 206,
};
enum { REG_IMM32 = 4, REG_IMM64 = 5, REG_SAMPLER = 6, REG_RESOURCE = 7, REG_CBUFFER = 8, REG_UAV = 30,
       REG_TGSM = 31, REG_FIRST_CS_INPUT = 32, REG_LAST_CS_INPUT = 36 };
#define MAX_RELATIVE_DEPTH 4

/* Shader model 5.1 and later: ranged declarations (id, lower, upper) and register spaces. */
static int is_sm51(const d12_dxbc_program *p)
{
    return p->major > 5 || (p->major == 5 && p->minor >= 1);
}

typedef struct cursor {
    const uint8_t *bytes;
    uint32_t pos, end; /* DWORD indices */
    char *error;
    size_t error_size;
} cursor;

typedef struct operand {
    uint32_t type, components, dims;
    uint32_t index[3];
    int relative; /* some index is relative */
} operand;

static int fail(cursor *c, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (c->error_size) {
        int n = snprintf(c->error, c->error_size, "SHEX: DWORD %u: ", c->pos);
        if (n >= 0 && (size_t)n < c->error_size)
            vsnprintf(c->error + n, c->error_size - (size_t)n, format, args);
    }
    va_end(args);
    return -1;
}

static int next(cursor *c, uint32_t *value)
{
    *value = 0; /* set on failure too: gcc -O3 (-Wmaybe-uninitialized) cannot see that callers stop there */
    if (c->pos >= c->end)
        return fail(c, "the instruction ends inside an operand or argument");
    *value = d12_dxbc_u32(c->bytes, 4 * (size_t)c->pos++);
    return 0;
}

static int read_operand(cursor *c, operand *out, unsigned depth)
{
    uint32_t token, word;
    memset(out, 0, sizeof *out);
    if (next(c, &token))
        return -1;
    static const uint32_t components[4] = {0, 1, 4, UINT32_MAX};
    out->components = components[token & 3];
    out->type = (token >> 12) & 0xff;
    out->dims = (token >> 20) & 3;
    if (out->components == UINT32_MAX)
        return fail(c, "an operand of N components (unsupported)");
    for (uint32_t ext = token; ext >> 31;)
        if (next(c, &ext))
            return -1;
    if (out->type == REG_IMM32 || out->type == REG_IMM64) {
        uint32_t values = out->components * (out->type == REG_IMM64 ? 2 : 1);
        for (uint32_t i = 0; i < values; i++)
            if (next(c, &word))
                return -1;
    }
    if (out->dims == 3 && depth > 0)
        return fail(c, "a relative index of three dimensions");
    for (uint32_t d = 0; d < out->dims; d++) {
        uint32_t rep = (token >> (22 + 3 * d)) & 7;
        if (rep > 4)
            return fail(c, "index representation %u", rep);
        if (rep != 2 && next(c, &out->index[d]))
            return -1;
        if ((rep == 1 || rep == 4) && next(c, &word)) /* 64-bit: the high word first, the low word kept */
            return -1;
        if ((rep == 1 || rep == 4))
            out->index[d] = word;
        if (rep >= 2) {
            operand inner;
            if (depth >= MAX_RELATIVE_DEPTH)
                return fail(c, "relative indices nested too deep");
            if (read_operand(c, &inner, depth + 1))
                return -1;
            out->relative = 1;
        }
    }
    return 0;
}

static d12_dxbc_binding *add_binding(cursor *c, d12_dxbc_program *p)
{
    if ((p->binding_count & 15) == 0) {
        d12_dxbc_binding *grown = realloc(p->bindings, (p->binding_count + 16) * sizeof *grown);
        if (!grown) {
            fail(c, "out of memory");
            return NULL;
        }
        p->bindings = grown;
    }
    d12_dxbc_binding *b = &p->bindings[p->binding_count++];
    memset(b, 0, sizeof *b);
    return b;
}

/* A resource declaration's operand: 5.0 a 1D register (cb: 2D, register and size); 5.1 3D (id, lower, upper). */
static d12_dxbc_binding *read_binding(cursor *c, d12_dxbc_program *p, uint32_t reg_type, d12_dxbc_binding_kind kind,
                                      d12_dxbc_resource resource)
{
    operand op;
    int sm51 = is_sm51(p);
    if (read_operand(c, &op, 0))
        return NULL;
    uint32_t want = sm51 ? 3 : reg_type == REG_CBUFFER ? 2 : 1;
    if (op.type != reg_type || op.dims != want || op.relative) {
        fail(c, "declaration operand of register type %u with %u immediate indices (type %u with %u expected)",
             op.type, op.dims, reg_type, want);
        return NULL;
    }
    if (sm51 && op.index[2] < op.index[1]) {
        fail(c, "register range [%u:%u] ends before it starts", op.index[1], op.index[2]);
        return NULL;
    }
    d12_dxbc_binding *b = add_binding(c, p);
    if (!b)
        return NULL;
    b->kind = kind, b->resource = resource, b->id = op.index[0];
    b->lower = sm51 ? op.index[1] : op.index[0];
    b->upper = sm51 ? op.index[2] : op.index[0];
    if (!sm51 && reg_type == REG_CBUFFER)
        b->size = op.index[1];
    return b;
}

static int read_space(cursor *c, const d12_dxbc_program *p, d12_dxbc_binding *b)
{
    return is_sm51(p) ? next(c, &b->space) : 0;
}

static int declare_resource(cursor *c, d12_dxbc_program *p, uint32_t type, uint32_t token)
{
    int uav = type == OP_DCL_UAV_TYPED || type == OP_DCL_UAV_RAW || type == OP_DCL_UAV_STRUCTURED;
    d12_dxbc_resource resource = type == OP_DCL_RESOURCE || type == OP_DCL_UAV_TYPED ? D12_DXBC_RESOURCE_TYPED
                               : type == OP_DCL_RESOURCE_RAW || type == OP_DCL_UAV_RAW ? D12_DXBC_RESOURCE_RAW
                                                                                       : D12_DXBC_RESOURCE_STRUCTURED;
    d12_dxbc_binding *b = read_binding(c, p, uav ? REG_UAV : REG_RESOURCE, uav ? D12_DXBC_UAV : D12_DXBC_SRV,
                                       resource);
    if (!b)
        return -1;
    if (uav && (token >> 16) & 1)
        b->flags |= D12_DXBC_GLOBALLY_COHERENT;
    if (type == OP_DCL_UAV_STRUCTURED && (token >> 23) & 1)
        b->flags |= D12_DXBC_ORDER_PRESERVING_COUNTER;
    if (resource == D12_DXBC_RESOURCE_TYPED) {
        b->dimension = (token >> 11) & 0x1f;
        if (next(c, &b->return_type))
            return -1;
    }
    if (resource == D12_DXBC_RESOURCE_STRUCTURED && next(c, &b->stride))
        return -1;
    return read_space(c, p, b);
}

static int declare_constant_buffer(cursor *c, d12_dxbc_program *p, uint32_t token)
{
    d12_dxbc_binding *b = read_binding(c, p, REG_CBUFFER, D12_DXBC_CBV, D12_DXBC_RESOURCE_CONSTANT_BUFFER);
    if (!b)
        return -1;
    if ((token >> 11) & 1)
        b->flags |= D12_DXBC_DYNAMIC_INDEXED;
    if (is_sm51(p) && next(c, &b->size))
        return -1;
    return read_space(c, p, b);
}

static int declare_tgsm(cursor *c, d12_dxbc_program *p, int structured)
{
    operand op;
    uint32_t a, n = 1;
    if (read_operand(c, &op, 0) || next(c, &a) || (structured && next(c, &n)))
        return -1;
    if (op.type != REG_TGSM || op.dims != 1 || op.relative)
        return fail(c, "a TGSM declaration whose operand is not g<n>");
    if ((p->tgsm_count & 7) == 0) {
        d12_dxbc_tgsm *grown = realloc(p->tgsm, (p->tgsm_count + 8) * sizeof *grown);
        if (!grown)
            return fail(c, "out of memory");
        p->tgsm = grown;
    }
    uint64_t bytes = structured ? (uint64_t)a * n : a;
    p->tgsm[p->tgsm_count++] = (d12_dxbc_tgsm){op.index[0], structured ? a : 0,
                                               bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes};
    return 0;
}

static int declaration(cursor *c, d12_dxbc_program *p, uint32_t type, uint32_t token)
{
    operand op;
    switch (type) {
    case OP_DCL_GLOBAL_FLAGS:
        p->global_flags = (token >> 11) & 0x1fff;
        return 0;
    case OP_DCL_TEMPS:
        return next(c, &p->temps);
    case OP_DCL_THREAD_GROUP:
        return next(c, &p->thread_group[0]) || next(c, &p->thread_group[1]) || next(c, &p->thread_group[2]) ? -1 : 0;
    case OP_DCL_INPUT:
        if (read_operand(c, &op, 0))
            return -1;
        if (op.type >= REG_FIRST_CS_INPUT && op.type <= REG_LAST_CS_INPUT)
            p->inputs |= 1u << (op.type - REG_FIRST_CS_INPUT);
        return 0;
    case OP_DCL_CONSTANT_BUFFER:
        return declare_constant_buffer(c, p, token);
    case OP_DCL_SAMPLER: {
        d12_dxbc_binding *b = read_binding(c, p, REG_SAMPLER, D12_DXBC_SAMPLER, D12_DXBC_RESOURCE_SAMPLER);
        return b ? read_space(c, p, b) : -1;
    }
    case OP_DCL_RESOURCE: case OP_DCL_UAV_TYPED: case OP_DCL_UAV_RAW: case OP_DCL_UAV_STRUCTURED:
    case OP_DCL_RESOURCE_RAW: case OP_DCL_RESOURCE_STRUCTURED:
        return declare_resource(c, p, type, token);
    case OP_DCL_TGSM_RAW: case OP_DCL_TGSM_STRUCTURED:
        return declare_tgsm(c, p, type == OP_DCL_TGSM_STRUCTURED);
    default: /* another stage's declaration: its length was checked; its contents are not needed here */
        c->pos = c->end;
        return 0;
    }
}

static int is_declaration(uint32_t type)
{
    return (type >= OP_DCL_RESOURCE && type <= OP_DCL_GLOBAL_FLAGS) || (type >= 143 && type <= 162) ||
           type == OP_DCL_GS_INSTANCE_COUNT;
}

/* A UAV counter is used: imm_atomic_alloc/consume name the UAV as their second operand. */
static void mark_counter(d12_dxbc_program *p, const operand *uav)
{
    for (uint32_t i = 0; i < p->binding_count; i++)
        if (p->bindings[i].kind == D12_DXBC_UAV && p->bindings[i].id == uav->index[0])
            p->bindings[i].flags |= D12_DXBC_COUNTER_USED;
}

static int instruction(cursor *c, d12_dxbc_program *p, uint32_t type, uint32_t token)
{
    uint32_t ext;
    for (ext = token; ext >> 31;)
        if (next(c, &ext))
            return -1;
    if (type == OP_INTERFACE_CALL && next(c, &ext)) /* the function index precedes the operand */
        return -1;
    for (unsigned n = 0; c->pos < c->end; n++) {
        operand op;
        if (read_operand(c, &op, 0))
            return -1;
        if (n == 1 && (type == OP_IMM_ATOMIC_ALLOC || type == OP_IMM_ATOMIC_CONSUME) && op.type == REG_UAV)
            mark_counter(p, &op);
    }
    p->instruction_count++;
    return 0;
}

static int walk(cursor *c, d12_dxbc_program *p, uint32_t length)
{
    for (uint32_t at = 2; at < length;) {
        c->pos = at;
        uint32_t token = d12_dxbc_u32(c->bytes, 4 * (size_t)at), type = token & 0x7ff, size;
        if (type == OP_CUSTOMDATA) {
            if (at + 1 >= length)
                return fail(c, "customdata without its length");
            size = d12_dxbc_u32(c->bytes, 4 * (size_t)(at + 1));
            if (size < 2)
                return fail(c, "customdata of %u DWORDs", size);
        } else {
            size = (token >> 24) & 0x7f;
            if (size == 0)
                return fail(c, "instruction %u of length 0", type);
        }
        if (size > length - at)
            return fail(c, "instruction %u of %u DWORDs runs past the program's %u", type, size, length);
        c->pos = at + 1, c->end = at + size;
        if (type != OP_CUSTOMDATA) {
            if (is_declaration(type) ? declaration(c, p, type, token) : instruction(c, p, type, token))
                return -1;
            if (c->pos != c->end)
                return fail(c, "instruction %u has %u DWORDs more than it uses", type, c->end - c->pos);
        }
        at += size;
    }
    return 0;
}

int d12_dxbc_program_parse(const d12_dxbc *dxbc, d12_dxbc_program *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    const d12_dxbc_chunk *chunk = d12_dxbc_find(dxbc, D12_DXBC_TAG_SHEX);
    if (!chunk)
        chunk = d12_dxbc_find(dxbc, D12_DXBC_TAG_SHDR);
    cursor c = {chunk ? chunk->data : NULL, 0, 0, error, error_size};
    if (!chunk)
        return fail(&c, "no SHEX or SHDR chunk");
    uint32_t words = chunk->size / 4;
    if (words < 2)
        return fail(&c, "a program of %u DWORDs has no version and length tokens", words);
    uint32_t version = d12_dxbc_u32(chunk->data, 0), length = d12_dxbc_u32(chunk->data, 4);
    out->type = version >> 16, out->major = (version >> 4) & 0xf, out->minor = version & 0xf;
    if (length < 2 || length > words) {
        c.pos = 1;
        fail(&c, "program length %u DWORDs (the chunk holds %u)", length, words);
    } else if (out->type > 5 || out->major < 4 || out->major > 5) {
        fail(&c, "version token 0x%08x: not shader model 4 or 5", version);
    } else if (walk(&c, out, length) == 0) {
        return 0;
    }
    d12_dxbc_program_free(out);
    return -1;
}

void d12_dxbc_program_free(d12_dxbc_program *program)
{
    free(program->bindings);
    free(program->tgsm);
    memset(program, 0, sizeof *program);
}
