/* DRED per-device state and the removal hooks (dred.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dred.h"

struct d12_dred {
    d12_dred_enabled enabled;       /* fixed */
    /* Stage 1 ran (release store after everything it froze is written; readers acquire-load it). */
    atomic_bool frozen;
    d12_fault_info fault;           /* written once by freeze, then immutable */
    /* Stage 2 ran; complete/finish race, the lock makes them run the completion once. */
    pthread_mutex_t complete_lock;  /* leaf */
    bool completed;
};

d12_dred_enabled d12__dred_resolve(const d12_debug_settings *settings)
{
    d12_dred_enabled enabled = {0};
    enabled.auto_breadcrumbs = settings->auto_breadcrumbs == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.page_fault = settings->page_fault == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.watson_dump = settings->watson_dump == D3D12_DRED_ENABLEMENT_FORCED_ON;
    /* "Contexts and markers-only mode apply only when auto-breadcrumbs are on" (issue 9, item 1). */
    enabled.breadcrumb_context =
        enabled.auto_breadcrumbs && settings->breadcrumb_context == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.markers_only = enabled.auto_breadcrumbs && settings->markers_only_breadcrumbs;
    return enabled;
}

HRESULT d12__dred_create(struct d12_device *device, const d12_dred_enabled *enabled)
{
    struct d12_dred *dred = calloc(1, sizeof(*dred));
    if (dred == NULL)
        return E_OUTOFMEMORY;
    dred->enabled = *enabled;
    atomic_init(&dred->frozen, false);
    pthread_mutex_init(&dred->complete_lock, NULL);
    device->dred = dred;
    return S_OK;
}

void d12__dred_destroy(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    pthread_mutex_destroy(&dred->complete_lock);
    free(dred);
    device->dred = NULL;
}

d12_dred_enabled d12__dred_enabled(const struct d12_device *device)
{
    d12_dred_enabled none = {0};
    return device->dred ? device->dred->enabled : none;
}

bool d12__dred_frozen(const struct d12_device *device)
{
    return device->dred != NULL && atomic_load_explicit(&device->dred->frozen, memory_order_acquire);
}

D3D12_DRED_DEVICE_STATE d12__dred_device_state(const struct d12_device *device)
{
    return d12__dred_frozen(device) ? device->dred->fault.state : D3D12_DRED_DEVICE_STATE_UNKNOWN;
}

void d12__dred_freeze(struct d12_device *device, const d12_fault_info *fault)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL || atomic_load(&dred->frozen))
        return; /* "exactly once per device": a second call changes nothing */
    dred->fault = *fault;
    atomic_store_explicit(&dred->frozen, true, memory_order_release);
}

static void complete_once(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL || !d12__dred_frozen(device))
        return;
    pthread_mutex_lock(&dred->complete_lock);
    if (!dred->completed)
        dred->completed = true;
    pthread_mutex_unlock(&dred->complete_lock);
}

void d12__dred_complete(struct d12_device *device)
{
    complete_once(device);
}

void d12__dred_finish(struct d12_device *device)
{
    complete_once(device);
}
