/* The reference driver's device: constructed in runtime-allocated private memory, reports errors through the
 * runtime's pfnSetErrorCb. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12_envnum.h"
#include "drvcommon_adapter.h"
#include "drvcommon_messages.h"
#include "refdrv_gpu.h"

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
    uint64_t value = 0;
    if (d12_env_number("D12RT_REFDRV_SET_ERROR", "an HRESULT", 0, UINT32_MAX, true, &value, stderr,
                       "d12rt reference driver", "ignored") != D12_ENV_NUMBER)
        return false;
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
    d12__drv_copy_callbacks(args, &device->callbacks, &device->kt, &device->has_kt, &device->has_0127);
    device->interface_version = args->Interface;
    device->version = args->Version;
    device->exec_delay_ms = device->adapter->exec_delay_ms;
    device->rates = device->adapter->rates;
    if (!(device->pending = d12__drv_pending_new()))
        return E_OUTOFMEMORY;
    if (!(device->va = malloc(sizeof *device->va)) || !d12__drv_va_init(device->va, NULL)) {
        free(device->va);
        d12__drv_pending_free(device->pending);
        return E_OUTOFMEMORY;
    }
    HRESULT hr;
    if (set_error_requested(&hr))
        d12_refdrv_device_set_error(args->hDrvDevice, hr);
    return S_OK;
}

/* The runtime destroyed every queue, list and resource first; findings never flushed are dropped. The runtime
 * frees the memory itself. */
VOID APIENTRY d12__refdrv_destroy_device(D3D12DDI_HDEVICE handle)
{
    d12__refdrv_device *device = device_of(handle);
    d12__drv_pending_free(device->pending);
    if (device->va)
        d12__drv_va_fini(device->va);
    free(device->va);
    memset(device, 0, sizeof *device);
}

HRESULT APIENTRY d12__refdrv_enable_extended_feature(D3D12DDI_HDEVICE handle, D3D12DDI_FEATURE_0020 feature,
                                                     UINT32 version)
{
    d12__refdrv_device *device = device_of(handle);
    if (feature != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES ||
        (version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 &&
         (version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 ||
          device->adapter->drm_mode == D12_REFDRV_DRM_V1)) ||
        device->adapter->drm_mode == D12_REFDRV_DRM_OFF || !device->callbacks.pfnReportMessageCb)
        return E_INVALIDARG;
    device->drm_version = version;
    atomic_store_explicit(&device->drm_flags, D12_REFDRV_DRM_SUPPORTED_FLAGS, memory_order_relaxed);
    device->drm_enabled = true;
    /* The one initialization message, before this returns (drivers/common/drvcommon_messages.h). */
    HRESULT hr = d12__drv_report_initialization(&device->callbacks, device->rt_device);
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

static void report(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                   UINT32 state_index, const char *text)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message = {id, severity, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text,
                                                     state_index};
    device->callbacks.pfnReportMessageCb(device->rt_device, &message);
}

void d12__refdrv_report_now(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                            UINT32 state_index, const char *format, ...)
{
    if (!d12__refdrv_validating(device))
        return;
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    report(device, id, severity, state_index, text);
}

/* Out of memory, the finding is lost: a timeline has nobody to tell, and a message is not worth a removal. */
void d12__refdrv_report_later(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                              UINT32 state_index, const char *format, ...)
{
    if (!d12__refdrv_validating(device))
        return;
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    d12__drv_pending_add(device->pending, id, severity, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, state_index, text);
}

/* Everything held now, oldest first, with no driver lock held (drivers/common/drvcommon_messages.c). */
static VOID APIENTRY flush_driver_reported_messages(D3D12DDI_HDEVICE handle)
{
    d12__refdrv_device *device = device_of(handle);
    d12__drv_pending_flush(device->pending, &device->callbacks, device->rt_device);
}

/* Called before every draw, dispatch and copy: a plain store, read by the recording call that follows on the
 * same thread. */
static VOID APIENTRY set_command_list_state_index(D3D12DDI_HCOMMANDLIST command_list, UINT32 index)
{
    ((d12__refdrv_command_list *)command_list.pDrvPrivate)->state_index = index;
}

const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__refdrv_drm_funcs = {
    flush_driver_reported_messages, set_command_list_state_index};

/* ---- Feature version 2 ---- */

static UINT APIENTRY get_supported_drm_flags(D3D12DDI_HDEVICE handle)
{
    (void)handle;
    return D12_REFDRV_DRM_SUPPORTED_FLAGS;
}

/* Read by the recording and timeline threads with relaxed loads: a change applies to what is checked after it. */
static VOID APIENTRY set_drm_flags(D3D12DDI_HDEVICE handle, UINT flags)
{
    atomic_store_explicit(&device_of(handle)->drm_flags, flags & D12_REFDRV_DRM_SUPPORTED_FLAGS,
                          memory_order_relaxed);
}

const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 d12__refdrv_drm1_funcs = {get_supported_drm_flags,
                                                                                 set_drm_flags};

const D3D12DDI_DEVICE_FUNCS_CORE_0126 d12__refdrv_device_core_funcs = {
    d12__refdrv_calc_private_queue_size,     d12__refdrv_create_queue,       d12__refdrv_destroy_queue,
    d12__refdrv_calc_private_allocator_size, d12__refdrv_create_allocator,   d12__refdrv_destroy_allocator,
    d12__refdrv_reset_allocator,             d12__refdrv_calc_private_list_size, d12__refdrv_create_list,
    d12__refdrv_destroy_list,                d12__refdrv_calc_private_resource_size, d12__refdrv_create_resource,
    d12__refdrv_destroy_resource,            d12__refdrv_map_resource,       d12__refdrv_unmap_resource,
    d12__refdrv_resource_gpu_va,
};

void d12_refdrv_device_set_error(D3D12DDI_HDEVICE handle, HRESULT hr)
{
    d12__refdrv_device *device = device_of(handle);
    device->callbacks.pfnSetErrorCb(device->rt_device, hr);
}
