/* Issue 32 item 7: the report's resource timelines (d12dred_report.h, "resource timelines"; docs/dred.md, "Resource
 * timeline"). Per VA the report names, the creations and releases of the resources that held it and the
 * re-creations of those resources under the same name; the use-after-free verdict's re-creation sentence; `d12dred
 * show --timeline VA`; diff's `timelines` aspect. Additive to schema_version 1 (docs/dred-report.md). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12_dred_names.h"
#include "d12dred_internal.h"
#include "d12dred_report.h"

typedef d12__dred_buf buf;

#define D12DRED_TYPE_RESOURCE 34u /* D3D12_DRED_ALLOCATION_TYPE_RESOURCE */

d12dred_timeline *d12dred_report_add_timeline(d12dred_report *report, uint64_t va, uint64_t start, uint64_t end)
{
    if (!report)
        return NULL;
    d12dred_timeline **timelines = realloc(report->timelines, (report->timeline_count + 1) * sizeof *timelines);
    if (!timelines)
        return NULL;
    report->timelines = timelines;
    d12dred_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    *t = (d12dred_timeline){.va = va, .start = start, .end = end};
    timelines[report->timeline_count++] = t;
    return t;
}

int d12dred_timeline_add_event(d12dred_timeline *t, const d12dred_timeline_event *event)
{
    if (!t || !event || (t->event_count && event->seq <= t->events[t->event_count - 1].seq))
        return -1; /* oldest first, each event once: a reader refuses any other order */
    d12dred_timeline_event *events = realloc(t->events, (t->event_count + 1) * sizeof *events);
    if (!events)
        return -1;
    t->events = events;
    d12dred_timeline_event *e = &events[t->event_count];
    *e = *event;
    e->name = e->queue = NULL;
    if (d12__dred_set_string(&e->name, event->name) != 0 || d12__dred_set_string(&e->queue, event->queue) != 0) {
        free(e->name);
        return -1;
    }
    t->event_count++;
    return 0;
}

void d12__dred_free_timelines(d12dred_report *report)
{
    for (size_t i = 0; i < report->timeline_count; i++) {
        d12dred_timeline *t = report->timelines[i];
        for (size_t j = 0; j < t->event_count; j++) {
            free(t->events[j].name);
            free(t->events[j].queue);
        }
        free(t->events);
        free(t);
    }
    free(report->timelines);
}

static bool holds(const d12dred_timeline_event *e, uint64_t va)
{
    return va >= e->va && va - e->va < e->size;
}

const d12dred_timeline *d12dred_report_find_timeline(const d12dred_report *report, uint64_t va)
{
    for (size_t i = 0; report && i < report->timeline_count; i++)
        if (report->timelines[i]->va == va)
            return report->timelines[i];
    for (size_t i = 0; report && i < report->timeline_count; i++)
        if (va >= report->timelines[i]->start && va < report->timelines[i]->end)
            return report->timelines[i];
    return NULL;
}

/* ---- Words ---- */

/* "submission #41" / "before any submission" */
static void put_submission(buf *b, const char *at, uint64_t serial)
{
    if (serial)
        d12__dred_buf_printf(b, "%s submission #%" PRIu64, at, serial);
    else
        d12__dred_buf_puts(b, "before any submission");
}

void d12__dred_put_timeline_event(buf *b, const d12dred_report *r, const d12dred_timeline *t,
                                  const d12dred_timeline_event *e)
{
    d12__dred_buf_printf(b, "#%" PRIu64 " %s ", e->seq, e->released ? "released" : "created ");
    d12__dred_put_name(b, e->name);
    if (e->type != D12DRED_TYPE_RESOURCE) { /* a heap (or another type) says so; resources are the common case */
        d12__dred_buf_puts(b, " ");
        d12__dred_put_enum(b, d12_dred_allocation_type_name(e->type), e->type);
    }
    d12__dred_buf_printf(b, " [0x%" PRIx64 ", 0x%" PRIx64 ")", e->va, e->va + e->size);
    if (!holds(e, t->va))
        d12__dred_buf_puts(b, " (another VA)");
    d12__dred_buf_puts(b, ", ");
    put_submission(b, "after", e->after_submission);
    if (e->after_submission && e->queue) {
        d12__dred_buf_puts(b, " on queue ");
        d12__dred_put_name(b, e->queue);
    }
    d12__dred_buf_printf(b, ", %" PRIu64 ".%03" PRIu64 " ms before the %s", e->ns_before / 1000000u,
                         e->ns_before / 1000u % 1000u, d12dred_report_is_stall(r) ? "report" : "removal");
}

void d12__dred_put_timeline_title(buf *b, const d12dred_timeline *t)
{
    d12__dred_buf_printf(b, "timeline of 0x%" PRIx64 ": the resources that held [0x%" PRIx64 ", 0x%" PRIx64
                            ") and their re-creations under the same name",
                         t->va, t->start, t->end);
    if (t->earlier)
        d12__dred_buf_printf(b, " (%" PRIu64 " earlier events not kept)", t->earlier);
}

int d12dred_report_render_timeline(const d12dred_report *report, uint64_t va, FILE *out)
{
    if (!report || !out)
        return -1;
    buf b = {0};
    const d12dred_timeline *t = d12dred_report_find_timeline(report, va);
    if (!t) {
        d12__dred_buf_printf(&b, "no timeline of 0x%" PRIx64 " in this report", va);
        for (size_t i = 0; i < report->timeline_count; i++)
            d12__dred_buf_printf(&b, "%s0x%" PRIx64, i ? ", " : " (it has timelines of ", report->timelines[i]->va);
        d12__dred_buf_puts(&b, report->timeline_count ? ")\n" : " (it has none)\n");
        return d12__dred_emit(&b, out) ? -1 : 1;
    }
    d12__dred_put_timeline_title(&b, t);
    d12__dred_buf_puts(&b, "\n");
    if (!t->event_count)
        d12__dred_buf_puts(&b, "  no creation or release of it is left in the ledger's ring\n");
    for (size_t i = 0; i < t->event_count; i++) {
        d12__dred_buf_puts(&b, "  ");
        d12__dred_put_timeline_event(&b, report, t, &t->events[i]);
        d12__dred_buf_puts(&b, "\n");
    }
    return d12__dred_emit(&b, out);
}

/* ---- The use-after-free verdict's re-creation ---- */

static bool same_name(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

int d12dred_report_note_recreation(d12dred_report *report, uint64_t recorded_at)
{
    d12dred_page_fault *pf = report ? report->page_fault : NULL;
    if (!pf || pf->verdict != D12DRED_VERDICT_USE_AFTER_FREE || !pf->freed_count || !pf->freed[0]->name)
        return 0;
    const char *name = pf->freed[0]->name;
    const d12dred_timeline *t = d12dred_report_find_timeline(report, pf->va);
    size_t released = SIZE_MAX; /* the newest release of that name at the faulting VA */
    for (size_t i = 0; t && i < t->event_count; i++)
        if (t->events[i].released && holds(&t->events[i], pf->va) && same_name(t->events[i].name, name))
            released = i;
    const d12dred_timeline_event *again = NULL; /* its first re-creation under that name elsewhere */
    for (size_t i = released + 1; t && released != SIZE_MAX && i < t->event_count && !again; i++)
        if (!t->events[i].released && !holds(&t->events[i], pf->va) && same_name(t->events[i].name, name))
            again = &t->events[i];
    if (!again)
        return 0;
    buf b = {0};
    if (pf->detail) {
        d12__dred_buf_puts(&b, pf->detail);
        d12__dred_buf_puts(&b, "; ");
    }
    d12__dred_put_name(&b, name);
    d12__dred_buf_puts(&b, " was released ");
    put_submission(&b, "at", t->events[released].after_submission);
    d12__dred_buf_puts(&b, " and re-created ");
    if (again->after_submission)
        d12__dred_buf_printf(&b, "at #%" PRIu64, again->after_submission);
    else
        d12__dred_buf_puts(&b, "before any submission");
    d12__dred_buf_printf(&b, " at another VA (0x%" PRIx64 "); ", again->va);
    if (recorded_at)
        d12__dred_buf_printf(&b, "the list recorded at #%" PRIu64 " still used the old one", recorded_at);
    else
        d12__dred_buf_puts(&b, "the faulting list still used the old one");
    int rc = b.failed ? -1 : d12dred_page_fault_set_detail(pf, b.data);
    free(b.data);
    return rc == 0 ? 1 : -1;
}

/* ---- diff ---- */

/* Each timeline's events in order -- created/released, the name, whether at another VA -- without times, VAs or
 * numbers (they differ between any two runs); the order is what tells a re-creation from a use-after-free. */
void d12__dred_describe_timelines(buf *b, const d12dred_report *r)
{
    if (!r->timeline_count)
        d12__dred_buf_puts(b, "none");
    for (size_t i = 0; i < r->timeline_count; i++) {
        const d12dred_timeline *t = r->timelines[i];
        d12__dred_buf_puts(b, i ? "; [" : "[");
        for (size_t j = 0; j < t->event_count; j++) {
            const d12dred_timeline_event *e = &t->events[j];
            d12__dred_buf_puts(b, j ? ", " : "");
            d12__dred_buf_puts(b, e->released ? "released " : "created ");
            d12__dred_put_name(b, e->name);
            if (!holds(e, t->va))
                d12__dred_buf_puts(b, " elsewhere");
        }
        d12__dred_buf_puts(b, "]");
    }
}
