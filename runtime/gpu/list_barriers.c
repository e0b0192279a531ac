/* ID3D12GraphicsCommandList::ResourceBarrier (list_internal.h): the API's barriers as the DDI's, DRED's note of
 * aliasing barriers. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "d12_messages.h"
#include "device.h"
#include "dred/breadcrumbs.h"
#include "dred/dred.h"
#include "foreign.h"
#include "list_internal.h"
#include "resource.h"

/* What convert_barrier answers for a resource of another device (already reported, by d12__foreign). */
static const char k_foreign_barrier[] = "its resource was created by another device";

/* One API barrier as the DDI's; NULL: what is wrong with it. */
static const char *convert_barrier(struct d12_device *device, const D3D12_RESOURCE_BARRIER *barrier,
                                   D3D12DDIARG_RESOURCE_BARRIER_0126 *out)
{
    memset(out, 0, sizeof *out);
    switch (barrier->Type) {
    case D3D12_RESOURCE_BARRIER_TYPE_TRANSITION: {
        struct d12_resource *resource = d12__resource_unwrap(barrier->Transition.pResource);
        if (!resource)
            return "Transition.pResource is NULL or not a d12rt resource";
        if (d12__foreign(device, resource->device_child.device, "ID3D12GraphicsCommandList::ResourceBarrier",
                         "Transition.pResource", "the call is dropped and Close returns E_INVALIDARG"))
            return k_foreign_barrier;
        *out = (D3D12DDIARG_RESOURCE_BARRIER_0126){D3D12DDI_RESOURCE_BARRIER_TYPE_TRANSITION, resource->handle,
                                                   barrier->Transition.StateBefore, barrier->Transition.StateAfter};
        return NULL;
    }
    case D3D12_RESOURCE_BARRIER_TYPE_UAV: {
        struct d12_resource *resource = d12__resource_unwrap(barrier->UAV.pResource);
        if (barrier->UAV.pResource && !resource)
            return "UAV.pResource is not a d12rt resource";
        if (resource && d12__foreign(device, resource->device_child.device, "ID3D12GraphicsCommandList::ResourceBarrier",
                                     "UAV.pResource", "the call is dropped and Close returns E_INVALIDARG"))
            return k_foreign_barrier;
        out->Type = D3D12DDI_RESOURCE_BARRIER_TYPE_UAV;
        if (resource)
            out->hResource = resource->handle;
        return NULL;
    }
    case D3D12_RESOURCE_BARRIER_TYPE_ALIASING: {
        struct d12_resource *before = d12__resource_unwrap(barrier->Aliasing.pResourceBefore);
        struct d12_resource *after = d12__resource_unwrap(barrier->Aliasing.pResourceAfter);
        const char *method = "ID3D12GraphicsCommandList::ResourceBarrier", *why = "the call is dropped and Close "
                             "returns E_INVALIDARG";
        if ((before && d12__foreign(device, before->device_child.device, method, "Aliasing.pResourceBefore", why)) ||
            (after && d12__foreign(device, after->device_child.device, method, "Aliasing.pResourceAfter", why)))
            return k_foreign_barrier;
        /* The driver gets the resource becoming active (d3d12ddi.h): NULL, any resource may become so. */
        out->Type = D3D12DDI_RESOURCE_BARRIER_TYPE_ALIASING;
        if (after)
            out->hResource = after->handle;
        return NULL;
    }
    default:
        return "unknown D3D12_RESOURCE_BARRIER_TYPE";
    }
}

/* DRED's ledger learns which placed resource each aliasing barrier activated, and at which op (docs/heaps.md). */
static void note_aliasing(struct d12_command_list *self, UINT count, const D3D12_RESOURCE_BARRIER *barriers)
{
    UINT32 op = self->dred_work && self->dred_work->count ? self->dred_work->count - 1 : D12_DRED_OP_INDEX_UNKNOWN;
    for (UINT i = 0; i < count; i++) {
        struct d12_resource *after = barriers[i].Type == D3D12_RESOURCE_BARRIER_TYPE_ALIASING
                                         ? d12__resource_unwrap(barriers[i].Aliasing.pResourceAfter)
                                         : NULL;
        if (after && after->placed_heap)
            d12__dred_aliasing_barrier(after, op);
    }
}

void d12_command_list_ResourceBarrier(struct d12_command_list *self, UINT NumBarriers,
                                      const D3D12_RESOURCE_BARRIER *pBarriers)
{
    if (!d12__list_recording(self, "ResourceBarrier") || d12__bundle_refuses(self, "ResourceBarrier") || NumBarriers == 0)
        return;
    D3D12DDIARG_RESOURCE_BARRIER_0126 stack[D12_BARRIER_STACK];
    D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers =
        NumBarriers <= D12_BARRIER_STACK ? stack : malloc(NumBarriers * sizeof *barriers);
    if (!barriers || !pBarriers) {
        if (!pBarriers)
            d12__msg_resource_barrier_invalid(self->device_child.device->info_queue, 0, "pBarriers is NULL");
        d12__list_record_error(self, barriers ? E_INVALIDARG : E_OUTOFMEMORY);
    } else {
        UINT i = 0;
        const char *problem = NULL;
        for (; i < NumBarriers && !problem; i++)
            problem = convert_barrier(self->device_child.device, &pBarriers[i], &barriers[i]);
        if (problem) {
            if (problem != k_foreign_barrier)
                d12__msg_resource_barrier_invalid(self->device_child.device->info_queue, i - 1, problem);
            d12__list_record_error(self, E_INVALIDARG);
        } else {
            d12__list_before_work(self, D12_WORK_RESOURCE_BARRIER); /* GPU work like any other: it gets a state index */
            self->ddi->pfnResourceBarrier(self->handle, NumBarriers, barriers);
            d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER);
            note_aliasing(self, NumBarriers, pBarriers);
        }
    }
    if (barriers != stack)
        free(barriers);
}
