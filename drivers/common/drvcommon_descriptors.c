/* Descriptor heaps of both drivers (drvcommon_descriptors.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_descriptors.h"

#define PRIVATE_ALIGNMENT 64

static d12__drv_descriptor_heap *heap_of(D3D12DDI_HDESCRIPTORHEAP handle)
{
    return (d12__drv_descriptor_heap *)handle.pDrvPrivate;
}

SIZE_T d12__drv_descriptor_heap_size(void)
{
    return sizeof(d12__drv_descriptor_heap);
}

/* A shader-visible heap's memory: an UPLOAD buffer of the driver's, mapped for good (CPU-visible, and at a GPU VA). */
static HRESULT create_visible(d12__drv_descriptor_heap *heap, D3D12DDI_HDEVICE device, UINT64 bytes)
{
    const D3D12DDI_DEVICE_FUNCS_CORE_0126 *core = heap->driver->core;
    D3D12DDIARG_CREATERESOURCE_0126 args = {D3D12DDI_HEAP_TYPE_UPLOAD, bytes};
    SIZE_T size = core->pfnCalcPrivateResourceSize(device, &args);
    size = (size + PRIVATE_ALIGNMENT - 1) & ~(SIZE_T)(PRIVATE_ALIGNMENT - 1);
    void *memory = aligned_alloc(PRIVATE_ALIGNMENT, size ? size : PRIVATE_ALIGNMENT);
    if (!memory)
        return E_OUTOFMEMORY;
    memset(memory, 0, size);
    D3D12DDI_HRESOURCE resource = {memory};
    D3D12DDI_HRTRESOURCE none = {NULL}; /* no runtime resource: the heap is named by the runtime's ledger */
    HRESULT hr = core->pfnCreateResource(device, &args, resource, none);
    if (FAILED(hr)) {
        free(memory);
        return hr;
    }
    void *cpu = NULL;
    if (FAILED(hr = core->pfnMapResource(device, resource, &cpu))) {
        core->pfnDestroyResource(device, resource);
        free(memory);
        return hr;
    }
    heap->buffer = memory;
    heap->cpu = cpu; /* zero: an UPLOAD buffer reads as zero until written */
    heap->va = core->pfnGetResourceGPUVirtualAddress(device, resource);
    return S_OK;
}

HRESULT d12__drv_descriptor_heap_create(const d12__drv_descriptor_driver *driver, D3D12DDI_HDEVICE device,
                                        const D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 *args,
                                        D3D12DDI_HDESCRIPTORHEAP handle)
{
    d12__drv_descriptor_heap *heap = heap_of(handle);
    if (!args || !heap || (UINT)args->Type > D3D12DDI_DESCRIPTOR_HEAP_TYPE_DSV || !args->NumDescriptors)
        return E_INVALIDARG;
    UINT64 bytes = (UINT64)args->NumDescriptors * driver->sizes[args->Type];
    if (bytes >= (1ull << 40))
        return E_OUTOFMEMORY;
    *heap = (d12__drv_descriptor_heap){*args, driver, NULL, 0, NULL};
    if (args->Flags & D3D12DDI_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)
        return create_visible(heap, device, bytes);
    heap->cpu = calloc(1, (size_t)bytes);
    return heap->cpu ? S_OK : E_OUTOFMEMORY;
}

VOID APIENTRY d12__drv_descriptor_heap_destroy(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP handle)
{
    d12__drv_descriptor_heap *heap = heap_of(handle);
    if (heap->buffer) {
        D3D12DDI_HRESOURCE resource = {heap->buffer};
        heap->driver->core->pfnUnmapResource(device, resource);
        heap->driver->core->pfnDestroyResource(device, resource); /* its range faults from now on */
        free(heap->buffer);
    } else {
        free(heap->cpu);
    }
    heap->cpu = NULL;
    heap->buffer = NULL;
}

SIZE_T APIENTRY d12__drv_descriptor_heap_cpu_start(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP handle)
{
    (void)device;
    return (SIZE_T)(uintptr_t)heap_of(handle)->cpu;
}

UINT64 APIENTRY d12__drv_descriptor_heap_gpu_start(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP handle)
{
    (void)device;
    return heap_of(handle)->va;
}

void d12__drv_descriptor_copy(const d12__drv_descriptor_driver *driver, UINT count, SIZE_T dest, SIZE_T src,
                              D3D12DDI_DESCRIPTOR_HEAP_TYPE type)
{
    if ((UINT)type > D3D12DDI_DESCRIPTOR_HEAP_TYPE_DSV || !count)
        return;
    memmove((void *)(uintptr_t)dest, (const void *)(uintptr_t)src, (size_t)count * driver->sizes[type]);
}

UINT d12__drv_buffer_view_format_size(DXGI_FORMAT format)
{
    switch (format) {
    case DXGI_FORMAT_R32G32B32A32_FLOAT: case DXGI_FORMAT_R32G32B32A32_UINT: case DXGI_FORMAT_R32G32B32A32_SINT:
        return 16;
    case DXGI_FORMAT_R32G32_FLOAT: case DXGI_FORMAT_R32G32_UINT: case DXGI_FORMAT_R32G32_SINT:
    case DXGI_FORMAT_R16G16B16A16_FLOAT: case DXGI_FORMAT_R16G16B16A16_UINT: case DXGI_FORMAT_R16G16B16A16_SINT:
        return 8;
    case DXGI_FORMAT_R32_FLOAT: case DXGI_FORMAT_R32_UINT: case DXGI_FORMAT_R32_SINT:
    case DXGI_FORMAT_R8G8B8A8_UNORM: case DXGI_FORMAT_R8G8B8A8_UINT: case DXGI_FORMAT_R8G8B8A8_SINT:
    case DXGI_FORMAT_R16G16_FLOAT: case DXGI_FORMAT_R16G16_UINT: case DXGI_FORMAT_R16G16_SINT:
        return 4;
    case DXGI_FORMAT_R16_FLOAT: case DXGI_FORMAT_R16_UINT: case DXGI_FORMAT_R16_SINT:
        return 2;
    case DXGI_FORMAT_R8_UNORM: case DXGI_FORMAT_R8_UINT: case DXGI_FORMAT_R8_SINT:
        return 1;
    default:
        return 0;
    }
}
