/* The reference driver's GPU work, driven directly through d12_refdrv_OpenAdapter12 with this file playing the
 * runtime: its own device callbacks record reports and answer identity queries, its own fence callbacks keep
 * fence values under a mutex and condition variable. One ctest per case: test_refdrv_gpu CASE. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "drvcommon_messages.h" /* the findings a device holds for the next flush */
#include "harness.h"
#include "refdrv_gpu.h" /* the driver's internals: its command records and GPU cost */

/* ---- The fake runtime ---- */

typedef struct fake_fence {
    UINT64 value;
} fake_fence;

typedef struct fake_resource {
    char name[64];
} fake_resource;

typedef struct report {
    UINT64 id;
    int severity, category;
    UINT32 index;
    char text[512];
} report;

#define MAX_LOG 256

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static report g_reports[MAX_LOG];
static unsigned g_report_count;
static D3D12DDIARG_FENCE_OPERATION_0126 g_signals[MAX_LOG];
static unsigned g_signal_count, g_pending_at_signal[MAX_LOG], g_wait_count;
static bool g_abort_waits;
static HRESULT g_list_error = S_OK;
static d12__refdrv_device *g_device; /* to count its pending findings when a signal comes back */

static unsigned pending_count(void)
{
    return (unsigned)d12__drv_pending_count(g_device->pending);
}

static HRESULT APIENTRY report_message(D3D12DDI_HRTDEVICE device, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *m)
{
    (void)device;
    pthread_mutex_lock(&g_lock);
    if (g_report_count < MAX_LOG) {
        report *r = &g_reports[g_report_count++];
        *r = (report){m->VendorMessageId, m->Severity, m->Category, m->CommandListStateIndex, ""};
        snprintf(r->text, sizeof r->text, "%s", m->pDescription);
    }
    pthread_mutex_unlock(&g_lock);
    return S_OK;
}

static HRESULT APIENTRY query_identity(D3D12DDI_HRTDEVICE device, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size,
                                       CHAR *out)
{
    (void)device;
    if (!size || !object.Handle || object.Type != D3D12DDI_HT_0012_RESOURCE)
        return E_INVALIDARG;
    char text[128];
    snprintf(text, sizeof text, "0x%016llX:'%s'", (unsigned long long)(uintptr_t)object.Handle,
             ((fake_resource *)object.Handle)->name);
    SIZE_T needed = strlen(text) + 1;
    if (out && *size < needed) {
        *size = needed;
        return (HRESULT)0x887A0003L; /* DXGI_ERROR_MORE_DATA */
    }
    if (out)
        memcpy(out, text, needed);
    *size = needed;
    return S_OK;
}

static VOID APIENTRY set_error(D3D12DDI_HRTDEVICE device, HRESULT hr)
{
    (void)device;
    fprintf(stderr, "unexpected device error 0x%08X\n", (unsigned)hr);
    CHECK(!"pfnSetErrorCb called");
}

static VOID APIENTRY set_list_error(D3D12DDI_HRTCOMMANDLIST list, HRESULT hr) /* the WDK's signature */
{
    (void)list;
    g_list_error = hr;
}

static HRESULT APIENTRY signal_from_gpu(D3D12DDI_HRTDEVICE device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                        const D3D12DDIARG_FENCE_OPERATION_0126 *op)
{
    (void)device;
    (void)queue;
    unsigned pending = pending_count();
    pthread_mutex_lock(&g_lock);
    ((fake_fence *)op->hRTFence.handle)->value = op->Value;
    if (g_signal_count < MAX_LOG) {
        g_pending_at_signal[g_signal_count] = pending;
        g_signals[g_signal_count++] = *op;
    }
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    return S_OK;
}

static HRESULT APIENTRY wait_from_gpu(D3D12DDI_HRTDEVICE device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                      const D3D12DDIARG_FENCE_OPERATION_0126 *op)
{
    (void)device;
    (void)queue;
    pthread_mutex_lock(&g_lock);
    g_wait_count++;
    pthread_cond_broadcast(&g_cond);
    while (((fake_fence *)op->hRTFence.handle)->value < op->Value && !g_abort_waits)
        pthread_cond_wait(&g_cond, &g_lock);
    HRESULT hr = ((fake_fence *)op->hRTFence.handle)->value < op->Value ? E_ABORT : S_OK;
    pthread_mutex_unlock(&g_lock);
    return hr;
}

static const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 k_callbacks = {set_error, set_list_error, report_message,
                                                                   query_identity, NULL}; /* no pfnQueryGpuVaIdentityCb: version 1 */
static const D3D12DDI_KERNEL_THUNK_CALLBACKS_0110 k_kt = {signal_from_gpu, wait_from_gpu};

/* DDI build 0127: the fault callback records what it got; progress answers g_progress_answer (S_OK, or
 * D3DDDIERR_DEVICEREMOVED once a test "removes the device") and counts the reports by kind. */
static D3D12DDICB_DEVICEFAULT_0127 g_faults[MAX_LOG];
static unsigned g_fault_count, g_progress_count[3];
static D3D12DDICB_GPUPROGRESS_0127 g_last_begin;
static HRESULT g_progress_answer = S_OK;

static VOID APIENTRY fault_from_gpu(D3D12DDI_HRTDEVICE device, const D3D12DDICB_DEVICEFAULT_0127 *fault)
{
    (void)device;
    pthread_mutex_lock(&g_lock);
    if (g_fault_count < MAX_LOG)
        g_faults[g_fault_count++] = *fault;
    g_progress_answer = D3DDDIERR_DEVICEREMOVED; /* the runtime removes the device */
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

static HRESULT APIENTRY progress_from_gpu(D3D12DDI_HRTDEVICE device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                          const D3D12DDICB_GPUPROGRESS_0127 *progress)
{
    (void)device;
    (void)queue;
    pthread_mutex_lock(&g_lock);
    if ((unsigned)progress->Progress < 3)
        g_progress_count[progress->Progress]++;
    if (progress->Progress == D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN)
        g_last_begin = *progress;
    HRESULT hr = g_progress_answer;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    return hr;
}

static const D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 k_kt_0127 = {signal_from_gpu, wait_from_gpu, fault_from_gpu,
                                                               progress_from_gpu};

/* Set a fence from the CPU (the runtime's ID3D12Fence::Signal). */
static void cpu_signal(fake_fence *fence, UINT64 value)
{
    pthread_mutex_lock(&g_lock);
    fence->value = value;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

static void wait_fence(fake_fence *fence, UINT64 value)
{
    pthread_mutex_lock(&g_lock);
    while (fence->value < value)
        pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
}

/* ---- The driver, opened the way the runtime opens it ---- */

typedef struct gpu {
    D3D12DDI_ADAPTERFUNCS af;
    D3D12DDI_HADAPTER adapter;
    D3D12DDI_HDEVICE device;
    D3D12DDI_DEVICE_FUNCS_CORE_0126 core;
    union {
        D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 cl;
        D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 cl7; /* build 0127 */
    };
    D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 q;
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 drm;
    D3D12DDI_HCOMMANDQUEUE queue;
    D3D12DDI_HCOMMANDALLOCATOR allocator;
} gpu;

static void *private_memory(SIZE_T size)
{
    CHECK(size > 0);
    return calloc(1, size);
}

/* Open the driver as a runtime of DDI build `build` (0126 or 0127) would. */
static void open_gpu_build(gpu *g, bool drm, bool kt, UINT build)
{
    memset(g, 0, sizeof *g);
    D3D12DDIARG_OPENADAPTER open = {{NULL}, {NULL}, NULL, &g->af};
    CHECK_EQ_INT(d12_refdrv_OpenAdapter12(&open), S_OK);
    g->adapter = open.hAdapter;
    D3D12DDIARG_CALCPRIVATEDEVICESIZE calc = {D3D12DDI_INTERFACE_VERSION_R8, build << 16, 0};
    g->device.pDrvPrivate = private_memory(g->af.pfnCalcPrivateDeviceSize(g->adapter, &calc));
    D3D12DDIARG_CREATEDEVICE_0003 create = {{(void *)1}, calc.Interface, calc.Version, {kt ? &k_kt : NULL},
                                            g->device, {.p12UMCallbacks_0126 = &k_callbacks}, 0};
    if (kt && build >= D3D12DDI_BUILD_VERSION_0127)
        create.pKTCallbacks_0127 = &k_kt_0127;
    bool build_0127 = build >= D3D12DDI_BUILD_VERSION_0127;
    CHECK_EQ_INT(g->af.pfnCreateDevice(g->adapter, &create), S_OK);
    g_device = g->device.pDrvPrivate;
    D3D12DDI_HRTTABLE none = {NULL};
    CHECK_EQ_INT(g->af.pfnFillDDITable(g->adapter, D3D12DDI_TABLE_TYPE_DEVICE_CORE, &g->core, sizeof g->core, 0, none),
                 S_OK);
    CHECK_EQ_INT(g->af.pfnFillDDITable(g->adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, &g->cl,
                                       build_0127 ? sizeof g->cl7 : sizeof g->cl, 0, none),
                 S_OK);
    CHECK_EQ_INT(g->af.pfnFillDDITable(g->adapter, D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, &g->q, sizeof g->q, 0, none),
                 S_OK);
    if (drm) {
        D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 ext;
        CHECK_EQ_INT(g->af.pfnFillDDITable(g->adapter, D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, &ext, sizeof ext,
                                           0, none),
                     S_OK);
        CHECK_EQ_INT(ext.pfnEnableExtendedFeature(g->device, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES,
                                                  D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0),
                     S_OK);
        CHECK_EQ_INT(g->af.pfnFillDDITable(g->adapter, D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES, &g->drm,
                                           sizeof g->drm, 0, none),
                     S_OK);
        CHECK_EQ_INT(g_report_count, 1); /* the initialization message */
        g_report_count = 0;
    }
    if (!kt)
        return;
    D3D12DDIARG_CREATECOMMANDQUEUE_0126 qargs = {D3D12DDI_COMMAND_QUEUE_FLAG_3D, 1};
    g->queue.pDrvPrivate = private_memory(g->core.pfnCalcPrivateCommandQueueSize(g->device, &qargs));
    CHECK_EQ_INT(g->core.pfnCreateCommandQueue(g->device, &qargs, g->queue, (D3D12DDI_HRTCOMMANDQUEUE){(void *)2}),
                 S_OK);
    D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 aargs = {D3D12DDI_COMMAND_QUEUE_FLAG_3D};
    g->allocator.pDrvPrivate = private_memory(g->core.pfnCalcPrivateCommandAllocatorSize(g->device, &aargs));
    CHECK_EQ_INT(g->core.pfnCreateCommandAllocator(g->device, &aargs, g->allocator), S_OK);
}

static void open_gpu(gpu *g, bool drm, bool kt)
{
    open_gpu_build(g, drm, kt, D3D12DDI_BUILD_VERSION_0126);
}

static void destroy_queue(gpu *g)
{
    if (!g->queue.pDrvPrivate)
        return;
    g->core.pfnDestroyCommandQueue(g->device, g->queue);
    free(g->queue.pDrvPrivate);
    g->queue.pDrvPrivate = NULL;
}

static void close_gpu(gpu *g)
{
    destroy_queue(g);
    if (g->allocator.pDrvPrivate) {
        g->core.pfnDestroyCommandAllocator(g->device, g->allocator);
        free(g->allocator.pDrvPrivate);
    }
    g->af.pfnDestroyDevice(g->device);
    free(g->device.pDrvPrivate);
    g->af.pfnCloseAdapter(g->adapter);
}

typedef struct buffer {
    D3D12DDI_HRESOURCE h;
    fake_resource rt;
    UINT64 va, size;
    unsigned char *data;
} buffer;

static void create_buffer(gpu *g, buffer *b, D3D12DDI_HEAP_TYPE heap, UINT64 size, const char *name)
{
    D3D12DDIARG_CREATERESOURCE_0126 args = {heap, size};
    snprintf(b->rt.name, sizeof b->rt.name, "%s", name);
    b->h.pDrvPrivate = private_memory(g->core.pfnCalcPrivateResourceSize(g->device, &args));
    CHECK_EQ_INT(g->core.pfnCreateResource(g->device, &args, b->h, (D3D12DDI_HRTRESOURCE){&b->rt}), S_OK);
    b->va = g->core.pfnGetResourceGPUVirtualAddress(g->device, b->h);
    b->size = size;
    b->data = NULL;
    if (heap != D3D12DDI_HEAP_TYPE_DEFAULT)
        CHECK_EQ_INT(g->core.pfnMapResource(g->device, b->h, (void **)&b->data), S_OK);
}

static void destroy_buffer(gpu *g, buffer *b)
{
    g->core.pfnDestroyResource(g->device, b->h);
    free(b->h.pDrvPrivate);
}

static D3D12DDI_HCOMMANDLIST create_list(gpu *g)
{
    D3D12DDIARG_CREATECOMMANDLIST_0126 args = {D3D12DDI_COMMAND_QUEUE_FLAG_3D, g->allocator};
    D3D12DDI_HCOMMANDLIST list = {private_memory(g->core.pfnCalcPrivateCommandListSize(g->device, &args))};
    CHECK_EQ_INT(g->core.pfnCreateCommandList(g->device, &args, list, (D3D12DDI_HRTCOMMANDLIST){(void *)3}), S_OK);
    return list;
}

static void destroy_list(gpu *g, D3D12DDI_HCOMMANDLIST list)
{
    g->core.pfnDestroyCommandList(g->device, list);
    free(list.pDrvPrivate);
}

/* Submit `list`, signal `fence` to `value` behind it, and wait until the timeline passed the signal back. */
static void execute_and_wait(gpu *g, D3D12DDI_HCOMMANDLIST list, fake_fence *fence, UINT64 value)
{
    g->q.pfnExecuteCommandLists(g->queue, 1, &list);
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{fence}, value};
    g->q.pfnSignalFence(g->queue, &op);
    wait_fence(fence, value);
}

static unsigned reports(void)
{
    pthread_mutex_lock(&g_lock);
    unsigned count = g_report_count;
    pthread_mutex_unlock(&g_lock);
    return count;
}

static void check_report(unsigned i, UINT64 id, int severity, UINT32 index, const char *needle)
{
    CHECK(i < reports());
    if (i >= reports())
        return;
    CHECK_EQ_INT(g_reports[i].id, id);
    CHECK_EQ_INT(g_reports[i].severity, severity);
    CHECK_EQ_INT(g_reports[i].category, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION);
    CHECK_EQ_INT(g_reports[i].index, index);
    if (!CHECK(strstr(g_reports[i].text, needle) != NULL))
        fprintf(stderr, "    text \"%s\" lacks \"%s\"\n", g_reports[i].text, needle);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- Cases ---- */

#define ERROR_ D3D12DDI_MESSAGE_SEVERITY_0126_ERROR
#define CORRUPTION D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION

/* The three GPU-work tables are offered and filled, every slot set; a short table is E_INVALIDARG. */
static void tables(void)
{
    gpu g;
    open_gpu(&g, true, true);
    UINT32 count = 0;
    CHECK_EQ_INT(g.af.pfnGetOptionalDDITables(g.adapter, &count, NULL), S_OK);
    CHECK_EQ_INT(count, 8); /* + descriptors, heaps, and the compute pair (docs/pipelines.md) */
    D3D12DDI_TABLE_REQUEST requests[8];
    CHECK_EQ_INT(g.af.pfnGetOptionalDDITables(g.adapter, &count, requests), S_OK);
    unsigned seen = 0;
    for (unsigned i = 0; i < count; i++) {
        CHECK_EQ_INT(requests[i].numTables, 1);
        seen |= 1u << (requests[i].tableType & 15);
    }
    CHECK_EQ_INT(seen, (1u << 0) | (1u << 1) | (1u << 2) | (1u << 8) | (1u << (D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS & 15)) |
                           (1u << (D3D12DDI_TABLE_TYPE_D12RT_HEAPS & 15)) |
                           (1u << (D3D12DDI_TABLE_TYPE_D12RT_PIPELINES & 15)) |
                           (1u << (D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING & 15)));
    D3D12DDI_HRTTABLE none = {NULL};
    unsigned char big[512];
    static const struct {
        D3D12DDI_TABLE_TYPE type;
        size_t size;
    } k_tables[] = {{D3D12DDI_TABLE_TYPE_DEVICE_CORE, sizeof(D3D12DDI_DEVICE_FUNCS_CORE_0126)},
                    {D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126)},
                    {D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, sizeof(D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126)}};
    for (size_t t = 0; t < 3; t++) {
        CHECK_EQ_INT(g.af.pfnFillDDITable(g.adapter, k_tables[t].type, big, k_tables[t].size - 1, 0, none),
                     E_INVALIDARG);
        memset(big, 0, sizeof big);
        CHECK_EQ_INT(g.af.pfnFillDDITable(g.adapter, k_tables[t].type, big, k_tables[t].size, 0, none), S_OK);
        for (size_t slot = 0; slot < k_tables[t].size / sizeof(void *); slot++) {
            void *p;
            memcpy(&p, big + slot * sizeof p, sizeof p);
            CHECK(p != NULL);
        }
    }
    close_gpu(&g);
}

/* Addresses start at 4 GiB, 64 KiB aligned, with a gap of at least 64 KiB after each buffer, never reused;
 * memory is zero-filled and 256-byte aligned; DEFAULT buffers do not map. */
static void buffers(void)
{
    gpu g;
    open_gpu(&g, false, true);
    buffer b[4];
    const UINT64 sizes[] = {1, 65536, 100000, 300};
    for (int i = 0; i < 3; i++)
        create_buffer(&g, &b[i], D3D12DDI_HEAP_TYPE_UPLOAD, sizes[i], "B");
    CHECK_EQ_INT(b[0].va, 0x100000000ull);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(b[i].va % 65536, 0);
        CHECK_EQ_INT((uintptr_t)b[i].data % 256, 0);
        CHECK_EQ_INT(b[i].data[0] | b[i].data[sizes[i] - 1], 0);
        if (i)
            CHECK(b[i].va >= b[i - 1].va + ((sizes[i - 1] + 65535) & ~65535ull) + 65536);
    }
    UINT64 last = b[2].va;
    destroy_buffer(&g, &b[2]);
    create_buffer(&g, &b[3], D3D12DDI_HEAP_TYPE_READBACK, sizes[3], "B");
    CHECK(b[3].va > last); /* the freed range is not handed out again */
    buffer d;
    create_buffer(&g, &d, D3D12DDI_HEAP_TYPE_DEFAULT, 64, "D");
    void *p = NULL;
    CHECK_EQ_INT(g.core.pfnMapResource(g.device, d.h, &p), E_INVALIDARG);
    D3D12DDIARG_CREATERESOURCE_0126 zero = {D3D12DDI_HEAP_TYPE_UPLOAD, 0};
    unsigned char storage[64];
    CHECK_EQ_INT(g.core.pfnCreateResource(g.device, &zero, (D3D12DDI_HRESOURCE){storage}, (D3D12DDI_HRTRESOURCE){0}),
                 E_INVALIDARG);
    destroy_buffer(&g, &d);
    destroy_buffer(&g, &b[0]);
    destroy_buffer(&g, &b[1]);
    destroy_buffer(&g, &b[3]);
    close_gpu(&g);
}

/* Copies move bytes on the timeline, through a DEFAULT buffer too. */
static void copy(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer up, mid, back;
    create_buffer(&g, &up, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Up");
    create_buffer(&g, &mid, D3D12DDI_HEAP_TYPE_DEFAULT, 256, "Mid");
    create_buffer(&g, &back, D3D12DDI_HEAP_TYPE_READBACK, 256, "Back");
    for (int i = 0; i < 256; i++)
        up.data[i] = (unsigned char)i;
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnCopyResource(list, mid.h, up.h);
    D3D12DDIARG_RESOURCE_BARRIER_0126 barrier = {D3D12DDI_RESOURCE_BARRIER_TYPE_UAV, {NULL}, 0, 0};
    g.cl.pfnResourceBarrier(list, 1, &barrier);
    g.cl.pfnCopyBufferRegion(list, back.h, 16, mid.h, 100, 64);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    CHECK_EQ_INT(back.data[15], 0);
    CHECK_EQ_INT(back.data[16], 100);
    CHECK_EQ_INT(back.data[79], 163);
    CHECK_EQ_INT(back.data[80], 0);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 0); /* a correct copy reports nothing */
    CHECK_EQ_INT(g_list_error, S_OK);
    destroy_list(&g, list);
    destroy_buffer(&g, &up);
    destroy_buffer(&g, &mid);
    destroy_buffer(&g, &back);
    close_gpu(&g);
}

/* Buffers are zero-filled at first use, not at creation (docs/performance.md "Committed buffers"): whatever the
 * memory held before — here the bytes of a destroyed buffer of the same size, which the allocator is likely to hand
 * back — a new buffer reads as zero through Map, and a DEFAULT one (never mapped) copies zeros to the GPU. */
static bool all_zero(const unsigned char *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (data[i] != 0)
            return false;
    return true;
}

static void lazy_zero(void)
{
    gpu g;
    open_gpu(&g, true, true);
    for (int round = 0; round < 4; round++) {
        buffer dirty, pin, fresh; /* `pin` keeps the freed memory from returning to the system */
        /* a little larger than the new one, so that its freed memory can serve the new one's aligned allocation */
        create_buffer(&g, &dirty, D3D12DDI_HEAP_TYPE_UPLOAD, 70000, "Dirty");
        create_buffer(&g, &pin, D3D12DDI_HEAP_TYPE_UPLOAD, 65536, "Pin");
        memset(dirty.data, 0xAB, 70000);
        destroy_buffer(&g, &dirty);
        create_buffer(&g, &fresh, D3D12DDI_HEAP_TYPE_UPLOAD, 65536, "Fresh");
        CHECK(all_zero(fresh.data, 65536));
        memset(fresh.data, 0xCD, 65536);
        destroy_buffer(&g, &fresh);
        destroy_buffer(&g, &pin);
        buffer mid, back;
        create_buffer(&g, &mid, D3D12DDI_HEAP_TYPE_DEFAULT, 65536, "Mid"); /* not mapped: zeroed by the copy */
        create_buffer(&g, &back, D3D12DDI_HEAP_TYPE_READBACK, 65536, "Back");
        memset(back.data, 0xEF, 65536);
        D3D12DDI_HCOMMANDLIST list = create_list(&g);
        g.cl.pfnCopyBufferRegion(list, back.h, 0, mid.h, 0, 65536);
        g.cl.pfnCloseCommandList(list);
        fake_fence fence = {0};
        execute_and_wait(&g, list, &fence, 1);
        CHECK(all_zero(back.data, 65536));
        destroy_list(&g, list);
        destroy_buffer(&g, &mid);
        destroy_buffer(&g, &back);
    }
    close_gpu(&g);
}

/* Submissions execute in order (the last copy into a byte wins); fence operations come back in submission
 * order; a wait holds the timeline until the CPU signals its fence. */
static void order(void)
{
    gpu g;
    open_gpu(&g, false, true);
    buffer src[3], dst;
    D3D12DDI_HCOMMANDLIST lists[3];
    create_buffer(&g, &dst, D3D12DDI_HEAP_TYPE_READBACK, 16, "Dst");
    for (int i = 0; i < 3; i++) {
        create_buffer(&g, &src[i], D3D12DDI_HEAP_TYPE_UPLOAD, 16, "Src");
        memset(src[i].data, 'a' + i, 16);
        lists[i] = create_list(&g);
        g.cl.pfnCopyResource(lists[i], dst.h, src[i].h);
        g.cl.pfnCloseCommandList(lists[i]);
    }
    fake_fence a = {0}, b = {0}, gate = {0};
    D3D12DDIARG_FENCE_OPERATION_0126 wait = {{&gate}, 1}, s1 = {{&a}, 1}, s2 = {{&b}, 5}, s3 = {{&a}, 2};
    g.q.pfnWaitForFence(g.queue, &wait);
    g.q.pfnExecuteCommandLists(g.queue, 2, lists);
    g.q.pfnSignalFence(g.queue, &s1);
    g.q.pfnSignalFence(g.queue, &s2);
    g.q.pfnExecuteCommandLists(g.queue, 1, &lists[2]);
    g.q.pfnSignalFence(g.queue, &s3);
    pthread_mutex_lock(&g_lock);
    while (!g_wait_count)
        pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    CHECK_EQ_INT(g_signal_count, 0); /* held by the wait */
    CHECK_EQ_INT(dst.data[0], 0);
    cpu_signal(&gate, 1);
    wait_fence(&a, 2);
    CHECK_EQ_INT(g_signal_count, 3);
    CHECK(g_signals[0].hRTFence.handle == &a && g_signals[0].Value == 1);
    CHECK(g_signals[1].hRTFence.handle == &b && g_signals[1].Value == 5);
    CHECK(g_signals[2].hRTFence.handle == &a && g_signals[2].Value == 2);
    CHECK_EQ_INT(dst.data[0], 'c');
    CHECK_EQ_INT(dst.data[15], 'c');
    for (int i = 0; i < 3; i++) {
        destroy_list(&g, lists[i]);
        destroy_buffer(&g, &src[i]);
    }
    destroy_buffer(&g, &dst);
    close_gpu(&g);
}

/* An indexed draw with no index buffer is reported at once with the cached index; with one bound, nothing. */
static void no_index_buffer(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer ib;
    create_buffer(&g, &ib, D3D12DDI_HEAP_TYPE_UPLOAD, 64, "IB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.drm.pfnSetCommandListStateIndex(list, 7);
    g.cl.pfnDrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    CHECK_EQ_INT(reports(), 1);
    check_report(0, D12_REFDRV_MSG_NO_INDEX_BUFFER, ERROR_, 7, "No index buffer is bound");
    D3D12DDI_INDEX_BUFFER_VIEW view = {ib.va, 64, DXGI_FORMAT_R16_UINT};
    g.cl.pfnIaSetIndexBuffer(list, &view);
    g.drm.pfnSetCommandListStateIndex(list, 8);
    g.cl.pfnDrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    g.cl.pfnIaSetIndexBuffer(list, NULL); /* unbinding brings the finding back */
    g.drm.pfnSetCommandListStateIndex(list, 9);
    g.cl.pfnDrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    CHECK_EQ_INT(reports(), 2);
    check_report(1, D12_REFDRV_MSG_NO_INDEX_BUFFER, ERROR_, 9, "No index buffer is bound");
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2); /* the correct draw found nothing at execution either */
    destroy_list(&g, list);
    destroy_buffer(&g, &ib);
    close_gpu(&g);
}

/* A root descriptor at address 0 is reported at the draw (graphics) or dispatch (compute) naming its index. */
static void root_null(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer cb;
    create_buffer(&g, &cb, D3D12DDI_HEAP_TYPE_UPLOAD, 1024, "CB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnSetGraphicsRootConstantBufferView(list, 3, 0);
    g.cl.pfnSetComputeRootUnorderedAccessView(list, 5, cb.va); /* compute roots do not affect draws */
    g.drm.pfnSetCommandListStateIndex(list, 1);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    CHECK_EQ_INT(reports(), 1);
    check_report(0, D12_REFDRV_MSG_ROOT_DESCRIPTOR_NULL, ERROR_, 1, "Root parameter 3 is a root CBV");
    g.cl.pfnSetComputeRootUnorderedAccessView(list, 5, 0);
    g.drm.pfnSetCommandListStateIndex(list, 2);
    g.cl.pfnDispatch(list, 1, 1, 1);
    CHECK_EQ_INT(reports(), 2);
    check_report(1, D12_REFDRV_MSG_ROOT_DESCRIPTOR_NULL, ERROR_, 2, "Root parameter 5 is a root UAV");
    /* Rebound to real addresses: nothing at record time or execution. */
    g.cl.pfnSetGraphicsRootConstantBufferView(list, 3, cb.va);
    g.cl.pfnSetComputeRootUnorderedAccessView(list, 5, cb.va + 16);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnDispatch(list, 1, 1, 1);
    CHECK_EQ_INT(reports(), 2);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    destroy_list(&g, list);
    destroy_buffer(&g, &cb);
    close_gpu(&g);
}

/* Record a draw with a vertex buffer view, run it, flush; returns how many reports the flush delivered. */
static unsigned run_vb_view(gpu *g, UINT64 address, UINT size, UINT index)
{
    unsigned before = reports();
    D3D12DDI_HCOMMANDLIST list = create_list(g);
    D3D12DDI_VERTEX_BUFFER_VIEW views[2] = {{0, 0, 0}, {address, size, 16}};
    g->cl.pfnIaSetVertexBuffers(list, 0, 2, views); /* slot 0 null: nothing bound there */
    g->drm.pfnSetCommandListStateIndex(list, index);
    g->cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g->drm.pfnSetCommandListStateIndex(list, index + 100); /* the draw keeps the index it was recorded with */
    g->cl.pfnCloseCommandList(list);
    static fake_fence fence;
    execute_and_wait(g, list, &fence, fence.value + 1);
    CHECK_EQ_INT(reports(), before); /* nothing before the flush */
    g->drm.pfnFlushDriverReportedMessages(g->device);
    destroy_list(g, list);
    return reports() - before;
}

static void vertex_buffer_past_end(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer vb;
    create_buffer(&g, &vb, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "MyVB");
    CHECK_EQ_INT(run_vb_view(&g, vb.va + 128, 128, 4), 0);
    CHECK_EQ_INT(run_vb_view(&g, vb.va + 128, 256, 4), 1);
    char name[128];
    snprintf(name, sizeof name, "0x%016llX:'MyVB', which has 256 bytes: 128 bytes past its end",
             (unsigned long long)(uintptr_t)&vb.rt);
    check_report(0, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 4, name);
    check_report(0, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 4, "slot 1 covers 256 bytes from offset 128");
    destroy_buffer(&g, &vb);
    close_gpu(&g);
}

/* Index buffer view past its buffer, and indices read past the view, with their negatives. */
static void index_buffer(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer ib;
    create_buffer(&g, &ib, D3D12DDI_HEAP_TYPE_UPLOAD, 64, "MyIB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    D3D12DDI_INDEX_BUFFER_VIEW fits = {ib.va + 52, 12, DXGI_FORMAT_R16_UINT}; /* six indices, in the buffer */
    D3D12DDI_INDEX_BUFFER_VIEW past = {ib.va + 32, 64, DXGI_FORMAT_R32_UINT};
    g.cl.pfnIaSetIndexBuffer(list, &fits);
    g.drm.pfnSetCommandListStateIndex(list, 10);
    g.cl.pfnDrawIndexedInstanced(list, 3, 1, 3, 0, 0); /* indices 3..5: bytes up to 12: fine */
    g.drm.pfnSetCommandListStateIndex(list, 11);
    g.cl.pfnDrawIndexedInstanced(list, 4, 1, 3, 0, 0); /* bytes up to 14 of 12 */
    g.cl.pfnIaSetIndexBuffer(list, &past);
    g.drm.pfnSetCommandListStateIndex(list, 12);
    g.cl.pfnDrawIndexedInstanced(list, 1, 1, 0, 0, 0);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    check_report(0, D12_REFDRV_MSG_INDEX_READ_PAST_VIEW, ERROR_, 11, "read up to byte 14 of an index buffer view of 12");
    check_report(1, D12_REFDRV_MSG_INDEX_BUFFER_PAST_END, ERROR_, 12, "'MyIB', which has 64 bytes: 32 bytes past");
    destroy_list(&g, list);
    destroy_buffer(&g, &ib);
    close_gpu(&g);
}

/* A root CBV reads 256 bytes, a root SRV or UAV 4 (the driver's model: no shaders exist here). */
static void root_past_end(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer cb;
    create_buffer(&g, &cb, D3D12DDI_HEAP_TYPE_UPLOAD, 512, "MyCB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnSetGraphicsRootConstantBufferView(list, 0, cb.va + 256); /* 256 of 256 left: fine */
    g.cl.pfnSetGraphicsRootShaderResourceView(list, 1, cb.va + 508); /* 4 of 4 left: fine */
    g.drm.pfnSetCommandListStateIndex(list, 20);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnSetGraphicsRootConstantBufferView(list, 0, cb.va + 384);
    g.drm.pfnSetCommandListStateIndex(list, 21);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnSetComputeRootShaderResourceView(list, 2, cb.va + 510);
    g.drm.pfnSetCommandListStateIndex(list, 22);
    g.cl.pfnDispatch(list, 1, 1, 1);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    check_report(0, D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, ERROR_, 21,
                 "root CBV at root parameter 0 covers 256 bytes from offset 384");
    check_report(1, D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END, ERROR_, 22,
                 "root SRV at root parameter 2 covers 4 bytes from offset 510");
    destroy_list(&g, list);
    destroy_buffer(&g, &cb);
    close_gpu(&g);
}

/* An address in no live buffer is a page fault (CORRUPTION): the gap after a buffer, and a copy from a
 * buffer destroyed after recording, which is skipped. */
static void page_fault(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer vb, gone, dst;
    create_buffer(&g, &vb, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "VB");
    create_buffer(&g, &gone, D3D12DDI_HEAP_TYPE_UPLOAD, 64, "Gone");
    create_buffer(&g, &dst, D3D12DDI_HEAP_TYPE_READBACK, 64, "Dst");
    memset(gone.data, 0xAB, 64);
    /* Past Width but inside the buffer's 64 KiB allocation: the overrun ERROR, not a page fault. */
    CHECK_EQ_INT(run_vb_view(&g, vb.va + 4096, 16, 29), 1);
    check_report(0, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 29, "covers 16 bytes from offset 4096 of");
    check_report(0, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 29, "3856 bytes past its end");
    /* The unmapped gap after the allocation: a page fault at the first byte of the gap. */
    g_report_count = 0;
    CHECK_EQ_INT(run_vb_view(&g, vb.va + 0x10000, 16, 30), 1);
    char va[64];
    snprintf(va, sizeof va, "reads GPU virtual address 0x%016llX", (unsigned long long)(vb.va + 0x10000));
    check_report(0, D12_REFDRV_MSG_PAGE_FAULT, CORRUPTION, 30, va);
    /* A view that starts inside and runs off the allocation faults where the gap begins. */
    g_report_count = 0;
    CHECK_EQ_INT(run_vb_view(&g, vb.va + 0xFFF0, 32, 30), 1);
    check_report(0, D12_REFDRV_MSG_PAGE_FAULT, CORRUPTION, 30, va);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.drm.pfnSetCommandListStateIndex(list, 31);
    g.cl.pfnCopyResource(list, dst.h, gone.h);
    g.cl.pfnCloseCommandList(list);
    UINT64 gone_va = gone.va;
    destroy_buffer(&g, &gone);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    snprintf(va, sizeof va, "copy source reads GPU virtual address 0x%016llX", (unsigned long long)gone_va);
    check_report(1, D12_REFDRV_MSG_PAGE_FAULT, CORRUPTION, 31, va);
    CHECK_EQ_INT(dst.data[0], 0); /* skipped */
    destroy_list(&g, list);
    destroy_buffer(&g, &vb);
    destroy_buffer(&g, &dst);
    close_gpu(&g);
}

/* Every execution re-reports; a list reset meanwhile does not disturb the submission holding its old
 * recording. */
static void resubmit(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer vb;
    create_buffer(&g, &vb, D3D12DDI_HEAP_TYPE_UPLOAD, 64, "VB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    D3D12DDI_VERTEX_BUFFER_VIEW view = {vb.va, 128, 16};
    g.cl.pfnIaSetVertexBuffers(list, 0, 1, &view);
    g.drm.pfnSetCommandListStateIndex(list, 40);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    D3D12DDIARG_RESETCOMMANDLIST_0126 reset = {g.allocator};
    g.cl.pfnResetCommandList(list, &reset); /* the second submission still holds the old recording */
    g.cl.pfnCloseCommandList(list);
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{&fence}, 2};
    g.q.pfnSignalFence(g.queue, &op);
    wait_fence(&fence, 2);
    execute_and_wait(&g, list, &fence, 3); /* the new, empty recording */
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    check_report(0, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 40, "'VB'");
    check_report(1, D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END, ERROR_, 40, "'VB'");
    destroy_list(&g, list);
    destroy_buffer(&g, &vb);
    close_gpu(&g);
}

/* A submission's findings are pending on the device before the signal behind it is passed back. */
static void pending_before_signal(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer vb;
    create_buffer(&g, &vb, D3D12DDI_HEAP_TYPE_UPLOAD, 64, "VB");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    D3D12DDI_VERTEX_BUFFER_VIEW views[3] = {{vb.va, 128, 16}, {vb.va, 65, 16}, {vb.va + 65536, 4, 4}};
    g.cl.pfnIaSetVertexBuffers(list, 0, 3, views);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    execute_and_wait(&g, list, &fence, 2);
    CHECK_EQ_INT(g_signal_count, 2);
    CHECK_EQ_INT(g_pending_at_signal[0], 3);
    CHECK_EQ_INT(g_pending_at_signal[1], 6);
    CHECK_EQ_INT(reports(), 0);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 6);
    CHECK_EQ_INT(pending_count(), 0);
    g.drm.pfnFlushDriverReportedMessages(g.device); /* nothing left: tolerated */
    CHECK_EQ_INT(reports(), 6);
    destroy_list(&g, list);
    destroy_buffer(&g, &vb);
    close_gpu(&g);
}

/* Destroying a queue runs what was submitted (an abandoned wait included) and then never calls back. */
static void destroy_queue_finishes(void)
{
    setenv("D12RT_REFDRV_EXEC_DELAY_MS", "30", 1);
    gpu g;
    open_gpu(&g, false, true);
    buffer src, dst;
    create_buffer(&g, &src, D3D12DDI_HEAP_TYPE_UPLOAD, 8, "Src");
    create_buffer(&g, &dst, D3D12DDI_HEAP_TYPE_READBACK, 8, "Dst");
    memset(src.data, 7, 8);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnCopyResource(list, dst.h, src.h);
    g.cl.pfnCloseCommandList(list);
    fake_fence never = {0}, done = {0};
    D3D12DDIARG_FENCE_OPERATION_0126 wait = {{&never}, 1}, signal = {{&done}, 1};
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    g.q.pfnWaitForFence(g.queue, &wait);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    g.q.pfnSignalFence(g.queue, &signal);
    pthread_mutex_lock(&g_lock);
    g_abort_waits = true; /* the runtime abandons the queue's waits as it destroys it */
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    destroy_queue(&g);
    CHECK_EQ_INT(dst.data[7], 7);
    CHECK_EQ_INT(g_wait_count, 1);
    CHECK_EQ_INT(g_signal_count, 1);
    CHECK_EQ_INT(done.value, 1);
    destroy_list(&g, list);
    destroy_buffer(&g, &src);
    destroy_buffer(&g, &dst);
    close_gpu(&g);
}

/* D12RT_REFDRV_EXEC_DELAY_MS holds each submission back: the work is in flight, then done. */
static void exec_delay(void)
{
    setenv("D12RT_REFDRV_EXEC_DELAY_MS", "150", 1);
    gpu g;
    open_gpu(&g, false, true);
    buffer src, dst;
    create_buffer(&g, &src, D3D12DDI_HEAP_TYPE_UPLOAD, 8, "Src");
    create_buffer(&g, &dst, D3D12DDI_HEAP_TYPE_READBACK, 8, "Dst");
    memset(src.data, 9, 8);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnCopyResource(list, dst.h, src.h);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    double start = now_ms();
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{&fence}, 1};
    g.q.pfnSignalFence(g.queue, &op);
    CHECK(now_ms() - start < 100); /* submission does not wait */
    pthread_mutex_lock(&g_lock);
    CHECK_EQ_INT(fence.value, 0); /* in flight (its bytes are the timeline's until the signal: not read here) */
    pthread_mutex_unlock(&g_lock);
    wait_fence(&fence, 1);
    CHECK(now_ms() - start >= 150);
    CHECK_EQ_INT(dst.data[0], 9);
    destroy_list(&g, list);
    destroy_buffer(&g, &src);
    destroy_buffer(&g, &dst);
    close_gpu(&g);
}

/* Without driver-reported messages enabled nothing is queued or reported, and the work still runs. */
static void drm_disabled(void)
{
    gpu g;
    open_gpu(&g, false, true);
    buffer src, dst;
    create_buffer(&g, &src, D3D12DDI_HEAP_TYPE_UPLOAD, 8, "Src");
    create_buffer(&g, &dst, D3D12DDI_HEAP_TYPE_READBACK, 8, "Dst");
    memset(src.data, 5, 8);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    D3D12DDI_VERTEX_BUFFER_VIEW view = {src.va + 4, 64, 4};
    g.cl.pfnIaSetVertexBuffers(list, 0, 1, &view);
    g.cl.pfnSetGraphicsRootConstantBufferView(list, 0, 0);
    g.cl.pfnDrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    g.cl.pfnCopyBufferRegion(list, dst.h, 0, src.h, 0, 8);
    g.cl.pfnCopyBufferRegion(list, dst.h, 0, src.h, 65536, 8); /* faults: skipped silently */
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    CHECK_EQ_INT(pending_count(), 0);
    CHECK_EQ_INT(reports(), 0);
    CHECK_EQ_INT(dst.data[7], 5);
    destroy_list(&g, list);
    destroy_buffer(&g, &src);
    destroy_buffer(&g, &dst);
    close_gpu(&g);
}

/* A runtime that passes no pKTCallbacks cannot have queues. */
static void queue_without_kt(void)
{
    gpu g;
    open_gpu(&g, false, false);
    D3D12DDIARG_CREATECOMMANDQUEUE_0126 args = {D3D12DDI_COMMAND_QUEUE_FLAG_3D, 1};
    void *memory = private_memory(g.core.pfnCalcPrivateCommandQueueSize(g.device, &args));
    CHECK_EQ_INT(g.core.pfnCreateCommandQueue(g.device, &args, (D3D12DDI_HCOMMANDQUEUE){memory},
                                              (D3D12DDI_HRTCOMMANDQUEUE){(void *)2}),
                 E_INVALIDARG);
    free(memory);
    close_gpu(&g);
}


/* ---- DDI build 0127 ---- */

static UINT32 word_at(const buffer *b, UINT64 offset)
{
    UINT32 value;
    memcpy(&value, b->data + offset, sizeof value);
    return value;
}

/* pfnWriteBufferImmediate writes each 32-bit value into the destination buffer's memory on the timeline, in
 * order with the other commands (the copy before it has landed; the copy after it overwrites it); NULL modes are
 * all DEFAULT; a misaligned Dest or an unknown mode is a recording error and that write is dropped. */
static void write_immediate(void)
{
    gpu g;
    open_gpu_build(&g, true, true, D3D12DDI_BUILD_VERSION_0127);
    CHECK(g.cl7.pfnWriteBufferImmediate != NULL);
    buffer up, back;
    create_buffer(&g, &up, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Up");
    create_buffer(&g, &back, D3D12DDI_HEAP_TYPE_READBACK, 256, "Back");
    memset(up.data, 0x11, 256);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnCopyBufferRegion(list, back.h, 0, up.h, 0, 64);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 writes[] = {{back.va + 0, 7}, {back.va + 4, 9}};
    const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 modes[] = {D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT,
                                                             D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT};
    g.cl7.pfnWriteBufferImmediate(list, 2, writes, modes);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 defaults[] = {{back.va + 8, 0xDEADBEEF}, {back.va + 252, 5}};
    g.cl7.pfnWriteBufferImmediate(list, 2, defaults, NULL);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 in = {back.va + 100, 42};
    const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 in_mode = D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_IN;
    g.cl7.pfnWriteBufferImmediate(list, 1, &in, &in_mode);
    g.cl.pfnCopyBufferRegion(list, back.h, 8, up.h, 0, 4); /* after the write: overwrites it */
    CHECK_EQ_INT(g_list_error, S_OK);
    g.cl.pfnCloseCommandList(list);
    CHECK_EQ_INT(word_at(&back, 0), 0); /* nothing runs before submission */
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    CHECK_EQ_INT(word_at(&back, 0), 7);
    CHECK_EQ_INT(word_at(&back, 4), 9);
    CHECK_EQ_INT(word_at(&back, 8), 0x11111111);
    CHECK_EQ_INT(word_at(&back, 12), 0x11111111);
    CHECK_EQ_INT(word_at(&back, 100), 42);
    CHECK_EQ_INT(word_at(&back, 252), 5);
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 0);
    CHECK_EQ_INT(g_fault_count, 0);
    /* Negative: misaligned, and a mode that is none of the three. */
    D3D12DDI_HCOMMANDLIST bad = create_list(&g);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 misaligned = {back.va + 2, 1};
    g.cl7.pfnWriteBufferImmediate(bad, 1, &misaligned, NULL);
    CHECK_EQ_INT(g_list_error, E_INVALIDARG);
    g_list_error = S_OK;
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 odd_mode = {back.va + 16, 1};
    const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 three = (D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127)3;
    g.cl7.pfnWriteBufferImmediate(bad, 1, &odd_mode, &three);
    CHECK_EQ_INT(g_list_error, E_INVALIDARG);
    g.cl.pfnCloseCommandList(bad);
    execute_and_wait(&g, bad, &fence, 2);
    CHECK_EQ_INT(word_at(&back, 0), 7); /* neither write landed */
    CHECK_EQ_INT(word_at(&back, 16), 0x11111111);
    destroy_list(&g, bad);
    destroy_list(&g, list);
    destroy_buffer(&g, &up);
    destroy_buffer(&g, &back);
    close_gpu(&g);
}

/* Records `writes` DEFAULT writes of `value` into consecutive words of `b` (wrapping in its 256 bytes). */
static void record_writes(gpu *g, D3D12DDI_HCOMMANDLIST list, const buffer *b, unsigned writes, UINT32 value)
{
    for (unsigned i = 0; i < writes; i++) {
        D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 write = {b->va + (i % 64) * 4, value};
        g->cl7.pfnWriteBufferImmediate(list, 1, &write, NULL);
    }
}

/* A Reset reuses the list's recording memory when no submission holds it (docs/performance.md "Cost per draw
 * against recording size"): a small recording after a large one executes only its own commands (none of the
 * large one's chunks run again), a submission still holding the old recording executes it intact, and a
 * recording larger than every earlier one still grows. */
static void recording_reuse(void)
{
    gpu g;
    open_gpu_build(&g, true, true, D3D12DDI_BUILD_VERSION_0127);
    buffer first, second;
    create_buffer(&g, &first, D3D12DDI_HEAP_TYPE_READBACK, 256, "First");
    create_buffer(&g, &second, D3D12DDI_HEAP_TYPE_READBACK, 256, "Second");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    record_writes(&g, list, &first, 3 * D12_REFDRV_CHUNK_COMMANDS + 5, 1); /* four chunks */
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    CHECK_EQ_INT(word_at(&first, 0), 1);
    CHECK_EQ_INT(word_at(&first, 252), 1);
    memset(first.data, 0, 256);
    /* Nothing holds the recording: reused (the same recording and chunks). The new one writes `second` only. */
    const d12__refdrv_command_list *driver_list = list.pDrvPrivate;
    const d12__refdrv_recording *large = driver_list->recording;
    const d12__refdrv_chunk *large_head = large->head;
    D3D12DDIARG_RESETCOMMANDLIST_0126 reset = {g.allocator};
    g.cl.pfnResetCommandList(list, &reset);
    CHECK(driver_list->recording == large);
    CHECK(driver_list->recording->head == large_head && large_head->count == 0);
    record_writes(&g, list, &second, 3, 2);
    g.cl.pfnCloseCommandList(list);
    execute_and_wait(&g, list, &fence, 2);
    CHECK_EQ_INT(word_at(&second, 0), 2);
    CHECK_EQ_INT(word_at(&second, 8), 2);
    CHECK_EQ_INT(word_at(&second, 12), 0);
    CHECK_EQ_INT(word_at(&first, 0), 0); /* the large recording's commands did not run again */
    CHECK_EQ_INT(word_at(&first, 252), 0);
    /* A submission holds it (a GPU wait on `gate` keeps it pending): the Reset makes a new recording and the
     * submission runs the old one intact. */
    memset(second.data, 0, 256);
    fake_fence gate = {0};
    D3D12DDIARG_FENCE_OPERATION_0126 wait = {{&gate}, 1};
    g.q.pfnWaitForFence(g.queue, &wait);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    g.cl.pfnResetCommandList(list, &reset);
    CHECK(driver_list->recording != large); /* a new recording: the submission keeps the old one */
    record_writes(&g, list, &first, 2 * D12_REFDRV_CHUNK_COMMANDS, 3); /* grows past the reused size */
    g.cl.pfnCloseCommandList(list);
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{&fence}, 3};
    g.q.pfnSignalFence(g.queue, &op);
    cpu_signal(&gate, 1);
    wait_fence(&fence, 3);
    CHECK_EQ_INT(word_at(&second, 8), 2);
    CHECK_EQ_INT(word_at(&first, 0), 0);
    execute_and_wait(&g, list, &fence, 4);
    CHECK_EQ_INT(word_at(&first, 0), 3);
    CHECK_EQ_INT(word_at(&first, 252), 3);
    CHECK_EQ_INT(g_list_error, S_OK);
    destroy_list(&g, list);
    destroy_buffer(&g, &first);
    destroy_buffer(&g, &second);
    close_gpu(&g);
}

/* A runtime of build 0126 asks for the 0126 layout: the driver fills exactly that (the slot after it is left
 * alone), and a table one slot short of it is refused. */
static void write_immediate_table_0126(void)
{
    gpu g;
    open_gpu(&g, false, false);
    D3D12DDI_HRTTABLE none = {NULL};
    D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 table;
    memset(&table, 0, sizeof table);
    table.pfnWriteBufferImmediate = (PFND3D12DDI_WRITEBUFFERIMMEDIATE_0127)(uintptr_t)1;
    CHECK_EQ_INT(g.af.pfnFillDDITable(g.adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, &table,
                                      sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126), 0, none),
                 S_OK);
    CHECK(table.pfnResourceBarrier != NULL);
    CHECK((uintptr_t)table.pfnWriteBufferImmediate == 1);
    CHECK_EQ_INT(g.af.pfnFillDDITable(g.adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, &table, sizeof table, 0, none),
                 S_OK);
    CHECK(table.pfnWriteBufferImmediate != NULL && (uintptr_t)table.pfnWriteBufferImmediate != 1);
    CHECK_EQ_INT(g.af.pfnFillDDITable(g.adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, &table,
                                      sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126) - 1, 0, none),
                 E_INVALIDARG);
    close_gpu(&g);
}

/* The DRED pattern the runtime records (BRIEF section 2): a DEFAULT write of 0 to the counter at the start, then
 * after op k a MARKER_OUT write of k + 1. */
static void breadcrumb(gpu *g, D3D12DDI_HCOMMANDLIST list, const buffer *counter, UINT32 value, bool start)
{
    D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 write = {counter->va, value};
    D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode =
        start ? D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT : D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
    g->cl7.pfnWriteBufferImmediate(list, 1, &write, &mode);
}

static unsigned signals(void)
{
    pthread_mutex_lock(&g_lock);
    unsigned count = g_signal_count;
    pthread_mutex_unlock(&g_lock);
    return count;
}

/* Build 0127: a copy from a destroyed buffer faults. pfnDeviceFaultCb gets ERROR_DMAPAGEFAULT, the address, a read, the
 * queue, the list and the op index of the faulting copy (1: the MARKER_OUT after it has value 2); the CORRUPTION
 * finding is pending before the callback; the faulting copy's breadcrumb is never written and nothing after it runs:
 * the next copy, its breadcrumb, the signal behind the submission, a later submission. */
static void fault_0127(void)
{
    gpu g;
    open_gpu_build(&g, true, true, D3D12DDI_BUILD_VERSION_0127);
    buffer up, gone, a, b, c, counter;
    create_buffer(&g, &up, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Up");
    create_buffer(&g, &gone, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Gone");
    create_buffer(&g, &a, D3D12DDI_HEAP_TYPE_READBACK, 256, "A");
    create_buffer(&g, &b, D3D12DDI_HEAP_TYPE_READBACK, 256, "B");
    create_buffer(&g, &c, D3D12DDI_HEAP_TYPE_READBACK, 256, "C");
    create_buffer(&g, &counter, D3D12DDI_HEAP_TYPE_READBACK, 256, "Counter");
    memset(up.data, 0x22, 256);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    breadcrumb(&g, list, &counter, 0, true);
    g.cl.pfnCopyBufferRegion(list, a.h, 0, up.h, 0, 64); /* op 0 */
    breadcrumb(&g, list, &counter, 1, false);
    g.drm.pfnSetCommandListStateIndex(list, 41);
    g.cl.pfnCopyBufferRegion(list, b.h, 0, gone.h, 0, 64); /* op 1: faults */
    breadcrumb(&g, list, &counter, 2, false);
    g.cl.pfnCopyBufferRegion(list, c.h, 0, up.h, 0, 64); /* op 2: never runs */
    breadcrumb(&g, list, &counter, 3, false);
    g.cl.pfnCloseCommandList(list);
    UINT64 gone_va = gone.va;
    destroy_buffer(&g, &gone);
    memset(counter.data, 0xEE, 4);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    fake_fence fence = {0};
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{&fence}, 1};
    g.q.pfnSignalFence(g.queue, &op);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list); /* queued after the fault: dropped */
    D3D12DDIARG_FENCE_OPERATION_0126 op2 = {{&fence}, 2};
    g.q.pfnSignalFence(g.queue, &op2);
    destroy_queue(&g); /* joins the timeline: everything it did is done */
    CHECK_EQ_INT(g_fault_count, 1);
    CHECK_EQ_INT(g_faults[0].ExecutionState, D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT);
    CHECK(g_faults[0].FaultedVirtualAddress == gone_va);
    CHECK_EQ_INT(g_faults[0].PageFaultFlags, D3D12DDI_PAGE_FAULT_FLAG_NONE);
    CHECK(g_faults[0].hRTCommandQueue.handle == (void *)2);
    CHECK(g_faults[0].hRTCommandList.handle == (void *)3);
    CHECK_EQ_INT(g_faults[0].OpIndex, 1);
    CHECK_EQ_INT(word_at(&counter, 0), 1); /* op 0 completed; op 1 never did */
    CHECK_EQ_INT(a.data[0], 0x22);
    CHECK_EQ_INT(b.data[0], 0);
    CHECK_EQ_INT(c.data[0], 0);
    CHECK_EQ_INT(signals(), 0); /* the signals behind it were dropped */
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 1);
    char va[96];
    snprintf(va, sizeof va, "copy source reads GPU virtual address 0x%016llX", (unsigned long long)gone_va);
    check_report(0, D12_REFDRV_MSG_PAGE_FAULT, CORRUPTION, 41, va);
    destroy_list(&g, list);
    destroy_buffer(&g, &up);
    destroy_buffer(&g, &a);
    destroy_buffer(&g, &b);
    destroy_buffer(&g, &c);
    destroy_buffer(&g, &counter);
    close_gpu(&g);
}

/* A write-immediate to an address no buffer ever had: a page fault with PageFaultFlags WRITE at that address; the
 * gap right after a buffer (past its 64 KiB allocation) faults too; inside the allocation past Width is the ERROR. */
static void fault_write_0127(void)
{
    gpu g;
    open_gpu_build(&g, true, true, D3D12DDI_BUILD_VERSION_0127);
    buffer small;
    create_buffer(&g, &small, D3D12DDI_HEAP_TYPE_READBACK, 256, "Small");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.drm.pfnSetCommandListStateIndex(list, 7);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 inside = {small.va + 1024, 5}; /* past Width, in the allocation */
    g.cl7.pfnWriteBufferImmediate(list, 1, &inside, NULL);
    const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 gap = {small.va + 0x10000, 6};
    g.cl7.pfnWriteBufferImmediate(list, 1, &gap, NULL);
    g.cl.pfnCloseCommandList(list);
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    destroy_queue(&g);
    CHECK_EQ_INT(g_fault_count, 1);
    CHECK(g_faults[0].FaultedVirtualAddress == small.va + 0x10000);
    CHECK_EQ_INT(g_faults[0].PageFaultFlags, D3D12DDI_PAGE_FAULT_FLAG_WRITE);
    CHECK_EQ_INT(g_faults[0].OpIndex, D3D12DDI_OP_INDEX_UNKNOWN); /* no MARKER_OUT write follows it */
    g.drm.pfnFlushDriverReportedMessages(g.device);
    CHECK_EQ_INT(reports(), 2);
    check_report(0, D12_REFDRV_MSG_WRITE_PAST_END, ERROR_, 7, "covers 4 bytes from offset 1024");
    check_report(1, D12_REFDRV_MSG_PAGE_FAULT, CORRUPTION, 7, "write-immediate destination writes GPU virtual address");
    destroy_list(&g, list);
    destroy_buffer(&g, &small);
    close_gpu(&g);
}

/* Before build 0127 there is no fault callback: the faulting copy is skipped and the rest runs, as it always did. */
static void fault_0126(void)
{
    gpu g;
    open_gpu(&g, true, true);
    buffer up, gone, a, c;
    create_buffer(&g, &up, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Up");
    create_buffer(&g, &gone, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Gone");
    create_buffer(&g, &a, D3D12DDI_HEAP_TYPE_READBACK, 256, "A");
    create_buffer(&g, &c, D3D12DDI_HEAP_TYPE_READBACK, 256, "C");
    memset(up.data, 0x22, 256);
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    g.cl.pfnCopyBufferRegion(list, a.h, 0, gone.h, 0, 64);
    g.cl.pfnCopyBufferRegion(list, c.h, 0, up.h, 0, 64);
    g.cl.pfnCloseCommandList(list);
    destroy_buffer(&g, &gone);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    CHECK_EQ_INT(g_fault_count, 0);
    CHECK_EQ_INT(a.data[0], 0);
    CHECK_EQ_INT(c.data[0], 0x22);
    destroy_list(&g, list);
    destroy_buffer(&g, &up);
    destroy_buffer(&g, &a);
    destroy_buffer(&g, &c);
    close_gpu(&g);
}

static void wait_progress(unsigned kind, unsigned at_least)
{
    pthread_mutex_lock(&g_lock);
    while (g_progress_count[kind] < at_least)
        pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
}

/* A long draw (3 x 10^9 vertex instances at 1 ns: 3 s) reports OP_BEGIN with its list and op index, then a slice
 * at most every 10 ms; once progress answers D3DDDIERR_DEVICEREMOVED the draw is abandoned within a slice (its
 * breadcrumb never lands) and the signal behind it is dropped. */
static void hang_abandon(void)
{
    gpu g;
    open_gpu_build(&g, true, true, D3D12DDI_BUILD_VERSION_0127);
    buffer counter;
    create_buffer(&g, &counter, D3D12DDI_HEAP_TYPE_READBACK, 256, "Counter");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    breadcrumb(&g, list, &counter, 0, true);
    g.cl.pfnDrawInstanced(list, 3, 1000000000u, 0, 0);
    breadcrumb(&g, list, &counter, 1, false);
    g.cl.pfnCloseCommandList(list);
    memset(counter.data, 0xEE, 4);
    double start = now_ms();
    g.q.pfnExecuteCommandLists(g.queue, 1, &list);
    fake_fence fence = {0};
    D3D12DDIARG_FENCE_OPERATION_0126 op = {{&fence}, 1};
    g.q.pfnSignalFence(g.queue, &op);
    wait_progress(D3D12DDI_GPU_PROGRESS_0127_OP_SLICE, 3);
    pthread_mutex_lock(&g_lock);
    CHECK(g_last_begin.hRTCommandList.handle == (void *)3);
    CHECK_EQ_INT(g_last_begin.OpIndex, 0);
    g_progress_answer = D3DDDIERR_DEVICEREMOVED; /* the watchdog fired */
    pthread_mutex_unlock(&g_lock);
    double reset = now_ms();
    destroy_queue(&g);
    double stopped = now_ms();
    CHECK(reset - start >= 25);            /* three slices of 10 ms passed */
    CHECK(stopped - reset < 1000);         /* abandoned within a slice (10 ms; margin for a loaded machine), not 3 s */
    CHECK_EQ_INT(word_at(&counter, 0), 0); /* the DEFAULT write landed; the draw's MARKER_OUT never did */
    CHECK_EQ_INT(signals(), 0);
    CHECK_EQ_INT(g_progress_count[D3D12DDI_GPU_PROGRESS_0127_IDLE], 0); /* reset: no more reports */
    destroy_list(&g, list);
    destroy_buffer(&g, &counter);
    close_gpu(&g);
}

/* Every GPU command reports OP_BEGIN; the timeline reports IDLE after a submission and before each fence operation;
 * binding commands report nothing. */
static void progress_reports(void)
{
    gpu g;
    open_gpu_build(&g, false, true, D3D12DDI_BUILD_VERSION_0127);
    buffer up, back;
    create_buffer(&g, &up, D3D12DDI_HEAP_TYPE_UPLOAD, 256, "Up");
    create_buffer(&g, &back, D3D12DDI_HEAP_TYPE_READBACK, 256, "Back");
    D3D12DDI_HCOMMANDLIST list = create_list(&g);
    D3D12DDI_VERTEX_BUFFER_VIEW view = {up.va, 48, 16};
    g.cl.pfnIaSetVertexBuffers(list, 0, 1, &view);
    g.cl.pfnDrawInstanced(list, 3, 1, 0, 0);
    g.cl.pfnDispatch(list, 1, 1, 1);
    g.cl.pfnCopyBufferRegion(list, back.h, 0, up.h, 0, 16);
    D3D12DDIARG_RESOURCE_BARRIER_0126 barrier = {D3D12DDI_RESOURCE_BARRIER_TYPE_UAV, {NULL}, 0, 0};
    g.cl.pfnResourceBarrier(list, 1, &barrier);
    g.cl.pfnCloseCommandList(list);
    fake_fence fence = {0};
    execute_and_wait(&g, list, &fence, 1);
    destroy_queue(&g);
    CHECK_EQ_INT(g_progress_count[D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN], 4);
    CHECK_EQ_INT(g_progress_count[D3D12DDI_GPU_PROGRESS_0127_OP_SLICE], 0); /* all cheap: nothing slept */
    CHECK_EQ_INT(g_progress_count[D3D12DDI_GPU_PROGRESS_0127_IDLE], 2);     /* after the submission, before the signal */
    CHECK_EQ_INT(g_fault_count, 0);
    destroy_list(&g, list);
    destroy_buffer(&g, &up);
    destroy_buffer(&g, &back);
    close_gpu(&g);
}

/* GPU time per command, saturating; the rates from D12RT_REFDRV_PS_PER_* (a bad value keeps the default). */
static void gpu_cost(void)
{
    d12__refdrv_rates rates = {1000, 10000, 100, 100};
    d12__refdrv_command draw = {.type = D12_REFDRV_CMD_DRAW};
    draw.u.draw.count = 3;
    draw.u.draw.instances = 1000;
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &draw), 3000 + 100);
    draw.u.draw.count = 0xFFFFFFFFu;
    draw.u.draw.instances = 0xFFFFFFFFu;
    rates.ps_per_vertex = 1000000000000ull;
    CHECK(d12__refdrv_command_cost_ns(&rates, &draw) == UINT64_MAX / 1000 + 100); /* the product saturated */
    rates.ns_per_command = UINT64_MAX;
    CHECK(d12__refdrv_command_cost_ns(&rates, &draw) == UINT64_MAX); /* and so does the sum */
    rates = (d12__refdrv_rates){1000, 10000, 100, 100};
    d12__refdrv_command dispatch = {.type = D12_REFDRV_CMD_DISPATCH};
    dispatch.u.draw.count = 4;
    dispatch.u.draw.instances = 5;
    dispatch.u.draw.start = 6;
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &dispatch), 120 * 10 + 100);
    d12__refdrv_command copy = {.type = D12_REFDRV_CMD_COPY};
    copy.u.copy.size = 1000000;
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &copy), 100000 + 100);
    d12__refdrv_command barrier = {.type = D12_REFDRV_CMD_BARRIER};
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &barrier), 100);
    /* A write-immediate is a 4-byte memory write at the copy rate (rounded up), not a command's fixed cost. */
    d12__refdrv_command write = {.type = D12_REFDRV_CMD_WRITE_IMMEDIATE};
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &write), 1);
    rates.ps_per_byte = 2500;
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &write), 10);
    rates.ps_per_byte = 0;
    CHECK_EQ_INT(d12__refdrv_command_cost_ns(&rates, &write), 0);
    rates = (d12__refdrv_rates){1000, 10000, 100, 100};
    /* The environment, read at OpenAdapter12. */
    setenv("D12RT_REFDRV_PS_PER_VERTEX", "250", 1);
    setenv("D12RT_REFDRV_PS_PER_GROUP", "12x", 1);
    setenv("D12RT_REFDRV_PS_PER_BYTE", "-1", 1);
    setenv("D12RT_REFDRV_NS_PER_COMMAND", "1000000000001", 1);
    D3D12DDI_ADAPTERFUNCS af;
    D3D12DDIARG_OPENADAPTER open = {{NULL}, {NULL}, NULL, &af};
    CHECK_EQ_INT(d12_refdrv_OpenAdapter12(&open), S_OK);
    const d12__refdrv_adapter *adapter = open.hAdapter.pDrvPrivate;
    CHECK_EQ_INT(adapter->rates.ps_per_vertex, 250);
    CHECK_EQ_INT(adapter->rates.ps_per_group, D12_REFDRV_DEFAULT_PS_PER_GROUP);
    CHECK_EQ_INT(adapter->rates.ps_per_byte, D12_REFDRV_DEFAULT_PS_PER_BYTE);
    CHECK_EQ_INT(adapter->rates.ns_per_command, D12_REFDRV_DEFAULT_NS_PER_COMMAND);
    af.pfnCloseAdapter(open.hAdapter);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"tables", tables},
    {"buffers", buffers},
    {"copy", copy},
    {"lazy_zero", lazy_zero},
    {"order", order},
    {"no_index_buffer", no_index_buffer},
    {"root_null", root_null},
    {"vertex_buffer_past_end", vertex_buffer_past_end},
    {"index_buffer", index_buffer},
    {"root_past_end", root_past_end},
    {"page_fault", page_fault},
    {"resubmit", resubmit},
    {"pending_before_signal", pending_before_signal},
    {"destroy_queue_finishes", destroy_queue_finishes},
    {"exec_delay", exec_delay},
    {"drm_disabled", drm_disabled},
    {"queue_without_kt", queue_without_kt},
    {"write_immediate", write_immediate},
    {"write_immediate_table_0126", write_immediate_table_0126},
    {"recording_reuse", recording_reuse},
    {"fault_0127", fault_0127},
    {"fault_write_0127", fault_write_0127},
    {"fault_0126", fault_0126},
    {"hang_abandon", hang_abandon},
    {"progress_reports", progress_reports},
    {"gpu_cost", gpu_cost},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_refdrv_gpu CASE (unknown case)\n");
    return 2;
}
