/* ID3D12PipelineState for compute on the reference driver (docs/pipelines.md; issue 31 item 1), public API only.
 * Cases (one ctest each, pipelines.pso.<case>):
 *     create_rts0          raw_fill with pRootSignature NULL: S_OK, its own RTS0 root signature
 *     create_desc_rs       the same shader with a root signature made from it: S_OK
 *     desc_rs_mismatch     a root signature that binds none of its registers: CS_ROOT_SIGNATURE_MISMATCH, NULL out
 *     interfaces           QueryInterface: ID3D12PipelineState, ID3D12Pageable, ID3D12DeviceChild, ID3D12Object,
 *                          IUnknown are one object; ID3D12RootSignature is E_NOINTERFACE; GetDevice is the device
 *     name_private         SetName / SetPrivateData / GetPrivateData as every device child
 *     cached_blob          GetCachedBlob: DXGI_ERROR_UNSUPPORTED (no cache), *ppBlob NULL; NULL ppBlob: E_POINTER
 *     out_args             riid NULL: E_INVALIDARG; ppPipelineState NULL: S_FALSE (no object)
 *     no_tables            (the skeleton driver) E_NOTIMPL naming the driver, after the shader's checks passed
 *     outlives_rs          the desc's root signature released first: the pipeline state keeps it (still usable in a
 *                          list, no crash), released to 0 with the pipeline state
 * Ends with "N passed, N failed". */
#define COBJMACROS
#define _GNU_SOURCE
#include "gpu_harness.h"

#include "d12rt/d3d12_ext.h"

#include "case_main.h"
#include "d12_shaders.h"

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;

static int setup(void)
{
    enable_debug_layer();
    g_device = create_device(true);
    if (!g_device)
        return 1;
    g_info = info_queue_of(g_device);
    return 0;
}

static const d12_shader_blob *blob_named(const char *name)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, name) == 0)
            return &d12_shaders[i];
    return NULL;
}

static HRESULT create_pso(ID3D12RootSignature *rs, ID3D12PipelineState **out)
{
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {rs, {raw_fill->code, raw_fill->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    *out = (ID3D12PipelineState *)(uintptr_t)1;
    return ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, (void **)out);
}

/* raw_fill's own root signature (CreateRootSignature takes the shader's container). */
static ID3D12RootSignature *raw_fill_rs(void)
{
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    ID3D12RootSignature *rs = NULL;
    CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, raw_fill->code, raw_fill->size, &IID_ID3D12RootSignature,
                                              (void **)&rs),
             S_OK);
    return rs;
}

static void test_create_rts0(const void *arg)
{
    (void)arg;
    ID3D12PipelineState *pso;
    if (!CHECK_HR(create_pso(NULL, &pso), S_OK) || !CHECK(pso != NULL))
        return;
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER, NULL, NULL), 0);
    RELEASE_LAST(pso);
}

static void test_create_desc_rs(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = raw_fill_rs();
    ID3D12PipelineState *pso;
    if (rs && CHECK_HR(create_pso(rs, &pso), S_OK) && CHECK(pso != NULL))
        RELEASE_LAST(pso);
    if (rs)
        RELEASE_LAST(rs);
}

static void test_desc_rs_mismatch(const void *arg)
{
    (void)arg;
    D3D12_ROOT_SIGNATURE_DESC empty = {0, NULL, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE};
    ID3DBlob *blob = NULL;
    ID3D12RootSignature *rs = NULL;
    if (!CHECK_HR(D3D12SerializeRootSignature(&empty, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                   ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                   (void **)&rs),
                  S_OK))
        return;
    ID3D10Blob_Release(blob);
    ID3D12PipelineState *pso;
    CHECK_HR(create_pso(rs, &pso), E_INVALIDARG);
    CHECK(pso == NULL);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH, NULL, NULL),
                 1);
    RELEASE_LAST(rs);
}

static void test_interfaces(const void *arg)
{
    (void)arg;
    ID3D12PipelineState *pso;
    if (!CHECK_HR(create_pso(NULL, &pso), S_OK))
        return;
    static const IID *const k_iids[] = {&IID_ID3D12PipelineState, &IID_ID3D12Pageable, &IID_ID3D12DeviceChild,
                                        &IID_ID3D12Object, &IID_IUnknown};
    IUnknown *unknown = NULL;
    CHECK_HR(ID3D12PipelineState_QueryInterface(pso, &IID_IUnknown, (void **)&unknown), S_OK);
    for (size_t i = 0; i < sizeof k_iids / sizeof k_iids[0]; i++) {
        IUnknown *other = NULL;
        IUnknown *as_unknown = NULL;
        CHECK_HR(ID3D12PipelineState_QueryInterface(pso, k_iids[i], (void **)&other), S_OK);
        if (other && CHECK_HR(IUnknown_QueryInterface(other, &IID_IUnknown, (void **)&as_unknown), S_OK)) {
            CHECK(as_unknown == unknown); /* one object: every interface answers the same IUnknown */
            IUnknown_Release(as_unknown);
        }
        if (other)
            IUnknown_Release(other);
    }
    void *none = (void *)1;
    CHECK_HR(ID3D12PipelineState_QueryInterface(pso, &IID_ID3D12RootSignature, &none), E_NOINTERFACE);
    CHECK(none == NULL);
    ID3D12Device *device = NULL;
    CHECK_HR(ID3D12PipelineState_GetDevice(pso, &IID_ID3D12Device, (void **)&device), S_OK);
    CHECK(device == g_device);
    if (device)
        ID3D12Device_Release(device);
    IUnknown_Release(unknown);
    RELEASE_LAST(pso);
}

static void test_name_private(const void *arg)
{
    (void)arg;
    ID3D12PipelineState *pso;
    if (!CHECK_HR(create_pso(NULL, &pso), S_OK))
        return;
    CHECK_HR(ID3D12PipelineState_SetName(pso, L"Fill"), S_OK);
    static const GUID k_guid = {0x1234, 0x5678, 0x9abc, {1, 2, 3, 4, 5, 6, 7, 8}};
    UINT value = 0xC0FFEE, size = sizeof value, got = 0;
    CHECK_HR(ID3D12PipelineState_SetPrivateData(pso, &k_guid, sizeof value, &value), S_OK);
    CHECK_HR(ID3D12PipelineState_GetPrivateData(pso, &k_guid, &size, &got), S_OK);
    CHECK_EQ_INT(got, 0xC0FFEE);
    CHECK_EQ_INT(size, sizeof value);
    RELEASE_LAST(pso);
}

static void test_cached_blob(const void *arg)
{
    (void)arg;
    ID3D12PipelineState *pso;
    if (!CHECK_HR(create_pso(NULL, &pso), S_OK))
        return;
    ID3DBlob *blob = (ID3DBlob *)(uintptr_t)1;
    CHECK_HR(ID3D12PipelineState_GetCachedBlob(pso, &blob), DXGI_ERROR_UNSUPPORTED);
    CHECK(blob == NULL);
    CHECK_HR(ID3D12PipelineState_GetCachedBlob(pso, NULL), E_POINTER);
    RELEASE_LAST(pso);
}

static void test_out_args(const void *arg)
{
    (void)arg;
    const d12_shader_blob *raw_fill = blob_named("raw_fill");
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {NULL, {raw_fill->code, raw_fill->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    void *out = (void *)1;
    CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, NULL), S_FALSE);
}

static void test_no_tables(const void *arg)
{
    (void)arg;
    ID3D12PipelineState *pso;
    CHECK_HR(create_pso(NULL, &pso), E_NOTIMPL);
    CHECK(pso == NULL);
    CHECK_EQ_INT(count_id(g_info, (D3D12_MESSAGE_ID)0x13101, "offers no pipeline table", NULL), 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER, NULL, NULL), 0);
}

/* The pipeline state holds the desc's root signature: released by the application first, it lives on. */
static void test_outlives_rs(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = raw_fill_rs();
    ID3D12PipelineState *pso;
    if (!rs || !CHECK_HR(create_pso(rs, &pso), S_OK))
        return;
    ID3D12RootSignature_Release(rs); /* the application's last reference (ASan proves the PSO kept it) */
    ID3D12Device *device = NULL;
    CHECK_HR(ID3D12PipelineState_GetDevice(pso, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device)
        ID3D12Device_Release(device);
    RELEASE_LAST(pso);
}

static const d12test_case k_cases[] = {
    {"create_rts0", test_create_rts0, NULL},       {"create_desc_rs", test_create_desc_rs, NULL},
    {"desc_rs_mismatch", test_desc_rs_mismatch, NULL}, {"interfaces", test_interfaces, NULL},
    {"name_private", test_name_private, NULL},     {"cached_blob", test_cached_blob, NULL},
    {"out_args", test_out_args, NULL},             {"no_tables", test_no_tables, NULL},
    {"outlives_rs", test_outlives_rs, NULL},
};

int main(int argc, char **argv)
{
    int rc = d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], setup);
    if (g_info)
        ID3D12InfoQueue_Release(g_info);
    if (g_device)
        RELEASE_LAST(g_device);
    return rc;
}
