/* libvkd3d-shader.so.1 loaded at run time (as the Vulkan driver loads it): the few entry points the shader and
 * root-signature tests use as their oracle. d12_vkd3d_shader_load() returns 0, or -1 when the library is absent
 * (the test then exits 77: skipped). */
#ifndef D12_TEST_VKD3D_SHADER_DL_H
#define D12_TEST_VKD3D_SHADER_DL_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <vkd3d_shader.h>

#define D12_TEST_SKIP 77

typedef struct d12_vkd3d_shader {
    PFN_vkd3d_shader_compile compile;
    PFN_vkd3d_shader_scan scan;
    PFN_vkd3d_shader_free_scan_descriptor_info free_scan;
    PFN_vkd3d_shader_free_shader_code free_code;
    PFN_vkd3d_shader_free_messages free_messages;
    PFN_vkd3d_shader_serialize_root_signature serialize_root_signature;
    PFN_vkd3d_shader_parse_root_signature parse_root_signature;
    PFN_vkd3d_shader_free_root_signature free_root_signature;
    PFN_vkd3d_shader_convert_root_signature convert_root_signature;
} d12_vkd3d_shader;

static inline int d12_vkd3d_shader_load(d12_vkd3d_shader *v)
{
    void *lib = dlopen("libvkd3d-shader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("skipped: libvkd3d-shader.so.1 is not installed (%s)\n", dlerror());
        return -1;
    }
    setenv("VKD3D_SHADER_DEBUG", "none", 0); /* its fixme: lines */
#define D12_LOAD(field, name)                                                                                    \
    if (!(*(void **)&v->field = dlsym(lib, name))) {                                                             \
        printf("skipped: libvkd3d-shader.so.1 lacks %s\n", name);                                               \
        return -1;                                                                                               \
    }
    D12_LOAD(compile, "vkd3d_shader_compile")
    D12_LOAD(scan, "vkd3d_shader_scan")
    D12_LOAD(free_scan, "vkd3d_shader_free_scan_descriptor_info")
    D12_LOAD(free_code, "vkd3d_shader_free_shader_code")
    D12_LOAD(free_messages, "vkd3d_shader_free_messages")
    D12_LOAD(serialize_root_signature, "vkd3d_shader_serialize_root_signature")
    D12_LOAD(parse_root_signature, "vkd3d_shader_parse_root_signature")
    D12_LOAD(free_root_signature, "vkd3d_shader_free_root_signature")
    D12_LOAD(convert_root_signature, "vkd3d_shader_convert_root_signature")
#undef D12_LOAD
    return 0;
}

#endif
