/* An outside client of an installed d12rt on the installed Vulkan driver (ctest install.vulkan_client): built
 * with `pkg-config --cflags --libs d12rt` alone, run with D12RT_DRIVER=vulkan (the bare name: the prefix's
 * lib/d12rt/libd12rt_vulkan.so, DESIGN.md) and D12RT_VULKAN_VALIDATION=sync. It is issue 18's missing-barrier
 * program: A (upload) -> B (default) -> C (readback) in one list.
 *
 *   vulkan_client missing   no barrier on B between the copies: exactly one SYNC-HAZARD-READ-AFTER-WRITE message,
 *                           prefixed with the list's identity and "[CopyBufferRegion #1]"
 *   vulkan_client barrier   the COPY_DEST -> COPY_SOURCE barrier on B: no hazard, and C's bytes equal A's
 *
 * Either way one INFO message names the validation mode, which proves the Vulkan driver served the device. */
#define COBJMACROS
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "../harness.h"

enum { SIZE = 4096 };

static ID3D12Resource *make_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {.Type = type};
    D3D12_RESOURCE_DESC desc = {.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER, .Width = SIZE, .Height = 1,
                                .DepthOrArraySize = 1, .MipLevels = 1, .SampleDesc = {1, 0},
                                .Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&buffer),
                 S_OK);
    return buffer;
}

static unsigned char *map(ID3D12Resource *buffer)
{
    void *data = NULL;
    return SUCCEEDED(ID3D12Resource_Map(buffer, 0, NULL, &data)) ? data : NULL;
}

/* How many stored messages contain every one of the given texts (NULL-terminated). */
static unsigned count_messages(ID3D12InfoQueue *queue, const char *first, const char *second)
{
    unsigned found = 0;
    for (UINT64 i = 0, n = ID3D12InfoQueue_GetNumStoredMessages(queue); i < n; i++) {
        SIZE_T length = 0;
        if (FAILED(ID3D12InfoQueue_GetMessage(queue, i, NULL, &length)))
            continue;
        D3D12_MESSAGE *message = malloc(length);
        if (message && SUCCEEDED(ID3D12InfoQueue_GetMessage(queue, i, message, &length)) &&
            strstr(message->pDescription, first) && (!second || strstr(message->pDescription, second)))
            found++;
        free(message);
    }
    return found;
}

static void run(ID3D12Device *device, ID3D12InfoQueue *iq, int barrier)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc = {.Type = D3D12_COMMAND_LIST_TYPE_DIRECT};
    ID3D12CommandQueue *queue = NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator),
                 S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list),
                 S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    ID3D12Resource *a = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12Resource *b = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON);
    ID3D12Resource *c = make_buffer(device, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST);
    if (!queue || !allocator || !list || !fence || !a || !b || !c)
        return;
    unsigned char *pa = map(a);
    if (!CHECK(pa != NULL))
        return;
    for (unsigned i = 0; i < SIZE; i++)
        pa[i] = (unsigned char)(0x31 + i * 7);

    ID3D12GraphicsCommandList_CopyBufferRegion(list, b, 0, a, 0, SIZE);
    if (barrier) {
        D3D12_RESOURCE_BARRIER transition = {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION,
                                             .Transition = {b, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                                                            D3D12_RESOURCE_STATE_COPY_DEST,
                                                            D3D12_RESOURCE_STATE_COPY_SOURCE}};
        ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &transition);
    }
    ID3D12GraphicsCommandList_CopyBufferRegion(list, c, 0, b, 0, SIZE);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(queue, fence, 1), S_OK);
    /* A NULL event: SetEventOnCompletion blocks until the fence reaches the value. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 1, NULL), S_OK);

    /* The driver's messages reach the InfoQueue at the flush points; GetNumStoredMessages is one. */
    CHECK_EQ_INT(count_messages(iq, "Vulkan validation: sync", NULL), 1);
    unsigned hazards = count_messages(iq, "SYNC-HAZARD", NULL);
    if (barrier) {
        CHECK_EQ_INT(hazards, 0);
        unsigned char *pc = map(c);
        CHECK(pc != NULL && memcmp(pa, pc, SIZE) == 0);
    } else {
        CHECK_EQ_INT(hazards, 1);
        CHECK_EQ_INT(count_messages(iq, "[CopyBufferRegion #1] Validation Error: [ SYNC-HAZARD-READ-AFTER-WRITE ]",
                                    "ID3D12GraphicsCommandList"),
                     1);
    }
    ID3D12Resource_Release(a);
    ID3D12Resource_Release(b);
    ID3D12Resource_Release(c);
    ID3D12Fence_Release(fence);
    ID3D12GraphicsCommandList_Release(list);
    ID3D12CommandAllocator_Release(allocator);
    ID3D12CommandQueue_Release(queue);
}

int main(int argc, char **argv)
{
    int barrier = argc > 1 && strcmp(argv[1], "barrier") == 0;
    if (argc != 2 || (!barrier && strcmp(argv[1], "missing") != 0)) {
        fprintf(stderr, "usage: vulkan_client missing|barrier\n");
        return 2;
    }
    ID3D12Debug7 *debug = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK);
    if (!CHECK(debug != NULL))
        return d12test_finish();
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    ID3D12InfoQueue *iq = NULL;
    if (device)
        CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&iq), S_OK);
    if (iq)
        run(device, iq, barrier);
    if (iq)
        ID3D12InfoQueue_Release(iq);
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    return d12test_finish();
}
