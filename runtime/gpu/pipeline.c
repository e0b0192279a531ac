/* ID3D12Device::CreateComputePipelineState (docs/pipelines.md; issue 31). The debug layer's checks come first, in
 * Windows' order: the shader bytecode (INVALID_SHADER: NULL, broken, DXIL, not compute 5.0/5.1), the root signature
 * (the desc's, or the shader's RTS0 when pRootSignature is NULL: MISSING_ROOT_SIGNATURE without one), every declared
 * register against it (CS_ROOT_SIGNATURE_MISMATCH). The checks are pipeline_check.c's pure functions.
 *
 * This branch validates only: the pipeline state object and its driver table need ID3D12RootSignature (issue 30),
 * which is not on it yet, so a pipeline state that passes every check is answered E_NOTIMPL with the runtime's
 * METHOD_NOT_IMPLEMENTED message, as before the issue. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "d12_messages.h"
#include "device.h"
#include "pipeline_check.h"

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
    if (!desc->pRootSignature) {
        D3D12_VERSIONED_ROOT_SIGNATURE_DESC *own = embedded_root_signature(device, method, &shader);
        hr = own ? d12__pipeline_check_registers(&shader.program, &own->Desc_1_1, &problem) : E_INVALIDARG;
        if (own && FAILED(hr))
            report(device, method, &problem);
        free(own);
    }
    d12__pipeline_shader_free(&shader);
    if (FAILED(hr))
        return hr;
    (void)riid;
    (void)out;
    d12__msg_method_not_implemented(device->info_queue, "ID3D12Device",
                                    "CreateComputePipelineState (the shader passed its checks; pipeline state objects "
                                    "need ID3D12RootSignature, issue 30)");
    return E_NOTIMPL;
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
