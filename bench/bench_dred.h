/* d12bench's DRED overhead rows (bench_dred.c): a draw-heavy frame with DRED off, breadcrumbs, everything. */
#ifndef D12_BENCH_DRED_H
#define D12_BENCH_DRED_H

/* Fork the three worker processes and add the rows (before this process makes a device or a thread). */
void bench_dred_setup(void);
void bench_dred_teardown(void);

#endif
