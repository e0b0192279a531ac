/* The adapter and device boilerplate both drivers share (drivers/common/README.md): the two-call list pattern of the
 * adapter's queries (count with a NULL array, else fill what fits), the DDI versions and optional tables both
 * offer, the driver-reported-messages versions, the copy of a function table into the runtime's storage (the
 * command-list table in the layout asked for), the adapter-identity cap, and a new device's copies of the runtime's
 * callback tables in the negotiated layout. What each adapter answers (its caps,
 * its identity, which features it offers) stays each driver's; shared so that the two adapters answer the same
 * query shapes with the same HRESULTs. */
#ifndef D12_DRVCOMMON_ADAPTER_H
#define D12_DRVCOMMON_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>

#include "d12rt/d3d12_ext.h" /* D3D12_FEATURE_D12RT_SHADER_EXECUTION */
#include "d12rt/d3d12ddi.h"

#define D12_DRV_ERROR_INSUFFICIENT_BUFFER ((HRESULT)0x8007007AL) /* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */

/* Both versions: a version-1 runtime enables 1u and gets exactly version 1 (docs/driver-reported-messages-v2.md). */
extern const UINT32 d12__drv_drm_versions[2];

/* The two-call pattern: E_INVALIDARG without `entries`; the count with a NULL `out`; else
 * D12_DRV_ERROR_INSUFFICIENT_BUFFER when `*entries` is short, or the items copied. */
HRESULT d12__drv_copy_list(UINT32 *entries, void *out, const void *items, UINT32 count, size_t item_size);
/* Copy `source` into the runtime's storage when it fits (else E_INVALIDARG). */
HRESULT d12__drv_copy_table(void *table, SIZE_T size, const void *source, size_t source_size);
/* The command-list table in the layout the runtime asks for: _0127 (with pfnWriteBufferImmediate) or its _0126
 * prefix. */
HRESULT d12__drv_copy_list_table(void *table, SIZE_T size, const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 *funcs);
/* D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY: {vendor, device, 0, 0}, or E_INVALIDARG when pData is short. */
HRESULT d12__drv_adapter_identity(const D3D12DDIARG_GETCAPS *args, UINT vendor_id, UINT device_id);
/* D3D12_FEATURE_D12RT_SHADER_EXECUTION through D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA: {executes}, or
 * E_INVALIDARG when pData is not the struct's size. */
HRESULT d12__drv_shader_execution(const D3D12DDIARG_GETCAPS *args, bool executes);

/* Every DDI version the drivers implement (all the runtime's: the shapes are one). */
HRESULT APIENTRY d12__drv_get_supported_versions(D3D12DDI_HADAPTER adapter, UINT32 *entries, UINT64 *versions);
/* The extended-features table (offered even with no features, so the runtime's adapter-init query path always
 * runs) and the GPU-work tables that make a driver a GPU. */
HRESULT APIENTRY d12__drv_get_optional_ddi_tables(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                  D3D12DDI_TABLE_REQUEST *requests);
/* The same tables and the compute pair, D3D12DDI_TABLE_TYPE_D12RT_PIPELINES and _COMMAND_LIST_BINDING
 * (docs/pipelines.md), for a driver that fills both. */
HRESULT APIENTRY d12__drv_get_optional_ddi_tables_compute(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                          D3D12DDI_TABLE_REQUEST *requests);

/* pfnCreateDevice: copies of the runtime's tables (it need not keep them), in the layout of the negotiated build:
 * p12UMCallbacks_0126 from 0126 on (before it only pfnSetErrorCb); pKTCallbacks (has_kt: both fence callbacks,
 * without which no queue can be created), _0127 from 0127 on (has_0127: pfnDeviceFaultCb and
 * pfnReportGpuProgressCb, NULL before). The caller checked args->p12UMCallbacks->pfnSetErrorCb. */
void d12__drv_copy_callbacks(const D3D12DDIARG_CREATEDEVICE_0003 *args,
                             D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                             D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 *kt, bool *has_kt, bool *has_0127);

#endif
