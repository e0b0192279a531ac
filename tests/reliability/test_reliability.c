/* Reliability cases of issue 12 item 1, through libd12rt's public ABI: NULL riids on every generated object and
 * interface, what each method answers after removal, committed-buffer description validation. One process per case
 * (debug settings and removal are process-wide); each ends with `N passed, N failed`. */
#define _GNU_SOURCE
#define COBJMACROS
#include "gpu_harness.h"

#include <d12rt/d3d12_ext.h>

#include "com_interfaces.h" /* generated/tests: every object and IID of spec/com.yaml */

/* ======== NULL riid on every object and interface ======== */

/* One object of each spec/com.yaml kind, as IUnknown (a reference the caller releases); NULL when the kind is
 * unknown here, which fails the walk: a new object in spec/com.yaml needs a creator. */
typedef struct walk_objects {
    ID3D12Device *device;
    gpu_context ctx;
    ID3D12Resource *resource;
} walk_objects;

static IUnknown *object_of_kind(walk_objects *objects, const char *kind)
{
    IUnknown *object = NULL;
    if (strcmp(kind, "debug") == 0)
        D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&object);
    else if (strcmp(kind, "dred_settings") == 0)
        D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&object);
    else if (strcmp(kind, "device") == 0)
        object = (IUnknown *)objects->device;
    else if (strcmp(kind, "command_queue") == 0)
        object = (IUnknown *)objects->ctx.queue;
    else if (strcmp(kind, "command_allocator") == 0)
        object = (IUnknown *)objects->ctx.allocator;
    else if (strcmp(kind, "command_list") == 0)
        object = (IUnknown *)objects->ctx.list;
    else if (strcmp(kind, "fence") == 0)
        object = (IUnknown *)objects->ctx.fence;
    else if (strcmp(kind, "resource") == 0)
        object = (IUnknown *)objects->resource;
    else
        return NULL;
    if (object && strcmp(kind, "debug") != 0 && strcmp(kind, "dred_settings") != 0)
        IUnknown_AddRef(object);
    return object;
}

/* QueryInterface(NULL riid) through one interface pointer: E_POINTER, the out pointer NULL; GetDevice(NULL riid)
 * too for device children (docs/device.md "COM objects"). */
static void check_null_riid(IUnknown *iface, const d12_com_interface_entry *entry)
{
    void *out = (void *)1;
    if (!CHECK_HR(iface->lpVtbl->QueryInterface(iface, NULL, &out), E_POINTER))
        fprintf(stderr, "    QueryInterface through %s\n", entry->name);
    CHECK(out == NULL);
    CHECK_HR(iface->lpVtbl->QueryInterface(iface, NULL, NULL), E_POINTER);
    if (entry->device_child) {
        ID3D12DeviceChild *child = (ID3D12DeviceChild *)iface;
        out = (void *)1;
        if (!CHECK_HR(ID3D12DeviceChild_GetDevice(child, NULL, &out), E_POINTER))
            fprintf(stderr, "    GetDevice through %s\n", entry->name);
        CHECK(out == NULL);
        CHECK_HR(ID3D12DeviceChild_GetDevice(child, NULL, NULL), E_POINTER);
    }
}

static void test_null_riid_every_interface(void)
{
    walk_objects objects = {0};
    objects.device = create_device(true); /* the debug layer: the device's InfoQueue group is exposed */
    if (!objects.device || !make_context(objects.device, D3D12_COMMAND_LIST_TYPE_DIRECT, &objects.ctx))
        return;
    objects.resource = make_buffer(objects.device, D3D12_HEAP_TYPE_UPLOAD, 256);
    unsigned walked = 0;
    for (size_t o = 0; o < sizeof(d12_com_objects) / sizeof(d12_com_objects[0]); o++) {
        const d12_com_object_entry *kind = &d12_com_objects[o];
        IUnknown *object = object_of_kind(&objects, kind->name);
        if (!CHECK(object != NULL)) {
            fprintf(stderr, "    no creator for object kind %s (tests/reliability/test_reliability.c)\n", kind->name);
            continue;
        }
        check_null_riid(object, &(d12_com_interface_entry){"IUnknown", &IID_IUnknown, 0, 0});
        for (unsigned i = 0; i < kind->count; i++) {
            const d12_com_interface_entry *entry = &kind->interfaces[i];
            IUnknown *iface = NULL;
            if (!CHECK_HR(IUnknown_QueryInterface(object, entry->iid, (void **)&iface), S_OK)) {
                fprintf(stderr, "    %s of %s\n", entry->name, kind->name);
                continue;
            }
            check_null_riid(iface, entry);
            IUnknown_Release(iface);
            walked++;
        }
        IUnknown_Release(object);
    }
    CHECK(walked >= 40); /* the production spec has 57 interfaces; a walk that found none proves nothing */
    if (objects.resource)
        RELEASE_LAST(objects.resource);
    release_context(&objects.ctx);
    RELEASE_LAST(objects.device);
}

/* The creation entry points: a NULL riid is E_INVALIDARG with the out pointer NULL (docs/device.md). */
static void test_null_riid_create(void)
{
    void *out = (void *)1;
    CHECK_HR(D3D12GetDebugInterface(NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    /* D3D12CreateDevice's argument checks are fid-caps' (it leaves *ppDevice as it was): only no crash here. */
    out = NULL;
    CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    D3D12_COMMAND_QUEUE_DESC qdesc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    out = (void *)1;
    CHECK_HR(ID3D12Device_CreateCommandQueue(device, &qdesc, NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    out = (void *)1;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    out = (void *)1;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, NULL, &out), E_INVALIDARG);
    CHECK(out == NULL);
    D3D12_HEAP_PROPERTIES heap = {.Type = D3D12_HEAP_TYPE_DEFAULT};
    D3D12_RESOURCE_DESC desc = buffer_desc(256);
    out = (void *)1;
    CHECK_HR(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                  D3D12_RESOURCE_STATE_COMMON, NULL, NULL, &out),
             E_INVALIDARG);
    CHECK(out == NULL);
    ID3D12CommandAllocator *allocator = NULL;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                 (void **)&allocator),
             S_OK);
    out = (void *)1;
    CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL, NULL, &out),
             E_INVALIDARG);
    CHECK(out == NULL);
    RELEASE_LAST(allocator);
    RELEASE_LAST(device);
}

/* ======== dispatch ======== */

typedef struct {
    const char *name;
    void (*run)(void);
} test_case;

static const test_case cases[] = {
    {"null_riid_every_interface", test_null_riid_every_interface},
    {"null_riid_create", test_null_riid_create},
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (strcmp(cases[i].name, argv[1]) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
