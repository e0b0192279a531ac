/* libd12_testdrv.so: a deliberately configurable (and breakable) driver for the loader tests. The mode comes
 * from D12_TESTDRV_MODE:
 *   good             two extended features (PIN_RESOURCES 1u,2u; RENDER_PASS 1u); versions 0110 and a bogus one
 *   highest_common   lists 0110, 0126 and a token the runtime does not know
 *   no_common        lists only a token the runtime does not know
 *   open_fails       OpenAdapter12 returns E_OUTOFMEMORY
 *   null_slot        OpenAdapter12 leaves pfnGetCaps NULL
 *   zero_size        pfnCalcPrivateDeviceSize returns 0        absurd_size  returns SIZE_MAX / 2
 *   create_fails     pfnCreateDevice returns E_OUTOFMEMORY     getcaps_fails pfnGetCaps returns E_FAIL
 *   huge_count       pfnGetSupportedVersions reports 1000000 entries
 *   overfill         pfnGetSupportedVersions claims to have written more entries than it was given
 *   ext_null_slot    the extended-features table has a NULL slot
 *   ext_fill_fails   the extended-features table is offered but pfnFillDDITable fails
 * pfnGetCaps (when it works) records what it was given in d12_testdrv_last_caps (read by the test through
 * dlsym) and answers D3D12_OPTIONS5 with RaytracingTier 11. OpenAdapter12 asks pfnQueryRegistryCb (when the runtime
 * passes the adapter callbacks) for "TestDriverValue", then with a NULL query and a NULL name, and records the
 * answers in d12_testdrv_registry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "d12rt/d3d12ddi.h"

#define EXPORT __attribute__((visibility("default")))
#define BOGUS_TOKEN 0x000C005000C80000ull /* build 200: newer than the runtime */

/* What the last pfnGetCaps and pfnEnableExtendedFeature saw, for the tests. */
EXPORT unsigned char d12_testdrv_last_caps[1024];
EXPORT UINT d12_testdrv_last_caps_size;
EXPORT UINT32 d12_testdrv_enabled[2]; /* feature, version */
EXPORT UINT d12_testdrv_device_version;
/* [0] callbacks passed, [1] hr, [2] ValueType, [3] Source, [4] OutputDword, [5] hr of a NULL query, [6] of a NULL
 * pValueName, [7] of "NoSuchValue" */
EXPORT HRESULT d12_testdrv_registry[8];

static const char *mode(void)
{
    const char *m = getenv("D12_TESTDRV_MODE");
    return m ? m : "good";
}

static int is(const char *name)
{
    return strcmp(mode(), name) == 0;
}

static HRESULT list(UINT32 *entries, void *out, const void *items, UINT32 count, size_t size)
{
    if (!out) {
        *entries = count;
        return S_OK;
    }
    if (*entries < count)
        return E_INVALIDARG;
    memcpy(out, items, count * size);
    *entries = count;
    return S_OK;
}

static SIZE_T APIENTRY calc_size(D3D12DDI_HADAPTER a, const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args)
{
    (void)a;
    (void)args;
    if (is("zero_size"))
        return 0;
    return is("absurd_size") ? SIZE_MAX / 2 : 64;
}

static HRESULT APIENTRY create_device(D3D12DDI_HADAPTER a, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    (void)a;
    if (is("create_fails"))
        return E_OUTOFMEMORY;
    d12_testdrv_device_version = args->Version;
    memset(args->hDrvDevice.pDrvPrivate, 0xAB, 64); /* the whole private block is writable */
    return S_OK;
}

static HRESULT APIENTRY close_adapter(D3D12DDI_HADAPTER a)
{
    (void)a;
    return S_OK;
}

static HRESULT APIENTRY get_versions(D3D12DDI_HADAPTER a, UINT32 *entries, UINT64 *versions)
{
    static const UINT64 good[] = {D3D12DDI_SUPPORTED_0110, BOGUS_TOKEN};
    static const UINT64 highest[] = {D3D12DDI_SUPPORTED_0110, BOGUS_TOKEN, D3D12DDI_SUPPORTED_0126};
    static const UINT64 none[] = {BOGUS_TOKEN};
    (void)a;
    if (is("huge_count")) {
        *entries = 1000000;
        return S_OK;
    }
    if (is("overfill") && versions) {
        versions[0] = D3D12DDI_SUPPORTED_0110;
        *entries += 5;
        return S_OK;
    }
    if (is("highest_common"))
        return list(entries, versions, highest, 3, sizeof highest[0]);
    if (is("no_common"))
        return list(entries, versions, none, 1, sizeof none[0]);
    return list(entries, versions, good, 2, sizeof good[0]);
}

static HRESULT APIENTRY get_caps(D3D12DDI_HADAPTER a, const D3D12DDIARG_GETCAPS *args)
{
    (void)a;
    if (is("getcaps_fails"))
        return E_FAIL;
    if (args->DataSize > sizeof d12_testdrv_last_caps)
        return E_INVALIDARG;
    memcpy(d12_testdrv_last_caps, args->pData, args->DataSize);
    d12_testdrv_last_caps_size = args->DataSize;
    if (*(const D3D12_FEATURE *)args->pInfo == D3D12_FEATURE_D3D12_OPTIONS5) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 *o5 = (D3D12_FEATURE_DATA_D3D12_OPTIONS5 *)args->pData;
        o5->RaytracingTier = D3D12_RAYTRACING_TIER_1_1;
    }
    return S_OK;
}

static HRESULT APIENTRY get_tables(D3D12DDI_HADAPTER a, UINT32 *entries, D3D12DDI_TABLE_REQUEST *requests)
{
    static const D3D12DDI_TABLE_REQUEST tables[] = {{D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, 1}};
    (void)a;
    return list(entries, requests, tables, 1, sizeof tables[0]);
}

static HRESULT APIENTRY get_features(D3D12DDI_HADAPTER a, UINT32 *entries, D3D12DDI_FEATURE_0020 *features)
{
    static const D3D12DDI_FEATURE_0020 all[] = {D3D12DDI_FEATURE_0076_PIN_RESOURCES,
                                                D3D12DDI_FEATURE_0043_RENDER_PASS};
    (void)a;
    return list(entries, features, all, 2, sizeof all[0]);
}

static HRESULT APIENTRY get_feature_versions(D3D12DDI_HADAPTER a, D3D12DDI_FEATURE_0020 feature, UINT32 *entries,
                                             UINT32 *versions)
{
    static const UINT32 pin[] = {1u, 2u}, pass[] = {1u};
    (void)a;
    if (feature == D3D12DDI_FEATURE_0076_PIN_RESOURCES)
        return list(entries, versions, pin, 2, sizeof(UINT32));
    return list(entries, versions, pass, 1, sizeof(UINT32));
}

static HRESULT APIENTRY enable_feature(D3D12DDI_HDEVICE d, D3D12DDI_FEATURE_0020 feature, UINT32 version)
{
    (void)d;
    d12_testdrv_enabled[0] = (UINT32)feature;
    d12_testdrv_enabled[1] = version;
    return S_OK;
}

static HRESULT APIENTRY fill_table(D3D12DDI_HADAPTER a, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size,
                                   UINT number, D3D12DDI_HRTTABLE rt)
{
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 funcs = {get_features, get_feature_versions, enable_feature};
    (void)a;
    (void)number;
    (void)rt;
    if (is("ext_fill_fails") || type != D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES || size < sizeof funcs)
        return E_INVALIDARG;
    if (is("ext_null_slot"))
        funcs.pfnGetSupportedExtendedFeatureVersions = NULL;
    memcpy(table, &funcs, sizeof funcs);
    return S_OK;
}

static VOID APIENTRY destroy_device(D3D12DDI_HDEVICE d)
{
    (void)d;
}

EXPORT HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    if (is("open_fails"))
        return E_OUTOFMEMORY;
    D3D12DDI_ADAPTERFUNCS funcs = {calc_size, create_device, close_adapter, get_versions,
                                   get_caps, get_tables, fill_table, destroy_device};
    if (is("null_slot"))
        funcs.pfnGetCaps = NULL;
    const D3D12DDI_D12RT_ADAPTERCALLBACKS *callbacks = args->pAdapterCallbacks;
    memset(d12_testdrv_registry, 0, sizeof d12_testdrv_registry);
    if (callbacks && callbacks->pfnQueryRegistryCb) {
        D3D12DDICB_D12RT_QUERYREGISTRY query = {"TestDriverValue", 99, 99, 99};
        d12_testdrv_registry[0] = 1;
        d12_testdrv_registry[1] = callbacks->pfnQueryRegistryCb(args->hRTAdapter, &query);
        d12_testdrv_registry[2] = (HRESULT)query.ValueType;
        d12_testdrv_registry[3] = (HRESULT)query.Source;
        d12_testdrv_registry[4] = (HRESULT)query.OutputDword;
        d12_testdrv_registry[5] = callbacks->pfnQueryRegistryCb(args->hRTAdapter, NULL);
        D3D12DDICB_D12RT_QUERYREGISTRY unnamed = {NULL, 0, 0, 0};
        d12_testdrv_registry[6] = callbacks->pfnQueryRegistryCb(args->hRTAdapter, &unnamed);
        D3D12DDICB_D12RT_QUERYREGISTRY absent = {"NoSuchValue", 7, 7, 7};
        d12_testdrv_registry[7] = callbacks->pfnQueryRegistryCb(args->hRTAdapter, &absent);
    }
    *args->pAdapterFuncs = funcs;
    args->hAdapter.pDrvPrivate = NULL;
    return S_OK;
}
