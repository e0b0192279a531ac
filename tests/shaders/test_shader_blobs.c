/* Every generated shader (generated/shaders/, from spec/shaders/NAME.asm) proven outside the project: the DXBC reader
 * (runtime/dxbc) accepts its container and checksum and reads its declarations; vkd3d-shader 1.2 accepts it (so
 * the checksum is right by an independent implementation) and compiles it to SPIR-V that `spirv-val
 * --target-env vulkan1.0` accepts; a container with one flipped byte is refused by both.
 *
 *     test_shader_blobs NAME     one shader (ctest shaders.blob.NAME); exit 77 (skipped) without libvkd3d-shader
 *     test_shader_blobs --list   the names */
#define _GNU_SOURCE
#include "harness.h"
#include "vkd3d_shader_dl.h"

#include "d12_shaders.h"
#include "dxbc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static d12_vkd3d_shader vk;

/* The scan's descriptors as bindings: each in set 0 at its own binding (count 1: what vkd3d-shader 1.2 can do). */
static int compile(const void *code, size_t size, struct vkd3d_shader_code *spirv)
{
    struct vkd3d_shader_scan_descriptor_info scan = {.type = VKD3D_SHADER_STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO};
    struct vkd3d_shader_compile_info info = {.type = VKD3D_SHADER_STRUCTURE_TYPE_COMPILE_INFO, .next = &scan,
                                             .source = {code, size}, .source_type = VKD3D_SHADER_SOURCE_DXBC_TPF,
                                             .target_type = VKD3D_SHADER_TARGET_SPIRV_BINARY,
                                             .log_level = VKD3D_SHADER_LOG_WARNING, .source_name = "blob"};
    char *messages = NULL;
    int rc = vk.scan(&info, &messages);
    vk.free_messages(messages);
    if (rc < 0)
        return rc;
    struct vkd3d_shader_resource_binding bindings[64];
    struct vkd3d_shader_uav_counter_binding counters[16];
    unsigned count = 0, counter_count = 0;
    for (unsigned i = 0; i < scan.descriptor_count && count < 64; i++) {
        const struct vkd3d_shader_descriptor_info *d = &scan.descriptors[i];
        bindings[count] = (struct vkd3d_shader_resource_binding){
            d->type, d->register_space, d->register_index, VKD3D_SHADER_VISIBILITY_ALL,
            d->resource_type == VKD3D_SHADER_RESOURCE_BUFFER ? VKD3D_SHADER_BINDING_FLAG_BUFFER
                                                             : VKD3D_SHADER_BINDING_FLAG_IMAGE,
            {0, count, 1}};
        count++;
        if ((d->flags & VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_UAV_COUNTER) && counter_count < 16) {
            counters[counter_count] = (struct vkd3d_shader_uav_counter_binding){
                d->register_space, d->register_index, VKD3D_SHADER_VISIBILITY_ALL, {1, counter_count, 1}, 0};
            counter_count++;
        }
    }
    struct vkd3d_shader_interface_info iface = {.type = VKD3D_SHADER_STRUCTURE_TYPE_INTERFACE_INFO,
                                                .bindings = bindings, .binding_count = count,
                                                .uav_counters = counters, .uav_counter_count = counter_count};
    struct vkd3d_shader_spirv_target_info target = {.type = VKD3D_SHADER_STRUCTURE_TYPE_SPIRV_TARGET_INFO,
                                                    .next = &iface, .entry_point = "main",
                                                    .environment = VKD3D_SHADER_SPIRV_ENVIRONMENT_VULKAN_1_0};
    info.next = &target;
    rc = vk.compile(&info, spirv, &messages);
    if (messages && rc < 0)
        fprintf(stderr, "vkd3d-shader: %s\n", messages);
    vk.free_messages(messages);
    vk.free_scan(&scan);
    return rc;
}

static int spirv_val(const struct vkd3d_shader_code *spirv, const char *name)
{
    char path[] = "/tmp/d12-shader-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    int ok = write(fd, spirv->code, spirv->size) == (ssize_t)spirv->size;
    close(fd);
    char command[256];
    snprintf(command, sizeof command, "spirv-val --target-env vulkan1.0 %s", path);
    int rc = ok ? system(command) : -1;
    unlink(path);
    if (rc != 0)
        fprintf(stderr, "%s: spirv-val refused the SPIR-V (exit %d)\n", name, rc);
    return rc;
}

/* What the reader must find in each shader (its .asm file's declarations). */
static void check_declarations(const d12_shader_blob *blob, const d12_dxbc_program *p)
{
    CHECK_EQ_INT(p->type, 5);
    CHECK_EQ_INT(p->major, 5);
    CHECK_EQ_INT(p->minor, strcmp(blob->profile, "cs_5_1") == 0 ? 1 : 0);
    CHECK(p->thread_group[0] * p->thread_group[1] * p->thread_group[2] > 0);
    CHECK(p->instruction_count > 0);
    CHECK_EQ_INT(p->global_flags, 1); /* refactoringAllowed in every file */
    if (strcmp(blob->name, "raw_fill") == 0) {
        CHECK_EQ_INT(p->binding_count, 2);
        CHECK_EQ_INT(p->bindings[0].kind, D12_DXBC_CBV);
        CHECK_EQ_INT(p->bindings[0].size, 1);
        CHECK_EQ_INT(p->bindings[1].kind, D12_DXBC_UAV);
        CHECK_EQ_INT(p->bindings[1].resource, D12_DXBC_RESOURCE_RAW);
        CHECK_EQ_INT(p->thread_group[0], 64);
        CHECK_EQ_INT(p->temps, 2);
        CHECK_EQ_INT(p->inputs, 1); /* vThreadID */
    } else if (strcmp(blob->name, "spaces_sm51") == 0) {
        CHECK_EQ_INT(p->binding_count, 4);
        const d12_dxbc_binding *b = p->bindings;
        CHECK(b[0].kind == D12_DXBC_CBV && b[0].id == 0 && b[0].lower == 3 && b[0].upper == 3 && b[0].space == 1);
        CHECK_EQ_INT(b[0].size, 2);
        CHECK(b[1].kind == D12_DXBC_SRV && b[1].lower == 2 && b[1].space == 2 && b[1].stride == 4);
        CHECK(b[2].kind == D12_DXBC_UAV && b[2].id == 0 && b[2].lower == 1 && b[2].space == 3);
        CHECK(b[3].kind == D12_DXBC_UAV && b[3].id == 1 && b[3].lower == 4 && b[3].upper == 7 && b[3].space == 0);
    } else if (strcmp(blob->name, "counters_atomics") == 0) {
        CHECK_EQ_INT(p->binding_count, 2);
        CHECK_EQ_INT(p->bindings[0].stride, 4);
        CHECK(p->bindings[0].flags & D12_DXBC_COUNTER_USED);
        CHECK(!(p->bindings[1].flags & D12_DXBC_COUNTER_USED));
    } else if (strcmp(blob->name, "tgsm_sync") == 0) {
        CHECK_EQ_INT(p->tgsm_count, 2);
        CHECK_EQ_INT(p->tgsm[0].bytes, 256);
        CHECK_EQ_INT(p->tgsm[1].stride, 4);
        CHECK_EQ_INT(p->tgsm[1].bytes, 256);
        CHECK(p->bindings[0].flags & D12_DXBC_GLOBALLY_COHERENT);
        CHECK_EQ_INT(p->inputs, (1u << 4) | (1u << 1)); /* flattened index, group ID */
    } else if (strcmp(blob->name, "typed_bits") == 0) {
        CHECK_EQ_INT(p->bindings[0].resource, D12_DXBC_RESOURCE_TYPED);
        CHECK_EQ_INT(p->bindings[0].dimension, 1);
        CHECK_EQ_INT(p->bindings[0].return_type, 0x4444); /* uint x4 */
    }
}

static void check_blob(const d12_shader_blob *blob)
{
    d12_dxbc dxbc;
    char error[160] = "";
    CHECK_EQ_INT(d12_dxbc_parse(blob->code, blob->size, &dxbc, error, sizeof error), 0);
    CHECK(d12_dxbc_find(&dxbc, D12_DXBC_TAG_ISGN) && d12_dxbc_find(&dxbc, D12_DXBC_TAG_OSGN));
    CHECK_EQ_INT(d12_dxbc_find(&dxbc, D12_DXBC_TAG_RTS0) != NULL, blob->has_root_signature);
    d12_dxbc_program program;
    if (CHECK(d12_dxbc_program_parse(&dxbc, &program, error, sizeof error) == 0))
        check_declarations(blob, &program);
    else
        fprintf(stderr, "%s: %s\n", blob->name, error);
    d12_dxbc_program_free(&program);

    struct vkd3d_shader_code spirv = {0};
    int rc = compile(blob->code, blob->size, &spirv);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK(spirv.size > 20 && ((const uint32_t *)spirv.code)[0] == 0x07230203); /* SPIR-V magic */
        CHECK_EQ_INT(spirv_val(&spirv, blob->name), 0);
        vk.free_code(&spirv);
    }

    /* One flipped byte past the checksum: both refuse it. */
    unsigned char *copy = malloc(blob->size);
    memcpy(copy, blob->code, blob->size);
    copy[blob->size - 5] ^= 0x10;
    CHECK_EQ_INT(d12_dxbc_parse(copy, blob->size, &dxbc, error, sizeof error), -1);
    CHECK_EQ_STR(error, "DXBC: checksum mismatch");
    struct vkd3d_shader_code refused = {0};
    CHECK(compile(copy, blob->size, &refused) < 0);
    free(copy);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (unsigned i = 0; i < D12_SHADER_COUNT; i++)
            printf("%s\n", d12_shaders[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_shader_blobs NAME | --list\n");
        return 2;
    }
    if (d12_vkd3d_shader_load(&vk))
        return D12_TEST_SKIP;
    for (unsigned i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, argv[1]) == 0) {
            check_blob(&d12_shaders[i]);
            return d12test_finish();
        }
    fprintf(stderr, "test_shader_blobs: no shader '%s'\n", argv[1]);
    return 2;
}
