/* The fences of d12rt's DRED report (issue 32 item 3; issue 29's deadlock by identity): each fence a pending wait or
 * queued signal names, once, with its identity (the application's ID3D12Fence pointer), its highest value and its
 * last changes as the fence's history ring kept them (runtime/gpu/fence.c), each change's setter in words. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "fence.h"
#include "queue.h"

uint64_t d12__dred_fence_id(struct d12_fence *fence)
{
    return (uint64_t)(uintptr_t)&fence->com; /* what the application holds as its ID3D12Fence * */
}

/* "queue 'Streaming queue'" for a queue of the device (children_lock held by the caller), "CPU thread N" for a CPU
 * Signal; a queue destroyed since is no longer known by name. */
static char *setter_words(struct d12_device *device, const d12_fence_change *change)
{
    char *words = NULL;
    if (change->queue == NULL)
        return asprintf(&words, "CPU thread %u", change->thread) < 0 ? NULL : words;
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        if ((const void *)queue != change->queue)
            continue;
        bool out_of_memory;
        char *name = d12__object_name_dup(&queue->device_child.object, &out_of_memory);
        int n = name ? asprintf(&words, "queue '%s'", name) : asprintf(&words, "an unnamed queue");
        free(name);
        return n < 0 ? NULL : words;
    }
    return asprintf(&words, "a queue destroyed since") < 0 ? NULL : words;
}

/* One fence into the report's `fences`, once, with its history (the fence lock: no queue lock may be held). */
static void note_fence(struct d12_device *device, d12dred_report *r, struct d12_fence *fence)
{
    uint64_t id = d12__dred_fence_id(fence);
    if (d12dred_report_find_fence(r, id))
        return;
    d12_fence_change changes[D12_FENCE_HISTORY];
    UINT64 highest = 0;
    uint32_t count = d12__fence_history(fence, changes, &highest);
    UINT64 at = atomic_load_explicit(&fence->value, memory_order_acquire);
    bool out_of_memory;
    char *name = d12__object_name_dup(&fence->device_child.object, &out_of_memory);
    d12dred_fence *f = d12dred_report_add_fence(r, id, name, at, highest > at ? highest : at);
    free(name);
    for (uint32_t i = 0; f && i < count; i++) {
        char *by = setter_words(device, &changes[i]);
        d12dred_fence_add_change(f, changes[i].value, by,
                                 changes[i].queue ? "ID3D12CommandQueue::Signal" : "ID3D12Fence::Signal");
        free(by);
    }
}

void d12__dred_fence_set_add(d12_dred_fence_set *set, struct d12_fence *fence)
{
    for (size_t i = 0; i < set->count; i++)
        if (set->items[i] == fence)
            return;
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 8;
        struct d12_fence **items = realloc(set->items, capacity * sizeof *items);
        if (!items)
            return; /* out of memory: this fence's history is left out */
        set->items = items;
        set->capacity = capacity;
    }
    d12__fence_hold(fence); /* an atomic count: no lock */
    set->items[set->count++] = fence;
}

void d12__dred_fence_set_note(struct d12_device *device, d12dred_report *r, d12_dred_fence_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        note_fence(device, r, set->items[i]);
}

void d12__dred_fence_set_release(d12_dred_fence_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        d12__fence_unhold(set->items[i]);
    free(set->items);
    *set = (d12_dred_fence_set){0};
}
