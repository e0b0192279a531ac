/* Ranked locking (docs/locking.md): a thread holding a lock of rank r may only take locks of a higher rank. Debug
 * builds keep, per thread, the ranks held and assert the order on every d12__lock; release builds call pthread
 * directly. Only the runtime's ranked mutexes go through here; the InfoQueue lock (a leaf with its own assertions)
 * and the object data lock (a leaf whose holder may release application objects) do not. */
#ifndef D12_LOCKRANK_H
#define D12_LOCKRANK_H

#include <pthread.h>

/* The numbers are docs/locking.md's table's (rank 1 there is the adapter lock, a plain mutex; 0 the live driver
 * devices rwlock): keep the two in step. */
typedef enum d12_lock_rank {
    D12_RANK_CHILDREN = 2,    /* d12_device.children_lock */
    D12_RANK_QUEUE = 3,       /* d12_command_queue.lock */
    D12_RANK_FENCE = 3,       /* d12_fence.lock: never held with a queue's */
    D12_RANK_ALLOCATOR = 3,   /* d12_command_allocator.lock: a leaf */
    D12_RANK_CORRELATION = 4, /* d12_correlation.lock */
    D12_RANK_OBJTABLE = 5,    /* d12_objtable.lock */
    D12_RANK_EVENTS = 6,      /* event.c's table of held events: a leaf, taken under a fence's lock */
} d12_lock_rank;

#ifdef NDEBUG
/* Debug builds only: the highest rank this thread holds, 0 when it holds none. */
static inline int d12__lockrank_highest_held(void)
{
    return 0;
}

static inline void d12__lock(pthread_mutex_t *mutex, d12_lock_rank rank)
{
    (void)rank;
    pthread_mutex_lock(mutex);
}

static inline void d12__unlock(pthread_mutex_t *mutex, d12_lock_rank rank)
{
    (void)rank;
    pthread_mutex_unlock(mutex);
}
#else
/* Assert that every rank this thread holds is below `rank`, lock, and remember it. */
void d12__lock(pthread_mutex_t *mutex, d12_lock_rank rank);
/* Unlock and forget the most recent hold of `rank`. */
void d12__unlock(pthread_mutex_t *mutex, d12_lock_rank rank);
/* The highest rank this thread holds, 0 when it holds none (the driver-call check, runtime/ddi_trace.c). */
int d12__lockrank_highest_held(void);
#endif

#endif
