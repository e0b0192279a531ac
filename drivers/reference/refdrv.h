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
 */
#ifndef D12_REFDRV_H
#define D12_REFDRV_H

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

typedef struct d12__refdrv_adapter {
    D3D12DDI_HRTADAPTER rt_adapter;
    d12__refdrv_profile profile;
} d12__refdrv_adapter;

typedef struct d12__refdrv_device {
    d12__refdrv_adapter *adapter;
    D3D12DDI_HRTDEVICE rt_device;
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0003 callbacks; /* a copy: the runtime need not keep its table */
    UINT interface_version;
    UINT version;
} d12__refdrv_device;

SIZE_T APIENTRY d12__refdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                     const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args);
HRESULT APIENTRY d12__refdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args);
VOID APIENTRY d12__refdrv_destroy_device(D3D12DDI_HDEVICE device);
HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version);

#ifdef __cplusplus
}
#endif

#endif
