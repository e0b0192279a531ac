/* The list methods that bind (issue 30 item 5; docs/root-signatures.md "Binding") through the public D3D12 API
 * alone, on the reference driver, the Vulkan driver and vkd3d 1.2 (tests/descriptors/CMakeLists.txt): valid calls
 * record with no message, each rule broken gives the debug layer's message ID, and none of them is a recording
 * error (Close stays S_OK, as on Windows). vkd3d 1.2 has no InfoQueue and does not validate these calls (an invalid
 * one is undefined behaviour there): the vkd3d build makes the valid calls only.
 *
 *   binding_outside CASE   valid | table | constants | root_views | root_signature
 *
 * Ends with "N passed, N failed"; exit 0 only when nothing failed. */
#include "../outside/outside.h"

static ID3D12CommandAllocator *g_allocator;
static ID3D12GraphicsCommandList *g_list;
static ID3D12RootSignature *g_signature;
static ID3D12DescriptorHeap *g_views, *g_samplers;
static ID3D12Resource *g_buffer;
static D3D12_GPU_VIRTUAL_ADDRESS g_va; /* a real buffer's: vkd3d 1.2 resolves a root view's address when it is set */

/* Root parameters: 0 a CBV/SRV/UAV table, 1 a sampler table, 2 four constants, 3 a root CBV, 4 a root SRV, 5 a
 * root UAV. */
static ID3D12RootSignature *make_root_signature(void)
{
    D3D12_DESCRIPTOR_RANGE1 views[] = {
        {D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0},
        {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 1},
    };
    D3D12_DESCRIPTOR_RANGE1 samplers = {D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 1, 0, 0,
                                        D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0};
    D3D12_ROOT_PARAMETER1 params[6] = {
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {2, views}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &samplers}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {1, 0, 4}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_CBV, .Descriptor = {2, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
         D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_SRV, .Descriptor = {0, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
         D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_UAV, .Descriptor = {2, 0, D3D12_ROOT_DESCRIPTOR_FLAG_NONE},
         D3D12_SHADER_VISIBILITY_ALL},
    };
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc = {D3D_ROOT_SIGNATURE_VERSION_1_1,
                                                .Desc_1_1 = {6, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE}};
    ID3DBlob *blob = NULL;
    ID3D12RootSignature *signature = NULL;
    if (CHECK_HR(D3D12SerializeVersionedRootSignature(&desc, &blob, NULL), S_OK)) {
        CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                  ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                  (void **)&signature),
                 S_OK);
        ID3D10Blob_Release(blob);
    }
    return signature;
}

static ID3D12DescriptorHeap *visible_heap(D3D12_DESCRIPTOR_HEAP_TYPE type, UINT count)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {type, count, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    ID3D12DescriptorHeap *heap = NULL;
    CHECK_HR(ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, (void **)&heap), S_OK);
    return heap;
}

/* The GPU handle of descriptor `index` of a shader-visible heap. */
static D3D12_GPU_DESCRIPTOR_HANDLE gpu_at(ID3D12DescriptorHeap *heap, D3D12_DESCRIPTOR_HEAP_TYPE type, UINT index)
{
    D3D12_GPU_DESCRIPTOR_HANDLE start =
        STRUCT_CALL(D3D12_GPU_DESCRIPTOR_HANDLE, heap, GetGPUDescriptorHandleForHeapStart);
    start.ptr += (UINT64)index * ID3D12Device_GetDescriptorHandleIncrementSize(g_device, type);
    return start;
}

/* A direct list recording, the root signature and both heaps made. */
static int setup(void)
{
    if (!CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&g_allocator), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g_allocator, NULL,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&g_list), S_OK))
        return 0;
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 65536, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    if (!CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                       D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                       (void **)&g_buffer), S_OK))
        return 0;
    g_va = ID3D12Resource_GetGPUVirtualAddress(g_buffer);
    g_signature = make_root_signature();
    g_views = visible_heap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 8);
    g_samplers = visible_heap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, 4);
    return g_signature && g_views && g_samplers;
}

static void teardown(void)
{
    if (g_list)
        CHECK(ID3D12GraphicsCommandList_Release(g_list) == 0);
    if (g_allocator)
        CHECK(ID3D12CommandAllocator_Release(g_allocator) == 0);
    if (g_signature)
        CHECK(ID3D12RootSignature_Release(g_signature) == 0);
    if (g_views)
        CHECK(ID3D12DescriptorHeap_Release(g_views) == 0);
    if (g_samplers)
        CHECK(ID3D12DescriptorHeap_Release(g_samplers) == 0);
    if (g_buffer)
        CHECK(ID3D12Resource_Release(g_buffer) == 0);
}

static void set_heaps(void)
{
    ID3D12DescriptorHeap *heaps[2] = {g_views, g_samplers};
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g_list, 2, heaps);
}

/* Every setter, valid, on both pipeline kinds: no message, Close S_OK. */
static void test_valid(void)
{
    if (setup()) {
        set_heaps();
        UINT32 four[4] = {1, 2, 3, 4};
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, g_signature);
        ID3D12GraphicsCommandList_SetGraphicsRootSignature(g_list, g_signature);
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 2));
        ID3D12GraphicsCommandList_SetGraphicsRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 5));
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 1, gpu_at(g_samplers, 1, 3));
        ID3D12GraphicsCommandList_SetComputeRoot32BitConstants(g_list, 2, 4, four, 0);
        ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(g_list, 2, 2, four, 2);
        ID3D12GraphicsCommandList_SetComputeRoot32BitConstant(g_list, 2, 7, 3);
        ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstant(g_list, 2, 7, 0);
        ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(g_list, 3, g_va);
        ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(g_list, 4, g_va);
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(g_list, 5, g_va);
        ID3D12GraphicsCommandList_SetGraphicsRootConstantBufferView(g_list, 3, g_va);
        ID3D12GraphicsCommandList_SetGraphicsRootShaderResourceView(g_list, 4, g_va);
        ID3D12GraphicsCommandList_SetGraphicsRootUnorderedAccessView(g_list, 5, g_va);
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, NULL); /* unbinds */
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK);
    }
    teardown();
}

/* SET_DESCRIPTOR_TABLE_INVALID (708): no root signature, an index past it, a parameter that is no table, no heap of
 * the table's type, a handle outside the heap set; each next to its valid neighbour. */
static void test_table(void)
{
    if (setup()) {
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* no root signature */
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, g_signature);
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* no heap set */
        set_heaps();
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 6, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* index 6 of 6 parameters */
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 2, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* parameter 2 holds constants */
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 8)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* one past the heap's end */
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 1, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* a sampler table in the view heap */
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 7));
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 1, gpu_at(g_samplers, 1, 0));
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK); /* the debug layer's findings, not errors */
    }
    teardown();
}

/* SET_ROOT_CONSTANT_INVALID (709): past Num32BitValues, a parameter that is no constants, no root signature. */
static void test_constants(void)
{
    if (setup()) {
        UINT32 five[5] = {1, 2, 3, 4, 5};
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstant(g_list, 2, 1, 0));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_INVALID); /* no root signature */
        ID3D12GraphicsCommandList_SetGraphicsRootSignature(g_list, g_signature);
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(g_list, 2, 5, five, 0));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_INVALID); /* 5 of 4 */
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(g_list, 2, 2, five, 3));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_INVALID); /* 3 + 2 of 4 */
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstant(g_list, 2, 1, 4));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_INVALID); /* offset 4 of 4 */
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstant(g_list, 3, 1, 0));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_INVALID); /* parameter 3 is a root CBV */
        ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(g_list, 2, 4, five, 0);
        ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(g_list, 2, 1, five, 3);
        ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstant(g_list, 2, 1, 3);
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK);
    }
    teardown();
}

/* Root views (710, 711, 712): with no root signature reported (and still recorded for the driver's check); a
 * parameter of another type reported and dropped; the right type accepted. */
static void test_root_views(void)
{
    if (setup()) {
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(g_list, 3, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_BUFFER_VIEW_INVALID);
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(g_list, 4, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_SHADER_RESOURCE_VIEW_INVALID);
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(g_list, 5, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_UNORDERED_ACCESS_VIEW_INVALID);
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, g_signature);
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(g_list, 4, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_CONSTANT_BUFFER_VIEW_INVALID); /* parameter 4 is a root SRV */
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(g_list, 5, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_SHADER_RESOURCE_VIEW_INVALID); /* parameter 5 is a root UAV */
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(g_list, 9, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_UNORDERED_ACCESS_VIEW_INVALID); /* past the parameters */
        INVALID_CALL(ID3D12GraphicsCommandList_SetGraphicsRootUnorderedAccessView(g_list, 5, g_va));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_ROOT_UNORDERED_ACCESS_VIEW_INVALID); /* no graphics root signature */
        ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(g_list, 3, g_va);
        ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(g_list, 4, g_va);
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(g_list, 5, g_va);
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK);
    }
    teardown();
}

/* A root signature of another device is refused; a new recording (Reset) starts with none bound (a table call then
 * says so); the list holds no root signature past its end (the last Release above is 0). */
static void test_root_signature(void)
{
    if (setup()) {
        set_heaps();
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, g_signature);
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 0));
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK);
        CHECK_HR(ID3D12CommandAllocator_Reset(g_allocator), S_OK);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(g_list, g_allocator, NULL), S_OK);
        set_heaps();
        INVALID_CALL(ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 0)));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID); /* Reset unbound the root signature */
        ID3D12GraphicsCommandList_SetComputeRootSignature(g_list, g_signature);
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_list, 0, gpu_at(g_views, 0, 0));
        NO_ERROR_MESSAGE();
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_list), S_OK);
    }
    teardown();
}

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"valid", test_valid}, {"table", test_table}, {"constants", test_constants},
        {"root_views", test_root_views}, {"root_signature", test_root_signature},
    };
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
