/* d12bench's fence-event rows (issue 17 item 4; docs/performance.md, "Fence event wait"). Three rows, measured side
 * by side in the same repetitions:
 *   - the floor: a bare eventfd write + read, what signalling and waiting on an event costs at the least;
 *   - the guarded floor: dup + write + close + read, the cheapest way measured to keep the guarantee that a
 *     descriptor number the application reuses is never written to (a duplicate taken at registration, closed after
 *     the signal);
 *   - the fence event wait: SetEventOnCompletion(v, event) + ID3D12Fence::Signal(v) + read(event), on the runtime
 *     (which keeps that guarantee with a held duplicate vouched for by one epoll_ctl per registration).
 * A fourth row times ID3D12Fence::Signal alone (the fence history ring of issue 32 rides on it).
 * `d12bench --check-budget` holds the fence row within 1.2 x the guarded floor (the minimum over the repetitions). */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "bench_fence.h"
#include "bench_gpu.h"

static int event_fd = -1;
static ID3D12Device *fence_device;
static ID3D12Fence *fence;
static UINT64 fence_value;
static bool failed; /* an operation of a row failed while timed: the figures would be meaningless */

static double clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void wait_event(void)
{
    uint64_t count;
    if (read(event_fd, &count, sizeof count) != sizeof count || count != 1)
        failed = true;
}

static void signal_fd(int fd)
{
    uint64_t one = 1;
    if (write(fd, &one, sizeof one) != sizeof one)
        failed = true;
}

static double time_floor(void *context, uint64_t iterations)
{
    (void)context;
    double start = clock_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        signal_fd(event_fd);
        wait_event();
    }
    return clock_ns() - start;
}

static double time_guarded_floor(void *context, uint64_t iterations)
{
    (void)context;
    double start = clock_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        int held = fcntl(event_fd, F_DUPFD_CLOEXEC, 3); /* at registration */
        signal_fd(held);                                /* at the signal */
        close(held);
        wait_event();
    }
    return clock_ns() - start;
}

static double time_fence_wait(void *context, uint64_t iterations)
{
    (void)context;
    double start = clock_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        UINT64 value = ++fence_value;
        if (FAILED(ID3D12Fence_SetEventOnCompletion(fence, value, (HANDLE)(intptr_t)event_fd)) ||
            FAILED(ID3D12Fence_Signal(fence, value)))
            failed = true;
        wait_event();
    }
    return clock_ns() - start;
}

/* ID3D12Fence::Signal alone: the value store, the history ring's entry (issue 32 item 3: a few stores under the lock
 * the Signal takes anyway) and no waiter to fire. */
static double time_fence_signal(void *context, uint64_t iterations)
{
    (void)context;
    double start = clock_ns();
    for (uint64_t i = 0; i < iterations; i++)
        if (FAILED(ID3D12Fence_Signal(fence, ++fence_value)))
            failed = true;
    return clock_ns() - start;
}

void bench_fence_setup(void)
{
    event_fd = eventfd(0, EFD_CLOEXEC);
    if (event_fd < 0 || FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device,
                                                 (void **)&fence_device)) ||
        FAILED(ID3D12Device_CreateFence(fence_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence))) {
        bench_fail_setup("the fence-event rows' eventfd, device or fence");
        return;
    }
    int floor = bench_add_timed_row("fence", BENCH_FENCE_FLOOR_ROW, "a bare eventfd write + read: the least an event costs",
                                    time_floor, NULL, -1);
    int guarded = bench_add_timed_row("fence", BENCH_FENCE_GUARDED_FLOOR_ROW,
                                      "F_DUPFD_CLOEXEC at registration, write + close at the signal, read: the "
                                      "cheapest guard that a reused descriptor number is never written",
                                      time_guarded_floor, NULL, floor);
    bench_add_timed_row("fence", BENCH_FENCE_WAIT_ROW,
                        "a CPU fence event round on the runtime (budget: min <= 1.2 x the guarded floor's)",
                        time_fence_wait, NULL, guarded);
    bench_add_timed_row("fence", BENCH_FENCE_SIGNAL_ROW,
                        "a CPU Signal with no waiter: the value, the fence's history ring (DRED's backwards fences)",
                        time_fence_signal, NULL, -1);
}

void bench_fence_teardown(void)
{
    if (failed)
        fprintf(stderr, "d12bench: a fence-event row's operation failed while it was timed\n");
    if (fence != NULL)
        ID3D12Fence_Release(fence);
    if (fence_device != NULL)
        ID3D12Device_Release(fence_device);
    if (event_fd >= 0)
        close(event_fd);
    fence = NULL;
    fence_device = NULL;
    event_fd = -1;
}
