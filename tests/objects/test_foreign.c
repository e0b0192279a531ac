/* Objects of one device used on another's (issue 17 item 7.11; docs/reliability.md, "Threat model"), through
 * libd12rt's public ABI with the reference driver. Two devices live at once the way an application gets them: device
 * A is removed (an open list executed), so D3D12CreateDevice makes device B while A's objects are still alive. Each
 * case uses an object of A with B and expects B's debug layer to report it (OBJECT_OF_ANOTHER_DEVICE), the call to
 * do nothing (its HRESULT, or Close's), and the same call with B's own object to work. `test_foreign CASE`. */
#define COBJMACROS
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

#define MSG_FOREIGN ((D3D12_MESSAGE_ID)0x10700)

typedef struct device_set {
    ID3D12Device *device;
    ID3D12InfoQueue *iq;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;  /* closed */
    ID3D12Fence *fence;
    ID3D12Resource *upload, *readback; /* 64 bytes each */
} device_set;

static ID3D12Resource *buffer(ID3D12Device *device, D3D12_HEAP_TYPE type)
{
    D3D12_HEAP_PROPERTIES heap = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 64, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *resource = NULL;
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                                                 : D3D12_RESOURCE_STATE_COPY_DEST;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource), S_OK);
    return resource;
}

static void fill(ID3D12Resource *resource, unsigned char value)
{
    void *data = NULL;
    if (CHECK(SUCCEEDED(ID3D12Resource_Map(resource, 0, NULL, &data)) && data)) {
        memset(data, value, 64);
        ID3D12Resource_Unmap(resource, 0, NULL);
    }
}

static unsigned char first_byte(ID3D12Resource *resource)
{
    void *data = NULL;
    unsigned char value = 0xEE;
    if (CHECK(SUCCEEDED(ID3D12Resource_Map(resource, 0, NULL, &data)) && data)) {
        value = *(unsigned char *)data;
        ID3D12Resource_Unmap(resource, 0, NULL);
    }
    return value;
}

static bool make_set(device_set *s)
{
    memset(s, 0, sizeof *s);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&s->device), S_OK);
    if (!s->device)
        return false;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(s->device, &IID_ID3D12InfoQueue, (void **)&s->iq), S_OK);
    if (s->iq)
        ID3D12InfoQueue_SetMuteDebugOutput(s->iq, TRUE);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(s->device, &desc, &IID_ID3D12CommandQueue, (void **)&s->queue), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(s->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&s->allocator), S_OK);
    if (s->allocator)
        CHECK_EQ_INT(ID3D12Device_CreateCommandList(s->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, s->allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&s->list), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateFence(s->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&s->fence),
                 S_OK);
    s->upload = buffer(s->device, D3D12_HEAP_TYPE_UPLOAD);
    s->readback = buffer(s->device, D3D12_HEAP_TYPE_READBACK);
    if (!s->iq || !s->queue || !s->list || !s->fence || !s->upload || !s->readback)
        return false;
    return true;
}

static void free_set(device_set *s)
{
    if (s->list)
        ID3D12GraphicsCommandList_Release(s->list);
    if (s->allocator)
        ID3D12CommandAllocator_Release(s->allocator);
    if (s->fence)
        ID3D12Fence_Release(s->fence);
    if (s->upload)
        ID3D12Resource_Release(s->upload);
    if (s->readback)
        ID3D12Resource_Release(s->readback);
    if (s->queue)
        ID3D12CommandQueue_Release(s->queue);
    if (s->iq)
        ID3D12InfoQueue_Release(s->iq);
    if (s->device)
        CHECK_EQ_INT(ID3D12Device_Release(s->device), 0);
}

static device_set a, b;
static ID3D12CommandAllocator *g_a_bundle_allocator;
static ID3D12GraphicsCommandList *g_a_bundle; /* closed */

/* A with a closed list that copies A's upload buffer into A's readback buffer, then removed; B created after it. */
static bool make_devices(void)
{
    ID3D12Debug *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))))
        return false;
    ID3D12Debug_EnableDebugLayer(debug);
    ID3D12Debug_Release(debug);
    if (!make_set(&a))
        return false;
    fill(a.upload, 0xA1);
    fill(a.readback, 0x00);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(a.device, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                     &IID_ID3D12CommandAllocator, (void **)&g_a_bundle_allocator), S_OK);
    if (g_a_bundle_allocator)
        CHECK_EQ_INT(ID3D12Device_CreateCommandList(a.device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, g_a_bundle_allocator,
                                                    NULL, &IID_ID3D12GraphicsCommandList, (void **)&g_a_bundle), S_OK);
    if (g_a_bundle)
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(g_a_bundle), S_OK);
    ID3D12GraphicsCommandList_CopyBufferRegion(a.list, a.readback, 0, a.upload, 0, 64);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(a.list), S_OK);
    /* Remove A: an open list executed ("device removed, DXGI_ERROR_INVALID_CALL"). */
    ID3D12GraphicsCommandList *open = NULL;
    ID3D12CommandAllocator *other = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(a.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&other), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(a.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, other, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&open), S_OK);
    if (!open)
        return false;
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)open};
    ID3D12CommandQueue_ExecuteCommandLists(a.queue, 1, lists);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(a.device), DXGI_ERROR_INVALID_CALL);
    ID3D12GraphicsCommandList_Release(open);
    ID3D12CommandAllocator_Release(other);
    if (!make_set(&b))
        return false;
    return CHECK(b.device != a.device);
}

static void free_devices(void)
{
    if (g_a_bundle)
        ID3D12GraphicsCommandList_Release(g_a_bundle);
    if (g_a_bundle_allocator)
        ID3D12CommandAllocator_Release(g_a_bundle_allocator);
    free_set(&b);
    free_set(&a);
}

static UINT64 count_foreign(ID3D12InfoQueue *iq)
{
    UINT64 found = 0, stored = ID3D12InfoQueue_GetNumStoredMessages(iq);
    for (UINT64 i = 0; i < stored; i++) {
        SIZE_T length = 0;
        if (FAILED(ID3D12InfoQueue_GetMessage(iq, i, NULL, &length)))
            continue;
        D3D12_MESSAGE *message = malloc(length);
        if (message && SUCCEEDED(ID3D12InfoQueue_GetMessage(iq, i, message, &length)) && message->ID == MSG_FOREIGN &&
            message->Severity == D3D12_MESSAGE_SEVERITY_ERROR && strstr(message->pDescription, "another device"))
            found++;
        free(message);
    }
    return found;
}

/* B's queue: Signal it and wait on the CPU (the reference driver's timeline ran everything before it). */
static bool finish_b(UINT64 value)
{
    int event = eventfd(0, EFD_CLOEXEC);
    if (!CHECK(event >= 0))
        return false;
    bool ok = CHECK(SUCCEEDED(ID3D12CommandQueue_Signal(b.queue, b.fence, value))) &&
              CHECK(SUCCEEDED(ID3D12Fence_SetEventOnCompletion(b.fence, value, (HANDLE)(intptr_t)event)));
    struct pollfd waiting = {event, POLLIN, 0};
    ok = ok && CHECK(poll(&waiting, 1, 20000) == 1);
    uint64_t count = 0;
    ok = ok && CHECK(read(event, &count, sizeof count) == (ssize_t)sizeof count);
    close(event);
    return ok && CHECK(ID3D12Fence_GetCompletedValue(b.fence) >= value);
}

/* ---- cases ---- */

static void test_signal(void)
{
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(b.queue, a.fence, 5), E_INVALIDARG);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    CHECK(finish_b(1)); /* B's own fence: S_OK, completes */
    CHECK_EQ_INT(count_foreign(b.iq), 1);
}

static void test_wait(void)
{
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(b.queue, a.fence, 1), E_INVALIDARG);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(b.queue, b.fence, 0), S_OK); /* B's own: queued (already reached) */
    CHECK(finish_b(1));
    CHECK_EQ_INT(count_foreign(b.iq), 1);
}

static void test_execute(void)
{
    fill(a.readback, 0x00);
    ID3D12CommandList *foreign[] = {(ID3D12CommandList *)a.list};
    ID3D12CommandQueue_ExecuteCommandLists(b.queue, 1, foreign);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    CHECK(finish_b(1));
    CHECK_EQ_INT(first_byte(a.readback), 0x00); /* A's copy never ran */
    /* B's own list: copies. */
    fill(b.upload, 0xB2);
    fill(b.readback, 0x00);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_CopyBufferRegion(b.list, b.readback, 0, b.upload, 0, 64);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    ID3D12CommandList *own[] = {(ID3D12CommandList *)b.list};
    ID3D12CommandQueue_ExecuteCommandLists(b.queue, 1, own);
    CHECK(finish_b(2));
    CHECK_EQ_INT(first_byte(b.readback), 0xB2);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
}

static void test_copy_buffer_region(void)
{
    fill(a.upload, 0xA1);
    fill(b.readback, 0x00);
    ID3D12GraphicsCommandList_CopyBufferRegion(b.list, b.readback, 0, a.upload, 0, 64); /* source of A */
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    ID3D12GraphicsCommandList_CopyBufferRegion(b.list, a.readback, 0, b.upload, 0, 64); /* destination of A */
    CHECK_EQ_INT(count_foreign(b.iq), 2);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), E_INVALIDARG);
    /* The same copy with B's buffers records and runs. */
    fill(b.upload, 0xB3);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_CopyBufferRegion(b.list, b.readback, 0, b.upload, 0, 64);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    ID3D12CommandList *own[] = {(ID3D12CommandList *)b.list};
    ID3D12CommandQueue_ExecuteCommandLists(b.queue, 1, own);
    CHECK(finish_b(1));
    CHECK_EQ_INT(first_byte(b.readback), 0xB3);
    CHECK_EQ_INT(count_foreign(b.iq), 2);
}

static void test_copy_resource(void)
{
    ID3D12GraphicsCommandList_CopyResource(b.list, b.readback, a.upload);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), E_INVALIDARG);
    fill(b.upload, 0xB4);
    fill(b.readback, 0x00);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_CopyResource(b.list, b.readback, b.upload);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    ID3D12CommandList *own[] = {(ID3D12CommandList *)b.list};
    ID3D12CommandQueue_ExecuteCommandLists(b.queue, 1, own);
    CHECK(finish_b(1));
    CHECK_EQ_INT(first_byte(b.readback), 0xB4);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
}

static void barrier_of(ID3D12Resource *resource, D3D12_RESOURCE_BARRIER_TYPE type)
{
    D3D12_RESOURCE_BARRIER barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.Type = type;
    if (type == D3D12_RESOURCE_BARRIER_TYPE_TRANSITION) {
        barrier.Transition.pResource = resource;
        barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
        barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_DEST;
        barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_COPY_SOURCE;
    } else if (type == D3D12_RESOURCE_BARRIER_TYPE_UAV) {
        barrier.UAV.pResource = resource;
    } else {
        barrier.Aliasing.pResourceAfter = resource;
    }
    ID3D12GraphicsCommandList_ResourceBarrier(b.list, 1, &barrier);
}

static void test_barrier(void)
{
    static const D3D12_RESOURCE_BARRIER_TYPE types[] = {D3D12_RESOURCE_BARRIER_TYPE_TRANSITION,
                                                        D3D12_RESOURCE_BARRIER_TYPE_UAV,
                                                        D3D12_RESOURCE_BARRIER_TYPE_ALIASING};
    for (unsigned t = 0; t < 3; t++) {
        if (t > 0)
            CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
        barrier_of(a.readback, types[t]);
        CHECK_EQ_INT(count_foreign(b.iq), t + 1);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), E_INVALIDARG);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
        barrier_of(b.readback, types[t]); /* B's own resource: recorded */
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    }
    CHECK_EQ_INT(count_foreign(b.iq), 3);
}

static void test_allocator(void)
{
    ID3D12CommandAllocator *b_other = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(b.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&b_other), S_OK);
    ID3D12GraphicsCommandList *list = (ID3D12GraphicsCommandList *)(uintptr_t)1;
    /* CreateCommandList with A's allocator (free: A's list is closed): E_INVALIDARG, the out pointer cleared. */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(b.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, a.allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), E_INVALIDARG);
    CHECK(list == NULL);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    /* Reset with A's allocator: E_INVALIDARG, the list stays closed (a later Reset with B's works). */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, a.allocator, NULL), E_INVALIDARG);
    CHECK_EQ_INT(count_foreign(b.iq), 2);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), E_FAIL); /* closed: Reset did nothing */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b_other, NULL), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    ID3D12GraphicsCommandList *own = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(b.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, b_other, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&own), S_OK);
    if (own)
        ID3D12GraphicsCommandList_Release(own);
    CHECK_EQ_INT(count_foreign(b.iq), 2);
    if (b_other)
        ID3D12CommandAllocator_Release(b_other);
}

/* ExecuteBundle with a bundle of A: dropped, Close E_INVALIDARG; B's own bundle: S_OK. */
static void test_bundle(void)
{
    ID3D12CommandAllocator *ba = NULL;
    ID3D12GraphicsCommandList *a_bundle = g_a_bundle, *b_bundle = NULL; /* A's, made before A was removed */
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(b.device, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                     &IID_ID3D12CommandAllocator, (void **)&ba), S_OK);
    if (ba)
        CHECK_EQ_INT(ID3D12Device_CreateCommandList(b.device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&b_bundle), S_OK);
    if (!a_bundle || !b_bundle)
        return;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b_bundle), S_OK);
    ID3D12GraphicsCommandList_ExecuteBundle(b.list, a_bundle);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_ExecuteBundle(b.list, b_bundle);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    CHECK_EQ_INT(count_foreign(b.iq), 1);
    ID3D12GraphicsCommandList_Release(b_bundle);
    ID3D12CommandAllocator_Release(ba);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"signal", test_signal},   {"wait", test_wait},       {"execute", test_execute},
        {"copy_buffer_region", test_copy_buffer_region},       {"copy_resource", test_copy_resource},
        {"barrier", test_barrier}, {"allocator", test_allocator}, {"bundle", test_bundle},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            if (make_devices())
                cases[i].run();
            free_devices();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_foreign CASE\n");
    return 2;
}
