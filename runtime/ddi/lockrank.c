/* Debug builds' lock-order checks (lockrank.h). */
#include "lockrank.h"

#ifndef NDEBUG
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

/* The ranks this thread holds, in the order taken (nesting is shallow: at most three ranked locks at once). */
#define MAX_HELD 8
static _Thread_local d12_lock_rank held[MAX_HELD];
static _Thread_local int held_count;

void d12__lock(pthread_mutex_t *mutex, d12_lock_rank rank)
{
    for (int i = 0; i < held_count; i++) {
        if (held[i] >= rank) {
            fprintf(stderr, "d12rt: lock order violated: taking a rank-%d lock while holding rank %d "
                    "(docs/locking.md)\n", (int)rank, (int)held[i]);
            abort();
        }
    }
    assert(held_count < MAX_HELD);
    pthread_mutex_lock(mutex);
    held[held_count++] = rank;
}

int d12__lockrank_highest_held(void)
{
    int highest = 0;
    for (int i = 0; i < held_count; i++)
        highest = (int)held[i] > highest ? (int)held[i] : highest;
    return highest;
}

void d12__unlock(pthread_mutex_t *mutex, d12_lock_rank rank)
{
    for (int i = held_count - 1; i >= 0; i--) {
        if (held[i] == rank) {
            held[i] = held[--held_count];
            break;
        }
    }
    pthread_mutex_unlock(mutex);
}
#endif
