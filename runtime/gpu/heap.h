/* ID3D12Heap: heaps for placed buffers (docs/heaps.md). The memory and the GPU virtual address range are the
 * driver's (D3D12DDI_TABLE_TYPE_D12RT_HEAPS: allocated as a committed buffer's are); a resource placed in a heap is a
 * d12_resource whose `placed_heap` holds the heap (resource.c). */
#ifndef D12_HEAP_H
#define D12_HEAP_H

#include <stdatomic.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"
#include "dred/dred.h"

struct d12_heap {
    struct d12__heap_com com;
    atomic_ulong refcount; /* the application's references (AddRef/Release) */
    /* 1 while the application holds the heap, plus 1 per live resource placed in it: the heap, and the driver's heap
     * with its memory and range, go when it reaches 0 (placed resources keep their heap alive, as in D3D12). */
    atomic_ulong holds;
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_HEAP_DESC desc; /* as GetDesc returns it: Alignment 0 reads 65536, node masks 0 read 1 */
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HHEAP handle;
    D3D12_GPU_VIRTUAL_ADDRESS gpu_address;
    d12_dred_heap dred; /* the page-fault ledger's record (runtime/dred/heaps.c) */
};

/* A placed resource takes a hold on its heap at creation and drops it at its destruction. */
void d12__heap_hold(struct d12_heap *heap);
void d12__heap_unhold(struct d12_heap *heap);

#endif
