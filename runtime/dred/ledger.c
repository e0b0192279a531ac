/* The allocation ledger for page-fault DRED (dred_internal.h): O(1) per committed-buffer create and release.
 *
 * An allocation's range is its whole 64 KiB-granular allocation: [GPU VA, GPU VA + Width rounded up to 64 KiB).
 * The GPU VA comes from the driver (pfnGetResourceGPUVirtualAddress); the 64 KiB rounding is the DDI's rule for
 * committed buffers (D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT, the page size the reference driver maps and faults
 * on). A committed buffer is one node of type RESOURCE: its implicit heap has no node of its own. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "dred_internal.h"
#include "heap.h"
#include "resource.h"

#define D12_DRED_ALLOCATION_GRANULARITY 65536ull

HRESULT d12__dred_ledger_init(struct d12_dred *dred)
{
    dred->live.prev = dred->live.next = &dred->live;
    dred->heaps.prev = dred->heaps.next = &dred->heaps;
    dred->freed = calloc(D12_DRED_FREED_RING, sizeof *dred->freed);
    /* the timeline serves page-fault DRED's report only (not drm_va.c's VA naming); calloc'ed pages are touched only
     * as events come, so a device that creates few resources pays little of its 1.2 MiB */
    if (dred->freed && dred->enabled.page_fault && !dred->events)
        dred->events = calloc(D12_DRED_EVENT_RING, sizeof *dred->events);
    return dred->freed && (dred->events || !dred->enabled.page_fault) ? S_OK : E_OUTOFMEMORY;
}

void d12__dred_freed_clear(d12_dred_freed *record)
{
    free(record->name_a);
    free(record->name_w);
    free(record->active_name);
    memset(record, 0, sizeof *record);
}

void d12__dred_ledger_fini(struct d12_dred *dred)
{
    if (dred->freed) {
        for (unsigned i = 0; i < D12_DRED_FREED_RING; i++)
            d12__dred_freed_clear(&dred->freed[i]);
        free(dred->freed);
        dred->freed = NULL;
    }
    free(dred->events);
    dred->events = NULL;
    /* Live records belong to live resources, which hold the device: none is left at its destruction. */
}

static UINT64 allocation_size(UINT64 width)
{
    UINT64 rounded = (width + D12_DRED_ALLOCATION_GRANULARITY - 1) & ~(D12_DRED_ALLOCATION_GRANULARITY - 1);
    return rounded < width ? width : rounded; /* no wrap for an absurd Width */
}

uint64_t d12__dred_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO's: no system call */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t d12__dred_ledger_push_event(struct d12_dred *dred, bool released, uint64_t created, UINT64 start,
                                     UINT64 size, uint32_t type, uint64_t free_seq, uint64_t time_ns)
{
    if (dred->events == NULL)
        return 0;
    uint64_t seq = ++dred->event_total; /* the oldest falls out: "the newest D12_DRED_EVENT_RING" */
    dred->events[(seq - 1) % D12_DRED_EVENT_RING] =
        (d12_dred_event){seq, created ? created : seq, time_ns,
                         atomic_load_explicit(&dred->last_serial, memory_order_relaxed), dred->last_queue, start, size,
                         free_seq, type, released};
    return seq;
}

void d12__dred_resource_created(struct d12_resource *resource)
{
    struct d12_dred *dred = resource->device_child.device->dred;
    if (dred == NULL || !(dred->enabled.page_fault || dred->va_names)) /* va_names: runtime/dred/drm_va.c */
        return;
    d12_dred_allocation *record = &resource->dred_allocation; /* embedded: nothing to allocate */
    *record = (d12_dred_allocation){NULL, NULL, resource, resource->gpu_address, allocation_size(resource->desc.Width),
                                    resource->desc.Width, 0};
    uint64_t now = dred->events ? d12__dred_now_ns() : 0;
    pthread_mutex_lock(&dred->ledger_lock);
    record->created = d12__dred_ledger_push_event(dred, false, 0, record->start, record->size,
                                                  D3D12_DRED_ALLOCATION_TYPE_RESOURCE, 0, now);
    record->next = &dred->live;
    record->prev = dred->live.prev;
    dred->live.prev->next = record;
    dred->live.prev = record;
    dred->live_count++;
    pthread_mutex_unlock(&dred->ledger_lock);
}

uint64_t d12__dred_ledger_push_freed(struct d12_device *device, d12_dred_freed *freed)
{
    struct d12_dred *dred = device->dred;
    if (d12__dred_frozen(device)) /* after a removal the frozen output is what counts: *freed stays the caller's */
        return 0;
    freed->seq = atomic_fetch_add_explicit(&dred->free_seq, 1, memory_order_relaxed) + 1;
    d12_dred_freed *slot = &dred->freed[dred->freed_total % D12_DRED_FREED_RING];
    d12_dred_freed old = *slot; /* "of the 65 000 most recently freed": the oldest falls out */
    *slot = *freed;
    dred->freed_total++;
    uint64_t seq = freed->seq;
    *freed = old;
    return seq;
}

void d12__dred_resource_released(struct d12_resource *resource)
{
    struct d12_dred *dred = resource->device_child.device->dred;
    d12_dred_allocation *record = &resource->dred_allocation;
    if (dred == NULL || record->resource == NULL)
        return; /* page-fault DRED off */
    /* "named as it was": the names are copied now, before the object's private data goes */
    d12_dred_freed freed = {record->start, record->size, record->width, &resource->com.resource, NULL, NULL, 0,
                            D3D12_DRED_ALLOCATION_TYPE_RESOURCE,
                            resource->placed_heap ? resource->placed_heap->dred.id : 0, NULL, 0};
    if (d12__object_dying_has_private_data(&resource->device_child.object))
        d12__dred_object_names(&resource->device_child.object, &freed.name_a, &freed.name_w);
    uint64_t now = dred->events ? d12__dred_now_ns() : 0;
    pthread_mutex_lock(&dred->ledger_lock);
    record->prev->next = record->next;
    record->next->prev = record->prev;
    record->resource = NULL;
    dred->live_count--;
    d12__dred_heap_resource_released(resource, &freed);
    uint64_t free_seq = d12__dred_ledger_push_freed(resource->device_child.device, &freed);
    d12__dred_ledger_push_event(dred, true, record->created, record->start, record->size,
                                D3D12_DRED_ALLOCATION_TYPE_RESOURCE, free_seq, now);
    pthread_mutex_unlock(&dred->ledger_lock);
    d12__dred_freed_clear(&freed);
}
