/* RTS0, the serialized root signature (what D3D12SerializeVersionedRootSignature wraps in a DXBC container and
 * what a shader may embed), and converting descriptions between versions 1.0 and 1.1.
 *
 * The layout Windows writes (docs/root-signatures.md): a 24-byte header (version 1 = 1.0 or 2 = 1.1, parameter
 * count, parameter offset, static sampler count, static sampler offset, flags); one 12-byte header per parameter
 * (type, visibility, payload offset); each parameter's payload in parameter order (a table: its range count and
 * the offset of its ranges, which follow at once; 1.0 ranges are 5 DWORDs, 1.1 ranges 6 with Flags before the
 * offset; constants 3 DWORDs; a root descriptor 2 DWORDs in 1.0, 3 in 1.1); then the static samplers, 13 DWORDs
 * each. Offsets count from the chunk's start. Descriptions are built in one allocation, so one free() frees them. */
#include "dxbc.h"
#include "dxbc_internal.h"

/* A refusal with its line of text (`error` and `error_size` are the function's parameters). */
#define FAIL(...) d12__dxbc_fail(error, error_size, __VA_ARGS__)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 24u
#define SAMPLER_SIZE 52u

typedef struct counts {
    uint32_t params, ranges, samplers;
} counts;

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* One allocation holding the versioned desc, its parameters, every range and the samplers, wired up except the
 * tables' range pointers (the caller hands out `*ranges` in order). */
static D3D12_VERSIONED_ROOT_SIGNATURE_DESC *alloc_desc(D3D_ROOT_SIGNATURE_VERSION version, counts n, void **ranges)
{
    int v11 = version == D3D_ROOT_SIGNATURE_VERSION_1_1;
    size_t param_size = v11 ? sizeof(D3D12_ROOT_PARAMETER1) : sizeof(D3D12_ROOT_PARAMETER);
    size_t range_size = v11 ? sizeof(D3D12_DESCRIPTOR_RANGE1) : sizeof(D3D12_DESCRIPTOR_RANGE);
    size_t at_params = align8(sizeof(D3D12_VERSIONED_ROOT_SIGNATURE_DESC));
    size_t at_ranges = align8(at_params + param_size * n.params);
    size_t at_samplers = align8(at_ranges + range_size * n.ranges);
    uint8_t *block = calloc(1, at_samplers + sizeof(D3D12_STATIC_SAMPLER_DESC) * n.samplers);
    if (!block)
        return NULL;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc = (D3D12_VERSIONED_ROOT_SIGNATURE_DESC *)block;
    desc->Version = version;
    /* Desc_1_0 and Desc_1_1 have the same shape; only the parameter type differs. */
    desc->Desc_1_1.NumParameters = n.params;
    desc->Desc_1_1.pParameters = n.params ? (D3D12_ROOT_PARAMETER1 *)(block + at_params) : NULL;
    desc->Desc_1_1.NumStaticSamplers = n.samplers;
    desc->Desc_1_1.pStaticSamplers = n.samplers ? (D3D12_STATIC_SAMPLER_DESC *)(block + at_samplers) : NULL;
    *ranges = block + at_ranges;
    return desc;
}

static counts count_desc(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc)
{
    int v11 = desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_1;
    counts n = {desc->Desc_1_1.NumParameters, 0, desc->Desc_1_1.NumStaticSamplers};
    for (uint32_t i = 0; i < n.params; i++) {
        D3D12_ROOT_PARAMETER_TYPE type = v11 ? desc->Desc_1_1.pParameters[i].ParameterType
                                             : desc->Desc_1_0.pParameters[i].ParameterType;
        if (type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE)
            n.ranges += v11 ? desc->Desc_1_1.pParameters[i].DescriptorTable.NumDescriptorRanges
                            : desc->Desc_1_0.pParameters[i].DescriptorTable.NumDescriptorRanges;
    }
    return n;
}

/* Range i of parameter p of any version, as 1.1 (a 1.0 range gets `flags10`). */
static D3D12_DESCRIPTOR_RANGE1 range_at(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, uint32_t p, uint32_t i,
                                        int volatile10)
{
    if (desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_1)
        return desc->Desc_1_1.pParameters[p].DescriptorTable.pDescriptorRanges[i];
    const D3D12_DESCRIPTOR_RANGE *r = &desc->Desc_1_0.pParameters[p].DescriptorTable.pDescriptorRanges[i];
    D3D12_DESCRIPTOR_RANGE_FLAGS flags = D3D12_DESCRIPTOR_RANGE_FLAG_NONE;
    if (volatile10) /* Windows' 1.0 -> 1.1 conversion: everything volatile (samplers have no data) */
        flags = r->RangeType == D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER
                    ? D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE
                    : D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE;
    return (D3D12_DESCRIPTOR_RANGE1){r->RangeType, r->NumDescriptors, r->BaseShaderRegister, r->RegisterSpace, flags,
                                     r->OffsetInDescriptorsFromTableStart};
}

/* Parameter p of any version as 1.1, its table pointing nowhere (range_at reads the ranges). */
static D3D12_ROOT_PARAMETER1 param_at(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, uint32_t p, int volatile10)
{
    if (desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_1)
        return desc->Desc_1_1.pParameters[p];
    const D3D12_ROOT_PARAMETER *src = &desc->Desc_1_0.pParameters[p];
    D3D12_ROOT_PARAMETER1 out = {.ParameterType = src->ParameterType, .ShaderVisibility = src->ShaderVisibility};
    switch (src->ParameterType) {
    case D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE:
        out.DescriptorTable.NumDescriptorRanges = src->DescriptorTable.NumDescriptorRanges;
        break;
    case D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS:
        out.Constants = src->Constants;
        break;
    default:
        out.Descriptor = (D3D12_ROOT_DESCRIPTOR1){src->Descriptor.ShaderRegister, src->Descriptor.RegisterSpace,
                                                  volatile10 ? D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE
                                                             : D3D12_ROOT_DESCRIPTOR_FLAG_NONE};
        break;
    }
    return out;
}

D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d12_rootsig_convert(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                                         D3D_ROOT_SIGNATURE_VERSION version)
{
    if ((version != D3D_ROOT_SIGNATURE_VERSION_1_0 && version != D3D_ROOT_SIGNATURE_VERSION_1_1) ||
        (desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_0 && desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_1))
        return NULL;
    counts n = count_desc(desc);
    void *pool;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *out = alloc_desc(version, n, &pool);
    if (!out)
        return NULL;
    int to11 = version == D3D_ROOT_SIGNATURE_VERSION_1_1;
    out->Desc_1_1.Flags = desc->Desc_1_1.Flags;
    if (n.samplers)
        memcpy((void *)out->Desc_1_1.pStaticSamplers, desc->Desc_1_1.pStaticSamplers,
               n.samplers * sizeof(D3D12_STATIC_SAMPLER_DESC));
    D3D12_DESCRIPTOR_RANGE1 *ranges11 = pool;
    D3D12_DESCRIPTOR_RANGE *ranges10 = pool;
    for (uint32_t p = 0; p < n.params; p++) {
        D3D12_ROOT_PARAMETER1 param = param_at(desc, p, to11);
        uint32_t count = param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE
                             ? param.DescriptorTable.NumDescriptorRanges : 0;
        if (to11) {
            if (param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
                param.DescriptorTable.pDescriptorRanges = count ? ranges11 : NULL;
                for (uint32_t i = 0; i < count; i++)
                    *ranges11++ = range_at(desc, p, i, 1);
            }
            ((D3D12_ROOT_PARAMETER1 *)out->Desc_1_1.pParameters)[p] = param;
            continue;
        }
        D3D12_ROOT_PARAMETER *dst = &((D3D12_ROOT_PARAMETER *)out->Desc_1_0.pParameters)[p];
        dst->ParameterType = param.ParameterType, dst->ShaderVisibility = param.ShaderVisibility;
        if (param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
            dst->DescriptorTable = (D3D12_ROOT_DESCRIPTOR_TABLE){count, count ? ranges10 : NULL};
            for (uint32_t i = 0; i < count; i++) {
                D3D12_DESCRIPTOR_RANGE1 r = range_at(desc, p, i, 0);
                *ranges10++ = (D3D12_DESCRIPTOR_RANGE){r.RangeType, r.NumDescriptors, r.BaseShaderRegister,
                                                       r.RegisterSpace, r.OffsetInDescriptorsFromTableStart};
            }
        } else if (param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
            dst->Constants = param.Constants;
        } else {
            dst->Descriptor = (D3D12_ROOT_DESCRIPTOR){param.Descriptor.ShaderRegister, param.Descriptor.RegisterSpace};
        }
    }
    return out;
}

/* ---- Writing ---- */

typedef struct writer {
    uint8_t *data;
    size_t size, capacity;
} writer;

static void put(writer *w, uint32_t value)
{
    if (w->size + 4 > w->capacity)
        return; /* sized exactly beforehand: cannot happen */
    for (unsigned i = 0; i < 4; i++)
        w->data[w->size++] = (uint8_t)(value >> (8 * i));
}

static void set(writer *w, size_t at, uint32_t value)
{
    for (unsigned i = 0; i < 4; i++)
        w->data[at + i] = (uint8_t)(value >> (8 * i));
}

static uint32_t float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

void *d12_rts0_write(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, size_t *size)
{
    if (desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_0 && desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_1)
        return NULL;
    int v11 = desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_1;
    counts n = count_desc(desc);
    size_t total = HEADER + 12 * (size_t)n.params + (v11 ? 24 : 20) * (size_t)n.ranges + SAMPLER_SIZE * n.samplers;
    for (uint32_t p = 0; p < n.params; p++) {
        D3D12_ROOT_PARAMETER1 param = param_at(desc, p, 0);
        total += param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE ? 8
               : param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS || v11 ? 12 : 8;
    }
    writer w = {malloc(total), 0, total};
    if (!w.data)
        return NULL;
    put(&w, desc->Version);
    put(&w, n.params);
    put(&w, HEADER);
    put(&w, n.samplers);
    put(&w, 0); /* the samplers' offset, set below */
    put(&w, desc->Desc_1_1.Flags);
    for (uint32_t p = 0; p < 3 * n.params; p++)
        put(&w, 0); /* parameter headers, set below */
    for (uint32_t p = 0; p < n.params; p++) {
        D3D12_ROOT_PARAMETER1 param = param_at(desc, p, 0);
        set(&w, HEADER + 12 * p, param.ParameterType);
        set(&w, HEADER + 12 * p + 4, param.ShaderVisibility);
        set(&w, HEADER + 12 * p + 8, (uint32_t)w.size);
        if (param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
            uint32_t count = param.DescriptorTable.NumDescriptorRanges;
            put(&w, count);
            put(&w, (uint32_t)w.size + 4);
            for (uint32_t i = 0; i < count; i++) {
                D3D12_DESCRIPTOR_RANGE1 r = range_at(desc, p, i, 0);
                put(&w, r.RangeType), put(&w, r.NumDescriptors), put(&w, r.BaseShaderRegister);
                put(&w, r.RegisterSpace);
                if (v11)
                    put(&w, r.Flags);
                put(&w, r.OffsetInDescriptorsFromTableStart);
            }
        } else if (param.ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
            put(&w, param.Constants.ShaderRegister), put(&w, param.Constants.RegisterSpace);
            put(&w, param.Constants.Num32BitValues);
        } else {
            put(&w, param.Descriptor.ShaderRegister), put(&w, param.Descriptor.RegisterSpace);
            if (v11)
                put(&w, param.Descriptor.Flags);
        }
    }
    set(&w, 16, (uint32_t)w.size);
    for (uint32_t i = 0; i < n.samplers; i++) {
        const D3D12_STATIC_SAMPLER_DESC *s = &desc->Desc_1_1.pStaticSamplers[i];
        put(&w, s->Filter), put(&w, s->AddressU), put(&w, s->AddressV), put(&w, s->AddressW);
        put(&w, float_bits(s->MipLODBias)), put(&w, s->MaxAnisotropy), put(&w, s->ComparisonFunc);
        put(&w, s->BorderColor), put(&w, float_bits(s->MinLOD)), put(&w, float_bits(s->MaxLOD));
        put(&w, s->ShaderRegister), put(&w, s->RegisterSpace), put(&w, s->ShaderVisibility);
    }
    *size = w.size;
    return w.data;
}

/* ---- Reading ---- */

/* `count` items of `item` bytes at `offset` lie inside `size` bytes. */
static int inside(size_t size, uint32_t offset, uint32_t count, uint32_t item)
{
    return offset <= size && (uint64_t)count * item <= size - offset;
}

static float read_float(const uint8_t *b, size_t at)
{
    uint32_t bits = d12_dxbc_u32(b, at);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Checks every offset and count; counts the ranges. */
static int scan(const uint8_t *b, size_t size, int v11, counts *n, char *error, size_t error_size)
{
    uint32_t params_at = d12_dxbc_u32(b, 8), samplers_at = d12_dxbc_u32(b, 16);
    n->params = d12_dxbc_u32(b, 4), n->samplers = d12_dxbc_u32(b, 12), n->ranges = 0;
    if (!inside(size, params_at, n->params, 12) || params_at % 4)
        return FAIL("RTS0: %u parameters at offset %u run past its %zu bytes", n->params,
                    params_at, size);
    if (!inside(size, samplers_at, n->samplers, SAMPLER_SIZE) || samplers_at % 4)
        return FAIL("RTS0: %u static samplers at offset %u run past its %zu bytes", n->samplers,
                    samplers_at, size);
    for (uint32_t p = 0; p < n->params; p++) {
        uint32_t type = d12_dxbc_u32(b, params_at + 12 * p), at = d12_dxbc_u32(b, params_at + 12 * p + 8);
        uint32_t payload = type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE ? 8
                         : type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS || v11 ? 12 : 8;
        if (type > D3D12_ROOT_PARAMETER_TYPE_UAV)
            return FAIL("RTS0: parameter %u has type %u", p, type);
        if (!inside(size, at, 1, payload) || at % 4)
            return FAIL("RTS0: parameter %u's payload at offset %u runs past the end", p, at);
        if (type != D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE)
            continue;
        uint32_t count = d12_dxbc_u32(b, at), ranges_at = d12_dxbc_u32(b, at + 4);
        if (!inside(size, ranges_at, count, v11 ? 24 : 20) || ranges_at % 4)
            return FAIL("RTS0: parameter %u's %u ranges at offset %u run past the end", p, count,
                        ranges_at);
        n->ranges += count; /* each range at least 20 bytes inside the blob: no overflow */
    }
    return 0;
}

static void read_param(const uint8_t *b, uint32_t header, int v11, D3D12_ROOT_PARAMETER1 *out,
                       D3D12_DESCRIPTOR_RANGE1 **pool)
{
    uint32_t at = d12_dxbc_u32(b, header + 8);
    out->ParameterType = d12_dxbc_u32(b, header);
    out->ShaderVisibility = d12_dxbc_u32(b, header + 4);
    if (out->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
        out->Constants = (D3D12_ROOT_CONSTANTS){d12_dxbc_u32(b, at), d12_dxbc_u32(b, at + 4), d12_dxbc_u32(b, at + 8)};
    } else if (out->ParameterType != D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
        out->Descriptor = (D3D12_ROOT_DESCRIPTOR1){d12_dxbc_u32(b, at), d12_dxbc_u32(b, at + 4),
                                                   v11 ? d12_dxbc_u32(b, at + 8) : 0};
    } else {
        uint32_t count = d12_dxbc_u32(b, at), r = d12_dxbc_u32(b, at + 4), stride = v11 ? 24 : 20;
        out->DescriptorTable = (D3D12_ROOT_DESCRIPTOR_TABLE1){count, count ? *pool : NULL};
        for (uint32_t i = 0; i < count; i++, r += stride) {
            D3D12_DESCRIPTOR_RANGE1 *range = (*pool)++;
            range->RangeType = d12_dxbc_u32(b, r), range->NumDescriptors = d12_dxbc_u32(b, r + 4);
            range->BaseShaderRegister = d12_dxbc_u32(b, r + 8), range->RegisterSpace = d12_dxbc_u32(b, r + 12);
            range->Flags = v11 ? d12_dxbc_u32(b, r + 16) : 0;
            range->OffsetInDescriptorsFromTableStart = d12_dxbc_u32(b, r + (v11 ? 20 : 16));
        }
    }
}

int d12_rts0_parse(const void *data, size_t size, D3D12_VERSIONED_ROOT_SIGNATURE_DESC **out, char *error,
                   size_t error_size)
{
    const uint8_t *b = data;
    *out = NULL;
    if (!data || size < HEADER)
        return FAIL("RTS0: %zu bytes, smaller than its 24-byte header", data ? size : 0);
    uint32_t version = d12_dxbc_u32(b, 0);
    if (version != D3D_ROOT_SIGNATURE_VERSION_1_0 && version != D3D_ROOT_SIGNATURE_VERSION_1_1)
        return FAIL("RTS0: version %u (1 = 1.0 and 2 = 1.1 are known)", version);
    int v11 = version == D3D_ROOT_SIGNATURE_VERSION_1_1;
    counts n;
    if (scan(b, size, v11, &n, error, error_size))
        return -1;
    void *pool;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc = alloc_desc(D3D_ROOT_SIGNATURE_VERSION_1_1, n, &pool);
    if (!desc)
        return FAIL("RTS0: out of memory");
    desc->Desc_1_1.Flags = d12_dxbc_u32(b, 20);
    D3D12_DESCRIPTOR_RANGE1 *ranges = pool;
    uint32_t params_at = d12_dxbc_u32(b, 8), samplers_at = d12_dxbc_u32(b, 16);
    for (uint32_t p = 0; p < n.params; p++)
        read_param(b, params_at + 12 * p, v11, (D3D12_ROOT_PARAMETER1 *)&desc->Desc_1_1.pParameters[p], &ranges);
    for (uint32_t i = 0; i < n.samplers; i++) {
        size_t at = samplers_at + (size_t)SAMPLER_SIZE * i;
        D3D12_STATIC_SAMPLER_DESC *s = (D3D12_STATIC_SAMPLER_DESC *)&desc->Desc_1_1.pStaticSamplers[i];
        s->Filter = d12_dxbc_u32(b, at), s->AddressU = d12_dxbc_u32(b, at + 4);
        s->AddressV = d12_dxbc_u32(b, at + 8), s->AddressW = d12_dxbc_u32(b, at + 12);
        s->MipLODBias = read_float(b, at + 16), s->MaxAnisotropy = d12_dxbc_u32(b, at + 20);
        s->ComparisonFunc = d12_dxbc_u32(b, at + 24), s->BorderColor = d12_dxbc_u32(b, at + 28);
        s->MinLOD = read_float(b, at + 32), s->MaxLOD = read_float(b, at + 36);
        s->ShaderRegister = d12_dxbc_u32(b, at + 40), s->RegisterSpace = d12_dxbc_u32(b, at + 44);
        s->ShaderVisibility = d12_dxbc_u32(b, at + 48);
    }
    if (v11) {
        *out = desc;
        return 0;
    }
    *out = d12_rootsig_convert(desc, D3D_ROOT_SIGNATURE_VERSION_1_0); /* the blob's own version, flags dropped */
    free(desc);
    return *out ? 0 : FAIL("RTS0: out of memory");
}
