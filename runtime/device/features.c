/* ID3D12Device::CheckFeatureSupport and ID3D12Device17::CheckFeatureSupport1 (checkfeaturesupport1.txt), over
 * libd12caps (rules: docs/clamping.md) and the driver's true capabilities (runtime/driver.h). The driver always
 * answers in the newest layout of the runtime's own SDK version; the caller's layout may be older, so fields
 * travel between the two by name. The runtime keeps using the true values: only the caller's copy is clamped. */
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "d12_formats.h"
#include "d12_messages.h"
#include "drm_v2.h"
#include "device.h"
#include "feature_cache.h"

/* The largest feature struct (D3D12_FEATURE_DATA_SHADERCACHE_ABI_SUPPORT, 544 bytes here) fits. */
#define FEATURE_BUFFER_SIZE 1024

static bool is_input(d12_caps_field_kind kind)
{
    return kind == D12_CAPS_FIELD_INPUT || kind == D12_CAPS_FIELD_INOUT || kind == D12_CAPS_FIELD_SHADER_MODEL ||
           kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION;
}

/* Copy the fields both layouts (of one feature) have, inputs or outputs, from one struct to the other: a walk
 * over the generated field map between the two (d12_caps_layout_map), no name compares. */
static void copy_fields(const d12_caps_layout *to_layout, void *to, const d12_caps_layout *from_layout,
                        const void *from, bool inputs)
{
    const d12_caps_layout_map *map = &to_layout->from[from_layout->index];
    for (uint32_t i = 0; i < map->count; i++) {
        const d12_caps_field_map *field = &map->fields[i];
        bool wanted = inputs ? is_input(field->kind) : field->kind != D12_CAPS_FIELD_INPUT;
        if (wanted)
            memcpy((char *)to + field->to_offset, (const char *)from + field->from_offset, field->size);
    }
}

static int32_t read_i32(const void *data, const d12_caps_field *field)
{
    int32_t value;
    memcpy(&value, (const char *)data + field->offset, sizeof(value));
    return value;
}

static void write_i32(void *data, const d12_caps_field *field, int32_t value)
{
    memcpy((char *)data + field->offset, &value, sizeof(value));
}

/* The in/out answers: the highest shader model / root signature version the driver supports that is not above
 * the caller's, and the highest requested feature level at or below the device's, compared as numbers; none is
 * S_OK with MaxSupportedFeatureLevel 0, as Windows answers (docs/device.md, issue 17 item 5). */
static HRESULT apply_in_out_rules(const d12_caps_layout *layout, void *data, const void *caller_in)
{
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        if (field->kind == D12_CAPS_FIELD_SHADER_MODEL || field->kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION) {
            int32_t asked = read_i32(caller_in, field), supported = read_i32(data, field);
            write_i32(data, field, supported < asked ? supported : asked);
        } else if (field->kind == D12_CAPS_FIELD_FEATURE_LEVEL) {
            D3D12_FEATURE_DATA_FEATURE_LEVELS levels; /* copied: the caller's struct may be unaligned */
            memcpy(&levels, data, sizeof(levels));
            D3D_FEATURE_LEVEL best = 0;
            for (UINT l = 0; l < levels.NumFeatureLevels; l++) {
                D3D_FEATURE_LEVEL level = levels.pFeatureLevelsRequested[l];
                if (level <= levels.MaxSupportedFeatureLevel && level > best)
                    best = level;
            }
            write_i32(data, field, (int32_t)best);
        }
    }
    return S_OK;
}

/* The reference adapter has one node: a NodeIndex input must be 0. */
static bool node_indices_valid(const d12_caps_layout *layout, const void *data)
{
    int32_t node;
    if (layout->node_index_offset == D12_CAPS_NO_FIELD)
        return true;
    memcpy(&node, (const char *)data + layout->node_index_offset, sizeof node);
    return node == 0;
}

struct clamp_context {
    struct d12_device *device;
    bool legacy; /* ID3D12Device::CheckFeatureSupport: report->version is the pinned level */
    bool warned; /* a field was clamped (and a warning emitted): the answer is not cached */
};

static void warn_clamped(void *context, const d12_caps_clamp_report *report)
{
    struct clamp_context *clamp = context;
    clamp->warned = true;
    /* "the debug layer emits a warning identifying the affected field, the requested SDKVersion, and the value
     * it was clamped from and to". A legacy caller requested no SDKVersion: its warning names the entry point it
     * called and the level it is pinned to (issue 8 item 9). */
    if (clamp->legacy)
        d12__msg_checkfeaturesupport_field_clamped(clamp->device->info_queue, report->feature->name,
                                                   report->feature->struct_name, report->field->name,
                                                   report->version.number, (long long)report->before,
                                                   (long long)report->after);
    else
        d12__msg_checkfeaturesupport1_field_clamped(clamp->device->info_queue, report->feature->name,
                                                    report->feature->struct_name, report->field->name,
                                                    report->version.requested, (long long)report->before,
                                                    (long long)report->after);
}

/* The debug-layer error of a size that matches no layout at `version`: a feature that did not exist yet there
 * says so (with the SDK that brought it), otherwise the sizes the struct had by then are listed, so the message
 * never blames the size for what the version decided (issue 17 item 2). Formatted on the error path only. */
static void report_bad_size(struct d12_device *device, const char *method, const d12_caps_feature *feature,
                            UINT size, d12_caps_version version, bool legacy)
{
    char text[128] = "";
    size_t used = 0;
    uint32_t first = D12_CAPS_NEVER;
    for (uint32_t i = 0; i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        uint32_t since = layout->first[version.line];
        if (since != D12_CAPS_NEVER && since < first)
            first = since;
        if (since == D12_CAPS_NEVER || since > version.number || used >= sizeof text)
            continue;
        int n = snprintf(text + used, sizeof text - used, "%s%u", used ? ", " : "", layout->size);
        used = n < 0 ? sizeof text : used + (size_t)n;
    }
    if (!legacy && !d12_caps_feature_present(feature, version)) {
        if (first == D12_CAPS_NEVER)
            snprintf(text, sizeof text, "it is not on the %s line", d12_caps_line_name(version.line));
        else
            snprintf(text, sizeof text, "it came with SDK %u", first);
        d12__msg_checkfeaturesupport1_feature_not_yet(device->info_queue, feature->name, version.requested, text);
        return;
    }
    d12__msg_checkfeaturesupport_mismatched_data_size(device->info_queue, method, feature->name, size,
                                                      feature->struct_name, version.requested,
                                                      used ? text : "none");
}

static HRESULT check_arguments(struct d12_device *device, const char *method, UINT feature, void *data, UINT size,
                               d12_caps_version size_version, bool legacy, const d12_caps_layout **layout)
{
    if (data == NULL) {
        d12__msg_null_pointer_argument(device->info_queue, "ID3D12Device", method, "pFeatureSupportData");
        return E_INVALIDARG;
    }
    const d12_caps_feature *known = d12_caps_find_feature(feature);
    /* The legacy entry point answers as the runtime of its pinned level did, and that runtime returned
     * E_INVALIDARG for a D3D12_FEATURE it did not know (docs/clamping.md section 5). The message is for a feature
     * this runtime has (CheckFeatureSupport1 answers it); any other takes the ordinary path below. */
    UINT own = d12_caps_runtime_version(device->flavor);
    d12_caps_version own_version = {own, own, d12_caps_line_of(own)};
    if (legacy && d12_caps_feature_present(known, own_version) && !d12_caps_feature_present(known, size_version)) {
        d12__msg_checkfeaturesupport_feature_after_pin(device->info_queue, known->name, size_version.number);
        return E_INVALIDARG;
    }
    switch (d12_caps_check_query(feature, size, size_version)) {
    case D12_CAPS_OK:
        break;
    case D12_CAPS_BAD_SIZE:
        report_bad_size(device, method, known, size, size_version, legacy);
        return E_INVALIDARG;
    default:
        d12__msg_checkfeaturesupport_unknown_feature(device->info_queue, method, feature, size_version.requested);
        return E_INVALIDARG;
    }
    *layout = d12_caps_layout_for_size(known, size, size_version);
    if (d12_caps_check_inputs(device->flavor, feature, data, size) != D12_CAPS_OK ||
        !node_indices_valid(*layout, data)) {
        d12__msg_invalid_argument(device->info_queue, "ID3D12Device", method, "pFeatureSupportData",
                                  "an input field holds a value this runtime does not know");
        return E_INVALIDARG;
    }
    return S_OK;
}

/* ---- Format queries (docs/formats.md) ----
 * The runtime answers what is a property of the format (FORMAT_INFO's plane count, from the DXGI_FORMAT table of
 * spec/formats.yaml) and applies the rules that do not depend on the adapter, as the D3D12 runtime does before
 * its driver is asked; the driver answers what the adapter supports (FORMAT_SUPPORT's flags, the quality levels
 * of a sample count), as its pfnGetCaps does for every other feature. */

static bool defined_sample_count(UINT count)
{
    return count == 1 || count == 2 || count == 4 || count == 8 || count == 16 || count == 32;
}

/* The answer the runtime gives without the driver, or false when the driver must be asked. The struct sizes were
 * checked (check_arguments): the caller's struct is the one layout these features have had. */
static bool answer_format_query(struct d12_device *device, const char *method, UINT feature, void *data,
                                HRESULT *hr)
{
    if (feature == D3D12_FEATURE_FORMAT_INFO) {
        D3D12_FEATURE_DATA_FORMAT_INFO info;
        memcpy(&info, data, sizeof info);
        const d12_format_info *format = d12_format_find((UINT)info.Format);
        if (format == NULL || format->planes == 0) { /* no DXGI format, or none D3D12 has (R1_UNORM) */
            d12__msg_invalid_argument(device->info_queue, "ID3D12Device", method, "pFeatureSupportData",
                                      "Format is not a format of D3D12");
            *hr = E_INVALIDARG;
            return true;
        }
        info.PlaneCount = format->planes;
        memcpy(data, &info, sizeof info);
        *hr = S_OK;
        return true;
    }
    if (feature == D3D12_FEATURE_FORMAT_SUPPORT) {
        D3D12_FEATURE_DATA_FORMAT_SUPPORT support;
        memcpy(&support, data, sizeof support);
        if (d12_format_find((UINT)support.Format) != NULL)
            return false;
        support.Support1 = D3D12_FORMAT_SUPPORT1_NONE; /* no DXGI format: the device does not support it */
        support.Support2 = D3D12_FORMAT_SUPPORT2_NONE;
        memcpy(data, &support, sizeof support);
        *hr = E_FAIL;
        return true;
    }
    if (feature == D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS) {
        D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS levels; /* Flags is an input: left as the caller set it */
        memcpy(&levels, data, sizeof levels);
        if (levels.SampleCount == 0) {
            *hr = E_FAIL;
            levels.NumQualityLevels = 0;
        } else if (levels.SampleCount == 1) {
            *hr = S_OK; /* one sample is one quality level, for every format, UNKNOWN included */
            levels.NumQualityLevels = 1;
        } else if (!defined_sample_count(levels.SampleCount) || levels.Format == DXGI_FORMAT_UNKNOWN ||
                   d12_format_find((UINT)levels.Format) == NULL) {
            *hr = S_OK;
            levels.NumQualityLevels = 0;
        } else {
            return false;
        }
        memcpy(data, &levels, sizeof levels);
        return true;
    }
    return false;
}

/* The driver answered FORMAT_SUPPORT: a format it supports in no way is E_FAIL for the application. */
static HRESULT format_support_result(UINT feature, const void *data, HRESULT hr)
{
    if (feature != D3D12_FEATURE_FORMAT_SUPPORT || FAILED(hr))
        return hr;
    D3D12_FEATURE_DATA_FORMAT_SUPPORT support;
    memcpy(&support, data, sizeof support);
    return support.Support1 == D3D12_FORMAT_SUPPORT1_NONE && support.Support2 == D3D12_FORMAT_SUPPORT2_NONE ? E_FAIL
                                                                                                           : hr;
}

/* Whether the answer in the caller's `layout` is a function of the key alone (feature_cache.h): no field is an
 * input (d12__feature_cacheable), and every field is one the driver's layout has with its size, so copy_fields
 * wrote each of them. */
static bool answer_is_fixed(const d12_caps_layout *layout, const d12_caps_layout *newest)
{
    return layout->from[newest->index].count == layout->field_count;
}

/* issue 31: a d12rt feature, answered by the runtime from the driver's word (no SDK clamping: it is no tier). */
static HRESULT shader_execution(struct d12_device *device, const char *method, void *data, UINT size)
{
    if (!data || size != sizeof(D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION)) {
        d12__msg_d12rt_shader_execution_feature_data_invalid(
            device->info_queue, method, size, (unsigned)sizeof(D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION));
        return E_INVALIDARG;
    }
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION answer = {
        d12__driver_executes_shaders(d12__driver_device_adapter(device->driver)) ? TRUE : FALSE};
    memcpy(data, &answer, sizeof answer);
    return S_OK;
}

/* Ask the driver in the newest layout, answer in the caller's, then clamp the caller's copy. An answer that
 * cannot change comes from the device's cache (feature_cache.h), after the same argument checks. */
static HRESULT query(struct d12_device *device, const char *method, UINT feature, void *data, UINT size,
                     d12_caps_version version, bool legacy)
{
    if (d12__device_removed(device) != S_OK)
        return DXGI_ERROR_DEVICE_REMOVED;
    if (feature == (UINT)D3D12_FEATURE_DRIVER_REPORTED_MESSAGES) /* v2: answered by the runtime (drm_v2.h) */
        return d12__drm_feature_data(device, method, data, size);
    if (feature == (UINT)D3D12_FEATURE_D12RT_SHADER_EXECUTION)
        return shader_execution(device, method, data, size);
    HRESULT cached;
    if (data != NULL && d12__feature_cache_lookup(&device->feature_cache, feature, size, version, legacy, data,
                                                  &cached))
        return cached;
    const d12_caps_layout *layout;
    HRESULT hr = check_arguments(device, method, feature, data, size, version, legacy, &layout);
    if (FAILED(hr))
        return hr;
    if (answer_format_query(device, method, feature, data, &hr))
        return hr;
    d12_driver_adapter *adapter = d12__driver_device_adapter(device->driver);
    UINT own = d12_caps_runtime_version(device->flavor);
    d12_caps_version own_version = {own, own, d12_caps_line_of(own)};
    UINT newest_size = d12__driver_feature_data_size(feature, device->flavor);
    const d12_caps_layout *newest = d12_caps_layout_for_size(d12_caps_find_feature(feature), newest_size, own_version);
    alignas(16) unsigned char truth[FEATURE_BUFFER_SIZE];
    if (newest == NULL || newest_size > sizeof(truth))
        return E_INVALIDARG; /* not a feature of the runtime's own version (preview-only, on a retail runtime) */
    memset(truth, 0, newest_size);
    copy_fields(newest, truth, layout, data, true);
    if (FAILED(hr = d12__driver_get_feature_data(adapter, (D3D12_FEATURE)feature, truth, newest_size)))
        return hr;
    alignas(16) unsigned char caller_in[FEATURE_BUFFER_SIZE];
    memcpy(caller_in, data, size);
    copy_fields(layout, data, newest, truth, false);
    hr = format_support_result(feature, data, apply_in_out_rules(layout, data, caller_in));
    struct clamp_context context = {device, legacy, false};
    d12_caps_clamp(feature, data, size, version, warn_clamped, &context);
    if (!context.warned && answer_is_fixed(layout, newest))
        d12__feature_cache_store(&device->feature_cache, feature, layout, size, version, legacy, data, hr);
    return hr;
}

HRESULT d12_device_CheckFeatureSupport1(struct d12_device *self, D3D12_FEATURE Feature, void *pFeatureSupportData,
                                        UINT FeatureSupportDataSize, UINT SDKVersion)
{
    /* A cached answer is keyed by the requested version (feature_cache.h), and only a version that resolved was
     * ever stored: looked up before resolving. A removed device takes the full path (which surfaces it). */
    HRESULT cached;
    d12_caps_version requested = {SDKVersion, SDKVersion, D12_CAPS_LINE_RETAIL};
    if (pFeatureSupportData != NULL && !d12__device_is_removed(self) &&
        d12__feature_cache_lookup(&self->feature_cache, (UINT)Feature, FeatureSupportDataSize, requested, false,
                                  pFeatureSupportData, &cached))
        return cached;
    d12_caps_version version;
    if (d12_caps_resolve_version(self->flavor, SDKVersion, &version) != D12_CAPS_OK) {
        /* "A version greater than the runtime's version causes CheckFeatureSupport1 to return E_INVALIDARG
         * without querying capabilities or modifying pFeatureSupportData. The debug layer reports an error
         * identifying the unsupported SDK version." */
        d12__msg_checkfeaturesupport1_sdk_version_too_new(self->info_queue, SDKVersion,
                                                           self->flavor == D12_CAPS_FLAVOR_PREVIEW ? "preview" : "retail",
                                                           d12_caps_runtime_version(self->flavor));
        return E_INVALIDARG;
    }
    return query(self, "CheckFeatureSupport1", Feature, pFeatureSupportData, FeatureSupportDataSize, version, false);
}

HRESULT d12_device_CheckFeatureSupport(struct d12_device *self, D3D12_FEATURE Feature, void *pFeatureSupportData,
                                       UINT FeatureSupportDataSize)
{
    d12_caps_version pinned = d12_caps_legacy_version(self->flavor);
    /* "The deprecated CheckFeatureSupport entry point also emits a warning" — once per device (docs/device.md). */
    if (!atomic_load_explicit(&self->legacy_query_warned, memory_order_relaxed) &&
        !atomic_exchange(&self->legacy_query_warned, true))
        d12__msg_checkfeaturesupport_deprecated(self->info_queue, pinned.number);
    /* Pinned for sizes as for values: a feature or struct size that did not exist at the pinned level is
     * E_INVALIDARG, the answer of the runtime of that level (docs/clamping.md section 5, issue 8 item 3). */
    return query(self, "CheckFeatureSupport", Feature, pFeatureSupportData, FeatureSupportDataSize, pinned, true);
}
