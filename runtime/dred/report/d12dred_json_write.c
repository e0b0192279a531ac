/* d12dred_report -> JSON (schema_version 1, docs/dred-report.md). Deterministic: fixed key order, two-space
 * indentation, one op per line (a node may hold 65 536), every key always present (absent strings are null). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12_dred_names.h"
#include "d12dred_internal.h"
#include "d12dred_report.h"

/* ---- Text buffer ------------------------------------------------------------------------------------------- */

static int buf_reserve(d12__dred_buf *buf, size_t extra)
{
    if (buf->failed)
        return -1;
    if (extra > SIZE_MAX - buf->length - 1) {
        buf->failed = 1;
        return -1;
    }
    size_t needed = buf->length + extra + 1;
    if (needed <= buf->capacity)
        return 0;
    size_t capacity = buf->capacity ? buf->capacity : 256;
    while (capacity < needed)
        capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    char *grown = realloc(buf->data, capacity);
    if (!grown) {
        buf->failed = 1;
        return -1;
    }
    buf->data = grown;
    buf->capacity = capacity;
    return 0;
}

void d12__dred_buf_append(d12__dred_buf *buf, const char *text, size_t length)
{
    if (buf_reserve(buf, length) != 0)
        return;
    memcpy(buf->data + buf->length, text, length);
    buf->length += length;
    buf->data[buf->length] = '\0';
}

void d12__dred_buf_puts(d12__dred_buf *buf, const char *text)
{
    d12__dred_buf_append(buf, text, strlen(text));
}

void d12__dred_buf_printf(d12__dred_buf *buf, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char small[256];
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0) {
        buf->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        d12__dred_buf_append(buf, small, (size_t)n);
        return;
    }
    if (buf_reserve(buf, (size_t)n) != 0)
        return;
    va_start(args, format);
    vsnprintf(buf->data + buf->length, (size_t)n + 1, format, args);
    va_end(args);
    buf->length += (size_t)n;
}

/* ---- JSON emitter ------------------------------------------------------------------------------------------ */

/* Containers open at `depth`; `inline_depth` > 0 while inside a container written on one line. `first` says
 * whether the current container has no member yet. */
typedef struct writer {
    d12__dred_buf buf;
    unsigned depth;
    unsigned inline_from;  /* 0: not inline; else the depth at which the one-line container opened */
    int first;
} writer;

static void newline(writer *w)
{
    if (w->inline_from) {
        d12__dred_buf_puts(&w->buf, w->first ? "" : " ");
        return;
    }
    d12__dred_buf_puts(&w->buf, "\n");
    for (unsigned i = 0; i < w->depth; i++)
        d12__dred_buf_puts(&w->buf, "  ");
}

/* Starts a member: the comma, the line break and the key (NULL inside an array). */
static void member(writer *w, const char *key)
{
    if (!w->first)
        d12__dred_buf_puts(&w->buf, ",");
    newline(w);
    w->first = 0;
    if (key)
        d12__dred_buf_printf(&w->buf, "\"%s\": ", key);
}

static void open_container(writer *w, const char *key, char bracket, int one_line)
{
    member(w, key);
    d12__dred_buf_append(&w->buf, &bracket, 1);
    w->depth++;
    if (one_line && !w->inline_from)
        w->inline_from = w->depth;
    w->first = 1;
}

static void close_container(writer *w, char bracket)
{
    int empty = w->first;
    w->depth--;
    if (w->inline_from && w->inline_from > w->depth) {
        w->inline_from = 0;
    } else if (!empty) {
        w->first = 1;  /* the closing bracket goes on its own line without a separator */
        newline(w);
    }
    d12__dred_buf_append(&w->buf, &bracket, 1);
    w->first = 0;
}

static void begin_object(writer *w, const char *key) { open_container(w, key, '{', 0); }
static void begin_inline_object(writer *w, const char *key) { open_container(w, key, '{', 1); }
static void end_object(writer *w) { close_container(w, '}'); }
static void begin_array(writer *w, const char *key) { open_container(w, key, '[', 0); }
static void end_array(writer *w) { close_container(w, ']'); }

static void string_body(writer *w, const char *text)
{
    d12__dred_buf_puts(&w->buf, "\"");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': d12__dred_buf_puts(&w->buf, "\\\""); break;
        case '\\': d12__dred_buf_puts(&w->buf, "\\\\"); break;
        case '\n': d12__dred_buf_puts(&w->buf, "\\n"); break;
        case '\r': d12__dred_buf_puts(&w->buf, "\\r"); break;
        case '\t': d12__dred_buf_puts(&w->buf, "\\t"); break;
        case '\b': d12__dred_buf_puts(&w->buf, "\\b"); break;
        case '\f': d12__dred_buf_puts(&w->buf, "\\f"); break;
        default:
            if (*p < 0x20)
                d12__dred_buf_printf(&w->buf, "\\u%04x", *p);
            else
                d12__dred_buf_append(&w->buf, (const char *)p, 1);
        }
    }
    d12__dred_buf_puts(&w->buf, "\"");
}

/* The model's strings are sanitized UTF-8 when built through the API; a hand-edited struct is sanitized here. */
static void string_value(writer *w, const char *key, const char *text)
{
    member(w, key);
    if (!text) {
        d12__dred_buf_puts(&w->buf, "null");
        return;
    }
    char *clean = d12dred_utf8_sanitize(text, strlen(text));
    if (!clean) {
        w->buf.failed = 1;
        return;
    }
    string_body(w, clean);
    free(clean);
}

static void uint_value(writer *w, const char *key, uint64_t value)
{
    member(w, key);
    d12__dred_buf_printf(&w->buf, "%" PRIu64, value);
}

static void int_value(writer *w, const char *key, int64_t value)
{
    member(w, key);
    d12__dred_buf_printf(&w->buf, "%" PRId64, value);
}

static void bool_value(writer *w, const char *key, bool value)
{
    member(w, key);
    d12__dred_buf_puts(&w->buf, value ? "true" : "false");
}

/* GPU virtual addresses are hex strings: readable, and exact in every JSON reader (no 2^53 limit). */
static void va_value(writer *w, const char *key, uint64_t va)
{
    char text[24];
    snprintf(text, sizeof text, "0x%" PRIx64, va);
    string_value(w, key, text);
}

/* An enum as {"value": N, "name": "NAME"} (name null when unknown: the number stays exact). */
static void enum_value(writer *w, const char *key, uint32_t value, const char *name)
{
    begin_inline_object(w, key);
    uint_value(w, "value", value);
    string_value(w, "name", name);
    end_object(w);
}

/* ---- The report -------------------------------------------------------------------------------------------- */

static void write_message(writer *w, const d12dred_message *message)
{
    begin_inline_object(w, NULL);
    uint_value(w, "id", message->id);
    enum_value(w, "category", message->category, d12dred_category_name(message->category));
    enum_value(w, "severity", message->severity, d12dred_severity_name(message->severity));
    string_value(w, "text", message->text);
    end_object(w);
}

static void write_messages(writer *w, const char *key, const d12dred_message *messages, size_t count)
{
    begin_array(w, key);
    for (size_t i = 0; i < count; i++)
        write_message(w, &messages[i]);
    end_array(w);
}

static void null_value(writer *w, const char *key)
{
    member(w, key);
    d12__dred_buf_puts(&w->buf, "null");
}

/* Issue 19 item 3: `offset` (hex, or null) and `note` of a state VA. */
static void write_site(writer *w, const d12dred_va_site *site)
{
    if (site->has_offset)
        va_value(w, "offset", site->offset);
    else
        null_value(w, "offset");
    string_value(w, "note", site->note);
}

static void write_copy_side(writer *w, const char *key, const d12dred_copy_side *side)
{
    begin_inline_object(w, key);
    va_value(w, "va", side->va);
    va_value(w, "offset", side->offset);
    string_value(w, "resource", side->resource);
    string_value(w, "note", side->site.note);
    end_object(w);
}

static void write_state(writer *w, const d12dred_op_state *state)
{
    if (!state) {
        member(w, "state");
        d12__dred_buf_puts(&w->buf, "null");
        return;
    }
    begin_object(w, "state");
    string_value(w, "arguments", state->arguments);
    begin_array(w, "vertex_buffers");
    for (size_t i = 0; i < state->vertex_buffer_count; i++) {
        const d12dred_vertex_buffer *view = &state->vertex_buffers[i];
        begin_inline_object(w, NULL);
        uint_value(w, "slot", view->slot);
        va_value(w, "va", view->va);
        uint_value(w, "size", view->size);
        uint_value(w, "stride", view->stride);
        string_value(w, "resource", view->resource);
        write_site(w, &view->site);
        end_object(w);
    }
    end_array(w);
    if (state->has_index_buffer) {
        const d12dred_index_buffer *view = &state->index_buffer;
        begin_inline_object(w, "index_buffer");
        va_value(w, "va", view->va);
        uint_value(w, "size", view->size);
        uint_value(w, "format", view->format);
        string_value(w, "resource", view->resource);
        write_site(w, &view->site);
        end_object(w);
    } else {
        member(w, "index_buffer");
        d12__dred_buf_puts(&w->buf, "null");
    }
    begin_array(w, "root_descriptors");
    for (size_t i = 0; i < state->root_descriptor_count; i++) {
        const d12dred_root_descriptor *root = &state->root_descriptors[i];
        begin_inline_object(w, NULL);
        uint_value(w, "parameter", root->parameter);
        string_value(w, "kind", d12dred_root_kind_name(root->kind));
        va_value(w, "va", root->va);
        string_value(w, "resource", root->resource);
        write_site(w, &root->site);
        string_value(w, "access", root->kind == D12DRED_ROOT_UAV ? "write" : "read");
        end_object(w);
    }
    end_array(w);
    if (state->has_copy) {
        begin_object(w, "copy");
        uint_value(w, "bytes", state->copy_bytes);
        write_copy_side(w, "src", &state->copy_src);
        write_copy_side(w, "dst", &state->copy_dst);
        end_object(w);
    } else {
        null_value(w, "copy");
    }
    end_object(w);
}

static void write_op(writer *w, const d12dred_op *op)
{
    /* A plain op is one line; the faulting op, with state and messages, is spread out. */
    int plain = !op->state && op->message_count == 0;
    if (plain)
        begin_inline_object(w, NULL);
    else
        begin_object(w, NULL);
    uint_value(w, "index", op->index);
    uint_value(w, "op", op->op);
    string_value(w, "name", d12_dred_op_name(op->op));
    uint_value(w, "depth", op->depth);
    string_value(w, "context", op->context);
    string_value(w, "attribution", d12dred_attribution_name(op->attribution));
    write_state(w, op->state);
    write_messages(w, "messages", op->messages, op->message_count);
    if (op->has_event_stack) {
        member(w, "event_stack");
        d12__dred_buf_puts(&w->buf, "[");
        for (size_t i = 0; i < op->event_stack_count; i++)
            d12__dred_buf_printf(&w->buf, "%s%" PRIu32, i ? ", " : "", op->event_stack[i]);
        d12__dred_buf_puts(&w->buf, "]");
    } else {
        null_value(w, "event_stack");
    }
    if (op->bundle_draw) { /* additive (issue 32 item 1): absent when the op has none */
        begin_inline_object(w, "bundle_draw");
        string_value(w, "bundle", op->bundle_draw->bundle);
        uint_value(w, "position", op->bundle_draw->position);
        uint_value(w, "op", op->bundle_draw->op);
        string_value(w, "name", d12_dred_op_name(op->bundle_draw->op));
        bool_value(w, "named", op->bundle_draw->named);
        end_object(w);
    }
    end_object(w);
}

static void write_node(writer *w, const d12dred_node *node)
{
    begin_object(w, NULL);
    string_value(w, "list", node->list);
    string_value(w, "queue", node->queue);
    uint_value(w, "submission", node->submission);
    uint_value(w, "breadcrumb_count", node->breadcrumb_count);
    uint_value(w, "completed_count", node->completed_count);
    string_value(w, "status", d12dred_submission_status_name(d12dred_node_status(node)));
    begin_array(w, "ops");
    for (size_t i = 0; i < node->op_count; i++)
        write_op(w, &node->ops[i]);
    end_array(w);
    end_object(w);
}

/* `fence_id` (issue 32, additive): the fence's identity, a hex string like a VA, or null when unknown. */
static void fence_id_value(writer *w, const d12dred_wait *wait)
{
    if (wait->has_fence_id)
        va_value(w, "fence_id", wait->fence_id);
    else
        null_value(w, "fence_id");
}

/* `fences` (issue 32, additive): each fence with its highest value and last changes, oldest first. */
static void write_fences(writer *w, const d12dred_report *report)
{
    begin_array(w, "fences");
    for (size_t i = 0; i < report->fence_count; i++) {
        const d12dred_fence *f = report->fences[i];
        begin_object(w, NULL);
        va_value(w, "id", f->id);
        string_value(w, "name", f->name);
        uint_value(w, "value", f->value);
        uint_value(w, "highest", f->highest);
        begin_array(w, "changes");
        for (size_t j = 0; j < f->change_count; j++) {
            begin_inline_object(w, NULL);
            uint_value(w, "value", f->changes[j].value);
            string_value(w, "by", f->changes[j].by);
            string_value(w, "call", f->changes[j].call);
            end_object(w);
        }
        end_array(w);
        end_object(w);
    }
    end_array(w);
}

/* `timelines` (issue 32 item 7, additive): per VA the report names, its holders' creations and releases, oldest
 * first. */
static void write_timelines(writer *w, const d12dred_report *report)
{
    begin_array(w, "timelines");
    for (size_t i = 0; i < report->timeline_count; i++) {
        const d12dred_timeline *t = report->timelines[i];
        begin_object(w, NULL);
        va_value(w, "va", t->va);
        va_value(w, "start", t->start);
        va_value(w, "end", t->end);
        uint_value(w, "earlier", t->earlier);
        begin_array(w, "events");
        for (size_t j = 0; j < t->event_count; j++) {
            const d12dred_timeline_event *e = &t->events[j];
            begin_inline_object(w, NULL);
            string_value(w, "event", e->released ? "released" : "created");
            string_value(w, "name", e->name);
            enum_value(w, "type", e->type, d12_dred_allocation_type_name(e->type));
            va_value(w, "va", e->va);
            uint_value(w, "size", e->size);
            uint_value(w, "seq", e->seq);
            uint_value(w, "ns_before", e->ns_before);
            uint_value(w, "after_submission", e->after_submission);
            string_value(w, "queue", e->queue);
            end_object(w);
        }
        end_array(w);
        end_object(w);
    }
    end_array(w);
}

static void write_queue(writer *w, const d12dred_report *report, const d12dred_queue *queue)
{
    begin_object(w, NULL);
    string_value(w, "name", queue->name);
    enum_value(w, "type", queue->type, d12dred_queue_type_name(queue->type));
    bool_value(w, "faulted", queue->faulted);
    begin_array(w, "submissions");
    for (size_t i = 0; i < queue->submission_count; i++) {
        const d12dred_submission *submission = queue->submissions[i];
        begin_inline_object(w, NULL);
        uint_value(w, "sequence", submission->sequence);
        string_value(w, "status", d12dred_submission_status_name(submission->status));
        begin_array(w, "lists");
        for (size_t j = 0; j < submission->list_count; j++) {
            begin_inline_object(w, NULL);
            string_value(w, "list", submission->lists[j].list);
            /* A reference to no node of this report (set by hand, or the node never added) is written as none. */
            int32_t node = submission->lists[j].node;
            int_value(w, "node", node >= 0 && (size_t)node < report->node_count ? node : -1);
            end_object(w);
        }
        end_array(w);
        if (submission->waiting_on) {
            begin_inline_object(w, "waiting_on");
            string_value(w, "fence", submission->waiting_on->fence);
            uint_value(w, "value", submission->waiting_on->value);
            uint_value(w, "fence_value", submission->waiting_on->fence_value);
            fence_id_value(w, submission->waiting_on);
            end_object(w);
        } else {
            null_value(w, "waiting_on");
        }
        end_object(w);
    }
    end_array(w);
    begin_array(w, "pending_waits");
    for (size_t i = 0; i < queue->wait_count; i++) {
        const d12dred_wait *wait = &queue->waits[i];
        begin_inline_object(w, NULL);
        string_value(w, "fence", wait->fence);
        uint_value(w, "value", wait->value);
        uint_value(w, "fence_value", wait->fence_value);
        uint_value(w, "after_submission", wait->after_submission);
        fence_id_value(w, wait);
        string_value(w, "backwards", wait->backwards);
        end_object(w);
    }
    end_array(w);
    begin_array(w, "queued_signals");
    for (size_t i = 0; i < queue->signal_count; i++) {
        const d12dred_wait *signal = &queue->signals[i];
        begin_inline_object(w, NULL);
        string_value(w, "fence", signal->fence);
        uint_value(w, "value", signal->value);
        uint_value(w, "fence_value", signal->fence_value);
        uint_value(w, "after_submission", signal->after_submission);
        int_value(w, "behind_wait", signal->behind_wait >= 0 && (size_t)signal->behind_wait < queue->wait_count
                                        ? signal->behind_wait : -1);
        fence_id_value(w, signal);
        end_object(w);
    }
    end_array(w);
    end_object(w);
}

static void write_allocation(writer *w, const char *key, const d12dred_allocation *allocation)
{
    if (!allocation) {
        member(w, key);
        d12__dred_buf_puts(&w->buf, "null");
        return;
    }
    begin_inline_object(w, key);
    string_value(w, "name", allocation->name);
    enum_value(w, "type", allocation->type, d12_dred_allocation_type_name(allocation->type));
    va_value(w, "va", allocation->va);
    uint_value(w, "size", allocation->size);
    uint_value(w, "width", allocation->width);
    bool_value(w, "freed", allocation->freed);
    bool_value(w, "freed_after_recording", allocation->freed_after_recording);
    uint_value(w, "distance", allocation->distance);
    end_object(w);
}

static void write_page_fault(writer *w, const d12dred_page_fault *page_fault)
{
    if (!page_fault) {
        member(w, "page_fault");
        d12__dred_buf_puts(&w->buf, "null");
        return;
    }
    begin_object(w, "page_fault");
    va_value(w, "va", page_fault->va);
    uint_value(w, "flags", page_fault->flags);
    string_value(w, "verdict", d12dred_verdict_name(page_fault->verdict));
    begin_array(w, "existing");
    for (size_t i = 0; i < page_fault->existing_count; i++)
        write_allocation(w, NULL, page_fault->existing[i]);
    end_array(w);
    begin_array(w, "freed");
    for (size_t i = 0; i < page_fault->freed_count; i++)
        write_allocation(w, NULL, page_fault->freed[i]);
    end_array(w);
    write_allocation(w, "nearest_below", page_fault->below);
    write_allocation(w, "nearest_above", page_fault->above);
    string_value(w, "detail", page_fault->detail);
    if (page_fault->has_overrun)
        uint_value(w, "overrun", page_fault->overrun);
    else
        null_value(w, "overrun");
    if (page_fault->aliasing) /* additive (issue 33): absent when no heap holds the VA */
        string_value(w, "aliasing", page_fault->aliasing);
    end_object(w);
}

static void write_report(writer *w, const d12dred_report *report)
{
    char hresult[16];
    snprintf(hresult, sizeof hresult, "0x%08" PRIx32, (uint32_t)report->reason);
    begin_object(w, NULL);
    uint_value(w, "schema_version", report->schema_version);
    begin_inline_object(w, "reason");
    string_value(w, "hresult", hresult);
    string_value(w, "name", report->reason_name);
    end_object(w);
    enum_value(w, "device_state", report->device_state, d12_dred_device_state_name(report->device_state));
    begin_inline_object(w, "features");
    bool_value(w, "auto_breadcrumbs", report->features.auto_breadcrumbs);
    bool_value(w, "breadcrumb_contexts", report->features.breadcrumb_contexts);
    bool_value(w, "markers_only", report->features.markers_only);
    bool_value(w, "page_fault", report->features.page_fault);
    bool_value(w, "watson_dump", report->features.watson_dump);
    end_object(w);
    string_value(w, "runtime_version", report->runtime_version);
    string_value(w, "timestamp", report->timestamp);
    begin_inline_object(w, "process");
    string_value(w, "name", report->process_name);
    uint_value(w, "id", report->process_id);
    end_object(w);
    string_value(w, "driver", report->driver);
    uint_value(w, "tdr_delay_ms", report->tdr_delay_ms);
    begin_array(w, "queues");
    for (size_t i = 0; i < report->queue_count; i++)
        write_queue(w, report, report->queues[i]);
    end_array(w);
    begin_array(w, "nodes");
    for (size_t i = 0; i < report->node_count; i++)
        write_node(w, report->nodes[i]);
    end_array(w);
    write_page_fault(w, report->page_fault);
    write_messages(w, "flush_messages", report->flush_messages, report->flush_message_count);
    /* Issue 19's additive members (docs/dred-report.md). */
    string_value(w, "kind", report->kind ? report->kind : "removal");
    string_value(w, "removed_by", report->removed_by);
    string_value(w, "deadlock", report->deadlock);
    begin_array(w, "notes");
    for (size_t i = 0; i < report->note_count; i++)
        string_value(w, NULL, report->notes[i]);
    end_array(w);
    /* Issue 32's additive members. */
    write_fences(w, report);
    uint_value(w, "stalled_ms", report->stalled_ms);
    write_timelines(w, report);
    end_object(w);
    d12__dred_buf_puts(&w->buf, "\n");
}

char *d12dred_report_to_json(const d12dred_report *report, size_t *length)
{
    if (!report)
        return NULL;
    writer w = {.first = 1};
    write_report(&w, report);
    if (w.buf.failed) {
        free(w.buf.data);
        return NULL;
    }
    /* write_report starts with a member() line break; drop it so the file starts with '{'. */
    if (w.buf.length && w.buf.data[0] == '\n') {
        memmove(w.buf.data, w.buf.data + 1, w.buf.length);
        w.buf.length--;
    }
    if (length)
        *length = w.buf.length;
    return w.buf.data;
}

int d12dred_report_write_json(const d12dred_report *report, FILE *out)
{
    size_t length;
    char *json = d12dred_report_to_json(report, &length);
    if (!json)
        return -1;
    int ok = fwrite(json, 1, length, out) == length && fflush(out) == 0;
    free(json);
    return ok ? 0 : -1;
}

int d12dred_report_write_file(const d12dred_report *report, const char *path)
{
    size_t length;
    char *json = d12dred_report_to_json(report, &length);
    if (!json) {
        errno = ENOMEM;
        return -1;
    }
    int rc = d12dred_write_file_atomic(path, json, length);
    int saved = errno;
    free(json);
    errno = saved;
    return rc;
}
