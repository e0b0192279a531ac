/* Pipeline states and shader execution through the public API (issue 31; docs/pipelines.md), on whichever driver
 * D12RT_DRIVER names (tests/pipelines/CMakeLists.txt runs each case on the drivers it is meant for).
 *
 *   test_pipelines CASE
 *     executes_false        CheckFeatureSupport(D3D12_FEATURE_D12RT_SHADER_EXECUTION) is FALSE (the reference driver;
 *                           the Vulkan driver without vkd3d-shader, which says so once on stderr)
 *     executes_true         ... is TRUE (the Vulkan driver with vkd3d-shader), and CheckFeatureSupport1 agrees
 *     executes_bad_size     a NULL pointer or a size other than the struct's: E_INVALIDARG and the message
 *     create_refusals       CreateComputePipelineState refuses NULL, broken and DXIL bytecode, a vertex-less
 *                           non-shader, no root signature at all, and an RTS0 that does not bind a register: each
 *                           E_INVALIDARG with its CREATECOMPUTEPIPELINESTATE_* message
 *     create_checks_pass    raw_fill with its own RTS0 passes every check: no CREATECOMPUTEPIPELINESTATE_* message
 *     stream_refusals       the stream form: zero size, a subobject cut short, an unknown and a duplicate subobject,
 *                           no shader, a broken CS (CreateComputePipelineState's check under the stream's name)
 *     stream_compute        a compute stream (root signature NULL, raw_fill, node mask) passes every check
 *
 * Ends with "N passed, N failed". */
#define COBJMACROS
#define _POSIX_C_SOURCE 200809L
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12rt/d3d12_ext.h"

#include "case_main.h"
#include "d12_shaders.h"
#include "dxbc.h"
#include "vulkan/stderr_capture.h"

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;

static int setup(void)
{
    ID3D12Debug *debug = NULL;
    if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))) {
        ID3D12Debug_EnableDebugLayer(debug);
        ID3D12Debug_Release(debug);
    }
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g_device))) {
        fprintf(stderr, "D3D12CreateDevice failed\n");
        return 1;
    }
    ID3D12Device_QueryInterface(g_device, &IID_ID3D12InfoQueue, (void **)&g_info);
    return 0;
}

/* How many stored messages contain `text`. */
static unsigned stored_containing(const char *text)
{
    unsigned found = 0;
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *m = malloc(size);
        if (m && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, m, &size)) && strstr(m->pDescription, text))
            found++;
        free(m);
    }
    return found;
}

static BOOL executes(HRESULT *hr)
{
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data = {(BOOL)0x55};
    *hr = ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, &data, sizeof data);
    return data.ExecutesShaders;
}

static void test_executes_false(const void *arg)
{
    (void)arg;
    /* The Vulkan driver loads vkd3d-shader at the first question: its one line on stderr is said then, once. */
    stderr_capture capture;
    bool capturing = stderr_capture_begin(&capture);
    HRESULT hr;
    BOOL first = executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(first, FALSE);
    BOOL second = executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(second, FALSE);
    static char text[4096];
    stderr_capture_end(&capture, text, sizeof text);
    const char *vulkan = getenv("D12RT_VULKAN_TEST_VKD3D_SHADER");
    if (capturing && vulkan && *vulkan) {
        const char *said = strstr(text, "no shader support");
        CHECK(said != NULL);
        CHECK(said == NULL || strstr(said + 1, "no shader support") == NULL); /* once */
    }
}

static void test_executes_true(const void *arg)
{
    (void)arg;
    HRESULT hr;
    CHECK_EQ_INT(executes(&hr), TRUE);
    CHECK_EQ_INT(hr, S_OK);
    ID3D12Device17 *device17 = NULL;
    if (CHECK(SUCCEEDED(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device17, (void **)&device17)))) {
        D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data = {FALSE};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device17, D3D12_FEATURE_D12RT_SHADER_EXECUTION, &data,
                                                         sizeof data, D3D12_SDK_VERSION),
                     S_OK);
        CHECK_EQ_INT(data.ExecutesShaders, TRUE);
        ID3D12Device17_Release(device17);
    }
}

static void test_executes_bad_size(const void *arg)
{
    (void)arg;
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data[2] = {{(BOOL)0x55}, {(BOOL)0x55}};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, data, sizeof data),
                 E_INVALIDARG);
    CHECK_EQ_INT(data[0].ExecutesShaders, 0x55); /* untouched */
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, NULL, 4),
                 E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("(D3D12_FEATURE_D12RT_SHADER_EXECUTION): pFeatureSupportData is NULL or "
                                   "FeatureSupportDataSize 8 is not 4"),
                 1);
    CHECK_EQ_INT(stored_containing("(D3D12_FEATURE_D12RT_SHADER_EXECUTION): pFeatureSupportData is NULL or "
                                   "FeatureSupportDataSize 4 is not 4"),
                 1);
    /* the positive twin: the struct's size is answered, whatever the driver */
    HRESULT hr;
    (void)executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
}

/* ---- CreateComputePipelineState's checks ---- */

static const d12_shader_blob *blob_named(const char *name)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, name) == 0)
            return &d12_shaders[i];
    return NULL;
}

/* How many stored messages have `id`. */
static unsigned stored_with_id(D3D12_MESSAGE_ID id)
{
    unsigned found = 0;
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *m = malloc(size);
        if (m && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, m, &size)) && m->ID == id)
            found++;
        free(m);
    }
    return found;
}

static HRESULT create(const void *code, size_t size)
{
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {NULL, {code, size}, 0, {NULL, 0}, D3D12_PIPELINE_STATE_FLAG_NONE};
    ID3D12PipelineState *state = (ID3D12PipelineState *)(uintptr_t)1;
    HRESULT hr = ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, (void **)&state);
    CHECK(state == NULL || SUCCEEDED(hr));
    if (SUCCEEDED(hr) && state)
        ID3D12PipelineState_Release(state);
    return hr;
}

/* A container of `count` chunks taken from shaders (`from`[i] names the shader, `tags`[i] its chunk). */
static void *combine(const char *const *from, const uint32_t *tags, uint32_t count, size_t *size)
{
    d12_dxbc_chunk chunks[4];
    for (uint32_t i = 0; i < count; i++) {
        const d12_shader_blob *blob = blob_named(from[i]);
        d12_dxbc dxbc;
        char error[128];
        d12_dxbc_parse(blob->code, blob->size, &dxbc, error, sizeof error);
        chunks[i] = *d12_dxbc_find(&dxbc, tags[i]);
    }
    return d12_dxbc_write(chunks, count, size);
}

static void test_create_refusals(const void *arg)
{
    (void)arg;
    const D3D12_MESSAGE_ID invalid = D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER;
    void *none = NULL;
    ID3D12PipelineState *state = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateComputePipelineState(g_device, NULL, &IID_ID3D12PipelineState, &none),
                 E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(invalid), 1);
    CHECK_EQ_INT(create(NULL, 0), E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(invalid), 2);
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    unsigned char broken[1024];
    memcpy(broken, raw_fill->code, raw_fill->size);
    broken[raw_fill->size - 8] ^= 1;
    CHECK_EQ_INT(create(broken, raw_fill->size), E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("no valid DXBC container (DXBC: checksum mismatch"), 1);
    /* DXIL: a container (checksum right) whose program chunk is DXIL */
    static const uint8_t dxil_data[8] = {0x60, 0, 5, 0, 2, 0, 0, 0};
    d12_dxbc_chunk dxil_chunk = {D12_DXBC_TAG('D', 'X', 'I', 'L'), sizeof dxil_data, dxil_data};
    size_t size;
    void *dxil = d12_dxbc_write(&dxil_chunk, 1, &size);
    CHECK_EQ_INT(create(dxil, size), E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("the compute shader is DXIL (shader model 6)"), 1);
    free(dxil);
    CHECK_EQ_INT(stored_with_id(invalid), 4);
    /* typed_bits embeds no root signature, and pRootSignature is NULL */
    const d12_shader_blob *typed = blob_named("typed_bits");
    CHECK_EQ_INT(create(typed->code, typed->size), E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE), 1);
    /* typed_bits' program with raw_fill's RTS0 (root CBV b0, root UAV u0): its typed t0 is bound nowhere */
    const char *const from[] = {"typed_bits", "typed_bits", "typed_bits", "raw_fill"};
    const uint32_t tags[] = {D12_DXBC_TAG_ISGN, D12_DXBC_TAG_OSGN, D12_DXBC_TAG_SHEX, D12_DXBC_TAG_RTS0};
    void *mixed = combine(from, tags, 4, &size);
    CHECK_EQ_INT(create(mixed, size), E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH), 1);
    CHECK_EQ_INT(stored_containing("Root Signature doesn't match Compute Shader: the shader uses t0 (space 0)"), 1);
    free(mixed);
    /* raw_fill's program with an RTS0 chunk of garbage: no usable root signature either */
    void *broken_rts0 = combine(from, tags, 3, &size);
    d12_dxbc dxbc;
    char error[128];
    d12_dxbc_chunk chunks[4];
    if (CHECK(d12_dxbc_parse(broken_rts0, size, &dxbc, error, sizeof error) == 0)) {
        static const uint8_t garbage[12] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
        memcpy(chunks, dxbc.chunks, 3 * sizeof chunks[0]);
        chunks[3] = (d12_dxbc_chunk){D12_DXBC_TAG_RTS0, sizeof garbage, garbage};
        void *with_garbage = d12_dxbc_write(chunks, 4, &size);
        CHECK_EQ_INT(create(with_garbage, size), E_INVALIDARG);
        CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE), 2);
        CHECK_EQ_INT(stored_containing("embeds no usable root signature (its RTS0 chunk is broken: "), 1);
        free(with_garbage);
    }
    free(broken_rts0);
    (void)state;
}

static void test_create_checks_pass(const void *arg)
{
    (void)arg;
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    HRESULT hr = create(raw_fill->code, raw_fill->size);
    CHECK(hr != E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER), 0);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH), 0);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE), 0);
}

/* ---- The stream form (ID3D12Device2::CreatePipelineState) ---- */

/* Subobjects as d3dx12 lays them out: each alignas(void *), its type then its struct. */
typedef struct { alignas(void *) D3D12_PIPELINE_STATE_SUBOBJECT_TYPE type; D3D12_SHADER_BYTECODE cs; } stream_cs;
typedef struct { alignas(void *) D3D12_PIPELINE_STATE_SUBOBJECT_TYPE type; UINT mask; } stream_node_mask;
typedef struct { alignas(void *) D3D12_PIPELINE_STATE_SUBOBJECT_TYPE type; ID3D12RootSignature *rs; } stream_rs;

static HRESULT create_stream(const void *stream, SIZE_T size)
{
    ID3D12Device2 *device2 = NULL;
    HRESULT hr = ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device2, (void **)&device2);
    if (!CHECK(SUCCEEDED(hr)))
        return hr;
    D3D12_PIPELINE_STATE_STREAM_DESC desc = {size, (void *)stream};
    ID3D12PipelineState *state = (ID3D12PipelineState *)(uintptr_t)1;
    hr = ID3D12Device2_CreatePipelineState(device2, &desc, &IID_ID3D12PipelineState, (void **)&state);
    CHECK(state == NULL || SUCCEEDED(hr));
    if (SUCCEEDED(hr) && state)
        ID3D12PipelineState_Release(state);
    ID3D12Device2_Release(device2);
    return hr;
}

static void test_stream_refusals(const void *arg)
{
    (void)arg;
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    struct {
        stream_cs cs;
        stream_node_mask mask;
    } good = {{D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CS, {raw_fill->code, raw_fill->size}},
              {D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_NODE_MASK, 0}};
    CHECK_EQ_INT(create_stream(&good, 0), E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATEPIPELINESTATE_ZERO_SIZE_STREAM), 1);
    CHECK_EQ_INT(create_stream(&good, 12), E_INVALIDARG); /* the CS's bytecode struct cut short */
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATEPIPELINESTATE_INVALID_STREAM), 1);
    CHECK_EQ_INT(stored_containing("the subobject at byte 0 (CS) runs past SizeInBytes"), 1);
    stream_node_mask unknown = {(D3D12_PIPELINE_STATE_SUBOBJECT_TYPE)23, 0};
    CHECK_EQ_INT(create_stream(&unknown, sizeof unknown), E_INVALIDARG);
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATEPIPELINESTATE_UNKNOWN_SUBOBJECT), 1);
    struct {
        stream_cs a, b;
    } twice = {good.cs, good.cs};
    CHECK_EQ_INT(create_stream(&twice, sizeof twice), E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("the stream has more than one CS subobject"), 1);
    CHECK_EQ_INT(create_stream(&good.mask, sizeof good.mask), E_INVALIDARG); /* no shader at all */
    CHECK_EQ_INT(stored_with_id(D3D12_MESSAGE_ID_CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE), 1);
    /* a compute stream takes CreateComputePipelineState's checks, under the stream's name */
    unsigned char broken[1024];
    memcpy(broken, raw_fill->code, raw_fill->size);
    broken[raw_fill->size - 8] ^= 1;
    good.cs.cs.pShaderBytecode = broken;
    CHECK_EQ_INT(create_stream(&good, sizeof good), E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("ID3D12Device2::CreatePipelineState: the compute shader's bytecode is no valid "
                                   "DXBC container"), 1);
}

static void test_stream_compute(const void *arg)
{
    (void)arg;
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    struct {
        stream_rs rs;
        stream_cs cs;
        stream_node_mask mask;
    } stream = {{D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_ROOT_SIGNATURE, NULL},
                {D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CS, {raw_fill->code, raw_fill->size}},
                {D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_NODE_MASK, 0}};
    CHECK(create_stream(&stream, sizeof stream) != E_INVALIDARG);
    static const D3D12_MESSAGE_ID k_ids[] = {
        D3D12_MESSAGE_ID_CREATEPIPELINESTATE_ZERO_SIZE_STREAM, D3D12_MESSAGE_ID_CREATEPIPELINESTATE_INVALID_STREAM,
        D3D12_MESSAGE_ID_CREATEPIPELINESTATE_UNKNOWN_SUBOBJECT, D3D12_MESSAGE_ID_CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT,
        D3D12_MESSAGE_ID_CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE,
        D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER,
        D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE,
        D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH};
    for (size_t i = 0; i < sizeof k_ids / sizeof k_ids[0]; i++)
        CHECK_EQ_INT(stored_with_id(k_ids[i]), 0);
}

static const d12test_case k_cases[] = {
    {"executes_false", test_executes_false, NULL},
    {"executes_true", test_executes_true, NULL},
    {"executes_bad_size", test_executes_bad_size, NULL},
    {"create_refusals", test_create_refusals, NULL},
    {"create_checks_pass", test_create_checks_pass, NULL},
    {"stream_refusals", test_stream_refusals, NULL},
    {"stream_compute", test_stream_compute, NULL},
};

int main(int argc, char **argv)
{
    int rc = d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], setup);
    if (g_info)
        ID3D12InfoQueue_Release(g_info);
    if (g_device)
        ID3D12Device_Release(g_device);
    return rc;
}
