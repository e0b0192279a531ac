/* The Vulkan driver's application compute work (issue 31; docs/pipelines.md, "Dispatch on the Vulkan driver"):
 *   vkdrv_compute.c  the pipelines table (pfnCreateComputePipelineState over vkdrv_pipeline.c) and the binding table:
 *                    the list's compute binding state, snapshotted into the recording's compute log at each
 *                    dispatch with a pipeline state, ClearUnorderedAccessView*, and the UAV barriers between them
 *   vkdrv_bind.c     execution: every register a dispatch's pipeline declares resolved from the heap AS IT IS THEN
 *                    (root signature 1.0 "volatile"), the root views and constants, written into descriptor sets on
 *                    the queue thread, then the command buffer of a run of dispatches recorded and handed to the
 *                    timeline (vkdrv_queue.c) as one submission of about D12_VKDRV_CHUNK_NS of estimated work
 * A run of dispatches with a pipeline state, clears and barriers between them is a "compute segment" of the
 * recording: nothing of it is recorded into Vulkan at record time (a descriptor read at execution cannot be in a
 * command buffer recorded before it); the first other op that records a Vulkan command ends the segment. */
#ifndef D12_VKDRV_COMPUTE_H
#define D12_VKDRV_COMPUTE_H

#include "drvcommon_descriptors.h"
#include "vkdrv.h"
#include "vkdrv_pipeline.h"

/* A pipeline state's private memory (D3D12DDI_HPIPELINESTATE). */
typedef struct d12__vkdrv_pso {
    d12__vkdrv_pipeline pipeline;
    uint32_t estimate_threads; /* threads per group (the record-time estimate) */
} d12__vkdrv_pso;

/* The compute binding state a dispatch runs with (D3D12: pfnResetCommandList clears it; a different root signature
 * clears the root arguments). */
typedef struct d12__vkdrv_cs_state {
    const d12__vkdrv_pso *pso;
    const d12__vkdrv_root_signature *signature;
    const d12__drv_descriptor_heap *heaps[2]; /* CBV_SRV_UAV, SAMPLER (shader-visible; NULL: none) */
    UINT64 tables[D12_VKDRV_MAX_ROOT_PARAMETERS]; /* a table's base GPU descriptor handle (0: not set) */
    UINT64 roots[D12_VKDRV_MAX_ROOT_PARAMETERS];  /* a root view's GPU VA (0: not set) */
    unsigned char push[256];                      /* root constants at the root signature's push offsets */
} d12__vkdrv_cs_state;

typedef enum d12__vkdrv_cs_kind {
    D12_VKDRV_CS_DISPATCH, /* the application's shader: `state` is the snapshot index */
    D12_VKDRV_CS_CLEAR,    /* ClearUnorderedAccessView*: `clear` */
    D12_VKDRV_CS_BARRIER,  /* a resource barrier inside a compute segment: `uav_only` */
    D12_VKDRV_CS_WRITE,    /* a write-immediate inside a compute segment (DRED's breadcrumbs): the op's u.write */
} d12__vkdrv_cs_kind;

/* A buffer UAV clear, decided at record time (D3D12 reads the CPU descriptor during the call): `pattern_size` bytes of
 * `pattern` repeated over [va, va + size) at execution. */
typedef struct d12__vkdrv_cs_clear {
    UINT64 va, size;
    unsigned char pattern[16];
    uint32_t pattern_size;
} d12__vkdrv_cs_clear;

typedef struct d12__vkdrv_cs_entry {
    d12__vkdrv_cs_kind kind;
    uint32_t state;
    bool uav_only;
    d12__vkdrv_cs_clear clear;
} d12__vkdrv_cs_entry;

/* The recording's compute log: snapshots of the binding state (a new one only when it changed), the entries the ops
 * of the compute segments name (d12__vkdrv_op.cs - 1), and which segments are compute segments. */
typedef struct d12__vkdrv_cs_log {
    d12__vkdrv_cs_state *states;
    size_t state_count, state_capacity;
    d12__vkdrv_cs_entry *entries;
    size_t entry_count, entry_capacity;
    uint8_t *segments; /* [segment] 1: a compute segment */
    size_t segment_capacity;
} d12__vkdrv_cs_log;

/* The list's side (allocated at its first compute call). */
typedef struct d12__vkdrv_cs_list {
    d12__vkdrv_cs_state state;
    bool dirty;   /* changed since the last snapshot */
    bool segment; /* the current segment is a compute segment */
} d12__vkdrv_cs_list;

/* ---- vkdrv_compute.c ---- */
/* A Vulkan command other than a compute segment's is to be recorded: the compute segment (if any) ends first. */
void d12__vkdrv_cs_leave(d12__vkdrv_command_list *list);
/* pfnResetCommandList / Create: the binding state cleared (the list's side kept); Destroy: freed. */
void d12__vkdrv_cs_reset(d12__vkdrv_command_list *list);
void d12__vkdrv_cs_free(d12__vkdrv_command_list *list);
void d12__vkdrv_cs_log_free(d12__vkdrv_cs_log *log);
/* pfnDispatch with a pipeline state set: appended to the compute segment (true); false: none set (the check kernel). */
bool d12__vkdrv_cs_dispatch(d12__vkdrv_command_list *list, UINT x, UINT y, UINT z);
/* pfnResourceBarrier inside a compute segment: logged there (true); false: not in one (recorded as before). */
bool d12__vkdrv_cs_barrier(d12__vkdrv_command_list *list, UINT count, const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers);
/* pfnWriteBufferImmediate's write inside a compute segment (validated by the caller): logged there (true); false:
 * not in one (recorded as before). Breadcrumbs between dispatches so do not cut the segment into submissions. */
bool d12__vkdrv_cs_write(d12__vkdrv_command_list *list, const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *param,
                         D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode);
/* Whether ops of `segment` are a compute segment's. */
bool d12__vkdrv_cs_segment(const d12__vkdrv_recording *recording, size_t segment);
/* The tables the adapter lists (vkdrv_adapter.c). */
extern const D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT d12__vkdrv_pipeline_funcs;
extern const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT d12__vkdrv_binding_funcs;

/* ---- vkdrv_descriptors.c: a view's record, read ---- */
typedef enum d12__vkdrv_view_kind { D12_VKDRV_VIEW_NONE, D12_VKDRV_VIEW_CBV, D12_VKDRV_VIEW_SRV, D12_VKDRV_VIEW_UAV } d12__vkdrv_view_kind;
typedef struct d12__vkdrv_view_desc {
    d12__vkdrv_view_kind kind; /* NONE: never written (an uninitialized descriptor) */
    VkFormat format;           /* a typed view's; VK_FORMAT_UNDEFINED for raw, structured and CBVs */
    DXGI_FORMAT dxgi;          /* the view's format as created */
    UINT64 va, range;          /* va 0: a null descriptor */
    UINT64 counter_va;
    UINT32 stride;
    bool raw;
} d12__vkdrv_view_desc;
void d12__vkdrv_view_read(SIZE_T record, d12__vkdrv_view_desc *out);
/* The bytes of one CBV_SRV_UAV / SAMPLER descriptor (the heaps' increment). */
#define D12_VKDRV_DESCRIPTOR_SIZE 64u

/* ---- vkdrv_bind.c: execution ---- */
/* The device's null buffer destroyed (device destruction). */
void d12__vkdrv_cs_device_fini(d12__vkdrv_device *device);
typedef struct d12__vkdrv_cs_piece d12__vkdrv_cs_piece;
/* The ops [from, to) of a compute segment, from `from` on, resolved now and recorded into one command buffer of
 * `pool` up to about D12_VKDRV_CHUNK_NS of estimated work or the first op that faults. NULL: out of memory. */
d12__vkdrv_cs_piece *d12__vkdrv_cs_prepare(d12__vkdrv_device *device, const d12__vkdrv_recording *recording,
                                           VkCommandPool pool, size_t from, size_t to);
/* What the piece covers: its command buffer (VK_NULL_HANDLE: nothing to submit) and the op after its last. */
VkCommandBuffer d12__vkdrv_cs_piece_cb(const d12__vkdrv_cs_piece *piece);
size_t d12__vkdrv_cs_piece_end(const d12__vkdrv_cs_piece *piece);
/* The op at the piece's end faulted (a page fault, its message queued): true with its VA and flags. */
bool d12__vkdrv_cs_piece_fault(const d12__vkdrv_cs_piece *piece, UINT64 *va, UINT *flags);
/* After its submission completed (or was never made): its descriptor sets, views, buffers and command buffer go. */
void d12__vkdrv_cs_piece_free(d12__vkdrv_device *device, VkCommandPool pool, d12__vkdrv_cs_piece *piece);

#endif
