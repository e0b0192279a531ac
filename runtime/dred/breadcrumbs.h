/* Auto-breadcrumbs: the per-command-list history of D3D12_AUTO_BREADCRUMB_OPs, the GPU-written completed-op counter,
 * breadcrumb contexts (DRED 1.2) and the small state log the report reads for the faulting op (docs/dred.md).
 *
 * Threads: one thread records a list at a time (D3D12's rule), so the recording side takes no lock and no atomic
 * read-modify-write; a removal snapshots outstanding lists, which are closed (the application does not record into
 * a list the GPU is executing). Recording an op with breadcrumbs off costs one predictable branch on list->dred. */
#ifndef D12_DRED_BREADCRUMBS_H
#define D12_DRED_BREADCRUMBS_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

#include "d12_com.h"
#include "d12rt/d3d12ddi.h"

struct d12_device;
struct d12_command_list;

/* "The ring holds the last 65 536 ops in slot i % 65536" (dred-semantics.md 3.2). */
#define D12_DRED_RING_SLOTS 65536u
#define D12_DRED_RING_MASK (D12_DRED_RING_SLOTS - 1u)

/* The write-immediate call (DDI build 0127, BRIEF §2). */
typedef PFND3D12DDI_WRITEBUFFERIMMEDIATE_0127 d12_dred_write_immediate_fn;

/* A breadcrumb context: {op index, string}, copied at record time (dred-semantics.md 3.4). */
typedef struct d12_dred_context {
    UINT index;
    wchar_t *text; /* malloc'ed, NUL-terminated */
} d12_dred_context;

/* What the report shows for the faulting op: the views and root descriptors current at it, rebuilt from a log of
 * state changes (one entry per IASetVertexBuffers slot / IASetIndexBuffer / root descriptor call while DRED is on). */
typedef enum d12_dred_state_kind {
    D12_DRED_STATE_VERTEX_BUFFER,   /* slot, view */
    D12_DRED_STATE_INDEX_BUFFER,    /* view (size 0: unbound) */
    D12_DRED_STATE_ROOT_DESCRIPTOR, /* slot = root parameter index; which = the setter */
    D12_DRED_STATE_COPY,            /* CopyBufferRegion's sides, for that op only: which 0 destination, 1 source;
                                       address = the buffer's VA + offset, size = NumBytes (saturated) */
} d12_dred_state_kind;

typedef enum d12_dred_root_kind {
    D12_DRED_ROOT_GRAPHICS_CBV, D12_DRED_ROOT_GRAPHICS_SRV, D12_DRED_ROOT_GRAPHICS_UAV,
    D12_DRED_ROOT_COMPUTE_CBV, D12_DRED_ROOT_COMPUTE_SRV, D12_DRED_ROOT_COMPUTE_UAV,
} d12_dred_root_kind;

typedef struct d12_dred_state_change {
    UINT op;       /* the op count when the change was recorded: it applies to ops >= op */
    uint8_t kind;  /* d12_dred_state_kind */
    uint8_t which; /* d12_dred_root_kind for a root descriptor */
    uint16_t slot;
    UINT64 address; /* BufferLocation */
    UINT size;      /* SizeInBytes (views) */
    UINT stride;    /* StrideInBytes (vertex) or DXGI_FORMAT (index) */
    UINT step;      /* 0; in a bundle's replay (issue 32 item 1), 1 + the bundle's draws and dispatches before it: a
                       bundle draw at position p saw the changes of its EXECUTEBUNDLE op with step <= p + 1 */
} d12_dred_state_change;

/* A work op's arguments as the application passed them, for the report's op state ("IndexCountPerInstance=36, ...").
 * One per ring slot (the op at index i owns slot i & D12_DRED_RING_MASK, as in the history), written by every work op
 * that has arguments (draws, dispatches, CopyBufferRegion), read only for such an op: a slot is never read before the
 * current recording wrote it. */
typedef union d12_dred_work_args {
    UINT32 u32[5]; /* draws and dispatches, in parameter order (BaseVertexLocation as its INT bits) */
    UINT64 u64[3]; /* CopyBufferRegion: DstOffset, SrcOffset, NumBytes */
} d12_dred_work_args;

/* A bundle executed into the list (issue 32 item 1). Windows DRED counts the EXECUTEBUNDLE only ("*pLastBreadcrumbValue
 * stays at the EXECUTEBUNDLE op"), so the bundle's draws are no ops of the list; the report still names the draw
 * the driver named, with the state that draw saw, from these records (docs/dred.md, "Bundles"). */
typedef struct d12_dred_bundle_run {
    UINT op;         /* the EXECUTEBUNDLE's index */
    UINT64 identity; /* the bundle's ID3D12GraphicsCommandList pointer (what its driver messages start with) */
    char *name;      /* its debug name at ExecuteBundle (malloc'ed), or NULL */
} d12_dred_bundle_run;
typedef struct d12_dred_bundle_work {
    UINT op;        /* the EXECUTEBUNDLE's index */
    UINT position;  /* among the bundle's draws and dispatches, from 0 */
    UINT ordinal;   /* among the bundle's ops of its kind, from 0: the driver's "[Draw #n]" */
    UINT kind;      /* D3D12_AUTO_BREADCRUMB_OP */
    d12_dred_work_args args;
} d12_dred_bundle_work;

/* A 4-byte slot of the device's readback counter pool (the GPU writes the completed-op count into it). */
typedef struct d12_dred_counter {
    volatile UINT32 *cpu;  /* mapped; stays mapped until the device is destroyed */
    UINT64 gpu_va;         /* 0: no counter (the driver has no write-immediate, or the pool is out of memory) */
    struct d12_dred_pool_buffer *buffer;
    uint32_t index;
} d12_dred_counter;

typedef struct d12_dred_list {
    /* Fixed at list creation. */
    bool markers_only;
    bool contexts_on;
    bool track_state;      /* keep the state log (for the report) */
    d12_dred_write_immediate_fn write_immediate; /* NULL: the driver predates build 0127 */
    d12_dred_write_immediate_fn write;           /* never NULL: write_immediate, or a no-op without one (the hot
                                                    path calls it unconditionally) */
    d12_dred_counter counter;
    /* The MARKER_OUT write's parameter {counter VA, count} and mode, kept here so that a breadcrumb stores only the
     * new count before the call (the driver reads them during the call only; a list records on one thread). */
    D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 marker;
    D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 marker_mode;
    /* The recording (the recording thread's). */
    UINT count;            /* BreadcrumbCount: ops recorded since the last Reset; saturates at UINT_MAX */
    D3D12_AUTO_BREADCRUMB_OP *ring; /* D12_DRED_RING_SLOTS entries, allocated at list creation */
    d12_dred_work_args *args;       /* likewise (malloc'ed, never cleared: pages are touched as ops use them) */
    d12_dred_context *contexts;
    UINT context_count, context_capacity;
    d12_dred_state_change *changes;
    UINT change_count, change_capacity;
    bool state_overflow;   /* a state change could not be logged (out of memory): the report says so */
    UINT bundle_step;      /* 0, or in a bundle's replay 1 + its draws and dispatches replayed so far */
    d12_dred_bundle_run *bundle_runs;
    UINT bundle_run_count, bundle_run_capacity;
    d12_dred_bundle_work *bundle_works;
    UINT bundle_work_count, bundle_work_capacity;
    _Atomic uint64_t closed_seq; /* the ledger's free sequence when the list was closed (use-after-free verdict) */
    _Atomic uint64_t closed_submission; /* the device's latest ExecuteCommandLists at Close ("the list recorded at
                                           #40", the re-creation verdict; issue 32 item 7) */
    /* Recordings begun (create, each Reset): bumped under the device's DRED freeze lock, so a freeze either runs
     * before a Reset touches the recording or sees that the list was reset since it was submitted (and then reads
     * none of it: the list may be recording right now; docs/dred.md). */
    _Atomic uint32_t generation;
} d12_dred_list;

/* Create a list's breadcrumb state when the device records breadcrumbs (else *out = NULL). E_OUTOFMEMORY. */
HRESULT d12__dred_list_create(struct d12_device *device, struct d12_command_list *list, d12_dred_list **out);
void d12__dred_list_destroy(struct d12_device *device, d12_dred_list *dred);

/* A new recording (CreateCommandList, Reset), called once the driver's list is ready to record: the count restarts
 * at 0 and the runtime records the DEFAULT write of 0 (BRIEF §2: "at the start of every recording a DEFAULT write of
 * 0 (so each execution restarts the count)"). */
void d12__dred_list_begin(struct d12_command_list *list);
/* Close: remember the ledger's sequence (a buffer freed later was "released after the list was recorded"). */
void d12__dred_list_close(struct d12_command_list *list);

/* Record `op` (breadcrumbs on; in markers-only mode only SetMarker/BeginEvent/EndEvent get here, the list's
 * `dred_work` being NULL): its history slot, the count, and after it the MARKER_OUT write of the new count. Inline,
 * with no check but the count's saturation: the runtime's part of a breadcrumb is two stores and the arguments of
 * the driver call (issue 9: at most the write-immediate call + 2 ns; docs/performance.md "DRED breadcrumbs"). */
static inline void d12__dred_record(d12_dred_list *dred, D3D12DDI_HCOMMANDLIST handle, D3D12_AUTO_BREADCRUMB_OP op)
{
    UINT count = dred->count;
    dred->ring[count & D12_DRED_RING_MASK] = op;
    if (__builtin_expect(count != UINT_MAX, 1)) /* "BreadcrumbCount keeps counting past the ring up to UINT_MAX" */
        count++;
    dred->count = count;
    /* BRIEF §2: after op k, a MARKER_OUT write of k + 1 ("written once every preceding operation has completed"). */
    dred->marker.Value = count;
    dred->write(handle, 1, &dred->marker, &dred->marker_mode);
}

/* After op `op` was recorded into the driver's list: append it and record the MARKER_OUT write of the new count
 * (with breadcrumbs off, one predictable branch). */
static inline void d12__dred_breadcrumb(d12_dred_list *dred, D3D12DDI_HCOMMANDLIST handle, D3D12_AUTO_BREADCRUMB_OP op)
{
    if (__builtin_expect(dred != NULL, 0))
        d12__dred_record(dred, handle, op);
}

/* A work op's arguments (with breadcrumb contexts on: `dred` is the list's `dred_args`), noted BEFORE its driver
 * call (so no argument has to survive the call: without contexts this is one predictable branch), into the slot of
 * the index the op is about to get; the op itself is recorded after the driver call by d12__dred_breadcrumb, as
 * every op. When the count saturated, the slot is left to an op that never reads it:
 * d12__dred_work_arguments_text checks the history first. */
static inline void d12__dred_note_args32(d12_dred_list *dred, UINT32 a0, UINT32 a1, UINT32 a2, UINT32 a3, UINT32 a4)
{
    if (__builtin_expect(dred != NULL, 0)) {
        UINT32 *slot = dred->args[dred->count & D12_DRED_RING_MASK].u32;
        slot[0] = a0;
        slot[1] = a1;
        slot[2] = a2;
        slot[3] = a3;
        slot[4] = a4;
    }
}
static inline void d12__dred_note_args64(d12_dred_list *dred, UINT64 a0, UINT64 a1, UINT64 a2)
{
    if (__builtin_expect(dred != NULL, 0)) {
        UINT64 *slot = dred->args[dred->count & D12_DRED_RING_MASK].u64;
        slot[0] = a0;
        slot[1] = a1;
        slot[2] = a2;
    }
}

/* What the views bound at a draw hold, so that a count above it is flagged (issue 32 item 6): UINT64_MAX unknown. */
typedef struct d12_dred_capacity {
    UINT64 vertices;      /* the fewest whole vertices a bound vertex buffer view holds (SizeInBytes / stride) */
    unsigned vertex_slot; /* that view's slot */
    UINT64 indices;       /* the whole indices the index buffer view holds */
} d12_dred_capacity;

/* The arguments of op `index` when it is a work op the list has arguments for (its slot written this recording),
 * as the report's text; NULL otherwise. malloc'ed. `capacity` (or NULL): the bound views, for a draw's count. */
char *d12__dred_work_arguments_text(const d12_dred_list *dred, UINT index, UINT op,
                                    const d12_dred_capacity *capacity);

/* A breadcrumb context for the op about to be recorded (SetMarker, BeginEvent), when contexts are on. */
void d12__dred_add_context(d12_dred_list *dred, UINT metadata, const void *data, UINT size);

/* State changes while DRED is on (the report's op state). */
void d12__dred_state(d12_dred_list *dred, d12_dred_state_kind kind, unsigned which, unsigned slot, UINT64 address,
                     UINT size, UINT stride);
static inline void d12__dred_note_state(d12_dred_list *dred, d12_dred_state_kind kind, unsigned which, unsigned slot,
                                        UINT64 address, UINT size, UINT stride)
{
    if (__builtin_expect(dred != NULL, 0) && dred->track_state)
        d12__dred_state(dred, kind, which, slot, address, size, stride);
}

/* ExecuteBundle's replay into the list (`dred` its dred_work: NULL when breadcrumbs are off or markers-only): begin
 * before the bundle's first call, one work per draw or dispatch after its driver call, end after the last. Out of
 * memory: the report names no draw for that bundle (docs/dred.md). */
void d12__dred_bundle_begin(d12_dred_list *dred, UINT64 identity, const char *name);
void d12__dred_bundle_work(d12_dred_list *dred, UINT kind, UINT ordinal, const UINT32 args[5]);
void d12__dred_bundle_end(d12_dred_list *dred);
/* Forget the recording's bundles (a new recording; the list's destruction frees the arrays). */
void d12__dred_bundles_clear(d12_dred_list *dred);
/* The bundle executed at op `op`, or NULL; its works are [*first, *first + *count). */
const d12_dred_bundle_run *d12__dred_bundle_at(const d12_dred_list *dred, UINT op, UINT *first, UINT *count);
/* A work op's arguments as the report's text ("VertexCountPerInstance=3, ..."), NULL for an op without any. */
char *d12__dred_args_text(UINT op, const d12_dred_work_args *args, const d12_dred_capacity *capacity);

/* CopyBufferRegion's two sides (the report's `copy`), logged like a state change that applies to this op only. */
static inline void d12__dred_note_copy(d12_dred_list *dred, UINT64 dst_va, UINT64 dst_offset, UINT64 src_va,
                                       UINT64 src_offset, UINT64 bytes)
{
    if (__builtin_expect(dred != NULL, 0) && dred->track_state) {
        UINT size = bytes > 0xFFFFFFFFull ? 0xFFFFFFFFu : (UINT)bytes;
        d12__dred_state(dred, D12_DRED_STATE_COPY, 0, 0, dst_va + dst_offset, size, 0);
        d12__dred_state(dred, D12_DRED_STATE_COPY, 1, 0, src_va + src_offset, size, 0);
    }
}

/* Decode a SetMarker/BeginEvent payload by Metadata into a malloc'ed, NUL-terminated wchar_t string (NULL: nothing
 * decodable, or out of memory). 0: wchar_t string, Size in bytes incl. terminator; 1: ANSI, widened; 2 and 6345127:
 * WinPixEventRuntime's PIX3 blobs. Every read is bounded by Size. */
wchar_t *d12__dred_decode_payload(UINT metadata, const void *data, UINT size);

#endif
