/* The Vulkan driver's cache of buffer memory, and zeroing at first use (docs/vulkan.md "Buffer memory").
 *
 * Creating a committed buffer cost a VkBuffer, a VkDeviceMemory, a mapping and a memset of its whole span (on
 * lavapipe a fresh allocation is also page faults). Two changes, as vkd3d-proton and DXVK avoid the same costs
 * (../shared/reference/vulkan-anchors.md: vkd3d-proton suballocates small buffers from larger chunks, DXVK keeps
 * freed chunks for reuse):
 *
 * - **A cache of released Vulkan buffers.** When the last reference of a buffer goes (no resource, no recording and
 *   no kernel names it: the GPU is done with it), its VkBuffer + VkDeviceMemory (+ mapping, device address) are kept
 *   for the next buffer of the same memory type and span, up to D12_VKDRV_CACHE_ENTRIES entries and
 *   D12_VKDRV_CACHE_BYTES bytes per device, spans up to D12_VKDRV_CACHE_MAX_SPAN. The GPU VA is not the Vulkan
 *   memory: a reused buffer gets a VA of its own from the VA space (a released range only after 65 000 further
 *   releases, gap after it) and its old VA's page-table entries were cleared when its resource was destroyed.
 * - **Zeroed at first use**, not at creation (as the reference driver's committed buffers, docs/performance.md):
 *   memory that is host-visible is zeroed by the first of Map, a recorded copy or write that names it (the record-
 *   time resolve), or a kernel that may read it (the timeline's hold) — every path by which its bytes can be read
 *   or written goes through one of these first. Only the bytes that may be nonzero are cleared: a fresh allocation's
 *   whole span, a reused buffer's previous Width (DEFAULT: only range-checked GPU copies and writes, inside Width,
 *   ever wrote it) or span (UPLOAD, READBACK: the application had a pointer). One compare-exchange lets exactly one
 *   thread zero; the others wait for it. Memory that is not host-visible is still filled on the GPU at creation
 *   and at reuse (d12__vkdrv_run_once). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "drvcommon_once.h"
#include "vkdrv.h"

static void destroy_vk(d12__vkdrv_buffer *buffer)
{
    VkDevice vk = buffer->device->vk;
    if (d12__vkdrv_abandoned(buffer->device)) { /* the work that never completed may read it (vkdrv_stuck.c) */
        free(buffer);
        return;
    }
    if (buffer->mapped)
        vkUnmapMemory(vk, buffer->memory);
    vkDestroyBuffer(vk, buffer->vk, NULL);
    vkFreeMemory(vk, buffer->memory, NULL);
    free(buffer);
}

void d12__vkdrv_buffer_ready(d12__vkdrv_buffer *buffer)
{
    if (!d12__drv_once_claim(&buffer->zero_state))
        return;
    d12__vkdrv_device *device = buffer->device;
    memset(buffer->mapped, 0, (size_t)buffer->dirty);
    VkMemoryPropertyFlags flags = device->adapter->memory.memoryTypes[buffer->memory_type].propertyFlags;
    if (!(flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                     .memory = buffer->memory,
                                     .size = VK_WHOLE_SIZE};
        vkFlushMappedMemoryRanges(device->vk, 1, &range);
    }
    buffer->dirty = 0;
    d12__drv_once_done(&buffer->zero_state);
}

void d12__vkdrv_buffer_zero_later(d12__vkdrv_buffer *buffer, UINT64 dirty)
{
    buffer->dirty = dirty;
    atomic_store_explicit(&buffer->zero_state, D12_DRV_ONCE_PENDING, memory_order_relaxed);
}

d12__vkdrv_buffer *d12__vkdrv_cache_take(d12__vkdrv_device *device, uint32_t memory_type, UINT64 span)
{
    d12__vkdrv_buffer *found = NULL;
    pthread_mutex_lock(&device->cache_lock);
    for (size_t i = device->cache_count; i-- > 0;) {
        d12__vkdrv_buffer *b = device->cache[i];
        if (b->memory_type == memory_type && b->span == span) {
            found = b;
            device->cache[i] = device->cache[--device->cache_count];
            device->cache_bytes -= span;
            break;
        }
    }
    pthread_mutex_unlock(&device->cache_lock);
    return found;
}

/* The last reference went: keep the Vulkan objects for a later buffer, or destroy them. */
void d12__vkdrv_cache_put(d12__vkdrv_buffer *buffer)
{
    d12__vkdrv_device *device = buffer->device;
    if (buffer->span <= D12_VKDRV_CACHE_MAX_SPAN) {
        /* What the next user must clear (see the top of the file); a buffer never touched keeps its own count. */
        if (buffer->mapped && atomic_load_explicit(&buffer->zero_state, memory_order_acquire) == D12_DRV_ONCE_DONE)
            buffer->dirty = buffer->heap_type == D3D12DDI_HEAP_TYPE_DEFAULT ? buffer->size : buffer->span;
        pthread_mutex_lock(&device->cache_lock);
        bool kept = device->cache_count < D12_VKDRV_CACHE_ENTRIES &&
                    device->cache_bytes + buffer->span <= D12_VKDRV_CACHE_BYTES;
        if (kept) {
            device->cache[device->cache_count++] = buffer;
            device->cache_bytes += buffer->span;
        }
        pthread_mutex_unlock(&device->cache_lock);
        if (kept)
            return;
    }
    destroy_vk(buffer);
}

void d12__vkdrv_cache_drain(d12__vkdrv_device *device)
{
    pthread_mutex_lock(&device->cache_lock);
    for (size_t i = 0; i < device->cache_count; i++)
        destroy_vk(device->cache[i]);
    device->cache_count = 0;
    device->cache_bytes = 0;
    pthread_mutex_unlock(&device->cache_lock);
}
