/* The list's compute calls on the reference driver (docs/pipelines.md; issue 31 items 1-3), public API only, with
 * the DDI trace (D12RT_DDI_TRACE) proving what reaches the driver's binding table. Cases (pipelines.list.<case>):
 *     dispatch_not_set     Dispatch with nothing set: COMMAND_LIST_PIPELINE_STATE_NOT_SET and
 *                          _DISPATCH_ROOT_SIGNATURE_NOT_SET naming [Dispatch #0]; Close S_OK; pfnDispatch forwarded
 *     dispatch_set         with a pipeline state and a compute root signature: neither message
 *     set_pipeline_null    SetPipelineState(NULL): SET_PIPELINE_STATE_INVALID, nothing forwarded
 *     initial_create       CreateCommandList's pInitialState: pfnSetPipelineState forwarded, no NOT_SET at Dispatch
 *     initial_reset        Reset's pInitialState: forwarded after pfnResetCommandList
 *     forwarded            SetComputeRootSignature, SetDescriptorHeaps, SetComputeRootDescriptorTable and
 *                          SetComputeRoot32BitConstants reach the driver; a table call the debug layer drops does not
 *     bundle_replay        a bundle's SetPipelineState reaches the driver when ExecuteBundle replays it
 *     clear_uint           ClearUnorderedAccessViewUint clears the UAV's words (read back), forwarded once
 *     clear_float          ClearUnorderedAccessViewFloat on an R32_FLOAT typed UAV writes the float's bits
 *     clear_bad_gpu        a GPU handle outside the bound heap: CLEAR_UNORDERED_ACCESS_VIEW_INVALID_DESCRIPTOR_HANDLE
 *     clear_cpu_visible    a CPU handle in a shader-visible heap: the same ID, not forwarded
 *     clear_null_resource  pResource NULL: CLEARUNORDEREDACCESSVIEW_INVALID_RESOURCE_PTR, not forwarded
 *     exec_uninitialized   a table slot never written: driver message 938 (DESCRIPTOR_UNINITIALIZED) with
 *                          [Dispatch #0], no fault
 *     exec_null_descriptor a null UAV descriptor: no finding
 *     exec_valid           a UAV of a live buffer: no finding
 *     exec_released        a UAV of a released buffer: the page fault naming "UAV u0 (root parameter 1, table slot 0)"
 *     exec_root_va0        a root UAV at VA 0: the page fault naming "UAV u0 (root parameter 1, a root view)"
 * Ends with "N passed, N failed". */
#define COBJMACROS
#define _GNU_SOURCE
#include "gpu_harness.h"

#include "d12rt/d3d12_ext.h"

#include "case_main.h"
#include "d12_shaders.h"

#define MSG_SET_PIPELINE_STATE_INVALID ((D3D12_MESSAGE_ID)0x13102)
#define GBV_DESCRIPTOR_UNINITIALIZED "GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED"

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;
static gpu_context g_ctx;

static int setup(void)
{
    const char *trace = getenv("D12RT_DDI_TRACE");
    FILE *file = trace ? fopen(trace, "w") : NULL; /* this run's lines only: the runtime appends */
    if (file)
        fclose(file);
    ID3D12Debug7 *debug = NULL;
    if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
    g_device = create_device(true);
    if (!g_device || !make_context(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT, &g_ctx))
        return 1;
    g_info = info_queue_of(g_device);
    return 0;
}

/* Lines of the DDI trace (D12RT_DDI_TRACE) containing every one of `a` and `b` (b may be NULL). */
static unsigned traced(const char *a, const char *b)
{
    const char *path = getenv("D12RT_DDI_TRACE");
    FILE *file = path ? fopen(path, "r") : NULL;
    unsigned found = 0;
    char line[1024];
    while (file && fgets(line, sizeof line, file))
        if (line[0] == '>' && strstr(line, a) && (!b || strstr(line, b)))
            found++;
    if (file)
        fclose(file);
    return found;
}

/* The trace line number of the first line with `a`, or 0. */
static unsigned traced_at(const char *a)
{
    const char *path = getenv("D12RT_DDI_TRACE");
    FILE *file = path ? fopen(path, "r") : NULL;
    unsigned at = 0, n = 0;
    char line[1024];
    while (file && fgets(line, sizeof line, file)) {
        n++;
        if (line[0] == '>' && strstr(line, a)) {
            at = n;
            break;
        }
    }
    if (file)
        fclose(file);
    return at;
}

static const d12_shader_blob *raw_fill(void)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, "raw_fill") == 0)
            return &d12_shaders[i];
    return NULL;
}

/* raw_fill's b0 and u0: its own RTS0 (root CBV, root UAV), or a root CBV and a table of one UAV (table = true). */
static ID3D12RootSignature *make_rs(bool table)
{
    ID3D12RootSignature *rs = NULL;
    if (!table) {
        CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, raw_fill()->code, raw_fill()->size,
                                                  &IID_ID3D12RootSignature, (void **)&rs),
                 S_OK);
        return rs;
    }
    D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[2] = {
        {D3D12_ROOT_PARAMETER_TYPE_CBV, .Descriptor = {0, 0}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range}, D3D12_SHADER_VISIBILITY_ALL}};
    D3D12_ROOT_SIGNATURE_DESC desc = {2, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE};
    ID3DBlob *blob = NULL;
    if (CHECK_HR(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK)) {
        CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                  ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature,
                                                  (void **)&rs),
                 S_OK);
        ID3D10Blob_Release(blob);
    }
    return rs;
}

static ID3D12PipelineState *make_pso(ID3D12RootSignature *rs)
{
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {rs, {raw_fill()->code, raw_fill()->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    ID3D12PipelineState *pso = NULL;
    CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, (void **)&pso), S_OK);
    return pso;
}

static ID3D12DescriptorHeap *make_heap(UINT count, bool visible)
{
    D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, count,
                                       visible ? D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE
                                               : D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
    ID3D12DescriptorHeap *heap = NULL;
    CHECK_HR(ID3D12Device_CreateDescriptorHeap(g_device, &desc, &IID_ID3D12DescriptorHeap, (void **)&heap), S_OK);
    return heap;
}

/* A raw UAV of `words` 32-bit words of `buffer` (NULL: a null descriptor) at `cpu`. */
static void write_uav(ID3D12Resource *buffer, UINT words, DXGI_FORMAT format, D3D12_CPU_DESCRIPTOR_HANDLE cpu)
{
    D3D12_UNORDERED_ACCESS_VIEW_DESC desc = {format, D3D12_UAV_DIMENSION_BUFFER, .Buffer = {0, words, 0, 0,
        format == DXGI_FORMAT_R32_TYPELESS ? D3D12_BUFFER_UAV_FLAG_RAW : D3D12_BUFFER_UAV_FLAG_NONE}};
    ID3D12Device_CreateUnorderedAccessView(g_device, buffer, NULL, &desc, cpu);
}

/* A DEFAULT buffer a UAV may view (ALLOW_UNORDERED_ACCESS), in UNORDERED_ACCESS. */
static ID3D12Resource *make_uav_buffer(UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = buffer_desc(width);
    desc.Flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
    ID3D12Resource *resource = NULL;
    CHECK_HR(ID3D12Device_CreateCommittedResource(g_device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS, NULL, &IID_ID3D12Resource,
                                                  (void **)&resource),
             S_OK);
    return resource;
}

static void finish_case(void)
{
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    execute(g_ctx.queue, g_ctx.list);
    finish(&g_ctx);
}

/* ---- Dispatch's debug-layer checks ---- */

static void test_dispatch_not_set(const void *arg)
{
    (void)arg;
    ID3D12GraphicsCommandList_Dispatch(g_ctx.list, 1, 1, 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_COMMAND_LIST_PIPELINE_STATE_NOT_SET, "[Dispatch #0]", NULL), 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_NOT_SET, "[Dispatch #0]", NULL),
                 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK); /* the debug layer's alone: no recording error */
    CHECK_EQ_INT(traced("pfnDispatch", NULL), 1);
}

static void test_dispatch_set(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = make_rs(false);
    ID3D12PipelineState *pso = rs ? make_pso(rs) : NULL;
    if (!pso)
        return;
    ID3D12GraphicsCommandList_SetPipelineState(g_ctx.list, pso);
    ID3D12GraphicsCommandList_SetComputeRootSignature(g_ctx.list, rs);
    ID3D12GraphicsCommandList_Dispatch(g_ctx.list, 1, 1, 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_COMMAND_LIST_PIPELINE_STATE_NOT_SET, NULL, NULL), 0);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_NOT_SET, NULL, NULL), 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 1);
    CHECK_EQ_INT(traced("pfnSetComputeRootSignature", NULL), 1);
    ID3D12PipelineState_Release(pso);
    ID3D12RootSignature_Release(rs);
}

static void test_set_pipeline_null(const void *arg)
{
    (void)arg;
    ID3D12GraphicsCommandList_SetPipelineState(g_ctx.list, NULL);
    CHECK_EQ_INT(count_id(g_info, MSG_SET_PIPELINE_STATE_INVALID, "pPipelineState is NULL", NULL), 1);
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
}

static void test_initial_create(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = make_rs(false);
    ID3D12PipelineState *pso = rs ? make_pso(rs) : NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    if (!pso ||
        !CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                      &IID_ID3D12CommandAllocator, (void **)&allocator),
                  S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, pso,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&list),
                  S_OK))
        return;
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 1);
    CHECK(traced_at("pfnSetPipelineState") > traced_at("pfnCreateCommandList"));
    ID3D12GraphicsCommandList_SetComputeRootSignature(list, rs);
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_COMMAND_LIST_PIPELINE_STATE_NOT_SET, NULL, NULL), 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK);
    RELEASE_LAST(list);
    RELEASE_LAST(allocator);
    RELEASE_LAST(pso);
    RELEASE_LAST(rs);
}

static void test_initial_reset(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = make_rs(false);
    ID3D12PipelineState *pso = rs ? make_pso(rs) : NULL;
    if (!pso || !CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK))
        return;
    CHECK_HR(ID3D12GraphicsCommandList_Reset(g_ctx.list, g_ctx.allocator, pso), S_OK);
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 1);
    CHECK(traced_at("pfnSetPipelineState") > traced_at("pfnResetCommandList"));
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    ID3D12PipelineState_Release(pso);
    ID3D12RootSignature_Release(rs);
}

static void test_forwarded(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = make_rs(true);
    ID3D12DescriptorHeap *heap = make_heap(4, true);
    if (!rs || !heap)
        return;
    ID3D12GraphicsCommandList_SetComputeRootSignature(g_ctx.list, rs);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g_ctx.list, 1, &heap);
    D3D12_GPU_DESCRIPTOR_HANDLE base = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(heap);
    ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_ctx.list, 1, base);
    ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(g_ctx.list, 0, base); /* a CBV, not a table: dropped */
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_SET_DESCRIPTOR_TABLE_INVALID, NULL, NULL), 1);
    CHECK_EQ_INT(traced("pfnSetComputeRootSignature", NULL), 1);
    CHECK_EQ_INT(traced("pfnSetDescriptorHeaps", "NumDescriptorHeaps=1"), 1);
    CHECK_EQ_INT(traced("pfnSetComputeRootDescriptorTable", "RootParameterIndex=1"), 1);
    CHECK_EQ_INT(traced("pfnSetComputeRootDescriptorTable", NULL), 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    ID3D12DescriptorHeap_Release(heap);
    ID3D12RootSignature_Release(rs);
}

static void test_bundle_replay(const void *arg)
{
    (void)arg;
    ID3D12RootSignature *rs = make_rs(false);
    ID3D12PipelineState *pso = rs ? make_pso(rs) : NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *bundle = NULL;
    if (!pso ||
        !CHECK_HR(ID3D12Device_CreateCommandAllocator(g_device, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                                      &IID_ID3D12CommandAllocator, (void **)&allocator),
                  S_OK) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(g_device, 0, D3D12_COMMAND_LIST_TYPE_BUNDLE, allocator, NULL,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&bundle),
                  S_OK))
        return;
    ID3D12GraphicsCommandList_SetPipelineState(bundle, pso);
    ID3D12GraphicsCommandList_Dispatch(bundle, 1, 1, 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(bundle), S_OK);
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 0); /* recorded by the runtime, not yet the driver's */
    ID3D12GraphicsCommandList_SetComputeRootSignature(g_ctx.list, rs);
    ID3D12GraphicsCommandList_ExecuteBundle(g_ctx.list, bundle);
    CHECK_EQ_INT(traced("pfnSetPipelineState", NULL), 1);
    CHECK(traced_at("pfnSetPipelineState") < traced_at("pfnDispatch"));
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    RELEASE_LAST(bundle);
    RELEASE_LAST(allocator);
    ID3D12PipelineState_Release(pso);
    ID3D12RootSignature_Release(rs);
}

/* ---- ClearUnorderedAccessView ---- */

typedef struct clear_setup {
    ID3D12Resource *buffer, *readback;
    ID3D12DescriptorHeap *visible, *cpu;
} clear_setup;

static bool make_clear(clear_setup *s, DXGI_FORMAT format)
{
    memset(s, 0, sizeof *s);
    s->buffer = make_uav_buffer(256);
    s->readback = make_buffer(g_device, D3D12_HEAP_TYPE_READBACK, 256);
    s->visible = make_heap(2, true);
    s->cpu = make_heap(2, false);
    if (!s->buffer || !s->readback || !s->visible || !s->cpu)
        return false;
    write_uav(s->buffer, 64, format, ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(s->visible));
    write_uav(s->buffer, 64, format, ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(s->cpu));
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g_ctx.list, 1, &s->visible);
    return true;
}

static void free_clear(clear_setup *s)
{
    ID3D12Resource *r[] = {s->buffer, s->readback};
    for (int i = 0; i < 2; i++)
        if (r[i])
            ID3D12Resource_Release(r[i]);
    if (s->visible)
        ID3D12DescriptorHeap_Release(s->visible);
    if (s->cpu)
        ID3D12DescriptorHeap_Release(s->cpu);
}

/* The buffer's 64 words after the list ran (copied to the readback buffer); false when they could not be read. */
static bool read_back(clear_setup *s, UINT32 words[64])
{
    ID3D12GraphicsCommandList_CopyResource(g_ctx.list, s->readback, s->buffer);
    finish_case();
    UINT32 *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(s->readback, 0, NULL, (void **)&data), S_OK))
        return false;
    memcpy(words, data, 64 * sizeof *words);
    ID3D12Resource_Unmap(s->readback, 0, NULL);
    return true;
}

static void clear_and_check(DXGI_FORMAT format, bool is_float, const char *slot, UINT32 expected)
{
    clear_setup s;
    if (make_clear(&s, format) && CHECK(traced("pfnCreateBufferView", NULL) == 2)) {
        static const UINT uints[4] = {0xABCD1234u, 1, 2, 3};
        static const FLOAT floats[4] = {1.5f, 0, 0, 0};
        D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(s.visible);
        D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(s.cpu);
        if (is_float)
            ID3D12GraphicsCommandList_ClearUnorderedAccessViewFloat(g_ctx.list, gpu, cpu, s.buffer, floats, 0, NULL);
        else
            ID3D12GraphicsCommandList_ClearUnorderedAccessViewUint(g_ctx.list, gpu, cpu, s.buffer, uints, 0, NULL);
        CHECK_EQ_INT(traced(slot, NULL), 1);
        UINT32 words[64];
        if (read_back(&s, words)) {
            CHECK_EQ_INT(words[0], expected);
            CHECK_EQ_INT(words[63], expected); /* the whole view */
        }
    }
    free_clear(&s);
}

static void test_clear_uint(const void *arg)
{
    (void)arg;
    clear_and_check(DXGI_FORMAT_R32_TYPELESS, false, "pfnClearUnorderedAccessViewUint", 0xABCD1234u);
}

static void test_clear_float(const void *arg)
{
    (void)arg;
    clear_and_check(DXGI_FORMAT_R32_FLOAT, true, "pfnClearUnorderedAccessViewFloat", 0x3FC00000u); /* 1.5f */
}

/* A refused clear: its message and no call of the driver's slot. */
static void clear_refused(D3D12_MESSAGE_ID id, const char *text, bool cpu_visible, bool gpu_outside, bool null_resource)
{
    clear_setup s;
    if (make_clear(&s, DXGI_FORMAT_R32_TYPELESS)) {
        static const UINT values[4] = {7, 7, 7, 7};
        D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(s.visible);
        D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(
            cpu_visible ? s.visible : s.cpu);
        if (gpu_outside)
            gpu.ptr += 2 * ID3D12Device_GetDescriptorHandleIncrementSize(g_device,
                                                                          D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
        ID3D12GraphicsCommandList_ClearUnorderedAccessViewUint(g_ctx.list, gpu, cpu, null_resource ? NULL : s.buffer,
                                                               values, 0, NULL);
        CHECK_EQ_INT(count_id(g_info, id, text, NULL), 1);
        CHECK_EQ_INT(traced("pfnClearUnorderedAccessViewUint", NULL), 0);
        CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    }
    free_clear(&s);
}

static void test_clear_bad_gpu(const void *arg)
{
    (void)arg;
    clear_refused(D3D12_MESSAGE_ID_CLEAR_UNORDERED_ACCESS_VIEW_INVALID_DESCRIPTOR_HANDLE, "ViewGPUHandleInCurrentHeap",
                  false, true, false);
}

static void test_clear_cpu_visible(const void *arg)
{
    (void)arg;
    clear_refused(D3D12_MESSAGE_ID_CLEAR_UNORDERED_ACCESS_VIEW_INVALID_DESCRIPTOR_HANDLE, "shader-visible", true,
                  false, false);
}

static void test_clear_null_resource(const void *arg)
{
    (void)arg;
    clear_refused(D3D12_MESSAGE_ID_CLEARUNORDEREDACCESSVIEW_INVALID_RESOURCE_PTR, "pResource is NULL", false, false,
                  true);
}

/* ---- The reference driver's rules at execution (driver-reported messages) ---- */

typedef enum { SLOT_UNWRITTEN, SLOT_NULL, SLOT_VALID, SLOT_RELEASED, ROOT_VA0 } slot_kind;

/* raw_fill dispatched with its u0 as `kind` says; the stored messages tell the rest. */
static void dispatch_with(slot_kind kind)
{
    bool table = kind != ROOT_VA0;
    ID3D12RootSignature *rs = make_rs(table);
    ID3D12PipelineState *pso = rs ? make_pso(rs) : NULL;
    ID3D12DescriptorHeap *heap = make_heap(2, true);
    ID3D12Resource *cb = make_buffer(g_device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *target = make_uav_buffer(256);
    if (!pso || !heap || !cb || !target)
        return;
    D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(heap);
    if (kind == SLOT_NULL)
        write_uav(NULL, 64, DXGI_FORMAT_R32_TYPELESS, cpu);
    else if (kind == SLOT_VALID || kind == SLOT_RELEASED)
        write_uav(target, 64, DXGI_FORMAT_R32_TYPELESS, cpu);
    CHECK_EQ_INT(traced("pfnCreateBufferView", NULL), kind == SLOT_UNWRITTEN || kind == ROOT_VA0 ? 0 : 1);
    ID3D12GraphicsCommandList_SetPipelineState(g_ctx.list, pso);
    ID3D12GraphicsCommandList_SetComputeRootSignature(g_ctx.list, rs);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g_ctx.list, 1, &heap);
    ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(g_ctx.list, 0,
                                                               ID3D12Resource_GetGPUVirtualAddress(cb));
    if (table)
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(
            g_ctx.list, 1, ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(heap));
    else
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(g_ctx.list, 1, 0);
    ID3D12GraphicsCommandList_Dispatch(g_ctx.list, 1, 1, 1);
    CHECK_HR(ID3D12GraphicsCommandList_Close(g_ctx.list), S_OK);
    if (kind == SLOT_RELEASED) {
        RELEASE_LAST(target); /* released after recording: the descriptor names a freed buffer at execution */
        target = NULL;
    }
    execute(g_ctx.queue, g_ctx.list);
    g_ctx.value++;
    ID3D12CommandQueue_Signal(g_ctx.queue, g_ctx.fence, g_ctx.value);
    wait_fence_within(g_ctx.fence, g_ctx.value, 2000); /* a fault removes the device: the fence may never come */
    ID3D12CommandQueue_Wait(g_ctx.queue, g_ctx.fence, g_ctx.value); /* a flush point: the findings arrive */
    if (target)
        ID3D12Resource_Release(target);
    ID3D12Resource_Release(cb);
    ID3D12DescriptorHeap_Release(heap);
    ID3D12PipelineState_Release(pso);
    ID3D12RootSignature_Release(rs);
}

static void test_exec_uninitialized(const void *arg)
{
    (void)arg;
    dispatch_with(SLOT_UNWRITTEN);
    message_info info = {0};
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, GBV_DESCRIPTOR_UNINITIALIZED, &info), 1);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "[Dispatch #0]", NULL), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_EXECUTION);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "Page fault", NULL), 0);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), S_OK);
}

static void expect_no_finding(void)
{
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, GBV_DESCRIPTOR_UNINITIALIZED, NULL), 0);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "Page fault", NULL), 0);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), S_OK);
}

static void test_exec_null_descriptor(const void *arg)
{
    (void)arg;
    dispatch_with(SLOT_NULL);
    expect_no_finding();
}

static void test_exec_valid(const void *arg)
{
    (void)arg;
    dispatch_with(SLOT_VALID);
    expect_no_finding();
}

static void test_exec_released(const void *arg)
{
    (void)arg;
    dispatch_with(SLOT_RELEASED);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE,
                          "Page fault: UAV u0 (root parameter 1, table slot 0) writes", NULL),
                 1);
}

static void test_exec_root_va0(const void *arg)
{
    (void)arg;
    dispatch_with(ROOT_VA0);
    CHECK_EQ_INT(count_id(g_info, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE,
                          "Page fault: UAV u0 (root parameter 1, a root view) writes GPU virtual address "
                          "0x0000000000000000",
                          NULL),
                 1);
}

static const d12test_case k_cases[] = {
    {"dispatch_not_set", test_dispatch_not_set, NULL},
    {"dispatch_set", test_dispatch_set, NULL},
    {"set_pipeline_null", test_set_pipeline_null, NULL},
    {"initial_create", test_initial_create, NULL},
    {"initial_reset", test_initial_reset, NULL},
    {"forwarded", test_forwarded, NULL},
    {"bundle_replay", test_bundle_replay, NULL},
    {"clear_uint", test_clear_uint, NULL},
    {"clear_float", test_clear_float, NULL},
    {"clear_bad_gpu", test_clear_bad_gpu, NULL},
    {"clear_cpu_visible", test_clear_cpu_visible, NULL},
    {"clear_null_resource", test_clear_null_resource, NULL},
    {"exec_uninitialized", test_exec_uninitialized, NULL},
    {"exec_null_descriptor", test_exec_null_descriptor, NULL},
    {"exec_valid", test_exec_valid, NULL},
    {"exec_released", test_exec_released, NULL},
    {"exec_root_va0", test_exec_root_va0, NULL},
};

int main(int argc, char **argv)
{
    int rc = d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], setup);
    release_context(&g_ctx);
    if (g_info)
        ID3D12InfoQueue_Release(g_info);
    if (g_device)
        ID3D12Device_Release(g_device);
    return rc;
}
