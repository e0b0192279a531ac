/* Which root parameter binds a shader register (dxbc.h, "Locating a register"): the one rule the runtime's pipeline
 * checks, both drivers' pipelines and their dispatch-time resolution share (docs/pipelines.md). */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "dxbc.h"

static D3D12_DESCRIPTOR_RANGE_TYPE range_type_of(d12_dxbc_binding_kind kind)
{
    static const D3D12_DESCRIPTOR_RANGE_TYPE k_types[] = {
        D3D12_DESCRIPTOR_RANGE_TYPE_CBV, D3D12_DESCRIPTOR_RANGE_TYPE_SRV, D3D12_DESCRIPTOR_RANGE_TYPE_UAV,
        D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER};
    return k_types[kind];
}

static D3D12_ROOT_PARAMETER_TYPE root_view_type_of(d12_dxbc_binding_kind kind)
{
    return kind == D12_DXBC_CBV ? D3D12_ROOT_PARAMETER_TYPE_CBV
           : kind == D12_DXBC_SRV ? D3D12_ROOT_PARAMETER_TYPE_SRV
                                  : D3D12_ROOT_PARAMETER_TYPE_UAV;
}

/* A table's ranges: the one covering `reg`, its descriptor offset from the table's start (APPEND ranges follow
 * the previous range's end, as D3D12 lays them out). */
static bool locate_in_table(const D3D12_ROOT_DESCRIPTOR_TABLE1 *table, d12_dxbc_binding_kind kind, uint32_t space,
                            uint32_t reg, d12_rootsig_location *where)
{
    uint64_t next_offset = 0;
    for (UINT i = 0; i < table->NumDescriptorRanges; i++) {
        const D3D12_DESCRIPTOR_RANGE1 *range = &table->pDescriptorRanges[i];
        uint64_t offset = range->OffsetInDescriptorsFromTableStart == D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND
                              ? next_offset
                              : range->OffsetInDescriptorsFromTableStart;
        bool unbounded = range->NumDescriptors == UINT_MAX;
        next_offset = unbounded ? UINT64_MAX / 2 : offset + range->NumDescriptors;
        uint64_t end = unbounded ? (uint64_t)UINT32_MAX + 2 : (uint64_t)range->BaseShaderRegister + range->NumDescriptors;
        if (range->RangeType != range_type_of(kind) || range->RegisterSpace != space ||
            reg < range->BaseShaderRegister || reg >= end)
            continue;
        where->range = i;
        where->table_offset = offset + (reg - range->BaseShaderRegister);
        where->end = end;
        return true;
    }
    return false;
}

int d12_rootsig_locate(const D3D12_ROOT_SIGNATURE_DESC1 *desc, d12_dxbc_binding_kind kind, uint32_t space,
                       uint32_t reg, d12_rootsig_location *where)
{
    memset(where, 0, sizeof *where);
    for (UINT p = 0; p < desc->NumParameters; p++) {
        const D3D12_ROOT_PARAMETER1 *param = &desc->pParameters[p];
        if (param->ShaderVisibility != D3D12_SHADER_VISIBILITY_ALL) /* the compute stage sees ALL only */
            continue;
        where->parameter = p;
        where->type = param->ParameterType;
        if (param->ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
            if (locate_in_table(&param->DescriptorTable, kind, space, reg, where))
                return 0;
            continue;
        }
        bool constants = param->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
        UINT param_reg = constants ? param->Constants.ShaderRegister : param->Descriptor.ShaderRegister;
        UINT param_space = constants ? param->Constants.RegisterSpace : param->Descriptor.RegisterSpace;
        if (param_reg != reg || param_space != space || kind == D12_DXBC_SAMPLER)
            continue;
        if ((constants && kind == D12_DXBC_CBV) || param->ParameterType == root_view_type_of(kind)) {
            where->end = (uint64_t)reg + 1;
            return 0;
        }
    }
    for (UINT s = 0; kind == D12_DXBC_SAMPLER && s < desc->NumStaticSamplers; s++) {
        const D3D12_STATIC_SAMPLER_DESC *sampler = &desc->pStaticSamplers[s];
        if (sampler->ShaderRegister == reg && sampler->RegisterSpace == space &&
            sampler->ShaderVisibility == D3D12_SHADER_VISIBILITY_ALL) {
            memset(where, 0, sizeof *where);
            where->parameter = UINT_MAX;
            where->static_sampler = s;
            where->end = (uint64_t)reg + 1;
            return 0;
        }
    }
    memset(where, 0, sizeof *where);
    return -1;
}
