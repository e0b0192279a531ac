/* d12bench's memory rows (bench_memory.c): measured once, in child processes, before any device or thread. */
#ifndef D12_BENCH_MEMORY_H
#define D12_BENCH_MEMORY_H

#include <stdbool.h>

typedef struct bench_memory_row {
    char name[96];
    double value;
    const char *unit; /* "bytes", "MiB" */
} bench_memory_row;

/* Fork the measuring children; false when one failed. --quick measures less (the smoke test). */
bool bench_memory_measure(bool quick);
/* The rows measured, in order. */
int bench_memory_rows(const bench_memory_row **rows);

#endif
