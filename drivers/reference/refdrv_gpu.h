/* The reference driver's GPU work, internal to drivers/reference/: buffers in a per-device GPU virtual address
 * space (refdrv_memory.c), recordings and command lists (refdrv_list.c), queues with one timeline thread each
 * (refdrv_queue.c) and what a timeline does with a recording (refdrv_execute.c). docs/refdrv.md describes the
 * whole. */
#ifndef D12_REFDRV_GPU_H
#define D12_REFDRV_GPU_H

#include <stdatomic.h>
#include <stddef.h>

#include "drvcommon_ops.h"
#include "drvcommon_record.h"
#include "drvcommon_rules.h"
#include "drvcommon_va.h"
#include "dxbc.h"
#include "refdrv.h"

#define D12_REFDRV_MAX_VERTEX_BUFFERS D12_DRV_MAX_VERTEX_BUFFERS /* drivers/common/drvcommon_ops.h */
#define D12_REFDRV_MAX_ROOT_PARAMETERS D12_DRV_MAX_ROOT_PARAMETERS

/* A buffer's memory and address range in the device's VA space (drivers/common/drvcommon_va.h). Outlives its
 * resource object while an executing command uses it: the space's lookup takes a reference under its read lock, so
 * a concurrent destroy never frees memory a timeline is copying. */
typedef struct d12__refdrv_buffer {
    atomic_uint refs; /* the resource object's one, plus one per execution-time use */
    UINT64 va, size;
    unsigned char *memory; /* 256-byte aligned; zero-filled at first use: read it through d12__refdrv_buffer_memory */
    atomic_int zeroing;    /* zeroed at first use: a drvcommon_once.h state (d12__refdrv_buffer_memory) */
    D3D12DDI_HRTRESOURCE rt_resource;
    D3D12DDI_HEAP_TYPE heap_type;
} d12__refdrv_buffer;
_Static_assert(offsetof(d12__refdrv_buffer, refs) == 0, "the VA space takes references through the first member");

/* The buffer's memory, zero-filled the first time anyone (Map, a GPU copy or write) asks for it: a committed
 * resource reads as zero, and one created and released untouched never pays for zeroing (docs/performance.md). */
unsigned char *d12__refdrv_buffer_memory(d12__refdrv_buffer *buffer);

/* The driver's resource object, in runtime-allocated memory: a committed buffer owns `buffer` (offset 0); a placed
 * one holds a reference on its heap's (refdrv_heap.c) and is the `width` bytes at `offset` in it (docs/heaps.md). */
typedef struct d12__refdrv_resource {
    d12__refdrv_buffer *buffer;
    UINT64 offset, width;
    bool placed;
} d12__refdrv_resource;

/* The driver's heap object, in runtime-allocated memory: its memory and VA range, allocated as a committed
 * buffer's are (refdrv_heap.c). */
typedef struct d12__refdrv_heap {
    d12__refdrv_buffer *buffer;
} d12__refdrv_heap;

/* One CBV/SRV/UAV descriptor as the reference driver writes it (refdrv_descriptors.c). kind 0: never written (zero
 * memory: an uninitialized descriptor). */
typedef struct d12__refdrv_view_record {
    UINT32 kind;   /* D3D12DDI_BUFFER_VIEW_TYPE_D12RT + 1 */
    UINT32 format; /* DXGI_FORMAT */
    UINT64 va;     /* 0: a null descriptor */
    UINT64 size;
    UINT32 stride;
    UINT32 flags;  /* D3D12DDI_BUFFER_VIEW_FLAGS_D12RT */
    UINT64 counter_va;
} d12__refdrv_view_record;

/* The increment of a CBV_SRV_UAV or SAMPLER heap: one record. */
#define D12_REFDRV_DESCRIPTOR_SIZE 64u

/* A root signature is its description, as data (a copy at version 1.1, one allocation: runtime/dxbc's
 * d12_rootsig_convert), for the execution-time checks to read when lists bind it. */
typedef struct d12__refdrv_root_signature {
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc;
} d12__refdrv_root_signature;

/* A compute pipeline state as data (refdrv_pipeline.c): the registers its shader declares, and its root signature
 * (alive as long as it: the runtime's promise). */
typedef struct d12__refdrv_pipeline_state {
    d12_dxbc_program program;
    const d12__refdrv_root_signature *root_signature;
} d12__refdrv_pipeline_state;

/* The reference driver's own commands, after the shared op log's (drvcommon_ops.h): the binding table's calls
 * (refdrv_pipeline.c), applied to the replay's compute state and never checked as GPU work, and the UAV clears. */
#define D12_REFDRV_CMD_SET_PIPELINE 0x40        /* bind.object: the pipeline state (NULL: none) */
#define D12_REFDRV_CMD_SET_ROOT_SIGNATURE 0x41  /* bind.object: the compute root signature */
#define D12_REFDRV_CMD_SET_HEAPS 0x42           /* bind.heaps[2]: CBV_SRV_UAV, SAMPLER (NULL: unset) */
#define D12_REFDRV_CMD_SET_TABLE 0x43           /* slot: the root parameter; bind.address: the GPU handle */
#define D12_REFDRV_CMD_SET_CONSTANT 0x44        /* slot: the root parameter; bind.offset, bind.value: one constant */
#define D12_REFDRV_CMD_CLEAR_UAV 0x45           /* clear.*; compute: 1 for the float form */

static inline bool d12__refdrv_is_compute_binding(unsigned type)
{
    return type >= D12_REFDRV_CMD_SET_PIPELINE && type <= D12_REFDRV_CMD_SET_CONSTANT;
}

/* The arguments of the reference driver's own commands. */
typedef union d12__refdrv_bind_args {
    struct {
        const void *object;
        const void *heaps[2];
        UINT64 address;
        UINT32 offset, value;
    } bind;
    struct {
        UINT64 gpu_handle;
        SIZE_T cpu_handle;
        UINT32 values[4];
    } clear;
} d12__refdrv_bind_args;

/* The command types and root kinds are the drivers' shared op log (drivers/common/drvcommon_ops.h), under this
 * driver's names. */
typedef d12__drv_op_type d12__refdrv_command_type;
#define D12_REFDRV_CMD_SET_VERTEX_BUFFER D12_DRV_OP_SET_VERTEX_BUFFER
#define D12_REFDRV_CMD_SET_INDEX_BUFFER D12_DRV_OP_SET_INDEX_BUFFER
#define D12_REFDRV_CMD_SET_ROOT D12_DRV_OP_SET_ROOT
#define D12_REFDRV_CMD_DRAW D12_DRV_OP_DRAW
#define D12_REFDRV_CMD_DRAW_INDEXED D12_DRV_OP_DRAW_INDEXED
#define D12_REFDRV_CMD_DISPATCH D12_DRV_OP_DISPATCH
#define D12_REFDRV_CMD_COPY D12_DRV_OP_COPY
#define D12_REFDRV_CMD_BARRIER D12_DRV_OP_BARRIER
#define D12_REFDRV_CMD_WRITE_IMMEDIATE D12_DRV_OP_WRITE_IMMEDIATE
typedef d12__drv_root_kind d12__refdrv_root_kind;
#define D12_REFDRV_ROOT_CBV D12_DRV_ROOT_CBV
#define D12_REFDRV_ROOT_SRV D12_DRV_ROOT_SRV
#define D12_REFDRV_ROOT_UAV D12_DRV_ROOT_UAV

/* One recorded command: a small fixed-size record, so recording a draw is one append. */
typedef struct d12__refdrv_command {
    uint8_t type;       /* d12__refdrv_command_type */
    uint8_t slot;       /* vertex buffer slot; root parameter index */
    uint8_t root_kind;  /* d12__refdrv_root_kind */
    uint8_t compute;    /* SET_ROOT: the compute root signature's table; WRITE_IMMEDIATE: the mode */
    UINT32 state_index; /* draws, dispatches and copies: the index cached when recorded */
    /* GPU work: the DRED op index (d3d12ddi.h, D3D12DDICB_DEVICEFAULT_0127): the Value - 1 of the MARKER_OUT
     * write recorded directly after this command, else D3D12DDI_OP_INDEX_UNKNOWN */
    UINT32 op_index;
    union {
        d12__drv_op_args u;          /* the shared op log's commands */
        d12__refdrv_bind_args bind_u; /* D12_REFDRV_CMD_SET_PIPELINE ... CLEAR_UAV */
    };
} d12__refdrv_command;

#define D12_REFDRV_CHUNK_COMMANDS 1024

typedef struct d12__refdrv_chunk {
    struct d12__refdrv_chunk *next;
    uint32_t count;
    d12__refdrv_command commands[D12_REFDRV_CHUNK_COMMANDS];
} d12__refdrv_chunk;

/* What a list recorded between a Create/Reset and its Close: append-only chunks, shared by the list (until its
 * next Reset or destruction) and every submission of it (until that submission executed). */
typedef struct d12__refdrv_recording {
    atomic_uint refs;
    d12__refdrv_chunk *head, *tail;
    D3D12DDI_HRTCOMMANDLIST rt_list; /* the list that recorded it: named in fault and progress reports */
} d12__refdrv_recording;

/* Record-time view of the bindings, enough for the record-time findings (drivers/common/drvcommon_record.h). */
typedef d12__drv_root_state d12__refdrv_root_state;

/* The driver's command list, in runtime-allocated memory. */
typedef struct d12__refdrv_command_list {
    d12__refdrv_device *device;
    D3D12DDI_HRTCOMMANDLIST rt_list;
    d12__refdrv_recording *recording; /* NULL when a Reset could not allocate one */
    UINT32 state_index;               /* pfnSetCommandListStateIndex's last value: a plain store */
    bool closed, index_buffer_bound;
    d12__refdrv_root_state graphics, compute;
} d12__refdrv_command_list;

/* The driver's allocator: nothing to hold, since recordings own their memory (refdrv_list.c). */
typedef struct d12__refdrv_command_allocator {
    D3D12DDI_COMMAND_QUEUE_FLAGS flags;
} d12__refdrv_command_allocator;

/* ---- refdrv_memory.c ---- */
/* The live buffer whose allocation (its 64 KiB-granular span from its VA) contains `address`, with a reference
 * taken; NULL: the address is on a page mapped to no live allocation (a page fault). */
d12__refdrv_buffer *d12__refdrv_buffer_acquire(d12__refdrv_device *device, UINT64 address);
void d12__refdrv_buffer_release(d12__refdrv_buffer *buffer);
/* v2: the runtime's name of a GPU VA (pfnQueryGpuVaIdentityCb: "0x...:'MyVB' + 0x80", "(released)", "(past its
 * end)"), malloc'ed; NULL when version 2 is not enabled, or the runtime knows no allocation there. */
char *d12__refdrv_va_name(d12__refdrv_device *device, UINT64 va);

/* A new buffer of `width` bytes and `heap_type` with one reference and its own range of the VA space (a committed
 * buffer's or a heap's); E_OUTOFMEMORY when its memory or range cannot be had. */
HRESULT d12__refdrv_buffer_allocate(d12__refdrv_device *device, D3D12DDI_HEAP_TYPE heap_type, UINT64 width,
                                    D3D12DDI_HRTRESOURCE rt, d12__refdrv_buffer **out);

/* The buffer behind a resource handle (for copies recorded by address): its first byte's VA and its Width. */
UINT64 d12__refdrv_resource_va(D3D12DDI_HRESOURCE resource);
UINT64 d12__refdrv_resource_size(D3D12DDI_HRESOURCE resource);
SIZE_T APIENTRY d12__refdrv_calc_private_resource_size(D3D12DDI_HDEVICE device,
                                                       const D3D12DDIARG_CREATERESOURCE_0126 *args);
HRESULT APIENTRY d12__refdrv_create_resource(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                                             D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource);
VOID APIENTRY d12__refdrv_destroy_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);
HRESULT APIENTRY d12__refdrv_map_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource, void **data);
VOID APIENTRY d12__refdrv_unmap_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);
UINT64 APIENTRY d12__refdrv_resource_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);

/* ---- refdrv_list.c ---- */
SIZE_T APIENTRY d12__refdrv_calc_private_allocator_size(D3D12DDI_HDEVICE device,
                                                        const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args);
HRESULT APIENTRY d12__refdrv_create_allocator(D3D12DDI_HDEVICE device,
                                              const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args,
                                              D3D12DDI_HCOMMANDALLOCATOR allocator);
VOID APIENTRY d12__refdrv_destroy_allocator(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDALLOCATOR allocator);
VOID APIENTRY d12__refdrv_reset_allocator(D3D12DDI_HCOMMANDALLOCATOR allocator);
SIZE_T APIENTRY d12__refdrv_calc_private_list_size(D3D12DDI_HDEVICE device,
                                                   const D3D12DDIARG_CREATECOMMANDLIST_0126 *args);
HRESULT APIENTRY d12__refdrv_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                         D3D12DDI_HCOMMANDLIST list, D3D12DDI_HRTCOMMANDLIST rt_list);
VOID APIENTRY d12__refdrv_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST list);
/* Append a command of `type` to the list's recording (NULL after a recording error: out of memory, or closed). */
d12__refdrv_command *d12__refdrv_list_append(d12__refdrv_command_list *list, unsigned type);
/* The list's current recording with a reference taken (NULL: none), for a submission. */
d12__refdrv_recording *d12__refdrv_list_recording(D3D12DDI_HCOMMANDLIST list);
void d12__refdrv_recording_retain(d12__refdrv_recording *recording);
void d12__refdrv_recording_release(d12__refdrv_recording *recording);

/* ---- refdrv_queue.c ---- */
SIZE_T APIENTRY d12__refdrv_calc_private_queue_size(D3D12DDI_HDEVICE device,
                                                    const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args);
HRESULT APIENTRY d12__refdrv_create_queue(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args,
                                          D3D12DDI_HCOMMANDQUEUE queue, D3D12DDI_HRTCOMMANDQUEUE rt_queue);
VOID APIENTRY d12__refdrv_destroy_queue(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDQUEUE queue);

/* ---- refdrv_execute.c ---- */
/* One queue's timeline as execution sees it. */
typedef struct d12__refdrv_timeline {
    d12__refdrv_device *device;
    D3D12DDI_HRTCOMMANDQUEUE rt_queue;
    UINT64 debt_ns; /* GPU time of cheap commands not slept yet (paid once it reaches 1 ms) */
} d12__refdrv_timeline;

/* Execute one recording on a timeline: copies, writes, GPU time, and the execution-time findings queued on the
 * device. false: the engine was reset (a fault, or pfnReportGpuProgressCb answered that the device is removed):
 * the command in flight never completed and the timeline must drop everything queued after it. */
bool d12__refdrv_execute(d12__refdrv_timeline *timeline, const d12__refdrv_recording *recording);

/* pfnReportGpuProgressCb (build 0127; S_OK before it): false when the device is removed. */
bool d12__refdrv_progress(d12__refdrv_timeline *timeline, D3D12DDI_GPU_PROGRESS_0127 progress,
                          D3D12DDI_HRTCOMMANDLIST list, UINT32 op_index);

/* The GPU cost of a command in nanoseconds, saturating (docs/refdrv.md, "GPU time"). */
UINT64 d12__refdrv_command_cost_ns(const d12__refdrv_rates *rates, const d12__refdrv_command *command);

/* ---- refdrv_dispatch.c (docs/pipelines.md) ---- */
struct d12__drv_descriptor_heap;
/* The compute state a replay keeps beside the shared bindings (d12__drv_bindings holds the root views). */
typedef struct d12__refdrv_compute {
    const d12__refdrv_pipeline_state *pipeline;
    const d12__refdrv_root_signature *root_signature;
    const struct d12__drv_descriptor_heap *heaps[2]; /* CBV_SRV_UAV, SAMPLER */
    UINT64 tables[D12_REFDRV_MAX_ROOT_PARAMETERS];
    uint64_t table_mask;
    UINT32 dispatches; /* dispatches replayed so far: the next one's "[Dispatch #n]" */
} d12__refdrv_compute;

/* Apply a binding command (d12__refdrv_is_compute_binding) to the replay's compute state. */
void d12__refdrv_compute_bind(d12__refdrv_compute *c, d12__drv_bindings *b, const d12__refdrv_command *command);
/* A dispatch with a pipeline state: every declared register resolved now and D3D12's rules applied. false: it must
 * not run (an uninitialized descriptor was reported, or a page fault is in x). */
bool d12__refdrv_dispatch_check(d12__drv_exec *x, const d12__refdrv_compute *c, const d12__drv_bindings *b,
                                const d12__refdrv_command *dispatch);
/* A UAV clear's effect; false: its view's buffer is gone (a page fault in x). */
bool d12__refdrv_clear_uav(d12__drv_exec *x, const d12__refdrv_command *clear);

/* ---- refdrv_device.c ---- */
/* Report a finding now, from the recording call (no driver lock is held there). Nothing when drm is off. */
void d12__refdrv_report_now(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                            UINT32 state_index, const char *format, ...) __attribute__((format(printf, 5, 6)));
/* Hold a finding for the next flush. Nothing when drm is off. */
void d12__refdrv_report_later(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                              UINT32 state_index, const char *format, ...) __attribute__((format(printf, 5, 6)));

#endif
