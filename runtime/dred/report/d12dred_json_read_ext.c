/* JSON -> model for issue 19's additive members of schema_version 1 (docs/dred-report.md): each is optional (a
 * version-1 file written before them lacks it and reads as before), and when present it is checked as strictly as
 * the rest (types, ranges, the JSON path in the error). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_json_map.h"

/* An object that has every key of `keys` (members beyond them are ignored, as everywhere). */
static int need_object(mapper *m, const jvalue *value, const char *const *keys)
{
    if (value->type != J_OBJECT)
        return map_fail(m, "expected an object, got %s", type_word(value));
    for (const char *const *k = keys; *k; k++)
        if (!get(value, *k))
            return map_fail(m, "missing key \"%s\"", *k);
    return 0;
}

/* A string-or-null member into *slot when present. */
static int opt_string(mapper *m, const jvalue *object, const char *key, char **slot)
{
    if (!get(object, key))
        return 0;
    char *text = NULL;
    if (key_string(m, object, key, &text))
        return -1;
    adopt(slot, text);
    return 0;
}

/* `fence_id` (issue 32): optional, a hex string or null. */
static int opt_fence_id(mapper *m, const jvalue *value, d12dred_wait *wait)
{
    const jvalue *id = get(value, "fence_id");
    if (!id || id->type == J_NULL)
        return 0;
    if (key_hex(m, value, "fence_id", &wait->fence_id))
        return -1;
    wait->has_fence_id = true;
    return 0;
}

int d12__dred_map_site(mapper *m, const jvalue *value, d12dred_va_site *site)
{
    const jvalue *offset = get(value, "offset");
    if (offset && offset->type != J_NULL) {
        if (key_hex(m, value, "offset", &site->offset))
            return -1;
        site->has_offset = true;
    }
    return opt_string(m, value, "note", &site->note);
}

static int map_copy_side(mapper *m, const jvalue *object, const char *key, d12dred_copy_side *side)
{
    static const char *const keys[] = {"va", "offset", "resource", "note", NULL};
    const jvalue *value = get(object, key);
    size_t mark = push_key(m, key);
    int rc = need_object(m, value, keys) || key_hex(m, value, "va", &side->va) ||
             key_hex(m, value, "offset", &side->offset) || opt_string(m, value, "resource", &side->resource) ||
             opt_string(m, value, "note", &side->site.note) ? -1 : 0;
    pop(m, mark);
    return rc;
}

int d12__dred_map_state_ext(mapper *m, const jvalue *value, d12dred_op_state *state)
{
    static const char *const keys[] = {"bytes", "src", "dst", NULL};
    const jvalue *copy = get(value, "copy");
    if (!copy || copy->type == J_NULL)
        return 0;
    size_t mark = push_key(m, "copy");
    int rc = need_object(m, copy, keys) || key_uint(m, copy, "bytes", UINT64_MAX, &state->copy_bytes) ||
             map_copy_side(m, copy, "src", &state->copy_src) || map_copy_side(m, copy, "dst", &state->copy_dst)
                 ? -1 : 0;
    pop(m, mark);
    state->has_copy = rc == 0;
    return rc;
}

/* `bundle_draw` (issue 32 item 1): optional, an object or null. */
static int map_bundle_draw(mapper *m, const jvalue *value, d12dred_op *op)
{
    static const char *const keys[] = {"bundle", "position", "op", "name", "named", NULL};
    const jvalue *draw = get(value, "bundle_draw");
    if (!draw || draw->type == J_NULL)
        return 0;
    size_t mark = push_key(m, "bundle_draw");
    char *bundle = NULL, *name = NULL; /* the name is re-derived from `op` when written, as an op's */
    uint32_t position = 0, draw_op = 0;
    bool named = false;
    int rc = need_object(m, draw, keys) || key_string(m, draw, "bundle", &bundle) ||
             key_u32(m, draw, "position", &position) || key_u32(m, draw, "op", &draw_op) ||
             key_string(m, draw, "name", &name) || key_bool(m, draw, "named", &named) ? -1 : 0;
    free(name);
    if (rc == 0 && d12dred_op_set_bundle_draw(op, bundle, position, draw_op, named) != 0)
        rc = map_fail(m, "out of memory");
    free(bundle);
    pop(m, mark);
    return rc;
}

int d12__dred_map_op_ext(mapper *m, const jvalue *value, d12dred_op *op)
{
    if (map_bundle_draw(m, value, op))
        return -1;
    const jvalue *stack = get(value, "event_stack");
    if (!stack || stack->type == J_NULL)
        return 0;
    size_t mark = push_key(m, "event_stack");
    if (stack->type != J_ARRAY) {
        map_fail(m, "expected an array or null, got %s", type_word(stack));
        pop(m, mark);
        return -1;
    }
    uint32_t *indices = stack->count ? calloc(stack->count, sizeof *indices) : NULL;
    int rc = stack->count && !indices ? map_fail(m, "out of memory") : 0;
    for (size_t i = 0; rc == 0 && i < stack->count; i++) {
        /* an element is read through a one-member view of the array: key_u32 wants an object */
        jvalue holder = {.type = J_OBJECT, .items = (jvalue **)&stack->items[i], .keys = (char *[]){"i"}, .count = 1};
        size_t item = push_index(m, i);
        uint64_t index;
        rc = key_uint(m, &holder, "i", UINT32_MAX, &index);
        if (rc == 0 && index >= op->index)
            rc = map_fail(m, "an enclosing BEGINEVENT must come before the op (%llu >= %u)",
                          (unsigned long long)index, op->index);
        if (rc == 0)
            indices[i] = (uint32_t)index;
        pop(m, item);
    }
    if (rc == 0 && d12dred_op_set_event_stack(op, indices, stack->count) != 0)
        rc = map_fail(m, "out of memory");
    free(indices);
    pop(m, mark);
    return rc;
}

static const char *status_word(int i) { return d12dred_submission_status_name((d12dred_submission_status)i); }

int d12__dred_map_node_ext(mapper *m, const jvalue *value, d12dred_node *node)
{
    if (!get(value, "status"))
        return 0;
    int status;
    if (key_word(m, value, "status", status_word, 3, -1, &status))
        return -1;
    d12dred_node_set_status(node, (d12dred_submission_status)status);
    return 0;
}

int d12__dred_map_submission_ext(mapper *m, const jvalue *value, d12dred_submission *submission)
{
    static const char *const keys[] = {"fence", "value", "fence_value", NULL};
    const jvalue *wait = get(value, "waiting_on");
    if (!wait || wait->type == J_NULL)
        return 0;
    size_t mark = push_key(m, "waiting_on");
    d12dred_wait w = {.behind_wait = -1};
    int rc = need_object(m, wait, keys) || key_string(m, wait, "fence", &w.fence) ||
             key_uint(m, wait, "value", UINT64_MAX, &w.value) ||
             key_uint(m, wait, "fence_value", UINT64_MAX, &w.fence_value) || opt_fence_id(m, wait, &w) ? -1 : 0;
    if (rc == 0 && d12dred_submission_set_waiting_on(submission, &w) != 0)
        rc = map_fail(m, "out of memory");
    free(w.fence);
    pop(m, mark);
    return rc;
}

int d12__dred_map_wait_ext(mapper *m, const jvalue *value, d12dred_wait *wait)
{
    if (get(value, "after_submission") && key_uint(m, value, "after_submission", UINT64_MAX, &wait->after_submission))
        return -1;
    return opt_fence_id(m, value, wait) || opt_string(m, value, "backwards", &wait->backwards) ? -1 : 0;
}

static int map_signal(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"fence", "value", "fence_value", "after_submission", "behind_wait", NULL};
    d12dred_queue *queue = context;
    d12dred_wait s = {0};
    int rc = need_object(m, value, keys) || key_string(m, value, "fence", &s.fence) ||
             key_uint(m, value, "value", UINT64_MAX, &s.value) ||
             key_uint(m, value, "fence_value", UINT64_MAX, &s.fence_value) ||
             key_uint(m, value, "after_submission", UINT64_MAX, &s.after_submission) ? -1 : 0;
    int32_t behind = -1;
    const jvalue *b = rc == 0 ? get(value, "behind_wait") : NULL;
    if (b && !(b->type == J_NUMBER && strcmp(b->text, "-1") == 0)) {
        uint64_t positive;
        if (key_uint(m, value, "behind_wait", INT32_MAX, &positive))
            rc = -1;
        behind = (int32_t)positive;
        if (rc == 0 && (size_t)behind >= queue->wait_count) {
            size_t mark = push_key(m, "behind_wait");
            rc = map_fail(m, "wait %d does not exist (the queue has %zu)", behind, queue->wait_count);
            pop(m, mark);
        }
    }
    if (rc == 0 && opt_fence_id(m, value, &s))
        rc = -1;
    if (rc == 0 && d12dred_queue_add_signal(queue, s.fence, s.value, s.fence_value, s.after_submission, behind) != 0)
        rc = map_fail(m, "out of memory");
    if (rc == 0) {
        queue->signals[queue->signal_count - 1].has_fence_id = s.has_fence_id;
        queue->signals[queue->signal_count - 1].fence_id = s.fence_id;
    }
    free(s.fence);
    return rc;
}

int d12__dred_map_queue_ext(mapper *m, const jvalue *value, d12dred_queue *queue)
{
    return get(value, "queued_signals") ? key_array(m, value, "queued_signals", map_signal, queue) : 0;
}

int d12__dred_map_page_fault_ext(mapper *m, const jvalue *value, d12dred_page_fault *page_fault)
{
    if (opt_string(m, value, "detail", &page_fault->detail) ||
        opt_string(m, value, "aliasing", &page_fault->aliasing)) /* additive (issue 33) */
        return -1;
    const jvalue *overrun = get(value, "overrun");
    if (!overrun || overrun->type == J_NULL)
        return 0;
    page_fault->has_overrun = true;
    return key_uint(m, value, "overrun", UINT64_MAX, &page_fault->overrun);
}

/* `fences[]` (issue 32): {id, name, value, highest, changes[{value, by, call}]}. */
static int map_change(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"value", "by", "call", NULL};
    d12dred_fence_change c = {0};
    int rc = need_object(m, value, keys) || key_uint(m, value, "value", UINT64_MAX, &c.value) ||
             key_string(m, value, "by", &c.by) || key_string(m, value, "call", &c.call) ? -1 : 0;
    if (rc == 0 && d12dred_fence_add_change(context, c.value, c.by, c.call) != 0)
        rc = map_fail(m, "out of memory");
    free(c.by);
    free(c.call);
    return rc;
}

static int map_fence(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"id", "name", "value", "highest", "changes", NULL};
    uint64_t id = 0, at = 0, highest = 0;
    char *name = NULL;
    int rc = need_object(m, value, keys) || key_hex(m, value, "id", &id) || key_string(m, value, "name", &name) ||
             key_uint(m, value, "value", UINT64_MAX, &at) || key_uint(m, value, "highest", UINT64_MAX, &highest)
                 ? -1 : 0;
    d12dred_fence *fence = rc == 0 ? d12dred_report_add_fence(context, id, name, at, highest) : NULL;
    if (rc == 0 && !fence)
        rc = map_fail(m, "out of memory");
    free(name);
    return rc == 0 ? key_array(m, value, "changes", map_change, fence) : rc;
}

/* `timelines[]` (issue 32 item 7): {va, start, end, earlier, events[{event, name, type, va, size, seq, ns_before,
 * after_submission, queue}]}, events oldest first (a sequence number not above the previous one is refused). */
static const char *event_word(int i) { return i == 0 ? "created" : i == 1 ? "released" : NULL; }

static int map_event(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"event", "name", "type", "va", "size", "seq", "ns_before", "after_submission",
                                       "queue", NULL};
    d12dred_timeline_event e = {0};
    int released = 0;
    int rc = need_object(m, value, keys) || key_word(m, value, "event", event_word, 2, -1, &released) ||
             key_string(m, value, "name", &e.name) || key_enum(m, value, "type", &e.type) ||
             key_hex(m, value, "va", &e.va) || key_uint(m, value, "size", UINT64_MAX, &e.size) ||
             key_uint(m, value, "seq", UINT64_MAX, &e.seq) ||
             key_uint(m, value, "ns_before", UINT64_MAX, &e.ns_before) ||
             key_uint(m, value, "after_submission", UINT64_MAX, &e.after_submission) ||
             key_string(m, value, "queue", &e.queue)
                 ? -1 : 0;
    e.released = released == 1;
    d12dred_timeline *t = context;
    if (rc == 0 && t->event_count && e.seq <= t->events[t->event_count - 1].seq) {
        size_t mark = push_key(m, "seq");
        rc = map_fail(m, "%" PRIu64 " is not above the previous event's %" PRIu64 " (events are oldest first)", e.seq,
                      t->events[t->event_count - 1].seq);
        pop(m, mark);
    }
    if (rc == 0 && d12dred_timeline_add_event(t, &e) != 0)
        rc = map_fail(m, "out of memory");
    free(e.name);
    free(e.queue);
    return rc;
}

static int map_timeline(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"va", "start", "end", "earlier", "events", NULL};
    uint64_t va = 0, start = 0, end = 0, earlier = 0;
    int rc = need_object(m, value, keys) || key_hex(m, value, "va", &va) || key_hex(m, value, "start", &start) ||
             key_hex(m, value, "end", &end) || key_uint(m, value, "earlier", UINT64_MAX, &earlier) ? -1 : 0;
    if (rc == 0 && end < start) {
        size_t mark = push_key(m, "end");
        rc = map_fail(m, "0x%" PRIx64 " is below start 0x%" PRIx64, end, start);
        pop(m, mark);
    }
    d12dred_timeline *t = rc == 0 ? d12dred_report_add_timeline(context, va, start, end) : NULL;
    if (rc == 0 && !t)
        return map_fail(m, "out of memory");
    if (t)
        t->earlier = earlier;
    return rc == 0 ? key_array(m, value, "events", map_event, t) : rc;
}

static int map_note(mapper *m, const jvalue *value, void *context)
{
    if (value->type != J_STRING)
        return map_fail(m, "expected a string, got %s", type_word(value));
    return d12dred_report_add_note(context, value->text) == 0 ? 0 : map_fail(m, "out of memory");
}

int d12__dred_map_report_ext(mapper *m, const jvalue *root, d12dred_report *report)
{
    if (get(root, "kind")) {
        char *kind = NULL;
        if (key_string(m, root, "kind", &kind))
            return -1;
        if (kind && strcmp(kind, "removal") != 0 && strcmp(kind, "stall") != 0) {
            size_t mark = push_key(m, "kind");
            map_fail(m, "unknown value \"%.40s\"", kind);
            pop(m, mark);
            free(kind);
            return -1;
        }
        adopt(&report->kind, kind);
    }
    if (opt_string(m, root, "removed_by", &report->removed_by) || opt_string(m, root, "deadlock", &report->deadlock))
        return -1;
    if (get(root, "notes") && key_array(m, root, "notes", map_note, report))
        return -1;
    if (get(root, "fences") && key_array(m, root, "fences", map_fence, report))
        return -1;
    if (get(root, "timelines") && key_array(m, root, "timelines", map_timeline, report))
        return -1;
    uint64_t stalled = 0;
    if (get(root, "stalled_ms") && key_uint(m, root, "stalled_ms", UINT32_MAX, &stalled))
        return -1;
    report->stalled_ms = (uint32_t)stalled;
    return 0;
}

/* ---- Members no mapping looked up (a later d12rt's) ------------------------------------------------------- */

/* Appends `[i]` or `.key` to the path and returns the length to cut it back to. */
static size_t path_push(d12__dred_buf *path, const char *key, size_t index)
{
    size_t mark = path->length;
    if (key)
        d12__dred_buf_printf(path, ".%s", key);
    else
        d12__dred_buf_printf(path, "[%zu]", index);
    return mark;
}

static int add_extra(d12dred_report *report, const char *owner, const char *key, jvalue *value)
{
    /* one realloc per extra: a report has a handful (each is a whole member, however large) */
    d12dred_extra *grown = realloc(report->extras, (report->extra_count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    report->extras = grown;
    d12dred_extra *extra = &report->extras[report->extra_count];
    extra->owner = strdup(owner);
    extra->key = strdup(key);
    if (!extra->owner || !extra->key) {
        free(extra->owner);
        free(extra->key);
        return -1;
    }
    extra->value = value;
    report->extra_count++;
    return 0;
}

/* Every element of an array the mapper read was mapped (key_array hands each to its mapping), so arrays are walked
 * whole; an object's members are extras unless looked up. An extra is detached from the tree (its slot set to NULL,
 * which d12__dred_jfree skips) and owned by the report from then on. */
static int collect(jvalue *value, d12__dred_buf *path, d12dred_report *report)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < value->count; i++) {
        jvalue *item = value->items[i];
        if (!item || (item->type != J_OBJECT && item->type != J_ARRAY && (value->type == J_ARRAY || item->used)))
            continue;
        if (value->type == J_OBJECT && !item->used) {
            rc = path->failed ? -1 : add_extra(report, path->data, value->keys[i], item);
            if (rc == 0)
                value->items[i] = NULL;
            continue;
        }
        size_t mark = path_push(path, value->type == J_OBJECT ? value->keys[i] : NULL, i);
        rc = collect(item, path, report);
        path->length = mark;
        if (path->data)
            path->data[mark] = '\0';
    }
    return rc;
}

void d12__dred_free_extras(d12dred_report *report)
{
    for (size_t i = 0; i < report->extra_count; i++) {
        free(report->extras[i].owner);
        free(report->extras[i].key);
        d12__dred_jfree(report->extras[i].value);
    }
    free(report->extras);
}

int d12__dred_collect_extras(jvalue *root, d12dred_report *report)
{
    d12__dred_buf path = {0};
    d12__dred_buf_puts(&path, "$");
    int rc = path.failed ? -1 : collect(root, &path, report);
    free(path.data);
    return rc;
}
