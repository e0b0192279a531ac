/* A list's copies (vkdrv_list.h): vkCmdCopyBuffer2 when the range is wholly inside both buffers, and the one
 * barrier the driver adds to an application's work: between two copies whose destinations overlap, as D3D12 orders
 * them. */
#define _POSIX_C_SOURCE 200809L

#include "vkdrv_list.h"

/* D3D12 orders copies whose destinations overlap (the runtime has no TRANSFER-to-TRANSFER barrier to offer, and
 * vkd3d-proton serializes them the same way, "D3D12 requires serialization on overlapping copies (WAW hazard)"):
 * such a copy waits for the earlier ones (a barrier from copy stage to copy stage over its destination and theirs:
 * Vulkan needs a memory dependency for write-after-write, also for a later copy overlapping only their part outside
 * this one's), which then leave the set; the application's global barriers clear it (a barrier on some buffers
 * orders nothing else: a copy to another buffer on either side of it still needs ours). The set is a treap
 * (vkdrv_ranges.c): O(log N) a copy in any order (issue 28 item 6: a sorted array made falling addresses quadratic).
 * Where the set cannot grow, a global copy-to-copy memory barrier orders this copy after every earlier one and the
 * set starts again from this copy (its nodes are kept, so that insertion needs no memory). */
static void order_overlapping_copy(d12__vkdrv_command_list *list, d12__vkdrv_buffer *dst, UINT64 start, UINT64 size,
                                   bool repeat)
{
    UINT64 low, high;
    switch (d12__vkdrv_ranges_insert(&list->copy_dsts, start, start + size, &low, &high)) {
    case D12_VKDRV_RANGES_DISJOINT:
        return;
    case D12_VKDRV_RANGES_OVERLAP: /* over the earlier ones' whole span: a later copy may overlap what lay outside */
        /* within the destination's VkBuffer: a range there is this buffer's, but a VA handed out again (65 000
         * releases later) may name a buffer the list released */
        low = low < start ? (low > dst->va ? low : dst->va) : start;
        high = high > start + size ? (high < dst->va + dst->size ? high : dst->va + dst->size) : start + size;
        if (!repeat)
            d12__vkdrv_buffer_barrier(d12__vkdrv_current(list), dst->vk, low - dst->va, high - low,
                                      VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                      VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        return;
    case D12_VKDRV_RANGES_NO_MEMORY:
        break;
    }
    VkMemoryBarrier2 all = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                            .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
                            .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
                            .dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT};
    VkDependencyInfo dependency = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &all};
    vkCmdPipelineBarrier2(d12__vkdrv_current(list), &dependency);
    d12__vkdrv_copies_ordered(list);
    d12__vkdrv_ranges_insert(&list->copy_dsts, start, start + size, &low, &high);
}

/* A copy of the same bytes as the op just before it (same source and destination ranges, nothing recorded between,
 * source and destination apart) writes what that one wrote, read from a source nothing wrote in between: in
 * whatever order or interleaving the two run, the destination ends the same, so the ordering above needs no barrier
 * between them (its range still replaces the previous one's in the set). Under `sync` validation the barrier stays:
 * the layer would report the two as WRITE_AFTER_WRITE, and that mode must show only the application's hazards. */
static bool repeats_previous_copy(const d12__vkdrv_command_list *list, UINT64 dst_va, UINT64 src_va, UINT64 size)
{
    const d12__vkdrv_recording *r = list->recording;
    if (r->op_count < 2 || list->device->adapter->validation == D12_VKDRV_VALIDATION_SYNC)
        return false;
    const d12__vkdrv_op *op = &r->ops[r->op_count - 2]; /* the current copy is the last op */
    d12__vkdrv_copy_span previous = {op->u.copy.dst, op->u.copy.src, op->u.copy.size}, copy = {dst_va, src_va, size};
    return d12__vkdrv_copy_repeats(op->type == D12_VKDRV_OP_COPY && op->recorded ? &previous : NULL, &copy);
}

void d12__vkdrv_copies_ordered(d12__vkdrv_command_list *list)
{
    d12__vkdrv_ranges_clear(&list->copy_dsts);
}

void d12__vkdrv_cmd_copy(VkCommandBuffer cb, const d12__vkdrv_buffer *dst, UINT64 dst_va, const d12__vkdrv_buffer *src,
                         UINT64 src_va, UINT64 size)
{
    VkBufferCopy2 region = {.sType = VK_STRUCTURE_TYPE_BUFFER_COPY_2,
                            .srcOffset = src_va - src->va,
                            .dstOffset = dst_va - dst->va,
                            .size = size};
    VkCopyBufferInfo2 info = {.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2,
                              .srcBuffer = src->vk,
                              .dstBuffer = dst->vk,
                              .regionCount = 1,
                              .pRegions = &region};
    vkCmdCopyBuffer2(cb, &info);
}

/* `buffer` when [offset, offset + size) lies within its Width, else NULL; its first use is made ready (zeroed) as
 * d12__vkdrv_buffer_acquire would. The resource is live for the call: no VA lookup and no reference are needed
 * (d12__vkdrv_hold() takes the recording's). */
static d12__vkdrv_buffer *within(d12__vkdrv_buffer *buffer, UINT64 offset, UINT64 size)
{
    if (offset > buffer->size || size > buffer->size - offset)
        return NULL;
    d12__vkdrv_buffer_ready(buffer);
    return buffer;
}

/* Only a copy wholly inside its two buffers is recorded into Vulkan. The op log keeps it either way, so the
 * timeline reports one that is not as the reference driver does. */
static void record_copy(d12__vkdrv_command_list *list, d12__vkdrv_buffer *dst_buffer, UINT64 dst_offset,
                        d12__vkdrv_buffer *src_buffer, UINT64 src_offset, UINT64 size, UINT64 dst_end, UINT64 src_end)
{
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_COPY);
    if (!op)
        return;
    UINT64 dst_va = dst_buffer->va + dst_offset, src_va = src_buffer->va + src_offset;
    op->u.copy.dst = dst_va;
    op->u.copy.src = src_va;
    op->u.copy.size = size;
    op->u.copy.dst_end = dst_end;
    op->u.copy.src_end = src_end;
    d12__vkdrv_buffer *dst = within(dst_buffer, dst_offset, size), *src = within(src_buffer, src_offset, size);
    if (dst && src && d12__vkdrv_hold(list, dst) && d12__vkdrv_hold(list, src) &&
        (!size || d12__vkdrv_open_current(list))) {
        op->recorded = true;
        if (size) {
            UINT64 ns = size * atomic_load_explicit(&list->device->copy_ps, memory_order_relaxed) / 1000;
            d12__vkdrv_crumb_before(list, ns);
            order_overlapping_copy(list, dst, dst_va, size, repeats_previous_copy(list, dst_va, src_va, size));
            d12__vkdrv_vk_begin(list);
            d12__vkdrv_cmd_copy(d12__vkdrv_current(list), dst, dst_va, src, src_va, size);
            d12__vkdrv_vk_end(list);
            d12__vkdrv_charge(list, ns);
        }
    }
}

/* The first byte past a resource (its VA + Width): what a copy naming it must stay before. */
static UINT64 resource_end(D3D12DDI_HRESOURCE resource)
{
    return d12__vkdrv_resource_buffer(resource)->va + d12__vkdrv_resource_offset(resource) +
           d12__vkdrv_resource_width(resource);
}

VOID APIENTRY d12__vkdrv_copy_buffer_region(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                            D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    record_copy(d12__vkdrv_list_of(handle), d12__vkdrv_resource_buffer(dst),
                d12__vkdrv_resource_offset(dst) + dst_offset, d12__vkdrv_resource_buffer(src),
                d12__vkdrv_resource_offset(src) + src_offset, bytes, resource_end(dst), resource_end(src));
}

VOID APIENTRY d12__vkdrv_copy_resource(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    record_copy(d12__vkdrv_list_of(handle), d12__vkdrv_resource_buffer(dst), d12__vkdrv_resource_offset(dst),
                d12__vkdrv_resource_buffer(src), d12__vkdrv_resource_offset(src), d12__vkdrv_resource_width(src),
                resource_end(dst), resource_end(src));
}
