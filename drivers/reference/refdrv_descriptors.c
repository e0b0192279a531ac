/* The reference driver's descriptors (docs/descriptors.md): heaps from drivers/common/drvcommon_descriptors.c, and
 * its records as plain data — what a view names (type, address range, format, stride, raw, counter) and a sampler's
 * description — for its execution-time checks to read when descriptor tables are bound. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "drvcommon_descriptors.h"
#include "dxbc.h"
#include "refdrv_gpu.h"

typedef struct refdrv_sampler_record {
    UINT32 kind; /* REFDRV_SAMPLER */
    D3D12_SAMPLER_DESC desc;
} refdrv_sampler_record;

#define REFDRV_SAMPLER 0x5A
#define RECORD_SIZE D12_REFDRV_DESCRIPTOR_SIZE /* CBV_SRV_UAV and SAMPLER; RTV and DSV hold nothing yet (no textures) */
_Static_assert(sizeof(d12__refdrv_view_record) <= RECORD_SIZE && sizeof(refdrv_sampler_record) <= RECORD_SIZE,
               "a record fits its increment");

static const d12__drv_descriptor_driver k_driver = {{RECORD_SIZE, RECORD_SIZE, 32, 32}, &d12__refdrv_device_core_funcs};

static UINT APIENTRY descriptor_size(D3D12DDI_HDEVICE device, D3D12DDI_DESCRIPTOR_HEAP_TYPE type)
{
    (void)device;
    return (UINT)type <= D3D12DDI_DESCRIPTOR_HEAP_TYPE_DSV ? k_driver.sizes[type] : 0;
}

static SIZE_T APIENTRY calc_heap_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 *args)
{
    (void)device;
    (void)args;
    return d12__drv_descriptor_heap_size();
}

static HRESULT APIENTRY create_heap(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATE_DESCRIPTOR_HEAP_0001 *args,
                                    D3D12DDI_HDESCRIPTORHEAP heap)
{
    return d12__drv_descriptor_heap_create(&k_driver, device, args, heap);
}

/* Every format of drvcommon_descriptors.c's list, for SRVs and UAVs alike (a software GPU reads any of them). */
static UINT APIENTRY check_format(D3D12DDI_HDEVICE device, D3D12DDI_BUFFER_VIEW_TYPE_D12RT type, DXGI_FORMAT format)
{
    (void)device;
    return type == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_CBV ? 0 : d12__drv_buffer_view_format_size(format);
}

static VOID APIENTRY create_view(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT *args, SIZE_T dest)
{
    (void)device;
    d12__refdrv_view_record record = {(UINT32)args->ViewType + 1, (UINT32)args->Format, args->GpuVirtualAddress,
                                 args->SizeInBytes, args->StructureByteStride, (UINT32)args->Flags,
                                 args->CounterGpuVirtualAddress};
    memcpy((void *)dest, &record, sizeof record);
}

static VOID APIENTRY create_sampler(D3D12DDI_HDEVICE device, const D3D12_SAMPLER_DESC *desc, SIZE_T dest)
{
    (void)device;
    refdrv_sampler_record record = {REFDRV_SAMPLER, *desc};
    memcpy((void *)dest, &record, sizeof record);
}

static VOID APIENTRY copy_descriptors(D3D12DDI_HDEVICE device, UINT count, SIZE_T dest, SIZE_T src,
                                      D3D12DDI_DESCRIPTOR_HEAP_TYPE type)
{
    (void)device;
    d12__drv_descriptor_copy(&k_driver, count, dest, src, type);
}

static SIZE_T APIENTRY calc_root_signature_size(D3D12DDI_HDEVICE device,
                                                const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_root_signature);
}

static HRESULT APIENTRY create_root_signature(D3D12DDI_HDEVICE device,
                                              const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args,
                                              D3D12DDI_HROOTSIGNATURE handle)
{
    (void)device;
    d12__refdrv_root_signature *signature = handle.pDrvPrivate;
    signature->desc = d12_rootsig_convert(args->pRootSignature, D3D_ROOT_SIGNATURE_VERSION_1_1);
    return signature->desc ? S_OK : E_OUTOFMEMORY;
}

static VOID APIENTRY destroy_root_signature(D3D12DDI_HDEVICE device, D3D12DDI_HROOTSIGNATURE handle)
{
    (void)device;
    d12__refdrv_root_signature *signature = handle.pDrvPrivate;
    free(signature->desc);
    signature->desc = NULL;
}

const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT d12__refdrv_descriptor_funcs = {
    descriptor_size,
    calc_heap_size,
    create_heap,
    d12__drv_descriptor_heap_destroy,
    d12__drv_descriptor_heap_cpu_start,
    d12__drv_descriptor_heap_gpu_start,
    check_format,
    create_view,
    create_sampler,
    copy_descriptors,
    calc_root_signature_size,
    create_root_signature,
    destroy_root_signature,
};
