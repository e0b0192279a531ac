/* d12conform: the application side (devices, InfoQueues, a queue with work, the registry hive), over the
 * public API only. */
#include "conform.h"

bool debug_settings(bool debug_layer, int drm /* -1: leave */)
{
    ID3D12Debug7 *debug = NULL;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))) {
        fail("D3D12GetDebugInterface(ID3D12Debug7) failed");
        return false;
    }
    if (debug_layer)
        ID3D12Debug7_EnableDebugLayer(debug);
    if (drm >= 0)
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, drm ? TRUE : FALSE);
    ID3D12Debug7_Release(debug);
    return true;
}

ID3D12Device *new_device(void)
{
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    if (FAILED(hr)) {
        fail("D3D12CreateDevice failed (0x%08X)", (unsigned)hr);
        return NULL;
    }
    return device;
}

ID3D12InfoQueue1 *info_queue(ID3D12Device *device)
{
    ID3D12InfoQueue1 *queue = NULL;
    if (FAILED(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue)))
        return NULL;
    ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

D3D12_MESSAGE *stored(ID3D12InfoQueue1 *queue, UINT64 i)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length)))
        return NULL;
    D3D12_MESSAGE *message = malloc(length);
    if (message && FAILED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length))) {
        free(message);
        message = NULL;
    }
    return message;
}

ID3D12Resource *buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {0};
    heap.Type = type;
    D3D12_RESOURCE_DESC desc = {0};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                                                 : D3D12_RESOURCE_STATE_COPY_DEST;
    ID3D12Resource *resource = NULL;
    HRESULT hr = ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (FAILED(hr))
        fail("CreateCommittedResource failed (0x%08X)", (unsigned)hr);
    return resource;
}

bool gpu_open(gpu *g, ID3D12Device *device)
{
    memset(g, 0, sizeof *g);
    g->device = device;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (FAILED(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) ||
        FAILED(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                   (void **)&g->allocator)) ||
        FAILED(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocator, NULL,
                                              &IID_ID3D12GraphicsCommandList, (void **)&g->list)) ||
        FAILED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&g->fence))) {
        fail("creating a queue, allocator, list or fence failed");
        return false;
    }
    g->src = buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    g->dst = buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    ID3D12GraphicsCommandList_Close(g->list);
    return g->src && g->dst;
}

/* Record a copy, a draw and a dispatch (GPU work of each kind) into the list, and one draw a validating driver has
 * reason to report on: an indexed draw with no index buffer bound (the indices it reads are undefined). A driver that
 * reports anything correlated reports it inside the recording call or at a flush, so corr.issued_annotated has a
 * report to judge with every such driver, the reference driver included (issue 17 item 3), not only with one that
 * reports on every draw. */
void record_work(gpu *g)
{
    ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL);
    ID3D12GraphicsCommandList_CopyBufferRegion(g->list, g->dst, 0, g->src, 0, 256);
    ID3D12GraphicsCommandList_DrawInstanced(g->list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(g->list, 3, 1, 0, 0, 0);
    ID3D12GraphicsCommandList_Dispatch(g->list, 1, 1, 1);
    ID3D12GraphicsCommandList_Close(g->list);
}

void execute(gpu *g)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
}

/* Signal the queue and wait on the CPU until the GPU got there. */
bool signal_and_wait(gpu *g)
{
    g->fence_value++;
    ID3D12CommandQueue_Signal(g->queue, g->fence, g->fence_value);
    for (int i = 0; i < 5000; i++) {
        if (ID3D12Fence_GetCompletedValue(g->fence) >= g->fence_value)
            return true;
        sleep_ms(1);
    }
    fail("the fence did not reach %llu within 5 s", (unsigned long long)g->fence_value);
    return false;
}

/* The queue first: its destruction finishes the work submitted, which may still read the buffers (in D3D12 the
 * application keeps a submission's resources alive until the GPU is done with them). */
void gpu_close(gpu *g)
{
    if (g->queue)
        ID3D12CommandQueue_Release(g->queue);
    if (g->src)
        ID3D12Resource_Release(g->src);
    if (g->dst)
        ID3D12Resource_Release(g->dst);
    if (g->fence)
        ID3D12Fence_Release(g->fence);
    if (g->list)
        ID3D12GraphicsCommandList_Release(g->list);
    if (g->allocator)
        ID3D12CommandAllocator_Release(g->allocator);
}

/* A workload through every flush point: execute + signal + wait, execute again, Wait, queue destruction. */
void workload(ID3D12Device *device)
{
    gpu g;
    if (!gpu_open(&g, device)) {
        gpu_close(&g);
        return;
    }
    for (int i = 0; i < 3; i++) {
        record_work(&g);
        execute(&g);
        signal_and_wait(&g);
    }
    ID3D12CommandQueue_Wait(g.queue, g.fence, g.fence_value);
    execute(&g);
    gpu_close(&g);
}

/* One device's life with the settings given, the workload, then its release. */
void device_life_with(bool debug_layer, int drm)
{
    if (!debug_settings(debug_layer, drm))
        return;
    ID3D12Device *device = new_device();
    if (!device)
        return;
    workload(device);
    ID3D12Device_Release(device);
}

void write_registry(const char *values)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s.reg", g_trace_path);
    FILE *file = fopen(path, "w");
    if (!file) {
        fail("cannot write %s", path);
        return;
    }
    fprintf(file, "Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\"
            "Direct3D12\\%s]\n%s", getenv("D12RT_APP_NAME"), values);
    fclose(file);
}

/* A device with the feature on and a gpu on it; false (everything released) when either fails. */
bool enabled_gpu(gpu *g, ID3D12Device **device)
{
    if (!debug_settings(true, 1) || !(*device = new_device()))
        return false;
    if (!gpu_open(g, *device)) {
        gpu_close(g);
        ID3D12Device_Release(*device);
        return false;
    }
    return true;
}
