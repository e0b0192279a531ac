/* The disjoint range set (vkdrv_ranges.h): a treap by address. Insertion splits the tree at the new range's end
 * (ranges starting before it, ranges starting at or after it), then the left part at its start (ranges ending at or
 * before it, and the overlapping ones), frees the overlapping ones and merges the three parts back around the new
 * node: O(log N) expected in any order, plus O(1) amortized per range freed (each range is freed once). The ranges
 * are disjoint, so ordering by start orders by end too, which is what the second split relies on. */
#include "vkdrv_ranges.h"

#include <stdlib.h>

/* Splits tree t into the ranges before `key` (by end: end <= key; by start: start < key) and the rest. */
static void split(d12__vkdrv_range_node *nodes, uint32_t t, uint64_t key, bool by_end, uint32_t *before,
                  uint32_t *rest)
{
    while (t) {
        d12__vkdrv_range_node *n = &nodes[t];
        if (by_end ? n->end <= key : n->start < key) {
            *before = t;
            before = &n->right;
            t = n->right;
        } else {
            *rest = t;
            rest = &n->left;
            t = n->left;
        }
    }
    *before = *rest = 0;
}

/* Every range of a lies before every range of b. */
static uint32_t merge(d12__vkdrv_range_node *nodes, uint32_t a, uint32_t b)
{
    uint32_t root = 0, *link = &root;
    while (a && b) {
        if (nodes[a].priority > nodes[b].priority) {
            *link = a;
            link = &nodes[a].right;
            a = nodes[a].right;
        } else {
            *link = b;
            link = &nodes[b].left;
            b = nodes[b].left;
        }
    }
    *link = a ? a : b;
    return root;
}

/* The overlapping ranges' nodes to the free list (linked through `left`), their span widened into [*low, *high);
 * how many. Recursion as deep as the tree. */
static size_t release(d12__vkdrv_ranges *set, uint32_t t, uint64_t *low, uint64_t *high)
{
    if (!t)
        return 0;
    d12__vkdrv_range_node *n = &set->nodes[t];
    uint32_t left = n->left, right = n->right;
    *low = n->start < *low ? n->start : *low;
    *high = n->end > *high ? n->end : *high;
    n->left = set->free;
    set->free = t;
    return 1 + release(set, left, low, high) + release(set, right, low, high);
}

static uint32_t next_priority(d12__vkdrv_ranges *set)
{
    uint32_t x = set->seed ? set->seed : 0x9e3779b9u; /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    set->seed = x;
    return x;
}

static uint32_t new_node(d12__vkdrv_ranges *set)
{
    if (set->free) {
        uint32_t t = set->free;
        set->free = set->nodes[t].left;
        return t;
    }
    if (set->used == 0)
        set->used = 1; /* slot 0 means "none" */
    if (set->used >= set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 64;
        if (capacity > UINT32_MAX)
            return 0;
        d12__vkdrv_range_node *grown = realloc(set->nodes, capacity * sizeof *grown);
        if (!grown)
            return 0;
        set->nodes = grown;
        set->capacity = capacity;
    }
    return (uint32_t)set->used++;
}

d12__vkdrv_ranges_result d12__vkdrv_ranges_insert(d12__vkdrv_ranges *set, uint64_t start, uint64_t end, uint64_t *low,
                                                  uint64_t *high)
{
    uint32_t node = new_node(set); /* first: the splits below hold pointers into nodes */
    if (!node)
        return D12_VKDRV_RANGES_NO_MEMORY;
    set->nodes[node] = (d12__vkdrv_range_node){start, end, 0, 0, next_priority(set)};
    uint32_t left, right, before, overlapping;
    split(set->nodes, set->root, end, false, &left, &right);     /* left: start < end */
    split(set->nodes, left, start, true, &before, &overlapping); /* before: end <= start */
    *low = UINT64_MAX;
    *high = 0;
    set->count -= release(set, overlapping, low, high);
    set->root = merge(set->nodes, merge(set->nodes, before, node), right);
    set->count++;
    return overlapping ? D12_VKDRV_RANGES_OVERLAP : D12_VKDRV_RANGES_DISJOINT;
}

void d12__vkdrv_ranges_clear(d12__vkdrv_ranges *set)
{
    set->used = set->capacity ? 1 : 0;
    set->root = set->free = 0;
    set->count = 0;
}

void d12__vkdrv_ranges_free(d12__vkdrv_ranges *set)
{
    free(set->nodes);
    *set = (d12__vkdrv_ranges){0};
}

static unsigned height(const d12__vkdrv_range_node *nodes, uint32_t t)
{
    if (!t)
        return 0;
    unsigned l = height(nodes, nodes[t].left), r = height(nodes, nodes[t].right);
    return 1 + (l > r ? l : r);
}

unsigned d12__vkdrv_ranges_height(const d12__vkdrv_ranges *set)
{
    return height(set->nodes, set->root);
}

/* In order: the i-th range of tree t, *i counting down the ranges passed. */
static uint32_t nth(const d12__vkdrv_range_node *nodes, uint32_t t, size_t *i)
{
    if (!t)
        return 0;
    uint32_t found = nth(nodes, nodes[t].left, i);
    if (found)
        return found;
    if ((*i)-- == 0)
        return t;
    return nth(nodes, nodes[t].right, i);
}

bool d12__vkdrv_ranges_at(const d12__vkdrv_ranges *set, size_t i, uint64_t *start, uint64_t *end)
{
    uint32_t t = nth(set->nodes, set->root, &i);
    if (!t)
        return false;
    *start = set->nodes[t].start;
    *end = set->nodes[t].end;
    return true;
}

bool d12__vkdrv_copy_repeats(const d12__vkdrv_copy_span *previous, const d12__vkdrv_copy_span *copy)
{
    return previous && previous->dst == copy->dst && previous->src == copy->src && previous->size == copy->size &&
           (copy->src + copy->size <= copy->dst || copy->dst + copy->size <= copy->src);
}
