/* The helpers of compute_outside.c (tests/compute): objects, a queue context, descriptor handles, read-back and the
 * raw_fill case every data case starts from; included once, by that program (an outside program: the public API
 * alone, built against d12rt and against vkd3d 1.2). */
#ifndef D12_TESTS_COMPUTE_HELPERS_H
#define D12_TESTS_COMPUTE_HELPERS_H

static const d12_shader_blob *blob_named(const char *name)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (!strcmp(d12_shaders[i].name, name))
            return &d12_shaders[i];
    return NULL;
}

/* Whether the device runs shaders (vkd3d 1.2 does; d12rt says through its feature). */
static int executes_shaders(void)
{
#ifndef PEER_VKD3D
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data = {0};
    if (FAILED(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, &data, sizeof data)) ||
        !data.ExecutesShaders) {
        printf("the device runs no shader: nothing to check\n");
        return 0;
    }
#endif
    return 1;
}

/* ---- Objects ---- */

static ID3D12Resource *buffer(D3D12_HEAP_TYPE type, UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR,
                                type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
                                                                : D3D12_RESOURCE_FLAG_NONE};
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                  : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                     : D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    ID3D12Resource *resource = NULL;
    CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                  &IID_ID3D12Resource, (void **)&resource),
             S_OK);
    return resource;
}

/* An UPLOAD buffer holding `size` bytes of `data`. */
static ID3D12Resource *upload(const void *data, size_t size)
{
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_UPLOAD, size);
    void *mapped = NULL;
    if (resource && CHECK_HR(ID3D12Resource_Map(resource, 0, NULL, &mapped), S_OK)) {
        memcpy(mapped, data, size);
        ID3D12Resource_Unmap(resource, 0, NULL);
    }
    return resource;
}

static ID3D12RootSignature *root_signature(const D3D12_ROOT_PARAMETER *params, UINT count)
{
    D3D12_ROOT_SIGNATURE_DESC desc = {count, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE};
    ID3DBlob *blob = NULL, *error = NULL;
    ID3D12RootSignature *signature = NULL;
    if (CHECK_HR(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &error), S_OK)) {
        CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                  ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                  (void **)&signature),
                 S_OK);
        ID3D10Blob_Release(blob);
    }
    if (error)
        ID3D10Blob_Release(error);
    return signature;
}

static ID3D12PipelineState *pipeline(const char *shader, ID3D12RootSignature *signature)
{
    const d12_shader_blob *blob = blob_named(shader);
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {signature, {blob->code, blob->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    ID3D12PipelineState *state = NULL;
    CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, (void **)&state), S_OK);
    return state;
}

/* The queue, allocator, list and fence of a case. */
typedef struct context {
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 value;
} context;

static int context_make(context *c)
{
    memset(c, 0, sizeof *c);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    return CHECK_HR(ID3D12Device_CreateCommandQueue(g_device, &desc, &IID_ID3D12CommandQueue, (void **)&c->queue),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                        &IID_ID3D12CommandAllocator, (void **)&c->allocator),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, c->allocator, NULL,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&c->list),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateFence(g_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&c->fence),
                    S_OK) &&
           CHECK_HR(ID3D12GraphicsCommandList_Close(c->list), S_OK); /* each use resets it */
}

/* Execute the (closed) list and wait for it. */
static void context_run(context *c)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)c->list};
    ID3D12CommandQueue_ExecuteCommandLists(c->queue, 1, lists);
    CHECK_HR(ID3D12CommandQueue_Signal(c->queue, c->fence, ++c->value), S_OK);
    /* polled (vkd3d 1.2's SetEventOnCompletion has no NULL event); a removed device completes every fence */
    for (unsigned spin = 0; ID3D12Fence_GetCompletedValue(c->fence) < c->value && spin < 60000; spin++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    CHECK(ID3D12Fence_GetCompletedValue(c->fence) >= c->value);
}

static void context_free(context *c)
{
    if (c->list)
        ID3D12GraphicsCommandList_Release(c->list);
    if (c->allocator)
        ID3D12CommandAllocator_Release(c->allocator);
    if (c->fence)
        ID3D12Fence_Release(c->fence);
    if (c->queue)
        ID3D12CommandQueue_Release(c->queue);
}

/* A shader-visible CBV_SRV_UAV heap (or a CPU-only one) of `count` descriptors. */
static ID3D12DescriptorHeap *heap(UINT count, int shader_visible)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, count,
                                       shader_visible ? D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE
                                                      : D3D12_DESCRIPTOR_HEAP_FLAG_NONE,
                                       0};
    ID3D12DescriptorHeap *h = NULL;
    CHECK_HR(ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, (void **)&h), S_OK);
    return h;
}

static D3D12_CPU_DESCRIPTOR_HANDLE cpu_handle(ID3D12DescriptorHeap *h, UINT index)
{
    D3D12_CPU_DESCRIPTOR_HANDLE handle = STRUCT_CALL(D3D12_CPU_DESCRIPTOR_HANDLE, h, GetCPUDescriptorHandleForHeapStart);
    handle.ptr += (SIZE_T)index *
                  ID3D12Device_GetDescriptorHandleIncrementSize(g_device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    return handle;
}

static D3D12_GPU_DESCRIPTOR_HANDLE gpu_handle(ID3D12DescriptorHeap *h, UINT index)
{
    D3D12_GPU_DESCRIPTOR_HANDLE handle = STRUCT_CALL(D3D12_GPU_DESCRIPTOR_HANDLE, h, GetGPUDescriptorHandleForHeapStart);
    handle.ptr += (UINT64)index *
                  ID3D12Device_GetDescriptorHandleIncrementSize(g_device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    return handle;
}

/* A buffer UAV at `cpu`: raw (format UNKNOWN) or typed. */
static void uav(ID3D12Resource *resource, DXGI_FORMAT format, UINT first, UINT count, D3D12_CPU_DESCRIPTOR_HANDLE cpu)
{
    D3D12_UNORDERED_ACCESS_VIEW_DESC desc = {.Format = format == DXGI_FORMAT_UNKNOWN ? DXGI_FORMAT_R32_TYPELESS : format,
                                             .ViewDimension = D3D12_UAV_DIMENSION_BUFFER};
    desc.Buffer.FirstElement = first;
    desc.Buffer.NumElements = count;
    desc.Buffer.Flags = format == DXGI_FORMAT_UNKNOWN ? D3D12_BUFFER_UAV_FLAG_RAW : D3D12_BUFFER_UAV_FLAG_NONE;
    ID3D12Device_CreateUnorderedAccessView(g_device, resource, NULL, &desc, cpu);
}

/* `size` bytes of `resource` (DEFAULT, in UNORDERED_ACCESS) copied to the CPU. */
static void read_back(context *c, ID3D12Resource *resource, void *out, size_t size)
{
    ID3D12Resource *readback = buffer(D3D12_HEAP_TYPE_READBACK, size);
    CHECK_HR(ID3D12CommandAllocator_Reset(c->allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(c->list, c->allocator, NULL), S_OK);
    D3D12_RESOURCE_BARRIER barrier = {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION};
    barrier.Transition = (D3D12_RESOURCE_TRANSITION_BARRIER){resource, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                             D3D12_RESOURCE_STATE_COPY_SOURCE};
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    ID3D12GraphicsCommandList_CopyBufferRegion(c->list, readback, 0, resource, 0, size);
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_SOURCE;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    CHECK_HR(ID3D12GraphicsCommandList_Close(c->list), S_OK);
    context_run(c);
    void *mapped = NULL;
    D3D12_RANGE range = {0, size};
    if (CHECK_HR(ID3D12Resource_Map(readback, 0, &range, &mapped), S_OK)) {
        memcpy(out, mapped, size);
        ID3D12Resource_Unmap(readback, 0, NULL);
    }
    ID3D12Resource_Release(readback);
}

/* Words [0, count) are i * multiplier + addend, the rest of `total` still `fill`. */
static int fill_is(const uint32_t *words, unsigned count, unsigned total, uint32_t multiplier, uint32_t addend,
                   uint32_t fill, int line)
{
    for (unsigned i = 0; i < total; i++) {
        uint32_t expected = i < count ? i * multiplier + addend : fill;
        if (words[i] != expected) {
            outside_check(0, line, "the dispatch's words");
            fprintf(stderr, "    word %u is 0x%08X, expected 0x%08X\n", i, words[i], expected);
            return 0;
        }
    }
    return outside_check(1, line, "the dispatch's words");
}

/* raw_fill's root signature through a table: param 0 the four root constants of cb0[1] (b0), param 1 a table of
 * one UAV (u0). */
static ID3D12RootSignature *table_signature(void)
{
    static const D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[2] = {
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 4}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range}, D3D12_SHADER_VISIBILITY_ALL},
    };
    return root_signature(params, 2);
}

enum { WORDS = 160, WRITTEN = 128 }; /* raw_fill: 64 threads a group, two groups */

/* The state every raw_fill case starts from: a 160-word UAV of 0xDEADBEEF words. */
typedef struct fill_case {
    context c;
    ID3D12RootSignature *signature;
    ID3D12PipelineState *state;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *out;
} fill_case;

static ID3D12Resource *filled_uav(context *c, uint32_t fill)
{
    ID3D12Resource *out = buffer(D3D12_HEAP_TYPE_DEFAULT, WORDS * 4);
    uint32_t words[WORDS];
    for (unsigned i = 0; i < WORDS; i++)
        words[i] = fill;
    ID3D12Resource *src = upload(words, sizeof words);
    CHECK_HR(ID3D12CommandAllocator_Reset(c->allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(c->list, c->allocator, NULL), S_OK);
    D3D12_RESOURCE_BARRIER barrier = {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION};
    barrier.Transition = (D3D12_RESOURCE_TRANSITION_BARRIER){out, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                             D3D12_RESOURCE_STATE_COPY_DEST};
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    ID3D12GraphicsCommandList_CopyBufferRegion(c->list, out, 0, src, 0, sizeof words);
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_DEST;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    CHECK_HR(ID3D12GraphicsCommandList_Close(c->list), S_OK);
    context_run(c);
    ID3D12Resource_Release(src);
    return out;
}

static int fill_begin(fill_case *f)
{
    memset(f, 0, sizeof *f);
    if (!executes_shaders() || !context_make(&f->c))
        return 0;
    f->signature = table_signature();
    f->state = f->signature ? pipeline("raw_fill", f->signature) : NULL;
    f->heap = heap(4, 1);
    f->out = filled_uav(&f->c, 0xDEADBEEFu);
    if (!f->state || !f->heap || !f->out)
        return 0;
    uav(f->out, DXGI_FORMAT_UNKNOWN, 0, WORDS, cpu_handle(f->heap, 2));
    CHECK_HR(ID3D12CommandAllocator_Reset(f->c.allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(f->c.list, f->c.allocator, f->state), S_OK);
    ID3D12GraphicsCommandList_SetComputeRootSignature(f->c.list, f->signature);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(f->c.list, 1, &f->heap);
    ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(f->c.list, 1, gpu_handle(f->heap, 2));
    return 1;
}

static void constants(ID3D12GraphicsCommandList *list, uint32_t multiplier, uint32_t addend)
{
    const uint32_t values[2] = {multiplier, addend};
    ID3D12GraphicsCommandList_SetComputeRoot32BitConstants(list, 0, 2, values, 0);
}

static void uav_barrier(ID3D12GraphicsCommandList *list, ID3D12Resource *resource)
{
    D3D12_RESOURCE_BARRIER barrier = {.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV};
    barrier.UAV.pResource = resource;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

static void fill_end(fill_case *f)
{
    if (f->out)
        ID3D12Resource_Release(f->out);
    if (f->heap)
        ID3D12DescriptorHeap_Release(f->heap);
    if (f->state)
        ID3D12PipelineState_Release(f->state);
    if (f->signature)
        ID3D12RootSignature_Release(f->signature);
    context_free(&f->c);
}

#endif
