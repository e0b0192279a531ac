/* ID3D12Resource (resource.h). */
#include <stdio.h>
#include <stdlib.h>

#include "d12_messages.h"
#include "device.h"
#include "dred/dred.h"
#include "foreign.h"
#include "heap.h"
#include "resource.h"

static D3D12DDI_HDEVICE driver_device(struct d12_resource *resource)
{
    return d12__driver_device_handle(resource->device_child.device->driver);
}

HRESULT d12_resource_Map(struct d12_resource *self, UINT Subresource, const D3D12_RANGE *pReadRange, void **ppData)
{
    d12_info_queue *info = self->device_child.device->info_queue;
    (void)pReadRange; /* a hint for cache maintenance, which a CPU-coherent software GPU does not need */
    if (ppData)
        *ppData = NULL;
    /* After removal Map still maps (docs/device.md "Removal", per method): the memory is the driver's CPU-visible
     * memory, and reading it back is how a removal is examined (tests/dred_gpu do). */
    if (Subresource != 0) {
        d12__msg_map_invalidsubresource(info, "Map", Subresource);
        return E_INVALIDARG;
    }
    if (self->heap.Type == D3D12_HEAP_TYPE_DEFAULT) {
        d12__msg_map_invalidheap(info);
        return E_INVALIDARG;
    }
    void *data = NULL;
    HRESULT hr = self->gpu->core.pfnMapResource(driver_device(self), self->handle, &data);
    if (FAILED(hr))
        return hr;
    atomic_fetch_add(&self->maps, 1);
    if (ppData)
        *ppData = data; /* NULL ppData maps without asking for the pointer, as D3D12 allows */
    return S_OK;
}

void d12_resource_Unmap(struct d12_resource *self, UINT Subresource, const D3D12_RANGE *pWrittenRange)
{
    (void)pWrittenRange;
    d12_info_queue *info = self->device_child.device->info_queue;
    if (Subresource != 0) {
        d12__msg_map_invalidsubresource(info, "Unmap", Subresource);
        return;
    }
    unsigned maps = atomic_load(&self->maps);
    do {
        if (maps == 0) {
            d12__msg_resource_unmap_notmapped(info);
            return;
        }
    } while (!atomic_compare_exchange_weak(&self->maps, &maps, maps - 1));
    self->gpu->core.pfnUnmapResource(driver_device(self), self->handle);
}

D3D12_RESOURCE_DESC d12_resource_GetDesc(struct d12_resource *self)
{
    return self->desc;
}

D3D12_GPU_VIRTUAL_ADDRESS d12_resource_GetGPUVirtualAddress(struct d12_resource *self)
{
    return self->gpu_address;
}

HRESULT d12_resource_GetHeapProperties(struct d12_resource *self, D3D12_HEAP_PROPERTIES *pHeapProperties,
                                       D3D12_HEAP_FLAGS *pHeapFlags)
{
    if (pHeapProperties)
        *pHeapProperties = self->heap;
    if (pHeapFlags)
        *pHeapFlags = self->heap_flags;
    return S_OK;
}

/* ---- Lifetime ---- */

ULONG d12_resource_AddRef(struct d12_resource *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void resource_destroy(struct d12_resource *resource)
{
    d12__dred_resource_released(resource); /* DRED's ledger of recently freed allocations */
    d12__device_child_unregister(&resource->device_child);
    if (resource->handle.pDrvPrivate)
        resource->gpu->core.pfnDestroyResource(driver_device(resource), resource->handle);
    free(resource->handle.pDrvPrivate);
    if (resource->placed_heap) /* after the driver's placed buffer went: the heap may go now (heap.c) */
        d12__heap_unhold(resource->placed_heap);
    d12__device_child_destroy(&resource->device_child);
    free(resource);
}

ULONG d12_resource_Release(struct d12_resource *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        resource_destroy(self);
    return left;
}

void d12_resource_not_implemented(struct d12_resource *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ---- ID3D12Device::CreateCommittedResource ---- */

const char *d12__buffer_desc_problem(const D3D12_RESOURCE_DESC *desc)
{
    if (desc->Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
        return "d12rt creates buffers only (Dimension must be D3D12_RESOURCE_DIMENSION_BUFFER)";
    if (desc->Width == 0 || desc->Height != 1 || desc->DepthOrArraySize != 1 || desc->MipLevels != 1 ||
        desc->Format != DXGI_FORMAT_UNKNOWN || desc->SampleDesc.Count != 1 || desc->SampleDesc.Quality != 0 ||
        desc->Layout != D3D12_TEXTURE_LAYOUT_ROW_MAJOR)
        return "a buffer has Width > 0, Height, DepthOrArraySize, MipLevels and SampleDesc.Count 1, Format UNKNOWN "
               "and Layout ROW_MAJOR";
    return NULL;
}

/* What is wrong with a committed buffer's description, or NULL. */
static const char *check_buffer(const D3D12_HEAP_PROPERTIES *heap, D3D12_HEAP_FLAGS heap_flags,
                                const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES state)
{
    if (!heap || !desc)
        return "pHeapProperties and pDesc must not be NULL";
    if (heap->Type != D3D12_HEAP_TYPE_DEFAULT && heap->Type != D3D12_HEAP_TYPE_UPLOAD &&
        heap->Type != D3D12_HEAP_TYPE_READBACK)
        return "the heap type must be DEFAULT, UPLOAD or READBACK (d12rt has no custom heaps)";
    /* D3D12: only a CUSTOM heap names its CPU page property and memory pool. */
    if (heap->CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_UNKNOWN ||
        heap->MemoryPoolPreference != D3D12_MEMORY_POOL_UNKNOWN)
        return "CPUPageProperty and MemoryPoolPreference must be UNKNOWN for a DEFAULT, UPLOAD or READBACK heap";
    if (heap->CreationNodeMask > 1 || heap->VisibleNodeMask > 1)
        return "CreationNodeMask and VisibleNodeMask name a node the adapter lacks";
    if (heap_flags & D3D12_HEAP_FLAG_DENY_BUFFERS)
        return "D3D12_HEAP_FLAG_DENY_BUFFERS denies the very buffer being created";
    const char *shape = d12__buffer_desc_problem(desc);
    if (shape)
        return shape;
    /* D3D12's heap rules: an UPLOAD buffer starts and stays in GENERIC_READ, a READBACK buffer in COPY_DEST. */
    if (heap->Type == D3D12_HEAP_TYPE_UPLOAD && state != D3D12_RESOURCE_STATE_GENERIC_READ)
        return "an UPLOAD heap resource must start in D3D12_RESOURCE_STATE_GENERIC_READ";
    if (heap->Type == D3D12_HEAP_TYPE_READBACK && state != D3D12_RESOURCE_STATE_COPY_DEST)
        return "a READBACK heap resource must start in D3D12_RESOURCE_STATE_COPY_DEST";
    return NULL;
}

/* Every bit the installed headers name, per flag type: a bit outside is no flag or state at all. */
static const UINT known_heap_flags =
    D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_DENY_BUFFERS | D3D12_HEAP_FLAG_ALLOW_DISPLAY |
    D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER | D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES | D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES |
    D3D12_HEAP_FLAG_HARDWARE_PROTECTED | D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH | D3D12_HEAP_FLAG_ALLOW_SHADER_ATOMICS |
    D3D12_HEAP_FLAG_CREATE_NOT_RESIDENT | D3D12_HEAP_FLAG_CREATE_NOT_ZEROED;
static const UINT known_resource_flags =
    D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET | D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL |
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS | D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE |
    D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER | D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS |
    D3D12_RESOURCE_FLAG_VIDEO_DECODE_REFERENCE_ONLY | D3D12_RESOURCE_FLAG_VIDEO_ENCODE_REFERENCE_ONLY |
    D3D12_RESOURCE_FLAG_RAYTRACING_ACCELERATION_STRUCTURE;

static const struct state_name {
    D3D12_RESOURCE_STATES state;
    const char *name;
} state_names[] = {
#define STATE(s) {D3D12_RESOURCE_STATE_##s, "D3D12_RESOURCE_STATE_" #s}
    STATE(VERTEX_AND_CONSTANT_BUFFER), STATE(INDEX_BUFFER), STATE(RENDER_TARGET), STATE(UNORDERED_ACCESS),
    STATE(DEPTH_WRITE), STATE(DEPTH_READ), STATE(NON_PIXEL_SHADER_RESOURCE), STATE(PIXEL_SHADER_RESOURCE),
    STATE(STREAM_OUT), STATE(INDIRECT_ARGUMENT), STATE(COPY_DEST), STATE(COPY_SOURCE), STATE(RESOLVE_DEST),
    STATE(RESOLVE_SOURCE), STATE(RAYTRACING_ACCELERATION_STRUCTURE), STATE(SHADING_RATE_SOURCE), STATE(GENERIC_READ),
    STATE(ALL_SHADER_RESOURCE), STATE(VIDEO_DECODE_READ), STATE(VIDEO_DECODE_WRITE), STATE(VIDEO_PROCESS_READ),
    STATE(VIDEO_PROCESS_WRITE), STATE(VIDEO_ENCODE_READ), STATE(VIDEO_ENCODE_WRITE),
#undef STATE
};

static UINT known_states(void)
{
    UINT mask = 0;
    for (size_t i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
        mask |= (UINT)state_names[i].state;
    return mask;
}

/* A state's name as the debug layer prints it: one enumerator's name, or the bits in hex. */
static const char *state_text(D3D12_RESOURCE_STATES state, char *buffer, size_t size)
{
    for (size_t i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
        if (state_names[i].state == state)
            return state_names[i].name;
    snprintf(buffer, size, "0x%X", (unsigned)state);
    return buffer;
}

/* The description bits D3D12 refuses with E_INVALIDARG, each with its own debug-layer message (issue 12): an
 * Alignment other than 0 or 64 KiB ("Buffers: 64KB, or 0, which is effectively 64KB", D3D12_RESOURCE_DESC's
 * documentation), and flags or states with bits no enumerator names. */
static bool buffer_bits_valid(d12_info_queue *info, D3D12_HEAP_FLAGS heap_flags, const D3D12_RESOURCE_DESC *desc,
                              D3D12_RESOURCE_STATES state)
{
    if ((UINT)heap_flags & ~known_heap_flags) {
        d12__msg_createresourceandheap_invalidheapmiscflags(info, (UINT)heap_flags, (UINT)heap_flags & ~known_heap_flags);
        return false;
    }
    if (desc->Alignment != 0 && desc->Alignment != D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT) {
        d12__msg_createresource_invalidalignment(info, desc->Alignment);
        return false;
    }
    if ((UINT)desc->Flags & ~known_resource_flags) {
        char problem[80];
        snprintf(problem, sizeof problem, "bits 0x%X are no D3D12_RESOURCE_FLAGS",
                 (UINT)desc->Flags & ~known_resource_flags);
        d12__msg_createresource_invalidmiscflags(info, (UINT)desc->Flags, problem);
        return false;
    }
    if ((UINT)state & ~known_states()) {
        d12__msg_createresource_invalid_initial_state(info, (UINT)state, (UINT)state & ~known_states());
        return false;
    }
    return true;
}

/* Issue 29 item 3, buffers as Windows creates them (vkd3d-proton's invalid_buffer_desc_tests and
 * test_buffer_rtv_dsv_usage): ALLOW_RENDER_TARGET is accepted on a DEFAULT buffer; ALLOW_DEPTH_STENCIL and
 * ALLOW_SIMULTANEOUS_ACCESS never on a buffer (INVALIDMISCFLAGS); ALLOW_RENDER_TARGET or ALLOW_UNORDERED_ACCESS
 * never on an UPLOAD or READBACK heap (INVALIDHEAPPROPERTIES); a buffer created in the RAYTRACING_ACCELERATION_STRUCTURE
 * state needs ALLOW_UNORDERED_ACCESS, and a device that offers ray tracing (INVALIDDESC, saying which). */
static bool buffer_flags_valid(struct d12_device *device, const D3D12_HEAP_PROPERTIES *heap,
                               const D3D12_RESOURCE_DESC *desc, D3D12_RESOURCE_STATES state)
{
    d12_info_queue *info = device->info_queue;
    D3D12_RESOURCE_FLAGS flags = desc->Flags;
    if (flags & (D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL | D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS)) {
        d12__msg_createresource_invalidmiscflags(
            info, (UINT)flags,
            flags & D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL
                ? "D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL cannot be used with D3D12_RESOURCE_DIMENSION_BUFFER"
                : "D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS cannot be used with D3D12_RESOURCE_DIMENSION_BUFFER "
                  "(buffers are always accessed simultaneously)");
        return false;
    }
    D3D12_RESOURCE_FLAGS gpu_writes = D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET | D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
    if (heap->Type != D3D12_HEAP_TYPE_DEFAULT && (flags & gpu_writes)) {
        d12__msg_createresource_heap_flag(info,
                                          flags & D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET
                                              ? "D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET"
                                              : "D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS",
                                          heap->Type == D3D12_HEAP_TYPE_UPLOAD ? "D3D12_HEAP_TYPE_UPLOAD"
                                                                               : "D3D12_HEAP_TYPE_READBACK",
                                          "the GPU only reads an UPLOAD heap and only copies into a READBACK heap");
        return false;
    }
    if (state != D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE)
        return true;
    if (!(flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)) {
        d12__msg_createresource_acceleration_structure(info, "needs D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS");
        return false;
    }
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {0};
    if (FAILED(d12_device_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5)) ||
        options5.RaytracingTier == D3D12_RAYTRACING_TIER_NOT_SUPPORTED) {
        d12__msg_createresource_acceleration_structure(
            info, "is an acceleration structure, and this device offers no ray tracing (D3D12_FEATURE_D3D12_OPTIONS5 "
                  "RaytracingTier is D3D12_RAYTRACING_TIER_NOT_SUPPORTED)");
        return false;
    }
    return true;
}

/* Windows: a buffer in a DEFAULT heap starts in COMMON whatever InitialResourceState says, with warning #1328 (an
 * acceleration structure stays in its own state: it never leaves it). */
static void warn_state_ignored(d12_info_queue *info, const D3D12_HEAP_PROPERTIES *heap, D3D12_RESOURCE_STATES state)
{
    if (heap->Type != D3D12_HEAP_TYPE_DEFAULT || state == D3D12_RESOURCE_STATE_COMMON ||
        state == D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE)
        return;
    char buffer[16];
    d12__msg_createresource_state_ignored(info, state_text(state, buffer, sizeof buffer));
}

/* The driver's buffer of `resource`: committed (its own memory and range), or placed in resource->placed_heap. */
static HRESULT create_driver_resource(struct d12_device *device, struct d12_resource *resource)
{
    D3D12DDIARG_CREATERESOURCE_0126 args = {(D3D12DDI_HEAP_TYPE)resource->heap.Type, resource->desc.Width};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    SIZE_T size = resource->gpu->core.pfnCalcPrivateResourceSize(driver, &args);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "Resource", size, &memory);
    if (FAILED(hr))
        return hr;
    D3D12DDI_HRESOURCE handle = {memory};
    D3D12DDI_HRTRESOURCE rt_handle = {d12__device_child_rt_handle(&resource->device_child)};
    if (resource->placed_heap) {
        D3D12DDIARG_CREATEPLACEDRESOURCE_D12RT placed = {args.HeapType, args.Width, resource->placed_heap->handle,
                                                         resource->heap_offset};
        hr = resource->gpu->heaps.pfnCreatePlacedResource(driver, &placed, handle, rt_handle);
    } else {
        hr = resource->gpu->core.pfnCreateResource(driver, &args, handle, rt_handle);
    }
    if (FAILED(hr)) {
        free(memory);
        return hr;
    }
    resource->handle = handle;
    resource->gpu_address = resource->gpu->core.pfnGetResourceGPUVirtualAddress(driver, handle);
    return S_OK;
}

/* A validated buffer's object, its driver buffer, its ledger record, and the interface asked for. `heap`: placed
 * there at `offset` (the resource holds the heap from now on), else committed with `properties` and `heap_flags`. */
static HRESULT new_resource(struct d12_device *device, const D3D12_HEAP_PROPERTIES *properties,
                            D3D12_HEAP_FLAGS heap_flags, struct d12_heap *heap, UINT64 offset,
                            const D3D12_RESOURCE_DESC *desc, const IID *riid, void **ppv)
{
    struct d12_resource *resource = calloc(1, sizeof *resource);
    if (!resource)
        return E_OUTOFMEMORY;
    d12__resource_com_init(&resource->com);
    atomic_init(&resource->refcount, 1);
    d12__device_child_init(&resource->device_child, device, &resource->com.resource, "ID3D12Resource");
    resource->desc = *desc;
    resource->heap = *properties;
    resource->heap_flags = heap_flags;
    resource->gpu = device->gpu;
    atomic_init(&resource->maps, 0);
    if (heap) {
        d12__heap_hold(heap);
        resource->placed_heap = heap;
        resource->heap_offset = offset;
    }
    HRESULT hr = create_driver_resource(device, resource);
    if (FAILED(hr)) {
        resource_destroy(resource);
        return hr;
    }
    d12__device_child_register(&resource->device_child, resource, D3D12DDI_HT_0012_RESOURCE);
    d12__dred_resource_created(resource);
    hr = d12__resource_QueryInterface(resource, riid, ppv);
    d12_resource_Release(resource);
    return hr;
}

HRESULT d12_device_CreateCommittedResource(struct d12_device *self, const D3D12_HEAP_PROPERTIES *pHeapProperties,
                                           D3D12_HEAP_FLAGS HeapFlags, const D3D12_RESOURCE_DESC *pDesc,
                                           D3D12_RESOURCE_STATES InitialResourceState,
                                           const D3D12_CLEAR_VALUE *pOptimizedClearValue, const IID *riidResource,
                                           void **ppvResource)
{
    const char *method = "ID3D12Device::CreateCommittedResource";
    if (ppvResource)
        *ppvResource = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    const char *problem = check_buffer(pHeapProperties, HeapFlags, pDesc, InitialResourceState);
    if (!problem && pOptimizedClearValue)
        problem = "pOptimizedClearValue must be NULL for a buffer";
    if (problem) {
        d12__msg_create_invalid_argument(self->info_queue, method, problem);
        return E_INVALIDARG;
    }
    if (!buffer_bits_valid(self->info_queue, HeapFlags, pDesc, InitialResourceState) ||
        !buffer_flags_valid(self, pHeapProperties, pDesc, InitialResourceState))
        return E_INVALIDARG;
    warn_state_ignored(self->info_queue, pHeapProperties, InitialResourceState); /* the description is valid */
    if (riidResource == NULL)
        return E_INVALIDARG;
    if (ppvResource == NULL)
        return S_FALSE;
    return new_resource(self, pHeapProperties, HeapFlags, NULL, 0, pDesc, riidResource, ppvResource);
}

/* ---- ID3D12Device::CreatePlacedResource (1, 2): buffers in heaps (docs/heaps.md) ---- */

#define D12_BUFFER_ALIGNMENT D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT /* a buffer's placement alignment */

/* The heap argument: a live d12rt heap of this device with a heap table behind it, or NULL (reported). */
static struct d12_heap *placement_heap(struct d12_device *device, const char *method, ID3D12Heap *pHeap)
{
    if (!device->gpu->has_heaps) {
        d12__msg_heaps_unsupported(device->info_queue, method,
                                   d12__driver_adapter_name(d12__driver_device_adapter(device->driver)));
        return NULL;
    }
    struct d12_heap *heap = pHeap ? d12__heap_unwrap(pHeap) : NULL;
    if (!heap) {
        d12__msg_createresourceandheap_nullheap(device->info_queue, method);
        return NULL;
    }
    if (d12__foreign(device, heap->device_child.device, method, "pHeap", "returning E_INVALIDARG"))
        return NULL;
    return heap;
}

/* D3D12: "HeapOffset must be a multiple of the resource's alignment, and HeapOffset plus the resource size must be
 * smaller than or equal to the heap size" (CreatePlacedResource's documentation); a buffer's alignment is 64 KiB
 * and its size is GetResourceAllocationInfo's, its Width rounded up to 64 KiB. */
static bool placement_fits(d12_info_queue *info, const char *method, const struct d12_heap *heap, UINT64 offset,
                           UINT64 width)
{
    if (offset % D12_BUFFER_ALIGNMENT) {
        d12__msg_createplacedresource_unaligned_offset(info, method, offset);
        return false;
    }
    UINT64 size = width > UINT64_MAX - (D12_BUFFER_ALIGNMENT - 1)
                      ? UINT64_MAX
                      : (width + D12_BUFFER_ALIGNMENT - 1) & ~(UINT64)(D12_BUFFER_ALIGNMENT - 1);
    if (offset > heap->desc.SizeInBytes || size > heap->desc.SizeInBytes - offset) {
        d12__msg_createplacedresource_outside_heap(info, method, size, offset, heap->desc.SizeInBytes);
        return false;
    }
    return true;
}

static HRESULT create_placed(struct d12_device *self, const char *method, ID3D12Heap *pHeap, UINT64 HeapOffset,
                             const D3D12_RESOURCE_DESC *pDesc, D3D12_RESOURCE_STATES state,
                             const D3D12_CLEAR_VALUE *pOptimizedClearValue, const IID *riid, void **ppvResource)
{
    if (ppvResource)
        *ppvResource = NULL;
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    struct d12_heap *heap = placement_heap(self, method, pHeap);
    if (!heap)
        return self->gpu->has_heaps ? E_INVALIDARG : E_NOTIMPL;
    if (!pDesc) {
        d12__msg_createresourceandheap_nullresourceproperties(self->info_queue, method);
        return E_INVALIDARG;
    }
    const char *problem = check_buffer(&heap->desc.Properties, heap->desc.Flags, pDesc, state);
    if (!problem && pOptimizedClearValue)
        problem = "pOptimizedClearValue must be NULL for a buffer";
    if (problem) {
        d12__msg_create_invalid_argument(self->info_queue, method, problem);
        return E_INVALIDARG;
    }
    if (!buffer_bits_valid(self->info_queue, heap->desc.Flags, pDesc, state) ||
        !placement_fits(self->info_queue, method, heap, HeapOffset, pDesc->Width))
        return E_INVALIDARG;
    warn_state_ignored(self->info_queue, &heap->desc.Properties, state);
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppvResource == NULL)
        return S_FALSE;
    return new_resource(self, &heap->desc.Properties, heap->desc.Flags, heap, HeapOffset, pDesc, riid, ppvResource);
}

HRESULT d12_device_CreatePlacedResource(struct d12_device *self, ID3D12Heap *pHeap, UINT64 HeapOffset,
                                        const D3D12_RESOURCE_DESC *pDesc, D3D12_RESOURCE_STATES InitialState,
                                        const D3D12_CLEAR_VALUE *pOptimizedClearValue, const IID *riid,
                                        void **ppvResource)
{
    return create_placed(self, "ID3D12Device::CreatePlacedResource", pHeap, HeapOffset, pDesc, InitialState,
                         pOptimizedClearValue, riid, ppvResource);
}

/* D3D12_RESOURCE_DESC1 is D3D12_RESOURCE_DESC then SamplerFeedbackMipRegion, which a buffer leaves zero. NULL: what
 * is wrong (*out unset). */
static const char *desc_from_desc1(const D3D12_RESOURCE_DESC1 *desc1, D3D12_RESOURCE_DESC *out)
{
    if (desc1->SamplerFeedbackMipRegion.Width || desc1->SamplerFeedbackMipRegion.Height ||
        desc1->SamplerFeedbackMipRegion.Depth)
        return "a buffer has no SamplerFeedbackMipRegion (it must be all zero)";
    *out = (D3D12_RESOURCE_DESC){desc1->Dimension, desc1->Alignment, desc1->Width, desc1->Height,
                                 desc1->DepthOrArraySize, desc1->MipLevels, desc1->Format, desc1->SampleDesc,
                                 desc1->Layout, desc1->Flags};
    return NULL;
}

HRESULT d12_device_CreatePlacedResource1(struct d12_device *self, ID3D12Heap *pHeap, UINT64 HeapOffset,
                                         const D3D12_RESOURCE_DESC1 *pDesc, D3D12_RESOURCE_STATES InitialState,
                                         const D3D12_CLEAR_VALUE *pOptimizedClearValue, const IID *riid,
                                         void **ppvResource)
{
    const char *method = "ID3D12Device8::CreatePlacedResource1";
    D3D12_RESOURCE_DESC desc;
    const char *problem = pDesc ? desc_from_desc1(pDesc, &desc) : NULL;
    if (problem) {
        if (ppvResource)
            *ppvResource = NULL;
        d12__msg_create_invalid_argument(self->info_queue, method, problem);
        return E_INVALIDARG;
    }
    return create_placed(self, method, pHeap, HeapOffset, pDesc ? &desc : NULL, InitialState, pOptimizedClearValue,
                         riid, ppvResource);
}

/* Enhanced barriers: a buffer has no layout (InitialLayout UNDEFINED) and no castable formats; it starts in the
 * state its heap type implies (D3D12's rule for buffers), which the legacy checks then accept. */
HRESULT d12_device_CreatePlacedResource2(struct d12_device *self, ID3D12Heap *pHeap, UINT64 HeapOffset,
                                         const D3D12_RESOURCE_DESC1 *pDesc, D3D12_BARRIER_LAYOUT InitialLayout,
                                         const D3D12_CLEAR_VALUE *pOptimizedClearValue, UINT32 NumCastableFormats,
                                         DXGI_FORMAT *pCastableFormats, const IID *riid, void **ppvResource)
{
    const char *method = "ID3D12Device10::CreatePlacedResource2";
    (void)pCastableFormats;
    D3D12_RESOURCE_DESC desc;
    const char *problem = InitialLayout != D3D12_BARRIER_LAYOUT_UNDEFINED
                              ? "a buffer's InitialLayout must be D3D12_BARRIER_LAYOUT_UNDEFINED"
                          : NumCastableFormats ? "a buffer has no castable formats (NumCastableFormats must be 0)"
                          : pDesc              ? desc_from_desc1(pDesc, &desc)
                                               : NULL;
    if (problem) {
        if (ppvResource)
            *ppvResource = NULL;
        d12__msg_create_invalid_argument(self->info_queue, method, problem);
        return E_INVALIDARG;
    }
    struct d12_heap *heap = pHeap ? d12__heap_unwrap(pHeap) : NULL;
    D3D12_HEAP_TYPE type = heap ? heap->desc.Properties.Type : D3D12_HEAP_TYPE_DEFAULT;
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
                                  : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                                                     : D3D12_RESOURCE_STATE_COMMON;
    return create_placed(self, method, pHeap, HeapOffset, pDesc ? &desc : NULL, state, pOptimizedClearValue, riid,
                         ppvResource);
}
