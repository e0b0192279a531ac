/* Correlation under load (issue 17 item 1; docs/drm.md "Correlation under load"), through libd12rt's public ABI
 * with the built-in reference driver (no D12RT_DRIVER).
 *
 *   stress_correlation load [ROUNDS [THREADS [BUSY]]]
 *   stress_correlation destroy_during_flush
 *
 * load: each round, a fresh device; THREADS (8) application threads, each with its own queue, fence and a named list
 * holding one draw whose vertex buffer view is 16 bytes longer than its buffer (the reference driver finds it at
 * execution, on the queue's timeline thread), execute / Signal / wait ITERATIONS (200) times; the InfoQueue callback
 * re-enters the device for every finding (GetNumStoredMessages, GetMessage of the newest, GetDeviceRemovedReason,
 * CreateFence and a Signal of it on a shared queue, ExecuteCommandLists of an empty list there). BUSY (4) threads
 * spin beside them the whole time, so the timelines and the application threads are preempted at random points (the
 * load the issue measured). Every finding must arrive exactly once with its own list's "[Draw #0]" annotation:
 * THREADS x ITERATIONS annotated findings per round, none bare, none annotated with another list.
 *
 * destroy_during_flush: the window the load case hit 1 to 2 times in 1600, made certain. Queue A's finding and
 * queue B's (A's first: B's work waits on A's signal) are pending in the driver; B's list is released; a thread's
 * ExecuteCommandLists flushes and its callback stands still in A's finding while the main thread releases queue B
 * (whose own flush finds nothing left to deliver); then B's finding, delivered by the first flush, must still carry
 * B's list's annotation (it arrived bare when the queue's release dropped its retention records at once). */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

#define MAX_THREADS 16
#define MAX_BUSY 16
#define ITERATIONS 200
#define VB_TEXT "The vertex buffer view in slot 0 covers 64 bytes from offset 0 of "

static struct {
    ID3D12Device *device;
    ID3D12InfoQueue1 *iq;
    ID3D12CommandQueue *shared;        /* the callback's Signal and ExecuteCommandLists */
    ID3D12GraphicsCommandList *empty;  /* closed, nothing recorded */
    unsigned threads;
    char prefix[MAX_THREADS][128];     /* "0x<list>:'Load<t>' [Draw #0] " */
    atomic_uint annotated[MAX_THREADS];
    atomic_uint bare, misannotated, reentry_failures;
    atomic_bool busy_running;
    pthread_barrier_t start;
} g;

static _Thread_local bool t_in_callback;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *busy_main(void *argument)
{
    (void)argument;
    volatile unsigned long spin = 0;
    while (atomic_load_explicit(&g.busy_running, memory_order_relaxed))
        spin++;
    return NULL;
}

static void reenter(void)
{
    unsigned failures = 0;
    UINT64 stored = ID3D12InfoQueue1_GetNumStoredMessages(g.iq);
    SIZE_T length = 0;
    if (stored == 0 || FAILED(ID3D12InfoQueue1_GetMessage(g.iq, stored - 1, NULL, &length)) || length == 0)
        failures++;
    if (ID3D12Device_GetDeviceRemovedReason(g.device) != S_OK)
        failures++;
    ID3D12Fence *fence = NULL;
    if (FAILED(ID3D12Device_CreateFence(g.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence)))
        failures++;
    if (fence) {
        if (FAILED(ID3D12CommandQueue_Signal(g.shared, fence, 1)))
            failures++;
        ID3D12Fence_Release(fence);
    }
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g.empty};
    ID3D12CommandQueue_ExecuteCommandLists(g.shared, 1, lists);
    atomic_fetch_add(&g.reentry_failures, failures);
}

static void on_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                       LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || !strstr(description, VB_TEXT))
        return;
    if (strncmp(description, VB_TEXT, strlen(VB_TEXT)) == 0) {
        atomic_fetch_add(&g.bare, 1);
    } else {
        bool known = false;
        for (unsigned t = 0; t < g.threads && !known; t++) {
            if (strncmp(description, g.prefix[t], strlen(g.prefix[t])) == 0) {
                atomic_fetch_add(&g.annotated[t], 1);
                known = true;
            }
        }
        if (!known)
            atomic_fetch_add(&g.misannotated, 1);
    }
    if (!t_in_callback) {
        t_in_callback = true;
        reenter();
        t_in_callback = false;
    }
}

static ID3D12CommandQueue *new_queue(void)
{
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ID3D12CommandQueue *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(g.device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    return queue;
}

static ID3D12GraphicsCommandList *new_list(const wchar_t *name)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(g.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    if (!allocator)
        return NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(g.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    ID3D12CommandAllocator_Release(allocator);
    if (list && name)
        CHECK_EQ_INT(ID3D12GraphicsCommandList_SetName(list, name), S_OK);
    return list;
}

static ID3D12Resource *new_upload_buffer(UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN,
                                  0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(g.device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                      (void **)&buffer), S_OK);
    return buffer;
}

static bool wait_fence(ID3D12Fence *fence, UINT64 value)
{
    int event = eventfd(0, EFD_CLOEXEC);
    if (!CHECK(event >= 0))
        return false;
    bool ok = CHECK(SUCCEEDED(ID3D12Fence_SetEventOnCompletion(fence, value, (HANDLE)(intptr_t)event)));
    struct pollfd waiting = {event, POLLIN, 0};
    ok = ok && CHECK(poll(&waiting, 1, 30000) == 1);
    uint64_t count = 0;
    ok = ok && CHECK(read(event, &count, sizeof count) == (ssize_t)sizeof count);
    close(event);
    return ok;
}

typedef struct worker {
    pthread_t thread;
    unsigned id;
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    ID3D12GraphicsCommandList *list;
    ID3D12Resource *vb;
    unsigned waited;
} worker;

static void *worker_main(void *argument)
{
    worker *w = argument;
    pthread_barrier_wait(&g.start);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)w->list};
    for (unsigned i = 1; i <= ITERATIONS; i++) {
        ID3D12CommandQueue_ExecuteCommandLists(w->queue, 1, lists);
        if (FAILED(ID3D12CommandQueue_Signal(w->queue, w->fence, i)) || !wait_fence(w->fence, i))
            break;
        w->waited++;
    }
    /* The application's last references go at once: only the runtime's retention keeps the list's recording (and
     * so the last findings' annotation) alive now. */
    ID3D12GraphicsCommandList_Release(w->list);
    ID3D12Resource_Release(w->vb);
    ID3D12Fence_Release(w->fence);
    ID3D12CommandQueue_Release(w->queue);
    return NULL;
}

static ID3D12Device *create_device(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return NULL;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    return device;
}

/* One round; returns the findings that were not annotated with their own list (bare + misannotated + missing). */
static unsigned round_once(unsigned round, unsigned threads)
{
    memset(&g, 0, offsetof(__typeof__(g), busy_running));
    g.threads = threads;
    g.device = create_device();
    if (!g.device)
        return ~0u;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(g.device, &IID_ID3D12InfoQueue1, (void **)&g.iq), S_OK);
    if (!g.iq)
        return ~0u;
    ID3D12InfoQueue1_SetMuteDebugOutput(g.iq, TRUE);
    ID3D12InfoQueue1_SetMessageCountLimit(g.iq, 4096);
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(g.iq, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                          &cookie), S_OK);
    g.shared = new_queue();
    g.empty = new_list(NULL);
    if (!g.shared || !g.empty)
        return ~0u;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(g.empty), S_OK);
    worker w[MAX_THREADS];
    pthread_barrier_init(&g.start, NULL, threads);
    for (unsigned t = 0; t < threads; t++) {
        wchar_t wname[32];
        char name[32];
        swprintf(wname, 32, L"Load%u", t);
        snprintf(name, sizeof name, "Load%u", t);
        w[t] = (worker){.id = t};
        w[t].queue = new_queue();
        w[t].vb = new_upload_buffer(48);
        w[t].list = new_list(wname);
        CHECK_EQ_INT(ID3D12Device_CreateFence(g.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&w[t].fence), S_OK);
        if (!w[t].queue || !w[t].vb || !w[t].list || !w[t].fence)
            return ~0u;
        D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(w[t].vb), 64, 16};
        ID3D12GraphicsCommandList_IASetVertexBuffers(w[t].list, 0, 1, &view);
        ID3D12GraphicsCommandList_DrawInstanced(w[t].list, 3, 1, 0, 0);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(w[t].list), S_OK);
        snprintf(g.prefix[t], sizeof g.prefix[t], "0x%016llX:'%s' [Draw #0] ",
                 (unsigned long long)(uintptr_t)w[t].list, name);
    }
    for (unsigned t = 0; t < threads; t++)
        CHECK_EQ_INT(pthread_create(&w[t].thread, NULL, worker_main, &w[t]), 0);
    unsigned waited = 0;
    for (unsigned t = 0; t < threads; t++) {
        pthread_join(w[t].thread, NULL);
        waited += w[t].waited;
    }
    pthread_barrier_destroy(&g.start);
    /* The last findings are delivered by the flush of a later call: the shared queue's release flushes. */
    ID3D12GraphicsCommandList_Release(g.empty);
    ID3D12CommandQueue_Release(g.shared);
    unsigned annotated = 0, over = 0;
    for (unsigned t = 0; t < threads; t++) {
        unsigned got = atomic_load(&g.annotated[t]);
        annotated += got;
        over += got > ITERATIONS; /* a list annotated more often than it ran: a duplicate */
    }
    unsigned bare = atomic_load(&g.bare), mis = atomic_load(&g.misannotated);
    unsigned delivered = annotated + bare + mis, expected = threads * ITERATIONS;
    /* every finding once (none lost, none twice), each annotated with its own list */
    unsigned wrong = over + (delivered > expected ? delivered - expected : expected - delivered);
    CHECK_EQ_INT(waited, threads * ITERATIONS);
    CHECK_EQ_INT(atomic_load(&g.reentry_failures), 0);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(g.device), S_OK);
    ID3D12InfoQueue1_UnregisterMessageCallback(g.iq, cookie);
    ID3D12InfoQueue1_Release(g.iq);
    CHECK_EQ_INT(ID3D12Device_Release(g.device), 0);
    if (bare || mis || wrong)
        fprintf(stderr, "round %u: %u of %u findings annotated with their own list, %u bare, %u with another's\n",
                round, annotated, threads * ITERATIONS, bare, mis);
    return bare + mis + wrong;
}

/* ---- destroy_during_flush ---- */

static struct {
    char prefix_a[128], prefix_b[128];
    ID3D12CommandQueue *queue_a;
    ID3D12GraphicsCommandList *empty;
    sem_t in_callback, queue_b_gone;
    atomic_uint delivered_a, delivered_b, bare, stalled;
    atomic_bool timed_out;
} d;

static void on_delivery(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                        LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || !strstr(description, VB_TEXT))
        return;
    if (strncmp(description, d.prefix_a, strlen(d.prefix_a)) == 0)
        atomic_fetch_add(&d.delivered_a, 1);
    else if (strncmp(description, d.prefix_b, strlen(d.prefix_b)) == 0)
        atomic_fetch_add(&d.delivered_b, 1);
    else
        atomic_fetch_add(&d.bare, 1);
    if (atomic_fetch_add(&d.stalled, 1) == 0) { /* the first finding of the flush: stand still in it */
        sem_post(&d.in_callback);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        while (sem_timedwait(&d.queue_b_gone, &until) != 0) {
            if (errno != EINTR) {
                atomic_store(&d.timed_out, true);
                break;
            }
        }
    }
}

static void *flusher_main(void *argument)
{
    (void)argument;
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)d.empty};
    ID3D12CommandQueue_ExecuteCommandLists(d.queue_a, 1, lists); /* completed work was observed: it flushes */
    return NULL;
}

static void test_destroy_during_flush(void)
{
    g.device = create_device();
    if (!g.device)
        return;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(g.device, &IID_ID3D12InfoQueue1, (void **)&g.iq), S_OK);
    if (!g.iq)
        return;
    ID3D12InfoQueue1_SetMuteDebugOutput(g.iq, TRUE);
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(g.iq, on_delivery, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                          &cookie), S_OK);
    sem_init(&d.in_callback, 0, 0);
    sem_init(&d.queue_b_gone, 0, 0);
    d.queue_a = new_queue();
    ID3D12CommandQueue *queue_b = new_queue();
    ID3D12GraphicsCommandList *list_a = new_list(L"FindingA"), *list_b = new_list(L"FindingB");
    d.empty = new_list(NULL);
    ID3D12Resource *vb = new_upload_buffer(48);
    ID3D12Fence *gate = NULL, *fence_a = NULL, *fence_b = NULL;
    ID3D12Fence **fences[] = {&gate, &fence_a, &fence_b};
    for (unsigned i = 0; i < 3; i++)
        CHECK_EQ_INT(ID3D12Device_CreateFence(g.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)fences[i]), S_OK);
    if (!d.queue_a || !queue_b || !list_a || !list_b || !d.empty || !vb || !gate || !fence_a || !fence_b)
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 64, 16};
    ID3D12GraphicsCommandList *both[] = {list_a, list_b};
    for (unsigned i = 0; i < 2; i++) {
        ID3D12GraphicsCommandList_IASetVertexBuffers(both[i], 0, 1, &view);
        ID3D12GraphicsCommandList_DrawInstanced(both[i], 3, 1, 0, 0);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(both[i]), S_OK);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(d.empty), S_OK);
    snprintf(d.prefix_a, sizeof d.prefix_a, "0x%016llX:'FindingA' [Draw #0] ", (unsigned long long)(uintptr_t)list_a);
    snprintf(d.prefix_b, sizeof d.prefix_b, "0x%016llX:'FindingB' [Draw #0] ", (unsigned long long)(uintptr_t)list_b);
    /* Nothing completes before the gate opens, so no call below flushes; B's work runs after A's signal, so the
     * driver holds A's finding first. */
    ID3D12CommandList *lists_a[] = {(ID3D12CommandList *)list_a}, *lists_b[] = {(ID3D12CommandList *)list_b};
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(d.queue_a, gate, 1), S_OK);
    ID3D12CommandQueue_ExecuteCommandLists(d.queue_a, 1, lists_a);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(d.queue_a, fence_a, 1), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(queue_b, fence_a, 1), S_OK);
    ID3D12CommandQueue_ExecuteCommandLists(queue_b, 1, lists_b);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(queue_b, fence_b, 1), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(gate, 1), S_OK);
    CHECK(wait_fence(fence_b, 1));
    CHECK_EQ_INT(atomic_load(&d.stalled), 0); /* both findings still pending in the driver */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Release(list_b), 0); /* only queue B's retention keeps its recording */
    pthread_t flusher;
    CHECK_EQ_INT(pthread_create(&flusher, NULL, flusher_main, NULL), 0);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    bool stalled = sem_timedwait(&d.in_callback, &until) == 0;
    CHECK(stalled);
    CHECK_EQ_INT(atomic_load(&d.delivered_a), 1); /* the flush delivers A's finding first and stands in it */
    CHECK_EQ_INT(ID3D12CommandQueue_Release(queue_b), 0); /* its own flush finds nothing: the first flush took all */
    sem_post(&d.queue_b_gone);
    pthread_join(flusher, NULL);
    CHECK(!atomic_load(&d.timed_out));
    CHECK_EQ_INT(atomic_load(&d.delivered_a), 1);
    CHECK_EQ_INT(atomic_load(&d.delivered_b), 1); /* annotated with B's list, though B's queue and list are gone */
    CHECK_EQ_INT(atomic_load(&d.bare), 0);
    ID3D12GraphicsCommandList_Release(list_a);
    ID3D12GraphicsCommandList_Release(d.empty);
    ID3D12Resource_Release(vb);
    for (unsigned i = 0; i < 3; i++)
        ID3D12Fence_Release(*fences[i]);
    ID3D12CommandQueue_Release(d.queue_a);
    ID3D12InfoQueue1_UnregisterMessageCallback(g.iq, cookie);
    ID3D12InfoQueue1_Release(g.iq);
    CHECK_EQ_INT(ID3D12Device_Release(g.device), 0);
    sem_destroy(&d.in_callback);
    sem_destroy(&d.queue_b_gone);
}

/* ---- load ---- */

static void test_load(int argc, char **argv)
{
    unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
    unsigned threads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 8;
    unsigned busy = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 4;
    if (threads == 0 || threads > MAX_THREADS || busy > MAX_BUSY) {
        fprintf(stderr, "usage: stress_correlation load [ROUNDS [THREADS (1-%u) [BUSY (0-%u)]]]\n", MAX_THREADS,
                MAX_BUSY);
        exit(2);
    }
    pthread_t spinners[MAX_BUSY];
    atomic_store(&g.busy_running, true);
    for (unsigned b = 0; b < busy; b++)
        pthread_create(&spinners[b], NULL, busy_main, NULL);
    double started = now_s();
    unsigned failed_rounds = 0, lost = 0;
    for (unsigned r = 0; r < rounds; r++) {
        unsigned bad = round_once(r, threads);
        if (bad == ~0u) {
            failed_rounds = rounds;
            break;
        }
        failed_rounds += bad != 0;
        lost += bad;
    }
    atomic_store(&g.busy_running, false);
    for (unsigned b = 0; b < busy; b++)
        pthread_join(spinners[b], NULL);
    CHECK_EQ_INT(failed_rounds, 0);
    CHECK_EQ_INT(lost, 0);
    printf("correlation under load: %u rounds x %u threads x %u findings beside %u busy threads in %.2f s: %u rounds "
           "lost an annotation (%u findings)\n", rounds, threads, ITERATIONS, busy, now_s() - started, failed_rounds,
           lost);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "load") == 0) {
        test_load(argc, argv);
    } else if (argc > 1 && strcmp(argv[1], "destroy_during_flush") == 0) {
        test_destroy_during_flush();
    } else {
        fprintf(stderr, "usage: stress_correlation load [ROUNDS [THREADS [BUSY]]] | destroy_during_flush\n");
        return 2;
    }
    return d12test_finish();
}
