/* ID3D12DescriptorHeap and the registry of live descriptor heaps (docs/descriptors.md). A heap's memory is the
 * driver's (D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS): its CPU handles are pointers the driver gave, its GPU handles
 * addresses in the driver's VA space. The registry maps any CPU handle back to the heap holding it, so a view,
 * sampler or copy is only ever passed to the driver with a handle the driver made, of the right type and device. */
#ifndef D12_DESCRIPTOR_HEAP_H
#define D12_DESCRIPTOR_HEAP_H

#include <stdatomic.h>
#include <stdbool.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"

struct d12_descriptor_heap {
    struct d12__descriptor_heap_com com;
    atomic_ulong refcount;
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_DESCRIPTOR_HEAP_DESC desc;
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HDESCRIPTORHEAP handle;
    SIZE_T cpu_start;  /* the driver's pointer to descriptor 0 */
    UINT64 gpu_start;  /* the driver's GPU VA of descriptor 0; 0 when not shader-visible */
    UINT increment;    /* the driver's descriptor size for the heap's type */
    bool registered;   /* in the registry (descriptor_heap.c) */
};

/* What the registry knows of the heap holding a CPU handle: a copy, so no reference is held. */
typedef struct d12_descriptor_run {
    struct d12_device *device;
    D3D12_DESCRIPTOR_HEAP_TYPE type;
    bool shader_visible;
    SIZE_T heap_start, heap_end; /* [start, end) of the heap's CPU handles */
    UINT increment;
} d12_descriptor_run;

/* The heap holding `handle` (a descriptor's first byte: on a descriptor boundary); false when no live heap does. */
bool d12__descriptor_find(SIZE_T handle, d12_descriptor_run *run);

/* Whether the device's driver has the descriptor table; when not, the debug layer says so, naming `method`. */
bool d12__descriptors_available(struct d12_device *device, const char *method);

/* D3D12_DESCRIPTOR_HEAP_TYPE's name ("D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER"), or "an unknown type". */
const char *d12__descriptor_heap_type_name(D3D12_DESCRIPTOR_HEAP_TYPE type);

#endif
