/* Capabilities d12rt can stand behind (issue 27; docs/claims.md), through the public ABI, on whichever driver
 * D12RT_DRIVER names (CMake registers every case on the reference driver and on the Vulkan driver).
 * `test_claims CASE` runs one case:
 *   sweep             every BOOL, tier and flags field of every feature is 0 but the claims listed here (each with
 *                     the case that exercises what it promises)
 *   shader_model      5.1 for any newer request; root_signature: 1.1 (1.0 when 1.0 is asked), and a 1.1 root
 *                     signature is created; feature_level: 12_0 and devices to match
 *   formats           no texture, render-target, depth-stencil or multisample support while textures cannot be
 *                     created; UNKNOWN is a buffer format and R16/R32_UINT index formats, both usable
 *   queue_priority    PriorityForTypeIsSupported is exactly what CreateCommandQueue accepts
 *   compute_states    ExpandedComputeResourceStates: a compute list's barrier through copy states records
 *   architecture      the reference driver: UMA; the Vulkan driver: what its VkPhysicalDevice is
 *   newest_tiers      D12RT_REFDRV_PROFILE=newest-tiers: the model on the reference driver, ignored by Vulkan
 *   newest_tiers_file `./newest-tiers` is a profile file over what is implemented
 *   out_pointers      every failed creation or QueryInterface leaves *ppv NULL */
#define _POSIX_C_SOURCE 200809L
#define COBJMACROS
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <d12rt/d3d12_ext.h>
#ifndef D12_CLAIMS_NO_VULKAN
#include <vulkan/vulkan.h>
#endif

#include "d12caps.h"
#include "harness.h"

static bool on_vulkan(void)
{
    const char *driver = getenv("D12RT_DRIVER");
    return driver && strstr(driver, "vulkan");
}

static ID3D12Device *create_device(D3D_FEATURE_LEVEL level, HRESULT *hr_out)
{
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, level, &IID_ID3D12Device, (void **)&device);
    if (hr_out)
        *hr_out = hr;
    return SUCCEEDED(hr) ? device : NULL;
}

static ID3D12Device *device_or_fail(void)
{
    HRESULT hr;
    ID3D12Device *device = create_device(D3D_FEATURE_LEVEL_11_0, &hr);
    if (!CHECK(device != NULL))
        fprintf(stderr, "    D3D12CreateDevice: %#x\n", (unsigned)hr);
    return device;
}

/* ---- sweep ---- */

typedef struct claim {
    const char *feature, *field;
    int64_t value;
} claim;

/* Every non-zero BOOL, tier or flags answer of `implemented` (drivers/reference/refdrv_claims.c), and where it is
 * proven: the floors by the binding-model issue's tests, ExpandedComputeResourceStates by compute_states. */
static const claim k_claims[] = {
    {"D3D12_FEATURE_D3D12_OPTIONS", "ResourceBindingTier", D3D12_RESOURCE_BINDING_TIER_1},
    {"D3D12_FEATURE_D3D12_OPTIONS", "ResourceHeapTier", D3D12_RESOURCE_HEAP_TIER_1},
    {"D3D12_FEATURE_D3D12_OPTIONS21", "ExecuteIndirectTier", 10 /* D3D12_EXECUTE_INDIRECT_TIER_1_0 */},
    {"D3D12_FEATURE_D3D12_OPTIONS1", "ExpandedComputeResourceStates", TRUE},
};

/* Answered by the device as it is (architecture) or for the query's inputs (queue_priority). */
static bool checked_elsewhere(const char *feature)
{
    return !strcmp(feature, "D3D12_FEATURE_ARCHITECTURE") || !strcmp(feature, "D3D12_FEATURE_ARCHITECTURE1") ||
           !strcmp(feature, "D3D12_FEATURE_COMMAND_QUEUE_PRIORITY");
}

static const claim *claim_of(const char *feature, const char *field)
{
    for (size_t i = 0; i < sizeof k_claims / sizeof k_claims[0]; i++) {
        if (!strcmp(k_claims[i].feature, feature) && !strcmp(k_claims[i].field, field))
            return &k_claims[i];
    }
    return NULL;
}

static const d12_caps_layout *newest_layout(const d12_caps_feature *feature, d12_caps_version version)
{
    const d12_caps_layout *best = NULL;
    for (uint32_t i = 0; feature->struct_name && i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        if (layout->first[version.line] <= version.number && (!best || layout->size > best->size))
            best = layout;
    }
    return best;
}

static int64_t field_value(const unsigned char *bytes, const d12_caps_field *field)
{
    int64_t value = 0;
    memcpy(&value, bytes + field->offset, field->size < sizeof value ? field->size : sizeof value);
    if (field->size == 4)
        value = (int32_t)value; /* D3D12_TRI_STATE_UNKNOWN is -1 */
    return value;
}

static bool is_claim_kind(d12_caps_field_kind kind)
{
    return kind == D12_CAPS_FIELD_BOOL || kind == D12_CAPS_FIELD_TIER || kind == D12_CAPS_FIELD_FLAGS;
}

static void sweep_feature(ID3D12Device *device, const d12_caps_feature *feature, const d12_caps_layout *layout)
{
    unsigned char bytes[1024] = {0}; /* zero inputs: NodeIndex 0; features that need real inputs fail and are skipped */
    if (layout->size > sizeof bytes ||
        FAILED(ID3D12Device_CheckFeatureSupport(device, (D3D12_FEATURE)feature->value, bytes, layout->size)))
        return;
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        if (!is_claim_kind(field->kind))
            continue;
        const claim *c = claim_of(feature->name, field->name);
        int64_t value = field_value(bytes, field), expected = c ? c->value : 0;
        if (!d12test_record(value == expected, __FILE__, __LINE__, "an unclaimed capability is 0"))
            fprintf(stderr, "    %s.%s = %lld, expected %lld\n", feature->name, field->name, (long long)value,
                    (long long)expected);
    }
}

static void test_sweep(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    d12_caps_version version;
    d12_caps_flavor flavor;
    CHECK(d12_caps_flavor_from_environment(&flavor));
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &version);
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    unsigned swept = 0;
    for (uint32_t f = 0; f < count; f++) {
        const d12_caps_layout *layout = newest_layout(&features[f], version);
        if (!layout || features[f].never_clamped || checked_elsewhere(features[f].name))
            continue;
        sweep_feature(device, &features[f], layout);
        swept++;
    }
    CHECK(swept > 40);
    ID3D12Device_Release(device);
}

/* ---- shader model, root signature, feature level ---- */

static void test_shader_model(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    static const D3D_SHADER_MODEL asked[] = {D3D_SHADER_MODEL_6_7, D3D_SHADER_MODEL_6_0, D3D_SHADER_MODEL_5_1};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        D3D12_FEATURE_DATA_SHADER_MODEL model = {asked[i]};
        CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model), S_OK);
        CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_5_1);
    }
    ID3D12Device_Release(device);
}

static void test_root_signature(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    D3D12_FEATURE_DATA_ROOT_SIGNATURE version = {D3D_ROOT_SIGNATURE_VERSION_1_1};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_ROOT_SIGNATURE, &version, sizeof version),
                 S_OK);
    CHECK_EQ_INT(version.HighestVersion, D3D_ROOT_SIGNATURE_VERSION_1_1);
    version.HighestVersion = D3D_ROOT_SIGNATURE_VERSION_1_0; /* an application that knows 1.0 only */
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_ROOT_SIGNATURE, &version, sizeof version),
                 S_OK);
    CHECK_EQ_INT(version.HighestVersion, D3D_ROOT_SIGNATURE_VERSION_1_0);
    /* What the claim promises: a 1.1 root signature (1.1 flags on a range and a root view) is created. */
    D3D12_DESCRIPTOR_RANGE1 range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE,
                                     0};
    D3D12_ROOT_PARAMETER1 params[2] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_CBV, .Descriptor = {0, 0, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC},
         D3D12_SHADER_VISIBILITY_ALL},
    };
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {D3D_ROOT_SIGNATURE_VERSION_1_1,
                                                .Desc_1_1 = {2, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE}};
    ID3DBlob *blob = NULL;
    CHECK_EQ_INT(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK);
    ID3D12RootSignature *signature = NULL;
    if (blob) {
        CHECK_EQ_INT(ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                      ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                      (void **)&signature),
                     S_OK);
        ID3D10Blob_Release(blob);
    }
    if (signature)
        CHECK_EQ_INT(ID3D12RootSignature_Release(signature), 0);
    ID3D12Device_Release(device);
}

static void test_feature_level(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    D3D_FEATURE_LEVEL asked[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_12_0,
                                 D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2};
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {5, asked, 0};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels), S_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_0);
    ID3D12Device_Release(device);
    /* The seed's sample program creates its device at 12_0: it works; above it, no device. */
    HRESULT hr;
    device = create_device(D3D_FEATURE_LEVEL_12_0, &hr);
    CHECK_EQ_INT(hr, S_OK);
    if (device)
        ID3D12Device_Release(device);
    device = create_device(D3D_FEATURE_LEVEL_12_1, &hr);
    CHECK(device == NULL && FAILED(hr));
    CHECK(create_device(D3D_FEATURE_LEVEL_12_2, &hr) == NULL);
}

/* ---- formats ---- */

#define TEXTURE_LIKE                                                                                              \
    (D3D12_FORMAT_SUPPORT1_TEXTURE1D | D3D12_FORMAT_SUPPORT1_TEXTURE2D | D3D12_FORMAT_SUPPORT1_TEXTURE3D |       \
     D3D12_FORMAT_SUPPORT1_TEXTURECUBE | D3D12_FORMAT_SUPPORT1_RENDER_TARGET | D3D12_FORMAT_SUPPORT1_DEPTH_STENCIL | \
     D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RENDERTARGET | D3D12_FORMAT_SUPPORT1_MULTISAMPLE_LOAD |                   \
     D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RESOLVE | D3D12_FORMAT_SUPPORT1_SHADER_SAMPLE |                          \
     D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW | D3D12_FORMAT_SUPPORT1_DISPLAY | D3D12_FORMAT_SUPPORT1_MIP)

static HRESULT create_texture(ID3D12Device *device, DXGI_FORMAT format, ID3D12Resource **out)
{
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_TEXTURE2D, 0, 64, 64, 1, 1, format, {1, 0},
                                D3D12_TEXTURE_LAYOUT_UNKNOWN, D3D12_RESOURCE_FLAG_NONE};
    *out = (ID3D12Resource *)(uintptr_t)0x5E5E5E5E;
    return ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                (void **)out);
}

static void check_format(ID3D12Device *device, UINT format)
{
    D3D12_FEATURE_DATA_FORMAT_SUPPORT support = {.Format = (DXGI_FORMAT)format};
    HRESULT hr = ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FORMAT_SUPPORT, &support, sizeof support);
    if (SUCCEEDED(hr)) {
        if (!CHECK((support.Support1 & TEXTURE_LIKE) == 0 && support.Support2 == 0))
            fprintf(stderr, "    format %u: Support1 %#x Support2 %#x\n", format, support.Support1, support.Support2);
    }
    for (UINT count = 2; count <= 32; count *= 2) {
        D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS levels = {.Format = (DXGI_FORMAT)format, .SampleCount = count};
        ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &levels, sizeof levels);
        if (!CHECK(levels.NumQualityLevels == 0))
            fprintf(stderr, "    format %u: %u levels at %ux\n", format, levels.NumQualityLevels, count);
    }
}

static void test_formats(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    for (UINT format = 0; format < 192; format++)
        check_format(device, format);
    /* What is claimed works: UNKNOWN buffers exist, R16_UINT and R32_UINT index buffers are accepted. */
    D3D12_FEATURE_DATA_FORMAT_SUPPORT unknown = {.Format = DXGI_FORMAT_UNKNOWN},
                                      index16 = {.Format = DXGI_FORMAT_R16_UINT},
                                      rgba = {.Format = DXGI_FORMAT_R8G8B8A8_UNORM};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FORMAT_SUPPORT, &unknown, sizeof unknown), S_OK);
    CHECK_EQ_INT(unknown.Support1, D3D12_FORMAT_SUPPORT1_BUFFER);
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FORMAT_SUPPORT, &index16, sizeof index16), S_OK);
    CHECK_EQ_INT(index16.Support1, D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER);
    /* A format that can be nothing yet is not supported at all, and its texture cannot be created either. */
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FORMAT_SUPPORT, &rgba, sizeof rgba), E_FAIL);
    ID3D12Resource *texture;
    CHECK(FAILED(create_texture(device, DXGI_FORMAT_R8G8B8A8_UNORM, &texture)));
    CHECK(texture == NULL);
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_UPLOAD};
    D3D12_RESOURCE_DESC buffer_desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                       D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &buffer_desc,
                                                      D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                      (void **)&buffer),
                 S_OK);
    if (buffer)
        ID3D12Resource_Release(buffer);
    ID3D12Device_Release(device);
}

/* ---- queue priorities ---- */

static void test_queue_priority(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    static const D3D12_COMMAND_LIST_TYPE types[] = {D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                    D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_LIST_TYPE_COPY,
                                                    D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE};
    static const INT priorities[] = {D3D12_COMMAND_QUEUE_PRIORITY_NORMAL, D3D12_COMMAND_QUEUE_PRIORITY_HIGH,
                                     D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME, 7};
    unsigned supported = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (size_t p = 0; p < sizeof priorities / sizeof priorities[0]; p++) {
            D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY query = {types[t], (UINT)priorities[p], 0x77};
            CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_COMMAND_QUEUE_PRIORITY, &query,
                                                          sizeof query),
                         S_OK);
            D3D12_COMMAND_QUEUE_DESC desc = {types[t], priorities[p], D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
            ID3D12CommandQueue *queue = NULL;
            HRESULT hr = ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue);
            if (!CHECK(query.PriorityForTypeIsSupported == SUCCEEDED(hr)))
                fprintf(stderr, "    type %d priority %d: answered %d, creation %#x\n", types[t], priorities[p],
                        query.PriorityForTypeIsSupported, (unsigned)hr);
            supported += query.PriorityForTypeIsSupported != 0;
            if (queue)
                ID3D12CommandQueue_Release(queue);
        }
    }
    CHECK_EQ_INT(supported, 9); /* direct, compute, copy × NORMAL, HIGH, GLOBAL_REALTIME */
    ID3D12Device_Release(device);
}

/* ---- ExpandedComputeResourceStates ---- */

static void test_compute_states(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Resource *buffer = NULL;
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_UNORDERED_ACCESS, NULL,
                                                      &IID_ID3D12Resource, (void **)&buffer), S_OK);
    if (list && buffer) {
        D3D12_RESOURCE_BARRIER barriers[2] = {
            {D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, D3D12_RESOURCE_BARRIER_FLAG_NONE,
             .Transition = {buffer, 0, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE}},
            {D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, D3D12_RESOURCE_BARRIER_FLAG_NONE,
             .Transition = {buffer, 0, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_COPY_DEST}}};
        ID3D12GraphicsCommandList_ResourceBarrier(list, 2, barriers);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    }
    if (buffer)
        ID3D12Resource_Release(buffer);
    if (list)
        ID3D12GraphicsCommandList_Release(list);
    if (allocator)
        ID3D12CommandAllocator_Release(allocator);
    ID3D12Device_Release(device);
}

/* ---- ARCHITECTURE ---- */

/* The physical device the Vulkan driver picks with D12RT_VULKAN_DEVICE unset: the first discrete GPU, else the
 * first (docs/vulkan.md); UMA exactly when it is integrated or the CPU. */
static bool vulkan_device_is_uma(void)
{
#ifdef D12_CLAIMS_NO_VULKAN
    return false;
#else
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance instance;
    if (vkCreateInstance(&info, NULL, &instance) != VK_SUCCESS)
        return false;
    uint32_t count = 8;
    VkPhysicalDevice physical[8];
    vkEnumeratePhysicalDevices(instance, &count, physical);
    VkPhysicalDeviceType chosen = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(physical[i], &properties);
        if (i == 0 || properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
            chosen = properties.deviceType;
        if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
            break;
    }
    vkDestroyInstance(instance, NULL);
    return chosen == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || chosen == VK_PHYSICAL_DEVICE_TYPE_CPU;
#endif
}

static void test_architecture(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    D3D12_FEATURE_DATA_ARCHITECTURE1 architecture = {0};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_ARCHITECTURE1, &architecture,
                                                  sizeof architecture), S_OK);
    D3D12_FEATURE_DATA_ARCHITECTURE old = {0};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_ARCHITECTURE, &old, sizeof old), S_OK);
    bool uma = on_vulkan() ? vulkan_device_is_uma() : true;
    CHECK_EQ_INT(architecture.UMA, uma);
    CHECK_EQ_INT(old.UMA, uma);
    CHECK_EQ_INT(architecture.TileBasedRenderer, FALSE);
    CHECK_EQ_INT(architecture.IsolatedMMU, TRUE);
    CHECK(!architecture.CacheCoherentUMA || architecture.UMA); /* coherent UMA is UMA */
    CHECK_EQ_INT(old.CacheCoherentUMA, architecture.CacheCoherentUMA);
    if (!on_vulkan())
        CHECK_EQ_INT(architecture.CacheCoherentUMA, TRUE);
    ID3D12Device_Release(device);
}

/* ---- the model on request ---- */

static void test_newest_tiers(void)
{
    setenv("D12RT_REFDRV_PROFILE", "newest-tiers", 1);
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {0};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5),
                 S_OK);
    D3D12_FEATURE_DATA_SHADER_MODEL model = {D3D_SHADER_MODEL_6_7};
    ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model);
    D3D12_FEATURE_DATA_FORMAT_SUPPORT rgba = {.Format = DXGI_FORMAT_R8G8B8A8_UNORM};
    HRESULT format_hr =
        ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_FORMAT_SUPPORT, &rgba, sizeof rgba);
    if (on_vulkan()) { /* the Vulkan driver's claims never come from D12RT_REFDRV_PROFILE */
        CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_NOT_SUPPORTED);
        CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_5_1);
        CHECK_EQ_INT(format_hr, E_FAIL);
    } else { /* the model: newest tiers everywhere, the formats of spec/formats.yaml */
        CHECK(options5.RaytracingTier >= D3D12_RAYTRACING_TIER_1_1);
        CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_6_7);
        CHECK_EQ_INT(format_hr, S_OK);
        CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_TEXTURE2D);
    }
    ID3D12Device_Release(device);
}

static void test_newest_tiers_file(void)
{
    char dir[] = "/tmp/d12claims-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL) || !CHECK(chdir(dir) == 0))
        return;
    FILE *file = fopen("newest-tiers", "w");
    if (!CHECK(file != NULL))
        return;
    fputs("D3D12_FEATURE_D3D12_OPTIONS5.RaytracingTier = D3D12_RAYTRACING_TIER_1_0\n", file);
    fclose(file);
    setenv("D12RT_REFDRV_PROFILE", "./newest-tiers", 1);
    ID3D12Device *device = device_or_fail();
    if (device) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {0};
        ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5);
        D3D12_FEATURE_DATA_SHADER_MODEL model = {D3D_SHADER_MODEL_6_7};
        ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model);
        /* A file applies over what is implemented: its one line, nothing of the model; the Vulkan driver reads no
         * profile at all. */
        CHECK_EQ_INT(options5.RaytracingTier, on_vulkan() ? D3D12_RAYTRACING_TIER_NOT_SUPPORTED : D3D12_RAYTRACING_TIER_1_0);
        CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_5_1);
        ID3D12Device_Release(device);
    }
    unlink("newest-tiers");
    CHECK(chdir("/") == 0);
    rmdir(dir);
}

/* ---- COM out-pointers ---- */

#define SENTINEL ((void *)(uintptr_t)0x5E5E5E5E)

/* A refused creation leaves *ppv NULL; one that succeeds (once implemented) is released. */
static void check_out(const char *what, HRESULT hr, void *out)
{
    if (SUCCEEDED(hr)) {
        if (CHECK(out != NULL && out != SENTINEL))
            IUnknown_Release((IUnknown *)out);
        return;
    }
    if (!CHECK(out == NULL))
        fprintf(stderr, "    %s: %#x left *ppv at %p\n", what, (unsigned)hr, out);
}

static void test_out_pointers(void)
{
    ID3D12Device *device = device_or_fail();
    if (!device)
        return;
    HRESULT hr; /* the call, then the check: its arguments' order of evaluation is unspecified */
    void *out = SENTINEL;
    D3D12_QUERY_HEAP_DESC query_desc = {D3D12_QUERY_HEAP_TYPE_OCCLUSION, 4, 0};
    hr = ID3D12Device_CreateQueryHeap(device, &query_desc, &IID_ID3D12QueryHeap, &out);
    check_out("CreateQueryHeap", hr, out);
    out = SENTINEL;
    D3D12_INDIRECT_ARGUMENT_DESC argument = {.Type = D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH};
    D3D12_COMMAND_SIGNATURE_DESC signature_desc = {sizeof(D3D12_DISPATCH_ARGUMENTS), 1, &argument, 0};
    hr = ID3D12Device_CreateCommandSignature(device, &signature_desc, NULL, &IID_ID3D12CommandSignature, &out);
    check_out("CreateCommandSignature", hr, out);
    out = SENTINEL;
    D3D12_RESOURCE_DESC reserved = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 65536, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                    D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    hr = ID3D12Device_CreateReservedResource(device, &reserved, D3D12_RESOURCE_STATE_COMMON, NULL,
                                                  &IID_ID3D12Resource, &out);
    check_out("CreateReservedResource", hr, out);
    out = SENTINEL;
    static const DWORD garbage[4] = {0xDEADBEEF, 1, 2, 3};
    hr = ID3D12Device_CreateRootSignature(device, 0, garbage, sizeof garbage, &IID_ID3D12RootSignature, &out);
    check_out("CreateRootSignature", hr, out);
    out = SENTINEL;
    D3D12_COMPUTE_PIPELINE_STATE_DESC compute = {.CS = {garbage, sizeof garbage}};
    hr = ID3D12Device_CreateComputePipelineState(device, &compute, &IID_ID3D12PipelineState, &out);
    check_out("CreateComputePipelineState", hr, out);
    out = SENTINEL;
    D3D12_GRAPHICS_PIPELINE_STATE_DESC graphics = {0};
    hr = ID3D12Device_CreateGraphicsPipelineState(device, &graphics, &IID_ID3D12PipelineState, &out);
    check_out("CreateGraphicsPipelineState", hr, out);
    out = SENTINEL;
    D3D12_HEAP_DESC heap_desc = {0, {.Type = D3D12_HEAP_TYPE_DEFAULT}, 0, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS};
    hr = ID3D12Device_CreateHeap(device, &heap_desc, &IID_ID3D12Heap, &out); /* size 0: refused in any case */
    check_out("CreateHeap", hr, out);
    out = SENTINEL;
    hr = ID3D12Device_CreatePlacedResource(device, NULL, 0, &reserved, D3D12_RESOURCE_STATE_COMMON, NULL,
                                           &IID_ID3D12Resource, &out);
    check_out("CreatePlacedResource", hr, out);
    out = SENTINEL;
    D3D12_DESCRIPTOR_HEAP_DESC descriptor_heap = {(D3D12_DESCRIPTOR_HEAP_TYPE)77, 16, 0, 0};
    hr = ID3D12Device_CreateDescriptorHeap(device, &descriptor_heap, &IID_ID3D12DescriptorHeap, &out);
    check_out("CreateDescriptorHeap", hr, out);
    out = SENTINEL;
    hr = ID3D12Device_OpenSharedHandle(device, (HANDLE)(uintptr_t)77, &IID_ID3D12Heap, &out);
    check_out("OpenSharedHandle", hr, out);
    out = SENTINEL;
    static const GUID unknown_iid = {0x12345678, 0x9abc, 0xdef0, {1, 2, 3, 4, 5, 6, 7, 8}};
    hr = ID3D12Device_QueryInterface(device, &unknown_iid, &out);
    check_out("ID3D12Device::QueryInterface", hr, out);
    ID3D12Fence *fence = NULL;
    if (CHECK(SUCCEEDED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence)))) {
        out = SENTINEL;
        hr = ID3D12Fence_QueryInterface(fence, &unknown_iid, &out);
        check_out("ID3D12Fence::QueryInterface", hr, out);
        ID3D12Fence_Release(fence);
    }
    ID3D12Device_Release(device);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"sweep", test_sweep},
        {"shader_model", test_shader_model},
        {"root_signature", test_root_signature},
        {"feature_level", test_feature_level},
        {"formats", test_formats},
        {"queue_priority", test_queue_priority},
        {"compute_states", test_compute_states},
        {"architecture", test_architecture},
        {"newest_tiers", test_newest_tiers},
        {"newest_tiers_file", test_newest_tiers_file},
        {"out_pointers", test_out_pointers},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (!strcmp(argv[1], cases[i].name)) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}
