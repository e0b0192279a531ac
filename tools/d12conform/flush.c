/* d12conform, the flush.* tests: flush points, the runtime's side whatever the driver reports. (one file per area;
 * conform.h says how to add one). */
#include "conform.h"

static outcome t_flush_on_execute(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g); /* completed work, observed */
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&g);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "ExecuteCommandLists after completed work made no flush");
    signal_and_wait(&g);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

static outcome t_flush_on_wait(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g);
    size_t before = count_now("pfnFlushDriverReportedMessages");
    ID3D12CommandQueue_Wait(g.queue, g.fence, g.fence_value);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "ID3D12CommandQueue::Wait after completed work made no flush");
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "never the submission being made": inside ExecuteCommandLists the flush precedes the submission's
 * pfnExecuteCommandLists. */
static outcome t_flush_not_current(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g);
    trace t = trace_read();
    size_t start = t.count;
    trace_free(&t);
    execute(&g);
    t = trace_read();
    size_t flush_at = SIZE_MAX, execute_at = SIZE_MAX;
    for (size_t i = start; i < t.count; i++) {
        if (is(&t.r[i], "pfnFlushDriverReportedMessages") && flush_at == SIZE_MAX)
            flush_at = i;
        if (is(&t.r[i], "pfnExecuteCommandLists") && execute_at == SIZE_MAX)
            execute_at = i;
    }
    EXPECT(flush_at != SIZE_MAX, "no flush was made");
    EXPECT(execute_at != SIZE_MAX && flush_at < execute_at, "the flush came after the submission reached the driver");
    trace_free(&t);
    signal_and_wait(&g);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "The flush itself is device-wide": work completed on queue A is flushed by a call on queue B. */
static outcome t_flush_device_wide(void)
{
    gpu a, b;
    ID3D12Device *device;
    if (!enabled_gpu(&a, &device))
        return FAIL;
    if (!gpu_open(&b, device)) {
        gpu_close(&b);
        gpu_close(&a);
        ID3D12Device_Release(device);
        return FAIL;
    }
    record_work(&a);
    record_work(&b);
    execute(&a);
    signal_and_wait(&a);
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&b); /* queue B has no completed work of its own */
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "queue B's ExecuteCommandLists did not flush queue A's completed work");
    signal_and_wait(&b);
    gpu_close(&b);
    gpu_close(&a);
    ID3D12Device_Release(device);
    return g_result;
}

/* "Queue destruction flushes unconditionally, including for submissions the GPU has not finished". */
static outcome t_flush_queue_destruction(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g); /* never signalled */
    trace t = trace_read();
    size_t start = t.count;
    trace_free(&t);
    ID3D12CommandQueue_Release(g.queue);
    g.queue = NULL;
    t = trace_read();
    size_t destroyed = SIZE_MAX, flushed = SIZE_MAX;
    for (size_t i = start; i < t.count; i++) {
        if (is(&t.r[i], "pfnDestroyCommandQueue") && destroyed == SIZE_MAX)
            destroyed = i;
        if (is(&t.r[i], "pfnFlushDriverReportedMessages") && flushed == SIZE_MAX)
            flushed = i;
    }
    EXPECT(destroyed != SIZE_MAX, "releasing the queue did not destroy the driver's queue");
    EXPECT(flushed != SIZE_MAX, "releasing the queue made no flush");
    trace_free(&t);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "It is invoked at most once per device, and only after a removal has been detected." Removal by executing an
 * open command list, then several calls that surface it. */
static outcome t_flush_removal_once(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    ID3D12GraphicsCommandList_Reset(g.list, g.allocator, NULL); /* left open */
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&g);
    HRESULT reason = ID3D12Device_GetDeviceRemovedReason(device);
    EXPECT(FAILED(reason), "executing an open command list did not remove the device (reason 0x%08X)", (unsigned)reason);
    for (int i = 0; i < 3; i++) {
        ID3D12Device_GetDeviceRemovedReason(device);
        ID3D12Fence_GetCompletedValue(g.fence);
        execute(&g);
    }
    size_t after = count_now("pfnFlushDriverReportedMessages");
    gpu_close(&g);
    EXPECT(after - before == 1, "%zu flushes after the removal (exactly one removal flush)", after - before);
    EXPECT(count_now("pfnFlushDriverReportedMessages") == after, "queue destruction flushed again after the removal flush");
    ID3D12Device_Release(device);
    return g_result;
}

const conform_test conform_tests_flush[] = {
    {"flush.on_execute", "runtime", "The runtime issues it for a command queue during "
     "ID3D12CommandQueue::ExecuteCommandLists ... only for work the runtime has already observed to be complete",
     t_flush_on_execute},
    {"flush.on_wait", "runtime", "The runtime issues it for a command queue during ... ID3D12CommandQueue::Wait",
     t_flush_on_wait},
    {"flush.not_current_submission", "runtime", "A flush carries work that has already completed — never the "
     "submission being made", t_flush_not_current},
    {"flush.device_wide", "runtime", "The flush itself is device-wide rather than scoped to the queue that triggered it",
     t_flush_device_wide},
    {"flush.queue_destruction", "runtime", "Queue destruction flushes unconditionally, including for submissions the "
     "GPU has not finished", t_flush_queue_destruction},
    {"flush.removal_once", "runtime", "This device-removal flush ... is invoked at most once per device, and only after "
     "a removal has been detected.", t_flush_removal_once},
};
const size_t conform_tests_flush_count = sizeof conform_tests_flush / sizeof conform_tests_flush[0];
