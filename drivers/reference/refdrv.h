/* The d12rt reference software driver: implements d12rt/d3d12ddi.h in software. Linked into the runtime as
 * the built-in driver (d12_refdrv_static: entry point d12_refdrv_OpenAdapter12) and built as a loadable
 * libd12_refdrv.so exporting OpenAdapter12 and nothing else.
 *
 * Environment:
 *   D12RT_FLAVOR=retail|preview   the runtime flavor whose SDK version the capability profile targets
 *   D12RT_REFDRV_PROFILE=file     capability overrides (refdrv_profile.h)
 *   D12RT_REFDRV_SET_ERROR=hr     test hook: every device created calls pfnSetErrorCb(hRTDevice, hr) at the
 *                                 end of pfnCreateDevice (hr as a number, e.g. 0x887A0005), so the runtime's
 *                                 device-removal path can be driven from outside
 *   D12RT_REFDRV_DRM=on|off|fail  driver-reported messages (read at OpenAdapter12): `on` (the default) advertises
 *                                 D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES and, when the runtime enables it,
 *                                 reports the mandatory initialization message before pfnEnableExtendedFeature
 *                                 returns; `off` does not advertise it (a driver without the DDI); `fail` is a
 *                                 test hook: it advertises the feature, reports the message, then fails the
 *                                 enable call with E_FAIL
 *   D12RT_REFDRV_EXEC_DELAY_MS=N  test hook (read at OpenAdapter12): every queue's timeline sleeps N milliseconds
 *                                 before executing each ExecuteCommandLists submission, so a test can have work
 *                                 genuinely in flight (docs/refdrv.md)
 *   D12RT_REFDRV_PS_PER_VERTEX, D12RT_REFDRV_PS_PER_GROUP, D12RT_REFDRV_PS_PER_BYTE, D12RT_REFDRV_NS_PER_COMMAND
 *                                 the GPU time of commands (read at OpenAdapter12; docs/refdrv.md, "GPU time")
 */
#ifndef D12_REFDRV_H
#define D12_REFDRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "d12rt/d3d12ddi.h"

#include "drvcommon_rules.h"
#include "refdrv_profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OpenAdapter12 of the built-in driver (the .so exports it under the DDI's name). */
HRESULT APIENTRY d12_refdrv_OpenAdapter12(D3D12DDIARG_OPENADAPTER *args);

/* Test hook for code that links the driver in: make the device behind `device` report `hr` through the
 * runtime's pfnSetErrorCb, as a driver does when it detects a device error. */
void d12_refdrv_device_set_error(D3D12DDI_HDEVICE device, HRESULT hr);

/* ---- Internal, shared by the driver's files ---- */

typedef enum d12__refdrv_drm_mode {
    D12_REFDRV_DRM_ON,
    D12_REFDRV_DRM_OFF,
    D12_REFDRV_DRM_FAIL,
    D12_REFDRV_DRM_V1, /* on, listing version 1 only: a version-1 driver (docs/driver-reported-messages-v2.md) */
} d12__refdrv_drm_mode;

/* The initialization message, and the VendorMessageIds of the driver's validation findings: drivers/common/
 * drvcommon_rules.h (the Vulkan driver reports the same). */

/* GPU time per command (docs/refdrv.md, "GPU time"): settable with D12RT_REFDRV_PS_PER_VERTEX, _PS_PER_GROUP,
 * _PS_PER_BYTE and _NS_PER_COMMAND, read at OpenAdapter12. */
typedef struct d12__refdrv_rates {
    UINT64 ps_per_vertex;  /* draws: vertices (or indices) x instances, picoseconds each */
    UINT64 ps_per_group;   /* dispatches: thread groups */
    UINT64 ps_per_byte;    /* copies: bytes */
    UINT64 ns_per_command; /* every command: its fixed cost (barriers and writes have only it) */
} d12__refdrv_rates;

#define D12_REFDRV_DEFAULT_PS_PER_VERTEX 1000ull   /* 1 ns */
#define D12_REFDRV_DEFAULT_PS_PER_GROUP 10000ull   /* 10 ns */
#define D12_REFDRV_DEFAULT_PS_PER_BYTE 100ull      /* 10 GB/s */
#define D12_REFDRV_DEFAULT_NS_PER_COMMAND 100ull
#define D12_REFDRV_SLICE_NS 10000000ull            /* a long command sleeps in slices of at most 10 ms */
#define D12_REFDRV_MIN_SLEEP_NS 1000000ull         /* cheaper work is summed until it reaches 1 ms */

typedef struct d12__refdrv_adapter {
    D3D12DDI_HRTADAPTER rt_adapter;
    d12__refdrv_rates rates;
    d12__refdrv_profile profile;
    d12__refdrv_drm_mode drm_mode;
    unsigned exec_delay_ms; /* D12RT_REFDRV_EXEC_DELAY_MS */
} d12__refdrv_adapter;

typedef struct d12__refdrv_device {
    d12__refdrv_adapter *adapter;
    D3D12DDI_HRTDEVICE rt_device;
    /* A copy: the runtime need not keep its table. Before build 0126 only pfnSetErrorCb is set. */
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 callbacks;
    UINT interface_version;
    UINT version;
    bool drm_enabled; /* the runtime enabled driver-reported messages: only then may the device report */
    /* Feature version 2 (docs/driver-reported-messages-v2.md): the version enabled, and the categories the runtime
     * wants (pfnSetDriverReportedMessageFlags; every finding of this driver is GENERAL). */
    UINT32 drm_version;
    _Atomic UINT drm_flags;
    /* A copy of pKTCallbacks; without it (a harness older than GPU work) no queue can be created. From build
     * 0127 on it is the _0127 table (has_0127); before, pfnDeviceFaultCb and pfnReportGpuProgressCb are NULL. */
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 kt;
    bool has_kt, has_0127;
    unsigned exec_delay_ms;
    d12__refdrv_rates rates;
    struct d12__drv_va_space *va; /* the buffers (drivers/common/drvcommon_va.h), malloc'ed */
    /* Timeline findings waiting for a flush, oldest first (drivers/common/drvcommon_messages.h), malloc'ed. */
    struct d12__drv_pending *pending;
} d12__refdrv_device;

SIZE_T APIENTRY d12__refdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                     const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args);
HRESULT APIENTRY d12__refdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args);
VOID APIENTRY d12__refdrv_destroy_device(D3D12DDI_HDEVICE device);
HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version);
/* The driver-reported-messages table (D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES). */
extern const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__refdrv_drm_funcs;
/* Feature version 2's table (D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1). */
extern const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 d12__refdrv_drm1_funcs;
/* The adapter's identity (D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY): Microsoft (as WARP), WARP's device ID. */
#define D12_REFDRV_VENDOR_ID 0x1414u
#define D12_REFDRV_DEVICE_ID 0x008Cu
/* The categories this driver validates: all of its findings are GENERAL. */
#define D12_REFDRV_DRM_SUPPORTED_FLAGS 0x1u
/* Whether the device validates now: the feature is enabled and GENERAL is on ("a category that is off costs it
 * nothing": the checks are skipped, not just their reports). */
static inline bool d12__refdrv_validating(d12__refdrv_device *device)
{
    return device->drm_enabled &&
           (atomic_load_explicit(&device->drm_flags, memory_order_relaxed) & D12_REFDRV_DRM_SUPPORTED_FLAGS);
}
/* The GPU-work tables (D3D12DDI_TABLE_TYPE_DEVICE_CORE, _COMMAND_LIST_3D, _COMMAND_QUEUE_3D). */
extern const D3D12DDI_DEVICE_FUNCS_CORE_0126 d12__refdrv_device_core_funcs;
/* Descriptor heaps, views and samplers (refdrv_descriptors.c, docs/descriptors.md). */
extern const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT d12__refdrv_descriptor_funcs;
extern const D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT d12__refdrv_heap_funcs; /* refdrv_heap.c (docs/heaps.md) */
/* refdrv_pipeline.c (docs/pipelines.md): compute pipeline states as data, and the list's binding calls recorded */
extern const D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT d12__refdrv_pipeline_funcs;
extern const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT d12__refdrv_binding_funcs;
extern const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 d12__refdrv_command_list_funcs; /* the 0126 table is its prefix */
extern const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 d12__refdrv_command_queue_funcs;

#ifdef __cplusplus
}
#endif

#endif
