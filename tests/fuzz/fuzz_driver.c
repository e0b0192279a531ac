/* Fuzz target: what a driver hands the runtime through the driver-reported-messages callbacks, from a fuzzing
 * driver: the reference driver behind tests/drm's shim (libd12_drmshim.so, D12RT_DRIVER; its d12_drmshim_report and
 * d12_drmshim_identity call the runtime's pfnReportMessageCb / pfnQueryObjectIdentityCb as the driver would).
 * Payloads: any VendorMessageId, severity and category (valid or not), any command-list state index, descriptions
 * of any bytes (always NUL-terminated: termination is the driver's contract) or NULL; identity queries with any
 * handle type, the device's own handle, a NULL or a bogus handle, a NULL size pointer, short and exact buffers.
 * Promises (spec/ddi.yaml, docs/drm.md): pfnReportMessageCb answers S_OK or E_INVALIDARG; pfnQueryObjectIdentityCb
 * S_OK, DXGI_ERROR_MORE_DATA or E_INVALIDARG, writes no more than the size it was given and NUL-terminates what it
 * writes; a bogus handle is E_INVALIDARG, never a dereference; the device is never removed by a payload. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "fuzz_input.h"

#define NAME "fuzz_driver"

static HRESULT (*shim_report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
static HRESULT (*shim_identity)(void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *identity);
static ID3D12Device *device;

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
    FUZZ_CHECK(NAME, shim_report && shim_identity);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!device)
        setup();
    fuzz_input in = {data, size, 0};
    for (unsigned calls = 0; calls < 64 && !fuzz_done(&in); calls++) {
        if (fuzz_u8(&in) % 3)
            report(&in);
        else
            identity(&in);
    }
    FUZZ_CHECK(NAME, ID3D12Device_GetDeviceRemovedReason(device) == S_OK);
    return 0;
}
