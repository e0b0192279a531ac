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

#include "bench.h"
#include "bench_dred.h"
#include "bench_drm_v2.h"
#include "bench_fence.h"
#include "bench_gpu.h"
#include "bench_vulkan.h"
#include "bench_memory.h"

bench_row bench_rows[BENCH_MAX_ROWS];
int bench_row_count;
static bool setup_failed;

int bench_add_row(const char *group, const char *name, const char *what, bench_fn run, void *context, int baseline,
                  bool throughput)
{
    if (bench_row_count == BENCH_MAX_ROWS) {
        fprintf(stderr, "d12bench: too many rows\n");
        exit(2);
    }
    bench_row *row = &bench_rows[bench_row_count];
    memset(row, 0, sizeof(*row));
    row->group = group;
    row->name = name;
    row->what = what;
    row->run = run;
    row->context = context;
    row->baseline = baseline;
    row->throughput = throughput;
    return bench_row_count++;
}

static void fail_setup(const char *what)
{
    fprintf(stderr, "d12bench: setup failed: %s\n", what);
    setup_failed = true;
}

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bench_add_timed_row(const char *group, const char *name, const char *what, bench_timed_fn timed, void *context,
                        int baseline)
{
    int index = bench_add_row(group, name, what, NULL, context, baseline, false);
    bench_rows[index].timed = timed;
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
    double start = bench_now_ns();
    row->run(row->context, iterations);
    return bench_now_ns() - start;
}

const bench_row *bench_row_named(const char *name)
{
    for (int r = 0; r < bench_row_count; r++)
        if (strcmp(bench_rows[r].name, name) == 0)
            return &bench_rows[r];
    return NULL;
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
    for (int r = 0; r < bench_row_count; r++) {
        bench_row *row = &bench_rows[r];
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
        for (int r = 0; r < bench_row_count; r++)
            bench_rows[r].samples[rep] = time_row(&bench_rows[r], bench_rows[r].iterations) / (double)bench_rows[r].iterations;
    for (int r = 0; r < bench_row_count; r++) {
        bench_row *row = &bench_rows[r];
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
    double base = bench_rows[row->baseline].median;
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

void bench_json_string(const char *text)
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

static bool check_budget_mode;

static void print_json(int reps, bool quick, const char *cpu, long cpus)
{
    printf("{\"tool\":\"d12bench\",\"quick\":%s,\"repetitions\":%d,\"cpus\":%ld,\"cpu\":", quick ? "true" : "false",
           reps, cpus);
    bench_json_string(cpu);
    printf(",\"rows\":[\n");
    for (int r = 0; r < bench_row_count; r++) {
        const bench_row *row = &bench_rows[r];
        printf("  {\"group\":");
        bench_json_string(row->group);
        printf(",\"name\":");
        bench_json_string(row->name);
        printf(",\"ns_per_op\":%.3f,\"min_ns\":%.3f,\"max_ns\":%.3f,\"iterations\":%" PRIu64, row->median, row->min,
               row->max, row->iterations);
        if (row->baseline >= 0) {
            printf(",\"baseline\":");
            bench_json_string(bench_rows[row->baseline].name);
            printf(",\"ratio\":%.3f", ratio_of(row));
        } else {
            printf(",\"baseline\":null,\"ratio\":1.0");
        }
        if (row->throughput)
            printf(",\"ops_per_second\":%.0f", row->median > 0 ? 1e9 / row->median : 0.0);
        if (row->bytes_per_op > 0) /* bytes per ns = GB/s (10^9 bytes) */
            printf(",\"bytes_per_op\":%.0f,\"gb_per_second\":%.3f,\"gb_per_second_at_min\":%.3f", row->bytes_per_op,
                   row->median > 0 ? row->bytes_per_op / row->median : 0.0,
                   row->min > 0 ? row->bytes_per_op / row->min : 0.0);
        printf(",\"statistic\":\"min over interleaved repetitions (budgets), median (ns_per_op)\"");
        printf("}%s\n", r + 1 < bench_row_count ? "," : "");
    }
    printf("]");
    const bench_memory_row *memory;
    int memory_count = bench_memory_rows(&memory);
    printf(",\"memory\":[\n");
    for (int m = 0; m < memory_count; m++) {
        printf("  {\"name\":");
        bench_json_string(memory[m].name);
        printf(",\"value\":%.3f,\"unit\":", memory[m].value);
        bench_json_string(memory[m].unit);
        printf("}%s\n", m + 1 < memory_count ? "," : "");
    }
    printf("]");
    if (check_budget_mode) {
        printf(",");
        bool met = bench_budgets_print(true);
        printf(",\"all_budgets_met\":%s", met ? "true" : "false");
    }
    printf("}\n");
}

static void print_table(int reps, bool quick, const char *cpu, long cpus)
{
    printf("d12bench: %s, %ld CPU(s); median of %d repetitions after a warm-up%s\n", cpu, cpus, reps,
           quick ? " (--quick: figures are meaningless)" : "");
    const char *group = "";
    for (int r = 0; r < bench_row_count; r++) {
        const bench_row *row = &bench_rows[r];
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
               row->baseline >= 0 ? bench_rows[row->baseline].name : "");
        if (row->throughput)
            printf("  [%.2f M msg/s]", row->median > 0 ? 1e3 / row->median : 0.0);
        if (row->bytes_per_op > 0)
            printf("  [%.2f GB/s median, %.2f GB/s at min]", row->median > 0 ? row->bytes_per_op / row->median : 0.0,
                   row->min > 0 ? row->bytes_per_op / row->min : 0.0);
        printf("\n");
    }
    const bench_memory_row *memory;
    int memory_count = bench_memory_rows(&memory);
    if (memory_count)
        printf("\n%-58s %10s\n", "memory (measured once, in child processes)", "value");
    for (int m = 0; m < memory_count; m++)
        printf("  %-70s %10.2f %s\n", memory[m].name, memory[m].value, memory[m].unit);
    printf("\nrows:\n");
    for (int r = 0; r < bench_row_count; r++)
        printf("  %-56s %s\n", bench_rows[r].name, bench_rows[r].what);
}

static void usage(void)
{
    fprintf(stderr, "usage: d12bench [--quick] [--json] [--reps N] [--ms N] [--scaling] [--peer | --check-budget] [--row NAME N]\n"
                    "                [--driver PATH|NAME] [--no-vulkan | --vulkan-validation]\n");
}


int main(int argc, char **argv)
{
    bool quick = false, json = false, peer_only = false, scaling_mode = false;
    bool no_vulkan = false, vulkan_validation = false; /* the Vulkan group (bench_vulkan.c) */
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
        } else if (strcmp(argv[i], "--no-vulkan") == 0) {
            no_vulkan = true; /* bench.smoke leaves the Vulkan group out of all but one run */
        } else if (strcmp(argv[i], "--vulkan-validation") == 0) {
            vulkan_validation = true;
        } else if (strcmp(argv[i], "--peer") == 0) {
            peer_only = true;
        } else if (strcmp(argv[i], "--check-budget") == 0) {
            check_budget_mode = true;
        } else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc) {
            /* Every row's device, and the peer program's d12rt side, on that driver: D12RT_DRIVER's own rule
             * (runtime/ddi/driver_name.h: a NAME is <libdir>/d12rt/libd12rt_NAME.so, then beside libd12rt.so). */
            setenv("D12RT_DRIVER", argv[++i], 1);
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
        bench_caps_setup();
        bench_info_queue_setup(scaling_mode);
        bench_drm_v2_setup(); /* issue 20: bench_drm_v2.c */
        bench_gpu_setup(); /* forks its worker processes: before this process makes a device or a thread */
        if (!no_vulkan && (only_row == NULL || strstr(only_row, "Vulkan") != NULL))
            bench_vulkan_setup(vulkan_validation); /* the Vulkan driver's rows: forks too (bench_vulkan.c) */
        bench_dred_setup();   /* the DRED overhead rows (bench_dred.c): forks too */
    }
    if (peer_only || check_budget_mode)
        peer_vkd3d = bench_peer_setup(); /* fork + exec: before this process makes a device */
    if (!peer_only) {
        bench_device_setup();
        const bench_row *empty = bench_row_named("empty indirect call");
        bench_ddi_setup(empty ? (int)(empty - bench_rows) : -1); /* after every fork: it makes a driver device */
        bench_fence_setup();
    }
    if (only_row != NULL && !setup_failed) {
        const bench_row *row = bench_row_named(only_row);
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
    bench_info_queue_stop_threads();
    if (only_row == NULL) { /* the checks need every row to have run */
        bench_info_queue_check();
        bench_device_check();
    }

    int status = 0;
    if (setup_failed) {
        status = 1;
    } else if (only_row == NULL) {
        char cpu[128];
        cpu_model(cpu, sizeof(cpu));
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (check_budget_mode)
            bench_budgets_judge();
        if (json) {
            print_json(reps, quick, cpu, cpus);
        } else {
            print_table(reps, quick, cpu, cpus);
            if (check_budget_mode && !bench_budgets_print(false))
                printf("d12bench --check-budget: a budget is out or was not judged\n");
        }
        if (check_budget_mode && !bench_budgets_all_met())
            status = 1;
        if (peer_only && !peer_vkd3d)
            fprintf(stderr, "d12bench --peer: no vkd3d rows (see above)\n");
    }

    for (int r = 0; r < bench_row_count; r++)
        free(bench_rows[r].samples);
    bench_device_teardown();
    bench_dred_teardown(); /* before the GPU workers: its workers hold copies of their pipes */
    bench_gpu_teardown();
    bench_vulkan_teardown();
    bench_peer_teardown();
    bench_ddi_teardown();
    bench_fence_teardown();
    bench_info_queue_teardown();
    return status;
}
