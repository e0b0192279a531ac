/* The Vulkan driver's root signatures (docs/root-signatures.md, "The Vulkan driver's layout"; issue 30 item 7): a
 * root signature becomes descriptor-set layouts and a pipeline layout, planned once here so that pipelines (a later
 * issue) and the list's binding reuse it:
 *   set 0            the root set: every root CBV/SRV/UAV (one binding each, in parameter order), then one uniform
 *                    buffer holding the root constants that did not fit in push constants; a push-descriptor set
 *                    (VK_KHR_push_descriptor) where the device has it, so a root view is bound by value as D3D12
 *                    binds it, without allocating a descriptor set per change
 *   sets 1..N        descriptor tables, N <= maxBoundDescriptorSets - 2: table t in set 1 + t while sets last, the
 *                    tables past that all in the last one (bindings numbered on)
 *   the last set     static samplers as immutable samplers
 *   push constants   root constants in parameter order while they fit in maxPushConstantsSize (lavapipe: 128 bytes,
 *                    D3D12 allows 256), one range for every stage
 * A table's range is one binding per descriptor kind it may hold: CBV a uniform buffer; SRV a storage buffer (raw,
 * structured) and a uniform texel buffer (typed); UAV a storage buffer and a storage texel buffer; sampler a sampler
 * (what kind a descriptor is is the view's, known only when the heap is read).
 * A valid root signature is never refused: when its descriptor counts exceed the device's per-stage limits (an
 * unbounded range, a large table), the plan is kept without Vulkan objects (`per_pipeline`) and a pipeline builds its
 * layout from the ranges its shader declares; what a shader needs beyond the limits is refused there. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "dxbc.h"
#include "vkdrv.h"

static d12__vkdrv_device *device_of(D3D12DDI_HDEVICE handle)
{
    return (d12__vkdrv_device *)handle.pDrvPrivate;
}

static VkShaderStageFlags stages_of(D3D12_SHADER_VISIBILITY visibility)
{
    switch (visibility) {
    case D3D12_SHADER_VISIBILITY_VERTEX: return VK_SHADER_STAGE_VERTEX_BIT;
    case D3D12_SHADER_VISIBILITY_HULL: return VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
    case D3D12_SHADER_VISIBILITY_DOMAIN: return VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
    case D3D12_SHADER_VISIBILITY_GEOMETRY: return VK_SHADER_STAGE_GEOMETRY_BIT;
    case D3D12_SHADER_VISIBILITY_PIXEL: return VK_SHADER_STAGE_FRAGMENT_BIT;
    default: return VK_SHADER_STAGE_ALL; /* ALL; AMPLIFICATION and MESH have no stage here */
    }
}

/* ---- The plan ---- */

/* A growable list of bindings of one set. */
typedef struct set_builder {
    VkDescriptorSetLayoutBinding *bindings;
    uint32_t count, capacity;
} set_builder;

static bool add_binding(set_builder *set, VkDescriptorType type, uint32_t count, VkShaderStageFlags stages,
                        const VkSampler *immutable)
{
    if (set->count == set->capacity) {
        uint32_t next = set->capacity ? set->capacity * 2 : 8;
        VkDescriptorSetLayoutBinding *grown = realloc(set->bindings, next * sizeof *grown);
        if (!grown)
            return false;
        set->bindings = grown;
        set->capacity = next;
    }
    set->bindings[set->count] = (VkDescriptorSetLayoutBinding){set->count, type, count, stages, immutable};
    set->count++;
    return true;
}

/* Descriptors per shader stage of each Vulkan type, to hold against the device's per-stage limits. */
enum { K_UNIFORM, K_STORAGE, K_UNIFORM_TEXEL, K_STORAGE_TEXEL, K_SAMPLER, K_COUNT };
#define STAGE_COUNT 6 /* vertex, hull, domain, geometry, pixel, compute */

typedef struct stage_counts {
    uint64_t n[STAGE_COUNT][K_COUNT];
} stage_counts;

static int kind_of(VkDescriptorType type)
{
    switch (type) {
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: return K_UNIFORM;
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: return K_STORAGE;
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: return K_UNIFORM_TEXEL;
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: return K_STORAGE_TEXEL;
    default: return K_SAMPLER;
    }
}

static void count_binding(stage_counts *counts, const VkDescriptorSetLayoutBinding *binding)
{
    static const VkShaderStageFlags bits[STAGE_COUNT] = {
        VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
        VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, VK_SHADER_STAGE_GEOMETRY_BIT, VK_SHADER_STAGE_FRAGMENT_BIT,
        VK_SHADER_STAGE_COMPUTE_BIT};
    for (int s = 0; s < STAGE_COUNT; s++)
        if (binding->stageFlags & bits[s])
            counts->n[s][kind_of(binding->descriptorType)] += binding->descriptorCount;
}

/* Whether every stage stays within the device's per-stage limits (and maxPerStageResources). */
static bool within_limits(const VkPhysicalDeviceLimits *limits, const stage_counts *counts)
{
    for (int s = 0; s < STAGE_COUNT; s++) {
        const uint64_t *n = counts->n[s];
        if (n[K_UNIFORM] > limits->maxPerStageDescriptorUniformBuffers ||
            n[K_STORAGE] > limits->maxPerStageDescriptorStorageBuffers ||
            n[K_UNIFORM_TEXEL] > limits->maxPerStageDescriptorSampledImages ||
            n[K_STORAGE_TEXEL] > limits->maxPerStageDescriptorStorageImages ||
            n[K_SAMPLER] > limits->maxPerStageDescriptorSamplers ||
            n[K_UNIFORM] + n[K_STORAGE] + n[K_UNIFORM_TEXEL] + n[K_STORAGE_TEXEL] > limits->maxPerStageResources)
            return false;
    }
    return true;
}

/* A table's ranges as bindings of `set` (see the file's comment); false when out of memory. `unbounded` is set for a
 * range of UINT_MAX descriptors (its binding gets 1: the plan then goes per pipeline). */
static bool plan_table(const D3D12_ROOT_DESCRIPTOR_TABLE1 *table, VkShaderStageFlags stages, set_builder *set,
                       bool *unbounded)
{
    for (UINT r = 0; r < table->NumDescriptorRanges; r++) {
        const D3D12_DESCRIPTOR_RANGE1 *range = &table->pDescriptorRanges[r];
        uint32_t count = range->NumDescriptors;
        if (count == UINT_MAX) {
            *unbounded = true;
            count = 1;
        }
        bool ok;
        switch (range->RangeType) {
        case D3D12_DESCRIPTOR_RANGE_TYPE_CBV:
            ok = add_binding(set, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, count, stages, NULL);
            break;
        case D3D12_DESCRIPTOR_RANGE_TYPE_SRV:
            ok = add_binding(set, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count, stages, NULL) &&
                 add_binding(set, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, count, stages, NULL);
            break;
        case D3D12_DESCRIPTOR_RANGE_TYPE_UAV:
            ok = add_binding(set, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count, stages, NULL) &&
                 add_binding(set, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, count, stages, NULL);
            break;
        default:
            ok = add_binding(set, VK_DESCRIPTOR_TYPE_SAMPLER, count, stages, NULL);
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* Where each root parameter goes, and the bindings of every set. */
static bool plan(d12__vkdrv_root_signature *signature, const VkPhysicalDeviceLimits *limits, set_builder *sets,
                 bool *unbounded)
{
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &signature->desc->Desc_1_1;
    uint32_t push_bytes = 0, ubo_bytes = 0;
    for (UINT i = 0; i < desc->NumParameters; i++) {
        const D3D12_ROOT_PARAMETER1 *param = &desc->pParameters[i];
        d12__vkdrv_root_parameter *where = &signature->parameters[i];
        VkShaderStageFlags stages = stages_of(param->ShaderVisibility);
        switch (param->ParameterType) {
        case D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE: {
            uint32_t set = 1 + (signature->table_count < signature->table_sets ? signature->table_count
                                                                                : signature->table_sets - 1);
            signature->table_count++;
            *where = (d12__vkdrv_root_parameter){D12_VKDRV_ROOT_TABLE, set, sets[set].count, 0};
            if (!plan_table(&param->DescriptorTable, stages, &sets[set], unbounded))
                return false;
            break;
        }
        case D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS: {
            uint32_t bytes = param->Constants.Num32BitValues * 4;
            if (push_bytes + bytes <= limits->maxPushConstantsSize) {
                *where = (d12__vkdrv_root_parameter){D12_VKDRV_ROOT_PUSH_CONSTANTS, 0, 0, push_bytes};
                push_bytes += bytes;
            } else { /* past maxPushConstantsSize: the root set's uniform buffer */
                *where = (d12__vkdrv_root_parameter){D12_VKDRV_ROOT_UBO_CONSTANTS, 0, 0, ubo_bytes};
                ubo_bytes += bytes;
            }
            break;
        }
        default: {
            VkDescriptorType type = param->ParameterType == D3D12_ROOT_PARAMETER_TYPE_CBV
                                        ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                        : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; /* root SRVs/UAVs: raw or structured */
            *where = (d12__vkdrv_root_parameter){D12_VKDRV_ROOT_VIEW, 0, sets[0].count, 0};
            if (!add_binding(&sets[0], type, 1, stages, NULL))
                return false;
            break;
        }
        }
    }
    signature->push_constant_bytes = push_bytes;
    signature->ubo_constant_bytes = ubo_bytes;
    if (ubo_bytes) {
        signature->ubo_binding = sets[0].count;
        for (UINT i = 0; i < desc->NumParameters; i++)
            if (signature->parameters[i].kind == D12_VKDRV_ROOT_UBO_CONSTANTS)
                signature->parameters[i].binding = signature->ubo_binding;
        if (!add_binding(&sets[0], VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_ALL, NULL))
            return false;
    }
    return true;
}

/* ---- The Vulkan objects ---- */

static void destroy_vk(d12__vkdrv_device *device, d12__vkdrv_root_signature *signature)
{
    if (signature->layout)
        vkDestroyPipelineLayout(device->vk, signature->layout, NULL);
    for (uint32_t s = 0; s < signature->set_count; s++)
        if (signature->set_layouts[s])
            vkDestroyDescriptorSetLayout(device->vk, signature->set_layouts[s], NULL);
    for (uint32_t i = 0; i < signature->static_sampler_count; i++)
        if (signature->static_samplers[i])
            vkDestroySampler(device->vk, signature->static_samplers[i], NULL);
}

/* D3D12_TEXTURE_ADDRESS_MODE (validated: WRAP..MIRROR_ONCE) as Vulkan's; MIRROR_ONCE needs
 * samplerMirrorClampToEdge, which the device is not created with: clamped to the edge instead. */
static VkSamplerAddressMode static_address_mode(D3D12_TEXTURE_ADDRESS_MODE mode)
{
    switch (mode) {
    case D3D12_TEXTURE_ADDRESS_MODE_MIRROR: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    case D3D12_TEXTURE_ADDRESS_MODE_BORDER: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    case D3D12_TEXTURE_ADDRESS_MODE_CLAMP:
    case D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    default: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    }
}

/* D3D12_FILTER's bits as vkdrv_descriptors.c reads them: mip bit 0, mag bit 2, min bit 4 (1: linear); reduction
 * type in bits 7-8 (1: comparison). Anisotropy is not enabled on the device: an anisotropic filter is linear. */
static VkSamplerCreateInfo static_sampler_info(const D3D12_STATIC_SAMPLER_DESC *desc)
{
    UINT filter = (UINT)desc->Filter;
    bool anisotropic = filter & 0x40, comparison = ((filter >> 7) & 3) == 1;
    static const VkBorderColor borders[] = {VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
                                            VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK, VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE};
    return (VkSamplerCreateInfo){
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = (anisotropic || (filter & 0x4)) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
        .minFilter = (anisotropic || (filter & 0x10)) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
        .mipmapMode = (anisotropic || (filter & 0x1)) ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = static_address_mode(desc->AddressU),
        .addressModeV = static_address_mode(desc->AddressV),
        .addressModeW = static_address_mode(desc->AddressW),
        .mipLodBias = desc->MipLODBias,
        .maxAnisotropy = 1.0f,
        .compareEnable = comparison,
        .compareOp = comparison ? (VkCompareOp)(desc->ComparisonFunc - 1) : VK_COMPARE_OP_NEVER,
        .minLod = desc->MinLOD,
        .maxLod = desc->MaxLOD,
        .borderColor = (UINT)desc->BorderColor < 3 ? borders[desc->BorderColor] : VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE};
}

/* The static samplers as immutable samplers of the last set. */
static VkResult plan_static_samplers(d12__vkdrv_device *device, d12__vkdrv_root_signature *signature,
                                     set_builder *set)
{
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &signature->desc->Desc_1_1;
    for (UINT i = 0; i < desc->NumStaticSamplers; i++) {
        VkSamplerCreateInfo info = static_sampler_info(&desc->pStaticSamplers[i]);
        VkResult result = vkCreateSampler(device->vk, &info, NULL, &signature->static_samplers[i]);
        if (result != VK_SUCCESS)
            return result;
        signature->static_sampler_count = i + 1;
        if (!add_binding(set, VK_DESCRIPTOR_TYPE_SAMPLER, 1, stages_of(desc->pStaticSamplers[i].ShaderVisibility),
                         &signature->static_samplers[i]))
            return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    return VK_SUCCESS;
}

static VkResult create_vk(d12__vkdrv_device *device, d12__vkdrv_root_signature *signature, set_builder *sets)
{
    for (uint32_t s = 0; s < signature->set_count; s++) {
        VkDescriptorSetLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .bindingCount = sets[s].count,
                                                .pBindings = sets[s].bindings};
        if (s == 0 && device->push_descriptors && sets[0].count <= device->max_push_descriptors)
            info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
        signature->root_set_pushed = s == 0 && info.flags != 0;
        VkResult result = vkCreateDescriptorSetLayout(device->vk, &info, NULL, &signature->set_layouts[s]);
        if (result != VK_SUCCESS)
            return result;
    }
    VkPushConstantRange push = {VK_SHADER_STAGE_ALL, 0, signature->push_constant_bytes};
    VkPipelineLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = signature->set_count,
                                       .pSetLayouts = signature->set_layouts,
                                       .pushConstantRangeCount = push.size ? 1 : 0,
                                       .pPushConstantRanges = &push};
    return vkCreatePipelineLayout(device->vk, &info, NULL, &signature->layout);
}

/* ---- The DDI ---- */

SIZE_T APIENTRY d12__vkdrv_calc_root_signature_size(D3D12DDI_HDEVICE device,
                                                    const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args)
{
    (void)device;
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &args->pRootSignature->Desc_1_1;
    return sizeof(d12__vkdrv_root_signature) + desc->NumParameters * sizeof(d12__vkdrv_root_parameter) +
           desc->NumStaticSamplers * sizeof(VkSampler);
}

static HRESULT create(d12__vkdrv_device *device, d12__vkdrv_root_signature *signature)
{
    const VkPhysicalDeviceLimits *limits = &device->adapter->properties.limits;
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &signature->desc->Desc_1_1;
    /* maxBoundDescriptorSets - 2 for tables (the root set and the static samplers' set take the other two); at
     * least one (the Vulkan minimum is 4). */
    uint32_t bound = limits->maxBoundDescriptorSets < D12_VKDRV_MAX_SETS ? limits->maxBoundDescriptorSets
                                                                         : D12_VKDRV_MAX_SETS;
    signature->table_sets = bound > 3 ? bound - 2 : 1;
    uint32_t tables = 0;
    for (UINT i = 0; i < desc->NumParameters; i++)
        tables += desc->pParameters[i].ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
    uint32_t table_sets = tables < signature->table_sets ? tables : signature->table_sets;
    signature->sampler_set = 1 + table_sets;
    signature->set_count = signature->sampler_set + (desc->NumStaticSamplers ? 1 : 0);
    set_builder sets[D12_VKDRV_MAX_SETS];
    memset(sets, 0, sizeof sets);
    bool unbounded = false;
    HRESULT hr = E_OUTOFMEMORY;
    if (plan(signature, limits, sets, &unbounded)) {
        stage_counts counts;
        memset(&counts, 0, sizeof counts);
        for (uint32_t s = 0; s < signature->set_count; s++)
            for (uint32_t b = 0; b < sets[s].count; b++)
                count_binding(&counts, &sets[s].bindings[b]);
        signature->per_pipeline = unbounded || !within_limits(limits, &counts);
        VkResult result = VK_SUCCESS;
        if (!signature->per_pipeline && (result = plan_static_samplers(device, signature,
                                                                       &sets[signature->sampler_set])) == VK_SUCCESS)
            result = create_vk(device, signature, sets);
        hr = result == VK_SUCCESS ? S_OK : E_OUTOFMEMORY;
    }
    for (uint32_t s = 0; s < D12_VKDRV_MAX_SETS; s++)
        free(sets[s].bindings);
    return hr;
}

HRESULT APIENTRY d12__vkdrv_create_root_signature(D3D12DDI_HDEVICE handle,
                                                  const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args,
                                                  D3D12DDI_HROOTSIGNATURE hsignature)
{
    d12__vkdrv_device *device = device_of(handle);
    d12__vkdrv_root_signature *signature = hsignature.pDrvPrivate;
    memset(signature, 0, sizeof *signature);
    signature->parameters = (d12__vkdrv_root_parameter *)(signature + 1);
    signature->static_samplers =
        (VkSampler *)(signature->parameters + args->pRootSignature->Desc_1_1.NumParameters);
    if (!(signature->desc = d12_rootsig_convert(args->pRootSignature, D3D_ROOT_SIGNATURE_VERSION_1_1)))
        return E_OUTOFMEMORY;
    HRESULT hr = create(device, signature);
    if (FAILED(hr)) {
        destroy_vk(device, signature);
        free(signature->desc);
        signature->desc = NULL;
    }
    return hr;
}

VOID APIENTRY d12__vkdrv_destroy_root_signature(D3D12DDI_HDEVICE handle, D3D12DDI_HROOTSIGNATURE hsignature)
{
    d12__vkdrv_device *device = device_of(handle);
    d12__vkdrv_root_signature *signature = hsignature.pDrvPrivate;
    destroy_vk(device, signature);
    free(signature->desc);
    signature->desc = NULL;
}

bool d12__vkdrv_push_descriptor_query(VkPhysicalDevice physical, uint32_t *max_push_descriptors)
{
    uint32_t count = 0;
    VkExtensionProperties *all = NULL;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(physical, NULL, &count, NULL) == VK_SUCCESS && count &&
        (all = calloc(count, sizeof *all)) &&
        vkEnumerateDeviceExtensionProperties(physical, NULL, &count, all) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(all[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0;
    free(all);
    *max_push_descriptors = 0;
    if (found) {
        VkPhysicalDevicePushDescriptorPropertiesKHR push = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
        VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                                  .pNext = &push};
        vkGetPhysicalDeviceProperties2(physical, &properties);
        *max_push_descriptors = push.maxPushDescriptors;
    }
    return found;
}
