/* The DDI trace and the driver-call lock check (ddi_trace.h). */
#define _GNU_SOURCE

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ddi_trace.h"
#include "driver.h"
#include "fault/fault.h"
#include "lockrank.h"

/* ---- The file, opened at load ---- */

static int g_fd = -1;
static bool g_on; /* fixed once the constructor ran: the one predictable branch of a traced slot */

__attribute__((constructor)) static void open_trace(void)
{
    const char *path = getenv("D12RT_DDI_TRACE");
    if (!path || !*path)
        return;
    g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (g_fd < 0) {
        fprintf(stderr, "d12rt: D12RT_DDI_TRACE=%s: cannot open the trace file; no trace\n", path);
        return;
    }
    g_on = true;
    static const char header[] = "# d12rt DDI trace 1\n";
    ssize_t ignored = write(g_fd, header, sizeof header - 1);
    (void)ignored;
}

bool d12__ddi_trace_on(void)
{
    return g_on;
}

bool d12__ddi_trace_wraps(void)
{
#if defined NDEBUG && !defined D12RT_FAULT_INJECTION /* the injection build fails driver calls in the wrappers */
    return g_on;
#else
    return true;
#endif
}

/* One line, one write(2) (O_APPEND: whole lines even across processes). Longer lines are cut at 4 KiB. */
__attribute__((format(printf, 1, 2))) static void emit(const char *format, ...)
{
    char line[4096];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(line, sizeof line - 1, format, args);
    va_end(args);
    if (length < 0)
        return;
    if ((size_t)length > sizeof line - 2)
        length = (int)sizeof line - 2;
    line[length++] = '\n';
    ssize_t ignored = write(g_fd, line, (size_t)length);
    (void)ignored;
}

static long thread_id(void)
{
    return (long)syscall(SYS_gettid);
}

/* ---- The current DDI call of this thread ---- */

typedef struct frame {
    uint64_t id;
    const char *name;
    struct frame *outer;
} frame;

static _Thread_local frame *g_current;
static _Atomic uint64_t g_next_id;

/* docs/locking.md: "application callbacks and driver calls run with no runtime lock held" — so none that
 * pfnReportMessageCb, pfnQueryObjectIdentityCb or the flush path takes can be held here (debug builds). */
static void check_no_lock(const char *name)
{
    int rank = d12__lockrank_highest_held();
    if (rank != 0) {
        fprintf(stderr, "d12rt: %s called with a rank-%d runtime lock held (docs/locking.md)\n", name, rank);
        abort();
    }
}

static void enter(frame *f, const char *name)
{
    check_no_lock(name);
    f->name = name;
    f->outer = g_current;
    f->id = g_on ? atomic_fetch_add_explicit(&g_next_id, 1, memory_order_relaxed) + 1 : 0;
}

/* Runtime -> driver: mark the call, write its line, and restore the outer call afterwards. */
#define ENTER(name, format, ...)                                                                                  \
    frame f_;                                                                                                     \
    enter(&f_, #name);                                                                                            \
    if (g_on)                                                                                                     \
        emit("> #%llu t=%ld " #name " " format, (unsigned long long)f_.id, thread_id(), __VA_ARGS__);            \
    g_current = &f_
#define LEAVE() (g_current = f_.outer)
/* The same for an entry point that returns a value: a `=` line with it once the driver returned (the callbacks the
 * call caused come between its `>` and `=` lines). */
#define LEAVE_RESULT(format, ...)                                                                                 \
    do {                                                                                                          \
        LEAVE();                                                                                                  \
        if (g_on)                                                                                                 \
            emit("= #%llu t=%ld %s " format, (unsigned long long)f_.id, thread_id(), f_.name, __VA_ARGS__);      \
    } while (0)

/* Driver -> runtime: the line, once the callback returned. */
#define CALLBACK_LINE(name, hr, format, ...)                                                                      \
    do {                                                                                                          \
        if (g_on) {                                                                                               \
            char in_[96];                                                                                         \
            in_call(in_, sizeof in_);                                                                             \
            emit("< t=%ld " #name " " format " hr=0x%08X in=%s", thread_id(), __VA_ARGS__, (unsigned)(hr), in_); \
        }                                                                                                         \
    } while (0)

static void in_call(char *out, size_t size)
{
    if (g_current)
        snprintf(out, size, "#%llu:%s", (unsigned long long)g_current->id, g_current->name);
    else
        snprintf(out, size, "-");
}

/* A driver string for a line: quoted, escaped (\" \\ \n \t \xNN), cut at 1 KiB; NULL when NULL. */
static const char *quoted(const char *text, char *out, size_t size)
{
    if (!text)
        return "NULL";
    size_t n = 0;
    out[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)text; *p && n + 6 < size; p++) {
        if (*p == '"' || *p == '\\') {
            out[n++] = '\\';
            out[n++] = (char)*p;
        } else if (*p == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (*p < 0x20 || *p >= 0x7F) {
            n += (size_t)snprintf(out + n, size - n, "\\x%02X", *p);
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
    return out;
}

/* ---- Originals, per slot, and installing the wrappers ---- */

static struct {
    D3D12DDI_ADAPTERFUNCS adapter;
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 extended;
    D3D12DDI_DEVICE_FUNCS_CORE_0126 core;
    D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 list;
    D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 queue;
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 drm;
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 cb;
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 kt;
} o;
static pthread_mutex_t g_wrap_lock = PTHREAD_MUTEX_INITIALIZER;

typedef void (*any_fn)(void);

/* Keep the first original a slot had; wrap the slot only when it holds that original (or already the wrapper). */
static void wrap_slot(void *slot, void *stored, any_fn wrapper)
{
    any_fn current, original;
    memcpy(&current, slot, sizeof current);
    if (!current || current == wrapper)
        return;
    pthread_mutex_lock(&g_wrap_lock);
    memcpy(&original, stored, sizeof original);
    if (!original) {
        memcpy(stored, &current, sizeof current);
        original = current;
    }
    if (original == current)
        memcpy(slot, &wrapper, sizeof wrapper);
    pthread_mutex_unlock(&g_wrap_lock);
}

#define WRAP(table, store, field) wrap_slot(&(table)->field, &o.store.field, (any_fn)w_##field)

#define P(h) ((h).pDrvPrivate)
#define RT(h) ((h).handle)

/* ---- Adapter ---- */

void d12__ddi_trace_open_adapter(const char *driver_name)
{
    if (g_on)
        emit("> #%llu t=%ld OpenAdapter12 driver=%s",
             (unsigned long long)atomic_fetch_add(&g_next_id, 1) + 1, thread_id(), driver_name);
}

static SIZE_T APIENTRY w_pfnCalcPrivateDeviceSize(D3D12DDI_HADAPTER a, const D3D12DDIARG_CALCPRIVATEDEVICESIZE *p)
{
    ENTER(pfnCalcPrivateDeviceSize, "hAdapter=%p Interface=0x%X Version=0x%X Flags=%d", P(a), p ? p->Interface : 0,
          p ? p->Version : 0, p ? (int)p->Flags : 0);
    SIZE_T size = o.adapter.pfnCalcPrivateDeviceSize(a, p);
    LEAVE_RESULT("size=%zu", (size_t)size);
    return size;
}

static HRESULT APIENTRY w_pfnCreateDevice(D3D12DDI_HADAPTER a, const D3D12DDIARG_CREATEDEVICE_0003 *p)
{
    ENTER(pfnCreateDevice, "hAdapter=%p hRTDevice=%p hDrvDevice=%p Interface=0x%X Version=0x%X Flags=%d", P(a),
          RT(p->hRTDevice), P(p->hDrvDevice), p->Interface, p->Version, (int)p->Flags);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnCreateDevice(a, p);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnCloseAdapter(D3D12DDI_HADAPTER a)
{
    ENTER(pfnCloseAdapter, "hAdapter=%p", P(a));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnCloseAdapter(a);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnGetSupportedVersions(D3D12DDI_HADAPTER a, UINT32 *n, UINT64 *v)
{
    ENTER(pfnGetSupportedVersions, "hAdapter=%p entries=%u fill=%d", P(a), n ? *n : 0, v != NULL);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnGetSupportedVersions(a, n, v);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnGetCaps(D3D12DDI_HADAPTER a, const D3D12DDIARG_GETCAPS *p)
{
    ENTER(pfnGetCaps, "hAdapter=%p Type=0x%X Feature=%d DataSize=%u", P(a), p ? (unsigned)p->Type : 0,
          p && p->pInfo ? (int)*(const D3D12_FEATURE *)p->pInfo : -1, p ? p->DataSize : 0);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnGetCaps(a, p);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnGetOptionalDDITables(D3D12DDI_HADAPTER a, UINT32 *n, D3D12DDI_TABLE_REQUEST *t)
{
    ENTER(pfnGetOptionalDDITables, "hAdapter=%p entries=%u fill=%d", P(a), n ? *n : 0, t != NULL);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnGetOptionalDDITables(a, n, t);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnFillDDITable(D3D12DDI_HADAPTER a, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size,
                                          UINT num, D3D12DDI_HRTTABLE rt)
{
    ENTER(pfnFillDDITable, "hAdapter=%p tableType=%d tableSize=%zu tableNum=%u", P(a), (int)type, (size_t)size, num);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.adapter.pfnFillDDITable(a, type, table, size, num, rt);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnDestroyDevice(D3D12DDI_HDEVICE d)
{
    ENTER(pfnDestroyDevice, "hDevice=%p", P(d));
    o.adapter.pfnDestroyDevice(d);
    LEAVE();
}

void d12__ddi_trace_wrap_adapter(D3D12DDI_ADAPTERFUNCS *f)
{
    if (!d12__ddi_trace_wraps())
        return;
    WRAP(f, adapter, pfnCalcPrivateDeviceSize);
    WRAP(f, adapter, pfnCreateDevice);
    WRAP(f, adapter, pfnCloseAdapter);
    WRAP(f, adapter, pfnGetSupportedVersions);
    WRAP(f, adapter, pfnGetCaps);
    WRAP(f, adapter, pfnGetOptionalDDITables);
    WRAP(f, adapter, pfnFillDDITable);
    WRAP(f, adapter, pfnDestroyDevice);
}

/* ---- Extended features ---- */

static HRESULT APIENTRY w_pfnGetSupportedExtendedFeatures(D3D12DDI_HADAPTER a, UINT32 *n, D3D12DDI_FEATURE_0020 *f)
{
    ENTER(pfnGetSupportedExtendedFeatures, "hAdapter=%p entries=%u fill=%d", P(a), n ? *n : 0, f != NULL);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.extended.pfnGetSupportedExtendedFeatures(a, n, f);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnGetSupportedExtendedFeatureVersions(D3D12DDI_HADAPTER a, D3D12DDI_FEATURE_0020 feature,
                                                                  UINT32 *n, UINT32 *v)
{
    ENTER(pfnGetSupportedExtendedFeatureVersions, "hAdapter=%p Feature=%d entries=%u fill=%d", P(a), (int)feature,
          n ? *n : 0, v != NULL);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.extended.pfnGetSupportedExtendedFeatureVersions(a, feature, n, v);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static HRESULT APIENTRY w_pfnEnableExtendedFeature(D3D12DDI_HDEVICE d, D3D12DDI_FEATURE_0020 feature, UINT32 version)
{
    ENTER(pfnEnableExtendedFeature, "hDevice=%p Feature=%d FeatureVersion=%u", P(d), (int)feature, version);
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.extended.pfnEnableExtendedFeature(d, feature, version);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

void d12__ddi_trace_wrap_extended(D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *f)
{
    if (!d12__ddi_trace_wraps())
        return;
    WRAP(f, extended, pfnGetSupportedExtendedFeatures);
    WRAP(f, extended, pfnGetSupportedExtendedFeatureVersions);
    WRAP(f, extended, pfnEnableExtendedFeature);
}

/* ---- Device core ---- */

static SIZE_T APIENTRY w_pfnCalcPrivateCommandQueueSize(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *p)
{
    ENTER(pfnCalcPrivateCommandQueueSize, "hDevice=%p QueueFlags=%d", P(d), p ? (int)p->QueueFlags : -1);
    SIZE_T size = o.core.pfnCalcPrivateCommandQueueSize(d, p);
    LEAVE_RESULT("size=%zu", (size_t)size);
    return size;
}

static HRESULT APIENTRY w_pfnCreateCommandQueue(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *p,
                                                D3D12DDI_HCOMMANDQUEUE q, D3D12DDI_HRTCOMMANDQUEUE rq)
{
    ENTER(pfnCreateCommandQueue, "hDevice=%p QueueFlags=%d hDrvCommandQueue=%p hRTCommandQueue=%p", P(d),
          p ? (int)p->QueueFlags : -1, P(q), RT(rq));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.core.pfnCreateCommandQueue(d, p, q, rq);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnDestroyCommandQueue(D3D12DDI_HDEVICE d, D3D12DDI_HCOMMANDQUEUE q)
{
    ENTER(pfnDestroyCommandQueue, "hDevice=%p hDrvCommandQueue=%p", P(d), P(q));
    o.core.pfnDestroyCommandQueue(d, q);
    LEAVE();
}

static SIZE_T APIENTRY w_pfnCalcPrivateCommandAllocatorSize(D3D12DDI_HDEVICE d,
                                                            const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *p)
{
    ENTER(pfnCalcPrivateCommandAllocatorSize, "hDevice=%p QueueFlags=%d", P(d), p ? (int)p->QueueFlags : -1);
    SIZE_T size = o.core.pfnCalcPrivateCommandAllocatorSize(d, p);
    LEAVE_RESULT("size=%zu", (size_t)size);
    return size;
}

static HRESULT APIENTRY w_pfnCreateCommandAllocator(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *p,
                                                    D3D12DDI_HCOMMANDALLOCATOR a)
{
    ENTER(pfnCreateCommandAllocator, "hDevice=%p QueueFlags=%d hDrvCommandAllocator=%p", P(d),
          p ? (int)p->QueueFlags : -1, P(a));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.core.pfnCreateCommandAllocator(d, p, a);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnDestroyCommandAllocator(D3D12DDI_HDEVICE d, D3D12DDI_HCOMMANDALLOCATOR a)
{
    ENTER(pfnDestroyCommandAllocator, "hDevice=%p hDrvCommandAllocator=%p", P(d), P(a));
    o.core.pfnDestroyCommandAllocator(d, a);
    LEAVE();
}

static VOID APIENTRY w_pfnResetCommandAllocator(D3D12DDI_HCOMMANDALLOCATOR a)
{
    ENTER(pfnResetCommandAllocator, "hDrvCommandAllocator=%p", P(a));
    o.core.pfnResetCommandAllocator(a);
    LEAVE();
}

static SIZE_T APIENTRY w_pfnCalcPrivateCommandListSize(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDLIST_0126 *p)
{
    ENTER(pfnCalcPrivateCommandListSize, "hDevice=%p QueueFlags=%d", P(d), p ? (int)p->QueueFlags : -1);
    SIZE_T size = o.core.pfnCalcPrivateCommandListSize(d, p);
    LEAVE_RESULT("size=%zu", (size_t)size);
    return size;
}

static HRESULT APIENTRY w_pfnCreateCommandList(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDLIST_0126 *p,
                                               D3D12DDI_HCOMMANDLIST l, D3D12DDI_HRTCOMMANDLIST rl)
{
    ENTER(pfnCreateCommandList, "hDevice=%p QueueFlags=%d hDrvCommandList=%p hRTCommandList=%p", P(d),
          p ? (int)p->QueueFlags : -1, P(l), RT(rl));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.core.pfnCreateCommandList(d, p, l, rl);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnDestroyCommandList(D3D12DDI_HDEVICE d, D3D12DDI_HCOMMANDLIST l)
{
    ENTER(pfnDestroyCommandList, "hDevice=%p hDrvCommandList=%p", P(d), P(l));
    o.core.pfnDestroyCommandList(d, l);
    LEAVE();
}

static SIZE_T APIENTRY w_pfnCalcPrivateResourceSize(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATERESOURCE_0126 *p)
{
    ENTER(pfnCalcPrivateResourceSize, "hDevice=%p HeapType=%d Width=%llu", P(d), p ? (int)p->HeapType : -1,
          p ? (unsigned long long)p->Width : 0ull);
    SIZE_T size = o.core.pfnCalcPrivateResourceSize(d, p);
    LEAVE_RESULT("size=%zu", (size_t)size);
    return size;
}

static HRESULT APIENTRY w_pfnCreateResource(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATERESOURCE_0126 *p,
                                            D3D12DDI_HRESOURCE r, D3D12DDI_HRTRESOURCE rr)
{
    ENTER(pfnCreateResource, "hDevice=%p HeapType=%d Width=%llu hDrvResource=%p hRTResource=%p", P(d),
          p ? (int)p->HeapType : -1, p ? (unsigned long long)p->Width : 0ull, P(r), RT(rr));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.core.pfnCreateResource(d, p, r, rr);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnDestroyResource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE r)
{
    ENTER(pfnDestroyResource, "hDevice=%p hDrvResource=%p", P(d), P(r));
    o.core.pfnDestroyResource(d, r);
    LEAVE();
}

static HRESULT APIENTRY w_pfnMapResource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE r, void **data)
{
    ENTER(pfnMapResource, "hDevice=%p hDrvResource=%p", P(d), P(r));
    HRESULT hr = d12__fault_ddi_fails() ? E_OUTOFMEMORY : o.core.pfnMapResource(d, r, data);
    LEAVE_RESULT("hr=0x%08X", (unsigned)hr);
    return hr;
}

static VOID APIENTRY w_pfnUnmapResource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE r)
{
    ENTER(pfnUnmapResource, "hDevice=%p hDrvResource=%p", P(d), P(r));
    o.core.pfnUnmapResource(d, r);
    LEAVE();
}

static UINT64 APIENTRY w_pfnGetResourceGPUVirtualAddress(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE r)
{
    ENTER(pfnGetResourceGPUVirtualAddress, "hDevice=%p hDrvResource=%p", P(d), P(r));
    UINT64 va = o.core.pfnGetResourceGPUVirtualAddress(d, r);
    LEAVE_RESULT("va=0x%llX", (unsigned long long)va);
    return va;
}

/* ---- Queue ---- */

static VOID APIENTRY w_pfnExecuteCommandLists(D3D12DDI_HCOMMANDQUEUE q, UINT count, const D3D12DDI_HCOMMANDLIST *lists)
{
    ENTER(pfnExecuteCommandLists, "hDrvCommandQueue=%p Count=%u first=%p", P(q), count,
          count && lists ? P(lists[0]) : NULL);
    o.queue.pfnExecuteCommandLists(q, count, lists);
    LEAVE();
}

static VOID APIENTRY w_pfnSignalFence(D3D12DDI_HCOMMANDQUEUE q, const D3D12DDIARG_FENCE_OPERATION_0126 *p)
{
    ENTER(pfnSignalFence, "hDrvCommandQueue=%p hRTFence=%p Value=%llu", P(q), p ? RT(p->hRTFence) : NULL,
          p ? (unsigned long long)p->Value : 0ull);
    o.queue.pfnSignalFence(q, p);
    LEAVE();
}

static VOID APIENTRY w_pfnWaitForFence(D3D12DDI_HCOMMANDQUEUE q, const D3D12DDIARG_FENCE_OPERATION_0126 *p)
{
    ENTER(pfnWaitForFence, "hDrvCommandQueue=%p hRTFence=%p Value=%llu", P(q), p ? RT(p->hRTFence) : NULL,
          p ? (unsigned long long)p->Value : 0ull);
    o.queue.pfnWaitForFence(q, p);
    LEAVE();
}

/* ---- Command lists ---- */

static VOID APIENTRY w_pfnCloseCommandList(D3D12DDI_HCOMMANDLIST l)
{
    ENTER(pfnCloseCommandList, "hDrvCommandList=%p", P(l));
    o.list.pfnCloseCommandList(l);
    LEAVE();
}

static VOID APIENTRY w_pfnResetCommandList(D3D12DDI_HCOMMANDLIST l, const D3D12DDIARG_RESETCOMMANDLIST_0126 *p)
{
    ENTER(pfnResetCommandList, "hDrvCommandList=%p hDrvCommandAllocator=%p", P(l),
          p ? P(p->hDrvCommandAllocator) : NULL);
    o.list.pfnResetCommandList(l, p);
    LEAVE();
}

static VOID APIENTRY w_pfnIaSetVertexBuffers(D3D12DDI_HCOMMANDLIST l, UINT start, UINT n,
                                             const D3D12DDI_VERTEX_BUFFER_VIEW *views)
{
    ENTER(pfnIaSetVertexBuffers, "hDrvCommandList=%p StartSlot=%u NumViews=%u", P(l), start, n);
    o.list.pfnIaSetVertexBuffers(l, start, n, views);
    LEAVE();
}

static VOID APIENTRY w_pfnIaSetIndexBuffer(D3D12DDI_HCOMMANDLIST l, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    ENTER(pfnIaSetIndexBuffer, "hDrvCommandList=%p BufferLocation=0x%llX", P(l),
          view ? (unsigned long long)view->BufferLocation : 0ull);
    o.list.pfnIaSetIndexBuffer(l, view);
    LEAVE();
}

#define ROOT_VIEW_WRAPPER(field)                                                                                   \
    static VOID APIENTRY w_##field(D3D12DDI_HCOMMANDLIST l, UINT index, UINT64 location)                         \
    {                                                                                                            \
        ENTER(field, "hDrvCommandList=%p RootParameterIndex=%u BufferLocation=0x%llX", P(l), index,               \
              (unsigned long long)location);                                                                     \
        o.list.field(l, index, location);                                                                        \
        LEAVE();                                                                                                 \
    }
ROOT_VIEW_WRAPPER(pfnSetGraphicsRootConstantBufferView)
ROOT_VIEW_WRAPPER(pfnSetGraphicsRootShaderResourceView)
ROOT_VIEW_WRAPPER(pfnSetGraphicsRootUnorderedAccessView)
ROOT_VIEW_WRAPPER(pfnSetComputeRootConstantBufferView)
ROOT_VIEW_WRAPPER(pfnSetComputeRootShaderResourceView)
ROOT_VIEW_WRAPPER(pfnSetComputeRootUnorderedAccessView)

static VOID APIENTRY w_pfnDrawInstanced(D3D12DDI_HCOMMANDLIST l, UINT a, UINT b, UINT c, UINT d)
{
    ENTER(pfnDrawInstanced, "hDrvCommandList=%p VertexCountPerInstance=%u InstanceCount=%u StartVertexLocation=%u "
          "StartInstanceLocation=%u", P(l), a, b, c, d);
    o.list.pfnDrawInstanced(l, a, b, c, d);
    LEAVE();
}

static VOID APIENTRY w_pfnDrawIndexedInstanced(D3D12DDI_HCOMMANDLIST l, UINT a, UINT b, UINT c, INT d, UINT e)
{
    ENTER(pfnDrawIndexedInstanced, "hDrvCommandList=%p IndexCountPerInstance=%u InstanceCount=%u "
          "StartIndexLocation=%u BaseVertexLocation=%d StartInstanceLocation=%u", P(l), a, b, c, d, e);
    o.list.pfnDrawIndexedInstanced(l, a, b, c, d, e);
    LEAVE();
}

static VOID APIENTRY w_pfnDispatch(D3D12DDI_HCOMMANDLIST l, UINT x, UINT y, UINT z)
{
    ENTER(pfnDispatch, "hDrvCommandList=%p ThreadGroupCountX=%u ThreadGroupCountY=%u ThreadGroupCountZ=%u", P(l), x, y,
          z);
    o.list.pfnDispatch(l, x, y, z);
    LEAVE();
}

static VOID APIENTRY w_pfnCopyBufferRegion(D3D12DDI_HCOMMANDLIST l, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                           D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    ENTER(pfnCopyBufferRegion, "hDrvCommandList=%p hDstResource=%p DstOffset=%llu hSrcResource=%p SrcOffset=%llu "
          "NumBytes=%llu", P(l), P(dst), (unsigned long long)dst_offset, P(src), (unsigned long long)src_offset,
          (unsigned long long)bytes);
    o.list.pfnCopyBufferRegion(l, dst, dst_offset, src, src_offset, bytes);
    LEAVE();
}

static VOID APIENTRY w_pfnCopyResource(D3D12DDI_HCOMMANDLIST l, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    ENTER(pfnCopyResource, "hDrvCommandList=%p hDstResource=%p hSrcResource=%p", P(l), P(dst), P(src));
    o.list.pfnCopyResource(l, dst, src);
    LEAVE();
}

static VOID APIENTRY w_pfnResourceBarrier(D3D12DDI_HCOMMANDLIST l, UINT n, const D3D12DDIARG_RESOURCE_BARRIER_0126 *b)
{
    ENTER(pfnResourceBarrier, "hDrvCommandList=%p Count=%u", P(l), n);
    o.list.pfnResourceBarrier(l, n, b);
    LEAVE();
}

static VOID APIENTRY w_pfnWriteBufferImmediate(D3D12DDI_HCOMMANDLIST l, UINT n,
                                               const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                               const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes)
{
    ENTER(pfnWriteBufferImmediate, "hDrvCommandList=%p Count=%u Dest=0x%llX Value=%u Mode=%d", P(l), n,
          n && params ? (unsigned long long)params[0].Dest : 0ull, n && params ? params[0].Value : 0u,
          n && modes ? (int)modes[0] : 0);
    o.list.pfnWriteBufferImmediate(l, n, params, modes);
    LEAVE();
}

void d12__ddi_trace_wrap_gpu(d12_driver_gpu_funcs *g, bool has_0127)
{
    if (!d12__ddi_trace_wraps())
        return;
    D3D12DDI_DEVICE_FUNCS_CORE_0126 *c = &g->core;
    WRAP(c, core, pfnCalcPrivateCommandQueueSize);
    WRAP(c, core, pfnCreateCommandQueue);
    WRAP(c, core, pfnDestroyCommandQueue);
    WRAP(c, core, pfnCalcPrivateCommandAllocatorSize);
    WRAP(c, core, pfnCreateCommandAllocator);
    WRAP(c, core, pfnDestroyCommandAllocator);
    WRAP(c, core, pfnResetCommandAllocator);
    WRAP(c, core, pfnCalcPrivateCommandListSize);
    WRAP(c, core, pfnCreateCommandList);
    WRAP(c, core, pfnDestroyCommandList);
    WRAP(c, core, pfnCalcPrivateResourceSize);
    WRAP(c, core, pfnCreateResource);
    WRAP(c, core, pfnDestroyResource);
    WRAP(c, core, pfnMapResource);
    WRAP(c, core, pfnUnmapResource);
    WRAP(c, core, pfnGetResourceGPUVirtualAddress);
    D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 *q = &g->queue;
    WRAP(q, queue, pfnExecuteCommandLists);
    WRAP(q, queue, pfnSignalFence);
    WRAP(q, queue, pfnWaitForFence);
    D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 *l = &g->list_0127;
    WRAP(l, list, pfnCloseCommandList);
    WRAP(l, list, pfnResetCommandList);
    WRAP(l, list, pfnIaSetVertexBuffers);
    WRAP(l, list, pfnIaSetIndexBuffer);
    WRAP(l, list, pfnSetGraphicsRootConstantBufferView);
    WRAP(l, list, pfnSetGraphicsRootShaderResourceView);
    WRAP(l, list, pfnSetGraphicsRootUnorderedAccessView);
    WRAP(l, list, pfnSetComputeRootConstantBufferView);
    WRAP(l, list, pfnSetComputeRootShaderResourceView);
    WRAP(l, list, pfnSetComputeRootUnorderedAccessView);
    WRAP(l, list, pfnDrawInstanced);
    WRAP(l, list, pfnDrawIndexedInstanced);
    WRAP(l, list, pfnDispatch);
    WRAP(l, list, pfnCopyBufferRegion);
    WRAP(l, list, pfnCopyResource);
    WRAP(l, list, pfnResourceBarrier);
    if (has_0127)
        WRAP(l, list, pfnWriteBufferImmediate);
}

/* ---- Driver-reported messages ---- */

static VOID APIENTRY w_pfnFlushDriverReportedMessages(D3D12DDI_HDEVICE d)
{
    ENTER(pfnFlushDriverReportedMessages, "hDevice=%p", P(d));
    o.drm.pfnFlushDriverReportedMessages(d);
    LEAVE();
}

static VOID APIENTRY w_pfnSetCommandListStateIndex(D3D12DDI_HCOMMANDLIST l, UINT32 index)
{
    ENTER(pfnSetCommandListStateIndex, "hDrvCommandList=%p CommandListStateIndex=0x%08X", P(l), index);
    o.drm.pfnSetCommandListStateIndex(l, index);
    LEAVE();
}

void d12__ddi_trace_wrap_drm(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *f)
{
    if (!d12__ddi_trace_wraps())
        return;
    WRAP(f, drm, pfnFlushDriverReportedMessages);
    WRAP(f, drm, pfnSetCommandListStateIndex);
}

/* ---- Callbacks (driver -> runtime) ---- */

static VOID APIENTRY w_pfnSetErrorCb(D3D12DDI_HRTDEVICE d, HRESULT reason)
{
    o.cb.pfnSetErrorCb(d, reason);
    CALLBACK_LINE(pfnSetErrorCb, S_OK, "hRTDevice=%p hr_reported=0x%08X", RT(d), (unsigned)reason);
}

static VOID APIENTRY w_pfnSetCommandListErrorCb(D3D12DDI_HRTCOMMANDLIST l, HRESULT reason)
{
    o.cb.pfnSetCommandListErrorCb(l, reason);
    CALLBACK_LINE(pfnSetCommandListErrorCb, S_OK, "hRTCommandList=%p hr_reported=0x%08X", RT(l), (unsigned)reason);
}

static HRESULT APIENTRY w_pfnReportMessageCb(D3D12DDI_HRTDEVICE d, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *m)
{
    HRESULT hr = o.cb.pfnReportMessageCb(d, m);
    if (!g_on)
        return hr;
    char text[1100];
    if (!m) {
        CALLBACK_LINE(pfnReportMessageCb, hr, "hRTDevice=%p pMessage=NULL", RT(d));
        return hr;
    }
    CALLBACK_LINE(pfnReportMessageCb, hr, "hRTDevice=%p VendorMessageId=0x%016llX Severity=%d Category=%d "
                  "CommandListStateIndex=0x%08X pDescription=%s", RT(d), (unsigned long long)m->VendorMessageId,
                  (int)m->Severity, (int)m->Category, m->CommandListStateIndex,
                  quoted(m->pDescription, text, sizeof text));
    return hr;
}

static HRESULT APIENTRY w_pfnQueryObjectIdentityCb(D3D12DDI_HRTDEVICE d, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size,
                                                   CHAR *identity)
{
    SIZE_T given = size ? *size : 0;
    HRESULT hr = o.cb.pfnQueryObjectIdentityCb(d, object, size, identity);
    CALLBACK_LINE(pfnQueryObjectIdentityCb, hr, "hRTDevice=%p Handle=%p Type=%d size_in=%zu size_out=%zu fill=%d",
                  RT(d), object.Handle, (int)object.Type, (size_t)given, size ? (size_t)*size : (size_t)0,
                  identity != NULL);
    return hr;
}

static HRESULT APIENTRY w_pfnSignalFenceFromGpuCb(D3D12DDI_HRTDEVICE d, D3D12DDI_HRTCOMMANDQUEUE q,
                                                  const D3D12DDIARG_FENCE_OPERATION_0126 *p)
{
    void *fence = p ? RT(p->hRTFence) : NULL;
    unsigned long long value = p ? (unsigned long long)p->Value : 0ull;
    HRESULT hr = o.kt.pfnSignalFenceFromGpuCb(d, q, p);
    CALLBACK_LINE(pfnSignalFenceFromGpuCb, hr, "hRTDevice=%p hRTCommandQueue=%p hRTFence=%p Value=%llu", RT(d), RT(q),
                  fence, value);
    return hr;
}

static HRESULT APIENTRY w_pfnWaitForFenceFromGpuCb(D3D12DDI_HRTDEVICE d, D3D12DDI_HRTCOMMANDQUEUE q,
                                                   const D3D12DDIARG_FENCE_OPERATION_0126 *p)
{
    void *fence = p ? RT(p->hRTFence) : NULL;
    unsigned long long value = p ? (unsigned long long)p->Value : 0ull;
    HRESULT hr = o.kt.pfnWaitForFenceFromGpuCb(d, q, p);
    CALLBACK_LINE(pfnWaitForFenceFromGpuCb, hr, "hRTDevice=%p hRTCommandQueue=%p hRTFence=%p Value=%llu", RT(d), RT(q),
                  fence, value);
    return hr;
}

static VOID APIENTRY w_pfnDeviceFaultCb(D3D12DDI_HRTDEVICE d, const D3D12DDICB_DEVICEFAULT_0127 *f)
{
    o.kt.pfnDeviceFaultCb(d, f);
    CALLBACK_LINE(pfnDeviceFaultCb, S_OK, "hRTDevice=%p ExecutionState=%u FaultedVirtualAddress=0x%llX OpIndex=0x%08X",
                  RT(d), f ? f->ExecutionState : 0u, f ? (unsigned long long)f->FaultedVirtualAddress : 0ull,
                  f ? f->OpIndex : 0u);
}

static HRESULT APIENTRY w_pfnReportGpuProgressCb(D3D12DDI_HRTDEVICE d, D3D12DDI_HRTCOMMANDQUEUE q,
                                                 const D3D12DDICB_GPUPROGRESS_0127 *p)
{
    HRESULT hr = o.kt.pfnReportGpuProgressCb(d, q, p);
    CALLBACK_LINE(pfnReportGpuProgressCb, hr, "hRTDevice=%p hRTCommandQueue=%p Progress=%d OpIndex=0x%08X", RT(d),
                  RT(q), p ? (int)p->Progress : -1, p ? p->OpIndex : 0u);
    return hr;
}

void d12__ddi_trace_wrap_callbacks(D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *cb,
                                   D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt)
{
    /* Callbacks only carry the trace; the lock rule concerns calls into the driver. */
    if (!g_on)
        return;
    WRAP(cb, cb, pfnSetErrorCb);
    WRAP(cb, cb, pfnSetCommandListErrorCb);
    WRAP(cb, cb, pfnReportMessageCb);
    WRAP(cb, cb, pfnQueryObjectIdentityCb);
    WRAP(kt, kt, pfnSignalFenceFromGpuCb);
    WRAP(kt, kt, pfnWaitForFenceFromGpuCb);
    WRAP(kt, kt, pfnDeviceFaultCb);
    WRAP(kt, kt, pfnReportGpuProgressCb);
}
