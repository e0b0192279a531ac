/* libd12_drmshim.so: the reference driver behind a thin shim that lets a public-ABI test watch and play the
 * driver side of driver-reported messages. It exports OpenAdapter12 (the reference driver's, wrapped) and
 * d12_drmshim_* functions the test finds with dlsym in the copy D12RT_DRIVER loaded:
 *   - counts of pfnEnableExtendedFeature(DRIVER_REPORTED_MESSAGES) and of pfnFillDDITable(type 47) calls;
 *   - the last device's runtime callbacks, so the test can report and query identities as a driver does. */
#include <stdatomic.h>

#include "refdrv.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

static D3D12DDI_ADAPTERFUNCS g_inner;
static PFND3D12DDI_ENABLE_EXTENDED_FEATURE_0020 g_inner_enable;
static atomic_uint g_enable_calls, g_table_fills;
static D3D12DDI_HRTDEVICE g_rt_device;
static D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 g_callbacks;

static HRESULT APIENTRY shim_enable(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature, UINT32 version)
{
    if (feature == D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES)
        atomic_fetch_add(&g_enable_calls, 1);
    return g_inner_enable(device, feature, version);
}

static HRESULT APIENTRY shim_fill(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size,
                                  UINT number, D3D12DDI_HRTTABLE rt_table)
{
    if (type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES)
        atomic_fetch_add(&g_table_fills, 1);
    HRESULT hr = g_inner.pfnFillDDITable(adapter, type, table, size, number, rt_table);
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES) {
        D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *funcs = table;
        g_inner_enable = funcs->pfnEnableExtendedFeature;
        funcs->pfnEnableExtendedFeature = shim_enable;
    }
    return hr;
}

static HRESULT APIENTRY shim_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    g_rt_device = args->hRTDevice;
    if ((args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0126)
        g_callbacks = *args->p12UMCallbacks_0126;
    return g_inner.pfnCreateDevice(adapter, args);
}

SHIM_EXPORT HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    HRESULT hr = d12_refdrv_OpenAdapter12(args);
    if (FAILED(hr))
        return hr;
    g_inner = *args->pAdapterFuncs;
    args->pAdapterFuncs->pfnFillDDITable = shim_fill;
    args->pAdapterFuncs->pfnCreateDevice = shim_create_device;
    return S_OK;
}

SHIM_EXPORT unsigned d12_drmshim_enable_calls(void)
{
    return atomic_load(&g_enable_calls);
}

SHIM_EXPORT unsigned d12_drmshim_table_fills(void)
{
    return atomic_load(&g_table_fills);
}

/* pfnReportMessageCb on the last device created, as the driver would call it. */
SHIM_EXPORT HRESULT d12_drmshim_report(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    return g_callbacks.pfnReportMessageCb(g_rt_device, message);
}

/* pfnQueryObjectIdentityCb on the last device created; `handle` NULL names that device itself. */
SHIM_EXPORT HRESULT d12_drmshim_identity(void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *identity)
{
    D3D12DDI_HANDLE_AND_TYPE object = {handle ? handle : g_rt_device.handle, type};
    return g_callbacks.pfnQueryObjectIdentityCb(g_rt_device, object, size, identity);
}
