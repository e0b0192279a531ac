/* The execution-time rules both drivers apply when a queue's timeline reaches a recorded op (docs/refdrv.md, the
 * reference driver's rules; docs/vulkan.md keeps them): the bindings replayed fresh for each list (D3D12 lists
 * inherit no state), every address a draw, dispatch, copy or write would touch resolved against the live buffers.
 * A range inside its buffer's 64 KiB-granular allocation but past its Width is an overrun finding (ERROR, the
 * *_PAST_END ids); a byte on a page mapped to no live allocation is a page fault (the CORRUPTION finding; the GPU
 * stops at the first bad access, so the op's later checks are skipped). There are no shaders here, so a root
 * descriptor's read is modelled: a root CBV reads 256 bytes (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT, the
 * smallest constant buffer), a root SRV or UAV 4 bytes (one element). Address 0 is "nothing bound": a null vertex
 * buffer view is legal, and a root descriptor at 0 was already reported while recording.
 *
 * The findings' texts and VendorMessageIds are here, once; each driver resolves addresses, names buffers and
 * queues the findings through its d12__drv_checks. */
#ifndef D12_DRVCOMMON_RULES_H
#define D12_DRVCOMMON_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "d12rt/d3d12ddi.h"

#include "drvcommon_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mandatory initialization message's text (driver-reported-messages.txt, "exact ASCII string"). */
#define D12_REFDRV_DRM_INIT_TEXT "D3D12 Driver Reported Messages Enabled"
/* The VendorMessageId of the initialization message. */
#define D12_REFDRV_DRM_INIT_ID 0x0D12000000000001ull

/* The VendorMessageIds of the drivers' validation findings (docs/refdrv.md), named for the reference driver whose
 * rules they are; the Vulkan driver reports the same. Stable: tests and tools match on them. 0x01xx are found
 * while recording (reported at once, from the recording call), 0x02xx and 0x03xx while executing on a queue's
 * timeline (held until the next pfnFlushDriverReportedMessages). */
#define D12_REFDRV_MSG_NO_INDEX_BUFFER 0x0D12000000000101ull        /* ERROR: indexed draw, no index buffer */
#define D12_REFDRV_MSG_ROOT_DESCRIPTOR_NULL 0x0D12000000000102ull   /* ERROR: root CBV/SRV/UAV at address 0 */
#define D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END 0x0D12000000000201ull /* ERROR: VB view runs past its buffer */
#define D12_REFDRV_MSG_INDEX_BUFFER_PAST_END 0x0D12000000000202ull  /* ERROR: IB view runs past its buffer */
#define D12_REFDRV_MSG_ROOT_DESCRIPTOR_PAST_END 0x0D12000000000203ull /* ERROR: root range past its buffer */
#define D12_REFDRV_MSG_INDEX_READ_PAST_VIEW 0x0D12000000000204ull   /* ERROR: indices read past the IB view */
#define D12_REFDRV_MSG_COPY_PAST_END 0x0D12000000000205ull          /* ERROR: a copy range past its buffer */
#define D12_REFDRV_MSG_WRITE_PAST_END 0x0D12000000000206ull         /* ERROR: a write-immediate past its buffer */
#define D12_REFDRV_MSG_PAGE_FAULT 0x0D12000000000301ull             /* CORRUPTION: address in no live buffer */

#define D12_DRV_ROOT_CBV_READ 256u /* D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT */
#define D12_DRV_ROOT_VIEW_READ 4u
/* The words naming what an access belongs to, in every finding of it. */
#define D12_DRV_WHAT_INDEX_BUFFER "The index buffer view"

/* The bytes a root descriptor of `kind` (d12__drv_root_kind) is modelled to read. */
static inline UINT32 d12__drv_root_read(unsigned kind)
{
    return kind == D12_DRV_ROOT_CBV ? D12_DRV_ROOT_CBV_READ : D12_DRV_ROOT_VIEW_READ;
}

/* The bytes of one index of an index buffer view's format. */
static inline UINT64 d12__drv_index_size(UINT32 format)
{
    return format == DXGI_FORMAT_R16_UINT ? 2 : 4;
}

/* "The vertex buffer view in slot N", "The root CBV at root parameter N" into `what`. */
void d12__drv_what_vertex_buffer(char *what, size_t size, unsigned slot);
void d12__drv_what_root(char *what, size_t size, unsigned kind, unsigned index);

/* The name a finding gives a buffer: its identity from pfnQueryObjectIdentityCb (`query`, NULL before build 0126),
 * else "GPU VA 0x..." of its `va` (malloc'ed; NULL out of memory). */
char *d12__drv_buffer_name(PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126 query, D3D12DDI_HRTDEVICE rt_device,
                           D3D12DDI_HRTRESOURCE rt_resource, UINT64 va);

/* The bindings a list's replay starts fresh with, and keeps by its binding ops. */
typedef struct d12__drv_root_binding {
    UINT64 address;
    uint8_t kind; /* d12__drv_root_kind */
} d12__drv_root_binding;

typedef struct d12__drv_bindings {
    d12__drv_view vertex[D12_DRV_MAX_VERTEX_BUFFERS];
    uint32_t vertex_mask;
    d12__drv_view index;
    d12__drv_root_binding graphics[D12_DRV_MAX_ROOT_PARAMETERS], compute[D12_DRV_MAX_ROOT_PARAMETERS];
    uint64_t graphics_mask, compute_mask;
} d12__drv_bindings;

/* Whether `type` (d12__drv_op_type) binds (SET_VERTEX_BUFFER, SET_INDEX_BUFFER, SET_ROOT), and so is applied by
 * d12__drv_bind rather than checked. */
static inline bool d12__drv_is_binding(unsigned type)
{
    return type == D12_DRV_OP_SET_VERTEX_BUFFER || type == D12_DRV_OP_SET_INDEX_BUFFER || type == D12_DRV_OP_SET_ROOT;
}

/* Apply a binding op: its slot (vertex buffer slot, root parameter index), for SET_ROOT its table (`compute`) and
 * kind, and its view. */
void d12__drv_bind(d12__drv_bindings *b, unsigned type, unsigned slot, bool compute, unsigned root_kind,
                   const d12__drv_view *view);

/* What a driver lends the rules. `buffer` is the driver's buffer object. */
typedef struct d12__drv_checks {
    /* The live buffer whose allocation contains `address`, a reference taken, with its VA and Width; NULL: a page
     * fault. */
    void *(*acquire)(void *device, UINT64 address, UINT64 *va, UINT64 *width);
    void (*release)(void *buffer);
    /* Whether findings are wanted now; when not, no name is asked for and nothing is reported. */
    bool (*validating)(void *device);
    /* The buffer's name for a message (malloc'ed; NULL: "a buffer"). */
    char *(*buffer_name)(void *device, const void *buffer);
    /* NULL, or version 2's name of a GPU VA (malloc'ed; NULL: none), appended to a finding. */
    char *(*va_name)(void *device, UINT64 va);
    /* Hold a finding (category EXECUTION) for the next flush. */
    void (*report)(void *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 state_index,
                   const char *text);
    /* The page faults of draws and dispatches are found elsewhere (the Vulkan driver's kernels): here they get
     * only the overrun findings, which are about a view and its buffer, not about an access. */
    bool kernel_faults;
} d12__drv_checks;

/* One op's execution-time checks. `faulted` with `fault_va` and `fault_flags` (D3D12DDI_PAGE_FAULT_FLAG_*): the
 * first page fault (later checks are skipped until the driver clears it); `bad`: the op had a finding or a fault
 * (its effect must not run). */
typedef struct d12__drv_exec {
    const d12__drv_checks *checks;
    void *device;
    bool faulted, bad;
    UINT64 fault_va;
    UINT fault_flags;
} d12__drv_exec;

/* The checks of the non-binding op `type` with arguments `u` and state index `index` against the bindings `b`.
 * For a copy or a write, *src and *dst (when not NULL) receive the buffers its effect needs, a reference held
 * (NULL: the range was not wholly inside one buffer); with src and dst NULL the references are dropped. */
void d12__drv_check_op(d12__drv_exec *x, const d12__drv_bindings *b, unsigned type, UINT32 index,
                       const d12__drv_op_args *u, void **src, void **dst);

/* A page fault of the op at `address` (in no live buffer): the CORRUPTION finding "Page fault: <what> reads|writes
 * GPU virtual address ..." and the fault state in `x` (for the driver's pfnDeviceFaultCb). */
void d12__drv_page_fault(d12__drv_exec *x, UINT32 index, UINT64 address, bool write, const char *what);

#ifdef __cplusplus
}
#endif

#endif
