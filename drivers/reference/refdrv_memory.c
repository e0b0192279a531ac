/* The reference driver's buffers. Their addresses come from the device's GPU virtual address space
 * (drivers/common/drvcommon_va.h): an allocator that hands a released range out again only after 65 000 further
 * releases, every buffer followed by at least 64 KiB that belong to nobody, so an address that outlived its buffer, or ran off its end, resolves to no buffer:
 * a page fault, never another buffer's bytes. The timelines resolve addresses through it under its read lock. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "drvcommon_messages.h"
#include "drvcommon_once.h"
#include "refdrv_gpu.h"

#define MEMORY_ALIGNMENT 256 /* D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT: the strictest a buffer meets */

d12__refdrv_buffer *d12__refdrv_buffer_acquire(d12__refdrv_device *device, UINT64 address)
{
    return d12__drv_va_acquire(device->va, address);
}

unsigned char *d12__refdrv_buffer_memory(d12__refdrv_buffer *buffer)
{
    if (d12__drv_once_claim(&buffer->zeroing)) {
        size_t bytes = ((size_t)buffer->size + MEMORY_ALIGNMENT - 1) & ~(size_t)(MEMORY_ALIGNMENT - 1);
        memset(buffer->memory, 0, bytes);
        d12__drv_once_done(&buffer->zeroing);
    }
    return buffer->memory;
}

void d12__refdrv_buffer_release(d12__refdrv_buffer *buffer)
{
    if (atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) == 1) {
        free(buffer->memory);
        free(buffer);
    }
}

char *d12__refdrv_va_name(d12__refdrv_device *device, UINT64 va)
{
    return d12__drv_va_name(&device->callbacks, device->rt_device, device->drm_version, va);
}

static d12__refdrv_resource *resource_of(D3D12DDI_HRESOURCE handle)
{
    return (d12__refdrv_resource *)handle.pDrvPrivate;
}

SIZE_T APIENTRY d12__refdrv_calc_private_resource_size(D3D12DDI_HDEVICE device,
                                                       const D3D12DDIARG_CREATERESOURCE_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_resource);
}

static d12__refdrv_buffer *buffer_new(D3D12DDI_HEAP_TYPE heap_type, UINT64 width, D3D12DDI_HRTRESOURCE rt)
{
    if (width > SIZE_MAX - MEMORY_ALIGNMENT || width >= (1ull << 40))
        return NULL; /* beyond MaxGPUVirtualAddressBitsPerResource (40) */
    d12__refdrv_buffer *buffer = calloc(1, sizeof *buffer);
    size_t bytes = ((size_t)width + MEMORY_ALIGNMENT - 1) & ~(size_t)(MEMORY_ALIGNMENT - 1);
    if (!buffer || !(buffer->memory = aligned_alloc(MEMORY_ALIGNMENT, bytes))) {
        free(buffer);
        return NULL;
    }
    atomic_init(&buffer->zeroing, D12_DRV_ONCE_PENDING); /* zeroed at first use (d12__refdrv_buffer_memory) */
    atomic_init(&buffer->refs, 1);
    buffer->size = width;
    buffer->rt_resource = rt;
    buffer->heap_type = heap_type;
    return buffer;
}

HRESULT d12__refdrv_buffer_allocate(d12__refdrv_device *device, D3D12DDI_HEAP_TYPE heap_type, UINT64 width,
                                     D3D12DDI_HRTRESOURCE rt, d12__refdrv_buffer **out)
{
    d12__refdrv_buffer *buffer = buffer_new(heap_type, width, rt);
    if (!buffer)
        return E_OUTOFMEMORY;
    if (!d12__drv_va_reserve(device->va, buffer, d12__drv_va_span(buffer->size), &buffer->va)) {
        d12__refdrv_buffer_release(buffer);
        return E_OUTOFMEMORY;
    }
    *out = buffer;
    return S_OK;
}

HRESULT APIENTRY d12__refdrv_create_resource(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                                             D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource)
{
    d12__refdrv_device *device = (d12__refdrv_device *)handle.pDrvPrivate;
    if (!args || !resource.pDrvPrivate || !args->Width)
        return E_INVALIDARG;
    d12__refdrv_buffer *buffer;
    HRESULT hr = d12__refdrv_buffer_allocate(device, args->HeapType, args->Width, rt_resource, &buffer);
    if (SUCCEEDED(hr))
        *resource_of(resource) = (d12__refdrv_resource){buffer, 0, args->Width, false};
    return hr;
}

VOID APIENTRY d12__refdrv_destroy_resource(D3D12DDI_HDEVICE handle, D3D12DDI_HRESOURCE resource)
{
    d12__refdrv_device *device = (d12__refdrv_device *)handle.pDrvPrivate;
    d12__refdrv_buffer *buffer = resource_of(resource)->buffer;
    if (!resource_of(resource)->placed) /* a placed buffer's range is its heap's: it lives on with the heap */
        d12__drv_va_release(device->va, buffer->va, buffer);
    d12__refdrv_buffer_release(buffer); /* executing commands (or, placed, the heap) may still hold it */
    resource_of(resource)->buffer = NULL;
}

HRESULT APIENTRY d12__refdrv_map_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource, void **data)
{
    (void)device;
    d12__refdrv_buffer *buffer = resource_of(resource)->buffer;
    if (!data || buffer->heap_type == D3D12DDI_HEAP_TYPE_DEFAULT)
        return E_INVALIDARG;
    *data = d12__refdrv_buffer_memory(buffer) + resource_of(resource)->offset;
    return S_OK;
}

/* Memory stays where it is (the CPU and the software GPU share it), so there is nothing to write back. */
VOID APIENTRY d12__refdrv_unmap_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource)
{
    (void)device;
    (void)resource;
}

UINT64 APIENTRY d12__refdrv_resource_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource)
{
    (void)device;
    return d12__refdrv_resource_va(resource);
}

UINT64 d12__refdrv_resource_va(D3D12DDI_HRESOURCE resource)
{
    return resource_of(resource)->buffer->va + resource_of(resource)->offset;
}

UINT64 d12__refdrv_resource_size(D3D12DDI_HRESOURCE resource)
{
    return resource_of(resource)->width;
}
