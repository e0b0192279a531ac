/* GPU faults and hangs (DDI build 0127, docs/dred-gpu.md): the driver's pfnDeviceFaultCb and
 * pfnReportGpuProgressCb, and the runtime's TDR watchdog, which plays the part WDDM's kernel plays on Windows.
 *
 * The watchdog: one thread per device, started with the device's first queue when the driver negotiated build 0127
 * (a driver before it reports no progress: the watchdog does not watch it, docs/dred-gpu.md). Every tick it looks
 * at each queue's progress state; a queue that has been executing the same command for longer than the TDR delay
 * (D12RT_TDR_DELAY_MS, default 2000, latched at D3D12CreateDevice) removes the device with DXGI_ERROR_DEVICE_HUNG,
 * DRED state HUNG, naming the queue, the list and the op the driver reported at OP_BEGIN. A queue that is idle or
 * blocked in a GPU wait executes no command, so it never hangs (Windows does not TDR on a wait either).
 *
 * Locks: the watchdog's own `lock` (a leaf: only its stop flag and condition variable) and the device's children
 * lock to walk the queues (nothing else under it). The hooks run on a queue's timeline thread with no runtime lock
 * held; removal runs with none held (device.h). */
#ifndef D12_TDR_H
#define D12_TDR_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "d12_com.h"
#include "d12rt/d3d12ddi.h"

struct d12_device;
struct d12_command_queue;

#define D12_TDR_DEFAULT_DELAY_MS 2000u
#define D12_TDR_DEFAULT_DELAY_TEXT "2000"
#define D12_TDR_MAX_DELAY_MS 3600000u /* an hour: larger values are refused (a typo must not disable TDR) */

/* What one queue's timeline last reported (written by that timeline's progress calls, read by the watchdog). */
typedef struct d12_tdr_queue {
    _Atomic uint64_t began_ns;   /* CLOCK_MONOTONIC ns + 1 when the current command began; 0: no command runs */
    _Atomic(void *) list;        /* OP_BEGIN's hRTCommandList.handle */
    _Atomic uint32_t op_index;   /* OP_BEGIN's OpIndex */
} d12_tdr_queue;

void d12__tdr_queue_init(d12_tdr_queue *state);

/* D12RT_TDR_DELAY_MS: decimal milliseconds, 1 to D12_TDR_MAX_DELAY_MS. Unset or empty: the default. Anything else
 * (a sign, a suffix, 0, out of range): one line on `err` and the default. */
uint32_t d12__tdr_delay_from_environment(FILE *err);

/* The device's watchdog: started once, with its first queue (a no-op for a driver before build 0127, and after the
 * first call); stopped and joined at the device's last Release. */
void d12__tdr_start(struct d12_device *device);
void d12__tdr_stop(struct d12_device *device);

/* pfnReportGpuProgressCb: S_OK, or D3DDDIERR_DEVICEREMOVED once a removal was claimed (the engine was reset);
 * E_INVALIDARG for a queue that is not the device's or a Progress that is none of the three. */
HRESULT d12__tdr_progress(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE queue,
                          const D3D12DDICB_GPUPROGRESS_0127 *progress);

/* pfnDeviceFaultCb: a command faulted; the device is removed with DXGI_ERROR_DEVICE_HUNG and DRED's state from the
 * execution state (HUNG, FAULT, PAGEFAULT; another state is a broken driver: DXGI_ERROR_DRIVER_INTERNAL_ERROR). */
void d12__tdr_device_fault(struct d12_device *device, const D3D12DDICB_DEVICEFAULT_0127 *fault);

#endif
