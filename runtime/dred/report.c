/* d12rt's own removal report (BRIEF §4): filled from the runtime's state at freeze, completed at stage 2. */
#include <stdlib.h>

#include "device.h"
#include "dred_internal.h"

struct d12_dred_report_state {
    int unused;
};

struct d12_dred_report_state *d12__dred_report_freeze(struct d12_device *device,
                                                      const D3D12_AUTO_BREADCRUMB_NODE1 *breadcrumbs)
{
    (void)device, (void)breadcrumbs;
    return NULL;
}

void d12__dred_report_complete(struct d12_device *device, struct d12_dred_report_state *report)
{
    (void)device, (void)report;
}

void d12__dred_report_free(struct d12_dred_report_state *report)
{
    free(report);
}
