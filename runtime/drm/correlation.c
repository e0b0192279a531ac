/* Command-list state indices (correlation.h). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "d12_envnum.h"
#include "correlation.h"
#include "lockrank.h"

/* The first index of the last block of the 32-bit space: it has 63 indices, so 0xFFFFFFFF is never issued. */
#define LAST_BLOCK (0u - D12_CORRELATION_BLOCK)
/* Block numbers a recording's list starts with room for, inside the recording (no second allocation). */
#define INLINE_BASES 4

/* One slot of the ring: the block living in it. Guarded by the correlation lock. */
typedef struct slot {
    uint32_t base;           /* the block's first index (meaningful when `recording` is set) */
    /* Calls of each kind its recording had made before the block's first index: an index's ordinal is this plus
     * the calls of its kind before it in the block (so a call costs a 1-byte kind, not a stored ordinal). */
    uint32_t ordinals[D12_WORK_KIND_COUNT];
    bool open;               /* handed to a recorder that has not closed it (see block_open) */
    d12_recording *recording; /* the live recording owning the block; NULL: the slot is free */
} slot;

struct d12_recording {
    atomic_uint refs;
    /* Blocks of it still in their slot (written under the correlation lock, read without it by retention: once the
     * recording is closed it takes no block again, so 0 stays 0). */
    atomic_uint live_blocks;
    /* Fixed. */
    d12_correlation *correlation;
    void *owner;
    /* Guarded by the correlation lock: the first index of every block it took that may still be in its slot
     * (compacted when the list is full, so it never holds much more than the ring has slots). */
    uint32_t *bases;
    uint32_t base_count, base_capacity;
    uint32_t inline_bases[INLINE_BASES];
    /* Bundles' recordings it adopted (ExecuteBundle), a reference each; written by the recording thread while the
     * recording is current, read once it is closed (retention) or freed. */
    d12_recording **children;
    uint32_t child_count, child_capacity;
};

struct d12_correlation {
    /* Fixed at create. */
    uint32_t max_live;       /* a power of two, a multiple of the block */
    uint32_t slot_count;     /* max_live / 64 */
    d12_correlation_owner_ops ops;
    _Atomic uint8_t *kinds;  /* max_live kinds, index % max_live; written by recorders without the lock */

    pthread_mutex_t lock;
    /* Guarded by `lock`. */
    uint32_t next_base;      /* the next block number to take (wraps at 2^32, a multiple of the block) */
    slot *slots;             /* slot_count */
    d12_correlation_stats stats;
};

/* ---- The lock; debug builds assert it is never taken recursively (a `format` calling back in). ---- */

#ifndef NDEBUG
static _Thread_local const d12_correlation *held;
#endif

static void lock(d12_correlation *c)
{
#ifndef NDEBUG
    assert(held != c && "the correlation lock is not recursive (resolve's format must not call back)");
#endif
    d12__lock(&c->lock, D12_RANK_CORRELATION);
#ifndef NDEBUG
    held = c;
#endif
}

static void unlock(d12_correlation *c)
{
#ifndef NDEBUG
    held = NULL;
#endif
    d12__unlock(&c->lock, D12_RANK_CORRELATION);
}

/* ---- Kinds ---- */

const char *d12__work_kind_name(d12_work_kind kind)
{
    static const char *const names[D12_WORK_KIND_COUNT] = {
        [D12_WORK_DRAW] = "Draw",
        [D12_WORK_DRAW_INDEXED] = "DrawIndexed",
        [D12_WORK_DISPATCH] = "Dispatch",
        [D12_WORK_COPY_BUFFER_REGION] = "CopyBufferRegion",
        [D12_WORK_COPY_RESOURCE] = "CopyResource",
        [D12_WORK_RESOURCE_BARRIER] = "ResourceBarrier",
    };
    return (unsigned)kind < D12_WORK_KIND_COUNT ? names[kind] : NULL;
}

/* ---- The limit ---- */

uint32_t d12__correlation_max_live_from_environment(FILE *warnings)
{
    char otherwise[32];
    snprintf(otherwise, sizeof otherwise, "using %u", D12_CORRELATION_DEFAULT_MAX_LIVE);
    uint64_t value = 0;
    if (d12_env_number("D12RT_MAX_LIVE_STATE_INDICES", "a whole number", 1, D12_CORRELATION_MAX_LIVE, false, &value,
                       warnings, "d12rt: warning", otherwise) != D12_ENV_NUMBER)
        return D12_CORRELATION_DEFAULT_MAX_LIVE;
    uint32_t live = D12_CORRELATION_MIN_LIVE;
    while (live < value)
        live <<= 1;
    return live;
}

/* ---- The table ---- */

HRESULT d12__correlation_create(uint32_t max_live, const d12_correlation_owner_ops *ops, d12_correlation **out)
{
    if (!out)
        return E_INVALIDARG;
    *out = NULL;
    if (max_live < D12_CORRELATION_MIN_LIVE || max_live > D12_CORRELATION_MAX_LIVE || (max_live & (max_live - 1)))
        return E_INVALIDARG;
    d12_correlation *c = calloc(1, sizeof *c);
    if (!c)
        return E_OUTOFMEMORY;
    c->max_live = max_live;
    c->slot_count = max_live / D12_CORRELATION_BLOCK;
    if (ops)
        c->ops = *ops;
    /* calloc'ed words are valid atomics holding 0 ("not written") on the platforms we build for. */
    c->kinds = calloc(max_live, sizeof *c->kinds);
    c->slots = calloc(c->slot_count, sizeof *c->slots);
    if (!c->kinds || !c->slots) {
        free((void *)c->kinds);
        free(c->slots);
        free(c);
        return E_OUTOFMEMORY;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->stats.max_live = max_live;
    *out = c;
    return S_OK;
}

void d12__correlation_destroy(d12_correlation *c)
{
    if (!c)
        return;
    assert(c->stats.live_recordings == 0 && "every recording must be gone before its device's table");
    pthread_mutex_destroy(&c->lock);
    free(c->slots);
    free((void *)c->kinds);
    free(c);
}

void d12__correlation_stats(d12_correlation *c, d12_correlation_stats *out)
{
    lock(c);
    *out = c->stats;
    unlock(c);
}

void d12__correlation_set_next_for_test(d12_correlation *c, uint32_t next)
{
    lock(c);
    c->next_base = next & ~(D12_CORRELATION_BLOCK - 1);
    unlock(c);
}

static slot *slot_of(d12_correlation *c, uint32_t index)
{
    return &c->slots[(index / D12_CORRELATION_BLOCK) & (c->slot_count - 1)];
}

/* The last index a block issues. */
static uint32_t block_last(uint32_t base)
{
    return base == LAST_BLOCK ? base + D12_CORRELATION_BLOCK - 2 : base + D12_CORRELATION_BLOCK - 1;
}

/* Whether the live block in `s` may still be written by its recorder: handed out, not closed, and its last index
 * not issued yet (the recorder writes that entry before it could move on). Called with the lock held. */
static bool block_open(d12_correlation *c, const slot *s)
{
    if (!s->open)
        return false;
    uint32_t last = block_last(s->base);
    return atomic_load_explicit(&c->kinds[last & (c->max_live - 1)], memory_order_acquire) == D12_WORK_NONE;
}

/* Whether `base` of `recording` is still in its slot. Called with the lock held. */
static bool holds(d12_correlation *c, uint32_t base, const d12_recording *recording)
{
    const slot *s = slot_of(c, base);
    return s->recording == recording && s->base == base;
}

/* Room for one more block number in `recording`'s list: first drop those no longer in their slot (evicted), then
 * grow when the list is still more than half full. Called with the lock held. */
static bool reserve_base(d12_correlation *c, d12_recording *recording)
{
    if (recording->base_count < recording->base_capacity)
        return true;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < recording->base_count; i++) {
        if (holds(c, recording->bases[i], recording))
            recording->bases[kept++] = recording->bases[i];
    }
    c->stats.tracked_blocks -= recording->base_count - kept;
    recording->base_count = kept;
    if (kept <= recording->base_capacity / 2)
        return true;
    uint32_t capacity = recording->base_capacity * 2;
    uint32_t *bases = malloc(capacity * sizeof *bases);
    if (!bases)
        return kept < recording->base_capacity;
    memcpy(bases, recording->bases, kept * sizeof *bases);
    if (recording->bases != recording->inline_bases)
        free(recording->bases);
    recording->bases = bases;
    recording->base_capacity = capacity;
    return true;
}

/* Only the lock holder writes the count; readers outside the lock (d12__recording_resolvable) load it. */
static void add_live_blocks(d12_recording *recording, int delta)
{
    unsigned live = atomic_load_explicit(&recording->live_blocks, memory_order_relaxed);
    atomic_store_explicit(&recording->live_blocks, live + (unsigned)delta, memory_order_relaxed);
}

/* The recorder's current block is no longer open. Called with the lock held. */
static void close_block(d12_recorder *r)
{
    if (r->next == r->end)
        return;
    slot *s = slot_of(r->correlation, r->block);
    if (s->recording == r->recording && s->base == r->block)
        s->open = false;
    r->end = r->next;
}

bool d12__recorder_refill(d12_recorder *r)
{
    d12_correlation *c = r->correlation;
    if (!r->recording)
        return false;
    lock(c);
    close_block(r);
    if (!reserve_base(c, r->recording)) {
        c->stats.refills_failed++;
        unlock(c);
        return false;
    }
    /* The first block number, at most once round the ring, whose slot does not hold an open block. The ones
     * before it are burned; when there is none, nothing is burned. */
    uint32_t base = c->next_base;
    slot *s = NULL;
    uint32_t tries = 0;
    for (; tries < c->slot_count; tries++, base += D12_CORRELATION_BLOCK) {
        slot *candidate = slot_of(c, base);
        if (!candidate->recording || !block_open(c, candidate)) {
            s = candidate;
            break;
        }
    }
    if (!s) {
        c->stats.refills_failed++;
        unlock(c);
        return false;
    }
    c->stats.blocks_skipped += tries;
    c->next_base = base + D12_CORRELATION_BLOCK;
    if (s->recording) {
        c->stats.blocks_evicted++; /* its recording's list still names it; `holds` tells it is gone */
        add_live_blocks(s->recording, -1);
    }
    c->stats.blocks_taken++;
    /* Clear the block's kinds: an index of this incarnation resolves only once its recorder wrote it. Nobody
     * writes them now (the block in the slot, if any, is closed or full, and its recorder's last write happened
     * before it took this lock to move on or close) and every reader holds this lock, so a plain memset of the
     * block's 64 contiguous bytes is race-free, and an element-wise atomic loop cost a nanosecond per draw. */
    memset((void *)&c->kinds[base & (c->max_live - 1)], D12_WORK_NONE, D12_CORRELATION_BLOCK);
    memcpy(s->ordinals, r->ordinals, sizeof s->ordinals);
    s->base = base;
    s->open = true;
    s->recording = r->recording;
    add_live_blocks(r->recording, 1);
    r->recording->bases[r->recording->base_count++] = base;
    c->stats.tracked_blocks++;
    unlock(c);
    r->block = base;
    r->kinds_base = (uintptr_t)&c->kinds[base & (c->max_live - 1)] - base;
    r->next = base;
    r->end = base + (base == LAST_BLOCK ? D12_CORRELATION_BLOCK - 1 : D12_CORRELATION_BLOCK);
    return true;
}

bool d12__correlation_resolve(d12_correlation *c, uint32_t index,
                              void (*format)(void *context, void *owner, d12_work_kind kind, uint32_t ordinal),
                              void *context)
{
    if (index == D12_STATE_INDEX_NONE)
        return false;
    bool resolved = false;
    lock(c);
    const slot *s = slot_of(c, index);
    if (s->recording && s->base == (index & ~(D12_CORRELATION_BLOCK - 1))) {
        /* Acquire: the kinds the recorder wrote before this one are visible too. */
        d12_work_kind kind = atomic_load_explicit(&c->kinds[index & (c->max_live - 1)], memory_order_acquire);
        if (kind > D12_WORK_NONE && kind < D12_WORK_KIND_COUNT) {
            uint32_t ordinal = s->ordinals[kind];
            for (uint32_t i = s->base; i != index; i++)
                ordinal += atomic_load_explicit(&c->kinds[i & (c->max_live - 1)], memory_order_relaxed) == kind;
            format(context, s->recording->owner, kind, ordinal);
            resolved = true;
        }
    }
    unlock(c);
    return resolved;
}

/* ---- Recordings ---- */

static d12_recording *recording_create(d12_correlation *c, void *owner)
{
    d12_recording *recording = calloc(1, sizeof *recording);
    if (!recording)
        return NULL;
    atomic_init(&recording->refs, 1);
    atomic_init(&recording->live_blocks, 0);
    recording->correlation = c;
    recording->owner = owner;
    recording->bases = recording->inline_bases;
    recording->base_capacity = INLINE_BASES;
    lock(c);
    c->stats.live_recordings++;
    unlock(c);
    if (c->ops.ref)
        c->ops.ref(owner);
    return recording;
}

bool d12__recording_resolvable(const d12_recording *recording)
{
    if (atomic_load_explicit(&((d12_recording *)recording)->live_blocks, memory_order_relaxed) != 0)
        return true;
    for (uint32_t i = 0; i < recording->child_count; i++) /* a bundle's recording adopts none of its own */
        if (atomic_load_explicit(&recording->children[i]->live_blocks, memory_order_relaxed) != 0)
            return true;
    return false;
}

bool d12__recording_adopt(d12_recording *parent, d12_recording *child)
{
    if (!parent || !child)
        return true;
    /* The same bundle executed again in a row costs nothing more (the common case: a bundle per draw batch). */
    if (parent->child_count && parent->children[parent->child_count - 1] == child)
        return true;
    if (parent->child_count == parent->child_capacity) {
        uint32_t capacity = parent->child_capacity ? parent->child_capacity * 2 : 4;
        d12_recording **children = realloc(parent->children, capacity * sizeof *children);
        if (!children)
            return false;
        parent->children = children;
        parent->child_capacity = capacity;
    }
    d12__recording_ref(child);
    parent->children[parent->child_count++] = child;
    return true;
}

void d12__recording_ref(d12_recording *recording)
{
    if (recording)
        atomic_fetch_add_explicit(&recording->refs, 1, memory_order_relaxed);
}

void d12__recording_unref(d12_recording *recording)
{
    if (!recording || atomic_fetch_sub_explicit(&recording->refs, 1, memory_order_acq_rel) != 1)
        return;
    d12_correlation *c = recording->correlation;
    lock(c);
    for (uint32_t i = 0; i < recording->base_count; i++) {
        slot *s = slot_of(c, recording->bases[i]);
        if (s->recording == recording && s->base == recording->bases[i]) {
            s->recording = NULL;
            s->open = false;
        }
    }
    c->stats.live_recordings--;
    c->stats.tracked_blocks -= recording->base_count;
    unlock(c);
    void *owner = recording->owner;
    if (recording->bases != recording->inline_bases)
        free(recording->bases);
    d12_recording **children = recording->children;
    uint32_t child_count = recording->child_count;
    free(recording);
    for (uint32_t i = 0; i < child_count; i++) /* bundles' recordings: none has children, so no recursion */
        d12__recording_unref(children[i]);
    free(children);
    if (c->ops.unref)
        c->ops.unref(owner);
}

/* ---- Recorders ---- */

void d12__recorder_init(d12_recorder *r, d12_correlation *c, void *owner)
{
    memset(r, 0, sizeof *r);
    r->correlation = c;
    r->owner = owner;
}

void d12__recorder_close(d12_recorder *r)
{
    if (r->next == r->end)
        return;
    lock(r->correlation);
    close_block(r);
    unlock(r->correlation);
}

HRESULT d12__recorder_begin(d12_recorder *r)
{
    d12__recorder_close(r);
    d12__recording_unref(r->recording);
    r->recording = NULL;
    memset(r->ordinals, 0, sizeof r->ordinals);
    r->recording = recording_create(r->correlation, r->owner);
    return r->recording ? S_OK : E_OUTOFMEMORY;
}

void d12__recorder_fini(d12_recorder *r)
{
    d12__recorder_close(r);
    d12__recording_unref(r->recording);
    r->recording = NULL;
}
