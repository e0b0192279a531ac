/* The runtime's compute pipeline checks (runtime/gpu/pipeline_check.c, linked directly; docs/pipelines.md): the
 * bytecode (DXBC compute 5.0/5.1 accepted, NULL, broken, DXIL, not compute refused with INVALID_SHADER) and every
 * declared register against a root signature (CS_ROOT_SIGNATURE_MISMATCH), each rule with its positive twin.
 *
 *   test_pipeline_check CASE   bytecode_ok | bytecode_null | bytecode_broken | bytecode_dxil | bytecode_no_program |
 *                              root_views | visibility | typed_root_view | root_constants | table_range |
 *                              unbounded | sampler | version_1_0 | locate_offsets
 *
 * Ends with "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_main.h"
#include "d12_shaders.h"
#include "pipeline_check.h"

#define MISMATCH D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH
#define INVALID D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER

static D3D12_SHADER_BYTECODE shader(const char *name)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, name) == 0)
            return (D3D12_SHADER_BYTECODE){d12_shaders[i].code, d12_shaders[i].size};
    return (D3D12_SHADER_BYTECODE){NULL, 0};
}

/* The problem's text contains `text`, and its ID is `id`. */
static void expect_problem(HRESULT hr, const d12_pipeline_problem *problem, D3D12_MESSAGE_ID id, const char *text)
{
    CHECK_EQ_INT(hr, E_INVALIDARG);
    CHECK_EQ_INT(problem->id, id);
    if (!CHECK(strstr(problem->text, text) != NULL))
        fprintf(stderr, "    text: %s\n    wanted: %s\n", problem->text, text);
}

static void test_bytecode_ok(const void *arg)
{
    (void)arg;
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    D3D12_SHADER_BYTECODE raw_fill = shader("raw_fill");
    CHECK_EQ_INT(d12__pipeline_read_shader(&raw_fill, &s, &problem), S_OK);
    CHECK_EQ_INT(s.program.binding_count, 2);
    CHECK(s.rts0 != NULL && s.rts0_size > 0); /* raw_fill embeds its root signature */
    d12__pipeline_shader_free(&s);
    D3D12_SHADER_BYTECODE typed = shader("typed_bits");
    CHECK_EQ_INT(d12__pipeline_read_shader(&typed, &s, &problem), S_OK);
    CHECK(s.rts0 == NULL && s.rts0_size == 0);
    d12__pipeline_shader_free(&s);
    D3D12_SHADER_BYTECODE sm51 = shader("spaces_sm51");
    CHECK_EQ_INT(d12__pipeline_read_shader(&sm51, &s, &problem), S_OK);
    CHECK_EQ_INT(s.program.minor, 1);
    d12__pipeline_shader_free(&s);
}

static void test_bytecode_null(const void *arg)
{
    (void)arg;
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    D3D12_SHADER_BYTECODE none = {NULL, 100};
    expect_problem(d12__pipeline_read_shader(&none, &s, &problem), &problem, INVALID, "bytecode is NULL");
    D3D12_SHADER_BYTECODE empty = {d12_shaders[0].code, 0};
    expect_problem(d12__pipeline_read_shader(&empty, &s, &problem), &problem, INVALID, "empty (BytecodeLength 0)");
}

static void test_bytecode_broken(const void *arg)
{
    (void)arg;
    D3D12_SHADER_BYTECODE good = shader("raw_fill");
    unsigned char copy[1024];
    memcpy(copy, good.pShaderBytecode, good.BytecodeLength);
    copy[good.BytecodeLength - 8] ^= 0x40;
    D3D12_SHADER_BYTECODE broken = {copy, good.BytecodeLength};
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    expect_problem(d12__pipeline_read_shader(&broken, &s, &problem), &problem, INVALID, "no valid DXBC container");
    D3D12_SHADER_BYTECODE short_one = {good.pShaderBytecode, good.BytecodeLength - 4};
    expect_problem(d12__pipeline_read_shader(&short_one, &s, &problem), &problem, INVALID, "no valid DXBC container");
}

/* A container whose checksum is right and whose chunks are `tags` (4 bytes of data each). */
static void *container_of(const uint32_t *tags, uint32_t count, size_t *size)
{
    static const uint8_t data[4] = {1, 2, 3, 4};
    d12_dxbc_chunk chunks[4];
    for (uint32_t i = 0; i < count; i++)
        chunks[i] = (d12_dxbc_chunk){tags[i], sizeof data, data};
    return d12_dxbc_write(chunks, count, size);
}

static void test_bytecode_dxil(const void *arg)
{
    (void)arg;
    const uint32_t tags[] = {D12_DXBC_TAG('D', 'X', 'I', 'L'), D12_DXBC_TAG_ISGN, D12_DXBC_TAG_OSGN};
    size_t size;
    void *dxil = container_of(tags, 3, &size);
    D3D12_SHADER_BYTECODE bytecode = {dxil, size};
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    expect_problem(d12__pipeline_read_shader(&bytecode, &s, &problem), &problem, INVALID,
                   "the compute shader is DXIL (shader model 6)");
    free(dxil);
}

static void test_bytecode_no_program(const void *arg)
{
    (void)arg;
    const uint32_t tags[] = {D12_DXBC_TAG_ISGN, D12_DXBC_TAG_OSGN};
    size_t size;
    void *none = container_of(tags, 2, &size);
    D3D12_SHADER_BYTECODE bytecode = {none, size};
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    expect_problem(d12__pipeline_read_shader(&bytecode, &s, &problem), &problem, INVALID, "no SHEX or SHDR chunk");
    free(none);
}

/* ---- Registers ---- */

static d12_dxbc_program program_of(const char *name)
{
    d12_pipeline_shader s;
    d12_pipeline_problem problem;
    D3D12_SHADER_BYTECODE bytecode = shader(name);
    if (d12__pipeline_read_shader(&bytecode, &s, &problem) != S_OK)
        fprintf(stderr, "%s: %s\n", name, problem.text);
    return s.program;
}

static HRESULT check(const d12_dxbc_program *program, const D3D12_ROOT_PARAMETER1 *params, UINT count,
                     d12_pipeline_problem *problem)
{
    D3D12_ROOT_SIGNATURE_DESC1 desc = {count, params, 0, NULL, 0};
    return d12__pipeline_check_registers(program, &desc, problem);
}

static D3D12_ROOT_PARAMETER1 root_view(D3D12_ROOT_PARAMETER_TYPE type, UINT reg, D3D12_SHADER_VISIBILITY visibility)
{
    D3D12_ROOT_PARAMETER1 p = {type, .Descriptor = {reg, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE}, visibility};
    return p;
}

static void test_root_views(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("raw_fill"); /* cb0, u0 */
    d12_pipeline_problem problem;
    D3D12_ROOT_PARAMETER1 both[] = {root_view(D3D12_ROOT_PARAMETER_TYPE_CBV, 0, D3D12_SHADER_VISIBILITY_ALL),
                                    root_view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0, D3D12_SHADER_VISIBILITY_ALL)};
    CHECK_EQ_INT(check(&program, both, 2, &problem), S_OK);
    expect_problem(check(&program, both, 1, &problem), &problem, MISMATCH,
                   "the shader uses u0 (space 0), which no root parameter visible to the compute shader binds");
    D3D12_ROOT_PARAMETER1 wrong_kind[] = {both[0], root_view(D3D12_ROOT_PARAMETER_TYPE_SRV, 0,
                                                             D3D12_SHADER_VISIBILITY_ALL)};
    expect_problem(check(&program, wrong_kind, 2, &problem), &problem, MISMATCH, "u0 (space 0)");
    D3D12_ROOT_PARAMETER1 other_register[] = {both[0], root_view(D3D12_ROOT_PARAMETER_TYPE_UAV, 1,
                                                                 D3D12_SHADER_VISIBILITY_ALL)};
    expect_problem(check(&program, other_register, 2, &problem), &problem, MISMATCH, "u0 (space 0)");
    d12_dxbc_program_free(&program);
}

static void test_visibility(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("raw_fill");
    d12_pipeline_problem problem;
    D3D12_ROOT_PARAMETER1 params[] = {root_view(D3D12_ROOT_PARAMETER_TYPE_CBV, 0, D3D12_SHADER_VISIBILITY_PIXEL),
                                      root_view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0, D3D12_SHADER_VISIBILITY_ALL)};
    expect_problem(check(&program, params, 2, &problem), &problem, MISMATCH, "b0 (space 0)");
    params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
    CHECK_EQ_INT(check(&program, params, 2, &problem), S_OK);
    d12_dxbc_program_free(&program);
}

static void test_typed_root_view(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("typed_bits"); /* typed t0, typed u0 */
    d12_pipeline_problem problem;
    D3D12_ROOT_PARAMETER1 views[] = {root_view(D3D12_ROOT_PARAMETER_TYPE_SRV, 0, D3D12_SHADER_VISIBILITY_ALL),
                                     root_view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0, D3D12_SHADER_VISIBILITY_ALL)};
    expect_problem(check(&program, views, 2, &problem), &problem, MISMATCH,
                   "t0 (space 0) is a typed buffer, but root parameter 0 is a root descriptor, and SRV or UAV root "
                   "descriptors can only be Raw or Structured buffers");
    D3D12_DESCRIPTOR_RANGE1 ranges[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 1}};
    D3D12_ROOT_PARAMETER1 table = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {2, ranges},
                                   D3D12_SHADER_VISIBILITY_ALL};
    CHECK_EQ_INT(check(&program, &table, 1, &problem), S_OK);
    d12_dxbc_program_free(&program);
}

static void test_root_constants(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("raw_fill"); /* cb0[1]: 4 values */
    d12_pipeline_problem problem;
    D3D12_ROOT_PARAMETER1 params[] = {
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 4}, D3D12_SHADER_VISIBILITY_ALL},
        root_view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0, D3D12_SHADER_VISIBILITY_ALL)};
    CHECK_EQ_INT(check(&program, params, 2, &problem), S_OK);
    params[0].Constants.Num32BitValues = 2;
    expect_problem(check(&program, params, 2, &problem), &problem, MISMATCH,
                   "constant buffer b0 (space 0) holds 4 32-bit values, but root parameter 0 binds only 2 root "
                   "constants there");
    d12_dxbc_program_free(&program);
}

static void test_table_range(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("spaces_sm51"); /* b3 sp1, t2 sp2, u1 sp3, u4..u7 sp0 */
    d12_pipeline_problem problem;
    D3D12_DESCRIPTOR_RANGE1 ranges[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 3, 1, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0},
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 2, 2, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 1},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 1, 3, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 2},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 4, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 3},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 6, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 5}};
    D3D12_ROOT_PARAMETER1 table = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {5, ranges},
                                   D3D12_SHADER_VISIBILITY_ALL};
    CHECK_EQ_INT(check(&program, &table, 1, &problem), S_OK); /* u4..u7 from two ranges */
    ranges[4].NumDescriptors = 1; /* u7 left out */
    expect_problem(check(&program, &table, 1, &problem), &problem, MISMATCH,
                   "the shader uses u7 (space 0) of the range u4..u7");
    ranges[4].NumDescriptors = 2;
    ranges[1].RegisterSpace = 0; /* t2 in the wrong space */
    expect_problem(check(&program, &table, 1, &problem), &problem, MISMATCH, "t2 (space 2)");
    /* the shader's own RTS0 binds all of it */
    d12_pipeline_shader s;
    D3D12_SHADER_BYTECODE bytecode = shader("spaces_sm51");
    CHECK_EQ_INT(d12__pipeline_read_shader(&bytecode, &s, &problem), S_OK);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *own = NULL;
    char error[128];
    if (CHECK(s.rts0 && d12_rts0_parse(s.rts0, s.rts0_size, &own, error, sizeof error) == 0))
        CHECK_EQ_INT(d12__pipeline_check_registers(&s.program, &own->Desc_1_1, &problem), S_OK);
    free(own);
    d12__pipeline_shader_free(&s);
    d12_dxbc_program_free(&program);
}

static void test_unbounded(const void *arg)
{
    (void)arg;
    d12_dxbc_binding declared = {D12_DXBC_UAV, D12_DXBC_RESOURCE_RAW, 0, 1, 4, D12_DXBC_UNBOUNDED, 0, 0, 0, 0, 0};
    d12_dxbc_program program = {.type = 5, .major = 5, .minor = 1, .binding_count = 1, .bindings = &declared};
    D3D12_DESCRIPTOR_RANGE1 range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, UINT_MAX, 2, 1,
                                     D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE, 0};
    D3D12_ROOT_PARAMETER1 table = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range},
                                   D3D12_SHADER_VISIBILITY_ALL};
    d12_pipeline_problem problem;
    CHECK_EQ_INT(check(&program, &table, 1, &problem), S_OK);
    range.NumDescriptors = 100;
    expect_problem(check(&program, &table, 1, &problem), &problem, MISMATCH, "of the unbounded range u4..");
}

static void test_sampler(const void *arg)
{
    (void)arg;
    d12_dxbc_binding declared = {D12_DXBC_SAMPLER, D12_DXBC_RESOURCE_SAMPLER, 2, 0, 2, 2, 0, 0, 0, 0, 0};
    d12_dxbc_program program = {.type = 5, .major = 5, .binding_count = 1, .bindings = &declared};
    D3D12_STATIC_SAMPLER_DESC sampler = {.ShaderRegister = 2, .RegisterSpace = 0,
                                         .ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL};
    D3D12_ROOT_SIGNATURE_DESC1 desc = {0, NULL, 1, &sampler, 0};
    d12_pipeline_problem problem;
    CHECK_EQ_INT(d12__pipeline_check_registers(&program, &desc, &problem), S_OK);
    sampler.ShaderRegister = 1;
    expect_problem(d12__pipeline_check_registers(&program, &desc, &problem), &problem, MISMATCH, "s2 (space 0)");
    sampler.ShaderRegister = 2;
    sampler.ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
    expect_problem(d12__pipeline_check_registers(&program, &desc, &problem), &problem, MISMATCH, "s2 (space 0)");
}

/* A 1.0 description, converted as the runtime converts it (APPEND offsets: u1 is the table's second descriptor). */
static void test_version_1_0(const void *arg)
{
    (void)arg;
    d12_dxbc_program program = program_of("counters_atomics"); /* structured u0, raw u1 */
    D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND};
    D3D12_ROOT_PARAMETER table = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range},
                                  D3D12_SHADER_VISIBILITY_ALL};
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {D3D_ROOT_SIGNATURE_VERSION_1_0, .Desc_1_0 = {1, &table, 0, NULL, 0}};
    d12_pipeline_problem problem;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *converted = d12_rootsig_convert(&desc, D3D_ROOT_SIGNATURE_VERSION_1_1);
    CHECK_EQ_INT(d12__pipeline_check_registers(&program, &converted->Desc_1_1, &problem), S_OK);
    d12_rootsig_location where;
    CHECK_EQ_INT(d12_rootsig_locate(&converted->Desc_1_1, D12_DXBC_UAV, 0, 1, &where), 0);
    CHECK_EQ_INT(where.parameter, 0);
    CHECK_EQ_INT(where.table_offset, 1);
    free(converted);
    range.NumDescriptors = 1;
    converted = d12_rootsig_convert(&desc, D3D_ROOT_SIGNATURE_VERSION_1_1);
    expect_problem(d12__pipeline_check_registers(&program, &converted->Desc_1_1, &problem), &problem, MISMATCH,
                   "u1 (space 0)");
    free(converted);
    d12_dxbc_program_free(&program);
}

/* d12_rootsig_locate's table offsets: explicit offsets, APPEND after them, the first matching parameter. */
static void test_locate_offsets(const void *arg)
{
    (void)arg;
    D3D12_DESCRIPTOR_RANGE1 ranges[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 10},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 3, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE,
         D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND}};
    D3D12_ROOT_PARAMETER1 params[] = {
        {D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {7, 0, 0}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {2, ranges}, D3D12_SHADER_VISIBILITY_ALL}};
    D3D12_ROOT_SIGNATURE_DESC1 desc = {2, params, 0, NULL, 0};
    d12_rootsig_location where;
    CHECK_EQ_INT(d12_rootsig_locate(&desc, D12_DXBC_SRV, 0, 2, &where), 0);
    CHECK_EQ_INT(where.parameter, 1);
    CHECK_EQ_INT(where.range, 0);
    CHECK_EQ_INT(where.table_offset, 12);
    CHECK_EQ_INT(d12_rootsig_locate(&desc, D12_DXBC_UAV, 0, 4, &where), 0);
    CHECK_EQ_INT(where.range, 1);
    CHECK_EQ_INT(where.table_offset, 15); /* APPEND: after 10..13, then u3 -> 14, u4 -> 15 */
    CHECK_EQ_INT(d12_rootsig_locate(&desc, D12_DXBC_UAV, 0, 7, &where), 0);
    CHECK_EQ_INT(where.parameter, 0);
    CHECK_EQ_INT(where.type, D3D12_ROOT_PARAMETER_TYPE_UAV);
    CHECK_EQ_INT(d12_rootsig_locate(&desc, D12_DXBC_UAV, 0, 5, &where), -1);
    CHECK_EQ_INT(d12_rootsig_locate(&desc, D12_DXBC_CBV, 0, 7, &where), -1);
}

static const d12test_case k_cases[] = {
    {"bytecode_ok", test_bytecode_ok, NULL},
    {"bytecode_null", test_bytecode_null, NULL},
    {"bytecode_broken", test_bytecode_broken, NULL},
    {"bytecode_dxil", test_bytecode_dxil, NULL},
    {"bytecode_no_program", test_bytecode_no_program, NULL},
    {"root_views", test_root_views, NULL},
    {"visibility", test_visibility, NULL},
    {"typed_root_view", test_typed_root_view, NULL},
    {"root_constants", test_root_constants, NULL},
    {"table_range", test_table_range, NULL},
    {"unbounded", test_unbounded, NULL},
    {"sampler", test_sampler, NULL},
    {"version_1_0", test_version_1_0, NULL},
    {"locate_offsets", test_locate_offsets, NULL},
};

int main(int argc, char **argv)
{
    return d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], NULL);
}
