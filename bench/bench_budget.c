/* d12bench --check-budget: issue 11's budgets over the measured rows, found by name. */
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
#include "bench_fence.h"
#include "peer_rows.h"

/* ---- Budgets (issue 11 item 2; docs/performance.md "Budgets") ----
 *
 * Each budget is judged on the minimum over the interleaved repetitions: on a shared machine other work only ever
 * adds time to a repetition, so the fastest one is the closest to the operation's own cost, and a row and its
 * comparison are measured in the same repetitions. */

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

void bench_budgets_judge(void)
{
    char peer_d12rt[96], peer_vkd3d[96], buffer_d12rt[96], buffer_vkd3d[96];
    snprintf(peer_d12rt, sizeof peer_d12rt, "d12rt: %s", peer_row_names[PEER_CHECK_FEATURE_SUPPORT]);
    snprintf(peer_vkd3d, sizeof peer_vkd3d, "vkd3d: %s", peer_row_names[PEER_CHECK_FEATURE_SUPPORT]);
    snprintf(buffer_d12rt, sizeof buffer_d12rt, "d12rt: %s", peer_row_names[PEER_COMMITTED_BUFFER]);
    snprintf(buffer_vkd3d, sizeof buffer_vkd3d, "vkd3d: %s", peer_row_names[PEER_COMMITTED_BUFFER]);
    const bench_row *cfs_d12rt = bench_row_named(peer_d12rt), *cfs_vkd3d = bench_row_named(peer_vkd3d);
    judge("CheckFeatureSupport(OPTIONS5) vs vkd3d", "d12rt min <= 2 x vkd3d min",
          have(cfs_d12rt, cfs_vkd3d) ? cfs_d12rt->min : 0, have(cfs_d12rt, cfs_vkd3d) ? 2 * cfs_vkd3d->min : 0,
          "ns", false, have(cfs_d12rt, cfs_vkd3d));
    const bench_row *cfs = bench_row_named("CheckFeatureSupport OPTIONS5");
    const char *cfs1_names[] = {"CheckFeatureSupport1 OPTIONS5 (SDK 620)", "CheckFeatureSupport1 OPTIONS5 (SDK 606)"};
    for (int i = 0; i < 2; i++) {
        const bench_row *cfs1 = bench_row_named(cfs1_names[i]);
        judge(cfs1_names[i], "min <= 1.2 x CheckFeatureSupport OPTIONS5 min", have(cfs, cfs1) ? cfs1->min : 0,
              have(cfs, cfs1) ? 1.2 * cfs->min : 0, "ns", false, have(cfs, cfs1));
    }
    const bench_row *draw_off = bench_row_named("DrawInstanced (feature off)"),
                    *draw_on = bench_row_named("DrawInstanced (feature on: correlation)"),
                    *empty = bench_row_named("empty indirect call");
    bool draws = have(draw_off, draw_on) && empty != NULL;
    judge("correlation per draw", "min(on) - min(off) <= min(empty indirect call) + 1 ns",
          draws ? draw_on->min - draw_off->min : 0, draws ? empty->min + 1.0 : 0, "ns", false, draws);
    /* Issue 9: "Breadcrumbs add no more than the write-immediate DDI call plus 2 ns to recording an op". */
    const bench_row *draw_dred = bench_row_named("DrawInstanced (DRED auto-breadcrumbs)"),
                    *write_immediate = bench_row_named("pfnWriteBufferImmediate (reference driver, as DRED calls it)");
    bool dred = have(draw_off, draw_dred) && write_immediate != NULL;
    judge("DRED breadcrumbs per draw", "min(DRED) - min(off) <= min(pfnWriteBufferImmediate) + 2 ns",
          dred ? draw_dred->min - draw_off->min : 0, dred ? write_immediate->min + 2.0 : 0, "ns", false, dred);
    const bench_row *ecl_off = bench_row_named("ExecuteCommandLists (feature off)"),
                    *ecl_on = bench_row_named("ExecuteCommandLists (feature on, nothing to flush)");
    judge("ExecuteCommandLists, feature on, nothing to flush", "min(on) - min(off) <= 30 ns",
          have(ecl_off, ecl_on) ? ecl_on->min - ecl_off->min : 0, 30.0, "ns", false, have(ecl_off, ecl_on));
    const bench_row *buf_d12rt = bench_row_named(buffer_d12rt), *buf_vkd3d = bench_row_named(buffer_vkd3d);
    judge("committed 64 KiB buffer create + release", "d12rt min <= vkd3d min",
          have(buf_d12rt, buf_vkd3d) ? buf_d12rt->min : 0, have(buf_d12rt, buf_vkd3d) ? buf_vkd3d->min : 0, "ns",
          false, have(buf_d12rt, buf_vkd3d));
    const bench_row *fence_wait = bench_row_named(BENCH_FENCE_WAIT_ROW),
                    *guarded = bench_row_named(BENCH_FENCE_GUARDED_FLOOR_ROW);
    judge("fence event wait vs guarded eventfd floor", "min <= 1.2 x min(dup + write + close + read)",
          have(fence_wait, guarded) ? fence_wait->min : 0, have(fence_wait, guarded) ? 1.2 * guarded->min : 0, "ns",
          false, have(fence_wait, guarded));
    const bench_row *stored = bench_row_named("report_text stored"), *callback = bench_row_named("report_text stored, callback");
    judge("report path, muted, no callback", ">= 20 M stored msgs/s (1e3 / min ns)",
          stored && stored->min > 0 ? 1e3 / stored->min : 0, 20.0, "M/s", true, stored != NULL);
    judge("report path, muted, callback", ">= 5 M stored msgs/s (1e3 / min ns)",
          callback && callback->min > 0 ? 1e3 / callback->min : 0, 5.0, "M/s", true, callback != NULL);
}

bool bench_budgets_print(bool json)
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
            bench_json_string(b->name);
            printf(",\"rule\":");
            bench_json_string(b->rule);
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

bool bench_budgets_all_met(void)
{
    for (int i = 0; i < budget_count; i++)
        if (!budgets[i].met)
            return false;
    return true;
}
