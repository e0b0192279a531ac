/* The report's resource timelines (issue 32 item 7, docs/dred.md "Resource timeline"): per VA the report names -- the
 * faulting VA, its neighbours and the freed allocations of the page fault, every VA of an op's state -- the creations
 * and releases of the resources that held it, and of the resources re-created under one of their names, from the
 * ledger's ring of events (ledger.c). Built at the end of the freeze, when the rest of the report names its VAs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "heap.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"
#include "resource.h"

/* The ring as it was, with each event's name (a creation's: the name its object got, at its release or now). */
typedef struct snapshot {
    d12_dred_event *events;
    char **names;
    size_t count;
    uint64_t first;                /* the seq of events[0] (the ring's seqs are consecutive) */
} snapshot;

typedef struct va_list_ {
    uint64_t *items;
    size_t count, capacity;
} vas;

static void add_va(vas *v, uint64_t va)
{
    if (va == 0)
        return;
    for (size_t i = 0; i < v->count; i++)
        if (v->items[i] == va)
            return;
    if (v->count == v->capacity) {
        size_t capacity = v->capacity ? v->capacity * 2 : 16;
        uint64_t *items = realloc(v->items, capacity * sizeof *items);
        if (!items)
            return; /* out of memory: that VA gets no timeline */
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->count++] = va;
}

static void add_state_vas(vas *v, const d12dred_op_state *s)
{
    for (size_t i = 0; i < s->vertex_buffer_count; i++)
        add_va(v, s->vertex_buffers[i].va);
    if (s->has_index_buffer)
        add_va(v, s->index_buffer.va);
    for (size_t i = 0; i < s->root_descriptor_count; i++)
        add_va(v, s->root_descriptors[i].va);
    if (s->has_copy) {
        add_va(v, s->copy_src.va);
        add_va(v, s->copy_dst.va);
    }
}

/* Every VA the report names, the faulting one first. */
static void named_vas(const d12dred_report *r, vas *v)
{
    const d12dred_page_fault *pf = r->page_fault;
    if (pf) {
        add_va(v, pf->va);
        for (size_t i = 0; i < pf->existing_count; i++)
            add_va(v, pf->existing[i]->va);
        for (size_t i = 0; i < pf->freed_count; i++)
            add_va(v, pf->freed[i]->va);
        if (pf->below)
            add_va(v, pf->below->va);
        if (pf->above)
            add_va(v, pf->above->va);
    }
    for (size_t i = 0; i < r->node_count; i++)
        for (size_t j = 0; j < r->nodes[i]->op_count; j++)
            if (r->nodes[i]->ops[j].state)
                add_state_vas(v, r->nodes[i]->ops[j].state);
}

static char *freed_name(const d12_dred_freed *f)
{
    return f->name_w ? d12dred_utf8_from_wide(f->name_w) : f->name_a ? strdup(f->name_a) : NULL;
}

static char *object_name(d12_object_data *data)
{
    bool out_of_memory;
    return d12__object_name_dup(data, &out_of_memory);
}

/* The names (ledger lock held): a release's from its freed-ring record, while the ring still holds it; a creation's
 * from its release in the snapshot, else from the live object (its name now). */
static void name_events(struct d12_dred *dred, snapshot *s)
{
    for (size_t i = 0; i < s->count; i++) {
        const d12_dred_event *e = &s->events[i];
        uint64_t fs = e->free_seq;
        if (!e->released || fs == 0 || dred->freed_total - fs >= D12_DRED_FREED_RING)
            continue;
        const d12_dred_freed *f = &dred->freed[(fs - 1) % D12_DRED_FREED_RING];
        if (f->seq == fs)
            s->names[i] = freed_name(f);
        if (s->names[i] && e->created >= s->first && !s->names[e->created - s->first])
            s->names[e->created - s->first] = strdup(s->names[i]);
    }
    for (const d12_dred_allocation *a = dred->live.next; a != &dred->live; a = a->next)
        if (a->created >= s->first && a->created - s->first < s->count && !s->names[a->created - s->first])
            s->names[a->created - s->first] = object_name(&a->resource->device_child.object);
    for (const d12_dred_heap *h = dred->heaps.next; h != &dred->heaps; h = h->next)
        if (h->created >= s->first && h->created - s->first < s->count && !s->names[h->created - s->first])
            s->names[h->created - s->first] = object_name(&h->heap->device_child.object);
}

static bool take_snapshot(struct d12_dred *dred, snapshot *s)
{
    pthread_mutex_lock(&dred->ledger_lock);
    uint64_t total = dred->event_total;
    s->count = total < D12_DRED_EVENT_RING ? (size_t)total : D12_DRED_EVENT_RING;
    s->first = total - s->count + 1;
    s->events = s->count ? malloc(s->count * sizeof *s->events) : NULL;
    s->names = s->count ? calloc(s->count, sizeof *s->names) : NULL;
    bool ok = s->count && s->events && s->names;
    for (size_t i = 0; ok && i < s->count; i++)
        s->events[i] = dred->events[(s->first - 1 + i) % D12_DRED_EVENT_RING];
    if (ok)
        name_events(dred, s);
    pthread_mutex_unlock(&dred->ledger_lock);
    return ok;
}

static void snapshot_free(snapshot *s)
{
    for (size_t i = 0; s->names && i < s->count; i++)
        free(s->names[i]);
    free(s->names);
    free(s->events);
}

/* The device's live queues and their names, to name a submission's queue (one a destroyed queue had: none). */
typedef struct queue_names {
    const void **queues;
    char **names;
    size_t count;
} queue_names;

static void collect_queue_names(struct d12_device *device, queue_names *q)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    size_t n = 0;
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next)
        n++;
    q->queues = n ? calloc(n, sizeof *q->queues) : NULL;
    q->names = n ? calloc(n, sizeof *q->names) : NULL;
    for (struct d12_command_queue *queue = device->queues; queue && q->queues && q->names; queue = queue->next) {
        q->queues[q->count] = queue;
        q->names[q->count++] = object_name(&queue->device_child.object);
    }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

static const char *queue_name(const queue_names *q, const void *queue)
{
    for (size_t i = 0; i < q->count; i++)
        if (q->queues[i] == queue)
            return q->names[i];
    return NULL;
}

static void queue_names_free(queue_names *q)
{
    for (size_t i = 0; i < q->count; i++)
        free(q->names[i]);
    free(q->names);
    free(q->queues);
}

static bool event_holds(const d12_dred_event *e, uint64_t va)
{
    return va >= e->start && va - e->start < e->size;
}

/* Which events a VA's timeline keeps (flags per snapshot event): its holders' (by creation), and those of every
 * resource whose name one of its holders had (the re-creations). Returns how many; *start and *end: the holders'
 * span. */
static size_t select_events(const snapshot *s, uint64_t va, unsigned char *keep, uint64_t *start, uint64_t *end)
{
    memset(keep, 0, s->count);
    unsigned char *holder = calloc(s->count, 1); /* by creation: index created - first */
    if (!holder)
        return 0;
    *start = UINT64_MAX;
    *end = 0;
    for (size_t i = 0; i < s->count; i++) {
        const d12_dred_event *e = &s->events[i];
        if (!event_holds(e, va))
            continue;
        if (e->created >= s->first)
            holder[e->created - s->first] = 1;
        keep[i] = 1; /* a release whose creation fell out of the ring still counts */
        *start = e->start < *start ? e->start : *start;
        *end = e->start + e->size > *end ? e->start + e->size : *end;
    }
    const char *names[8]; /* the holders' names (a VA has few holders in the ring: more are not matched by name) */
    size_t name_count = 0;
    for (size_t h = 0; h < s->count && name_count < 8; h++) {
        bool known = !holder[h] || !s->names[h];
        for (size_t n = 0; n < name_count && !known; n++)
            known = strcmp(names[n], s->names[h]) == 0;
        if (!known)
            names[name_count++] = s->names[h];
    }
    size_t kept = 0;
    for (size_t i = 0; i < s->count; i++) {
        const d12_dred_event *e = &s->events[i];
        bool held = keep[i] || (e->created >= s->first && holder[e->created - s->first]);
        for (size_t n = 0; n < name_count && !held && s->names[i]; n++)
            held = strcmp(names[n], s->names[i]) == 0;
        keep[i] = held;
        kept += held;
    }
    free(holder);
    return kept;
}

static bool same_selection(const unsigned char *a, const unsigned char *b, size_t count)
{
    return memcmp(a, b, count) == 0;
}

static void add_timeline(d12dred_report *r, const snapshot *s, const queue_names *q, uint64_t va,
                         const unsigned char *keep, size_t kept, uint64_t start, uint64_t end, uint64_t now)
{
    d12dred_timeline *t = d12dred_report_add_timeline(r, va, start, end);
    if (!t)
        return;
    size_t skip = kept > D12DRED_TIMELINE_MAX_EVENTS ? kept - D12DRED_TIMELINE_MAX_EVENTS : 0; /* the oldest go */
    t->earlier = skip;
    for (size_t i = 0; i < s->count; i++) {
        if (!keep[i] || (skip && skip--))
            continue;
        const d12_dred_event *e = &s->events[i];
        d12dred_timeline_event out = {e->released, s->names[i], e->type, e->start, e->size, e->seq,
                                      now > e->time_ns ? now - e->time_ns : 0, e->submission,
                                      e->submission ? (char *)queue_name(q, e->queue) : NULL};
        d12dred_timeline_add_event(t, &out);
    }
}

void d12__dred_report_fill_timelines(struct d12_device *device, d12dred_report *r)
{
    struct d12_dred *dred = device->dred;
    if (!dred->events || !dred->enabled.page_fault)
        return;
    uint64_t now = d12__dred_now_ns(); /* "relative to the removal": the freeze is the removal's moment here */
    vas v = {0};
    named_vas(r, &v);
    snapshot s = {0};
    queue_names q = {0};
    unsigned char *keeps = v.count ? calloc(v.count, D12_DRED_EVENT_RING) : NULL; /* one selection per VA */
    if (keeps && take_snapshot(dred, &s)) {
        collect_queue_names(device, &q);
        size_t made = 0;
        for (size_t i = 0; i < v.count; i++) {
            unsigned char *keep = keeps + made * s.count;
            uint64_t start = 0, end = 0;
            size_t kept = select_events(&s, v.items[i], keep, &start, &end);
            bool seen = false; /* two VAs of one resource: one timeline */
            for (size_t j = 0; j < made && !seen; j++)
                seen = same_selection(keeps + j * s.count, keep, s.count);
            if (!kept || seen)
                continue;
            add_timeline(r, &s, &q, v.items[i], keep, kept, start, end, now);
            made++;
        }
        queue_names_free(&q);
    }
    snapshot_free(&s);
    free(keeps);
    free(v.items);
    const d12_fault_info *fault = &dred->fault; /* the list recorded at #40 (0: not known) */
    uint64_t recorded = fault->list && fault->list->dred
                            ? atomic_load_explicit(&fault->list->dred->closed_submission, memory_order_relaxed)
                            : 0;
    d12dred_report_note_recreation(r, recorded);
}
