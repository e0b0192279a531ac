/* Heaps and placed buffers, d12rt's side (issue 33, docs/heaps.md): every validation rule with the debug layer's
 * message ID, a negative and a positive; residency; OpenExistingHeapFrom*; GetCustomHeapProperties; a driver
 * without the heap table; DRED naming two aliases. `test_heaps CASE`; CMake registers each (tests/heaps/). The
 * behaviour an application sees without d12rt's messages is checked against vkd3d by heaps_outside.c. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "gpu_harness.h"
#include "d12rt/d3d12_ext.h"
#include "d12dred_report.h"

#define KIB64 65536ull
#define MSG_CREATE_INVALID_ARGUMENT ((D3D12_MESSAGE_ID)0x1000F)
#define MSG_PLACEMENT_OUTSIDE_HEAP ((D3D12_MESSAGE_ID)0x13301)
#define MSG_HEAPS_UNSUPPORTED ((D3D12_MESSAGE_ID)0x13300)
#define MSG_INVALID_ARGUMENT ((D3D12_MESSAGE_ID)0x10009)

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_iq;

static bool open_device(void)
{
    g_device = create_device(true);
    g_iq = g_device ? info_queue_of(g_device) : NULL;
    return g_iq != NULL;
}

static void close_device(void)
{
    if (g_iq)
        ID3D12InfoQueue_Release(g_iq);
    if (g_device)
        RELEASE_LAST(g_device);
}

static D3D12_HEAP_DESC heap_desc(D3D12_HEAP_TYPE type, UINT64 size, D3D12_HEAP_FLAGS flags)
{
    D3D12_HEAP_DESC desc = {size, {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0}, 0, flags};
    return desc;
}

/* CreateHeap with `desc`: the HRESULT, the heap released at once; *out cleared on failure is checked. */
static HRESULT try_heap(const D3D12_HEAP_DESC *desc)
{
    ID3D12Heap *heap = (ID3D12Heap *)(uintptr_t)1;
    HRESULT hr = ID3D12Device_CreateHeap(g_device, desc, &IID_ID3D12Heap, (void **)&heap);
    if (SUCCEEDED(hr))
        RELEASE_LAST(heap);
    else
        CHECK(heap == NULL);
    return hr;
}

/* One rule: `bad` refused with E_INVALIDARG and exactly one message `id` containing `text`; `good` created with
 * none. */
static void heap_rule(const D3D12_HEAP_DESC *bad, const D3D12_HEAP_DESC *good, D3D12_MESSAGE_ID id, const char *text)
{
    ID3D12InfoQueue_ClearStoredMessages(g_iq);
    CHECK_HR(try_heap(bad), E_INVALIDARG);
    CHECK_EQ_INT(count_id(g_iq, id, text, NULL), 1);
    ID3D12InfoQueue_ClearStoredMessages(g_iq);
    CHECK_HR(try_heap(good), S_OK);
    CHECK_EQ_INT(count_id(g_iq, id, NULL, NULL), 0);
}

static void test_createheap_nulldesc(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = (ID3D12Heap *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateHeap(g_device, NULL, &IID_ID3D12Heap, (void **)&heap), E_INVALIDARG);
    CHECK(heap == NULL);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_CREATEHEAP_NULLDESC, "ID3D12Device::CreateHeap: pDesc is NULL", NULL), 1);
    ID3D12InfoQueue_ClearStoredMessages(g_iq);
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    CHECK_HR(try_heap(&good), S_OK);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_CREATEHEAP_NULLDESC, NULL, NULL), 0);
    close_device();
}

static void test_createheap_invalidsize(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC bad = heap_desc(D3D12_HEAP_TYPE_DEFAULT, 0, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_DEFAULT, 1, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDSIZE, "SizeInBytes is 0");
    close_device();
}

static void test_createheap_unrecognizedheaptype(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC bad = heap_desc((D3D12_HEAP_TYPE)7, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_READBACK, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_UNRECOGNIZEDHEAPTYPE, "Type 7 is no D3D12_HEAP_TYPE");
    bad.Properties.Type = (D3D12_HEAP_TYPE)0;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_UNRECOGNIZEDHEAPTYPE, "Type 0 is no D3D12_HEAP_TYPE");
    close_device();
}

static void test_createheap_invalidproperties(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_UPLOAD, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_HEAP_DESC bad = good;
    bad.Properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDPROPERTIES, "CPUPageProperty and MemoryPoolPreference");
    bad = good;
    bad.Properties.VisibleNodeMask = 2;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDPROPERTIES, "a node the adapter lacks");
    bad = heap_desc(D3D12_HEAP_TYPE_CUSTOM, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    bad.Properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK;
    bad.Properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDPROPERTIES, "no CUSTOM heaps");
    close_device();
}

static void test_createheap_invalidalignment(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC bad = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_HEAP_DESC good = bad;
    bad.Alignment = 4096;
    good.Alignment = D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDALIGNMENT, "not 4096");
    good.Alignment = KIB64;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDALIGNMENT, "not 4096");
    close_device();
}

static void test_createheap_unrecognizedmiscflags(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC bad = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64,
                                    (D3D12_HEAP_FLAGS)(D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS | 0x10000000));
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64,
                                     D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS | D3D12_HEAP_FLAG_CREATE_NOT_ZEROED);
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_UNRECOGNIZEDMISCFLAGS, "bits 0x10000000");
    close_device();
}

/* SHARED refused; ALLOW_ALL_BUFFERS_AND_TEXTURES only at heap tier 2 (D12RT_REFDRV_PROFILE=newest-tiers gives it:
 * the `invalidmiscflags_tier2` case); denying everything always. */
static void test_createheap_invalidmiscflags(void)
{
    if (!open_device())
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS options = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options), S_OK);
    CHECK_EQ_INT(options.ResourceHeapTier, D3D12_RESOURCE_HEAP_TIER_1); /* what d12rt implements (issue 27 item 1) */
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_RT_DS_TEXTURES);
    D3D12_HEAP_DESC bad = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64,
                                    D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDMISCFLAGS, "SHARED and SHARED_CROSS_ADAPTER are refused");
    bad.Flags = D3D12_HEAP_FLAG_ALLOW_ALL_BUFFERS_AND_TEXTURES;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDMISCFLAGS,
              "ALLOW_ALL_BUFFERS_AND_TEXTURES needs D3D12_RESOURCE_HEAP_TIER_2");
    bad.Flags = D3D12_HEAP_FLAG_DENY_BUFFERS; /* buffers denied, both kinds of texture allowed: two categories */
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDMISCFLAGS, "holds one category");
    bad.Flags = D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS | D3D12_HEAP_FLAG_DENY_BUFFERS;
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDMISCFLAGS, "can hold nothing");
    close_device();
}

static void test_createheap_invalidmiscflags_tier2(void)
{
    if (!open_device())
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS options = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options), S_OK);
    CHECK_EQ_INT(options.ResourceHeapTier, D3D12_RESOURCE_HEAP_TIER_2);
    D3D12_HEAP_DESC good = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ALL_BUFFERS_AND_TEXTURES);
    D3D12_HEAP_DESC bad = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64,
                                    D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS | D3D12_HEAP_FLAG_DENY_BUFFERS);
    heap_rule(&bad, &good, D3D12_MESSAGE_ID_CREATEHEAP_INVALIDMISCFLAGS, "can hold nothing");
    close_device();
}

/* ---- CreatePlacedResource ---- */

static D3D12_RESOURCE_DESC buffer_desc_of(UINT64 width)
{
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    return desc;
}

static ID3D12Heap *new_heap(D3D12_HEAP_TYPE type, UINT64 size, D3D12_HEAP_FLAGS flags)
{
    D3D12_HEAP_DESC desc = heap_desc(type, size, flags);
    ID3D12Heap *heap = NULL;
    CHECK_HR(ID3D12Device_CreateHeap(g_device, &desc, &IID_ID3D12Heap, (void **)&heap), S_OK);
    return heap;
}

static HRESULT try_place(ID3D12Heap *heap, UINT64 offset, const D3D12_RESOURCE_DESC *desc)
{
    ID3D12Resource *resource = (ID3D12Resource *)(uintptr_t)1;
    HRESULT hr = ID3D12Device_CreatePlacedResource(g_device, heap, offset, desc, D3D12_RESOURCE_STATE_COMMON, NULL,
                                                   &IID_ID3D12Resource, (void **)&resource);
    if (SUCCEEDED(hr))
        RELEASE_LAST(resource);
    else
        CHECK(resource == NULL);
    return hr;
}

static void place_rule(ID3D12Heap *bad_heap, UINT64 bad_offset, const D3D12_RESOURCE_DESC *bad_desc, ID3D12Heap *heap,
                       UINT64 offset, const D3D12_RESOURCE_DESC *desc, D3D12_MESSAGE_ID id, const char *text)
{
    ID3D12InfoQueue_ClearStoredMessages(g_iq);
    CHECK_HR(try_place(bad_heap, bad_offset, bad_desc), E_INVALIDARG);
    CHECK_EQ_INT(count_id(g_iq, id, text, NULL), 1);
    ID3D12InfoQueue_ClearStoredMessages(g_iq);
    CHECK_HR(try_place(heap, offset, desc), S_OK);
    CHECK_EQ_INT(count_id(g_iq, id, NULL, NULL), 0);
}

static void test_placed_nullheap(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_RESOURCE_DESC desc = buffer_desc_of(KIB64);
    if (heap)
        place_rule(NULL, 0, &desc, heap, 0, &desc, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_NULLHEAP, "pHeap is NULL");
    if (heap)
        RELEASE_LAST(heap);
    close_device();
}

static void test_placed_nullresourceproperties(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_RESOURCE_DESC desc = buffer_desc_of(KIB64);
    if (heap)
        place_rule(heap, 0, NULL, heap, 0, &desc, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_NULLRESOURCEPROPERTIES,
                   "CreatePlacedResource: pDesc is NULL");
    if (heap)
        RELEASE_LAST(heap);
    close_device();
}

static void test_placed_unaligned_offset(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_RESOURCE_DESC desc = buffer_desc_of(256);
    if (heap)
        place_rule(heap, 256, &desc, heap, KIB64, &desc, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALID_PARAMETERS,
                   "HeapOffset 0x100 is not a multiple of the buffer's alignment 65536");
    if (heap)
        RELEASE_LAST(heap);
    close_device();
}

static void test_placed_outside_heap(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_RESOURCE_DESC big = buffer_desc_of(KIB64 + 1), fits = buffer_desc_of(KIB64);
    if (heap) {
        place_rule(heap, KIB64, &big, heap, KIB64, &fits, MSG_PLACEMENT_OUTSIDE_HEAP,
                   "the buffer's 0x20000 bytes (its Width rounded up to 65536, as GetResourceAllocationInfo sizes it) "
                   "at HeapOffset 0x10000 end past the heap's SizeInBytes 0x20000");
        place_rule(heap, UINT64_MAX & ~(KIB64 - 1), &fits, heap, 0, &fits, MSG_PLACEMENT_OUTSIDE_HEAP,
                   "end past the heap's SizeInBytes"); /* no wrap-around */
        RELEASE_LAST(heap);
    }
    close_device();
}

/* A buffer in a heap that denies buffers (a texture heap: created, though textures cannot be placed yet). */
static void test_placed_in_texture_heap(void)
{
    if (!open_device())
        return;
    ID3D12Heap *textures = new_heap(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_NON_RT_DS_TEXTURES);
    ID3D12Heap *buffers = new_heap(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    D3D12_RESOURCE_DESC desc = buffer_desc_of(KIB64);
    if (textures && buffers)
        place_rule(textures, 0, &desc, buffers, 0, &desc, MSG_CREATE_INVALID_ARGUMENT,
                   "D3D12_HEAP_FLAG_DENY_BUFFERS denies the very buffer being created");
    if (textures)
        RELEASE_LAST(textures);
    if (buffers)
        RELEASE_LAST(buffers);
    close_device();
}

/* CreatePlacedResource1 and 2 share the rules; their own: SamplerFeedbackMipRegion, InitialLayout, castable formats. */
static void test_placed_1_2(void)
{
    if (!open_device())
        return;
    ID3D12Device10 *device10 = NULL;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_UPLOAD, 2 * KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    if (heap && CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device10, (void **)&device10), S_OK)) {
        D3D12_RESOURCE_DESC1 desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, KIB64, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                     D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE, {0, 0, 0}};
        ID3D12Resource *a = NULL, *b = NULL;
        CHECK_HR(ID3D12Device10_CreatePlacedResource1(device10, heap, KIB64, &desc, D3D12_RESOURCE_STATE_GENERIC_READ,
                                                      NULL, &IID_ID3D12Resource, (void **)&a), S_OK);
        CHECK_HR(ID3D12Device10_CreatePlacedResource2(device10, heap, KIB64, &desc, D3D12_BARRIER_LAYOUT_UNDEFINED, NULL,
                                                      0, NULL, &IID_ID3D12Resource, (void **)&b), S_OK);
        if (a && b)
            CHECK(ID3D12Resource_GetGPUVirtualAddress(a) == ID3D12Resource_GetGPUVirtualAddress(b));
        ID3D12InfoQueue_ClearStoredMessages(g_iq);
        ID3D12Resource *c = (ID3D12Resource *)(uintptr_t)1;
        CHECK_HR(ID3D12Device10_CreatePlacedResource2(device10, heap, 0, &desc, D3D12_BARRIER_LAYOUT_COMMON, NULL, 0,
                                                      NULL, &IID_ID3D12Resource, (void **)&c), E_INVALIDARG);
        CHECK(c == NULL);
        CHECK_EQ_INT(count_id(g_iq, MSG_CREATE_INVALID_ARGUMENT, "InitialLayout must be D3D12_BARRIER_LAYOUT_UNDEFINED",
                              NULL), 1);
        desc.SamplerFeedbackMipRegion.Width = 4;
        CHECK_HR(ID3D12Device10_CreatePlacedResource1(device10, heap, 0, &desc, D3D12_RESOURCE_STATE_GENERIC_READ, NULL,
                                                      &IID_ID3D12Resource, (void **)&c), E_INVALIDARG);
        CHECK_EQ_INT(count_id(g_iq, MSG_CREATE_INVALID_ARGUMENT, "SamplerFeedbackMipRegion", NULL), 1);
        if (a)
            RELEASE_LAST(a);
        if (b)
            RELEASE_LAST(b);
    }
    if (device10)
        ID3D12Device10_Release(device10);
    if (heap)
        RELEASE_LAST(heap);
    close_device();
}

/* ---- Residency, OpenExistingHeapFrom*, GetCustomHeapProperties ---- */

static void test_residency(void)
{
    if (!open_device())
        return;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ID3D12Device3 *device3 = NULL;
    ID3D12Fence *fence = NULL;
    if (heap && CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device3, (void **)&device3), S_OK) &&
        CHECK_HR(ID3D12Device_CreateFence(g_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK)) {
        ID3D12Pageable *objects[] = {(ID3D12Pageable *)heap};
        CHECK_HR(ID3D12Device_MakeResident(g_device, 1, objects), S_OK);
        CHECK_HR(ID3D12Device_Evict(g_device, 1, objects), S_OK);
        CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(g_iq), 0);
        CHECK_HR(ID3D12Device_MakeResident(g_device, 1, NULL), E_INVALIDARG);
        CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_MAKERESIDENT_NULLOBJECTARRAY, "NumObjects 1", NULL), 1);
        CHECK_HR(ID3D12Device_Evict(g_device, 1, NULL), E_INVALIDARG);
        CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EVICT_NULLOBJECTARRAY, "NumObjects 1", NULL), 1);
        /* EnqueueMakeResident: resident already, so the fence is signalled at once. */
        CHECK_HR(ID3D12Device3_EnqueueMakeResident(device3, D3D12_RESIDENCY_FLAG_DENY_OVERBUDGET, 1, objects, fence, 7),
                 S_OK);
        CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 7);
        CHECK_HR(ID3D12Device3_EnqueueMakeResident(device3, (D3D12_RESIDENCY_FLAGS)2, 1, objects, fence, 8),
                 E_INVALIDARG);
        CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_ENQUEUE_MAKE_RESIDENT_INVALID_FLAGS, "Flags 0x2", NULL), 1);
        CHECK_HR(ID3D12Device3_EnqueueMakeResident(device3, D3D12_RESIDENCY_FLAG_NONE, 1, objects, NULL, 8),
                 E_INVALIDARG);
        CHECK_EQ_INT(count_id(g_iq, MSG_INVALID_ARGUMENT, "pFenceToSignal", NULL), 1);
        CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 7);
    }
    if (fence)
        RELEASE_LAST(fence);
    if (device3)
        ID3D12Device3_Release(device3);
    if (heap)
        RELEASE_LAST(heap);
    close_device();
}

static void test_open_existing_heap(void)
{
    if (!open_device())
        return;
    ID3D12Device3 *device3 = NULL;
    if (CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device3, (void **)&device3), S_OK)) {
        static char memory[65536];
        ID3D12Heap *heap = (ID3D12Heap *)(uintptr_t)1;
        CHECK_HR(ID3D12Device3_OpenExistingHeapFromAddress(device3, memory, &IID_ID3D12Heap, (void **)&heap), E_NOTIMPL);
        CHECK(heap == NULL);
        heap = (ID3D12Heap *)(uintptr_t)1;
        CHECK_HR(ID3D12Device3_OpenExistingHeapFromFileMapping(device3, (HANDLE)(intptr_t)3, &IID_ID3D12Heap,
                                                               (void **)&heap), E_NOTIMPL);
        CHECK(heap == NULL);
        CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_OPENEXISTINGHEAP_UNSUPPORTED, "OpenExistingHeapFromAddress", NULL), 1);
        CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_OPENEXISTINGHEAP_UNSUPPORTED, "OpenExistingHeapFromFileMapping",
                              NULL), 1);
        ID3D12Device3_Release(device3);
    }
    close_device();
}

static void test_custom_heap_properties(void)
{
    if (!open_device())
        return;
    D3D12_FEATURE_DATA_ARCHITECTURE architecture = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof architecture),
             S_OK);
    D3D12_HEAP_PROPERTIES p = ID3D12Device_GetCustomHeapProperties(g_device, 0, D3D12_HEAP_TYPE_DEFAULT);
    CHECK_EQ_INT(p.Type, D3D12_HEAP_TYPE_CUSTOM);
    CHECK_EQ_INT(p.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE);
    CHECK_EQ_INT(p.MemoryPoolPreference, architecture.UMA ? D3D12_MEMORY_POOL_L0 : D3D12_MEMORY_POOL_L1);
    CHECK_EQ_INT(p.CreationNodeMask, 1);
    CHECK_EQ_INT(p.VisibleNodeMask, 1);
    p = ID3D12Device_GetCustomHeapProperties(g_device, 1, D3D12_HEAP_TYPE_UPLOAD);
    CHECK_EQ_INT(p.CPUPageProperty, architecture.CacheCoherentUMA ? D3D12_CPU_PAGE_PROPERTY_WRITE_BACK
                                                                  : D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE);
    CHECK_EQ_INT(p.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    p = ID3D12Device_GetCustomHeapProperties(g_device, 1, D3D12_HEAP_TYPE_READBACK);
    CHECK_EQ_INT(p.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK);
    CHECK_EQ_INT(p.MemoryPoolPreference, D3D12_MEMORY_POOL_L0);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_GETCUSTOMHEAPPROPERTIES_INVALIDHEAPTYPE, NULL, NULL), 0);
    p = ID3D12Device_GetCustomHeapProperties(g_device, 1, D3D12_HEAP_TYPE_CUSTOM);
    CHECK_EQ_INT(p.CPUPageProperty, D3D12_CPU_PAGE_PROPERTY_UNKNOWN);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_GETCUSTOMHEAPPROPERTIES_INVALIDHEAPTYPE, "heapType 4", NULL), 1);
    close_device();
}

/* ---- A driver without the heap table (examples/driver_skeleton): refused, naming it; the rest still works ---- */
static void test_no_heap_table(void)
{
    if (!open_device())
        return;
    D3D12_HEAP_DESC desc = heap_desc(D3D12_HEAP_TYPE_DEFAULT, KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ID3D12Heap *heap = (ID3D12Heap *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateHeap(g_device, &desc, &IID_ID3D12Heap, (void **)&heap), E_NOTIMPL);
    CHECK(heap == NULL);
    const char *driver = getenv("D12RT_DRIVER");
    CHECK_EQ_INT(count_id(g_iq, MSG_HEAPS_UNSUPPORTED, driver, NULL), 1);
    CHECK_EQ_INT(count_id(g_iq, MSG_HEAPS_UNSUPPORTED, "offers no heap table (D3D12DDI_TABLE_TYPE_D12RT_HEAPS)", NULL), 1);
    D3D12_RESOURCE_DESC buffer = buffer_desc_of(KIB64);
    ID3D12Resource *resource = (ID3D12Resource *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreatePlacedResource(g_device, NULL, 0, &buffer, D3D12_RESOURCE_STATE_COMMON, NULL,
                                               &IID_ID3D12Resource, (void **)&resource), E_NOTIMPL);
    CHECK(resource == NULL);
    CHECK_EQ_INT(count_id(g_iq, MSG_HEAPS_UNSUPPORTED, "CreatePlacedResource", NULL), 1);
    ID3D12Resource *committed = make_buffer(g_device, D3D12_HEAP_TYPE_UPLOAD, 256); /* the driver keeps working */
    CHECK(committed != NULL);
    if (committed)
        RELEASE_LAST(committed);
    close_device();
}

/* ---- DRED: a copy through an alias of a heap released too early names both aliases and the active one ---- */
static char g_dir[] = "/tmp/d12heaps_dred_XXXXXX";

static void enable_dred(void)
{
    ID3D12DeviceRemovedExtendedDataSettings *s = NULL;
    if (CHECK(mkdtemp(g_dir) != NULL))
        setenv("D12RT_DRED_DUMP", g_dir, 1);
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&s), S_OK)) {
        ID3D12DeviceRemovedExtendedDataSettings_SetAutoBreadcrumbsEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings_SetPageFaultEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings_Release(s);
    }
}

/* The Windows output: the freed allocations at the VA are the two aliases and the heap, newest first. */
static void check_windows_output(ID3D12Device *device, UINT64 va)
{
    ID3D12DeviceRemovedExtendedData1 *dred = NULL;
    D3D12_DRED_PAGE_FAULT_OUTPUT1 output = {0};
    if (!CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData1, (void **)&dred), S_OK))
        return;
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetPageFaultAllocationOutput1(dred, &output), S_OK);
    if (!CHECK(output.PageFaultVA == va))
        fprintf(stderr, "    PageFaultVA 0x%llx, expected 0x%llx\n", (unsigned long long)output.PageFaultVA,
                (unsigned long long)va);
    const wchar_t *expected[] = {L"Heap pool", L"Particles", L"Shadow map scratch"};
    const D3D12_DRED_ALLOCATION_TYPE types[] = {D3D12_DRED_ALLOCATION_TYPE_HEAP, D3D12_DRED_ALLOCATION_TYPE_RESOURCE,
                                                D3D12_DRED_ALLOCATION_TYPE_RESOURCE};
    const D3D12_DRED_ALLOCATION_NODE1 *node = output.pHeadRecentFreedAllocationNode;
    for (int i = 0; i < 3; i++, node = node ? node->pNext : NULL) {
        if (!CHECK(node != NULL))
            break;
        CHECK(node->ObjectNameW && wcscmp(node->ObjectNameW, expected[i]) == 0); /* SetName names in UTF-16 */
        CHECK_EQ_INT(node->AllocationType, types[i]);
    }
    CHECK(output.pHeadExistingAllocationNode == NULL);
    ID3D12DeviceRemovedExtendedData1_Release(dred);
}

static void test_dred_two_aliases(void)
{
    enable_dred();
    if (!open_device())
        return;
    gpu_context ctx;
    ID3D12Heap *heap = new_heap(D3D12_HEAP_TYPE_DEFAULT, 2 * KIB64, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS);
    ID3D12Resource *readback = make_buffer(g_device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *shadow = NULL, *particles = NULL;
    D3D12_RESOURCE_DESC desc = buffer_desc_of(KIB64);
    if (!heap || !readback || !make_context(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) ||
        !CHECK_HR(ID3D12Device_CreatePlacedResource(g_device, heap, KIB64, &desc, D3D12_RESOURCE_STATE_COMMON, NULL,
                                                    &IID_ID3D12Resource, (void **)&shadow), S_OK) ||
        !CHECK_HR(ID3D12Device_CreatePlacedResource(g_device, heap, KIB64, &desc, D3D12_RESOURCE_STATE_COMMON, NULL,
                                                    &IID_ID3D12Resource, (void **)&particles), S_OK))
        return;
    ID3D12Heap_SetName(heap, L"Heap pool");
    ID3D12Resource_SetName(shadow, L"Shadow map scratch");
    ID3D12Resource_SetName(particles, L"Particles");
    UINT64 va = ID3D12Resource_GetGPUVirtualAddress(particles) + 0x80;
    /* op #0: a copy between committed buffers; op #1: the aliasing barrier activating Particles over Shadow map scratch;
     * op #2: the copy out of Particles, which runs after the heap went (released before the list executed). */
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, readback, 128, readback, 0, 64);
    D3D12_RESOURCE_BARRIER barrier = {D3D12_RESOURCE_BARRIER_TYPE_ALIASING, D3D12_RESOURCE_BARRIER_FLAG_NONE, {{0}}};
    barrier.Aliasing.pResourceBefore = shadow;
    barrier.Aliasing.pResourceAfter = particles;
    ID3D12GraphicsCommandList_ResourceBarrier(ctx.list, 1, &barrier);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, readback, 0, particles, 0x80, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    RELEASE_LAST(shadow);
    RELEASE_LAST(particles);
    RELEASE_LAST(heap);
    execute(ctx.queue, ctx.list);
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(g_device) == S_OK; i++)
        sleep_ms(5);
    CHECK(FAILED(ID3D12Device_GetDeviceRemovedReason(g_device)));
    check_windows_output(g_device, va);
    release_context(&ctx);
    RELEASE_LAST(readback);
    close_device();
    char path[512], error[512] = "";
    snprintf(path, sizeof path, "%s/d12dred-%d-1.json", g_dir, (int)getpid());
    d12dred_report *r = NULL;
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        if (CHECK(r->page_fault != NULL)) {
            CHECK_EQ_STR(r->page_fault->aliasing, "'Particles' and 'Shadow map scratch' aliased this range (all "
                                                  "released); 'Particles' was the active one, since the aliasing "
                                                  "barrier at op #1");
            CHECK_EQ_INT(r->page_fault->verdict, D12DRED_VERDICT_USE_AFTER_FREE);
        }
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (f) {
            d12dred_report_render(r, f);
            fclose(f);
        }
        CHECK(text && strstr(text, "  aliasing      'Particles' and 'Shadow map scratch' aliased this range"));
        CHECK(text && strstr(text, "#2 COPYBUFFERREGION(7)  <- FAULT (exact)"));
        if (text && getenv("SHOW"))
            fprintf(stderr, "%s\n", text);
        free(text);
        d12dred_report_free(r);
    }
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
    CHECK_EQ_INT(system(command), 0);
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"createheap_nulldesc", test_createheap_nulldesc},
    {"createheap_invalidsize", test_createheap_invalidsize},
    {"createheap_unrecognizedheaptype", test_createheap_unrecognizedheaptype},
    {"createheap_invalidproperties", test_createheap_invalidproperties},
    {"createheap_invalidalignment", test_createheap_invalidalignment},
    {"createheap_unrecognizedmiscflags", test_createheap_unrecognizedmiscflags},
    {"createheap_invalidmiscflags", test_createheap_invalidmiscflags},
    {"createheap_invalidmiscflags_tier2", test_createheap_invalidmiscflags_tier2},
    {"placed_nullheap", test_placed_nullheap},
    {"placed_nullresourceproperties", test_placed_nullresourceproperties},
    {"placed_unaligned_offset", test_placed_unaligned_offset},
    {"placed_outside_heap", test_placed_outside_heap},
    {"placed_in_texture_heap", test_placed_in_texture_heap},
    {"placed_1_2", test_placed_1_2},
    {"residency", test_residency},
    {"open_existing_heap", test_open_existing_heap},
    {"custom_heap_properties", test_custom_heap_properties},
    {"no_heap_table", test_no_heap_table},
    {"dred_two_aliases", test_dred_two_aliases},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_heaps CASE\n");
    return 2;
}
