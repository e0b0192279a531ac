/* Accounting under load (issue 12 item 5), through libd12rt's public ABI over tests/drm's shim driver
 * (libd12_drmshim.so as D12RT_DRIVER: the reference driver, plus d12_drmshim_* to report as the driver and to count
 * flushes). `stress_load CASE [SCALE]`; SCALE multiplies the case's CI-sized counts (ctest runs SCALE 1, a few
 * seconds each; docs/reliability.md "Accounting under load" gives the full-scale figures and commands).
 *
 *   reports            T driver threads x M reports with the count limit raised, an application thread polling the
 *                      newest message meanwhile: every valid message stored exactly once (count, a per-message
 *                      seen-map, and an order-independent checksum over ID, category, severity and the stored text,
 *                      which includes the command-list annotation a state index resolves to), every invalid one
 *                      (bad severity, bad category, NULL description) refused with E_INVALIDARG and stored nowhere;
 *                      the message callback saw exactly the stored ones (same count, same checksum)
 *   reports_reentrant  the same while the callback re-enters the device for one message in eight (GetMessage of the
 *                      newest, ExecuteCommandLists, Signal, CreateFence, GetDeviceRemovedReason) and application
 *                      threads execute and signal so flushes (with staged driver messages) run on their threads
 *                      too: every call from the callback succeeds, no flush nests, the accounting stays exact
 *   removal            R rounds of: a fresh device, 8 threads each executing an open command list on its own queue
 *                      at once (removal with DXGI_ERROR_INVALID_CALL) then asking the reason: every thread sees the
 *                      one reason, the driver gets exactly one removal flush (which delivers the message it held
 *                      once), the InfoQueue holds one DEVICE_REMOVED message, and D12RT_DRED_DUMP gets exactly one
 *                      report file, whose reason and flush messages say the same
 *   destroy_in_flight  R rounds of: 4 queues, each given S submissions of a list whose draw the driver finds
 *                      faulty at execution (the reference driver sleeps before each execution, so the work is in
 *                      flight), then every queue released at once from its own thread: each release waits for its
 *                      work and flushes, so every finding arrives exactly once, annotated with its own list
 *   fences_pending     N fences each released by the application with a queue Signal of it still pending (the queue
 *                      waits on a gate): when the gate opens, the GPU timeline completes the N signals and frees the
 *                      N fences in far less time than making them took (a fence leaving the device's list used to
 *                      walk it: quadratic; 100 000 took minutes)
 *   retention          D12RT_MAX_LIVE_STATE_INDICES (ctest: 1024) with T threads recording draws far past it and
 *                      reporting each draw's index as they go: an annotation is always the right list and draw or
 *                      none, the newest indices resolve, the oldest were evicted (the bound holds under threads) */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
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
#include <d12rt/d3d12ddi.h>

#include "d12dred_report.h"
#include "harness.h"

#define MSG_DEVICE_REMOVED ((D3D12_MESSAGE_ID)0x10006)
#define NO_INDEX 0xFFFFFFFFu
#define VB_TEXT "The vertex buffer view in slot 0 covers 64 bytes from offset 0 of "

static unsigned g_scale = 1;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the shim (the copy D12RT_DRIVER loaded) ---- */

static struct {
    HRESULT (*report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    unsigned (*flush_calls)(void);
    unsigned (*nested_flushes)(void);
    int (*stage)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    unsigned (*staged_reported)(void);
    unsigned (*staged_failed)(void);
    UINT32 (*last_index)(void);
} shim;

static bool load_shim(void)
{
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    if (!CHECK(library != NULL))
        return false;
    *(void **)&shim.report = dlsym(library, "d12_drmshim_report");
    *(void **)&shim.flush_calls = dlsym(library, "d12_drmshim_flush_calls");
    *(void **)&shim.nested_flushes = dlsym(library, "d12_drmshim_nested_flushes");
    *(void **)&shim.stage = dlsym(library, "d12_drmshim_stage");
    *(void **)&shim.staged_reported = dlsym(library, "d12_drmshim_staged_reported");
    *(void **)&shim.staged_failed = dlsym(library, "d12_drmshim_staged_failed");
    *(void **)&shim.last_index = dlsym(library, "d12_drmshim_last_index");
    return CHECK(shim.report && shim.flush_calls && shim.nested_flushes && shim.stage && shim.staged_reported &&
                 shim.staged_failed && shim.last_index);
}

/* ---- the application's objects ---- */

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
    if (device && !load_shim()) {
        ID3D12Device_Release(device);
        return NULL;
    }
    return device;
}

static ID3D12InfoQueue1 *info_queue_of(ID3D12Device *device)
{
    ID3D12InfoQueue1 *iq = NULL;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&iq), S_OK);
    if (iq)
        ID3D12InfoQueue1_SetMuteDebugOutput(iq, TRUE);
    return iq;
}

static ID3D12CommandQueue *new_queue(ID3D12Device *device)
{
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ID3D12CommandQueue *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    return queue;
}

static ID3D12Fence *new_fence(ID3D12Device *device)
{
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    return fence;
}

/* An open list on a fresh allocator, named when `name` is not NULL. */
static ID3D12GraphicsCommandList *new_list(ID3D12Device *device, const wchar_t *name)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    if (!allocator)
        return NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    ID3D12CommandAllocator_Release(allocator);
    if (list && name)
        CHECK_EQ_INT(ID3D12GraphicsCommandList_SetName(list, name), S_OK);
    return list;
}

static ID3D12Resource *new_upload_buffer(ID3D12Device *device, UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN,
                                  0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                      (void **)&buffer), S_OK);
    return buffer;
}

static void execute(ID3D12CommandQueue *queue, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
}

static bool wait_fence(ID3D12Fence *fence, UINT64 value)
{
    int event = eventfd(0, EFD_CLOEXEC);
    if (!CHECK(event >= 0))
        return false;
    bool ok = CHECK(SUCCEEDED(ID3D12Fence_SetEventOnCompletion(fence, value, (HANDLE)(intptr_t)event)));
    struct pollfd waiting = {event, POLLIN, 0};
    ok = ok && CHECK(poll(&waiting, 1, 20000) == 1);
    uint64_t count = 0; /* the read orders the runtime's write before our close() for ThreadSanitizer */
    ok = ok && CHECK(read(event, &count, sizeof count) == (ssize_t)sizeof count);
    close(event);
    return ok && CHECK(ID3D12Fence_GetCompletedValue(fence) >= value);
}

/* The stored message i, malloc'ed. */
static D3D12_MESSAGE *message_at(ID3D12InfoQueue1 *iq, UINT64 i)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue1_GetMessage(iq, i, NULL, &length)))
        return NULL;
    D3D12_MESSAGE *message = malloc(length);
    if (message && FAILED(ID3D12InfoQueue1_GetMessage(iq, i, message, &length))) {
        free(message);
        return NULL;
    }
    return message;
}

/* "0x<list>:'<name>' [<kind> #<ordinal>] ": the annotation of a resolvable state index (docs/drm.md). */
static void prefix_of(char *out, size_t size, const void *list, const char *name, const char *kind, unsigned ordinal)
{
    snprintf(out, size, "0x%016llX:'%s' [%s #%u] ", (unsigned long long)(uintptr_t)list, name, kind, ordinal);
}

/* ---- checksums ---- */

/* FNV-1a, 64-bit, over the message's ID, category, severity and text (with the terminator). */
static uint64_t message_hash(uint32_t id, uint32_t category, uint32_t severity, const char *text)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint32_t fields[3] = {id, category, severity};
    const unsigned char *bytes = (const unsigned char *)fields;
    for (size_t i = 0; i < sizeof fields; i++)
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    for (const unsigned char *p = (const unsigned char *)text;; p++) {
        h = (h ^ *p) * 0x100000001b3ull;
        if (!*p)
            break;
    }
    /* a final mix, so the order-independent sum of many hashes does not cancel on structured inputs */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- reports, reports_reentrant ---- */

#define TARGETS 4    /* closed lists whose draws' state indices the reports carry */
#define TARGET_DRAWS 3
#define STAGERS 2    /* reports_reentrant: application threads that execute and signal */

static struct {
    ID3D12Device *device;
    ID3D12InfoQueue1 *iq;
    ID3D12CommandQueue *queue;    /* the callback's re-entrant ExecuteCommandLists and Signal */
    ID3D12GraphicsCommandList *idle;
    UINT32 index[TARGETS][TARGET_DRAWS];
    char prefix[TARGETS][TARGET_DRAWS][128];
    unsigned threads, per_thread;
    bool reenter;
    pthread_barrier_t start;
    atomic_bool running;
    /* what the callback saw of the driver's messages */
    atomic_ullong callback_count, callback_sum;
    atomic_uint reentered, reentry_failures;
    atomic_ullong polls;
} g;

static _Thread_local unsigned t_in_callback;

/* The callback calling back into the device, on whatever thread delivers (a reporter, a flushing application thread,
 * the poller). GetMessage reads the newest message while reporters store more. */
static void reenter_device(void)
{
    unsigned failures = 0;
    UINT64 stored = ID3D12InfoQueue1_GetNumStoredMessages(g.iq);
    SIZE_T length = 0;
    if (stored == 0 || FAILED(ID3D12InfoQueue1_GetMessage(g.iq, stored - 1, NULL, &length)) || length == 0)
        failures++;
    execute(g.queue, g.idle);
    ID3D12Fence *fence = NULL;
    if (FAILED(ID3D12Device_CreateFence(g.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence)))
        failures++;
    if (fence) {
        if (FAILED(ID3D12CommandQueue_Signal(g.queue, fence, 1)))
            failures++;
        ID3D12Fence_Release(fence);
    }
    if (ID3D12Device_GetDeviceRemovedReason(g.device) != S_OK)
        failures++;
    atomic_fetch_add(&g.reentered, 1);
    atomic_fetch_add(&g.reentry_failures, failures);
}

static void on_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                       LPCSTR description, void *context)
{
    (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || strstr(description, " stress ") == NULL)
        return;
    atomic_fetch_add(&g.callback_count, 1);
    atomic_fetch_add(&g.callback_sum, message_hash(id, category, severity, description));
    /* Not from a callback the re-entry itself caused (its ExecuteCommandLists may flush staged messages here). */
    if (g.reenter && t_in_callback == 0 && strstr(description, " reenter")) {
        t_in_callback = 1;
        reenter_device();
        t_in_callback = 0;
    }
}

typedef struct reporter {
    pthread_t thread;
    unsigned id;
    uint64_t valid, invalid, refused_valid, accepted_invalid, sum;
} reporter;

/* Report k of thread t: one in 16 has a bad severity, one a bad category, one a NULL description (each must be
 * refused with E_INVALIDARG); the rest are valid, with every severity and category, and a third of them carry a
 * target draw's state index (stored with that draw's annotation). */
static void *reporter_main(void *argument)
{
    reporter *r = argument;
    char text[160], stored[320];
    pthread_barrier_wait(&g.start);
    for (unsigned k = 0; k < g.per_thread; k++) {
        uint64_t x = mix((uint64_t)r->id << 32 | k);
        unsigned kind = (unsigned)(x % 16);
        int filler = (int)((x >> 8) % 48);
        snprintf(text, sizeof text, "t%u k%u stress %.*s%s", r->id, k, filler,
                 "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL", g.reenter && (x >> 16) % 8 == 0 ? " reenter" : "");
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {x, (D3D12DDI_MESSAGE_SEVERITY_0126)((x >> 20) % 5),
                                                   (D3D12DDI_MESSAGE_CATEGORY_0126)((x >> 24) % 12), text, NO_INDEX};
        const char *prefix = "";
        if (kind == 0) {
            m.Severity = (D3D12DDI_MESSAGE_SEVERITY_0126)(5 + (x >> 28) % 100);
        } else if (kind == 1) {
            m.Category = (D3D12DDI_MESSAGE_CATEGORY_0126)(12 + (x >> 28) % 100);
        } else if (kind == 2) {
            m.pDescription = NULL;
        } else if ((x >> 32) % 3 == 0) {
            unsigned target = (unsigned)((x >> 36) % TARGETS), draw = (unsigned)((x >> 40) % TARGET_DRAWS);
            m.CommandListStateIndex = g.index[target][draw];
            prefix = g.prefix[target][draw];
        }
        HRESULT hr = shim.report(&m);
        if (kind <= 2) {
            r->invalid++;
            if (hr != E_INVALIDARG)
                r->accepted_invalid++;
            continue;
        }
        r->valid++;
        if (hr != S_OK) {
            r->refused_valid++;
            continue;
        }
        snprintf(stored, sizeof stored, "%s%s", prefix, text);
        r->sum += message_hash(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, m.Category, m.Severity, stored);
    }
    return NULL;
}

/* An application thread reading the newest message over and over while the reporters store. */
static void *poller_main(void *argument)
{
    (void)argument;
    pthread_barrier_wait(&g.start);
    while (atomic_load(&g.running)) {
        UINT64 stored = ID3D12InfoQueue1_GetNumStoredMessages(g.iq);
        D3D12_MESSAGE *m = stored ? message_at(g.iq, stored - 1) : NULL;
        free(m);
        atomic_fetch_add(&g.polls, 1);
    }
    return NULL;
}

/* reports_reentrant: an application thread staging driver messages and making flush points on its own queue. */
typedef struct stager {
    pthread_t thread;
    unsigned id, rounds;
} stager;

static void *stager_main(void *argument)
{
    stager *s = argument;
    ID3D12CommandQueue *queue = new_queue(g.device);
    ID3D12Fence *fence = new_fence(g.device);
    pthread_barrier_wait(&g.start);
    char text[96];
    for (unsigned k = 0; queue && fence && atomic_load(&g.running); k++) {
        snprintf(text, sizeof text, "staged %u round %u stress reenter", s->id, k);
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {k, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                                   D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, NO_INDEX};
        CHECK(shim.stage(&m));
        execute(queue, g.idle);
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(queue, fence, (UINT64)k + 1), S_OK);
        wait_fence(fence, (UINT64)k + 1);
        execute(queue, g.idle); /* the flush point for that completion: the staged message goes out here */
        s->rounds = k + 1;
    }
    if (fence)
        ID3D12Fence_Release(fence);
    if (queue)
        ID3D12CommandQueue_Release(queue);
    return NULL;
}

/* Parses "t%u k%u stress " at `text` (after any annotation); the reporter and its report number. */
static bool parse_report_text(const char *text, unsigned *t, unsigned *k)
{
    int n = 0;
    return sscanf(text, "t%u k%u stress %n", t, k, &n) == 2 && n > 0;
}

static void run_reports(bool reenter)
{
    memset(&g, 0, sizeof g);
    g.threads = 8;
    g.per_thread = (reenter ? 5000u : 10000u) * g_scale;
    g.reenter = reenter;
    g.device = create_device();
    g.iq = g.device ? info_queue_of(g.device) : NULL;
    g.queue = g.iq ? new_queue(g.device) : NULL;
    g.idle = g.queue ? new_list(g.device, L"Idle") : NULL;
    if (!g.idle)
        return;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(g.idle), S_OK);
    ID3D12GraphicsCommandList *targets[TARGETS];
    for (unsigned i = 0; i < TARGETS; i++) {
        wchar_t wname[32];
        char name[32];
        swprintf(wname, 32, L"Target%u", i);
        snprintf(name, sizeof name, "Target%u", i);
        targets[i] = new_list(g.device, wname);
        if (!targets[i])
            return;
        for (unsigned d = 0; d < TARGET_DRAWS; d++) {
            ID3D12GraphicsCommandList_DrawInstanced(targets[i], 3, 1, 0, 0);
            g.index[i][d] = shim.last_index();
            prefix_of(g.prefix[i][d], sizeof g.prefix[i][d], targets[i], name, "Draw", d);
        }
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(targets[i]), S_OK);
    }
    UINT64 total = (UINT64)g.threads * g.per_thread;
    CHECK_EQ_INT(ID3D12InfoQueue1_SetMessageCountLimit(g.iq, total * 2 + 100000), S_OK);
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(g.iq, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                          &cookie), S_OK);
    UINT64 base = ID3D12InfoQueue1_GetNumStoredMessages(g.iq);
    unsigned flushes = shim.flush_calls(), staged_before = shim.staged_reported();

    unsigned stagers = reenter ? STAGERS : 0;
    pthread_barrier_init(&g.start, NULL, g.threads + 1 + stagers + 1);
    atomic_store(&g.running, true);
    reporter *reporters = calloc(g.threads, sizeof *reporters);
    stager staging[STAGERS] = {{0}};
    pthread_t poller;
    for (unsigned i = 0; i < g.threads; i++) {
        reporters[i].id = i;
        CHECK_EQ_INT(pthread_create(&reporters[i].thread, NULL, reporter_main, &reporters[i]), 0);
    }
    for (unsigned i = 0; i < stagers; i++) {
        staging[i].id = i;
        CHECK_EQ_INT(pthread_create(&staging[i].thread, NULL, stager_main, &staging[i]), 0);
    }
    CHECK_EQ_INT(pthread_create(&poller, NULL, poller_main, NULL), 0);
    double started = now_s();
    pthread_barrier_wait(&g.start);
    uint64_t valid = 0, invalid = 0, sum = 0;
    for (unsigned i = 0; i < g.threads; i++) {
        pthread_join(reporters[i].thread, NULL);
        CHECK_EQ_INT(reporters[i].refused_valid, 0);
        CHECK_EQ_INT(reporters[i].accepted_invalid, 0);
        valid += reporters[i].valid;
        invalid += reporters[i].invalid;
        sum += reporters[i].sum;
    }
    double reported = now_s() - started;
    atomic_store(&g.running, false);
    pthread_join(poller, NULL);
    unsigned staged_rounds = 0;
    for (unsigned i = 0; i < stagers; i++) {
        pthread_join(staging[i].thread, NULL);
        staged_rounds += staging[i].rounds;
    }
    pthread_barrier_destroy(&g.start);
    CHECK_EQ_INT(valid + invalid, total);
    CHECK(invalid > 0 && valid > 0);

    /* What the staged messages add (reports_reentrant): each was reported once from inside a flush. */
    unsigned staged = shim.staged_reported() - staged_before;
    CHECK_EQ_INT(staged, staged_rounds);
    CHECK_EQ_INT(shim.staged_failed(), 0);
    CHECK_EQ_INT(shim.nested_flushes(), 0);

    /* The store: exactly the valid reports (and the staged ones), each once, each with its exact content. */
    UINT64 stored = ID3D12InfoQueue1_GetNumStoredMessages(g.iq);
    CHECK_EQ_INT(stored - base, valid + staged);
    unsigned char *seen = calloc(total, 1);
    uint64_t stored_sum = 0, duplicates = 0, strays = 0, unreadable = 0, staged_seen = 0;
    for (UINT64 i = base; seen && i < stored; i++) {
        D3D12_MESSAGE *m = message_at(g.iq, i);
        if (!m) {
            unreadable++;
            continue;
        }
        const char *text = m->pDescription;
        if (strncmp(text, "staged ", 7) == 0) {
            staged_seen++;
            free(m);
            continue;
        }
        if (strncmp(text, "0x", 2) == 0 && strstr(text, "] "))
            text = strstr(text, "] ") + 2; /* past the annotation; the hash covers it */
        unsigned t, k;
        if (m->ID != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || !parse_report_text(text, &t, &k) ||
            t >= g.threads || k >= g.per_thread) {
            strays++;
        } else if (seen[(size_t)t * g.per_thread + k]++) {
            duplicates++;
        }
        stored_sum += message_hash(m->ID, m->Category, m->Severity, m->pDescription);
        free(m);
    }
    CHECK_EQ_INT(unreadable, 0);
    CHECK_EQ_INT(strays, 0);
    CHECK_EQ_INT(duplicates, 0);
    CHECK_EQ_INT(staged_seen, staged);
    CHECK(stored_sum == sum);
    /* The callback saw the same messages (the staged ones too, which it hashes as well). */
    CHECK_EQ_INT(atomic_load(&g.callback_count), valid + staged);
    if (!reenter)
        CHECK(atomic_load(&g.callback_sum) == sum);
    if (reenter) {
        CHECK(atomic_load(&g.reentered) > 0);
        CHECK_EQ_INT(atomic_load(&g.reentry_failures), 0);
        CHECK(shim.flush_calls() > flushes);
    }
    printf("%s: %u threads x %u reports (%llu valid, %llu refused E_INVALIDARG) in %.2f s, %llu polls of the newest "
           "message, %u staged, %u re-entries, checksum %016llx\n",
           reenter ? "reports_reentrant" : "reports", g.threads, g.per_thread, (unsigned long long)valid,
           (unsigned long long)invalid, reported, (unsigned long long)atomic_load(&g.polls), staged,
           atomic_load(&g.reentered), (unsigned long long)sum);
    free(seen);
    free(reporters);
    CHECK_EQ_INT(ID3D12InfoQueue1_UnregisterMessageCallback(g.iq, cookie), S_OK);
    for (unsigned i = 0; i < TARGETS; i++)
        ID3D12GraphicsCommandList_Release(targets[i]);
    ID3D12GraphicsCommandList_Release(g.idle);
    ID3D12CommandQueue_Release(g.queue);
    ID3D12InfoQueue1_Release(g.iq);
    CHECK_EQ_INT(ID3D12Device_Release(g.device), 0);
}

static void test_reports(void)
{
    run_reports(false);
}

static void test_reports_reentrant(void)
{
    run_reports(true);
}

/* ---- removal ---- */

#define RACERS 8

typedef struct racer {
    pthread_t thread;
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12GraphicsCommandList *open;
    ID3D12Fence *fence;
    pthread_barrier_t *start, *executed;
    HRESULT reason_at_once, reason;
    UINT64 completed;
} racer;

/* Right after its own ExecuteCommandLists every thread reads the one reason: the thread that won the removal claim
 * publishes it only after the DRED freeze (runtime/device.c d12__device_remove_fault), and GetDeviceRemovedReason
 * of a thread that lost the claim waits for that publication (docs/device.md, "Removal"). */
static void *racer_main(void *argument)
{
    racer *r = argument;
    pthread_barrier_wait(r->start);
    execute(r->queue, r->open); /* an open list: removal with DXGI_ERROR_INVALID_CALL */
    r->reason_at_once = ID3D12Device_GetDeviceRemovedReason(r->device);
    pthread_barrier_wait(r->executed);
    r->reason = ID3D12Device_GetDeviceRemovedReason(r->device);
    r->completed = ID3D12Fence_GetCompletedValue(r->fence);
    return NULL;
}

/* The report files in `dir`; the last one's path in `path`. */
static unsigned dump_files(const char *dir, char *path, size_t size)
{
    DIR *d = opendir(dir);
    unsigned count = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        count++;
        snprintf(path, size, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    return count;
}

static unsigned count_text(ID3D12InfoQueue1 *iq, D3D12_MESSAGE_ID id, const char *text)
{
    unsigned found = 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue1_GetNumStoredMessages(iq); i++) {
        D3D12_MESSAGE *m = message_at(iq, i);
        found += m && m->ID == id && (!text || strcmp(m->pDescription, text) == 0);
        free(m);
    }
    return found;
}

/* One round; false when it could not be set up. Counts what went wrong into `bad` (one per kind of failure). */
static bool removal_round(unsigned round, const char *dir, unsigned *bad)
{
    ID3D12Device *device = create_device();
    ID3D12InfoQueue1 *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return false;
    racer racers[RACERS];
    pthread_barrier_t start, executed;
    pthread_barrier_init(&start, NULL, RACERS);
    pthread_barrier_init(&executed, NULL, RACERS);
    for (unsigned i = 0; i < RACERS; i++) {
        racers[i] = (racer){.device = device, .start = &start, .executed = &executed, .reason = E_FAIL};
        racers[i].queue = new_queue(device);
        racers[i].fence = new_fence(device);
        racers[i].open = new_list(device, L"Open");
        if (!racers[i].queue || !racers[i].fence || !racers[i].open)
            return false;
        ID3D12GraphicsCommandList_DrawInstanced(racers[i].open, 3, 1, 0, 0);
    }
    char held[64];
    snprintf(held, sizeof held, "held by the driver at removal, round %u", round);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {round, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, held, NO_INDEX};
    CHECK(shim.stage(&m));
    unsigned flushes = shim.flush_calls();
    for (unsigned i = 0; i < RACERS; i++)
        CHECK_EQ_INT(pthread_create(&racers[i].thread, NULL, racer_main, &racers[i]), 0);
    unsigned wrong_reason = 0, wrong_fence = 0;
    for (unsigned i = 0; i < RACERS; i++) {
        pthread_join(racers[i].thread, NULL);
        wrong_reason += racers[i].reason != DXGI_ERROR_INVALID_CALL;
        wrong_reason += racers[i].reason_at_once != DXGI_ERROR_INVALID_CALL;
        wrong_fence += racers[i].completed != UINT64_MAX;
    }
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&executed);
    unsigned removal_flushes = shim.flush_calls() - flushes;
    unsigned held_stored = count_text(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, held);
    unsigned removed_messages = count_text(iq, MSG_DEVICE_REMOVED, NULL);
    for (unsigned i = 0; i < RACERS; i++) {
        ID3D12GraphicsCommandList_Release(racers[i].open);
        ID3D12Fence_Release(racers[i].fence);
        ID3D12CommandQueue_Release(racers[i].queue);
    }
    removal_flushes = shim.flush_calls() - flushes; /* queue destruction on a removed device does not flush again */
    ID3D12InfoQueue1_Release(iq);
    ULONG left = ID3D12Device_Release(device);
    char path[1024] = "";
    unsigned files = dump_files(dir, path, sizeof path);
    unsigned report_wrong = 0;
    if (files == 1) {
        d12dred_report *report = NULL;
        char error[256] = "";
        if (d12dred_report_read_json(path, &report, error, sizeof error) != 0) {
            fprintf(stderr, "    round %u: %s\n", round, error);
            report_wrong++;
        } else {
            unsigned held_in_report = 0;
            for (size_t i = 0; i < report->flush_message_count; i++)
                held_in_report += report->flush_messages[i].text && strcmp(report->flush_messages[i].text, held) == 0;
            report_wrong += report->reason != (int32_t)DXGI_ERROR_INVALID_CALL;
            report_wrong += held_in_report != 1;
            report_wrong += report->queue_count != RACERS;
            d12dred_report_free(report);
        }
    }
    for (unsigned guard = 0; files > 0 && guard < 64 && dump_files(dir, path, sizeof path) > 0; guard++)
        unlink(path);
    /* one failure count per kind, with the round it first happened in */
    unsigned kinds[] = {wrong_reason, wrong_fence, removal_flushes != 1, held_stored != 1, removed_messages != 1,
                        files != 1, report_wrong, left != 0};
    static const char *const what[] = {"a thread saw another reason", "a fence not at UINT64_MAX",
                                       "not exactly one removal flush", "the held message not stored once",
                                       "not one DEVICE_REMOVED message", "not one report file",
                                       "the report disagrees", "the device outlived its last reference"};
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (kinds[k] && bad[k]++ == 0)
            fprintf(stderr, "    round %u: %s (%u; flushes %u, files %u)\n", round, what[k], kinds[k],
                    removal_flushes, files);
    }
    return true;
}

static void test_removal(void)
{
    char dir[] = "/tmp/d12stress_removal_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    unsigned rounds = 100 * g_scale, done = 0, bad[8] = {0};
    double started = now_s();
    for (unsigned r = 0; r < rounds && removal_round(r, dir, bad); r++)
        done++;
    CHECK_EQ_INT(done, rounds);
    for (unsigned k = 0; k < 8; k++)
        CHECK_EQ_INT(bad[k], 0);
    printf("removal: %u rounds x %u threads in %.2f s: one reason, one removal flush, one DEVICE_REMOVED message, "
           "one report each, the reason visible to every thread right after its own removing call\n", done, RACERS,
           now_s() - started);
    rmdir(dir);
}

/* ---- destroy_in_flight ---- */

#define DESTROY_QUEUES 4

typedef struct doomed {
    pthread_t thread;
    ID3D12CommandQueue *queue;
    ID3D12GraphicsCommandList *list;
    ID3D12Resource *vb;
    char prefix[128];
    pthread_barrier_t *start;
    ULONG left;
} doomed;

static void *destroyer_main(void *argument)
{
    doomed *d = argument;
    pthread_barrier_wait(d->start);
    d->left = ID3D12CommandQueue_Release(d->queue); /* the work is in flight: it waits, then flushes */
    return NULL;
}

static unsigned g_findings[DESTROY_QUEUES], g_bare_findings;
static const char *g_finding_prefix[DESTROY_QUEUES];
static pthread_mutex_t g_finding_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_finding(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                       LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || !strstr(description, VB_TEXT))
        return;
    pthread_mutex_lock(&g_finding_lock);
    bool known = false;
    for (unsigned q = 0; q < DESTROY_QUEUES && !known; q++) {
        if (g_finding_prefix[q] && strncmp(description, g_finding_prefix[q], strlen(g_finding_prefix[q])) == 0) {
            g_findings[q]++;
            known = true;
        }
    }
    g_bare_findings += !known;
    pthread_mutex_unlock(&g_finding_lock);
}

static bool destroy_round(unsigned round, unsigned submissions, unsigned *bad)
{
    ID3D12Device *device = create_device();
    ID3D12InfoQueue1 *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return false;
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(iq, on_finding, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                          &cookie), S_OK);
    doomed d[DESTROY_QUEUES];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, DESTROY_QUEUES);
    memset(g_findings, 0, sizeof g_findings);
    g_bare_findings = 0;
    for (unsigned q = 0; q < DESTROY_QUEUES; q++) {
        wchar_t wname[32];
        char name[32];
        swprintf(wname, 32, L"InFlight%u", q);
        snprintf(name, sizeof name, "InFlight%u", q);
        d[q] = (doomed){.start = &start};
        d[q].queue = new_queue(device);
        d[q].vb = new_upload_buffer(device, 48);
        d[q].list = new_list(device, wname);
        if (!d[q].queue || !d[q].vb || !d[q].list)
            return false;
        /* draw #0 reads 16 bytes past its 48-byte vertex buffer: the reference driver finds it at execution */
        D3D12_VERTEX_BUFFER_VIEW bad_view = {ID3D12Resource_GetGPUVirtualAddress(d[q].vb), 64, 16};
        ID3D12GraphicsCommandList_IASetVertexBuffers(d[q].list, 0, 1, &bad_view);
        ID3D12GraphicsCommandList_DrawInstanced(d[q].list, 3, 1, 0, 0);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(d[q].list), S_OK);
        prefix_of(d[q].prefix, sizeof d[q].prefix, d[q].list, name, "Draw", 0);
        pthread_mutex_lock(&g_finding_lock);
        g_finding_prefix[q] = d[q].prefix;
        pthread_mutex_unlock(&g_finding_lock);
    }
    for (unsigned s = 0; s < submissions; s++)
        for (unsigned q = 0; q < DESTROY_QUEUES; q++)
            execute(d[q].queue, d[q].list);
    for (unsigned q = 0; q < DESTROY_QUEUES; q++)
        CHECK_EQ_INT(pthread_create(&d[q].thread, NULL, destroyer_main, &d[q]), 0);
    unsigned left = 0;
    for (unsigned q = 0; q < DESTROY_QUEUES; q++) {
        pthread_join(d[q].thread, NULL);
        left += d[q].left != 0;
    }
    pthread_barrier_destroy(&start);
    pthread_mutex_lock(&g_finding_lock);
    unsigned wrong_count = 0;
    for (unsigned q = 0; q < DESTROY_QUEUES; q++)
        wrong_count += g_findings[q] != submissions;
    unsigned bare = g_bare_findings;
    for (unsigned q = 0; q < DESTROY_QUEUES; q++)
        g_finding_prefix[q] = NULL;
    pthread_mutex_unlock(&g_finding_lock);
    HRESULT reason = ID3D12Device_GetDeviceRemovedReason(device);
    for (unsigned q = 0; q < DESTROY_QUEUES; q++) {
        ID3D12GraphicsCommandList_Release(d[q].list);
        ID3D12Resource_Release(d[q].vb);
    }
    ID3D12InfoQueue1_UnregisterMessageCallback(iq, cookie);
    ID3D12InfoQueue1_Release(iq);
    ULONG device_left = ID3D12Device_Release(device);
    unsigned kinds[] = {wrong_count, bare, left, reason != S_OK, device_left != 0};
    static const char *const what[] = {"a queue's findings not exactly one per submission", "an unannotated finding",
                                       "a queue outlived its last reference", "the device was removed",
                                       "the device outlived its last reference"};
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (kinds[k] && bad[k]++ == 0)
            fprintf(stderr, "    round %u: %s (%u)\n", round, what[k], kinds[k]);
    return true;
}

static void test_destroy_in_flight(void)
{
    unsigned rounds = 20 * g_scale, submissions = 6, done = 0, bad[5] = {0};
    double started = now_s();
    for (unsigned r = 0; r < rounds && destroy_round(r, submissions, bad); r++)
        done++;
    CHECK_EQ_INT(done, rounds);
    for (unsigned k = 0; k < 5; k++)
        CHECK_EQ_INT(bad[k], 0);
    printf("destroy_in_flight: %u rounds x %u queues x %u submissions in flight at release in %.2f s: every finding "
           "once, annotated\n", done, DESTROY_QUEUES, submissions, now_s() - started);
}

/* ---- fences_pending ---- */

static void test_fences_pending(void)
{
    unsigned count = 100000 * g_scale;
    ID3D12Device *device = create_device();
    ID3D12CommandQueue *queue = device ? new_queue(device) : NULL;
    ID3D12Fence *gate = queue ? new_fence(device) : NULL, *done = gate ? new_fence(device) : NULL;
    if (!done)
        return;
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(queue, gate, 1), S_OK);
    double started = now_s();
    unsigned failed = 0;
    for (unsigned i = 0; i < count; i++) {
        ID3D12Fence *fence = NULL;
        if (FAILED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence))) {
            failed++;
            continue;
        }
        failed += ID3D12CommandQueue_Signal(queue, fence, 1) != S_OK;
        failed += ID3D12Fence_Release(fence) != 0; /* the pending Signal holds it internally */
    }
    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(queue, done, 1), S_OK);
    double made = now_s() - started;
    started = now_s();
    CHECK_EQ_INT(ID3D12Fence_Signal(gate, 1), S_OK); /* the timeline runs the N signals, freeing each fence */
    CHECK(wait_fence(done, 1));
    double drained = now_s() - started;
    /* Linear work on both sides (a drain step is cheaper than a create): a generous bound that a walk of the live
     * fences per free (n^2/2 steps) overshoots many times at this count. */
    CHECK(drained < 4 * made + 1.0);
    printf("fences_pending: %u fences released with their Signal pending: made in %.2f s, completed and freed in "
           "%.2f s\n", count, made, drained);
    ID3D12Fence_Release(done);
    ID3D12Fence_Release(gate);
    ID3D12CommandQueue_Release(queue);
    CHECK_EQ_INT(ID3D12Device_Release(device), 0);
}

/* ---- retention ---- */

#define RETAIN_THREADS 4

static struct {
    ID3D12Device *device;
    unsigned live, draws;
    pthread_barrier_t start;
    pthread_mutex_t lock; /* orders "record a draw, read the shim's last index" across threads */
} r_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

typedef struct retainer {
    pthread_t thread;
    unsigned id;
    ID3D12GraphicsCommandList *list;
    char name[32];
    UINT32 first_index;
    UINT32 *indices; /* of every draw so far */
    unsigned refused;
} retainer;

static HRESULT report_index(UINT32 index, const char *text)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {0, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, index};
    return shim.report(&m);
}

/* Each thread records draws into its own list (one recording, far more draws than the bound) and reports each
 * draw's index right away, and the index of a draw up to twice the bound ago (resolvable or evicted, depending on
 * how many blocks all the threads took since), racing the other threads' blocks for the ring's slots. */
static void *retainer_main(void *argument)
{
    retainer *r = argument;
    char text[64];
    pthread_barrier_wait(&r_g.start);
    for (unsigned k = 0; k < r_g.draws; k++) {
        pthread_mutex_lock(&r_g.lock);
        ID3D12GraphicsCommandList_DrawInstanced(r->list, 3, 1, 0, 0);
        UINT32 index = shim.last_index();
        pthread_mutex_unlock(&r_g.lock);
        if (k == 0)
            r->first_index = index;
        r->indices[k] = index;
        snprintf(text, sizeof text, "retained %u draw %u", r->id, k);
        r->refused += report_index(index, text) != S_OK;
        unsigned lag = (unsigned)(mix((uint64_t)r->id << 32 | k) % (2u * r_g.live)), late = k >= lag ? k - lag : 0;
        snprintf(text, sizeof text, "retained %u draw %u late", r->id, late);
        r->refused += report_index(r->indices[late], text) != S_OK;
    }
    return NULL;
}

/* Classifies stored message `text`: 1 annotated with its own list and draw, 0 bare, -1 wrong or unparsable. */
static int classify_retained(const retainer *rs, const char *text, unsigned *thread, unsigned *draw, bool *late)
{
    const char *body = text;
    if (strncmp(text, "0x", 2) == 0 && strstr(text, "] "))
        body = strstr(text, "] ") + 2;
    int n = 0;
    if (sscanf(body, "retained %u draw %u%n", thread, draw, &n) != 2 || *thread >= RETAIN_THREADS)
        return -1;
    *late = strcmp(body + n, " late") == 0;
    if (body[n] && !*late)
        return -1;
    if (body == text)
        return 0;
    char prefix[128];
    prefix_of(prefix, sizeof prefix, rs[*thread].list, rs[*thread].name, "Draw", *draw);
    return strlen(prefix) == (size_t)(body - text) && strncmp(text, prefix, strlen(prefix)) == 0 ? 1 : -1;
}

static void test_retention(void)
{
    const char *limit = getenv("D12RT_MAX_LIVE_STATE_INDICES");
    r_g.live = limit ? (unsigned)strtoul(limit, NULL, 10) : 0;
    if (!CHECK(r_g.live >= 64)) {
        fprintf(stderr, "    retention needs D12RT_MAX_LIVE_STATE_INDICES (>= 64)\n");
        return;
    }
    r_g.draws = r_g.live * 4 * g_scale;
    r_g.device = create_device();
    ID3D12InfoQueue1 *iq = r_g.device ? info_queue_of(r_g.device) : NULL;
    if (!iq)
        return;
    CHECK_EQ_INT(ID3D12InfoQueue1_SetMessageCountLimit(iq, (UINT64)RETAIN_THREADS * r_g.draws * 2 + 1000), S_OK);
    retainer rs[RETAIN_THREADS];
    pthread_barrier_init(&r_g.start, NULL, RETAIN_THREADS);
    for (unsigned i = 0; i < RETAIN_THREADS; i++) {
        wchar_t wname[32];
        rs[i] = (retainer){.id = i};
        swprintf(wname, 32, L"Retained%u", i);
        snprintf(rs[i].name, sizeof rs[i].name, "Retained%u", i);
        rs[i].list = new_list(r_g.device, wname);
        rs[i].indices = calloc(r_g.draws, sizeof *rs[i].indices);
        if (!rs[i].list || !rs[i].indices)
            return;
    }
    UINT64 base = ID3D12InfoQueue1_GetNumStoredMessages(iq);
    double started = now_s();
    for (unsigned i = 0; i < RETAIN_THREADS; i++)
        CHECK_EQ_INT(pthread_create(&rs[i].thread, NULL, retainer_main, &rs[i]), 0);
    for (unsigned i = 0; i < RETAIN_THREADS; i++) {
        pthread_join(rs[i].thread, NULL);
        CHECK_EQ_INT(rs[i].refused, 0);
    }
    pthread_barrier_destroy(&r_g.start);
    double elapsed = now_s() - started;
    /* Every report stored once, annotated with its own list and draw or (evicted) not at all; never another's. */
    UINT64 stored = ID3D12InfoQueue1_GetNumStoredMessages(iq);
    CHECK_EQ_INT(stored - base, (UINT64)RETAIN_THREADS * r_g.draws * 2);
    unsigned annotated = 0, bare = 0, late_bare = 0, wrong = 0, current_seen = 0;
    unsigned char *seen = calloc((size_t)RETAIN_THREADS * r_g.draws, 1);
    for (UINT64 i = base; seen && i < stored; i++) {
        D3D12_MESSAGE *m = message_at(iq, i);
        unsigned t = 0, k = 0;
        bool late = false;
        int verdict = m ? classify_retained(rs, m->pDescription, &t, &k, &late) : -1;
        if (verdict < 0 || k >= r_g.draws) {
            if (wrong++ == 0)
                fprintf(stderr, "    stored \"%s\"\n", m ? m->pDescription : "(unreadable)");
        } else {
            if (!late)
                current_seen += seen[(size_t)t * r_g.draws + k]++ == 0;
            annotated += verdict == 1;
            bare += verdict == 0;
            late_bare += verdict == 0 && late;
        }
        free(m);
    }
    free(seen);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(current_seen, RETAIN_THREADS * r_g.draws); /* each draw's own report once */
    CHECK_EQ_INT(annotated + bare, RETAIN_THREADS * r_g.draws * 2);
    CHECK(annotated > 0 && late_bare > 0); /* some late reports resolved, some had been evicted */
    /* After all that: each list's first index was evicted (the bound held); one more draw on each list now (a fresh
     * block each, well within the ring) resolves to its list and ordinal. */
    char prefix[128], text[64];
    for (unsigned i = 0; i < RETAIN_THREADS; i++) {
        UINT64 before = ID3D12InfoQueue1_GetNumStoredMessages(iq);
        snprintf(text, sizeof text, "oldest of %u", i);
        CHECK_EQ_INT(report_index(rs[i].first_index, text), S_OK);
        D3D12_MESSAGE *m = message_at(iq, before);
        CHECK(m && strcmp(m->pDescription, text) == 0);
        free(m);
        ID3D12GraphicsCommandList_DrawInstanced(rs[i].list, 3, 1, 0, 0);
        UINT32 newest = shim.last_index();
        snprintf(text, sizeof text, "newest of %u", i);
        CHECK_EQ_INT(report_index(newest, text), S_OK);
        prefix_of(prefix, sizeof prefix, rs[i].list, rs[i].name, "Draw", r_g.draws);
        m = message_at(iq, before + 1);
        CHECK(m && strncmp(m->pDescription, prefix, strlen(prefix)) == 0 &&
              strcmp(m->pDescription + strlen(prefix), text) == 0);
        free(m);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(rs[i].list), S_OK);
        ID3D12GraphicsCommandList_Release(rs[i].list);
        free(rs[i].indices);
    }
    printf("retention: %u threads x %u draws (2 reports each) past a bound of %u live indices in %.2f s: %u reports annotated "
           "rightly, %u evicted (bare), none wrong\n", RETAIN_THREADS, r_g.draws, r_g.live, elapsed, annotated, bare);
    ID3D12InfoQueue1_Release(iq);
    CHECK_EQ_INT(ID3D12Device_Release(r_g.device), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"reports", test_reports}, {"reports_reentrant", test_reports_reentrant}, {"removal", test_removal},
        {"destroy_in_flight", test_destroy_in_flight}, {"fences_pending", test_fences_pending},
        {"retention", test_retention},
    };
    if (argc == 3)
        g_scale = (unsigned)strtoul(argv[2], NULL, 10);
    for (size_t i = 0; (argc == 2 || argc == 3) && g_scale > 0 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: stress_load CASE [SCALE]   (CASE: reports, reports_reentrant, removal, "
                    "destroy_in_flight, fences_pending, retention)\n");
    return 2;
}
