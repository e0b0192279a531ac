/* Version 2 of driver-reported messages on libd12rt_vulkan.so (docs/vulkan.md, docs/driver-reported-messages-v2.md):
 * the adapter identity (VkPhysicalDeviceProperties::vendorID) on every message, muting one validation VUID with a
 * driver-message filter, SupportedFlags per validation mode, the SYNCHRONIZATION category filtered in the driver,
 * GPU addresses named in the driver's fault, overrun and validation messages, and the validation mode read from
 * the per-application registry (VulkanValidation, written by d12cfg); and the driver as a version-1 driver
 * (D12RT_VULKAN_DRM=v1: the runtime negotiates version 1) with the switch's bad values reported and taken as on.
 * `test_vulkan_v2 CASE [ARGS]`, one ctest each (tests/vulkan/CMakeLists.txt). */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12rt/d3d12_ext.h"
#include "gpu_harness.h"
#include "stderr_capture.h"

#define VALIDATION_BASE 0x0D12000100000000ull
#define HAZARD "SYNC-HAZARD-READ-AFTER-WRITE"

static unsigned g_vendor = 0x10005; /* lavapipe's; the ctest passes the configured ICD's (argv) */

static ID3D12InfoQueue2 *info_queue2_of(ID3D12Device *device)
{
    ID3D12InfoQueue2 *iq = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue2, (void **)&iq), S_OK);
    return iq;
}

/* The first stored message (from `from`) whose text contains `text`, through GetMessage1; malloc'ed, NULL: none. */
static D3D12_MESSAGE1 *find1(ID3D12InfoQueue2 *iq, const char *text, UINT64 from)
{
    UINT64 count = ID3D12InfoQueue2_GetNumStoredMessages(iq);
    for (UINT64 i = from; i < count; i++) {
        SIZE_T length = 0;
        if (FAILED(ID3D12InfoQueue2_GetMessage1(iq, i, NULL, &length)))
            continue;
        D3D12_MESSAGE1 *m = malloc(length);
        if (m && SUCCEEDED(ID3D12InfoQueue2_GetMessage1(iq, i, m, &length)) && strstr(m->pDescription, text))
            return m;
        free(m);
    }
    return NULL;
}

/* The runtime flushes the driver's held (execution-time) findings at its next ExecuteCommandLists: one empty list. */
static void flush_point(gpu_context *ctx)
{
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx->allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx->list, ctx->allocator, NULL), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    CHECK(finish_exact(ctx));
}

typedef struct chain {
    ID3D12Device *device;
    ID3D12InfoQueue2 *iq;
    gpu_context ctx;
    ID3D12Resource *a, *b, *c;
} chain;

static bool chain_open(chain *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->device = create_drm_device();
    ch->iq = ch->device ? info_queue2_of(ch->device) : NULL;
    if (!ch->iq || !make_context(ch->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ch->ctx))
        return false;
    CHECK_HR(ID3D12GraphicsCommandList_Close(ch->ctx.list), S_OK);
    ch->a = make_buffer(ch->device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ch->b = make_buffer(ch->device, D3D12_HEAP_TYPE_DEFAULT, 4096);
    ch->c = make_buffer(ch->device, D3D12_HEAP_TYPE_READBACK, 4096);
    ID3D12Resource_SetName(ch->b, L"BufferB");
    return ch->a && ch->b && ch->c;
}

/* One recording of the missing-barrier program (A -> B, then B -> C with no barrier on B), executed. */
static void chain_round(chain *ch)
{
    CHECK_HR(ID3D12CommandAllocator_Reset(ch->ctx.allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ch->ctx.list, ch->ctx.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_CopyBufferRegion(ch->ctx.list, ch->b, 0, ch->a, 0, 4096);
    ID3D12GraphicsCommandList_CopyBufferRegion(ch->ctx.list, ch->c, 0, ch->b, 0, 4096);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ch->ctx.list), S_OK);
    execute(ch->ctx.queue, ch->ctx.list);
    /* 60 s, not finish()'s bound: under gpuav the first submission takes ~10 s on lavapipe (instrumentation) */
    ch->ctx.value++;
    CHECK_HR(ID3D12CommandQueue_Signal(ch->ctx.queue, ch->ctx.fence, ch->ctx.value), S_OK);
    CHECK(wait_fence_within(ch->ctx.fence, ch->ctx.value, 60000));
    CHECK_HR(ID3D12Fence_GetCompletedValue(ch->ctx.fence), (long long)ch->ctx.value);
}

static void chain_close(chain *ch)
{
    if (ch->a)
        RELEASE_LAST(ch->a);
    if (ch->b)
        RELEASE_LAST(ch->b);
    if (ch->c)
        RELEASE_LAST(ch->c);
    release_context(&ch->ctx);
    if (ch->iq)
        ID3D12InfoQueue2_Release(ch->iq);
    if (ch->device)
        RELEASE_LAST(ch->device);
}

/* Every message's identity: VendorId = vendorID (0x10005 on lavapipe) on the driver's own initialization message
 * (VendorMessageId 0x0D12000000000001, the reference driver's) and on the layer's hazard (VendorMessageId
 * 0x0D12000100000000 | messageIdNumber); the hazard names buffer B by its D3D12 identity. */
static void test_identity(void)
{
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    chain ch;
    if (chain_open(&ch)) {
        chain_round(&ch);
        D3D12_MESSAGE1 *init = find1(ch.iq, "D3D12 Driver Reported Messages Enabled", 0);
        D3D12_MESSAGE1 *hazard = find1(ch.iq, HAZARD, 0);
        if (CHECK(init != NULL)) {
            CHECK_EQ_INT(init->VendorId, g_vendor);
            CHECK_EQ_INT(init->VendorMessageId, 0x0D12000000000001ll);
        }
        if (CHECK(hazard != NULL)) {
            CHECK_EQ_INT(hazard->VendorId, g_vendor);
            CHECK_EQ_INT(hazard->VendorMessageId >> 32, VALIDATION_BASE >> 32);
            CHECK(strstr(hazard->pDescription, " [Buffers: 0x") != NULL);
            CHECK(strstr(hazard->pDescription, ":'BufferB' + 0x0") != NULL);
        }
        free(init);
        free(hazard);
    }
    chain_close(&ch);
}

/* PushDriverMessageFilter with the hazard's (VendorId, VendorMessageId) denied mutes exactly that VUID: the next
 * recording's hazard is neither stored nor counted as stored; Pop brings it back. `other`: the filter denies the
 * same VendorMessageId of another vendor and a neighbouring id of this one, and the hazard still arrives. */
static void deny_hazard(bool other)
{
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    chain ch;
    if (chain_open(&ch)) {
        chain_round(&ch);
        D3D12_MESSAGE1 *hazard = find1(ch.iq, HAZARD, 0);
        if (CHECK(hazard != NULL)) {
            D3D12_DRIVER_MESSAGE_IDENTITY same = {hazard->VendorId, hazard->VendorMessageId};
            D3D12_DRIVER_MESSAGE_IDENTITY others[] = {{0x1414, hazard->VendorMessageId},
                                                      {hazard->VendorId, hazard->VendorMessageId ^ 1}};
            D3D12_DRIVER_MESSAGE_FILTER filter = {0, NULL, other ? 2 : 1, other ? others : &same};
            CHECK_HR(ID3D12InfoQueue2_PushDriverMessageFilter(ch.iq, &filter), S_OK);
            UINT64 before = ID3D12InfoQueue2_GetNumStoredMessages(ch.iq);
            chain_round(&ch);
            D3D12_MESSAGE1 *again = find1(ch.iq, HAZARD, before);
            CHECK(other ? again != NULL : again == NULL);
            free(again);
            if (!other) {
                ID3D12InfoQueue2_PopDriverMessageFilter(ch.iq);
                before = ID3D12InfoQueue2_GetNumStoredMessages(ch.iq);
                chain_round(&ch);
                again = find1(ch.iq, HAZARD, before);
                CHECK(again != NULL); /* the filter popped: the VUID is reported again */
                free(again);
            }
        }
        free(hazard);
    }
    chain_close(&ch);
}

static void test_deny_vuid(void) { deny_hazard(false); }
static void test_deny_other(void) { deny_hazard(true); }

/* SupportedFlags (D3D12_FEATURE_DRIVER_REPORTED_MESSAGES) by the validation mode: argv MODE EXPECTED. */
static void test_supported_flags(const char *mode, const char *expected)
{
    setenv("D12RT_VULKAN_VALIDATION", mode, 1);
    ID3D12Device *device = create_drm_device();
    if (!device)
        return;
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data, sizeof data),
             S_OK);
    CHECK_EQ_INT(data.SupportedFlags, strtol(expected, NULL, 0));
    ID3D12DebugDevice3 *dd = NULL;
    if (CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK)) {
        CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), data.SupportedFlags); /* all on */
        /* a category the mode did not load is refused (core/off: SYNCHRONIZATION; every mode: SHADER) */
        UINT missing = data.SupportedFlags & D3D12_DRIVER_REPORTED_MESSAGE_FLAG_SYNCHRONIZATION
                           ? D3D12_DRIVER_REPORTED_MESSAGE_FLAG_SHADER
                           : D3D12_DRIVER_REPORTED_MESSAGE_FLAG_SYNCHRONIZATION;
        CHECK_HR(ID3D12DebugDevice3_SetDriverReportedMessageFlags(
                     dd, (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)(D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL | missing)),
                 E_INVALIDARG);
        ID3D12DebugDevice3_Release(dd);
    }
    RELEASE_LAST(device);
}

/* SetDriverReportedMessageFlags(flags), then one missing-barrier round: that round's hazard (malloc'ed), NULL: none. */
static D3D12_MESSAGE1 *round_with_flags(chain *ch, ID3D12DebugDevice3 *dd, UINT flags)
{
    CHECK_HR(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)flags), S_OK);
    UINT64 before = ID3D12InfoQueue2_GetNumStoredMessages(ch->iq);
    chain_round(ch);
    return find1(ch->iq, HAZARD, before);
}

/* Under sync: the missing-barrier chain and the device's ID3D12DebugDevice3 (*dd NULL when it is not there). */
static bool sync_chain_open(chain *ch, ID3D12DebugDevice3 **dd)
{
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    *dd = NULL;
    return chain_open(ch) &&
           CHECK_HR(ID3D12Device_QueryInterface(ch->device, &IID_ID3D12DebugDevice3, (void **)dd), S_OK);
}

static void sync_chain_close(chain *ch, ID3D12DebugDevice3 *dd)
{
    if (dd)
        ID3D12DebugDevice3_Release(dd);
    chain_close(ch);
}

/* Under sync: SetDriverReportedMessageFlags(GENERAL) silences the hazard (filtered in the driver); with
 * SYNCHRONIZATION back on, the next recording's hazard arrives. */
static void test_flags_sync_off(void)
{
    chain ch;
    ID3D12DebugDevice3 *dd;
    if (sync_chain_open(&ch, &dd)) {
        D3D12_MESSAGE1 *hazard = round_with_flags(&ch, dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        CHECK(hazard == NULL);
        free(hazard);
        CHECK_EQ_INT(ID3D12InfoQueue2_GetNumMessagesDeniedByStorageFilter(ch.iq), 0); /* dropped by the driver */
        hazard = round_with_flags(&ch, dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL |
                                               D3D12_DRIVER_REPORTED_MESSAGE_FLAG_SYNCHRONIZATION);
        CHECK(hazard != NULL);
        free(hazard);
    }
    sync_chain_close(&ch, dd);
}

/* GENERAL off: the driver's own findings (the copy overrun) are not reported either. */
static void test_flags_general_off(void)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue2 *iq = device ? info_queue2_of(device) : NULL;
    ID3D12DebugDevice3 *dd = NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) ||
        !CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK))
        return;
    CHECK_HR(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE), S_OK);
    ID3D12Resource *small = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, small, 0, 512);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    flush_point(&ctx);
    D3D12_MESSAGE1 *overrun = find1(iq, "past its end", 0);
    CHECK(overrun == NULL || overrun->VendorId == 0); /* the debug layer's own ERROR may say so; the driver not */
    free(overrun);
    RELEASE_LAST(small);
    RELEASE_LAST(dst);
    ID3D12DebugDevice3_Release(dd);
    release_context(&ctx);
    ID3D12InfoQueue2_Release(iq);
    RELEASE_LAST(device);
}

/* The copy overrun names the first byte past the source by the runtime's identity of it (version 2). `named`
 * false (D12RT_VULKAN_DRM=v1): the same finding arrives whole through version 1, the source named by its object
 * identity (v0.3's pfnQueryObjectIdentityCb), but without the first byte past it (no pfnQueryGpuVaIdentityCb). */
static void test_overrun(bool named)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue2 *iq = device ? info_queue2_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *small = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    ID3D12Resource_SetName(small, L"Small");
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, small, 0, 512);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish_exact(&ctx));
    flush_point(&ctx);
    D3D12_MESSAGE1 *m = find1(iq, "The copy source covers 512 bytes", 0);
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(m->VendorId, g_vendor);
        CHECK_EQ_INT(m->VendorMessageId, 0x0D12000000000205ll); /* the reference driver's COPY_PAST_END */
        CHECK(strstr(m->pDescription, ":'Small', which has 256 bytes: 256 bytes past its end.") != NULL);
        CHECK_EQ_INT(strstr(m->pDescription, "First byte past it: 0x") != NULL, named);
        CHECK_EQ_INT(strstr(m->pDescription, ":'Small' + 0x100 (past its end)") != NULL, named);
        if (!strstr(m->pDescription, "256 bytes past its end."))
            fprintf(stderr, "overrun message: %s\n", m->pDescription);
    }
    free(m);
    RELEASE_LAST(small);
    RELEASE_LAST(dst);
    release_context(&ctx);
    ID3D12InfoQueue2_Release(iq);
    RELEASE_LAST(device);
}

/* The kernel's page fault on a vertex buffer destroyed after recording names it: "... (released)". */
static void test_fault_named(void)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue2 *iq = device ? info_queue2_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *doomed = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource_SetName(doomed, L"Doomed");
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(doomed) + 0x80, 1024, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 16, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    RELEASE_LAST(doomed);
    execute(ctx.queue, ctx.list);
    ctx.value++;
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, ctx.value), S_OK);
    CHECK(wait_fence(ctx.fence, UINT64_MAX));
    D3D12_MESSAGE1 *m = find1(iq, "[Draw #0] Page fault: The vertex buffer view in slot 0 reads", 0);
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(m->VendorId, g_vendor);
        CHECK_EQ_INT(m->VendorMessageId, 0x0D12000000000301ll);
        CHECK(strstr(m->pDescription, "which is in no live buffer: 0x") != NULL);
        CHECK(strstr(m->pDescription, ":'Doomed' + 0x80 (released).") != NULL);
    } else {
        dump_messages((ID3D12InfoQueue *)iq);
    }
    free(m);
    release_context(&ctx);
    ID3D12InfoQueue2_Release(iq);
    RELEASE_LAST(device);
}

/* ---- The driver as a version-1 driver (D12RT_VULKAN_DRM=v1) ---- */

/* Version 1 under sync: the driver has no categories, so GENERAL (all a version-1 driver has) keeps the hazard; it
 * arrives through the version-1 path whole (the layer's text, the op, the identity: VendorId is asked of every
 * driver) but names no buffers (pfnQueryGpuVaIdentityCb is version 2's). NONE: the runtime drops the driver's
 * messages (not counted as storage-filtered); GENERAL again: they come back. Version 2, for comparison:
 * v2.flags_sync_off (GENERAL alone silences the hazard, in the driver), v2.identity (the hazard names 'BufferB'). */
static void test_v1_hazard(void)
{
    chain ch;
    ID3D12DebugDevice3 *dd;
    if (sync_chain_open(&ch, &dd)) {
        D3D12_MESSAGE1 *hazard = round_with_flags(&ch, dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        if (CHECK(hazard != NULL)) {
            CHECK_EQ_INT(hazard->VendorId, g_vendor);
            CHECK_EQ_INT(hazard->VendorMessageId >> 32, VALIDATION_BASE >> 32);
            CHECK_EQ_INT(hazard->Severity, D3D12_MESSAGE_SEVERITY_ERROR);
            CHECK(strstr(hazard->pDescription, "[CopyBufferRegion #1] Validation Error: [ " HAZARD " ]") != NULL);
            CHECK(strstr(hazard->pDescription, " [Buffers: ") == NULL);
        }
        free(hazard);
        hazard = round_with_flags(&ch, dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE); /* dropped by the runtime */
        CHECK(hazard == NULL);
        free(hazard);
        CHECK_EQ_INT(ID3D12InfoQueue2_GetNumMessagesDeniedByStorageFilter(ch.iq), 0);
        hazard = round_with_flags(&ch, dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        CHECK(hazard != NULL);
        free(hazard);
    }
    sync_chain_close(&ch, dd);
}

/* D12RT_VULKAN_DRM as the ctest sets it, under sync: what creating the device wrote on stderr, and the version
 * negotiated as SupportedFlags shows it (0x3: version 2 with both of sync's categories; 0x1: version 1, GENERAL
 * alone). argv EXPECTED WARNS: WARNS 1, the value is reported ("... is not on or v1; using on"); 0, nothing on
 * stderr names the variable. */
static void test_drm_env(const char *expected, const char *warns)
{
    setenv("D12RT_VULKAN_VALIDATION", "sync", 1);
    stderr_capture capture;
    if (!CHECK(stderr_capture_begin(&capture)))
        return;
    ID3D12Device *device = create_drm_device();
    static char text[16384];
    stderr_capture_end(&capture, text, sizeof text);
    const char *value = getenv("D12RT_VULKAN_DRM");
    char warning[160];
    snprintf(warning, sizeof warning, "d12rt Vulkan driver: D12RT_VULKAN_DRM=%s is not on or v1; using on\n",
             value ? value : "");
    if (atoi(warns))
        CHECK(strstr(text, warning) != NULL);
    else
        CHECK(strstr(text, "D12RT_VULKAN_DRM") == NULL);
    if (!CHECK(device != NULL))
        return;
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data, sizeof data),
             S_OK);
    CHECK_EQ_INT(data.SupportedFlags, strtol(expected, NULL, 0));
    RELEASE_LAST(device);
}

/* The mode read from the registry (D12RT_VULKAN_VALIDATION unset or set, as the ctest says): argv HAZARDS MODE_TEXT,
 * MODE_TEXT "none" when no mode message may come (off). */
static void test_registry_mode(const char *hazards, const char *mode_text)
{
    chain ch;
    if (chain_open(&ch)) {
        chain_round(&ch);
        D3D12_MESSAGE1 *hazard = find1(ch.iq, HAZARD, 0);
        D3D12_MESSAGE1 *mode = find1(ch.iq, "Vulkan validation: ", 0);
        CHECK_EQ_INT(hazard != NULL, atoi(hazards));
        if (hazard) /* for registry_test.sh drm_deny: the pair to deny */
            printf("hazard %X:%llX\n", hazard->VendorId, (unsigned long long)hazard->VendorMessageId);
        if (!strcmp(mode_text, "none")) {
            CHECK(mode == NULL);
        } else if (CHECK(mode != NULL)) {
            CHECK(strstr(mode->pDescription, mode_text) != NULL);
            if (!strstr(mode->pDescription, mode_text))
                fprintf(stderr, "mode message: %s\n", mode->pDescription);
        }
        free(hazard);
        free(mode);
    }
    chain_close(&ch);
}

int main(int argc, char **argv)
{
    const char *vendor = getenv("D12RT_TEST_VK_VENDOR_ID");
    if (vendor && *vendor)
        g_vendor = (unsigned)strtoul(vendor, NULL, 0);
    const char *name = argc >= 2 ? argv[1] : "";
    if (!strcmp(name, "identity") && argc == 2)
        test_identity();
    else if (!strcmp(name, "deny_vuid") && argc == 2)
        test_deny_vuid();
    else if (!strcmp(name, "deny_other") && argc == 2)
        test_deny_other();
    else if (!strcmp(name, "supported_flags") && argc == 4)
        test_supported_flags(argv[2], argv[3]);
    else if (!strcmp(name, "flags_sync_off") && argc == 2)
        test_flags_sync_off();
    else if (!strcmp(name, "flags_general_off") && argc == 2)
        test_flags_general_off();
    else if (!strcmp(name, "overrun_named") && argc == 2)
        test_overrun(true);
    else if (!strcmp(name, "v1_overrun") && argc == 2)
        test_overrun(false);
    else if (!strcmp(name, "v1_hazard") && argc == 2)
        test_v1_hazard();
    else if (!strcmp(name, "drm_env") && argc == 4)
        test_drm_env(argv[2], argv[3]);
    else if (!strcmp(name, "fault_named") && argc == 2)
        test_fault_named();
    else if (!strcmp(name, "registry_mode") && argc == 4)
        test_registry_mode(argv[2], argv[3]);
    else {
        fprintf(stderr, "usage: test_vulkan_v2 CASE [ARGS] (unknown case or arguments)\n");
        return 2;
    }
    return d12test_finish();
}
