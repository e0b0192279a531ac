/* The InfoQueue lock's slow paths (internal.h, iq_lock): a futex mutex and the `callback_done` sequence word.
 * Lock: docs/locking.md. Taken by every other file of runtime/infoqueue/; calls nothing of them. */
#define _GNU_SOURCE /* syscall(2) for the futex */

#include "internal.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef NDEBUG
_Thread_local unsigned d12__iq_locks_held; /* InfoQueue locks this thread holds (internal.h, iq_lock) */
#endif

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
