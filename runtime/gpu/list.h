/* ID3D12CommandAllocator and ID3D12GraphicsCommandList: recording into the driver's command list, the debug
 * layer's record-time checks, and command-list state indices for driver-reported-message correlation.
 *
 * Threads: D3D12 has one thread record a list at a time, so the recording state below has no lock; an allocator's
 * `recording` is guarded by its `lock` (a leaf). Recording a draw takes no lock, no shared atomic read-modify-write
 * and no allocation (correlation.h). */
#ifndef D12_LIST_H
#define D12_LIST_H

#include <pthread.h>
#include <stdatomic.h>

#include "child.h"
#include "correlation.h"
#include "d12_com.h"
#include "driver.h"

struct d12_command_list;

struct d12_command_allocator {
    struct d12__command_allocator_com com;
    atomic_ulong refcount;                     /* the application's references */
    atomic_ulong holds;                        /* 1 while referenced + 1 while a list records: the memory's life */
    d12_device_child device_child;
    D3D12_COMMAND_LIST_TYPE type;              /* fixed */
    const d12_driver_gpu_funcs *gpu;           /* fixed */
    D3D12DDI_HCOMMANDALLOCATOR handle;         /* fixed: the driver's allocator */
    pthread_mutex_t lock;
    struct d12_command_list *recording;        /* lock: the open list recording into it ("one at a time") */
    /* lock: the last submission of a list recorded into it (issue 32 item 2: Reset with it in flight is
     * COMMAND_ALLOCATOR_SYNC). `last_queue` is compared with the device's live queues before any use; `last_list` is
     * cleared when that list goes. */
    struct d12_command_queue *last_queue;
    uint64_t last_serial;
    struct d12_command_list *last_list;
};

struct d12_command_list {
    struct d12__command_list_com com;
    atomic_ulong refcount;                     /* the application's references */
    atomic_ulong holds;                        /* 1 while referenced + 1 per recording: the memory's life */
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_COMMAND_LIST_TYPE type;
    const d12_driver_gpu_funcs *gpu;
    const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 *ddi;
    D3D12DDI_HCOMMANDLIST handle;              /* the driver's list */
    /* pfnSetCommandListStateIndex when correlation is on for the device, else NULL (then no index is issued). */
    PFND3D12DDI_SET_COMMAND_LIST_STATE_INDEX_0126 set_state_index;
    d12_recorder recorder;
    /* Written by the recording thread; atomic because a driver's pfnSetCommandListErrorCb may come from another
     * thread (it should not) and ExecuteCommandLists reads them on the submitting thread. Relaxed loads on the
     * draw path cost what plain ones do. */
    atomic_bool open;
    _Atomic HRESULT error;                     /* the first recording error: Close returns it */
    struct d12_command_allocator *allocator;   /* the recording thread's: a reference while open */
    struct d12_command_allocator *recorded_with; /* the allocator of its last closed recording, held (its memory)
                                                  until the next Close or the list's end: ExecuteCommandLists marks it
                                                  in flight (d12__command_list_mark_in_flight) */
    struct d12_dred_list *dred;                /* fixed: auto-breadcrumbs (runtime/dred/breadcrumbs.h); NULL when off */
    struct d12_dred_list *dred_work;           /* fixed: `dred` for GPU-work ops, NULL when off or markers-only
                                                  ("UseMarkersOnlyAutoBreadcrumbs keeps only SetMarker/BeginEvent/
                                                  EndEvent"): a work op's breadcrumb is then one branch, no check */
    struct d12_dred_list *dred_args;           /* fixed: `dred_work` when breadcrumb contexts are on, else NULL: a
                                                  work op's arguments are noted only then (docs/dred.md, "Op
                                                  arguments"), so auto-breadcrumbs alone pay one branch for them */
};

struct d12_command_queue;
/* ExecuteCommandLists counted the list's submission as `serial` of `queue`: its allocator's work is in flight. */
void d12__command_list_mark_in_flight(struct d12_command_list *list, struct d12_command_queue *queue, uint64_t serial);

/* The DDI's engine flag for an API list type (D3D12DDI_COMMAND_QUEUE_FLAG_NONE for one d12rt does not support). */
D3D12DDI_COMMAND_QUEUE_FLAGS d12__command_list_type_flags(D3D12_COMMAND_LIST_TYPE type);

/* The correlation's owner operations: a recording keeps its list's memory (and name) alive. */
extern const d12_correlation_owner_ops d12__command_list_owner_ops;

/* "<identity> [Draw #2] ": the prefix of a driver message whose index resolved to `kind` #`ordinal` of `list`,
 * malloc'ed (NULL when out of memory). Called under the correlation lock. */
char *d12__command_list_prefix(void *list, int kind, uint32_t ordinal);

/* pfnSetCommandListErrorCb's work: E_OUTOFMEMORY or E_INVALIDARG becomes the list's recording error (Close
 * returns it; a handle that is not a live command list of the device is ignored); any other code removes the
 * device (the WDK's rule for error callbacks). */
bool d12__command_list_driver_error(struct d12_device *device, D3D12DDI_HRTCOMMANDLIST handle, HRESULT hr);

#endif
