/* ID3D12InfoQueue1 callbacks (d3d12-semantics.md 4.6) and the deadlock-free delivery (docs/infoqueue.md):
 * order, flags, cookies, unregister waiting, re-entrant calls, a slow callback that does not block other
 * reporting threads, and many threads reporting at once. */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "iq_test.h"

static iqt_log log_;

/* A one-shot flag threads can wait on, with a timeout so a broken queue fails the test instead of hanging. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
} gate;

static void gate_init(gate *g)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->open = false;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

static bool gate_wait(gate *g, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&g->lock);
    while (!g->open && pthread_cond_timedwait(&g->cond, &g->lock, &until) == 0)
        ;
    bool open = g->open;
    pthread_mutex_unlock(&g->lock);
    return open;
}

static bool gate_is_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    bool open = g->open;
    pthread_mutex_unlock(&g->lock);
    return open;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static DWORD must_register(d12_info_queue *q, D3D12MessageFunc fn, D3D12_MESSAGE_CALLBACK_FLAGS flags, void *ctx)
{
    DWORD cookie = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, fn, flags, ctx, &cookie), S_OK);
    CHECK(cookie != 0);
    return cookie;
}

static d12_info_queue *muted_queue(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_log_init(&log_);
    return q;
}

static void check_entry(int index, int tag, const char *text)
{
    if (!CHECK(index < log_.count))
        return;
    CHECK_EQ_INT(log_.entries[index].tag, tag);
    CHECK_EQ_STR(log_.entries[index].text, text);
}

void iqt_callbacks_basic(void)
{
    d12_info_queue *q = muted_queue();
    iqt_sink a = {&log_, 1}, b = {&log_, 2};
    DWORD ca = must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &a);
    DWORD cb = must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &b);
    CHECK(ca != cb);
    iqt_add(q, CAT_EXEC, SEV_WARNING, 321, "m0");
    iqt_add(q, CAT_MISC, SEV_ERROR, 322, "m1");
    CHECK_EQ_INT(log_.count, 4); /* delivered before AddMessage returned: nobody else was delivering */
    check_entry(0, 1, "m0");     /* registration order, message by message */
    check_entry(1, 2, "m0");
    check_entry(2, 1, "m1");
    check_entry(3, 2, "m1");
    CHECK_EQ_INT(log_.entries[0].category, CAT_EXEC);
    CHECK_EQ_INT(log_.entries[0].severity, SEV_WARNING);
    CHECK_EQ_INT(log_.entries[0].id, 321);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, ca), S_OK);
    iqt_add(q, CAT_MISC, SEV_ERROR, 323, "m2");
    CHECK_EQ_INT(log_.count, 5);
    check_entry(4, 2, "m2");
    /* Unknown cookies: already unregistered, 0, never issued. */
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, ca), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, 0), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, 0xdeadbeef), E_INVALIDARG);
    /* A new registration gets a new cookie and goes last. */
    DWORD cc = must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &a);
    CHECK(cc != ca && cc != cb);
    iqt_add(q, CAT_MISC, SEV_ERROR, 324, "m3");
    check_entry(5, 2, "m3");
    check_entry(6, 1, "m3");
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cb), S_OK);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cc), S_OK);
    d12__info_queue_destroy(q);
}

void iqt_callback_validation(void)
{
    d12_info_queue *q = muted_queue();
    iqt_sink a = {&log_, 1};
    DWORD cookie = 99;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, 0, &a, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, NULL, 0, &a, &cookie), E_INVALIDARG);
    CHECK_EQ_INT(cookie, 0); /* 0 on failure */
    cookie = 99;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, (D3D12_MESSAGE_CALLBACK_FLAGS)2, &a,
                                                        &cookie),
                 E_INVALIDARG);
    CHECK_EQ_INT(cookie, 0);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "before");
    CHECK_EQ_INT(log_.count, 0);
    /* Positive: a NULL context is fine; a registration sees only messages reported after it. */
    cookie = 99;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS,
                                                        &a, &cookie),
                 S_OK);
    CHECK(cookie != 0 && cookie != 99);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "after");
    CHECK_EQ_INT(log_.count, 1);
    check_entry(0, 1, "after");
    d12__info_queue_destroy(q);
}

void iqt_callback_flags(void)
{
    d12_info_queue *q = muted_queue();
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    d12_info_queue_PushStorageFilter(q, &deny);
    iqt_sink filtered = {&log_, 1}, unfiltered = {&log_, 2};
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &filtered);
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, &unfiltered);
    iqt_add(q, CAT_MISC, SEV_INFO, 1, "denied");
    iqt_add(q, CAT_MISC, SEV_ERROR, 2, "allowed"); /* muted: still delivered (mute is about stderr only) */
    CHECK_EQ_INT(log_.count, 3);
    check_entry(0, 2, "denied");
    check_entry(1, 1, "allowed");
    check_entry(2, 2, "allowed");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1);
    d12__info_queue_destroy(q);
}

/* ---- Re-entrant callbacks ---- */

static d12_info_queue *reentrant_queue;
static int depth, max_depth;
static long stored_seen_inside;

static void reporting_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id,
                               const char *text, void *context)
{
    max_depth = ++depth > max_depth ? depth : max_depth;
    iqt_log_callback(c, s, id, text, context);
    if (strcmp(text, "outer") == 0) {
        CHECK_EQ_INT(d12_info_queue_AddMessage(reentrant_queue, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)2, "inner"),
                     S_OK);
        stored_seen_inside = (long)d12_info_queue_GetNumStoredMessages(reentrant_queue);
        CHECK_EQ_INT(log_.count, 1); /* not delivered recursively */
    }
    depth--;
}

void iqt_callback_nested_report(void)
{
    d12_info_queue *q = reentrant_queue = muted_queue();
    iqt_sink a = {&log_, 1}, b = {&log_, 2};
    must_register(q, reporting_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &a);
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &b);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "outer");
    CHECK_EQ_INT(max_depth, 1);
    CHECK_EQ_INT(stored_seen_inside, 2); /* stored at once; only the delivery waits */
    CHECK_EQ_INT(log_.count, 4);
    check_entry(0, 1, "outer");
    check_entry(1, 2, "outer"); /* the rest of "outer" first ... */
    check_entry(2, 1, "inner"); /* ... then "inner", in message order, after the callback returned */
    check_entry(3, 2, "inner");
    CHECK_EQ_INT(d12__info_queue_pending(q), 0);
    d12__info_queue_destroy(q);
}

typedef struct self_unregister {
    d12_info_queue *queue;
    DWORD cookie;
    HRESULT hr;
    int calls;
} self_unregister;

static void unregistering_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id,
                                   const char *text, void *context)
{
    (void)c, (void)s, (void)id, (void)text;
    self_unregister *self = context;
    self->calls++;
    self->hr = d12_info_queue_UnregisterMessageCallback(self->queue, self->cookie); /* must not wait for itself */
}

void iqt_callback_self_unregister(void)
{
    d12_info_queue *q = muted_queue();
    self_unregister self = {q, 0, E_FAIL, 0};
    self.cookie = must_register(q, unregistering_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &self);
    iqt_sink later = {&log_, 2};
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &later);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "a");
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "b");
    CHECK_EQ_INT(self.calls, 1);
    CHECK_EQ_INT(self.hr, S_OK);
    CHECK_EQ_INT(log_.count, 2); /* the one after it still gets every message, including the first */
    check_entry(0, 2, "a");
    check_entry(1, 2, "b");
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, self.cookie), E_INVALIDARG);
    d12__info_queue_destroy(q);
}

static void reading_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id,
                             const char *text, void *context)
{
    (void)c, (void)s, (void)id;
    d12_info_queue *q = context;
    UINT64 count = d12_info_queue_GetNumStoredMessages(q);
    CHECK_EQ_STR(iqt_text(q, count - 1), text); /* the message is stored before it is delivered */
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, NULL, &length), S_FALSE);
    CHECK_EQ_INT(d12_info_queue_PushEmptyRetrievalFilter(q), S_OK);
    d12_info_queue_PopRetrievalFilter(q);
    iqt_log_add(&log_, 1, c, s, id, text);
}

void iqt_callback_getmessage(void)
{
    d12_info_queue *q = muted_queue();
    must_register(q, reading_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, q);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "first");
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "second");
    CHECK_EQ_INT(log_.count, 2);
    d12__info_queue_destroy(q);
}

typedef struct registering {
    d12_info_queue *queue;
    iqt_sink sink;
    DWORD cookie;
} registering;

static void registering_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id,
                                 const char *text, void *context)
{
    registering *r = context;
    iqt_log_add(&log_, 1, c, s, id, text);
    if (!r->cookie)
        CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(r->queue, iqt_log_callback,
                                                            D3D12_MESSAGE_CALLBACK_FLAG_NONE, &r->sink, &r->cookie),
                     S_OK);
}

void iqt_callback_register_inside(void)
{
    d12_info_queue *q = muted_queue();
    registering r = {q, {&log_, 2}, 0};
    must_register(q, registering_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &r);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "first");  /* registers the second callback while delivering */
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "second");
    CHECK(r.cookie != 0);
    CHECK_EQ_INT(log_.count, 3);
    check_entry(0, 1, "first"); /* the new registration does not get the message being delivered */
    check_entry(1, 1, "second");
    check_entry(2, 2, "second");
    d12__info_queue_destroy(q);
}

/* ---- Threads ---- */

typedef struct slow {
    d12_info_queue *queue;
    gate entered, release, reported;
    atomic_int sequence;
    int callback_done_at, unregister_done_at;
    DWORD cookie;
    HRESULT unregister_hr;
    pthread_t delivering_thread;
    bool wrong_thread;
} slow;

/* Blocks on the message "slow" until released; logs every message and the thread it ran on. */
static void slow_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, const char *text,
                          void *context)
{
    slow *state = context;
    iqt_log_add(&log_, 1, c, s, id, text);
    pthread_mutex_lock(&state->entered.lock); /* the test sets delivering_thread under it */
    if (!pthread_equal(pthread_self(), state->delivering_thread))
        state->wrong_thread = true;
    pthread_mutex_unlock(&state->entered.lock);
    if (strcmp(text, "slow") == 0) {
        gate_open(&state->entered);
        gate_wait(&state->release, 10);
        state->callback_done_at = atomic_fetch_add(&state->sequence, 1) + 1;
    }
}

static void *report_slow(void *context)
{
    slow *state = context;
    d12_info_queue_AddMessage(state->queue, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, "slow");
    return NULL;
}

static void *unregister_slow(void *context)
{
    slow *state = context;
    state->unregister_hr = d12_info_queue_UnregisterMessageCallback(state->queue, state->cookie);
    state->unregister_done_at = atomic_fetch_add(&state->sequence, 1) + 1;
    return NULL;
}

static void slow_init(slow *state, d12_info_queue *q)
{
    memset(state, 0, sizeof(*state));
    state->queue = q;
    gate_init(&state->entered);
    gate_init(&state->release);
    gate_init(&state->reported);
    atomic_init(&state->sequence, 0);
}

void iqt_unregister_waits(void)
{
    d12_info_queue *q = muted_queue();
    slow state;
    slow_init(&state, q);
    pthread_t reporter, unregisterer;
    state.cookie = must_register(q, slow_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &state);
    pthread_mutex_lock(&state.entered.lock); /* so delivering_thread is set before the callback reads it */
    pthread_create(&reporter, NULL, report_slow, &state);
    state.delivering_thread = reporter;
    pthread_mutex_unlock(&state.entered.lock);
    CHECK(gate_wait(&state.entered, 10));
    pthread_create(&unregisterer, NULL, unregister_slow, &state);
    sleep_ms(200);
    CHECK_EQ_INT(atomic_load(&state.sequence), 0); /* Unregister is still waiting for the callback */
    gate_open(&state.release);
    pthread_join(unregisterer, NULL);
    pthread_join(reporter, NULL);
    CHECK_EQ_INT(state.callback_done_at, 1);
    CHECK_EQ_INT(state.unregister_done_at, 2); /* returned only after the callback completed */
    CHECK_EQ_INT(state.unregister_hr, S_OK);
    CHECK(!state.wrong_thread);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "after");
    CHECK_EQ_INT(log_.count, 1); /* unregistered: nothing more */
    d12__info_queue_destroy(q);
}

typedef struct burst {
    d12_info_queue *queue;
    gate done;
} burst;

static void *report_burst(void *context)
{
    burst *b = context;
    d12_info_queue_AddMessage(b->queue, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)2, "b1");
    d12_info_queue_AddMessage(b->queue, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)2, "b2");
    d12_info_queue_AddMessage(b->queue, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)2, "b3");
    gate_open(&b->done);
    return NULL;
}

void iqt_slow_callback_does_not_block(void)
{
    d12_info_queue *q = muted_queue();
    slow state;
    slow_init(&state, q);
    state.cookie = must_register(q, slow_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &state);
    pthread_t a, b;
    pthread_mutex_lock(&state.entered.lock); /* so delivering_thread is set before the callback reads it */
    pthread_create(&a, NULL, report_slow, &state);
    state.delivering_thread = a;
    pthread_mutex_unlock(&state.entered.lock);
    CHECK(gate_wait(&state.entered, 10));
    burst other = {.queue = q};
    gate_init(&other.done);
    pthread_create(&b, NULL, report_burst, &other);
    /* B returns from all three reports while A's callback is still blocked. */
    CHECK(gate_wait(&other.done, 10));
    CHECK(!gate_is_open(&state.release));
    pthread_join(b, NULL);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 4); /* stored at once */
    CHECK_EQ_INT(d12__info_queue_pending(q), 4); /* "slow" in flight, and three queued for its thread */
    CHECK_EQ_INT(log_.count, 1);
    gate_open(&state.release);
    pthread_join(a, NULL);
    CHECK_EQ_INT(d12__info_queue_pending(q), 0);
    CHECK_EQ_INT(log_.count, 4);
    check_entry(0, 1, "slow"); /* message order */
    check_entry(1, 1, "b1");
    check_entry(2, 1, "b2");
    check_entry(3, 1, "b3");
    CHECK(!state.wrong_thread); /* all delivered by A, the thread that was delivering */
    d12__info_queue_destroy(q);
}

#define THREADS 8
#define PER_THREAD 2000

typedef struct worker {
    d12_info_queue *queue;
    int index;
} worker;

static void *report_many(void *context)
{
    worker *w = context;
    char text[32];
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(text, sizeof(text), "%d:%d", w->index, i);
        D3D12_MESSAGE_SEVERITY severity = i % 2 ? SEV_INFO : SEV_ERROR;
        d12_info_queue_AddMessage(w->queue, CAT_MISC, severity, (D3D12_MESSAGE_ID)w->index, text);
    }
    return NULL;
}

/* Each thread's messages appear in its own order; returns how many entries had `tag`. */
static int check_per_thread_order(int tag)
{
    int last[THREADS], count = 0;
    bool ordered = true;
    for (int t = 0; t < THREADS; t++)
        last[t] = -1;
    for (int i = 0; i < log_.count; i++) {
        if (log_.entries[i].tag != tag)
            continue;
        int thread = -1, n = -1;
        sscanf(log_.entries[i].text, "%d:%d", &thread, &n);
        if (thread < 0 || thread >= THREADS || n <= last[thread])
            ordered = false;
        else
            last[thread] = n;
        count++;
    }
    CHECK(ordered);
    return count;
}

void iqt_concurrent_reports(void)
{
    d12_info_queue *q = muted_queue();
    d12_info_queue_SetMessageCountLimit(q, UINT64_MAX);
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    d12_info_queue_PushStorageFilter(q, &deny);
    iqt_sink filtered = {&log_, 1}, unfiltered = {&log_, 2};
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &filtered);
    must_register(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, &unfiltered);
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){q, t};
        pthread_create(&threads[t], NULL, report_many, &workers[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    const int total = THREADS * PER_THREAD;
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), total / 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), total / 2);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), total / 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 0);
    CHECK_EQ_INT(d12__info_queue_pending(q), 0);
    CHECK_EQ_INT(log_.count, total + total / 2);
    CHECK_EQ_INT(check_per_thread_order(1), total / 2);
    CHECK_EQ_INT(check_per_thread_order(2), total);
    /* Per message, the filtered callback (registered first) ran right before the unfiltered one. */
    bool paired = true;
    for (int i = 0; i + 1 < log_.count; i++)
        if (log_.entries[i].tag == 1 &&
            (log_.entries[i + 1].tag != 2 || strcmp(log_.entries[i].text, log_.entries[i + 1].text) != 0))
            paired = false;
    CHECK(paired);
    /* Stored messages keep each thread's order too. */
    int last[THREADS];
    bool ordered = true;
    for (int t = 0; t < THREADS; t++)
        last[t] = -1;
    for (UINT64 i = 0; i < (UINT64)total / 2; i++) {
        int thread = -1, n = -1;
        const char *text = iqt_text(q, i);
        if (!text || sscanf(text, "%d:%d", &thread, &n) != 2 || thread < 0 || thread >= THREADS || n <= last[thread])
            ordered = false;
        else
            last[thread] = n;
    }
    CHECK(ordered);
    d12__info_queue_destroy(q);
}
