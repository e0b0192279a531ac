/* Descriptor heaps, one implementation for both drivers (D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS; docs/descriptors.md).
 * A heap's descriptors live in memory the driver owns: a heap that is not shader-visible in plain CPU memory (a
 * staging heap, as on a GPU), a shader-visible one in an UPLOAD buffer of the driver's own, made through its device
 * core table, so its GPU handles are addresses in the driver's VA space (a DRED page fault there names the range)
 * and its bytes are what a GPU would read. Each driver writes its own descriptor records into a handle (the
 * reference driver: data; the Vulkan driver: Vulkan-shaped records); copies are the records' bytes. */
#ifndef D12_DRVCOMMON_DESCRIPTORS_H
#define D12_DRVCOMMON_DESCRIPTORS_H

#include "d12rt/d3d12ddi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The driver's side of a heap: its record sizes (per heap type, at least 1) and its device core table. */
typedef struct d12__drv_descriptor_driver {
    UINT sizes[4];
    const D3D12DDI_DEVICE_FUNCS_CORE_0126 *core;
} d12__drv_descriptor_driver;

typedef struct d12__drv_descriptor_heap {
    D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 desc;
    const d12__drv_descriptor_driver *driver;
    unsigned char *cpu;     /* descriptor 0 */
    UINT64 va;              /* its GPU VA (shader-visible), else 0 */
    void *buffer;           /* shader-visible: the UPLOAD buffer's private memory (a D3D12DDI_HRESOURCE), else NULL */
} d12__drv_descriptor_heap;

SIZE_T d12__drv_descriptor_heap_size(void);
HRESULT d12__drv_descriptor_heap_create(const d12__drv_descriptor_driver *driver, D3D12DDI_HDEVICE device,
                                        const D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 *args,
                                        D3D12DDI_HDESCRIPTORHEAP heap);
VOID APIENTRY d12__drv_descriptor_heap_destroy(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP heap);
SIZE_T APIENTRY d12__drv_descriptor_heap_cpu_start(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP heap);
UINT64 APIENTRY d12__drv_descriptor_heap_gpu_start(D3D12DDI_HDEVICE device, D3D12DDI_HDESCRIPTORHEAP heap);
/* pfnCopyDescriptors: the records' bytes (the runtime proved both runs lie in live heaps and do not overlap). */
void d12__drv_descriptor_copy(const d12__drv_descriptor_driver *driver, UINT count, SIZE_T dest, SIZE_T src,
                              D3D12DDI_DESCRIPTOR_HEAP_TYPE type);

/* The typed buffer view formats both drivers know, with their element size in bytes (0: not one of them). */
UINT d12__drv_buffer_view_format_size(DXGI_FORMAT format);

#ifdef __cplusplus
}
#endif

#endif
