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
 *
 * Ends with "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_main.h"
#include "d12_shaders.h"
#include "vkdrv_shader.h"
#include "vulkan/stderr_capture.h"

static VkInstance g_instance;
static VkDevice g_device;

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
    return vkCreateDevice(physical, &device, NULL, &g_device) == VK_SUCCESS ? 0 : 1;
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
