/* d12conform, the stress.* tests: stress: devices in sequence, threads recording and submitting while flushes run.
 * (one file per area; conform.h says how to add one). */
#include "conform.h"

#include <pthread.h>

static outcome t_stress_devices(void)
{
    debug_settings(true, 1);
    for (int i = 0; i < 16; i++) {
        ID3D12Device *device = new_device();
        if (!device)
            break;
        if (i % 4 == 0)
            workload(device);
        ID3D12Device_Release(device);
    }
    trace t = trace_read();
    size_t creates = count_records(&t, "pfnCreateDevice"), enables = count_records(&t, "pfnEnableExtendedFeature");
    size_t inits = 0;
    for (size_t i = 0; i < t.count; i++) {
        char in[96];
        inits += is(&t.r[i], "pfnReportMessageCb") &&
                 strcmp(inside(&t.r[i], in, sizeof in), "pfnEnableExtendedFeature") == 0;
    }
    EXPECT(creates == 16 && enables == 16, "%zu devices, %zu enables (16 each expected)", creates, enables);
    EXPECT(inits == 16, "%zu initialization reports for 16 devices", inits);
    trace_free(&t);
    return g_result;
}

typedef struct stress_arg {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    int id;
    bool ok;
} stress_arg;

static void *stress_thread(void *p)
{
    stress_arg *a = p;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    ID3D12Resource *src = buffer(a->device, D3D12_HEAP_TYPE_UPLOAD, 256), *dst = buffer(a->device, D3D12_HEAP_TYPE_READBACK, 256);
    a->ok = src && dst &&
            SUCCEEDED(ID3D12Device_CreateCommandAllocator(a->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                          &IID_ID3D12CommandAllocator, (void **)&allocator)) &&
            SUCCEEDED(ID3D12Device_CreateCommandList(a->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                     &IID_ID3D12GraphicsCommandList, (void **)&list)) &&
            SUCCEEDED(ID3D12Device_CreateFence(a->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence));
    for (UINT64 round = 1; a->ok && round <= 20; round++) {
        uint32_t *in = NULL, *out = NULL;
        D3D12_RANGE none = {0, 0};
        ID3D12Resource_Map(src, 0, &none, (void **)&in);
        if (in)
            in[0] = (uint32_t)(a->id * 1000 + round);
        ID3D12Resource_Unmap(src, 0, NULL);
        if (round > 1)
            ID3D12GraphicsCommandList_Reset(list, allocator, NULL);
        ID3D12GraphicsCommandList_CopyBufferRegion(list, dst, 0, src, 0, 4);
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(list);
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
        ID3D12CommandQueue_ExecuteCommandLists(a->queue, 1, lists);
        ID3D12CommandQueue_Signal(a->queue, fence, round);
        for (int w = 0; w < 5000 && ID3D12Fence_GetCompletedValue(fence) < round; w++)
            sleep_ms(1);
        ID3D12Resource_Map(dst, 0, NULL, (void **)&out);
        a->ok = out && out[0] == (uint32_t)(a->id * 1000 + round);
        ID3D12Resource_Unmap(dst, 0, &none);
    }
    if (fence)
        ID3D12Fence_Release(fence);
    if (list)
        ID3D12GraphicsCommandList_Release(list);
    if (allocator)
        ID3D12CommandAllocator_Release(allocator);
    if (src)
        ID3D12Resource_Release(src);
    if (dst)
        ID3D12Resource_Release(dst);
    return NULL;
}

static outcome t_stress_threads(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = new_device();
    if (!device)
        return FAIL;
    ID3D12CommandQueue *queues[4] = {0};
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    for (int i = 0; i < 4; i++)
        ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queues[i]);
    pthread_t threads[8];
    stress_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (stress_arg){device, queues[i % 4], i, false};
        pthread_create(&threads[i], NULL, stress_thread, &args[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(threads[i], NULL);
        EXPECT(args[i].ok, "thread %d: a copy did not arrive (or a setup call failed)", i);
    }
    for (int i = 0; i < 4; i++)
        if (queues[i])
            ID3D12CommandQueue_Release(queues[i]);
    ID3D12Device_Release(device);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > 0, "no flush was made");
    return g_result;
}

const conform_test conform_tests_stress[] = {
    {"stress.devices_in_sequence", "driver", "report exactly one message when the runtime enables the feature on a "
     "device (16 devices in sequence)", t_stress_devices},
    {"stress.threads", "runtime", "pfnReportMessageCb is thread-safe and reentrant (4 queues, 8 threads recording and "
     "submitting while flushes run)", t_stress_threads},
};
const size_t conform_tests_stress_count = sizeof conform_tests_stress / sizeof conform_tests_stress[0];
