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

static const char k_letters[] = {'b', 't', 'u', 's'};

/* What D3D12 asks of the parameter that binds a register beyond binding it: root constants that hold the whole
 * constant buffer; a root SRV/UAV only for raw or structured buffers. */
static HRESULT check_binding(const D3D12_ROOT_SIGNATURE_DESC1 *desc, const d12_dxbc_binding *d, uint32_t reg,
                             const d12_rootsig_location *where, d12_pipeline_problem *problem)
{
    const D3D12_MESSAGE_ID mismatch = D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH;
    if (where->type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS && where->parameter != UINT_MAX) {
        UINT values = desc->pParameters[where->parameter].Constants.Num32BitValues;
        if ((uint64_t)d->size * 4 > values)
            return refuse(problem, mismatch, "Root Signature doesn't match Compute Shader: the shader's constant "
                          "buffer b%u (space %u) holds %u 32-bit values, but root parameter %u binds only %u root "
                          "constants there", reg, d->space, d->size * 4, where->parameter, values);
    }
    if ((where->type == D3D12_ROOT_PARAMETER_TYPE_SRV || where->type == D3D12_ROOT_PARAMETER_TYPE_UAV) &&
        where->parameter != UINT_MAX && d->resource == D12_DXBC_RESOURCE_TYPED)
        return refuse(problem, mismatch, "Root Signature doesn't match Compute Shader: %c%u (space %u) is a typed "
                      "buffer, but root parameter %u is a root descriptor, and SRV or UAV root descriptors can only "
                      "be Raw or Structured buffers", k_letters[d->kind], reg, d->space, where->parameter);
    return S_OK;
}

static HRESULT check_one(const D3D12_ROOT_SIGNATURE_DESC1 *desc, const d12_dxbc_binding *d,
                         d12_pipeline_problem *problem)
{
    char letter = k_letters[d->kind];
    /* Every register of the declaration, range by range (a jump per covering range, not per register). */
    uint64_t last = d->upper == D12_DXBC_UNBOUNDED ? (uint64_t)UINT32_MAX + 1 : d->upper;
    for (uint64_t reg = d->lower; reg <= last;) {
        d12_rootsig_location where;
        if (reg > UINT32_MAX || d12_rootsig_locate(desc, d->kind, d->space, (uint32_t)reg, &where) != 0) {
            char range[64] = "";
            if (d->upper == D12_DXBC_UNBOUNDED)
                snprintf(range, sizeof range, " of the unbounded range %c%u..", letter, d->lower);
            else if (d->lower != d->upper)
                snprintf(range, sizeof range, " of the range %c%u..%c%u", letter, d->lower, letter, d->upper);
            return refuse(problem, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH,
                          "Root Signature doesn't match Compute Shader: the shader uses %c%llu (space %u)%s, which "
                          "no root parameter visible to the compute shader binds", letter,
                          (unsigned long long)(reg <= UINT32_MAX ? reg : d->lower), d->space, range);
        }
        HRESULT hr = check_binding(desc, d, (uint32_t)reg, &where, problem);
        if (FAILED(hr))
            return hr;
        reg = where.end;
    }
    return S_OK;
}

HRESULT d12__pipeline_check_registers(const d12_dxbc_program *program, const D3D12_ROOT_SIGNATURE_DESC1 *desc,
                                      d12_pipeline_problem *problem)
{
    for (uint32_t i = 0; i < program->binding_count; i++) {
        HRESULT hr = check_one(desc, &program->bindings[i], problem);
        if (FAILED(hr))
            return hr;
    }
    return S_OK;
}
