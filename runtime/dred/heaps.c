/* Heaps in the page-fault ledger (issue 33, docs/heaps.md). A heap is a record of its own (type HEAP) over its
 * whole range; each resource placed in it is an ordinary record of the live list over its own part (ledger.c), so a
 * fault in a heap names the heap and every alias covering the VA, as Windows' DRED lists "a heap and the resources
 * placed in it" (dred-semantics.md 3.6). Which alias was in use is what an aliasing barrier says: the last one recorded
 * for the heap names its pResourceAfter and its op, and the report turns that into one sentence. A released heap goes
 * into the ring of recent frees as a released resource does. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dred_internal.h"
#include "heap.h"
#include "d12dred_report.h"
#include "resource.h"

static struct d12_dred *ledger_of(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    return dred && dred->freed && (dred->enabled.page_fault || dred->va_names) ? dred : NULL;
}

void d12__dred_heap_created(struct d12_heap *heap)
{
    struct d12_dred *dred = ledger_of(heap->device_child.device);
    if (dred == NULL)
        return;
    d12_dred_heap *record = &heap->dred;
    *record = (d12_dred_heap){NULL, NULL, heap, heap->gpu_address,
                              (heap->desc.SizeInBytes + 0xFFFFull) & ~0xFFFFull, NULL, D12_DRED_OP_INDEX_UNKNOWN};
    pthread_mutex_lock(&dred->ledger_lock);
    record->next = &dred->heaps;
    record->prev = dred->heaps.prev;
    dred->heaps.prev->next = record;
    dred->heaps.prev = record;
    pthread_mutex_unlock(&dred->ledger_lock);
}

void d12__dred_heap_released(struct d12_heap *heap)
{
    struct d12_dred *dred = heap->device_child.device->dred;
    d12_dred_heap *record = &heap->dred;
    if (dred == NULL || record->heap == NULL)
        return; /* page-fault DRED off */
    /* "named as it was": the names are copied now, before the object's private data goes */
    d12_dred_freed freed = {record->start, record->size, heap->desc.SizeInBytes, &heap->com.heap, NULL, NULL, 0,
                            D3D12_DRED_ALLOCATION_TYPE_HEAP};
    if (d12__object_dying_has_private_data(&heap->device_child.object))
        d12__dred_object_names(&heap->device_child.object, &freed.name_a, &freed.name_w);
    pthread_mutex_lock(&dred->ledger_lock);
    record->prev->next = record->next;
    record->next->prev = record->prev;
    record->heap = NULL;
    d12__dred_ledger_push_freed(heap->device_child.device, &freed);
    pthread_mutex_unlock(&dred->ledger_lock);
    free(freed.name_a);
    free(freed.name_w);
}

void d12__dred_aliasing_barrier(struct d12_resource *after, UINT32 op)
{
    struct d12_heap *heap = after->placed_heap;
    struct d12_dred *dred = ledger_of(after->device_child.device);
    if (heap == NULL || dred == NULL || heap->dred.heap == NULL)
        return;
    pthread_mutex_lock(&dred->ledger_lock);
    heap->dred.active = after;
    heap->dred.active_op = op;
    pthread_mutex_unlock(&dred->ledger_lock);
}

const d12_dred_heap *d12__dred_heap_holding(struct d12_dred *dred, const d12_dred_heap *after, UINT64 va)
{
    for (const d12_dred_heap *h = after ? after->next : dred->heaps.next; h != &dred->heaps; h = h->next)
        if (va >= h->start && va - h->start < h->size)
            return h;
    return NULL;
}

static char *name_of(d12_object_data *data)
{
    bool out_of_memory;
    return d12__object_name_dup(data, &out_of_memory);
}

/* "'A' and 'B' alias this range" ("'A', 'B' and 'C' ..."; one: "'A' is the only resource placed over this range"),
 * then whether an aliasing barrier activated one of them. NULL when no resource covers the VA. */
static char *aliasing_sentence(struct d12_dred *dred, const d12_dred_heap *h, UINT64 va)
{
    char *text = NULL;
    size_t size = 0, count = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    const d12_dred_allocation *covering[64];
    for (const d12_dred_allocation *a = dred->live.next; a != &dred->live; a = a->next)
        if (a->resource->placed_heap == h->heap && va >= a->start && va - a->start < a->size &&
            count < sizeof covering / sizeof covering[0])
            covering[count++] = a;
    for (size_t i = 0; i < count; i++) {
        char *name = name_of(&covering[i]->resource->device_child.object);
        fprintf(out, "%s'%s'", i == 0 ? "" : i + 1 == count ? " and " : ", ", name ? name : "?");
        free(name);
    }
    fputs(count > 1 ? " alias this range" : count ? " is the only resource placed over this range" : "", out);
    bool active_covers = false;
    for (size_t i = 0; i < count; i++)
        active_covers |= h->active && covering[i]->resource == h->active;
    if (h->active) {
        char *name = name_of(&h->active->device_child.object);
        if (!count)
            fprintf(out, "no live resource is placed over this range; ");
        else
            fputs("; ", out);
        if (h->active_op != D12_DRED_OP_INDEX_UNKNOWN)
            fprintf(out, "'%s' was the active one, since the aliasing barrier at op #%u", name ? name : "?",
                    (unsigned)h->active_op);
        else
            fprintf(out, "'%s' was the active one, since an aliasing barrier (its op unknown: breadcrumbs off)",
                    name ? name : "?");
        if (!active_covers)
            fputs(", and it does not cover the faulting address", out);
        free(name);
    } else if (count > 1) {
        fputs("; no aliasing barrier named which one was active", out);
    }
    fclose(out);
    if (count == 0 && !h->active) {
        free(text);
        return NULL;
    }
    return text;
}

void d12__dred_heaps_page_fault(struct d12_dred *dred, d12dred_page_fault *pf, UINT64 va)
{
    for (const d12_dred_heap *h = d12__dred_heap_holding(dred, NULL, va); h; h = d12__dred_heap_holding(dred, h, va)) {
        char *name = name_of(&h->heap->device_child.object);
        d12dred_allocation *x = d12dred_page_fault_add_existing(pf, name, D3D12_DRED_ALLOCATION_TYPE_HEAP, h->start,
                                                                h->size);
        if (x)
            x->width = h->heap->desc.SizeInBytes;
        free(name);
        char *sentence = aliasing_sentence(dred, h, va);
        if (sentence)
            d12dred_page_fault_set_aliasing(pf, sentence);
        free(sentence);
    }
}
