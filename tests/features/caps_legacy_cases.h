/* The legacy CheckFeatureSupport cases generated into generated/tests/caps_legacy_cases.c by
 * templates/caps_legacy.c.j2, with the expected status from generator/oracle.py (Oracle.legacy_table). */
#ifndef D12_CAPS_LEGACY_CASES_H
#define D12_CAPS_LEGACY_CASES_H

#include <stdint.h>

#include "d12caps.h"

typedef struct d12_caps_legacy_case {
    d12_caps_flavor flavor;
    UINT feature;   /* D3D12_FEATURE number */
    UINT size;      /* FeatureSupportDataSize */
    int accepted;   /* the feature and this size existed at the pinned level */
    UINT pinned;    /* the pinned level of the flavor (retail 619, preview 720) */
    const char *name;
} d12_caps_legacy_case;

extern const d12_caps_legacy_case d12_caps_legacy_cases[];
extern const uint32_t d12_caps_legacy_case_count;

#endif
