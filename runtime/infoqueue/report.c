/* InfoQueue reporting: the one entry of a message's path (docs/infoqueue.md "Files, and a message's path"). A
 * report takes the lock, asks filters.c for the decision, stores through storage.c, queues the delivery copy, and
 * ends in delivery.c (callbacks, debug output, the break) or a plain unlock: each of those files is entered once,
 * and none of them calls back here. A formatted report drops the lock between the decision and the commit to
 * format its text; a verbatim one (the driver-reported-messages path) is decided and committed under one lock when
 * it needs no allocation (a recycled store node, a pooled delivery node).
 * Design: docs/infoqueue.md; docs/performance.md "Report path". */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Reporting ---- */

/* Where a formatted report's text comes from: format + args, or fn + context. */
typedef struct iq_source {
    const char *format;
    va_list *args;
    d12__info_queue_format_fn fn;
    void *context;
} iq_source;

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
    if (source->format)
        return iq_vformat(buf, size, source->format, source->args);
    return source->fn(buf, size, source->context);
}

/* Formats with no lock held into a new stored-message node; *length receives the text's bytes, NUL included. */
static iq_stored *iq_format(const iq_source *source, size_t *length)
{
    iq_assert_unlocked();
    char small[256];
    size_t needed = iq_source_format(source, small, sizeof(small));
    if (needed == SIZE_MAX)
        return NULL;
    iq_stored *node = iq_stored_new(needed + 1);
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

/* A delivery node allocated with the lock dropped meanwhile (held again on return); NULL: no memory. */
static __attribute__((noinline)) iq_pending *iq_pending_allocate(d12_info_queue *queue, size_t bytes)
{
    iq_unlock(queue);
    iq_pending *pending = iq_pending_new(bytes);
    iq_lock(queue);
    return pending;
}

/* A delivery node for `bytes` text bytes: a pooled one, else a new one. */
static inline iq_pending *iq_pending_reserve(d12_info_queue *queue, size_t bytes)
{
    iq_pending *pending = iq_pending_take(queue, bytes);
    if (__builtin_expect(pending != NULL, 1))
        return pending;
    return iq_pending_allocate(queue, bytes);
}

/* The commit, the message stored (or not wanted in the store): counts, and the delivery copy queued in commit
 * order. All or nothing (found by the failure-injection sweep, reliability.fault.report.alloc: a message was
 * stored without its callback, or reported S_OK and not stored): `whole` false, the message could not be had whole
 * for lack of memory, is neither stored nor delivered, and counted discarded. The delivery copy is queued only when
 * somebody still wants it (the settings may have changed while the lock was dropped), else it goes back to the
 * pool. */
static inline __attribute__((always_inline)) void iq_commit(d12_info_queue *queue, const iq_decision *d, bool whole,
                                                             iq_pending *pending)
{
    if (d->passed) {
        queue->allowed++;
        if (!whole || !d->store)
            queue->discarded++; /* no memory; or limit 0: passed, delivered, not stored */
    }
    if (pending && whole &&
        (d->print || queue->ignore_filter_callbacks > 0 || (d->passed && queue->callback_count > 0))) {
        pending->seq = queue->next_seq;
        if (queue->pending_tail)
            queue->pending_tail->next = pending;
        else
            queue->pending_head = pending;
        queue->pending_tail = pending;
        queue->pending_count++;
    } else if (pending) {
        iq_pending_recycle(queue, pending);
    }
    if (whole)
        queue->next_seq++;
}

/* Ends a report's critical section: in delivery.c when there is anything to deliver (this message or one queued
 * while nobody delivers) or to break on, else a plain unlock. */
static inline void iq_finish(d12_info_queue *queue, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                             D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id)
{
    if (__builtin_expect(!d->brk && !queue->pending_head, 1))
        iq_unlock_and_reap(queue);
    else
        d12__iq_deliver_and_unlock(queue, d->brk, category, severity, id);
}

/* A formatted report (printf format or a format function): decide, format with no lock held, commit. */
static void iq_report(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                      D3D12_MESSAGE_ID id, const iq_source *source)
{
    if (!queue)
        return;
    static const iq_identity runtime = {0, 0};
    iq_lock(queue);
    iq_decision d = queue->plain ? IQ_PLAIN : d12__iq_decide(queue, category, severity, id, &runtime); /* filters.c */
    d.who = runtime;
    if (d.store || d.deliver) {
        iq_unlock(queue);
        size_t length = 0;
        iq_stored *node = iq_format(source, &length);
        iq_pending *pending = NULL;
        if (node) {
            node->message = (D3D12_MESSAGE){category, severity, id, node->text, length};
            node->who = d.who;
            if (d.deliver && (pending = iq_pending_new(length)) != NULL)
                iq_pending_fill(pending, &d, category, severity, id, node->text, length);
            if (d.deliver && !pending) {
                free(node);
                node = NULL;
            }
        }
        iq_lock(queue);
        bool whole = node && (!d.store || d12__iq_store(queue, node)); /* storage.c */
        if (node && (!whole || !d.store))
            free(node);
        iq_commit(queue, &d, whole, pending);
    }
    iq_finish(queue, &d, category, severity, id); /* delivery.c, when anything is delivered or broken on */
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
 * has to be allocated (a pooled delivery node, a recycled store node), else with the lock dropped for each
 * allocation. False when the message could not be had whole for lack of memory (then neither stored nor
 * delivered). */
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
    iq_decision d =
        __builtin_expect(queue->plain, 1) ? IQ_PLAIN : d12__iq_decide(queue, category, severity, id, &who); /* filters.c */
    d.who = who;
    if (d.store || d.deliver) {
        iq_pending *pending = NULL;
        if (d.deliver && !(pending = iq_pending_reserve(queue, bytes)))
            whole = false;
        else if (d.store)
            whole = d12__iq_store_text(queue, &(D3D12_MESSAGE){category, severity, id, text, bytes}, &who); /* storage.c */
        if (pending && whole)
            iq_pending_fill(pending, &d, category, severity, id, text, bytes);
        iq_commit(queue, &d, whole, pending);
    }
    iq_finish(queue, &d, category, severity, id); /* delivery.c, when anything is delivered or broken on */
    return whole;
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

