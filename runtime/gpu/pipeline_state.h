/* ID3D12PipelineState for compute (docs/pipelines.md; issue 31): what CreateComputePipelineState and the stream form
 * CreatePipelineState make once the runtime's checks passed (pipeline.c, pipeline_check.c). It holds the root
 * signature it was made with — the desc's, or the one the runtime created from the shader's RTS0 — for as long as
 * it lives, and the driver's object (D3D12DDI_TABLE_TYPE_D12RT_PIPELINES).
 *
 * The object is immutable after creation, so its fields are read without a lock. Lists that record it hold a
 * reference (list_binding.c) and their submissions keep it alive while they execute (retention.c). */
#ifndef D12_PIPELINE_STATE_H
#define D12_PIPELINE_STATE_H

#include <stdatomic.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"

struct d12_root_signature;

struct d12_pipeline_state {
    struct d12__pipeline_state_com com;
    atomic_ulong refcount;
    d12_device_child device_child;
    /* Fixed at creation. */
    struct d12_root_signature *root_signature; /* a reference: the desc's or the RTS0's */
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HPIPELINESTATE handle; /* the driver's object */
    bool constructed;               /* pfnCreateComputePipelineState succeeded: destroy it with the object */
};

/* The d12rt pipeline state behind an application's pointer; NULL for NULL or an object that is not d12rt's. */
struct d12_pipeline_state *d12__pipeline_state_from(ID3D12PipelineState *iface);

/* Make the object once the checks passed: the driver's pipeline state over `root_signature` (a reference is taken).
 * E_INVALIDARG when the driver cannot compile the shader (reported as INVALID_SHADER naming `method`),
 * E_OUTOFMEMORY; *out holds one reference on success. */
HRESULT d12__pipeline_state_create(struct d12_device *device, const char *method,
                                   const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc,
                                   struct d12_root_signature *root_signature, struct d12_pipeline_state **out);

/* Whether the device's driver has the compute tables; else the PIPELINES_UNSUPPORTED message naming it. */
bool d12__pipelines_available(struct d12_device *device, const char *method);

#endif
