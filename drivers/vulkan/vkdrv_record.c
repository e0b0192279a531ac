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
VkCommandBuffer d12__vkdrv_open_current(d12__vkdrv_command_list *list)
{
    d12__vkdrv_cs_leave(list); /* a Vulkan command recorded now is no compute segment's (vkdrv_compute.h) */
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
    /* The NV checkpoint naming the op (recorded only where the extension is enabled). */
    d12__vkdrv_checkpoint(list->device, d12__vkdrv_current(list), list->recording->serial,
                          list->recording->op_count - 1);
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

/* The command buffer ends: after a draw or dispatch too large to be recorded inline (its kernel runs between this
 * one and the next, in chunks), or when it holds about D12_VKDRV_CHUNK_NS of estimated work (charge). No barrier is
 * added but the inline kernels' device-to-host one: the timeline submits the pieces in order. */
void d12__vkdrv_end_segment(d12__vkdrv_command_list *list)
{
    /* Its BOTTOM_OF_PIPE passed: every op before the draw or dispatch completed. A segment that recorded no Vulkan
     * command has no command buffer and nothing to mark: the kernels' own checkpoints around it (vkdrv_kernel.c)
     * say how far the queue got. */
    VkCommandBuffer cb = d12__vkdrv_current(list);
    if (cb)
        d12__vkdrv_checkpoint(list->device, cb, list->recording->serial, list->recording->op_count - 1);
    if (cb && list->segment_kernels) /* the inline kernels' fault words, read by the timeline after the wait */
        d12__vkdrv_host_barrier(cb);
    list->estimate_ns = 0;
    list->segment_kernels = false;
    if ((cb && vkEndCommandBuffer(cb) != VK_SUCCESS) || !d12__vkdrv_new_segment(list->recording)) {
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        list->closed = true; /* nothing more can be recorded into it */
    }
}

/* The estimated GPU work of an op just recorded into the current command buffer; past D12_VKDRV_CHUNK_NS the command
 * buffer ends, so a submission holds about 5 ms of work however many ops it has (issue 28 items 2 and 4). The rates
 * are the ones measured on earlier lists: nothing measured within this list decides its chunks. */
void d12__vkdrv_charge(d12__vkdrv_command_list *list, UINT64 ns)
{
    list->estimate_ns += ns + D12_VKDRV_OP_OVERHEAD_NS;
    if (list->estimate_ns >= D12_VKDRV_CHUNK_NS && !list->closed && d12__vkdrv_current(list))
        d12__vkdrv_end_segment(list);
}
