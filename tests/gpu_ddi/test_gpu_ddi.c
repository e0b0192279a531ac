/* How the runtime treats a driver that misbehaves in its GPU-work DDI, through libd12rt's public ABI only. The driver
 * is libd12_gpushim.so (gpu_shim_driver.c): the reference driver, misbehaving one way per D12_GPUSHIM_MODE, logging
 * what it saw to the file this program names in D12_GPUSHIM_LOG. `test_gpu_ddi CASE` runs one case; CMake registers
 * each as its own test (gpu_ddi.<case>) with the matching mode. Every case with a device ends with the
 * reference-leak check: each object released to 0, the device last.
 *
 * The rule under test: a broken driver gets the HRESULT the DDI documents (DXGI_ERROR_DRIVER_INTERNAL_ERROR for a
 * broken DDI contract, the driver's own failure code passed through) and one `d12rt: driver <path>: ...` line on
 * stderr where the runtime prints one; nothing reaches the application's InfoQueue except where the runtime removes
 * the device (DRIVER_FENCE_OPERATION_MISMATCH, DEVICE_REMOVED). Each negative case has its positive: `good`, the
 * same shim passing everything through. */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <fcntl.h>
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
#include <d12rt/d3d12_ext.h>

#include "gpu_harness.h"

/* The runtime's own message IDs (spec/messages.yaml, project range). */
#define MSG_DEVICE_REMOVED ((D3D12_MESSAGE_ID)0x10006)
#define MSG_GPU_WORK_UNSUPPORTED ((D3D12_MESSAGE_ID)0x1000E)
#define MSG_COMMAND_LIST_RECORDING_ERROR ((D3D12_MESSAGE_ID)0x10011)
#define MSG_DRIVER_FENCE_OPERATION_MISMATCH ((D3D12_MESSAGE_ID)0x10013)

#define COPY_SIZE 256
#define BOGUS_DELTA 1000 /* gpu_shim_driver.c's SHIM_BOGUS_VALUE_DELTA */

static char g_log_path[64];

static const char *driver_path(void)
{
    const char *path = getenv("D12RT_DRIVER");
    return path ? path : "";
}

/* ======== stderr capture ======== */

typedef struct {
    int saved;
    int fd;
    char path[64];
} capture;

static void capture_begin(capture *c)
{
    fflush(stderr);
    snprintf(c->path, sizeof c->path, "/tmp/d12_gpuddi_err_XXXXXX");
    c->fd = mkstemp(c->path);
    c->saved = dup(2);
    if (c->fd >= 0)
        dup2(c->fd, 2);
}

/* Restores fd 2 and returns what was written to it (malloc'd, NUL-terminated), echoing it for the ctest log. */
static char *capture_end(capture *c)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    char *text = calloc(1, 65536);
    if (c->fd >= 0 && text) {
        ssize_t n = pread(c->fd, text, 65535, 0);
        text[n > 0 ? n : 0] = 0;
        close(c->fd);
        unlink(c->path);
    }
    if (text && *text)
        fprintf(stderr, "[captured stderr]\n%s[end of captured stderr]\n", text);
    return text;
}

/* Lines of `text` that begin with `prefix`; the last such line copied into `line` (when not NULL). */
static unsigned lines_starting(const char *text, const char *prefix, char *line, size_t size)
{
    unsigned found = 0;
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            found++;
            if (line && size) {
                size_t n = length < size - 1 ? length : size - 1;
                memcpy(line, p, n);
                line[n] = 0;
            }
        }
        p = end ? end + 1 : NULL;
    }
    return found;
}

/* Exactly one line from the runtime (`d12rt: `), and it is `d12rt: driver <path>: ...<problem>...`. */
static void expect_one_driver_line(const char *text, const char *problem)
{
    char line[1024] = "", prefix[600];
    CHECK_EQ_INT(lines_starting(text, "d12rt: ", NULL, 0), 1);
    snprintf(prefix, sizeof prefix, "d12rt: driver %s: ", driver_path());
    CHECK_EQ_INT(lines_starting(text, prefix, line, sizeof line), 1);
    if (!CHECK(strstr(line, problem) != NULL))
        fprintf(stderr, "    line \"%s\" does not say \"%s\"\n", line, problem);
}

/* ======== the shim's log ======== */

static char *read_log(void)
{
    FILE *file = fopen(g_log_path, "r");
    char *text = calloc(1, 1 << 20);
    if (file && text) {
        size_t n = fread(text, 1, (1 << 20) - 1, file);
        text[n] = 0;
    }
    if (file)
        fclose(file);
    return text;
}

/* Log lines that begin with `prefix`. */
static unsigned log_count(const char *prefix)
{
    char *text = read_log();
    unsigned n = lines_starting(text, prefix, NULL, 0);
    free(text);
    return n;
}

/* Wait (up to WAIT_MS) for `count` log lines beginning with `prefix`; the number there is then. */
static unsigned log_wait(const char *prefix, unsigned count)
{
    unsigned n = 0;
    for (int waited = 0; waited < WAIT_MS && (n = log_count(prefix)) < count; waited += 2)
        sleep_ms(2);
    return n;
}

static void check_log(const char *prefix, unsigned count, const char *file, int line)
{
    char what[256];
    unsigned n = log_count(prefix);
    snprintf(what, sizeof what, "%u log lines \"%s...\"", count, prefix);
    if (!d12test_record(n == count, file, line, what)) {
        char *all = read_log();
        fprintf(stderr, "    found %u; the shim's log:\n%s", n, all ? all : "");
        free(all);
    }
}
#define CHECK_LOG(prefix, count) check_log((prefix), (count), __FILE__, __LINE__)

/* ======== devices, messages, objects ======== */

/* Stored messages of severity ERROR or CORRUPTION. */
static unsigned count_severe(ID3D12InfoQueue *queue)
{
    unsigned found = 0;
    UINT64 count = queue ? ID3D12InfoQueue_GetNumStoredMessages(queue) : 0;
    for (UINT64 i = 0; i < count; i++) {
        D3D12_MESSAGE *message = stored_message(queue, i);
        if (message && message->Severity <= D3D12_MESSAGE_SEVERITY_ERROR)
            found++;
        free(message);
    }
    return found;
}

/* Exactly one message with `id` whose text contains `text`. */
#define EXPECT_MSG(iq, id, text) check_one_message((iq), (id), (text), __FILE__, __LINE__, "one message " #id " " #text)

/* The InfoQueue holds nothing at all (a broken driver's failure is not the application's error). */
#define EXPECT_NO_MESSAGES(iq)                                                                                  \
    do {                                                                                                        \
        UINT64 n_ = (iq) ? ID3D12InfoQueue_GetNumStoredMessages(iq) : 0;                                        \
        if (!d12test_record(n_ == 0, __FILE__, __LINE__, "no message in the InfoQueue"))                        \
            dump_messages(iq);                                                                                  \
    } while (0)

#define EXPECT_NO_SEVERE(iq)                                                                                    \
    do {                                                                                                        \
        if (!d12test_record(count_severe(iq) == 0, __FILE__, __LINE__, "no ERROR/CORRUPTION message"))          \
            dump_messages(iq);                                                                                  \
    } while (0)

/* The device's reference count now (AddRef + Release). */
static ULONG refcount(ID3D12Device *device)
{
    ID3D12Device_AddRef(device);
    return ID3D12Device_Release(device);
}

/* Poll GetDeviceRemovedReason until it is not S_OK (up to WAIT_MS); the reason. */
static HRESULT wait_removed(ID3D12Device *device)
{
    HRESULT reason = S_OK;
    for (int waited = 0; waited < WAIT_MS && (reason = ID3D12Device_GetDeviceRemovedReason(device)) == S_OK;
         waited += 2)
        sleep_ms(2);
    return reason;
}

static ID3D12Fence *make_fence(ID3D12Device *device)
{
    ID3D12Fence *fence = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    return fence;
}

static HRESULT create_queue(ID3D12Device *device, ID3D12CommandQueue **out)
{
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    return ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)out);
}

static HRESULT create_allocator(ID3D12Device *device, ID3D12CommandAllocator **out)
{
    return ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                               (void **)out);
}

static HRESULT create_list(ID3D12Device *device, ID3D12CommandAllocator *allocator, ID3D12GraphicsCommandList **out)
{
    return ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                          &IID_ID3D12GraphicsCommandList, (void **)out);
}

/* A CPU fence works: Signal, GetCompletedValue, an event at a reached value and at one reached later. */
static void check_cpu_fence(ID3D12Device *device)
{
    ID3D12Fence *fence = make_fence(device);
    if (!fence)
        return;
    CHECK_HR(ID3D12Fence_Signal(fence, 7), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fence), 7);
    int fd = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, 5, as_handle(fd)), S_OK);
    CHECK(fired(fd, WAIT_MS, NULL));
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(fence, 9, as_handle(fd)), S_OK);
    CHECK(!fired(fd, 50, NULL));
    CHECK_HR(ID3D12Fence_Signal(fence, 9), S_OK);
    CHECK(fired(fd, WAIT_MS, NULL));
    close(fd);
    RELEASE_LAST(fence);
}

/* ======== good: the shim passes everything through (the positive case of every rule below) ======== */

static void test_good(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
    ID3D12Resource *def = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, COPY_SIZE);
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, COPY_SIZE);
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) || !upload || !def || !readback)
        return;
    CHECK_LOG("create_queue hr=0x00000000", 1);
    CHECK_LOG("create_list hr=0x00000000", 1);

    unsigned char *data = NULL, expected[COPY_SIZE], got[COPY_SIZE];
    CHECK_HR(ID3D12Resource_Map(upload, 0, NULL, (void **)&data), S_OK);
    for (int i = 0; data && i < COPY_SIZE; i++)
        data[i] = expected[i] = (unsigned char)(3 + i * 7);
    ID3D12Resource_Unmap(upload, 0, NULL);

    /* A draw through the shim's pfnDrawInstanced (it reports nothing in this mode), then a copy round trip. */
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, def, upload);
    transition(ctx.list, def, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, readback, def);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_LOG("execute count=1", 1);
    finish_exact(&ctx);
    CHECK(log_wait("signal value=1 hr=0x00000000", 1) == 1);
    memset(got, 0, sizeof got);
    CHECK_HR(ID3D12Resource_Map(readback, 0, NULL, (void **)&data), S_OK);
    if (data) {
        memcpy(got, data, COPY_SIZE);
        ID3D12Resource_Unmap(readback, 0, NULL);
    }
    CHECK(memcmp(got, expected, COPY_SIZE) == 0);

    /* A GPU-side wait passed back through the shim's pfnWaitForFenceFromGpuCb, satisfied. */
    ID3D12Fence *gate = make_fence(device);
    if (gate) {
        CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, gate, 1), S_OK);
        CHECK_HR(ID3D12Fence_Signal(gate, 1), S_OK);
        finish_exact(&ctx);
        CHECK(log_wait("wait value=1 hr=0x00000000", 1) == 1);
        RELEASE_LAST(gate);
    }
    CHECK(log_wait("signal value=2 hr=0x00000000", 1) == 1);
    CHECK_LOG("list_error", 0);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    EXPECT_NO_SEVERE(iq);

    RELEASE_LAST(upload);
    RELEASE_LAST(def);
    RELEASE_LAST(readback);
    release_context(&ctx);
    CHECK_LOG("destroy_queue", 1);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== pre_0127: a driver built against the 0126 header (the shim lists versions up to 0126) ======== */

/* It loads and works without build 0127's additions: a copy from a released buffer is skipped and the device lives
 * (the driver has no pfnDeviceFaultCb to report it through); a 90 ms draw under D12RT_TDR_DELAY_MS=50 (CMake) is no
 * hang, since such a driver reports no progress and the watchdog does not watch it (docs/dred-gpu.md). */
static void test_pre_0127(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
    ID3D12Resource *doomed = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
    ID3D12Resource *skipped = make_buffer(device, D3D12_HEAP_TYPE_READBACK, COPY_SIZE);
    ID3D12Resource *landed = make_buffer(device, D3D12_HEAP_TYPE_READBACK, COPY_SIZE);
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) || !upload || !doomed || !skipped || !landed)
        return;
    unsigned char *data = NULL;
    CHECK_HR(ID3D12Resource_Map(upload, 0, NULL, (void **)&data), S_OK);
    if (data)
        memset(data, 0x42, COPY_SIZE);
    ID3D12Resource_Unmap(upload, 0, NULL);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, skipped, 0, doomed, 0, 16);
    RELEASE_LAST(doomed);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 30000000u, 0, 0); /* 90 ms at 1 ns a vertex instance */
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, landed, 0, upload, 0, 16);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    execute(ctx.queue, ctx.list);
    finish_exact(&ctx);
    clock_gettime(CLOCK_MONOTONIC, &end);
    CHECK((end.tv_sec - start.tv_sec) * 1000 + (end.tv_nsec - start.tv_nsec) / 1000000 >= 85);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    unsigned char got[2] = {0, 0};
    CHECK_HR(ID3D12Resource_Map(skipped, 0, NULL, (void **)&data), S_OK);
    if (data)
        got[0] = data[0];
    ID3D12Resource_Unmap(skipped, 0, NULL);
    CHECK_HR(ID3D12Resource_Map(landed, 0, NULL, (void **)&data), S_OK);
    if (data)
        got[1] = data[0];
    ID3D12Resource_Unmap(landed, 0, NULL);
    CHECK_EQ_INT(got[0], 0);
    CHECK_EQ_INT(got[1], 0x42);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, NULL, NULL), 0);
    RELEASE_LAST(upload);
    RELEASE_LAST(skipped);
    RELEASE_LAST(landed);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== build 0127: a driver misusing pfnDeviceFaultCb and pfnReportGpuProgressCb ======== */

/* Submit one empty list: the shim's pfnExecuteCommandLists calls the runtime's 0127 callbacks (its mode says how). */
static bool submit_one(ID3D12Device *device, gpu_context *ctx)
{
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, ctx))
        return false;
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    return true;
}

static void expect_removed(ID3D12Device *device, ID3D12InfoQueue *iq, HRESULT reason, const char *name,
                           const char *why)
{
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), reason);
    char text[256];
    snprintf(text, sizeof text, "Device removal has been triggered for the following reason (%s: ", name);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT, text, NULL), 1);
    if (!CHECK_EQ_INT_RET(count_id(iq, MSG_DEVICE_REMOVED, why, NULL), 1))
        dump_messages(iq);
}

/* An execution state that is no fault (ERROR_OUTOFMEMORY) is a broken driver: DXGI_ERROR_DRIVER_INTERNAL_ERROR. */
static void test_fault_bogus_state(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !submit_one(device, &ctx))
        return;
    CHECK_LOG("fault state=5", 1);
    expect_removed(device, iq, DXGI_ERROR_DRIVER_INTERNAL_ERROR, "DXGI_ERROR_DRIVER_INTERNAL_ERROR",
                   "an execution state that is no fault");
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* The positive: a page fault naming a queue and a list that are not the device's still removes it with
 * DXGI_ERROR_DEVICE_HUNG (the handles are looked up, never followed). */
static void test_fault_bogus_handles(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !submit_one(device, &ctx))
        return;
    CHECK_LOG("fault state=7", 1);
    expect_removed(device, iq, DXGI_ERROR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", "the GPU page-faulted");
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* A queue that is none of the device's, or a Progress that is none of the three: E_INVALIDARG, nothing removed; a
 * valid report: S_OK. */
static void test_progress_bogus(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !submit_one(device, &ctx))
        return;
    CHECK_LOG("progress case=unknown_queue hr=0x80070057", 1);
    CHECK_LOG("progress case=unknown_progress hr=0x80070057", 1);
    CHECK_LOG("progress case=valid hr=0x00000000", 1);
    finish_exact(&ctx);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== no_gpu: a driver without the GPU-work tables ======== */

static void expect_unsupported(ID3D12InfoQueue *iq, const char *method)
{
    char text[700];
    snprintf(text, sizeof text, "%s: the driver %s offers no GPU-work tables", method, driver_path());
    message_info info = {0};
    unsigned n = count_id(iq, MSG_GPU_WORK_UNSUPPORTED, text, &info);
    if (!CHECK_HR(n, 1)) {
        fprintf(stderr, "    expected \"%s\"; stored:\n", text);
        dump_messages(iq);
    }
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    ID3D12InfoQueue_ClearStoredMessages(iq);
}

static void test_no_gpu(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12InfoQueue_ClearStoredMessages(iq);

    ID3D12CommandQueue *queue = (void *)1;
    CHECK_HR(create_queue(device, &queue), DXGI_ERROR_UNSUPPORTED);
    CHECK(queue == NULL);
    expect_unsupported(iq, "ID3D12Device::CreateCommandQueue");

    ID3D12CommandAllocator *allocator = (void *)1;
    CHECK_HR(create_allocator(device, &allocator), DXGI_ERROR_UNSUPPORTED);
    CHECK(allocator == NULL);
    expect_unsupported(iq, "ID3D12Device::CreateCommandAllocator");

    ID3D12GraphicsCommandList *list = (void *)1;
    CHECK_HR(create_list(device, NULL, &list), DXGI_ERROR_UNSUPPORTED);
    CHECK(list == NULL);
    expect_unsupported(iq, "ID3D12Device::CreateCommandList");

    ID3D12Resource *buffer = (void *)1;
    CHECK_HR(create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256, &buffer), DXGI_ERROR_UNSUPPORTED);
    CHECK(buffer == NULL);
    expect_unsupported(iq, "ID3D12Device::CreateCommittedResource");

    /* Fences are the runtime's: they work without GPU work. */
    check_cpu_fence(device);
    EXPECT_NO_MESSAGES(iq);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK_LOG("create_queue", 0);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== A broken GPU-work table at adapter init: no device ======== */

static void adapter_init_fails(const char *problem)
{
    enable_debug_layer();
    /* NULL going in: D3D12CreateDevice, unlike the Create* methods, leaves *ppDevice alone when it fails (nothing
     * documents either way for D3D12CreateDevice), so only "no device came out" is asserted. */
    ID3D12Device *device = NULL;
    capture c;
    capture_begin(&c);
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    char *text = capture_end(&c);
    CHECK_HR(hr, DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    CHECK(device == NULL);
    expect_one_driver_line(text ? text : "", problem);
    free(text);
    /* The adapter stays broken: a second attempt fails the same way. */
    CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device),
             DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    CHECK(device == NULL);
    CHECK_LOG("create_queue", 0);
}

static void test_partial_gpu(void)
{
    adapter_init_fails("it offers 1 of the three GPU-work tables");
}

/* The compute tables come as a pair (docs/pipelines.md): the pipeline table alone is a broken driver. */
static void test_compute_alone(void)
{
    adapter_init_fails("it offers D12RT_PIPELINES without D12RT_COMMAND_LIST_BINDING; a driver offers both compute "
                       "tables or neither");
}

static void test_gpu_null_slot(void)
{
    adapter_init_fails("the COMMAND_LIST_3D table has a NULL slot");
}

static void test_gpu_fill_fails(void)
{
    adapter_init_fails("pfnFillDDITable(COMMAND_QUEUE_3D) failed (0x80004005) though the table is offered");
}

/* ======== pfnCalcPrivate*Size out of range: that creation fails, the device stays ======== */

typedef enum { OBJECT_QUEUE, OBJECT_ALLOCATOR, OBJECT_LIST, OBJECT_RESOURCE } object_kind;

static HRESULT create_broken(ID3D12Device *device, object_kind kind, ID3D12CommandAllocator *allocator, void **out)
{
    switch (kind) {
    case OBJECT_QUEUE: return create_queue(device, (ID3D12CommandQueue **)out);
    case OBJECT_ALLOCATOR: return create_allocator(device, (ID3D12CommandAllocator **)out);
    case OBJECT_LIST: return create_list(device, allocator, (ID3D12GraphicsCommandList **)out);
    default: return create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE, (ID3D12Resource **)out);
    }
}

static void private_size_rejected(object_kind kind, const char *problem, const char *constructor_log)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12CommandAllocator *allocator = NULL;
    if (kind == OBJECT_LIST)
        CHECK_HR(create_allocator(device, &allocator), S_OK);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    ULONG refs = refcount(device);

    for (int attempt = 0; attempt < 2; attempt++) {
        void *object = (void *)1;
        capture c;
        capture_begin(&c);
        HRESULT hr = create_broken(device, kind, allocator, &object);
        char *text = capture_end(&c);
        CHECK_HR(hr, DXGI_ERROR_DRIVER_INTERNAL_ERROR);
        CHECK(object == NULL);
        expect_one_driver_line(text ? text : "", problem);
        free(text);
    }
    /* A failed CreateCommandList let go of its allocator: nothing records into it. */
    if (allocator)
        CHECK_HR(ID3D12CommandAllocator_Reset(allocator), S_OK);
    /* The driver's constructor was never called with memory the runtime refused to allocate. */
    if (constructor_log)
        CHECK_LOG(constructor_log, 0);
    /* Nothing half-made keeps a reference on the device; nothing reaches the InfoQueue; the device stays. */
    CHECK_EQ_INT(refcount(device), refs);
    EXPECT_NO_MESSAGES(iq);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);

    /* The other objects still work. */
    ID3D12CommandQueue *queue = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = make_fence(device);
    if (kind != OBJECT_QUEUE)
        CHECK_HR(create_queue(device, &queue), S_OK);
    if (kind != OBJECT_ALLOCATOR && kind != OBJECT_LIST)
        CHECK_HR(create_allocator(device, &allocator), S_OK);
    if (kind != OBJECT_LIST && allocator)
        CHECK_HR(create_list(device, allocator, &list), S_OK);
    if (kind != OBJECT_RESOURCE) {
        ID3D12Resource *buffer = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, COPY_SIZE);
        void *data = NULL;
        if (buffer) {
            CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, &data), S_OK);
            CHECK(data != NULL);
            ID3D12Resource_Unmap(buffer, 0, NULL);
            RELEASE_LAST(buffer);
        }
    }
    if (list) {
        CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK);
        if (queue)
            execute(queue, list);
    }
    if (queue && fence) {
        CHECK_HR(ID3D12CommandQueue_Signal(queue, fence, 1), S_OK);
        CHECK(wait_fence(fence, 1));
    }
    check_cpu_fence(device);
    EXPECT_NO_SEVERE(iq);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);

    if (list)
        RELEASE_LAST(list);
    if (allocator)
        RELEASE_LAST(allocator);
    if (queue)
        RELEASE_LAST(queue);
    if (fence)
        RELEASE_LAST(fence);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_queue_zero_size(void)
{
    private_size_rejected(OBJECT_QUEUE, "pfnCalcPrivateCommandQueueSize returned 0 (accepted: 1 to", "create_queue");
}

static void test_queue_absurd_size(void)
{
    char problem[128];
    snprintf(problem, sizeof problem, "pfnCalcPrivateCommandQueueSize returned %zu (accepted: 1 to",
             (size_t)SIZE_MAX / 2);
    private_size_rejected(OBJECT_QUEUE, problem, "create_queue");
}

static void test_queue_over_max_size(void)
{
    char problem[128];
    snprintf(problem, sizeof problem, "pfnCalcPrivateCommandQueueSize returned %zu (accepted: 1 to %zu)",
             (size_t)(64u << 20) + 1, (size_t)64u << 20);
    private_size_rejected(OBJECT_QUEUE, problem, "create_queue");
}

/* The positive boundary: the most the runtime accepts is accepted, and the queue works. */
static void test_queue_max_size(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    capture c;
    capture_begin(&c);
    bool made = make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx);
    char *text = capture_end(&c);
    CHECK_EQ_INT(lines_starting(text ? text : "", "d12rt: ", NULL, 0), 0);
    free(text);
    if (!made)
        return;
    CHECK_LOG("create_queue hr=0x00000000", 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    finish_exact(&ctx);
    EXPECT_NO_SEVERE(iq);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_allocator_zero_size(void)
{
    private_size_rejected(OBJECT_ALLOCATOR, "pfnCalcPrivateCommandAllocatorSize returned 0 (accepted: 1 to", NULL);
}

static void test_list_zero_size(void)
{
    private_size_rejected(OBJECT_LIST, "pfnCalcPrivateCommandListSize returned 0 (accepted: 1 to", "create_list");
}

static void test_list_absurd_size(void)
{
    char problem[128];
    snprintf(problem, sizeof problem, "pfnCalcPrivateCommandListSize returned %zu (accepted: 1 to",
             (size_t)SIZE_MAX / 2);
    private_size_rejected(OBJECT_LIST, problem, "create_list");
}

static void test_resource_zero_size(void)
{
    private_size_rejected(OBJECT_RESOURCE, "pfnCalcPrivateResourceSize returned 0 (accepted: 1 to", NULL);
}

/* ======== queue_create_fails: the driver's own failure code comes back, nothing leaks ======== */

static void test_queue_create_fails(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    ULONG refs = refcount(device);
    for (int attempt = 0; attempt < 3; attempt++) {
        ID3D12CommandQueue *queue = (void *)1;
        capture c;
        capture_begin(&c);
        HRESULT hr = create_queue(device, &queue);
        char *text = capture_end(&c);
        CHECK_HR(hr, E_OUTOFMEMORY);
        CHECK(queue == NULL);
        /* The driver's code passed through: not a broken driver, so no `d12rt: driver` line. */
        CHECK_EQ_INT(lines_starting(text ? text : "", "d12rt: ", NULL, 0), 0);
        free(text);
    }
    CHECK_LOG("create_queue hr=0x8007000E", 3);
    CHECK_LOG("destroy_queue", 0); /* a queue the driver never constructed is never destructed */
    CHECK_EQ_INT(refcount(device), refs);
    EXPECT_NO_MESSAGES(iq);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);

    /* The rest still works. */
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_HR(create_allocator(device, &allocator), S_OK);
    if (allocator) {
        CHECK_HR(create_list(device, allocator, &list), S_OK);
        if (list) {
            CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK);
            RELEASE_LAST(list);
        }
        RELEASE_LAST(allocator);
    }
    check_cpu_fence(device);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== Fence operations the queue never submitted: the device is removed ======== */

/* After the broken pass-back: removed with DXGI_ERROR_DRIVER_INTERNAL_ERROR, one DRIVER_FENCE_OPERATION_MISMATCH
 * (CORRUPTION, EXECUTION) naming the driver, the operation and the value passed back, one DEVICE_REMOVED; the fence
 * reads UINT64_MAX (removed), never the bogus value; the callback returned E_INVALIDARG to the driver. */
static void expect_mismatch_removal(ID3D12Device *device, ID3D12InfoQueue *iq, ID3D12Fence *fence,
                                    const char *operation, unsigned long long value, const char *log_line)
{
    CHECK_HR(wait_removed(device), DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    CHECK(log_wait(log_line, 1) == 1);
    char text[800];
    snprintf(text, sizeof text, "the driver %s passed back a fence operation (%s, value %llu)", driver_path(),
             operation, value);
    message_info info = {0};
    unsigned n = count_id(iq, MSG_DRIVER_FENCE_OPERATION_MISMATCH, text, &info);
    if (!CHECK_HR(n, 1)) {
        fprintf(stderr, "    expected \"%s\"; stored:\n", text);
        dump_messages(iq);
    }
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_CORRUPTION);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_EXECUTION);
    CHECK_EQ_INT(count_id(iq, MSG_DRIVER_FENCE_OPERATION_MISMATCH, NULL, NULL), 1);
    EXPECT_MSG(iq, MSG_DEVICE_REMOVED, "0x887a0020");
    CHECK(ID3D12Fence_GetCompletedValue(fence) == UINT64_MAX);
    /* Removed: no new work, no new objects. */
    ID3D12CommandQueue *queue = (void *)1;
    CHECK_HR(create_queue(device, &queue), DXGI_ERROR_DEVICE_REMOVED);
    CHECK(queue == NULL);
}

static void bogus_pass_back(const char *operation, unsigned long long value, const char *log_line)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12CommandQueue *queue = NULL;
    ID3D12Fence *fence = make_fence(device);
    if (!CHECK_HR(create_queue(device, &queue), S_OK) || !fence)
        return;
    ID3D12InfoQueue_ClearStoredMessages(iq);
    if (strcmp(operation, "Wait") == 0)
        CHECK_HR(ID3D12CommandQueue_Wait(queue, fence, 5), S_OK);
    else
        CHECK_HR(ID3D12CommandQueue_Signal(queue, fence, 5), S_OK);
    expect_mismatch_removal(device, iq, fence, operation, value, log_line);
    CHECK_HR(ID3D12CommandQueue_Signal(queue, fence, 6), DXGI_ERROR_DEVICE_REMOVED);
    RELEASE_LAST(queue);
    RELEASE_LAST(fence);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_bogus_signal_value(void)
{
    bogus_pass_back("Signal", 5 + BOGUS_DELTA, "signal value=1005 hr=0x80070057");
}

static void test_bogus_signal_fence(void)
{
    bogus_pass_back("Signal", 5, "signal value=5 hr=0x80070057");
}

static void test_bogus_signal_queue(void)
{
    bogus_pass_back("Signal", 5, "signal value=5 hr=0x80070057");
}

static void test_bogus_wait_value(void)
{
    /* The runtime answers at once (it does not block the timeline on a wait it never submitted). */
    bogus_pass_back("Wait", 5 + BOGUS_DELTA, "wait value=1005 hr=0x80070057");
}

/* The driver passes one signal back twice: the first sets the fence, the second removes the device. */
static void test_signal_twice(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12CommandQueue *queue = NULL;
    ID3D12Fence *fence = make_fence(device);
    if (!CHECK_HR(create_queue(device, &queue), S_OK) || !fence)
        return;
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_HR(ID3D12CommandQueue_Signal(queue, fence, 5), S_OK);
    CHECK(log_wait("signal value=5 hr=0x00000000", 1) == 1);
    expect_mismatch_removal(device, iq, fence, "Signal", 5, "signal value=5 hr=0x80070057");
    CHECK_LOG("signal value=5 hr=0x00000000", 1);
    RELEASE_LAST(queue);
    RELEASE_LAST(fence);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== pfnSetCommandListErrorCb ======== */

/* E_OUTOFMEMORY / E_INVALIDARG: a recording error. Close returns it, executing the list submits nothing, the device
 * stays, Reset clears it. */
static void recording_error(HRESULT code, const char *log_line, const char *code_text)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12InfoQueue_ClearStoredMessages(iq);

    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_LOG(log_line, 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), code);
    EXPECT_MSG(iq, MSG_COMMAND_LIST_RECORDING_ERROR, code_text);
    execute(ctx.queue, ctx.list);
    EXPECT_MSG(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, code_text);
    CHECK_LOG("execute", 0); /* nothing reached the driver */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    finish_exact(&ctx); /* the queue still runs */

    /* Reset clears the error: the next recording closes S_OK and is submitted. */
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_LOG("execute count=1", 1);
    finish_exact(&ctx);
    EXPECT_NO_SEVERE(iq);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_list_error_oom(void)
{
    recording_error(E_OUTOFMEMORY, "list_error kind=list hr=0x8007000E", "0x8007000e");
}

static void test_list_error_invalidarg(void)
{
    recording_error(E_INVALIDARG, "list_error kind=list hr=0x80070057", "0x80070057");
}

/* Any other code: the device is removed with DXGI_ERROR_DRIVER_INTERNAL_ERROR. */
static void test_list_error_critical(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12InfoQueue_ClearStoredMessages(iq);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_LOG("list_error kind=list hr=0x80004005", 1);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    EXPECT_MSG(iq, MSG_DEVICE_REMOVED, "not a recording error");
    EXPECT_MSG(iq, MSG_DEVICE_REMOVED, "0x887a0020");
    CHECK(ID3D12Fence_GetCompletedValue(ctx.fence) == UINT64_MAX);
    ID3D12CommandAllocator *allocator = (void *)1;
    CHECK_HR(create_allocator(device, &allocator), DXGI_ERROR_DEVICE_REMOVED);
    CHECK(allocator == NULL);
    ID3D12GraphicsCommandList_Close(ctx.list); /* whatever it returns, the list can be released */
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* A handle that is no live command list (NULL, a stack address, the device's and a queue's runtime handles, a
 * destroyed list's) with `hr` (logged as `hr_text`): ignored, whatever hr is. The callback names no device (the
 * WDK's signature), so an unknown handle has no device to remove. */
static void bogus_handle_errors(const char *hr_text)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ID3D12CommandAllocator *other = NULL;
    ID3D12GraphicsCommandList *destroyed = NULL;
    /* The destroyed list is released after the real one exists, so its address cannot be the real one's. */
    if (!CHECK_HR(create_queue(device, &ctx.queue), S_OK) || !CHECK_HR(create_allocator(device, &other), S_OK) ||
        !CHECK_HR(create_list(device, other, &destroyed), S_OK) ||
        !CHECK_HR(create_allocator(device, &ctx.allocator), S_OK) ||
        !CHECK_HR(create_list(device, ctx.allocator, &ctx.list), S_OK) || !(ctx.fence = make_fence(device)))
        return;
    CHECK_HR(ID3D12GraphicsCommandList_Close(destroyed), S_OK);
    RELEASE_LAST(destroyed);
    RELEASE_LAST(other);
    ID3D12InfoQueue_ClearStoredMessages(iq);

    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    static const char *const kinds[] = {"null", "stack", "device", "queue", "destroyed_list"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "list_error kind=%s hr=%s", kinds[i], hr_text);
        CHECK_LOG(line, 1);
    }
    CHECK_LOG("list_error kind=list", 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_EQ_INT(count_id(iq, MSG_COMMAND_LIST_RECORDING_ERROR, NULL, NULL), 0);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_LOG("execute count=1", 1);
    finish_exact(&ctx);
    EXPECT_NO_MESSAGES(iq);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_list_error_bogus_handle(void)
{
    bogus_handle_errors("0x8007000E");
}

/* Found by this test and fixed: E_FAIL for a handle that is no live list removed the device. */
static void test_list_error_critical_bogus_handle(void)
{
    bogus_handle_errors("0x80004005");
}

#if defined(__SANITIZE_ADDRESS__)
#define ADDRESSES_REUSED 0 /* ASan quarantines freed memory: a new object never gets a released one's address */
#else
#define ADDRESSES_REUSED 1
#endif

/* Issue: only hRTDevice was generation-checked; a queue's or list's runtime handle was its address, looked up by
 * value, so once a list was released and a new list created at the same address, the old handle named the new list:
 * its identity came back as the new list's, and E_FAIL for it removed the device. The handles are serials now
 * (runtime/rthandle.h): every destroyed list's and queue's handle is E_INVALIDARG in pfnQueryObjectIdentityCb and
 * ignored by pfnSetCommandListErrorCb, a released fence's is E_INVALIDARG too, nothing reaches the InfoQueue, the
 * live list's own handle still resolves.
 * The test makes sure (outside ASan) that the live list, queue and fence really sit at released ones' addresses. */
static void test_stale_handles(void) /* D12_GPUSHIM_MODE=stale_handles */
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    memset(&ctx, 0, sizeof ctx);
    if (!CHECK_HR(create_allocator(device, &ctx.allocator), S_OK))
        return;
    /* Queues released until a new one sits at a released one's address. glibc's calloc does not take from the
     * thread cache, so that happens once the cache's 7 chunks of the size are full: within 24 tries. */
    enum { TRIES = 24 };
    void *released_queues[TRIES];
    unsigned released_queue_count = 0;
    bool queue_reused = false;
    while (!ctx.queue && released_queue_count < TRIES) {
        ID3D12CommandQueue *queue = NULL;
        if (!CHECK_HR(create_queue(device, &queue), S_OK))
            return;
        for (unsigned i = 0; i < released_queue_count; i++)
            queue_reused |= (void *)queue == released_queues[i];
        if (queue_reused || (!ADDRESSES_REUSED && released_queue_count == 2)) {
            ctx.queue = queue;
            break;
        }
        released_queues[released_queue_count++] = queue;
        RELEASE_LAST(queue);
    }
    if (!CHECK(ctx.queue != NULL) || (ADDRESSES_REUSED && !CHECK(queue_reused)))
        return;
    /* Fences likewise, each signalled once from the queue first (so the driver has seen its handle); the live one is
     * not signalled before the draw, so every fence the driver saw by then is released. */
    void *released_fences[TRIES];
    unsigned released_fence_count = 0;
    bool fence_reused = false;
    while (!ctx.fence && released_fence_count < TRIES) {
        ID3D12Fence *fence = make_fence(device);
        if (!CHECK(fence != NULL))
            return;
        for (unsigned i = 0; i < released_fence_count; i++)
            fence_reused |= (void *)fence == released_fences[i];
        if (fence_reused || (!ADDRESSES_REUSED && released_fence_count == 2)) {
            ctx.fence = fence;
            break;
        }
        CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, fence, 1), S_OK);
        CHECK(wait_fence(fence, 1));
        released_fences[released_fence_count++] = fence;
        RELEASE_LAST(fence);
    }
    if (!CHECK(ctx.fence != NULL) || (ADDRESSES_REUSED && !CHECK(fence_reused)))
        return;
    /* Lists likewise. */
    void *released[TRIES];
    unsigned released_count = 0;
    bool reused = false;
    while (!reused && released_count < TRIES) {
        ID3D12GraphicsCommandList *list = NULL;
        if (!CHECK_HR(create_list(device, ctx.allocator, &list), S_OK))
            return;
        for (unsigned i = 0; i < released_count; i++)
            reused |= (void *)list == released[i];
        if (reused || (!ADDRESSES_REUSED && released_count == 2)) {
            ctx.list = list;
            break;
        }
        CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK);
        released[released_count++] = list;
        RELEASE_LAST(list);
        CHECK_HR(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
    }
    if (!CHECK(ctx.list != NULL) || (ADDRESSES_REUSED && !CHECK(reused)))
        return;
    CHECK_HR(ID3D12GraphicsCommandList_SetName(ctx.list, L"live"), S_OK);
    ID3D12InfoQueue_ClearStoredMessages(iq);

    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    char line[128];
    snprintf(line, sizeof line, "identity kind=list hr=0x00000000 text=0x%016llX:'live'",
             (unsigned long long)(uintptr_t)ctx.list);
    CHECK_LOG(line, 1);
    CHECK_LOG("identity kind=stale_list hr=0x80070057", released_count);
    CHECK_LOG("identity kind=stale_list hr=0x0", 0);
    CHECK_LOG("identity kind=stale_queue hr=0x80070057", released_queue_count);
    CHECK_LOG("identity kind=stale_queue hr=0x0", 0);
    CHECK_LOG("identity kind=seen_fence hr=0x80070057", released_fence_count);
    CHECK_LOG("identity kind=seen_fence hr=0x0", 0);
    CHECK_LOG("list_error kind=stale_list hr=0x80004005", released_count);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    finish_exact(&ctx);
    EXPECT_NO_MESSAGES(iq);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* Two live devices (D3D12CreateDevice makes a new one once the first is removed): an error reaches the device whose
 * list it names, not the device created last. E_FAIL for the first (removed) device's list leaves the second alone;
 * for the second's list it removes the second. Before the WDK's signature, the shim passed the last device created
 * and the first device's list error removed the second device. */
static void test_list_error_two_devices(void) /* D12_GPUSHIM_MODE=list_error_critical */
{
    ID3D12Device *first = create_device(true);
    if (!first)
        return;
    gpu_context a, b;
    if (!make_context(first, D3D12_COMMAND_LIST_TYPE_DIRECT, &a))
        return;
    execute(a.queue, a.list); /* an open list: the first device is removed */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(first), DXGI_ERROR_INVALID_CALL);
    ID3D12Device *second = create_device(false); /* the debug layer is still on */
    if (!second || !CHECK(second != first) || !make_context(second, D3D12_COMMAND_LIST_TYPE_DIRECT, &b))
        return;
    ID3D12GraphicsCommandList_DrawInstanced(a.list, 3, 1, 0, 0);
    CHECK_LOG("list_error kind=list hr=0x80004005", 1);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(second), S_OK);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(first), DXGI_ERROR_INVALID_CALL); /* the first reason stays */
    ID3D12GraphicsCommandList_DrawInstanced(b.list, 3, 1, 0, 0);
    CHECK_LOG("list_error kind=list hr=0x80004005", 2);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(second), DXGI_ERROR_DRIVER_INTERNAL_ERROR);
    ID3D12GraphicsCommandList_Close(a.list); /* whatever they return, the lists can be released */
    ID3D12GraphicsCommandList_Close(b.list);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(first);
    RELEASE_LAST(second);
}

/* An error reported for a list that is not recording (from pfnExecuteCommandLists, after its Close returned S_OK):
 * no Close will return it, so it is ignored; the list stays executable and the device stays. */
static void test_list_error_after_close(void)
{
    ID3D12Device *device = create_device(true);
    if (!device)
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    gpu_context ctx;
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_LOG("list_error kind=closed_list hr=0x8007000E", 1);
    finish_exact(&ctx);
    /* Submitted again: the list Close called good is still good. */
    execute(ctx.queue, ctx.list);
    CHECK_LOG("execute count=1", 2);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST, NULL, NULL), 0);
    finish_exact(&ctx);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    EXPECT_NO_SEVERE(iq);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== main ======== */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"good", test_good},
    {"pre_0127", test_pre_0127},
    {"fault_bogus_state", test_fault_bogus_state},
    {"fault_bogus_handles", test_fault_bogus_handles},
    {"progress_bogus", test_progress_bogus},
    {"stale_handles", test_stale_handles},
    {"no_gpu", test_no_gpu},
    {"partial_gpu", test_partial_gpu},
    {"gpu_null_slot", test_gpu_null_slot},
    {"compute_alone", test_compute_alone},
    {"gpu_fill_fails", test_gpu_fill_fails},
    {"queue_zero_size", test_queue_zero_size},
    {"queue_absurd_size", test_queue_absurd_size},
    {"allocator_zero_size", test_allocator_zero_size},
    {"list_zero_size", test_list_zero_size},
    {"list_absurd_size", test_list_absurd_size},
    {"resource_zero_size", test_resource_zero_size},
    {"queue_create_fails", test_queue_create_fails},
    {"bogus_signal_value", test_bogus_signal_value},
    {"bogus_signal_fence", test_bogus_signal_fence},
    {"bogus_signal_queue", test_bogus_signal_queue},
    {"signal_twice", test_signal_twice},
    {"bogus_wait_value", test_bogus_wait_value},
    {"list_error_oom", test_list_error_oom},
    {"list_error_invalidarg", test_list_error_invalidarg},
    {"list_error_critical", test_list_error_critical},
    {"list_error_bogus_handle", test_list_error_bogus_handle},
    {"list_error_critical_bogus_handle", test_list_error_critical_bogus_handle},
    {"list_error_two_devices", test_list_error_two_devices},
    {"list_error_after_close", test_list_error_after_close},
    {"queue_max_size", test_queue_max_size},
    {"queue_over_max_size", test_queue_over_max_size},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        /* The shim's log: a fresh file of this process's, named before the driver is loaded. */
        snprintf(g_log_path, sizeof g_log_path, "/tmp/d12_gpushim_log_XXXXXX");
        int fd = mkstemp(g_log_path);
        if (!CHECK(fd >= 0))
            return d12test_finish();
        close(fd);
        setenv("D12_GPUSHIM_LOG", g_log_path, 1);
        cases[i].run();
        int rc = d12test_finish();
        if (rc != 0) {
            char *log = read_log();
            fprintf(stderr, "the shim's log:\n%s", log ? log : "");
            free(log);
        }
        unlink(g_log_path);
        return rc;
    }
    fprintf(stderr, "usage: test_gpu_ddi CASE\n");
    return 2;
}
