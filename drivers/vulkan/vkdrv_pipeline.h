/* The Vulkan driver's compute pipelines (docs/pipelines.md, "The Vulkan driver's pipeline layout"): a shader and
 * a root signature become a VkPipeline over a layout of the pipeline's own, one binding per register the shader
 * declares, and the table a dispatch resolves its descriptors with at execution (which root parameter, which table
 * slot, which binding). Plain Vulkan handles in and out: it calls vkdrv_shader.c and runtime/dxbc, nothing of the
 * device, so its tests link it directly.
 *
 * Why a layout per pipeline and not the root signature's: vkd3d-shader 1.2 maps each register to a (set, binding)
 * of count 1 with no array element, so a table range of several descriptors cannot be one arrayed binding; and it
 * compiles every buffer SRV/UAV as a texel buffer (vkdrv_shader.h), whatever the view. */
#ifndef D12_VKDRV_PIPELINE_H
#define D12_VKDRV_PIPELINE_H

#include "vkdrv_shader.h"

/* One register the shader declares, and where its descriptor comes from at a dispatch. */
typedef struct d12__vkdrv_pipeline_register {
    d12_dxbc_binding declared;   /* lower is the register (ranges are refused) */
    d12_rootsig_location where;  /* its root parameter, table slot or static sampler */
    bool push_constants;         /* root constants: at push-constant byte `push_offset` */
    uint32_t push_offset;
    uint32_t binding;            /* otherwise: binding of set 0 */
    VkDescriptorType type;
    uint32_t counter_binding;    /* a UAV whose counter the shader uses: its counter's binding (else UINT32_MAX) */
} d12__vkdrv_pipeline_register;

typedef struct d12__vkdrv_pipeline {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t push_constant_bytes;
    uint32_t thread_group[3];
    uint32_t register_count;
    d12__vkdrv_pipeline_register *registers; /* malloc'd */
} d12__vkdrv_pipeline;

/* The root signature as the pipeline sees it: its 1.1 description and, per root parameter, the push-constant byte
 * offset of root constants (UINT32_MAX for a parameter that is no push constants). */
typedef struct d12__vkdrv_pipeline_root {
    const D3D12_ROOT_SIGNATURE_DESC1 *desc;
    const uint32_t *push_offsets;
    uint32_t push_constant_bytes;
} d12__vkdrv_pipeline_root;

/* Compile `code` (already checked by the runtime: compute 5.0/5.1, every register bound) and create the pipeline.
 * VK_SUCCESS, or a failure with `why` in D3D12 terms (a ranged declaration, a register the layout cannot place,
 * vkd3d-shader's refusal, the Vulkan error) and *out empty. */
VkResult d12__vkdrv_pipeline_create(VkDevice device, const void *code, size_t size, const d12_dxbc_program *program,
                                    const d12__vkdrv_pipeline_root *root, d12__vkdrv_pipeline *out, char *why,
                                    size_t why_size);
void d12__vkdrv_pipeline_destroy(VkDevice device, d12__vkdrv_pipeline *pipeline);

#endif
