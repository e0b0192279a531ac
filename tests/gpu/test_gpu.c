/* GPU work through libd12rt's public ABI only: command queues, allocators, command lists, fences, committed buffers
 * and copies that really move bytes on the GPU timeline (the reference driver's queue threads).
 * `test_gpu CASE` runs one case; CMake registers each as its own test (gpu.<case>). Every case ends with the
 * reference-leak check: each object released to 0, the device last. */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "gpu_harness.h"

/* The runtime's own message IDs (spec/messages.yaml, project range). */
#define MSG_CREATE_INVALID_ARGUMENT ((D3D12_MESSAGE_ID)0x1000F)
#define MSG_COMMAND_ALLOCATOR_TYPE_MISMATCH ((D3D12_MESSAGE_ID)0x10010)
#define MSG_COMMAND_LIST_RECORDING_ERROR ((D3D12_MESSAGE_ID)0x10011)
#define MSG_FENCE_INVALID_EVENT ((D3D12_MESSAGE_ID)0x10012)
#define MSG_DEVICE_REMOVED ((D3D12_MESSAGE_ID)0x10006)

/* ======== helpers ======== */

/* Exactly one message with `id` (and `text`) since the last clear; the queue is cleared afterwards. */
#define EXPECT_MSG(iq, id, text)                                                                                \
    do {                                                                                                        \
        check_one_message((iq), (id), (text), __FILE__, __LINE__, "one message " #id " " #text);                \
        ID3D12InfoQueue_ClearStoredMessages(iq);                                                                \
    } while (0)

#define EXPECT_NO_MSG(iq, id)                                                                                       \
    do {                                                                                                        \
        unsigned n_ = count_id((iq), (id), NULL, NULL);                                                         \
        if (!d12test_record(n_ == 0, __FILE__, __LINE__, "no message " #id))                                    \
            dump_messages(iq);                                                                                  \
    } while (0)

static void fill(ID3D12Resource *resource, size_t size, unsigned char seed)
{
    unsigned char *data = NULL;
    if (!CHECK_EQ_INT_RET(ID3D12Resource_Map(resource, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(seed + i * 7);
    ID3D12Resource_Unmap(resource, 0, NULL);
}

/* Copy of the mapped bytes of an UPLOAD/READBACK buffer. */
static void read_back(ID3D12Resource *resource, void *out, size_t size)
{
    void *data = NULL;
    memset(out, 0, size);
    if (ID3D12Resource_Map(resource, 0, NULL, &data) == S_OK && data) {
        memcpy(out, data, size);
        ID3D12Resource_Unmap(resource, 0, NULL);
    }
}

/* Close (expecting S_OK), execute, wait; then Reset the allocator and the list for the next recording. */
static bool submit_and_wait(gpu_context *ctx)
{
    bool ok = CHECK_EQ_INT_RET(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    ok = finish(ctx) && ok;
    CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx->allocator), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx->list, ctx->allocator, NULL), S_OK);
    return ok;
}

/* ======== Command queues ======== */

static void test_queue_create(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    const D3D12_COMMAND_LIST_TYPE types[] = {D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                             D3D12_COMMAND_LIST_TYPE_COPY};
    for (int i = 0; i < 3; i++) {
        D3D12_COMMAND_QUEUE_DESC desc = {types[i], D3D12_COMMAND_QUEUE_PRIORITY_HIGH,
                                         D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT, 0};
        ID3D12CommandQueue *queue = NULL;
        CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
        if (!queue)
            continue;
        D3D12_COMMAND_QUEUE_DESC got = ID3D12CommandQueue_GetDesc(queue);
        CHECK_EQ_INT(got.Type, types[i]);
        CHECK_EQ_INT(got.Priority, D3D12_COMMAND_QUEUE_PRIORITY_HIGH);
        CHECK_EQ_INT(got.Flags, D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT);
        CHECK_EQ_INT(got.NodeMask, 1); /* 0 passed: reported as 1 */
        /* GetDevice returns this device, with a reference. */
        ID3D12Device *back = NULL;
        CHECK_EQ_INT(ID3D12CommandQueue_GetDevice(queue, &IID_ID3D12Device, (void **)&back), S_OK);
        CHECK(back == device);
        if (back)
            ID3D12Device_Release(back);
        RELEASE_LAST(queue);
    }
    /* NodeMask 1 passed explicitly. */
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 1};
    ID3D12CommandQueue *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    if (queue) {
        CHECK_EQ_INT(ID3D12CommandQueue_GetDesc(queue).NodeMask, 1);
        RELEASE_LAST(queue);
    }
    ID3D12InfoQueue_ClearStoredMessages(iq);

    /* NULL out pointer: S_FALSE, even for an interface the queue does not have. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, NULL), S_FALSE);
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12Fence, NULL), S_FALSE);
    /* An interface the queue lacks: E_NOINTERFACE and NULL. */
    void *other = (void *)1;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12Fence, &other), E_NOINTERFACE);
    CHECK(other == NULL);
    EXPECT_NO_MSG(iq, MSG_CREATE_INVALID_ARGUMENT);

    /* Bad types: a bundle (no bundles in d12rt), a video type, a number. */
    const int bad_types[] = {D3D12_COMMAND_LIST_TYPE_BUNDLE, D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE, 99, -1};
    for (int i = 0; i < 4; i++) {
        D3D12_COMMAND_QUEUE_DESC bad = {(D3D12_COMMAND_LIST_TYPE)bad_types[i], 0, 0, 0};
        queue = (void *)1;
        CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &bad, &IID_ID3D12CommandQueue, (void **)&queue),
                     E_INVALIDARG);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATE_COMMAND_LIST_INVALID_COMMAND_LIST_TYPE, "CreateCommandQueue");
    }
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, NULL, &IID_ID3D12CommandQueue, (void **)&queue), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "pDesc is NULL");
    /* Validation comes before the NULL-out-pointer shortcut. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, NULL, &IID_ID3D12CommandQueue, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "pDesc is NULL");
    D3D12_COMMAND_QUEUE_DESC flags = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, (D3D12_COMMAND_QUEUE_FLAGS)0x80, 0};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &flags, &IID_ID3D12CommandQueue, (void **)&queue),
                 E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "unknown D3D12_COMMAND_QUEUE_FLAGS");
    D3D12_COMMAND_QUEUE_DESC node = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, 0, 2};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &node, &IID_ID3D12CommandQueue, (void **)&queue),
                 E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "NodeMask");
    /* Priority: the three D3D12_COMMAND_QUEUE_PRIORITY values are accepted, any other number is not. */
    const INT priorities[] = {D3D12_COMMAND_QUEUE_PRIORITY_NORMAL, D3D12_COMMAND_QUEUE_PRIORITY_HIGH,
                              D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME};
    for (int i = 0; i < 3; i++) {
        D3D12_COMMAND_QUEUE_DESC prioritized = {D3D12_COMMAND_LIST_TYPE_DIRECT, priorities[i], 0, 0};
        ID3D12CommandQueue *ok = NULL;
        CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &prioritized, &IID_ID3D12CommandQueue, (void **)&ok),
                     S_OK);
        if (ok) {
            CHECK_EQ_INT(ID3D12CommandQueue_GetDesc(ok).Priority, priorities[i]);
            RELEASE_LAST(ok);
        }
    }
    EXPECT_NO_MSG(iq, MSG_CREATE_INVALID_ARGUMENT);
    D3D12_COMMAND_QUEUE_DESC priority = {D3D12_COMMAND_LIST_TYPE_DIRECT, 50, 0, 0};
    queue = (void *)1;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &priority, &IID_ID3D12CommandQueue, (void **)&queue),
                 E_INVALIDARG);
    CHECK(queue == NULL);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "Priority");
    /* Severity and category of the documented ID. */
    message_info info = {0};
    D3D12_COMMAND_QUEUE_DESC bundle = {D3D12_COMMAND_LIST_TYPE_BUNDLE, 0, 0, 0};
    ID3D12Device_CreateCommandQueue(device, &bundle, &IID_ID3D12CommandQueue, (void **)&queue);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_CREATE_COMMAND_LIST_INVALID_COMMAND_LIST_TYPE, NULL, &info), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_allocator_create(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    const D3D12_COMMAND_LIST_TYPE types[] = {D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                             D3D12_COMMAND_LIST_TYPE_COPY};
    for (int i = 0; i < 3; i++) {
        ID3D12CommandAllocator *allocator = NULL;
        CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, types[i], &IID_ID3D12CommandAllocator,
                                                         (void **)&allocator), S_OK);
        if (!allocator)
            continue;
        CHECK_EQ_INT(ID3D12CommandAllocator_Reset(allocator), S_OK); /* nothing recording */
        ID3D12Device *back = NULL;
        CHECK_EQ_INT(ID3D12CommandAllocator_GetDevice(allocator, &IID_ID3D12Device, (void **)&back), S_OK);
        CHECK(back == device);
        if (back)
            ID3D12Device_Release(back);
        RELEASE_LAST(allocator);
    }
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_COPY, &IID_ID3D12CommandAllocator,
                                                     NULL), S_FALSE);
    ID3D12CommandAllocator *allocator = (void *)1;
    /* Video lists are not d12rt's (bundles are: tests/objects bundle.allocator_create). */
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATE_COMMAND_LIST_INVALID_COMMAND_LIST_TYPE, "CreateCommandAllocator");
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, (D3D12_COMMAND_LIST_TYPE)42,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATE_COMMAND_LIST_INVALID_COMMAND_LIST_TYPE, "42");
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== Command lists ======== */

static void test_list_create(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12CommandAllocator *direct = NULL, *copy = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&direct), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_COPY,
                                                     &IID_ID3D12CommandAllocator, (void **)&copy), S_OK);
    if (!direct || !copy)
        return;
    ID3D12GraphicsCommandList *list = NULL, *second = (void *)1;
    /* NULL out pointer: S_FALSE and the allocator is not claimed. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, NULL), S_FALSE);
    /* An interface the list lacks: E_NOINTERFACE, and the allocator is not left claimed. */
    void *other = (void *)1;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12Fence, &other), E_NOINTERFACE);
    CHECK(other == NULL);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    if (!list)
        return;
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_CONTENTION);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_GetType(list), D3D12_COMMAND_LIST_TYPE_DIRECT);
    /* The allocator is recording `list`: a second list on it is refused. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_CONTENTION, "CreateCommandList");
    /* Open at creation: the first Close succeeds. */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED);
    /* Closed: the allocator may record another list now. */
    second = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 1, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), S_OK);
    if (second) {
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(second), S_OK);
        RELEASE_LAST(second);
    }
    /* NULL allocator. */
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, NULL, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATECOMMANDLIST_NULL_COMMANDALLOCATOR, "CreateCommandList");
    /* A COPY allocator for a DIRECT list, and the other way round. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, copy, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_COMMAND_ALLOCATOR_TYPE_MISMATCH, "created for type 3, the command list is type 0");
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_COPY, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_COMMAND_ALLOCATOR_TYPE_MISMATCH, NULL);
    /* Bad type, bad node mask. */
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATE_COMMAND_LIST_INVALID_COMMAND_LIST_TYPE, "CreateCommandList");
    /* A BUNDLE list on a DIRECT allocator: the types differ (tests/objects bundle.list_create has the rest). */
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_COMMAND_ALLOCATOR_TYPE_MISMATCH, "created for type 0, the command list is type 1");
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 2, D3D12_COMMAND_LIST_TYPE_DIRECT, direct, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "nodeMask");
    /* The failures claimed nothing: the COPY allocator still records a COPY list. */
    ID3D12GraphicsCommandList *copy_list = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_COPY, copy, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&copy_list), S_OK);
    if (copy_list) {
        CHECK_EQ_INT(ID3D12GraphicsCommandList_GetType(copy_list), D3D12_COMMAND_LIST_TYPE_COPY);
        /* Released while open: the allocator is free again afterwards. */
        RELEASE_LAST(copy_list);
        CHECK_EQ_INT(ID3D12CommandAllocator_Reset(copy), S_OK);
    }
    RELEASE_LAST(list);
    RELEASE_LAST(direct);
    RELEASE_LAST(copy);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_list_lifecycle(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    /* Reset while open: E_FAIL. */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), E_FAIL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_OPEN, "Reset");
    /* The allocator cannot be reset while the list records into it. */
    CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx.allocator), E_FAIL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_CANNOT_RESET, NULL);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED);
    /* Close twice: E_FAIL. */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), E_FAIL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "Close");
    /* Closed: the allocator resets. */
    CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_CANNOT_RESET);
    /* Reset with a NULL allocator. */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, NULL, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATECOMMANDLIST_NULL_COMMANDALLOCATOR, "Reset");
    /* Reset with an allocator of another type. */
    ID3D12CommandAllocator *copy = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_COPY,
                                                     &IID_ID3D12CommandAllocator, (void **)&copy), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, copy, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_COMMAND_ALLOCATOR_TYPE_MISMATCH, "Reset");
    /* Reset onto an allocator another list is recording into: contention. */
    ID3D12GraphicsCommandList *other = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, ctx.allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&other), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_CONTENTION, "Reset");
    if (other) {
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(other), S_OK);
        RELEASE_LAST(other);
    }
    /* Reset after Close: S_OK, open again (Close succeeds once more). */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_OPEN);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);

    /* Recording calls on a closed list: a message each, and the calls are dropped (the copy below never runs). */
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 64);
    if (upload && readback) {
        fill(upload, 64, 1);
        unsigned char zero[64] = {0};
        unsigned char *rb = NULL;
        CHECK_EQ_INT(ID3D12Resource_Map(readback, 0, NULL, (void **)&rb), S_OK);
        if (rb) {
            memset(rb, 0, 64);
            ID3D12Resource_Unmap(readback, 0, NULL);
        }
        ID3D12InfoQueue_ClearStoredMessages(iq);
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, readback, 0, upload, 0, 64);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "CopyBufferRegion: the command list is closed; the call is ignored");
        ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, upload);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "CopyResource");
        ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "DrawInstanced");
        ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "Dispatch");
        ID3D12GraphicsCommandList_IASetIndexBuffer(ctx.list, NULL);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "IASetIndexBuffer");
        transition(ctx.list, readback, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_COMMAND_LIST_CLOSED, "ResourceBarrier");
        /* Still a good, closed list: it executes, doing nothing. */
        execute(ctx.queue, ctx.list);
        CHECK(finish(&ctx));
        unsigned char got[64];
        read_back(readback, got, 64);
        CHECK(memcmp(got, zero, 64) == 0);
        EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST);
    }
    if (upload)
        RELEASE_LAST(upload);
    if (readback)
        RELEASE_LAST(readback);
    if (copy)
        RELEASE_LAST(copy);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ---- Recording errors: Close returns E_INVALIDARG; executing the list submits nothing ---- */

typedef struct {
    ID3D12GraphicsCommandList *list;
    ID3D12Resource *upload, *other_upload, *readback, *small;
} recording_env;

static void bad_null_dst(recording_env *e) { ID3D12GraphicsCommandList_CopyBufferRegion(e->list, NULL, 0, e->upload, 0, 8); }
static void bad_null_src(recording_env *e) { ID3D12GraphicsCommandList_CopyBufferRegion(e->list, e->readback, 0, NULL, 0, 8); }
static void bad_copy_size(recording_env *e) { ID3D12GraphicsCommandList_CopyResource(e->list, e->readback, e->small); }
static void bad_copy_same(recording_env *e) { ID3D12GraphicsCommandList_CopyResource(e->list, e->readback, e->readback); }
static void bad_copy_null(recording_env *e) { ID3D12GraphicsCommandList_CopyResource(e->list, NULL, e->upload); }
static void bad_copy_null_src(recording_env *e) { ID3D12GraphicsCommandList_CopyResource(e->list, e->readback, NULL); }
static void bad_vb_start(recording_env *e)
{
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(e->upload), 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 32, 1, &view);
}
static void bad_vb_count(recording_env *e)
{
    D3D12_VERTEX_BUFFER_VIEW views[2] = {{ID3D12Resource_GetGPUVirtualAddress(e->upload), 64, 16}};
    views[1] = views[0];
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 31, 2, views);
}
static void bad_vb_wrap(recording_env *e)
{
    D3D12_VERTEX_BUFFER_VIEW view = {0};
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 1, UINT32_MAX, &view); /* StartSlot + NumViews wraps */
}
static void bad_index_format(recording_env *e)
{
    D3D12_INDEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(e->upload), 64, DXGI_FORMAT_R8_UINT};
    ID3D12GraphicsCommandList_IASetIndexBuffer(e->list, &view);
}
static void bad_barrier_type(recording_env *e)
{
    D3D12_RESOURCE_BARRIER barrier = {.Type = (D3D12_RESOURCE_BARRIER_TYPE)7};
    ID3D12GraphicsCommandList_ResourceBarrier(e->list, 1, &barrier);
}
static void bad_barrier_null_resource(recording_env *e)
{
    (void)e;
    D3D12_RESOURCE_BARRIER barriers[2] = {{.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV}, {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION}};
    barriers[1].Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_DEST;
    barriers[1].Transition.StateAfter = D3D12_RESOURCE_STATE_COPY_SOURCE;
    ID3D12GraphicsCommandList_ResourceBarrier(e->list, 2, barriers);
}
static void bad_barrier_null_array(recording_env *e) { ID3D12GraphicsCommandList_ResourceBarrier(e->list, 1, NULL); }

static const struct recording_error {
    const char *name;
    void (*record)(recording_env *);
    D3D12_MESSAGE_ID id;
    const char *text;
} recording_errors[] = {
    /* A copy range past its buffer is no recording error: Windows' core runtime checks none (the debug layer reports
     * it and the copy reaches the GPU; tests/dred/test_dred_copy.c, docs/dred.md). */
    {"NULL destination", bad_null_dst, D3D12_MESSAGE_ID_COPYBUFFERREGION_NULLDST, "pDstBuffer"},
    {"NULL source", bad_null_src, D3D12_MESSAGE_ID_COPYBUFFERREGION_NULLDST, "pSrcBuffer"},
    {"CopyResource size mismatch", bad_copy_size, D3D12_MESSAGE_ID_COPYRESOURCE_INVALIDDSTRESOURCE, "differ in size"},
    {"CopyResource same resource", bad_copy_same, D3D12_MESSAGE_ID_COPYRESOURCE_INVALIDDSTRESOURCE, "same resource"},
    {"CopyResource NULL destination", bad_copy_null, D3D12_MESSAGE_ID_COPYBUFFERREGION_NULLDST, "CopyResource: pDstResource"},
    {"CopyResource NULL source", bad_copy_null_src, D3D12_MESSAGE_ID_COPYBUFFERREGION_NULLDST, "CopyResource: pSrcResource"},
    {"vertex buffer slot 32", bad_vb_start, D3D12_MESSAGE_ID_SET_VERTEX_BUFFERS_INVALID, "StartSlot 32 + NumViews 1 exceeds the 32 input slots"},
    {"vertex buffers 31 + 2", bad_vb_count, D3D12_MESSAGE_ID_SET_VERTEX_BUFFERS_INVALID, "StartSlot 31 + NumViews 2"},
    {"vertex buffers wrap", bad_vb_wrap, D3D12_MESSAGE_ID_SET_VERTEX_BUFFERS_INVALID, NULL},
    {"index format R8", bad_index_format, D3D12_MESSAGE_ID_SET_INDEX_BUFFER_INVALID, "Format 62"},
    {"barrier type", bad_barrier_type, D3D12_MESSAGE_ID_RESOURCE_BARRIER_INVALID_TYPE, "barrier 0: unknown D3D12_RESOURCE_BARRIER_TYPE"},
    {"barrier NULL resource", bad_barrier_null_resource, D3D12_MESSAGE_ID_RESOURCE_BARRIER_INVALID_TYPE, "barrier 1: Transition.pResource"},
    {"barrier NULL array", bad_barrier_null_array, D3D12_MESSAGE_ID_RESOURCE_BARRIER_INVALID_TYPE, "pBarriers is NULL"},
};

/* The valid twins: recorded into a good list, no message, Close S_OK. */
static void good_recording(recording_env *e)
{
    D3D12_VERTEX_BUFFER_VIEW views[32] = {{ID3D12Resource_GetGPUVirtualAddress(e->upload), 64, 16}};
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 0, 32, views);
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 31, 1, views);
    ID3D12GraphicsCommandList_IASetVertexBuffers(e->list, 0, 0, NULL);
    D3D12_INDEX_BUFFER_VIEW index = {ID3D12Resource_GetGPUVirtualAddress(e->upload), 64, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetIndexBuffer(e->list, &index);
    index.Format = DXGI_FORMAT_R32_UINT;
    ID3D12GraphicsCommandList_IASetIndexBuffer(e->list, &index);
    ID3D12GraphicsCommandList_IASetIndexBuffer(e->list, NULL);
    D3D12_RESOURCE_BARRIER uav = {.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV};
    ID3D12GraphicsCommandList_ResourceBarrier(e->list, 1, &uav);
    D3D12_RESOURCE_BARRIER aliasing = {.Type = D3D12_RESOURCE_BARRIER_TYPE_ALIASING};
    ID3D12GraphicsCommandList_ResourceBarrier(e->list, 1, &aliasing);
    ID3D12GraphicsCommandList_ResourceBarrier(e->list, 0, NULL);
    /* Bounds exactly at the end; zero bytes at the end. */
    ID3D12GraphicsCommandList_CopyBufferRegion(e->list, e->readback, 56, e->upload, 0, 8);
    ID3D12GraphicsCommandList_CopyBufferRegion(e->list, e->readback, 64, e->upload, 64, 0);
    ID3D12GraphicsCommandList_CopyBufferRegion(e->list, e->readback, 0, e->upload, 0, 56);
}

static void clear_buffer(ID3D12Resource *resource, size_t size)
{
    unsigned char *data = NULL;
    if (ID3D12Resource_Map(resource, 0, NULL, (void **)&data) == S_OK && data) {
        memset(data, 0, size);
        ID3D12Resource_Unmap(resource, 0, NULL);
    }
}

static void test_recording_errors(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    recording_env e = {ctx.list, make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64),
                       make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64), make_buffer(device, D3D12_HEAP_TYPE_READBACK, 64),
                       make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 32)};
    if (!e.upload || !e.other_upload || !e.readback || !e.small)
        return;
    unsigned char expected[64], got[64], zero[64] = {0};
    fill(e.upload, 64, 3);
    read_back(e.upload, expected, 64);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);

    for (size_t i = 0; i < sizeof recording_errors / sizeof recording_errors[0]; i++) {
        const struct recording_error *error = &recording_errors[i];
        fprintf(stderr, "recording error: %s\n", error->name);
        clear_buffer(e.readback, 64);
        ID3D12InfoQueue_ClearStoredMessages(iq);
        /* A valid copy first, then the error: the whole list must not run. */
        ID3D12GraphicsCommandList_CopyResource(ctx.list, e.readback, e.upload);
        EXPECT_NO_MSG(iq, error->id);
        error->record(&e);
        EXPECT_MSG(iq, error->id, error->text);
        /* Recording goes on after the error; only the first error is returned. */
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, e.readback, 100, e.upload, 0, 1);
        ID3D12InfoQueue_ClearStoredMessages(iq);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), E_INVALIDARG);
        EXPECT_MSG(iq, MSG_COMMAND_LIST_RECORDING_ERROR, "0x80070057");
        execute(ctx.queue, ctx.list);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, "command list 0 failed to close (0x80070057)");
        /* Together with a good list in one call: nothing of the call is submitted either. */
        ID3D12GraphicsCommandList *good = NULL;
        ID3D12CommandAllocator *good_allocator = NULL;
        CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                         &IID_ID3D12CommandAllocator, (void **)&good_allocator), S_OK);
        CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, good_allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&good), S_OK);
        if (good) {
            ID3D12GraphicsCommandList_CopyResource(good, e.readback, e.upload);
            CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(good), S_OK);
            ID3D12CommandList *both[] = {(ID3D12CommandList *)good, (ID3D12CommandList *)ctx.list};
            ID3D12CommandQueue_ExecuteCommandLists(ctx.queue, 2, both);
            EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, "command list 1 failed");
        }
        CHECK(finish(&ctx));
        read_back(e.readback, got, 64);
        CHECK(memcmp(got, zero, 64) == 0);
        if (good)
            RELEASE_LAST(good);
        if (good_allocator)
            RELEASE_LAST(good_allocator);
        /* Reset clears the error: a good recording closes with S_OK and runs. */
        CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    }

    /* The valid twins. */
    clear_buffer(e.readback, 64);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    good_recording(&e);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 0);
    dump_messages(iq);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    read_back(e.readback, got, 64);
    CHECK(memcmp(got, expected, 56) == 0);
    CHECK(memcmp(got + 56, expected, 8) == 0);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, NULL, NULL), 0);

    RELEASE_LAST(e.upload);
    RELEASE_LAST(e.other_upload);
    RELEASE_LAST(e.readback);
    RELEASE_LAST(e.small);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_execute_type_mismatch(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context direct, copy;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &direct) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COPY, &copy))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 64);
    unsigned char expected[64], got[64], zero[64] = {0};
    fill(upload, 64, 9);
    read_back(upload, expected, 64);
    clear_buffer(readback, 64);
    ID3D12GraphicsCommandList_CopyResource(copy.list, readback, upload);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(copy.list), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(direct.list), S_OK);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    /* A COPY list on a DIRECT queue: nothing submitted. */
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)direct.list, (ID3D12CommandList *)copy.list};
    ID3D12CommandQueue_ExecuteCommandLists(direct.queue, 2, lists);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH, "command list 1 is type 3, the queue is type 0");
    /* A DIRECT list on a COPY queue. */
    ID3D12CommandQueue_ExecuteCommandLists(copy.queue, 1, lists);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH, "command list 0 is type 0, the queue is type 3");
    /* A NULL entry. */
    ID3D12CommandList *null_list[] = {NULL};
    ID3D12CommandQueue_ExecuteCommandLists(direct.queue, 1, null_list);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH, "command list 0 is type -1");
    /* Zero lists: nothing, no message. */
    ID3D12CommandQueue_ExecuteCommandLists(direct.queue, 0, NULL);
    CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 0);
    CHECK(finish(&direct));
    CHECK(finish(&copy));
    read_back(readback, got, 64);
    CHECK(memcmp(got, zero, 64) == 0);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    /* The positive twin: the COPY list on the COPY queue copies. */
    ID3D12CommandQueue_ExecuteCommandLists(copy.queue, 1, lists + 1);
    CHECK(finish(&copy));
    read_back(readback, got, 64);
    CHECK(memcmp(got, expected, 64) == 0);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH);
    RELEASE_LAST(upload);
    RELEASE_LAST(readback);
    release_context(&direct);
    release_context(&copy);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== Device removal by an open list ======== */

typedef struct {
    ID3D12Fence *fence;
    UINT64 value;
    atomic_bool done;
    HRESULT hr;
} blocking_wait;

static void *block_on_fence(void *argument)
{
    blocking_wait *wait = argument;
    wait->hr = ID3D12Fence_SetEventOnCompletion(wait->fence, wait->value, NULL);
    atomic_store(&wait->done, true);
    return NULL;
}

/* Join within `ms`, polling the done flag; false (not joined) if it is still blocked. */
static bool join_within(pthread_t thread, blocking_wait *wait, unsigned ms)
{
    for (unsigned waited = 0; waited < ms && !atomic_load(&wait->done); waited += 5)
        sleep_ms(5);
    if (!atomic_load(&wait->done))
        return false;
    pthread_join(thread, NULL);
    return true;
}

static void open_list_removes(bool debug_layer)
{
    ID3D12Device *device = create_device(debug_layer);
    if (!device)
        return;
    ID3D12InfoQueue *iq = debug_layer ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    CHECK_EQ_INT(ID3D12Fence_Signal(ctx.fence, 3), S_OK);
    /* An eventfd registered for an unreached value, and a thread blocked on a NULL event. */
    int event = new_event();
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(ctx.fence, 100, as_handle(event)), S_OK);
    blocking_wait wait = {ctx.fence, 1000, false, E_FAIL};
    pthread_t thread;
    CHECK_EQ_INT(pthread_create(&thread, NULL, block_on_fence, &wait), 0);
    sleep_ms(100);
    CHECK(!atomic_load(&wait.done));
    CHECK(!fired(event, 0, NULL));
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), S_OK);

    /* Execute the list that is still open. */
    execute(ctx.queue, ctx.list);
    if (iq) {
        CHECK_EQ_INT(count_id(iq, MSG_DEVICE_REMOVED, "reason 0x887a0001", NULL), 1);
        EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_OPENCOMMANDLIST, "command list 0 is still recording");
    }
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    /* The blocked thread returns; the eventfd fires. */
    bool joined = join_within(thread, &wait, WAIT_MS);
    CHECK(joined);
    if (joined)
        CHECK_EQ_INT(wait.hr, S_OK);
    uint64_t count = 0;
    CHECK(fired(event, WAIT_MS, &count));
    CHECK_EQ_INT(count, 1);
    close(event);
    /* Fences read UINT64_MAX; a NULL-event wait returns at once; a new registration fires at once. */
    CHECK(ID3D12Fence_GetCompletedValue(ctx.fence) == UINT64_MAX);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1u << 30, NULL), S_OK);
    event = new_event();
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(ctx.fence, 500, as_handle(event)), S_OK);
    CHECK(fired(event, 0, NULL));
    close(event);
    /* Later creates fail with DXGI_ERROR_DEVICE_REMOVED. */
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, 0, 0};
    void *object = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, &object), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                     &object), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, ctx.allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, &object), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, &object),
                 DXGI_ERROR_DEVICE_REMOVED);
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_UPLOAD};
    D3D12_RESOURCE_DESC buffer = buffer_desc(64);
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &buffer,
                                                      D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                      &object), DXGI_ERROR_DEVICE_REMOVED);
    CHECK(object == NULL);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 7), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(ctx.queue, ctx.fence, 7), DXGI_ERROR_DEVICE_REMOVED);
    /* The first reason wins: a second open-list execution changes nothing. */
    execute(ctx.queue, ctx.list);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    if (iq)
        CHECK_EQ_INT(count_id(iq, MSG_DEVICE_REMOVED, NULL, NULL) + count_id(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_OPENCOMMANDLIST, NULL, NULL), 0);
    /* Everything still releases to 0 on a removed device. */
    if (upload)
        RELEASE_LAST(upload);
    release_context(&ctx);
    if (iq)
        ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_open_list_removes(void)
{
    open_list_removes(true);
}

/* ======== Fences ======== */

static void test_fence_cpu(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12Fence *fence = NULL, *shared = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 5, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 1ull << 61, D3D12_FENCE_FLAG_SHARED, &IID_ID3D12Fence,
                                          (void **)&shared), S_OK);
    if (!fence || !shared)
        return;
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 5);
    CHECK(ID3D12Fence_GetCompletedValue(shared) == 1ull << 61);
    ID3D12Fence1 *fence1 = NULL, *shared1 = NULL;
    CHECK_EQ_INT(ID3D12Fence_QueryInterface(fence, &IID_ID3D12Fence1, (void **)&fence1), S_OK);
    CHECK_EQ_INT(ID3D12Fence_QueryInterface(shared, &IID_ID3D12Fence1, (void **)&shared1), S_OK);
    if (fence1) {
        CHECK((void *)fence1 == (void *)fence);
        CHECK_EQ_INT(ID3D12Fence1_GetCreationFlags(fence1), D3D12_FENCE_FLAG_NONE);
        ID3D12Fence1_Release(fence1);
    }
    if (shared1) {
        CHECK_EQ_INT(ID3D12Fence1_GetCreationFlags(shared1), D3D12_FENCE_FLAG_SHARED);
        ID3D12Fence1_Release(shared1);
    }
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 10), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 10);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 3), S_OK); /* may lower */
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 3);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, UINT64_MAX - 1), S_OK);
    CHECK(ID3D12Fence_GetCompletedValue(fence) == UINT64_MAX - 1);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 0), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 0);
    /* NULL out pointer; unknown flags. */
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, NULL), S_FALSE);
    ID3D12Fence *bad = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, (D3D12_FENCE_FLAGS)0x100, &IID_ID3D12Fence, (void **)&bad),
                 E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "unknown D3D12_FENCE_FLAGS");
    CHECK(bad == NULL);
    ID3D12Device *back = NULL;
    CHECK_EQ_INT(ID3D12Fence_GetDevice(fence, &IID_ID3D12Device, (void **)&back), S_OK);
    CHECK(back == device);
    if (back)
        ID3D12Device_Release(back);
    RELEASE_LAST(fence);
    RELEASE_LAST(shared);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_fence_events(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 5, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    if (!fence)
        return;
    int a = new_event(), b = new_event(), c = new_event();
    uint64_t count = 0;
    /* Reached already: fires immediately (5 <= 5, and 0). */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 5, as_handle(a)), S_OK);
    CHECK(fired(a, 0, &count));
    CHECK_EQ_INT(count, 1);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 0, as_handle(a)), S_OK);
    CHECK(fired(a, 0, NULL));
    /* Not reached: nothing until the value is. One-shot: a later signal does not fire it again. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 8, as_handle(a)), S_OK);
    CHECK(!fired(a, 20, NULL));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 7), S_OK);
    CHECK(!fired(a, 20, NULL));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 8), S_OK);
    CHECK(fired(a, WAIT_MS, &count));
    CHECK_EQ_INT(count, 1);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 2), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 9), S_OK);
    CHECK(!fired(a, 20, NULL));
    /* Several events for one value. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 12, as_handle(a)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 12, as_handle(b)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 12, as_handle(c)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 12), S_OK);
    CHECK(fired(a, WAIT_MS, NULL) && fired(b, WAIT_MS, NULL) && fired(c, WAIT_MS, NULL));
    /* One event for several values: each registration fires once, when its own value is reached. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 20, as_handle(a)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 30, as_handle(a)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 40, as_handle(a)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 25), S_OK);
    CHECK(fired(a, WAIT_MS, &count));
    CHECK_EQ_INT(count, 1);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 40), S_OK);
    CHECK(fired(a, WAIT_MS, &count));
    CHECK_EQ_INT(count, 2); /* 30 and 40 */
    /* Lowering never fires, even below a pending registration. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 41, as_handle(b)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 1), S_OK);
    CHECK(!fired(b, 20, NULL));
    /* Full 64-bit values. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 1ull << 61, as_handle(c)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, UINT64_MAX - 1, as_handle(a)), S_OK);
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, (1ull << 61) - 1), S_OK);
    CHECK(fired(b, WAIT_MS, NULL)); /* 41 */
    CHECK(!fired(c, 20, NULL));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 1ull << 61), S_OK);
    CHECK(fired(c, WAIT_MS, NULL));
    CHECK(!fired(a, 20, NULL));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, UINT64_MAX - 2), S_OK);
    CHECK(!fired(a, 20, NULL));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, UINT64_MAX - 1), S_OK);
    CHECK(fired(a, WAIT_MS, NULL));
    CHECK(ID3D12Fence_GetCompletedValue(fence) == UINT64_MAX - 1);
    EXPECT_NO_MSG(iq, MSG_FENCE_INVALID_EVENT);
    /* Invalid descriptors: E_INVALIDARG and a message. */
    int closed = new_event();
    close(closed);
    const intptr_t invalid[] = {closed, -5, 1 << 28, (intptr_t)1 << 40};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 1, (HANDLE)invalid[i]), E_INVALIDARG);
        EXPECT_MSG(iq, MSG_FENCE_INVALID_EVENT, "is not an open file descriptor");
    }
    /* A registration left pending fires with the fence's final Release (issue 17 item 4; it was dropped unfired). */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, UINT64_MAX, as_handle(b)), S_OK);
    RELEASE_LAST(fence);
    uint64_t pending = 0;
    CHECK(fired(b, WAIT_MS, &pending));
    CHECK_EQ_INT(pending, 1);
    close(a);
    close(b);
    close(c);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_fence_null_event(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 1, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    if (!fence)
        return;
    /* Reached: returns at once. */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(fence, 1, NULL), S_OK);
    /* Three threads block on 5, 5 and 9; CPU signals release them in turn. */
    blocking_wait waits[3] = {{fence, 5, false, E_FAIL}, {fence, 5, false, E_FAIL}, {fence, 9, false, E_FAIL}};
    pthread_t threads[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, block_on_fence, &waits[i]), 0);
    sleep_ms(100);
    for (int i = 0; i < 3; i++)
        CHECK(!atomic_load(&waits[i].done));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 4), S_OK);
    sleep_ms(50);
    for (int i = 0; i < 3; i++)
        CHECK(!atomic_load(&waits[i].done));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 5), S_OK);
    CHECK(join_within(threads[0], &waits[0], WAIT_MS));
    CHECK(join_within(threads[1], &waits[1], WAIT_MS));
    sleep_ms(50);
    CHECK(!atomic_load(&waits[2].done));
    CHECK_EQ_INT(ID3D12Fence_Signal(fence, 100), S_OK);
    CHECK(join_within(threads[2], &waits[2], WAIT_MS));
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(waits[i].hr, S_OK);
    RELEASE_LAST(fence);
    RELEASE_LAST(device);
}

/* ======== Queue fence operations ======== */

static void test_queue_signal(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    /* An idle queue's Signal completes (through the GPU timeline). */
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    CHECK(wait_fence(ctx.fence, 1));
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 1);
    /* Signals in order, the last value stands; large values. */
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 2), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1ull << 61), S_OK);
    CHECK(wait_fence(ctx.fence, 1ull << 61));
    CHECK(ID3D12Fence_GetCompletedValue(ctx.fence) == 1ull << 61);
    /* A GPU signal may lower the value too. */
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 4), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 5), S_OK);
    /* The fence is already above 5: a marker fence signalled afterwards says when the queue got there. */
    ID3D12Fence *marker = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&marker), S_OK);
    if (marker) {
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, marker, 1), S_OK);
        CHECK(wait_fence(marker, 1));
        /* Not RELEASE_LAST: the queue drops its reference just after the event fires (the device's count at the
         * end still proves nothing leaks). */
        ID3D12Fence_Release(marker);
    }
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 5);
    ctx.value = 5;
    /* A NULL fence: E_INVALIDARG with a message, for Signal and Wait. */
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, NULL, 1), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "ID3D12CommandQueue::Signal: pFence is NULL");
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(ctx.queue, NULL, 1), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "ID3D12CommandQueue::Wait: pFence is NULL");
    /* A queue Wait already satisfied does not hold anything up. */
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(ctx.queue, ctx.fence, 3), S_OK);
    CHECK(finish(&ctx));
    /* The queue keeps a fence alive until its signal is done: release ours first. */
    ID3D12Fence *other = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&other), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, other, 1), S_OK);
    ID3D12Fence_Release(other);
    CHECK(finish(&ctx));
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* With D12RT_REFDRV_EXEC_DELAY_MS=300 (CMakeLists.txt), an execution takes 300 ms on the GPU timeline: the fence
 * and the data change only when the GPU gets there, not when ExecuteCommandLists returns. */
static void test_queue_signal_after_work(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    unsigned char expected[256], got[256], zero[256] = {0};
    fill(upload, 256, 11);
    read_back(upload, expected, 256);
    clear_buffer(readback, 256);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, upload);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 0);
    read_back(readback, got, 256);
    CHECK(memcmp(got, zero, 256) == 0);
    int event = new_event();
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    CHECK(!fired(event, 50, NULL));
    CHECK(fired(event, WAIT_MS, NULL));
    close(event);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 1);
    read_back(readback, got, 256);
    CHECK(memcmp(got, expected, 256) == 0);
    RELEASE_LAST(upload);
    RELEASE_LAST(readback);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_queue_wait(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Fence *gate = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&gate), S_OK);
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 128);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 128);
    if (!gate || !upload || !readback)
        return;
    unsigned char expected[128], got[128], zero[128] = {0};
    fill(upload, 128, 21);
    read_back(upload, expected, 128);
    clear_buffer(readback, 128);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, upload);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    /* Wait(gate, 2) first: the copy and the signal after it wait for the CPU. */
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(ctx.queue, gate, 2), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    sleep_ms(150);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 0);
    read_back(readback, got, 128);
    CHECK(memcmp(got, zero, 128) == 0);
    /* Not enough. */
    CHECK_EQ_INT(ID3D12Fence_Signal(gate, 1), S_OK);
    sleep_ms(100);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 0);
    read_back(readback, got, 128);
    CHECK(memcmp(got, zero, 128) == 0);
    /* The CPU signal releases the queue. */
    CHECK_EQ_INT(ID3D12Fence_Signal(gate, 2), S_OK);
    CHECK(wait_fence(ctx.fence, 1));
    read_back(readback, got, 128);
    CHECK(memcmp(got, expected, 128) == 0);
    RELEASE_LAST(upload);
    RELEASE_LAST(readback);
    RELEASE_LAST(gate);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* Queue A waits for queue B's signal: B's copy into a DEFAULT buffer lands before A copies it to READBACK. */
static void test_queue_to_queue(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    gpu_context a, b;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &a) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COPY, &b))
        return;
    ID3D12Fence *handoff = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&handoff), S_OK);
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 512);
    ID3D12Resource *middle = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 512);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 512);
    if (!handoff || !upload || !middle || !readback)
        return;
    unsigned char expected[512], got[512];
    for (int round = 1; round <= 5; round++) {
        fill(upload, 512, (unsigned char)(round * 31));
        read_back(upload, expected, 512);
        clear_buffer(readback, 512);
        /* A's work is submitted first, behind a wait for B. */
        ID3D12GraphicsCommandList_CopyResource(a.list, readback, middle);
        CHECK_EQ_INT(ID3D12CommandQueue_Wait(a.queue, handoff, (UINT64)round), S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(a.list), S_OK);
        execute(a.queue, a.list);
        a.value++;
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(a.queue, a.fence, a.value), S_OK);
        sleep_ms(30);
        CHECK(ID3D12Fence_GetCompletedValue(a.fence) < a.value);
        ID3D12GraphicsCommandList_CopyResource(b.list, middle, upload);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
        execute(b.queue, b.list);
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(b.queue, handoff, (UINT64)round), S_OK);
        CHECK(wait_fence(a.fence, a.value));
        read_back(readback, got, 512);
        CHECK(memcmp(got, expected, 512) == 0);
        CHECK(finish(&b));
        CHECK_EQ_INT(ID3D12CommandAllocator_Reset(a.allocator), S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(a.list, a.allocator, NULL), S_OK);
        CHECK_EQ_INT(ID3D12CommandAllocator_Reset(b.allocator), S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(b.list, b.allocator, NULL), S_OK);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(a.list), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(b.list), S_OK);
    RELEASE_LAST(upload);
    RELEASE_LAST(middle);
    RELEASE_LAST(readback);
    RELEASE_LAST(handoff);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(device);
}

/* Releasing a queue whose timeline waits on a fence nobody signals returns (the wait is abandoned). */
static void test_queue_release_pending_wait(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Fence *never = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&never), S_OK);
    if (!never)
        return;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(ctx.queue, never, 1), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    sleep_ms(50);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), 0);
    /* The queue goes first (ctest's TIMEOUT catches a hang). */
    RELEASE_LAST(ctx.queue);
    ctx.queue = NULL;
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    /* The fence the wait named is not leaked by the queue. */
    RELEASE_LAST(never);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* ======== Resources ======== */

static HRESULT create_resource(ID3D12Device *device, const D3D12_HEAP_PROPERTIES *heap, const D3D12_RESOURCE_DESC *desc,
                               D3D12_RESOURCE_STATES state, const D3D12_CLEAR_VALUE *clear)
{
    ID3D12Resource *resource = NULL;
    HRESULT hr = ID3D12Device_CreateCommittedResource(device, heap, D3D12_HEAP_FLAG_NONE, desc, state, clear,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (resource)
        ID3D12Resource_Release(resource);
    return hr;
}

/* Field by field: D3D12_RESOURCE_DESC has padding (after Dimension, Format and Layout), which GetDesc's by-value
 * return leaves as whatever the stack held, so a memcmp reads uninitialised bytes (valgrind, issue 12 item 2). */
static bool same_resource_desc(const D3D12_RESOURCE_DESC *a, const D3D12_RESOURCE_DESC *b)
{
    return a->Dimension == b->Dimension && a->Alignment == b->Alignment && a->Width == b->Width &&
           a->Height == b->Height && a->DepthOrArraySize == b->DepthOrArraySize && a->MipLevels == b->MipLevels &&
           a->Format == b->Format && a->SampleDesc.Count == b->SampleDesc.Count &&
           a->SampleDesc.Quality == b->SampleDesc.Quality && a->Layout == b->Layout && a->Flags == b->Flags;
}

static void test_resource_create(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    const D3D12_HEAP_TYPE types[] = {D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    const D3D12_RESOURCE_STATES states[] = {D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_GENERIC_READ,
                                            D3D12_RESOURCE_STATE_COPY_DEST};
    ID3D12Resource *buffers[3] = {0};
    for (int i = 0; i < 3; i++) {
        D3D12_HEAP_PROPERTIES heap = {types[i], D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
        D3D12_RESOURCE_DESC desc = buffer_desc(1000 + i);
        desc.Alignment = D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT;
        CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, states[i], NULL,
                                                          &IID_ID3D12Resource, (void **)&buffers[i]), S_OK);
        if (!buffers[i])
            continue;
        D3D12_RESOURCE_DESC got = ID3D12Resource_GetDesc(buffers[i]);
        CHECK(same_resource_desc(&got, &desc));
        D3D12_HEAP_PROPERTIES got_heap;
        D3D12_HEAP_FLAGS flags = (D3D12_HEAP_FLAGS)-1;
        CHECK_EQ_INT(ID3D12Resource_GetHeapProperties(buffers[i], &got_heap, &flags), S_OK);
        CHECK(memcmp(&got_heap, &heap, sizeof heap) == 0);
        CHECK_EQ_INT(flags, D3D12_HEAP_FLAG_NONE);
        CHECK_EQ_INT(ID3D12Resource_GetHeapProperties(buffers[i], NULL, NULL), S_OK);
    }
    /* DEFAULT may start in COPY_DEST too. */
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = buffer_desc(64);
    CHECK_EQ_INT(create_resource(device, &heap, &desc, D3D12_RESOURCE_STATE_COPY_DEST, NULL), S_OK);
    /* NULL out pointer. */
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource, NULL),
                 S_FALSE);
    EXPECT_NO_MSG(iq, MSG_CREATE_INVALID_ARGUMENT);

    /* GPU virtual addresses: non-zero, distinct, stable. */
    D3D12_GPU_VIRTUAL_ADDRESS addresses[3];
    for (int i = 0; i < 3; i++) {
        addresses[i] = buffers[i] ? ID3D12Resource_GetGPUVirtualAddress(buffers[i]) : 0;
        CHECK(addresses[i] != 0);
        CHECK(buffers[i] && ID3D12Resource_GetGPUVirtualAddress(buffers[i]) == addresses[i]);
    }
    CHECK(addresses[0] != addresses[1] && addresses[1] != addresses[2] && addresses[0] != addresses[2]);

    /* Invalid descriptions: E_INVALIDARG with a message naming the problem. */
    struct {
        const char *what;
        D3D12_HEAP_TYPE heap;
        D3D12_RESOURCE_STATES state;
        void (*edit)(D3D12_RESOURCE_DESC *);
        bool clear;
        const char *text;
    } bad[] = {
        {"texture", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "buffers only"},
        {"width 0", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "Width > 0"},
        {"height 2", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "Width > 0"},
        {"format", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "Format UNKNOWN"},
        {"layout", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "Layout ROW_MAJOR"},
        {"mips", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "MipLevels"},
        {"samples", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, false, "SampleDesc.Count"},
        {"custom heap", D3D12_HEAP_TYPE_CUSTOM, 0, NULL, false, "no custom heaps"},
        {"upload in COMMON", D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_COMMON, NULL, false, "GENERIC_READ"},
        {"upload in COPY_DEST", D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_COPY_DEST, NULL, false, "GENERIC_READ"},
        {"readback in GENERIC_READ", D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_GENERIC_READ, NULL, false, "COPY_DEST"},
        {"clear value", D3D12_HEAP_TYPE_DEFAULT, 0, NULL, true, "pOptimizedClearValue"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        D3D12_HEAP_PROPERTIES h = {.Type = bad[i].heap};
        D3D12_RESOURCE_DESC d = buffer_desc(64);
        switch (i) {
        case 0: d.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D; d.Width = 16; d.Height = 16; d.Format = DXGI_FORMAT_R8G8B8A8_UNORM; d.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN; break;
        case 1: d.Width = 0; break;
        case 2: d.Height = 2; break;
        case 3: d.Format = DXGI_FORMAT_R32_FLOAT; break;
        case 4: d.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN; break;
        case 5: d.MipLevels = 2; break;
        case 6: d.SampleDesc.Count = 4; break;
        default: break;
        }
        D3D12_CLEAR_VALUE clear = {DXGI_FORMAT_R8G8B8A8_UNORM, {{0, 0, 0, 1}}};
        fprintf(stderr, "invalid resource: %s\n", bad[i].what);
        CHECK_EQ_INT(create_resource(device, &h, &d, bad[i].state, bad[i].clear ? &clear : NULL), E_INVALIDARG);
        EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, bad[i].text);
    }
    /* Heap properties only a CUSTOM heap may set, node masks, and a heap flag denying buffers. */
    D3D12_HEAP_PROPERTIES page = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, 0, 0, 0};
    CHECK_EQ_INT(create_resource(device, &page, &desc, D3D12_RESOURCE_STATE_GENERIC_READ, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "CPUPageProperty");
    D3D12_HEAP_PROPERTIES pool = {D3D12_HEAP_TYPE_DEFAULT, 0, D3D12_MEMORY_POOL_L1, 0, 0};
    CHECK_EQ_INT(create_resource(device, &pool, &desc, D3D12_RESOURCE_STATE_COMMON, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "MemoryPoolPreference");
    D3D12_HEAP_PROPERTIES nodes = {D3D12_HEAP_TYPE_DEFAULT, 0, 0, 2, 0};
    CHECK_EQ_INT(create_resource(device, &nodes, &desc, D3D12_RESOURCE_STATE_COMMON, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "NodeMask");
    D3D12_HEAP_PROPERTIES one_node = {D3D12_HEAP_TYPE_DEFAULT, 0, 0, 1, 1};
    ID3D12Resource *on_node = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &one_node, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                      (void **)&on_node), S_OK);
    if (on_node)
        RELEASE_LAST(on_node);
    ID3D12Resource *denied = (void *)1;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_DENY_BUFFERS, &desc,
                                                      D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                      (void **)&denied), E_INVALIDARG);
    CHECK(denied == NULL);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "DENY_BUFFERS");
    CHECK_EQ_INT(create_resource(device, NULL, &desc, D3D12_RESOURCE_STATE_COMMON, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "must not be NULL");
    CHECK_EQ_INT(create_resource(device, &heap, NULL, D3D12_RESOURCE_STATE_COMMON, NULL), E_INVALIDARG);
    EXPECT_MSG(iq, MSG_CREATE_INVALID_ARGUMENT, "must not be NULL");
    for (int i = 0; i < 3; i++)
        if (buffers[i])
            RELEASE_LAST(buffers[i]);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_resource_map(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12Resource *def = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 64);
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 64);
    if (!def || !upload || !readback)
        return;
    void *data = (void *)1;
    CHECK_EQ_INT(ID3D12Resource_Map(def, 0, NULL, &data), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_MAP_INVALIDHEAP, NULL);
    CHECK_EQ_INT(ID3D12Resource_Map(upload, 1, NULL, &data), E_INVALIDARG);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_MAP_INVALIDSUBRESOURCE, "Map: Subresource 1");
    ID3D12Resource_Unmap(upload, 1, NULL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_MAP_INVALIDSUBRESOURCE, "Unmap: Subresource 1");
    /* Unmap of a buffer that is not mapped: a warning. */
    message_info info = {0};
    ID3D12Resource_Unmap(upload, 0, NULL);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED, NULL, &info), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_WARNING);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    ID3D12Resource_Unmap(def, 0, NULL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED, NULL);
    /* Map nests: the same pointer twice, two Unmaps, the third warns. */
    void *first = NULL, *second = NULL;
    CHECK_EQ_INT(ID3D12Resource_Map(upload, 0, NULL, &first), S_OK);
    D3D12_RANGE none = {0, 0};
    CHECK_EQ_INT(ID3D12Resource_Map(upload, 0, &none, &second), S_OK);
    CHECK(first != NULL && first == second);
    if (first)
        memset(first, 0x5A, 64);
    ID3D12Resource_Unmap(upload, 0, NULL);
    ID3D12Resource_Unmap(upload, 0, &none);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED);
    ID3D12Resource_Unmap(upload, 0, NULL);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED, NULL);
    /* The data persists across maps; a NULL ppData maps without a pointer. */
    unsigned char got[64];
    read_back(upload, got, 64);
    CHECK(got[0] == 0x5A && got[63] == 0x5A);
    CHECK_EQ_INT(ID3D12Resource_Map(readback, 0, NULL, NULL), S_OK);
    ID3D12Resource_Unmap(readback, 0, NULL);
    EXPECT_NO_MSG(iq, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED);
    RELEASE_LAST(def);
    RELEASE_LAST(upload);
    RELEASE_LAST(readback);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== ID3D12Object methods and QueryInterface on every GPU object ======== */

static const GUID test_key = {0x8badf00d, 0x1234, 0x5678, {1, 2, 3, 4, 5, 6, 7, 8}};

static void check_object(ID3D12Device *device, IUnknown *unknown, const wchar_t *name, const IID *const *chain,
                         size_t chain_length, const IID *absent)
{
    ID3D12DeviceChild *child = NULL;
    CHECK_EQ_INT(IUnknown_QueryInterface(unknown, &IID_ID3D12DeviceChild, (void **)&child), S_OK);
    if (!child)
        return;
    /* SetName through ID3D12Object, read back as WKPDID_D3DDebugObjectNameW. */
    CHECK_EQ_INT(ID3D12DeviceChild_SetName(child, name), S_OK);
    WCHAR got[64];
    UINT size = sizeof got;
    CHECK_EQ_INT(ID3D12DeviceChild_GetPrivateData(child, &WKPDID_D3DDebugObjectNameW, &size, got), S_OK);
    CHECK_EQ_INT(size, (wcslen(name) + 1) * sizeof(WCHAR));
    CHECK(wcscmp(got, name) == 0);
    CHECK_EQ_INT(ID3D12DeviceChild_SetName(child, NULL), E_INVALIDARG);
    /* Private data. */
    size = 4;
    CHECK_EQ_INT(ID3D12DeviceChild_GetPrivateData(child, &test_key, &size, got), DXGI_ERROR_NOT_FOUND);
    CHECK_EQ_INT(ID3D12DeviceChild_SetPrivateData(child, &test_key, 4, "abc"), S_OK);
    char text[8] = {0};
    size = sizeof text;
    CHECK_EQ_INT(ID3D12DeviceChild_GetPrivateData(child, &test_key, &size, text), S_OK);
    CHECK_EQ_INT(size, 4);
    CHECK_EQ_STR(text, "abc");
    size = 2;
    CHECK_EQ_INT(ID3D12DeviceChild_GetPrivateData(child, &test_key, &size, text), DXGI_ERROR_MORE_DATA);
    /* An interface entry holds a reference on the device until removed. */
    ULONG before = ID3D12Device_AddRef(device) - 1;
    ID3D12Device_Release(device);
    CHECK_EQ_INT(ID3D12DeviceChild_SetPrivateDataInterface(child, &test_key, (IUnknown *)device), S_OK);
    CHECK_EQ_INT(ID3D12Device_AddRef(device) - 1, before + 1);
    ID3D12Device_Release(device);
    CHECK_EQ_INT(ID3D12DeviceChild_SetPrivateData(child, &test_key, 0, NULL), S_OK);
    CHECK_EQ_INT(ID3D12Device_AddRef(device) - 1, before);
    ID3D12Device_Release(device);
    /* GetDevice. */
    ID3D12Device *back = NULL;
    CHECK_EQ_INT(ID3D12DeviceChild_GetDevice(child, &IID_ID3D12Device, (void **)&back), S_OK);
    CHECK(back == device);
    if (back)
        ID3D12Device_Release(back);
    ID3D12DeviceChild_Release(child);
    /* QueryInterface: every interface of the chain is the object itself, one reference count. */
    ULONG refs = IUnknown_AddRef(unknown) - 1;
    IUnknown_Release(unknown);
    for (size_t i = 0; i < chain_length; i++) {
        IUnknown *other = NULL;
        CHECK_EQ_INT(IUnknown_QueryInterface(unknown, chain[i], (void **)&other), S_OK);
        CHECK((void *)other == (void *)unknown);
        if (other)
            CHECK_EQ_INT(IUnknown_Release(other), refs);
    }
    void *none = (void *)1;
    CHECK_EQ_INT(IUnknown_QueryInterface(unknown, absent, &none), E_NOINTERFACE);
    CHECK(none == NULL);
    CHECK_EQ_INT(IUnknown_QueryInterface(unknown, &IID_ID3D12Object, NULL), E_POINTER);
}

static void test_object_methods(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *resource = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    const IID *queue_chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12DeviceChild, &IID_ID3D12Pageable,
                                &IID_ID3D12CommandQueue};
    check_object(device, (IUnknown *)ctx.queue, L"queue", queue_chain, 5, &IID_ID3D12Fence);
    const IID *allocator_chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12DeviceChild, &IID_ID3D12Pageable,
                                    &IID_ID3D12CommandAllocator};
    check_object(device, (IUnknown *)ctx.allocator, L"allocator", allocator_chain, 5, &IID_ID3D12Resource);
    const IID *list_chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12DeviceChild, &IID_ID3D12CommandList,
                               &IID_ID3D12GraphicsCommandList};
    check_object(device, (IUnknown *)ctx.list, L"list \u00e9", list_chain, 5, &IID_ID3D12Pageable);
    const IID *fence_chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12DeviceChild, &IID_ID3D12Pageable,
                                &IID_ID3D12Fence};
    check_object(device, (IUnknown *)ctx.fence, L"fence", fence_chain, 5, &IID_ID3D12CommandQueue);
    const IID *resource_chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12DeviceChild, &IID_ID3D12Pageable,
                                   &IID_ID3D12Resource};
    if (resource)
        check_object(device, (IUnknown *)resource, L"resource", resource_chain, 5, &IID_ID3D12Device);
    /* Through ID3D12CommandList (the base interface) the type is the same. */
    ID3D12CommandList *base = NULL;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_QueryInterface(ctx.list, &IID_ID3D12CommandList, (void **)&base), S_OK);
    if (base) {
        CHECK_EQ_INT(ID3D12CommandList_GetType(base), D3D12_COMMAND_LIST_TYPE_DIRECT);
        ID3D12CommandList_Release(base);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    if (resource)
        RELEASE_LAST(resource);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* ======== Copies on the GPU timeline ======== */

#define COPY_SIZE 1024

static void copy_round_trip(D3D12_COMMAND_LIST_TYPE type)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, type, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
    ID3D12Resource *base = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
    ID3D12Resource *def = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, COPY_SIZE);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, COPY_SIZE);
    if (!upload || !base || !def || !readback)
        return;
    unsigned char source[COPY_SIZE], background[COPY_SIZE], expected[COPY_SIZE], got[COPY_SIZE];
    fill(upload, COPY_SIZE, 1);
    read_back(upload, source, COPY_SIZE);
    unsigned char *data = NULL;
    CHECK_EQ_INT(ID3D12Resource_Map(base, 0, NULL, (void **)&data), S_OK);
    if (data) {
        memset(data, 0xEE, COPY_SIZE);
        ID3D12Resource_Unmap(base, 0, NULL);
    }
    memset(background, 0xEE, COPY_SIZE);
    clear_buffer(readback, COPY_SIZE);

    /* One list: background into DEFAULT, a region at offsets, then DEFAULT to READBACK. */
    ID3D12GraphicsCommandList_CopyResource(ctx.list, def, base);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, def, 100, upload, 300, 200);
    transition(ctx.list, def, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, def);
    transition(ctx.list, def, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_COPY_DEST);
    CHECK(submit_and_wait(&ctx));
    memcpy(expected, background, COPY_SIZE);
    memcpy(expected + 100, source + 300, 200);
    read_back(readback, got, COPY_SIZE);
    CHECK(memcmp(got, expected, COPY_SIZE) == 0);

    /* Several submissions, in order, one wait at the end: each builds on the one before. */
    for (int i = 0; i < 8; i++) {
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, def, (UINT64)i * 64, upload, (UINT64)i * 8, 64);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
        execute(ctx.queue, ctx.list);
        /* A fresh allocator per submission: the one in flight must not be reset. */
        ID3D12CommandAllocator *next = NULL;
        CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, type, &IID_ID3D12CommandAllocator, (void **)&next),
                     S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, next, NULL), S_OK);
        ID3D12CommandAllocator_Release(ctx.allocator); /* the GPU's work keeps what it needs */
        ctx.allocator = next;
        memcpy(expected + i * 64, source + i * 8, 64);
    }
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, def);
    CHECK(submit_and_wait(&ctx));
    read_back(readback, got, COPY_SIZE);
    CHECK(memcmp(got, expected, COPY_SIZE) == 0);

    /* Several lists in one ExecuteCommandLists run in array order. */
    ID3D12CommandAllocator *second_allocator = NULL;
    ID3D12GraphicsCommandList *second = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, type, &IID_ID3D12CommandAllocator,
                                                     (void **)&second_allocator), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, type, second_allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&second), S_OK);
    if (second) {
        ID3D12GraphicsCommandList_CopyResource(ctx.list, def, base);
        ID3D12GraphicsCommandList_CopyBufferRegion(second, def, COPY_SIZE - 1, upload, 0, 1);
        ID3D12GraphicsCommandList_CopyResource(second, readback, def);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(second), S_OK);
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)ctx.list, (ID3D12CommandList *)second};
        ID3D12CommandQueue_ExecuteCommandLists(ctx.queue, 2, lists);
        CHECK(finish(&ctx));
        memcpy(expected, background, COPY_SIZE);
        expected[COPY_SIZE - 1] = source[0];
        read_back(readback, got, COPY_SIZE);
        CHECK(memcmp(got, expected, COPY_SIZE) == 0);
        RELEASE_LAST(second);
    } else {
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    }
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, NULL, NULL), 0);
    if (second_allocator)
        RELEASE_LAST(second_allocator);
    RELEASE_LAST(upload);
    RELEASE_LAST(base);
    RELEASE_LAST(def);
    RELEASE_LAST(readback);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_copy_direct(void) { copy_round_trip(D3D12_COMMAND_LIST_TYPE_DIRECT); }
static void test_copy_compute(void) { copy_round_trip(D3D12_COMMAND_LIST_TYPE_COMPUTE); }
static void test_copy_copy(void) { copy_round_trip(D3D12_COMMAND_LIST_TYPE_COPY); }

/* ======== Threads: each its own queue, allocator, list and buffers ======== */

#define THREADS 4
#define ROUNDS 25

typedef struct {
    ID3D12Device *device;
    int index;
    atomic_uint *failures;
} thread_job;

static void *copy_thread(void *argument)
{
    thread_job *job = argument;
    const D3D12_COMMAND_LIST_TYPE types[] = {D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                             D3D12_COMMAND_LIST_TYPE_COPY};
    gpu_context ctx;
    if (!make_context(job->device, types[job->index % 3], &ctx)) {
        atomic_fetch_add(job->failures, 1);
        return NULL;
    }
    ID3D12Resource *upload = make_buffer(job->device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *def = make_buffer(job->device, D3D12_HEAP_TYPE_DEFAULT, 4096);
    ID3D12Resource *readback = make_buffer(job->device, D3D12_HEAP_TYPE_READBACK, 4096);
    static _Thread_local unsigned char expected[4096], got[4096];
    for (int round = 0; round < ROUNDS && upload && def && readback; round++) {
        unsigned char seed = (unsigned char)(job->index * 50 + round);
        fill(upload, 4096, seed);
        read_back(upload, expected, 4096);
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, def, 0, upload, 0, 4096);
        ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, def);
        if (!submit_and_wait(&ctx))
            atomic_fetch_add(job->failures, 1);
        read_back(readback, got, 4096);
        if (memcmp(got, expected, 4096) != 0)
            atomic_fetch_add(job->failures, 1);
    }
    ID3D12GraphicsCommandList_Close(ctx.list);
    if (upload)
        RELEASE_LAST(upload);
    if (def)
        RELEASE_LAST(def);
    if (readback)
        RELEASE_LAST(readback);
    release_context(&ctx);
    return NULL;
}

static void test_threads(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    atomic_uint failures = 0;
    thread_job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){device, i, &failures};
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, copy_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    CHECK_EQ_INT(atomic_load(&failures), 0);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    RELEASE_LAST(device);
}

/* ======== Without the debug layer: the same HRESULTs ======== */

static void test_no_debug_layer(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    void *object = (void *)1;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, &object), E_NOINTERFACE);
    D3D12_COMMAND_QUEUE_DESC bad = {D3D12_COMMAND_LIST_TYPE_BUNDLE, 0, 0, 0};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &bad, &IID_ID3D12CommandQueue, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, NULL, &IID_ID3D12CommandQueue, &object), E_INVALIDARG);
    D3D12_COMMAND_QUEUE_DESC flags = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, (D3D12_COMMAND_QUEUE_FLAGS)0x80, 0};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, &flags, &IID_ID3D12CommandQueue, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, (D3D12_COMMAND_LIST_TYPE)42, &IID_ID3D12CommandAllocator,
                                                     &object), E_INVALIDARG);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, NULL, NULL,
                                                &IID_ID3D12GraphicsCommandList, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, ctx.allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_COPY, ctx.allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), E_FAIL);
    CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx.allocator), E_FAIL);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), E_FAIL);
    CHECK_EQ_INT(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    /* A recording error: Close fails, executing it submits nothing. */
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 64);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 64);
    ID3D12Resource *def = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 64);
    if (!upload || !readback || !def)
        return;
    fill(upload, 64, 77);
    clear_buffer(readback, 64);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, upload);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, NULL, 0, upload, 0, 64);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), E_INVALIDARG);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    unsigned char got[64], zero[64] = {0};
    read_back(readback, got, 64);
    CHECK(memcmp(got, zero, 64) == 0);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(ctx.list), E_FAIL);
    /* Map and fences. */
    CHECK_EQ_INT(ID3D12Resource_Map(def, 0, NULL, &object), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Resource_Map(upload, 1, NULL, &object), E_INVALIDARG);
    ID3D12Resource_Unmap(upload, 0, NULL); /* not mapped: ignored */
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(ctx.fence, 100, (HANDLE)(intptr_t)-3), E_INVALIDARG);
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_UPLOAD};
    D3D12_RESOURCE_DESC desc = buffer_desc(64);
    CHECK_EQ_INT(create_resource(device, &heap, &desc, D3D12_RESOURCE_STATE_COMMON, NULL), E_INVALIDARG);
    desc.Width = 0;
    CHECK_EQ_INT(create_resource(device, &heap, &desc, D3D12_RESOURCE_STATE_GENERIC_READ, NULL), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    RELEASE_LAST(upload);
    RELEASE_LAST(readback);
    RELEASE_LAST(def);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_open_list_removes_no_debug_layer(void)
{
    open_list_removes(false);
}

/* RUNTIME BUG (DISABLED in CMakeLists.txt): runtime/resource.c check_buffer ignores D3D12_RESOURCE_DESC.Flags. On
 * Windows (vkd3d-proton test_create_committed_resource, invalid_buffer_desc_tests) a buffer in an UPLOAD or READBACK
 * heap with ALLOW_RENDER_TARGET or ALLOW_UNORDERED_ACCESS is refused with E_INVALIDARG; d12rt creates it. */
static void test_resource_flags_upload_readback(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    const D3D12_HEAP_TYPE heaps[] = {D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    const D3D12_RESOURCE_FLAGS flags[] = {D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET,
                                          D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    for (int h = 0; h < 2; h++) {
        for (int f = 0; f < 2; f++) {
            D3D12_HEAP_PROPERTIES heap = {.Type = heaps[h]};
            D3D12_RESOURCE_DESC desc = buffer_desc(32);
            desc.Flags = flags[f];
            D3D12_RESOURCE_STATES state = heaps[h] == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                          : D3D12_RESOURCE_STATE_COPY_DEST;
            CHECK_EQ_INT(create_resource(device, &heap, &desc, state, NULL), E_INVALIDARG);
            /* issue 29: the debug layer's own ID for a GPU-write flag on a CPU heap */
            EXPECT_MSG(iq, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALIDHEAPPROPERTIES, "cannot be used on a");
        }
    }
    /* The positive twin: a DEFAULT buffer may allow unordered access. */
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = buffer_desc(32);
    desc.Flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
    CHECK_EQ_INT(create_resource(device, &heap, &desc, D3D12_RESOURCE_STATE_COMMON, NULL), S_OK);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* RUNTIME BUG (DISABLED in CMakeLists.txt): a creation method that fails validation returns without writing its out
 * pointer. On Windows (vkd3d-proton test_create_committed_resource: `resource = 0xdeadbeef; ... E_INVALIDARG;
 * ok(!resource)`) the out pointer is set to NULL on failure. d12rt leaves the caller's value in place in
 * d12_device_CreateCommittedResource (runtime/resource.c), d12_device_CreateCommandQueue (runtime/queue.c),
 * d12_device_CreateCommandAllocator / d12_device_CreateCommandList (runtime/list.c), d12_device_CreateFence
 * (runtime/fence.c): every early `return E_INVALIDARG` / DXGI_ERROR_DEVICE_REMOVED path. */
static void test_create_failure_nulls_out(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    void *object = (void *)(uintptr_t)0xdeadbeef;
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_UPLOAD};
    D3D12_RESOURCE_DESC desc = buffer_desc(32);
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource, &object),
                 E_INVALIDARG);
    CHECK(object == NULL);
    object = (void *)(uintptr_t)0xdeadbeef;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(device, NULL, &IID_ID3D12CommandQueue, &object), E_INVALIDARG);
    CHECK(object == NULL);
    object = (void *)(uintptr_t)0xdeadbeef;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE,
                                                     &IID_ID3D12CommandAllocator, &object), E_INVALIDARG);
    CHECK(object == NULL);
    object = (void *)(uintptr_t)0xdeadbeef;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, NULL, NULL,
                                                &IID_ID3D12GraphicsCommandList, &object), E_INVALIDARG);
    CHECK(object == NULL);
    object = (void *)(uintptr_t)0xdeadbeef;
    CHECK_EQ_INT(ID3D12Device_CreateFence(device, 0, (D3D12_FENCE_FLAGS)0x100, &IID_ID3D12Fence, &object),
                 E_INVALIDARG);
    CHECK(object == NULL);
    RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"queue_create", test_queue_create},
    {"allocator_create", test_allocator_create},
    {"list_create", test_list_create},
    {"list_lifecycle", test_list_lifecycle},
    {"recording_errors", test_recording_errors},
    {"execute_type_mismatch", test_execute_type_mismatch},
    {"open_list_removes", test_open_list_removes},
    {"open_list_removes_no_debug_layer", test_open_list_removes_no_debug_layer},
    {"fence_cpu", test_fence_cpu},
    {"fence_events", test_fence_events},
    {"fence_null_event", test_fence_null_event},
    {"queue_signal", test_queue_signal},
    {"queue_signal_after_work", test_queue_signal_after_work},
    {"queue_wait", test_queue_wait},
    {"queue_to_queue", test_queue_to_queue},
    {"queue_release_pending_wait", test_queue_release_pending_wait},
    {"resource_create", test_resource_create},
    {"resource_map", test_resource_map},
    {"object_methods", test_object_methods},
    {"copy_direct", test_copy_direct},
    {"copy_compute", test_copy_compute},
    {"copy_copy", test_copy_copy},
    {"threads", test_threads},
    {"no_debug_layer", test_no_debug_layer},
    {"resource_flags_upload_readback", test_resource_flags_upload_readback},
    {"create_failure_nulls_out", test_create_failure_nulls_out},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_gpu CASE\n");
    return 2;
}
