/* The Vulkan driver's command lists (the allocators' pools: vkdrv_allocator.c). A list records into a
 * VkCommandBuffer inside each DDI call: copies are vkCmdCopyBuffer2, barriers vkCmdPipelineBarrier2, writes
 * vkCmdFillBuffer after a barrier on the marker buffer alone. Every address is resolved against the driver's VA map
 * first; a range that is not wholly inside one live buffer is never recorded into Vulkan: the op log keeps it, and
 * the timeline reports it as the reference driver does (PAST_END finding, or page fault). Apart from the barrier
 * that opens the list (the ExecuteCommandLists boundary), the one that closes it (device to host) and the one
 * before each write-immediate (its destination is the marker buffer only), the driver adds a barrier only between
 * two copies whose destinations overlap, as D3D12 orders them. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv.h"


static d12__vkdrv_command_list *list_of(D3D12DDI_HCOMMANDLIST handle)
{
    return (d12__vkdrv_command_list *)handle.pDrvPrivate;
}

/* ---- Recordings ---- */

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
    d12__vkdrv_pool_release(recording->pool);
    free(recording->buffers);
    free(recording->ops);
    free(recording);
}

d12__vkdrv_recording *d12__vkdrv_list_recording(D3D12DDI_HCOMMANDLIST handle)
{
    d12__vkdrv_recording *recording = list_of(handle)->recording;
    if (recording)
        atomic_fetch_add_explicit(&recording->refs, 1, memory_order_relaxed);
    return recording;
}

static void list_error(d12__vkdrv_command_list *list, HRESULT hr);

/* The current segment's command buffer: VK_NULL_HANDLE until a Vulkan command is recorded into it (open_current). */
static VkCommandBuffer current(const d12__vkdrv_command_list *list)
{
    return list->recording->cbs[list->recording->cb_count - 1];
}

/* The current segment's command buffer, begun now if it has none: only a segment that records a Vulkan command
 * (or the list's last, for its device-to-host barrier) gets one, so consecutive draws cost no command buffer each.
 * The first segment's opens with the ExecuteCommandLists-boundary barrier, as it always did; a segment with no
 * command buffer was never submitted before either (vkdrv_queue.c submits a segment only for work or at the end).
 * VK_NULL_HANDLE: out of memory (the list is in error and closed). */
static VkCommandBuffer open_current(d12__vkdrv_command_list *list)
{
    d12__vkdrv_recording *recording = list->recording;
    VkCommandBuffer *slot = &recording->cbs[recording->cb_count - 1];
    if (*slot)
        return *slot;
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = recording->pool->vk,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
    VkCommandBuffer cb;
    if (vkAllocateCommandBuffers(recording->device->vk, &alloc, &cb) != VK_SUCCESS) {
        list_error(list, E_OUTOFMEMORY);
        list->closed = true;
        return VK_NULL_HANDLE;
    }
    *slot = cb;
    if (vkBeginCommandBuffer(cb, &begin) != VK_SUCCESS) {
        list_error(list, E_OUTOFMEMORY);
        list->closed = true;
        return VK_NULL_HANDLE;
    }
    if (recording->cb_count == 1)
        d12__vkdrv_full_barrier(cb);
    return cb;
}

static void list_error(d12__vkdrv_command_list *list, HRESULT hr)
{
    if (list->device->callbacks.pfnSetCommandListErrorCb)
        list->device->callbacks.pfnSetCommandListErrorCb(list->rt_list, hr);
}

static bool grow(void **array, size_t *capacity, size_t count, size_t item)
{
    if (count < *capacity)
        return true;
    size_t next = *capacity ? *capacity * 2 : 64;
    void *grown = realloc(*array, next * item);
    if (!grown)
        return false;
    *array = grown;
    *capacity = next;
    return true;
}

static d12__vkdrv_op *append(d12__vkdrv_command_list *list, d12__vkdrv_op_type type)
{
    d12__vkdrv_recording *recording = list->recording;
    if (!recording || list->closed) {
        list_error(list, recording ? E_INVALIDARG : E_OUTOFMEMORY);
        return NULL;
    }
    if (!grow((void **)&recording->ops, &recording->op_capacity, recording->op_count, sizeof *recording->ops)) {
        list_error(list, E_OUTOFMEMORY);
        return NULL;
    }
    d12__vkdrv_op *op = &recording->ops[recording->op_count++];
    memset(op, 0, sizeof *op);
    op->type = (uint8_t)type;
    op->state_index = list->state_index;
    op->op_index = D3D12DDI_OP_INDEX_UNKNOWN;
    op->arena = D12_VKDRV_NO_ARENA;
    op->segment = (uint32_t)(recording->cb_count - 1);
    return op;
}

/* The recording keeps the buffer (and so its Vulkan objects) alive while it can execute. */
static bool hold(d12__vkdrv_command_list *list, d12__vkdrv_buffer *buffer)
{
    d12__vkdrv_recording *r = list->recording;
    /* The last two: a run of copies alternates its destination and source. */
    for (size_t i = r->buffer_count, seen = 0; i > 0 && seen < 2; i--, seen++) {
        if (r->buffers[i - 1] == buffer)
            return true;
    }
    if (!grow((void **)&r->buffers, &r->buffer_capacity, r->buffer_count, sizeof *r->buffers))
        return false;
    d12__vkdrv_buffer_retain(buffer);
    r->buffers[r->buffer_count++] = buffer;
    return true;
}

/* The live buffer wholly containing [address, address + size) within its Width, with a reference; else NULL. */
static d12__vkdrv_buffer *resolve(d12__vkdrv_device *device, UINT64 address, UINT64 size)
{
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, address);
    if (buffer && (address - buffer->va > buffer->size || size > buffer->size - (address - buffer->va))) {
        d12__vkdrv_buffer_release(buffer);
        return NULL;
    }
    return buffer;
}

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

static void buffer_barrier(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                           VkAccessFlags2 dst_access)
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
static void record_write(const d12__vkdrv_device *device, VkCommandBuffer cb, const d12__vkdrv_buffer *dst,
                         UINT64 offset, UINT32 value, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode)
{
    d12__vkdrv_wbi_path path = d12__vkdrv_wbi_choose(device->diag.write_marker != NULL, mode);
    if (path.marker) {
        /* Marker writes are ordered among themselves (the spec), but synchronization validation before
         * Vulkan-ValidationLayers PR 10689 (2025; Debian ships 1.3.239) reports two of them on one word as
         * WRITE_AFTER_WRITE: under `sync` a barrier on the marker word alone, in the copy stage the layer counts
         * them in, keeps that false finding out (stronger ordering, never weaker). */
        if (device->adapter->validation == D12_VKDRV_VALIDATION_SYNC)
            buffer_barrier(cb, dst->vk, offset, 4, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        device->diag.write_marker(cb, path.stage, dst->vk, offset, value);
        return;
    }
    buffer_barrier(cb, dst->vk, offset, 4, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cb, dst->vk, offset, 4, value);
}

/* A copy or a write, resolved again (its buffers are live: the caller checked), or an inline kernel (then the
 * device-to-host barrier that makes its fault word visible). Used by the truncated re-recording of a submission;
 * the recording call records the same commands itself. */
void d12__vkdrv_record_op(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, VkCommandBuffer cb,
                         const d12__vkdrv_op *op)
{
    if (op->type == D12_VKDRV_OP_COPY) {
        d12__vkdrv_buffer *dst = resolve(device, op->u.copy.dst, op->u.copy.size);
        d12__vkdrv_buffer *src = resolve(device, op->u.copy.src, op->u.copy.size);
        if (dst && src) {
            VkBufferCopy2 region = {.sType = VK_STRUCTURE_TYPE_BUFFER_COPY_2,
                                    .srcOffset = op->u.copy.src - src->va,
                                    .dstOffset = op->u.copy.dst - dst->va,
                                    .size = op->u.copy.size};
            VkCopyBufferInfo2 info = {.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2,
                                      .srcBuffer = src->vk,
                                      .dstBuffer = dst->vk,
                                      .regionCount = 1,
                                      .pRegions = &region};
            if (op->u.copy.size)
                vkCmdCopyBuffer2(cb, &info);
            d12__vkdrv_full_barrier(cb);
        }
        d12__vkdrv_buffer_release(dst);
        d12__vkdrv_buffer_release(src);
    } else if (op->type == D12_VKDRV_OP_WRITE_IMMEDIATE) {
        d12__vkdrv_buffer *dst = resolve(device, op->u.write.dest, 4);
        if (dst)
            record_write(device, cb, dst, op->u.write.dest - dst->va, op->u.write.value,
                         (D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127)op->compute);
        d12__vkdrv_buffer_release(dst);
    } else if (op->type == D12_VKDRV_OP_BARRIER) {
        d12__vkdrv_full_barrier(cb);
    } else if (op->arena != D12_VKDRV_NO_ARENA) { /* an inline draw or dispatch (recorded: its pipeline exists) */
        const d12__vkdrv_arena_block *block = &recording->arena[op->arena];
        VkDeviceAddress fault = block->address + op->arena_offset;
        d12__vkdrv_kernel_record(device, cb, d12__vkdrv_kernel_pipeline(device), fault, fault + 16,
                                 d12__vkdrv_invocations(op->u.draw.count, op->u.draw.instances, op->u.draw.start,
                                                        op->type == D12_VKDRV_OP_DISPATCH),
                                 true);
        d12__vkdrv_host_barrier(cb);
    }
}

/* Around each vkCmd* of a list: the debug label naming the op (submit-time messages) and the record-time scope;
 * after it, what the layers said about it is reported from this very call. */
static void vk_begin(d12__vkdrv_command_list *list)
{
    d12__vkdrv_adapter *adapter = list->device->adapter;
    /* The NV checkpoint naming the op (recorded only where the extension is enabled). */
    d12__vkdrv_checkpoint(list->device, current(list), list->recording->serial, list->recording->op_count - 1);
    if (adapter->validation == D12_VKDRV_VALIDATION_OFF)
        return;
    d12__vkdrv_validation_scope(list->state_index);
    if (adapter->ext.begin_label) {
        char name[32];
        snprintf(name, sizeof name, "d12op %u", list->state_index);
        VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
        adapter->ext.begin_label(current(list), &label);
    }
}

static void vk_end(d12__vkdrv_command_list *list)
{
    d12__vkdrv_adapter *adapter = list->device->adapter;
    if (adapter->validation == D12_VKDRV_VALIDATION_OFF)
        return;
    if (adapter->ext.end_label)
        adapter->ext.end_label(current(list));
    d12__vkdrv_validation_drain(list->device, true);
    d12__vkdrv_validation_scope(D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
}

/* ---- Lists ---- */

SIZE_T APIENTRY d12__vkdrv_calc_private_list_size(D3D12DDI_HDEVICE device,
                                                  const D3D12DDIARG_CREATECOMMANDLIST_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_command_list);
}

/* The recording's next segment (the first, at Create/Reset, or the one after a draw or dispatch), with no command
 * buffer yet: open_current begins one when a Vulkan command is recorded into it. */
static bool new_segment(d12__vkdrv_recording *recording)
{
    if (recording->cb_count == UINT32_MAX ||
        !grow((void **)&recording->cbs, &recording->cb_capacity, recording->cb_count, sizeof *recording->cbs))
        return false;
    recording->cbs[recording->cb_count++] = VK_NULL_HANDLE;
    return true;
}

/* The command buffer ends: after a draw or dispatch too large to be recorded inline (its kernel runs between this
 * one and the next, in chunks), or when it holds about D12_VKDRV_CHUNK_NS of estimated work (charge). No barrier is
 * added but the inline kernels' device-to-host one: the timeline submits the pieces in order. */
static void end_segment(d12__vkdrv_command_list *list)
{
    /* Its BOTTOM_OF_PIPE passed: every op before the draw or dispatch completed. A segment that recorded no Vulkan
     * command has no command buffer and nothing to mark: the kernels' own checkpoints around it (vkdrv_kernel.c)
     * say how far the queue got. */
    VkCommandBuffer cb = current(list);
    if (cb)
        d12__vkdrv_checkpoint(list->device, cb, list->recording->serial, list->recording->op_count - 1);
    if (cb && list->segment_kernels) /* the inline kernels' fault words, read by the timeline after the wait */
        d12__vkdrv_host_barrier(cb);
    list->estimate_ns = 0;
    list->segment_kernels = false;
    if ((cb && vkEndCommandBuffer(cb) != VK_SUCCESS) || !new_segment(list->recording)) {
        list_error(list, E_OUTOFMEMORY);
        list->closed = true; /* nothing more can be recorded into it */
    }
}

/* The estimated GPU work of an op just recorded into the current command buffer; past D12_VKDRV_CHUNK_NS the command
 * buffer ends, so a submission holds about 5 ms of work however many ops it has (issue 28 items 2 and 4). The rates
 * are the ones measured on earlier lists: nothing measured within this list decides its chunks. */
static void charge(d12__vkdrv_command_list *list, UINT64 ns)
{
    list->estimate_ns += ns + D12_VKDRV_OP_OVERHEAD_NS;
    if (list->estimate_ns >= D12_VKDRV_CHUNK_NS && !list->closed && current(list))
        end_segment(list);
}

/* `bytes` (16-aligned) of the recording's arena: a block and an offset. false: out of memory. */
static bool arena_slot(d12__vkdrv_recording *recording, size_t bytes, UINT32 *block, UINT32 *offset)
{
    d12__vkdrv_arena_block *last = recording->arena_count ? &recording->arena[recording->arena_count - 1] : NULL;
    if (!last || last->used + bytes > D12_VKDRV_ARENA_BLOCK) {
        if (!grow((void **)&recording->arena, &recording->arena_capacity, recording->arena_count,
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
    if (!kernel || !arena_slot(list->recording, bytes, &block, &offset) || !open_current(list))
        return false;
    d12__vkdrv_arena_block *slot = &list->recording->arena[block];
    UINT64 no_fault = UINT64_MAX;
    memcpy(slot->mapped + offset, &no_fault, sizeof no_fault);
    d12__vkdrv_kernel_pack(&args, slot->mapped + offset + 16);
    op->recorded = true;
    op->arena = block;
    op->arena_offset = offset;
    vk_begin(list);
    VkDeviceAddress fault = slot->address + offset;
    d12__vkdrv_kernel_record(device, current(list), kernel, fault, fault + 16, total, !list->segment_kernels);
    vk_end(list);
    list->segment_kernels = true;
    charge(list, total * atomic_load_explicit(&device->kernel_ps, memory_order_relaxed) / 1000);
    return true;
}

/* After a draw or dispatch was appended: inline, or the end of the command buffer. */
static void kernel_op(d12__vkdrv_command_list *list, d12__vkdrv_op *op)
{
    if (!record_kernel(list, op))
        end_segment(list);
}

/* A fresh recording into a new command buffer of `pool`, opened by the ExecuteCommandLists-boundary barrier. */
static HRESULT start_recording(d12__vkdrv_command_list *list, d12__vkdrv_pool *pool)
{
    d12__vkdrv_recording_release(list->recording);
    list->recording = NULL;
    list->closed = false;
    list->index_buffer_bound = false;
    list->graphics.zero_mask = list->compute.zero_mask = 0;
    list->copy_dst_count = 0;
    memset(&list->bound, 0, sizeof list->bound);
    list->estimate_ns = 0;
    list->segment_kernels = false;
    d12__vkdrv_pool_collect(pool);
    d12__vkdrv_recording *recording = calloc(1, sizeof *recording);
    if (!recording)
        return E_OUTOFMEMORY;
    atomic_init(&recording->refs, 1);
    recording->device = list->device;
    recording->serial = atomic_fetch_add_explicit(&list->device->diag.next_serial, 1, memory_order_relaxed);
    recording->rt_list = list->rt_list;
    recording->pool = pool;
    atomic_fetch_add_explicit(&pool->refs, 1, memory_order_relaxed);
    if (!new_segment(recording)) {
        d12__vkdrv_recording_release(recording);
        return E_OUTOFMEMORY;
    }
    list->recording = recording; /* the boundary barrier opens its first command buffer (open_current) */
    return S_OK;
}

HRESULT APIENTRY d12__vkdrv_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                        D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRTCOMMANDLIST rt_list)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (!args || !list || !args->hDrvCommandAllocator.pDrvPrivate)
        return E_INVALIDARG;
    memset(list, 0, sizeof *list);
    list->device = (d12__vkdrv_device *)device.pDrvPrivate;
    list->rt_list = rt_list;
    list->state_index = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    HRESULT hr = start_recording(list, ((d12__vkdrv_command_allocator *)args->hDrvCommandAllocator.pDrvPrivate)->pool);
    if (FAILED(hr)) {
        d12__vkdrv_recording_release(list->recording);
        free(list->copy_dsts);
        list->recording = NULL;
    }
    return hr;
}

VOID APIENTRY d12__vkdrv_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST handle)
{
    (void)device;
    d12__vkdrv_command_list *list = list_of(handle);
    if (list->recording && !list->closed && current(list))
        vkEndCommandBuffer(current(list));
    d12__vkdrv_recording_release(list->recording);
    list->recording = NULL;
    free(list->copy_dsts);
    list->copy_dsts = NULL;
}

static VOID APIENTRY close_list(D3D12DDI_HCOMMANDLIST handle)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (list->recording && !list->closed && open_current(list)) {
        d12__vkdrv_checkpoint(list->device, current(list), list->recording->serial, list->recording->op_count);
        d12__vkdrv_host_barrier(current(list));
        if (vkEndCommandBuffer(current(list)) != VK_SUCCESS)
            list_error(list, E_OUTOFMEMORY);
        d12__vkdrv_validation_drain(list->device, true);
    }
    list->closed = true;
}

static VOID APIENTRY reset_list(D3D12DDI_HCOMMANDLIST handle, const D3D12DDIARG_RESETCOMMANDLIST_0126 *args)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (list->recording && !list->closed && current(list))
        vkEndCommandBuffer(current(list));
    if (!args || !args->hDrvCommandAllocator.pDrvPrivate) {
        list_error(list, E_INVALIDARG);
        return;
    }
    if (FAILED(start_recording(list, ((d12__vkdrv_command_allocator *)args->hDrvCommandAllocator.pDrvPrivate)->pool)))
        list_error(list, E_OUTOFMEMORY);
}

static VOID APIENTRY set_vertex_buffers(D3D12DDI_HCOMMANDLIST handle, UINT start, UINT count,
                                        const D3D12DDI_VERTEX_BUFFER_VIEW *views)
{
    d12__vkdrv_command_list *list = list_of(handle);
    for (UINT i = 0; i < count && start + i < D12_VKDRV_MAX_VERTEX_BUFFERS; i++) {
        d12__vkdrv_op *op = append(list, D12_VKDRV_OP_SET_VERTEX_BUFFER);
        if (!op)
            return;
        op->slot = (uint8_t)(start + i);
        d12__drv_vertex_view_args(&op->u, views ? &views[i] : NULL);
        d12__drv_bind(&list->bound, op->type, op->slot, false, 0, &op->u.view);
    }
}

static VOID APIENTRY set_index_buffer(D3D12DDI_HCOMMANDLIST handle, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    d12__vkdrv_command_list *list = list_of(handle);
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_SET_INDEX_BUFFER);
    if (!op)
        return;
    list->index_buffer_bound = view != NULL;
    d12__drv_index_view_args(&op->u, view);
    d12__drv_bind(&list->bound, op->type, 0, false, 0, &op->u.view);
}

static void set_root(D3D12DDI_HCOMMANDLIST handle, bool compute, unsigned kind, UINT index, UINT64 address)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (index >= D12_VKDRV_MAX_ROOT_PARAMETERS) {
        list_error(list, E_INVALIDARG);
        return;
    }
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_SET_ROOT);
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
    static VOID APIENTRY name(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address)                      \
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

static VOID APIENTRY draw(D3D12DDI_HCOMMANDLIST handle, UINT vertices, UINT instances, UINT start_vertex,
                          UINT start_instance)
{
    (void)start_instance;
    d12__vkdrv_command_list *list = list_of(handle);
    if (list->graphics.zero_mask)
        report_null_roots(list, &list->graphics);
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_DRAW);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, vertices, instances, start_vertex);
    kernel_op(list, op);
}

static VOID APIENTRY draw_indexed(D3D12DDI_HCOMMANDLIST handle, UINT indices, UINT instances, UINT start_index,
                                  INT base_vertex, UINT start_instance)
{
    (void)start_instance;
    d12__vkdrv_command_list *list = list_of(handle);
    if (!list->index_buffer_bound)
        d12__vkdrv_report_now(list->device, D12_REFDRV_MSG_NO_INDEX_BUFFER, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                              D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, list->state_index,
                              D12_DRV_TEXT_NO_INDEX_BUFFER);
    if (list->graphics.zero_mask)
        report_null_roots(list, &list->graphics);
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_DRAW_INDEXED);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, indices, instances, start_index);
    op->u.draw.base_vertex = base_vertex;
    kernel_op(list, op);
}

static VOID APIENTRY dispatch(D3D12DDI_HCOMMANDLIST handle, UINT x, UINT y, UINT z)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (list->compute.zero_mask)
        report_null_roots(list, &list->compute);
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_DISPATCH);
    if (!op)
        return;
    d12__drv_draw_args(&op->u, x, y, z);
    kernel_op(list, op);
}

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
        buffer_barrier(current(list), dst->vk, start - dst->va, size, VK_PIPELINE_STAGE_2_COPY_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        memmove(&list->copy_dsts[first], &list->copy_dsts[last],
                (list->copy_dst_count - last) * sizeof *list->copy_dsts);
        list->copy_dst_count -= last - first;
    }
    if (!grow((void **)&list->copy_dsts, &list->copy_dst_capacity, list->copy_dst_count, sizeof *list->copy_dsts))
        return;
    memmove(&list->copy_dsts[first + 1], &list->copy_dsts[first],
            (list->copy_dst_count - first) * sizeof *list->copy_dsts);
    list->copy_dsts[first] = (d12__vkdrv_range){start, end};
    list->copy_dst_count++;
}

/* `buffer` when [offset, offset + size) lies within its Width, else NULL; its first use is made ready (zeroed) as
 * d12__vkdrv_buffer_acquire would. The resource is live for the call: no VA lookup and no reference are needed
 * (hold() takes the recording's). */
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
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_COPY);
    if (!op)
        return;
    UINT64 dst_va = dst_buffer->va + dst_offset, src_va = src_buffer->va + src_offset;
    op->u.copy.dst = dst_va;
    op->u.copy.src = src_va;
    op->u.copy.size = size;
    op->u.copy.dst_end = dst_end;
    op->u.copy.src_end = src_end;
    d12__vkdrv_buffer *dst = within(dst_buffer, dst_offset, size), *src = within(src_buffer, src_offset, size);
    if (dst && src && hold(list, dst) && hold(list, src) && (!size || open_current(list))) {
        op->recorded = true;
        if (size) {
            serialize_overlapping_copy(list, dst, dst_va, size);
            VkBufferCopy2 region = {.sType = VK_STRUCTURE_TYPE_BUFFER_COPY_2,
                                    .srcOffset = src_va - src->va,
                                    .dstOffset = dst_va - dst->va,
                                    .size = size};
            VkCopyBufferInfo2 info = {.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2,
                                      .srcBuffer = src->vk,
                                      .dstBuffer = dst->vk,
                                      .regionCount = 1,
                                      .pRegions = &region};
            vk_begin(list);
            vkCmdCopyBuffer2(current(list), &info);
            vk_end(list);
            charge(list, size * atomic_load_explicit(&list->device->copy_ps, memory_order_relaxed) / 1000);
        }
    }
}

/* The first byte past a resource (its VA + Width): what a copy naming it must stay before. */
static UINT64 resource_end(D3D12DDI_HRESOURCE resource)
{
    return d12__vkdrv_resource_buffer(resource)->va + d12__vkdrv_resource_offset(resource) +
           d12__vkdrv_resource_width(resource);
}

static VOID APIENTRY copy_buffer_region(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                        D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    record_copy(list_of(handle), d12__vkdrv_resource_buffer(dst), d12__vkdrv_resource_offset(dst) + dst_offset,
                d12__vkdrv_resource_buffer(src), d12__vkdrv_resource_offset(src) + src_offset, bytes,
                resource_end(dst), resource_end(src));
}

static VOID APIENTRY copy_resource(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    record_copy(list_of(handle), d12__vkdrv_resource_buffer(dst), d12__vkdrv_resource_offset(dst),
                d12__vkdrv_resource_buffer(src), d12__vkdrv_resource_offset(src), d12__vkdrv_resource_width(src),
                resource_end(dst), resource_end(src));
}

/* A transition or UAV barrier on one buffer: a buffer memory barrier on it (a placed buffer's: its heap's whole
 * VkBuffer); one on every resource (NULL), or an aliasing barrier: a global memory barrier. From every earlier write
 * to every later access, as D3D12's barrier orders them. */
static VOID APIENTRY resource_barrier(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                      const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (!count)
        return;
    d12__vkdrv_op *op = append(list, D12_VKDRV_OP_BARRIER);
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
        if (!buffer || !hold(list, buffer)) {
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
    if (!open_current(list)) {
        free(buffers);
        return;
    }
    if (all) {
        dependency.memoryBarrierCount = 1;
        dependency.pMemoryBarriers = &global;
        list->copy_dst_count = 0; /* every earlier copy is ordered before every later one */
    } else {
        dependency.bufferMemoryBarrierCount = buffer_count;
        dependency.pBufferMemoryBarriers = buffers;
    }
    vk_begin(list);
    vkCmdPipelineBarrier2(current(list), &dependency);
    vk_end(list);
    free(buffers);
    charge(list, 0);
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

/* Each write: vkCmdWriteBufferMarker2AMD where offered, else a barrier whose destination is the marker word alone
 * (it orders the write after every earlier command, which is what MARKER_OUT asks, and after the earlier writes to
 * it), then vkCmdFillBuffer: there DEFAULT and MARKER_IN are stronger than they need be, never weaker, and no
 * application command waits on them (record_write). */
static VOID APIENTRY write_buffer_immediate(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes)
{
    d12__vkdrv_command_list *list = list_of(handle);
    if (count && !params) {
        list_error(list, E_INVALIDARG);
        return;
    }
    for (UINT i = 0; i < count; i++) {
        D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = modes ? modes[i] : D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT;
        if (d12__drv_write_invalid(&params[i], mode)) {
            list_error(list, E_INVALIDARG);
            continue;
        }
        if (mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT && !list->closed)
            name_previous_op(list, params[i].Value);
        d12__vkdrv_op *op = append(list, D12_VKDRV_OP_WRITE_IMMEDIATE);
        if (!op)
            return;
        op->compute = (uint8_t)mode;
        op->u.write.dest = params[i].Dest;
        op->u.write.value = params[i].Value;
        d12__vkdrv_buffer *dst = resolve(list->device, params[i].Dest, 4);
        if (dst && hold(list, dst) && open_current(list)) {
            op->recorded = true;
            vk_begin(list);
            record_write(list->device, current(list), dst, params[i].Dest - dst->va, params[i].Value, mode);
            vk_end(list);
        }
        d12__vkdrv_buffer_release(dst);
        if (op->recorded)
            charge(list, 0);
    }
}

const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 d12__vkdrv_command_list_funcs = {
    close_list,         reset_list,         set_vertex_buffers,    set_index_buffer,      set_graphics_root_cbv,
    set_graphics_root_srv, set_graphics_root_uav, set_compute_root_cbv, set_compute_root_srv, set_compute_root_uav,
    draw,               draw_indexed,       dispatch,              copy_buffer_region,    copy_resource,
    resource_barrier,   write_buffer_immediate,
};
