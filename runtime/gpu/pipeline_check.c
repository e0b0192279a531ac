/* The runtime's checks of a compute pipeline state's shader and root signature (pipeline_check.h,
 * docs/pipelines.md). The rules are D3D12's (the debug layer's CREATECOMPUTEPIPELINESTATE_* messages); the words
 * of "Root Signature doesn't match Compute Shader: ..." follow the debug layer's own. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_check.h"

#define TAG_DXIL D12_DXBC_TAG('D', 'X', 'I', 'L')
#define PROGRAM_TYPE_COMPUTE 5u /* D3D11_SB_COMPUTE_SHADER */

static HRESULT refuse(d12_pipeline_problem *problem, D3D12_MESSAGE_ID id, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    problem->id = id;
    vsnprintf(problem->text, sizeof problem->text, format, args);
    va_end(args);
    return E_INVALIDARG;
}

/* ---- The bytecode ---- */

static const char *program_type_name(uint32_t type)
{
    static const char *const k_names[] = {"pixel", "vertex", "geometry", "hull", "domain", "compute"};
    return type < sizeof k_names / sizeof k_names[0] ? k_names[type] : "unknown";
}

HRESULT d12__pipeline_read_shader(const D3D12_SHADER_BYTECODE *bytecode, d12_pipeline_shader *out,
                                  d12_pipeline_problem *problem)
{
    const D3D12_MESSAGE_ID invalid = D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER;
    memset(out, 0, sizeof *out);
    if (!bytecode->pShaderBytecode || bytecode->BytecodeLength == 0)
        return refuse(problem, invalid, "the compute shader's bytecode is %s",
                      bytecode->pShaderBytecode ? "empty (BytecodeLength 0)" : "NULL");
    d12_dxbc dxbc;
    char error[256];
    if (d12_dxbc_parse(bytecode->pShaderBytecode, bytecode->BytecodeLength, &dxbc, error, sizeof error) != 0)
        return refuse(problem, invalid, "the compute shader's bytecode is no valid DXBC container (%s)", error);
    bool has_program = d12_dxbc_find(&dxbc, D12_DXBC_TAG_SHEX) || d12_dxbc_find(&dxbc, D12_DXBC_TAG_SHDR);
    if (d12_dxbc_find(&dxbc, TAG_DXIL) && !has_program)
        return refuse(problem, invalid, "the compute shader is DXIL (shader model 6); d12rt's drivers compile DXBC "
                      "shaders of model 5.0 and 5.1 only (vkd3d-shader 1.2 has no DXIL front end)");
    if (!has_program)
        return refuse(problem, invalid, "the compute shader's container has no SHEX or SHDR chunk (no program)");
    if (d12_dxbc_program_parse(&dxbc, &out->program, error, sizeof error) != 0)
        return refuse(problem, invalid, "the compute shader's program is malformed (%s)", error);
    HRESULT hr = S_OK;
    if (out->program.type != PROGRAM_TYPE_COMPUTE)
        hr = refuse(problem, invalid, "the shader is a %s shader, not a compute shader",
                    program_type_name(out->program.type));
    else if (out->program.major != 5 || out->program.minor > 1)
        hr = refuse(problem, invalid, "the compute shader is of model %u.%u; d12rt's drivers take 5.0 and 5.1",
                    out->program.major, out->program.minor);
    if (FAILED(hr)) {
        d12__pipeline_shader_free(out);
        return hr;
    }
    const d12_dxbc_chunk *rts0 = d12_dxbc_find(&dxbc, D12_DXBC_TAG_RTS0);
    out->rts0 = rts0 ? rts0->data : NULL;
    out->rts0_size = rts0 ? rts0->size : 0;
    return S_OK;
}

void d12__pipeline_shader_free(d12_pipeline_shader *shader)
{
    d12_dxbc_program_free(&shader->program);
    memset(shader, 0, sizeof *shader);
}

/* ---- Registers against the root signature ---- */

/* One declared register range, as the root signature is searched for it. */
typedef struct wanted {
    const d12_dxbc_binding *declared;
    D3D12_DESCRIPTOR_RANGE_TYPE range_type;
    char letter;
} wanted;

static bool visible(D3D12_SHADER_VISIBILITY visibility)
{
    return visibility == D3D12_SHADER_VISIBILITY_ALL; /* the compute stage sees ALL parameters only */
}

/* The end (exclusive, as uint64) of a table range covering `reg`, or 0 when the range does not. */
static uint64_t range_covers(const D3D12_DESCRIPTOR_RANGE1 *range, const wanted *w, uint32_t reg)
{
    if (range->RangeType != w->range_type || range->RegisterSpace != w->declared->space ||
        reg < range->BaseShaderRegister)
        return 0;
    uint64_t end = range->NumDescriptors == UINT_MAX ? (uint64_t)UINT32_MAX + 2
                                                      : (uint64_t)range->BaseShaderRegister + range->NumDescriptors;
    return reg < end ? end : 0;
}

/* A 1.0 range as 1.1 (the flags do not matter here). */
static D3D12_DESCRIPTOR_RANGE1 range_1_1(const D3D12_DESCRIPTOR_RANGE *r)
{
    return (D3D12_DESCRIPTOR_RANGE1){r->RangeType, r->NumDescriptors, r->BaseShaderRegister, r->RegisterSpace,
                                     D3D12_DESCRIPTOR_RANGE_FLAG_NONE, r->OffsetInDescriptorsFromTableStart};
}

/* The registers from `reg` a table of either version covers (exclusive end), or 0. */
static uint64_t table_covers(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, UINT p, const wanted *w, uint32_t reg)
{
    uint64_t best = 0;
    if (desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_0) {
        const D3D12_ROOT_DESCRIPTOR_TABLE *t = &desc->Desc_1_0.pParameters[p].DescriptorTable;
        for (UINT i = 0; i < t->NumDescriptorRanges; i++) {
            D3D12_DESCRIPTOR_RANGE1 r = range_1_1(&t->pDescriptorRanges[i]);
            uint64_t end = range_covers(&r, w, reg);
            best = end > best ? end : best;
        }
    } else {
        const D3D12_ROOT_DESCRIPTOR_TABLE1 *t = &desc->Desc_1_1.pParameters[p].DescriptorTable;
        for (UINT i = 0; i < t->NumDescriptorRanges; i++) {
            uint64_t end = range_covers(&t->pDescriptorRanges[i], w, reg);
            best = end > best ? end : best;
        }
    }
    return best;
}

/* The parts of a root parameter both versions share. */
typedef struct parameter {
    D3D12_ROOT_PARAMETER_TYPE type;
    D3D12_SHADER_VISIBILITY visibility;
    UINT reg, space, values; /* root views and constants */
} parameter;

static parameter parameter_at(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, UINT p)
{
    if (desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_0) {
        const D3D12_ROOT_PARAMETER *r = &desc->Desc_1_0.pParameters[p];
        if (r->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS)
            return (parameter){r->ParameterType, r->ShaderVisibility, r->Constants.ShaderRegister,
                               r->Constants.RegisterSpace, r->Constants.Num32BitValues};
        return (parameter){r->ParameterType, r->ShaderVisibility, r->Descriptor.ShaderRegister,
                           r->Descriptor.RegisterSpace, 0};
    }
    const D3D12_ROOT_PARAMETER1 *r = &desc->Desc_1_1.pParameters[p];
    if (r->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS)
        return (parameter){r->ParameterType, r->ShaderVisibility, r->Constants.ShaderRegister,
                           r->Constants.RegisterSpace, r->Constants.Num32BitValues};
    return (parameter){r->ParameterType, r->ShaderVisibility, r->Descriptor.ShaderRegister,
                       r->Descriptor.RegisterSpace, 0};
}

static D3D12_ROOT_PARAMETER_TYPE root_view_type(d12_dxbc_binding_kind kind)
{
    return kind == D12_DXBC_CBV ? D3D12_ROOT_PARAMETER_TYPE_CBV
           : kind == D12_DXBC_SRV ? D3D12_ROOT_PARAMETER_TYPE_SRV
                                  : D3D12_ROOT_PARAMETER_TYPE_UAV;
}

/* Which root parameter binds register `reg` of `w`: its index, and in *end the first register after what it
 * covers; UINT_MAX when none. A root view or constants parameter that binds it wrongly is a problem of its own. */
static UINT find_binding(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, const wanted *w, uint32_t reg,
                         uint64_t *end, HRESULT *hr, d12_pipeline_problem *problem)
{
    const d12_dxbc_binding *d = w->declared;
    UINT count = desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_0 ? desc->Desc_1_0.NumParameters
                                                                  : desc->Desc_1_1.NumParameters;
    const D3D12_MESSAGE_ID mismatch = D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH;
    for (UINT p = 0; p < count; p++) {
        parameter param = parameter_at(desc, p);
        if (!visible(param.visibility))
            continue;
        if (param.type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
            if ((*end = table_covers(desc, p, w, reg)) != 0)
                return p;
            continue;
        }
        if (param.reg != reg || param.space != d->space)
            continue;
        if (param.type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS && d->kind == D12_DXBC_CBV) {
            if ((uint64_t)d->size * 4 > param.values)
                *hr = refuse(problem, mismatch, "Root Signature doesn't match Compute Shader: the shader's constant "
                             "buffer b%u (space %u) holds %u 32-bit values, but root parameter %u binds only %u root "
                             "constants there", reg, d->space, d->size * 4, p, param.values);
        } else if (param.type == root_view_type(d->kind) && d->kind != D12_DXBC_SAMPLER) {
            if (d->kind != D12_DXBC_CBV && d->resource == D12_DXBC_RESOURCE_TYPED)
                *hr = refuse(problem, mismatch, "Root Signature doesn't match Compute Shader: %c%u (space %u) is a "
                             "typed buffer, but root parameter %u is a root descriptor, and SRV or UAV root "
                             "descriptors can only be Raw or Structured buffers", w->letter, reg, d->space, p);
        } else {
            continue;
        }
        *end = (uint64_t)reg + 1;
        return p;
    }
    return UINT_MAX;
}

static bool static_sampler_binds(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, uint32_t space, uint32_t reg)
{
    bool v10 = desc->Version == D3D_ROOT_SIGNATURE_VERSION_1_0;
    UINT count = v10 ? desc->Desc_1_0.NumStaticSamplers : desc->Desc_1_1.NumStaticSamplers;
    const D3D12_STATIC_SAMPLER_DESC *samplers = v10 ? desc->Desc_1_0.pStaticSamplers : desc->Desc_1_1.pStaticSamplers;
    for (UINT i = 0; i < count; i++)
        if (samplers[i].ShaderRegister == reg && samplers[i].RegisterSpace == space &&
            visible(samplers[i].ShaderVisibility))
            return true;
    return false;
}

static HRESULT check_one(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, const wanted *w,
                         d12_pipeline_problem *problem)
{
    const d12_dxbc_binding *d = w->declared;
    if (d->kind == D12_DXBC_SAMPLER && d->lower == d->upper && static_sampler_binds(desc, d->space, d->lower))
        return S_OK;
    /* Every register of the declaration, range by range (a jump per covering range, not per register). */
    uint64_t last = d->upper == D12_DXBC_UNBOUNDED ? (uint64_t)UINT32_MAX + 1 : d->upper;
    for (uint64_t reg = d->lower; reg <= last;) {
        uint64_t end = 0;
        HRESULT hr = S_OK;
        UINT p = reg <= UINT32_MAX ? find_binding(desc, w, (uint32_t)reg, &end, &hr, problem) : UINT_MAX;
        if (FAILED(hr))
            return hr;
        if (p == UINT_MAX) {
            char range[64] = "";
            if (d->upper == D12_DXBC_UNBOUNDED)
                snprintf(range, sizeof range, " of the unbounded range %c%u..", w->letter, d->lower);
            else if (d->lower != d->upper)
                snprintf(range, sizeof range, " of the range %c%u..%c%u", w->letter, d->lower, w->letter, d->upper);
            return refuse(problem, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH,
                          "Root Signature doesn't match Compute Shader: the shader uses %c%llu (space %u)%s, which "
                          "no root parameter visible to the compute shader binds", w->letter,
                          (unsigned long long)(reg <= UINT32_MAX ? reg : d->lower), d->space, range);
        }
        reg = end;
    }
    return S_OK;
}

HRESULT d12__pipeline_check_registers(const d12_dxbc_program *program, const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                      d12_pipeline_problem *problem)
{
    static const D3D12_DESCRIPTOR_RANGE_TYPE k_types[] = {D3D12_DESCRIPTOR_RANGE_TYPE_CBV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_SRV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_UAV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER};
    static const char k_letters[] = {'b', 't', 'u', 's'};
    for (uint32_t i = 0; i < program->binding_count; i++) {
        const d12_dxbc_binding *d = &program->bindings[i];
        wanted w = {d, k_types[d->kind], k_letters[d->kind]};
        HRESULT hr = check_one(desc, &w, problem);
        if (FAILED(hr))
            return hr;
    }
    return S_OK;
}
