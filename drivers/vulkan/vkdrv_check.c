/* The execution-time checks of a recording, the reference driver's rules exactly (drivers/reference/
 * refdrv_execute.c, docs/refdrv.md): bindings replayed fresh for each list, every address a draw, dispatch, copy or
 * write would touch resolved against the live buffers when the timeline reaches it. A range inside the buffer's
 * 64 KiB-granular allocation but past its Width is an overrun finding (the op's effect is skipped); a byte on a
 * page mapped to no live allocation is a page fault (the CORRUPTION finding; the walk stops there). A root CBV
 * reads 256 bytes, a root SRV or UAV 4, as the reference driver models them. The page faults of draws and
 * dispatches are found by their kernel instead, on the GPU, through the page table (vkdrv_kernel.c): here they get
 * only the overrun findings, which are about a view and its buffer, not about an access. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv.h"

#define ROOT_CBV_READ 256u
#define ROOT_VIEW_READ 4u

static const char *const k_root_kind_names[] = {"CBV", "SRV", "UAV"};

typedef struct root_binding {
    UINT64 address;
    uint8_t kind;
} root_binding;

typedef struct bindings {
    d12__vkdrv_op vertex[D12_VKDRV_MAX_VERTEX_BUFFERS];
    uint32_t vertex_mask;
    d12__vkdrv_op index;
    root_binding graphics[D12_VKDRV_MAX_ROOT_PARAMETERS], compute[D12_VKDRV_MAX_ROOT_PARAMETERS];
    uint64_t graphics_mask, compute_mask;
} bindings;

typedef struct walk {
    d12__vkdrv_device *device;
    d12__vkdrv_fault *fault;
    size_t op;
    bool bad; /* the current op had a finding or a fault */
    bool gpu; /* the current op is a draw or dispatch: its page faults are the kernel's */
    bindings b;
} walk;

struct d12__vkdrv_walk {
    walk w;
};

static void later(d12__vkdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 index,
                  const char *text)
{
    d12__vkdrv_report_later(device, id, severity, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, index, "%s", text);
}

static void page_fault(walk *w, UINT32 index, UINT64 address, bool write, const char *what)
{
    w->fault->faulted = true;
    w->fault->va = address;
    w->fault->flags = write ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE;
    w->fault->op = w->op;
    w->bad = true;
    if (!d12__vkdrv_reporting(w->device, D12_VKDRV_DRM_GENERAL))
        return;
    char text[512];
    char *name = d12__vkdrv_va_name(w->device, address); /* v2: "'MyVB' + 0x10000 (past its end)" */
    snprintf(text, sizeof text, "Page fault: %s %s GPU virtual address 0x%016llX, which is in no live buffer%s%s.",
             what, write ? "writes" : "reads", (unsigned long long)address, name ? ": " : "", name ? name : "");
    free(name);
    later(w->device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION, index, text);
}

static void check_range(walk *w, UINT32 index, UINT64 address, UINT64 size, bool write, UINT64 id, const char *what)
{
    if (w->fault->faulted)
        return;
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(w->device, address);
    if (!buffer) {
        if (!w->gpu)
            page_fault(w, index, address, write, what);
        return;
    }
    UINT64 offset = address - buffer->va;
    if (size > buffer->span - offset) {
        if (!w->gpu)
            page_fault(w, index, buffer->va + buffer->span, write, what);
    } else if (offset > buffer->size || size > buffer->size - offset) {
        w->bad = true;
        if (d12__vkdrv_reporting(w->device, D12_VKDRV_DRM_GENERAL)) { /* the names are for the message only */
            char *name = d12__vkdrv_buffer_name(w->device, buffer);
            /* v2: the first byte past the end, named by the runtime ("0x...:'MyVB' + 0x100 (past its end)") */
            char *end = d12__vkdrv_va_name(w->device, buffer->va + buffer->size);
            char text[1024];
            snprintf(text, sizeof text,
                     "%s covers %llu bytes from offset %llu of %s, which has %llu bytes: %llu bytes past its end.%s%s",
                     what, (unsigned long long)size, (unsigned long long)offset, name ? name : "a buffer",
                     (unsigned long long)buffer->size, (unsigned long long)(offset + size - buffer->size),
                     end ? " First byte past it: " : "", end ? end : "");
            free(end);
            free(name);
            later(w->device, id, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, index, text);
        }
    }
    d12__vkdrv_buffer_release(buffer);
}

static void check_vertex_buffers(walk *w, const bindings *b, UINT32 index)
{
    for (unsigned slot = 0; slot < D12_VKDRV_MAX_VERTEX_BUFFERS; slot++) {
        if (!(b->vertex_mask & (1u << slot)))
            continue;
        char what[48];
        snprintf(what, sizeof what, "The vertex buffer view in slot %u", slot);
        check_range(w, index, b->vertex[slot].u.view.address, b->vertex[slot].u.view.size, false,
                    D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, what);
    }
}

static void check_roots(walk *w, const root_binding *roots, uint64_t mask, UINT32 index)
{
    for (unsigned i = 0; i < D12_VKDRV_MAX_ROOT_PARAMETERS; i++) {
        if (!(mask & (1ull << i)) || !roots[i].address)
            continue;
        char what[64];
        snprintf(what, sizeof what, "The root %s at root parameter %u", k_root_kind_names[roots[i].kind], i);
        check_range(w, index, roots[i].address, roots[i].kind == 0 ? ROOT_CBV_READ : ROOT_VIEW_READ, false,
                    D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, what);
    }
}

static void check_index_buffer(walk *w, const bindings *b, const d12__vkdrv_op *draw)
{
    const d12__vkdrv_op *view = &b->index;
    if (!view->u.view.address)
        return;
    check_range(w, draw->state_index, view->u.view.address, view->u.view.size, false,
                D12_REFDRV_MSG_INDEX_BUFFER_PAST_END, "The index buffer view");
    UINT64 index_size = view->u.view.stride_or_format == DXGI_FORMAT_R16_UINT ? 2 : 4;
    UINT64 end = ((UINT64)draw->u.draw.start + draw->u.draw.count) * index_size;
    if (end > view->u.view.size && !w->fault->faulted) {
        char text[256];
        snprintf(text, sizeof text,
                 "Indices %u to %llu (%llu-byte indices) read up to byte %llu of an index buffer view of %u bytes.",
                 draw->u.draw.start, (unsigned long long)draw->u.draw.start + draw->u.draw.count - 1,
                 (unsigned long long)index_size, (unsigned long long)end, view->u.view.size);
        later(w->device, D12_REFDRV_MSG_INDEX_READ_PAST_VIEW, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, draw->state_index,
              text);
    }
}

static void bind(bindings *b, const d12__vkdrv_op *op)
{
    if (op->type == D12_VKDRV_OP_SET_VERTEX_BUFFER) {
        b->vertex[op->slot] = *op;
        b->vertex_mask = op->u.view.address ? b->vertex_mask | (1u << op->slot) : b->vertex_mask & ~(1u << op->slot);
    } else if (op->type == D12_VKDRV_OP_SET_INDEX_BUFFER) {
        b->index = *op;
    } else {
        root_binding *roots = op->compute ? b->compute : b->graphics;
        uint64_t *mask = op->compute ? &b->compute_mask : &b->graphics_mask;
        roots[op->slot] = (root_binding){op->u.view.address, op->root_kind};
        *mask |= 1ull << op->slot;
    }
}

d12__vkdrv_walk *d12__vkdrv_walk_begin(d12__vkdrv_device *device)
{
    d12__vkdrv_walk *state = calloc(1, sizeof *state);
    if (state)
        state->w.device = device;
    return state;
}

void d12__vkdrv_walk_end(d12__vkdrv_walk *state)
{
    free(state);
}

void d12__vkdrv_walk_ops(d12__vkdrv_walk *state, const d12__vkdrv_recording *recording, size_t from, size_t to,
                         bool *skip, d12__vkdrv_fault *fault)
{
    memset(fault, 0, sizeof *fault);
    walk *w = &state->w;
    bindings *b = &w->b;
    w->fault = fault;
    for (size_t i = from; i < to && !fault->faulted; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        UINT32 index = op->state_index;
        w->op = i;
        w->bad = false;
        w->gpu = op->type == D12_VKDRV_OP_DRAW || op->type == D12_VKDRV_OP_DRAW_INDEXED ||
                 op->type == D12_VKDRV_OP_DISPATCH;
        switch ((d12__vkdrv_op_type)op->type) {
        case D12_VKDRV_OP_SET_VERTEX_BUFFER:
        case D12_VKDRV_OP_SET_INDEX_BUFFER:
        case D12_VKDRV_OP_SET_ROOT:
            bind(b, op);
            break;
        case D12_VKDRV_OP_DRAW_INDEXED:
            check_index_buffer(w, b, op);
            __attribute__((fallthrough));
        case D12_VKDRV_OP_DRAW:
            check_vertex_buffers(w, b, index);
            check_roots(w, b->graphics, b->graphics_mask, index);
            break;
        case D12_VKDRV_OP_DISPATCH:
            check_roots(w, b->compute, b->compute_mask, index);
            break;
        case D12_VKDRV_OP_COPY:
            check_range(w, index, op->u.copy.src, op->u.copy.size, false, D12_REFDRV_MSG_COPY_PAST_END,
                        "The copy source");
            check_range(w, index, op->u.copy.dst, op->u.copy.size, true, D12_REFDRV_MSG_COPY_PAST_END,
                        "The copy destination");
            break;
        case D12_VKDRV_OP_WRITE_IMMEDIATE:
            check_range(w, index, op->u.write.dest, 4, true, D12_REFDRV_MSG_WRITE_PAST_END,
                        "The write-immediate destination");
            break;
        case D12_VKDRV_OP_BARRIER:
            break;
        }
        skip[i] = w->bad && !w->gpu; /* a draw with an overrun finding still runs (its reads stay in the span) */
        /* Before build 0127 there is nobody to tell of a fault: the access is skipped and the timeline goes on. */
        if (fault->faulted && !w->device->has_0127)
            fault->faulted = false;
    }
}

void d12__vkdrv_walk_args(const d12__vkdrv_walk *state, const d12__vkdrv_op *op, d12__vkdrv_kernel_args *args)
{
    const bindings *b = &state->w.b;
    memset(args, 0, sizeof *args);
    bool compute = op->type == D12_VKDRV_OP_DISPATCH;
    args->kind = op->type == D12_VKDRV_OP_DRAW ? 0 : op->type == D12_VKDRV_OP_DRAW_INDEXED ? 1 : 2;
    args->count = op->u.draw.count;
    args->start = op->u.draw.start;
    args->base_vertex = op->u.draw.base_vertex;
    if (op->type == D12_VKDRV_OP_DRAW_INDEXED) {
        args->index.va = b->index.u.view.address;
        args->index.size = b->index.u.view.size;
        args->index.stride = b->index.u.view.stride_or_format == DXGI_FORMAT_R16_UINT ? 2 : 4;
    }
    if (!compute) {
        for (unsigned slot = 0; slot < D12_VKDRV_MAX_VERTEX_BUFFERS; slot++) {
            if (b->vertex_mask & (1u << slot)) {
                args->vb[slot].va = b->vertex[slot].u.view.address;
                args->vb[slot].size = b->vertex[slot].u.view.size;
                args->vb[slot].stride = b->vertex[slot].u.view.stride_or_format;
                args->vertex_buffers = slot + 1;
            }
        }
    }
    const root_binding *roots = compute ? b->compute : b->graphics;
    uint64_t mask = compute ? b->compute_mask : b->graphics_mask;
    for (unsigned i = 0; i < D12_VKDRV_MAX_ROOT_PARAMETERS; i++) {
        if ((mask & (1ull << i)) && roots[i].address) {
            args->root[i].va = roots[i].address;
            args->root[i].stride = roots[i].kind == 0 ? ROOT_CBV_READ : ROOT_VIEW_READ;
            args->root[i].size = roots[i].kind; /* for the fault's words (d12__vkdrv_args_what) */
            args->roots = i + 1;
        }
    }
}

/* The first binding (index buffer, vertex buffers by slot, roots by index) whose bytes contain `va`. */
const char *d12__vkdrv_args_what(const d12__vkdrv_kernel_args *args, UINT64 va, char *buffer, size_t size)
{
    if (args->kind == 1 && va - args->index.va < args->index.size)
        return snprintf(buffer, size, "The index buffer view"), buffer;
    for (unsigned slot = 0; slot < args->vertex_buffers; slot++) {
        if (args->vb[slot].va && va - args->vb[slot].va < args->vb[slot].size)
            return snprintf(buffer, size, "The vertex buffer view in slot %u", slot), buffer;
    }
    for (unsigned i = 0; i < args->roots; i++) {
        if (args->root[i].va && va - args->root[i].va < args->root[i].stride)
            return snprintf(buffer, size, "The root %s at root parameter %u", k_root_kind_names[args->root[i].size], i),
                   buffer;
    }
    return NULL;
}
