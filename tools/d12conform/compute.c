/* Area "compute" (issue 31; docs/pipelines.md, docs/conformance.md): GPU-based validation as driver-reported
 * messages, on a driver that offers the compute tables (D3D12DDI_TABLE_TYPE_D12RT_PIPELINES and
 * _COMMAND_LIST_BINDING) and the descriptor table. A dispatch whose shader reads a descriptor-table slot that was
 * never written must be reported once, VendorMessageId 938 (D3D12_MESSAGE_ID_GPU_BASED_VALIDATION_DESCRIPTOR_
 * UNINITIALIZED), category EXECUTION, severity ERROR, its description starting with that name, correlated to the
 * dispatch; the same dispatch over a written descriptor is not. A driver without those tables (its pipeline states
 * are refused with E_NOTIMPL) is not exercised. The shader is the project's own assembled raw_fill. */
#include "conform.h"

#include "d12_shaders.h"

#define GBV_UNINITIALIZED 938ull
#define GBV_NAME "GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED"

typedef struct compute {
    gpu g;
    ID3D12Device *device;
    ID3D12RootSignature *rs;
    ID3D12PipelineState *pso;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *cb, *target;
} compute;

static const d12_shader_blob *raw_fill(void)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++)
        if (strcmp(d12_shaders[i].name, "raw_fill") == 0)
            return &d12_shaders[i];
    return NULL;
}

/* raw_fill's b0 as a root CBV, its u0 through a table of one UAV. */
static ID3D12RootSignature *table_root_signature(ID3D12Device *device)
{
    D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[2];
    memset(params, 0, sizeof params);
    params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
    params[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
    params[1].DescriptorTable.NumDescriptorRanges = 1;
    params[1].DescriptorTable.pDescriptorRanges = &range;
    D3D12_ROOT_SIGNATURE_DESC desc = {2, params, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE};
    ID3DBlob *blob = NULL;
    ID3D12RootSignature *rs = NULL;
    if (SUCCEEDED(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL))) {
        ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob),
                                         &IID_ID3D12RootSignature, (void **)&rs);
        ID3D10Blob_Release(blob);
    }
    return rs;
}

static void compute_close(compute *c)
{
    gpu_close(&c->g);
    IUnknown *objects[] = {(IUnknown *)c->pso, (IUnknown *)c->rs, (IUnknown *)c->heap, (IUnknown *)c->cb,
                           (IUnknown *)c->target, (IUnknown *)c->device};
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
        if (objects[i])
            IUnknown_Release(objects[i]);
}

/* The device, its root signature, pipeline state and heap; false (NOT_EXERCISED) when the driver has no compute or
 * descriptor tables. */
static bool compute_open(compute *c)
{
    memset(c, 0, sizeof *c);
    if (!enabled_gpu(&c->g, &c->device))
        return false;
    c->rs = table_root_signature(c->device);
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {c->rs, {raw_fill()->code, raw_fill()->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    D3D12_DESCRIPTOR_HEAP_DESC heap = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1,
                                       D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, 0};
    if (!c->rs ||
        FAILED(ID3D12Device_CreateComputePipelineState(c->device, &desc, &IID_ID3D12PipelineState, (void **)&c->pso)) ||
        FAILED(ID3D12Device_CreateDescriptorHeap(c->device, &heap, &IID_ID3D12DescriptorHeap, (void **)&c->heap)))
        return false;
    c->cb = buffer(c->device, D3D12_HEAP_TYPE_UPLOAD, 256);
    D3D12_HEAP_PROPERTIES props = {D3D12_HEAP_TYPE_DEFAULT, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN,
                                   1, 1};
    D3D12_RESOURCE_DESC rd = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                              D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS};
    if (FAILED(ID3D12Device_CreateCommittedResource(c->device, &props, D3D12_HEAP_FLAG_NONE, &rd,
                                                    D3D12_RESOURCE_STATE_UNORDERED_ACCESS, NULL, &IID_ID3D12Resource,
                                                    (void **)&c->target)) || !c->cb) {
        fail("creating the dispatch's buffers failed");
        return false;
    }
    return true;
}

/* One dispatch of raw_fill over the heap's slot 0 (written with a UAV of the target, or never written); returns the
 * number of 938 reports and checks each is well-formed and correlated to the dispatch. */
static unsigned dispatch_and_count(compute *c, bool written)
{
    if (written) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC uav;
        memset(&uav, 0, sizeof uav);
        uav.Format = DXGI_FORMAT_R32_TYPELESS;
        uav.ViewDimension = D3D12_UAV_DIMENSION_BUFFER;
        uav.Buffer.NumElements = 64;
        uav.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
        ID3D12Device_CreateUnorderedAccessView(c->device, c->target, NULL, &uav,
                                               ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(c->heap));
    }
    ID3D12GraphicsCommandList *list = c->g.list;
    ID3D12GraphicsCommandList_Reset(list, c->g.allocator, c->pso);
    ID3D12GraphicsCommandList_SetComputeRootSignature(list, c->rs);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 1, &c->heap);
    ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(list, 0, ID3D12Resource_GetGPUVirtualAddress(c->cb));
    ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(
        list, 1, ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(c->heap));
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    ID3D12GraphicsCommandList_Close(list);
    execute(&c->g);
    signal_and_wait(&c->g);
    ID3D12CommandQueue_Wait(c->g.queue, c->g.fence, c->g.fence_value); /* a flush point */
    trace t = trace_read();
    unsigned long long index = ~0ull;
    unsigned reports = 0;
    for (size_t i = 0; i < t.count; i++) {
        const record *r = &t.r[i];
        if (is(r, "pfnSetCommandListStateIndex"))
            index = field_u(r, "CommandListStateIndex");
        if (!is(r, "pfnReportMessageCb") || field_u(r, "VendorMessageId") != GBV_UNINITIALIZED)
            continue;
        reports++;
        const char *text = strstr(r->line, "pDescription=\"");
        EXPECT(text && strncmp(text + 14, GBV_NAME, strlen(GBV_NAME)) == 0,
               "a 938 report whose description does not start with " GBV_NAME);
        EXPECT(field_u(r, "Category") == D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "a 938 report of category %llu",
               field_u(r, "Category"));
        EXPECT(field_u(r, "Severity") == D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, "a 938 report of severity %llu",
               field_u(r, "Severity"));
        EXPECT(field_u(r, "CommandListStateIndex") == index,
               "a 938 report with CommandListStateIndex %llu, not the dispatch's %llu",
               field_u(r, "CommandListStateIndex"), index);
    }
    trace_free(&t);
    return reports;
}

static outcome t_uninitialized(void)
{
    compute c;
    if (!compute_open(&c)) {
        compute_close(&c);
        return g_result == FAIL ? FAIL : NOT_EXERCISED;
    }
    unsigned reports = dispatch_and_count(&c, false);
    EXPECT(reports == 1, "%u reports with VendorMessageId 938 for one dispatch over an unwritten slot", reports);
    compute_close(&c);
    return g_result;
}

static outcome t_initialized(void)
{
    compute c;
    if (!compute_open(&c)) {
        compute_close(&c);
        return g_result == FAIL ? FAIL : NOT_EXERCISED;
    }
    unsigned reports = dispatch_and_count(&c, true);
    EXPECT(reports == 0, "%u reports with VendorMessageId 938 for a dispatch over a written slot", reports);
    compute_close(&c);
    return g_result;
}

const conform_test conform_tests_compute[] = {
    {"compute.gbv_uninitialized", "driver", "before a dispatch runs, the driver checks every descriptor the shader can "
     "reach and reports ... the VendorMessageId is the GPU-based-validation D3D12_MESSAGE_ID value (938 "
     "...DESCRIPTOR_UNINITIALIZED), the description starts with that name (issue 31 item 4)", t_uninitialized},
    {"compute.gbv_initialized", "driver", "a descriptor that was written is not reported as uninitialized",
     t_initialized},
};
const size_t conform_tests_compute_count = sizeof conform_tests_compute / sizeof conform_tests_compute[0];
