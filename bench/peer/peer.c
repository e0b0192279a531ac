/* The peer program: one D3D12 program, built twice from this source against DirectX-Headers: once linked with
 * d12rt (target d12peer_d12rt, the built-in reference driver) and once with Debian's libvkd3d-utils over Mesa's
 * lavapipe (target d12peer_vkd3d, compiled with PEER_VKD3D and a copy of the WSL stub headers whose calling
 * conventions are the Microsoft x64 one vkd3d uses; bench/peer/CMakeLists.txt). No debug layer on either side.
 *
 *   d12peer --worker          the d12bench worker protocol (bench/peer/peer_rows.h) on stdin/stdout
 *   d12peer --run ROW N       set up, run row ROW N times once, print the ns per operation (for callgrind:
 *                             --toggle-collect='row_*' counts only the rows' own instructions)
 *   d12peer --list            the row names
 *
 * `d12bench --peer` starts both builds as workers and interleaves their rows (docs/performance.md).
 */
#define _GNU_SOURCE
#define COBJMACROS
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "d12_shaders.h" /* the project's own shaders (spec/shaders): raw_fill */
#include "peer_rows.h"

/* ---- What differs between the two implementations: events ---- */

#ifdef PEER_VKD3D
/* vkd3d-utils' event functions (vkd3d_utils.h: System V, unlike its D3D12 entry points); its header is not
 * included because it brings vkd3d's own copy of the D3D12 declarations. */
HANDLE vkd3d_create_event(void);
unsigned int vkd3d_wait_event(HANDLE event, unsigned int milliseconds);
void vkd3d_destroy_event(HANDLE event);
static const char implementation[] = "vkd3d";
static HANDLE event_create(void) { return vkd3d_create_event(); }
static bool event_wait(HANDLE event) { return vkd3d_wait_event(event, ~0u) == 0; }
static void event_destroy(HANDLE event) { vkd3d_destroy_event(event); }
#else
#include <sys/eventfd.h>
/* d12rt's events are eventfds (docs/device.md). */
static const char implementation[] = "d12rt";
static HANDLE event_create(void)
{
    int fd = eventfd(0, EFD_CLOEXEC);
    return fd < 0 ? NULL : (HANDLE)(intptr_t)fd;
}
static bool event_wait(HANDLE event)
{
    uint64_t count;
    return read((int)(intptr_t)event, &count, sizeof count) == sizeof count;
}
static void event_destroy(HANDLE event) { close((int)(intptr_t)event); }
#endif

/* Keeps the compiler from eliding work on `p`. */
#define PEER_TOUCH(p) __asm__ __volatile__("" : : "g"(p) : "memory")
#define ROW __attribute__((noinline))

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- Setup ---- */

#define COPIES_PER_RECORDING 4096u
#define RECORDING_THREADS 4

typedef struct recorder {
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    unsigned recorded;
} recorder;

static struct {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12Resource *source, *destination, *big_source, *big_destination;
    recorder copy, draws, submitted, big_copy, threads[RECORDING_THREADS];
    ID3D12Fence *fence, *cpu_fence;
    UINT64 fence_value, cpu_fence_value;
    HANDLE event, gpu_event;
    /* The compute rows: raw_fill (spec/shaders) over its own root signature (root CBV b0, root UAV u0). */
    ID3D12RootSignature *compute_signature;
    ID3D12PipelineState *compute_state;
    ID3D12Resource *constants, *uav;
    recorder dispatches;
    bool failed;
} peer;

static void check(HRESULT hr, const char *what)
{
    if (FAILED(hr) && !peer.failed) {
        fprintf(stderr, "d12peer (%s): %s failed: 0x%08x\n", implementation, what, (unsigned)hr);
        peer.failed = true;
    }
}

static ID3D12Resource *create_buffer_of(D3D12_HEAP_TYPE type, UINT64 size)
{
    D3D12_HEAP_PROPERTIES heap = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, size, 1, 1, 1, DXGI_FORMAT_UNKNOWN,
                                {1, 0}, D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *resource = NULL;
    D3D12_RESOURCE_STATES state =
        type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ : D3D12_RESOURCE_STATE_COMMON;
    check(ID3D12Device_CreateCommittedResource(peer.device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                               &IID_ID3D12Resource, (void **)&resource),
          "CreateCommittedResource");
    return resource;
}

static ID3D12Resource *create_buffer(UINT64 size)
{
    return create_buffer_of(D3D12_HEAP_TYPE_DEFAULT, size);
}

static void open_recorder(recorder *r)
{
    check(ID3D12Device_CreateCommandAllocator(peer.device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                              &IID_ID3D12CommandAllocator, (void **)&r->allocator),
          "CreateCommandAllocator");
    if (peer.failed)
        return;
    check(ID3D12Device_CreateCommandList(peer.device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, r->allocator, NULL,
                                         &IID_ID3D12GraphicsCommandList, (void **)&r->list),
          "CreateCommandList");
    r->recorded = 0;
}

static void restart(recorder *r)
{
    check(ID3D12GraphicsCommandList_Close(r->list), "Close");
    check(ID3D12CommandAllocator_Reset(r->allocator), "ID3D12CommandAllocator::Reset");
    check(ID3D12GraphicsCommandList_Reset(r->list, r->allocator, NULL), "ID3D12GraphicsCommandList::Reset");
    r->recorded = 0;
}

static void fill_big_source(void);

/* The compute rows' objects and the list of 1 000 dispatches (each 2 groups of 64 threads writing 128 words). */
static const d12_shader_blob *raw_fill_blob(void)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, "raw_fill") == 0)
            return &d12_shaders[i];
    return NULL;
}

static void setup_compute(void)
{
    const d12_shader_blob *blob = raw_fill_blob();
    if (blob == NULL) {
        check(E_FAIL, "finding raw_fill");
        return;
    }
    check(ID3D12Device_CreateRootSignature(peer.device, 0, blob->code, blob->size, &IID_ID3D12RootSignature,
                                           (void **)&peer.compute_signature),
          "CreateRootSignature (raw_fill's RTS0)");
    if (peer.failed)
        return;
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {peer.compute_signature, {blob->code, blob->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    check(ID3D12Device_CreateComputePipelineState(peer.device, &desc, &IID_ID3D12PipelineState,
                                                  (void **)&peer.compute_state),
          "CreateComputePipelineState");
    peer.constants = create_buffer_of(D3D12_HEAP_TYPE_UPLOAD, 256);
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN,
                                  0, 0};
    D3D12_RESOURCE_DESC uav = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 65536, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                               D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    check(ID3D12Device_CreateCommittedResource(peer.device, &heap, D3D12_HEAP_FLAG_NONE, &uav,
                                               D3D12_RESOURCE_STATE_UNORDERED_ACCESS, NULL, &IID_ID3D12Resource,
                                               (void **)&peer.uav),
          "CreateCommittedResource (UAV)");
    open_recorder(&peer.dispatches);
    if (peer.failed)
        return;
    ID3D12GraphicsCommandList *list = peer.dispatches.list;
    ID3D12GraphicsCommandList_SetPipelineState(list, peer.compute_state);
    ID3D12GraphicsCommandList_SetComputeRootSignature(list, peer.compute_signature);
    ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(list, 0,
                                                               ID3D12Resource_GetGPUVirtualAddress(peer.constants));
    ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(list, 1, ID3D12Resource_GetGPUVirtualAddress(peer.uav));
    for (unsigned d = 0; d < 1000; d++)
        ID3D12GraphicsCommandList_Dispatch(list, 2, 1, 1);
    check(ID3D12GraphicsCommandList_Close(list), "Close");
}

static bool setup(void)
{
#ifndef PEER_VKD3D
    /* The registry overlay must not change what is measured. */
    setenv("D12RT_HKCU", "/nonexistent-d12bench/hkcu", 1); /* absent: empty, no warning */
    setenv("D12RT_HKLM", "/nonexistent-d12bench/hklm", 1);
#endif
    check(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&peer.device),
          "D3D12CreateDevice");
    if (peer.failed)
        return false;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    check(ID3D12Device_CreateCommandQueue(peer.device, &desc, &IID_ID3D12CommandQueue, (void **)&peer.queue),
          "CreateCommandQueue");
    peer.source = create_buffer(65536);
    peer.destination = create_buffer(65536);
    open_recorder(&peer.copy);
    open_recorder(&peer.draws);
    open_recorder(&peer.submitted);
    open_recorder(&peer.big_copy);
    peer.big_source = create_buffer(PEER_COPY_BYTES);
    peer.big_destination = create_buffer(PEER_COPY_BYTES);
    for (int t = 0; t < RECORDING_THREADS; t++)
        open_recorder(&peer.threads[t]);
    if (peer.failed)
        return false;
    ID3D12GraphicsCommandList_CopyBufferRegion(peer.submitted.list, peer.destination, 0, peer.source, 0, 256);
    check(ID3D12GraphicsCommandList_Close(peer.submitted.list), "Close");
    ID3D12GraphicsCommandList_CopyBufferRegion(peer.big_copy.list, peer.big_destination, 0, peer.big_source, 0,
                                               PEER_COPY_BYTES);
    check(ID3D12GraphicsCommandList_Close(peer.big_copy.list), "Close");
    check(ID3D12Device_CreateFence(peer.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&peer.fence),
          "CreateFence");
    check(ID3D12Device_CreateFence(peer.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                   (void **)&peer.cpu_fence),
          "CreateFence");
    peer.event = event_create();
    peer.gpu_event = event_create();
    if (peer.event == NULL || peer.gpu_event == NULL)
        check(E_FAIL, "creating an event");
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
    check(ID3D12Device_CheckFeatureSupport(peer.device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5),
          "CheckFeatureSupport(OPTIONS5)");
    if (!peer.failed)
        fill_big_source();
    if (!peer.failed)
        setup_compute();
    return !peer.failed;
}

/* ---- Rows: each runs `iterations` operations and returns the nanoseconds the timed part took ---- */

ROW static double row_check_feature_support(uint64_t iterations)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
    HRESULT hr = S_OK;
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        hr |= ID3D12Device_CheckFeatureSupport(peer.device, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                               sizeof options5);
        PEER_TOUCH(&options5);
    }
    double ns = now_ns() - start;
    check(hr, "CheckFeatureSupport(OPTIONS5)");
    return ns;
}

ROW static double row_committed_buffer(uint64_t iterations)
{
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12Resource *buffer = create_buffer(65536);
        if (buffer != NULL)
            ID3D12Resource_Release(buffer);
    }
    return now_ns() - start;
}

/* Record copies into `r`, restarting the recording (untimed) every COPIES_PER_RECORDING copies. */
ROW static double row_record_copy_into(recorder *r, uint64_t iterations)
{
    double total = 0;
    while (iterations > 0) {
        if (r->recorded == COPIES_PER_RECORDING)
            restart(r);
        unsigned batch = COPIES_PER_RECORDING - r->recorded;
        if (batch > iterations)
            batch = (unsigned)iterations;
        double start = now_ns();
        for (unsigned i = 0; i < batch; i++)
            ID3D12GraphicsCommandList_CopyBufferRegion(r->list, peer.destination, 0, peer.source, 0, 256);
        total += now_ns() - start;
        r->recorded += batch;
        iterations -= batch;
    }
    return total;
}

ROW static double row_execute_signal_spin(uint64_t iterations)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)peer.submitted.list};
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12CommandQueue_ExecuteCommandLists(peer.queue, 1, lists);
        UINT64 value = ++peer.fence_value;
        ID3D12CommandQueue_Signal(peer.queue, peer.fence, value);
        while (ID3D12Fence_GetCompletedValue(peer.fence) < value)
            ;
    }
    return now_ns() - start;
}

/* Submit `list`, Signal the queue's fence, wait on the event (the thread sleeps; it does not spin). */
static void execute_and_wait(ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(peer.queue, 1, lists);
    UINT64 value = ++peer.fence_value;
    ID3D12CommandQueue_Signal(peer.queue, peer.fence, value);
    check(ID3D12Fence_SetEventOnCompletion(peer.fence, value, peer.gpu_event), "SetEventOnCompletion");
    if (!event_wait(peer.gpu_event))
        check(E_FAIL, "waiting on the event");
}

/* The copy row's source holds real bytes on both sides, written once through an UPLOAD buffer: memory never
 * written may read from the kernel's shared zero page (vkd3d does not clear new memory; d12rt does), and copying
 * from it is cheaper than copying memory, which would favour one side. */
static void fill_big_source(void)
{
    ID3D12Resource *upload = create_buffer_of(D3D12_HEAP_TYPE_UPLOAD, PEER_COPY_BYTES);
    recorder fill = {0};
    open_recorder(&fill);
    void *data = NULL;
    if (!peer.failed && upload != NULL) {
        check(ID3D12Resource_Map(upload, 0, NULL, &data), "Map");
        if (data != NULL) {
            memset(data, 0x5A, (size_t)PEER_COPY_BYTES);
            ID3D12Resource_Unmap(upload, 0, NULL);
        }
        ID3D12GraphicsCommandList_CopyBufferRegion(fill.list, peer.big_source, 0, upload, 0, PEER_COPY_BYTES);
        check(ID3D12GraphicsCommandList_Close(fill.list), "Close");
        execute_and_wait(fill.list);
    }
    if (fill.list != NULL)
        ID3D12GraphicsCommandList_Release(fill.list);
    if (fill.allocator != NULL)
        ID3D12CommandAllocator_Release(fill.allocator);
    if (upload != NULL)
        ID3D12Resource_Release(upload);
}

ROW static double row_execute_signal_event(uint64_t iterations)
{
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++)
        execute_and_wait(peer.submitted.list);
    return now_ns() - start;
}

ROW static double row_copy_throughput(uint64_t iterations)
{
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++)
        execute_and_wait(peer.big_copy.list);
    return now_ns() - start;
}

ROW static double row_compute_pso(uint64_t iterations)
{
    const d12_shader_blob *blob = raw_fill_blob(); /* setup_compute found it */
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {peer.compute_signature, {blob->code, blob->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    HRESULT hr = S_OK;
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12PipelineState *state = NULL;
        hr |= ID3D12Device_CreateComputePipelineState(peer.device, &desc, &IID_ID3D12PipelineState, (void **)&state);
        if (state != NULL)
            ID3D12PipelineState_Release(state);
    }
    double ns = now_ns() - start;
    check(hr, "CreateComputePipelineState");
    return ns;
}

ROW static double row_dispatch_1000(uint64_t iterations)
{
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++)
        execute_and_wait(peer.dispatches.list);
    return now_ns() - start;
}

ROW static double row_fence_cpu(uint64_t iterations)
{
    UINT64 sum = 0;
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12Fence_Signal(peer.cpu_fence, ++peer.cpu_fence_value);
        sum += ID3D12Fence_GetCompletedValue(peer.cpu_fence);
    }
    double ns = now_ns() - start;
    PEER_TOUCH(&sum);
    return ns;
}

ROW static double row_fence_event(uint64_t iterations)
{
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        UINT64 value = ++peer.cpu_fence_value;
        check(ID3D12Fence_SetEventOnCompletion(peer.cpu_fence, value, peer.event), "SetEventOnCompletion");
        ID3D12Fence_Signal(peer.cpu_fence, value);
        if (!event_wait(peer.event))
            check(E_FAIL, "waiting on the event");
    }
    return now_ns() - start;
}

ROW static double row_record_10000_draws(uint64_t iterations)
{
    recorder *r = &peer.draws;
    double start = now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        ID3D12CommandAllocator_Reset(r->allocator);
        ID3D12GraphicsCommandList_Reset(r->list, r->allocator, NULL);
        for (unsigned d = 0; d < 10000; d++)
            ID3D12GraphicsCommandList_DrawInstanced(r->list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(r->list);
    }
    return now_ns() - start;
}

/* Four threads, started once, each recording its share of the copies into its own list; the operation is one
 * copy and the time is the wall time from the start barrier to the end barrier. */
static pthread_barrier_t threads_start, threads_done;
static uint64_t thread_share;
static pthread_t thread_ids[RECORDING_THREADS];
static bool threads_started, threads_quit;

static void *recording_thread(void *argument)
{
    recorder *r = argument;
    for (;;) {
        pthread_barrier_wait(&threads_start);
        if (threads_quit)
            return NULL;
        row_record_copy_into(r, thread_share);
        pthread_barrier_wait(&threads_done);
    }
}

ROW static double row_record_copy_4_threads(uint64_t iterations)
{
    if (!threads_started) {
        pthread_barrier_init(&threads_start, NULL, RECORDING_THREADS + 1);
        pthread_barrier_init(&threads_done, NULL, RECORDING_THREADS + 1);
        for (int t = 0; t < RECORDING_THREADS; t++)
            pthread_create(&thread_ids[t], NULL, recording_thread, &peer.threads[t]);
        threads_started = true;
    }
    thread_share = (iterations + RECORDING_THREADS - 1) / RECORDING_THREADS;
    double start = now_ns();
    pthread_barrier_wait(&threads_start);
    pthread_barrier_wait(&threads_done);
    /* Per copy over all threads (the share was rounded up). */
    return (now_ns() - start) * (double)iterations / (double)(thread_share * RECORDING_THREADS);
}

static double run_row(int row, uint64_t iterations)
{
    switch ((peer_row_id)row) {
    case PEER_CHECK_FEATURE_SUPPORT: return row_check_feature_support(iterations);
    case PEER_COMMITTED_BUFFER: return row_committed_buffer(iterations);
    case PEER_RECORD_COPY: return row_record_copy_into(&peer.copy, iterations);
    case PEER_EXECUTE_SIGNAL_SPIN: return row_execute_signal_spin(iterations);
    case PEER_FENCE_CPU: return row_fence_cpu(iterations);
    case PEER_FENCE_EVENT: return row_fence_event(iterations);
    case PEER_RECORD_10000_DRAWS: return row_record_10000_draws(iterations);
    case PEER_RECORD_COPY_4_THREADS: return row_record_copy_4_threads(iterations);
    case PEER_EXECUTE_SIGNAL_EVENT: return row_execute_signal_event(iterations);
    case PEER_COPY_THROUGHPUT: return row_copy_throughput(iterations);
    case PEER_COMPUTE_PSO: return row_compute_pso(iterations);
    case PEER_DISPATCH_1000: return row_dispatch_1000(iterations);
    case PEER_ROW_COUNT: break;
    }
    return -1.0;
}

static void teardown(void)
{
    if (threads_started) {
        threads_quit = true;
        pthread_barrier_wait(&threads_start);
        for (int t = 0; t < RECORDING_THREADS; t++)
            pthread_join(thread_ids[t], NULL);
    }
    if (peer.device == NULL)
        return;
    if (peer.queue != NULL && peer.fence != NULL) { /* let the GPU finish before anything is released */
        ID3D12CommandQueue_Signal(peer.queue, peer.fence, ++peer.fence_value);
        while (ID3D12Fence_GetCompletedValue(peer.fence) < peer.fence_value)
            usleep(100);
    }
    recorder *recorders[] = {&peer.copy, &peer.draws, &peer.submitted, &peer.big_copy, &peer.threads[0],
                             &peer.threads[1], &peer.threads[2], &peer.threads[3], &peer.dispatches};
    for (size_t i = 0; i < sizeof recorders / sizeof recorders[0]; i++) {
        if (recorders[i]->list != NULL)
            ID3D12GraphicsCommandList_Release(recorders[i]->list);
        if (recorders[i]->allocator != NULL)
            ID3D12CommandAllocator_Release(recorders[i]->allocator);
    }
    if (peer.event != NULL)
        event_destroy(peer.event);
    if (peer.gpu_event != NULL)
        event_destroy(peer.gpu_event);
    if (peer.cpu_fence != NULL)
        ID3D12Fence_Release(peer.cpu_fence);
    if (peer.fence != NULL)
        ID3D12Fence_Release(peer.fence);
    if (peer.compute_state != NULL)
        ID3D12PipelineState_Release(peer.compute_state);
    if (peer.compute_signature != NULL)
        ID3D12RootSignature_Release(peer.compute_signature);
    if (peer.constants != NULL)
        ID3D12Resource_Release(peer.constants);
    if (peer.uav != NULL)
        ID3D12Resource_Release(peer.uav);
    if (peer.source != NULL)
        ID3D12Resource_Release(peer.source);
    if (peer.destination != NULL)
        ID3D12Resource_Release(peer.destination);
    ID3D12Resource *big[] = {peer.big_source, peer.big_destination};
    for (int i = 0; i < 2; i++)
        if (big[i] != NULL)
            ID3D12Resource_Release(big[i]);
    if (peer.queue != NULL)
        ID3D12CommandQueue_Release(peer.queue);
    ID3D12Device_Release(peer.device);
}

static int worker(void)
{
    double ready = setup() ? 1.0 : -1.0;
    if (fwrite(&ready, sizeof ready, 1, stdout) != 1 || ready < 0) {
        fflush(stdout);
        return 1;
    }
    char description[PEER_DESCRIPTION_SIZE] = {0};
    peer_describe(peer.device, description, sizeof description - 1);
    if (fwrite(description, sizeof description, 1, stdout) != 1 || fflush(stdout) != 0)
        return 1;
    peer_request request;
    while (fread(&request, sizeof request, 1, stdin) == 1 && request.row >= 0) {
        double ns = run_row(request.row, request.iterations);
        if (peer.failed)
            ns = -1.0;
        if (fwrite(&ns, sizeof ns, 1, stdout) != 1 || fflush(stdout) != 0)
            break;
    }
    teardown();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int r = 0; r < PEER_ROW_COUNT; r++)
            printf("%d %s\n", r, peer_row_names[r]);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--worker") == 0)
        return worker();
    if (argc == 4 && strcmp(argv[1], "--run") == 0) {
        int row = atoi(argv[2]);
        uint64_t iterations = strtoull(argv[3], NULL, 10);
        if (row < 0 || row >= PEER_ROW_COUNT || iterations == 0 || !setup())
            return 1;
        double ns = run_row(row, iterations);
        int status = peer.failed ? 1 : 0;
        char description[PEER_DESCRIPTION_SIZE] = {0};
        peer_describe(peer.device, description, sizeof description - 1);
        printf("%s %s: %.2f ns/op over %llu\n", description, peer_row_names[row], ns / (double)iterations,
               (unsigned long long)iterations);
        teardown();
        return status;
    }
    fprintf(stderr, "usage: d12peer --worker | --run ROW N | --list\n");
    return 2;
}
