/* libd12_drmshim.so: the reference driver behind a thin shim that lets a public-ABI test watch and play the
 * driver side of driver-reported messages. It exports OpenAdapter12 (the reference driver's, wrapped) and
 * d12_drmshim_* functions the test finds with dlsym in the copy D12RT_DRIVER loaded:
 *   - counts of pfnEnableExtendedFeature(DRIVER_REPORTED_MESSAGES) and of pfnFillDDITable(type 47) calls;
 *   - the last device's runtime callbacks, so the test can report and query identities as a driver does;
 *   - the feature's table (D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES) wrapped:
 *     pfnFlushDriverReportedMessages is counted, with the thread each call ran on and whether it began inside
 *     another flush on the same thread (a nested flush); before calling the reference driver's flush it reports
 *     the messages the test STAGED (d12_drmshim_stage), as a driver holding findings would;
 *     pfnSetCommandListStateIndex is counted and logged (driver command list, index), the last index kept;
 *   - a flush jitter: armed, every flush sleeps a pseudo-random 0..max microseconds before the reference driver's
 *     own flush reports, so flushes on several application threads overlap in every order;
 *   - a gate on the queue table's pfnExecuteCommandLists: armed, the next call blocks (before the reference driver
 *     sees the submission) until the test opens it, so a test can order another thread's call inside that window;
 *   - the runtime handles (hRTCommandList, hRTResource) of the last command list and resource created, so a test
 *     (tests/fuzz's fuzz_driver) can name live objects in pfnQueryObjectIdentityCb as a driver does. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "refdrv.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

static D3D12DDI_ADAPTERFUNCS g_inner;
static PFND3D12DDI_ENABLE_EXTENDED_FEATURE_0020 g_inner_enable;
static atomic_uint g_enable_calls, g_table_fills;
static D3D12DDI_HRTDEVICE g_rt_device;
static D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 g_callbacks;

/* ---- The feature's table, wrapped ---- */

static D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 g_inner_drm;

#define SHIM_FLUSH_LOG 4096u
#define SHIM_INDEX_LOG 65536u

static atomic_uint g_flushes, g_nested_flushes, g_flush_log_count;
static pthread_t g_flush_log[SHIM_FLUSH_LOG]; /* slot reserved by g_flush_log_count */
static _Thread_local unsigned t_flush_depth;

static atomic_uint g_index_calls;
static _Atomic UINT32 g_last_index = 0xFFFFFFFFu;
static struct {
    void *list;
    UINT32 index;
} g_index_log[SHIM_INDEX_LOG]; /* entry i % SHIM_INDEX_LOG of call i */

/* Staged messages: reported from inside the next flush, before the reference driver's own. */
typedef struct staged {
    struct staged *next;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message;
    char text[];
} staged;
static pthread_mutex_t g_stage_lock = PTHREAD_MUTEX_INITIALIZER;
static staged *g_staged, **g_staged_tail = &g_staged; /* guarded by g_stage_lock */
static atomic_uint g_staged_reported, g_staged_failed;
static atomic_uint g_flush_jitter_us, g_flush_jitter_seed = 1;

/* 0..g_flush_jitter_us microseconds (a shared LCG: the order of the draws is whatever the threads make it). */
static void flush_jitter(void)
{
    unsigned max = atomic_load(&g_flush_jitter_us);
    if (max == 0)
        return;
    unsigned draw = atomic_fetch_add(&g_flush_jitter_seed, 1) * 1103515245u + 12345u;
    usleep((draw >> 8) % (max + 1));
}

static VOID APIENTRY shim_flush(D3D12DDI_HDEVICE device)
{
    atomic_fetch_add(&g_flushes, 1);
    if (t_flush_depth > 0)
        atomic_fetch_add(&g_nested_flushes, 1);
    t_flush_depth++;
    unsigned slot = atomic_fetch_add(&g_flush_log_count, 1);
    if (slot < SHIM_FLUSH_LOG)
        g_flush_log[slot] = pthread_self();
    pthread_mutex_lock(&g_stage_lock);
    staged *messages = g_staged;
    g_staged = NULL;
    g_staged_tail = &g_staged;
    pthread_mutex_unlock(&g_stage_lock);
    /* Reported with no shim lock held ("Report outside the driver's own locks"). */
    for (staged *m = messages, *next; m; m = next) {
        next = m->next;
        HRESULT hr = g_callbacks.pfnReportMessageCb(g_rt_device, &m->message);
        atomic_fetch_add(SUCCEEDED(hr) ? &g_staged_reported : &g_staged_failed, 1);
        free(m);
    }
    flush_jitter();
    g_inner_drm.pfnFlushDriverReportedMessages(device);
    t_flush_depth--;
}

static VOID APIENTRY shim_set_index(D3D12DDI_HCOMMANDLIST list, UINT32 index)
{
    unsigned call = atomic_fetch_add(&g_index_calls, 1);
    g_index_log[call % SHIM_INDEX_LOG].list = list.pDrvPrivate;
    g_index_log[call % SHIM_INDEX_LOG].index = index;
    atomic_store(&g_last_index, index);
    g_inner_drm.pfnSetCommandListStateIndex(list, index);
}

/* ---- The queue table: the ExecuteCommandLists gate ---- */

static PFND3D12DDI_EXECUTECOMMANDLISTS g_inner_execute;
static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_changed = PTHREAD_COND_INITIALIZER;
static int g_gate_armed, g_gate_arrived, g_gate_open; /* guarded by g_gate_lock */

static VOID APIENTRY shim_execute(D3D12DDI_HCOMMANDQUEUE queue, UINT count, const D3D12DDI_HCOMMANDLIST *lists)
{
    pthread_mutex_lock(&g_gate_lock);
    if (g_gate_armed) {
        g_gate_armed = 0;
        g_gate_arrived = 1;
        pthread_cond_broadcast(&g_gate_changed);
        while (!g_gate_open)
            pthread_cond_wait(&g_gate_changed, &g_gate_lock);
    }
    pthread_mutex_unlock(&g_gate_lock);
    g_inner_execute(queue, count, lists);
}

/* ---- The device core table: the runtime handles of new lists and resources ---- */

static PFND3D12DDI_CREATECOMMANDLIST_0126 g_inner_create_list;
static PFND3D12DDI_CREATERESOURCE_0126 g_inner_create_resource;
static void *_Atomic g_last_rt_list, *_Atomic g_last_rt_resource;

static HRESULT APIENTRY shim_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                         D3D12DDI_HCOMMANDLIST list, D3D12DDI_HRTCOMMANDLIST rt_list)
{
    HRESULT hr = g_inner_create_list(device, args, list, rt_list);
    if (SUCCEEDED(hr))
        atomic_store(&g_last_rt_list, rt_list.handle);
    return hr;
}

static HRESULT APIENTRY shim_create_resource(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                                             D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource)
{
    HRESULT hr = g_inner_create_resource(device, args, resource, rt_resource);
    if (SUCCEEDED(hr))
        atomic_store(&g_last_rt_resource, rt_resource.handle);
    return hr;
}

/* ---- Adapter and device ---- */

static HRESULT APIENTRY shim_enable(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature, UINT32 version)
{
    if (feature == D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES)
        atomic_fetch_add(&g_enable_calls, 1);
    return g_inner_enable(device, feature, version);
}

static HRESULT APIENTRY shim_fill(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size,
                                  UINT number, D3D12DDI_HRTTABLE rt_table)
{
    if (type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES)
        atomic_fetch_add(&g_table_fills, 1);
    HRESULT hr = g_inner.pfnFillDDITable(adapter, type, table, size, number, rt_table);
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES) {
        D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *funcs = table;
        g_inner_enable = funcs->pfnEnableExtendedFeature;
        funcs->pfnEnableExtendedFeature = shim_enable;
    }
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_DEVICE_CORE && size >= sizeof(D3D12DDI_DEVICE_FUNCS_CORE_0126)) {
        D3D12DDI_DEVICE_FUNCS_CORE_0126 *funcs = table;
        g_inner_create_list = funcs->pfnCreateCommandList;
        g_inner_create_resource = funcs->pfnCreateResource;
        if (funcs->pfnCreateCommandList)
            funcs->pfnCreateCommandList = shim_create_list;
        if (funcs->pfnCreateResource)
            funcs->pfnCreateResource = shim_create_resource;
    }
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D &&
        size >= sizeof(D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126)) {
        D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 *funcs = table;
        g_inner_execute = funcs->pfnExecuteCommandLists;
        if (funcs->pfnExecuteCommandLists)
            funcs->pfnExecuteCommandLists = shim_execute;
    }
    if (SUCCEEDED(hr) && type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES &&
        size >= sizeof(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126)) {
        D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *funcs = table;
        g_inner_drm = *funcs;
        if (funcs->pfnFlushDriverReportedMessages)
            funcs->pfnFlushDriverReportedMessages = shim_flush;
        if (funcs->pfnSetCommandListStateIndex)
            funcs->pfnSetCommandListStateIndex = shim_set_index;
    }
    return hr;
}

static HRESULT APIENTRY shim_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    g_rt_device = args->hRTDevice;
    if ((args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0126)
        g_callbacks = *args->p12UMCallbacks_0126;
    return g_inner.pfnCreateDevice(adapter, args);
}

/* Issue 29's storm: pfnDestroyDevice announces itself and, when asked, takes `g_destroy_delay_ms` before the
 * reference driver destroys its device, so a test thread's callbacks land inside the destruction. */
static _Atomic unsigned g_destroy_delay_ms;
static atomic_int g_destroying;

static VOID APIENTRY shim_destroy_device(D3D12DDI_HDEVICE device)
{
    atomic_store(&g_destroying, 1);
    unsigned ms = atomic_load(&g_destroy_delay_ms);
    if (ms)
        usleep(ms * 1000u);
    g_inner.pfnDestroyDevice(device);
    atomic_store(&g_destroying, 2);
}

SHIM_EXPORT HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    HRESULT hr = d12_refdrv_OpenAdapter12(args);
    if (FAILED(hr))
        return hr;
    g_inner = *args->pAdapterFuncs;
    args->pAdapterFuncs->pfnFillDDITable = shim_fill;
    args->pAdapterFuncs->pfnCreateDevice = shim_create_device;
    args->pAdapterFuncs->pfnDestroyDevice = shim_destroy_device;
    return S_OK;
}

/* ---- What the test calls ---- */

SHIM_EXPORT unsigned d12_drmshim_enable_calls(void)
{
    return atomic_load(&g_enable_calls);
}

SHIM_EXPORT unsigned d12_drmshim_table_fills(void)
{
    return atomic_load(&g_table_fills);
}

/* pfnReportMessageCb on the last device created, as the driver would call it. */
SHIM_EXPORT HRESULT d12_drmshim_report(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    return g_callbacks.pfnReportMessageCb(g_rt_device, message);
}

/* pfnQueryObjectIdentityCb on the last device created; `handle` NULL names that device itself. */
SHIM_EXPORT HRESULT d12_drmshim_identity(void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *identity)
{
    D3D12DDI_HANDLE_AND_TYPE object = {handle ? handle : g_rt_device.handle, type};
    return g_callbacks.pfnQueryObjectIdentityCb(g_rt_device, object, size, identity);
}

/* v2: pfnQueryGpuVaIdentityCb on the last device created. */
SHIM_EXPORT HRESULT d12_drmshim_va_identity(UINT64 va, SIZE_T *size, CHAR *identity)
{
    return g_callbacks.pfnQueryGpuVaIdentityCb(g_rt_device, va, size, identity);
}

/* pfnFlushDriverReportedMessages calls so far (removal flushes included). */
SHIM_EXPORT unsigned d12_drmshim_flush_calls(void)
{
    return atomic_load(&g_flushes);
}

/* Flushes that began while their thread was inside another flush. */
SHIM_EXPORT unsigned d12_drmshim_nested_flushes(void)
{
    return atomic_load(&g_nested_flushes);
}

/* The thread flush `i` ran on (i < d12_drmshim_flush_calls(), the first SHIM_FLUSH_LOG only); 0 otherwise. */
SHIM_EXPORT int d12_drmshim_flush_thread(unsigned i, pthread_t *thread)
{
    if (i >= SHIM_FLUSH_LOG || i >= atomic_load(&g_flush_log_count))
        return 0;
    *thread = g_flush_log[i];
    return 1;
}

/* Report a copy of `message` (its text copied) from inside the next flush, before the driver's own findings. */
SHIM_EXPORT int d12_drmshim_stage(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    size_t length = strlen(message->pDescription) + 1;
    staged *m = malloc(sizeof *m + length);
    if (!m)
        return 0;
    m->next = NULL;
    m->message = *message;
    memcpy(m->text, message->pDescription, length);
    m->message.pDescription = m->text;
    pthread_mutex_lock(&g_stage_lock);
    *g_staged_tail = m;
    g_staged_tail = &m->next;
    pthread_mutex_unlock(&g_stage_lock);
    return 1;
}

/* Every flush from now on sleeps 0..max_us microseconds before the reference driver's flush (0: none). */
SHIM_EXPORT void d12_drmshim_flush_jitter(unsigned max_us)
{
    atomic_store(&g_flush_jitter_us, max_us);
}

/* Staged messages the runtime accepted (S_OK) and refused, so far; and how many still wait for a flush. */
SHIM_EXPORT unsigned d12_drmshim_staged_reported(void)
{
    return atomic_load(&g_staged_reported);
}

SHIM_EXPORT unsigned d12_drmshim_staged_failed(void)
{
    return atomic_load(&g_staged_failed);
}

SHIM_EXPORT unsigned d12_drmshim_staged_waiting(void)
{
    unsigned waiting = 0;
    pthread_mutex_lock(&g_stage_lock);
    for (staged *m = g_staged; m; m = m->next)
        waiting++;
    pthread_mutex_unlock(&g_stage_lock);
    return waiting;
}

/* pfnSetCommandListStateIndex calls so far, the last index issued (0xFFFFFFFF before any), and call `i` of the
 * log (the driver command list it named in *list; meaningful for the last SHIM_INDEX_LOG calls). */
SHIM_EXPORT unsigned d12_drmshim_index_calls(void)
{
    return atomic_load(&g_index_calls);
}

SHIM_EXPORT UINT32 d12_drmshim_last_index(void)
{
    return atomic_load(&g_last_index);
}

SHIM_EXPORT UINT32 d12_drmshim_index_at(unsigned i, void **list)
{
    if (list)
        *list = g_index_log[i % SHIM_INDEX_LOG].list;
    return g_index_log[i % SHIM_INDEX_LOG].index;
}

/* The gate: arm it (the next pfnExecuteCommandLists blocks before reaching the driver), wait until a call is held
 * there, open it (the held call and every later one go through). */
SHIM_EXPORT void d12_drmshim_gate_arm(void)
{
    pthread_mutex_lock(&g_gate_lock);
    g_gate_armed = 1;
    g_gate_arrived = 0;
    g_gate_open = 0;
    pthread_mutex_unlock(&g_gate_lock);
}

SHIM_EXPORT void d12_drmshim_gate_wait_arrived(void)
{
    pthread_mutex_lock(&g_gate_lock);
    while (!g_gate_arrived)
        pthread_cond_wait(&g_gate_changed, &g_gate_lock);
    pthread_mutex_unlock(&g_gate_lock);
}

SHIM_EXPORT void d12_drmshim_gate_open(void)
{
    pthread_mutex_lock(&g_gate_lock);
    g_gate_open = 1;
    pthread_cond_broadcast(&g_gate_changed);
    pthread_mutex_unlock(&g_gate_lock);
}

/* The runtime handle (hRTCommandList.handle, hRTResource.handle) of the last command list / resource created (NULL
 * before any); the value a driver passes in pfnQueryObjectIdentityCb's hRTObject. */
SHIM_EXPORT void *d12_drmshim_last_rt_list(void)
{
    return atomic_load(&g_last_rt_list);
}

SHIM_EXPORT void *d12_drmshim_last_rt_resource(void)
{
    return atomic_load(&g_last_rt_resource);
}

/* pfnSetErrorCb on the last device created (issue 29's storm). */
SHIM_EXPORT void d12_drmshim_set_error(HRESULT hr)
{
    g_callbacks.pfnSetErrorCb(g_rt_device, hr);
}

/* pfnDestroyDevice's delay from now on, and where it is: 0 not called, 1 inside, 2 returned (reset by the delay). */
SHIM_EXPORT void d12_drmshim_destroy_delay(unsigned ms)
{
    atomic_store(&g_destroy_delay_ms, ms);
    atomic_store(&g_destroying, 0);
}

SHIM_EXPORT int d12_drmshim_destroying(void)
{
    return atomic_load(&g_destroying);
}
