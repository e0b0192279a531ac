/* The driver GPU virtual address space, one implementation for both drivers (drivers/reference/, drivers/vulkan/;
 * docs/refdrv.md, docs/vulkan.md): every allocation 64 KiB aligned and followed by an unmapped 64 KiB gap, so an
 * address that ran off its end resolves to nothing (a page fault), never to another allocation's bytes.
 *
 * The contract (spec/ddi.yaml, d3d12ddi.h, for every driver; issue 28 item 1): the range of a released allocation
 * (its span and its gap) is handed out again only after at least D12_DRV_VA_QUARANTINE further releases of this
 * space, the size of DRED's ring of recently freed allocations, so an address that outlived its allocation resolves
 * to nothing for as long as DRED can name it (a use after free, never another buffer's bytes). Released ranges wait
 * in a FIFO (the quarantine); once old enough they join the free ranges, kept in bins by size, from which a
 * reservation takes one of the smallest size that fits (best fit; the rest stays free when it holds at least a
 * page and a gap).
 * Only when no free block fits does the space grow (a bump pointer from D12_DRV_VA_BASE). So the space never runs
 * out under any number of create + release cycles: it stays within the live allocations, the last 65 000 released
 * and the fragments between them.
 *
 * The allocations are kept sorted by address in `entries`. A released allocation's entry keeps its address with no
 * object (its range resolves to nothing, as a gap does) until a compaction, which runs when released entries
 * outnumber live ones: a release is a binary search and a store, compactions amortized O(1) over releases in any
 * order (issue 17 item 7.8: a memmove per release made 200 000 releases in creation order quadratic;
 * tests/driver/test_refdrv_va.c). A reservation that grows the space is appended; one that reuses a range takes its
 * old entry back where it is still there, else is inserted (a memmove of the entries above it, counted in `moved`).
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
/* Releases a released range waits before it is handed out again: DRED's recently-freed ring (D12_DRED_FREED_RING). */
#define D12_DRV_VA_QUARANTINE 65000u

/* A released range (span + gap) in the quarantine. */
typedef struct d12__drv_va_block {
    UINT64 va, bytes;
    UINT64 released_at; /* the space's release count after its release */
} d12__drv_va_block;
/* The free ranges of one size (span + gap), a stack. */
typedef struct d12__drv_va_bin {
    UINT64 bytes;
    UINT64 *vas;
    size_t count, capacity;
} d12__drv_va_bin;

typedef struct d12__drv_va_entry {
    UINT64 va, span;
    void *object; /* NULL: released */
} d12__drv_va_entry;

typedef struct d12__drv_va_space {
    pthread_rwlock_t lock; /* guards everything below; readers are the timelines resolving addresses */
    UINT64 next;
    d12__drv_va_entry *entries;
    size_t count, capacity, released; /* entries in use; allocated; of those in use, released */
    UINT64 moved; /* entries copied by compactions and inserts, ever: the work a test counts (test_refdrv_va.c) */
    UINT64 releases; /* releases so far: a quarantined range is free once this is D12_DRV_VA_QUARANTINE past it */
    d12__drv_va_block *quarantine; /* a ring, oldest at quarantine_head */
    size_t quarantine_head, quarantine_count, quarantine_capacity;
    d12__drv_va_bin *bins; /* the free ranges by size, sorted by size: best fit is a binary search and a pop */
    size_t bin_count, bin_capacity, free_count;
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
/* Reserve `span` bytes (a multiple of 64 KiB) and the gap after them for `object`: the smallest free block that fits
 * (a range released at least D12_DRV_VA_QUARANTINE releases ago), else the next bytes past every range handed out.
 * *address is set, then the map hook runs, both under the write lock. false: out of memory (nothing reserved). */
bool d12__drv_va_reserve(d12__drv_va_space *va, void *object, UINT64 span, UINT64 *address);
/* The range reserved for `object` at `address` maps to nothing from now on (the unmap hook runs first); it is handed
 * out again no sooner than D12_DRV_VA_QUARANTINE releases later. */
void d12__drv_va_release(d12__drv_va_space *va, UINT64 address, const void *object);
/* The live object whose allocation contains `address`, with a reference taken; NULL: the address is on a page
 * mapped to no live allocation (a page fault). */
void *d12__drv_va_acquire(d12__drv_va_space *va, UINT64 address);
/* `visit(context, object)` for each live allocation overlapping [start, end), in address order, under the read
 * lock (so `visit` may take a reference); stops and returns false at the first `visit` that does. */
bool d12__drv_va_visit(d12__drv_va_space *va, UINT64 start, UINT64 end, bool (*visit)(void *context, void *object),
                       void *context);
/* The 64 KiB pages the space spans so far from D12_DRV_VA_BASE (live, quarantined and free ranges, their gaps): an
 * address at or past D12_DRV_VA_BASE + 64 KiB x this was never handed out. */
UINT64 d12__drv_va_pages(d12__drv_va_space *va);

#ifdef __cplusplus
}
#endif

#endif
