/* vkd3d-shader 1.2 at run time (vkdrv_shader.h, docs/pipelines.md). The library is dlopen()ed, not linked: a
 * system without it still runs every copy and every check kernel, and only the application's shaders are refused
 * (issue 31: "without it the driver reports no shader support and says so once"). */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_shader.h"

typedef struct vkd3d_shader_api {
    PFN_vkd3d_shader_compile compile;
    PFN_vkd3d_shader_free_shader_code free_code;
    PFN_vkd3d_shader_free_messages free_messages;
} vkd3d_shader_api;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static vkd3d_shader_api g_api; /* written once under g_once, read-only after */
static bool g_loaded;

static bool resolve(void *library, const char *name, void **slot)
{
    *slot = dlsym(library, name);
    if (!*slot)
        fprintf(stderr, "d12rt Vulkan driver: %s lacks %s: no shader support (pipeline states are refused)\n",
                D12_VKDRV_SHADER_LIBRARY, name);
    return *slot != NULL;
}

static void load(void)
{
    const char *name = getenv("D12RT_VULKAN_TEST_VKD3D_SHADER");
    void *library = dlopen(name && *name ? name : D12_VKDRV_SHADER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "d12rt Vulkan driver: %s could not be loaded (%s): no shader support (pipeline states are "
                        "refused; install libvkd3d-shader1)\n", D12_VKDRV_SHADER_LIBRARY, dlerror());
        return;
    }
    vkd3d_shader_api api;
    if (!resolve(library, "vkd3d_shader_compile", (void **)&api.compile) ||
        !resolve(library, "vkd3d_shader_free_shader_code", (void **)&api.free_code) ||
        !resolve(library, "vkd3d_shader_free_messages", (void **)&api.free_messages)) {
        dlclose(library);
        return;
    }
    /* vkd3d-shader prints `fixme:` lines for what it does not translate fully; the user's own setting wins. Set
     * here, before the first compile: the library reads the variable at its first message. The handle is kept
     * for the process's life (the driver may be unloaded and loaded again; the entry points stay valid). */
    const char *debug = getenv("VKD3D_SHADER_DEBUG");
    if (!debug || !*debug) /* unset, or set to nothing (which vkd3d-shader reads as its default) */
        setenv("VKD3D_SHADER_DEBUG", "none", 1);
    g_api = api;
    g_loaded = true;
}

bool d12__vkdrv_shader_available(void)
{
    pthread_once(&g_once, load);
    return g_loaded;
}

/* ---- The descriptor mapping ---- */

static const char *kind_letter(d12_dxbc_binding_kind kind)
{
    static const char *const k_letters[] = {"b", "t", "u", "s"};
    return (unsigned)kind < 4 ? k_letters[kind] : "?";
}

static enum vkd3d_shader_descriptor_type descriptor_type(d12_dxbc_binding_kind kind)
{
    switch (kind) {
    case D12_DXBC_CBV: return VKD3D_SHADER_DESCRIPTOR_TYPE_CBV;
    case D12_DXBC_SRV: return VKD3D_SHADER_DESCRIPTOR_TYPE_SRV;
    case D12_DXBC_UAV: return VKD3D_SHADER_DESCRIPTOR_TYPE_UAV;
    default: return VKD3D_SHADER_DESCRIPTOR_TYPE_SAMPLER;
    }
}

/* One declaration, placed: a push-constant range, or a binding (and its counter's). */
static void place_one(d12__vkdrv_shader_interface *out, const d12_dxbc_binding *b, const d12__vkdrv_shader_slot *slot)
{
    struct vkd3d_shader_interface_info *info = &out->info;
    if (slot->push_constants) {
        out->push_constants[info->push_constant_buffer_count++] = (struct vkd3d_shader_push_constant_buffer){
            b->space, b->lower, VKD3D_SHADER_VISIBILITY_ALL, slot->offset, slot->size};
        return;
    }
    unsigned flags = b->kind == D12_DXBC_SAMPLER ? 0 : VKD3D_SHADER_BINDING_FLAG_BUFFER;
    out->bindings[info->binding_count++] = (struct vkd3d_shader_resource_binding){
        descriptor_type(b->kind), b->space, b->lower, VKD3D_SHADER_VISIBILITY_ALL, flags, {slot->set, slot->binding, 1}};
    if (b->kind == D12_DXBC_UAV && (b->flags & D12_DXBC_COUNTER_USED))
        out->counters[info->uav_counter_count++] = (struct vkd3d_shader_uav_counter_binding){
            b->space, b->lower, VKD3D_SHADER_VISIBILITY_ALL, {slot->counter_set, slot->counter_binding, 1}, 0};
}

VkDescriptorType d12__vkdrv_shader_descriptor_type(const d12_dxbc_binding *declared)
{
    switch (declared->kind) {
    case D12_DXBC_CBV: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case D12_DXBC_SRV: return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    case D12_DXBC_UAV: return VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    default: return VK_DESCRIPTOR_TYPE_SAMPLER;
    }
}

int d12__vkdrv_shader_interface_build(const d12_dxbc_program *program, d12__vkdrv_shader_place_fn place,
                                      void *context, d12__vkdrv_shader_interface *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->info.type = VKD3D_SHADER_STRUCTURE_TYPE_INTERFACE_INFO;
    out->info.bindings = out->bindings;
    out->info.push_constant_buffers = out->push_constants;
    out->info.uav_counters = out->counters;
    /* Storage texel buffers for every buffer UAV, as libvkd3d 1.2 itself uses them: vkd3d-shader 1.2's storage-buffer
     * mode turns typed UAVs into storage buffers too and then emits an invalid OpBitcast for their loads (spirv-val:
     * "Expected input to have the same total bit width"; test_vkdrv_shader compile.typed_bits showed it). */
    out->option = (struct vkd3d_shader_compile_option){VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV,
                                                       VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV_STORAGE_TEXEL_BUFFER};
    if (program->binding_count > D12_VKDRV_SHADER_MAX_BINDINGS) {
        snprintf(why, why_size, "the shader declares %u registers; the driver maps at most %u",
                 program->binding_count, D12_VKDRV_SHADER_MAX_BINDINGS);
        return -1;
    }
    for (uint32_t i = 0; i < program->binding_count; i++) {
        const d12_dxbc_binding *b = &program->bindings[i];
        if (b->lower != b->upper) { /* vkd3d-shader 1.2 compiles a range as its first register, silently */
            snprintf(why, why_size, "%s%u (space %u) is declared as a range of %s registers; the shader compiler "
                     "(vkd3d-shader 1.2) cannot index descriptor arrays", kind_letter(b->kind), b->lower, b->space,
                     b->upper == D12_DXBC_UNBOUNDED ? "unbounded" : "several");
            return -1;
        }
        d12__vkdrv_shader_slot slot = {0};
        if (!place(context, b, &slot)) {
            snprintf(why, why_size, "%s%u (space %u) has no place in the root signature", kind_letter(b->kind),
                     b->lower, b->space);
            return -1;
        }
        place_one(out, b, &slot);
    }
    return 0;
}

/* vkd3d-shader 1.2's error numbers (its vkd3d_shader_private.h, enum vkd3d_shader_error) in D3D12 words. */
static const struct {
    unsigned code;
    const char *text;
} k_errors[] = {
    {1, "the DXBC container's size is wrong (truncated, or its header's size disagrees with the bytecode length)"},
    {2, "the bytecode is no DXBC container (its magic is not 'DXBC'; DXIL containers of shader model 6 also start "
        "so, but this one does not)"},
    {3, "the DXBC container's checksum does not match its contents (the bytecode was modified after compilation)"},
    {4, "the DXBC container's version is not 1"},
    {5, "a chunk offset of the DXBC container points outside it"},
    {6, "a chunk of the DXBC container runs past its end"},
    {1000, "the shader's control flow is unbalanced (if/loop/switch without its end)"},
    {2000, "a register the shader uses has no binding in the root signature"},
    {2001, "the shader uses a register type the driver cannot translate"},
    {2002, "the root signature maps a register to a binding the driver cannot use"},
    {2003, "the shader indexes a descriptor array, which this shader compiler cannot translate"},
};

void d12__vkdrv_shader_rewrite_message(const char *line, char *out, size_t out_size)
{
    /* "SOURCE: E0003: Text." (1.2 has no line numbers for DXBC); anything else passes through, prefixed. */
    const char *e = strstr(line, ": E");
    unsigned code = 0;
    int used = 0;
    if (e && sscanf(e, ": E%4u:%n", &code, &used) == 1 && used > 0) {
        for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++) {
            if (k_errors[i].code == code) {
                snprintf(out, out_size, "%s (vkd3d-shader E%04u)", k_errors[i].text, code);
                return;
            }
        }
        const char *text = e + used;
        while (*text == ' ')
            text++;
        snprintf(out, out_size, "the shader compiler (vkd3d-shader 1.2) refused the bytecode: %s (E%04u)", text, code);
        return;
    }
    snprintf(out, out_size, "the shader compiler (vkd3d-shader 1.2) said: %s", line);
}

/* Every line of `messages` rewritten, joined with "; " into `why`. */
static void rewrite_all(const char *messages, int result, char *why, size_t why_size)
{
    size_t at = 0;
    why[0] = '\0';
    for (const char *line = messages; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char copy[512], rewritten[640];
        snprintf(copy, sizeof copy, "%.*s", (int)length, line);
        if (length > 0 && at < why_size) {
            d12__vkdrv_shader_rewrite_message(copy, rewritten, sizeof rewritten);
            at += (size_t)snprintf(why + at, why_size - at, "%s%s", at ? "; " : "", rewritten);
        }
        line = end ? end + 1 : line + length;
    }
    if (why[0] == '\0')
        snprintf(why, why_size, "the shader compiler (vkd3d-shader 1.2) refused the bytecode without saying why "
                                "(vkd3d_result %d; a DXIL container of shader model 6 is refused so)", result);
}

int d12__vkdrv_shader_compile(const void *dxbc, size_t size, const d12__vkdrv_shader_interface *iface,
                              struct vkd3d_shader_code *spirv, char *why, size_t why_size)
{
    memset(spirv, 0, sizeof *spirv);
    if (!d12__vkdrv_shader_available()) {
        snprintf(why, why_size, "%s is not installed: the Vulkan driver runs no shader", D12_VKDRV_SHADER_LIBRARY);
        return VKD3D_ERROR_NOT_IMPLEMENTED;
    }
    struct vkd3d_shader_spirv_target_info target = {
        .type = VKD3D_SHADER_STRUCTURE_TYPE_SPIRV_TARGET_INFO, .next = &iface->info, .entry_point = "main",
        .environment = VKD3D_SHADER_SPIRV_ENVIRONMENT_VULKAN_1_0};
    struct vkd3d_shader_compile_info info = {
        .type = VKD3D_SHADER_STRUCTURE_TYPE_COMPILE_INFO, .next = &target, .source = {dxbc, size},
        .source_type = VKD3D_SHADER_SOURCE_DXBC_TPF, .target_type = VKD3D_SHADER_TARGET_SPIRV_BINARY,
        .options = &iface->option, .option_count = 1, .log_level = VKD3D_SHADER_LOG_ERROR,
        .source_name = "shader"};
    char *messages = NULL;
    int result = g_api.compile(&info, spirv, &messages);
    if (result < 0) {
        rewrite_all(messages, result, why, why_size);
        memset(spirv, 0, sizeof *spirv);
    } else if (why_size > 0) {
        why[0] = '\0';
    }
    if (messages)
        g_api.free_messages(messages);
    return result;
}

void d12__vkdrv_shader_free(struct vkd3d_shader_code *spirv)
{
    if (spirv->code && g_loaded)
        g_api.free_code(spirv);
    memset(spirv, 0, sizeof *spirv);
}
