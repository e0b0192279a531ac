/* The Vulkan driver's heaps and placed buffers (D3D12DDI_TABLE_TYPE_D12RT_HEAPS, docs/heaps.md). A heap is a buffer
 * allocated exactly as a committed one is (one VkBuffer and VkDeviceMemory over its 64 KiB-granular span, one range
 * of the VA space with the unmapped gap after it); a placed buffer allocates nothing: it holds a reference on its
 * heap's buffer and is the bytes at its offset, so aliases share their GPU VA and their bytes, for Map (the heap's
 * persistent mapping at the offset) and for the GPU (copies are vkCmdCopyBuffer2 on the heap's VkBuffer at the
 * offset; kernels translate the heap's pages). The heap's Vulkan objects live while a placed buffer or a recording
 * holds its buffer; the runtime destroys the heap only after its placed buffers, and then its range goes. */
#define _POSIX_C_SOURCE 200809L

#include "vkdrv.h"

static d12__vkdrv_heap *heap_of(D3D12DDI_HHEAP handle)
{
    return (d12__vkdrv_heap *)handle.pDrvPrivate;
}

static SIZE_T APIENTRY calc_private_heap_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATEHEAP_0001 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_heap);
}

static HRESULT APIENTRY create_heap(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATEHEAP_0001 *args,
                                    D3D12DDI_HHEAP heap, D3D12DDI_HRTRESOURCE rt_heap)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    if (!args || !heap.pDrvPrivate || !args->ByteSize)
        return E_INVALIDARG;
    /* Allocated as a committed buffer is (drivers/common/drvcommon_va.h): the VA contract knows no heaps. */
    return d12__vkdrv_buffer_allocate(device, args->HeapType, args->ByteSize, rt_heap, &heap_of(heap)->buffer);
}

static VOID APIENTRY destroy_heap(D3D12DDI_HDEVICE handle, D3D12DDI_HHEAP heap)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    d12__vkdrv_buffer_free_range(device, heap_of(heap)->buffer);
    d12__vkdrv_buffer_release(heap_of(heap)->buffer); /* recordings may still hold it */
    heap_of(heap)->buffer = NULL;
}

static HRESULT APIENTRY create_placed_resource(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATEPLACEDRESOURCE_D12RT *args,
                                               D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource)
{
    (void)handle;
    (void)rt_resource; /* the heap's buffer names the range in findings; the runtime's ledger names the aliases */
    if (!args || !resource.pDrvPrivate || !args->hDrvHeap.pDrvPrivate || !args->Width)
        return E_INVALIDARG;
    d12__vkdrv_buffer *buffer = heap_of(args->hDrvHeap)->buffer;
    if (args->HeapOffset > buffer->size || args->Width > buffer->size - args->HeapOffset)
        return E_INVALIDARG; /* the runtime checked it: a second line of defence for the driver's own memory */
    d12__vkdrv_buffer_retain(buffer);
    *(d12__vkdrv_resource *)resource.pDrvPrivate = (d12__vkdrv_resource){buffer, args->HeapOffset, args->Width, true};
    return S_OK;
}

static UINT64 APIENTRY heap_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HHEAP heap)
{
    (void)device;
    return heap_of(heap)->buffer->va;
}

const D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT d12__vkdrv_heap_funcs = {
    calc_private_heap_size, create_heap, destroy_heap, create_placed_resource, heap_gpu_va,
};
