/* InfoQueue storage: the store of messages (blocks of pointers in a ring, the count limit, eviction with the node
 * kept as a spare), lifetime, retrieval (GetMessage, the retrieval cursor) and the counters. On a message's path
 * report.c calls d12__iq_store or d12__iq_store_text once, with the lock held; nothing here calls another file of
 * runtime/infoqueue/ on that path. Design: docs/infoqueue.md "Storage and retrieval"; lock: docs/locking.md. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- The store's primitives (caller holds the lock; docs/performance.md "Report path") ---- */

static inline iq_stored **iq_block(const d12_info_queue *queue, uint64_t number)
{
    return queue->ring[(number / IQ_BLOCK) & (queue->ring_slots - 1)]; /* ring_slots is a power of two */
}

static inline iq_stored *iq_at(const d12_info_queue *queue, uint64_t number)
{
    return iq_block(queue, number)[number % IQ_BLOCK];
}

static inline bool iq_retrievable(const d12_info_queue *queue, const iq_stored *node)
{
    const D3D12_MESSAGE *m = &node->message;
    return iq_stack_passes(&queue->retrieval, m->Category, m->Severity, m->ID);
}

static inline bool iq_cursor_current(const d12_info_queue *queue)
{
    return queue->cursor_valid && queue->cursor_gen == queue->retrieval_gen;
}

static inline bool iq_count_current(const d12_info_queue *queue)
{
    return queue->retrievable_valid && queue->retrievable_gen == queue->retrieval_gen;
}

static bool iq_reserve_block(d12_info_queue *queue);
static void iq_enforce_limit(d12_info_queue *queue);

/* Makes room for message number `end`: a new block when it starts one (or the store is empty). */
static inline bool iq_reserve_next(d12_info_queue *queue)
{
    if (__builtin_expect(queue->stored_count != 0 && queue->end % IQ_BLOCK != 0, 1))
        return true;
    return iq_reserve_block(queue);
}

/* The oldest message leaves the store (counted discarded); the retrieval cursor and count stay exact. Returns its
 * node, which the caller frees (with no lock held) or reuses. */
static inline __attribute__((always_inline)) iq_stored *iq_take_oldest(d12_info_queue *queue)
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
        queue->ring[(number / IQ_BLOCK) & (queue->ring_slots - 1)] = NULL;
    }
    queue->discarded++;
    return oldest;
}

/* Puts `node` at number `end` (its block exists) and counts it. */
static inline __attribute__((always_inline)) void iq_place(d12_info_queue *queue, iq_stored *node)
{
    iq_block(queue, queue->end)[queue->end % IQ_BLOCK] = node;
    queue->end++;
    queue->stored_count++;
    if (iq_count_current(queue) && iq_retrievable(queue, node))
        queue->retrievable++;
}

/* Whether storing one more message can evict the oldest and reuse its node: the store is full and keeps a message
 * after the eviction (so the eviction frees no block the new number needs). The steady state of a queue at its
 * count limit. */
static inline bool iq_can_recycle_oldest(const d12_info_queue *queue, size_t bytes)
{
    return queue->stored_count == queue->limit && queue->stored_count > 1 &&
           iq_at(queue, queue->first)->capacity >= bytes;
}

/* Stores a copy of verbatim text with no allocation but a new block once per IQ_BLOCK messages (the report path's
 * steady state; docs/performance.md "Report path"): in the oldest message's node when the store is full (it is
 * evicted first, with the accounting the limit's eviction after a store has), else in the spare. False, with
 * nothing changed, when neither fits or the store cannot grow: d12__iq_store_text then allocates with no lock
 * held. */
static inline __attribute__((always_inline)) bool iq_store_text_locked(d12_info_queue *queue,
                                                                      D3D12_MESSAGE_CATEGORY category,
                                                                      D3D12_MESSAGE_SEVERITY severity,
                                                                      D3D12_MESSAGE_ID id, const char *text,
                                                                      size_t bytes, const iq_identity *who)
{
    bool recycled = iq_can_recycle_oldest(queue, bytes);
    if (!recycled && (!queue->spare || queue->spare->capacity < bytes))
        return false;
    if (!iq_reserve_next(queue)) /* the block of number `end`, when it starts one */
        return false;
    iq_stored *node;
    if (recycled) {
        node = iq_take_oldest(queue); /* the store keeps a message: the block just reserved stays */
    } else {
        node = queue->spare;
        queue->spare = NULL;
    }
    memcpy(node->text, text, bytes);
    node->message = (D3D12_MESSAGE){category, severity, id, node->text, bytes};
    node->who = *who; /* v2 */
    iq_place(queue, node);
    if (!recycled)
        iq_enforce_limit(queue);
    return true;
}

/* ---- Stored messages (caller holds the lock) ---- */

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

/* The slow part of iq_reserve_next: a new block for number `end`. */
static bool iq_reserve_block(d12_info_queue *queue)
{
    uint64_t number = queue->end;
    uint64_t in_use = queue->stored_count ? number / IQ_BLOCK - queue->first / IQ_BLOCK + 1 : 1;
    if (in_use > queue->ring_slots && !iq_ring_resize(queue, queue->ring_slots ? queue->ring_slots * 2 : 4))
        return false;
    iq_stored **block = malloc(IQ_BLOCK * sizeof(*block));
    if (!block)
        return false;
    queue->ring[(number / IQ_BLOCK) & (queue->ring_slots - 1)] = block;
    return true;
}

/* Evicts the oldest message: it waits in `evicted` to be freed with no lock held. */
static void iq_evict_oldest(d12_info_queue *queue)
{
    iq_stored *oldest = iq_take_oldest(queue);
    oldest->next = queue->evicted;
    queue->evicted = oldest;
}

static void iq_enforce_limit(d12_info_queue *queue)
{
    while (queue->stored_count > queue->limit)
        iq_evict_oldest(queue);
}

/* Appends a message (then enforces the limit); false when the store cannot grow: the caller still owns `node`. */
bool d12__iq_store(d12_info_queue *queue, iq_stored *node)
{
    if (!iq_reserve_next(queue))
        return false;
    iq_place(queue, node);
    iq_enforce_limit(queue);
    return true;
}

/* Verbatim text in a node allocated with the lock dropped meanwhile (the store still growing, a text longer than
 * the recycled node); out of line, so the fast path below pays nothing for it. */
static __attribute__((noinline)) bool iq_store_text_allocated(d12_info_queue *queue, const D3D12_MESSAGE *message,
                                                              const iq_identity *who)
{
    iq_unlock(queue);
    iq_stored *node = iq_stored_new(message->DescriptionByteLength);
    if (node) {
        memcpy(node->text, message->pDescription, message->DescriptionByteLength);
        node->message = *message;
        node->message.pDescription = node->text;
        node->who = *who; /* v2 */
    }
    iq_lock(queue);
    if (node && d12__iq_store(queue, node))
        return true;
    free(node);
    return false;
}

/* Verbatim text: in a recycled node or the spare when one fits (iq_store_text_locked), else in a new node. */
bool d12__iq_store_text(d12_info_queue *queue, const D3D12_MESSAGE *message, const iq_identity *who)
{
    if (__builtin_expect(iq_store_text_locked(queue, message->Category, message->Severity, message->ID,
                                              message->pDescription, message->DescriptionByteLength, who),
                         1))
        return true;
    return iq_store_text_allocated(queue, message, who);
}

HRESULT d12__info_queue_create(d12_info_queue **out)
{
    if (!out)
        return E_INVALIDARG;
    *out = NULL;
    d12_info_queue *queue = calloc(1, sizeof(*queue));
    if (!queue)
        return E_OUTOFMEMORY;
    queue->limit = D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT;
    queue->next_cookie = 1;
    queue->break_action = d12__iq_break_action_from_env();
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
    iq_stored_free_chain(queue->evicted);
    queue->evicted = NULL;
}

static void iq_free_pending_chain(iq_pending *node)
{
    while (node) {
        iq_pending *next = node->next;
        free(node);
        node = next;
    }
}

void d12__info_queue_destroy(d12_info_queue *queue)
{
    if (!queue)
        return;
    assert(!queue->delivering && "destroyed while a callback runs");
    iq_free_messages(queue);
    free(queue->spare);
    iq_free_pending_chain(queue->pending_head);
    iq_free_pending_chain(queue->pending_pool);
    d12__iq_stack_free(&queue->storage);
    d12__iq_stack_free(&queue->retrieval);
    d12__iq_driver_filters_free(queue); /* v2 */
    free(queue->break_ids.items);
    free(queue->callbacks);
    free(queue);
}

/* ---- ID3D12InfoQueue: messages and counters ---- */

HRESULT d12_info_queue_SetMessageCountLimit(d12_info_queue *queue, UINT64 MessageCountLimit)
{
    iq_lock(queue);
    queue->limit = MessageCountLimit;
    d12__iq_settings_changed(queue);
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

/* v2: GetMessage1 (infoqueue2.c) finds messages as GetMessage does. */
const iq_stored *d12__iq_find_retrievable(d12_info_queue *queue, UINT64 index)
{
    return iq_find_retrievable(queue, index);
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

/* ---- Test hooks (tests/infoqueue) ---- */

uint64_t d12__info_queue_test_visits(d12_info_queue *queue)
{
    return iq_read_counter(queue, &queue->visits);
}

