/* libd12rt_vulkan.so through libd12rt's public ABI (docs/vulkan.md): Vulkan validation as driver-reported messages
 * (the missing-barrier program both ways), the adapter's environment (D12RT_VULKAN_DEVICE, D12RT_VULKAN_VALIDATION),
 * and copies checked against the driver's VA map before anything is recorded into Vulkan. D12RT_DRIVER names the
 * driver (tests/vulkan/CMakeLists.txt). `test_vulkan CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12rt/d3d12_ext.h"
#include "gpu_harness.h"

static void fill(ID3D12Resource *buffer, size_t size, unsigned char seed)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(seed + i * 7);
    ID3D12Resource_Unmap(buffer, 0, NULL);
}

static bool same_bytes(ID3D12Resource *a, ID3D12Resource *b, size_t size)
{
    unsigned char *pa = NULL, *pb = NULL;
    bool same = false;
    if (CHECK_HR(ID3D12Resource_Map(a, 0, NULL, (void **)&pa), S_OK) &&
        CHECK_HR(ID3D12Resource_Map(b, 0, NULL, (void **)&pb), S_OK))
        same = memcmp(pa, pb, size) == 0;
    if (pa)
        ID3D12Resource_Unmap(a, 0, NULL);
    if (pb)
        ID3D12Resource_Unmap(b, 0, NULL);
    return same;
}

/* A (upload) -> B (default) -> C (readback) in one list, with or without the barrier on B between the copies. */
static void copy_chain(bool barrier, const char *mode)
{
    setenv("D12RT_VULKAN_VALIDATION", mode, 1);
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *a = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *b = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 4096);
    ID3D12Resource *c = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    fill(a, 4096, 0x31);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, b, 0, a, 0, 4096);
    if (barrier)
        transition(ctx.list, b, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, c, 0, b, 0, 4096);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    finish(&ctx);
    unsigned hazards = count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "SYNC-HAZARD", NULL);
    unsigned mode_messages = count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "Vulkan validation: ", NULL);
    CHECK_EQ_INT(mode_messages, strcmp(mode, "off") == 0 ? 0 : 1);
    if (!barrier && strcmp(mode, "sync") == 0) {
        /* Reported from inside the second CopyBufferRegion (record time), prefixed with the list and the op. */
        message_info info = {0};
        CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "SYNC-HAZARD-READ-AFTER-WRITE", &info),
                     1);
        CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE,
                              "[CopyBufferRegion #1] Validation Error: [ SYNC-HAZARD-READ-AFTER-WRITE ]", NULL),
                     1);
        CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "ID3D12GraphicsCommandList", NULL), 1);
        CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
        CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_STATE_SETTING);
        CHECK_EQ_INT(hazards, 1);
    } else {
        CHECK_EQ_INT(hazards, 0);
        if (hazards)
            dump_messages(iq);
    }
    if (barrier)
        CHECK(same_bytes(a, c, 4096)); /* with the barrier the chain is defined: C holds A's bytes */
    RELEASE_LAST(a);
    RELEASE_LAST(b);
    RELEASE_LAST(c);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* More draws in one list than 16 bits count: each draw ends a segment (its kernel runs between two command
 * buffers), and a list of 70 000 draws closes with S_OK (it was E_OUTOFMEMORY past 65 534 segments). */
static void test_many_draws_close(void)
{
    ID3D12Device *device = create_drm_device();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    for (unsigned i = 0; i < 70000; i++)
        ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 0, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_sync_missing_barrier(void) { copy_chain(false, "sync"); }
static void test_sync_with_barrier(void) { copy_chain(true, "sync"); }
static void test_off_missing_barrier(void) { copy_chain(false, "off"); }
static void test_core_missing_barrier(void) { copy_chain(false, "core"); } /* core validation has no hazard rules */

/* A copy queue's list under sync validation and buffers A, B, D (UPLOAD, filled with 0x10, 0x80, 0x55 patterns)
 * and C (READBACK, the copies' destination), 1 KiB each. */
typedef struct copy_case {
    ID3D12Device *device;
    ID3D12InfoQueue *iq;
    gpu_context ctx;
    ID3D12Resource *a, *b, *d, *c;
    unsigned char *pa, *pb, *pd, *pc;
} copy_case;

static bool copy_case_open(copy_case *k)
{
    memset(k, 0, sizeof *k);
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    k->device = create_drm_device();
    k->iq = k->device ? info_queue_of(k->device) : NULL;
    if (!k->iq || !make_context(k->device, D3D12_COMMAND_LIST_TYPE_COPY, &k->ctx))
        return false;
    k->a = make_buffer(k->device, D3D12_HEAP_TYPE_UPLOAD, 1024);
    k->b = make_buffer(k->device, D3D12_HEAP_TYPE_UPLOAD, 1024);
    k->d = make_buffer(k->device, D3D12_HEAP_TYPE_UPLOAD, 1024);
    k->c = make_buffer(k->device, D3D12_HEAP_TYPE_READBACK, 1024);
    fill(k->a, 1024, 0x10);
    fill(k->b, 1024, 0x80);
    fill(k->d, 1024, 0x55);
    return true;
}

/* Execute what was recorded: no hazard may be reported; then the four buffers mapped (false: one was not). */
static bool copy_case_run(copy_case *k)
{
    CHECK_HR(ID3D12GraphicsCommandList_Close(k->ctx.list), S_OK);
    execute(k->ctx.queue, k->ctx.list);
    finish(&k->ctx);
    unsigned hazards = count_id(k->iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "SYNC-HAZARD", NULL);
    CHECK_EQ_INT(hazards, 0);
    if (hazards)
        dump_messages(k->iq);
    return CHECK_HR(ID3D12Resource_Map(k->a, 0, NULL, (void **)&k->pa), S_OK) &&
           CHECK_HR(ID3D12Resource_Map(k->b, 0, NULL, (void **)&k->pb), S_OK) &&
           CHECK_HR(ID3D12Resource_Map(k->d, 0, NULL, (void **)&k->pd), S_OK) &&
           CHECK_HR(ID3D12Resource_Map(k->c, 0, NULL, (void **)&k->pc), S_OK);
}

static void copy_case_close(copy_case *k)
{
    RELEASE_LAST(k->a);
    RELEASE_LAST(k->b);
    RELEASE_LAST(k->c);
    RELEASE_LAST(k->d);
    release_context(&k->ctx);
    ID3D12InfoQueue_Release(k->iq);
    RELEASE_LAST(k->device);
}

/* D3D12 orders copies whose destinations overlap; the driver serializes them with a barrier on the destination, so
 * sync validation reports no WRITE_AFTER_WRITE. Copies to disjoint ranges get no barrier, and no hazard either. The
 * second copy wins where they overlap. */
static void copies_to(UINT64 second_offset)
{
    copy_case k;
    if (!copy_case_open(&k))
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, 0, k.a, 0, 256);
    ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, second_offset, k.b, 0, 256);
    if (copy_case_run(&k)) {
        CHECK(memcmp(k.pc, k.pa, second_offset < 256 ? second_offset : 256) == 0);
        CHECK(memcmp(k.pc + second_offset, k.pb, 256) == 0); /* the later copy's bytes where they overlap */
    }
    copy_case_close(&k);
}

static void test_copies_overlapping(void) { copies_to(128); }
static void test_copies_disjoint(void) { copies_to(512); }

/* Three copies into C under sync validation, with no application barrier: `repeat` copies A to C[0, 256) twice
 * (the driver records no barrier between two identical copies, except under sync, where the layer would report
 * them: none is reported), then B to C[128, 384); otherwise A to C[0, 256), B to C[128, 384), D to C[0, 64): the third
 * overlaps only the first copy's part outside the second, which the second's barrier must cover (a write-after-write
 * needs a memory dependency, not only the execution dependency a barrier on [128, 384) gives). */
static void copies_three(bool repeat)
{
    copy_case k;
    if (!copy_case_open(&k))
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, 0, k.a, 0, 256);
    if (repeat)
        ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, 0, k.a, 0, 256);
    ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, 128, k.b, 0, 256);
    if (!repeat)
        ID3D12GraphicsCommandList_CopyBufferRegion(k.ctx.list, k.c, 0, k.d, 0, 64);
    if (copy_case_run(&k)) {
        CHECK(memcmp(k.pc, repeat ? k.pa : k.pd, 64) == 0);
        CHECK(memcmp(k.pc + 64, k.pa + 64, 64) == 0);
        CHECK(memcmp(k.pc + 128, k.pb, 256) == 0);
    }
    copy_case_close(&k);
}

static void test_copies_repeated(void) { copies_three(true); }
static void test_copies_partial_overlap(void) { copies_three(false); }

/* The kernel reads through the page table: a draw whose vertex buffer was destroyed after recording faults on the GPU
 * at that buffer's address, attributed to [Draw #1]; the draw before it (same buffer, still live then... no: a live
 * one) completes, and the copy after the faulting draw never runs. */
static void test_kernel_freed_vertex_buffer(void)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *live = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *doomed = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *after = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill(src, 256, 1);
    D3D12_VERTEX_BUFFER_VIEW good = {ID3D12Resource_GetGPUVirtualAddress(live), 4096, 16};
    UINT64 va = ID3D12Resource_GetGPUVirtualAddress(doomed);
    D3D12_VERTEX_BUFFER_VIEW bad = {va, 4096, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &good);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 256, 4, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &bad);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 256, 4, 0, 0);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, after, 0, src, 0, 256);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    RELEASE_LAST(doomed); /* after recording, before execution */
    execute(ctx.queue, ctx.list);
    ctx.value++;
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, ctx.value), S_OK);
    CHECK(wait_fence(ctx.fence, UINT64_MAX)); /* removal sets every fence to UINT64_MAX */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    char text[128];
    snprintf(text, sizeof text, "[Draw #1] Page fault: The vertex buffer view in slot 0 reads GPU virtual address "
                                "0x%016llX", (unsigned long long)va);
    CHECK(check_one_message(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, text, __FILE__, __LINE__, "the fault"));
    unsigned char *p = NULL;
    if (CHECK_HR(ID3D12Resource_Map(after, 0, NULL, (void **)&p), S_OK) || p) {
        if (p)
            CHECK_EQ_INT(p[0], 0); /* the copy after the fault never ran */
    }
    RELEASE_LAST(live);
    RELEASE_LAST(src);
    RELEASE_LAST(after);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* A draw and a dispatch over valid bindings (index buffer, vertex buffer, root CBV and SRV) run the kernel to its end:
 * no message, the device lives, the work after them runs. */
static void test_kernel_valid_bindings(void)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *data = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 65536);
    ID3D12Resource *after = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill(data, 65536, 3);
    UINT64 va = ID3D12Resource_GetGPUVirtualAddress(data);
    D3D12_INDEX_BUFFER_VIEW ib = {va, 4096, DXGI_FORMAT_R16_UINT};
    D3D12_VERTEX_BUFFER_VIEW vb = {va + 4096, 60000, 4};
    ID3D12GraphicsCommandList_IASetIndexBuffer(ctx.list, &ib);
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &vb);
    ID3D12GraphicsCommandList_SetGraphicsRootConstantBufferView(ctx.list, 0, va + 256);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(ctx.list, 2048, 3, 0, 5, 0);
    ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(ctx.list, 1, va + 8);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 4, 3, 2);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, after, 0, data, 0, 256);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    CHECK(same_bytes(data, after, 256));
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, NULL, NULL), 1); /* the initialization one */
    RELEASE_LAST(data);
    RELEASE_LAST(after);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* DRED auto-breadcrumbs make the runtime write MARKER_IN/MARKER_OUT values after each op: under sync validation with
 * every message fatal (the ctest sets D12RT_VULKAN_VALIDATION_STRICT=1), the driver's marker writes (a barrier on
 * the marker word, then a fill) raise no hazard against each other or the application's ops. */
static void test_breadcrumbs_sync_clean(void)
{
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    ID3D12DeviceRemovedExtendedDataSettings *dred = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&dred), S_OK))
        return;
    ID3D12DeviceRemovedExtendedDataSettings_SetAutoBreadcrumbsEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings_Release(dred);
    ID3D12Device *device = create_drm_device();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *a = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *b = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 4096);
    ID3D12Resource *c = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    fill(a, 4096, 0x42);
    for (int round = 0; round < 3; round++) {
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, b, 0, a, 0, 4096);
        transition(ctx.list, b, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, c, 0, b, 0, 4096);
        transition(ctx.list, b, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_COPY_DEST);
        ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    }
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    CHECK(same_bytes(a, c, 4096));
    RELEASE_LAST(a);
    RELEASE_LAST(b);
    RELEASE_LAST(c);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* D12RT_VULKAN_DEVICE: an index past the last device fails the adapter (no device); 0 is the first device. */
static void test_device_index_bad(void)
{
    setenv("D12RT_VULKAN_DEVICE", "99", 1);
    ID3D12Device *device = NULL;
    CHECK(FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device)));
    CHECK(device == NULL);
}

static void test_device_index_zero(void)
{
    setenv("D12RT_VULKAN_DEVICE", "0", 1);
    ID3D12Device *device = create_device(false);
    if (device)
        RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"sync_missing_barrier", test_sync_missing_barrier},
    {"many_draws_close", test_many_draws_close},
    {"sync_with_barrier", test_sync_with_barrier},
    {"off_missing_barrier", test_off_missing_barrier},
    {"core_missing_barrier", test_core_missing_barrier},
    {"device_index_bad", test_device_index_bad},
    {"device_index_zero", test_device_index_zero},
    {"copies_overlapping", test_copies_overlapping},
    {"copies_disjoint", test_copies_disjoint},
    {"copies_repeated", test_copies_repeated},
    {"copies_partial_overlap", test_copies_partial_overlap},
    {"kernel_freed_vertex_buffer", test_kernel_freed_vertex_buffer},
    {"kernel_valid_bindings", test_kernel_valid_bindings},
    {"breadcrumbs_sync_clean", test_breadcrumbs_sync_clean},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_vulkan CASE (unknown case)\n");
    return 2;
}
