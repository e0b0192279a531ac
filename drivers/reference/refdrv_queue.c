/* The reference driver's command queues: the FIFO of EXECUTE, SIGNAL and WAIT and the one timeline thread per queue
 * are both drivers' (drivers/common/drvcommon_queue.c); an EXECUTE runs each recording through the model of
 * refdrv_execute.c, after D12RT_REFDRV_EXEC_DELAY_MS. Everything an EXECUTE finds is queued on the device before
 * the timeline takes the next operation, so a SIGNAL passed back after it tells the runtime that a flush will
 * deliver those findings. */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <string.h>
#include <time.h>

#include "drvcommon_queue.h"
#include "refdrv_gpu.h"

typedef struct d12__refdrv_queue {
    d12__drv_queue common; /* first: the FIFO and the timeline thread (drivers/common/drvcommon_queue.h) */
    d12__refdrv_device *device;
    /* The timeline thread's own (no lock): */
    d12__refdrv_timeline timeline;
} d12__refdrv_queue;
_Static_assert(offsetof(d12__refdrv_queue, common) == 0, "the shared queue entry points take the handle as theirs");

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

/* D12RT_REFDRV_EXEC_DELAY_MS: each submission starts that much later. */
static void before_execute(d12__drv_queue *common)
{
    d12__refdrv_queue *queue = (d12__refdrv_queue *)common;
    if (queue->device->exec_delay_ms)
        sleep_ms(queue->device->exec_delay_ms);
}

static bool execute(d12__drv_queue *common, void *recording)
{
    return d12__refdrv_execute(&((d12__refdrv_queue *)common)->timeline, recording);
}

static void *list_recording(D3D12DDI_HCOMMANDLIST list)
{
    return d12__refdrv_list_recording(list);
}

static void release(void *recording)
{
    d12__refdrv_recording_release(recording);
}

static const d12__drv_queue_hooks hooks = {list_recording, execute, release, before_execute};

const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 d12__refdrv_command_queue_funcs = {
    d12__drv_execute_command_lists, d12__drv_signal_fence, d12__drv_wait_for_fence};

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
    queue->timeline.device = device;
    queue->timeline.rt_queue = rt_queue;
    queue->common = (d12__drv_queue){.hooks = &hooks,
                                     .rt_device = device->rt_device,
                                     .rt_queue = rt_queue,
                                     .callbacks = &device->callbacks,
                                     .kt = &device->kt,
                                     .has_0127 = device->has_0127};
    return d12__drv_queue_start(&queue->common);
}

/* Everything already submitted runs (its waits may be abandoned by the runtime with E_ABORT), unless the engine
 * was reset: on a removed device nothing queued runs; once the thread is joined nothing calls back for this queue. */
VOID APIENTRY d12__refdrv_destroy_queue(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDQUEUE handle)
{
    (void)device;
    d12__drv_queue_stop(&queue_of(handle)->common);
}
