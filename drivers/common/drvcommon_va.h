/* The driver GPU virtual address space, one implementation for both drivers (drivers/reference/, drivers/vulkan/;
 * docs/refdrv.md, docs/vulkan.md): a bump allocator from D12_DRV_VA_BASE that never reuses a range, every
 * allocation 64 KiB aligned and followed by an unmapped 64 KiB gap, so an address that outlived its allocation, or
 * ran off its end, resolves to nothing (a page fault), never to another allocation's bytes.
 *
 * The allocations are kept sorted by address. Allocation order is address order, so a new one is always appended.
 * A released allocation's entry keeps its address with no object (its range resolves to nothing, as a gap does)
 * until a compaction, which runs when released entries outnumber live ones: a release is a binary search and a
 * store, compactions amortized O(1) over releases in any order (issue 17 item 7.8: a memmove per release made
 * 200 000 releases in creation order quadratic; tests/driver/test_refdrv_va.c).
 *
 * The objects are the drivers' buffers. Each begins with its `atomic_uint` reference count (each driver
 * static-asserts it): a lookup takes a reference under the read lock, so a concurrent release never frees memory
 * a timeline is using. */
#ifndef D12_DRVCOMMON_VA_H
#define D12_DRVCOMMON_VA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "d12rt/d3d12ddi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define D12_DRV_VA_BASE 0x0000000100000000ull
#define D12_DRV_VA_ALIGNMENT 0x10000ull /* 64 KiB: each allocation's start, and its unmapped gap after it */

typedef struct d12__drv_va_entry {
    UINT64 va, span;
    void *object; /* NULL: released */
} d12__drv_va_entry;

typedef struct d12__drv_va_space {
    pthread_rwlock_t lock; /* guards everything below; readers are the timelines resolving addresses */
    UINT64 next;
    d12__drv_va_entry *entries;
    size_t count, capacity, released; /* entries in use; allocated; of those in use, released */
    UINT64 moved; /* entries copied by compactions, ever: the work a test counts (tests/driver/test_refdrv_va.c) */
    /* NULL, or called with the write lock held once an allocation's range is mapped (true) and as it is unmapped
     * (false): the Vulkan driver keeps its kernels' page table in step here. */
    void (*map)(void *object, bool mapped);
} d12__drv_va_space;

/* The bytes of an allocation of `size` bytes: rounded up to 64 KiB (the unmapped gap of 64 KiB follows it). */
static inline UINT64 d12__drv_va_span(UINT64 size)
{
    return (size + D12_DRV_VA_ALIGNMENT - 1) & ~(D12_DRV_VA_ALIGNMENT - 1);
}

/* An empty space (its first allocation at D12_DRV_VA_BASE); false: the lock could not be made. */
bool d12__drv_va_init(d12__drv_va_space *va, void (*map)(void *object, bool mapped));
void d12__drv_va_fini(d12__drv_va_space *va);
/* Reserve the next `span` bytes (a multiple of 64 KiB) for `object`: *address is set, then the map hook runs, both
 * under the write lock. false: the registry cannot grow (nothing reserved). */
bool d12__drv_va_reserve(d12__drv_va_space *va, void *object, UINT64 span, UINT64 *address);
/* The range reserved for `object` at `address` maps to nothing from now on (the unmap hook runs first). */
void d12__drv_va_release(d12__drv_va_space *va, UINT64 address, const void *object);
/* The live object whose allocation contains `address`, with a reference taken; NULL: the address is on a page
 * mapped to no live allocation (a page fault). */
void *d12__drv_va_acquire(d12__drv_va_space *va, UINT64 address);
/* `visit(context, object)` for each live allocation overlapping [start, end), in address order, under the read
 * lock (so `visit` may take a reference); stops and returns false at the first `visit` that does. */
bool d12__drv_va_visit(d12__drv_va_space *va, UINT64 start, UINT64 end, bool (*visit)(void *context, void *object),
                       void *context);
/* The 64 KiB pages reserved so far (the live and released allocations and their gaps). */
UINT64 d12__drv_va_pages(d12__drv_va_space *va);

#ifdef __cplusplus
}
#endif

#endif
