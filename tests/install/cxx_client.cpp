// An outside C++17 client of an installed d12rt, built with nothing but `pkg-config --cflags --libs d12rt`
// (ctest install.cxx_client). It holds the sample program of checkfeaturesupport1.txt, CheckRaytracingSupport,
// exactly as the spec prints it (WSL ComPtr, IID_PPV_ARGS on our ID3D12Device17), and runs it on a real d12rt
// device. argv[1] is the answer it must give: 1 with the reference driver's newest-tiers profile (RaytracingTier
// 1.2), 0 when D12RT_REFDRV_PROFILE lowers the tier to 1.0 (below the sample's `>= D3D12_RAYTRACING_TIER_1_1`).
#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <d12rt/d3d12_ext.h>
#include <dxguids/dxguids.h> // __uuidof for DirectX-Headers' own interfaces (IID_PPV_ARGS on ID3D12Device)

#include <cstdio>
#include <cstring>

#include "../harness.h"

// ---- checkfeaturesupport1.txt's sample program, unchanged. ----
HRESULT CheckRaytracingSupport(
ID3D12Device* pDevice,
bool* pRaytracingSupported)
{
if (pDevice == nullptr || pRaytracingSupported == nullptr)
{
return E_INVALIDARG;
}
*pRaytracingSupported = false;
Microsoft::WRL::ComPtr<ID3D12Device17> device17;
HRESULT hr = pDevice->QueryInterface(IID_PPV_ARGS(&device17));
if (FAILED(hr))
{
return hr;
}
D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {};
hr = device17->CheckFeatureSupport1(
D3D12_FEATURE_D3D12_OPTIONS5,
&options5,
sizeof(options5),
D3D12_SDK_VERSION);
if (SUCCEEDED(hr))
{
*pRaytracingSupported =
options5.RaytracingTier >= D3D12_RAYTRACING_TIER_1_1;
}
return hr;
}
// ---- end of the sample ----

int main(int argc, char **argv)
{
    if (argc != 2 || (std::strcmp(argv[1], "0") != 0 && std::strcmp(argv[1], "1") != 0)) {
        std::fprintf(stderr, "usage: %s 0|1 (the answer CheckRaytracingSupport must give)\n", argv[0]);
        return 2;
    }
    const bool expected = argv[1][0] == '1';

    Microsoft::WRL::ComPtr<ID3D12Device> device;
    CHECK_EQ_INT(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), S_OK);
    if (!CHECK(device != nullptr))
        return d12test_finish();

    bool supported = !expected;
    CHECK_EQ_INT(CheckRaytracingSupport(device.Get(), &supported), S_OK);
    CHECK_EQ_INT(supported, expected);
    std::printf("CheckRaytracingSupport: %s\n", supported ? "supported" : "not supported");

    // The sample's own argument checks.
    bool untouched = true;
    CHECK_EQ_INT(CheckRaytracingSupport(nullptr, &untouched), E_INVALIDARG);
    CHECK_EQ_INT(untouched, true);
    CHECK_EQ_INT(CheckRaytracingSupport(device.Get(), nullptr), E_INVALIDARG);

    // The same answer through As() and the tier itself: 1.2 by default, 1.0 with the lowered profile (neither is
    // clamped for SDK 606: both shipped long before CheckFeatureSupport1).
    Microsoft::WRL::ComPtr<ID3D12Device17> device17;
    CHECK_EQ_INT(device.As(&device17), S_OK);
    if (CHECK(device17 != nullptr)) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {};
        CHECK_EQ_INT(device17->CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof(options5),
                                                    D3D12_SDK_VERSION),
                     S_OK);
        CHECK_EQ_INT(options5.RaytracingTier, expected ? D3D12_RAYTRACING_TIER_1_2 : D3D12_RAYTRACING_TIER_1_0);
    }

    // Reference counts: the ComPtrs hold the only references.
    device17.Reset();
    CHECK_EQ_INT(device.Detach()->Release(), 0);
    return d12test_finish();
}
