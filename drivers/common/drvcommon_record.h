/* The record-time plumbing both drivers' command lists share (drivers/common/README.md): how a DDI call's
 * arguments become an op's (d12__drv_op_args, drvcommon_ops.h), the record-time view of the root bindings and
 * its texts (ROOT_DESCRIPTOR_NULL, NO_INDEX_BUFFER), which ops are GPU work and the OpIndex a MARKER_OUT write
 * names, and the write-immediate argument check. Where a list keeps its ops (the reference driver's chunks, the
 * Vulkan driver's array and command buffers) and what it records on Vulkan stay each driver's; shared so that the
 * op log both drivers' execution-time rules read (drvcommon_rules.c) is filled the same way. */
#ifndef D12_DRVCOMMON_RECORD_H
#define D12_DRVCOMMON_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "drvcommon_ops.h"

/* Record-time view of one root signature's bindings, enough for the record-time findings. */
typedef struct d12__drv_root_state {
    uint64_t zero_mask;                       /* parameters bound to address 0 */
    uint8_t kinds[D12_DRV_MAX_ROOT_PARAMETERS]; /* d12__drv_root_kind */
} d12__drv_root_state;

/* The finding texts (docs/refdrv.md): ROOT_DESCRIPTOR_NULL takes the parameter index and d12__drv_root_kind_name. */
#define D12_DRV_TEXT_ROOT_DESCRIPTOR_NULL "Root parameter %u is a root %s bound to GPU virtual address 0."
#define D12_DRV_TEXT_NO_INDEX_BUFFER "No index buffer is bound; the indices read are undefined."

/* Parameter `index` (below D12_DRV_MAX_ROOT_PARAMETERS) is now a root `kind` at `address`. */
void d12__drv_root_bind(d12__drv_root_state *root, unsigned index, unsigned kind, UINT64 address);
/* "CBV", "SRV", "UAV". */
const char *d12__drv_root_kind_name(unsigned kind);

/* An op's arguments from the DDI call's (a NULL view unbinds: zeros). */
void d12__drv_vertex_view_args(d12__drv_op_args *u, const D3D12DDI_VERTEX_BUFFER_VIEW *view);
void d12__drv_index_view_args(d12__drv_op_args *u, const D3D12DDI_INDEX_BUFFER_VIEW *view);
/* Draw: vertices/indices, instances, start; dispatch: x, y, z. */
void d12__drv_draw_args(d12__drv_op_args *u, UINT count, UINT instances, UINT start);

/* A misaligned Dest or an unknown mode: a recording error (the runtime's Close fails) and that write is dropped. */
bool d12__drv_write_invalid(const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *param,
                            D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode);

/* d3d12ddi.h, D3D12DDICB_DEVICEFAULT_0127: a command's OpIndex is "(Value of the MARKER_OUT write recorded directly
 * after that command) - 1". `type`, `compute` and `op_index` are the op recorded just before the MARKER_OUT write
 * of `value` (WRITE_IMMEDIATE: compute is its mode); only GPU work gets a name, and only its first. */
void d12__drv_name_previous_op(unsigned type, unsigned compute, UINT32 *op_index, UINT32 value);

#endif
