/* The device object: lifetime, one device per adapter, removal, ID3D12Object, and the device methods that
 * need no GPU work. Capability queries are in runtime/features.c. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlation.h"
#include "d12_messages.h"
#include "drm_v2.h"
#include "device.h"
#include "dred/dred.h"
#include "fence.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"
#include "registry.h"
#include "tdr.h"

/* Guards `current_device`: the default adapter's live device. Taken before any device lock; never held while
 * calling the driver or the application. */
static pthread_mutex_t adapter_lock = PTHREAD_MUTEX_INITIALIZER;
static struct d12_device *current_device;

/* ---- The adapter's device ---- */

/* The adapter's reference is weak: a device whose last Release is running is still `current_device` until its
 * destructor detaches it, so a reference may only be added while the count is not zero. */
static bool try_add_ref(struct d12_device *device)
{
    unsigned long count = atomic_load(&device->refcount);
    while (count != 0) {
        if (atomic_compare_exchange_weak(&device->refcount, &count, count + 1))
            return true;
    }
    return false;
}

/* The default adapter's live device with a reference added, or NULL. */
static struct d12_device *live_device(void)
{
    pthread_mutex_lock(&adapter_lock);
    struct d12_device *device = current_device;
    if (device != NULL && !try_add_ref(device))
        device = NULL;
    pthread_mutex_unlock(&adapter_lock);
    return device;
}

static void detach_from_adapter(struct d12_device *device)
{
    pthread_mutex_lock(&adapter_lock);
    if (current_device == device)
        current_device = NULL;
    pthread_mutex_unlock(&adapter_lock);
}

/* ---- Removal ---- */

/* The DXGI name and description Windows' removal message gives each reason (winerror.h's texts). */
static void removal_reason_text(HRESULT reason, char *name, size_t size, const char **text)
{
    static const struct {
        HRESULT reason;
        const char *name, *text;
    } k_reasons[] = {
        {DXGI_ERROR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG",
         "The Device took an unreasonable amount of time to execute its commands, or the hardware crashed/hung. As a "
         "result, the TDR mechanism has been triggered."},
        {DXGI_ERROR_DEVICE_REMOVED, "DXGI_ERROR_DEVICE_REMOVED",
         "The video card has been physically removed from the system, or a driver upgrade for the video card has "
         "occurred. The application should destroy and recreate the device."},
        {DXGI_ERROR_DEVICE_RESET, "DXGI_ERROR_DEVICE_RESET",
         "The Device failed due to a badly formed command. This is a run-time issue; The application should destroy "
         "and recreate the device."},
        {DXGI_ERROR_DRIVER_INTERNAL_ERROR, "DXGI_ERROR_DRIVER_INTERNAL_ERROR",
         "The driver encountered a problem and was put into the device removed state."},
        {DXGI_ERROR_INVALID_CALL, "DXGI_ERROR_INVALID_CALL",
         "The application made a call that is invalid. Either the parameters of the call or the state of some object "
         "was incorrect."},
        {E_OUTOFMEMORY, "E_OUTOFMEMORY", "Ran out of memory."},
    };
    for (size_t i = 0; i < sizeof k_reasons / sizeof k_reasons[0]; i++) {
        if (k_reasons[i].reason == reason) {
            snprintf(name, size, "%s", k_reasons[i].name);
            *text = k_reasons[i].text;
            return;
        }
    }
    snprintf(name, size, "0x%08X", (unsigned)reason);
    *text = "The device was removed.";
}

static void report_removal(struct d12_device *device, HRESULT reason, const char *why)
{
    char name[48];
    const char *text;
    removal_reason_text(reason, name, sizeof name, &text);
    d12__msg_device_removal_process_at_fault(device->info_queue, name, text);
    d12__msg_device_removed(device->info_queue, reason, why);
}

/* The device whose removal this thread claimed and has not published yet (see wait_for_published_reason). */
static _Thread_local struct d12_device *t_publishing_removal;

bool d12__device_remove_fault(struct d12_device *device, const d12_fault_info *fault, const char *why)
{
    HRESULT expected = S_OK;
    if (!atomic_compare_exchange_strong(&device->removal_claim, &expected, fault->reason))
        return false; /* "first reason wins" */
    /* Freeze "BEFORE fences are forced to UINT64_MAX and before any waiter is released" (docs/dred-gpu.md). */
    t_publishing_removal = device;
    d12__dred_freeze(device, fault);
    atomic_store_explicit(&device->removed_reason, fault->reason, memory_order_release);
    t_publishing_removal = NULL;
    report_removal(device, fault->reason, why);
    detach_from_adapter(device); /* the next D3D12CreateDevice makes a new device (docs/device.md) */
    d12__device_wake_fences(device); /* fences now read UINT64_MAX: every waiter is released */
    if (!d12__drm_enabled(&device->drm))
        d12__dred_complete(device); /* no removal flush will come: "right after freeze when the channel is off" */
    return true;
}

bool d12__device_remove(struct d12_device *device, HRESULT reason, const char *why)
{
    d12_fault_info fault = {.reason = reason, .state = D3D12_DRED_DEVICE_STATE_UNKNOWN,
                            .op_index = D12_DRED_OP_INDEX_UNKNOWN};
    return d12__device_remove_fault(device, &fault, why);
}

bool d12__device_is_removed(struct d12_device *device)
{
    return atomic_load_explicit(&device->removed_reason, memory_order_acquire) != S_OK;
}

bool d12__device_removal_claimed(struct d12_device *device)
{
    return atomic_load_explicit(&device->removal_claim, memory_order_acquire) != S_OK;
}

/* The removal reason as an application call sees it. Between the claim and the publication of a removal (the DRED
 * freeze) the reason is decided but not yet visible; a thread whose own removing call lost the claim (two threads
 * executing open lists at once) must not then see the device as not removed: it waits for the winner's
 * publication. Only application calls get here, holding no runtime lock, and the freeze waits for no application
 * thread, so the wait is short and cannot deadlock; the winner's own thread (a callback during its freeze) does not
 * wait for itself. */
static HRESULT surfaced_reason(struct d12_device *device)
{
    if (!d12__device_removal_claimed(device))
        return S_OK;
    HRESULT reason;
    while ((reason = atomic_load_explicit(&device->removed_reason, memory_order_acquire)) == S_OK &&
           t_publishing_removal != device)
        sched_yield();
    return reason;
}

HRESULT d12__device_removed(struct d12_device *device)
{
    if (surfaced_reason(device) == S_OK)
        return S_OK;
    d12__flush_on_removal(device);
    return DXGI_ERROR_DEVICE_REMOVED;
}

/* ---- Children ---- */

HRESULT d12__device_check_gpu_create(struct d12_device *device, const char *method)
{
    HRESULT hr = d12__device_removed(device);
    if (FAILED(hr))
        return hr;
    if (device->gpu == NULL) {
        d12__msg_gpu_work_unsupported(device->info_queue, method,
                                      d12__driver_adapter_name(d12__driver_device_adapter(device->driver)));
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

void d12__device_link_fence(struct d12_device *device, struct d12_fence *fence)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    fence->prev = NULL;
    fence->next = device->fences;
    if (fence->next)
        fence->next->prev = fence;
    device->fences = fence;
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

void d12__device_unlink_fence(struct d12_device *device, struct d12_fence *fence)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    if (fence->prev)
        fence->prev->next = fence->next;
    else if (device->fences == fence)
        device->fences = fence->next;
    if (fence->next)
        fence->next->prev = fence->prev;
    fence->next = fence->prev = NULL;
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

void d12__device_wake_fences(struct d12_device *device)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_fence *fence = device->fences; fence; fence = fence->next)
        d12__fence_wake(fence);
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

void d12__device_debug_layer_enabled_late(void)
{
    struct d12_device *device = live_device();
    if (device == NULL)
        return;
    d12__msg_debug_layer_enabled_after_device(device->info_queue);
    d12__device_remove(device, DXGI_ERROR_INVALID_CALL, "ID3D12Debug::EnableDebugLayer was called after D3D12CreateDevice");
    d12_device_Release(device);
}

HRESULT d12_device_GetDeviceRemovedReason(struct d12_device *self)
{
    HRESULT reason = surfaced_reason(self);
    if (FAILED(reason))
        d12__flush_on_removal(self); /* "the first time it surfaces DXGI_ERROR_DEVICE_REMOVED (or related error)" */
    return reason;
}

/* ---- Lifetime ---- */

static void device_destroy(struct d12_device *device)
{
    detach_from_adapter(device);
    d12__tdr_stop(device); /* every queue is gone (they hold the device): nothing left to watch */
    d12__dred_finish(device); /* a removal the application never surfaced still gets its report */
    d12__dred_close(device); /* its counter buffers (driver resources) and submissions: before the driver */
    /* The driver goes first: it may report and query identities until pfnDestroyDevice returns, and every callback
     * has returned once it is gone (the runtime handle unregistered). Only then does state they reach go (issue 29):
     * DRED's ledger and output, the correlation table, the live-object table, the InfoQueue. */
    if (device->driver != NULL)
        d12__driver_destroy_device(device->driver);
    d12__dred_destroy(device);
    d12__correlation_destroy(device->correlation); /* every list and queue is gone: they hold the device */
    d12__objtable_remove(&device->objects, &device->entry);
    d12__objtable_destroy(&device->objects);
    pthread_mutex_destroy(&device->children_lock);
    if (device->info_queue != NULL)
        d12__info_queue_destroy(device->info_queue);
    d12__feature_cache_destroy(&device->feature_cache);
    d12__object_data_destroy(&device->object);
    free(device);
}

static void device_destroy_deferred(void *device)
{
    device_destroy(device);
}

ULONG d12_device_AddRef(struct d12_device *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

ULONG d12_device_Release(struct d12_device *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    /* The last reference dropped by the application's code inside a driver callback of this device (a message
     * callback run from pfnReportMessageCb on a driver thread): the callback's frames still use the device, and the
     * driver's handle cannot be unregistered while this thread holds it, so the destruction runs as it returns. */
    if (left == 0 && !d12__driver_defer_destroy(self->driver, device_destroy_deferred, self))
        device_destroy(self);
    return left;
}

bool d12_device_exposes_info_queue(struct d12_device *self)
{
    /* "only queryable if the debug layer was enabled before device creation" */
    return self->info_queue != NULL;
}

void d12_device_not_implemented(struct d12_device *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->info_queue, interface_name, method);
}

/* ---- ID3D12Object ---- */

HRESULT d12_device_GetPrivateData(struct d12_device *self, const GUID *guid, UINT *pDataSize, void *pData)
{
    return d12__object_get_private_data(&self->object, guid, pDataSize, pData);
}

HRESULT d12_device_SetPrivateData(struct d12_device *self, const GUID *guid, UINT DataSize, const void *pData)
{
    return d12__object_set_private_data(&self->object, guid, DataSize, pData);
}

HRESULT d12_device_SetPrivateDataInterface(struct d12_device *self, const GUID *guid, const IUnknown *pData)
{
    return d12__object_set_private_data_interface(&self->object, guid, pData);
}

HRESULT d12_device_SetName(struct d12_device *self, LPCWSTR Name)
{
    return d12__object_set_name(&self->object, Name);
}

/* ---- Adapter facts ---- */

UINT d12_device_GetNodeCount(struct d12_device *self)
{
    (void)self;
    return 1; /* the reference adapter has one node; NodeIndex and node masks are checked against it */
}

LUID d12_device_GetAdapterLuid(struct d12_device *self)
{
    return d12__driver_adapter_luid(self->driver);
}

/* ---- Creation ---- */

/* The driver's pfnSetErrorCb: "any other code, S_OK included, counts as critical". A DXGI error or
 * E_OUTOFMEMORY is kept as the removal reason; anything else is the driver's internal error (docs/device.md). */
static void driver_error(void *context, HRESULT reason)
{
    bool keep = reason == E_OUTOFMEMORY || (FAILED(reason) && (((ULONG)reason >> 16) & 0x1FFF) == 0x87A);
    d12__device_remove(context, keep ? reason : DXGI_ERROR_DRIVER_INTERNAL_ERROR, "the driver reported an error");
}

static d12_caps_flavor flavor_from_environment(void)
{
    d12_caps_flavor flavor;
    if (!d12_caps_flavor_from_environment(&flavor))
        fprintf(stderr, "d12rt: D12RT_FLAVOR=%s is neither retail nor preview; using retail\n", getenv("D12RT_FLAVOR"));
    return flavor;
}

/* The per-app registry overlay (docs/registry.md): "applied at device creation, after the application's
 * SetEnableDriverReportedMessages calls have been latched, so the registry value wins over the application's
 * choice"; D3D12SDKLayerFlagsAnd/Or can force the debug layer on or off the same way. */
/* False when a hive could not be read for lack of memory: the settings are then unknown, so the device is not made
 * (found by reliability.fault.create.alloc N=8, 9: the overlay was skipped silently, e.g. a registry-forced
 * driver-reported-messages or DRED setting). */
static bool apply_registry_overlay(d12_debug_settings *settings)
{
    d12_app_settings registry;
    if (!d12__registry_app_settings(NULL, &registry))
        return false;
    d12_registry_overlay overlay =
        d12__registry_overlay(&registry, settings->debug_layer, settings->driver_reported_messages);
    settings->debug_layer = overlay.debug_layer;
    settings->driver_reported_messages = overlay.driver_reported_messages;
    /* DRED: the application's FORCED_* wins, SYSTEM_CONTROLLED takes the registry's value (docs/dred.md). */
    settings->auto_breadcrumbs = (D3D12_DRED_ENABLEMENT)d12__registry_dred_enablement(
        &registry, D12_SETTING_DRED_AUTO_BREADCRUMBS, (uint32_t)settings->auto_breadcrumbs);
    settings->page_fault = (D3D12_DRED_ENABLEMENT)d12__registry_dred_enablement(
        &registry, D12_SETTING_DRED_PAGE_FAULT, (uint32_t)settings->page_fault);
    settings->breadcrumb_context = (D3D12_DRED_ENABLEMENT)d12__registry_dred_enablement(
        &registry, D12_SETTING_DRED_CONTEXT, (uint32_t)settings->breadcrumb_context);
    return true;
}

/* Whether this device asks the driver for driver-reported messages: "The D3D12 debug layer must also be enabled
 * ... before device creation for the toggle to take effect on that device." Both settings are post-overlay. */
static bool effective_driver_reported_messages(const struct d12_device *device)
{
    return device->settings.driver_reported_messages && device->settings.debug_layer;
}

/* Command-list state indices, for a device whose channel is on: the live-index limit comes from
 * D12RT_MAX_LIVE_STATE_INDICES (docs/drm.md). Without memory for the table, messages are simply not annotated. */
static void enable_correlation(struct d12_device *device)
{
    uint32_t max_live = d12__correlation_max_live_from_environment(stderr);
    if (SUCCEEDED(d12__correlation_create(max_live, &d12__command_list_owner_ops, &device->correlation)))
        d12__drm_set_correlation(&device->drm, device->correlation, d12__command_list_prefix);
}

/* ---- The driver's GPU-work callbacks ---- */

static HRESULT gpu_signal(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDIARG_FENCE_OPERATION_0126 *op)
{
    return d12__queue_signal_reached(context, queue, op);
}

static HRESULT gpu_wait(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDIARG_FENCE_OPERATION_0126 *op)
{
    return d12__queue_wait_reached(context, queue, op);
}

static bool gpu_list_error(void *context, D3D12DDI_HRTCOMMANDLIST list, HRESULT hr)
{
    return d12__command_list_driver_error(context, list, hr);
}

static void gpu_fault(void *context, const D3D12DDICB_DEVICEFAULT_0127 *fault)
{
    d12__tdr_device_fault(context, fault);
}

static HRESULT gpu_progress(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDICB_GPUPROGRESS_0127 *progress)
{
    return d12__tdr_progress(context, queue, progress);
}

/* Make the device nameable by the driver (pfnQueryObjectIdentityCb), then enable driver-reported messages when
 * asked. Before the enable call, so the driver may name the device in its initialization message. */
static void connect_driver_channel(struct d12_device *device)
{
    device->entry.handle = d12__driver_device_rt_handle(device->driver).handle;
    device->entry.object = device;
    device->entry.type = D3D12DDI_HT_D12RT_DEVICE;
    device->entry.api_object = &device->com.device;
    device->entry.interface_name = "ID3D12Device";
    device->entry.data = &device->object;
    d12__objtable_add(&device->objects, &device->entry);
    /* A failure leaves the feature off and the debug layer says so; the device itself is fine. */
    if (effective_driver_reported_messages(device))
        d12__drm_v2_before_enable(device); /* v2: registry pairs apply from the first driver message */
    if (effective_driver_reported_messages(device) && d12__drm_enable(&device->drm, device->driver) == S_OK) {
        enable_correlation(device);
        d12__drm_v2_connect(device); /* v2: registry pairs and categories, VA naming (drm_v2.h) */
    }
}

static HRESULT device_create(d12_driver_adapter *adapter, struct d12_device **out)
{
    struct d12_device *device = calloc(1, sizeof(*device));
    if (device == NULL)
        return E_OUTOFMEMORY;
    d12__device_com_init(&device->com);
    atomic_init(&device->refcount, 1);
    d12__object_data_init(&device->object);
    atomic_init(&device->removal_claim, S_OK);
    atomic_init(&device->tdr, NULL);
    device->tdr_delay_ms = d12__tdr_delay_from_environment(stderr);
    atomic_init(&device->removed_reason, S_OK);
    atomic_init(&device->legacy_query_warned, false);
    device->settings = d12__debug_settings(); /* latched: fixed for the device's life */
    bool overlaid = apply_registry_overlay(&device->settings);
    device->flavor = flavor_from_environment();
    HRESULT hr = overlaid ? S_OK : E_OUTOFMEMORY;
    d12__objtable_init(&device->objects);
    pthread_mutex_init(&device->children_lock, NULL);
    d12__flush_init(&device->flush);
    device->gpu_hooks = (d12_driver_gpu_hooks){.fault = gpu_fault, .progress = gpu_progress, .signal = gpu_signal,
                                               .wait = gpu_wait, .list_error = gpu_list_error, .context = device};
    d12_dred_enabled dred = d12__dred_resolve(&device->settings);
    if (SUCCEEDED(hr))
        hr = d12__dred_create(device, &dred);
    if (SUCCEEDED(hr) && device->settings.debug_layer)
        hr = d12__info_queue_create(&device->info_queue);
    d12__drm_init(&device->drm, device->info_queue, &device->objects);
    d12__drm_init_vendor(&device->drm, d12__driver_adapter_identity(adapter).VendorId); /* v2: message identity */
    if (SUCCEEDED(hr)) {
        d12_driver_device_desc desc = {device->settings.debug_layer ? D3D12DDI_CREATE_DEVICE_FLAG_DEBUGGABLE : 0,
                                       driver_error, device, &device->drm.hooks, &device->gpu_hooks};
        hr = d12__driver_create_device(adapter, &desc, &device->driver);
    }
    if (SUCCEEDED(hr)) {
        device->gpu = d12__driver_gpu_funcs(device->driver);
        d12__dred_connect(device);
    }
    if (FAILED(hr)) {
        device_destroy(device);
        return hr;
    }
    connect_driver_channel(device);
    *out = device;
    return S_OK;
}

/* One device per adapter: publish `device` unless another thread published one first (then use that one). */
static struct d12_device *publish(struct d12_device *device)
{
    pthread_mutex_lock(&adapter_lock);
    struct d12_device *winner = current_device;
    if (winner == NULL || !try_add_ref(winner))
        current_device = winner = device; /* none, or one being destroyed (it detaches only itself) */
    pthread_mutex_unlock(&adapter_lock);
    if (winner != device)
        d12_device_Release(device); /* the driver and the application are not called under adapter_lock */
    return winner;
}

/* S_OK when the driver reaches `minimum`; DXGI_ERROR_UNSUPPORTED when it does not or its answer fails, except that
 * out of memory is passed on as such (found by reliability.fault.create.alloc: it was DXGI_ERROR_UNSUPPORTED). */
static HRESULT supports_feature_level(d12_driver_adapter *adapter, D3D_FEATURE_LEVEL minimum)
{
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {1, &minimum, 0};
    HRESULT hr = d12__driver_get_feature_data(adapter, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof(levels));
    if (hr == E_OUTOFMEMORY)
        return hr;
    return SUCCEEDED(hr) && levels.MaxSupportedFeatureLevel >= minimum ? S_OK : DXGI_ERROR_UNSUPPORTED;
}

static bool known_feature_level(D3D_FEATURE_LEVEL level)
{
    const d12_caps_enum *levels = d12_caps_find_enum("D3D_FEATURE_LEVEL");
    UINT own = d12_caps_runtime_version(D12_CAPS_FLAVOR_PREVIEW);
    d12_caps_version version = {own, own, d12_caps_line_of(own)};
    return d12_caps_value_name(levels, level, version) != NULL;
}

/* A minimum feature level D3D12CreateDevice accepts, as Windows has it (issue 8 item 6): a D3D12 level (11_0
 * and up) or one of the compute-only levels 1_0_CORE / 1_0_GENERIC. 9_1 ... 10_1 are D3D11-only levels, 0 and
 * numbers that are no feature level are E_INVALIDARG (docs/create-device.md). */
static bool valid_minimum_feature_level(D3D_FEATURE_LEVEL level)
{
    if (!known_feature_level(level))
        return false;
    return level >= D3D_FEATURE_LEVEL_11_0 || level == D3D_FEATURE_LEVEL_1_0_CORE || level == D3D_FEATURE_LEVEL_1_0_GENERIC;
}

/* A driver's pfnQueryRegistryCb (ddi/ asks, registry/ answers; the hub joins them): one value under the
 * application's key, read when the driver asks (once, at OpenAdapter12: docs/registry.md). */
static HRESULT query_registry_for_driver(D3D12DDICB_D12RT_QUERYREGISTRY *query)
{
    d12_reg_app_value value;
    if (!d12__registry_app_value(query->pValueName, &value))
        return DXGI_ERROR_NOT_FOUND;
    query->ValueType = value.type;
    query->Source = value.source == D12_SOURCE_HKCU ? D3D12DDI_D12RT_REGISTRY_SOURCE_CURRENT_USER
                                                     : D3D12DDI_D12RT_REGISTRY_SOURCE_LOCAL_MACHINE;
    query->OutputDword = value.dword;
    return S_OK;
}

HRESULT d12__device_create(IUnknown *adapter_object, D3D_FEATURE_LEVEL minimum, const IID *riid, void **out)
{
    if (adapter_object != NULL) {
        fprintf(stderr, "d12rt: D3D12CreateDevice: d12rt has no DXGI adapters; pass NULL for the default adapter\n");
        return E_INVALIDARG;
    }
    if (!valid_minimum_feature_level(minimum))
        return E_INVALIDARG;
    d12_driver_adapter *adapter;
    d12__driver_set_registry_query(query_registry_for_driver);
    HRESULT hr = d12__driver_adapter_get(&adapter);
    if (FAILED(hr))
        return hr;
    if (FAILED(hr = supports_feature_level(adapter, minimum)))
        return hr;
    /* D3D12's convention: the arguments were checked, no device is made. Windows tests the output pointer
     * before the interface: a NULL riid with a NULL ppDevice is S_FALSE too. */
    if (out == NULL)
        return S_FALSE;
    if (riid == NULL)
        return E_INVALIDARG;
    struct d12_device *device = live_device();
    if (device == NULL) {
        if (FAILED(hr = device_create(adapter, &device)))
            return hr;
        device = publish(device);
    }
    hr = d12__device_QueryInterface(device, riid, out);
    d12_device_Release(device);
    return hr;
}
