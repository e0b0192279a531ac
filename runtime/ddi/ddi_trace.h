/* The DDI trace (docs/conformance.md, "The DDI trace"): with D12RT_DDI_TRACE=FILE the runtime writes one line per
 * call across the driver boundary, in either direction, to FILE (appended, one write(2) per line, so a crashing
 * driver loses nothing already written and concurrent processes never interleave within a line).
 *
 *   > #<id> t=<tid> <entry point> <field>=<value> ...                 the runtime calls the driver (at entry)
 *   = #<id> t=<tid> <entry point> hr=0x%08X|size=%zu|value=0x%llX    what it returned (value-returning ones)
 *   < t=<tid> <callback> <field>=<value> ... hr=0x%08X in=#<id>:<entry point>|in=-
 *                                                                      the driver calls the runtime (at return)
 *
 * `in=` names the runtime-to-driver call this thread was inside when the driver called back (a thread-local
 * "current DDI call" set around each call into the driver), or `-` for none (a driver thread of its own).
 *
 * How: the runtime's copies of the driver's tables (adapter, extended features, GPU work, driver-reported messages)
 * and the callback tables it hands the driver get their slots replaced by wrappers that mark the current call, check
 * the lock rule and write the line, then call the original. The runtime->driver wrappers are generated from
 * spec/ddi.yaml (generated/runtime/d12_ddi_trace_wrappers.h, its `trace` section); in the failure-injection build
 * (runtime/fault/) they are always installed and those returning an HRESULT can fail a call (E_OUTOFMEMORY). The wrappers are installed only when the trace is on
 * or in debug builds (where they assert that no ranked runtime lock is held while any driver entry point runs,
 * docs/locking.md); in a release build with the trace off nothing is wrapped, so the trace costs nothing. The flag
 * is read once, at load.
 *
 * Originals are kept per slot, process-wide: a slot is wrapped only for the first driver whose function it holds
 * (a second adapter with a different function in that slot keeps it unwrapped). The runtime opens one adapter per
 * process (D12RT_DRIVER), so the public API is always traced whole. */
#ifndef D12_DDI_TRACE_H
#define D12_DDI_TRACE_H

#include <stdbool.h>

#include "d12rt/d3d12ddi.h"

struct d12_driver_gpu_funcs;

/* Whether D12RT_DDI_TRACE named a file that could be opened (read at load). */
bool d12__ddi_trace_on(void);

/* Whether the tables get wrappers: the trace is on, or this is a debug build (the lock-rank check). */
bool d12__ddi_trace_wraps(void);

/* The OpenAdapter12 call (no wrapper can exist before it): one `>` line. */
void d12__ddi_trace_open_adapter(const char *driver_name);

/* Replace each table's slots by wrappers (when d12__ddi_trace_wraps()). `has_0127`: the list table has
 * pfnWriteBufferImmediate. */
void d12__ddi_trace_wrap_adapter(D3D12DDI_ADAPTERFUNCS *funcs);
void d12__ddi_trace_wrap_extended(D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *funcs);
void d12__ddi_trace_wrap_gpu(struct d12_driver_gpu_funcs *funcs, bool has_0127);
/* The optional descriptor table (D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS, docs/descriptors.md). */
void d12__ddi_trace_wrap_descriptors(D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT *funcs);
void d12__ddi_trace_wrap_heaps(D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT *funcs);
/* The compute pair (D3D12DDI_TABLE_TYPE_D12RT_PIPELINES and _COMMAND_LIST_BINDING, docs/pipelines.md). */
void d12__ddi_trace_wrap_compute(D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT *pipelines,
                                 D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT *binding);
void d12__ddi_trace_wrap_drm(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *funcs);
/* Feature version 2's table (D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1). */
void d12__ddi_trace_wrap_drm1(D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 *funcs);
void d12__ddi_trace_wrap_callbacks(D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                                   D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt_callbacks);

#endif
