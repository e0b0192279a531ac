/* Where each VA of the attributed op's state lies, and what a page-fault verdict means to fix (issue 19 items 3 and 4,
 * docs/dred.md "The op's state" and "Page fault verdict"). The name comes right after the address, whatever holds
 * the VA: a live buffer, the unmapped 64 KiB guard gap after one (the reference driver's VA layout,
 * docs/dred-gpu.md), or a buffer among the 65 000 most recently freed. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "resource.h"

#define GUARD_GAP 0x10000ull

static char *object_name(d12_object_data *data)
{
    bool out_of_memory;
    return d12__object_name_dup(data, &out_of_memory);
}

/* The debug heap's fill patterns ("uninitialized? (debug-heap fill)"): a VA made of one of them repeated. */
static bool debug_fill(UINT64 va)
{
    static const uint32_t fills[] = {0xCDCDCDCDu, 0xDDDDDDDDu, 0xFEEEFEEEu, 0xBAADF00Du};
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++)
        if (va == ((UINT64)fills[i] << 32 | fills[i]) || va == fills[i])
            return true;
    return false;
}

/* "at its end; read [+0x10000, +0x10100) is past it", "read [+0x0, +0x200) runs 0x100 (256) bytes past its end". */
static char *range_note(UINT64 offset, UINT64 length, UINT64 width, bool write)
{
    const char *verb = write ? "write" : "read";
    UINT64 end = offset + length < offset ? UINT64_MAX : offset + length;
    char *note = NULL;
    int n;
    if (offset >= width)
        n = asprintf(&note, "%s; %s [+0x%" PRIx64 ", +0x%" PRIx64 ") is past it",
                     offset == width ? "at its end" : "past its end", verb, offset, end);
    else if (end > width)
        n = asprintf(&note, "%s [+0x%" PRIx64 ", +0x%" PRIx64 ") runs 0x%" PRIx64 " (%" PRIu64 ") bytes past its end",
                     verb, offset, end, end - width, end - width);
    else
        return NULL; /* inside the buffer: nothing to say */
    return n < 0 ? NULL : note;
}

void d12__dred_resolve_site(struct d12_dred *dred, uint64_t recorded, UINT64 va, UINT64 length, bool write,
                            char **name, d12dred_va_site *site)
{
    *name = NULL;
    if (va == 0)
        return;
    if (debug_fill(va)) {
        d12dred_va_site_set(site, false, 0, "uninitialized? (debug-heap fill)");
        return;
    }
    if (!dred->enabled.page_fault)
        return; /* no ledger: nothing to resolve against */
    char *note = NULL;
    bool found = false;
    UINT64 offset = 0;
    pthread_mutex_lock(&dred->ledger_lock);
    for (d12_dred_allocation *a = dred->live.next; a != &dred->live && !found; a = a->next) {
        if (va >= a->start && va - a->start < a->size + GUARD_GAP) { /* in it, or in the gap right after it */
            found = true;
            offset = va - a->start;
            *name = object_name(&a->resource->device_child.object);
            note = range_note(offset, length, a->width, write);
        }
    }
    uint64_t kept = dred->freed_total < D12_DRED_FREED_RING ? dred->freed_total : D12_DRED_FREED_RING;
    for (uint64_t k = 0; k < kept && !found; k++) {
        const d12_dred_freed *f = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
        if (va < f->start || va - f->start >= f->size)
            continue;
        found = true;
        offset = va - f->start;
        *name = f->name_w ? d12dred_utf8_from_wide(f->name_w) : f->name_a ? strdup(f->name_a) : NULL;
        note = strdup(recorded == UINT64_MAX ? "released"
                      : f->seq > recorded    ? "released after the list was recorded"
                                             : "released before the list was recorded");
    }
    pthread_mutex_unlock(&dred->ledger_lock);
    if (found)
        d12dred_va_site_set(site, true, offset, note);
    free(note);
}

/* One access of the attributed op: what it is called, its range, whether it holds `va`. */
static bool access_holds(UINT64 start, UINT64 length, UINT64 va)
{
    return va >= start && va - start < (length ? length : 1);
}

void d12__dred_out_of_bounds_detail(d12dred_report *r, d12dred_page_fault *pf)
{
    const d12dred_allocation *below = pf->below;
    if (!below || pf->verdict != D12DRED_VERDICT_OUT_OF_BOUNDS)
        return;
    const d12dred_op_state *s = NULL;
    for (size_t i = 0; i < r->node_count && !s; i++)
        for (size_t j = 0; j < r->nodes[i]->op_count && !s; j++)
            if (r->nodes[i]->ops[j].attribution != D12DRED_ATTRIBUTION_NONE)
                s = r->nodes[i]->ops[j].state;
    if (!s)
        return;
    char what[64] = "";
    UINT64 start = 0, length = 0;
    for (size_t i = 0; i < s->vertex_buffer_count && !*what; i++)
        if (access_holds(s->vertex_buffers[i].va, s->vertex_buffers[i].size, pf->va)) {
            snprintf(what, sizeof what, "VB slot %" PRIu32 " view", s->vertex_buffers[i].slot);
            start = s->vertex_buffers[i].va, length = s->vertex_buffers[i].size;
        }
    if (!*what && s->has_index_buffer && access_holds(s->index_buffer.va, s->index_buffer.size, pf->va)) {
        snprintf(what, sizeof what, "IB view");
        start = s->index_buffer.va, length = s->index_buffer.size;
    }
    for (size_t i = 0; i < s->root_descriptor_count && !*what; i++) {
        UINT64 bytes = s->root_descriptors[i].kind == D12DRED_ROOT_CBV ? 256 : 4; /* docs/dred-gpu.md */
        if (access_holds(s->root_descriptors[i].va, bytes, pf->va)) {
            snprintf(what, sizeof what, "root %" PRIu32 " %s range", s->root_descriptors[i].parameter,
                     d12dred_root_kind_name(s->root_descriptors[i].kind));
            start = s->root_descriptors[i].va, length = bytes;
        }
    }
    if (!*what && s->has_copy) {
        const d12dred_copy_side *sides[2] = {&s->copy_dst, &s->copy_src};
        for (int k = 0; k < 2 && !*what; k++)
            if (access_holds(sides[k]->va + sides[k]->offset, s->copy_bytes, pf->va)) {
                snprintf(what, sizeof what, "copy %s", k == 0 ? "destination" : "source");
                start = sides[k]->va + sides[k]->offset, length = s->copy_bytes;
            }
    }
    if (!*what || start < below->va)
        return;
    UINT64 from = start - below->va, to = from + length, past = to > below->width ? to - below->width : 0;
    char *detail = NULL;
    if (asprintf(&detail, "%s [+0x%" PRIx64 ", +0x%" PRIx64 ") of a 0x%" PRIx64 "-byte buffer: 0x%" PRIx64 " (%" PRIu64
                          ") bytes past its end", what, from, to, below->width, past, past) >= 0)
        d12dred_page_fault_set_detail(pf, detail);
    free(detail);
    pf->has_overrun = past > 0; /* the verdict line names the access's overrun (issue 32 item 6) */
    pf->overrun = past;
}
