/* libd12rt through its public ABI only: D3D12GetDebugInterface, D3D12CreateDevice and the vtables.
 * `test_runtime CASE` runs one case; CMake registers each as its own test, with the environment it needs
 * (debug settings are process-global, so each case is its own process). */
#define _GNU_SOURCE
#define COBJMACROS
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

/* ---- helpers ---- */

static ID3D12Device17 *create_device(bool debug_layer)
{
    if (debug_layer) {
        ID3D12Debug *debug = NULL;
        if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))))
            return NULL;
        ID3D12Debug_EnableDebugLayer(debug);
        ID3D12Debug_Release(debug);
    }
    ID3D12Device17 *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device);
    CHECK_EQ_INT(hr, S_OK);
    return device;
}

/* The reference-leak check that ends each case: the test's reference must be the last one. */
static void release_last(ID3D12Device17 *device)
{
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

static ID3D12InfoQueue1 *info_queue_of(ID3D12Device17 *device)
{
    ID3D12InfoQueue1 *queue = NULL;
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), S_OK);
    if (queue != NULL)
        ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

/* Whether a stored message's description contains `text`; its ID and severity are returned. */
static bool find_message(ID3D12InfoQueue1 *queue, const char *text, D3D12_MESSAGE_SEVERITY *severity)
{
    UINT64 count = ID3D12InfoQueue1_GetNumStoredMessages(queue);
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        bool found = message != NULL && SUCCEEDED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length)) &&
                     strstr(message->pDescription, text) != NULL;
        if (found && severity != NULL)
            *severity = message->Severity;
        free(message);
        if (found)
            return true;
    }
    return false;
}

static unsigned count_messages(ID3D12InfoQueue1 *queue, const char *text)
{
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue1_GetNumStoredMessages(queue);
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        if (message != NULL && SUCCEEDED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length)) &&
            strstr(message->pDescription, text) != NULL)
            found++;
        free(message);
    }
    return found;
}

/* ---- D3D12CreateDevice ---- */

static void test_create_arguments(void)
{
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, NULL), S_FALSE);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, (D3D_FEATURE_LEVEL)0x1234, &IID_ID3D12Device, (void **)&device), E_INVALIDARG);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, NULL, (void **)&device), E_INVALIDARG);
    CHECK(device == NULL);
    ID3D12Device *fake_adapter = NULL;
    CHECK_EQ_INT(D3D12CreateDevice((IUnknown *)&fake_adapter, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device,
                                   (void **)&device), E_INVALIDARG);
    /* A device interface the object does not have: E_NOINTERFACE, *ppDevice NULL, nothing kept alive. */
    void *other = (void *)1;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Fence, &other), E_NOINTERFACE);
    CHECK(other == NULL);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    CHECK(device != NULL);
    if (device != NULL)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
}

static void test_create_same_device(void)
{
    ID3D12Device *first = NULL, *second = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&first), S_OK);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_12_0, &IID_ID3D12Device, (void **)&second), S_OK);
    CHECK(first != NULL && first == second); /* one device per adapter, a reference added */
    CHECK_EQ_INT(ID3D12Device_Release(second), 1);
    CHECK_EQ_INT(ID3D12Device_Release(first), 0);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&second), S_OK);
    CHECK_EQ_INT(ID3D12Device_Release(second), 0); /* a fresh device once the last one is gone */
}

/* Threads creating and releasing the adapter's device at once: a device whose last Release is running must never
 * be handed out again (ASan in the asan preset would see the use after free). */
static atomic_uint race_failures;

static void *create_release_loop(void *unused)
{
    (void)unused;
    for (int i = 0; i < 2000; i++) {
        ID3D12Device *device = NULL;
        if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device)) ||
            ID3D12Device_GetNodeCount(device) != 1)
            atomic_fetch_add(&race_failures, 1);
        if (device != NULL)
            ID3D12Device_Release(device);
    }
    return NULL;
}

static void test_create_release_race(void)
{
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(pthread_create(&threads[i], NULL, create_release_loop, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    CHECK_EQ_INT(atomic_load(&race_failures), 0);
}

static void test_feature_level_unsupported(void)
{
    /* D12RT_REFDRV_PROFILE caps the reference driver at 11_1 (CMakeLists.txt). */
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_12_0, &IID_ID3D12Device, (void **)&device),
                 DXGI_ERROR_UNSUPPORTED);
    CHECK(device == NULL);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_1, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device != NULL)
        ID3D12Device_Release(device);
}

static void test_driver_missing(void)
{
    /* D12RT_DRIVER names a file that does not exist: creation fails with a clear stderr line naming it. */
    char path[] = "/tmp/d12rt-stderr-XXXXXX";
    int captured = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(captured, 2);
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    fflush(stderr);
    dup2(saved, 2);
    char text[1024] = {0};
    ssize_t got = pread(captured, text, sizeof(text) - 1, 0);
    close(captured);
    close(saved);
    unlink(path);
    CHECK(FAILED(hr));
    CHECK(device == NULL);
    CHECK(got > 0 && strstr(text, "no-such-driver.so") != NULL);
    fprintf(stderr, "%s", text);
}

/* ---- IUnknown, ID3D12Object ---- */

static void test_query_interface(void)
{
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    void *object = (void *)1;
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12Device, NULL), E_POINTER);
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12Fence, &object), E_NOINTERFACE);
    CHECK(object == NULL);
    /* No debug layer: no InfoQueue. */
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue, &object), E_NOINTERFACE);
    const IID *chain[] = {&IID_IUnknown, &IID_ID3D12Object, &IID_ID3D12Device, &IID_ID3D12Device5,
                          &IID_ID3D12Device11, &IID_ID3D12Device17};
    for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
        IUnknown *unknown = NULL;
        CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, chain[i], (void **)&unknown), S_OK);
        CHECK((void *)unknown == (void *)device); /* one vtable for the whole Device chain */
        if (unknown != NULL)
            IUnknown_Release(unknown);
    }
    CHECK_EQ_INT(ID3D12Device17_AddRef(device), 2);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 1);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

static void test_private_data(void)
{
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    static const GUID key = {0x12345678, 0x1234, 0x1234, {1, 2, 3, 4, 5, 6, 7, 8}};
    UINT size = 99;
    char buffer[16];
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, buffer), DXGI_ERROR_NOT_FOUND);
    CHECK_EQ_INT(size, 0);
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, NULL, buffer), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_SetPrivateData(device, &key, 5, NULL), S_FALSE); /* deletes nothing */
    CHECK_EQ_INT(ID3D12Device17_SetPrivateData(device, &key, 6, "hello"), S_OK);
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, NULL), S_OK);
    CHECK_EQ_INT(size, 6);
    size = 3;
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, buffer), DXGI_ERROR_MORE_DATA);
    CHECK_EQ_INT(size, 6);
    size = sizeof(buffer);
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, buffer), S_OK);
    CHECK_EQ_STR(buffer, "hello");
    CHECK_EQ_INT(ID3D12Device17_SetPrivateData(device, &key, 0, NULL), S_OK); /* removes it */
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, buffer), DXGI_ERROR_NOT_FOUND);

    /* An interface entry holds a reference until replaced or the object goes. */
    ID3D12Debug *debug = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug), S_OK);
    ULONG before = ID3D12Debug_AddRef(debug) - 1;
    ID3D12Debug_Release(debug);
    CHECK_EQ_INT(ID3D12Device17_SetPrivateDataInterface(device, &key, (IUnknown *)debug), S_OK);
    CHECK_EQ_INT(ID3D12Debug_AddRef(debug) - 1, before + 1);
    ID3D12Debug_Release(debug);
    IUnknown *back = NULL;
    size = sizeof(back);
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &key, &size, &back), S_OK);
    CHECK((void *)back == (void *)debug);
    if (back != NULL)
        IUnknown_Release(back);
    CHECK_EQ_INT(ID3D12Device17_SetPrivateDataInterface(device, &key, NULL), S_OK);
    CHECK_EQ_INT(ID3D12Debug_AddRef(debug) - 1, before);
    ID3D12Debug_Release(debug);
    ID3D12Debug_Release(debug);

    /* SetName is the WKPDID_D3DDebugObjectNameW entry: the string as given (UTF-32 here), with its NUL. */
    CHECK_EQ_INT(ID3D12Device17_SetName(device, NULL), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_SetName(device, L"Gerät"), S_OK);
    WCHAR name[16];
    size = sizeof(name);
    CHECK_EQ_INT(ID3D12Device17_GetPrivateData(device, &WKPDID_D3DDebugObjectNameW, &size, name), S_OK);
    CHECK_EQ_INT(size, 6 * sizeof(WCHAR));
    CHECK(wcscmp(name, L"Gerät") == 0);
    release_last(device);
}

static void test_not_implemented(void)
{
    ID3D12Device17 *device = create_device(true);
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    ID3D12QueryHeap *query_heap = NULL;
    D3D12_QUERY_HEAP_DESC query_desc = {D3D12_QUERY_HEAP_TYPE_TIMESTAMP, 4, 0};
    CHECK_EQ_INT(ID3D12Device17_CreateQueryHeap(device, &query_desc, &IID_ID3D12QueryHeap, (void **)&query_heap),
                 E_NOTIMPL);
    CHECK_EQ_INT(ID3D12Device17_CreateQueryHeap(device, &query_desc, &IID_ID3D12QueryHeap, (void **)&query_heap),
                 E_NOTIMPL);
    /* Said once, not on every call; a value-returning slot answers zero. */
    CHECK_EQ_INT(count_messages(queue, "ID3D12Device::CreateQueryHeap is not implemented"), 1);
    CHECK_EQ_INT(ID3D12Device17_CheckDriverMatchingIdentifier(device, D3D12_SERIALIZED_DATA_RAYTRACING_ACCELERATION_STRUCTURE,
                                                              NULL), 0);
    CHECK_EQ_INT(ID3D12Device17_CheckDriverMatchingIdentifier(device, D3D12_SERIALIZED_DATA_RAYTRACING_ACCELERATION_STRUCTURE,
                                                              NULL), 0);
    CHECK_EQ_INT(count_messages(queue, "ID3D12Device5::CheckDriverMatchingIdentifier is not implemented"), 1);
    CHECK_EQ_INT(ID3D12Device17_GetNodeCount(device), 1);
    ID3D12InfoQueue1_Release(queue);
    release_last(device);
}

/* ---- Debug interfaces and removal ---- */

static void test_debug_interfaces(void)
{
    const IID *iids[] = {&IID_ID3D12Debug, &IID_ID3D12Debug1, &IID_ID3D12Debug2, &IID_ID3D12Debug3,
                         &IID_ID3D12Debug6, &IID_ID3D12Debug7, &IID_ID3D12DeviceRemovedExtendedDataSettings,
                         &IID_ID3D12DeviceRemovedExtendedDataSettings2};
    for (size_t i = 0; i < sizeof(iids) / sizeof(iids[0]); i++) {
        IUnknown *object = NULL;
        CHECK_EQ_INT(D3D12GetDebugInterface(iids[i], (void **)&object), S_OK);
        if (object != NULL)
            IUnknown_Release(object);
        CHECK_EQ_INT(D3D12GetDebugInterface(iids[i], NULL), S_FALSE);
    }
    void *object = (void *)1;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Device, &object), E_NOINTERFACE);
    CHECK(object == NULL);
    CHECK_EQ_INT(D3D12GetDebugInterface(NULL, &object), E_INVALIDARG);
    /* ID3D12Debug1 does not derive from ID3D12Debug, but both belong to the one debug object. */
    ID3D12Debug1 *debug1 = NULL;
    ID3D12Debug7 *debug7 = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug1, (void **)&debug1), S_OK);
    CHECK_EQ_INT(ID3D12Debug1_QueryInterface(debug1, &IID_ID3D12Debug7, (void **)&debug7), S_OK);
    if (debug7 != NULL) {
        ID3D12Debug7_SetEnableDriverReportedMessages(debug7, TRUE);
        ID3D12Debug7_Release(debug7);
    }
    ID3D12Debug1_Release(debug1);
}

static void test_info_queue_needs_debug_layer(void)
{
    ID3D12Device17 *device = create_device(true);
    if (device == NULL)
        return;
    ID3D12InfoQueue *queue = NULL;
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue), S_OK);
    ID3D12Device *back = NULL;
    if (queue != NULL) {
        /* The InfoQueue is part of the device: QueryInterface goes both ways, one reference count. */
        CHECK_EQ_INT(ID3D12InfoQueue_QueryInterface(queue, &IID_ID3D12Device, (void **)&back), S_OK);
        CHECK((void *)back == (void *)device);
        ID3D12Device_Release(back);
        CHECK_EQ_INT(ID3D12InfoQueue_GetMessageCountLimit(queue), D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT);
        ID3D12InfoQueue_Release(queue);
    }
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

static void test_debug_layer_after_device(void)
{
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    CHECK_EQ_INT(ID3D12Device17_GetDeviceRemovedReason(device), S_OK);
    ID3D12Debug *debug = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug), S_OK);
    ID3D12Debug_EnableDebugLayer(debug); /* "will cause the D3D12 runtime to remove the device" */
    CHECK_EQ_INT(ID3D12Device17_GetDeviceRemovedReason(device), DXGI_ERROR_INVALID_CALL);
    D3D12_FEATURE_DATA_D3D12_OPTIONS options;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof(options)),
                 DXGI_ERROR_DEVICE_REMOVED);
    /* A removed device is detached from the adapter: creating again gives a new, working device. */
    ID3D12Device17 *fresh = create_device(false);
    CHECK(fresh != NULL && fresh != device);
    if (fresh != NULL) {
        CHECK_EQ_INT(ID3D12Device17_GetDeviceRemovedReason(fresh), S_OK);
        release_last(fresh);
    }
    ID3D12Debug_Release(debug);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

static void test_driver_error_removes(void)
{
    /* D12RT_REFDRV_SET_ERROR makes the reference driver call pfnSetErrorCb at device creation. */
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    CHECK_EQ_INT(ID3D12Device17_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    release_last(device);
}

/* ---- Capability queries ---- */

static void test_cfs1_versions(void)
{
    ID3D12Device17 *device = create_device(true);
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options = {0};
    memset(&options, 0xAB, sizeof(options));
    /* Too new: E_INVALIDARG, the data untouched, an error naming the version. */
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options),
                                                    D12RT_SDK_VERSION + 1), E_INVALIDARG);
    CHECK_EQ_INT(((unsigned char *)&options)[0], 0xAB);
    D3D12_MESSAGE_SEVERITY severity = 0;
    CHECK(find_message(queue, "SDKVersion 621", &severity));
    CHECK_EQ_INT(severity, D3D12_MESSAGE_SEVERITY_ERROR);
    /* Other preview numbers are not remapped on a retail runtime: 720 > 620. */
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options),
                                                    720), E_INVALIDARG);
    /* 721, the exact preview version, is 620; 620, 616 and 4 are accepted. */
    const UINT accepted[] = {D12RT_PREVIEW_SDK_VERSION, D12RT_SDK_VERSION, 616, 4};
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options,
                                                        sizeof(options), accepted[i]), S_OK);
        CHECK_EQ_INT(options.RaytracingTier, D3D12_RAYTRACING_TIER_1_1 + 1); /* 1_2 shipped before CFS1 */
    }
    /* The spec's own sample: the application passes D3D12_SDK_VERSION (606 here). */
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options),
                                                    D3D12_SDK_VERSION), S_OK);
    CHECK(options.RaytracingTier >= D3D12_RAYTRACING_TIER_1_1);
    ID3D12InfoQueue1_Release(queue);
    release_last(device);
}

static void test_cfs1_preview_flavor(void)
{
    /* D12RT_FLAVOR=preview: the runtime is 721; 722 is too new, 721 and retail numbers are accepted. */
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS21 options;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options, sizeof(options),
                                                    722), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options, sizeof(options),
                                                    721), S_OK);
    CHECK_EQ_INT(options.WorkGraphsTier, 11); /* WORK_GRAPHS_TIER_1_1: preview 715 */
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options, sizeof(options),
                                                    619), S_OK);
    CHECK_EQ_INT(options.WorkGraphsTier, 11); /* shipped before CheckFeatureSupport1: not clamped */
    /* OPTIONS12 had 8 bytes at preview 700 and 12 from 710 on; retail only ever had 12. */
    D3D12_FEATURE_DATA_D3D12_OPTIONS12 twelve;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS12, &twelve, 8, 700), S_OK);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS12, &twelve, 8, 710), S_OK);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS12, &twelve, 8, 619),
                 E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS12, &twelve, 12, 700),
                 E_INVALIDARG);
    /* FENCE_BARRIERS: 8 bytes {CommandListType, FenceBarriersTier} at 719, NodeIndex first from 720. */
    UINT old_layout[2] = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0xFFFF};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)59, old_layout, 8, 719), S_OK);
    CHECK_EQ_INT(old_layout[0], D3D12_COMMAND_LIST_TYPE_DIRECT);
    CHECK_EQ_INT(old_layout[1], 2); /* FENCE_BARRIERS_TIER_2, at the old offset */
    UINT new_layout[3] = {0, D3D12_COMMAND_LIST_TYPE_DIRECT, 0xFFFF};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)59, new_layout, 12, 721), S_OK);
    CHECK_EQ_INT(new_layout[2], 2);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)59, new_layout, 12, 719), E_INVALIDARG);
    release_last(device);
}

static void test_cfs1_unknown_and_sizes(void)
{
    ID3D12Device17 *device = create_device(true);
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_FEATURE_DATA_D3D12_OPTIONS21 options;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options, sizeof(options),
                                                    613), S_OK);
    /* OPTIONS21 did not exist at 611: no size is valid then. */
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options, sizeof(options),
                                                    611), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, &options,
                                                    sizeof(options) - 4, 620), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)14, &options, sizeof(options), 620),
                 E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)9, &options, 4, 620), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS21, NULL, sizeof(options),
                                                    620), E_INVALIDARG);
    /* Preview-only feature on a retail runtime. */
    UINT preview_only[5];
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)72, preview_only, 20, 620), E_INVALIDARG);
    CHECK(find_message(queue, "pFeatureSupportData", NULL));
    /* A node the adapter does not have. */
    D3D12_FEATURE_DATA_ARCHITECTURE architecture = {1, 0, 0, 0};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_ARCHITECTURE, &architecture,
                                                   sizeof(architecture)), E_INVALIDARG);
    architecture.NodeIndex = 0;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_ARCHITECTURE, &architecture,
                                                   sizeof(architecture)), S_OK);
    ID3D12InfoQueue1_Release(queue);
    release_last(device);
}

static void test_in_out_queries(void)
{
    ID3D12Device17 *device = create_device(false);
    if (device == NULL)
        return;
    /* Shader model: the highest supported not above the caller's (the profile's is 6_10 at 620). */
    D3D12_FEATURE_DATA_SHADER_MODEL model = {D3D_SHADER_MODEL_6_8};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof(model)), S_OK);
    CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_6_8);
    model.HighestShaderModel = (D3D_SHADER_MODEL)0x6a;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof(model), 620),
                 S_OK);
    CHECK_EQ_INT(model.HighestShaderModel, 0x6a);
    /* A shader model the runtime does not know: E_INVALIDARG, as CD3DX12FeatureSupport's probe expects. */
    model.HighestShaderModel = (D3D_SHADER_MODEL)0x6f;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof(model)),
                 E_INVALIDARG);
    D3D12_FEATURE_DATA_ROOT_SIGNATURE root = {D3D_ROOT_SIGNATURE_VERSION_1_1};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_ROOT_SIGNATURE, &root, sizeof(root)), S_OK);
    CHECK_EQ_INT(root.HighestVersion, D3D_ROOT_SIGNATURE_VERSION_1_1);
    root.HighestVersion = (D3D_ROOT_SIGNATURE_VERSION)9;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_ROOT_SIGNATURE, &root, sizeof(root)),
                 E_INVALIDARG);
    /* Feature levels: the highest requested one supported; none requested → E_INVALIDARG. */
    D3D_FEATURE_LEVEL requested[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_10_0};
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {3, requested, 0};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof(levels)),
                 S_OK);
    CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_1);
    levels.NumFeatureLevels = 0;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof(levels)),
                 E_INVALIDARG);
    release_last(device);
}

static void test_clamp_warning(void)
{
    /* The profile makes the driver report RaytracingTier 13, a number no SDK defines: protected, so lowered
     * to the highest tier that existed (1_2) with one warning per clamped field; legacy queries too. */
    ID3D12Device17 *device = create_device(true);
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options),
                                                    620), S_OK);
    CHECK_EQ_INT(options.RaytracingTier, 12);
    D3D12_MESSAGE_SEVERITY severity = 0;
    CHECK(find_message(queue, "RaytracingTier", &severity));
    CHECK_EQ_INT(severity, D3D12_MESSAGE_SEVERITY_WARNING);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options),
                                                    610), S_OK);
    CHECK_EQ_INT(options.RaytracingTier, 12); /* 1_2 (616) did not exist at 610, but it is unprotected: a better GPU never reads lower (docs/clamping.md 3) */
    CHECK_EQ_INT(count_messages(queue, "RaytracingTier"), 2);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options)),
                 S_OK);
    CHECK_EQ_INT(options.RaytracingTier, 12);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof(options)),
                 S_OK);
    /* The deprecation warning: once per device. */
    CHECK_EQ_INT(count_messages(queue, "CheckFeatureSupport is deprecated"), 1);
    /* Never clamped: FORMAT_SUPPORT passes the driver's answer through (an index format: what the profile file's
     * base, `implemented`, supports). */
    D3D12_FEATURE_DATA_FORMAT_SUPPORT format = {DXGI_FORMAT_R16_UINT, 0, 0};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_FORMAT_SUPPORT, &format, sizeof(format),
                                                    4), S_OK);
    ID3D12InfoQueue1_Release(queue);
    release_last(device);
}

/* ---- The registry overlay (CMakeLists.txt points D12RT_HKCU / D12RT_HKLM at tests/runtime/registry/) ---- */

static const char init_message[] = "D3D12 Driver Reported Messages Enabled";

static void opt_in_to_driver_reported_messages(BOOL enable)
{
    ID3D12Debug7 *debug = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK);
    if (debug != NULL) {
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, enable);
        ID3D12Debug7_Release(debug);
    }
}

/* Create a device (the application opting in to driver-reported messages and enabling the debug layer as asked)
 * and check how many initialization messages its InfoQueue holds; the InfoQueue must exist either way (the
 * debug layer may be forced on by the registry). */
static void expect_init_messages(BOOL opt_in, bool debug_layer, unsigned expected)
{
    if (opt_in)
        opt_in_to_driver_reported_messages(TRUE);
    ID3D12Device17 *device = create_device(debug_layer);
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = NULL;
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), S_OK);
    if (queue != NULL) {
        CHECK_EQ_INT(count_messages(queue, init_message), expected);
        ID3D12InfoQueue1_Release(queue);
    }
    release_last(device);
}

static void test_registry_forces_off(void)
{
    /* The application opts in with the debug layer on; HKCU's EnableDriverReportedMessagesAnd=0 wins. */
    expect_init_messages(TRUE, true, 0);
}

static void test_app_opt_in_without_registry(void)
{
    /* The positive twin of registry_forces_off: no registry values, the application's opt-in stands. */
    expect_init_messages(TRUE, true, 1);
}

static void test_registry_forces_on(void)
{
    /* The application never opts in; HKCU's EnableDriverReportedMessagesOr=1 turns it on (debug layer on). */
    expect_init_messages(FALSE, true, 1);
}

static void test_registry_system_forces_debug_layer(void)
{
    /* No HKCU file: HKLM forces the debug layer (D3D12SDKLayerFlagsOr) and the messages on, for an application
     * that asked for neither. */
    expect_init_messages(FALSE, false, 1);
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"registry_forces_off", test_registry_forces_off},
    {"app_opt_in_without_registry", test_app_opt_in_without_registry},
    {"registry_forces_on", test_registry_forces_on},
    {"registry_system_forces_debug_layer", test_registry_system_forces_debug_layer},
    {"create_arguments", test_create_arguments},
    {"create_same_device", test_create_same_device},
    {"create_release_race", test_create_release_race},
    {"feature_level_unsupported", test_feature_level_unsupported},
    {"driver_missing", test_driver_missing},
    {"query_interface", test_query_interface},
    {"private_data", test_private_data},
    {"not_implemented", test_not_implemented},
    {"debug_interfaces", test_debug_interfaces},
    {"info_queue_needs_debug_layer", test_info_queue_needs_debug_layer},
    {"debug_layer_after_device", test_debug_layer_after_device},
    {"driver_error_removes", test_driver_error_removes},
    {"cfs1_versions", test_cfs1_versions},
    {"cfs1_preview_flavor", test_cfs1_preview_flavor},
    {"cfs1_unknown_and_sizes", test_cfs1_unknown_and_sizes},
    {"in_out_queries", test_in_out_queries},
    {"clamp_warning", test_clamp_warning},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_runtime CASE\n");
    return 2;
}
