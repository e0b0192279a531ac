/* Work done once, at first use, by whichever thread gets there first: both drivers zero a buffer's bytes at its
 * first use, not at creation, so a buffer created and released untouched never pays for it (docs/performance.md,
 * docs/vulkan.md "Buffer memory"). The state is an atomic_int, D12_DRV_ONCE_PENDING until claimed. */
#ifndef D12RT_DRVCOMMON_ONCE_H
#define D12RT_DRVCOMMON_ONCE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

enum { D12_DRV_ONCE_PENDING, D12_DRV_ONCE_RUNNING, D12_DRV_ONCE_DONE };

/* True: the caller does the work, then calls d12__drv_once_done. False: the work is done, by this call's return
 * (a thread that finds another at it yields until it finishes: the work is a memset of one buffer, bounded by its
 * size, so no sleep of a condition variable is worth its cost on every first use). */
static inline bool d12__drv_once_claim(atomic_int *state)
{
    if (atomic_load_explicit(state, memory_order_acquire) == D12_DRV_ONCE_DONE)
        return false;
    int expected = D12_DRV_ONCE_PENDING;
    if (atomic_compare_exchange_strong_explicit(state, &expected, D12_DRV_ONCE_RUNNING, memory_order_acquire,
                                                memory_order_acquire))
        return true;
    while (atomic_load_explicit(state, memory_order_acquire) != D12_DRV_ONCE_DONE)
        sched_yield();
    return false;
}

/* The claimed work is done: what it wrote is visible to every later claim's caller. */
static inline void d12__drv_once_done(atomic_int *state)
{
    atomic_store_explicit(state, D12_DRV_ONCE_DONE, memory_order_release);
}

#endif
