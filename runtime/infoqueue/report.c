/* InfoQueue reporting: a formatted report goes through two short critical sections: the first decides (storage
 * filter, who wants the text), the text is formatted with no lock held, the second commits (stores, counts, queues
 * it for delivery). A verbatim report is decided and committed under one lock when it needs no allocation (a
 * recycled store node, a pooled delivery node), else it takes the same two steps.
 * Design: docs/infoqueue.md; docs/performance.md "Report path". */
#define _POSIX_C_SOURCE 200809L

#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Reporting ---- */

/* Where a report's text comes from: exactly one of text, format + args, or fn + context. */
typedef struct iq_source {
    const char *text;
    const char *format;
    va_list *args;
    d12__info_queue_format_fn fn;
    void *context;
} iq_source;

/* What the first critical section decided. */
typedef struct iq_decision {
    bool passed, print, store, deliver, brk;
    iq_identity who; /* v2: the message's identity (0, 0 for a runtime message) */
} iq_decision;

static size_t iq_vformat(char *buf, size_t size, const char *format, va_list *args)
{
    va_list copy;
    va_copy(copy, *args);
    int n = vsnprintf(buf, size, format, copy);
    va_end(copy);
    return n < 0 ? 0 : (size_t)n;
}

static size_t iq_source_format(const iq_source *source, char *buf, size_t size)
{
    if (source->text) {
        size_t length = strlen(source->text);
        if (size)
            memcpy(buf, source->text, length < size ? length + 1 : size);
        if (size && length >= size)
            buf[size - 1] = '\0';
        return length;
    }
    if (source->format)
        return iq_vformat(buf, size, source->format, source->args);
    return source->fn(buf, size, source->context);
}

/* Formats with no lock held into a node (iq_node_new); *length receives the text's bytes, NUL included. Verbatim
 * text is measured once and copied once. */
static iq_stored *iq_format(const iq_source *source, size_t *length)
{
    iq_assert_unlocked();
    if (source->text) {
        size_t bytes = strlen(source->text) + 1;
        iq_stored *node = d12__iq_node_new(bytes);
        if (!node)
            return NULL;
        memcpy(node->text, source->text, bytes);
        *length = bytes;
        return node;
    }
    char small[256];
    size_t needed = iq_source_format(source, small, sizeof(small));
    if (needed == SIZE_MAX)
        return NULL;
    iq_stored *node = d12__iq_node_new(needed + 1);
    if (!node)
        return NULL;
    if (needed < sizeof(small))
        memcpy(node->text, small, needed + 1);
    else
        iq_source_format(source, node->text, needed + 1);
    node->text[needed] = '\0'; /* a formatter that wrote less still leaves a terminated string */
    *length = strlen(node->text) + 1;
    return node;
}

/* First critical section: counts what needs no text and says who needs it. */
static inline __attribute__((always_inline)) iq_decision iq_decide(d12_info_queue *queue, UINT category,
                                                                    UINT severity, UINT id, const iq_identity *who)
{
    if (__builtin_expect(queue->plain, 1)) /* passes, stored, nothing to print, deliver or break on */
        return (iq_decision){.passed = true, .store = true, .who = *who};
    iq_decision d = {.who = *who};
    d.passed = iq_stack_passes(&queue->storage, category, severity, id);
    /* v2: a driver message the driver-message filters stop is treated as the storage filter's ("A message that does
     * not pass is neither stored nor delivered ... except callbacks registered with IGNORE_FILTERS") */
    if (d.passed && who->vendor_id != 0 && !d12__iq_driver_passes(queue, who))
        d.passed = false;
    d.print = d.passed && !queue->mute;
    d.store = d.passed && queue->limit > 0;
    d.deliver = queue->ignore_filter_callbacks > 0 || (d.passed && queue->callback_count > 0) || d.print;
    d.brk = d.passed && iq_breaks_on(queue, category, severity, id);
    if (!d.passed)
        queue->denied++;
    else if (!d.store && !d.deliver) {
        queue->allowed++;
        queue->discarded++; /* limit 0: passed, and discarded at once */
    }
    return d;
}

/* Fills a delivery node with a message (its text is `bytes` bytes, NUL included; the node holds them). */
static void iq_pending_fill(iq_pending *pending, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                            D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text, size_t bytes)
{
    pending->next = NULL;
    pending->seq = 0;
    pending->category = category;
    pending->severity = severity;
    pending->id = id;
    pending->passed = d->passed;
    pending->print = d->print;
    pending->who = d->who;
    memcpy(pending->text, text, bytes);
}

static iq_pending *iq_pending_from(const iq_stored *stored, const iq_decision *d)
{
    const D3D12_MESSAGE *m = &stored->message;
    iq_pending *pending = d12__iq_pending_new(m->DescriptionByteLength);
    if (pending)
        iq_pending_fill(pending, d, m->Category, m->Severity, m->ID, stored->text, m->DescriptionByteLength);
    return pending;
}

static void iq_enqueue(d12_info_queue *queue, iq_pending *pending)
{
    pending->seq = queue->next_seq;
    if (queue->pending_tail)
        queue->pending_tail->next = pending;
    else
        queue->pending_head = pending;
    queue->pending_tail = pending;
    queue->pending_count++;
}

/* Second critical section: store (if it passed), count, and queue for delivery. `node` is consumed. All or nothing
 * (found by the failure-injection sweep, reliability.fault.report.alloc: a message was stored without its callback,
 * or reported S_OK and not stored): a message the store cannot grow for is not delivered either, and false tells
 * the reporter (AddMessage, pfnReportMessageCb: E_OUTOFMEMORY). */
static bool iq_commit(d12_info_queue *queue, const iq_decision *d, iq_stored *node, iq_pending *pending)
{
    if (d->passed)
        queue->allowed++;
    bool stored = d->store && d12__iq_store(queue, node);
    bool whole = stored || !d->store;
    if (whole && pending &&
        (d->print || queue->ignore_filter_callbacks > 0 || (d->passed && queue->callback_count > 0)))
        iq_enqueue(queue, pending);
    else if (pending)
        d12__iq_pending_recycle(queue, pending); /* nobody wants it any more, or it is lost: back to the pool */
    queue->next_seq++;
    if (!stored) {
        if (d->passed)
            queue->discarded++; /* limit 0, or no memory to grow the store */
        free(node);
    }
    iq_deliver(queue);
    return whole;
}

/* Formats (no lock held), then commits; a message that cannot be allocated (its node, or its delivery when it has
 * one) is neither stored nor delivered, counted discarded: false. */
static bool iq_format_and_commit(d12_info_queue *queue, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                                 D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const iq_source *source)
{
    size_t length = 0;
    iq_stored *node = iq_format(source, &length);
    iq_pending *pending = NULL;
    if (node) {
        node->message = (D3D12_MESSAGE){category, severity, id, node->text, length};
        node->who = d->who;
        pending = d->deliver ? iq_pending_from(node, d) : NULL;
        if (d->deliver && !pending) {
            free(node);
            node = NULL;
        }
    }
    iq_lock(queue);
    bool whole = node && iq_commit(queue, d, node, pending);
    if (!node && d->passed)
        queue->allowed++, queue->discarded++;
    iq_unlock_and_reap(queue);
    return whole;
}

/* The common case, verbatim text (the driver-reported-messages path), decided and committed in one critical section
 * with no allocation: the stored copy goes into a node the store recycles (the oldest message's, evicted by the
 * count limit, or the spare) and the copy for delivery into a pooled delivery node; then this thread delivers
 * unless another already does. False, with nothing changed, when a node would have to be allocated: the caller
 * takes the two-step path (allocation with no lock held). docs/performance.md "Report path". */
static bool iq_report_text_locked(d12_info_queue *queue, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                                  D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text, size_t bytes)
{
    iq_pending *pending = NULL;
    if (d->deliver && !(pending = d12__iq_pending_take(queue, bytes)))
        return false;
    if (d->store && !iq_store_text_locked(queue, category, severity, id, text, bytes)) {
        if (pending)
            d12__iq_pending_recycle(queue, pending);
        return false;
    }
    if (d->store && d->who.vendor_id != 0)
        iq_at(queue, queue->end - 1)->who = d->who; /* v2: the node just placed (the limit evicts only older ones) */
    if (d->passed) {
        queue->allowed++;
        if (!d->store)
            queue->discarded++; /* limit 0: passed, delivered, not stored */
    }
    if (pending) {
        iq_pending_fill(pending, d, category, severity, id, text, bytes);
        iq_enqueue(queue, pending);
    }
    queue->next_seq++;
    iq_deliver(queue);
    return true;
}

/* A formatted report (printf format or a format function): decide, format with no lock held, commit. */
static void iq_report(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                      D3D12_MESSAGE_ID id, const iq_source *source)
{
    if (!queue)
        return;
    static const iq_identity runtime = {0, 0};
    iq_lock(queue);
    iq_decision d = iq_decide(queue, category, severity, id, &runtime);
    iq_unlock(queue);
    if (d.store || d.deliver)
        iq_format_and_commit(queue, &d, category, severity, id, source);
    if (d.brk)
        d12__iq_break(queue, category, severity, id);
}

/* A verbatim report that needs a node allocated: the two-step path with the text as its source. */
static __attribute__((noinline)) bool iq_text_format_and_commit(d12_info_queue *queue, const iq_decision *d,
                                                                D3D12_MESSAGE_CATEGORY category,
                                                                D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                                                                const char *text)
{
    iq_source source = {.text = text};
    return iq_format_and_commit(queue, d, category, severity, id, &source);
}

bool d12__info_queue_wants(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                           D3D12_MESSAGE_ID id)
{
    return d12__info_queue_wants_driver(queue, category, severity, id, 0, 0);
}

bool d12__info_queue_wants_driver(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                  D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, UINT vendor_id,
                                  UINT64 vendor_message_id)
{
    if (!queue)
        return false;
    iq_identity who = {vendor_id, vendor_message_id};
    iq_lock(queue);
    bool passed = iq_stack_passes(&queue->storage, category, severity, id) &&
                  (vendor_id == 0 || d12__iq_driver_passes(queue, &who));
    bool wanted = queue->ignore_filter_callbacks > 0 ||
                  (passed && (queue->limit > 0 || !queue->mute || queue->callback_count > 0));
    iq_unlock(queue);
    return wanted;
}

void d12__info_queue_report_fn(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                               D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, d12__info_queue_format_fn format,
                               void *context)
{
    iq_source source = {.fn = format, .context = context};
    iq_report(queue, category, severity, id, &source);
}

void d12__info_queue_report_v(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    iq_source source = {.format = format, .args = &copy};
    iq_report(queue, category, severity, id, &source);
    va_end(copy);
}

void d12__info_queue_report_f(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    d12__info_queue_report_v(queue, category, severity, id, format, args);
    va_end(args);
}

/* Verbatim text (the driver-reported-messages path): decided and committed in one critical section when no node
 * has to be allocated (iq_report_text_locked), else the two-step path. False when the message could not be had
 * whole for lack of memory (then neither stored nor delivered). */
bool d12__info_queue_report_text(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                 D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text)
{
    return d12__info_queue_report_driver_text(queue, category, severity, id, text, 0, 0);
}

bool d12__info_queue_report_driver_text(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                        D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text,
                                        UINT vendor_id, UINT64 vendor_message_id)
{
    if (!queue)
        return true;
    if (!text)
        text = "";
    size_t bytes = strlen(text) + 1; /* measured before the lock is taken */
    bool whole = true;
    iq_identity who = {vendor_id, vendor_message_id};
    iq_lock(queue);
    iq_decision d = iq_decide(queue, category, severity, id, &who);
    if ((d.store || d.deliver) && iq_report_text_locked(queue, &d, category, severity, id, text, bytes)) {
        iq_unlock_and_reap(queue);
    } else {
        iq_unlock(queue);
        if (d.store || d.deliver)
            whole = iq_text_format_and_commit(queue, &d, category, severity, id, text);
    }
    if (d.brk)
        d12__iq_break(queue, category, severity, id);
    return whole;
}

size_t d12__info_queue_pending(d12_info_queue *queue)
{
    iq_lock(queue);
    size_t count = queue->pending_count;
    iq_unlock(queue);
    return count;
}

/* ---- Adding messages ---- */

HRESULT d12_info_queue_AddMessage(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category,
                                  D3D12_MESSAGE_SEVERITY Severity, D3D12_MESSAGE_ID ID, LPCSTR pDescription)
{
    if (!pDescription || (UINT)Category >= IQ_CATEGORY_COUNT || (UINT)Severity >= IQ_SEVERITY_COUNT)
        return E_INVALIDARG;
    return d12__info_queue_report_text(queue, Category, Severity, ID, pDescription) ? S_OK : E_OUTOFMEMORY;
}

HRESULT d12_info_queue_AddApplicationMessage(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity,
                                             LPCSTR pDescription)
{
    return d12_info_queue_AddMessage(queue, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, Severity,
                                     D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, pDescription);
}

