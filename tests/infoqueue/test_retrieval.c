/* Retrieval by index at scale (docs/infoqueue.md "Storage and retrieval") and callback cookies. The cost is asserted
 * by counting the stored messages retrieval examines (d12__info_queue_test_visits), never by wall time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "iq_test.h"

#define IQT_MANY 200000u

/* Reports `n` messages "m<i>": severity ERROR, WARNING, INFO in turn, category MISC or EXEC in turn, ID i % 7. */
static void iqt_fill(d12_info_queue *q, unsigned n)
{
    char text[32];
    static const D3D12_MESSAGE_SEVERITY severities[] = {SEV_ERROR, SEV_WARNING, SEV_INFO};
    for (unsigned i = 0; i < n; i++) {
        snprintf(text, sizeof text, "m%u", i);
        d12_info_queue_AddMessage(q, i % 2 ? CAT_EXEC : CAT_MISC, severities[i % 3], (D3D12_MESSAGE_ID)(i % 7), text);
    }
}

static d12_info_queue *iqt_unlimited(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, UINT64_MAX), S_OK);
    return q;
}

/* 200k stored messages, read in order without a retrieval filter: one message examined per GetMessage call. */
void iqt_getmessage_many_unfiltered(void)
{
    d12_info_queue *q = iqt_unlimited();
    iqt_fill(q, IQT_MANY);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), IQT_MANY);
    uint64_t before = d12__info_queue_test_visits(q);
    unsigned wrong = 0;
    char expected[32];
    for (unsigned i = 0; i < IQT_MANY; i++) { /* iqt_text: GetMessage twice (size, then copy) */
        snprintf(expected, sizeof expected, "m%u", i);
        const char *text = iqt_text(q, i);
        wrong += !text || strcmp(text, expected) != 0;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(d12__info_queue_test_visits(q) - before, 2ull * IQT_MANY);
    /* Random access too: the newest, the oldest, the middle, each one examination. */
    before = d12__info_queue_test_visits(q);
    CHECK_EQ_STR(iqt_text(q, IQT_MANY - 1), "m199999");
    CHECK_EQ_STR(iqt_text(q, 0), "m0");
    CHECK_EQ_STR(iqt_text(q, IQT_MANY / 2), "m100000");
    CHECK(iqt_text(q, IQT_MANY) == NULL);
    CHECK_EQ_INT(d12__info_queue_test_visits(q) - before, 6);
    d12__info_queue_destroy(q);
}

/* 200k stored messages, a retrieval filter passing a third of them, read in order: amortised O(1), i.e. every
 * stored message examined about once over the whole sweep (plus one per call for the size-then-copy pair). */
void iqt_getmessage_many_filtered(void)
{
    d12_info_queue *q = iqt_unlimited();
    iqt_fill(q, IQT_MANY);
    D3D12_MESSAGE_SEVERITY allow[] = {SEV_WARNING}; /* messages 1, 4, 7, ... */
    D3D12_INFO_QUEUE_FILTER f = {.AllowList = {.NumSeverities = 1, .pSeverityList = allow}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &f), S_OK);
    uint64_t before = d12__info_queue_test_visits(q);
    const unsigned retrievable = (IQT_MANY + 1) / 3;
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), retrievable);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), retrievable); /* kept: no rescan */
    CHECK_EQ_INT(d12__info_queue_test_visits(q) - before, IQT_MANY);
    before = d12__info_queue_test_visits(q);
    unsigned wrong = 0;
    char expected[32];
    for (unsigned i = 0; i < retrievable; i++) {
        snprintf(expected, sizeof expected, "m%u", 3 * i + 1);
        const char *text = iqt_text(q, i);
        wrong += !text || strcmp(text, expected) != 0;
    }
    CHECK_EQ_INT(wrong, 0);
    uint64_t visits = d12__info_queue_test_visits(q) - before;
    CHECK(visits <= IQT_MANY + 2ull * retrievable);
    if (visits > IQT_MANY + 2ull * retrievable)
        fprintf(stderr, "    %llu examinations for a sweep of %u\n", (unsigned long long)visits, IQT_MANY);
    CHECK(iqt_text(q, retrievable) == NULL);
    /* Appending keeps the count exact without a rescan. */
    before = d12__info_queue_test_visits(q);
    iqt_add(q, CAT_MISC, SEV_WARNING, 1, "late");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), retrievable + 1);
    CHECK_EQ_INT(d12__info_queue_test_visits(q) - before, 0);
    CHECK_EQ_STR(iqt_text(q, retrievable), "late");
    d12__info_queue_destroy(q);
}

/* ---- A model of the store, against which random operations are checked ---- */

#define IQT_MODEL_MAX 4096

typedef struct iqt_model_msg {
    D3D12_MESSAGE_CATEGORY category;
    D3D12_MESSAGE_SEVERITY severity;
    UINT id;
    unsigned serial;
} iqt_model_msg;

typedef struct iqt_model {
    iqt_model_msg msgs[IQT_MODEL_MAX]; /* oldest first */
    unsigned count;
    uint64_t limit;
    int filter; /* 0 none, 1 allow WARNING, 2 deny EXEC, 3 allow IDs {2, 5} */
} iqt_model;

static uint32_t iqt_rng = 12345;
static uint32_t iqt_next(void)
{
    iqt_rng = iqt_rng * 1103515245u + 12345u;
    return iqt_rng >> 8;
}

static bool iqt_model_passes(const iqt_model *m, const iqt_model_msg *msg)
{
    switch (m->filter) {
    case 1: return msg->severity == SEV_WARNING;
    case 2: return msg->category != CAT_EXEC;
    case 3: return msg->id == 2 || msg->id == 5;
    default: return true;
    }
}

static void iqt_model_trim(iqt_model *m)
{
    while (m->count > m->limit) {
        memmove(&m->msgs[0], &m->msgs[1], (m->count - 1) * sizeof(m->msgs[0]));
        m->count--;
    }
}

static void iqt_set_filter(d12_info_queue *q, iqt_model *m, int filter)
{
    static D3D12_MESSAGE_SEVERITY warning[] = {SEV_WARNING};
    static D3D12_MESSAGE_CATEGORY exec[] = {CAT_EXEC};
    static D3D12_MESSAGE_ID ids[] = {(D3D12_MESSAGE_ID)2, (D3D12_MESSAGE_ID)5};
    D3D12_INFO_QUEUE_FILTER f = {0};
    if (filter == 1)
        f.AllowList = (D3D12_INFO_QUEUE_FILTER_DESC){.NumSeverities = 1, .pSeverityList = warning};
    else if (filter == 2)
        f.DenyList = (D3D12_INFO_QUEUE_FILTER_DESC){.NumCategories = 1, .pCategoryList = exec};
    else if (filter == 3)
        f.AllowList = (D3D12_INFO_QUEUE_FILTER_DESC){.NumIDs = 2, .pIDList = ids};
    if (d12_info_queue_GetRetrievalFilterStackSize(q) > 0 && iqt_next() % 2)
        d12_info_queue_PopRetrievalFilter(q);
    if (filter == 0 && iqt_next() % 2)
        CHECK_EQ_INT(d12_info_queue_PushEmptyRetrievalFilter(q), S_OK);
    else if (filter != 0)
        CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &f), S_OK);
    else
        while (d12_info_queue_GetRetrievalFilterStackSize(q) > 0)
            d12_info_queue_PopRetrievalFilter(q);
    m->filter = filter;
}

/* Whether GetMessage(index) agrees with the model (the message, or E_INVALIDARG past the end). */
static bool iqt_model_read(d12_info_queue *q, const iqt_model *m, unsigned index)
{
    unsigned k = 0;
    const iqt_model_msg *want = NULL;
    for (unsigned i = 0; i < m->count && !want; i++)
        if (iqt_model_passes(m, &m->msgs[i]) && k++ == index)
            want = &m->msgs[i];
    const char *text = iqt_text(q, index);
    if (!want)
        return text == NULL;
    char expected[32];
    snprintf(expected, sizeof expected, "s%u", want->serial);
    return text && strcmp(text, expected) == 0;
}

static unsigned iqt_model_retrievable(const iqt_model *m)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->count; i++)
        n += iqt_model_passes(m, &m->msgs[i]);
    return n;
}

/* Random adds, reads (sequential sweeps and random indices), filter pushes and pops, limit changes (evictions) and
 * clears, each read and count checked against the model. */
void iqt_getmessage_model(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    static iqt_model m;
    m.limit = 300;
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, m.limit), S_OK);
    unsigned serial = 0, mismatches = 0, reads = 0;
    static const D3D12_MESSAGE_SEVERITY severities[] = {SEV_ERROR, SEV_WARNING, SEV_INFO};
    for (unsigned step = 0; step < 20000; step++) {
        unsigned op = iqt_next() % 100;
        if (op < 55) { /* add */
            iqt_model_msg msg = {iqt_next() % 2 ? CAT_EXEC : CAT_MISC, severities[iqt_next() % 3], iqt_next() % 7,
                                 serial++};
            char text[32];
            snprintf(text, sizeof text, "s%u", msg.serial);
            iqt_add(q, msg.category, msg.severity, msg.id, text);
            if (m.limit > 0) {
                m.msgs[m.count++] = msg;
                iqt_model_trim(&m);
            }
        } else if (op < 80) { /* a random read */
            unsigned bound = iqt_model_retrievable(&m) + 2;
            mismatches += !iqt_model_read(q, &m, iqt_next() % bound);
            reads++;
        } else if (op < 88) { /* a sequential sweep, interleaved with one add midway */
            unsigned n = iqt_model_retrievable(&m);
            for (unsigned i = 0; i <= n; i++, reads++)
                mismatches += !iqt_model_read(q, &m, i);
        } else if (op < 93) {
            iqt_set_filter(q, &m, (int)(iqt_next() % 4));
        } else if (op < 98) { /* lower or raise the limit */
            m.limit = iqt_next() % 8 == 0 ? 0 : 50 + iqt_next() % 400;
            if (m.limit > IQT_MODEL_MAX - 1)
                m.limit = IQT_MODEL_MAX - 1;
            CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, m.limit), S_OK);
            iqt_model_trim(&m);
        } else {
            d12_info_queue_ClearStoredMessages(q);
            m.count = 0;
        }
        if (d12_info_queue_GetNumStoredMessages(q) != m.count ||
            d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q) != iqt_model_retrievable(&m)) {
            mismatches++;
            fprintf(stderr, "    step %u: stored %llu (model %u), retrievable %llu (model %u)\n", step,
                    (unsigned long long)d12_info_queue_GetNumStoredMessages(q), m.count,
                    (unsigned long long)d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q),
                    iqt_model_retrievable(&m));
            break;
        }
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK(reads > 10000);
    d12__info_queue_destroy(q);
}

/* Evictions at the limit while reading the newest retrievable message, as a polling application does: the cursor
 * follows the evictions, so each poll examines only what arrived since the last. */
void iqt_getmessage_poll_newest(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 1000), S_OK);
    D3D12_MESSAGE_SEVERITY allow[] = {SEV_WARNING};
    D3D12_INFO_QUEUE_FILTER f = {.AllowList = {.NumSeverities = 1, .pSeverityList = allow}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &f), S_OK);
    char text[32], expected[32];
    unsigned wrong = 0;
    uint64_t before = d12__info_queue_test_visits(q);
    const unsigned rounds = 50000;
    for (unsigned i = 0; i < rounds; i++) {
        snprintf(text, sizeof text, "p%u", i);
        d12_info_queue_AddMessage(q, CAT_MISC, i % 3 == 1 ? SEV_WARNING : SEV_INFO, (D3D12_MESSAGE_ID)1, text);
        if (i % 3 != 1)
            continue;
        UINT64 n = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q);
        snprintf(expected, sizeof expected, "p%u", i);
        const char *got = n ? iqt_text(q, n - 1) : NULL;
        wrong += !got || strcmp(got, expected) != 0;
    }
    CHECK_EQ_INT(wrong, 0);
    uint64_t visits = d12__info_queue_test_visits(q) - before;
    CHECK(visits <= 4ull * rounds); /* the old walk from the head: ~rounds * 1000 / 2 */
    if (visits > 4ull * rounds)
        fprintf(stderr, "    %llu examinations for %u polls\n", (unsigned long long)visits, rounds / 3);
    d12__info_queue_destroy(q);
}

/* Clear, then refill: indices restart at 0 and nothing stale is returned. */
void iqt_getmessage_clear_refill(void)
{
    d12_info_queue *q = iqt_unlimited();
    iqt_fill(q, 3000); /* three blocks of the store */
    CHECK_EQ_STR(iqt_text(q, 2999), "m2999");
    d12_info_queue_ClearStoredMessages(q);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK(iqt_text(q, 0) == NULL);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "after");
    CHECK_EQ_STR(iqt_text(q, 0), "after");
    CHECK(iqt_text(q, 1) == NULL);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 0), S_OK); /* evicts the one */
    CHECK(iqt_text(q, 0) == NULL);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 1);
    d12__info_queue_destroy(q);
}

/* A cookie freed by Unregister is free again once the counter comes back to it; the slot a new registration
 * takes holds stale data (the unregistered callback's), which must not count as "in use". */
void iqt_callback_cookie_reuse(void)
{
    d12_info_queue *q = iqt_create();
    static iqt_log log;
    iqt_log_init(&log);
    iqt_sink sink = {&log, 0};
    DWORD a = 0, b = 0, c = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &a), S_OK);
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &b), S_OK);
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(b, 2);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, b), S_OK); /* slot 1 keeps b's bytes */
    d12__info_queue_test_set_next_cookie(q, b);                          /* as after 2^32 registrations */
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &c), S_OK);
    CHECK_EQ_INT(c, b); /* free, so taken; the stale slot does not block it */
    d12__info_queue_test_set_next_cookie(q, a);
    DWORD d = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &d), S_OK);
    CHECK(d != a && d != c && d != 0); /* live cookies are skipped */
    d12__info_queue_test_set_next_cookie(q, 0); /* 0 is never a cookie */
    DWORD e = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &e), S_OK);
    CHECK(e != 0 && e != a && e != c && e != d);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, a), S_OK);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, c), S_OK);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, d), S_OK);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, e), S_OK);
    d12__info_queue_destroy(q);
}

/* Reporters on two threads while a third polls the newest retrievable message through a retrieval filter and a
 * fourth lowers and raises the limit: every read is a WARNING (the filter holds), nothing is lost from the count,
 * and the cursor never hands out a stale message. Run under the tsan preset too. */
typedef struct iqt_poll_shared {
    d12_info_queue *q;
    _Atomic int done;
    _Atomic unsigned bad_reads, reads;
} iqt_poll_shared;

#define IQT_POLL_REPORTS 20000u

static void *iqt_poll_reporter(void *arg)
{
    iqt_poll_shared *s = arg;
    for (unsigned i = 0; i < IQT_POLL_REPORTS; i++)
        d12_info_queue_AddMessage(s->q, CAT_MISC, i % 2 ? SEV_WARNING : SEV_INFO, (D3D12_MESSAGE_ID)1,
                                  i % 2 ? "warning" : "info");
    return NULL;
}

static void *iqt_poll_reader(void *arg)
{
    iqt_poll_shared *s = arg;
    union {
        D3D12_MESSAGE message;
        char bytes[256];
    } buffer;
    while (!s->done) {
        UINT64 n = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(s->q);
        SIZE_T length = sizeof buffer;
        if (n == 0 || d12_info_queue_GetMessage(s->q, n - 1, &buffer.message, &length) != S_OK)
            continue; /* evicted meanwhile: the index is past the end now */
        s->reads++;
        if (buffer.message.Severity != SEV_WARNING || strcmp(buffer.message.pDescription, "warning") != 0)
            s->bad_reads++;
    }
    return NULL;
}

static void *iqt_poll_limiter(void *arg)
{
    iqt_poll_shared *s = arg;
    for (unsigned i = 0; !s->done; i++)
        d12_info_queue_SetMessageCountLimit(s->q, i % 2 ? 100 : 5000);
    return NULL;
}

void iqt_getmessage_concurrent_poll(void)
{
    iqt_poll_shared s = {.q = iqt_create()};
    d12_info_queue_SetMuteDebugOutput(s.q, TRUE);
    D3D12_MESSAGE_SEVERITY allow[] = {SEV_WARNING};
    D3D12_INFO_QUEUE_FILTER f = {.AllowList = {.NumSeverities = 1, .pSeverityList = allow}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(s.q, &f), S_OK);
    pthread_t reporters[2], reader, limiter;
    pthread_create(&reader, NULL, iqt_poll_reader, &s);
    pthread_create(&limiter, NULL, iqt_poll_limiter, &s);
    for (int i = 0; i < 2; i++)
        pthread_create(&reporters[i], NULL, iqt_poll_reporter, &s);
    for (int i = 0; i < 2; i++)
        pthread_join(reporters[i], NULL);
    /* The reporters may finish before the reader was ever scheduled (a report is a few tens of nanoseconds): let it
     * read what is stored, for up to 5 s, before stopping it. */
    for (int waited = 0; s.reads == 0 && waited < 5000; waited++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    s.done = 1;
    pthread_join(reader, NULL);
    pthread_join(limiter, NULL);
    CHECK_EQ_INT(s.bad_reads, 0);
    CHECK(s.reads > 0);
    UINT64 stored = d12_info_queue_GetNumStoredMessages(s.q);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(s.q), 2 * IQT_POLL_REPORTS);
    CHECK_EQ_INT(stored + d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(s.q), 2 * IQT_POLL_REPORTS);
    /* The kept count agrees with a fresh scan: half of what is stored, give or take the one at an odd boundary. */
    UINT64 retrievable = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(s.q);
    d12_info_queue_PopRetrievalFilter(s.q);
    UINT64 warnings = 0;
    for (UINT64 i = 0; i < stored; i++) {
        const char *text = iqt_text(s.q, i);
        warnings += text && strcmp(text, "warning") == 0;
    }
    CHECK_EQ_INT(retrievable, warnings);
    d12__info_queue_destroy(s.q);
}
