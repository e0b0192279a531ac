/* The reference driver's capability profile: its TRUE D3D12 feature data, one struct per feature in the
 * newest layout present at the runtime's own SDK version for the flavor (D12RT_FLAVOR=retail|preview).
 *
 * Two built-in profiles (docs/claims.md):
 * - `implemented`, the default of both drivers: what d12rt implements and nothing more (issue 27: "a capability
 *   is claimed only when its objects and calls work"): every field 0 (NOT_SUPPORTED, FALSE, no flags) but the
 *   lines of d12__refdrv_implemented_claims (refdrv_claims.c); format answers only for what can be created.
 * - `newest-tiers` (D12RT_REFDRV_PROFILE=newest-tiers, that exact string; a file of that name is
 *   `./newest-tiers`): the model for demonstrating CheckFeatureSupport1's clamping — every tier, shader model,
 *   root signature version and feature level field at the highest value of its enum present at that version
 *   (never a removed one), every flags field with every bit present then, BOOLs TRUE, integers plausible
 *   documented values, and the format answers of spec/formats.yaml. Input and opaque fields are left alone.
 * D12RT_REFDRV_PROFILE=file overrides fields of `implemented`, one per line:
 *     D3D12_FEATURE_D3D12_OPTIONS5.RaytracingTier = D3D12_RAYTRACING_TIER_1_2   # names or numbers
 * flags may be written A | B; `#` starts a comment; blank lines are ignored. The three format features
 * (FORMAT_SUPPORT, FORMAT_INFO, MULTISAMPLE_QUALITY_LEVELS) are answered per format from spec/formats.yaml
 * (docs/formats.md) and cannot be set. Any unknown feature, field or value
 * name, or a malformed line, is reported as `file:line: message` on stderr and the profile fails to load. */
#ifndef D12_REFDRV_PROFILE_H
#define D12_REFDRV_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "d12caps.h"

typedef struct d12__refdrv_feature_data {
    const d12_caps_feature *feature;
    const d12_caps_layout *layout; /* newest at the profile's version; NULL: feature absent at that version */
    unsigned char *bytes;          /* layout->size bytes of true values */
} d12__refdrv_feature_data;

/* The value of D12RT_REFDRV_PROFILE that names the built-in model rather than a file. */
#define D12_REFDRV_PROFILE_NEWEST_TIERS "newest-tiers"

/* The implemented profile's claims, as profile lines, NULL-terminated (refdrv_claims.c). */
extern const char *const d12__refdrv_implemented_claims[];

typedef struct d12__refdrv_profile {
    d12_caps_flavor flavor;
    bool newest_tiers; /* the model (`newest-tiers`), not what d12rt implements */
    d12_caps_version version; /* the runtime's own SDK version for the flavor */
    d12__refdrv_feature_data *entries;
    uint32_t count;
} d12__refdrv_profile;

/* Build the profile from the environment (D12RT_FLAVOR, D12RT_REFDRV_PROFILE). Errors go to `errors`
 * (stderr in the driver) as one line each; returns S_OK, E_INVALIDARG for a bad flavor or profile file, or
 * E_OUTOFMEMORY. On failure nothing needs freeing. */
HRESULT d12__refdrv_profile_load(d12__refdrv_profile *profile, FILE *errors);

/* The same for `implemented` alone, whatever D12RT_REFDRV_PROFILE says (the Vulkan driver's profile). */
HRESULT d12__refdrv_profile_load_implemented(d12__refdrv_profile *profile, FILE *errors);

/* Build the profile for a flavor: `path` NULL is `implemented`, D12_REFDRV_PROFILE_NEWEST_TIERS the model, any other
 * string a file applied over `implemented`. Same results as above. The Vulkan driver passes NULL: its claims come
 * from what it implements and what its VkPhysicalDevice offers, never from D12RT_REFDRV_PROFILE. */
HRESULT d12__refdrv_profile_build(d12__refdrv_profile *profile, d12_caps_flavor flavor, const char *path,
                                  FILE *errors);

void d12__refdrv_profile_free(d12__refdrv_profile *profile);

/* Answer a D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA query: write every output field of the layout of `size` bytes
 * from the profile, leave input fields. E_INVALIDARG for an unknown feature or a size the driver does not know. */
HRESULT d12__refdrv_profile_fill(const d12__refdrv_profile *profile, UINT feature, void *data, UINT size);

#endif
