/* The list methods that bind (list_internal.h; docs/root-signatures.md "Binding"; issue 30 item 5): vertex and index
 * buffers, root signatures, descriptor heaps and root arguments, each checked as the debug layer checks it. A
 * binding finding is the debug layer's alone: the call is dropped (a root view with no root signature is still
 * recorded, for the driver's execution-time check), and Close stays S_OK, as on Windows. What is bound is kept in the
 * list's d12_list_bindings (list.h), and the compute calls are forwarded through the driver's binding table when it
 * has one (D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING, docs/pipelines.md). */
#include <stdlib.h>
#include <string.h>

#include "d12_messages.h"
#include "descriptor_heap.h"
#include "device.h"
#include "dred/breadcrumbs.h"
#include "dred/dred.h"
#include "foreign.h"
#include "list_internal.h"
#include "pipeline_state.h"
#include "root_signature.h"
#include "rootsig.h"

/* The API's buffer views and the DDI's have one layout, so they pass through unconverted. */
_Static_assert(sizeof(D3D12_VERTEX_BUFFER_VIEW) == sizeof(D3D12DDI_VERTEX_BUFFER_VIEW), "vertex buffer view layout");
_Static_assert(offsetof(D3D12_VERTEX_BUFFER_VIEW, StrideInBytes) == offsetof(D3D12DDI_VERTEX_BUFFER_VIEW, StrideInBytes),
               "vertex buffer view layout");
_Static_assert(sizeof(D3D12_INDEX_BUFFER_VIEW) == sizeof(D3D12DDI_INDEX_BUFFER_VIEW), "index buffer view layout");
_Static_assert(offsetof(D3D12_INDEX_BUFFER_VIEW, Format) == offsetof(D3D12DDI_INDEX_BUFFER_VIEW, Format),
               "index buffer view layout");

enum { GRAPHICS = 0, COMPUTE = 1 };


void d12_command_list_IASetVertexBuffers(struct d12_command_list *self, UINT StartSlot, UINT NumViews,
                                         const D3D12_VERTEX_BUFFER_VIEW *pViews)
{
    if (!d12__list_recording(self, "IASetVertexBuffers"))
        return;
    if (StartSlot >= D12_VERTEX_SLOTS || NumViews > D12_VERTEX_SLOTS - StartSlot) {
        d12__msg_set_vertex_buffers_invalid(self->device_child.device->info_queue, StartSlot, NumViews,
                                            D12_VERTEX_SLOTS);
        d12__list_record_error(self, E_INVALIDARG);
        return;
    }
    self->ddi->pfnIaSetVertexBuffers(self->handle, StartSlot, NumViews, (const D3D12DDI_VERTEX_BUFFER_VIEW *)pViews);
    for (UINT i = 0; self->dred && i < NumViews; i++) /* DRED: the views the faulting op used (the report) */
        d12__dred_note_state(self->dred, D12_DRED_STATE_VERTEX_BUFFER, 0, StartSlot + i, pViews ? pViews[i].BufferLocation : 0,
                             pViews ? pViews[i].SizeInBytes : 0, pViews ? pViews[i].StrideInBytes : 0);
}

void d12_command_list_IASetIndexBuffer(struct d12_command_list *self, const D3D12_INDEX_BUFFER_VIEW *pView)
{
    if (!d12__list_recording(self, "IASetIndexBuffer"))
        return;
    if (pView && pView->Format != DXGI_FORMAT_R16_UINT && pView->Format != DXGI_FORMAT_R32_UINT) {
        d12__msg_set_index_buffer_invalid(self->device_child.device->info_queue, (int)pView->Format);
        d12__list_record_error(self, E_INVALIDARG);
        return;
    }
    self->ddi->pfnIaSetIndexBuffer(self->handle, (const D3D12DDI_INDEX_BUFFER_VIEW *)pView);
    d12__dred_note_state(self->dred, D12_DRED_STATE_INDEX_BUFFER, 0, 0, pView ? pView->BufferLocation : 0,
                         pView ? pView->SizeInBytes : 0, pView ? (UINT)pView->Format : 0);
}

/* ======== The binding state ======== */

void d12__list_binding_reset(struct d12_command_list *list)
{
    d12_list_bindings *bindings = list->bindings;
    if (!bindings)
        return;
    for (int kind = 0; kind < 2; kind++)
        if (bindings->root_signature[kind])
            d12_root_signature_Release(bindings->root_signature[kind]);
    if (bindings->pipeline)
        d12_pipeline_state_Release(bindings->pipeline);
    for (UINT32 i = 0; i < bindings->kept_count; i++) {
        if (bindings->kept[i].pipeline)
            d12_pipeline_state_Release(bindings->kept[i].pipeline);
        else
            d12_root_signature_Release(bindings->kept[i].root_signature);
    }
    free(bindings->kept);
    memset(bindings, 0, sizeof *bindings);
}

d12_list_bindings *d12__list_bindings_of(struct d12_command_list *list)
{
    if (!list->bindings && !(list->bindings = calloc(1, sizeof *list->bindings)))
        d12__list_record_error(list, E_OUTOFMEMORY);
    return list->bindings;
}

bool d12__list_keep(struct d12_command_list *list, struct d12_pipeline_state *pipeline,
                    struct d12_root_signature *root_signature)
{
    d12_list_bindings *bindings = d12__list_bindings_of(list);
    if (!bindings)
        return false;
    if (bindings->kept_count == bindings->kept_capacity) {
        UINT32 capacity = bindings->kept_capacity ? bindings->kept_capacity * 2 : 4;
        struct d12_list_kept *grown = realloc(bindings->kept, capacity * sizeof *grown);
        if (!grown) {
            d12__list_record_error(list, E_OUTOFMEMORY);
            return false;
        }
        bindings->kept = grown;
        bindings->kept_capacity = capacity;
    }
    if (pipeline)
        d12_pipeline_state_AddRef(pipeline);
    else
        d12_root_signature_AddRef(root_signature);
    bindings->kept[bindings->kept_count++] = (struct d12_list_kept){pipeline, root_signature};
    return true;
}

/* ======== Root signatures ======== */

/* D3D12: setting a root signature makes every root argument undefined; setting the same one keeps them. */
static void set_root_signature(struct d12_command_list *self, int kind, ID3D12RootSignature *iface, const char *method)
{
    if (!d12__list_recording(self, method))
        return;
    struct d12_device *device = self->device_child.device;
    struct d12_root_signature *signature = d12__root_signature_from(iface);
    if (iface && !signature) {
        d12__msg_set_root_signature_invalid(device->info_queue, method, "pRootSignature is not a d12rt root signature");
        return;
    }
    if (signature && d12__foreign(device, signature->device_child.device, method, "pRootSignature",
                                  "the call is ignored"))
        return;
    d12_list_bindings *bindings = d12__list_bindings_of(self);
    if (!bindings || bindings->root_signature[kind] == signature)
        return;
    if (signature && !d12__list_keep(self, NULL, signature))
        return;
    if (kind == COMPUTE && self->binding) /* D3D12DDI: a different root signature clears the compute arguments */
        self->binding->pfnSetComputeRootSignature(self->handle, signature ? signature->handle
                                                                          : (D3D12DDI_HROOTSIGNATURE){NULL});
    if (signature)
        d12_root_signature_AddRef(signature);
    if (bindings->root_signature[kind])
        d12_root_signature_Release(bindings->root_signature[kind]);
    bindings->root_signature[kind] = signature;
    memset(bindings->arguments[kind], 0, sizeof bindings->arguments[kind]);
    memset(bindings->constants[kind], 0, sizeof bindings->constants[kind]);
}

void d12_command_list_SetComputeRootSignature(struct d12_command_list *self, ID3D12RootSignature *pRootSignature)
{
    set_root_signature(self, COMPUTE, pRootSignature, "SetComputeRootSignature");
}

void d12_command_list_SetGraphicsRootSignature(struct d12_command_list *self, ID3D12RootSignature *pRootSignature)
{
    set_root_signature(self, GRAPHICS, pRootSignature, "SetGraphicsRootSignature");
}

/* The bound root signature's parameter `index`, or NULL with `problem` said: no root signature, an index past its
 * parameters, or a parameter of another type than `type`. */
static const D3D12_ROOT_PARAMETER1 *root_parameter(struct d12_command_list *self, int kind, UINT index,
                                                   D3D12_ROOT_PARAMETER_TYPE type, const char **problem)
{
    const struct d12_root_signature *signature = self->bindings ? self->bindings->root_signature[kind] : NULL;
    if (!signature) {
        *problem = kind == COMPUTE ? "no compute root signature is set (SetComputeRootSignature)"
                                   : "no graphics root signature is set (SetGraphicsRootSignature)";
        return NULL;
    }
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = d12__root_signature_desc(signature);
    if (index >= desc->NumParameters) {
        *problem = "RootParameterIndex is past the root signature's parameters";
        return NULL;
    }
    if (desc->pParameters[index].ParameterType != type) {
        *problem = type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE ? "the root parameter is not a descriptor table"
                   : type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS ? "the root parameter is not 32-bit constants"
                   : type == D3D12_ROOT_PARAMETER_TYPE_CBV            ? "the root parameter is not a root CBV"
                   : type == D3D12_ROOT_PARAMETER_TYPE_SRV            ? "the root parameter is not a root SRV"
                                                                      : "the root parameter is not a root UAV";
        return NULL;
    }
    return &desc->pParameters[index];
}

/* ======== Descriptor heaps ======== */

/* At most one CBV_SRV_UAV and one SAMPLER heap, each shader-visible and of the list's device; the call replaces the
 * heaps set before (D3D12: a heap type not named is unset). */
void d12_command_list_SetDescriptorHeaps(struct d12_command_list *self, UINT NumDescriptorHeaps,
                                         ID3D12DescriptorHeap *const *ppDescriptorHeaps)
{
    struct d12_device *device = self->device_child.device;
    if (!d12__list_recording(self, "SetDescriptorHeaps"))
        return;
    if (NumDescriptorHeaps && !ppDescriptorHeaps) {
        d12__msg_set_descriptor_heap_invalid(device->info_queue, "ppDescriptorHeaps is NULL");
        return;
    }
    struct d12_descriptor_heap *heaps[2] = {NULL, NULL};
    for (UINT i = 0; i < NumDescriptorHeaps; i++) {
        struct d12_descriptor_heap *heap = d12__descriptor_heap_unwrap(ppDescriptorHeaps[i]);
        const char *problem = NULL;
        if (!heap || heap->device_child.device != device)
            problem = "a heap is NULL, not a d12rt descriptor heap, or of another device";
        else if (heap->desc.Type != D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV &&
                 heap->desc.Type != D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER)
            problem = "only CBV_SRV_UAV and SAMPLER heaps can be set";
        else if (!(heap->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
            problem = "a heap is not shader-visible (D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)";
        else if (heaps[heap->desc.Type])
            problem = "at most one CBV_SRV_UAV heap and one SAMPLER heap can be set at a time";
        if (problem) {
            d12__msg_set_descriptor_heap_invalid(device->info_queue, problem);
            return;
        }
        heaps[heap->desc.Type] = heap;
    }
    d12_list_bindings *bindings = d12__list_bindings_of(self);
    if (!bindings)
        return;
    memcpy(bindings->heaps, heaps, sizeof heaps);
    if (self->binding) {
        D3D12DDI_HDESCRIPTORHEAP handles[2];
        UINT count = 0;
        for (int type = 0; type < 2; type++)
            if (heaps[type])
                handles[count++] = heaps[type]->handle;
        self->binding->pfnSetDescriptorHeaps(self->handle, count, handles);
    }
}

/* ======== Root arguments ======== */

/* The GPU handle must lie in the bound heap of the table's type (the first range's: a table does not mix samplers
 * with views, runtime/rootsig's rule), on a descriptor boundary. */
static const char *check_table_handle(const d12_list_bindings *bindings, const D3D12_ROOT_PARAMETER1 *param,
                                      UINT64 handle)
{
    bool samplers = param->DescriptorTable.NumDescriptorRanges &&
                    param->DescriptorTable.pDescriptorRanges[0].RangeType == D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER;
    const struct d12_descriptor_heap *heap = bindings->heaps[samplers ? 1 : 0];
    if (!heap)
        return samplers ? "no SAMPLER heap is set (SetDescriptorHeaps)" : "no CBV_SRV_UAV heap is set (SetDescriptorHeaps)";
    UINT64 end = heap->gpu_start + (UINT64)heap->desc.NumDescriptors * heap->increment;
    if (handle < heap->gpu_start || handle >= end || (handle - heap->gpu_start) % heap->increment)
        return "BaseDescriptor is not a descriptor of the descriptor heap set for the table's type";
    return NULL;
}

static void set_table(struct d12_command_list *self, int kind, UINT index, D3D12_GPU_DESCRIPTOR_HANDLE base,
                      const char *method)
{
    if (!d12__list_recording(self, method))
        return;
    const char *problem = NULL;
    const D3D12_ROOT_PARAMETER1 *param =
        root_parameter(self, kind, index, D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, &problem);
    if (param)
        problem = check_table_handle(self->bindings, param, base.ptr);
    if (problem) {
        d12__msg_set_descriptor_table_invalid(self->device_child.device->info_queue, method, index, problem);
        return;
    }
    self->bindings->arguments[kind][index] = (d12_root_argument){D12_ROOT_ARGUMENT_TABLE, base.ptr};
    if (kind == COMPUTE && self->binding)
        self->binding->pfnSetComputeRootDescriptorTable(self->handle, index, base.ptr);
}

void d12_command_list_SetComputeRootDescriptorTable(struct d12_command_list *self, UINT RootParameterIndex,
                                                    D3D12_GPU_DESCRIPTOR_HANDLE BaseDescriptor)
{
    set_table(self, COMPUTE, RootParameterIndex, BaseDescriptor, "SetComputeRootDescriptorTable");
}

void d12_command_list_SetGraphicsRootDescriptorTable(struct d12_command_list *self, UINT RootParameterIndex,
                                                     D3D12_GPU_DESCRIPTOR_HANDLE BaseDescriptor)
{
    set_table(self, GRAPHICS, RootParameterIndex, BaseDescriptor, "SetGraphicsRootDescriptorTable");
}

/* Where parameter `index`'s constants start in the list's constants[] (the constants of the parameters before it). */
static UINT constants_offset(const D3D12_ROOT_SIGNATURE_DESC1 *desc, UINT index)
{
    UINT offset = 0;
    for (UINT i = 0; i < index; i++)
        if (desc->pParameters[i].ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS)
            offset += desc->pParameters[i].Constants.Num32BitValues;
    return offset;
}

static void set_constants(struct d12_command_list *self, int kind, UINT index, UINT count, const void *data,
                          UINT offset, const char *method)
{
    if (!d12__list_recording(self, method))
        return;
    const char *problem = NULL;
    const D3D12_ROOT_PARAMETER1 *param =
        root_parameter(self, kind, index, D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, &problem);
    if (param && (offset > param->Constants.Num32BitValues || count > param->Constants.Num32BitValues - offset))
        problem = "DestOffsetIn32BitValues + Num32BitValuesToSet is past the parameter's Num32BitValues";
    else if (param && count && !data)
        problem = "pSrcData is NULL";
    if (problem) {
        d12__msg_set_root_constant_invalid(self->device_child.device->info_queue, method, index, problem);
        return;
    }
    d12_list_bindings *bindings = self->bindings;
    UINT first = constants_offset(d12__root_signature_desc(bindings->root_signature[kind]), index) + offset;
    if (count)
        memcpy(&bindings->constants[kind][first], data, count * sizeof(UINT32));
    bindings->arguments[kind][index] = (d12_root_argument){D12_ROOT_ARGUMENT_CONSTANTS, 0};
    if (kind == COMPUTE && self->binding && count)
        self->binding->pfnSetComputeRoot32BitConstants(self->handle, index, count, (const UINT *)data, offset);
}

void d12_command_list_SetComputeRoot32BitConstant(struct d12_command_list *self, UINT RootParameterIndex,
                                                  UINT SrcData, UINT DestOffsetIn32BitValues)
{
    set_constants(self, COMPUTE, RootParameterIndex, 1, &SrcData, DestOffsetIn32BitValues,
                  "SetComputeRoot32BitConstant");
}

void d12_command_list_SetGraphicsRoot32BitConstant(struct d12_command_list *self, UINT RootParameterIndex,
                                                   UINT SrcData, UINT DestOffsetIn32BitValues)
{
    set_constants(self, GRAPHICS, RootParameterIndex, 1, &SrcData, DestOffsetIn32BitValues,
                  "SetGraphicsRoot32BitConstant");
}

void d12_command_list_SetComputeRoot32BitConstants(struct d12_command_list *self, UINT RootParameterIndex,
                                                   UINT Num32BitValuesToSet, const void *pSrcData,
                                                   UINT DestOffsetIn32BitValues)
{
    set_constants(self, COMPUTE, RootParameterIndex, Num32BitValuesToSet, pSrcData, DestOffsetIn32BitValues,
                  "SetComputeRoot32BitConstants");
}

void d12_command_list_SetGraphicsRoot32BitConstants(struct d12_command_list *self, UINT RootParameterIndex,
                                                    UINT Num32BitValuesToSet, const void *pSrcData,
                                                    UINT DestOffsetIn32BitValues)
{
    set_constants(self, GRAPHICS, RootParameterIndex, Num32BitValuesToSet, pSrcData, DestOffsetIn32BitValues,
                  "SetGraphicsRoot32BitConstants");
}

/* Root views: checked against the bound root signature (its type at the index). With no root signature the
 * finding is reported and the view still recorded for the driver's execution-time check, as before root signatures
 * existed; a parameter of another type drops the call. */
typedef void (*root_view_message)(d12_info_queue *queue, const char *method, unsigned index, const char *problem);

static void set_root_view(struct d12_command_list *self, int kind, D3D12_ROOT_PARAMETER_TYPE type, UINT index,
                          D3D12_GPU_VIRTUAL_ADDRESS address, const char *method, root_view_message message,
                          void (*APIENTRY ddi_slot)(D3D12DDI_HCOMMANDLIST, UINT, D3D12_GPU_VIRTUAL_ADDRESS),
                          int dred_kind)
{
    if (!d12__list_recording(self, method))
        return;
    const char *problem = NULL;
    const D3D12_ROOT_PARAMETER1 *param = root_parameter(self, kind, index, type, &problem);
    if (problem)
        message(self->device_child.device->info_queue, method, index, problem);
    if (!param && self->bindings && self->bindings->root_signature[kind])
        return; /* a root signature whose parameter is not this view: dropped */
    ddi_slot(self->handle, index, address);
    d12__dred_note_state(self->dred, D12_DRED_STATE_ROOT_DESCRIPTOR, dred_kind, index, address, 0, 0);
    if (param)
        self->bindings->arguments[kind][index] = (d12_root_argument){D12_ROOT_ARGUMENT_VIEW, address};
}

#define ROOT_VIEW(api_name, kind, type, message, ddi_slot, dred_kind)                                              \
    void d12_command_list_##api_name(struct d12_command_list *self, UINT RootParameterIndex,                       \
                                     D3D12_GPU_VIRTUAL_ADDRESS BufferLocation)                                     \
    {                                                                                                              \
        set_root_view(self, kind, type, RootParameterIndex, BufferLocation, #api_name, message,                    \
                      self->ddi->ddi_slot, dred_kind);                                                             \
    }
ROOT_VIEW(SetGraphicsRootConstantBufferView, GRAPHICS, D3D12_ROOT_PARAMETER_TYPE_CBV,
          d12__msg_set_root_constant_buffer_view_invalid, pfnSetGraphicsRootConstantBufferView,
          D12_DRED_ROOT_GRAPHICS_CBV)
ROOT_VIEW(SetGraphicsRootShaderResourceView, GRAPHICS, D3D12_ROOT_PARAMETER_TYPE_SRV,
          d12__msg_set_root_shader_resource_view_invalid, pfnSetGraphicsRootShaderResourceView,
          D12_DRED_ROOT_GRAPHICS_SRV)
ROOT_VIEW(SetGraphicsRootUnorderedAccessView, GRAPHICS, D3D12_ROOT_PARAMETER_TYPE_UAV,
          d12__msg_set_root_unordered_access_view_invalid, pfnSetGraphicsRootUnorderedAccessView,
          D12_DRED_ROOT_GRAPHICS_UAV)
ROOT_VIEW(SetComputeRootConstantBufferView, COMPUTE, D3D12_ROOT_PARAMETER_TYPE_CBV,
          d12__msg_set_root_constant_buffer_view_invalid, pfnSetComputeRootConstantBufferView,
          D12_DRED_ROOT_COMPUTE_CBV)
ROOT_VIEW(SetComputeRootShaderResourceView, COMPUTE, D3D12_ROOT_PARAMETER_TYPE_SRV,
          d12__msg_set_root_shader_resource_view_invalid, pfnSetComputeRootShaderResourceView,
          D12_DRED_ROOT_COMPUTE_SRV)
ROOT_VIEW(SetComputeRootUnorderedAccessView, COMPUTE, D3D12_ROOT_PARAMETER_TYPE_UAV,
          d12__msg_set_root_unordered_access_view_invalid, pfnSetComputeRootUnorderedAccessView,
          D12_DRED_ROOT_COMPUTE_UAV)
#undef ROOT_VIEW
