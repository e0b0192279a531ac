/* A command queue's plumbing, the same in both drivers (drivers/common/README.md): the FIFO of operations in
 * submission order (EXECUTE, SIGNAL, WAIT), the one timeline thread that takes them, the reset rule (once the
 * engine was reset every later operation is dropped unrun, fence operations included), the fence operations passed
 * back through the kernel-thunk callbacks, and pfnReportGpuProgressCb. What an EXECUTE does with a recording is
 * each driver's own (the reference driver models it, the Vulkan driver submits it): a hook. Shared so that the
 * ordering and reset rules the runtime relies on cannot drift apart between the two drivers.
 *
 * A driver's queue object starts with a d12__drv_queue (the runtime's D3D12DDI_HCOMMANDQUEUE points at both), so
 * the DDI entry points below serve both drivers' queues. */
#ifndef D12_DRVCOMMON_QUEUE_H
#define D12_DRVCOMMON_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

#include "d12rt/d3d12ddi.h"

typedef struct d12__drv_queue d12__drv_queue;
typedef struct d12__drv_queue_op d12__drv_queue_op;

/* What the driver lends the queue. Called on the timeline thread, no driver lock held, except list_recording
 * (on the submitting thread). */
typedef struct d12__drv_queue_hooks {
    /* The list's current recording with a reference taken (NULL: none), for a submission. */
    void *(*list_recording)(D3D12DDI_HCOMMANDLIST list);
    /* Execute one recording. false: the engine was reset (the timeline drops everything queued after it). */
    bool (*execute)(d12__drv_queue *queue, void *recording);
    /* Drop the submission's reference on a recording (after it ran, or was dropped). */
    void (*release)(void *recording);
    /* Before an EXECUTE's recordings run, unless the engine was reset; NULL: nothing. */
    void (*before_execute)(d12__drv_queue *queue);
} d12__drv_queue_hooks;

struct d12__drv_queue {
    const d12__drv_queue_hooks *hooks;
    D3D12DDI_HRTDEVICE rt_device;
    D3D12DDI_HRTCOMMANDQUEUE rt_queue;
    const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks; /* the device's: pfnSetErrorCb */
    const D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt;           /* the device's: fences, progress */
    bool has_0127;                                           /* pfnReportGpuProgressCb may be called */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    d12__drv_queue_op *head, **tail; /* guarded by lock */
    bool stopping;                   /* guarded by lock: drain what is queued, then end */
    /* The timeline thread's own (no lock): */
    bool reset; /* the engine was reset (a fault, or the device is removed): every later operation is dropped */
};

/* Fill in `queue` (zeroed by the caller, hooks and the runtime's handles and callbacks set) and start its timeline.
 * E_OUTOFMEMORY when a lock or the thread cannot be created (nothing is left to destroy then). */
HRESULT d12__drv_queue_start(d12__drv_queue *queue);
/* Everything already submitted runs (unless the engine was reset); once the thread is joined nothing calls back
 * for this queue. */
void d12__drv_queue_stop(d12__drv_queue *queue);

/* pfnReportGpuProgressCb (build 0127; true without asking before it): false when the device is removed. */
bool d12__drv_report_progress(const D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt, bool has_0127,
                              D3D12DDI_HRTDEVICE rt_device, D3D12DDI_HRTCOMMANDQUEUE rt_queue,
                              D3D12DDI_GPU_PROGRESS_0127 what, D3D12DDI_HRTCOMMANDLIST list, UINT32 op_index);
bool d12__drv_queue_progress(d12__drv_queue *queue, D3D12DDI_GPU_PROGRESS_0127 what, D3D12DDI_HRTCOMMANDLIST list,
                             UINT32 op_index);

/* ExecuteCommandLists, SignalFence and WaitForFence of a queue object that starts with a d12__drv_queue (each
 * driver's D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 names them). Out of memory removes the device
 * (pfnSetErrorCb): losing a submission would break the fence order the runtime relies on. */
VOID APIENTRY d12__drv_execute_command_lists(D3D12DDI_HCOMMANDQUEUE handle, UINT count,
                                             const D3D12DDI_HCOMMANDLIST *lists);
VOID APIENTRY d12__drv_signal_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation);
VOID APIENTRY d12__drv_wait_for_fence(D3D12DDI_HCOMMANDQUEUE handle, const D3D12DDIARG_FENCE_OPERATION_0126 *operation);

#endif
