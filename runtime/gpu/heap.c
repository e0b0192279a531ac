/* ID3D12Heap and the device's heap methods: CreateHeap (1), residency, OpenExistingHeapFrom*, GetCustomHeapProperties
 * (heap.h, docs/heaps.md). The heap's memory and range are the driver's (D3D12DDI_TABLE_TYPE_D12RT_HEAPS); resources
 * are placed in it by resource.c. */
#include <stdlib.h>

#include "d12_messages.h"
#include "d12caps.h"
#include "device.h"
#include "dred/dred.h"
#include "fence.h"
#include "heap.h"

static D3D12DDI_HDEVICE driver_device(struct d12_heap *heap)
{
    return d12__driver_device_handle(heap->device_child.device->driver);
}

/* ---- ID3D12Heap ---- */

D3D12_HEAP_DESC d12_heap_GetDesc(struct d12_heap *self)
{
    return self->desc;
}

ULONG d12_heap_AddRef(struct d12_heap *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void heap_destroy(struct d12_heap *heap)
{
    d12__dred_heap_released(heap); /* DRED's ledger of recently freed allocations */
    d12__device_child_unregister(&heap->device_child);
    if (heap->handle.pDrvPrivate)
        heap->gpu->heaps.pfnDestroyHeap(driver_device(heap), heap->handle);
    free(heap->handle.pDrvPrivate);
    d12__device_child_destroy(&heap->device_child);
    free(heap);
}

void d12__heap_hold(struct d12_heap *heap)
{
    atomic_fetch_add(&heap->holds, 1);
}

void d12__heap_unhold(struct d12_heap *heap)
{
    if (atomic_fetch_sub(&heap->holds, 1) == 1)
        heap_destroy(heap);
}

/* The application's last Release drops the application's hold: the heap stays while a placed resource lives (D3D12:
 * placed resources keep their heap; its reference count shows only the application's references). */
ULONG d12_heap_Release(struct d12_heap *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        d12__heap_unhold(self);
    return left;
}

void d12_heap_not_implemented(struct d12_heap *self, const char *interface_name, const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ---- CreateHeap validation (D3D12_HEAP_DESC's documented rules, the debug layer's IDs) ---- */

static const UINT known_heap_flags =
    D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_DENY_BUFFERS | D3D12_HEAP_FLAG_ALLOW_DISPLAY |
    D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER | D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES | D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES |
    D3D12_HEAP_FLAG_HARDWARE_PROTECTED | D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH | D3D12_HEAP_FLAG_ALLOW_SHADER_ATOMICS |
    D3D12_HEAP_FLAG_CREATE_NOT_RESIDENT | D3D12_HEAP_FLAG_CREATE_NOT_ZEROED;

/* The resource heap tier the device reports (D3D12_FEATURE_D3D12_OPTIONS), at the runtime's own SDK version. */
static D3D12_RESOURCE_HEAP_TIER heap_tier(struct d12_device *device)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS options = {0};
    if (FAILED(d12_device_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options,
                                               d12_caps_runtime_version(device->flavor))))
        return D3D12_RESOURCE_HEAP_TIER_1;
    return options.ResourceHeapTier;
}

/* What is wrong with the flags beyond unknown bits, or NULL. D3D12_RESOURCE_HEAP_TIER_1: "resources from a single
 * category": exactly two of the three DENY flags (an ALLOW_ONLY_* value); tier 2 accepts any but all three. */
static const char *check_flags(struct d12_device *device, UINT flags)
{
    if (flags & (D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER))
        return "d12rt shares no heap with another process or adapter (no driver exports memory): SHARED and "
               "SHARED_CROSS_ADAPTER are refused";
    if (flags & (D3D12_HEAP_FLAG_ALLOW_DISPLAY | D3D12_HEAP_FLAG_HARDWARE_PROTECTED | D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH))
        return "ALLOW_DISPLAY, HARDWARE_PROTECTED and ALLOW_WRITE_WATCH need a display, protected sessions or write "
               "watching, which d12rt has not";
    unsigned denied = !!(flags & D3D12_HEAP_FLAG_DENY_BUFFERS) + !!(flags & D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES) +
                      !!(flags & D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES);
    if (denied == 3)
        return "a heap that denies buffers and both kinds of texture can hold nothing";
    if (denied != 2 && heap_tier(device) < D3D12_RESOURCE_HEAP_TIER_2)
        return "at D3D12_RESOURCE_HEAP_TIER_1 a heap holds one category of resources: use "
               "D3D12_HEAP_FLAG_ALLOW_ONLY_BUFFERS, ALLOW_ONLY_NON_RT_DS_TEXTURES or ALLOW_ONLY_RT_DS_TEXTURES "
               "(ALLOW_ALL_BUFFERS_AND_TEXTURES needs D3D12_RESOURCE_HEAP_TIER_2)";
    return NULL;
}

/* The properties: DEFAULT, UPLOAD or READBACK with UNKNOWN page property and pool, one node. NULL: valid. */
static const char *check_properties(const D3D12_HEAP_PROPERTIES *p)
{
    if (p->Type == D3D12_HEAP_TYPE_CUSTOM)
        return "d12rt has no CUSTOM heaps (the heap type must be DEFAULT, UPLOAD or READBACK)";
    if (p->CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_UNKNOWN || p->MemoryPoolPreference != D3D12_MEMORY_POOL_UNKNOWN)
        return "CPUPageProperty and MemoryPoolPreference must be UNKNOWN for a DEFAULT, UPLOAD or READBACK heap";
    if (p->CreationNodeMask > 1 || p->VisibleNodeMask > 1)
        return "CreationNodeMask and VisibleNodeMask name a node the adapter lacks";
    return NULL;
}

static bool heap_desc_valid(struct d12_device *device, const char *method, const D3D12_HEAP_DESC *desc)
{
    d12_info_queue *info = device->info_queue;
    const char *problem;
    if (!desc) {
        d12__msg_createheap_nulldesc(info, method);
        return false;
    }
    if (desc->SizeInBytes == 0) {
        d12__msg_createheap_invalidsize(info, method);
        return false;
    }
    if (desc->Properties.Type < D3D12_HEAP_TYPE_DEFAULT || desc->Properties.Type > D3D12_HEAP_TYPE_CUSTOM) {
        d12__msg_createheap_unrecognizedheaptype(info, method, (int)desc->Properties.Type);
        return false;
    }
    if ((problem = check_properties(&desc->Properties)) != NULL) {
        d12__msg_createheap_invalidproperties(info, method, problem);
        return false;
    }
    if (desc->Alignment != 0 && desc->Alignment != D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT &&
        desc->Alignment != D3D12_DEFAULT_MSAA_RESOURCE_PLACEMENT_ALIGNMENT) {
        d12__msg_createheap_invalidalignment(info, method, desc->Alignment);
        return false;
    }
    if ((UINT)desc->Flags & ~known_heap_flags) {
        d12__msg_createheap_unrecognizedmiscflags(info, method, (UINT)desc->Flags, (UINT)desc->Flags & ~known_heap_flags);
        return false;
    }
    if ((problem = check_flags(device, (UINT)desc->Flags)) != NULL) {
        d12__msg_createheap_invalidmiscflags(info, method, (UINT)desc->Flags, problem);
        return false;
    }
    return true;
}

/* ---- Creation ---- */

static HRESULT create_driver_heap(struct d12_device *device, struct d12_heap *heap)
{
    D3D12DDIARG_CREATEHEAP_0001 args = {(D3D12DDI_HEAP_TYPE)heap->desc.Properties.Type, heap->desc.SizeInBytes,
                                        heap->desc.Alignment, (UINT)heap->desc.Flags};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "Heap", heap->gpu->heaps.pfnCalcPrivateHeapSize(driver, &args),
                                           &memory);
    if (FAILED(hr))
        return hr;
    D3D12DDI_HHEAP handle = {memory};
    D3D12DDI_HRTRESOURCE rt_handle = {d12__device_child_rt_handle(&heap->device_child)};
    if (FAILED(hr = heap->gpu->heaps.pfnCreateHeap(driver, &args, handle, rt_handle))) {
        free(memory);
        return hr;
    }
    heap->handle = handle;
    heap->gpu_address = heap->gpu->heaps.pfnGetHeapGPUVirtualAddress(driver, handle);
    return S_OK;
}

static HRESULT create_heap(struct d12_device *self, const char *method, const D3D12_HEAP_DESC *pDesc, const IID *riid,
                           void **ppvHeap)
{
    if (ppvHeap)
        *ppvHeap = NULL; /* D3D12 clears the out pointer of a creation that fails */
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    if (!self->gpu->has_heaps) {
        d12__msg_heaps_unsupported(self->info_queue, method,
                                   d12__driver_adapter_name(d12__driver_device_adapter(self->driver)));
        return E_NOTIMPL;
    }
    if (!heap_desc_valid(self, method, pDesc))
        return E_INVALIDARG;
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppvHeap == NULL)
        return S_FALSE;
    struct d12_heap *heap = calloc(1, sizeof *heap);
    if (!heap)
        return E_OUTOFMEMORY;
    d12__heap_com_init(&heap->com);
    atomic_init(&heap->refcount, 1);
    atomic_init(&heap->holds, 1);
    d12__device_child_init(&heap->device_child, self, &heap->com.heap, "ID3D12Heap");
    heap->desc = *pDesc;
    /* GetDesc reads what D3D12 made of the description: the default alignment, node 1 (as vkd3d answers). */
    if (heap->desc.Alignment == 0)
        heap->desc.Alignment = D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT;
    if (heap->desc.Properties.CreationNodeMask == 0)
        heap->desc.Properties.CreationNodeMask = 1;
    if (heap->desc.Properties.VisibleNodeMask == 0)
        heap->desc.Properties.VisibleNodeMask = 1;
    heap->gpu = self->gpu;
    if (FAILED(hr = create_driver_heap(self, heap))) {
        heap_destroy(heap);
        return hr;
    }
    d12__device_child_register(&heap->device_child, heap, D3D12DDI_HT_HEAP);
    d12__dred_heap_created(heap);
    hr = d12__heap_QueryInterface(heap, riid, ppvHeap);
    d12_heap_Release(heap);
    return hr;
}

HRESULT d12_device_CreateHeap(struct d12_device *self, const D3D12_HEAP_DESC *pDesc, const IID *riid, void **ppvHeap)
{
    return create_heap(self, "ID3D12Device::CreateHeap", pDesc, riid, ppvHeap);
}

HRESULT d12_device_CreateHeap1(struct d12_device *self, const D3D12_HEAP_DESC *pDesc,
                               ID3D12ProtectedResourceSession *pProtectedSession, const IID *riid, void **ppvHeap)
{
    const char *method = "ID3D12Device4::CreateHeap1";
    if (pProtectedSession) { /* no protected sessions exist here (CreateProtectedResourceSession is not implemented) */
        if (ppvHeap)
            *ppvHeap = NULL;
        d12__msg_create_invalid_argument(self->info_queue, method, "pProtectedSession must be NULL: d12rt has no "
                                         "protected resource sessions");
        return E_INVALIDARG;
    }
    return create_heap(self, method, pDesc, riid, ppvHeap);
}

/* ---- Residency: the memory of every object is always resident (docs/heaps.md) ---- */

static bool objects_valid(UINT count, ID3D12Pageable *const *objects)
{
    if (count && !objects)
        return false;
    for (UINT i = 0; i < count; i++)
        if (!objects[i])
            return false;
    return true;
}

HRESULT d12_device_MakeResident(struct d12_device *self, UINT NumObjects, ID3D12Pageable *const *ppObjects)
{
    if (!objects_valid(NumObjects, ppObjects)) {
        d12__msg_makeresident_nullobjectarray(self->info_queue, "ID3D12Device::MakeResident", NumObjects);
        return E_INVALIDARG;
    }
    return S_OK;
}

HRESULT d12_device_Evict(struct d12_device *self, UINT NumObjects, ID3D12Pageable *const *ppObjects)
{
    if (!objects_valid(NumObjects, ppObjects)) {
        d12__msg_evict_nullobjectarray(self->info_queue, NumObjects);
        return E_INVALIDARG;
    }
    return S_OK;
}

/* The objects are resident already, so the fence is signalled at once (from the CPU, as Signal does). */
HRESULT d12_device_EnqueueMakeResident(struct d12_device *self, D3D12_RESIDENCY_FLAGS Flags, UINT NumObjects,
                                       ID3D12Pageable *const *ppObjects, ID3D12Fence *pFenceToSignal,
                                       UINT64 FenceValueToSignal)
{
    const char *method = "ID3D12Device3::EnqueueMakeResident";
    if ((UINT)Flags & ~(UINT)D3D12_RESIDENCY_FLAG_DENY_OVERBUDGET) {
        d12__msg_enqueue_make_resident_invalid_flags(self->info_queue, (UINT)Flags);
        return E_INVALIDARG;
    }
    if (!objects_valid(NumObjects, ppObjects)) {
        d12__msg_makeresident_nullobjectarray(self->info_queue, method, NumObjects);
        return E_INVALIDARG;
    }
    struct d12_fence *fence = pFenceToSignal ? d12__fence_unwrap(pFenceToSignal) : NULL;
    if (!fence) {
        d12__msg_invalid_argument(self->info_queue, "ID3D12Device3", "EnqueueMakeResident", "pFenceToSignal",
                                  "NULL or not a d12rt fence");
        return E_INVALIDARG;
    }
    return d12_fence_Signal(fence, FenceValueToSignal);
}

HRESULT d12_device_OpenExistingHeapFromAddress(struct d12_device *self, const void *pAddress, const IID *riid,
                                               void **ppvHeap)
{
    (void)pAddress;
    (void)riid;
    if (ppvHeap)
        *ppvHeap = NULL;
    d12__msg_openexistingheap_unsupported(self->info_queue, "OpenExistingHeapFromAddress");
    return E_NOTIMPL;
}

HRESULT d12_device_OpenExistingHeapFromFileMapping(struct d12_device *self, HANDLE hFileMapping, const IID *riid,
                                                   void **ppvHeap)
{
    (void)hFileMapping;
    (void)riid;
    if (ppvHeap)
        *ppvHeap = NULL;
    d12__msg_openexistingheap_unsupported(self->info_queue, "OpenExistingHeapFromFileMapping");
    return E_NOTIMPL;
}

/* D3D12's mapping of the standard heap types to custom properties, from the adapter's architecture (as vkd3d
 * answers it): DEFAULT is NOT_AVAILABLE in L0 on UMA, L1 otherwise; UPLOAD is WRITE_COMBINE (WRITE_BACK on
 * cache-coherent UMA) in L0; READBACK is WRITE_BACK in L0. */
D3D12_HEAP_PROPERTIES d12_device_GetCustomHeapProperties(struct d12_device *self, UINT nodeMask, D3D12_HEAP_TYPE heapType)
{
    D3D12_FEATURE_DATA_ARCHITECTURE architecture = {0};
    D3D12_HEAP_PROPERTIES properties = {D3D12_HEAP_TYPE_CUSTOM, D3D12_CPU_PAGE_PROPERTY_UNKNOWN,
                                        D3D12_MEMORY_POOL_UNKNOWN, nodeMask ? nodeMask : 1, nodeMask ? nodeMask : 1};
    if (FAILED(d12_device_CheckFeatureSupport1(self, D3D12_FEATURE_ARCHITECTURE, &architecture, sizeof architecture,
                                               d12_caps_runtime_version(self->flavor))))
        architecture.UMA = architecture.CacheCoherentUMA = FALSE;
    switch (heapType) {
    case D3D12_HEAP_TYPE_DEFAULT:
        properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE;
        properties.MemoryPoolPreference = architecture.UMA ? D3D12_MEMORY_POOL_L0 : D3D12_MEMORY_POOL_L1;
        break;
    case D3D12_HEAP_TYPE_UPLOAD:
        properties.CPUPageProperty =
            architecture.CacheCoherentUMA ? D3D12_CPU_PAGE_PROPERTY_WRITE_BACK : D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE;
        properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
        break;
    case D3D12_HEAP_TYPE_READBACK:
        properties.CPUPageProperty = D3D12_CPU_PAGE_PROPERTY_WRITE_BACK;
        properties.MemoryPoolPreference = D3D12_MEMORY_POOL_L0;
        break;
    default:
        d12__msg_getcustomheapproperties_invalidheaptype(self->info_queue, (int)heapType);
        break;
    }
    return properties;
}
