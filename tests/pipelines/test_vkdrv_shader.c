/* The Vulkan driver's shader compiler (drivers/vulkan/vkdrv_shader.c, linked directly; docs/pipelines.md) on
 * lavapipe: every generated shader (generated/shaders) is compiled through the driver's path, its SPIR-V made a
 * VkShaderModule and a compute pipeline over a layout of the descriptor types the driver says the SPIR-V expects;
 * vkd3d-shader's refusals come back in D3D12 terms; the library's absence and VKD3D_SHADER_DEBUG.
 *
 *   test_vkdrv_shader CASE
 *     compile.NAME          one generated shader: compiled, a VkShaderModule and a VkPipeline created (spaces_sm51,
 *                           whose u4..u7 is a range, is refused before vkd3d-shader could miscompile it)
 *     rewrite_checksum      a flipped byte: refused, "checksum does not match" (vkd3d-shader's E0003 rewritten)
 *     rewrite_magic         no DXBC magic: refused, "no DXBC container"
 *     rewrite_unknown       a message the driver has no words for passes through with its code
 *     unplaced_register     a register the layout has no place for: refused, naming it
 *     no_library            D12RT_VULKAN_TEST_VKD3D_SHADER names no library: no shader support, said once
 *     debug_unset           VKD3D_SHADER_DEBUG unset: `none` before the first compile
 *     debug_kept            VKD3D_SHADER_DEBUG=warn: kept
 *     pipeline.NAME         vkdrv_pipeline.c: the shader over its own RTS0 (or a table of its registers) made a
 *                           VkPipeline, every register found in its root parameter (spaces_sm51 refused)
 *     pipeline_root_constants  root constants as push constants at the layout's offset; none: refused
 *     pipeline_runs         raw_fill dispatched on lavapipe through the driver's pipeline: the words it computes
 *     pipeline_runs_tgsm    tgsm_sync: TGSM and group barriers, the words it computes
 *     pipeline_runs_counters  counters_atomics: a UAV counter (allocations and consumes) and atomics, their results
 *
 * Ends with "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_main.h"
#include "d12_shaders.h"
#include "vkdrv_pipeline.h"
#include "vkdrv_shader.h"
#include "vulkan/stderr_capture.h"

static VkInstance g_instance;
static VkPhysicalDevice g_physical;
static VkDevice g_device;
static VkQueue g_queue;

static int open_vulkan(void)
{
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "test_vkdrv_shader", 1, NULL, 0,
                             VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    if (vkCreateInstance(&info, NULL, &g_instance) != VK_SUCCESS)
        return 1;
    uint32_t count = 1;
    VkPhysicalDevice physical;
    VkResult r = vkEnumeratePhysicalDevices(g_instance, &count, &physical);
    g_physical = physical;
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0)
        return 1;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &priority};
    /* What the SPIR-V of typed UAV reads needs (StorageImageReadWithoutFormat), as the driver enables it. */
    VkPhysicalDeviceFeatures offered, features = {0};
    vkGetPhysicalDeviceFeatures(physical, &offered);
    features.shaderStorageImageReadWithoutFormat = offered.shaderStorageImageReadWithoutFormat;
    features.shaderStorageImageWriteWithoutFormat = offered.shaderStorageImageWriteWithoutFormat;
    VkDeviceCreateInfo device = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &queue, 0, NULL, 0, NULL,
                                 &features};
    if (vkCreateDevice(physical, &device, NULL, &g_device) != VK_SUCCESS)
        return 1;
    vkGetDeviceQueue(g_device, 0, 0, &g_queue);
    return 0;
}

static void close_vulkan(void)
{
    if (g_device)
        vkDestroyDevice(g_device, NULL);
    if (g_instance)
        vkDestroyInstance(g_instance, NULL);
}

/* The test's layout: every register in set 0 at the binding of its declaration's index, counters after them. */
typedef struct test_layout {
    const d12_dxbc_program *program;
    VkDescriptorSetLayoutBinding bindings[2 * D12_VKDRV_SHADER_MAX_BINDINGS];
    uint32_t count;
    bool refuse_all;
} test_layout;

static bool place(void *context, const d12_dxbc_binding *declared, d12__vkdrv_shader_slot *slot)
{
    test_layout *layout = context;
    if (layout->refuse_all)
        return false;
    uint32_t index = (uint32_t)(declared - layout->program->bindings);
    slot->set = 0;
    slot->binding = index;
    layout->bindings[layout->count++] = (VkDescriptorSetLayoutBinding){
        index, d12__vkdrv_shader_descriptor_type(declared), 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    if (declared->kind == D12_DXBC_UAV && (declared->flags & D12_DXBC_COUNTER_USED)) {
        slot->counter_set = 0;
        slot->counter_binding = D12_VKDRV_SHADER_MAX_BINDINGS + index;
        layout->bindings[layout->count++] = (VkDescriptorSetLayoutBinding){
            slot->counter_binding, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    }
    return true;
}

static const d12_shader_blob *blob_named(const char *name)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, name) == 0)
            return &d12_shaders[i];
    return NULL;
}

static bool parse(const void *code, size_t size, d12_dxbc_program *program)
{
    d12_dxbc dxbc;
    char error[256];
    return d12_dxbc_parse(code, size, &dxbc, error, sizeof error) == 0 &&
           d12_dxbc_program_parse(&dxbc, program, error, sizeof error) == 0;
}

/* A compute pipeline from SPIR-V over the test layout. */
static VkResult make_pipeline(const struct vkd3d_shader_code *spirv, const test_layout *layout)
{
    VkShaderModuleCreateInfo module_info = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, spirv->size,
                                            spirv->code};
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult r = vkCreateShaderModule(g_device, &module_info, NULL, &module);
    CHECK_EQ_INT(r, VK_SUCCESS);
    VkDescriptorSetLayoutCreateInfo set_info = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0,
                                                layout->count, layout->bindings};
    VkDescriptorSetLayout set = VK_NULL_HANDLE;
    CHECK_EQ_INT(vkCreateDescriptorSetLayout(g_device, &set_info, NULL, &set), VK_SUCCESS);
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
    VkPipelineLayoutCreateInfo pipeline_layout_info = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &set,
                                                       1, &push};
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    CHECK_EQ_INT(vkCreatePipelineLayout(g_device, &pipeline_layout_info, NULL, &pipeline_layout), VK_SUCCESS);
    VkComputePipelineCreateInfo info = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main",
         NULL},
        pipeline_layout, VK_NULL_HANDLE, -1};
    VkPipeline pipeline = VK_NULL_HANDLE;
    r = module ? vkCreateComputePipelines(g_device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline) : r;
    vkDestroyPipeline(g_device, pipeline, NULL);
    vkDestroyPipelineLayout(g_device, pipeline_layout, NULL);
    vkDestroyDescriptorSetLayout(g_device, set, NULL);
    vkDestroyShaderModule(g_device, module, NULL);
    return r;
}

static void test_compile(const void *arg)
{
    const d12_shader_blob *blob = blob_named(arg);
    d12_dxbc_program program;
    if (!CHECK(blob != NULL) || !CHECK(parse(blob->code, blob->size, &program)))
        return;
    static test_layout layout;
    layout = (test_layout){&program, {{0}}, 0, false};
    static d12__vkdrv_shader_interface iface;
    char why[512] = "";
    int built = d12__vkdrv_shader_interface_build(&program, place, &layout, &iface, why, sizeof why);
    if (strcmp(blob->name, "spaces_sm51") == 0) { /* U1[4:7]: refused, never miscompiled */
        CHECK_EQ_INT(built, -1);
        CHECK(strstr(why, "u4 (space 0) is declared as a range of several registers") != NULL);
        d12_dxbc_program_free(&program);
        return;
    }
    CHECK_EQ_INT(built, 0);
    CHECK_EQ_INT(iface.info.binding_count, program.binding_count);
    struct vkd3d_shader_code spirv;
    int result = d12__vkdrv_shader_compile(blob->code, blob->size, &iface, &spirv, why, sizeof why);
    if (!CHECK(result == 0))
        fprintf(stderr, "%s: %s\n", blob->name, why);
    CHECK(spirv.size > 20 && spirv.size % 4 == 0 && ((const uint32_t *)spirv.code)[0] == 0x07230203u);
    if (result == 0)
        CHECK_EQ_INT(make_pipeline(&spirv, &layout), VK_SUCCESS);
    d12__vkdrv_shader_free(&spirv);
    CHECK(spirv.code == NULL && spirv.size == 0);
    d12_dxbc_program_free(&program);
}

/* raw_fill with one byte changed at `at` (xor 0xFF): what the compiler says. */
static int compile_broken(size_t at, char *why, size_t why_size)
{
    const d12_shader_blob *blob = blob_named("raw_fill");
    unsigned char copy[1024];
    memcpy(copy, blob->code, blob->size);
    copy[at] ^= 0xFF;
    d12__vkdrv_shader_interface iface;
    d12_dxbc_program program = {0};
    d12__vkdrv_shader_interface_build(&program, place, NULL, &iface, why, why_size); /* no registers: empty */
    struct vkd3d_shader_code spirv;
    int result = d12__vkdrv_shader_compile(copy, blob->size, &iface, &spirv, why, why_size);
    CHECK(spirv.code == NULL && spirv.size == 0);
    return result;
}

static void test_rewrite_checksum(const void *arg)
{
    (void)arg;
    char why[512];
    CHECK(compile_broken(100, why, sizeof why) < 0);
    CHECK_EQ_STR(why, "the DXBC container's checksum does not match its contents (the bytecode was modified after "
                      "compilation) (vkd3d-shader E0003)");
}

static void test_rewrite_magic(const void *arg)
{
    (void)arg;
    char why[512];
    CHECK(compile_broken(0, why, sizeof why) < 0);
    CHECK(strncmp(why, "the bytecode is no DXBC container", 33) == 0);
    CHECK(strstr(why, "(vkd3d-shader E0002)") != NULL);
}

static void test_rewrite_unknown(const void *arg)
{
    (void)arg;
    char out[256];
    d12__vkdrv_shader_rewrite_message("shader: E5017: Something new.", out, sizeof out);
    CHECK_EQ_STR(out, "the shader compiler (vkd3d-shader 1.2) refused the bytecode: Something new. (E5017)");
    d12__vkdrv_shader_rewrite_message("no code here", out, sizeof out);
    CHECK_EQ_STR(out, "the shader compiler (vkd3d-shader 1.2) said: no code here");
    d12__vkdrv_shader_rewrite_message("shader: E0004: Invalid DXBC version.", out, sizeof out);
    CHECK_EQ_STR(out, "the DXBC container's version is not 1 (vkd3d-shader E0004)");
}

static void test_unplaced_register(const void *arg)
{
    (void)arg;
    d12_dxbc_program program;
    if (!CHECK(parse(blob_named("raw_fill")->code, blob_named("raw_fill")->size, &program)))
        return;
    test_layout layout = {&program, {{0}}, 0, true};
    static d12__vkdrv_shader_interface iface;
    char why[256] = "";
    CHECK_EQ_INT(d12__vkdrv_shader_interface_build(&program, place, &layout, &iface, why, sizeof why), -1);
    CHECK_EQ_STR(why, "b0 (space 0) has no place in the root signature");
    layout.refuse_all = false; /* the positive twin */
    CHECK_EQ_INT(d12__vkdrv_shader_interface_build(&program, place, &layout, &iface, why, sizeof why), 0);
    d12_dxbc_program_free(&program);
}

static void test_no_library(const void *arg)
{
    (void)arg;
    unsetenv("VKD3D_SHADER_DEBUG");
    stderr_capture capture;
    bool capturing = stderr_capture_begin(&capture);
    CHECK(!d12__vkdrv_shader_available());
    CHECK(!d12__vkdrv_shader_available());
    char why[256];
    CHECK_EQ_INT(compile_broken(0, why, sizeof why), VKD3D_ERROR_NOT_IMPLEMENTED);
    CHECK_EQ_STR(why, "libvkd3d-shader.so.1 is not installed: the Vulkan driver runs no shader");
    static char text[4096];
    stderr_capture_end(&capture, text, sizeof text);
    if (capturing) {
        const char *said = strstr(text, "no shader support");
        CHECK(said != NULL);
        CHECK(said == NULL || strstr(said + 1, "no shader support") == NULL);
    }
    CHECK(getenv("VKD3D_SHADER_DEBUG") == NULL); /* nothing set for a library never loaded */
}

static void test_debug_unset(const void *arg)
{
    (void)arg;
    unsetenv("VKD3D_SHADER_DEBUG");
    CHECK(d12__vkdrv_shader_available());
    const char *value = getenv("VKD3D_SHADER_DEBUG");
    CHECK(value != NULL && strcmp(value, "none") == 0);
}

static void test_debug_kept(const void *arg)
{
    (void)arg;
    setenv("VKD3D_SHADER_DEBUG", "warn", 1);
    CHECK(d12__vkdrv_shader_available());
    const char *value = getenv("VKD3D_SHADER_DEBUG");
    CHECK(value != NULL && strcmp(value, "warn") == 0);
}

/* ---- Pipelines (vkdrv_pipeline.c) ---- */

/* The root signature a case uses: the shader's own RTS0, or one table of every register it declares. */
typedef struct case_root {
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *own;
    D3D12_DESCRIPTOR_RANGE1 ranges[16];
    D3D12_ROOT_PARAMETER1 params[4];
    D3D12_ROOT_SIGNATURE_DESC1 desc;
    uint32_t push_offsets[4];
    d12__vkdrv_pipeline_root root;
} case_root;

static void root_from_rts0(case_root *c, const d12_shader_blob *blob)
{
    d12_dxbc dxbc;
    char error[128];
    d12_dxbc_parse(blob->code, blob->size, &dxbc, error, sizeof error);
    const d12_dxbc_chunk *chunk = d12_dxbc_find(&dxbc, D12_DXBC_TAG_RTS0);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *parsed = NULL;
    if (!CHECK(chunk && d12_rts0_parse(chunk->data, chunk->size, &parsed, error, sizeof error) == 0))
        return;
    c->own = d12_rootsig_convert(parsed, D3D_ROOT_SIGNATURE_VERSION_1_1);
    free(parsed);
    c->desc = c->own->Desc_1_1;
}

static void root_table_of(case_root *c, const d12_dxbc_program *program)
{
    static const D3D12_DESCRIPTOR_RANGE_TYPE k_types[] = {D3D12_DESCRIPTOR_RANGE_TYPE_CBV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_SRV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_UAV,
                                                          D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER};
    for (uint32_t i = 0; i < program->binding_count && i < 16; i++) {
        const d12_dxbc_binding *b = &program->bindings[i];
        c->ranges[i] = (D3D12_DESCRIPTOR_RANGE1){k_types[b->kind], 1, b->lower, b->space,
                                                 D3D12_DESCRIPTOR_RANGE_FLAG_NONE, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND};
    }
    c->params[0] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                                           .DescriptorTable = {program->binding_count, c->ranges},
                                           D3D12_SHADER_VISIBILITY_ALL};
    c->desc = (D3D12_ROOT_SIGNATURE_DESC1){1, c->params, 0, NULL, 0};
}

/* Push-constant offsets as the root signature's layout gives them: root constants in parameter order. */
static void finish_root(case_root *c)
{
    uint32_t bytes = 0;
    for (UINT i = 0; i < c->desc.NumParameters && i < 4; i++) {
        const D3D12_ROOT_PARAMETER1 *p = &c->desc.pParameters[i];
        c->push_offsets[i] = p->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS ? bytes : UINT32_MAX;
        if (p->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS)
            bytes += p->Constants.Num32BitValues * 4;
    }
    c->root = (d12__vkdrv_pipeline_root){&c->desc, c->push_offsets, bytes};
}

static void test_pipeline(const void *arg)
{
    const d12_shader_blob *blob = blob_named(arg);
    d12_dxbc_program program;
    if (!CHECK(blob != NULL) || !CHECK(parse(blob->code, blob->size, &program)))
        return;
    static case_root c;
    memset(&c, 0, sizeof c);
    if (blob->has_root_signature)
        root_from_rts0(&c, blob);
    else
        root_table_of(&c, &program);
    finish_root(&c);
    d12__vkdrv_pipeline pipeline;
    char why[512] = "";
    VkResult r = d12__vkdrv_pipeline_create(g_device, blob->code, blob->size, &program, &c.root, &pipeline, why,
                                            sizeof why);
    if (strcmp(blob->name, "spaces_sm51") == 0) {
        CHECK(r != VK_SUCCESS);
        CHECK(strstr(why, "u4 (space 0) is declared as a range of several registers") != NULL);
        CHECK(pipeline.pipeline == VK_NULL_HANDLE && pipeline.registers == NULL);
    } else {
        if (!CHECK(r == VK_SUCCESS))
            fprintf(stderr, "%s: %s\n", blob->name, why);
        CHECK(pipeline.pipeline != VK_NULL_HANDLE);
        CHECK_EQ_INT(pipeline.register_count, program.binding_count);
        for (uint32_t i = 0; i < pipeline.register_count; i++) /* every register found in its root parameter */
            CHECK(pipeline.registers[i].where.parameter < c.desc.NumParameters);
        CHECK_EQ_INT(pipeline.thread_group[0], program.thread_group[0]);
    }
    d12__vkdrv_pipeline_destroy(g_device, &pipeline);
    free(c.own);
    d12_dxbc_program_free(&program);
}

/* raw_fill's b0 as root constants: push constants at the layout's offset, its u0 a root UAV; and the register
 * table says so. */
static void test_pipeline_root_constants(const void *arg)
{
    (void)arg;
    const d12_shader_blob *blob = blob_named("raw_fill");
    d12_dxbc_program program;
    if (!CHECK(parse(blob->code, blob->size, &program)))
        return;
    static case_root c;
    memset(&c, 0, sizeof c);
    c.params[0] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {0, 0, 0},
                                          D3D12_SHADER_VISIBILITY_ALL};
    c.params[1] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 4},
                                          D3D12_SHADER_VISIBILITY_ALL};
    c.desc = (D3D12_ROOT_SIGNATURE_DESC1){2, c.params, 0, NULL, 0};
    finish_root(&c);
    d12__vkdrv_pipeline pipeline;
    char why[512] = "";
    CHECK_EQ_INT(d12__vkdrv_pipeline_create(g_device, blob->code, blob->size, &program, &c.root, &pipeline, why,
                                            sizeof why), VK_SUCCESS);
    CHECK_EQ_INT(pipeline.push_constant_bytes, 16);
    if (CHECK(pipeline.register_count == 2)) {
        CHECK(pipeline.registers[0].push_constants);      /* cb0 */
        CHECK_EQ_INT(pipeline.registers[0].push_offset, 0);
        CHECK_EQ_INT(pipeline.registers[0].where.parameter, 1);
        CHECK(!pipeline.registers[1].push_constants);     /* u0 */
        CHECK_EQ_INT(pipeline.registers[1].where.parameter, 0);
        CHECK_EQ_INT(pipeline.registers[1].type, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER);
    }
    d12__vkdrv_pipeline_destroy(g_device, &pipeline);
    /* the negative twin: constants past the push-constant range have no place yet */
    c.push_offsets[1] = UINT32_MAX;
    CHECK(d12__vkdrv_pipeline_create(g_device, blob->code, blob->size, &program, &c.root, &pipeline, why,
                                     sizeof why) != VK_SUCCESS);
    CHECK_EQ_STR(why, "b0 (space 0) has no place in the root signature");
    d12_dxbc_program_free(&program);
}

/* The application's shader really runs: raw_fill (word i = i * cb0.x + cb0.y) through the driver's pipeline on
 * lavapipe, its u0 a storage texel buffer of R32_UINT, its cb0 push constants; the words read back. */
static uint32_t memory_type(uint32_t bits)
{
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(g_physical, &memory);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < memory.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want)
            return i;
    return 0;
}

/* A host-visible buffer of `count` R32_UINT words seen as a texel buffer (storage and uniform). */
typedef struct texel {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkBufferView view;
    uint32_t *words;
} texel;

static void texel_make(texel *t, uint32_t count, uint32_t fill)
{
    VkBufferCreateInfo buffer_info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, count * 4,
                                      VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                                          VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
                                      VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    CHECK_EQ_INT(vkCreateBuffer(g_device, &buffer_info, NULL, &t->buffer), VK_SUCCESS);
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(g_device, t->buffer, &needs);
    VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, needs.size,
                                  memory_type(needs.memoryTypeBits)};
    CHECK_EQ_INT(vkAllocateMemory(g_device, &alloc, NULL, &t->memory), VK_SUCCESS);
    vkBindBufferMemory(g_device, t->buffer, t->memory, 0);
    vkMapMemory(g_device, t->memory, 0, VK_WHOLE_SIZE, 0, (void **)&t->words);
    for (uint32_t i = 0; i < count; i++)
        t->words[i] = fill;
    VkBufferViewCreateInfo view_info = {VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, NULL, 0, t->buffer,
                                        VK_FORMAT_R32_UINT, 0, count * 4};
    CHECK_EQ_INT(vkCreateBufferView(g_device, &view_info, NULL, &t->view), VK_SUCCESS);
}

static void texel_free(texel *t)
{
    vkDestroyBufferView(g_device, t->view, NULL);
    vkUnmapMemory(g_device, t->memory);
    vkDestroyBuffer(g_device, t->buffer, NULL);
    vkFreeMemory(g_device, t->memory, NULL);
}

/* One dispatch of `groups` groups: register i's descriptor is views[i] (NULL for push constants), its counter
 * counters[i]; `constants` the push constants. */
static void dispatch(d12__vkdrv_pipeline *pipeline, texel *const *views, texel *const *counters,
                     const uint32_t *constants, uint32_t groups)
{
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 16},
                                    {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 16}};
    VkDescriptorPoolCreateInfo pool_info = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 2, sizes};
    VkDescriptorPool pool;
    CHECK_EQ_INT(vkCreateDescriptorPool(g_device, &pool_info, NULL, &pool), VK_SUCCESS);
    VkDescriptorSetAllocateInfo alloc = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 1,
                                         &pipeline->set_layout};
    VkDescriptorSet set;
    CHECK_EQ_INT(vkAllocateDescriptorSets(g_device, &alloc, &set), VK_SUCCESS);
    for (uint32_t i = 0; i < pipeline->register_count; i++) {
        const d12__vkdrv_pipeline_register *r = &pipeline->registers[i];
        if (r->push_constants)
            continue;
        VkWriteDescriptorSet write = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, r->binding, 0, 1, r->type,
                                      NULL, NULL, &views[i]->view};
        vkUpdateDescriptorSets(g_device, 1, &write, 0, NULL);
        if (r->counter_binding != UINT32_MAX) {
            write.dstBinding = r->counter_binding;
            write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
            write.pTexelBufferView = &counters[i]->view;
            vkUpdateDescriptorSets(g_device, 1, &write, 0, NULL);
        }
    }
    VkCommandPoolCreateInfo cmd_pool_info = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, 0};
    VkCommandPool cmd_pool;
    CHECK_EQ_INT(vkCreateCommandPool(g_device, &cmd_pool_info, NULL, &cmd_pool), VK_SUCCESS);
    VkCommandBufferAllocateInfo cmd_alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, cmd_pool,
                                             VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cmd;
    CHECK_EQ_INT(vkAllocateCommandBuffers(g_device, &cmd_alloc, &cmd), VK_SUCCESS);
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL};
    vkBeginCommandBuffer(cmd, &begin);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout, 0, 1, &set, 0, NULL);
    if (pipeline->push_constant_bytes)
        vkCmdPushConstants(cmd, pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pipeline->push_constant_bytes,
                           constants);
    vkCmdDispatch(cmd, groups, 1, 1);
    vkEndCommandBuffer(cmd);
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cmd, 0, NULL};
    CHECK_EQ_INT(vkQueueSubmit(g_queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
    CHECK_EQ_INT(vkQueueWaitIdle(g_queue), VK_SUCCESS);
    vkDestroyCommandPool(g_device, cmd_pool, NULL);
    vkDestroyDescriptorPool(g_device, pool, NULL);
}

/* The driver's pipeline of a generated shader over one table of its registers (its RTS0 where it has one). */
static bool pipeline_of(const char *name, d12_dxbc_program *program, case_root *c, d12__vkdrv_pipeline *pipeline)
{
    const d12_shader_blob *blob = blob_named(name);
    if (!CHECK(parse(blob->code, blob->size, program)))
        return false;
    memset(c, 0, sizeof *c);
    root_table_of(c, program);
    finish_root(c);
    char why[512] = "";
    if (CHECK(d12__vkdrv_pipeline_create(g_device, blob->code, blob->size, program, &c->root, pipeline, why,
                                         sizeof why) == VK_SUCCESS))
        return true;
    fprintf(stderr, "%s: %s\n", name, why);
    d12_dxbc_program_free(program);
    return false;
}

static void test_pipeline_runs(const void *arg)
{
    (void)arg;
    const d12_shader_blob *blob = blob_named("raw_fill");
    d12_dxbc_program program;
    if (!CHECK(parse(blob->code, blob->size, &program)))
        return;
    static case_root c;
    memset(&c, 0, sizeof c);
    c.params[0] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 4},
                                          D3D12_SHADER_VISIBILITY_ALL};
    c.params[1] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {0, 0, 0},
                                          D3D12_SHADER_VISIBILITY_ALL};
    c.desc = (D3D12_ROOT_SIGNATURE_DESC1){2, c.params, 0, NULL, 0};
    finish_root(&c);
    d12__vkdrv_pipeline pipeline;
    char why[512] = "";
    if (!CHECK(d12__vkdrv_pipeline_create(g_device, blob->code, blob->size, &program, &c.root, &pipeline, why,
                                          sizeof why) == VK_SUCCESS)) {
        fprintf(stderr, "%s\n", why);
        return;
    }
    enum { WORDS = 160 }; /* 128 written, 32 left alone */
    texel out;
    texel_make(&out, WORDS, 0xDEADBEEFu);
    texel *views[2] = {NULL, &out};
    const uint32_t constants[4] = {3, 1000, 0, 0};
    dispatch(&pipeline, views, views, constants, 2); /* 2 groups of 64 */
    unsigned wrong = 0;
    for (uint32_t i = 0; i < WORDS; i++)
        wrong += out.words[i] != (i < 128 ? i * 3 + 1000 : 0xDEADBEEFu);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(out.words[127], 127 * 3 + 1000);
    texel_free(&out);
    d12__vkdrv_pipeline_destroy(g_device, &pipeline);
    d12_dxbc_program_free(&program);
}

/* tgsm_sync, one group: word i = its neighbour's TGSM word ((i + 1) & 63) + the group's g1 word (group 0). */
static void test_pipeline_runs_tgsm(const void *arg)
{
    (void)arg;
    d12_dxbc_program program;
    static case_root c;
    d12__vkdrv_pipeline pipeline;
    if (!pipeline_of("tgsm_sync", &program, &c, &pipeline))
        return;
    texel out;
    texel_make(&out, 64, 0xDEADBEEFu);
    texel *views[1] = {&out};
    dispatch(&pipeline, views, views, NULL, 1);
    unsigned wrong = 0;
    for (uint32_t i = 0; i < 64; i++)
        wrong += out.words[i] != ((i + 1) & 63);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(out.words[63], 0);
    texel_free(&out);
    d12__vkdrv_pipeline_destroy(g_device, &pipeline);
    d12_dxbc_program_free(&program);
}

/* counters_atomics, one group of 64: u0's counter ends at 64 allocations - 32 consumes, u0 holds every thread ID
 * once in the slots it wrote, u1's totals: 64 additions, the largest ID, the OR of every ID. */
static void test_pipeline_runs_counters(const void *arg)
{
    (void)arg;
    d12_dxbc_program program;
    static case_root c;
    d12__vkdrv_pipeline pipeline;
    if (!pipeline_of("counters_atomics", &program, &c, &pipeline))
        return;
    CHECK(pipeline.registers[0].counter_binding != UINT32_MAX);
    texel appended, totals, counter;
    texel_make(&appended, 64, 0xFFFFFFFFu);
    texel_make(&totals, 8, 0);
    texel_make(&counter, 1, 0);
    texel *views[2] = {&appended, &totals}, *counters[2] = {&counter, NULL};
    dispatch(&pipeline, views, counters, NULL, 1);
    CHECK_EQ_INT(counter.words[0], 32);
    /* Which slots hold which IDs depends on how the group's threads interleave (lavapipe runs 32 lanes, then the
     * next 32: the first half's consumes bring the counter back before the second half allocates). What holds
     * always: each thread writes its own ID once, so the written words are distinct IDs, and they fill slots
     * 0..n-1 for n >= 32. */
    uint64_t seen = 0;
    unsigned written = 0, distinct = 1;
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t id = appended.words[i];
        if (id == 0xFFFFFFFFu)
            continue;
        written += i == written; /* a prefix */
        distinct &= id < 64 && !(seen & (1ull << (id & 63)));
        seen |= 1ull << (id & 63);
    }
    CHECK(written >= 32);
    CHECK(distinct);
    CHECK_EQ_INT(totals.words[0], 64);
    CHECK_EQ_INT(totals.words[1], 63);
    CHECK_EQ_INT(totals.words[2], 63);
    CHECK(totals.words[3] < 64); /* the one thread whose compare-exchange won */
    texel_free(&appended);
    texel_free(&totals);
    texel_free(&counter);
    d12__vkdrv_pipeline_destroy(g_device, &pipeline);
    d12_dxbc_program_free(&program);
}

static const d12test_case k_cases[] = {
    {"compile.counters_atomics", test_compile, "counters_atomics"},
    {"compile.raw_fill", test_compile, "raw_fill"},
    {"compile.spaces_sm51", test_compile, "spaces_sm51"},
    {"compile.structured_math", test_compile, "structured_math"},
    {"compile.tgsm_sync", test_compile, "tgsm_sync"},
    {"compile.typed_bits", test_compile, "typed_bits"},
    {"rewrite_checksum", test_rewrite_checksum, NULL},
    {"rewrite_magic", test_rewrite_magic, NULL},
    {"rewrite_unknown", test_rewrite_unknown, NULL},
    {"unplaced_register", test_unplaced_register, NULL},
    {"no_library", test_no_library, NULL},
    {"debug_unset", test_debug_unset, NULL},
    {"debug_kept", test_debug_kept, NULL},
    {"pipeline.counters_atomics", test_pipeline, "counters_atomics"},
    {"pipeline.raw_fill", test_pipeline, "raw_fill"},
    {"pipeline.spaces_sm51", test_pipeline, "spaces_sm51"},
    {"pipeline.structured_math", test_pipeline, "structured_math"},
    {"pipeline.tgsm_sync", test_pipeline, "tgsm_sync"},
    {"pipeline.typed_bits", test_pipeline, "typed_bits"},
    {"pipeline_root_constants", test_pipeline_root_constants, NULL},
    {"pipeline_runs", test_pipeline_runs, NULL},
    {"pipeline_runs_tgsm", test_pipeline_runs_tgsm, NULL},
    {"pipeline_runs_counters", test_pipeline_runs_counters, NULL},
};

static int setup(void)
{
    const char *library = getenv("D12RT_VULKAN_TEST_VKD3D_SHADER");
    if (!getenv("D12RT_TEST_DEBUG_CASE") && !(library && *library) && !d12__vkdrv_shader_available())
        return 77; /* no vkd3d-shader here: skipped */
    return open_vulkan();
}

int main(int argc, char **argv)
{
    /* The debug cases look at VKD3D_SHADER_DEBUG before the library is loaded: setup must not load it first. */
    if (argc == 2 && strncmp(argv[1], "debug_", 6) == 0)
        setenv("D12RT_TEST_DEBUG_CASE", "1", 1);
    int rc = d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], setup);
    close_vulkan();
    return rc;
}
