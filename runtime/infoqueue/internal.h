/* The InfoQueue's shared internals: the object, its types, its lock and its nodes (docs/infoqueue.md; lock:
 * docs/locking.md).
 *
 * runtime/infoqueue/ is cut along a message's path (docs/infoqueue.md "Files, and a message's path"). One entry,
 * report.c, calls down, in this order and at most once each, into
 *   filters.c  - the decision (storage filter, mute, break-on, who wants the text), and the filter, break-on and
 *                mute methods;
 *   storage.c  - the store of messages (blocks, count limit, eviction), lifetime, retrieval and the counters;
 *   delivery.c - debug output, callbacks and the break action (with no lock held), and registration;
 * and none of them calls report.c or one another on a message's path. lock.c holds the lock's slow paths. Only
 * this header and infoqueue.h are shared between them: what is here calls nothing but the lock and the allocator. */
#ifndef D12_INFOQUEUE_INTERNAL_H
#define D12_INFOQUEUE_INTERNAL_H

#include "infoqueue.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The DDI's last category (d3d12ddi); the installed D3D12_MESSAGE_CATEGORY stops at SHADER (10). */
#define IQ_CATEGORY_COUNT 12u
#define IQ_SEVERITY_COUNT 5u
#define IQ_NO_LIMIT UINT64_MAX

_Static_assert(sizeof(D3D12_MESSAGE_CATEGORY) == sizeof(UINT), "filter lists are copied as UINT arrays");
_Static_assert(sizeof(D3D12_MESSAGE_SEVERITY) == sizeof(UINT), "filter lists are copied as UINT arrays");
_Static_assert(sizeof(D3D12_MESSAGE_ID) == sizeof(UINT), "filter lists are copied as UINT arrays");

/* A filter dimension: the list index of categories, severities and IDs in a filter. */
enum { IQ_DIM_CATEGORY, IQ_DIM_SEVERITY, IQ_DIM_ID, IQ_DIMS };

typedef struct iq_list {
    UINT count, capacity;
    UINT *items;
} iq_list;

typedef struct iq_filter {
    iq_list allow[IQ_DIMS], deny[IQ_DIMS];
} iq_filter;

typedef struct iq_stack {
    UINT depth, capacity;
    iq_filter *filters; /* [depth - 1] is the top */
} iq_stack;

/* ---- v2 of driver-reported messages (docs/driver-reported-messages-v2.md; driver_filter.c, infoqueue2.c) ---- */
/* A message's (VendorId, VendorMessageId): both 0 for a runtime message. */
typedef struct iq_identity {
    UINT vendor_id;
    UINT64 vendor_message_id;
} iq_identity;
struct iq_driver_filters; /* driver_filter.c: the per-device stack of driver-message filters and the registry's */
/* ---- end v2 ---- */

/* A stored message; message.pDescription points at text. `next` links evicted messages waiting to be freed. */
typedef struct iq_stored {
    struct iq_stored *next;
    size_t capacity; /* bytes `text` can hold: a node evicted from the store is reused for a later message */
    D3D12_MESSAGE message;
    iq_identity who; /* v2: set with `message` */
    char text[];
} iq_stored;

/* Delivered nodes a queue keeps for reuse; text bytes a new node holds at least (so a recycled node fits most
 * messages). */
#define IQ_PENDING_POOL 16u
#define IQ_MIN_TEXT 128u

/* Messages per block of the store (docs/infoqueue.md "Storage and retrieval"). */
#define IQ_BLOCK 1024u

/* A message waiting for debug output and callbacks. */
typedef struct iq_pending {
    struct iq_pending *next;
    size_t capacity; /* bytes `text` can hold: a delivered node goes back to the queue's pool for a later message */
    uint64_t seq;    /* commit order */
    D3D12_MESSAGE_CATEGORY category;
    D3D12_MESSAGE_SEVERITY severity;
    D3D12_MESSAGE_ID id;
    bool passed; /* passed the storage filter at receipt: what FLAG_NONE callbacks see */
    bool print;  /* passed and debug output not muted at receipt */
    iq_identity who; /* v2 */
    char text[];
} iq_pending;

typedef struct iq_callback {
    uint64_t order;     /* registration order; never reused */
    DWORD cookie;
    uint64_t first_seq; /* receives messages committed from this sequence number on */
    D3D12MessageFunc function;   /* exactly one of function and function1 is set */
    D3D12MessageFunc1 function1; /* v2: ID3D12InfoQueue2::RegisterMessageCallback1 */
    D3D12_MESSAGE_CALLBACK_FLAGS flags;
    void *context;
} iq_callback;

typedef enum iq_break_action { IQ_BREAK_AUTO, IQ_BREAK_TRAP, IQ_BREAK_LOG, IQ_BREAK_NONE } iq_break_action;

struct d12_info_queue {
    _Atomic uint32_t lock;          /* the InfoQueue lock: a leaf (docs/locking.md); iq_lock below */
    _Atomic uint32_t callback_done; /* bumped, under lock, when a callback returns and someone waits for it */

    /* Guarded by lock: the store and the count limit. Every stored message has a number, the count of messages
     * stored before it; the store holds numbers [first, end), in blocks of IQ_BLOCK pointers, block b
     * (= number / IQ_BLOCK) in slot b % ring_slots of `ring`. Exactly the blocks that hold a number of
     * [first, end) are allocated. So message i is one lookup away and no message ever moves. */
    iq_stored ***ring;
    uint64_t ring_slots, first, end;
    uint64_t stored_count, limit; /* stored_count == end - first */
    iq_stored *evicted;           /* evicted messages, freed by iq_unlock_and_reap with no lock held */
    iq_stored *spare;             /* one evicted node kept for the next verbatim report (no malloc or free per
                                     message in steady state; docs/performance.md "Report path") */

    /* Guarded by lock: what retrieval-filtered reads remember, valid while retrieval_gen is unchanged. The cursor
     * says stored message `cursor_number` is retrievable message `cursor_index`: sequential reads resume there.
     * `retrievable` counts the retrievable stored messages. Evictions keep both exact. */
    uint64_t retrieval_gen;
    bool cursor_valid, retrievable_valid;
    uint64_t cursor_gen, cursor_index, cursor_number;
    uint64_t retrievable_gen, retrievable;
    uint64_t visits; /* stored messages examined by retrieval (d12__info_queue_test_visits) */

    /* Guarded by lock: cumulative counters (never reset; docs/infoqueue.md "Counters"). */
    uint64_t allowed, denied, discarded;

    /* Guarded by lock: the filter stacks. */
    iq_stack storage, retrieval;

    /* Guarded by lock (v2): driver-message filters; NULL until the first push or registry filter. */
    struct iq_driver_filters *driver_filters;

    /* Guarded by lock: break-on and mute settings. */
    bool break_category[IQ_CATEGORY_COUNT], break_severity[IQ_SEVERITY_COUNT];
    iq_list break_ids;
    bool mute;

    /* Guarded by lock: registrations in registration order, and the cookie and commit counters. */
    iq_callback *callbacks;
    size_t callback_count, callback_capacity, ignore_filter_callbacks;
    DWORD next_cookie;
    uint64_t next_order, next_seq;

    /* Guarded by lock: delivery. Only the thread that set `delivering` pops `pending` and runs callbacks. */
    iq_pending *pending_head, *pending_tail;
    size_t pending_count;
    iq_pending *pending_pool;      /* delivered nodes kept for later messages (no malloc or free per delivered
                                      message in steady state), at most IQ_PENDING_POOL of them */
    size_t pending_pooled;
    size_t callback_waiters;       /* UnregisterMessageCallback calls waiting on callback_done */
    bool delivering;
    pthread_t deliverer;   /* valid while delivering */
    DWORD running_cookie;  /* the callback running now, 0 if none */

    /* Guarded by lock: a summary of the settings above, kept by d12__iq_settings_changed after every change of
     * the storage filter, break-on, mute, callbacks or the limit: every message passes the storage filter, none
     * breaks, debug output is muted, no callback is registered and the limit is above 0. A report then only
     * stores (docs/performance.md "Report path"). */
    bool plain;

    /* Set by create, read-only afterwards (no lock). */
    iq_break_action break_action;
};

/* ---- The lock: a leaf. Debug builds assert that no InfoQueue lock is held when one is taken, or when
 * formatting, debug output or a callback runs (so none of them can deadlock on it). ----
 *
 * A futex mutex (U. Drepper, "Futexes Are Tricky", mutex #3): `lock` is 0 free, 1 held, 2 held with possible
 * waiters. Taking a free lock is one compare-exchange and releasing an uncontended one one exchange, against the
 * ~60 instructions of pthread_mutex_lock + unlock the report path paid (docs/performance.md "Report path");
 * contended, a thread sleeps in the kernel until the holder wakes it. Acquire on taking, release on releasing: the
 * critical sections are ordered as with a mutex (ThreadSanitizer sees the atomics). The condition variable
 * `callback_done` is a futex word too (a sequence number). */

#ifndef NDEBUG
extern _Thread_local unsigned d12__iq_locks_held; /* lock.c */
#endif

void d12__iq_lock_contended(d12_info_queue *queue);   /* lock.c */
void d12__iq_unlock_contended(d12_info_queue *queue); /* lock.c */

static inline void iq_lock(d12_info_queue *queue)
{
    assert(d12__iq_locks_held == 0 && "the InfoQueue lock is a leaf");
    uint32_t free_state = 0;
    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(&queue->lock, &free_state, 1, memory_order_acquire,
                                                                  memory_order_relaxed),
                         0))
        d12__iq_lock_contended(queue);
#ifndef NDEBUG /* the count only feeds the assertions: a thread-local access per lock otherwise (the report path) */
    d12__iq_locks_held++;
#endif
}

static inline void iq_unlock(d12_info_queue *queue)
{
#ifndef NDEBUG
    d12__iq_locks_held--;
#endif
    if (__builtin_expect(atomic_exchange_explicit(&queue->lock, 0, memory_order_release) != 1, 0))
        d12__iq_unlock_contended(queue); /* somebody may sleep on it */
}

static inline void iq_assert_unlocked(void)
{
    assert(d12__iq_locks_held == 0 && "no InfoQueue lock is held outside the queue");
}

/* Waits (lock held; released while asleep, held again on return) until callback_done is broadcast; may return
 * early, so callers loop on their condition. Broadcast with the lock held. lock.c. */
void d12__iq_wait_callback_done(d12_info_queue *queue);
void d12__iq_broadcast_callback_done(d12_info_queue *queue);

/* ---- Predicates every part uses (caller holds the lock or owns the object) ---- */

static inline bool iq_list_has(const iq_list *list, UINT value)
{
    for (UINT i = 0; i < list->count; i++)
        if (list->items[i] == value)
            return true;
    return false;
}

/* Deny wins; allow lists narrow per dimension; an empty filter passes everything (docs/infoqueue.md). */
static inline bool iq_filter_passes(const iq_filter *filter, UINT category, UINT severity, UINT id)
{
    const UINT value[IQ_DIMS] = {category, severity, id};
    for (int d = 0; d < IQ_DIMS; d++)
        if (filter->deny[d].count && iq_list_has(&filter->deny[d], value[d]))
            return false;
    for (int d = 0; d < IQ_DIMS; d++)
        if (filter->allow[d].count && !iq_list_has(&filter->allow[d], value[d]))
            return false;
    return true;
}

static inline bool iq_stack_passes(const iq_stack *stack, UINT category, UINT severity, UINT id)
{
    return stack->depth == 0 || iq_filter_passes(&stack->filters[stack->depth - 1], category, severity, id);
}

static inline bool iq_breaks_on(const d12_info_queue *queue, UINT category, UINT severity, UINT id)
{
    return (category < IQ_CATEGORY_COUNT && queue->break_category[category]) ||
           (severity < IQ_SEVERITY_COUNT && queue->break_severity[severity]) || iq_list_has(&queue->break_ids, id);
}

/* ---- The queue's nodes: allocated with no lock held; the pools (the spare stored node, the delivered nodes)
 * are lists on the object, taken from and given back to with the lock held ---- */

/* A stored-message node for `bytes` text bytes (NUL included), at least IQ_MIN_TEXT: once evicted, it can carry
 * most later messages as the spare. */
static inline iq_stored *iq_stored_new(size_t bytes)
{
    size_t capacity = bytes < IQ_MIN_TEXT ? IQ_MIN_TEXT : bytes;
    if (capacity > SIZE_MAX - sizeof(iq_stored))
        return NULL;
    iq_stored *node = malloc(sizeof(iq_stored) + capacity);
    if (node)
        node->capacity = capacity;
    return node;
}

static inline void iq_stored_free_chain(iq_stored *node)
{
    while (node) {
        iq_stored *next = node->next;
        free(node);
        node = next;
    }
}

/* Unlocks, then frees what was evicted meanwhile (by this thread or another), so no free() runs under the lock;
 * the first evicted node becomes the spare when there is none. A check when nothing was evicted. */
static inline void iq_unlock_and_reap(d12_info_queue *queue)
{
    iq_stored *evicted = queue->evicted;
    if (__builtin_expect(evicted == NULL, 1)) {
        iq_unlock(queue);
        return;
    }
    queue->evicted = NULL;
    if (!queue->spare) {
        queue->spare = evicted;
        evicted = evicted->next;
    }
    iq_unlock(queue);
    iq_stored_free_chain(evicted);
}

/* A node for delivering a message of `bytes` text bytes (NUL included), at least IQ_MIN_TEXT. */
static inline iq_pending *iq_pending_new(size_t bytes)
{
    size_t capacity = bytes < IQ_MIN_TEXT ? IQ_MIN_TEXT : bytes;
    if (capacity > SIZE_MAX - sizeof(iq_pending))
        return NULL;
    iq_pending *pending = malloc(sizeof(iq_pending) + capacity);
    if (pending)
        pending->capacity = capacity;
    return pending;
}

/* A pooled delivery node that holds `bytes` text bytes (caller holds the lock), or NULL: the caller then
 * allocates with no lock held. */
static inline iq_pending *iq_pending_take(d12_info_queue *queue, size_t bytes)
{
    iq_pending *pending = queue->pending_pool;
    if (!pending || pending->capacity < bytes)
        return NULL;
    queue->pending_pool = pending->next;
    queue->pending_pooled--;
    return pending;
}

/* A delivered (or unused) node goes back to the pool (caller holds the lock); past IQ_PENDING_POOL it is freed. */
static inline void iq_pending_recycle(d12_info_queue *queue, iq_pending *pending)
{
    if (queue->pending_pooled >= IQ_PENDING_POOL) {
        free(pending);
        return;
    }
    pending->next = queue->pending_pool;
    queue->pending_pool = pending;
    queue->pending_pooled++;
}

/* ---- The steps of a message's path, in the order report.c calls them (each with the lock held) ---- */

/* What the decision says a message needs: passed the storage filter; printed; stored; delivered (printed or a
 * callback); broken on. */
typedef struct iq_decision {
    bool passed, print, store, deliver, brk;
    iq_identity who; /* v2: the message's identity (0, 0 for a runtime message); report.c sets it */
} iq_decision;

/* filters.c: decides, and counts what needs no text (denied; passed with the limit 0 and nobody to deliver to).
 * While `plain` (filters.c keeps it: every message passes and is only stored) the decision is IQ_PLAIN and the
 * caller need not ask. */
iq_decision d12__iq_decide(d12_info_queue *queue, UINT category, UINT severity, UINT id, const iq_identity *who);
#define IQ_PLAIN ((iq_decision){.passed = true, .store = true})

/* storage.c: stores a formatted message's node (consumed when stored; false, still the caller's, when the store
 * cannot grow), or a copy of a message with verbatim text (pDescription, DescriptionByteLength bytes with the NUL:
 * into a recycled node, the spare, or a node allocated with the lock dropped meanwhile; false when there is no
 * memory). Both enforce the count limit. */
bool d12__iq_store(d12_info_queue *queue, iq_stored *node);
bool d12__iq_store_text(d12_info_queue *queue, const D3D12_MESSAGE *message, const iq_identity *who);

/* delivery.c: delivers what is pending unless some thread (maybe this one, further up the stack inside a callback)
 * already does, dropping the lock around the output and each callback; then unlocks (iq_unlock_and_reap) and, when
 * `brk`, takes the break action for the message. */
void d12__iq_deliver_and_unlock(d12_info_queue *queue, bool brk, D3D12_MESSAGE_CATEGORY category,
                                D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id);

/* ---- Off the path: lifetime and settings ---- */

void d12__iq_stack_free(iq_stack *stack);             /* filters.c */
void d12__iq_settings_changed(d12_info_queue *queue); /* filters.c: recomputes `plain` (caller holds the lock) */
iq_break_action d12__iq_break_action_from_env(void);  /* delivery.c */

/* v2 (driver_filter.c): whether a driver message passes the registry filter and the top of the stack (filters.c's
 * decision asks); whether any driver filter is set (then the report path's `plain` shortcut is off); freeing.
 * Caller holds the lock. */
bool d12__iq_driver_passes(const d12_info_queue *queue, const iq_identity *who);
bool d12__iq_driver_filtering(const d12_info_queue *queue);
void d12__iq_driver_filters_free(d12_info_queue *queue);
/* v2 (storage.c): the retrievable message of that index, or NULL (GetMessage1). Caller holds the lock. */
const iq_stored *d12__iq_find_retrievable(d12_info_queue *queue, UINT64 index);
/* v2 (delivery.c): registration with either kind of callback (RegisterMessageCallback, RegisterMessageCallback1). */
HRESULT d12__iq_register(d12_info_queue *queue, D3D12MessageFunc function, D3D12MessageFunc1 function1,
                         D3D12_MESSAGE_CALLBACK_FLAGS flags, void *context, DWORD *cookie);

#endif
