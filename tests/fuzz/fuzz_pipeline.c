/* Fuzz target: any bytes as a compute shader through CreateComputePipelineState's checks
 * (runtime/gpu/pipeline_check.h; docs/pipelines.md). The bytes are a container whose checksum is made right first
 * (so the fuzzer gets past it to the chunks); the shader read, its declared registers are checked against its own
 * RTS0 (when it has one and it parses) and against a root signature of the input's last 16 bytes' choosing.
 * Promises: the read accepts or refuses with INVALID_SHADER and a one-line text (nothing to free), never reads
 * outside the bytes (the replay copies them into an allocation of exactly their size); an accepted shader is
 * compute 5.0/5.1 and its RTS0 lies inside the bytes; the register check answers S_OK or E_INVALIDARG with
 * CS_ROOT_SIGNATURE_MISMATCH and a text. Seeds: the generated shaders (corpus/pipeline/). */
#define _DEFAULT_SOURCE
#include <stdlib.h>

#include "fuzz_input.h"
#include "pipeline_check.h"

#define NAME "fuzz_pipeline"

static void check_problem(HRESULT hr, const d12_pipeline_problem *problem, D3D12_MESSAGE_ID id)
{
    if (hr == S_OK)
        return;
    FUZZ_CHECK(NAME, hr == E_INVALIDARG && problem->id == id);
    FUZZ_CHECK(NAME, memchr(problem->text, '\0', sizeof problem->text) != NULL && problem->text[0] != '\0');
}

/* A root signature from 16 bytes: one table of up to four ranges, one root view, root constants. */
static void check_chosen(const d12_dxbc_program *program, const uint8_t *choice)
{
    D3D12_DESCRIPTOR_RANGE1 ranges[4];
    for (int i = 0; i < 4; i++)
        ranges[i] = (D3D12_DESCRIPTOR_RANGE1){(D3D12_DESCRIPTOR_RANGE_TYPE)(choice[i] & 3),
                                              choice[4 + i] == 0xFF ? UINT_MAX : choice[4 + i], choice[8 + i] & 15,
                                              (choice[i] >> 2) & 3, D3D12_DESCRIPTOR_RANGE_FLAG_NONE,
                                              D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND};
    D3D12_ROOT_PARAMETER1 params[3] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {choice[12] & 3, ranges},
         D3D12_SHADER_VISIBILITY_ALL},
        {(D3D12_ROOT_PARAMETER_TYPE)(2 + choice[13] % 3), .Descriptor = {choice[14] & 7, 0, 0},
         (D3D12_SHADER_VISIBILITY)(choice[13] >> 6)},
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {choice[15] & 3, 0, choice[15] >> 2},
         D3D12_SHADER_VISIBILITY_ALL}};
    D3D12_ROOT_SIGNATURE_DESC1 desc = {3, params, 0, NULL, 0};
    d12_pipeline_problem problem;
    check_problem(d12__pipeline_check_registers(program, &desc, &problem), &problem,
                  D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* exactly the bytes: a read past them is a report */
    FUZZ_CHECK(NAME, copy != NULL);
    memcpy(copy, data, size);
    if (size >= 32 && memcmp(copy, "DXBC", 4) == 0) {
        uint32_t sum[4];
        d12_dxbc_checksum(copy, size, sum);
        memcpy(copy + 4, sum, sizeof sum);
    }
    D3D12_SHADER_BYTECODE bytecode = {copy, size};
    d12_pipeline_shader shader;
    d12_pipeline_problem problem;
    HRESULT hr = d12__pipeline_read_shader(&bytecode, &shader, &problem);
    check_problem(hr, &problem, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER);
    if (hr == S_OK) {
        FUZZ_CHECK(NAME, shader.program.type == 5 && shader.program.major == 5 && shader.program.minor <= 1);
        FUZZ_CHECK(NAME, !shader.rts0 || ((const uint8_t *)shader.rts0 >= copy &&
                                          (const uint8_t *)shader.rts0 + shader.rts0_size <= copy + size));
        D3D12_VERSIONED_ROOT_SIGNATURE_DESC *own = NULL;
        char error[160];
        if (shader.rts0 && d12_rts0_parse(shader.rts0, shader.rts0_size, &own, error, sizeof error) == 0) {
            D3D12_VERSIONED_ROOT_SIGNATURE_DESC *converted = d12_rootsig_convert(own, D3D_ROOT_SIGNATURE_VERSION_1_1);
            FUZZ_CHECK(NAME, converted != NULL);
            check_problem(d12__pipeline_check_registers(&shader.program, &converted->Desc_1_1, &problem), &problem,
                          D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH);
            free(converted);
            free(own);
        }
        if (size >= 16)
            check_chosen(&shader.program, copy + size - 16);
        d12__pipeline_shader_free(&shader);
    }
    free(copy);
    return 0;
}
