/* The clamp rules of CheckFeatureSupport1 (checkfeaturesupport1.txt), over the tables generated from spec/.
 * Every decision the spec leaves open is written down once in docs/clamping.md; the section numbers below
 * refer to it. Table lookups only: no allocation, no locking, no formatting. */
#include <stdlib.h>
#include <string.h>

#include "d12caps_tables.h"

static const UINT runtime_versions[2] = {D12_CAPS_RUNTIME_RETAIL_SDK_VERSION, D12_CAPS_RUNTIME_PREVIEW_SDK_VERSION};
static const UINT cfs1_versions[2] = {D12_CAPS_CFS1_RETAIL_SDK_VERSION, D12_CAPS_CFS1_PREVIEW_SDK_VERSION};

/* ---- Versions (docs/clamping.md section 1) ---- */

UINT d12_caps_runtime_version(d12_caps_flavor flavor)
{
    return runtime_versions[flavor == D12_CAPS_FLAVOR_PREVIEW];
}

bool d12_caps_flavor_from_environment(d12_caps_flavor *out)
{
    const char *flavor = getenv("D12RT_FLAVOR");
    *out = flavor != NULL && strcmp(flavor, "preview") == 0 ? D12_CAPS_FLAVOR_PREVIEW : D12_CAPS_FLAVOR_RETAIL;
    return flavor == NULL || *flavor == '\0' || strcmp(flavor, "retail") == 0 || strcmp(flavor, "preview") == 0;
}

d12_caps_line d12_caps_line_of(UINT number)
{
    return number >= D12_CAPS_PREVIEW_FIRST ? D12_CAPS_LINE_PREVIEW : D12_CAPS_LINE_RETAIL;
}

const char *d12_caps_line_name(d12_caps_line line)
{
    return line == D12_CAPS_LINE_PREVIEW ? "preview" : "retail";
}

d12_caps_status d12_caps_resolve_version(d12_caps_flavor flavor, UINT requested, d12_caps_version *out)
{
    UINT number = requested;
    /* "On a retail runtime, the exact current D3D12_PREVIEW_SDK_VERSION value is treated as
     * D3D12_SDK_VERSION. Other preview version numbers are not remapped." */
    if (flavor == D12_CAPS_FLAVOR_RETAIL && requested == D12_CAPS_RUNTIME_PREVIEW_SDK_VERSION)
        number = D12_CAPS_RUNTIME_RETAIL_SDK_VERSION;
    /* "A version greater than the runtime's version causes CheckFeatureSupport1 to return E_INVALIDARG
     * without querying capabilities or modifying pFeatureSupportData." */
    if (number > d12_caps_runtime_version(flavor))
        return D12_CAPS_VERSION_TOO_NEW;
    d12_caps_line line = d12_caps_line_of(number);
    /* "Every size the struct has had up to that version is valid": a number older than every SDK of its line
     * (retail 0 ... 3) is read as the oldest SDK, so it sees the oldest layout and the oldest values of the
     * features that always existed, not none at all (issue 17 item 2; docs/clamping.md section 1). */
    if (d12__caps_sdk_version_count[line] > 0 && number < d12__caps_sdk_versions[line][0])
        number = d12__caps_sdk_versions[line][0];
    out->requested = requested;
    out->number = number;
    out->line = line;
    return D12_CAPS_OK;
}

d12_caps_version d12_caps_legacy_version(d12_caps_flavor flavor)
{
    /* Section 5: "legacy CheckFeatureSupport callers are permanently pinned to the pre-clamping compatibility
     * level", the version just before CheckFeatureSupport1 on the runtime's line. */
    d12_caps_line line = d12_caps_line_of(d12_caps_runtime_version(flavor));
    UINT number = cfs1_versions[line] - 1;
    d12_caps_version version = {number, number, line};
    return version;
}

static d12_caps_version runtime_own_version(d12_caps_flavor flavor)
{
    UINT number = d12_caps_runtime_version(flavor);
    d12_caps_version version = {number, number, d12_caps_line_of(number)};
    return version;
}

const UINT *d12_caps_sdk_versions(d12_caps_line line, uint32_t *count)
{
    *count = d12__caps_sdk_version_count[line];
    return d12__caps_sdk_versions[line];
}

const char *d12_caps_sdk_version_tags(d12_caps_line line, UINT number)
{
    for (uint32_t i = 0; i < d12__caps_sdk_version_count[line]; i++) {
        if (d12__caps_sdk_versions[line][i] == number)
            return d12__caps_sdk_version_tags[line][i];
    }
    return NULL;
}

/* ---- Value histories (section 2) ---- */

bool d12_caps_value_present(const d12_caps_enum_value *value, d12_caps_version version)
{
    uint32_t first = value->first[version.line];
    return first != D12_CAPS_NEVER && first <= version.number && version.number < value->stop[version.line];
}

static bool number_present(const d12_caps_enum *enumeration, int64_t number, d12_caps_version version)
{
    for (uint32_t i = 0; i < enumeration->count; i++) {
        if (enumeration->values[i].value == number && d12_caps_value_present(&enumeration->values[i], version))
            return true;
    }
    return false;
}

/* "Clamping applies to capabilities introduced with or after CheckFeatureSupport1 and does not retroactively
 * apply to earlier capabilities." A value that appeared on either line before CheckFeatureSupport1 came to that
 * line has already shipped, so it is never clamped, whichever line the caller is on. A number that was never a
 * value of the enum is newer than anything the caller's SDK could know: protected. (docs/clamping.md 2.) */
static bool number_protected(const d12_caps_enum *enumeration, int64_t number)
{
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *value = &enumeration->values[i];
        if (value->value != number)
            continue;
        for (int line = D12_CAPS_LINE_RETAIL; line <= D12_CAPS_LINE_PREVIEW; line++) {
            if (value->first[line] != D12_CAPS_NEVER && value->first[line] < cfs1_versions[line])
                return false;
        }
    }
    return true;
}

bool d12_caps_value_protected(const d12_caps_enum *enumeration, int64_t number)
{
    return number_protected(enumeration, number);
}

/* What a caller at `version` may see as is: an unprotected value, or a protected one its SDK already had. */
static bool number_visible(const d12_caps_enum *enumeration, int64_t number, d12_caps_version version)
{
    return !number_protected(enumeration, number) || number_present(enumeration, number, version);
}

/* ---- The rule per field kind (section 3) ---- */

/* "Tiers are a table, not arithmetic": the highest value of the enum at or below the true value that a caller
 * at `version` may see (an unprotected value, or a protected one its SDK had); 0 where there is none. Taking
 * the highest *visible* value, not the highest *present* one, keeps the rule monotonic: a better GPU never reads
 * as a lower tier (issue 8 item 4; docs/clamping.md 3). */
static int64_t clamp_tier(const d12_caps_enum *enumeration, int64_t true_value, d12_caps_version version)
{
    if (number_visible(enumeration, true_value, version))
        return true_value;
    int64_t best = 0;
    bool found = false;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *value = &enumeration->values[i];
        if (value->value <= true_value && (!found || value->value > best) &&
            number_visible(enumeration, value->value, version)) {
            best = value->value;
            found = true;
        }
    }
    return found ? best : 0;
}

/* Flag bits introduced later (or never known) are cleared, one bit at a time. */
static int64_t clamp_flags(const d12_caps_enum *enumeration, int64_t true_value, d12_caps_version version)
{
    uint32_t bits = (uint32_t)true_value, kept = 0;
    for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if ((bits & bit) && number_visible(enumeration, bit, version))
            kept |= bit;
    }
    return kept;
}

static bool is_enum_value(const d12_caps_enum *enumeration, int64_t number)
{
    for (uint32_t i = 0; i < enumeration->count; i++) {
        if (enumeration->values[i].value == number)
            return true;
    }
    return false;
}

static bool is_requested(int64_t level, const D3D_FEATURE_LEVEL *requested, UINT requested_count)
{
    for (UINT i = 0; requested != NULL && i < requested_count; i++) {
        if (requested[i] == level)
            return true;
    }
    return false;
}

/* What a caller may see of a feature level: a visible value of the enum, or a number the enum never had that the
 * caller requested itself. Levels are compared as numbers (issue 17 item 5): {0x0000, 0x3000} answers 0x3000, as
 * wine-vkd3d's and vkd3d-proton's test_check_feature_support assert; a number the caller named is not a driver
 * capability newer than its SDK, so it is not protected. */
static bool level_visible(const d12_caps_enum *enumeration, int64_t level, d12_caps_version version,
                          const D3D_FEATURE_LEVEL *requested, UINT requested_count)
{
    if (!is_enum_value(enumeration, level))
        return is_requested(level, requested, requested_count);
    return number_visible(enumeration, level, version);
}

/* MaxSupportedFeatureLevel must stay one of the caller's requested levels: the highest one at or below the true
 * level that the caller may see. */
static int64_t clamp_feature_level(const d12_caps_enum *enumeration, int64_t true_value, d12_caps_version version,
                                   const D3D_FEATURE_LEVEL *requested, UINT requested_count)
{
    if (level_visible(enumeration, true_value, version, requested, requested_count))
        return true_value;
    int64_t best = 0;
    for (UINT i = 0; requested != NULL && i < requested_count; i++) {
        int64_t level = requested[i];
        if (level <= true_value && level > best && level_visible(enumeration, level, version, requested, requested_count))
            best = level;
    }
    return best;
}

int64_t d12_caps_clamp_value(d12_caps_field_kind kind, const d12_caps_enum *enumeration, int64_t true_value,
                             d12_caps_version version, const D3D_FEATURE_LEVEL *requested, UINT requested_count)
{
    switch (kind) {
    case D12_CAPS_FIELD_TIER:
    case D12_CAPS_FIELD_SHADER_MODEL:
    case D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION:
        return clamp_tier(enumeration, true_value, version);
    case D12_CAPS_FIELD_FLAGS:
        return clamp_flags(enumeration, true_value, version);
    case D12_CAPS_FIELD_FEATURE_LEVEL:
        return clamp_feature_level(enumeration, true_value, version, requested, requested_count);
    default:
        return true_value;
    }
}

/* ---- Features and sizes (section 4) ---- */

const d12_caps_feature *d12_caps_find_feature(UINT feature)
{
    return feature < d12__caps_feature_by_value_count ? d12__caps_feature_by_value[feature] : NULL;
}

const d12_caps_feature *d12_caps_features(uint32_t *count)
{
    *count = d12__caps_feature_count;
    return d12__caps_feature_table;
}

const d12_caps_enum *d12_caps_enums(uint32_t *count)
{
    *count = d12__caps_enum_count;
    return d12__caps_enum_table;
}

const d12_caps_enum *d12_caps_find_enum(const char *name)
{
    for (uint32_t i = 0; name != NULL && i < d12__caps_enum_count; i++) {
        if (strcmp(d12__caps_enum_table[i].name, name) == 0)
            return &d12__caps_enum_table[i];
    }
    return NULL;
}

const d12_caps_layout *d12_caps_layout_for_size(const d12_caps_feature *feature, UINT size,
                                                d12_caps_version version)
{
    for (uint32_t i = 0; feature != NULL && i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        uint32_t first = layout->first[version.line];
        if (layout->size == size && first != D12_CAPS_NEVER && first <= version.number)
            return layout;
    }
    return NULL;
}

bool d12_caps_feature_present(const d12_caps_feature *feature, d12_caps_version version)
{
    for (uint32_t i = 0; feature != NULL && feature->struct_name != NULL && i < feature->layout_count; i++) {
        uint32_t first = feature->layouts[i].first[version.line];
        if (first != D12_CAPS_NEVER && first <= version.number)
            return true;
    }
    return false;
}

d12_caps_status d12_caps_check_query(UINT feature, UINT size, d12_caps_version version)
{
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    if (found == NULL || found->struct_name == NULL)
        return D12_CAPS_UNKNOWN_FEATURE;
    return d12_caps_layout_for_size(found, size, version) != NULL ? D12_CAPS_OK : D12_CAPS_BAD_SIZE;
}

static int64_t read_field(const void *data, const d12_caps_field *field)
{
    int32_t raw;
    memcpy(&raw, (const char *)data + field->offset, sizeof(raw));
    return field->kind == D12_CAPS_FIELD_FLAGS ? (int64_t)(uint32_t)raw : (int64_t)raw;
}

static void write_field(void *data, const d12_caps_field *field, int64_t value)
{
    int32_t raw = (int32_t)value;
    memcpy((char *)data + field->offset, &raw, sizeof(raw));
}

/* The caller's FEATURE_LEVELS struct, for a layout with a FEATURE_LEVEL field (only
 * D3D12_FEATURE_DATA_FEATURE_LEVELS has one). Copied out: the caller's struct need not be aligned for its
 * pointer member. */
static bool feature_levels_of(const d12_caps_layout *layout, const void *data, UINT size,
                              D3D12_FEATURE_DATA_FEATURE_LEVELS *out)
{
    for (uint32_t i = 0; i < layout->field_count; i++) {
        if (layout->fields[i].kind == D12_CAPS_FIELD_FEATURE_LEVEL && size == sizeof(*out)) {
            memcpy(out, data, sizeof(*out));
            return true;
        }
    }
    return false;
}

/* Only the list itself is checked: a requested level the runtime does not know is compared as a number
 * (issue 17 item 5; docs/clamping.md section 3). */
static d12_caps_status check_requested_levels(const D3D12_FEATURE_DATA_FEATURE_LEVELS *levels)
{
    if (levels->NumFeatureLevels == 0 || levels->pFeatureLevelsRequested == NULL)
        return D12_CAPS_BAD_INPUT;
    return D12_CAPS_OK;
}

d12_caps_status d12_caps_check_inputs(d12_caps_flavor flavor, UINT feature, const void *data, UINT size)
{
    d12_caps_version known = runtime_own_version(flavor);
    const d12_caps_layout *layout = d12_caps_layout_for_size(d12_caps_find_feature(feature), size, known);
    if (layout == NULL)
        return D12_CAPS_BAD_SIZE;
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels;
    if (feature_levels_of(layout, data, size, &levels) && check_requested_levels(&levels) != D12_CAPS_OK)
        return D12_CAPS_BAD_INPUT;
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        bool in_out = field->kind == D12_CAPS_FIELD_SHADER_MODEL || field->kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION;
        int64_t asked = in_out ? read_field(data, field) : 0;
        /* 0 (D3D_SHADER_MODEL_NONE) is an answer, never a request: "initialize the HighestShaderModel field to the
         * highest shader model that your application understands" (issue 17 item 5). */
        if (in_out && (asked == 0 || !number_present(field->enumeration, asked, known)))
            return D12_CAPS_BAD_INPUT;
    }
    return D12_CAPS_OK;
}

d12_caps_status d12_caps_clamp(UINT feature, void *data, UINT size, d12_caps_version version,
                               d12_caps_clamp_fn report, void *context)
{
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    if (found == NULL || found->struct_name == NULL)
        return D12_CAPS_UNKNOWN_FEATURE;
    const d12_caps_layout *layout = d12_caps_layout_for_size(found, size, version);
    if (layout == NULL)
        return D12_CAPS_BAD_SIZE;
    if (found->never_clamped)
        return D12_CAPS_OK;
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {0, NULL, 0};
    feature_levels_of(layout, data, size, &levels);
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        if (field->enumeration == NULL)
            continue;
        int64_t before = read_field(data, field);
        int64_t after = d12_caps_clamp_value(field->kind, field->enumeration, before, version,
                                             levels.pFeatureLevelsRequested, levels.NumFeatureLevels);
        if (after == before)
            continue;
        write_field(data, field, after);
        if (report != NULL) {
            d12_caps_clamp_report clamped = {found, field, version, before, after};
            report(context, &clamped);
        }
    }
    return D12_CAPS_OK;
}

const char *d12_caps_value_name(const d12_caps_enum *enumeration, int64_t number, d12_caps_version version)
{
    const char *any = NULL;
    for (uint32_t i = 0; enumeration != NULL && i < enumeration->count; i++) {
        const d12_caps_enum_value *value = &enumeration->values[i];
        if (value->value != number || value->alias)
            continue;
        if (d12_caps_value_present(value, version))
            return value->name;
        any = value->name; /* the latest entry of that number wins when none is current at `version` */
    }
    return any;
}
