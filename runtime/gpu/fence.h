/* ID3D12Fence(1). d12rt's fences are runtime objects: the runtime plays the kernel's part (WDDM's monitored fences),
 * the driver only passes fence operations back when its timeline reaches them (d3d12ddi.h, pKTCallbacks).
 *
 * Semantics (../shared/reference/d3d12-semantics.md 4.8): CPU Signal may lower the value; SetEventOnCompletion
 * fires at once when the value is already reached; registrations are one-shot; an event is an eventfd descriptor
 * cast to HANDLE (signalled by writing 1); a NULL event blocks until the value is reached. Once the device is
 * removed the fence reads UINT64_MAX and every waiter is released; so is every waiter when the application's last
 * reference goes, queue operations pending or not (issue 17 item 4: registrations fire, queue waits are satisfied).
 *
 * Locks: `lock` guards the waiters and pairs with `changed`; it ranks below a queue's lock and above nothing but
 * leaf locks. `value` is atomic so GetCompletedValue takes no lock. */
#ifndef D12_FENCE_H
#define D12_FENCE_H

#include <pthread.h>
#include <stdatomic.h>

#include "child.h"
#include "d12_com.h"

struct d12_event;
struct d12_fence_multi;

/* One registration on a fence (fence lock): SetEventOnCompletion's event, or one fence of a
 * SetEventOnMultipleFenceCompletion set (runtime/fence_multi.c), which owns the storage and is told when its
 * fence reached `value`, was released by the application, or the device was removed. */
typedef struct d12_fence_waiter {
    UINT64 value;
    struct d12_event *event;        /* SetEventOnCompletion: the runtime's reference to the eventfd (event.h) */
    struct d12_fence_multi *multi;  /* a set's member instead (event NULL) */
    struct d12_fence_waiter *next;
} d12_fence_waiter;

/* A queue Wait(fence, value) from its submission until the driver passes it back (queue.c embeds one in each wait
 * operation). Satisfied once the fence reached `value` at any moment while the wait was pending, whatever the value
 * does afterwards (a CPU Signal may lower it): docs/gpu-work.md, "GPU waits". */
typedef struct d12_fence_gpu_wait {
    UINT64 value;
    bool satisfied;                   /* fence lock */
    struct d12_fence_gpu_wait *next;  /* fence lock: the fence's unsatisfied waits */
} d12_fence_gpu_wait;

/* One change of a fence's value, kept for DRED (issue 32 item 3): who set it. `queue` is an identity only (the queue
 * whose Signal the GPU reached; never dereferenced, the queue may be gone), NULL for a CPU Signal, whose thread is
 * `thread` (its kernel thread id). */
#define D12_FENCE_HISTORY 8u
typedef struct d12_fence_change {
    UINT64 value;
    const void *queue;
    uint32_t thread;
} d12_fence_change;

struct d12_fence {
    struct d12__fence_com com;
    atomic_ulong refcount;             /* the application's references */
    atomic_ulong holds;                /* 1 while referenced + 1 per queue operation pending on it: the memory's life */
    d12_device_child device_child;
    D3D12_FENCE_FLAGS flags;           /* fixed */
    /* The device's fence list (device->children_lock), doubly linked: a fence leaves it when its last hold goes,
     * often on a GPU timeline thread with thousands of fences live (each released with a Signal pending), so the
     * unlink must not walk the list (issue 12 item 5: 100k such fences cost minutes when it did). */
    struct d12_fence *next, *prev;

    _Atomic UINT64 value;              /* written under `lock`, read without it */
    pthread_mutex_t lock;
    pthread_cond_t changed;            /* broadcast when the value changes or the device is removed */
    struct d12_fence_waiter *waiters;  /* eventfd registrations not yet fired */
    d12_fence_gpu_wait *gpu_waits;     /* lock: queue waits pending and not yet satisfied */
    bool released;                     /* lock: the application's last reference went (every waiter released) */
    unsigned sleepers;                 /* lock: threads in pthread_cond_wait on `changed` (none: no broadcast) */
    /* lock: one SetEventOnCompletion registration's storage, so the usual "register, signal, wait" round costs no
     * allocation (issue 17 item 4); further registrations pending at once are allocated. */
    d12_fence_waiter spare;
    bool spare_busy;
    /* lock: the highest value it ever had and its last D12_FENCE_HISTORY changes, a ring (`changes` counts them
     * all), written by d12__fence_set under the lock it takes anyway: a wait on a fence that went backwards is told
     * apart in the DRED report (issue 32 item 3). */
    UINT64 highest;
    uint32_t changes;
    d12_fence_change history[D12_FENCE_HISTORY];
};

/* Add a waiter (SetEventOnMultipleFenceCompletion's members); it fires at once when the fence reached `value`
 * already, was released, or the device is removed. */
void d12__fence_add_waiter(struct d12_fence *fence, d12_fence_waiter *waiter);

/* fence_multi.c: a set's member is done (its fence reached the value, was released, or the device was removed).
 * Called under that fence's lock; takes only the events leaf lock. */
void d12__fence_multi_member_done(struct d12_fence_multi *multi);

/* Set the value (CPU Signal: `queue` NULL; or `queue`'s Signal reached on the GPU timeline) and fire the waiters it
 * satisfies; the change goes into the fence's history. */
void d12__fence_set(struct d12_fence *fence, UINT64 value, const void *queue);

/* A copy of the fence's history, oldest change first (its lock held briefly): the count copied into `out`. */
uint32_t d12__fence_history(struct d12_fence *fence, d12_fence_change out[D12_FENCE_HISTORY], UINT64 *highest);

/* A queue's Wait was submitted: from now on the fence reaching `value` satisfies it (at once if it has). */
void d12__fence_gpu_wait_begin(struct d12_fence *fence, d12_fence_gpu_wait *wait, UINT64 value);

/* The driver's timeline reached the wait (pfnWaitForFenceFromGpuCb): blocks until it is satisfied (true), or
 * `*abandon` turns true or the device is removed (false); the wait is over either way. Whoever sets *abandon calls
 * d12__fence_wake afterwards. The application's final Release of the fence satisfies its pending waits. */
bool d12__fence_gpu_wait_end(struct d12_fence *fence, d12_fence_gpu_wait *wait, const atomic_bool *abandon);

/* A wait the driver will never pass back (its queue is gone): forget it without blocking. */
void d12__fence_gpu_wait_cancel(struct d12_fence *fence, d12_fence_gpu_wait *wait);

/* Wake every waiter to re-check its condition; after a removal, fire every registration. */
void d12__fence_wake(struct d12_fence *fence);

/* A queue operation's hold on the fence: it stays valid (and settable) after the application's last Release,
 * without showing in the application's reference count. */
void d12__fence_hold(struct d12_fence *fence);
void d12__fence_unhold(struct d12_fence *fence);

/* The driver's handle for the fence: what fence operations carry. */
D3D12DDI_HRTFENCE d12__fence_rt_handle(struct d12_fence *fence);

#endif
