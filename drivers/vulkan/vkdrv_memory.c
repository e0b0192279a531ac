/* The Vulkan driver's buffers and GPU VA space. The VA space is the driver's own, as in the reference driver: a
 * bump allocator (never reused), 64 KiB alignment and an unmapped 64 KiB gap after every allocation, the live
 * buffers sorted by address. A VkBuffer covers the allocation's whole span, so every address the map resolves
 * is backed by real memory; an address it does not resolve is never turned into a Vulkan command. A committed
 * resource reads as zero: zeroed at first use, its Vulkan objects reused from a cache (vkdrv_cache.c). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv.h"

bool d12__vkdrv_va_init(d12__vkdrv_va_space *va)
{
    memset(va, 0, sizeof *va);
    va->next = D12_VKDRV_VA_BASE;
    return pthread_rwlock_init(&va->lock, NULL) == 0;
}

void d12__vkdrv_va_destroy(d12__vkdrv_va_space *va)
{
    free(va->live);
    va->live = NULL;
    pthread_rwlock_destroy(&va->lock);
}

static size_t find_below(const d12__vkdrv_va_space *va, UINT64 address)
{
    size_t low = 0, high = va->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (va->live[middle]->va <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low ? low - 1 : va->count;
}

d12__vkdrv_buffer *d12__vkdrv_buffer_acquire(d12__vkdrv_device *device, UINT64 address)
{
    d12__vkdrv_buffer *found = NULL;
    pthread_rwlock_rdlock(&device->va.lock);
    size_t i = find_below(&device->va, address);
    if (i < device->va.count && address - device->va.live[i]->va < device->va.live[i]->span) {
        found = device->va.live[i];
        atomic_fetch_add_explicit(&found->refs, 1, memory_order_relaxed);
    }
    pthread_rwlock_unlock(&device->va.lock);
    if (found)
        d12__vkdrv_buffer_ready(found); /* zeroed at first use (vkdrv_cache.c) */
    return found;
}

bool d12__vkdrv_buffer_hold_range(d12__vkdrv_device *device, UINT64 start, UINT64 end, d12__vkdrv_buffer ***held,
                                  size_t *count, size_t *capacity)
{
    bool ok = true;
    size_t first = *count;
    pthread_rwlock_rdlock(&device->va.lock);
    size_t i = find_below(&device->va, start);
    if (i == device->va.count)
        i = 0;
    for (; ok && i < device->va.count && device->va.live[i]->va < end; i++) {
        d12__vkdrv_buffer *buffer = device->va.live[i];
        if (buffer->va + buffer->span <= start)
            continue;
        if (*count == *capacity) {
            size_t next = *capacity ? *capacity * 2 : 16;
            d12__vkdrv_buffer **grown = realloc(*held, next * sizeof *grown);
            if (!grown) {
                ok = false;
                break;
            }
            *held = grown;
            *capacity = next;
        }
        atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
        (*held)[(*count)++] = buffer;
    }
    pthread_rwlock_unlock(&device->va.lock);
    for (size_t b = first; b < *count; b++) /* a kernel may read them: zeroed at first use (vkdrv_cache.c) */
        d12__vkdrv_buffer_ready((*held)[b]);
    return ok;
}

UINT64 d12__vkdrv_mapped_pages(d12__vkdrv_device *device)
{
    pthread_rwlock_rdlock(&device->va.lock);
    UINT64 pages = (device->va.next - D12_VKDRV_VA_BASE) / D12_VKDRV_VA_ALIGNMENT;
    pthread_rwlock_unlock(&device->va.lock);
    return pages < D12_VKDRV_PAGE_TABLE_ENTRIES ? pages : D12_VKDRV_PAGE_TABLE_ENTRIES;
}

void d12__vkdrv_buffer_retain(d12__vkdrv_buffer *buffer)
{
    atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
}

/* The last reference: no recording names the buffer any more, and every submission of those recordings has
 * completed (a submission holds its recording until its timeline semaphore value was reached). */
void d12__vkdrv_buffer_release(d12__vkdrv_buffer *buffer)
{
    if (!buffer || atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) != 1)
        return;
    d12__vkdrv_cache_put(buffer); /* kept for reuse, or destroyed (vkdrv_cache.c) */
}

char *d12__vkdrv_buffer_name(d12__vkdrv_device *device, const d12__vkdrv_buffer *buffer)
{
    PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126 query = device->callbacks.pfnQueryObjectIdentityCb;
    D3D12DDI_HANDLE_AND_TYPE object = {buffer->rt_resource.handle, D3D12DDI_HT_0012_RESOURCE};
    SIZE_T size = 0;
    char *name = NULL;
    if (query && object.Handle && SUCCEEDED(query(device->rt_device, object, &size, NULL)) && size) {
        name = malloc(size);
        if (name && SUCCEEDED(query(device->rt_device, object, &size, name)))
            return name;
    }
    free(name);
    name = malloc(32);
    if (name)
        snprintf(name, 32, "GPU VA 0x%016llX", (unsigned long long)buffer->va);
    return name;
}

static bool register_buffer(d12__vkdrv_va_space *va, d12__vkdrv_buffer *buffer)
{
    bool ok = true;
    pthread_rwlock_wrlock(&va->lock);
    if (va->count == va->capacity) {
        size_t capacity = va->capacity ? va->capacity * 2 : 64;
        d12__vkdrv_buffer **live = realloc(va->live, capacity * sizeof *live);
        ok = live != NULL;
        if (ok) {
            va->live = live;
            va->capacity = capacity;
        }
    }
    if (ok) {
        buffer->va = va->next;
        va->next += buffer->span + D12_VKDRV_VA_ALIGNMENT;
        va->live[va->count++] = buffer;
        d12__vkdrv_page_table_map(buffer->device, buffer, true);
    }
    pthread_rwlock_unlock(&va->lock);
    return ok;
}

/* The range's pages read as unmapped from now on; the memory lives while something holds the buffer (a recording,
 * or a timeline running a kernel that may still translate through the old entries). */
static void unregister_buffer(d12__vkdrv_va_space *va, const d12__vkdrv_buffer *buffer)
{
    pthread_rwlock_wrlock(&va->lock);
    size_t i = find_below(va, buffer->va);
    if (i < va->count && va->live[i] == buffer) {
        memmove(&va->live[i], &va->live[i + 1], (va->count - i - 1) * sizeof *va->live);
        va->count--;
        d12__vkdrv_page_table_map(buffer->device, buffer, false);
    }
    pthread_rwlock_unlock(&va->lock);
}

d12__vkdrv_buffer *d12__vkdrv_resource_buffer(D3D12DDI_HRESOURCE resource)
{
    return ((d12__vkdrv_resource *)resource.pDrvPrivate)->buffer;
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
static HRESULT new_buffer(d12__vkdrv_device *device, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                          D3D12DDI_HRTRESOURCE rt, d12__vkdrv_buffer **out)
{
    if (args->Width >= (1ull << 40))
        return E_OUTOFMEMORY; /* beyond MaxGPUVirtualAddressBitsPerResource (40) */
    UINT64 span = (args->Width + D12_VKDRV_VA_ALIGNMENT - 1) & ~(D12_VKDRV_VA_ALIGNMENT - 1);
    uint32_t type = args->HeapType == D3D12DDI_HEAP_TYPE_UPLOAD     ? device->type_upload
                    : args->HeapType == D3D12DDI_HEAP_TYPE_READBACK ? device->type_readback
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
    buffer->size = args->Width;
    buffer->rt_resource = rt;
    buffer->heap_type = args->HeapType;
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
        atomic_store_explicit(&buffer->zero_state, 2, memory_order_relaxed); /* ZERO_DONE: filled now */
    }
    if (!ok) {
        if (buffer->mapped)
            vkUnmapMemory(device->vk, buffer->memory);
        vkDestroyBuffer(device->vk, buffer->vk, NULL);
        vkFreeMemory(device->vk, buffer->memory, NULL);
        free(buffer);
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
    d12__vkdrv_report_mode(device);
    d12__vkdrv_buffer *buffer = NULL;
    HRESULT hr = new_buffer(device, args, rt_resource, &buffer);
    d12__vkdrv_validation_drain(device, false);
    if (FAILED(hr))
        return hr;
    if (!register_buffer(&device->va, buffer)) {
        d12__vkdrv_buffer_release(buffer);
        return E_OUTOFMEMORY;
    }
    ((d12__vkdrv_resource *)resource.pDrvPrivate)->buffer = buffer;
    return S_OK;
}

/* The address range dies now (a later use faults); the Vulkan objects live while a recording names them. */
VOID APIENTRY d12__vkdrv_destroy_resource(D3D12DDI_HDEVICE handle, D3D12DDI_HRESOURCE resource)
{
    d12__vkdrv_device *device = (d12__vkdrv_device *)handle.pDrvPrivate;
    d12__vkdrv_buffer *buffer = d12__vkdrv_resource_buffer(resource);
    unregister_buffer(&device->va, buffer);
    d12__vkdrv_buffer_release(buffer);
    ((d12__vkdrv_resource *)resource.pDrvPrivate)->buffer = NULL;
}

HRESULT APIENTRY d12__vkdrv_map_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource, void **data)
{
    (void)device;
    d12__vkdrv_buffer *buffer = d12__vkdrv_resource_buffer(resource);
    if (!data || buffer->heap_type == D3D12DDI_HEAP_TYPE_DEFAULT || !buffer->mapped)
        return E_INVALIDARG;
    d12__vkdrv_buffer_ready(buffer); /* zeroed at first use (vkdrv_cache.c) */
    *data = buffer->mapped;
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
    return d12__vkdrv_resource_buffer(resource)->va;
}
