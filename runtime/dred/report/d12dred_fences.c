/* Issue 32's additions to the report model (d12dred_report.h, "Issue 32 additions"): the fences the queues' pending
 * waits and queued signals name, with their highest value and last changes; a wait whose fence went backwards; the
 * words for a fence (its name, its identity where names are ambiguous: issue 29); the verdict of a hang or stall.
 * Every member is additive to schema_version 1 (docs/dred-report.md). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

d12dred_fence *d12dred_report_add_fence(d12dred_report *report, uint64_t id, const char *name, uint64_t value,
                                        uint64_t highest)
{
    if (!report)
        return NULL;
    d12dred_fence **fences = realloc(report->fences, (report->fence_count + 1) * sizeof *fences);
    if (!fences)
        return NULL;
    report->fences = fences;
    d12dred_fence *fence = calloc(1, sizeof *fence);
    if (!fence || d12__dred_set_string(&fence->name, name) != 0) {
        free(fence);
        return NULL;
    }
    fence->id = id;
    fence->value = value;
    fence->highest = highest;
    fences[report->fence_count++] = fence;
    return fence;
}

int d12dred_fence_add_change(d12dred_fence *fence, uint64_t value, const char *by, const char *call)
{
    if (!fence)
        return -1;
    d12dred_fence_change *changes = realloc(fence->changes, (fence->change_count + 1) * sizeof *changes);
    if (!changes)
        return -1;
    fence->changes = changes;
    d12dred_fence_change *change = &changes[fence->change_count];
    memset(change, 0, sizeof *change);
    if (d12__dred_set_string(&change->by, by) != 0 || d12__dred_set_string(&change->call, call) != 0) {
        free(change->by);
        return -1;
    }
    change->value = value;
    fence->change_count++;
    return 0;
}

const d12dred_fence *d12dred_report_find_fence(const d12dred_report *report, uint64_t id)
{
    for (size_t i = 0; report && i < report->fence_count; i++)
        if (report->fences[i]->id == id)
            return report->fences[i];
    return NULL;
}

int d12dred_wait_set_backwards(d12dred_wait *wait, const char *backwards)
{
    return wait ? d12__dred_set_string(&wait->backwards, backwards) : -1;
}

bool d12dred_report_is_stall(const d12dred_report *report)
{
    return report && report->kind && strcmp(report->kind, "stall") == 0;
}

/* ---- Words for a fence ---------------------------------------------------------------------------------------- */

/* Another fence of the report (by identity) with this name? Only the identities the report knows count. */
static int name_shared(const d12dred_report *r, const char *name, uint64_t id)
{
    for (size_t i = 0; i < r->fence_count; i++)
        if (r->fences[i]->id != id && r->fences[i]->name && strcmp(r->fences[i]->name, name) == 0)
            return 1;
    for (size_t q = 0; q < r->queue_count; q++) {
        const d12dred_queue *queue = r->queues[q];
        for (size_t i = 0; i < queue->wait_count + queue->signal_count; i++) {
            const d12dred_wait *w = i < queue->wait_count ? &queue->waits[i] : &queue->signals[i - queue->wait_count];
            if (w->has_fence_id && w->fence_id != id && w->fence && strcmp(w->fence, name) == 0)
                return 1;
        }
    }
    return 0;
}

void d12__dred_put_fence(d12__dred_buf *b, const d12dred_report *r, const char *name, int has_id, uint64_t id)
{
    if (!name) {
        if (has_id)
            d12__dred_buf_printf(b, "unnamed fence 0x%" PRIx64, id);
        else
            d12__dred_put_name(b, NULL);
        return;
    }
    d12__dred_put_name(b, name);
    if (has_id && r && name_shared(r, name, id))
        d12__dred_buf_printf(b, " (0x%" PRIx64 ")", id);
}

/* ---- Backwards fences --------------------------------------------------------------------------------------- */

/* The change that set the fence to `value` last (the newest one with that value), or NULL (not among those kept). */
static const d12dred_fence_change *setter_of(const d12dred_fence *f, uint64_t value)
{
    for (size_t i = f->change_count; i-- > 0;)
        if (f->changes[i].value == value)
            return &f->changes[i];
    return NULL;
}

static int describe_backwards(const d12dred_report *r, d12dred_wait *w, const d12dred_fence *f)
{
    d12__dred_buf b = {0};
    d12__dred_put_fence(&b, r, w->fence, w->has_fence_id, w->fence_id);
    d12__dred_buf_printf(&b, " went backwards: %" PRIu64 " (reached) \xe2\x86\x92 %" PRIu64, f->highest,
                         w->fence_value);
    const d12dred_fence_change *c = setter_of(f, w->fence_value);
    if (c) {
        d12__dred_buf_puts(&b, ", set by ");
        d12__dred_put_text(&b, c->by ? c->by : "?");
        d12__dred_buf_puts(&b, " (");
        d12__dred_put_text(&b, c->call ? c->call : "?");
        d12__dred_buf_puts(&b, ")");
    } else {
        d12__dred_buf_puts(&b, ", set by a change no longer kept");
    }
    int rc = b.failed ? -1 : d12dred_wait_set_backwards(w, b.data);
    free(b.data);
    return rc;
}

int d12dred_report_find_backwards(d12dred_report *r)
{
    if (!r)
        return -1;
    int rc = 0;
    for (size_t q = 0; q < r->queue_count; q++)
        for (size_t i = 0; i < r->queues[q]->wait_count; i++) {
            d12dred_wait *w = &r->queues[q]->waits[i];
            const d12dred_fence *f = w->has_fence_id ? d12dred_report_find_fence(r, w->fence_id) : NULL;
            /* reached once (its highest value covers the wait) and lower now: a Signal set it back */
            if (f && w->fence_value < w->value && f->highest >= w->value)
                rc |= describe_backwards(r, w, f);
        }
    return rc;
}

const char *d12dred_report_wait_verdict(const d12dred_report *r)
{
    if (!r)
        return NULL;
    if (r->deadlock)
        return r->deadlock;
    for (size_t q = 0; q < r->queue_count; q++)
        for (size_t i = 0; i < r->queues[q]->wait_count; i++)
            if (r->queues[q]->waits[i].backwards)
                return r->queues[q]->waits[i].backwards;
    return NULL;
}
