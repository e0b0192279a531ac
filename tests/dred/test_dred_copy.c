/* CopyBufferRegion past its buffer (issue 19 item 8): Windows' core runtime checks no copy range, so Close returns
 * S_OK, the debug layer reports an ERROR (COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS / SRCRANGEOUTOFBOUNDS) and the copy
 * reaches the driver: inside the buffer's 64 KiB allocation it is the reference driver's PAST_END finding, into the
 * unmapped gap after it a write page fault that DRED explains (the copy's two sides, the range against the buffer).
 * `test_dred_copy CASE`; CMake registers each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

static char g_dir[] = "/tmp/d12dred_copy_XXXXXX";

static ID3D12Device *setup(void)
{
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return NULL;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    ID3D12DeviceRemovedExtendedDataSettings2 *s = NULL;
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&s), S_OK)) {
        ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
    }
    ID3D12Debug7 *debug = NULL;
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK)) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
    return create_device(true);
}

static void cleanup(void)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
    CHECK_EQ_INT(system(command), 0);
}

typedef struct copy_env {
    ID3D12Device *device;
    ID3D12InfoQueue *iq;
    gpu_context ctx;
    ID3D12Resource *src, *dst;
} copy_env;

static bool make_env(copy_env *e)
{
    memset(e, 0, sizeof *e);
    e->device = setup();
    if (!e->device || !make_context(e->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &e->ctx))
        return false;
    e->iq = info_queue_of(e->device);
    e->src = make_buffer(e->device, D3D12_HEAP_TYPE_UPLOAD, 64);
    e->dst = make_buffer(e->device, D3D12_HEAP_TYPE_DEFAULT, 64);
    if (!e->src || !e->dst || !e->iq)
        return false;
    ID3D12Resource_SetName(e->src, L"Staging");
    ID3D12Resource_SetName(e->dst, L"Mesh pool");
    ID3D12InfoQueue_ClearStoredMessages(e->iq);
    return true;
}

static void release_env(copy_env *e)
{
    if (e->iq)
        ID3D12InfoQueue_Release(e->iq);
    if (e->src)
        RELEASE_LAST(e->src);
    if (e->dst)
        RELEASE_LAST(e->dst);
    release_context(&e->ctx);
    if (e->device)
        RELEASE_LAST(e->device);
}

/* Within range: no message, Close S_OK, the copy runs (the negative). */
static void test_in_range(void)
{
    copy_env e;
    if (!make_env(&e))
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(e.ctx.list, e.dst, 56, e.src, 0, 8);
    CHECK_EQ_INT(count_id(e.iq, D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS, NULL, NULL), 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(e.ctx.list), S_OK);
    execute(e.ctx.queue, e.ctx.list);
    CHECK(finish(&e.ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(e.device), S_OK);
    release_env(&e);
    cleanup();
}

/* Past Width, inside the allocation: the debug layer's ERROR, Close S_OK, the driver's PAST_END finding; no removal. */
static void test_past_end(void)
{
    copy_env e;
    if (!make_env(&e))
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(e.ctx.list, e.dst, 60, e.src, 0, 8);
    CHECK_EQ_INT(count_id(e.iq, D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS,
                          "DstOffset 60 + NumBytes 8 exceeds the destination's 64 bytes", NULL), 1);
    ID3D12GraphicsCommandList_CopyBufferRegion(e.ctx.list, e.dst, 0, e.src, 57, 8);
    CHECK_EQ_INT(count_id(e.iq, D3D12_MESSAGE_ID_COPYBUFFERREGION_SRCRANGEOUTOFBOUNDS, "SrcOffset 57 + NumBytes 8",
                          NULL), 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(e.ctx.list), S_OK);
    execute(e.ctx.queue, e.ctx.list);
    CHECK(finish(&e.ctx));
    execute(e.ctx.queue, e.ctx.list); /* flushes what completed */
    CHECK(finish(&e.ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(e.device), S_OK);
    CHECK(count_id(e.iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "bytes past its end", NULL) >= 2);
    if (getenv("SHOW"))
        dump_messages(e.iq);
    release_env(&e);
    cleanup();
}

/* Into the unmapped gap: a write page fault; the report names both sides and relates the range to the buffer. */
static void test_into_gap(void)
{
    copy_env e;
    if (!make_env(&e))
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(e.ctx.list, e.dst, 0xFFFC, e.src, 0, 64);
    CHECK_HR(ID3D12GraphicsCommandList_Close(e.ctx.list), S_OK);
    execute(e.ctx.queue, e.ctx.list);
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(e.device) == S_OK; i++)
        sleep_ms(5);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(e.device), DXGI_ERROR_DEVICE_HUNG);
    release_env(&e);
    char path[512], error[512] = "";
    snprintf(path, sizeof path, "%s/d12dred-%d-1.json", g_dir, (int)getpid());
    d12dred_report *r = NULL;
    if (CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        const d12dred_page_fault *pf = r->page_fault;
        if (CHECK(pf != NULL)) {
            CHECK_EQ_INT(pf->flags & 1u, 1u); /* a write */
            CHECK_EQ_INT(pf->verdict, D12DRED_VERDICT_OUT_OF_BOUNDS);
            CHECK_EQ_STR(pf->detail, "copy destination [+0xfffc, +0x1003c) of a 0x40-byte buffer: 0xfffc (65532) "
                                     "bytes past its end");
        }
        const d12dred_op *op = r->node_count == 1 && r->nodes[0]->op_count == 1 ? &r->nodes[0]->ops[0] : NULL;
        if (CHECK(op != NULL) && CHECK(op->state != NULL) && CHECK(op->state->has_copy)) {
            CHECK_EQ_STR(op->state->copy_src.resource, "Staging");
            CHECK_EQ_STR(op->state->copy_dst.resource, "Mesh pool");
            CHECK_EQ_INT(op->state->copy_dst.offset, 0xFFFC);
            CHECK_EQ_INT(op->state->copy_bytes, 64);
        }
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (f) {
            d12dred_report_render(r, f);
            fclose(f);
        }
        CHECK(text && strstr(text, "copy        src 'Staging' [+0x0, +0x40) -> dst 'Mesh pool' [+0xfffc, +0x1003c) "
                                   "(past its end; write [+0xfffc, +0x1003c) is past it)\n"));
        if (text && getenv("SHOW"))
            fprintf(stderr, "%s\n", text);
        free(text);
        d12dred_report_free(r);
    }
    cleanup();
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {{"in_range", test_in_range}, {"past_end", test_past_end}, {"into_gap", test_into_gap}};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_copy CASE\n");
    return 2;
}
