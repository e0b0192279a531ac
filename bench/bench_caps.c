/* d12bench rows, the caps family: the baselines (memcpy of a feature struct, an empty indirect call) and
 * libd12caps' clamp, version resolution and query check, called directly. */
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
#include "d12caps.h"

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
        bench_fail_setup(what);
    }
}

void bench_caps_setup(void)
{
    d12_caps_version v620;
    if (d12_caps_resolve_version(D12_CAPS_FLAVOR_RETAIL, D12RT_SDK_VERSION, &v620) != D12_CAPS_OK) {
        bench_fail_setup("d12_caps_resolve_version(620)");
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
        bench_fail_setup("d12_caps_check_query(OPTIONS5)");

    int copy5 = bench_add_row("caps", "memcpy OPTIONS5", "baseline: copy the 12-byte struct", run_memcpy,
                        &copy_options5, -1, false);
    bench_add_row("caps", "clamp OPTIONS5 (nothing clamped)", "copy + d12_caps_clamp, SDK 620, tiers the SDK knows",
            run_clamp, &clamp_options5, copy5, false);
    bench_add_row("caps", "clamp OPTIONS5 (RaytracingTier 13 clamped)", "copy + d12_caps_clamp, tier 13 lowered to 12",
            run_clamp, &clamp_options5_13, copy5, false);
    bench_add_row("caps", "clamp OPTIONS5 (clamped, report callback)", "same, with a counting report callback",
            run_clamp, &clamp_options5_13_report, copy5, false);
    int copy21 = bench_add_row("caps", "memcpy OPTIONS21", "baseline: copy the 16-byte struct", run_memcpy,
                         &copy_options21, -1, false);
    bench_add_row("caps", "clamp OPTIONS21 (nothing clamped)", "copy + d12_caps_clamp, SDK 620", run_clamp,
            &clamp_options21, copy21, false);
    int copy_sc = bench_add_row("caps", "memcpy SHADER_CACHE", "baseline: copy the 4-byte struct", run_memcpy,
                          &copy_shader_cache, -1, false);
    bench_add_row("caps", "clamp SHADER_CACHE flags (nothing clamped)", "copy + d12_caps_clamp, SDK 620", run_clamp,
            &clamp_shader_cache, copy_sc, false);
    int copy_fl = bench_add_row("caps", "memcpy FEATURE_LEVELS", "baseline: copy the 24-byte struct", run_memcpy,
                          &copy_feature_levels, -1, false);
    bench_add_row("caps", "clamp FEATURE_LEVELS (nothing clamped)", "copy + d12_caps_clamp, 5 requested levels",
            run_clamp, &clamp_feature_levels, copy_fl, false);
    int empty = bench_add_row("caps", "empty indirect call", "baseline: call a no-op function through a pointer",
                        run_empty_call, NULL, -1, false);
    bench_add_row("caps", "d12_caps_resolve_version", "retail runtime, SDKVersion 620", run_resolve_version,
            &version_options5, empty, false);
    bench_add_row("caps", "d12_caps_check_query", "OPTIONS5, sizeof, SDK 620", run_check_query, &version_options5, empty,
            false);
}

/* ---- InfoQueue ---- */
