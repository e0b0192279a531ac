/* What a queue's timeline does with a recording: replays its commands with fresh bindings (D3D12 lists
 * inherit no state), really copies bytes, and checks every address a draw, dispatch or copy would read
 * against the live buffers. There are no shaders, so a root descriptor's read is modelled: a root CBV reads
 * 256 bytes (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT, the smallest constant buffer), a root SRV or UAV
 * 4 bytes (one element). Findings are queued on the device before the timeline moves on, so they are pending
 * before any later fence signal is passed back. Address 0 is "nothing bound" here: a null vertex buffer view
 * is legal, and a root descriptor at 0 was already reported while recording.
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

#include "refdrv_gpu.h"

#define ROOT_CBV_READ 256u /* D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT */
#define ROOT_VIEW_READ 4u

static const char *const k_root_kind_names[] = {"CBV", "SRV", "UAV"};

typedef struct root_binding {
    UINT64 address;
    uint8_t kind;
} root_binding;

/* One execution: the timeline, the recording, and the fault the current command hit (if any). */
typedef struct execution {
    d12__refdrv_timeline *timeline;
    const d12__refdrv_recording *recording;
    bool faulted;
    UINT64 fault_va;
    UINT fault_flags;
} execution;

typedef struct bindings {
    d12__refdrv_command vertex[D12_REFDRV_MAX_VERTEX_BUFFERS];
    uint32_t vertex_mask;
    d12__refdrv_command index;
    root_binding graphics[D12_REFDRV_MAX_ROOT_PARAMETERS], compute[D12_REFDRV_MAX_ROOT_PARAMETERS];
    uint64_t graphics_mask, compute_mask;
} bindings;

static void page_fault(execution *x, UINT32 index, UINT64 address, bool write, const char *what)
{
    x->faulted = true;
    x->fault_va = address;
    x->fault_flags = write ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE;
    if (!d12__refdrv_validating(x->timeline->device))
        return;
    char *name = d12__refdrv_va_name(x->timeline->device, address); /* v2: "'MyVB' + 0x10000 (past its end)" */
    d12__refdrv_report_later(x->timeline->device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                             index, "Page fault: %s %s GPU virtual address 0x%016llX, which is in no live buffer%s%s.",
                             what, write ? "writes" : "reads", (unsigned long long)address, name ? ": " : "",
                             name ? name : "");
    free(name);
}

/* Check that [address, address + size) lies in one live buffer. A byte on a page mapped to no live allocation is
 * a page fault (the first such byte is the faulting address); a range inside the buffer's allocation but past its
 * Width is the overrun finding `id`. Returns the buffer (a reference held) when the range is wholly inside it.
 * After a fault every later check of the command is skipped: the GPU stopped at the first bad access. */
static d12__refdrv_buffer *check_range(execution *x, UINT32 index, UINT64 address, UINT64 size, bool write, UINT64 id,
                                       const char *what)
{
    d12__refdrv_device *device = x->timeline->device;
    if (x->faulted)
        return NULL;
    d12__refdrv_buffer *buffer = d12__refdrv_buffer_acquire(device, address);
    if (!buffer) {
        page_fault(x, index, address, write, what);
        return NULL;
    }
    UINT64 offset = address - buffer->va, span = d12__drv_va_span(buffer->size);
    if (size > span - offset) { /* runs off the allocation into the unmapped gap that follows it */
        page_fault(x, index, buffer->va + span, write, what);
        d12__refdrv_buffer_release(buffer);
        return NULL;
    }
    if (offset <= buffer->size && size <= buffer->size - offset)
        return buffer;
    if (!d12__refdrv_validating(device)) { /* the identity query is for the message only */
        d12__refdrv_buffer_release(buffer);
        return NULL;
    }
    char *name = d12__refdrv_buffer_name(device, buffer);
    /* v2: the first byte past the end, named by the runtime ("0x...:'MyVB' + 0x100 (past its end)") */
    char *end = d12__refdrv_va_name(device, buffer->va + buffer->size);
    d12__refdrv_report_later(device, id, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, index,
                             "%s covers %llu bytes from offset %llu of %s, which has %llu bytes: %llu bytes past "
                             "its end.%s%s",
                             what, (unsigned long long)size, (unsigned long long)offset, name ? name : "a buffer",
                             (unsigned long long)buffer->size, (unsigned long long)(offset + size - buffer->size),
                             end ? " First byte past it: " : "", end ? end : "");
    free(end);
    free(name);
    d12__refdrv_buffer_release(buffer);
    return NULL;
}

static void check_view(execution *x, UINT32 index, UINT64 address, UINT64 size, UINT64 id, const char *what)
{
    d12__refdrv_buffer *buffer = check_range(x, index, address, size, false, id, what);
    if (buffer)
        d12__refdrv_buffer_release(buffer);
}

static void check_vertex_buffers(execution *x, const bindings *b, UINT32 index)
{
    for (unsigned slot = 0; slot < D12_REFDRV_MAX_VERTEX_BUFFERS; slot++) {
        if (!(b->vertex_mask & (1u << slot)))
            continue;
        char what[48];
        snprintf(what, sizeof what, "The vertex buffer view in slot %u", slot);
        check_view(x, index, b->vertex[slot].u.view.address, b->vertex[slot].u.view.size,
                   D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, what);
    }
}

static void check_roots(execution *x, const root_binding *roots, uint64_t mask, UINT32 index)
{
    for (unsigned i = 0; i < D12_REFDRV_MAX_ROOT_PARAMETERS; i++) {
        if (!(mask & (1ull << i)) || !roots[i].address)
            continue;
        char what[64];
        snprintf(what, sizeof what, "The root %s at root parameter %u", k_root_kind_names[roots[i].kind], i);
        check_view(x, index, roots[i].address, roots[i].kind == D12_REFDRV_ROOT_CBV ? ROOT_CBV_READ : ROOT_VIEW_READ,
                   D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, what);
    }
}

/* The indices the draw reads must lie inside the view (the view itself is checked against its buffer). */
static void check_index_buffer(execution *x, const bindings *b, const d12__refdrv_command *draw)
{
    const d12__refdrv_command *view = &b->index;
    if (!view->u.view.address)
        return; /* none bound: reported while recording */
    check_view(x, draw->state_index, view->u.view.address, view->u.view.size,
               D12_REFDRV_MSG_INDEX_BUFFER_PAST_END, "The index buffer view");
    UINT64 index_size = view->u.view.stride_or_format == DXGI_FORMAT_R16_UINT ? 2 : 4;
    UINT64 end = ((UINT64)draw->u.draw.start + draw->u.draw.count) * index_size;
    if (end > view->u.view.size && !x->faulted) {
        d12__refdrv_report_later(x->timeline->device, D12_REFDRV_MSG_INDEX_READ_PAST_VIEW, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                                 draw->state_index,
                                 "Indices %u to %llu (%llu-byte indices) read up to byte %llu of an index buffer "
                                 "view of %u bytes.",
                                 draw->u.draw.start, (unsigned long long)draw->u.draw.start + draw->u.draw.count - 1,
                                 (unsigned long long)index_size, (unsigned long long)end, view->u.view.size);
    }
}

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

static void bind(bindings *b, const d12__refdrv_command *command)
{
    if (command->type == D12_REFDRV_CMD_SET_VERTEX_BUFFER) {
        b->vertex[command->slot] = *command;
        b->vertex_mask = command->u.view.address ? b->vertex_mask | (1u << command->slot)
                                                 : b->vertex_mask & ~(1u << command->slot);
    } else if (command->type == D12_REFDRV_CMD_SET_INDEX_BUFFER) {
        b->index = *command;
    } else {
        root_binding *roots = command->compute ? b->compute : b->graphics;
        uint64_t *mask = command->compute ? &b->compute_mask : &b->graphics_mask;
        roots[command->slot] = (root_binding){command->u.view.address, command->root_kind};
        *mask |= 1ull << command->slot;
    }
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
    if (!device->has_0127)
        return true; /* a runtime before build 0127 cannot be asked */
    D3D12DDICB_GPUPROGRESS_0127 report = {progress, list, op_index};
    return SUCCEEDED(device->kt.pfnReportGpuProgressCb(device->rt_device, timeline->rt_queue, &report));
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
        .FaultedVirtualAddress = x->fault_va,
        .PageFaultFlags = x->fault_flags,
        .hRTCommandQueue = x->timeline->rt_queue,
        .hRTCommandList = x->recording->rt_list,
        .OpIndex = command->op_index,
    };
    device->kt.pfnDeviceFaultCb(device->rt_device, &fault);
    return true;
}

static bool is_binding(const d12__refdrv_command *command)
{
    return command->type == D12_REFDRV_CMD_SET_VERTEX_BUFFER || command->type == D12_REFDRV_CMD_SET_INDEX_BUFFER ||
           command->type == D12_REFDRV_CMD_SET_ROOT;
}

/* The command's checks; for a copy or a write, the buffers its effect needs (references held). */
static void check_command(execution *x, const bindings *b, const d12__refdrv_command *command,
                          d12__refdrv_buffer **src, d12__refdrv_buffer **dst)
{
    UINT32 index = command->state_index;
    switch ((d12__refdrv_command_type)command->type) {
    case D12_REFDRV_CMD_DRAW_INDEXED:
        check_index_buffer(x, b, command);
        __attribute__((fallthrough)); /* the vertex buffers and roots as any draw */
    case D12_REFDRV_CMD_DRAW:
        check_vertex_buffers(x, b, index);
        check_roots(x, b->graphics, b->graphics_mask, index);
        break;
    case D12_REFDRV_CMD_DISPATCH:
        check_roots(x, b->compute, b->compute_mask, index);
        break;
    case D12_REFDRV_CMD_COPY:
        *src = check_range(x, index, command->u.copy.src, command->u.copy.size, false, D12_REFDRV_MSG_COPY_PAST_END,
                           "The copy source");
        *dst = check_range(x, index, command->u.copy.dst, command->u.copy.size, true, D12_REFDRV_MSG_COPY_PAST_END,
                           "The copy destination");
        break;
    case D12_REFDRV_CMD_WRITE_IMMEDIATE:
        *dst = check_range(x, index, command->u.write.dest, sizeof(UINT32), true, D12_REFDRV_MSG_WRITE_PAST_END,
                           "The write-immediate destination");
        break;
    default: /* barriers: nothing to check, one command runs at a time and memory is coherent */
        break;
    }
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
static bool execute_command(execution *x, const bindings *b, const d12__refdrv_command *command)
{
    if (!d12__refdrv_progress(x->timeline, D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN, x->recording->rt_list,
                              command->op_index))
        return false;
    d12__refdrv_buffer *src = NULL, *dst = NULL;
    check_command(x, b, command, &src, &dst);
    if (x->faulted) {
        x->faulted = false;
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
    bindings *b = calloc(1, sizeof *b);
    if (!b) {
        device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY); /* the work cannot run: removed */
        return false;
    }
    execution x = {timeline, recording, false, 0, 0};
    bool running = true;
    /* The first empty chunk ends the recording: the chunks after it are kept empty for the list's next recording
     * (refdrv_list.c, reusable_recording). */
    for (const d12__refdrv_chunk *chunk = recording->head; chunk && chunk->count && running; chunk = chunk->next) {
        for (uint32_t i = 0; i < chunk->count && running; i++) {
            const d12__refdrv_command *command = &chunk->commands[i];
            if (is_binding(command))
                bind(b, command);
            else
                running = execute_command(&x, b, command);
        }
    }
    free(b);
    return running;
}
