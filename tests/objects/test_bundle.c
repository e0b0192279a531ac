/* Bundles (issue 17 item 6; docs/bundles.md) through libd12rt's public ABI with the reference driver (driver-reported
 * messages on): creation as the peers' Windows-run tests expect it (vkd3d-proton tests/d3d12_device.c
 * test_create_command_allocator, test_create_command_list, test_create_command_queue), ExecuteBundle's validation,
 * the calls a bundle may not record, what a bundle inherits from its caller and leaves to it (seen through the
 * reference driver's findings and their annotations), retention of the bundle's indices, and DRED's EXECUTEBUNDLE.
 * `test_bundle CASE`. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "gpu_harness.h"

#define VB_TEXT "The vertex buffer view in slot 0 covers 64 bytes from offset 0 of "

static ID3D12Device *g_device;
static char g_dump_dir[] = "/tmp/d12rt_bundle_dump_XXXXXX"; /* D12RT_DRED_DUMP of the dred case */
static ID3D12InfoQueue *g_iq;
static gpu_context g_ctx;

static bool setup(bool dred)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return false;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    if (dred) {
        if (!CHECK(mkdtemp(g_dump_dir) != NULL))
            return false;
        setenv("D12RT_DRED_DUMP", g_dump_dir, 1);
        ID3D12DeviceRemovedExtendedDataSettings2 *s = NULL;
        if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&s), S_OK))
            return false;
        ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
    }
    CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g_device), S_OK);
    if (!g_device || !(g_iq = info_queue_of(g_device)))
        return false;
    return make_context(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT, &g_ctx);
}

static void teardown(void)
{
    release_context(&g_ctx);
    if (g_iq)
        ID3D12InfoQueue_Release(g_iq);
    if (g_device)
        CHECK_EQ_INT(ID3D12Device_Release(g_device), 0);
}

static ID3D12CommandAllocator *new_allocator(D3D12_COMMAND_LIST_TYPE type)
{
    ID3D12CommandAllocator *allocator = NULL;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, type, &IID_ID3D12CommandAllocator, (void **)&allocator),
             S_OK);
    return allocator;
}

static ID3D12GraphicsCommandList *new_list(D3D12_COMMAND_LIST_TYPE type, ID3D12CommandAllocator *allocator,
                                           const wchar_t *name)
{
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, type, allocator, NULL, &IID_ID3D12GraphicsCommandList,
                                            (void **)&list), S_OK);
    if (list && name)
        CHECK_HR(ID3D12GraphicsCommandList_SetName(list, name), S_OK);
    return list;
}

static char *prefix_of(ID3D12GraphicsCommandList *list, const char *name, const char *kind, unsigned ordinal)
{
    static char text[4][128];
    static unsigned next;
    char *out = text[next++ % 4];
    snprintf(out, sizeof text[0], "0x%016llX:'%s' [%s #%u] " VB_TEXT, (unsigned long long)(uintptr_t)list, name,
             kind, ordinal);
    return out;
}

/* Messages whose text starts with `prefix`. */
static unsigned count_prefixed(D3D12_MESSAGE_ID id, const char *prefix)
{
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue_GetNumStoredMessages(g_iq);
    for (UINT64 i = 0; i < count; i++) {
        D3D12_MESSAGE *message = stored_message(g_iq, i);
        if (message && message->ID == id && strncmp(message->pDescription, prefix, strlen(prefix)) == 0)
            found++;
        free(message);
    }
    return found;
}

/* Flush what the driver holds: an ExecuteCommandLists after observed completion (an empty list). */
static void flush_findings(void)
{
    ID3D12CommandAllocator *allocator = new_allocator(D3D12_COMMAND_LIST_TYPE_DIRECT);
    ID3D12GraphicsCommandList *empty = allocator ? new_list(D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL) : NULL;
    if (empty) {
        CHECK_HR(ID3D12GraphicsCommandList_Close(empty), S_OK);
        execute(g_ctx.queue, empty);
        CHECK(finish(&g_ctx));
        RELEASE_LAST(empty);
    }
    if (allocator)
        RELEASE_LAST(allocator);
}

/* ---- creation (the peers' logic) ---- */

static void test_allocator_create(void)
{
    ID3D12CommandAllocator *allocator = NULL;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                 &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    CHECK(allocator != NULL);
    if (allocator) {
        CHECK_HR(ID3D12CommandAllocator_Reset(allocator), S_OK); /* no list records into it */
        RELEASE_LAST(allocator);
    }
    allocator = (ID3D12CommandAllocator *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, (D3D12_COMMAND_LIST_TYPE)~0u,
                                                 &IID_ID3D12CommandAllocator, (void **)&allocator), E_INVALIDARG);
    CHECK(allocator == NULL);
}

static void test_list_create(void)
{
    ID3D12CommandAllocator *bundle_allocator = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12CommandAllocator *compute_allocator = new_allocator(D3D12_COMMAND_LIST_TYPE_COMPUTE);
    if (!bundle_allocator || !compute_allocator)
        return;
    ID3D12CommandList *list = NULL;
    /* A BUNDLE allocator for a DIRECT list, and the reverse: E_INVALIDARG. */
    CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, bundle_allocator, NULL,
                                            &IID_ID3D12CommandList, (void **)&list), E_INVALIDARG);
    CHECK(list == NULL);
    CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, g_ctx.allocator, NULL,
                                            &IID_ID3D12CommandList, (void **)&list), E_INVALIDARG);
    CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, compute_allocator, NULL,
                                            &IID_ID3D12CommandList, (void **)&list), E_INVALIDARG);
    /* A BUNDLE list on a BUNDLE allocator: a graphics command list of type BUNDLE, recording. */
    CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, bundle_allocator, NULL,
                                            &IID_ID3D12CommandList, (void **)&list), S_OK);
    if (list) {
        ID3D12GraphicsCommandList *graphics = NULL;
        CHECK_HR(ID3D12CommandList_QueryInterface(list, &IID_ID3D12GraphicsCommandList, (void **)&graphics), S_OK);
        CHECK_EQ_INT(ID3D12CommandList_GetType(list), D3D12_COMMAND_LIST_TYPE_BUNDLE);
        if (graphics) {
            CHECK_HR(ID3D12CommandAllocator_Reset(bundle_allocator), E_FAIL); /* the bundle records into it */
            CHECK_HR(ID3D12GraphicsCommandList_Close(graphics), S_OK);
            CHECK_HR(ID3D12CommandAllocator_Reset(bundle_allocator), S_OK);
            CHECK_HR(ID3D12GraphicsCommandList_Reset(graphics, bundle_allocator, NULL), S_OK);
            CHECK_HR(ID3D12GraphicsCommandList_Close(graphics), S_OK);
            CHECK_HR(ID3D12GraphicsCommandList_Reset(graphics, g_ctx.allocator, NULL), E_INVALIDARG);
            ID3D12GraphicsCommandList_Release(graphics);
        }
        RELEASE_LAST(list);
    }
    RELEASE_LAST(bundle_allocator);
    RELEASE_LAST(compute_allocator);
}

static void test_queue_create(void)
{
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_BUNDLE, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ID3D12CommandQueue *queue = (ID3D12CommandQueue *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateCommandQueue(g_device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), E_INVALIDARG);
    CHECK(queue == NULL);
    desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    CHECK_HR(ID3D12Device_CreateCommandQueue(g_device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    if (queue)
        RELEASE_LAST(queue);
}

/* ---- ExecuteBundle's validation ---- */

static void test_execute_caller(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12CommandAllocator *ca = new_allocator(D3D12_COMMAND_LIST_TYPE_COMPUTE);
    ID3D12CommandAllocator *ba2 = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, L"B") : NULL;
    ID3D12GraphicsCommandList *compute = ca ? new_list(D3D12_COMMAND_LIST_TYPE_COMPUTE, ca, NULL) : NULL;
    ID3D12GraphicsCommandList *outer = ba2 ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba2, NULL) : NULL;
    if (!bundle || !compute || !outer)
        return;
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    /* Only a direct list may execute a bundle: a compute list and a bundle record an error, Close: E_INVALIDARG. */
    ID3D12GraphicsCommandList_ExecuteBundle(compute, bundle);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, "not a direct command list", NULL), 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(compute), E_INVALIDARG);
    ID3D12GraphicsCommandList_ExecuteBundle(outer, bundle);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, "is a bundle", NULL), 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(outer), E_INVALIDARG);
    /* A direct list: S_OK, runs. */
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list);
    CHECK(finish(&g_ctx));
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, NULL, NULL), 2);
    RELEASE_LAST(bundle);
    RELEASE_LAST(compute);
    RELEASE_LAST(outer);
    RELEASE_LAST(ba);
    RELEASE_LAST(ca);
    RELEASE_LAST(ba2);
}

static void test_execute_callee(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12CommandAllocator *da = new_allocator(D3D12_COMMAND_LIST_TYPE_DIRECT);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, NULL) : NULL;
    ID3D12GraphicsCommandList *direct = da ? new_list(D3D12_COMMAND_LIST_TYPE_DIRECT, da, NULL) : NULL;
    if (!bundle || !direct)
        return;
    CHECK_HR(ID3D12GraphicsCommandList_Close(direct), S_OK);
    struct {
        ID3D12GraphicsCommandList *callee;
        D3D12_MESSAGE_ID id;
        const char *text;
    } bad[] = {
        {NULL, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, "NULL"},
        {direct, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, "not a bundle"},
        {bundle, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_OPEN_BUNDLE, "still recording"}, /* open */
    };
    for (unsigned i = 0; i < 3; i++) {
        ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bad[i].callee);
        CHECK_EQ_INT(count_id(g_iq, bad[i].id, bad[i].text, NULL), 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), E_INVALIDARG);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(g_ctx.list, g_ctx.allocator, NULL), S_OK);
    }
    /* A bundle whose Close failed (it recorded a copy): E_INVALIDARG as well. */
    ID3D12GraphicsCommandList_CopyResource(bundle, NULL, NULL);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), E_FAIL);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTE_BUNDLE_TYPE, "Close failed", NULL), 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), E_INVALIDARG);
    /* The same bundle recorded cleanly: S_OK. */
    CHECK_HR(ID3D12GraphicsCommandList_Reset(bundle, ba, NULL), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(g_ctx.list, g_ctx.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    RELEASE_LAST(bundle);
    RELEASE_LAST(direct);
    RELEASE_LAST(ba);
    RELEASE_LAST(da);
}

static void test_execute_command_lists(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, NULL) : NULL;
    if (!bundle)
        return;
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    execute(g_ctx.queue, bundle); /* a bundle goes only through ExecuteBundle */
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_BUNDLENOTSUPPORTED, NULL, NULL), 1);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list); /* a direct list: fine */
    CHECK(finish(&g_ctx));
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_BUNDLENOTSUPPORTED, NULL, NULL), 1);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
}

/* ---- what a bundle may not record ---- */

typedef void (*refused_call)(ID3D12GraphicsCommandList *list, ID3D12Resource *buffer);

static void r_clear_state(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_ClearState(l, NULL); }
static void r_clear_dsv(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    D3D12_CPU_DESCRIPTOR_HANDLE h = {0};
    (void)b;
    ID3D12GraphicsCommandList_ClearDepthStencilView(l, h, D3D12_CLEAR_FLAG_DEPTH, 1.0f, 0, 0, NULL);
}
static void r_clear_rtv(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    static const FLOAT color[4] = {0};
    D3D12_CPU_DESCRIPTOR_HANDLE h = {0};
    (void)b;
    ID3D12GraphicsCommandList_ClearRenderTargetView(l, h, color, 0, NULL);
}
static void r_clear_uav_uint(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    static const UINT values[4] = {0};
    D3D12_GPU_DESCRIPTOR_HANDLE g = {0};
    D3D12_CPU_DESCRIPTOR_HANDLE c = {0};
    ID3D12GraphicsCommandList_ClearUnorderedAccessViewUint(l, g, c, b, values, 0, NULL);
}
static void r_clear_uav_float(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    static const FLOAT values[4] = {0};
    D3D12_GPU_DESCRIPTOR_HANDLE g = {0};
    D3D12_CPU_DESCRIPTOR_HANDLE c = {0};
    ID3D12GraphicsCommandList_ClearUnorderedAccessViewFloat(l, g, c, b, values, 0, NULL);
}
static void r_copy_region(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_CopyBufferRegion(l, b, 0, b, 32, 16); }
static void r_copy_resource(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_CopyResource(l, b, b); }
static void r_copy_texture(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_CopyTextureRegion(l, NULL, 0, 0, 0, NULL, NULL); }
static void r_copy_tiles(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_CopyTiles(l, b, NULL, NULL, b, 0, D3D12_TILE_COPY_FLAG_NONE); }
static void r_discard(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_DiscardResource(l, b, NULL); }
static void r_resolve(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_ResolveSubresource(l, b, 0, b, 0, DXGI_FORMAT_R8G8B8A8_UNORM); }
static void r_barrier(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    D3D12_RESOURCE_BARRIER barrier = {0};
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    barrier.UAV.pResource = b;
    ID3D12GraphicsCommandList_ResourceBarrier(l, 1, &barrier);
}
static void r_predication(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_SetPredication(l, b, 0, D3D12_PREDICATION_OP_EQUAL_ZERO); }
static void r_begin_query(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_BeginQuery(l, NULL, D3D12_QUERY_TYPE_OCCLUSION, 0); }
static void r_end_query(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_EndQuery(l, NULL, D3D12_QUERY_TYPE_OCCLUSION, 0); }
static void r_resolve_query(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { ID3D12GraphicsCommandList_ResolveQueryData(l, NULL, D3D12_QUERY_TYPE_OCCLUSION, 0, 1, b, 0); }
static void r_so_targets(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_SOSetTargets(l, 0, 0, NULL); }
static void r_render_targets(ID3D12GraphicsCommandList *l, ID3D12Resource *b) { (void)b; ID3D12GraphicsCommandList_OMSetRenderTargets(l, 0, NULL, FALSE, NULL); }
static void r_viewports(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    D3D12_VIEWPORT viewport = {0, 0, 16, 16, 0, 1};
    (void)b;
    ID3D12GraphicsCommandList_RSSetViewports(l, 1, &viewport);
}
static void r_scissors(ID3D12GraphicsCommandList *l, ID3D12Resource *b)
{
    D3D12_RECT rect = {0, 0, 16, 16};
    (void)b;
    ID3D12GraphicsCommandList_RSSetScissorRects(l, 1, &rect);
}

static const struct {
    const char *method;
    refused_call call;
} k_refused[] = {
    {"ClearState", r_clear_state}, {"ClearDepthStencilView", r_clear_dsv}, {"ClearRenderTargetView", r_clear_rtv},
    {"ClearUnorderedAccessViewUint", r_clear_uav_uint}, {"ClearUnorderedAccessViewFloat", r_clear_uav_float},
    {"CopyBufferRegion", r_copy_region}, {"CopyResource", r_copy_resource}, {"CopyTextureRegion", r_copy_texture},
    {"CopyTiles", r_copy_tiles}, {"DiscardResource", r_discard}, {"ResolveSubresource", r_resolve},
    {"ResourceBarrier", r_barrier}, {"SetPredication", r_predication}, {"BeginQuery", r_begin_query},
    {"EndQuery", r_end_query}, {"ResolveQueryData", r_resolve_query}, {"SOSetTargets", r_so_targets},
    {"OMSetRenderTargets", r_render_targets}, {"RSSetViewports", r_viewports}, {"RSSetScissorRects", r_scissors},
};

static void test_refused_calls(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, NULL) : NULL;
    ID3D12Resource *buffer = make_buffer(g_device, D3D12_HEAP_TYPE_DEFAULT, 64);
    if (!bundle || !buffer)
        return;
    const unsigned n = sizeof k_refused / sizeof k_refused[0];
    for (unsigned i = 0; i < n; i++) {
        char text[96];
        snprintf(text, sizeof text, "ID3D12GraphicsCommandList::%s: a bundle may not", k_refused[i].method);
        if (i > 0)
            CHECK_HR(ID3D12GraphicsCommandList_Reset(bundle, ba, NULL), S_OK);
        k_refused[i].call(bundle, buffer);
        if (!CHECK_EQ_INT_RET(count_id(g_iq, D3D12_MESSAGE_ID_INVALID_BUNDLE_API, text, NULL), 1))
            fprintf(stderr, "    %s\n", k_refused[i].method);
        CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), E_FAIL); /* "an invalid API was called during recording" */
    }
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_INVALID_BUNDLE_API, NULL, NULL), n);
    /* What a bundle may record: Close S_OK, no message. */
    CHECK_HR(ID3D12GraphicsCommandList_Reset(bundle, ba, NULL), S_OK);
    D3D12_VERTEX_BUFFER_VIEW vbv = {ID3D12Resource_GetGPUVirtualAddress(buffer), 64, 16};
    D3D12_INDEX_BUFFER_VIEW ibv = {ID3D12Resource_GetGPUVirtualAddress(buffer), 64, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetVertexBuffers(bundle, 0, 1, &vbv);
    ID3D12GraphicsCommandList_IASetIndexBuffer(bundle, &ibv);
    ID3D12GraphicsCommandList_SetGraphicsRootShaderResourceView(bundle, 0, vbv.BufferLocation);
    ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(bundle, 0, vbv.BufferLocation);
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(bundle, 3, 1, 0, 0, 0);
    ID3D12GraphicsCommandList_Dispatch(bundle, 1, 1, 1);
    ID3D12GraphicsCommandList_SetMarker(bundle, 0, NULL, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_INVALID_BUNDLE_API, NULL, NULL), n);
    /* The same refused calls on a direct list are not bundle errors (the copies and the barrier record). */
    r_copy_region(g_ctx.list, buffer);
    r_barrier(g_ctx.list, buffer);
    r_viewports(g_ctx.list, buffer);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_INVALID_BUNDLE_API, NULL, NULL), n);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
    RELEASE_LAST(buffer);
}

/* ---- inheritance and annotation ---- */

/* The caller binds a vertex buffer view 16 bytes too long; the bundle's two draws use it (inherited), the caller's
 * draw after the bundle too: three findings, the bundle's annotated with the bundle's identity and their ordinals
 * within the bundle, the caller's with its own (the bundle's draws are not counted in the caller's ordinals). */
static void test_inherits_bindings(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, L"Bundle") : NULL;
    ID3D12Resource *vb = make_buffer(g_device, D3D12_HEAP_TYPE_UPLOAD, 48);
    if (!bundle || !vb)
        return;
    CHECK_HR(ID3D12GraphicsCommandList_SetName(g_ctx.list, L"Caller"), S_OK);
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(g_ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    ID3D12GraphicsCommandList_DrawInstanced(g_ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list);
    CHECK(finish(&g_ctx));
    flush_findings();
    CHECK_EQ_INT(count_prefixed(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, prefix_of(bundle, "Bundle", "Draw", 0)), 1);
    CHECK_EQ_INT(count_prefixed(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, prefix_of(bundle, "Bundle", "Draw", 1)), 1);
    CHECK_EQ_INT(count_prefixed(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, prefix_of(g_ctx.list, "Caller", "Draw", 0)), 1);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, VB_TEXT, NULL), 3);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
    RELEASE_LAST(vb);
}

/* The bundle binds the bad view; the caller's draw after ExecuteBundle uses it ("All of the state that is set in a
 * bundle will affect the state of the parent command list"). */
static void test_state_reaches_caller(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, L"Binder") : NULL;
    ID3D12Resource *vb = make_buffer(g_device, D3D12_HEAP_TYPE_UPLOAD, 48);
    if (!bundle || !vb)
        return;
    CHECK_HR(ID3D12GraphicsCommandList_SetName(g_ctx.list, L"Caller"), S_OK);
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(bundle, 0, 1, &view);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    ID3D12GraphicsCommandList_DrawInstanced(g_ctx.list, 3, 1, 0, 0); /* before: no view bound, no finding */
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    ID3D12GraphicsCommandList_DrawInstanced(g_ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list);
    CHECK(finish(&g_ctx));
    flush_findings();
    CHECK_EQ_INT(count_prefixed(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, prefix_of(g_ctx.list, "Caller", "Draw", 1)), 1);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, VB_TEXT, NULL), 1);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
    RELEASE_LAST(vb);
}

/* The caller's submission keeps the bundle's indices: the bundle is reset and released before the findings are
 * flushed, and they still carry its identity. */
static void test_retained(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, L"Gone") : NULL;
    ID3D12Resource *vb = make_buffer(g_device, D3D12_HEAP_TYPE_UPLOAD, 48);
    if (!bundle || !vb)
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(bundle, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    char *prefix = prefix_of(bundle, "Gone", "Draw", 0);
    execute(g_ctx.queue, g_ctx.list);
    CHECK(finish(&g_ctx));
    CHECK_HR(ID3D12GraphicsCommandList_Reset(bundle, ba, NULL), S_OK); /* a new recording: the old one is retained */
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
    flush_findings();
    CHECK_EQ_INT(count_prefixed(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, prefix), 1);
    CHECK_EQ_INT(count_id(g_iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, VB_TEXT, NULL), 1);
    RELEASE_LAST(vb);
}

/* DRED: the calling list records EXECUTEBUNDLE (the bundle's draw is no breadcrumb of it), and the op's breadcrumb
 * context names the bundle. */
static void test_dred(void)
{
    ID3D12CommandAllocator *ba = new_allocator(D3D12_COMMAND_LIST_TYPE_BUNDLE);
    ID3D12GraphicsCommandList *bundle = ba ? new_list(D3D12_COMMAND_LIST_TYPE_BUNDLE, ba, L"Crumb") : NULL;
    if (!bundle)
        return;
    ID3D12GraphicsCommandList_DrawInstanced(bundle, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    ID3D12GraphicsCommandList_DrawInstanced(g_ctx.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list);
    /* Remove the device (an open list executed) with the list outstanding, and read the breadcrumbs. */
    ID3D12CommandAllocator *oa = new_allocator(D3D12_COMMAND_LIST_TYPE_DIRECT);
    ID3D12GraphicsCommandList *open = oa ? new_list(D3D12_COMMAND_LIST_TYPE_DIRECT, oa, NULL) : NULL;
    if (open)
        execute(g_ctx.queue, open);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), DXGI_ERROR_INVALID_CALL);
    ID3D12DeviceRemovedExtendedData1 *dred = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12DeviceRemovedExtendedData1, (void **)&dred), S_OK);
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
    if (dred)
        CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1(dred, &out), S_OK);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = out.pHeadAutoBreadcrumbNode;
    while (node && node->pCommandList != (ID3D12GraphicsCommandList *)g_ctx.list)
        node = node->pNext;
    CHECK(node != NULL);
    if (node) {
        CHECK_EQ_INT(node->BreadcrumbCount, 2);
        CHECK_EQ_INT(node->pCommandHistory[0], D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
        CHECK_EQ_INT(node->pCommandHistory[1], D3D12_AUTO_BREADCRUMB_OP_EXECUTEBUNDLE);
        wchar_t expected[96];
        swprintf(expected, 96, L"0x%016llX:'Crumb'", (unsigned long long)(uintptr_t)bundle);
        bool named = false;
        for (UINT i = 0; i < node->BreadcrumbContextsCount; i++)
            named |= node->pBreadcrumbContexts[i].BreadcrumbIndex == 1 &&
                     wcscmp(node->pBreadcrumbContexts[i].pContextString, expected) == 0;
        CHECK(named);
    }
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = out.pHeadAutoBreadcrumbNode; n; n = n->pNext)
        CHECK(n->pCommandList != (ID3D12GraphicsCommandList *)bundle); /* a bundle has no node of its own */
    if (dred)
        ID3D12DeviceRemovedExtendedData1_Release(dred);
    if (open)
        RELEASE_LAST(open);
    if (oa)
        RELEASE_LAST(oa);
    RELEASE_LAST(bundle);
    RELEASE_LAST(ba);
}

/* The report D12RT_DRED_DUMP wrote for the dred case's removal (complete once the device's last Release returned):
 * its EXECUTEBUNDLE op names the bundle. */
static void check_dump(void)
{
    DIR *d = opendir(g_dump_dir);
    char path[512] = "";
    unsigned files = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "d12dred-", 8) == 0 && strstr(e->d_name, ".json")) {
            files++;
            snprintf(path, sizeof path, "%s/%s", g_dump_dir, e->d_name);
        }
    }
    if (d)
        closedir(d);
    CHECK_EQ_INT(files, 1);
    FILE *f = files == 1 ? fopen(path, "r") : NULL;
    static char text[1 << 20];
    size_t length = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[length] = 0;
    if (f)
        fclose(f);
    const char *op = strstr(text, "EXECUTEBUNDLE");
    CHECK(op != NULL);
    CHECK(strstr(text, ":'Crumb'") != NULL); /* the bundle's identity, the op's context */
    if (files == 1)
        unlink(path);
    rmdir(g_dump_dir);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
        bool dred;
    } cases[] = {
        {"allocator_create", test_allocator_create, false}, {"list_create", test_list_create, false},
        {"queue_create", test_queue_create, false},         {"execute_caller", test_execute_caller, false},
        {"execute_callee", test_execute_callee, false},     {"execute_command_lists", test_execute_command_lists, false},
        {"refused_calls", test_refused_calls, false},       {"inherits_bindings", test_inherits_bindings, false},
        {"state_reaches_caller", test_state_reaches_caller, false}, {"retained", test_retained, false},
        {"dred", test_dred, true},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            if (setup(cases[i].dred))
                cases[i].run();
            teardown();
            if (cases[i].dred)
                check_dump();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_bundle CASE\n");
    return 2;
}
