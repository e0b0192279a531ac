/* ctest refdrv.va.<order> (issue 17 item 7.8): the drivers' address registry (drivers/common/drvcommon_va.c,
 * as the reference driver uses it) releasing 200 000 buffers in creation order, in reverse, and odd-then-even. Releasing in creation order did a memmove of the rest of the
 * registry per release (n(n-1)/2 = 2e10 entries moved for 200 000: 7.4 s against 0.3 s in reverse). The registry
 * counts the entries its compactions copy (va->moved); each order must stay within 2 n. Every 997th buffer is looked
 * up along the way: a live one resolves to itself, a released one to nothing. Ends with `N passed, N failed`. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"
#include "refdrv_gpu.h"

enum { N = 200000 };

static d12__refdrv_buffer *g_buffers;

static void check_lookups(d12__refdrv_device *device, const bool *released, unsigned *wrong)
{
    for (size_t i = 0; i < N; i += 997) {
        d12__refdrv_buffer *found = d12__refdrv_buffer_acquire(device, g_buffers[i].va + 16);
        if (found)
            d12__refdrv_buffer_release(found);
        *wrong += released[i] ? found != NULL : found != &g_buffers[i];
    }
}

static void run(const char *order)
{
    d12__refdrv_device device = {0};
    d12__drv_va_space va;
    bool va_ok = d12__drv_va_init(&va, NULL);
    device.va = &va;
    g_buffers = calloc(N, sizeof *g_buffers);
    bool *released = calloc(N, sizeof *released);
    if (!CHECK(va_ok && g_buffers && released))
        return;
    for (size_t i = 0; i < N; i++) {
        atomic_init(&g_buffers[i].refs, 1); /* the resource's reference: a lookup's release never frees it */
        g_buffers[i].size = 256;
        if (!d12__drv_va_reserve(device.va, &g_buffers[i], d12__drv_va_span(256), &g_buffers[i].va)) {
            CHECK(false);
            return;
        }
    }
    unsigned wrong = 0;
    check_lookups(&device, released, &wrong);
    for (size_t k = 0; k < N; k++) {
        size_t i = strcmp(order, "creation") == 0 ? k
                   : strcmp(order, "reverse") == 0 ? N - 1 - k
                   : k < N / 2 ? 2 * k + 1 : 2 * (k - N / 2);
        d12__drv_va_release(device.va, g_buffers[i].va, &g_buffers[i]);
        released[i] = true;
        if (k % 20011 == 0)
            check_lookups(&device, released, &wrong);
    }
    check_lookups(&device, released, &wrong);
    CHECK_EQ_INT(wrong, 0);
    printf("%s order: %llu entries moved for %d releases\n", order, (unsigned long long)device.va->moved, N);
    CHECK(device.va->moved <= 2ull * N); /* n(n-1)/2 with a memmove per release */
    CHECK_EQ_INT(device.va->count - device.va->released, 0);
    d12__drv_va_fini(device.va);
    free(released);
    free(g_buffers);
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "creation") == 0 || strcmp(argv[1], "reverse") == 0 ||
                      strcmp(argv[1], "interleaved") == 0)) {
        run(argv[1]);
        return d12test_finish();
    }
    fprintf(stderr, "usage: test_refdrv_va creation|reverse|interleaved\n");
    return 2;
}
