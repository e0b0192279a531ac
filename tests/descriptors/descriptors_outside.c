/* Descriptor heaps, views, samplers and copies through the public D3D12 API alone (issue 30, "Checked by";
 * docs/descriptors.md): built against d12rt (run on the reference driver and on the Vulkan driver) and, where
 * Debian's libvkd3d-utils is found, against vkd3d 1.2 on lavapipe (tests/descriptors/CMakeLists.txt), so every
 * expectation is one a correct D3D12 implementation meets. The debug layer's messages are read through
 * ID3D12InfoQueue, which vkd3d 1.2 does not have: the vkd3d build checks the rest (D3D12_MESSAGE below).
 *
 *   descriptors_outside CASE   heap_types | heap_limits | heap_ranges | cbv | srv | uav | uav_counter | sampler |
 *                              copy_simple | copy_ranges | set_heaps | no_table
 *
 * Ends with "N passed, N failed"; exit 0 only when nothing failed. */
#include "../outside/outside.h"

/* What vkd3d 1.2 does not do that D3D12's debug layer does; those checks are left out of the vkd3d build (each
 * noted in docs/descriptors.md, "vkd3d 1.2"):
 * - no ID3D12InfoQueue: no message can be read;
 * - CreateDescriptorHeap checks neither the shader-visible limits nor RTV/DSV visibility (it creates the heap), and
 *   crashes on a NULL ppvHeap (D3D12 answers S_FALSE);
 * - a heap that is not shader-visible still has a GPU start (D3D12: the null handle);
 * - views, samplers and copies are not validated: an invalid one is undefined behaviour there (an assertion for a
 *   counter on a raw view, heap corruption for a copy past a heap's end), so the vkd3d build makes no invalid call. */

static D3D12_CPU_DESCRIPTOR_HANDLE cpu_start(ID3D12DescriptorHeap *heap)
{
    return STRUCT_CALL(D3D12_CPU_DESCRIPTOR_HANDLE, heap, GetCPUDescriptorHandleForHeapStart);
}

static D3D12_GPU_DESCRIPTOR_HANDLE gpu_start(ID3D12DescriptorHeap *heap)
{
    return STRUCT_CALL(D3D12_GPU_DESCRIPTOR_HANDLE, heap, GetGPUDescriptorHandleForHeapStart);
}

static D3D12_DESCRIPTOR_HEAP_DESC heap_get_desc(ID3D12DescriptorHeap *heap)
{
    return STRUCT_CALL(D3D12_DESCRIPTOR_HEAP_DESC, heap, GetDesc);
}

static HRESULT create_heap(D3D12_DESCRIPTOR_HEAP_TYPE type, UINT count, D3D12_DESCRIPTOR_HEAP_FLAGS flags,
                           ID3D12DescriptorHeap **out)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {type, count, flags, 0};
    *out = (ID3D12DescriptorHeap *)(uintptr_t)1; /* a failure must clear it */
    return ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, (void **)out);
}

static ID3D12DescriptorHeap *heap_or_fail(D3D12_DESCRIPTOR_HEAP_TYPE type, UINT count, D3D12_DESCRIPTOR_HEAP_FLAGS flags)
{
    ID3D12DescriptorHeap *heap;
    if (!CHECK_HR(create_heap(type, count, flags, &heap), S_OK))
        return NULL;
    return heap;
}

static ID3D12Resource *buffer(D3D12_HEAP_TYPE type, UINT64 width, D3D12_RESOURCE_FLAGS flags)
{
    D3D12_HEAP_PROPERTIES properties = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, flags};
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                                                 : D3D12_RESOURCE_STATE_COMMON;
    ID3D12Resource *resource = NULL;
    CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &properties, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                  &IID_ID3D12Resource, (void **)&resource),
             S_OK);
    return resource;
}

static D3D12_CPU_DESCRIPTOR_HANDLE at(D3D12_CPU_DESCRIPTOR_HANDLE start, D3D12_DESCRIPTOR_HEAP_TYPE type, UINT index)
{
    start.ptr += (SIZE_T)index * ID3D12Device_GetDescriptorHandleIncrementSize(g_device, type);
    return start;
}

#define CBV_SRV_UAV D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV
#define VISIBLE D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE
#define CPU_ONLY D3D12_DESCRIPTOR_HEAP_FLAG_NONE

/* ---- heap_types: every type, CPU-only and (where allowed) shader-visible; GetDesc, increments, starts ---- */
static void test_heap_types(void)
{
    for (UINT type = 0; type < D3D12_DESCRIPTOR_HEAP_TYPE_NUM_TYPES; type++) {
        UINT increment = ID3D12Device_GetDescriptorHandleIncrementSize(g_device, (D3D12_DESCRIPTOR_HEAP_TYPE)type);
        CHECK(increment > 0);
        ID3D12DescriptorHeap *heap = heap_or_fail((D3D12_DESCRIPTOR_HEAP_TYPE)type, 8, CPU_ONLY);
        if (!heap)
            continue;
        D3D12_DESCRIPTOR_HEAP_DESC desc = heap_get_desc(heap);
        CHECK(desc.Type == type && desc.NumDescriptors == 8 && desc.Flags == CPU_ONLY);
        CHECK(cpu_start(heap).ptr != 0);
        NO_ERROR_MESSAGE();
        D3D12_RULE(CHECK(gpu_start(heap).ptr == 0)); /* not shader-visible: the null handle */
        D3D12_MESSAGE(D3D12_MESSAGE_ID_DESCRIPTOR_HEAP_NOT_SHADER_VISIBLE);
        CHECK(ID3D12DescriptorHeap_Release(heap) == 0);
        if (type > D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER)
            continue;
        heap = heap_or_fail((D3D12_DESCRIPTOR_HEAP_TYPE)type, 8, VISIBLE);
        if (!heap)
            continue;
        CHECK(heap_get_desc(heap).Flags == VISIBLE);
        CHECK(cpu_start(heap).ptr != 0 && gpu_start(heap).ptr != 0);
        NO_ERROR_MESSAGE();
        ID3D12DescriptorHeap_Release(heap);
    }
}

/* ---- heap_limits: the shader-visible limits at binding tiers 1 and 2, RTV/DSV never visible, bad descriptions ---- */
static void test_heap_limits(void)
{
    ID3D12DescriptorHeap *heap;
    if (CHECK_HR(create_heap(CBV_SRV_UAV, 1000000, VISIBLE, &heap), S_OK))
        ID3D12DescriptorHeap_Release(heap);
    if (CHECK_HR(create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 2048, VISIBLE, &heap), S_OK))
        ID3D12DescriptorHeap_Release(heap);
    NO_ERROR_MESSAGE();
    /* A CPU-only heap has no such limit. */
    if (CHECK_HR(create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 4096, CPU_ONLY, &heap), S_OK))
        ID3D12DescriptorHeap_Release(heap);
    D3D12_RULE(CHECK_HR(create_heap(CBV_SRV_UAV, 1000001, VISIBLE, &heap), E_INVALIDARG));
    D3D12_RULE(CHECK(heap == NULL));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    D3D12_RULE(CHECK_HR(create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 2049, VISIBLE, &heap), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    D3D12_RULE(CHECK_HR(create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_RTV, 4, VISIBLE, &heap), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    D3D12_RULE(CHECK_HR(create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_DSV, 4, VISIBLE, &heap), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    D3D12_RULE(CHECK_HR(create_heap((D3D12_DESCRIPTOR_HEAP_TYPE)4, 4, CPU_ONLY, &heap), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    D3D12_RULE(CHECK_HR(create_heap(CBV_SRV_UAV, 4, (D3D12_DESCRIPTOR_HEAP_FLAGS)0x8, &heap), E_INVALIDARG));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_DESCRIPTOR_HEAP_INVALID_DESC);
    /* A NULL out pointer: S_FALSE, nothing made (D3D12's creation convention). */
    D3D12_DESCRIPTOR_HEAP_DESC desc = {CBV_SRV_UAV, 4, VISIBLE, 0};
    D3D12_RULE(CHECK_HR(ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, NULL), S_FALSE));
}

/* ---- heap_ranges: heaps never overlap, on the CPU or the GPU, nor with a buffer's GPU range ---- */
static void test_heap_ranges(void)
{
    UINT increment = ID3D12Device_GetDescriptorHandleIncrementSize(g_device, CBV_SRV_UAV);
    ID3D12DescriptorHeap *a = heap_or_fail(CBV_SRV_UAV, 64, VISIBLE), *b = heap_or_fail(CBV_SRV_UAV, 64, VISIBLE);
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_DEFAULT, 65536, D3D12_RESOURCE_FLAG_NONE);
    if (!a || !b || !resource)
        return;
    SIZE_T ca = cpu_start(a).ptr, cb = cpu_start(b).ptr, bytes = 64 * (SIZE_T)increment;
    UINT64 ga = gpu_start(a).ptr, gb = gpu_start(b).ptr, va = ID3D12Resource_GetGPUVirtualAddress(resource);
    CHECK(ca + bytes <= cb || cb + bytes <= ca);
    CHECK(ga + bytes <= gb || gb + bytes <= ga);
    CHECK(va + 65536 <= ga || ga + bytes <= va);
    CHECK(va + 65536 <= gb || gb + bytes <= va);
    CHECK(cpu_start(a).ptr == ca && gpu_start(a).ptr == ga); /* fixed for the heap's life */
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(a);
    ID3D12DescriptorHeap_Release(b);
}

/* ---- cbv: size a multiple of 256, the null view ---- */
static void test_cbv(void)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(CBV_SRV_UAV, 4, CPU_ONLY);
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_UPLOAD, 65536, D3D12_RESOURCE_FLAG_NONE);
    if (!heap || !resource)
        return;
    D3D12_CONSTANT_BUFFER_VIEW_DESC desc = {ID3D12Resource_GetGPUVirtualAddress(resource), 256};
    ID3D12Device_CreateConstantBufferView(g_device, &desc, cpu_start(heap));
    desc.SizeInBytes = 65536;
    ID3D12Device_CreateConstantBufferView(g_device, &desc, at(cpu_start(heap), CBV_SRV_UAV, 1));
    D3D12_CONSTANT_BUFFER_VIEW_DESC null_view = {0, 0};
    ID3D12Device_CreateConstantBufferView(g_device, &null_view, at(cpu_start(heap), CBV_SRV_UAV, 2));
    NO_ERROR_MESSAGE();
    desc.SizeInBytes = 255;
    INVALID_CALL(ID3D12Device_CreateConstantBufferView(g_device, &desc, cpu_start(heap)));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_CONSTANT_BUFFER_VIEW_INVALID_DESC);
    desc.SizeInBytes = 256;
    desc.BufferLocation += 16;
    INVALID_CALL(ID3D12Device_CreateConstantBufferView(g_device, &desc, cpu_start(heap)));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_CONSTANT_BUFFER_VIEW_INVALID_DESC);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(heap);
}

static D3D12_SHADER_RESOURCE_VIEW_DESC srv_desc(DXGI_FORMAT format, UINT64 first, UINT count, UINT stride,
                                                D3D12_BUFFER_SRV_FLAGS flags)
{
    D3D12_SHADER_RESOURCE_VIEW_DESC desc = {format, D3D12_SRV_DIMENSION_BUFFER,
                                            D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING, {{0}}};
    desc.Buffer = (D3D12_BUFFER_SRV){first, count, stride, flags};
    return desc;
}

/* ---- srv: raw, structured, typed; null descriptors of every dimension; textures, formats, bounds refused ---- */
static void test_srv(void)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(CBV_SRV_UAV, 4, CPU_ONLY);
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_FLAG_NONE);
    if (!heap || !resource)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE dest = cpu_start(heap);
    D3D12_SHADER_RESOURCE_VIEW_DESC raw = srv_desc(DXGI_FORMAT_R32_TYPELESS, 0, 1024, 0, D3D12_BUFFER_SRV_FLAG_RAW),
                                    structured = srv_desc(DXGI_FORMAT_UNKNOWN, 2, 254, 16, D3D12_BUFFER_SRV_FLAG_NONE),
                                    typed = srv_desc(DXGI_FORMAT_R32_UINT, 0, 1024, 0, D3D12_BUFFER_SRV_FLAG_NONE);
    ID3D12Device_CreateShaderResourceView(g_device, resource, &raw, dest);
    ID3D12Device_CreateShaderResourceView(g_device, resource, &structured, dest);
    ID3D12Device_CreateShaderResourceView(g_device, resource, &typed, dest);
    for (UINT dimension = D3D12_SRV_DIMENSION_BUFFER; dimension <= D3D12_SRV_DIMENSION_TEXTURECUBEARRAY; dimension++) {
        D3D12_SHADER_RESOURCE_VIEW_DESC null_view = {DXGI_FORMAT_R8G8B8A8_UNORM, (D3D12_SRV_DIMENSION)dimension,
                                                     D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING, {{0}}};
        ID3D12Device_CreateShaderResourceView(g_device, NULL, &null_view, dest);
    }
    NO_ERROR_MESSAGE();
    D3D12_SHADER_RESOURCE_VIEW_DESC texture = {DXGI_FORMAT_R8G8B8A8_UNORM, D3D12_SRV_DIMENSION_TEXTURE2D,
                                               D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING, {{0}}};
    texture.Texture2D.MipLevels = 1;
    INVALID_CALL(ID3D12Device_CreateShaderResourceView(g_device, resource, &texture, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATESHADERRESOURCEVIEW_INVALIDDIMENSIONS);
    D3D12_SHADER_RESOURCE_VIEW_DESC past_end = srv_desc(DXGI_FORMAT_R32_UINT, 1, 1024, 0, D3D12_BUFFER_SRV_FLAG_NONE);
    INVALID_CALL(ID3D12Device_CreateShaderResourceView(g_device, resource, &past_end, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATESHADERRESOURCEVIEW_INVALIDDIMENSIONS);
    D3D12_SHADER_RESOURCE_VIEW_DESC compressed = srv_desc(DXGI_FORMAT_BC1_UNORM, 0, 16, 0, D3D12_BUFFER_SRV_FLAG_NONE);
    INVALID_CALL(ID3D12Device_CreateShaderResourceView(g_device, resource, &compressed, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATESHADERRESOURCEVIEW_INVALIDFORMAT);
    D3D12_SHADER_RESOURCE_VIEW_DESC bad_raw = srv_desc(DXGI_FORMAT_R32_UINT, 0, 16, 0, D3D12_BUFFER_SRV_FLAG_RAW);
    INVALID_CALL(ID3D12Device_CreateShaderResourceView(g_device, resource, &bad_raw, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATESHADERRESOURCEVIEW_INVALIDDESC);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(heap);
}

static D3D12_UNORDERED_ACCESS_VIEW_DESC uav_desc(DXGI_FORMAT format, UINT count, UINT stride, UINT64 counter_offset,
                                                 D3D12_BUFFER_UAV_FLAGS flags)
{
    D3D12_UNORDERED_ACCESS_VIEW_DESC desc = {format, D3D12_UAV_DIMENSION_BUFFER, {{0}}};
    desc.Buffer = (D3D12_BUFFER_UAV){0, count, stride, counter_offset, flags};
    return desc;
}

/* ---- uav: raw, structured, typed; null descriptors; a resource without unordered access refused ---- */
static void test_uav(void)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(CBV_SRV_UAV, 4, CPU_ONLY);
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    ID3D12Resource *plain = buffer(D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_FLAG_NONE);
    if (!heap || !resource || !plain)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE dest = cpu_start(heap);
    D3D12_UNORDERED_ACCESS_VIEW_DESC raw = uav_desc(DXGI_FORMAT_R32_TYPELESS, 1024, 0, 0, D3D12_BUFFER_UAV_FLAG_RAW),
                                     structured = uav_desc(DXGI_FORMAT_UNKNOWN, 256, 16, 0, D3D12_BUFFER_UAV_FLAG_NONE),
                                     typed = uav_desc(DXGI_FORMAT_R32_UINT, 1024, 0, 0, D3D12_BUFFER_UAV_FLAG_NONE);
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &raw, dest);
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &structured, dest);
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &typed, dest);
    for (UINT dimension = D3D12_UAV_DIMENSION_BUFFER; dimension <= D3D12_UAV_DIMENSION_TEXTURE3D; dimension++) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC null_view = {DXGI_FORMAT_R32_UINT, (D3D12_UAV_DIMENSION)dimension, {{0}}};
        ID3D12Device_CreateUnorderedAccessView(g_device, NULL, NULL, &null_view, dest);
    }
    NO_ERROR_MESSAGE();
    INVALID_CALL(ID3D12Device_CreateUnorderedAccessView(g_device, plain, NULL, &raw, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATEUNORDEREDACCESSVIEW_INVALIDRESOURCE);
    D3D12_UNORDERED_ACCESS_VIEW_DESC flags = uav_desc(DXGI_FORMAT_R32_TYPELESS, 16, 0, 0, (D3D12_BUFFER_UAV_FLAGS)0x10);
    INVALID_CALL(ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &flags, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATEUNORDEREDACCESSVIEW_INVALIDFLAGS);
    D3D12_UNORDERED_ACCESS_VIEW_DESC past_end = uav_desc(DXGI_FORMAT_UNKNOWN, 257, 16, 0, D3D12_BUFFER_UAV_FLAG_NONE);
    INVALID_CALL(ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &past_end, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATEUNORDEREDACCESSVIEW_INVALIDDIMENSIONS);
    D3D12_UNORDERED_ACCESS_VIEW_DESC texture = {DXGI_FORMAT_R32_UINT, D3D12_UAV_DIMENSION_TEXTURE2D, {{0}}};
    INVALID_CALL(ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &texture, dest));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATEUNORDEREDACCESSVIEW_INVALIDDIMENSIONS);
    ID3D12Resource_Release(plain);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(heap);
}

/* ---- uav_counter: only a structured view has one, at a multiple of 4096, in range ---- */
static void test_uav_counter(void)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(CBV_SRV_UAV, 4, CPU_ONLY);
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_DEFAULT, 4096, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    ID3D12Resource *counter = buffer(D3D12_HEAP_TYPE_DEFAULT, 8192, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS);
    if (!heap || !resource || !counter)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE dest = cpu_start(heap);
    D3D12_UNORDERED_ACCESS_VIEW_DESC good = uav_desc(DXGI_FORMAT_UNKNOWN, 256, 16, 4096, D3D12_BUFFER_UAV_FLAG_NONE);
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, counter, &good, dest);
    good.Buffer.CounterOffsetInBytes = 0;
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, counter, &good, dest);
    NO_ERROR_MESSAGE();
    const struct { D3D12_UNORDERED_ACCESS_VIEW_DESC desc; ID3D12Resource *resource; } bad[] = {
        {uav_desc(DXGI_FORMAT_R32_TYPELESS, 1024, 0, 0, D3D12_BUFFER_UAV_FLAG_RAW), resource},     /* raw */
        {uav_desc(DXGI_FORMAT_R32_UINT, 1024, 0, 0, D3D12_BUFFER_UAV_FLAG_NONE), resource},        /* typed */
        {uav_desc(DXGI_FORMAT_UNKNOWN, 256, 16, 100, D3D12_BUFFER_UAV_FLAG_NONE), resource},       /* unaligned */
        {uav_desc(DXGI_FORMAT_UNKNOWN, 256, 16, 8192, D3D12_BUFFER_UAV_FLAG_NONE), resource},      /* past the end */
        {uav_desc(DXGI_FORMAT_UNKNOWN, 256, 16, 0, D3D12_BUFFER_UAV_FLAG_NONE), NULL},             /* null view */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        INVALID_CALL(ID3D12Device_CreateUnorderedAccessView(g_device, bad[i].resource, counter, &bad[i].desc, dest));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_UNORDEREDACCESS_VIEW_INVALID_COUNTER_USAGE);
    }
    ID3D12Resource_Release(counter);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(heap);
}

/* ---- sampler ---- */
static void test_sampler(void)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 4, CPU_ONLY);
    if (!heap)
        return;
    D3D12_SAMPLER_DESC desc = {D3D12_FILTER_MIN_MAG_MIP_LINEAR, D3D12_TEXTURE_ADDRESS_MODE_WRAP,
                               D3D12_TEXTURE_ADDRESS_MODE_CLAMP, D3D12_TEXTURE_ADDRESS_MODE_BORDER, 0.0f, 1,
                               D3D12_COMPARISON_FUNC_NEVER, {0, 0, 0, 1}, 0.0f, D3D12_FLOAT32_MAX};
    ID3D12Device_CreateSampler(g_device, &desc, cpu_start(heap));
    D3D12_SAMPLER_DESC comparison = desc;
    comparison.Filter = D3D12_FILTER_COMPARISON_ANISOTROPIC;
    comparison.MaxAnisotropy = 16;
    comparison.ComparisonFunc = D3D12_COMPARISON_FUNC_LESS_EQUAL;
    ID3D12Device_CreateSampler(g_device, &comparison, at(cpu_start(heap), D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 1));
    NO_ERROR_MESSAGE();
    D3D12_SAMPLER_DESC bad = desc;
    bad.Filter = (D3D12_FILTER)0x3;
    INVALID_CALL(ID3D12Device_CreateSampler(g_device, &bad, cpu_start(heap)));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_SAMPLER_INVALID);
    bad = desc;
    bad.MinLOD = 4.0f;
    bad.MaxLOD = 1.0f;
    INVALID_CALL(ID3D12Device_CreateSampler(g_device, &bad, cpu_start(heap)));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_SAMPLER_INVALID);
    bad = comparison;
    bad.MaxAnisotropy = 17;
    INVALID_CALL(ID3D12Device_CreateSampler(g_device, &bad, cpu_start(heap)));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_CREATE_SAMPLER_INVALID);
    ID3D12DescriptorHeap_Release(heap);
}

/* Two distinct CBVs in a CPU-only heap's descriptors 0 and 1. */
static ID3D12DescriptorHeap *staging_with_views(ID3D12Resource **resource)
{
    ID3D12DescriptorHeap *heap = heap_or_fail(CBV_SRV_UAV, 8, CPU_ONLY);
    *resource = buffer(D3D12_HEAP_TYPE_UPLOAD, 65536, D3D12_RESOURCE_FLAG_NONE);
    if (!heap || !*resource)
        return heap;
    D3D12_CONSTANT_BUFFER_VIEW_DESC a = {ID3D12Resource_GetGPUVirtualAddress(*resource), 256}, b = {a.BufferLocation + 512, 1024};
    ID3D12Device_CreateConstantBufferView(g_device, &a, cpu_start(heap));
    ID3D12Device_CreateConstantBufferView(g_device, &b, at(cpu_start(heap), CBV_SRV_UAV, 1));
    return heap;
}

/* d12rt's CPU handles are the driver's pointers (docs/descriptors.md): a copy can be seen byte for byte. D3D12 does
 * not promise a CPU handle of a shader-visible heap is readable, so the vkd3d build does not look. */
static void expect_same(D3D12_CPU_DESCRIPTOR_HANDLE a, D3D12_CPU_DESCRIPTOR_HANDLE b, UINT count)
{
#ifdef PEER_VKD3D
    (void)a, (void)b, (void)count;
#else
    UINT increment = ID3D12Device_GetDescriptorHandleIncrementSize(g_device, CBV_SRV_UAV);
    CHECK(memcmp((const void *)a.ptr, (const void *)b.ptr, (size_t)count * increment) == 0);
#endif
}

/* ---- copy_simple: a CPU-only heap into a shader-visible one; the debug layer's refusals ---- */
static void test_copy_simple(void)
{
    ID3D12Resource *resource = NULL;
    ID3D12DescriptorHeap *staging = staging_with_views(&resource), *visible = heap_or_fail(CBV_SRV_UAV, 8, VISIBLE);
    if (!staging || !resource || !visible)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE src = cpu_start(staging), dst = cpu_start(visible);
    ID3D12Device_CopyDescriptorsSimple(g_device, 2, at(dst, CBV_SRV_UAV, 3), src, CBV_SRV_UAV);
    ID3D12Device_CopyDescriptorsSimple(g_device, 1, at(src, CBV_SRV_UAV, 7), src, CBV_SRV_UAV); /* within one heap */
    ID3D12Device_CopyDescriptorsSimple(g_device, 0, dst, src, CBV_SRV_UAV);
    NO_ERROR_MESSAGE();
    expect_same(at(dst, CBV_SRV_UAV, 3), src, 2);
    expect_same(at(src, CBV_SRV_UAV, 7), src, 1);
    INVALID_CALL(ID3D12Device_CopyDescriptorsSimple(g_device, 1, at(src, CBV_SRV_UAV, 2), dst, CBV_SRV_UAV));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_COPY_DESCRIPTORS_WRITE_ONLY_DESCRIPTOR);
    INVALID_CALL(ID3D12Device_CopyDescriptorsSimple(g_device, 4, at(dst, CBV_SRV_UAV, 6), src, CBV_SRV_UAV));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_COPY_DESCRIPTORS_INVALID_RANGES);
    ID3D12Device_CopyDescriptorsSimple(g_device, 2, at(src, CBV_SRV_UAV, 1), src, CBV_SRV_UAV); /* overlapping */
    D3D12_MESSAGE(D3D12_MESSAGE_ID_COPY_DESCRIPTORS_INVALID_RANGES);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(visible);
    ID3D12DescriptorHeap_Release(staging);
}

/* ---- copy_ranges: CopyDescriptors gathers ranges of different sizes; totals must match ---- */
static void test_copy_ranges(void)
{
    ID3D12Resource *resource = NULL;
    ID3D12DescriptorHeap *staging = staging_with_views(&resource), *visible = heap_or_fail(CBV_SRV_UAV, 8, VISIBLE);
    if (!staging || !resource || !visible)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE src = cpu_start(staging), dst = cpu_start(visible);
    /* Sources: [1], [0] (sizes NULL: one each); destination: one range of 2. Then 3 ranges into 1. */
    D3D12_CPU_DESCRIPTOR_HANDLE sources[2] = {at(src, CBV_SRV_UAV, 1), src}, dests[1] = {dst};
    UINT two = 2;
    ID3D12Device_CopyDescriptors(g_device, 1, dests, &two, 2, sources, NULL, CBV_SRV_UAV);
    NO_ERROR_MESSAGE();
    expect_same(dst, at(src, CBV_SRV_UAV, 1), 1);
    expect_same(at(dst, CBV_SRV_UAV, 1), src, 1);
    UINT sizes[2] = {1, 2};
    INVALID_CALL(ID3D12Device_CopyDescriptors(g_device, 1, dests, &two, 2, sources, sizes, CBV_SRV_UAV));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_COPY_DESCRIPTORS_INVALID_RANGES);
    D3D12_CPU_DESCRIPTOR_HANDLE from_visible[1] = {dst}, into[1] = {at(src, CBV_SRV_UAV, 4)};
    INVALID_CALL(ID3D12Device_CopyDescriptors(g_device, 1, into, NULL, 1, from_visible, NULL, CBV_SRV_UAV));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_COPY_DESCRIPTORS_WRITE_ONLY_DESCRIPTOR);
    ID3D12Resource_Release(resource);
    ID3D12DescriptorHeap_Release(visible);
    ID3D12DescriptorHeap_Release(staging);
}

/* ---- set_heaps: one CBV_SRV_UAV and one SAMPLER heap, shader-visible; none of it fails Close ---- */
static void test_set_heaps(void)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12DescriptorHeap *views = heap_or_fail(CBV_SRV_UAV, 4, VISIBLE), *other = heap_or_fail(CBV_SRV_UAV, 4, VISIBLE),
                         *samplers = heap_or_fail(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 4, VISIBLE),
                         *staging = heap_or_fail(CBV_SRV_UAV, 4, CPU_ONLY);
    if (!views || !other || !samplers || !staging ||
        !CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                      (void **)&allocator), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK))
        return;
    ID3D12DescriptorHeap *both[2] = {views, samplers}, *two_views[2] = {views, other}, *cpu_only[1] = {staging};
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 2, both);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, both);
    NO_ERROR_MESSAGE();
    INVALID_CALL(ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 2, two_views));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_HEAP_INVALID);
    INVALID_CALL(ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, cpu_only));
    D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_HEAP_INVALID);
    CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK); /* the debug layer's finding, not a recording error */
    ID3D12GraphicsCommandList_Release(list);
    ID3D12CommandAllocator_Release(allocator);
    ID3D12DescriptorHeap_Release(views);
    ID3D12DescriptorHeap_Release(other);
    ID3D12DescriptorHeap_Release(samplers);
    ID3D12DescriptorHeap_Release(staging);
}

/* ---- no_table: a driver without the descriptor table (d12rt only: the driver skeleton) ---- */
static void test_no_table(void)
{
#ifndef PEER_VKD3D
    ID3D12DescriptorHeap *heap;
    CHECK_HR(create_heap(CBV_SRV_UAV, 4, CPU_ONLY, &heap), E_NOTIMPL);
    CHECK(heap == NULL);
    D3D12_MESSAGE((D3D12_MESSAGE_ID)0x13D00); /* d12rt's DESCRIPTORS_UNSUPPORTED, naming the driver */
    CHECK(ID3D12Device_GetDescriptorHandleIncrementSize(g_device, CBV_SRV_UAV) == 0);
#endif
}

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"heap_types", test_heap_types}, {"heap_limits", test_heap_limits}, {"heap_ranges", test_heap_ranges},
        {"cbv", test_cbv}, {"srv", test_srv}, {"uav", test_uav}, {"uav_counter", test_uav_counter},
        {"sampler", test_sampler}, {"copy_simple", test_copy_simple}, {"copy_ranges", test_copy_ranges},
        {"set_heaps", test_set_heaps}, {"no_table", test_no_table},
    };
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
