/* d12bench's version-2 rows: a driver message with its identity through the InfoQueue, muted, no callback, the
 * default count limit (every report evicts), as the "report_text stored" row: with no driver filter (the `plain`
 * shortcut: what every application that never calls PushDriverMessageFilter pays), with an 8-pair deny filter the
 * message passes (the filter searched), and denied by it (nothing stored); and with a 10^6-pair filter (issue 29: a
 * linear scan cost 2.5 ms a denied message there; a binary search costs about 20 comparisons more than 8 pairs). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "bench_drm_v2.h"
#include "bench_gpu.h"
#include "infoqueue.h"

typedef struct drm_v2_case {
    d12_info_queue *queue;
} drm_v2_case;

static drm_v2_case g_plain, g_passes, g_denied, g_million_passes, g_million_denied;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_report(void *context, uint64_t iterations)
{
    drm_v2_case *c = context;
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++)
        d12__info_queue_report_driver_text(c->queue, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_WARNING,
                                           D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE,
                                           "Driver validation: vertex buffer slot 0 is not bound", 0x1414, 0x2A);
    return now_ns() - start;
}

/* A queue with a deny filter of `pairs` pairs (0: none), the reported message's among them when `deny_it`. */
static d12_info_queue *new_queue(UINT pairs, bool deny_it)
{
    d12_info_queue *queue = NULL;
    if (FAILED(d12__info_queue_create(&queue)))
        bench_fail_setup("d12__info_queue_create");
    if (!queue)
        return NULL;
    d12_info_queue_SetMuteDebugOutput(queue, TRUE);
    D3D12_DRIVER_MESSAGE_IDENTITY *deny = pairs ? malloc(pairs * sizeof *deny) : NULL;
    if (pairs && !deny)
        bench_fail_setup("malloc");
    for (UINT i = 0; deny && i < pairs; i++)
        deny[i] = (D3D12_DRIVER_MESSAGE_IDENTITY){0x1414, 0x100 + i};
    if (deny && deny_it)
        deny[pairs - 1].VendorMessageId = 0x2A;
    D3D12_DRIVER_MESSAGE_FILTER f = {0, NULL, pairs, deny};
    if (deny && FAILED(d12_info_queue_PushDriverMessageFilter(queue, &f)))
        bench_fail_setup("PushDriverMessageFilter");
    free(deny);
    return queue;
}

void bench_drm_v2_setup(void)
{
    g_plain.queue = new_queue(0, false);
    g_passes.queue = new_queue(8, false);
    g_denied.queue = new_queue(8, true);
    g_million_passes.queue = new_queue(1000000, false);
    g_million_denied.queue = new_queue(1000000, true);
    int plain = bench_add_timed_row("drm_v2", "driver report, no driver filter",
                                    "identity kept, muted, no callback, default limit (evicting)", time_report, &g_plain,
                                    -1);
    bench_add_timed_row("drm_v2", "driver report, 8-pair deny filter, passes", "the filter searched, message stored",
                        time_report, &g_passes, plain);
    bench_add_timed_row("drm_v2", "driver report, denied by a driver filter", "one of 8 pairs matches: nothing stored",
                        time_report, &g_denied, plain);
    bench_add_timed_row("drm_v2", "driver report, 10^6-pair deny filter, passes",
                        "binary search of the sorted list, message stored", time_report, &g_million_passes, plain);
    bench_add_timed_row("drm_v2", "driver report, denied by a 10^6-pair filter",
                        "binary search finds it: nothing stored", time_report, &g_million_denied, plain);
}
