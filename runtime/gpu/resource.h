/* ID3D12Resource: committed buffers in DEFAULT, UPLOAD and READBACK heaps, and buffers placed in heaps (heap.h,
 * docs/heaps.md); textures are out of d12rt's scope. The memory and the GPU virtual address are the driver's
 * (pfnCreateResource, pfnCreatePlacedResource). */
#ifndef D12_RESOURCE_H
#define D12_RESOURCE_H

#include <stdatomic.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"
#include "dred/dred.h"

struct d12_resource {
    struct d12__resource_com com;
    atomic_ulong refcount;
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_RESOURCE_DESC desc;
    D3D12_HEAP_PROPERTIES heap;
    D3D12_HEAP_FLAGS heap_flags;
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HRESOURCE handle;
    D3D12_GPU_VIRTUAL_ADDRESS gpu_address;
    atomic_uint maps; /* Map calls not yet matched by Unmap */
    struct d12_heap *placed_heap; /* fixed: the heap a placed resource holds (docs/heaps.md); NULL: committed */
    UINT64 heap_offset;           /* fixed: where in it */
    d12_dred_allocation dred_allocation; /* the page-fault ledger's record (runtime/dred/ledger.c); linked while
                                            its `resource` is set */
};

/* What makes `desc` no buffer d12rt can create (dimension, sizes, format, layout), or NULL: one rule for creation,
 * GetResourceAllocationInfo and GetCopyableFootprints (resource_info.c). */
const char *d12__buffer_desc_problem(const D3D12_RESOURCE_DESC *desc);

#endif
