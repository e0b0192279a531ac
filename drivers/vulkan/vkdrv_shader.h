/* The Vulkan driver's shader compiler (docs/pipelines.md): DXBC (shader model 5.0/5.1) to SPIR-V through
 * vkd3d-shader 1.2, loaded at run time. It owns the library's handle and entry points, the one line that says
 * the library is missing, VKD3D_SHADER_DEBUG, and the rewriting of vkd3d-shader's messages into D3D12 terms. It
 * calls nothing else of the driver: the descriptor mapping (vkd3d_shader_interface_info) comes from the caller,
 * which builds it from the root signature's layout, so this file stands alone and its tests link it directly.
 *
 * Environment:
 *   VKD3D_SHADER_DEBUG             set to `none` before the first compile when unset (vkd3d-shader's `fixme:`
 *                                  lines on stderr); a value the user set is kept
 *   D12RT_VULKAN_TEST_VKD3D_SHADER=NAME  test hook: the library to load instead of libvkd3d-shader.so.1 (a
 *                                  missing name shows the driver without shader support)
 */
#ifndef D12_VKDRV_SHADER_H
#define D12_VKDRV_SHADER_H

#include <stdbool.h>
#include <stddef.h>

#include <vkd3d_shader.h>
#include <vulkan/vulkan.h>

#include "dxbc.h"

#define D12_VKDRV_SHADER_LIBRARY "libvkd3d-shader.so.1"

/* Whether vkd3d-shader loaded (the first call loads it, once per process; without it, one line on stderr says so
 * and every later call answers false at once). */
bool d12__vkdrv_shader_available(void);


/* ---- The descriptor mapping ---- */

/* Where the pipeline layout puts one register: a descriptor (set, binding), or, for a constant buffer of root
 * constants, push constants (offset and size in bytes). A UAV whose counter the shader uses also names the
 * counter's binding (a storage texel buffer of one R32_UINT). */
typedef struct d12__vkdrv_shader_slot {
    bool push_constants;
    unsigned set, binding;
    unsigned offset, size;
    unsigned counter_set, counter_binding;
} d12__vkdrv_shader_slot;

/* The layout's answer for one declared register (`declared->lower` in `declared->space`; its resource kind says
 * which Vulkan descriptor type the SPIR-V expects: d12__vkdrv_shader_descriptor_type): true with *slot filled,
 * false when the layout has no place for it (the root signature does not cover it). */
typedef bool (*d12__vkdrv_shader_place_fn)(void *context, const d12_dxbc_binding *declared,
                                           d12__vkdrv_shader_slot *slot);

/* The Vulkan descriptor type the compiled SPIR-V declares for a register (see d12__vkdrv_shader_interface). */
VkDescriptorType d12__vkdrv_shader_descriptor_type(const d12_dxbc_binding *declared);

#define D12_VKDRV_SHADER_MAX_BINDINGS 128

/* vkd3d_shader_interface_info and the arrays it points at, for one shader. Every buffer UAV is a storage texel
 * buffer and every buffer SRV a uniform texel buffer (raw and structured ones as R32_UINT: what vkd3d-shader 1.2
 * compiles correctly, and what libvkd3d 1.2 binds), a UAV counter a storage texel buffer of one R32_UINT, a CBV a
 * uniform buffer. Not movable once built (info points into it). */
typedef struct d12__vkdrv_shader_interface {
    struct vkd3d_shader_interface_info info;
    struct vkd3d_shader_compile_option option;
    struct vkd3d_shader_resource_binding bindings[D12_VKDRV_SHADER_MAX_BINDINGS];
    struct vkd3d_shader_push_constant_buffer push_constants[D12_VKDRV_SHADER_MAX_BINDINGS];
    struct vkd3d_shader_uav_counter_binding counters[D12_VKDRV_SHADER_MAX_BINDINGS];
} d12__vkdrv_shader_interface;

/* Every register `program` declares, placed by `place`. 0, or -1 with `why` naming the register the layout has no
 * place for, or a declaration of more than one register (vkd3d-shader 1.2 would compile it as one: refused). */
int d12__vkdrv_shader_interface_build(const d12_dxbc_program *program, d12__vkdrv_shader_place_fn place,
                                      void *context, d12__vkdrv_shader_interface *out, char *why, size_t why_size);

/* ---- Compiling ---- */

/* DXBC → SPIR-V (entry point "main", Vulkan 1.0 environment) with `iface` (d12__vkdrv_shader_interface_build)
 * mapping every register the shader uses; *spirv is freed with d12__vkdrv_shader_free. On failure: a vkd3d_result (negative), *spirv empty and `why`
 * holding what went wrong in D3D12 terms (vkd3d-shader's messages rewritten, one sentence each). */
int d12__vkdrv_shader_compile(const void *dxbc, size_t size, const d12__vkdrv_shader_interface *iface,
                              struct vkd3d_shader_code *spirv, char *why, size_t why_size);
void d12__vkdrv_shader_free(struct vkd3d_shader_code *spirv);

/* One line of vkd3d-shader's messages ("NAME: E0003: Invalid DXBC checksum.") in D3D12 terms, into `out`. */
void d12__vkdrv_shader_rewrite_message(const char *line, char *out, size_t out_size);

#endif
