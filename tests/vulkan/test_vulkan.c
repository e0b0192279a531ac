/* libd12rt_vulkan.so through libd12rt's public ABI (docs/vulkan.md): Vulkan validation as driver-reported messages
 * (the missing-barrier program both ways), the adapter's environment (D12RT_VULKAN_DEVICE, D12RT_VULKAN_VALIDATION),
 * and copies checked against the driver's VA map before anything is recorded into Vulkan. D12RT_DRIVER names the
 * driver (tests/vulkan/CMakeLists.txt). `test_vulkan CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"
#include "d12rt/d3d12_ext.h"

static ID3D12Device *create_drm_device(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return NULL;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    return create_device(false);
}

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

static void test_sync_missing_barrier(void) { copy_chain(false, "sync"); }
static void test_sync_with_barrier(void) { copy_chain(true, "sync"); }
static void test_off_missing_barrier(void) { copy_chain(false, "off"); }
static void test_core_missing_barrier(void) { copy_chain(false, "core"); } /* core validation has no hazard rules */

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
    {"sync_with_barrier", test_sync_with_barrier},
    {"off_missing_barrier", test_off_missing_barrier},
    {"core_missing_barrier", test_core_missing_barrier},
    {"device_index_bad", test_device_index_bad},
    {"device_index_zero", test_device_index_zero},
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
