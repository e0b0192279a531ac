/* ID3D12Debug ... ID3D12Debug7 and ID3D12DeviceRemovedExtendedDataSettings2 (runtime/debug.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "debug.h"
#include "device.h"

/* Guards `settings`; a leaf lock, never held while calling out. */
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static d12_debug_settings settings; /* all zero: D3D12_DRED_ENABLEMENT_SYSTEM_CONTROLLED, everything off */

static struct d12_debug debug_object;
static struct d12_dred_settings dred_object;
static pthread_once_t objects_once = PTHREAD_ONCE_INIT;

static void init_objects(void)
{
    d12__debug_com_init(&debug_object.com);
    d12__dred_settings_com_init(&dred_object.com);
}

d12_debug_settings d12__debug_settings(void)
{
    pthread_mutex_lock(&settings_lock);
    d12_debug_settings copy = settings;
    pthread_mutex_unlock(&settings_lock);
    return copy;
}

#define SET(field, value)                                                                                   \
    do {                                                                                                    \
        pthread_mutex_lock(&settings_lock);                                                                 \
        settings.field = (value);                                                                           \
        pthread_mutex_unlock(&settings_lock);                                                               \
    } while (0)

HRESULT d12__debug_get_interface(const IID *riid, void **object)
{
    pthread_once(&objects_once, init_objects);
    if (riid == NULL) {
        if (object != NULL)
            *object = NULL; /* as every other failure here: no stale pointer for the caller */
        return E_INVALIDARG;
    }
    void *found = NULL;
    HRESULT hr = d12__debug_QueryInterface(&debug_object, riid, &found); /* IUnknown: the debug object */
    if (hr == E_NOINTERFACE)
        hr = d12__dred_settings_QueryInterface(&dred_object, riid, &found);
    if (FAILED(hr)) {
        if (object != NULL)
            *object = NULL;
        return hr;
    }
    /* "a NULL output pointer ... returning S_FALSE after checking the arguments" */
    if (object == NULL) {
        ((IUnknown *)found)->lpVtbl->Release((IUnknown *)found);
        return S_FALSE;
    }
    *object = found;
    return S_OK;
}

/* ---- The debug object ---- */

ULONG d12_debug_AddRef(struct d12_debug *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

ULONG d12_debug_Release(struct d12_debug *self)
{
    return (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1; /* static storage: nothing to free */
}

void d12_debug_not_implemented(struct d12_debug *self, const char *interface_name, const char *method)
{
    (void)self;
    fprintf(stderr, "d12rt: %s::%s is not implemented\n", interface_name, method); /* no device: no InfoQueue */
}

void d12_debug_EnableDebugLayer(struct d12_debug *self)
{
    (void)self;
    SET(debug_layer, true);
    /* "Calling this API after creating the D3D12 device will cause the D3D12 runtime to remove the device." */
    d12__device_debug_layer_enabled_late();
}

void d12_debug_DisableDebugLayer(struct d12_debug *self)
{
    (void)self;
    SET(debug_layer, false);
}

void d12_debug_SetEnableGPUBasedValidation(struct d12_debug *self, BOOL Enable)
{
    (void)self;
    SET(gpu_based_validation, Enable != FALSE);
}

void d12_debug_SetEnableSynchronizedCommandQueueValidation(struct d12_debug *self, BOOL Enable)
{
    (void)self;
    SET(synchronized_queue_validation, Enable != FALSE);
}

void d12_debug_SetGPUBasedValidationFlags(struct d12_debug *self, D3D12_GPU_BASED_VALIDATION_FLAGS Flags)
{
    (void)self;
    SET(gpu_based_validation_flags, Flags);
}

void d12_debug_SetEnableAutoName(struct d12_debug *self, BOOL Enable)
{
    (void)self;
    SET(auto_name, Enable != FALSE);
}

void d12_debug_SetForceLegacyBarrierValidation(struct d12_debug *self, BOOL Enable)
{
    (void)self;
    SET(force_legacy_barrier_validation, Enable != FALSE);
}

void d12_debug_SetEnableDriverReportedMessages(struct d12_debug *self, BOOL Enable)
{
    (void)self;
    SET(driver_reported_messages, Enable != FALSE);
}

/* ---- The DRED settings object ---- */

ULONG d12_dred_settings_AddRef(struct d12_dred_settings *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

ULONG d12_dred_settings_Release(struct d12_dred_settings *self)
{
    return (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
}

void d12_dred_settings_not_implemented(struct d12_dred_settings *self, const char *interface_name,
                                       const char *method)
{
    (void)self;
    fprintf(stderr, "d12rt: %s::%s is not implemented\n", interface_name, method);
}

void d12_dred_settings_SetAutoBreadcrumbsEnablement(struct d12_dred_settings *self, D3D12_DRED_ENABLEMENT Enablement)
{
    (void)self;
    SET(auto_breadcrumbs, Enablement);
}

void d12_dred_settings_SetPageFaultEnablement(struct d12_dred_settings *self, D3D12_DRED_ENABLEMENT Enablement)
{
    (void)self;
    SET(page_fault, Enablement);
}

void d12_dred_settings_SetWatsonDumpEnablement(struct d12_dred_settings *self, D3D12_DRED_ENABLEMENT Enablement)
{
    (void)self;
    SET(watson_dump, Enablement);
}

void d12_dred_settings_SetBreadcrumbContextEnablement(struct d12_dred_settings *self, D3D12_DRED_ENABLEMENT Enablement)
{
    (void)self;
    SET(breadcrumb_context, Enablement);
}

void d12_dred_settings_UseMarkersOnlyAutoBreadcrumbs(struct d12_dred_settings *self, BOOL MarkersOnly)
{
    (void)self;
    SET(markers_only_breadcrumbs, MarkersOnly != FALSE);
}
