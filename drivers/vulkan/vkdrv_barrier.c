/* A list's resource barriers and write-immediates, and the driver's own barriers (vkdrv_list.h): apart from the
 * barrier that opens the list (the ExecuteCommandLists boundary), the one that closes it (device to host) and the one
 * before each write-immediate (its destination is the marker buffer only), the driver adds a barrier only between
 * two copies whose destinations overlap (vkdrv_copy.c). */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

void d12__vkdrv_full_barrier(VkCommandBuffer cb)
{
    VkMemoryBarrier2 memory = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT};
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                   .memoryBarrierCount = 1,
                                   .pMemoryBarriers = &memory};
    vkCmdPipelineBarrier2(cb, &dependency);
}

void d12__vkdrv_host_barrier(VkCommandBuffer cb)
{
    VkMemoryBarrier2 memory = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
                               .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT};
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                   .memoryBarrierCount = 1,
                                   .pMemoryBarriers = &memory};
    vkCmdPipelineBarrier2(cb, &dependency);
}

void d12__vkdrv_buffer_barrier(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                               VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                               VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkBufferMemoryBarrier2 barrier = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                                      .srcStageMask = src_stage,
                                      .srcAccessMask = src_access,
                                      .dstStageMask = dst_stage,
                                      .dstAccessMask = dst_access,
                                      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .buffer = buffer,
                                      .offset = offset,
                                      .size = size};
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                   .bufferMemoryBarrierCount = 1,
                                   .pBufferMemoryBarriers = &barrier};
    vkCmdPipelineBarrier2(cb, &dependency);
}

/* A write-immediate: vkCmdWriteBufferMarker2AMD at the mode's stage where VK_AMD_buffer_marker is enabled, else a
 * barrier whose destination is the marker word alone, then vkCmdFillBuffer (d12__vkdrv_wbi_choose; docs/vulkan.md,
 * "Decision (write-immediate)"). */
void d12__vkdrv_record_write(const d12__vkdrv_device *device, VkCommandBuffer cb, const d12__vkdrv_buffer *dst,
                             UINT64 offset, UINT32 value, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode)
{
    d12__vkdrv_wbi_path path = d12__vkdrv_wbi_choose(device->diag.write_marker != NULL, mode);
    if (path.marker) {
        /* Marker writes are ordered among themselves (the spec), but synchronization validation before
         * Vulkan-ValidationLayers PR 10689 (2025; Debian ships 1.3.239) reports two of them on one word as
         * WRITE_AFTER_WRITE: under `sync` a barrier on the marker word alone, in the copy stage the layer counts
         * them in, keeps that false finding out (stronger ordering, never weaker). */
        if (device->adapter->validation == D12_VKDRV_VALIDATION_SYNC)
            d12__vkdrv_buffer_barrier(cb, dst->vk, offset, 4, VK_PIPELINE_STAGE_2_COPY_BIT,
                                      VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                                      VK_ACCESS_2_TRANSFER_WRITE_BIT);
        device->diag.write_marker(cb, path.stage, dst->vk, offset, value);
        return;
    }
    d12__vkdrv_buffer_barrier(cb, dst->vk, offset, 4, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                              VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                              VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cb, dst->vk, offset, 4, value);
}

/* A transition or UAV barrier on one buffer: a buffer memory barrier on it (a placed buffer's: its heap's whole
 * VkBuffer); one on every resource (NULL), or an aliasing barrier: a global memory barrier. From every earlier write
 * to every later access, as D3D12's barrier orders them. */
VOID APIENTRY d12__vkdrv_resource_barrier(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                      const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (!count || d12__vkdrv_cs_barrier(list, count, barriers)) /* inside a compute segment: recorded at execution */
        return;
    d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_BARRIER);
    if (!op || !barriers)
        return;
    op->u.draw.count = count;
    op->recorded = true;
    VkBufferMemoryBarrier2 *buffers = calloc(count, sizeof *buffers);
    VkMemoryBarrier2 global = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT};
    uint32_t buffer_count = 0;
    bool all = !buffers;
    for (UINT i = 0; i < count && !all; i++) {
        /* An aliasing barrier orders the accesses to every resource sharing the memory (docs/heaps.md): a global
         * memory barrier, whatever it names. */
        bool aliasing = barriers[i].Type == D3D12DDI_RESOURCE_BARRIER_TYPE_ALIASING;
        d12__vkdrv_buffer *buffer = barriers[i].hResource.pDrvPrivate && !aliasing
                                        ? d12__vkdrv_resource_buffer(barriers[i].hResource)
                                        : NULL;
        if (!buffer || !d12__vkdrv_hold(list, buffer)) {
            all = true;
            break;
        }
        buffers[buffer_count++] = (VkBufferMemoryBarrier2){.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                                                           .srcStageMask = global.srcStageMask,
                                                           .srcAccessMask = global.srcAccessMask,
                                                           .dstStageMask = global.dstStageMask,
                                                           .dstAccessMask = global.dstAccessMask,
                                                           .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                                           .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                                           .buffer = buffer->vk,
                                                           .size = VK_WHOLE_SIZE};
    }
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    if (!d12__vkdrv_open_current(list)) {
        free(buffers);
        return;
    }
    if (all) {
        dependency.memoryBarrierCount = 1;
        dependency.pMemoryBarriers = &global;
        d12__vkdrv_copies_ordered(list); /* every earlier copy is ordered before every later one */
    } else {
        dependency.bufferMemoryBarrierCount = buffer_count;
        dependency.pBufferMemoryBarriers = buffers;
    }
    d12__vkdrv_vk_begin(list);
    vkCmdPipelineBarrier2(d12__vkdrv_current(list), &dependency);
    d12__vkdrv_vk_end(list);
    free(buffers);
    d12__vkdrv_charge(list, 0);
}

/* The OpIndex of the op before a MARKER_OUT write (drivers/common/drvcommon_record.h). */
static void name_previous_op(d12__vkdrv_command_list *list, UINT32 value)
{
    d12__vkdrv_recording *r = list->recording;
    if (!r || !r->op_count)
        return;
    d12__vkdrv_op *previous = &r->ops[r->op_count - 1];
    d12__drv_name_previous_op(previous->type, previous->compute, &previous->op_index, value);
}

/* A MARKER_OUT write to the word of the one still deferred (DRED's, after every op): it replaces that one, with no
 * VA lookup: the recording holds the buffer, and its resource was not released (the flag is set before its VA goes),
 * so the address still resolves to it. false: the full path. */
static bool marker_again(d12__vkdrv_command_list *list, UINT64 dest, UINT32 value)
{
    const d12__vkdrv_buffer *buffer = list->marker_buffer;
    if (!list->marker_pending || atomic_load_explicit(&buffer->released, memory_order_acquire) ||
        dest != buffer->va + list->marker_offset)
        return false;
    d12__vkdrv_marker_defer(list, buffer, list->marker_offset, value);
    return true;
}

/* Each write: vkCmdWriteBufferMarker2AMD where offered, else a barrier whose destination is the marker word alone
 * (it orders the write after every earlier command, which is what MARKER_OUT asks, and after the earlier writes to
 * it), then vkCmdFillBuffer: there DEFAULT and MARKER_IN are stronger than they need be, never weaker, and no
 * application command waits on them (record_write). */
VOID APIENTRY d12__vkdrv_write_buffer_immediate(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    if (count && !params) {
        d12__vkdrv_list_error(list, E_INVALIDARG);
        return;
    }
    for (UINT i = 0; i < count; i++) {
        D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = modes ? modes[i] : D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT;
        if (d12__drv_write_invalid(&params[i], mode)) {
            d12__vkdrv_list_error(list, E_INVALIDARG);
            continue;
        }
        if (mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT && !list->closed)
            name_previous_op(list, params[i].Value);
        if (d12__vkdrv_cs_write(list, &params[i], mode))
            continue; /* inside a compute segment (a breadcrumb between dispatches): written at execution */
        d12__vkdrv_op *op = d12__vkdrv_append(list, D12_VKDRV_OP_WRITE_IMMEDIATE);
        if (!op)
            return;
        op->compute = (uint8_t)mode;
        op->u.write.dest = params[i].Dest;
        op->u.write.value = params[i].Value;
        bool marker = mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
        if (marker && marker_again(list, params[i].Dest, params[i].Value)) {
            op->recorded = true;
            continue;
        }
        d12__vkdrv_buffer *dst = d12__vkdrv_resolve(list->device, params[i].Dest, 4);
        if (dst && mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT && d12__vkdrv_hold(list, dst)) {
            op->recorded = true; /* recorded before the next Vulkan command, or replaced by the next such write */
            d12__vkdrv_marker_defer(list, dst, params[i].Dest - dst->va, params[i].Value);
            d12__vkdrv_buffer_release(dst);
            continue;
        }
        if (dst && d12__vkdrv_hold(list, dst) && d12__vkdrv_open_current(list)) {
            op->recorded = true;
            d12__vkdrv_vk_begin(list);
            d12__vkdrv_record_write(list->device, d12__vkdrv_current(list), dst, params[i].Dest - dst->va,
                                    params[i].Value, mode);
            d12__vkdrv_vk_end(list);
        }
        d12__vkdrv_buffer_release(dst);
        if (op->recorded)
            d12__vkdrv_charge(list, 0);
    }
}
