/* The reference driver's adapter: OpenAdapter12, version list, caps from the profile, the optional
 * extended-features table. */
#include <stdlib.h>
#include <string.h>

#include "refdrv.h"

#define ERROR_INSUFFICIENT_BUFFER_HR ((HRESULT)0x8007007AL) /* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */

/* Every DDI version this driver implements: all the runtime's (the shapes are one). */
static const UINT64 k_versions[] = D12RT_DDI_SUPPORTED_VERSIONS;

/* The extended features this driver offers, with their versions. None yet: the driver-reported-messages
 * feature (D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, versions 1u...) is added here, with its case in
 * d12__refdrv_enable_extended_feature and its table in fill_ddi_table. */
typedef struct extended_feature {
    D3D12DDI_FEATURE_0020 feature;
    const UINT32 *versions;
    UINT32 version_count;
} extended_feature;

static const extended_feature *extended_features(UINT32 *count)
{
    *count = 0;
    return NULL;
}

static d12__refdrv_adapter *adapter_of(D3D12DDI_HADAPTER handle)
{
    return (d12__refdrv_adapter *)handle.pDrvPrivate;
}

/* The two-call pattern every list query here follows: count with a NULL array, else fill what fits. */
static HRESULT copy_list(UINT32 *entries, void *out, const void *items, UINT32 count, size_t item_size)
{
    if (!entries)
        return E_INVALIDARG;
    if (!out) {
        *entries = count;
        return S_OK;
    }
    if (*entries < count)
        return ERROR_INSUFFICIENT_BUFFER_HR;
    if (count)
        memcpy(out, items, count * item_size);
    *entries = count;
    return S_OK;
}

static HRESULT APIENTRY get_supported_versions(D3D12DDI_HADAPTER adapter, UINT32 *entries, UINT64 *versions)
{
    (void)adapter;
    return copy_list(entries, versions, k_versions, sizeof k_versions / sizeof k_versions[0], sizeof k_versions[0]);
}

static HRESULT APIENTRY get_caps(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_GETCAPS *args)
{
    if (!args || args->Type != D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA || !args->pInfo)
        return E_INVALIDARG;
    D3D12_FEATURE feature = *(const D3D12_FEATURE *)args->pInfo;
    return d12__refdrv_profile_fill(&adapter_of(adapter)->profile, (UINT)feature, args->pData, args->DataSize);
}

static HRESULT APIENTRY get_optional_ddi_tables(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                D3D12DDI_TABLE_REQUEST *requests)
{
    /* Offered even with no features, so the runtime's adapter-init query path always runs. */
    static const D3D12DDI_TABLE_REQUEST k_tables[] = {{D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, 1}};
    (void)adapter;
    return copy_list(entries, requests, k_tables, 1, sizeof k_tables[0]);
}

static HRESULT APIENTRY get_supported_extended_features(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                        D3D12DDI_FEATURE_0020 *features)
{
    UINT32 count;
    const extended_feature *list = extended_features(&count);
    (void)adapter;
    if (!entries)
        return E_INVALIDARG;
    if (features && *entries < count)
        return ERROR_INSUFFICIENT_BUFFER_HR;
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
    const extended_feature *list = extended_features(&count);
    (void)adapter;
    for (UINT32 i = 0; i < count; i++) {
        if (list[i].feature == feature)
            return copy_list(entries, versions, list[i].versions, list[i].version_count, sizeof(UINT32));
    }
    return E_INVALIDARG;
}

static HRESULT APIENTRY fill_ddi_table(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table,
                                       SIZE_T size, UINT number, D3D12DDI_HRTTABLE rt_table)
{
    static const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 k_extended = {
        get_supported_extended_features, get_supported_extended_feature_versions,
        d12__refdrv_enable_extended_feature};
    (void)adapter;
    (void)rt_table;
    if (type != D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES || number != 0 || !table || size < sizeof k_extended)
        return E_INVALIDARG;
    memcpy(table, &k_extended, sizeof k_extended);
    return S_OK;
}

static HRESULT APIENTRY close_adapter(D3D12DDI_HADAPTER handle)
{
    d12__refdrv_adapter *adapter = adapter_of(handle);
    d12__refdrv_profile_free(&adapter->profile);
    free(adapter);
    return S_OK;
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
    const D3D12DDI_ADAPTERFUNCS funcs = {
        d12__refdrv_calc_private_device_size, d12__refdrv_create_device, close_adapter, get_supported_versions,
        get_caps, get_optional_ddi_tables, fill_ddi_table, d12__refdrv_destroy_device};
    *args->pAdapterFuncs = funcs;
    args->hAdapter.pDrvPrivate = adapter;
    return S_OK;
}
