/* ctest drm.hostile.release_in_callback (issue 17 item 7.1): the application's message callback drops the last
 * device reference while a driver thread is inside pfnReportMessageCb. Before the fix, Release waited in the
 * runtime-handle unregistration for the use its own thread held, for ever. Now the destruction runs when the
 * report returns: the report answers S_OK, the callback saw the message, the device is gone afterwards (a later
 * report with its handle is E_INVALIDARG), and nothing hangs (the driver thread is joined with a 20 s limit).
 * The driver is the reference driver behind libd12_drmshim.so, whose d12_drmshim_report reports as the driver does
 * through the last device's callbacks. Ends with `N passed, N failed`. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

static HRESULT (*shim_report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
static ID3D12InfoQueue1 *g_queue;  /* the application's last reference, dropped by the callback */
static atomic_int g_seen;
static _Atomic HRESULT g_first = E_FAIL, g_second = S_OK;

static void on_message(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                                D3D12_MESSAGE_ID id, LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)context;
    if (id != D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE || strcmp(description, "drop the device") != 0)
        return;
    atomic_fetch_add(&g_seen, 1);
    ID3D12InfoQueue1 *queue = g_queue;
    g_queue = NULL;
    if (queue)
        ID3D12InfoQueue1_Release(queue); /* the device's last reference */
}

static void *driver_thread(void *unused)
{
    (void)unused;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {1, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                              D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "drop the device",
                                              D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126};
    atomic_store(&g_first, shim_report(&m));
    m.pDescription = "after the device is gone";
    atomic_store(&g_second, shim_report(&m)); /* the handle names nothing now */
    return NULL;
}

static void test_release_in_callback(void)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    *(void **)&shim_report = library ? dlsym(library, "d12_drmshim_report") : NULL;
    if (!CHECK(device != NULL) || !CHECK(shim_report != NULL))
        return;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&g_queue), S_OK);
    if (!g_queue)
        return;
    ID3D12InfoQueue1_SetMuteDebugOutput(g_queue, TRUE);
    DWORD cookie = 0;
    CHECK_EQ_INT(ID3D12InfoQueue1_RegisterMessageCallback(g_queue, on_message, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                          &cookie), S_OK);
    CHECK_EQ_INT(ID3D12Device_Release(device), 1); /* the InfoQueue interface holds the last reference */
    pthread_t thread;
    CHECK_EQ_INT(pthread_create(&thread, NULL, driver_thread, NULL), 0);
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 20;
    int joined = pthread_timedjoin_np(thread, NULL, &limit);
    CHECK_EQ_INT(joined, 0);
    if (joined != 0) {
        fprintf(stderr, "    the driver thread is still inside pfnReportMessageCb after 20 s (Release hangs)\n");
        fflush(stderr);
        _exit(1);
    }
    CHECK_EQ_INT(atomic_load(&g_seen), 1);
    CHECK_EQ_INT(atomic_load(&g_first), S_OK);
    CHECK_EQ_INT(atomic_load(&g_second), E_INVALIDARG);
    CHECK(g_queue == NULL);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "release_in_callback") == 0) {
        test_release_in_callback();
        return d12test_finish();
    }
    fprintf(stderr, "usage: test_drm_release_in_callback release_in_callback\n");
    return 2;
}
