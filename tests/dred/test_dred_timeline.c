/* The resource timeline (issue 32 item 7) as outside bug programs through libd12rt's public ABI, on whichever driver
 * D12RT_DRIVER names (CMake registers each case on the reference driver and `recreated`, `heap`, `page_fault_off`
 * also as vulkan.dred.timeline_* on the Vulkan driver over lavapipe): a buffer created, released, re-created under the
 * same name at another VA, and its stale VA used by a list recorded before the release; a heap and its placed
 * buffer; the ledger's ring bound (16 384 events); and the negative: page-fault DRED off keeps no timeline.
 * `test_dred_timeline CASE` runs one case. */
#define _GNU_SOURCE
#define COBJMACROS
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

static char g_dir[] = "/tmp/d12dred_timeline_XXXXXX";
#include "dred_case.h"

#define EVENT_RING 16384u /* D12_DRED_EVENT_RING (runtime/dred/dred_internal.h): what docs/dred.md promises */

/* A closed, empty list of its own allocator: an ExecuteCommandLists that does nothing but count. */
typedef struct empty_list {
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
} empty_list;

static bool make_empty_list(ID3D12Device *device, empty_list *e)
{
    return CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                        &IID_ID3D12CommandAllocator, (void **)&e->allocator),
                    S_OK) &&
           CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, e->allocator, NULL,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&e->list),
                    S_OK) &&
           CHECK_HR(ID3D12GraphicsCommandList_Close(e->list), S_OK);
}

/* The draw through `vb`'s VA, recorded and closed into the context's list. */
static void record_draw(gpu_context *ctx, ID3D12Resource *vb)
{
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb), 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx->list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx->list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
}

/* `show --timeline`'s text with each "N.NNN ms" time replaced by "T ms" (times differ run to run). */
static char *masked_timeline(const d12dred_report *r, uint64_t va)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    CHECK_EQ_INT(d12dred_report_render_timeline(r, va, f), 0);
    fclose(f);
    char *out = malloc(size + 1), *o = out;
    for (const char *p = text; out && *p;) {
        const char *ms = strstr(p, " ms before the ");
        const char *start = ms;
        while (start && start > p && (start[-1] == '.' || (start[-1] >= '0' && start[-1] <= '9')))
            start--;
        if (!ms) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(start - p));
        o += start - p;
        *o++ = 'T';
        size_t marker = strlen(" ms before the ");
        memcpy(o, ms, marker);
        o += marker;
        p = ms + marker;
    }
    free(text);
    return out;
}

/* Issue 32 item 7's program: 'Emitter params' (A) is drawn from by a list recorded after submission #1; A is released
 * (after #1), another submission runs (#2), 'Emitter params' is created again (B, at another VA: the drivers hand a
 * released range out again only after 65 000 releases), and the old list is submitted (#3): a use-after-free whose
 * verdict names the re-creation, and A's timeline. */
static void test_recreated(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    empty_list other = {0};
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx) || !make_empty_list(device, &other))
        return;
    ID3D12CommandQueue_SetName(ctx.queue, L"Direct queue");
    ID3D12Resource *a = named_buffer(device, 256, L"Emitter params");
    if (!a)
        return;
    UINT64 va_a = ID3D12Resource_GetGPUVirtualAddress(a);
    execute(ctx.queue, other.list); /* #1 */
    finish(&ctx);
    record_draw(&ctx, a);           /* recorded at #1 */
    RELEASE_LAST(a);                /* released at #1: the list outlives it */
    execute(ctx.queue, other.list); /* #2 */
    finish(&ctx);
    ID3D12Resource *b = named_buffer(device, 256, L"Emitter params"); /* re-created at #2 */
    UINT64 va_b = b ? ID3D12Resource_GetGPUVirtualAddress(b) : 0;
    CHECK(va_b != va_a);
    execute(ctx.queue, ctx.list);   /* #3: the stale VA */
    wait_removed(device);
    RELEASE_LAST(other.list);
    RELEASE_LAST(other.allocator);
    release_context(&ctx);
    if (b)
        RELEASE_LAST(b);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (!r || !CHECK(r->page_fault != NULL)) {
        d12dred_report_free(r);
        cleanup();
        return;
    }
    CHECK_EQ_INT(r->page_fault->verdict, D12DRED_VERDICT_USE_AFTER_FREE);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "released before the list was submitted (stale list): release #1 of 'Emitter params' came before "
             "submission #3, whose list still used it; re-record the list, or keep the buffer alive while the list "
             "can be submitted; 'Emitter params' was released at submission #1 and re-created at #2 at another VA "
             "(0x%llx); the list recorded at #1 still used the old one",
             (unsigned long long)va_b);
    CHECK_EQ_STR(r->page_fault->detail, expected);
    /* the timeline of the stale VA: A's creation and release, B's creation at its own VA, oldest first */
    const d12dred_timeline *t = d12dred_report_find_timeline(r, r->page_fault->va);
    if (CHECK(t != NULL) && CHECK_EQ_INT_RET(t->event_count, 3)) {
        static const bool released[] = {false, true, false};
        static const uint64_t after[] = {0, 1, 2};
        const uint64_t vas[] = {va_a, va_a, va_b};
        for (size_t i = 0; i < 3; i++) {
            const d12dred_timeline_event *e = &t->events[i];
            CHECK_EQ_INT(e->released, released[i]);
            CHECK_EQ_STR(e->name, "Emitter params");
            CHECK_EQ_INT(e->va, (long long)vas[i]);
            CHECK_EQ_INT(e->size, 0x10000);
            CHECK_EQ_INT(e->after_submission, (long long)after[i]);
            CHECK_EQ_STR(e->queue, i ? "Direct queue" : NULL);
            CHECK(i == 0 || e->seq > t->events[i - 1].seq);
            CHECK(i == 0 || e->ns_before <= t->events[i - 1].ns_before); /* later: nearer the removal */
            CHECK(e->ns_before > 0 && e->ns_before < 60ull * 1000000000u);
        }
        CHECK_EQ_INT(t->events[1].seq, t->events[0].seq + 1);
        CHECK_EQ_INT(t->start, (long long)va_a);
        CHECK_EQ_INT(t->end, (long long)(va_a + 0x10000));
        CHECK_EQ_INT(t->earlier, 0);
    }
    /* one timeline for the VAs naming A or B (the fault, the VB view, the nearest neighbour): one set of events */
    CHECK_EQ_INT(r->timeline_count, 1);
    /* show --timeline, exactly, times masked */
    char *shown = masked_timeline(r, va_a + 0x10);
    char want[2048];
    unsigned long long s0 = t ? t->events[0].seq : 0;
    snprintf(want, sizeof want,
             "timeline of 0x%llx: the resources that held [0x%llx, 0x%llx) and their re-creations under the same "
             "name\n"
             "  #%llu created  'Emitter params' [0x%llx, 0x%llx), before any submission, T ms before the removal\n"
             "  #%llu released 'Emitter params' [0x%llx, 0x%llx), after submission #1 on queue 'Direct queue', "
             "T ms before the removal\n"
             "  #%llu created  'Emitter params' [0x%llx, 0x%llx) (another VA), after submission #2 on queue "
             "'Direct queue', T ms before the removal\n",
             (unsigned long long)va_a, (unsigned long long)va_a, (unsigned long long)va_a + 0x10000, s0,
             (unsigned long long)va_a, (unsigned long long)va_a + 0x10000, s0 + 1, (unsigned long long)va_a,
             (unsigned long long)va_a + 0x10000, t ? (unsigned long long)t->events[2].seq : 0,
             (unsigned long long)va_b, (unsigned long long)va_b + 0x10000);
    CHECK_EQ_STR(shown, want);
    free(shown);
    char *text = render(r); /* the tree's verdict detail names the re-creation; the tree prints no timeline */
    CHECK(contains(text, "and re-created at #2 at another VA"));
    CHECK(text && !strstr(text, "timeline of"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* The ring keeps the newest 16 384 events: 'Old params' is created (1) and released (2), then `churn` unnamed buffers
 * are created and released, then one more is created when `overflow` (event 16 385: the creation falls out, its
 * release stays). Its stale VA is then used. */
static void ring_case(bool overflow)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *old = named_buffer(device, 256, L"Old params");
    if (!old)
        return;
    record_draw(&ctx, old);
    RELEASE_LAST(old); /* events 1 and 2 */
    for (unsigned i = 0; i < (EVENT_RING - 2) / 2; i++) { /* events 3 .. 16 384 */
        ID3D12Resource *churn = named_buffer(device, 256, NULL);
        if (!churn)
            return;
        ID3D12Resource_Release(churn);
    }
    ID3D12Resource *last = overflow ? named_buffer(device, 256, NULL) : NULL; /* event 16 385 */
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    release_context(&ctx);
    if (last)
        RELEASE_LAST(last);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const d12dred_timeline *t = r && r->page_fault ? d12dred_report_find_timeline(r, r->page_fault->va) : NULL;
    if (CHECK(t != NULL) && CHECK_EQ_INT_RET(t->event_count, overflow ? 1 : 2)) {
        const d12dred_timeline_event *release = &t->events[t->event_count - 1];
        CHECK(release->released);
        CHECK_EQ_INT(release->seq, 2);
        CHECK_EQ_STR(release->name, "Old params");
        if (!overflow) {
            CHECK(!t->events[0].released);
            CHECK_EQ_INT(t->events[0].seq, 1);
            CHECK_EQ_STR(t->events[0].name, "Old params"); /* the name it got, from its release */
        }
    }
    /* the freed ring (65 000) still names it either way */
    if (r && r->page_fault && CHECK_EQ_INT_RET(r->page_fault->freed_count, 1))
        CHECK_EQ_STR(r->page_fault->freed[0]->name, "Old params");
    d12dred_report_free(r);
    cleanup();
}

static void test_ring_full(void) { ring_case(false); }
static void test_ring_bound(void) { ring_case(true); }

/* Page-fault DRED off: the ledger keeps nothing, the report no timeline (and its verdict no re-creation). */
static void test_page_fault_off(void)
{
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    set_dred(D3D12_DRED_ENABLEMENT_FORCED_ON, D3D12_DRED_ENABLEMENT_FORCED_OFF);
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *a = named_buffer(device, 256, L"Emitter params");
    if (!a)
        return;
    record_draw(&ctx, a);
    RELEASE_LAST(a);
    ID3D12Resource *b = named_buffer(device, 256, L"Emitter params");
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    release_context(&ctx);
    if (b)
        RELEASE_LAST(b);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    if (CHECK(r != NULL)) {
        CHECK(r->page_fault == NULL);
        CHECK_EQ_INT(r->timeline_count, 0);
        CHECK_EQ_INT(d12dred_report_render_timeline(r, 0x10000, stdout), 1);
    }
    d12dred_report_free(r);
    cleanup();
}

/* A heap's own events (type HEAP) and its placed resource's: 'Particle pool' (64 KiB) holds 'Placed VB' at offset 0;
 * a list draws from it; both are released (the resource first); the stale VA lies in both, so its timeline holds the
 * heap's creation and release around the resource's, oldest first. */
static void test_heap(void)
{
    ID3D12Device *device = setup();
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    D3D12_HEAP_DESC desc = {65536, {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                    D3D12_MEMORY_POOL_UNKNOWN, 1, 1},
                            0, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS};
    D3D12_RESOURCE_DESC buffer = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                  D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Heap *heap = NULL;
    ID3D12Resource *placed = NULL;
    if (!CHECK_HR(ID3D12Device_CreateHeap(device, &desc, &IID_ID3D12Heap, (void **)&heap), S_OK) ||
        !CHECK_HR(ID3D12Device_CreatePlacedResource(device, heap, 0, &buffer, D3D12_RESOURCE_STATE_COMMON, NULL,
                                                    &IID_ID3D12Resource, (void **)&placed),
                  S_OK))
        return;
    ID3D12Heap_SetName(heap, L"Particle pool");
    ID3D12Resource_SetName(placed, L"Placed VB");
    record_draw(&ctx, placed);
    RELEASE_LAST(placed);
    RELEASE_LAST(heap);
    execute(ctx.queue, ctx.list);
    wait_removed(device);
    release_context(&ctx);
    RELEASE_LAST(device);
    d12dred_report *r = removal_report();
    const d12dred_timeline *t = r && r->page_fault ? d12dred_report_find_timeline(r, r->page_fault->va) : NULL;
    if (CHECK(t != NULL) && CHECK_EQ_INT_RET(t->event_count, 4)) {
        static const char *const names[] = {"Particle pool", "Placed VB", "Placed VB", "Particle pool"};
        static const uint32_t types[] = {25, 34, 34, 25}; /* D3D12_DRED_ALLOCATION_TYPE_HEAP, _RESOURCE */
        static const bool released[] = {false, false, true, true};
        for (size_t i = 0; i < 4; i++) {
            CHECK_EQ_STR(t->events[i].name, names[i]);
            CHECK_EQ_INT(t->events[i].type, types[i]);
            CHECK_EQ_INT(t->events[i].released, released[i]);
        }
    }
    char *shown = masked_timeline(r, r && r->page_fault ? r->page_fault->va : 0);
    CHECK(contains(shown, " created  'Particle pool' HEAP (25) ["));
    CHECK(contains(shown, " released 'Particle pool' HEAP (25) ["));
    free(shown);
    d12dred_report_free(r);
    cleanup();
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"heap", test_heap},
    {"recreated", test_recreated},
    {"ring_full", test_ring_full},
    {"ring_bound", test_ring_bound},
    {"page_fault_off", test_page_fault_off},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_timeline CASE\n");
    return 2;
}
