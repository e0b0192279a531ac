/* d12bench: the benchmark program (DESIGN.md: "Speed is measured by the benchmark program (ratios measured side
 * by side in one run), never by a timed test that can flake").
 *
 * Every row is a loop of one operation. All rows run in the same process, interleaved: each repetition runs
 * every row once, so a row and its baseline are measured side by side under the same machine conditions. One
 * warm-up repetition (which also sizes the loop so that one repetition of a row lasts about --ms milliseconds)
 * is discarded; the median of the repetitions is reported in ns/op, with the ratio to the row's baseline.
 *
 *   d12bench [--quick] [--json] [--reps N] [--ms N]
 *
 * --quick runs tiny fixed iteration counts (a smoke test: the figures mean nothing). --json prints one JSON
 * object instead of the table. docs/performance.md holds the figures and how to reproduce them.
 */
#define _GNU_SOURCE
#define COBJMACROS
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "bench_drm_v2.h"
#include "bench_gpu.h"
#include "bench_memory.h"
#include "d12caps.h"
#include "infoqueue.h"

/* Keeps the compiler from eliding or hoisting work on `p`: the memory it points to is read and written. */
#if defined(__GNUC__)
#define BENCH_TOUCH(p) __asm__ __volatile__("" : : "g"(p) : "memory")
#define BENCH_NOINLINE __attribute__((noinline))
#else
#define BENCH_TOUCH(p) ((void)(p))
#define BENCH_NOINLINE
#endif

/* ---- rows ---- */

typedef void (*bench_fn)(void *context, uint64_t iterations);

typedef struct bench_row {
    const char *name;
    const char *group;
    const char *what;     /* one line for the table's legend */
    bench_fn run;
    bench_timed_fn timed; /* instead of `run`: the operation times itself (e.g. in a worker process) */
    void *context;
    int baseline;         /* index of the baseline row, or -1 (the row is a baseline) */
    bool throughput;      /* also print operations per second */
    uint64_t iterations;  /* per repetition, sized by the warm-up */
    double *samples;      /* ns/op per repetition */
    double median, min, max;
} bench_row;

#define MAX_ROWS 256
const struct bench_row *row_named(const char *name);
static bench_row rows[MAX_ROWS];
static int row_count;
static bool setup_failed;

static int add_row(const char *group, const char *name, const char *what, bench_fn run, void *context, int baseline,
                   bool throughput)
{
    if (row_count == MAX_ROWS) {
        fprintf(stderr, "d12bench: too many rows\n");
        exit(2);
    }
    bench_row *row = &rows[row_count];
    memset(row, 0, sizeof(*row));
    row->group = group;
    row->name = name;
    row->what = what;
    row->run = run;
    row->context = context;
    row->baseline = baseline;
    row->throughput = throughput;
    return row_count++;
}

static void fail_setup(const char *what)
{
    fprintf(stderr, "d12bench: setup failed: %s\n", what);
    setup_failed = true;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bench_add_timed_row(const char *group, const char *name, const char *what, bench_timed_fn timed, void *context,
                        int baseline)
{
    int index = add_row(group, name, what, NULL, context, baseline, false);
    rows[index].timed = timed;
    return index;
}

void bench_fail_setup(const char *what)
{
    fail_setup(what);
}

static double time_row(bench_row *row, uint64_t iterations)
{
    if (row->timed)
        return row->timed(row->context, iterations);
    double start = now_ns();
    row->run(row->context, iterations);
    return now_ns() - start;
}

/* ---- baselines ---- */

typedef struct copy_case {
    const void *source;
    void *work;
    volatile UINT size; /* read every iteration: the copy cannot be specialised away */
} copy_case;

static void run_memcpy(void *context, uint64_t iterations)
{
    copy_case *c = context;
    for (uint64_t i = 0; i < iterations; i++) {
        memcpy(c->work, c->source, c->size);
        BENCH_TOUCH(c->work);
    }
}

BENCH_NOINLINE static int empty_function(int value)
{
    BENCH_TOUCH(&value);
    return value;
}
static int (*volatile empty_pointer)(int) = empty_function;

static void run_empty_call(void *context, uint64_t iterations)
{
    (void)context;
    int sink = 0;
    for (uint64_t i = 0; i < iterations; i++)
        sink += empty_pointer((int)i);
    BENCH_TOUCH(&sink);
}

/* ---- libd12caps ---- */

typedef struct clamp_case {
    copy_case copy;
    UINT feature;
    d12_caps_version version;
    d12_caps_clamp_fn report;
    uint64_t reported;
} clamp_case;

static void count_report(void *context, const d12_caps_clamp_report *report)
{
    (void)report;
    ((clamp_case *)context)->reported++;
}

/* What CheckFeatureSupport1 does after the driver answered: the driver's struct is copied out and clamped in
 * place. The copy restores the true values each time, so a clamped field is clamped on every iteration. */
static void run_clamp(void *context, uint64_t iterations)
{
    clamp_case *c = context;
    for (uint64_t i = 0; i < iterations; i++) {
        memcpy(c->copy.work, c->copy.source, c->copy.size);
        BENCH_TOUCH(c->copy.work);
        d12_caps_clamp(c->feature, c->copy.work, c->copy.size, c->version, c->report, c);
        BENCH_TOUCH(c->copy.work);
    }
}

typedef struct version_case {
    volatile UINT requested;
    volatile UINT feature;
    volatile UINT size;
    d12_caps_version version;
} version_case;

static void run_resolve_version(void *context, uint64_t iterations)
{
    version_case *c = context;
    unsigned ok = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        d12_caps_version out;
        ok += d12_caps_resolve_version(D12_CAPS_FLAVOR_RETAIL, c->requested, &out) == D12_CAPS_OK;
        BENCH_TOUCH(&out);
    }
    BENCH_TOUCH(&ok);
}

static void run_check_query(void *context, uint64_t iterations)
{
    version_case *c = context;
    unsigned ok = 0;
    for (uint64_t i = 0; i < iterations; i++)
        ok += d12_caps_check_query(c->feature, c->size, c->version) == D12_CAPS_OK;
    BENCH_TOUCH(&ok);
}

/* The structs, with typical values a current driver reports at SDK 620: nothing to clamp. */
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5_true = {TRUE, D3D12_RENDER_PASS_TIER_2, D3D12_RAYTRACING_TIER_1_1};
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5_tier13 = {TRUE, D3D12_RENDER_PASS_TIER_2,
                                                            (D3D12_RAYTRACING_TIER)13};
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5_work;
static D3D12_FEATURE_DATA_D3D12_OPTIONS21 options21_true = {(D3D12_WORK_GRAPHS_TIER)10,
                                                            (D3D12_EXECUTE_INDIRECT_TIER)11, TRUE, TRUE};
static D3D12_FEATURE_DATA_D3D12_OPTIONS21 options21_work;
static D3D12_FEATURE_DATA_SHADER_CACHE shader_cache_true = {
    D3D12_SHADER_CACHE_SUPPORT_SINGLE_PSO | D3D12_SHADER_CACHE_SUPPORT_LIBRARY |
    D3D12_SHADER_CACHE_SUPPORT_AUTOMATIC_INPROC_CACHE | D3D12_SHADER_CACHE_SUPPORT_AUTOMATIC_DISK_CACHE |
    D3D12_SHADER_CACHE_SUPPORT_DRIVER_MANAGED_CACHE};
static D3D12_FEATURE_DATA_SHADER_CACHE shader_cache_work;
static const D3D_FEATURE_LEVEL requested_levels[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_11_1,
                                                     D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1,
                                                     D3D_FEATURE_LEVEL_12_2};
static D3D12_FEATURE_DATA_FEATURE_LEVELS feature_levels_true = {5, requested_levels, D3D_FEATURE_LEVEL_12_1};
static D3D12_FEATURE_DATA_FEATURE_LEVELS feature_levels_work;

static copy_case copy_options5 = {&options5_true, &options5_work, sizeof(options5_true)};
static copy_case copy_options21 = {&options21_true, &options21_work, sizeof(options21_true)};
static copy_case copy_shader_cache = {&shader_cache_true, &shader_cache_work, sizeof(shader_cache_true)};
static copy_case copy_feature_levels = {&feature_levels_true, &feature_levels_work, sizeof(feature_levels_true)};

static clamp_case clamp_options5, clamp_options5_13, clamp_options5_13_report, clamp_options21, clamp_shader_cache,
    clamp_feature_levels;
static version_case version_options5;

/* Checks once, outside the timing, that a case clamps (or does not) as its row's name says. */
static void verify_clamp(clamp_case *c, bool expect_change, const char *name)
{
    memcpy(c->copy.work, c->copy.source, c->copy.size);
    uint64_t before = c->reported;
    d12_caps_status status = d12_caps_clamp(c->feature, c->copy.work, c->copy.size, c->version, count_report, c);
    bool changed = memcmp(c->copy.work, c->copy.source, c->copy.size) != 0;
    c->reported = before;
    if (status != D12_CAPS_OK || changed != expect_change) {
        char what[160];
        snprintf(what, sizeof(what), "%s: status %d, %s", name, (int)status,
                 changed ? "a field was clamped" : "nothing was clamped");
        fail_setup(what);
    }
}

static void setup_caps(void)
{
    d12_caps_version v620;
    if (d12_caps_resolve_version(D12_CAPS_FLAVOR_RETAIL, D12RT_SDK_VERSION, &v620) != D12_CAPS_OK) {
        fail_setup("d12_caps_resolve_version(620)");
        return;
    }
    clamp_case base = {.version = v620};
    clamp_options5 = base;
    clamp_options5.copy = copy_options5;
    clamp_options5.feature = D3D12_FEATURE_D3D12_OPTIONS5;
    clamp_options5_13 = clamp_options5;
    clamp_options5_13.copy.source = &options5_tier13;
    clamp_options5_13_report = clamp_options5_13;
    clamp_options5_13_report.report = count_report;
    clamp_options21 = base;
    clamp_options21.copy = copy_options21;
    clamp_options21.feature = D3D12_FEATURE_D3D12_OPTIONS21;
    clamp_shader_cache = base;
    clamp_shader_cache.copy = copy_shader_cache;
    clamp_shader_cache.feature = D3D12_FEATURE_SHADER_CACHE;
    clamp_feature_levels = base;
    clamp_feature_levels.copy = copy_feature_levels;
    clamp_feature_levels.feature = D3D12_FEATURE_FEATURE_LEVELS;
    version_options5.requested = D12RT_SDK_VERSION;
    version_options5.feature = D3D12_FEATURE_D3D12_OPTIONS5;
    version_options5.size = sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS5);
    version_options5.version = v620;

    verify_clamp(&clamp_options5, false, "clamp OPTIONS5");
    verify_clamp(&clamp_options5_13, true, "clamp OPTIONS5 RaytracingTier 13");
    verify_clamp(&clamp_options21, false, "clamp OPTIONS21");
    verify_clamp(&clamp_shader_cache, false, "clamp SHADER_CACHE");
    verify_clamp(&clamp_feature_levels, false, "clamp FEATURE_LEVELS");
    if (d12_caps_check_query(version_options5.feature, version_options5.size, v620) != D12_CAPS_OK)
        fail_setup("d12_caps_check_query(OPTIONS5)");

    int copy5 = add_row("caps", "memcpy OPTIONS5", "baseline: copy the 12-byte struct", run_memcpy,
                        &copy_options5, -1, false);
    add_row("caps", "clamp OPTIONS5 (nothing clamped)", "copy + d12_caps_clamp, SDK 620, tiers the SDK knows",
            run_clamp, &clamp_options5, copy5, false);
    add_row("caps", "clamp OPTIONS5 (RaytracingTier 13 clamped)", "copy + d12_caps_clamp, tier 13 lowered to 12",
            run_clamp, &clamp_options5_13, copy5, false);
    add_row("caps", "clamp OPTIONS5 (clamped, report callback)", "same, with a counting report callback",
            run_clamp, &clamp_options5_13_report, copy5, false);
    int copy21 = add_row("caps", "memcpy OPTIONS21", "baseline: copy the 16-byte struct", run_memcpy,
                         &copy_options21, -1, false);
    add_row("caps", "clamp OPTIONS21 (nothing clamped)", "copy + d12_caps_clamp, SDK 620", run_clamp,
            &clamp_options21, copy21, false);
    int copy_sc = add_row("caps", "memcpy SHADER_CACHE", "baseline: copy the 4-byte struct", run_memcpy,
                          &copy_shader_cache, -1, false);
    add_row("caps", "clamp SHADER_CACHE flags (nothing clamped)", "copy + d12_caps_clamp, SDK 620", run_clamp,
            &clamp_shader_cache, copy_sc, false);
    int copy_fl = add_row("caps", "memcpy FEATURE_LEVELS", "baseline: copy the 24-byte struct", run_memcpy,
                          &copy_feature_levels, -1, false);
    add_row("caps", "clamp FEATURE_LEVELS (nothing clamped)", "copy + d12_caps_clamp, 5 requested levels",
            run_clamp, &clamp_feature_levels, copy_fl, false);
    int empty = add_row("caps", "empty indirect call", "baseline: call a no-op function through a pointer",
                        run_empty_call, NULL, -1, false);
    add_row("caps", "d12_caps_resolve_version", "retail runtime, SDKVersion 620", run_resolve_version,
            &version_options5, empty, false);
    add_row("caps", "d12_caps_check_query", "OPTIONS5, sizeof, SDK 620", run_check_query, &version_options5, empty,
            false);
}

/* ---- InfoQueue ---- */

typedef struct report_case {
    d12_info_queue *queue;
    const char *text;
} report_case;

static d12_info_queue *queue_stored, *queue_denied, *queue_callback;
static bool scaling_mode; /* d12bench --scaling: also the report path against the store's size */

/* Messages per second against work size (d12bench --scaling): the stored-report row with the count limit at 10^k
 * messages, the queue filled to its limit at setup, so every timed report evicts the oldest of 10^k. */
#define REPORT_SCALING_FIRST 3
#define REPORT_SCALING_LAST 6
static d12_info_queue *queue_sized[REPORT_SCALING_LAST - REPORT_SCALING_FIRST + 1];

static report_case report_stored, report_denied, report_callback;
static uint64_t callback_calls;

static void STDMETHODCALLTYPE count_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                                            D3D12_MESSAGE_ID id, LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)id, (void)description;
    (*(uint64_t *)context)++;
}

static void run_report_text(void *context, uint64_t iterations)
{
    report_case *c = context;
    for (uint64_t i = 0; i < iterations; i++)
        d12__info_queue_report_text(c->queue, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_WARNING,
                                    D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, c->text);
}

static void run_report_f(void *context, uint64_t iterations)
{
    report_case *c = context;
    for (uint64_t i = 0; i < iterations; i++)
        d12__info_queue_report_f(c->queue, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_WARNING,
                                 D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "%s: draw %u of list %p", c->text,
                                 (unsigned)i, (void *)c);
}

/* Reporting threads: `count` threads, started once, each making its share of the reports into one queue; the
 * row's time is the wall time from the start barrier to the end barrier, per report over all threads. */
#define MAX_REPORT_THREADS 8
typedef struct report_threads {
    int count;
    report_case *report;
    pthread_t ids[MAX_REPORT_THREADS];
    pthread_barrier_t start, done;
    uint64_t share;
    bool started, quit;
} report_threads;

static report_threads scaling[4] = {{.count = 1}, {.count = 2}, {.count = 4}, {.count = 8}};

static void *report_thread(void *argument)
{
    report_threads *t = argument;
    for (;;) {
        pthread_barrier_wait(&t->start);
        if (t->quit)
            return NULL;
        run_report_text(t->report, t->share);
        pthread_barrier_wait(&t->done);
    }
}

static double time_report_threads(void *context, uint64_t iterations)
{
    report_threads *t = context;
    if (!t->started) {
        pthread_barrier_init(&t->start, NULL, (unsigned)t->count + 1);
        pthread_barrier_init(&t->done, NULL, (unsigned)t->count + 1);
        for (int i = 0; i < t->count; i++)
            pthread_create(&t->ids[i], NULL, report_thread, t);
        t->started = true;
    }
    t->share = (iterations + (uint64_t)t->count - 1) / (uint64_t)t->count;
    double start = now_ns();
    pthread_barrier_wait(&t->start);
    pthread_barrier_wait(&t->done);
    return (now_ns() - start) * (double)iterations / (double)(t->share * (uint64_t)t->count);
}

static void stop_report_threads(void)
{
    for (size_t s = 0; s < sizeof scaling / sizeof scaling[0]; s++) {
        report_threads *t = &scaling[s];
        if (!t->started)
            continue;
        t->quit = true;
        pthread_barrier_wait(&t->start);
        for (int i = 0; i < t->count; i++)
            pthread_join(t->ids[i], NULL);
    }
}

static void setup_report_scaling(int baseline)
{
    static char names[REPORT_SCALING_LAST - REPORT_SCALING_FIRST + 1][64];
    static report_case cases[REPORT_SCALING_LAST - REPORT_SCALING_FIRST + 1];
    uint64_t limit = 1;
    for (int k = 0; k < REPORT_SCALING_FIRST; k++)
        limit *= 10;
    for (int k = REPORT_SCALING_FIRST, i = 0; k <= REPORT_SCALING_LAST; k++, i++, limit *= 10) {
        if (FAILED(d12__info_queue_create(&queue_sized[i]))) {
            fail_setup("d12__info_queue_create (report scaling)");
            return;
        }
        d12_info_queue_SetMuteDebugOutput(queue_sized[i], TRUE);
        d12_info_queue_SetMessageCountLimit(queue_sized[i], limit);
        cases[i] = (report_case){queue_sized[i], report_stored.text};
        run_report_text(&cases[i], limit); /* full: the timed reports evict */
        snprintf(names[i], sizeof names[i], "report_text stored, store of 10^%d", k);
        add_row("scaling", names[i], "muted, no callback, the count limit at 10^k, full (every report evicts)",
                run_report_text, &cases[i], baseline, true);
    }
}

static void setup_info_queue(void)
{
    if (FAILED(d12__info_queue_create(&queue_stored)) || FAILED(d12__info_queue_create(&queue_denied)) ||
        FAILED(d12__info_queue_create(&queue_callback))) {
        fail_setup("d12__info_queue_create");
        return;
    }
    d12_info_queue_SetMuteDebugOutput(queue_stored, TRUE);
    d12_info_queue_SetMuteDebugOutput(queue_denied, TRUE);
    d12_info_queue_SetMuteDebugOutput(queue_callback, TRUE);
    DWORD cookie;
    if (FAILED(d12_info_queue_RegisterMessageCallback(queue_callback, count_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                      &callback_calls, &cookie)))
        fail_setup("RegisterMessageCallback");
    D3D12_MESSAGE_SEVERITY all[] = {D3D12_MESSAGE_SEVERITY_CORRUPTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                    D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_SEVERITY_INFO,
                                    D3D12_MESSAGE_SEVERITY_MESSAGE};
    D3D12_INFO_QUEUE_FILTER deny;
    memset(&deny, 0, sizeof(deny));
    deny.DenyList.NumSeverities = 5;
    deny.DenyList.pSeverityList = all;
    if (FAILED(d12_info_queue_PushStorageFilter(queue_denied, &deny)))
        fail_setup("PushStorageFilter(deny every severity)");
    static const char text[] = "Driver validation: vertex buffer slot 0 is not bound";
    report_stored = (report_case){queue_stored, text};
    report_denied = (report_case){queue_denied, text};
    report_callback = (report_case){queue_callback, text};

    int stored = add_row("infoqueue", "report_text stored", "muted, no callback, default limit (1024, evicting)",
                         run_report_text, &report_stored, -1, true);
    add_row("infoqueue", "report_text denied by storage filter", "every severity denied: nothing stored",
            run_report_text, &report_denied, stored, true);
    add_row("infoqueue", "report_f stored (formatted)", "printf-style text, muted, no callback", run_report_f,
            &report_stored, stored, true);
    add_row("infoqueue", "report_f denied by storage filter", "every severity denied: never formatted",
            run_report_f, &report_denied, stored, true);
    add_row("infoqueue", "report_text stored, callback", "muted, a counting message callback registered",
            run_report_text, &report_callback, stored, true);
    if (scaling_mode)
        setup_report_scaling(stored);
    static const char *const thread_rows[] = {"report_text stored, 1 thread", "report_text stored, 2 threads",
                                              "report_text stored, 4 threads", "report_text stored, 8 threads"};
    int one = -1;
    for (int s = 0; s < 4; s++) {
        scaling[s].report = &report_stored;
        int index = bench_add_timed_row("infoqueue", thread_rows[s],
                                        "N threads reporting into one queue: wall time per report, all threads",
                                        time_report_threads, &scaling[s], one);
        rows[index].throughput = true;
        if (s == 0)
            one = index;
    }
}

static void check_info_queue(void)
{
    if (queue_stored == NULL)
        return;
    if (d12_info_queue_GetNumStoredMessages(queue_stored) == 0)
        fail_setup("the stored-report rows stored nothing");
    if (d12_info_queue_GetNumStoredMessages(queue_denied) != 0 ||
        d12_info_queue_GetNumMessagesDeniedByStorageFilter(queue_denied) == 0)
        fail_setup("the denied-report rows were not denied");
    if (d12_info_queue_GetNumStoredMessages(queue_callback) == 0 || callback_calls == 0)
        fail_setup("the callback row stored nothing or never called its callback");
}

/* ---- CheckFeatureSupport through libd12rt ---- */

typedef struct device_case {
    ID3D12Device17 *device;
    UINT sdk_version;
    void *data;
    UINT size;
    D3D12_FEATURE feature;
    HRESULT last;
} device_case;

static ID3D12Device17 *device;
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 device_options5;
static device_case cfs_options5, cfs1_options5_620, cfs1_options5_606;

static void run_cfs(void *context, uint64_t iterations)
{
    device_case *c = context;
    HRESULT hr = S_OK;
    for (uint64_t i = 0; i < iterations; i++) {
        hr |= ID3D12Device17_CheckFeatureSupport(c->device, c->feature, c->data, c->size);
        BENCH_TOUCH(c->data);
    }
    c->last = hr;
}

static void run_cfs1(void *context, uint64_t iterations)
{
    device_case *c = context;
    HRESULT hr = S_OK;
    for (uint64_t i = 0; i < iterations; i++) {
        hr |= ID3D12Device17_CheckFeatureSupport1(c->device, c->feature, c->data, c->size, c->sdk_version);
        BENCH_TOUCH(c->data);
    }
    c->last = hr;
}

static void setup_device(void)
{
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device))) {
        fail_setup("D3D12CreateDevice (reference driver)");
        return;
    }
    device_case base = {device, 0, &device_options5, sizeof(device_options5), D3D12_FEATURE_D3D12_OPTIONS5, S_OK};
    cfs_options5 = base;
    cfs1_options5_620 = base;
    cfs1_options5_620.sdk_version = D12RT_SDK_VERSION;
    cfs1_options5_606 = base;
    cfs1_options5_606.sdk_version = 606;
    int legacy = add_row("device", "CheckFeatureSupport OPTIONS5", "baseline: legacy query, reference driver",
                         run_cfs, &cfs_options5, -1, false);
    add_row("device", "CheckFeatureSupport1 OPTIONS5 (SDK 620)", "resolve + check + driver + clamp", run_cfs1,
            &cfs1_options5_620, legacy, false);
    add_row("device", "CheckFeatureSupport1 OPTIONS5 (SDK 606)", "an older SDK version", run_cfs1,
            &cfs1_options5_606, legacy, false);
}

static void check_device(void)
{
    const device_case *cases[] = {&cfs_options5, &cfs1_options5_620, &cfs1_options5_606};
    for (size_t i = 0; device != NULL && i < sizeof(cases) / sizeof(cases[0]); i++)
        if (cases[i]->last != S_OK)
            fail_setup("a CheckFeatureSupport row did not return S_OK");
}

/* ---- measuring and printing ---- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void measure(int reps, double target_ns, bool quick)
{
    /* Warm-up: every row once, sizing its loop so that a repetition lasts about target_ns. */
    for (int r = 0; r < row_count; r++) {
        bench_row *row = &rows[r];
        row->samples = calloc((size_t)reps, sizeof(double));
        if (row->samples == NULL) {
            fprintf(stderr, "d12bench: out of memory\n");
            exit(2);
        }
        if (quick) {
            row->iterations = 50;
            time_row(row, row->iterations);
            continue;
        }
        uint64_t n = 64;
        for (;;) {
            double t = time_row(row, n);
            if (t >= target_ns / 4 || n >= (UINT64_C(1) << 34)) {
                double per_op = t / (double)n;
                uint64_t sized = per_op > 0 ? (uint64_t)(target_ns / per_op) : n;
                row->iterations = sized < 16 ? 16 : sized;
                break;
            }
            n *= 2;
        }
    }
    /* Repetitions, interleaved: each repetition runs every row once. */
    for (int rep = 0; rep < reps; rep++)
        for (int r = 0; r < row_count; r++)
            rows[r].samples[rep] = time_row(&rows[r], rows[r].iterations) / (double)rows[r].iterations;
    for (int r = 0; r < row_count; r++) {
        bench_row *row = &rows[r];
        qsort(row->samples, (size_t)reps, sizeof(double), compare_double);
        row->min = row->samples[0];
        row->max = row->samples[reps - 1];
        row->median = reps % 2 ? row->samples[reps / 2]
                               : (row->samples[reps / 2 - 1] + row->samples[reps / 2]) / 2;
    }
}

static double ratio_of(const bench_row *row)
{
    if (row->baseline < 0)
        return 1.0;
    double base = rows[row->baseline].median;
    return base > 0 ? row->median / base : 0.0;
}

static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (file == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof(line), file) != NULL) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon != NULL) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                snprintf(out, size, "%s", colon);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(file);
}

static void json_string(const char *text)
{
    putchar('"');
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned)(unsigned char)*p);
        else
            putchar(*p);
    }
    putchar('"');
}

static bool print_budgets(bool json);
static bool check_budget_mode;

static void print_json(int reps, bool quick, const char *cpu, long cpus)
{
    printf("{\"tool\":\"d12bench\",\"quick\":%s,\"repetitions\":%d,\"cpus\":%ld,\"cpu\":", quick ? "true" : "false",
           reps, cpus);
    json_string(cpu);
    printf(",\"rows\":[\n");
    for (int r = 0; r < row_count; r++) {
        const bench_row *row = &rows[r];
        printf("  {\"group\":");
        json_string(row->group);
        printf(",\"name\":");
        json_string(row->name);
        printf(",\"ns_per_op\":%.3f,\"min_ns\":%.3f,\"max_ns\":%.3f,\"iterations\":%" PRIu64, row->median, row->min,
               row->max, row->iterations);
        if (row->baseline >= 0) {
            printf(",\"baseline\":");
            json_string(rows[row->baseline].name);
            printf(",\"ratio\":%.3f", ratio_of(row));
        } else {
            printf(",\"baseline\":null,\"ratio\":1.0");
        }
        if (row->throughput)
            printf(",\"ops_per_second\":%.0f", row->median > 0 ? 1e9 / row->median : 0.0);
        printf(",\"statistic\":\"min over interleaved repetitions (budgets), median (ns_per_op)\"");
        printf("}%s\n", r + 1 < row_count ? "," : "");
    }
    printf("]");
    const bench_memory_row *memory;
    int memory_count = bench_memory_rows(&memory);
    printf(",\"memory\":[\n");
    for (int m = 0; m < memory_count; m++) {
        printf("  {\"name\":");
        json_string(memory[m].name);
        printf(",\"value\":%.3f,\"unit\":", memory[m].value);
        json_string(memory[m].unit);
        printf("}%s\n", m + 1 < memory_count ? "," : "");
    }
    printf("]");
    if (check_budget_mode) {
        printf(",");
        bool met = print_budgets(true);
        printf(",\"all_budgets_met\":%s", met ? "true" : "false");
    }
    printf("}\n");
}

static void print_table(int reps, bool quick, const char *cpu, long cpus)
{
    printf("d12bench: %s, %ld CPU(s); median of %d repetitions after a warm-up%s\n", cpu, cpus, reps,
           quick ? " (--quick: figures are meaningless)" : "");
    const char *group = "";
    for (int r = 0; r < row_count; r++) {
        const bench_row *row = &rows[r];
        if (strcmp(group, row->group) != 0) {
            group = row->group;
            printf("\n%-58s %10s %10s %10s %10s  %s\n", group, "ns/op", "min", "max", "ratio", "vs baseline");
        }
        char ratio[32];
        if (row->baseline >= 0)
            snprintf(ratio, sizeof(ratio), "%.3gx", ratio_of(row));
        else
            snprintf(ratio, sizeof(ratio), "(base)");
        printf("  %-56s %10.2f %10.2f %10.2f %10s  %s", row->name, row->median, row->min, row->max, ratio,
               row->baseline >= 0 ? rows[row->baseline].name : "");
        if (row->throughput)
            printf("  [%.2f M msg/s]", row->median > 0 ? 1e3 / row->median : 0.0);
        printf("\n");
    }
    const bench_memory_row *memory;
    int memory_count = bench_memory_rows(&memory);
    if (memory_count)
        printf("\n%-58s %10s\n", "memory (measured once, in child processes)", "value");
    for (int m = 0; m < memory_count; m++)
        printf("  %-70s %10.2f %s\n", memory[m].name, memory[m].value, memory[m].unit);
    printf("\nrows:\n");
    for (int r = 0; r < row_count; r++)
        printf("  %-56s %s\n", rows[r].name, rows[r].what);
}

static void usage(void)
{
    fprintf(stderr, "usage: d12bench [--quick] [--json] [--reps N] [--ms N] [--scaling] [--peer | --check-budget] [--row NAME N]\n");
}

/* ---- Budgets (issue 11 item 2; docs/performance.md "Budgets") ----
 *
 * Each budget is judged on the minimum over the interleaved repetitions: on a shared machine other work only ever
 * adds time to a repetition, so the fastest one is the closest to the operation's own cost, and a row and its
 * comparison are measured in the same repetitions. */

const bench_row *row_named(const char *name)
{
    for (int r = 0; r < row_count; r++)
        if (strcmp(rows[r].name, name) == 0)
            return &rows[r];
    return NULL;
}

typedef struct budget_result {
    const char *name;
    const char *rule;
    double value, limit; /* judged: value <= limit (or >= for throughput) */
    const char *unit;
    bool at_least;
    bool judged, met;
} budget_result;

static budget_result budgets[12];
static int budget_count;

static void judge(const char *name, const char *rule, double value, double limit, const char *unit, bool at_least,
                  bool judged)
{
    budget_result *b = &budgets[budget_count++];
    *b = (budget_result){name, rule, value, limit, unit, at_least, judged, false};
    b->met = judged && (at_least ? value >= limit : value <= limit);
}

/* Both rows present, else the budget cannot be judged. */
static bool have(const bench_row *a, const bench_row *b)
{
    return a != NULL && b != NULL;
}

static void judge_budgets(void)
{
    char peer_d12rt[96], peer_vkd3d[96], buffer_d12rt[96], buffer_vkd3d[96];
    snprintf(peer_d12rt, sizeof peer_d12rt, "d12rt: %s", peer_row_names[PEER_CHECK_FEATURE_SUPPORT]);
    snprintf(peer_vkd3d, sizeof peer_vkd3d, "vkd3d: %s", peer_row_names[PEER_CHECK_FEATURE_SUPPORT]);
    snprintf(buffer_d12rt, sizeof buffer_d12rt, "d12rt: %s", peer_row_names[PEER_COMMITTED_BUFFER]);
    snprintf(buffer_vkd3d, sizeof buffer_vkd3d, "vkd3d: %s", peer_row_names[PEER_COMMITTED_BUFFER]);
    const bench_row *cfs_d12rt = row_named(peer_d12rt), *cfs_vkd3d = row_named(peer_vkd3d);
    judge("CheckFeatureSupport(OPTIONS5) vs vkd3d", "d12rt min <= 2 x vkd3d min",
          have(cfs_d12rt, cfs_vkd3d) ? cfs_d12rt->min : 0, have(cfs_d12rt, cfs_vkd3d) ? 2 * cfs_vkd3d->min : 0,
          "ns", false, have(cfs_d12rt, cfs_vkd3d));
    const bench_row *cfs = row_named("CheckFeatureSupport OPTIONS5");
    const char *cfs1_names[] = {"CheckFeatureSupport1 OPTIONS5 (SDK 620)", "CheckFeatureSupport1 OPTIONS5 (SDK 606)"};
    for (int i = 0; i < 2; i++) {
        const bench_row *cfs1 = row_named(cfs1_names[i]);
        judge(cfs1_names[i], "min <= 1.2 x CheckFeatureSupport OPTIONS5 min", have(cfs, cfs1) ? cfs1->min : 0,
              have(cfs, cfs1) ? 1.2 * cfs->min : 0, "ns", false, have(cfs, cfs1));
    }
    const bench_row *draw_off = row_named("DrawInstanced (feature off)"),
                    *draw_on = row_named("DrawInstanced (feature on: correlation)"),
                    *empty = row_named("empty indirect call");
    bool draws = have(draw_off, draw_on) && empty != NULL;
    judge("correlation per draw", "min(on) - min(off) <= min(empty indirect call) + 1 ns",
          draws ? draw_on->min - draw_off->min : 0, draws ? empty->min + 1.0 : 0, "ns", false, draws);
    /* Issue 9: "Breadcrumbs add no more than the write-immediate DDI call plus 2 ns to recording an op". */
    const bench_row *draw_dred = row_named("DrawInstanced (DRED auto-breadcrumbs)"),
                    *write_immediate = row_named("pfnWriteBufferImmediate (reference driver, as DRED calls it)");
    bool dred = have(draw_off, draw_dred) && write_immediate != NULL;
    judge("DRED breadcrumbs per draw", "min(DRED) - min(off) <= min(pfnWriteBufferImmediate) + 2 ns",
          dred ? draw_dred->min - draw_off->min : 0, dred ? write_immediate->min + 2.0 : 0, "ns", false, dred);
    const bench_row *ecl_off = row_named("ExecuteCommandLists (feature off)"),
                    *ecl_on = row_named("ExecuteCommandLists (feature on, nothing to flush)");
    judge("ExecuteCommandLists, feature on, nothing to flush", "min(on) - min(off) <= 30 ns",
          have(ecl_off, ecl_on) ? ecl_on->min - ecl_off->min : 0, 30.0, "ns", false, have(ecl_off, ecl_on));
    const bench_row *buf_d12rt = row_named(buffer_d12rt), *buf_vkd3d = row_named(buffer_vkd3d);
    judge("committed 64 KiB buffer create + release", "d12rt min <= vkd3d min",
          have(buf_d12rt, buf_vkd3d) ? buf_d12rt->min : 0, have(buf_d12rt, buf_vkd3d) ? buf_vkd3d->min : 0, "ns",
          false, have(buf_d12rt, buf_vkd3d));
    const bench_row *stored = row_named("report_text stored"), *callback = row_named("report_text stored, callback");
    judge("report path, muted, no callback", ">= 20 M stored msgs/s (1e3 / min ns)",
          stored && stored->min > 0 ? 1e3 / stored->min : 0, 20.0, "M/s", true, stored != NULL);
    judge("report path, muted, callback", ">= 5 M stored msgs/s (1e3 / min ns)",
          callback && callback->min > 0 ? 1e3 / callback->min : 0, 5.0, "M/s", true, callback != NULL);
}

static bool print_budgets(bool json)
{
    bool all_met = true;
    if (json)
        printf("\"budgets\":[\n");
    else
        printf("\nbudgets (issue 11 item 2, issue 9's breadcrumbs), judged on the minimum over interleaved repetitions\n");
    for (int i = 0; i < budget_count; i++) {
        const budget_result *b = &budgets[i];
        all_met = all_met && b->met;
        if (json) {
            printf("  {\"name\":");
            json_string(b->name);
            printf(",\"rule\":");
            json_string(b->rule);
            printf(",\"value\":%.3f,\"limit\":%.3f,\"unit\":\"%s\",\"judged\":%s,\"met\":%s}%s\n", b->value,
                   b->limit, b->unit, b->judged ? "true" : "false", b->met ? "true" : "false",
                   i + 1 < budget_count ? "," : "");
        } else if (!b->judged) {
            printf("  %-52s NOT JUDGED (a row is missing)  %s\n", b->name, b->rule);
        } else {
            printf("  %-52s %-4s %9.2f %s %s %9.2f %s   %s\n", b->name, b->met ? "met" : "OUT", b->value, b->unit,
                   b->at_least ? ">=" : "<=", b->limit, b->unit, b->rule);
        }
    }
    if (json)
        printf("]");
    return all_met;
}

int main(int argc, char **argv)
{
    bool quick = false, json = false, peer_only = false;
    const char *only_row = NULL; /* --row NAME N: run that row N times, once (for callgrind; bench/callgrind.sh) */
    unsigned long long only_iterations = 0;
    int reps = 9;
    double ms = 20.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
            ms = atof(argv[++i]);
        } else if (strcmp(argv[i], "--row") == 0 && i + 2 < argc) {
            only_row = argv[++i];
            only_iterations = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--scaling") == 0) {
            bench_gpu_scaling(true);
            scaling_mode = true;
        } else if (strcmp(argv[i], "--peer") == 0) {
            peer_only = true;
        } else if (strcmp(argv[i], "--check-budget") == 0) {
            check_budget_mode = true;
        } else {
            usage();
            return 2;
        }
    }
    if (quick)
        reps = 3;
    if (reps < 1 || ms <= 0) {
        usage();
        return 2;
    }

    if (peer_only && check_budget_mode) {
        usage();
        return 2;
    }
    bool peer_vkd3d = false;
    /* The memory rows fork their children first: before this process makes a device or a thread. */
    if (!peer_only && only_row == NULL && !bench_memory_measure(quick))
        fail_setup("the memory rows' child processes");
    if (!peer_only) {
        setup_caps();
        setup_info_queue();
        bench_drm_v2_setup(); /* issue 20: bench_drm_v2.c */
        bench_gpu_setup(); /* forks its worker processes: before this process makes a device or a thread */
    }
    if (peer_only || check_budget_mode)
        peer_vkd3d = bench_peer_setup(); /* fork + exec: before this process makes a device */
    if (!peer_only) {
        setup_device();
        const bench_row *empty = row_named("empty indirect call");
        bench_ddi_setup(empty ? (int)(empty - rows) : -1); /* after every fork: it makes a driver device */
    }
    if (only_row != NULL && !setup_failed) {
        const bench_row *row = row_named(only_row);
        if (row == NULL || only_iterations == 0) {
            fprintf(stderr, "d12bench: --row: no row named '%s' (or N is 0)\n", only_row);
            setup_failed = true;
        } else {
            double ns = time_row((bench_row *)row, only_iterations);
            printf("%s: %.3f ns/op over %llu\n", row->name, ns / (double)only_iterations, only_iterations);
        }
    } else if (!setup_failed) {
        measure(reps, ms * 1e6, quick);
    }
    stop_report_threads();
    if (only_row == NULL) { /* the checks need every row to have run */
        check_info_queue();
        check_device();
    }

    int status = 0;
    if (setup_failed) {
        status = 1;
    } else if (only_row == NULL) {
        char cpu[128];
        cpu_model(cpu, sizeof(cpu));
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (check_budget_mode)
            judge_budgets();
        if (json) {
            print_json(reps, quick, cpu, cpus);
        } else {
            print_table(reps, quick, cpu, cpus);
            if (check_budget_mode && !print_budgets(false))
                printf("d12bench --check-budget: a budget is out or was not judged\n");
        }
        if (check_budget_mode) {
            for (int i = 0; i < budget_count; i++)
                if (!budgets[i].met)
                    status = 1;
        }
        if (peer_only && !peer_vkd3d)
            fprintf(stderr, "d12bench --peer: no vkd3d rows (see above)\n");
    }

    for (int r = 0; r < row_count; r++)
        free(rows[r].samples);
    if (device != NULL)
        ID3D12Device17_Release(device);
    bench_gpu_teardown();
    bench_peer_teardown();
    bench_ddi_teardown();
    if (queue_stored != NULL)
        d12__info_queue_destroy(queue_stored);
    if (queue_denied != NULL)
        d12__info_queue_destroy(queue_denied);
    if (queue_callback != NULL)
        d12__info_queue_destroy(queue_callback);
    for (size_t i = 0; i < sizeof queue_sized / sizeof queue_sized[0]; i++)
        if (queue_sized[i] != NULL)
            d12__info_queue_destroy(queue_sized[i]);
    return status;
}
