/* Fuzz target: what a driver hands the runtime through the driver-reported-messages callbacks, from a fuzzing
 * driver: the reference driver behind tests/drm's shim (libd12_drmshim.so, D12RT_DRIVER; its d12_drmshim_report and
 * d12_drmshim_identity call the runtime's pfnReportMessageCb / pfnQueryObjectIdentityCb as the driver would).
 * Payloads: any VendorMessageId, severity and category (valid or not), any command-list state index, descriptions
 * of any bytes (always NUL-terminated: termination is the driver's contract) or NULL; identity queries with any
 * handle type, the device's own handle, a NULL or a bogus handle, a NULL size pointer, short and exact buffers; and
 * identity queries of live command lists and resources (their runtime handles as the driver got them at creation,
 * the shim's d12_drmshim_last_rt_*), with the right type or a wrong one, after SetName with fuzzed names, and of
 * handles of objects the input released (and replaced).
 * Promises (spec/ddi.yaml, docs/drm.md): pfnReportMessageCb answers S_OK or E_INVALIDARG; pfnQueryObjectIdentityCb
 * S_OK, DXGI_ERROR_MORE_DATA or E_INVALIDARG, writes no more than the size it was given and NUL-terminates what it
 * writes; a bogus handle is E_INVALIDARG, never a dereference; a live object's identity is exactly
 * "0x<its COM pointer>:'<its name>'" (or 'Unnamed <interface> Object'), and only under its own handle type; a
 * released object's handle is E_INVALIDARG unless a live object has it again; the device is never removed. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <stdbool.h>
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "fuzz_input.h"

#define NAME "fuzz_driver"

static HRESULT (*shim_report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
static HRESULT (*shim_identity)(void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *identity);
static void *(*shim_last_rt_list)(void);
static void *(*shim_last_rt_resource)(void);
static ID3D12Device *device;

/* Live objects a driver may name: command lists and resources, with the runtime handle the driver got. */
#define LIVE_OBJECTS 4
static struct live {
    IUnknown *object;          /* the COM pointer: the identity's 0x... part */
    void *rt_handle;
    D3D12DDI_HANDLETYPE type;
    bool named;                /* SetName was called (an empty name is a name: the identity shows '') */
    char name[40];             /* the ASCII name set last */
    void *released_handle;     /* the handle of the object this one replaced (NULL: none) */
} live[LIVE_OBJECTS];

/* Object i: even a command list (open, on its own allocator), odd a 256-byte UPLOAD buffer; unnamed. */
static void make_live(unsigned i)
{
    struct live *o = &live[i];
    o->name[0] = '\0';
    o->named = false;
    if (i % 2 == 0) {
        ID3D12CommandAllocator *allocator = NULL;
        ID3D12GraphicsCommandList *list = NULL;
        FUZZ_CHECK(NAME, SUCCEEDED(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                                       &IID_ID3D12CommandAllocator,
                                                                       (void **)&allocator)));
        FUZZ_CHECK(NAME, SUCCEEDED(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator,
                                                                  NULL, &IID_ID3D12GraphicsCommandList,
                                                                  (void **)&list)));
        ID3D12CommandAllocator_Release(allocator);
        o->object = (IUnknown *)list;
        o->rt_handle = shim_last_rt_list();
        o->type = D3D12DDI_HT_COMMAND_LIST;
    } else {
        D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                      D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
        D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 256, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                    D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
        ID3D12Resource *buffer = NULL;
        FUZZ_CHECK(NAME, SUCCEEDED(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                                        D3D12_RESOURCE_STATE_GENERIC_READ, NULL,
                                                                        &IID_ID3D12Resource, (void **)&buffer)));
        o->object = (IUnknown *)buffer;
        o->rt_handle = shim_last_rt_resource();
        o->type = D3D12DDI_HT_0012_RESOURCE;
    }
    FUZZ_CHECK(NAME, o->rt_handle != NULL);
}

static void setup(void)
{
    setenv("D12RT_DRIVER", D12_DRMSHIM_PATH, 1); /* the shim is the driver (compile-time path of the build) */
    setenv("D12RT_REFDRV_DRM", "on", 1);
    setenv("D12RT_REFDRV_PROFILE", "", 1);
    setenv("D12RT_REFDRV_SET_ERROR", "", 1);
    setenv("D12RT_BREAK", "none", 1);
    ID3D12Debug7 *debug = NULL;
    FUZZ_CHECK(NAME, SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug)));
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    FUZZ_CHECK(NAME, SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device)));
    ID3D12InfoQueue *queue = NULL;
    FUZZ_CHECK(NAME, SUCCEEDED(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue)));
    ID3D12InfoQueue_SetMuteDebugOutput(queue, TRUE);
    ID3D12InfoQueue_SetMessageCountLimit(queue, 256);
    ID3D12InfoQueue_Release(queue);
    void *library = dlopen(D12_DRMSHIM_PATH, RTLD_NOW | RTLD_NOLOAD); /* the copy the runtime loaded */
    FUZZ_CHECK(NAME, library != NULL);
    *(void **)&shim_report = dlsym(library, "d12_drmshim_report");
    *(void **)&shim_identity = dlsym(library, "d12_drmshim_identity");
    *(void **)&shim_last_rt_list = dlsym(library, "d12_drmshim_last_rt_list");
    *(void **)&shim_last_rt_resource = dlsym(library, "d12_drmshim_last_rt_resource");
    FUZZ_CHECK(NAME, shim_report && shim_identity && shim_last_rt_list && shim_last_rt_resource);
    for (unsigned i = 0; i < LIVE_OBJECTS; i++)
        make_live(i);
}

static void report(fuzz_input *in)
{
    char text[300];
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m;
    m.VendorMessageId = (UINT64)fuzz_u32(in) << 32 | fuzz_u32(in);
    m.Severity = (D3D12DDI_MESSAGE_SEVERITY_0126)(fuzz_u8(in) % 8);
    m.Category = (D3D12DDI_MESSAGE_CATEGORY_0126)(fuzz_u8(in) % 16);
    uint8_t index = fuzz_u8(in);
    m.CommandListStateIndex = index & 0x80 ? 0xFFFFFFFFu : index & 0x40 ? fuzz_u32(in) : index;
    size_t n = fuzz_u8(in) + (fuzz_u8(in) & 1 ? 0 : 0); /* up to 255 bytes, NUL-terminated */
    size_t i;
    for (i = 0; i < n && !fuzz_done(in); i++) {
        uint8_t c = fuzz_u8(in);
        text[i] = (char)(c ? c : 1);
    }
    text[i] = '\0';
    m.pDescription = fuzz_u8(in) % 16 ? text : NULL;
    HRESULT hr = shim_report(&m);
    FUZZ_CHECK(NAME, hr == S_OK || hr == E_INVALIDARG);
}

static void identity(fuzz_input *in)
{
    static int bogus;
    uint8_t which = fuzz_u8(in) % 3;
    void *handle = which == 0 ? NULL /* the device itself */ : which == 1 ? (void *)&bogus : (void *)(uintptr_t)1;
    uint8_t pick = fuzz_u8(in);
    D3D12DDI_HANDLETYPE type = pick & 0x80 ? D3D12DDI_HT_D12RT_DEVICE : (D3D12DDI_HANDLETYPE)(pick % 40);
    SIZE_T size = 0;
    uint8_t mode = fuzz_u8(in) % 4;
    if (mode == 0) {
        FUZZ_CHECK(NAME, shim_identity(handle, type, NULL, NULL) == E_INVALIDARG);
        return;
    }
    HRESULT hr = shim_identity(handle, type, &size, NULL);
    FUZZ_CHECK(NAME, hr == S_OK || hr == E_INVALIDARG);
    if (which != 0)
        FUZZ_CHECK(NAME, hr == E_INVALIDARG); /* a bogus handle is never an object */
    if (hr != S_OK)
        return;
    FUZZ_CHECK(NAME, size >= 1 && size < 4096);
    SIZE_T given = mode == 1 ? size - 1 : size;
    char *buffer = malloc(given ? given : 1); /* exactly `given` bytes */
    SIZE_T asked = given;
    hr = shim_identity(handle, type, &asked, given ? buffer : NULL);
    if (mode == 1 && given > 0) {
        FUZZ_CHECK(NAME, hr == DXGI_ERROR_MORE_DATA && asked == size);
    } else if (given == size) {
        FUZZ_CHECK(NAME, hr == S_OK && asked == size && buffer[size - 1] == '\0' && strlen(buffer) == size - 1);
    }
    free(buffer);
}

/* The identity of live object `o`, asked exactly as a driver does (size first, then the text), with the right type
 * or (wrong_type) another one, which must be refused. */
static void live_identity(struct live *o, bool wrong_type)
{
    D3D12DDI_HANDLETYPE type = wrong_type ? (o->type == D3D12DDI_HT_COMMAND_LIST ? D3D12DDI_HT_0012_RESOURCE
                                                                                   : D3D12DDI_HT_COMMAND_LIST)
                                          : o->type;
    SIZE_T size = 0;
    HRESULT hr = shim_identity(o->rt_handle, type, &size, NULL);
    if (wrong_type) {
        FUZZ_CHECK(NAME, hr == E_INVALIDARG);
        return;
    }
    FUZZ_CHECK(NAME, hr == S_OK && size >= 1 && size < 4096);
    char *text = malloc(size); /* exactly `size` bytes */
    SIZE_T asked = size;
    FUZZ_CHECK(NAME, shim_identity(o->rt_handle, type, &asked, text) == S_OK && asked == size);
    char expected[128];
    int n = snprintf(expected, sizeof expected, "0x%016llX:'", (unsigned long long)(uintptr_t)o->object);
    FUZZ_CHECK(NAME, text[size - 1] == '\0' && strncmp(text, expected, (size_t)n) == 0 && text[size - 2] == '\'');
    if (o->named) {
        snprintf(expected + n, sizeof expected - (size_t)n, "%s'", o->name);
        FUZZ_CHECK(NAME, strcmp(text, expected) == 0);
    } else {
        const char *unnamed = o->type == D3D12DDI_HT_COMMAND_LIST ? "Unnamed ID3D12GraphicsCommandList Object'"
                                                                   : "Unnamed ID3D12Resource Object'";
        FUZZ_CHECK(NAME, strcmp(text + n, unnamed) == 0);
    }
    free(text);
}

/* A handle released earlier names nothing, unless a live object has it again (memory reuse). */
static void released_identity(struct live *o)
{
    if (!o->released_handle)
        return;
    bool reused = false;
    for (unsigned i = 0; i < LIVE_OBJECTS; i++)
        reused |= live[i].rt_handle == o->released_handle && live[i].type == o->type;
    SIZE_T size = 0;
    HRESULT hr = shim_identity(o->released_handle, o->type, &size, NULL);
    FUZZ_CHECK(NAME, reused ? hr == S_OK : hr == E_INVALIDARG);
}

static void rename_live(struct live *o, fuzz_input *in)
{
    char name[sizeof o->name];
    size_t n = fuzz_text(in, name, sizeof name - 1), i;
    wchar_t wide[sizeof o->name];
    for (i = 0; i < n; i++) {
        name[i] = (char)(0x20 + (unsigned char)name[i] % 0x5f); /* printable ASCII: its UTF-8 is itself */
        wide[i] = (wchar_t)name[i];
    }
    name[n] = '\0';
    wide[n] = 0;
    HRESULT hr = o->type == D3D12DDI_HT_COMMAND_LIST ? ID3D12GraphicsCommandList_SetName((ID3D12GraphicsCommandList *)o->object, wide)
                                                     : ID3D12Resource_SetName((ID3D12Resource *)o->object, wide);
    FUZZ_CHECK(NAME, hr == S_OK);
    memcpy(o->name, name, n + 1);
    o->named = true;
}

static void live_object(fuzz_input *in)
{
    uint8_t pick = fuzz_u8(in);
    struct live *o = &live[pick % LIVE_OBJECTS];
    switch ((pick >> 2) % 5) {
    case 0:
        rename_live(o, in);
        break;
    case 1: /* release it and make another in its place */
        o->released_handle = o->rt_handle;
        IUnknown_Release(o->object);
        make_live((unsigned)(o - live));
        break;
    case 2:
        released_identity(o);
        break;
    case 3:
        live_identity(o, true);
        break;
    default:
        live_identity(o, false);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!device)
        setup();
    fuzz_input in = {data, size, 0};
    for (unsigned calls = 0; calls < 64 && !fuzz_done(&in); calls++) {
        uint8_t op = fuzz_u8(&in);
        if (op % 3)
            report(&in);
        else if (op >= 0xC0) /* 0xC0, 0xC3, ... 0xFF: a live command list or resource */
            live_object(&in);
        else
            identity(&in);
    }
    FUZZ_CHECK(NAME, ID3D12Device_GetDeviceRemovedReason(device) == S_OK);
    return 0;
}
