/* The runtime side of the driver boundary (driver.h): loading a driver, opening and closing its adapter, and its
 * devices with the callbacks they get. Version negotiation and the offered tables are negotiate.c's, true
 * capabilities driver_caps.c's (driver_internal.h). Everything a driver returns is checked before use: table slots,
 * list counts, sizes. */
#define _GNU_SOURCE /* dladdr */

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddi_trace.h"
#include "driver.h"
#include "driver_name.h"
#include "driver_internal.h"
#include "rthandle.h"
#include "refdrv.h"

#define PRIVATE_ALIGNMENT 64

const char *d12__driver_adapter_name(const d12_driver_adapter *adapter)
{
    return adapter->path ? adapter->path : BUILTIN_NAME;
}

/* ---- Loading ---- */

/* D12RT_DRIVER without a '/' names a driver (driver_name.h, docs/drivers.md "Choosing a driver"). The first place
 * that exists is the driver; when neither does, the name goes to dlopen as it is (the library search path: what
 * such a value meant before names), and failing that the error names all three places. */
static void *open_named(const char *name, char tried[2][D12_DRIVER_NAME_PATH_MAX])
{
    char dir[2048];
    d12__driver_library_dir((const void *)&d12__driver_adapter_open, dir, sizeof dir);
    int found = d12__driver_name_find(dir, name, tried);
    return dlopen(found >= 0 ? tried[found] : name, RTLD_NOW | RTLD_LOCAL);
}

static HRESULT load_entry(const char *path, PFND3D12DDI_OPENADAPTER *entry)
{
    if (!path) {
        *entry = d12_refdrv_OpenAdapter12;
        return S_OK;
    }
    char tried[2][D12_DRIVER_NAME_PATH_MAX] = {"", ""};
    bool named = d12__driver_is_name(path);
    void *library = named ? open_named(path, tried) : dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        if (named && access(tried[0], F_OK) != 0 && access(tried[1], F_OK) != 0)
            fprintf(stderr, "d12rt: D12RT_DRIVER=%s: no driver named %s: no %s, no %s, and not on the library search "
                            "path: %s\n", path, path, tried[0], tried[1], why);
        else
            fprintf(stderr, "d12rt: D12RT_DRIVER=%s: cannot load the driver: %s\n", path, why);
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

/* pfnQueryRegistryCb: the per-application registry, read by the hub's reader (ddi/ cannot include registry/:
 * docs/architecture.md); without one every value is absent. */
static _Atomic(d12_driver_registry_query) g_registry_query;

void d12__driver_set_registry_query(d12_driver_registry_query query)
{
    atomic_store_explicit(&g_registry_query, query, memory_order_release);
}

static HRESULT APIENTRY query_registry_cb(D3D12DDI_HRTADAPTER rt_adapter, D3D12DDICB_D12RT_QUERYREGISTRY *query)
{
    (void)rt_adapter;
    if (!query || !query->pValueName)
        return E_INVALIDARG;
    query->ValueType = query->Source = query->OutputDword = 0;
    d12_driver_registry_query read = atomic_load_explicit(&g_registry_query, memory_order_acquire);
    return read ? read(query) : DXGI_ERROR_NOT_FOUND;
}

static const D3D12DDI_D12RT_ADAPTERCALLBACKS k_adapter_callbacks = {query_registry_cb};

static HRESULT open_driver_adapter(d12_driver_adapter *adapter, PFND3D12DDI_OPENADAPTER entry)
{
    D3D12DDIARG_OPENADAPTER args = {{adapter}, {NULL}, &k_adapter_callbacks, &adapter->funcs};
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
    if (FAILED(hr = d12__driver_negotiate(adapter)) || FAILED(hr = d12__driver_init_optional_tables(adapter))) {
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

bool d12__driver_defer_destroy(d12_driver_device *device, void (*destroy)(void *), void *argument)
{
    return device && d12__rthandle_defer(device->rt_token, destroy, argument);
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
