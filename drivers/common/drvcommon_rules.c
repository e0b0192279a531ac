/* The execution-time rules (drvcommon_rules.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "drvcommon_rules.h"
#include "drvcommon_va.h"

static const char *const k_root_kind_names[] = {"CBV", "SRV", "UAV"};

void d12__drv_what_vertex_buffer(char *what, size_t size, unsigned slot)
{
    snprintf(what, size, "The vertex buffer view in slot %u", slot);
}

void d12__drv_what_root(char *what, size_t size, unsigned kind, unsigned index)
{
    snprintf(what, size, "The root %s at root parameter %u", k_root_kind_names[kind], index);
}

char *d12__drv_buffer_name(PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126 query, D3D12DDI_HRTDEVICE rt_device,
                           D3D12DDI_HRTRESOURCE rt_resource, UINT64 va)
{
    D3D12DDI_HANDLE_AND_TYPE object = {rt_resource.handle, D3D12DDI_HT_0012_RESOURCE};
    SIZE_T size = 0;
    char *name = NULL;
    /* Two calls: the size, then the string (a rename in between can make the second one short: then fall back). */
    if (query && object.Handle && SUCCEEDED(query(rt_device, object, &size, NULL)) && size) {
        name = malloc(size);
        if (name && SUCCEEDED(query(rt_device, object, &size, name)))
            return name;
    }
    free(name);
    name = malloc(32);
    if (name)
        snprintf(name, 32, "GPU VA 0x%016llX", (unsigned long long)va);
    return name;
}

void d12__drv_bind(d12__drv_bindings *b, unsigned type, unsigned slot, bool compute, unsigned root_kind,
                   const d12__drv_view *view)
{
    if (type == D12_DRV_OP_SET_VERTEX_BUFFER) {
        b->vertex[slot] = *view;
        b->vertex_mask = view->address ? b->vertex_mask | (1u << slot) : b->vertex_mask & ~(1u << slot);
    } else if (type == D12_DRV_OP_SET_INDEX_BUFFER) {
        b->index = *view;
    } else {
        d12__drv_root_binding *roots = compute ? b->compute : b->graphics;
        uint64_t *mask = compute ? &b->compute_mask : &b->graphics_mask;
        roots[slot] = (d12__drv_root_binding){view->address, (uint8_t)root_kind};
        *mask |= 1ull << slot;
    }
}

static void report(d12__drv_exec *x, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 index,
                   const char *text)
{
    x->checks->report(x->device, id, severity, index, text);
}

static char *va_name(d12__drv_exec *x, UINT64 va)
{
    return x->checks->va_name ? x->checks->va_name(x->device, va) : NULL;
}

void d12__drv_page_fault(d12__drv_exec *x, UINT32 index, UINT64 address, bool write, const char *what)
{
    x->faulted = x->bad = true;
    x->fault_va = address;
    x->fault_flags = write ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE;
    if (!x->checks->validating(x->device))
        return;
    char *name = va_name(x, address); /* v2: "'MyVB' + 0x10000 (past its end)" */
    char text[512];
    snprintf(text, sizeof text, "Page fault: %s %s GPU virtual address 0x%016llX, which is in no live buffer%s%s.",
             what, write ? "writes" : "reads", (unsigned long long)address, name ? ": " : "", name ? name : "");
    free(name);
    report(x, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION, index, text);
}

/* The overrun finding `id`: [offset, offset + size) of `buffer` (at `va`) runs past its first `width` bytes. */
static void overrun(d12__drv_exec *x, UINT32 index, void *buffer, UINT64 va, UINT64 width, UINT64 offset, UINT64 size,
                    UINT64 id, const char *what)
{
    x->bad = true;
    if (!x->checks->validating(x->device)) /* the identity queries are for the message only */
        return;
    char *name = x->checks->buffer_name(x->device, buffer);
    /* v2: the first byte past the end, named by the runtime ("0x...:'MyVB' + 0x100 (past its end)") */
    char *end = va_name(x, va + width);
    char text[512];
    snprintf(text, sizeof text,
             "%s covers %llu bytes from offset %llu of %s, which has %llu bytes: %llu bytes past its end.%s%s", what,
             (unsigned long long)size, (unsigned long long)offset, name ? name : "a buffer", (unsigned long long)width,
             (unsigned long long)(offset + size - width), end ? " First byte past it: " : "", end ? end : "");
    free(end);
    free(name);
    report(x, id, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, index, text);
}

/* A range that starts in another live allocation than the resource ending at `end` (the one the call named): the
 * overrun of that resource, whatever the bytes there hold; the other allocation is never touched. When the named
 * resource is gone, its last byte is the faulting address (in no live buffer: DRED names the freed resource). */
static void *named_overrun(d12__drv_exec *x, UINT32 index, UINT64 address, UINT64 size, UINT64 end, bool write,
                           UINT64 id, const char *what)
{
    UINT64 va = 0, width = 0;
    void *named = x->checks->acquire(x->device, end - 1, &va, &width);
    if (!named) {
        d12__drv_page_fault(x, index, end - 1, write, what);
        return NULL;
    }
    overrun(x, index, named, va, end - va, address - va, size, id, what);
    x->checks->release(named);
    return NULL;
}

/* Check that [address, address + size) lies in one live buffer. A byte on a page mapped to no live allocation is
 * a page fault (the first such byte is the faulting address); a range inside the buffer's allocation but past its
 * Width is the overrun finding `id`. With `end` (not 0: the first byte past the resource the call named) the range
 * must also end by it: past it is the same finding, in the named resource's allocation or in another one.
 * Returns the buffer (a reference held) when the range is wholly inside it. After a fault every later check of the
 * op is skipped: the GPU stopped at the first bad access. `gpu`: the op's page faults are the kernel's
 * (d12__drv_checks.kernel_faults). */
static void *check_range(d12__drv_exec *x, bool gpu, UINT32 index, UINT64 address, UINT64 size, UINT64 end,
                         bool write, UINT64 id, const char *what)
{
    if (x->faulted)
        return NULL;
    UINT64 va = 0, width = 0;
    void *buffer = x->checks->acquire(x->device, address, &va, &width);
    if (!buffer) {
        if (!gpu)
            d12__drv_page_fault(x, index, address, write, what);
        return NULL;
    }
    UINT64 offset = address - va, span = d12__drv_va_span(width);
    if (size > span - offset) { /* runs off the allocation into the unmapped gap that follows it */
        if (!gpu)
            d12__drv_page_fault(x, index, va + span, write, what);
        x->checks->release(buffer);
        return NULL;
    }
    if (end && (end <= va || end - va > width)) { /* the named resource is not in this allocation */
        x->checks->release(buffer);
        return named_overrun(x, index, address, size, end, write, id, what);
    }
    UINT64 limit = end ? end - va : width;
    if (offset <= limit && size <= limit - offset)
        return buffer;
    overrun(x, index, buffer, va, limit, offset, size, id, what);
    x->checks->release(buffer);
    return NULL;
}

static void check_view(d12__drv_exec *x, bool gpu, UINT32 index, UINT64 address, UINT64 size, UINT64 id,
                       const char *what)
{
    void *buffer = check_range(x, gpu, index, address, size, 0, false, id, what);
    if (buffer)
        x->checks->release(buffer);
}

static void check_vertex_buffers(d12__drv_exec *x, bool gpu, const d12__drv_bindings *b, UINT32 index)
{
    for (unsigned slot = 0; slot < D12_DRV_MAX_VERTEX_BUFFERS; slot++) {
        if (!(b->vertex_mask & (1u << slot)))
            continue;
        char what[48];
        d12__drv_what_vertex_buffer(what, sizeof what, slot);
        check_view(x, gpu, index, b->vertex[slot].address, b->vertex[slot].size,
                   D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, what);
    }
}

static void check_roots(d12__drv_exec *x, bool gpu, const d12__drv_root_binding *roots, uint64_t mask,
                        UINT32 index)
{
    for (unsigned i = 0; i < D12_DRV_MAX_ROOT_PARAMETERS; i++) {
        if (!(mask & (1ull << i)) || !roots[i].address)
            continue;
        char what[64];
        d12__drv_what_root(what, sizeof what, roots[i].kind, i);
        check_view(x, gpu, index, roots[i].address, d12__drv_root_read(roots[i].kind),
                   D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, what);
    }
}

/* The indices the draw reads must lie inside the view (the view itself is checked against its buffer). */
static void check_index_buffer(d12__drv_exec *x, bool gpu, const d12__drv_bindings *b, UINT32 index,
                               const d12__drv_op_args *draw)
{
    const d12__drv_view *view = &b->index;
    if (!view->address)
        return; /* none bound: reported while recording */
    check_view(x, gpu, index, view->address, view->size, D12_REFDRV_MSG_INDEX_BUFFER_PAST_END,
               D12_DRV_WHAT_INDEX_BUFFER);
    UINT64 index_size = d12__drv_index_size(view->stride_or_format);
    UINT64 end = ((UINT64)draw->draw.start + draw->draw.count) * index_size;
    if (end > view->size && !x->faulted && x->checks->validating(x->device)) {
        char text[512];
        snprintf(text, sizeof text,
                 "Indices %u to %llu (%llu-byte indices) read up to byte %llu of an index buffer view of %u bytes.",
                 draw->draw.start, (unsigned long long)draw->draw.start + draw->draw.count - 1,
                 (unsigned long long)index_size, (unsigned long long)end, view->size);
        report(x, D12_REFDRV_MSG_INDEX_READ_PAST_VIEW, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, index, text);
    }
}

/* Hand the buffer to the caller, or drop it. */
static void keep(d12__drv_exec *x, void **out, void *buffer)
{
    if (out)
        *out = buffer;
    else if (buffer)
        x->checks->release(buffer);
}

void d12__drv_check_op(d12__drv_exec *x, const d12__drv_bindings *b, unsigned type, UINT32 index,
                       const d12__drv_op_args *u, void **src, void **dst)
{
    bool gpu = x->checks->kernel_faults &&
               (type == D12_DRV_OP_DRAW || type == D12_DRV_OP_DRAW_INDEXED || type == D12_DRV_OP_DISPATCH);
    x->bad = false;
    switch ((d12__drv_op_type)type) {
    case D12_DRV_OP_DRAW_INDEXED:
        check_index_buffer(x, gpu, b, index, u);
        __attribute__((fallthrough)); /* the vertex buffers and roots as any draw */
    case D12_DRV_OP_DRAW:
        check_vertex_buffers(x, gpu, b, index);
        check_roots(x, gpu, b->graphics, b->graphics_mask, index);
        break;
    case D12_DRV_OP_DISPATCH:
        check_roots(x, gpu, b->compute, b->compute_mask, index);
        break;
    case D12_DRV_OP_COPY:
        keep(x, src, check_range(x, gpu, index, u->copy.src, u->copy.size, u->copy.src_end, false,
                                 D12_REFDRV_MSG_COPY_PAST_END, "The copy source"));
        keep(x, dst, check_range(x, gpu, index, u->copy.dst, u->copy.size, u->copy.dst_end, true,
                                 D12_REFDRV_MSG_COPY_PAST_END, "The copy destination"));
        break;
    case D12_DRV_OP_WRITE_IMMEDIATE:
        keep(x, dst, check_range(x, gpu, index, u->write.dest, sizeof(UINT32), 0, true,
                                 D12_REFDRV_MSG_WRITE_PAST_END, "The write-immediate destination"));
        break;
    default: /* bindings (d12__drv_bind) and barriers: nothing to check */
        break;
    }
}
