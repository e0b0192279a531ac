/* Driver-reported messages through libd12rt's public ABI (driver-reported-messages.txt v0.3): the app's side is
 * D3D12GetDebugInterface / ID3D12Debug7 / D3D12CreateDevice / ID3D12InfoQueue1 only. The driver is the reference
 * driver behind libd12_drmshim.so (D12RT_DRIVER), whose d12_drmshim_* functions count the DDI calls the runtime
 * made and let the test report and query identities as the driver would. `test_drm_public CASE`, one process per
 * case (debug settings are process-global). */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"

/* ---- the shim ---- */

static struct {
    unsigned (*enable_calls)(void);
    unsigned (*table_fills)(void);
    HRESULT (*report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    HRESULT (*identity)(void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *identity);
    unsigned (*flush_calls)(void);
    unsigned (*nested_flushes)(void);
    int (*flush_thread)(unsigned i, pthread_t *thread);
    int (*stage)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    unsigned (*staged_reported)(void);
    unsigned (*staged_failed)(void);
    unsigned (*staged_waiting)(void);
    unsigned (*index_calls)(void);
    UINT32 (*last_index)(void);
    UINT32 (*index_at)(unsigned i, void **list);
    void (*gate_arm)(void);
    void (*gate_wait_arrived)(void);
    void (*gate_open)(void);
    void (*flush_jitter)(unsigned max_us);
} shim;

/* The shim as D12RT_DRIVER loaded it (RTLD_NOLOAD: the same copy, so the same counters). */
static bool load_shim(void)
{
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    if (!CHECK(library != NULL))
        return false;
    *(void **)&shim.enable_calls = dlsym(library, "d12_drmshim_enable_calls");
    *(void **)&shim.table_fills = dlsym(library, "d12_drmshim_table_fills");
    *(void **)&shim.report = dlsym(library, "d12_drmshim_report");
    *(void **)&shim.identity = dlsym(library, "d12_drmshim_identity");
    *(void **)&shim.flush_calls = dlsym(library, "d12_drmshim_flush_calls");
    *(void **)&shim.nested_flushes = dlsym(library, "d12_drmshim_nested_flushes");
    *(void **)&shim.flush_thread = dlsym(library, "d12_drmshim_flush_thread");
    *(void **)&shim.stage = dlsym(library, "d12_drmshim_stage");
    *(void **)&shim.staged_reported = dlsym(library, "d12_drmshim_staged_reported");
    *(void **)&shim.staged_failed = dlsym(library, "d12_drmshim_staged_failed");
    *(void **)&shim.staged_waiting = dlsym(library, "d12_drmshim_staged_waiting");
    *(void **)&shim.index_calls = dlsym(library, "d12_drmshim_index_calls");
    *(void **)&shim.last_index = dlsym(library, "d12_drmshim_last_index");
    *(void **)&shim.index_at = dlsym(library, "d12_drmshim_index_at");
    *(void **)&shim.gate_arm = dlsym(library, "d12_drmshim_gate_arm");
    *(void **)&shim.gate_wait_arrived = dlsym(library, "d12_drmshim_gate_wait_arrived");
    *(void **)&shim.gate_open = dlsym(library, "d12_drmshim_gate_open");
    *(void **)&shim.flush_jitter = dlsym(library, "d12_drmshim_flush_jitter");
    return CHECK(shim.enable_calls && shim.table_fills && shim.report && shim.identity && shim.flush_calls &&
                 shim.nested_flushes && shim.flush_thread && shim.stage && shim.staged_reported &&
                 shim.staged_failed && shim.staged_waiting && shim.index_calls && shim.last_index && shim.index_at &&
                 shim.gate_arm && shim.gate_wait_arrived && shim.gate_open && shim.flush_jitter);
}

/* ---- helpers ---- */

static void debug_settings(bool debug_layer, int drm /* -1: leave alone */)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return;
    if (debug_layer)
        ID3D12Debug7_EnableDebugLayer(debug);
    if (drm >= 0)
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, drm ? TRUE : FALSE);
    ID3D12Debug7_Release(debug);
}

static ID3D12Device *create_device(void)
{
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device && !load_shim()) {
        ID3D12Device_Release(device);
        return NULL;
    }
    return device;
}

static ID3D12InfoQueue1 *info_queue_of(ID3D12Device *device)
{
    ID3D12InfoQueue1 *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), S_OK);
    if (queue)
        ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

/* The stored message i, malloc'ed. */
static D3D12_MESSAGE *message_at(ID3D12InfoQueue1 *queue, UINT64 i)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length)))
        return NULL;
    D3D12_MESSAGE *message = malloc(length);
    if (message && FAILED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length))) {
        free(message);
        return NULL;
    }
    return message;
}

/* How many stored messages have the driver-reported ID; the last one is returned (malloc'ed) when asked. */
static unsigned count_driver_messages(ID3D12InfoQueue1 *queue, D3D12_MESSAGE **last)
{
    unsigned found = 0;
    if (last)
        *last = NULL;
    for (UINT64 i = 0; i < ID3D12InfoQueue1_GetNumStoredMessages(queue); i++) {
        D3D12_MESSAGE *message = message_at(queue, i);
        if (message && message->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) {
            found++;
            if (last) {
                free(*last);
                *last = message;
                continue;
            }
        }
        free(message);
    }
    return found;
}

static bool has_text(ID3D12InfoQueue1 *queue, const char *text)
{
    bool found = false;
    for (UINT64 i = 0; !found && i < ID3D12InfoQueue1_GetNumStoredMessages(queue); i++) {
        D3D12_MESSAGE *message = message_at(queue, i);
        found = message && strstr(message->pDescription, text);
        free(message);
    }
    return found;
}

static D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 driver_message(const char *text)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {77, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, 0xFFFFFFFFu};
    return m;
}

static void release_last(ID3D12Device *device, ID3D12InfoQueue1 *queue)
{
    if (queue)
        ID3D12InfoQueue1_Release(queue);
    CHECK_EQ_INT(ID3D12Device_Release(device), 0);
}

/* ---- cases ---- */

/* "A driver that implements driver-reported messages must report exactly one message when the runtime enables
 * the feature": MESSAGE severity, INITIALIZATION category, ID 1506, the exact text. */
static void test_init_message(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_MESSAGE *message;
    CHECK_EQ_INT(count_driver_messages(queue, &message), 1);
    if (message) {
        CHECK_EQ_INT(message->ID, 1506);
        CHECK_EQ_INT(message->Severity, D3D12_MESSAGE_SEVERITY_MESSAGE);
        CHECK_EQ_INT(message->Category, D3D12_MESSAGE_CATEGORY_INITIALIZATION);
        CHECK_EQ_STR(message->pDescription, INIT_TEXT);
        CHECK_EQ_INT(message->DescriptionByteLength, sizeof INIT_TEXT);
    }
    free(message);
    CHECK_EQ_INT(shim.enable_calls(), 1);
    CHECK_EQ_INT(shim.table_fills(), 1);
    release_last(device, queue);
}

/* "If the debug layer is not enabled, the toggle has no effect on that device." */
static void test_no_debug_layer(void)
{
    debug_settings(false, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = (ID3D12InfoQueue1 *)1;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), E_NOINTERFACE);
    CHECK_EQ_INT(shim.enable_calls(), 0);
    CHECK_EQ_INT(shim.table_fills(), 0);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("not enabled");
    CHECK_EQ_INT(shim.report(&m), E_INVALIDARG); /* "Calls on devices where the feature was not enabled are dropped" */
    release_last(device, NULL);
}

/* The debug layer alone (the default FALSE toggle): no feature, no message. */
static void test_not_opted_in(void)
{
    debug_settings(true, -1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 0);
    CHECK_EQ_INT(shim.enable_calls(), 0);
    release_last(device, queue);
}

/* "the most recent value wins. The setting is then fixed for the lifetime of that device" */
static void test_last_call_wins(void)
{
    debug_settings(true, 1);
    debug_settings(false, 0); /* TRUE then FALSE: off */
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 0);
    CHECK_EQ_INT(shim.enable_calls(), 0);
    debug_settings(false, 1); /* after creation: no effect on this device */
    ID3D12Device *again = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&again), S_OK);
    CHECK(again == device); /* the same live device: nothing is re-latched */
    ID3D12Device_Release(again);
    CHECK_EQ_INT(shim.enable_calls(), 0);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 0);
    release_last(device, queue);

    debug_settings(false, 0);
    debug_settings(false, 1); /* FALSE then TRUE: on for the next device */
    device = create_device();
    if (!device)
        return;
    queue = info_queue_of(device);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 1);
    CHECK_EQ_INT(shim.enable_calls(), 1);
    debug_settings(false, 0); /* turned off after creation: the device keeps the channel */
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("still enabled");
    CHECK_EQ_INT(shim.report(&m), S_OK);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 2);
    release_last(device, queue);
}

/* D12RT_REFDRV_DRM=off: "If the driver does not implement the driver-reported-messages DDI, the toggle has no
 * observable effect on that device's ID3D12InfoQueue" and no DDI call of the feature is made. */
static void test_driver_without_feature(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumStoredMessages(queue), 0);
    CHECK_EQ_INT(shim.enable_calls(), 0);
    CHECK_EQ_INT(shim.table_fills(), 0);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("no feature");
    CHECK_EQ_INT(shim.report(&m), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumStoredMessages(queue), 0);
    release_last(device, queue);
}

/* D12RT_REFDRV_DRM=fail: what the driver reported inside the failed call is kept, the feature is off (later
 * reports dropped, no table fetched) and the debug layer says so. */
static void test_enable_fails(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    CHECK_EQ_INT(shim.enable_calls(), 1);
    CHECK_EQ_INT(shim.table_fills(), 0);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 1);
    CHECK(has_text(queue, "driver-reported messages are off for this device"));
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("after a failed enable");
    CHECK_EQ_INT(shim.report(&m), E_INVALIDARG);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 1);
    release_last(device, queue);
}

/* "Apps filter or suppress driver-sourced messages as a class by the sentinel ID" */
static void test_deny_filter(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_MESSAGE_ID deny[] = {D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE};
    D3D12_INFO_QUEUE_FILTER filter = {0};
    filter.DenyList.NumIDs = 1;
    filter.DenyList.pIDList = deny;
    CHECK_EQ_INT(ID3D12InfoQueue1_PushStorageFilter(queue, &filter), S_OK);
    UINT64 denied = ID3D12InfoQueue1_GetNumMessagesDeniedByStorageFilter(queue);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("denied by the sentinel ID");
    CHECK_EQ_INT(shim.report(&m), S_OK); /* filtered by the application, not rejected */
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 1); /* only the initialization message */
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumMessagesDeniedByStorageFilter(queue), denied + 1);
    ID3D12InfoQueue1_PopStorageFilter(queue);
    m = driver_message("allowed again");
    CHECK_EQ_INT(shim.report(&m), S_OK);
    CHECK_EQ_INT(count_driver_messages(queue, NULL), 2);
    release_last(device, queue);
}

static unsigned g_calls;
static char g_last[256];
static D3D12_MESSAGE_CATEGORY g_category;
static D3D12_MESSAGE_SEVERITY g_severity;

static void on_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                       LPCSTR description, void *context)
{
    (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
        return;
    g_calls++;
    g_category = category;
    g_severity = severity;
    snprintf(g_last, sizeof g_last, "%s", description);
}

/* The spec's sample: a registered callback sees driver messages, mapped severity and category, the text
 * verbatim ("embedded '\n' characters ... are preserved"), one entry per report. */
static void test_callback_verbatim(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(queue, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                          NULL, &cookie), S_OK);
    char text[] = "line one\nline two: 100%% %s [Draw #1]";
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message(text);
    m.Severity = D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION;
    m.Category = D3D12DDI_MESSAGE_CATEGORY_0126_STATE_OBJECT_DATABASE;
    CHECK_EQ_INT(shim.report(&m), S_OK);
    memset(text, 'x', sizeof text - 1); /* the runtime copied it before returning */
    CHECK_EQ_INT(g_calls, 1);
    CHECK_EQ_STR(g_last, "line one\nline two: 100%% %s [Draw #1]");
    CHECK_EQ_INT(g_category, D3D12_MESSAGE_CATEGORY_STATE_OBJECT_DATABASE);
    CHECK_EQ_INT(g_severity, D3D12_MESSAGE_SEVERITY_CORRUPTION);
    D3D12_MESSAGE *last;
    CHECK_EQ_INT(count_driver_messages(queue, &last), 2);
    if (last)
        CHECK_EQ_STR(last->pDescription, "line one\nline two: 100%% %s [Draw #1]");
    free(last);
    CHECK_EQ_INT(ID3D12InfoQueue1_UnregisterMessageCallback(queue, cookie), S_OK);
    release_last(device, queue);
}

/* pfnQueryObjectIdentityCb on the device: the pointer the application holds, unnamed then named. */
static void test_device_identity(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = create_device();
    if (!device)
        return;
    char expected[128], buffer[128];
    SIZE_T size = 0;
    snprintf(expected, sizeof expected, "0x%016llX:'Unnamed ID3D12Device Object'",
             (unsigned long long)(uintptr_t)device);
    CHECK_EQ_INT(shim.identity(NULL, D3D12DDI_HT_D12RT_DEVICE, &size, NULL), S_OK);
    CHECK_EQ_INT(size, strlen(expected) + 1);
    CHECK_EQ_INT(shim.identity(NULL, D3D12DDI_HT_D12RT_DEVICE, &size, buffer), S_OK);
    CHECK_EQ_STR(buffer, expected);
    CHECK_EQ_INT(ID3D12Device_SetName(device, L"Gr\u00FC\u00DFe"), S_OK);
    snprintf(expected, sizeof expected, "0x%016llX:'Gr\xC3\xBC\xC3\x9F" "e'", (unsigned long long)(uintptr_t)device);
    size = sizeof buffer;
    CHECK_EQ_INT(shim.identity(NULL, D3D12DDI_HT_D12RT_DEVICE, &size, buffer), S_OK);
    CHECK_EQ_STR(buffer, expected);
    CHECK_EQ_INT(size, strlen(expected) + 1); /* bytes of UTF-8, NUL included */
    CHECK_EQ_INT(shim.identity(NULL, D3D12DDI_HT_COMMAND_LIST, &size, buffer), E_INVALIDARG);
    CHECK_EQ_INT(shim.identity((void *)(uintptr_t)0x1000, D3D12DDI_HT_D12RT_DEVICE, &size, buffer), E_INVALIDARG);
    release_last(device, NULL);
}

/* ======== GPU work: flush timing, correlation, retention, removal, threads, re-entrancy ======== */

/* ---- Driver messages the application's callback saw (every thread), in order ---- */

typedef struct logged {
    char *text;
    pthread_t thread;
} logged;

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static logged *g_log;
static unsigned g_log_count, g_log_capacity;
/* Called (outside g_log_lock) for every driver message the callback sees: the re-entrancy case's hook. */
static void (*g_hook)(const char *text);

static void log_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                        LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
        return;
    pthread_mutex_lock(&g_log_lock);
    if (g_log_count == g_log_capacity) {
        g_log_capacity = g_log_capacity ? 2 * g_log_capacity : 256;
        g_log = realloc(g_log, g_log_capacity * sizeof *g_log);
    }
    g_log[g_log_count].text = strdup(description);
    g_log[g_log_count].thread = pthread_self();
    g_log_count++;
    pthread_mutex_unlock(&g_log_lock);
    if (g_hook)
        g_hook(description);
}

static unsigned log_count(void)
{
    pthread_mutex_lock(&g_log_lock);
    unsigned count = g_log_count;
    pthread_mutex_unlock(&g_log_lock);
    return count;
}

/* Entry i (its text stays valid to the end of the process). */
static const char *log_text(unsigned i)
{
    pthread_mutex_lock(&g_log_lock);
    const char *text = i < g_log_count ? g_log[i].text : NULL;
    pthread_mutex_unlock(&g_log_lock);
    return text;
}

static unsigned log_containing(const char *text, const char **first)
{
    unsigned found = 0;
    if (first)
        *first = NULL;
    pthread_mutex_lock(&g_log_lock);
    for (unsigned i = 0; i < g_log_count; i++) {
        if (strstr(g_log[i].text, text)) {
            if (found++ == 0 && first)
                *first = g_log[i].text;
        }
    }
    pthread_mutex_unlock(&g_log_lock);
    return found;
}

/* The last message's text. */
static const char *log_last(void)
{
    unsigned count = log_count();
    return count ? log_text(count - 1) : NULL;
}

/* ---- The application's objects ---- */

#define KEEP_MAX 64

typedef struct env {
    ID3D12Device *device;
    ID3D12InfoQueue1 *iq; /* NULL without the debug layer */
    ID3D12CommandQueue *queue;
    ID3D12Fence *fence;
    UINT64 value;
    ID3D12GraphicsCommandList *idle; /* closed and empty: executing it is a flush point */
    IUnknown *keep[KEEP_MAX];        /* released at env_close */
    unsigned kept;
} env;

static void keep(env *e, void *object)
{
    if (CHECK(e->kept < KEEP_MAX) && object)
        e->keep[e->kept++] = object;
}

static ID3D12CommandQueue *new_queue(env *e, D3D12_COMMAND_LIST_TYPE type)
{
    D3D12_COMMAND_QUEUE_DESC desc = {type, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    ID3D12CommandQueue *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandQueue(e->device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK);
    return queue;
}

/* An open list on a fresh allocator (the list holds it while recording), named when `name` is not NULL. */
static ID3D12GraphicsCommandList *new_list_of(env *e, D3D12_COMMAND_LIST_TYPE type, const wchar_t *name)
{
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(e->device, type, &IID_ID3D12CommandAllocator,
                                                     (void **)&allocator), S_OK);
    if (!allocator)
        return NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandList(e->device, 0, type, allocator, NULL, &IID_ID3D12GraphicsCommandList,
                                                (void **)&list), S_OK);
    ID3D12CommandAllocator_Release(allocator);
    if (list && name)
        CHECK_EQ_INT(ID3D12GraphicsCommandList_SetName(list, name), S_OK);
    return list;
}

static ID3D12GraphicsCommandList *new_list(env *e, const wchar_t *name)
{
    return new_list_of(e, D3D12_COMMAND_LIST_TYPE_DIRECT, name);
}

static void reset_list(env *e, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandAllocator *allocator = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommandAllocator(e->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    if (!allocator)
        return;
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Reset(list, allocator, NULL), S_OK);
    ID3D12CommandAllocator_Release(allocator);
}

static ID3D12Resource *new_buffer(env *e, D3D12_HEAP_TYPE heap_type, UINT64 width, D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {heap_type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(e->device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&buffer), S_OK);
    keep(e, buffer);
    return buffer;
}

static void execute_on(ID3D12CommandQueue *queue, ID3D12GraphicsCommandList *list)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
    ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
}

static void execute(env *e, ID3D12GraphicsCommandList *list)
{
    execute_on(e->queue, list);
}

/* Wait for `fence` to reach `value`: on an eventfd (as a Linux D3D12 application does) or a NULL event. */
static bool wait_fence(ID3D12Fence *fence, UINT64 value, bool use_eventfd)
{
    if (!use_eventfd)
        return CHECK(SUCCEEDED(ID3D12Fence_SetEventOnCompletion(fence, value, NULL)));
    int event = eventfd(0, EFD_CLOEXEC);
    if (!CHECK(event >= 0))
        return false;
    bool ok = CHECK(SUCCEEDED(ID3D12Fence_SetEventOnCompletion(fence, value, (HANDLE)(intptr_t)event)));
    struct pollfd waiting = {event, POLLIN, 0};
    ok = ok && CHECK(poll(&waiting, 1, 10000) == 1);
    /* Reading the count is what orders the runtime's write before our close() for ThreadSanitizer (poll readiness
     * is invisible to it). */
    uint64_t count = 0;
    ok = ok && CHECK(read(event, &count, sizeof count) == (ssize_t)sizeof count && count >= 1);
    close(event);
    return ok;
}

/* Signal the queue and wait until the GPU got there. */
static void signal_wait_on(env *e, ID3D12CommandQueue *queue, bool use_eventfd)
{
    e->value++;
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(queue, e->fence, e->value), S_OK);
    wait_fence(e->fence, e->value, use_eventfd);
    CHECK(ID3D12Fence_GetCompletedValue(e->fence) >= e->value);
}

static void signal_wait(env *e)
{
    signal_wait_on(e, e->queue, true);
}

static bool env_open(env *e, bool debug_layer, int drm)
{
    memset(e, 0, sizeof *e);
    debug_settings(debug_layer, drm);
    e->device = create_device();
    if (!e->device)
        return false;
    if (debug_layer) {
        e->iq = info_queue_of(e->device);
        DWORD cookie = 0;
        if (e->iq)
            CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(e->iq, log_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE,
                                                                  NULL, &cookie), S_OK);
    }
    e->queue = new_queue(e, D3D12_COMMAND_LIST_TYPE_DIRECT);
    CHECK_EQ_INT(ID3D12Device_CreateFence(e->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&e->fence),
                 S_OK);
    e->idle = new_list(e, L"Idle");
    if (e->idle)
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(e->idle), S_OK);
    return CHECK(e->queue && e->fence && e->idle);
}

static void release_queue(env *e)
{
    if (e->queue)
        CHECK_EQ_INT(ID3D12CommandQueue_Release(e->queue), 0);
    e->queue = NULL;
}

static void env_close(env *e)
{
    release_queue(e);
    if (e->idle)
        ID3D12GraphicsCommandList_Release(e->idle);
    if (e->fence)
        ID3D12Fence_Release(e->fence);
    while (e->kept) {
        IUnknown *object = e->keep[--e->kept];
        IUnknown_Release(object);
    }
    if (e->device)
        release_last(e->device, e->iq);
}

/* "0x<list>:'<name>' [<kind> #<ordinal>] " */
static void prefix_of(char *out, size_t size, const void *list, const char *name, const char *kind, unsigned ordinal)
{
    if (name)
        snprintf(out, size, "0x%016llX:'%s' [%s #%u] ", (unsigned long long)(uintptr_t)list, name, kind, ordinal);
    else
        snprintf(out, size, "0x%016llX:'Unnamed ID3D12GraphicsCommandList Object' [%s #%u] ",
                 (unsigned long long)(uintptr_t)list, kind, ordinal);
}

static D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 indexed_message(const char *text, UINT32 index)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message(text);
    m.CommandListStateIndex = index;
    return m;
}

/* Report `text` with `index` as the driver and check the one message it produced is `expected_prefix` + text
 * (NULL: the text unmodified). */
static void expect_report(UINT32 index, const char *text, const char *expected_prefix)
{
    unsigned before = log_count();
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = indexed_message(text, index);
    CHECK_EQ_INT(shim.report(&m), S_OK);
    CHECK_EQ_INT(log_count(), before + 1);
    char expected[512];
    snprintf(expected, sizeof expected, "%s%s", expected_prefix ? expected_prefix : "", text);
    CHECK_EQ_STR(log_last(), expected);
}

/* The reference driver's execution-time finding for a vertex buffer view of 64 bytes over a 48-byte buffer. */
#define VB_TEXT "The vertex buffer view in slot 0 covers 64 bytes from offset 0 of "
#define VB_FLOATS 12u

/* A closed list whose draw #`good_draws` has a vertex buffer view running 16 bytes past its 48-byte buffer (the
 * draws before it are fine), then copies the vertex buffer into *readback when asked. *bad_index: the state index
 * of the bad draw. */
static ID3D12GraphicsCommandList *buggy_list(env *e, const wchar_t *name, unsigned good_draws,
                                             ID3D12Resource **readback, UINT32 *bad_index)
{
    ID3D12Resource *vb = new_buffer(e, D3D12_HEAP_TYPE_UPLOAD, 48, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12GraphicsCommandList *list = new_list(e, name);
    if (!vb || !list)
        return list;
    float *data = NULL;
    CHECK_EQ_INT(ID3D12Resource_Map(vb, 0, NULL, (void **)&data), S_OK);
    if (data) {
        for (unsigned i = 0; i < VB_FLOATS; i++)
            data[i] = (float)(i + 1);
        ID3D12Resource_Unmap(vb, 0, NULL);
    }
    D3D12_VERTEX_BUFFER_VIEW good = {ID3D12Resource_GetGPUVirtualAddress(vb), 48, 16}, bad = good;
    bad.SizeInBytes = 64;
    ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &good);
    for (unsigned i = 0; i < good_draws; i++)
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &bad);
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    if (bad_index)
        *bad_index = shim.last_index();
    if (readback) {
        *readback = new_buffer(e, D3D12_HEAP_TYPE_READBACK, 48, D3D12_RESOURCE_STATE_COPY_DEST);
        if (*readback)
            ID3D12GraphicsCommandList_CopyBufferRegion(list, *readback, 0, vb, 0, 48);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    return list;
}

/* Whether the copy into `readback` landed (polled up to 5 s: the GPU timeline writes it). */
static bool copy_landed(ID3D12Resource *readback)
{
    volatile float *data = NULL;
    if (!readback || FAILED(ID3D12Resource_Map(readback, 0, NULL, (void **)&data)) || !data)
        return false;
    bool landed = false;
    for (int tries = 0; tries < 5000 && !landed; tries++) {
        landed = data[VB_FLOATS - 1] == (float)VB_FLOATS;
        if (!landed)
            usleep(1000);
    }
    for (unsigned i = 0; landed && i < VB_FLOATS; i++)
        landed = data[i] == (float)(i + 1);
    ID3D12Resource_Unmap(readback, 0, NULL);
    return landed;
}

/* The one VB finding logged so far starts with the prefix of `list`'s draw #`ordinal`. */
static void expect_vb_finding(unsigned count, const void *list, const char *name, unsigned ordinal)
{
    const char *first;
    CHECK_EQ_INT(log_containing(VB_TEXT, &first), count);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, name, "Draw", ordinal);
    if (CHECK(first != NULL) && !CHECK(strncmp(first, prefix, strlen(prefix)) == 0))
        fprintf(stderr, "    message \"%s\"\n    expected prefix \"%s\"\n", first, prefix);
    if (first)
        CHECK(strstr(first, "which has 48 bytes: 16 bytes past its end.") != NULL);
}

/* ---- Flush timing ---- */

/* (a) "an application that submits work but never calls ID3D12CommandQueue::Signal may see no flush from that queue
 * until it is destroyed": the finding is on the driver's pending list (the copy after the draw landed), later
 * ExecuteCommandLists and Wait calls do not flush, the final Release does and the finding arrives correlated. */
static void test_flush_no_signal(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12Resource *readback = NULL;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"NoSignal", 1, &readback, NULL);
    unsigned flushes = shim.flush_calls();
    execute(&e, list);
    CHECK(copy_landed(readback)); /* the draw ran: the driver holds its finding */
    for (int i = 0; i < 5; i++) {
        execute(&e, e.idle);
        CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, 0), S_OK);
    }
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0);
    release_queue(&e); /* "Queue destruction flushes unconditionally" */
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    expect_vb_finding(1, list, "NoSignal", 1);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* (b) Signal, wait for the fence on an eventfd: nothing arrives until the NEXT ExecuteCommandLists, which flushes
 * once and delivers the finding. */
static void test_flush_on_execute(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = buggy_list(&e, NULL, 2, NULL, NULL);
    execute(&e, list);
    unsigned flushes = shim.flush_calls();
    signal_wait_on(&e, e.queue, true);
    CHECK_EQ_INT(shim.flush_calls(), flushes); /* completion alone flushes nothing: no thread of the runtime's */
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    expect_vb_finding(1, list, NULL, 2);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* (b) likewise ID3D12CommandQueue::Wait, the fence waited for with a NULL event (SetEventOnCompletion blocks). */
static void test_flush_on_wait(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"WaitFlush", 0, NULL, NULL);
    execute(&e, list);
    unsigned flushes = shim.flush_calls();
    signal_wait_on(&e, e.queue, false);
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, e.value), S_OK);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    expect_vb_finding(1, list, "WaitFlush", 0);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* (c) "a flush issued from one queue is an opportunity for the driver to report messages for work on any queue":
 * queue A does the buggy work and signals; queue B (compute) flushes from ExecuteCommandLists, then from Wait. */
static void test_flush_cross_queue(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12CommandQueue *other = new_queue(&e, D3D12_COMMAND_LIST_TYPE_COMPUTE);
    ID3D12GraphicsCommandList *compute_idle = new_list_of(&e, D3D12_COMMAND_LIST_TYPE_COMPUTE, NULL);
    if (!other || !compute_idle) {
        env_close(&e);
        return;
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(compute_idle), S_OK);
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"QueueA", 1, NULL, NULL);
    execute(&e, list);
    signal_wait(&e);
    unsigned flushes = shim.flush_calls();
    execute_on(other, compute_idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    expect_vb_finding(1, list, "QueueA", 1);

    execute(&e, list); /* again: the next finding through B's Wait */
    signal_wait(&e);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 1);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(other, e.fence, e.value), S_OK);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 2);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 2);
    CHECK_EQ_INT(ID3D12CommandQueue_Release(other), 0);
    ID3D12GraphicsCommandList_Release(compute_idle);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* (d) "The first two flush only for work the runtime has already observed to be complete": no completion, no
 * flush; one completion, one flush; a CPU-side fence Signal is no completion. */
static void test_flush_nothing_completed(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    unsigned flushes = shim.flush_calls();
    CHECK_EQ_INT(flushes, 0); /* creating the device, queue, list and fence flushed nothing */
    for (int i = 0; i < 10; i++) {
        execute(&e, e.idle);
        CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, 0), S_OK);
    }
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    for (int i = 0; i < 10; i++) {
        execute(&e, e.idle);
        CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, e.value), S_OK);
    }
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    CHECK_EQ_INT(ID3D12Fence_Signal(e.fence, e.value + 10), S_OK); /* the CPU timeline: not the queue's */
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    env_close(&e);
}

/* (e) "A flush carries work that has already completed — never the submission being made". */
static void test_flush_not_current_submission(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    /* No earlier completion: ExecuteCommandLists does not flush at all, and even once the work ran, the next one
     * does not (no Signal). */
    ID3D12Resource *readback = NULL;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Current", 0, &readback, NULL);
    unsigned flushes = shim.flush_calls();
    execute(&e, list);
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0);
    CHECK(copy_landed(readback));
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0);
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    expect_vb_finding(1, list, "Current", 0);

    /* Earlier work completed: this ExecuteCommandLists flushes, but for that work, not for its own lists. */
    execute(&e, e.idle);
    signal_wait(&e);
    execute(&e, list);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 2);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 1);
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 3);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 2);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* (f) "pfnFlushDriverReportedMessages is always issued on an application thread, from inside an API call the
 * application made": every flush ran on the main thread or the second application thread, both flushed, and the
 * finding reached the callback on the thread whose call flushed. */
typedef struct flush_thread_args {
    env *e;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
} flush_thread_args;

static void *flush_thread_main(void *argument)
{
    flush_thread_args *args = argument;
    execute(args->e, args->list);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(args->e->queue, args->fence, 1), S_OK);
    wait_fence(args->fence, 1, true);
    execute(args->e, args->e->idle);
    return NULL;
}

static void test_flush_app_thread(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Threaded", 0, NULL, NULL);
    flush_thread_args args = {&e, list, NULL};
    CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                          (void **)&args.fence), S_OK);
    pthread_t app;
    CHECK_EQ_INT(pthread_create(&app, NULL, flush_thread_main, &args), 0);
    pthread_join(app, NULL);
    unsigned after_thread = shim.flush_calls();
    CHECK(after_thread >= 1);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 1);
    pthread_mutex_lock(&g_log_lock);
    for (unsigned i = 0; i < g_log_count; i++)
        if (strstr(g_log[i].text, VB_TEXT))
            CHECK(pthread_equal(g_log[i].thread, app));
    pthread_mutex_unlock(&g_log_lock);
    execute(&e, list);
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 2);
    release_queue(&e);
    unsigned total = shim.flush_calls();
    CHECK(total >= after_thread + 2);
    bool saw_main = false, saw_app = false;
    for (unsigned i = 0; i < total; i++) {
        pthread_t thread;
        if (!CHECK(shim.flush_thread(i, &thread)))
            continue;
        bool is_main = pthread_equal(thread, pthread_self()), is_app = pthread_equal(thread, app);
        CHECK(is_main || is_app);
        saw_main |= is_main;
        saw_app |= is_app;
    }
    CHECK(saw_main && saw_app);
    ID3D12Fence_Release(args.fence);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* ---- Correlation ---- */

typedef struct work {
    const char *kind;
    unsigned ordinal;
    UINT32 index;
} work;

/* "<identity> [Draw #N] " for every kind of GPU work, ordinals per kind from 0, one pfnSetCommandListStateIndex per
 * work call and none for state calls; the identity follows SetName. */
static void test_corr_kinds(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12Resource *src = new_buffer(&e, D3D12_HEAP_TYPE_UPLOAD, 256, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12Resource *dst = new_buffer(&e, D3D12_HEAP_TYPE_DEFAULT, 256, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12Resource *ib = new_buffer(&e, D3D12_HEAP_TYPE_UPLOAD, 64, D3D12_RESOURCE_STATE_GENERIC_READ);
    ID3D12GraphicsCommandList *list = new_list(&e, NULL);
    if (!src || !dst || !ib || !list) {
        env_close(&e);
        return;
    }
    unsigned calls = shim.index_calls();
    D3D12_INDEX_BUFFER_VIEW ibv = {ID3D12Resource_GetGPUVirtualAddress(ib), 64, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetIndexBuffer(list, &ibv);
    D3D12_VERTEX_BUFFER_VIEW vbv = {ID3D12Resource_GetGPUVirtualAddress(src), 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &vbv);
    CHECK_EQ_INT(shim.index_calls(), calls); /* state calls issue nothing */
    static const char *const sequence[] = {"Draw", "Draw", "DrawIndexed", "Dispatch", "CopyBufferRegion",
                                           "CopyResource", "Draw", "DrawIndexed", "Dispatch", "CopyBufferRegion",
                                           "CopyResource", "Dispatch", "CopyBufferRegion", "Draw"};
    enum { N = sizeof sequence / sizeof sequence[0] };
    work done[N];
    for (unsigned i = 0; i < N; i++) {
        const char *kind = sequence[i];
        if (strcmp(kind, "Draw") == 0)
            ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        else if (strcmp(kind, "DrawIndexed") == 0)
            ID3D12GraphicsCommandList_DrawIndexedInstanced(list, 3, 1, 0, 0, 0);
        else if (strcmp(kind, "Dispatch") == 0)
            ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
        else if (strcmp(kind, "CopyBufferRegion") == 0)
            ID3D12GraphicsCommandList_CopyBufferRegion(list, dst, 16, src, 0, 16);
        else
            ID3D12GraphicsCommandList_CopyResource(list, dst, src);
        CHECK_EQ_INT(shim.index_calls(), calls + i + 1);
        done[i].kind = kind;
        done[i].ordinal = 0;
        for (unsigned j = 0; j < i; j++)
            done[i].ordinal += strcmp(sequence[j], kind) == 0;
        done[i].index = shim.last_index();
        CHECK(done[i].index != 0xFFFFFFFFu);
        for (unsigned j = 0; j < i; j++)
            CHECK(done[j].index != done[i].index);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    CHECK_EQ_INT(log_count(), 0); /* nothing the driver found while recording */
    char prefix[256], text[64];
    for (unsigned i = N; i-- > 0;) { /* any order */
        prefix_of(prefix, sizeof prefix, list, NULL, done[i].kind, done[i].ordinal);
        snprintf(text, sizeof text, "finding %u", i);
        expect_report(done[i].index, text, prefix);
    }
    /* The identity is resolved when the message is: the name "from the future". */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_SetName(list, L"Kinds \u00E9"), S_OK);
    prefix_of(prefix, sizeof prefix, list, "Kinds \xC3\xA9", "CopyResource", 1);
    expect_report(done[10].index, "renamed", prefix);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* "before each draw, dispatch, or other GPU-work generating command list API call": ResourceBarrier gets a state
 * index like the others, resolved as "[ResourceBarrier #N]" with its own ordinals; a barrier the runtime drops (a
 * NULL resource) gets none. Before the fix ResourceBarrier issued no index. */
static void test_corr_resource_barrier(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12Resource *buffer = new_buffer(&e, D3D12_HEAP_TYPE_DEFAULT, 256, D3D12_RESOURCE_STATE_COPY_DEST);
    ID3D12GraphicsCommandList *list = new_list(&e, L"Barriers");
    if (!buffer || !list) {
        env_close(&e);
        return;
    }
    D3D12_RESOURCE_BARRIER barrier = {D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, D3D12_RESOURCE_BARRIER_FLAG_NONE,
                                      .Transition = {buffer, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                                                     D3D12_RESOURCE_STATE_COPY_DEST,
                                                     D3D12_RESOURCE_STATE_GENERIC_READ}};
    unsigned calls = shim.index_calls();
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
    CHECK_EQ_INT(shim.index_calls(), calls + 1);
    UINT32 first = shim.last_index();
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 draw = shim.last_index();
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_GENERIC_READ;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_COPY_DEST;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
    CHECK_EQ_INT(shim.index_calls(), calls + 3);
    UINT32 second = shim.last_index();
    CHECK(first != 0xFFFFFFFFu && second != first && second != draw);
    /* Dropped by the runtime (and Close then fails): no index. */
    barrier.Transition.pResource = NULL;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
    CHECK_EQ_INT(shim.index_calls(), calls + 3);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Barriers", "ResourceBarrier", 0);
    expect_report(first, "barrier finding", prefix);
    prefix_of(prefix, sizeof prefix, list, "Barriers", "ResourceBarrier", 1);
    expect_report(second, "second barrier finding", prefix);
    prefix_of(prefix, sizeof prefix, list, "Barriers", "Draw", 0);
    expect_report(draw, "draw finding", prefix);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* "Messages whose index is 0xFFFFFFFF, unknown, or no longer resolvable are surfaced unmodified." */
static void test_corr_bogus_indices(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list(&e, L"Bogus");
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 index = shim.last_index();
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Bogus", "Draw", 0);
    expect_report(index, "the real one", prefix);
    expect_report(0xFFFFFFFFu, "no correlation [Draw #0] ", NULL);
    expect_report(index + 1, "never issued (the rest of the block)", NULL);
    expect_report(index + 64, "never issued (the next block)", NULL);
    expect_report(index ^ 0x80000000u, "far away", NULL);
    expect_report(0xFFFFFFFEu, "the last value", NULL);
    expect_report(0x7FFFFFFFu, "the middle", NULL);
    expect_report(index, "still the real one", prefix);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* "A driver that detects a problem while recording ... may report it immediately": DrawIndexedInstanced with no
 * index buffer arrives from inside the call, correlated to it, with no flush. */
static void test_corr_record_time(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list(&e, L"Recorder");
    ID3D12Resource *ib = new_buffer(&e, D3D12_HEAP_TYPE_UPLOAD, 64, D3D12_RESOURCE_STATE_GENERIC_READ);
    if (!list || !ib) {
        env_close(&e);
        return;
    }
    unsigned flushes = shim.flush_calls();
    char expected[512], prefix[256];
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    CHECK_EQ_INT(log_count(), 0);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    CHECK_EQ_INT(log_count(), 1);
    prefix_of(prefix, sizeof prefix, list, "Recorder", "DrawIndexed", 0);
    snprintf(expected, sizeof expected, "%sNo index buffer is bound; the indices read are undefined.", prefix);
    CHECK_EQ_STR(log_last(), expected);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    CHECK_EQ_INT(log_count(), 2);
    prefix_of(prefix, sizeof prefix, list, "Recorder", "DrawIndexed", 1);
    snprintf(expected, sizeof expected, "%sNo index buffer is bound; the indices read are undefined.", prefix);
    CHECK_EQ_STR(log_last(), expected);
    D3D12_INDEX_BUFFER_VIEW ibv = {ID3D12Resource_GetGPUVirtualAddress(ib), 64, DXGI_FORMAT_R16_UINT};
    ID3D12GraphicsCommandList_IASetIndexBuffer(list, &ibv);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(list, 3, 1, 0, 0, 0);
    CHECK_EQ_INT(log_count(), 2); /* the negative: bound, no finding */
    CHECK_EQ_INT(shim.flush_calls(), flushes);
    if (e.iq) /* stored as well, with the driver-reported ID */
        CHECK_EQ_INT(count_driver_messages(e.iq, NULL), 3);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* A root CBV at GPU virtual address 0 at a Dispatch is reported as that dispatch, at record time. */
static void test_corr_root_cbv_dispatch(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list_of(&e, D3D12_COMMAND_LIST_TYPE_COMPUTE, L"Compute");
    if (!list) {
        env_close(&e);
        return;
    }
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    CHECK_EQ_INT(log_count(), 0);
    ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(list, 3, 0);
    CHECK_EQ_INT(log_count(), 0); /* found at the work, not at the binding */
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    CHECK_EQ_INT(log_count(), 1);
    char expected[512], prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Compute", "Dispatch", 2);
    snprintf(expected, sizeof expected, "%sRoot parameter 3 is a root CBV bound to GPU virtual address 0.", prefix);
    CHECK_EQ_STR(log_last(), expected);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* ---- Retention ---- */

/* "A command list that is recorded but never submitted has no such flush; its indices stay resolvable until the
 * command list is reset or destroyed." */
static void test_retain_unsubmitted(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list(&e, L"Unsubmitted");
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 first = shim.last_index();
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 second = shim.last_index();
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Unsubmitted", "Draw", 1);
    expect_report(second, "while recording", prefix);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    prefix_of(prefix, sizeof prefix, list, "Unsubmitted", "Draw", 0);
    expect_report(first, "closed", prefix);
    reset_list(&e, list);
    expect_report(first, "after Reset", NULL);
    expect_report(second, "after Reset too", NULL);
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 fresh = shim.last_index();
    CHECK(fresh != first && fresh != second);
    expect_report(fresh, "the new recording", prefix); /* ordinals start again from 0 */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);

    ID3D12GraphicsCommandList *doomed = new_list(&e, L"NeverSubmitted");
    ID3D12GraphicsCommandList_DrawInstanced(doomed, 3, 1, 0, 0);
    UINT32 gone = shim.last_index();
    prefix_of(prefix, sizeof prefix, doomed, "NeverSubmitted", "Draw", 0);
    expect_report(gone, "alive", prefix);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(doomed), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Release(doomed), 0);
    expect_report(gone, "destroyed", NULL);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* "Reset installs a fresh table for the new recording while any in-flight submission keeps a reference to the old
 * one": the old indices resolve outside any flush and from inside the flush that retires the submission, not after
 * it; the new recording's resolve throughout. */
static void test_retain_reset_in_flight(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list(&e, L"Resetting");
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 old0 = shim.last_index();
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 old1 = shim.last_index();
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    execute(&e, list); /* no Signal yet: the runtime cannot have retired it */
    reset_list(&e, list);
    ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
    UINT32 new0 = shim.last_index();
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    char old_prefix0[256], old_prefix1[256], new_prefix[256];
    prefix_of(old_prefix0, sizeof old_prefix0, list, "Resetting", "Draw", 0);
    prefix_of(old_prefix1, sizeof old_prefix1, list, "Resetting", "Draw", 1);
    prefix_of(new_prefix, sizeof new_prefix, list, "Resetting", "Dispatch", 0);
    expect_report(old1, "in flight, outside a flush", old_prefix1);
    expect_report(new0, "new recording", new_prefix);

    signal_wait(&e);
    expect_report(old1, "completed, not flushed yet", old_prefix1);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 staged = indexed_message("from inside the retiring flush", old0);
    CHECK(shim.stage(&staged));
    unsigned flushes = shim.flush_calls(), before = log_count();
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    CHECK_EQ_INT(shim.staged_reported(), 1);
    CHECK_EQ_INT(log_count(), before + 1);
    char expected[512];
    snprintf(expected, sizeof expected, "%sfrom inside the retiring flush", old_prefix0);
    CHECK_EQ_STR(log_last(), expected);
    expect_report(old0, "after the retiring flush", NULL);
    expect_report(old1, "after the retiring flush too", NULL);
    expect_report(new0, "the list's current recording", new_prefix);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* "Indices are not invalidated by resubmission": the reference driver re-reports per execution, and every
 * execution's finding is correlated, before and after an earlier submission was retired. */
static void test_retain_resubmit(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Resubmitted", 2, NULL, NULL);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Resubmitted", "Draw", 2);
    execute(&e, list);
    execute(&e, list);
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 2);
    CHECK_EQ_INT(log_containing(prefix, NULL), 2);
    execute(&e, list); /* after both earlier submissions were retired */
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 3);
    CHECK_EQ_INT(log_containing(prefix, NULL), 3);
    pthread_mutex_lock(&g_log_lock);
    for (unsigned i = 0; i < g_log_count; i++)
        if (strstr(g_log[i].text, VB_TEXT))
            CHECK(strncmp(g_log[i].text, prefix, strlen(prefix)) == 0);
    pthread_mutex_unlock(&g_log_lock);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* D12RT_MAX_LIVE_STATE_INDICES=64: "if the application outruns the runtime's limit on live state indices, the
 * oldest are dropped even while their submissions are outstanding, and a message referencing one is still
 * delivered but without command list annotation". */
static void test_retain_limit(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    enum { DRAWS = 100, LIVE = 64 };
    ID3D12GraphicsCommandList *list = new_list(&e, L"Outrun");
    UINT32 index[DRAWS];
    for (unsigned i = 0; i < DRAWS; i++) {
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        index[i] = shim.last_index();
        CHECK(index[i] != 0xFFFFFFFFu);
    }
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    execute(&e, list); /* outstanding: no Signal */
    char prefix[256], text[64];
    for (unsigned i = 0; i < DRAWS; i++) {
        snprintf(text, sizeof text, "draw %u", i);
        prefix_of(prefix, sizeof prefix, list, "Outrun", "Draw", i);
        /* draws 0..63 took the first block, draw 64 the second, which evicted the first (one slot) */
        expect_report(index[i], text, i < LIVE ? NULL : prefix);
    }
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

/* A list released while its submission is retained still resolves to its identity (its pointer and name), from
 * outside a flush and from the driver's finding in the retiring flush; not after that flush. */
static void test_retain_destroyed_list(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    UINT32 bad = 0xFFFFFFFFu;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Doomed", 1, NULL, &bad);
    const void *address = list;
    char prefix[256];
    prefix_of(prefix, sizeof prefix, address, "Doomed", "Draw", 1);
    execute(&e, list);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Release(list), 0);
    expect_report(bad, "released, submission in flight", prefix);
    signal_wait(&e);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 staged = indexed_message("staged for the destroyed list", bad);
    CHECK(shim.stage(&staged));
    execute(&e, e.idle);
    expect_vb_finding(1, address, "Doomed", 1);
    CHECK_EQ_INT(log_containing(prefix, NULL), 3); /* the direct report, the staged one, the finding */
    expect_report(bad, "after the retiring flush", NULL);
    env_close(&e);
}

/* An ExecuteCommandLists racing a Signal on the same queue from another thread: the runtime has counted the
 * submission (queue.c record_submission) but not yet handed it to the driver when the Signal reaches the driver
 * first. The GPU reaches that Signal with the submission not even submitted, so the flush after it is not "the
 * flush for the submission that carried" the indices; they must stay resolvable until the flush after the
 * submission really completed ("valid from the time it is issued until the flush for the submission that carried
 * it has completed"). The list is released once ExecuteCommandLists returned, so only the submission's retention
 * keeps them. */
typedef struct race_args {
    env *e;
    ID3D12GraphicsCommandList *list;
} race_args;

static void *race_execute(void *argument)
{
    race_args *args = argument;
    execute(args->e, args->list);
    return NULL;
}

static void test_retain_execute_signal_race(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    UINT32 bad = 0xFFFFFFFFu;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Raced", 0, NULL, &bad);
    const void *address = list;
    char prefix[256];
    prefix_of(prefix, sizeof prefix, address, "Raced", "Draw", 0);
    shim.gate_arm();
    race_args args = {&e, list};
    pthread_t racer;
    CHECK_EQ_INT(pthread_create(&racer, NULL, race_execute, &args), 0);
    shim.gate_wait_arrived(); /* the runtime counted the submission; the driver has not seen it */
    signal_wait(&e);          /* reaches the driver first, and the GPU reaches it */
    execute(&e, e.idle);      /* a flush for that completion */
    shim.gate_open();
    pthread_join(racer, NULL);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Release(list), 0);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 0); /* the draw had not run at that flush */
    expect_report(bad, "the submission has not completed", prefix);
    signal_wait(&e);
    execute(&e, e.idle);
    expect_vb_finding(1, address, "Raced", 0);
    env_close(&e);
}

/* ---- Device removal ---- */

typedef struct removal_args {
    env *e;
    pthread_barrier_t *start;
    unsigned wrong;
} removal_args;

static void *removal_thread(void *argument)
{
    removal_args *args = argument;
    pthread_barrier_wait(args->start);
    for (int i = 0; i < 200; i++) {
        if (ID3D12Device_GetDeviceRemovedReason(args->e->device) != DXGI_ERROR_INVALID_CALL)
            args->wrong++;
        if (ID3D12Fence_GetCompletedValue(args->e->fence) != UINT64_MAX)
            args->wrong++;
    }
    return NULL;
}

/* Executing an open list removes the device with DXGI_ERROR_INVALID_CALL; however many threads then surface the
 * removal at once, exactly one removal flush is made, and it delivers what the driver held (the finding of the
 * work completed before, still correlated) and what it was about to report, once each. */
static void test_removal_open_list(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *buggy = buggy_list(&e, L"BeforeRemoval", 0, NULL, NULL);
    execute(&e, buggy);
    signal_wait(&e); /* completed, not flushed: no call into a queue since */
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 staged = driver_message("staged before the removal");
    CHECK(shim.stage(&staged));
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(e.device), S_OK);
    unsigned flushes = shim.flush_calls();
    ID3D12GraphicsCommandList *open = new_list(&e, L"StillOpen");
    ID3D12GraphicsCommandList_DrawInstanced(open, 3, 1, 0, 0);
    execute(&e, open);
    enum { THREADS = 8 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t threads[THREADS];
    removal_args args[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        args[i] = (removal_args){&e, &start, 0};
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, removal_thread, &args[i]), 0);
    }
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ_INT(args[i].wrong, 0);
    }
    pthread_barrier_destroy(&start);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    pthread_t flusher;
    if (CHECK(shim.flush_thread(flushes, &flusher))) {
        bool one_of_them = false;
        for (unsigned i = 0; i < THREADS; i++)
            one_of_them |= pthread_equal(flusher, threads[i]);
        CHECK(one_of_them);
    }
    CHECK_EQ_INT(log_containing("staged before the removal", NULL), 1);
    expect_vb_finding(1, buggy, "BeforeRemoval", 0);
    /* Later calls surface the removal again; no further removal flush. */
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(e.device), DXGI_ERROR_INVALID_CALL);
    CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(e.fence), UINT64_MAX);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(e.queue, e.fence, 100), DXGI_ERROR_DEVICE_REMOVED);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, 1), DXGI_ERROR_DEVICE_REMOVED);
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence),
                 DXGI_ERROR_DEVICE_REMOVED);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    CHECK_EQ_INT(log_containing("staged before the removal", NULL), 1);
    CHECK_EQ_INT(log_containing(VB_TEXT, NULL), 1);
    ID3D12GraphicsCommandList_Release(open);
    ID3D12GraphicsCommandList_Release(buggy);
    /* "Any messages that become available only after this flush call are not surfaced through this feature": not
     * even queue destruction flushes a removed device. */
    release_queue(&e);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    env_close(&e);
}

/* ---- Threads ---- */

enum { REPORTERS = 6, REPORTS = 400, SUBMITTERS = 3, ROUNDS = 60 };

typedef struct reporter_args {
    pthread_barrier_t *start;
    UINT32 index; /* odd reports carry it */
    unsigned refused;
    int id;
} reporter_args;

static void *reporter_thread(void *argument)
{
    reporter_args *args = argument;
    pthread_barrier_wait(args->start);
    char text[64];
    for (int k = 0; k < REPORTS; k++) {
        snprintf(text, sizeof text, "reporter %d message %d", args->id, k);
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = indexed_message(text, k % 2 ? args->index : 0xFFFFFFFFu);
        if (FAILED(shim.report(&m)))
            args->refused++;
    }
    return NULL;
}

typedef struct submitter_args {
    env *e;
    pthread_barrier_t *start;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    int id;
} submitter_args;

static void *submitter_thread(void *argument)
{
    submitter_args *args = argument;
    pthread_barrier_wait(args->start);
    char text[64];
    for (int k = 0; k < ROUNDS; k++) {
        snprintf(text, sizeof text, "staged %d round %d", args->id, k);
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message(text);
        shim.stage(&m);
        execute(args->e, args->list);
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(args->e->queue, args->fence, (UINT64)k + 1), S_OK);
        if (k % 4 == 3)
            wait_fence(args->fence, (UINT64)k + 1, k % 8 == 3);
        if (k % 5 == 0)
            CHECK_EQ_INT(ID3D12CommandQueue_Wait(args->e->queue, args->fence, 0), S_OK);
    }
    return NULL;
}

/* Driver threads report (half the reports correlated to a recorded list) while application threads execute,
 * signal, wait and stage messages the shim reports from inside whatever flushes happen: every message arrives
 * exactly once, the correlated ones annotated. */
static void test_threads_reporting(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *target = new_list(&e, L"Target");
    ID3D12GraphicsCommandList_DrawInstanced(target, 3, 1, 0, 0);
    UINT32 index = shim.last_index();
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(target), S_OK);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, target, "Target", "Draw", 0);
    unsigned base = log_count();

    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, REPORTERS + SUBMITTERS);
    pthread_t threads[REPORTERS + SUBMITTERS];
    reporter_args reporters[REPORTERS];
    submitter_args submitters[SUBMITTERS];
    for (int i = 0; i < SUBMITTERS; i++) {
        submitters[i] = (submitter_args){&e, &start, new_list(&e, NULL), NULL, i};
        if (submitters[i].list) {
            ID3D12GraphicsCommandList_DrawInstanced(submitters[i].list, 3, 1, 0, 0);
            ID3D12GraphicsCommandList_Dispatch(submitters[i].list, 1, 1, 1);
            CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(submitters[i].list), S_OK);
        }
        CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&submitters[i].fence), S_OK);
    }
    for (int i = 0; i < REPORTERS; i++) {
        reporters[i] = (reporter_args){&start, index, 0, i};
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, reporter_thread, &reporters[i]), 0);
    }
    for (int i = 0; i < SUBMITTERS; i++)
        CHECK_EQ_INT(pthread_create(&threads[REPORTERS + i], NULL, submitter_thread, &submitters[i]), 0);
    for (int i = 0; i < REPORTERS + SUBMITTERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < REPORTERS; i++)
        CHECK_EQ_INT(reporters[i].refused, 0);
    /* What is still staged goes out with the next flush. */
    signal_wait(&e);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.staged_waiting(), 0);
    CHECK_EQ_INT(shim.staged_failed(), 0);
    CHECK_EQ_INT(shim.staged_reported(), SUBMITTERS * ROUNDS);
    CHECK(shim.flush_calls() >= 2);
    CHECK_EQ_INT(shim.nested_flushes(), 0);

    static unsigned reported[REPORTERS][REPORTS], staged[SUBMITTERS][ROUNDS];
    unsigned stray = 0, wrong_annotation = 0;
    size_t prefix_length = strlen(prefix);
    pthread_mutex_lock(&g_log_lock);
    CHECK_EQ_INT(g_log_count - base, REPORTERS * REPORTS + SUBMITTERS * ROUNDS);
    for (unsigned i = base; i < g_log_count; i++) {
        const char *text = g_log[i].text;
        bool annotated = strncmp(text, prefix, prefix_length) == 0;
        int a, b, n = 0;
        if (sscanf(annotated ? text + prefix_length : text, "reporter %d message %d%n", &a, &b, &n) == 2 &&
            a >= 0 && a < REPORTERS && b >= 0 && b < REPORTS && text[(annotated ? prefix_length : 0) + n] == 0) {
            reported[a][b]++;
            wrong_annotation += annotated != (b % 2 == 1);
        } else if (!annotated && sscanf(text, "staged %d round %d%n", &a, &b, &n) == 2 && a >= 0 &&
                   a < SUBMITTERS && b >= 0 && b < ROUNDS && text[n] == 0) {
            staged[a][b]++;
        } else {
            stray++;
        }
    }
    pthread_mutex_unlock(&g_log_lock);
    CHECK_EQ_INT(stray, 0);
    CHECK_EQ_INT(wrong_annotation, 0);
    unsigned not_once = 0;
    for (int a = 0; a < REPORTERS; a++)
        for (int b = 0; b < REPORTS; b++)
            not_once += reported[a][b] != 1;
    for (int a = 0; a < SUBMITTERS; a++)
        for (int b = 0; b < ROUNDS; b++)
            not_once += staged[a][b] != 1;
    CHECK_EQ_INT(not_once, 0);
    for (int i = 0; i < SUBMITTERS; i++) {
        if (submitters[i].list)
            ID3D12GraphicsCommandList_Release(submitters[i].list);
        if (submitters[i].fence)
            ID3D12Fence_Release(submitters[i].fence);
    }
    ID3D12GraphicsCommandList_Release(target);
    env_close(&e);
}

/* ---- Overlapping flushes (issue 8 item 2) ---- */

#define OVERLAP_THREADS 8
#define OVERLAP_ROUNDS 256

typedef struct overlap_args {
    env *e;
    pthread_barrier_t *start;
    ID3D12GraphicsCommandList *list; /* closed: its draw #0 reads 16 bytes past its vertex buffer */
    ID3D12Fence *fence;
    ID3D12Resource *vb;
} overlap_args;

/* Record the bad draw into `list` (open) and close it. */
static void record_bad_draw(ID3D12GraphicsCommandList *list, ID3D12Resource *vb)
{
    D3D12_VERTEX_BUFFER_VIEW bad = {ID3D12Resource_GetGPUVirtualAddress(vb), 64, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, 1, &bad);
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
}

/* Each round: execute the bad draw, signal, Reset the list at once (the submission alone holds the recording now),
 * wait for the GPU, then execute the idle list: the flush point for that completion, racing the other threads'. */
static void *overlap_thread(void *argument)
{
    overlap_args *args = argument;
    pthread_barrier_wait(args->start);
    for (UINT64 k = 1; k <= OVERLAP_ROUNDS; k++) {
        execute(args->e, args->list);
        CHECK_EQ_INT(ID3D12CommandQueue_Signal(args->e->queue, args->fence, k), S_OK);
        reset_list(args->e, args->list);
        record_bad_draw(args->list, args->vb);
        wait_fence(args->fence, k, true);
        execute(args->e, args->e->idle);
    }
    return NULL;
}

/* "the runtime references the command list's state table at ExecuteCommandLists time and releases it only once
 * that submission's messages have been processed": with 8 application threads submitting and flushing at once
 * (flushes overlapping in every order, the shim's jitter), every execution-time finding arrives annotated with its
 * own list's draw. Before the fix a flush that began before a submission completed retired it on return (one shared
 * mark per queue) while the flush for it was still running on another thread, and its finding arrived bare. */
static void test_flush_overlap(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    shim.flush_jitter(300);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, OVERLAP_THREADS);
    overlap_args args[OVERLAP_THREADS];
    pthread_t threads[OVERLAP_THREADS];
    wchar_t name[16];
    for (int i = 0; i < OVERLAP_THREADS; i++) {
        swprintf(name, 16, L"Overlap%d", i);
        args[i] = (overlap_args){&e, &start, new_list(&e, name), NULL,
                                 new_buffer(&e, D3D12_HEAP_TYPE_UPLOAD, 48, D3D12_RESOURCE_STATE_GENERIC_READ)};
        CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&args[i].fence), S_OK);
        if (!args[i].list || !args[i].fence || !args[i].vb)
            return;
        record_bad_draw(args[i].list, args[i].vb);
    }
    for (int i = 0; i < OVERLAP_THREADS; i++)
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, overlap_thread, &args[i]), 0);
    for (int i = 0; i < OVERLAP_THREADS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
    release_queue(&e); /* the last flush: whatever is left arrives now */
    shim.flush_jitter(0);

    unsigned annotated[OVERLAP_THREADS] = {0}, bare = 0, findings = 0;
    char prefix[OVERLAP_THREADS][256];
    for (int i = 0; i < OVERLAP_THREADS; i++) {
        char utf8[16];
        snprintf(utf8, sizeof utf8, "Overlap%d", i);
        prefix_of(prefix[i], sizeof prefix[i], args[i].list, utf8, "Draw", 0);
    }
    pthread_mutex_lock(&g_log_lock);
    for (unsigned m = 0; m < g_log_count; m++) {
        const char *text = g_log[m].text;
        if (!strstr(text, VB_TEXT))
            continue;
        findings++;
        bool known = false;
        for (int i = 0; i < OVERLAP_THREADS && !known; i++) {
            if (strncmp(text, prefix[i], strlen(prefix[i])) == 0) {
                annotated[i]++;
                known = true;
            }
        }
        if (!known && bare++ == 0)
            fprintf(stderr, "    unannotated: \"%s\"\n", text);
    }
    pthread_mutex_unlock(&g_log_lock);
    CHECK_EQ_INT(findings, OVERLAP_THREADS * OVERLAP_ROUNDS);
    CHECK_EQ_INT(bare, 0);
    for (int i = 0; i < OVERLAP_THREADS; i++) {
        CHECK_EQ_INT(annotated[i], OVERLAP_ROUNDS);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(args[i].list), E_FAIL); /* closed by record_bad_draw */
        ID3D12GraphicsCommandList_Release(args[i].list);
        ID3D12Fence_Release(args[i].fence);
    }
    env_close(&e);
}

/* ---- Re-entrancy ---- */

/* "It reports by calling pfnReportMessageCb one or more times from within the flush ... re-entering the runtime
 * this way is expected and supported": a staged report (correlated) reaches the InfoQueue's storage and the
 * callback, on the thread that flushed. */
static void test_reentrant_staged(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12GraphicsCommandList *list = new_list(&e, L"Staged");
    ID3D12GraphicsCommandList_CopyResource(list, NULL, NULL); /* dropped by the runtime: no index */
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 index = shim.last_index();
    ID3D12GraphicsCommandList_Close(list);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 staged = indexed_message("reported from inside the flush", index);
    staged.Severity = D3D12DDI_MESSAGE_SEVERITY_0126_WARNING;
    staged.Category = D3D12DDI_MESSAGE_CATEGORY_0126_SHADER;
    CHECK(shim.stage(&staged));
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.staged_reported(), 0); /* nothing completed: no flush yet */
    signal_wait(&e);
    unsigned stored = count_driver_messages(e.iq, NULL);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.staged_reported(), 1);
    char expected[512], prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Staged", "Draw", 0);
    snprintf(expected, sizeof expected, "%sreported from inside the flush", prefix);
    CHECK_EQ_STR(log_last(), expected);
    pthread_mutex_lock(&g_log_lock);
    CHECK(g_log_count > 0 && pthread_equal(g_log[g_log_count - 1].thread, pthread_self()));
    pthread_mutex_unlock(&g_log_lock);
    D3D12_MESSAGE *last = NULL;
    CHECK_EQ_INT(count_driver_messages(e.iq, &last), stored + 1);
    if (CHECK(last != NULL)) {
        CHECK_EQ_STR(last->pDescription, expected);
        CHECK_EQ_INT(last->Severity, D3D12_MESSAGE_SEVERITY_WARNING);
        CHECK_EQ_INT(last->Category, D3D12_MESSAGE_CATEGORY_SHADER);
    }
    free(last);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

static struct {
    env *e;
    unsigned runs, flushes_before, flushes_after;
    HRESULT create_fence, removed_reason, signal, wait;
    UINT64 completed;
} g_reenter;

/* The application's callback calling back into the device on the flushing thread. */
static void reenter_hook(const char *text)
{
    if (!strstr(text, "re-enter"))
        return;
    env *e = g_reenter.e;
    g_reenter.runs++;
    g_reenter.flushes_before = shim.flush_calls();
    execute(e, e->idle);
    ID3D12Fence *fence = NULL;
    g_reenter.create_fence = ID3D12Device_CreateFence(e->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                                      (void **)&fence);
    g_reenter.removed_reason = ID3D12Device_GetDeviceRemovedReason(e->device);
    /* A completion while inside the flush: the next call may not flush for it from here. */
    g_reenter.signal = fence ? ID3D12CommandQueue_Signal(e->queue, fence, 5) : E_FAIL;
    if (fence)
        ID3D12Fence_SetEventOnCompletion(fence, 5, NULL);
    g_reenter.completed = fence ? ID3D12Fence_GetCompletedValue(fence) : 0;
    g_reenter.wait = fence ? ID3D12CommandQueue_Wait(e->queue, fence, 5) : E_FAIL;
    execute(e, e->idle);
    if (fence)
        ID3D12Fence_Release(fence);
    g_reenter.flushes_after = shim.flush_calls();
}

/* An application message callback invoked during a flush calls ExecuteCommandLists, CreateFence,
 * GetDeviceRemovedReason, Signal and Wait on the same thread: no deadlock (the ctest TIMEOUT), every call
 * works, no flush is made from inside it, and the completion it produced is flushed by the next call outside. */
static void test_reentrant_callback(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    g_reenter.e = &e;
    g_hook = reenter_hook;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 staged = driver_message("please re-enter");
    CHECK(shim.stage(&staged));
    signal_wait(&e);
    unsigned flushes = shim.flush_calls();
    execute(&e, e.idle);
    CHECK_EQ_INT(g_reenter.runs, 1);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 1);
    CHECK_EQ_INT(g_reenter.flushes_before, flushes + 1); /* inside the one flush */
    CHECK_EQ_INT(g_reenter.flushes_after, flushes + 1);  /* no flush from inside the callback */
    CHECK_EQ_INT(shim.nested_flushes(), 0);
    CHECK_EQ_INT(g_reenter.create_fence, S_OK);
    CHECK_EQ_INT(g_reenter.removed_reason, S_OK);
    CHECK_EQ_INT(g_reenter.signal, S_OK);
    CHECK_EQ_INT(g_reenter.completed, 5);
    CHECK_EQ_INT(g_reenter.wait, S_OK);
    execute(&e, e.idle); /* the completion made inside the callback is not lost */
    CHECK_EQ_INT(shim.flush_calls(), flushes + 2);
    execute(&e, e.idle);
    CHECK_EQ_INT(shim.flush_calls(), flushes + 2);
    CHECK_EQ_INT(g_reenter.runs, 1);
    g_hook = NULL;
    env_close(&e);
}

/* ---- Feature off ---- */

/* GPU work runs (the copy lands, the fence completes), but no flush, no pfnSetCommandListStateIndex and no driver
 * message: the runtime never enabled the feature. */
static void feature_off(bool debug_layer, int drm)
{
    env e;
    if (!env_open(&e, debug_layer, drm))
        return;
    ID3D12Resource *readback = NULL;
    ID3D12GraphicsCommandList *list = buggy_list(&e, L"Off", 1, &readback, NULL);
    ID3D12GraphicsCommandList *record_time = new_list(&e, NULL);
    ID3D12GraphicsCommandList_DrawIndexedInstanced(record_time, 3, 1, 0, 0, 0); /* no index buffer */
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(record_time), S_OK);
    execute(&e, list);
    execute(&e, record_time);
    signal_wait(&e);
    CHECK(copy_landed(readback));
    execute(&e, e.idle);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, e.fence, e.value), S_OK);
    release_queue(&e);
    CHECK_EQ_INT(shim.table_fills(), 0);
    CHECK_EQ_INT(shim.flush_calls(), 0);
    CHECK_EQ_INT(shim.index_calls(), 0);
    CHECK_EQ_INT(log_count(), 0);
    if (e.iq)
        CHECK_EQ_INT(count_driver_messages(e.iq, NULL), 0);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = driver_message("feature off");
    CHECK_EQ_INT(shim.report(&m), E_INVALIDARG);
    ID3D12GraphicsCommandList_Release(record_time);
    ID3D12GraphicsCommandList_Release(list);
    env_close(&e);
}

static void test_off_not_opted_in(void)
{
    feature_off(true, -1);
}

static void test_off_no_debug_layer(void)
{
    feature_off(false, 1);
}

static void test_off_driver(void) /* D12RT_REFDRV_DRM=off */
{
    feature_off(true, 1);
}

/* ---- Retention: bounded, merged, and the queue's submission order (issue 11; docs/performance.md "Bounded
 * retention") ---- */

/* The device's reference count: every live runtime child holds one, so a list the application released and a
 * submission still holds shows here. */
static ULONG device_refs(ID3D12Device *device)
{
    ID3D12Device_AddRef(device);
    return ID3D12Device_Release(device);
}

/* D12RT_MAX_LIVE_STATE_INDICES=64 (one block): an application that records a fresh list, submits it, releases it
 * and never signals. Each list's draw evicts the previous list's block, so the earlier submissions can never
 * annotate a message again: their holds are dropped and the lists go, instead of all 3000 staying alive. The
 * newest list, whose index is live, still resolves; after a Signal and a flush every list is gone. */
static void test_retain_bounded(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    enum { LISTS = 3000, BOUND = 128 };
    ULONG base = device_refs(e.device);
    UINT32 first = 0xFFFFFFFFu, last = 0xFFFFFFFFu;
    char prefix[256] = "";
    ULONG peak = base;
    for (unsigned i = 0; i < LISTS; i++) {
        ID3D12GraphicsCommandList *list = new_list(&e, L"Bounded");
        if (!list)
            break;
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        last = shim.last_index();
        if (i == 0)
            first = last;
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
        execute(&e, list);
        prefix_of(prefix, sizeof prefix, list, "Bounded", "Draw", 0);
        ID3D12GraphicsCommandList_Release(list); /* only the submission holds it now */
        ULONG refs = device_refs(e.device);
        peak = refs > peak ? refs : peak;
    }
    if (!CHECK(peak - base <= BOUND))
        fprintf(stderr, "  %lu lists kept alive by unsignalled submissions (bound %u)\n",
                (unsigned long)(peak - base), BOUND);
    CHECK(first != last && last != 0xFFFFFFFFu);
    expect_report(last, "the newest submission", prefix); /* live: still annotated */
    expect_report(first, "an evicted submission", NULL);
    signal_wait(&e);
    execute(&e, e.idle); /* the flush: every hold is released */
    CHECK_EQ_INT(device_refs(e.device), base);
    env_close(&e);
}

/* Consecutive submissions of the same recording share one retention record: it must then stay until the LAST of
 * them was processed. The GPU is held in a Wait between the two, so the first completes (and is flushed) while the
 * second has not; the list is reset, so only the record keeps its old recording. */
static void test_retain_merged(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    ID3D12Fence *hold = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&hold), S_OK);
    ID3D12GraphicsCommandList *list = new_list(&e, L"Merged");
    if (!hold || !list)
        return;
    ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
    UINT32 index = shim.last_index();
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    char prefix[256];
    prefix_of(prefix, sizeof prefix, list, "Merged", "Draw", 0);
    execute(&e, list);
    CHECK_EQ_INT(ID3D12CommandQueue_Signal(e.queue, e.fence, ++e.value), S_OK);
    CHECK_EQ_INT(ID3D12CommandQueue_Wait(e.queue, hold, 1), S_OK);
    execute(&e, list); /* the same recording again: the record's serial moves on */
    wait_fence(e.fence, e.value, false); /* the first submission completed; the GPU waits before the second */
    reset_list(&e, list);                /* the list lets go of the recording */
    execute(&e, e.idle);                 /* a flush for the first submission's completion */
    expect_report(index, "the second submission has not run", prefix);
    CHECK_EQ_INT(ID3D12Fence_Signal(hold, 1), S_OK);
    signal_wait(&e);
    execute(&e, e.idle);
    expect_report(index, "both submissions were processed", NULL);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(list), S_OK);
    ID3D12GraphicsCommandList_Release(list);
    ID3D12Fence_Release(hold);
    env_close(&e);
}

/* Two application threads hammering one queue (queue methods are free-threaded): each submits a list with a draw
 * and signals its own fence, the other also waits on values already reached. Whatever order the two threads' calls
 * reach the driver in, every operation the driver passes back is one the runtime recorded (no removal), every fence
 * reaches its last value and the retention records all go at the end. */
typedef struct hammer_args {
    env *e;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence, *other;
    unsigned rounds;
} hammer_args;

static void *hammer_queue(void *argument)
{
    hammer_args *a = argument;
    for (unsigned i = 1; i <= a->rounds; i++) {
        execute(a->e, a->list);
        ID3D12CommandQueue_Signal(a->e->queue, a->fence, i);
        if (i % 8 == 0) /* a value the other thread's fence already reached: never blocks the GPU for long */
            ID3D12CommandQueue_Wait(a->e->queue, a->other, ID3D12Fence_GetCompletedValue(a->other));
    }
    return NULL;
}

static void test_queue_order_threads(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    enum { ROUNDS = 2000 };
    ULONG base = device_refs(e.device);
    ID3D12Fence *fences[2] = {NULL, NULL};
    ID3D12GraphicsCommandList *lists[2];
    hammer_args args[2];
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) {
        CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                              (void **)&fences[t]), S_OK);
        lists[t] = new_list(&e, t ? L"Hammer B" : L"Hammer A");
        if (!fences[t] || !lists[t])
            return;
        ID3D12GraphicsCommandList_DrawInstanced(lists[t], 3, 1, 0, 0);
        CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(lists[t]), S_OK);
    }
    for (int t = 0; t < 2; t++) {
        args[t] = (hammer_args){&e, lists[t], fences[t], fences[1 - t], ROUNDS};
        CHECK_EQ_INT(pthread_create(&threads[t], NULL, hammer_queue, &args[t]), 0);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < 2; t++)
        wait_fence(fences[t], ROUNDS, false);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(e.device), S_OK);
    CHECK_EQ_INT(log_containing("fence operation", NULL), 0); /* no DRIVER_FENCE_OPERATION_MISMATCH */
    for (int t = 0; t < 2; t++) {
        CHECK_EQ_INT(ID3D12Fence_GetCompletedValue(fences[t]), ROUNDS);
        ID3D12GraphicsCommandList_Release(lists[t]);
    }
    signal_wait(&e);
    execute(&e, e.idle);
    for (int t = 0; t < 2; t++)
        ID3D12Fence_Release(fences[t]);
    CHECK_EQ_INT(device_refs(e.device), base);
    env_close(&e);
}

/* A flush on one thread retires records of a queue another thread is destroying: the retired records go back to
 * their queue's spare list only while that queue is still the device's, else they are freed (queue.c recycle).
 * Under the asan and tsan presets a record returned to a freed queue is an error. */
typedef struct churn_args {
    env *e;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    unsigned rounds;
} churn_args;

static void *churn_queues(void *argument)
{
    churn_args *a = argument;
    for (unsigned i = 1; i <= a->rounds; i++) {
        ID3D12CommandQueue *queue = new_queue(a->e, D3D12_COMMAND_LIST_TYPE_DIRECT);
        if (!queue)
            break;
        execute_on(queue, a->list);
        execute_on(queue, a->list);
        ID3D12CommandQueue_Signal(queue, a->fence, i);
        wait_fence(a->fence, i, false);
        CHECK_EQ_INT(ID3D12CommandQueue_Release(queue), 0); /* while the other thread flushes */
    }
    return NULL;
}

static void test_retain_queue_destroy_race(void)
{
    env e;
    if (!env_open(&e, true, 1))
        return;
    enum { ROUNDS = 200 };
    ULONG base = device_refs(e.device);
    ID3D12Fence *fence = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateFence(e.device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK);
    ID3D12GraphicsCommandList *churned = new_list(&e, L"Churned"), *flushed = new_list(&e, L"Flushing");
    if (!fence || !churned || !flushed)
        return;
    ID3D12GraphicsCommandList_DrawInstanced(churned, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_DrawInstanced(flushed, 3, 1, 0, 0);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(churned), S_OK);
    CHECK_EQ_INT(ID3D12GraphicsCommandList_Close(flushed), S_OK);
    churn_args args = {&e, churned, fence, ROUNDS};
    pthread_t churner;
    CHECK_EQ_INT(pthread_create(&churner, NULL, churn_queues, &args), 0);
    for (unsigned i = 0; i < 4 * ROUNDS && ID3D12Fence_GetCompletedValue(fence) < ROUNDS; i++) {
        execute(&e, flushed); /* a flush whenever a completion was observed, on any queue */
        signal_wait_on(&e, e.queue, false);
    }
    pthread_join(churner, NULL);
    execute(&e, e.idle);
    CHECK_EQ_INT(ID3D12Device_GetDeviceRemovedReason(e.device), S_OK);
    ID3D12GraphicsCommandList_Release(churned);
    ID3D12GraphicsCommandList_Release(flushed);
    ID3D12Fence_Release(fence);
    CHECK_EQ_INT(device_refs(e.device), base);
    env_close(&e);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"init_message", test_init_message}, {"no_debug_layer", test_no_debug_layer},
        {"not_opted_in", test_not_opted_in}, {"last_call_wins", test_last_call_wins},
        {"driver_without_feature", test_driver_without_feature}, {"enable_fails", test_enable_fails},
        {"deny_filter", test_deny_filter}, {"callback_verbatim", test_callback_verbatim},
        {"device_identity", test_device_identity},
        {"flush_no_signal", test_flush_no_signal}, {"flush_on_execute", test_flush_on_execute},
        {"flush_on_wait", test_flush_on_wait}, {"flush_cross_queue", test_flush_cross_queue},
        {"flush_nothing_completed", test_flush_nothing_completed},
        {"flush_not_current_submission", test_flush_not_current_submission},
        {"flush_app_thread", test_flush_app_thread}, {"corr_kinds", test_corr_kinds},
        {"corr_resource_barrier", test_corr_resource_barrier},
        {"corr_bogus_indices", test_corr_bogus_indices}, {"corr_record_time", test_corr_record_time},
        {"corr_root_cbv_dispatch", test_corr_root_cbv_dispatch}, {"retain_unsubmitted", test_retain_unsubmitted},
        {"retain_reset_in_flight", test_retain_reset_in_flight}, {"retain_resubmit", test_retain_resubmit},
        {"retain_limit", test_retain_limit}, {"retain_destroyed_list", test_retain_destroyed_list},
        {"retain_execute_signal_race", test_retain_execute_signal_race},
        {"removal_open_list", test_removal_open_list}, {"threads_reporting", test_threads_reporting},
        {"flush_overlap", test_flush_overlap},
        {"reentrant_staged", test_reentrant_staged}, {"reentrant_callback", test_reentrant_callback},
        {"off_not_opted_in", test_off_not_opted_in}, {"off_no_debug_layer", test_off_no_debug_layer},
        {"off_driver", test_off_driver}, {"retain_bounded", test_retain_bounded},
        {"retain_merged", test_retain_merged}, {"queue_order_threads", test_queue_order_threads},
        {"retain_queue_destroy_race", test_retain_queue_destroy_race},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_drm_public CASE\n");
    return 2;
}
