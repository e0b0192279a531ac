/* The reference driver's command queues: one thread per queue plays the GPU's timeline, taking operations
 * from a FIFO in submission order: EXECUTE (the recordings of the submitted lists, referenced at submission),
 * SIGNAL and WAIT (fence operations passed back through the runtime's pKTCallbacks, which is the kernel for
 * fences here). Everything an EXECUTE finds is queued on the device before the timeline takes the next
 * operation, so a SIGNAL passed back after it tells the runtime that a flush will deliver those findings. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "refdrv_gpu.h"

typedef enum op_type {
    OP_EXECUTE,
    OP_SIGNAL,
    OP_WAIT,
} op_type;

typedef struct queue_op {
    struct queue_op *next;
    op_type type;
    D3D12DDIARG_FENCE_OPERATION_0126 fence;
    UINT count;
    d12__refdrv_recording *recordings[]; /* EXECUTE: count references */
} queue_op;

typedef struct d12__refdrv_queue {
    d12__refdrv_device *device;
    D3D12DDI_HRTCOMMANDQUEUE rt_queue;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    queue_op *head, **tail; /* guarded by lock */
    bool stopping;          /* guarded by lock: drain what is queued, then end */
    /* The timeline thread's own (no lock): */
    d12__refdrv_timeline timeline;
    bool reset; /* the engine was reset (a fault, or the device is removed): every later operation is dropped */
} d12__refdrv_queue;

static d12__refdrv_queue *queue_of(D3D12DDI_HCOMMANDQUEUE handle)
{
    return (d12__refdrv_queue *)handle.pDrvPrivate;
}

static void sleep_ms(unsigned ms)
{
    struct timespec delay = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
}

static void release_recordings(queue_op *op)
{
    for (UINT i = 0; i < op->count; i++)
        d12__refdrv_recording_release(op->recordings[i]);
}

/* The engine stops executing commands: OP_BEGIN of the next command, or IDLE before a fence operation or after a
 * submission, tells the runtime's watchdog (build 0127); false once the device is removed. */
static bool still_running(d12__refdrv_queue *queue)
{
    D3D12DDI_HRTCOMMANDLIST none = {NULL};
    if (!queue->reset && !d12__refdrv_progress(&queue->timeline, D3D12DDI_GPU_PROGRESS_0127_IDLE, none,
                                               D3D12DDI_OP_INDEX_UNKNOWN))
        queue->reset = true;
    return !queue->reset;
}

/* No driver lock is held while calling back: the runtime's callbacks may block (a wait) or re-enter. Once the
 * engine was reset (pfnDeviceFaultCb, or pfnReportGpuProgressCb answering that the device is removed) every
 * operation is dropped unrun, fence operations included: "drops all work queued after it" (d3d12ddi.h). */
static void run(d12__refdrv_queue *queue, queue_op *op)
{
    d12__refdrv_device *device = queue->device;
    switch (op->type) {
    case OP_EXECUTE:
        if (!queue->reset && device->exec_delay_ms)
            sleep_ms(device->exec_delay_ms);
        for (UINT i = 0; i < op->count && !queue->reset; i++) {
            if (!d12__refdrv_execute(&queue->timeline, op->recordings[i]))
                queue->reset = true;
        }
        release_recordings(op);
        still_running(queue);
        break;
    case OP_SIGNAL:
        if (still_running(queue))
            device->kt.pfnSignalFenceFromGpuCb(device->rt_device, queue->rt_queue, &op->fence);
        break;
    case OP_WAIT:
        /* S_OK: satisfied; E_ABORT: the runtime abandoned the wait (queue destruction, removal): carry on. */
        if (still_running(queue))
            device->kt.pfnWaitForFenceFromGpuCb(device->rt_device, queue->rt_queue, &op->fence);
        break;
    }
    free(op);
}

static void *timeline(void *argument)
{
    d12__refdrv_queue *queue = argument;
    for (;;) {
        pthread_mutex_lock(&queue->lock);
        while (!queue->head && !queue->stopping)
            pthread_cond_wait(&queue->wake, &queue->lock);
        queue_op *op = queue->head;
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

static void submit(d12__refdrv_queue *queue, queue_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&queue->lock);
    *queue->tail = op;
    queue->tail = &op->next;
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->lock);
}

/* Losing a submission would break the fence order the runtime relies on: out of memory removes the device. */
static queue_op *new_op(d12__refdrv_queue *queue, op_type type, UINT count)
{
    queue_op *op = calloc(1, sizeof *op + count * sizeof op->recordings[0]);
    if (!op)
        queue->device->callbacks.pfnSetErrorCb(queue->device->rt_device, E_OUTOFMEMORY);
    else
        op->type = type;
    return op;
}

static VOID APIENTRY execute_command_lists(D3D12DDI_HCOMMANDQUEUE handle, UINT count,
                                           const D3D12DDI_HCOMMANDLIST *lists)
{
    d12__refdrv_queue *queue = queue_of(handle);
    queue_op *op = new_op(queue, OP_EXECUTE, count);
    if (!op)
        return;
    for (UINT i = 0; i < count; i++) {
        d12__refdrv_recording *recording = d12__refdrv_list_recording(lists[i]);
        if (recording) /* none: its Reset ran out of memory and the runtime's Close failed */
            op->recordings[op->count++] = recording;
    }
    submit(queue, op);
}

static void fence_operation(D3D12DDI_HCOMMANDQUEUE handle, op_type type,
                            const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    queue_op *op = new_op(queue_of(handle), type, 0);
    if (!op)
        return;
    op->fence = *operation;
    submit(queue_of(handle), op);
}

static VOID APIENTRY signal_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_operation(handle, OP_SIGNAL, operation);
}

static VOID APIENTRY wait_for_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_operation(handle, OP_WAIT, operation);
}

const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 d12__refdrv_command_queue_funcs = {
    execute_command_lists, signal_fence, wait_for_fence};

SIZE_T APIENTRY d12__refdrv_calc_private_queue_size(D3D12DDI_HDEVICE device,
                                                    const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_queue);
}

HRESULT APIENTRY d12__refdrv_create_queue(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args,
                                          D3D12DDI_HCOMMANDQUEUE queue_handle, D3D12DDI_HRTCOMMANDQUEUE rt_queue)
{
    d12__refdrv_device *device = (d12__refdrv_device *)handle.pDrvPrivate;
    d12__refdrv_queue *queue = queue_of(queue_handle);
    /* Without the fence callbacks a queue could never pass a signal back: a runtime too old for GPU work. */
    if (!args || !queue || !device->has_kt)
        return E_INVALIDARG;
    memset(queue, 0, sizeof *queue);
    queue->device = device;
    queue->rt_queue = rt_queue;
    queue->timeline.device = device;
    queue->timeline.rt_queue = rt_queue;
    queue->tail = &queue->head;
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

/* Everything already submitted runs (its waits may be abandoned by the runtime with E_ABORT), unless the engine
 * was reset: on a removed device nothing queued runs; once the thread is joined nothing calls back for this queue. */
VOID APIENTRY d12__refdrv_destroy_queue(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDQUEUE handle)
{
    (void)device;
    d12__refdrv_queue *queue = queue_of(handle);
    pthread_mutex_lock(&queue->lock);
    queue->stopping = true;
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->lock);
    pthread_join(queue->thread, NULL);
    pthread_cond_destroy(&queue->wake);
    pthread_mutex_destroy(&queue->lock);
}
