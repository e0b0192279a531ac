/* What a queue's timeline does with a recording: replays its commands with fresh bindings (D3D12 lists
 * inherit no state), really copies bytes, and checks every address a draw, dispatch or copy would read
 * against the live buffers, by the execution-time rules both drivers share (drivers/common/drvcommon_rules.h:
 * the bindings, the modelled root descriptor reads, the findings). Findings are queued on the device before the
 * timeline moves on, so they are pending before any later fence signal is passed back.
 *
 * Faults and GPU time (DDI build 0127, docs/dred-gpu.md): an access to a 64 KiB page mapped to no live
 * allocation is a page fault; on a 0127 device it is reported (the CORRUPTION finding, then pfnDeviceFaultCb) and
 * the command never completes: execution stops, and the timeline drops everything queued after it. Each command
 * reports OP_BEGIN before it runs and sleeps its GPU cost in slices of at most 10 ms, asking the runtime between
 * slices whether the engine was reset; its effect (a copy, a write) happens only after its last slice. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drvcommon_queue.h"
#include "refdrv_gpu.h"

/* What the rules (drivers/common/drvcommon_rules.c) need of this driver. */
static void *acquire(void *device, UINT64 address, UINT64 *va, UINT64 *width)
{
    d12__refdrv_buffer *buffer = d12__refdrv_buffer_acquire(device, address);
    if (buffer) {
        *va = buffer->va;
        *width = buffer->size;
    }
    return buffer;
}

static void release(void *buffer)
{
    d12__refdrv_buffer_release(buffer);
}

static bool validating(void *device)
{
    return d12__refdrv_validating(device);
}

static char *buffer_name(void *handle, const void *object)
{
    const d12__refdrv_device *device = handle;
    const d12__refdrv_buffer *buffer = object;
    return d12__drv_buffer_name(device->callbacks.pfnQueryObjectIdentityCb, device->rt_device, buffer->rt_resource,
                                buffer->va);
}

static char *va_name(void *device, UINT64 va)
{
    return d12__refdrv_va_name(device, va);
}

static void report(void *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 state_index,
                   const char *text)
{
    d12__refdrv_report_later(device, id, severity, state_index, "%s", text);
}

static const d12__drv_checks k_checks = {acquire, release, validating, buffer_name, va_name, report, false};

/* One execution: the timeline, the recording, the checks of the current command (its fault, if any), and the
 * compute state of the binding table's commands (refdrv_dispatch.c). */
typedef struct execution {
    d12__refdrv_timeline *timeline;
    const d12__refdrv_recording *recording;
    d12__drv_exec check;
    d12__refdrv_compute compute;
} execution;

/* The copy's effect, after its checks and its GPU time. */
static void execute_copy(const d12__refdrv_command *copy, d12__refdrv_buffer *src, d12__refdrv_buffer *dst)
{
    if (src && dst) /* memmove: a region copy within one buffer may overlap */
        memmove(d12__refdrv_buffer_memory(dst) + (copy->u.copy.dst - dst->va),
                d12__refdrv_buffer_memory(src) + (copy->u.copy.src - src->va),
                copy->u.copy.size);
}

/* pfnWriteBufferImmediate: one 32-bit store, released so a CPU reader that acquires it sees everything the
 * commands before it wrote. On this serial timeline every preceding command has completed when it runs, so
 * DEFAULT, MARKER_IN and MARKER_OUT all hold ("MARKER_OUT: after every preceding command of the queue completed"). */
static void execute_write(const d12__refdrv_command *write, d12__refdrv_buffer *dst)
{
    _Atomic UINT32 *word = (_Atomic UINT32 *)(void *)(d12__refdrv_buffer_memory(dst) + (write->u.write.dest - dst->va));
    atomic_store_explicit(word, write->u.write.value, memory_order_release);
}

/* ---- GPU time ---- */

static UINT64 saturating_mul(UINT64 a, UINT64 b)
{
    UINT64 product;
    return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

static UINT64 saturating_add(UINT64 a, UINT64 b)
{
    UINT64 sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

UINT64 d12__refdrv_command_cost_ns(const d12__refdrv_rates *rates, const d12__refdrv_command *command)
{
    UINT64 ps = 0;
    switch ((d12__refdrv_command_type)command->type) {
    case D12_REFDRV_CMD_DRAW:
    case D12_REFDRV_CMD_DRAW_INDEXED:
        ps = saturating_mul(saturating_mul(command->u.draw.count, command->u.draw.instances), rates->ps_per_vertex);
        break;
    case D12_REFDRV_CMD_DISPATCH: /* count, instances, start hold the group counts X, Y, Z */
        ps = saturating_mul(saturating_mul(saturating_mul(command->u.draw.count, command->u.draw.instances),
                                           command->u.draw.start),
                            rates->ps_per_group);
        break;
    case D12_REFDRV_CMD_COPY:
        ps = saturating_mul(command->u.copy.size, rates->ps_per_byte);
        break;
    case D12_REFDRV_CMD_WRITE_IMMEDIATE:
        /* A write-immediate is one 4-byte memory write, not a draw: the copy rate for its 4 bytes, rounded up to a
         * nanosecond, and no per-command cost (DRED's breadcrumbs write one after every op; charging each the cost of
         * a command doubled a draw-heavy list's modelled GPU time, issue 19 item 9). */
        ps = saturating_mul(sizeof(UINT32), rates->ps_per_byte);
        return ps / 1000 + (ps % 1000 != 0);
    default: /* barriers: the fixed cost only */
        break;
    }
    return saturating_add(ps / 1000, rates->ns_per_command);
}

static void sleep_ns(UINT64 ns)
{
    struct timespec delay = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&delay, &delay) != 0) {
    }
}

bool d12__refdrv_progress(d12__refdrv_timeline *timeline, D3D12DDI_GPU_PROGRESS_0127 progress,
                          D3D12DDI_HRTCOMMANDLIST list, UINT32 op_index)
{
    d12__refdrv_device *device = timeline->device;
    return d12__drv_report_progress(&device->kt, device->has_0127, device->rt_device, timeline->rt_queue, progress,
                                    list, op_index);
}

/* The command's GPU time: cheap work adds up until it reaches 1 ms, then sleeps in slices of at most 10 ms, asking
 * after every slice whether the engine was reset. false: it was (the command never completes). */
static bool spend_gpu_time(d12__refdrv_timeline *timeline, const d12__refdrv_command *command)
{
    timeline->debt_ns = saturating_add(timeline->debt_ns, d12__refdrv_command_cost_ns(&timeline->device->rates, command));
    if (timeline->debt_ns < D12_REFDRV_MIN_SLEEP_NS)
        return true;
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    while (timeline->debt_ns) {
        UINT64 slice = timeline->debt_ns < D12_REFDRV_SLICE_NS ? timeline->debt_ns : D12_REFDRV_SLICE_NS;
        sleep_ns(slice);
        timeline->debt_ns -= slice;
        if (!d12__refdrv_progress(timeline, D3D12DDI_GPU_PROGRESS_0127_OP_SLICE, none, D3D12DDI_OP_INDEX_UNKNOWN)) {
            timeline->debt_ns = 0;
            return false;
        }
    }
    return true;
}

/* ---- Commands ---- */

/* The fault the command hit: on a 0127 device, pfnDeviceFaultCb and the engine stops (true); before 0127 there is
 * no one to tell, so the faulting access is skipped and the timeline carries on, as it always did (false). */
static bool report_fault(execution *x, const d12__refdrv_command *command)
{
    d12__refdrv_device *device = x->timeline->device;
    if (!device->has_0127)
        return false;
    D3D12DDICB_DEVICEFAULT_0127 fault = {
        .ExecutionState = D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT,
        .FaultedVirtualAddress = x->check.fault_va,
        .PageFaultFlags = x->check.fault_flags,
        .hRTCommandQueue = x->timeline->rt_queue,
        .hRTCommandList = x->recording->rt_list,
        .OpIndex = command->op_index,
    };
    device->kt.pfnDeviceFaultCb(device->rt_device, &fault);
    return true;
}

static void release_buffers(d12__refdrv_buffer *src, d12__refdrv_buffer *dst)
{
    if (src)
        d12__refdrv_buffer_release(src);
    if (dst)
        d12__refdrv_buffer_release(dst);
}

/* One GPU command: OP_BEGIN, its checks (a fault stops the engine), its GPU time, then its effect. false: the engine
 * was reset and the command never completed. */
static bool execute_command(execution *x, const d12__drv_bindings *b, const d12__refdrv_command *command)
{
    if (!d12__refdrv_progress(x->timeline, D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN, x->recording->rt_list,
                              command->op_index))
        return false;
    void *src = NULL, *dst = NULL;
    bool runs = true;
    if (command->type == D12_REFDRV_CMD_DISPATCH && x->compute.pipeline) /* the application's shader's registers */
        runs = d12__refdrv_dispatch_check(&x->check, &x->compute, b, command);
    else if (command->type == D12_REFDRV_CMD_CLEAR_UAV)
        runs = d12__refdrv_clear_uav(&x->check, command);
    else
        d12__drv_check_op(&x->check, b, command->type, command->state_index, &command->u, &src, &dst);
    if (command->type == D12_REFDRV_CMD_DISPATCH)
        x->compute.dispatches++;
    if (!runs && !x->check.faulted)
        return true; /* reported (an uninitialized descriptor): the dispatch is not run, the queue goes on */
    if (x->check.faulted) {
        x->check.faulted = false;
        release_buffers(src, dst);
        if (report_fault(x, command))
            return false;
        return true; /* before 0127: the faulting access is skipped */
    }
    bool completed = spend_gpu_time(x->timeline, command);
    if (completed && command->type == D12_REFDRV_CMD_COPY)
        execute_copy(command, src, dst);
    if (completed && command->type == D12_REFDRV_CMD_WRITE_IMMEDIATE && dst)
        execute_write(command, dst);
    release_buffers(src, dst);
    return completed;
}

bool d12__refdrv_execute(d12__refdrv_timeline *timeline, const d12__refdrv_recording *recording)
{
    d12__refdrv_device *device = timeline->device;
    d12__drv_bindings *b = calloc(1, sizeof *b);
    if (!b) {
        device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY); /* the work cannot run: removed */
        return false;
    }
    execution x = {.timeline = timeline, .recording = recording, .check = {.checks = &k_checks, .device = device}};
    bool running = true;
    /* The first empty chunk ends the recording: the chunks after it are kept empty for the list's next recording
     * (refdrv_list.c, reusable_recording). */
    for (const d12__refdrv_chunk *chunk = recording->head; chunk && chunk->count && running; chunk = chunk->next) {
        for (uint32_t i = 0; i < chunk->count && running; i++) {
            const d12__refdrv_command *command = &chunk->commands[i];
            if (d12__drv_is_binding(command->type))
                d12__drv_bind(b, command->type, command->slot, command->compute, command->root_kind, &command->u.view);
            else if (d12__refdrv_is_compute_binding(command->type))
                d12__refdrv_compute_bind(&x.compute, b, command);
            else
                running = execute_command(&x, b, command);
        }
    }
    free(b);
    return running;
}
