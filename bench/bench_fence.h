/* d12bench's fence-event rows (bench_fence.c, issue 17 item 4): the fence event wait beside its two floors. */
#ifndef D12_BENCH_FENCE_H
#define D12_BENCH_FENCE_H

#define BENCH_FENCE_FLOOR_ROW "eventfd write + read (floor)"
#define BENCH_FENCE_GUARDED_FLOOR_ROW "dup + write + close + read (guarded floor)"
#define BENCH_FENCE_WAIT_ROW "fence event wait (SetEventOnCompletion + Signal + read)"
#define BENCH_FENCE_SIGNAL_ROW "ID3D12Fence::Signal (no waiter; with the fence history ring)"

/* Add the four rows (a device of its own; call after every fork). */
void bench_fence_setup(void);
void bench_fence_teardown(void);

#endif
