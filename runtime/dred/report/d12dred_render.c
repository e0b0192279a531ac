/* The `d12dred show` tree and `d12dred diff` (docs/dred-report.md shows both). Layout after dred-semantics.md
 * section 5's suggestion: header; per queue its submissions in order and its pending waits; per node the ops,
 * indented by BeginEvent/EndEvent nesting, `#i NAME(n) "context"`, marked `<- last completed`,
 * `<- FAULT (exact)`, `<- first outstanding (suspect)`; the faulting op's state and messages under it; then the
 * page fault and the removal flush's messages. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12_dred_names.h"
#include "d12dred_internal.h"
#include "d12dred_report.h"

/* Nodes longer than this show only the ops around the completed count (and every marked op or op with state). */
#define RENDER_FULL_NODE_OPS 64u
#define RENDER_OPS_BEFORE 24u
#define RENDER_OPS_AFTER 8u

typedef d12__dred_buf buf;

#define put_text d12__dred_put_text
#define put_name d12__dred_put_name
#define put_op_name d12__dred_put_op_name
#define put_enum d12__dred_put_enum
#define emit d12__dred_emit

/* Text from the report as the terminal should see it: control characters (a hostile file could hold escape
 * sequences) are shown as \n, \t, \xNN; everything else is the report's UTF-8. */
void d12__dred_put_text(buf *b, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n')
            d12__dred_buf_puts(b, "\\n");
        else if (*p == '\t')
            d12__dred_buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7F)
            d12__dred_buf_printf(b, "\\x%02x", *p);
        else
            d12__dred_buf_append(b, (const char *)p, 1);
    }
}

/* 'name' quoted, or (unnamed). */
void d12__dred_put_name(buf *b, const char *name)
{
    if (!name) {
        d12__dred_buf_puts(b, "(unnamed)");
        return;
    }
    d12__dred_buf_puts(b, "'");
    put_text(b, name);
    d12__dred_buf_puts(b, "'");
}

const char *d12__dred_status_text(d12dred_submission_status status)
{
    switch (status) {
    case D12DRED_SUBMISSION_COMPLETED: return "completed";
    case D12DRED_SUBMISSION_IN_PROGRESS: return "in progress";
    case D12DRED_SUBMISSION_NOT_STARTED: return "not started";
    default: return "?";
    }
}

static void put_indent(buf *b, unsigned spaces)
{
    for (unsigned i = 0; i < spaces; i++)
        d12__dred_buf_puts(b, " ");
}

void d12__dred_put_op_name(buf *b, uint32_t op)
{
    const char *name = d12_dred_op_name(op);
    if (name)
        d12__dred_buf_printf(b, "%s(%" PRIu32 ")", name, op);
    else
        d12__dred_buf_printf(b, "op %" PRIu32, op);  /* an op newer than this d12dred: its number */
}

void d12__dred_put_enum(buf *b, const char *name, uint32_t value)
{
    if (name)
        d12__dred_buf_printf(b, "%s (%" PRIu32 ")", name, value);
    else
        d12__dred_buf_printf(b, "%" PRIu32, value);
}

void d12__dred_put_message(buf *b, const d12dred_message *message)
{
    const char *severity = d12dred_severity_name(message->severity);
    const char *category = d12dred_category_name(message->category);
    if (severity)
        d12__dred_buf_printf(b, "[%s]", severity);
    else
        d12__dred_buf_printf(b, "[severity %" PRIu32 "]", message->severity);
    if (category)
        d12__dred_buf_printf(b, " %s", category);
    else
        d12__dred_buf_printf(b, " category %" PRIu32, message->category);
    d12__dred_buf_printf(b, " #%" PRIu32 ": ", message->id);
    put_text(b, message->text ? message->text : "");
}

static void put_message(buf *b, unsigned indent, const d12dred_message *message)
{
    put_indent(b, indent);
    d12__dred_put_message(b, message);
    d12__dred_buf_puts(b, "\n");
}

/* Index buffer formats by name (DXGI_FORMAT: R32_UINT 42, R16_UINT 57), others by number. */
static void put_index_format(buf *b, uint32_t format)
{
    if (format == 42 || format == 57)
        d12__dred_buf_puts(b, format == 42 ? "R32_UINT" : "R16_UINT");
    else
        d12__dred_buf_printf(b, "format %" PRIu32, format);
}

/* A byte distance: decimal while small, hex once it is an address-sized gap. */
void d12__dred_put_distance(buf *b, uint64_t bytes)
{
    if (bytes < 0x100000)
        d12__dred_buf_printf(b, "%" PRIu64 " bytes", bytes);
    else
        d12__dred_buf_printf(b, "0x%" PRIx64 " bytes", bytes);
}

/* ---- Header ------------------------------------------------------------------------------------------------ */

/* `stall: no GPU progress for 1500 ms while work was pending (D12RT_STALL_MS); the device was not removed` */
void d12__dred_put_stall(buf *b, const d12dred_report *r)
{
    d12__dred_buf_puts(b, "stall: ");
    if (r->stalled_ms)
        d12__dred_buf_printf(b, "no GPU progress for %" PRIu32 " ms while work was pending", r->stalled_ms);
    else
        d12__dred_buf_puts(b, "no GPU progress while work was pending");
    d12__dred_buf_puts(b, " (D12RT_STALL_MS); the device was not removed");
}

static void render_header(buf *b, const d12dred_report *r)
{
    d12__dred_buf_printf(b, "DRED report (schema %" PRIu32 ")\n", r->schema_version);
    bool stall = d12dred_report_is_stall(r);
    if (stall) { /* the device was not removed: no reason, no removal state (issue 32 item 4) */
        d12__dred_buf_puts(b, "  kind          ");
        d12__dred_put_stall(b, r);
        d12__dred_buf_puts(b, "\n");
    } else {
        d12__dred_buf_puts(b, "  reason        ");
        put_text(b, r->reason_name ? r->reason_name : "?");
        d12__dred_buf_printf(b, " (0x%08" PRIx32 ")\n", (uint32_t)r->reason);
        d12__dred_buf_puts(b, "  device state  ");
        put_enum(b, d12_dred_device_state_name(r->device_state), r->device_state);
        d12__dred_buf_puts(b, "\n");
    }
    const char *verdict = d12dred_report_wait_verdict(r); /* the deadlock, or a fence that went backwards */
    if (verdict) {
        d12__dred_buf_puts(b, "  verdict       ");
        put_text(b, verdict);
        d12__dred_buf_puts(b, "\n");
    }
    d12__dred_buf_puts(b, "  features     ");
    const d12dred_features *f = &r->features;
    int any = 0;
    if (f->auto_breadcrumbs)
        d12__dred_buf_printf(b, "%s auto-breadcrumbs%s", any++ ? "," : "", f->markers_only ? " (markers only)" : "");
    if (f->breadcrumb_contexts)
        d12__dred_buf_printf(b, "%s breadcrumb-contexts", any++ ? "," : "");
    if (f->page_fault)
        d12__dred_buf_printf(b, "%s page-fault", any++ ? "," : "");
    if (f->watson_dump)
        d12__dred_buf_printf(b, "%s watson-dump", any++ ? "," : "");
    d12__dred_buf_puts(b, any ? "\n" : " none\n");
    if (r->runtime_version) {
        d12__dred_buf_puts(b, "  runtime       ");
        put_text(b, r->runtime_version);
        d12__dred_buf_puts(b, "\n");
    }
    if (r->driver) {
        d12__dred_buf_puts(b, "  driver        ");
        put_text(b, r->driver);
        d12__dred_buf_puts(b, "\n");
    }
    if (r->process_name || r->process_id) {
        d12__dred_buf_puts(b, "  process       ");
        put_text(b, r->process_name ? r->process_name : "?");
        d12__dred_buf_printf(b, " (pid %" PRIu32 ")\n", r->process_id);
    }
    if (r->timestamp) {
        d12__dred_buf_puts(b, "  time          ");
        put_text(b, r->timestamp);
        d12__dred_buf_puts(b, "\n");
    }
    if (r->tdr_delay_ms)
        d12__dred_buf_printf(b, "  TDR delay     %" PRIu32 " ms\n", r->tdr_delay_ms);
    if (r->removed_by) {
        d12__dred_buf_puts(b, "  cause         ");
        put_text(b, r->removed_by);
        d12__dred_buf_puts(b, "\n");
    }
    for (size_t i = 0; i < r->note_count; i++) {
        d12__dred_buf_puts(b, "  note          ");
        put_text(b, r->notes[i]);
        d12__dred_buf_puts(b, "\n");
    }
}

/* ---- Queues ------------------------------------------------------------------------------------------------ */

/* A fence's value as the report saw it: before removal forced UINT64_MAX, or, in a stall report, now. */
static const char *value_when(const d12dred_report *r)
{
    return d12dred_report_is_stall(r) ? "when the stall was reported" : "before removal";
}

static void put_wait_fence(buf *b, const d12dred_report *r, const d12dred_wait *w)
{
    d12__dred_put_fence(b, r, w->fence, w->has_fence_id, w->fence_id);
}

static void render_queue(buf *b, const d12dred_report *r, const d12dred_queue *q)
{
    d12__dred_buf_puts(b, "  queue ");
    put_name(b, q->name);
    const char *type = d12dred_queue_type_name(q->type);
    if (type)
        d12__dred_buf_printf(b, " (%s)", type);
    else
        d12__dred_buf_printf(b, " (type %" PRIu32 ")", q->type);
    d12__dred_buf_puts(b, q->faulted ? "  <- faulted here\n" : "\n");
    if (q->submission_count == 0 && q->wait_count == 0)
        d12__dred_buf_puts(b, "    nothing outstanding\n");
    for (size_t i = 0; i < q->submission_count; i++) {
        const d12dred_submission *s = q->submissions[i];
        char number[24] = "?";  /* 0: not numbered yet (removed while being handed to the driver) */
        if (s->sequence)
            snprintf(number, sizeof number, "%" PRIu64, s->sequence);
        if (s->waiting_on) { /* "not started (waiting on '<fence>' >= V, at V' before removal)" */
            d12__dred_buf_printf(b, "    submission #%-4s not started (waiting on ", number);
            put_wait_fence(b, r, s->waiting_on);
            d12__dred_buf_printf(b, " >= %" PRIu64 ", at %" PRIu64 " %s)", s->waiting_on->value,
                                 s->waiting_on->fence_value, value_when(r));
        } else {
            d12__dred_buf_printf(b, "    submission #%-4s %-12s", number, d12__dred_status_text(s->status));
        }
        for (size_t j = 0; j < s->list_count; j++) {
            d12__dred_buf_puts(b, j ? ", " : " ");
            put_name(b, s->lists[j].list);
            if (s->lists[j].node >= 0)
                d12__dred_buf_printf(b, " [node %" PRId32 "]", s->lists[j].node);
        }
        d12__dred_buf_puts(b, "\n");
    }
    for (size_t i = 0; i < q->wait_count; i++) {
        const d12dred_wait *w = &q->waits[i];
        d12__dred_buf_puts(b, "    pending wait  fence ");
        put_wait_fence(b, r, w);
        d12__dred_buf_printf(b, " >= %" PRIu64 " (%s %" PRIu64 " %s)\n", w->value,
                             d12dred_report_is_stall(r) ? "at" : "was", w->fence_value, value_when(r));
        if (w->backwards) {
            d12__dred_buf_puts(b, "                  ");
            put_text(b, w->backwards);
            d12__dred_buf_puts(b, "\n");
        }
    }
    for (size_t i = 0; i < q->signal_count; i++) {
        const d12dred_wait *sig = &q->signals[i];
        d12__dred_buf_puts(b, "    queued signal fence ");
        put_wait_fence(b, r, sig);
        d12__dred_buf_printf(b, " = %" PRIu64 " (%s %" PRIu64 " %s)", sig->value,
                             d12dred_report_is_stall(r) ? "at" : "was", sig->fence_value, value_when(r));
        if (sig->behind_wait >= 0 && (size_t)sig->behind_wait < q->wait_count) {
            d12__dred_buf_puts(b, ", behind the wait on ");
            put_wait_fence(b, r, &q->waits[sig->behind_wait]);
        }
        d12__dred_buf_puts(b, "\n");
    }
}

/* `fences` (issue 32 item 3): each fence the waits and signals name, its highest value and its last changes. */
static void render_fences(buf *b, const d12dred_report *r)
{
    for (size_t i = 0; i < r->fence_count; i++) {
        const d12dred_fence *f = r->fences[i];
        d12__dred_buf_puts(b, "  fence ");
        d12__dred_put_fence(b, r, f->name, 1, f->id);
        d12__dred_buf_printf(b, ": %" PRIu64 " %s, highest %" PRIu64, f->value, value_when(r), f->highest);
        if (f->change_count)
            d12__dred_buf_puts(b, "; last changes");
        for (size_t j = 0; j < f->change_count; j++) {
            d12__dred_buf_printf(b, "%s%" PRIu64 " by ", j ? ", " : " ", f->changes[j].value);
            put_text(b, f->changes[j].by ? f->changes[j].by : "?");
            d12__dred_buf_puts(b, " (");
            put_text(b, f->changes[j].call ? f->changes[j].call : "?");
            d12__dred_buf_puts(b, ")");
        }
        d12__dred_buf_puts(b, "\n");
    }
}

/* ---- Nodes ------------------------------------------------------------------------------------------------- */

/* From what the GPU reported (the node's `status`; derived from the counts for an older report). */
const char *d12__dred_node_status_text(const d12dred_node *n)
{
    switch (d12dred_node_status(n)) {
    case D12DRED_SUBMISSION_COMPLETED: return "all ops completed";
    case D12DRED_SUBMISSION_IN_PROGRESS: return "in progress";
    default: return "not started";
    }
}

int d12__dred_node_has_attribution(const d12dred_node *n)
{
    for (size_t i = 0; i < n->op_count; i++)
        if (n->ops[i].attribution != D12DRED_ATTRIBUTION_NONE)
            return 1;
    return 0;
}

/* The name right after the address, then where in it the VA lies: " + 0x10000 (at its end; ...)". */
static void put_site(buf *b, const char *resource, const d12dred_va_site *site)
{
    put_name(b, resource);
    if (site->has_offset && site->offset)
        d12__dred_buf_printf(b, " + 0x%" PRIx64, site->offset);
    if (site->note) {
        d12__dred_buf_puts(b, " (");
        put_text(b, site->note);
        d12__dred_buf_puts(b, ")");
    }
}

static void put_copy_side(buf *b, const d12dred_copy_side *side, uint64_t bytes)
{
    put_name(b, side->resource);
    d12__dred_buf_printf(b, " [+0x%" PRIx64 ", +0x%" PRIx64 ")", side->offset, side->offset + bytes);
    if (side->site.note) {
        d12__dred_buf_puts(b, " (");
        put_text(b, side->site.note);
        d12__dred_buf_puts(b, ")");
    }
}

void d12__dred_render_state(buf *b, unsigned indent, const d12dred_op_state *s)
{
    if (s->arguments) {
        put_indent(b, indent);
        d12__dred_buf_puts(b, "arguments   ");
        put_text(b, s->arguments);
        d12__dred_buf_puts(b, "\n");
    }
    for (size_t i = 0; i < s->vertex_buffer_count; i++) {
        const d12dred_vertex_buffer *v = &s->vertex_buffers[i];
        put_indent(b, indent);
        d12__dred_buf_printf(b, "VB slot %-3" PRIu32 " 0x%" PRIx64 ", %" PRIu32 " bytes, stride %" PRIu32 ", ", v->slot,
                             v->va, v->size, v->stride);
        put_site(b, v->resource, &v->site);
        d12__dred_buf_puts(b, "\n");
    }
    if (s->has_index_buffer) {
        const d12dred_index_buffer *ib = &s->index_buffer;
        put_indent(b, indent);
        d12__dred_buf_printf(b, "IB          0x%" PRIx64 ", %" PRIu32 " bytes, ", ib->va, ib->size);
        put_index_format(b, ib->format);
        d12__dred_buf_puts(b, ", ");
        put_site(b, ib->resource, &ib->site);
        d12__dred_buf_puts(b, "\n");
    }
    for (size_t i = 0; i < s->root_descriptor_count; i++) {
        const d12dred_root_descriptor *rd = &s->root_descriptors[i];
        const char *kind = d12dred_root_kind_name(rd->kind);
        put_indent(b, indent);
        d12__dred_buf_printf(b, "root %-3" PRIu32 "    %s 0x%" PRIx64 ", ", rd->parameter, kind ? kind : "?", rd->va);
        put_site(b, rd->resource, &rd->site);
        if (rd->kind == D12DRED_ROOT_UAV)
            d12__dred_buf_puts(b, " (write)"); /* a UAV is written through, not only read */
        d12__dred_buf_puts(b, "\n");
    }
    if (s->has_copy) {
        put_indent(b, indent);
        d12__dred_buf_puts(b, "copy        src ");
        put_copy_side(b, &s->copy_src, s->copy_bytes);
        d12__dred_buf_puts(b, " -> dst ");
        put_copy_side(b, &s->copy_dst, s->copy_bytes);
        d12__dred_buf_puts(b, "\n");
    }
}

/* `#i NAME(n) "context"  <- marks`: an op's line without its indentation. */
void d12__dred_put_op_line(buf *b, const d12dred_report *r, const d12dred_node *n, const d12dred_op *op,
                           int first_outstanding_mark)
{
    d12__dred_buf_printf(b, "#%" PRIu32 " ", op->index);
    put_op_name(b, op->op);
    if (op->context) {
        d12__dred_buf_puts(b, " \"");
        put_text(b, op->context);
        d12__dred_buf_puts(b, "\"");
    }
    int marks = 0;
    if (op->attribution == D12DRED_ATTRIBUTION_EXACT)
        d12__dred_buf_printf(b, "%s%s (exact)", marks++ ? ", " : "  <- ", r->device_state == 3 ? "HANG" : "FAULT");
    if (op->attribution == D12DRED_ATTRIBUTION_SUSPECT)
        d12__dred_buf_printf(b, "%sfirst outstanding (suspect)", marks++ ? ", " : "  <- ");
    else if (first_outstanding_mark && op->index == n->completed_count && op->attribution == D12DRED_ATTRIBUTION_NONE)
        d12__dred_buf_printf(b, "%sfirst outstanding", marks++ ? ", " : "  <- ");
    if (n->completed_count > 0 && op->index == n->completed_count - 1)
        d12__dred_buf_printf(b, "%slast completed", marks++ ? ", " : "  <- ");
}

static void render_op(buf *b, const d12dred_report *r, const d12dred_node *n, const d12dred_op *op,
                      int first_outstanding_mark)
{
    unsigned indent = 4 + 2 * (op->depth > 32 ? 32 : op->depth);
    put_indent(b, indent);
    d12__dred_put_op_line(b, r, n, op, first_outstanding_mark);
    d12__dred_buf_puts(b, "\n");
    if (op->bundle_draw) { /* the draw inside the bundle, whose state follows (issue 32 item 1) */
        put_indent(b, indent + 5);
        d12__dred_put_bundle_draw(b, op->bundle_draw);
        d12__dred_buf_puts(b, "\n");
    }
    if (op->state)
        d12__dred_render_state(b, indent + 5, op->state);
    for (size_t i = 0; i < op->message_count; i++)
        put_message(b, indent + 5, &op->messages[i]);
}

/* Whether a long node shows this op: near the completed count, or marked, or carrying state or messages, or a
 * BEGINEVENT enclosing an attributed or the last completed op (`in_stack`: its event stack, issue 19 item 2). */
int d12__dred_op_shown(const d12dred_node *n, const d12dred_op *op, const unsigned char *in_stack)
{
    if (n->op_count <= RENDER_FULL_NODE_OPS || (in_stack && in_stack[op - n->ops]))
        return 1;
    uint64_t v = n->completed_count;
    uint64_t lo = v > RENDER_OPS_BEFORE ? v - RENDER_OPS_BEFORE : 0;
    return (op->index >= lo && op->index <= v + RENDER_OPS_AFTER) || op->attribution != D12DRED_ATTRIBUTION_NONE ||
           op->state || op->message_count;
}

/* The ops of a node that are on the event stack of an attributed op or of the last completed one: the JSON's
 * `event_stack` where the report has it, else the BEGINEVENT/ENDEVENT nesting of the kept ops (an older report).
 * NULL when out of memory (then only the window is shown). */
unsigned char *d12__dred_event_stacks(const d12dred_node *n)
{
    unsigned char *in_stack = calloc(n->op_count ? n->op_count : 1, 1);
    size_t *open = malloc((n->op_count ? n->op_count : 1) * sizeof *open);
    if (!in_stack || !open) {
        free(in_stack);
        free(open);
        return NULL;
    }
    size_t depth = 0;
    for (size_t i = 0; i < n->op_count; i++) {
        const d12dred_op *op = &n->ops[i];
        if (op->op == 2 && depth > 0) /* ENDEVENT */
            depth--;
        int target = op->attribution != D12DRED_ATTRIBUTION_NONE ||
                     (n->completed_count > 0 && op->index == n->completed_count - 1);
        if (target && op->has_event_stack) {
            for (size_t k = 0; k < op->event_stack_count; k++) {
                d12dred_op *begin = d12dred_node_find_op((d12dred_node *)n, op->event_stack[k]);
                if (begin)
                    in_stack[begin - n->ops] = 1;
            }
        } else if (target) {
            for (size_t k = 0; k < depth; k++)
                in_stack[open[k]] = 1;
        }
        if (op->op == 1) /* BEGINEVENT */
            open[depth++] = i;
    }
    free(open);
    return in_stack;
}

void d12__dred_put_node_title(buf *b, size_t index, const d12dred_node *n)
{
    d12__dred_buf_printf(b, "node %zu: list ", index);
    put_name(b, n->list);
    d12__dred_buf_puts(b, " on queue ");
    put_name(b, n->queue);
    if (n->submission)
        d12__dred_buf_printf(b, ", submission #%" PRIu64, n->submission);
    else
        d12__dred_buf_puts(b, ", submission #?");
}

static void render_node(buf *b, const d12dred_report *r, size_t index, const d12dred_node *n)
{
    d12__dred_buf_puts(b, "  ");
    d12__dred_put_node_title(b, index, n);
    d12__dred_buf_printf(b, "\n    %" PRIu32 " of %" PRIu32 " ops completed (%s)\n", n->completed_count,
                         n->breadcrumb_count, d12__dred_node_status_text(n));
    if (n->op_count && n->ops[0].index > 0)
        d12__dred_buf_printf(b, "    only the last %zu of %" PRIu32 " ops are kept\n", n->op_count,
                             n->breadcrumb_count);
    int mark_first = !d12__dred_node_has_attribution(n) && n->completed_count < n->breadcrumb_count;
    unsigned char *in_stack = n->op_count > RENDER_FULL_NODE_OPS ? d12__dred_event_stacks(n) : NULL;
    size_t hidden = 0;
    uint32_t hidden_from = 0;
    for (size_t i = 0; i < n->op_count; i++) {
        const d12dred_op *op = &n->ops[i];
        if (!d12__dred_op_shown(n, op, in_stack)) {
            if (hidden++ == 0)
                hidden_from = op->index;
            continue;
        }
        if (hidden)
            d12__dred_buf_printf(b, "    ... %zu ops (#%" PRIu32 "..#%" PRIu32 ") ...\n", hidden, hidden_from,
                                 n->ops[i - 1].index);
        hidden = 0;
        render_op(b, r, n, op, mark_first);
    }
    if (hidden)
        d12__dred_buf_printf(b, "    ... %zu ops (#%" PRIu32 "..#%" PRIu32 ") ...\n", hidden, hidden_from,
                             n->ops[n->op_count - 1].index);
    free(in_stack);
}

/* ---- Page fault -------------------------------------------------------------------------------------------- */

void d12__dred_put_allocation(buf *b, const d12dred_allocation *a)
{
    put_name(b, a->name);
    const char *type = d12_dred_allocation_type_name(a->type);
    if (type)
        d12__dred_buf_printf(b, " %s", type);
    else
        d12__dred_buf_printf(b, " type %" PRIu32, a->type);
    d12__dred_buf_printf(b, " [0x%" PRIx64 ", 0x%" PRIx64 ")", a->va, a->va + a->size);
    if (a->width)
        d12__dred_buf_printf(b, ", width %" PRIu64, a->width);
    if (a->freed)
        d12__dred_buf_puts(b, a->freed_after_recording ? ", released after the list was recorded" : ", released");
}

void d12__dred_put_verdict(buf *b, const d12dred_page_fault *pf)
{
    switch (pf->verdict) {
    case D12DRED_VERDICT_USE_AFTER_FREE:
        d12__dred_buf_puts(b, "use-after-free");
        if (pf->freed_count) {
            const d12dred_allocation *a = pf->freed[0];
            d12__dred_buf_puts(b, ": ");
            put_name(b, a->name);
            d12__dred_buf_printf(b, " + 0x%" PRIx64 "%s", pf->va - a->va,
                                 a->freed_after_recording ? ", released after the list was recorded" : ", released");
        }
        break;
    case D12DRED_VERDICT_OUT_OF_BOUNDS:
        d12__dred_buf_puts(b, "out-of-bounds");
        if (pf->below) {
            const d12dred_allocation *a = pf->below;
            d12__dred_buf_puts(b, ": ");
            put_name(b, a->name);
            d12__dred_buf_printf(b, " + 0x%" PRIx64 ", ", pf->va - a->va);
            /* past its Width (what the application asked for), not past the 64 KiB-rounded range: the first byte of
             * the guard gap is 0 bytes past the range but may be kilobytes past the buffer */
            if (pf->has_overrun) /* the access's overrun, never "0 bytes past its end" (issue 32 item 6) */
                d12__dred_buf_printf(b, "the access runs 0x%" PRIx64 " (%" PRIu64 ") bytes past its end", pf->overrun,
                                     pf->overrun);
            else if (a->width && pf->va == a->va + a->width)
                d12__dred_buf_puts(b, "the first byte past its end");
            else {
                d12__dred_put_distance(b, a->width && pf->va >= a->va + a->width ? pf->va - (a->va + a->width)
                                                                                 : a->distance);
                d12__dred_buf_puts(b, " past its end");
            }
        }
        break;
    case D12DRED_VERDICT_NEVER_MAPPED:
        d12__dred_buf_puts(b, "never-mapped: no allocation, live or recently freed, ever held this VA");
        break;
    default:
        d12__dred_buf_puts(b, "none");
    }
}

static void render_page_fault(buf *b, const d12dred_page_fault *pf)
{
    d12__dred_buf_puts(b, "\nPage fault\n");
    d12__dred_buf_printf(b, "  VA            0x%" PRIx64 " (%s", pf->va, (pf->flags & 1u) ? "write" : "read");
    if (pf->flags & ~1u)
        d12__dred_buf_printf(b, ", flags 0x%" PRIx32, pf->flags);
    d12__dred_buf_puts(b, ")\n");
    d12__dred_buf_puts(b, "  verdict       ");
    d12__dred_put_verdict(b, pf);
    d12__dred_buf_puts(b, "\n");
    if (pf->detail) {
        d12__dred_buf_puts(b, "  detail        ");
        put_text(b, pf->detail);
        d12__dred_buf_puts(b, "\n");
    }
    if (pf->aliasing) {
        d12__dred_buf_puts(b, "  aliasing      ");
        put_text(b, pf->aliasing);
        d12__dred_buf_puts(b, "\n");
    }
    d12__dred_buf_puts(b, "  existing     ");
    if (!pf->existing_count)
        d12__dred_buf_puts(b, " none");
    for (size_t i = 0; i < pf->existing_count; i++) {
        d12__dred_buf_puts(b, i ? "\n                " : " ");
        d12__dred_put_allocation(b, pf->existing[i]);
    }
    d12__dred_buf_puts(b, "\n  freed        ");
    if (!pf->freed_count)
        d12__dred_buf_puts(b, " none");
    for (size_t i = 0; i < pf->freed_count; i++) {
        d12__dred_buf_puts(b, i ? "\n                " : " ");
        d12__dred_put_allocation(b, pf->freed[i]);
    }
    d12__dred_buf_puts(b, "\n");
    if (pf->below) {
        d12__dred_buf_puts(b, "  nearest below ");
        d12__dred_put_allocation(b, pf->below);
        d12__dred_buf_puts(b, ", ends ");
        d12__dred_put_distance(b, pf->below->distance);
        d12__dred_buf_puts(b, " below the VA\n");
    }
    if (pf->above) {
        d12__dred_buf_puts(b, "  nearest above ");
        d12__dred_put_allocation(b, pf->above);
        d12__dred_buf_puts(b, ", starts ");
        d12__dred_put_distance(b, pf->above->distance);
        d12__dred_buf_puts(b, " above the VA\n");
    }
}

int d12__dred_emit(buf *b, FILE *out)
{
    if (b->failed) {
        free(b->data);
        return -1;
    }
    int ok = !b->length || fwrite(b->data, 1, b->length, out) == b->length;
    free(b->data);
    return ok && fflush(out) == 0 ? 0 : -1;
}

int d12dred_report_render(const d12dred_report *r, FILE *out)
{
    if (!r || !out)
        return -1;
    buf b = {0};
    render_header(&b, r);
    d12__dred_buf_puts(&b, "\nQueues\n");
    if (!r->queue_count)
        d12__dred_buf_puts(&b, "  none recorded\n");
    for (size_t i = 0; i < r->queue_count; i++)
        render_queue(&b, r, r->queues[i]);
    render_fences(&b, r);
    bool stall = d12dred_report_is_stall(r);
    d12__dred_buf_puts(&b, stall ? "\nCommand lists outstanding now\n" : "\nCommand lists outstanding at removal\n");
    if (!r->node_count)
        d12__dred_buf_puts(&b, r->features.auto_breadcrumbs ? "  none\n" : "  none (auto-breadcrumbs were off)\n");
    for (size_t i = 0; i < r->node_count; i++)
        render_node(&b, r, i, r->nodes[i]);
    if (r->page_fault)
        render_page_fault(&b, r->page_fault);
    else if (!stall) /* a stall is no removal: it has no page-fault section (issue 32 item 4) */
        d12__dred_buf_puts(&b, r->features.page_fault ? "\nPage fault\n  none (the removal was no page fault)\n"
                                                      : "\nPage fault\n  no data (page-fault reporting was off)\n");
    if (r->flush_message_count) {
        d12__dred_buf_puts(&b, "\nDriver messages of the removal flush\n");
        for (size_t i = 0; i < r->flush_message_count; i++)
            put_message(&b, 2, &r->flush_messages[i]);
    }
    return emit(&b, out);
}
