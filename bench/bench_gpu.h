/* d12bench's GPU-work rows (bench_gpu.c) and what they need from the driver program (d12bench.c). */
#ifndef D12_BENCH_GPU_H
#define D12_BENCH_GPU_H

#include <stdint.h>

/* An operation that times `iterations` of itself and returns the nanoseconds they took. */
typedef double (*bench_timed_fn)(void *context, uint64_t iterations);

/* Add a row measured by `timed`; returns its index (a baseline for later rows). */
int bench_add_timed_row(const char *group, const char *name, const char *what, bench_timed_fn timed, void *context,
                        int baseline);
void bench_fail_setup(const char *what);

/* Start the worker processes and add the GPU-work rows; stop the workers. */
void bench_gpu_setup(void);
void bench_gpu_teardown(void);

#endif
