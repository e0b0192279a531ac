// d12rt's driver-reported-messages demo: the sample program of driver-reported-messages.txt ("Usage"), unchanged in
// its four steps, plus GPU work with a deliberate bug so the driver has something to say.
//
//   1. debug layer + ID3D12Debug7::SetEnableDriverReportedMessages(TRUE), before the device;
//   2. D3D12CreateDevice;
//   3. ID3D12InfoQueue1::RegisterMessageCallback printing driver messages (3a, the deny filter: `--deny`);
//   4. submit GPU work: a vertex buffer of 3 vertices (48 bytes) is bound through a view claiming 4 (64 bytes),
//      and the third draw of the list uses it. The reference driver finds the overrun when the draw executes, and
//      the runtime names the command list and the draw: "0x...:'DemoCommandList' [Draw #2] ...". The copy that
//      follows really moves bytes on the GPU timeline; the demo reads them back;
//   5. the message arrives through the callback at the next flush: the demo signals a fence, waits for it on an
//      eventfd, and calls ExecuteCommandLists again, which flushes because completed work was observed.
//
// Exit status: 0 when the initialization message and the correlated finding arrived (with --deny: when neither
// did), 1 otherwise. Run it as build/default/examples/drm_demo [--deny].
#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <dxguids/dxguids.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using Microsoft::WRL::ComPtr;

namespace {

std::vector<std::string> g_driver_messages;

ComPtr<ID3D12Resource> make_buffer(ID3D12Device *device, D3D12_HEAP_TYPE heap_type, UINT64 width,
                                   D3D12_RESOURCE_STATES state, const wchar_t *name)
{
    D3D12_HEAP_PROPERTIES heap = {};
    heap.Type = heap_type;
    D3D12_RESOURCE_DESC desc = {};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    ComPtr<ID3D12Resource> buffer;
    if (FAILED(device->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                               IID_PPV_ARGS(&buffer))))
        return nullptr;
    buffer->SetName(name);
    return buffer;
}

// Wait for the fence on an eventfd, as a Linux D3D12 application does (events are eventfds cast to HANDLE).
bool wait_for(ID3D12Fence *fence, UINT64 value)
{
    int event = eventfd(0, EFD_CLOEXEC);
    if (event < 0 || FAILED(fence->SetEventOnCompletion(value, reinterpret_cast<HANDLE>(static_cast<intptr_t>(event))))) {
        if (event >= 0)
            close(event);
        return false;
    }
    pollfd waiting = {event, POLLIN, 0};
    uint64_t count = 0;
    bool signalled = poll(&waiting, 1, 10000) == 1 && read(event, &count, sizeof count) == sizeof count;
    close(event);
    return signalled;
}

} // namespace

int main(int argc, char **argv)
{
    bool deny = argc > 1 && std::strcmp(argv[1], "--deny") == 0;

    // 1. Enable the debug layer AND driver-reported messages BEFORE device creation.
    ComPtr<ID3D12Debug> debug;
    D3D12GetDebugInterface(IID_PPV_ARGS(&debug));
    debug->EnableDebugLayer();
    ComPtr<ID3D12Debug7> debug7;
    debug.As(&debug7);
    debug7->SetEnableDriverReportedMessages(TRUE);

    // 2. Create the device (d12rt: NULL is the default adapter, the reference driver unless D12RT_DRIVER says).
    ComPtr<ID3D12Device> device;
    if (FAILED(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_12_0, IID_PPV_ARGS(&device)))) {
        std::fprintf(stderr, "drm_demo: D3D12CreateDevice failed\n");
        return 1;
    }

    // 3. Get the InfoQueue1 surface and subscribe to messages. The initialization message was reported during
    //    D3D12CreateDevice, before any callback could exist: it waits in the queue (read below).
    ComPtr<ID3D12InfoQueue1> iq;
    device.As(&iq);
    DWORD cookie = 0;
    iq->RegisterMessageCallback(
        [](D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
           LPCSTR description, void * /*ctx*/) {
            if (id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) {
                std::printf("[driver][cat=%d][sev=%d] %s\n", category, severity, description);
                g_driver_messages.emplace_back(description);
            }
        },
        D3D12_MESSAGE_CALLBACK_FLAG_NONE, nullptr, &cookie);

    // 3a. To suppress driver-reported messages as a class, deny the sentinel ID.
    if (deny) {
        D3D12_MESSAGE_ID deny_ids[] = {D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE};
        D3D12_INFO_QUEUE_FILTER filter = {};
        filter.DenyList.NumIDs = 1;
        filter.DenyList.pIDList = deny_ids;
        iq->PushStorageFilter(&filter);
        iq->ClearStoredMessages();
    }

    // Apps that pull instead of subscribe read the stored messages and check for the sentinel ID.
    bool init_seen = false;
    for (UINT64 i = 0; i < iq->GetNumStoredMessages(); i++) {
        SIZE_T size = 0;
        iq->GetMessage(i, nullptr, &size);
        std::vector<char> storage(size);
        auto *message = reinterpret_cast<D3D12_MESSAGE *>(storage.data());
        if (SUCCEEDED(iq->GetMessage(i, message, &size)) && message->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) {
            std::printf("[driver][stored] %s\n", message->pDescription);
            init_seen |= std::strcmp(message->pDescription, "D3D12 Driver Reported Messages Enabled") == 0;
        }
    }

    // 4. ... submit GPU work ...
    D3D12_COMMAND_QUEUE_DESC queue_desc = {};
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    ComPtr<ID3D12CommandQueue> queue;
    ComPtr<ID3D12CommandAllocator> allocator;
    ComPtr<ID3D12GraphicsCommandList> list, idle;
    ComPtr<ID3D12Fence> fence;
    if (FAILED(device->CreateCommandQueue(&queue_desc, IID_PPV_ARGS(&queue))) ||
        FAILED(device->CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT, IID_PPV_ARGS(&allocator))) ||
        FAILED(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr,
                                         IID_PPV_ARGS(&list))) ||
        FAILED(device->CreateFence(0, D3D12_FENCE_FLAG_NONE, IID_PPV_ARGS(&fence)))) {
        std::fprintf(stderr, "drm_demo: creating the queue, allocator, list or fence failed\n");
        return 1;
    }
    list->SetName(L"DemoCommandList");
    const UINT stride = 16, vertices = 3;
    auto vertex_buffer = make_buffer(device.Get(), D3D12_HEAP_TYPE_UPLOAD, stride * vertices,
                                     D3D12_RESOURCE_STATE_GENERIC_READ, L"DemoVertexBuffer");
    auto gpu_copy = make_buffer(device.Get(), D3D12_HEAP_TYPE_DEFAULT, stride * vertices,
                                D3D12_RESOURCE_STATE_COPY_DEST, L"DemoGpuCopy");
    auto readback = make_buffer(device.Get(), D3D12_HEAP_TYPE_READBACK, stride * vertices,
                                D3D12_RESOURCE_STATE_COPY_DEST, L"DemoReadback");
    if (!vertex_buffer || !gpu_copy || !readback)
        return 1;
    float *data = nullptr;
    vertex_buffer->Map(0, nullptr, reinterpret_cast<void **>(&data));
    for (UINT i = 0; i < stride * vertices / sizeof(float); i++)
        data[i] = static_cast<float>(i);
    vertex_buffer->Unmap(0, nullptr);

    D3D12_VERTEX_BUFFER_VIEW good = {vertex_buffer->GetGPUVirtualAddress(), stride * vertices, stride};
    D3D12_VERTEX_BUFFER_VIEW bad = good;
    bad.SizeInBytes = stride * (vertices + 1); // the deliberate bug: one vertex more than the buffer holds
    list->IASetVertexBuffers(0, 1, &good);
    list->DrawInstanced(vertices, 1, 0, 0); // Draw #0
    list->DrawInstanced(vertices, 1, 0, 0); // Draw #1
    list->IASetVertexBuffers(0, 1, &bad);
    list->DrawInstanced(vertices, 1, 0, 0); // Draw #2: the driver reports it when it executes
    list->CopyBufferRegion(gpu_copy.Get(), 0, vertex_buffer.Get(), 0, stride * vertices);
    D3D12_RESOURCE_BARRIER barrier = {};
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = gpu_copy.Get();
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_DEST;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_COPY_SOURCE;
    list->ResourceBarrier(1, &barrier);
    list->CopyResource(readback.Get(), gpu_copy.Get());
    if (FAILED(list->Close()))
        return 1;
    ID3D12CommandList *lists[] = {list.Get()};
    queue->ExecuteCommandLists(1, lists);
    queue->Signal(fence.Get(), 1);

    // 5. The GPU finished (the fence says so); the next ExecuteCommandLists flushes the driver's messages.
    if (!wait_for(fence.Get(), 1)) {
        std::fprintf(stderr, "drm_demo: the fence never reached 1\n");
        return 1;
    }
    // A removed device (a hang, a fault) creates nothing more and maps nothing: say so rather than use it.
    HRESULT removed = device->GetDeviceRemovedReason();
    if (FAILED(removed) ||
        FAILED(device->CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator.Get(), nullptr,
                                         IID_PPV_ARGS(&idle))) ||
        FAILED(idle->Close())) {
        std::fprintf(stderr, "drm_demo: the device was removed (reason 0x%08x): see the messages above\n",
                     static_cast<unsigned>(removed));
        return 1;
    }
    ID3D12CommandList *idle_lists[] = {idle.Get()};
    queue->ExecuteCommandLists(1, idle_lists);

    float *copied = nullptr;
    if (FAILED(readback->Map(0, nullptr, reinterpret_cast<void **>(&copied))))
        return 1;
    std::printf("read back through the GPU timeline: %.0f %.0f ... %.0f\n", copied[0], copied[1],
                copied[stride * vertices / sizeof(float) - 1]);
    bool copy_ok = copied[stride * vertices / sizeof(float) - 1] == stride * vertices / sizeof(float) - 1;
    readback->Unmap(0, nullptr);

    bool correlated = false;
    for (const std::string &text : g_driver_messages)
        correlated |= text.find(":'DemoCommandList' [Draw #2] ") != std::string::npos &&
                      text.find("DemoVertexBuffer") != std::string::npos;
    iq->UnregisterMessageCallback(cookie);
    if (deny) {
        std::printf("deny filter: %zu driver messages reached the callback (expected 0)\n", g_driver_messages.size());
        return g_driver_messages.empty() && copy_ok ? 0 : 1;
    }
    std::printf("initialization message: %s; correlated finding: %s; copy: %s\n", init_seen ? "yes" : "NO",
                correlated ? "yes" : "NO", copy_ok ? "ok" : "WRONG");
    return init_seen && correlated && copy_ok ? 0 : 1;
}
