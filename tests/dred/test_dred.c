/* DRED through libd12rt's public ABI and DirectX-Headers' own interfaces: the settings and their registry overlay,
 * auto-breadcrumbs (ring, markers-only, contexts of every metadata kind), the output interfaces' return codes in
 * both states, release after removal, the allocation ledger and the D12RT_DRED_DUMP file.
 * `test_dred CASE` runs one case (debug settings and removal are process-wide); CMake registers each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

/* ======== helpers ======== */

static ID3D12DeviceRemovedExtendedDataSettings2 *dred_settings(void)
{
    ID3D12DeviceRemovedExtendedDataSettings2 *settings = NULL;
    CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&settings), S_OK);
    return settings;
}

/* Force breadcrumbs / page faults / contexts on (2) or off (1), or leave them SYSTEM_CONTROLLED (0). */
static void set_dred(int breadcrumbs, int page_fault, int contexts, bool markers_only)
{
    ID3D12DeviceRemovedExtendedDataSettings2 *s = dred_settings();
    if (!s)
        return;
    ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, (D3D12_DRED_ENABLEMENT)breadcrumbs);
    ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(s, (D3D12_DRED_ENABLEMENT)page_fault);
    ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, (D3D12_DRED_ENABLEMENT)contexts);
    ID3D12DeviceRemovedExtendedDataSettings2_UseMarkersOnlyAutoBreadcrumbs(s, markers_only);
    ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
}

static ID3D12DeviceRemovedExtendedData2 *dred_of(ID3D12Device *device)
{
    ID3D12DeviceRemovedExtendedData2 *dred = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData2, (void **)&dred), S_OK);
    return dred;
}

/* Remove the device the way an application can without a GPU fault: execute a list that is still recording
 * (DXGI_ERROR_INVALID_CALL). */
static void remove_device(ID3D12Device *device, ID3D12CommandQueue *queue)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *open = NULL;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                 (void **)&allocator), S_OK);
    CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                            &IID_ID3D12GraphicsCommandList, (void **)&open), S_OK);
    if (open)
        execute(queue, open);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    if (open)
        RELEASE_LAST(open);
    if (allocator)
        RELEASE_LAST(allocator);
}

/* Every output method's return code. */
static void check_all_outputs(ID3D12DeviceRemovedExtendedData2 *dred, HRESULT breadcrumbs, HRESULT page_fault)
{
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT b0;
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 b1;
    D3D12_DRED_PAGE_FAULT_OUTPUT p0;
    D3D12_DRED_PAGE_FAULT_OUTPUT1 p1;
    D3D12_DRED_PAGE_FAULT_OUTPUT2 p2;
    ID3D12DeviceRemovedExtendedData *v0 = (ID3D12DeviceRemovedExtendedData *)dred;
    ID3D12DeviceRemovedExtendedData1 *v1 = (ID3D12DeviceRemovedExtendedData1 *)dred;
    CHECK_HR(ID3D12DeviceRemovedExtendedData_GetAutoBreadcrumbsOutput(v0, &b0), breadcrumbs);
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1(v1, &b1), breadcrumbs);
    CHECK_HR(ID3D12DeviceRemovedExtendedData_GetPageFaultAllocationOutput(v0, &p0), page_fault);
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetPageFaultAllocationOutput1(v1, &p1), page_fault);
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &p2), page_fault);
}

static const D3D12_AUTO_BREADCRUMB_NODE1 *breadcrumb_head(ID3D12DeviceRemovedExtendedData2 *dred)
{
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1((ID3D12DeviceRemovedExtendedData1 *)dred, &out),
             S_OK);
    return out.pHeadAutoBreadcrumbNode;
}

static unsigned node_count(const D3D12_AUTO_BREADCRUMB_NODE1 *node)
{
    unsigned n = 0;
    for (; node; node = node->pNext)
        n++;
    return n;
}

/* The node of `list`, or NULL. */
static const D3D12_AUTO_BREADCRUMB_NODE1 *node_of(const D3D12_AUTO_BREADCRUMB_NODE1 *node,
                                                  ID3D12GraphicsCommandList *list)
{
    for (; node; node = node->pNext)
        if (node->pCommandList == list)
            return node;
    return NULL;
}

static void barrier_uav(ID3D12GraphicsCommandList *list)
{
    D3D12_RESOURCE_BARRIER b = {0};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}

/* ======== the interfaces and their return codes ======== */

/* DRED off (the default, no registry): every interface is there, every output says "not yet" before removal and
 * "unsupported" after it; GetDeviceState is UNKNOWN in both (a removal that was no GPU fault). */
static void test_outputs_dred_off(void)
{
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12DeviceRemovedExtendedData *v0 = NULL;
    ID3D12DeviceRemovedExtendedData1 *v1 = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData, (void **)&v0), S_OK);
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData1, (void **)&v1), S_OK);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    if (!v0 || !v1 || !dred)
        return;
    /* One object: the DRED interfaces share the device's reference count and lead back to it. */
    ULONG count = ID3D12Device_AddRef(device) - 1;
    ID3D12Device_Release(device);
    ID3D12Device *back = NULL;
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_QueryInterface(dred, &IID_ID3D12Device, (void **)&back), S_OK);
    CHECK(back == device);
    CHECK_EQ_INT(ID3D12Device_Release(back), count);
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData_AddRef(v0), count + 1); /* the device's own count */
    CHECK_EQ_INT(ID3D12Device_Release(device), count);
    check_all_outputs(dred, DXGI_ERROR_NOT_CURRENTLY_AVAILABLE, DXGI_ERROR_NOT_CURRENTLY_AVAILABLE);
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_UNKNOWN);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, DXGI_ERROR_UNSUPPORTED, DXGI_ERROR_UNSUPPORTED);
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_UNKNOWN);
    ID3D12DeviceRemovedExtendedData_Release(v0);
    ID3D12DeviceRemovedExtendedData1_Release(v1);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* DRED on: "not currently available" before removal whatever is enabled; S_OK after; NULL output E_INVALIDARG. */
static void test_outputs_dred_on(void)
{
    set_dred(2, 2, 2, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    if (!dred)
        return;
    check_all_outputs(dred, DXGI_ERROR_NOT_CURRENTLY_AVAILABLE, DXGI_ERROR_NOT_CURRENTLY_AVAILABLE);
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, NULL),
             DXGI_ERROR_NOT_CURRENTLY_AVAILABLE);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, S_OK, S_OK);
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, NULL), E_INVALIDARG);
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1((ID3D12DeviceRemovedExtendedData1 *)dred, NULL),
             E_INVALIDARG);
    /* Not a page fault: S_OK with VA 0 and no nodes. */
    D3D12_DRED_PAGE_FAULT_OUTPUT2 p2;
    memset(&p2, 0xAB, sizeof p2);
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &p2), S_OK);
    CHECK_EQ_INT(p2.PageFaultVA, 0);
    CHECK(p2.pHeadExistingAllocationNode == NULL && p2.pHeadRecentFreedAllocationNode == NULL);
    CHECK_EQ_INT(p2.PageFaultFlags, 0);
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_UNKNOWN);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* Only breadcrumbs on: page-fault output is UNSUPPORTED after removal, breadcrumbs S_OK (and the reverse). */
static void outputs_one_feature(bool breadcrumbs)
{
    set_dred(breadcrumbs ? 2 : 1, breadcrumbs ? 1 : 2, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    if (!dred)
        return;
    remove_device(device, ctx.queue);
    check_all_outputs(dred, breadcrumbs ? S_OK : DXGI_ERROR_UNSUPPORTED, breadcrumbs ? DXGI_ERROR_UNSUPPORTED : S_OK);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_outputs_breadcrumbs_only(void)
{
    outputs_one_feature(true);
}

static void test_outputs_page_fault_only(void)
{
    outputs_one_feature(false);
}

/* ======== settings ======== */

/* One object, one chain: the three settings interfaces are one object's. */
static void test_settings_one_object(void)
{
    ID3D12DeviceRemovedExtendedDataSettings *s0 = NULL;
    ID3D12DeviceRemovedExtendedDataSettings1 *s1 = NULL;
    ID3D12DeviceRemovedExtendedDataSettings2 *s2 = dred_settings();
    CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&s0), S_OK);
    CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings1, (void **)&s1), S_OK);
    CHECK(s0 && (void *)s0 == (void *)s1 && (void *)s1 == (void *)s2);
    ID3D12DeviceRemovedExtendedDataSettings *via_qi = NULL;
    if (s2)
        CHECK_HR(ID3D12DeviceRemovedExtendedDataSettings2_QueryInterface(
                     s2, &IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&via_qi), S_OK);
    CHECK((void *)via_qi == (void *)s2);
    if (via_qi)
        ID3D12DeviceRemovedExtendedDataSettings_Release(via_qi);
    if (s0)
        ID3D12DeviceRemovedExtendedDataSettings_Release(s0);
    if (s1)
        ID3D12DeviceRemovedExtendedDataSettings1_Release(s1);
    if (s2)
        ID3D12DeviceRemovedExtendedDataSettings2_Release(s2);
}

/* Latched at D3D12CreateDevice: a change afterwards does not touch that device; the next device sees it. */
static void test_settings_latched(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    set_dred(1, 2, 0, false); /* after creation: not this device's */
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, S_OK, DXGI_ERROR_UNSUPPORTED);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
    /* The removed device is gone: a new one latches the settings as they are now. */
    device = create_device(false);
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    dred = dred_of(device);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, DXGI_ERROR_UNSUPPORTED, S_OK);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* Contexts and markers-only apply only with auto-breadcrumbs: with breadcrumbs off, contexts on is still off. */
static void test_settings_contexts_need_breadcrumbs(void)
{
    set_dred(1, 1, 2, true);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, DXGI_ERROR_UNSUPPORTED, DXGI_ERROR_UNSUPPORTED);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* ---- the registry overlay ---- */

static char tmp_dir[256];

static const char *tmp_file(const char *name)
{
    static char path[512];
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/d12dred_test_XXXXXX");
        CHECK(mkdtemp(tmp_dir) != NULL);
    }
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

/* A hive file for app "dredapp" with the given dword values (NULL name ends the list). */
static void write_hive(const char *file, const char *root, const char *const *names, const unsigned *values)
{
    FILE *f = fopen(tmp_file(file), "w");
    if (!CHECK(f != NULL))
        return;
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[%s\\Software\\Microsoft\\Direct3D\\Direct3D12\\dredapp]\n", root);
    for (unsigned i = 0; names[i]; i++)
        fprintf(f, "\"%s\"=dword:%08x\n", names[i], values[i]);
    fclose(f);
}

/* What a fresh device gets for breadcrumbs and page faults (S_OK: on, UNSUPPORTED: off), after a removal. */
static void expect_device(HRESULT breadcrumbs, HRESULT page_fault)
{
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    check_all_outputs(dred, breadcrumbs, page_fault);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_registry_overlay(void)
{
    setenv("D12RT_APP_NAME", "dredapp", 1);
    setenv("D12RT_HKCU", tmp_file("user.reg"), 1);
    char hklm[512];
    snprintf(hklm, sizeof hklm, "%s", tmp_file("system.reg"));
    setenv("D12RT_HKLM", hklm, 1);
    const char *both[] = {"DredAutoBreadcrumbs", "DredPageFault", NULL};
    /* HKLM alone: FORCED_ON for both: an application that leaves them SYSTEM_CONTROLLED gets them. */
    write_hive("system.reg", "HKEY_LOCAL_MACHINE", both, (const unsigned[]){2, 2});
    unlink(tmp_file("user.reg"));
    set_dred(0, 0, 0, false);
    expect_device(S_OK, S_OK);
    /* HKCU wins over HKLM: breadcrumbs FORCED_OFF there. */
    const char *one[] = {"DredAutoBreadcrumbs", NULL};
    write_hive("user.reg", "HKEY_CURRENT_USER", one, (const unsigned[]){1});
    expect_device(DXGI_ERROR_UNSUPPORTED, S_OK);
    /* The application's FORCED_* wins over the registry, both ways. */
    set_dred(2, 1, 0, false);
    expect_device(S_OK, DXGI_ERROR_UNSUPPORTED);
    /* A value that is no D3D12_DRED_ENABLEMENT leaves it SYSTEM_CONTROLLED (off). */
    write_hive("user.reg", "HKEY_CURRENT_USER", both, (const unsigned[]){7, 0});
    unlink(hklm);
    set_dred(0, 0, 0, false);
    expect_device(DXGI_ERROR_UNSUPPORTED, DXGI_ERROR_UNSUPPORTED);
    unlink(tmp_file("user.reg"));
    rmdir(tmp_dir);
}

/* ======== auto-breadcrumbs ======== */

/* Ops recorded, a list outstanding at removal (executed, no Signal after it), names A and W, the same pointers on
 * every call, NODE1 castable to NODE. */
static void test_breadcrumbs_node(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *a = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12Resource *b = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Scene list");
    ID3D12GraphicsCommandList_SetPrivateData(ctx.list, &WKPDID_D3DDebugObjectName, 6, "scene!");
    ID3D12CommandQueue_SetName(ctx.queue, L"Main queue");
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 0, L"Frame", sizeof(L"Frame"));
    transition(ctx.list, a, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, b, 0, a, 0, 128);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, b, a);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, NULL, 0);
    /* Not recorded: a copy the runtime refuses (no destination) leaves no breadcrumb. */
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, NULL, 0, a, 0, 4096);
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), E_INVALIDARG);
    /* Recorded again without the bad copy. */
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 0, L"Frame", sizeof(L"Frame"));
    transition(ctx.list, a, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, b, 0, a, 0, 128);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, b, a);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, NULL, 0);
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *head = breadcrumb_head(dred);
    CHECK_EQ_INT(node_count(head), 1);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(head, ctx.list);
    if (!CHECK(node != NULL))
        return;
    CHECK(node->pCommandQueue == ctx.queue);
    CHECK(node->pCommandListDebugNameW && wcscmp(node->pCommandListDebugNameW, L"Scene list") == 0);
    CHECK_EQ_STR(node->pCommandListDebugNameA, "scene!");
    CHECK(node->pCommandQueueDebugNameW && wcscmp(node->pCommandQueueDebugNameW, L"Main queue") == 0);
    CHECK(node->pCommandQueueDebugNameA == NULL);
    CHECK_EQ_INT(node->BreadcrumbCount, 8);
    static const D3D12_AUTO_BREADCRUMB_OP expected[] = {
        D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT, D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER,
        D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION, D3D12_AUTO_BREADCRUMB_OP_COPYRESOURCE,
        D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED, D3D12_AUTO_BREADCRUMB_OP_DISPATCH, D3D12_AUTO_BREADCRUMB_OP_SETMARKER,
        D3D12_AUTO_BREADCRUMB_OP_ENDEVENT};
    for (unsigned i = 0; i < 8 && node->pCommandHistory; i++)
        CHECK_EQ_INT(node->pCommandHistory[i], expected[i]);
    /* The completed count: never NULL, at most BreadcrumbCount. */
    CHECK(node->pLastBreadcrumbValue != NULL);
    if (node->pLastBreadcrumbValue)
        CHECK(*node->pLastBreadcrumbValue <= node->BreadcrumbCount);
    CHECK_EQ_INT(node->BreadcrumbContextsCount, 0); /* contexts off */
    CHECK(node->pBreadcrumbContexts == NULL);
    /* Immutable: the same pointers again; NODE1 serves the NODE output too. */
    CHECK(breadcrumb_head(dred) == head);
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT v0 = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData_GetAutoBreadcrumbsOutput((ID3D12DeviceRemovedExtendedData *)dred, &v0),
             S_OK);
    CHECK((const void *)v0.pHeadAutoBreadcrumbNode == (const void *)head);
    /* Release everything but the device: the output stays readable until the device's last Release. */
    ID3D12Resource_Release(a);
    ID3D12Resource_Release(b);
    ID3D12GraphicsCommandList *list = ctx.list;
    release_context(&ctx);
    CHECK(breadcrumb_head(dred) == head);
    CHECK(node->pCommandList == list); /* the address, never dereferenced */
    CHECK_EQ_INT(node->pCommandHistory[7], D3D12_AUTO_BREADCRUMB_OP_ENDEVENT);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    RELEASE_LAST(device);
}

/* A list that completed (a Signal after it was reached) is not outstanding; one executed after it is. Two queues:
 * nodes grouped per queue. */
static void test_breadcrumbs_outstanding_only(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context done, pending;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &done) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &pending))
        return;
    barrier_uav(done.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(done.list), S_OK);
    execute(done.queue, done.list);
    CHECK(finish(&done));
    ID3D12GraphicsCommandList_Dispatch(pending.list, 1, 1, 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(pending.list), S_OK);
    execute(pending.queue, pending.list);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, done.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *head = breadcrumb_head(dred);
    CHECK_EQ_INT(node_count(head), 1);
    CHECK(node_of(head, done.list) == NULL);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(head, pending.list);
    CHECK(node && node->pCommandQueue == pending.queue && node->BreadcrumbCount == 1);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&done);
    release_context(&pending);
    RELEASE_LAST(device);
}

/* The ring: 65 536 slots, op i in slot i % 65536; BreadcrumbCount keeps counting. */
static void test_breadcrumbs_ring_wrap(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    const unsigned total = 65536 + 1000;
    static const D3D12_AUTO_BREADCRUMB_OP cycle[3] = {D3D12_AUTO_BREADCRUMB_OP_SETMARKER,
                                                      D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER,
                                                      D3D12_AUTO_BREADCRUMB_OP_SETMARKER};
    for (unsigned i = 0; i < total; i++) {
        if (i >= 65536 && i % 7 == 0)
            ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1); /* the overwritten slots differ from the first lap */
        else if (cycle[i % 3] == D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER)
            barrier_uav(ctx.list);
        else
            ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, NULL, 0);
    }
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    execute(ctx.queue, ctx.list);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (!CHECK(node != NULL) || !CHECK(node->pCommandHistory != NULL))
        return;
    CHECK_EQ_INT(node->BreadcrumbCount, total);
    unsigned wrong = 0;
    for (unsigned i = total - 65536; i < total; i++) {
        D3D12_AUTO_BREADCRUMB_OP want = i >= 65536 && i % 7 == 0 ? D3D12_AUTO_BREADCRUMB_OP_DISPATCH : cycle[i % 3];
        wrong += node->pCommandHistory[i % 65536] != want;
    }
    CHECK_EQ_INT(wrong, 0);
    /* slot 0 holds op 65536 (a Dispatch: 65536 % 7 == 0? no: 65536 = 7 * 9362 + 2), so check one that is */
    CHECK_EQ_INT(node->pCommandHistory[65541 % 65536], D3D12_AUTO_BREADCRUMB_OP_DISPATCH); /* 65541 = 7 * 9363 */
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* UseMarkersOnlyAutoBreadcrumbs: only SetMarker, BeginEvent and EndEvent are recorded; contexts still apply. */
static void test_breadcrumbs_markers_only(void)
{
    set_dred(2, 0, 2, true);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 1, "pass", 5);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    barrier_uav(ctx.list);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 1, "mark", 5);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1);
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (!CHECK(node != NULL))
        return;
    CHECK_EQ_INT(node->BreadcrumbCount, 3);
    CHECK_EQ_INT(node->pCommandHistory[0], D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT);
    CHECK_EQ_INT(node->pCommandHistory[1], D3D12_AUTO_BREADCRUMB_OP_SETMARKER);
    CHECK_EQ_INT(node->pCommandHistory[2], D3D12_AUTO_BREADCRUMB_OP_ENDEVENT);
    CHECK_EQ_INT(node->BreadcrumbContextsCount, 2);
    if (node->BreadcrumbContextsCount == 2) {
        CHECK_EQ_INT(node->pBreadcrumbContexts[0].BreadcrumbIndex, 0);
        CHECK(wcscmp(node->pBreadcrumbContexts[0].pContextString, L"pass") == 0);
        CHECK_EQ_INT(node->pBreadcrumbContexts[1].BreadcrumbIndex, 1);
        CHECK(wcscmp(node->pBreadcrumbContexts[1].pContextString, L"mark") == 0);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* ---- contexts of every metadata kind ---- */

/* A legacy PIX3 blob (WINPIX_EVENT_PIX3BLOB_VERSION, PIXEventsLegacy.h): event info (type << 10), color, the format
 * string with its string info (8-byte chunks, ANSI), then the arguments. Returns the size in bytes. */
static size_t pix_legacy(uint64_t *q, unsigned type, const char *format, const uint64_t *args, unsigned nargs,
                         const char *string_arg)
{
    size_t n = 0;
    q[n++] = (uint64_t)type << 10;
    q[n++] = 0xFF00FF00u; /* color */
    q[n++] = (8ull << 55) | (1ull << 54); /* string info: chunk 8, ANSI */
    size_t len = strlen(format) + 1;
    memset(&q[n], 0, (len + 7) / 8 * 8);
    memcpy(&q[n], format, len);
    n += (len + 7) / 8;
    for (unsigned i = 0; i < nargs; i++)
        q[n++] = args[i];
    if (string_arg) {
        q[n++] = (8ull << 55) | (1ull << 54);
        len = strlen(string_arg) + 1;
        memset(&q[n], 0, (len + 7) / 8 * 8);
        memcpy(&q[n], string_arg, len);
        n += (len + 7) / 8;
    }
    return n * 8;
}

/* A V2 blob (WINPIX_EVENT_PIX3BLOB_V2, PIXEventsCommon.h): size | type << 7 | metadata << 12, an explicit color, the
 * string (no string info), then the arguments. */
static size_t pix_v2(uint64_t *q, unsigned type, bool ansi, const char *format, const uint64_t *args, unsigned nargs)
{
    size_t n = 1;
    q[n++] = 0xFF00FF00u;
    size_t len = strlen(format) + 1;
    if (ansi) {
        memset(&q[n], 0, (len + 7) / 8 * 8);
        memcpy(&q[n], format, len);
        n += (len + 7) / 8;
    } else { /* UTF-16, as a 2-byte WCHAR writes it */
        size_t bytes = len * 2;
        unsigned char *p = (unsigned char *)&q[n];
        memset(p, 0, (bytes + 7) / 8 * 8);
        for (size_t i = 0; i < len; i++)
            p[2 * i] = (unsigned char)format[i];
        n += (bytes + 7) / 8;
    }
    for (unsigned i = 0; i < nargs; i++)
        q[n++] = args[i];
    unsigned metadata = 0xF0 | (ansi ? 0x2 : 0);
    q[0] = (uint64_t)n | (uint64_t)type << 7 | (uint64_t)metadata << 12;
    return n * 8;
}

static void test_contexts_metadata(void)
{
    set_dred(2, 0, 2, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList *l = ctx.list;
    /* 0: wchar_t (4 bytes a character here), Size in bytes with the terminator */
    ID3D12GraphicsCommandList_SetMarker(l, 0, L"wide \u00e9", sizeof(L"wide \u00e9"));                    /* op 0 */
    /* 0 from a 2-byte-WCHAR port: UTF-16 told apart by its Size */
    static const uint16_t utf16[] = {'u', 't', 'f', '1', '6', 0};
    ID3D12GraphicsCommandList_SetMarker(l, 0, utf16, sizeof utf16);                                         /* op 1 */
    /* 1: ANSI, widened (UTF-8 here) */
    ID3D12GraphicsCommandList_BeginEvent(l, 1, "ansi caf\xc3\xa9", 10);                                      /* op 2 */
    ID3D12GraphicsCommandList_EndEvent(l);                                                                   /* op 3: no context */
    uint64_t blob[32];
    const uint64_t args[] = {42, (uint64_t)-7};
    size_t size = pix_legacy(blob, 0x007, "draw %d of %i: %s", args, 2, "Mesh");
    ID3D12GraphicsCommandList_SetMarker(l, 2, blob, (UINT)size);                                           /* op 4 */
    size = pix_legacy(blob, 0x002, "no args %d", NULL, 0, NULL);
    ID3D12GraphicsCommandList_BeginEvent(l, 2, blob, (UINT)size);                                          /* op 5 */
    ID3D12GraphicsCommandList_EndEvent(l);                                                                   /* op 6 */
    double pi = 3.25;
    uint64_t pi_bits;
    memcpy(&pi_bits, &pi, sizeof pi_bits);
    const uint64_t v2args[] = {0x1F, pi_bits};
    size = pix_v2(blob, 2, true, "v2 %x %.2f", v2args, 2);
    ID3D12GraphicsCommandList_SetMarker(l, 6345127, blob, (UINT)size);                                     /* op 7 */
    size = pix_v2(blob, 1, false, "wide v2", NULL, 0);
    ID3D12GraphicsCommandList_BeginEvent(l, 6345127, blob, (UINT)size);                                    /* op 8 */
    /* Malformed and short payloads: no context, the op is still a breadcrumb; nothing is read past Size. */
    ID3D12GraphicsCommandList_SetMarker(l, 2, blob, 7);                   /* op 9: shorter than the header */
    uint64_t bad[4] = {0x007ull << 10, 0, 0x1234 /* string info with unused bits */, 0};
    ID3D12GraphicsCommandList_SetMarker(l, 2, bad, sizeof bad);          /* op 10: invalid string info */
    ID3D12GraphicsCommandList_SetMarker(l, 0, L"abc", 0);                /* op 11: Size 0 */
    ID3D12GraphicsCommandList_SetMarker(l, 0, NULL, 64);                 /* op 12: no data */
    ID3D12GraphicsCommandList_SetMarker(l, 77, "x", 2);                  /* op 13: unknown metadata */
    char unterminated[4] = {'a', 'b', 'c', 'd'};
    ID3D12GraphicsCommandList_SetMarker(l, 1, unterminated, 3);          /* op 14: not terminated within Size */
    /* A truncated legacy blob: the format string runs to the end of Size */
    size = pix_legacy(blob, 0x008, "truncated string here", NULL, 0, NULL);
    ID3D12GraphicsCommandList_SetMarker(l, 2, blob, 24 + 8);              /* op 15 */
    ID3D12GraphicsCommandList_EndEvent(l);                                /* op 16 */
    CHECK_HR(ID3D12GraphicsCommandList_Close(l), S_OK);
    execute(ctx.queue, l);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), l);
    if (!CHECK(node != NULL))
        return;
    CHECK_EQ_INT(node->BreadcrumbCount, 17);
    static const struct {
        UINT index;
        const wchar_t *text;
    } want[] = {{0, L"wide \u00e9"}, {1, L"utf16"}, {2, L"ansi caf\u00e9"}, {4, L"draw 42 of -7: Mesh"},
                {5, L"no args %d"}, {7, L"v2 1f 3.25"}, {8, L"wide v2"}, {14, L"abc"}, {15, L"truncate"}};
    const unsigned n = sizeof want / sizeof want[0];
    CHECK_EQ_INT(node->BreadcrumbContextsCount, n);
    for (unsigned i = 0; i < n && i < node->BreadcrumbContextsCount; i++) {
        CHECK_EQ_INT(node->pBreadcrumbContexts[i].BreadcrumbIndex, want[i].index);
        if (!CHECK(wcscmp(node->pBreadcrumbContexts[i].pContextString, want[i].text) == 0))
            fprintf(stderr, "    context %u: \"%ls\", expected \"%ls\"\n", i, node->pBreadcrumbContexts[i].pContextString,
                    want[i].text);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* Queue markers are accepted (no "not implemented"), and appear nowhere in DRED's list nodes. */
static void test_queue_markers(void)
{
    set_dred(2, 0, 2, false);
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12CommandQueue_BeginEvent(ctx.queue, 0, L"queue event", sizeof(L"queue event"));
    ID3D12CommandQueue_SetMarker(ctx.queue, 1, "queue marker", 13);
    ID3D12CommandQueue_EndEvent(ctx.queue);
    CHECK_EQ_INT(iq ? ID3D12InfoQueue_GetNumStoredMessages(iq) : 1, 0);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, L"list", sizeof(L"list"));
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *head = breadcrumb_head(dred);
    CHECK_EQ_INT(node_count(head), 1);
    CHECK(head && head->BreadcrumbCount == 1 && head->BreadcrumbContextsCount == 1);
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    if (iq)
        ID3D12InfoQueue_Release(iq);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* With breadcrumbs off, markers still record nothing and cost nothing; recording works as before. */
static void test_breadcrumbs_off_records_nothing(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, L"x", sizeof(L"x"));
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 0, L"x", sizeof(L"x"));
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    CHECK_EQ_INT(iq ? ID3D12InfoQueue_GetNumStoredMessages(iq) : 1, 0); /* no "not implemented" */
    if (iq)
        ID3D12InfoQueue_Release(iq);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* The completed count the GPU writes (write-immediate, DDI 0127): a list that ran to its end shows every op
 * completed once its execution is done; the frozen value is the state at removal. */
static void test_breadcrumbs_completed_count(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    for (int i = 0; i < 5; i++)
        barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    /* Executed, then a Signal on another queue's fence path that is never reached: it stays outstanding. Wait for
     * the GPU to run the list by signalling a second fence through a second execution of an empty list. */
    execute(ctx.queue, ctx.list);
    ID3D12Fence *fence = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    /* A Wait the GPU can never pass keeps the list's submission "not known complete"... but the list itself ran:
     * its counter says 5. */
    sleep_ms(200);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (CHECK(node != NULL) && CHECK(node->pLastBreadcrumbValue != NULL)) {
        CHECK_EQ_INT(node->BreadcrumbCount, 5);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 5);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    ID3D12Fence_Release(fence);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static unsigned dump_files(const char *dir, char *path, size_t size);

/* A driver built before DDI 0127 (no write-immediate; CMake runs this case on the gpu_ddi shim, which lists builds up
 * to 0126): the history is recorded, the completed count reads 0 (nothing is known to have completed: docs/dred.md),
 * the pointer is still never NULL. */
static void test_breadcrumbs_pre_0127_driver(void)
{
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    barrier_uav(ctx.list);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, NULL, 0);
    barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    sleep_ms(100); /* the GPU ran it; without a Signal after it, nothing knows */
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    remove_device(device, ctx.queue);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (CHECK(node != NULL) && CHECK(node->pLastBreadcrumbValue != NULL)) {
        CHECK_EQ_INT(node->BreadcrumbCount, 3);
        CHECK_EQ_INT(node->pCommandHistory[1], D3D12_AUTO_BREADCRUMB_OP_SETMARKER);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 0);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* ======== real faults and hangs (the reference driver) ======== */

/* Wait (up to WAIT_MS) for the device to be removed with `reason`. */
static bool wait_removed(ID3D12Device *device, HRESULT reason)
{
    for (int i = 0; i < WAIT_MS / 5; i++) {
        HRESULT hr = ID3D12Device_GetDeviceRemovedReason(device);
        if (hr != S_OK)
            return CHECK_HR(hr, reason);
        sleep_ms(5);
    }
    return CHECK(!"the device was never removed");
}

static void enable_messages(void)
{
    ID3D12Debug7 *debug = NULL;
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK)) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
}

/* Record "Begin, draw reading `va`, End" into ctx's list (op 0 BEGINEVENT, op 1 DRAWINSTANCED, op 2 ENDEVENT). */
static void record_bad_draw(gpu_context *ctx, D3D12_GPU_VIRTUAL_ADDRESS va)
{
    ID3D12GraphicsCommandList_BeginEvent(ctx->list, 0, L"Draw scene", sizeof(L"Draw scene"));
    D3D12_VERTEX_BUFFER_VIEW view = {va, 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx->list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx->list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_EndEvent(ctx->list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
}

typedef enum fault_kind { FAULT_USE_AFTER_FREE, FAULT_OUT_OF_BOUNDS, FAULT_NEVER_MAPPED } fault_kind;

static void page_fault_case(fault_kind kind)
{
    char dir[] = "/tmp/d12dred_fault_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    set_dred(2, 2, 2, false);
    enable_messages();
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12InfoQueue *iq = info_queue_of(device);
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Scene");
    ID3D12Resource *victim = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!victim)
        return;
    ID3D12Resource_SetName(victim, L"Victim");
    D3D12_GPU_VIRTUAL_ADDRESS base = ID3D12Resource_GetGPUVirtualAddress(victim);
    D3D12_GPU_VIRTUAL_ADDRESS va = kind == FAULT_USE_AFTER_FREE ? base + 64
                                   : kind == FAULT_OUT_OF_BOUNDS ? base + 0x10000 + 16
                                                                 : 0x00007F0000000000ull;
    record_bad_draw(&ctx, va);
    if (kind == FAULT_USE_AFTER_FREE) {
        RELEASE_LAST(victim); /* released after the list was recorded */
        victim = NULL;
    }
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    execute(ctx.queue, ctx.list);
    if (!wait_removed(device, DXGI_ERROR_DEVICE_HUNG))
        return;
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_PAGEFAULT);
    if (getenv("DUMP_MESSAGES"))
        dump_messages(iq);
    D3D12_DRED_PAGE_FAULT_OUTPUT2 pf = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &pf), S_OK);
    CHECK(pf.PageFaultVA != 0 && pf.PageFaultVA >= (va & ~0xFFFFull) && pf.PageFaultVA < va + 48);
    CHECK(pf.pHeadExistingAllocationNode == NULL); /* a fault is in no live allocation */
    if (kind == FAULT_USE_AFTER_FREE) {
        const D3D12_DRED_ALLOCATION_NODE1 *freed = pf.pHeadRecentFreedAllocationNode;
        if (CHECK(freed != NULL)) {
            CHECK(freed->ObjectNameW && wcscmp(freed->ObjectNameW, L"Victim") == 0);
            CHECK_EQ_INT(freed->AllocationType, D3D12_DRED_ALLOCATION_TYPE_RESOURCE);
            CHECK(freed->pNext == NULL); /* one node: no separate heap node */
        }
    } else {
        CHECK(pf.pHeadRecentFreedAllocationNode == NULL);
    }
    /* The breadcrumbs: op 1 (the draw) never completed; the count says 1 (the BeginEvent). */
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (CHECK(node != NULL)) {
        CHECK_EQ_INT(node->BreadcrumbCount, 3);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 1);
        CHECK_EQ_INT(node->pCommandHistory[1], D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    if (iq)
        ID3D12InfoQueue_Release(iq);
    if (victim)
        RELEASE_LAST(victim);
    release_context(&ctx);
    RELEASE_LAST(device);
    /* The report: exact attribution with the op's vertex buffer and the driver's message, and the verdict. */
    char path[1024] = "";
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    d12dred_report *r = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        CHECK_EQ_INT(r->device_state, D3D12_DRED_DEVICE_STATE_PAGEFAULT);
        CHECK_EQ_STR(r->reason_name, "DXGI_ERROR_DEVICE_HUNG");
        const d12dred_op *op = r->node_count == 1 && r->nodes[0]->op_count == 3 ? &r->nodes[0]->ops[1] : NULL;
        if (CHECK(op != NULL)) {
            CHECK_EQ_INT(op->attribution, D12DRED_ATTRIBUTION_EXACT);
            CHECK_EQ_INT(op->depth, 1);
            CHECK(op->state && op->state->vertex_buffer_count == 1 && op->state->vertex_buffers[0].va == va);
            CHECK(op->message_count >= 1);
            CHECK_EQ_INT(r->nodes[0]->ops[0].attribution, D12DRED_ATTRIBUTION_NONE);
            CHECK_EQ_STR(r->nodes[0]->ops[0].context, "Draw scene");
        }
        CHECK(r->flush_message_count >= 1);
        if (CHECK(r->page_fault != NULL)) {
            static const d12dred_verdict want[] = {D12DRED_VERDICT_USE_AFTER_FREE, D12DRED_VERDICT_OUT_OF_BOUNDS,
                                                   D12DRED_VERDICT_NEVER_MAPPED};
            CHECK_EQ_INT(r->page_fault->verdict, want[kind]);
            if (kind == FAULT_USE_AFTER_FREE && CHECK_EQ_INT_RET(r->page_fault->freed_count, 1)) {
                CHECK_EQ_STR(r->page_fault->freed[0]->name, "Victim");
                CHECK(r->page_fault->freed[0]->freed_after_recording);
                CHECK_EQ_INT(r->page_fault->freed[0]->va, base);
                CHECK_EQ_INT(r->page_fault->freed[0]->size, 0x10000);
            }
            if (kind == FAULT_OUT_OF_BOUNDS && CHECK(r->page_fault->below != NULL)) {
                CHECK_EQ_STR(r->page_fault->below->name, "Victim");
                CHECK_EQ_INT(r->page_fault->below->width, 256);
                CHECK_EQ_INT(r->page_fault->below->distance, r->page_fault->va - (base + 0x10000));
            }
        }
        d12dred_report_free(r);
    } else {
        fprintf(stderr, "    %s\n", error);
    }
    unlink(path);
    rmdir(dir);
}

static void test_fault_use_after_free(void)
{
    page_fault_case(FAULT_USE_AFTER_FREE);
}

static void test_fault_out_of_bounds(void)
{
    page_fault_case(FAULT_OUT_OF_BOUNDS);
}

static void test_fault_never_mapped(void)
{
    page_fault_case(FAULT_NEVER_MAPPED);
}

/* A page fault on a compute queue: a Dispatch whose root SRV points at no buffer. */
static void test_fault_compute_queue(void)
{
    set_dred(2, 2, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &ctx))
        return;
    D3D12_GPU_VIRTUAL_ADDRESS va = 0x00007D0000000000ull;
    ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(ctx.list, 0, va);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, NULL, 0);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    execute(ctx.queue, ctx.list);
    if (!wait_removed(device, DXGI_ERROR_DEVICE_HUNG))
        return;
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_PAGEFAULT);
    D3D12_DRED_PAGE_FAULT_OUTPUT pf = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData_GetPageFaultAllocationOutput((ID3D12DeviceRemovedExtendedData *)dred, &pf),
             S_OK);
    CHECK(pf.PageFaultVA >= (va & ~0xFFFFull) && pf.PageFaultVA < va + 0x10000);
    CHECK(pf.pHeadExistingAllocationNode == NULL && pf.pHeadRecentFreedAllocationNode == NULL);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (CHECK(node != NULL)) {
        CHECK(node->pCommandQueue == ctx.queue);
        CHECK_EQ_INT(node->BreadcrumbCount, 2);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 1); /* the marker completed, the dispatch did not */
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* A hang (TDR): state HUNG; the page-fault output is S_OK with VA 0 and no nodes; the hung draw never completed. */
static void test_hang(void)
{
    char dir[] = "/tmp/d12dred_hang_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    set_dred(2, 2, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *vb = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    D3D12_VERTEX_BUFFER_VIEW view = {vb ? ID3D12Resource_GetGPUVirtualAddress(vb) : 0, 48, 16};
    barrier_uav(ctx.list);
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 4000000000u, 0, 0); /* an absurd instance count */
    barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    execute(ctx.queue, ctx.list);
    if (!wait_removed(device, DXGI_ERROR_DEVICE_HUNG))
        return;
    CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_HUNG);
    D3D12_DRED_PAGE_FAULT_OUTPUT2 pf;
    memset(&pf, 0x5A, sizeof pf);
    CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &pf), S_OK);
    CHECK_EQ_INT(pf.PageFaultVA, 0);
    CHECK(pf.pHeadExistingAllocationNode == NULL && pf.pHeadRecentFreedAllocationNode == NULL);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = node_of(breadcrumb_head(dred), ctx.list);
    if (CHECK(node != NULL)) {
        CHECK_EQ_INT(node->BreadcrumbCount, 3);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 1); /* the barrier completed, the draw never did */
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    ID3D12CommandQueue_SetName(ctx.queue, L"Hung queue");
    if (vb)
        RELEASE_LAST(vb);
    release_context(&ctx);
    RELEASE_LAST(device);
    /* The report: the draw attributed (exact when the watchdog knew the op, else suspect), its queue faulted, its
     * submission in progress. */
    char path[1024] = "";
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    d12dred_report *r = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        CHECK_EQ_INT(r->device_state, D3D12_DRED_DEVICE_STATE_HUNG);
        CHECK(r->page_fault == NULL);
        if (CHECK_EQ_INT_RET(r->node_count, 1) && CHECK_EQ_INT_RET(r->nodes[0]->op_count, 3)) {
            const d12dred_op *draw = &r->nodes[0]->ops[1];
            CHECK_EQ_INT(draw->op, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
            CHECK(draw->attribution == D12DRED_ATTRIBUTION_EXACT || draw->attribution == D12DRED_ATTRIBUTION_SUSPECT);
            CHECK(draw->state && draw->state->vertex_buffer_count == 1);
            CHECK_EQ_INT(r->nodes[0]->ops[0].attribution, D12DRED_ATTRIBUTION_NONE);
        }
        bool faulted = false;
        for (size_t i = 0; i < r->queue_count; i++) {
            if (r->queues[i]->faulted) {
                faulted = true;
                if (CHECK_EQ_INT_RET(r->queues[i]->submission_count, 1))
                    CHECK_EQ_INT(r->queues[i]->submissions[0]->status, D12DRED_SUBMISSION_IN_PROGRESS);
            }
        }
        CHECK(faulted);
        d12dred_report_free(r);
    } else {
        fprintf(stderr, "    %s\n", error);
    }
    unlink(path);
    rmdir(dir);
}

/* The faulting op's index buffer view and root descriptors are in the report; a pending GPU Wait shows with the fence
 * value from before removal. */
static void test_fault_op_state_and_waits(void)
{
    char dir[] = "/tmp/d12dred_state_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    set_dred(2, 2, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx, waiting;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &waiting))
        return;
    ID3D12Fence_SetName(waiting.fence, L"Never");
    CHECK_HR(ID3D12Fence_Signal(waiting.fence, 5), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(waiting.queue, waiting.fence, 9), S_OK); /* never signalled: not a hang */
    ID3D12Resource *vb = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12Resource *cb = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!vb || !cb)
        return;
    ID3D12Resource_SetName(vb, L"Vertices");
    ID3D12Resource_SetName(cb, L"Constants");
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 256, 16};
    D3D12_INDEX_BUFFER_VIEW bad = {0x00007E0000000000ull, 64, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_IASetIndexBuffer(ctx.list, &bad);
    ID3D12GraphicsCommandList_SetGraphicsRootConstantBufferView(ctx.list, 2, ID3D12Resource_GetGPUVirtualAddress(cb));
    ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(ctx.list, 1, 0x1234000); /* compute: not the draw's */
    ID3D12GraphicsCommandList_DrawIndexedInstanced(ctx.list, 3, 1, 0, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    wait_removed(device, DXGI_ERROR_DEVICE_HUNG);
    RELEASE_LAST(vb);
    RELEASE_LAST(cb);
    release_context(&ctx);
    release_context(&waiting);
    RELEASE_LAST(device);
    char path[1024] = "";
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    d12dred_report *r = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        const d12dred_op *op = r->node_count == 1 && r->nodes[0]->op_count == 1 ? &r->nodes[0]->ops[0] : NULL;
        if (CHECK(op != NULL) && CHECK(op->state != NULL)) {
            CHECK_EQ_INT(op->op, D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED);
            CHECK_EQ_INT(op->attribution, D12DRED_ATTRIBUTION_EXACT);
            CHECK(op->state->has_index_buffer && op->state->index_buffer.va == bad.BufferLocation);
            CHECK_EQ_INT(op->state->index_buffer.format, DXGI_FORMAT_R16_UINT);
            CHECK_EQ_INT(op->state->vertex_buffer_count, 1);
            if (op->state->vertex_buffer_count == 1)
                CHECK_EQ_STR(op->state->vertex_buffers[0].resource, "Vertices");
            if (CHECK_EQ_INT_RET(op->state->root_descriptor_count, 1)) {
                CHECK_EQ_INT(op->state->root_descriptors[0].parameter, 2);
                CHECK_EQ_INT(op->state->root_descriptors[0].kind, D12DRED_ROOT_CBV);
                CHECK_EQ_STR(op->state->root_descriptors[0].resource, "Constants");
            }
        }
        CHECK(r->page_fault && r->page_fault->verdict == D12DRED_VERDICT_NEVER_MAPPED);
        bool found = false;
        for (size_t i = 0; i < r->queue_count; i++) {
            for (size_t w = 0; w < r->queues[i]->wait_count; w++) {
                const d12dred_wait *wait = &r->queues[i]->waits[w];
                found = found || (wait->fence && !strcmp(wait->fence, "Never") && wait->value == 9 && wait->fence_value == 5);
            }
        }
        CHECK(found);
        d12dred_report_free(r);
    } else {
        fprintf(stderr, "    %s\n", error);
    }
    unlink(path);
    rmdir(dir);
}

/* Eight threads remove the device at once: one reason, one report. */
typedef struct race_arg {
    ID3D12CommandQueue *queue;
    ID3D12GraphicsCommandList *open;
    pthread_barrier_t *start;
} race_arg;

static void *race_remove(void *p)
{
    race_arg *a = p;
    pthread_barrier_wait(a->start);
    execute(a->queue, a->open);
    return NULL;
}

static void test_removal_race_one_report(void)
{
    char dir[] = "/tmp/d12dred_race_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    set_dred(2, 0, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx[8];
    for (int i = 0; i < 8; i++)
        if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx[i]))
            return;
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 8);
    pthread_t threads[8];
    race_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (race_arg){ctx[i].queue, ctx[i].list, &start};
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, race_remove, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    for (int i = 0; i < 8; i++)
        release_context(&ctx[i]);
    RELEASE_LAST(device);
    char path[1024] = "";
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    unlink(path);
    rmdir(dir);
}

/* The ledger keeps the 65 000 most recent frees: `extra` frees after the victim's. */
static void ledger_case(unsigned extra, bool victim_kept)
{
    set_dred(1, 2, 0, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *victim = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!victim)
        return;
    ID3D12Resource_SetName(victim, L"Oldest");
    D3D12_GPU_VIRTUAL_ADDRESS va = ID3D12Resource_GetGPUVirtualAddress(victim);
    RELEASE_LAST(victim);
    unsigned failed = 0;
    for (unsigned i = 0; i < extra; i++) {
        ID3D12Resource *r = NULL;
        if (create_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 4, &r) != S_OK)
            failed++;
        else
            ID3D12Resource_Release(r);
    }
    CHECK_EQ_INT(failed, 0);
    record_bad_draw(&ctx, va);
    ID3D12DeviceRemovedExtendedData2 *dred = dred_of(device);
    execute(ctx.queue, ctx.list);
    if (!wait_removed(device, DXGI_ERROR_DEVICE_HUNG))
        return;
    D3D12_DRED_PAGE_FAULT_OUTPUT1 pf = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetPageFaultAllocationOutput1((ID3D12DeviceRemovedExtendedData1 *)dred,
                                                                            &pf), S_OK);
    CHECK(pf.PageFaultVA >= va && pf.PageFaultVA < va + 0x10000);
    const D3D12_DRED_ALLOCATION_NODE1 *freed = pf.pHeadRecentFreedAllocationNode;
    if (victim_kept) {
        CHECK(freed && freed->ObjectNameW && wcscmp(freed->ObjectNameW, L"Oldest") == 0 && freed->pNext == NULL);
    } else {
        CHECK(freed == NULL); /* "of the 65 000 most recently freed": the oldest fell out */
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    RELEASE_LAST(device);
}

static void test_ledger_keeps_65000(void)
{
    ledger_case(64999, true);
}

static void test_ledger_oldest_falls_out(void)
{
    ledger_case(65000, false);
}

/* ======== D12RT_DRED_DUMP ======== */

/* The files of `dir` named d12dred-*.json; the last one's path in `path`. */
static unsigned dump_files(const char *dir, char *path, size_t size)
{
    unsigned n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "d12dred-", 8) == 0 && strstr(e->d_name, ".json")) {
            n++;
            snprintf(path, size, "%s/%s", dir, e->d_name);
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* Exactly one report per removal, complete before the device's last Release returns; it reads back. */
static void test_dump_once_per_removal(void)
{
    char dir[] = "/tmp/d12dred_dump_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    set_dred(2, 2, 2, false);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Dumped list");
    ID3D12CommandQueue_SetName(ctx.queue, L"Dumped queue");
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 0, L"ctx", sizeof(L"ctx"));
    barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    remove_device(device, ctx.queue);
    char path[1024] = "";
    /* Reading the output does not write; surfacing the removal again does not write twice. */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    release_context(&ctx);
    RELEASE_LAST(device);
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    d12dred_report *report = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &report, error, sizeof error), 0)) {
        CHECK_EQ_INT(report->schema_version, D12DRED_SCHEMA_VERSION);
        CHECK_EQ_INT((uint32_t)report->reason, (uint32_t)DXGI_ERROR_INVALID_CALL);
        CHECK_EQ_STR(report->reason_name, "DXGI_ERROR_INVALID_CALL");
        CHECK_EQ_INT(report->device_state, D3D12_DRED_DEVICE_STATE_UNKNOWN);
        CHECK(report->features.auto_breadcrumbs && report->features.page_fault && report->features.breadcrumb_contexts);
        CHECK_EQ_INT(report->node_count, 1);
        if (report->node_count == 1) {
            CHECK_EQ_STR(report->nodes[0]->list, "Dumped list");
            CHECK_EQ_STR(report->nodes[0]->queue, "Dumped queue");
            CHECK_EQ_INT(report->nodes[0]->breadcrumb_count, 2);
            CHECK_EQ_INT(report->nodes[0]->op_count, 2);
            if (report->nodes[0]->op_count == 2) {
                CHECK_EQ_INT(report->nodes[0]->ops[0].op, D3D12_AUTO_BREADCRUMB_OP_SETMARKER);
                CHECK_EQ_STR(report->nodes[0]->ops[0].context, "ctx");
                CHECK_EQ_INT(report->nodes[0]->ops[1].op, D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER);
                /* not a GPU fault: no attribution */
                CHECK_EQ_INT(report->nodes[0]->ops[1].attribution, D12DRED_ATTRIBUTION_NONE);
            }
        }
        bool found_queue = false;
        for (size_t i = 0; i < report->queue_count; i++)
            if (report->queues[i]->name && strcmp(report->queues[i]->name, "Dumped queue") == 0) {
                found_queue = true;
                CHECK_EQ_INT(report->queues[i]->submission_count, 1);
            }
        CHECK(found_queue);
        CHECK(report->page_fault == NULL); /* not a page fault */
        d12dred_report_free(report);
    } else {
        fprintf(stderr, "    %s\n", error);
    }
    unlink(path);
    /* A device that is never removed writes nothing. */
    device = create_device(false);
    if (device)
        RELEASE_LAST(device);
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 0);
    rmdir(dir);
}

/* DRED off but D12RT_DRED_DUMP set: the report still has the queues and their submissions, no nodes. */
static void test_dump_without_breadcrumbs(void)
{
    char dir[] = "/tmp/d12dred_nobc_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12CommandQueue_SetName(ctx.queue, L"Q");
    barrier_uav(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    execute(ctx.queue, ctx.list);
    remove_device(device, ctx.queue);
    release_context(&ctx);
    RELEASE_LAST(device);
    char path[1024] = "";
    CHECK_EQ_INT(dump_files(dir, path, sizeof path), 1);
    d12dred_report *r = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        CHECK(!r->features.auto_breadcrumbs && !r->features.page_fault);
        CHECK_EQ_INT(r->node_count, 0);
        bool found = false;
        for (size_t i = 0; i < r->queue_count; i++)
            if (r->queues[i]->name && !strcmp(r->queues[i]->name, "Q")) {
                found = true;
                if (CHECK_EQ_INT_RET(r->queues[i]->submission_count, 2)) {
                    CHECK_EQ_INT(r->queues[i]->submissions[0]->sequence, 1);
                    CHECK_EQ_INT(r->queues[i]->submissions[1]->sequence, 2);
                    CHECK_EQ_INT(r->queues[i]->submissions[0]->lists[0].node, -1); /* no node without breadcrumbs */
                }
            }
        CHECK(found);
        d12dred_report_free(r);
    }
    unlink(path);
    rmdir(dir);
}

/* ======== main ======== */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"outputs_dred_off", test_outputs_dred_off},
    {"outputs_dred_on", test_outputs_dred_on},
    {"outputs_breadcrumbs_only", test_outputs_breadcrumbs_only},
    {"outputs_page_fault_only", test_outputs_page_fault_only},
    {"settings_one_object", test_settings_one_object},
    {"settings_latched", test_settings_latched},
    {"settings_contexts_need_breadcrumbs", test_settings_contexts_need_breadcrumbs},
    {"registry_overlay", test_registry_overlay},
    {"breadcrumbs_node", test_breadcrumbs_node},
    {"breadcrumbs_outstanding_only", test_breadcrumbs_outstanding_only},
    {"breadcrumbs_ring_wrap", test_breadcrumbs_ring_wrap},
    {"breadcrumbs_markers_only", test_breadcrumbs_markers_only},
    {"breadcrumbs_off_records_nothing", test_breadcrumbs_off_records_nothing},
    {"breadcrumbs_completed_count", test_breadcrumbs_completed_count},
    {"contexts_metadata", test_contexts_metadata},
    {"queue_markers", test_queue_markers},
    {"dump_once_per_removal", test_dump_once_per_removal},
    {"dump_without_breadcrumbs", test_dump_without_breadcrumbs},
    {"breadcrumbs_pre_0127_driver", test_breadcrumbs_pre_0127_driver},
    {"fault_use_after_free", test_fault_use_after_free},
    {"fault_out_of_bounds", test_fault_out_of_bounds},
    {"fault_never_mapped", test_fault_never_mapped},
    {"hang", test_hang},
    {"fault_compute_queue", test_fault_compute_queue},
    {"fault_op_state_and_waits", test_fault_op_state_and_waits},
    {"removal_race_one_report", test_removal_race_one_report},
    {"ledger_keeps_65000", test_ledger_keeps_65000},
    {"ledger_oldest_falls_out", test_ledger_oldest_falls_out},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred CASE\n");
    return 2;
}
