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
 */
#ifndef D12_REFDRV_H
#define D12_REFDRV_H

#include <stdbool.h>

#include "d12rt/d3d12ddi.h"

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
} d12__refdrv_drm_mode;

/* The mandatory initialization message's text (driver-reported-messages.txt, "exact ASCII string"). */
#define D12_REFDRV_DRM_INIT_TEXT "D3D12 Driver Reported Messages Enabled"
/* The reference driver's VendorMessageId of the initialization message. */
#define D12_REFDRV_DRM_INIT_ID 0x0D12000000000001ull

typedef struct d12__refdrv_adapter {
    D3D12DDI_HRTADAPTER rt_adapter;
    d12__refdrv_profile profile;
    d12__refdrv_drm_mode drm_mode;
} d12__refdrv_adapter;

typedef struct d12__refdrv_device {
    d12__refdrv_adapter *adapter;
    D3D12DDI_HRTDEVICE rt_device;
    /* A copy: the runtime need not keep its table. Before build 0126 only pfnSetErrorCb is set. */
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 callbacks;
    UINT interface_version;
    UINT version;
    bool drm_enabled; /* the runtime enabled driver-reported messages: only then may the device report */
} d12__refdrv_device;

SIZE_T APIENTRY d12__refdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                     const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args);
HRESULT APIENTRY d12__refdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args);
VOID APIENTRY d12__refdrv_destroy_device(D3D12DDI_HDEVICE device);
HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version);
/* The driver-reported-messages table (D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES). */
extern const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__refdrv_drm_funcs;

#ifdef __cplusplus
}
#endif

#endif
