/* Issue 29: device destruction freed DRED's data before the driver was destroyed, so a driver thread calling
 * pfnQueryGpuVaIdentityCb or pfnSetErrorCb during destruction read freed memory (valgrind, TSan; 5 of 40 runs crashed).
 * Here a "driver thread" (this test's, through tests/drm's shim) calls both as fast as it can while the device's last
 * Release runs, the shim holding pfnDestroyDevice open for a while so the calls land inside it. Every answer must be
 * one of the documented ones, the calls must have happened during the destruction, and a call after Release returned
 * must find no device (E_INVALIDARG). Under the asan and tsan presets a read of freed state fails the test.
 * `test_drm_destroy_storm ROUNDS`. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

static struct {
    HRESULT (*va_identity)(UINT64 va, SIZE_T *size, CHAR *identity);
    void (*set_error)(HRESULT hr);
    void (*destroy_delay)(unsigned ms);
    int (*destroying)(void);
} shim;

static atomic_bool g_stop;
static atomic_uint g_during, g_bad_answers;
static UINT64 g_va;

static void *storm(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_stop)) {
        int where = shim.destroying();
        char identity[256];
        SIZE_T size = sizeof identity;
        HRESULT hr = shim.va_identity(g_va, &size, identity);
        if (hr != S_OK && hr != E_INVALIDARG && hr != DXGI_ERROR_NOT_FOUND && hr != DXGI_ERROR_MORE_DATA)
            atomic_fetch_add(&g_bad_answers, 1);
        if (where == 1) {
            shim.set_error(E_FAIL); /* removes the device, if any is left to remove */
            atomic_fetch_add(&g_during, 1);
        }
    }
    return NULL;
}

static void round_once(void)
{
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (!device)
        return;
    /* A buffer made and released: the page-fault ledger has it among the freed, which the VA identity reads. */
    D3D12_HEAP_PROPERTIES heap = {D3D12_HEAP_TYPE_UPLOAD, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 0, 0};
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, 4096, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    ID3D12Resource *buffer = NULL;
    CHECK_EQ_INT(ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc,
                                                  D3D12_RESOURCE_STATE_GENERIC_READ, NULL, &IID_ID3D12Resource,
                                                  (void **)&buffer), S_OK);
    if (buffer) {
        g_va = ID3D12Resource_GetGPUVirtualAddress(buffer) + 16;
        ID3D12Resource_Release(buffer);
    }
    char name[256];
    SIZE_T name_size = sizeof name; /* the freed buffer is named through DRED's ledger while the device lives */
    CHECK_EQ_INT(shim.va_identity(g_va, &name_size, name), S_OK);
    shim.destroy_delay(20);
    atomic_store(&g_stop, false);
    pthread_t thread;
    if (!CHECK(pthread_create(&thread, NULL, storm, NULL) == 0))
        return;
    CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    CHECK_EQ_INT(shim.destroying(), 2);
    char identity[64];
    SIZE_T size = sizeof identity;
    CHECK_EQ_INT(shim.va_identity(g_va, &size, identity), E_INVALIDARG); /* no device any more */
    atomic_store(&g_stop, true);
    pthread_join(thread, NULL);
}

int main(int argc, char **argv)
{
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW);
    if (!CHECK(library != NULL))
        return d12test_finish();
    *(void **)&shim.va_identity = dlsym(library, "d12_drmshim_va_identity");
    *(void **)&shim.set_error = dlsym(library, "d12_drmshim_set_error");
    *(void **)&shim.destroy_delay = dlsym(library, "d12_drmshim_destroy_delay");
    *(void **)&shim.destroying = dlsym(library, "d12_drmshim_destroying");
    if (!CHECK(shim.va_identity && shim.set_error && shim.destroy_delay && shim.destroying))
        return d12test_finish();
    ID3D12DeviceRemovedExtendedDataSettings *dred = NULL; /* page faults on: the ledger is kept */
    if (CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings, (void **)&dred)))) {
        ID3D12DeviceRemovedExtendedDataSettings_SetAutoBreadcrumbsEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings_SetPageFaultEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings_Release(dred);
    }
    ID3D12Debug7 *debug = NULL; /* the driver-reported-messages channel on: pfnQueryGpuVaIdentityCb answers */
    if (CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug)))) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    for (int i = 0; i < rounds; i++)
        round_once();
    CHECK(atomic_load(&g_during) > 0); /* the storm did land inside destructions */
    CHECK_EQ_INT(atomic_load(&g_bad_answers), 0);
    printf("%u callbacks during destruction over %d rounds\n", atomic_load(&g_during), rounds);
    return d12test_finish();
}
