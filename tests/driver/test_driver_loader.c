/* The runtime side of the driver boundary (runtime/driver.h) against the built-in reference driver, the same
 * driver loaded as libd12_refdrv.so, a driver file that does not exist or lacks OpenAdapter12, and
 * libd12_testdrv.so in each of its broken modes. One ctest per case: test_driver_loader CASE. */
#define _GNU_SOURCE /* RTLD_NOLOAD, setenv, mkstemp */
#include <dlfcn.h>
#include <stdlib.h>

#include "driver.h"
#include "driver_test.h"
#include "refdrv.h"

#define DRIVER_INTERNAL DXGI_ERROR_DRIVER_INTERNAL_ERROR

typedef struct hook_log {
    unsigned calls;
    HRESULT last;
} hook_log;

static void record_error(void *context, HRESULT reason)
{
    hook_log *log = context;
    log->calls++;
    log->last = reason;
}

/* A symbol of an already loaded test driver (the runtime dlopen()ed it RTLD_LOCAL). */
static void *driver_symbol(const char *path, const char *name)
{
    void *library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    void *symbol = library ? dlsym(library, name) : NULL;
    if (library)
        dlclose(library); /* drops only the reference NOLOAD added */
    return symbol;
}

static HRESULT open_test_driver(const char *mode, d12_driver_adapter **adapter)
{
    setenv("D12_TESTDRV_MODE", mode, 1);
    return d12__driver_adapter_open(TESTDRV_SO, adapter);
}

static int64_t raytracing_tier(d12_driver_adapter *adapter)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 o5;
    memset(&o5, 0x55, sizeof o5);
    if (FAILED(d12__driver_get_feature_data(adapter, D3D12_FEATURE_D3D12_OPTIONS5, &o5, sizeof o5)))
        return -1;
    return o5.RaytracingTier;
}

/* The reference driver through whichever path opened it: negotiation, one extended feature (driver-reported
 * messages, versions 1 and 2), true caps, a device with its private memory. */
static void check_reference_adapter(d12_driver_adapter *adapter)
{
    UINT32 count = 99;
    CHECK_EQ_INT(d12__driver_adapter_version(adapter), D3D12DDI_SUPPORTED_0127);
    const D3D12DDI_FEATURE_0020 *features = d12__driver_extended_features(adapter, &count);
    CHECK_EQ_INT(count, 1);
    CHECK(features && features[0] == D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES);
    /* v2 (issue 20): it lists 1u and 2u; "the highest version both sides understand": 2 for this runtime, 1 for a
     * runtime that understands only version 1 */
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, 99),
                 D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1);
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES,
                                                  D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0),
                 D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0);
    CHECK_EQ_INT(d12__driver_adapter_identity(adapter).VendorId, 0x1414); /* asked at adapter open */
    CHECK_EQ_INT(d12__driver_adapter_identity(adapter).DeviceId, 0x8C);
    CHECK_EQ_INT(raytracing_tier(adapter), 12);
    hook_log log = {0, S_OK};
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, record_error, &log, NULL, NULL};
    d12_driver_device *device = NULL;
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    CHECK(device && d12__driver_device_handle(device).pDrvPrivate != NULL);
    CHECK(device && d12__driver_device_adapter(device) == adapter);
    CHECK_EQ_INT(d12__driver_enable_extended_feature(device, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 1), E_INVALIDARG);
    CHECK_EQ_INT(log.calls, 0);
    d12__driver_destroy_device(device);
}

static void builtin(void)
{
    d12_driver_adapter *adapter = NULL, *again = NULL;
    CHECK_EQ_INT(d12__driver_adapter_get(&adapter), S_OK);
    CHECK_EQ_STR(d12__driver_adapter_name(adapter), "built-in reference driver");
    check_reference_adapter(adapter);
    CHECK_EQ_INT(d12__driver_adapter_get(&again), S_OK);
    CHECK(again == adapter); /* once per process */
}

static void so_by_path(void)
{
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_STR(getenv("D12RT_DRIVER"), REFDRV_SO);
    CHECK_EQ_INT(d12__driver_adapter_get(&adapter), S_OK);
    CHECK_EQ_STR(d12__driver_adapter_name(adapter), REFDRV_SO);
    CHECK(driver_symbol(REFDRV_SO, "OpenAdapter12") != NULL);
    CHECK(driver_symbol(REFDRV_SO, "d12_refdrv_OpenAdapter12") == NULL); /* only the entry point exported */
    check_reference_adapter(adapter);
}

/* D12RT_DRIVER + D12RT_REFDRV_PROFILE reach the loaded .so. */
static void so_with_profile(void)
{
    const char *path = temp_file("D3D12_FEATURE_D3D12_OPTIONS5.RaytracingTier = D3D12_RAYTRACING_TIER_1_0\n");
    setenv("D12RT_REFDRV_PROFILE", path, 1);
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_INT(d12__driver_adapter_open(REFDRV_SO, &adapter), S_OK);
    CHECK_EQ_INT(raytracing_tier(adapter), 10);
    d12__driver_adapter_close(adapter);
    remove(path);
}

static void missing_file(void)
{
    d12_driver_adapter *adapter = (d12_driver_adapter *)1;
    capture_begin();
    HRESULT first = d12__driver_adapter_get(&adapter), second = d12__driver_adapter_get(&adapter);
    char *text = capture_end();
    CHECK_EQ_INT(first, E_FAIL);
    CHECK_EQ_INT(second, E_FAIL);
    CHECK(adapter == NULL);
    CHECK_EQ_STR(text, "d12rt: D12RT_DRIVER=/nonexistent/d12-driver.so: cannot load the driver: "
                       "/nonexistent/d12-driver.so: cannot open shared object file: No such file or directory\n");
    free(text);
}

static void missing_symbol(void)
{
    d12_driver_adapter *adapter = NULL;
    char expected[512];
    capture_begin();
    HRESULT hr = d12__driver_adapter_get(&adapter);
    char *text = capture_end();
    CHECK_EQ_INT(hr, E_FAIL);
    snprintf(expected, sizeof expected,
             "d12rt: D12RT_DRIVER=%s: the driver exports no OpenAdapter12: %s: undefined symbol: OpenAdapter12\n",
             NOSYM_SO, NOSYM_SO);
    CHECK_EQ_STR(text, expected);
    free(text);
}

/* ---- Negotiation ---- */

static void negotiation(void)
{
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_INT(open_test_driver("good", &adapter), S_OK); /* lists 0110 and a token the runtime lacks */
    CHECK_EQ_INT(d12__driver_adapter_version(adapter), D3D12DDI_SUPPORTED_0110);
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, NULL, NULL, NULL, NULL};
    d12_driver_device *device = NULL;
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    UINT *seen = driver_symbol(TESTDRV_SO, "d12_testdrv_device_version");
    CHECK(seen && *seen == D3D12DDI_VERSION_OF_SUPPORTED(D3D12DDI_SUPPORTED_0110));
    CHECK_EQ_INT(D3D12DDI_VERSION_OF_SUPPORTED(D3D12DDI_SUPPORTED_0110), 110u << 16);
    d12__driver_destroy_device(device);
    d12__driver_adapter_close(adapter);

    CHECK_EQ_INT(open_test_driver("highest_common", &adapter), S_OK);
    CHECK_EQ_INT(d12__driver_adapter_version(adapter), D3D12DDI_SUPPORTED_0126);
    d12__driver_adapter_close(adapter);
}

/* ---- pfnQueryRegistryCb (the adapter callbacks every OpenAdapter12 gets) ---- */

static HRESULT fake_registry(D3D12DDICB_D12RT_QUERYREGISTRY *query)
{
    if (strcmp(query->pValueName, "TestDriverValue") != 0)
        return DXGI_ERROR_NOT_FOUND;
    query->ValueType = 4; /* REG_DWORD */
    query->Source = D3D12DDI_D12RT_REGISTRY_SOURCE_LOCAL_MACHINE;
    query->OutputDword = 0x1234;
    return S_OK;
}

/* The hub's reader answers through the callback; NULL arguments are E_INVALIDARG before it is asked; an absent
 * value is DXGI_ERROR_NOT_FOUND with the outputs zeroed; without a reader (tests, tools) every value is absent. */
static void registry_callback(void)
{
    d12_driver_adapter *adapter = NULL;
    d12__driver_set_registry_query(fake_registry);
    CHECK_EQ_INT(open_test_driver("good", &adapter), S_OK);
    HRESULT *seen = driver_symbol(TESTDRV_SO, "d12_testdrv_registry"); /* loaded now */
    if (CHECK(seen != NULL)) {
        CHECK_EQ_INT(seen[0], 1);
        CHECK_EQ_INT(seen[1], S_OK);
        CHECK_EQ_INT(seen[2], 4);
        CHECK_EQ_INT(seen[3], D3D12DDI_D12RT_REGISTRY_SOURCE_LOCAL_MACHINE);
        CHECK_EQ_INT(seen[4], 0x1234);
        CHECK_EQ_INT(seen[5], E_INVALIDARG);
        CHECK_EQ_INT(seen[6], E_INVALIDARG);
        CHECK_EQ_INT(seen[7], DXGI_ERROR_NOT_FOUND);
    }
    d12__driver_adapter_close(adapter);
    d12__driver_set_registry_query(NULL);
    CHECK_EQ_INT(open_test_driver("good", &adapter), S_OK);
    if (seen) {
        CHECK_EQ_INT(seen[1], DXGI_ERROR_NOT_FOUND);
        CHECK_EQ_INT(seen[2] | seen[3] | seen[4], 0); /* the outputs zeroed */
    }
    d12__driver_adapter_close(adapter);
}

/* ---- Extended features ---- */

static void extended_features(void)
{
    d12_driver_adapter *adapter = NULL;
    UINT32 count;
    CHECK_EQ_INT(open_test_driver("good", &adapter), S_OK);
    const D3D12DDI_FEATURE_0020 *features = d12__driver_extended_features(adapter, &count);
    CHECK_EQ_INT(count, 2);
    CHECK(count == 2 && features[0] == D3D12DDI_FEATURE_0076_PIN_RESOURCES &&
          features[1] == D3D12DDI_FEATURE_0043_RENDER_PASS);
    const UINT32 *versions = d12__driver_extended_feature_versions(adapter, D3D12DDI_FEATURE_0076_PIN_RESOURCES,
                                                                   &count);
    CHECK(count == 2 && versions[0] == 1 && versions[1] == 2);
    CHECK(d12__driver_extended_feature_versions(adapter, D3D12DDI_FEATURE_0020_VIDEO, &count) == NULL);
    CHECK_EQ_INT(count, 0);
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 1), 1);
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 9), 2);
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 0), 0);
    CHECK_EQ_INT(d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0020_VIDEO, 9), 0);

    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, NULL, NULL, NULL, NULL};
    d12_driver_device *device = NULL;
    UINT32 *enabled = driver_symbol(TESTDRV_SO, "d12_testdrv_enabled");
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    CHECK_EQ_INT(d12__driver_enable_extended_feature(device, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 2), S_OK);
    CHECK(enabled && enabled[0] == D3D12DDI_FEATURE_0076_PIN_RESOURCES && enabled[1] == 2);
    /* Not reported: refused without asking the driver. */
    CHECK_EQ_INT(d12__driver_enable_extended_feature(device, D3D12DDI_FEATURE_0076_PIN_RESOURCES, 3), E_INVALIDARG);
    CHECK_EQ_INT(d12__driver_enable_extended_feature(device, D3D12DDI_FEATURE_0020_VIDEO, 1), E_INVALIDARG);
    CHECK(enabled && enabled[0] == D3D12DDI_FEATURE_0076_PIN_RESOURCES && enabled[1] == 2);
    d12__driver_destroy_device(device);
    d12__driver_adapter_close(adapter);
}

/* ---- True capabilities ---- */

static void feature_data(void)
{
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_INT(open_test_driver("good", &adapter), S_OK);
    /* Inputs pass through, outputs arrive zeroed whatever the caller's struct held. */
    D3D12_FEATURE_DATA_ARCHITECTURE arch = {3, TRUE, TRUE, TRUE};
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, D3D12_FEATURE_ARCHITECTURE, &arch, sizeof arch), S_OK);
    const D3D12_FEATURE_DATA_ARCHITECTURE *seen = driver_symbol(TESTDRV_SO, "d12_testdrv_last_caps");
    CHECK(seen && seen->NodeIndex == 3 && !seen->TileBasedRenderer && !seen->UMA && !seen->CacheCoherentUMA);
    CHECK_EQ_INT(arch.NodeIndex, 3);
    CHECK_EQ_INT(arch.UMA, 0); /* the driver left it: 0, not the caller's TRUE */
    CHECK_EQ_INT(raytracing_tier(adapter), 11);
    /* Unknown feature, size of no layout: E_INVALIDARG, data untouched, the driver not asked. */
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 o5 = {TRUE, D3D12_RENDER_PASS_TIER_2, D3D12_RAYTRACING_TIER_1_0};
    UINT *size_seen = driver_symbol(TESTDRV_SO, "d12_testdrv_last_caps_size");
    UINT before = size_seen ? *size_seen : 0;
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, (D3D12_FEATURE)9999, &o5, sizeof o5), E_INVALIDARG);
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, D3D12_FEATURE_D3D12_OPTIONS5, &o5, sizeof o5 + 4),
                 E_INVALIDARG);
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, D3D12_FEATURE_D3D12_OPTIONS_EXPERIMENTAL, &o5, 4),
                 E_INVALIDARG);
    CHECK(o5.SRVOnlyTiledResourceTier3 == TRUE && o5.RaytracingTier == D3D12_RAYTRACING_TIER_1_0);
    CHECK(size_seen && *size_seen == before);
    d12__driver_adapter_close(adapter);
    /* The size helper: the newest layout at the runtime's version, per flavor; 0 for unanswered features. */
    CHECK_EQ_INT(d12__driver_feature_data_size(D3D12_FEATURE_D3D12_OPTIONS5, D12_CAPS_FLAVOR_RETAIL), sizeof o5);
    CHECK_EQ_INT(d12__driver_feature_data_size(D3D12_FEATURE_D3D12_OPTIONS_EXPERIMENTAL, D12_CAPS_FLAVOR_RETAIL), 0);
    CHECK_EQ_INT(d12__driver_feature_data_size(9999, D12_CAPS_FLAVOR_PREVIEW), 0);
}

static void preview_flavor(void)
{
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_STR(getenv("D12RT_FLAVOR"), "preview");
    CHECK_EQ_INT(d12__driver_adapter_get(&adapter), S_OK);
    UINT size = d12__driver_feature_data_size(D3D12_FEATURE_D3D12_OPTIONS21, D12_CAPS_FLAVOR_PREVIEW);
    unsigned char data[256] = {0};
    CHECK(size > 0 && size <= sizeof data);
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, D3D12_FEATURE_D3D12_OPTIONS21, data, size), S_OK);
    CHECK_EQ_INT(field_value(D3D12_FEATURE_D3D12_OPTIONS21, data, size, "WorkGraphsTier"), 11);
}

/* ---- pfnSetErrorCb reaches the runtime's hook ---- */

static void set_error_env(void)
{
    d12_driver_adapter *adapter = NULL;
    hook_log log = {0, S_OK};
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, record_error, &log, NULL, NULL};
    d12_driver_device *device = NULL;
    CHECK_EQ_STR(getenv("D12RT_REFDRV_SET_ERROR"), "0x887A0005");
    CHECK_EQ_INT(d12__driver_adapter_get(&adapter), S_OK);
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    CHECK_EQ_INT(log.calls, 1); /* during pfnCreateDevice */
    CHECK_EQ_INT(log.last, DXGI_ERROR_DEVICE_REMOVED);
    d12__driver_destroy_device(device);
}

static void set_error_direct(void)
{
    d12_driver_adapter *adapter = NULL;
    hook_log log = {0, S_OK};
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, record_error, &log, NULL, NULL};
    d12_driver_device *device = NULL;
    CHECK_EQ_INT(d12__driver_adapter_get(&adapter), S_OK);
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    CHECK_EQ_INT(log.calls, 0);
    d12_refdrv_device_set_error(d12__driver_device_handle(device), DXGI_ERROR_DEVICE_HUNG);
    CHECK_EQ_INT(log.calls, 1);
    CHECK_EQ_INT(log.last, DXGI_ERROR_DEVICE_HUNG);
    d12_refdrv_device_set_error(d12__driver_device_handle(device), S_OK); /* passed on as is */
    CHECK_EQ_INT(log.calls, 2);
    CHECK_EQ_INT(log.last, S_OK);
    d12__driver_destroy_device(device);

    desc.on_error = NULL; /* no hook: said on stderr */
    CHECK_EQ_INT(d12__driver_create_device(adapter, &desc, &device), S_OK);
    capture_begin();
    d12_refdrv_device_set_error(d12__driver_device_handle(device), DXGI_ERROR_DEVICE_HUNG);
    char *text = capture_end();
    CHECK_EQ_STR(text, "d12rt: driver built-in reference driver reported device error 0x887A0006 (no runtime hook)\n");
    free(text);
    d12__driver_destroy_device(device);
}

/* A bad D12RT_REFDRV_PROFILE fails OpenAdapter12, so the adapter: file:line on stderr, then the runtime's line. */
static void profile_error(void)
{
    const char *path = temp_file("# ok\nD3D12_FEATURE_NOPE.Tier = 1\n");
    char expected[512];
    d12_driver_adapter *adapter = NULL;
    setenv("D12RT_REFDRV_PROFILE", path, 1);
    capture_begin();
    HRESULT hr = d12__driver_adapter_get(&adapter);
    char *text = capture_end();
    CHECK_EQ_INT(hr, E_INVALIDARG);
    snprintf(expected, sizeof expected,
             "%s:2: unknown feature 'D3D12_FEATURE_NOPE'\n"
             "d12rt: driver built-in reference driver: OpenAdapter12 failed (0x80070057)\n", path);
    CHECK_EQ_STR(text, expected);
    free(text);
    remove(path);
}

/* ---- Broken drivers: a failure HRESULT and one stderr line, never a crash ---- */

typedef struct broken_case {
    const char *mode;
    HRESULT open;   /* from d12__driver_adapter_open */
    HRESULT create; /* from d12__driver_create_device when open succeeded */
    const char *message;
} broken_case;

static const broken_case k_broken[] = {
    {"open_fails", E_OUTOFMEMORY, S_OK, "OpenAdapter12 failed (0x8007000E)"},
    {"null_slot", DRIVER_INTERNAL, S_OK, "OpenAdapter12 left pfnGetCaps NULL"},
    {"no_common", DXGI_ERROR_UNSUPPORTED, S_OK, "no DDI version in common with the runtime (it lists 1; the "
                                                "runtime implements D3D12DDI_SUPPORTED_0x000C0050007F0000 and older)"},
    {"huge_count", DRIVER_INTERNAL, S_OK, "pfnGetSupportedVersions reported 1000000 entries (at most 256 accepted)"},
    {"overfill", DRIVER_INTERNAL, S_OK, "pfnGetSupportedVersions wrote 7 entries into room for 2"},
    {"ext_null_slot", DRIVER_INTERNAL, S_OK, "the extended-features table has a NULL slot"},
    {"ext_fill_fails", DRIVER_INTERNAL, S_OK,
     "pfnFillDDITable(EXTENDED_FEATURES) failed (0x80070057) though the table is offered"},
    {"zero_size", S_OK, DRIVER_INTERNAL, "pfnCalcPrivateDeviceSize returned 0 (accepted: 1 to 67108864)"},
    {"absurd_size", S_OK, DRIVER_INTERNAL,
     "pfnCalcPrivateDeviceSize returned 9223372036854775807 (accepted: 1 to 67108864)"},
    {"create_fails", S_OK, E_OUTOFMEMORY, "pfnCreateDevice failed (0x8007000E)"},
};

static void run_broken(const broken_case *c)
{
    d12_driver_adapter *adapter = NULL;
    d12_driver_device *device = (d12_driver_device *)1;
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_NONE, NULL, NULL, NULL, NULL};
    char expected[512];
    capture_begin();
    HRESULT open = open_test_driver(c->mode, &adapter);
    HRESULT create = SUCCEEDED(open) ? d12__driver_create_device(adapter, &desc, &device) : S_OK;
    char *text = capture_end();
    CHECK_EQ_INT(open, c->open);
    CHECK_EQ_INT(create, c->create);
    CHECK(SUCCEEDED(open) ? device == NULL : adapter == NULL);
    snprintf(expected, sizeof expected, "d12rt: driver %s: %s\n", TESTDRV_SO, c->message);
    CHECK_EQ_STR(text, expected);
    free(text);
    d12__driver_adapter_close(adapter);
}

/* getcaps_fails: the driver's failure comes back and the caller's data is untouched. */
static void broken_getcaps(void)
{
    d12_driver_adapter *adapter = NULL;
    CHECK_EQ_INT(open_test_driver("getcaps_fails", &adapter), S_OK);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 o5 = {TRUE, D3D12_RENDER_PASS_TIER_2, D3D12_RAYTRACING_TIER_1_0};
    CHECK_EQ_INT(d12__driver_get_feature_data(adapter, D3D12_FEATURE_D3D12_OPTIONS5, &o5, sizeof o5), E_FAIL);
    CHECK(o5.SRVOnlyTiledResourceTier3 == TRUE && o5.RenderPassesTier == D3D12_RENDER_PASS_TIER_2 &&
          o5.RaytracingTier == D3D12_RAYTRACING_TIER_1_0);
    d12__driver_adapter_close(adapter);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"builtin", builtin}, {"so_by_path", so_by_path}, {"so_with_profile", so_with_profile},
    {"missing_file", missing_file}, {"missing_symbol", missing_symbol}, {"negotiation", negotiation},
    {"extended_features", extended_features}, {"feature_data", feature_data}, {"preview_flavor", preview_flavor},
    {"set_error_env", set_error_env}, {"set_error_direct", set_error_direct}, {"profile_error", profile_error},
    {"broken_getcaps", broken_getcaps}, {"registry_callback", registry_callback},
};

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "broken")) {
        for (size_t i = 0; i < sizeof k_broken / sizeof k_broken[0]; i++) {
            if (!strcmp(argv[2], k_broken[i].mode)) {
                run_broken(&k_broken[i]);
                return d12test_finish();
            }
        }
    }
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_driver_loader CASE | test_driver_loader broken MODE (unknown case)\n");
    return 2;
}
