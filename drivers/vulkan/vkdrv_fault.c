/* The pure decisions of device loss and write-immediate (vkdrv_fault.h; docs/vulkan.md, "Device loss"). */
#include <string.h>

#include "vkdrv_fault.h"

#define GAP 0x10000ull

static bool inside(UINT64 address, UINT64 start, UINT64 size)
{
    return address >= start && address - start < size;
}

static bool lookup(const d12__vkdrv_fault_range *ranges, size_t count, UINT64 address, UINT64 poison,
                   UINT64 poison_size, d12__vkdrv_va_translation *out)
{
    /* A live buffer first: the Vulkan driver may have given a freed buffer's device addresses to a new one, and
     * the live owner is what the GPU actually reached. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < count; i++) {
            if (ranges[i].freed != (pass == 1) || !inside(address, ranges[i].address, ranges[i].size))
                continue;
            *out = (d12__vkdrv_va_translation){pass ? D12_VKDRV_VA_FREED : D12_VKDRV_VA_LIVE,
                                               ranges[i].va + (address - ranges[i].address), i};
            return true;
        }
    }
    if (poison_size && inside(address, poison, poison_size)) {
        *out = (d12__vkdrv_va_translation){D12_VKDRV_VA_POISON, address - poison, SIZE_MAX};
        return true;
    }
    /* Just past a buffer (less than its 64 KiB gap): the driver VA past that buffer's span, in its gap. The nearest
     * range below wins. */
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        UINT64 end = ranges[i].address + ranges[i].size;
        if (address >= end && address - end < GAP && (best == SIZE_MAX || end > ranges[best].address + ranges[best].size))
            best = i;
    }
    if (best == SIZE_MAX)
        return false;
    *out = (d12__vkdrv_va_translation){D12_VKDRV_VA_GAP,
                                       ranges[best].va + ranges[best].size +
                                           (address - ranges[best].address - ranges[best].size),
                                       best};
    return true;
}

d12__vkdrv_va_translation d12__vkdrv_translate(const d12__vkdrv_fault_range *ranges, size_t count, UINT64 address,
                                               UINT64 poison, UINT64 poison_size)
{
    d12__vkdrv_va_translation out = {D12_VKDRV_VA_NONE, address, SIZE_MAX};
    if (lookup(ranges, count, address, poison, poison_size, &out))
        return out;
    /* Sign-extended from bit 47: the canonical form a kernel log prints. */
    if ((address >> 47) == 0x1FFFFull && lookup(ranges, count, address & 0x0000FFFFFFFFFFFFull, poison, poison_size,
                                                &out))
        return out;
    return (d12__vkdrv_va_translation){D12_VKDRV_VA_NONE, address, SIZE_MAX};
}

char d12__vkdrv_fault_access(VkDeviceFaultAddressTypeEXT type)
{
    switch (type) {
    case VK_DEVICE_FAULT_ADDRESS_TYPE_READ_INVALID_EXT:
        return 'r';
    case VK_DEVICE_FAULT_ADDRESS_TYPE_WRITE_INVALID_EXT:
        return 'w';
    case VK_DEVICE_FAULT_ADDRESS_TYPE_EXECUTE_INVALID_EXT:
        return 'x';
    default:
        return 0;
    }
}

UINT d12__vkdrv_fault_flags(char access)
{
    return access == 'w' ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE;
}

const char *d12__vkdrv_fault_access_name(char access)
{
    return access == 'w' ? "writes" : access == 'x' ? "executes" : "reads";
}

UINT64 d12__vkdrv_checkpoint_encode(UINT64 serial, size_t position)
{
    UINT64 p = position > D12_VKDRV_CHECKPOINT_POSITION_MAX ? D12_VKDRV_CHECKPOINT_POSITION_MAX : position;
    return (serial << D12_VKDRV_CHECKPOINT_POSITION_BITS) | p;
}

bool d12__vkdrv_checkpoint_decode(UINT64 marker, UINT64 *serial, size_t *position)
{
    *serial = marker >> D12_VKDRV_CHECKPOINT_POSITION_BITS;
    *position = (size_t)(marker & D12_VKDRV_CHECKPOINT_POSITION_MAX);
    return *serial != 0 && *position != D12_VKDRV_CHECKPOINT_POSITION_MAX;
}

const char *d12__vkdrv_loss_source_name(d12__vkdrv_loss_source source)
{
    switch (source) {
    case D12_VKDRV_LOSS_KERNEL:
        return "kernel";
    case D12_VKDRV_LOSS_CHECKPOINT:
        return "checkpoints";
    case D12_VKDRV_LOSS_SUBMISSION:
        return "submission";
    case D12_VKDRV_LOSS_MARKER:
        return "markers";
    default:
        return "unknown";
    }
}

typedef struct decider {
    const d12__vkdrv_loss_records *r;
    bool (*is_work)(size_t, size_t, void *);
    void *context;
} decider;

/* The first GPU op of candidate c at a position in [from, to) (clipped to what was submitted). */
static size_t first_work(const decider *d, size_t c, size_t from, size_t to)
{
    const d12__vkdrv_loss_candidate *k = &d->r->candidates[c];
    if (from < k->first)
        from = k->first;
    if (to > k->end)
        to = k->end;
    for (size_t p = from; p < to; p++) {
        if (d->is_work(c, p, d->context))
            return p;
    }
    return SIZE_MAX;
}

static size_t last_work(const decider *d, size_t c, size_t before)
{
    const d12__vkdrv_loss_candidate *k = &d->r->candidates[c];
    for (size_t p = before < k->end ? before : k->end; p > k->first; p--) {
        if (d->is_work(c, p - 1, d->context))
            return p - 1;
    }
    return SIZE_MAX;
}

static size_t candidate_of(const d12__vkdrv_loss_records *r, UINT64 serial)
{
    for (size_t i = 0; i < r->candidate_count; i++) {
        if (r->candidates[i].serial == serial)
            return i;
    }
    return SIZE_MAX;
}

/* NV checkpoints: the first op not known complete (after the last BOTTOM_OF_PIPE marker), if it was started (at or
 * before the last TOP_OF_PIPE marker of the same submission); else the last op started. */
static bool from_checkpoints(const decider *d, d12__vkdrv_loss_verdict *v)
{
    const d12__vkdrv_loss_records *r = d->r;
    UINT64 top_serial = 0, bottom_serial = 0;
    size_t top_position = 0, bottom_position = 0;
    bool top = r->top && d12__vkdrv_checkpoint_decode(r->top_marker, &top_serial, &top_position);
    bool bottom = r->bottom && d12__vkdrv_checkpoint_decode(r->bottom_marker, &bottom_serial, &bottom_position);
    size_t c = bottom ? candidate_of(r, bottom_serial) : SIZE_MAX;
    if (c != SIZE_MAX) {
        size_t p = first_work(d, c, bottom_position, SIZE_MAX);
        bool started = !top || top_serial != bottom_serial || top_position >= p;
        if (p != SIZE_MAX && started) {
            v->candidate = c;
            v->position = p;
            v->why = "NV checkpoints: the first op after the last one whose end the GPU reached (BOTTOM_OF_PIPE), "
                     "and it had started (TOP_OF_PIPE)";
            return true;
        }
    }
    c = top ? candidate_of(r, top_serial) : SIZE_MAX;
    if (c == SIZE_MAX)
        return false;
    size_t p = first_work(d, c, top_position, top_position + 1);
    if (p == SIZE_MAX)
        p = last_work(d, c, top_position);
    if (p == SIZE_MAX)
        return false;
    v->candidate = c;
    v->position = p;
    v->why = "NV checkpoints: the last op the GPU started (TOP_OF_PIPE); no completion checkpoint of it was reached";
    return true;
}

d12__vkdrv_loss_verdict d12__vkdrv_loss_decide(const d12__vkdrv_loss_records *r,
                                               bool (*is_work)(size_t candidate, size_t position, void *context),
                                               void *context)
{
    decider d = {r, is_work, context};
    d12__vkdrv_loss_verdict v = {D12_VKDRV_LOSS_UNKNOWN, SIZE_MAX, SIZE_MAX, false, 0, 0,
                                 "no record names the op: no checkpoint, kernel record or breadcrumb value, and "
                                 "no single op in flight"};
    /* The address: the device's, translated into the driver's VA space; the probe's (real-fault mode) stands for
     * the address the kernel recorded; in nothing, as reported. */
    bool translated = false;
    if (r->address) {
        v.access = r->access;
        if (r->translation.kind != D12_VKDRV_VA_POISON) {
            v.page_fault = true;
            v.va = r->translation.va;
            translated = r->translation.kind != D12_VKDRV_VA_NONE;
        }
    }
    for (size_t i = 0; i < r->candidate_count; i++) {
        const d12__vkdrv_loss_candidate *k = &r->candidates[i];
        if (!k->kernel_fault)
            continue;
        v.source = D12_VKDRV_LOSS_KERNEL;
        v.candidate = i;
        v.position = first_work(&d, i, k->first, k->end);
        v.why = "the kernel recorded the unmapped address it dereferenced, in the one op its chunk runs";
        if (!translated) {
            v.page_fault = true;
            v.va = k->kernel_va;
            if (!v.access)
                v.access = 'r';
        }
        return v;
    }
    if (from_checkpoints(&d, &v)) {
        v.source = D12_VKDRV_LOSS_CHECKPOINT;
        return v;
    }
    if (r->candidate_count == 1 && r->candidates[0].single) {
        size_t p = first_work(&d, 0, r->candidates[0].first, r->candidates[0].end);
        if (p != SIZE_MAX) {
            v.source = D12_VKDRV_LOSS_SUBMISSION;
            v.candidate = 0;
            v.position = p;
            v.why = "the only submission in flight held one op";
            return v;
        }
    }
    if (r->candidate_count == 1 && r->candidates[0].marker) {
        size_t p = first_work(&d, 0, r->candidates[0].marker_position + 1, SIZE_MAX);
        if (p != SIZE_MAX) {
            v.source = D12_VKDRV_LOSS_MARKER;
            v.candidate = 0;
            v.position = p;
            v.why = "breadcrumbs: the first op after the last breadcrumb (the driver's own or a MARKER_OUT write) "
                    "whose value reached memory";
            return v;
        }
    }
    if (r->candidate_count == 1)
        v.candidate = 0; /* the list is known, the op is not */
    return v;
}

d12__vkdrv_wbi_path d12__vkdrv_wbi_choose(bool buffer_marker, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode)
{
    if (!buffer_marker)
        return (d12__vkdrv_wbi_path){false, VK_PIPELINE_STAGE_2_NONE};
    return (d12__vkdrv_wbi_path){true, mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT
                                           ? VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT
                                           : VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT};
}

UINT64 d12__vkdrv_invocations(UINT32 a, UINT32 b, UINT32 c, bool dispatch)
{
    UINT64 total = (UINT64)a * b; /* at most (2^32 - 1)^2: fits */
    if (dispatch && __builtin_mul_overflow(total, (UINT64)c, &total))
        return UINT64_MAX;
    return total;
}

bool d12__vkdrv_stall_decide(bool real_faults, UINT64 kernel_va, UINT64 waited_ns, UINT64 stall_ns)
{
    return real_faults && kernel_va != UINT64_MAX && waited_ns >= stall_ns;
}
