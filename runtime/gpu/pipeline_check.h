/* What CreateComputePipelineState checks before any driver sees a pipeline state (docs/pipelines.md): the shader
 * bytecode (a DXBC compute shader of model 5.0/5.1, DXIL refused, its RTS0 found) and every register it declares
 * against the root signature. Pure functions over runtime/dxbc's reader: no device, no lock, no message (the
 * caller reports the problem with its ID), so the fuzz target and the tests call them directly. */
#ifndef D12_PIPELINE_CHECK_H
#define D12_PIPELINE_CHECK_H

#include <stddef.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "dxbc.h"

/* A refusal: the debug layer's ID (CREATECOMPUTEPIPELINESTATE_INVALID_SHADER, _CS_ROOT_SIGNATURE_MISMATCH,
 * _MISSING_ROOT_SIGNATURE) and what is wrong, one sentence. */
typedef struct d12_pipeline_problem {
    D3D12_MESSAGE_ID id;
    char text[384];
} d12_pipeline_problem;

/* A compute shader's bytecode, read: its declarations, and its RTS0 chunk (rts0 NULL when it has none; points
 * into the application's bytecode, valid while the call lasts). */
typedef struct d12_pipeline_shader {
    d12_dxbc_program program;
    const void *rts0;
    size_t rts0_size;
} d12_pipeline_shader;

/* S_OK with *out filled (d12__pipeline_shader_free it), or E_INVALIDARG with `problem` (INVALID_SHADER): no
 * bytecode, a broken container, a DXIL container (shader model 6: d12rt's drivers take DXBC only), no SHEX/SHDR,
 * not a compute shader, a shader model other than 5.0/5.1. */
HRESULT d12__pipeline_read_shader(const D3D12_SHADER_BYTECODE *bytecode, d12_pipeline_shader *out,
                                  d12_pipeline_problem *problem);
void d12__pipeline_shader_free(d12_pipeline_shader *shader);

/* Every register `program` declares is bound by `desc` (version 1.1: the root signature object's, or an RTS0
 * converted) as the compute stage sees it (d12_rootsig_locate):
 * root CBV/SRV/UAV, root constants (a constant buffer no larger than its 32-bit values), a descriptor table range
 * of the register's type (every register of a ranged SM 5.1 declaration, an unbounded one by an unbounded range),
 * a static sampler; parameters of a visibility other than ALL are not the compute stage's. A root SRV/UAV holds
 * only raw or structured buffers. S_OK, or E_INVALIDARG with `problem` (CS_ROOT_SIGNATURE_MISMATCH). */
HRESULT d12__pipeline_check_registers(const d12_dxbc_program *program, const D3D12_ROOT_SIGNATURE_DESC1 *desc,
                                      d12_pipeline_problem *problem);

/* CreateComputePipelineState's work after its own argument checks (pipeline.c), shared by the stream form
 * (pipeline_stream.c): `method` names the caller in messages; *out was set NULL by the caller. */
struct d12_device;
HRESULT d12__pipeline_create_compute(struct d12_device *device, const char *method,
                                     const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc, const IID *riid, void **out);

#endif
