/* The list's compute pipeline (list_internal.h; docs/pipelines.md; issue 31 items 1-2): SetPipelineState and the
 * initial state of CreateCommandList / Reset, the debug layer's checks of a Dispatch (a pipeline state and a compute
 * root signature set), and ClearUnorderedAccessViewUint/Float on buffer UAVs. Each is validated as the debug layer
 * does and forwarded through the driver's binding table (D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING) when it
 * has one; a driver without it gets nothing, and its dispatches run its check kernel as before. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "d12_messages.h"
#include "descriptor_heap.h"
#include "device.h"
#include "dred/breadcrumbs.h"
#include "foreign.h"
#include "list_internal.h"
#include "pipeline_state.h"
#include "resource.h"
#include "root_signature.h"

/* ======== The pipeline state ======== */

void d12__list_set_pipeline_state(struct d12_command_list *list, ID3D12PipelineState *iface, const char *method)
{
    struct d12_device *device = list->device_child.device;
    struct d12_pipeline_state *state = d12__pipeline_state_from(iface);
    if (!state) {
        d12__msg_set_pipeline_state_invalid(device->info_queue, method,
                                            iface ? "the pipeline state is not a d12rt pipeline state"
                                                  : "pPipelineState is NULL");
        return;
    }
    if (d12__foreign(device, state->device_child.device, method, "the pipeline state", "the call is ignored"))
        return;
    d12_list_bindings *bindings = d12__list_bindings_of(list);
    if (!bindings || bindings->pipeline == state || !d12__list_keep(list, state, NULL))
        return;
    d12_pipeline_state_AddRef(state);
    if (bindings->pipeline)
        d12_pipeline_state_Release(bindings->pipeline);
    bindings->pipeline = state;
    if (list->binding)
        list->binding->pfnSetPipelineState(list->handle, state->handle);
}

void d12_command_list_SetPipelineState(struct d12_command_list *self, ID3D12PipelineState *pPipelineState)
{
    if (d12__list_recording(self, "SetPipelineState"))
        d12__list_set_pipeline_state(self, pPipelineState, "SetPipelineState");
}

/* ======== Dispatch: what the debug layer checks before it (no recording error: Close stays S_OK) ======== */

void d12__list_check_dispatch(struct d12_command_list *list)
{
    d12_list_bindings *bindings = d12__list_bindings_of(list);
    if (!bindings)
        return;
    UINT32 ordinal = bindings->dispatches++;
    if (!bindings->pipeline)
        d12__msg_command_list_pipeline_state_not_set(list->device_child.device->info_queue, ordinal);
    /* A bundle inherits its caller's root signature (not its pipeline state): only its caller can tell. */
    if (!bindings->root_signature[1] && list->type != D3D12_COMMAND_LIST_TYPE_BUNDLE)
        d12__msg_command_list_dispatch_root_signature_not_set(list->device_child.device->info_queue, ordinal);
}

/* ======== ClearUnorderedAccessViewUint / Float (buffer UAVs) ======== */

/* The GPU handle must be a descriptor of the bound shader-visible CBV_SRV_UAV heap ("ViewGPUHandleInCurrentHeap"),
 * the CPU handle one of a CBV_SRV_UAV heap that is not shader-visible (the debug layer: the clear reads the view's
 * description from a CPU-readable heap). NULL: both are. */
static const char *check_clear_handles(const struct d12_command_list *list, UINT64 gpu, SIZE_T cpu)
{
    const struct d12_descriptor_heap *heap = list->bindings ? list->bindings->heaps[0] : NULL;
    if (!heap)
        return "no CBV_SRV_UAV descriptor heap is set (SetDescriptorHeaps), so ViewGPUHandleInCurrentHeap names nothing";
    UINT64 end = heap->gpu_start + (UINT64)heap->desc.NumDescriptors * heap->increment;
    if (gpu < heap->gpu_start || gpu >= end || (gpu - heap->gpu_start) % heap->increment)
        return "ViewGPUHandleInCurrentHeap is not a descriptor of the CBV_SRV_UAV heap set on the list";
    d12_descriptor_run run;
    if (!d12__descriptor_find(cpu, &run) || run.device != list->device_child.device ||
        run.type != D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        return "ViewCPUHandle is not a descriptor of a live CBV_SRV_UAV heap of the device";
    if (run.shader_visible)
        return "ViewCPUHandle is in a shader-visible heap; it must be in a heap that is not (the CPU reads it)";
    return NULL;
}

/* The resource: a d12rt buffer of the list's device. */
static struct d12_resource *clear_resource(struct d12_command_list *list, ID3D12Resource *iface, const char *method)
{
    struct d12_resource *resource = d12__resource_unwrap(iface);
    const char *problem = !iface      ? "pResource is NULL"
                          : !resource ? "pResource is not a d12rt resource"
                          : resource->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER
                              ? "pResource is not a buffer (d12rt clears buffer UAVs only)"
                              : NULL;
    if (problem) {
        d12__msg_clearunorderedaccessview_invalid_resource_ptr(list->device_child.device->info_queue, method, problem);
        return NULL;
    }
    if (d12__foreign(list->device_child.device, resource->device_child.device, method, "pResource",
                     "the call is ignored"))
        return NULL;
    return resource;
}

/* The checks of both forms; the resource to clear, or NULL (reported, dropped). A bundle may not clear. */
static struct d12_resource *checked_clear(struct d12_command_list *list, const char *method, UINT64 gpu, SIZE_T cpu,
                                          ID3D12Resource *iface, const void *values)
{
    if (list->type == D3D12_COMMAND_LIST_TYPE_BUNDLE) {
        if (atomic_load(&list->open))
            d12__bundle_refuse(list, method);
        return NULL;
    }
    if (!d12__list_recording(list, method))
        return NULL;
    struct d12_resource *resource = clear_resource(list, iface, method);
    if (!resource)
        return NULL;
    const char *problem = values ? check_clear_handles(list, gpu, cpu) : "Values is NULL";
    if (problem) {
        d12__msg_clear_unordered_access_view_invalid_descriptor_handle(list->device_child.device->info_queue, method,
                                                                       problem);
        return NULL;
    }
    return resource;
}

void d12_command_list_ClearUnorderedAccessViewUint(struct d12_command_list *self,
                                                   D3D12_GPU_DESCRIPTOR_HANDLE ViewGPUHandleInCurrentHeap,
                                                   D3D12_CPU_DESCRIPTOR_HANDLE ViewCPUHandle, ID3D12Resource *pResource,
                                                   const UINT Values[4], UINT NumRects, const D3D12_RECT *pRects)
{
    (void)NumRects; /* rectangles apply to textures; a buffer UAV is cleared whole, as on Windows */
    (void)pRects;
    struct d12_resource *resource = checked_clear(self, "ClearUnorderedAccessViewUint", ViewGPUHandleInCurrentHeap.ptr,
                                                  ViewCPUHandle.ptr, pResource, Values);
    if (!resource || !self->binding)
        return;
    self->binding->pfnClearUnorderedAccessViewUint(self->handle, ViewGPUHandleInCurrentHeap.ptr, ViewCPUHandle.ptr,
                                                   resource->handle, Values);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_CLEARUNORDEREDACCESSVIEW);
}

void d12_command_list_ClearUnorderedAccessViewFloat(struct d12_command_list *self,
                                                    D3D12_GPU_DESCRIPTOR_HANDLE ViewGPUHandleInCurrentHeap,
                                                    D3D12_CPU_DESCRIPTOR_HANDLE ViewCPUHandle,
                                                    ID3D12Resource *pResource, const FLOAT Values[4], UINT NumRects,
                                                    const D3D12_RECT *pRects)
{
    (void)NumRects;
    (void)pRects;
    struct d12_resource *resource = checked_clear(self, "ClearUnorderedAccessViewFloat",
                                                  ViewGPUHandleInCurrentHeap.ptr, ViewCPUHandle.ptr, pResource, Values);
    if (!resource || !self->binding)
        return;
    self->binding->pfnClearUnorderedAccessViewFloat(self->handle, ViewGPUHandleInCurrentHeap.ptr, ViewCPUHandle.ptr,
                                                    resource->handle, Values);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_CLEARUNORDEREDACCESSVIEW);
}
