/* ID3D12CommandAllocator and ID3D12GraphicsCommandList (list.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "d12_messages.h"
#include "device.h"
#include "dred/breadcrumbs.h"
#include "dred/dred.h"
#include "foreign.h"
#include "list.h"
#include "list_internal.h"
#include "lockrank.h"
#include "queue.h"
#include "resource.h"


D3D12DDI_COMMAND_QUEUE_FLAGS d12__command_list_type_flags(D3D12_COMMAND_LIST_TYPE type)
{
    switch (type) {
    case D3D12_COMMAND_LIST_TYPE_DIRECT: return D3D12DDI_COMMAND_QUEUE_FLAG_3D;
    case D3D12_COMMAND_LIST_TYPE_COMPUTE: return D3D12DDI_COMMAND_QUEUE_FLAG_COMPUTE;
    case D3D12_COMMAND_LIST_TYPE_COPY: return D3D12DDI_COMMAND_QUEUE_FLAG_COPY;
    default: return D3D12DDI_COMMAND_QUEUE_FLAG_NONE; /* bundles and video lists are not d12rt's */
    }
}

static D3D12DDI_HDEVICE driver_device(const d12_device_child *child)
{
    return d12__driver_device_handle(child->device->driver);
}

/* ======== ID3D12CommandAllocator ======== */

/* Claim `allocator` for `list` ("one allocator records one list at a time"). */
static bool claim_allocator(struct d12_command_allocator *allocator, struct d12_command_list *list)
{
    d12__lock(&allocator->lock, D12_RANK_ALLOCATOR);
    bool free_now = allocator->recording == NULL;
    if (free_now)
        allocator->recording = list;
    d12__unlock(&allocator->lock, D12_RANK_ALLOCATOR);
    return free_now;
}

static void unclaim_allocator(struct d12_command_allocator *allocator, struct d12_command_list *list)
{
    d12__lock(&allocator->lock, D12_RANK_ALLOCATOR);
    if (allocator->recording == list)
        allocator->recording = NULL;
    d12__unlock(&allocator->lock, D12_RANK_ALLOCATOR);
}

static void list_hold(void *owner);
static void list_unhold(void *owner);

/* Issue 32 item 2: "Reset ... after the GPU is done executing the command lists associated with the allocator"
 * (ID3D12CommandAllocator::Reset). The last submission of a list recorded into it is in flight while its queue's
 * completion mark (the Signals after it that completed) does not cover it: COMMAND_ALLOCATOR_SYNC, naming the
 * allocator, the list and the submission. The queue pointer is trusted only once found among the device's queues. */
static void check_in_flight(struct d12_command_allocator *self)
{
    struct d12_device *device = self->device_child.device;
    d12__lock(&self->lock, D12_RANK_ALLOCATOR);
    struct d12_command_queue *queue = self->last_queue;
    uint64_t serial = self->last_serial;
    d12__unlock(&self->lock, D12_RANK_ALLOCATOR);
    if (!queue)
        return;
    char *queue_name = NULL;
    bool in_flight = false, out_of_memory;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue *q = device->queues; q && !in_flight; q = q->next)
        if (q == queue && atomic_load_explicit(&q->completed, memory_order_acquire) < serial) {
            in_flight = true;
            queue_name = d12__object_name_dup(&q->device_child.object, &out_of_memory);
        }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    if (!in_flight)
        return;
    /* the list's memory held across the name's copy: the allocator lock is a leaf (docs/locking.md) */
    d12__lock(&self->lock, D12_RANK_ALLOCATOR);
    struct d12_command_list *list = self->last_list;
    if (list)
        list_hold(list);
    d12__unlock(&self->lock, D12_RANK_ALLOCATOR);
    char *list_name = list ? d12__object_name_dup(&list->device_child.object, &out_of_memory) : NULL;
    if (list)
        list_unhold(list);
    char *allocator_name = d12__object_name_dup(&self->device_child.object, &out_of_memory);
    char quoted[3][300];
    const char *names[3] = {allocator_name, list_name, queue_name};
    for (int i = 0; i < 3; i++)
        snprintf(quoted[i], sizeof quoted[i], names[i] ? "'%s'" : "(unnamed)", names[i]);
    d12__msg_command_allocator_sync(device->info_queue, quoted[0], quoted[1], (unsigned long long)serial, quoted[2]);
    d12__dred_note_allocator_reset(device, queue, serial, allocator_name);
    free(allocator_name);
    free(list_name);
    free(queue_name);
}

void d12__command_list_mark_in_flight(struct d12_command_list *list, struct d12_command_queue *queue, uint64_t serial)
{
    struct d12_command_allocator *allocator = list->recorded_with;
    if (!allocator)
        return;
    d12__lock(&allocator->lock, D12_RANK_ALLOCATOR);
    allocator->last_queue = queue;
    allocator->last_serial = serial;
    allocator->last_list = list;
    d12__unlock(&allocator->lock, D12_RANK_ALLOCATOR);
}

HRESULT d12_command_allocator_Reset(struct d12_command_allocator *self)
{
    /* After removal: DXGI_ERROR_DEVICE_REMOVED, the allocator untouched (docs/device.md "Removal", per method). */
    HRESULT removed = d12__device_removed(self->device_child.device);
    if (FAILED(removed))
        return removed;
    d12__lock(&self->lock, D12_RANK_ALLOCATOR);
    bool recording = self->recording != NULL;
    d12__unlock(&self->lock, D12_RANK_ALLOCATOR);
    if (recording) {
        d12__msg_command_allocator_cannot_reset(self->device_child.device->info_queue);
        return E_FAIL; /* "E_FAIL if there is an actively recording command list referencing the allocator" */
    }
    if (self->device_child.device->info_queue)
        check_in_flight(self); /* a debug-layer message: the reset goes on, as the core runtime's does */
    if (self->handle.pDrvPrivate) /* a bundle allocator has no driver allocator (bundle.h) */
        self->gpu->core.pfnResetCommandAllocator(self->handle);
    return S_OK;
}

ULONG d12_command_allocator_AddRef(struct d12_command_allocator *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void allocator_destroy(struct d12_command_allocator *allocator)
{
    if (allocator->handle.pDrvPrivate)
        allocator->gpu->core.pfnDestroyCommandAllocator(driver_device(&allocator->device_child), allocator->handle);
    free(allocator->handle.pDrvPrivate);
    pthread_mutex_destroy(&allocator->lock);
    d12__device_child_destroy(&allocator->device_child);
    free(allocator);
}

/* A recording list's hold: internal, as queue operations hold fences, so it never shows in the application's
 * reference count (Windows' behaviour) and releasing the allocator while its list records is safe. */
static void allocator_hold(struct d12_command_allocator *allocator)
{
    atomic_fetch_add(&allocator->holds, 1);
}

static void allocator_unhold(struct d12_command_allocator *allocator)
{
    if (atomic_fetch_sub(&allocator->holds, 1) == 1)
        allocator_destroy(allocator);
}

ULONG d12_command_allocator_Release(struct d12_command_allocator *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        allocator_unhold(self);
    return left;
}

void d12_command_allocator_not_implemented(struct d12_command_allocator *self, const char *interface_name,
                                           const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* A list type CreateCommandAllocator and CreateCommandList accept: an engine's, or a bundle (runtime/bundle.h). */
static bool list_type_valid(D3D12_COMMAND_LIST_TYPE type)
{
    return type == D3D12_COMMAND_LIST_TYPE_BUNDLE || d12__command_list_type_flags(type) != D3D12DDI_COMMAND_QUEUE_FLAG_NONE;
}

static HRESULT create_driver_allocator(struct d12_device *device, struct d12_command_allocator *allocator)
{
    if (allocator->type == D3D12_COMMAND_LIST_TYPE_BUNDLE)
        return S_OK; /* the runtime records bundles itself: the driver never sees one (bundle.h) */
    D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 args = {d12__command_list_type_flags(allocator->type)};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    SIZE_T size = allocator->gpu->core.pfnCalcPrivateCommandAllocatorSize(driver, &args);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "CommandAllocator", size, &memory);
    if (FAILED(hr))
        return hr;
    D3D12DDI_HCOMMANDALLOCATOR handle = {memory};
    hr = allocator->gpu->core.pfnCreateCommandAllocator(driver, &args, handle);
    if (FAILED(hr)) {
        free(memory);
        return hr;
    }
    allocator->handle = handle;
    return S_OK;
}

HRESULT d12_device_CreateCommandAllocator(struct d12_device *self, D3D12_COMMAND_LIST_TYPE type, const IID *riid,
                                          void **ppCommandAllocator)
{
    if (ppCommandAllocator)
        *ppCommandAllocator = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_check_gpu_create(self, "ID3D12Device::CreateCommandAllocator");
    if (FAILED(hr))
        return hr;
    if (!list_type_valid(type)) {
        d12__msg_invalid_command_list_type(self->info_queue, "ID3D12Device::CreateCommandAllocator", (int)type);
        return E_INVALIDARG;
    }
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppCommandAllocator == NULL)
        return S_FALSE;
    struct d12_command_allocator *allocator = calloc(1, sizeof *allocator);
    if (!allocator)
        return E_OUTOFMEMORY;
    d12__command_allocator_com_init(&allocator->com);
    atomic_init(&allocator->refcount, 1);
    atomic_init(&allocator->holds, 1);
    d12__device_child_init(&allocator->device_child, self, &allocator->com.allocator, "ID3D12CommandAllocator");
    allocator->type = type;
    allocator->gpu = self->gpu;
    pthread_mutex_init(&allocator->lock, NULL);
    if (FAILED(hr = create_driver_allocator(self, allocator))) {
        allocator_destroy(allocator);
        return hr;
    }
    /* The WDK has no runtime handle for allocators, so a driver cannot name one: it is not registered. */
    hr = d12__command_allocator_QueryInterface(allocator, riid, ppCommandAllocator);
    d12_command_allocator_Release(allocator);
    return hr;
}

/* ======== ID3D12GraphicsCommandList: lifetime ======== */

/* The list's memory lives while the application references it or a recording names it. */
static void list_hold(void *owner)
{
    atomic_fetch_add(&((struct d12_command_list *)owner)->holds, 1);
}

static void list_unhold(void *owner)
{
    struct d12_command_list *list = owner;
    if (atomic_fetch_sub(&list->holds, 1) == 1) {
        d12__dred_list_destroy(list->device_child.device, list->dred); /* a removal may have named it until now */
        d12__device_child_destroy(&list->device_child);
        free(list);
    }
}

const d12_correlation_owner_ops d12__command_list_owner_ops = {list_hold, list_unhold};

ULONG d12_command_list_AddRef(struct d12_command_list *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

/* Let go of the allocator of the list's last closed recording (its hold; the allocator forgets the list). */
static void forget_recorded_with(struct d12_command_list *list)
{
    struct d12_command_allocator *allocator = list->recorded_with;
    if (!allocator)
        return;
    d12__lock(&allocator->lock, D12_RANK_ALLOCATOR);
    if (allocator->last_list == list)
        allocator->last_list = NULL;
    d12__unlock(&allocator->lock, D12_RANK_ALLOCATOR);
    list->recorded_with = NULL;
    allocator_unhold(allocator);
}

/* Stop recording into the allocator: Close (which keeps it, held, as the list's `recorded_with`), and destruction
 * of an open list. */
static void end_recording(struct d12_command_list *list, bool closing)
{
    atomic_store(&list->open, false);
    if (list->allocator) {
        unclaim_allocator(list->allocator, list);
        forget_recorded_with(list);
        if (closing)
            list->recorded_with = list->allocator; /* the recording's hold passes to it */
        else
            allocator_unhold(list->allocator);
        list->allocator = NULL;
    }
}

/* The application's last reference: the driver's list goes now; the memory when no recording names it any more
 * (a submission in flight may still resolve a message to this list). */
static void list_destroy(struct d12_command_list *list)
{
    d12__device_child_unregister(&list->device_child);
    end_recording(list, false);
    d12__list_binding_reset(list); /* the root signatures' references */
    free(list->bindings);
    list->bindings = NULL;
    forget_recorded_with(list);
    if (list->type == D3D12_COMMAND_LIST_TYPE_BUNDLE)
        d12__bundle_destroy(list);
    else if (list->handle.pDrvPrivate)
        list->gpu->core.pfnDestroyCommandList(driver_device(&list->device_child), list->handle);
    free(list->handle.pDrvPrivate);
    list->handle.pDrvPrivate = NULL;
    if (list->set_state_index)
        d12__recorder_fini(&list->recorder);
    list_unhold(list);
}

ULONG d12_command_list_Release(struct d12_command_list *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        list_destroy(self);
    return left;
}

void d12_command_list_not_implemented(struct d12_command_list *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

D3D12_COMMAND_LIST_TYPE d12_command_list_GetType(struct d12_command_list *self)
{
    return self->type;
}

char *d12__command_list_prefix(void *owner, int kind, uint32_t ordinal)
{
    struct d12_command_list *list = owner;
    bool out_of_memory = false;
    char *name = d12__object_name_dup(&list->device_child.object, &out_of_memory);
    char *identity = out_of_memory ? NULL : d12__format_identity(&list->com.list, "ID3D12GraphicsCommandList", name);
    free(name);
    if (!identity)
        return NULL;
    /* "<identity> [Draw #2] " (the form of the spec's "[Draw #12]") */
    const char *kind_name = d12__work_kind_name(kind);
    int length = snprintf(NULL, 0, "%s [%s #%u] ", identity, kind_name, ordinal);
    char *prefix = length > 0 ? malloc((size_t)length + 1) : NULL;
    if (prefix)
        snprintf(prefix, (size_t)length + 1, "%s [%s #%u] ", identity, kind_name, ordinal);
    free(identity);
    return prefix;
}

/* ======== Recording: state and checks ======== */

bool d12__list_recording(struct d12_command_list *list, const char *method)
{
    if (__builtin_expect(atomic_load_explicit(&list->open, memory_order_relaxed), 1))
        return true;
    d12__msg_command_list_closed(list->device_child.device->info_queue, method, "the call is ignored");
    return false;
}

void d12__list_record_error(struct d12_command_list *list, HRESULT hr)
{
    HRESULT none = S_OK;
    atomic_compare_exchange_strong(&list->error, &none, hr);
}


/* Start a recording into `allocator`: claim it, tell the correlation. */
static HRESULT begin_recording(struct d12_command_list *list, struct d12_command_allocator *allocator,
                               const char *method)
{
    struct d12_device *device = list->device_child.device;
    if (d12__foreign(device, allocator->device_child.device, method, "the command allocator", "returning E_INVALIDARG"))
        return E_INVALIDARG;
    if (allocator->type != list->type) {
        d12__msg_command_allocator_type_mismatch(device->info_queue, method, (int)allocator->type, (int)list->type);
        return E_INVALIDARG;
    }
    if (!claim_allocator(allocator, list)) {
        d12__msg_command_allocator_contention(device->info_queue, method);
        return E_INVALIDARG;
    }
    allocator_hold(allocator);
    list->allocator = allocator;
    d12__list_binding_reset(list); /* "Reset ... the command list is in the default state" */
    atomic_store(&list->error, S_OK);
    atomic_store(&list->open, true);
    if (list->set_state_index)
        d12__recorder_begin(&list->recorder); /* out of memory: the recording's work is simply not annotated */
    return S_OK;
}

HRESULT d12_command_list_Close(struct d12_command_list *self)
{
    if (!atomic_load(&self->open)) {
        d12__msg_command_list_closed(self->device_child.device->info_queue, "Close", "returning E_FAIL");
        return E_FAIL;
    }
    self->ddi->pfnCloseCommandList(self->handle);
    if (self->set_state_index)
        d12__recorder_close(&self->recorder);
    d12__dred_list_close(self);
    end_recording(self, true);
    /* After removal the list is closed all the same (it can be released or reset like any closed list) and Close
     * says DXGI_ERROR_DEVICE_REMOVED (docs/device.md "Removal", per method). */
    HRESULT removed = d12__device_removed(self->device_child.device);
    if (FAILED(removed))
        return removed;
    HRESULT error = atomic_load(&self->error);
    if (FAILED(error))
        d12__msg_command_list_recording_error(self->device_child.device->info_queue, (unsigned)error);
    return error;
}

HRESULT d12_command_list_Reset(struct d12_command_list *self, ID3D12CommandAllocator *pAllocator,
                               ID3D12PipelineState *pInitialState)
{
    struct d12_device *device = self->device_child.device;
    if (atomic_load(&self->open)) {
        d12__msg_command_list_open(device->info_queue);
        return E_FAIL;
    }
    /* After removal: DXGI_ERROR_DEVICE_REMOVED, the list stays closed (docs/device.md "Removal", per method). */
    HRESULT removed = d12__device_removed(device);
    if (FAILED(removed))
        return removed;
    struct d12_command_allocator *allocator = d12__command_allocator_unwrap(pAllocator);
    if (!allocator) {
        d12__msg_createcommandlist_null_commandallocator(device->info_queue, "ID3D12GraphicsCommandList::Reset");
        return E_INVALIDARG;
    }
    HRESULT hr = begin_recording(self, allocator, "ID3D12GraphicsCommandList::Reset");
    if (FAILED(hr))
        return hr;
    D3D12DDIARG_RESETCOMMANDLIST_0126 args = {allocator->handle};
    self->ddi->pfnResetCommandList(self->handle, &args);
    d12__dred_list_begin(self);
    if (pInitialState) /* after the driver cleared the binding state (D3D12DDI: pfnResetCommandList) */
        d12__list_set_pipeline_state(self, pInitialState, "Reset");
    return S_OK;
}

/* ======== Recording: GPU work ======== */

void d12_command_list_DrawInstanced(struct d12_command_list *self, UINT VertexCountPerInstance, UINT InstanceCount,
                                    UINT StartVertexLocation, UINT StartInstanceLocation)
{
    if (!d12__list_recording(self, "DrawInstanced"))
        return;
    d12__list_before_work(self, D12_WORK_DRAW);
    d12__dred_note_args32(self->dred_args, VertexCountPerInstance, InstanceCount, StartVertexLocation,
                          StartInstanceLocation, 0);
    self->ddi->pfnDrawInstanced(self->handle, VertexCountPerInstance, InstanceCount, StartVertexLocation,
                                StartInstanceLocation);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
}

void d12_command_list_DrawIndexedInstanced(struct d12_command_list *self, UINT IndexCountPerInstance,
                                           UINT InstanceCount, UINT StartIndexLocation, INT BaseVertexLocation,
                                           UINT StartInstanceLocation)
{
    if (!d12__list_recording(self, "DrawIndexedInstanced"))
        return;
    d12__list_before_work(self, D12_WORK_DRAW_INDEXED);
    d12__dred_note_args32(self->dred_args, IndexCountPerInstance, InstanceCount, StartIndexLocation,
                          (UINT32)BaseVertexLocation, StartInstanceLocation);
    self->ddi->pfnDrawIndexedInstanced(self->handle, IndexCountPerInstance, InstanceCount, StartIndexLocation,
                                       BaseVertexLocation, StartInstanceLocation);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED);
}

/* Issue 29: "ThreadGroupCountX/Y/Z ... must be less than or equal to D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION
 * (65535)" (ID3D12GraphicsCommandList::Dispatch). A larger count is dropped with the debug layer's OVERSIZED_DISPATCH,
 * naming the first dimension over, so no driver sees it (the Vulkan driver's X*Y*Z wrapped to 0); the list is not in
 * error (Close stays S_OK). A zero count is legal: "If any of these are 0, then nothing will happen", passed on. */
static bool oversized_dispatch(struct d12_command_list *self, UINT x, UINT y, UINT z)
{
    const UINT limit = D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION;
    const char *dimension = x > limit ? "X" : y > limit ? "Y" : z > limit ? "Z" : NULL;
    if (!dimension)
        return false;
    d12__msg_oversized_dispatch(self->device_child.device->info_queue, dimension, x > limit ? x : y > limit ? y : z,
                                limit);
    return true;
}

void d12_command_list_Dispatch(struct d12_command_list *self, UINT ThreadGroupCountX, UINT ThreadGroupCountY,
                               UINT ThreadGroupCountZ)
{
    if (!d12__list_recording(self, "Dispatch"))
        return;
    if (oversized_dispatch(self, ThreadGroupCountX, ThreadGroupCountY, ThreadGroupCountZ))
        return;
    d12__list_check_dispatch(self);
    d12__list_before_work(self, D12_WORK_DISPATCH);
    d12__dred_note_args32(self->dred_args, ThreadGroupCountX, ThreadGroupCountY, ThreadGroupCountZ, 0, 0);
    self->ddi->pfnDispatch(self->handle, ThreadGroupCountX, ThreadGroupCountY, ThreadGroupCountZ);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_DISPATCH);
}

/* A copy's resource: ours, or the call is dropped with a message and a recording error. */
static struct d12_resource *copy_operand(struct d12_command_list *list, const char *method, const char *parameter,
                                         ID3D12Resource *api)
{
    struct d12_resource *resource = d12__resource_unwrap(api);
    if (!resource) {
        d12__msg_copybufferregion_null_resource(list->device_child.device->info_queue, method, parameter);
        d12__list_record_error(list, E_INVALIDARG);
    } else if (d12__foreign(list->device_child.device, resource->device_child.device, method, parameter,
                            "the call is dropped and Close returns E_INVALIDARG")) {
        d12__list_record_error(list, E_INVALIDARG);
        return NULL;
    }
    return resource;
}

/* offset + bytes <= size, without overflow. */
static bool in_bounds(UINT64 offset, UINT64 bytes, UINT64 size)
{
    return offset <= size && bytes <= size - offset;
}

void d12_command_list_CopyBufferRegion(struct d12_command_list *self, ID3D12Resource *pDstBuffer, UINT64 DstOffset,
                                       ID3D12Resource *pSrcBuffer, UINT64 SrcOffset, UINT64 NumBytes)
{
    const char *method = "CopyBufferRegion";
    if (!d12__list_recording(self, method) || d12__bundle_refuses(self, method))
        return;
    struct d12_resource *dst = copy_operand(self, method, "pDstBuffer", pDstBuffer);
    struct d12_resource *src = dst ? copy_operand(self, method, "pSrcBuffer", pSrcBuffer) : NULL;
    if (!src)
        return;
    /* Windows' core runtime checks no copy range: the range checks are the debug layer's (its messages 841/844),
     * reported as ERROR, and the copy reaches the driver as given, so the GPU (and DRED) sees the bug (issue 19 item
     * 8, docs/dred.md "CopyBufferRegion past its end"). */
    d12_info_queue *info = self->device_child.device->info_queue;
    if (!in_bounds(DstOffset, NumBytes, dst->desc.Width))
        d12__msg_copybufferregion_dstrangeoutofbounds(info, DstOffset, NumBytes, dst->desc.Width);
    if (!in_bounds(SrcOffset, NumBytes, src->desc.Width))
        d12__msg_copybufferregion_srcrangeoutofbounds(info, SrcOffset, NumBytes, src->desc.Width);
    d12__list_before_work(self, D12_WORK_COPY_BUFFER_REGION);
    d12__dred_note_args64(self->dred_args, DstOffset, SrcOffset, NumBytes);
    d12__dred_note_copy(self->dred, dst->gpu_address, DstOffset, src->gpu_address, SrcOffset, NumBytes);
    self->ddi->pfnCopyBufferRegion(self->handle, dst->handle, DstOffset, src->handle, SrcOffset, NumBytes);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION);
}

void d12_command_list_CopyResource(struct d12_command_list *self, ID3D12Resource *pDstResource,
                                   ID3D12Resource *pSrcResource)
{
    const char *method = "CopyResource";
    if (!d12__list_recording(self, method) || d12__bundle_refuses(self, method))
        return;
    struct d12_resource *dst = copy_operand(self, method, "pDstResource", pDstResource);
    struct d12_resource *src = dst ? copy_operand(self, method, "pSrcResource", pSrcResource) : NULL;
    if (!src)
        return;
    const char *problem = dst == src ? "the source and the destination are the same resource"
                          : dst->desc.Width != src->desc.Width ? "the source and the destination differ in size"
                          : NULL;
    if (problem) {
        d12__msg_copyresource_invalidresource(self->device_child.device->info_queue, problem);
        d12__list_record_error(self, E_INVALIDARG);
        return;
    }
    d12__list_before_work(self, D12_WORK_COPY_RESOURCE);
    self->ddi->pfnCopyResource(self->handle, dst->handle, src->handle);
    d12__dred_breadcrumb(self->dred_work, self->handle, D3D12_AUTO_BREADCRUMB_OP_COPYRESOURCE);
}

/* ======== Recording: markers (DRED breadcrumbs; no GPU work, so no state index) ======== */

static void marker(struct d12_command_list *self, const char *method, D3D12_AUTO_BREADCRUMB_OP op, UINT Metadata,
                   const void *pData, UINT Size)
{
    if (!d12__list_recording(self, method) || !self->dred)
        return;
    if (op != D3D12_AUTO_BREADCRUMB_OP_ENDEVENT) /* "at most one entry per op, none for EndEvent" */
        d12__dred_add_context(self->dred, Metadata, pData, Size);
    d12__dred_record(self->dred, self->handle, op);
}

void d12_command_list_SetMarker(struct d12_command_list *self, UINT Metadata, const void *pData, UINT Size)
{
    marker(self, "SetMarker", D3D12_AUTO_BREADCRUMB_OP_SETMARKER, Metadata, pData, Size);
}

void d12_command_list_BeginEvent(struct d12_command_list *self, UINT Metadata, const void *pData, UINT Size)
{
    marker(self, "BeginEvent", D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT, Metadata, pData, Size);
}

void d12_command_list_EndEvent(struct d12_command_list *self)
{
    marker(self, "EndEvent", D3D12_AUTO_BREADCRUMB_OP_ENDEVENT, 0, NULL, 0);
}

/* ======== ID3D12Device::CreateCommandList ======== */

static HRESULT create_driver_list(struct d12_device *device, struct d12_command_list *list,
                                  struct d12_command_allocator *allocator)
{
    if (list->type == D3D12_COMMAND_LIST_TYPE_BUNDLE)
        return d12__bundle_create(list); /* recorded by the runtime, replayed at ExecuteBundle (bundle.h) */
    D3D12DDIARG_CREATECOMMANDLIST_0126 args = {d12__command_list_type_flags(list->type), allocator->handle};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    SIZE_T size = list->gpu->core.pfnCalcPrivateCommandListSize(driver, &args);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "CommandList", size, &memory);
    if (FAILED(hr))
        return hr;
    D3D12DDI_HCOMMANDLIST handle = {memory};
    D3D12DDI_HRTCOMMANDLIST rt_handle = {d12__device_child_rt_handle(&list->device_child)};
    hr = list->gpu->core.pfnCreateCommandList(driver, &args, handle, rt_handle);
    if (FAILED(hr)) {
        free(memory);
        return hr;
    }
    list->handle = handle;
    return S_OK;
}

static struct d12_command_list *new_list(struct d12_device *device, D3D12_COMMAND_LIST_TYPE type)
{
    struct d12_command_list *list = calloc(1, sizeof *list);
    if (!list)
        return NULL;
    d12__command_list_com_init(&list->com);
    atomic_init(&list->refcount, 1);
    atomic_init(&list->holds, 1);
    d12__device_child_init(&list->device_child, device, &list->com.list, "ID3D12GraphicsCommandList");
    list->type = type;
    list->gpu = device->gpu;
    list->ddi = &device->gpu->list;
    list->binding = device->gpu->has_pipelines ? &device->gpu->binding : NULL;
    if (device->correlation) {
        list->set_state_index = device->drm.funcs.pfnSetCommandListStateIndex;
        d12__recorder_init(&list->recorder, device->correlation, list);
    }
    /* A bundle has no breadcrumbs of its own: its caller records EXECUTEBUNDLE (bundle.h). */
    if (type != D3D12_COMMAND_LIST_TYPE_BUNDLE && FAILED(d12__dred_list_create(device, list, &list->dred))) {
        list_destroy(list); /* frees what new_list made */
        return NULL;
    }
    list->dred_work = list->dred && !list->dred->markers_only ? list->dred : NULL;
    list->dred_args = list->dred_work && list->dred->contexts_on ? list->dred : NULL;
    return list;
}

HRESULT d12_device_CreateCommandList(struct d12_device *self, UINT nodeMask, D3D12_COMMAND_LIST_TYPE type,
                                     ID3D12CommandAllocator *pCommandAllocator, ID3D12PipelineState *pInitialState,
                                     const IID *riid, void **ppCommandList)
{
    const char *method = "ID3D12Device::CreateCommandList";
    if (ppCommandList)
        *ppCommandList = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    if (!list_type_valid(type)) {
        d12__msg_invalid_command_list_type(self->info_queue, method, (int)type);
        return E_INVALIDARG;
    }
    if (nodeMask > 1) {
        d12__msg_create_invalid_argument(self->info_queue, method, "nodeMask names a node the adapter lacks");
        return E_INVALIDARG;
    }
    struct d12_command_allocator *allocator = d12__command_allocator_unwrap(pCommandAllocator);
    if (!allocator) {
        d12__msg_createcommandlist_null_commandallocator(self->info_queue, method);
        return E_INVALIDARG;
    }
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppCommandList == NULL)
        return S_FALSE;
    struct d12_command_list *list = new_list(self, type);
    if (!list)
        return E_OUTOFMEMORY;
    if (FAILED(hr = begin_recording(list, allocator, method)) || FAILED(hr = create_driver_list(self, list, allocator))) {
        list_destroy(list);
        return hr;
    }
    d12__dred_list_begin(list);
    if (pInitialState) /* the list's pipeline state, as SetPipelineState would set it */
        d12__list_set_pipeline_state(list, pInitialState, "CreateCommandList");
    d12__device_child_register(&list->device_child, list, D3D12DDI_HT_COMMAND_LIST);
    hr = d12__command_list_QueryInterface(list, riid, ppCommandList);
    d12_command_list_Release(list);
    return hr;
}

/* pfnSetCommandListErrorCb (d12_driver_gpu_hooks.list_error): the handle is looked up among the device's live
 * command lists before it is used (false: not this device's; the callback asks the next device). Any code but a
 * recording error removes the list's device; a recording error for a list that is not recording is ignored like an
 * unknown handle: no Close would ever return it, and a closed list that executes fine must not be refused. */
bool d12__command_list_driver_error(struct d12_device *device, D3D12DDI_HRTCOMMANDLIST handle, HRESULT hr)
{
    struct d12_command_list *list = d12__objtable_object(&device->objects, handle.handle, D3D12DDI_HT_COMMAND_LIST);
    if (!list)
        return false;
    if (hr != E_OUTOFMEMORY && hr != E_INVALIDARG)
        d12__device_remove(device, DXGI_ERROR_DRIVER_INTERNAL_ERROR, "the driver reported a command list error "
                           "that is not a recording error");
    else if (atomic_load(&list->open))
        d12__list_record_error(list, hr);
    return true;
}
