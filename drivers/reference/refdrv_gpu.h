/* The reference driver's GPU work, internal to drivers/reference/: buffers in a per-device GPU virtual address
 * space (refdrv_memory.c), recordings and command lists (refdrv_list.c), queues with one timeline thread each
 * (refdrv_queue.c) and what a timeline does with a recording (refdrv_execute.c). docs/refdrv.md describes the
 * whole. */
#ifndef D12_REFDRV_GPU_H
#define D12_REFDRV_GPU_H

#include <stdatomic.h>

#include "refdrv.h"

/* The device's GPU virtual address space: a bump allocator (addresses are never reused, so a stale address
 * faults instead of reaching a newer buffer) and the buffers sorted by address. Allocation order is address order,
 * so a new buffer is always appended. A released buffer's entry keeps its address with no buffer (its range
 * resolves to nothing, as a gap does) until a compaction, which runs when released entries outnumber live ones:
 * a release is a binary search and a store, compactions amortized O(1) over releases in any order (issue 17 item
 * 7.8: a memmove per release made 200 000 releases in creation order quadratic). */
typedef struct d12__refdrv_va_entry {
    UINT64 va;
    struct d12__refdrv_buffer *buffer; /* NULL: released */
} d12__refdrv_va_entry;

typedef struct d12__refdrv_va_space {
    pthread_rwlock_t lock; /* guards everything below; readers are the timelines resolving addresses */
    UINT64 next;
    d12__refdrv_va_entry *entries;
    size_t count, capacity, released; /* entries in use; allocated; of those in use, released */
    UINT64 moved; /* entries copied by compactions, ever: the work a test counts (tests/driver/test_refdrv_va.c) */
} d12__refdrv_va_space;

#define D12_REFDRV_VA_BASE 0x0000000100000000ull
#define D12_REFDRV_VA_ALIGNMENT 0x10000ull /* 64 KiB: each buffer's start, and its unmapped gap after it */
#define D12_REFDRV_MAX_VERTEX_BUFFERS 32
#define D12_REFDRV_MAX_ROOT_PARAMETERS 64

/* A buffer's memory and address range. Outlives its resource object while an executing command uses it: the
 * registry's lookup takes a reference under the read lock, so a concurrent destroy never frees memory a
 * timeline is copying. */
typedef struct d12__refdrv_buffer {
    atomic_uint refs; /* the resource object's one, plus one per execution-time use */
    UINT64 va, size;
    unsigned char *memory; /* 256-byte aligned; zero-filled at first use: read it through d12__refdrv_buffer_memory */
    atomic_int zeroing;    /* 0: not zeroed yet, 1: being zeroed, 2: zeroed (d12__refdrv_buffer_memory) */
    D3D12DDI_HRTRESOURCE rt_resource;
    D3D12DDI_HEAP_TYPE heap_type;
} d12__refdrv_buffer;

/* The buffer's memory, zero-filled the first time anyone (Map, a GPU copy or write) asks for it: a committed
 * resource reads as zero, and one created and released untouched never pays for zeroing (docs/performance.md). */
unsigned char *d12__refdrv_buffer_memory(d12__refdrv_buffer *buffer);

/* The driver's resource object, in runtime-allocated memory. */
typedef struct d12__refdrv_resource {
    d12__refdrv_buffer *buffer;
} d12__refdrv_resource;

typedef enum d12__refdrv_command_type {
    D12_REFDRV_CMD_SET_VERTEX_BUFFER, /* one slot per record (a NULL view unbinds it) */
    D12_REFDRV_CMD_SET_INDEX_BUFFER,
    D12_REFDRV_CMD_SET_ROOT, /* graphics or compute root CBV/SRV/UAV */
    D12_REFDRV_CMD_DRAW,
    D12_REFDRV_CMD_DRAW_INDEXED,
    D12_REFDRV_CMD_DISPATCH,
    D12_REFDRV_CMD_COPY,
    D12_REFDRV_CMD_BARRIER,
    D12_REFDRV_CMD_WRITE_IMMEDIATE, /* pfnWriteBufferImmediate (build 0127): one record per write */
} d12__refdrv_command_type;

typedef enum d12__refdrv_root_kind {
    D12_REFDRV_ROOT_CBV,
    D12_REFDRV_ROOT_SRV,
    D12_REFDRV_ROOT_UAV,
} d12__refdrv_root_kind;

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
        struct {
            UINT64 address; /* 0: unbound */
            UINT32 size, stride_or_format;
        } view;
        struct {
            UINT32 count, instances, start;
            INT32 base_vertex;
        } draw;
        struct {
            UINT64 dst, src, size; /* GPU virtual addresses: resolved at execution */
        } copy;
        struct {
            UINT64 dest; /* GPU virtual address, 4-byte aligned: resolved at execution */
            UINT32 value;
        } write;
    } u;
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

/* Record-time view of the bindings, enough for the record-time findings. */
typedef struct d12__refdrv_root_state {
    uint64_t zero_mask;               /* parameters bound to address 0 */
    uint8_t kinds[D12_REFDRV_MAX_ROOT_PARAMETERS];
} d12__refdrv_root_state;

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
/* The device's address space (malloc'ed), NULL out of memory. */
d12__refdrv_va_space *d12__refdrv_va_create(void);
void d12__refdrv_va_destroy(d12__refdrv_va_space *va);
/* Reserve `buffer`'s address range (buffer->va) and register it; false when the registry cannot grow. */
bool d12__refdrv_va_register(d12__refdrv_va_space *va, struct d12__refdrv_buffer *buffer);
void d12__refdrv_va_unregister(d12__refdrv_va_space *va, const struct d12__refdrv_buffer *buffer);
/* The live buffer whose allocation (its 64 KiB-granular span from its VA) contains `address`, with a reference
 * taken; NULL: the address is on a page mapped to no live allocation (a page fault). */
d12__refdrv_buffer *d12__refdrv_buffer_acquire(d12__refdrv_device *device, UINT64 address);
/* The bytes of the buffer's allocation: Width rounded up to 64 KiB (the unmapped gap of 64 KiB follows it). */
UINT64 d12__refdrv_allocation_span(const d12__refdrv_buffer *buffer);
void d12__refdrv_buffer_release(d12__refdrv_buffer *buffer);
/* The buffer's identity from pfnQueryObjectIdentityCb, else "GPU VA 0x..." (malloc'ed; NULL out of memory). */
char *d12__refdrv_buffer_name(d12__refdrv_device *device, const d12__refdrv_buffer *buffer);
/* v2: the runtime's name of a GPU VA (pfnQueryGpuVaIdentityCb: "0x...:'MyVB' + 0x80", "(released)", "(past its
 * end)"), malloc'ed; NULL when version 2 is not enabled, or the runtime knows no allocation there. */
char *d12__refdrv_va_name(d12__refdrv_device *device, UINT64 va);

/* The buffer behind a resource handle (for copies recorded by address). */
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

/* ---- refdrv_device.c ---- */
/* Report a finding now, from the recording call (no driver lock is held there). Nothing when drm is off. */
void d12__refdrv_report_now(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                            UINT32 state_index, const char *format, ...) __attribute__((format(printf, 5, 6)));
/* Hold a finding for the next flush. Nothing when drm is off. */
void d12__refdrv_report_later(d12__refdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                              UINT32 state_index, const char *format, ...) __attribute__((format(printf, 5, 6)));

#endif
