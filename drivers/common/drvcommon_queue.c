/* A command queue's plumbing, shared by both drivers (drvcommon_queue.h says what it owns and why): one thread per
 * queue plays the GPU's timeline, taking operations from a FIFO in submission order: EXECUTE (the recordings of
 * the submitted lists, referenced at submission), SIGNAL and WAIT (fence operations passed back through the
 * runtime's pKTCallbacks, which is the kernel for fences here). Everything an EXECUTE finds is queued on the device
 * before the timeline takes the next operation, so a SIGNAL passed back after it tells the runtime that a flush will
 * deliver those findings. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "drvcommon_queue.h"

typedef enum op_type {
    OP_EXECUTE,
    OP_SIGNAL,
    OP_WAIT,
} op_type;

struct d12__drv_queue_op {
    struct d12__drv_queue_op *next;
    op_type type;
    D3D12DDIARG_FENCE_OPERATION_0126 fence;
    UINT count;
    void *recordings[]; /* EXECUTE: count references */
};

static d12__drv_queue *queue_of(D3D12DDI_HCOMMANDQUEUE handle)
{
    return (d12__drv_queue *)handle.pDrvPrivate;
}

bool d12__drv_report_progress(const D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt, bool has_0127,
                              D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HRTCOMMANDQUEUE rt_queue,
                              D3D12DDI_GPU_PROGRESS_0127 what, D3D12DDI_HRTCOMMANDLIST list, UINT32 op_index)
{
    if (!has_0127)
        return true; /* a runtime before build 0127 cannot be asked */
    D3D12DDICB_GPUPROGRESS_0127 report = {what, list, op_index};
    return SUCCEEDED(kt->pfnReportGpuProgressCb(rt_device, rt_queue, &report));
}

bool d12__drv_queue_progress(d12__drv_queue *queue, D3D12DDI_GPU_PROGRESS_0127 what, D3D12DDI_HRTCOMMANDLIST list,
                             UINT32 op_index)
{
    return d12__drv_report_progress(queue->kt, queue->has_0127, queue->rt_device, queue->rt_queue, what, list,
                                    op_index);
}

/* The engine stops executing commands: OP_BEGIN of the next command, or IDLE before a fence operation or after a
 * submission, tells the runtime's watchdog (build 0127); false once the device is removed. */
static bool still_running(d12__drv_queue *queue)
{
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    if (!queue->reset && !d12__drv_queue_progress(queue, D3D12DDI_GPU_PROGRESS_0127_IDLE, none,
                                                  D3D12DDI_OP_INDEX_UNKNOWN))
        queue->reset = true;
    return !queue->reset;
}

/* No driver lock is held while calling back: the runtime's callbacks may block (a wait) or re-enter. Once the
 * engine was reset (pfnDeviceFaultCb, or pfnReportGpuProgressCb answering that the device is removed) every
 * operation is dropped unrun, fence operations included: "drops all work queued after it" (d3d12ddi.h). */
static void run(d12__drv_queue *queue, d12__drv_queue_op *op)
{
    switch (op->type) {
    case OP_EXECUTE:
        if (!queue->reset && queue->hooks->before_execute)
            queue->hooks->before_execute(queue);
        for (UINT i = 0; i < op->count && !queue->reset; i++) {
            if (!queue->hooks->execute(queue, op->recordings[i]))
                queue->reset = true;
        }
        for (UINT i = 0; i < op->count; i++)
            queue->hooks->release(op->recordings[i]);
        still_running(queue);
        break;
    case OP_SIGNAL:
        if (still_running(queue))
            queue->kt->pfnSignalFenceFromGpuCb(queue->rt_device, queue->rt_queue, &op->fence);
        break;
    case OP_WAIT:
        /* S_OK: satisfied; E_ABORT: the runtime abandoned the wait (queue destruction, removal): carry on. */
        if (still_running(queue))
            queue->kt->pfnWaitForFenceFromGpuCb(queue->rt_device, queue->rt_queue, &op->fence);
        break;
    }
    free(op);
}

static void *timeline(void *argument)
{
    d12__drv_queue *queue = argument;
    for (;;) {
        pthread_mutex_lock(&queue->lock);
        while (!queue->head && !queue->stopping)
            pthread_cond_wait(&queue->wake, &queue->lock);
        d12__drv_queue_op *op = queue->head;
        if (op) {
            queue->head = op->next;
            if (!queue->head)
                queue->tail = &queue->head;
        }
        pthread_mutex_unlock(&queue->lock);
        if (!op)
            return NULL; /* stopping, and everything submitted has run */
        run(queue, op);
    }
}

static void submit(d12__drv_queue *queue, d12__drv_queue_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&queue->lock);
    *queue->tail = op;
    queue->tail = &op->next;
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->lock);
}

/* Losing a submission would break the fence order the runtime relies on: out of memory removes the device. */
static d12__drv_queue_op *new_op(d12__drv_queue *queue, op_type type, UINT count)
{
    d12__drv_queue_op *op = calloc(1, sizeof *op + count * sizeof op->recordings[0]);
    if (!op)
        queue->callbacks->pfnSetErrorCb(queue->rt_device, E_OUTOFMEMORY);
    else
        op->type = type;
    return op;
}

VOID APIENTRY d12__drv_execute_command_lists(D3D12DDI_HCOMMANDQUEUE handle, UINT count,
                                             const D3D12DDI_HCOMMANDLIST *lists)
{
    d12__drv_queue *queue = queue_of(handle);
    d12__drv_queue_op *op = new_op(queue, OP_EXECUTE, count);
    if (!op)
        return;
    for (UINT i = 0; i < count; i++) {
        void *recording = queue->hooks->list_recording(lists[i]);
        if (recording) /* none: its Reset ran out of memory and the runtime's Close failed */
            op->recordings[op->count++] = recording;
    }
    submit(queue, op);
}

static void fence_operation(D3D12DDI_HCOMMANDQUEUE handle, op_type type,
                            const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    d12__drv_queue_op *op = new_op(queue_of(handle), type, 0);
    if (!op)
        return;
    op->fence = *operation;
    submit(queue_of(handle), op);
}

VOID APIENTRY d12__drv_signal_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_operation(handle, OP_SIGNAL, operation);
}

VOID APIENTRY d12__drv_wait_for_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_operation(handle, OP_WAIT, operation);
}

HRESULT d12__drv_queue_start(d12__drv_queue *queue)
{
    queue->head = NULL;
    queue->tail = &queue->head;
    queue->stopping = false;
    queue->reset = false;
    if (pthread_mutex_init(&queue->lock, NULL) != 0)
        return E_OUTOFMEMORY;
    if (pthread_cond_init(&queue->wake, NULL) != 0) {
        pthread_mutex_destroy(&queue->lock);
        return E_OUTOFMEMORY;
    }
    if (pthread_create(&queue->thread, NULL, timeline, queue) != 0) {
        pthread_cond_destroy(&queue->wake);
        pthread_mutex_destroy(&queue->lock);
        return E_OUTOFMEMORY;
    }
    return S_OK;
}

/* Its waits may be abandoned by the runtime with E_ABORT; on a removed device nothing queued runs. */
void d12__drv_queue_stop(d12__drv_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->stopping = true;
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->lock);
    pthread_join(queue->thread, NULL);
    pthread_cond_destroy(&queue->wake);
    pthread_mutex_destroy(&queue->lock);
}
