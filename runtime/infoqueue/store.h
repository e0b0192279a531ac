/* The store's primitives the report path inlines (storage.c owns the store; report.c stores through these).
 * Caller holds the lock. docs/infoqueue.md "Storage and retrieval"; docs/performance.md "Report path". */
#ifndef D12_INFOQUEUE_STORE_H
#define D12_INFOQUEUE_STORE_H

#include "internal.h"

#include <stdlib.h>
#include <string.h>

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

bool d12__iq_reserve_block(d12_info_queue *queue); /* storage.c */
void d12__iq_enforce_limit(d12_info_queue *queue);  /* storage.c */

/* Makes room for message number `end`: a new block when it starts one (or the store is empty). */
static inline bool iq_reserve_next(d12_info_queue *queue)
{
    if (__builtin_expect(queue->stored_count != 0 && queue->end % IQ_BLOCK != 0, 1))
        return true;
    return d12__iq_reserve_block(queue);
}

/* The oldest message leaves the store (counted discarded); the retrieval cursor and count stay exact. Returns its
 * node, which the caller frees (with no lock held) or reuses. */
static inline iq_stored *iq_take_oldest(d12_info_queue *queue)
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
static inline void iq_place(d12_info_queue *queue, iq_stored *node)
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
 * nothing changed, when neither fits or the store cannot grow: the caller then allocates with no lock held. */
static inline bool iq_store_text_locked(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                        D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text,
                                        size_t bytes)
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
    node->who = (iq_identity){0, 0}; /* v2: the caller sets a driver message's */
    iq_place(queue, node);
    if (!recycled)
        d12__iq_enforce_limit(queue);
    return true;
}

#endif
