/* GPU faults and hangs (tdr.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "d12_envnum.h"
#include "device.h"
#include "dred/dred.h"
#include "lockrank.h"
#include "queue.h"
#include "tdr.h"

struct d12_tdr {
    struct d12_device *device;
    pthread_t thread;
    pthread_mutex_t lock; /* a leaf: guards `stop` and pairs with `wake` */
    pthread_cond_t wake;  /* CLOCK_MONOTONIC */
    bool stop;
    uint64_t delay_ns, tick_ns;
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void d12__tdr_queue_init(d12_tdr_queue *state)
{
    atomic_init(&state->began_ns, 0);
    atomic_init(&state->list, NULL);
    atomic_init(&state->op_index, D3D12DDI_OP_INDEX_UNKNOWN);
}

uint32_t d12__tdr_delay_from_environment(FILE *err)
{
    uint64_t value = D12_TDR_DEFAULT_DELAY_MS;
    d12_env_number("D12RT_TDR_DELAY_MS", "a whole number of milliseconds", 1, D12_TDR_MAX_DELAY_MS, false, &value, err,
                   "d12rt", "using " D12_TDR_DEFAULT_DELAY_TEXT);
    return (uint32_t)value;
}

/* ---- The driver's callbacks ---- */

HRESULT d12__tdr_progress(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle,
                          const D3D12DDICB_GPUPROGRESS_0127 *progress)
{
    /* "once the device is removed for any reason: the engine was reset" (d3d12ddi.h): from the claim on, so the GPU
     * stops before DRED freezes its state. */
    if (d12__device_removal_claimed(device))
        return D3DDDIERR_DEVICEREMOVED;
    struct d12_command_queue *queue = d12__queue_find(device, handle);
    if (!queue)
        return E_INVALIDARG;
    d12_tdr_queue *state = &queue->tdr;
    switch (progress->Progress) {
    case D3D12DDI_GPU_PROGRESS_0127_OP_BEGIN:
        /* the command's names first, the clock last (release): the watchdog reads the clock, then the names */
        atomic_store_explicit(&state->began_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&state->list, progress->hRTCommandList.handle, memory_order_relaxed);
        atomic_store_explicit(&state->op_index, progress->OpIndex, memory_order_relaxed);
        atomic_store_explicit(&state->began_ns, now_ns() + 1, memory_order_release);
        break;
    case D3D12DDI_GPU_PROGRESS_0127_OP_SLICE:
        break; /* the same command: the clock keeps running */
    case D3D12DDI_GPU_PROGRESS_0127_IDLE:
        atomic_store_explicit(&state->began_ns, 0, memory_order_release);
        break;
    default:
        return E_INVALIDARG;
    }
    return d12__device_removal_claimed(device) ? D3DDDIERR_DEVICEREMOVED : S_OK;
}

/* The runtime list a driver named, when it is a live list of the device; NULL otherwise (DRED then knows no list). */
static struct d12_command_list *live_list(struct d12_device *device, void *handle)
{
    return handle ? d12__objtable_object(&device->objects, handle, D3D12DDI_HT_COMMAND_LIST) : NULL;
}

void d12__tdr_device_fault(struct d12_device *device, const D3D12DDICB_DEVICEFAULT_0127 *fault)
{
    d12_fault_info info = {.reason = DXGI_ERROR_DEVICE_HUNG, .op_index = D12_DRED_OP_INDEX_UNKNOWN};
    switch (fault->ExecutionState) {
    case D3D12DDI_DEVICE_EXECUTION_STATE_HUNG:
        info.state = D3D12_DRED_DEVICE_STATE_HUNG;
        break;
    case D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAFAULT:
        info.state = D3D12_DRED_DEVICE_STATE_FAULT;
        break;
    case D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT:
        info.state = D3D12_DRED_DEVICE_STATE_PAGEFAULT;
        info.fault_va = fault->FaultedVirtualAddress;
        info.fault_flags = fault->PageFaultFlags;
        break;
    default:
        d12__device_remove(device, DXGI_ERROR_DRIVER_INTERNAL_ERROR,
                           "the driver reported a device fault with an execution state that is no fault");
        return;
    }
    info.queue = d12__queue_find(device, fault->hRTCommandQueue);
    info.list = live_list(device, fault->hRTCommandList.handle);
    if (info.list)
        info.op_index = fault->OpIndex;
    d12__device_remove_fault(device, &info,
                             info.state == D3D12_DRED_DEVICE_STATE_PAGEFAULT ? "the GPU page-faulted"
                             : info.state == D3D12_DRED_DEVICE_STATE_HUNG ? "the driver reported a GPU hang"
                                                                          : "the GPU faulted");
}

/* ---- The watchdog ---- */

/* The queue whose current command began longest ago, if longer than the delay; its names copied out. */
static bool find_hung(struct d12_tdr *tdr, d12_fault_info *hung)
{
    struct d12_device *device = tdr->device;
    uint64_t now = now_ns();
    bool found = false;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue *queue = device->queues; queue && !found; queue = queue->next) {
        uint64_t began = atomic_load_explicit(&queue->tdr.began_ns, memory_order_acquire);
        /* A command that began after `now` was read (the children lock may have been waited for since) is not hung:
         * without the `now < began - 1` test the unsigned difference wrapped and removed the device at once. */
        if (!began || now < began - 1 || now - (began - 1) <= tdr->delay_ns)
            continue;
        void *list = atomic_load_explicit(&queue->tdr.list, memory_order_relaxed);
        uint32_t op_index = atomic_load_explicit(&queue->tdr.op_index, memory_order_relaxed);
        if (atomic_load_explicit(&queue->tdr.began_ns, memory_order_acquire) != began)
            continue; /* it moved on meanwhile: not hung */
        hung->queue = queue;
        hung->list = list;
        hung->op_index = op_index;
        found = true;
    }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    return found;
}

/* True when the watchdog is to stop (the device's last Release), after waiting one tick at most. */
static bool wait_tick(struct d12_tdr *tdr)
{
    uint64_t deadline = now_ns() + tdr->tick_ns;
    struct timespec until = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
    pthread_mutex_lock(&tdr->lock);
    while (!tdr->stop && pthread_cond_timedwait(&tdr->wake, &tdr->lock, &until) != ETIMEDOUT) {
    }
    bool stop = tdr->stop;
    pthread_mutex_unlock(&tdr->lock);
    return stop;
}

static void *watch(void *argument)
{
    struct d12_tdr *tdr = argument;
    while (!wait_tick(tdr)) {
        if (d12__device_removal_claimed(tdr->device))
            break; /* nothing left to watch: the engines were reset */
        d12_fault_info hung = {.reason = DXGI_ERROR_DEVICE_HUNG, .state = D3D12_DRED_DEVICE_STATE_HUNG};
        if (!find_hung(tdr, &hung))
            continue;
        hung.list = live_list(tdr->device, hung.list);
        if (!hung.list)
            hung.op_index = D12_DRED_OP_INDEX_UNKNOWN;
        d12__device_remove_fault(tdr->device, &hung,
                                 "TDR: a command executed longer than the TDR delay (D12RT_TDR_DELAY_MS)");
        break;
    }
    return NULL;
}

void d12__tdr_start(struct d12_device *device)
{
    if (!d12__driver_adapter_has_0127(d12__driver_device_adapter(device->driver)))
        return; /* a driver before build 0127 reports no progress (docs/dred-gpu.md) */
    if (atomic_load(&device->tdr))
        return; /* started with an earlier queue */
    struct d12_tdr *tdr = calloc(1, sizeof *tdr);
    if (!tdr)
        return; /* out of memory: this device has no watchdog, which is what a pre-0127 driver gets */
    tdr->device = device;
    tdr->delay_ns = (uint64_t)device->tdr_delay_ms * 1000000ull;
    /* an eighth of the delay, 1 to 100 ms: a hang is found within delay + tick */
    tdr->tick_ns = tdr->delay_ns / 8;
    if (tdr->tick_ns < 1000000ull)
        tdr->tick_ns = 1000000ull;
    if (tdr->tick_ns > 100000000ull)
        tdr->tick_ns = 100000000ull;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&tdr->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    pthread_mutex_init(&tdr->lock, NULL);
    struct d12_tdr *expected = NULL;
    if (!atomic_compare_exchange_strong(&device->tdr, &expected, tdr) ||
        pthread_create(&tdr->thread, NULL, watch, tdr) != 0) {
        if (expected == NULL) /* we published it but could not start the thread */
            atomic_store(&device->tdr, NULL);
        pthread_cond_destroy(&tdr->wake);
        pthread_mutex_destroy(&tdr->lock);
        free(tdr);
    }
}

void d12__tdr_stop(struct d12_device *device)
{
    struct d12_tdr *tdr = atomic_exchange(&device->tdr, NULL);
    if (!tdr)
        return;
    pthread_mutex_lock(&tdr->lock);
    tdr->stop = true;
    pthread_cond_signal(&tdr->wake);
    pthread_mutex_unlock(&tdr->lock);
    if (pthread_equal(pthread_self(), tdr->thread)) {
        /* the last Release came from inside the watchdog's own removal (an application's message callback): it
         * cannot join itself; it ends once the callback returns */
        pthread_detach(tdr->thread);
        return; /* the struct stays allocated for the detached thread: a one-time leak on an odd path */
    }
    pthread_join(tdr->thread, NULL);
    pthread_cond_destroy(&tdr->wake);
    pthread_mutex_destroy(&tdr->lock);
    free(tdr);
}
