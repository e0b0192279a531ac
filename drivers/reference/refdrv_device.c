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
    /* The callback table's layout follows the negotiated build (its _0126 revision adds the message callbacks). */
    if ((args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0126)
        device->callbacks = *args->p12UMCallbacks_0126;
    else
        device->callbacks.pfnSetErrorCb = args->p12UMCallbacks->pfnSetErrorCb;
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

/* "A driver that implements driver-reported messages must report exactly one message when the runtime enables
 * the feature on a device during device creation — immediately after the feature has been enabled, and before
 * EnableExtendedFeature returns". */
static HRESULT report_initialization(d12__refdrv_device *device)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message = {
        .VendorMessageId = D12_REFDRV_DRM_INIT_ID,
        .Severity = D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE,
        .Category = D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION,
        .pDescription = D12_REFDRV_DRM_INIT_TEXT,
        .CommandListStateIndex = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126, /* no command list in scope */
    };
    return device->callbacks.pfnReportMessageCb(device->rt_device, &message);
}

HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE handle, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version)
{
    d12__refdrv_device *device = device_of(handle);
    if (feature != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES ||
        version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 ||
        device->adapter->drm_mode == D12_REFDRV_DRM_OFF || !device->callbacks.pfnReportMessageCb)
        return E_INVALIDARG;
    device->drm_enabled = true;
    HRESULT hr = report_initialization(device);
    if (FAILED(hr)) {
        fprintf(stderr, "d12rt reference driver: the runtime rejected the initialization message (0x%08X)\n",
                (unsigned)hr);
    }
    if (device->adapter->drm_mode == D12_REFDRV_DRM_FAIL) {
        device->drm_enabled = false;
        return E_FAIL; /* D12RT_REFDRV_DRM=fail: a driver whose enable call fails after reporting */
    }
    return S_OK;
}

/* Nothing is held between flushes yet: the driver validates nothing that produces later messages. A flush with
 * nothing to report is valid ("must tolerate a flush with nothing to report"). */
static VOID APIENTRY flush_driver_reported_messages(D3D12DDI_HDEVICE device)
{
    (void)device;
}

/* No command lists exist yet; the index is cached per command list once they do. */
static VOID APIENTRY set_command_list_state_index(D3D12DDI_HCOMMANDLIST command_list, UINT32 index)
{
    (void)command_list;
    (void)index;
}

const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__refdrv_drm_funcs = {
    flush_driver_reported_messages, set_command_list_state_index};

void d12_refdrv_device_set_error(D3D12DDI_HDEVICE handle, HRESULT hr)
{
    d12__refdrv_device *device = device_of(handle);
    device->callbacks.pfnSetErrorCb(device->rt_device, hr);
}
