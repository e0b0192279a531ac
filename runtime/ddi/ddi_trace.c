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

#include "cfgfile.h"
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
    /* This runs before main: a path naming a FIFO must not block it (cfgfile.h: a non-blocking open, a regular file
     * only; issue 17 item 7.3). */
    char why[160];
    g_fd = d12_cfgfile_open_append(path, why, sizeof why);
    if (g_fd < 0) {
        fprintf(stderr, "d12rt: D12RT_DDI_TRACE=%s: cannot open the trace file (%s); no trace\n", path, why);
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

/* The callbacks' originals (the driver tables' are in the generated part, `od`). */
static struct {
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

#define RT(h) ((h).handle)

/* ---- Runtime -> driver: the wrappers generated from spec/ddi.yaml (part ddi_trace), and installing them ---- */

#include "d12_ddi_trace_wrappers.h"

void d12__ddi_trace_open_adapter(const char *driver_name)
{
    if (g_on)
        emit("> #%llu t=%ld OpenAdapter12 driver=%s",
             (unsigned long long)atomic_fetch_add(&g_next_id, 1) + 1, thread_id(), driver_name);
}

void d12__ddi_trace_wrap_adapter(D3D12DDI_ADAPTERFUNCS *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_adapter(funcs);
}

void d12__ddi_trace_wrap_extended(D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_extended(funcs);
}

/* A driver of build 0126 fills the 0126 list table: pfnWriteBufferImmediate stays NULL, and unwrapped. */
void d12__ddi_trace_wrap_gpu(d12_driver_gpu_funcs *g, bool has_0127)
{
    (void)has_0127;
    if (!d12__ddi_trace_wraps())
        return;
    wrap_core(&g->core);
    wrap_queue(&g->queue);
    wrap_list(&g->list_0127);
}

void d12__ddi_trace_wrap_descriptors(D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_descriptors(funcs);
}

void d12__ddi_trace_wrap_heaps(D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_heaps(funcs);
}

void d12__ddi_trace_wrap_compute(D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT *pipelines,
                                 D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT *binding)
{
    if (!d12__ddi_trace_wraps())
        return;
    wrap_pipelines(pipelines);
    wrap_binding(binding);
}

void d12__ddi_trace_wrap_drm(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_drm(funcs);
}

void d12__ddi_trace_wrap_drm1(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 *funcs)
{
    if (d12__ddi_trace_wraps())
        wrap_drm1(funcs);
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

static HRESULT APIENTRY w_pfnQueryGpuVaIdentityCb(D3D12DDI_HRTDEVICE d, UINT64 va, SIZE_T *size, CHAR *identity)
{
    SIZE_T given = size ? *size : 0;
    HRESULT hr = o.cb.pfnQueryGpuVaIdentityCb(d, va, size, identity);
    CALLBACK_LINE(pfnQueryGpuVaIdentityCb, hr, "hRTDevice=%p GpuVA=0x%llX size_in=%zu size_out=%zu fill=%d", RT(d),
                  (unsigned long long)va, (size_t)given, size ? (size_t)*size : (size_t)0, identity != NULL);
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
    WRAP(cb, cb, pfnQueryGpuVaIdentityCb);
    WRAP(kt, kt, pfnSignalFenceFromGpuCb);
    WRAP(kt, kt, pfnWaitForFenceFromGpuCb);
    WRAP(kt, kt, pfnDeviceFaultCb);
    WRAP(kt, kt, pfnReportGpuProgressCb);
}
