/* libd12_gpushim.so: the reference driver behind a shim that misbehaves in its GPU-work DDI, one way per
 * D12_GPUSHIM_MODE (read at OpenAdapter12), so tests/gpu_ddi/test_gpu_ddi.c can prove through the public API how
 * the runtime treats a broken driver. It exports OpenAdapter12 only (gpu_shim.map); what it saw it appends, one line
 * per event, to the file named by D12_GPUSHIM_LOG (read at each event, so the test sets it for itself):
 *   create_queue hr=0x%08X        pfnCreateCommandQueue was called (and what it returned)
 *   destroy_queue                 pfnDestroyCommandQueue was called
 *   create_list hr=0x%08X         pfnCreateCommandList was called
 *   execute count=%u              pfnExecuteCommandLists was called
 *   signal value=%llu hr=0x%08X   the shim passed a signal back through pfnSignalFenceFromGpuCb; what it returned
 *   wait value=%llu hr=0x%08X     likewise pfnWaitForFenceFromGpuCb
 *   list_error kind=%s            pfnSetCommandListErrorCb was called from pfnDrawInstanced
 *
 * It lists only the versions up to D3D12DDI_SUPPORTED_0126 (a driver built against the 0126 header), except in the
 * 0127 modes below.
 *
 * Modes (unset or `pass`: everything passes through, logged):
 *   no_gpu                pfnGetOptionalDDITables leaves out DEVICE_CORE, COMMAND_LIST_3D and COMMAND_QUEUE_3D
 *   partial_gpu           ... leaves out COMMAND_LIST_3D and COMMAND_QUEUE_3D (only DEVICE_CORE offered)
 *   gpu_null_slot         pfnFillDDITable(COMMAND_LIST_3D) succeeds with pfnDispatch NULL
 *   gpu_fill_fails        pfnFillDDITable(COMMAND_QUEUE_3D) returns E_FAIL
 *   compute_alone         pfnGetOptionalDDITables lists D12RT_PIPELINES without D12RT_COMMAND_LIST_BINDING (the
 *                         compute tables come as a pair, docs/pipelines.md)
 *   queue_zero_size       pfnCalcPrivateCommandQueueSize returns 0          (and the same for the other sizes:
 *   queue_absurd_size     ... returns SIZE_MAX / 2                           allocator_zero_size, list_zero_size,
 *                                                                            list_absurd_size, resource_zero_size)
 *   queue_create_fails    pfnCreateCommandQueue returns E_OUTOFMEMORY without constructing anything
 *   bogus_signal_value    pfnCreateDevice gets the shim's pKTCallbacks; a signal is passed back with Value + 1000
 *   bogus_signal_fence    ... with hRTFence replaced by an address that is no fence
 *   bogus_signal_queue    ... with hRTCommandQueue replaced by an address that is no queue
 *   signal_twice          ... each signal is passed back twice
 *   bogus_wait_value      ... a wait is passed back with Value + 1000
 *   list_error_oom        pfnDrawInstanced calls pfnSetCommandListErrorCb(list, E_OUTOFMEMORY)
 *   list_error_invalidarg ... with E_INVALIDARG
 *   list_error_critical   ... with E_FAIL
 *   list_error_bogus_handle ... with E_OUTOFMEMORY and handles that are no live list: NULL, a stack address, the
 *                         device's and the last queue's runtime handles, every list destroyed so far
 *   list_error_critical_bogus_handle ... the same handles with E_FAIL
 *   list_error_after_close pfnExecuteCommandLists calls pfnSetCommandListErrorCb(list, E_OUTOFMEMORY) for each
 *                         (closed) list it is given, outside any recording
 *   queue_max_size        pfnCalcPrivateCommandQueueSize returns the most the runtime accepts (64 MiB, d3d12ddi.h)
 *   queue_over_max_size   ... returns one byte more
 *   fault_bogus_state     a build-0127 driver (versions unfiltered): pfnExecuteCommandLists calls the runtime's
 *                         pfnDeviceFaultCb with an execution state that is no fault (ERROR_OUTOFMEMORY); logs
 *                         `fault state=5`
 *   fault_bogus_handles   ... with ERROR_DMAPAGEFAULT and a queue and list handle that name nothing
 *   progress_bogus        ... calls pfnReportGpuProgressCb with a queue that is none of the device's, a Progress that
 *                         is none of the three, then a valid IDLE; logs `progress case=<c> hr=0x%08X` each
 *   stale_handles         pfnDrawInstanced passes back the runtime handle of every list and queue destroyed so far
 *                         (whether or not a live object now sits at the destroyed one's address):
 *                         pfnQueryObjectIdentityCb for each, logged `identity kind=stale_list|stale_queue hr=0x%08X`, and for the drawing list
 *                         `identity kind=list hr=0x%08X text=<identity>`; then pfnSetCommandListErrorCb(stale, E_FAIL)
 *                         for each destroyed list, logged `list_error kind=stale_list hr=0x80004005`; and the identity
 *                         of every fence a signal was passed back for so far, `identity kind=seen_fence hr=0x%08X` */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "refdrv.h"

#define SHIM_EXPORT __attribute__((visibility("default")))
#define SHIM_BOGUS_VALUE_DELTA 1000u
#define SHIM_MAX_LISTS 256
#define SHIM_MAX_PRIVATE_SIZE ((SIZE_T)64 << 20) /* "more than the runtime accepts (64 MiB)" */

typedef enum {
    MODE_PASS,
    MODE_NO_GPU,
    MODE_PARTIAL_GPU,
    MODE_GPU_NULL_SLOT,
    MODE_GPU_FILL_FAILS,
    MODE_COMPUTE_ALONE,
    MODE_QUEUE_ZERO_SIZE,
    MODE_QUEUE_ABSURD_SIZE,
    MODE_ALLOCATOR_ZERO_SIZE,
    MODE_LIST_ZERO_SIZE,
    MODE_LIST_ABSURD_SIZE,
    MODE_RESOURCE_ZERO_SIZE,
    MODE_QUEUE_CREATE_FAILS,
    MODE_BOGUS_SIGNAL_VALUE,
    MODE_BOGUS_SIGNAL_FENCE,
    MODE_BOGUS_SIGNAL_QUEUE,
    MODE_SIGNAL_TWICE,
    MODE_BOGUS_WAIT_VALUE,
    MODE_LIST_ERROR_OOM,
    MODE_LIST_ERROR_INVALIDARG,
    MODE_LIST_ERROR_CRITICAL,
    MODE_LIST_ERROR_BOGUS_HANDLE,
    MODE_LIST_ERROR_CRITICAL_BOGUS_HANDLE,
    MODE_LIST_ERROR_AFTER_CLOSE,
    MODE_QUEUE_MAX_SIZE,
    MODE_QUEUE_OVER_MAX_SIZE,
    MODE_FAULT_BOGUS_STATE,
    MODE_FAULT_BOGUS_HANDLES,
    MODE_PROGRESS_BOGUS,
    MODE_STALE_HANDLES,
} shim_mode;

static const struct {
    const char *name;
    shim_mode mode;
} k_modes[] = {
    {"pass", MODE_PASS},
    {"no_gpu", MODE_NO_GPU},
    {"partial_gpu", MODE_PARTIAL_GPU},
    {"gpu_null_slot", MODE_GPU_NULL_SLOT},
    {"gpu_fill_fails", MODE_GPU_FILL_FAILS},
    {"compute_alone", MODE_COMPUTE_ALONE},
    {"queue_zero_size", MODE_QUEUE_ZERO_SIZE},
    {"queue_absurd_size", MODE_QUEUE_ABSURD_SIZE},
    {"allocator_zero_size", MODE_ALLOCATOR_ZERO_SIZE},
    {"list_zero_size", MODE_LIST_ZERO_SIZE},
    {"list_absurd_size", MODE_LIST_ABSURD_SIZE},
    {"resource_zero_size", MODE_RESOURCE_ZERO_SIZE},
    {"queue_create_fails", MODE_QUEUE_CREATE_FAILS},
    {"bogus_signal_value", MODE_BOGUS_SIGNAL_VALUE},
    {"bogus_signal_fence", MODE_BOGUS_SIGNAL_FENCE},
    {"bogus_signal_queue", MODE_BOGUS_SIGNAL_QUEUE},
    {"signal_twice", MODE_SIGNAL_TWICE},
    {"bogus_wait_value", MODE_BOGUS_WAIT_VALUE},
    {"list_error_oom", MODE_LIST_ERROR_OOM},
    {"list_error_invalidarg", MODE_LIST_ERROR_INVALIDARG},
    {"list_error_critical", MODE_LIST_ERROR_CRITICAL},
    {"list_error_bogus_handle", MODE_LIST_ERROR_BOGUS_HANDLE},
    {"list_error_critical_bogus_handle", MODE_LIST_ERROR_CRITICAL_BOGUS_HANDLE},
    {"list_error_after_close", MODE_LIST_ERROR_AFTER_CLOSE},
    {"queue_max_size", MODE_QUEUE_MAX_SIZE},
    {"queue_over_max_size", MODE_QUEUE_OVER_MAX_SIZE},
    {"fault_bogus_state", MODE_FAULT_BOGUS_STATE},
    {"fault_bogus_handles", MODE_FAULT_BOGUS_HANDLES},
    {"progress_bogus", MODE_PROGRESS_BOGUS},
    {"stale_handles", MODE_STALE_HANDLES},
};

static shim_mode g_mode;

/* The modes that play a build-0127 driver: versions pass through unfiltered, pKTCallbacks_0127 goes to the inner
 * driver unwrapped (the shim keeps a copy to call the fault and progress callbacks itself). */
static bool is_0127_mode(void)
{
    return g_mode == MODE_FAULT_BOGUS_STATE || g_mode == MODE_FAULT_BOGUS_HANDLES || g_mode == MODE_PROGRESS_BOGUS;
}

static D3D12DDI_ADAPTERFUNCS g_inner;

/* The last device's runtime side (the tests make one device at a time). */
static D3D12DDI_HRTDEVICE g_rt_device;
static D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 g_callbacks;
static D3D12DDI_KERNEL_THUNK_CALLBACKS_0110 g_runtime_kt; /* the runtime's */
static D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 g_runtime_kt_0127; /* the runtime's, in the 0127 modes */
static void *g_last_rt_queue;

/* The inner driver's slots the shim wraps. */
static D3D12DDI_DEVICE_FUNCS_CORE_0126 g_inner_core;
static D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 g_inner_queue;
static D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 g_inner_list;

/* Driver list -> runtime list, and the runtime handles of destroyed lists. Guarded by g_lists_lock. */
static pthread_mutex_t g_lists_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *driver;
    void *runtime;
    int live;
} g_lists[SHIM_MAX_LISTS];
static unsigned g_list_count;
/* Likewise driver queue -> runtime queue (g_lists_lock). */
static struct {
    void *driver;
    void *runtime;
    int live;
} g_queues[SHIM_MAX_LISTS];
static unsigned g_queue_count;
/* The runtime fences signals were passed back for (g_lists_lock). */
static void *g_fences[SHIM_MAX_LISTS];
static unsigned g_fence_count;

/* ---- The log ---- */

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 1, 2))) static void shim_log(const char *format, ...)
{
    const char *path = getenv("D12_GPUSHIM_LOG");
    if (!path || !*path)
        return;
    pthread_mutex_lock(&g_log_lock);
    FILE *file = fopen(path, "a");
    if (file) {
        va_list args;
        va_start(args, format);
        vfprintf(file, format, args);
        va_end(args);
        fputc('\n', file);
        fclose(file);
    }
    pthread_mutex_unlock(&g_log_lock);
}

/* ---- Device core: sizes and constructors ---- */

static SIZE_T APIENTRY shim_queue_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args)
{
    if (g_mode == MODE_QUEUE_ZERO_SIZE)
        return 0;
    if (g_mode == MODE_QUEUE_ABSURD_SIZE)
        return SIZE_MAX / 2;
    if (g_mode == MODE_QUEUE_MAX_SIZE)
        return SHIM_MAX_PRIVATE_SIZE;
    if (g_mode == MODE_QUEUE_OVER_MAX_SIZE)
        return SHIM_MAX_PRIVATE_SIZE + 1;
    return g_inner_core.pfnCalcPrivateCommandQueueSize(device, args);
}

static HRESULT APIENTRY shim_create_queue(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args,
                                          D3D12DDI_HCOMMANDQUEUE queue, D3D12DDI_HRTCOMMANDQUEUE rt_queue)
{
    HRESULT hr = g_mode == MODE_QUEUE_CREATE_FAILS ? E_OUTOFMEMORY
                                                   : g_inner_core.pfnCreateCommandQueue(device, args, queue, rt_queue);
    if (SUCCEEDED(hr)) {
        g_last_rt_queue = rt_queue.handle;
        pthread_mutex_lock(&g_lists_lock);
        if (g_queue_count < SHIM_MAX_LISTS)
            g_queues[g_queue_count++] = (__typeof__(g_queues[0])){queue.pDrvPrivate, rt_queue.handle, 1};
        pthread_mutex_unlock(&g_lists_lock);
    }
    shim_log("create_queue hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY shim_destroy_queue(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDQUEUE queue)
{
    shim_log("destroy_queue");
    pthread_mutex_lock(&g_lists_lock);
    for (unsigned i = 0; i < g_queue_count; i++) {
        if (g_queues[i].live && g_queues[i].driver == queue.pDrvPrivate)
            g_queues[i].live = 0; /* its runtime handle is kept: a stale handle for stale_handles */
    }
    pthread_mutex_unlock(&g_lists_lock);
    g_inner_core.pfnDestroyCommandQueue(device, queue);
}

static SIZE_T APIENTRY shim_allocator_size(D3D12DDI_HDEVICE device,
                                           const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args)
{
    if (g_mode == MODE_ALLOCATOR_ZERO_SIZE)
        return 0;
    return g_inner_core.pfnCalcPrivateCommandAllocatorSize(device, args);
}

static SIZE_T APIENTRY shim_list_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args)
{
    if (g_mode == MODE_LIST_ZERO_SIZE)
        return 0;
    if (g_mode == MODE_LIST_ABSURD_SIZE)
        return SIZE_MAX / 2;
    return g_inner_core.pfnCalcPrivateCommandListSize(device, args);
}

static HRESULT APIENTRY shim_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                         D3D12DDI_HCOMMANDLIST list, D3D12DDI_HRTCOMMANDLIST rt_list)
{
    HRESULT hr = g_inner_core.pfnCreateCommandList(device, args, list, rt_list);
    if (SUCCEEDED(hr)) {
        pthread_mutex_lock(&g_lists_lock);
        if (g_list_count < SHIM_MAX_LISTS) {
            g_lists[g_list_count].driver = list.pDrvPrivate;
            g_lists[g_list_count].runtime = rt_list.handle;
            g_lists[g_list_count].live = 1;
            g_list_count++;
        }
        pthread_mutex_unlock(&g_lists_lock);
    }
    shim_log("create_list hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY shim_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST list)
{
    pthread_mutex_lock(&g_lists_lock);
    for (unsigned i = 0; i < g_list_count; i++) {
        if (g_lists[i].live && g_lists[i].driver == list.pDrvPrivate)
            g_lists[i].live = 0; /* its runtime handle is kept: a stale handle for list_error_bogus_handle */
    }
    pthread_mutex_unlock(&g_lists_lock);
    g_inner_core.pfnDestroyCommandList(device, list);
}

static SIZE_T APIENTRY shim_resource_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATERESOURCE_0126 *args)
{
    if (g_mode == MODE_RESOURCE_ZERO_SIZE)
        return 0;
    return g_inner_core.pfnCalcPrivateResourceSize(device, args);
}

/* ---- Queue table ---- */

static void *runtime_list_of(void *driver_list);
static void list_error(const char *kind, void *handle, HRESULT hr);

/* The 0127 modes: the runtime's fault and progress callbacks called with what a broken driver passes. */
static void misuse_0127_callbacks(void)
{
    int stack_object;
    if (g_mode == MODE_FAULT_BOGUS_STATE || g_mode == MODE_FAULT_BOGUS_HANDLES) {
        D3D12DDICB_DEVICEFAULT_0127 fault = {
            .ExecutionState = g_mode == MODE_FAULT_BOGUS_STATE ? D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_OUTOFMEMORY
                                                               : D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT,
            .FaultedVirtualAddress = 0x1234,
            .hRTCommandQueue = {&stack_object}, /* no queue of the device */
            .hRTCommandList = {&stack_object},  /* no list of the device */
            .OpIndex = 7,
        };
        g_runtime_kt_0127.pfnDeviceFaultCb(g_rt_device, &fault);
        shim_log("fault state=%u", fault.ExecutionState);
    }
    if (g_mode == MODE_PROGRESS_BOGUS) {
        D3D12DDICB_GPUPROGRESS_0127 idle = {D3D12DDI_GPU_PROGRESS_0127_IDLE, {NULL}, D3D12DDI_OP_INDEX_UNKNOWN};
        D3D12DDICB_GPUPROGRESS_0127 bogus = {(D3D12DDI_GPU_PROGRESS_0127)7, {NULL}, D3D12DDI_OP_INDEX_UNKNOWN};
        D3D12DDI_HRTCOMMANDQUEUE real = {g_last_rt_queue}, fake = {&stack_object};
        shim_log("progress case=unknown_queue hr=0x%08X",
                 (unsigned)g_runtime_kt_0127.pfnReportGpuProgressCb(g_rt_device, fake, &idle));
        shim_log("progress case=unknown_progress hr=0x%08X",
                 (unsigned)g_runtime_kt_0127.pfnReportGpuProgressCb(g_rt_device, real, &bogus));
        shim_log("progress case=valid hr=0x%08X",
                 (unsigned)g_runtime_kt_0127.pfnReportGpuProgressCb(g_rt_device, real, &idle));
    }
}

static VOID APIENTRY shim_execute(D3D12DDI_HCOMMANDQUEUE queue, UINT count, const D3D12DDI_HCOMMANDLIST *lists)
{
    shim_log("execute count=%u", count);
    if (is_0127_mode())
        misuse_0127_callbacks();
    for (UINT i = 0; g_mode == MODE_LIST_ERROR_AFTER_CLOSE && i < count; i++)
        list_error("closed_list", runtime_list_of(lists[i].pDrvPrivate), E_OUTOFMEMORY);
    g_inner_queue.pfnExecuteCommandLists(queue, count, lists);
}

/* ---- Command list table: pfnDrawInstanced reports recording errors ---- */

static void *runtime_list_of(void *driver_list)
{
    void *runtime = NULL;
    pthread_mutex_lock(&g_lists_lock);
    for (unsigned i = 0; i < g_list_count && !runtime; i++) {
        if (g_lists[i].live && g_lists[i].driver == driver_list)
            runtime = g_lists[i].runtime;
    }
    pthread_mutex_unlock(&g_lists_lock);
    return runtime;
}

static void list_error(const char *kind, void *handle, HRESULT hr)
{
    D3D12DDI_HRTCOMMANDLIST rt_list = {handle};
    shim_log("list_error kind=%s hr=0x%08X", kind, (unsigned)hr);
    g_callbacks.pfnSetCommandListErrorCb(rt_list, hr);
}

static void bogus_list_errors(void *current, HRESULT hr)
{
    int on_stack = 0;
    list_error("null", NULL, hr);
    list_error("stack", &on_stack, hr);
    list_error("device", g_rt_device.handle, hr); /* a live object, not a list */
    if (g_last_rt_queue)
        list_error("queue", g_last_rt_queue, hr); /* likewise */
    void *stale[SHIM_MAX_LISTS];
    unsigned count = 0;
    pthread_mutex_lock(&g_lists_lock);
    for (unsigned i = 0; i < g_list_count; i++) {
        /* A destroyed list's address may have been reused by a live list: that one would be a real list. */
        int reused = 0;
        for (unsigned j = 0; j < g_list_count; j++)
            reused |= g_lists[j].live && g_lists[j].runtime == g_lists[i].runtime;
        if (!g_lists[i].live && !reused && g_lists[i].runtime != current)
            stale[count++] = g_lists[i].runtime;
    }
    pthread_mutex_unlock(&g_lists_lock);
    for (unsigned i = 0; i < count; i++)
        list_error("destroyed_list", stale[i], hr);
}

/* pfnQueryObjectIdentityCb for (handle, type), logged as `identity kind=<kind> hr=0x%08X[ text=<identity>]`. */
static void log_identity(const char *kind, void *handle, D3D12DDI_HANDLETYPE type)
{
    char text[256] = "";
    SIZE_T size = sizeof text;
    D3D12DDI_HANDLE_AND_TYPE object = {handle, type};
    HRESULT hr = g_callbacks.pfnQueryObjectIdentityCb(g_rt_device, object, &size, text);
    if (SUCCEEDED(hr))
        shim_log("identity kind=%s hr=0x%08X text=%s", kind, (unsigned)hr, text);
    else
        shim_log("identity kind=%s hr=0x%08X", kind, (unsigned)hr);
}

/* stale_handles: every destroyed list's and queue's handle passed back, even where a live object now sits at the
 * destroyed one's address (the case an address-valued handle got wrong). */
static void stale_handles(void *current)
{
    void *lists[SHIM_MAX_LISTS], *queues[SHIM_MAX_LISTS], *fences[SHIM_MAX_LISTS];
    unsigned list_count = 0, queue_count = 0, fence_count = g_fence_count;
    pthread_mutex_lock(&g_lists_lock);
    memcpy(fences, g_fences, sizeof fences);
    for (unsigned i = 0; i < g_list_count; i++) {
        if (!g_lists[i].live)
            lists[list_count++] = g_lists[i].runtime;
    }
    for (unsigned i = 0; i < g_queue_count; i++) {
        if (!g_queues[i].live)
            queues[queue_count++] = g_queues[i].runtime;
    }
    pthread_mutex_unlock(&g_lists_lock);
    log_identity("list", current, D3D12DDI_HT_COMMAND_LIST);
    for (unsigned i = 0; i < list_count; i++)
        log_identity("stale_list", lists[i], D3D12DDI_HT_COMMAND_LIST);
    for (unsigned i = 0; i < queue_count; i++)
        log_identity("stale_queue", queues[i], D3D12DDI_HT_COMMAND_QUEUE);
    for (unsigned i = 0; i < fence_count; i++)
        log_identity("seen_fence", fences[i], D3D12DDI_HT_FENCE);
    for (unsigned i = 0; i < list_count; i++)
        list_error("stale_list", lists[i], E_FAIL);
}

static VOID APIENTRY shim_draw(D3D12DDI_HCOMMANDLIST list, UINT vertices, UINT instances, UINT start_vertex,
                               UINT start_instance)
{
    g_inner_list.pfnDrawInstanced(list, vertices, instances, start_vertex, start_instance);
    void *rt_list = runtime_list_of(list.pDrvPrivate);
    switch (g_mode) {
    case MODE_LIST_ERROR_OOM:
        list_error("list", rt_list, E_OUTOFMEMORY);
        break;
    case MODE_LIST_ERROR_INVALIDARG:
        list_error("list", rt_list, E_INVALIDARG);
        break;
    case MODE_LIST_ERROR_CRITICAL:
        list_error("list", rt_list, E_FAIL);
        break;
    case MODE_LIST_ERROR_BOGUS_HANDLE:
        bogus_list_errors(rt_list, E_OUTOFMEMORY);
        break;
    case MODE_LIST_ERROR_CRITICAL_BOGUS_HANDLE:
        bogus_list_errors(rt_list, E_FAIL);
        break;
    case MODE_STALE_HANDLES:
        stale_handles(rt_list);
        break;
    default:
        break;
    }
}

/* ---- pKTCallbacks: what the driver's timeline passes back ---- */

static HRESULT APIENTRY shim_signal_cb(D3D12DDI_HRTDEVICE device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                       const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    D3D12DDIARG_FENCE_OPERATION_0126 passed = *operation;
    static int not_a_fence, not_a_queue;
    if (g_mode == MODE_BOGUS_SIGNAL_VALUE)
        passed.Value += SHIM_BOGUS_VALUE_DELTA;
    if (g_mode == MODE_BOGUS_SIGNAL_FENCE)
        passed.hRTFence.handle = &not_a_fence;
    if (g_mode == MODE_BOGUS_SIGNAL_QUEUE)
        queue.handle = &not_a_queue;
    if (g_mode == MODE_STALE_HANDLES) {
        pthread_mutex_lock(&g_lists_lock);
        if (g_fence_count < SHIM_MAX_LISTS)
            g_fences[g_fence_count++] = passed.hRTFence.handle;
        pthread_mutex_unlock(&g_lists_lock);
    }
    HRESULT hr = g_runtime_kt.pfnSignalFenceFromGpuCb(device, queue, &passed);
    shim_log("signal value=%llu hr=0x%08X", (unsigned long long)passed.Value, (unsigned)hr);
    if (g_mode == MODE_SIGNAL_TWICE) {
        hr = g_runtime_kt.pfnSignalFenceFromGpuCb(device, queue, &passed);
        shim_log("signal value=%llu hr=0x%08X", (unsigned long long)passed.Value, (unsigned)hr);
    }
    return hr;
}

static HRESULT APIENTRY shim_wait_cb(D3D12DDI_HRTDEVICE device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                     const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    D3D12DDIARG_FENCE_OPERATION_0126 passed = *operation;
    if (g_mode == MODE_BOGUS_WAIT_VALUE)
        passed.Value += SHIM_BOGUS_VALUE_DELTA;
    HRESULT hr = g_runtime_kt.pfnWaitForFenceFromGpuCb(device, queue, &passed);
    shim_log("wait value=%llu hr=0x%08X", (unsigned long long)passed.Value, (unsigned)hr);
    return hr;
}

static const D3D12DDI_KERNEL_THUNK_CALLBACKS_0110 k_shim_kt = {shim_signal_cb, shim_wait_cb};

/* ---- Adapter ---- */

static int gpu_table(D3D12DDI_TABLE_TYPE type)
{
    return type == D3D12DDI_TABLE_TYPE_DEVICE_CORE || type == D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D ||
           type == D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D;
}

/* The shim is a driver built against the 0126 header (its pKTCallbacks table is the 0110 one): it lists only the
 * inner driver's versions up to D3D12DDI_SUPPORTED_0126, so the runtime must still load it and run its work. */
static HRESULT APIENTRY shim_versions(D3D12DDI_HADAPTER adapter, UINT32 *entries, UINT64 *versions)
{
    UINT64 inner[64];
    UINT32 count = 64, kept = 0;
    HRESULT hr = g_inner.pfnGetSupportedVersions(adapter, &count, inner);
    if (FAILED(hr) || !entries)
        return FAILED(hr) ? hr : E_INVALIDARG;
    for (UINT32 i = 0; i < count; i++) {
        if (is_0127_mode() || (D3D12DDI_VERSION_OF_SUPPORTED(inner[i]) >> 16) <= D3D12DDI_BUILD_VERSION_0126)
            inner[kept++] = inner[i];
    }
    if (versions) {
        if (*entries < kept)
            return (HRESULT)0x8007007AL; /* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */
        memcpy(versions, inner, kept * sizeof inner[0]);
    }
    *entries = kept;
    return S_OK;
}

/* Whether the shim's mode leaves table `type` out of the inner driver's list. */
static bool dropped_table(D3D12DDI_TABLE_TYPE type)
{
    switch (g_mode) {
    case MODE_NO_GPU: return gpu_table(type);
    case MODE_PARTIAL_GPU: return gpu_table(type) && type != D3D12DDI_TABLE_TYPE_DEVICE_CORE;
    case MODE_COMPUTE_ALONE:
        return type == D3D12DDI_TABLE_TYPE_D12RT_PIPELINES || type == D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING;
    default: return false;
    }
}

static HRESULT APIENTRY shim_optional_tables(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                             D3D12DDI_TABLE_REQUEST *requests)
{
    if (g_mode != MODE_NO_GPU && g_mode != MODE_PARTIAL_GPU && g_mode != MODE_COMPUTE_ALONE)
        return g_inner.pfnGetOptionalDDITables(adapter, entries, requests);
    if (!entries)
        return E_INVALIDARG;
    D3D12DDI_TABLE_REQUEST all[64], kept[65];
    UINT32 count = 64, left = 0;
    HRESULT hr = g_inner.pfnGetOptionalDDITables(adapter, &count, all);
    if (FAILED(hr))
        return hr;
    for (UINT32 i = 0; i < count && i < 64; i++) {
        if (!dropped_table(all[i].tableType))
            kept[left++] = all[i];
    }
    if (g_mode == MODE_COMPUTE_ALONE)
        kept[left++] = (D3D12DDI_TABLE_REQUEST){D3D12DDI_TABLE_TYPE_D12RT_PIPELINES, 1};
    if (requests) {
        if (*entries < left)
            return (HRESULT)0x8007007AL; /* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */
        memcpy(requests, kept, left * sizeof kept[0]);
    }
    *entries = left;
    return S_OK;
}

static HRESULT APIENTRY shim_fill(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size,
                                  UINT number, D3D12DDI_HRTTABLE rt_table)
{
    if (g_mode == MODE_GPU_FILL_FAILS && type == D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D)
        return E_FAIL;
    HRESULT hr = g_inner.pfnFillDDITable(adapter, type, table, size, number, rt_table);
    if (FAILED(hr))
        return hr;
    if (type == D3D12DDI_TABLE_TYPE_DEVICE_CORE && size >= sizeof g_inner_core) {
        D3D12DDI_DEVICE_FUNCS_CORE_0126 *funcs = table;
        g_inner_core = *funcs;
        funcs->pfnCalcPrivateCommandQueueSize = shim_queue_size;
        funcs->pfnCreateCommandQueue = shim_create_queue;
        funcs->pfnDestroyCommandQueue = shim_destroy_queue;
        funcs->pfnCalcPrivateCommandAllocatorSize = shim_allocator_size;
        funcs->pfnCalcPrivateCommandListSize = shim_list_size;
        funcs->pfnCreateCommandList = shim_create_list;
        funcs->pfnDestroyCommandList = shim_destroy_list;
        funcs->pfnCalcPrivateResourceSize = shim_resource_size;
    }
    if (type == D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D && size >= sizeof g_inner_queue) {
        D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 *funcs = table;
        g_inner_queue = *funcs;
        funcs->pfnExecuteCommandLists = shim_execute;
    }
    if (type == D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D && size >= sizeof g_inner_list) {
        D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 *funcs = table;
        g_inner_list = *funcs;
        funcs->pfnDrawInstanced = shim_draw;
        if (g_mode == MODE_GPU_NULL_SLOT)
            funcs->pfnDispatch = NULL;
    }
    return S_OK;
}

static HRESULT APIENTRY shim_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    D3D12DDIARG_CREATEDEVICE_0003 wrapped = *args;
    g_rt_device = args->hRTDevice;
    g_last_rt_queue = NULL;
    if ((args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0126)
        g_callbacks = *args->p12UMCallbacks_0126;
    if (args->pKTCallbacks && is_0127_mode() && (args->Version >> 16) >= D3D12DDI_BUILD_VERSION_0127) {
        g_runtime_kt_0127 = *args->pKTCallbacks_0127; /* passed through: the inner driver calls the runtime */
    } else if (args->pKTCallbacks) {
        g_runtime_kt = *args->pKTCallbacks;
        wrapped.pKTCallbacks = &k_shim_kt; /* the driver's timeline now calls the shim, which calls the runtime */
    }
    return g_inner.pfnCreateDevice(adapter, &wrapped);
}

SHIM_EXPORT HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    const char *mode = getenv("D12_GPUSHIM_MODE");
    bool known = !mode || !*mode;
    g_mode = MODE_PASS;
    for (size_t i = 0; mode && i < sizeof k_modes / sizeof k_modes[0]; i++) {
        if (strcmp(mode, k_modes[i].name) == 0) {
            g_mode = k_modes[i].mode;
            known = true;
        }
    }
    if (!known) {
        fprintf(stderr, "gpushim: unknown D12_GPUSHIM_MODE=%s\n", mode); /* a typo must not pass as `pass` */
        return E_FAIL;
    }
    HRESULT hr = d12_refdrv_OpenAdapter12(args);
    if (FAILED(hr))
        return hr;
    g_inner = *args->pAdapterFuncs;
    args->pAdapterFuncs->pfnGetSupportedVersions = shim_versions;
    args->pAdapterFuncs->pfnGetOptionalDDITables = shim_optional_tables;
    args->pAdapterFuncs->pfnFillDDITable = shim_fill;
    args->pAdapterFuncs->pfnCreateDevice = shim_create_device;
    return S_OK;
}
