/* Version 2 of driver-reported messages in the registry (docs/driver-reported-messages-v2.md "Registry"): the
 * per-application driver-message pairs d12cfg drm-deny / drm-allow write and the forced category set. Values live
 * under the application's key (registry.h) in either hive, HKCU before HKLM for the same value name:
 *
 *   "DriverMessageDeny:<VID>:<MID>"=dword:00000001    this (VendorId, VendorMessageId) never passes
 *   "DriverMessageAllow:<VID>:<MID>"=dword:00000001   when any is listed, only listed pairs pass
 *   "DriverReportedMessageFlags"=dword:<flags>        the device's categories, forced (& what the driver supports)
 *
 * VID and MID are hexadecimal without 0x (case-insensitive); a pair value of 0 lists nothing (so HKCU can take back
 * an HKLM pair). A pair name that does not parse is ignored with one warning naming file:line. */
#ifndef D12_REGISTRY_DRM_H
#define D12_REGISTRY_DRM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "registry.h"

#define D12_REG_DRM_DENY_PREFIX "DriverMessageDeny:"
#define D12_REG_DRM_ALLOW_PREFIX "DriverMessageAllow:"
#define D12_REG_DRM_FLAGS "DriverReportedMessageFlags"

typedef struct d12_reg_drm_pair {
    uint32_t vendor_id;
    uint64_t vendor_message_id;
} d12_reg_drm_pair;

typedef struct d12_reg_drm {
    d12_reg_drm_pair *allow, *deny; /* malloc'ed */
    size_t allow_count, deny_count;
    bool flags_forced;
    uint32_t flags;
} d12_reg_drm;

/* Parses "<VID>:<MID>" (hex, no 0x; VID 1..0xFFFFFFFF). */
bool d12__reg_drm_parse_pair(const char *text, d12_reg_drm_pair *out);

/* What the two hives (NULL: absent) say for `app`. False only for lack of memory (then *out is empty). Warnings
 * (unparsable pair names) go to `warnings` (NULL: none). */
bool d12__reg_drm_resolve(const d12_reg_file *hkcu, const d12_reg_file *hklm, const char *app, FILE *warnings,
                          d12_reg_drm *out);

/* Loads both hives (registry.h's paths) for the running application (d12__registry_app_name). */
bool d12__reg_drm_load(d12_reg_drm *out);

void d12__reg_drm_free(d12_reg_drm *drm);

/* The names of every DriverMessageDeny:/DriverMessageAllow: value set under `key` of one hive (for drm-clear); -1
 * out of memory. Free each name and the array. */
long d12__reg_drm_value_names(const d12_reg_file *hive, const char *key, char ***names);

#endif
