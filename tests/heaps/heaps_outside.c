/* Heaps and placed buffers through the public D3D12 API alone (issue 33, "Checked by"; docs/heaps.md): an outside
 * program, built against d12rt (run on the reference driver and on the Vulkan driver) and, where Debian's
 * libvkd3d-utils is found, against vkd3d 1.2 on lavapipe (tests/heaps/CMakeLists.txt), so every expectation here is
 * one a correct D3D12 implementation meets. Nothing d12rt-specific: DirectX-Headers and the entry points only.
 *
 *   heaps_outside CASE     heap_create | placed_alias_map | placed_alias_copy | placement_past_end | heap_tier |
 *                          heap_outlives_release
 *
 * Ends with "N passed, N failed"; exit 0 only when nothing failed. */
#include "../outside/outside.h"

#ifdef PEER_VKD3D
/* vkd3d-utils' event functions (System V, unlike its D3D12 entry points; bench/peer/peer.c). */
HANDLE vkd3d_create_event(void);
unsigned int vkd3d_wait_event(HANDLE event, unsigned int milliseconds);
void vkd3d_destroy_event(HANDLE event);
/* What vkd3d 1.2 does not do that D3D12 (and later vkd3d) does; those checks are left out of the vkd3d build:
 * - every placed buffer gets an address range of its own from vkd3d_gpu_va_allocator: aliases differ in GPU VA;
 * - CreatePlacedResource validates neither the bounds nor the heap's flags (later vkd3d: "Heap too small for the
 *   resource" -> E_INVALIDARG);
 * - a heap is destroyed at its last Release even while resources are placed in it (later vkd3d: "A heap must not be
 *   destroyed until all contained resources are destroyed"). */
#endif

#define KIB64 65536ull

static D3D12_HEAP_DESC heap_desc(D3D12_HEAP_TYPE type, UINT64 size, D3D12_HEAP_FLAGS flags)
{
    D3D12_HEAP_DESC desc = {size, {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0}, 0, flags};
    return desc;
}

static D3D12_RESOURCE_DESC buffer_desc(UINT64 width)
{
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    return desc;
}

static ID3D12Heap *create_heap(D3D12_HEAP_TYPE type, UINT64 size)
{
    D3D12_HEAP_DESC desc = heap_desc(type, size, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ID3D12Heap *heap = NULL;
    CHECK_HR(ID3D12Device_CreateHeap(g_device, &desc, &IID_ID3D12Heap, (void **)&heap), S_OK);
    return heap;
}

static D3D12_RESOURCE_STATES state_for(D3D12_HEAP_TYPE type)
{
    return type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
           : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                              : D3D12_RESOURCE_STATE_COMMON;
}

static HRESULT place(ID3D12Heap *heap, D3D12_HEAP_TYPE type, UINT64 offset, UINT64 width, ID3D12Resource **out)
{
    D3D12_RESOURCE_DESC desc = buffer_desc(width);
    *out = (ID3D12Resource *)(uintptr_t)1; /* a failure must clear it */
    return ID3D12Device_CreatePlacedResource(g_device, heap, offset, &desc, state_for(type), NULL, &IID_ID3D12Resource,
                                             (void **)out);
}

static ID3D12Resource *committed(D3D12_HEAP_TYPE type, UINT64 width)
{
    D3D12_HEAP_PROPERTIES properties = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = buffer_desc(width);
    ID3D12Resource *resource = NULL;
    CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &properties, D3D12_HEAP_FLAG_NONE, &desc, state_for(type),
                                                  NULL, &IID_ID3D12Resource, (void **)&resource),
             S_OK);
    return resource;
}

/* GetDesc returns a struct: the Microsoft x64 convention of a C++ method passes the result's address after `this`,
 * which the vkd3d build (ms_abi) must spell out; the System V build calls it as declared. */
static D3D12_HEAP_DESC heap_get_desc(ID3D12Heap *heap)
{
#ifdef PEER_VKD3D
    D3D12_HEAP_DESC desc;
    typedef D3D12_HEAP_DESC *(STDMETHODCALLTYPE * get_desc_fn)(ID3D12Heap *, D3D12_HEAP_DESC *);
    ((get_desc_fn)(void *)heap->lpVtbl->GetDesc)(heap, &desc);
    return desc;
#else
    return ID3D12Heap_GetDesc(heap);
#endif
}

static ULONG refcount(void *object)
{
    IUnknown_AddRef((IUnknown *)object);
    return IUnknown_Release((IUnknown *)object);
}

/* ---- heap_create: a buffer heap of each type; GetDesc as D3D12 completes it ---- */
static void test_heap_create(void)
{
    const D3D12_HEAP_TYPE types[] = {D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    for (size_t i = 0; i < 3; i++) {
        ID3D12Heap *heap = create_heap(types[i], 4 * KIB64);
        if (!heap)
            continue;
        D3D12_HEAP_DESC got = heap_get_desc(heap);
        CHECK(got.SizeInBytes == 4 * KIB64);
        CHECK(got.Properties.Type == types[i]);
        CHECK(got.Alignment == KIB64); /* 0 reads as the default placement alignment */
        CHECK(got.Flags == D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
        CHECK(got.Properties.CreationNodeMask == 1 && got.Properties.VisibleNodeMask == 1);
        CHECK(refcount(heap) == 1);
        CHECK(ID3D12Heap_Release(heap) == 0);
    }
    D3D12_HEAP_DESC zero = heap_desc(D3D12_HEAP_TYPE_DEFAULT, 0, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ID3D12Heap *heap = (ID3D12Heap *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateHeap(g_device, &zero, &IID_ID3D12Heap, (void **)&heap), E_INVALIDARG);
    CHECK(heap == NULL);
}

/* ---- placed_alias_map: two buffers at one offset share their GPU VA and their bytes (Map) ---- */
static void test_placed_alias_map(void)
{
    ID3D12Heap *heap = create_heap(D3D12_HEAP_TYPE_UPLOAD, 2 * KIB64);
    ID3D12Resource *a = NULL, *b = NULL, *first = NULL;
    if (!heap)
        return;
    CHECK_HR(place(heap, D3D12_HEAP_TYPE_UPLOAD, KIB64, KIB64, &a), S_OK);
    CHECK_HR(place(heap, D3D12_HEAP_TYPE_UPLOAD, KIB64, 4096, &b), S_OK);
    CHECK_HR(place(heap, D3D12_HEAP_TYPE_UPLOAD, 0, KIB64, &first), S_OK);
    if (a && b && first) {
        D3D12_RULE(CHECK(ID3D12Resource_GetGPUVirtualAddress(a) == ID3D12Resource_GetGPUVirtualAddress(b)));
        D3D12_RULE(CHECK(ID3D12Resource_GetGPUVirtualAddress(a) == ID3D12Resource_GetGPUVirtualAddress(first) + KIB64));
        unsigned char *pa = NULL, *pb = NULL;
        CHECK_HR(ID3D12Resource_Map(a, 0, NULL, (void **)&pa), S_OK);
        CHECK_HR(ID3D12Resource_Map(b, 0, NULL, (void **)&pb), S_OK);
        if (pa && pb) {
            for (unsigned i = 0; i < 4096; i++)
                pa[i] = (unsigned char)(i * 7 + 3);
            CHECK(memcmp(pa, pb, 4096) == 0);
            pb[100] = 0xA5;
            CHECK(pa[100] == 0xA5);
        }
        ID3D12Resource_Unmap(a, 0, NULL);
        ID3D12Resource_Unmap(b, 0, NULL);
        D3D12_HEAP_PROPERTIES properties;
        D3D12_HEAP_FLAGS flags = D3D12_HEAP_FLAG_NONE;
        CHECK_HR(ID3D12Resource_GetHeapProperties(a, &properties, &flags), S_OK);
        CHECK(properties.Type == D3D12_HEAP_TYPE_UPLOAD);
        CHECK(flags == D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    }
    if (first)
        ID3D12Resource_Release(first);
    if (b)
        ID3D12Resource_Release(b);
    if (a)
        ID3D12Resource_Release(a);
    ID3D12Heap_Release(heap);
}

/* ---- placed_alias_copy: a GPU copy through one alias reads what a GPU copy wrote through the other ---- */

typedef struct gpu {
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
} gpu;

static int gpu_open(gpu *g)
{
    D3D12_COMMAND_QUEUE_DESC queue = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    memset(g, 0, sizeof *g);
    return CHECK_HR(ID3D12Device_CreateCommandQueue(g_device, &queue, &IID_ID3D12CommandQueue, (void **)&g->queue),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                        &IID_ID3D12CommandAllocator, (void **)&g->allocator),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocator, NULL,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&g->list),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateFence(g_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&g->fence),
                    S_OK);
}

/* Close, execute, signal 1 and wait for it (a NULL event blocks until the value is reached). */
static void gpu_run(gpu *g)
{
    CHECK_HR(ID3D12GraphicsCommandList_Close(g->list), S_OK);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
    CHECK_HR(ID3D12CommandQueue_Signal(g->queue, g->fence, 1), S_OK);
#ifdef PEER_VKD3D
    HANDLE event = vkd3d_create_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(g->fence, 1, event), S_OK);
    vkd3d_wait_event(event, 0xFFFFFFFFu); /* INFINITE: vkd3d 1.2 has no timed wait */
    vkd3d_destroy_event(event);
#else
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(g->fence, 1, NULL), S_OK);
#endif
    CHECK(ID3D12Fence_GetCompletedValue(g->fence) == 1);
}

static void gpu_close(gpu *g)
{
    if (g->fence)
        ID3D12Fence_Release(g->fence);
    if (g->list)
        ID3D12GraphicsCommandList_Release(g->list);
    if (g->allocator)
        ID3D12CommandAllocator_Release(g->allocator);
    if (g->queue)
        ID3D12CommandQueue_Release(g->queue);
}

static void aliasing_barrier(ID3D12GraphicsCommandList *list, ID3D12Resource *before, ID3D12Resource *after)
{
    D3D12_RESOURCE_BARRIER barrier = {D3D12_RESOURCE_BARRIER_TYPE_ALIASING, D3D12_RESOURCE_BARRIER_FLAG_NONE, {{0}}};
    barrier.Aliasing.pResourceBefore = before;
    barrier.Aliasing.pResourceAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

static void test_placed_alias_copy(void)
{
    enum { BYTES = 4096 };
    gpu g;
    ID3D12Heap *heap = create_heap(D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64);
    ID3D12Resource *writer = NULL, *reader = NULL;
    ID3D12Resource *upload = committed(D3D12_HEAP_TYPE_UPLOAD, BYTES), *readback = committed(D3D12_HEAP_TYPE_READBACK, BYTES);
    if (heap && gpu_open(&g) && upload && readback && CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, KIB64, BYTES, &writer), S_OK) &&
        CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, KIB64, BYTES, &reader), S_OK)) {
        unsigned char *bytes = NULL;
        CHECK_HR(ID3D12Resource_Map(upload, 0, NULL, (void **)&bytes), S_OK);
        for (unsigned i = 0; bytes && i < BYTES; i++)
            bytes[i] = (unsigned char)(i ^ 0x5A);
        ID3D12Resource_Unmap(upload, 0, NULL);
        /* Written through `writer`; `reader` activated by an aliasing barrier and copied out. */
        ID3D12GraphicsCommandList_CopyBufferRegion(g.list, writer, 0, upload, 0, BYTES);
        aliasing_barrier(g.list, writer, reader);
        ID3D12GraphicsCommandList_CopyBufferRegion(g.list, readback, 0, reader, 0, BYTES);
        gpu_run(&g);
        unsigned char *back = NULL;
        CHECK_HR(ID3D12Resource_Map(readback, 0, NULL, (void **)&back), S_OK);
        unsigned same = 0;
        for (unsigned i = 0; back && i < BYTES; i++)
            same += back[i] == (unsigned char)(i ^ 0x5A);
        CHECK(same == BYTES);
        ID3D12Resource_Unmap(readback, 0, NULL);
    }
    if (reader)
        ID3D12Resource_Release(reader);
    if (writer)
        ID3D12Resource_Release(writer);
    gpu_close(&g);
    if (readback)
        ID3D12Resource_Release(readback);
    if (upload)
        ID3D12Resource_Release(upload);
    if (heap)
        ID3D12Heap_Release(heap);
}

/* ---- placement_past_end: HeapOffset + size past SizeInBytes, or an unaligned offset, is E_INVALIDARG ---- */
static void test_placement_past_end(void)
{
    ID3D12Heap *heap = create_heap(D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64);
    ID3D12Resource *resource = NULL;
    if (!heap)
        return;
    D3D12_RULE(CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64, KIB64, &resource), E_INVALIDARG)); /* at the end */
    D3D12_RULE(CHECK(resource == NULL));
    D3D12_RULE(CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, KIB64, 2 * KIB64, &resource), E_INVALIDARG)); /* past it */
    D3D12_RULE(CHECK(resource == NULL));
    D3D12_RULE(CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, 4 * KIB64, KIB64, &resource), E_INVALIDARG)); /* far past */
    D3D12_RULE(CHECK(resource == NULL));
    CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, KIB64, KIB64, &resource), S_OK); /* the last 64 KiB: fits exactly */
    if (resource)
        ID3D12Resource_Release(resource);
    CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, 0, 2 * KIB64, &resource), S_OK); /* the whole heap */
    if (resource)
        ID3D12Resource_Release(resource);
    ID3D12Heap_Release(heap);
}

/* ---- heap_tier: the heap flags a device accepts follow the resource heap tier it reports ---- */
static void test_heap_tier(void)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS options;
    memset(&options, 0, sizeof options);
    if (!CHECK_HR(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options),
                  S_OK))
        return;
    CHECK(options.ResourceHeapTier == D3D12_RESOURCE_HEAP_TIER_1 || options.ResourceHeapTier == D3D12_RESOURCE_HEAP_TIER_2);
    /* Texture heaps may be created whether or not textures can be placed in them. */
    const D3D12_HEAP_FLAGS every_tier[] = {D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS, D3D12_HEAP_FLAG_ALLOW_ONLY_NON_RT_DS_TEXTURES,
                                           D3D12_HEAP_FLAG_ALLOW_ONLY_RT_DS_TEXTURES};
    for (size_t i = 0; i < 3; i++) {
        D3D12_HEAP_DESC desc = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, every_tier[i]);
        ID3D12Heap *heap = NULL;
        CHECK_HR(ID3D12Device_CreateHeap(g_device, &desc, &IID_ID3D12Heap, (void **)&heap), S_OK);
        if (heap)
            ID3D12Heap_Release(heap);
    }
    D3D12_HEAP_DESC all = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ALL_BUFFERS_AND_TEXTURES);
    ID3D12Heap *heap = NULL;
    HRESULT hr = ID3D12Device_CreateHeap(g_device, &all, &IID_ID3D12Heap, (void **)&heap);
    CHECK_HR(hr, options.ResourceHeapTier >= D3D12_RESOURCE_HEAP_TIER_2 ? S_OK : E_INVALIDARG);
    if (heap)
        ID3D12Heap_Release(heap);
    /* A buffer in a heap that denies buffers is refused. */
    D3D12_HEAP_DESC textures = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_NON_RT_DS_TEXTURES);
    heap = NULL;
    ID3D12Resource *resource = NULL;
    (void)resource; /* not used by the vkd3d build */
    if (CHECK_HR(ID3D12Device_CreateHeap(g_device, &textures, &IID_ID3D12Heap, (void **)&heap), S_OK)) {
        D3D12_RULE(CHECK_HR(place(heap, D3D12_HEAP_TYPE_DEFAULT, 0, KIB64, &resource), E_INVALIDARG));
        D3D12_RULE(CHECK(resource == NULL));
        ID3D12Heap_Release(heap);
    }
}

/* ---- heap_outlives_release: placed buffers keep their heap (and its bytes) after the application's release ---- */
static void test_heap_outlives_release(void)
{
    ID3D12Heap *heap = create_heap(D3D12_HEAP_TYPE_UPLOAD, KIB64);
    ID3D12Resource *a = NULL, *b = NULL;
    if (!heap || !CHECK_HR(place(heap, D3D12_HEAP_TYPE_UPLOAD, 0, KIB64, &a), S_OK) ||
        !CHECK_HR(place(heap, D3D12_HEAP_TYPE_UPLOAD, 0, 256, &b), S_OK))
        return;
    CHECK(refcount(heap) == 1); /* the placed resources hold it internally */
    unsigned *pa = NULL, *pb = NULL;
    CHECK_HR(ID3D12Resource_Map(a, 0, NULL, (void **)&pa), S_OK);
    if (pa)
        pa[3] = 0xC0FFEEu;
    D3D12_RULE(CHECK(ID3D12Heap_Release(heap) == 0)); /* before the resources: they keep it */
    CHECK(ID3D12Resource_Release(a) == 0);
    CHECK_HR(ID3D12Resource_Map(b, 0, NULL, (void **)&pb), S_OK);
    CHECK(pb && pb[3] == 0xC0FFEEu);
    CHECK(ID3D12Resource_Release(b) == 0);
#ifdef PEER_VKD3D
    CHECK(ID3D12Heap_Release(heap) == 0);
#endif
}

static const outside_case cases[] = {
    {"heap_create", test_heap_create},
    {"placed_alias_map", test_placed_alias_map},
    {"placed_alias_copy", test_placed_alias_copy},
    {"placement_past_end", test_placement_past_end},
    {"heap_tier", test_heap_tier},
    {"heap_outlives_release", test_heap_outlives_release},
};

int main(int argc, char **argv)
{
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
