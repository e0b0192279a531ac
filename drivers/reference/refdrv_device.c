/* The reference driver's device: constructed in runtime-allocated private memory, reports errors through the
 * runtime's pfnSetErrorCb. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refdrv.h"

static d12__refdrv_device *device_of(D3D12DDI_HDEVICE handle)
{
    return (d12__refdrv_device *)handle.pDrvPrivate;
}

SIZE_T APIENTRY d12__refdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                     const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args)
{
    (void)adapter;
    (void)args;
    return sizeof(d12__refdrv_device);
}

/* D12RT_REFDRV_SET_ERROR=hr: whether to report hr from every new device (refdrv.h). A value that is not a
 * number is ignored with a warning: a test hook must not make the driver fail in a way the test did not ask. */
static bool set_error_requested(HRESULT *hr)
{
    const char *text = getenv("D12RT_REFDRV_SET_ERROR");
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (*end || errno || value > UINT32_MAX) {
        fprintf(stderr, "d12rt reference driver: D12RT_REFDRV_SET_ERROR=%s is not an HRESULT; ignored\n", text);
        return false;
    }
    *hr = (HRESULT)(UINT)value;
    return true;
}

HRESULT APIENTRY d12__refdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    if (!args || !args->hDrvDevice.pDrvPrivate || !args->p12UMCallbacks || !args->p12UMCallbacks->pfnSetErrorCb)
        return E_INVALIDARG;
    d12__refdrv_device *device = device_of(args->hDrvDevice);
    memset(device, 0, sizeof *device);
    device->adapter = (d12__refdrv_adapter *)adapter.pDrvPrivate;
    device->rt_device = args->hRTDevice;
    device->callbacks = *args->p12UMCallbacks;
    device->interface_version = args->Interface;
    device->version = args->Version;
    HRESULT hr;
    if (set_error_requested(&hr))
        d12_refdrv_device_set_error(args->hDrvDevice, hr);
    return S_OK;
}

VOID APIENTRY d12__refdrv_destroy_device(D3D12DDI_HDEVICE handle)
{
    /* Nothing owned yet; the runtime frees the memory itself. */
    memset(device_of(handle), 0, sizeof(d12__refdrv_device));
}

HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version)
{
    /* No extended feature is offered yet (refdrv_adapter.c's list), so none can be enabled. */
    (void)device;
    (void)feature;
    (void)version;
    return E_INVALIDARG;
}

void d12_refdrv_device_set_error(D3D12DDI_HDEVICE handle, HRESULT hr)
{
    d12__refdrv_device *device = device_of(handle);
    device->callbacks.pfnSetErrorCb(device->rt_device, hr);
}
