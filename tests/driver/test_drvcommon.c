/* ctest drvcommon.<case>: drivers/common/ (libd12rt_drvcommon.a) on its own, with objects of the test's making in
 * place of a driver's buffers: the GPU VA space both drivers use (layout, lookup, the range visit, the map hook)
 * and the execution-time rules (texts, ids, gates, the Vulkan driver's kernel_faults). Ends with
 * `N passed, N failed`. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_rules.h"
#include "drvcommon_va.h"
#include "harness.h"

typedef struct object {
    atomic_uint refs; /* first, as the VA space requires */
    UINT64 va, width;
} object;

static UINT64 reserve(d12__drv_va_space *va, object *o, UINT64 width)
{
    atomic_init(&o->refs, 1);
    o->width = width;
    CHECK(d12__drv_va_reserve(va, o, d12__drv_va_span(width), &o->va));
    return o->va;
}

static void va_layout(void)
{
    CHECK_EQ_INT(d12__drv_va_span(1), 0x10000);
    CHECK_EQ_INT(d12__drv_va_span(0x10000), 0x10000);
    CHECK_EQ_INT(d12__drv_va_span(0x10001), 0x20000);
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, NULL));
    object o[3];
    CHECK_EQ_INT(reserve(&va, &o[0], 1), 0x100000000ull);
    CHECK_EQ_INT(reserve(&va, &o[1], 0x10001), 0x100020000ull); /* 64 KiB, then the 64 KiB gap */
    d12__drv_va_release(&va, o[0].va, &o[0]);
    CHECK_EQ_INT(reserve(&va, &o[2], 16), 0x100050000ull); /* quarantined: after o[1]'s 128 KiB and its gap */
    CHECK_EQ_INT(d12__drv_va_pages(&va), 7);
    d12__drv_va_fini(&va);
}

static void va_lookup(void)
{
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, NULL));
    object a, b;
    reserve(&va, &a, 256);
    reserve(&va, &b, 256);
    CHECK(d12__drv_va_acquire(&va, a.va + 255) == &a);
    CHECK(d12__drv_va_acquire(&va, a.va + 0xFFFF) == &a); /* past Width, inside the allocation: an overrun */
    CHECK_EQ_INT(atomic_load(&a.refs), 3);
    CHECK(d12__drv_va_acquire(&va, a.va + 0x10000) == NULL); /* the gap */
    CHECK(d12__drv_va_acquire(&va, a.va - 1) == NULL);
    d12__drv_va_release(&va, a.va, &a);
    CHECK(d12__drv_va_acquire(&va, a.va) == NULL); /* released: its range maps to nothing */
    CHECK(d12__drv_va_acquire(&va, b.va) == &b);
    d12__drv_va_release(&va, a.va, &a); /* twice: nothing */
    CHECK_EQ_INT(va.released, 1);
    d12__drv_va_fini(&va);
}

typedef struct seen {
    void *objects[8];
    size_t count, stop_after;
} seen;

static bool visit(void *context, void *object)
{
    seen *s = context;
    s->objects[s->count++] = object;
    return s->count != s->stop_after;
}

static void va_visit(void)
{
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, NULL));
    object o[4];
    for (int i = 0; i < 4; i++)
        reserve(&va, &o[i], 16);
    d12__drv_va_release(&va, o[1].va, &o[1]);
    seen s = {.stop_after = 0};
    CHECK(d12__drv_va_visit(&va, 0, UINT64_MAX, visit, &s));
    CHECK_EQ_INT(s.count, 3); /* the released one is skipped */
    CHECK(s.objects[0] == &o[0] && s.objects[1] == &o[2] && s.objects[2] == &o[3]);
    s = (seen){.stop_after = 0};
    CHECK(d12__drv_va_visit(&va, o[0].va + 0xFFFF, o[2].va + 1, visit, &s)); /* ends inside o[0] and o[2] */
    CHECK_EQ_INT(s.count, 2);
    s = (seen){.stop_after = 0};
    CHECK(d12__drv_va_visit(&va, o[0].va + 0x10000, o[2].va, visit, &s)); /* only gaps and a released range */
    CHECK_EQ_INT(s.count, 0);
    s = (seen){.stop_after = 1};
    CHECK(!d12__drv_va_visit(&va, 0, UINT64_MAX, visit, &s)); /* a visit that fails stops the walk */
    CHECK_EQ_INT(s.count, 1);
    d12__drv_va_fini(&va);
}

static UINT64 g_map_log[8];
static size_t g_map_count;

static void map(void *o, bool mapped)
{
    g_map_log[g_map_count++] = ((object *)o)->va | mapped; /* the address is set before the hook runs */
}

static void va_map_hook(void)
{
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, map));
    object a, b;
    reserve(&va, &a, 16);
    reserve(&va, &b, 16);
    d12__drv_va_release(&va, a.va, &a);
    d12__drv_va_release(&va, a.va, &a);
    CHECK_EQ_INT(g_map_count, 3);
    CHECK_EQ_INT(g_map_log[0], a.va | 1);
    CHECK_EQ_INT(g_map_log[1], b.va | 1);
    CHECK_EQ_INT(g_map_log[2], a.va);
    d12__drv_va_fini(&va);
}

/* Issue 28 item 1: a released range comes back only after D12_DRV_VA_QUARANTINE (65 000) further releases, the size
 * of DRED's recently-freed ring; then it is reused (best fit), and what it does not need stays free. */
static void va_quarantine(void)
{
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, NULL));
    object first, filler, probe;
    UINT64 a = reserve(&va, &first, 0x30000); /* 192 KiB: 4 pages with its gap */
    d12__drv_va_release(&va, a, &first);
    /* 64 999 more releases of another buffer (always a fresh range while nothing is old enough) */
    for (unsigned i = 0; i < D12_DRV_VA_QUARANTINE - 1; i++) {
        UINT64 f = reserve(&va, &filler, 16);
        CHECK(f != a);
        d12__drv_va_release(&va, f, &filler);
        if (f == a)
            break;
    }
    UINT64 not_yet = reserve(&va, &probe, 16);
    CHECK(not_yet != a); /* 64 999 further releases: a is still quarantined */
    d12__drv_va_release(&va, not_yet, &probe); /* the 65 000th: a is free now */
    object reused, rest;
    CHECK_EQ_INT(reserve(&va, &reused, 16), a); /* best fit: a's block is the only one of 4 pages */
    CHECK(d12__drv_va_acquire(&va, a + 8) == &reused);
    CHECK(d12__drv_va_acquire(&va, a + 0x10000) == NULL); /* its gap */
    CHECK_EQ_INT(reserve(&va, &rest, 16), a + 0x20000); /* the 2 pages left of a's block */
    CHECK(d12__drv_va_acquire(&va, a + 0x20000) == &rest);
    CHECK_EQ_INT(atomic_load(&reused.refs), 2);
    d12__drv_va_fini(&va);
}

/* Issue 28 item 1: 10 000 000 create + release cycles of a 256-byte buffer with one long-lived buffer beside them
 * keep the space within the quarantine's 65 000 ranges (2 pages each) and the live ones; the live buffer still
 * resolves, a released address does not. Without reuse the space grows by 2 pages a cycle (past the Vulkan driver's
 * 2^20-page table after 524 288 cycles). */
static void va_cycles(void)
{
    d12__drv_va_space va;
    CHECK(d12__drv_va_init(&va, NULL));
    object live, cycling;
    UINT64 live_va = reserve(&va, &live, 256);
    UINT64 last = 0;
    for (unsigned i = 0; i < 10000000u; i++) {
        last = reserve(&va, &cycling, 256);
        d12__drv_va_release(&va, last, &cycling);
    }
    printf("10 000 000 cycles: %llu pages spanned, %zu entries, %llu moved\n",
           (unsigned long long)d12__drv_va_pages(&va), va.count, (unsigned long long)va.moved);
    CHECK(d12__drv_va_pages(&va) <= 2u * (D12_DRV_VA_QUARANTINE + 2));
    CHECK(va.moved <= 20000000ull); /* amortized O(1) per cycle */
    CHECK(d12__drv_va_acquire(&va, live_va + 255) == &live);
    CHECK(d12__drv_va_acquire(&va, last) == NULL);
    d12__drv_va_fini(&va);
}

/* ---- The rules, over a fake driver ---- */

typedef struct fake {
    d12__drv_va_space va;
    bool validating;
    unsigned reports;
    UINT64 ids[8];
    char texts[8][512];
} fake;

static void *fake_acquire(void *device, UINT64 address, UINT64 *va, UINT64 *width)
{
    object *o = d12__drv_va_acquire(&((fake *)device)->va, address);
    if (o) {
        *va = o->va;
        *width = o->width;
    }
    return o;
}

static void fake_release(void *buffer)
{
    atomic_fetch_sub(&((object *)buffer)->refs, 1);
}

static bool fake_validating(void *device)
{
    return ((fake *)device)->validating;
}

static char *fake_name(void *device, const void *buffer)
{
    (void)device;
    D3D12DDI_HRTDEVICE rt_device = {0};
    D3D12DDI_HRTRESOURCE rt_resource = {0};
    return d12__drv_buffer_name(NULL, rt_device, rt_resource, ((const object *)buffer)->va); /* "GPU VA 0x..." */
}

static void fake_report(void *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity, UINT32 index,
                        const char *text)
{
    fake *f = device;
    (void)severity;
    (void)index;
    f->ids[f->reports] = id;
    snprintf(f->texts[f->reports++], sizeof f->texts[0], "%s", text);
}

static void rules(bool kernel_faults)
{
    d12__drv_checks checks = {fake_acquire, fake_release, fake_validating, fake_name, NULL, fake_report,
                              kernel_faults};
    fake f = {.validating = true};
    CHECK(d12__drv_va_init(&f.va, NULL));
    object buffer;
    reserve(&f.va, &buffer, 256);
    d12__drv_exec x = {.checks = &checks, .device = &f};
    d12__drv_bindings b = {0};
    d12__drv_view vb = {buffer.va + 128, 256, 16}; /* 128 bytes past the end: inside the allocation */
    d12__drv_bind(&b, D12_DRV_OP_SET_VERTEX_BUFFER, 3, false, 0, &vb);
    d12__drv_view ib = {buffer.va, 8, DXGI_FORMAT_R16_UINT};
    d12__drv_bind(&b, D12_DRV_OP_SET_INDEX_BUFFER, 0, false, 0, &ib);
    d12__drv_view root = {buffer.va + 0x10000, 0, 0}; /* the gap: a page fault (the kernel's, with kernel_faults) */
    d12__drv_bind(&b, D12_DRV_OP_SET_ROOT, 5, false, D12_DRV_ROOT_SRV, &root);
    d12__drv_op_args draw = {.draw = {6, 1, 0, 0}}; /* 6 16-bit indices: 12 bytes of an 8-byte view */
    d12__drv_check_op(&x, &b, D12_DRV_OP_DRAW_INDEXED, 7, &draw, NULL, NULL);
    CHECK_EQ_INT(f.reports, kernel_faults ? 2 : 3);
    CHECK_EQ_INT(f.ids[0], D12_REFDRV_MSG_INDEX_READ_PAST_VIEW);
    CHECK_EQ_STR(f.texts[0], "Indices 0 to 5 (2-byte indices) read up to byte 12 of an index buffer view of 8 bytes.");
    CHECK_EQ_INT(f.ids[1], D12_REFDRV_MSG_VERTEX_BUFFER_PAST_END);
    CHECK_EQ_STR(f.texts[1], "The vertex buffer view in slot 3 covers 256 bytes from offset 128 of GPU VA "
                             "0x0000000100000000, which has 256 bytes: 128 bytes past its end.");
    CHECK(x.bad);
    CHECK(x.faulted == !kernel_faults);
    if (!kernel_faults) {
        CHECK_EQ_INT(f.ids[2], D12_REFDRV_MSG_PAGE_FAULT);
        CHECK_EQ_STR(f.texts[2], "Page fault: The root SRV at root parameter 5 reads GPU virtual address "
                                 "0x0000000100010000, which is in no live buffer.");
        CHECK_EQ_INT(x.fault_va, buffer.va + 0x10000);
        CHECK_EQ_INT(x.fault_flags, D3D12DDI_PAGE_FAULT_FLAG_NONE);
    }
    /* A copy's faults are this code's in either driver; its destination runs off the allocation. */
    x.faulted = false;
    void *src = NULL, *dst = NULL;
    d12__drv_op_args copy = {.copy = {buffer.va + 0xFFF0, buffer.va, 32, 0, 0}}; /* no named ends */
    d12__drv_check_op(&x, &b, D12_DRV_OP_COPY, 9, &copy, &src, &dst);
    CHECK(src == &buffer && dst == NULL);
    CHECK(x.faulted && x.bad);
    CHECK_EQ_INT(x.fault_va, buffer.va + 0x10000); /* the first byte past the allocation */
    CHECK_EQ_INT(x.fault_flags, D3D12DDI_PAGE_FAULT_FLAG_WRITE);
    CHECK_EQ_STR(f.texts[f.reports - 1], "Page fault: The copy destination writes GPU virtual address "
                                         "0x0000000100010000, which is in no live buffer.");
    fake_release(src);
    /* A copy naming `buffer` whose destination lands exactly on the next allocation (issue 29): the overrun of the
     * named buffer, never the neighbour's bytes; within the named Width the same copy passes. */
    object neighbour;
    reserve(&f.va, &neighbour, 256);
    x.faulted = false;
    src = dst = NULL;
    d12__drv_op_args onto = {.copy = {neighbour.va, buffer.va, 16, buffer.va + 256, buffer.va + 256}};
    d12__drv_check_op(&x, &b, D12_DRV_OP_COPY, 11, &onto, &src, &dst);
    CHECK(src == &buffer && dst == NULL && x.bad && !x.faulted);
    CHECK_EQ_INT(f.ids[f.reports - 1], D12_REFDRV_MSG_COPY_PAST_END);
    CHECK_EQ_STR(f.texts[f.reports - 1], "The copy destination covers 16 bytes from offset 131072 of GPU VA "
                                         "0x0000000100000000, which has 256 bytes: 130832 bytes past its end.");
    fake_release(src);
    d12__drv_op_args inside = {.copy = {buffer.va + 240, buffer.va, 16, buffer.va + 256, buffer.va + 256}};
    d12__drv_check_op(&x, &b, D12_DRV_OP_COPY, 12, &inside, &src, &dst);
    CHECK(src == &buffer && dst == &buffer && !x.bad);
    fake_release(src);
    fake_release(dst);
    CHECK_EQ_INT(atomic_load(&neighbour.refs), 1);
    /* Not validating: the same fault is found, nothing is reported. */
    unsigned before = f.reports;
    f.validating = false;
    x.faulted = false;
    d12__drv_op_args write = {.write = {neighbour.va + 0x10000, 1}}; /* the gap after the neighbour */
    d12__drv_check_op(&x, &b, D12_DRV_OP_WRITE_IMMEDIATE, 10, &write, NULL, NULL);
    CHECK(x.faulted && x.bad);
    CHECK_EQ_INT(f.reports, before);
    CHECK_EQ_INT(atomic_load(&buffer.refs), 1); /* every reference taken was dropped */
    d12__drv_va_fini(&f.va);
}

int main(int argc, char **argv)
{
    const char *name = argc == 2 ? argv[1] : "";
    if (strcmp(name, "va_layout") == 0)
        va_layout();
    else if (strcmp(name, "va_lookup") == 0)
        va_lookup();
    else if (strcmp(name, "va_visit") == 0)
        va_visit();
    else if (strcmp(name, "va_map_hook") == 0)
        va_map_hook();
    else if (strcmp(name, "va_quarantine") == 0)
        va_quarantine();
    else if (strcmp(name, "va_cycles") == 0)
        va_cycles();
    else if (strcmp(name, "rules_reference") == 0)
        rules(false);
    else if (strcmp(name, "rules_kernel_faults") == 0)
        rules(true);
    else {
        fprintf(stderr, "usage: test_drvcommon va_layout|va_lookup|va_visit|va_map_hook|va_quarantine|va_cycles|"
                        "rules_reference|"
                        "rules_kernel_faults\n");
        return 2;
    }
    return d12test_finish();
}
