/* The Vulkan driver's pure decisions about device loss and write-immediate (drivers/vulkan/vkdrv_fault.c), fed
 * with recorded fault records: no GPU, no Vulkan device, so they run on every machine (docs/vulkan.md, "Device
 * loss"). `test_vulkan_fault CASE`, one ctest each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "vkdrv_fault.h"

/* Three buffers the driver made, as a loss would find them: A live at BDA 0x7f0000000000 (driver VA 0x100000000,
 * 64 KiB), B freed (BDA 0x7f0000200000, VA 0x100020000, 128 KiB), C live (BDA 0x7f0000400000, VA 0x100050000). */
static const d12__vkdrv_fault_range k_ranges[] = {
    {0x7f0000000000ull, 0x10000, 0x100000000ull, false},
    {0x7f0000200000ull, 0x20000, 0x100020000ull, true},
    {0x7f0000400000ull, 0x10000, 0x100050000ull, false},
};
#define RANGES k_ranges, sizeof k_ranges / sizeof k_ranges[0]
#define PROBE 0x7f0000800000ull

static void test_translate_live(void)
{
    d12__vkdrv_va_translation t = d12__vkdrv_translate(RANGES, 0x7f0000000123ull, PROBE, 0x10000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_LIVE);
    CHECK_EQ_INT(t.va, 0x100000123ull);
    CHECK_EQ_INT(t.range, 0);
    t = d12__vkdrv_translate(RANGES, 0x7f000040fffcull, PROBE, 0x10000); /* the last word of C */
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_LIVE);
    CHECK_EQ_INT(t.va, 0x10005fffcull);
}

static void test_translate_freed(void)
{
    d12__vkdrv_va_translation t = d12__vkdrv_translate(RANGES, 0x7f0000210008ull, PROBE, 0x10000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_FREED);
    CHECK_EQ_INT(t.va, 0x100030008ull);
    CHECK_EQ_INT(t.range, 1);
}

/* A live buffer that the Vulkan driver placed on a freed one's device addresses is what the GPU reached. */
static void test_translate_live_wins(void)
{
    d12__vkdrv_fault_range ranges[] = {
        {0x7f0000200000ull, 0x20000, 0x100020000ull, true},
        {0x7f0000200000ull, 0x10000, 0x100090000ull, false},
    };
    d12__vkdrv_va_translation t = d12__vkdrv_translate(ranges, 2, 0x7f0000200010ull, 0, 0);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_LIVE);
    CHECK_EQ_INT(t.va, 0x100090010ull);
    t = d12__vkdrv_translate(ranges, 2, 0x7f0000210010ull, 0, 0); /* past the live one, inside the freed one */
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_FREED);
    CHECK_EQ_INT(t.va, 0x100030010ull);
}

static void test_translate_gap(void)
{
    /* 0x40 bytes past A's end: the driver VA 0x40 into A's gap. */
    d12__vkdrv_va_translation t = d12__vkdrv_translate(RANGES, 0x7f0000010040ull, PROBE, 0x10000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_GAP);
    CHECK_EQ_INT(t.va, 0x100010040ull);
    CHECK_EQ_INT(t.range, 0);
    /* Past the freed B: still its gap (the nearest range below). */
    t = d12__vkdrv_translate(RANGES, 0x7f0000220000ull, PROBE, 0x10000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_GAP);
    CHECK_EQ_INT(t.va, 0x100040000ull);
    CHECK_EQ_INT(t.range, 1);
}

static void test_translate_none(void)
{
    /* 64 KiB or more past every buffer, below every buffer, and a made-up address: reported as they are. */
    const UINT64 addresses[] = {0x7f0000020000ull, 0x1000ull, 0xFFFFCDCECDCF1000ull, 0x7f0000410000ull + 0x10000};
    for (size_t i = 0; i < sizeof addresses / sizeof addresses[0]; i++) {
        d12__vkdrv_va_translation t = d12__vkdrv_translate(RANGES, addresses[i], PROBE, 0x10000);
        CHECK_EQ_INT(t.kind, D12_VKDRV_VA_NONE);
        CHECK_EQ_INT(t.va, addresses[i]);
    }
    d12__vkdrv_va_translation t = d12__vkdrv_translate(NULL, 0, 0x7f0000000000ull, 0, 0);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_NONE);
    CHECK_EQ_INT(t.va, 0x7f0000000000ull);
}

/* vkd3d-proton issue 3221: a kernel reports ffff80004083e000 for 0x000080004083e000. */
static void test_translate_sign_extended(void)
{
    d12__vkdrv_fault_range ranges[] = {{0x000080004083e000ull - 0x100, 0x10000, 0x100000000ull, false}};
    d12__vkdrv_va_translation t = d12__vkdrv_translate(ranges, 1, 0xffff80004083e000ull, 0, 0);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_LIVE);
    CHECK_EQ_INT(t.va, 0x100000100ull);
    /* Upper bits that are no sign extension stay as reported. */
    t = d12__vkdrv_translate(ranges, 1, 0xfff080004083e000ull, 0, 0);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_NONE);
}

static void test_translate_probe(void)
{
    d12__vkdrv_va_translation t = d12__vkdrv_translate(RANGES, PROBE + 0x123c, PROBE, 0x10000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_POISON);
    CHECK_EQ_INT(t.va, 0x123c);
    t = d12__vkdrv_translate(RANGES, PROBE + 0x123c, 0, 0); /* no probe: in nothing */
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_NONE);
    /* The null-page probe the driver uses, [0, 4 KiB): an address at 0 or inside it is the probe; past it, nothing. */
    t = d12__vkdrv_translate(RANGES, 0x23c, 0, 0x1000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_POISON);
    CHECK_EQ_INT(t.va, 0x23c);
    t = d12__vkdrv_translate(RANGES, 0, 0, 0x1000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_POISON);
    CHECK_EQ_INT(t.va, 0);
    t = d12__vkdrv_translate(RANGES, 0x1000, 0, 0x1000);
    CHECK_EQ_INT(t.kind, D12_VKDRV_VA_NONE);
}

/* Real-fault mode: a chunk whose kernel set its fault word and has not completed 500 ms later is held by its probe
 * read's MMU fault; not sooner, not without the word, not with the mode off. */
static void test_stall_decide(void)
{
    const UINT64 stall = 500000000ull;
    CHECK(d12__vkdrv_stall_decide(true, 0x100001000ull, stall, stall));
    CHECK(d12__vkdrv_stall_decide(true, 0x100001000ull, stall * 3, stall));
    CHECK(!d12__vkdrv_stall_decide(true, 0x100001000ull, stall - 1, stall));
    CHECK(!d12__vkdrv_stall_decide(true, UINT64_MAX, stall * 10, stall)); /* no fault word: a slow chunk */
    CHECK(!d12__vkdrv_stall_decide(false, 0x100001000ull, stall * 10, stall)); /* mode off: nothing dereferenced */
}

static void test_access_types(void)
{
    CHECK_EQ_INT(d12__vkdrv_fault_access(VK_DEVICE_FAULT_ADDRESS_TYPE_READ_INVALID_EXT), 'r');
    CHECK_EQ_INT(d12__vkdrv_fault_access(VK_DEVICE_FAULT_ADDRESS_TYPE_WRITE_INVALID_EXT), 'w');
    CHECK_EQ_INT(d12__vkdrv_fault_access(VK_DEVICE_FAULT_ADDRESS_TYPE_EXECUTE_INVALID_EXT), 'x');
    CHECK_EQ_INT(d12__vkdrv_fault_access(VK_DEVICE_FAULT_ADDRESS_TYPE_NONE_EXT), 0);
    CHECK_EQ_INT(d12__vkdrv_fault_access(VK_DEVICE_FAULT_ADDRESS_TYPE_INSTRUCTION_POINTER_FAULT_EXT), 0);
    CHECK_EQ_INT(d12__vkdrv_fault_flags('w'), D3D12DDI_PAGE_FAULT_FLAG_WRITE);
    CHECK_EQ_INT(d12__vkdrv_fault_flags('r'), D3D12DDI_PAGE_FAULT_FLAG_NONE);
    CHECK_EQ_INT(d12__vkdrv_fault_flags('x'), D3D12DDI_PAGE_FAULT_FLAG_NONE);
    CHECK_EQ_STR(d12__vkdrv_fault_access_name('x'), "executes");
    CHECK_EQ_STR(d12__vkdrv_fault_access_name('w'), "writes");
}

static void test_checkpoint_encoding(void)
{
    UINT64 serial;
    size_t position;
    CHECK(d12__vkdrv_checkpoint_decode(d12__vkdrv_checkpoint_encode(7, 1234), &serial, &position));
    CHECK_EQ_INT(serial, 7);
    CHECK_EQ_INT(position, 1234);
    /* Saturated, serial 0 (no checkpoint) and a NULL marker decode as unknown. */
    CHECK(!d12__vkdrv_checkpoint_decode(d12__vkdrv_checkpoint_encode(7, (size_t)1 << 30), &serial, &position));
    CHECK(!d12__vkdrv_checkpoint_decode(d12__vkdrv_checkpoint_encode(0, 3), &serial, &position));
    CHECK(!d12__vkdrv_checkpoint_decode(0, &serial, &position));
}

/* A recording whose ops at positions 1, 3, 4 and 6 do GPU work (0, 2, 5: state setters and marker writes). */
static bool work(size_t candidate, size_t position, void *context)
{
    (void)candidate;
    (void)context;
    return position == 1 || position == 3 || position == 4 || position == 6;
}

static d12__vkdrv_loss_candidate candidate(UINT64 serial)
{
    return (d12__vkdrv_loss_candidate){.serial = serial, .first = 0, .end = 7, .kernel_va = UINT64_MAX};
}

static void test_decide_checkpoints_only(void)
{
    d12__vkdrv_loss_candidate c[2] = {candidate(5), candidate(9)};
    /* Recording 9: ops before 3 completed (BOTTOM), op 4's begin reached (TOP): op 3 is named. */
    d12__vkdrv_loss_records r = {.candidates = c, .candidate_count = 2, .top = true, .bottom = true,
                                 .top_marker = d12__vkdrv_checkpoint_encode(9, 4),
                                 .bottom_marker = d12__vkdrv_checkpoint_encode(9, 2)};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_CHECKPOINT);
    CHECK_EQ_INT(v.candidate, 1);
    CHECK_EQ_INT(v.position, 3);
    CHECK(!v.page_fault);
    /* Only TOP: the last op started. */
    r.bottom = false;
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_CHECKPOINT);
    CHECK_EQ_INT(v.position, 4);
    /* TOP at the segment's end marker: the last op before it. */
    r.top_marker = d12__vkdrv_checkpoint_encode(9, 7);
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.position, 6);
    /* A marker of no submission in flight names nothing. */
    r.top_marker = d12__vkdrv_checkpoint_encode(3, 4);
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_UNKNOWN);
    CHECK_EQ_INT(v.candidate, SIZE_MAX);
    CHECK_EQ_INT(v.position, SIZE_MAX);
}

static void test_decide_markers_only(void)
{
    d12__vkdrv_loss_candidate c = candidate(5);
    c.marker = true;
    c.marker_position = 2; /* the MARKER_OUT after op 1 landed: op 3 is the first outstanding */
    d12__vkdrv_loss_records r = {.candidates = &c, .candidate_count = 1};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_MARKER);
    CHECK_EQ_INT(v.candidate, 0);
    CHECK_EQ_INT(v.position, 3);
    /* Two submissions in flight: a breadcrumb does not say which faulted. */
    d12__vkdrv_loss_candidate two[2] = {c, candidate(6)};
    r = (d12__vkdrv_loss_records){.candidates = two, .candidate_count = 2};
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_UNKNOWN);
    CHECK_EQ_INT(v.candidate, SIZE_MAX);
}

static void test_decide_none(void)
{
    d12__vkdrv_loss_candidate c = candidate(5);
    d12__vkdrv_loss_records r = {.candidates = &c, .candidate_count = 1};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_UNKNOWN);
    CHECK_EQ_INT(v.candidate, 0); /* the list is known */
    CHECK_EQ_INT(v.position, SIZE_MAX);
    CHECK(!v.page_fault);
    r.candidate_count = 0;
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.candidate, SIZE_MAX);
}

static void test_decide_single_submission(void)
{
    d12__vkdrv_loss_candidate c = candidate(5);
    c.first = 3;
    c.end = 4;
    c.single = true;
    d12__vkdrv_loss_records r = {.candidates = &c, .candidate_count = 1};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_SUBMISSION);
    CHECK_EQ_INT(v.position, 3);
    /* Checkpoints win over it. */
    r.top = true;
    r.top_marker = d12__vkdrv_checkpoint_encode(5, 3);
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_CHECKPOINT);
}

/* Real-fault mode: the device reports the probe address; the kernel's record gives the driver VA and the op. */
static void test_decide_kernel_probe(void)
{
    d12__vkdrv_loss_candidate c[2] = {candidate(5), candidate(8)};
    c[1].first = 6;
    c[1].end = 7;
    c[1].single = true;
    c[1].kernel_fault = true;
    c[1].kernel_va = 0xFFFFCDCECDCF1000ull;
    d12__vkdrv_loss_records r = {.candidates = c, .candidate_count = 2, .address = true, .access = 'r',
                                 .reported_address = PROBE + 0x1000,
                                 .translation = {D12_VKDRV_VA_POISON, 0x1000, SIZE_MAX},
                                 .top = true, .top_marker = d12__vkdrv_checkpoint_encode(5, 4)};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_KERNEL);
    CHECK_EQ_INT(v.candidate, 1);
    CHECK_EQ_INT(v.position, 6);
    CHECK(v.page_fault);
    CHECK_EQ_INT(v.va, 0xFFFFCDCECDCF1000ull);
    CHECK_EQ_INT(v.access, 'r');
}

/* The device's address, translated, is the VA reported; one in nothing is reported as it is. */
static void test_decide_address(void)
{
    d12__vkdrv_loss_candidate c = candidate(5);
    d12__vkdrv_loss_records r = {.candidates = &c, .candidate_count = 1, .address = true, .access = 'w',
                                 .reported_address = 0x7f0000210008ull,
                                 .translation = d12__vkdrv_translate(RANGES, 0x7f0000210008ull, 0, 0),
                                 .bottom = true, .bottom_marker = d12__vkdrv_checkpoint_encode(5, 4)};
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK(v.page_fault);
    CHECK_EQ_INT(v.va, 0x100030008ull); /* the freed buffer's driver VA */
    CHECK_EQ_INT(v.access, 'w');
    CHECK_EQ_INT(v.source, D12_VKDRV_LOSS_CHECKPOINT);
    CHECK_EQ_INT(v.position, 4);
    r.reported_address = 0xdead0000ull;
    r.translation = d12__vkdrv_translate(RANGES, 0xdead0000ull, 0, 0);
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK(v.page_fault);
    CHECK_EQ_INT(v.va, 0xdead0000ull);
    /* An address record whose translation is the probe but no kernel record: no VA at all. */
    r.translation = (d12__vkdrv_va_translation){D12_VKDRV_VA_POISON, 0x10, SIZE_MAX};
    v = d12__vkdrv_loss_decide(&r, work, NULL);
    CHECK(!v.page_fault);
}

static void test_wbi_choose(void)
{
    d12__vkdrv_wbi_path p = d12__vkdrv_wbi_choose(true, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_IN);
    CHECK(p.marker);
    CHECK_EQ_INT(p.stage, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT);
    p = d12__vkdrv_wbi_choose(true, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT);
    CHECK(p.marker);
    CHECK_EQ_INT(p.stage, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
    p = d12__vkdrv_wbi_choose(true, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT);
    CHECK(p.marker);
    CHECK_EQ_INT(p.stage, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT);
    for (int mode = 0; mode <= 2; mode++) {
        p = d12__vkdrv_wbi_choose(false, (D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127)mode);
        CHECK(!p.marker);
    }
}

/* Issue 29: X*Y*Z never wraps: 2^22 * 2^21 * 2^21 is 2^64 (0 when wrapped), saturated at UINT64_MAX; products that
 * fit are exact; a draw is vertices x instances whatever its third count. */
static void test_invocations(void)
{
    CHECK(d12__vkdrv_invocations(1u << 22, 1u << 21, 1u << 21, true) == UINT64_MAX);
    CHECK(d12__vkdrv_invocations(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, true) == UINT64_MAX);
    CHECK(d12__vkdrv_invocations(0xFFFFFFFFu, 0xFFFFFFFFu, 1, true) == 0xFFFFFFFE00000001ull);
    CHECK(d12__vkdrv_invocations(65535, 65535, 65535, true) == 281462092005375ull);
    CHECK_EQ_INT(d12__vkdrv_invocations(4, 3, 2, true), 24);
    CHECK_EQ_INT(d12__vkdrv_invocations(4, 3, 0, true), 0);
    CHECK(d12__vkdrv_invocations(0xFFFFFFFFu, 0xFFFFFFFFu, 7, false) == 0xFFFFFFFE00000001ull);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"translate_live", test_translate_live},
    {"translate_freed", test_translate_freed},
    {"translate_live_wins", test_translate_live_wins},
    {"translate_gap", test_translate_gap},
    {"translate_none", test_translate_none},
    {"translate_sign_extended", test_translate_sign_extended},
    {"translate_probe", test_translate_probe},
    {"stall_decide", test_stall_decide},
    {"access_types", test_access_types},
    {"checkpoint_encoding", test_checkpoint_encoding},
    {"decide_checkpoints_only", test_decide_checkpoints_only},
    {"decide_markers_only", test_decide_markers_only},
    {"decide_none", test_decide_none},
    {"decide_single_submission", test_decide_single_submission},
    {"decide_kernel_probe", test_decide_kernel_probe},
    {"decide_address", test_decide_address},
    {"wbi_choose", test_wbi_choose},
    {"invocations", test_invocations},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_vulkan_fault CASE (unknown case)\n");
    return 2;
}
