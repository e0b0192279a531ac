/* The Vulkan driver's command allocators: a VkCommandPool each, refcounted, because a recording still executing
 * keeps its pool alive after the allocator is destroyed (docs/vulkan.md, "Objects"). A pool is externally
 * synchronized with every command buffer recording from it, so the command buffers a timeline releases are handed
 * back to the pool's owner and freed on the recording thread (vkdrv_list.c calls d12__vkdrv_pool_collect). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "vkdrv.h"

void d12__vkdrv_pool_release(d12__vkdrv_pool *pool)
{
    if (!pool || atomic_fetch_sub_explicit(&pool->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (!d12__vkdrv_abandoned(pool->device)) /* else the work that never completed may use it (vkdrv_stuck.c) */
        vkDestroyCommandPool(pool->device->vk, pool->vk, NULL); /* frees every command buffer still in it */
    free(pool->garbage);
    pthread_mutex_destroy(&pool->garbage_lock);
    free(pool);
}

/* Free the command buffers the timelines gave back: on the thread that owns the pool (the recording thread). */
void d12__vkdrv_pool_collect(d12__vkdrv_pool *pool)
{
    pthread_mutex_lock(&pool->garbage_lock);
    if (pool->garbage_count && !d12__vkdrv_abandoned(pool->device))
        vkFreeCommandBuffers(pool->device->vk, pool->vk, (uint32_t)pool->garbage_count, pool->garbage);
    pool->garbage_count = 0;
    pthread_mutex_unlock(&pool->garbage_lock);
}

/* A recording's command buffer once nothing executes it: freed now when the allocator is gone (nobody records from
 * the pool any more), else handed to the pool's owner. Out of memory it stays in the pool until the pool goes. */
void d12__vkdrv_pool_give_back(d12__vkdrv_pool *pool, VkCommandBuffer cb)
{
    pthread_mutex_lock(&pool->garbage_lock);
    if (!pool->allocator_alive) {
        if (!d12__vkdrv_abandoned(pool->device))
            vkFreeCommandBuffers(pool->device->vk, pool->vk, 1, &cb);
    } else {
        if (pool->garbage_count == pool->garbage_capacity) {
            size_t capacity = pool->garbage_capacity ? pool->garbage_capacity * 2 : 16;
            VkCommandBuffer *grown = realloc(pool->garbage, capacity * sizeof *grown);
            if (grown) {
                pool->garbage = grown;
                pool->garbage_capacity = capacity;
            }
        }
        if (pool->garbage_count < pool->garbage_capacity)
            pool->garbage[pool->garbage_count++] = cb;
    }
    pthread_mutex_unlock(&pool->garbage_lock);
}

SIZE_T APIENTRY d12__vkdrv_calc_private_allocator_size(D3D12DDI_HDEVICE device,
                                                       const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_command_allocator);
}

HRESULT APIENTRY d12__vkdrv_create_allocator(D3D12DDI_HDEVICE handle,
                                             const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args,
                                             D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    if (!args || !allocator.pDrvPrivate)
        return E_INVALIDARG;
    d12__vkdrv_report_mode(device);
    d12__vkdrv_pool *pool = calloc(1, sizeof *pool);
    if (!pool || pthread_mutex_init(&pool->garbage_lock, NULL) != 0) {
        free(pool);
        return E_OUTOFMEMORY;
    }
    atomic_init(&pool->refs, 1);
    pool->device = device;
    pool->allocator_alive = true;
    VkCommandPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = device->adapter->queue_family};
    if (vkCreateCommandPool(device->vk, &info, NULL, &pool->vk) != VK_SUCCESS) {
        pthread_mutex_destroy(&pool->garbage_lock);
        free(pool);
        return E_OUTOFMEMORY;
    }
    ((d12__vkdrv_command_allocator *)allocator.pDrvPrivate)->pool = pool;
    return S_OK;
}

VOID APIENTRY d12__vkdrv_destroy_allocator(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    (void)device;
    d12__vkdrv_pool *pool = ((d12__vkdrv_command_allocator *)allocator.pDrvPrivate)->pool;
    d12__vkdrv_pool_collect(pool);
    pthread_mutex_lock(&pool->garbage_lock);
    pool->allocator_alive = false;
    pthread_mutex_unlock(&pool->garbage_lock);
    d12__vkdrv_pool_release(pool);
}

/* The command buffers of recordings that completed are freed; those still executing (or still held by a list)
 * keep theirs, since D3D12's rule that an allocator is reset only after its work completed is the application's to
 * keep and breaking it must not crash the process. */
VOID APIENTRY d12__vkdrv_reset_allocator(D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    d12__vkdrv_pool_collect(((d12__vkdrv_command_allocator *)allocator.pDrvPrivate)->pool);
}
