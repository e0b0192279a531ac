/* libd12caps: SDK-version capability clamping for CheckFeatureSupport1 (checkfeaturesupport1.txt).
 *
 * "When an application passes the Agility SDK version it was built against, the runtime clamps tiered
 * capability values it reports to only those that existed at that SDK version, so an application never sees
 * capability values newer than its SDK."
 *
 * The tables (every SDK version, every capability value's history, every feature struct layout) are
 * generated from spec/ into generated/caps/d12caps_tables.c; the rules are hand-written in
 * runtime/caps/d12caps.c. Nothing here allocates, locks or formats text; the clamp callback runs only for a
 * field whose value actually changed. docs/clamping.md holds the decisions the spec leaves open.
 */
#ifndef D12CAPS_H
#define D12CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "d12caps_spec.h" /* generated: SDK version macros and what the installed headers lack */

#ifdef __cplusplus
extern "C" {
#endif

/* Which runtime answers the query. A retail runtime remaps exactly its preview version to its retail one. */
typedef enum d12_caps_flavor {
    D12_CAPS_FLAVOR_RETAIL = 0,
    D12_CAPS_FLAVOR_PREVIEW = 1,
} d12_caps_flavor;

/* The two lines of SDK version numbers. A number below D12_CAPS_PREVIEW_FIRST is a retail number. */
typedef enum d12_caps_line {
    D12_CAPS_LINE_RETAIL = 0,
    D12_CAPS_LINE_PREVIEW = 1,
} d12_caps_line;

typedef enum d12_caps_status {
    D12_CAPS_OK = 0,
    D12_CAPS_VERSION_TOO_NEW,  /* requested SDK version above the runtime's: E_INVALIDARG, data untouched */
    D12_CAPS_UNKNOWN_FEATURE,  /* no such D3D12_FEATURE, or one this runtime does not answer: E_INVALIDARG */
    D12_CAPS_BAD_SIZE,         /* a size the struct never had up to the requested version: E_INVALIDARG */
    D12_CAPS_BAD_INPUT,        /* an input value the runtime does not know (e.g. a shader model): E_INVALIDARG */
} d12_caps_status;

/* A requested SDK version after resolution: the number that drives clamping and the line it belongs to. */
typedef struct d12_caps_version {
    UINT requested; /* what the caller passed */
    UINT number;    /* after the retail runtime's preview remap */
    d12_caps_line line;
} d12_caps_version;

/* Kinds of enum and of struct field, as in spec/enums.yaml and spec/features.yaml. */
typedef enum d12_caps_enum_kind {
    D12_CAPS_ENUM_FEATURE,
    D12_CAPS_ENUM_TIER,
    D12_CAPS_ENUM_FLAGS,
    D12_CAPS_ENUM_SHADER_MODEL,
    D12_CAPS_ENUM_ROOT_SIGNATURE_VERSION,
    D12_CAPS_ENUM_FEATURE_LEVEL,
} d12_caps_enum_kind;

typedef enum d12_caps_field_kind {
    D12_CAPS_FIELD_TIER,
    D12_CAPS_FIELD_FLAGS,
    D12_CAPS_FIELD_SHADER_MODEL,
    D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION,
    D12_CAPS_FIELD_FEATURE_LEVEL,
    D12_CAPS_FIELD_BOOL,
    D12_CAPS_FIELD_INTEGER,
    D12_CAPS_FIELD_INPUT,
    D12_CAPS_FIELD_INOUT,
    D12_CAPS_FIELD_OPAQUE,
} d12_caps_field_kind;

/* Version numbers meaning "never on this line" (first) and "still present" (stop). */
#define D12_CAPS_NEVER UINT32_MAX
#define D12_CAPS_FOREVER UINT32_MAX

/* One value of a capability enum: present on line L for versions first[L] <= v < stop[L]. */
typedef struct d12_caps_enum_value {
    const char *name;
    int64_t value;
    uint32_t first[2];
    uint32_t stop[2];
    bool alias;      /* a second name for the value of an earlier entry (ROOT_SIGNATURE_VERSION_1_0) */
    const char *tag; /* the first DirectX-Headers tag that declared it */
} d12_caps_enum_value;

typedef struct d12_caps_enum {
    const char *name;
    d12_caps_enum_kind kind;
    const d12_caps_enum_value *values;
    uint32_t count;
} d12_caps_enum;

typedef struct d12_caps_field {
    const char *name;
    uint32_t offset;
    uint32_t size;
    d12_caps_field_kind kind;
    const d12_caps_enum *enumeration; /* the values of a clamped kind; NULL otherwise */
} d12_caps_field;

/* The generated field maps (perf, issue 11): one field `to` and another layout of its feature share, by offset in
 * each, so converting a struct between two layouts is a walk over a table (no name compares). */
typedef struct d12_caps_field_map {
    uint32_t to_offset, from_offset, size;
    d12_caps_field_kind kind; /* the field's kind in `to` */
} d12_caps_field_map;

typedef struct d12_caps_layout_map {
    const d12_caps_field_map *fields;
    uint32_t count;
} d12_caps_layout_map;

#define D12_CAPS_NO_FIELD UINT32_MAX

/* One layout of a feature's data struct, available on line L from SDK version first[L] on. */
typedef struct d12_caps_layout {
    uint32_t first[2];
    uint32_t size;
    const d12_caps_field *fields;
    uint32_t field_count;
    const d12_caps_layout_map *from; /* [k]: this layout's fields that the feature's layouts[k] has too */
    uint32_t index;                  /* this layout's index in its feature's layouts */
    uint32_t node_index_offset;      /* the NodeIndex input's offset, or D12_CAPS_NO_FIELD */
} d12_caps_layout;

typedef struct d12_caps_feature {
    const char *name;        /* D3D12_FEATURE_... */
    uint32_t value;
    const char *struct_name; /* NULL: the runtime does not answer this feature */
    bool never_clamped;      /* FORMAT_SUPPORT, MULTISAMPLE_QUALITY_LEVELS */
    const d12_caps_layout *layouts;
    uint32_t layout_count;
} d12_caps_feature;

/* What the clamp callback receives for each field whose value it changed. */
typedef struct d12_caps_clamp_report {
    const d12_caps_feature *feature;
    const d12_caps_field *field;
    d12_caps_version version;
    int64_t before;
    int64_t after;
} d12_caps_clamp_report;

typedef void (*d12_caps_clamp_fn)(void *context, const d12_caps_clamp_report *report);

/* ---- Versions ---- */

/* D12RT_FLAVOR=retail|preview: unset or empty is retail. Returns false (and *out = retail) for any other value,
 * which each caller reports in its own way. */
bool d12_caps_flavor_from_environment(d12_caps_flavor *out);

/* The runtime's own SDK version for a flavor (retail 620, preview 721 in spec/sdk.yaml). */
UINT d12_caps_runtime_version(d12_caps_flavor flavor);

/* The line a version number belongs to (numbers from D12_CAPS_PREVIEW_FIRST on are preview numbers). */
d12_caps_line d12_caps_line_of(UINT number);

/* Resolve a caller's SDKVersion for a runtime flavor. "On a retail runtime, the exact current
 * D3D12_PREVIEW_SDK_VERSION value is treated as D3D12_SDK_VERSION. Other preview version numbers are not
 * remapped." A version above the runtime's (after the remap) is D12_CAPS_VERSION_TOO_NEW and *out is left
 * untouched; the runtime then returns E_INVALIDARG without querying capabilities. A number older than every SDK
 * of its line (retail 0 ... 3) resolves to the oldest one (retail 4): `number` is then that SDK, `requested`
 * stays what the caller passed. */
d12_caps_status d12_caps_resolve_version(d12_caps_flavor flavor, UINT requested, d12_caps_version *out);

/* The level legacy CheckFeatureSupport is pinned to: the version just before CheckFeatureSupport1 on the
 * runtime's line ("legacy CheckFeatureSupport callers are permanently pinned to the pre-clamping
 * compatibility level"). Nothing introduced with or after CheckFeatureSupport1 is visible at it. */
d12_caps_version d12_caps_legacy_version(d12_caps_flavor flavor);

/* ---- Features ---- */

/* The feature with this D3D12_FEATURE number, or NULL. O(1). */
const d12_caps_feature *d12_caps_find_feature(UINT feature);

/* Every feature the spec describes, by increasing number; *count receives how many. */
const d12_caps_feature *d12_caps_features(uint32_t *count);

/* Every capability enum (tiers, flags, shader models ... and D3D12_FEATURE itself); *count receives how many. */
const d12_caps_enum *d12_caps_enums(uint32_t *count);

/* The enum named `name` (e.g. "D3D12_RAYTRACING_TIER"), or NULL. */
const d12_caps_enum *d12_caps_find_enum(const char *name);

/* The layout of `feature` whose size is `size` and that exists at `version` or before on its line: "every
 * size the struct has had up to that version is valid". NULL when there is none (D12_CAPS_BAD_SIZE). */
const d12_caps_layout *d12_caps_layout_for_size(const d12_caps_feature *feature, UINT size,
                                                d12_caps_version version);

/* Whether `feature` had a data struct (any layout) at `version` on its line. Legacy CheckFeatureSupport answers
 * E_INVALIDARG for a feature that did not exist at its pinned level (docs/clamping.md section 5). */
bool d12_caps_feature_present(const d12_caps_feature *feature, d12_caps_version version);

/* Check a query before the driver is asked: the feature is one the runtime answers and `size` is a size its
 * struct had at `version` or before. Reads no data. */
d12_caps_status d12_caps_check_query(UINT feature, UINT size, d12_caps_version version);

/* Check the in/out inputs of a query against what the runtime knows at its own version (a shader model or
 * root signature version it does not know is D12_CAPS_BAD_INPUT, which CD3DX12FeatureSupport's probes rely
 * on). Call after d12_caps_check_query succeeded. Reads only the input fields. */
d12_caps_status d12_caps_check_inputs(d12_caps_flavor flavor, UINT feature, const void *data, UINT size);

/* Clamp a struct the driver filled with its true values, in place, for `version`. Reads and writes only
 * `size` bytes, which d12_caps_check_query accepted. Calls `report` (may be NULL) once per field whose value
 * changed, in field order. The two never-clamped features pass through untouched. */
d12_caps_status d12_caps_clamp(UINT feature, void *data, UINT size, d12_caps_version version,
                               d12_caps_clamp_fn report, void *context);

/* The rule for one value, exposed for tools and tests: what a field of `kind` over `enumeration` holding
 * `true_value` reads as at `version`. For FEATURE_LEVEL fields, `requested`/`requested_count` is the
 * caller's list of levels (the result is always one of them, or 0). */
int64_t d12_caps_clamp_value(d12_caps_field_kind kind, const d12_caps_enum *enumeration, int64_t true_value,
                             d12_caps_version version, const D3D_FEATURE_LEVEL *requested,
                             UINT requested_count);

/* Whether the clamp rule protects `number` in `enumeration`: false when it shipped on either line before
 * CheckFeatureSupport1 came to that line; true otherwise, and for a number that was never a value. */
bool d12_caps_value_protected(const d12_caps_enum *enumeration, int64_t number);

/* Whether a value of an enum existed at a version (its history covers it). */
bool d12_caps_value_present(const d12_caps_enum_value *value, d12_caps_version version);

/* The name of `value` in `enumeration` that is current at `version` (or at any time, when none is), or
 * NULL when the number was never a value of the enum. For flags pass a single bit. */
const char *d12_caps_value_name(const d12_caps_enum *enumeration, int64_t value, d12_caps_version version);

/* SDK versions of a line as listed in spec/sdk.yaml, increasing; *count receives how many. */
const UINT *d12_caps_sdk_versions(d12_caps_line line, uint32_t *count);

/* The DirectX-Headers tags that carry SDK version `number` of `line`, comma-separated ("" when none does),
 * or NULL when spec/sdk.yaml does not list the version. */
const char *d12_caps_sdk_version_tags(d12_caps_line line, UINT number);

/* "retail" or "preview". */
const char *d12_caps_line_name(d12_caps_line line);

#ifdef __cplusplus
}
#endif

#endif /* D12CAPS_H */
