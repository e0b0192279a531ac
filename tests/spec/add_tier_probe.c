/* Built by tests/spec/test_add_tier.py against libd12caps regenerated from a copy of spec/, to prove the
 * workflow of docs/adding-a-tier.md: what an application sees of a driver that reports RaytracingTier 13.
 *
 *   add_tier_probe added       spec copy + retail 621/622, preview 722, runtime 622/722 and
 *                              D3D12_RAYTRACING_TIER_1_3 = 13 at retail 622 / preview 722
 *   add_tier_probe production  the unmodified spec (runtime 620/721): 13 is a number the enum never had,
 *                              which docs/clamping.md section 2 treats as protected, so it is always lowered
 */
#include <stdint.h>
#include <string.h>

#include "d12caps.h"
#include "clamp_log.h"
#include "harness.h"

#define RETAIL D12_CAPS_FLAVOR_RETAIL
#define PREVIEW D12_CAPS_FLAVOR_PREVIEW

/* CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS5, ..., sdk) over a driver whose true RaytracingTier is
 * `true_tier`: returns the tier the application reads, or -1 when the call fails (the status in *status). */
static int64_t raytracing_at(d12_caps_flavor flavor, UINT sdk, int true_tier, report_log *log,
                             d12_caps_status *status)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 data;
    memset(&data, 0, sizeof data);
    data.SRVOnlyTiledResourceTier3 = TRUE;
    data.RenderPassesTier = D3D12_RENDER_PASS_TIER_1;
    data.RaytracingTier = (D3D12_RAYTRACING_TIER)true_tier;
    memset(log, 0, sizeof *log);
    d12_caps_version version;
    *status = d12_caps_resolve_version(flavor, sdk, &version);
    if (*status == D12_CAPS_OK)
        *status = d12_caps_check_query(D3D12_FEATURE_D3D12_OPTIONS5, sizeof data, version);
    if (*status == D12_CAPS_OK)
        *status = d12_caps_clamp(D3D12_FEATURE_D3D12_OPTIONS5, &data, sizeof data, version, on_report, log);
    if (*status != D12_CAPS_OK)
        return -1;
    CHECK_EQ_INT(data.RenderPassesTier, D3D12_RENDER_PASS_TIER_1); /* other fields untouched */
    return data.RaytracingTier;
}

static void expect_tier(d12_caps_flavor flavor, UINT sdk, int true_tier, int64_t seen)
{
    report_log log;
    d12_caps_status status;
    int64_t got = raytracing_at(flavor, sdk, true_tier, &log, &status);
    printf("%s runtime, SDKVersion %u, driver reports %d: %s %lld\n", flavor == RETAIL ? "retail" : "preview", sdk,
           true_tier, status == D12_CAPS_OK ? "application sees" : "E_INVALIDARG", (long long)got);
    CHECK_EQ_INT(status, D12_CAPS_OK);
    CHECK_EQ_INT(got, seen);
    if (seen == true_tier) {
        CHECK_EQ_INT(log.count, 0);
    } else {
        CHECK_EQ_INT(log.count, 1);
        CHECK_EQ_STR(log.feature, "D3D12_FEATURE_D3D12_OPTIONS5");
        CHECK_EQ_STR(log.field, "RaytracingTier");
        CHECK_EQ_INT(log.before, true_tier);
        CHECK_EQ_INT(log.after, seen);
    }
}

static void expect_too_new(d12_caps_flavor flavor, UINT sdk)
{
    report_log log;
    d12_caps_status status;
    int64_t got = raytracing_at(flavor, sdk, 13, &log, &status);
    printf("%s runtime, SDKVersion %u: %s\n", flavor == RETAIL ? "retail" : "preview", sdk,
           status == D12_CAPS_VERSION_TOO_NEW ? "E_INVALIDARG (newer than the runtime)" : "accepted");
    CHECK_EQ_INT(status, D12_CAPS_VERSION_TOO_NEW);
    CHECK_EQ_INT(got, -1);
    CHECK_EQ_INT(log.count, 0);
}

static const char *name_of_13(UINT sdk)
{
    d12_caps_version version = {sdk, sdk, d12_caps_line_of(sdk)};
    return d12_caps_value_name(d12_caps_find_enum("D3D12_RAYTRACING_TIER"), 13, version);
}

static void added(void)
{
#ifdef D3D12_RAYTRACING_TIER_1_3
    CHECK_EQ_INT(D3D12_RAYTRACING_TIER_1_3, 13); /* d12caps_spec.h declares the new value */
#else
    CHECK(!"the regenerated d12caps_spec.h does not declare D3D12_RAYTRACING_TIER_1_3");
#endif
    CHECK_EQ_INT(d12_caps_runtime_version(RETAIL), 622);
    CHECK_EQ_INT(d12_caps_runtime_version(PREVIEW), 722);
    CHECK_EQ_STR(name_of_13(622), "D3D12_RAYTRACING_TIER_1_3");

    /* Retail runtime 622. */
    expect_tier(RETAIL, 622, 13, 13);        /* built against 622: the new tier passes */
    expect_tier(RETAIL, 621, 13, 12);        /* built against 621: 1_3 did not exist, highest below is 1_2 */
    expect_tier(RETAIL, 620, 13, 12);
    expect_tier(RETAIL, 610, 13, 12);        /* 1_2 came at 616 but predates CheckFeatureSupport1: visible, and a
                                              * better GPU never reads lower than a true 1_2 (clamping.md 3) */
    expect_tier(RETAIL, 610, 12, 12);        /* 1_2 predates CheckFeatureSupport1: never clamped */
    expect_tier(RETAIL, 621, 11, 11);
    expect_tier(RETAIL, 722, 13, 13);        /* the exact current preview version is treated as 622 */
    expect_too_new(RETAIL, 623);
    expect_too_new(RETAIL, 721);             /* other preview numbers are not remapped, and are above 622 */

    /* Preview runtime 722. */
    expect_tier(PREVIEW, 722, 13, 13);
    expect_tier(PREVIEW, 721, 13, 12);
    expect_tier(PREVIEW, 716, 13, 12);       /* 1_2 came at preview 717: unprotected, so visible */
    expect_tier(PREVIEW, 716, 12, 12);
    expect_tier(PREVIEW, 622, 13, 13);       /* a retail number: the retail line's history */
    expect_tier(PREVIEW, 621, 13, 12);
    expect_too_new(PREVIEW, 723);

    /* Legacy CheckFeatureSupport is pinned before CheckFeatureSupport1 (retail 619). */
    d12_caps_version legacy = d12_caps_legacy_version(RETAIL);
    CHECK_EQ_INT(legacy.number, 619);
    CHECK_EQ_INT(d12_caps_clamp_value(D12_CAPS_FIELD_TIER, d12_caps_find_enum("D3D12_RAYTRACING_TIER"), 13, legacy,
                                      NULL, 0),
                 12);
}

static void production(void)
{
#ifdef D3D12_RAYTRACING_TIER_1_3
    CHECK(!"the production d12caps_spec.h declares D3D12_RAYTRACING_TIER_1_3");
#endif
    CHECK_EQ_INT(d12_caps_runtime_version(RETAIL), 620);
    CHECK_EQ_INT(d12_caps_runtime_version(PREVIEW), 721);
    CHECK(name_of_13(620) == NULL); /* 13 was never a value of the enum */

    /* A number the enum never had is protected (docs/clamping.md section 2): lowered at every version. */
    expect_tier(RETAIL, 620, 13, 12);
    expect_tier(RETAIL, 721, 13, 12);
    expect_tier(RETAIL, 610, 13, 12);        /* monotonic: never below what a true 1_2 reads as */
    expect_tier(RETAIL, 610, 12, 12);
    expect_too_new(RETAIL, 621);
    expect_too_new(RETAIL, 622);
    expect_tier(PREVIEW, 721, 13, 12);
    expect_too_new(PREVIEW, 722);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "added") == 0) {
        added();
    } else if (argc == 2 && strcmp(argv[1], "production") == 0) {
        production();
    } else {
        fprintf(stderr, "usage: add_tier_probe added|production\n");
        return 2;
    }
    return d12test_finish();
}
