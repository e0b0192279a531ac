/* Version 2 of driver-reported messages through libd12rt's public ABI (docs/driver-reported-messages-v2.md): the
 * application's side is D3D12GetDebugInterface / D3D12CreateDevice / ID3D12InfoQueue2 / ID3D12DebugDevice3 /
 * CheckFeatureSupport only; the driver is the reference driver behind libd12_drmshim.so (version 2, or version 1 with
 * D12RT_REFDRV_DRM=v1), whose d12_drmshim_* functions let the test report and name GPU addresses as the driver would,
 * or the skeleton driver (version 1, no identity answer). `test_drm_v2 CASE`, one process per case. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"
#define REFDRV_VENDOR 0x1414u
#define REFDRV_INIT_ID 0x0D12000000000001ull /* the reference driver's VendorMessageId of the mandatory message */
#define ID_X 0xABCDull
#define ID_Y 0x1234ull

/* ---- the shim (absent with the skeleton driver) ---- */

static struct {
    HRESULT (*report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    HRESULT (*va_identity)(UINT64 va, SIZE_T *size, CHAR *identity);
} shim;

static bool load_shim(void)
{
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    if (!CHECK(library != NULL))
        return false;
    *(void **)&shim.report = dlsym(library, "d12_drmshim_report");
    *(void **)&shim.va_identity = dlsym(library, "d12_drmshim_va_identity");
    return CHECK(shim.report && shim.va_identity);
}

/* ---- the application ---- */

typedef struct env {
    ID3D12Device *device;
    ID3D12InfoQueue2 *iq;
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    UINT64 value;
} env;

static bool env_open(env *e, bool with_shim)
{
    memset(e, 0, sizeof *e);
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return false;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&e->device), S_OK);
    if (!e->device || (with_shim && !load_shim()))
        return false;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(e->device, &IID_ID3D12InfoQueue2, (void **)&e->iq), S_OK);
    if (!e->iq)
        return false;
    ID3D12InfoQueue2_SetMuteDebugOutput(e->iq, TRUE);
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(e->device, &desc, &IID_ID3D12CommandQueue, (void **)&e->queue), S_OK);
    CHECK_EQ_INT(ID3D12Device_CreateFence(e->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&e->fence),
                 S_OK);
    return e->queue && e->fence;
}

static void env_close(env *e)
{
    if (e->queue)
        ID3D12CommandQueue_Release(e->queue);
    if (e->fence)
        ID3D12Fence_Release(e->fence);
    if (e->iq)
        ID3D12InfoQueue2_Release(e->iq);
    if (e->device)
        CHECK_EQ_INT(ID3D12Device_Release(e->device), 0);
}

/* Stored message i through GetMessage1, malloc'ed. */
static D3D12_MESSAGE1 *message1_at(ID3D12InfoQueue2 *iq, UINT64 i)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue2_GetMessage1(iq, i, NULL, &length)))
        return NULL;
    D3D12_MESSAGE1 *m = malloc(length);
    if (m && FAILED(ID3D12InfoQueue2_GetMessage1(iq, i, m, &length))) {
        free(m);
        return NULL;
    }
    return m;
}

/* Stored messages whose text is `text` (exactly). */
static unsigned stored_with_text(ID3D12InfoQueue2 *iq, const char *text)
{
    unsigned found = 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue2_GetNumStoredMessages(iq); i++) {
        D3D12_MESSAGE1 *m = message1_at(iq, i);
        found += m && strcmp(m->pDescription, text) == 0;
        free(m);
    }
    return found;
}

static unsigned stored_containing(ID3D12InfoQueue2 *iq, const char *text, char *copy, size_t size)
{
    unsigned found = 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue2_GetNumStoredMessages(iq); i++) {
        D3D12_MESSAGE1 *m = message1_at(iq, i);
        if (m && strstr(m->pDescription, text)) {
            found++;
            if (copy)
                snprintf(copy, size, "%s", m->pDescription);
        }
        free(m);
    }
    return found;
}

static HRESULT report(UINT64 id, const char *text)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {id, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, 0xFFFFFFFFu};
    return shim.report(&m);
}

static ID3D12Resource *new_buffer(env *e, UINT64 width, const wchar_t *name)
{
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(e->device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                      D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                      (void **)&buffer), S_OK);
    if (buffer && name)
        CHECK_EQ_INT(ID3D12Resource_SetName(buffer, name), S_OK);
    return buffer;
}

static ID3D12GraphicsCommandList *new_list(env *e)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(e->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    if (!allocator)
        return NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(e->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                &IID_ID3D12GraphicsCommandList, (void **)&list), S_OK);
    ID3D12CommandAllocator_Release(allocator);
    return list;
}

/* Execute, signal, wait for the GPU, then execute an empty list: the flush that carries the completed work. */
static void run_and_flush(env *e, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(e->queue, 1, lists);
    e->value++;
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(e->queue, e->fence, e->value), S_OK);
    CHECK_EQ_INT(ID3D12Fence_SetEventOnCompletion(e->fence, e->value, NULL), S_OK);
    ID3D12GraphicsCommandList *idle = new_list(e);
    if (idle) {
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(idle), S_OK);
        ID3D12CommandList *empty[] = {(ID3D12CommandList *)idle};
        ID3D12CommandQueue_ExecuteCommandLists(e->queue, 1, empty);
        ID3D12GraphicsCommandList_Release(idle);
    }
}

/* A record-time finding of the reference driver (and the skeleton's REPORT_DRAWS message): DrawIndexedInstanced
 * with no index buffer bound / DrawInstanced. Returns how many stored messages contain `needle` afterwards. */
static unsigned record_draws(env *e, bool indexed, const char *needle)
{
    ID3D12GraphicsCommandList *list = new_list(e);
    if (!list)
        return 0;
    if (indexed)
        ID3D12GraphicsCommandList_DrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    else
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    ID3D12GraphicsCommandList_Release(list);
    return stored_containing(e->iq, needle, NULL, 0);
}

/* ---- Negotiation and identity ---- */

/* A version-2 driver on a version-2 runtime: the mandatory message carries the adapter's VendorId (0x1414, the
 * reference driver's identity answer) and the driver's VendorMessageId; a runtime message carries (0, 0). */
static void test_identity_v2(void)
{
    env e;
    if (env_open(&e, true)) {
        D3D12_MESSAGE1 *m = message1_at(e.iq, 0);
        if (CHECK(m != NULL)) {
            CHECK_EQ_STR(m->pDescription, INIT_TEXT);
            CHECK_EQ_INT(m->ID, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE);
            CHECK_EQ_INT(m->VendorId, REFDRV_VENDOR);
            CHECK(m->VendorMessageId == REFDRV_INIT_ID);
            CHECK_EQ_INT(m->DescriptionByteLength, strlen(INIT_TEXT) + 1);
        }
        free(m);
        CHECK_EQ_INT(ID3D12InfoQueue2_AddApplicationMessage(e.iq, D3D12_MESSAGE_SEVERITY_INFO, "app"), S_OK);
        UINT64 last = ID3D12InfoQueue2_GetNumStoredMessages(e.iq) - 1;
        m = message1_at(e.iq, last);
        if (CHECK(m != NULL)) {
            CHECK_EQ_STR(m->pDescription, "app");
            CHECK_EQ_INT(m->VendorId, 0);
            CHECK(m->VendorMessageId == 0);
        }
        free(m);
        CHECK_EQ_INT(report(ID_X, "x"), S_OK);
        m = message1_at(e.iq, ID3D12InfoQueue2_GetNumStoredMessages(e.iq) - 1);
        CHECK(m && m->VendorId == REFDRV_VENDOR && m->VendorMessageId == ID_X && strcmp(m->pDescription, "x") == 0);
        free(m);
    }
    env_close(&e);
}

/* A driver that does not answer D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY (the skeleton, version 1): VendorId 0xFFFF
 * ("never 0, which means a runtime message"), its own VendorMessageId. */
static void test_identity_unknown_vendor(void)
{
    env e;
    if (env_open(&e, false)) {
        D3D12_MESSAGE1 *m = message1_at(e.iq, 0);
        if (CHECK(m != NULL)) {
            CHECK_EQ_STR(m->pDescription, INIT_TEXT);
            CHECK_EQ_INT(m->VendorId, 0xFFFF);
            CHECK(m->VendorMessageId == 0xC0F0000000000001ull); /* the skeleton's VENDOR_INIT_ID */
        }
        free(m);
    }
    env_close(&e);
}

/* GetMessage1: "follows GetMessage's two-call pattern and index rules". */
static void test_getmessage1_two_call(void)
{
    env e;
    if (env_open(&e, true)) {
        SIZE_T length = 0, needed = sizeof(D3D12_MESSAGE1) + strlen(INIT_TEXT) + 1;
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, 0, NULL, &length), S_FALSE);
        CHECK_EQ_INT(length, needed);
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, 0, NULL, NULL), E_INVALIDARG);
        unsigned char buffer[512];
        memset(buffer, 0xEE, sizeof buffer);
        length = needed - 1;
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, 0, (D3D12_MESSAGE1 *)buffer, &length), E_INVALIDARG);
        CHECK_EQ_INT(length, needed);
        CHECK_EQ_INT(buffer[0], 0xEE); /* nothing written */
        UINT64 count = ID3D12InfoQueue2_GetNumStoredMessages(e.iq);
        length = sizeof buffer;
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, count, (D3D12_MESSAGE1 *)buffer, &length), E_INVALIDARG);
        length = needed;
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, 0, (D3D12_MESSAGE1 *)buffer, &length), S_OK);
        const D3D12_MESSAGE1 *m = (const D3D12_MESSAGE1 *)buffer;
        CHECK(m->pDescription == (const char *)(m + 1));
        CHECK_EQ_STR(m->pDescription, INIT_TEXT);
        /* The retrieval filter applies as to GetMessage: deny the ID and index 0 is no longer the driver message. */
        D3D12_MESSAGE_ID deny[] = {D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE};
        D3D12_INFO_QUEUE_FILTER filter = {0};
        filter.DenyList.NumIDs = 1;
        filter.DenyList.pIDList = deny;
        CHECK_EQ_INT(ID3D12InfoQueue2_PushRetrievalFilter(e.iq, &filter), S_OK);
        CHECK_EQ_INT(ID3D12InfoQueue2_GetMessage1(e.iq, count - 1, NULL, &length),
                     count - 1 < ID3D12InfoQueue2_GetNumStoredMessagesAllowedByRetrievalFilter(e.iq) ? S_FALSE
                                                                                                     : E_INVALIDARG);
        ID3D12InfoQueue2_PopRetrievalFilter(e.iq);
    }
    env_close(&e);
}

/* ---- Driver-message filters ---- */

static const D3D12_DRIVER_MESSAGE_IDENTITY k_x = {REFDRV_VENDOR, ID_X}, k_y = {REFDRV_VENDOR, ID_Y};

/* "In a filter, deny wins": X denied is neither stored nor reported as a failure (S_OK), Y passes; runtime messages
 * (even with ID 1506) are never affected; popped, X passes again. */
static void test_filter_deny(void)
{
    env e;
    if (env_open(&e, true)) {
        D3D12_DRIVER_MESSAGE_FILTER f = {0, NULL, 1, &k_x};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &f), S_OK);
        CHECK_EQ_INT(report(ID_X, "denied x"), S_OK);
        CHECK_EQ_INT(report(ID_Y, "passing y"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "denied x"), 0);
        CHECK_EQ_INT(stored_with_text(e.iq, "passing y"), 1);
        CHECK_EQ_INT(ID3D12InfoQueue2_AddMessage(e.iq, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_INFO,
                                                 D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "runtime 1506"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "runtime 1506"), 1);
        /* the same id from another vendor is another message */
        D3D12_DRIVER_MESSAGE_IDENTITY other = {0x10DE, ID_X};
        D3D12_DRIVER_MESSAGE_FILTER g = {0, NULL, 1, &other};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &g), S_OK);
        CHECK_EQ_INT(report(ID_X, "x of 0x1414"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x of 0x1414"), 1);
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq);
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq);
        CHECK_EQ_INT(report(ID_X, "denied x"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "denied x"), 1);
    }
    env_close(&e);
}

/* "if NumAllow > 0, only listed pairs pass"; deny wins over allow. */
static void test_filter_allow(void)
{
    env e;
    if (env_open(&e, true)) {
        D3D12_DRIVER_MESSAGE_FILTER f = {1, &k_x, 0, NULL};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &f), S_OK);
        CHECK_EQ_INT(report(ID_X, "allowed x"), S_OK);
        CHECK_EQ_INT(report(ID_Y, "unlisted y"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "allowed x"), 1);
        CHECK_EQ_INT(stored_with_text(e.iq, "unlisted y"), 0);
        D3D12_DRIVER_MESSAGE_IDENTITY both[] = {k_x, k_y};
        D3D12_DRIVER_MESSAGE_FILTER g = {2, both, 1, &k_x};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &g), S_OK);
        CHECK_EQ_INT(report(ID_X, "x allowed and denied"), S_OK);
        CHECK_EQ_INT(report(ID_Y, "y allowed"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x allowed and denied"), 0);
        CHECK_EQ_INT(stored_with_text(e.iq, "y allowed"), 1);
    }
    env_close(&e);
}

/* "the top one applies; Push(NULL) pushes 'no filter'; Pop on an empty stack does nothing"; the filter is copied. */
static void test_filter_stack(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq); /* empty: nothing */
        D3D12_DRIVER_MESSAGE_IDENTITY deny = k_x;
        D3D12_DRIVER_MESSAGE_FILTER f = {0, NULL, 1, &deny};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &f), S_OK);
        deny.VendorMessageId = ID_Y; /* the runtime copied the list */
        CHECK_EQ_INT(report(ID_X, "x1"), S_OK);
        CHECK_EQ_INT(report(ID_Y, "y1"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x1"), 0);
        CHECK_EQ_INT(stored_with_text(e.iq, "y1"), 1);
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, NULL), S_OK);
        CHECK_EQ_INT(report(ID_X, "x2"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x2"), 1);
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq);
        CHECK_EQ_INT(report(ID_X, "x3"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x3"), 0);
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq);
        ID3D12InfoQueue2_PopDriverMessageFilter(e.iq); /* empty again: nothing */
        CHECK_EQ_INT(report(ID_X, "x4"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "x4"), 1);
    }
    env_close(&e);
}

/* A count with a NULL list: E_INVALIDARG, nothing pushed (the next report is unfiltered). */
static void test_filter_invalid(void)
{
    env e;
    if (env_open(&e, true)) {
        D3D12_DRIVER_MESSAGE_FILTER bad_allow = {1, NULL, 0, NULL}, bad_deny = {0, NULL, 2, NULL};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &bad_allow), E_INVALIDARG);
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &bad_deny), E_INVALIDARG);
        CHECK_EQ_INT(stored_containing(e.iq, "PushDriverMessageFilter: NumAllow is 1 but pAllowList is NULL", NULL, 0),
                     1);
        CHECK_EQ_INT(report(ID_X, "unfiltered"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "unfiltered"), 1);
    }
    env_close(&e);
}

/* ---- RegisterMessageCallback1 ---- */

typedef struct seen {
    unsigned count;
    UINT vendor;
    UINT64 id;
    char text[128];
    size_t length;
} seen;

static void STDMETHODCALLTYPE on_message1(const D3D12_MESSAGE1 *m, void *context)
{
    seen *s = context;
    if (m->ID != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
        return;
    s->count++;
    s->vendor = m->VendorId;
    s->id = m->VendorMessageId;
    s->length = m->DescriptionByteLength;
    snprintf(s->text, sizeof s->text, "%s", m->pDescription);
}

static unsigned g_legacy;
static void STDMETHODCALLTYPE on_message(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id,
                                         LPCSTR text, void *context)
{
    (void)c, (void)s, (void)text, (void)context;
    g_legacy += id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
}

/* The callback sees the identity; a filtered-out driver message reaches IGNORE_FILTERS callbacks only ("as they see
 * storage-filtered messages"); UnregisterMessageCallback ends it; ID3D12InfoQueue1 callbacks keep working. */
static void test_callback1(void)
{
    env e;
    if (env_open(&e, true)) {
        seen plain = {0}, all = {0};
        DWORD c1 = 0, c2 = 0, c3 = 0;
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback1(e.iq, on_message1, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                               &plain, &c1), S_OK);
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback1(e.iq, on_message1, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS,
                                                               &all, &c2), S_OK);
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback(e.iq, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                              &c3), S_OK);
        CHECK(c1 && c2 && c3 && c1 != c2 && c2 != c3);
        CHECK_EQ_INT(report(ID_Y, "hello"), S_OK);
        CHECK_EQ_INT(plain.count, 1);
        CHECK_EQ_INT(plain.vendor, REFDRV_VENDOR);
        CHECK(plain.id == ID_Y);
        CHECK_EQ_STR(plain.text, "hello");
        CHECK_EQ_INT(plain.length, 6);
        CHECK_EQ_INT(g_legacy, 1);
        D3D12_DRIVER_MESSAGE_FILTER f = {0, NULL, 1, &k_x};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &f), S_OK);
        CHECK_EQ_INT(report(ID_X, "filtered"), S_OK);
        CHECK_EQ_INT(plain.count, 1);
        CHECK_EQ_INT(all.count, 2);
        CHECK_EQ_STR(all.text, "filtered");
        CHECK_EQ_INT(g_legacy, 1);
        CHECK_EQ_INT(ID3D12InfoQueue2_UnregisterMessageCallback(e.iq, c1), S_OK);
        CHECK_EQ_INT(report(ID_Y, "after"), S_OK);
        CHECK_EQ_INT(plain.count, 1);
        CHECK_EQ_INT(all.count, 3);
        CHECK_EQ_INT(ID3D12InfoQueue2_UnregisterMessageCallback(e.iq, c1), E_INVALIDARG);
        DWORD cookie = 7;
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback1(e.iq, NULL, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                               &cookie), E_INVALIDARG);
        CHECK_EQ_INT(cookie, 0);
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback1(e.iq, on_message1, (D3D12_MESSAGE_CALLBACK_FLAGS)2,
                                                               &all, &cookie), E_INVALIDARG);
        CHECK_EQ_INT(ID3D12InfoQueue2_RegisterMessageCallback1(e.iq, on_message1, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                               &all, NULL), E_INVALIDARG);
        ID3D12InfoQueue2_UnregisterMessageCallback(e.iq, c2);
        ID3D12InfoQueue2_UnregisterMessageCallback(e.iq, c3);
    }
    env_close(&e);
}

/* "Applications that use only ID3D12InfoQueue(1) see no change": the same message through GetMessage, the same
 * counters; a denied driver message counts as denied by the storage filter, like any filtered message. */
static void test_infoqueue1_unchanged(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12InfoQueue1 *iq1 = NULL;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12InfoQueue1, (void **)&iq1), S_OK);
        if (iq1) {
            SIZE_T length = 0;
            CHECK_EQ_INT(ID3D12InfoQueue1_GetMessage(iq1, 0, NULL, &length), S_FALSE);
            CHECK_EQ_INT(length, sizeof(D3D12_MESSAGE) + strlen(INIT_TEXT) + 1);
            UINT64 denied = ID3D12InfoQueue1_GetNumMessagesDeniedByStorageFilter(iq1);
            D3D12_DRIVER_MESSAGE_FILTER f = {0, NULL, 1, &k_x};
            CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, &f), S_OK);
            CHECK_EQ_INT(report(ID_X, "x"), S_OK);
            CHECK_EQ_INT(ID3D12InfoQueue1_GetNumMessagesDeniedByStorageFilter(iq1), denied + 1);
            ID3D12InfoQueue1_Release(iq1);
        }
    }
    env_close(&e);
}

/* ---- Registry (D12RT_HKCU points at a file the ctest writes: deny X, allow X and Y) ---- */

/* "a registry deny always applies, on top of whatever the application pushes"; the allow list narrows. */
static void test_registry_pairs(void)
{
    env e;
    if (env_open(&e, true)) {
        CHECK_EQ_INT(stored_with_text(e.iq, INIT_TEXT), 0); /* the mandatory message's (1414, init id) is unlisted */
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(e.iq, NULL), S_OK);
        CHECK_EQ_INT(report(ID_X, "registry denied"), S_OK);
        CHECK_EQ_INT(report(ID_Y, "registry allowed"), S_OK);
        CHECK_EQ_INT(report(0x99, "registry unlisted"), S_OK);
        CHECK_EQ_INT(stored_with_text(e.iq, "registry denied"), 0);
        CHECK_EQ_INT(stored_with_text(e.iq, "registry allowed"), 1);
        CHECK_EQ_INT(stored_with_text(e.iq, "registry unlisted"), 0);
        CHECK_EQ_INT(stored_containing(e.iq, "is not <prefix><VID hex>:<MID hex>", NULL, 0), 0);
    }
    env_close(&e);
}

/* ---- Categories ---- */

static UINT supported_flags(env *e, HRESULT expect)
{
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data = {(D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)0x55};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(e->device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data,
                                                  sizeof data), expect);
    return (UINT)data.SupportedFlags;
}

/* The reference driver (version 2) supports GENERAL; a bad size or NULL is E_INVALIDARG with a debug message. */
static void test_flags_feature(void)
{
    env e;
    if (env_open(&e, true)) {
        CHECK_EQ_INT(supported_flags(&e, S_OK), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data;
        CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(e.device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data, 8),
                     E_INVALIDARG);
        CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(e.device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, NULL, 4),
                     E_INVALIDARG);
        CHECK_EQ_INT(stored_containing(e.iq, "(D3D12_FEATURE_DRIVER_REPORTED_MESSAGES): pFeatureSupportData is NULL",
                                       NULL, 0), 2);
    }
    env_close(&e);
}

/* "0 when the feature is not enabled on the device": opted out (D12RT_REFDRV_DRM=on, no opt-in). */
static void test_flags_feature_off(void)
{
    ID3D12Debug7 *debug = NULL;
    CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug)));
    if (debug) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_Release(debug);
    }
    env e = {0};
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&e.device), S_OK);
    if (e.device) {
        CHECK_EQ_INT(supported_flags(&e, S_OK), 0);
        ID3D12DebugDevice3 *dd = NULL;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK);
        if (dd) {
            CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), 0);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL),
                         E_INVALIDARG);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE),
                         S_OK);
            ID3D12DebugDevice3_Release(dd);
        }
        CHECK_EQ_INT(ID3D12Device_Release(e.device), 0);
    }
}

/* Without the debug layer there is no ID3D12DebugDevice3 (as no InfoQueue), and SupportedFlags is 0. */
static void test_flags_no_debug_layer(void)
{
    env e = {0};
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&e.device), S_OK);
    if (e.device) {
        ID3D12DebugDevice3 *dd = (ID3D12DebugDevice3 *)(uintptr_t)1;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12DebugDevice3, (void **)&dd), E_NOINTERFACE);
        CHECK(dd == NULL);
        CHECK_EQ_INT(supported_flags(&e, S_OK), 0);
        CHECK_EQ_INT(ID3D12Device_Release(e.device), 0);
    }
}

/* "A device starts with every supported category on"; flags outside SupportedFlags: E_INVALIDARG (nothing changes);
 * a version-2 driver with a category off skips its checks: the reference driver's record-time finding (an indexed
 * draw with no index buffer) is not made with NONE, and is again with GENERAL. */
static void test_flags_set_v2(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12DebugDevice3 *dd = NULL;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK);
        if (dd) {
            CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
            CHECK_EQ_INT(record_draws(&e, true, "No index buffer is bound"), 1);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_ALL),
                         E_INVALIDARG);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(
                             dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL | D3D12_DRIVER_REPORTED_MESSAGE_FLAG_RAYTRACING),
                         E_INVALIDARG);
            CHECK_EQ_INT(stored_containing(e.iq, "has bits 0x4 outside SupportedFlags 0x1", NULL, 0), 1);
            CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE),
                         S_OK);
            CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE);
            CHECK_EQ_INT(record_draws(&e, true, "No index buffer is bound"), 1); /* not made again */
            /* the runtime does not drop a version-2 driver's messages: the driver decides */
            CHECK_EQ_INT(report(ID_Y, "v2 reports while NONE"), S_OK);
            CHECK_EQ_INT(stored_with_text(e.iq, "v2 reports while NONE"), 1);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL),
                         S_OK);
            CHECK_EQ_INT(record_draws(&e, true, "No index buffer is bound"), 2);
            ID3D12DebugDevice3_Release(dd);
        }
    }
    env_close(&e);
}

/* A version-1 driver (the reference driver listing 1u only): SupportedFlags GENERAL; NONE makes the runtime drop
 * its messages (S_OK: the application's choice); GENERAL again lets them through; GPU VA naming is version 2 only. */
static void test_flags_v1_none(void)
{
    env e;
    if (env_open(&e, true)) {
        CHECK_EQ_INT(supported_flags(&e, S_OK), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        ID3D12DebugDevice3 *dd = NULL;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK);
        if (dd) {
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE),
                         S_OK);
            CHECK_EQ_INT(report(ID_Y, "v1 while NONE"), S_OK);
            CHECK_EQ_INT(stored_with_text(e.iq, "v1 while NONE"), 0);
            CHECK_EQ_INT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL),
                         S_OK);
            CHECK_EQ_INT(report(ID_Y, "v1 while GENERAL"), S_OK);
            CHECK_EQ_INT(stored_with_text(e.iq, "v1 while GENERAL"), 1);
            ID3D12DebugDevice3_Release(dd);
        }
        ID3D12Resource *buffer = new_buffer(&e, 256, L"V1Buffer");
        if (buffer) {
            SIZE_T size = 0;
            CHECK_EQ_INT(shim.va_identity(ID3D12Resource_GetGPUVirtualAddress(buffer), &size, NULL), E_INVALIDARG);
            ID3D12Resource_Release(buffer);
        }
    }
    env_close(&e);
}

/* The registry forces DriverReportedMessageFlags=0 (ctest writes the file): the device starts with NONE. */
static void test_flags_registry(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12DebugDevice3 *dd = NULL;
        CHECK_EQ_INT(ID3D12Device_QueryInterface(e.device, &IID_ID3D12DebugDevice3, (void **)&dd), S_OK);
        if (dd) {
            CHECK_EQ_INT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE);
            ID3D12DebugDevice3_Release(dd);
        }
        CHECK_EQ_INT(supported_flags(&e, S_OK), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        CHECK_EQ_INT(record_draws(&e, true, "No index buffer is bound"), 0);
    }
    env_close(&e);
}

/* ---- GPU VA naming ---- */

static HRESULT va_name(UINT64 va, char *out, size_t size)
{
    SIZE_T needed = 0;
    HRESULT hr = shim.va_identity(va, &needed, NULL);
    if (FAILED(hr))
        return hr;
    if (needed > size)
        return E_FAIL;
    SIZE_T capacity = size;
    return shim.va_identity(va, &capacity, out);
}

/* Live, past its end (Width, then the guard gap), released (with the name it had), never held. */
static void test_va_names(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12Resource *vb = new_buffer(&e, 256, L"MyVertexBuffer");
        ID3D12Resource *gone = new_buffer(&e, 64, L"Gone");
        if (vb && gone) {
            UINT64 va = ID3D12Resource_GetGPUVirtualAddress(vb), gone_va = ID3D12Resource_GetGPUVirtualAddress(gone);
            char text[256], expect[256];
            CHECK_EQ_INT(va_name(va + 0x80, text, sizeof text), S_OK);
            snprintf(expect, sizeof expect, "0x%016llX:'MyVertexBuffer' + 0x80", (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_STR(text, expect);
            CHECK_EQ_INT(va_name(va + 0x100, text, sizeof text), S_OK);
            snprintf(expect, sizeof expect, "0x%016llX:'MyVertexBuffer' + 0x100 (past its end)",
                     (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_STR(text, expect);
            CHECK_EQ_INT(va_name(va + 0x10000, text, sizeof text), S_OK); /* the guard gap after the allocation */
            snprintf(expect, sizeof expect, "0x%016llX:'MyVertexBuffer' + 0x10000 (past its end)",
                     (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_STR(text, expect);
            CHECK_EQ_INT(ID3D12Resource_SetName(vb, L"Renamed"), S_OK); /* the name at the query */
            CHECK_EQ_INT(va_name(va, text, sizeof text), S_OK);
            snprintf(expect, sizeof expect, "0x%016llX:'Renamed' + 0x0", (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_STR(text, expect);
            void *gone_pointer = gone;
            ID3D12Resource_Release(gone);
            gone = NULL;
            CHECK_EQ_INT(va_name(gone_va + 0x10, text, sizeof text), S_OK);
            snprintf(expect, sizeof expect, "0x%016llX:'Gone' + 0x10 (released)",
                     (unsigned long long)(uintptr_t)gone_pointer);
            CHECK_EQ_STR(text, expect);
            SIZE_T size = 0;
            CHECK_EQ_INT(shim.va_identity(0x10, &size, NULL), DXGI_ERROR_NOT_FOUND);
            CHECK_EQ_INT(shim.va_identity(va + 0x20000 + 0x10000 * 64, &size, NULL), DXGI_ERROR_NOT_FOUND);
        }
        if (vb)
            ID3D12Resource_Release(vb);
        if (gone)
            ID3D12Resource_Release(gone);
    }
    env_close(&e);
}

/* "the same two-call UTF-8 contract and error rules as pfnQueryObjectIdentityCb": the size with the NUL, a short
 * buffer DXGI_ERROR_MORE_DATA and the size (nothing written), a NULL size E_INVALIDARG; UTF-8 names survive. */
static void test_va_two_call(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12Resource *vb = new_buffer(&e, 256, L"Z\u00e9ro");
        if (vb) {
            UINT64 va = ID3D12Resource_GetGPUVirtualAddress(vb);
            char expect[128];
            snprintf(expect, sizeof expect, "0x%016llX:'Z\xc3\xa9ro' + 0x8", (unsigned long long)(uintptr_t)vb);
            SIZE_T size = 0;
            CHECK_EQ_INT(shim.va_identity(va + 8, &size, NULL), S_OK);
            CHECK_EQ_INT(size, strlen(expect) + 1);
            char text[128];
            memset(text, 'q', sizeof text);
            SIZE_T small = size - 1;
            CHECK_EQ_INT(shim.va_identity(va + 8, &small, text), DXGI_ERROR_MORE_DATA);
            CHECK_EQ_INT(small, size);
            CHECK_EQ_INT(text[0], 'q');
            CHECK_EQ_INT(shim.va_identity(va + 8, &size, text), S_OK);
            CHECK_EQ_STR(text, expect);
            CHECK_EQ_INT(shim.va_identity(va + 8, NULL, text), E_INVALIDARG);
            ID3D12Resource_Release(vb);
        }
    }
    env_close(&e);
}

/* The reference driver names addresses in its out-of-bounds message: a vertex buffer view 128 bytes past a 256-byte
 * buffer, found on the GPU timeline and reported at the flush. */
static void test_va_in_refdrv_message(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12Resource *vb = new_buffer(&e, 256, L"MyVB");
        ID3D12GraphicsCommandList *list = new_list(&e);
        if (vb && list) {
            D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb) + 128, 256, 16};
            ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &view);
            ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
            CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
            run_and_flush(&e, list);
            char text[512] = "", expect[128];
            snprintf(expect, sizeof expect, "First byte past it: 0x%016llX:'MyVB' + 0x100 (past its end)",
                     (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_INT(stored_containing(&e.iq[0], "bytes past its end.", text, sizeof text), 1);
            if (!CHECK(strstr(text, expect) != NULL))
                fprintf(stderr, "    text \"%s\"\n    lacks \"%s\"\n", text, expect);
        }
        if (list)
            ID3D12GraphicsCommandList_Release(list);
        if (vb)
            ID3D12Resource_Release(vb);
    }
    env_close(&e);
}

/* The reference driver names the faulting address in its page-fault message: a vertex buffer view in the guard gap
 * after a 256-byte buffer faults on the GPU timeline, the device is removed, and the removal flush (surfaced by
 * GetDeviceRemovedReason) delivers "... which is in no live buffer: 0x...:'MyVB' + 0x10000 (past its end)." */
static void test_va_in_page_fault(void)
{
    env e;
    if (env_open(&e, true)) {
        ID3D12Resource *vb = new_buffer(&e, 256, L"MyVB");
        ID3D12GraphicsCommandList *list = new_list(&e);
        if (vb && list) {
            D3D12_VERTEX_BUFFER_VIEW view = {ID3D12Resource_GetGPUVirtualAddress(vb) + 0x10000, 64, 16};
            ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &view);
            ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
            CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
            ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
            ID3D12CommandQueue_ExecuteCommandLists(e.queue, 1, lists);
            ID3D12CommandQueue_Signal(e.queue, e.fence, 1);
            for (int i = 0; i < 5000 && ID3D12Fence_GetCompletedValue(e.fence) < 1; i++)
                usleep(1000);
            CHECK(FAILED(ID3D12Device_GetDeviceRemovedReason(e.device))); /* removed: surfaces the removal flush */
            char text[512] = "", expect[160];
            snprintf(expect, sizeof expect, "which is in no live buffer: 0x%016llX:'MyVB' + 0x10000 (past its end).",
                     (unsigned long long)(uintptr_t)vb);
            CHECK_EQ_INT(stored_containing(e.iq, "Page fault: ", text, sizeof text), 1);
            if (!CHECK(strstr(text, expect) != NULL))
                fprintf(stderr, "    text \"%s\"\n    lacks \"%s\"\n", text, expect);
        }
        if (list)
            ID3D12GraphicsCommandList_Release(list);
        if (vb)
            ID3D12Resource_Release(vb);
    }
    env_close(&e);
}

/* "both slots must be non-NULL, else the feature stays off for that device" (the skeleton as a version-2 driver whose
 * table has a NULL slot): SupportedFlags 0, the debug layer says why, the driver's reports are refused. A version-2
 * skeleton with a whole table (the positive) gets its supported set and VendorId 0xC0F0. */
static void test_v2_table(bool null_slot)
{
    env e;
    if (env_open(&e, false)) {
        CHECK_EQ_INT(supported_flags(&e, S_OK), null_slot ? 0 : D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
        CHECK_EQ_INT(stored_containing(e.iq, "(version 2) has a NULL slot", NULL, 0), null_slot ? 1 : 0);
        D3D12_MESSAGE1 *m = message1_at(e.iq, 0);
        if (CHECK(m != NULL)) /* the mandatory message came inside the enable call, before the table was read */
            CHECK_EQ_INT(m->VendorId, 0xC0F0);
        free(m);
    }
    env_close(&e);
}

static void test_v2_table_null_slot(void)
{
    test_v2_table(true);
}

static void test_v2_table_whole(void)
{
    test_v2_table(false);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"v2_table_null_slot", test_v2_table_null_slot},
    {"v2_table_whole", test_v2_table_whole},
    {"identity_v2", test_identity_v2},
    {"identity_unknown_vendor", test_identity_unknown_vendor},
    {"getmessage1_two_call", test_getmessage1_two_call},
    {"filter_deny", test_filter_deny},
    {"filter_allow", test_filter_allow},
    {"filter_stack", test_filter_stack},
    {"filter_invalid", test_filter_invalid},
    {"callback1", test_callback1},
    {"infoqueue1_unchanged", test_infoqueue1_unchanged},
    {"registry_pairs", test_registry_pairs},
    {"flags_feature", test_flags_feature},
    {"flags_feature_off", test_flags_feature_off},
    {"flags_no_debug_layer", test_flags_no_debug_layer},
    {"flags_set_v2", test_flags_set_v2},
    {"flags_v1_none", test_flags_v1_none},
    {"flags_registry", test_flags_registry},
    {"va_names", test_va_names},
    {"va_two_call", test_va_two_call},
    {"va_in_refdrv_message", test_va_in_refdrv_message},
    {"va_in_page_fault", test_va_in_page_fault},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (strcmp(argv[1], k_cases[i].name) == 0) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_drm_v2 CASE\n");
    return 2;
}
