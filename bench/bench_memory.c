/* d12bench's memory rows (issue 11 item 4; docs/performance.md "Memory"): what correlation keeps per live state
 * index, and what retention costs an application that submits and never signals (bounded: queue.c "Retention").
 *
 * Each figure comes from a child process forked before d12bench makes a device or a thread (one device per adapter
 * per process, and a fresh heap per measurement); the child writes its numbers to a pipe and exits. Rows:
 *
 *   bytes per live state index (max live N)   heap bytes (mallinfo2: in use + mmapped) a device with the feature on
 *                                             adds over one with it off, after recording N draws in one closed list
 *                                             (every index live), divided by N
 *   heap in use after 10^k unsignalled submissions (feature on | off)
 *                                             a process (one per k) that, 10^k times, resets its list, records one
 *                                             draw, closes it and submits it, never signalling (so the runtime never
 *                                             sees anything complete); then the GPU is drained (a Signal waited for
 *                                             on the CPU, with no flush after it) and the heap in use read: the
 *                                             runtime's retention, flat once the bound is reached
 *   peak RSS during 10^k unsignalled submissions (feature on | off)
 *                                             VmHWM of the same process before the drain: it also counts the
 *                                             reference driver's backlog (work submitted, not yet executed). The
 *                                             loop sleeps 100 us every 32 submissions so that the reference driver's
 *                                             timeline keeps up (its backlog of unexecuted work, the same on both
 *                                             sides, is not retention)
 *
 * --quick stops the submissions at 10^4 and measures one limit, so the smoke test stays fast. */
#define _GNU_SOURCE
#define COBJMACROS
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "bench_memory.h"

#define SUBMIT_FIRST 3
#define SUBMIT_LAST 6
#define SUBMIT_LAST_QUICK 4

static bench_memory_row memory_rows[32];
static int memory_row_count;

static double heap_bytes(void)
{
    struct mallinfo2 info = mallinfo2();
    return (double)info.uordblks + (double)info.hblkhd;
}

/* VmHWM of /proc/self/status, in bytes (0 when unreadable). */
static double peak_rss_bytes(void)
{
    FILE *file = fopen("/proc/self/status", "r");
    if (!file)
        return 0;
    char line[256];
    double kib = 0;
    while (fgets(line, sizeof line, file))
        if (sscanf(line, "VmHWM: %lf kB", &kib) == 1)
            break;
    fclose(file);
    return kib * 1024.0;
}

typedef struct child_gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
} child_gpu;

static bool child_open(child_gpu *g, bool feature)
{
    setenv("D12RT_HKCU", "/nonexistent-d12bench/hkcu", 1);
    setenv("D12RT_HKLM", "/nonexistent-d12bench/hklm", 1);
    setenv("D12RT_TDR_DELAY_MS", "3600000", 1); /* a loaded machine's stall is not what these rows measure */
    ID3D12Debug7 *debug;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug)))
        return false;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, feature);
    ID3D12Debug7_Release(debug);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    D3D12_COMMAND_LIST_TYPE direct = D3D12_COMMAND_LIST_TYPE_DIRECT;
    return SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g->device)) &&
           SUCCEEDED(ID3D12Device_CreateCommandQueue(g->device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) &&
           SUCCEEDED(ID3D12Device_CreateCommandAllocator(g->device, direct, &IID_ID3D12CommandAllocator,
                                                         (void **)&g->allocator)) &&
           SUCCEEDED(ID3D12Device_CreateCommandList(g->device, 0, direct, g->allocator, NULL,
                                                    &IID_ID3D12GraphicsCommandList, (void **)&g->list));
}

/* Heap growth of a device and a recording of `draws` draws (every index live when draws <= the limit). */
static double child_index_bytes(bool feature, unsigned draws)
{
    double before = heap_bytes();
    child_gpu g = {0};
    if (!child_open(&g, feature))
        return -1;
    for (unsigned i = 0; i < draws; i++)
        ID3D12GraphicsCommandList_DrawInstanced(g.list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_Close(g.list);
    return heap_bytes() - before;
}

/* 10^k unsignalled submissions: out[0] the peak RSS meanwhile; out[1] the heap in use once the GPU drained. The
 * drain is a Signal waited for on the CPU after the last submission: the runtime flushes (and so retires) only
 * inside a later ExecuteCommandLists or Wait, which never comes, so out[1] is the runtime's retention plus its fixed
 * state, without the reference driver's backlog of unexecuted work. */
static bool child_unsignalled(bool feature, int k, double *out)
{
    child_gpu g = {0};
    ID3D12Fence *fence = NULL;
    if (!child_open(&g, feature) ||
        FAILED(ID3D12Device_CreateFence(g.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence)))
        return false;
    ID3D12GraphicsCommandList_Close(g.list);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g.list};
    unsigned long long submissions = 1;
    for (int i = 0; i < k; i++)
        submissions *= 10;
    for (unsigned long long done = 0; done < submissions; done++) {
        ID3D12CommandAllocator_Reset(g.allocator);
        ID3D12GraphicsCommandList_Reset(g.list, g.allocator, NULL);
        ID3D12GraphicsCommandList_DrawInstanced(g.list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(g.list);
        ID3D12CommandQueue_ExecuteCommandLists(g.queue, 1, lists);
        if (done % 32 == 31)
            usleep(100); /* let the GPU timeline thread keep up: its backlog is not what this row measures */
    }
    out[0] = peak_rss_bytes();
    ID3D12CommandQueue_Signal(g.queue, fence, 1);
    ID3D12Fence_SetEventOnCompletion(fence, 1, NULL);
    out[1] = heap_bytes();
    return true;
}

/* Run `measure` in a child with `max_live` set (0: the default); its `count` doubles come back through a pipe. */
static bool in_child(unsigned max_live, int kind, bool feature, int last, double *out, int count)
{
    int channel[2];
    if (pipe(channel) != 0)
        return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        close(channel[0]);
        char text[16];
        snprintf(text, sizeof text, "%u", max_live);
        if (max_live)
            setenv("D12RT_MAX_LIVE_STATE_INDICES", text, 1);
        else
            unsetenv("D12RT_MAX_LIVE_STATE_INDICES");
        double values[2] = {0};
        bool ok = kind == 0 ? (values[0] = child_index_bytes(feature, max_live)) >= 0
                            : child_unsignalled(feature, last, values);
        if (!ok || write(channel[1], values, (size_t)count * sizeof(double)) != (ssize_t)(count * sizeof(double)))
            _exit(1);
        _exit(0);
    }
    close(channel[1]);
    ssize_t got = read(channel[0], out, (size_t)count * sizeof(double));
    close(channel[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == (ssize_t)(count * sizeof(double)) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void add(const char *name, double value, const char *unit)
{
    if (memory_row_count == (int)(sizeof memory_rows / sizeof memory_rows[0]))
        return;
    bench_memory_row *row = &memory_rows[memory_row_count++];
    snprintf(row->name, sizeof row->name, "%s", name);
    row->value = value;
    row->unit = unit;
}

bool bench_memory_measure(bool quick)
{
    static const unsigned limits[] = {65536, 1u << 20};
    for (unsigned i = 0; i < (quick ? 1u : 2u); i++) {
        double on = 0, off = 0;
        if (!in_child(limits[i], 0, true, 0, &on, 1) || !in_child(limits[i], 0, false, 0, &off, 1))
            return false;
        char name[96];
        snprintf(name, sizeof name, "bytes per live state index (max live %u)", limits[i]);
        add(name, (on - off) / limits[i], "bytes");
    }
    int last = quick ? SUBMIT_LAST_QUICK : SUBMIT_LAST;
    double peaks[2][SUBMIT_LAST + 1], heaps[2][SUBMIT_LAST + 1];
    for (int k = SUBMIT_FIRST; k <= last; k++) {
        for (int side = 1; side >= 0; side--) {
            double values[2];
            if (!in_child(0, 1, side, k, values, 2))
                return false;
            peaks[side][k] = values[0];
            heaps[side][k] = values[1];
        }
    }
    char name[96];
    for (int side = 1; side >= 0; side--) {
        for (int k = SUBMIT_FIRST; k <= last; k++) {
            snprintf(name, sizeof name, "heap in use after 10^%d unsignalled submissions (feature %s)", k,
                     side ? "on" : "off");
            add(name, heaps[side][k] / (1024.0 * 1024.0), "MiB");
        }
    }
    for (int side = 1; side >= 0; side--) {
        for (int k = SUBMIT_FIRST; k <= last; k++) {
            snprintf(name, sizeof name, "peak RSS during 10^%d unsignalled submissions (feature %s)", k,
                     side ? "on" : "off");
            add(name, peaks[side][k] / (1024.0 * 1024.0), "MiB");
        }
    }
    return true;
}

int bench_memory_rows(const bench_memory_row **rows)
{
    *rows = memory_rows;
    return memory_row_count;
}
