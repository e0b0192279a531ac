/* d12bench rows, the InfoQueue family: the report path (stored, denied by a storage filter, formatted, with a
 * callback, from 1-8 threads; --scaling: against the store's size), on the runtime core's queue directly. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "bench.h"
#include <pthread.h>

#include "infoqueue.h"

typedef struct report_case {
    d12_info_queue *queue;
    const char *text;
} report_case;

static d12_info_queue *queue_stored, *queue_denied, *queue_callback;

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
    double start = bench_now_ns();
    pthread_barrier_wait(&t->start);
    pthread_barrier_wait(&t->done);
    return (bench_now_ns() - start) * (double)iterations / (double)(t->share * (uint64_t)t->count);
}

void bench_info_queue_stop_threads(void)
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
            bench_fail_setup("d12__info_queue_create (report scaling)");
            return;
        }
        d12_info_queue_SetMuteDebugOutput(queue_sized[i], TRUE);
        d12_info_queue_SetMessageCountLimit(queue_sized[i], limit);
        cases[i] = (report_case){queue_sized[i], report_stored.text};
        run_report_text(&cases[i], limit); /* full: the timed reports evict */
        snprintf(names[i], sizeof names[i], "report_text stored, store of 10^%d", k);
        bench_add_row("scaling", names[i], "muted, no callback, the count limit at 10^k, full (every report evicts)",
                run_report_text, &cases[i], baseline, true);
    }
}

void bench_info_queue_setup(bool scaling_mode)
{
    if (FAILED(d12__info_queue_create(&queue_stored)) || FAILED(d12__info_queue_create(&queue_denied)) ||
        FAILED(d12__info_queue_create(&queue_callback))) {
        bench_fail_setup("d12__info_queue_create");
        return;
    }
    d12_info_queue_SetMuteDebugOutput(queue_stored, TRUE);
    d12_info_queue_SetMuteDebugOutput(queue_denied, TRUE);
    d12_info_queue_SetMuteDebugOutput(queue_callback, TRUE);
    DWORD cookie;
    if (FAILED(d12_info_queue_RegisterMessageCallback(queue_callback, count_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                      &callback_calls, &cookie)))
        bench_fail_setup("RegisterMessageCallback");
    D3D12_MESSAGE_SEVERITY all[] = {D3D12_MESSAGE_SEVERITY_CORRUPTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                    D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_SEVERITY_INFO,
                                    D3D12_MESSAGE_SEVERITY_MESSAGE};
    D3D12_INFO_QUEUE_FILTER deny;
    memset(&deny, 0, sizeof(deny));
    deny.DenyList.NumSeverities = 5;
    deny.DenyList.pSeverityList = all;
    if (FAILED(d12_info_queue_PushStorageFilter(queue_denied, &deny)))
        bench_fail_setup("PushStorageFilter(deny every severity)");
    static const char text[] = "Driver validation: vertex buffer slot 0 is not bound";
    report_stored = (report_case){queue_stored, text};
    report_denied = (report_case){queue_denied, text};
    report_callback = (report_case){queue_callback, text};

    int stored = bench_add_row("infoqueue", "report_text stored", "muted, no callback, default limit (1024, evicting)",
                         run_report_text, &report_stored, -1, true);
    bench_add_row("infoqueue", "report_text denied by storage filter", "every severity denied: nothing stored",
            run_report_text, &report_denied, stored, true);
    bench_add_row("infoqueue", "report_f stored (formatted)", "printf-style text, muted, no callback", run_report_f,
            &report_stored, stored, true);
    bench_add_row("infoqueue", "report_f denied by storage filter", "every severity denied: never formatted",
            run_report_f, &report_denied, stored, true);
    bench_add_row("infoqueue", "report_text stored, callback", "muted, a counting message callback registered",
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
        bench_rows[index].throughput = true;
        if (s == 0)
            one = index;
    }
}

void bench_info_queue_check(void)
{
    if (queue_stored == NULL)
        return;
    if (d12_info_queue_GetNumStoredMessages(queue_stored) == 0)
        bench_fail_setup("the stored-report rows stored nothing");
    if (d12_info_queue_GetNumStoredMessages(queue_denied) != 0 ||
        d12_info_queue_GetNumMessagesDeniedByStorageFilter(queue_denied) == 0)
        bench_fail_setup("the denied-report rows were not denied");
    if (d12_info_queue_GetNumStoredMessages(queue_callback) == 0 || callback_calls == 0)
        bench_fail_setup("the callback row stored nothing or never called its callback");
}

/* ---- CheckFeatureSupport through libd12rt ---- */

void bench_info_queue_teardown(void)
{
    if (queue_stored != NULL)
        d12__info_queue_destroy(queue_stored);
    if (queue_denied != NULL)
        d12__info_queue_destroy(queue_denied);
    if (queue_callback != NULL)
        d12__info_queue_destroy(queue_callback);
    for (size_t i = 0; i < sizeof queue_sized / sizeof queue_sized[0]; i++)
        if (queue_sized[i] != NULL)
            d12__info_queue_destroy(queue_sized[i]);
}
