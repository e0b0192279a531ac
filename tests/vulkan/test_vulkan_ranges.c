/* The Vulkan driver's copy ordering decisions (drivers/vulkan/vkdrv_ranges.c: the set of copy destinations, disjoint
 * ranges with O(log N) insertion in any order, and the repeated copy; issue 28 item 6): pure data, no Vulkan.
 * `test_vulkan_ranges CASE`, one ctest each. The balance is checked by the tree's height, never by time
 * (docs/performance.md: speed is d12bench's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "vkdrv_ranges.h"

enum { COUNT = 200000 };

/* Range i of the disjoint layout: 256 bytes every 4 KiB. */
static uint64_t start_of(size_t i)
{
    return 0x100000000ull + (uint64_t)i * 4096;
}

/* Every range of the layout once, in `order`, each disjoint from the rest; then the set holds them all, sorted, and
 * its height stays within a small multiple of log2(COUNT) = 17.6 (a treap's expected height is about 2.99 ln N = 36
 * here; a list-shaped tree, what a sorted insertion into an unbalanced tree gives, would be 200 000). */
static void insert_all(const size_t *order)
{
    d12__vkdrv_ranges set = {0};
    size_t disjoint = 0;
    for (size_t i = 0; i < COUNT; i++) {
        uint64_t low, high;
        disjoint += d12__vkdrv_ranges_insert(&set, start_of(order[i]), start_of(order[i]) + 256, &low, &high) ==
                    D12_VKDRV_RANGES_DISJOINT;
    }
    CHECK_EQ_INT(disjoint, COUNT);
    CHECK_EQ_INT(set.count, COUNT);
    unsigned height = d12__vkdrv_ranges_height(&set);
    printf("height after %d insertions: %u\n", COUNT, height);
    CHECK(height <= 80);
    bool sorted = true;
    for (size_t i = 0; i < COUNT; i += 997) {
        uint64_t start = 0, end = 0;
        sorted &= d12__vkdrv_ranges_at(&set, i, &start, &end) && start == start_of(i) && end == start + 256;
    }
    CHECK(sorted);
    uint64_t start, end;
    CHECK(!d12__vkdrv_ranges_at(&set, COUNT, &start, &end));
    d12__vkdrv_ranges_free(&set);
}

static void test_rising(void)
{
    size_t *order = malloc(COUNT * sizeof *order);
    for (size_t i = 0; i < COUNT; i++)
        order[i] = i;
    insert_all(order);
    free(order);
}

static void test_falling(void)
{
    size_t *order = malloc(COUNT * sizeof *order);
    for (size_t i = 0; i < COUNT; i++)
        order[i] = COUNT - 1 - i;
    insert_all(order);
    free(order);
}

static void test_shuffled(void)
{
    size_t *order = malloc(COUNT * sizeof *order);
    for (size_t i = 0; i < COUNT; i++)
        order[i] = i;
    uint32_t x = 12345;
    for (size_t i = COUNT - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        size_t j = (x >> 8) % (i + 1);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    insert_all(order);
    free(order);
}

/* [10,20) [30,40) [50,60) [70,80): [15,55) overlaps the first three, which leave the set; the span reported is theirs,
 * [10,60); touching ends do not overlap ([80,90) after [70,80)). */
static void test_overlap(void)
{
    d12__vkdrv_ranges set = {0};
    uint64_t low = 0, high = 0, s, e;
    for (uint64_t a = 10; a < 80; a += 20)
        CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, a, a + 10, &low, &high), D12_VKDRV_RANGES_DISJOINT);
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 15, 55, &low, &high), D12_VKDRV_RANGES_OVERLAP);
    CHECK_EQ_INT(low, 10);
    CHECK_EQ_INT(high, 60);
    CHECK_EQ_INT(set.count, 2);
    CHECK(d12__vkdrv_ranges_at(&set, 0, &s, &e) && s == 15 && e == 55);
    CHECK(d12__vkdrv_ranges_at(&set, 1, &s, &e) && s == 70 && e == 80);
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 80, 90, &low, &high), D12_VKDRV_RANGES_DISJOINT);
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 55, 70, &low, &high), D12_VKDRV_RANGES_DISJOINT);
    CHECK_EQ_INT(set.count, 4);
    /* the same range again: it overlaps itself only */
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 70, 80, &low, &high), D12_VKDRV_RANGES_OVERLAP);
    CHECK_EQ_INT(low, 70);
    CHECK_EQ_INT(high, 80);
    CHECK_EQ_INT(set.count, 4);
    /* one byte inside the last one */
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 89, 100, &low, &high), D12_VKDRV_RANGES_OVERLAP);
    CHECK_EQ_INT(low, 80);
    CHECK_EQ_INT(high, 90);
    CHECK_EQ_INT(set.count, 4);
    d12__vkdrv_ranges_free(&set);
}

/* Cleared, the set is empty and its freed nodes are reused: 100 000 copies to one range, each overlapping the one
 * before, keep one node. */
static void test_clear_and_reuse(void)
{
    d12__vkdrv_ranges set = {0};
    uint64_t low, high;
    for (uint64_t a = 0; a < 1000; a += 10)
        d12__vkdrv_ranges_insert(&set, a, a + 10, &low, &high);
    CHECK_EQ_INT(set.count, 100);
    d12__vkdrv_ranges_clear(&set);
    CHECK_EQ_INT(set.count, 0);
    CHECK_EQ_INT(d12__vkdrv_ranges_height(&set), 0);
    CHECK_EQ_INT(d12__vkdrv_ranges_insert(&set, 0, 10, &low, &high), D12_VKDRV_RANGES_DISJOINT);
    size_t overlaps = 0;
    for (int i = 0; i < 100000; i++)
        overlaps += d12__vkdrv_ranges_insert(&set, 0, 256, &low, &high) == D12_VKDRV_RANGES_OVERLAP;
    CHECK_EQ_INT(overlaps, 100000);
    CHECK_EQ_INT(set.count, 1);
    CHECK(set.used <= 3); /* slot 0, the node freed by each insertion and the one taking its place */
    d12__vkdrv_ranges_free(&set);
}

/* The repeated copy (no barrier between it and the one before): only the same three values, source apart. */
static void test_copy_repeats(void)
{
    const d12__vkdrv_copy_span first = {0x100000000ull, 0x100100000ull, 256};
    d12__vkdrv_copy_span copy = first;
    CHECK(d12__vkdrv_copy_repeats(&first, &copy));
    CHECK(!d12__vkdrv_copy_repeats(NULL, &copy)); /* the op before is not a recorded copy */
    copy.size = 128;
    CHECK(!d12__vkdrv_copy_repeats(&first, &copy));
    copy = first;
    copy.src += 4;
    CHECK(!d12__vkdrv_copy_repeats(&first, &copy));
    copy = first;
    copy.dst += 4;
    CHECK(!d12__vkdrv_copy_repeats(&first, &copy));
    /* within one buffer: apart (touching) repeats; overlapping (it reads what the first wrote) does not */
    const d12__vkdrv_copy_span touching = {0x100000100ull, 0x100000000ull, 256};
    CHECK(d12__vkdrv_copy_repeats(&touching, &touching));
    const d12__vkdrv_copy_span overlapping = {0x100000080ull, 0x100000000ull, 256};
    CHECK(!d12__vkdrv_copy_repeats(&overlapping, &overlapping));
    const d12__vkdrv_copy_span backwards = {0x100000000ull, 0x100000080ull, 256};
    CHECK(!d12__vkdrv_copy_repeats(&backwards, &backwards));
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"rising", test_rising},   {"falling", test_falling},           {"shuffled", test_shuffled},
    {"overlap", test_overlap}, {"clear_and_reuse", test_clear_and_reuse}, {"copy_repeats", test_copy_repeats},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_vulkan_ranges CASE (unknown case)\n");
    return 2;
}
