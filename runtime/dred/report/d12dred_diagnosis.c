/* Issue 19's additions to the report model (d12dred_report.h, "Issue 19 additions"): node status, event stacks,
 * queued signals and the submission a wait holds back, where a state VA lies, copies, verdict details, the removal's
 * cause, notes, and the deadlock finder that reads a cycle off the queues' pending waits and queued signals. Every
 * member is additive to schema_version 1 (docs/dred-report.md). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

void d12dred_node_set_status(d12dred_node *node, d12dred_submission_status status)
{
    if (node && (unsigned)status <= D12DRED_SUBMISSION_NOT_STARTED) {
        node->has_status = true;
        node->status = status;
    }
}

d12dred_submission_status d12dred_node_status(const d12dred_node *n)
{
    if (n->has_status)
        return n->status;
    for (size_t i = 0; i < n->op_count; i++)
        if (n->ops[i].attribution == D12DRED_ATTRIBUTION_EXACT)
            return D12DRED_SUBMISSION_IN_PROGRESS; /* the op the driver named was running */
    if (n->completed_count >= n->breadcrumb_count)
        return D12DRED_SUBMISSION_COMPLETED;
    return n->completed_count ? D12DRED_SUBMISSION_IN_PROGRESS : D12DRED_SUBMISSION_NOT_STARTED;
}

int d12dred_op_set_event_stack(d12dred_op *op, const uint32_t *indices, size_t count)
{
    if (!op)
        return -1;
    uint32_t *copy = count ? malloc(count * sizeof *copy) : NULL;
    if (count && !copy)
        return -1;
    if (count)
        memcpy(copy, indices, count * sizeof *copy);
    free(op->event_stack);
    op->event_stack = copy;
    op->event_stack_count = count;
    op->has_event_stack = true;
    return 0;
}

int d12dred_node_fill_event_stacks(d12dred_node *n)
{
    if (!n)
        return -1;
    uint32_t *open = malloc((n->op_count ? n->op_count : 1) * sizeof *open);
    if (!open)
        return -1;
    size_t depth = 0;
    int rc = 0;
    for (size_t i = 0; i < n->op_count; i++) {
        d12dred_op *op = &n->ops[i];
        if (op->op == 2 && depth > 0) /* D3D12_AUTO_BREADCRUMB_OP_ENDEVENT */
            depth--;
        if (op->attribution != D12DRED_ATTRIBUTION_NONE ||
            (n->completed_count > 0 && op->index == n->completed_count - 1))
            rc |= d12dred_op_set_event_stack(op, open, depth);
        if (op->op == 1) /* D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT */
            open[depth++] = op->index;
    }
    free(open);
    return rc;
}

int d12dred_queue_add_signal(d12dred_queue *queue, const char *fence, uint64_t value, uint64_t fence_value,
                             uint64_t after_submission, int32_t behind_wait)
{
    if (!queue)
        return -1;
    d12dred_wait *signals = realloc(queue->signals, (queue->signal_count + 1) * sizeof *signals);
    if (!signals)
        return -1;
    queue->signals = signals;
    d12dred_wait *signal = &signals[queue->signal_count];
    memset(signal, 0, sizeof *signal);
    if (d12__dred_set_string(&signal->fence, fence) != 0)
        return -1;
    signal->value = value;
    signal->fence_value = fence_value;
    signal->after_submission = after_submission;
    signal->behind_wait = behind_wait;
    queue->signal_count++;
    return 0;
}

int d12dred_submission_set_waiting_on(d12dred_submission *submission, const d12dred_wait *wait)
{
    if (!submission || !wait)
        return -1;
    d12dred_wait *copy = calloc(1, sizeof *copy);
    if (!copy || d12__dred_set_string(&copy->fence, wait->fence) != 0) {
        free(copy);
        return -1;
    }
    copy->value = wait->value;
    copy->fence_value = wait->fence_value;
    copy->has_fence_id = wait->has_fence_id;
    copy->fence_id = wait->fence_id;
    copy->after_submission = wait->after_submission;
    copy->behind_wait = -1;
    if (submission->waiting_on)
        free(submission->waiting_on->fence);
    free(submission->waiting_on);
    submission->waiting_on = copy;
    return 0;
}

int d12dred_va_site_set(d12dred_va_site *site, bool has_offset, uint64_t offset, const char *note)
{
    if (!site)
        return -1;
    site->has_offset = has_offset;
    site->offset = has_offset ? offset : 0;
    return d12__dred_set_string(&site->note, note);
}

void d12__dred_free_va_site(d12dred_va_site *site)
{
    free(site->note);
    site->note = NULL;
}

int d12dred_op_state_set_copy(d12dred_op_state *state, uint64_t bytes, uint64_t src_va, uint64_t src_offset,
                              const char *src, uint64_t dst_va, uint64_t dst_offset, const char *dst)
{
    if (!state)
        return -1;
    state->has_copy = true;
    state->copy_bytes = bytes;
    state->copy_src.va = src_va;
    state->copy_src.offset = src_offset;
    state->copy_dst.va = dst_va;
    state->copy_dst.offset = dst_offset;
    return d12__dred_set_string(&state->copy_src.resource, src) | d12__dred_set_string(&state->copy_dst.resource, dst);
}

int d12dred_page_fault_set_detail(d12dred_page_fault *page_fault, const char *detail)
{
    return page_fault ? d12__dred_set_string(&page_fault->detail, detail) : -1;
}

int d12dred_page_fault_set_aliasing(d12dred_page_fault *page_fault, const char *aliasing)
{
    return page_fault ? d12__dred_set_string(&page_fault->aliasing, aliasing) : -1;
}

int d12dred_report_set_removed_by(d12dred_report *report, const char *removed_by)
{
    return report ? d12__dred_set_string(&report->removed_by, removed_by) : -1;
}

int d12dred_report_set_kind(d12dred_report *report, const char *kind)
{
    return report ? d12__dred_set_string(&report->kind, kind) : -1;
}

int d12dred_report_add_note(d12dred_report *report, const char *note)
{
    if (!report || !note)
        return -1;
    char **notes = realloc(report->notes, (report->note_count + 1) * sizeof *notes);
    if (!notes)
        return -1;
    report->notes = notes;
    notes[report->note_count] = NULL;
    if (d12__dred_set_string(&notes[report->note_count], note) != 0)
        return -1;
    report->note_count++;
    return 0;
}

/* ---- Deadlocks ---------------------------------------------------------------------------------------------- */

/* One fence? By identity where both carry one (issue 29: two fences may share a name, an unnamed one has none); an
 * older report has names only, and then only a shared name can tell. */
static int same_fence(const d12dred_wait *a, const d12dred_wait *b)
{
    if (a->has_fence_id && b->has_fence_id)
        return a->fence_id == b->fence_id;
    return a->fence && b->fence && strcmp(a->fence, b->fence) == 0;
}

/* Queue `q`'s first pending wait is blocked by queue `*next` alone: every queued signal that could satisfy it
 * (same fence, value >= the awaited one) is on one other queue, behind a pending wait there (returned in
 * *next_wait). A wait already satisfied by the fence's value, or with no signal queued, or a signal on a free queue,
 * is no edge. */
static int blocked_by(const d12dred_report *r, size_t q, size_t *next, const d12dred_wait **next_wait)
{
    const d12dred_queue *queue = r->queues[q];
    if (!queue->wait_count)
        return 0;
    const d12dred_wait *w = &queue->waits[0];
    if ((!w->fence && !w->has_fence_id) || w->fence_value >= w->value)
        return 0;
    int found = 0;
    for (size_t i = 0; i < r->queue_count; i++) {
        const d12dred_queue *other = r->queues[i];
        for (size_t j = 0; j < other->signal_count; j++) {
            const d12dred_wait *s = &other->signals[j];
            if (!same_fence(s, w) || s->value < w->value)
                continue;
            if (i == q || s->behind_wait < 0 || (size_t)s->behind_wait >= other->wait_count)
                return 0; /* a signal that can still run (or the queue's own, behind its own wait: not a cycle
                             among queues) */
            if (found && *next != i)
                return 0; /* signalled by two queues: "signalled only by" does not hold */
            found = 1;
            *next = i;
            *next_wait = &other->waits[s->behind_wait];
        }
    }
    return found;
}

static void put_quoted(d12__dred_buf *b, const char *name)
{
    if (name)
        d12__dred_buf_printf(b, "'%s'", name);
    else
        d12__dred_buf_puts(b, "(unnamed)");
}

static void put_wait(d12__dred_buf *b, const d12dred_report *r, const d12dred_wait *w)
{
    d12__dred_put_fence(b, r, w->fence, w->has_fence_id, w->fence_id);
    d12__dred_buf_printf(b, " >= %" PRIu64 " (at %" PRIu64 ")", w->value, w->fence_value);
}

int d12dred_report_find_deadlock(d12dred_report *r)
{
    if (!r)
        return -1;
    free(r->deadlock);
    r->deadlock = NULL;
    for (size_t start = 0; start < r->queue_count; start++) {
        /* Follow "blocked only by" edges from `start`; a cycle back to it is the deadlock. */
        size_t hops[64], at = start, count = 0;
        const d12dred_wait *waits[64];
        int cycle = 0;
        while (count < 64) {
            size_t next = 0;
            const d12dred_wait *next_wait = NULL;
            if (!blocked_by(r, at, &next, &next_wait))
                break;
            hops[count] = next;
            waits[count] = next_wait;
            count++;
            if (next == start) {
                cycle = 1;
                break;
            }
            at = next;
        }
        if (!cycle)
            continue;
        d12__dred_buf b = {0};
        const d12dred_wait *first = &r->queues[start]->waits[0];
        d12__dred_buf_puts(&b, "deadlock: queue ");
        put_quoted(&b, r->queues[start]->name);
        d12__dred_buf_puts(&b, " waits ");
        put_wait(&b, r, first);
        for (size_t i = 0; i + 1 < count; i++) {
            d12__dred_buf_puts(&b, ", signalled only by queue ");
            put_quoted(&b, r->queues[hops[i]]->name);
            d12__dred_buf_puts(&b, " behind its wait on ");
            put_wait(&b, r, waits[i]);
        }
        /* the sentence closes its cycle (issue 32 item 6): the last wait is signalled by the first queue, after the
         * wait it started from */
        d12__dred_buf_puts(&b, ", which queue ");
        put_quoted(&b, r->queues[start]->name);
        d12__dred_buf_puts(&b, " signals only after its own wait: a cycle");
        if (count == 1) { /* a queue blocked behind its own wait cannot be: blocked_by refuses it */
            free(b.data);
            continue;
        }
        if (b.failed) {
            free(b.data);
            return -1;
        }
        r->deadlock = b.data;
        return 0;
    }
    return 0;
}
