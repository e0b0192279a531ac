/* d12dred_report: the model and its builder (d12dred_report.h); its strings and arrays: d12dred_strings.c. JSON:
 * d12dred_json_write.c / d12dred_json_read.c; the tree and the comparison: d12dred_render.c. */
#define _POSIX_C_SOURCE 200809L

#include "d12dred_report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "d12dred_internal.h"

/* Appends a pointer to a pointer array whose capacity is the next power of two >= count (no separate field). */
static int append_pointer(void ***items, size_t *count, void *item)
{
    size_t capacity = 0;
    if (*count) {
        capacity = 4;
        while (capacity < *count)
            capacity *= 2;
    }
    if (d12__dred_grow((void **)items, &capacity, *count, sizeof(void *)) != 0)
        return -1;
    (*items)[(*count)++] = item;
    return 0;
}

/* ---- Report ------------------------------------------------------------------------------------------------ */

d12dred_report *d12dred_report_new(void)
{
    d12dred_report *report = calloc(1, sizeof *report);
    if (report)
        report->schema_version = D12DRED_SCHEMA_VERSION;
    return report;
}

static void free_messages(d12dred_message *messages, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(messages[i].text);
    free(messages);
}

void d12dred_op_state_free(d12dred_op_state *state)
{
    if (!state)
        return;
    free(state->arguments);
    for (size_t i = 0; i < state->vertex_buffer_count; i++) {
        free(state->vertex_buffers[i].resource);
        d12__dred_free_va_site(&state->vertex_buffers[i].site);
    }
    free(state->vertex_buffers);
    free(state->index_buffer.resource);
    d12__dred_free_va_site(&state->index_buffer.site);
    for (size_t i = 0; i < state->root_descriptor_count; i++) {
        free(state->root_descriptors[i].resource);
        d12__dred_free_va_site(&state->root_descriptors[i].site);
    }
    free(state->copy_src.resource);
    free(state->copy_dst.resource);
    d12__dred_free_va_site(&state->copy_src.site);
    d12__dred_free_va_site(&state->copy_dst.site);
    free(state->root_descriptors);
    free(state);
}

static void free_node(d12dred_node *node)
{
    for (size_t i = 0; i < node->op_count; i++) {
        free(node->ops[i].context);
        free(node->ops[i].event_stack);
        d12__dred_free_bundle_draw(node->ops[i].bundle_draw);
        d12dred_op_state_free(node->ops[i].state);
        free_messages(node->ops[i].messages, node->ops[i].message_count);
    }
    free(node->ops);
    free(node->list);
    free(node->queue);
    free(node);
}

static void free_queue(d12dred_queue *queue)
{
    for (size_t i = 0; i < queue->submission_count; i++) {
        d12dred_submission *submission = queue->submissions[i];
        for (size_t j = 0; j < submission->list_count; j++)
            free(submission->lists[j].list);
        free(submission->lists);
        if (submission->waiting_on)
            free(submission->waiting_on->fence);
        free(submission->waiting_on);
        free(submission);
    }
    free(queue->submissions);
    for (size_t i = 0; i < queue->wait_count; i++) {
        free(queue->waits[i].fence);
        free(queue->waits[i].backwards);
    }
    free(queue->waits);
    for (size_t i = 0; i < queue->signal_count; i++)
        free(queue->signals[i].fence);
    free(queue->signals);
    free(queue->name);
    free(queue);
}

static void free_allocation(d12dred_allocation *allocation)
{
    if (allocation) {
        free(allocation->name);
        free(allocation);
    }
}

static void free_page_fault(d12dred_page_fault *page_fault)
{
    if (!page_fault)
        return;
    for (size_t i = 0; i < page_fault->existing_count; i++)
        free_allocation(page_fault->existing[i]);
    free(page_fault->existing);
    for (size_t i = 0; i < page_fault->freed_count; i++)
        free_allocation(page_fault->freed[i]);
    free(page_fault->freed);
    free_allocation(page_fault->below);
    free_allocation(page_fault->above);
    free(page_fault->detail);
    free(page_fault->aliasing);
    free(page_fault);
}

void d12dred_report_free(d12dred_report *report)
{
    if (!report)
        return;
    free(report->reason_name);
    free(report->runtime_version);
    free(report->timestamp);
    free(report->process_name);
    free(report->driver);
    for (size_t i = 0; i < report->queue_count; i++)
        free_queue(report->queues[i]);
    free(report->queues);
    for (size_t i = 0; i < report->node_count; i++)
        free_node(report->nodes[i]);
    free(report->nodes);
    free_page_fault(report->page_fault);
    free_messages(report->flush_messages, report->flush_message_count);
    free(report->removed_by);
    free(report->deadlock);
    for (size_t i = 0; i < report->note_count; i++)
        free(report->notes[i]);
    free(report->notes);
    free(report->kind);
    for (size_t i = 0; i < report->fence_count; i++) {
        d12dred_fence *f = report->fences[i];
        for (size_t j = 0; j < f->change_count; j++) {
            free(f->changes[j].by);
            free(f->changes[j].call);
        }
        free(f->changes);
        free(f->name);
        free(f);
    }
    free(report->fences);
    d12__dred_free_timelines(report);
    d12__dred_free_extras(report);
    free(report);
}

int d12dred_report_set_reason(d12dred_report *report, int32_t reason, const char *reason_name)
{
    if (!report)
        return -1;
    report->reason = reason;
    return d12__dred_set_string(&report->reason_name, reason_name);
}

void d12dred_report_set_device_state(d12dred_report *report, uint32_t device_state)
{
    if (report)
        report->device_state = device_state;
}

void d12dred_report_set_features(d12dred_report *report, const d12dred_features *features)
{
    if (report && features)
        report->features = *features;
}

int d12dred_report_set_runtime_version(d12dred_report *report, const char *version)
{
    return report ? d12__dred_set_string(&report->runtime_version, version) : -1;
}

int d12dred_report_set_timestamp(d12dred_report *report, const char *iso8601_utc)
{
    return report ? d12__dred_set_string(&report->timestamp, iso8601_utc) : -1;
}

int d12dred_report_set_timestamp_seconds(d12dred_report *report, int64_t seconds)
{
    if (!report)
        return -1;
    time_t t = (time_t)seconds;
    struct tm tm;
    char text[32];
    if (!gmtime_r(&t, &tm) || strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return -1;
    return d12__dred_set_string(&report->timestamp, text);
}

int d12dred_report_set_process(d12dred_report *report, const char *name, uint32_t id)
{
    if (!report)
        return -1;
    report->process_id = id;
    return d12__dred_set_string(&report->process_name, name);
}

int d12dred_report_set_driver(d12dred_report *report, const char *driver)
{
    return report ? d12__dred_set_string(&report->driver, driver) : -1;
}

void d12dred_report_set_tdr_delay_ms(d12dred_report *report, uint32_t tdr_delay_ms)
{
    if (report)
        report->tdr_delay_ms = tdr_delay_ms;
}

/* ---- Queues ------------------------------------------------------------------------------------------------ */

d12dred_queue *d12dred_report_add_queue(d12dred_report *report, const char *name, uint32_t type)
{
    if (!report)
        return NULL;
    d12dred_queue *queue = calloc(1, sizeof *queue);
    if (!queue)
        return NULL;
    queue->type = type;
    if (d12__dred_set_string(&queue->name, name) != 0 ||
        append_pointer((void ***)&report->queues, &report->queue_count, queue) != 0) {
        free_queue(queue);
        return NULL;
    }
    return queue;
}

void d12dred_queue_set_faulted(d12dred_queue *queue, bool faulted)
{
    if (queue)
        queue->faulted = faulted;
}

d12dred_submission *d12dred_queue_add_submission(d12dred_queue *queue, uint64_t sequence,
                                                 d12dred_submission_status status)
{
    if (!queue || !d12dred_submission_status_name(status))
        return NULL;
    d12dred_submission *submission = calloc(1, sizeof *submission);
    if (!submission)
        return NULL;
    submission->sequence = sequence;
    submission->status = status;
    if (append_pointer((void ***)&queue->submissions, &queue->submission_count, submission) != 0) {
        free(submission);
        return NULL;
    }
    return submission;
}

int d12dred_submission_add_list(d12dred_submission *submission, const char *list, int32_t node)
{
    if (!submission)
        return -1;
    /* Exact-size array: a submission holds few lists. */
    d12dred_submission_list *lists = realloc(submission->lists, (submission->list_count + 1) * sizeof *lists);
    if (!lists)
        return -1;
    submission->lists = lists;
    d12dred_submission_list *entry = &lists[submission->list_count];
    memset(entry, 0, sizeof *entry);
    if (d12__dred_set_string(&entry->list, list) != 0)
        return -1;
    entry->node = node < 0 ? -1 : node;
    submission->list_count++;
    return 0;
}

int d12dred_queue_add_wait(d12dred_queue *queue, const char *fence, uint64_t value, uint64_t fence_value)
{
    if (!queue)
        return -1;
    d12dred_wait *waits = realloc(queue->waits, (queue->wait_count + 1) * sizeof *waits);
    if (!waits)
        return -1;
    queue->waits = waits;
    d12dred_wait *wait = &waits[queue->wait_count];
    memset(wait, 0, sizeof *wait);
    if (d12__dred_set_string(&wait->fence, fence) != 0)
        return -1;
    wait->value = value;
    wait->fence_value = fence_value;
    wait->behind_wait = -1;
    queue->wait_count++;
    return 0;
}

/* ---- Nodes and ops ----------------------------------------------------------------------------------------- */

d12dred_node *d12dred_report_add_node(d12dred_report *report, const char *list, const char *queue,
                                      uint64_t submission, uint32_t breadcrumb_count, uint32_t completed_count)
{
    if (!report)
        return NULL;
    d12dred_node *node = calloc(1, sizeof *node);
    if (!node)
        return NULL;
    node->submission = submission;
    node->breadcrumb_count = breadcrumb_count;
    node->completed_count = completed_count;
    if (d12__dred_set_string(&node->list, list) != 0 || d12__dred_set_string(&node->queue, queue) != 0 ||
        append_pointer((void ***)&report->nodes, &report->node_count, node) != 0) {
        free_node(node);
        return NULL;
    }
    return node;
}

int32_t d12dred_report_node_index(const d12dred_report *report, const d12dred_node *node)
{
    if (report && node)
        for (size_t i = 0; i < report->node_count && i < INT32_MAX; i++)
            if (report->nodes[i] == node)
                return (int32_t)i;
    return -1;
}

int d12dred_node_reserve_ops(d12dred_node *node, size_t count)
{
    if (!node)
        return -1;
    if (count <= node->op_capacity)
        return 0;
    if (count > SIZE_MAX / sizeof *node->ops)
        return -1;
    d12dred_op *ops = realloc(node->ops, count * sizeof *ops);
    if (!ops)
        return -1;
    node->ops = ops;
    node->op_capacity = count;
    return 0;
}

d12dred_op *d12dred_node_add_op(d12dred_node *node, uint32_t index, uint32_t op, uint32_t depth, const char *context)
{
    /* Indices increase within a node (the ring's order), so every report written can be read back. */
    if (!node || (node->op_count && index <= node->ops[node->op_count - 1].index))
        return NULL;
    if (d12__dred_grow((void **)&node->ops, &node->op_capacity, node->op_count, sizeof *node->ops) != 0)
        return NULL;
    d12dred_op *entry = &node->ops[node->op_count];
    memset(entry, 0, sizeof *entry);
    entry->index = index;
    entry->op = op;
    entry->depth = depth;
    if (d12__dred_set_string(&entry->context, context) != 0)
        return NULL;
    node->op_count++;
    return entry;
}

d12dred_op *d12dred_node_find_op(d12dred_node *node, uint32_t index)
{
    if (!node)
        return NULL;
    /* Ops are appended by increasing index (the ring's order): binary search. */
    size_t lo = 0, hi = node->op_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (node->ops[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < node->op_count && node->ops[lo].index == index)
        return &node->ops[lo];
    for (size_t i = 0; i < node->op_count; i++)  /* out-of-order input (a hand-written file): linear fallback */
        if (node->ops[i].index == index)
            return &node->ops[i];
    return NULL;
}

void d12dred_op_set_attribution(d12dred_op *op, d12dred_attribution attribution)
{
    if (op)
        op->attribution = attribution;
}

static int append_message(d12dred_message **messages, size_t *count, uint32_t id, uint32_t category,
                          uint32_t severity, const char *text)
{
    d12dred_message *grown = realloc(*messages, (*count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *messages = grown;
    d12dred_message *message = &grown[*count];
    memset(message, 0, sizeof *message);
    if (d12__dred_set_string(&message->text, text) != 0)
        return -1;
    message->id = id;
    message->category = category;
    message->severity = severity;
    (*count)++;
    return 0;
}

int d12dred_op_add_message(d12dred_op *op, uint32_t id, uint32_t category, uint32_t severity, const char *text)
{
    return op ? append_message(&op->messages, &op->message_count, id, category, severity, text) : -1;
}

d12dred_op_state *d12dred_op_get_state(d12dred_op *op)
{
    if (!op)
        return NULL;
    if (!op->state)
        op->state = calloc(1, sizeof *op->state);
    return op->state;
}

int d12dred_op_state_set_arguments(d12dred_op_state *state, const char *arguments)
{
    return state ? d12__dred_set_string(&state->arguments, arguments) : -1;
}

int d12dred_op_state_add_vertex_buffer(d12dred_op_state *state, uint32_t slot, uint64_t va, uint32_t size,
                                       uint32_t stride, const char *resource)
{
    if (!state)
        return -1;
    d12dred_vertex_buffer *grown = realloc(state->vertex_buffers, (state->vertex_buffer_count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    state->vertex_buffers = grown;
    d12dred_vertex_buffer *view = &grown[state->vertex_buffer_count];
    memset(view, 0, sizeof *view);
    if (d12__dred_set_string(&view->resource, resource) != 0)
        return -1;
    view->slot = slot;
    view->va = va;
    view->size = size;
    view->stride = stride;
    state->vertex_buffer_count++;
    return 0;
}

int d12dred_op_state_set_index_buffer(d12dred_op_state *state, uint64_t va, uint32_t size, uint32_t format,
                                      const char *resource)
{
    if (!state || d12__dred_set_string(&state->index_buffer.resource, resource) != 0)
        return -1;
    state->has_index_buffer = true;
    state->index_buffer.va = va;
    state->index_buffer.size = size;
    state->index_buffer.format = format;
    return 0;
}

int d12dred_op_state_add_root_descriptor(d12dred_op_state *state, uint32_t parameter, d12dred_root_kind kind,
                                         uint64_t va, const char *resource)
{
    if (!state || !d12dred_root_kind_name(kind))
        return -1;
    d12dred_root_descriptor *grown =
        realloc(state->root_descriptors, (state->root_descriptor_count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    state->root_descriptors = grown;
    d12dred_root_descriptor *root = &grown[state->root_descriptor_count];
    memset(root, 0, sizeof *root);
    if (d12__dred_set_string(&root->resource, resource) != 0)
        return -1;
    root->parameter = parameter;
    root->kind = kind;
    root->va = va;
    state->root_descriptor_count++;
    return 0;
}

/* ---- Page fault -------------------------------------------------------------------------------------------- */

d12dred_page_fault *d12dred_report_set_page_fault(d12dred_report *report, uint64_t va, uint32_t flags)
{
    if (!report)
        return NULL;
    if (!report->page_fault) {
        report->page_fault = calloc(1, sizeof *report->page_fault);
        if (!report->page_fault)
            return NULL;
    }
    report->page_fault->va = va;
    report->page_fault->flags = flags;
    return report->page_fault;
}

void d12dred_page_fault_set_verdict(d12dred_page_fault *page_fault, d12dred_verdict verdict)
{
    if (page_fault)
        page_fault->verdict = verdict;
}

static d12dred_allocation *new_allocation(const char *name, uint32_t type, uint64_t va, uint64_t size)
{
    d12dred_allocation *allocation = calloc(1, sizeof *allocation);
    if (!allocation)
        return NULL;
    if (d12__dred_set_string(&allocation->name, name) != 0) {
        free(allocation);
        return NULL;
    }
    allocation->type = type;
    allocation->va = va;
    allocation->size = size;
    return allocation;
}

static d12dred_allocation *add_allocation(d12dred_allocation ***list, size_t *count, const char *name,
                                          uint32_t type, uint64_t va, uint64_t size)
{
    d12dred_allocation *allocation = new_allocation(name, type, va, size);
    if (allocation && append_pointer((void ***)list, count, allocation) != 0) {
        free_allocation(allocation);
        return NULL;
    }
    return allocation;
}

d12dred_allocation *d12dred_page_fault_add_existing(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                    uint64_t va, uint64_t size)
{
    if (!page_fault)
        return NULL;
    return add_allocation(&page_fault->existing, &page_fault->existing_count, name, type, va, size);
}

d12dred_allocation *d12dred_page_fault_add_freed(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, bool freed_after_recording)
{
    if (!page_fault)
        return NULL;
    d12dred_allocation *allocation =
        add_allocation(&page_fault->freed, &page_fault->freed_count, name, type, va, size);
    if (allocation) {
        allocation->freed = true;
        allocation->freed_after_recording = freed_after_recording;
    }
    return allocation;
}

static d12dred_allocation *set_neighbour(d12dred_allocation **slot, const char *name, uint32_t type, uint64_t va,
                                         uint64_t size, uint64_t distance, bool freed)
{
    d12dred_allocation *allocation = new_allocation(name, type, va, size);
    if (!allocation)
        return NULL;
    allocation->distance = distance;
    allocation->freed = freed;
    free_allocation(*slot);
    *slot = allocation;
    return allocation;
}

d12dred_allocation *d12dred_page_fault_set_below(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, uint64_t distance, bool freed)
{
    return page_fault ? set_neighbour(&page_fault->below, name, type, va, size, distance, freed) : NULL;
}

d12dred_allocation *d12dred_page_fault_set_above(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, uint64_t distance, bool freed)
{
    return page_fault ? set_neighbour(&page_fault->above, name, type, va, size, distance, freed) : NULL;
}

int d12dred_report_add_flush_message(d12dred_report *report, uint32_t id, uint32_t category, uint32_t severity,
                                     const char *text)
{
    return report ? append_message(&report->flush_messages, &report->flush_message_count, id, category, severity,
                                   text)
                  : -1;
}

/* ---- Names ------------------------------------------------------------------------------------------------- */

const char *d12dred_attribution_name(d12dred_attribution attribution)
{
    switch (attribution) {
    case D12DRED_ATTRIBUTION_EXACT: return "exact";
    case D12DRED_ATTRIBUTION_SUSPECT: return "suspect";
    default: return NULL;
    }
}

const char *d12dred_submission_status_name(d12dred_submission_status status)
{
    switch (status) {
    case D12DRED_SUBMISSION_COMPLETED: return "completed";
    case D12DRED_SUBMISSION_IN_PROGRESS: return "in-progress";
    case D12DRED_SUBMISSION_NOT_STARTED: return "not-started";
    default: return NULL;
    }
}

const char *d12dred_verdict_name(d12dred_verdict verdict)
{
    switch (verdict) {
    case D12DRED_VERDICT_USE_AFTER_FREE: return "use-after-free";
    case D12DRED_VERDICT_OUT_OF_BOUNDS: return "out-of-bounds";
    case D12DRED_VERDICT_NEVER_MAPPED: return "never-mapped";
    default: return NULL;
    }
}

const char *d12dred_root_kind_name(d12dred_root_kind kind)
{
    switch (kind) {
    case D12DRED_ROOT_CBV: return "CBV";
    case D12DRED_ROOT_SRV: return "SRV";
    case D12DRED_ROOT_UAV: return "UAV";
    default: return NULL;
    }
}

/* D3D12_COMMAND_LIST_TYPE [d3d12.h]: 0 DIRECT, 1 BUNDLE, 2 COMPUTE, 3 COPY, 4 VIDEO_DECODE, 5 VIDEO_PROCESS,
 * 6 VIDEO_ENCODE. */
const char *d12dred_queue_type_name(uint32_t type)
{
    static const char *const names[] = {"DIRECT", "BUNDLE", "COMPUTE", "COPY", "VIDEO_DECODE", "VIDEO_PROCESS",
                                        "VIDEO_ENCODE"};
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

/* D3D12_MESSAGE_SEVERITY [d3d12sdklayers.h]. */
const char *d12dred_severity_name(uint32_t severity)
{
    static const char *const names[] = {"CORRUPTION", "ERROR", "WARNING", "INFO", "MESSAGE"};
    return severity < sizeof names / sizeof names[0] ? names[severity] : NULL;
}

/* D3D12_MESSAGE_CATEGORY [d3d12sdklayers.h], and 11 STATE_OBJECT_DATABASE (d12rt/d3d12_ext.h). */
const char *d12dred_category_name(uint32_t category)
{
    static const char *const names[] = {"APPLICATION_DEFINED", "MISCELLANEOUS", "INITIALIZATION", "CLEANUP",
                                        "COMPILATION", "STATE_CREATION", "STATE_SETTING", "STATE_GETTING",
                                        "RESOURCE_MANIPULATION", "EXECUTION", "SHADER", "STATE_OBJECT_DATABASE"};
    return category < sizeof names / sizeof names[0] ? names[category] : NULL;
}
