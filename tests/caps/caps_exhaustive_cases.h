/* The exhaustive clamp cases generated into generated/tests/caps_exhaustive_cases.c by
 * templates/caps_exhaustive.c.j2, with every expected result computed by generator/oracle.py (an independent
 * reading of docs/clamping.md). tests/caps/test_caps_exhaustive.c runs them against libd12caps.
 *
 * A case is (group, version, probe value): groups are the clamped fields (feature x layout x field), versions the
 * (runtime flavor, requested SDK version) pairs, and each group has its list of true values to probe. Rows are
 * every (group, version) pair, in group-major order; an OK row points at one expected value per probe value. */
#ifndef D12_CAPS_EXHAUSTIVE_CASES_H
#define D12_CAPS_EXHAUSTIVE_CASES_H

#include <stdint.h>

#include "d12caps.h"

typedef struct d12_caps_exhaustive_version {
    d12_caps_flavor flavor;
    UINT requested;
    d12_caps_status status; /* of d12_caps_resolve_version: OK or VERSION_TOO_NEW */
    UINT number;            /* after the retail runtime's preview remap */
    d12_caps_line line;
} d12_caps_exhaustive_version;

typedef struct d12_caps_exhaustive_group {
    UINT feature;               /* D3D12_FEATURE number */
    UINT size;                  /* the layout's size in bytes */
    UINT offset;                /* the clamped field's offset (a 4-byte scalar) */
    d12_caps_field_kind kind;
    uint32_t value_first;       /* probe values: d12_caps_exhaustive_values[value_first ...] */
    uint32_t value_count;
    uint32_t quiet_first;       /* offsets of the layout's other clamped fields, which the runner zeroes */
    uint32_t quiet_count;
    const char *name;           /* "FEATURE.Field@size", for messages */
} d12_caps_exhaustive_group;

typedef struct d12_caps_exhaustive_row {
    uint16_t group;
    uint16_t version;
    uint8_t status;             /* the whole query: OK, VERSION_TOO_NEW or BAD_SIZE */
    uint32_t expected_first;    /* OK rows: d12_caps_exhaustive_expected[expected_first ...], value_count of them */
} d12_caps_exhaustive_row;

extern const d12_caps_exhaustive_version d12_caps_exhaustive_versions[];
extern const uint32_t d12_caps_exhaustive_version_count;
extern const d12_caps_exhaustive_group d12_caps_exhaustive_groups[];
extern const uint32_t d12_caps_exhaustive_group_count;
extern const int64_t d12_caps_exhaustive_values[];
extern const UINT d12_caps_exhaustive_quiet[];
extern const d12_caps_exhaustive_row d12_caps_exhaustive_rows[];
extern const uint32_t d12_caps_exhaustive_row_count;
extern const int64_t d12_caps_exhaustive_expected[];
extern const uint32_t d12_caps_exhaustive_expected_count;
/* The caller's pFeatureLevelsRequested for FEATURE_LEVEL fields: every value of D3D_FEATURE_LEVEL. */
extern const D3D_FEATURE_LEVEL d12_caps_exhaustive_levels[];
extern const UINT d12_caps_exhaustive_level_count;
/* Cases: the sum of value_count over all rows. */
extern const uint32_t d12_caps_exhaustive_case_count;

#endif
