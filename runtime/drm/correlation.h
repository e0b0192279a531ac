/* Command-list state indices (driver-reported-messages.txt v0.3, "CommandListStateIndex validity window"): the
 * opaque UINT32 the runtime passes to pfnSetCommandListStateIndex before each draw, dispatch or copy, and the way
 * back from an index a driver puts in a message to (the command list that recorded the work, the work's kind,
 * its ordinal among the calls of that kind in that recording), so a message can be prefixed "<identity> [Draw #2] ".
 *
 * Objects. One d12_correlation per device: the index counter, a ring of `max_live / 64` slots (one per live
 * block of 64 indices, each with the ordinals its recording had reached at the block's first index) and a kinds
 * array of `max_live` bytes (the kind of each live index; its ordinal is counted from the block's at resolution). One d12_recorder embedded in each command list. One d12_recording per recording of a list (from
 * CreateCommandList or Reset to the next Reset): refcounted, held by its list until the next Reset or the list's
 * destruction and by the submissions of it that can still resolve an index (ExecuteCommandLists takes a reference,
 * shared by consecutive submissions of the same recordings on a queue; the flush of the last of them drops it, or
 * a compaction once the recording's blocks were all evicted: runtime/queue.c, "Retention of the submitted
 * recordings"). A recording holds a reference on its owner (the list) for its whole life, so the list's memory and
 * name outlive every submission that can still be annotated with them. The owner reference must be an internal
 * (memory) reference, not the application's COM reference count, or list and recording would keep each other.
 *
 * Issuing (the hot path, d12__recorder_issue, inline): no lock, no shared read-modify-write, no allocation. A
 * recorder takes indices from the device in blocks of D12_CORRELATION_BLOCK consecutive indices; only taking a
 * block (once per 64 calls, d12__recorder_refill) takes the correlation lock. The entry of an index is one
 * release store of a byte (its kind; a plain store on x86) into the device's kinds array, so a concurrent
 * resolver reads it without a data race. A byte, not the ordinal too: the array is 64 KiB at the default limit
 * (a 64-bit entry per index made it 512 KiB), and clearing a block when it is taken is one 64-byte memset.
 *
 * Index space and retention. Blocks are numbered by a device-wide 32-bit counter of indices (advanced 64 at a
 * time); block `base` lives in slot (base / 64) % (max_live / 64) and its kinds at index % max_live. Taking a
 * block whose slot holds a block of an older recording EVICTS that block: its indices stop resolving even if a
 * submission still holds their recording ("if the application outruns the runtime's limit on live state
 * indices, the oldest are dropped"; the message is delivered without annotation). A block still OPEN (the
 * current block of a recorder with indices left, not closed) is never evicted: its block number is skipped
 * (burned, never issued) and the next one tried, at most once round the ring; when every slot is open, the call
 * gets D12_STATE_INDEX_NONE. A block is no longer open once its last index is issued, its list is closed or
 * reset, or its list is destroyed. The remaining indices of a closed block are never issued.
 *
 * Staleness bound. An index value is issued again only after the 32-bit counter wraps, i.e. 2^32 - 1 indices
 * (issued or burned) later device-wide. Resolution checks that the index's slot still holds exactly the block
 * the index came from and that its entry was written for this incarnation of the block (a block's kinds are
 * cleared when it is taken), so a stale index resolves to nothing, never to another draw — unless the driver
 * keeps an index across a full wrap of the counter, in which case it may resolve to the draw that now owns the
 * same value. 0xFFFFFFFF (D12_STATE_INDEX_NONE, "no correlation available") is never issued: the block at
 * 0xFFFFFFC0 has 63 indices.
 *
 * Threads and locks. A recorder is used by one thread at a time (the command list's external synchronization);
 * everything else may be called from any thread. The correlation lock (`d12_correlation`'s mutex, one per
 * device) guards the counter, the slots and every recording's block list. It ranks below the command queue and
 * command list locks (a list may take a block while its own lock is held) and above the object data lock
 * (runtime/object.h): the only lock taken under it is an object's data lock, by the resolver's `format`
 * callback copying the list's name. It is never held while calling the driver or the application, nor while
 * calling an owner's `unref`. Debug builds assert it is not taken recursively (e.g. from `format`). The
 * recording reference count is an atomic, touched per submission, never per draw. */
#ifndef D12_CORRELATION_H
#define D12_CORRELATION_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <wsl/winadapter.h>

/* "The runtime treats 0xFFFFFFFF as 'no correlation available'": never issued, never resolved. */
#define D12_STATE_INDEX_NONE 0xFFFFFFFFu
/* Indices a recorder takes from the device at a time. */
#define D12_CORRELATION_BLOCK 64u
/* Live indices per device (D12RT_MAX_LIVE_STATE_INDICES): default, least, most. Always a power of two. */
#define D12_CORRELATION_DEFAULT_MAX_LIVE 65536u
#define D12_CORRELATION_MIN_LIVE D12_CORRELATION_BLOCK
#define D12_CORRELATION_MAX_LIVE (1u << 22)

/* The GPU-work generating calls that get an index. */
typedef enum d12_work_kind {
    D12_WORK_NONE = 0,
    D12_WORK_DRAW,               /* DrawInstanced */
    D12_WORK_DRAW_INDEXED,       /* DrawIndexedInstanced */
    D12_WORK_DISPATCH,           /* Dispatch */
    D12_WORK_COPY_BUFFER_REGION, /* CopyBufferRegion */
    D12_WORK_COPY_RESOURCE,      /* CopyResource */
    D12_WORK_RESOURCE_BARRIER,   /* ResourceBarrier */
    D12_WORK_KIND_COUNT
} d12_work_kind;

/* "Draw", "DrawIndexed", "Dispatch", "CopyBufferRegion", "CopyResource" (the API method without "Instanced");
 * NULL for D12_WORK_NONE and out-of-range values. */
const char *d12__work_kind_name(d12_work_kind kind);

typedef struct d12_correlation d12_correlation;
typedef struct d12_recording d12_recording;

/* What a recording does to its owner (the command list): `ref` when the recording is made, `unref` after its
 * last reference is dropped (outside the correlation lock). Either may be NULL. */
typedef struct d12_correlation_owner_ops {
    void (*ref)(void *owner);
    void (*unref)(void *owner);
} d12_correlation_owner_ops;

/* ---- The device's table ---- */

/* The live-index limit to use, from D12RT_MAX_LIVE_STATE_INDICES: unset or empty, the default; a decimal number
 * from 1 to D12_CORRELATION_MAX_LIVE, rounded up to a power of two (so a multiple of the block) and to at least
 * D12_CORRELATION_MIN_LIVE; anything else (not a plain decimal number, 0, too large), one warning line on
 * `warnings` (when not NULL) naming the variable and the value, and the default. */
uint32_t d12__correlation_max_live_from_environment(FILE *warnings);

/* A table for `max_live` live indices (a power of two from D12_CORRELATION_MIN_LIVE to D12_CORRELATION_MAX_LIVE,
 * else E_INVALIDARG). `ops` is copied; NULL means owners are not referenced. S_OK, E_INVALIDARG (also NULL
 * out), E_OUTOFMEMORY; *out is NULL on failure. */
HRESULT d12__correlation_create(uint32_t max_live, const d12_correlation_owner_ops *ops, d12_correlation **out);
/* Every recording must be gone (every recorder finished, every submission's reference dropped). NULL is
 * ignored. */
void d12__correlation_destroy(d12_correlation *correlation);

/* Resolve a driver's CommandListStateIndex. Under the correlation lock: when `index` is not
 * D12_STATE_INDEX_NONE, its slot still holds the block it came from, that block belongs to a live recording and
 * the index's entry was written, calls format(context, owner, kind, ordinal) — still under the lock, so the
 * owner is alive; `format` may only format text and take the owner's object data lock — and returns true.
 * Otherwise returns false without calling `format`. */
bool d12__correlation_resolve(d12_correlation *correlation, uint32_t index,
                              void (*format)(void *context, void *owner, d12_work_kind kind, uint32_t ordinal),
                              void *context);

/* Counters, for tests, tools and the benchmark (a consistent snapshot, under the lock). */
typedef struct d12_correlation_stats {
    uint64_t blocks_taken;     /* blocks handed to recorders */
    uint64_t blocks_evicted;   /* of those, how many replaced a live block of a recording */
    uint64_t blocks_skipped;   /* block numbers burned because their slot held an open block */
    uint64_t refills_failed;   /* calls that got D12_STATE_INDEX_NONE because every slot was open */
    uint32_t live_recordings;  /* recordings not yet freed */
    uint32_t tracked_blocks;   /* block numbers the live recordings keep to clear at their end (bounded by
                                * compaction: about twice the slots per recording at most) */
    uint32_t max_live;
} d12_correlation_stats;
void d12__correlation_stats(d12_correlation *correlation, d12_correlation_stats *out);

/* Test hook: the next block is taken from `next` rounded down to a multiple of the block (to test the wrap of
 * the 32-bit counter without issuing 2^32 indices). */
void d12__correlation_set_next_for_test(d12_correlation *correlation, uint32_t next);

/* ---- Recordings: references held by submissions ---- */

/* Whether any index of `recording` may still resolve: some block it took (or a bundle's recording it adopted took)
 * is still in its slot. For a closed
 * recording (every submitted one) false is final: it never takes a block again, and eviction only removes them.
 * No lock (the count is read with a relaxed load): a submission's retention asks it to skip or drop a hold that
 * could never annotate a message (docs/performance.md, "Bounded retention"). */
bool d12__recording_resolvable(const d12_recording *recording);

/* ExecuteBundle (runtime/bundle.c): `parent` (the calling list's current recording) takes a reference on `child`
 * (the bundle's), dropped when `parent` is freed, so a submission of the parent keeps the bundle's indices
 * resolvable. Either may be NULL (then nothing happens); false: out of memory (the bundle's work is then not
 * annotated once the bundle is reset or destroyed). Called by the parent's recording thread only. */
bool d12__recording_adopt(d12_recording *parent, d12_recording *child);

/* Take a reference (ExecuteCommandLists, per submission). `recording` may be NULL (a list whose begin failed). */
void d12__recording_ref(d12_recording *recording);
/* Drop one; the last makes the recording's indices unresolvable, frees it and unrefs its owner. NULL is
 * ignored. Must not be called from inside d12__correlation_resolve's `format`. */
void d12__recording_unref(d12_recording *recording);

/* ---- The recorder embedded in a command list ---- */

typedef struct d12_recorder {
    /* Used by the list's recording thread only (the fast path reads and writes them without a lock). */
    uint64_t next;                        /* the next index of the current block (64 bits: it is added to
                                             kinds_base as it is, with no zero extension on the draw path) */
    uint64_t end;                         /* one past the current block's last index; == next: no open block */
    uint32_t block;                       /* the current block's first index (meaningful while next != end) */
    /* The address of index i's kind byte, for i in the current block, is kinds_base + i: the block's 64 entries
     * are contiguous in the device's kinds array (a block starts at a multiple of 64 and max_live is a power of
     * two of at least 64), so the draw path adds instead of masking (set by the refill). */
    uintptr_t kinds_base;
    uint32_t ordinals[D12_WORK_KIND_COUNT]; /* calls of each kind in the current recording so far */
    /* Fixed at init. */
    d12_correlation *correlation;
    void *owner;
    /* The current recording: set by begin, dropped by begin and fini; NULL before the first begin, after fini
     * and when begin failed (the list's calls then get D12_STATE_INDEX_NONE). */
    d12_recording *recording;
} d12_recorder;

/* An idle recorder of `owner` (no recording yet: call d12__recorder_begin). */
void d12__recorder_init(d12_recorder *recorder, d12_correlation *correlation, void *owner);
/* A fresh recording (CreateCommandList and every Reset): closes the current block, drops the list's reference on
 * the previous recording (submissions keep theirs) and makes a new one with ordinals from 0. S_OK or
 * E_OUTOFMEMORY (the recorder then has no recording and issues D12_STATE_INDEX_NONE until the next begin). */
HRESULT d12__recorder_begin(d12_recorder *recorder);
/* Close: the current block stops being open; its unused indices are never issued. The recording stays
 * resolvable (and current) until the next begin or fini. */
void d12__recorder_close(d12_recorder *recorder);
/* The list is destroyed: closes the current block and drops the list's reference on its recording. */
void d12__recorder_fini(d12_recorder *recorder);
/* The current recording (NULL when there is none), for ExecuteCommandLists to reference. */
static inline d12_recording *d12__recorder_recording(d12_recorder *recorder)
{
    return recorder->recording;
}

/* The slow path of d12__recorder_issue: take a new block. False when there is no recording or every slot of
 * the ring holds an open block. Takes the correlation lock. */
bool d12__recorder_refill(d12_recorder *recorder);

/* The index for one GPU-work call of `kind` (counted in the recording's ordinals whether or not an index could
 * be had), or D12_STATE_INDEX_NONE. No lock, no shared read-modify-write, no allocation but once per
 * D12_CORRELATION_BLOCK calls. */
static inline uint32_t d12__recorder_issue(d12_recorder *recorder, d12_work_kind kind)
{
    assert(kind > D12_WORK_NONE && kind < D12_WORK_KIND_COUNT);
    /* The refill snapshots the ordinals for its block, so this call is counted after it. */
    if (__builtin_expect(recorder->next == recorder->end, 0) && !d12__recorder_refill(recorder)) {
        recorder->ordinals[kind]++;
        return D12_STATE_INDEX_NONE;
    }
    recorder->ordinals[kind]++;
    uint64_t index = recorder->next++;
    atomic_store_explicit((_Atomic uint8_t *)(recorder->kinds_base + index), (uint8_t)kind, memory_order_release);
    return (uint32_t)index;
}

#endif
