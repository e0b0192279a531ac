/* The Vulkan driver's descriptors (docs/descriptors.md): heaps from drivers/common/drvcommon_descriptors.c (a
 * shader-visible heap is a host-visible buffer of this driver, at a VA of its page table), and records of its own:
 * a view as the Vulkan descriptor it becomes (type, texel format, address range, counter), a sampler as the
 * VkSamplerCreateInfo fields it becomes. The descriptor sets a dispatch binds are built from these records when
 * descriptor tables are bound (a later issue); nothing here creates a Vulkan object, so a heap of a million
 * descriptors costs memory only. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "drvcommon_descriptors.h"
#include "vkdrv_compute.h"

typedef struct vkdrv_view_record {
    UINT32 type;       /* VkDescriptorType + 1; 0: never written */
    UINT32 format;     /* VkFormat of a texel buffer; VK_FORMAT_UNDEFINED otherwise */
    UINT64 va, range;  /* the driver's VA range (va 0: a null descriptor, VK_EXT_robustness2's nullDescriptor) */
    UINT64 counter_va; /* a UAV counter's 4 bytes; 0: none */
    UINT32 stride;     /* a structured view's element size (bounds in elements) */
    UINT32 raw;
    UINT32 kind;       /* d12__vkdrv_view_kind */
    UINT32 dxgi;       /* the DXGI_FORMAT it was created with (ClearUnorderedAccessView converts to it) */
} vkdrv_view_record;

typedef struct vkdrv_sampler_record {
    UINT32 written;
    UINT32 mag, min, mipmap;     /* VkFilter, VkFilter, VkSamplerMipmapMode */
    UINT32 address[3];           /* VkSamplerAddressMode */
    float lod_bias, min_lod, max_lod;
    UINT32 anisotropy;           /* maxAnisotropy when anisotropic, else 0 */
    UINT32 compare_op;           /* VkCompareOp + 1 for a comparison filter, else 0 */
    float border[4];             /* the border colour (custom colours need VK_EXT_custom_border_color) */
} vkdrv_sampler_record;

#define RECORD_SIZE 64
_Static_assert(sizeof(vkdrv_view_record) <= RECORD_SIZE && sizeof(vkdrv_sampler_record) <= RECORD_SIZE,
               "a record fits its increment");

static const d12__drv_descriptor_driver k_driver = {{RECORD_SIZE, RECORD_SIZE, 32, 32}, &d12__vkdrv_device_core_funcs};
_Static_assert(RECORD_SIZE == D12_VKDRV_DESCRIPTOR_SIZE, "vkdrv_bind.c walks a heap in records");

static d12__vkdrv_device *device_of(D3D12DDI_HDEVICE handle)
{
    return (d12__vkdrv_device *)handle.pDrvPrivate;
}

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

static VkFormat vk_format(DXGI_FORMAT format)
{
    static const struct { DXGI_FORMAT dxgi; VkFormat vk; } k_formats[] = {
        {DXGI_FORMAT_R32G32B32A32_FLOAT, VK_FORMAT_R32G32B32A32_SFLOAT}, {DXGI_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_UINT},
        {DXGI_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SINT}, {DXGI_FORMAT_R32G32_FLOAT, VK_FORMAT_R32G32_SFLOAT},
        {DXGI_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_UINT}, {DXGI_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SINT},
        {DXGI_FORMAT_R16G16B16A16_FLOAT, VK_FORMAT_R16G16B16A16_SFLOAT}, {DXGI_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_UINT},
        {DXGI_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SINT}, {DXGI_FORMAT_R32_FLOAT, VK_FORMAT_R32_SFLOAT},
        {DXGI_FORMAT_R32_UINT, VK_FORMAT_R32_UINT}, {DXGI_FORMAT_R32_SINT, VK_FORMAT_R32_SINT},
        {DXGI_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM}, {DXGI_FORMAT_R8G8B8A8_UINT, VK_FORMAT_R8G8B8A8_UINT},
        {DXGI_FORMAT_R8G8B8A8_SINT, VK_FORMAT_R8G8B8A8_SINT}, {DXGI_FORMAT_R16G16_FLOAT, VK_FORMAT_R16G16_SFLOAT},
        {DXGI_FORMAT_R16G16_UINT, VK_FORMAT_R16G16_UINT}, {DXGI_FORMAT_R16G16_SINT, VK_FORMAT_R16G16_SINT},
        {DXGI_FORMAT_R16_FLOAT, VK_FORMAT_R16_SFLOAT}, {DXGI_FORMAT_R16_UINT, VK_FORMAT_R16_UINT},
        {DXGI_FORMAT_R16_SINT, VK_FORMAT_R16_SINT}, {DXGI_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM},
        {DXGI_FORMAT_R8_UINT, VK_FORMAT_R8_UINT}, {DXGI_FORMAT_R8_SINT, VK_FORMAT_R8_SINT},
    };
    for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; i++)
        if (k_formats[i].dxgi == format)
            return k_formats[i].vk;
    return VK_FORMAT_UNDEFINED;
}

/* A typed SRV is a uniform texel buffer, a typed UAV a storage texel buffer: the format's size when the physical
 * device has that buffer feature for it (vkGetPhysicalDeviceFormatProperties), else 0. */
static UINT APIENTRY check_format(D3D12DDI_HDEVICE device, D3D12DDI_BUFFER_VIEW_TYPE_D12RT type, DXGI_FORMAT format)
{
    VkFormat vk = vk_format(format);
    if (vk == VK_FORMAT_UNDEFINED || type == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_CBV)
        return 0;
    VkFormatProperties properties;
    vkGetPhysicalDeviceFormatProperties(device_of(device)->adapter->physical, vk, &properties);
    VkFormatFeatureFlags needed = type == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_SRV ? VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT
                                                                              : VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT;
    return (properties.bufferFeatures & needed) ? d12__drv_buffer_view_format_size(format) : 0;
}

/* CBV: a uniform buffer; raw and structured views: storage buffers; typed: texel buffers. */
static VkDescriptorType descriptor_type(const D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT *args)
{
    bool typed = args->Format != DXGI_FORMAT_UNKNOWN && !(args->Flags & D3D12DDI_BUFFER_VIEW_FLAG_D12RT_RAW);
    if (args->ViewType == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_CBV)
        return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    if (typed)
        return args->ViewType == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_SRV ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                                     : VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

static VOID APIENTRY create_view(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT *args, SIZE_T dest)
{
    (void)device;
    bool typed = args->Format != DXGI_FORMAT_UNKNOWN && !(args->Flags & D3D12DDI_BUFFER_VIEW_FLAG_D12RT_RAW);
    vkdrv_view_record record = {(UINT32)descriptor_type(args) + 1,
                                (UINT32)(typed ? vk_format(args->Format) : VK_FORMAT_UNDEFINED),
                                args->GpuVirtualAddress, args->SizeInBytes, args->CounterGpuVirtualAddress,
                                args->StructureByteStride, (args->Flags & D3D12DDI_BUFFER_VIEW_FLAG_D12RT_RAW) != 0,
                                args->ViewType == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_CBV   ? D12_VKDRV_VIEW_CBV
                                : args->ViewType == D3D12DDI_BUFFER_VIEW_TYPE_D12RT_SRV ? D12_VKDRV_VIEW_SRV
                                                                                        : D12_VKDRV_VIEW_UAV,
                                (UINT32)args->Format};
    memcpy((void *)dest, &record, sizeof record);
}

void d12__vkdrv_view_read(SIZE_T handle, d12__vkdrv_view_desc *out)
{
    vkdrv_view_record record;
    memcpy(&record, (const void *)handle, sizeof record);
    *out = (d12__vkdrv_view_desc){.kind = record.type ? (d12__vkdrv_view_kind)record.kind : D12_VKDRV_VIEW_NONE,
                                  .format = (VkFormat)record.format,
                                  .dxgi = (DXGI_FORMAT)record.dxgi,
                                  .va = record.va,
                                  .range = record.range,
                                  .counter_va = record.counter_va,
                                  .stride = record.stride,
                                  .raw = record.raw != 0};
}

static UINT32 address_mode(D3D12_TEXTURE_ADDRESS_MODE mode)
{
    switch (mode) {
    case D3D12_TEXTURE_ADDRESS_MODE_MIRROR: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    case D3D12_TEXTURE_ADDRESS_MODE_CLAMP: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case D3D12_TEXTURE_ADDRESS_MODE_BORDER: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    case D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE: return VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;
    default: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    }
}

/* D3D12_FILTER's bits (the runtime validated it): mip bit 0, mag bit 2, min bit 4 (1: linear); 0x40 anisotropic;
 * reduction type in bits 7-8 (1: comparison). D3D12_COMPARISON_FUNC NEVER..ALWAYS (1..8) = VkCompareOp + 1. */
static VOID APIENTRY create_sampler(D3D12DDI_HDEVICE device, const D3D12_SAMPLER_DESC *desc, SIZE_T dest)
{
    (void)device;
    UINT filter = (UINT)desc->Filter;
    bool anisotropic = filter & 0x40, comparison = ((filter >> 7) & 3) == 1;
    vkdrv_sampler_record record = {
        1, (filter & 0x4) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST, (filter & 0x10) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
        (filter & 0x1) ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST,
        {address_mode(desc->AddressU), address_mode(desc->AddressV), address_mode(desc->AddressW)},
        desc->MipLODBias, desc->MinLOD, desc->MaxLOD, anisotropic ? desc->MaxAnisotropy : 0,
        comparison ? (UINT32)desc->ComparisonFunc : 0,
        {desc->BorderColor[0], desc->BorderColor[1], desc->BorderColor[2], desc->BorderColor[3]}};
    memcpy((void *)dest, &record, sizeof record);
}

static VOID APIENTRY copy_descriptors(D3D12DDI_HDEVICE device, UINT count, SIZE_T dest, SIZE_T src,
                                      D3D12DDI_DESCRIPTOR_HEAP_TYPE type)
{
    (void)device;
    d12__drv_descriptor_copy(&k_driver, count, dest, src, type);
}

const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT d12__vkdrv_descriptor_funcs = {
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
    d12__vkdrv_calc_root_signature_size,
    d12__vkdrv_create_root_signature,
    d12__vkdrv_destroy_root_signature,
};
