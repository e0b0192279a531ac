/* ID3D12PipelineState for compute (pipeline_state.h, docs/pipelines.md): the driver's object over the root signature
 * the runtime checked the shader against. */
#include <stdlib.h>

#include "d12_messages.h"
#include "device.h"
#include "pipeline_state.h"
#include "root_signature.h"

struct d12_pipeline_state *d12__pipeline_state_from(ID3D12PipelineState *iface)
{
    return d12__pipeline_state_unwrap(iface);
}

bool d12__pipelines_available(struct d12_device *device, const char *method)
{
    if (device->gpu && device->gpu->has_pipelines)
        return true;
    d12__msg_pipelines_unsupported(device->info_queue, method,
                                   d12__driver_adapter_name(d12__driver_device_adapter(device->driver)));
    return false;
}

ULONG d12_pipeline_state_AddRef(struct d12_pipeline_state *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

/* The driver's object goes first, then its root signature (the DDI's order: a root signature outlives the pipeline
 * states made with it). */
static void pipeline_state_destroy(struct d12_pipeline_state *state)
{
    struct d12_device *device = state->device_child.device;
    if (state->constructed)
        state->gpu->pipelines.pfnDestroyPipelineState(d12__driver_device_handle(device->driver), state->handle);
    free(state->handle.pDrvPrivate);
    if (state->root_signature)
        d12_root_signature_Release(state->root_signature);
    d12__device_child_destroy(&state->device_child);
    free(state);
}

ULONG d12_pipeline_state_Release(struct d12_pipeline_state *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        pipeline_state_destroy(self);
    return left;
}

void d12_pipeline_state_not_implemented(struct d12_pipeline_state *self, const char *interface_name,
                                        const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* No pipeline cache exists in d12rt (D3D12_FEATURE_SHADER_CACHE answers no SINGLE_PSO support, docs/pipelines.md):
 * there is no blob to give. DXGI_ERROR_UNSUPPORTED is what Windows answers for a cache the driver lacks
 * (CreatePipelineLibrary); *ppBlob is set NULL so a caller never reads a stale pointer. */
HRESULT d12_pipeline_state_GetCachedBlob(struct d12_pipeline_state *self, ID3DBlob **ppBlob)
{
    (void)self;
    if (!ppBlob)
        return E_POINTER;
    *ppBlob = NULL;
    return DXGI_ERROR_UNSUPPORTED;
}

static HRESULT create_driver_pipeline_state(struct d12_device *device, const char *method,
                                            const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc,
                                            struct d12_pipeline_state *state)
{
    const D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT *ddi = &state->gpu->pipelines;
    D3D12DDIARG_CREATE_COMPUTE_PIPELINE_STATE_D12RT args = {
        desc->CS.pShaderBytecode, desc->CS.BytecodeLength, state->root_signature->handle, 1, desc->Flags};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "PipelineState",
                                           ddi->pfnCalcPrivateComputePipelineStateSize(driver, &args), &memory);
    if (FAILED(hr))
        return hr;
    state->handle = (D3D12DDI_HPIPELINESTATE){memory};
    hr = ddi->pfnCreateComputePipelineState(driver, &args, state->handle);
    if (hr == E_INVALIDARG)
        d12__msg_createcomputepipelinestate_invalid_shader(device->info_queue, method,
                                                           "the driver could not compile the shader");
    else if (FAILED(hr) && hr != E_OUTOFMEMORY)
        hr = E_OUTOFMEMORY; /* the DDI's two failures; anything else from a driver is taken as memory */
    state->constructed = SUCCEEDED(hr);
    return hr;
}

HRESULT d12__pipeline_state_create(struct d12_device *device, const char *method,
                                   const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc,
                                   struct d12_root_signature *root_signature, struct d12_pipeline_state **out)
{
    *out = NULL;
    struct d12_pipeline_state *state = calloc(1, sizeof *state);
    if (!state)
        return E_OUTOFMEMORY;
    d12__pipeline_state_com_init(&state->com);
    atomic_init(&state->refcount, 1);
    d12__device_child_init(&state->device_child, device, &state->com.pipeline_state, "ID3D12PipelineState");
    d12_root_signature_AddRef(root_signature);
    state->root_signature = root_signature;
    state->gpu = device->gpu;
    HRESULT hr = create_driver_pipeline_state(device, method, desc, state);
    if (FAILED(hr)) {
        pipeline_state_destroy(state);
        return hr;
    }
    *out = state;
    return S_OK;
}
