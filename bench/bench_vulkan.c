/* d12bench's Vulkan-driver rows (bench_vulkan.h, docs/vulkan.md "Costs"): what recording one CopyBufferRegion
 * costs with each validation mode, a submission's round trip, a small draw through the kernel, and a 1M-vertex
 * draw (the kernel's rate); a 2 000-draw recording and a whole 2 000-draw frame (record + execute + wait), without
 * and with DRED auto-breadcrumbs (issue 28 item 5: at most 3x and 1.25x). Each mode runs in its own worker process
 * (the mode is fixed when the adapter opens); the parent asks a worker to time N operations over a pipe. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "bench_gpu.h"
#include "bench_vulkan.h"
#include "peer_rows.h" /* peer_describe: the driver and the Vulkan device it opened, for the rows' descriptions */

#ifdef D12BENCH_VULKAN_DRIVER

enum {
    ROW_RECORD_COPY,
    ROW_EXECUTE_COPY,
    ROW_DRAW_SMALL,
    ROW_DRAW_1M,
    ROW_RECORD_DRAWS,
    ROW_FRAME_DRAWS,
    ROW_COPIES_RISING,
    ROW_COPIES_FALLING,
    ROW_COUNT
};
/* SCALE_COPIES disjoint copies of 16 bytes, 32 bytes apart, into one buffer (issue 28 item 6: linear in any order). */
enum { FRAME_DRAWS = 2000, SCALE_COPIES = 200000 };

typedef struct vk_worker {
    const char *mode;
    bool dred; /* DRED auto-breadcrumbs forced on (validation off) */
    pid_t pid;
    int to_worker, from_worker;
    char description[PEER_DESCRIPTION_SIZE]; /* from the worker: the driver and its Vulkan device */
    char what[ROW_COUNT][PEER_DESCRIPTION_SIZE + 96]; /* the rows' descriptions */
} vk_worker;

static vk_worker workers[] = {{.mode = "off", .pid = -1},   {.mode = "core", .pid = -1},
                              {.mode = "sync", .pid = -1},  {.mode = "gpuav", .pid = -1},
                              {.mode = "off", .dred = true, .pid = -1}};
#define WORKER_COUNT (sizeof workers / sizeof workers[0])
#define VALIDATION_WORKERS 4 /* the first four: one per mode */

typedef struct vk_row {
    vk_worker *worker;
    uint32_t row;
} vk_row;
static vk_row row_contexts[WORKER_COUNT * ROW_COUNT];

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ---- The worker ---- */

typedef struct vk_gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 value;
    ID3D12Resource *a, *b;
    ID3D12Resource *wide; /* the scale rows' destination, made at their first use */
    unsigned recorded;
} vk_gpu;

static bool open_gpu(vk_gpu *g)
{
    const D3D12_COMMAND_LIST_TYPE direct = D3D12_COMMAND_LIST_TYPE_DIRECT;
    D3D12_COMMAND_QUEUE_DESC desc = {direct, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                  D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC buffer = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 65536, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                  D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    return SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g->device)) &&
           SUCCEEDED(ID3D12Device_CreateCommandQueue(g->device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) &&
           SUCCEEDED(ID3D12Device_CreateCommandAllocator(g->device, direct, &IID_ID3D12CommandAllocator,
                                                         (void **)&g->allocator)) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, direct, g->allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->list)) &&
           SUCCEEDED(ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&g->fence)) &&
           SUCCEEDED(ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE, &buffer,
                                                          D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                          (void **)&g->a)) &&
           SUCCEEDED(ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE, &buffer,
                                                          D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                          (void **)&g->b));
}

static ID3D12Resource *wide_buffer(vk_gpu *g)
{
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                  D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC buffer = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, SCALE_COPIES * 32ull, 1, 1, 1,
                                  DXGI_FORMAT_UNKNOWN, {1, 0}, D3D12_TEXTURE_LAYOUT_ROW_MAJOR,
                                  D3D12_RESOURCE_FLAG_NONE};
    if (!g->wide && FAILED(ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE, &buffer,
                                                               D3D12_RESOURCE_STATE_COMMON, NULL,
                                                               &IID_ID3D12Resource, (void **)&g->wide)))
        g->wide = NULL;
    return g->wide;
}

/* Close and reopen the list, never executed. */
static bool reopen_list(vk_gpu *g)
{
    return SUCCEEDED(ID3D12GraphicsCommandList_Close(g->list)) &&
           SUCCEEDED(ID3D12CommandAllocator_Reset(g->allocator)) &&
           SUCCEEDED(ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL));
}

/* Execute the list, wait for the GPU, reopen the list. */
static bool run_list(vk_gpu *g)
{
    if (FAILED(ID3D12GraphicsCommandList_Close(g->list)))
        return false;
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
    ID3D12CommandQueue_Signal(g->queue, g->fence, ++g->value);
    while (ID3D12Fence_GetCompletedValue(g->fence) < g->value) {
        if (ID3D12Fence_GetCompletedValue(g->fence) == UINT64_MAX)
            return false; /* removed */
        usleep(20);
    }
    g->recorded = 0;
    return SUCCEEDED(ID3D12CommandAllocator_Reset(g->allocator)) &&
           SUCCEEDED(ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL));
}

/* Copies alternate between the two halves' directions with a barrier every 2 so no hazard is reported (the
 * messages would be a cost of their own). The list is reset (not executed) every 4096 commands. */
static double time_row(vk_gpu *g, uint32_t row, uint64_t n)
{
    double start = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        switch (row) {
        case ROW_RECORD_COPY:
            if (g->recorded == 4096) {
                ID3D12GraphicsCommandList_Close(g->list);
                ID3D12CommandAllocator_Reset(g->allocator);
                ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL);
                g->recorded = 0;
            }
            ID3D12GraphicsCommandList_CopyBufferRegion(g->list, g->b, (i & 63) * 1024, g->a, (i & 63) * 1024, 1024);
            g->recorded++;
            break;
        case ROW_EXECUTE_COPY:
            ID3D12GraphicsCommandList_CopyBufferRegion(g->list, g->b, 0, g->a, 0, 1024);
            if (!run_list(g))
                return -1;
            break;
        case ROW_DRAW_SMALL:
        case ROW_DRAW_1M:
            ID3D12GraphicsCommandList_DrawInstanced(g->list, row == ROW_DRAW_SMALL ? 3 : 1u << 20, 1, 0, 0);
            if (!run_list(g))
                return -1;
            break;
        case ROW_RECORD_DRAWS: /* Reset .. Close of 2 000 small draws, never executed */
            for (unsigned d = 0; d < FRAME_DRAWS; d++)
                ID3D12GraphicsCommandList_DrawInstanced(g->list, 3, 1, 0, 0);
            if (!reopen_list(g))
                return -1;
            break;
        case ROW_COPIES_RISING: /* Reset .. Close of SCALE_COPIES disjoint copies, never executed */
        case ROW_COPIES_FALLING:
            if (!wide_buffer(g))
                return -1;
            for (UINT64 c = 0; c < SCALE_COPIES; c++) {
                UINT64 slot = row == ROW_COPIES_RISING ? c : SCALE_COPIES - 1 - c;
                ID3D12GraphicsCommandList_CopyBufferRegion(g->list, g->wide, slot * 32, g->a, 0, 16);
            }
            if (!reopen_list(g))
                return -1;
            break;
        case ROW_FRAME_DRAWS: /* the same, executed and waited for */
            for (unsigned d = 0; d < FRAME_DRAWS; d++)
                ID3D12GraphicsCommandList_DrawInstanced(g->list, 3, 1, 0, 0);
            if (!run_list(g))
                return -1;
            break;
        }
    }
    return now_ns() - start;
}

static void worker_main(vk_worker *w, int in, int out)
{
    setenv("D12RT_DRIVER", D12BENCH_VULKAN_DRIVER, 1);
    setenv("D12RT_VULKAN_VALIDATION", w->mode, 1);
    setenv("XDG_RUNTIME_DIR", "/tmp", 0);
    setenv("D12RT_HKCU", "/nonexistent-d12bench/hkcu", 1);
    setenv("D12RT_HKLM", "/nonexistent-d12bench/hklm", 1);
    setenv("D12RT_TDR_DELAY_MS", "3600000", 1);
    if (w->dred) {
        ID3D12DeviceRemovedExtendedDataSettings *dred = NULL;
        if (FAILED(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&dred)))
            _exit(1);
        ID3D12DeviceRemovedExtendedDataSettings_SetAutoBreadcrumbsEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings_Release(dred);
    }
    vk_gpu g = {0};
    bool ok = open_gpu(&g) && time_row(&g, ROW_DRAW_SMALL, 1) >= 0; /* the kernel's pipeline is made at first use */
    double hello = ok ? 0 : -1;
    if (write(out, &hello, sizeof hello) != sizeof hello || !ok)
        _exit(1);
    char description[PEER_DESCRIPTION_SIZE] = {0};
    peer_describe(g.device, description, sizeof description - 1);
    if (write(out, description, sizeof description) != sizeof description)
        _exit(1);
    struct {
        uint32_t row;
        uint64_t n;
    } command;
    while (read(in, &command, sizeof command) == sizeof command) {
        double ns = time_row(&g, command.row, command.n);
        if (write(out, &ns, sizeof ns) != sizeof ns)
            break;
    }
    _exit(0);
}

/* ---- The parent ---- */

static double timed(void *context, uint64_t iterations)
{
    vk_row *r = context;
    struct {
        uint32_t row;
        uint64_t n;
    } command = {r->row, iterations};
    double ns = -1;
    if (write(r->worker->to_worker, &command, sizeof command) != sizeof command ||
        read(r->worker->from_worker, &ns, sizeof ns) != sizeof ns || ns < 0) {
        bench_fail_setup("a Vulkan worker (bench_vulkan.c)");
        return 0;
    }
    return ns;
}

static bool start(vk_worker *w)
{
    /* O_CLOEXEC: a worker forked and exec'ed later (d12bench --peer) must not hold these pipes open, or this worker
     * would never see the end of its input and teardown would wait for it for ever. */
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)
        return false;
    fflush(NULL);
    w->pid = fork();
    if (w->pid == 0) {
        close(down[1]);
        close(up[0]);
        /* The workers started before this one: their parent-side ends are the parent's alone, or a worker would
         * never see the end of its input (O_CLOEXEC does not act on a fork) and teardown would wait for ever. */
        for (size_t i = 0; i < WORKER_COUNT && &workers[i] != w; i++) {
            if (workers[i].pid > 0) {
                close(workers[i].to_worker);
                close(workers[i].from_worker);
            }
        }
        worker_main(w, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    w->to_worker = down[1];
    w->from_worker = up[0];
    double hello = -1;
    if (w->pid <= 0 || read(w->from_worker, &hello, sizeof hello) != sizeof hello || hello != 0)
        return false;
    size_t got = 0;
    while (got < sizeof w->description) {
        ssize_t n = read(w->from_worker, w->description + got, sizeof w->description - got);
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    w->description[sizeof w->description - 1] = '\0';
    static const char *const what[] = {"one 1 KiB copy recorded into a VkCommandBuffer",
                                       "record one copy, submit, wait for the fence",
                                       "record, submit, one kernel chunk, wait",
                                       "2^20 kernel invocations, each reading through the page table",
                                       "Reset, 2 000 DrawInstanced of 3 vertices, Close",
                                       "the same recording, executed and waited for",
                                       "Reset, 200 000 disjoint 16-byte copies into one buffer, rising, Close",
                                       "the same at falling offsets"};
    for (int i = 0; i < ROW_COUNT; i++)
        snprintf(w->what[i], sizeof w->what[i], "%s; validation %s%s; %.255s", what[i], w->mode,
                 w->dred ? ", DRED auto-breadcrumbs" : "", w->description);
    return true;
}

/* The 2 000-draw recording and frame rows, without DRED (the off worker) and with its auto-breadcrumbs (a worker of
 * its own: DRED is set before the device is made), each DRED row against its baseline. */
static size_t add_draw_rows(size_t used)
{
    vk_worker *off = &workers[0], *dred = &workers[WORKER_COUNT - 1];
    static const char *const names[2][2] = {
        {"2 000 draws recorded (Vulkan driver)", "2 000 draws recorded (Vulkan driver, DRED auto-breadcrumbs)"},
        {"frame of 2 000 draws: record + execute + wait (Vulkan driver)",
         "frame of 2 000 draws: record + execute + wait (Vulkan driver, DRED auto-breadcrumbs)"}};
    bool with_dred = start(dred);
    if (!with_dred)
        fprintf(stderr, "d12bench: skipping the Vulkan DRED rows: the worker did not open a device\n");
    for (int kind = 0; kind < 2; kind++) {
        uint32_t row = kind ? ROW_FRAME_DRAWS : ROW_RECORD_DRAWS;
        row_contexts[used] = (vk_row){off, row};
        int base = bench_add_timed_row("vulkan", names[kind][0], off->what[row], timed, &row_contexts[used++], -1);
        if (!with_dred)
            continue;
        row_contexts[used] = (vk_row){dred, row};
        bench_add_timed_row("vulkan", names[kind][1], dred->what[row], timed, &row_contexts[used++], base);
    }
    return used;
}

void bench_vulkan_setup(bool validation_modes)
{
    /* The validation-off worker always (its instance starts in well under a second); the three with a validation
     * layer only when asked (--vulkan-validation, or D12BENCH_VULKAN=1 as before): the layer's start takes seconds
     * per worker, which would more than double a --quick run. */
    const char *on = getenv("D12BENCH_VULKAN");
    if (on && strcmp(on, "1") == 0)
        validation_modes = true;
    static const char *const names[] = {"CopyBufferRegion recorded (Vulkan driver, validation off)",
                                        "CopyBufferRegion recorded (Vulkan driver, validation core)",
                                        "CopyBufferRegion recorded (Vulkan driver, validation sync)",
                                        "CopyBufferRegion recorded (Vulkan driver, validation gpuav)"};
    size_t used = 0;
    int baseline = -1;
    for (size_t i = 0; i < (validation_modes ? VALIDATION_WORKERS : 1); i++) {
        if (!start(&workers[i])) {
            fprintf(stderr, "d12bench: skipping the Vulkan rows of validation %s: the Vulkan driver (%s) did not "
                            "open a device (no Vulkan device, or the layer is not installed)\n",
                    workers[i].mode, D12BENCH_VULKAN_DRIVER);
            continue;
        }
        row_contexts[used] = (vk_row){&workers[i], ROW_RECORD_COPY};
        int index = bench_add_timed_row("vulkan", names[i], workers[i].what[0], timed, &row_contexts[used++], baseline);
        if (i == 0) {
            baseline = index;
            row_contexts[used] = (vk_row){&workers[i], ROW_EXECUTE_COPY};
            bench_add_timed_row("vulkan", "ExecuteCommandLists + fence, 1 copy (Vulkan driver)",
                                workers[i].what[1], timed, &row_contexts[used++], -1);
            row_contexts[used] = (vk_row){&workers[i], ROW_DRAW_SMALL};
            int small = bench_add_timed_row("vulkan", "DrawInstanced 3 vertices executed (Vulkan driver kernel)",
                                            workers[i].what[2], timed, &row_contexts[used++], -1);
            row_contexts[used] = (vk_row){&workers[i], ROW_DRAW_1M};
            bench_add_timed_row("vulkan", "DrawInstanced 1M vertices executed (Vulkan driver kernel)",
                                workers[i].what[3], timed, &row_contexts[used++], small);
            used = add_draw_rows(used);
            row_contexts[used] = (vk_row){&workers[i], ROW_COPIES_RISING};
            int rising = bench_add_timed_row("vulkan", "200 000 disjoint copies recorded, rising (Vulkan driver)",
                                             workers[i].what[ROW_COPIES_RISING], timed, &row_contexts[used++], -1);
            row_contexts[used] = (vk_row){&workers[i], ROW_COPIES_FALLING};
            bench_add_timed_row("vulkan", "200 000 disjoint copies recorded, falling (Vulkan driver)",
                                workers[i].what[ROW_COPIES_FALLING], timed, &row_contexts[used++], rising);
        }
    }
}

void bench_vulkan_teardown(void)
{
    for (size_t i = 0; i < WORKER_COUNT; i++) {
        if (workers[i].pid <= 0)
            continue;
        close(workers[i].to_worker);
        close(workers[i].from_worker);
        waitpid(workers[i].pid, NULL, 0);
        workers[i].pid = -1;
    }
}

#else

void bench_vulkan_setup(bool validation_modes)
{
    (void)validation_modes;
    fprintf(stderr, "d12bench: no Vulkan rows: the Vulkan driver was not built (D12RT_VULKAN=AUTO found no Vulkan "
                    "loader or glslang)\n");
}

void bench_vulkan_teardown(void)
{
}

#endif
