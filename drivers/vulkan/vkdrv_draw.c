/* A list's bindings, draws and dispatches (vkdrv_list.h): the bindings are logged (an inline kernel's arguments
 * and the execution-time checks read them); a small draw or dispatch keeps its kernel's arguments and fault word in
 * the recording's arena and records no Vulkan command (its kernel runs only when the execution-time walk cannot
 * prove its reads safe: vkdrv_queue.c); a larger one ends the command buffer and runs, in chunks, between it and the
 * next (vkdrv_kernel.c). */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

/* A draw or dispatch of at most D12_VKDRV_INLINE_MAX_INVOCATIONS: its arguments (the bindings so far) and fault
 * word in the recording's arena, and no Vulkan command. Its kernel exists only to find the page faults of what it
 * reads, and everything it reads lies inside a bound view; the execution-time walk proves, for every draw, whether
 * each view lies wholly inside live buffers, which it then holds until the submission completed (vkdrv_check.c).
 * Such a draw's kernel could find nothing, so it is never run; only a draw the walk cannot prove (a view reaching
 * a released buffer or a gap: `may_fault`) gets its kernel, in the timeline's re-recording of the segment
 * (vkdrv_queue.c). So recording a draw costs no Vulkan command, no barrier and no checkpoint (issue 28: the kernel's
 * dispatch, its barrier and a checkpoint per draw made recording 10 000 draws 66.6x vkd3d on the H200;
 * docs/vulkan.md, "Draws and dispatches"). false: it runs at execution instead, closing the command buffer
 * (real-fault mode, a large draw, no pipeline, no memory). */
static bool record_kernel(d12__vkdrv_command_list *list, d12__vkdrv_op *op)
{
    d12__vkdrv_device *device = list->device;
    UINT64 total = d12__vkdrv_invocations(op->u.draw.count, op->u.draw.instances, op->u.draw.start,
                                          op->type == D12_VKDRV_OP_DISPATCH);
    if (device->diag.real_faults || total > D12_VKDRV_INLINE_MAX_INVOCATIONS)
        return false;
    if (!total) { /* nothing runs, nothing is read */
        op->recorded = true;
        return true;
    }
    /* The pipeline is made at record time (once per device), so that a re-recording at execution never waits for
     * it while the watchdog's clock runs. */
    VkPipeline kernel = d12__vkdrv_kernel_pipeline(device);
    d12__vkdrv_kernel_args args;
    d12__vkdrv_bindings_args(&list->bound, op, &args);
    UINT32 block, offset;
    size_t bytes = 16 + offsetof(d12__vkdrv_kernel_args, vb) + (args.vertex_buffers + args.roots) * sizeof args.vb[0];
    if (!kernel || !d12__vkdrv_arena_slot(list->recording, bytes, &block, &offset))
        return false;
    d12__vkdrv_arena_block *slot = &list->recording->arena[block];
    UINT64 no_fault = UINT64_MAX;
    memcpy(slot->mapped + offset, &no_fault, sizeof no_fault);
    d12__vkdrv_kernel_pack(&args, slot->mapped + offset + 16);
    op->recorded = true;
    op->arena = block;
    op->arena_offset = offset;
    return true;
}

/* After a draw or dispatch was appended: inline, or the end of the command buffer. */
static void kernel_op(d12__vkdrv_command_list *list, d12__vkdrv_op *op)
{
    if (!record_kernel(list, op))
        d12__vkdrv_end_segment(list);
}

VOID APIENTRY d12__vkdrv_set_vertex_buffers(D3D12DDI_HCOMMANDLIST handle, UINT start, UINT count,
                                        const D3D12DDI_VERTEX_BUFFER_VIEW *views)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    for (UINT i = 0; i < count && start + i < D12_VKDRV_MAX_VERTEX_BUFFERS; i++) {
        d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_SET_VERTEX_BUFFER);
        if (!op)
            return;
        op->slot = (uint8_t)(start + i);
        d12__drv_vertex_view_args(&op->u, views ? &views[i] : NULL);
        d12__drv_bind(&list->bound, op->type, op->slot, false, 0, &op->u.view);
    }
}

VOID APIENTRY d12__vkdrv_set_index_buffer(D3D12DDI_HCOMMANDLIST handle, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_SET_INDEX_BUFFER);
    if (!op)
        return;
    list->index_buffer_bound = view != NULL;
    d12__drv_index_view_args(&op->u, view);
    d12__drv_bind(&list->bound, op->type, 0, false, 0, &op->u.view);
}

static void set_root(D3D12DDI_HCOMMANDLIST handle, bool compute, unsigned kind, UINT index, UINT64 address)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (index >= D12_VKDRV_MAX_ROOT_PARAMETERS) {
        d12__vkdrv_list_error(list, E_INVALIDARG);
        return;
    }
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_SET_ROOT);
    if (!op)
        return;
    d12__drv_root_bind(compute ? &list->compute : &list->graphics, index, kind, address);
    op->slot = (uint8_t)index;
    op->root_kind = (uint8_t)kind;
    op->compute = compute;
    op->u.view.address = address;
    d12__drv_bind(&list->bound, op->type, op->slot, compute, kind, &op->u.view);
}

#define ROOT_SETTER(name, compute, kind)                                                                      \
    VOID APIENTRY d12__vkdrv_##name(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address)                      \
    {                                                                                                         \
        set_root(handle, compute, kind, index, address);                                                      \
    }
ROOT_SETTER(set_graphics_root_cbv, false, D12_DRV_ROOT_CBV)
ROOT_SETTER(set_graphics_root_srv, false, D12_DRV_ROOT_SRV)
ROOT_SETTER(set_graphics_root_uav, false, D12_DRV_ROOT_UAV)
ROOT_SETTER(set_compute_root_cbv, true, D12_DRV_ROOT_CBV)
ROOT_SETTER(set_compute_root_srv, true, D12_DRV_ROOT_SRV)
ROOT_SETTER(set_compute_root_uav, true, D12_DRV_ROOT_UAV)

/* The reference driver's record-time findings (docs/refdrv.md), with its VendorMessageIds. */
static void report_null_roots(d12__vkdrv_command_list *list, const d12__drv_root_state *root)
{
    for (unsigned i = 0; i < D12_VKDRV_MAX_ROOT_PARAMETERS; i++) {
        if (root->zero_mask & (1ull << i))
            d12__vkdrv_report_now(list->device, D12_REFDRV_MSG_ROOT_DESCRIPTOR_NULL,
                                  D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION,
                                  list->state_index, D12_DRV_TEXT_ROOT_DESCRIPTOR_NULL, i,
                                  d12__drv_root_kind_name(root->kinds[i]));
    }
}

VOID APIENTRY d12__vkdrv_draw(D3D12DDI_HCOMMANDLIST handle, UINT vertices, UINT instances, UINT start_vertex,
                          UINT start_instance)
{
    (void)start_instance;
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (list->graphics.zero_mask)
        report_null_roots(list, &list->graphics);
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_DRAW);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, vertices, instances, start_vertex);
    kernel_op(list, op);
}

VOID APIENTRY d12__vkdrv_draw_indexed(D3D12DDI_HCOMMANDLIST handle, UINT indices, UINT instances, UINT start_index,
                                  INT base_vertex, UINT start_instance)
{
    (void)start_instance;
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (!list->index_buffer_bound)
        d12__vkdrv_report_now(list->device, D12_REFDRV_MSG_NO_INDEX_BUFFER, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                              D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, list->state_index,
                              D12_DRV_TEXT_NO_INDEX_BUFFER);
    if (list->graphics.zero_mask)
        report_null_roots(list, &list->graphics);
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_DRAW_INDEXED);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, indices, instances, start_index);
    op->u.draw.base_vertex = base_vertex;
    kernel_op(list, op);
}

VOID APIENTRY d12__vkdrv_dispatch(D3D12DDI_HCOMMANDLIST handle, UINT x, UINT y, UINT z)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (list->compute.zero_mask)
        report_null_roots(list, &list->compute);
    if (d12__vkdrv_cs_dispatch(list, x, y, z))
        return; /* a pipeline state is set: the application's shader, at execution (vkdrv_compute.c) */
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_DISPATCH);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, x, y, z);
    kernel_op(list, op);
}
