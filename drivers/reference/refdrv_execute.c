/* What a queue's timeline does with a recording: replays its commands with fresh bindings (D3D12 lists
 * inherit no state), really copies bytes, and checks every address a draw, dispatch or copy would read
 * against the live buffers. There are no shaders, so a root descriptor's read is modelled: a root CBV reads
 * 256 bytes (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT, the smallest constant buffer), a root SRV or UAV
 * 4 bytes (one element). Findings are queued on the device before the timeline moves on, so they are pending
 * before any later fence signal is passed back. Address 0 is "nothing bound" here: a null vertex buffer view
 * is legal, and a root descriptor at 0 was already reported while recording. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refdrv_gpu.h"

#define ROOT_CBV_READ 256u /* D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT */
#define ROOT_VIEW_READ 4u

static const char *const k_root_kind_names[] = {"CBV", "SRV", "UAV"};

typedef struct root_binding {
    UINT64 address;
    uint8_t kind;
} root_binding;

typedef struct bindings {
    d12__refdrv_command vertex[D12_REFDRV_MAX_VERTEX_BUFFERS];
    uint32_t vertex_mask;
    d12__refdrv_command index;
    root_binding graphics[D12_REFDRV_MAX_ROOT_PARAMETERS], compute[D12_REFDRV_MAX_ROOT_PARAMETERS];
    uint64_t graphics_mask, compute_mask;
} bindings;

static void page_fault(d12__refdrv_device *device, UINT32 index, UINT64 address, const char *what)
{
    d12__refdrv_report_later(device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION, index,
                             "Page fault: %s reads GPU virtual address 0x%016llX, which is in no live buffer.",
                             what, (unsigned long long)address);
}

/* Check that [address, address + size) lies in one live buffer; report a fault or an overrun. Returns the
 * buffer (a reference held) when the range is wholly inside it. */
static d12__refdrv_buffer *check_range(d12__refdrv_device *device, UINT32 index, UINT64 address, UINT64 size,
                                       UINT64 id, const char *what)
{
    d12__refdrv_buffer *buffer = d12__refdrv_buffer_acquire(device, address);
    if (!buffer) {
        page_fault(device, index, address, what);
        return NULL;
    }
    UINT64 offset = address - buffer->va;
    if (size <= buffer->size - offset)
        return buffer;
    if (!device->drm_enabled) { /* the identity query is for the message only */
        d12__refdrv_buffer_release(buffer);
        return NULL;
    }
    char *name = d12__refdrv_buffer_name(device, buffer);
    d12__refdrv_report_later(device, id, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, index,
                             "%s covers %llu bytes from offset %llu of %s, which has %llu bytes: %llu bytes past "
                             "its end.",
                             what, (unsigned long long)size, (unsigned long long)offset, name ? name : "a buffer",
                             (unsigned long long)buffer->size, (unsigned long long)(size - (buffer->size - offset)));
    free(name);
    d12__refdrv_buffer_release(buffer);
    return NULL;
}

static void check_view(d12__refdrv_device *device, UINT32 index, UINT64 address, UINT64 size, UINT64 id,
                       const char *what)
{
    d12__refdrv_buffer *buffer = check_range(device, index, address, size, id, what);
    if (buffer)
        d12__refdrv_buffer_release(buffer);
}

static void check_vertex_buffers(d12__refdrv_device *device, const bindings *b, UINT32 index)
{
    for (unsigned slot = 0; slot < D12_REFDRV_MAX_VERTEX_BUFFERS; slot++) {
        if (!(b->vertex_mask & (1u << slot)))
            continue;
        char what[48];
        snprintf(what, sizeof what, "The vertex buffer view in slot %u", slot);
        check_view(device, index, b->vertex[slot].u.view.address, b->vertex[slot].u.view.size,
                   D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, what);
    }
}

static void check_roots(d12__refdrv_device *device, const root_binding *roots, uint64_t mask, UINT32 index)
{
    for (unsigned i = 0; i < D12_REFDRV_MAX_ROOT_PARAMETERS; i++) {
        if (!(mask & (1ull << i)) || !roots[i].address)
            continue;
        char what[64];
        snprintf(what, sizeof what, "The root %s at root parameter %u", k_root_kind_names[roots[i].kind], i);
        check_view(device, index, roots[i].address, roots[i].kind == D12_REFDRV_ROOT_CBV ? ROOT_CBV_READ : ROOT_VIEW_READ,
                   D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, what);
    }
}

/* The indices the draw reads must lie inside the view (the view itself is checked against its buffer). */
static void check_index_buffer(d12__refdrv_device *device, const bindings *b, const d12__refdrv_command *draw)
{
    const d12__refdrv_command *view = &b->index;
    if (!view->u.view.address)
        return; /* none bound: reported while recording */
    check_view(device, draw->state_index, view->u.view.address, view->u.view.size,
               D12_REFDRV_MSG_INDEX_BUFFER_PAST_END, "The index buffer view");
    UINT64 index_size = view->u.view.stride_or_format == DXGI_FORMAT_R16_UINT ? 2 : 4;
    UINT64 end = ((UINT64)draw->u.draw.start + draw->u.draw.count) * index_size;
    if (end > view->u.view.size) {
        d12__refdrv_report_later(device, D12_REFDRV_MSG_INDEX_READ_PAST_VIEW, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                                 draw->state_index,
                                 "Indices %u to %llu (%llu-byte indices) read up to byte %llu of an index buffer "
                                 "view of %u bytes.",
                                 draw->u.draw.start, (unsigned long long)draw->u.draw.start + draw->u.draw.count - 1,
                                 (unsigned long long)index_size, (unsigned long long)end, view->u.view.size);
    }
}

static void execute_copy(d12__refdrv_device *device, const d12__refdrv_command *copy)
{
    UINT32 index = copy->state_index;
    d12__refdrv_buffer *src = check_range(device, index, copy->u.copy.src, copy->u.copy.size,
                                          D12_REFDRV_MSG_COPY_PAST_END, "The copy source");
    d12__refdrv_buffer *dst = check_range(device, index, copy->u.copy.dst, copy->u.copy.size,
                                          D12_REFDRV_MSG_COPY_PAST_END, "The copy destination");
    if (src && dst) /* memmove: a region copy within one buffer may overlap */
        memmove(dst->memory + (copy->u.copy.dst - dst->va), src->memory + (copy->u.copy.src - src->va),
                copy->u.copy.size);
    if (src)
        d12__refdrv_buffer_release(src);
    if (dst)
        d12__refdrv_buffer_release(dst);
}

/* pfnWriteBufferImmediate: one 32-bit store, released so a CPU reader that acquires it sees everything the
 * commands before it wrote. On this serial timeline every preceding command has completed when it runs, so
 * DEFAULT, MARKER_IN and MARKER_OUT all hold ("MARKER_OUT: after every preceding command of the queue completed"). */
static void execute_write(d12__refdrv_device *device, const d12__refdrv_command *write)
{
    d12__refdrv_buffer *dst = check_range(device, write->state_index, write->u.write.dest, sizeof(UINT32),
                                          D12_REFDRV_MSG_WRITE_PAST_END, "The write-immediate destination");
    if (!dst)
        return;
    _Atomic UINT32 *word = (_Atomic UINT32 *)(void *)(dst->memory + (write->u.write.dest - dst->va));
    atomic_store_explicit(word, write->u.write.value, memory_order_release);
    d12__refdrv_buffer_release(dst);
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

static void execute_command(d12__refdrv_device *device, bindings *b, const d12__refdrv_command *command)
{
    switch ((d12__refdrv_command_type)command->type) {
    case D12_REFDRV_CMD_SET_VERTEX_BUFFER:
    case D12_REFDRV_CMD_SET_INDEX_BUFFER:
    case D12_REFDRV_CMD_SET_ROOT:
        bind(b, command);
        break;
    case D12_REFDRV_CMD_DRAW_INDEXED:
        check_index_buffer(device, b, command);
        __attribute__((fallthrough)); /* the vertex buffers and roots as any draw */
    case D12_REFDRV_CMD_DRAW:
        check_vertex_buffers(device, b, command->state_index);
        check_roots(device, b->graphics, b->graphics_mask, command->state_index);
        break;
    case D12_REFDRV_CMD_DISPATCH:
        check_roots(device, b->compute, b->compute_mask, command->state_index);
        break;
    case D12_REFDRV_CMD_COPY:
        execute_copy(device, command);
        break;
    case D12_REFDRV_CMD_BARRIER:
        break;
    case D12_REFDRV_CMD_WRITE_IMMEDIATE:
        execute_write(device, command);
        break;
    }
}

void d12__refdrv_execute(d12__refdrv_device *device, const d12__refdrv_recording *recording)
{
    bindings *b = calloc(1, sizeof *b);
    if (!b) {
        device->callbacks.pfnSetErrorCb(device->rt_device, E_OUTOFMEMORY); /* the work cannot run: removed */
        return;
    }
    for (const d12__refdrv_chunk *chunk = recording->head; chunk; chunk = chunk->next) {
        for (uint32_t i = 0; i < chunk->count; i++)
            execute_command(device, b, &chunk->commands[i]);
    }
    free(b);
}
