/* The driver GPU virtual address space (drvcommon_va.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_va.h"

bool d12__drv_va_init(d12__drv_va_space *va, void (*map)(void *object, bool mapped))
{
    memset(va, 0, sizeof *va);
    va->next = D12_DRV_VA_BASE;
    va->map = map;
    return pthread_rwlock_init(&va->lock, NULL) == 0;
}

void d12__drv_va_fini(d12__drv_va_space *va)
{
    free(va->entries);
    va->entries = NULL;
    va->count = va->capacity = va->released = 0;
    pthread_rwlock_destroy(&va->lock);
}

/* Index of the last entry starting at or below `address`, or count when there is none. Lock held. */
static size_t find_below(const d12__drv_va_space *va, UINT64 address)
{
    size_t low = 0, high = va->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (va->entries[middle].va <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low ? low - 1 : va->count;
}

void *d12__drv_va_acquire(d12__drv_va_space *va, UINT64 address)
{
    void *found = NULL;
    pthread_rwlock_rdlock(&va->lock);
    size_t i = find_below(va, address);
    /* The whole 64 KiB-granular allocation is mapped: an address past the buffer's Width but inside it is the
     * buffer's (an overrun, not a page fault). A released entry's range is mapped to nothing. */
    if (i < va->count && va->entries[i].object && address - va->entries[i].va < va->entries[i].span) {
        found = va->entries[i].object;
        atomic_fetch_add_explicit((atomic_uint *)found, 1, memory_order_relaxed); /* refs: the first member */
    }
    pthread_rwlock_unlock(&va->lock);
    return found;
}

bool d12__drv_va_visit(d12__drv_va_space *va, UINT64 start, UINT64 end, bool (*visit)(void *context, void *object),
                       void *context)
{
    bool ok = true;
    pthread_rwlock_rdlock(&va->lock);
    size_t i = find_below(va, start);
    if (i == va->count)
        i = 0; /* nothing starts at or below `start`: the first entry may still overlap */
    for (; ok && i < va->count && va->entries[i].va < end; i++) {
        const d12__drv_va_entry *entry = &va->entries[i];
        if (entry->object && entry->va + entry->span > start)
            ok = visit(context, entry->object);
    }
    pthread_rwlock_unlock(&va->lock);
    return ok;
}

UINT64 d12__drv_va_pages(d12__drv_va_space *va)
{
    pthread_rwlock_rdlock(&va->lock);
    UINT64 pages = (va->next - D12_DRV_VA_BASE) / D12_DRV_VA_ALIGNMENT;
    pthread_rwlock_unlock(&va->lock);
    return pages;
}

/* Drop the released entries, keeping the order. Write lock held. */
static void compact(d12__drv_va_space *va)
{
    size_t kept = 0;
    for (size_t i = 0; i < va->count; i++) {
        if (va->entries[i].object)
            va->entries[kept++] = va->entries[i];
    }
    va->moved += kept;
    va->count = kept;
    va->released = 0;
}

bool d12__drv_va_reserve(d12__drv_va_space *va, void *object, UINT64 span, UINT64 *address)
{
    bool ok = true;
    pthread_rwlock_wrlock(&va->lock);
    if (va->count == va->capacity && va->released * 2 >= va->count && va->released)
        compact(va); /* at least half the entries go: room without growing */
    if (va->count == va->capacity) {
        size_t capacity = va->capacity ? va->capacity * 2 : 64;
        d12__drv_va_entry *entries = realloc(va->entries, capacity * sizeof *entries);
        ok = entries != NULL;
        if (ok) {
            va->entries = entries;
            va->capacity = capacity;
        }
    }
    if (ok) {
        *address = va->next;
        va->next += span + D12_DRV_VA_ALIGNMENT; /* the unmapped gap */
        va->entries[va->count++] = (d12__drv_va_entry){*address, span, object};
        if (va->map)
            va->map(object, true);
    }
    pthread_rwlock_unlock(&va->lock);
    return ok;
}

/* A binary search and a store; a compaction when released entries outnumber the live ones, so each costs at most
 * what the releases since the last one did. */
void d12__drv_va_release(d12__drv_va_space *va, UINT64 address, const void *object)
{
    pthread_rwlock_wrlock(&va->lock);
    size_t i = find_below(va, address);
    if (i < va->count && va->entries[i].object == object) {
        if (va->map)
            va->map(va->entries[i].object, false);
        va->entries[i].object = NULL;
        va->released++;
        if (va->released * 2 > va->count)
            compact(va);
    }
    pthread_rwlock_unlock(&va->lock);
}
