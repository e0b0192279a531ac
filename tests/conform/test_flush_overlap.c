/* ctest conform.flush_overlap (issue 10 item 4): two application threads can be inside pfnFlushDriverReportedMessages
 * at once (d3d12ddi.h says what that means for a driver). Two threads, each with its own queue, submit, signal, wait
 * for completion and submit again, 10 times; the driver (examples/driver_skeleton built with -DFLUSH_PROBE=1, whose
 * flushes last 50 ms) counts the flushes in progress at once. Public API plus the probe's one export. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

static ID3D12Device *g_device;
static pthread_barrier_t g_start;

static void *submitter(void *arg)
{
    bool *ok = arg;
    ID3D12CommandQueue *queue = NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    *ok = SUCCEEDED(ID3D12Device_CreateCommandQueue(g_device, &desc, &IID_ID3D12CommandQueue, (void **)&queue)) &&
          SUCCEEDED(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                        &IID_ID3D12CommandAllocator, (void **)&allocator)) &&
          SUCCEEDED(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                   &IID_ID3D12GraphicsCommandList, (void **)&list)) &&
          SUCCEEDED(ID3D12Device_CreateFence(g_device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence));
    if (*ok) {
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(list);
    }
    pthread_barrier_wait(&g_start);
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    for (UINT64 round = 1; *ok && round <= 10; round++) {
        ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists); /* flushes what the last round completed */
        ID3D12CommandQueue_Signal(queue, fence, round);
        for (int i = 0; i < 5000 && ID3D12Fence_GetCompletedValue(fence) < round; i++) {
            struct timespec t = {0, 1000000};
            nanosleep(&t, NULL);
        }
        *ok = ID3D12Fence_GetCompletedValue(fence) >= round;
    }
    if (fence)
        ID3D12Fence_Release(fence);
    if (list)
        ID3D12GraphicsCommandList_Release(list);
    if (allocator)
        ID3D12CommandAllocator_Release(allocator);
    if (queue)
        ID3D12CommandQueue_Release(queue);
    return NULL;
}

int main(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return d12test_finish();
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g_device), S_OK);
    void *driver = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    int (*max_flushes)(void) = driver ? (int (*)(void))dlsym(driver, "conform_probe_max_flushes") : NULL;
    if (!CHECK(g_device && max_flushes))
        return d12test_finish();
    pthread_barrier_init(&g_start, NULL, 2);
    pthread_t threads[2];
    bool ok[2] = {false, false};
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, submitter, &ok[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
        CHECK(ok[i]);
    }
    CHECK(max_flushes() >= 2); /* two application threads were inside the flush at once */
    ID3D12Device_Release(g_device);
    return d12test_finish();
}
