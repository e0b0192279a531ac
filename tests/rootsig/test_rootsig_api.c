/* Root signatures through libd12rt.so's exports, without an oracle: the debug layer's validation (each rule
 * refused with its error text, and its nearest valid neighbour accepted), the serializers' out-pointers, the
 * deserializers on garbage, and the RTS0 chunks the generator embedded in shaders (its Python serializer against
 * the runtime's C one).
 *
 *     test_rootsig_api CASE     (ctest rootsig.api.CASE)      test_rootsig_api --list */
#define COBJMACROS
#include "case_main.h"

#include <stdlib.h>
#include <string.h>

#include "d12_shaders.h"
#include "dxbc.h"
#include "rootsig_cases.h"

#define SENTINEL ((ID3DBlob *)(uintptr_t)0x5e7)

/* ---- Validation rules: each builds a bad and a good description ---- */

typedef struct built {
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
    D3D12_ROOT_PARAMETER1 params[40];
    D3D12_DESCRIPTOR_RANGE1 ranges[8];
    D3D12_STATIC_SAMPLER_DESC samplers[2];
} built;

static void init(built *b, D3D_ROOT_SIGNATURE_VERSION version)
{
    memset(b, 0, sizeof *b);
    b->desc.Version = version;
    b->desc.Desc_1_1.pParameters = b->params;
}

static D3D12_ROOT_PARAMETER1 *add_param(built *b, D3D12_ROOT_PARAMETER_TYPE type, D3D12_SHADER_VISIBILITY visibility)
{
    D3D12_ROOT_PARAMETER1 *p = &b->params[b->desc.Desc_1_1.NumParameters++];
    p->ParameterType = type;
    p->ShaderVisibility = visibility;
    return p;
}

/* A table of `count` ranges starting at b->ranges[first] (filled by the caller). */
static void add_table(built *b, UINT first, UINT count, D3D12_SHADER_VISIBILITY visibility)
{
    D3D12_ROOT_PARAMETER1 *p = add_param(b, D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, visibility);
    p->DescriptorTable = (D3D12_ROOT_DESCRIPTOR_TABLE1){count, &b->ranges[first]};
}

static D3D12_DESCRIPTOR_RANGE1 range(D3D12_DESCRIPTOR_RANGE_TYPE type, UINT count, UINT base, UINT space, UINT flags,
                                     UINT offset)
{
    return (D3D12_DESCRIPTOR_RANGE1){type, count, base, space, flags, offset};
}

static void add_sampler(built *b, UINT reg)
{
    D3D12_STATIC_SAMPLER_DESC *s = &b->samplers[b->desc.Desc_1_1.NumStaticSamplers++];
    *s = rs_samplers[1];
    s->ShaderRegister = reg;
    s->RegisterSpace = 0;
    b->desc.Desc_1_1.pStaticSamplers = b->samplers;
}

#define APPEND D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND
#define V11 D3D_ROOT_SIGNATURE_VERSION_1_1
#define V10 D3D_ROOT_SIGNATURE_VERSION_1_0

static const char *rule_size(built *b, int bad)
{
    init(b, V11);
    D3D12_ROOT_PARAMETER1 *c = add_param(b, D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, D3D12_SHADER_VISIBILITY_ALL);
    c->Constants = (D3D12_ROOT_CONSTANTS){0, 0, 60};
    for (UINT i = 0; i < 2; i++) /* 60 + 2 * 2 = 64 DWORDs; one constant more is 65 */
        add_param(b, D3D12_ROOT_PARAMETER_TYPE_SRV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.ShaderRegister = i;
    c->Constants.Num32BitValues += bad;
    return "more than 64 DWORDs";
}

static const char *rule_size_views(built *b, int bad)
{
    init(b, V10);
    for (UINT i = 0; i < 32u + bad; i++) /* a root descriptor costs 2 DWORDs */
        add_param(b, D3D12_ROOT_PARAMETER_TYPE_CBV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.ShaderRegister = i;
    return "more than 64 DWORDs";
}

static const char *rule_overlap_tables(built *b, int bad)
{
    init(b, V11);
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, 0, APPEND);
    b->ranges[1] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 2, 0, 0, APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_VERTEX);
    add_table(b, 1, 1, bad ? D3D12_SHADER_VISIBILITY_ALL : D3D12_SHADER_VISIBILITY_PIXEL);
    return "Shader register ranges overlap";
}

static const char *rule_overlap_in_table(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 1, 0, APPEND);
    b->ranges[1] = range(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 1, bad ? 1 : 2, 0, APPEND); /* another space: apart */
    add_table(b, 0, 2, D3D12_SHADER_VISIBILITY_ALL);
    return "Shader register ranges overlap";
}

static const char *rule_overlap_root(built *b, int bad)
{
    init(b, V10);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_CBV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.ShaderRegister = 0;
    D3D12_ROOT_PARAMETER1 *c = add_param(b, D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, D3D12_SHADER_VISIBILITY_PIXEL);
    c->Constants = (D3D12_ROOT_CONSTANTS){bad ? 0 : 1, 0, 4};
    return "Shader register ranges overlap";
}

static const char *rule_overlap_static_sampler(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 3, 0, 0, 0, APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    add_sampler(b, bad ? 2 : 3);
    return "static sampler [0]";
}

static const char *rule_visibility(built *b, int bad)
{
    init(b, V10);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_UAV, bad ? (D3D12_SHADER_VISIBILITY)8 : D3D12_SHADER_VISIBILITY_MESH);
    return "is not a D3D12_SHADER_VISIBILITY";
}

static const char *rule_parameter_type(built *b, int bad)
{
    init(b, V10);
    add_param(b, bad ? (D3D12_ROOT_PARAMETER_TYPE)5 : D3D12_ROOT_PARAMETER_TYPE_UAV, D3D12_SHADER_VISIBILITY_ALL);
    return "is not a D3D12_ROOT_PARAMETER_TYPE";
}

static const char *rule_empty_table(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 0, 0, 0, APPEND);
    add_table(b, 0, bad ? 0 : 1, D3D12_SHADER_VISIBILITY_ALL);
    return "a descriptor table with no ranges";
}

static const char *rule_mixed_sampler_table(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0, APPEND);
    b->ranges[1] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 1, 0, 0, 0, APPEND);
    if (bad) {
        add_table(b, 0, 2, D3D12_SHADER_VISIBILITY_ALL);
    } else {
        add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
        add_table(b, 1, 1, D3D12_SHADER_VISIBILITY_ALL);
    }
    return "cannot mix sampler ranges";
}

static const char *rule_zero_descriptors(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, bad ? 0 : 1, 0, 0, 0, APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "NumDescriptors is 0";
}

static const char *rule_register_overflow(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, bad ? 2 : 1, UINT_MAX, 0, 0, APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "pass 0xFFFFFFFF";
}

static const char *rule_reserved_space(built *b, int bad)
{
    init(b, V10);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_SRV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.RegisterSpace =
        bad ? 0xFFFFFFF0u : 0xFFFFFFEFu;
    return "is reserved";
}

static const char *rule_unbounded_then_append(built *b, int bad)
{
    init(b, V11); /* 1.1 ranges (flags 0) */
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, UINT_MAX, 0, 0, 0, 0);
    b->ranges[1] = range(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0, bad ? APPEND : 1000);
    add_table(b, 0, 2, D3D12_SHADER_VISIBILITY_ALL);
    return "appended after an unbounded range";
}

static const char *rule_sampler_address(built *b, int bad)
{
    init(b, V10);
    add_sampler(b, 0);
    b->samplers[0].AddressV = bad ? 0 : D3D12_TEXTURE_ADDRESS_MODE_WRAP;
    return "address modes";
}

static const char *rule_sampler_anisotropy(built *b, int bad)
{
    init(b, V10);
    add_sampler(b, 0);
    b->samplers[0].Filter = D3D12_FILTER_ANISOTROPIC;
    b->samplers[0].MaxAnisotropy = bad ? 17 : 16;
    return "MaxAnisotropy";
}

static const char *rule_sampler_comparison(built *b, int bad)
{
    init(b, V10);
    add_sampler(b, 0);
    b->samplers[0].Filter = D3D12_FILTER_COMPARISON_MIN_MAG_MIP_POINT;
    b->samplers[0].ComparisonFunc = bad ? (D3D12_COMPARISON_FUNC)0 : D3D12_COMPARISON_FUNC_LESS;
    return "comparison function";
}

static const char *rule_sampler_border(built *b, int bad)
{
    init(b, V10);
    add_sampler(b, 0);
    b->samplers[0].BorderColor = bad ? (D3D12_STATIC_BORDER_COLOR)5 : D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE;
    return "border color";
}

static const char *rule_sampler_visibility(built *b, int bad)
{
    init(b, V10);
    add_sampler(b, 0);
    b->samplers[0].ShaderVisibility = bad ? (D3D12_SHADER_VISIBILITY)8 : D3D12_SHADER_VISIBILITY_AMPLIFICATION;
    return "Static sampler [0]: shader visibility";
}

static const char *rule_flags_unknown(built *b, int bad)
{
    init(b, V10);
    /* The heap-indexing flags serialize; only a device refuses them (CreateRootSignature). */
    b->desc.Desc_1_1.Flags = bad ? 0x1000 : 0xFFF;
    return "Unknown root signature flags 0x1000";
}

static const char *rule_flags_data_exclusive(built *b, int bad)
{
    init(b, V11);
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 0, 0,
                         D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC |
                             (bad ? D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE : 0),
                         APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "mutually exclusive";
}

static const char *rule_flags_sampler_range(built *b, int bad)
{
    init(b, V11);
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 1, 0, 0,
                         bad ? D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC
                             : D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE,
                         APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "a sampler range takes no flag";
}

static const char *rule_flags_bounds_checks(built *b, int bad)
{
    init(b, V11);
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0,
                         D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS |
                             (bad ? D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE : 0), APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "cannot be combined with DESCRIPTORS_VOLATILE";
}

static const char *rule_flags_range_unknown(built *b, int bad)
{
    init(b, V11);
    b->ranges[0] = range(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, bad ? 0x20 : 0x10000, APPEND);
    add_table(b, 0, 1, D3D12_SHADER_VISIBILITY_ALL);
    return "unknown flags 0x20";
}

static const char *rule_flags_root_descriptor(built *b, int bad)
{
    init(b, V11);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_CBV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.Flags =
        D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC | (bad ? D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE : 0);
    return "mutually exclusive";
}

static const char *rule_flags_root_descriptor_unknown(built *b, int bad)
{
    init(b, V11);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_UAV, D3D12_SHADER_VISIBILITY_ALL)->Descriptor.Flags =
        bad ? 0x1 : D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE;
    return "unknown root descriptor flags 0x1";
}

static const char *rule_version(built *b, int bad)
{
    init(b, bad ? (D3D_ROOT_SIGNATURE_VERSION)3 : V11);
    return "neither 1.0 (1) nor 1.1 (2)";
}

static const char *rule_null_parameters(built *b, int bad)
{
    init(b, V10);
    add_param(b, D3D12_ROOT_PARAMETER_TYPE_CBV, D3D12_SHADER_VISIBILITY_ALL);
    if (bad)
        b->desc.Desc_1_1.pParameters = NULL;
    return "pParameters is NULL";
}

typedef const char *(*rule_fn)(built *, int);

static void run_rule_case(const void *arg)
{
    rule_fn rule = *(const rule_fn *)arg;
    static built b;
    for (int bad = 0; bad < 2; bad++) {
        const char *expect = rule(&b, bad);
        ID3DBlob *blob = SENTINEL, *error = SENTINEL;
        HRESULT hr = D3D12SerializeVersionedRootSignature(&b.desc, &blob, &error);
        if (!bad) {
            CHECK_EQ_INT(hr, S_OK);
            CHECK(error == NULL);
            if (SUCCEEDED(hr) && CHECK(blob != SENTINEL && blob != NULL))
                ID3D10Blob_Release(blob);
            if (error && error != SENTINEL)
                fprintf(stderr, "unexpected error: %s\n", (const char *)ID3D10Blob_GetBufferPointer(error));
            continue;
        }
        CHECK_EQ_INT(hr, E_INVALIDARG);
        CHECK(blob == SENTINEL); /* a failure leaves *ppBlob as it was */
        if (!CHECK(error != NULL && error != SENTINEL))
            continue;
        const char *text = ID3D10Blob_GetBufferPointer(error);
        SIZE_T size = ID3D10Blob_GetBufferSize(error);
        CHECK(size > 1 && text[size - 1] == '\0' && strlen(text) == size - 1);
        if (!CHECK(strstr(text, expect) != NULL))
            fprintf(stderr, "    error text \"%s\" lacks \"%s\"\n", text, expect);
        ID3D10Blob_Release(error);
    }
}

/* ---- Out-pointers, the 1.0 entry point, garbage, embedded RTS0 ---- */

static void case_out_pointers(const void *unused)
{
    (void)unused;
    D3D12_ROOT_SIGNATURE_DESC desc = {0};
    ID3DBlob *blob = NULL;
    /* A NULL ppErrorBlob is fine either way. */
    CHECK_EQ_INT(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK);
    CHECK(blob != NULL);
    if (blob)
        CHECK_EQ_INT(ID3D10Blob_Release(blob), 0);
    ID3DBlob *error = NULL;
    CHECK_EQ_INT(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, NULL, &error), E_INVALIDARG);
    if (error) /* d12rt says why in an error blob; vkd3d 1.2 gives none */
        ID3D10Blob_Release(error);
    /* The 1.0 entry point serializes 1.0 only. */
    blob = SENTINEL, error = SENTINEL;
    CHECK_EQ_INT(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_1, &blob, &error), E_INVALIDARG);
    CHECK(blob == SENTINEL);
#ifndef PEER_VKD3D /* vkd3d 1.2 refuses it too, without an error blob */
    if (CHECK(error != NULL && error != SENTINEL)) {
        CHECK(strstr(ID3D10Blob_GetBufferPointer(error), "version 1.0 (1) only") != NULL);
        ID3D10Blob_Release(error);
    }
#endif
#ifndef PEER_VKD3D /* vkd3d 1.2 dereferences a NULL description */
    blob = SENTINEL;
    CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(NULL, &blob, NULL), E_INVALIDARG);
    CHECK(blob == SENTINEL);
#endif
    /* A blob's reference count. */
    CHECK_EQ_INT(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK);
    CHECK_EQ_INT(ID3D10Blob_AddRef(blob), 2);
    IUnknown *unknown = NULL;
    CHECK_EQ_INT(ID3D10Blob_QueryInterface(blob, &IID_IUnknown, (void **)&unknown), S_OK);
    CHECK(unknown == (IUnknown *)blob);
    CHECK_EQ_INT(ID3D10Blob_Release(blob), 2);
    CHECK_EQ_INT(ID3D10Blob_Release(blob), 1);
    CHECK_EQ_INT(ID3D10Blob_Release(blob), 0);
}

static HRESULT deserialize(const void *data, SIZE_T size, void **out)
{
    *out = SENTINEL;
    return D3D12CreateVersionedRootSignatureDeserializer(data, size, &IID_ID3D12VersionedRootSignatureDeserializer,
                                                         out);
}

/* Garbage is refused with E_INVALIDARG and a NULL out-pointer; a blob changed in a way that stays well formed
 * (checksum recomputed) is parsed or refused, never read outside its bytes (asan). */
static void case_garbage(const void *unused)
{
    (void)unused;
    void *d = NULL;
    CHECK_EQ_INT(deserialize(NULL, 0, &d), E_INVALIDARG);
    CHECK(d == NULL);
    unsigned char junk[256];
    unsigned seed = 12345;
    for (unsigned round = 0; round < 64; round++) {
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
        if (round & 1)
            memcpy(junk, "DXBC", 4);
        CHECK_EQ_INT(deserialize(junk, 1 + round * 3, &d), E_INVALIDARG);
        CHECK(d == NULL);
    }
    D3D12_ROOT_PARAMETER1 params[6];
    rs_params_11(params);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {.Version = V11};
    desc.Desc_1_1 = (D3D12_ROOT_SIGNATURE_DESC1){6, params, 2, rs_samplers, RS_FLAGS};
    ID3DBlob *blob = NULL;
    CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK);
    if (!blob)
        return;
    size_t size = ID3D10Blob_GetBufferSize(blob);
    unsigned char *copy = malloc(size);
    unsigned refused = 0, parsed = 0;
    for (size_t cut = 0; cut < size; cut++) { /* every truncation */
        memcpy(copy, ID3D10Blob_GetBufferPointer(blob), cut);
        CHECK_EQ_INT(deserialize(copy, cut, &d), E_INVALIDARG);
    }
    for (size_t at = 20; at < size; at++) { /* every byte changed, checksum made right again */
        memcpy(copy, ID3D10Blob_GetBufferPointer(blob), size);
        copy[at] ^= 0xA5;
        uint32_t sum[4];
        d12_dxbc_checksum(copy, size, sum);
        memcpy(copy + 4, sum, 16);
        HRESULT hr = deserialize(copy, size, &d);
        CHECK(hr == S_OK || (hr == E_INVALIDARG && d == NULL));
        if (hr == S_OK) {
            parsed++;
            ID3D12VersionedRootSignatureDeserializer_Release((ID3D12VersionedRootSignatureDeserializer *)d);
        } else {
            refused++;
        }
    }
    CHECK(refused > 0 && parsed > 0); /* offsets and counts refused; registers and flags kept */
    memcpy(copy, ID3D10Blob_GetBufferPointer(blob), size);
    copy[30] ^= 1; /* inside the header, checksum not fixed */
    CHECK_EQ_INT(deserialize(copy, size, &d), E_INVALIDARG);
    free(copy);
    ID3D10Blob_Release(blob);
    /* An interface the object does not have. */
    ID3D12RootSignatureDeserializer *plain = NULL;
    ID3D10Blob *b2 = NULL;
    D3D12_ROOT_SIGNATURE_DESC empty = {0};
    CHECK_EQ_INT(D3D12SerializeRootSignature(&empty, V10, &b2, NULL), S_OK);
    d = SENTINEL;
    CHECK_EQ_INT(D3D12CreateRootSignatureDeserializer(ID3D10Blob_GetBufferPointer(b2), ID3D10Blob_GetBufferSize(b2),
                                                      &IID_ID3D12Device, &d), E_NOINTERFACE);
    CHECK(d == NULL);
    CHECK_EQ_INT(D3D12CreateRootSignatureDeserializer(ID3D10Blob_GetBufferPointer(b2), ID3D10Blob_GetBufferSize(b2),
                                                      &IID_ID3D12RootSignatureDeserializer, (void **)&plain), S_OK);
    if (plain) {
        CHECK_EQ_INT(ID3D12RootSignatureDeserializer_GetRootSignatureDesc(plain)->NumParameters, 0);
        ID3D12RootSignatureDeserializer_Release(plain);
    }
    ID3D10Blob_Release(b2);
}

/* The generator's RTS0 chunks (generator/rootsig.py) are what the runtime writes for the same description, and
 * a shader without one is refused by the deserializer. */
static void case_shader_rts0(const void *unused)
{
    (void)unused;
    unsigned with = 0;
    for (unsigned i = 0; i < D12_SHADER_COUNT; i++) {
        const d12_shader_blob *shader = &d12_shaders[i];
        void *d = NULL;
        HRESULT hr = deserialize(shader->code, shader->size, &d);
        if (!shader->has_root_signature) {
#ifdef PEER_VKD3D /* vkd3d 1.2 deserializes a container without RTS0 as an empty root signature */
            if (hr == S_OK)
                ID3D12VersionedRootSignatureDeserializer_Release((ID3D12VersionedRootSignatureDeserializer *)d);
#else
            CHECK_EQ_INT(hr, E_INVALIDARG);
#endif
            continue;
        }
        with++;
        if (!CHECK(hr == S_OK))
            continue;
        ID3D12VersionedRootSignatureDeserializer *v = d;
        ID3DBlob *blob = NULL;
        CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(
                         ID3D12VersionedRootSignatureDeserializer_GetUnconvertedRootSignatureDesc(v), &blob, NULL),
                     S_OK);
        d12_dxbc mine, theirs;
        if (blob &&
            d12_dxbc_parse(ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob), &mine, NULL, 0) == 0 &&
            d12_dxbc_parse(shader->code, shader->size, &theirs, NULL, 0) == 0) {
            const d12_dxbc_chunk *a = d12_dxbc_find(&mine, D12_DXBC_TAG_RTS0);
            const d12_dxbc_chunk *b = d12_dxbc_find(&theirs, D12_DXBC_TAG_RTS0);
            CHECK(a && b && a->size == b->size && memcmp(a->data, b->data, a->size) == 0);
        } else {
            CHECK(!"serialized and parsed");
        }
        if (blob)
            ID3D10Blob_Release(blob);
        ID3D12VersionedRootSignatureDeserializer_Release(v);
    }
    CHECK(with >= 2);
}

#define RULE(name, fn) {name, run_rule_case, &(const rule_fn){fn}}
#define CASE(name, fn) {name, fn, NULL}

static const d12test_case cases[] = {
    RULE("rule_size_64_dwords", rule_size),
    RULE("rule_size_64_dwords_root_views", rule_size_views),
    RULE("rule_overlap_tables", rule_overlap_tables),
    RULE("rule_overlap_in_table_space", rule_overlap_in_table),
    RULE("rule_overlap_root_parameters", rule_overlap_root),
    RULE("rule_overlap_static_sampler", rule_overlap_static_sampler),
    RULE("rule_visibility", rule_visibility),
    RULE("rule_parameter_type", rule_parameter_type),
    RULE("rule_empty_table", rule_empty_table),
    RULE("rule_mixed_sampler_table", rule_mixed_sampler_table),
    RULE("rule_zero_descriptors", rule_zero_descriptors),
    RULE("rule_register_overflow", rule_register_overflow),
    RULE("rule_reserved_space", rule_reserved_space),
    RULE("rule_unbounded_then_append", rule_unbounded_then_append),
    RULE("rule_static_sampler_address", rule_sampler_address),
    RULE("rule_static_sampler_anisotropy", rule_sampler_anisotropy),
    RULE("rule_static_sampler_comparison", rule_sampler_comparison),
    RULE("rule_static_sampler_border", rule_sampler_border),
    RULE("rule_static_sampler_visibility", rule_sampler_visibility),
    RULE("rule_flags_unknown", rule_flags_unknown),
    RULE("rule_flags_1_1_data_exclusive", rule_flags_data_exclusive),
    RULE("rule_flags_1_1_sampler_range", rule_flags_sampler_range),
    RULE("rule_flags_1_1_bounds_checks", rule_flags_bounds_checks),
    RULE("rule_flags_1_1_range_unknown", rule_flags_range_unknown),
    RULE("rule_flags_1_1_root_descriptor", rule_flags_root_descriptor),
    RULE("rule_flags_1_1_root_descriptor_unknown", rule_flags_root_descriptor_unknown),
    RULE("rule_version", rule_version),
    RULE("rule_null_parameters", rule_null_parameters),
    CASE("out_pointers", case_out_pointers),
    CASE("garbage", case_garbage),
    CASE("shader_rts0", case_shader_rts0),
};

int main(int argc, char **argv)
{
    return d12test_case_main(argc, argv, cases, sizeof cases / sizeof *cases, NULL);
}
