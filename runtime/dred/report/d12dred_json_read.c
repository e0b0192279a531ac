/* JSON -> d12dred_report, stage 2: the tree of d12dred_json_parse.c mapped onto the model with strict shape
 * checks (every key known and present, every type and range right, node references existing). Hostile input is
 * the design case (the reliability work fuzzes d12dred_report_parse_buffer). Errors are one line naming the
 * JSON path: `$.queues[0].type: expected an object, got a string`. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "d12dred_internal.h"
#include "d12dred_json_map.h"
#include "d12dred_report.h"

/* ---- Mapping the tree onto the model ----------------------------------------------------------------------- */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

int map_fail(mapper *m, const char *format, ...)
{
    if (m->failed)
        return -1;
    m->failed = 1;
    if (m->error && m->error_size) {
        int n = snprintf(m->error, m->error_size, "%s: ", m->path);
        if (n >= 0 && (size_t)n < m->error_size) {
            va_list args;
            va_start(args, format);
            vsnprintf(m->error + n, m->error_size - (size_t)n, format, args);
            va_end(args);
        }
    }
    return -1;
}

/* Path segments are pushed and popped by length. */
size_t push_key(mapper *m, const char *key)
{
    size_t mark = strlen(m->path);
    snprintf(m->path + mark, sizeof m->path - mark, ".%s", key);
    return mark;
}

size_t push_index(mapper *m, size_t index)
{
    size_t mark = strlen(m->path);
    snprintf(m->path + mark, sizeof m->path - mark, "[%zu]", index);
    return mark;
}

void pop(mapper *m, size_t mark) { m->path[mark] = '\0'; }

const char *type_word(const jvalue *value)
{
    static const char *const words[] = {"null", "false", "true", "a number", "a string", "an array", "an object"};
    return words[value->type];
}

/* An object with at least these keys (NULL-terminated list). Members this reader does not know are ignored: a
 * later d12rt adds members to schema_version 1 ("every new member is additive, and a version-1 reader ignores members
 * it does not know", issue 19); the members it added are optional here (d12dred_json_read_ext.c). */
static int check_object(mapper *m, const jvalue *value, const char *const *keys)
{
    if (value->type != J_OBJECT)
        return map_fail(m, "expected an object, got %s", type_word(value));
    for (const char *const *k = keys; *k; k++) {
        int present = 0;
        for (size_t i = 0; i < value->count; i++)
            present |= strcmp(*k, value->keys[i]) == 0;
        if (!present)
            return map_fail(m, "missing key \"%s\"", *k);
    }
    return 0;
}

/* Marks the member as looked up: what no mapping looks up is an extra (d12__dred_collect_extras). */
const jvalue *get(const jvalue *object, const char *key)
{
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) {
            object->items[i]->used = 1;
            return object->items[i];
        }
    return NULL;  /* absent (check_object made sure required ones exist) */
}

/* A non-negative integer literal up to `max`. */
static int to_uint(mapper *m, const jvalue *value, uint64_t max, uint64_t *out)
{
    if (value->type != J_NUMBER)
        return map_fail(m, "expected an integer, got %s", type_word(value));
    const char *text = value->text;
    if (text[0] == '-')
        return map_fail(m, "expected a non-negative integer, got %.40s", text);
    uint64_t result = 0;
    for (const char *p = text; *p; p++) {
        if (!is_digit((unsigned char)*p))
            return map_fail(m, "expected an integer, got %.40s", text);
        unsigned digit = (unsigned)(*p - '0');
        if (result > (UINT64_MAX - digit) / 10)
            return map_fail(m, "integer %.40s is too large", text);
        result = result * 10 + digit;
    }
    if (result > max)
        return map_fail(m, "integer %.40s is larger than %llu", text, (unsigned long long)max);
    *out = result;
    return 0;
}

int key_uint(mapper *m, const jvalue *object, const char *key, uint64_t max, uint64_t *out)
{
    size_t mark = push_key(m, key);
    int rc = to_uint(m, get(object, key), max, out);
    pop(m, mark);
    return rc;
}

int key_u32(mapper *m, const jvalue *object, const char *key, uint32_t *out)
{
    uint64_t value;
    if (key_uint(m, object, key, UINT32_MAX, &value) != 0)
        return -1;
    *out = (uint32_t)value;
    return 0;
}

int key_bool(mapper *m, const jvalue *object, const char *key, bool *out)
{
    const jvalue *value = get(object, key);
    if (value->type != J_TRUE && value->type != J_FALSE) {
        size_t mark = push_key(m, key);
        map_fail(m, "expected true or false, got %s", type_word(value));
        pop(m, mark);
        return -1;
    }
    *out = value->type == J_TRUE;
    return 0;
}

/* A string or null; *out is a new copy (NULL for null). */
int key_string(mapper *m, const jvalue *object, const char *key, char **out)
{
    const jvalue *value = get(object, key);
    if (value->type == J_NULL) {
        *out = NULL;
        return 0;
    }
    if (value->type != J_STRING) {
        size_t mark = push_key(m, key);
        map_fail(m, "expected a string or null, got %s", type_word(value));
        pop(m, mark);
        return -1;
    }
    *out = strdup(value->text);
    return *out ? 0 : map_fail(m, "out of memory");
}

/* A hex string "0x..." of at most 16 digits (VAs, HRESULTs). */
int key_hex(mapper *m, const jvalue *object, const char *key, uint64_t *out)
{
    const jvalue *value = get(object, key);
    size_t mark = push_key(m, key);
    int rc = 0;
    if (value->type != J_STRING) {
        rc = map_fail(m, "expected a hex string \"0x...\", got %s", type_word(value));
    } else if (value->length < 3 || value->length > 18 || value->text[0] != '0' || value->text[1] != 'x') {
        rc = map_fail(m, "expected a hex string \"0x...\" of 1 to 16 digits, got \"%.40s\"", value->text);
    } else {
        uint64_t result = 0;
        for (const char *p = value->text + 2; *p && rc == 0; p++) {
            unsigned char c = (unsigned char)*p;
            unsigned digit = is_digit(c) ? (unsigned)(c - '0') : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a') + 10u : 16u;
            if (digit > 15)
                rc = map_fail(m, "expected lowercase hex digits, got \"%.40s\"", value->text);
            result = result << 4 | (digit & 15u);
        }
        *out = result;
    }
    pop(m, mark);
    return rc;
}

/* An enum object {"value": N, "name": string|null}: the number is what counts (the name is re-derived). */
int key_enum(mapper *m, const jvalue *object, const char *key, uint32_t *out)
{
    static const char *const keys[] = {"value", "name", NULL};
    const jvalue *value = get(object, key);
    size_t mark = push_key(m, key);
    char *name = NULL;
    int rc = check_object(m, value, keys);
    if (rc == 0)
        rc = key_u32(m, value, "value", out);
    if (rc == 0)
        rc = key_string(m, value, "name", &name);
    free(name);
    pop(m, mark);
    return rc;
}

/* One of a fixed set of words (or null, mapped to `null_value`, when allowed). */
int key_word(mapper *m, const jvalue *object, const char *key, const char *(*name_of)(int), int count,
                    int null_value, int *out)
{
    const jvalue *value = get(object, key);
    size_t mark = push_key(m, key);
    int rc = -1;
    if (value->type == J_NULL && null_value >= 0) {
        *out = null_value;
        rc = 0;
    } else if (value->type == J_STRING) {
        for (int i = 0; i < count; i++) {
            const char *name = name_of(i);
            if (name && strcmp(name, value->text) == 0) {
                *out = i;
                rc = 0;
            }
        }
        if (rc != 0)
            map_fail(m, "unknown value \"%.40s\"", value->text);
    } else {
        map_fail(m, "expected a string, got %s", type_word(value));
    }
    pop(m, mark);
    return rc;
}

static const char *attribution_word(int i) { return d12dred_attribution_name((d12dred_attribution)i); }
static const char *status_word(int i) { return d12dred_submission_status_name((d12dred_submission_status)i); }
static const char *verdict_word(int i) { return d12dred_verdict_name((d12dred_verdict)i); }
static const char *root_kind_word(int i) { return d12dred_root_kind_name((d12dred_root_kind)i); }

/* Calls each(m, item, context) for every item of the array at object[key], with the path following. */
int key_array(mapper *m, const jvalue *object, const char *key, int (*each)(mapper *, const jvalue *, void *),
                     void *context)
{
    const jvalue *array = get(object, key);
    size_t mark = push_key(m, key);
    int rc = 0;
    if (array->type != J_ARRAY)
        rc = map_fail(m, "expected an array, got %s", type_word(array));
    for (size_t i = 0; rc == 0 && i < array->count; i++) {
        size_t item_mark = push_index(m, i);
        rc = each(m, array->items[i], context);
        pop(m, item_mark);
    }
    pop(m, mark);
    return rc;
}

/* Adopts a string read with key_string into a model slot (no second copy: already valid UTF-8). */
void adopt(char **slot, char *text)
{
    free(*slot);
    *slot = text;
}

/* ---- Messages ---------------------------------------------------------------------------------------------- */

typedef struct message_sink {
    d12dred_op *op;            /* or */
    d12dred_report *report;
} message_sink;

static int map_message(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"id", "category", "severity", "text", NULL};
    message_sink *sink = context;
    uint32_t id, category, severity;
    char *text = NULL;
    if (check_object(m, value, keys) || key_u32(m, value, "id", &id) || key_enum(m, value, "category", &category) ||
        key_enum(m, value, "severity", &severity) || key_string(m, value, "text", &text))
        return -1;
    int rc = sink->op ? d12dred_op_add_message(sink->op, id, category, severity, text)
                      : d12dred_report_add_flush_message(sink->report, id, category, severity, text);
    free(text);
    return rc == 0 ? 0 : map_fail(m, "out of memory");
}

/* ---- Op state ---------------------------------------------------------------------------------------------- */

static int map_vertex_buffer(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"slot", "va", "size", "stride", "resource", NULL};
    uint32_t slot, size, stride;
    uint64_t va;
    char *resource = NULL;
    if (check_object(m, value, keys) || key_u32(m, value, "slot", &slot) || key_hex(m, value, "va", &va) ||
        key_u32(m, value, "size", &size) || key_u32(m, value, "stride", &stride) ||
        key_string(m, value, "resource", &resource))
        return -1;
    d12dred_op_state *state = context;
    int rc = d12dred_op_state_add_vertex_buffer(state, slot, va, size, stride, resource);
    free(resource);
    if (rc != 0)
        return map_fail(m, "out of memory");
    return d12__dred_map_site(m, value, &state->vertex_buffers[state->vertex_buffer_count - 1].site);
}

static int map_root_descriptor(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"parameter", "kind", "va", "resource", NULL};
    uint32_t parameter;
    int kind;
    uint64_t va;
    char *resource = NULL;
    if (check_object(m, value, keys) || key_u32(m, value, "parameter", &parameter) ||
        key_word(m, value, "kind", root_kind_word, 3, -1, &kind) || key_hex(m, value, "va", &va) ||
        key_string(m, value, "resource", &resource))
        return -1;
    (void)get(value, "access"); /* known (additive), derived from the kind: not kept, and no extra */
    d12dred_op_state *state = context;
    int rc = d12dred_op_state_add_root_descriptor(state, parameter, (d12dred_root_kind)kind, va, resource);
    free(resource);
    if (rc != 0)
        return map_fail(m, "out of memory");
    return d12__dred_map_site(m, value, &state->root_descriptors[state->root_descriptor_count - 1].site);
}

static int map_index_buffer(mapper *m, const jvalue *value, d12dred_op_state *state)
{
    static const char *const keys[] = {"va", "size", "format", "resource", NULL};
    uint64_t va;
    uint32_t size, format;
    char *resource = NULL;
    if (check_object(m, value, keys) || key_hex(m, value, "va", &va) || key_u32(m, value, "size", &size) ||
        key_u32(m, value, "format", &format) || key_string(m, value, "resource", &resource))
        return -1;
    int rc = d12dred_op_state_set_index_buffer(state, va, size, format, resource);
    free(resource);
    if (rc != 0)
        return map_fail(m, "out of memory");
    return d12__dred_map_site(m, value, &state->index_buffer.site);
}

static int map_state(mapper *m, const jvalue *value, d12dred_op *op)
{
    static const char *const keys[] = {"arguments", "vertex_buffers", "index_buffer", "root_descriptors", NULL};
    if (check_object(m, value, keys))
        return -1;
    d12dred_op_state *state = d12dred_op_get_state(op);
    if (!state)
        return map_fail(m, "out of memory");
    char *arguments = NULL;
    if (key_string(m, value, "arguments", &arguments))
        return -1;
    adopt(&state->arguments, arguments);
    if (key_array(m, value, "vertex_buffers", map_vertex_buffer, state))
        return -1;
    const jvalue *index_buffer = get(value, "index_buffer");
    if (index_buffer->type != J_NULL) {
        size_t mark = push_key(m, "index_buffer");
        int rc = map_index_buffer(m, index_buffer, state);
        pop(m, mark);
        if (rc)
            return -1;
    }
    if (key_array(m, value, "root_descriptors", map_root_descriptor, state))
        return -1;
    return d12__dred_map_state_ext(m, value, state);
}

/* ---- Nodes ------------------------------------------------------------------------------------------------- */

static int map_op(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"index", "op", "name", "depth", "context", "attribution", "state",
                                       "messages", NULL};
    d12dred_node *node = context;
    uint32_t index, op_value, depth;
    int attribution;
    char *name = NULL, *text = NULL;
    if (check_object(m, value, keys) || key_u32(m, value, "index", &index) || key_u32(m, value, "op", &op_value) ||
        key_string(m, value, "name", &name) || key_u32(m, value, "depth", &depth) ||
        key_string(m, value, "context", &text) ||
        key_word(m, value, "attribution", attribution_word, 3, D12DRED_ATTRIBUTION_NONE, &attribution)) {
        free(name);
        free(text);
        return -1;
    }
    free(name);  /* re-derived from the number when written */
    if (node->op_count && index <= node->ops[node->op_count - 1].index) {
        free(text);
        size_t mark = push_key(m, "index");
        map_fail(m, "op index %u does not follow %u (ops are in increasing order)", index,
                 node->ops[node->op_count - 1].index);
        pop(m, mark);
        return -1;
    }
    d12dred_op *op = d12dred_node_add_op(node, index, op_value, depth, NULL);
    if (!op) {
        free(text);
        return map_fail(m, "out of memory");
    }
    adopt(&op->context, text);
    op->attribution = (d12dred_attribution)attribution;
    const jvalue *state = get(value, "state");
    if (state->type != J_NULL) {
        size_t mark = push_key(m, "state");
        int rc = map_state(m, state, op);
        pop(m, mark);
        if (rc)
            return -1;
    }
    message_sink sink = {op, NULL};
    if (key_array(m, value, "messages", map_message, &sink))
        return -1;
    return d12__dred_map_op_ext(m, value, op);
}

static int map_node(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"list", "queue", "submission", "breadcrumb_count", "completed_count", "ops",
                                       NULL};
    d12dred_report *report = context;
    uint64_t submission;
    uint32_t count, completed;
    char *list = NULL, *queue = NULL;
    if (check_object(m, value, keys) || key_string(m, value, "list", &list) ||
        key_string(m, value, "queue", &queue) || key_uint(m, value, "submission", UINT64_MAX, &submission) ||
        key_u32(m, value, "breadcrumb_count", &count) || key_u32(m, value, "completed_count", &completed)) {
        free(list);
        free(queue);
        return -1;
    }
    d12dred_node *node = d12dred_report_add_node(report, NULL, NULL, submission, count, completed);
    if (!node) {
        free(list);
        free(queue);
        return map_fail(m, "out of memory");
    }
    adopt(&node->list, list);
    adopt(&node->queue, queue);
    const jvalue *ops = get(value, "ops");
    if (ops->type == J_ARRAY && d12dred_node_reserve_ops(node, ops->count) != 0)
        return map_fail(m, "out of memory");
    if (key_array(m, value, "ops", map_op, node))
        return -1;
    return d12__dred_map_node_ext(m, value, node);
}

/* ---- Queues ------------------------------------------------------------------------------------------------ */

static int map_submission_list(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"list", "node", NULL};
    d12dred_submission *submission = context;
    char *list = NULL;
    if (check_object(m, value, keys) || key_string(m, value, "list", &list))
        return -1;
    const jvalue *node = get(value, "node");
    int64_t index = -1;
    if (!(node->type == J_NUMBER && strcmp(node->text, "-1") == 0)) {
        uint64_t positive;
        if (key_uint(m, value, "node", INT32_MAX, &positive)) {
            free(list);
            return -1;
        }
        index = (int64_t)positive;
    }
    int rc = d12dred_submission_add_list(submission, NULL, (int32_t)index);
    if (rc == 0)
        adopt(&submission->lists[submission->list_count - 1].list, list);
    else
        free(list);
    return rc == 0 ? 0 : map_fail(m, "out of memory");
}

static int map_submission(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"sequence", "status", "lists", NULL};
    uint64_t sequence;
    int status;
    if (check_object(m, value, keys) || key_uint(m, value, "sequence", UINT64_MAX, &sequence) ||
        key_word(m, value, "status", status_word, 3, -1, &status))
        return -1;
    d12dred_submission *submission = d12dred_queue_add_submission(context, sequence,
                                                                  (d12dred_submission_status)status);
    if (!submission)
        return map_fail(m, "out of memory");
    if (key_array(m, value, "lists", map_submission_list, submission))
        return -1;
    return d12__dred_map_submission_ext(m, value, submission);
}

static int map_wait(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"fence", "value", "fence_value", NULL};
    uint64_t wait_value, fence_value;
    char *fence = NULL;
    if (check_object(m, value, keys) || key_string(m, value, "fence", &fence) ||
        key_uint(m, value, "value", UINT64_MAX, &wait_value) ||
        key_uint(m, value, "fence_value", UINT64_MAX, &fence_value)) {
        free(fence);
        return -1;
    }
    d12dred_queue *queue = context;
    int rc = d12dred_queue_add_wait(queue, NULL, wait_value, fence_value);
    if (rc != 0) {
        free(fence);
        return map_fail(m, "out of memory");
    }
    adopt(&queue->waits[queue->wait_count - 1].fence, fence);
    return d12__dred_map_wait_ext(m, value, &queue->waits[queue->wait_count - 1]);
}

static int map_queue(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"name", "type", "faulted", "submissions", "pending_waits", NULL};
    uint32_t type;
    bool faulted;
    char *name = NULL;
    if (check_object(m, value, keys) || key_string(m, value, "name", &name) || key_enum(m, value, "type", &type) ||
        key_bool(m, value, "faulted", &faulted)) {
        free(name);
        return -1;
    }
    d12dred_queue *queue = d12dred_report_add_queue(context, NULL, type);
    if (!queue) {
        free(name);
        return map_fail(m, "out of memory");
    }
    adopt(&queue->name, name);
    queue->faulted = faulted;
    if (key_array(m, value, "submissions", map_submission, queue) ||
        key_array(m, value, "pending_waits", map_wait, queue))
        return -1;
    return d12__dred_map_queue_ext(m, value, queue);
}

/* ---- Page fault -------------------------------------------------------------------------------------------- */

typedef enum allocation_role { ROLE_EXISTING, ROLE_FREED, ROLE_BELOW, ROLE_ABOVE } allocation_role;

typedef struct allocation_sink {
    d12dred_page_fault *page_fault;
    allocation_role role;
} allocation_sink;

static int map_allocation(mapper *m, const jvalue *value, void *context)
{
    static const char *const keys[] = {"name", "type", "va", "size", "width", "freed", "freed_after_recording",
                                       "distance", NULL};
    allocation_sink *sink = context;
    uint32_t type;
    uint64_t va, size, width, distance;
    bool freed, freed_after;
    char *name = NULL;
    if (check_object(m, value, keys) || key_string(m, value, "name", &name) || key_enum(m, value, "type", &type) ||
        key_hex(m, value, "va", &va) || key_uint(m, value, "size", UINT64_MAX, &size) ||
        key_uint(m, value, "width", UINT64_MAX, &width) || key_bool(m, value, "freed", &freed) ||
        key_bool(m, value, "freed_after_recording", &freed_after) ||
        key_uint(m, value, "distance", UINT64_MAX, &distance)) {
        free(name);
        return -1;
    }
    d12dred_allocation *allocation = NULL;
    switch (sink->role) {
    case ROLE_EXISTING: allocation = d12dred_page_fault_add_existing(sink->page_fault, NULL, type, va, size); break;
    case ROLE_FREED: allocation = d12dred_page_fault_add_freed(sink->page_fault, NULL, type, va, size, false); break;
    case ROLE_BELOW: allocation = d12dred_page_fault_set_below(sink->page_fault, NULL, type, va, size, 0, false); break;
    case ROLE_ABOVE: allocation = d12dred_page_fault_set_above(sink->page_fault, NULL, type, va, size, 0, false); break;
    }
    if (!allocation) {
        free(name);
        return map_fail(m, "out of memory");
    }
    adopt(&allocation->name, name);
    allocation->width = width;
    allocation->freed = freed;
    allocation->freed_after_recording = freed_after;
    allocation->distance = distance;
    return 0;
}

static int map_neighbour(mapper *m, const jvalue *object, const char *key, d12dred_page_fault *page_fault,
                         allocation_role role)
{
    const jvalue *value = get(object, key);
    if (value->type == J_NULL)
        return 0;
    allocation_sink sink = {page_fault, role};
    size_t mark = push_key(m, key);
    int rc = map_allocation(m, value, &sink);
    pop(m, mark);
    return rc;
}

static int map_page_fault(mapper *m, const jvalue *value, d12dred_report *report)
{
    static const char *const keys[] = {"va", "flags", "verdict", "existing", "freed", "nearest_below",
                                       "nearest_above", NULL};
    uint64_t va;
    uint32_t flags;
    int verdict;
    if (check_object(m, value, keys) || key_hex(m, value, "va", &va) || key_u32(m, value, "flags", &flags) ||
        key_word(m, value, "verdict", verdict_word, 4, D12DRED_VERDICT_NONE, &verdict))
        return -1;
    d12dred_page_fault *page_fault = d12dred_report_set_page_fault(report, va, flags);
    if (!page_fault)
        return map_fail(m, "out of memory");
    page_fault->verdict = (d12dred_verdict)verdict;
    allocation_sink existing = {page_fault, ROLE_EXISTING}, freed = {page_fault, ROLE_FREED};
    if (key_array(m, value, "existing", map_allocation, &existing) ||
        key_array(m, value, "freed", map_allocation, &freed))
        return -1;
    if (map_neighbour(m, value, "nearest_below", page_fault, ROLE_BELOW) ||
        map_neighbour(m, value, "nearest_above", page_fault, ROLE_ABOVE))
        return -1;
    return d12__dred_map_page_fault_ext(m, value, page_fault);
}

/* ---- The report -------------------------------------------------------------------------------------------- */

static int map_header(mapper *m, const jvalue *root, d12dred_report *report)
{
    static const char *const reason_keys[] = {"hresult", "name", NULL};
    static const char *const feature_keys[] = {"auto_breadcrumbs", "breadcrumb_contexts", "markers_only",
                                               "page_fault", "watson_dump", NULL};
    static const char *const process_keys[] = {"name", "id", NULL};
    uint64_t hresult = 0;
    char *text = NULL;
    const jvalue *reason = get(root, "reason");
    size_t mark = push_key(m, "reason");
    if (check_object(m, reason, reason_keys) == 0 && key_hex(m, reason, "hresult", &hresult) == 0) {
        if (hresult > UINT32_MAX) {
            size_t inner = push_key(m, "hresult");
            map_fail(m, "an HRESULT has at most 8 hex digits");
            pop(m, inner);
        } else if (key_string(m, reason, "name", &text) == 0) {
            report->reason = (int32_t)(uint32_t)hresult;
            adopt(&report->reason_name, text);
        }
    }
    pop(m, mark);
    if (m->failed || key_enum(m, root, "device_state", &report->device_state))
        return -1;
    const jvalue *features = get(root, "features");
    mark = push_key(m, "features");
    if (check_object(m, features, feature_keys) == 0) {
        d12dred_features *f = &report->features;
        if (key_bool(m, features, "auto_breadcrumbs", &f->auto_breadcrumbs) == 0 &&
            key_bool(m, features, "breadcrumb_contexts", &f->breadcrumb_contexts) == 0 &&
            key_bool(m, features, "markers_only", &f->markers_only) == 0 &&
            key_bool(m, features, "page_fault", &f->page_fault) == 0)
            key_bool(m, features, "watson_dump", &f->watson_dump);
    }
    pop(m, mark);
    if (m->failed || key_string(m, root, "runtime_version", &text))
        return -1;
    adopt(&report->runtime_version, text);
    if (key_string(m, root, "timestamp", &text))
        return -1;
    adopt(&report->timestamp, text);
    const jvalue *process = get(root, "process");
    mark = push_key(m, "process");
    if (check_object(m, process, process_keys) == 0 && key_string(m, process, "name", &text) == 0) {
        adopt(&report->process_name, text);
        key_u32(m, process, "id", &report->process_id);
    }
    pop(m, mark);
    if (m->failed || key_string(m, root, "driver", &text))
        return -1;
    adopt(&report->driver, text);
    return key_u32(m, root, "tdr_delay_ms", &report->tdr_delay_ms);
}

/* Every submission's node reference must name an existing node. */
static int check_node_references(mapper *m, const d12dred_report *report)
{
    for (size_t q = 0; q < report->queue_count; q++) {
        const d12dred_queue *queue = report->queues[q];
        for (size_t s = 0; s < queue->submission_count; s++) {
            for (size_t l = 0; l < queue->submissions[s]->list_count; l++) {
                int32_t node = queue->submissions[s]->lists[l].node;
                if (node >= 0 && (size_t)node >= report->node_count) {
                    snprintf(m->path, sizeof m->path, "$.queues[%zu].submissions[%zu].lists[%zu].node", q, s, l);
                    return map_fail(m, "node %d does not exist (the report has %zu)", node, report->node_count);
                }
            }
        }
    }
    return 0;
}

static int map_report(mapper *m, const jvalue *root, d12dred_report *report)
{
    static const char *const keys[] = {"schema_version", "reason", "device_state", "features", "runtime_version",
                                       "timestamp", "process", "driver", "tdr_delay_ms", "queues", "nodes",
                                       "page_fault", "flush_messages", NULL};
    if (root->type != J_OBJECT)
        return map_fail(m, "expected an object, got %s", type_word(root));
    /* schema_version first, so a newer file says so instead of naming a key this reader does not know. */
    const jvalue *version = get(root, "schema_version");
    if (!version)
        return map_fail(m, "missing key \"schema_version\" (not a d12rt DRED report)");
    uint32_t schema_version;
    if (key_u32(m, root, "schema_version", &schema_version))
        return -1;
    if (schema_version == 0 || schema_version > D12DRED_SCHEMA_VERSION) {
        size_t mark = push_key(m, "schema_version");
        map_fail(m, "schema version %u is not supported (this d12dred reads 1 to %u)", schema_version,
                 D12DRED_SCHEMA_VERSION);
        pop(m, mark);
        return -1;
    }
    report->schema_version = schema_version;
    if (check_object(m, root, keys) || map_header(m, root, report) ||
        key_array(m, root, "nodes", map_node, report) || key_array(m, root, "queues", map_queue, report))
        return -1;
    const jvalue *page_fault = get(root, "page_fault");
    if (page_fault->type != J_NULL) {
        size_t mark = push_key(m, "page_fault");
        int rc = map_page_fault(m, page_fault, report);
        pop(m, mark);
        if (rc)
            return -1;
    }
    message_sink sink = {NULL, report};
    if (key_array(m, root, "flush_messages", map_message, &sink) || d12__dred_map_report_ext(m, root, report))
        return -1;
    return check_node_references(m, report);
}

int d12dred_report_parse_buffer(const char *data, size_t size, d12dred_report **out, char *error, size_t error_size)
{
    if (out)
        *out = NULL;
    if (error && error_size)
        error[0] = '\0';
    if (!data || !out) {
        if (error && error_size)
            snprintf(error, error_size, "no input");
        return -1;
    }
    jvalue *root = d12__dred_json_parse(data, size, error, error_size);
    if (!root)
        return -1;
    d12dred_report *report = d12dred_report_new();
    mapper m = {"$", error, error_size, 0};
    int rc = report ? map_report(&m, root, report) : map_fail(&m, "out of memory");
    if (rc == 0 && d12__dred_collect_extras(root, report) != 0)
        rc = map_fail(&m, "out of memory");
    d12__dred_jfree(root);
    if (rc != 0) {
        d12dred_report_free(report);
        return -1;
    }
    *out = report;
    return 0;
}

int d12dred_report_read_json(const char *path, d12dred_report **out, char *error, size_t error_size)
{
    if (out)
        *out = NULL;
    FILE *file = fopen(path, "rb");
    if (!file) {
        if (error && error_size)
            snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(file), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a folder on Linux; reading fails */
        fclose(file);
        if (error && error_size)
            snprintf(error, error_size, "cannot read %s: is a directory", path);
        return -1;
    }
    d12__dred_buf buf = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0) {
        if (buf.length + n > D12DRED_MAX_FILE_BYTES) {
            fclose(file);
            free(buf.data);
            if (error && error_size)
                snprintf(error, error_size, "%s is larger than the limit of %zu bytes", path,
                         D12DRED_MAX_FILE_BYTES);
            return -1;
        }
        d12__dred_buf_append(&buf, chunk, n);
    }
    int read_error = ferror(file);
    fclose(file);
    if (read_error || buf.failed) {
        free(buf.data);
        if (error && error_size)
            snprintf(error, error_size, "cannot read %s: %s", path, read_error ? "read error" : "out of memory");
        return -1;
    }
    int rc = d12dred_report_parse_buffer(buf.data ? buf.data : "", buf.length, out, error, error_size);
    free(buf.data);
    return rc;
}
