/* Reliability cases of issue 12 item 1, through libd12rt's public ABI: NULL riids on every generated object and
 * interface, what each method answers after removal, committed-buffer description validation. One process per case
 * (debug settings and removal are process-wide); each ends with `N passed, N failed`. */
#define _GNU_SOURCE
#define COBJMACROS
#include "d12_shaders.h"
#include "gpu_harness.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

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

/* Root signature objects (runtime/rootsig/, runtime/gpu/root_signature.c): an empty root signature's blob, its
 * deserializer, or the device's root signature made from it. */
static IUnknown *root_signature_object(ID3D12Device *device, const char *kind)
{
    D3D12_ROOT_SIGNATURE_DESC desc = {0};
    ID3DBlob *blob = NULL;
    IUnknown *deserializer = NULL;
    if (FAILED(D3D12SerializeRootSignature(&desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL)))
        return NULL;
    if (strcmp(kind, "blob") == 0)
        return (IUnknown *)blob;
    if (strcmp(kind, "root_signature") == 0) {
        IUnknown *signature = NULL;
        ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob),
                                         &IID_ID3D12RootSignature, (void **)&signature);
        ID3D10Blob_Release(blob);
        return signature;
    }
    D3D12CreateVersionedRootSignatureDeserializer(ID3D10Blob_GetBufferPointer(blob), ID3D10Blob_GetBufferSize(blob),
                                                  &IID_ID3D12VersionedRootSignatureDeserializer,
                                                  (void **)&deserializer);
    ID3D10Blob_Release(blob);
    return deserializer;
}

/* A compute pipeline state from the assembler's raw_fill (its root signature from the shader's RTS0). */
static IUnknown *pipeline_state_object(ID3D12Device *device)
{
    for (size_t i = 0; i < D12_SHADER_COUNT; i++) {
        if (strcmp(d12_shaders[i].name, "raw_fill") != 0)
            continue;
        D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {NULL, {d12_shaders[i].code, d12_shaders[i].size}, 0, {NULL, 0},
                                                  D3D12_PIPELINE_STATE_FLAG_NONE};
        IUnknown *object = NULL;
        ID3D12Device_CreateComputePipelineState(device, &desc, &IID_ID3D12PipelineState, (void **)&object);
        return object;
    }
    return NULL;
}

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
    else if (strcmp(kind, "blob") == 0 || strcmp(kind, "rootsig_deserializer") == 0 ||
             strcmp(kind, "root_signature") == 0)
        return root_signature_object(objects->device, kind); /* its own reference */
    else if (strcmp(kind, "descriptor_heap") == 0) {
        D3D12_DESCRIPTOR_HEAP_DESC desc = {D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 4, D3D12_DESCRIPTOR_HEAP_FLAG_NONE, 0};
        ID3D12Device_CreateDescriptorHeap(objects->device, &desc, &IID_ID3D12DescriptorHeap, (void **)&object);
        return object; /* its own reference */
    } else if (strcmp(kind, "heap") == 0) {
        D3D12_HEAP_DESC desc = {65536, {.Type = D3D12_HEAP_TYPE_DEFAULT}, 0, D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS};
        ID3D12Device_CreateHeap(objects->device, &desc, &IID_ID3D12Heap, (void **)&object);
        return object; /* its own reference */
    }
    else if (strcmp(kind, "pipeline_state") == 0)
        return pipeline_state_object(objects->device); /* its own reference */
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
    D3D12_ROOT_SIGNATURE_DESC empty = {0};
    ID3DBlob *blob = NULL;
    CHECK_HR(D3D12SerializeRootSignature(&empty, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, NULL), S_OK);
    out = (void *)1;
    if (blob) {
        CHECK_HR(ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob),
                                                  ID3D10Blob_GetBufferSize(blob), NULL, &out),
                 E_INVALIDARG);
        ID3D10Blob_Release(blob);
    }
    CHECK(out == NULL);
    RELEASE_LAST(allocator);
    RELEASE_LAST(device);
}

/* ======== registry paths that are no regular file ======== */

/* The kind of thing the registry path names. */
typedef enum { HIVE_FIFO, HIVE_DIRECTORY, HIVE_SOCKET } hive_kind;

static char hive_dir[64];

static bool make_hive(const char *path, hive_kind kind)
{
    switch (kind) {
    case HIVE_FIFO:
        return CHECK(mkfifo(path, 0600) == 0);
    case HIVE_DIRECTORY:
        return CHECK(mkdir(path, 0700) == 0);
    case HIVE_SOCKET: {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        if (!CHECK(strlen(path) < sizeof addr.sun_path))
            return false;
        memcpy(addr.sun_path, path, strlen(path) + 1);
        return CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0); /* fd kept open: a live socket */
    }
    }
    return false;
}

/* D3D12CreateDevice with the hives named by the environment as set: it must return (SIGALRM kills the test if it
 * blocks), succeed, and say on stderr that the hive at `path` is read as empty. */
static void check_device_creation_unblocked(const char *path, const char *why)
{
    char log_path[96];
    snprintf(log_path, sizeof log_path, "%s/stderr.txt", hive_dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *log = fopen(log_path, "w+");
    if (!CHECK(log != NULL))
        return;
    dup2(fileno(log), 2);
    alarm(20);
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    alarm(0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[4096] = {0};
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = '\0';
    fclose(log);
    CHECK_HR(hr, S_OK);
    if (device)
        RELEASE_LAST(device);
    char expected[512];
    snprintf(expected, sizeof expected, "%s: warning: %s", path, why);
    if (!CHECK(strstr(text, expected) != NULL))
        fprintf(stderr, "    stderr was: %s\n    expected: %s\n", text, expected);
}

static bool make_hive_dir(void)
{
    snprintf(hive_dir, sizeof hive_dir, "/tmp/d12rt-hive-XXXXXX");
    return CHECK(mkdtemp(hive_dir) != NULL);
}

/* `variable` (D12RT_HKCU or D12RT_HKLM) names a `kind`; the other hive is absent. */
static void check_hive_variable(const char *variable, hive_kind kind, const char *why)
{
    if (!make_hive_dir())
        return;
    char path[128], absent[128];
    snprintf(path, sizeof path, "%s/hive.reg", hive_dir);
    snprintf(absent, sizeof absent, "%s/absent.reg", hive_dir);
    if (!make_hive(path, kind))
        return;
    setenv("D12RT_HKCU", strcmp(variable, "D12RT_HKCU") == 0 ? path : absent, 1);
    setenv("D12RT_HKLM", strcmp(variable, "D12RT_HKLM") == 0 ? path : absent, 1);
    check_device_creation_unblocked(path, why);
    unlink(path);
    rmdir(path);
}

static void test_registry_fifo_hkcu(void)
{
    check_hive_variable("D12RT_HKCU", HIVE_FIFO, "not a regular file");
}

static void test_registry_fifo_hklm(void)
{
    check_hive_variable("D12RT_HKLM", HIVE_FIFO, "not a regular file");
}

/* The default user hive, $XDG_CONFIG_HOME/d12rt/user.reg, is a FIFO. */
static void test_registry_fifo_default_user(void)
{
    if (!make_hive_dir())
        return;
    char sub[128], path[160], absent[128];
    snprintf(sub, sizeof sub, "%s/d12rt", hive_dir);
    snprintf(path, sizeof path, "%s/user.reg", sub);
    snprintf(absent, sizeof absent, "%s/absent.reg", hive_dir);
    if (!CHECK(mkdir(sub, 0700) == 0) || !make_hive(path, HIVE_FIFO))
        return;
    unsetenv("D12RT_HKCU");
    setenv("XDG_CONFIG_HOME", hive_dir, 1);
    setenv("D12RT_HKLM", absent, 1);
    check_device_creation_unblocked(path, "not a regular file");
    unlink(path);
}

static void test_registry_directory(void)
{
    check_hive_variable("D12RT_HKCU", HIVE_DIRECTORY, "not a regular file");
}

static void test_registry_socket(void)
{
    check_hive_variable("D12RT_HKLM", HIVE_SOCKET, "cannot open");
}

/* /dev/zero: endless data; a character device is never read. */
static void test_registry_dev_zero(void)
{
    if (!make_hive_dir())
        return;
    char absent[128];
    snprintf(absent, sizeof absent, "%s/absent.reg", hive_dir);
    setenv("D12RT_HKCU", "/dev/zero", 1);
    setenv("D12RT_HKLM", absent, 1);
    check_device_creation_unblocked("/dev/zero", "not a regular file");
}

/* ======== committed-buffer description bits ======== */

static HRESULT try_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, D3D12_HEAP_FLAGS heap_flags, UINT64 alignment,
                          D3D12_RESOURCE_FLAGS flags, D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {.Type = type};
    D3D12_RESOURCE_DESC desc = buffer_desc(4096);
    desc.Alignment = alignment;
    desc.Flags = flags;
    ID3D12Resource *resource = (ID3D12Resource *)1;
    HRESULT hr = ID3D12Device_CreateCommittedResource(device, &heap, heap_flags, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (SUCCEEDED(hr)) {
        D3D12_RESOURCE_DESC got = ID3D12Resource_GetDesc(resource);
        CHECK_EQ_INT(got.Alignment, alignment);
        CHECK_EQ_INT(got.Flags, flags);
        RELEASE_LAST(resource);
    } else {
        CHECK(resource == NULL);
    }
    return hr;
}

/* A rejected description: E_INVALIDARG and exactly one message `id`. */
#define CHECK_REJECTED(device, queue, id, ...)                                                                        \
    do {                                                                                                              \
        ID3D12InfoQueue_ClearStoredMessages(queue);                                                                   \
        CHECK_HR(try_buffer(device, __VA_ARGS__), E_INVALIDARG);                                                      \
        check_one_message(queue, id, NULL, __FILE__, __LINE__, #id);                                                  \
    } while (0)

static void test_buffer_alignment(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *queue = device ? info_queue_of(device) : NULL;
    if (!queue)
        return;
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 0, 0, 0, D3D12_RESOURCE_STATE_GENERIC_READ), S_OK);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 0, 65536, 0, D3D12_RESOURCE_STATE_GENERIC_READ), S_OK);
    const UINT64 bad[] = {1, 256, 4096, 65535, 131072, 4194304, UINT64_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_REJECTED(device, queue, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDALIGNMENT, D3D12_HEAP_TYPE_UPLOAD, 0,
                       bad[i], 0, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12InfoQueue_Release(queue);
    RELEASE_LAST(device);
}

static void test_buffer_flags(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *queue = device ? info_queue_of(device) : NULL;
    if (!queue)
        return;
    /* Known flags stay accepted. */
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 0, 0, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                        D3D12_RESOURCE_STATE_COMMON), S_OK);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_FLAG_CREATE_NOT_ZEROED, 0,
                        D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE, D3D12_RESOURCE_STATE_COMMON), S_OK);
    const UINT bad_resource[] = {0x200, 0x400, 0x80000000u};
    for (size_t i = 0; i < sizeof bad_resource / sizeof bad_resource[0]; i++)
        CHECK_REJECTED(device, queue, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDMISCFLAGS, D3D12_HEAP_TYPE_DEFAULT, 0, 0,
                       (D3D12_RESOURCE_FLAGS)bad_resource[i], D3D12_RESOURCE_STATE_COMMON);
    const UINT bad_heap[] = {0x2, 0x10, 0x4000, 0x80000000u};
    for (size_t i = 0; i < sizeof bad_heap / sizeof bad_heap[0]; i++)
        CHECK_REJECTED(device, queue, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALIDHEAPMISCFLAGS,
                       D3D12_HEAP_TYPE_DEFAULT, (D3D12_HEAP_FLAGS)bad_heap[i], 0, 0, D3D12_RESOURCE_STATE_COMMON);
    ID3D12InfoQueue_Release(queue);
    RELEASE_LAST(device);
}

#define MSG_STATE_IGNORED D3D12_MESSAGE_ID_CREATERESOURCE_STATE_IGNORED

static void test_buffer_initial_state(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *queue = device ? info_queue_of(device) : NULL;
    if (!queue)
        return;
    /* Bits that are no state: refused (project message 0x10400), on every heap type. */
    const UINT bad[] = {0x4000, 0x8000, 0x100000, 0x2000000, 0x80000000u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_REJECTED(device, queue, (D3D12_MESSAGE_ID)0x10400, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0,
                       (D3D12_RESOURCE_STATES)bad[i]);
        CHECK_REJECTED(device, queue, (D3D12_MESSAGE_ID)0x10400, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0,
                       (D3D12_RESOURCE_STATES)(bad[i] | D3D12_RESOURCE_STATE_COPY_DEST));
    }
    /* DEFAULT: COMMON quietly; any other valid state accepted, ignored, with warning #1328 naming it. */
    ID3D12InfoQueue_ClearStoredMessages(queue);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0, D3D12_RESOURCE_STATE_COMMON), S_OK);
    CHECK_EQ_INT(count_id(queue, MSG_STATE_IGNORED, NULL, NULL), 0);
    message_info info = {0};
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0, D3D12_RESOURCE_STATE_COPY_DEST), S_OK);
    CHECK_EQ_INT(count_id(queue, MSG_STATE_IGNORED,
                          "Ignoring InitialState D3D12_RESOURCE_STATE_COPY_DEST. Buffers are effectively created in "
                          "state D3D12_RESOURCE_STATE_COMMON.", &info), 1);
    CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_WARNING);
    CHECK_EQ_INT(info.category, D3D12_MESSAGE_CATEGORY_STATE_CREATION);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0, D3D12_RESOURCE_STATE_GENERIC_READ), S_OK);
    CHECK_EQ_INT(count_id(queue, MSG_STATE_IGNORED, "InitialState D3D12_RESOURCE_STATE_GENERIC_READ.", NULL), 1);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, 0, 0, 0,
                        D3D12_RESOURCE_STATE_COPY_DEST | D3D12_RESOURCE_STATE_UNORDERED_ACCESS), S_OK);
    CHECK_EQ_INT(count_id(queue, MSG_STATE_IGNORED, "InitialState 0x408.", NULL), 1);
    /* UPLOAD and READBACK keep their required states, without the warning. */
    ID3D12InfoQueue_ClearStoredMessages(queue);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 0, 0, 0, D3D12_RESOURCE_STATE_GENERIC_READ), S_OK);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_READBACK, 0, 0, 0, D3D12_RESOURCE_STATE_COPY_DEST), S_OK);
    CHECK_EQ_INT(count_id(queue, MSG_STATE_IGNORED, NULL, NULL), 0);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 0, 0, 0, D3D12_RESOURCE_STATE_COPY_DEST), E_INVALIDARG);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_READBACK, 0, 0, 0, D3D12_RESOURCE_STATE_GENERIC_READ), E_INVALIDARG);
    ID3D12InfoQueue_Release(queue);
    RELEASE_LAST(device);
}

/* ======== what each method answers after removal (docs/device.md "Removal") ======== */

/* Removes the device the way the debug layer does: EnableDebugLayer while it is alive (DXGI_ERROR_INVALID_CALL). */
static bool remove_device(ID3D12Device *device)
{
    ID3D12Debug *debug = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug), S_OK))
        return false;
    ID3D12Debug_EnableDebugLayer(debug);
    ID3D12Debug_Release(debug);
    return CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
}

static void test_removal_returns(void)
{
    ID3D12Device *device = create_device(true);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *mapped = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12CommandAllocator *allocator2 = NULL;
    ID3D12GraphicsCommandList *closed = NULL;
    CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                 (void **)&allocator2), S_OK);
    CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator2, NULL,
                                            &IID_ID3D12GraphicsCommandList, (void **)&closed), S_OK);
    if (!upload || !mapped || !closed)
        return;
    CHECK_HR(ID3D12GraphicsCommandList_Close(closed), S_OK);
    void *data = NULL;
    CHECK_HR(ID3D12Resource_Map(mapped, 0, NULL, &data), S_OK);
    if (!remove_device(device))
        return;

    /* Methods that can fail say DXGI_ERROR_DEVICE_REMOVED. */
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), E_FAIL); /* closed all the same */
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx.allocator), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(closed, allocator2, NULL), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_HR(ID3D12GraphicsCommandList_Close(closed), E_FAIL); /* the failed Reset left it closed */
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, ctx.fence, 1), DXGI_ERROR_DEVICE_REMOVED);
    void *object = (void *)1;
    D3D12_COMMAND_QUEUE_DESC qdesc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    CHECK_HR(ID3D12Device_CreateCommandQueue(device, &qdesc, &IID_ID3D12CommandQueue, &object),
             DXGI_ERROR_DEVICE_REMOVED);
    CHECK(object == NULL);
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, &object),
             DXGI_ERROR_DEVICE_REMOVED);
    CHECK_HR(create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256, (ID3D12Resource **)&object), DXGI_ERROR_DEVICE_REMOVED);
    D3D12_FEATURE_DATA_D3D12_OPTIONS options;
    CHECK_HR(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options),
             DXGI_ERROR_DEVICE_REMOVED);

    /* What touches no GPU state keeps working: names and private data (DRED users name objects after removal),
     * QueryInterface, GetDevice, Unmap of a buffer mapped before. */
    CHECK_HR(ID3D12Resource_SetName(upload, L"after removal"), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_SetName(ctx.list, L"after removal"), S_OK);
    CHECK_HR(ID3D12CommandAllocator_SetName(ctx.allocator, L"after removal"), S_OK);
    CHECK_HR(ID3D12CommandQueue_SetName(ctx.queue, L"after removal"), S_OK);
    CHECK_HR(ID3D12Fence_SetName(ctx.fence, L"after removal"), S_OK);
    CHECK_HR(ID3D12Device_SetName(device, L"after removal"), S_OK);
    static const GUID key = {0x7d1f, 0x1, 0x2, {1, 2, 3, 4, 5, 6, 7, 8}};
    CHECK_HR(ID3D12Resource_SetPrivateData(upload, &key, 4, "abc"), S_OK);
    ID3D12Device *got = NULL;
    CHECK_HR(ID3D12Resource_GetDevice(upload, &IID_ID3D12Device, (void **)&got), S_OK);
    if (got)
        ID3D12Device_Release(got);
    ID3D12Resource *again = NULL;
    CHECK_HR(ID3D12Resource_QueryInterface(upload, &IID_ID3D12Resource, (void **)&again), S_OK);
    if (again)
        ID3D12Resource_Release(again);
    ID3D12Resource_Unmap(mapped, 0, NULL);
    /* Map keeps mapping: the memory is still there to be read back (docs/device.md). */
    data = NULL;
    CHECK_HR(ID3D12Resource_Map(upload, 0, NULL, &data), S_OK);
    CHECK(data != NULL);
    ID3D12Resource_Unmap(upload, 0, NULL);

    /* Fences: every one reads UINT64_MAX; SetEventOnCompletion(UINT64_MAX) is the documented way to hear of a
     * removal, so it succeeds and fires. */
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), (long long)UINT64_MAX);
    int fd = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, UINT64_MAX, as_handle(fd)), S_OK);
    CHECK(fired(fd, WAIT_MS, NULL));
    close(fd);
    CHECK_HR(ID3D12Fence_Signal(ctx.fence, 5), S_OK);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(ctx.fence), (long long)UINT64_MAX);

    RELEASE_LAST(closed);
    RELEASE_LAST(allocator2);
    RELEASE_LAST(upload);
    RELEASE_LAST(mapped);
    release_context(&ctx);
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
    {"registry_fifo_hkcu", test_registry_fifo_hkcu},
    {"registry_fifo_hklm", test_registry_fifo_hklm},
    {"registry_fifo_default_user", test_registry_fifo_default_user},
    {"registry_directory", test_registry_directory},
    {"registry_socket", test_registry_socket},
    {"registry_dev_zero", test_registry_dev_zero},
    {"buffer_alignment", test_buffer_alignment},
    {"buffer_flags", test_buffer_flags},
    {"buffer_initial_state", test_buffer_initial_state},
    {"removal_returns", test_removal_returns},
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
