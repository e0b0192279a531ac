/* A list's copies (vkdrv_list.h): vkCmdCopyBuffer2 when the range is wholly inside both buffers, and the one
 * barrier the driver adds to an application's work: between two copies whose destinations overlap, as D3D12 orders
 * them. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_list.h"

/* D3D12 orders copies whose destinations overlap: such a copy waits for the earlier ones (a barrier on its
 * destination only), which then leave the set; the application's global barriers clear it (a barrier on some
 * buffers orders nothing else: a copy to another buffer on either side of it still needs ours). The ranges are
 * disjoint and sorted by start (and so by end): the overlapping ones are found by two binary searches (issue 28 item
 * 6: a scan of every earlier destination made 200 000 disjoint copies quadratic); an insertion moves the ranges above
 * it (none for copies in address order). */
static size_t first_range(const d12__vkdrv_command_list *list, UINT64 bound, bool by_end)
{
    size_t low = 0, high = list->copy_dst_count; /* the first range whose end (start) is past (at or past) bound */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (by_end ? list->copy_dsts[middle].end <= bound : list->copy_dsts[middle].start < bound)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static void serialize_overlapping_copy(d12__vkdrv_command_list *list, d12__vkdrv_buffer *dst, UINT64 start,
                                       UINT64 size)
{
    UINT64 end = start + size;
    /* the overlapping ranges: [first, last) */
    size_t first = first_range(list, start, true), last = first_range(list, end, false);
    if (first < last) {
        d12__vkdrv_buffer_barrier(d12__vkdrv_current(list), dst->vk, start - dst->va, size,
                                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        memmove(&list->copy_dsts[first], &list->copy_dsts[last],
                (list->copy_dst_count - last) * sizeof *list->copy_dsts);
        list->copy_dst_count -= last - first;
    }
    if (!d12__vkdrv_grow((void **)&list->copy_dsts, &list->copy_dst_capacity, list->copy_dst_count,
                         sizeof *list->copy_dsts))
        return;
    memmove(&list->copy_dsts[first + 1], &list->copy_dsts[first],
            (list->copy_dst_count - first) * sizeof *list->copy_dsts);
    list->copy_dsts[first] = (d12__vkdrv_range){start, end};
    list->copy_dst_count++;
}

void d12__vkdrv_copies_ordered(d12__vkdrv_command_list *list)
{
    list->copy_dst_count = 0;
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
                        d12__vkdrv_buffer *src_buffer, UINT64 src_offset, UINT64 size)
{
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_COPY);
    if (!op)
        return;
    UINT64 dst_va = dst_buffer->va + dst_offset, src_va = src_buffer->va + src_offset;
    op->u.copy.dst = dst_va;
    op->u.copy.src = src_va;
    op->u.copy.size = size;
    d12__vkdrv_buffer *dst = within(dst_buffer, dst_offset, size), *src = within(src_buffer, src_offset, size);
    if (dst && src && d12__vkdrv_hold(list, dst) && d12__vkdrv_hold(list, src) &&
        (!size || d12__vkdrv_open_current(list))) {
        op->recorded = true;
        if (size) {
            serialize_overlapping_copy(list, dst, dst_va, size);
            d12__vkdrv_vk_begin(list);
            d12__vkdrv_cmd_copy(d12__vkdrv_current(list), dst, dst_va, src, src_va, size);
            d12__vkdrv_vk_end(list);
            d12__vkdrv_charge(list, size * atomic_load_explicit(&list->device->copy_ps, memory_order_relaxed) / 1000);
        }
    }
}

VOID APIENTRY d12__vkdrv_copy_buffer_region(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                        D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    record_copy(d12__vkdrv_list_of(handle), d12__vkdrv_resource_buffer(dst),
                d12__vkdrv_resource_offset(dst) + dst_offset, d12__vkdrv_resource_buffer(src),
                d12__vkdrv_resource_offset(src) + src_offset, bytes);
}

VOID APIENTRY d12__vkdrv_copy_resource(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    record_copy(d12__vkdrv_list_of(handle), d12__vkdrv_resource_buffer(dst), d12__vkdrv_resource_offset(dst),
                d12__vkdrv_resource_buffer(src), d12__vkdrv_resource_offset(src), d12__vkdrv_resource_width(src));
}
