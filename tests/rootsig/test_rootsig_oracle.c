/* Root signature serialization and deserialization through libd12rt.so's exports, byte for byte against
 * vkd3d-shader 1.2's serializer (dlopen'ed; exit 77, skipped, without it). The vkd3d-shader structures have the
 * D3D12 ones' layout (asserted below), so one description feeds both.
 *
 *     test_rootsig_oracle CASE     (ctest rootsig.oracle.CASE)    test_rootsig_oracle --list */
#define _GNU_SOURCE
#define COBJMACROS
#include "case_main.h"
#include "vkd3d_shader_dl.h"

#include <string.h>

#include "rootsig_cases.h"

_Static_assert(sizeof(struct vkd3d_shader_versioned_root_signature_desc) ==
                   sizeof(D3D12_VERSIONED_ROOT_SIGNATURE_DESC), "versioned desc layout");
_Static_assert(sizeof(struct vkd3d_shader_root_parameter1) == sizeof(D3D12_ROOT_PARAMETER1), "parameter layout");
_Static_assert(sizeof(struct vkd3d_shader_static_sampler_desc) == sizeof(D3D12_STATIC_SAMPLER_DESC), "sampler");
_Static_assert(sizeof(struct vkd3d_shader_descriptor_range1) == sizeof(D3D12_DESCRIPTOR_RANGE1), "range layout");

static d12_vkd3d_shader vk;

/* Serializes `desc` with both; checks S_OK, a NULL error blob and equal bytes. */
static void check_same_bytes(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc)
{
    struct vkd3d_shader_code expected = {0};
    char *messages = NULL;
    int rc = vk.serialize_root_signature((const struct vkd3d_shader_versioned_root_signature_desc *)desc, &expected,
                                         &messages);
    vk.free_messages(messages);
    CHECK_EQ_INT(rc, 0);
    ID3DBlob *blob = NULL, *error = (ID3DBlob *)0x1;
    HRESULT hr = D3D12SerializeVersionedRootSignature(desc, &blob, &error);
    CHECK_EQ_INT(hr, S_OK);
    CHECK(error == NULL);
    if (rc == 0 && hr == S_OK) {
        SIZE_T size = ID3D10Blob_GetBufferSize(blob);
        CHECK_EQ_INT(size, expected.size);
        CHECK(size == expected.size && memcmp(ID3D10Blob_GetBufferPointer(blob), expected.code, size) == 0);
    }
    if (blob)
        ID3D10Blob_Release(blob);
    vk.free_code(&expected);
}

static void case_empty(const void *unused)
{
    (void)unused;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_0};
    check_same_bytes(&desc);
    desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
    desc.Desc_1_1.Flags = D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
    check_same_bytes(&desc);
}

static void case_every_type_1_0(const void *unused)
{
    (void)unused;
    D3D12_ROOT_PARAMETER params[6];
    rs_params_10(params);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_0};
    desc.Desc_1_0 = (D3D12_ROOT_SIGNATURE_DESC){6, params, 2, rs_samplers, RS_FLAGS};
    check_same_bytes(&desc);
    /* Each parameter alone too: a layout error shows where it is. */
    for (unsigned i = 0; i < 6; i++) {
        desc.Desc_1_0 = (D3D12_ROOT_SIGNATURE_DESC){1, &params[i], 0, NULL, 0};
        check_same_bytes(&desc);
    }
    /* The 1.0 entry point writes the same bytes. */
    ID3DBlob *a = NULL, *b = NULL;
    D3D12_ROOT_SIGNATURE_DESC plain = {6, params, 2, rs_samplers, RS_FLAGS};
    desc.Desc_1_0 = plain;
    CHECK_EQ_INT(D3D12SerializeRootSignature(&plain, D3D_ROOT_SIGNATURE_VERSION_1_0, &a, NULL), S_OK);
    CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(&desc, &b, NULL), S_OK);
    if (a && b)
        CHECK(ID3D10Blob_GetBufferSize(a) == ID3D10Blob_GetBufferSize(b) &&
              memcmp(ID3D10Blob_GetBufferPointer(a), ID3D10Blob_GetBufferPointer(b), ID3D10Blob_GetBufferSize(a)) == 0);
    if (a)
        ID3D10Blob_Release(a);
    if (b)
        ID3D10Blob_Release(b);
}

static void case_every_type_1_1(const void *unused)
{
    (void)unused;
    D3D12_ROOT_PARAMETER1 params[6];
    rs_params_11(params);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_1};
    desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){6, params, 2, rs_samplers, RS_FLAGS};
    check_same_bytes(&desc);
    for (unsigned i = 0; i < 6; i++) {
        desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){1, &params[i], 0, NULL, 0};
        check_same_bytes(&desc);
    }
    desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){0, NULL, 2, rs_samplers, 0};
    check_same_bytes(&desc);
}

/* Field-by-field equality of two 1.1 descriptions (the deserializer's against the original). */
static int same_desc_11(const D3D12_ROOT_SIGNATURE_DESC1 *a, const D3D12_ROOT_SIGNATURE_DESC1 *b)
{
    if (a->NumParameters != b->NumParameters || a->NumStaticSamplers != b->NumStaticSamplers || a->Flags != b->Flags)
        return 0;
    if (a->NumStaticSamplers && memcmp(a->pStaticSamplers, b->pStaticSamplers,
                                       a->NumStaticSamplers * sizeof *a->pStaticSamplers) != 0)
        return 0;
    for (UINT i = 0; i < a->NumParameters; i++) {
        const D3D12_ROOT_PARAMETER1 *x = &a->pParameters[i], *y = &b->pParameters[i];
        if (x->ParameterType != y->ParameterType || x->ShaderVisibility != y->ShaderVisibility)
            return 0;
        if (x->ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
            UINT n = x->DescriptorTable.NumDescriptorRanges;
            if (n != y->DescriptorTable.NumDescriptorRanges ||
                memcmp(x->DescriptorTable.pDescriptorRanges, y->DescriptorTable.pDescriptorRanges,
                       n * sizeof(D3D12_DESCRIPTOR_RANGE1)) != 0)
                return 0;
        } else if (x->ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
            if (memcmp(&x->Constants, &y->Constants, sizeof x->Constants) != 0)
                return 0;
        } else if (memcmp(&x->Descriptor, &y->Descriptor, sizeof x->Descriptor) != 0) {
            return 0;
        }
    }
    return 1;
}

/* vkd3d-shader's blob through our deserializer: the description comes back; re-serialized, the same bytes. */
static void case_deserialize_1_1(const void *unused)
{
    (void)unused;
    D3D12_ROOT_PARAMETER1 params[6];
    rs_params_11(params);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_1};
    desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){6, params, 2, rs_samplers, RS_FLAGS};
    struct vkd3d_shader_code code = {0};
    char *messages = NULL;
    CHECK_EQ_INT(vk.serialize_root_signature((const void *)&desc, &code, &messages), 0);
    vk.free_messages(messages);
    ID3D12VersionedRootSignatureDeserializer *d = NULL;
    CHECK_EQ_INT(D3D12CreateVersionedRootSignatureDeserializer(code.code, code.size,
                                                               &IID_ID3D12VersionedRootSignatureDeserializer,
                                                               (void **)&d), S_OK);
    if (d) {
        const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *got =
            ID3D12VersionedRootSignatureDeserializer_GetUnconvertedRootSignatureDesc(d);
        CHECK_EQ_INT(got->Version, D3D_ROOT_SIGNATURE_VERSION_1_1);
        CHECK(same_desc_11(&got->Desc_1_1, &desc.Desc_1_1));
        const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *same = NULL;
        CHECK_EQ_INT(ID3D12VersionedRootSignatureDeserializer_GetRootSignatureDescAtVersion(
                         d, D3D_ROOT_SIGNATURE_VERSION_1_1, &same), S_OK);
        CHECK(same == got);
        check_same_bytes(got);
        ID3D12VersionedRootSignatureDeserializer_Release(d);
    }
    vk.free_code(&code);
}

/* 1.0 -> 1.1 as Windows converts (vkd3d-shader's vkd3d_shader_convert_root_signature agrees), and back. */
static void case_convert(const void *unused)
{
    (void)unused;
    D3D12_ROOT_PARAMETER params[6];
    rs_params_10(params);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_0};
    desc.Desc_1_0 = (D3D12_ROOT_SIGNATURE_DESC){6, params, 2, rs_samplers, RS_FLAGS};
    ID3DBlob *blob = NULL;
    CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK);
    if (!blob)
        return;
    ID3D12VersionedRootSignatureDeserializer *d = NULL;
    CHECK_EQ_INT(D3D12CreateVersionedRootSignatureDeserializer(ID3D10Blob_GetBufferPointer(blob),
                                                               ID3D10Blob_GetBufferSize(blob),
                                                               &IID_ID3D12VersionedRootSignatureDeserializer,
                                                               (void **)&d), S_OK);
    const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *v11 = NULL, *again = NULL;
    if (d) {
        CHECK_EQ_INT(ID3D12VersionedRootSignatureDeserializer_GetRootSignatureDescAtVersion(
                         d, D3D_ROOT_SIGNATURE_VERSION_1_1, &v11), S_OK);
        CHECK_EQ_INT(ID3D12VersionedRootSignatureDeserializer_GetRootSignatureDescAtVersion(
                         d, D3D_ROOT_SIGNATURE_VERSION_1_1, &again), S_OK);
        CHECK(v11 == again); /* converted once, kept */
        CHECK_EQ_INT(ID3D12VersionedRootSignatureDeserializer_GetRootSignatureDescAtVersion(
                         d, (D3D_ROOT_SIGNATURE_VERSION)3, &again), E_INVALIDARG);
    }
    struct vkd3d_shader_versioned_root_signature_desc expected = {0};
    CHECK_EQ_INT(vk.convert_root_signature(&expected, VKD3D_SHADER_ROOT_SIGNATURE_VERSION_1_1, (const void *)&desc), 0);
    /* vkd3d-shader 1.2 gives a sampler range DATA_VOLATILE too, a flag the 1.1 rules refuse on a sampler range
     * (and which its own serializer then writes); Windows gives DESCRIPTORS_VOLATILE alone (docs/root-signatures.md).
     * The oracle is taken with that one difference put right. */
    for (unsigned p = 0; p < expected.u.v_1_1.parameter_count; p++) {
        const struct vkd3d_shader_root_parameter1 *param = &expected.u.v_1_1.parameters[p];
        if (param->parameter_type != VKD3D_SHADER_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE)
            continue;
        for (unsigned i = 0; i < param->u.descriptor_table.descriptor_range_count; i++) {
            struct vkd3d_shader_descriptor_range1 *r =
                (struct vkd3d_shader_descriptor_range1 *)&param->u.descriptor_table.descriptor_ranges[i];
            if (r->range_type == VKD3D_SHADER_DESCRIPTOR_TYPE_SAMPLER) {
                CHECK_EQ_INT(r->flags, VKD3D_SHADER_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE |
                                           VKD3D_SHADER_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE);
                r->flags = VKD3D_SHADER_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE;
            }
        }
    }
    if (v11) {
        CHECK_EQ_INT(v11->Version, D3D_ROOT_SIGNATURE_VERSION_1_1);
#ifndef PEER_VKD3D /* vkd3d 1.2 is its own oracle here, with the sampler flags it does not put right */
        CHECK(same_desc_11(&v11->Desc_1_1, (const D3D12_ROOT_SIGNATURE_DESC1 *)&expected.u.v_1_1));
#endif
        const D3D12_DESCRIPTOR_RANGE1 *r = v11->Desc_1_1.pParameters[0].DescriptorTable.pDescriptorRanges;
        CHECK_EQ_INT(r[0].Flags,
                     D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE);
#ifdef PEER_VKD3D /* vkd3d 1.2's own conversion: the sampler range gets DATA_VOLATILE too (above) */
        const UINT sampler_flags =
            D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE;
#else
        const UINT sampler_flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE;
#endif
        CHECK_EQ_INT(v11->Desc_1_1.pParameters[1].DescriptorTable.pDescriptorRanges[0].Flags, sampler_flags);
        CHECK_EQ_INT(v11->Desc_1_1.pParameters[3].Descriptor.Flags, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE);
        /* ... and back to 1.0: the flags dropped, the rest as it was. */
        ID3DBlob *b11 = NULL;
        CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(v11, &b11, NULL), S_OK);
        ID3D12RootSignatureDeserializer *d10 = NULL;
        if (b11)
            CHECK_EQ_INT(D3D12CreateRootSignatureDeserializer(ID3D10Blob_GetBufferPointer(b11),
                                                              ID3D10Blob_GetBufferSize(b11),
                                                              &IID_ID3D12RootSignatureDeserializer, (void **)&d10),
                         S_OK);
        if (d10) {
            const D3D12_ROOT_SIGNATURE_DESC *back = ID3D12RootSignatureDeserializer_GetRootSignatureDesc(d10);
            D3D12_VERSIONED_ROOT_SIGNATURE_DESC versioned = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_0};
            versioned.Desc_1_0 = *back;
            ID3DBlob *b10 = NULL;
            CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(&versioned, &b10, NULL), S_OK);
            if (b10)
                CHECK(ID3D10Blob_GetBufferSize(b10) == ID3D10Blob_GetBufferSize(blob) &&
                      memcmp(ID3D10Blob_GetBufferPointer(b10), ID3D10Blob_GetBufferPointer(blob),
                             ID3D10Blob_GetBufferSize(blob)) == 0);
            if (b10)
                ID3D10Blob_Release(b10);
            ID3D12RootSignatureDeserializer_Release(d10);
        }
        if (b11)
            ID3D10Blob_Release(b11);
    }
    vk.free_root_signature(&expected);
    if (d)
        ID3D12VersionedRootSignatureDeserializer_Release(d);
    ID3D10Blob_Release(blob);
}

static const d12test_case cases[] = {
    {"empty", case_empty, NULL},
    {"every_type_1_0", case_every_type_1_0, NULL},
    {"every_type_1_1", case_every_type_1_1, NULL},
    {"deserialize_1_1", case_deserialize_1_1, NULL},
    {"convert", case_convert, NULL},
};

static int load_oracle(void)
{
    return d12_vkd3d_shader_load(&vk) ? D12_TEST_SKIP : 0;
}

int main(int argc, char **argv)
{
    return d12test_case_main(argc, argv, cases, sizeof cases / sizeof *cases, load_oracle);
}
