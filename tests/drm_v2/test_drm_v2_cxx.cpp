// Version 2 of driver-reported messages from C++ (docs/driver-reported-messages-v2.md): the new interfaces through the
// WSL ComPtr and IID_PPV_ARGS (the __CRT_UUID_DECLs of d12rt/d3d12_ext.h), a C++ lambda as D3D12MessageFunc1, a
// driver-message filter, GetMessage1, ID3D12DebugDevice3 and the feature query, on the built-in reference driver.
#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <d12rt/d3d12_ext.h>
#include <dxguids/dxguids.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "harness.h"

using Microsoft::WRL::ComPtr;

int main()
{
    ComPtr<ID3D12Debug7> debug;
    CHECK_EQ_INT(D3D12GetDebugInterface(IID_PPV_ARGS(&debug)), S_OK);
    if (!debug)
        return d12test_finish();
    debug->EnableDebugLayer();
    debug->SetEnableDriverReportedMessages(TRUE);
    ComPtr<ID3D12Device> device;
    CHECK_EQ_INT(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), S_OK);
    ComPtr<ID3D12InfoQueue2> iq;
    ComPtr<ID3D12DebugDevice3> dd;
    if (device) {
        CHECK_EQ_INT(device.As(&iq), S_OK);
        CHECK_EQ_INT(device.As(&dd), S_OK);
    }
    if (!iq || !dd)
        return d12test_finish();
    iq->SetMuteDebugOutput(TRUE);
    SIZE_T length = 0;
    CHECK_EQ_INT(iq->GetMessage1(0, nullptr, &length), S_FALSE);
    std::vector<unsigned char> bytes(length);
    auto *m = reinterpret_cast<D3D12_MESSAGE1 *>(bytes.data());
    CHECK_EQ_INT(iq->GetMessage1(0, m, &length), S_OK);
    CHECK_EQ_STR(m->pDescription, "D3D12 Driver Reported Messages Enabled");
    CHECK_EQ_INT(m->VendorId, 0x1414);
    unsigned calls = 0;
    DWORD cookie = 0;
    CHECK_EQ_INT(iq->RegisterMessageCallback1([](const D3D12_MESSAGE1 *message, void *context) {
        if (message->VendorId == 0)
            ++*static_cast<unsigned *>(context);
    }, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &calls, &cookie), S_OK);
    CHECK_EQ_INT(iq->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "from C++"), S_OK);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_INT(iq->UnregisterMessageCallback(cookie), S_OK);
    D3D12_DRIVER_MESSAGE_IDENTITY deny = {m->VendorId, m->VendorMessageId};
    D3D12_DRIVER_MESSAGE_FILTER filter = {0, nullptr, 1, &deny};
    CHECK_EQ_INT(iq->PushDriverMessageFilter(&filter), S_OK);
    iq->PopDriverMessageFilter();
    iq->PopDriverMessageFilter(); // empty: nothing
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data = {};
    CHECK_EQ_INT(device->CheckFeatureSupport(D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data, sizeof data), S_OK);
    CHECK_EQ_INT(data.SupportedFlags, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
    CHECK_EQ_INT(dd->GetDriverReportedMessageFlags(), D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL);
    D3D12_DRIVER_REPORTED_MESSAGE_FLAGS none = D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE;
    CHECK_EQ_INT(dd->SetDriverReportedMessageFlags(none), S_OK);
    CHECK_EQ_INT(dd->SetDriverReportedMessageFlags(D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL |
                                                   D3D12_DRIVER_REPORTED_MESSAGE_FLAG_SHADER),
                 E_INVALIDARG);
    return d12test_finish();
}
