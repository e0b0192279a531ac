/* ID3D12CommandQueue (queue.h). */
#include <stdlib.h>
#include <string.h>

#include "correlation.h"
#include "d12_messages.h"
#include "device.h"
#include "dred/dred.h"
#include "fence.h"
#include "flush.h"
#include "foreign.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"
#include "retention.h"

typedef enum { OPERATION_SIGNAL, OPERATION_WAIT } operation_kind;

/* A fence operation submitted to the driver and not passed back yet; it holds its fence (d12__fence_hold). */
struct d12_queue_operation {
    operation_kind kind;
    struct d12_fence *fence;
    UINT64 value;
    uint64_t serial; /* ExecuteCommandLists calls before it on this queue */
    struct d12_queue_operation *next;
    d12_fence_gpu_wait wait; /* OPERATION_WAIT: pending on the fence from submission on */
};

static const char *const k_operation_names[] = {"Signal", "Wait"};

/* ---- Fence operations ---- */

static void append_operation(struct d12_command_queue *queue, struct d12_queue_operation *operation)
{
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    operation->serial = queue->submitted;
    *queue->operations_tail = operation;
    queue->operations_tail = &operation->next;
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
}

/* Take the oldest pending operation that matches what the driver passed back. The driver passes them back in
 * submission order; matching by content (not just the head) keeps two application threads racing Signal calls on
 * one queue from looking like a broken driver. NULL: the queue never submitted it. */
static struct d12_queue_operation *take_operation(struct d12_command_queue *queue, operation_kind kind,
                                                  const D3D12DDIARG_FENCE_OPERATION_0126 *passed)
{
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    struct d12_queue_operation *found = NULL;
    for (struct d12_queue_operation **link = &queue->operations; *link; link = &(*link)->next) {
        struct d12_queue_operation *operation = *link;
        if (operation->kind == kind && d12__fence_rt_handle(operation->fence).handle == passed->hRTFence.handle &&
            operation->value == passed->Value) {
            *link = operation->next;
            if (queue->operations_tail == &operation->next)
                queue->operations_tail = link;
            found = operation;
            break;
        }
    }
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
    return found;
}

struct d12_command_queue *d12__queue_find(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    struct d12_command_queue *queue = device->queues;
    while (queue && d12__device_child_rt_handle(&queue->device_child) != handle.handle) /* a serial: never stale */
        queue = queue->next;
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    return queue;
}

static struct d12_queue_operation *reached(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle,
                                           operation_kind kind, const D3D12DDIARG_FENCE_OPERATION_0126 *passed,
                                           struct d12_command_queue **queue)
{
    *queue = d12__queue_find(device, handle);
    struct d12_queue_operation *operation = *queue ? take_operation(*queue, kind, passed) : NULL;
    if (!operation) {
        d12__msg_driver_fence_operation_mismatch(device->info_queue, d12__driver_adapter_name(
                                                 d12__driver_device_adapter(device->driver)),
                                                 k_operation_names[kind], (unsigned long long)passed->Value);
        d12__device_remove(device, DXGI_ERROR_DRIVER_INTERNAL_ERROR, "the driver passed back an unknown fence operation");
    }
    return operation;
}

HRESULT d12__queue_signal_reached(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle,
                                  const D3D12DDIARG_FENCE_OPERATION_0126 *passed)
{
    struct d12_command_queue *queue;
    struct d12_queue_operation *operation = reached(device, handle, OPERATION_SIGNAL, passed, &queue);
    if (!operation)
        return E_INVALIDARG;
    /* The completion mark first, the application's fence second: "The runtime's completion mark for a submission is
     * published no later than the application's own Signal after it". */
    uint64_t mark = atomic_load(&queue->completed);
    while (mark < operation->serial && !atomic_compare_exchange_weak(&queue->completed, &mark, operation->serial))
        ;
    d12__flush_note_completion(device);
    d12__fence_set(operation->fence, operation->value, queue);
    d12__fence_unhold(operation->fence);
    free(operation);
    return S_OK;
}

HRESULT d12__queue_wait_reached(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle,
                                const D3D12DDIARG_FENCE_OPERATION_0126 *passed)
{
    struct d12_command_queue *queue;
    struct d12_queue_operation *operation = reached(device, handle, OPERATION_WAIT, passed, &queue);
    if (!operation)
        return E_INVALIDARG;
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    queue->blocked_wait = operation; /* DRED: a removal reports the Wait the GPU is blocked in */
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
    bool done = d12__fence_gpu_wait_end(operation->fence, &operation->wait, &queue->destroying);
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    queue->blocked_wait = NULL;
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
    d12__fence_unhold(operation->fence);
    free(operation);
    return done ? S_OK : E_ABORT;
}

/* Submit a fence operation: recorded before the driver sees it, so the callback always finds it. */
static HRESULT submit_operation(struct d12_command_queue *queue, operation_kind kind, ID3D12Fence *api_fence,
                                UINT64 value)
{
    struct d12_device *device = queue->device_child.device;
    HRESULT hr = d12__device_removed(device);
    if (FAILED(hr))
        return hr;
    struct d12_fence *fence = d12__fence_unwrap(api_fence);
    if (!fence) {
        d12__msg_create_invalid_argument(device->info_queue, kind == OPERATION_SIGNAL ? "ID3D12CommandQueue::Signal"
                                         : "ID3D12CommandQueue::Wait", "pFence is NULL or not a d12rt fence");
        return E_INVALIDARG;
    }
    if (d12__foreign(device, fence->device_child.device, kind == OPERATION_SIGNAL ? "ID3D12CommandQueue::Signal"
                     : "ID3D12CommandQueue::Wait", "pFence", "nothing is queued; returning E_INVALIDARG"))
        return E_INVALIDARG;
    if (kind == OPERATION_WAIT)
        d12__flush_completed(device); /* "from within ... ID3D12CommandQueue::Wait" */
    struct d12_queue_operation *operation = malloc(sizeof *operation);
    if (!operation)
        return E_OUTOFMEMORY;
    *operation = (struct d12_queue_operation){kind, fence, value, 0, NULL, {0}};
    d12__fence_hold(fence);
    if (kind == OPERATION_WAIT)
        d12__fence_gpu_wait_begin(fence, &operation->wait, value); /* pending from now, not from when it is reached */
    append_operation(queue, operation);
    D3D12DDIARG_FENCE_OPERATION_0126 args = {d12__fence_rt_handle(fence), value};
    if (kind == OPERATION_SIGNAL)
        queue->gpu->queue.pfnSignalFence(queue->handle, &args);
    else
        queue->gpu->queue.pfnWaitForFence(queue->handle, &args);
    return S_OK;
}

HRESULT d12_command_queue_Signal(struct d12_command_queue *self, ID3D12Fence *pFence, UINT64 Value)
{
    return submit_operation(self, OPERATION_SIGNAL, pFence, Value);
}

HRESULT d12_command_queue_Wait(struct d12_command_queue *self, ID3D12Fence *pFence, UINT64 Value)
{
    return submit_operation(self, OPERATION_WAIT, pFence, Value);
}

D3D12_COMMAND_QUEUE_DESC d12_command_queue_GetDesc(struct d12_command_queue *self)
{
    return self->desc;
}

/* ---- ExecuteCommandLists ---- */

/* The lists behind the interfaces, all closed, of the queue's type and recorded without error; otherwise NULL with
 * the debug layer told why (an open list also removes the device). */
static bool check_lists(struct d12_command_queue *queue, UINT count, ID3D12CommandList *const *api_lists,
                        struct d12_command_list **lists)
{
    struct d12_device *device = queue->device_child.device;
    for (UINT i = 0; i < count; i++) {
        struct d12_command_list *list = d12__command_list_unwrap(api_lists ? api_lists[i] : NULL);
        if (list && list->type == D3D12_COMMAND_LIST_TYPE_BUNDLE) {
            d12__msg_executecommandlists_bundlenotsupported(device->info_queue, i); /* only through ExecuteBundle */
            return false;
        }
        if (!list || list->type != queue->desc.Type) {
            d12__msg_executecommandlists_commandlistmismatch(device->info_queue, i, list ? (int)list->type : -1,
                                                             (int)queue->desc.Type);
            return false;
        }
        if (d12__foreign(device, list->device_child.device, "ID3D12CommandQueue::ExecuteCommandLists",
                         "a command list", "nothing is submitted"))
            return false;
        if (atomic_load(&list->open)) {
            /* d3d12-semantics.md 4.8: "Executing a command list that is still recording -> device removed,
             * GetDeviceRemovedReason = DXGI_ERROR_INVALID_CALL". */
            d12__msg_executecommandlists_opencommandlist(device->info_queue, i);
            d12__device_remove(device, DXGI_ERROR_INVALID_CALL, "ExecuteCommandLists was given an open command list");
            return false;
        }
        HRESULT error = atomic_load(&list->error);
        if (FAILED(error)) {
            d12__msg_executecommandlists_failedcommandlist(device->info_queue, i, (unsigned)error);
            return false;
        }
        lists[i] = list;
    }
    return true;
}

#define D12_ECL_STACK_LISTS 16

static void submit_lists(struct d12_command_queue *queue, UINT count, struct d12_command_list *const *lists)
{
    D3D12DDI_HCOMMANDLIST stack[D12_ECL_STACK_LISTS];
    d12_recording *held_stack[D12_ECL_STACK_LISTS];
    D3D12DDI_HCOMMANDLIST *handles = count <= D12_ECL_STACK_LISTS ? stack : malloc(count * sizeof *handles);
    bool correlate = queue->device_child.device->correlation != NULL;
    d12_recording **held = !correlate || count <= D12_ECL_STACK_LISTS ? held_stack : malloc(count * sizeof *held);
    if (!handles || !held) {
        if (handles != stack)
            free(handles);
        return; /* out of memory: ExecuteCommandLists has no way to say so; nothing is submitted */
    }
    for (UINT i = 0; i < count; i++)
        handles[i] = lists[i]->handle;
    /* The recordings are the lists' own until the submission is counted (the application may not Reset a list
     * inside its submission); one whose blocks were all evicted (or that took none) is not held. */
    UINT holds = correlate ? d12__retention_holdable(count, lists, held) : 0;
    struct d12_dred_submission *dred = d12__dred_submit_begin(queue, count, lists); /* DRED: outstanding lists */
    queue->gpu->queue.pfnExecuteCommandLists(queue->handle, count, handles);
    /* Counted only once the driver has it: a Signal's serial (taken when it is appended) then never covers a
     * submission that reaches the driver after that Signal, so no flush retires work that has not run. */
    struct d12_submission *dropped;
    uint64_t serial = d12__retention_record(queue, holds, held, &dropped);
    d12__dred_submit_end(queue, dred, serial);
    for (UINT i = 0; i < count; i++) /* their allocators' work is in flight (COMMAND_ALLOCATOR_SYNC, list.c) */
        d12__command_list_mark_in_flight(lists[i], queue, serial);
    d12__retention_drop(queue, dropped);
    if (handles != stack)
        free(handles);
    if (held != held_stack)
        free(held);
}

void d12_command_queue_ExecuteCommandLists(struct d12_command_queue *self, UINT NumCommandLists,
                                           ID3D12CommandList *const *ppCommandLists)
{
    struct d12_device *device = self->device_child.device;
    /* A removed device takes no work. ExecuteCommandLists returns nothing, so it does not surface the removal
     * (that is the removal flush's trigger, flush.h). */
    if (d12__device_is_removed(device) || NumCommandLists == 0)
        return;
    struct d12_command_list *stack[D12_ECL_STACK_LISTS];
    struct d12_command_list **lists = NumCommandLists <= D12_ECL_STACK_LISTS ? stack
                                      : malloc(NumCommandLists * sizeof *lists);
    if (!lists)
        return;
    if (check_lists(self, NumCommandLists, ppCommandLists, lists)) {
        /* "A flush carries work that has already completed — never the submission being made" */
        d12__flush_completed(device);
        submit_lists(self, NumCommandLists, lists);
    }
    if (lists != stack)
        free(lists);
}

/* ---- DRED (runtime/dred/report.c) ---- */

void d12__queue_for_each_wait(struct d12_command_queue *queue,
                              void (*visit)(void *context, struct d12_fence *fence, UINT64 value), void *context)
{
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    if (queue->blocked_wait)
        visit(context, queue->blocked_wait->fence, queue->blocked_wait->value);
    for (struct d12_queue_operation *operation = queue->operations; operation; operation = operation->next)
        if (operation->kind == OPERATION_WAIT)
            visit(context, operation->fence, operation->value);
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
}

void d12__queue_for_each_operation(struct d12_command_queue *queue,
                                   void (*visit)(void *context, bool wait, struct d12_fence *fence, UINT64 value,
                                                 uint64_t serial),
                                   void *context)
{
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    if (queue->blocked_wait)
        visit(context, true, queue->blocked_wait->fence, queue->blocked_wait->value, queue->blocked_wait->serial);
    for (struct d12_queue_operation *operation = queue->operations; operation; operation = operation->next)
        visit(context, operation->kind == OPERATION_WAIT, operation->fence, operation->value, operation->serial);
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
}

/* ---- Lifetime ---- */

ULONG d12_command_queue_AddRef(struct d12_command_queue *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void link_queue(struct d12_device *device, struct d12_command_queue *queue)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    queue->next = device->queues;
    device->queues = queue;
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

/* The queue leaves the device's list; its retention records (its work has all run or been dropped by now) become the
 * device's orphans, kept while a flush in progress may deliver their findings (retention.c). */
static void unlink_queue(struct d12_device *device, struct d12_command_queue *queue)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue **link = &device->queues; *link; link = &(*link)->next) {
        if (*link == queue) {
            *link = queue->next;
            break;
        }
    }
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    d12__retention_orphan(device, queue);
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

/* Release what the driver will never pass back now that its queue is gone. */
static void drop_pending(struct d12_command_queue *queue)
{
    for (struct d12_queue_operation *operation = queue->operations, *next; operation; operation = next) {
        next = operation->next;
        if (operation->kind == OPERATION_WAIT)
            d12__fence_gpu_wait_cancel(operation->fence, &operation->wait);
        d12__fence_unhold(operation->fence);
        free(operation);
    }
    queue->operations = NULL;
    queue->operations_tail = &queue->operations;
    d12__retention_free(queue);
}

/* "The application's final Release of a queue flushes synchronously on its own thread, even with work in flight":
 * waits on the timeline are abandoned, the driver's queue finishes what it was given and goes, then the device-wide
 * flush delivers what that work produced ("no further flush follows for that queue"). */
static void queue_destroy(struct d12_command_queue *queue)
{
    struct d12_device *device = queue->device_child.device;
    d12__device_child_unregister(&queue->device_child);
    if (queue->handle.pDrvPrivate) {
        atomic_store(&queue->destroying, true);
        d12__device_wake_fences(device);
        queue->gpu->core.pfnDestroyCommandQueue(d12__driver_device_handle(device->driver), queue->handle);
    }
    unlink_queue(device, queue);
    if (queue->handle.pDrvPrivate)
        d12__flush_now(device);
    d12__retention_release_idle_orphans(device);
    if (d12__device_is_removed(device)) {
        /* Issue 8 item 5: "queue destruction on a removed device makes the one removal flush if it has not happened
         * yet"; then DRED's report is completed if the application never surfaced the removal (dred.h). */
        d12__flush_on_removal(device);
        d12__dred_finish(device);
    }
    d12__dred_queue_destroyed(queue); /* DRED stops naming its lists */
    drop_pending(queue);
    free(queue->handle.pDrvPrivate);
    pthread_mutex_destroy(&queue->lock);
    d12__device_child_destroy(&queue->device_child);
    free(queue);
}

ULONG d12_command_queue_Release(struct d12_command_queue *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        queue_destroy(self);
    return left;
}

void d12_command_queue_not_implemented(struct d12_command_queue *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ---- ID3D12Device::CreateCommandQueue ---- */

static HRESULT check_queue_desc(struct d12_device *device, const D3D12_COMMAND_QUEUE_DESC *desc)
{
    const char *method = "ID3D12Device::CreateCommandQueue";
    if (!desc) {
        d12__msg_create_invalid_argument(device->info_queue, method, "pDesc is NULL");
        return E_INVALIDARG;
    }
    if (d12__command_list_type_flags(desc->Type) == D3D12DDI_COMMAND_QUEUE_FLAG_NONE) {
        d12__msg_invalid_command_list_type(device->info_queue, method, (int)desc->Type);
        return E_INVALIDARG;
    }
    if (desc->Flags & ~D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT) {
        d12__msg_create_invalid_argument(device->info_queue, method, "unknown D3D12_COMMAND_QUEUE_FLAGS");
        return E_INVALIDARG;
    }
    if (desc->NodeMask > 1) {
        d12__msg_create_invalid_argument(device->info_queue, method, "NodeMask names a node the adapter lacks");
        return E_INVALIDARG;
    }
    if (desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_NORMAL && desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_HIGH &&
        desc->Priority != D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME) {
        d12__msg_create_invalid_argument(device->info_queue, method,
                                         "Priority is not a D3D12_COMMAND_QUEUE_PRIORITY (NORMAL, HIGH, GLOBAL_REALTIME)");
        return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT create_driver_queue(struct d12_device *device, struct d12_command_queue *queue)
{
    D3D12DDIARG_CREATECOMMANDQUEUE_0126 args = {d12__command_list_type_flags(queue->desc.Type), 1};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    SIZE_T size = queue->gpu->core.pfnCalcPrivateCommandQueueSize(driver, &args);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "CommandQueue", size, &memory);
    if (FAILED(hr))
        return hr;
    D3D12DDI_HCOMMANDQUEUE handle = {memory};
    D3D12DDI_HRTCOMMANDQUEUE rt_handle = {d12__device_child_rt_handle(&queue->device_child)};
    hr = queue->gpu->core.pfnCreateCommandQueue(driver, &args, handle, rt_handle);
    if (FAILED(hr)) {
        free(memory);
        return hr;
    }
    queue->handle = handle;
    return S_OK;
}

HRESULT d12_device_CreateCommandQueue(struct d12_device *self, const D3D12_COMMAND_QUEUE_DESC *pDesc, const IID *riid,
                                      void **ppCommandQueue)
{
    if (ppCommandQueue)
        *ppCommandQueue = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_check_gpu_create(self, "ID3D12Device::CreateCommandQueue");
    if (FAILED(hr) || FAILED(hr = check_queue_desc(self, pDesc)))
        return hr;
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppCommandQueue == NULL)
        return S_FALSE;
    struct d12_command_queue *queue = calloc(1, sizeof *queue);
    if (!queue)
        return E_OUTOFMEMORY;
    d12__command_queue_com_init(&queue->com);
    atomic_init(&queue->refcount, 1);
    d12__device_child_init(&queue->device_child, self, &queue->com.queue, "ID3D12CommandQueue");
    queue->desc = *pDesc;
    queue->desc.NodeMask = 1; /* d3d12-semantics.md 4.8: "GetDesc().NodeMask reports 1 when 0 was passed" */
    queue->gpu = self->gpu;
    pthread_mutex_init(&queue->lock, NULL);
    queue->operations_tail = &queue->operations;
    d12__retention_init(queue);
    atomic_init(&queue->completed, 0);
    atomic_init(&queue->destroying, false);
    d12__tdr_queue_init(&queue->tdr);
    d12__tdr_start(self); /* the device's watchdog, with its first queue (once) */
    link_queue(self, queue); /* before the driver can pass anything back */
    if (FAILED(hr = create_driver_queue(self, queue))) {
        queue_destroy(queue);
        return hr;
    }
    d12__device_child_register(&queue->device_child, queue, D3D12DDI_HT_COMMAND_QUEUE);
    hr = d12__command_queue_QueryInterface(queue, riid, ppCommandQueue);
    d12_command_queue_Release(queue);
    return hr;
}

