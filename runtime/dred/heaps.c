/* Heaps in the page-fault ledger (issue 33, docs/heaps.md). A heap is a record of its own (type HEAP) over its
 * whole range; each resource placed in it is an ordinary record of the live list over its own part (ledger.c), so a
 * fault in a heap names the heap and every alias covering the VA, as Windows' DRED lists "a heap and the resources
 * placed in it" (dred-semantics.md 3.6). Which alias was in use is what an aliasing barrier says: the last one recorded
 * for the heap names its pResourceAfter and its op, and the report turns that into one sentence. A released heap and
 * its released resources go into the ring of recent frees with the heap's number, so a fault in a heap released too
 * early (the way a fault lands in a heap's range here: a live heap's range is all mapped) still names the aliases. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "heap.h"
#include "resource.h"

#define D12_DRED_MAX_ALIASES 16 /* aliases named in the sentence; more are counted */

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
    *record = (d12_dred_heap){NULL, NULL, heap, heap->gpu_address, (heap->desc.SizeInBytes + 0xFFFFull) & ~0xFFFFull,
                              0, NULL, NULL, D12_DRED_OP_INDEX_UNKNOWN, 0};
    uint64_t now = dred->events ? d12__dred_now_ns() : 0;
    pthread_mutex_lock(&dred->ledger_lock);
    record->id = ++dred->heap_ids;
    record->created = d12__dred_ledger_push_event(dred, false, 0, record->start, record->size,
                                                  D3D12_DRED_ALLOCATION_TYPE_HEAP, 0, now);
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
                            D3D12_DRED_ALLOCATION_TYPE_HEAP, record->id, NULL, record->active_op};
    if (d12__object_dying_has_private_data(&heap->device_child.object))
        d12__dred_object_names(&heap->device_child.object, &freed.name_a, &freed.name_w);
    uint64_t now = dred->events ? d12__dred_now_ns() : 0;
    pthread_mutex_lock(&dred->ledger_lock);
    record->prev->next = record->next;
    record->next->prev = record->prev;
    record->heap = NULL;
    freed.active_name = record->active_name; /* its placed resources went first: the active one is named */
    record->active_name = NULL;
    uint64_t free_seq = d12__dred_ledger_push_freed(heap->device_child.device, &freed);
    d12__dred_ledger_push_event(dred, true, record->created, record->start, record->size,
                                D3D12_DRED_ALLOCATION_TYPE_HEAP, free_seq, now);
    pthread_mutex_unlock(&dred->ledger_lock);
    d12__dred_freed_clear(&freed);
}

static char *name_of(d12_object_data *data)
{
    bool out_of_memory;
    return d12__object_name_dup(data, &out_of_memory);
}

static char *freed_name(const d12_dred_freed *f)
{
    return f->name_w ? d12dred_utf8_from_wide(f->name_w) : f->name_a ? strdup(f->name_a) : NULL;
}

void d12__dred_heap_resource_released(struct d12_resource *resource, const d12_dred_freed *freed)
{
    struct d12_heap *heap = resource->placed_heap;
    if (heap == NULL || heap->dred.active != resource)
        return;
    heap->dred.active = NULL; /* the active alias is gone; its name stays for the report */
    free(heap->dred.active_name);
    heap->dred.active_name = freed_name(freed);
}

void d12__dred_aliasing_barrier(struct d12_resource *after, UINT32 op)
{
    struct d12_heap *heap = after->placed_heap;
    struct d12_dred *dred = ledger_of(after->device_child.device);
    if (heap == NULL || dred == NULL || heap->dred.heap == NULL)
        return;
    pthread_mutex_lock(&dred->ledger_lock);
    heap->dred.active = after;
    free(heap->dred.active_name);
    heap->dred.active_name = NULL;
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

/* The aliases covering the VA, by name, and the active one: the sentence's facts. */
typedef struct aliases {
    char *names[D12_DRED_MAX_ALIASES];
    size_t count, more;
    char *active; /* NULL: no aliasing barrier activated one */
    UINT32 active_op;
    bool active_covers, released;
} aliases;

static void add_alias(aliases *a, char *name)
{
    if (a->count < D12_DRED_MAX_ALIASES)
        a->names[a->count++] = name;
    else {
        a->more++;
        free(name);
    }
    if (a->active && name && a->count <= D12_DRED_MAX_ALIASES && strcmp(name, a->active) == 0)
        a->active_covers = true;
}

/* "'A' and 'B' alias this range; 'B' was the active one, since the aliasing barrier at op #12" (released: "aliased
 * this range (both released)"), or NULL when there is nothing to say. */
static char *sentence(const aliases *a)
{
    if (a->count + a->more == 0 && !a->active)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    size_t total = a->count + a->more;
    for (size_t i = 0; i < a->count; i++)
        fprintf(out, "%s'%s'", i == 0 ? "" : i + 1 == total ? " and " : ", ", a->names[i] ? a->names[i] : "?");
    if (a->more)
        fprintf(out, " and %zu more", a->more);
    if (total > 1)
        fputs(a->released ? " aliased this range (all released)" : " alias this range", out);
    else if (total == 1)
        fputs(a->released ? " was the only resource placed over this range (released)"
                          : " is the only resource placed over this range", out);
    else
        fputs("no resource placed in the heap covers this address", out);
    if (a->active) {
        fprintf(out, "; '%s' was the active one, since ", a->active);
        if (a->active_op != D12_DRED_OP_INDEX_UNKNOWN)
            fprintf(out, "the aliasing barrier at op #%u", (unsigned)a->active_op);
        else
            fputs("an aliasing barrier (at an op breadcrumbs did not number)", out);
        if (!a->active_covers)
            fputs(", but it does not cover this address", out);
    } else if (total > 1) {
        fputs("; no aliasing barrier named which one was active", out);
    }
    fclose(out);
    return text;
}

static void aliases_free(aliases *a)
{
    for (size_t i = 0; i < a->count; i++)
        free(a->names[i]);
    free(a->active);
}

/* A live heap: its live placed resources covering the VA. */
static void live_aliases(struct d12_dred *dred, const d12_dred_heap *h, UINT64 va, aliases *a)
{
    a->active = h->active ? name_of(&h->active->device_child.object)
                : h->active_name ? strdup(h->active_name) : NULL;
    a->active_op = h->active_op;
    for (const d12_dred_allocation *r = dred->live.next; r != &dred->live; r = r->next)
        if (r->resource->placed_heap == h->heap && va >= r->start && va - r->start < r->size)
            add_alias(a, name_of(&r->resource->device_child.object));
}

/* The newest released heap holding the VA: its released resources covering it (same heap number). */
static bool freed_aliases(struct d12_dred *dred, UINT64 va, aliases *a)
{
    uint64_t kept = dred->freed_total < D12_DRED_FREED_RING ? dred->freed_total : D12_DRED_FREED_RING;
    const d12_dred_freed *heap = NULL;
    for (uint64_t k = 0; k < kept && !heap; k++) {
        const d12_dred_freed *f = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
        if (f->type == D3D12_DRED_ALLOCATION_TYPE_HEAP && va >= f->start && va - f->start < f->size)
            heap = f;
    }
    if (!heap)
        return false;
    a->released = true;
    a->active = heap->active_name ? strdup(heap->active_name) : NULL;
    a->active_op = heap->active_op;
    for (uint64_t k = 0; k < kept; k++) {
        const d12_dred_freed *f = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
        if (f->type == D3D12_DRED_ALLOCATION_TYPE_RESOURCE && f->heap == heap->heap && va >= f->start &&
            va - f->start < f->size)
            add_alias(a, freed_name(f));
    }
    return true;
}

void d12__dred_heaps_page_fault(struct d12_dred *dred, d12dred_page_fault *pf, UINT64 va)
{
    aliases a = {0};
    const d12_dred_heap *h = d12__dred_heap_holding(dred, NULL, va);
    if (h) {
        char *name = name_of(&h->heap->device_child.object);
        d12dred_allocation *x = d12dred_page_fault_add_existing(pf, name, D3D12_DRED_ALLOCATION_TYPE_HEAP, h->start,
                                                                h->size);
        if (x)
            x->width = h->heap->desc.SizeInBytes;
        free(name);
        live_aliases(dred, h, va, &a);
    } else if (!freed_aliases(dred, va, &a)) {
        return; /* no heap ever held the VA (the ring's released heaps are listed by the caller) */
    }
    char *text = sentence(&a);
    if (text)
        d12dred_page_fault_set_aliasing(pf, text);
    free(text);
    aliases_free(&a);
}
