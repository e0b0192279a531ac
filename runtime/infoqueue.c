/* d12_info_queue: ID3D12InfoQueue(1) semantics. Design and decisions: docs/infoqueue.md; lock: docs/locking.md.
 *
 * A report goes through two short critical sections: the first decides (storage filter, who wants the text),
 * the text is formatted with no lock held, the second commits (stores, counts, queues it for delivery).
 * Delivery (debug output, then callbacks in registration order) runs with no lock held, by whichever thread
 * finds nobody delivering; everybody else only queues. */
#define _POSIX_C_SOURCE 200809L

#include "infoqueue.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A stored message; message.pDescription points at text. `next` links evicted messages waiting to be freed. */
typedef struct iq_stored {
    struct iq_stored *next;
    size_t capacity; /* bytes `text` can hold: a node evicted from the store is reused for a later message */
    D3D12_MESSAGE message;
    char text[];
} iq_stored;

/* Messages per block of the store (docs/infoqueue.md "Storage and retrieval"). */
#define IQ_BLOCK 1024u

/* A message waiting for debug output and callbacks. */
typedef struct iq_pending {
    struct iq_pending *next;
    uint64_t seq; /* commit order */
    D3D12_MESSAGE_CATEGORY category;
    D3D12_MESSAGE_SEVERITY severity;
    D3D12_MESSAGE_ID id;
    bool passed; /* passed the storage filter at receipt: what FLAG_NONE callbacks see */
    bool print;  /* passed and debug output not muted at receipt */
    char text[];
} iq_pending;

typedef struct iq_callback {
    uint64_t order;     /* registration order; never reused */
    DWORD cookie;
    uint64_t first_seq; /* receives messages committed from this sequence number on */
    D3D12MessageFunc function;
    D3D12_MESSAGE_CALLBACK_FLAGS flags;
    void *context;
} iq_callback;

typedef enum iq_break_action { IQ_BREAK_AUTO, IQ_BREAK_TRAP, IQ_BREAK_LOG, IQ_BREAK_NONE } iq_break_action;

struct d12_info_queue {
    pthread_mutex_t lock;          /* the InfoQueue lock: a leaf (docs/locking.md) */
    pthread_cond_t callback_done;  /* broadcast, under lock, whenever a callback returns */

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
    bool delivering;
    pthread_t deliverer;   /* valid while delivering */
    DWORD running_cookie;  /* the callback running now, 0 if none */

    /* Set by create, read-only afterwards (no lock). */
    iq_break_action break_action;
};

/* ---- The lock: a leaf. Debug builds assert that no InfoQueue lock is held when one is taken, or when
 * formatting, debug output or a callback runs (so none of them can deadlock on it). ---- */

#ifndef NDEBUG
static _Thread_local unsigned iq_locks_held;
#endif

static void iq_lock(d12_info_queue *queue)
{
    assert(iq_locks_held == 0 && "the InfoQueue lock is a leaf");
    pthread_mutex_lock(&queue->lock);
#ifndef NDEBUG /* the count only feeds the assertions: a thread-local access per lock otherwise (the report path) */
    iq_locks_held++;
#endif
}

static void iq_unlock(d12_info_queue *queue)
{
#ifndef NDEBUG
    iq_locks_held--;
#endif
    pthread_mutex_unlock(&queue->lock);
}

static void iq_assert_unlocked(void)
{
    assert(iq_locks_held == 0 && "no InfoQueue lock is held outside the queue");
}

/* ---- Lists, filters and stacks (caller holds the lock or owns the object) ---- */

static bool iq_list_has(const iq_list *list, UINT value)
{
    for (UINT i = 0; i < list->count; i++)
        if (list->items[i] == value)
            return true;
    return false;
}

static bool iq_list_reserve(iq_list *list, UINT extra)
{
    if (extra == 0 || list->count + (uint64_t)extra <= list->capacity)
        return true;
    uint64_t wanted = (uint64_t)list->count + extra;
    if (wanted > UINT32_MAX / 2)
        return false;
    UINT capacity = list->capacity ? list->capacity : 4;
    while (capacity < wanted)
        capacity *= 2;
    UINT *items = realloc(list->items, capacity * sizeof(*items));
    if (!items)
        return false;
    list->items = items;
    list->capacity = capacity;
    return true;
}

static void iq_list_remove(iq_list *list, UINT value)
{
    UINT kept = 0;
    for (UINT i = 0; i < list->count; i++)
        if (list->items[i] != value)
            list->items[kept++] = list->items[i];
    list->count = kept;
}

static void iq_filter_free(iq_filter *filter)
{
    for (int d = 0; d < IQ_DIMS; d++) {
        free(filter->allow[d].items);
        free(filter->deny[d].items);
    }
    memset(filter, 0, sizeof(*filter));
}

/* Deny wins; allow lists narrow per dimension; an empty filter passes everything (docs/infoqueue.md). */
static bool iq_filter_passes(const iq_filter *filter, UINT category, UINT severity, UINT id)
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

static bool iq_stack_passes(const iq_stack *stack, UINT category, UINT severity, UINT id)
{
    return stack->depth == 0 || iq_filter_passes(&stack->filters[stack->depth - 1], category, severity, id);
}

static bool iq_stack_push(iq_stack *stack)
{
    if (stack->depth == stack->capacity) {
        UINT capacity = stack->capacity ? stack->capacity * 2 : 4;
        iq_filter *filters = realloc(stack->filters, capacity * sizeof(*filters));
        if (!filters)
            return false;
        stack->filters = filters;
        stack->capacity = capacity;
    }
    memset(&stack->filters[stack->depth++], 0, sizeof(iq_filter));
    return true;
}

static void iq_stack_free(iq_stack *stack)
{
    for (UINT i = 0; i < stack->depth; i++)
        iq_filter_free(&stack->filters[i]);
    free(stack->filters);
    memset(stack, 0, sizeof(*stack));
}

/* The three lists of one side of a D3D12 filter, as (count, pointer) pairs. */
static void iq_desc_lists(const D3D12_INFO_QUEUE_FILTER_DESC *desc, UINT count[IQ_DIMS], const UINT *items[IQ_DIMS])
{
    count[IQ_DIM_CATEGORY] = desc->NumCategories;
    items[IQ_DIM_CATEGORY] = (const UINT *)desc->pCategoryList;
    count[IQ_DIM_SEVERITY] = desc->NumSeverities;
    items[IQ_DIM_SEVERITY] = (const UINT *)desc->pSeverityList;
    count[IQ_DIM_ID] = desc->NumIDs;
    items[IQ_DIM_ID] = (const UINT *)desc->pIDList;
}

/* E_INVALIDARG for a NULL filter, a count with a NULL list, or a category/severity out of range. */
static HRESULT iq_desc_validate(const D3D12_INFO_QUEUE_FILTER_DESC *desc)
{
    UINT count[IQ_DIMS];
    const UINT *items[IQ_DIMS];
    iq_desc_lists(desc, count, items);
    const UINT limit[IQ_DIMS] = {IQ_CATEGORY_COUNT, IQ_SEVERITY_COUNT, UINT32_MAX};
    for (int d = 0; d < IQ_DIMS; d++) {
        if (count[d] && !items[d])
            return E_INVALIDARG;
        for (UINT i = 0; d != IQ_DIM_ID && i < count[d]; i++)
            if (items[d][i] >= limit[d])
                return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT iq_filter_validate(const D3D12_INFO_QUEUE_FILTER *filter)
{
    if (!filter)
        return E_INVALIDARG;
    HRESULT hr = iq_desc_validate(&filter->AllowList);
    return FAILED(hr) ? hr : iq_desc_validate(&filter->DenyList);
}

static bool iq_lists_append(iq_list lists[IQ_DIMS], const D3D12_INFO_QUEUE_FILTER_DESC *desc, bool reserve_only)
{
    UINT count[IQ_DIMS];
    const UINT *items[IQ_DIMS];
    iq_desc_lists(desc, count, items);
    for (int d = 0; d < IQ_DIMS; d++) {
        if (reserve_only) {
            if (!iq_list_reserve(&lists[d], count[d]))
                return false;
        } else if (count[d]) {
            memcpy(lists[d].items + lists[d].count, items[d], count[d] * sizeof(UINT));
            lists[d].count += count[d];
        }
    }
    return true;
}

/* Appends the entries (validated) to a filter: reserve everything first so a failure changes nothing. */
static HRESULT iq_filter_add(iq_filter *target, const D3D12_INFO_QUEUE_FILTER *filter)
{
    if (!iq_lists_append(target->allow, &filter->AllowList, true) ||
        !iq_lists_append(target->deny, &filter->DenyList, true))
        return E_OUTOFMEMORY;
    iq_lists_append(target->allow, &filter->AllowList, false);
    iq_lists_append(target->deny, &filter->DenyList, false);
    return S_OK;
}

/* The filter as a D3D12 filter whose lists point into `from` (for copying and for GetStorageFilter). */
static D3D12_INFO_QUEUE_FILTER iq_filter_view(const iq_filter *from)
{
    D3D12_INFO_QUEUE_FILTER view;
    D3D12_INFO_QUEUE_FILTER_DESC *side[2] = {&view.AllowList, &view.DenyList};
    const iq_list *lists[2] = {from->allow, from->deny};
    for (int s = 0; s < 2; s++) {
        side[s]->NumCategories = lists[s][IQ_DIM_CATEGORY].count;
        side[s]->pCategoryList = (D3D12_MESSAGE_CATEGORY *)lists[s][IQ_DIM_CATEGORY].items;
        side[s]->NumSeverities = lists[s][IQ_DIM_SEVERITY].count;
        side[s]->pSeverityList = (D3D12_MESSAGE_SEVERITY *)lists[s][IQ_DIM_SEVERITY].items;
        side[s]->NumIDs = lists[s][IQ_DIM_ID].count;
        side[s]->pIDList = (D3D12_MESSAGE_ID *)lists[s][IQ_DIM_ID].items;
    }
    return view;
}

static SIZE_T iq_filter_byte_size(const iq_filter *filter)
{
    SIZE_T entries = 0;
    for (int d = 0; d < IQ_DIMS; d++)
        entries += (SIZE_T)filter->allow[d].count + filter->deny[d].count;
    return sizeof(D3D12_INFO_QUEUE_FILTER) + entries * sizeof(UINT);
}

/* Copies one list to `*cursor` inside the output buffer and returns where it went (NULL when empty). */
static void *iq_emit_list(const iq_list *list, unsigned char **cursor)
{
    if (list->count == 0)
        return NULL;
    void *at = *cursor;
    memcpy(at, list->items, list->count * sizeof(UINT));
    *cursor += list->count * sizeof(UINT);
    return at;
}

/* One contiguous buffer: the struct, then allow categories, severities, IDs, then deny ones. */
static void iq_filter_emit(const iq_filter *filter, D3D12_INFO_QUEUE_FILTER *out)
{
    unsigned char *cursor = (unsigned char *)(out + 1);
    D3D12_INFO_QUEUE_FILTER view = iq_filter_view(filter);
    D3D12_INFO_QUEUE_FILTER_DESC *side[2] = {&view.AllowList, &view.DenyList};
    const iq_list *lists[2] = {filter->allow, filter->deny};
    for (int s = 0; s < 2; s++) {
        side[s]->pCategoryList = iq_emit_list(&lists[s][IQ_DIM_CATEGORY], &cursor);
        side[s]->pSeverityList = iq_emit_list(&lists[s][IQ_DIM_SEVERITY], &cursor);
        side[s]->pIDList = iq_emit_list(&lists[s][IQ_DIM_ID], &cursor);
    }
    *out = view;
}

/* ---- Stored messages (caller holds the lock) ---- */

static iq_stored **iq_block(const d12_info_queue *queue, uint64_t number)
{
    return queue->ring[(number / IQ_BLOCK) % queue->ring_slots];
}

static iq_stored *iq_at(const d12_info_queue *queue, uint64_t number)
{
    return iq_block(queue, number)[number % IQ_BLOCK];
}

static bool iq_retrievable(const d12_info_queue *queue, const iq_stored *node)
{
    const D3D12_MESSAGE *m = &node->message;
    return iq_stack_passes(&queue->retrieval, m->Category, m->Severity, m->ID);
}

/* Whether the retrieval filter passes everything (no filter, or an empty one): then index i is message first + i. */
static bool iq_retrieval_unfiltered(const d12_info_queue *queue)
{
    if (queue->retrieval.depth == 0)
        return true;
    const iq_filter *top = &queue->retrieval.filters[queue->retrieval.depth - 1];
    for (int d = 0; d < IQ_DIMS; d++)
        if (top->allow[d].count || top->deny[d].count)
            return false;
    return true;
}

static bool iq_cursor_current(const d12_info_queue *queue)
{
    return queue->cursor_valid && queue->cursor_gen == queue->retrieval_gen;
}

static bool iq_count_current(const d12_info_queue *queue)
{
    return queue->retrievable_valid && queue->retrievable_gen == queue->retrieval_gen;
}

/* Moves the blocks of [first, end) into a ring of `slots` slots (slots >= the blocks in use). */
static bool iq_ring_resize(d12_info_queue *queue, uint64_t slots)
{
    iq_stored ***ring = calloc(slots, sizeof(*ring));
    if (!ring)
        return false;
    if (queue->end > queue->first)
        for (uint64_t b = queue->first / IQ_BLOCK; b <= (queue->end - 1) / IQ_BLOCK; b++)
            ring[b % slots] = queue->ring[b % queue->ring_slots];
    free(queue->ring);
    queue->ring = ring;
    queue->ring_slots = slots;
    return true;
}

/* Makes room for message number `end`: a new block when it starts one (or the store is empty). */
static bool iq_reserve_next(d12_info_queue *queue)
{
    uint64_t number = queue->end;
    if (queue->stored_count != 0 && number % IQ_BLOCK != 0)
        return true;
    uint64_t in_use = queue->stored_count ? number / IQ_BLOCK - queue->first / IQ_BLOCK + 1 : 1;
    if (in_use > queue->ring_slots && !iq_ring_resize(queue, queue->ring_slots ? queue->ring_slots * 2 : 4))
        return false;
    iq_stored **block = malloc(IQ_BLOCK * sizeof(*block));
    if (!block)
        return false;
    queue->ring[(number / IQ_BLOCK) % queue->ring_slots] = block;
    return true;
}

/* The oldest message leaves the store (counted discarded) and waits in `evicted` to be freed with no lock held;
 * the retrieval cursor and count stay exact. */
static void iq_evict_oldest(d12_info_queue *queue)
{
    uint64_t number = queue->first;
    iq_stored *oldest = iq_at(queue, number);
    bool cursor = iq_cursor_current(queue), count = iq_count_current(queue);
    bool retrievable = (cursor || count) && iq_retrievable(queue, oldest);
    if (cursor && number == queue->cursor_number)
        queue->cursor_valid = false;
    else if (cursor && retrievable)
        queue->cursor_index--;
    if (count && retrievable)
        queue->retrievable--;
    queue->first++;
    queue->stored_count--;
    if (queue->first == queue->end || queue->first % IQ_BLOCK == 0) {
        free(iq_block(queue, number));
        queue->ring[(number / IQ_BLOCK) % queue->ring_slots] = NULL;
    }
    oldest->next = queue->evicted;
    queue->evicted = oldest;
    queue->discarded++;
}

static void iq_enforce_limit(d12_info_queue *queue)
{
    while (queue->stored_count > queue->limit)
        iq_evict_oldest(queue);
}

/* Appends a message (then enforces the limit); false when the store cannot grow: the caller still owns `node`. */
static bool iq_store(d12_info_queue *queue, iq_stored *node)
{
    if (!iq_reserve_next(queue))
        return false;
    iq_block(queue, queue->end)[queue->end % IQ_BLOCK] = node;
    queue->end++;
    queue->stored_count++;
    if (iq_count_current(queue) && iq_retrievable(queue, node))
        queue->retrievable++;
    iq_enforce_limit(queue);
    return true;
}

/* A retrieval filter changed: what filtered reads remember is stale. */
static void iq_filter_changed(d12_info_queue *queue, const iq_stack *stack)
{
    if (stack == &queue->retrieval)
        queue->retrieval_gen++;
}

static void iq_free_chain(iq_stored *node)
{
    while (node) {
        iq_stored *next = node->next;
        free(node);
        node = next;
    }
}

/* A new node for a message of `bytes` text bytes (NUL included). Sized up to 128 text bytes, so that once it is
 * evicted it can hold most later messages as the spare. */
static iq_stored *iq_node_new(size_t bytes)
{
    size_t capacity = bytes < 128 ? 128 : bytes;
    if (capacity > SIZE_MAX - sizeof(iq_stored))
        return NULL;
    iq_stored *node = malloc(sizeof(iq_stored) + capacity);
    if (node)
        node->capacity = capacity;
    return node;
}

/* Unlocks, then frees what was evicted meanwhile (by this thread or another), so no free() runs under the lock;
 * the first evicted node becomes the spare when there is none. */
static void iq_unlock_and_reap(d12_info_queue *queue)
{
    iq_stored *evicted = queue->evicted;
    queue->evicted = NULL;
    if (evicted && !queue->spare) {
        queue->spare = evicted;
        evicted = evicted->next;
    }
    iq_unlock(queue);
    iq_free_chain(evicted);
}

/* ---- Lifetime ---- */

static iq_break_action iq_break_action_from_env(void)
{
    const char *value = getenv("D12RT_BREAK");
    if (!value || !*value || strcmp(value, "auto") == 0)
        return IQ_BREAK_AUTO;
    if (strcmp(value, "trap") == 0)
        return IQ_BREAK_TRAP;
    if (strcmp(value, "log") == 0)
        return IQ_BREAK_LOG;
    if (strcmp(value, "none") == 0)
        return IQ_BREAK_NONE;
    fprintf(stderr, "d12rt: D12RT_BREAK=%s is not one of auto, trap, log, none; using auto\n", value);
    return IQ_BREAK_AUTO;
}

HRESULT d12__info_queue_create(d12_info_queue **out)
{
    if (!out)
        return E_INVALIDARG;
    *out = NULL;
    d12_info_queue *queue = calloc(1, sizeof(*queue));
    if (!queue)
        return E_OUTOFMEMORY;
    if (pthread_mutex_init(&queue->lock, NULL) != 0) {
        free(queue);
        return E_OUTOFMEMORY;
    }
    if (pthread_cond_init(&queue->callback_done, NULL) != 0) {
        pthread_mutex_destroy(&queue->lock);
        free(queue);
        return E_OUTOFMEMORY;
    }
    queue->limit = D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT;
    queue->next_cookie = 1;
    queue->break_action = iq_break_action_from_env();
    *out = queue;
    return S_OK;
}

/* A detached store: what ClearStoredMessages takes out under the lock and frees with no lock held. */
typedef struct iq_detached {
    iq_stored ***ring;
    uint64_t ring_slots, first, end;
} iq_detached;

/* Empties the store in O(1) (caller holds the lock); the messages go to the caller. */
static iq_detached iq_detach_messages(d12_info_queue *queue)
{
    iq_detached detached = {queue->ring, queue->ring_slots, queue->first, queue->end};
    queue->ring = NULL;
    queue->ring_slots = 0;
    queue->first = queue->end;
    queue->stored_count = 0;
    queue->cursor_valid = false;
    queue->retrievable_valid = true;
    queue->retrievable_gen = queue->retrieval_gen;
    queue->retrievable = 0;
    return detached;
}

static void iq_free_detached(iq_detached *d)
{
    for (uint64_t n = d->first; n < d->end; n++)
        free(d->ring[(n / IQ_BLOCK) % d->ring_slots][n % IQ_BLOCK]);
    if (d->end > d->first)
        for (uint64_t b = d->first / IQ_BLOCK; b <= (d->end - 1) / IQ_BLOCK; b++)
            free(d->ring[b % d->ring_slots]);
    free(d->ring);
}

static void iq_free_messages(d12_info_queue *queue)
{
    iq_detached detached = iq_detach_messages(queue);
    iq_free_detached(&detached);
    iq_free_chain(queue->evicted);
    queue->evicted = NULL;
}

void d12__info_queue_destroy(d12_info_queue *queue)
{
    if (!queue)
        return;
    assert(!queue->delivering && "destroyed while a callback runs");
    iq_free_messages(queue);
    free(queue->spare);
    while (queue->pending_head) {
        iq_pending *next = queue->pending_head->next;
        free(queue->pending_head);
        queue->pending_head = next;
    }
    iq_stack_free(&queue->storage);
    iq_stack_free(&queue->retrieval);
    free(queue->break_ids.items);
    free(queue->callbacks);
    pthread_cond_destroy(&queue->callback_done);
    pthread_mutex_destroy(&queue->lock);
    free(queue);
}

/* ---- Debug output and break ---- */

static const char *iq_category_name(D3D12_MESSAGE_CATEGORY category)
{
    static const char *const names[IQ_CATEGORY_COUNT] = {
        "APPLICATION_DEFINED", "MISCELLANEOUS", "INITIALIZATION", "CLEANUP", "COMPILATION", "STATE_CREATION",
        "STATE_SETTING", "STATE_GETTING", "RESOURCE_MANIPULATION", "EXECUTION", "SHADER", "STATE_OBJECT_DATABASE"};
    return (UINT)category < IQ_CATEGORY_COUNT ? names[category] : "UNKNOWN_CATEGORY";
}

static const char *iq_severity_name(D3D12_MESSAGE_SEVERITY severity)
{
    static const char *const names[IQ_SEVERITY_COUNT] = {"CORRUPTION", "ERROR", "WARNING", "INFO", "MESSAGE"};
    return (UINT)severity < IQ_SEVERITY_COUNT ? names[severity] : "UNKNOWN_SEVERITY";
}

/* One fprintf per message so lines from several queues do not interleave (stdio locks per call). */
static void iq_print(const iq_pending *message)
{
    iq_assert_unlocked();
    const char *severity = iq_severity_name(message->severity);
    fprintf(stderr, "D3D12 %s: %s [ %s %s #%u ]\n", severity, message->text, iq_category_name(message->category),
            severity, (unsigned)message->id);
}

static bool iq_traced(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    if (!status)
        return false;
    char line[256];
    long tracer = 0;
    while (fgets(line, sizeof(line), status))
        if (strncmp(line, "TracerPid:", 10) == 0)
            tracer = strtol(line + 10, NULL, 10);
    fclose(status);
    return tracer != 0;
}

/* Runs on the reporting thread, after the message was committed, with no lock held. */
static void iq_break(const d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                     D3D12_MESSAGE_ID id)
{
    iq_assert_unlocked();
    iq_break_action action = queue->break_action;
    if (action == IQ_BREAK_AUTO)
        action = iq_traced() ? IQ_BREAK_TRAP : IQ_BREAK_LOG;
    if (action == IQ_BREAK_TRAP)
        raise(SIGTRAP);
    else if (action == IQ_BREAK_LOG)
        fprintf(stderr, "d12rt: break on D3D12 %s message #%u (%s); set D12RT_BREAK=trap to stop here\n",
                iq_severity_name(severity), (unsigned)id, iq_category_name(category));
}

static bool iq_breaks_on(const d12_info_queue *queue, UINT category, UINT severity, UINT id)
{
    return (category < IQ_CATEGORY_COUNT && queue->break_category[category]) ||
           (severity < IQ_SEVERITY_COUNT && queue->break_severity[severity]) || iq_list_has(&queue->break_ids, id);
}

/* ---- Delivery (callbacks) ---- */

static bool iq_callback_wants(const iq_callback *callback, const iq_pending *message)
{
    if (message->seq < callback->first_seq)
        return false;
    return (callback->flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) || message->passed;
}

/* The first registration after the one registered as `*last` (0: none yet) that wants the message. The
 * array keeps registration order and may change whenever the lock is dropped, so the position is an order
 * number, not an index. */
static const iq_callback *iq_next_callback(const d12_info_queue *queue, const iq_pending *message, uint64_t *last)
{
    for (size_t i = 0; i < queue->callback_count; i++) {
        const iq_callback *callback = &queue->callbacks[i];
        if (callback->order > *last && iq_callback_wants(callback, message)) {
            *last = callback->order;
            return callback;
        }
    }
    return NULL;
}

/* How many application callbacks this thread is inside (infoqueue.h, d12__info_queue_in_callback). */
static _Thread_local unsigned callback_depth;

bool d12__info_queue_in_callback(void)
{
    return callback_depth > 0;
}

/* Called and returns with the lock held; drops it around the output and each callback. */
static void iq_deliver_one(d12_info_queue *queue, const iq_pending *message)
{
    if (message->print) {
        iq_unlock(queue);
        iq_print(message);
        iq_lock(queue);
    }
    uint64_t last = 0;
    const iq_callback *next;
    while ((next = iq_next_callback(queue, message, &last)) != NULL) {
        iq_callback callback = *next; /* the array may move while unlocked */
        queue->running_cookie = callback.cookie;
        iq_unlock(queue);
        iq_assert_unlocked();
        callback_depth++;
        callback.function(message->category, message->severity, message->id, message->text, callback.context);
        callback_depth--;
        iq_lock(queue);
        queue->running_cookie = 0;
        pthread_cond_broadcast(&queue->callback_done);
    }
}

/* Called and returns with the lock held. Delivers everything queued unless some thread (maybe this one,
 * further up the stack inside a callback) already does; then that thread delivers it, in order. */
static void iq_deliver(d12_info_queue *queue)
{
    if (queue->delivering || !queue->pending_head) /* nothing to deliver: the common, muted case */
        return;
    queue->delivering = true;
    queue->deliverer = pthread_self();
    while (queue->pending_head) {
        iq_pending *message = queue->pending_head;
        queue->pending_head = message->next;
        if (!queue->pending_head)
            queue->pending_tail = NULL;
        iq_deliver_one(queue, message);
        queue->pending_count--;
        free(message);
    }
    queue->delivering = false;
}

/* ---- Reporting ---- */

/* Where a report's text comes from: exactly one of text, format + args, or fn + context. */
typedef struct iq_source {
    const char *text;
    const char *format;
    va_list *args;
    d12__info_queue_format_fn fn;
    void *context;
} iq_source;

/* What the first critical section decided. */
typedef struct iq_decision {
    bool passed, print, store, deliver, brk;
} iq_decision;

static size_t iq_vformat(char *buf, size_t size, const char *format, va_list *args)
{
    va_list copy;
    va_copy(copy, *args);
    int n = vsnprintf(buf, size, format, copy);
    va_end(copy);
    return n < 0 ? 0 : (size_t)n;
}

static size_t iq_source_format(const iq_source *source, char *buf, size_t size)
{
    if (source->text) {
        size_t length = strlen(source->text);
        if (size)
            memcpy(buf, source->text, length < size ? length + 1 : size);
        if (size && length >= size)
            buf[size - 1] = '\0';
        return length;
    }
    if (source->format)
        return iq_vformat(buf, size, source->format, source->args);
    return source->fn(buf, size, source->context);
}

/* Formats with no lock held into a node (iq_node_new); *length receives the text's bytes, NUL included. Verbatim
 * text is measured once and copied once. */
static iq_stored *iq_format(const iq_source *source, size_t *length)
{
    iq_assert_unlocked();
    if (source->text) {
        size_t bytes = strlen(source->text) + 1;
        iq_stored *node = iq_node_new(bytes);
        if (!node)
            return NULL;
        memcpy(node->text, source->text, bytes);
        *length = bytes;
        return node;
    }
    char small[256];
    size_t needed = iq_source_format(source, small, sizeof(small));
    if (needed == SIZE_MAX)
        return NULL;
    iq_stored *node = iq_node_new(needed + 1);
    if (!node)
        return NULL;
    if (needed < sizeof(small))
        memcpy(node->text, small, needed + 1);
    else
        iq_source_format(source, node->text, needed + 1);
    node->text[needed] = '\0'; /* a formatter that wrote less still leaves a terminated string */
    *length = strlen(node->text) + 1;
    return node;
}

/* First critical section: counts what needs no text and says who needs it. */
static iq_decision iq_decide(d12_info_queue *queue, UINT category, UINT severity, UINT id)
{
    iq_decision d = {0};
    d.passed = iq_stack_passes(&queue->storage, category, severity, id);
    d.print = d.passed && !queue->mute;
    d.store = d.passed && queue->limit > 0;
    d.deliver = queue->ignore_filter_callbacks > 0 || (d.passed && queue->callback_count > 0) || d.print;
    d.brk = d.passed && iq_breaks_on(queue, category, severity, id);
    if (!d.passed)
        queue->denied++;
    else if (!d.store && !d.deliver) {
        queue->allowed++;
        queue->discarded++; /* limit 0: passed, and discarded at once */
    }
    return d;
}

static iq_pending *iq_pending_from(const iq_stored *stored, const iq_decision *d)
{
    const D3D12_MESSAGE *m = &stored->message;
    iq_pending *pending = malloc(sizeof(*pending) + m->DescriptionByteLength);
    if (!pending)
        return NULL;
    *pending = (iq_pending){NULL, 0, m->Category, m->Severity, m->ID, d->passed, d->print};
    memcpy(pending->text, stored->text, m->DescriptionByteLength);
    return pending;
}

static void iq_enqueue(d12_info_queue *queue, iq_pending *pending)
{
    pending->seq = queue->next_seq;
    if (queue->pending_tail)
        queue->pending_tail->next = pending;
    else
        queue->pending_head = pending;
    queue->pending_tail = pending;
    queue->pending_count++;
}

/* Second critical section: store (if it passed), count, and queue for delivery. `node` is consumed. All or nothing
 * (found by the failure-injection sweep, reliability.fault.report.alloc: a message was stored without its callback,
 * or reported S_OK and not stored): a message the store cannot grow for is not delivered either, and false tells
 * the reporter (AddMessage, pfnReportMessageCb: E_OUTOFMEMORY). */
static bool iq_commit(d12_info_queue *queue, const iq_decision *d, iq_stored *node, iq_pending *pending)
{
    if (d->passed)
        queue->allowed++;
    bool stored = d->store && iq_store(queue, node);
    bool whole = stored || !d->store;
    if (whole && pending &&
        (d->print || queue->ignore_filter_callbacks > 0 || (d->passed && queue->callback_count > 0)))
        iq_enqueue(queue, pending);
    else if (pending)
        free(pending);
    queue->next_seq++;
    if (!stored) {
        if (d->passed)
            queue->discarded++; /* limit 0, or no memory to grow the store */
        free(node);
    }
    iq_deliver(queue);
    return whole;
}

/* Formats (no lock held), then commits; a message that cannot be allocated (its node, or its delivery when it has
 * one) is neither stored nor delivered, counted discarded: false. */
static bool iq_format_and_commit(d12_info_queue *queue, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                                 D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const iq_source *source)
{
    size_t length = 0;
    iq_stored *node = iq_format(source, &length);
    iq_pending *pending = NULL;
    if (node) {
        node->message = (D3D12_MESSAGE){category, severity, id, node->text, length};
        pending = d->deliver ? iq_pending_from(node, d) : NULL;
        if (d->deliver && !pending) {
            free(node);
            node = NULL;
        }
    }
    iq_lock(queue);
    bool whole = node && iq_commit(queue, d, node, pending);
    if (!node && d->passed)
        queue->allowed++, queue->discarded++;
    iq_unlock_and_reap(queue);
    return whole;
}

/* The common case in the first critical section: verbatim text, stored, with nothing to deliver (muted, no
 * callback) goes into the spare node (a copy of a short string, no allocation, no formatting code) and is
 * committed under the same lock. False when there is no spare big enough: the caller takes the two-step path. */
static bool iq_store_verbatim_locked(d12_info_queue *queue, const iq_decision *d, D3D12_MESSAGE_CATEGORY category,
                                     D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text,
                                     bool *whole)
{
    iq_stored *node = queue->spare;
    size_t bytes = strlen(text) + 1;
    if (!node || node->capacity < bytes)
        return false;
    queue->spare = NULL;
    memcpy(node->text, text, bytes);
    node->message = (D3D12_MESSAGE){category, severity, id, node->text, bytes};
    *whole = iq_commit(queue, d, node, NULL);
    return true;
}

/* Whether the message was taken whole (stored and queued as its settings ask, or filtered): false only for lack of
 * memory. */
static bool iq_report(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                      D3D12_MESSAGE_ID id, const iq_source *source)
{
    if (!queue)
        return true;
    bool whole = true;
    iq_lock(queue);
    iq_decision d = iq_decide(queue, category, severity, id);
    if (d.store && !d.deliver && source->text &&
        iq_store_verbatim_locked(queue, &d, category, severity, id, source->text, &whole)) {
        iq_unlock_and_reap(queue);
    } else {
        iq_unlock(queue);
        if (d.store || d.deliver)
            whole = iq_format_and_commit(queue, &d, category, severity, id, source);
    }
    if (d.brk)
        iq_break(queue, category, severity, id);
    return whole;
}

bool d12__info_queue_wants(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                           D3D12_MESSAGE_ID id)
{
    if (!queue)
        return false;
    iq_lock(queue);
    bool passed = iq_stack_passes(&queue->storage, category, severity, id);
    bool wanted = queue->ignore_filter_callbacks > 0 ||
                  (passed && (queue->limit > 0 || !queue->mute || queue->callback_count > 0));
    iq_unlock(queue);
    return wanted;
}

void d12__info_queue_report_fn(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                               D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, d12__info_queue_format_fn format,
                               void *context)
{
    iq_source source = {.fn = format, .context = context};
    iq_report(queue, category, severity, id, &source);
}

void d12__info_queue_report_v(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    iq_source source = {.format = format, .args = &copy};
    iq_report(queue, category, severity, id, &source);
    va_end(copy);
}

void d12__info_queue_report_f(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    d12__info_queue_report_v(queue, category, severity, id, format, args);
    va_end(args);
}

bool d12__info_queue_report_text(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                 D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text)
{
    iq_source source = {.text = text ? text : ""};
    return iq_report(queue, category, severity, id, &source);
}

size_t d12__info_queue_pending(d12_info_queue *queue)
{
    iq_lock(queue);
    size_t count = queue->pending_count;
    iq_unlock(queue);
    return count;
}

/* ---- ID3D12InfoQueue: messages and counters ---- */

HRESULT d12_info_queue_SetMessageCountLimit(d12_info_queue *queue, UINT64 MessageCountLimit)
{
    iq_lock(queue);
    queue->limit = MessageCountLimit;
    iq_enforce_limit(queue); /* lowering the limit evicts the oldest now, counted as discarded */
    iq_unlock_and_reap(queue);
    return S_OK;
}

void d12_info_queue_ClearStoredMessages(d12_info_queue *queue)
{
    iq_lock(queue);
    iq_detached detached = iq_detach_messages(queue);
    iq_unlock_and_reap(queue);
    iq_free_detached(&detached);
}

/* Retrievable message `index`: O(1) unfiltered; filtered, a forward scan from the cursor when it is at or before
 * `index` (sequential reads: amortised O(1)), else from the oldest. */
static const iq_stored *iq_find_retrievable(d12_info_queue *queue, UINT64 index)
{
    if (iq_retrieval_unfiltered(queue)) {
        if (index >= queue->stored_count)
            return NULL;
        queue->visits++;
        return iq_at(queue, queue->first + index);
    }
    uint64_t number = queue->first, k = 0; /* message `number`, if retrievable, is retrievable message k */
    if (iq_cursor_current(queue) && queue->cursor_index <= index) {
        number = queue->cursor_number;
        k = queue->cursor_index;
    }
    for (; number < queue->end; number++) {
        const iq_stored *node = iq_at(queue, number);
        queue->visits++;
        if (!iq_retrievable(queue, node))
            continue;
        if (k == index) {
            queue->cursor_valid = true;
            queue->cursor_gen = queue->retrieval_gen;
            queue->cursor_index = index;
            queue->cursor_number = number;
            return node;
        }
        k++;
    }
    return NULL;
}

/* Copies a stored message: the struct, then the description (NUL included) right after it. */
static void iq_emit_message(const iq_stored *node, D3D12_MESSAGE *out)
{
    char *text = (char *)(out + 1);
    memcpy(text, node->text, node->message.DescriptionByteLength);
    *out = node->message;
    out->pDescription = text;
}

HRESULT d12_info_queue_GetMessage(d12_info_queue *queue, UINT64 MessageIndex, D3D12_MESSAGE *pMessage,
                                  SIZE_T *pMessageByteLength)
{
    if (!pMessageByteLength)
        return E_INVALIDARG;
    HRESULT hr = S_OK;
    iq_lock(queue);
    const iq_stored *node = iq_find_retrievable(queue, MessageIndex);
    SIZE_T needed = node ? sizeof(D3D12_MESSAGE) + node->message.DescriptionByteLength : 0;
    if (!node)
        hr = E_INVALIDARG;
    else if (!pMessage)
        hr = S_FALSE;
    else if (*pMessageByteLength < needed)
        hr = E_INVALIDARG;
    else
        iq_emit_message(node, pMessage);
    if (node)
        *pMessageByteLength = needed; /* also on a too-small buffer, so the caller can retry */
    iq_unlock(queue);
    return hr;
}

static UINT64 iq_read_counter(d12_info_queue *queue, const uint64_t *counter)
{
    iq_lock(queue);
    UINT64 value = *counter;
    iq_unlock(queue);
    return value;
}

UINT64 d12_info_queue_GetNumMessagesAllowedByStorageFilter(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->allowed);
}

UINT64 d12_info_queue_GetNumMessagesDeniedByStorageFilter(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->denied);
}

UINT64 d12_info_queue_GetNumStoredMessages(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->stored_count);
}

UINT64 d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(d12_info_queue *queue)
{
    iq_lock(queue);
    if (iq_retrieval_unfiltered(queue)) {
        UINT64 count = queue->stored_count;
        iq_unlock(queue);
        return count;
    }
    if (!iq_count_current(queue)) { /* once per retrieval-filter change; stores and evictions keep it exact */
        uint64_t count = 0;
        for (uint64_t number = queue->first; number < queue->end; number++, queue->visits++)
            count += iq_retrievable(queue, iq_at(queue, number));
        queue->retrievable = count;
        queue->retrievable_gen = queue->retrieval_gen;
        queue->retrievable_valid = true;
    }
    UINT64 count = queue->retrievable;
    iq_unlock(queue);
    return count;
}

UINT64 d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->discarded);
}

UINT64 d12_info_queue_GetMessageCountLimit(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->limit);
}

/* ---- Filter stacks (shared by the storage and retrieval methods) ---- */

static HRESULT iq_add_entries(d12_info_queue *queue, iq_stack *stack, const D3D12_INFO_QUEUE_FILTER *filter)
{
    HRESULT hr = iq_filter_validate(filter);
    if (FAILED(hr))
        return hr;
    iq_lock(queue);
    bool pushed = stack->depth == 0; /* the IDL: an empty stack gets an empty filter first */
    if (pushed && !iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else
        hr = iq_filter_add(&stack->filters[stack->depth - 1], filter);
    if (FAILED(hr) && pushed && stack->depth)
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static HRESULT iq_get_filter(d12_info_queue *queue, iq_stack *stack, D3D12_INFO_QUEUE_FILTER *out, SIZE_T *length)
{
    if (!length)
        return E_INVALIDARG;
    static const iq_filter empty;
    HRESULT hr = S_OK;
    iq_lock(queue);
    const iq_filter *top = stack->depth ? &stack->filters[stack->depth - 1] : &empty;
    SIZE_T needed = iq_filter_byte_size(top);
    if (!out)
        hr = S_FALSE;
    else if (*length < needed)
        hr = E_INVALIDARG;
    else
        iq_filter_emit(top, out);
    *length = needed;
    iq_unlock(queue);
    return hr;
}

static void iq_clear_filter(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    if (stack->depth)
        iq_filter_free(&stack->filters[stack->depth - 1]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
}

static HRESULT iq_push_empty(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    HRESULT hr = iq_stack_push(stack) ? S_OK : E_OUTOFMEMORY;
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

/* A copy of the top (an empty filter when the stack is empty). */
static HRESULT iq_push_copy(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    HRESULT hr = S_OK;
    if (!iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else if (stack->depth > 1) {
        D3D12_INFO_QUEUE_FILTER view = iq_filter_view(&stack->filters[stack->depth - 2]);
        hr = iq_filter_add(&stack->filters[stack->depth - 1], &view);
        if (FAILED(hr))
            iq_filter_free(&stack->filters[--stack->depth]);
    }
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static HRESULT iq_push_filter(d12_info_queue *queue, iq_stack *stack, const D3D12_INFO_QUEUE_FILTER *filter)
{
    HRESULT hr = iq_filter_validate(filter); /* an invalid filter pushes nothing */
    if (FAILED(hr))
        return hr;
    iq_lock(queue);
    if (!iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else if (FAILED(hr = iq_filter_add(&stack->filters[stack->depth - 1], filter)))
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static void iq_pop(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    if (stack->depth)
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
}

static UINT iq_depth(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    UINT depth = stack->depth;
    iq_unlock(queue);
    return depth;
}

HRESULT d12_info_queue_AddStorageFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_add_entries(queue, &queue->storage, pFilter);
}

HRESULT d12_info_queue_GetStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                        SIZE_T *pFilterByteLength)
{
    return iq_get_filter(queue, &queue->storage, pFilter, pFilterByteLength);
}

void d12_info_queue_ClearStorageFilter(d12_info_queue *queue)
{
    iq_clear_filter(queue, &queue->storage);
}

HRESULT d12_info_queue_PushEmptyStorageFilter(d12_info_queue *queue)
{
    return iq_push_empty(queue, &queue->storage);
}

HRESULT d12_info_queue_PushCopyOfStorageFilter(d12_info_queue *queue)
{
    return iq_push_copy(queue, &queue->storage);
}

HRESULT d12_info_queue_PushStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_push_filter(queue, &queue->storage, pFilter);
}

void d12_info_queue_PopStorageFilter(d12_info_queue *queue)
{
    iq_pop(queue, &queue->storage);
}

UINT d12_info_queue_GetStorageFilterStackSize(d12_info_queue *queue)
{
    return iq_depth(queue, &queue->storage);
}

HRESULT d12_info_queue_AddRetrievalFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_add_entries(queue, &queue->retrieval, pFilter);
}

HRESULT d12_info_queue_GetRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                          SIZE_T *pFilterByteLength)
{
    return iq_get_filter(queue, &queue->retrieval, pFilter, pFilterByteLength);
}

void d12_info_queue_ClearRetrievalFilter(d12_info_queue *queue)
{
    iq_clear_filter(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushEmptyRetrievalFilter(d12_info_queue *queue)
{
    return iq_push_empty(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushCopyOfRetrievalFilter(d12_info_queue *queue)
{
    return iq_push_copy(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_push_filter(queue, &queue->retrieval, pFilter);
}

void d12_info_queue_PopRetrievalFilter(d12_info_queue *queue)
{
    iq_pop(queue, &queue->retrieval);
}

UINT d12_info_queue_GetRetrievalFilterStackSize(d12_info_queue *queue)
{
    return iq_depth(queue, &queue->retrieval);
}

/* ---- Adding messages ---- */

HRESULT d12_info_queue_AddMessage(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category,
                                  D3D12_MESSAGE_SEVERITY Severity, D3D12_MESSAGE_ID ID, LPCSTR pDescription)
{
    if (!pDescription || (UINT)Category >= IQ_CATEGORY_COUNT || (UINT)Severity >= IQ_SEVERITY_COUNT)
        return E_INVALIDARG;
    return d12__info_queue_report_text(queue, Category, Severity, ID, pDescription) ? S_OK : E_OUTOFMEMORY;
}

HRESULT d12_info_queue_AddApplicationMessage(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity,
                                             LPCSTR pDescription)
{
    return d12_info_queue_AddMessage(queue, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, Severity,
                                     D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, pDescription);
}

/* ---- Break and mute ---- */

HRESULT d12_info_queue_SetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category, BOOL bEnable)
{
    if ((UINT)Category >= IQ_CATEGORY_COUNT)
        return E_INVALIDARG;
    iq_lock(queue);
    queue->break_category[Category] = bEnable != FALSE;
    iq_unlock(queue);
    return S_OK;
}

HRESULT d12_info_queue_SetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity, BOOL bEnable)
{
    if ((UINT)Severity >= IQ_SEVERITY_COUNT)
        return E_INVALIDARG;
    iq_lock(queue);
    queue->break_severity[Severity] = bEnable != FALSE;
    iq_unlock(queue);
    return S_OK;
}

HRESULT d12_info_queue_SetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID, BOOL bEnable)
{
    HRESULT hr = S_OK;
    iq_lock(queue);
    if (!bEnable)
        iq_list_remove(&queue->break_ids, ID);
    else if (!iq_list_has(&queue->break_ids, ID)) {
        if (iq_list_reserve(&queue->break_ids, 1))
            queue->break_ids.items[queue->break_ids.count++] = ID;
        else
            hr = E_OUTOFMEMORY;
    }
    iq_unlock(queue);
    return hr;
}

BOOL d12_info_queue_GetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category)
{
    if ((UINT)Category >= IQ_CATEGORY_COUNT)
        return FALSE;
    iq_lock(queue);
    BOOL value = queue->break_category[Category];
    iq_unlock(queue);
    return value;
}

BOOL d12_info_queue_GetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity)
{
    if ((UINT)Severity >= IQ_SEVERITY_COUNT)
        return FALSE;
    iq_lock(queue);
    BOOL value = queue->break_severity[Severity];
    iq_unlock(queue);
    return value;
}

BOOL d12_info_queue_GetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID)
{
    iq_lock(queue);
    BOOL value = iq_list_has(&queue->break_ids, ID);
    iq_unlock(queue);
    return value;
}

void d12_info_queue_SetMuteDebugOutput(d12_info_queue *queue, BOOL bMute)
{
    iq_lock(queue);
    queue->mute = bMute != FALSE;
    iq_unlock(queue);
}

BOOL d12_info_queue_GetMuteDebugOutput(d12_info_queue *queue)
{
    iq_lock(queue);
    BOOL value = queue->mute;
    iq_unlock(queue);
    return value;
}

/* ---- ID3D12InfoQueue1: callbacks ---- */

static bool iq_cookie_in_use(const d12_info_queue *queue, DWORD cookie)
{
    for (size_t i = 0; i < queue->callback_count; i++)
        if (queue->callbacks[i].cookie == cookie)
            return true;
    return false;
}

/* Never 0, never one in use (after 2^32 registrations the counter wraps; live cookies are skipped). */
static DWORD iq_new_cookie(d12_info_queue *queue)
{
    DWORD cookie;
    do {
        cookie = queue->next_cookie++;
    } while (cookie == 0 || iq_cookie_in_use(queue, cookie));
    return cookie;
}

static bool iq_callbacks_reserve(d12_info_queue *queue)
{
    if (queue->callback_count < queue->callback_capacity)
        return true;
    size_t capacity = queue->callback_capacity ? queue->callback_capacity * 2 : 4;
    iq_callback *callbacks = realloc(queue->callbacks, capacity * sizeof(*callbacks));
    if (!callbacks)
        return false;
    queue->callbacks = callbacks;
    queue->callback_capacity = capacity;
    return true;
}

HRESULT d12_info_queue_RegisterMessageCallback(d12_info_queue *queue, D3D12MessageFunc CallbackFunc,
                                               D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext,
                                               DWORD *pCallbackCookie)
{
    if (!pCallbackCookie)
        return E_INVALIDARG;
    *pCallbackCookie = 0;
    if (!CallbackFunc || (CallbackFilterFlags & ~D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS))
        return E_INVALIDARG;
    iq_lock(queue);
    HRESULT hr = S_OK;
    if (!iq_callbacks_reserve(queue)) {
        hr = E_OUTOFMEMORY;
    } else {
        /* The cookie is chosen before the new slot counts as in use: iq_new_cookie scans the live slots, and the
         * new one is not initialised yet. */
        DWORD cookie = iq_new_cookie(queue);
        iq_callback *callback = &queue->callbacks[queue->callback_count++];
        *callback = (iq_callback){++queue->next_order, cookie, queue->next_seq, CallbackFunc, CallbackFilterFlags,
                                  pContext};
        queue->ignore_filter_callbacks += (CallbackFilterFlags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) != 0;
        *pCallbackCookie = callback->cookie;
    }
    iq_unlock(queue);
    return hr;
}

static void iq_remove_callback(d12_info_queue *queue, size_t index)
{
    queue->ignore_filter_callbacks -= (queue->callbacks[index].flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS) != 0;
    memmove(&queue->callbacks[index], &queue->callbacks[index + 1],
            (queue->callback_count - index - 1) * sizeof(*queue->callbacks));
    queue->callback_count--;
}

/* Waits for the callback to return unless this very thread is the one running it (a callback unregistering
 * itself, or any registration, from inside a callback: this thread is the deliverer then). */
HRESULT d12_info_queue_UnregisterMessageCallback(d12_info_queue *queue, DWORD CallbackCookie)
{
    iq_lock(queue);
    size_t index = 0;
    while (index < queue->callback_count && queue->callbacks[index].cookie != CallbackCookie)
        index++;
    if (CallbackCookie == 0 || index == queue->callback_count) {
        iq_unlock(queue);
        return E_INVALIDARG;
    }
    iq_remove_callback(queue, index);
    bool on_this_thread = queue->delivering && pthread_equal(queue->deliverer, pthread_self());
    while (!on_this_thread && queue->running_cookie == CallbackCookie)
        pthread_cond_wait(&queue->callback_done, &queue->lock);
    iq_unlock(queue);
    return S_OK;
}

/* ---- Test hooks (tests/infoqueue) ---- */

uint64_t d12__info_queue_test_visits(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->visits);
}

void d12__info_queue_test_set_next_cookie(d12_info_queue *queue, DWORD cookie)
{
    iq_lock(queue);
    queue->next_cookie = cookie;
    iq_unlock(queue);
}
