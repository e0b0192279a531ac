/* Compute through the public D3D12 API alone (issue 31, "Checked by"; docs/pipelines.md): a compute pipeline state
 * from the project's own assembled DXBC (raw_fill: word i = i * cb0[0].x + cb0[0].y), bound with root constants and
 * its UAV as a root view or through a descriptor table, dispatched, read back. Built against d12rt (reference and
 * Vulkan drivers) and against Debian's vkd3d 1.2 on lavapipe (tests/outside/outside.cmake), where it computes.
 *
 *   compute_basic_outside CASE   root_uav | table_uav | no_pipeline_state
 * (compute_outside.c, beside it, goes further: typed UAVs, volatile descriptors, barriers, clears, 1 000 dispatches,
 * DRED, the Vulkan driver's findings.)
 *
 * The data is checked where the device runs shaders: always on vkd3d 1.2; on d12rt where
 * CheckFeatureSupport(D3D12_FEATURE_D12RT_SHADER_EXECUTION) says so (the reference driver runs none: there the
 * program proves the calls are accepted, reach the driver and do not crash, and checks no data). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <time.h>

#include "../outside/outside.h"

#include "d12_shaders.h"

#define WORDS 128u /* two groups of raw_fill's 64 threads */
#define MULTIPLIER 3u
#define ADDEND 5u

/* d12rt's feature (d12rt/d3d12_ext.h), spelled here so the vkd3d build needs no d12rt header. */
#define FEATURE_D12RT_SHADER_EXECUTION ((D3D12_FEATURE)0x10001)

static bool executes_shaders(void)
{
#ifdef PEER_VKD3D
    return true;
#else
    BOOL executes = FALSE;
    return SUCCEEDED(ID3D12Device_CheckFeatureSupport(g_device, FEATURE_D12RT_SHADER_EXECUTION, &executes,
                                                      sizeof executes)) &&
           executes;
#endif
}

static const d12_shader_blob *raw_fill(void)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, "raw_fill") == 0)
            return &d12_shaders[i];
    return NULL;
}

static ID3D12Resource *buffer(D3D12_HEAP_TYPE type, UINT64 width, D3D12_RESOURCE_FLAGS flags,
                              D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, flags};
    ID3D12Resource *resource = NULL;
    CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                  &IID_ID3D12Resource, (void **)&resource),
             S_OK);
    return resource;
}

/* Root constants b0 (4 values: cb0[0]), then u0 as a root UAV or as a table of one UAV. */
static ID3D12RootSignature *root_signature(bool table)
{
    D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[2];
    memset(params, 0, sizeof params);
    params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
    params[0].Constants.Num32BitValues = 4; /* cb0[1]: one 16-byte vector, all of it bound */
    params[1].ParameterType = table ? D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE : D3D12_ROOT_PARAMETER_TYPE_UAV;
    params[1].DescriptorTable.NumDescriptorRanges = 1;
    params[1].DescriptorTable.pDescriptorRanges = &range;
    if (!table)
        params[1].Descriptor.ShaderRegister = 0;
    D3D12_ROOT_SIGNATURE_DESC desc = {2, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE};
    ID3DBlob *blob = NULL;
    ID3D12RootSignature *rs = NULL;
    if (CHECK_HR(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK)) {
        CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                  ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                  (void **)&rs),
                 S_OK);
        ID3D10Blob_Release(blob);
    }
    return rs;
}

typedef struct work {
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    ID3D12Resource *target, *readback;
    ID3D12RootSignature *rs;
    ID3D12PipelineState *pso;
    ID3D12DescriptorHeap *heap;
} work;

static bool make_work(work *w, bool table, bool pipeline)
{
    memset(w, 0, sizeof *w);
    D3D12_COMMAND_QUEUE_DESC queue = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (!CHECK_HR(ID3D12Device_CreateCommandQueue(g_device, &queue, &IID_ID3D12CommandQueue, (void **)&w->queue), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&w->allocator),
                  S_OK) ||
        !CHECK_HR(ID3D12Device_CreateFence(g_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&w->fence),
                  S_OK))
        return false;
    w->target = buffer(D3D12_HEAP_TYPE_DEFAULT, WORDS * 4, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                       D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    w->readback = buffer(D3D12_HEAP_TYPE_READBACK, WORDS * 4, D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_STATE_COPY_DEST);
    w->rs = root_signature(table);
    if (!w->target || !w->readback || !w->rs)
        return false;
    if (pipeline) {
        D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {w->rs, {raw_fill()->code, raw_fill()->size}, 0, {NULL, 0},
                                                  D3D12_PIPELINE_STATE_FLAG_NONE};
        if (!CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState,
                                                              (void **)&w->pso),
                      S_OK))
            return false;
    }
    return CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, w->allocator, w->pso,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&w->list),
                    S_OK);
}

static void free_work(work *w)
{
    IUnknown *objects[] = {(IUnknown *)w->list, (IUnknown *)w->pso, (IUnknown *)w->heap, (IUnknown *)w->rs,
                           (IUnknown *)w->readback, (IUnknown *)w->target, (IUnknown *)w->fence,
                           (IUnknown *)w->allocator, (IUnknown *)w->queue};
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
        if (objects[i])
            IUnknown_Release(objects[i]);
}

/* The UAV as a table: one raw UAV of the target in a shader-visible heap. */
static bool bind_table(work *w)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1,
                                       D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    if (!CHECK_HR(ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, (void **)&w->heap),
                  S_OK))
        return false;
    D3D12_UNORDERED_ACCESS_VIEW_DESC uav;
    memset(&uav, 0, sizeof uav);
    uav.Format = DXGI_FORMAT_R32_TYPELESS;
    uav.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
    uav.Buffer.NumElements = WORDS;
    uav.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
    ID3D12Device_CreateUnorderedAccessView(g_device, w->target, NULL, &uav,
                                           STRUCT_CALL(D3D12_CPU_DESCRIPTOR_HANDLE, w->heap,
                                                       GetCPUDescriptorHandleForHeapStart));
    ID3D12GraphicsCommandList_SetDescriptorHeaps(w->list, 1, &w->heap);
    ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(
        w->list, 1, STRUCT_CALL(D3D12_GPU_DESCRIPTOR_HANDLE, w->heap, GetGPUDescriptorHandleForHeapStart));
    return true;
}

/* Record the dispatch and the readback copy, run it, check the words where shaders run. */
static void run(work *w, bool table)
{
    ID3D12GraphicsCommandList_SetComputeRootSignature(w->list, w->rs);
    UINT constants[4] = {MULTIPLIER, ADDEND, 0, 0};
    ID3D12GraphicsCommandList_SetComputeRoot32BitConstants(w->list, 0, 4, constants, 0);
    if (table ? !bind_table(w) : false)
        return;
    if (!table)
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(w->list, 1,
                                                                    ID3D12Resource_GetGPUVirtualAddress(w->target));
    ID3D12GraphicsCommandList_Dispatch(w->list, WORDS / 64, 1, 1);
    D3D12_RESOURCE_BARRIER barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = w->target;
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_COPY_SOURCE;
    ID3D12GraphicsCommandList_ResourceBarrier(w->list, 1, &barrier);
    ID3D12GraphicsCommandList_CopyResource(w->list, w->readback, w->target);
    if (!CHECK_HR(ID3D12GraphicsCommandList_Close(w->list), S_OK))
        return;
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)w->list};
    ID3D12CommandQueue_ExecuteCommandLists(w->queue, 1, lists);
    CHECK_HR(ID3D12CommandQueue_Signal(w->queue, w->fence, 1), S_OK);
    for (int waited = 0; ID3D12Fence_GetCompletedValue(w->fence) < 1 && waited < 10000; waited++)
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* 1 ms at a time, 10 s at most */
    if (!CHECK(ID3D12Fence_GetCompletedValue(w->fence) == 1))
        return;
    UINT32 *words = NULL;
    D3D12_RANGE range = {0, WORDS * 4};
    if (!CHECK_HR(ID3D12Resource_Map(w->readback, 0, &range, (void **)&words), S_OK))
        return;
    if (executes_shaders()) {
        unsigned wrong = 0;
        for (UINT i = 0; i < WORDS; i++)
            wrong += words[i] != i * MULTIPLIER + ADDEND;
        if (!CHECK(wrong == 0))
            fprintf(stderr, "    %u of %u words wrong; word 1 is %u (expected %u)\n", wrong, WORDS, words[1],
                    MULTIPLIER + ADDEND);
    } else {
        printf("the device runs no shader (D3D12_FEATURE_D12RT_SHADER_EXECUTION FALSE): data not checked\n");
    }
    ID3D12Resource_Unmap(w->readback, 0, NULL);
}

static void test_root_uav(void)
{
    work w;
    if (make_work(&w, false, true))
        run(&w, false);
    NO_ERROR_MESSAGE();
    free_work(&w);
}

static void test_table_uav(void)
{
    work w;
    if (make_work(&w, true, true))
        run(&w, true);
    NO_ERROR_MESSAGE();
    free_work(&w);
}

/* No pipeline state: D3D12's debug layer says so at the Dispatch (not a recording error: Close is S_OK). vkd3d 1.2
 * has no debug layer and crashes on a dispatch with no pipeline, so there the call is not made. */
static void test_no_pipeline_state(void)
{
    work w;
    if (make_work(&w, false, false)) {
        ID3D12GraphicsCommandList_SetComputeRootSignature(w.list, w.rs);
        INVALID_CALL(ID3D12GraphicsCommandList_Dispatch(w.list, 1, 1, 1));
        D3D12_MESSAGE(D3D12_MESSAGE_ID_COMMAND_LIST_PIPELINE_STATE_NOT_SET);
        CHECK_HR(ID3D12GraphicsCommandList_Close(w.list), S_OK);
    }
    free_work(&w);
}

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"root_uav", test_root_uav}, {"table_uav", test_table_uav}, {"no_pipeline_state", test_no_pipeline_state}};
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
