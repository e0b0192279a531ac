/* The reference driver's compute pipeline states and the list's binding calls (D3D12DDI_TABLE_TYPE_D12RT_PIPELINES
 * and _COMMAND_LIST_BINDING, docs/pipelines.md). It runs no shader: a pipeline state is data — the registers its
 * shader declares (runtime/dxbc's reader, the one the runtime checked it with) and its root signature — and the
 * binding calls are commands of the recording, applied when a timeline replays it, so a dispatch resolves its
 * descriptors from the heap as it is at execution (refdrv_dispatch.c). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "drvcommon_descriptors.h"
#include "refdrv_gpu.h"

static d12__refdrv_command_list *list_of(D3D12DDI_HCOMMANDLIST handle)
{
    return (d12__refdrv_command_list *)handle.pDrvPrivate;
}

/* ---- Pipeline states ---- */

static SIZE_T APIENTRY calc_pipeline_size(D3D12DDI_HDEVICE device,
                                          const D3D12DDIARG_CREATE_COMPUTE_PIPELINE_STATE_D12RT *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_pipeline_state);
}

/* The runtime validated the bytecode; a container or program this reader refuses anyway is "cannot compile". */
static HRESULT APIENTRY create_pipeline(D3D12DDI_HDEVICE device,
                                        const D3D12DDIARG_CREATE_COMPUTE_PIPELINE_STATE_D12RT *args,
                                        D3D12DDI_HPIPELINESTATE handle)
{
    (void)device;
    d12__refdrv_pipeline_state *state = handle.pDrvPrivate;
    memset(state, 0, sizeof *state);
    d12_dxbc dxbc;
    char error[160];
    if (!args->pShaderBytecode || !args->hRootSignature.pDrvPrivate ||
        d12_dxbc_parse(args->pShaderBytecode, args->BytecodeLength, &dxbc, error, sizeof error) != 0)
        return E_INVALIDARG;
    int status = d12_dxbc_program_parse(&dxbc, &state->program, error, sizeof error);
    if (status != 0)
        return status < 0 ? E_OUTOFMEMORY : E_INVALIDARG;
    state->root_signature = args->hRootSignature.pDrvPrivate;
    return S_OK;
}

static VOID APIENTRY destroy_pipeline(D3D12DDI_HDEVICE device, D3D12DDI_HPIPELINESTATE handle)
{
    (void)device;
    d12__refdrv_pipeline_state *state = handle.pDrvPrivate;
    d12_dxbc_program_free(&state->program);
    state->root_signature = NULL;
}

const D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT d12__refdrv_pipeline_funcs = {
    calc_pipeline_size,
    create_pipeline,
    destroy_pipeline,
};

/* ---- The list's binding calls: commands, applied at execution ---- */

static d12__refdrv_command *append_bind(D3D12DDI_HCOMMANDLIST handle, unsigned type, unsigned slot)
{
    d12__refdrv_command *command = d12__refdrv_list_append(list_of(handle), type);
    if (command) {
        memset(&command->bind_u, 0, sizeof command->bind_u);
        command->slot = (uint8_t)slot;
    }
    return command;
}

static VOID APIENTRY set_pipeline_state(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HPIPELINESTATE state)
{
    d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_SET_PIPELINE, 0);
    if (command)
        command->bind_u.bind.object = state.pDrvPrivate;
}

/* D3D12: a different root signature clears the compute root arguments; the replay does it (refdrv_dispatch.c). */
static VOID APIENTRY set_compute_root_signature(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HROOTSIGNATURE signature)
{
    d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_SET_ROOT_SIGNATURE, 0);
    if (command)
        command->bind_u.bind.object = signature.pDrvPrivate;
}

static VOID APIENTRY set_descriptor_heaps(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                          const D3D12DDI_HDESCRIPTORHEAP *heaps)
{
    d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_SET_HEAPS, 0);
    for (UINT i = 0; command && heaps && i < count; i++) {
        const d12__drv_descriptor_heap *heap = heaps[i].pDrvPrivate;
        D3D12DDI_DESCRIPTOR_HEAP_TYPE type = heap->desc.Type;
        if (type <= D3D12DDI_DESCRIPTOR_HEAP_TYPE_SAMPLER) /* the runtime checked: at most one of each */
            command->bind_u.bind.heaps[type] = heaps[i].pDrvPrivate;
    }
}

static VOID APIENTRY set_compute_root_table(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 base)
{
    d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_SET_TABLE, index);
    if (command)
        command->bind_u.bind.address = base;
}

/* One command per constant: a record stays fixed-size, and at most 64 DWORDs exist. */
static VOID APIENTRY set_compute_root_constants(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT count,
                                                const UINT *values, UINT offset)
{
    for (UINT i = 0; values && i < count; i++) {
        d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_SET_CONSTANT, index);
        if (!command)
            return;
        command->bind_u.bind.offset = offset + i;
        command->bind_u.bind.value = values[i];
    }
}

static void record_clear(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu, const void *values, bool is_float)
{
    d12__refdrv_command *command = append_bind(handle, D12_REFDRV_CMD_CLEAR_UAV, 0);
    if (!command)
        return;
    command->compute = is_float;
    command->state_index = list_of(handle)->state_index;
    command->bind_u.clear.gpu_handle = gpu;
    command->bind_u.clear.cpu_handle = cpu;
    memcpy(command->bind_u.clear.values, values, sizeof command->bind_u.clear.values);
}

static VOID APIENTRY clear_uav_uint(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu, D3D12DDI_HRESOURCE resource,
                                    const UINT values[4])
{
    (void)resource;
    record_clear(handle, gpu, cpu, values, false);
}

static VOID APIENTRY clear_uav_float(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu,
                                     D3D12DDI_HRESOURCE resource, const FLOAT values[4])
{
    (void)resource;
    record_clear(handle, gpu, cpu, values, true);
}

const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT d12__refdrv_binding_funcs = {
    set_pipeline_state,  set_compute_root_signature, set_descriptor_heaps, set_compute_root_table,
    set_compute_root_constants, clear_uav_uint, clear_uav_float,
};
