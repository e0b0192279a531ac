/* InfoQueue delivery: debug output, the break action, and callbacks, delivered in commit order with no lock held by
 * whichever thread finds nobody delivering (everybody else only queues): d12__iq_deliver_and_unlock, the last step
 * of a message's path; registration and unregistration. Nothing here calls another file of runtime/infoqueue/ on a
 * message's path. Design: docs/infoqueue.md "Delivery without deadlock"; lock: docs/locking.md. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Lifetime ---- */

iq_break_action d12__iq_break_action_from_env(void)
{
    const char *value = getenv("D12RT_BREAK");
    if (!value || !*value || strcmp(value, "auto") == 0)
        return IQ_BREAK_AUTO;
    if (strcmp(value, "trap") == 0)
        return IQ_BREAK_TRAP;
    if (strcmp(value, "log") == 0)
        return IQ_BREAK_LOG;
    if (strcmp(value, "none") == 0)
        return IQ_BREAK_NONE;
    fprintf(stderr, "d12rt: D12RT_BREAK=%s is not one of auto, trap, log, none; using auto\n", value);
    return IQ_BREAK_AUTO;
}


/* ---- Debug output and break ---- */

static const char *iq_category_name(D3D12_MESSAGE_CATEGORY category)
{
    static const char *const names[IQ_CATEGORY_COUNT] = {
        "APPLICATION_DEFINED", "MISCELLANEOUS", "INITIALIZATION", "CLEANUP", "COMPILATION", "STATE_CREATION",
        "STATE_SETTING", "STATE_GETTING", "RESOURCE_MANIPULATION", "EXECUTION", "SHADER", "STATE_OBJECT_DATABASE"};
    return (UINT)category < IQ_CATEGORY_COUNT ? names[category] : "UNKNOWN_CATEGORY";
}

static const char *iq_severity_name(D3D12_MESSAGE_SEVERITY severity)
{
    static const char *const names[IQ_SEVERITY_COUNT] = {"CORRUPTION", "ERROR", "WARNING", "INFO", "MESSAGE"};
    return (UINT)severity < IQ_SEVERITY_COUNT ? names[severity] : "UNKNOWN_SEVERITY";
}

/* One fprintf per message so lines from several queues do not interleave (stdio locks per call). */
static void iq_print(const iq_pending *message)
{
    iq_assert_unlocked();
    const char *severity = iq_severity_name(message->severity);
    fprintf(stderr, "D3D12 %s: %s [ %s %s #%u ]\n", severity, message->text, iq_category_name(message->category),
            severity, (unsigned)message->id);
}

static bool iq_traced(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    if (!status)
        return false;
    char line[256];
    long tracer = 0;
    while (fgets(line, sizeof(line), status))
        if (strncmp(line, "TracerPid:", 10) == 0)
            tracer = strtol(line + 10, NULL, 10);
    fclose(status);
    return tracer != 0;
}

/* Runs on the reporting thread, after the message was committed, with no lock held. */
static void iq_break(const d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                   D3D12_MESSAGE_ID id)
{
    iq_assert_unlocked();
    iq_break_action action = queue->break_action;
    if (action == IQ_BREAK_AUTO)
        action = iq_traced() ? IQ_BREAK_TRAP : IQ_BREAK_LOG;
    if (action == IQ_BREAK_TRAP)
        raise(SIGTRAP);
    else if (action == IQ_BREAK_LOG)
        fprintf(stderr, "d12rt: break on D3D12 %s message #%u (%s); set D12RT_BREAK=trap to stop here\n",
                iq_severity_name(severity), (unsigned)id, iq_category_name(category));
}

/* ---- Delivery (callbacks) ---- */

static bool iq_callback_wants(const iq_callback *callback, const iq_pending *message)
{
    if (message->seq < callback->first_seq)
        return false;
    return (callback->flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) || message->passed;
}

/* The first registration after the one registered as `*last` (0: none yet) that wants the message. The
 * array keeps registration order and may change whenever the lock is dropped, so the position is an order
 * number, not an index. */
static const iq_callback *iq_next_callback(const d12_info_queue *queue, const iq_pending *message, uint64_t *last)
{
    for (size_t i = 0; i < queue->callback_count; i++) {
        const iq_callback *callback = &queue->callbacks[i];
        if (callback->order > *last && iq_callback_wants(callback, message)) {
            *last = callback->order;
            return callback;
        }
    }
    return NULL;
}

/* How many application callbacks this thread is inside (infoqueue.h, d12__info_queue_in_callback). */
static _Thread_local unsigned callback_depth;

bool d12__info_queue_in_callback(void)
{
    return callback_depth > 0;
}

/* Called and returns with the lock held; drops it around the output and each callback. */
static void iq_deliver_one(d12_info_queue *queue, const iq_pending *message)
{
    if (message->print) {
        iq_unlock(queue);
        iq_print(message);
        iq_lock(queue);
    }
    uint64_t last = 0;
    const iq_callback *next;
    while ((next = iq_next_callback(queue, message, &last)) != NULL) {
        iq_callback callback = *next; /* the array may move while unlocked */
        queue->running_cookie = callback.cookie;
        iq_unlock(queue);
        iq_assert_unlocked();
        callback_depth++;
        if (callback.function1) { /* v2: "valid only during the call" */
            D3D12_MESSAGE1 m = {message->category, message->severity, message->id, message->text,
                                strlen(message->text) + 1, message->who.vendor_id, message->who.vendor_message_id};
            callback.function1(&m, callback.context);
        } else {
            callback.function(message->category, message->severity, message->id, message->text, callback.context);
        }
        callback_depth--;
        iq_lock(queue);
        queue->running_cookie = 0;
        if (queue->callback_waiters) /* only UnregisterMessageCallback waits on it */
            d12__iq_broadcast_callback_done(queue);
    }
}

/* Called and returns with the lock held. Delivers everything queued unless some thread (maybe this one,
 * further up the stack inside a callback) already does; then that thread delivers it, in order. */
static void iq_deliver_pending(d12_info_queue *queue)
{
    if (queue->delivering || !queue->pending_head) /* nothing to deliver: the common, muted case */
        return;
    queue->delivering = true;
    queue->deliverer = pthread_self();
    while (queue->pending_head) {
        iq_pending *message = queue->pending_head;
        queue->pending_head = message->next;
        if (!queue->pending_head)
            queue->pending_tail = NULL;
        iq_deliver_one(queue, message);
        queue->pending_count--;
        iq_pending_recycle(queue, message);
    }
    queue->delivering = false;
}

void d12__iq_deliver_and_unlock(d12_info_queue *queue, bool brk, D3D12_MESSAGE_CATEGORY category,
                                D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id)
{
    iq_deliver_pending(queue);
    iq_unlock_and_reap(queue);
    if (brk)
        iq_break(queue, category, severity, id);
}

size_t d12__info_queue_pending(d12_info_queue *queue)
{
    iq_lock(queue);
    size_t count = queue->pending_count;
    iq_unlock(queue);
    return count;
}

/* ---- ID3D12InfoQueue1: callbacks ---- */

static bool iq_cookie_in_use(const d12_info_queue *queue, DWORD cookie)
{
    for (size_t i = 0; i < queue->callback_count; i++)
        if (queue->callbacks[i].cookie == cookie)
            return true;
    return false;
}

/* Never 0, never one in use (after 2^32 registrations the counter wraps; live cookies are skipped). */
static DWORD iq_new_cookie(d12_info_queue *queue)
{
    DWORD cookie;
    do {
        cookie = queue->next_cookie++;
    } while (cookie == 0 || iq_cookie_in_use(queue, cookie));
    return cookie;
}

static bool iq_callbacks_reserve(d12_info_queue *queue)
{
    if (queue->callback_count < queue->callback_capacity)
        return true;
    size_t capacity = queue->callback_capacity ? queue->callback_capacity * 2 : 4;
    iq_callback *callbacks = realloc(queue->callbacks, capacity * sizeof(*callbacks));
    if (!callbacks)
        return false;
    queue->callbacks = callbacks;
    queue->callback_capacity = capacity;
    return true;
}

HRESULT d12_info_queue_RegisterMessageCallback(d12_info_queue *queue, D3D12MessageFunc CallbackFunc,
                                               D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext,
                                               DWORD *pCallbackCookie)
{
    return d12__iq_register(queue, CallbackFunc, NULL, CallbackFilterFlags, pContext, pCallbackCookie);
}

HRESULT d12__iq_register(d12_info_queue *queue, D3D12MessageFunc CallbackFunc, D3D12MessageFunc1 function1,
                         D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext, DWORD *pCallbackCookie)
{
    if (!pCallbackCookie)
        return E_INVALIDARG;
    *pCallbackCookie = 0;
    if (!CallbackFunc == !function1 || (CallbackFilterFlags & ~D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS))
        return E_INVALIDARG;
    iq_lock(queue);
    HRESULT hr = S_OK;
    if (!iq_callbacks_reserve(queue)) {
        hr = E_OUTOFMEMORY;
    } else {
        /* The cookie is chosen before the new slot counts as in use: iq_new_cookie scans the live slots, and the
         * new one is not initialised yet. */
        DWORD cookie = iq_new_cookie(queue);
        iq_callback *callback = &queue->callbacks[queue->callback_count++];
        *callback = (iq_callback){++queue->next_order, cookie, queue->next_seq, CallbackFunc, function1,
                                  CallbackFilterFlags, pContext};
        queue->ignore_filter_callbacks += (CallbackFilterFlags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) != 0;
        d12__iq_settings_changed(queue);
        *pCallbackCookie = callback->cookie;
    }
    iq_unlock(queue);
    return hr;
}

static void iq_remove_callback(d12_info_queue *queue, size_t index)
{
    queue->ignore_filter_callbacks -= (queue->callbacks[index].flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) != 0;
    memmove(&queue->callbacks[index], &queue->callbacks[index + 1],
            (queue->callback_count - index - 1) * sizeof(*queue->callbacks));
    queue->callback_count--;
    d12__iq_settings_changed(queue);
}

/* Waits for the callback to return unless this very thread is the one running it (a callback unregistering
 * itself, or any registration, from inside a callback: this thread is the deliverer then). */
HRESULT d12_info_queue_UnregisterMessageCallback(d12_info_queue *queue, DWORD CallbackCookie)
{
    iq_lock(queue);
    size_t index = 0;
    while (index < queue->callback_count && queue->callbacks[index].cookie != CallbackCookie)
        index++;
    if (CallbackCookie == 0 || index == queue->callback_count) {
        iq_unlock(queue);
        return E_INVALIDARG;
    }
    iq_remove_callback(queue, index);
    bool on_this_thread = queue->delivering && pthread_equal(queue->deliverer, pthread_self());
    queue->callback_waiters++;
    while (!on_this_thread && queue->running_cookie == CallbackCookie)
        d12__iq_wait_callback_done(queue);
    queue->callback_waiters--;
    iq_unlock(queue);
    return S_OK;
}

void d12__info_queue_test_set_next_cookie(d12_info_queue *queue, DWORD cookie)
{
    iq_lock(queue);
    queue->next_cookie = cookie;
    iq_unlock(queue);
}
