/* Version 2 of driver-reported messages at the device (docs/driver-reported-messages-v2.md): what device creation
 * adds once the feature is enabled (the registry's driver-message pairs and forced categories, GPU VA naming),
 * ID3D12DebugDevice3's two methods, and CheckFeatureSupport(D3D12_FEATURE_DRIVER_REPORTED_MESSAGES). The channel
 * itself is runtime/drm/drm.c; VA naming runtime/dred/drm_va.c; the filters runtime/infoqueue/driver_filter.c. */
#include <stdlib.h>

#include "d12_messages.h"
#include "device.h"
#include "drm_v2.h"
#include "registry_drm.h"

_Static_assert(sizeof(D3D12_DRIVER_MESSAGE_IDENTITY) == sizeof(d12_reg_drm_pair) &&
                   offsetof(D3D12_DRIVER_MESSAGE_IDENTITY, VendorMessageId) ==
                       offsetof(d12_reg_drm_pair, vendor_message_id),
               "registry pairs are handed to the InfoQueue as D3D12_DRIVER_MESSAGE_IDENTITY arrays");

/* The registry's pairs go to the InfoQueue before the enable call, so they apply from the first driver message (the
 * mandatory one included: "a registry deny always applies"), on top of the application's filters; its forced
 * categories are kept for d12__drm_v2_connect. Out of memory: the device keeps the application's settings alone. */
void d12__drm_v2_before_enable(struct d12_device *device)
{
    d12_reg_drm reg;
    if (!device->info_queue || !d12__reg_drm_load(&reg))
        return;
    if (reg.allow_count || reg.deny_count) {
        D3D12_DRIVER_MESSAGE_FILTER filter = {(UINT)reg.allow_count, (const D3D12_DRIVER_MESSAGE_IDENTITY *)reg.allow,
                                              (UINT)reg.deny_count, (const D3D12_DRIVER_MESSAGE_IDENTITY *)reg.deny};
        d12__info_queue_set_registry_driver_filter(device->info_queue, &filter);
    }
    device->drm.registry_flags = reg.flags_forced;
    device->drm.registry_forced = reg.flags;
    d12__reg_drm_free(&reg);
}

void d12__drm_v2_connect(struct d12_device *device)
{
    if (!d12__drm_enabled(&device->drm))
        return;
    d12__drm_va_connect(device);
    /* "The registry can force a set per application" */
    if (device->drm.registry_flags)
        d12__drm_force_flags(&device->drm, device->drm.registry_forced);
}

/* ---- ID3D12DebugDevice3 ---- */

bool d12_device_exposes_debug_device(struct d12_device *self)
{
    return self->info_queue != NULL; /* the debug layer's interface: with the debug layer only, as on Windows */
}

HRESULT d12_device_SetDriverReportedMessageFlags(struct d12_device *self, D3D12_DRIVER_REPORTED_MESSAGE_FLAGS Flags)
{
    UINT supported = d12__drm_supported_flags(&self->drm);
    if ((UINT)Flags & ~supported) {
        d12__msg_driver_reported_message_flags_unsupported(self->info_queue, (unsigned)Flags,
                                                            (unsigned)Flags & ~supported, supported);
        return E_INVALIDARG;
    }
    return d12__drm_set_flags(&self->drm, (UINT)Flags);
}

D3D12_DRIVER_REPORTED_MESSAGE_FLAGS d12_device_GetDriverReportedMessageFlags(struct d12_device *self)
{
    return (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)d12__drm_flags(&self->drm);
}

/* ---- CheckFeatureSupport ---- */

HRESULT d12__drm_feature_data(struct d12_device *device, const char *method, void *data, UINT size)
{
    if (!data || size != sizeof(D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES)) {
        d12__msg_driver_reported_messages_feature_data_invalid(
            device->info_queue, method, size, (unsigned)sizeof(D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES));
        return E_INVALIDARG;
    }
    /* "0 when the feature is not enabled on the device; GENERAL for a version-1 driver" */
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES answer = {
        (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)d12__drm_supported_flags(&device->drm)};
    *(D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES *)data = answer;
    return S_OK;
}
