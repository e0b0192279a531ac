/* The pure decisions of a list's copy ordering (vkdrv_copy.c). A set of disjoint byte ranges [start, end) with
 * O(log N) insertion in any order (a treap: a binary search tree by address whose random priorities keep it balanced
 * in expectation, whatever order the ranges come in): a list's copies keep their destinations in one, and a copy
 * whose destination overlaps ranges of the set takes their place and is ordered after them. And the repeated copy,
 * which needs no order. Pure data, no Vulkan: unit-tested (vulkan.ranges.*). */
#ifndef D12_VKDRV_RANGES_H
#define D12_VKDRV_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct d12__vkdrv_range_node {
    uint64_t start, end;
    uint32_t left, right; /* indices into nodes; 0: none (a free node's `left` links the free list) */
    uint32_t priority;
} d12__vkdrv_range_node;

typedef struct d12__vkdrv_ranges {
    d12__vkdrv_range_node *nodes; /* nodes[0] is unused: index 0 means "none" */
    size_t used, capacity;        /* slots handed out (from 1), slots allocated */
    uint32_t root, free, seed;
    size_t count; /* ranges in the set */
} d12__vkdrv_ranges;

typedef enum d12__vkdrv_ranges_result {
    D12_VKDRV_RANGES_DISJOINT, /* [start, end) was added; it overlaps nothing of the set */
    D12_VKDRV_RANGES_OVERLAP,  /* it overlapped ranges of the set: they left it, [start, end) was added */
    D12_VKDRV_RANGES_NO_MEMORY /* nothing changed: the set could not grow */
} d12__vkdrv_ranges_result;

/* A non-empty range (start < end) into the set. On D12_VKDRV_RANGES_OVERLAP, [*low, *high) is the span of the ranges
 * that left the set (what a barrier must cover for them to be complete and visible). */
d12__vkdrv_ranges_result d12__vkdrv_ranges_insert(d12__vkdrv_ranges *set, uint64_t start, uint64_t end, uint64_t *low,
                                                  uint64_t *high);
/* Every range leaves the set, in O(1); its memory is kept for the next ranges. */
void d12__vkdrv_ranges_clear(d12__vkdrv_ranges *set);
void d12__vkdrv_ranges_free(d12__vkdrv_ranges *set);
/* The longest path from the root, in nodes (0: empty): what the tests check the balance by. */
unsigned d12__vkdrv_ranges_height(const d12__vkdrv_ranges *set);
/* The i-th range by address (i < count), for the tests; false past the end. */
bool d12__vkdrv_ranges_at(const d12__vkdrv_ranges *set, size_t i, uint64_t *start, uint64_t *end);

/* A copy: destination and source VAs, bytes. */
typedef struct d12__vkdrv_copy_span {
    uint64_t dst, src, size;
} d12__vkdrv_copy_span;

/* Whether `copy` repeats `previous`, the op just before it (NULL: that op is not a recorded copy): the same
 * destination, source and size, the source apart from the destination. Such a copy writes the bytes `previous`
 * wrote, from a source nothing wrote in between, so the two need no order between them. */
bool d12__vkdrv_copy_repeats(const d12__vkdrv_copy_span *previous, const d12__vkdrv_copy_span *copy);

#endif
