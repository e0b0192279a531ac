/* Compute pipelines over a layout of their own (vkdrv_pipeline.h, docs/pipelines.md). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_pipeline.h"

/* The placing of one shader's registers: the registers table being filled and the set's bindings. */
typedef struct placing {
    const d12__vkdrv_pipeline_root *root;
    const d12_dxbc_program *program;
    d12__vkdrv_pipeline_register *registers;
    VkDescriptorSetLayoutBinding *bindings;
    uint32_t binding_count;
} placing;

static uint32_t add_binding(placing *p, VkDescriptorType type)
{
    uint32_t binding = p->binding_count++;
    p->bindings[binding] = (VkDescriptorSetLayoutBinding){binding, type, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    return binding;
}

/* d12__vkdrv_shader_place_fn: root constants to their push constants, everything else to a binding of set 0. */
static bool place(void *context, const d12_dxbc_binding *declared, d12__vkdrv_shader_slot *slot)
{
    placing *p = context;
    d12__vkdrv_pipeline_register *r = &p->registers[declared - p->program->bindings];
    *r = (d12__vkdrv_pipeline_register){.declared = *declared, .counter_binding = UINT32_MAX};
    if (d12_rootsig_locate(p->root->desc, declared->kind, declared->space, declared->lower, &r->where) != 0)
        return false;
    if (r->where.type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS && r->where.parameter != UINT32_MAX) {
        uint32_t offset = p->root->push_offsets[r->where.parameter];
        if (offset == UINT32_MAX)
            return false; /* constants past maxPushConstantsSize: not placed yet (docs/pipelines.md) */
        r->push_constants = true;
        r->push_offset = offset;
        *slot = (d12__vkdrv_shader_slot){.push_constants = true, .offset = offset,
                                         .size = p->root->desc->pParameters[r->where.parameter].Constants.Num32BitValues * 4};
        return true;
    }
    r->type = d12__vkdrv_shader_descriptor_type(declared);
    r->binding = add_binding(p, r->type);
    *slot = (d12__vkdrv_shader_slot){.set = 0, .binding = r->binding};
    if (declared->kind == D12_DXBC_UAV && (declared->flags & D12_DXBC_COUNTER_USED)) {
        r->counter_binding = add_binding(p, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER);
        slot->counter_binding = r->counter_binding;
    }
    return true;
}

static VkResult create_vk(VkDevice device, const struct vkd3d_shader_code *spirv, const placing *p,
                          d12__vkdrv_pipeline *out)
{
    VkDescriptorSetLayoutCreateInfo set_info = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0,
                                                p->binding_count, p->bindings};
    VkResult r = vkCreateDescriptorSetLayout(device, &set_info, NULL, &out->set_layout);
    if (r != VK_SUCCESS)
        return r;
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, out->push_constant_bytes};
    VkPipelineLayoutCreateInfo layout_info = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1,
                                              &out->set_layout, push.size ? 1 : 0, &push};
    if ((r = vkCreatePipelineLayout(device, &layout_info, NULL, &out->layout)) != VK_SUCCESS)
        return r;
    VkShaderModuleCreateInfo module_info = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, spirv->size,
                                            spirv->code};
    VkShaderModule module;
    if ((r = vkCreateShaderModule(device, &module_info, NULL, &module)) != VK_SUCCESS)
        return r;
    VkComputePipelineCreateInfo info = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main",
         NULL},
        out->layout, VK_NULL_HANDLE, -1};
    r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, NULL, &out->pipeline);
    vkDestroyShaderModule(device, module, NULL);
    return r;
}

VkResult d12__vkdrv_pipeline_create(VkDevice device, const void *code, size_t size, const d12_dxbc_program *program,
                                    const d12__vkdrv_pipeline_root *root, d12__vkdrv_pipeline *out, char *why,
                                    size_t why_size)
{
    memset(out, 0, sizeof *out);
    uint32_t count = program->binding_count;
    placing p = {root, program, calloc(count ? count : 1, sizeof *p.registers),
                 calloc(2 * (count ? count : 1), sizeof *p.bindings), 0};
    d12__vkdrv_shader_interface *iface = malloc(sizeof *iface);
    struct vkd3d_shader_code spirv = {0};
    VkResult result = VK_ERROR_OUT_OF_HOST_MEMORY;
    snprintf(why, why_size, "out of memory");
    if (!p.registers || !p.bindings || !iface)
        goto done;
    result = VK_ERROR_INITIALIZATION_FAILED;
    if (d12__vkdrv_shader_interface_build(program, place, &p, iface, why, why_size) != 0)
        goto done;
    if (d12__vkdrv_shader_compile(code, size, iface, &spirv, why, why_size) < 0)
        goto done;
    out->push_constant_bytes = root->push_constant_bytes;
    memcpy(out->thread_group, program->thread_group, sizeof out->thread_group);
    result = create_vk(device, &spirv, &p, out);
    d12__vkdrv_shader_free(&spirv);
    if (result != VK_SUCCESS) {
        snprintf(why, why_size, "the Vulkan driver could not create the pipeline (VkResult %d)", (int)result);
        d12__vkdrv_pipeline_destroy(device, out);
        goto done;
    }
    out->register_count = count;
    out->registers = p.registers;
    p.registers = NULL;
done:
    free(iface);
    free(p.bindings);
    free(p.registers);
    return result;
}

void d12__vkdrv_pipeline_destroy(VkDevice device, d12__vkdrv_pipeline *pipeline)
{
    vkDestroyPipeline(device, pipeline->pipeline, NULL);
    vkDestroyPipelineLayout(device, pipeline->layout, NULL);
    vkDestroyDescriptorSetLayout(device, pipeline->set_layout, NULL);
    free(pipeline->registers);
    memset(pipeline, 0, sizeof *pipeline);
}
