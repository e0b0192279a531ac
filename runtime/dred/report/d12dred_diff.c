/* `d12dred diff A B` (docs/dred-report.md "diff"): ten aspects, one line each -- the kind, the reason, the device
 * state, the cause, the faulting op, its state (arguments, views, root descriptors, copy sides), the page-fault
 * verdict, the waits' verdict and the waits (the last four and the kind: issue 32 item 5, d12dred_diff_waits.c), the
 * resource timelines' order (issue 32 item 7, d12dred_timeline.c: times, VAs and numbers left out). An aspect one
 * run has no data for (the feature that records it was off there) says so -- "no data: page-fault reporting was off
 * in run 2" -- and is no difference: a run with reporting off did not have another bug (issue 19 item 7). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12_dred_names.h"
#include "d12dred_internal.h"
#include "d12dred_report.h"

typedef d12__dred_buf buf;

typedef d12__dred_fault_site fault_site;
#define find_fault d12__dred_find_fault

/* The op the report blames: the first `exact` op, else the first `suspect` one. */
fault_site d12__dred_find_fault(const d12dred_report *r)
{
    fault_site suspect = {0};
    for (size_t i = 0; i < r->node_count; i++) {
        const d12dred_node *n = r->nodes[i];
        for (size_t j = 0; j < n->op_count; j++) {
            if (n->ops[j].attribution == D12DRED_ATTRIBUTION_EXACT)
                return (fault_site){n, &n->ops[j]};
            if (n->ops[j].attribution == D12DRED_ATTRIBUTION_SUSPECT && !suspect.op)
                suspect = (fault_site){n, &n->ops[j]};
        }
    }
    return suspect;
}

static int same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* ---- What each aspect says ---- */

static void describe_reason(buf *b, const d12dred_report *r)
{
    d12__dred_put_text(b, r->reason_name ? r->reason_name : "?");
    d12__dred_buf_printf(b, " (0x%08" PRIx32 ")", (uint32_t)r->reason);
}

static void describe_state(buf *b, const d12dred_report *r)
{
    d12__dred_put_enum(b, d12_dred_device_state_name(r->device_state), r->device_state);
}

static void describe_fault(buf *b, const d12dred_report *r)
{
    fault_site f = find_fault(r);
    if (!f.op) {
        d12__dred_buf_puts(b, "none");
        return;
    }
    d12__dred_put_name(b, f.node->list);
    d12__dred_buf_puts(b, " on ");
    d12__dred_put_name(b, f.node->queue);
    d12__dred_buf_printf(b, " #%" PRIu32 " ", f.op->index);
    d12__dred_put_op_name(b, f.op->op);
    d12__dred_buf_printf(b, " (%s)", d12dred_attribution_name(f.op->attribution));
    if (f.op->bundle_draw) { /* which draw of the bundle (issue 32 item 1): another draw is another bug */
        d12__dred_buf_puts(b, " ");
        d12__dred_put_bundle_draw(b, f.op->bundle_draw);
    }
}

/* The attributed op's state, as what stays the same between two runs of one bug: arguments, and per view / root
 * descriptor / copy side its slot and the buffer's name and offset (VAs differ from run to run). */
static void describe_op_state(buf *b, const d12dred_report *r)
{
    fault_site f = find_fault(r);
    const d12dred_op_state *s = f.op ? f.op->state : NULL;
    if (!s) {
        d12__dred_buf_puts(b, "none");
        return;
    }
    int any = 0;
    if (s->arguments) {
        d12__dred_put_text(b, s->arguments);
        any = 1;
    }
    for (size_t i = 0; i < s->vertex_buffer_count; i++) {
        d12__dred_buf_printf(b, "%sVB %" PRIu32 " ", any++ ? "; " : "", s->vertex_buffers[i].slot);
        d12__dred_put_name(b, s->vertex_buffers[i].resource);
        if (s->vertex_buffers[i].site.has_offset)
            d12__dred_buf_printf(b, " + 0x%" PRIx64, s->vertex_buffers[i].site.offset);
    }
    if (s->has_index_buffer) {
        d12__dred_buf_puts(b, any++ ? "; IB " : "IB ");
        d12__dred_put_name(b, s->index_buffer.resource);
        if (s->index_buffer.site.has_offset)
            d12__dred_buf_printf(b, " + 0x%" PRIx64, s->index_buffer.site.offset);
    }
    for (size_t i = 0; i < s->root_descriptor_count; i++) {
        const char *kind = d12dred_root_kind_name(s->root_descriptors[i].kind);
        d12__dred_buf_printf(b, "%sroot %" PRIu32 " %s ", any++ ? "; " : "", s->root_descriptors[i].parameter,
                             kind ? kind : "?");
        d12__dred_put_name(b, s->root_descriptors[i].resource);
    }
    if (s->has_copy) {
        d12__dred_buf_puts(b, any++ ? "; copy " : "copy ");
        d12__dred_put_name(b, s->copy_src.resource);
        d12__dred_buf_printf(b, " + 0x%" PRIx64 " -> ", s->copy_src.offset);
        d12__dred_put_name(b, s->copy_dst.resource);
        d12__dred_buf_printf(b, " + 0x%" PRIx64 ", %" PRIu64 " bytes", s->copy_dst.offset, s->copy_bytes);
    }
    if (!any)
        d12__dred_buf_puts(b, "none");
}

/* The allocation a verdict names (use-after-free: the freed one; out-of-bounds: the one below). */
static const char *verdict_subject(const d12dred_page_fault *pf)
{
    if (!pf)
        return NULL;
    if (pf->verdict == D12DRED_VERDICT_USE_AFTER_FREE && pf->freed_count)
        return pf->freed[0]->name;
    if (pf->verdict == D12DRED_VERDICT_OUT_OF_BOUNDS && pf->below)
        return pf->below->name;
    return NULL;
}

static void describe_verdict(buf *b, const d12dred_report *r)
{
    const d12dred_page_fault *pf = r->page_fault;
    if (!pf) {
        d12__dred_buf_puts(b, "no page fault");
        return;
    }
    const char *verdict = d12dred_verdict_name(pf->verdict);
    d12__dred_buf_puts(b, verdict ? verdict : "none");
    const char *subject = verdict_subject(pf);
    if (subject) {
        d12__dred_buf_puts(b, " ");
        d12__dred_put_name(b, subject);
    }
}

/* ---- Whether each aspect has data ---- */

/* The feature a run lacked for an aspect ("auto-breadcrumbs were off"), or NULL when the run has the data. */
static const char *missing_fault(const d12dred_report *r)
{
    return r->features.auto_breadcrumbs ? NULL : "auto-breadcrumbs were off";
}

static const char *missing_op_state(const d12dred_report *r)
{
    if (!r->features.auto_breadcrumbs)
        return "auto-breadcrumbs were off";
    return r->features.breadcrumb_contexts ? NULL : "breadcrumb contexts (the op's arguments) were off";
}

static const char *missing_verdict(const d12dred_report *r)
{
    return r->features.page_fault ? NULL : "page-fault reporting was off";
}

/* ---- Comparing ---- */

static int text_of(const d12dred_report *r, void (*describe)(buf *, const d12dred_report *), char **out)
{
    buf b = {0};
    describe(&b, r);
    *out = b.data;
    return b.failed ? -1 : 0;
}

typedef struct aspect {
    const char *label;
    void (*describe)(buf *, const d12dred_report *);
    const char *(*missing)(const d12dred_report *); /* NULL: always recorded */
} aspect;

/* One aspect's line. Returns 1 same, 0 different, 2 no data in a run. The faulting op also compares its
 * attribution (the same op found with less confidence is a difference), which its text carries. */
static int diff_aspect(buf *out, const aspect *a, const d12dred_report *r1, const d12dred_report *r2)
{
    const char *m1 = a->missing ? a->missing(r1) : NULL, *m2 = a->missing ? a->missing(r2) : NULL;
    d12__dred_buf_printf(out, "%-13s ", a->label);
    if (m1 || m2) {
        if (m1 && m2 && strcmp(m1, m2) == 0)
            d12__dred_buf_printf(out, "no data: %s in both runs\n", m1);
        else if (m1 && m2)
            d12__dred_buf_printf(out, "no data: %s in run 1, %s in run 2\n", m1, m2);
        else
            d12__dred_buf_printf(out, "no data: %s in run %d\n", m1 ? m1 : m2, m1 ? 1 : 2);
        return 2;
    }
    char *t1 = NULL, *t2 = NULL;
    text_of(r1, a->describe, &t1);
    text_of(r2, a->describe, &t2);
    int same = same_string(t1, t2);
    d12__dred_buf_printf(out, "%s: ", same ? "same" : "different");
    d12__dred_buf_puts(out, t1 ? t1 : "?");
    if (!same) {
        d12__dred_buf_puts(out, " | ");
        d12__dred_buf_puts(out, t2 ? t2 : "?");
    }
    d12__dred_buf_puts(out, "\n");
    free(t1);
    free(t2);
    return same;
}

int d12dred_report_diff(const d12dred_report *a, const d12dred_report *b, FILE *out)
{
    if (!a || !b)
        return 1;
    static const aspect aspects[] = {
        {"kind", d12__dred_describe_kind, NULL},
        {"reason", describe_reason, NULL},
        {"device state", describe_state, NULL},
        {"cause", d12__dred_describe_cause, NULL},
        {"faulting op", describe_fault, missing_fault},
        {"op state", describe_op_state, missing_op_state},
        {"verdict", describe_verdict, missing_verdict},
        {"wait verdict", d12__dred_describe_wait_verdict, NULL},
        {"waits", d12__dred_describe_waits, NULL},
        {"timelines", d12__dred_describe_timelines, missing_verdict}, /* the ledger's: page-fault DRED */
    };
    enum { COUNT = (int)(sizeof aspects / sizeof aspects[0]) };
    buf lines[COUNT] = {{0}};
    int results[COUNT], differences = 0, no_data = 0;
    for (int i = 0; i < COUNT; i++) {
        results[i] = diff_aspect(&lines[i], &aspects[i], a, b);
        differences += results[i] == 0;
        no_data += results[i] == 2;
    }
    /* the differences first (issue 32 item 5): what tells the runs apart is what a reader looks for */
    buf text = {0};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < COUNT; i++)
            if ((results[i] == 0) == (pass == 0) && lines[i].data)
                d12__dred_buf_append(&text, lines[i].data, lines[i].length);
    for (int i = 0; i < COUNT; i++) {
        text.failed |= lines[i].failed;
        free(lines[i].data);
    }
    if (differences)
        d12__dred_buf_printf(&text, "the reports differ in %d of %d aspects\n", differences, COUNT);
    else if (no_data)
        d12__dred_buf_printf(&text, "the reports agree on the %d aspects both have data for (%d without data)\n",
                             COUNT - no_data, no_data);
    else
        d12__dred_buf_puts(&text, "the reports agree on every aspect: kind, reason, device state, cause, faulting op, "
                                  "op state, verdict, wait verdict, waits and timelines\n");
    if (out)
        d12__dred_emit(&text, out);
    else
        free(text.data);
    return differences ? 1 : 0;
}
