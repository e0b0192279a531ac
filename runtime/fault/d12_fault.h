/* The failure-injection hook (docs/reliability.md "Failure injection"). Only libd12rt_fi.so, the failure-injection
 * build of the runtime (CMake option D12RT_FAULT_INJECTION), exports these; the shipped libd12rt.so has none of
 * them (ctest reliability.fault_no_hook_in_shipped).
 *
 * Two countdowns: the runtime's allocations (malloc, calloc, realloc, aligned_alloc, posix_memalign, strdup,
 * strndup called by the runtime's own code; not the driver's, not libc's internal ones) and the runtime's calls
 * into the driver that return an HRESULT (the DDI wrappers, runtime/ddi_trace.c). Armed with N, exactly the Nth
 * such call fails: an allocation returns NULL (errno ENOMEM), a driver call returns E_OUTOFMEMORY without reaching
 * the driver, as a driver out of memory would answer. 0 fails nothing and only counts.
 *
 * d12_fault_arm counts the calling thread's calls only, so a sweep is deterministic whatever the driver's threads
 * do; D12RT_FAULT_ALLOC=N and D12RT_FAULT_DDI=N (read when the library loads) arm every thread of the process
 * instead, for running any program against libd12rt_fi.so. */
#ifndef D12_FAULT_H
#define D12_FAULT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reset this thread's counters and arm them: the alloc_nth-th allocation and the ddi_nth-th failable driver call
 * from now on fail (0: none). */
void d12_fault_arm(uint64_t alloc_nth, uint64_t ddi_nth);
/* Stop counting on this thread (the counters keep their values); nothing fails any more. */
void d12_fault_disarm(void);
/* This thread's counts since d12_fault_arm (or the process-wide ones, armed by the environment). */
uint64_t d12_fault_allocations(void);
uint64_t d12_fault_ddi_calls(void);
/* How many failures were injected (0 or 1 per countdown and arming). */
uint64_t d12_fault_injected(void);

#ifdef __cplusplus
}
#endif

#endif
