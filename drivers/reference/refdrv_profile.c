/* The reference driver's capability profile (refdrv_profile.h): `implemented` (zeros, then the claims of
 * refdrv_claims.c) or the `newest-tiers` model from libd12caps' tables, overrides from a text file. The tables are
 * the same ones the runtime clamps with, so a value is by construction one the runtime knows at its own version. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfgfile.h"
#include "d12_formats.h"
#include "refdrv_profile.h"

/* `newest-tiers`: plausible documented integers (D3D12 limits and what a software adapter such as WARP reports); an
 * integer field not listed here is 0. */
typedef struct integer_default {
    const char *feature;
    const char *field;
    int64_t value;
} integer_default;

static const integer_default k_integer_defaults[] = {
    {"D3D12_FEATURE_D3D12_OPTIONS", "MaxGPUVirtualAddressBitsPerResource", 40},
    {"D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT", "MaxGPUVirtualAddressBitsPerResource", 40},
    {"D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT", "MaxGPUVirtualAddressBitsPerProcess", 47},
    {"D3D12_FEATURE_D3D12_OPTIONS1", "WaveLaneCountMin", 4},
    {"D3D12_FEATURE_D3D12_OPTIONS1", "WaveLaneCountMax", 128},
    {"D3D12_FEATURE_D3D12_OPTIONS1", "TotalLaneCount", 4096},
    {"D3D12_FEATURE_D3D12_OPTIONS6", "ShadingRateImageTileSize", 16},
    {"D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_TYPE_COUNT", "Count", 1},
    {"D3D12_FEATURE_D3D12_OPTIONS19", "SupportedSampleCountsWithNoOutputs", 0x1F},
    {"D3D12_FEATURE_D3D12_OPTIONS19", "MaxSamplerDescriptorHeapSize", 2048},
    {"D3D12_FEATURE_D3D12_OPTIONS19", "MaxSamplerDescriptorHeapSizeWithStaticSamplers", 2048},
    {"D3D12_FEATURE_D3D12_OPTIONS19", "MaxViewDescriptorHeapSize", 1000000},
    {"D3D12_FEATURE_HARDWARE_SCHEDULING_QUEUE_GROUPINGS", "ComputeQueuesPer3DQueue", 1},
    {"D3D12_FEATURE_SHADER_CACHE_ABI_SUPPORT", "MinimumABISupportVersion", 1},
    {"D3D12_FEATURE_SHADER_CACHE_ABI_SUPPORT", "MaximumABISupportVersion", 1},
    {"D3D12_FEATURE_D3D12_OPTIONS22", "Max1DDispatchSize", 65535},
    {"D3D12_FEATURE_D3D12_OPTIONS22", "Max1DDispatchMeshSize", 65535},
    {"D3D12_FEATURE_D3D12_OPTIONS_PREVIEW", "MaxGroupSharedMemoryPerGroupCS", 32768},
    {"D3D12_FEATURE_D3D12_OPTIONS_PREVIEW", "MaxGroupSharedMemoryPerGroupAS", 32768},
    {"D3D12_FEATURE_D3D12_OPTIONS_PREVIEW", "MaxGroupSharedMemoryPerGroupMS", 32768},
};

/* The three format features are answered per format, from the DXGI_FORMAT table of spec/formats.yaml (what WARP
 * reports; docs/formats.md), not from the profile: a profile line cannot set them (settable()). */
static bool is_format_feature(UINT feature)
{
    return feature == D3D12_FEATURE_FORMAT_SUPPORT || feature == D3D12_FEATURE_FORMAT_INFO ||
           feature == D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS;
}

/* ---- Defaults ---- */

static const d12_caps_layout *newest_layout(const d12_caps_feature *feature, d12_caps_version version)
{
    const d12_caps_layout *best = NULL;
    if (!feature->struct_name)
        return NULL;
    for (uint32_t i = 0; i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        if (layout->first[version.line] <= version.number && (!best || layout->size > best->size))
            best = layout;
    }
    return best;
}

static void write_field(unsigned char *bytes, const d12_caps_field *field, int64_t value)
{
    /* Little-endian: the low `size` bytes of the value are the field. */
    memcpy(bytes + field->offset, &value, field->size <= sizeof value ? field->size : sizeof value);
}

/* Highest present value (tiers, shader models, ...) or every present bit (flags); aliases add nothing. */
static int64_t highest_present(const d12_caps_enum *enumeration, bool flags, d12_caps_version version)
{
    int64_t result = 0;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *value = &enumeration->values[i];
        if (value->alias || !d12_caps_value_present(value, version))
            continue;
        result = flags ? (result | value->value) : (value->value > result ? value->value : result);
    }
    return result;
}

static int64_t integer_default_of(const d12_caps_feature *feature, const d12_caps_field *field)
{
    for (size_t i = 0; i < sizeof k_integer_defaults / sizeof k_integer_defaults[0]; i++) {
        if (!strcmp(k_integer_defaults[i].feature, feature->name) && !strcmp(k_integer_defaults[i].field, field->name))
            return k_integer_defaults[i].value;
    }
    return 0;
}

/* The default of one field; false when the profile leaves it alone (inputs, opaque data). */
static bool default_of(const d12_caps_feature *feature, const d12_caps_field *field, d12_caps_version version,
                       int64_t *out)
{
    switch (field->kind) {
    case D12_CAPS_FIELD_TIER:
    case D12_CAPS_FIELD_SHADER_MODEL:
    case D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION:
    case D12_CAPS_FIELD_FEATURE_LEVEL:
        *out = highest_present(field->enumeration, false, version);
        return true;
    case D12_CAPS_FIELD_FLAGS:
        *out = highest_present(field->enumeration, true, version);
        return true;
    case D12_CAPS_FIELD_BOOL:
        *out = TRUE;
        return true;
    case D12_CAPS_FIELD_INTEGER:
        *out = integer_default_of(feature, field);
        return true;
    default:
        return false;
    }
}

/* One feature's true values: the model's defaults for `newest-tiers`, all zeros (nothing claimed) otherwise. */
static HRESULT build_entry(d12__refdrv_feature_data *entry, const d12_caps_feature *feature,
                           d12_caps_version version, bool newest_tiers)
{
    entry->feature = feature;
    entry->layout = newest_layout(feature, version);
    if (!entry->layout)
        return S_OK;
    entry->bytes = calloc(1, entry->layout->size);
    if (!entry->bytes)
        return E_OUTOFMEMORY;
    for (uint32_t i = 0; newest_tiers && i < entry->layout->field_count; i++) {
        int64_t value;
        if (default_of(feature, &entry->layout->fields[i], version, &value))
            write_field(entry->bytes, &entry->layout->fields[i], value);
    }
    return S_OK;
}

static HRESULT build_defaults(d12__refdrv_profile *profile, d12_caps_flavor flavor, bool newest_tiers)
{
    const d12_caps_feature *features = d12_caps_features(&profile->count);
    profile->flavor = flavor;
    profile->newest_tiers = newest_tiers;
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &profile->version);
    profile->entries = calloc(profile->count, sizeof *profile->entries);
    if (!profile->entries)
        return E_OUTOFMEMORY;
    for (uint32_t i = 0; i < profile->count; i++) {
        if (FAILED(build_entry(&profile->entries[i], &features[i], profile->version, newest_tiers)))
            return E_OUTOFMEMORY;
    }
    return S_OK;
}

void d12__refdrv_profile_free(d12__refdrv_profile *profile)
{
    for (uint32_t i = 0; profile->entries && i < profile->count; i++)
        free(profile->entries[i].bytes);
    free(profile->entries);
    profile->entries = NULL;
    profile->count = 0;
}

/* ---- Overrides ---- */

typedef struct parser {
    const d12__refdrv_profile *profile;
    const char *path;
    unsigned line;
    FILE *errors;
    unsigned error_count;
    bool skip_absent; /* the built-in claims: a feature or field the flavor's version lacks is skipped, not an error */
} parser;

/* One `file:line: message` line; always false, so a check can `return complain(...)`. */
__attribute__((format(printf, 2, 3))) static bool complain(parser *p, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(p->errors, "%s:%u: ", p->path, p->line);
    vfprintf(p->errors, format, args);
    fputc('\n', p->errors);
    va_end(args);
    p->error_count++;
    return false;
}

static char *trim(char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t length = strlen(text);
    while (length && isspace((unsigned char)text[length - 1]))
        text[--length] = '\0';
    return text;
}

static d12__refdrv_feature_data *find_entry(const d12__refdrv_profile *profile, const char *name)
{
    for (uint32_t i = 0; i < profile->count; i++) {
        if (!strcmp(profile->entries[i].feature->name, name))
            return &profile->entries[i];
    }
    return NULL;
}

static const d12_caps_field *find_field(const d12_caps_layout *layout, const char *name)
{
    for (uint32_t i = 0; i < layout->field_count; i++) {
        if (!strcmp(layout->fields[i].name, name))
            return &layout->fields[i];
    }
    return NULL;
}

static bool parse_number(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 0);
    if (end == text || *end || errno)
        return false;
    *out = value;
    return true;
}

static bool parse_name(const d12_caps_field *field, const char *text, int64_t *out)
{
    if (field->kind == D12_CAPS_FIELD_BOOL) {
        *out = !strcmp(text, "TRUE");
        return !strcmp(text, "TRUE") || !strcmp(text, "FALSE");
    }
    for (uint32_t i = 0; field->enumeration && i < field->enumeration->count; i++) {
        if (!strcmp(field->enumeration->values[i].name, text)) {
            *out = field->enumeration->values[i].value;
            return true;
        }
    }
    return false;
}

static const char *value_kind(const d12_caps_field *field)
{
    if (field->enumeration)
        return field->enumeration->name;
    return field->kind == D12_CAPS_FIELD_BOOL ? "a BOOL: TRUE, FALSE or a number" : "an integer";
}

/* One term: a number, or a name of the field's enum (TRUE/FALSE for BOOLs). */
static bool parse_term(parser *p, const char *what, const d12_caps_field *field, char *text, int64_t *out)
{
    text = trim(text);
    if (isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '+') {
        if (parse_number(text, out))
            return true;
        return complain(p, "bad number '%s' for %s", text, what);
    }
    if (parse_name(field, text, out))
        return true;
    return complain(p, "unknown value '%s' for %s (%s)", text, what, value_kind(field));
}

static bool parse_value(parser *p, const char *what, const d12_caps_field *field, char *text, int64_t *out)
{
    if (field->kind != D12_CAPS_FIELD_FLAGS)
        return parse_term(p, what, field, text, out);
    *out = 0; /* flags: A | B | 0x4 */
    for (char *term = text, *bar; term; term = bar ? bar + 1 : NULL) {
        int64_t bits;
        bar = strchr(term, '|');
        if (bar)
            *bar = '\0';
        if (!parse_term(p, what, field, term, &bits))
            return false;
        *out |= bits;
    }
    return true;
}

static bool fits(const d12_caps_field *field, int64_t value)
{
    if (field->size == 1)
        return value >= 0 && value <= UINT8_MAX;
    if (field->size == 4)
        return value >= INT32_MIN && value <= (int64_t)UINT32_MAX;
    return true;
}

static bool settable(parser *p, const char *what, const d12_caps_feature *feature, const d12_caps_field *field)
{
    if (is_format_feature(feature->value))
        return complain(p, "%s is answered per format from spec/formats.yaml, not from a profile", what);
    if (field->kind == D12_CAPS_FIELD_INPUT || field->kind == D12_CAPS_FIELD_INOUT)
        return complain(p, "%s is an input of the query; a profile sets capabilities", what);
    if (field->kind == D12_CAPS_FIELD_OPAQUE || field->size > sizeof(int64_t))
        return complain(p, "%s is opaque data; a profile sets tiers, flags, BOOLs and integers", what);
    return true;
}

/* `FEATURE.Field = VALUE`, already stripped of its comment and trimmed. */
static void apply_line(parser *p, char *text)
{
    char *equals = strchr(text, '='), *dot = strchr(text, '.');
    if (!equals || !dot || dot > equals) {
        complain(p, "expected FEATURE.Field = VALUE, got '%s'", text);
        return;
    }
    *equals = *dot = '\0';
    char *feature_name = trim(text), *field_name = trim(dot + 1), *value_text = trim(equals + 1);
    if (!*feature_name || !*field_name || !*value_text) {
        complain(p, "expected FEATURE.Field = VALUE");
        return;
    }
    d12__refdrv_feature_data *entry = find_entry(p->profile, feature_name);
    if (entry && p->skip_absent && (!entry->layout || !find_field(entry->layout, field_name)))
        return;
    if (!entry || !entry->layout) {
        if (entry)
            complain(p, "%s has no data struct at the runtime's SDK version", feature_name);
        else
            complain(p, "unknown feature '%s'", feature_name);
        return;
    }
    const d12_caps_field *field = find_field(entry->layout, field_name);
    if (!field) {
        complain(p, "unknown field '%s' of %s", field_name, feature_name);
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "%s.%s", feature_name, field_name);
    int64_t value;
    if (!settable(p, what, entry->feature, field) || !parse_value(p, what, field, value_text, &value))
        return;
    if (!fits(field, value)) {
        complain(p, "value '%s' does not fit %s", value_text, what);
        return;
    }
    write_field(entry->bytes, field, value);
}

static HRESULT apply_file(d12__refdrv_profile *profile, const char *path, FILE *errors)
{
    /* The path comes from the environment and may name a FIFO, /dev/zero or /dev/urandom: read it as the registry
     * reads a hive (cfgfile.h: no blocking open, a regular file only, at most 1 MiB), then parse the bytes. */
    unsigned char *bytes;
    size_t size;
    char why[160];
    d12_cfgfile_status status = d12_cfgfile_read(path, D12_CFGFILE_MAX_PROFILE_BYTES, D12_CFGFILE_MAX_PROFILE_TEXT,
                                                 &bytes, &size, why, sizeof why);
    if (status != D12_CFGFILE_OK) {
        fprintf(errors, "%s: cannot read the reference driver profile: %s\n", path,
                status == D12_CFGFILE_ABSENT ? strerror(ENOENT) : status == D12_CFGFILE_NO_MEMORY ? strerror(ENOMEM)
                                                                                                   : why);
        return status == D12_CFGFILE_NO_MEMORY ? E_OUTOFMEMORY : E_INVALIDARG;
    }
    FILE *file = size ? fmemopen(bytes, size, "r") : NULL;
    if (!file) {
        free(bytes);
        if (size)
            fprintf(errors, "%s: cannot read the reference driver profile: %s\n", path, strerror(errno));
        return size ? E_OUTOFMEMORY : S_OK; /* an empty profile changes nothing */
    }
    parser p = {profile, path, 0, errors, 0, false};
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, file) >= 0) {
        p.line++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *text = trim(line);
        if (*text)
            apply_line(&p, text);
    }
    free(line);
    fclose(file);
    free(bytes);
    return p.error_count ? E_INVALIDARG : S_OK;
}

/* The claims of `implemented`, through the same parser as a file: a claim naming a field the spec lost is reported
 * and fails the adapter (tests/driver: refdrv.implemented_retail, _preview), never silently dropped. */
static HRESULT apply_claims(d12__refdrv_profile *profile, FILE *errors)
{
    parser p = {profile, "<built-in profile 'implemented'>", 0, errors, 0, true};
    char line[512];
    for (const char *const *claim = d12__refdrv_implemented_claims; *claim; claim++) {
        p.line++;
        snprintf(line, sizeof line, "%s", *claim);
        apply_line(&p, trim(line));
    }
    return p.error_count ? E_INVALIDARG : S_OK;
}

HRESULT d12__refdrv_profile_build(d12__refdrv_profile *profile, d12_caps_flavor flavor, const char *path,
                                  FILE *errors)
{
    bool newest_tiers = path && !strcmp(path, D12_REFDRV_PROFILE_NEWEST_TIERS);
    memset(profile, 0, sizeof *profile);
    HRESULT hr = build_defaults(profile, flavor, newest_tiers);
    if (SUCCEEDED(hr) && !newest_tiers)
        hr = apply_claims(profile, errors);
    if (SUCCEEDED(hr) && path && !newest_tiers)
        hr = apply_file(profile, path, errors);
    if (FAILED(hr))
        d12__refdrv_profile_free(profile);
    return hr;
}

static HRESULT load_for_flavor(d12__refdrv_profile *profile, const char *path, FILE *errors)
{
    d12_caps_flavor flavor;
    if (!d12_caps_flavor_from_environment(&flavor)) {
        fprintf(errors, "d12rt reference driver: D12RT_FLAVOR=%s: expected retail or preview\n", getenv("D12RT_FLAVOR"));
        return E_INVALIDARG;
    }
    return d12__refdrv_profile_build(profile, flavor, path, errors);
}

HRESULT d12__refdrv_profile_load(d12__refdrv_profile *profile, FILE *errors)
{
    const char *path = getenv("D12RT_REFDRV_PROFILE");
    return load_for_flavor(profile, path && *path ? path : NULL, errors);
}

HRESULT d12__refdrv_profile_load_implemented(d12__refdrv_profile *profile, FILE *errors)
{
    return load_for_flavor(profile, NULL, errors);
}

/* ---- Queries ---- */

/* What `implemented` leaves of a format's support (issue 27 item 1: format answers "agree with each other and with
 * what can be created"). Buffers exist; textures, typed buffer views and render targets do not: UNKNOWN is a buffer
 * format, R16_UINT and R32_UINT index formats (IASetIndexBuffer takes them and both drivers' draws read the
 * indices), nothing else. No multisampling without render targets. */
static void implemented_format_support(DXGI_FORMAT format, D3D12_FORMAT_SUPPORT1 *support1,
                                       D3D12_FORMAT_SUPPORT2 *support2)
{
    D3D12_FORMAT_SUPPORT1 usable = D3D12_FORMAT_SUPPORT1_NONE;
    if (format == DXGI_FORMAT_UNKNOWN)
        usable = D3D12_FORMAT_SUPPORT1_BUFFER;
    else if (format == DXGI_FORMAT_R16_UINT || format == DXGI_FORMAT_R32_UINT)
        usable = D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER;
    *support1 = (D3D12_FORMAT_SUPPORT1)(*support1 & usable);
    *support2 = D3D12_FORMAT_SUPPORT2_NONE;
}

static HRESULT fill_format_query(const d12__refdrv_profile *profile, UINT feature, void *data, UINT size)
{
    if (feature == D3D12_FEATURE_FORMAT_SUPPORT && size == sizeof(D3D12_FEATURE_DATA_FORMAT_SUPPORT)) {
        D3D12_FEATURE_DATA_FORMAT_SUPPORT support;
        memcpy(&support, data, sizeof support);
        const d12_format_info *format = d12_format_find((UINT)support.Format);
        support.Support1 = format ? (D3D12_FORMAT_SUPPORT1)format->support1 : D3D12_FORMAT_SUPPORT1_NONE;
        support.Support2 = format ? (D3D12_FORMAT_SUPPORT2)format->support2 : D3D12_FORMAT_SUPPORT2_NONE;
        if (!profile->newest_tiers)
            implemented_format_support(support.Format, &support.Support1, &support.Support2);
        memcpy(data, &support, sizeof support);
        return S_OK;
    }
    if (feature == D3D12_FEATURE_FORMAT_INFO && size == sizeof(D3D12_FEATURE_DATA_FORMAT_INFO)) {
        D3D12_FEATURE_DATA_FORMAT_INFO info;
        memcpy(&info, data, sizeof info);
        const d12_format_info *format = d12_format_find((UINT)info.Format);
        if (!format || !format->planes)
            return E_INVALIDARG;
        info.PlaneCount = format->planes;
        memcpy(data, &info, sizeof info);
        return S_OK;
    }
    if (feature == D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS &&
        size == sizeof(D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS)) {
        D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS levels;
        memcpy(&levels, data, sizeof levels);
        const d12_format_info *format = d12_format_find((UINT)levels.Format);
        if (levels.SampleCount == 1)
            levels.NumQualityLevels = 1;
        else /* `implemented`: no format is a multisampled render target */
            levels.NumQualityLevels = profile->newest_tiers ? d12_format_adapter_quality_levels(format, levels.SampleCount) : 0;
        memcpy(data, &levels, sizeof levels);
        return S_OK;
    }
    return E_INVALIDARG;
}

/* COMMAND_QUEUE_PRIORITY answers for its inputs: under `implemented`, a priority is supported for a type exactly
 * when CreateCommandQueue accepts the pair (runtime/gpu/queue.c: direct, compute and copy queues; NORMAL, HIGH and
 * GLOBAL_REALTIME). The model answers TRUE for every pair, as its BOOL default. */
static bool fill_queue_priority(const d12__refdrv_profile *profile, UINT feature, void *data, UINT size)
{
    if (profile->newest_tiers || feature != D3D12_FEATURE_COMMAND_QUEUE_PRIORITY ||
        size != sizeof(D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY))
        return false;
    D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY query;
    memcpy(&query, data, sizeof query);
    bool queue_type = query.CommandListType == D3D12_COMMAND_LIST_TYPE_DIRECT ||
                      query.CommandListType == D3D12_COMMAND_LIST_TYPE_COMPUTE ||
                      query.CommandListType == D3D12_COMMAND_LIST_TYPE_COPY;
    bool priority = query.Priority == D3D12_COMMAND_QUEUE_PRIORITY_NORMAL ||
                    query.Priority == D3D12_COMMAND_QUEUE_PRIORITY_HIGH ||
                    query.Priority == D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME;
    query.PriorityForTypeIsSupported = queue_type && priority;
    memcpy(data, &query, sizeof query);
    return true;
}

HRESULT d12__refdrv_profile_fill(const d12__refdrv_profile *profile, UINT feature, void *data, UINT size)
{
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    if (!found || !data)
        return E_INVALIDARG;
    if (is_format_feature(feature))
        return fill_format_query(profile, feature, data, size);
    if (fill_queue_priority(profile, feature, data, size))
        return S_OK;
    const d12__refdrv_feature_data *entry = &profile->entries[found - features];
    /* Only sizes the driver itself knows: a layout newer than its profile's would have fields it cannot fill. */
    const d12_caps_layout *layout = d12_caps_layout_for_size(found, size, profile->version);
    if (!entry->layout || !layout || layout->size > entry->layout->size)
        return E_INVALIDARG;
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        const d12_caps_field *source = find_field(entry->layout, field->name);
        if (field->kind == D12_CAPS_FIELD_INPUT || field->kind == D12_CAPS_FIELD_INOUT || !source ||
            source->size != field->size)
            continue;
        memcpy((unsigned char *)data + field->offset, entry->bytes + source->offset, field->size);
    }
    return S_OK;
}
