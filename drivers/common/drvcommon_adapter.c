/* The adapter and device boilerplate both drivers share (drvcommon_adapter.h says what it owns and why). */
#include <string.h>

#include "drvcommon_adapter.h"

static const UINT64 k_versions[] = D12RT_DDI_SUPPORTED_VERSIONS;

const UINT32 d12__drv_drm_versions[2] = {D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0,
                                         D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1};

HRESULT d12__drv_copy_list(UINT32 *entries, void *out, const void *items, UINT32 count, size_t item_size)
{
    if (!entries)
        return E_INVALIDARG;
    if (!out) {
        *entries = count;
        return S_OK;
    }
    if (*entries < count)
        return D12_DRV_ERROR_INSUFFICIENT_BUFFER;
    if (count)
        memcpy(out, items, count * item_size);
    *entries = count;
    return S_OK;
}

HRESULT d12__drv_copy_table(void *table, SIZE_T size, const void *source, size_t source_size)
{
    if (size < source_size)
        return E_INVALIDARG;
    memcpy(table, source, source_size);
    return S_OK;
}

HRESULT d12__drv_copy_list_table(void *table, SIZE_T size, const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 *funcs)
{
    if (size >= sizeof *funcs)
        return d12__drv_copy_table(table, size, funcs, sizeof *funcs);
    return d12__drv_copy_table(table, size, funcs, sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126));
}

HRESULT d12__drv_adapter_identity(const D3D12DDIARG_GETCAPS *args, UINT vendor_id, UINT device_id)
{
    if (!args->pData || args->DataSize < sizeof(D3D12DDI_D12RT_ADAPTER_IDENTITY))
        return E_INVALIDARG;
    const D3D12DDI_D12RT_ADAPTER_IDENTITY identity = {vendor_id, device_id, 0, 0};
    memcpy(args->pData, &identity, sizeof identity);
    return S_OK;
}

HRESULT d12__drv_shader_execution(const D3D12DDIARG_GETCAPS *args, bool executes)
{
    if (!args->pData || args->DataSize != sizeof(D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION))
        return E_INVALIDARG;
    const D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION answer = {executes ? TRUE : FALSE};
    memcpy(args->pData, &answer, sizeof answer);
    return S_OK;
}

HRESULT APIENTRY d12__drv_get_supported_versions(D3D12DDI_HADAPTER adapter, UINT32 *entries, UINT64 *versions)
{
    (void)adapter;
    return d12__drv_copy_list(entries, versions, k_versions, sizeof k_versions / sizeof k_versions[0],
                              sizeof k_versions[0]);
}

/* Every table both drivers fill; the compute pair comes last, so a driver without it lists the same entries less two. */
static const D3D12DDI_TABLE_REQUEST k_tables[] = {
    {D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, 1},
    {D3D12DDI_TABLE_TYPE_DEVICE_CORE, 1},
    {D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, 1},
    {D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, 1},
    {D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS, 1}, /* docs/descriptors.md: both drivers fill it */
    {D3D12DDI_TABLE_TYPE_D12RT_HEAPS, 1}, /* heaps and placed buffers (docs/heaps.md) */
    {D3D12DDI_TABLE_TYPE_D12RT_PIPELINES, 1}, /* compute pipeline states and the list's binding (docs/pipelines.md) */
    {D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING, 1},
};
#define K_COMPUTE_TABLES 2u

HRESULT APIENTRY d12__drv_get_optional_ddi_tables(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                  D3D12DDI_TABLE_REQUEST *requests)
{
    (void)adapter;
    return d12__drv_copy_list(entries, requests, k_tables, sizeof k_tables / sizeof k_tables[0] - K_COMPUTE_TABLES,
                              sizeof k_tables[0]);
}

HRESULT APIENTRY d12__drv_get_optional_ddi_tables_compute(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                          D3D12DDI_TABLE_REQUEST *requests)
{
    (void)adapter;
    return d12__drv_copy_list(entries, requests, k_tables, sizeof k_tables / sizeof k_tables[0], sizeof k_tables[0]);
}

void d12__drv_copy_callbacks(const D3D12DDIARG_CREATEDEVICE_0003 *args,
                             D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                             D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt, bool *has_kt, bool *has_0127)
{
    /* The callback table's layout follows the negotiated build (its _0126 revision adds the message callbacks). */
    if ((args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0126)
        *callbacks = *args->p12UMCallbacks_0126;
    else
        callbacks->pfnSetErrorCb = args->p12UMCallbacks->pfnSetErrorCb;
    *has_kt = args->pKTCallbacks && args->pKTCallbacks->pfnSignalFenceFromGpuCb &&
              args->pKTCallbacks->pfnWaitForFenceFromGpuCb;
    /* The kernel-thunk table's layout follows the negotiated build too (_0127 adds the fault and progress ones). */
    if (*has_kt && (args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0127) {
        *kt = *args->pKTCallbacks_0127;
        *has_0127 = kt->pfnDeviceFaultCb && kt->pfnReportGpuProgressCb;
    } else if (*has_kt) {
        kt->pfnSignalFenceFromGpuCb = args->pKTCallbacks->pfnSignalFenceFromGpuCb;
        kt->pfnWaitForFenceFromGpuCb = args->pKTCallbacks->pfnWaitForFenceFromGpuCb;
    }
}
