/* d12conform, the flush.* tests: flush points, the runtime's side whatever the driver reports. (one file per area;
 * conform.h says how to add one). */
#include "conform.h"

/* Every flush.* test has one shape: a device with the feature enabled and a queue, list, fence and buffers on it
 * (enabled_gpu), the test's own steps and checks (its body), then everything released, the child's result. A body
 * returns false when it could not run (the test fails without a check of its own, as a failed enabled_gpu does);
 * a body that releases something itself leaves its pointer NULL (gpu_close skips it). */
typedef bool (*flush_body)(gpu *g, ID3D12Device *device);

static outcome on_enabled_gpu(flush_body body)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    bool ran = body(&g, device);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return ran ? g_result : FAIL;
}

/* Whether `act` made the runtime flush (a pfnFlushDriverReportedMessages record appeared during it). */
static bool flushes(void (*act)(gpu *), gpu *g)
{
    size_t before = count_now("pfnFlushDriverReportedMessages");
    act(g);
    return count_now("pfnFlushDriverReportedMessages") > before;
}

static void queue_wait(gpu *g)
{
    ID3D12CommandQueue_Wait(g->queue, g->fence, g->fence_value);
}

/* The trace's length now: where the records of what follows start. */
static size_t trace_mark(void)
{
    trace t = trace_read();
    size_t count = t.count;
    trace_free(&t);
    return count;
}

/* The index of the first record named `name` from `start` on, SIZE_MAX when none. */
static size_t first_from(const trace *t, size_t start, const char *name)
{
    for (size_t i = start; i < t->count; i++) {
        if (is(&t->r[i], name))
            return i;
    }
    return SIZE_MAX;
}

/* Work executed, completed and observed (signal and wait), so the next flush point has completed work to flush. */
static void completed_work(gpu *g)
{
    record_work(g);
    execute(g);
    signal_and_wait(g);
}

static bool b_on_execute(gpu *g, ID3D12Device *device)
{
    (void)device;
    completed_work(g);
    EXPECT(flushes(execute, g), "ExecuteCommandLists after completed work made no flush");
    signal_and_wait(g);
    return true;
}

static bool b_on_wait(gpu *g, ID3D12Device *device)
{
    (void)device;
    completed_work(g);
    EXPECT(flushes(queue_wait, g), "ID3D12CommandQueue::Wait after completed work made no flush");
    return true;
}

/* "never the submission being made": inside ExecuteCommandLists the flush precedes the submission's
 * pfnExecuteCommandLists. */
static bool b_not_current(gpu *g, ID3D12Device *device)
{
    (void)device;
    completed_work(g);
    size_t start = trace_mark();
    execute(g);
    trace t = trace_read();
    size_t flush_at = first_from(&t, start, "pfnFlushDriverReportedMessages");
    size_t execute_at = first_from(&t, start, "pfnExecuteCommandLists");
    EXPECT(flush_at != SIZE_MAX, "no flush was made");
    EXPECT(execute_at != SIZE_MAX && flush_at < execute_at, "the flush came after the submission reached the driver");
    trace_free(&t);
    signal_and_wait(g);
    return true;
}

/* "The flush itself is device-wide": work completed on queue A is flushed by a call on queue B. */
static bool b_device_wide(gpu *a, ID3D12Device *device)
{
    gpu b;
    if (!gpu_open(&b, device)) {
        gpu_close(&b);
        return false;
    }
    record_work(a);
    record_work(&b);
    execute(a);
    signal_and_wait(a);
    /* queue B has no completed work of its own */
    EXPECT(flushes(execute, &b), "queue B's ExecuteCommandLists did not flush queue A's completed work");
    signal_and_wait(&b);
    gpu_close(&b);
    return true;
}

/* "Queue destruction flushes unconditionally, including for submissions the GPU has not finished". */
static bool b_queue_destruction(gpu *g, ID3D12Device *device)
{
    (void)device;
    record_work(g);
    execute(g); /* never signalled */
    size_t start = trace_mark();
    ID3D12CommandQueue_Release(g->queue);
    g->queue = NULL;
    trace t = trace_read();
    EXPECT(first_from(&t, start, "pfnDestroyCommandQueue") != SIZE_MAX,
           "releasing the queue did not destroy the driver's queue");
    EXPECT(first_from(&t, start, "pfnFlushDriverReportedMessages") != SIZE_MAX, "releasing the queue made no flush");
    trace_free(&t);
    return true;
}

/* "It is invoked at most once per device, and only after a removal has been detected." Removal by executing an
 * open command list, then several calls that surface it; then the queue's destruction must not flush again. */
static bool b_removal_once(gpu *g, ID3D12Device *device)
{
    ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL); /* left open */
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(g);
    HRESULT reason = ID3D12Device_GetDeviceRemovedReason(device);
    EXPECT(FAILED(reason), "executing an open command list did not remove the device (reason 0x%08X)", (unsigned)reason);
    for (int i = 0; i < 3; i++) {
        ID3D12Device_GetDeviceRemovedReason(device);
        ID3D12Fence_GetCompletedValue(g->fence);
        execute(g);
    }
    size_t after = count_now("pfnFlushDriverReportedMessages");
    gpu_close(g);
    memset(g, 0, sizeof *g); /* closed here: on_enabled_gpu's gpu_close finds nothing left */
    EXPECT(after - before == 1, "%zu flushes after the removal (exactly one removal flush)", after - before);
    EXPECT(count_now("pfnFlushDriverReportedMessages") == after, "queue destruction flushed again after the removal flush");
    return true;
}

static outcome t_flush_on_execute(void) { return on_enabled_gpu(b_on_execute); }
static outcome t_flush_on_wait(void) { return on_enabled_gpu(b_on_wait); }
static outcome t_flush_not_current(void) { return on_enabled_gpu(b_not_current); }
static outcome t_flush_device_wide(void) { return on_enabled_gpu(b_device_wide); }
static outcome t_flush_queue_destruction(void) { return on_enabled_gpu(b_queue_destruction); }
static outcome t_flush_removal_once(void) { return on_enabled_gpu(b_removal_once); }

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
