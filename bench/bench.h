/* d12bench's row table and its row families. d12bench.c holds the table, measures every row interleaved and
 * prints; each family adds its rows from its own file: bench_caps.c (the baselines and libd12caps), bench_infoqueue.c
 * (the report path), bench_device.c (CheckFeatureSupport through libd12rt), bench_gpu.c and bench_ddi.c (GPU work,
 * the driver call; bench_gpu.h), bench_vulkan.c (the Vulkan driver), bench_peer.c (beside vkd3d), bench_drm_v2.c
 * (version 2's identity and driver filters; bench_drm_v2.h), bench_memory.c (measured once); bench_budget.c judges
 * --check-budget over the rows by name.
 *
 * Adding a family: a new bench_NAME.c whose setup adds rows with bench_add_row / bench_add_timed_row (a row and its
 * baseline in the same family, or a baseline found with bench_row_named), one call in d12bench.c's main, and the
 * file in bench/CMakeLists.txt. Rows run in the order they were added. */
#ifndef D12_BENCH_H
#define D12_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_gpu.h"

/* Keeps the compiler from eliding or hoisting work on `p`: the memory it points to is read and written. */
#if defined(__GNUC__)
#define BENCH_TOUCH(p) __asm__ __volatile__("" : : "g"(p) : "memory")
#define BENCH_NOINLINE __attribute__((noinline))
#else
#define BENCH_TOUCH(p) ((void)(p))
#define BENCH_NOINLINE
#endif

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
    double bytes_per_op;  /* > 0: also print GB/s (a copy row) */
    uint64_t iterations;  /* per repetition, sized by the warm-up */
    double *samples;      /* ns/op per repetition */
    double median, min, max;
} bench_row;


#define BENCH_MAX_ROWS 256
extern bench_row bench_rows[BENCH_MAX_ROWS];
extern int bench_row_count;

/* Add a row that `run` loops (`baseline`: a row index, or -1); returns its index. */
int bench_add_row(const char *group, const char *name, const char *what, bench_fn run, void *context, int baseline,
                  bool throughput);
/* The row of that name, or NULL. */
const bench_row *bench_row_named(const char *name);
/* CLOCK_MONOTONIC in nanoseconds. */
double bench_now_ns(void);
/* A JSON string (RFC 8259 escapes) on stdout. */
void bench_json_string(const char *text);

/* ---- the families ---- */

/* bench_caps.c: memcpy and empty-call baselines, d12_caps_clamp / resolve_version / check_query. */
void bench_caps_setup(void);

/* bench_infoqueue.c: the report path (stored, denied, callback, threads; `scaling`: against the store's size). */
void bench_info_queue_setup(bool scaling);
void bench_info_queue_stop_threads(void);
/* After the measurement: the rows did what their names say (else bench_fail_setup). */
void bench_info_queue_check(void);
void bench_info_queue_teardown(void);

/* bench_device.c: CheckFeatureSupport and CheckFeatureSupport1 on a reference-driver device. */
void bench_device_setup(void);
void bench_device_check(void);
void bench_device_teardown(void);

/* bench_budget.c: issue 11's budgets (docs/performance.md "Budgets"), judged after the measurement. */
void bench_budgets_judge(void);
/* Prints them (text or the JSON array); returns whether every one was met. */
bool bench_budgets_print(bool json);
bool bench_budgets_all_met(void);

#endif
