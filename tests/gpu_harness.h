/* Helpers shared by the GPU-work tests (tests/gpu, tests/gpu_ddi), on top of harness.h, through libd12rt's public
 * ABI only: CHECK_EQ_INT_RET / CHECK_HR (a CHECK_EQ_INT that answers whether it held and prints hex); devices with the
 * debug layer and their muted InfoQueue; counting and dumping stored messages; committed buffers; eventfd events and
 * fence waits (up to WAIT_MS); a gpu_context (queue, allocator, open list, fence) with execute, finish and transition
 * barriers; RELEASE_LAST, the leak check. Define _GNU_SOURCE and COBJMACROS before any include. */
#ifndef D12_TEST_GPU_HARNESS_H
#define D12_TEST_GPU_HARNESS_H

#ifndef COBJMACROS
#error "define COBJMACROS before including gpu_harness.h (and before any DirectX header)"
#endif

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>

#include "harness.h"

/* How long a wait for the GPU (a fence, an event) may take before it counts as never. */
#define WAIT_MS 10000

/* CHECK_EQ_INT that also answers whether it held, printing hex too (HRESULTs). */
static inline int check_eq_ret(long long actual, long long expected, const char *file, int line, const char *what)
{
    if (d12test_record(actual == expected, file, line, what))
        return 1;
    fprintf(stderr, "    actual %lld (0x%llx), expected %lld (0x%llx)\n", actual, (unsigned long long)actual, expected,
            (unsigned long long)expected);
    return 0;
}
#define CHECK_EQ_INT_RET(a, e) check_eq_ret((long long)(a), (long long)(e), __FILE__, __LINE__, #a " == " #e)
/* The same, named for HRESULTs. */
#define CHECK_HR(a, e) check_eq_ret((long long)(a), (long long)(e), __FILE__, __LINE__, #a " == " #e)

/* Release and check the count reached 0 (the leak check). */
#define RELEASE_LAST(obj) CHECK_EQ_INT(IUnknown_Release((IUnknown *)(obj)), 0)

static inline void sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ======== devices and messages ======== */

/* Whether the debug layer could be enabled (for the devices created from now on). */
static inline bool enable_debug_layer(void)
{
    ID3D12Debug *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))))
        return false;
    ID3D12Debug_EnableDebugLayer(debug);
    ID3D12Debug_Release(debug);
    return true;
}

/* A device on the default adapter, with the debug layer when asked (NULL when that cannot be enabled). */
static inline ID3D12Device *create_device(bool debug_layer)
{
    if (debug_layer && !enable_debug_layer())
        return NULL;
    ID3D12Device *device = NULL;
    CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    return device;
}

#ifdef D12RT_D3D12_EXT_H
/* create_device with the debug layer and driver-reported messages on (ID3D12Debug7, from d12rt/d3d12_ext.h: include
 * it before this header). */
static inline ID3D12Device *create_drm_device(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return NULL;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    return create_device(false);
}
#endif

/* The device's InfoQueue, its debug output muted (the tests read the stored messages). */
static inline ID3D12InfoQueue *info_queue_of(ID3D12Device *device)
{
    ID3D12InfoQueue *queue = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue), S_OK);
    if (queue)
        ID3D12InfoQueue_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

typedef struct {
    D3D12_MESSAGE_SEVERITY severity;
    D3D12_MESSAGE_CATEGORY category;
} message_info;

/* Stored message `i` (malloc'd; the caller frees it), or NULL when it cannot be had. */
static inline D3D12_MESSAGE *stored_message(ID3D12InfoQueue *queue, UINT64 i)
{
    SIZE_T length = 0;
    ID3D12InfoQueue_GetMessage(queue, i, NULL, &length);
    D3D12_MESSAGE *message = malloc(length);
    if (message && FAILED(ID3D12InfoQueue_GetMessage(queue, i, message, &length))) {
        free(message);
        message = NULL;
    }
    return message;
}

/* Stored messages with this ID whose text contains `text` (any when NULL); the last one's severity and category in
 * *info (when not NULL). */
static inline unsigned count_id(ID3D12InfoQueue *queue, D3D12_MESSAGE_ID id, const char *text, message_info *info)
{
    unsigned found = 0;
    UINT64 count = queue ? ID3D12InfoQueue_GetNumStoredMessages(queue) : 0;
    for (UINT64 i = 0; i < count; i++) {
        D3D12_MESSAGE *message = stored_message(queue, i);
        if (message && message->ID == id && (!text || strstr(message->pDescription, text))) {
            found++;
            if (info) {
                info->severity = message->Severity;
                info->category = message->Category;
            }
        }
        free(message);
    }
    return found;
}

/* Every stored message on stderr (ID, severity, text): what a failed message check saw. */
static inline void dump_messages(ID3D12InfoQueue *queue)
{
    UINT64 count = queue ? ID3D12InfoQueue_GetNumStoredMessages(queue) : 0;
    for (UINT64 i = 0; i < count; i++) {
        D3D12_MESSAGE *message = stored_message(queue, i);
        if (message)
            fprintf(stderr, "    message 0x%x (severity %d): %s\n", (unsigned)message->ID, (int)message->Severity,
                    message->pDescription);
        free(message);
    }
}

/* Records the check `what` (at file:line): exactly one stored message with `id` whose text contains `text` (any when
 * NULL); when not, says how many and dumps the stored ones. The InfoQueue is left as it is. */
static inline bool check_one_message(ID3D12InfoQueue *queue, D3D12_MESSAGE_ID id, const char *text, const char *file,
                                     int line, const char *what)
{
    unsigned n = count_id(queue, id, text, NULL);
    if (d12test_record(n == 1, file, line, what))
        return true;
    fprintf(stderr, "    found %u; stored:\n", n);
    dump_messages(queue);
    return false;
}

/* ======== buffers ======== */

static inline D3D12_RESOURCE_DESC buffer_desc(UINT64 width)
{
    D3D12_RESOURCE_DESC desc = {0};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    return desc;
}

/* A committed buffer in the state its heap wants (UPLOAD: GENERIC_READ, else COPY_DEST); what Create returned. */
static inline HRESULT create_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width, ID3D12Resource **out)
{
    D3D12_HEAP_PROPERTIES heap = {0};
    heap.Type = type;
    D3D12_RESOURCE_DESC desc = buffer_desc(width);
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                  : D3D12_RESOURCE_STATE_COPY_DEST;
    return ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                               &IID_ID3D12Resource, (void **)out);
}

/* create_buffer, checked to succeed. */
static inline ID3D12Resource *make_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width)
{
    ID3D12Resource *resource = NULL;
    CHECK_HR(create_buffer(device, type, width, &resource), S_OK);
    return resource;
}

/* ======== events and fences ======== */

/* A non-blocking eventfd: the HANDLE a Linux D3D12 application passes to SetEventOnCompletion. */
static inline int new_event(void)
{
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    CHECK(fd >= 0);
    return fd;
}

static inline HANDLE as_handle(int fd)
{
    return (HANDLE)(intptr_t)fd;
}

/* Whether the eventfd fired within `ms`; the counter it held is returned in *count (when not NULL) and reset. */
static inline bool fired(int fd, int ms, uint64_t *count)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, ms) != 1)
        return false;
    uint64_t value = 0;
    if (read(fd, &value, sizeof value) != sizeof value)
        return false;
    if (count)
        *count = value;
    return true;
}

/* Whether the fence reaches `value` within `ms`, through an eventfd, as a Linux D3D12 application waits. */
static inline bool wait_fence_within(ID3D12Fence *fence, UINT64 value, int ms)
{
    int fd = new_event();
    bool ok = ID3D12Fence_SetEventOnCompletion(fence, value, as_handle(fd)) == S_OK && fired(fd, ms, NULL);
    close(fd);
    /* Reading the completed value, as an application does, is the acquire ThreadSanitizer can see: the runtime
     * fires its own duplicate of the eventfd, and TSan orders eventfd writes and reads by descriptor number. */
    return ok && ID3D12Fence_GetCompletedValue(fence) >= value;
}

/* Wait (up to WAIT_MS) for the fence to reach `value`. */
static inline bool wait_fence(ID3D12Fence *fence, UINT64 value)
{
    return wait_fence_within(fence, value, WAIT_MS);
}

/* ======== a queue with its allocator, list and fence ======== */

typedef struct {
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list; /* open as created */
    ID3D12Fence *fence;
    UINT64 value; /* the last value finish() signalled */
} gpu_context;

/* A queue of `type` with its allocator, its list and a fence at 0, each checked to be created. */
static inline bool make_context(ID3D12Device *device, D3D12_COMMAND_LIST_TYPE type, gpu_context *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    D3D12_COMMAND_QUEUE_DESC desc = {type, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    return CHECK_HR(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&ctx->queue),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandAllocator(device, type, &IID_ID3D12CommandAllocator,
                                                        (void **)&ctx->allocator),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandList(device, 0, type, ctx->allocator, NULL,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&ctx->list),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&ctx->fence),
                    S_OK) &&
           ctx->fence != NULL;
}

/* Release what make_context created, each to 0 (the leak check). */
static inline void release_context(gpu_context *ctx)
{
    if (ctx->list)
        RELEASE_LAST(ctx->list);
    if (ctx->allocator)
        RELEASE_LAST(ctx->allocator);
    if (ctx->queue)
        RELEASE_LAST(ctx->queue);
    if (ctx->fence)
        RELEASE_LAST(ctx->fence);
    memset(ctx, 0, sizeof *ctx);
}

static inline void execute(ID3D12CommandQueue *queue, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
}

/* Signal the context's fence on its queue (next value) and wait for the GPU to reach it. */
static inline bool finish(gpu_context *ctx)
{
    ctx->value++;
    return CHECK_HR(ID3D12CommandQueue_Signal(ctx->queue, ctx->fence, ctx->value), S_OK) &&
           CHECK(wait_fence(ctx->fence, ctx->value));
}

/* finish, and then the fence's completed value is exactly the one signalled. */
static inline bool finish_exact(gpu_context *ctx)
{
    return finish(ctx) && CHECK_HR(ID3D12Fence_GetCompletedValue(ctx->fence), (long long)ctx->value);
}

static inline void transition(ID3D12GraphicsCommandList *list, ID3D12Resource *resource,
                              D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier = {0};
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = resource;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
}

#endif
