/* InfoQueue storage: lifetime, the store of messages (blocks of pointers in a ring, the count limit, eviction with
 * the node kept as a spare), retrieval (GetMessage, the retrieval cursor) and the counters.
 * Design: docs/infoqueue.md "Storage and retrieval"; lock: docs/locking.md. */
#define _GNU_SOURCE /* syscall(2) for the futex */

#include "store.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef NDEBUG
_Thread_local unsigned d12__iq_locks_held; /* InfoQueue locks this thread holds (internal.h, iq_lock) */
#endif

/* ---- The lock's slow paths (internal.h) ---- */

static void iq_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0); /* EAGAIN or EINTR: the caller loops */
}

static void iq_futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

/* The compare-exchange found the lock held: mark it contended (2) and sleep until it is free, as glibc's default
 * mutex does (no spinning: with more reporting threads than cores, a spinner only delays the holder). */
void d12__iq_lock_contended(d12_info_queue *queue)
{
    while (atomic_exchange_explicit(&queue->lock, 2, memory_order_acquire) != 0)
        iq_futex_wait(&queue->lock, 2);
}

void d12__iq_unlock_contended(d12_info_queue *queue)
{
    iq_futex_wake(&queue->lock, 1);
}

void d12__iq_wait_callback_done(d12_info_queue *queue)
{
    uint32_t seen = atomic_load_explicit(&queue->callback_done, memory_order_relaxed);
    iq_unlock(queue);
    iq_futex_wait(&queue->callback_done, seen); /* returns at once if a broadcast came after `seen` */
    iq_lock(queue);
}

void d12__iq_broadcast_callback_done(d12_info_queue *queue)
{
    atomic_fetch_add_explicit(&queue->callback_done, 1, memory_order_relaxed);
    iq_futex_wake(&queue->callback_done, INT32_MAX);
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

/* The slow part of iq_reserve_next (store.h): a new block for number `end`. */
bool d12__iq_reserve_block(d12_info_queue *queue)
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

void d12__iq_enforce_limit(d12_info_queue *queue)
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
    d12__iq_enforce_limit(queue);
    return true;
}

static void iq_free_chain(iq_stored *node)
{
    while (node) {
        iq_stored *next = node->next;
        free(node);
        node = next;
    }
}

/* A new node for a message of `bytes` text bytes (NUL included). Sized up to IQ_MIN_TEXT text bytes, so that once it is
 * evicted it can hold most later messages as the spare. */
iq_stored *d12__iq_node_new(size_t bytes)
{
    size_t capacity = bytes < IQ_MIN_TEXT ? IQ_MIN_TEXT : bytes;
    if (capacity > SIZE_MAX - sizeof(iq_stored))
        return NULL;
    iq_stored *node = malloc(sizeof(iq_stored) + capacity);
    if (node)
        node->capacity = capacity;
    return node;
}

/* Unlocks, then frees what was evicted meanwhile (by this thread or another), so no free() runs under the lock;
 * the first evicted node becomes the spare when there is none. */
void d12__iq_unlock_and_reap(d12_info_queue *queue)
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
    iq_free_chain(queue->evicted);
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
    d12__iq_enforce_limit(queue); /* lowering the limit evicts the oldest now, counted as discarded */
    d12__iq_unlock_and_reap(queue);
    return S_OK;
}

void d12_info_queue_ClearStoredMessages(d12_info_queue *queue)
{
    iq_lock(queue);
    iq_detached detached = iq_detach_messages(queue);
    d12__iq_unlock_and_reap(queue);
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

