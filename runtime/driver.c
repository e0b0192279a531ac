/* The runtime side of the driver boundary (driver.h). Everything a driver returns is checked before use:
 * table slots, list counts, sizes. */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddi_trace.h"
#include "driver.h"
#include "rthandle.h"
#include "refdrv.h"

#define BUILTIN_NAME "built-in reference driver"
#define PRIVATE_ALIGNMENT 64

typedef struct extended_feature {
    D3D12DDI_FEATURE_0020 feature;
    UINT32 *versions;
    UINT32 version_count;
} extended_feature;

struct d12_driver_adapter {
    char *path; /* NULL: the built-in driver */
    D3D12DDI_ADAPTERFUNCS funcs;
    D3D12DDI_HADAPTER handle;
    UINT64 version;
    LUID luid;
    bool has_extended;
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 extended;
    D3D12DDI_FEATURE_0020 *features; /* the same features as `extended_features`, as one array */
    extended_feature *extended_features;
    UINT32 feature_count;
    bool has_gpu;            /* the three GPU-work tables were offered and filled */
    d12_driver_gpu_funcs gpu;
    /* docs/driver-reported-messages-v2.md: D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, asked at open of every
     * driver; VendorId D3D12DDI_D12RT_VENDOR_ID_UNKNOWN when it does not answer (or answers 0). */
    D3D12DDI_D12RT_ADAPTER_IDENTITY identity;
};

struct d12_driver_device {
    struct d12_driver_device *next_live; /* g_live_devices (g_live_devices_lock) */
    d12_driver_adapter *adapter;
    d12_driver_error_hook on_error;
    void *context;
    const d12_driver_message_hooks *messages;
    const d12_driver_gpu_hooks *gpu;
    D3D12DDI_HDEVICE handle;
    void *rt_token; /* hRTDevice.handle: a generation-checked token (rthandle.h), never this pointer */
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 callbacks; /* must live as long as the driver's device */
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 kt_callbacks;  /* likewise; an older build's driver reads the 0110 prefix */
};

static const UINT64 k_runtime_versions[] = D12RT_DDI_SUPPORTED_VERSIONS;

const char *d12__driver_adapter_name(const d12_driver_adapter *adapter)
{
    return adapter->path ? adapter->path : BUILTIN_NAME;
}

/* "d12rt: driver NAME: what", one line: the message a user sees when a driver is broken. */
__attribute__((format(printf, 2, 3))) static HRESULT broken(const d12_driver_adapter *adapter,
                                                            const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "d12rt: driver %s: ", d12__driver_adapter_name(adapter));
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return DXGI_ERROR_DRIVER_INTERNAL_ERROR;
}

/* A driver call that failed: out of memory is the driver's answer, passed on as it is (D3D12CreateDevice returns it
 * and the next one opens the adapter again: docs/reliability.md "Failure injection"); any other failure is a broken
 * driver. The line is printed either way. */
#define CALL_FAILED(adapter, hr, ...) ((hr) == E_OUTOFMEMORY ? (broken(adapter, __VA_ARGS__), E_OUTOFMEMORY) \
                                                             : broken(adapter, __VA_ARGS__))

/* ---- Loading ---- */

static HRESULT load_entry(const char *path, PFND3D12DDI_OPENADAPTER *entry)
{
    if (!path) {
        *entry = d12_refdrv_OpenAdapter12;
        return S_OK;
    }
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "d12rt: D12RT_DRIVER=%s: cannot load the driver: %s\n", path, dlerror());
        return E_FAIL;
    }
    dlerror();
    void *symbol = dlsym(library, "OpenAdapter12");
    if (!symbol) {
        const char *why = dlerror();
        fprintf(stderr, "d12rt: D12RT_DRIVER=%s: the driver exports no OpenAdapter12: %s\n", path,
                why ? why : "the symbol is NULL");
        dlclose(library);
        return E_FAIL;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer; memcpy says so to C11. */
    memcpy(entry, &symbol, sizeof *entry);
    return S_OK; /* the library stays loaded for the process: see d12__driver_adapter_close */
}

static HRESULT check_adapter_funcs(const d12_driver_adapter *adapter)
{
    const D3D12DDI_ADAPTERFUNCS *f = &adapter->funcs;
    const struct {
        const char *name;
        bool present;
    } slots[] = {
        {"pfnCalcPrivateDeviceSize", f->pfnCalcPrivateDeviceSize}, {"pfnCreateDevice", f->pfnCreateDevice},
        {"pfnCloseAdapter", f->pfnCloseAdapter}, {"pfnGetSupportedVersions", f->pfnGetSupportedVersions},
        {"pfnGetCaps", f->pfnGetCaps}, {"pfnGetOptionalDDITables", f->pfnGetOptionalDDITables},
        {"pfnFillDDITable", f->pfnFillDDITable}, {"pfnDestroyDevice", f->pfnDestroyDevice},
    };
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        if (!slots[i].present)
            return broken(adapter, "OpenAdapter12 left %s NULL", slots[i].name);
    }
    return S_OK;
}

/* ---- Two-call list queries, bounded ---- */

/* The count half of a two-call query: a failure or a count above D12_DRIVER_MAX_LIST is a broken driver. */
static HRESULT checked_count(const d12_driver_adapter *adapter, const char *what, HRESULT hr, UINT32 count)
{
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "%s failed (0x%08X)", what, (unsigned)hr);
    if (count > D12_DRIVER_MAX_LIST)
        return broken(adapter, "%s reported %u entries (at most %u accepted)", what, count, D12_DRIVER_MAX_LIST);
    return S_OK;
}

/* The fill half: it may not report more entries than the array it was given. */
static HRESULT checked_fill(const d12_driver_adapter *adapter, const char *what, HRESULT hr, UINT32 given,
                            UINT32 written)
{
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "%s failed (0x%08X) filling %u entries", what, (unsigned)hr, given);
    if (written > given)
        return broken(adapter, "%s wrote %u entries into room for %u", what, written, given);
    return S_OK;
}

/* ---- Version negotiation ---- */

static UINT64 highest_common(const UINT64 *driver_versions, UINT32 count)
{
    UINT64 best = 0;
    for (UINT32 i = 0; i < count; i++) {
        for (size_t j = 0; j < sizeof k_runtime_versions / sizeof k_runtime_versions[0]; j++) {
            if (driver_versions[i] == k_runtime_versions[j] && driver_versions[i] > best)
                best = driver_versions[i];
        }
    }
    return best;
}

static HRESULT negotiate(d12_driver_adapter *adapter)
{
    UINT32 count = 0;
    HRESULT hr = adapter->funcs.pfnGetSupportedVersions(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedVersions", hr, count)))
        return hr;
    UINT64 versions[D12_DRIVER_MAX_LIST];
    UINT32 written = count;
    hr = adapter->funcs.pfnGetSupportedVersions(adapter->handle, &written, count ? versions : NULL);
    if (count && FAILED(hr = checked_fill(adapter, "pfnGetSupportedVersions", hr, count, written)))
        return hr;
    adapter->version = highest_common(versions, count ? written : 0);
    if (!adapter->version) {
        fprintf(stderr, "d12rt: driver %s: no DDI version in common with the runtime (it lists %u; the runtime "
                "implements D3D12DDI_SUPPORTED_0x%016llX and older)\n", d12__driver_adapter_name(adapter),
                count, (unsigned long long)k_runtime_versions[D12RT_DDI_SUPPORTED_VERSION_COUNT - 1]);
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

/* ---- Extended features, queried once at adapter init (the spec; d3d12ddi.h says how this differs) ---- */

/* The optional tables the driver offers, as a mask of 1 << D3D12DDI_TABLE_TYPE (types above 63 are ignored). */
static HRESULT offered_tables(d12_driver_adapter *adapter, UINT64 *offered)
{
    UINT32 count = 0;
    *offered = 0;
    HRESULT hr = adapter->funcs.pfnGetOptionalDDITables(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetOptionalDDITables", hr, count)))
        return hr;
    D3D12DDI_TABLE_REQUEST tables[D12_DRIVER_MAX_LIST];
    UINT32 written = count;
    if (!count)
        return S_OK;
    hr = adapter->funcs.pfnGetOptionalDDITables(adapter->handle, &written, tables);
    if (FAILED(hr = checked_fill(adapter, "pfnGetOptionalDDITables", hr, count, written)))
        return hr;
    for (UINT32 i = 0; i < written; i++) {
        if ((UINT)tables[i].tableType < 64 && tables[i].numTables > 0)
            *offered |= 1ull << tables[i].tableType;
    }
    return S_OK;
}

static bool offers(UINT64 offered, D3D12DDI_TABLE_TYPE type)
{
    return (offered >> type) & 1;
}

static HRESULT fill_extended_table(d12_driver_adapter *adapter)
{
    D3D12DDI_HRTTABLE none = {NULL};
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    HRESULT hr = adapter->funcs.pfnFillDDITable(adapter->handle, D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, t,
                                                sizeof *t, 0, none);
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "pfnFillDDITable(EXTENDED_FEATURES) failed (0x%08X) though the table is "
                           "offered", (unsigned)hr);
    if (!t->pfnGetSupportedExtendedFeatures || !t->pfnGetSupportedExtendedFeatureVersions ||
        !t->pfnEnableExtendedFeature)
        return broken(adapter, "the extended-features table has a NULL slot");
    d12__ddi_trace_wrap_extended(t);
    adapter->has_extended = true;
    return S_OK;
}

static HRESULT query_feature_versions(d12_driver_adapter *adapter, extended_feature *entry)
{
    const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    UINT32 count = 0;
    HRESULT hr = t->pfnGetSupportedExtendedFeatureVersions(adapter->handle, entry->feature, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedExtendedFeatureVersions", hr, count)))
        return hr;
    if (!count)
        return broken(adapter, "extended feature %d has no versions", (int)entry->feature);
    entry->versions = calloc(count, sizeof *entry->versions);
    if (!entry->versions)
        return E_OUTOFMEMORY;
    UINT32 written = count;
    hr = t->pfnGetSupportedExtendedFeatureVersions(adapter->handle, entry->feature, &written, entry->versions);
    if (FAILED(hr = checked_fill(adapter, "pfnGetSupportedExtendedFeatureVersions", hr, count, written)))
        return hr;
    entry->version_count = written;
    return S_OK;
}

static HRESULT query_extended_features(d12_driver_adapter *adapter)
{
    const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    UINT32 count = 0;
    HRESULT hr = t->pfnGetSupportedExtendedFeatures(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedExtendedFeatures", hr, count)) || !count)
        return hr;
    adapter->features = calloc(count, sizeof *adapter->features);
    adapter->extended_features = calloc(count, sizeof *adapter->extended_features);
    if (!adapter->features || !adapter->extended_features)
        return E_OUTOFMEMORY;
    UINT32 written = count;
    hr = t->pfnGetSupportedExtendedFeatures(adapter->handle, &written, adapter->features);
    if (FAILED(hr = checked_fill(adapter, "pfnGetSupportedExtendedFeatures", hr, count, written)))
        return hr;
    for (UINT32 i = 0; i < written; i++) {
        adapter->extended_features[i].feature = adapter->features[i];
        adapter->feature_count = i + 1; /* counted as it goes, so a failure frees what was allocated */
        if (FAILED(hr = query_feature_versions(adapter, &adapter->extended_features[i])))
            return hr;
    }
    return S_OK;
}

static HRESULT init_extended_features(d12_driver_adapter *adapter, UINT64 offered)
{
    if (!offers(offered, D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES))
        return S_OK;
    HRESULT hr = fill_extended_table(adapter);
    if (FAILED(hr))
        return hr;
    return query_extended_features(adapter);
}

/* ---- GPU-work tables, filled once at adapter init (d3d12ddi.h, "GPU work") ---- */

/* Whether every slot of a table of function pointers is set (a table is nothing but function pointers). */
static bool all_slots_set(const void *table, size_t size)
{
    for (size_t offset = 0; offset < size; offset += sizeof(void (*)(void))) {
        void (*slot)(void);
        memcpy(&slot, (const char *)table + offset, sizeof slot);
        if (!slot)
            return false;
    }
    return true;
}

static HRESULT fill_gpu_table(d12_driver_adapter *adapter, D3D12DDI_TABLE_TYPE type, const char *name, void *table,
                              size_t size)
{
    D3D12DDI_HRTTABLE none = {NULL};
    HRESULT hr = adapter->funcs.pfnFillDDITable(adapter->handle, type, table, size, 0, none);
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "pfnFillDDITable(%s) failed (0x%08X) though the table is offered", name,
                           (unsigned)hr);
    if (!all_slots_set(table, size))
        return broken(adapter, "the %s table has a NULL slot", name);
    return S_OK;
}

/* A driver offering none of the three tables has no GPU work; one offering some but not all is broken. */
static HRESULT init_gpu_tables(d12_driver_adapter *adapter, UINT64 offered)
{
    int count = offers(offered, D3D12DDI_TABLE_TYPE_DEVICE_CORE) + offers(offered, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D) +
                offers(offered, D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D);
    if (count == 0)
        return S_OK;
    if (count != 3)
        return broken(adapter, "it offers %d of the three GPU-work tables (DEVICE_CORE, COMMAND_LIST_3D, "
                      "COMMAND_QUEUE_3D); a driver offers all of them or none", count);
    d12_driver_gpu_funcs *gpu = &adapter->gpu;
    HRESULT hr;
    if (FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_DEVICE_CORE, "DEVICE_CORE", &gpu->core, sizeof gpu->core)) ||
        FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, "COMMAND_LIST_3D", &gpu->list,
                                   d12__driver_adapter_has_0127(adapter) ? sizeof gpu->list_0127 : sizeof gpu->list)) ||
        FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, "COMMAND_QUEUE_3D", &gpu->queue,
                                   sizeof gpu->queue)))
        return hr;
    d12__ddi_trace_wrap_gpu(gpu, d12__driver_adapter_has_0127(adapter));
    adapter->has_gpu = true;
    return S_OK;
}

/* v2 of driver-reported messages: "queried at adapter open for every driver version"; no answer is no failure. */
static void query_adapter_identity(d12_driver_adapter *adapter)
{
    D3D12DDI_D12RT_ADAPTER_IDENTITY identity = {0};
    /* pInfo names no feature, so a version-1 driver that reads it before checking Type answers "unknown" */
    static const D3D12_FEATURE no_feature = (D3D12_FEATURE)0xFFFFFFFF;
    D3D12DDIARG_GETCAPS args = {D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, &no_feature, &identity, sizeof identity};
    if (FAILED(adapter->funcs.pfnGetCaps(adapter->handle, &args)) || identity.VendorId == 0)
        identity = (D3D12DDI_D12RT_ADAPTER_IDENTITY){D3D12DDI_D12RT_VENDOR_ID_UNKNOWN, 0, 0, 0};
    adapter->identity = identity;
}

D3D12DDI_D12RT_ADAPTER_IDENTITY d12__driver_adapter_identity(const d12_driver_adapter *adapter)
{
    return adapter->identity;
}

static HRESULT init_optional_tables(d12_driver_adapter *adapter)
{
    UINT64 offered;
    query_adapter_identity(adapter);
    HRESULT hr = offered_tables(adapter, &offered);
    if (FAILED(hr) || FAILED(hr = init_extended_features(adapter, offered)))
        return hr;
    return init_gpu_tables(adapter, offered);
}

/* ---- Opening and closing ---- */

static void free_adapter(d12_driver_adapter *adapter)
{
    for (UINT32 i = 0; i < adapter->feature_count; i++)
        free(adapter->extended_features[i].versions);
    free(adapter->extended_features);
    free(adapter->features);
    free(adapter->path);
    free(adapter);
}

static HRESULT open_driver_adapter(d12_driver_adapter *adapter, PFND3D12DDI_OPENADAPTER entry)
{
    D3D12DDIARG_OPENADAPTER args = {{adapter}, {NULL}, NULL, &adapter->funcs};
    d12__ddi_trace_open_adapter(d12__driver_adapter_name(adapter));
    HRESULT hr = entry(&args);
    if (FAILED(hr)) {
        fprintf(stderr, "d12rt: driver %s: OpenAdapter12 failed (0x%08X)\n", d12__driver_adapter_name(adapter),
                (unsigned)hr);
        return hr;
    }
    adapter->handle = args.hAdapter;
    if (FAILED(hr = check_adapter_funcs(adapter))) {
        if (adapter->funcs.pfnCloseAdapter)
            adapter->funcs.pfnCloseAdapter(adapter->handle);
        return hr;
    }
    d12__ddi_trace_wrap_adapter(&adapter->funcs);
    return S_OK;
}

HRESULT d12__driver_adapter_open(const char *path, d12_driver_adapter **out)
{
    static atomic_uint luid_counter;
    PFND3D12DDI_OPENADAPTER entry;
    *out = NULL;
    HRESULT hr = load_entry(path, &entry);
    if (FAILED(hr))
        return hr;
    d12_driver_adapter *adapter = calloc(1, sizeof *adapter);
    if (!adapter || (path && !(adapter->path = strdup(path)))) {
        free(adapter);
        return E_OUTOFMEMORY;
    }
    if (FAILED(hr = open_driver_adapter(adapter, entry))) {
        free_adapter(adapter);
        return hr;
    }
    if (FAILED(hr = negotiate(adapter)) || FAILED(hr = init_optional_tables(adapter))) {
        d12__driver_adapter_close(adapter);
        return hr;
    }
    adapter->luid.LowPart = 0xD1200000u | (atomic_fetch_add(&luid_counter, 1) & 0xFFFFu);
    *out = adapter;
    return S_OK;
}

void d12__driver_adapter_close(d12_driver_adapter *adapter)
{
    if (!adapter)
        return;
    adapter->funcs.pfnCloseAdapter(adapter->handle);
    free_adapter(adapter);
}

/* The process's adapter, opened by the first D3D12CreateDevice. An open that failed for lack of memory is not kept:
 * the next D3D12CreateDevice opens it again (found by the failure-injection sweep, reliability.fault.create.*: one
 * failed allocation at adapter init failed every later device of the process). Any other failure is kept. The lock
 * is held while the adapter opens (the exclusion pthread_once gave before); `g_process_done` lets every later call
 * skip it. */
static pthread_mutex_t g_process_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_process_done;
static d12_driver_adapter *g_process_adapter;
static HRESULT g_process_result;

static void open_process_adapter(void)
{
    const char *path = getenv("D12RT_DRIVER");
    g_process_result = d12__driver_adapter_open(path && *path ? path : NULL, &g_process_adapter);
}

HRESULT d12__driver_adapter_get(d12_driver_adapter **out)
{
    if (!atomic_load_explicit(&g_process_done, memory_order_acquire)) {
        pthread_mutex_lock(&g_process_lock);
        if (!atomic_load_explicit(&g_process_done, memory_order_relaxed)) {
            open_process_adapter();
            if (g_process_result != E_OUTOFMEMORY)
                atomic_store_explicit(&g_process_done, true, memory_order_release);
        }
        *out = g_process_adapter;
        HRESULT hr = g_process_result;
        pthread_mutex_unlock(&g_process_lock);
        return hr;
    }
    *out = g_process_adapter;
    return g_process_result;
}

UINT64 d12__driver_adapter_version(const d12_driver_adapter *adapter)
{
    return adapter->version;
}

/* ---- Extended-feature queries ---- */

const D3D12DDI_FEATURE_0020 *d12__driver_extended_features(const d12_driver_adapter *adapter, UINT32 *count)
{
    *count = adapter->feature_count;
    return adapter->features;
}

static const extended_feature *find_feature(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature)
{
    for (UINT32 i = 0; i < adapter->feature_count; i++) {
        if (adapter->extended_features[i].feature == feature)
            return &adapter->extended_features[i];
    }
    return NULL;
}

const UINT32 *d12__driver_extended_feature_versions(const d12_driver_adapter *adapter,
                                                    D3D12DDI_FEATURE_0020 feature, UINT32 *count)
{
    const extended_feature *entry = find_feature(adapter, feature);
    *count = entry ? entry->version_count : 0;
    return entry ? entry->versions : NULL;
}

UINT32 d12__driver_pick_feature_version(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature,
                                        UINT32 highest_known)
{
    UINT32 count, best = 0;
    const UINT32 *versions = d12__driver_extended_feature_versions(adapter, feature, &count);
    for (UINT32 i = 0; i < count; i++) {
        if (versions[i] <= highest_known && versions[i] > best)
            best = versions[i];
    }
    return best;
}

/* ---- True capabilities ---- */

UINT d12__driver_feature_data_size(UINT feature, d12_caps_flavor flavor)
{
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    d12_caps_version version;
    UINT size = 0;
    if (!found || !found->struct_name)
        return 0;
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &version);
    for (uint32_t i = 0; i < found->layout_count; i++) {
        const d12_caps_layout *layout = &found->layouts[i];
        if (layout->first[version.line] <= version.number && layout->size > size)
            size = layout->size;
    }
    return size;
}

/* Any layout of the feature, on either line: the runtime's newest for its flavor is one of them. */
static const d12_caps_layout *layout_of_size(const d12_caps_feature *feature, UINT size)
{
    for (uint32_t i = 0; feature && feature->struct_name && i < feature->layout_count; i++) {
        if (feature->layouts[i].size == size)
            return &feature->layouts[i];
    }
    return NULL;
}

/* A zeroed copy holding only the input fields: the driver sees the application's inputs and nothing else,
 * and a driver that leaves a field alone answers 0, not whatever the application's struct held. */
static void copy_inputs(const d12_caps_layout *layout, const void *from, unsigned char *to)
{
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        if (field->kind == D12_CAPS_FIELD_INPUT || field->kind == D12_CAPS_FIELD_INOUT)
            memcpy(to + field->offset, (const unsigned char *)from + field->offset, field->size);
    }
}

HRESULT d12__driver_get_feature_data(d12_driver_adapter *adapter, D3D12_FEATURE feature, void *data, UINT size)
{
    const d12_caps_layout *layout = layout_of_size(d12_caps_find_feature((UINT)feature), size);
    if (!layout || !data)
        return E_INVALIDARG;
    unsigned char *copy = calloc(1, size);
    if (!copy)
        return E_OUTOFMEMORY;
    copy_inputs(layout, data, copy);
    D3D12DDIARG_GETCAPS args = {D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA, &feature, copy, size};
    HRESULT hr = adapter->funcs.pfnGetCaps(adapter->handle, &args);
    if (SUCCEEDED(hr))
        memcpy(data, copy, size);
    free(copy);
    return hr;
}

/* ---- Devices ---- */

/* The device a driver's hRTDevice names, held against destruction until leave_device; NULL when the handle is not
 * a live device (destroyed, foreign, NULL): resolved from the handle table alone, never through the handle. */
static d12_driver_device *enter_device(D3D12DDI_HRTDEVICE rt_device)
{
    return d12__rthandle_acquire(rt_device.handle);
}

static void leave_device(d12_driver_device *device)
{
    if (device)
        d12__rthandle_release(device->rt_token);
}

static void APIENTRY set_error_cb(D3D12DDI_HRTDEVICE rt_device, HRESULT reason)
{
    d12_driver_device *device = enter_device(rt_device);
    if (!device)
        return; /* not a live device: nothing to remove */
    if (device->on_error)
        device->on_error(device->context, reason);
    else
        fprintf(stderr, "d12rt: driver %s reported device error 0x%08X (no runtime hook)\n",
                d12__driver_adapter_name(device->adapter), (unsigned)reason);
    leave_device(device);
}

/* pfnReportMessageCb and pfnQueryObjectIdentityCb. "Calling it on a destroyed device ... is a use-after-free"
 * (the spec puts that on the driver); d12rt answers E_INVALIDARG instead (enter_device). */
static HRESULT APIENTRY report_message_cb(D3D12DDI_HRTDEVICE rt_device,
                                          const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    d12_driver_device *device = enter_device(rt_device);
    /* "Calls on devices where the feature was not enabled are dropped" */
    HRESULT hr = device && device->messages ? device->messages->report(device->messages->context, message)
                                            : E_INVALIDARG;
    leave_device(device);
    return hr;
}

static HRESULT APIENTRY query_object_identity_cb(D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HANDLE_AND_TYPE object,
                                                 SIZE_T *size, CHAR *identity)
{
    d12_driver_device *device = enter_device(rt_device);
    HRESULT hr = device && device->messages
                     ? device->messages->query_identity(device->messages->context, object, size, identity)
                     : E_INVALIDARG;
    leave_device(device);
    return hr;
}

static HRESULT APIENTRY query_gpu_va_identity_cb(D3D12DDI_HRTDEVICE rt_device, UINT64 va, SIZE_T *size, CHAR *identity)
{
    d12_driver_device *device = enter_device(rt_device);
    HRESULT hr = device && device->messages && device->messages->query_va
                     ? device->messages->query_va(device->messages->context, va, size, identity)
                     : E_INVALIDARG;
    leave_device(device);
    return hr;
}

/* The kernel-thunk stand-ins and pfnSetCommandListErrorCb: passed to the device's GPU hooks unchanged. */
static HRESULT APIENTRY signal_fence_from_gpu_cb(D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                                 const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    d12_driver_device *device = enter_device(rt_device);
    HRESULT hr = device && device->gpu && operation ? device->gpu->signal(device->gpu->context, queue, operation)
                                                    : E_INVALIDARG;
    leave_device(device);
    return hr;
}

static HRESULT APIENTRY wait_for_fence_from_gpu_cb(D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                                   const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    d12_driver_device *device = enter_device(rt_device);
    HRESULT hr = device && device->gpu && operation ? device->gpu->wait(device->gpu->context, queue, operation)
                                                    : E_INVALIDARG;
    leave_device(device);
    return hr;
}

/* pfnSetCommandListErrorCb has the WDK's signature (hRTCommandList, hr): it names no device, so the runtime asks
 * each live device with GPU hooks whether the list is one of its live objects (a lookup of the handle's value in its
 * live-object table, never a read through it). The lock is held shared across the hook, so a device cannot be
 * unlinked (destroyed) while its hook runs; devices are linked and unlinked under it exclusively, with no other lock
 * held, and nothing the hook does creates or destroys a driver device. */
static pthread_rwlock_t g_live_devices_lock = PTHREAD_RWLOCK_INITIALIZER;
static d12_driver_device *g_live_devices;

static void link_live_device(d12_driver_device *device)
{
    if (!device->gpu)
        return;
    pthread_rwlock_wrlock(&g_live_devices_lock);
    device->next_live = g_live_devices;
    g_live_devices = device;
    pthread_rwlock_unlock(&g_live_devices_lock);
}

static void unlink_live_device(d12_driver_device *device)
{
    pthread_rwlock_wrlock(&g_live_devices_lock);
    for (d12_driver_device **link = &g_live_devices; *link; link = &(*link)->next_live) {
        if (*link == device) {
            *link = device->next_live;
            break;
        }
    }
    pthread_rwlock_unlock(&g_live_devices_lock);
}

static VOID APIENTRY set_command_list_error_cb(D3D12DDI_HRTCOMMANDLIST list, HRESULT hr)
{
    pthread_rwlock_rdlock(&g_live_devices_lock);
    bool claimed = false;
    for (d12_driver_device *device = g_live_devices; device && !claimed; device = device->next_live)
        claimed = device->gpu->list_error(device->gpu->context, list, hr);
    pthread_rwlock_unlock(&g_live_devices_lock);
}

bool d12__driver_adapter_has_message_callbacks(const d12_driver_adapter *adapter)
{
    return (D3D12DDI_VERSION_OF_SUPPORTED(adapter->version) >> 16) >= D3D12DDI_BUILD_VERSION_0126;
}

bool d12__driver_adapter_has_0127(const d12_driver_adapter *adapter)
{
    return (D3D12DDI_VERSION_OF_SUPPORTED(adapter->version) >> 16) >= D3D12DDI_BUILD_VERSION_0127;
}

/* DDI build 0127: a GPU fault, and a timeline's progress for the TDR watchdog. */
static VOID APIENTRY device_fault_cb(D3D12DDI_HRTDEVICE rt_device, const D3D12DDICB_DEVICEFAULT_0127 *fault)
{
    d12_driver_device *device = enter_device(rt_device);
    if (device && device->gpu && fault)
        device->gpu->fault(device->gpu->context, fault);
    leave_device(device);
}

static HRESULT APIENTRY report_gpu_progress_cb(D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                               const D3D12DDICB_GPUPROGRESS_0127 *progress)
{
    d12_driver_device *device = enter_device(rt_device);
    HRESULT hr = device && device->gpu && progress ? device->gpu->progress(device->gpu->context, queue, progress)
                                                   : E_INVALIDARG;
    leave_device(device);
    return hr;
}

static HRESULT private_size(d12_driver_adapter *adapter, D3D12DDI_CREATE_DEVICE_FLAGS flags, SIZE_T *size)
{
    D3D12DDIARG_CALCPRIVATEDEVICESIZE args = {D3D12DDI_INTERFACE_OF_SUPPORTED(adapter->version),
                                              D3D12DDI_VERSION_OF_SUPPORTED(adapter->version), flags};
    *size = adapter->funcs.pfnCalcPrivateDeviceSize(adapter->handle, &args);
    if (*size == 0 || *size > D12_DRIVER_MAX_PRIVATE_SIZE)
        return broken(adapter, "pfnCalcPrivateDeviceSize returned %zu (accepted: 1 to %zu)", (size_t)*size,
                      (size_t)D12_DRIVER_MAX_PRIVATE_SIZE);
    return S_OK;
}

static d12_driver_device *allocate_device(d12_driver_adapter *adapter, const d12_driver_device_desc *desc,
                                          SIZE_T size)
{
    d12_driver_device *device = calloc(1, sizeof *device);
    SIZE_T rounded = (size + PRIVATE_ALIGNMENT - 1) / PRIVATE_ALIGNMENT * PRIVATE_ALIGNMENT;
    void *memory = device ? aligned_alloc(PRIVATE_ALIGNMENT, rounded) : NULL;
    if (!memory) {
        free(device);
        return NULL;
    }
    memset(memory, 0, rounded);
    device->adapter = adapter;
    device->on_error = desc->on_error;
    device->context = desc->context;
    device->messages = desc->messages;
    device->gpu = desc->gpu;
    device->handle.pDrvPrivate = memory;
    device->callbacks.pfnSetErrorCb = set_error_cb;
    device->callbacks.pfnReportMessageCb = report_message_cb;
    device->callbacks.pfnQueryObjectIdentityCb = query_object_identity_cb;
    device->callbacks.pfnQueryGpuVaIdentityCb = query_gpu_va_identity_cb;
    device->callbacks.pfnSetCommandListErrorCb = set_command_list_error_cb;
    device->kt_callbacks.pfnSignalFenceFromGpuCb = signal_fence_from_gpu_cb;
    device->kt_callbacks.pfnWaitForFenceFromGpuCb = wait_for_fence_from_gpu_cb;
    device->kt_callbacks.pfnDeviceFaultCb = device_fault_cb;
    device->kt_callbacks.pfnReportGpuProgressCb = report_gpu_progress_cb;
    d12__ddi_trace_wrap_callbacks(&device->callbacks, &device->kt_callbacks);
    return device;
}

HRESULT d12__driver_create_device(d12_driver_adapter *adapter, const d12_driver_device_desc *desc,
                                  d12_driver_device **out)
{
    SIZE_T size;
    *out = NULL;
    HRESULT hr = private_size(adapter, desc->flags, &size);
    if (FAILED(hr))
        return hr;
    d12_driver_device *device = allocate_device(adapter, desc, size);
    if (!device)
        return E_OUTOFMEMORY;
    if (FAILED(hr = d12__rthandle_register(device, &device->rt_token))) {
        free(device->handle.pDrvPrivate);
        free(device);
        return hr;
    }
    D3D12DDIARG_CREATEDEVICE_0003 args = {
        .hRTDevice = {device->rt_token},
        .Interface = D3D12DDI_INTERFACE_OF_SUPPORTED(adapter->version),
        .Version = D3D12DDI_VERSION_OF_SUPPORTED(adapter->version),
        /* One table for every build: _0127 starts with _0110's slots, so an older driver reads a prefix. */
        .pKTCallbacks_0127 = &device->kt_callbacks,
        .hDrvDevice = device->handle,
        /* One table for every build: _0126 starts with _0003's slot, so an older driver reads a prefix. */
        .p12UMCallbacks_0126 = &device->callbacks,
        .Flags = desc->flags,
    };
    /* Published before the call: a hook the driver calls from inside pfnCreateDevice (pfnSetErrorCb removing the
     * device, and DRED's freeze with it) finds the runtime's device already holding its driver device. */
    *out = device;
    if (FAILED(hr = adapter->funcs.pfnCreateDevice(adapter->handle, &args))) {
        fprintf(stderr, "d12rt: driver %s: pfnCreateDevice failed (0x%08X)\n", d12__driver_adapter_name(adapter),
                (unsigned)hr);
        *out = NULL;
        d12__rthandle_unregister(device->rt_token);
        free(device->handle.pDrvPrivate);
        free(device);
        return hr;
    }
    link_live_device(device);
    *out = device;
    return S_OK;
}

void d12__driver_destroy_device(d12_driver_device *device)
{
    if (!device)
        return;
    unlink_live_device(device);
    device->adapter->funcs.pfnDestroyDevice(device->handle);
    /* From here on hRTDevice names nothing: a late callback gets E_INVALIDARG, one in flight is waited for. */
    d12__rthandle_unregister(device->rt_token);
    free(device->handle.pDrvPrivate);
    free(device);
}

static bool reported(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature, UINT32 version)
{
    UINT32 count;
    const UINT32 *versions = d12__driver_extended_feature_versions(adapter, feature, &count);
    for (UINT32 i = 0; i < count; i++) {
        if (versions[i] == version)
            return true;
    }
    return false;
}

HRESULT d12__driver_enable_extended_feature(d12_driver_device *device, D3D12DDI_FEATURE_0020 feature,
                                            UINT32 version)
{
    d12_driver_adapter *adapter = device->adapter;
    if (!adapter->has_extended || !reported(adapter, feature, version))
        return E_INVALIDARG;
    return adapter->extended.pfnEnableExtendedFeature(device->handle, feature, version);
}

HRESULT d12__driver_fill_table(d12_driver_device *device, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size)
{
    d12_driver_adapter *adapter = device->adapter;
    D3D12DDI_HRTTABLE none = {NULL};
    HRESULT hr = adapter->funcs.pfnFillDDITable(adapter->handle, type, table, size, 0, none);
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES &&
        size == sizeof(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126))
        d12__ddi_trace_wrap_drm(table);
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1 &&
        size == sizeof(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1))
        d12__ddi_trace_wrap_drm1(table);
    return hr;
}

D3D12DDI_HRTDEVICE d12__driver_device_rt_handle(const d12_driver_device *device)
{
    D3D12DDI_HRTDEVICE handle = {device->rt_token};
    return handle;
}

const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *d12__driver_device_callbacks(const d12_driver_device *device)
{
    return &device->callbacks;
}

d12_driver_adapter *d12__driver_device_adapter(const d12_driver_device *device)
{
    return device->adapter;
}

D3D12DDI_HDEVICE d12__driver_device_handle(const d12_driver_device *device)
{
    return device->handle;
}

LUID d12__driver_adapter_luid(const d12_driver_device *device)
{
    return device->adapter->luid;
}

const d12_driver_gpu_funcs *d12__driver_gpu_funcs(const d12_driver_device *device)
{
    return device->adapter->has_gpu ? &device->adapter->gpu : NULL;
}

HRESULT d12__driver_private_alloc(const d12_driver_device *device, const char *what, SIZE_T size, void **memory)
{
    *memory = NULL;
    if (size == 0 || size > D12_DRIVER_MAX_PRIVATE_SIZE)
        return broken(device->adapter, "pfnCalcPrivate%sSize returned %zu (accepted: 1 to %zu)", what, (size_t)size,
                      (size_t)D12_DRIVER_MAX_PRIVATE_SIZE);
    SIZE_T rounded = (size + PRIVATE_ALIGNMENT - 1) / PRIVATE_ALIGNMENT * PRIVATE_ALIGNMENT;
    *memory = aligned_alloc(PRIVATE_ALIGNMENT, rounded);
    if (!*memory)
        return E_OUTOFMEMORY;
    memset(*memory, 0, rounded);
    return S_OK;
}
