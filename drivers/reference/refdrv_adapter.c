/* The reference driver's adapter: OpenAdapter12, version list, caps from the profile, the optional
 * extended-features table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12_envnum.h"
#include "drvcommon_adapter.h"
#include "refdrv.h"

/* The extended features this driver offers, with their versions: driver-reported messages unless
 * D12RT_REFDRV_DRM=off (refdrv.h). */
typedef struct extended_feature {
    D3D12DDI_FEATURE_0020 feature;
    const UINT32 *versions;
    UINT32 version_count;
} extended_feature;

/* Both versions (drivers/common/drvcommon_adapter.h); D12RT_REFDRV_DRM=v1 offers only the first. */
static const extended_feature k_drm_feature = {D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, d12__drv_drm_versions,
                                               2};
static const extended_feature k_drm_feature_v1 = {D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES,
                                                  d12__drv_drm_versions, 1};

static const extended_feature *extended_features(const d12__refdrv_adapter *adapter, UINT32 *count)
{
    *count = adapter->drm_mode == D12_REFDRV_DRM_OFF ? 0 : 1;
    return !*count ? NULL : adapter->drm_mode == D12_REFDRV_DRM_V1 ? &k_drm_feature_v1 : &k_drm_feature;
}

static d12__refdrv_adapter *adapter_of(D3D12DDI_HADAPTER handle)
{
    return (d12__refdrv_adapter *)handle.pDrvPrivate;
}

static HRESULT APIENTRY get_caps(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_GETCAPS *args)
{
    /* The adapter's identity: Microsoft's vendor ID and WARP's device ID, as the software adapter it stands for. */
    if (args && args->Type == D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY)
        return d12__drv_adapter_identity(args, D12_REFDRV_VENDOR_ID, D12_REFDRV_DEVICE_ID);
    if (!args || args->Type != D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA || !args->pInfo)
        return E_INVALIDARG;
    D3D12_FEATURE feature = *(const D3D12_FEATURE *)args->pInfo;
    if (feature == D3D12_FEATURE_D12RT_SHADER_EXECUTION) /* it validates pipeline states as data and runs none */
        return d12__drv_shader_execution(args, false);
    return d12__refdrv_profile_fill(&adapter_of(adapter)->profile, (UINT)feature, args->pData, args->DataSize);
}

static HRESULT APIENTRY get_supported_extended_features(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                        D3D12DDI_FEATURE_0020 *features)
{
    UINT32 count;
    const extended_feature *list = extended_features(adapter_of(adapter), &count);
    if (!entries)
        return E_INVALIDARG;
    if (features && *entries < count)
        return D12_DRV_ERROR_INSUFFICIENT_BUFFER;
    for (UINT32 i = 0; features && i < count; i++)
        features[i] = list[i].feature;
    *entries = count;
    return S_OK;
}

static HRESULT APIENTRY get_supported_extended_feature_versions(D3D12DDI_HADAPTER adapter,
                                                                D3D12DDI_FEATURE_0020 feature, UINT32 *entries,
                                                                UINT32 *versions)
{
    UINT32 count;
    const extended_feature *list = extended_features(adapter_of(adapter), &count);
    for (UINT32 i = 0; i < count; i++) {
        if (list[i].feature == feature)
            return d12__drv_copy_list(entries, versions, list[i].versions, list[i].version_count, sizeof(UINT32));
    }
    return E_INVALIDARG;
}

static HRESULT APIENTRY fill_ddi_table(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table,
                                       SIZE_T size, UINT number, D3D12DDI_HRTTABLE rt_table)
{
    static const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 k_extended = {
        get_supported_extended_features, get_supported_extended_feature_versions,
        d12__refdrv_enable_extended_feature};
    (void)rt_table;
    if (number != 0 || !table)
        return E_INVALIDARG;
    if (type == D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES && size >= sizeof k_extended) {
        memcpy(table, &k_extended, sizeof k_extended);
        return S_OK;
    }
    if (type == D3D12DDI_TABLE_TYPE_DEVICE_CORE)
        return d12__drv_copy_table(table, size, &d12__refdrv_device_core_funcs, sizeof d12__refdrv_device_core_funcs);
    if (type == D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D)
        return d12__drv_copy_list_table(table, size, &d12__refdrv_command_list_funcs);
    if (type == D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS)
        return d12__drv_copy_table(table, size, &d12__refdrv_descriptor_funcs, sizeof d12__refdrv_descriptor_funcs);
    if (type == D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D)
        return d12__drv_copy_table(table, size, &d12__refdrv_command_queue_funcs,
                                   sizeof d12__refdrv_command_queue_funcs);
    if (type == D3D12DDI_TABLE_TYPE_D12RT_HEAPS)
        return d12__drv_copy_table(table, size, &d12__refdrv_heap_funcs, sizeof d12__refdrv_heap_funcs);
    if (type == D3D12DDI_TABLE_TYPE_D12RT_PIPELINES)
        return d12__drv_copy_table(table, size, &d12__refdrv_pipeline_funcs, sizeof d12__refdrv_pipeline_funcs);
    if (type == D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING)
        return d12__drv_copy_table(table, size, &d12__refdrv_binding_funcs, sizeof d12__refdrv_binding_funcs);
    if (type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES && size >= sizeof d12__refdrv_drm_funcs &&
        adapter_of(adapter)->drm_mode != D12_REFDRV_DRM_OFF) {
        memcpy(table, &d12__refdrv_drm_funcs, sizeof d12__refdrv_drm_funcs);
        return S_OK;
    }
    if (type == D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1 && adapter_of(adapter)->drm_mode != D12_REFDRV_DRM_OFF &&
        adapter_of(adapter)->drm_mode != D12_REFDRV_DRM_V1)
        return d12__drv_copy_table(table, size, &d12__refdrv_drm1_funcs, sizeof d12__refdrv_drm1_funcs);
    return E_INVALIDARG;
}

static HRESULT APIENTRY close_adapter(D3D12DDI_HADAPTER handle)
{
    d12__refdrv_adapter *adapter = adapter_of(handle);
    d12__refdrv_profile_free(&adapter->profile);
    free(adapter);
    return S_OK;
}

/* D12RT_REFDRV_DRM (refdrv.h); anything else is reported and means `on`, the driver's normal behaviour. */
static d12__refdrv_drm_mode drm_mode_from_environment(void)
{
    const char *mode = getenv("D12RT_REFDRV_DRM");
    if (!mode || !*mode || strcmp(mode, "on") == 0)
        return D12_REFDRV_DRM_ON;
    if (strcmp(mode, "off") == 0)
        return D12_REFDRV_DRM_OFF;
    if (strcmp(mode, "fail") == 0)
        return D12_REFDRV_DRM_FAIL;
    if (strcmp(mode, "v1") == 0)
        return D12_REFDRV_DRM_V1;
    fprintf(stderr, "d12rt reference driver: D12RT_REFDRV_DRM=%s is not on, off, fail or v1; using on\n", mode);
    return D12_REFDRV_DRM_ON;
}

/* D12RT_REFDRV_EXEC_DELAY_MS (refdrv.h): milliseconds, 0 when unset; anything else is reported and ignored. */
static unsigned exec_delay_from_environment(void)
{
    uint64_t value = 0;
    d12_env_number("D12RT_REFDRV_EXEC_DELAY_MS", "a whole number of milliseconds", 0, 60000, false, &value, stderr,
                   "d12rt reference driver", "ignored");
    return (unsigned)value;
}

/* One GPU-time rate (refdrv.h): decimal digits only, at most 10^12; anything else is reported and the default
 * kept, so a typo cannot make every command take hours. */
static UINT64 rate_from_environment(const char *name, UINT64 fallback)
{
    char otherwise[40];
    snprintf(otherwise, sizeof otherwise, "using %llu", (unsigned long long)fallback);
    uint64_t value = fallback;
    d12_env_number(name, "a whole number", 0, 1000000000000ull, false, &value, stderr, "d12rt reference driver",
                   otherwise);
    return value;
}

static d12__refdrv_rates rates_from_environment(void)
{
    d12__refdrv_rates rates = {
        rate_from_environment("D12RT_REFDRV_PS_PER_VERTEX", D12_REFDRV_DEFAULT_PS_PER_VERTEX),
        rate_from_environment("D12RT_REFDRV_PS_PER_GROUP", D12_REFDRV_DEFAULT_PS_PER_GROUP),
        rate_from_environment("D12RT_REFDRV_PS_PER_BYTE", D12_REFDRV_DEFAULT_PS_PER_BYTE),
        rate_from_environment("D12RT_REFDRV_NS_PER_COMMAND", D12_REFDRV_DEFAULT_NS_PER_COMMAND),
    };
    return rates;
}

HRESULT APIENTRY d12_refdrv_OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    if (!args || !args->pAdapterFuncs)
        return E_INVALIDARG;
    d12__refdrv_adapter *adapter = calloc(1, sizeof *adapter);
    if (!adapter)
        return E_OUTOFMEMORY;
    /* The profile is read here, once, so a bad profile fails the adapter rather than some later query. */
    HRESULT hr = d12__refdrv_profile_load(&adapter->profile, stderr);
    if (FAILED(hr)) {
        free(adapter);
        return hr;
    }
    adapter->rt_adapter = args->hRTAdapter;
    adapter->drm_mode = drm_mode_from_environment();
    adapter->exec_delay_ms = exec_delay_from_environment();
    adapter->rates = rates_from_environment();
    const D3D12DDI_ADAPTERFUNCS funcs = {
        d12__refdrv_calc_private_device_size, d12__refdrv_create_device,        close_adapter,
        d12__drv_get_supported_versions,      get_caps,
        d12__drv_get_optional_ddi_tables_compute, fill_ddi_table,                   d12__refdrv_destroy_device};
    *args->pAdapterFuncs = funcs;
    args->hAdapter.pDrvPrivate = adapter;
    return S_OK;
}
