/* d12rt's DRED demo: ../shared/specs/dred-tdr-case-study.txt reproduced (issue 9 item 6).
 *
 * A small scene graph is loaded on a second thread, as the case study's glTF viewer does, creating its GPU
 * geometry on the way. Nodes come from a debug-heap allocator that fills new memory with 0xCD bytes (as the MSVC
 * debug heap does), so a field the loader forgets to set holds 0xCDCDCDCD and every run is the same. The loader
 * has the case study's bug: `mesh_index` has no default and is set only for a node that has a mesh; the renderer
 * draws every node whose mesh_index is not -1. The mesh-less node "Lantern pivot" therefore draws mesh 0xCDCDCDCD,
 * whose vertex and index buffers lie at an address no allocation maps: the GPU page-faults on the
 * DrawIndexedInstanced and the device is removed (DXGI_ERROR_DEVICE_HUNG), as in the case study.
 *
 *     dred_demo           the page fault
 *     dred_demo --hang    the loader's other bug: a node's instance count is never set, the draw asks for
 *                         0xCDCDCDCD instances, the GPU runs past the TDR delay and the watchdog removes the device
 *
 * The demo turns DRED on before creating the device (the case study's first listing), prints the driver's
 * correlated message, the removal reason and the breadcrumbs and page-fault data read through
 * ID3D12DeviceRemovedExtendedData2 (the case study's second listing), and then the report d12rt wrote into
 * D12RT_DRED_DUMP as `d12dred show` renders it. D12RT_DRED_DUMP is a fresh temporary folder unless it is set;
 * --hang sets D12RT_TDR_DELAY_MS to 300 unless it is set. Exit status: 0 when everything above was seen (the
 * demo checks its own story), 1 otherwise. Run it as build/default/examples/dred_demo [--hang]. */
#define _GNU_SOURCE
#define COBJMACROS

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "d12dred_report.h"

/* ---- The scene graph (the case study's `struct Node`, in C) ---------------------------------------------- */

typedef struct scene_node {
    char name[32];
    int parent_index;
    int mesh_index;          /* the bug: no default (the case study's fix is "= -1") */
    UINT instance_count;     /* --hang: never set for a node whose instancing data the loader skips */
    float local_transform[16];
} scene_node;

/* What the "glTF file" says about each node: mesh -1 is none; instances 0 is "in an extension the loader skips". */
typedef struct source_node {
    const char *name;
    int parent;
    int mesh;
    UINT instances;
} source_node;

static const source_node k_scene[] = {
    {"Sponza", -1, 0, 1},
    {"Helmet", 0, 1, 1},
    {"Lantern pivot", 0, -1, 1}, /* a transform node without a mesh: the one that faults */
    {"Lantern", 2, 2, 1},
};

static const source_node k_hang_scene[] = {
    {"Sponza", -1, 0, 1},
    {"Helmet", 0, 1, 1},
    {"Grass", 0, 2, 0}, /* instanced through EXT_mesh_gpu_instancing: instance_count is never set */
};

#define MESH_COUNT 3
#define MESH_SLOT 0x10000u    /* each mesh has a 64 KiB slot in the geometry pool */
#define INDEX_OFFSET 0x1000u  /* its indices follow its vertices in the slot */
#define CUBE_VERTICES 8
#define CUBE_INDICES 36

/* The debug heap: new memory is 0xCD bytes ("clean memory"), so an unset field is 0xCDCDCDCD every run. */
static void *debug_heap_alloc(size_t size)
{
    void *memory = malloc(size);
    if (memory)
        memset(memory, 0xCD, size);
    return memory;
}

typedef struct loader {
    ID3D12Device *device;
    const source_node *source;
    size_t count;
    scene_node **nodes;          /* out */
    ID3D12Resource *geometry;    /* out: the geometry pool, an UPLOAD buffer the GPU reads directly */
    bool ok;
} loader;

static ID3D12Resource *make_buffer(ID3D12Device *device, D3D12_HEAP_TYPE heap_type, UINT64 width, const wchar_t *name)
{
    D3D12_HEAP_PROPERTIES heap = {.Type = heap_type};
    D3D12_RESOURCE_DESC desc = {.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER, .Width = width, .Height = 1,
                                .DepthOrArraySize = 1, .MipLevels = 1, .SampleDesc = {1, 0},
                                .Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR};
    ID3D12Resource *buffer = NULL;
    if (FAILED(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                    D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                    (void **)&buffer)))
        return NULL;
    ID3D12Resource_SetName(buffer, name);
    return buffer;
}

/* A unit cube per mesh slot: 8 float3 vertices, 36 16-bit indices. */
static void write_cube(unsigned char *slot, float scale)
{
    float *v = (float *)slot;
    for (int i = 0; i < CUBE_VERTICES; i++) {
        v[3 * i + 0] = (i & 1 ? 1.0f : -1.0f) * scale;
        v[3 * i + 1] = (i & 2 ? 1.0f : -1.0f) * scale;
        v[3 * i + 2] = (i & 4 ? 1.0f : -1.0f) * scale;
    }
    static const UINT16 faces[CUBE_INDICES] = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                               2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
    memcpy(slot + INDEX_OFFSET, faces, sizeof faces);
}

/* The loader thread: GPU geometry first, then the nodes. */
static void *load_scene(void *argument)
{
    loader *l = argument;
    l->geometry = make_buffer(l->device, D3D12_HEAP_TYPE_UPLOAD, (UINT64)MESH_COUNT * MESH_SLOT, L"Geometry pool");
    unsigned char *pool = NULL;
    if (!l->geometry || FAILED(ID3D12Resource_Map(l->geometry, 0, NULL, (void **)&pool)))
        return NULL;
    for (int mesh = 0; mesh < MESH_COUNT; mesh++)
        write_cube(pool + (size_t)mesh * MESH_SLOT, 1.0f + (float)mesh);
    ID3D12Resource_Unmap(l->geometry, 0, NULL);

    l->nodes = calloc(l->count, sizeof *l->nodes);
    for (size_t i = 0; l->nodes && i < l->count; i++) {
        const source_node *src = &l->source[i];
        scene_node *node = debug_heap_alloc(sizeof *node);
        if (!node)
            return NULL;
        snprintf(node->name, sizeof node->name, "%s", src->name);
        node->parent_index = src->parent;
        for (int k = 0; k < 16; k++)
            node->local_transform[k] = k % 5 == 0 ? 1.0f : 0.0f;
        if (src->mesh >= 0)
            node->mesh_index = src->mesh;  /* ... and nothing otherwise: the bug */
        if (src->instances > 0)
            node->instance_count = src->instances;
        l->nodes[i] = node;
    }
    l->ok = l->nodes != NULL;
    return NULL;
}

/* ---- Messages ---------------------------------------------------------------------------------------------- */

static char g_driver_message[1024];
static char g_removal_message[1024];

static void on_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                                LPCSTR description, void *context)
{
    (void)category, (void)context;
    if (id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE && severity == D3D12_MESSAGE_SEVERITY_CORRUPTION) {
        printf("[driver message] %s\n", description);
        if (!g_driver_message[0])
            snprintf(g_driver_message, sizeof g_driver_message, "%s", description);
    } else if (id == D3D12_MESSAGE_ID_DEVICE_REMOVAL_PROCESS_AT_FAULT) {
        printf("[D3D12 ERROR] %s\n", description);
        snprintf(g_removal_message, sizeof g_removal_message, "%s", description);
    }
}

/* ---- Frame ------------------------------------------------------------------------------------------------- */

static void event_begin(ID3D12GraphicsCommandList *list, const wchar_t *text)
{
    ID3D12GraphicsCommandList_BeginEvent(list, 0, text, (UINT)((wcslen(text) + 1) * sizeof(wchar_t)));
}

static void marker(ID3D12GraphicsCommandList *list, const char *node_name)
{
    wchar_t text[64];
    swprintf(text, 64, L"node '%s'", node_name);
    ID3D12GraphicsCommandList_SetMarker(list, 0, text, (UINT)((wcslen(text) + 1) * sizeof(wchar_t)));
}

/* Every node with a mesh: bind its mesh's slot of the geometry pool and draw it. */
static void record_frame(ID3D12GraphicsCommandList *list, ID3D12Resource *geometry, scene_node **nodes, size_t count)
{
    D3D12_GPU_VIRTUAL_ADDRESS pool = ID3D12Resource_GetGPUVirtualAddress(geometry);
    event_begin(list, L"Frame 1");
    event_begin(list, L"Scene graph");
    for (size_t i = 0; i < count; i++) {
        const scene_node *node = nodes[i];
        if (node->mesh_index == -1)
            continue;  /* the renderer trusts the field: 0xCDCDCDCD is not -1 */
        marker(list, node->name);
        D3D12_GPU_VIRTUAL_ADDRESS slot = pool + (UINT64)node->mesh_index * MESH_SLOT;
        D3D12_VERTEX_BUFFER_VIEW vbv = {slot, CUBE_VERTICES * 3 * sizeof(float), 3 * sizeof(float)};
        D3D12_INDEX_BUFFER_VIEW ibv = {slot + INDEX_OFFSET, CUBE_INDICES * sizeof(UINT16), DXGI_FORMAT_R16_UINT};
        ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &vbv);
        ID3D12GraphicsCommandList_IASetIndexBuffer(list, &ibv);
        ID3D12GraphicsCommandList_DrawIndexedInstanced(list, CUBE_INDICES, node->instance_count, 0, 0, 0);
    }
    ID3D12GraphicsCommandList_EndEvent(list);
    ID3D12GraphicsCommandList_EndEvent(list);
}

static bool wait_for(ID3D12Fence *fence, UINT64 value, int timeout_ms)
{
    int event = eventfd(0, EFD_CLOEXEC);
    if (event < 0)
        return false;
    bool signalled = false;
    if (SUCCEEDED(ID3D12Fence_SetEventOnCompletion(fence, value, (HANDLE)(intptr_t)event))) {
        struct pollfd waiting = {event, POLLIN, 0};
        uint64_t count;
        signalled = poll(&waiting, 1, timeout_ms) == 1 && read(event, &count, sizeof count) == sizeof count;
    }
    close(event);
    return signalled;
}

/* ---- DRED through the Windows interfaces (the case study's MyDeviceRemovedHandler) -------------------------- */

static const char *op_name(D3D12_AUTO_BREADCRUMB_OP op)
{
    static char number[16];
    switch (op) {
    case D3D12_AUTO_BREADCRUMB_OP_SETMARKER: return "SETMARKER";
    case D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT: return "BEGINEVENT";
    case D3D12_AUTO_BREADCRUMB_OP_ENDEVENT: return "ENDEVENT";
    case D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED: return "DRAWINDEXEDINSTANCED";
    default: snprintf(number, sizeof number, "%u", (unsigned)op); return number;
    }
}

static void print_dred(ID3D12Device *device)
{
    ID3D12DeviceRemovedExtendedData2 *dred = NULL;
    if (FAILED(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData2, (void **)&dred)))
        return;
    static const char *const states[] = {[0] = "UNKNOWN", [3] = "HUNG", [6] = "FAULT", [7] = "PAGEFAULT"};
    D3D12_DRED_DEVICE_STATE state = ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred);
    printf("DRED: device state %s\n", state <= 7 && states[state] ? states[state] : "?");
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 crumbs = {0};
    if (SUCCEEDED(ID3D12DeviceRemovedExtendedData2_GetAutoBreadcrumbsOutput1(dred, &crumbs))) {
        printf("DRED: Last tracked GPU operations:\n");
        for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = crumbs.pHeadAutoBreadcrumbNode; n; n = n->pNext) {
            UINT completed = *n->pLastBreadcrumbValue;
            printf("DRED: Commandlist \"%ls\" on CommandQueue \"%ls\", %u completed of %u\n",
                   n->pCommandListDebugNameW ? n->pCommandListDebugNameW : L"?",
                   n->pCommandQueueDebugNameW ? n->pCommandQueueDebugNameW : L"?", completed, n->BreadcrumbCount);
            for (UINT op = 0; op < n->BreadcrumbCount && op < 65536; op++)
                printf("\tOp: %u, %s%s\n", op, op_name(n->pCommandHistory[op]),
                       op + 1 == completed ? " - LAST COMPLETED" : op == completed ? " - FIRST OUTSTANDING" : "");
        }
    }
    D3D12_DRED_PAGE_FAULT_OUTPUT2 fault = {0};
    if (SUCCEEDED(ID3D12DeviceRemovedExtendedData2_GetPageFaultAllocationOutput2(dred, &fault))) {
        if (fault.PageFaultVA) {
            printf("DRED: PageFault at VA GPUAddress \"0x%llx\"\n", (unsigned long long)fault.PageFaultVA);
            printf("DRED: Active objects with VA ranges that match the faulting VA:%s\n",
                   fault.pHeadExistingAllocationNode ? "" : " none");
            for (const D3D12_DRED_ALLOCATION_NODE1 *a = fault.pHeadExistingAllocationNode; a; a = a->pNext)
                printf("\tName: %ls\n", a->ObjectNameW ? a->ObjectNameW : L"?");
            printf("DRED: Recent freed objects with VA ranges that match the faulting VA:%s\n",
                   fault.pHeadRecentFreedAllocationNode ? "" : " none");
            for (const D3D12_DRED_ALLOCATION_NODE1 *a = fault.pHeadRecentFreedAllocationNode; a; a = a->pNext)
                printf("\tName: %ls\n", a->ObjectNameW ? a->ObjectNameW : L"?");
        } else {
            printf("DRED: No PageFault data.\n");
        }
    }
    ID3D12DeviceRemovedExtendedData2_Release(dred);
}

/* ---- The report d12rt wrote ------------------------------------------------------------------------------- */

/* The one report file in `dir` (d12rt writes exactly one per removal). */
static bool find_report(const char *dir, char *path, size_t size)
{
    DIR *folder = opendir(dir);
    if (!folder)
        return false;
    unsigned found = 0;
    for (struct dirent *entry; (entry = readdir(folder)) != NULL;) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".json") == 0 && found++ == 0)
            snprintf(path, size, "%s/%s", dir, entry->d_name);
    }
    closedir(folder);
    return found == 1;
}

/* The faulting op the report names (exact, else suspect) and whether it is the draw of the broken node. */
static const d12dred_op *blamed_op(const d12dred_report *report, const d12dred_node **node_out)
{
    for (int pass = 0; pass < 2; pass++) {
        d12dred_attribution wanted = pass == 0 ? D12DRED_ATTRIBUTION_EXACT : D12DRED_ATTRIBUTION_SUSPECT;
        for (size_t i = 0; i < report->node_count; i++)
            for (size_t j = 0; j < report->nodes[i]->op_count; j++)
                if (report->nodes[i]->ops[j].attribution == wanted) {
                    *node_out = report->nodes[i];
                    return &report->nodes[i]->ops[j];
                }
    }
    return NULL;
}

static bool show_report(const char *dir, bool hang, bool remove_file)
{
    char path[1024];
    if (!find_report(dir, path, sizeof path)) {
        printf("dred_demo: no single report in %s\n", dir);
        return false;
    }
    d12dred_report *report = NULL;
    char error[256];
    if (d12dred_report_read_json(path, &report, error, sizeof error) != 0) {
        printf("dred_demo: %s: %s\n", path, error);
        return false;
    }
    printf("\n$ d12dred show %s\n", path);
    fflush(stdout);
    d12dred_report_render(report, stdout);
    const d12dred_node *node = NULL;
    const d12dred_op *op = blamed_op(report, &node);
    bool ok = op && op->op == D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED && node->list &&
              strcmp(node->list, "Scene list") == 0 && op->context == NULL;
    if (hang) {
        ok = ok && report->device_state == D3D12_DRED_DEVICE_STATE_HUNG && report->page_fault == NULL;
    } else {
        const d12dred_page_fault *pf = report->page_fault;
        ok = ok && report->device_state == D3D12_DRED_DEVICE_STATE_PAGEFAULT && op->attribution ==
             D12DRED_ATTRIBUTION_EXACT && pf && pf->existing_count == 0 && pf->below && pf->below->name &&
             strcmp(pf->below->name, "Geometry pool") == 0;
    }
    printf("\ndred_demo: the report %s the DrawIndexedInstanced of the broken node\n", ok ? "names" : "DOES NOT name");
    d12dred_report_free(report);
    if (remove_file)  /* a D12RT_DRED_DUMP folder the user chose keeps its report */
        unlink(path);
    return ok;
}

/* ---- main -------------------------------------------------------------------------------------------------- */

static void enable_dred(void)
{
    /* The case study: breadcrumbs and page-fault reporting must be on before the device exists. */
    ID3D12DeviceRemovedExtendedDataSettings1 *settings = NULL;
    if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings1, (void **)&settings))) {
        ID3D12DeviceRemovedExtendedDataSettings1_SetAutoBreadcrumbsEnablement(settings, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_SetPageFaultEnablement(settings, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_SetBreadcrumbContextEnablement(settings,
                                                                                D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_Release(settings);
    }
    /* The driver's own messages, correlated to the draw (driver-reported-messages.txt). */
    ID3D12Debug7 *debug = NULL;
    if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
}

int main(int argc, char **argv)
{
    bool hang = argc > 1 && strcmp(argv[1], "--hang") == 0;
    if (argc > 2 || (argc == 2 && !hang)) {
        fprintf(stderr, "usage: dred_demo [--hang]\n");
        return 2;
    }
    char own_dir[] = "/tmp/dred_demo_XXXXXX";
    const char *dump_dir = getenv("D12RT_DRED_DUMP");
    bool made_dir = !dump_dir || !*dump_dir;
    if (made_dir) {
        if (!mkdtemp(own_dir))
            return 1;
        setenv("D12RT_DRED_DUMP", own_dir, 1);
        dump_dir = own_dir;
    }
    if (hang)
        setenv("D12RT_TDR_DELAY_MS", "300", 0);
    enable_dred();

    ID3D12Device *device = NULL;
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_12_0, &IID_ID3D12Device, (void **)&device))) {
        fprintf(stderr, "dred_demo: D3D12CreateDevice failed\n");
        return 1;
    }
    ID3D12InfoQueue1 *iq = NULL;
    DWORD cookie = 0;
    if (SUCCEEDED(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&iq)))
        ID3D12InfoQueue1_RegisterMessageCallback(iq, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &cookie);

    D3D12_COMMAND_QUEUE_DESC queue_desc = {.Type = D3D12_COMMAND_LIST_TYPE_DIRECT};
    ID3D12CommandQueue *queue = NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    if (FAILED(ID3D12Device_CreateCommandQueue(device, &queue_desc, &IID_ID3D12CommandQueue, (void **)&queue)) ||
        FAILED(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                   (void **)&allocator)) ||
        FAILED(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                              &IID_ID3D12GraphicsCommandList, (void **)&list)) ||
        FAILED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence))) {
        fprintf(stderr, "dred_demo: creating the queue, allocator, list or fence failed\n");
        return 1;
    }
    ID3D12CommandQueue_SetName(queue, L"Direct queue");
    ID3D12GraphicsCommandList_SetName(list, L"Scene list");
    ID3D12Fence_SetName(fence, L"Frame fence");

    /* Load the scene on a second thread, as the glTF viewer does. */
    loader l = {device, hang ? k_hang_scene : k_scene, hang ? 3 : 4, NULL, NULL, false};
    pthread_t thread;
    if (pthread_create(&thread, NULL, load_scene, &l) != 0 || pthread_join(thread, NULL) != 0 || !l.ok) {
        fprintf(stderr, "dred_demo: loading the scene failed\n");
        return 1;
    }
    for (size_t i = 0; i < l.count; i++)
        printf("loaded node %-14s parent %2d  mesh_index %11d  instance_count %u\n", l.nodes[i]->name,
               l.nodes[i]->parent_index, l.nodes[i]->mesh_index, l.nodes[i]->instance_count);

    record_frame(list, l.geometry, l.nodes, l.count);
    bool ok = SUCCEEDED(ID3D12GraphicsCommandList_Close(list));
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
    ID3D12CommandQueue_Signal(queue, fence, 1);
    /* The frame's fence: after a removal every fence reads UINT64_MAX, so the wait ends either way. */
    ok = wait_for(fence, 1, 20000) && ok;

    HRESULT reason = ID3D12Device_GetDeviceRemovedReason(device);
    printf("removal reason: %s (0x%08x)\n", reason == DXGI_ERROR_DEVICE_HUNG ? "DXGI_ERROR_DEVICE_HUNG"
                                            : reason == S_OK                  ? "S_OK (not removed)"
                                                                              : "another HRESULT",
           (unsigned)reason);
    print_dred(device);

    ok = ok && reason == DXGI_ERROR_DEVICE_HUNG && g_removal_message[0];
    if (!hang)  /* the driver names the draw it faulted in (a hang has no driver finding) */
        ok = ok && strstr(g_driver_message, "'Scene list'") && strstr(g_driver_message, "Page fault");

    if (iq) {
        ID3D12InfoQueue1_UnregisterMessageCallback(iq, cookie);
        ID3D12InfoQueue1_Release(iq);
    }
    ID3D12Fence_Release(fence);
    ID3D12GraphicsCommandList_Release(list);
    ID3D12CommandAllocator_Release(allocator);
    ID3D12CommandQueue_Release(queue);
    ID3D12Resource_Release(l.geometry);
    ID3D12Device_Release(device);  /* the report is complete before the last Release returns */
    for (size_t i = 0; i < l.count; i++)
        free(l.nodes[i]);
    free(l.nodes);

    ok = show_report(dump_dir, hang, made_dir) && ok;
    if (made_dir)
        rmdir(own_dir);
    printf("dred_demo: %s\n", ok ? "the removal is explained" : "SOMETHING IS MISSING (see above)");
    return ok ? 0 : 1;
}
