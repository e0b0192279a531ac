/* DRED round 3 (issue 32) and issue 29's two DRED findings, as outside bug programs through libd12rt's public ABI,
 * on whichever driver D12RT_DRIVER names (CMake registers each case on the reference driver and, as vulkan.dred.*, on
 * the Vulkan driver over lavapipe): fences decided by identity (a cycle of unnamed fences, two fences sharing a name),
 * a three-queue cycle, fences that went backwards (a queue's Signal, a CPU Signal), stall reports in the present
 * tense, stall reports of two devices in one process. `test_dred_round3 CASE` runs one case. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

static char g_dir[] = "/tmp/d12dred_round3_XXXXXX";
#include "dred_case.h"

static ID3D12CommandQueue *named_queue(ID3D12Device *device, D3D12_COMMAND_LIST_TYPE type, const wchar_t *name)
{
    D3D12_COMMAND_QUEUE_DESC desc = {type, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ID3D12CommandQueue *queue = NULL;
    if (CHECK_HR(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK) &&
        name)
        ID3D12CommandQueue_SetName(queue, name);
    return queue;
}

static ID3D12Fence *named_fence(ID3D12Device *device, UINT64 initial, const wchar_t *name)
{
    ID3D12Fence *fence = NULL;
    if (CHECK_HR(ID3D12Device_CreateFence(device, initial, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence),
                 S_OK) && name)
        ID3D12Fence_SetName(fence, name);
    return fence;
}

/* The wait-for graph of two queues: `x` waits `wx` >= 1 then signals `sx` = 1; `y` waits `wy` >= 1 then signals
 * `sy` = 1. A cycle when sx is wy and sy is wx. */
static void wait_then_signal(ID3D12CommandQueue *queue, ID3D12Fence *wait, ID3D12Fence *signal)
{
    CHECK_HR(ID3D12CommandQueue_Wait(queue, wait, 1), S_OK);
    CHECK_HR(ID3D12CommandQueue_Signal(queue, signal, 1), S_OK);
}

typedef struct world {
    ID3D12Device *device;
    ID3D12CommandQueue *queues[3];
    ID3D12Fence *fences[4];
} world;

/* RemoveDevice and release everything (the leak check). */
static void remove_and_release(world *w)
{
    remove_device(w->device);
    for (int i = 0; i < 3; i++)
        if (w->queues[i])
            RELEASE_LAST(w->queues[i]);
    for (int i = 0; i < 4; i++)
        if (w->fences[i])
            RELEASE_LAST(w->fences[i]);
    RELEASE_LAST(w->device);
}

/* The same, and the removal's report. */
static d12dred_report *remove_and_read(world *w)
{
    remove_and_release(w);
    return removal_report();
}

/* ======== issue 29: the deadlock verdict by fence identity ======== */

/* A device with queues `x` (DIRECT) and `y` (COMPUTE) and `count` fences named `fences[i]` (NULL: unnamed). */
static bool make_world(world *w, const wchar_t *x, const wchar_t *y, const wchar_t *const *fences, int count)
{
    w->device = setup();
    if (!w->device)
        return false;
    w->queues[0] = named_queue(w->device, D3D12_COMMAND_LIST_TYPE_DIRECT, x);
    w->queues[1] = named_queue(w->device, D3D12_COMMAND_LIST_TYPE_COMPUTE, y);
    for (int i = 0; i < count; i++)
        w->fences[i] = named_fence(w->device, 0, fences[i]);
    return true;
}

/* A cycle of unnamed fences is a deadlock (by name it was missed: no name, no match). */
static void test_deadlock_unnamed(void)
{
    world w = {0};
    const wchar_t *const unnamed[2] = {NULL, NULL};
    if (!make_world(&w, L"A", L"B", unnamed, 2))
        return;
    wait_then_signal(w.queues[0], w.fences[0], w.fences[1]);
    wait_then_signal(w.queues[1], w.fences[1], w.fences[0]);
    char first[64], second[64];
    snprintf(first, sizeof first, "unnamed fence 0x%llx", (unsigned long long)(uintptr_t)w.fences[0]);
    snprintf(second, sizeof second, "unnamed fence 0x%llx", (unsigned long long)(uintptr_t)w.fences[1]);
    d12dred_report *r = remove_and_read(&w);
    if (CHECK(r != NULL) && CHECK(r->deadlock != NULL)) {
        CHECK(contains(r->deadlock, first));
        CHECK(contains(r->deadlock, second));
        CHECK(contains(r->deadlock, ": a cycle"));
    }
    d12dred_report_free(r);
    cleanup();
}

/* Two fences named 'Gate' and no cycle: queue X waits Gate #1 and signals H, queue Y waits H and signals Gate #2
 * (nobody signals Gate #1). By name it read as a deadlock; by identity there is none. */
static void test_deadlock_same_name_none(void)
{
    world w = {0};
    const wchar_t *const names[3] = {L"Gate", L"Gate", L"H"};
    if (!make_world(&w, L"X", L"Y", names, 3))
        return;
    wait_then_signal(w.queues[0], w.fences[0], w.fences[2]);
    wait_then_signal(w.queues[1], w.fences[2], w.fences[1]);
    d12dred_report *r = remove_and_read(&w);
    if (CHECK(r != NULL)) {
        CHECK(r->deadlock == NULL);
        char *text = render(r);
        CHECK(contains(text, "pending wait  fence 'Gate' (0x")); /* the shared name worded with the identity */
        CHECK(text && !strstr(text, "deadlock"));
        free(text);
    }
    d12dred_report_free(r);
    cleanup();
}

/* The positive: a real cycle through two fences that share a name is found and worded 'Gate' (0x...). */
static void test_deadlock_same_name_cycle(void)
{
    world w = {0};
    const wchar_t *const names[2] = {L"Gate", L"Gate"};
    if (!make_world(&w, L"X", L"Y", names, 2))
        return;
    wait_then_signal(w.queues[0], w.fences[0], w.fences[1]);
    wait_then_signal(w.queues[1], w.fences[1], w.fences[0]);
    char first[64], second[64];
    snprintf(first, sizeof first, "'Gate' (0x%llx)", (unsigned long long)(uintptr_t)w.fences[0]);
    snprintf(second, sizeof second, "'Gate' (0x%llx)", (unsigned long long)(uintptr_t)w.fences[1]);
    d12dred_report *r = remove_and_read(&w);
    if (CHECK(r != NULL) && CHECK(r->deadlock != NULL)) {
        CHECK(contains(r->deadlock, first));
        CHECK(contains(r->deadlock, second));
    }
    d12dred_report_free(r);
    cleanup();
}

/* Three queues, each waiting on what the next signals only after its own wait. The verdict starts at the report's
 * first queue and closes the cycle (issue 32 item 6). */
static void test_three_queue_cycle(void)
{
    world w = {.device = setup()};
    if (!w.device)
        return;
    w.queues[0] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_DIRECT, L"Graphics queue");
    w.queues[1] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_COMPUTE, L"Compute queue");
    w.queues[2] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_COPY, L"Upload queue");
    w.fences[0] = named_fence(w.device, 0, L"Scene ready");
    w.fences[1] = named_fence(w.device, 0, L"Lights ready");
    w.fences[2] = named_fence(w.device, 0, L"Upload done");
    wait_then_signal(w.queues[0], w.fences[0], w.fences[2]); /* graphics waits scene, signals upload */
    wait_then_signal(w.queues[1], w.fences[1], w.fences[0]); /* compute waits lights, signals scene */
    wait_then_signal(w.queues[2], w.fences[2], w.fences[1]); /* upload waits upload-done, signals lights */
    d12dred_report *r = remove_and_read(&w);
    if (CHECK(r != NULL) && CHECK(r->deadlock != NULL) && CHECK_EQ_INT_RET(r->queue_count, 3)) {
        /* the device's order is newest first: the upload queue starts the sentence */
        CHECK_EQ_STR(r->queues[0]->name, "Upload queue");
        CHECK_EQ_STR(r->deadlock, "deadlock: queue 'Upload queue' waits 'Upload done' >= 1 (at 0), signalled only by "
                                  "queue 'Graphics queue' behind its wait on 'Scene ready' >= 1 (at 0), signalled only "
                                  "by queue 'Compute queue' behind its wait on 'Lights ready' >= 1 (at 0), which queue "
                                  "'Upload queue' signals only after its own wait: a cycle");
        char *text = render(r);
        CHECK(contains(text, "  verdict       deadlock: queue 'Upload queue' waits"));
        free(text);
    }
    d12dred_report_free(r);
    cleanup();
}

/* ======== issue 32 item 3: fences that went backwards ======== */

/* 'Frame fence' reaches 10 by the direct queue's Signal, then the streaming queue's Signal sets it to 3; the direct
 * queue's Wait for 10 is queued after that and never passes. */
static void make_backwards(world *w)
{
    w->queues[0] = named_queue(w->device, D3D12_COMMAND_LIST_TYPE_DIRECT, L"Direct queue");
    w->queues[1] = named_queue(w->device, D3D12_COMMAND_LIST_TYPE_COPY, L"Streaming queue");
    w->fences[0] = named_fence(w->device, 0, L"Frame fence");
    CHECK_HR(ID3D12CommandQueue_Signal(w->queues[0], w->fences[0], 10), S_OK);
    CHECK(wait_fence(w->fences[0], 10));
    CHECK_HR(ID3D12CommandQueue_Signal(w->queues[1], w->fences[0], 3), S_OK);
    for (int i = 0; i < 400 && ID3D12Fence_GetCompletedValue(w->fences[0]) != 3; i++)
        sleep_ms(5);
    CHECK_HR(ID3D12Fence_GetCompletedValue(w->fences[0]), 3);
    CHECK_HR(ID3D12CommandQueue_Wait(w->queues[0], w->fences[0], 10), S_OK);
}

static const char k_backwards[] = "'Frame fence' went backwards: 10 (reached) \xe2\x86\x92 3, set by queue 'Streaming "
                                  "queue' (ID3D12CommandQueue::Signal)";

static void test_backwards_queue(void)
{
    world w = {.device = setup()};
    if (!w.device)
        return;
    make_backwards(&w);
    d12dred_report *r = remove_and_read(&w);
    const d12dred_queue *q = queue_named(r, "Direct queue");
    if (CHECK(q != NULL) && CHECK_EQ_INT_RET(q->wait_count, 1)) {
        CHECK_EQ_STR(q->waits[0].backwards, k_backwards);
        CHECK(q->waits[0].has_fence_id);
        const d12dred_fence *f = d12dred_report_find_fence(r, q->waits[0].fence_id);
        if (CHECK(f != NULL) && CHECK_EQ_INT_RET(f->change_count, 2)) {
            CHECK_EQ_INT(f->highest, 10);
            CHECK_EQ_INT(f->value, 3);
            CHECK_EQ_INT(f->changes[0].value, 10);
            CHECK_EQ_STR(f->changes[0].by, "queue 'Direct queue'");
            CHECK_EQ_STR(f->changes[1].by, "queue 'Streaming queue'");
            CHECK_EQ_STR(f->changes[1].call, "ID3D12CommandQueue::Signal");
        }
        char *text = render(r);
        CHECK(contains(text, "  verdict       'Frame fence' went backwards: 10 (reached)"));
        free(text);
    }
    d12dred_report_free(r);
    cleanup();
}

/* Lowered by a CPU Signal: the thread that set it. */
static void test_backwards_cpu(void)
{
    world w = {.device = setup()};
    if (!w.device)
        return;
    w.queues[0] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_DIRECT, L"Direct queue");
    w.fences[0] = named_fence(w.device, 0, L"Frame fence");
    CHECK_HR(ID3D12Fence_Signal(w.fences[0], 10), S_OK);
    CHECK_HR(ID3D12Fence_Signal(w.fences[0], 3), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(w.queues[0], w.fences[0], 10), S_OK);
    char expected[200];
    snprintf(expected, sizeof expected, "'Frame fence' went backwards: 10 (reached) \xe2\x86\x92 3, set by CPU thread %ld "
                                        "(ID3D12Fence::Signal)", (long)syscall(SYS_gettid));
    d12dred_report *r = remove_and_read(&w);
    const d12dred_queue *q = queue_named(r, "Direct queue");
    if (CHECK(q != NULL) && CHECK_EQ_INT_RET(q->wait_count, 1))
        CHECK_EQ_STR(q->waits[0].backwards, expected);
    d12dred_report_free(r);
    cleanup();
}

/* The negative: a fence that only rose and has not reached the value yet did not go backwards. */
static void test_backwards_none(void)
{
    world w = {.device = setup()};
    if (!w.device)
        return;
    w.queues[0] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_DIRECT, L"Direct queue");
    w.fences[0] = named_fence(w.device, 0, L"Frame fence");
    CHECK_HR(ID3D12Fence_Signal(w.fences[0], 3), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(w.queues[0], w.fences[0], 10), S_OK);
    d12dred_report *r = remove_and_read(&w);
    const d12dred_queue *q = queue_named(r, "Direct queue");
    if (CHECK(q != NULL) && CHECK_EQ_INT_RET(q->wait_count, 1)) {
        CHECK(q->waits[0].backwards == NULL);
        CHECK(d12dred_report_wait_verdict(r) == NULL);
        const d12dred_fence *f = d12dred_report_find_fence(r, q->waits[0].fence_id);
        if (CHECK(f != NULL))
            CHECK_EQ_INT(f->highest, 3);
    }
    d12dred_report_free(r);
    cleanup();
}

/* ======== issue 32 item 4, issue 29: stall reports ======== */

static bool wait_for_file(const char *path)
{
    struct stat st;
    for (int i = 0; i < 400 && stat(path, &st) != 0; i++)
        sleep_ms(25);
    return stat(path, &st) == 0;
}

/* A stall report speaks of a device that was not removed: no reason line, no page-fault section, values "when the
 * stall was reported", lists "outstanding now", and how long nothing progressed. */
static void test_stall_backwards(void)
{
    setenv("D12RT_STALL_MS", "200", 1);
    world w = {.device = setup()};
    if (!w.device)
        return;
    make_backwards(&w);
    char path[512];
    snprintf(path, sizeof path, "%s/d12rt-stall-%d-1.json", g_dir, (int)getpid());
    CHECK(wait_for_file(path));
    d12dred_report *s = read_report("d12rt-stall", 1);
    char *text = render(s);
    if (CHECK(s != NULL)) {
        CHECK(s->stalled_ms >= 200);
        CHECK(contains(text, "  kind          stall: no GPU progress for "));
        CHECK(contains(text, " ms while work was pending (D12RT_STALL_MS); the device was not removed\n"));
        CHECK(contains(text, "  verdict       'Frame fence' went backwards: 10 (reached)"));
        CHECK(contains(text, "pending wait  fence 'Frame fence' >= 10 (at 3 when the stall was reported)\n"));
        CHECK(contains(text, "\nCommand lists outstanding now\n"));
        CHECK(text && !strstr(text, "  reason "));
        CHECK(text && !strstr(text, "Page fault"));
        CHECK(text && !strstr(text, "before removal"));
        CHECK(text && !strstr(text, "at removal"));
    }
    free(text);
    d12dred_report_free(s);
    d12dred_report *r = remove_and_read(&w);
    char *removal = render(r);
    CHECK(contains(removal, "(was 3 before removal)")); /* the removal's report stays in the past tense */
    free(removal);
    d12dred_report_free(r);
    cleanup();
}

/* One device that stalls on a wait nobody signals, until its stall report `n` of this process is written; then it
 * is removed and released. */
static void stall_one_device(const wchar_t *queue_name, unsigned n)
{
    world w = {.device = create_device(false)};
    if (!CHECK(w.device != NULL))
        return;
    w.queues[0] = named_queue(w.device, D3D12_COMMAND_LIST_TYPE_DIRECT, queue_name);
    w.fences[0] = named_fence(w.device, 0, L"Never");
    CHECK_HR(ID3D12CommandQueue_Wait(w.queues[0], w.fences[0], 1), S_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/d12rt-stall-%d-%u.json", g_dir, (int)getpid(), n);
    CHECK(wait_for_file(path));
    remove_and_release(&w);
}

/* Two devices of one process stall, one after the other (D3D12CreateDevice answers one device per adapter while it
 * lives): two reports, the second not replacing the first (issue 29: they were numbered per device, both
 * d12rt-stall-<pid>-1.json). */
static void test_stall_two_devices(void)
{
    setenv("D12RT_STALL_MS", "200", 1);
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    set_dred(D3D12_DRED_ENABLEMENT_FORCED_ON, D3D12_DRED_ENABLEMENT_FORCED_ON);
    stall_one_device(L"Device 1 queue", 1);
    stall_one_device(L"Device 2 queue", 2);
    d12dred_report *a = read_report("d12rt-stall", 1), *b = read_report("d12rt-stall", 2);
    if (CHECK(a != NULL) && CHECK(b != NULL) && CHECK_EQ_INT_RET(a->queue_count, 1) &&
        CHECK_EQ_INT_RET(b->queue_count, 1)) {
        CHECK_EQ_STR(a->queues[0]->name, "Device 1 queue");
        CHECK_EQ_STR(b->queues[0]->name, "Device 2 queue");
    }
    d12dred_report_free(a);
    d12dred_report_free(b);
    cleanup();
}

/* ======== issue 32 item 2: resets while in flight ======== */

/* A list recorded into 'Frame allocator', executed behind a Wait nobody satisfies (so it stays in flight); the debug
 * layer on. */
typedef struct in_flight {
    world w;
    ID3D12CommandAllocator *allocator, *other;
    ID3D12GraphicsCommandList *list;
    ID3D12InfoQueue *info;
} in_flight;

static bool make_in_flight(in_flight *f, bool blocked)
{
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return false;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    set_dred(D3D12_DRED_ENABLEMENT_FORCED_ON, D3D12_DRED_ENABLEMENT_FORCED_ON);
    f->w.device = create_device(true);
    if (!CHECK(f->w.device != NULL))
        return false;
    f->info = info_queue_of(f->w.device);
    f->w.queues[0] = named_queue(f->w.device, D3D12_COMMAND_LIST_TYPE_DIRECT, L"Direct queue");
    f->w.fences[0] = named_fence(f->w.device, 0, L"Gate");
    f->w.fences[1] = named_fence(f->w.device, 0, L"Done");
    if (!CHECK_HR(ID3D12Device_CreateCommandAllocator(f->w.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&f->allocator), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandAllocator(f->w.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&f->other), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(f->w.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, f->allocator, NULL,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&f->list), S_OK))
        return false;
    ID3D12CommandAllocator_SetName(f->allocator, L"Frame allocator");
    ID3D12GraphicsCommandList_SetName(f->list, L"Scene list");
    D3D12_RESOURCE_BARRIER b = {.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV};
    ID3D12GraphicsCommandList_ResourceBarrier(f->list, 1, &b);
    CHECK_HR(ID3D12GraphicsCommandList_Close(f->list), S_OK);
    if (blocked)
        CHECK_HR(ID3D12CommandQueue_Wait(f->w.queues[0], f->w.fences[0], 1), S_OK);
    execute(f->w.queues[0], f->list);
    CHECK_HR(ID3D12CommandQueue_Signal(f->w.queues[0], f->w.fences[1], 1), S_OK);
    return true;
}

static void release_in_flight(in_flight *f)
{
    if (f->info)
        ID3D12InfoQueue_Release(f->info);
    if (f->list)
        RELEASE_LAST(f->list);
    if (f->allocator)
        RELEASE_LAST(f->allocator);
    if (f->other)
        RELEASE_LAST(f->other);
}

/* Reset with the list's work in flight: COMMAND_ALLOCATOR_SYNC (552) naming the allocator, the list, the submission;
 * the list reset (legal) and re-recorded meanwhile; the report says both, the allocator's reset as the cause. */
static void test_allocator_reset_in_flight(void)
{
    in_flight f = {0};
    if (!make_in_flight(&f, true))
        return;
    CHECK_HR(ID3D12CommandAllocator_Reset(f.allocator), S_OK); /* the core runtime resets anyway */
    check_one_message(f.info, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_SYNC,
                      "allocator 'Frame allocator' is reset while command list 'Scene list', recorded into it, is "
                      "still in flight (submission #1 of queue 'Direct queue'", __FILE__, __LINE__,
                      "one COMMAND_ALLOCATOR_SYNC naming allocator, list, submission and queue");
    message_info info = {0};
    if (CHECK_EQ_INT_RET(count_id(f.info, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_SYNC, NULL, &info), 1))
        CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(f.list, f.other, NULL), S_OK); /* legal while in flight */
    CHECK_HR(ID3D12GraphicsCommandList_Close(f.list), S_OK);
    release_in_flight(&f);
    d12dred_report *r = remove_and_read(&f.w);
    char *text = render(r);
    CHECK(contains(text, "list 'Scene list' on queue 'Direct queue', submission #1: the list was reset (recording "
                         "generation "));
    CHECK(contains(text, ") while this submission was in flight: its ops are no longer known"));
    CHECK(contains(text, "cause: command allocator 'Frame allocator' was reset while submission #1 of queue 'Direct "
                         "queue', recorded into it, was in flight (ID3D12CommandAllocator::Reset, "
                         "COMMAND_ALLOCATOR_SYNC)"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

/* The negative: Reset after a Signal behind the submission completed is no error, and nothing is noted. */
static void test_allocator_reset_after_fence(void)
{
    in_flight f = {0};
    if (!make_in_flight(&f, false))
        return;
    CHECK(wait_fence(f.w.fences[1], 1));
    CHECK_HR(ID3D12CommandAllocator_Reset(f.allocator), S_OK);
    CHECK_EQ_INT(count_id(f.info, D3D12_MESSAGE_ID_COMMAND_ALLOCATOR_SYNC, NULL, NULL), 0);
    release_in_flight(&f);
    d12dred_report *r = remove_and_read(&f.w);
    char *text = render(r);
    CHECK(text && !strstr(text, "COMMAND_ALLOCATOR_SYNC") && !strstr(text, "was reset"));
    free(text);
    d12dred_report_free(r);
    cleanup();
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"deadlock_unnamed", test_deadlock_unnamed},
    {"deadlock_same_name_none", test_deadlock_same_name_none},
    {"deadlock_same_name_cycle", test_deadlock_same_name_cycle},
    {"three_queue_cycle", test_three_queue_cycle},
    {"backwards_queue", test_backwards_queue},
    {"backwards_cpu", test_backwards_cpu},
    {"backwards_none", test_backwards_none},
    {"stall_backwards", test_stall_backwards},
    {"stall_two_devices", test_stall_two_devices},
    {"allocator_reset_in_flight", test_allocator_reset_in_flight},
    {"allocator_reset_after_fence", test_allocator_reset_after_fence},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++)
        if (strcmp(argv[1], k_cases[i].name) == 0) {
            k_cases[i].run();
            return d12test_finish();
        }
    fprintf(stderr, "usage: test_dred_round3 CASE\n");
    return 2;
}
