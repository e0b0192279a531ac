/* The Vulkan driver's command queues: one timeline thread per queue takes operations from a FIFO in submission
 * order, the plumbing both drivers share (drivers/common/drvcommon_queue.c). EXECUTE submits each list's command
 * buffer to the device's VkQueue, signalling the queue's fence, and waits for it in slices of
 * 5 ms, reporting progress between them (the runtime's TDR watchdog) and abandoning the work once the runtime says
 * the device is removed; SIGNAL and WAIT are passed back through the kernel-thunk callbacks once every earlier
 * submission completed, so a fence never runs ahead of the GPU. Why a VkFence and not a timeline semaphore: under
 * validation, Debian's layer (1.3.239) blocks the first vkWaitSemaphores of a device 10 s in its own state tracker
 * ("Timeout waiting for timeline semaphore state to update. This is most likely a validation bug.", its issue #4968),
 * time the runtime's TDR counted as the GPU's (issue 29 item 2); its fence tracking does not. Before submitting, the timeline
 * runs the reference driver's execution-time checks on the list's op log (vkdrv_check.c): when they find a fault,
 * or an op whose effect must be skipped although it was recorded, the list is re-recorded on the timeline's own
 * pool up to the faulting op, so no Vulkan command ever touches memory the VA contract says is unmapped. */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drvcommon_queue.h"
#include "vkdrv_compute.h"

typedef struct d12__vkdrv_queue {
    d12__drv_queue common; /* first: the FIFO, the timeline thread, reset (drivers/common/drvcommon_queue.h) */
    d12__vkdrv_device *device;
    /* The timeline thread's own: */
    VkFence fence;      /* signalled by the last submission (the one in flight) */
    VkCommandPool pool; /* the re-recordings of lists that fault, and the kernels' chunks */
    d12__vkdrv_kernel_queue kernel;
    d12__vkdrv_inflight inflight; /* what is submitted, for the records of a device loss (vkdrv_lost.c) */
    const d12__vkdrv_recording *kernel_recording; /* the draw or dispatch whose kernel runs (its chunks' inflight) */
} d12__vkdrv_queue;
_Static_assert(offsetof(d12__vkdrv_queue, common) == 0, "the shared queue entry points take the handle as theirs");

/* vkQueueSubmit2 calls of the process, for tests (d12_vkdrv_test_queue_submits, the one symbol besides
 * OpenAdapter12 the driver exports: exports.map). An outside checker counts them itself through a layer. */
static atomic_ullong g_queue_submits;

__attribute__((visibility("default"))) unsigned long long d12_vkdrv_test_queue_submits(void);
unsigned long long d12_vkdrv_test_queue_submits(void)
{
    return atomic_load(&g_queue_submits);
}

static d12__vkdrv_queue *queue_of(D3D12DDI_HCOMMANDQUEUE handle)
{
    return (d12__vkdrv_queue *)handle.pDrvPrivate;
}

static bool progress(d12__vkdrv_queue *queue, D3D12DDI_GPU_PROGRESS_0127 what, D3D12DDI_HRTCOMMANDLIST list,
                     UINT32 op_index)
{
    return d12__drv_queue_progress(&queue->common, what, list, op_index);
}

/* The first op of ops [from, to) that does GPU work (its OpIndex names the piece for the watchdog). */
static bool first_op_index(const d12__vkdrv_recording *recording, size_t from, size_t to, UINT32 *op_index)
{
    for (size_t i = from; i < to; i++) {
        if (recording->ops[i].type >= D12_VKDRV_OP_DRAW) {
            *op_index = recording->ops[i].op_index;
            return true;
        }
    }
    return false;
}

static bool is_inline_kernel(const d12__vkdrv_op *op);

/* Ops [from, end) of one segment without the ops whose effect is skipped, and with the kernels of the draws and
 * dispatches the walk could not prove safe (`may_fault`; the others' kernels could find nothing: vkdrv_draw.c): a
 * full barrier and a breadcrumb after every op (this path runs only before a fault or after a finding, so ordering
 * beyond the application's costs nothing). */
static VkCommandBuffer rerecord(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, const bool *skip,
                                const bool *may_fault, size_t from, size_t end)
{
    d12__vkdrv_device *device = queue->device;
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = queue->pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VkCommandBuffer cb;
    if (vkAllocateCommandBuffers(device->vk, &alloc, &cb) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &begin);
    d12__vkdrv_full_barrier(cb);
    for (size_t i = from; i < end; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        if (skip[i] || !op->recorded || (is_inline_kernel(op) && !may_fault[i]))
            continue;
        d12__vkdrv_checkpoint(device, cb, recording->serial, i);
        d12__vkdrv_record_op(device, recording, cb, op);
        d12__vkdrv_crumb_record(device, recording, cb,
                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, i + 1);
    }
    d12__vkdrv_checkpoint(device, cb, recording->serial, end);
    d12__vkdrv_host_barrier(cb);
    vkEndCommandBuffer(cb);
    return cb;
}

/* Between two wait slices: when the recording's breadcrumb word says more ops completed than last seen, the
 * watchdog's clock restarts at the first op not known complete (OP_BEGIN naming it), so the TDR times the command
 * that runs, not the submission, and a command that outlasts the delay is removed as HUNG under its own name (issue
 * 28 item 2; the word is read every D12_VKDRV_WAIT_SLICE_NS, so the name is at most one slice old). A kernel chunk
 * writes no breadcrumb (it runs one op, named by its OP_BEGIN). false: the runtime says the device is removed. */
static bool crumb_progress(d12__vkdrv_queue *queue, size_t *seen)
{
    const d12__vkdrv_inflight *f = &queue->inflight; /* this thread's own */
    const d12__vkdrv_recording *recording = f->recording;
    const uint32_t *word = recording && !f->kernel ? d12__vkdrv_crumb_word(recording) : NULL;
    if (!word)
        return true;
    size_t done = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (done <= *seen || done <= f->first || done > f->end)
        return true;
    *seen = done;
    UINT32 op_index;
    if (!first_op_index(recording, done, f->end, &op_index))
        return true;
    return progress(queue, D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN, recording->rt_list, op_index);
}

/* After removal, how long a submission may still take before the device is taken for lost (some drivers never
 * return VK_ERROR_DEVICE_LOST from a wait; vkd3d-proton waits 5 s too): no wait of a timeline is unbounded. */
#define LOST_WAIT_NS 5000000000ull

/* Submit and wait for the fence in slices. false: the device was removed meanwhile (the work still ran to its
 * end: a copy cannot be abandoned halfway on Vulkan, and its memory must not be freed under it), or lost
 * (VK_ERROR_DEVICE_LOST: its records become the fault report, vkdrv_lost.c; nothing more is submitted). */
static bool submit_and_wait(d12__vkdrv_queue *queue, VkCommandBuffer cb)
{
    d12__vkdrv_device *device = queue->device;
    if (d12__vkdrv_is_lost(device))
        return false;
    VkCommandBufferSubmitInfo cb_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb};
    VkSemaphoreSubmitInfo stuck;
    VkSubmitInfo2 submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                            .commandBufferInfoCount = 1,
                            .pCommandBufferInfos = &cb_info};
    if (d12__vkdrv_test_stuck_wait(device, &stuck)) {
        submit.waitSemaphoreInfoCount = 1;
        submit.pWaitSemaphoreInfos = &stuck;
    }
    vkResetFences(device->vk, 1, &queue->fence); /* the previous submission completed: its wait returned */
    pthread_mutex_lock(&device->queue_lock);
    VkResult result = vkQueueSubmit2(device->queue, 1, &submit, queue->fence);
    pthread_mutex_unlock(&device->queue_lock);
    atomic_fetch_add_explicit(&g_queue_submits, 1, memory_order_relaxed);
    d12__vkdrv_validation_drain(device, false); /* submit-time messages, for the next flush */
    if (result == VK_ERROR_DEVICE_LOST) {
        d12__vkdrv_device_lost(device, &queue->inflight, "vkQueueSubmit2", false);
        return false;
    }
    if (result != VK_SUCCESS) {
        device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY);
        return false;
    }
    bool running = true;
    UINT64 after_removal = 0, waited = 0;
    size_t seen = 0; /* the breadcrumb value last seen */
    const char *never = NULL; /* why the driver takes the device for lost though Vulkan said nothing */
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    for (;;) {
        result = vkWaitForFences(device->vk, 1, &queue->fence, VK_TRUE, D12_VKDRV_WAIT_SLICE_NS);
        if (result != VK_TIMEOUT)
            break;
        waited += D12_VKDRV_WAIT_SLICE_NS;
        const d12__vkdrv_kernel_queue *kernel = queue->inflight.kernel; /* set by this thread */
        if (d12__vkdrv_stall_decide(device->diag.real_faults, kernel ? d12__vkdrv_kernel_fault_va(kernel) : UINT64_MAX,
                                    waited, D12_VKDRV_STALL_NS)) {
            never = "the chunk stalled after its kernel read the real-fault probe";
            break;
        }
        if (running && (!crumb_progress(queue, &seen) ||
                        !progress(queue, D3D12DDI_GPU_PROGRESS_0127_OP_SLICE, none, D3D12DDI_OP_INDEX_UNKNOWN)))
            running = false;
        if (!running && (after_removal += D12_VKDRV_WAIT_SLICE_NS) >= LOST_WAIT_NS) {
            never = "no completion 5 s after removal";
            break;
        }
    }
    if (never) {
        d12__vkdrv_abandon(device); /* before the report: the runtime may destroy objects once it has it */
        d12__vkdrv_device_lost(device, &queue->inflight, never, true);
        return false;
    }
    /* The test hook: the work really completed (nothing is freed under it), the loss path runs as after a fault. */
    if (result == VK_SUCCESS && d12__vkdrv_test_lose(device))
        result = VK_ERROR_DEVICE_LOST;
    if (result == VK_ERROR_DEVICE_LOST) {
        d12__vkdrv_device_lost(device, &queue->inflight, "vkWaitForFences", false);
        return false;
    }
    if (result != VK_SUCCESS) {
        device->callbacks.pfnSetErrorCb(device->rt_device, D3DDDIERR_DEVICEREMOVED);
        return false;
    }
    return running;
}

/* READBACK memory that is not host-coherent is invalidated before any fence after this work is passed back. */
static void invalidate_readback(d12__vkdrv_device *device, const d12__vkdrv_recording *recording)
{
    if (device->readback_coherent)
        return;
    for (size_t i = 0; i < recording->buffer_count; i++) {
        d12__vkdrv_buffer *buffer = recording->buffers[i];
        if (buffer->heap_type != D3D12DDI_HEAP_TYPE_READBACK)
            continue;
        VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                     .memory = buffer->memory,
                                     .size = VK_WHOLE_SIZE};
        vkInvalidateMappedMemoryRanges(device->vk, 1, &range);
    }
}

static void report_fault(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, const d12__vkdrv_op *op,
                         UINT64 va, UINT flags)
{
    d12__vkdrv_device *device = queue->device;
    D3D12DDICB_DEVICEFAULT_0127 report = {
        .ExecutionState = D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT,
        .FaultedVirtualAddress = va,
        .PageFaultFlags = flags,
        .hRTCommandQueue = queue->common.rt_queue,
        .hRTCommandList = recording->rt_list,
        .OpIndex = op->op_index,
    };
    device->kt.pfnDeviceFaultCb(device->rt_device, &report);
}

static void report_kernel_fault(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording,
                                const d12__vkdrv_op *op, const d12__vkdrv_kernel_args *args, UINT64 va);

/* One chunk of a kernel: submitted and waited for, then the watchdog asked whether to go on. */
static bool submit_chunk(void *context, VkCommandBuffer cb)
{
    d12__vkdrv_queue *queue = context;
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    /* Published under the diag lock only now: the kernel's buffer (its fault word and arguments) exists. */
    size_t position = queue->kernel.checkpoint_position;
    d12__vkdrv_inflight_set(queue->device, &queue->inflight, queue->kernel_recording, position, position + 1,
                            &queue->kernel);
    return submit_and_wait(queue, cb) &&
           progress(queue, D3D12DDI_GPU_PROGRESS_0127_OP_SLICE, none, D3D12DDI_OP_INDEX_UNKNOWN);
}

/* The draw or dispatch `op`: its kernel, with the bindings the walk replayed. false: the engine was reset. */
static bool run_kernel(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                       const d12__vkdrv_op *op)
{
    d12__vkdrv_device *device = queue->device;
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    /* The pipeline (seconds under gpuav, which instruments it) is made while the watchdog sees the queue idle: the
     * TDR times the GPU's work, not the driver's or the validation layer's (issue 29 item 2). */
    if (!progress(queue, D3D12DDI_GPU_PROGRESS_0127_IDLE, none, D3D12DDI_OP_INDEX_UNKNOWN))
        return false;
    d12__vkdrv_kernel_pipeline(device);
    if (!progress(queue, D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN, recording->rt_list, op->op_index))
        return false;
    d12__vkdrv_kernel_args args;
    d12__vkdrv_walk_args(walk, op, &args);
    UINT64 total = d12__vkdrv_invocations(op->u.draw.count, op->u.draw.instances, op->u.draw.start,
                                          op->type == D12_VKDRV_OP_DISPATCH);
    UINT64 va = 0;
    size_t position = (size_t)(op - recording->ops);
    queue->kernel.checkpoint_serial = recording->serial;
    queue->kernel.checkpoint_position = position;
    queue->kernel_recording = recording;
    d12__vkdrv_inflight_set(device, &queue->inflight, recording, position, position + 1, NULL);
    d12__vkdrv_kernel_result result =
        d12__vkdrv_kernel_run(device, &queue->kernel, queue->pool, &args, total, submit_chunk, queue, &va);
    d12__vkdrv_inflight_set(device, &queue->inflight, NULL, 0, 0, NULL);
    if (result == D12_VKDRV_KERNEL_DONE)
        return true;
    if (d12__vkdrv_is_lost(device))
        return false; /* the loss was reported from the device's own records (vkdrv_lost.c) */
    if (result == D12_VKDRV_KERNEL_FAULT && !device->has_0127)
        return true; /* before build 0127 nobody can be told: the faulting reads read nothing, the timeline goes on */
    if (result == D12_VKDRV_KERNEL_FAULT)
        report_kernel_fault(queue, recording, op, &args, va);
    return false;
}

/* The fault word of the inline kernel `op` (recorded into the list's command buffer, vkdrv_draw.c). */
static UINT64 *inline_fault_word(const d12__vkdrv_recording *recording, const d12__vkdrv_op *op)
{
    return (UINT64 *)(void *)(recording->arena[op->arena].mapped + op->arena_offset);
}

static bool is_inline_kernel(const d12__vkdrv_op *op)
{
    return op->type >= D12_VKDRV_OP_DRAW && op->type <= D12_VKDRV_OP_DISPATCH && op->recorded &&
           op->arena != D12_VKDRV_NO_ARENA;
}

/* The inline kernels of ops [from, end) read as unfaulted before they run (a recording may execute again). */
static void arm_inline_kernels(const d12__vkdrv_recording *recording, size_t from, size_t end)
{
    for (size_t i = from; i < end; i++) {
        if (is_inline_kernel(&recording->ops[i]))
            __atomic_store_n(inline_fault_word(recording, &recording->ops[i]), UINT64_MAX, __ATOMIC_RELAXED);
    }
}

/* The kernel of `op` found `va` unmapped: the reference driver's finding naming the binding, then the fault. */
static void report_kernel_fault(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording,
                                const d12__vkdrv_op *op, const d12__vkdrv_kernel_args *args, UINT64 va)
{
    d12__vkdrv_device *device = queue->device;
    if (!device->has_0127)
        return; /* before build 0127 nobody can be told: the faulting reads read nothing, the timeline goes on */
    char what[64];
    const char *name = d12__vkdrv_args_what(args, va, what, sizeof what);
    char *va_name = d12__vkdrv_va_name(device, va); /* v2: "0x...:'MyVB' + 0x0 (released)" */
    d12__vkdrv_report_later(device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                            D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, op->state_index,
                            "Page fault: %s reads GPU virtual address 0x%016llX, which is in no live buffer%s%s.",
                            name ? name : "The draw", (unsigned long long)va, va_name ? ": " : "",
                            va_name ? va_name : "");
    free(va_name);
    report_fault(queue, recording, op, va, D3D12DDI_PAGE_FAULT_FLAG_NONE);
}

/* A use after free, by rule (issue 28 item 3): the buffer `use` names was released before the driver observed the
 * completion of its op, the first such op of the submission. It is that op's page fault at the first byte it
 * accesses there, whatever the GPU happened to do (the buffer's memory was held: nothing was read from freed
 * memory), so the outcome does not depend on when the application's Release ran against the GPU. */
static void report_use_after_free(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording,
                                  const d12__vkdrv_use *use)
{
    d12__vkdrv_device *device = queue->device;
    const d12__vkdrv_op *op = &recording->ops[use->op];
    const char *what = op->type == D12_VKDRV_OP_COPY ? (use->write ? "The copy destination" : "The copy source")
                       : op->type == D12_VKDRV_OP_WRITE_IMMEDIATE ? "The write-immediate destination"
                                                                  : "A binding of the draw";
    char *va_name = d12__vkdrv_va_name(device, use->va); /* v2: "0x...:'Staging' + 0x0 (released)" */
    d12__vkdrv_report_later(device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                            D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, op->state_index,
                            "Page fault: %s %s GPU virtual address 0x%016llX, which is in no live buffer%s%s: its "
                            "buffer was released before the driver saw the op complete (a use after free).",
                            what, use->write ? "writes" : "reads", (unsigned long long)use->va, va_name ? ": " : "",
                            va_name ? va_name : "");
    free(va_name);
    report_fault(queue, recording, op, use->va,
                 use->write ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE);
}

/* After ops [from, end) completed: the first of a use after free (by rule) and an inline kernel whose fault word is
 * set, in op order, is the fault (true: reported, the engine stops). */
static bool piece_faulted(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                          size_t from, size_t end)
{
    if (!queue->device->has_0127)
        return false; /* before build 0127 nobody can be told: the timeline goes on */
    const d12__vkdrv_use *freed = d12__vkdrv_walk_freed(walk, from, end);
    size_t limit = freed ? freed->op : end;
    for (size_t i = from; i < limit; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        UINT64 va = is_inline_kernel(op) ? __atomic_load_n(inline_fault_word(recording, op), __ATOMIC_ACQUIRE)
                                         : UINT64_MAX;
        if (va == UINT64_MAX)
            continue;
        d12__vkdrv_kernel_args args;
        d12__vkdrv_args_at(recording, i, &args);
        report_kernel_fault(queue, recording, op, &args, va);
        return true;
    }
    if (freed)
        report_use_after_free(queue, recording, freed);
    return freed != NULL;
}

/* The bytes copied and the kernel invocations run of ops [from, end) (the rates of the record-time estimate). */
static void segment_work(const d12__vkdrv_recording *recording, const bool *kernels, size_t from, size_t end,
                         UINT64 *bytes, UINT64 *invocations)
{
    *bytes = *invocations = 0;
    for (size_t i = from; i < end; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        if (op->type == D12_VKDRV_OP_COPY && op->recorded)
            *bytes += op->u.copy.size;
        else if (kernels && kernels[i] && is_inline_kernel(op))
            *invocations += d12__vkdrv_invocations(op->u.draw.count, op->u.draw.instances, op->u.draw.start,
                                                   op->type == D12_VKDRV_OP_DISPATCH);
    }
}

/* Learn the rates from a submission that was all copies or all kernels (large enough to measure); `kernels[i]`:
 * the inline kernel of op i ran in it (NULL: none did). */
static void learn_rates(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, const bool *kernels,
                        size_t from, size_t end, UINT64 elapsed_ns)
{
    UINT64 bytes, invocations;
    segment_work(recording, kernels, from, end, &bytes, &invocations);
    if (!invocations && bytes >= (1u << 20))
        atomic_store_explicit(&device->copy_ps, elapsed_ns * 1000 / bytes, memory_order_relaxed);
    else if (!bytes && invocations >= 4096)
        atomic_store_explicit(&device->kernel_ps, elapsed_ns * 1000 / invocations, memory_order_relaxed);
}

static UINT64 monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (UINT64)t.tv_sec * 1000000000ull + (UINT64)t.tv_nsec;
}

/* Ops [from, end) of a segment as one submission (`cb`, the list's own command buffer or a re-recording), OP_BEGIN
 * naming its first op: the watchdog's clock restarts at every submission, each about D12_VKDRV_CHUNK_NS of estimated
 * work (issue 28 item 2). Then its inline kernels' fault words. false: the engine was reset (or a kernel faulted). */
static bool run_piece(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                      VkCommandBuffer cb, const bool *kernels, size_t from, size_t end, bool always)
{
    d12__vkdrv_device *device = queue->device;
    UINT32 first = D3D12DDI_OP_INDEX_UNKNOWN;
    if (!first_op_index(recording, from, end, &first) && !always)
        return true;
    if (!progress(queue, D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN, recording->rt_list, first))
        return false;
    if (cb == VK_NULL_HANDLE) /* a segment that recorded no Vulkan command (vkdrv_record.c, d12__vkdrv_open_current) */
        return true;
    arm_inline_kernels(recording, from, end);
    uint32_t *crumb = d12__vkdrv_crumb_word(recording);
    if (crumb) /* no op of this submission completed yet */
        __atomic_store_n(crumb, 0, __ATOMIC_RELAXED);
    d12__vkdrv_inflight_set(device, &queue->inflight, recording, from, end, NULL);
    UINT64 start = monotonic_ns();
    bool running = submit_and_wait(queue, cb);
    UINT64 elapsed = monotonic_ns() - start;
    d12__vkdrv_inflight_set(device, &queue->inflight, NULL, 0, 0, NULL);
    if (!running || piece_faulted(queue, recording, walk, from, end))
        return false;
    learn_rates(device, recording, kernels, from, end, elapsed);
    return true;
}

/* Ops [from, end) re-recorded without what must not run, cut after every inline kernel that may fault, so nothing
 * after a fault runs. false: the engine was reset. */
static bool run_rerecorded(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                           const bool *skip, const bool *may_fault, size_t from, size_t end, bool always)
{
    size_t p = from;
    do {
        size_t piece_end = p;
        while (piece_end < end && !may_fault[piece_end])
            piece_end++;
        if (piece_end < end)
            piece_end++; /* the kernel that may fault runs last */
        VkCommandBuffer cb = rerecord(queue, recording, skip, may_fault, p, piece_end);
        if (cb == VK_NULL_HANDLE)
            return false; /* a re-recording that could not be made stops the engine, as before */
        bool running = run_piece(queue, recording, walk, cb, may_fault, p, piece_end, always && piece_end == end);
        if (!d12__vkdrv_abandoned(queue->device))
            vkFreeCommandBuffers(queue->device->vk, queue->pool, 1, &cb);
        if (!running)
            return false;
        p = piece_end;
    } while (p < end);
    return true;
}

/* A compute segment (vkdrv_compute.h): its ops resolved and recorded now, piece by piece (vkdrv_bind.c), each
 * piece one submission as run_piece makes it (OP_BEGIN naming its first op: the TDR per piece). false: the engine
 * was reset, or an op faulted (reported). */
static bool execute_compute(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                            size_t from, size_t to, bool *skip, bool *may_fault)
{
    d12__vkdrv_device *device = queue->device;
    d12__vkdrv_fault fault; /* the rules' findings on the root views; a compute segment has no copy to fault */
    d12__vkdrv_walk_ops(walk, recording, from, to, skip, may_fault, &fault);
    d12__vkdrv_walk_unhold(walk);
    for (size_t p = from; p < to;) {
        d12__vkdrv_cs_piece *piece = d12__vkdrv_cs_prepare(device, recording, queue->pool, p, to);
        if (!piece) {
            device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY);
            return false;
        }
        size_t end = d12__vkdrv_cs_piece_end(piece);
        VkCommandBuffer cb = d12__vkdrv_cs_piece_cb(piece);
        bool running = !cb || run_piece(queue, recording, walk, cb, NULL, p, end, false);
        UINT64 va;
        UINT flags;
        bool faulted = d12__vkdrv_cs_piece_fault(piece, &va, &flags);
        d12__vkdrv_cs_piece_free(device, queue->pool, piece);
        if (running && faulted)
            report_fault(queue, recording, &recording->ops[end], va, flags);
        if (!running || faulted)
            return false;
        p = end;
    }
    return true;
}

/* One segment of a list: ops [from, to), checked, submitted (re-recorded without what must not run, or cut after a
 * kernel that may fault, when the checks say so) and waited for; then its closing draw or dispatch, if any (one
 * too large to be recorded inline). false: the engine was reset. */
static bool execute_segment(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording, d12__vkdrv_walk *walk,
                            size_t segment, size_t from, size_t to, bool *skip, bool *may_fault, bool closes_list)
{
    if (d12__vkdrv_cs_segment(recording, segment))
        return execute_compute(queue, recording, walk, from, to, skip, may_fault);
    d12__vkdrv_fault fault;
    d12__vkdrv_walk_ops(walk, recording, from, to, skip, may_fault, &fault);
    const d12__vkdrv_op *last = to > from ? &recording->ops[to - 1] : NULL;
    bool closing_kernel = last && !fault.faulted && !last->recorded &&
                          (last->type == D12_VKDRV_OP_DRAW || last->type == D12_VKDRV_OP_DRAW_INDEXED ||
                           last->type == D12_VKDRV_OP_DISPATCH);
    size_t end = fault.faulted ? fault.op : closing_kernel ? to - 1 : to;
    bool cut = fault.faulted;
    for (size_t i = from; i < end && !cut; i++)
        cut = (skip[i] && recording->ops[i].recorded) || may_fault[i];
    /* The list's last command buffer is submitted even with no work of its own: its device-to-host barrier makes the
     * list's writes visible to the CPU before the fence is passed back. */
    bool always = fault.faulted || closes_list;
    bool running = cut ? run_rerecorded(queue, recording, walk, skip, may_fault, from, end, always)
                       : run_piece(queue, recording, walk, recording->cbs[segment], NULL, from, end, always);
    d12__vkdrv_walk_unhold(walk);
    if (running && fault.faulted) {
        report_fault(queue, recording, &recording->ops[fault.op], fault.va, fault.flags);
        return false;
    }
    if (!running)
        return false;
    return !closing_kernel || run_kernel(queue, recording, walk, last);
}

/* One list, segment by segment (a draw or dispatch closes a segment). false: the engine was reset. */
static bool execute(d12__vkdrv_queue *queue, const d12__vkdrv_recording *recording)
{
    d12__vkdrv_device *device = queue->device;
    if (!recording->cb_count || !recording->op_count)
        return true;
    bool *skip = calloc(recording->op_count, sizeof *skip);
    bool *may_fault = calloc(recording->op_count, sizeof *may_fault);
    d12__vkdrv_walk *walk = d12__vkdrv_walk_begin(device);
    if (!skip || !may_fault || !walk) {
        free(skip);
        free(may_fault);
        d12__vkdrv_walk_end(walk);
        device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY);
        return false;
    }
    bool running = true;
    size_t from = 0;
    for (size_t segment = 0; segment < recording->cb_count && running; segment++) {
        size_t to = from;
        while (to < recording->op_count && recording->ops[to].segment == segment)
            to++;
        running = execute_segment(queue, recording, walk, segment, from, to, skip, may_fault,
                                  segment == recording->cb_count - 1);
        from = to;
    }
    free(skip);
    free(may_fault);
    d12__vkdrv_walk_end(walk);
    invalidate_readback(device, recording);
    return running;
}

static bool execute_hook(d12__drv_queue *common, void *recording)
{
    return execute((d12__vkdrv_queue *)common, recording);
}

static void *list_recording(D3D12DDI_HCOMMANDLIST list)
{
    return d12__vkdrv_list_recording(list);
}

static void release(void *recording)
{
    d12__vkdrv_recording_release(recording);
}

static const d12__drv_queue_hooks hooks = {list_recording, execute_hook, release, NULL};

const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 d12__vkdrv_command_queue_funcs = {
    d12__drv_execute_command_lists, d12__drv_signal_fence, d12__drv_wait_for_fence};

SIZE_T APIENTRY d12__vkdrv_calc_private_queue_size(D3D12DDI_HDEVICE device,
                                                   const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_queue);
}

HRESULT APIENTRY d12__vkdrv_create_queue(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args,
                                         D3D12DDI_HCOMMANDQUEUE queue_handle, D3D12DDI_HRTCOMMANDQUEUE rt_queue)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    d12__vkdrv_queue *queue = queue_of(queue_handle);
    if (!args || !queue || !device->has_kt)
        return E_INVALIDARG;
    d12__vkdrv_report_mode(device);
    memset(queue, 0, sizeof *queue);
    queue->device = device;
    queue->common = (d12__drv_queue){.hooks = &hooks,
                                     .rt_device = device->rt_device,
                                     .rt_queue = rt_queue,
                                     .callbacks = &device->callbacks,
                                     .kt = &device->kt,
                                     .has_0127 = device->has_0127};
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                    .queueFamilyIndex = device->adapter->queue_family};
    if (vkCreateFence(device->vk, &fence, NULL, &queue->fence) != VK_SUCCESS)
        return E_OUTOFMEMORY;
    if (vkCreateCommandPool(device->vk, &pool, NULL, &queue->pool) != VK_SUCCESS) {
        vkDestroyFence(device->vk, queue->fence, NULL);
        return E_OUTOFMEMORY;
    }
    queue->inflight.rt_queue = rt_queue;
    d12__vkdrv_inflight_add(device, &queue->inflight);
    if (FAILED(d12__drv_queue_start(&queue->common))) {
        d12__vkdrv_inflight_remove(device, &queue->inflight);
        vkDestroyCommandPool(device->vk, queue->pool, NULL);
        vkDestroyFence(device->vk, queue->fence, NULL);
        return E_OUTOFMEMORY;
    }
    return S_OK;
}

VOID APIENTRY d12__vkdrv_destroy_queue(D3D12DDI_HDEVICE handle, D3D12DDI_HCOMMANDQUEUE queue_handle)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    d12__vkdrv_queue *queue = queue_of(queue_handle);
    d12__drv_queue_stop(&queue->common);
    d12__vkdrv_inflight_remove(device, &queue->inflight);
    d12__vkdrv_kernel_queue_fini(device, &queue->kernel);
    if (d12__vkdrv_abandoned(device))
        return; /* the work that never completed may use the pool and the fence (vkdrv_stuck.c) */
    vkDestroyCommandPool(device->vk, queue->pool, NULL);
    vkDestroyFence(device->vk, queue->fence, NULL);
}
