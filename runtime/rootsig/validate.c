/* The debug layer's checks of a root signature description, as D3D12SerializeVersionedRootSignature and
 * CreateRootSignature make them (docs/root-signatures.md "Validation"). Structure first (version, pointers, enum
 * values: what the rest may rely on), then on the description converted to 1.1: the 64-DWORD size, tables, ranges,
 * register overlap across parameters and static samplers whose visibilities meet, static samplers, flags and, for
 * a 1.1 description, the flag rules of "Root Signature Version 1.1". The first problem found is the one reported. */
#include "rootsig.h"

#include "dxbc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DWORDS 64u         /* D3D12_MAX_ROOT_COST */
#define RESERVED_SPACE 0xFFFFFFF0u /* register spaces 0xFFFFFFF0 and above are reserved */
#define KNOWN_FLAGS 0xFFFu     /* every D3D12_ROOT_SIGNATURE_FLAGS bit of DirectX-Headers 1.606 */
#define DIRECTLY_INDEXED (D3D12_ROOT_SIGNATURE_FLAG_CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED | \
                          D3D12_ROOT_SIGNATURE_FLAG_SAMPLER_HEAP_DIRECTLY_INDEXED)
#define RANGE_DATA_FLAGS (D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE | \
                          D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE | \
                          D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC)
#define RANGE_FLAGS (RANGE_DATA_FLAGS | D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | \
                     D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS)
#define ROOT_DESCRIPTOR_FLAGS (D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE | \
                               D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE | \
                               D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC)

static HRESULT problem_at(d12_rootsig_problem *p, D3D12_MESSAGE_ID id, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    p->id = id;
    vsnprintf(p->text, sizeof p->text, format, args);
    va_end(args);
    return E_INVALIDARG;
}

#define INVALID(p, ...) problem_at(p, D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_INVALID_CONFIGURATION, __VA_ARGS__)

static int one_bit_at_most(UINT v)
{
    return (v & (v - 1)) == 0;
}

/* ---- Structure: on the description as given (1.0 and 1.1 parameters have the same size and table layout) ---- */

static HRESULT check_structure(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, d12_rootsig_problem *p)
{
    if (desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_0 && desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_1)
        return INVALID(p, "Root signature version %u is neither 1.0 (1) nor 1.1 (2).", desc->Version);
    const D3D12_ROOT_SIGNATURE_DESC1 *d = &desc->Desc_1_1;
    _Static_assert(sizeof(D3D12_ROOT_PARAMETER) == sizeof(D3D12_ROOT_PARAMETER1), "same parameter size");
    if (d->NumParameters && !d->pParameters)
        return INVALID(p, "NumParameters is %u but pParameters is NULL.", d->NumParameters);
    if (d->NumStaticSamplers && !d->pStaticSamplers)
        return INVALID(p, "NumStaticSamplers is %u but pStaticSamplers is NULL.", d->NumStaticSamplers);
    for (UINT i = 0; i < d->NumParameters; i++) {
        const D3D12_ROOT_PARAMETER1 *param = &d->pParameters[i];
        if ((UINT)param->ParameterType > D3D12_ROOT_PARAMETER_TYPE_UAV)
            return INVALID(p, "Root parameter [%u]: parameter type %u is not a D3D12_ROOT_PARAMETER_TYPE.", i,
                           param->ParameterType);
        if ((UINT)param->ShaderVisibility > D3D12_SHADER_VISIBILITY_MESH)
            return INVALID(p, "Root parameter [%u]: shader visibility %u is not a D3D12_SHADER_VISIBILITY.", i,
                           param->ShaderVisibility);
        if (param->ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE &&
            param->DescriptorTable.NumDescriptorRanges && !param->DescriptorTable.pDescriptorRanges)
            return INVALID(p, "Root parameter [%u]: NumDescriptorRanges is %u but pDescriptorRanges is NULL.", i,
                           param->DescriptorTable.NumDescriptorRanges);
    }
    return S_OK;
}

/* ---- Registers: every binding of the root signature, checked for overlap ---- */

typedef struct binding {
    UINT cls; /* D3D12_DESCRIPTOR_RANGE_TYPE: the register class (b, t, u, s) */
    UINT space, lo, hi, visibility;
    UINT parameter; /* or NumParameters + sampler index */
} binding;

static const char *class_name(UINT cls)
{
    static const char *names[] = {"SRV (t)", "UAV (u)", "CBV (b)", "sampler (s)"};
    return names[cls];
}

static int compare_bindings(const void *a, const void *b)
{
    const binding *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->space != y->space)
        return x->space < y->space ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int visible_together(UINT a, UINT b)
{
    return a == D3D12_SHADER_VISIBILITY_ALL || b == D3D12_SHADER_VISIBILITY_ALL || a == b;
}

static void describe(char *out, size_t size, const binding *b, UINT parameters)
{
    if (b->parameter >= parameters)
        snprintf(out, size, "static sampler [%u]", b->parameter - parameters);
    else
        snprintf(out, size, "root parameter [%u]", b->parameter);
}

static HRESULT check_overlap(binding *all, size_t count, UINT parameters, d12_rootsig_problem *p)
{
    qsort(all, count, sizeof *all, compare_bindings);
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count && all[j].cls == all[i].cls && all[j].space == all[i].space &&
                               all[j].lo <= all[i].hi; j++) {
            if (!visible_together(all[i].visibility, all[j].visibility))
                continue;
            char a[48], b[48];
            describe(a, sizeof a, &all[i], parameters);
            describe(b, sizeof b, &all[j], parameters);
            return INVALID(p, "Shader register ranges overlap: %s registers %u..%u of %s and %u..%u of %s, in "
                              "space %u, are visible to the same shader stage.", class_name(all[i].cls),
                           all[i].lo, all[i].hi, a, all[j].lo, all[j].hi, b, all[i].space);
        }
    return S_OK;
}

/* ---- Tables and ranges ---- */

static HRESULT check_range(const D3D12_DESCRIPTOR_RANGE1 *r, UINT param, UINT index, int v11,
                           d12_rootsig_problem *p)
{
    if ((UINT)r->RangeType > D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER)
        return INVALID(p, "Root parameter [%u] range [%u]: range type %u is not a D3D12_DESCRIPTOR_RANGE_TYPE.",
                       param, index, r->RangeType);
    if (r->NumDescriptors == 0)
        return INVALID(p, "Root parameter [%u] range [%u]: NumDescriptors is 0.", param, index);
    if (r->NumDescriptors != UINT_MAX && r->BaseShaderRegister > UINT_MAX - (r->NumDescriptors - 1))
        return INVALID(p, "Root parameter [%u] range [%u]: registers %u + %u descriptors pass 0xFFFFFFFF.", param,
                       index, r->BaseShaderRegister, r->NumDescriptors);
    if (r->RegisterSpace >= RESERVED_SPACE)
        return INVALID(p, "Root parameter [%u] range [%u]: register space 0x%X is reserved (0xFFFFFFF0 and above).",
                       param, index, r->RegisterSpace);
    if (!v11)
        return S_OK;
    /* "Root Signature Version 1.1": the flags of a range. */
    UINT f = r->Flags;
    if (f & ~RANGE_FLAGS)
        return INVALID(p, "Root parameter [%u] range [%u]: unknown flags 0x%X.", param, index, f & ~RANGE_FLAGS);
    if (r->RangeType == D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER &&
        (f & ~(UINT)D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE))
        return INVALID(p, "Root parameter [%u] range [%u]: a sampler range takes no flag but DESCRIPTORS_VOLATILE "
                          "(flags 0x%X).", param, index, f);
    if (!one_bit_at_most(f & RANGE_DATA_FLAGS))
        return INVALID(p, "Root parameter [%u] range [%u]: DATA_VOLATILE, DATA_STATIC_WHILE_SET_AT_EXECUTE and "
                          "DATA_STATIC are mutually exclusive (flags 0x%X).", param, index, f);
    if ((f & D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS) &&
        (f & D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE))
        return INVALID(p, "Root parameter [%u] range [%u]: DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS cannot "
                          "be combined with DESCRIPTORS_VOLATILE.", param, index);
    return S_OK;
}

static HRESULT check_table(const D3D12_ROOT_PARAMETER1 *param, UINT index, int v11, binding *out, size_t *count,
                           d12_rootsig_problem *p)
{
    const D3D12_ROOT_DESCRIPTOR_TABLE1 *t = &param->DescriptorTable;
    if (t->NumDescriptorRanges == 0)
        return INVALID(p, "Root parameter [%u]: a descriptor table with no ranges.", index);
    int samplers = 0, others = 0, after_unbounded = 0;
    for (UINT i = 0; i < t->NumDescriptorRanges; i++) {
        const D3D12_DESCRIPTOR_RANGE1 *r = &t->pDescriptorRanges[i];
        HRESULT hr = check_range(r, index, i, v11, p);
        if (FAILED(hr))
            return hr;
        *(r->RangeType == D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER ? &samplers : &others) += 1;
        if (samplers && others)
            return INVALID(p, "Root parameter [%u]: a descriptor table cannot mix sampler ranges with CBV, SRV "
                              "and UAV ranges.", index);
        if (after_unbounded && r->OffsetInDescriptorsFromTableStart == D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND)
            return INVALID(p, "Root parameter [%u] range [%u]: appended after an unbounded range.", index, i);
        after_unbounded = r->NumDescriptors == UINT_MAX;
        out[(*count)++] = (binding){r->RangeType, r->RegisterSpace, r->BaseShaderRegister,
                                    r->NumDescriptors == UINT_MAX ? UINT_MAX
                                                                  : r->BaseShaderRegister + r->NumDescriptors - 1,
                                    param->ShaderVisibility, index};
    }
    return S_OK;
}

/* ---- Parameters ---- */

UINT d12__rootsig_parameter_dwords(const D3D12_ROOT_PARAMETER1 *param)
{
    switch (param->ParameterType) {
    case D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE:
        return 1;
    case D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS: /* capped: a huge count must not wrap the sum */
        return param->Constants.Num32BitValues > MAX_DWORDS ? MAX_DWORDS + 1 : param->Constants.Num32BitValues;
    default:
        return 2; /* a GPU virtual address */
    }
}

static HRESULT check_parameter(const D3D12_ROOT_PARAMETER1 *param, UINT index, int v11, UINT *dwords,
                               binding *out, size_t *count, d12_rootsig_problem *p)
{
    static const UINT cls[] = {0, D3D12_DESCRIPTOR_RANGE_TYPE_CBV, D3D12_DESCRIPTOR_RANGE_TYPE_CBV,
                               D3D12_DESCRIPTOR_RANGE_TYPE_SRV, D3D12_DESCRIPTOR_RANGE_TYPE_UAV};
    *dwords += d12__rootsig_parameter_dwords(param);
    switch (param->ParameterType) {
    case D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE:
        return check_table(param, index, v11, out, count, p);
    case D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS:
        if (param->Constants.RegisterSpace >= RESERVED_SPACE)
            return INVALID(p, "Root parameter [%u]: register space 0x%X is reserved (0xFFFFFFF0 and above).",
                           index, param->Constants.RegisterSpace);
        out[(*count)++] = (binding){cls[param->ParameterType], param->Constants.RegisterSpace,
                                    param->Constants.ShaderRegister, param->Constants.ShaderRegister,
                                    param->ShaderVisibility, index};
        return S_OK;
    default:
        if (param->Descriptor.RegisterSpace >= RESERVED_SPACE)
            return INVALID(p, "Root parameter [%u]: register space 0x%X is reserved (0xFFFFFFF0 and above).",
                           index, param->Descriptor.RegisterSpace);
        if (v11 && (param->Descriptor.Flags & ~ROOT_DESCRIPTOR_FLAGS))
            return INVALID(p, "Root parameter [%u]: unknown root descriptor flags 0x%X.", index,
                           param->Descriptor.Flags & ~ROOT_DESCRIPTOR_FLAGS);
        if (v11 && !one_bit_at_most(param->Descriptor.Flags))
            return INVALID(p, "Root parameter [%u]: DATA_VOLATILE, DATA_STATIC_WHILE_SET_AT_EXECUTE and DATA_STATIC "
                              "are mutually exclusive (flags 0x%X).", index, param->Descriptor.Flags);
        out[(*count)++] = (binding){cls[param->ParameterType], param->Descriptor.RegisterSpace,
                                    param->Descriptor.ShaderRegister, param->Descriptor.ShaderRegister,
                                    param->ShaderVisibility, index};
        return S_OK;
    }
}

/* ---- Static samplers (the rules of a sampler desc, with a border color of the static enum) ---- */

static int is_address_mode(UINT m)
{
    return m >= D3D12_TEXTURE_ADDRESS_MODE_WRAP && m <= D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE;
}

static HRESULT check_sampler(const D3D12_STATIC_SAMPLER_DESC *s, UINT index, d12_rootsig_problem *p)
{
    if ((UINT)s->ShaderVisibility > D3D12_SHADER_VISIBILITY_MESH)
        return INVALID(p, "Static sampler [%u]: shader visibility %u is not a D3D12_SHADER_VISIBILITY.", index,
                       s->ShaderVisibility);
    if (!is_address_mode(s->AddressU) || !is_address_mode(s->AddressV) || !is_address_mode(s->AddressW))
        return INVALID(p, "Static sampler [%u]: address modes %u, %u, %u (each a D3D12_TEXTURE_ADDRESS_MODE).", index,
                       s->AddressU, s->AddressV, s->AddressW);
    UINT reduction = ((UINT)s->Filter >> 7) & 3;
    if (reduction == 1 && (s->ComparisonFunc < D3D12_COMPARISON_FUNC_NEVER ||
                           s->ComparisonFunc > D3D12_COMPARISON_FUNC_ALWAYS))
        return INVALID(p, "Static sampler [%u]: comparison function %u with a comparison filter.", index,
                       s->ComparisonFunc);
    if (((UINT)s->Filter & 0x40) && (s->MaxAnisotropy < 1 || s->MaxAnisotropy > 16))
        return INVALID(p, "Static sampler [%u]: MaxAnisotropy %u with an anisotropic filter (1 to 16).", index,
                       s->MaxAnisotropy);
    if ((UINT)s->BorderColor > D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE_UINT)
        return INVALID(p, "Static sampler [%u]: border color %u is not a D3D12_STATIC_BORDER_COLOR.", index,
                       s->BorderColor);
    if (isnan(s->MipLODBias) || isnan(s->MinLOD) || isnan(s->MaxLOD))
        return INVALID(p, "Static sampler [%u]: MinLOD %g, MaxLOD %g, MipLODBias %g (numbers, not NaN).",
                       index, s->MinLOD, s->MaxLOD, s->MipLODBias);
    if (s->RegisterSpace >= RESERVED_SPACE)
        return INVALID(p, "Static sampler [%u]: register space 0x%X is reserved (0xFFFFFFF0 and above).", index,
                       s->RegisterSpace);
    return S_OK;
}

static size_t count_bindings(const D3D12_ROOT_SIGNATURE_DESC1 *d)
{
    size_t n = d->NumStaticSamplers;
    for (UINT i = 0; i < d->NumParameters; i++)
        n += d->pParameters[i].ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE
                 ? d->pParameters[i].DescriptorTable.NumDescriptorRanges : 1;
    return n;
}

static HRESULT check_desc(const D3D12_ROOT_SIGNATURE_DESC1 *d, int v11, binding *all, d12_rootsig_problem *p)
{
    if (d->Flags & ~KNOWN_FLAGS)
        return INVALID(p, "Unknown root signature flags 0x%X.", d->Flags & ~KNOWN_FLAGS);
    size_t count = 0;
    UINT dwords = 0;
    for (UINT i = 0; i < d->NumParameters; i++) {
        HRESULT hr = check_parameter(&d->pParameters[i], i, v11, &dwords, all, &count, p);
        if (FAILED(hr))
            return hr;
        if (dwords > MAX_DWORDS)
            return INVALID(p, "Root signature of more than 64 DWORDs (%u at root parameter [%u]): a table costs 1, "
                              "a root descriptor 2 and a root constant 1.", dwords, i);
    }
    for (UINT i = 0; i < d->NumStaticSamplers; i++) {
        const D3D12_STATIC_SAMPLER_DESC *s = &d->pStaticSamplers[i];
        HRESULT hr = check_sampler(s, i, p);
        if (FAILED(hr))
            return hr;
        all[count++] = (binding){D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, s->RegisterSpace, s->ShaderRegister,
                                 s->ShaderRegister, s->ShaderVisibility, d->NumParameters + i};
    }
    return check_overlap(all, count, d->NumParameters, p);
}

HRESULT d12__rootsig_validate(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, int device_checks,
                              d12_rootsig_problem *problem)
{
    if (!desc)
        return INVALID(problem, "The root signature description is NULL.");
    HRESULT hr = check_structure(desc, problem);
    if (FAILED(hr))
        return hr;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *as11 = d12_rootsig_convert(desc, D3D_ROOT_SIGNATURE_VERSION_1_1);
    binding *all = as11 ? malloc((count_bindings(&as11->Desc_1_1) + 1) * sizeof *all) : NULL;
    if (!all) {
        free(as11);
        problem_at(problem, D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_INVALID_CONFIGURATION, "Out of memory.");
        return E_OUTOFMEMORY;
    }
    hr = check_desc(&as11->Desc_1_1, desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_1, all, problem);
    /* d3d12.h: the heap-indexing flags need shader model 6.6 (HLSL's ResourceDescriptorHeap); d12rt's drivers
     * take DXBC (5.1 at most), so a device refuses them (issue 30). Serializing them is the device's business. */
    if (SUCCEEDED(hr) && device_checks && (as11->Desc_1_1.Flags & DIRECTLY_INDEXED))
        hr = problem_at(problem, D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_NOT_SUPPORTED_ON_DEVICE,
                        "Root signature flags 0x%X: CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED and "
                        "SAMPLER_HEAP_DIRECTLY_INDEXED need shader model 6.6, which this device does not offer.",
                        as11->Desc_1_1.Flags & DIRECTLY_INDEXED);
    free(all);
    free(as11);
    return hr;
}
