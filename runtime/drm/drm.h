/* The driver-reported-messages channel of one device (driver-reported-messages.txt v0.3; docs/drm.md): enabling
 * the extended feature at device creation, pfnReportMessageCb (validate, copy, surface in the InfoQueue with
 * D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) and pfnQueryObjectIdentityCb (identity strings of live objects).
 *
 * Threads: reports and identity queries may arrive on any thread, concurrently, re-entrantly (from inside a
 * flush or the enable call). The channel takes no lock of its own: `enabled` is an atomic, the InfoQueue
 * serializes reports under its leaf lock and delivers callbacks outside it, the object table has its own lock.
 * Nothing here calls the application or the driver with a runtime lock held. */
#ifndef D12_DRM_H
#define D12_DRM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "driver.h"
#include "infoqueue.h"
#include "objtable.h"

typedef struct d12_drm {
    /* Fixed at d12__drm_init. */
    d12_info_queue *info_queue;     /* NULL without the debug layer (the feature is then never enabled) */
    d12_objtable *objects;          /* the device's live objects */
    d12_driver_message_hooks hooks; /* what the driver's callbacks call (context: this channel) */

    /* True from just before pfnEnableExtendedFeature until the device is destroyed, unless enabling failed:
     * reports are accepted only while it is true. Release/acquire, so `funcs` is visible once it is set. */
    atomic_bool enabled;
    /* The driver's table, filled once right after a successful enable; read-only afterwards. Valid when
     * `enabled` is true after d12__drm_enable returned (flush and correlation calls use it). */
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 funcs;
    UINT32 version;                 /* the negotiated feature version; 0 (_NONE) when not enabled */
    /* Command-list state indices to resolve (correlation.h); set once during device creation, NULL: none. */
    struct d12_correlation *correlation;
    /* The prefix of a resolved message ("<identity> [Draw #2] "), malloc'ed, for the index's owner (a list). */
    char *(*prefix)(void *owner, int kind, uint32_t ordinal);

    /* ---- Feature version 2 (docs/driver-reported-messages-v2.md) ---- */
    UINT vendor_id;                 /* fixed at init: the adapter's VendorId (0xFFFF unknown), every message's */
    /* Filled with `funcs` when version 2 was enabled; read-only afterwards. */
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 funcs1;
    d12_driver_device *device;      /* set with funcs1: the driver device pfnSetDriverReportedMessageFlags names */
    UINT supported;                 /* set with `funcs`: the categories the driver validates (GENERAL for v1) */
    _Atomic UINT flags;             /* the categories on now (starts = supported); the application serializes Set */
    /* GPU VA naming for pfnQueryGpuVaIdentityCb (drm_va.c, over the DRED ledger); NULL: E_INVALIDARG. */
    HRESULT (*name_va)(void *owner, UINT64 va, char **text);
    void *va_owner;
    bool registry_flags;            /* the registry forces `registry_forced` (read before the enable; drm_device.c) */
    UINT registry_forced;
} d12_drm;

/* A channel with the feature off; `info_queue` may be NULL. */
void d12__drm_init(d12_drm *drm, d12_info_queue *info_queue, d12_objtable *objects);
/* The same, with the adapter's VendorId for every message (version 2's identity). */
void d12__drm_init_vendor(d12_drm *drm, UINT vendor_id);

/* The feature version to enable on devices of `adapter`: the highest the driver reported that the runtime
 * understands (D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 today), or _NONE when the driver does not
 * implement the feature or negotiated a DDI build without the message callbacks. */
UINT32 d12__drm_pick_version(const d12_driver_adapter *adapter);

/* Enable the feature on `device` (whose desc->messages were &drm->hooks): the channel counts as enabled before
 * pfnEnableExtendedFeature is called, so what the driver reports inside it is kept; then the driver's table is
 * filled. S_OK: enabled. S_FALSE: the driver does not implement the feature (nothing is called, nothing is
 * reported). A failure: the feature is off for the device and the debug layer says why. */
HRESULT d12__drm_enable(d12_drm *drm, d12_driver_device *device);

bool d12__drm_enabled(d12_drm *drm);

/* Resolve messages' CommandListStateIndex against `correlation` and annotate them with `prefix` (during device
 * creation, before any list exists). */
void d12__drm_set_correlation(d12_drm *drm, struct d12_correlation *correlation,
                              char *(*prefix)(void *owner, int kind, uint32_t ordinal));

/* pfnReportMessageCb's work: S_OK, or E_INVALIDARG and the message is dropped (the rules of spec/ddi.yaml's
 * validation table: feature enabled, pMessage and pDescription non-NULL, Severity and Category in range). */
HRESULT d12__drm_report(d12_drm *drm, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);

/* ---- Version 2 ---- */

/* The categories the device's driver validates: 0 when the feature is not enabled, GENERAL for a version-1 driver. */
UINT d12__drm_supported_flags(d12_drm *drm);
UINT d12__drm_flags(d12_drm *drm);
/* ID3D12DebugDevice3::SetDriverReportedMessageFlags: E_INVALIDARG for flags outside the supported set (or any flag
 * when the feature is off, except NONE); else stored and, for a version-2 driver, passed on with
 * pfnSetDriverReportedMessageFlags (no runtime lock held). */
HRESULT d12__drm_set_flags(d12_drm *drm, UINT flags);
/* The registry's forced set at device creation: & supported; passed on like a Set when it differs. */
void d12__drm_force_flags(d12_drm *drm, UINT flags);
/* Connect pfnQueryGpuVaIdentityCb to a namer (device.c: drm_va.c's). */
void d12__drm_set_va_namer(d12_drm *drm, HRESULT (*name_va)(void *owner, UINT64 va, char **text), void *owner);

/* pfnQueryObjectIdentityCb's work (objtable.h has the string's format). */
HRESULT d12__drm_query_identity(d12_drm *drm, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size, CHAR *identity);

#endif
