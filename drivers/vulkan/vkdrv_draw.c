/* A list's bindings, draws and dispatches (vkdrv_list.h): the bindings are logged (an inline kernel's arguments
 * and the execution-time checks read them); a small draw or dispatch is one vkCmdDispatch of the kernel recorded into
 * the command buffer, its arguments and fault word in the recording's arena; a larger one ends the command buffer
 * and runs, in chunks, between it and the next (vkdrv_kernel.c). */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

/* `bytes` (16-aligned) of the recording's arena: a block and an offset. false: out of memory. */
static bool arena_slot(d12__vkdrv_recording *recording, size_t bytes, UINT32 *block, UINT32 *offset)
{
    d12__vkdrv_arena_block *last = recording->arena_count ? &recording->arena[recording->arena_count - 1] : NULL;
    if (!last || last->used + bytes > D12_VKDRV_ARENA_BLOCK) {
        if (!d12__vkdrv_grow((void **)&recording->arena, &recording->arena_capacity, recording->arena_count,
                             sizeof *recording->arena))
            return false;
        last = &recording->arena[recording->arena_count];
        memset(last, 0, sizeof *last);
        void *mapped;
        if (!d12__vkdrv_host_buffer(recording->device, D12_VKDRV_ARENA_BLOCK, &last->buffer, &last->memory, &mapped,
                                    &last->address))
            return false;
        last->mapped = mapped;
        recording->arena_count++;
    }
    *block = (UINT32)(recording->arena_count - 1);
    *offset = (UINT32)last->used;
    last->used += (bytes + 15) & ~(size_t)15;
    return true;
}

/* A draw or dispatch of at most D12_VKDRV_INLINE_MAX_INVOCATIONS recorded into the command buffer: its arguments
 * (the bindings so far) and fault word in the arena, one vkCmdDispatch of the kernel. false: it runs at execution
 * instead (real-fault mode, a large draw, no pipeline, no memory). */
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
    VkPipeline kernel = d12__vkdrv_kernel_pipeline(device); /* at record time: never counted by the TDR */
    d12__vkdrv_kernel_args args;
    d12__vkdrv_bindings_args(&list->bound, op, &args);
    UINT32 block, offset;
    size_t bytes = 16 + offsetof(d12__vkdrv_kernel_args, vb) + (args.vertex_buffers + args.roots) * sizeof args.vb[0];
    if (!kernel || !arena_slot(list->recording, bytes, &block, &offset) || !d12__vkdrv_open_current(list))
        return false;
    d12__vkdrv_arena_block *slot = &list->recording->arena[block];
    UINT64 no_fault = UINT64_MAX;
    memcpy(slot->mapped + offset, &no_fault, sizeof no_fault);
    d12__vkdrv_kernel_pack(&args, slot->mapped + offset + 16);
    op->recorded = true;
    op->arena = block;
    op->arena_offset = offset;
    d12__vkdrv_vk_begin(list);
    VkDeviceAddress fault = slot->address + offset;
    d12__vkdrv_kernel_record(device, d12__vkdrv_current(list), kernel, fault, fault + 16, total,
                             !list->segment_kernels);
    d12__vkdrv_vk_end(list);
    list->segment_kernels = true;
    d12__vkdrv_charge(list, total * atomic_load_explicit(&device->kernel_ps, memory_order_relaxed) / 1000);
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
