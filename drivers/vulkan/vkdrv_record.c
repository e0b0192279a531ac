/* A list's op log and command buffers (vkdrv_list.h): every op is appended to the log, in the reference driver's
 * form; the buffers a recorded command names are held; a command buffer (a segment) is begun when a Vulkan command
 * is recorded into it and ends after a draw too large to run inline or after about D12_VKDRV_CHUNK_NS of estimated
 * work. Also the re-recording of one op for a truncated submission (vkdrv_queue.c). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

/* The current segment's command buffer, begun now if it has none: only a segment that records a Vulkan command
 * (or the list's last, for its device-to-host barrier) gets one, so consecutive draws cost no command buffer each.
 * The first segment's opens with the ExecuteCommandLists-boundary barrier, as it always did; a segment with no
 * command buffer was never submitted before either (vkdrv_queue.c submits a segment only for work or at the end).
 * VK_NULL_HANDLE: out of memory (the list is in error and closed). */
static void marker_flush(d12__vkdrv_command_list *list);

VkCommandBuffer d12__vkdrv_open_current(d12__vkdrv_command_list *list)
{
    d12__vkdrv_cs_leave(list); /* a Vulkan command recorded now is no compute segment's (vkdrv_compute.h) */
    d12__vkdrv_recording *recording = list->recording;
    if (list->marker_pending) /* a Vulkan command follows: the deferred MARKER_OUT write goes before it */
        marker_flush(list);
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
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        list->closed = true;
        return VK_NULL_HANDLE;
    }
    *slot = cb;
    if (vkBeginCommandBuffer(cb, &begin) != VK_SUCCESS) {
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        list->closed = true;
        return VK_NULL_HANDLE;
    }
    if (recording->cb_count == 1)
        d12__vkdrv_full_barrier(cb);
    return cb;
}

/* `bytes` (16-aligned) of the recording's arena: a block and an offset. false: out of memory. */
bool d12__vkdrv_arena_slot(d12__vkdrv_recording *recording, size_t bytes, UINT32 *block, UINT32 *offset)
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

void d12__vkdrv_list_error(d12__vkdrv_command_list *list, HRESULT hr)
{
    if (list->device->callbacks.pfnSetCommandListErrorCb)
        list->device->callbacks.pfnSetCommandListErrorCb(list->rt_list, hr);
}

bool d12__vkdrv_grow(void **array, size_t *capacity, size_t count, size_t item)
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

d12__vkdrv_op *d12__vkdrv_append(d12__vkdrv_command_list *list, d12__vkdrv_op_type type)
{
    d12__vkdrv_recording *recording = list->recording;
    if (!recording || list->closed) {
        d12__vkdrv_list_error(list, recording ? E_INVALIDARG : E_OUTOFMEMORY);
        return NULL;
    }
    if (!d12__drv_is_binding(type))
        d12__vkdrv_cs_leave(list); /* an op of a compute segment says so first (vkdrv_compute.c, append_entry) */
    if (!d12__vkdrv_grow((void **)&recording->ops, &recording->op_capacity, recording->op_count,
                         sizeof *recording->ops)) {
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
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
bool d12__vkdrv_hold(d12__vkdrv_command_list *list, d12__vkdrv_buffer *buffer)
{
    d12__vkdrv_recording *r = list->recording;
    /* The last two: a run of copies alternates its destination and source. */
    for (size_t i = r->buffer_count, seen = 0; i > 0 && seen < 2; i--, seen++) {
        if (r->buffers[i - 1] == buffer)
            return true;
    }
    if (!d12__vkdrv_grow((void **)&r->buffers, &r->buffer_capacity, r->buffer_count, sizeof *r->buffers))
        return false;
    d12__vkdrv_buffer_retain(buffer);
    r->buffers[r->buffer_count++] = buffer;
    return true;
}

/* The live buffer wholly containing [address, address + size) within its Width, with a reference; else NULL. */
d12__vkdrv_buffer *d12__vkdrv_resolve(d12__vkdrv_device *device, UINT64 address, UINT64 size)
{
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, address);
    if (buffer && (address - buffer->va > buffer->size || size > buffer->size - (address - buffer->va))) {
        d12__vkdrv_buffer_release(buffer);
        return NULL;
    }
    return buffer;
}

/* A copy or a write, resolved again (its buffers are live: the caller checked), or an inline kernel (then the
 * device-to-host barrier that makes its fault word visible). Used by the truncated re-recording of a submission;
 * the recording call records the same commands itself. */
void d12__vkdrv_record_op(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, VkCommandBuffer cb,
                         const d12__vkdrv_op *op)
{
    if (op->type == D12_VKDRV_OP_COPY) {
        d12__vkdrv_buffer *dst = d12__vkdrv_resolve(device, op->u.copy.dst, op->u.copy.size);
        d12__vkdrv_buffer *src = d12__vkdrv_resolve(device, op->u.copy.src, op->u.copy.size);
        if (dst && src) {
            if (op->u.copy.size)
                d12__vkdrv_cmd_copy(cb, dst, op->u.copy.dst, src, op->u.copy.src, op->u.copy.size);
            d12__vkdrv_full_barrier(cb);
        }
        d12__vkdrv_buffer_release(dst);
        d12__vkdrv_buffer_release(src);
    } else if (op->type == D12_VKDRV_OP_WRITE_IMMEDIATE) {
        d12__vkdrv_buffer *dst = d12__vkdrv_resolve(device, op->u.write.dest, 4);
        if (dst)
            d12__vkdrv_record_write(device, cb, dst, op->u.write.dest - dst->va, op->u.write.value,
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
void d12__vkdrv_vk_begin(d12__vkdrv_command_list *list)
{
    d12__vkdrv_adapter *adapter = list->device->adapter;
    if (adapter->validation == D12_VKDRV_VALIDATION_OFF)
        return;
    d12__vkdrv_validation_scope(list->state_index);
    if (adapter->ext.begin_label) {
        char name[32];
        snprintf(name, sizeof name, "d12op %u", list->state_index);
        VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
        adapter->ext.begin_label(d12__vkdrv_current(list), &label);
    }
}

void d12__vkdrv_vk_end(d12__vkdrv_command_list *list)
{
    d12__vkdrv_adapter *adapter = list->device->adapter;
    if (adapter->validation == D12_VKDRV_VALIDATION_OFF)
        return;
    if (adapter->ext.end_label)
        adapter->ext.end_label(d12__vkdrv_current(list));
    d12__vkdrv_validation_drain(list->device, true);
    d12__vkdrv_validation_scope(D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
}

/* The recording's next segment (the first, at Create/Reset, or the one after a draw or dispatch), with no command
 * buffer yet: open_current begins one when a Vulkan command is recorded into it. */
bool d12__vkdrv_new_segment(d12__vkdrv_recording *recording)
{
    if (recording->cb_count == UINT32_MAX || !d12__vkdrv_grow((void **)&recording->cbs, &recording->cb_capacity,
                                                              recording->cb_count, sizeof *recording->cbs))
        return false;
    recording->cbs[recording->cb_count++] = VK_NULL_HANDLE;
    return true;
}

/* ---- DRED's MARKER_OUT writes, deferred (issue 28 item 5) ---- */

/* Decision (docs/vulkan.md, "Breadcrumbs"): DRED writes a MARKER_OUT breadcrumb after every op, and a draw here
 * records no Vulkan command, so 2 000 draws were 2 000 barrier + fill pairs with nothing between them. A MARKER_OUT
 * write is "deferred until all previous commands have completed": two of them on one word with no Vulkan command
 * between complete together, so nobody can observe the first value without the second; the first is dropped and the
 * last recorded before the next Vulkan command (open_current), the command buffer's end or Close. The op log keeps
 * every write as recorded: a re-recording at execution (vkdrv_queue.c) replays each one, in place. */
void d12__vkdrv_marker_defer(d12__vkdrv_command_list *list, const d12__vkdrv_buffer *buffer, UINT64 offset,
                             UINT32 value)
{
    if (list->marker_pending && (list->marker_buffer != buffer || list->marker_offset != offset))
        marker_flush(list);
    list->marker_pending = true;
    list->marker_buffer = buffer;
    list->marker_offset = offset;
    list->marker_value = value;
    list->marker_state_index = list->state_index;
    list->marker_position = list->recording->op_count; /* the write is the last op */
}

static void marker_flush(d12__vkdrv_command_list *list)
{
    list->marker_pending = false;
    VkCommandBuffer cb = d12__vkdrv_open_current(list);
    if (!cb)
        return;
    UINT32 state_index = list->state_index; /* the write's own, for the validation scope and the debug label */
    list->state_index = list->marker_state_index;
    d12__vkdrv_vk_begin(list);
    d12__vkdrv_record_write(list->device, cb, list->marker_buffer, list->marker_offset, list->marker_value,
                            D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT);
    d12__vkdrv_vk_end(list);
    list->state_index = state_index;
    /* Its estimate and breadcrumb accounting, as charge, but the command buffer does not end here: the caller is
     * about to record into it the command of an op already appended to this segment. */
    list->estimate_ns += D12_VKDRV_OP_OVERHEAD_NS;
    list->crumb_ns += D12_VKDRV_OP_OVERHEAD_NS;
    list->crumb_pending = true;
    list->crumb_value = list->marker_position;
}

/* ---- The driver's breadcrumbs (issue 28 items 2 and 4; docs/vulkan.md, "Breadcrumbs") ---- */

void d12__vkdrv_crumb_record(const d12__vkdrv_device *device, const d12__vkdrv_recording *recording,
                             VkCommandBuffer cb, VkPipelineStageFlags2 stages, size_t value)
{
    if (recording->crumb_block == D12_VKDRV_NO_ARENA || value > UINT32_MAX)
        return;
    const d12__vkdrv_arena_block *block = &recording->arena[recording->crumb_block];
    if (device->diag.write_marker) {
        /* Written once every earlier command completed; ordered after the earlier marker writes (the spec). Under
         * `sync` the marker-word barrier of record_write keeps the old layer's false WRITE_AFTER_WRITE out. */
        if (device->adapter->validation == D12_VKDRV_VALIDATION_SYNC)
            d12__vkdrv_buffer_barrier(cb, block->buffer, recording->crumb_offset, 4, VK_PIPELINE_STAGE_2_COPY_BIT,
                                      VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                                      VK_ACCESS_2_TRANSFER_WRITE_BIT);
        device->diag.write_marker(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, block->buffer, recording->crumb_offset,
                                  (uint32_t)value);
    } else {
        /* The barrier's source: the ops' stages (and the transfer stage of the previous breadcrumb's fill, the only
         * write it makes visible: it names the word alone); its destination: the transfer stage of the fill. No
         * application access is in its memory scope, so a missing application barrier still shows under sync
         * validation (vulkan.sync.*, the missing-barrier test). */
        d12__vkdrv_buffer_barrier(cb, block->buffer, recording->crumb_offset, 4,
                                  stages | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        vkCmdFillBuffer(cb, block->buffer, recording->crumb_offset, 4, (uint32_t)value);
    }
    /* The NV checkpoint only here, not per op: its BOTTOM_OF_PIPE passed means the same as the word. */
    d12__vkdrv_checkpoint(device, cb, recording->serial, value);
}

/* The breadcrumb after the ops recorded since the last one, when there are any (their value: list->crumb_value). */
static void crumb_flush(d12__vkdrv_command_list *list)
{
    d12__vkdrv_recording *recording = list->recording;
    if (list->marker_pending) /* the deferred MARKER_OUT write first: the breadcrumb counts it */
        marker_flush(list);
    VkCommandBuffer cb = d12__vkdrv_current(list);
    if (!list->crumb_pending || !cb)
        return;
    list->crumb_pending = false;
    list->crumb_ns = 0;
    if (recording->crumb_block == D12_VKDRV_NO_ARENA &&
        !d12__vkdrv_arena_slot(recording, 4, &recording->crumb_block, &recording->crumb_offset))
        return; /* out of memory: no breadcrumbs (the watchdog times the submission, as without them) */
    d12__vkdrv_crumb_record(list->device, recording, cb, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, list->crumb_value);
}

void d12__vkdrv_crumb_before(d12__vkdrv_command_list *list, UINT64 ns)
{
    if (ns >= D12_VKDRV_CRUMB_NS)
        crumb_flush(list);
}

void d12__vkdrv_crumb_close(d12__vkdrv_command_list *list)
{
    crumb_flush(list);
}

/* The command buffer ends: after a draw or dispatch too large to be recorded inline (its kernel runs between this
 * one and the next, in chunks), or when it holds about D12_VKDRV_CHUNK_NS of estimated work (charge). No barrier is
 * added: the timeline submits the pieces in order. */
void d12__vkdrv_end_segment(d12__vkdrv_command_list *list)
{
    /* The breadcrumb and checkpoint of the ops before the end: a segment that recorded no Vulkan command has no
     * command buffer and nothing to mark: the kernels' own checkpoints around it (vkdrv_kernel.c) say how far the
     * queue got. */
    if (list->marker_pending)
        marker_flush(list);
    VkCommandBuffer cb = d12__vkdrv_current(list);
    crumb_flush(list);
    list->estimate_ns = 0;
    if ((cb && vkEndCommandBuffer(cb) != VK_SUCCESS) || !d12__vkdrv_new_segment(list->recording)) {
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        list->closed = true; /* nothing more can be recorded into it */
    }
}

/* The estimated GPU work of an op just recorded into the current command buffer; past D12_VKDRV_CHUNK_NS the command
 * buffer ends, so a submission holds about 5 ms of work however many ops it has (issue 28 items 2 and 4). The rates
 * are the ones measured on earlier lists: nothing measured within this list decides its chunks. A breadcrumb follows
 * once the ops since the last one hold D12_VKDRV_CRUMB_NS of estimated work (an op that long alone, which
 * d12__vkdrv_crumb_before also preceded with one: a long op is bracketed, so the watchdog and a loss name it exactly). */
void d12__vkdrv_charge(d12__vkdrv_command_list *list, UINT64 ns)
{
    list->estimate_ns += ns + D12_VKDRV_OP_OVERHEAD_NS;
    list->crumb_ns += ns + D12_VKDRV_OP_OVERHEAD_NS;
    list->crumb_pending = true;
    list->crumb_value = list->recording->op_count;
    if (list->crumb_ns >= D12_VKDRV_CRUMB_NS)
        crumb_flush(list);
    if (list->estimate_ns >= D12_VKDRV_CHUNK_NS && !list->closed && d12__vkdrv_current(list))
        d12__vkdrv_end_segment(list);
}
