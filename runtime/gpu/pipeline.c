/* ID3D12Device::CreateComputePipelineState (docs/pipelines.md; issue 31). The debug layer's checks come first, in
 * Windows' order: the shader bytecode (INVALID_SHADER: NULL, broken, DXIL, not compute 5.0/5.1), the root signature
 * (the desc's, or the shader's RTS0 when pRootSignature is NULL: MISSING_ROOT_SIGNATURE without one), every declared
 * register against it (CS_ROOT_SIGNATURE_MISMATCH). The checks are pipeline_check.c's pure functions. Then, on a
 * driver with the compute tables, the object (pipeline_state.c); without them E_NOTIMPL naming the driver. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "d12_messages.h"
#include "device.h"
#include "pipeline_check.h"
#include "pipeline_state.h"
#include "root_signature.h"

static void report(struct d12_device *device, const char *method, const d12_pipeline_problem *problem)
{
    if (problem->id == D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH)
        d12__msg_createcomputepipelinestate_cs_root_signature_mismatch(device->info_queue, method, problem->text);
    else
        d12__msg_createcomputepipelinestate_invalid_shader(device->info_queue, method, problem->text);
}

/* The shader's own root signature (pRootSignature NULL): its RTS0 parsed and converted to 1.1, as
 * CreateRootSignature would take it. NULL after the message when it has none or it is broken. */
static D3D12_VERSIONED_ROOT_SIGNATURE_DESC *embedded_root_signature(struct d12_device *device, const char *method,
                                                                    const d12_pipeline_shader *shader)
{
    if (!shader->rts0) {
        d12__msg_createcomputepipelinestate_missing_root_signature(device->info_queue, method, "no RTS0 chunk");
        return NULL;
    }
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *parsed = NULL, *converted = NULL;
    char error[160], detail[200];
    if (d12_rts0_parse(shader->rts0, shader->rts0_size, &parsed, error, sizeof error) != 0) {
        snprintf(detail, sizeof detail, "its RTS0 chunk is broken: %s", error);
        d12__msg_createcomputepipelinestate_missing_root_signature(device->info_queue, method, detail);
        return NULL;
    }
    converted = d12_rootsig_convert(parsed, D3D_ROOT_SIGNATURE_VERSION_1_1);
    free(parsed);
    return converted;
}

/* The desc's root signature, checked: a d12rt root signature of this device. NULL after the message otherwise. */
static struct d12_root_signature *desc_root_signature(struct d12_device *device, const char *method,
                                                      ID3D12RootSignature *iface)
{
    struct d12_root_signature *signature = d12__root_signature_from(iface);
    if (!signature) {
        d12__msg_createcomputepipelinestate_missing_root_signature(device->info_queue, method,
                                                                    "pRootSignature is not a d12rt root signature");
        return NULL;
    }
    if (signature->device_child.device != device) {
        d12__msg_createcomputepipelinestate_missing_root_signature(device->info_queue, method,
                                                                    "pRootSignature was created on another device");
        return NULL;
    }
    return signature;
}

/* The shader's own root signature as an object of the device (CreateRootSignature takes a shader's container and
 * finds its RTS0), so the pipeline state and the lists that bind it hold it like any other. */
static HRESULT rts0_root_signature(struct d12_device *device, const D3D12_SHADER_BYTECODE *cs,
                                   struct d12_root_signature **out)
{
    ID3D12RootSignature *iface = NULL;
    HRESULT hr = d12_device_CreateRootSignature(device, 0, cs->pShaderBytecode, cs->BytecodeLength,
                                                &IID_ID3D12RootSignature, (void **)&iface);
    *out = SUCCEEDED(hr) ? d12__root_signature_from(iface) : NULL;
    return hr;
}

/* The root signature the registers are checked against: the desc's (a new reference) or the RTS0's (made here, after
 * its check). E_INVALIDARG after the message; E_NOTIMPL, naming the driver, when it has no compute tables (checked
 * after the shader and its root signature, so a bad shader is said first, as before the tables existed). */
static HRESULT checked_root_signature(struct d12_device *device, const char *method,
                                      const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc, const d12_pipeline_shader *shader,
                                      struct d12_root_signature **out)
{
    d12_pipeline_problem problem;
    HRESULT hr;
    *out = NULL;
    if (desc->pRootSignature) {
        struct d12_root_signature *signature = desc_root_signature(device, method, desc->pRootSignature);
        if (!signature)
            return E_INVALIDARG;
        if (FAILED(hr = d12__pipeline_check_registers(&shader->program, d12__root_signature_desc(signature),
                                                      &problem))) {
            report(device, method, &problem);
            return hr;
        }
        if (!d12__pipelines_available(device, method))
            return E_NOTIMPL;
        d12_root_signature_AddRef(signature);
        *out = signature;
        return S_OK;
    }
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *own = embedded_root_signature(device, method, shader);
    hr = own ? d12__pipeline_check_registers(&shader->program, &own->Desc_1_1, &problem) : E_INVALIDARG;
    if (own && FAILED(hr))
        report(device, method, &problem);
    free(own);
    if (FAILED(hr) || !d12__pipelines_available(device, method))
        return FAILED(hr) ? hr : E_NOTIMPL;
    return rts0_root_signature(device, &desc->CS, out);
}

HRESULT d12__pipeline_create_compute(struct d12_device *device, const char *method,
                                     const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc, const IID *riid, void **out)
{
    if (!desc) {
        d12__msg_createcomputepipelinestate_invalid_shader(device->info_queue, method, "pDesc is NULL");
        return E_INVALIDARG;
    }
    d12_pipeline_shader shader;
    d12_pipeline_problem problem;
    HRESULT hr = d12__pipeline_read_shader(&desc->CS, &shader, &problem);
    if (FAILED(hr)) {
        report(device, method, &problem);
        return hr;
    }
    struct d12_root_signature *signature = NULL;
    hr = checked_root_signature(device, method, desc, &shader, &signature);
    d12__pipeline_shader_free(&shader);
    if (SUCCEEDED(hr) && (!riid || !out)) /* checked after the desc, as for every creation method */
        hr = !riid ? E_INVALIDARG : S_FALSE;
    struct d12_pipeline_state *state = NULL;
    if (hr == S_OK)
        hr = d12__pipeline_state_create(device, method, desc, signature, &state);
    if (signature)
        d12_root_signature_Release(signature);
    if (hr != S_OK || !state)
        return hr;
    hr = d12__pipeline_state_QueryInterface(state, riid, out);
    d12_pipeline_state_Release(state);
    return hr;
}

HRESULT d12_device_CreateComputePipelineState(struct d12_device *self, const D3D12_COMPUTE_PIPELINE_STATE_DESC *pDesc,
                                              const IID *riid, void **ppPipelineState)
{
    static const char method[] = "ID3D12Device::CreateComputePipelineState";
    if (ppPipelineState)
        *ppPipelineState = NULL;
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    return d12__pipeline_create_compute(self, method, pDesc, riid, ppPipelineState);
}
