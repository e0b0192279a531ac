/* The examples of checkfeaturesupport1.txt and docs/clamping.md, rule by rule, each with a positive and a negative
 * check, against libd12caps built from the fixture spec tests/fixtures/future-spec. The fixture's runtime is
 * retail 622 / preview 723 and CheckFeatureSupport1 stays at retail 620 / preview 721; hypothetical values after
 * it: D3D12_RAYTRACING_TIER_1_3 (622/723), D3D12_SHADER_CACHE_SUPPORT_FUTURE_PRECOMPILED (0x80, 621/722),
 * D3D_SHADER_MODEL_6_11 (622/723), D3D_FEATURE_LEVEL_12_3 (622/723), D3D_ROOT_SIGNATURE_VERSION_1_3 (621/722) and
 * the new feature D3D12_FEATURE_FUTURE_WIDGETS (621/722) with D3D12_WIDGET_TIER and D3D12_GADGET_TIER. */
#include <stdint.h>
#include <string.h>

#include "d12caps.h"
#include "clamp_log.h"
#include "harness.h"

#define RETAIL D12_CAPS_FLAVOR_RETAIL
#define PREVIEW D12_CAPS_FLAVOR_PREVIEW


/* What CheckFeatureSupport1 does around the driver: resolve, check the query and the inputs, then clamp what the
 * driver filled in (here: what the test put in `data`). Any failure returns before `data` is touched. */
static d12_caps_status query(d12_caps_flavor flavor, UINT feature, void *data, UINT size, UINT sdk, report_log *log)
{
    d12_caps_version version;
    d12_caps_status status = d12_caps_resolve_version(flavor, sdk, &version);
    if (status == D12_CAPS_OK)
        status = d12_caps_check_query(feature, size, version);
    if (status == D12_CAPS_OK)
        status = d12_caps_check_inputs(flavor, feature, data, size);
    if (status == D12_CAPS_OK)
        status = d12_caps_clamp(feature, data, size, version, on_report, log);
    return status;
}

static d12_caps_version resolved(d12_caps_flavor flavor, UINT sdk)
{
    d12_caps_version version = {0};
    CHECK_EQ_INT(d12_caps_resolve_version(flavor, sdk, &version), D12_CAPS_OK);
    return version;
}

/* A number older than every SDK of its line (0 ... 3) resolves to the oldest SDK, 4 (issue 17 item 2): it sees
 * the oldest layout (OPTIONS5 answers) and the oldest values; `requested` keeps what the caller passed. */
static void test_older_than_every_sdk(void)
{
    for (UINT sdk = 0; sdk < 4; sdk++) {
        d12_caps_version v = resolved(RETAIL, sdk);
        CHECK_EQ_INT(v.requested, sdk);
        CHECK_EQ_INT(v.number, 4);
        CHECK_EQ_INT(v.line, D12_CAPS_LINE_RETAIL);
        CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_D3D12_OPTIONS5, sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS5), v),
                     D12_CAPS_OK);
        CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_SHADER_CACHE, sizeof(D3D12_FEATURE_DATA_SHADER_CACHE), v),
                     D12_CAPS_OK);
    }
    /* Negative: 4 and 5 stay themselves; a feature that came later still has no size at 0 (as at 4). */
    CHECK_EQ_INT(resolved(RETAIL, 5).number, 5);
    CHECK_EQ_INT(resolved(RETAIL, 4).number, 4);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, 8, resolved(RETAIL, 0)), D12_CAPS_BAD_SIZE);
}

static D3D12_RAYTRACING_TIER raytracing_at(d12_caps_flavor flavor, UINT sdk, D3D12_RAYTRACING_TIER true_tier,
                                           report_log *log)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {TRUE, D3D12_RENDER_PASS_TIER_1, true_tier};
    CHECK_EQ_INT(query(flavor, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, sdk, log), D12_CAPS_OK);
    CHECK_EQ_INT(options5.SRVOnlyTiledResourceTier3, TRUE);
    CHECK_EQ_INT(options5.RenderPassesTier, D3D12_RENDER_PASS_TIER_1);
    return options5.RaytracingTier;
}

/* "On a retail runtime, the exact current D3D12_PREVIEW_SDK_VERSION value is treated as D3D12_SDK_VERSION. Other
 * preview version numbers are not remapped." (721 -> 620 in production; 723 -> 622 in the fixture.) */
static void test_preview_remap(void)
{
    CHECK_EQ_INT(d12_caps_runtime_version(RETAIL), 622);
    CHECK_EQ_INT(d12_caps_runtime_version(PREVIEW), 723);

    d12_caps_version v = resolved(RETAIL, D12_CAPS_RUNTIME_PREVIEW_SDK_VERSION);
    CHECK_EQ_INT(v.requested, 723);
    CHECK_EQ_INT(v.number, 622);
    CHECK_EQ_INT(v.line, D12_CAPS_LINE_RETAIL);

    /* Negative: another preview number is not remapped (and is above 622), and a preview runtime remaps nothing. */
    d12_caps_version other;
    CHECK_EQ_INT(d12_caps_resolve_version(RETAIL, 722, &other), D12_CAPS_VERSION_TOO_NEW);
    v = resolved(PREVIEW, 723);
    CHECK_EQ_INT(v.number, 723);
    CHECK_EQ_INT(v.line, D12_CAPS_LINE_PREVIEW);
    v = resolved(PREVIEW, 620); /* a retail number on a preview runtime stays a retail number */
    CHECK_EQ_INT(v.number, 620);
    CHECK_EQ_INT(v.line, D12_CAPS_LINE_RETAIL);
    CHECK_EQ_INT(d12_caps_line_of(699), D12_CAPS_LINE_RETAIL);
    CHECK_EQ_INT(d12_caps_line_of(700), D12_CAPS_LINE_PREVIEW);
}

/* "A version greater than the runtime's version causes CheckFeatureSupport1 to return E_INVALIDARG without
 * querying capabilities or modifying pFeatureSupportData." */
static void test_too_new(void)
{
    d12_caps_version v, before;
    memset(&v, 0x5A, sizeof v);
    before = v;
    CHECK_EQ_INT(d12_caps_resolve_version(RETAIL, 623, &v), D12_CAPS_VERSION_TOO_NEW);
    CHECK(memcmp(&v, &before, sizeof v) == 0);
    CHECK_EQ_INT(d12_caps_resolve_version(PREVIEW, 724, &v), D12_CAPS_VERSION_TOO_NEW);
    CHECK(memcmp(&v, &before, sizeof v) == 0);

    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {TRUE, D3D12_RENDER_PASS_TIER_2, D3D12_RAYTRACING_TIER_1_3};
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 copy = options5;
    report_log log = {0};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, 623, &log),
                 D12_CAPS_VERSION_TOO_NEW);
    CHECK(memcmp(&options5, &copy, sizeof options5) == 0);
    CHECK_EQ_INT(log.count, 0);

    /* Negative: the runtime's own version is accepted. */
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, 622, &log), D12_CAPS_OK);
    CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_3);
}

/* "if the runtime supports a newer raytracing tier but the application's SDK defines tiers only through
 * D3D12_RAYTRACING_TIER_1_2, CheckFeatureSupport1 reports no higher than TIER_1_2." */
static void test_tier_lowered(void)
{
    report_log log = {0};
    CHECK_EQ_INT(raytracing_at(RETAIL, 621, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 722, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    /* "Tiers are a table, not arithmetic", and never lower for a better GPU (issue 8 item 4): at 610 1_2 did not
     * exist yet, but a true 1_2 stays 1_2 there (unprotected), so a true 1_3 reads as 1_2, not 1_1. */
    CHECK_EQ_INT(raytracing_at(RETAIL, 610, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(RETAIL, 610, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    /* A number the driver reports that no SDK has: the highest tier of the table below it. */
    CHECK_EQ_INT(raytracing_at(RETAIL, 621, (D3D12_RAYTRACING_TIER)14, &log), D3D12_RAYTRACING_TIER_1_2);

    /* Negative: an SDK that has 1_3 sees it, on both lines and through the retail runtime's remap. */
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(raytracing_at(RETAIL, 622, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_3);
    CHECK_EQ_INT(raytracing_at(RETAIL, 723, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_3);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 723, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_3);
    CHECK_EQ_INT(log.count, 0);
}

/* Flags: a bit introduced after CheckFeatureSupport1 is cleared for an SDK that predates it. */
static void test_flag_cleared(void)
{
    const D3D12_SHADER_CACHE_SUPPORT_FLAGS old_bits = (D3D12_SHADER_CACHE_SUPPORT_FLAGS)0x7F;
    D3D12_FEATURE_DATA_SHADER_CACHE cache = {(D3D12_SHADER_CACHE_SUPPORT_FLAGS)(old_bits | 0x80)};
    report_log log = {0};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_CACHE, &cache, sizeof cache, 620, &log), D12_CAPS_OK);
    CHECK_EQ_INT(cache.SupportFlags, old_bits);
    CHECK_EQ_INT(log.count, 1);
    CHECK_EQ_INT(log.before, 0xFF);
    CHECK_EQ_INT(log.after, 0x7F);

    /* Negative: kept from 621/722 on; old bits are never cleared. */
    cache.SupportFlags = (D3D12_SHADER_CACHE_SUPPORT_FLAGS)(old_bits | D3D12_SHADER_CACHE_SUPPORT_FUTURE_PRECOMPILED);
    CHECK_EQ_INT(query(PREVIEW, D3D12_FEATURE_SHADER_CACHE, &cache, sizeof cache, 722, &log), D12_CAPS_OK);
    CHECK_EQ_INT(cache.SupportFlags, 0xFF);
    cache.SupportFlags = old_bits;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_CACHE, &cache, sizeof cache, 4, &log), D12_CAPS_OK);
    CHECK_EQ_INT(cache.SupportFlags, old_bits);
    CHECK_EQ_INT(log.count, 1);
}

/* "Whenever a field is clamped, the debug layer emits a warning identifying the affected field, the requested
 * SDKVersion, and the value it was clamped from and to": the report callback carries exactly that. */
static void test_report(void)
{
    report_log log = {0};
    CHECK_EQ_INT(raytracing_at(RETAIL, 621, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(log.count, 1);
    CHECK_EQ_STR(log.feature, "D3D12_FEATURE_D3D12_OPTIONS5");
    CHECK_EQ_STR(log.field, "RaytracingTier");
    CHECK_EQ_INT(log.version.requested, 621);
    CHECK_EQ_INT(log.version.number, 621);
    CHECK_EQ_INT(log.version.line, D12_CAPS_LINE_RETAIL);
    CHECK_EQ_INT(log.before, D3D12_RAYTRACING_TIER_1_3);
    CHECK_EQ_INT(log.after, D3D12_RAYTRACING_TIER_1_2);
    const d12_caps_enum *tiers = d12_caps_find_enum("D3D12_RAYTRACING_TIER");
    CHECK(tiers != NULL);
    if (tiers) {
        CHECK_EQ_STR(d12_caps_value_name(tiers, log.before, log.version), "D3D12_RAYTRACING_TIER_1_3");
        CHECK_EQ_STR(d12_caps_value_name(tiers, log.after, log.version), "D3D12_RAYTRACING_TIER_1_2");
        CHECK_EQ_STR(d12_caps_value_name(tiers, 14, log.version), NULL);
    }

    /* A preview caller: the report names the preview line. */
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 721, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(log.count, 1);
    CHECK_EQ_INT(log.version.requested, 721);
    CHECK_EQ_INT(log.version.number, 721);
    CHECK_EQ_INT(log.version.line, D12_CAPS_LINE_PREVIEW);

    /* Negative: nothing changed, nothing reported (a NULL callback is fine too). */
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(raytracing_at(RETAIL, 621, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(log.count, 0);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {FALSE, D3D12_RENDER_PASS_TIER_0, D3D12_RAYTRACING_TIER_1_3};
    CHECK_EQ_INT(d12_caps_clamp(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, resolved(RETAIL, 621),
                                NULL, NULL), D12_CAPS_OK);
    CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
}

/* "legacy CheckFeatureSupport callers are permanently pinned to the pre-clamping compatibility level." */
static void test_legacy_pinned(void)
{
    d12_caps_version legacy = d12_caps_legacy_version(RETAIL);
    CHECK_EQ_INT(legacy.number, 619);
    CHECK_EQ_INT(legacy.line, D12_CAPS_LINE_RETAIL);
    d12_caps_version legacy_preview = d12_caps_legacy_version(PREVIEW);
    CHECK_EQ_INT(legacy_preview.number, 720);
    CHECK_EQ_INT(legacy_preview.line, D12_CAPS_LINE_PREVIEW);

    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {FALSE, D3D12_RENDER_PASS_TIER_2, D3D12_RAYTRACING_TIER_1_3};
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_D3D12_OPTIONS5, sizeof options5, legacy), D12_CAPS_OK);
    CHECK_EQ_INT(d12_caps_clamp(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, legacy, NULL, NULL),
                 D12_CAPS_OK);
    CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
    options5.RaytracingTier = D3D12_RAYTRACING_TIER_1_3;
    CHECK_EQ_INT(d12_caps_clamp(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, legacy_preview, NULL,
                                NULL), D12_CAPS_OK);
    CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
    /* Nothing introduced with or after CheckFeatureSupport1 is visible, even the flag bit of 621. */
    D3D12_FEATURE_DATA_SHADER_CACHE cache = {(D3D12_SHADER_CACHE_SUPPORT_FLAGS)0x81};
    CHECK_EQ_INT(d12_caps_clamp(D3D12_FEATURE_SHADER_CACHE, &cache, sizeof cache, legacy, NULL, NULL), D12_CAPS_OK);
    CHECK_EQ_INT(cache.SupportFlags, 0x1);

    /* Negative: the same true value through CheckFeatureSupport1 with the newest SDK is seen; old tiers stay. */
    report_log log = {0};
    CHECK_EQ_INT(raytracing_at(RETAIL, 622, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_3);
    options5.RaytracingTier = D3D12_RAYTRACING_TIER_1_2;
    CHECK_EQ_INT(d12_caps_clamp(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5, legacy, NULL, NULL),
                 D12_CAPS_OK);
    CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
}

/* Shader model, in/out: the caller writes the highest it knows, the answer is clamped like a tier. */
static void test_shader_model(void)
{
    report_log log = {0};
    D3D12_FEATURE_DATA_SHADER_MODEL sm = {D3D_SHADER_MODEL_6_11};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm, 621, &log), D12_CAPS_OK);
    CHECK_EQ_INT(sm.HighestShaderModel, D3D_SHADER_MODEL_6_10);
    sm.HighestShaderModel = D3D_SHADER_MODEL_6_11;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm, 613, &log), D12_CAPS_OK);
    CHECK_EQ_INT(sm.HighestShaderModel, D3D_SHADER_MODEL_6_10); /* 6_10 (619) is unprotected: visible at 613 */

    /* Negative: 6_11 at 622; 6_10 (619, before CheckFeatureSupport1) at 600 passes through. */
    sm.HighestShaderModel = D3D_SHADER_MODEL_6_11;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm, 622, &log), D12_CAPS_OK);
    CHECK_EQ_INT(sm.HighestShaderModel, D3D_SHADER_MODEL_6_11);
    sm.HighestShaderModel = D3D_SHADER_MODEL_6_10;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm, 600, &log), D12_CAPS_OK);
    CHECK_EQ_INT(sm.HighestShaderModel, D3D_SHADER_MODEL_6_10);
}

/* Before the driver is asked, an in/out input must be a value the runtime knows at its own version
 * (CD3DX12FeatureSupport probes down and stops at the first answer that is not E_INVALIDARG). */
static void test_check_inputs(void)
{
    D3D12_FEATURE_DATA_SHADER_MODEL sm = {(D3D_SHADER_MODEL)0x6c}; /* 6_12: no SDK has it */
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm), D12_CAPS_BAD_INPUT);
    CHECK_EQ_INT(d12_caps_check_inputs(PREVIEW, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm), D12_CAPS_BAD_INPUT);
    report_log log = {0};
    D3D12_FEATURE_DATA_SHADER_MODEL copy = sm;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm, 622, &log), D12_CAPS_BAD_INPUT);
    CHECK(memcmp(&sm, &copy, sizeof sm) == 0);
    D3D12_FEATURE_DATA_ROOT_SIGNATURE rs = {(D3D_ROOT_SIGNATURE_VERSION)5};
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_ROOT_SIGNATURE, &rs, sizeof rs), D12_CAPS_BAD_INPUT);

    /* Negative: every model the runtime knows is accepted, including the one from after CheckFeatureSupport1. */
    sm.HighestShaderModel = D3D_SHADER_MODEL_6_11;
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm), D12_CAPS_OK);
    sm.HighestShaderModel = D3D_SHADER_MODEL_6_0;
    CHECK_EQ_INT(d12_caps_check_inputs(PREVIEW, D3D12_FEATURE_SHADER_MODEL, &sm, sizeof sm), D12_CAPS_OK);
    rs.HighestVersion = D3D_ROOT_SIGNATURE_VERSION_1_3;
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_ROOT_SIGNATURE, &rs, sizeof rs), D12_CAPS_OK);

    /* Root signature 1_3 (621) answered to a 620 caller reads as 1_2. */
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_ROOT_SIGNATURE, &rs, sizeof rs, 620, &log), D12_CAPS_OK);
    CHECK_EQ_INT(rs.HighestVersion, D3D_ROOT_SIGNATURE_VERSION_1_2);
}

/* Feature levels: the answer is one of the caller's requested levels that existed at its SDK. */
static void test_feature_levels(void)
{
    static const D3D_FEATURE_LEVEL all[] = {D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2,
                                            D3D_FEATURE_LEVEL_12_3};
    static const D3D_FEATURE_LEVEL gap[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_3};
    report_log log = {0};
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {4, all, D3D_FEATURE_LEVEL_12_3};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels, 621, &log), D12_CAPS_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_2);
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){2, gap, D3D_FEATURE_LEVEL_12_3};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels, 621, &log), D12_CAPS_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_11_0);
    CHECK(levels.pFeatureLevelsRequested == gap);
    CHECK_EQ_INT(levels.NumFeatureLevels, 2);

    /* Negative: at 622 12_3 is seen; an empty list is rejected before the driver is asked. */
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){4, all, D3D_FEATURE_LEVEL_12_3};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels, 622, &log), D12_CAPS_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_3);
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){0, all, D3D_FEATURE_LEVEL_12_3};
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels),
                 D12_CAPS_BAD_INPUT);
    /* A level the runtime does not know is a number, not an error (issue 17 item 5): accepted, and an answer the
     * caller requested itself passes the clamp at any version; one it did not request is lowered as before. */
    static const D3D_FEATURE_LEVEL unknown[] = {D3D_FEATURE_LEVEL_12_0, (D3D_FEATURE_LEVEL)0xc400};
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){2, unknown, (D3D_FEATURE_LEVEL)0xc400};
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels), D12_CAPS_OK);
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels, 610, &log), D12_CAPS_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, 0xc400);
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){1, unknown, (D3D_FEATURE_LEVEL)0xc400};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels, 610, &log), D12_CAPS_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_0);
    levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){2, NULL, D3D_FEATURE_LEVEL_12_0};
    CHECK_EQ_INT(d12_caps_check_inputs(RETAIL, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels),
                 D12_CAPS_BAD_INPUT);
}

/* "Clamping applies to capabilities introduced with or after CheckFeatureSupport1 and does not retroactively apply
 * to earlier capabilities": values from before 620/721 pass through even at versions before they existed. */
static void test_unprotected_pass_through(void)
{
    report_log log = {0};
    CHECK_EQ_INT(raytracing_at(RETAIL, 610, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(RETAIL, 4, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 700, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 5, D3D12_RAYTRACING_TIER_1_2, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(log.count, 0);

    /* Negative: a protected value at the same old versions is lowered, to the highest value below it that the
     * caller may see (1_2, unprotected). */
    CHECK_EQ_INT(raytracing_at(RETAIL, 4, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(raytracing_at(PREVIEW, 700, D3D12_RAYTRACING_TIER_1_3, &log), D3D12_RAYTRACING_TIER_1_2);
    CHECK_EQ_INT(log.count, 2);
}

/* A feature introduced after CheckFeatureSupport1: sizes per version, and a tier enum with no value yet. */
static void test_new_feature(void)
{
    const UINT small = 8, full = sizeof(D3D12_FEATURE_DATA_FUTURE_WIDGETS);
    CHECK_EQ_INT(full, 12);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, small, resolved(RETAIL, 621)), D12_CAPS_OK);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, small, resolved(RETAIL, 622)), D12_CAPS_OK);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, full, resolved(RETAIL, 622)), D12_CAPS_OK);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, full, resolved(PREVIEW, 723)), D12_CAPS_OK);
    /* Negative: no size before the feature existed, the grown size only from 622/723, no other size. */
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, small, resolved(RETAIL, 620)),
                 D12_CAPS_BAD_SIZE);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, small, resolved(PREVIEW, 721)),
                 D12_CAPS_BAD_SIZE);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, full, resolved(RETAIL, 621)), D12_CAPS_BAD_SIZE);
    CHECK_EQ_INT(d12_caps_check_query(D3D12_FEATURE_FUTURE_WIDGETS, 16, resolved(RETAIL, 622)), D12_CAPS_BAD_SIZE);
    CHECK_EQ_INT(d12_caps_check_query(9999, 4, resolved(RETAIL, 622)), D12_CAPS_UNKNOWN_FEATURE);
    /* Legacy CheckFeatureSupport refuses a feature newer than its pin (docs/clamping.md 5): the feature is not
     * present at the pinned level, and present from its first version on. */
    const d12_caps_feature *widgets = d12_caps_find_feature(D3D12_FEATURE_FUTURE_WIDGETS);
    CHECK(!d12_caps_feature_present(widgets, d12_caps_legacy_version(RETAIL)));
    CHECK(!d12_caps_feature_present(widgets, d12_caps_legacy_version(PREVIEW)));
    CHECK(!d12_caps_feature_present(widgets, resolved(RETAIL, 620)));
    CHECK(d12_caps_feature_present(widgets, resolved(RETAIL, 621)));
    CHECK(d12_caps_feature_present(widgets, resolved(PREVIEW, 722)));
    CHECK(d12_caps_feature_present(d12_caps_find_feature(D3D12_FEATURE_D3D12_OPTIONS5), d12_caps_legacy_version(RETAIL)));
    CHECK(!d12_caps_feature_present(NULL, resolved(RETAIL, 622)));

    /* At 621 GadgetTier had no value yet: whatever the driver reports reads as 0. Only 8 bytes are written. */
    report_log log = {0};
    uint8_t bytes[12];
    D3D12_FEATURE_DATA_FUTURE_WIDGETS w = {D3D12_WIDGET_TIER_2, D3D12_GADGET_TIER_1, 0xABCD};
    memcpy(bytes, &w, sizeof w);
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FUTURE_WIDGETS, bytes, small, 621, &log), D12_CAPS_OK);
    memcpy(&w, bytes, sizeof w);
    CHECK_EQ_INT(w.WidgetTier, D3D12_WIDGET_TIER_1);
    CHECK_EQ_INT(w.GadgetTier, 0);
    CHECK_EQ_INT(w.MaxWidgets, 0xABCD);
    CHECK_EQ_INT(log.count, 2);

    /* Negative: at 622 both tiers existed; a preview-only tier is unknown to the retail line, not to preview. */
    w = (D3D12_FEATURE_DATA_FUTURE_WIDGETS){D3D12_WIDGET_TIER_2, D3D12_GADGET_TIER_1, 7};
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FUTURE_WIDGETS, &w, full, 622, &log), D12_CAPS_OK);
    CHECK_EQ_INT(w.WidgetTier, D3D12_WIDGET_TIER_2);
    CHECK_EQ_INT(w.GadgetTier, D3D12_GADGET_TIER_1);
    w.WidgetTier = D3D12_WIDGET_TIER_3;
    CHECK_EQ_INT(query(RETAIL, D3D12_FEATURE_FUTURE_WIDGETS, &w, full, 622, &log), D12_CAPS_OK);
    CHECK_EQ_INT(w.WidgetTier, D3D12_WIDGET_TIER_2);
    w.WidgetTier = D3D12_WIDGET_TIER_3;
    CHECK_EQ_INT(query(PREVIEW, D3D12_FEATURE_FUTURE_WIDGETS, &w, full, 723, &log), D12_CAPS_OK);
    CHECK_EQ_INT(w.WidgetTier, D3D12_WIDGET_TIER_3);

    /* The per-value rule agrees: with no value of the enum at the version, 0. */
    const d12_caps_enum *gadget = d12_caps_find_enum("D3D12_GADGET_TIER");
    CHECK(gadget != NULL);
    if (gadget) {
        CHECK_EQ_INT(d12_caps_clamp_value(D12_CAPS_FIELD_TIER, gadget, 2, resolved(PREVIEW, 722), NULL, 0), 0);
        CHECK_EQ_INT(d12_caps_clamp_value(D12_CAPS_FIELD_TIER, gadget, 2, resolved(PREVIEW, 723), NULL, 0), 2);
    }
}

int main(void)
{
    test_preview_remap();
    test_older_than_every_sdk();
    test_too_new();
    test_tier_lowered();
    test_flag_cleared();
    test_report();
    test_legacy_pinned();
    test_shader_model();
    test_check_inputs();
    test_feature_levels();
    test_unprotected_pass_through();
    test_new_feature();
    return d12test_finish();
}
