/* ID3D12Fence (fence.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "d12_messages.h"
#include "device.h"
#include "event.h"
#include "fence.h"
#include "lockrank.h"

/* The value the application sees: UINT64_MAX once the device is removed. */
static UINT64 visible_value(struct d12_fence *fence)
{
    if (d12__device_is_removed(fence->device_child.device))
        return UINT64_MAX;
    return atomic_load_explicit(&fence->value, memory_order_acquire);
}

/* Fire one registration, already unlinked (fence lock held): signal its event, or tell its set (which owns a
 * member's storage). */
static void fire(struct d12_fence *fence, d12_fence_waiter *waiter)
{
    if (waiter->multi != NULL) {
        d12__fence_multi_member_done(waiter->multi);
        return;
    }
    d12__event_signal(waiter->event);
    d12__event_release(waiter->event);
    if (waiter == &fence->spare)
        fence->spare_busy = false;
    else
        free(waiter);
}

/* Fire and drop the registrations `reached` now satisfies. Called with the lock held (write() never blocks on an
 * eventfd whose counter is below its maximum; releasing an event takes only the events leaf lock). */
static void fire_waiters(struct d12_fence *fence, UINT64 reached)
{
    for (struct d12_fence_waiter **link = &fence->waiters; *link;) {
        struct d12_fence_waiter *waiter = *link;
        if (waiter->value <= reached) {
            *link = waiter->next;
            fire(fence, waiter);
        } else {
            link = &waiter->next;
        }
    }
}

/* Satisfy (and unlink) the pending queue waits `reached` covers; with `all`, every one (the fence's final Release).
 * Called with the lock held; the caller broadcasts `changed`. */
static void satisfy_gpu_waits(struct d12_fence *fence, UINT64 reached, bool all)
{
    for (d12_fence_gpu_wait **link = &fence->gpu_waits; *link;) {
        d12_fence_gpu_wait *wait = *link;
        if (all || wait->value <= reached) {
            wait->satisfied = true;
            *link = wait->next;
        } else {
            link = &wait->next;
        }
    }
}

static void unlink_gpu_wait(struct d12_fence *fence, d12_fence_gpu_wait *wait)
{
    for (d12_fence_gpu_wait **link = &fence->gpu_waits; *link; link = &(*link)->next) {
        if (*link == wait) {
            *link = wait->next;
            return;
        }
    }
}

/* The calling thread's kernel id, asked once per thread (a CPU Signal's "who"). */
static uint32_t thread_id(void)
{
    static _Thread_local uint32_t id;
    if (id == 0)
        id = (uint32_t)syscall(SYS_gettid);
    return id;
}

void d12__fence_set(struct d12_fence *fence, UINT64 value, const void *queue)
{
    uint32_t thread = queue ? 0 : thread_id();
    d12__lock(&fence->lock, D12_RANK_FENCE);
    atomic_store_explicit(&fence->value, value, memory_order_release);
    /* the history ring: a few stores under the lock this takes anyway (issue 32 item 3) */
    fence->history[fence->changes++ % D12_FENCE_HISTORY] = (d12_fence_change){value, queue, thread};
    if (value > fence->highest)
        fence->highest = value;
    fire_waiters(fence, value);
    satisfy_gpu_waits(fence, value, false); /* before any later Signal can lower the value again */
    if (fence->sleepers != 0)
        pthread_cond_broadcast(&fence->changed);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

uint32_t d12__fence_history(struct d12_fence *fence, d12_fence_change out[D12_FENCE_HISTORY], UINT64 *highest)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    uint32_t count = fence->changes < D12_FENCE_HISTORY ? fence->changes : D12_FENCE_HISTORY;
    for (uint32_t i = 0; i < count; i++)
        out[i] = fence->history[(fence->changes - count + i) % D12_FENCE_HISTORY];
    *highest = fence->highest;
    d12__unlock(&fence->lock, D12_RANK_FENCE);
    return count;
}

void d12__fence_wake(struct d12_fence *fence)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    fire_waiters(fence, visible_value(fence));
    pthread_cond_broadcast(&fence->changed);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

void d12__fence_gpu_wait_begin(struct d12_fence *fence, d12_fence_gpu_wait *wait, UINT64 value)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    wait->value = value;
    wait->satisfied = atomic_load(&fence->value) >= value;
    wait->next = NULL;
    if (!wait->satisfied) {
        wait->next = fence->gpu_waits;
        fence->gpu_waits = wait;
    }
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

bool d12__fence_gpu_wait_end(struct d12_fence *fence, d12_fence_gpu_wait *wait, const atomic_bool *abandon)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    struct d12_device *device = fence->device_child.device;
    while (!wait->satisfied && !atomic_load(abandon) && !d12__device_is_removed(device)) {
        fence->sleepers++;
        pthread_cond_wait(&fence->changed, &fence->lock);
        fence->sleepers--;
    }
    bool satisfied = wait->satisfied;
    if (!satisfied)
        unlink_gpu_wait(fence, wait);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
    return satisfied;
}

void d12__fence_gpu_wait_cancel(struct d12_fence *fence, d12_fence_gpu_wait *wait)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    if (!wait->satisfied)
        unlink_gpu_wait(fence, wait);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

D3D12DDI_HRTFENCE d12__fence_rt_handle(struct d12_fence *fence)
{
    D3D12DDI_HRTFENCE handle = {d12__device_child_rt_handle(&fence->device_child)};
    return handle;
}

/* ---- ID3D12Fence ---- */

UINT64 d12_fence_GetCompletedValue(struct d12_fence *self)
{
    if (d12__device_removed(self->device_child.device) != S_OK)
        return UINT64_MAX; /* surfacing the removal: d12__device_removed made the removal flush */
    return atomic_load_explicit(&self->value, memory_order_acquire);
}

HRESULT d12_fence_Signal(struct d12_fence *self, UINT64 Value)
{
    d12__fence_set(self, Value, NULL); /* "CPU Signal may lower the value" */
    return S_OK;
}

D3D12_FENCE_FLAGS d12_fence_GetCreationFlags(struct d12_fence *self)
{
    return self->flags;
}

static void add_waiter_locked(struct d12_fence *fence, d12_fence_waiter *waiter)
{
    waiter->next = fence->waiters;
    fence->waiters = waiter;
    /* "with v <= completed fires immediately"; a fence already released counts as reached. */
    fire_waiters(fence, fence->released ? UINT64_MAX : visible_value(fence));
}

/* A NULL event: "blocks until reached"; removal and the fence's final Release (on another thread) release it. */
static void block_until(struct d12_fence *fence, UINT64 value)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    while (visible_value(fence) < value && !fence->released) {
        fence->sleepers++;
        pthread_cond_wait(&fence->changed, &fence->lock);
        fence->sleepers--;
    }
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

HRESULT d12_fence_SetEventOnCompletion(struct d12_fence *self, UINT64 Value, HANDLE hEvent)
{
    if (hEvent == NULL) {
        d12__fence_hold(self); /* its memory outlives a final Release made meanwhile on another thread */
        block_until(self, Value);
        d12__fence_unhold(self);
        return S_OK;
    }
    /* Only an eventfd is an event; the runtime holds its own reference, so the application may close its
     * descriptor once registered (as closing a handle is safe on Windows). */
    d12_event *event;
    d12_event_problem problem;
    HRESULT hr = d12__event_acquire(hEvent, &event, &problem);
    if (hr == E_INVALIDARG) {
        d12__msg_fence_invalid_event(self->device_child.device->info_queue, (long long)(intptr_t)hEvent,
                                     problem == D12_EVENT_NOT_OPEN ? "is not an open file descriptor"
                                     : "is not an eventfd (a pipe, a file or a socket is no event)");
        return E_INVALIDARG;
    }
    if (FAILED(hr))
        return hr;
    d12__lock(&self->lock, D12_RANK_FENCE);
    d12_fence_waiter *waiter = &self->spare;
    if (self->spare_busy)
        waiter = malloc(sizeof *waiter); /* under the fence's lock: malloc takes none of the runtime's */
    else
        self->spare_busy = true;
    if (!waiter) {
        d12__unlock(&self->lock, D12_RANK_FENCE);
        d12__event_release(event);
        return E_OUTOFMEMORY;
    }
    *waiter = (d12_fence_waiter){Value, event, NULL, NULL};
    add_waiter_locked(self, waiter);
    d12__unlock(&self->lock, D12_RANK_FENCE);
    return S_OK;
}

void d12__fence_add_waiter(struct d12_fence *fence, d12_fence_waiter *waiter)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    add_waiter_locked(fence, waiter);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

/* ---- Lifetime ---- */

ULONG d12_fence_AddRef(struct d12_fence *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

/* The application let go of the fence, even with queue operations still pending on it: every registration fires
 * (events and SetEventOnMultipleFenceCompletion members, which count it as reached), every queue wait pending on it
 * is satisfied and every NULL-event wait returns — nothing could satisfy them any more, and nothing may hang for
 * ever. vkd3d-proton's tests/d3d12_sync.c, run on Windows: "releasing the fence unblocks all waiters",
 * "Destroying fences unblock any waiters" (issue 17 item 4; docs/gpu-work.md, "Fence lifetime"). */
static void abandon_waiters(struct d12_fence *fence)
{
    d12__lock(&fence->lock, D12_RANK_FENCE);
    fence->released = true;
    for (d12_fence_waiter *waiter = fence->waiters, *next; waiter; waiter = next) {
        next = waiter->next;
        fire(fence, waiter);
    }
    fence->waiters = NULL;
    satisfy_gpu_waits(fence, 0, true);
    pthread_cond_broadcast(&fence->changed);
    d12__unlock(&fence->lock, D12_RANK_FENCE);
}

void d12__fence_hold(struct d12_fence *fence)
{
    atomic_fetch_add(&fence->holds, 1);
}

void d12__fence_unhold(struct d12_fence *fence)
{
    if (atomic_fetch_sub(&fence->holds, 1) != 1)
        return;
    d12__device_unlink_fence(fence->device_child.device, fence);
    pthread_cond_destroy(&fence->changed);
    pthread_mutex_destroy(&fence->lock);
    d12__device_child_destroy(&fence->device_child);
    free(fence);
}

/* The application's last reference: its registrations go now; the memory when no queue operation holds it. */
static void fence_destroy(struct d12_fence *fence)
{
    d12__device_child_unregister(&fence->device_child);
    abandon_waiters(fence);
    d12__fence_unhold(fence);
}

ULONG d12_fence_Release(struct d12_fence *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        fence_destroy(self);
    return left;
}

void d12_fence_not_implemented(struct d12_fence *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ID3D12Device::CreateFence */
HRESULT d12_device_CreateFence(struct d12_device *self, UINT64 InitialValue, D3D12_FENCE_FLAGS Flags, const IID *riid,
                               void **ppFence)
{
    if (ppFence)
        *ppFence = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_removed(self);
    if (FAILED(hr))
        return hr;
    if (Flags & ~(D3D12_FENCE_FLAG_SHARED | D3D12_FENCE_FLAG_SHARED_CROSS_ADAPTER | D3D12_FENCE_FLAG_NON_MONITORED)) {
        d12__msg_create_invalid_argument(self->info_queue, "ID3D12Device::CreateFence", "unknown D3D12_FENCE_FLAGS");
        return E_INVALIDARG;
    }
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppFence == NULL)
        return S_FALSE;
    struct d12_fence *fence = calloc(1, sizeof *fence);
    if (!fence)
        return E_OUTOFMEMORY;
    d12__fence_com_init(&fence->com);
    atomic_init(&fence->refcount, 1);
    atomic_init(&fence->holds, 1);
    d12__device_child_init(&fence->device_child, self, &fence->com.fence, "ID3D12Fence");
    fence->flags = Flags;
    atomic_init(&fence->value, InitialValue);
    fence->highest = InitialValue;
    pthread_mutex_init(&fence->lock, NULL);
    pthread_cond_init(&fence->changed, NULL);
    d12__device_child_register(&fence->device_child, fence, D3D12DDI_HT_FENCE);
    d12__device_link_fence(self, fence);
    hr = d12__fence_QueryInterface(fence, riid, ppFence);
    d12_fence_Release(fence);
    return hr;
}
