/* Version 2 of driver-reported messages at the device level (runtime/drm/drm_device.c, runtime/dred/drm_va.c;
 * docs/driver-reported-messages-v2.md). The channel's own v2 state is in drm.h. */
#ifndef D12_DRM_V2_H
#define D12_DRM_V2_H

struct d12_device;

/* Device creation, right after the feature was enabled: VA naming for a version-2 driver, the registry's pairs
 * and forced categories. Nothing when the feature is off. */
void d12__drm_v2_connect(struct d12_device *device);
/* Before the enable call: the registry's driver-message pairs (the InfoQueue's registry filter) and forced set. */
void d12__drm_v2_before_enable(struct d12_device *device);

/* dred/drm_va.c: pfnQueryGpuVaIdentityCb over DRED's allocation ledger (version 2 only). */
void d12__drm_va_connect(struct d12_device *device);

/* CheckFeatureSupport(D3D12_FEATURE_DRIVER_REPORTED_MESSAGES), answered by the runtime (no SDK clamping: a d12rt
 * feature). E_INVALIDARG with a debug message for a NULL pointer or a size other than the struct's. */
HRESULT d12__drm_feature_data(struct d12_device *device, const char *method, void *data, UINT size);

#endif
