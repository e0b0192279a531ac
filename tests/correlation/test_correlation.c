/* Command-list state indices (runtime/correlation.c): issuing, resolving, retention per recording and per
 * submission, eviction of the oldest blocks, open blocks kept, the D12RT_MAX_LIVE_STATE_INDICES limit, threads,
 * the wrap of the 32-bit counter. `test_correlation CASE` (one ctest each); `test_correlation bench` times
 * d12__recorder_issue. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "correlation.h"
#include "harness.h"

/* ---- Owners: a command list stand-in counting the references recordings hold on it ---- */

typedef struct owner {
    int id;
    atomic_int refs;
    atomic_int ref_calls, unref_calls;
} owner;

static void owner_ref(void *o)
{
    owner *w = o;
    atomic_fetch_add(&w->refs, 1);
    atomic_fetch_add(&w->ref_calls, 1);
}

static void owner_unref(void *o)
{
    owner *w = o;
    atomic_fetch_sub(&w->refs, 1);
    atomic_fetch_add(&w->unref_calls, 1);
}

static const d12_correlation_owner_ops owner_ops = {owner_ref, owner_unref};

/* ---- What resolve hands to `format` ---- */

typedef struct resolved {
    int calls;
    void *owner;
    d12_work_kind kind;
    uint32_t ordinal;
    int owner_refs; /* the owner's reference count while `format` ran */
} resolved;

static void capture(void *context, void *o, d12_work_kind kind, uint32_t ordinal)
{
    resolved *r = context;
    r->calls++;
    r->owner = o;
    r->kind = kind;
    r->ordinal = ordinal;
    r->owner_refs = atomic_load(&((owner *)o)->refs);
}

static bool resolve(d12_correlation *c, uint32_t index, resolved *out)
{
    memset(out, 0, sizeof *out);
    bool ok = d12__correlation_resolve(c, index, capture, out);
    CHECK_EQ_INT(out->calls, ok ? 1 : 0); /* format is called exactly when resolution succeeds */
    return ok;
}

/* `index` resolves to exactly (o, kind, ordinal). */
#define CHECK_RESOLVES(c, index, o, k, ord)                                                                 \
    do {                                                                                                    \
        resolved got_;                                                                                      \
        if (CHECK(resolve((c), (index), &got_))) {                                                          \
            CHECK(got_.owner == (void *)(o));                                                               \
            CHECK_EQ_INT(got_.kind, (k));                                                                   \
            CHECK_EQ_INT(got_.ordinal, (ord));                                                              \
        }                                                                                                   \
    } while (0)

#define CHECK_UNRESOLVED(c, index)                                                                          \
    do {                                                                                                    \
        resolved got_;                                                                                      \
        CHECK(!resolve((c), (index), &got_));                                                               \
    } while (0)

static d12_correlation *make(uint32_t max_live)
{
    d12_correlation *c = NULL;
    CHECK_EQ_INT(d12__correlation_create(max_live, &owner_ops, &c), S_OK);
    return c;
}

/* ---- Cases ---- */

static void test_kind_names(void)
{
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_DRAW), "Draw");
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_DRAW_INDEXED), "DrawIndexed");
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_DISPATCH), "Dispatch");
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_COPY_BUFFER_REGION), "CopyBufferRegion");
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_COPY_RESOURCE), "CopyResource");
    CHECK_EQ_STR(d12__work_kind_name(D12_WORK_RESOURCE_BARRIER), "ResourceBarrier");
    CHECK(d12__work_kind_name(D12_WORK_NONE) == NULL);
    CHECK(d12__work_kind_name(D12_WORK_KIND_COUNT) == NULL);
    CHECK(d12__work_kind_name((d12_work_kind)-1) == NULL);
}

static void test_ordinals(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    static const d12_work_kind kinds[] = {D12_WORK_DRAW, D12_WORK_DRAW, D12_WORK_DISPATCH, D12_WORK_DRAW_INDEXED,
                                          D12_WORK_DRAW, D12_WORK_COPY_BUFFER_REGION, D12_WORK_COPY_RESOURCE,
                                          D12_WORK_DISPATCH, D12_WORK_COPY_RESOURCE};
    static const uint32_t ordinals[] = {0, 1, 0, 0, 2, 0, 0, 1, 1};
    uint32_t index[9];
    for (int i = 0; i < 9; i++)
        index[i] = d12__recorder_issue(&r, kinds[i]);
    for (int i = 0; i < 9; i++)
        CHECK_RESOLVES(c, index[i], &o, kinds[i], ordinals[i]);
    /* Ordinals run on across blocks: 200 more draws are Draw #3 .. #202. */
    uint32_t last = 0;
    for (int i = 0; i < 200; i++)
        last = d12__recorder_issue(&r, D12_WORK_DRAW);
    CHECK_RESOLVES(c, last, &o, D12_WORK_DRAW, 202);
    /* Reset: every kind counts from 0 again. */
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t d = d12__recorder_issue(&r, D12_WORK_DISPATCH), w = d12__recorder_issue(&r, D12_WORK_DRAW);
    uint32_t w2 = d12__recorder_issue(&r, D12_WORK_DRAW);
    CHECK_RESOLVES(c, d, &o, D12_WORK_DISPATCH, 0);
    CHECK_RESOLVES(c, w, &o, D12_WORK_DRAW, 0);
    CHECK_RESOLVES(c, w2, &o, D12_WORK_DRAW, 1);
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
}

static void test_resolve_fresh(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t a = d12__recorder_issue(&r, D12_WORK_DRAW_INDEXED);
    CHECK(a != D12_STATE_INDEX_NONE);
    resolved got;
    CHECK(resolve(c, a, &got));
    CHECK(got.owner == &o);
    CHECK_EQ_INT(got.kind, D12_WORK_DRAW_INDEXED);
    CHECK_EQ_INT(got.ordinal, 0);
    CHECK(got.owner_refs >= 1); /* the recording holds its list */
    uint32_t b = d12__recorder_issue(&r, D12_WORK_DRAW_INDEXED);
    CHECK(b != a);
    CHECK_RESOLVES(c, b, &o, D12_WORK_DRAW_INDEXED, 1);
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
}

static void test_resolve_none_and_unissued(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t first = d12__recorder_issue(&r, D12_WORK_DRAW);
    uint32_t second = d12__recorder_issue(&r, D12_WORK_DRAW);
    CHECK_EQ_INT(second, first + 1);
    CHECK_UNRESOLVED(c, D12_STATE_INDEX_NONE);
    CHECK_UNRESOLVED(c, second + 1);          /* the next index of the open block: not issued yet */
    CHECK_UNRESOLVED(c, first + 63);          /* its last */
    CHECK_UNRESOLVED(c, first + 64);          /* a block nobody took */
    CHECK_UNRESOLVED(c, first + 1000000);
    CHECK_UNRESOLVED(c, first + D12_CORRELATION_DEFAULT_MAX_LIVE); /* same entry and slot, another block */
    /* The rest of a closed block is never issued: the next call takes a new block. */
    d12__recorder_close(&r);
    uint32_t third = d12__recorder_issue(&r, D12_WORK_DRAW);
    CHECK(third != D12_STATE_INDEX_NONE && third - first >= D12_CORRELATION_BLOCK);
    CHECK_EQ_INT(third % D12_CORRELATION_BLOCK, 0);
    CHECK_UNRESOLVED(c, second + 1);
    CHECK_RESOLVES(c, third, &o, D12_WORK_DRAW, 2);
    /* A table with no recorder at all resolves nothing. */
    d12_correlation *empty = make(64);
    for (uint32_t i = 0; i < 70; i++)
        CHECK_UNRESOLVED(empty, i);
    d12__correlation_destroy(empty);
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void test_unique_interleaved(void)
{
    enum { N = 1000 };
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner oa = {.id = 1}, ob = {.id = 2};
    d12_recorder a, b;
    d12__recorder_init(&a, c, &oa);
    d12__recorder_init(&b, c, &ob);
    CHECK_EQ_INT(d12__recorder_begin(&a), S_OK);
    CHECK_EQ_INT(d12__recorder_begin(&b), S_OK);
    static uint32_t ia[N], ib[N], all[2 * N];
    for (int i = 0; i < N; i++) {
        ia[i] = d12__recorder_issue(&a, D12_WORK_DRAW);
        ib[i] = d12__recorder_issue(&b, i % 2 ? D12_WORK_DISPATCH : D12_WORK_COPY_RESOURCE);
        all[2 * i] = ia[i];
        all[2 * i + 1] = ib[i];
    }
    qsort(all, 2 * N, sizeof all[0], compare_u32);
    int duplicates = 0, none = 0;
    for (int i = 0; i < 2 * N; i++) {
        duplicates += i > 0 && all[i] == all[i - 1];
        none += all[i] == D12_STATE_INDEX_NONE;
    }
    CHECK_EQ_INT(duplicates, 0);
    CHECK_EQ_INT(none, 0);
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        resolved got;
        wrong += !resolve(c, ia[i], &got) || got.owner != &oa || got.kind != D12_WORK_DRAW || got.ordinal != (uint32_t)i;
        wrong += !resolve(c, ib[i], &got) || got.owner != &ob ||
                 got.kind != (i % 2 ? D12_WORK_DISPATCH : D12_WORK_COPY_RESOURCE) || got.ordinal != (uint32_t)i / 2;
    }
    CHECK_EQ_INT(wrong, 0);
    d12__recorder_fini(&a);
    d12__recorder_fini(&b);
    d12__correlation_destroy(c);
}

static void test_reset_retention(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t old_draw = d12__recorder_issue(&r, D12_WORK_DRAW);
    uint32_t old_dispatch = d12__recorder_issue(&r, D12_WORK_DISPATCH);
    d12__recorder_close(&r);
    /* ExecuteCommandLists twice (resubmission shares the recording), then Reset. */
    d12_recording *submitted = d12__recorder_recording(&r);
    CHECK(submitted != NULL);
    d12__recording_ref(submitted);
    d12__recording_ref(submitted);
    CHECK_RESOLVES(c, old_draw, &o, D12_WORK_DRAW, 0);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    CHECK(d12__recorder_recording(&r) != submitted);
    uint32_t new_draw = d12__recorder_issue(&r, D12_WORK_DRAW);
    /* The in-flight submissions still resolve against the recording that produced them. */
    CHECK_RESOLVES(c, old_draw, &o, D12_WORK_DRAW, 0);
    CHECK_RESOLVES(c, old_dispatch, &o, D12_WORK_DISPATCH, 0);
    CHECK_RESOLVES(c, new_draw, &o, D12_WORK_DRAW, 0);
    d12__recording_unref(submitted); /* the first submission's flush */
    CHECK_RESOLVES(c, old_dispatch, &o, D12_WORK_DISPATCH, 0);
    d12__recording_unref(submitted); /* the last */
    CHECK_UNRESOLVED(c, old_draw);
    CHECK_UNRESOLVED(c, old_dispatch);
    CHECK_RESOLVES(c, new_draw, &o, D12_WORK_DRAW, 0);
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.live_recordings, 1);
    d12__recorder_fini(&r);
    CHECK_UNRESOLVED(c, new_draw);
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.live_recordings, 0);
    d12__correlation_destroy(c);
}

static void test_unsubmitted_until_reset(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t a = d12__recorder_issue(&r, D12_WORK_COPY_BUFFER_REGION);
    d12__recorder_close(&r);
    CHECK_RESOLVES(c, a, &o, D12_WORK_COPY_BUFFER_REGION, 0); /* closed, never submitted: still resolves */
    d12__recorder_close(&r);                                    /* closing twice changes nothing */
    CHECK_RESOLVES(c, a, &o, D12_WORK_COPY_BUFFER_REGION, 0);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK); /* Reset */
    CHECK_UNRESOLVED(c, a);
    uint32_t b = d12__recorder_issue(&r, D12_WORK_COPY_BUFFER_REGION);
    CHECK_RESOLVES(c, b, &o, D12_WORK_COPY_BUFFER_REGION, 0);
    d12__recorder_fini(&r); /* destroyed without Close */
    CHECK_UNRESOLVED(c, b);
    d12__correlation_destroy(c);
}

static void test_owner_refs(void)
{
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(atomic_load(&o.refs), 0);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    CHECK_EQ_INT(atomic_load(&o.refs), 1);
    uint32_t a = d12__recorder_issue(&r, D12_WORK_DRAW);
    d12_recording *first = d12__recorder_recording(&r);
    d12__recording_ref(first); /* submitted */
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    CHECK_EQ_INT(atomic_load(&o.refs), 2); /* the submitted recording and the current one */
    uint32_t b = d12__recorder_issue(&r, D12_WORK_DRAW);
    d12_recording *second = d12__recorder_recording(&r);
    d12__recording_ref(second); /* submitted */
    d12__recorder_fini(&r);     /* the list is released with both recordings in flight */
    CHECK(d12__recorder_recording(&r) == NULL);
    CHECK_EQ_INT(atomic_load(&o.refs), 2); /* its memory and name stay */
    resolved got;
    CHECK(resolve(c, a, &got));
    CHECK_EQ_INT(got.owner_refs, 2);
    CHECK_RESOLVES(c, b, &o, D12_WORK_DRAW, 0);
    d12__recording_unref(first);
    CHECK_EQ_INT(atomic_load(&o.refs), 1);
    CHECK_UNRESOLVED(c, a);
    CHECK_RESOLVES(c, b, &o, D12_WORK_DRAW, 0);
    d12__recording_unref(second);
    CHECK_EQ_INT(atomic_load(&o.refs), 0);
    CHECK_UNRESOLVED(c, b);
    CHECK_EQ_INT(atomic_load(&o.ref_calls), 2);
    CHECK_EQ_INT(atomic_load(&o.unref_calls), 2);
    d12__recording_ref(NULL);   /* a list whose begin failed has no recording: ignored */
    d12__recording_unref(NULL);
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.live_recordings, 0);
    d12__correlation_destroy(c);
}

static void test_owner_refs_balance(void)
{
    d12_correlation *c = make(128);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    d12_recording *held[8];
    int held_count = 0;
    for (int round = 0; round < 8; round++) {
        CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
        for (int i = 0; i < 100; i++)
            d12__recorder_issue(&r, D12_WORK_DRAW);
        d12__recorder_close(&r);
        if (round % 2 == 0) {
            held[held_count] = d12__recorder_recording(&r);
            d12__recording_ref(held[held_count++]);
        }
    }
    CHECK_EQ_INT(atomic_load(&o.refs), 1 + 4); /* the current recording and the 4 submitted ones */
    d12__recorder_fini(&r);
    CHECK_EQ_INT(atomic_load(&o.refs), 4);
    for (int i = 0; i < held_count; i++) {
        d12__recording_unref(held[i]);
        CHECK_EQ_INT(atomic_load(&o.refs), 3 - i);
    }
    CHECK_EQ_INT(atomic_load(&o.ref_calls), 8);
    CHECK_EQ_INT(atomic_load(&o.unref_calls), 8);
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.live_recordings, 0);
    d12__correlation_destroy(c);
}

static void test_eviction(void)
{
    /* Two slots. A fills two blocks and is submitted; B's first block evicts A's oldest. */
    d12_correlation *c = make(128);
    owner oa = {.id = 1}, ob = {.id = 2};
    d12_recorder a, b;
    d12__recorder_init(&a, c, &oa);
    d12__recorder_init(&b, c, &ob);
    CHECK_EQ_INT(d12__recorder_begin(&a), S_OK);
    uint32_t ia[128];
    for (int i = 0; i < 128; i++)
        ia[i] = d12__recorder_issue(&a, D12_WORK_DRAW);
    CHECK_EQ_INT(ia[0], 0);
    CHECK_EQ_INT(ia[127], 127);
    d12__recorder_close(&a);
    d12_recording *submitted = d12__recorder_recording(&a);
    d12__recording_ref(submitted);
    CHECK_EQ_INT(d12__recorder_begin(&b), S_OK);
    uint32_t ib = d12__recorder_issue(&b, D12_WORK_DISPATCH);
    CHECK_EQ_INT(ib, 128);
    CHECK_UNRESOLVED(c, ia[0]); /* dropped although its submission is outstanding */
    CHECK_UNRESOLVED(c, ia[63]);
    CHECK_RESOLVES(c, ia[64], &oa, D12_WORK_DRAW, 64);
    CHECK_RESOLVES(c, ia[127], &oa, D12_WORK_DRAW, 127);
    CHECK_RESOLVES(c, ib, &ob, D12_WORK_DISPATCH, 0);
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.blocks_evicted, 1);
    CHECK_EQ_INT(stats.blocks_taken, 3);
    /* One recorder outrunning a one-slot table: only its newest block resolves. */
    d12_correlation *small = make(64);
    owner os = {.id = 3};
    d12_recorder s;
    d12__recorder_init(&s, small, &os);
    CHECK_EQ_INT(d12__recorder_begin(&s), S_OK);
    uint32_t is[200];
    for (int i = 0; i < 200; i++)
        is[i] = d12__recorder_issue(&s, D12_WORK_DRAW);
    int resolved_count = 0;
    for (int i = 0; i < 200; i++) {
        resolved got;
        resolved_count += resolve(small, is[i], &got);
    }
    CHECK_EQ_INT(resolved_count, 200 - 192);
    CHECK_UNRESOLVED(small, is[191]);
    CHECK_RESOLVES(small, is[192], &os, D12_WORK_DRAW, 192);
    CHECK_RESOLVES(small, is[199], &os, D12_WORK_DRAW, 199);
    d12__recorder_fini(&s);
    d12__correlation_destroy(small);
    /* A recording that outruns the table many times over keeps a bounded list of its blocks (the ones it may
     * still own), not one per block it ever took. */
    d12_correlation *two = make(128);
    d12__recorder_init(&s, two, &os);
    CHECK_EQ_INT(d12__recorder_begin(&s), S_OK);
    uint32_t peak = 0;
    for (int i = 0; i < 1000 * 64; i++) {
        d12__recorder_issue(&s, D12_WORK_DRAW);
        if (i % 64 == 0) {
            d12__correlation_stats(two, &stats);
            peak = stats.tracked_blocks > peak ? stats.tracked_blocks : peak;
        }
    }
    d12__correlation_stats(two, &stats);
    CHECK_EQ_INT(stats.blocks_taken, 1000);
    CHECK(peak >= 2 && peak <= 4);
    d12__recorder_fini(&s);
    d12__correlation_stats(two, &stats);
    CHECK_EQ_INT(stats.tracked_blocks, 0);
    d12__correlation_destroy(two);
    d12__recording_unref(submitted);
    d12__recorder_fini(&a);
    d12__recorder_fini(&b);
    d12__correlation_destroy(c);
}

static void test_open_block_kept(void)
{
    /* One slot: A's open block is never stolen. */
    d12_correlation *c = make(64);
    owner oa = {.id = 1}, ob = {.id = 2};
    d12_recorder a, b;
    d12__recorder_init(&a, c, &oa);
    d12__recorder_init(&b, c, &ob);
    CHECK_EQ_INT(d12__recorder_begin(&a), S_OK);
    CHECK_EQ_INT(d12__recorder_begin(&b), S_OK);
    uint32_t a0 = d12__recorder_issue(&a, D12_WORK_DRAW);
    CHECK_EQ_INT(d12__recorder_issue(&b, D12_WORK_DRAW), D12_STATE_INDEX_NONE);
    CHECK_EQ_INT(d12__recorder_issue(&b, D12_WORK_DRAW), D12_STATE_INDEX_NONE);
    uint32_t a1 = d12__recorder_issue(&a, D12_WORK_DRAW);
    CHECK_EQ_INT(a1, a0 + 1);
    CHECK_RESOLVES(c, a0, &oa, D12_WORK_DRAW, 0);
    CHECK_RESOLVES(c, a1, &oa, D12_WORK_DRAW, 1);
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.refills_failed, 2);
    CHECK_EQ_INT(stats.blocks_skipped, 0); /* a failed refill burns nothing */
    /* After A closes, B can take the slot (evicting A's closed block). B's two failed calls still counted. */
    d12__recorder_close(&a);
    uint32_t b2 = d12__recorder_issue(&b, D12_WORK_DRAW);
    CHECK_EQ_INT(b2, 64);
    CHECK_RESOLVES(c, b2, &ob, D12_WORK_DRAW, 2);
    CHECK_UNRESOLVED(c, a0);
    /* A fully used block is no longer open, closed or not: B fills its block, A takes the slot. */
    for (int i = 0; i < 63; i++)
        d12__recorder_issue(&b, D12_WORK_DRAW);
    CHECK_EQ_INT(b.next, b.end);
    CHECK_EQ_INT(d12__recorder_begin(&a), S_OK);
    uint32_t a2 = d12__recorder_issue(&a, D12_WORK_DISPATCH);
    CHECK_EQ_INT(a2, 128);
    CHECK_RESOLVES(c, a2, &oa, D12_WORK_DISPATCH, 0);
    d12__recorder_fini(&a);
    d12__recorder_fini(&b);
    d12__correlation_destroy(c);

    /* Two slots: a block number whose slot holds an open block is skipped (burned), the next one taken. */
    c = make(128);
    d12__recorder_init(&a, c, &oa);
    d12__recorder_init(&b, c, &ob);
    CHECK_EQ_INT(d12__recorder_begin(&a), S_OK);
    CHECK_EQ_INT(d12__recorder_begin(&b), S_OK);
    a0 = d12__recorder_issue(&a, D12_WORK_DRAW); /* block 0, slot 0, open */
    CHECK_EQ_INT(a0, 0);
    uint32_t last = 0;
    for (int i = 0; i < 65; i++)
        last = d12__recorder_issue(&b, D12_WORK_COPY_RESOURCE); /* block 64 (slot 1) filled, then ... */
    CHECK_EQ_INT(last, 192); /* ... 128 (slot 0, A's open block) skipped, 192 evicts B's own full block */
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.blocks_skipped, 1);
    CHECK_EQ_INT(stats.blocks_evicted, 1);
    CHECK_RESOLVES(c, a0, &oa, D12_WORK_DRAW, 0);
    CHECK_RESOLVES(c, last, &ob, D12_WORK_COPY_RESOURCE, 64);
    CHECK_UNRESOLVED(c, 128); /* burned: never issued */
    CHECK_UNRESOLVED(c, 64);  /* evicted */
    d12__recorder_fini(&a);
    d12__recorder_fini(&b);
    d12__correlation_destroy(c);
}

/* ---- The limit from the environment ---- */

static uint32_t max_live_with(const char *value, char *warning, size_t size)
{
    if (value)
        setenv("D12RT_MAX_LIVE_STATE_INDICES", value, 1);
    else
        unsetenv("D12RT_MAX_LIVE_STATE_INDICES");
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    uint32_t live = d12__correlation_max_live_from_environment(out);
    fclose(out);
    snprintf(warning, size, "%s", text ? text : "");
    free(text);
    return live;
}

static int lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_max_live_environment(void)
{
    static const struct {
        const char *value;
        uint32_t expected;
    } good[] = {
        {NULL, 65536}, {"", 65536}, {"64", 64}, {"1", 64}, {"63", 64}, {"65", 128}, {"100", 128},
        {"65536", 65536}, {"100000", 131072}, {"4194303", 4194304}, {"4194304", 4194304}, {"0004096", 4096},
    };
    char warning[512];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint32_t live = max_live_with(good[i].value, warning, sizeof warning);
        if (!CHECK(live == good[i].expected))
            fprintf(stderr, "    %s: got %u, expected %u\n", good[i].value ? good[i].value : "(unset)", live,
                    good[i].expected);
        CHECK_EQ_STR(warning, "");
    }
    static const char *const bad[] = {"0", "4194305", "99999999999999999999999", "abc", "12x", "-5", "+64", " 64",
                                      "64 ", "0x100", "1e5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t live = max_live_with(bad[i], warning, sizeof warning);
        CHECK_EQ_INT(live, D12_CORRELATION_DEFAULT_MAX_LIVE);
        CHECK_EQ_INT(lines(warning), 1);
        CHECK(strstr(warning, "D12RT_MAX_LIVE_STATE_INDICES") != NULL);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "=%s ", bad[i]);
        if (!CHECK(strstr(warning, quoted) != NULL))
            fprintf(stderr, "    warning: %s", warning);
        CHECK(strstr(warning, "65536") != NULL);
    }
    /* A NULL stream: no output, still the default. */
    setenv("D12RT_MAX_LIVE_STATE_INDICES", "junk", 1);
    CHECK_EQ_INT(d12__correlation_max_live_from_environment(NULL), D12_CORRELATION_DEFAULT_MAX_LIVE);
    unsetenv("D12RT_MAX_LIVE_STATE_INDICES");
}

static void test_create_arguments(void)
{
    d12_correlation *c = (d12_correlation *)&c;
    static const uint32_t bad[] = {0, 1, 32, 63, 96, 100, 65535, D12_CORRELATION_MAX_LIVE * 2, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = (d12_correlation *)&c;
        CHECK_EQ_INT(d12__correlation_create(bad[i], &owner_ops, &c), E_INVALIDARG);
        CHECK(c == NULL);
    }
    CHECK_EQ_INT(d12__correlation_create(64, &owner_ops, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12__correlation_create(64, NULL, &c), S_OK); /* no owner ops: nothing referenced */
    d12_correlation_stats stats;
    d12__correlation_stats(c, &stats);
    CHECK_EQ_INT(stats.max_live, 64);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    CHECK_EQ_INT(d12__recorder_issue(&r, D12_WORK_DRAW), D12_STATE_INDEX_NONE); /* before begin: no recording */
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    CHECK_EQ_INT(atomic_load(&o.refs), 0);
    CHECK_RESOLVES(c, d12__recorder_issue(&r, D12_WORK_DRAW), &o, D12_WORK_DRAW, 0);
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
    CHECK_EQ_INT(d12__correlation_create(D12_CORRELATION_MAX_LIVE, &owner_ops, &c), S_OK);
    d12__correlation_destroy(c);
}

static void test_wraparound(void)
{
    d12_correlation *c = make(128);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    d12__correlation_set_next_for_test(c, 0xFFFFFF80u + 17); /* rounded down to the block */
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    uint32_t expected = 0xFFFFFF80u, none = 0;
    int mismatched = 0;
    for (int i = 0; i < 64 + 63 + 5; i++) {
        uint32_t index = d12__recorder_issue(&r, D12_WORK_DRAW);
        none += index == D12_STATE_INDEX_NONE;
        mismatched += index != expected;
        expected = expected == 0xFFFFFFFEu ? 0 : expected + 1; /* 0xFFFFFFFF is skipped */
        if (i == 64 + 62) {
            CHECK_EQ_INT(index, 0xFFFFFFFEu);
            CHECK_RESOLVES(c, index, &o, D12_WORK_DRAW, (uint32_t)i);
        }
    }
    CHECK_EQ_INT(none, 0);
    CHECK_EQ_INT(mismatched, 0);
    CHECK_UNRESOLVED(c, 0xFFFFFFFFu);
    CHECK_RESOLVES(c, 0, &o, D12_WORK_DRAW, 127);
    CHECK_RESOLVES(c, 4, &o, D12_WORK_DRAW, 131);
    CHECK_UNRESOLVED(c, 5);
    d12__recorder_close(&r);
    /* A stale index never annotates the next incarnation of its block before that one writes it: recording R0
     * (submitted) issued 0..4; the counter comes round to block 0 again (the wrap, shortened); R1 takes it. */
    d12_recording *r0 = d12__recorder_recording(&r);
    d12__recording_ref(r0);
    d12__correlation_set_next_for_test(c, 0);
    CHECK_EQ_INT(d12__recorder_begin(&r), S_OK);
    CHECK_EQ_INT(d12__recorder_issue(&r, D12_WORK_DISPATCH), 0);
    CHECK_RESOLVES(c, 0, &o, D12_WORK_DISPATCH, 0); /* the new draw, not R0's Draw #127 */
    CHECK_UNRESOLVED(c, 1);                         /* not R0's Draw #128 */
    CHECK_UNRESOLVED(c, 4);
    d12__recording_unref(r0);
    CHECK_RESOLVES(c, 0, &o, D12_WORK_DISPATCH, 0);
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
}

/* ---- Threads: 4 recorders (with Resets and submissions) and a resolver, on a small table ---- */

enum { THREADS = 4, PER_THREAD = 100000, TRUTH = 1 << 20, RESULTS = 200000 };

typedef struct truth_entry {
    uint8_t thread; /* 1 + the issuing thread */
    uint8_t kind;
    uint32_t ordinal;
} truth_entry;

static truth_entry *truth;
static d12_correlation *shared;
static owner owners[THREADS];
static _Atomic uint32_t latest[THREADS];
static atomic_int recorders_done;
static atomic_int out_of_range;
static atomic_uint resolver_attempts;
static atomic_bool resolver_done;
static pthread_barrier_t start_line;

static void *record_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    d12_recorder r;
    d12__recorder_init(&r, shared, &owners[t]);
    d12_recording *submitted[3] = {NULL, NULL, NULL};
    unsigned seed = 1234u + (unsigned)t;
    d12__recorder_begin(&r);
    uint32_t ordinals[D12_WORK_KIND_COUNT] = {0};
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < PER_THREAD; i++) {
        /* Every 500 calls, let the resolver make 10 attempts while this thread stands still (two CPUs, five
         * threads: without this the recorders may finish before the resolver has run at all). */
        if (i % 500 == 0) {
            unsigned mark = atomic_load(&resolver_attempts);
            while (atomic_load(&resolver_attempts) < mark + 10 && !atomic_load(&resolver_done))
                sched_yield();
        }
        if (i % 300 == 299) { /* Close, ExecuteCommandLists (keep 3 in flight), Reset */
            d12__recorder_close(&r);
            d12__recording_unref(submitted[2]);
            memmove(&submitted[1], &submitted[0], 2 * sizeof submitted[0]);
            submitted[0] = d12__recorder_recording(&r);
            d12__recording_ref(submitted[0]);
            d12__recorder_begin(&r);
            memset(ordinals, 0, sizeof ordinals);
        }
        d12_work_kind kind = (d12_work_kind)(1 + rand_r(&seed) % (D12_WORK_KIND_COUNT - 1));
        uint32_t index = d12__recorder_issue(&r, kind);
        uint32_t ordinal = ordinals[kind]++;
        if (index == D12_STATE_INDEX_NONE)
            continue;
        if (index >= TRUTH) {
            atomic_fetch_add(&out_of_range, 1);
            continue;
        }
        truth[index] = (truth_entry){(uint8_t)(t + 1), (uint8_t)kind, ordinal};
        atomic_store_explicit(&latest[t], index, memory_order_relaxed);
    }
    for (int i = 0; i < 3; i++)
        d12__recording_unref(submitted[i]);
    d12__recorder_fini(&r);
    atomic_fetch_add(&recorders_done, 1);
    return NULL;
}

typedef struct result {
    uint32_t index;
    int thread; /* 1 + the owner's thread */
    uint32_t kind, ordinal;
    int owner_refs;
} result;

static result *results;
static size_t result_count;

static void capture_result(void *context, void *o, d12_work_kind kind, uint32_t ordinal)
{
    result *r = context;
    r->thread = ((owner *)o)->id;
    r->kind = kind;
    r->ordinal = ordinal;
    r->owner_refs = atomic_load(&((owner *)o)->refs);
}

static void *resolve_thread(void *arg)
{
    (void)arg;
    unsigned seed = 99;
    pthread_barrier_wait(&start_line);
    while (atomic_load(&recorders_done) < THREADS && result_count < RESULTS) {
        uint32_t near = atomic_load_explicit(&latest[rand_r(&seed) % THREADS], memory_order_relaxed);
        uint32_t back = (uint32_t)rand_r(&seed) % (rand_r(&seed) % 2 ? 64 : 1500); /* recent, or maybe evicted */
        uint32_t index = near > back ? near - back : (uint32_t)rand_r(&seed) % 64;
        result r = {.index = index};
        if (d12__correlation_resolve(shared, index, capture_result, &r))
            results[result_count++] = r;
        atomic_fetch_add(&resolver_attempts, 1);
    }
    atomic_store(&resolver_done, true);
    return NULL;
}

static void test_threads(void)
{
    truth = calloc(TRUTH, sizeof *truth);
    results = calloc(RESULTS, sizeof *results);
    CHECK(truth && results);
    shared = make(1024);
    for (int t = 0; t < THREADS; t++)
        owners[t].id = t + 1;
    pthread_t threads[THREADS], resolver;
    pthread_barrier_init(&start_line, NULL, THREADS + 1);
    pthread_create(&resolver, NULL, resolve_thread, NULL);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, record_thread, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    pthread_join(resolver, NULL);
    pthread_barrier_destroy(&start_line);
    CHECK_EQ_INT(atomic_load(&out_of_range), 0);
    int wrong = 0, unreferenced = 0;
    for (size_t i = 0; i < result_count; i++) {
        const result *r = &results[i];
        const truth_entry *e = &truth[r->index];
        if (e->thread != r->thread || e->kind != r->kind || e->ordinal != r->ordinal) {
            if (wrong++ < 5)
                fprintf(stderr, "    index %u resolved to thread %d %s #%u; issued by thread %d as %s #%u\n",
                        r->index, r->thread, d12__work_kind_name(r->kind), r->ordinal, e->thread,
                        d12__work_kind_name(e->kind), e->ordinal);
        }
        unreferenced += r->owner_refs < 1;
    }
    printf("%zu indices resolved concurrently\n", result_count);
    CHECK(result_count > 100); /* the check above is only meaningful if the resolver saw live indices */
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(unreferenced, 0);
    d12_correlation_stats stats;
    d12__correlation_stats(shared, &stats);
    CHECK_EQ_INT(stats.live_recordings, 0);
    CHECK(stats.blocks_evicted > 0); /* the run did outrun the table */
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ_INT(atomic_load(&owners[t].refs), 0);
        CHECK_EQ_INT(atomic_load(&owners[t].ref_calls), atomic_load(&owners[t].unref_calls));
    }
    d12__correlation_destroy(shared);
    free(truth);
    free(results);
}

/* ---- Timing (not a ctest): ns per d12__recorder_issue ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench(void)
{
    enum { N = 50000000 };
    d12_correlation *c = make(D12_CORRELATION_DEFAULT_MAX_LIVE);
    owner o = {.id = 1};
    d12_recorder r;
    d12__recorder_init(&r, c, &o);
    d12__recorder_begin(&r);
    for (int rep = 0; rep < 3; rep++) {
        uint32_t sink = 0;
        double start = now();
        for (int i = 0; i < N; i++)
            sink += d12__recorder_issue(&r, (d12_work_kind)(1 + (i & 1)));
        double ns = (now() - start) / N;
        printf("d12__recorder_issue: %.2f ns/issue (%d issues, sink %u)\n", ns, N, sink);
    }
    d12__recorder_fini(&r);
    d12__correlation_destroy(c);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"kind_names", test_kind_names},
        {"ordinals", test_ordinals},
        {"resolve_fresh", test_resolve_fresh},
        {"resolve_none_and_unissued", test_resolve_none_and_unissued},
        {"unique_interleaved", test_unique_interleaved},
        {"reset_retention", test_reset_retention},
        {"unsubmitted_until_reset", test_unsubmitted_until_reset},
        {"owner_refs", test_owner_refs},
        {"owner_refs_balance", test_owner_refs_balance},
        {"eviction", test_eviction},
        {"open_block_kept", test_open_block_kept},
        {"max_live_environment", test_max_live_environment},
        {"create_arguments", test_create_arguments},
        {"wraparound", test_wraparound},
        {"threads", test_threads},
    };
    if (argc == 2 && strcmp(argv[1], "bench") == 0)
        return bench();
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_correlation CASE | bench\n");
    return 2;
}
