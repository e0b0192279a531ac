/* The reference driver's heaps and placed buffers (D3D12DDI_TABLE_TYPE_D12RT_HEAPS, docs/heaps.md). A heap is a
 * buffer allocated exactly as a committed one is (its memory, one range of the device's VA space, the unmapped gap
 * after it); a placed buffer allocates nothing: it holds a reference on its heap's buffer and is the bytes at its
 * offset, so two buffers placed over one range share their GPU VA and their bytes, for Map and for the timelines
 * (which resolve addresses to the heap's buffer). The heap's memory lives while a placed buffer or an executing
 * command holds it; the runtime destroys the heap only after its placed buffers, and then its range goes. */
#define _POSIX_C_SOURCE 200809L

#include "refdrv_gpu.h"

static d12__refdrv_heap *heap_of(D3D12DDI_HHEAP handle)
{
    return (d12__refdrv_heap *)handle.pDrvPrivate;
}

static SIZE_T APIENTRY calc_private_heap_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATEHEAP_0001 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_heap);
}

static HRESULT APIENTRY create_heap(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATEHEAP_0001 *args,
                                    D3D12DDI_HHEAP heap, D3D12DDI_HRTRESOURCE rt_heap)
{
    d12__refdrv_device *device = (d12__refdrv_device *)handle.pDrvPrivate;
    if (!args || !heap.pDrvPrivate || !args->ByteSize)
        return E_INVALIDARG;
    /* Allocated as a committed buffer is (drivers/common/drvcommon_va.h): the VA contract knows no heaps. */
    return d12__refdrv_buffer_allocate(device, args->HeapType, args->ByteSize, rt_heap, &heap_of(heap)->buffer);
}

static VOID APIENTRY destroy_heap(D3D12DDI_HDEVICE handle, D3D12DDI_HHEAP heap)
{
    d12__refdrv_device *device = (d12__refdrv_device *)handle.pDrvPrivate;
    d12__refdrv_buffer *buffer = heap_of(heap)->buffer;
    d12__drv_va_release(device->va, buffer->va, buffer);
    d12__refdrv_buffer_release(buffer); /* executing commands may still hold it */
    heap_of(heap)->buffer = NULL;
}

static HRESULT APIENTRY create_placed_resource(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATEPLACEDRESOURCE_D12RT *args,
                                               D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource)
{
    (void)handle;
    (void)rt_resource; /* the heap's buffer names the range in findings; the runtime's ledger names the aliases */
    if (!args || !resource.pDrvPrivate || !args->hDrvHeap.pDrvPrivate || !args->Width)
        return E_INVALIDARG;
    d12__refdrv_buffer *buffer = heap_of(args->hDrvHeap)->buffer;
    if (args->HeapOffset > buffer->size || args->Width > buffer->size - args->HeapOffset)
        return E_INVALIDARG; /* the runtime checked it: a second line of defence for a driver's own memory */
    atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
    *(d12__refdrv_resource *)resource.pDrvPrivate =
        (d12__refdrv_resource){buffer, args->HeapOffset, args->Width, true};
    return S_OK;
}

static UINT64 APIENTRY heap_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HHEAP heap)
{
    (void)device;
    return heap_of(heap)->buffer->va;
}

const D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT d12__refdrv_heap_funcs = {
    calc_private_heap_size, create_heap, destroy_heap, create_placed_resource, heap_gpu_va,
};
