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

/* d12bench --scaling: also add the cost per draw against recording size (call before bench_gpu_setup). */
void bench_gpu_scaling(bool on);

/* Start the worker processes and add the GPU-work rows; stop the workers. */
void bench_gpu_setup(void);
void bench_gpu_teardown(void);

/* The driver-call row (bench_ddi.c): the reference driver's pfnWriteBufferImmediate alone, the way DRED calls it;
 * `baseline` is the row it is printed against (the empty indirect call). Call after bench_gpu_setup (it forks). */
void bench_ddi_setup(int baseline);
void bench_ddi_teardown(void);

/* d12bench --peer (bench_peer.c): start the two peer workers and add their rows. Returns whether the vkd3d side
 * runs (false: it was not built, or did not start). bench_peer_row_index[0] holds the vkd3d rows' indices,
 * [1] the d12rt rows' (-1: not added). */
#include "peer_rows.h"
#include <stdbool.h>
extern int bench_peer_row_index[2][PEER_ROW_COUNT];
bool bench_peer_setup(void);
void bench_peer_teardown(void);

#endif
