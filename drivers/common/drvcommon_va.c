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
    free(va->quarantine);
    for (size_t i = 0; i < va->bin_count; i++)
        free(va->bins[i].vas);
    free(va->bins);
    va->entries = NULL;
    va->quarantine = NULL;
    va->bins = NULL;
    va->bin_count = va->bin_capacity = va->free_count = 0;
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

/* Room for one more of `item`-sized elements in *array. */
static bool room(void **array, size_t *capacity, size_t count, size_t item)
{
    if (count < *capacity)
        return true;
    size_t grown = *capacity ? *capacity * 2 : 64;
    void *next = realloc(*array, grown * item);
    if (!next)
        return false;
    *array = next;
    *capacity = grown;
    return true;
}

/* The first bin of at least `bytes`. Lock held. */
static size_t bin_lower_bound(const d12__drv_va_space *va, UINT64 bytes)
{
    size_t low = 0, high = va->bin_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (va->bins[middle].bytes < bytes)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* A block joins the free ones: pushed on the bin of its size (false: out of memory; the range then stays unused,
 * never wrong). Lock held. */
static bool free_insert(d12__drv_va_space *va, UINT64 address, UINT64 bytes)
{
    size_t at = bin_lower_bound(va, bytes);
    if (at == va->bin_count || va->bins[at].bytes != bytes) {
        if (!room((void **)&va->bins, &va->bin_capacity, va->bin_count, sizeof *va->bins))
            return false;
        memmove(&va->bins[at + 1], &va->bins[at], (va->bin_count - at) * sizeof *va->bins);
        va->bins[at] = (d12__drv_va_bin){.bytes = bytes};
        va->bin_count++;
    }
    d12__drv_va_bin *bin = &va->bins[at];
    if (!room((void **)&bin->vas, &bin->capacity, bin->count, sizeof *bin->vas))
        return false;
    bin->vas[bin->count++] = address;
    va->free_count++;
    return true;
}

/* A block of the smallest size of at least `bytes`, split: its first `bytes` returned, the rest kept free when it
 * can hold a page and its gap. false: none fits. Lock held. */
static bool free_take(d12__drv_va_space *va, UINT64 bytes, UINT64 *address)
{
    size_t at = bin_lower_bound(va, bytes);
    if (at == va->bin_count)
        return false;
    d12__drv_va_bin *bin = &va->bins[at];
    UINT64 block = bin->bytes;
    *address = bin->vas[--bin->count];
    va->free_count--;
    if (!bin->count) { /* an empty bin goes, so the smallest bin that fits is always the first at or above */
        free(bin->vas);
        memmove(bin, bin + 1, (va->bin_count - at - 1) * sizeof *va->bins);
        va->bin_count--;
    }
    if (block - bytes >= 2 * D12_DRV_VA_ALIGNMENT)
        free_insert(va, *address + bytes, block - bytes);
    return true;
}

/* The entry for a new allocation at `address`, kept in address order: a released entry of the same address is taken
 * back in place, else the entries above it move up one. NULL: out of memory. Lock held. */
static d12__drv_va_entry *entry_at(d12__drv_va_space *va, UINT64 address)
{
    size_t i = find_below(va, address);
    if (i < va->count && va->entries[i].va == address && !va->entries[i].object) {
        va->released--;
        return &va->entries[i];
    }
    if (va->count == va->capacity && va->released * 2 >= va->count && va->released) {
        compact(va); /* at least half the entries go: room without growing */
        i = find_below(va, address);
    }
    if (!room((void **)&va->entries, &va->capacity, va->count, sizeof *va->entries))
        return NULL;
    size_t at = i == va->count ? 0 : i + 1; /* count: nothing starts at or below it */
    memmove(&va->entries[at + 1], &va->entries[at], (va->count - at) * sizeof *va->entries);
    va->moved += va->count - at;
    va->count++;
    return &va->entries[at];
}

bool d12__drv_va_reserve(d12__drv_va_space *va, void *object, UINT64 span, UINT64 *address)
{
    UINT64 bytes = span + D12_DRV_VA_ALIGNMENT; /* the unmapped gap */
    pthread_rwlock_wrlock(&va->lock);
    UINT64 at;
    bool reused = free_take(va, bytes, &at);
    if (!reused)
        at = va->next;
    d12__drv_va_entry *entry = entry_at(va, at);
    if (entry) {
        *entry = (d12__drv_va_entry){at, span, object};
        *address = at;
        if (!reused)
            va->next += bytes;
        if (va->map)
            va->map(object, true);
    } else if (reused) {
        free_insert(va, at, bytes); /* back where it was: nothing reserved */
    }
    pthread_rwlock_unlock(&va->lock);
    return entry != NULL;
}

/* The released range waits D12_DRV_VA_QUARANTINE releases, then is free; ranges old enough leave the quarantine.
 * Out of memory, the range is never handed out again (safe: only address space is lost). Lock held. */
static void quarantine(d12__drv_va_space *va, UINT64 address, UINT64 bytes)
{
    va->releases++;
    if (va->quarantine_count == va->quarantine_capacity) {
        size_t capacity = va->quarantine_capacity ? va->quarantine_capacity * 2 : 64;
        d12__drv_va_block *ring = malloc(capacity * sizeof *ring);
        if (ring) { /* unrolled from head, so the ring's order is kept */
            for (size_t k = 0; k < va->quarantine_count; k++)
                ring[k] = va->quarantine[(va->quarantine_head + k) % va->quarantine_capacity];
            free(va->quarantine);
            va->quarantine = ring;
            va->quarantine_capacity = capacity;
            va->quarantine_head = 0;
        }
    }
    if (va->quarantine_count < va->quarantine_capacity) {
        va->quarantine[(va->quarantine_head + va->quarantine_count) % va->quarantine_capacity] =
            (d12__drv_va_block){address, bytes, va->releases};
        va->quarantine_count++;
    }
    while (va->quarantine_count) {
        const d12__drv_va_block *oldest = &va->quarantine[va->quarantine_head];
        if (va->releases - oldest->released_at < D12_DRV_VA_QUARANTINE)
            break;
        free_insert(va, oldest->va, oldest->bytes);
        va->quarantine_head = (va->quarantine_head + 1) % va->quarantine_capacity;
        va->quarantine_count--;
    }
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
        quarantine(va, va->entries[i].va, va->entries[i].span + D12_DRV_VA_ALIGNMENT);
        if (va->released * 2 > va->count)
            compact(va);
    }
    pthread_rwlock_unlock(&va->lock);
}
