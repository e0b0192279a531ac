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
struct d12_root_signature;
struct d12_descriptor_heap;

/* One root argument as the list set it (list_binding.c): for a pipeline state or the driver to read. */
typedef enum d12_root_argument_kind {
    D12_ROOT_ARGUMENT_UNSET,
    D12_ROOT_ARGUMENT_TABLE,     /* value: the GPU descriptor handle of the table's first descriptor */
    D12_ROOT_ARGUMENT_CONSTANTS, /* constants[] of the parameter's Num32BitValues (those never set are 0) */
    D12_ROOT_ARGUMENT_VIEW,      /* value: the root view's GPU virtual address */
} d12_root_argument_kind;

typedef struct d12_root_argument {
    d12_root_argument_kind kind;
    UINT64 value;
} d12_root_argument;

/* A list's binding state, per pipeline kind ([0] graphics, [1] compute): what SetGraphics/ComputeRootSignature,
 * SetDescriptorHeaps and the root argument setters recorded (list_binding.c). The recording thread's; reset when a
 * recording begins and at the list's end. Setting another root signature unsets every argument (D3D12: "all
 * previously set root arguments become undefined"). */
typedef struct d12_list_bindings {
    struct d12_root_signature *root_signature[2]; /* a reference while bound; NULL: none */
    d12_root_argument arguments[2][64];           /* by root parameter index (at most 64 parameters) */
    UINT32 constants[2][64];                      /* the root constants, by DWORD of the root arguments */
    struct d12_descriptor_heap *heaps[2];         /* CBV_SRV_UAV, SAMPLER (no reference: D3D12 leaves their life to
                                                     the application while the list may execute) */
    struct d12_pipeline_state *pipeline;          /* a reference while set (SetPipelineState, pInitialState) */
    UINT32 dispatches;                            /* Dispatch calls recorded so far: the next one's "[Dispatch #n]" */
    /* Every pipeline state and root signature the recording named, a reference each until the binding state is
     * reset (the next recording, the list's end), so one replaced mid-recording outlives the calls that used it. */
    struct d12_list_kept {
        struct d12_pipeline_state *pipeline;             /* one of the two */
        struct d12_root_signature *root_signature;
    } *kept;
    UINT32 kept_count, kept_capacity;
} d12_list_bindings;

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
    /* The compute pair's binding table (docs/pipelines.md): the driver's, a bundle's log, or NULL when the driver has
     * no compute tables (then the binding calls are validated and not forwarded). */
    const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT *binding;
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
    d12_list_bindings *bindings;               /* allocated at the first binding call; NULL: nothing bound yet */
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
