/* A fault inside a bundle (issue 32 item 1): the EXECUTEBUNDLE op keeps the mark (exact when the driver named the
 * bundle's draw, by its fault's OpIndex or by its finding "0x...:'Foliage bundle' [Draw #0] ...", suspect otherwise),
 * `bundle_draw` names the draw, the op's state is the state that draw saw (inherited from the caller or set in the
 * bundle before it, never the bundle's final bindings), the driver's message about it is under the op, and
 * *pLastBreadcrumbValue stays at the EXECUTEBUNDLE (Windows DRED counts no op inside a bundle).
 * `test_dred_bundle CASE`; CMake registers each, on the reference driver and on the Vulkan driver. */
#define _GNU_SOURCE
#define COBJMACROS
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

static char g_dir[] = "/tmp/d12dred_bundle_XXXXXX";

#include "dred_case.h"

typedef struct scene {
    ID3D12Device *device;
    gpu_context ctx;
    ID3D12CommandAllocator *bundle_allocator;
    ID3D12GraphicsCommandList *bundle;
    ID3D12Resource *foliage, *rock;
    D3D12_VERTEX_BUFFER_VIEW foliage_view, rock_view;
} scene;

/* DRED on (breadcrumbs, contexts, page faults), a dump folder; `messages`: the debug layer with driver-reported
 * messages on, so the driver's finding about the faulting draw reaches the report. */
static bool make_scene(scene *s, bool messages)
{
    memset(s, 0, sizeof *s);
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return false;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    set_dred(D3D12_DRED_ENABLEMENT_FORCED_ON, D3D12_DRED_ENABLEMENT_FORCED_ON);
    if (messages) {
        ID3D12Debug7 *debug = NULL;
        if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK)) {
            ID3D12Debug7_EnableDebugLayer(debug);
            ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
            ID3D12Debug7_Release(debug);
        }
    }
    s->device = create_device(messages);
    if (!s->device || !make_context(s->device, D3D12_COMMAND_LIST_TYPE_DIRECT, &s->ctx))
        return false;
    if (!CHECK_HR(ID3D12Device_CreateCommandAllocator(s->device, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                      &IID_ID3D12CommandAllocator, (void **)&s->bundle_allocator),
                  S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(s->device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, s->bundle_allocator,
                                                 NULL, &IID_ID3D12GraphicsCommandList, (void **)&s->bundle),
                  S_OK))
        return false;
    ID3D12GraphicsCommandList_SetName(s->bundle, L"Foliage bundle");
    ID3D12GraphicsCommandList_SetName(s->ctx.list, L"Scene list");
    s->foliage = make_buffer(s->device, D3D12_HEAP_TYPE_DEFAULT, 432);
    s->rock = make_buffer(s->device, D3D12_HEAP_TYPE_DEFAULT, 864);
    if (!s->foliage || !s->rock)
        return false;
    ID3D12Resource_SetName(s->foliage, L"Foliage VB");
    ID3D12Resource_SetName(s->rock, L"Rock VB");
    s->foliage_view = (D3D12_VERTEX_BUFFER_VIEW){ID3D12Resource_GetGPUVirtualAddress(s->foliage), 432, 12};
    s->rock_view = (D3D12_VERTEX_BUFFER_VIEW){ID3D12Resource_GetGPUVirtualAddress(s->rock), 864, 24};
    return true;
}

/* Close both lists, release 'Foliage VB' (the lists outlive it: a use-after-free), run the scene list until the
 * removal, and read the report. */
static d12dred_report *run_scene(scene *s)
{
    CHECK_HR(ID3D12GraphicsCommandList_Close(s->bundle), S_OK);
    ID3D12GraphicsCommandList_ExecuteBundle(s->ctx.list, s->bundle);
    CHECK_HR(ID3D12GraphicsCommandList_Close(s->ctx.list), S_OK);
    RELEASE_LAST(s->foliage);
    s->foliage = NULL;
    execute(s->ctx.queue, s->ctx.list);
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(s->device) == S_OK; i++)
        sleep_ms(5);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(s->device), DXGI_ERROR_DEVICE_HUNG);
    RELEASE_LAST(s->bundle);
    RELEASE_LAST(s->bundle_allocator);
    RELEASE_LAST(s->rock);
    release_context(&s->ctx);
    RELEASE_LAST(s->device); /* the report is complete (stage 2) once the device is gone */
    return removal_report();
}

/* The node's only op, EXECUTEBUNDLE, with its attribution, the draw named under it and the state that draw saw. */
static const d12dred_op *check_bundle_op(const d12dred_report *r, d12dred_attribution attribution, uint32_t position,
                                         bool named, const char *vb, uint32_t stride)
{
    const d12dred_node *n = r && CHECK_EQ_INT_RET(r->node_count, 1) ? r->nodes[0] : NULL;
    const d12dred_op *op = n && CHECK_EQ_INT_RET(n->op_count, 1) ? &n->ops[0] : NULL;
    if (!op)
        return NULL;
    CHECK_EQ_INT(op->op, D3D12_AUTO_BREADCRUMB_OP_EXECUTEBUNDLE);
    CHECK_EQ_INT(n->completed_count, 0); /* *pLastBreadcrumbValue stays at the EXECUTEBUNDLE */
    CHECK_EQ_INT(op->attribution, attribution);
    if (CHECK(op->bundle_draw != NULL)) {
        CHECK_EQ_STR(op->bundle_draw->bundle, "Foliage bundle");
        CHECK_EQ_INT(op->bundle_draw->position, position);
        CHECK_EQ_INT(op->bundle_draw->op, D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED);
        CHECK_EQ_INT(op->bundle_draw->named, named);
    }
    if (CHECK(op->state != NULL) && CHECK_EQ_INT_RET(op->state->vertex_buffer_count, 1)) {
        CHECK_EQ_STR(op->state->vertex_buffers[0].resource, vb);
        CHECK_EQ_INT(op->state->vertex_buffers[0].stride, stride);
    }
    return op;
}

/* The driver's finding names the bundle's first draw (not the last command before the counter write): exact, that
 * draw's bindings set in the bundle ('Foliage VB', not the 'Rock VB' the bundle leaves bound), its message under it. */
static void test_named_first_draw(void)
{
    scene s;
    if (!make_scene(&s, true))
        return;
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.foliage_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 12, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.rock_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 36, 1, 0, 0);
    d12dred_report *r = run_scene(&s);
    const d12dred_op *op = check_bundle_op(r, D12DRED_ATTRIBUTION_EXACT, 0, true, "Foliage VB", 12);
    if (op && op->state && CHECK(op->state->arguments != NULL))
        CHECK(contains(op->state->arguments, "VertexCountPerInstance=12, InstanceCount=1"));
    if (op && CHECK_EQ_INT_RET(op->message_count, 1)) {
        CHECK(contains(op->messages[0].text, ":'Foliage bundle' [Draw #0] "));
        CHECK_EQ_INT(op->messages[0].severity, D3D12_MESSAGE_SEVERITY_CORRUPTION);
    }
    char *text = render(r);
    CHECK(contains(text, "EXECUTEBUNDLE(16) \"0x"));
    CHECK(contains(text, ":'Foliage bundle'\"  <- FAULT (exact)\n"));
    CHECK(contains(text, "[bundle 'Foliage bundle', #0] DRAWINSTANCED(3)\n"));
    CHECK(contains(text, "VertexCountPerInstance=12,"));
    CHECK(contains(text, ", 432 bytes, stride 12, 'Foliage VB'"));
    CHECK(!strstr(text ? text : "", "stride 24, 'Rock VB'")); /* the binding the bundle leaves is not shown */
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* The driver's finding names the bundle's middle draw ("[Draw #1]"): exact, position 1, the view set just before it
 * (not the one before draw #0, not the one the bundle leaves bound). */
static void test_named_middle_draw(void)
{
    scene s;
    if (!make_scene(&s, true))
        return;
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.rock_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 36, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.foliage_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 12, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.rock_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 36, 1, 0, 0);
    d12dred_report *r = run_scene(&s);
    const d12dred_op *op = check_bundle_op(r, D12DRED_ATTRIBUTION_EXACT, 1, true, "Foliage VB", 12);
    if (op && CHECK_EQ_INT_RET(op->message_count, 1))
        CHECK(contains(op->messages[0].text, ":'Foliage bundle' [Draw #1] "));
    d12dred_report_free(r);
    cleanup();
}

/* No driver messages; the faulting draw is the bundle's last command, which the driver names by the fault's OpIndex
 * (the EXECUTEBUNDLE's): exact, the last draw, the view set in the bundle just before it. */
static void test_op_index_last_draw(void)
{
    scene s;
    if (!make_scene(&s, false))
        return;
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.rock_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 36, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.foliage_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 12, 1, 0, 0);
    d12dred_report *r = run_scene(&s);
    check_bundle_op(r, D12DRED_ATTRIBUTION_EXACT, 1, true, "Foliage VB", 12);
    char *text = render(r);
    CHECK(contains(text, "[bundle 'Foliage bundle', #1] DRAWINSTANCED(3)\n"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* No driver messages and the faulting draw is not the bundle's last: nobody named it, so the op is the first
 * outstanding (suspect) and the draw shown is the bundle's first, with the binding it inherited from the caller. */
static void test_suspect_inherited(void)
{
    scene s;
    if (!make_scene(&s, false))
        return;
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.ctx.list, 0, 1, &s.foliage_view); /* inherited by the bundle */
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 12, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(s.bundle, 0, 1, &s.rock_view);
    ID3D12GraphicsCommandList_DrawInstanced(s.bundle, 36, 1, 0, 0);
    d12dred_report *r = run_scene(&s);
    check_bundle_op(r, D12DRED_ATTRIBUTION_SUSPECT, 0, false, "Foliage VB", 12);
    char *text = render(r);
    CHECK(contains(text, "<- first outstanding (suspect)\n"));
    CHECK(contains(text, "[bundle 'Foliage bundle', #0] DRAWINSTANCED(3)  (its first draw: no driver named one)\n"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"named_first_draw", test_named_first_draw},
    {"named_middle_draw", test_named_middle_draw},
    {"op_index_last_draw", test_op_index_last_draw},
    {"suspect_inherited", test_suspect_inherited},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_bundle CASE\n");
    return 2;
}
