/* The driver-reported messages plumbing both drivers share (drivers/common/README.md): the findings a timeline holds
 * for the next flush (found on a timeline thread, reported by pfnFlushDriverReportedMessages, oldest first, with no
 * driver lock held), the initialization message, and the v2 two-call pfnQueryGpuVaIdentityCb helper that names a GPU VA. What is found, its
 * text and when a category is reported stay each driver's own; this is only how a finding reaches the runtime, so
 * the flush and locking rules of the spec are written once. */
#ifndef D12_DRVCOMMON_MESSAGES_H
#define D12_DRVCOMMON_MESSAGES_H

#include <stddef.h>

#include "d12rt/d3d12ddi.h"

/* "A driver that implements driver-reported messages must report exactly one message when the runtime enables
 * the feature on a device during device creation — immediately after the feature has been enabled, and before
 * EnableExtendedFeature returns": D12_REFDRV_DRM_INIT_ID (drvcommon_rules.h), MESSAGE, INITIALIZATION, no command
 * list in scope. The runtime's answer. */
HRESULT d12__drv_report_initialization(const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                                       D3D12DDI_HRTDEVICE rt_device);

/* The findings held for the next flush: a mutex and a FIFO (opaque). */
typedef struct d12__drv_pending d12__drv_pending;

/* NULL: out of memory (or no lock could be created). */
d12__drv_pending *d12__drv_pending_new(void);
/* Drops what was never flushed. NULL: nothing. */
void d12__drv_pending_free(d12__drv_pending *pending);
/* Hold a finding (the text is copied). Out of memory, the finding is lost: a timeline has nobody to tell, and a
 * message is not worth a removal. */
void d12__drv_pending_add(d12__drv_pending *pending, UINT64 vendor_message_id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                          D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *text);
/* Report everything held now, oldest first, through pfnReportMessageCb. The FIFO is swapped out under the lock and
 * reported with no driver lock held: the report callback may run application code that re-enters the driver. A
 * flush with nothing to report is valid ("must tolerate a flush with nothing to report"). */
void d12__drv_pending_flush(d12__drv_pending *pending, const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                            D3D12DDI_HRTDEVICE rt_device);

/* How many findings are held now (under the lock; tests/driver/test_refdrv_gpu.c checks that a submission's
 * findings are held before the signal behind it is passed back). */
size_t d12__drv_pending_count(d12__drv_pending *pending);

/* v2: the runtime's name of a GPU VA (pfnQueryGpuVaIdentityCb: "0x...:'MyVB' + 0x80", "(released)", "(past its
 * end)"), malloc'ed; NULL when version 2 is not enabled (drm_version), the runtime knows no allocation there, or
 * out of memory. */
char *d12__drv_va_name(const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks, D3D12DDI_HRTDEVICE rt_device,
                       UINT32 drm_version, UINT64 va);

#endif
