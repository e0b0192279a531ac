/* The tables generated from spec/ into generated/caps/d12caps_tables.c (templates/caps_tables.c.j2).
 * Internal to libd12caps: the public view is d12caps.h. */
#ifndef D12CAPS_TABLES_H
#define D12CAPS_TABLES_H

#include "d12caps.h"

extern const d12_caps_enum d12__caps_enum_table[];
extern const uint32_t d12__caps_enum_count;

extern const d12_caps_feature d12__caps_feature_table[];
extern const uint32_t d12__caps_feature_count;

/* Indexed by D3D12_FEATURE number; NULL where the spec describes no feature. */
extern const d12_caps_feature *const d12__caps_feature_by_value[];
extern const uint32_t d12__caps_feature_by_value_count;

/* SDK versions listed in spec/sdk.yaml, per line, increasing. */
extern const UINT *const d12__caps_sdk_versions[2];
extern const uint32_t d12__caps_sdk_version_count[2];
extern const char *const *const d12__caps_sdk_version_tags[2]; /* parallel to d12__caps_sdk_versions */

/* The enums the rules need by role. */
extern const d12_caps_enum *const d12__caps_feature_level_enum;

#endif
