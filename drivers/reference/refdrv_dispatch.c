/* The reference driver's compute state at execution (refdrv_gpu.h, docs/pipelines.md; issue 31 item 3). It runs no
 * shader, so a dispatch with a pipeline state resolves every register the shader declares through the bound root
 * signature and the heap as it is NOW (root signature 1.0 "volatile" semantics) and applies D3D12's rules:
 *   - a null descriptor reads 0 and discards writes: no finding;
 *   - a table slot never written: GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED (VendorMessageId 938, ERROR), the
 *     dispatch is not run;
 *   - a descriptor or root view whose address is in no live buffer (released, VA 0, never allocated): a page fault
 *     naming the register (the shared rules' finding, then pfnDeviceFaultCb on a 0127 device);
 *   - an access past a table view's range cannot be known without running the shader: not checked.
 * ClearUnorderedAccessViewUint/Float really clear: the view's bytes are written. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "drvcommon_descriptors.h"
#include "refdrv_gpu.h"

#define GBV_DESCRIPTOR_UNINITIALIZED 938u /* D3D12_MESSAGE_ID_GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED */

/* ---- Binding commands ---- */

void d12__refdrv_compute_bind(d12__refdrv_compute *c, d12__drv_bindings *b, const d12__refdrv_command *command)
{
    switch (command->type) {
    case D12_REFDRV_CMD_SET_PIPELINE: c->pipeline = command->bind_u.bind.object; break;
    case D12_REFDRV_CMD_SET_ROOT_SIGNATURE:
        if (c->root_signature != command->bind_u.bind.object) { /* D3D12: the compute arguments are undefined now */
            c->table_mask = 0;
            b->compute_mask = 0;
            memset(b->compute, 0, sizeof b->compute);
        }
        c->root_signature = command->bind_u.bind.object;
        break;
    case D12_REFDRV_CMD_SET_HEAPS:
        c->heaps[0] = command->bind_u.bind.heaps[0];
        c->heaps[1] = command->bind_u.bind.heaps[1];
        break;
    case D12_REFDRV_CMD_SET_TABLE:
        c->tables[command->slot % D12_REFDRV_MAX_ROOT_PARAMETERS] = command->bind_u.bind.address;
        c->table_mask |= 1ull << (command->slot % D12_REFDRV_MAX_ROOT_PARAMETERS);
        break;
    default: /* SET_CONSTANT: nothing reads constants without a shader */
        break;
    }
}

/* ---- A dispatch's registers ---- */

static char register_letter(d12_dxbc_binding_kind kind)
{
    return kind == D12_DXBC_CBV ? 'b' : kind == D12_DXBC_SRV ? 't' : kind == D12_DXBC_UAV ? 'u' : 's';
}

static const char *register_type(d12_dxbc_binding_kind kind)
{
    return kind == D12_DXBC_CBV ? "CBV" : kind == D12_DXBC_SRV ? "SRV" : "UAV";
}

/* One dispatch's checks: where findings go, the compute state, the root views, its state index and ordinal. */
typedef struct dispatch_check {
    d12__drv_exec *x;
    const d12__refdrv_compute *c;
    const d12__drv_bindings *b;
    UINT32 index, ordinal;
} dispatch_check;

/* A register's address must be in a live buffer; else the page fault naming it (`what`). */

static bool check_address(dispatch_check *d, const d12_dxbc_binding *reg, UINT64 address, const char *what)
{
    UINT64 va, width;
    void *buffer = d->x->checks->acquire(d->x->device, address, &va, &width);
    if (buffer) {
        d->x->checks->release(buffer);
        return true;
    }
    d12__drv_page_fault(d->x, d->index, address, reg->kind == D12_DXBC_UAV, what);
    return false;
}

static bool check_table_slot(dispatch_check *d, const d12_dxbc_binding *reg, const d12_rootsig_location *where,
                             const char *what)
{
    const d12__drv_descriptor_heap *heap = d->c->heaps[0];
    UINT64 base = d->c->tables[where->parameter];
    if (!(d->c->table_mask >> where->parameter & 1) || !heap || base < heap->va)
        return true; /* the runtime reported the missing table or heap when the list was recorded */
    uint64_t slot = (base - heap->va) / D12_REFDRV_DESCRIPTOR_SIZE + where->table_offset;
    if (slot >= heap->desc.NumDescriptors)
        return true; /* past the heap: GBV's DESCRIPTOR_HEAP_INDEX_OUT_OF_BOUNDS needs the shader's index: not known */
    const d12__refdrv_view_record *record = (const void *)(heap->cpu + slot * D12_REFDRV_DESCRIPTOR_SIZE);
    if (record->kind == 0) {
        char text[512];
        snprintf(text, sizeof text,
                 "GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED: [Dispatch #%u] %s reads descriptor %llu of the "
                 "CBV_SRV_UAV heap at GPU VA 0x%016llX, which was never written; the dispatch is not run.",
                 d->ordinal, what, (unsigned long long)slot, (unsigned long long)heap->va);
        if (d->x->checks->validating(d->x->device))
            d->x->checks->report(d->x->device, GBV_DESCRIPTOR_UNINITIALIZED, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                                 d->index, text);
        d->x->bad = true;
        return false;
    }
    return record->va == 0 || check_address(d, reg, record->va, what); /* a null descriptor: reads 0, no finding */
}

/* One register: "UAV u0 (root parameter 1, table slot 3)" resolved and checked. */
static bool check_register(dispatch_check *d, const D3D12_ROOT_SIGNATURE_DESC1 *desc, const d12_dxbc_binding *reg,
                           uint32_t number)
{
    d12_rootsig_location where;
    if (reg->kind == D12_DXBC_SAMPLER || d12_rootsig_locate(desc, reg->kind, reg->space, number, &where) != 0)
        return true; /* samplers read no memory; an unbound register was refused at pipeline creation */
    char what[160];
    switch (where.type) {
    case D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE:
        snprintf(what, sizeof what, "%s %c%u (root parameter %u, table slot %llu)", register_type(reg->kind),
                 register_letter(reg->kind), number, where.parameter, (unsigned long long)where.table_offset);
        return check_table_slot(d, reg, &where, what);
    case D3D12_ROOT_PARAMETER_TYPE_CBV:
    case D3D12_ROOT_PARAMETER_TYPE_SRV:
    case D3D12_ROOT_PARAMETER_TYPE_UAV:
        snprintf(what, sizeof what, "%s %c%u (root parameter %u, a root view)", register_type(reg->kind),
                 register_letter(reg->kind), number, where.parameter);
        return check_address(d, reg, d->b->compute[where.parameter].address, what);
    default: /* root constants: no memory */
        return true;
    }
}

bool d12__refdrv_dispatch_check(d12__drv_exec *x, const d12__refdrv_compute *c, const d12__drv_bindings *b,
                                const d12__refdrv_command *dispatch)
{
    const d12__refdrv_pipeline_state *pipeline = c->pipeline;
    const d12__refdrv_root_signature *signature = c->root_signature ? c->root_signature : pipeline->root_signature;
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &signature->desc->Desc_1_1;
    dispatch_check d = {x, c, b, dispatch->state_index, c->dispatches};
    x->bad = false;
    for (uint32_t i = 0; i < pipeline->program.binding_count; i++) {
        const d12_dxbc_binding *reg = &pipeline->program.bindings[i];
        uint32_t last = reg->upper == D12_DXBC_UNBOUNDED ? reg->lower : reg->upper; /* unbounded: its first */
        for (uint32_t number = reg->lower; number <= last; number++)
            if (!check_register(&d, desc, reg, number))
                return false;
    }
    return true;
}

/* ---- ClearUnorderedAccessViewUint / Float ---- */

/* One element of the view in its format from the four values: 32-bit components take Values[i] (the float form: its
 * bits for float formats, the value converted to UINT otherwise); a narrower element takes Values[0]'s low bytes. */
static void clear_element(unsigned char *out, UINT32 element, const d12__refdrv_command *clear, bool float_format)
{
    for (UINT32 at = 0; at < element; at += 4) {
        UINT32 word = clear->bind_u.clear.values[(at / 4) % 4];
        if (clear->compute && !float_format) { /* the float form on an integer view: converted */
            float value;
            memcpy(&value, &word, sizeof value);
            word = value <= 0.0f ? 0u : value >= 4294967295.0f ? 0xFFFFFFFFu : (UINT32)value;
        }
        memcpy(out + at, &word, element - at < 4 ? element - at : 4);
    }
}

bool d12__refdrv_clear_uav(d12__drv_exec *x, const d12__refdrv_command *clear)
{
    const d12__refdrv_view_record *record = (const void *)clear->bind_u.clear.cpu_handle;
    if (record->kind != D3D12DDI_BUFFER_VIEW_TYPE_D12RT_UAV + 1 || record->va == 0)
        return true; /* the runtime checked the handle; a null UAV discards the clear */
    UINT64 va, width;
    d12__refdrv_buffer *buffer = x->checks->acquire(x->device, record->va, &va, &width);
    if (!buffer) {
        d12__drv_page_fault(x, clear->state_index, record->va, true, "ClearUnorderedAccessView's UAV");
        return false;
    }
    UINT32 element = record->flags & D3D12DDI_BUFFER_VIEW_FLAG_D12RT_RAW ? 4u
                     : record->stride                                     ? record->stride
                     : d12__drv_buffer_view_format_size((DXGI_FORMAT)record->format);
    bool float_format = record->format == DXGI_FORMAT_R32_FLOAT || record->format == DXGI_FORMAT_R32G32_FLOAT ||
                        record->format == DXGI_FORMAT_R32G32B32A32_FLOAT;
    UINT64 offset = record->va - va, size = record->size;
    if (offset > width || size > width - offset)
        size = offset > width ? 0 : width - offset; /* the view outlived part of its buffer: clear what is there */
    unsigned char *memory = d12__refdrv_buffer_memory(buffer) + offset;
    for (UINT64 at = 0; element && at + element <= size; at += element)
        clear_element(memory + at, element, clear, float_format);
    x->checks->release(buffer);
    return true;
}
