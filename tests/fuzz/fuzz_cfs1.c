/* Fuzz target: ID3D12Device17::CheckFeatureSupport1 and the legacy CheckFeatureSupport through libd12rt's public
 * ABI, with any feature number (mostly D3D12_FEATURE values, some beyond), any data size (0 to 1 KiB, the buffer
 * exactly that size so a sanitizer sees a byte written or read past it), any SDK version (mostly the published
 * ones of spec/sdk.yaml, some arbitrary) and any bytes as the in/out struct. Promises checked (docs/clamping.md,
 * docs/device.md): only documented HRESULTs come back, a NULL data pointer never succeeds, and a call that fails
 * leaves no device removed. */
#define _POSIX_C_SOURCE 200809L
#define COBJMACROS
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "fuzz_input.h"

#define NAME "fuzz_cfs1"

static ID3D12Device17 *fuzz_device(void)
{
    static ID3D12Device17 *device;
    if (!device) {
        ID3D12Debug *debug = NULL;
        if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))) {
            ID3D12Debug_EnableDebugLayer(debug); /* the clamp warnings are reported too */
            ID3D12Debug_Release(debug);
        }
        FUZZ_CHECK(NAME, SUCCEEDED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17,
                                                     (void **)&device)));
        ID3D12InfoQueue *queue = NULL;
        if (SUCCEEDED(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue))) {
            ID3D12InfoQueue_SetMuteDebugOutput(queue, TRUE);
            ID3D12InfoQueue_SetMessageCountLimit(queue, 64);
            ID3D12InfoQueue_Release(queue);
        }
    }
    return device;
}

static const UINT sdk_versions[] = {0, 1, 4, 600, 602, 606, 608, 610, 611, 613, 614, 615, 616, 618, 619, 620, 621,
                                    700, 710, 715, 716, 717, 718, 719, 720, 721, 722, 9999, UINT32_MAX};

/* Pointers inside a struct (FEATURE_LEVELS' level list, QUERY_META_COMMAND's buffers, PROTECTED_RESOURCE_SESSION_
 * TYPES' GUID array) are made to point at buffers of exactly the size their count fields give: a garbage pointer is
 * an application bug no C API can survive (Windows' neither), while a count the runtime reads past is the runtime's.
 * The buffers are returned in `owned` for freeing. */
static void honest_pointers(fuzz_input *in, D3D12_FEATURE feature, uint8_t *buffer, UINT size, void *owned[2])
{
    if (feature == D3D12_FEATURE_FEATURE_LEVELS && size >= sizeof(D3D12_FEATURE_DATA_FEATURE_LEVELS)) {
        D3D12_FEATURE_DATA_FEATURE_LEVELS *d = (void *)buffer;
        d->NumFeatureLevels %= 17;
        D3D_FEATURE_LEVEL *levels = owned[0] = malloc(d->NumFeatureLevels * sizeof *levels + 1);
        static const D3D_FEATURE_LEVEL known[] = {D3D_FEATURE_LEVEL_1_0_CORE, D3D_FEATURE_LEVEL_9_1, D3D_FEATURE_LEVEL_11_0,
                                                  D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1,
                                                  D3D_FEATURE_LEVEL_12_2};
        for (UINT i = 0; i < d->NumFeatureLevels; i++) {
            uint8_t pick = fuzz_u8(in);
            levels[i] = pick & 0x80 ? (D3D_FEATURE_LEVEL)fuzz_u32(in) : known[pick % 7];
        }
        d->pFeatureLevelsRequested = fuzz_u8(in) % 8 ? levels : NULL;
    } else if (feature == D3D12_FEATURE_QUERY_META_COMMAND && size >= sizeof(D3D12_FEATURE_DATA_QUERY_META_COMMAND)) {
        D3D12_FEATURE_DATA_QUERY_META_COMMAND *d = (void *)buffer;
        d->QueryInputDataSizeInBytes %= 65;
        d->QueryOutputDataSizeInBytes %= 65;
        d->pQueryInputData = owned[0] = calloc(1, d->QueryInputDataSizeInBytes + 1);
        d->pQueryOutputData = owned[1] = calloc(1, d->QueryOutputDataSizeInBytes + 1);
    } else if (feature == D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_TYPES &&
               size >= sizeof(D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_TYPES)) {
        D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_TYPES *d = (void *)buffer;
        d->Count %= 9;
        d->pTypes = owned[0] = calloc(d->Count + 1, sizeof(GUID));
    }
}

/* E_FAIL only where docs/formats.md gives it (as D3D12 does): FORMAT_SUPPORT of a format supported in no way,
 * MULTISAMPLE_QUALITY_LEVELS with SampleCount 0. */
static int documented(D3D12_FEATURE feature, HRESULT hr)
{
    if (hr == E_FAIL)
        return feature == D3D12_FEATURE_FORMAT_SUPPORT || feature == D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS;
    return hr == S_OK || hr == E_INVALIDARG || hr == DXGI_ERROR_UNSUPPORTED || hr == E_OUTOFMEMORY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ID3D12Device17 *device = fuzz_device();
    fuzz_input in = {data, size, 0};
    for (unsigned call = 0; call < 16 && !fuzz_done(&in); call++) {
        uint8_t shape = fuzz_u8(&in);
        D3D12_FEATURE feature = (D3D12_FEATURE)(shape & 0x80 ? fuzz_u32(&in) : fuzz_u8(&in) % 64u);
        UINT data_size = (fuzz_u8(&in) | (UINT)fuzz_u8(&in) << 8) % 1025u;
        uint8_t version = fuzz_u8(&in);
        UINT sdk = version & 0x80 ? fuzz_u32(&in) : sdk_versions[version % (sizeof sdk_versions / sizeof sdk_versions[0])];
        uint8_t *buffer = malloc(data_size ? data_size : 1);
        for (UINT i = 0; i < data_size; i++)
            buffer[i] = fuzz_u8(&in);
        void *owned[2] = {NULL, NULL};
        honest_pointers(&in, feature, buffer, data_size, owned);
        void *pointer = shape & 0x40 ? NULL : buffer;
        HRESULT hr = shape & 0x20 ? ID3D12Device17_CheckFeatureSupport(device, feature, pointer, data_size)
                                  : ID3D12Device17_CheckFeatureSupport1(device, feature, pointer, data_size, sdk);
        if (!documented(feature, hr))
            fprintf(stderr, NAME ": feature %u size %u sdk %u: 0x%08x\n", (unsigned)feature, data_size, sdk,
                    (unsigned)hr);
        FUZZ_CHECK(NAME, documented(feature, hr));
        FUZZ_CHECK(NAME, pointer != NULL || FAILED(hr));
        FUZZ_CHECK(NAME, ID3D12Device17_GetDeviceRemovedReason(device) == S_OK);
        free(buffer);
        free(owned[0]);
        free(owned[1]);
    }
    return 0;
}
