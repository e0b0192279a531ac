/* ID3D12Device::CreateRootSignature and ID3D12RootSignature through the public D3D12 API alone (issue 30 item 3,
 * "Checked by"; docs/root-signatures.md): built against d12rt (run on the reference driver and on the Vulkan driver,
 * the latter under Vulkan validation that aborts on any finding, so every layout the driver builds is valid Vulkan)
 * and against vkd3d 1.2 on lavapipe (tests/descriptors/CMakeLists.txt). Blobs come from the serializers; blobs the
 * serializers refuse to write (invalid descriptions) come from d12rt's RTS0 writer (runtime/dxbc).
 *
 *   rootsig_device_outside CASE   every_type | sizes | unbounded | from_shader | garbage | invalid | out_pointers |
 *                                 object | no_table
 *
 * Ends with "N passed, N failed"; exit 0 only when nothing failed. */
#include "../outside/outside.h"

#include "d12_shaders.h"
#include "dxbc.h"

/* vkd3d 1.2 differs (docs/root-signatures.md, "vkd3d 1.2"): it refuses an unbounded range (E_NOTIMPL), creates a
 * root signature from a container without RTS0 (an empty one) and from descriptions the debug layer refuses
 * (it does not validate), and crashes on a NULL blob. Those calls are D3D12_RULE/INVALID_CALL below. */

static HRESULT create(const void *blob, SIZE_T size, ID3D12RootSignature **out)
{
    *out = NULL;
    return ID3D12Device_CreateRootSignature(g_device, 0, blob, size, &IID_ID3D12RootSignature, (void **)out);
}

/* Serializes `desc` (the exports) and creates a root signature from the blob: the HRESULT of the creation. */
static HRESULT create_from_desc(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, ID3D12RootSignature **out)
{
    ID3DBlob *blob = NULL;
    *out = NULL;
    HRESULT hr = D3D12SerializeVersionedRootSignature(desc, &blob, NULL);
    if (!CHECK_HR(hr, S_OK))
        return hr;
    hr = create(ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob), out);
    ID3D10Blob_Release(blob);
    return hr;
}

/* A blob of a description the serializers would refuse: d12rt's RTS0 writer in a container of its own. */
static void *raw_blob(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, size_t *size)
{
    size_t rts0_size = 0;
    void *rts0 = d12_rts0_write(desc, &rts0_size);
    if (!CHECK(rts0 != NULL))
        return NULL;
    d12_dxbc_chunk chunk = {D12_DXBC_TAG_RTS0, (uint32_t)rts0_size, rts0};
    void *container = d12_dxbc_write(&chunk, 1, size);
    free(rts0);
    CHECK(container != NULL);
    return container;
}

static void expect_created(HRESULT hr, ID3D12RootSignature *signature, int line)
{
    if (outside_check_hr(hr, S_OK, line, "CreateRootSignature") && outside_check(signature != NULL, line, "a root signature"))
        outside_check(ID3D12RootSignature_Release(signature) == 0, line, "the last reference");
}
/* The call first, then the pointer it wrote (a function's arguments are evaluated in no set order). */
#define EXPECT_CREATED(call, signature)                                                                            \
    do {                                                                                                           \
        HRESULT hr_ = (call);                                                                                      \
        expect_created(hr_, (signature), __LINE__);                                                                \
    } while (0)

static D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc_1_1(const D3D12_ROOT_PARAMETER1 *params, UINT count,
                                                    const D3D12_STATIC_SAMPLER_DESC *samplers, UINT sampler_count,
                                                    D3D12_ROOT_SIGNATURE_FLAGS flags)
{
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_1};
    desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){count, params, sampler_count, samplers, flags};
    return desc;
}

static const D3D12_STATIC_SAMPLER_DESC k_static_sampler = {
    D3D12_FILTER_MIN_MAG_MIP_LINEAR, D3D12_TEXTURE_ADDRESS_MODE_WRAP, D3D12_TEXTURE_ADDRESS_MODE_CLAMP,
    D3D12_TEXTURE_ADDRESS_MODE_BORDER, 0.0f, 1, D3D12_COMPARISON_FUNC_NEVER,
    D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK, 0.0f, 1000.0f, 0, 0, D3D12_SHADER_VISIBILITY_ALL};

/* Every parameter type at both versions: tables of every range type, constants, root CBV/SRV/UAV, a static sampler. */
static void test_every_type(void)
{
    D3D12_DESCRIPTOR_RANGE ranges[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND},
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 3, 1, 2, 10},
    };
    D3D12_DESCRIPTOR_RANGE sampler_range = {D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 2, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[6] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {3, ranges}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &sampler_range},
         D3D12_SHADER_VISIBILITY_PIXEL},
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {4, 0, 3}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_CBV, .Descriptor = {5, 0}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_SRV, .Descriptor = {7, 0}, D3D12_SHADER_VISIBILITY_VERTEX},
        {D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {0, 0}, D3D12_SHADER_VISIBILITY_ALL},
    };
    D3D12_STATIC_SAMPLER_DESC sampler = k_static_sampler;
    sampler.ShaderRegister = 5;
    D3D12_ROOT_SIGNATURE_DESC desc_1_0 = {6, params, 1, &sampler,
                                          D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT};
    ID3DBlob *blob = NULL;
    ID3D12RootSignature *signature;
    if (CHECK_HR(D3D12SerializeRootSignature(&desc_1_0, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK)) {
        EXPECT_CREATED(create(ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob), &signature),
                       signature);
        ID3D10Blob_Release(blob);
    }
    NO_ERROR_MESSAGE();

    D3D12_DESCRIPTOR_RANGE1 ranges1[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC, 0},
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE,
         D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 3, 1, 2, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 10},
    };
    D3D12_DESCRIPTOR_RANGE1 sampler_range1 = {D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 2, 0, 0,
                                              D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
    D3D12_ROOT_PARAMETER1 params1[6] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {3, ranges1}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &sampler_range1},
         D3D12_SHADER_VISIBILITY_PIXEL},
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {4, 0, 3}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_CBV, .Descriptor = {5, 0, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC},
         D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_SRV, .Descriptor = {7, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
         D3D12_SHADER_VISIBILITY_VERTEX},
        {D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {0, 0, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE},
         D3D12_SHADER_VISIBILITY_ALL},
    };
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(params1, 6, &sampler, 1, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    /* The empty root signature. */
    desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    NO_ERROR_MESSAGE();
}

/* The 64-DWORD limit is D3D12's alone: every shape of 64 DWORDs is created (on Vulkan: 256 bytes of constants pass
 * lavapipe's 128-byte push constants, 32 root views, 64 tables over 8 descriptor sets); 65 is refused. */
static void test_sizes(void)
{
    D3D12_ROOT_PARAMETER1 params[64];
    D3D12_DESCRIPTOR_RANGE1 ranges[64];
    ID3D12RootSignature *signature;
    /* 64 constants in one parameter; then in 64 parameters of one, each its own register. */
    params[0] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 64},
                                        D3D12_SHADER_VISIBILITY_ALL};
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(params, 1, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    for (UINT i = 0; i < 64; i++)
        params[i] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {i, 0, 1},
                                            D3D12_SHADER_VISIBILITY_ALL};
    desc = desc_1_1(params, 64, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    /* 32 root views: CBVs, SRVs and UAVs. */
    for (UINT i = 0; i < 32; i++)
        params[i] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_CBV + i % 3,
                                            .Descriptor = {i, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
                                            D3D12_SHADER_VISIBILITY_ALL};
    desc = desc_1_1(params, 32, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    /* 64 tables of one UAV each (UAVs: within every per-stage limit when split per stage), one per visibility. */
    for (UINT i = 0; i < 64; i++) {
        ranges[i] = (D3D12_DESCRIPTOR_RANGE1){D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, i / 6, 0,
                                              D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
        params[i] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                                            .DescriptorTable = {1, &ranges[i]},
                                            (D3D12_SHADER_VISIBILITY)(i % 6)};
        if (i % 6 == 0) /* ALL meets every stage: its own space */
            ranges[i].RegisterSpace = 100 + i;
    }
    desc = desc_1_1(params, 64, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    /* Mixed: 20 root views (40), 20 constants, 4 tables. */
    for (UINT i = 0; i < 20; i++)
        params[i] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_UAV,
                                            .Descriptor = {i, 1, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
                                            D3D12_SHADER_VISIBILITY_ALL};
    params[20] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 20},
                                         D3D12_SHADER_VISIBILITY_ALL};
    for (UINT i = 0; i < 4; i++) {
        ranges[i] = (D3D12_DESCRIPTOR_RANGE1){D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 2, 2 * i, 0,
                                              D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
        params[21 + i] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                                                 .DescriptorTable = {1, &ranges[i]}, D3D12_SHADER_VISIBILITY_ALL};
    }
    desc = desc_1_1(params, 25, &k_static_sampler, 1, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    NO_ERROR_MESSAGE();
    /* 65 DWORDs: the debug layer's INVALID_CONFIGURATION (the serializer refuses it, so d12rt's writer makes it). */
    params[0] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 63},
                                        D3D12_SHADER_VISIBILITY_ALL};
    params[1] = (D3D12_ROOT_PARAMETER1){D3D12_ROOT_PARAMETER_TYPE_CBV,
                                        .Descriptor = {1, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
                                        D3D12_SHADER_VISIBILITY_ALL};
    desc = desc_1_1(params, 2, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    size_t size = 0;
    void *blob = raw_blob(&desc, &size);
    D3D12_RULE(CHECK_HR(create(blob, size, &signature), E_INVALIDARG); CHECK(signature == NULL));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_INVALID_CONFIGURATION);
    free(blob);
}

/* Large and unbounded tables are valid root signatures: created (the Vulkan driver lays them out per pipeline). */
static void test_unbounded(void)
{
    D3D12_DESCRIPTOR_RANGE1 ranges[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1000, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0},
        {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, UINT_MAX, 0, 1, D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE, 1000},
    };
    D3D12_ROOT_PARAMETER1 param = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, ranges},
                                   D3D12_SHADER_VISIBILITY_ALL};
    ID3D12RootSignature *signature;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(&param, 1, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature); /* 1000 UAVs: past lavapipe's per-stage limits */
    param.DescriptorTable.NumDescriptorRanges = 2;
    D3D12_RULE(EXPECT_CREATED(create_from_desc(&desc, &signature), signature)); /* vkd3d 1.2: E_NOTIMPL */
    NO_ERROR_MESSAGE();
}

/* A shader's container: its RTS0 is the root signature; one without RTS0 is BLOB_NOT_FOUND. */
static void test_from_shader(void)
{
    unsigned with = 0, without = 0;
    for (unsigned i = 0; i < D12_SHADER_COUNT; i++) {
        const d12_shader_blob *shader = &d12_shaders[i];
        ID3D12RootSignature *signature;
        if (shader->has_root_signature) {
            with++;
            EXPECT_CREATED(create(shader->code, shader->size, &signature), signature);
            NO_ERROR_MESSAGE();
        } else {
            without++;
            D3D12_RULE(CHECK_HR(create(shader->code, shader->size, &signature), E_INVALIDARG);
                       CHECK(signature == NULL));
            D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_BLOB_NOT_FOUND);
        }
    }
    CHECK(with > 0 && without > 0); /* both kinds were tried */
}

/* Not a root signature: DESERIALIZE_FAILED, E_INVALIDARG, *ppv NULL. */
static void test_garbage(void)
{
    static const DWORD junk[8] = {0xDEADBEEF, 1, 2, 3, 4, 5, 6, 7};
    ID3D12RootSignature *signature = (ID3D12RootSignature *)(uintptr_t)1;
    D3D12_RULE(CHECK_HR(create(junk, sizeof junk, &signature), E_INVALIDARG); CHECK(signature == NULL));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED);
    INVALID_CALL(CHECK_HR(create(NULL, 0, &signature), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED);
    /* A valid blob with one byte changed: the checksum no longer matches. */
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    ID3DBlob *blob = NULL;
    if (CHECK_HR(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK)) {
        SIZE_T size = ID3D10Blob_GetBufferSize(blob);
        unsigned char *bytes = malloc(size);
        memcpy(bytes, ID3D10Blob_GetBufferPointer(blob), size);
        bytes[size - 1] ^= 0x40;
        D3D12_RULE(CHECK_HR(create(bytes, size, &signature), E_INVALIDARG));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED);
        /* Truncated: the header's size is more than what is given. */
        D3D12_RULE(CHECK_HR(create(ID3D10Blob_GetBufferPointer(blob), size - 4, &signature), E_INVALIDARG));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED);
        free(bytes);
        ID3D10Blob_Release(blob);
    }
}

/* The debug layer's validation (runtime/rootsig, one rule each in rootsig.api.rule_*), reported by the device:
 * a rule broken is INVALID_CONFIGURATION; its neighbour is created. The device's own rule: the heap-indexing flags
 * are NOT_SUPPORTED_ON_DEVICE (no shader model 6.6). */
static void test_invalid(void)
{
    D3D12_DESCRIPTOR_RANGE1 a = {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
    D3D12_DESCRIPTOR_RANGE1 b = {D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 2, 3, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
    D3D12_ROOT_PARAMETER1 params[2] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &a}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &b}, D3D12_SHADER_VISIBILITY_ALL},
    };
    ID3D12RootSignature *signature;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(params, 2, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    size_t size = 0;
    void *blob = raw_blob(&desc, &size); /* t3 in both tables */
    D3D12_RULE(CHECK_HR(create(blob, size, &signature), E_INVALIDARG); CHECK(signature == NULL));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_INVALID_CONFIGURATION);
    free(blob);
    b.BaseShaderRegister = 4; /* the neighbour: t0-t3 and t4-t5 */
    EXPECT_CREATED(create_from_desc(&desc, &signature), signature);
    NO_ERROR_MESSAGE();

    desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED);
    blob = raw_blob(&desc, &size);
    D3D12_RULE(CHECK_HR(create(blob, size, &signature), E_INVALIDARG); CHECK(signature == NULL));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_NOT_SUPPORTED_ON_DEVICE);
    free(blob);

    /* nodeMask: one node (0 or 1). */
    desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    blob = raw_blob(&desc, &size);
    D3D12_RULE(CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 2, blob, size, &IID_ID3D12RootSignature,
                                                         (void **)&signature), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_INVALID_CONFIGURATION);
    CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 1, blob, size, &IID_ID3D12RootSignature,
                                              (void **)&signature), S_OK);
    if (signature)
        CHECK(ID3D12RootSignature_Release(signature) == 0);
    free(blob);
    NO_ERROR_MESSAGE();
}

/* A NULL ppvRootSignature checks the blob and answers S_FALSE (d3d12-semantics.md 4.8); an IID the object lacks is
 * E_NOINTERFACE with *ppv NULL. */
static void test_out_pointers(void)
{
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    ID3DBlob *blob = NULL;
    if (!CHECK_HR(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK))
        return;
    const void *bytes = ID3D10Blob_GetBufferPointer(blob);
    SIZE_T size = ID3D10Blob_GetBufferSize(blob);
    D3D12_RULE(CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, bytes, size, &IID_ID3D12RootSignature, NULL),
                        S_FALSE));
    void *object = (void *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, bytes, size, &IID_ID3D12Fence, &object), E_NOINTERFACE);
    CHECK(object == NULL);
    ID3D10Blob_Release(blob);
    NO_ERROR_MESSAGE();
}

/* ID3D12RootSignature is a device child: its interfaces, GetDevice, names and private data. */
static void test_object(void)
{
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    ID3D12RootSignature *signature;
    if (!CHECK_HR(create_from_desc(&desc, &signature), S_OK))
        return;
    ID3D12DeviceChild *child = NULL;
    CHECK_HR(ID3D12RootSignature_QueryInterface(signature, &IID_ID3D12DeviceChild, (void **)&child), S_OK);
    CHECK((void *)child == (void *)signature);
    if (child)
        ID3D12DeviceChild_Release(child);
    ID3D12Device *device = NULL;
    CHECK_HR(ID3D12RootSignature_GetDevice(signature, &IID_ID3D12Device, (void **)&device), S_OK);
    CHECK(device == g_device);
    if (device)
        ID3D12Device_Release(device);
    static const GUID guid = {0x6a1c2e0d, 0x1b2c, 0x4d3e, {0x8f, 0x90, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6}};
    UINT32 value = 0xC0FFEE, read = 0;
    UINT read_size = sizeof read;
    CHECK_HR(ID3D12RootSignature_SetPrivateData(signature, &guid, sizeof value, &value), S_OK);
    CHECK_HR(ID3D12RootSignature_GetPrivateData(signature, &guid, &read_size, &read), S_OK);
    CHECK(read == value && read_size == sizeof value);
    CHECK_HR(ID3D12RootSignature_SetName(signature, L"root"), S_OK);
    CHECK(ID3D12RootSignature_AddRef(signature) == 2);
    CHECK(ID3D12RootSignature_Release(signature) == 1);
    CHECK(ID3D12RootSignature_Release(signature) == 0);
    NO_ERROR_MESSAGE();
}

/* A driver without the descriptor table: E_NOTIMPL with d12rt's message naming the driver. */
static void test_no_table(void)
{
#ifndef PEER_VKD3D
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = desc_1_1(NULL, 0, NULL, 0, D3D12_ROOT_SIGNATURE_FLAG_NONE);
    ID3DBlob *blob = NULL;
    if (!CHECK_HR(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK))
        return;
    ID3D12RootSignature *signature;
    CHECK_HR(create(ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob), &signature), E_NOTIMPL);
    CHECK(signature == NULL);
    D3D12_MESSAGE((D3D12_MESSAGE_ID)0x13D00); /* d12rt's DESCRIPTORS_UNSUPPORTED, naming the driver */
    ID3D10Blob_Release(blob);
#endif
}

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"every_type", test_every_type}, {"sizes", test_sizes}, {"unbounded", test_unbounded},
        {"from_shader", test_from_shader}, {"garbage", test_garbage}, {"invalid", test_invalid},
        {"out_pointers", test_out_pointers}, {"object", test_object}, {"no_table", test_no_table},
    };
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
