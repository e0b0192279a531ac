/* The runtime's side of failure injection (d12_fault.h): whether the failable driver call being made is the one to
 * fail. Outside the failure-injection build (D12RT_FAULT_INJECTION undefined) it is a constant false, so the
 * shipped library has neither the hook nor a test in its wrappers. */
#ifndef D12_FAULT_INTERNAL_H
#define D12_FAULT_INTERNAL_H

#include <stdbool.h>

#ifdef D12RT_FAULT_INJECTION
bool d12__fault_ddi_fails(void);
#else
static inline bool d12__fault_ddi_fails(void)
{
    return false;
}
#endif

#endif
