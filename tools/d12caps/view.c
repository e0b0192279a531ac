/* d12caps: what an application sees: a feature run through the calls CheckFeatureSupport1 makes, with the
 * profile as the driver, and the values formatted. */
#include "d12caps_tool.h"

/* JSON string with the escapes RFC 8259 requires; names and messages here are ASCII. */
void json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

d12_caps_version runtime_version(d12_caps_flavor flavor)
{
    d12_caps_version version;
    /* The runtime's own number is never above itself, so this cannot fail. */
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &version);
    return version;
}

const char *flavor_name(d12_caps_flavor flavor)
{
    return flavor == D12_CAPS_FLAVOR_PREVIEW ? "preview" : "retail";
}

UINT cfs1_version(d12_caps_line line)
{
    return line == D12_CAPS_LINE_PREVIEW ? D12_CAPS_CFS1_PREVIEW_SDK_VERSION : D12_CAPS_CFS1_RETAIL_SDK_VERSION;
}

const char *kind_name(d12_caps_field_kind kind)
{
    static const char *const names[] = {"tier", "flags", "shader_model", "root_signature_version",
                                        "feature_level", "bool", "integer", "input", "inout", "opaque"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *enum_kind_name(d12_caps_enum_kind kind)
{
    static const char *const names[] = {"feature", "tier", "flags", "shader_model", "root_signature_version",
                                        "feature_level"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

bool kind_is_clamped(d12_caps_field_kind kind)
{
    return kind <= D12_CAPS_FIELD_FEATURE_LEVEL;
}

/* Length of the prefix every value name of the enum shares, cut after an underscore, so that
 * D3D12_RAYTRACING_TIER_1_2 reads "1_2" in narrow columns. */
static size_t common_prefix(const d12_caps_enum *enumeration)
{
    const char *first = enumeration->values[0].name;
    size_t length = strlen(first);
    for (uint32_t i = 1; i < enumeration->count; i++) {
        const char *name = enumeration->values[i].name;
        size_t same = 0;
        while (same < length && name[same] == first[same])
            same++;
        length = same;
    }
    while (length > 0 && first[length - 1] != '_')
        length--;
    return length;
}

/* ---- The capability profile and one query ---- */

/* The profile's true value: the highest value present at the runtime's version (flags: all bits). */
static int64_t profile_value(const d12_caps_enum *enumeration, d12_caps_version runtime)
{
    bool flags = enumeration->kind == D12_CAPS_ENUM_FLAGS, found = false;
    int64_t result = 0;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *v = &enumeration->values[i];
        if (v->alias || !d12_caps_value_present(v, runtime))
            continue;
        if (flags)
            result |= v->value;
        else if (!found || v->value > result)
            result = v->value;
        found = true;
    }
    return result;
}

/* What the application's own headers define: the highest value present at its version (an in/out request). */
static bool highest_known(const d12_caps_enum *enumeration, d12_caps_version version, int64_t *out)
{
    bool found = false;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *v = &enumeration->values[i];
        if (!v->alias && d12_caps_value_present(v, version) && (!found || v->value > *out)) {
            *out = v->value;
            found = true;
        }
    }
    return found;
}

static int64_t read_field(const query *q, const d12_caps_field *field)
{
    if (field->kind == D12_CAPS_FIELD_FLAGS) {
        uint32_t bits;
        memcpy(&bits, q->data.bytes + field->offset, sizeof(bits));
        return bits;
    }
    int32_t value; /* tiers are C enums: signed, so D3D12_TRI_STATE_UNKNOWN reads -1 */
    memcpy(&value, q->data.bytes + field->offset, sizeof(value));
    return value;
}

static void write_field(query *q, const d12_caps_field *field, int64_t value)
{
    int32_t narrow = (int32_t)value;
    memcpy(q->data.bytes + field->offset, &narrow, sizeof(narrow));
}

/* The newest layout of the feature on the version's line at or before it: what the app's headers declare. */
static const d12_caps_layout *newest_layout(const d12_caps_feature *feature, d12_caps_version version)
{
    const d12_caps_layout *best = NULL;
    for (uint32_t i = 0; i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        uint32_t first = layout->first[version.line];
        if (first != D12_CAPS_NEVER && first <= version.number &&
            (!best || first >= best->first[version.line]))
            best = layout;
    }
    return best;
}

static void on_clamp(void *context, const d12_caps_clamp_report *report)
{
    feature_view *view = context;
    for (uint32_t i = 0; i < view->count; i++)
        if (view->fields[i].field == report->field)
            view->fields[i].clamped = true;
}

/* Fill every input the way an application built against the version would: the feature levels and the
 * highest shader model / root signature version its headers define. */
static void fill_requests(query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++) {
        const d12_caps_field *field = view->fields[i].field;
        int64_t known = 0;
        if (field->kind == D12_CAPS_FIELD_FEATURE_LEVEL) {
            UINT n = 0;
            for (uint32_t k = 0; k < field->enumeration->count && n < MAX_LEVELS; k++)
                if (d12_caps_value_present(&field->enumeration->values[k], q->version))
                    q->requested[n++] = (D3D_FEATURE_LEVEL)field->enumeration->values[k].value;
            q->data.levels.NumFeatureLevels = n;
            q->data.levels.pFeatureLevelsRequested = q->requested;
        } else if (field->kind == D12_CAPS_FIELD_SHADER_MODEL ||
                   field->kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION) {
            highest_known(field->enumeration, q->version, &known);
            write_field(q, field, known);
            view->fields[i].answer = known < view->fields[i].truth ? known : view->fields[i].truth;
        }
    }
}

/* A driver answers MaxSupportedFeatureLevel with the highest requested level it supports. */
static int64_t driver_feature_level(const query *q, int64_t truth)
{
    int64_t best = 0;
    for (UINT i = 0; i < q->data.levels.NumFeatureLevels; i++)
        if (q->requested[i] <= truth && q->requested[i] > best)
            best = q->requested[i];
    return best;
}

static void fill_answers(query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++) {
        field_view *f = &view->fields[i];
        if (!kind_is_clamped(f->field->kind))
            continue;
        if (f->field->kind == D12_CAPS_FIELD_FEATURE_LEVEL)
            f->answer = driver_feature_level(q, f->truth);
        write_field(q, f->field, f->answer);
    }
}

static void read_seen(const query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++)
        if (kind_is_clamped(view->fields[i].field->kind))
            view->fields[i].seen = read_field(q, view->fields[i].field);
}

static const char *status_reason(d12_caps_status status)
{
    switch (status) {
    case D12_CAPS_VERSION_TOO_NEW: return "SDK version newer than the runtime";
    case D12_CAPS_UNKNOWN_FEATURE: return "a feature this runtime does not answer";
    case D12_CAPS_BAD_SIZE: return "no struct size valid at this version";
    case D12_CAPS_BAD_INPUT: return "an input the runtime does not know";
    default: return "";
    }
}

static void init_fields(query *q, feature_view *view)
{
    view->count = view->layout->field_count < MAX_FIELDS ? view->layout->field_count : MAX_FIELDS;
    for (uint32_t i = 0; i < view->count; i++) {
        field_view *f = &view->fields[i];
        f->field = &view->layout->fields[i];
        if (kind_is_clamped(f->field->kind) && f->field->enumeration)
            f->truth = f->answer = profile_value(f->field->enumeration, q->runtime);
    }
}

/* Run one feature through the calls CheckFeatureSupport1 makes, with the profile as the driver. */
void evaluate(query *q, const d12_caps_feature *feature, feature_view *view)
{
    memset(view, 0, sizeof(*view));
    memset(&q->data, 0, sizeof(q->data));
    view->feature = feature;
    view->layout = feature->struct_name ? newest_layout(feature, q->version) : NULL;
    if (!view->layout || view->layout->size > DATA_BYTES) {
        view->status = feature->struct_name ? D12_CAPS_BAD_SIZE : D12_CAPS_UNKNOWN_FEATURE;
        view->reason = feature->struct_name ? "not available" : "not answered by this runtime";
        return;
    }
    view->status = d12_caps_check_query(feature->value, view->layout->size, q->version);
    init_fields(q, view);
    fill_requests(q, view);
    if (view->status == D12_CAPS_OK)
        view->status = d12_caps_check_inputs(q->flavor, feature->value, q->data.bytes, view->layout->size);
    if (view->status != D12_CAPS_OK) {
        view->reason = status_reason(view->status);
        return;
    }
    fill_answers(q, view);
    view->status = d12_caps_clamp(feature->value, q->data.bytes, view->layout->size, q->version, on_clamp, view);
    read_seen(q, view);
}

/* ---- Formatting values ---- */

/* "1_2 (12)" in narrow (short) form, "D3D12_RAYTRACING_TIER_1_2 (12)" in full form. */
static void format_tier(const d12_caps_field *field, int64_t value, d12_caps_version version, bool narrow,
                        char *out, size_t size)
{
    const char *name = d12_caps_value_name(field->enumeration, value, version);
    if (!name) {
        snprintf(out, size, "%" PRId64 " (no name)", value);
        return;
    }
    const char *shown = narrow ? name + common_prefix(field->enumeration) : name;
    char number[24];
    snprintf(number, sizeof(number), "%" PRId64, value);
    if (strcmp(shown, number) == 0)
        snprintf(out, size, "%s", shown);
    else
        snprintf(out, size, "%s (%s)", shown, number);
}

/* "0x3 10_BIT|16_BIT": the hex value, then each set bit's short name (an unnamed bit in hex). */
static void format_flags(const d12_caps_field *field, int64_t value, d12_caps_version version, char *out,
                         size_t size)
{
    size_t prefix = common_prefix(field->enumeration);
    int used = snprintf(out, size, "0x%" PRIx64, (uint64_t)value);
    const char *separator = " ";
    if (value == 0) {
        const char *none = d12_caps_value_name(field->enumeration, 0, version);
        if (none)
            snprintf(out + used, size - (size_t)used, " %s", none + prefix);
        return;
    }
    for (int bit = 0; bit < 32 && (size_t)used < size; bit++) {
        int64_t mask = INT64_C(1) << bit;
        if (!(value & mask))
            continue;
        const char *name = d12_caps_value_name(field->enumeration, mask, version);
        if (name)
            used += snprintf(out + used, size - (size_t)used, "%s%s", separator, name + prefix);
        else
            used += snprintf(out + used, size - (size_t)used, "%s0x%" PRIx64, separator, (uint64_t)mask);
        separator = "|";
    }
    if ((size_t)used >= size) /* too many names for the cell: the count says enough */
        snprintf(out, size, "0x%" PRIx64 " (%d bits)", (uint64_t)value, __builtin_popcountll((uint64_t)value));
}

void format_value(const d12_caps_field *field, int64_t value, d12_caps_version version, bool narrow,
                         char *out, size_t size)
{
    if (field->kind == D12_CAPS_FIELD_FLAGS && narrow)
        snprintf(out, size, "0x%" PRIx64, (uint64_t)value);
    else if (field->kind == D12_CAPS_FIELD_FLAGS)
        format_flags(field, value, version, out, size);
    else
        format_tier(field, value, version, narrow, out, size);
}

