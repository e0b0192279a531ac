/* Driver-reported messages through libd12rt's public ABI (driver-reported-messages.txt v0.3): the app's side is
 * D3D12GetDebugInterface / ID3D12Debug7 / D3D12CreateDevice / ID3D12InfoQueue1 only. The driver is the reference
 * driver behind libd12_drmshim.so (D12RT_DRIVER), whose d12_drmshim_* functions count the DDI calls the runtime
 * made and let the test report and query identities as the driver would. `test_drm_public CASE`, one process per
 * case (debug settings are process-global). */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
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
    return CHECK(shim.enable_calls && shim.table_fills && shim.report && shim.identity);
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
