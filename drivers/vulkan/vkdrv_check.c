/* The execution-time checks of a recording: the rules both drivers share (drivers/common/drvcommon_rules.h,
 * docs/refdrv.md) over this driver's op log, one segment at a time. A range inside the buffer's 64 KiB-granular
 * allocation but past its Width is an overrun finding (the op's effect is skipped); a byte on a page mapped to no
 * live allocation is a page fault (the CORRUPTION finding; the walk stops there). The page faults of draws and
 * dispatches are found by their kernel instead, on the GPU, through the page table (vkdrv_kernel.c): here they get
 * only the overrun findings, which are about a view and its buffer, not about an access. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv.h"

/* What the rules (drivers/common/drvcommon_rules.c) need of this driver. */
static void *acquire(void *device, UINT64 address, UINT64 *va, UINT64 *width)
{
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, address);
    if (buffer) {
        *va = buffer->va;
        *width = buffer->size;
    }
    return buffer;
}

static void release(void *buffer)
{
    d12__vkdrv_buffer_release(buffer);
}

/* Findings are GENERAL (version 2's categories: docs/vulkan.md); off, they cost no name query. */
static bool validating(void *device)
{
    return d12__vkdrv_reporting(device, D12_VKDRV_DRM_GENERAL);
}

/* Version 2's name of a GPU VA ("0x...:'MyVB' + 0x80 (released)"), appended to a finding. */
static char *va_name(void *device, UINT64 va)
{
    return d12__vkdrv_va_name(device, va);
}

static char *buffer_name(void *handle, const void *object)
{
    const d12__vkdrv_device *device = handle;
    const d12__vkdrv_buffer *buffer = object;
    return d12__drv_buffer_name(device->callbacks.pfnQueryObjectIdentityCb, device->rt_device, buffer->rt_resource,
                                buffer->va);
}

static void report(void *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 state_index,
                   const char *text)
{
    d12__vkdrv_report_later(device, id, severity, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, state_index, "%s", text);
}

/* The kernels find the page faults of draws and dispatches. */
static const d12__drv_checks k_checks = {acquire, release, validating, buffer_name, va_name, report, true};

/* The bindings persist across the segments of one recording's walk; the buffers the inline kernels of the segment
 * in flight may reach are held. */
struct d12__vkdrv_walk {
    d12__drv_exec check;
    d12__drv_bindings b;
    d12__vkdrv_use *uses; /* every buffer the segment's copies, writes and inline kernels use, held */
    size_t use_count, use_capacity;
    d12__vkdrv_buffer **held; /* scratch of hold_range */
    size_t held_count, held_capacity;
    size_t op; /* the op whose kernel hold_range holds for */
};

d12__vkdrv_walk *d12__vkdrv_walk_begin(d12__vkdrv_device *device)
{
    d12__vkdrv_walk *state = calloc(1, sizeof *state);
    if (state)
        state->check = (d12__drv_exec){.checks = &k_checks, .device = device};
    return state;
}

void d12__vkdrv_walk_unhold(d12__vkdrv_walk *state)
{
    for (size_t i = 0; i < state->use_count; i++)
        d12__vkdrv_buffer_release(state->uses[i].buffer);
    state->use_count = 0;
}

/* A use of op `op`, its reference handed over (out of memory it is dropped: the rule then misses that use). */
static void add_use(d12__vkdrv_walk *state, size_t op, d12__vkdrv_buffer *buffer, UINT64 va, bool write)
{
    if (state->use_count == state->use_capacity) {
        size_t capacity = state->use_capacity ? state->use_capacity * 2 : 64;
        d12__vkdrv_use *uses = realloc(state->uses, capacity * sizeof *uses);
        if (!uses) {
            d12__vkdrv_buffer_release(buffer);
            return;
        }
        state->uses = uses;
        state->use_capacity = capacity;
    }
    state->uses[state->use_count++] = (d12__vkdrv_use){op, buffer, va > buffer->va ? va : buffer->va, write};
}

const d12__vkdrv_use *d12__vkdrv_walk_freed(const d12__vkdrv_walk *state, size_t from, size_t end)
{
    for (size_t i = 0; i < state->use_count; i++) {
        const d12__vkdrv_use *use = &state->uses[i];
        if (use->op >= from && use->op < end && atomic_load(&use->buffer->released))
            return use;
    }
    return NULL;
}

void d12__vkdrv_walk_end(d12__vkdrv_walk *state)
{
    if (!state)
        return;
    d12__vkdrv_walk_unhold(state);
    free(state->uses);
    free(state->held);
    free(state);
}

static bool is_kernel(const d12__vkdrv_op *op)
{
    return op->type == D12_VKDRV_OP_DRAW || op->type == D12_VKDRV_OP_DRAW_INDEXED || op->type == D12_VKDRV_OP_DISPATCH;
}

/* Whether [start, end) lies wholly inside one live buffer's allocation (so no read of it can fault). */
static bool covered(d12__vkdrv_device *device, UINT64 start, UINT64 end)
{
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, start);
    bool inside = buffer && end - buffer->va <= buffer->span;
    d12__vkdrv_buffer_release(buffer);
    return inside;
}

/* One range an inline kernel reads: its buffers held (uses of the op); false when it is not wholly mapped. */
static bool hold_range(d12__vkdrv_walk *state, UINT64 va, UINT64 size)
{
    d12__vkdrv_device *device = state->check.device;
    state->held_count = 0;
    bool ok = d12__vkdrv_buffer_hold_range(device, va, va + size, &state->held, &state->held_count,
                                           &state->held_capacity);
    for (size_t i = 0; i < state->held_count; i++)
        add_use(state, state->op, state->held[i], va, false);
    return ok && covered(device, va, va + size);
}

/* The inline kernel of `op` with the walk's bindings: everything it may reach held; whether it may fault. */
static bool hold_kernel(d12__vkdrv_walk *state, const d12__vkdrv_op *op, size_t position)
{
    d12__vkdrv_kernel_args args;
    d12__vkdrv_walk_args(state, op, &args);
    bool safe = true;
    state->op = position;
    if (args.kind == 1 && args.index.va)
        safe &= hold_range(state, args.index.va, args.index.size);
    for (unsigned i = 0; i < args.vertex_buffers; i++) {
        if (args.vb[i].va)
            safe &= hold_range(state, args.vb[i].va, args.vb[i].size);
    }
    for (unsigned i = 0; i < args.roots; i++) {
        if (args.root[i].va)
            safe &= hold_range(state, args.root[i].va, args.root[i].stride);
    }
    return !safe;
}

void d12__vkdrv_walk_ops(d12__vkdrv_walk *state, const d12__vkdrv_recording *recording, size_t from, size_t to,
                         bool *skip, bool *may_fault, d12__vkdrv_fault *fault)
{
    memset(fault, 0, sizeof *fault);
    d12__drv_exec *x = &state->check;
    x->faulted = false;
    for (size_t i = from; i < to && !fault->faulted; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        bool gpu = is_kernel(op);
        if (d12__drv_is_binding(op->type)) {
            d12__drv_bind(&state->b, op->type, op->slot, op->compute, op->root_kind, &op->u.view);
            x->bad = false;
        } else {
            /* the buffers a copy or write uses, kept for the use-after-free rule */
            void *src = NULL, *dst = NULL;
            bool copy = op->type == D12_VKDRV_OP_COPY, write = op->type == D12_VKDRV_OP_WRITE_IMMEDIATE;
            d12__drv_check_op(x, &state->b, op->type, op->state_index, &op->u, copy ? &src : NULL,
                              copy || write ? &dst : NULL);
            if (src)
                add_use(state, i, src, op->u.copy.src, false);
            if (dst)
                add_use(state, i, dst, copy ? op->u.copy.dst : op->u.write.dest, true);
        }
        if (x->faulted)
            *fault = (d12__vkdrv_fault){true, x->fault_va, x->fault_flags, i};
        skip[i] = x->bad && !gpu; /* a draw with an overrun finding still runs (its reads stay in the span) */
        may_fault[i] = gpu && op->recorded && op->arena != D12_VKDRV_NO_ARENA && hold_kernel(state, op, i);
        /* Before build 0127 there is nobody to tell of a fault: the access is skipped and the timeline goes on. */
        if (fault->faulted && !((d12__vkdrv_device *)x->device)->has_0127)
            fault->faulted = x->faulted = false;
    }
}

void d12__vkdrv_walk_args(const d12__vkdrv_walk *state, const d12__vkdrv_op *op, d12__vkdrv_kernel_args *args)
{
    d12__vkdrv_bindings_args(&state->b, op, args);
}

void d12__vkdrv_args_at(const d12__vkdrv_recording *recording, size_t position, d12__vkdrv_kernel_args *args)
{
    d12__drv_bindings *b = calloc(1, sizeof *b);
    if (!b) {
        memset(args, 0, sizeof *args);
        return;
    }
    for (size_t i = 0; i < position; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        if (d12__drv_is_binding(op->type))
            d12__drv_bind(b, op->type, op->slot, op->compute, op->root_kind, &op->u.view);
    }
    d12__vkdrv_bindings_args(b, &recording->ops[position], args);
    free(b);
}

void d12__vkdrv_bindings_args(const d12__drv_bindings *b, const d12__vkdrv_op *op, d12__vkdrv_kernel_args *args)
{
    /* Only the header and the views up to the last bound one are written (and read: vertex_buffers, roots): a draw
     * costs no 2 KiB clear (recording 10 000 draws, issue 28). */
    memset(args, 0, offsetof(d12__vkdrv_kernel_args, vb));
    bool compute = op->type == D12_VKDRV_OP_DISPATCH;
    args->kind = op->type == D12_VKDRV_OP_DRAW ? 0 : op->type == D12_VKDRV_OP_DRAW_INDEXED ? 1 : 2;
    args->count = op->u.draw.count;
    args->start = op->u.draw.start;
    args->base_vertex = op->u.draw.base_vertex;
    if (op->type == D12_VKDRV_OP_DRAW_INDEXED) {
        args->index.va = b->index.address;
        args->index.size = b->index.size;
        args->index.stride = (UINT32)d12__drv_index_size(b->index.stride_or_format);
    }
    if (!compute && b->vertex_mask) {
        unsigned last = 31u - (unsigned)__builtin_clz(b->vertex_mask); /* the highest bound slot */
        memset(args->vb, 0, (last + 1) * sizeof args->vb[0]);
        for (unsigned slot = 0; slot <= last; slot++) {
            if (b->vertex_mask & (1u << slot)) {
                args->vb[slot].va = b->vertex[slot].address;
                args->vb[slot].size = b->vertex[slot].size;
                args->vb[slot].stride = b->vertex[slot].stride_or_format;
                args->vertex_buffers = slot + 1;
            }
        }
    }
    const d12__drv_root_binding *roots = compute ? b->compute : b->graphics;
    uint64_t mask = compute ? b->compute_mask : b->graphics_mask;
    unsigned last_root = mask ? 63u - (unsigned)__builtin_clzll(mask) : 0;
    if (mask)
        memset(args->root, 0, (last_root + 1) * sizeof args->root[0]);
    for (unsigned i = 0; mask && i <= last_root; i++) {
        if ((mask & (1ull << i)) && roots[i].address) {
            args->root[i].va = roots[i].address;
            args->root[i].stride = d12__drv_root_read(roots[i].kind);
            args->root[i].size = roots[i].kind; /* for the fault's words (d12__vkdrv_args_what) */
            args->roots = i + 1;
        }
    }
}

/* The first binding (index buffer, vertex buffers by slot, roots by index) whose bytes contain `va`. */
const char *d12__vkdrv_args_what(const d12__vkdrv_kernel_args *args, UINT64 va, char *buffer, size_t size)
{
    if (args->kind == 1 && va - args->index.va < args->index.size)
        return snprintf(buffer, size, D12_DRV_WHAT_INDEX_BUFFER), buffer;
    for (unsigned slot = 0; slot < args->vertex_buffers; slot++) {
        if (args->vb[slot].va && va - args->vb[slot].va < args->vb[slot].size)
            return d12__drv_what_vertex_buffer(buffer, size, slot), buffer;
    }
    for (unsigned i = 0; i < args->roots; i++) {
        if (args->root[i].va && va - args->root[i].va < args->root[i].stride)
            return d12__drv_what_root(buffer, size, args->root[i].size, i), buffer;
    }
    return NULL;
}
