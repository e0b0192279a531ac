/* DRED you can trust at a glance (issue 19), through libd12rt's public ABI: progress labels from what the GPU
 * reported (items 1, 7), the event stack of the attributed op (item 2), ID3D12Device5::RemoveDevice, queued signals,
 * the deadlock verdict and the stall detector (item 5), the settings-changed note (item 8).
 * `test_dred_diagnosis CASE` runs one case (settings and removal are process-wide); CMake registers each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

static char g_dir[] = "/tmp/d12dred_diag_XXXXXX";
#include "dred_case.h"

/* ======== item 1: progress labels ======== */

/* A submission behind a GPU Wait that is never satisfied: "not started (waiting on 'Gate' >= 1, at 0 before
 * removal)", its node not started; before, "in progress". */
static void test_progress_waiting(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12CommandQueue_SetName(ctx.queue, L"Q");
    ID3D12Fence_SetName(ctx.fence, L"Gate");
    ID3D12GraphicsCommandList_SetName(ctx.list, L"Blocked list");
    D3D12_RESOURCE_BARRIER b = {.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV};
    ID3D12GraphicsCommandList_ResourceBarrier(ctx.list, 1, &b);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, ctx.fence, 1), S_OK);
    execute(ctx.queue, ctx.list);
    sleep_ms(100);
    remove_device(device);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_REMOVED);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const d12dred_queue *q = queue_named(r, "Q");
    if (CHECK(q != NULL) && CHECK_EQ_INT_RET(q->submission_count, 1)) {
        const d12dred_submission *s = q->submissions[0];
        CHECK_EQ_INT(s->sequence, 1);
        CHECK_EQ_INT(s->status, D12DRED_SUBMISSION_NOT_STARTED);
        if (CHECK(s->waiting_on != NULL)) {
            CHECK_EQ_STR(s->waiting_on->fence, "Gate");
            CHECK_EQ_INT(s->waiting_on->value, 1);
            CHECK_EQ_INT(s->waiting_on->fence_value, 0);
        }
    }
    if (r && CHECK_EQ_INT_RET(r->node_count, 1))
        CHECK_EQ_INT(d12dred_node_status(r->nodes[0]), D12DRED_SUBMISSION_NOT_STARTED);
    char *text = render(r);
    CHECK(contains(text, "submission #1    not started (waiting on 'Gate' >= 1, at 0 before removal) 'Blocked list'"));
    CHECK(contains(text, "0 of 1 ops completed (not started)"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* The faulting op is op #0: the node is "in progress" with that op marked (before: "(not started)"); the submission
 * is numbered (never #?), REPEATS times as fast as a fault can come. */
static void test_progress_first_op(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {0x00007F0000000000ull, 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(device) == S_OK; i++)
        sleep_ms(5);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (r && CHECK_EQ_INT_RET(r->node_count, 1)) {
        const d12dred_node *n = r->nodes[0];
        CHECK_EQ_INT(n->completed_count, 0);
        CHECK_EQ_INT(d12dred_node_status(n), D12DRED_SUBMISSION_IN_PROGRESS);
        CHECK(n->submission != 0);
        CHECK(n->op_count == 2 && n->ops[0].attribution == D12DRED_ATTRIBUTION_EXACT);
    }
    for (size_t i = 0; r && i < r->queue_count; i++)
        for (size_t j = 0; j < r->queues[i]->submission_count; j++)
            CHECK(r->queues[i]->submissions[j]->sequence != 0);
    char *text = render(r);
    CHECK(contains(text, "0 of 2 ops completed (in progress)"));
    CHECK(contains(text, "#0 DRAWINSTANCED(3)  <- FAULT (exact)"));
    CHECK(text && !strstr(text, "#?"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* ======== item 2: the event stack ======== */

/* The faulting draw is 300 ops into "Frame" > "GBuffer": both BeginEvents are printed as op lines although they
 * lie outside the shown window, and the JSON has them as the op's event_stack. */
static void test_event_stack(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 0, L"Frame", sizeof(L"Frame"));
    ID3D12GraphicsCommandList_BeginEvent(ctx.list, 0, L"GBuffer", sizeof(L"GBuffer"));
    D3D12_RESOURCE_BARRIER b = {.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV};
    for (int i = 0; i < 300; i++)
        ID3D12GraphicsCommandList_ResourceBarrier(ctx.list, 1, &b);
    D3D12_VERTEX_BUFFER_VIEW view = {0x00007F0000000000ull, 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0); /* op 302 */
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    ID3D12GraphicsCommandList_EndEvent(ctx.list);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(device) == S_OK; i++)
        sleep_ms(5);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const d12dred_op *op = r && r->node_count == 1 ? d12dred_node_find_op(r->nodes[0], 302) : NULL;
    if (CHECK(op != NULL)) {
        CHECK_EQ_INT(op->attribution, D12DRED_ATTRIBUTION_EXACT);
        if (CHECK(op->has_event_stack) && CHECK_EQ_INT_RET(op->event_stack_count, 2)) {
            CHECK_EQ_INT(op->event_stack[0], 0);
            CHECK_EQ_INT(op->event_stack[1], 1);
        }
    }
    char *text = render(r);
    CHECK(contains(text, "    #0 BEGINEVENT(1) \"Frame\"\n"
                         "      #1 BEGINEVENT(1) \"GBuffer\"\n"
                         "    ... 276 ops (#2..#277) ...\n"));
    CHECK(contains(text, "        #302 DRAWINSTANCED(3)  <- FAULT (exact)"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* ======== item 5: RemoveDevice, queued signals, deadlocks, stalls ======== */

/* RemoveDevice really removes: DXGI_ERROR_DEVICE_REMOVED, DRED outputs as for any removal with state UNKNOWN, and
 * the report says who. */
static void test_remove_device(void)
{
    ID3D12Device *device = setup();
    if (!device)
        return;
    ID3D12DeviceRemovedExtendedData2 *dred = NULL;
    CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData2, (void **)&dred), S_OK);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    remove_device(device);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_REMOVED);
    if (dred) {
        CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_UNKNOWN);
        D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
        CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetAutoBreadcrumbsOutput1(dred, &out), S_OK);
        D3D12_DRED_PAGE_FAULT_OUTPUT2 pf = {0};
        CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &pf), S_OK);
        CHECK_EQ_INT(pf.PageFaultVA, 0);
        ID3D12DeviceRemovedExtendedData2_Release(dred);
    }
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (r) {
        CHECK_EQ_STR(r->reason_name, "DXGI_ERROR_DEVICE_REMOVED");
        CHECK_EQ_INT(r->device_state, D3D12_DRED_DEVICE_STATE_UNKNOWN);
        CHECK_EQ_STR(r->removed_by, "removed by the application (ID3D12Device5::RemoveDevice)");
    }
    char *text = render(r);
    CHECK(contains(text, "  cause         removed by the application (ID3D12Device5::RemoveDevice)\n"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* Two queues waiting on each other's fences: A waits F1 then signals F2, B waits F2 then signals F1. */
static bool make_deadlock(ID3D12Device *device, gpu_context *a, gpu_context *b)
{
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, a) ||
        !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, b))
        return false;
    ID3D12CommandQueue_SetName(a->queue, L"A");
    ID3D12CommandQueue_SetName(b->queue, L"B");
    ID3D12Fence_SetName(a->fence, L"F1");
    ID3D12Fence_SetName(b->fence, L"F2");
    CHECK_HR(ID3D12CommandQueue_Wait(a->queue, a->fence, 1), S_OK);
    CHECK_HR(ID3D12CommandQueue_Signal(a->queue, b->fence, 1), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(b->queue, b->fence, 1), S_OK);
    CHECK_HR(ID3D12CommandQueue_Signal(b->queue, a->fence, 1), S_OK);
    return true;
}

/* The verdict names the cycle from the first queue of the report (its order is the device's). */
static void check_deadlock(const d12dred_report *r)
{
    if (!CHECK(r != NULL) || !CHECK(r->deadlock != NULL) || !CHECK_EQ_INT_RET(r->queue_count, 2))
        return;
    bool a_first = r->queues[0]->name && strcmp(r->queues[0]->name, "A") == 0;
    CHECK_EQ_STR(r->deadlock, a_first ? "deadlock: queue 'A' waits 'F1' >= 1 (at 0), signalled only by queue 'B' "
                                        "behind its wait on 'F2' >= 1 (at 0), which queue 'A' signals only after its own wait: a cycle"
                                      : "deadlock: queue 'B' waits 'F2' >= 1 (at 0), signalled only by queue 'A' "
                                        "behind its wait on 'F1' >= 1 (at 0), which queue 'B' signals only after its own wait: a cycle");
    const d12dred_queue *a = queue_named(r, "A");
    if (CHECK(a != NULL) && CHECK_EQ_INT_RET(a->wait_count, 1) && CHECK_EQ_INT_RET(a->signal_count, 1)) {
        CHECK_EQ_STR(a->waits[0].fence, "F1");
        CHECK_EQ_STR(a->signals[0].fence, "F2");
        CHECK_EQ_INT(a->signals[0].value, 1);
        CHECK_EQ_INT(a->signals[0].fence_value, 0);
        CHECK_EQ_INT(a->signals[0].behind_wait, 0);
    }
}

static void test_deadlock(void)
{
    ID3D12Device *device = setup();
    gpu_context a, b;
    if (!device || !make_deadlock(device, &a, &b))
        return;
    sleep_ms(100);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK); /* a wait is no hang: never removed by itself */
    remove_device(device);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    check_deadlock(r);
    char *text = render(r);
    CHECK(contains(text, "    queued signal fence 'F2' = 1 (was 0 before removal), behind the wait on 'F1'\n"));
    CHECK(contains(text, "  verdict       deadlock: queue '"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* A queue that waits on a fence only the CPU will signal is no deadlock: no verdict (the negative). */
static void test_no_deadlock(void)
{
    ID3D12Device *device = setup();
    gpu_context a;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &a))
        return;
    CHECK_HR(ID3D12CommandQueue_Wait(a.queue, a.fence, 1), S_OK);
    CHECK_HR(ID3D12CommandQueue_Signal(a.queue, a.fence, 2), S_OK); /* behind its own wait: not a cycle of queues */
    sleep_ms(50);
    remove_device(device);
    release_context(&a);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (r)
        CHECK(r->deadlock == NULL);
    d12dred_report_free(r);
    cleanup();
}

/* D12RT_STALL_MS=200: the deadlock is reported once, without removal, in d12rt-stall-<pid>-1.json. */
static void test_stall(void)
{
    setenv("D12RT_STALL_MS", "200", 1);
    ID3D12Device *device = setup();
    gpu_context a, b;
    if (!device || !make_deadlock(device, &a, &b))
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/d12rt-stall-%d-1.json", g_dir, (int)getpid());
    struct stat st;
    for (int i = 0; i < 200 && stat(path, &st) != 0; i++)
        sleep_ms(25);
    sleep_ms(600); /* time for a second report, which must not come */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    d12dred_report *s = read_report("d12rt-stall", 1);
    if (s) {
        CHECK_EQ_STR(s->kind, "stall");
        CHECK_EQ_INT(s->reason, 0);
        check_deadlock(s);
    }
    char *text = render(s);
    CHECK(contains(text, "  kind          stall: "));
    free(text);
    d12dred_report_free(s);
    snprintf(path, sizeof path, "%s/d12rt-stall-%d-2.json", g_dir, (int)getpid());
    CHECK(stat(path, &st) != 0);
    remove_device(device);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    check_deadlock(r);
    d12dred_report_free(r);
    cleanup();
}

/* Without D12RT_STALL_MS nothing watches: no stall file (the negative). */
static void test_stall_off(void)
{
    unsetenv("D12RT_STALL_MS");
    ID3D12Device *device = setup();
    gpu_context a, b;
    if (!device || !make_deadlock(device, &a, &b))
        return;
    sleep_ms(500);
    char path[512];
    snprintf(path, sizeof path, "%s/d12rt-stall-%d-1.json", g_dir, (int)getpid());
    struct stat st;
    CHECK(stat(path, &st) != 0);
    remove_device(device);
    release_context(&a);
    release_context(&b);
    RELEASE_LAST(device);
    cleanup();
}

/* ======== items 3 and 4: op state and verdicts that say what to fix ======== */

/* A draw through 'Tree VB', released after Close and before ExecuteCommandLists (`in_flight` false: a stale list) or
 * after ExecuteCommandLists while the submission waits on a gate (`in_flight`). */
static void use_after_free(bool in_flight)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *vb = named_buffer(device, 432, L"Tree VB");
    if (!vb)
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 432, 12};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    if (in_flight) {
        CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, ctx.fence, 1), S_OK);
        execute(ctx.queue, ctx.list);
        RELEASE_LAST(vb); /* while the submission is queued behind the gate */
        CHECK_HR(ID3D12Fence_Signal(ctx.fence, 1), S_OK);
    } else {
        RELEASE_LAST(vb); /* the list outlives it */
        execute(ctx.queue, ctx.list);
    }
    wait_removed(device);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (r && CHECK(r->page_fault != NULL)) {
        CHECK_EQ_INT(r->page_fault->verdict, D12DRED_VERDICT_USE_AFTER_FREE);
        CHECK_EQ_STR(r->page_fault->detail,
                     in_flight ? "released while a submission using it was in flight: release #1 of 'Tree VB' came "
                                 "after ExecuteCommandLists of submission #1; release it only once a fence signalled "
                                 "after that submission has completed"
                               : "released before the list was submitted (stale list): release #1 of 'Tree VB' came "
                                 "before submission #1, whose list still used it; re-record the list, or keep the "
                                 "buffer alive while the list can be submitted");
    }
    const d12dred_op *op = r && r->node_count == 1 && r->nodes[0]->op_count == 1 ? &r->nodes[0]->ops[0] : NULL;
    if (CHECK(op != NULL) && CHECK(op->state != NULL) && CHECK_EQ_INT_RET(op->state->vertex_buffer_count, 1)) {
        CHECK_EQ_STR(op->state->vertex_buffers[0].resource, "Tree VB"); /* no longer (unnamed) */
        CHECK_EQ_STR(op->state->vertex_buffers[0].site.note, "released after the list was recorded");
    }
    char *text = render(r);
    CHECK(contains(text, ", 432 bytes, stride 12, 'Tree VB' (released after the list was recorded)\n"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

static void test_use_after_free_stale(void) { use_after_free(false); }
static void test_use_after_free_in_flight(void) { use_after_free(true); }

/* Issue 32 item 6: a draw's count above what the bound views hold is flagged, in hex and decimal, with what they
 * hold; a count they hold is not. The buffer is released before the submission so that the draw faults and is the
 * attributed op. `indexed`: DrawIndexedInstanced over a 72-byte R16_UINT index buffer (36 indices). */
static void count_case(bool indexed, UINT count, const char *expected)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *vb = named_buffer(device, 432, L"Tree VB"), *ib = named_buffer(device, 72, L"Tree IB");
    if (!vb || !ib)
        return;
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 432, 12}; /* 36 vertices */
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    if (indexed) {
        D3D12_INDEX_BUFFER_VIEW iv = {ID3D12Resource_GetGPUVirtualAddress(ib), 72, DXGI_FORMAT_R16_UINT};
        ID3D12GraphicsCommandList_IASetIndexBuffer(ctx.list, &iv);
        ID3D12GraphicsCommandList_DrawIndexedInstanced(ctx.list, count, 1, 0, 0, 0);
    } else {
        ID3D12GraphicsCommandList_DrawInstanced(ctx.list, count, 1, 0, 0);
    }
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    RELEASE_LAST(vb); /* the draw faults on it */
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    release_context(&ctx);
    RELEASE_LAST(ib);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const d12dred_op *op = r && r->node_count == 1 && r->nodes[0]->op_count == 1 ? &r->nodes[0]->ops[0] : NULL;
    if (CHECK(op != NULL) && CHECK(op->state != NULL) && CHECK(op->state->arguments != NULL))
        CHECK_EQ_STR(op->state->arguments, expected);
    d12dred_report_free(r);
    cleanup();
}

static void test_count_above_vertices(void)
{
    count_case(false, 5000, "VertexCountPerInstance=0x00001388 (5000) above what the buffers hold? (vertex buffer slot 0 "
                            "holds 36 vertices; StartVertexLocation 0), InstanceCount=1, StartVertexLocation=0, "
                            "StartInstanceLocation=0");
}

static void test_count_within_vertices(void)
{
    count_case(false, 36, "VertexCountPerInstance=36, InstanceCount=1, StartVertexLocation=0, StartInstanceLocation=0");
}

static void test_count_above_indices(void)
{
    count_case(true, 37, "IndexCountPerInstance=0x00000025 (37) above what the buffers hold? (the index buffer holds 36 "
                         "indices; StartIndexLocation 0), InstanceCount=1, StartIndexLocation=0, BaseVertexLocation=0, "
                         "StartInstanceLocation=0");
}

/* An index-buffer view [+0xC000, +0x12000) of a 0x10000-byte buffer: 8 KiB past its end, said in bytes; a root UAV is
 * a write; a root CBV right past a buffer is named. */
static void test_out_of_bounds_range(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *ib = named_buffer(device, 0x10000, L"Index pool");
    ID3D12Resource *cb = named_buffer(device, 0x10000, L"Per-draw CB ring");
    ID3D12Resource *uav = named_buffer(device, 256, L"Counters");
    if (!ib || !cb || !uav)
        return;
    D3D12_INDEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(ib) + 0xC000, 0x6000, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetIndexBuffer(ctx.list, &view);
    ID3D12GraphicsCommandList_SetGraphicsRootUnorderedAccessView(ctx.list, 1, ID3D12Resource_GetGPUVirtualAddress(uav));
    ID3D12GraphicsCommandList_DrawIndexedInstanced(ctx.list, 3, 1, 0, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    RELEASE_LAST(ib);
    RELEASE_LAST(cb);
    RELEASE_LAST(uav);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (r && CHECK(r->page_fault != NULL)) {
        CHECK_EQ_INT(r->page_fault->verdict, D12DRED_VERDICT_OUT_OF_BOUNDS);
        CHECK_EQ_STR(r->page_fault->detail,
                     "IB view [+0xc000, +0x12000) of a 0x10000-byte buffer: 0x2000 (8192) bytes past its end");
    }
    const d12dred_op *op = r && r->node_count == 1 && r->nodes[0]->op_count == 1 ? &r->nodes[0]->ops[0] : NULL;
    if (CHECK(op != NULL) && CHECK(op->state != NULL)) {
        CHECK_EQ_STR(op->state->index_buffer.resource, "Index pool");
        CHECK_EQ_STR(op->state->index_buffer.site.note, "read [+0xc000, +0x12000) runs 0x2000 (8192) bytes past its end");
        if (CHECK_EQ_INT_RET(op->state->root_descriptor_count, 1))
            CHECK_EQ_INT(op->state->root_descriptors[0].kind, D12DRED_ROOT_UAV);
    }
    char *text = render(r);
    CHECK(contains(text, "'Counters' (write)\n"));
    CHECK(contains(text, "'Index pool' + 0xc000 (read [+0xc000, +0x12000) runs 0x2000 (8192) bytes past its end)\n"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* ======== item 8: settings changed after creation ======== */

static void settings_note(bool change)
{
    ID3D12Device *device = setup();
    if (!device)
        return;
    if (change)
        set_dred(D3D12_DRED_ENABLEMENT_FORCED_OFF, D3D12_DRED_ENABLEMENT_FORCED_ON);
    remove_device(device);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const char *note = "DRED settings changed after the device was created are ignored: DRED settings are latched at "
                       "device creation (D3D12CreateDevice)";
    if (r && change && CHECK_EQ_INT_RET(r->note_count, 1))
        CHECK_EQ_STR(r->notes[0], note);
    if (r && !change)
        CHECK_EQ_INT(r->note_count, 0);
    char *text = render(r);
    if (change)
        CHECK(contains(text, note));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

static void test_settings_changed(void) { settings_note(true); }
static void test_settings_unchanged(void) { settings_note(false); }

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"progress_waiting", test_progress_waiting},   {"progress_first_op", test_progress_first_op},
    {"event_stack", test_event_stack},             {"remove_device", test_remove_device},
    {"deadlock", test_deadlock},                   {"no_deadlock", test_no_deadlock},
    {"stall", test_stall},                         {"stall_off", test_stall_off},
    {"settings_changed", test_settings_changed},   {"settings_unchanged", test_settings_unchanged},
    {"use_after_free_stale", test_use_after_free_stale},
    {"use_after_free_in_flight", test_use_after_free_in_flight},
    {"out_of_bounds_range", test_out_of_bounds_range},
    {"count_above_vertices", test_count_above_vertices},
    {"count_within_vertices", test_count_within_vertices},
    {"count_above_indices", test_count_above_indices},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_diagnosis CASE\n");
    return 2;
}
