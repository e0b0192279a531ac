/* The reference driver's capability profile: defaults per flavor checked against libd12caps, overrides by
 * name and number, and every profile error with its exact `file:line: message` (negative) next to the
 * corrected line loading (positive). One ctest per case: test_refdrv CASE. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "driver_test.h"
#include "refdrv.h"

#define OPTIONS5 D3D12_FEATURE_D3D12_OPTIONS5
#define RT_TIER "D3D12_FEATURE_D3D12_OPTIONS5.RaytracingTier"

/* The true value of one field in a built profile, read through the driver's query path. */
static int64_t profile_value(const d12__refdrv_profile *profile, UINT feature, const char *field)
{
    unsigned char data[1024] = {0};
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    const d12__refdrv_feature_data *entry = &profile->entries[d12_caps_find_feature(feature) - features];
    UINT size = entry->layout->size; /* the newest layout at the profile's version */
    if (FAILED(d12__refdrv_profile_fill(profile, feature, data, size)))
        return -1000;
    return field_value(feature, data, size, field);
}

/* Build a profile from `text` (NULL: no file); the errors it printed go to *errors (malloc'd). */
static HRESULT build(d12__refdrv_profile *profile, d12_caps_flavor flavor, const char *text, char **errors,
                     char *path_out)
{
    const char *path = text ? temp_file(text) : NULL;
    if (path_out)
        strcpy(path_out, path ? path : "");
    FILE *sink = tmpfile();
    HRESULT hr = d12__refdrv_profile_build(profile, flavor, path, sink);
    long size = ftell(sink);
    *errors = calloc(1, (size_t)size + 1);
    rewind(sink);
    if (size > 0 && fread(*errors, 1, (size_t)size, sink) != (size_t)size)
        (*errors)[0] = '\0';
    fclose(sink);
    if (path)
        remove(path);
    return hr;
}

/* The built-in model (D12RT_REFDRV_PROFILE=newest-tiers, docs/claims.md). */
static HRESULT build_newest(d12__refdrv_profile *profile, d12_caps_flavor flavor, char **errors)
{
    *errors = calloc(1, 1);
    return d12__refdrv_profile_build(profile, flavor, D12_REFDRV_PROFILE_NEWEST_TIERS, stderr);
}

/* ---- Defaults of the model ---- */

/* Independent of the driver's code: the highest present value, or every present bit, at `version`. */
static int64_t expected_default(const d12_caps_field *field, d12_caps_version version)
{
    int64_t result = 0;
    for (uint32_t i = 0; i < field->enumeration->count; i++) {
        const d12_caps_enum_value *v = &field->enumeration->values[i];
        if (!d12_caps_value_present(v, version))
            continue;
        if (field->kind == D12_CAPS_FIELD_FLAGS)
            result |= v->value;
        else if (v->value > result)
            result = v->value;
    }
    return field->size == 4 ? (int32_t)result : result;
}

/* Every clamped-kind field of every feature holds the highest present value (never a removed one), every
 * BOOL is TRUE. */
static void check_all_defaults(const d12__refdrv_profile *profile)
{
    unsigned checked = 0;
    for (uint32_t f = 0; f < profile->count; f++) {
        const d12__refdrv_feature_data *entry = &profile->entries[f];
        for (uint32_t i = 0; entry->layout && i < entry->layout->field_count; i++) {
            const d12_caps_field *field = &entry->layout->fields[i];
            int64_t value = field_value(entry->feature->value, entry->bytes, entry->layout->size, field->name);
            if (field->enumeration) {
                CHECK_EQ_INT(value, expected_default(field, profile->version));
                if (field->kind != D12_CAPS_FIELD_FLAGS)
                    CHECK(d12_caps_value_name(field->enumeration, value, profile->version) != NULL);
                checked++;
            } else if (field->kind == D12_CAPS_FIELD_BOOL) {
                CHECK_EQ_INT(value, TRUE);
            }
        }
    }
    printf("%u clamped-kind fields checked\n", checked);
    CHECK(checked >= 30); /* the whole spec (31 retail, 39 preview today), not a handful */
}

static void defaults_retail(void)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build_newest(&profile, D12_CAPS_FLAVOR_RETAIL, &errors), S_OK);
    CHECK_EQ_INT(profile.version.number, d12_caps_runtime_version(D12_CAPS_FLAVOR_RETAIL));
    CHECK_EQ_INT(profile_value(&profile, OPTIONS5, "RaytracingTier"), 12);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier"), 10);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_SHADER_MODEL, "HighestShaderModel"), 0x6a);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS, "MaxGPUVirtualAddressBitsPerResource"), 40);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS, "DoublePrecisionFloatShaderOps"), TRUE);
    check_all_defaults(&profile);
    CHECK_EQ_STR(errors, "");
    free(errors);
    d12__refdrv_profile_free(&profile);
}

static void defaults_preview(void)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build_newest(&profile, D12_CAPS_FLAVOR_PREVIEW, &errors), S_OK);
    CHECK_EQ_INT(profile.version.number, d12_caps_runtime_version(D12_CAPS_FLAVOR_PREVIEW));
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier"), 11);
    CHECK_EQ_INT(profile_value(&profile, OPTIONS5, "RaytracingTier"), 12);
    check_all_defaults(&profile);
    free(errors);
    d12__refdrv_profile_free(&profile);
}

/* The query: input fields untouched, unknown feature and unknown size refused, data of a refused query intact. */
static void fill_query(void)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build_newest(&profile, D12_CAPS_FLAVOR_RETAIL, &errors), S_OK);
    D3D12_FEATURE_DATA_ARCHITECTURE arch = {7, FALSE, FALSE, FALSE};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_ARCHITECTURE, &arch, sizeof arch), S_OK);
    CHECK_EQ_INT(arch.NodeIndex, 7);
    CHECK_EQ_INT(arch.UMA, TRUE);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 o5 = {FALSE, D3D12_RENDER_PASS_TIER_0, D3D12_RAYTRACING_TIER_NOT_SUPPORTED};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, 9999, &o5, sizeof o5), E_INVALIDARG);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, OPTIONS5, &o5, sizeof o5 - 4), E_INVALIDARG);
    CHECK_EQ_INT(o5.RaytracingTier, 0);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, OPTIONS5, &o5, sizeof o5), S_OK);
    CHECK_EQ_INT(o5.RaytracingTier, 12);
    free(errors);
    d12__refdrv_profile_free(&profile);
}

/* ---- Overrides ---- */

/* Apply `text` on the retail defaults; check it loads silently and `feature.field` then reads `expected`. */
static void check_override(const char *text, UINT feature, const char *field, int64_t expected)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build(&profile, D12_CAPS_FLAVOR_RETAIL, text, &errors, NULL), S_OK);
    CHECK_EQ_STR(errors, "");
    CHECK_EQ_INT(profile_value(&profile, feature, field), expected);
    free(errors);
    d12__refdrv_profile_free(&profile);
}

static void override_by_name(void)
{
    check_override(RT_TIER " = D3D12_RAYTRACING_TIER_1_0\n", OPTIONS5, "RaytracingTier", 10);
    /* Any name of the enum, even one absent at the runtime's version: a profile may describe odd drivers. */
    check_override("D3D12_FEATURE_D3D12_OPTIONS21.WorkGraphsTier = D3D12_WORK_GRAPHS_TIER_0_1\n",
                   D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier", 1);
    check_override("D3D12_FEATURE_D3D12_OPTIONS.DoublePrecisionFloatShaderOps = FALSE\n",
                   D3D12_FEATURE_D3D12_OPTIONS, "DoublePrecisionFloatShaderOps", FALSE);
}

static void override_by_number(void)
{
    check_override(RT_TIER " = 11\n", OPTIONS5, "RaytracingTier", 11);
    check_override(RT_TIER " = 0x0A\n", OPTIONS5, "RaytracingTier", 10);
    check_override("D3D12_FEATURE_D3D12_OPTIONS.MaxGPUVirtualAddressBitsPerResource = 44\n",
                   D3D12_FEATURE_D3D12_OPTIONS, "MaxGPUVirtualAddressBitsPerResource", 44);
    check_override("D3D12_FEATURE_D3D12_OPTIONS.DoublePrecisionFloatShaderOps = 0\n", D3D12_FEATURE_D3D12_OPTIONS,
                   "DoublePrecisionFloatShaderOps", 0);
}

static void override_flags(void)
{
    check_override("D3D12_FEATURE_D3D12_OPTIONS.MinPrecisionSupport = D3D12_SHADER_MIN_PRECISION_SUPPORT_10_BIT\n",
                   D3D12_FEATURE_D3D12_OPTIONS, "MinPrecisionSupport", 1);
    check_override("D3D12_FEATURE_D3D12_OPTIONS.MinPrecisionSupport = D3D12_SHADER_MIN_PRECISION_SUPPORT_NONE | 2\n",
                   D3D12_FEATURE_D3D12_OPTIONS, "MinPrecisionSupport", 2);
}

static void override_comments(void)
{
    check_override("# a comment line\n\n   \n" RT_TIER " = D3D12_RAYTRACING_TIER_1_1   # trailing comment\n"
                   "\t# indented comment\n",
                   OPTIONS5, "RaytracingTier", 11);
    check_override(RT_TIER "=10", OPTIONS5, "RaytracingTier", 10); /* no spaces, no final newline */
    check_override(RT_TIER " = 10\n" RT_TIER " = 11\n", OPTIONS5, "RaytracingTier", 11); /* last line wins */
}

/* ---- Errors: the bad line gets exactly `path:line: message`; the corrected line loads ---- */

static void check_error(const char *bad, const char *message_after_path, const char *good)
{
    d12__refdrv_profile profile;
    char *errors, path[64], expected[512];
    CHECK_EQ_INT(build(&profile, D12_CAPS_FLAVOR_RETAIL, bad, &errors, path), E_INVALIDARG);
    snprintf(expected, sizeof expected, "%s%s\n", path, message_after_path);
    CHECK_EQ_STR(errors, expected);
    CHECK(profile.entries == NULL); /* a failed build leaves nothing to free */
    free(errors);
    CHECK_EQ_INT(build(&profile, D12_CAPS_FLAVOR_RETAIL, good, &errors, path), S_OK);
    CHECK_EQ_STR(errors, "");
    free(errors);
    d12__refdrv_profile_free(&profile);
}

static void error_unknown_feature(void)
{
    check_error("D3D12_FEATURE_D3D12_OPTIONS99.RaytracingTier = 1\n",
                ":1: unknown feature 'D3D12_FEATURE_D3D12_OPTIONS99'", RT_TIER " = 1\n");
    check_error("# header\nD3D12_FEATURE_D3D12_OPTIONS_EXPERIMENTAL.Anything = 1\n",
                ":2: D3D12_FEATURE_D3D12_OPTIONS_EXPERIMENTAL has no data struct at the runtime's SDK version",
                "# header\n" RT_TIER " = 1\n");
}

static void error_unknown_field(void)
{
    check_error("D3D12_FEATURE_D3D12_OPTIONS5.RaytraceTier = 1\n",
                ":1: unknown field 'RaytraceTier' of D3D12_FEATURE_D3D12_OPTIONS5", RT_TIER " = 1\n");
    check_error("D3D12_FEATURE_ARCHITECTURE.NodeIndex = 1\n",
                ":1: D3D12_FEATURE_ARCHITECTURE.NodeIndex is an input of the query; a profile sets capabilities",
                "D3D12_FEATURE_ARCHITECTURE.UMA = FALSE\n");
}

static void error_unknown_value(void)
{
    check_error(RT_TIER " = D3D12_RAYTRACING_TIER_9_9\n",
                ":1: unknown value 'D3D12_RAYTRACING_TIER_9_9' for " RT_TIER " (D3D12_RAYTRACING_TIER)",
                RT_TIER " = D3D12_RAYTRACING_TIER_1_2\n");
    check_error(RT_TIER " = D3D12_WORK_GRAPHS_TIER_1_0\n", /* a name of another enum */
                ":1: unknown value 'D3D12_WORK_GRAPHS_TIER_1_0' for " RT_TIER " (D3D12_RAYTRACING_TIER)",
                RT_TIER " = 10\n");
    check_error("D3D12_FEATURE_D3D12_OPTIONS.DoublePrecisionFloatShaderOps = true\n",
                ":1: unknown value 'true' for D3D12_FEATURE_D3D12_OPTIONS.DoublePrecisionFloatShaderOps (a BOOL: "
                "TRUE, FALSE or a number)",
                "D3D12_FEATURE_D3D12_OPTIONS.DoublePrecisionFloatShaderOps = TRUE\n");
    check_error("D3D12_FEATURE_D3D12_OPTIONS.MinPrecisionSupport = D3D12_SHADER_MIN_PRECISION_SUPPORT_10_BIT | X\n",
                ":1: unknown value 'X' for D3D12_FEATURE_D3D12_OPTIONS.MinPrecisionSupport "
                "(D3D12_SHADER_MIN_PRECISION_SUPPORT)",
                "D3D12_FEATURE_D3D12_OPTIONS.MinPrecisionSupport = D3D12_SHADER_MIN_PRECISION_SUPPORT_10_BIT\n");
    check_error(RT_TIER " = 12abc\n", ":1: bad number '12abc' for " RT_TIER, RT_TIER " = 12\n");
    check_error(RT_TIER " = 0x100000000\n", ":1: value '0x100000000' does not fit " RT_TIER, RT_TIER " = 0x1\n");
}

static void error_malformed(void)
{
    check_error(RT_TIER " D3D12_RAYTRACING_TIER_1_0\n",
                ":1: expected FEATURE.Field = VALUE, got '" RT_TIER " D3D12_RAYTRACING_TIER_1_0'",
                RT_TIER " = D3D12_RAYTRACING_TIER_1_0\n");
    check_error("RaytracingTier = 1\n", ":1: expected FEATURE.Field = VALUE, got 'RaytracingTier = 1'",
                RT_TIER " = 1\n");
    check_error(RT_TIER " =   # nothing\n", ":1: expected FEATURE.Field = VALUE", RT_TIER " = 0 # zero\n");
}

/* Every bad line is reported, each with its own line number, and the profile still fails. */
static void error_several(void)
{
    d12__refdrv_profile profile;
    char *errors, path[64], expected[512];
    const char *text = RT_TIER " = 1\nD3D12_FEATURE_NOPE.X = 1\n\n" RT_TIER " = NOPE\n";
    CHECK_EQ_INT(build(&profile, D12_CAPS_FLAVOR_RETAIL, text, &errors, path), E_INVALIDARG);
    snprintf(expected, sizeof expected,
             "%s:2: unknown feature 'D3D12_FEATURE_NOPE'\n%s:4: unknown value 'NOPE' for " RT_TIER
             " (D3D12_RAYTRACING_TIER)\n", path, path);
    CHECK_EQ_STR(errors, expected);
    free(errors);
}

static void error_unreadable(void)
{
    d12__refdrv_profile profile;
    FILE *sink = tmpfile();
    CHECK_EQ_INT(d12__refdrv_profile_build(&profile, D12_CAPS_FLAVOR_RETAIL, "/nonexistent/profile.txt", sink),
                 E_INVALIDARG);
    char text[256] = {0};
    rewind(sink);
    CHECK(fread(text, 1, sizeof text - 1, sink) > 0);
    CHECK_EQ_STR(text, "/nonexistent/profile.txt: cannot read the reference driver profile: No such file or "
                       "directory\n");
    fclose(sink);
}

/* The environment path: D12RT_FLAVOR picks the flavor, a bad value is an error, D12RT_REFDRV_PROFILE applies. */
static void environment(void)
{
    d12__refdrv_profile profile;
    FILE *sink = tmpfile();
    setenv("D12RT_FLAVOR", "beta", 1);
    CHECK_EQ_INT(d12__refdrv_profile_load(&profile, sink), E_INVALIDARG);
    char text[256] = {0};
    rewind(sink);
    CHECK(fread(text, 1, sizeof text - 1, sink) > 0);
    CHECK_EQ_STR(text, "d12rt reference driver: D12RT_FLAVOR=beta: expected retail or preview\n");
    fclose(sink);
    setenv("D12RT_FLAVOR", "preview", 1);
    const char *path = temp_file(RT_TIER " = 10\n");
    setenv("D12RT_REFDRV_PROFILE", path, 1);
    CHECK_EQ_INT(d12__refdrv_profile_load(&profile, stderr), S_OK);
    CHECK_EQ_INT(profile.flavor, D12_CAPS_FLAVOR_PREVIEW);
    CHECK_EQ_INT(profile_value(&profile, OPTIONS5, "RaytracingTier"), 10);
    /* a file applies over `implemented`, not over the model */
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier"), 0);
    d12__refdrv_profile_free(&profile);
    remove(path);
    setenv("D12RT_REFDRV_PROFILE", D12_REFDRV_PROFILE_NEWEST_TIERS, 1);
    CHECK_EQ_INT(d12__refdrv_profile_load(&profile, stderr), S_OK);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier"), 11);
    d12__refdrv_profile_free(&profile);
    /* the Vulkan driver's load: `implemented` whatever the environment says */
    CHECK_EQ_INT(d12__refdrv_profile_load_implemented(&profile, stderr), S_OK);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS21, "WorkGraphsTier"), 0);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_SHADER_MODEL, "HighestShaderModel"), 0x51);
    d12__refdrv_profile_free(&profile);
}

/* ---- `implemented`, the default (docs/claims.md) ---- */

/* Every clamped-kind field and BOOL is 0 but the claims; the claims parse without a message at both flavors (a
 * claim naming a field the spec lost would fail the adapter: refdrv_profile.c, apply_claims). */
static void check_implemented(d12_caps_flavor flavor)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build(&profile, flavor, NULL, &errors, NULL), S_OK);
    CHECK_EQ_STR(errors, "");
    free(errors);
    CHECK(!profile.newest_tiers);
    unsigned nonzero = 0;
    for (uint32_t f = 0; f < profile.count; f++) {
        const d12__refdrv_feature_data *entry = &profile.entries[f];
        for (uint32_t i = 0; entry->layout && i < entry->layout->field_count; i++) {
            const d12_caps_field *field = &entry->layout->fields[i];
            if (field->enumeration || field->kind == D12_CAPS_FIELD_BOOL)
                nonzero += field_value(entry->feature->value, entry->bytes, entry->layout->size, field->name) != 0;
        }
    }
    /* binding tier, heap tier, ExecuteIndirect 1.0, SM 5.1, RS 1.1, 12_0, ExpandedComputeResourceStates, 5 UMA BOOLs */
    CHECK_EQ_INT(nonzero, 12);
    CHECK_EQ_INT(profile_value(&profile, OPTIONS5, "RaytracingTier"), 0);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_SHADER_MODEL, "HighestShaderModel"), 0x51);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_ROOT_SIGNATURE, "HighestVersion"), D3D_ROOT_SIGNATURE_VERSION_1_1);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_FEATURE_LEVELS, "MaxSupportedFeatureLevel"), D3D_FEATURE_LEVEL_12_0);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS, "ResourceBindingTier"), D3D12_RESOURCE_BINDING_TIER_1);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS, "MaxGPUVirtualAddressBitsPerResource"), 40);
    CHECK_EQ_INT(profile_value(&profile, D3D12_FEATURE_D3D12_OPTIONS1, "WaveLaneCountMin"), 0);
    /* formats: what can be created, nothing more */
    D3D12_FEATURE_DATA_FORMAT_SUPPORT rgba = {DXGI_FORMAT_R8G8B8A8_UNORM, 0, 0}, unknown = {DXGI_FORMAT_UNKNOWN, 0, 0};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &rgba, sizeof rgba), S_OK);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &unknown, sizeof unknown), S_OK);
    CHECK_EQ_INT(rgba.Support1, 0);
    CHECK_EQ_INT(unknown.Support1, D3D12_FORMAT_SUPPORT1_BUFFER);
    CHECK_EQ_INT(unknown.Support2, 0);
    D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS four = {DXGI_FORMAT_R8G8B8A8_UNORM, 4, 0, 7};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &four, sizeof four), S_OK);
    CHECK_EQ_INT(four.NumQualityLevels, 0);
    d12__refdrv_profile_free(&profile);
}

static void implemented_retail(void)
{
    check_implemented(D12_CAPS_FLAVOR_RETAIL);
}

static void implemented_preview(void)
{
    check_implemented(D12_CAPS_FLAVOR_PREVIEW);
}

/* ---- Format features: answered per format from spec/formats.yaml (docs/formats.md), not from the profile ---- */

static void error_format_feature(void)
{
    check_error("D3D12_FEATURE_FORMAT_SUPPORT.Support1 = 1\n",
                ":1: D3D12_FEATURE_FORMAT_SUPPORT.Support1 is answered per format from spec/formats.yaml, not from a "
                "profile",
                RT_TIER " = 11\n");
    check_error("D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS.NumQualityLevels = 4\n",
                ":1: D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS.NumQualityLevels is answered per format from "
                "spec/formats.yaml, not from a profile",
                "D3D12_FEATURE_ARCHITECTURE.UMA = FALSE\n");
}

/* The driver's half: FORMAT_SUPPORT and the quality levels of the format asked about. */
static void format_answers(void)
{
    d12__refdrv_profile profile;
    char *errors;
    CHECK_EQ_INT(build_newest(&profile, D12_CAPS_FLAVOR_RETAIL, &errors), S_OK);
    free(errors);
    D3D12_FEATURE_DATA_FORMAT_SUPPORT rgba = {DXGI_FORMAT_R8G8B8A8_UNORM, 0, 0}, depth = {DXGI_FORMAT_D32_FLOAT, 0, 0};
    D3D12_FEATURE_DATA_FORMAT_SUPPORT none = {DXGI_FORMAT_P8, 1, 1};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &rgba, sizeof rgba), S_OK);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &depth, sizeof depth), S_OK);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &none, sizeof none), S_OK);
    CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET);
    CHECK(!(rgba.Support1 & D3D12_FORMAT_SUPPORT1_DEPTH_STENCIL));
    CHECK(depth.Support1 & D3D12_FORMAT_SUPPORT1_DEPTH_STENCIL);
    CHECK(!(depth.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET));
    CHECK_EQ_INT(none.Support1, 0); /* the runtime turns "nothing" into E_FAIL */
    CHECK_EQ_INT(none.Support2, 0);
    D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS four = {DXGI_FORMAT_R8G8B8A8_UNORM, 4, 0, 0};
    D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS bc = {DXGI_FORMAT_BC1_UNORM, 4, 0, 7};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &four, sizeof four), S_OK);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &bc, sizeof bc), S_OK);
    CHECK_EQ_INT(four.NumQualityLevels, 1);
    CHECK_EQ_INT(bc.NumQualityLevels, 0);
    D3D12_FEATURE_DATA_FORMAT_INFO nv12 = {DXGI_FORMAT_NV12, 0}, r1 = {DXGI_FORMAT_R1_UNORM, 0};
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_INFO, &nv12, sizeof nv12), S_OK);
    CHECK_EQ_INT(nv12.PlaneCount, 2);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_INFO, &r1, sizeof r1), E_INVALIDARG);
    CHECK_EQ_INT(d12__refdrv_profile_fill(&profile, D3D12_FEATURE_FORMAT_SUPPORT, &rgba, sizeof rgba - 1),
                 E_INVALIDARG);
    d12__refdrv_profile_free(&profile);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"defaults_retail", defaults_retail}, {"defaults_preview", defaults_preview}, {"fill_query", fill_query},
    {"override_by_name", override_by_name}, {"override_by_number", override_by_number},
    {"override_flags", override_flags}, {"override_comments", override_comments},
    {"error_unknown_feature", error_unknown_feature}, {"error_unknown_field", error_unknown_field},
    {"error_unknown_value", error_unknown_value}, {"error_malformed", error_malformed},
    {"error_several", error_several}, {"error_unreadable", error_unreadable}, {"environment", environment},
    {"error_format_feature", error_format_feature}, {"format_answers", format_answers},
    {"implemented_retail", implemented_retail}, {"implemented_preview", implemented_preview},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_refdrv CASE (unknown case)\n");
    return 2;
}
