/* ID3D12DescriptorHeap, CreateDescriptorHeap, GetDescriptorHandleIncrementSize and the registry of live heaps
 * (descriptor_heap.h, docs/descriptors.md). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "d12_messages.h"
#include "descriptor_heap.h"
#include "device.h"

/* D3D12's limits for shader-visible heaps at resource binding tiers 1 and 2 (D3D12_FEATURE_D3D12_OPTIONS19's
 * MaxViewDescriptorHeapSize and MaxSamplerDescriptorHeapSize, as refdrv_claims.c claims them). */
#define MAX_VISIBLE_VIEWS 1000000u
#define MAX_VISIBLE_SAMPLERS 2048u

static D3D12DDI_HDEVICE driver_device(struct d12_device *device)
{
    return d12__driver_device_handle(device->driver);
}

const char *d12__descriptor_heap_type_name(D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    static const char *const names[] = {"D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV", "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER",
                                        "D3D12_DESCRIPTOR_HEAP_TYPE_RTV", "D3D12_DESCRIPTOR_HEAP_TYPE_DSV"};
    return (UINT)type < 4 ? names[type] : "an unknown type";
}

bool d12__descriptors_available(struct d12_device *device, const char *method)
{
    if (device->gpu && device->gpu->has_descriptors)
        return true;
    d12__msg_descriptors_unsupported(device->info_queue, method,
                                     d12__driver_adapter_name(d12__driver_device_adapter(device->driver)));
    return false;
}

/* ---- The registry: every live heap's CPU range, sorted by start (the driver's pointers never overlap) ---- */

/* A leaf lock (docs/locking.md): held for a binary search or an insertion, never across a call out. */
static pthread_rwlock_t g_registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct d12_descriptor_heap **g_heaps; /* guarded by g_registry_lock */
static size_t g_count, g_capacity;

/* The first index whose heap starts above `handle`. */
static size_t upper_bound(SIZE_T handle)
{
    size_t low = 0, high = g_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (g_heaps[mid]->cpu_start <= handle)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

static bool registry_add(struct d12_descriptor_heap *heap)
{
    pthread_rwlock_wrlock(&g_registry_lock);
    bool ok = true;
    if (g_count == g_capacity) {
        size_t next = g_capacity ? g_capacity * 2 : 16;
        struct d12_descriptor_heap **grown = realloc(g_heaps, next * sizeof *grown);
        ok = grown != NULL;
        if (ok) {
            g_heaps = grown;
            g_capacity = next;
        }
    }
    if (ok) {
        size_t at = upper_bound(heap->cpu_start);
        memmove(&g_heaps[at + 1], &g_heaps[at], (g_count - at) * sizeof *g_heaps);
        g_heaps[at] = heap;
        g_count++;
    }
    pthread_rwlock_unlock(&g_registry_lock);
    return ok;
}

static void registry_remove(struct d12_descriptor_heap *heap)
{
    pthread_rwlock_wrlock(&g_registry_lock);
    size_t at = upper_bound(heap->cpu_start);
    if (at > 0 && g_heaps[at - 1] == heap) {
        memmove(&g_heaps[at - 1], &g_heaps[at], (g_count - at) * sizeof *g_heaps);
        g_count--;
    }
    if (g_count == 0) { /* the last heap of the process: nothing is kept (leak checkers see a clean exit) */
        free(g_heaps);
        g_heaps = NULL;
        g_capacity = 0;
    }
    pthread_rwlock_unlock(&g_registry_lock);
}

bool d12__descriptor_find(SIZE_T handle, d12_descriptor_run *run)
{
    bool found = false;
    pthread_rwlock_rdlock(&g_registry_lock);
    size_t at = upper_bound(handle);
    if (at > 0) {
        const struct d12_descriptor_heap *heap = g_heaps[at - 1];
        SIZE_T end = heap->cpu_start + (SIZE_T)heap->desc.NumDescriptors * heap->increment;
        if (handle < end && (handle - heap->cpu_start) % heap->increment == 0) {
            *run = (d12_descriptor_run){heap->device_child.device, heap->desc.Type,
                                        (heap->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE) != 0,
                                        heap->cpu_start, end, heap->increment};
            found = true;
        }
    }
    pthread_rwlock_unlock(&g_registry_lock);
    return found;
}

/* ---- ID3D12DescriptorHeap ---- */

D3D12_DESCRIPTOR_HEAP_DESC d12_descriptor_heap_GetDesc(struct d12_descriptor_heap *self)
{
    return self->desc;
}

D3D12_CPU_DESCRIPTOR_HANDLE d12_descriptor_heap_GetCPUDescriptorHandleForHeapStart(struct d12_descriptor_heap *self)
{
    return (D3D12_CPU_DESCRIPTOR_HANDLE){self->cpu_start};
}

/* A heap that is not shader-visible has no GPU handles: the null handle, and the debug layer's error #1315. */
D3D12_GPU_DESCRIPTOR_HANDLE d12_descriptor_heap_GetGPUDescriptorHandleForHeapStart(struct d12_descriptor_heap *self)
{
    if (!(self->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)) {
        d12__msg_descriptor_heap_not_shader_visible(self->device_child.device->info_queue,
                                                    d12__descriptor_heap_type_name(self->desc.Type));
        return (D3D12_GPU_DESCRIPTOR_HANDLE){0};
    }
    return (D3D12_GPU_DESCRIPTOR_HANDLE){self->gpu_start};
}

ULONG d12_descriptor_heap_AddRef(struct d12_descriptor_heap *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void heap_destroy(struct d12_descriptor_heap *heap)
{
    struct d12_device *device = heap->device_child.device;
    if (heap->registered)
        registry_remove(heap); /* before the driver frees the memory the handles point into */
    d12__device_child_unregister(&heap->device_child);
    if (heap->handle.pDrvPrivate && heap->cpu_start)
        heap->gpu->descriptors.pfnDestroyDescriptorHeap(driver_device(device), heap->handle);
    free(heap->handle.pDrvPrivate);
    d12__device_child_destroy(&heap->device_child);
    free(heap);
}

ULONG d12_descriptor_heap_Release(struct d12_descriptor_heap *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        heap_destroy(self);
    return left;
}

void d12_descriptor_heap_not_implemented(struct d12_descriptor_heap *self, const char *interface_name,
                                         const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ---- ID3D12Device::CreateDescriptorHeap ---- */

/* What is wrong with a heap description (the debug layer's CREATE_DESCRIPTOR_HEAP_INVALID_DESC), or NULL. */
static const char *check_heap_desc(const D3D12_DESCRIPTOR_HEAP_DESC *desc)
{
    if (!desc)
        return "pDescriptorHeapDesc is NULL";
    if ((UINT)desc->Type > D3D12_DESCRIPTOR_HEAP_TYPE_DSV)
        return "Type is no D3D12_DESCRIPTOR_HEAP_TYPE";
    if (desc->NumDescriptors == 0)
        return "NumDescriptors is 0";
    if ((UINT)desc->Flags & ~(UINT)D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)
        return "Flags has bits no D3D12_DESCRIPTOR_HEAP_FLAGS names";
    if (desc->NodeMask > 1)
        return "NodeMask names a node the adapter lacks";
    if (!(desc->Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        return NULL;
    if (desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_RTV || desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_DSV)
        return "RTV and DSV heaps cannot be shader-visible (D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE)";
    if (desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV && desc->NumDescriptors > MAX_VISIBLE_VIEWS)
        return "a shader-visible CBV_SRV_UAV heap holds at most 1000000 descriptors at resource binding tiers 1 and 2";
    if (desc->Type == D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER && desc->NumDescriptors > MAX_VISIBLE_SAMPLERS)
        return "a shader-visible SAMPLER heap holds at most 2048 descriptors";
    return NULL;
}

static HRESULT create_driver_heap(struct d12_device *device, struct d12_descriptor_heap *heap)
{
    const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT *ddi = &heap->gpu->descriptors;
    D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 args = {(D3D12DDI_DESCRIPTOR_HEAP_TYPE)heap->desc.Type,
                                                    heap->desc.NumDescriptors,
                                                    (D3D12DDI_DESCRIPTOR_HEAP_FLAGS)heap->desc.Flags, 1};
    D3D12DDI_HDEVICE driver = driver_device(device);
    heap->increment = ddi->pfnGetDescriptorSizeInBytes(driver, args.Type);
    if (heap->increment == 0)
        return DXGI_ERROR_DRIVER_INTERNAL_ERROR;
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "DescriptorHeap",
                                           ddi->pfnCalcPrivateDescriptorHeapSize(driver, &args), &memory);
    if (FAILED(hr))
        return hr;
    heap->handle = (D3D12DDI_HDESCRIPTORHEAP){memory};
    if (FAILED(hr = ddi->pfnCreateDescriptorHeap(driver, &args, heap->handle)))
        return hr;
    heap->cpu_start = ddi->pfnGetDescriptorHeapCpuStart(driver, heap->handle);
    heap->gpu_start = ddi->pfnGetDescriptorHeapGpuStart(driver, heap->handle);
    bool visible = heap->desc.Flags & D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    if (!heap->cpu_start || (visible && !heap->gpu_start)) {
        heap->cpu_start = heap->cpu_start ? heap->cpu_start : 1; /* constructed: destroyed with the heap */
        return DXGI_ERROR_DRIVER_INTERNAL_ERROR;
    }
    if (!visible)
        heap->gpu_start = 0;
    if (!(heap->registered = registry_add(heap)))
        return E_OUTOFMEMORY;
    return S_OK;
}

HRESULT d12_device_CreateDescriptorHeap(struct d12_device *self, const D3D12_DESCRIPTOR_HEAP_DESC *pDescriptorHeapDesc,
                                        const IID *riid, void **ppvHeap)
{
    const char *method = "ID3D12Device::CreateDescriptorHeap";
    if (ppvHeap)
        *ppvHeap = NULL;
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    if (!d12__descriptors_available(self, method))
        return E_NOTIMPL;
    const char *problem = check_heap_desc(pDescriptorHeapDesc);
    if (problem) {
        d12__msg_create_descriptor_heap_invalid_desc(self->info_queue, problem);
        return E_INVALIDARG;
    }
    if (riid == NULL)
        return E_INVALIDARG;
    if (ppvHeap == NULL)
        return S_FALSE;
    struct d12_descriptor_heap *heap = calloc(1, sizeof *heap);
    if (!heap)
        return E_OUTOFMEMORY;
    d12__descriptor_heap_com_init(&heap->com);
    atomic_init(&heap->refcount, 1);
    d12__device_child_init(&heap->device_child, self, &heap->com.heap, "ID3D12DescriptorHeap");
    heap->desc = *pDescriptorHeapDesc;
    heap->desc.NodeMask = 1; /* one node: GetDesc reports 1 for 0, as for queues */
    heap->gpu = self->gpu;
    if (FAILED(hr = create_driver_heap(self, heap))) {
        heap_destroy(heap);
        return hr;
    }
    d12__device_child_register(&heap->device_child, heap, D3D12DDI_HT_DESCRIPTOR_HEAP);
    hr = d12__descriptor_heap_QueryInterface(heap, riid, ppvHeap);
    d12_descriptor_heap_Release(heap);
    return hr;
}

UINT d12_device_GetDescriptorHandleIncrementSize(struct d12_device *self, D3D12_DESCRIPTOR_HEAP_TYPE DescriptorHeapType)
{
    if ((UINT)DescriptorHeapType > D3D12_DESCRIPTOR_HEAP_TYPE_DSV || !self->gpu || !self->gpu->has_descriptors)
        return 0; /* no such heap on this device: nothing to step through */
    return self->gpu->descriptors.pfnGetDescriptorSizeInBytes(d12__driver_device_handle(self->driver),
                                                              (D3D12DDI_DESCRIPTOR_HEAP_TYPE)DescriptorHeapType);
}
