/* The Vulkan driver's buffers. The VA space is the one of both drivers (drivers/common/drvcommon_va.h): a released
 * range quarantined for 65 000 releases, then reused, 64 KiB alignment and an unmapped 64 KiB gap after every
 * allocation, the buffers sorted by address; its map hook keeps the kernels' page table in step. A VkBuffer covers the allocation's whole span,
 * so every address the map resolves is backed by real memory; an address it does not resolve is never turned into
 * a Vulkan command. A committed resource reads as zero: zeroed at first use, its Vulkan objects reused from a cache
 * (vkdrv_cache.c). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_once.h"
#include "vkdrv.h"

static void map_pages(void *object, bool mapped)
{
    d12__vkdrv_buffer *buffer = object;
    d12__vkdrv_page_table_map(buffer->device, buffer, mapped);
}

bool d12__vkdrv_va_init(d12__drv_va_space *va)
{
    return d12__drv_va_init(va, map_pages);
}

d12__vkdrv_buffer *d12__vkdrv_buffer_acquire(d12__vkdrv_device *device, UINT64 address)
{
    d12__vkdrv_buffer *found = d12__drv_va_acquire(&device->va, address);
    if (found)
        d12__vkdrv_buffer_ready(found); /* zeroed at first use (vkdrv_cache.c) */
    return found;
}

typedef struct held_list {
    d12__vkdrv_buffer ***held;
    size_t *count, *capacity;
} held_list;

/* Under the VA space's read lock: the buffer is live, so a reference may be taken. */
static bool hold(void *context, void *object)
{
    held_list *list = context;
    if (*list->count == *list->capacity) {
        size_t next = *list->capacity ? *list->capacity * 2 : 16;
        d12__vkdrv_buffer **grown = realloc(*list->held, next * sizeof *grown);
        if (!grown)
            return false;
        *list->held = grown;
        *list->capacity = next;
    }
    d12__vkdrv_buffer_retain(object);
    (*list->held)[(*list->count)++] = object;
    return true;
}

bool d12__vkdrv_buffer_hold_range(d12__vkdrv_device *device, UINT64 start, UINT64 end, d12__vkdrv_buffer ***held,
                                  size_t *count, size_t *capacity)
{
    held_list list = {held, count, capacity};
    size_t first = *count;
    bool ok = d12__drv_va_visit(&device->va, start, end, hold, &list);
    for (size_t b = first; b < *count; b++) /* a kernel may read them: zeroed at first use (vkdrv_cache.c) */
        d12__vkdrv_buffer_ready((*held)[b]);
    return ok;
}

UINT64 d12__vkdrv_mapped_pages(d12__vkdrv_device *device)
{
    UINT64 pages = d12__drv_va_pages(&device->va);
    return pages < D12_VKDRV_PAGE_TABLE_ENTRIES ? pages : D12_VKDRV_PAGE_TABLE_ENTRIES;
}

void d12__vkdrv_buffer_retain(d12__vkdrv_buffer *buffer)
{
    atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
}

/* The last reference: no recording names the buffer any more, and every submission of those recordings has
 * completed (a submission holds its recording until its fence was signalled). */
void d12__vkdrv_buffer_release(d12__vkdrv_buffer *buffer)
{
    if (!buffer || atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) != 1)
        return;
    d12__vkdrv_cache_put(buffer); /* kept for reuse, or destroyed (vkdrv_cache.c) */
}

d12__vkdrv_buffer *d12__vkdrv_resource_buffer(D3D12DDI_HRESOURCE resource)
{
    return ((d12__vkdrv_resource *)resource.pDrvPrivate)->buffer;
}

UINT64 d12__vkdrv_resource_offset(D3D12DDI_HRESOURCE resource)
{
    return ((d12__vkdrv_resource *)resource.pDrvPrivate)->offset;
}

UINT64 d12__vkdrv_resource_width(D3D12DDI_HRESOURCE resource)
{
    return ((d12__vkdrv_resource *)resource.pDrvPrivate)->width;
}

SIZE_T APIENTRY d12__vkdrv_calc_private_resource_size(D3D12DDI_HDEVICE device,
                                                      const D3D12DDIARG_CREATERESOURCE_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_resource);
}

static void record_zero(VkCommandBuffer cb, void *context)
{
    d12__vkdrv_buffer *buffer = context;
    vkCmdFillBuffer(cb, buffer->vk, 0, VK_WHOLE_SIZE, 0);
}

/* A buffer of `type` and `span` with its Vulkan objects: from the cache (vkdrv_cache.c), else made. Host-visible
 * memory is zeroed at first use (d12__vkdrv_buffer_ready), other memory here, on the GPU. */
static HRESULT new_buffer(d12__vkdrv_device *device, D3D12DDI_HEAP_TYPE heap_type, UINT64 width,
                          D3D12DDI_HRTRESOURCE rt, d12__vkdrv_buffer **out)
{
    if (width >= (1ull << 40))
        return E_OUTOFMEMORY; /* beyond MaxGPUVirtualAddressBitsPerResource (40) */
    UINT64 span = (width + D12_VKDRV_VA_ALIGNMENT - 1) & ~(D12_VKDRV_VA_ALIGNMENT - 1);
    uint32_t type = heap_type == D3D12DDI_HEAP_TYPE_UPLOAD     ? device->type_upload
                    : heap_type == D3D12DDI_HEAP_TYPE_READBACK ? device->type_readback
                                                               : device->type_device;
    d12__vkdrv_buffer *buffer = d12__vkdrv_cache_take(device, type, span);
    bool reused = buffer != NULL;
    if (!buffer) {
        buffer = calloc(1, sizeof *buffer);
        if (!buffer)
            return E_OUTOFMEMORY;
        buffer->device = device;
        buffer->span = span;
        buffer->memory_type = type;
    }
    atomic_init(&buffer->refs, 1);
    buffer->size = width;
    buffer->rt_resource = rt;
    buffer->heap_type = heap_type;
    buffer->va = 0;
    bool ok = true;
    if (!reused) {
        VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                   .size = span,
                                   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                            VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                   .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
        ok = vkCreateBuffer(device->vk, &info, NULL, &buffer->vk) == VK_SUCCESS;
        VkMemoryRequirements requirements = {0};
        if (ok)
            vkGetBufferMemoryRequirements(device->vk, buffer->vk, &requirements);
        VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                           .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
        VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .pNext = &flags,
                                      .allocationSize = requirements.size,
                                      .memoryTypeIndex = type};
        ok = ok && (requirements.memoryTypeBits & (1u << type)) &&
             vkAllocateMemory(device->vk, &alloc, NULL, &buffer->memory) == VK_SUCCESS &&
             vkBindBufferMemory(device->vk, buffer->vk, buffer->memory, 0) == VK_SUCCESS;
        if (ok) {
            VkBufferDeviceAddressInfo address = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                                 .buffer = buffer->vk};
            buffer->address = vkGetBufferDeviceAddress(device->vk, &address);
        }
        if (ok && (device->adapter->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
            ok = vkMapMemory(device->vk, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped) == VK_SUCCESS;
        if (ok && buffer->mapped)
            d12__vkdrv_buffer_zero_later(buffer, span); /* a fresh allocation's bytes are undefined */
    } else if (buffer->mapped) {
        d12__vkdrv_buffer_zero_later(buffer, buffer->dirty); /* what its previous user may have written */
    }
    if (ok && !buffer->mapped) {
        ok = d12__vkdrv_run_once(device, record_zero, buffer);
        atomic_store_explicit(&buffer->zero_state, D12_DRV_ONCE_DONE, memory_order_relaxed); /* filled now */
    }
    if (!ok) {
        if (!d12__vkdrv_abandoned(device)) { /* else the zeroing that never completed may use it (vkdrv_stuck.c) */
            if (buffer->mapped)
                vkUnmapMemory(device->vk, buffer->memory);
            vkDestroyBuffer(device->vk, buffer->vk, NULL);
            vkFreeMemory(device->vk, buffer->memory, NULL);
        }
        free(buffer);
        return E_OUTOFMEMORY;
    }
    *out = buffer;
    return S_OK;
}

HRESULT d12__vkdrv_buffer_allocate(d12__vkdrv_device *device, D3D12DDI_HEAP_TYPE heap_type, UINT64 width,
                                   D3D12DDI_HRTRESOURCE rt, d12__vkdrv_buffer **out)
{
    d12__vkdrv_report_mode(device);
    d12__vkdrv_buffer *buffer = NULL;
    HRESULT hr = new_buffer(device, heap_type, width, rt, &buffer);
    d12__vkdrv_validation_drain(device, false);
    if (FAILED(hr))
        return hr;
    atomic_store_explicit(&buffer->released, false, memory_order_relaxed); /* a cached buffer's was set */
    if (!d12__drv_va_reserve(&device->va, buffer, buffer->span, &buffer->va)) {
        d12__vkdrv_buffer_release(buffer);
        return E_OUTOFMEMORY;
    }
    *out = buffer;
    return S_OK;
}

HRESULT APIENTRY d12__vkdrv_create_resource(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                                            D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    if (!args || !resource.pDrvPrivate || !args->Width)
        return E_INVALIDARG;
    d12__vkdrv_buffer *buffer = NULL;
    HRESULT hr = d12__vkdrv_buffer_allocate(device, args->HeapType, args->Width, rt_resource, &buffer);
    if (SUCCEEDED(hr))
        *(d12__vkdrv_resource *)resource.pDrvPrivate = (d12__vkdrv_resource){buffer, 0, args->Width, false};
    return hr;
}

/* The address range dies now (a later use faults); the Vulkan objects live while a recording names them. */
VOID APIENTRY d12__vkdrv_destroy_resource(D3D12DDI_HDEVICE handle, D3D12DDI_HRESOURCE resource)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    d12__vkdrv_resource *object = resource.pDrvPrivate;
    if (!object->placed) /* a placed buffer's range is its heap's: it lives on with the heap */
        d12__vkdrv_buffer_free_range(device, object->buffer);
    d12__vkdrv_buffer_release(object->buffer);
    object->buffer = NULL;
}

void d12__vkdrv_buffer_free_range(d12__vkdrv_device *device, d12__vkdrv_buffer *buffer)
{
    /* The range's pages read as unmapped from now on (the map hook); the memory lives while something holds the
     * buffer (a recording, or a timeline running a kernel that may still translate through the old entries). */
    atomic_store(&buffer->released, true); /* before the VA goes: the timelines' rule (vkdrv_queue.c) */
    d12__drv_va_release(&device->va, buffer->va, buffer);
    d12__vkdrv_note_freed(device, buffer); /* a device fault there later is a use after free (vkdrv_lost.c) */
}

HRESULT APIENTRY d12__vkdrv_map_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource, void **data)
{
    (void)device;
    d12__vkdrv_buffer *buffer = d12__vkdrv_resource_buffer(resource);
    if (!data || buffer->heap_type == D3D12DDI_HEAP_TYPE_DEFAULT || !buffer->mapped)
        return E_INVALIDARG;
    d12__vkdrv_buffer_ready(buffer); /* zeroed at first use (vkdrv_cache.c) */
    *data = (unsigned char *)buffer->mapped + d12__vkdrv_resource_offset(resource);
    return S_OK;
}

/* UPLOAD memory is host-coherent and READBACK is invalidated by the timeline before each fence it passes back,
 * so an Unmap has nothing to write back. */
VOID APIENTRY d12__vkdrv_unmap_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource)
{
    (void)device;
    (void)resource;
}

UINT64 APIENTRY d12__vkdrv_resource_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource)
{
    (void)device;
    return d12__vkdrv_resource_buffer(resource)->va + d12__vkdrv_resource_offset(resource);
}
