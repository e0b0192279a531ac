/* DRED follow-ups, through libd12rt's public ABI and the report D12RT_DRED_DUMP writes (read back with the report
 * library, as `d12dred show` does):
 *   arguments_*    the faulting or hung op's state carries its arguments, in the method's parameter names and order
 *                  (before: runtime/dred/report.c never filled them, the report showed views and root descriptors
 *                  only): DrawInstanced and DrawIndexedInstanced that hang, a Dispatch and a CopyBufferRegion that
 *                  page-fault; an op without arguments (a barrier) has none.
 *   outstanding_*  a list released, or reset (and re-recorded, left open or closed), while its submission is still
 *                  executing at removal: the Windows nodes and the report stay valid and name what they can
 *                  (docs/dred.md, "Lists reset, released or re-executed while outstanding"); under ASan no
 *                  use-after-free, under TSan no race between the freeze and the application's recording.
 * `test_dred_followups CASE`; CMake registers each (short TDR delay). */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

/* ======== helpers ======== */

/* Breadcrumbs and page faults forced on, breadcrumb contexts as `contexts` says (they also decide whether work ops'
 * arguments are noted); reports into a fresh folder (`dir`, a mkdtemp template). */
static bool dred_on_with(char *dir, D3D12_DRED_ENABLEMENT contexts)
{
    if (!CHECK(mkdtemp(dir) != NULL))
        return false;
    setenv("D12RT_DRED_DUMP", dir, 1);
    ID3D12DeviceRemovedExtendedDataSettings2 *s = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&s), S_OK))
        return false;
    ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, contexts);
    ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
    return true;
}

static bool dred_on(char *dir)
{
    return dred_on_with(dir, D3D12_DRED_ENABLEMENT_FORCED_ON);
}

static bool wait_removed(ID3D12Device *device)
{
    for (int i = 0; i < WAIT_MS / 5; i++) {
        HRESULT hr = ID3D12Device_GetDeviceRemovedReason(device);
        if (hr != S_OK)
            return CHECK_HR(hr, DXGI_ERROR_DEVICE_HUNG);
        sleep_ms(5);
    }
    return CHECK(!"the device was never removed");
}

/* The one report in `dir` (read back), then the folder removed; NULL when there is not exactly one. */
static d12dred_report *take_report(const char *dir)
{
    char path[1024] = "";
    unsigned files = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "d12dred-", 8) == 0) {
            files++;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        }
    }
    if (d)
        closedir(d);
    d12dred_report *r = NULL;
    char error[256] = "";
    if (CHECK_EQ_INT_RET(files, 1) && !CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0))
        fprintf(stderr, "    %s\n", error);
    if (files == 1)
        unlink(path);
    rmdir(dir);
    return r;
}

/* The ops of the report with an attribution (exact or suspect). */
static unsigned attributed_count(const d12dred_report *r)
{
    unsigned count = 0;
    for (size_t n = 0; r && n < r->node_count; n++)
        for (size_t i = 0; i < r->nodes[n]->op_count; i++)
            count += r->nodes[n]->ops[i].attribution != D12DRED_ATTRIBUTION_NONE;
    return count;
}

/* The report's one attributed op (exact or suspect), or NULL. */
static const d12dred_op *attributed_op(const d12dred_report *r)
{
    const d12dred_op *found = NULL;
    unsigned count = 0;
    for (size_t n = 0; r && n < r->node_count; n++) {
        for (size_t i = 0; i < r->nodes[n]->op_count; i++) {
            if (r->nodes[n]->ops[i].attribution != D12DRED_ATTRIBUTION_NONE) {
                found = &r->nodes[n]->ops[i];
                count++;
            }
        }
    }
    return CHECK_EQ_INT_RET(count, 1) ? found : NULL;
}

static void barrier_uav(ID3D12GraphicsCommandList *list)
{
    D3D12_RESOURCE_BARRIER b = {0};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}

/* Close and execute ctx's list, wait for the removal, release ctx, the `resource_count` `resources` (NULL ones
 * skipped) and the device, then check the report: its one attributed op is `op`, with
 * exactly `arguments` (NULL: none). */
static void expect_arguments(ID3D12Device *device, gpu_context *ctx, char *dir, D3D12_AUTO_BREADCRUMB_OP op,
                             const char *arguments, ID3D12Resource *const *resources, size_t resource_count)
{
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    wait_removed(device);
    release_context(ctx);
    for (size_t i = 0; i < resource_count; i++)
        if (resources[i])
            RELEASE_LAST(resources[i]);
    RELEASE_LAST(device);
    d12dred_report *r = take_report(dir);
    const d12dred_op *attributed = attributed_op(r);
    if (attributed && CHECK(attributed->state != NULL)) {
        CHECK_EQ_INT(attributed->op, op);
        CHECK_EQ_STR(attributed->state->arguments, arguments);
    }
    d12dred_report_free(r);
}

/* A vertex and an index buffer view on a live buffer (the draw reads nothing unmapped: a hang, not a fault). */
static ID3D12Resource *bind_geometry(ID3D12Device *device, ID3D12GraphicsCommandList *list)
{
    ID3D12Resource *buffer = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!buffer)
        return NULL;
    D3D12_GPU_VIRTUAL_ADDRESS va = ID3D12Resource_GetGPUVirtualAddress(buffer);
    D3D12_VERTEX_BUFFER_VIEW vb = {va, 96, 12};
    D3D12_INDEX_BUFFER_VIEW ib = {va + 128, 72, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &vb);
    ID3D12GraphicsCommandList_IASetIndexBuffer(list, &ib);
    return buffer;
}

/* ======== arguments ======== */

/* A draw that completes, then one that hangs; the report's attributed op is the hung draw, with `arguments` (its
 * own with breadcrumb contexts on; none with them off: they are noted only then, docs/dred.md "The op's
 * arguments"). */
static void hung_draw_arguments(D3D12_DRED_ENABLEMENT contexts, const char *arguments)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on_with(dir, contexts) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *buffer = bind_geometry(device, ctx.list);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0); /* completes: not the one attributed */
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 4000000000u, 7, 9); /* hangs */
    barrier_uav(ctx.list);
    expect_arguments(device, &ctx, dir, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED, arguments, &buffer, 1);
}

static void test_arguments_draw(void)
{
    /* from vertex 7, 3 vertices run past the 8 the bound view holds: flagged (issue 32 item 6) */
    hung_draw_arguments(D3D12_DRED_ENABLEMENT_FORCED_ON, "VertexCountPerInstance=0x00000003 (3) above what the buffers "
                                                         "hold? (vertex buffer slot 0 holds 8 vertices; "
                                                         "StartVertexLocation 7), InstanceCount=4000000000, "
                                                         "StartVertexLocation=7, StartInstanceLocation=9");
}

static void test_arguments_contexts_off(void)
{
    hung_draw_arguments(D3D12_DRED_ENABLEMENT_FORCED_OFF, NULL);
}

/* Past the ring: a draw, 69 999 barriers, then a draw whose index (70 000) shares a slot with op 70 000 - 65 536 and
 * that page-faults (its vertex buffer view names no allocation: the driver names the op, no timing involved). Its
 * arguments are its own. */
static void test_arguments_after_wrap(void)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *buffer = bind_geometry(device, ctx.list);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 11, 12); /* op 0 */
    for (unsigned i = 1; i < 70000; i++)
        barrier_uav(ctx.list);
    D3D12_VERTEX_BUFFER_VIEW unmapped = {0x00007E0000000000ull, 96, 12};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &unmapped);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 6, 1, 1, 2); /* op 70 000: faults */
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    release_context(&ctx);
    if (buffer)
        RELEASE_LAST(buffer);
    RELEASE_LAST(device);
    d12dred_report *r = take_report(dir);
    const d12dred_op *op = attributed_op(r);
    if (op && CHECK(op->state != NULL)) {
        /* The default build attributes op 70 000 exactly, every run. Under the sanitizers (slower timelines, two
         * tests at once) the reference driver sometimes names another op or none (then the suspect is the first op
         * the lagging counter has not passed): left alone and reported. Whichever op is shown, the arguments shown
         * are that op's. */
        if (op->index == 70000) {
            CHECK_EQ_INT(op->op, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
            CHECK_EQ_STR(op->state->arguments, "VertexCountPerInstance=6, InstanceCount=1, StartVertexLocation=1, "
                                               "StartInstanceLocation=2");
        } else {
            CHECK_EQ_INT(op->op, D3D12_AUTO_BREADCRUMB_OP_RESOURCEBARRIER); /* op 0, the other draw, is not kept */
            CHECK_EQ_STR(op->state->arguments, NULL);
        }
    }
    if (r && CHECK_EQ_INT_RET(r->node_count, 1) && CHECK_EQ_INT_RET(r->nodes[0]->op_count, 65536)) {
        /* the ring's last 65 536 ops: op 0 is gone, op 70 000 (the last) is the draw */
        CHECK_EQ_INT(r->nodes[0]->ops[65535].index, 70000);
        CHECK_EQ_INT(r->nodes[0]->ops[65535].op, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
    }
    d12dred_report_free(r);
}

/* BaseVertexLocation is an INT: a negative one prints as such. */
static void test_arguments_draw_indexed(void)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *buffer = bind_geometry(device, ctx.list);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(ctx.list, 36, 4000000000u, 6, -5, 2);
    expect_arguments(device, &ctx, dir, D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED,
                     /* from index 6, 36 indices run past the 36 the bound view holds: flagged (issue 32 item 6) */
                     "IndexCountPerInstance=0x00000024 (36) above what the buffers hold? (the index buffer holds 36 "
                     "indices; StartIndexLocation 6), InstanceCount=4000000000, StartIndexLocation=6, "
                     "BaseVertexLocation=-5, StartInstanceLocation=2", &buffer, 1);
}

/* A Dispatch whose root SRV is unmapped page-faults: exact, with its group counts. */
static void test_arguments_dispatch(void)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &ctx))
        return;
    ID3D12GraphicsCommandList_SetComputeRootShaderResourceView(ctx.list, 0, 0x00007D0000000000ull);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 5, 6, 7);
    expect_arguments(device, &ctx, dir, D3D12_AUTO_BREADCRUMB_OP_DISPATCH,
                     "ThreadGroupCountX=5, ThreadGroupCountY=6, ThreadGroupCountZ=7", NULL, 0);
}

/* A copy from a buffer released after recording page-faults: exact, with its offsets and size (64-bit). */
static void test_arguments_copy(void)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_COPY, &ctx))
        return;
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!dst || !src)
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 16, src, 32, 64);
    RELEASE_LAST(src); /* freed after recording: the copy reads a freed range */
    expect_arguments(device, &ctx, dir, D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION,
                     "DstOffset=16, SrcOffset=32, NumBytes=64", &dst, 1);
}

/* An op without arguments (a CopyResource) attributed: none (NULL; `null` in the JSON), though the slot of its index
 * holds the arguments of the previous recording's op 0 (a CopyBufferRegion that ran): a slot is only read for the
 * op that wrote it. */
static void test_arguments_none(void)
{
    char dir[] = "/tmp/d12dred_args_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_COPY, &ctx))
        return;
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!dst || !src)
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, src, 0, 16);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, ++ctx.value), S_OK);
    CHECK(wait_fence(ctx.fence, ctx.value));
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    ID3D12GraphicsCommandList_CopyResource(ctx.list, dst, src);
    RELEASE_LAST(src); /* freed after recording: the copy faults */
    expect_arguments(device, &ctx, dir, D3D12_AUTO_BREADCRUMB_OP_COPYRESOURCE, NULL, &dst, 1);
}

/* ======== lists reset or released while outstanding at removal ======== */

/* Record "marker, hanging draw, barrier" into ctx's list (op 0 SETMARKER, op 1 DRAWINSTANCED, op 2 barrier) and
 * execute it; returns the geometry buffer. */
static ID3D12Resource *execute_hang(ID3D12Device *device, gpu_context *ctx)
{
    ID3D12Resource *buffer = bind_geometry(device, ctx->list);
    ID3D12GraphicsCommandList_SetMarker(ctx->list, 1, "before the hang", 16);
    ID3D12GraphicsCommandList_DrawInstanced(ctx->list, 3, 4000000000u, 0, 0);
    barrier_uav(ctx->list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    return buffer;
}

/* The faulted queue `queue`'s one submission in the report: in progress, naming `list` and the report's node 0. */
static void check_submission(const d12dred_report *r, const char *queue, const char *list)
{
    const d12dred_queue *q = NULL;
    for (size_t i = 0; i < r->queue_count; i++)
        if (r->queues[i]->name && strcmp(r->queues[i]->name, queue) == 0)
            q = r->queues[i];
    if (!CHECK(q != NULL) || !CHECK_EQ_INT_RET(q->submission_count, 1))
        return;
    CHECK(q->faulted);
    CHECK_EQ_INT(q->submissions[0]->status, D12DRED_SUBMISSION_IN_PROGRESS);
    if (CHECK_EQ_INT_RET(q->submissions[0]->list_count, 1)) {
        CHECK_EQ_STR(q->submissions[0]->lists[0].list, list);
        CHECK_EQ_INT(q->submissions[0]->lists[0].node, 0);
    }
}

/* Released while executing: the tracked submission keeps the list's memory, so the node still has its history and
 * names; the list is no live object any more, so the watchdog cannot name it and the draw is the suspect. */
static void test_outstanding_released(void)
{
    char dir[] = "/tmp/d12dred_out_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Released list");
    ID3D12CommandQueue_SetName(ctx.queue, L"Hanging queue");
    ID3D12Resource *buffer = execute_hang(device, &ctx);
    sleep_ms(20); /* the timeline is in the draw */
    RELEASE_LAST(ctx.list);
    ctx.list = NULL;
    ID3D12DeviceRemovedExtendedData2 *dred = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData2, (void **)&dred), S_OK);
    if (!wait_removed(device) || !dred)
        return;
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1((ID3D12DeviceRemovedExtendedData1 *)dred, &out),
             S_OK);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = out.pHeadAutoBreadcrumbNode;
    if (CHECK(node != NULL)) {
        CHECK(node->pNext == NULL);
        CHECK(node->pCommandListDebugNameW && wcscmp(node->pCommandListDebugNameW, L"Released list") == 0);
        CHECK(node->pCommandQueueDebugNameW && wcscmp(node->pCommandQueueDebugNameW, L"Hanging queue") == 0);
        CHECK_EQ_INT(node->BreadcrumbCount, 3);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 1); /* the marker completed, the draw never did */
        CHECK_EQ_INT(node->pCommandHistory[1], D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
        CHECK_EQ_INT(node->BreadcrumbContextsCount, 1);
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
    release_context(&ctx);
    if (buffer)
        RELEASE_LAST(buffer);
    RELEASE_LAST(device);
    d12dred_report *r = take_report(dir);
    if (!r)
        return;
    if (CHECK_EQ_INT_RET(r->node_count, 1)) {
        CHECK_EQ_STR(r->nodes[0]->list, "Released list");
        CHECK_EQ_STR(r->nodes[0]->queue, "Hanging queue");
        CHECK_EQ_STR(r->nodes[0]->ops[0].context, "before the hang");
    }
    const d12dred_op *op = attributed_op(r);
    if (op && CHECK(op->state != NULL)) {
        CHECK_EQ_INT(op->index, 1);
        CHECK_EQ_INT(op->attribution, D12DRED_ATTRIBUTION_SUSPECT);
        CHECK_EQ_STR(op->state->arguments, "VertexCountPerInstance=3, InstanceCount=4000000000, "
                                           "StartVertexLocation=0, StartInstanceLocation=0");
    }
    check_submission(r, "Hanging queue", "Released list");
    d12dred_report_free(r);
}

/* Reset (with a second allocator: legal in D3D12 while the GPU executes the first recording) and re-recorded, closed
 * or left open (`close_it`), while the removal freezes on the watchdog's thread. Found by this test under TSan: the
 * freeze read the list's recording (count, history, contexts, whose array the recorder may reallocate) while the
 * application thread reset it and recorded into it. Now the freeze never reads a recording begun after the
 * submission: the node names the list and queue with no ops (BreadcrumbCount 0, completed 0), nothing is attributed
 * in it, the queue's submission still names the list; and a Reset waits for a freeze in progress (docs/dred.md). */
static void outstanding_reset(bool close_it)
{
    char dir[] = "/tmp/d12dred_out_XXXXXX";
    ID3D12Device *device = dred_on(dir) ? create_device(false) : NULL;
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Reset list");
    ID3D12CommandQueue_SetName(ctx.queue, L"Hanging queue");
    ID3D12CommandAllocator *second = NULL;
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 256);
    if (!CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&second), S_OK) ||
        !dst || !src)
        return;
    ID3D12DeviceRemovedExtendedData1 *dred = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData1, (void **)&dred), S_OK);
    ID3D12Resource *buffer = execute_hang(device, &ctx);
    sleep_ms(20); /* the timeline is in the draw */
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx.list, second, NULL), S_OK);
    ID3D12GraphicsCommandList_SetMarker(ctx.list, 1, "new recording", 14);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 8, src, 24, 40);
    if (close_it)
        CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    if (!wait_removed(device) || !dred)
        return;
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
    CHECK_HR(ID3D12DeviceRemovedExtendedData1_GetAutoBreadcrumbsOutput1(dred, &out), S_OK);
    const D3D12_AUTO_BREADCRUMB_NODE1 *node = out.pHeadAutoBreadcrumbNode;
    if (CHECK(node != NULL)) {
        CHECK(node->pNext == NULL);
        CHECK(node->pCommandList == ctx.list);
        CHECK(node->pCommandListDebugNameW && wcscmp(node->pCommandListDebugNameW, L"Reset list") == 0);
        CHECK_EQ_INT(node->BreadcrumbCount, 0);
        CHECK(node->pCommandHistory != NULL && node->pLastBreadcrumbValue != NULL);
        CHECK_EQ_INT(*node->pLastBreadcrumbValue, 0);
        CHECK_EQ_INT(node->BreadcrumbContextsCount, 0);
    }
    ID3D12DeviceRemovedExtendedData1_Release(dred);
    if (!close_it)
        ID3D12GraphicsCommandList_Close(ctx.list); /* whatever it returns after removal, the list can be released */
    release_context(&ctx);
    RELEASE_LAST(second);
    RELEASE_LAST(dst);
    RELEASE_LAST(src);
    if (buffer)
        RELEASE_LAST(buffer);
    RELEASE_LAST(device);
    d12dred_report *r = take_report(dir);
    if (!r)
        return;
    if (CHECK_EQ_INT_RET(r->node_count, 1)) {
        const d12dred_node *node = r->nodes[0];
        CHECK_EQ_STR(node->list, "Reset list");
        CHECK_EQ_STR(node->queue, "Hanging queue");
        CHECK_EQ_INT(node->breadcrumb_count, 0);
        CHECK_EQ_INT(node->completed_count, 0);
        CHECK_EQ_INT(node->op_count, 0);
    }
    CHECK_EQ_INT(attributed_count(r), 0);
    check_submission(r, "Hanging queue", "Reset list");
    d12dred_report_free(r);
}

static void test_outstanding_reset_closed(void)
{
    outstanding_reset(true);
}

static void test_outstanding_reset_open(void)
{
    outstanding_reset(false);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"arguments_draw", test_arguments_draw},
    {"arguments_draw_indexed", test_arguments_draw_indexed},
    {"arguments_after_wrap", test_arguments_after_wrap},
    {"arguments_dispatch", test_arguments_dispatch},
    {"arguments_copy", test_arguments_copy},
    {"arguments_none", test_arguments_none},
    {"arguments_contexts_off", test_arguments_contexts_off},
    {"outstanding_released", test_outstanding_released},
    {"outstanding_reset_closed", test_outstanding_reset_closed},
    {"outstanding_reset_open", test_outstanding_reset_open},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (strcmp(argv[1], k_cases[i].name) == 0) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_followups CASE (unknown case)\n");
    return 2;
}
