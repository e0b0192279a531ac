/* The Vulkan driver's command lists: their lifecycle (a fresh recording at Create and Reset, Close, Destroy), the
 * recordings the queues hold, and the list's DDI table (the allocators' pools: vkdrv_allocator.c; the files that
 * record the ops: vkdrv_list.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

void d12__vkdrv_recording_release(d12__vkdrv_recording *recording)
{
    if (!recording || atomic_fetch_sub_explicit(&recording->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (size_t i = 0; i < recording->buffer_count; i++)
        d12__vkdrv_buffer_release(recording->buffers[i]);
    for (size_t i = 0; i < recording->cb_count; i++)
        if (recording->cbs[i])
            d12__vkdrv_pool_give_back(recording->pool, recording->cbs[i]);
    free(recording->cbs);
    for (size_t i = 0; i < recording->arena_count && !d12__vkdrv_abandoned(recording->device); i++) {
        vkDestroyBuffer(recording->device->vk, recording->arena[i].buffer, NULL);
        vkFreeMemory(recording->device->vk, recording->arena[i].memory, NULL);
    }
    free(recording->arena);
    d12__vkdrv_cs_log_free(recording->cs);
    d12__vkdrv_pool_release(recording->pool);
    free(recording->buffers);
    free(recording->ops);
    free(recording);
}

d12__vkdrv_recording *d12__vkdrv_list_recording(D3D12DDI_HCOMMANDLIST handle)
{
    d12__vkdrv_recording *recording = d12__vkdrv_list_of(handle)->recording;
    if (recording)
        atomic_fetch_add_explicit(&recording->refs, 1, memory_order_relaxed);
    return recording;
}

SIZE_T APIENTRY d12__vkdrv_calc_private_list_size(D3D12DDI_HDEVICE device,
                                                  const D3D12DDIARG_CREATECOMMANDLIST_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_command_list);
}

/* A fresh recording into a new command buffer of `pool`, opened by the ExecuteCommandLists-boundary barrier. */
static HRESULT start_recording(d12__vkdrv_command_list *list, d12__vkdrv_pool *pool)
{
    d12__vkdrv_recording_release(list->recording);
    list->recording = NULL;
    list->closed = false;
    list->index_buffer_bound = false;
    list->graphics.zero_mask = list->compute.zero_mask = 0;
    d12__vkdrv_copies_ordered(list);
    memset(&list->bound, 0, sizeof list->bound);
    list->estimate_ns = list->crumb_ns = 0;
    list->crumb_pending = list->marker_pending = false;
    d12__vkdrv_cs_reset(list); /* D3D12: Reset clears the binding state */
    d12__vkdrv_pool_collect(pool);
    d12__vkdrv_recording *recording = calloc(1, sizeof *recording);
    if (!recording)
        return E_OUTOFMEMORY;
    atomic_init(&recording->refs, 1);
    recording->device = list->device;
    recording->serial = atomic_fetch_add_explicit(&list->device->diag.next_serial, 1, memory_order_relaxed);
    recording->rt_list = list->rt_list;
    recording->crumb_block = D12_VKDRV_NO_ARENA;
    recording->pool = pool;
    atomic_fetch_add_explicit(&pool->refs, 1, memory_order_relaxed);
    if (!d12__vkdrv_new_segment(recording)) {
        d12__vkdrv_recording_release(recording);
        return E_OUTOFMEMORY;
    }
    list->recording = recording; /* the boundary barrier opens its first command buffer (open_current) */
    return S_OK;
}

HRESULT APIENTRY d12__vkdrv_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                        D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRTCOMMANDLIST rt_list)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (!args || !list || !args->hDrvCommandAllocator.pDrvPrivate)
        return E_INVALIDARG;
    memset(list, 0, sizeof *list);
    list->device = (d12__vkdrv_device *)device.pDrvPrivate;
    list->rt_list = rt_list;
    list->state_index = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    HRESULT hr = start_recording(list, ((d12__vkdrv_command_allocator *)args->hDrvCommandAllocator.pDrvPrivate)->pool);
    if (FAILED(hr)) {
        d12__vkdrv_recording_release(list->recording);
        d12__vkdrv_ranges_free(&list->copy_dsts);
        list->recording = NULL;
    }
    return hr;
}

VOID APIENTRY d12__vkdrv_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST handle)
{
    (void)device;
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (list->recording && !list->closed && d12__vkdrv_current(list))
        vkEndCommandBuffer(d12__vkdrv_current(list));
    d12__vkdrv_recording_release(list->recording);
    list->recording = NULL;
    d12__vkdrv_ranges_free(&list->copy_dsts);
    d12__vkdrv_cs_free(list);
}

static VOID APIENTRY close_list(D3D12DDI_HCOMMANDLIST handle)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (list->recording && !list->closed && d12__vkdrv_open_current(list)) {
        d12__vkdrv_crumb_close(list);
        d12__vkdrv_checkpoint(list->device, d12__vkdrv_current(list), list->recording->serial,
                              list->recording->op_count);
        d12__vkdrv_host_barrier(d12__vkdrv_current(list));
        if (vkEndCommandBuffer(d12__vkdrv_current(list)) != VK_SUCCESS)
            d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        d12__vkdrv_validation_drain(list->device, true);
    }
    list->closed = true;
}

static VOID APIENTRY reset_list(D3D12DDI_HCOMMANDLIST handle, const D3D12DDIARG_RESETCOMMANDLIST_0126 *args)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (list->recording && !list->closed && d12__vkdrv_current(list))
        vkEndCommandBuffer(d12__vkdrv_current(list));
    if (!args || !args->hDrvCommandAllocator.pDrvPrivate) {
        d12__vkdrv_list_error(list, E_INVALIDARG);
        return;
    }
    if (FAILED(start_recording(list, ((d12__vkdrv_command_allocator *)args->hDrvCommandAllocator.pDrvPrivate)->pool)))
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
}

const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 d12__vkdrv_command_list_funcs = {
    close_list,
    reset_list,
    d12__vkdrv_set_vertex_buffers,
    d12__vkdrv_set_index_buffer,
    d12__vkdrv_set_graphics_root_cbv,
    d12__vkdrv_set_graphics_root_srv,
    d12__vkdrv_set_graphics_root_uav,
    d12__vkdrv_set_compute_root_cbv,
    d12__vkdrv_set_compute_root_srv,
    d12__vkdrv_set_compute_root_uav,
    d12__vkdrv_draw,
    d12__vkdrv_draw_indexed,
    d12__vkdrv_dispatch,
    d12__vkdrv_copy_buffer_region,
    d12__vkdrv_copy_resource,
    d12__vkdrv_resource_barrier,
    d12__vkdrv_write_buffer_immediate,
};
