/* d12bench's DRED overhead rows (issue 19 item 9; docs/dred.md "What DRED costs"): what a user pays for DRED on a
 * draw-heavy frame, CPU and GPU time, as they would measure it.
 *
 * One frame: Reset, 10 000 DrawInstanced(3, 1) with a vertex buffer bound, Close, ExecuteCommandLists, Signal, and a
 * wait for the fence. CPU time is Reset to ExecuteCommandLists returning (recording and submission); GPU time is
 * ExecuteCommandLists returning to the fence reached, i.e. the reference driver's modelled GPU time (docs/refdrv.md
 * "GPU time": a 3-vertex draw costs 103 ns, so a frame is about 1 ms, slept by its timeline) plus the wake-up.
 * Three worker processes (DRED settings are latched per device, one device per process), side by side:
 *
 *   frame of 10 000 draws, CPU (DRED off)           baseline
 *   frame of 10 000 draws, CPU (breadcrumbs)        auto-breadcrumbs on
 *   frame of 10 000 draws, CPU (DRED everything)    auto-breadcrumbs, breadcrumb contexts, page-fault tracking
 *   frame of 10 000 draws, GPU (DRED off)           baseline
 *   frame of 10 000 draws, GPU (breadcrumbs)        ... one write-immediate per op on the GPU
 *   frame of 10 000 draws, GPU (DRED everything)
 *
 * An operation is one frame (ns/op = ns per frame). */
#define _GNU_SOURCE
#define COBJMACROS
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>

#include "bench_dred.h"
#include "bench_gpu.h"

#define FRAME_DRAWS 10000u

typedef enum { DRED_OFF, DRED_BREADCRUMBS, DRED_EVERYTHING, DRED_MODES } dred_mode;
static const char *const k_mode_names[DRED_MODES] = {"DRED off", "breadcrumbs", "DRED everything"};

typedef struct dred_worker {
    pid_t pid;
    int to, from; /* request: uint64 frames; answer: two doubles (CPU ns, GPU ns) */
} dred_worker;

static dred_worker g_workers[DRED_MODES];
static struct {
    dred_mode mode;
    bool gpu;
} g_rows[2 * DRED_MODES];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- The worker ---- */

typedef struct frame_gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    ID3D12Resource *vb;
    UINT64 value;
} frame_gpu;

static void set_dred(dred_mode mode)
{
    ID3D12DeviceRemovedExtendedDataSettings1 *s;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings1, (void **)&s)))
        return;
    D3D12_DRED_ENABLEMENT on = D3D12_DRED_ENABLEMENT_FORCED_ON, off = D3D12_DRED_ENABLEMENT_FORCED_OFF;
    ID3D12DeviceRemovedExtendedDataSettings1_SetAutoBreadcrumbsEnablement(s, mode != DRED_OFF ? on : off);
    ID3D12DeviceRemovedExtendedDataSettings1_SetBreadcrumbContextEnablement(s, mode == DRED_EVERYTHING ? on : off);
    ID3D12DeviceRemovedExtendedDataSettings1_SetPageFaultEnablement(s, mode == DRED_EVERYTHING ? on : off);
    ID3D12DeviceRemovedExtendedDataSettings1_Release(s);
}

static bool frame_open(frame_gpu *g, dred_mode mode)
{
    setenv("D12RT_HKCU", "/nonexistent-d12bench/hkcu", 1);
    setenv("D12RT_HKLM", "/nonexistent-d12bench/hklm", 1);
    setenv("D12RT_TDR_DELAY_MS", "3600000", 1); /* a descheduled timeline is no hang here */
    unsetenv("D12RT_DRED_DUMP");
    /* The rows are about the reference driver's modelled GPU time (above), whatever --driver names: on the Vulkan
     * driver each draw is a kernel launch (0.2-0.4 ms), so one frame would take seconds and a --quick run hours. */
    unsetenv("D12RT_DRIVER");
    set_dred(mode);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0, 0};
    D3D12_RESOURCE_DESC buffer = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 4096, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                  D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    return SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g->device)) &&
           SUCCEEDED(ID3D12Device_CreateCommandQueue(g->device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) &&
           SUCCEEDED(ID3D12Device_CreateCommandAllocator(g->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                         &IID_ID3D12CommandAllocator, (void **)&g->allocator)) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->list)) &&
           SUCCEEDED(ID3D12GraphicsCommandList_Close(g->list)) &&
           SUCCEEDED(ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&g->fence)) &&
           SUCCEEDED(ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE, &buffer,
                                                          D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                          (void **)&g->vb));
}

/* One frame; adds its CPU and GPU nanoseconds. */
static bool frame(frame_gpu *g, double *cpu, double *gpu)
{
    double start = now_ns();
    ID3D12CommandAllocator_Reset(g->allocator);
    ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL);
    D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(g->vb), 4096, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(g->list, 0, 1, &view);
    for (unsigned i = 0; i < FRAME_DRAWS; i++)
        ID3D12GraphicsCommandList_DrawInstanced(g->list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_Close(g->list);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
    double submitted = now_ns();
    ID3D12CommandQueue_Signal(g->queue, g->fence, ++g->value);
    while (ID3D12Fence_GetCompletedValue(g->fence) < g->value) {
        if (ID3D12Device_GetDeviceRemovedReason(g->device) != S_OK)
            return false;
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
    double done = now_ns();
    *cpu += submitted - start;
    *gpu += done - submitted;
    return true;
}

static void worker_main(dred_mode mode, int in, int out)
{
    frame_gpu g = {0};
    bool ok = frame_open(&g, mode);
    uint64_t frames;
    while (read(in, &frames, sizeof frames) == (ssize_t)sizeof frames) {
        double answer[2] = {0, 0};
        for (uint64_t i = 0; ok && i < frames; i++)
            ok = frame(&g, &answer[0], &answer[1]);
        if (!ok)
            answer[0] = answer[1] = -1;
        if (write(out, answer, sizeof answer) != (ssize_t)sizeof answer)
            break;
    }
    _exit(0);
}

/* ---- The rows ---- */

static double time_frames(void *context, uint64_t iterations)
{
    int row = (int)(intptr_t)context;
    dred_worker *w = &g_workers[g_rows[row].mode];
    double answer[2] = {-1, -1};
    if (write(w->to, &iterations, sizeof iterations) != (ssize_t)sizeof iterations ||
        read(w->from, answer, sizeof answer) != (ssize_t)sizeof answer || answer[0] < 0) {
        bench_fail_setup("a DRED frame worker (bench_dred.c) stopped answering");
        return 0;
    }
    return g_rows[row].gpu ? answer[1] : answer[0];
}

void bench_dred_setup(void)
{
    for (int m = 0; m < DRED_MODES; m++) {
        int request[2], answer[2];
        if (pipe2(request, O_CLOEXEC) != 0 || pipe2(answer, O_CLOEXEC) != 0) { /* not into exec'd peers */
            bench_fail_setup("the DRED frame workers' pipes");
            return;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(request[1]);
            close(answer[0]);
            for (int k = 0; k < m; k++) { /* the earlier workers' pipes are not this worker's */
                close(g_workers[k].to);
                close(g_workers[k].from);
            }
            worker_main((dred_mode)m, request[0], answer[1]);
        }
        close(request[0]);
        close(answer[1]);
        g_workers[m] = (dred_worker){pid, request[1], answer[0]};
        if (pid < 0) {
            bench_fail_setup("the DRED frame workers (fork)");
            return;
        }
    }
    static char names[2 * DRED_MODES][64];
    int baseline[2] = {-1, -1};
    for (int k = 0; k < 2 * DRED_MODES; k++) {
        bool gpu = k >= DRED_MODES;
        dred_mode mode = (dred_mode)(k % DRED_MODES);
        g_rows[k].mode = mode;
        g_rows[k].gpu = gpu;
        snprintf(names[k], sizeof names[k], "frame of 10 000 draws, %s (%s)", gpu ? "GPU" : "CPU", k_mode_names[mode]);
        int index = bench_add_timed_row("dred", names[k],
                                        mode == DRED_OFF ? "baseline: Reset, 10 000 draws, Close, Execute (per frame)"
                                        : mode == DRED_BREADCRUMBS
                                            ? "auto-breadcrumbs: a history slot and a write-immediate per op"
                                            : "breadcrumbs, contexts (arguments), page-fault tracking",
                                        time_frames, (void *)(intptr_t)k, baseline[gpu]);
        if (mode == DRED_OFF)
            baseline[gpu] = index;
    }
}

/* Close every pipe first, then wait: a later worker holds copies of the earlier workers' pipes (and of the other
 * rows' workers', forked before), so it must see its own end of file before an earlier one can see its own. */
void bench_dred_teardown(void)
{
    for (int m = 0; m < DRED_MODES; m++) {
        if (g_workers[m].pid <= 0)
            continue;
        close(g_workers[m].to);
        close(g_workers[m].from);
    }
    for (int m = 0; m < DRED_MODES; m++) {
        if (g_workers[m].pid > 0)
            waitpid(g_workers[m].pid, NULL, 0);
        g_workers[m].pid = 0;
    }
}
