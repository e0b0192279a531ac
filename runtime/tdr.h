/* GPU faults and hangs (DDI build 0127, docs/dred-gpu.md): the driver's pfnDeviceFaultCb and
 * pfnReportGpuProgressCb, and the runtime's TDR watchdog, which plays the part WDDM's kernel plays on Windows.
 *
 * Locks: none of its own beyond what it documents; the hooks run on a queue's timeline thread with no runtime lock
 * held, and removal runs with none held either (device.h). */
#ifndef D12_TDR_H
#define D12_TDR_H

#include "d12_com.h"
#include "d12rt/d3d12ddi.h"

struct d12_device;

/* pfnReportGpuProgressCb: S_OK, or D3DDDIERR_DEVICEREMOVED once the device is removed (the engine was reset). */
HRESULT d12__tdr_progress(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE queue,
                          const D3D12DDICB_GPUPROGRESS_0127 *progress);

/* pfnDeviceFaultCb: a command faulted; the device is removed with DXGI_ERROR_DEVICE_HUNG. */
void d12__tdr_device_fault(struct d12_device *device, const D3D12DDICB_DEVICEFAULT_0127 *fault);

#endif
