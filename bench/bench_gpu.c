/* d12bench's GPU-work rows: the cost driver-reported messages add to recording a draw and to ExecuteCommandLists.
 *
 * The two sides of each comparison need two devices whose settings differ (the feature on, the feature off), and
 * a process has one device per adapter. So each side runs in a worker process forked before the benchmark makes
 * a device or a thread: both workers enable the debug layer, one opts in to driver-reported messages. The parent
 * still interleaves the rows: each repetition asks each worker, in turn, to time N operations, and the worker
 * returns the nanoseconds they took (measured around the operations only; the bookkeeping that keeps a long loop
 * bounded — closing and resetting the list, letting the GPU catch up and flush — happens outside the timed part,
 * the same on both sides).
 *
 * Rows (group "gpu"):
 *   DrawInstanced (feature off)                      baseline: the debug layer on, no correlation
 *   DrawInstanced (feature on: correlation)          + a state index and pfnSetCommandListStateIndex per draw
 *   ExecuteCommandLists (feature off)                baseline: one closed list holding a draw, nothing to flush
 *   ExecuteCommandLists (feature on, nothing to flush)  + the completed-work poll and per-submission retention
 *   ExecuteCommandLists (feature off, 2 lists alternating)  baseline: two such lists, one per submission in turn
 *   ExecuteCommandLists (feature on, 2 lists alternating)   + a retention record per submission (no merge; 32
 *                                                    submissions per catch-up, fewer than make a compaction)
 * The ExecuteCommandLists rows hold the GPU in a Wait on an unsignalled fence while they are timed (released, with
 * a Signal waited for and the flush that follows, outside the timed part), so nothing completes and nothing is
 * flushed in the timed submissions on either side.
 *   DrawInstanced (DRED auto-breadcrumbs)            + a history slot and pfnWriteBufferImmediate per draw (issue 9:
 *                                                    at most the write-immediate call + 2 ns; DRED off is the baseline)
 *   committed buffer create + release (DRED off)     baseline: a 256-byte DEFAULT buffer
 *   committed buffer create + release (page-fault tracking)  + the allocation ledger (issue 9: ratio <= 1.20)
 * The DRED workers differ from the baseline worker only by their DRED settings (FORCED_ON).
 */
#define _GNU_SOURCE
#define COBJMACROS
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "bench_gpu.h"

/* The timed loops stay functions of their own: bench/callgrind_rows.py counts instructions inside them. */
#define BENCH_NOINLINE __attribute__((noinline))

/* Draws recorded between two (untimed) list resets, so the driver's recording stays small. */
#define DRAWS_PER_RECORDING 4096u
/* Submissions between two (untimed) GPU catch-ups, so retained submissions stay few. Lists in turn: fewer than the
 * retained records that make the runtime compact them (queue.c COMPACT_MIN), so that row shows one new record per
 * submission and no compaction. */
#define SUBMISSIONS_PER_CATCH_UP 1024u
#define ALTERNATING_PER_CATCH_UP 32u

/* COMMAND_RECORD + k: whole recordings of 10^k draws (d12bench --scaling), k = SCALING_FIRST .. SCALING_LAST. */
typedef enum {
    COMMAND_DRAW,
    COMMAND_EXECUTE,
    COMMAND_CREATE_RELEASE,
    COMMAND_QUIT,
    COMMAND_EXECUTE_ALTERNATING,
    COMMAND_RECORD = 16
} worker_command;
#define SCALING_FIRST 3
#define SCALING_LAST 7

/* What a worker's device has on, beyond the debug layer. */
typedef enum { WORKER_BASELINE, WORKER_DRM, WORKER_DRED_BREADCRUMBS, WORKER_DRED_PAGE_FAULT } worker_mode;

typedef struct worker {
    worker_mode mode;
    pid_t pid;
    int to_worker, from_worker; /* pipes */
} worker;

#define WORKERS 4
static worker workers[WORKERS] = {{WORKER_BASELINE, -1, -1, -1}, {WORKER_DRM, -1, -1, -1},
                                  {WORKER_DRED_BREADCRUMBS, -1, -1, -1}, {WORKER_DRED_PAGE_FAULT, -1, -1, -1}};
static const char *const worker_names[WORKERS] = {
    "GPU worker with driver-reported messages off", "GPU worker with driver-reported messages on",
    "GPU worker with DRED auto-breadcrumbs", "GPU worker with DRED page-fault tracking"};

typedef struct row_context {
    worker *worker;
    worker_command command;
} row_context;

static row_context rows[9 + 2 * (SCALING_LAST - SCALING_FIRST + 1)];

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- The worker process ---- */

typedef struct gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator, *submit_allocator;
    ID3D12GraphicsCommandList *recording, *submitted[2];
    ID3D12Fence *fence, *hold; /* hold: the GPU Waits on it while ExecuteCommandLists rows are timed */
    UINT64 fence_value, hold_value;
    unsigned draws, submissions;
    bool held;
} gpu;

static bool gpu_open(gpu *g, worker_mode mode)
{
    /* The registry overlay must not change what is measured: an empty HKCU and HKLM. */
    setenv("D12RT_HKCU", "/nonexistent-d12bench/hkcu", 1); /* absent: empty, no warning */
    setenv("D12RT_HKLM", "/nonexistent-d12bench/hklm", 1);
    /* The ExecuteCommandLists rows hold the GPU, then let it run 1024 submissions at once; on a loaded machine its
     * timeline thread can be descheduled past the 2 s default mid-command, and a TDR would end the rows' work
     * silently (a removed device takes no submissions). The watchdog is not what these rows measure. */
    setenv("D12RT_TDR_DELAY_MS", "3600000", 1);
    ID3D12Debug7 *debug;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug)))
        return false;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, mode == WORKER_DRM);
    ID3D12Debug7_Release(debug);
    ID3D12DeviceRemovedExtendedDataSettings *dred;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&dred)))
        return false;
    ID3D12DeviceRemovedExtendedDataSettings_SetAutoBreadcrumbsEnablement(
        dred, mode == WORKER_DRED_BREADCRUMBS ? D3D12_DRED_ENABLEMENT_FORCED_ON : D3D12_DRED_ENABLEMENT_FORCED_OFF);
    ID3D12DeviceRemovedExtendedDataSettings_SetPageFaultEnablement(
        dred, mode == WORKER_DRED_PAGE_FAULT ? D3D12_DRED_ENABLEMENT_FORCED_ON : D3D12_DRED_ENABLEMENT_FORCED_OFF);
    ID3D12DeviceRemovedExtendedDataSettings_Release(dred);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    D3D12_COMMAND_LIST_TYPE direct = D3D12_COMMAND_LIST_TYPE_DIRECT;
    return SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g->device)) &&
           SUCCEEDED(ID3D12Device_CreateCommandQueue(g->device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) &&
           SUCCEEDED(ID3D12Device_CreateCommandAllocator(g->device, direct, &IID_ID3D12CommandAllocator,
                                                         (void **)&g->allocator)) &&
           SUCCEEDED(ID3D12Device_CreateCommandAllocator(g->device, direct, &IID_ID3D12CommandAllocator,
                                                         (void **)&g->submit_allocator)) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, direct, g->allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->recording)) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, direct, g->submit_allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->submitted[0])) &&
           SUCCEEDED(ID3D12GraphicsCommandList_Close(g->submitted[0])) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, direct, g->submit_allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->submitted[1])) &&
           SUCCEEDED(ID3D12GraphicsCommandList_Close(g->submitted[1])) &&
           SUCCEEDED(ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&g->fence)) &&
           SUCCEEDED(ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&g->hold));
}

/* Start a fresh recording (untimed): the driver's recording of the old one is freed. */
static void restart_recording(gpu *g)
{
    ID3D12GraphicsCommandList_Close(g->recording);
    ID3D12CommandAllocator_Reset(g->allocator);
    ID3D12GraphicsCommandList_Reset(g->recording, g->allocator, NULL);
    g->draws = 0;
}

BENCH_NOINLINE static double time_draws(gpu *g, uint64_t iterations)
{
    double total = 0;
    while (iterations > 0) {
        if (g->draws == DRAWS_PER_RECORDING)
            restart_recording(g);
        unsigned batch = DRAWS_PER_RECORDING - g->draws;
        if (batch > iterations)
            batch = (unsigned)iterations;
        double start = now_ns();
        for (unsigned i = 0; i < batch; i++)
            ID3D12GraphicsCommandList_DrawInstanced(g->recording, 3, 1, 0, 0);
        total += now_ns() - start;
        g->draws += batch;
        iterations -= batch;
    }
    return total;
}

/* Whole recordings of `draws` draws (Reset, the draws, Close: all timed), as many as make `iterations` draws (at
 * least one); the time is scaled to `iterations` draws, so the row's ns/op is the cost per draw at that size. */
BENCH_NOINLINE static double time_recordings(gpu *g, uint64_t iterations, uint64_t draws)
{
    uint64_t recordings = iterations / draws ? iterations / draws : 1;
    ID3D12GraphicsCommandList_Close(g->recording);
    double start = now_ns();
    for (uint64_t r = 0; r < recordings; r++) {
        ID3D12CommandAllocator_Reset(g->allocator);
        ID3D12GraphicsCommandList_Reset(g->recording, g->allocator, NULL);
        for (uint64_t d = 0; d < draws; d++)
            ID3D12GraphicsCommandList_DrawInstanced(g->recording, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(g->recording);
    }
    double ns = now_ns() - start;
    ID3D12CommandAllocator_Reset(g->allocator); /* leave a fresh recording open for COMMAND_DRAW */
    ID3D12GraphicsCommandList_Reset(g->recording, g->allocator, NULL);
    g->draws = 0;
    return ns * (double)iterations / (double)(recordings * draws);
}

/* Untimed, between batches of submissions: release the GPU, let it finish everything (a Signal waited for), record
 * the submitted lists afresh (one draw each, so the feature-on side has a recording that resolves an index: the
 * draw rows' blocks evict the old one's), then Wait on the next hold value, which flushes what the Signal completed
 * and holds the GPU again. The timed submissions then have nothing to flush, and nothing completes under them. */
static void catch_up(gpu *g)
{
    if (g->held)
        ID3D12Fence_Signal(g->hold, g->hold_value);
    ID3D12CommandQueue_Signal(g->queue, g->fence, ++g->fence_value);
    ID3D12Fence_SetEventOnCompletion(g->fence, g->fence_value, NULL);
    ID3D12CommandAllocator_Reset(g->submit_allocator);
    for (int i = 0; i < 2; i++) {
        ID3D12GraphicsCommandList_Reset(g->submitted[i], g->submit_allocator, NULL);
        ID3D12GraphicsCommandList_DrawInstanced(g->submitted[i], 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(g->submitted[i]);
    }
    ID3D12CommandQueue_Wait(g->queue, g->hold, ++g->hold_value);
    g->held = true;
    g->submissions = 0;
}

/* The timed submissions alone (bench/callgrind_rows.py counts the instructions inside this function): one list,
 * or two in turn. */
BENCH_NOINLINE static void time_executes(gpu *g, unsigned batch, bool alternate)
{
    ID3D12CommandList *lists[2] = {(ID3D12CommandList *)g->submitted[0], (ID3D12CommandList *)g->submitted[1]};
    for (unsigned i = 0; i < batch; i++)
        ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, &lists[alternate & i]);
}

static double run_executes(gpu *g, uint64_t iterations, bool alternate)
{
    double total = 0;
    unsigned per_catch_up = alternate ? ALTERNATING_PER_CATCH_UP : SUBMISSIONS_PER_CATCH_UP;
    while (iterations > 0) {
        if (!g->held || g->submissions >= per_catch_up)
            catch_up(g);
        unsigned batch = per_catch_up - g->submissions;
        if (batch > iterations)
            batch = (unsigned)iterations;
        double start = now_ns();
        time_executes(g, batch, alternate);
        total += now_ns() - start;
        g->submissions += batch;
        iterations -= batch;
    }
    HRESULT removed = ID3D12Device_GetDeviceRemovedReason(g->device);
    if (FAILED(removed)) { /* a removed device takes no work: the figure would be the early return's */
        fprintf(stderr, "d12bench: a GPU worker's device was removed (0x%08x)\n", (unsigned)removed);
        return -1.0;
    }
    return total;
}

/* CreateCommittedResource + Release of a small DEFAULT buffer: what page-fault tracking adds to (its ledger). In
 * state COMMON: any other initial state of a DEFAULT buffer is ignored with warning #1328 (docs/gpu-work.md), and
 * the row would time the debug layer's message on both sides. */
static double time_create_release(gpu *g, uint64_t iterations)
{
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12Resource *resource = NULL;
        if (SUCCEEDED(ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                           D3D12_RESOURCE_STATE_COMMON, NULL, &IID_ID3D12Resource,
                                                           (void **)&resource)))
            ID3D12Resource_Release(resource);
    }
    return now_ns() - start;
}

static void gpu_close(gpu *g)
{
    if (g->queue && g->fence && g->hold) {
        catch_up(g);
        ID3D12Fence_Signal(g->hold, g->hold_value); /* the GPU goes on */
    }
    if (g->fence)
        ID3D12Fence_Release(g->fence);
    if (g->hold)
        ID3D12Fence_Release(g->hold);
    for (int i = 0; i < 2; i++)
        if (g->submitted[i])
            ID3D12GraphicsCommandList_Release(g->submitted[i]);
    if (g->recording)
        ID3D12GraphicsCommandList_Release(g->recording);
    if (g->submit_allocator)
        ID3D12CommandAllocator_Release(g->submit_allocator);
    if (g->allocator)
        ID3D12CommandAllocator_Release(g->allocator);
    if (g->queue)
        ID3D12CommandQueue_Release(g->queue);
    if (g->device)
        ID3D12Device_Release(g->device);
}

/* The worker's loop: a command and an iteration count in, nanoseconds out; a first reply says whether setup
 * worked (1.0) or not (-1.0). */
static void worker_main(worker_mode mode, int in, int out)
{
    gpu g = {0};
    double ready = gpu_open(&g, mode) ? 1.0 : -1.0;
    if (write(out, &ready, sizeof ready) != sizeof ready || ready < 0)
        _exit(1);
    struct {
        int command;
        uint64_t iterations;
    } request;
    while (read(in, &request, sizeof request) == sizeof request && request.command != COMMAND_QUIT) {
        double ns;
        if (request.command >= COMMAND_RECORD) {
            uint64_t draws = 1;
            for (int k = COMMAND_RECORD; k < request.command; k++)
                draws *= 10;
            ns = time_recordings(&g, request.iterations, draws);
        } else {
            ns = request.command == COMMAND_DRAW      ? time_draws(&g, request.iterations)
                 : request.command == COMMAND_EXECUTE ? run_executes(&g, request.iterations, false)
                 : request.command == COMMAND_EXECUTE_ALTERNATING ? run_executes(&g, request.iterations, true)
                                                                  : time_create_release(&g, request.iterations);
        }
        if (write(out, &ns, sizeof ns) != sizeof ns)
            break;
    }
    gpu_close(&g);
    _exit(0);
}

/* ---- The parent side ---- */

static bool start_worker(worker *w)
{
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0)
        return false;
    fflush(NULL);
    w->pid = fork();
    if (w->pid < 0)
        return false;
    if (w->pid == 0) {
        close(to[1]);
        close(from[0]);
        worker_main(w->mode, to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    w->to_worker = to[1];
    w->from_worker = from[0];
    double ready = -1.0;
    return read(w->from_worker, &ready, sizeof ready) == sizeof ready && ready > 0;
}

static double run_in_worker(void *context, uint64_t iterations)
{
    row_context *row = context;
    struct {
        int command;
        uint64_t iterations;
    } request = {row->command, iterations};
    double ns = -1.0;
    if (write(row->worker->to_worker, &request, sizeof request) != sizeof request ||
        read(row->worker->from_worker, &ns, sizeof ns) != sizeof ns || ns < 0) {
        fprintf(stderr, "d12bench: a GPU worker process stopped answering\n");
        exit(2);
    }
    return ns;
}

static bool scaling_rows;

void bench_gpu_scaling(bool on)
{
    scaling_rows = on;
}

void bench_gpu_setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < WORKERS; i++) {
        if (!start_worker(&workers[i])) {
            bench_fail_setup(worker_names[i]);
            return;
        }
    }
    rows[0] = (row_context){&workers[0], COMMAND_DRAW};
    rows[1] = (row_context){&workers[1], COMMAND_DRAW};
    rows[2] = (row_context){&workers[0], COMMAND_EXECUTE};
    rows[3] = (row_context){&workers[1], COMMAND_EXECUTE};
    int draw = bench_add_timed_row("gpu", "DrawInstanced (feature off)", "baseline: debug layer on, no correlation",
                                   run_in_worker, &rows[0], -1);
    bench_add_timed_row("gpu", "DrawInstanced (feature on: correlation)",
                        "+ state index, pfnSetCommandListStateIndex (target: ratio <= 1.10)", run_in_worker, &rows[1],
                        draw);
    int execute = bench_add_timed_row("gpu", "ExecuteCommandLists (feature off)", "baseline: one closed list",
                                      run_in_worker, &rows[2], -1);
    bench_add_timed_row("gpu", "ExecuteCommandLists (feature on, nothing to flush)",
                        "+ completed-work poll, retention (issue 11: <= 30 ns more)", run_in_worker, &rows[3], execute);
    rows[7] = (row_context){&workers[0], COMMAND_EXECUTE_ALTERNATING};
    rows[8] = (row_context){&workers[1], COMMAND_EXECUTE_ALTERNATING};
    int alternating = bench_add_timed_row("gpu", "ExecuteCommandLists (feature off, 2 lists alternating)",
                                          "baseline: two closed lists, one per submission in turn", run_in_worker,
                                          &rows[7], -1);
    bench_add_timed_row("gpu", "ExecuteCommandLists (feature on, 2 lists alternating)",
                        "+ a retention record per submission (from the queue's spare list)", run_in_worker, &rows[8],
                        alternating);
    rows[4] = (row_context){&workers[2], COMMAND_DRAW};
    rows[5] = (row_context){&workers[0], COMMAND_CREATE_RELEASE};
    rows[6] = (row_context){&workers[3], COMMAND_CREATE_RELEASE};
    bench_add_timed_row("gpu", "DrawInstanced (DRED auto-breadcrumbs)",
                        "+ history slot, pfnWriteBufferImmediate (target: <= that call + 2 ns)", run_in_worker, &rows[4],
                        draw);
    int create = bench_add_timed_row("gpu", "committed buffer create + release (DRED off)",
                                     "baseline: a 256-byte DEFAULT buffer", run_in_worker, &rows[5], -1);
    bench_add_timed_row("gpu", "committed buffer create + release (page-fault tracking)",
                        "+ allocation ledger (target: ratio <= 1.20)", run_in_worker, &rows[6], create);
    if (!scaling_rows)
        return;
    static char names[2 * (SCALING_LAST - SCALING_FIRST + 1)][80];
    int next = 9, n = 0;
    for (int k = SCALING_FIRST; k <= SCALING_LAST; k++) {
        int off = -1;
        for (int side = 0; side < 2; side++, n++) {
            rows[next] = (row_context){&workers[side], (worker_command)(COMMAND_RECORD + k)};
            snprintf(names[n], sizeof names[n], "draw in a recording of 10^%d draws (feature %s)", k,
                     side ? "on: correlation" : "off");
            int index = bench_add_timed_row("scaling", names[n],
                                            "Reset + 10^k DrawInstanced + Close, per draw (d12bench --scaling)",
                                            run_in_worker, &rows[next++], off);
            if (side == 0)
                off = index;
        }
    }
}

void bench_gpu_teardown(void)
{
    for (int i = 0; i < WORKERS; i++) {
        worker *w = &workers[i];
        if (w->pid <= 0)
            continue;
        struct {
            int command;
            uint64_t iterations;
        } quit = {COMMAND_QUIT, 0};
        if (write(w->to_worker, &quit, sizeof quit) != sizeof quit)
            kill(w->pid, SIGTERM);
        close(w->to_worker);
        close(w->from_worker);
        waitpid(w->pid, NULL, 0);
    }
}
