/* Fences as vkd3d-proton's tests/d3d12_sync.c (run on Windows by its authors) expects them (issue 17 item 4), through
 * libd12rt's public ABI. `test_fence_sync CASE` runs one case; CMake registers each as its own test.
 *
 * release_*:  the fence's public reference count reaching 0, with queue operations still pending on it, fires every
 *             event registered on it, satisfies every queue Wait on it and ends a NULL-event wait; Signal and Wait take
 *             no public reference ("signal/wait does not take public ref-counts").
 * multi_*:    ID3D12Device1::SetEventOnMultipleFenceCompletion: its argument checks (E_INVALIDARG, debug-layer error,
 *             nothing registered), ALL and ANY with an event and with a NULL event (blocks until the condition holds),
 *             values already reached, a fence released while in the set, device removal, a concurrent stress. */
#define _GNU_SOURCE
#define COBJMACROS
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "../gpu_harness.h"

#define SATISFIED_MS 3000
#define MSG_INVALID_ARGUMENT ((D3D12_MESSAGE_ID)0x10009)

static ID3D12Fence *new_fence(ID3D12Device *device, UINT64 initial)
{
    ID3D12Fence *fence = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, initial, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence),
             S_OK);
    return fence;
}

static ID3D12Device1 *device1_of(ID3D12Device *device)
{
    ID3D12Device1 *device1 = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12Device1, (void **)&device1), S_OK);
    return device1;
}

static ULONG public_refcount(IUnknown *object)
{
    IUnknown_AddRef(object);
    return IUnknown_Release(object);
}

/* ======== release_* ======== */

/* vkd3d-proton's test_fence_wait_robustness, on the reference driver: a queue's Signal of `fence` is held back behind
 * a Wait on `gate`; a second queue Waits on `fence` for UINT64_MAX, which nothing will ever signal; an event is
 * registered for UINT64_MAX. Releasing `fence` fires the event and lets the second queue go on. */
static void test_release_unblocks_waiters(void)
{
    ID3D12Device *device = create_device(true);
    gpu_context a, b;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &a) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &b))
        return;
    ID3D12Fence *fence = new_fence(device, 0), *gate = new_fence(device, 0);
    int event = new_event();
    if (fence && gate) {
        CHECK_HR(ID3D12CommandQueue_Wait(a.queue, gate, 1), S_OK);
        CHECK_HR(ID3D12CommandQueue_Signal(a.queue, fence, 1), S_OK);
        CHECK_EQ_INT(public_refcount((IUnknown *)fence), 1); /* signal/wait take no public reference */
        CHECK_HR(ID3D12CommandQueue_Wait(b.queue, fence, UINT64_MAX), S_OK);
        CHECK_EQ_INT(public_refcount((IUnknown *)fence), 1);
        CHECK_HR(ID3D12CommandQueue_Signal(b.queue, b.fence, 1), S_OK);
        CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, UINT64_MAX, as_handle(event)), S_OK);
        CHECK(!fired(event, 50, NULL));
        CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 0);
        CHECK(!wait_fence_within(b.fence, 1, 50)); /* the second queue is blocked in its Wait */
        RELEASE_LAST(fence);                       /* with a Signal and a Wait pending on it */
        uint64_t count = 0;
        CHECK(fired(event, WAIT_MS, &count));
        CHECK_EQ_INT(count, 1);
        CHECK(wait_fence_within(b.fence, 1, SATISFIED_MS));
        CHECK_HR(ID3D12Fence_Signal(gate, 1), S_OK); /* the first queue's pending Signal sets a released fence */
        CHECK_HR(ID3D12CommandQueue_Signal(a.queue, a.fence, 1), S_OK);
        CHECK(wait_fence_within(a.fence, 1, SATISFIED_MS));
        CHECK(!fired(event, 50, NULL)); /* once */
        CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    }
    close(event);
    if (gate)
        RELEASE_LAST(gate);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(device);
}

/* Negative for the above: a Release that is not the last fires nothing and leaves the waits pending. */
static void test_release_not_last(void)
{
    ID3D12Device *device = create_device(true);
    gpu_context b;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &b))
        return;
    ID3D12Fence *fence = new_fence(device, 0);
    int event = new_event();
    if (fence) {
        CHECK_HR(ID3D12CommandQueue_Wait(b.queue, fence, 5), S_OK);
        CHECK_HR(ID3D12CommandQueue_Signal(b.queue, b.fence, 1), S_OK);
        CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, 5, as_handle(event)), S_OK);
        CHECK_EQ_INT(ID3D12Fence_AddRef(fence), 2);
        CHECK_EQ_INT(ID3D12Fence_Release(fence), 1);
        CHECK(!fired(event, 50, NULL));
        CHECK(!wait_fence_within(b.fence, 1, 50));
        CHECK_HR(ID3D12Fence_Signal(fence, 5), S_OK);
        CHECK(fired(event, WAIT_MS, NULL));
        CHECK(wait_fence_within(b.fence, 1, SATISFIED_MS));
        RELEASE_LAST(fence);
    }
    close(event);
    release_context(&b);
    RELEASE_LAST(device);
}

typedef struct {
    ID3D12Fence *fence;
    UINT64 value;
    ID3D12Device1 *device1; /* multi: the set below */
    ID3D12Fence **fences;
    const UINT64 *values;
    UINT count;
    D3D12_MULTIPLE_FENCE_WAIT_FLAGS flags;
    HRESULT hr;
    atomic_bool returned;
} blocked_call;

static void *null_event_wait(void *argument)
{
    blocked_call *call = argument;
    call->hr = ID3D12Fence_SetEventOnCompletion(call->fence, call->value, NULL);
    atomic_store(&call->returned, true);
    return NULL;
}

static void *null_event_multi(void *argument)
{
    blocked_call *call = argument;
    call->hr = ID3D12Device1_SetEventOnMultipleFenceCompletion(call->device1, call->fences, call->values, call->count,
                                                               call->flags, NULL);
    atomic_store(&call->returned, true);
    return NULL;
}

/* Whether the blocked call returned within `ms`. */
static bool returned_within(blocked_call *call, int ms)
{
    for (int waited = 0; waited < ms; waited += 2) {
        if (atomic_load(&call->returned))
            return true;
        sleep_ms(2);
    }
    return atomic_load(&call->returned);
}

/* A NULL-event SetEventOnCompletion blocked on one thread returns when another drops the fence's last reference
 * (the blocked call holds none of its own: an application's bug, which must not hang or crash). */
static void test_release_ends_null_event_wait(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    blocked_call call = {.fence = new_fence(device, 0), .value = 7};
    pthread_t thread;
    if (call.fence && CHECK_EQ_INT_RET(pthread_create(&thread, NULL, null_event_wait, &call), 0)) {
        CHECK(!returned_within(&call, 50));
        RELEASE_LAST(call.fence);
        CHECK(returned_within(&call, WAIT_MS));
        pthread_join(thread, NULL);
        CHECK_HR(call.hr, S_OK);
    }
    RELEASE_LAST(device);
}

/* ======== multi_* ======== */

#define FENCES 4

typedef struct {
    ID3D12Device *device;
    ID3D12Device1 *device1;
    ID3D12InfoQueue *iq;
    ID3D12Fence *fences[FENCES];
    int event;
} multi_context;

static bool multi_open(multi_context *m)
{
    memset(m, 0, sizeof *m);
    m->event = new_event();
    if (!(m->device = create_device(true)) || !(m->device1 = device1_of(m->device)))
        return false;
    m->iq = info_queue_of(m->device);
    for (int i = 0; i < FENCES; i++) {
        if (!(m->fences[i] = new_fence(m->device, 0)))
            return false;
    }
    return m->iq != NULL;
}

static void multi_close(multi_context *m)
{
    for (int i = 0; i < FENCES; i++) {
        if (m->fences[i])
            RELEASE_LAST(m->fences[i]);
    }
    if (m->iq)
        ID3D12InfoQueue_Release(m->iq);
    if (m->device1)
        ID3D12Device1_Release(m->device1);
    if (m->device)
        RELEASE_LAST(m->device);
    close(m->event);
}

static HRESULT multi(multi_context *m, const UINT64 *values, UINT count, D3D12_MULTIPLE_FENCE_WAIT_FLAGS flags,
                     HANDLE event)
{
    return ID3D12Device1_SetEventOnMultipleFenceCompletion(m->device1, m->fences, values, count, flags, event);
}

/* Exactly one INVALID_ARGUMENT error containing `text` since the last check; the InfoQueue is cleared after. */
static void expect_invalid(multi_context *m, const char *text, const char *what, int line)
{
    check_one_message(m->iq, MSG_INVALID_ARGUMENT, text, __FILE__, line, what);
    ID3D12InfoQueue_ClearStoredMessages(m->iq);
}

/* The peer's invalid combinations, and the ones Windows crashes on: each E_INVALIDARG with the debug-layer error,
 * and nothing registered (the values are all reached: a registration would fire). */
static void test_multi_invalid(void)
{
    multi_context m;
    if (multi_open(&m)) {
        static const UINT64 zero[FENCES] = {0, 0, 0, 0};
        HANDLE event = as_handle(m.event);
        ID3D12InfoQueue_ClearStoredMessages(m.iq);
        CHECK_HR(ID3D12Device1_SetEventOnMultipleFenceCompletion(m.device1, NULL, NULL, 0,
                                                                 D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, NULL),
                 E_INVALIDARG);
        expect_invalid(&m, "SetEventOnMultipleFenceCompletion: NumFences is invalid", "NumFences 0", __LINE__);
        CHECK_HR(multi(&m, zero, 0, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, event), E_INVALIDARG);
        expect_invalid(&m, "NumFences is invalid: it is 0", "NumFences 0, ANY", __LINE__);
        static const D3D12_MULTIPLE_FENCE_WAIT_FLAGS bad_flags[] = {(D3D12_MULTIPLE_FENCE_WAIT_FLAGS)0xFFFFFFFF,
                                                                    (D3D12_MULTIPLE_FENCE_WAIT_FLAGS)2};
        for (int i = 0; i < 2; i++) {
            CHECK_HR(multi(&m, zero, FENCES, bad_flags[i], event), E_INVALIDARG);
            expect_invalid(&m, "Flags is invalid", "Flags", __LINE__);
        }
        CHECK_HR(multi(&m, NULL, 1, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, event), E_INVALIDARG);
        expect_invalid(&m, "pFenceValues is invalid", "values", __LINE__);
        ID3D12Fence *with_null[2] = {m.fences[0], NULL};
        CHECK_HR(ID3D12Device1_SetEventOnMultipleFenceCompletion(m.device1, with_null, zero, 2,
                                                                 D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, event),
                 E_INVALIDARG);
        expect_invalid(&m, "ppFences is invalid", "NULL fence", __LINE__);
        int pipe_fds[2];
        if (CHECK(pipe(pipe_fds) == 0)) {
            CHECK_HR(multi(&m, zero, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, as_handle(pipe_fds[1])),
                     E_INVALIDARG);
            expect_invalid(&m, "it is not an eventfd", "pipe", __LINE__);
            close(pipe_fds[0]);
            close(pipe_fds[1]);
        }
        CHECK(!fired(m.event, 50, NULL)); /* nothing was registered by a refused call */
        /* Positive: the same call with valid arguments fires at once (every value reached). */
        CHECK_HR(multi(&m, zero, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, event), S_OK);
        uint64_t count = 0;
        CHECK(fired(m.event, WAIT_MS, &count));
        CHECK_EQ_INT(count, 1);
    }
    multi_close(&m);
}

/* The peer's test_fence_wait_multiple: single wait; ALL over four fences (CPU and queue signals); ANY. */
static void test_multi_all_any(void)
{
    multi_context m;
    gpu_context q1, q2;
    if (multi_open(&m) && make_context(m.device, D3D12_COMMAND_LIST_TYPE_DIRECT, &q1) &&
        make_context(m.device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &q2)) {
        HANDLE event = as_handle(m.event);
        UINT64 values[FENCES] = {1, 0, 0, 0};
        CHECK_HR(multi(&m, values, 1, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, event), S_OK);
        CHECK(!fired(m.event, 20, NULL));
        CHECK_HR(ID3D12Fence_Signal(m.fences[0], 1), S_OK);
        CHECK(fired(m.event, WAIT_MS, NULL));
        CHECK(!fired(m.event, 0, NULL));

        UINT64 all[FENCES] = {2, 1, 53, 11};
        CHECK_HR(multi(&m, all, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, event), S_OK);
        CHECK(!fired(m.event, 20, NULL));
        CHECK_HR(ID3D12Fence_Signal(m.fences[1], 4), S_OK);
        CHECK(!fired(m.event, 100, NULL)); /* ALL: one of four is not enough */
        CHECK_HR(ID3D12CommandQueue_Signal(q1.queue, m.fences[0], 2), S_OK);
        CHECK_HR(ID3D12CommandQueue_Signal(q2.queue, m.fences[3], 14), S_OK);
        CHECK_HR(ID3D12Fence_Signal(m.fences[2], 53), S_OK);
        uint64_t count = 0;
        CHECK(fired(m.event, WAIT_MS, &count));
        CHECK_EQ_INT(count, 1);
        CHECK(!fired(m.event, 0, NULL));
        CHECK_HR(multi(&m, all, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, NULL), S_OK); /* reached: returns */

        UINT64 any[FENCES] = {100, 200, 300, 400};
        CHECK_HR(multi(&m, any, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, event), S_OK);
        CHECK(!fired(m.event, 20, NULL));
        CHECK_HR(ID3D12CommandQueue_Signal(q1.queue, m.fences[1], 200), S_OK);
        CHECK_HR(ID3D12CommandQueue_Signal(q2.queue, m.fences[2], 300), S_OK);
        CHECK(fired(m.event, WAIT_MS, &count));
        CHECK_EQ_INT(count, 1);
        CHECK_HR(ID3D12Fence_Signal(m.fences[0], 100), S_OK);
        CHECK(!fired(m.event, 100, NULL)); /* ANY fires once */
        CHECK_HR(multi(&m, any, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, NULL), S_OK);
        CHECK_HR(multi(&m, any, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, event), S_OK);
        CHECK(fired(m.event, WAIT_MS, NULL)); /* already reached: at once */
        /* ANY with none reached, then one fence far below: nothing. */
        UINT64 high[FENCES] = {1000, 1000, 1000, 1000};
        CHECK_HR(multi(&m, high, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, event), S_OK);
        CHECK_HR(ID3D12Fence_Signal(m.fences[3], 999), S_OK);
        CHECK(!fired(m.event, 50, NULL));
        CHECK_HR(ID3D12Fence_Signal(m.fences[3], 1000), S_OK);
        CHECK(fired(m.event, WAIT_MS, NULL));
        release_context(&q1);
        release_context(&q2);
    }
    multi_close(&m);
}

/* A NULL event blocks until the condition holds, for ALL (every fence) and ANY (one of them). */
static void null_event_blocks(D3D12_MULTIPLE_FENCE_WAIT_FLAGS flags)
{
    multi_context m;
    if (multi_open(&m)) {
        static const UINT64 values[FENCES] = {3, 3, 3, 3};
        blocked_call call = {.device1 = m.device1, .fences = m.fences, .values = values, .count = FENCES,
                             .flags = flags};
        pthread_t thread;
        if (CHECK_EQ_INT_RET(pthread_create(&thread, NULL, null_event_multi, &call), 0)) {
            CHECK(!returned_within(&call, 50));
            CHECK_HR(ID3D12Fence_Signal(m.fences[2], 3), S_OK);
            if (flags == D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL) {
                CHECK(!returned_within(&call, 50));
                CHECK_HR(ID3D12Fence_Signal(m.fences[0], 3), S_OK);
                CHECK_HR(ID3D12Fence_Signal(m.fences[1], 2), S_OK);
                CHECK_HR(ID3D12Fence_Signal(m.fences[3], 9), S_OK);
                CHECK(!returned_within(&call, 50)); /* fences[1] is at 2 */
                CHECK_HR(ID3D12Fence_Signal(m.fences[1], 3), S_OK);
            }
            CHECK(returned_within(&call, WAIT_MS));
            pthread_join(thread, NULL);
            CHECK_HR(call.hr, S_OK);
        }
    }
    multi_close(&m);
}

static void test_multi_null_event_all(void)
{
    null_event_blocks(D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL);
}

static void test_multi_null_event_any(void)
{
    null_event_blocks(D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY);
}

/* A fence released while in the set counts as reached: ALL fires once the others are reached; a NULL-event ANY
 * returns. */
static void test_multi_released(void)
{
    multi_context m;
    if (multi_open(&m)) {
        static const UINT64 values[FENCES] = {5, 5, 5, 5};
        CHECK_HR(multi(&m, values, 2, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, as_handle(m.event)), S_OK);
        CHECK_HR(ID3D12Fence_Signal(m.fences[0], 5), S_OK);
        CHECK(!fired(m.event, 50, NULL));
        RELEASE_LAST(m.fences[1]);
        m.fences[1] = NULL;
        CHECK(fired(m.event, WAIT_MS, NULL));
        ID3D12Fence *rest[2] = {m.fences[2], m.fences[3]};
        blocked_call call = {.device1 = m.device1, .fences = rest, .values = values, .count = 2,
                             .flags = D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY};
        pthread_t thread;
        if (CHECK_EQ_INT_RET(pthread_create(&thread, NULL, null_event_multi, &call), 0)) {
            CHECK(!returned_within(&call, 50));
            RELEASE_LAST(m.fences[3]);
            m.fences[3] = NULL;
            CHECK(returned_within(&call, WAIT_MS));
            pthread_join(thread, NULL);
            CHECK_HR(call.hr, S_OK);
        }
    }
    multi_close(&m);
}

/* Device removal fires a pending set (every fence then reads UINT64_MAX), and a set made after it fires at once. */
static void test_multi_device_removed(void)
{
    multi_context m;
    gpu_context ctx;
    if (multi_open(&m) && make_context(m.device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx)) {
        static const UINT64 values[FENCES] = {10, 20, 30, 40};
        CHECK_HR(multi(&m, values, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, as_handle(m.event)), S_OK);
        CHECK(!fired(m.event, 20, NULL));
        /* Executing an open list removes the device (docs/gpu-work.md). */
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)ctx.list};
        ID3D12CommandQueue_ExecuteCommandLists(ctx.queue, 1, lists);
        CHECK(fired(m.event, WAIT_MS, NULL));
        for (int i = 0; i < FENCES; i++)
            CHECK(ID3D12Fence_GetCompletedValue(m.fences[i]) == UINT64_MAX);
        CHECK_HR(multi(&m, values, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, NULL), S_OK); /* does not block */
        CHECK_HR(multi(&m, values, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY, as_handle(m.event)), S_OK);
        CHECK(fired(m.event, WAIT_MS, NULL));
        release_context(&ctx);
    }
    multi_close(&m);
}

/* The peer's test_concurrent_signal_stress: two queues signal four fences while the CPU waits for ALL of them. */
static void test_multi_stress(void)
{
    for (int round = 0; round < 20; round++) {
        multi_context m;
        gpu_context q1, q2;
        if (!multi_open(&m) || !make_context(m.device, D3D12_COMMAND_LIST_TYPE_DIRECT, &q1) ||
            !make_context(m.device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &q2)) {
            multi_close(&m);
            return;
        }
        UINT64 values[FENCES] = {0, 0, 0, 0};
        bool ok = true;
        for (int iteration = 0; ok && iteration < 10; iteration++) {
            for (int i = 0; i < 2; i++) {
                values[0] += 3;
                ID3D12CommandQueue_Signal(q1.queue, m.fences[0], values[0]);
                values[0] += 4;
                ID3D12CommandQueue_Signal(q1.queue, m.fences[0], values[0]);
                values[1] += 5;
                ID3D12CommandQueue_Signal(q2.queue, m.fences[1], values[1]);
                values[2] += 6;
                ID3D12CommandQueue_Signal(q1.queue, m.fences[2], values[2]);
                values[3] += 7;
                ID3D12CommandQueue_Signal(q2.queue, m.fences[3], values[3]);
            }
            CHECK_HR(multi(&m, values, FENCES, D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL, as_handle(m.event)), S_OK);
            ok = CHECK(fired(m.event, WAIT_MS, NULL));
        }
        for (int i = 0; ok && i < FENCES; i++)
            CHECK(wait_fence(m.fences[i], values[i]));
        release_context(&q1);
        release_context(&q2);
        multi_close(&m);
    }
}

/* ======== event_* ======== */

/* The registration fast path's proof of identity (runtime/event.c: one epoll_ctl MOD on the event's own epoll
 * instance) follows an eventfd as the application moves it between numbers: E verified at N, moved to M, N reused by
 * E2, then E put back at N. Each registration through N fires the eventfd N names at that moment, never the other
 * (read through descriptors of their own). A proof keyed by the number alone would fire E2 the last time. */
static void test_event_number_moves(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12Fence *fence = new_fence(device, 0);
    int first = new_event(), n = first;
    int first_seen = fcntl(first, F_DUPFD_CLOEXEC, 200), moved = fcntl(first, F_DUPFD_CLOEXEC, 300);
    UINT64 value = 0;
    if (fence && CHECK(first_seen >= 0 && moved >= 0)) {
        for (int round = 0; round < 2; round++) { /* the second round takes the fast path */
            CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, ++value, as_handle(n)), S_OK);
            CHECK_HR(ID3D12Fence_Signal(fence, value), S_OK);
            CHECK(fired(first_seen, WAIT_MS, NULL));
        }
        /* A registration left pending keeps E's held event alive through the moves (a parked one would simply be
         * discarded when N is next seen naming something else). */
        CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, 1000, as_handle(n)), S_OK);
        close(n); /* E lives on at `moved` (and `first_seen`) */
        int second = new_event();
        CHECK_EQ_INT(second, n); /* E2 reuses N */
        int second_seen = fcntl(second, F_DUPFD_CLOEXEC, 400);
        for (int round = 0; round < 2; round++) {
            CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, ++value, as_handle(n)), S_OK);
            CHECK_HR(ID3D12Fence_Signal(fence, value), S_OK);
            CHECK(fired(second_seen, WAIT_MS, NULL));
            CHECK(!fired(first_seen, 0, NULL));
        }
        CHECK_EQ_INT(dup2(moved, n), n); /* E back at N (E2 lives on at second_seen) */
        for (int round = 0; round < 2; round++) {
            CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, ++value, as_handle(n)), S_OK);
            CHECK_HR(ID3D12Fence_Signal(fence, value), S_OK);
            CHECK(fired(first_seen, WAIT_MS, NULL));
            CHECK(!fired(second_seen, 0, NULL));
        }
        CHECK_HR(ID3D12Fence_Signal(fence, 1000), S_OK); /* the pending one fires E */
        CHECK(fired(first_seen, WAIT_MS, NULL));
        CHECK(!fired(second_seen, 0, NULL));
        close(second_seen);
    }
    close(n);
    if (first_seen >= 0)
        close(first_seen);
    if (moved >= 0)
        close(moved);
    if (fence)
        RELEASE_LAST(fence);
    RELEASE_LAST(device);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"release_unblocks_waiters", test_release_unblocks_waiters},
        {"release_not_last", test_release_not_last},
        {"release_ends_null_event_wait", test_release_ends_null_event_wait},
        {"multi_invalid", test_multi_invalid},
        {"multi_all_any", test_multi_all_any},
        {"multi_null_event_all", test_multi_null_event_all},
        {"multi_null_event_any", test_multi_null_event_any},
        {"multi_released", test_multi_released},
        {"multi_device_removed", test_multi_device_removed},
        {"multi_stress", test_multi_stress},
        {"event_number_moves", test_event_number_moves},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_fence_sync CASE\n");
    return 2;
}
