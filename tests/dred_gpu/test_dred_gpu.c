/* GPU faults, hangs and the GPU stopping at removal (issue 9 item 3, docs/dred-gpu.md), through libd12rt's public
 * ABI over the built-in reference driver (DDI build 0127). One process per case: test_dred_gpu CASE [TYPE], TYPE one
 * of direct, compute, copy. The CMake file sets short TDR delays (D12RT_TDR_DELAY_MS) and cheap GPU rates.
 *
 * What each case proves:
 *   fault_freed TYPE     a copy from a buffer released after recording page-faults: the device is removed with
 *                        DXGI_ERROR_DEVICE_HUNG; the copy before it landed, the faulting one and the one after it never
 *                        ran (their destinations stay zero); a fence signalled behind it reads UINT64_MAX and its event
 *                        fires; message 232 has Windows' text; the driver's CORRUPTION message names the copy
 *   fault_gap TYPE       the same for a read of the unmapped 64 KiB after a buffer (a vertex buffer view on DIRECT, a
 *                        root SRV on COMPUTE; a COPY list has only copies, whose bounds the runtime checks at record
 *                        time, so the freed buffer is the only fault a copy queue can have)
 *   fault_made_up TYPE   the same for an address no buffer ever had (DIRECT, COMPUTE)
 *   overrun_no_fault     an overrun that stays inside the buffer's 64 KiB allocation is the ERROR finding, no removal
 *   hang TYPE            a command longer than the TDR delay (a huge draw, dispatch, or copy at a slow byte rate) is
 *                        removed within the delay and a tick: HUNG, the work after it never ran, waiters wake promptly
 *   long_no_hang         a command shorter than the delay completes and removes nothing
 *   wait_no_hang         a GPU Wait on a fence nobody signals is no hang, over several delays; the work behind it runs
 *                        once the CPU signals
 *   queued_never_runs    at removal, a second queue holding work behind a never-signalled wait drops it (its copy's
 *                        destination stays zero); every object is then released to 0, queues first
 *   destroy_flushes      queue destruction on a removed device makes the one removal flush (issue 8 item 5): the
 *                        driver's page-fault message arrives though the application never surfaced the removal
 *   threads_one_reason   8 threads fault on 8 queues at once: one reason, one message 232, one DEVICE_REMOVED
 *   tdr_delay_env        D12RT_TDR_DELAY_MS: bad values are refused with one stderr line each; good ones silently
 *   message_text         message 232's severity, category and exact text for a driver-reported error reason */
#define _GNU_SOURCE
#define COBJMACROS

#include <pthread.h>

#include "gpu_harness.h"
#include "d12rt/d3d12_ext.h"

#define MSG_DEVICE_REMOVED ((D3D12_MESSAGE_ID)0x10006)
#define REFDRV_MSG_PAGE_FAULT_TEXT "Page fault: "
#define HUNG_TEXT                                                                                                     \
    "Device removal has been triggered for the following reason (DXGI_ERROR_DEVICE_HUNG: The Device took an "      \
    "unreasonable amount of time to execute its commands, or the hardware crashed/hung. As a result, the TDR "       \
    "mechanism has been triggered.)"

static D3D12_COMMAND_LIST_TYPE g_type = D3D12_COMMAND_LIST_TYPE_DIRECT;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The debug layer with driver-reported messages, so the driver's CORRUPTION finding reaches the InfoQueue. */
static ID3D12Device *create_debug_device(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return NULL;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    return create_device(false);
}

static UINT32 word(ID3D12Resource *buffer, size_t offset)
{
    UINT32 value = 0xFFFFFFFFu;
    unsigned char *data = NULL;
    if (SUCCEEDED(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data)) && data) {
        memcpy(&value, data + offset, sizeof value);
        ID3D12Resource_Unmap(buffer, 0, NULL);
    }
    return value;
}

static void fill_words(ID3D12Resource *buffer, size_t size, UINT32 value)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i + 4 <= size; i += 4)
        memcpy(data + i, &value, 4);
    ID3D12Resource_Unmap(buffer, 0, NULL);
}

/* Everything a removal must show: the reason, fences at UINT64_MAX, the event of a signal behind the fault fired (-1:
 * the caller checked it),
 * one message 232 with `text` (severity ERROR, category EXECUTION), creation refused. */
static void check_removed(ID3D12Device *device, ID3D12InfoQueue *iq, ID3D12Fence *fence, int event, HRESULT reason,
                          const char *text)
{
    if (event >= 0) /* -1: the caller saw it fire */
        CHECK(fired(event, WAIT_MS, NULL));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), reason);
    CHECK(ID3D12Fence_GetCompletedValue(fence) == UINT64_MAX);
    message_info info = {0};
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, NULL, &info), 1);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, text, NULL), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_EXECUTION);
    CHECK_EQ_INT(count_id(iq, MSG_DEVICE_REMOVED, NULL, NULL), 1);
    ID3D12Fence *another = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&another),
             DXGI_ERROR_DEVICE_REMOVED);
}

/* Submit ctx->list and a Signal of ctx->fence to 1 behind it, with the queue held on a gate fence until both are in,
 * so the GPU faults only after the Signal was accepted (a Signal made after the removal is DXGI_ERROR_DEVICE_REMOVED
 * and surfaces it). */
static void submit_gated(ID3D12Device *device, gpu_context *ctx)
{
    ID3D12Fence *gate = NULL;
    if (!CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&gate), S_OK))
        return;
    CHECK_HR(ID3D12CommandQueue_Wait(ctx->queue, gate, 1), S_OK);
    execute(ctx->queue, ctx->list);
    CHECK_HR(ID3D12CommandQueue_Signal(ctx->queue, ctx->fence, 1), S_OK);
    CHECK_HR(ID3D12Fence_Signal(gate, 1), S_OK);
    RELEASE_LAST(gate); /* the queue's wait holds it internally */
}

/* ---- Page faults ---- */

typedef enum { FAULT_FREED, FAULT_GAP, FAULT_MADE_UP } fault_kind;

#define MADE_UP_VA 0x00007F0000000000ull /* far above every address the reference driver hands out */

/* Record the faulting command of `kind` into ctx->list (after `good`, before `after`); for FAULT_FREED the source is
 * released once recorded. Returns the faulting address for the driver's message. */
static UINT64 record_fault(ID3D12Device *device, gpu_context *ctx, fault_kind kind, ID3D12Resource *upload,
                           ID3D12Resource *dst)
{
    if (kind == FAULT_FREED) {
        ID3D12Resource *doomed = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
        UINT64 va = doomed ? ID3D12Resource_GetGPUVirtualAddress(doomed) : 0;
        if (doomed) {
            ID3D12GraphicsCommandList_CopyBufferRegion(ctx->list, dst, 0, doomed, 0, 64);
            RELEASE_LAST(doomed); /* after recording, before execution: a use-after-free on the GPU */
        }
        return va;
    }
    UINT64 va = kind == FAULT_GAP ? ID3D12Resource_GetGPUVirtualAddress(upload) + 0x10000 : MADE_UP_VA;
    if (g_type == D3D12_COMMAND_LIST_TYPE_DIRECT) {
        D3D12_VERTEX_BUFFER_VIEW view = {va, 64, 16};
        ID3D12GraphicsCommandList_IASetVertexBuffers(ctx->list, 0, 1, &view);
        ID3D12GraphicsCommandList_DrawInstanced(ctx->list, 3, 1, 0, 0);
    } else {
        ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(ctx->list, 0, va);
        ID3D12GraphicsCommandList_Dispatch(ctx->list, 1, 1, 1);
    }
    return va;
}

static void run_fault(fault_kind kind)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, g_type, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *before = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *faulting = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *after = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill_words(upload, 256, 0x5A5A5A5Au);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, before, 0, upload, 0, 64);
    UINT64 va = record_fault(device, &ctx, kind, upload, faulting);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, after, 0, upload, 0, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    int event = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    submit_gated(device, &ctx);
    check_removed(device, iq, ctx.fence, event, DXGI_ERROR_DEVICE_HUNG, HUNG_TEXT);
    CHECK_EQ_INT(word(before, 0), 0x5A5A5A5Au); /* the work before the fault completed */
    CHECK_EQ_INT(word(faulting, 0), 0);         /* the faulting command never completed */
    CHECK_EQ_INT(word(after, 0), 0);            /* the work after it never ran */
    /* The removal flush (GetDeviceRemovedReason surfaced it) delivered the driver's CORRUPTION finding, correlated. */
    char text[96];
    snprintf(text, sizeof text, "reads GPU virtual address 0x%016llX", (unsigned long long)va);
    message_info info = {0};
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, text, NULL), 1);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, REFDRV_MSG_PAGE_FAULT_TEXT, &info), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_CORRUPTION);
    const char *op = kind == FAULT_FREED                    ? "[CopyBufferRegion #1]"
                     : g_type == D3D12_COMMAND_LIST_TYPE_DIRECT ? "[Draw #0]"
                                                                : "[Dispatch #0]";
    if (!CHECK_EQ_INT_RET(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, op, NULL), 1))
        dump_messages(iq);
    close(event);
    RELEASE_LAST(upload);
    RELEASE_LAST(before);
    RELEASE_LAST(faulting);
    RELEASE_LAST(after);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_fault_freed(void)
{
    run_fault(FAULT_FREED);
}

static void test_fault_gap(void)
{
    run_fault(FAULT_GAP);
}

static void test_fault_made_up(void)
{
    run_fault(FAULT_MADE_UP);
}

/* Past Width, inside the 64 KiB allocation: the README demo's ERROR finding, and the device lives on. */
static void test_overrun_no_fault(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *vb = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 48);
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb) + 4096, 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    execute(ctx.queue, ctx.list); /* flushes what completed */
    CHECK(finish_exact(&ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "bytes past its end", NULL), 1);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, REFDRV_MSG_PAGE_FAULT_TEXT, NULL), 0);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, NULL, NULL), 0);
    RELEASE_LAST(vb);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ---- Hangs ---- */

/* A command far longer than the delay: a draw of 3 x 10^9 vertex instances (1 ns each by default), a dispatch of
 * 65535^2 groups (10 ns each), or a 1 MiB copy (the copy case's CMake sets 10 us per byte: 10 s). */
static void record_long_command(gpu_context *ctx, ID3D12Resource *src, ID3D12Resource *big_dst)
{
    if (g_type == D3D12_COMMAND_LIST_TYPE_DIRECT)
        ID3D12GraphicsCommandList_DrawInstanced(ctx->list, 3, 1000000000u, 0, 0);
    else if (g_type == D3D12_COMMAND_LIST_TYPE_COMPUTE)
        ID3D12GraphicsCommandList_Dispatch(ctx->list, 65535, 65535, 1);
    else
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx->list, big_dst, 0, src, 0, 1 << 20);
}

/* A CPU thread blocked in SetEventOnCompletion(value, NULL) ("blocks until reached"): removal must release it. */
static void *block_on_fence(void *fence)
{
    ID3D12Fence_SetEventOnCompletion((ID3D12Fence *)fence, 1000, NULL);
    return NULL;
}

static void test_hang(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, g_type, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 1 << 20);
    ID3D12Resource *big = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 1 << 20);
    ID3D12Resource *after = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill_words(upload, 256, 0x77777777u);
    record_long_command(&ctx, upload, big);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, after, 0, upload, 0, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    int event = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    pthread_t blocked;
    pthread_create(&blocked, NULL, block_on_fence, ctx.fence);
    double start = now_ms();
    execute(ctx.queue, ctx.list);
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    CHECK(fired(event, WAIT_MS, NULL));
    double elapsed = now_ms() - start;
    /* D12RT_TDR_DELAY_MS=150 (CMake): found after the delay, within it plus a tick and a slice, with margin */
    CHECK(elapsed >= 140);
    CHECK(elapsed < 2500); /* not the command's 3 s (or 42 s, or 10 s at the copy's rate): margin for a loaded machine */
    pthread_join(blocked, NULL); /* released: the fence reads UINT64_MAX */
    check_removed(device, iq, ctx.fence, -1, DXGI_ERROR_DEVICE_HUNG, HUNG_TEXT);
    CHECK_EQ_INT(word(after, 0), 0); /* never ran */
    CHECK_EQ_INT(word(big, 0), 0);   /* the hung copy never completed */
    CHECK_EQ_INT(count_id(iq, MSG_DEVICE_REMOVED, "TDR", NULL), 1);
    close(event);
    double release_start = now_ms();
    RELEASE_LAST(upload);
    RELEASE_LAST(big);
    RELEASE_LAST(after);
    release_context(&ctx); /* the queue's timeline abandoned the command within a slice: no wait for the rest */
    CHECK(now_ms() - release_start < 1000);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* The positive: a 60 ms draw (6 x 10^7 vertex instances) under a 600 ms delay completes; nothing is removed. */
static void test_long_no_hang(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 20000000u, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    double start = now_ms();
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    CHECK(now_ms() - start >= 55); /* it really took its GPU time */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, NULL, NULL), 0);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* "A GPU Wait on a fence that is never signalled is not a hang (Windows does not TDR on it)": five delays pass with the
 * queue blocked; the device lives; the CPU's signal lets the copy behind the wait run. */
static void test_wait_no_hang(void)
{
    ID3D12Device *device = create_debug_device();
    gpu_context ctx;
    if (!device || !make_context(device, g_type, &ctx))
        return;
    ID3D12Fence *never = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&never), S_OK);
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill_words(upload, 256, 0x12345678u);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, upload, 0, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, never, 1), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    sleep_ms(500); /* D12RT_TDR_DELAY_MS=100 (CMake): five delays */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 0);
    CHECK_EQ_INT(word(dst, 0), 0);
    CHECK_HR(ID3D12Fence_Signal(never, 1), S_OK);
    CHECK(wait_fence(ctx.fence, 1));
    CHECK_EQ_INT(word(dst, 0), 0x12345678u);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    RELEASE_LAST(upload);
    RELEASE_LAST(dst);
    RELEASE_LAST(never);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* At removal a second queue blocked in a wait, with a copy behind it, drops that copy; a third, idle queue with a
 * submission made after the removal runs nothing; every object then goes to 0, queues holding that work first. */
static void test_queued_never_runs(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context hung, blocked;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &hung) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COPY, &blocked))
        return;
    ID3D12Fence *never = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&never), S_OK);
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill_words(upload, 256, 0x33333333u);
    ID3D12GraphicsCommandList_CopyBufferRegion(blocked.list, dst, 0, upload, 0, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(blocked.list), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(blocked.queue, never, 1), S_OK);
    execute(blocked.queue, blocked.list);
    CHECK_HR(ID3D12CommandQueue_Signal(blocked.queue, blocked.fence, 1), S_OK);
    ID3D12GraphicsCommandList_DrawInstanced(hung.list, 3, 1000000000u, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(hung.list), S_OK);
    int event = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(hung.fence, 1, as_handle(event)), S_OK);
    execute(hung.queue, hung.list);
    CHECK_HR(ID3D12CommandQueue_Signal(hung.queue, hung.fence, 1), S_OK);
    check_removed(device, iq, hung.fence, event, DXGI_ERROR_DEVICE_HUNG, HUNG_TEXT);
    CHECK(ID3D12Fence_GetCompletedValue(never) == UINT64_MAX);
    CHECK(ID3D12Fence_GetCompletedValue(blocked.fence) == UINT64_MAX);
    CHECK_HR(ID3D12CommandQueue_Signal(blocked.queue, blocked.fence, 2), DXGI_ERROR_DEVICE_REMOVED);
    execute(blocked.queue, blocked.list); /* a removed device takes no work */
    CHECK_HR(ID3D12Fence_Signal(never, 1), S_OK); /* too late: the engine was reset */
    sleep_ms(50);
    CHECK_EQ_INT(word(dst, 0), 0); /* the copy behind the wait never ran */
    close(event);
    RELEASE_LAST(blocked.queue); /* before its list, fence and the buffers its work names */
    blocked.queue = NULL;
    RELEASE_LAST(hung.queue);
    hung.queue = NULL;
    CHECK_EQ_INT(word(dst, 0), 0);
    release_context(&blocked);
    release_context(&hung);
    RELEASE_LAST(never);
    RELEASE_LAST(upload);
    RELEASE_LAST(dst);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* Issue 8 item 5: the application never surfaces the removal; releasing the queue makes the one removal flush, so the
 * driver's message for the faulting work arrives; a later surfacing makes no second flush. */
static void test_destroy_flushes(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {MADE_UP_VA, 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    int event = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    submit_gated(device, &ctx);
    CHECK(fired(event, WAIT_MS, NULL)); /* removed: the event fired, nothing surfaced the removal */
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, HUNG_TEXT, NULL), 1);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, REFDRV_MSG_PAGE_FAULT_TEXT, NULL), 0);
    RELEASE_LAST(ctx.queue);
    ctx.queue = NULL;
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, REFDRV_MSG_PAGE_FAULT_TEXT, NULL), 1);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "[Draw #0]", NULL), 1);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, REFDRV_MSG_PAGE_FAULT_TEXT, NULL), 1);
    close(event);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ---- 8 threads ---- */

#define THREADS 8

typedef struct racer {
    ID3D12Device *device;
    gpu_context ctx;
    pthread_barrier_t *start;
} racer;

static void *race(void *argument)
{
    racer *r = argument;
    pthread_barrier_wait(r->start);
    execute(r->ctx.queue, r->ctx.list);
    ID3D12CommandQueue_Signal(r->ctx.queue, r->ctx.fence, 1);
    ID3D12Device_GetDeviceRemovedReason(r->device);
    return NULL;
}

static void test_threads_one_reason(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    racer racers[THREADS];
    pthread_t threads[THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    int events[THREADS];
    for (int i = 0; i < THREADS; i++) {
        racers[i].device = device;
        racers[i].start = &start;
        if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &racers[i].ctx))
            return;
        D3D12_VERTEX_BUFFER_VIEW view = {MADE_UP_VA + (UINT64)i * 0x10000, 64, 16};
        ID3D12GraphicsCommandList_IASetVertexBuffers(racers[i].ctx.list, 0, 1, &view);
        ID3D12GraphicsCommandList_DrawInstanced(racers[i].ctx.list, 3, 1, 0, 0);
        CHECK_HR(ID3D12GraphicsCommandList_Close(racers[i].ctx.list), S_OK);
        events[i] = new_event();
        CHECK_HR(ID3D12Fence_SetEventOnCompletion(racers[i].ctx.fence, 1, as_handle(events[i])), S_OK);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, race, &racers[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK(fired(events[i], WAIT_MS, NULL));
        CHECK(ID3D12Fence_GetCompletedValue(racers[i].ctx.fence) == UINT64_MAX);
        close(events[i]);
    }
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, NULL, NULL), 1);
    CHECK_EQ_INT(count_id(iq, MSG_DEVICE_REMOVED, NULL, NULL), 1);
    for (int i = 0; i < THREADS; i++)
        release_context(&racers[i].ctx);
    pthread_barrier_destroy(&start);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ---- D12RT_TDR_DELAY_MS ---- */

/* What D3D12CreateDevice printed on stderr with D12RT_TDR_DELAY_MS=value (malloc'd). */
static char *stderr_of_create(const char *value)
{
    char path[] = "/tmp/d12rt_tdr_XXXXXX";
    int file = mkstemp(path);
    setenv("D12RT_TDR_DELAY_MS", value, 1);
    fflush(stderr);
    int saved = dup(2);
    dup2(file, 2);
    ID3D12Device *device = create_device(false);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (device)
        RELEASE_LAST(device);
    char *text = calloc(1, 4096);
    lseek(file, 0, SEEK_SET);
    ssize_t n = read(file, text, 4095);
    (void)n;
    close(file);
    unlink(path);
    return text;
}

static void test_tdr_delay_env(void)
{
    static const char *const bad[] = {"abc", "0", "-5", "100ms", " 100", "3600001", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = stderr_of_create(bad[i]);
        char expected[256];
        snprintf(expected, sizeof expected,
                 "d12rt: D12RT_TDR_DELAY_MS=%s is not a whole number of milliseconds from 1 to 3600000; using 2000\n",
                 bad[i]);
        CHECK_EQ_STR(text, expected);
        free(text);
    }
    static const char *const good[] = {"1", "150", "2000", "3600000", ""};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *text = stderr_of_create(good[i]);
        CHECK_EQ_STR(text, "");
        free(text);
    }
    unsetenv("D12RT_TDR_DELAY_MS");
}

/* 232 for a removal that is no GPU fault: the driver's own error (D12RT_REFDRV_SET_ERROR=0x887A0020, CMake). */
static void test_message_text(void)
{
    ID3D12Device *device = create_debug_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    message_info info = {0};
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT,
                          "Device removal has been triggered for the following reason (DXGI_ERROR_DRIVER_INTERNAL_ERROR: "
                          "The driver encountered a problem and was put into the device removed state.)",
                          &info),
                 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_EXECUTION);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"fault_freed", test_fault_freed},
    {"fault_gap", test_fault_gap},
    {"fault_made_up", test_fault_made_up},
    {"overrun_no_fault", test_overrun_no_fault},
    {"hang", test_hang},
    {"long_no_hang", test_long_no_hang},
    {"wait_no_hang", test_wait_no_hang},
    {"queued_never_runs", test_queued_never_runs},
    {"destroy_flushes", test_destroy_flushes},
    {"threads_one_reason", test_threads_one_reason},
    {"tdr_delay_env", test_tdr_delay_env},
    {"message_text", test_message_text},
};

int main(int argc, char **argv)
{
    if (argc == 3) {
        g_type = !strcmp(argv[2], "compute") ? D3D12_COMMAND_LIST_TYPE_COMPUTE
                 : !strcmp(argv[2], "copy")  ? D3D12_COMMAND_LIST_TYPE_COPY
                                             : D3D12_COMMAND_LIST_TYPE_DIRECT;
    }
    for (size_t i = 0; argc >= 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_gpu CASE [direct|compute|copy] (unknown case)\n");
    return 2;
}
