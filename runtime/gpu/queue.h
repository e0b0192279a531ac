/* ID3D12CommandQueue: submissions to the driver's queue, the fence operations the driver passes back from its
 * timeline, and per-submission retention of command-list state (docs/locking.md).
 *
 * Locks: `lock` guards the fields marked so; it ranks below the device's children lock and above a fence's lock
 * and the correlation lock. No runtime lock is held while calling the driver or the application. */
#ifndef D12_QUEUE_H
#define D12_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"
#include "tdr.h"

struct d12_queue_operation;
struct d12_submission;

struct d12_command_queue {
    struct d12__command_queue_com com;
    atomic_ulong refcount;
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_COMMAND_QUEUE_DESC desc;
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HCOMMANDQUEUE handle;      /* the driver's queue (runtime-allocated memory) */
    struct d12_command_queue *next;     /* the device's queue list (device->children_lock) */
    d12_tdr_queue tdr;                  /* what the timeline last reported (build 0127; tdr.h): atomics */

    pthread_mutex_t lock;
    uint64_t submitted;                 /* lock: ExecuteCommandLists calls handed to the driver so far (serials) */
    struct d12_queue_operation *operations; /* lock: fence operations submitted and not passed back, oldest first */
    struct d12_queue_operation **operations_tail; /* lock: where the next operation is linked */
    struct d12_submission *submissions; /* lock: submissions whose command-list state is retained, oldest first */
    struct d12_submission **submissions_tail; /* lock: where the next submission is linked */
    struct d12_submission *unmarked;    /* lock: the oldest retained submission no flush has marked yet, or NULL */
    struct d12_submission *newest;      /* lock: the last retained submission, or NULL */
    struct d12_submission *spare;       /* lock: retention records to reuse (a free list: no malloc per submission) */
    uint32_t unmarked_count;            /* lock: retained submissions from `unmarked` on */
    uint32_t compact_at;                /* lock: unmarked_count that makes the next compaction (bounded retention) */
    struct d12_queue_operation *blocked_wait; /* lock: the Wait the timeline is blocked in (DRED's report), or NULL */

    _Atomic uint64_t completed;         /* the serial the last executed Signal covers (the completion mark) */
    atomic_bool destroying;             /* the final Release began: waits on the timeline are abandoned */
};

/* Flush-engine helpers over every queue of the device (called with no lock held). When a retiring flush begins,
 * number it (d12__flush_pass_begin) and mark with its number the submissions each queue had completed and no earlier
 * flush marked; once it has returned, note on them the last flush begun by then, and release every submission whose
 * noted flushes have all returned. A submission thus stays until the flush for it, and every flush that may have
 * taken its messages from the driver (any begun before that one returned), have returned. */
struct d12_flush_pass;
void d12__queues_mark_retirement(struct d12_device *device, struct d12_flush_pass *pass);
void d12__queues_retire(struct d12_device *device, struct d12_flush_pass *pass);

/* The device's queue behind a runtime handle a driver passed back, or NULL when it names none. */
struct d12_command_queue *d12__queue_find(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE handle);

/* The GPU hooks' work (d12_driver_gpu_hooks): a signal or wait the driver's timeline reached on `queue`. */
HRESULT d12__queue_signal_reached(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                  const D3D12DDIARG_FENCE_OPERATION_0126 *operation);
HRESULT d12__queue_wait_reached(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE queue,
                                const D3D12DDIARG_FENCE_OPERATION_0126 *operation);

/* DRED's report: every GPU Wait of `queue` not satisfied yet (the one its timeline is blocked in first, then the ones
 * submitted and not reached), pending at removal.
 * `visit` runs under the queue's lock: it may read the fence (its value, its name) but call nothing else. */
void d12__queue_for_each_wait(struct d12_command_queue *queue,
                              void (*visit)(void *context, struct d12_fence *fence, UINT64 value), void *context);

/* The same for every fence operation not passed back yet, in queue order (the blocked Wait first): `wait` says which
 * kind, `serial` how many ExecuteCommandLists calls were queued before it. DRED's report (queued signals, deadlocks). */
void d12__queue_for_each_operation(struct d12_command_queue *queue,
                                   void (*visit)(void *context, bool wait, struct d12_fence *fence, UINT64 value,
                                                 uint64_t serial),
                                   void *context);

#endif
