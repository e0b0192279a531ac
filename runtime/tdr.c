/* GPU faults and hangs (tdr.h). */
#include "device.h"
#include "tdr.h"

HRESULT d12__tdr_progress(struct d12_device *device, D3D12DDI_HRTCOMMANDQUEUE queue,
                          const D3D12DDICB_GPUPROGRESS_0127 *progress)
{
    (void)queue;
    (void)progress;
    /* "once the device is removed for any reason: the engine was reset" (d3d12ddi.h) */
    return d12__device_is_removed(device) ? D3DDDIERR_DEVICEREMOVED : S_OK;
}

void d12__tdr_device_fault(struct d12_device *device, const D3D12DDICB_DEVICEFAULT_0127 *fault)
{
    (void)fault;
    d12__device_remove(device, DXGI_ERROR_DEVICE_HUNG, "the GPU faulted");
}
