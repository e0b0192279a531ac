/* ID3D12Device2::CreatePipelineState: the pipeline state stream (docs/pipelines.md). Each subobject is a
 * D3D12_PIPELINE_STATE_SUBOBJECT_TYPE followed by its struct at that struct's alignment, the whole padded to
 * sizeof(void *) (d3dx12's CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT is alignas(void *)). A stream with a CS and no
 * other shader is a compute pipeline state and takes CreateComputePipelineState's path; graphics pipeline states
 * are not implemented. The stream's own rules and their IDs: CREATEPIPELINESTATE_ZERO_SIZE_STREAM,
 * _INVALID_STREAM (a subobject running past the end), _UNKNOWN_SUBOBJECT, _DUPLICATE_SUBOBJECT,
 * _CANNOT_DEDUCE_TYPE. */
#define _POSIX_C_SOURCE 200809L

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "d12_messages.h"
#include "device.h"
#include "pipeline_check.h"

static const char k_method[] = "ID3D12Device2::CreatePipelineState";

#define SUBOBJECT(type, T) [D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_##type] = {sizeof(T), alignof(T), #type}

/* Every subobject type of the installed headers: its struct's size and alignment (the headers' own, no guess). */
static const struct {
    size_t size, align;
    const char *name;
} k_subobjects[D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MAX_VALID] = {
    SUBOBJECT(ROOT_SIGNATURE, ID3D12RootSignature *), SUBOBJECT(VS, D3D12_SHADER_BYTECODE),
    SUBOBJECT(PS, D3D12_SHADER_BYTECODE), SUBOBJECT(DS, D3D12_SHADER_BYTECODE), SUBOBJECT(HS, D3D12_SHADER_BYTECODE),
    SUBOBJECT(GS, D3D12_SHADER_BYTECODE), SUBOBJECT(CS, D3D12_SHADER_BYTECODE),
    SUBOBJECT(STREAM_OUTPUT, D3D12_STREAM_OUTPUT_DESC), SUBOBJECT(BLEND, D3D12_BLEND_DESC),
    SUBOBJECT(SAMPLE_MASK, UINT), SUBOBJECT(RASTERIZER, D3D12_RASTERIZER_DESC),
    SUBOBJECT(DEPTH_STENCIL, D3D12_DEPTH_STENCIL_DESC), SUBOBJECT(INPUT_LAYOUT, D3D12_INPUT_LAYOUT_DESC),
    SUBOBJECT(IB_STRIP_CUT_VALUE, D3D12_INDEX_BUFFER_STRIP_CUT_VALUE),
    SUBOBJECT(PRIMITIVE_TOPOLOGY, D3D12_PRIMITIVE_TOPOLOGY_TYPE),
    SUBOBJECT(RENDER_TARGET_FORMATS, struct D3D12_RT_FORMAT_ARRAY), SUBOBJECT(DEPTH_STENCIL_FORMAT, DXGI_FORMAT),
    SUBOBJECT(SAMPLE_DESC, DXGI_SAMPLE_DESC), SUBOBJECT(NODE_MASK, UINT),
    SUBOBJECT(CACHED_PSO, D3D12_CACHED_PIPELINE_STATE), SUBOBJECT(FLAGS, D3D12_PIPELINE_STATE_FLAGS),
    SUBOBJECT(DEPTH_STENCIL1, D3D12_DEPTH_STENCIL_DESC1), SUBOBJECT(VIEW_INSTANCING, D3D12_VIEW_INSTANCING_DESC),
    SUBOBJECT(AS, D3D12_SHADER_BYTECODE), SUBOBJECT(MS, D3D12_SHADER_BYTECODE),
    SUBOBJECT(DEPTH_STENCIL2, D3D12_DEPTH_STENCIL_DESC2),
};

static size_t align_up(size_t value, size_t alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

/* Where each subobject's struct lies in the stream (NULL: absent). */
typedef struct parsed_stream {
    const void *at[D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MAX_VALID];
} parsed_stream;

static HRESULT parse(struct d12_device *device, const D3D12_PIPELINE_STATE_STREAM_DESC *desc, parsed_stream *out)
{
    memset(out, 0, sizeof *out);
    const unsigned char *stream = desc->pPipelineStateSubobjectStream;
    for (size_t offset = 0; offset < desc->SizeInBytes;) {
        UINT32 type;
        if (desc->SizeInBytes - offset < sizeof type) {
            d12__msg_createpipelinestate_invalid_stream(device->info_queue, k_method, (unsigned long long)offset,
                                                        "a subobject type");
            return E_INVALIDARG;
        }
        memcpy(&type, stream + offset, sizeof type);
        if (type >= D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MAX_VALID || k_subobjects[type].size == 0) {
            d12__msg_createpipelinestate_unknown_subobject(device->info_queue, k_method, type,
                                                           (unsigned long long)offset);
            return E_INVALIDARG;
        }
        size_t data = align_up(offset + sizeof type, k_subobjects[type].align);
        if (data > desc->SizeInBytes || desc->SizeInBytes - data < k_subobjects[type].size) {
            d12__msg_createpipelinestate_invalid_stream(device->info_queue, k_method, (unsigned long long)offset,
                                                        k_subobjects[type].name);
            return E_INVALIDARG;
        }
        if (out->at[type]) {
            d12__msg_createpipelinestate_duplicate_subobject(device->info_queue, k_method, k_subobjects[type].name);
            return E_INVALIDARG;
        }
        out->at[type] = stream + data;
        offset = align_up(data + k_subobjects[type].size, sizeof(void *));
    }
    return S_OK;
}

static bool has(const parsed_stream *s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE type)
{
    return s->at[type] != NULL;
}

/* Compute: a CS and none of the graphics stages. */
static bool is_compute(const parsed_stream *s)
{
    static const D3D12_PIPELINE_STATE_SUBOBJECT_TYPE k_graphics[] = {
        D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VS, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_PS,
        D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DS, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_HS,
        D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_GS, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_AS,
        D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MS};
    for (size_t i = 0; i < sizeof k_graphics / sizeof k_graphics[0]; i++)
        if (has(s, k_graphics[i]))
            return false;
    return has(s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CS);
}

static void copy_if(const parsed_stream *s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE type, void *to, size_t size)
{
    if (s->at[type])
        memcpy(to, s->at[type], size);
}

HRESULT d12_device_CreatePipelineState(struct d12_device *self, const D3D12_PIPELINE_STATE_STREAM_DESC *pDesc,
                                       const IID *riid, void **ppPipelineState)
{
    if (ppPipelineState)
        *ppPipelineState = NULL;
    HRESULT hr = d12__device_check_gpu_create(self, k_method);
    if (FAILED(hr))
        return hr;
    if (!pDesc || pDesc->SizeInBytes == 0 || !pDesc->pPipelineStateSubobjectStream) {
        d12__msg_createpipelinestate_zero_size_stream(self->info_queue, k_method);
        return E_INVALIDARG;
    }
    parsed_stream s;
    if (FAILED(hr = parse(self, pDesc, &s)))
        return hr;
    if (!is_compute(&s)) {
        if (!has(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VS) && !has(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MS)) {
            d12__msg_createpipelinestate_cannot_deduce_type(self->info_queue, k_method);
            return E_INVALIDARG;
        }
        d12_device_not_implemented(self, "ID3D12Device2", "CreatePipelineState (a graphics pipeline state)");
        return E_NOTIMPL;
    }
    D3D12_COMPUTE_PIPELINE_STATE_DESC compute = {NULL, {NULL, 0}, 0, {NULL, 0}, D3D12_PIPELINE_STATE_FLAG_NONE};
    copy_if(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_ROOT_SIGNATURE, &compute.pRootSignature,
            sizeof compute.pRootSignature);
    copy_if(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CS, &compute.CS, sizeof compute.CS);
    copy_if(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_NODE_MASK, &compute.NodeMask, sizeof compute.NodeMask);
    copy_if(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CACHED_PSO, &compute.CachedPSO, sizeof compute.CachedPSO);
    copy_if(&s, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_FLAGS, &compute.Flags, sizeof compute.Flags);
    return d12__pipeline_create_compute(self, k_method, &compute, riid, ppPipelineState);
}
