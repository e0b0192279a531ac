/* Views, samplers and descriptor copies (docs/descriptors.md): each validated as the debug layer does, then written
 * by the driver into a handle the registry (descriptor_heap.h) proved to be a descriptor of one of the device's
 * live heaps of the right type. An invalid call writes nothing (the API's methods return void). */
#include <math.h>
#include <stdint.h>

#include "d12_messages.h"
#include "descriptor_heap.h"
#include "device.h"
#include "foreign.h"
#include "list.h"
#include "resource.h"

#define CBV_MAX_BYTES (D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT * 16) /* 4096 float4: 65536 bytes */

/* The destination of a write: a descriptor of a live heap of `type` made by this device. */
static bool destination(struct d12_device *device, const char *method, D3D12_CPU_DESCRIPTOR_HANDLE dest,
                        D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    d12_descriptor_run run;
    if (d12__descriptor_find(dest.ptr, &run) && run.device == device && run.type == type)
        return true;
    d12__msg_invalid_descriptor_handle(device->info_queue, method, "DestDescriptor", dest.ptr,
                                       d12__descriptor_heap_type_name(type));
    return false;
}

static void write_view(struct d12_device *device, const D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT *args,
                       D3D12_CPU_DESCRIPTOR_HANDLE dest)
{
    device->gpu->descriptors.pfnCreateBufferView(d12__driver_device_handle(device->driver), args, dest.ptr);
}

/* The resource of a view: ours and this device's (NULL with a message otherwise; `*ok` false). */
static struct d12_resource *view_resource(struct d12_device *device, const char *method, ID3D12Resource *api, bool *ok)
{
    *ok = true;
    if (!api)
        return NULL;
    struct d12_resource *resource = d12__resource_unwrap(api);
    if (!resource || d12__foreign(device, resource->device_child.device, method, "pResource", "nothing is written"))
        *ok = false;
    return resource;
}

/* first * size + count * size <= width, without overflow. */
static bool elements_fit(UINT64 first, UINT64 count, UINT64 size, UINT64 width)
{
    if (size == 0 || count == 0 || first > width / size || count > width / size)
        return false;
    return first * size + count * size <= width && first * size + count * size >= first * size;
}

/* ---- CreateConstantBufferView ---- */

void d12_device_CreateConstantBufferView(struct d12_device *self, const D3D12_CONSTANT_BUFFER_VIEW_DESC *pDesc,
                                         D3D12_CPU_DESCRIPTOR_HANDLE DestDescriptor)
{
    const char *method = "ID3D12Device::CreateConstantBufferView";
    if (!d12__descriptors_available(self, method) ||
        !destination(self, method, DestDescriptor, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV))
        return;
    const char *problem = NULL;
    if (!pDesc)
        problem = "pDesc is NULL";
    else if (pDesc->SizeInBytes % D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)
        problem = "SizeInBytes is not a multiple of 256 (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)";
    else if (pDesc->SizeInBytes > CBV_MAX_BYTES)
        problem = "SizeInBytes is above 65536 (D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT float4s)";
    else if (pDesc->BufferLocation % D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)
        problem = "BufferLocation is not a multiple of 256 (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)";
    else if (pDesc->BufferLocation && pDesc->SizeInBytes == 0)
        problem = "SizeInBytes is 0 for a BufferLocation that is not 0 (a null view has BufferLocation 0)";
    if (problem) {
        d12__msg_create_constant_buffer_view_invalid_desc(self->info_queue, problem);
        return;
    }
    /* BufferLocation 0 is the null CBV. The address range is the driver's to resolve when the view is used (a
     * range in no live buffer is then a page fault, as on a GPU). */
    D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT args = {D3D12DDI_BUFFER_VIEW_TYPE_D12RT_CBV, DXGI_FORMAT_UNKNOWN,
                                                 pDesc->BufferLocation, pDesc->BufferLocation ? pDesc->SizeInBytes : 0,
                                                 0, D3D12DDI_BUFFER_VIEW_FLAG_D12RT_NONE, 0};
    write_view(self, &args, DestDescriptor);
}

/* ---- Buffer SRVs and UAVs: the shared element rules ---- */

typedef struct buffer_elements {
    DXGI_FORMAT format;
    UINT64 first, count;
    UINT stride;
    bool raw;
} buffer_elements;

typedef struct view_messages { /* the debug layer's IDs of one view kind */
    void (*desc)(d12_info_queue *, const char *);
    void (*format)(d12_info_queue *, const char *);
    void (*dimensions)(d12_info_queue *, const char *);
} view_messages;

/* The bytes one element covers (raw: 4, structured: the stride, typed: the driver's size), or 0 with a message. */
static UINT element_size(struct d12_device *device, D3D12DDI_BUFFER_VIEW_TYPE_D12RT type, const buffer_elements *e,
                         const view_messages *messages)
{
    d12_info_queue *info = device->info_queue;
    if (e->raw) {
        if (e->format != DXGI_FORMAT_R32_TYPELESS || e->stride) {
            messages->desc(info, "a RAW buffer view has Format DXGI_FORMAT_R32_TYPELESS and StructureByteStride 0");
            return 0;
        }
        return 4;
    }
    if (e->stride) {
        if (e->format != DXGI_FORMAT_UNKNOWN) {
            messages->format(info, "a structured buffer view (StructureByteStride > 0) has Format DXGI_FORMAT_UNKNOWN");
            return 0;
        }
        return e->stride;
    }
    if (e->format == DXGI_FORMAT_UNKNOWN) {
        messages->desc(info, "a buffer view needs a Format, a StructureByteStride or the RAW flag");
        return 0;
    }
    UINT size = device->gpu->descriptors.pfnCheckBufferViewFormat(d12__driver_device_handle(device->driver), type,
                                                                  e->format);
    if (!size)
        messages->format(info, "the driver has no typed buffer view in this Format");
    return size;
}

/* The view's address range over `resource` (NULL: a null descriptor, no range); false with a message. */
static bool buffer_range(struct d12_device *device, D3D12DDI_BUFFER_VIEW_TYPE_D12RT type,
                         const struct d12_resource *resource, const buffer_elements *e, const view_messages *messages,
                         D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT *args)
{
    UINT size = element_size(device, type, e, messages);
    if (!size)
        return false;
    *args = (D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT){type, e->format, 0, 0, e->stride,
                                                   e->raw ? D3D12DDI_BUFFER_VIEW_FLAG_D12RT_RAW
                                                          : D3D12DDI_BUFFER_VIEW_FLAG_D12RT_NONE, 0};
    if (!resource)
        return true;
    if (!elements_fit(e->first, e->count, size, resource->desc.Width)) {
        messages->dimensions(device->info_queue, "FirstElement and NumElements (0 is none) reach beyond the buffer's Width");
        return false;
    }
    args->GpuVirtualAddress = resource->gpu_address + e->first * size;
    args->SizeInBytes = e->count * size;
    return true;
}

/* ---- CreateShaderResourceView ---- */

static const view_messages k_srv_messages = {d12__msg_createshaderresourceview_invaliddesc,
                                             d12__msg_createshaderresourceview_invalidformat,
                                             d12__msg_createshaderresourceview_invaliddimensions};

/* D3D12_ENCODE_SHADER_4_COMPONENT_MAPPING's rule: the always-set bit, each component 0..5, nothing above. */
static bool mapping_valid(UINT mapping)
{
    if (!(mapping & D3D12_SHADER_COMPONENT_MAPPING_ALWAYS_SET_BIT_AVOIDING_ZEROMEM_MISTAKES) ||
        (mapping >> 13))
        return false;
    for (int c = 0; c < 4; c++)
        if (((mapping >> (c * D3D12_SHADER_COMPONENT_MAPPING_SHIFT)) & D3D12_SHADER_COMPONENT_MAPPING_MASK) >
            D3D12_SHADER_COMPONENT_MAPPING_FORCE_VALUE_1)
            return false;
    return true;
}

static const char *srv_desc_problem(const D3D12_SHADER_RESOURCE_VIEW_DESC *desc, bool null_view)
{
    if (!desc)
        return null_view ? "a null descriptor (pResource NULL) needs pDesc" : "pDesc NULL: a buffer has no default view";
    if ((UINT)desc->ViewDimension == D3D12_SRV_DIMENSION_UNKNOWN ||
        (UINT)desc->ViewDimension > D3D12_SRV_DIMENSION_RAYTRACING_ACCELERATION_STRUCTURE)
        return "ViewDimension is no D3D12_SRV_DIMENSION";
    if (!mapping_valid(desc->Shader4ComponentMapping))
        return "Shader4ComponentMapping is no D3D12_ENCODE_SHADER_4_COMPONENT_MAPPING value";
    if (desc->ViewDimension == D3D12_SRV_DIMENSION_BUFFER &&
        ((UINT)desc->Buffer.Flags & ~(UINT)D3D12_BUFFER_SRV_FLAG_RAW))
        return "Buffer.Flags has bits no D3D12_BUFFER_SRV_FLAGS names";
    return NULL;
}

void d12_device_CreateShaderResourceView(struct d12_device *self, ID3D12Resource *pResource,
                                         const D3D12_SHADER_RESOURCE_VIEW_DESC *pDesc,
                                         D3D12_CPU_DESCRIPTOR_HANDLE DestDescriptor)
{
    const char *method = "ID3D12Device::CreateShaderResourceView";
    bool ok;
    if (!d12__descriptors_available(self, method) ||
        !destination(self, method, DestDescriptor, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV))
        return;
    struct d12_resource *resource = view_resource(self, method, pResource, &ok);
    if (!ok) {
        if (!resource)
            d12__msg_createshaderresourceview_invalidresource(self->info_queue, "pResource is not a d12rt resource");
        return;
    }
    const char *problem = srv_desc_problem(pDesc, resource == NULL);
    if (problem) {
        d12__msg_createshaderresourceview_invaliddesc(self->info_queue, problem);
        return;
    }
    if (resource && (resource->desc.Flags & D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE)) {
        d12__msg_createshaderresourceview_invalidresource(self->info_queue,
                                                          "the resource denies shader resources (DENY_SHADER_RESOURCE)");
        return;
    }
    D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT args = {D3D12DDI_BUFFER_VIEW_TYPE_D12RT_SRV, DXGI_FORMAT_UNKNOWN, 0, 0, 0,
                                                 D3D12DDI_BUFFER_VIEW_FLAG_D12RT_NONE, 0};
    if (pDesc->ViewDimension == D3D12_SRV_DIMENSION_BUFFER) {
        buffer_elements e = {pDesc->Format, pDesc->Buffer.FirstElement, pDesc->Buffer.NumElements,
                             pDesc->Buffer.StructureByteStride, (pDesc->Buffer.Flags & D3D12_BUFFER_SRV_FLAG_RAW) != 0};
        if (!buffer_range(self, D3D12DDI_BUFFER_VIEW_TYPE_D12RT_SRV, resource, &e, &k_srv_messages, &args))
            return;
    } else if (resource) { /* every resource is a buffer: a texture (or acceleration structure) view cannot be */
        d12__msg_createshaderresourceview_invaliddimensions(
            self->info_queue, "the view's ViewDimension needs a texture or acceleration structure; d12rt creates buffers only");
        return;
    }
    write_view(self, &args, DestDescriptor); /* a null descriptor of any dimension: no range */
}

/* ---- CreateUnorderedAccessView ---- */

static void uav_desc_message(d12_info_queue *info, const char *problem)
{
    d12__msg_createunorderedaccessview_invaliddesc(info, problem);
}

static const view_messages k_uav_messages = {uav_desc_message, d12__msg_createunorderedaccessview_invalidformat,
                                             d12__msg_createunorderedaccessview_invaliddimensions};

static bool uav_desc_valid(d12_info_queue *info, const D3D12_UNORDERED_ACCESS_VIEW_DESC *desc, bool null_view)
{
    if (!desc) {
        d12__msg_createunorderedaccessview_invaliddesc(
            info, null_view ? "a null descriptor (pResource NULL) needs pDesc" : "pDesc NULL: a buffer has no default view");
        return false;
    }
    if ((UINT)desc->ViewDimension == D3D12_UAV_DIMENSION_UNKNOWN ||
        (UINT)desc->ViewDimension > D3D12_UAV_DIMENSION_TEXTURE3D) {
        d12__msg_createunorderedaccessview_invaliddesc(info, "ViewDimension is no D3D12_UAV_DIMENSION");
        return false;
    }
    if (desc->ViewDimension == D3D12_UAV_DIMENSION_BUFFER &&
        ((UINT)desc->Buffer.Flags & ~(UINT)D3D12_BUFFER_UAV_FLAG_RAW)) {
        d12__msg_createunorderedaccessview_invalidflags(info, "Buffer.Flags has bits no D3D12_BUFFER_UAV_FLAGS names");
        return false;
    }
    return true;
}

/* The counter rules (CREATE_UNORDEREDACCESS_VIEW_INVALID_COUNTER_USAGE): only a structured buffer view (stride > 0,
 * Format UNKNOWN, not RAW) of a buffer has one, in a buffer, at a multiple of 4096 with its 4 bytes in range. */
static const char *counter_problem(const D3D12_UNORDERED_ACCESS_VIEW_DESC *desc, const struct d12_resource *resource,
                                   const struct d12_resource *counter)
{
    if (!counter)
        return desc->ViewDimension == D3D12_UAV_DIMENSION_BUFFER && desc->Buffer.CounterOffsetInBytes
                   ? "CounterOffsetInBytes is not 0 but pCounterResource is NULL"
                   : NULL;
    if (!resource)
        return "a null descriptor (pResource NULL) has no counter";
    if (desc->ViewDimension != D3D12_UAV_DIMENSION_BUFFER)
        return "only a buffer view has a counter";
    if (desc->Buffer.StructureByteStride == 0 || desc->Format != DXGI_FORMAT_UNKNOWN ||
        (desc->Buffer.Flags & D3D12_BUFFER_UAV_FLAG_RAW))
        return "a counter needs a structured view: StructureByteStride > 0, Format UNKNOWN, not RAW";
    if (desc->Buffer.CounterOffsetInBytes % D3D12_UAV_COUNTER_PLACEMENT_ALIGNMENT)
        return "CounterOffsetInBytes is not a multiple of 4096 (D3D12_UAV_COUNTER_PLACEMENT_ALIGNMENT)";
    if (desc->Buffer.CounterOffsetInBytes > counter->desc.Width || counter->desc.Width - desc->Buffer.CounterOffsetInBytes < 4)
        return "the counter's 4 bytes at CounterOffsetInBytes are beyond pCounterResource's Width";
    return NULL;
}

void d12_device_CreateUnorderedAccessView(struct d12_device *self, ID3D12Resource *pResource,
                                          ID3D12Resource *pCounterResource,
                                          const D3D12_UNORDERED_ACCESS_VIEW_DESC *pDesc,
                                          D3D12_CPU_DESCRIPTOR_HANDLE DestDescriptor)
{
    const char *method = "ID3D12Device::CreateUnorderedAccessView";
    bool ok, counter_ok;
    if (!d12__descriptors_available(self, method) ||
        !destination(self, method, DestDescriptor, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV))
        return;
    struct d12_resource *resource = view_resource(self, method, pResource, &ok);
    struct d12_resource *counter = view_resource(self, method, pCounterResource, &counter_ok);
    if (!ok || !counter_ok) {
        d12__msg_createunorderedaccessview_invalidresource(self->info_queue,
                                                           "pResource or pCounterResource is not a d12rt resource");
        return;
    }
    if (!uav_desc_valid(self->info_queue, pDesc, resource == NULL))
        return;
    if (resource && !(resource->desc.Flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)) {
        d12__msg_createunorderedaccessview_invalidresource(
            self->info_queue, "the resource was not created with D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS");
        return;
    }
    const char *problem = counter_problem(pDesc, resource, counter);
    if (problem) {
        d12__msg_create_unorderedaccess_view_invalid_counter_usage(self->info_queue, problem);
        return;
    }
    D3D12DDIARG_CREATE_BUFFER_VIEW_D12RT args = {D3D12DDI_BUFFER_VIEW_TYPE_D12RT_UAV, DXGI_FORMAT_UNKNOWN, 0, 0, 0,
                                                 D3D12DDI_BUFFER_VIEW_FLAG_D12RT_NONE, 0};
    if (pDesc->ViewDimension == D3D12_UAV_DIMENSION_BUFFER) {
        buffer_elements e = {pDesc->Format, pDesc->Buffer.FirstElement, pDesc->Buffer.NumElements,
                             pDesc->Buffer.StructureByteStride, (pDesc->Buffer.Flags & D3D12_BUFFER_UAV_FLAG_RAW) != 0};
        if (!buffer_range(self, D3D12DDI_BUFFER_VIEW_TYPE_D12RT_UAV, resource, &e, &k_uav_messages, &args))
            return;
        if (counter)
            args.CounterGpuVirtualAddress = counter->gpu_address + pDesc->Buffer.CounterOffsetInBytes;
    } else if (resource) {
        d12__msg_createunorderedaccessview_invaliddimensions(
            self->info_queue, "the view's ViewDimension needs a texture; d12rt creates buffers only");
        return;
    }
    write_view(self, &args, DestDescriptor);
}

/* ---- CreateSampler ---- */

/* D3D12_FILTER's encoding: reduction (bits 7-8), then min/mag/mip point or linear (bits 4, 2, 0), or anisotropic. */
static bool filter_valid(UINT filter, bool *comparison, bool *anisotropic)
{
    UINT low = filter & 0x7F, reduction = (filter >> D3D12_FILTER_REDUCTION_TYPE_SHIFT) & D3D12_FILTER_REDUCTION_TYPE_MASK;
    *comparison = reduction == D3D12_FILTER_REDUCTION_TYPE_COMPARISON;
    *anisotropic = low == D3D12_FILTER_ANISOTROPIC;
    if (filter >> 9)
        return false;
    return *anisotropic || (low & ~0x15u) == 0;
}

static const char *sampler_problem(const D3D12_SAMPLER_DESC *desc)
{
    bool comparison, anisotropic;
    if (!desc)
        return "pDesc is NULL";
    if (!filter_valid((UINT)desc->Filter, &comparison, &anisotropic))
        return "Filter is no D3D12_FILTER";
    D3D12_TEXTURE_ADDRESS_MODE modes[3] = {desc->AddressU, desc->AddressV, desc->AddressW};
    for (int i = 0; i < 3; i++)
        if ((UINT)modes[i] < D3D12_TEXTURE_ADDRESS_MODE_WRAP || (UINT)modes[i] > D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE)
            return "AddressU, AddressV or AddressW is no D3D12_TEXTURE_ADDRESS_MODE";
    if (anisotropic && (desc->MaxAnisotropy < 1 || desc->MaxAnisotropy > D3D12_MAX_MAXANISOTROPY))
        return "an anisotropic filter needs MaxAnisotropy from 1 to 16";
    if (comparison && ((UINT)desc->ComparisonFunc < D3D12_COMPARISON_FUNC_NEVER ||
                       (UINT)desc->ComparisonFunc > D3D12_COMPARISON_FUNC_ALWAYS))
        return "a comparison filter needs a ComparisonFunc from NEVER to ALWAYS";
    if (isnan(desc->MipLODBias) || desc->MipLODBias < D3D12_MIP_LOD_BIAS_MIN || desc->MipLODBias > D3D12_MIP_LOD_BIAS_MAX)
        return "MipLODBias is outside [-16, 15.99]";
    if (isnan(desc->MinLOD) || isnan(desc->MaxLOD) || desc->MinLOD > desc->MaxLOD)
        return "MinLOD is above MaxLOD (or either is NaN)";
    return NULL;
}

void d12_device_CreateSampler(struct d12_device *self, const D3D12_SAMPLER_DESC *pDesc,
                              D3D12_CPU_DESCRIPTOR_HANDLE DestDescriptor)
{
    const char *method = "ID3D12Device::CreateSampler";
    if (!d12__descriptors_available(self, method) ||
        !destination(self, method, DestDescriptor, D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER))
        return;
    const char *problem = sampler_problem(pDesc);
    if (problem) {
        d12__msg_create_sampler_invalid(self->info_queue, problem);
        return;
    }
    self->gpu->descriptors.pfnCreateSampler(d12__driver_device_handle(self->driver), pDesc, DestDescriptor.ptr);
}

/* ---- CopyDescriptors, CopyDescriptorsSimple ---- */

/* A range of `count` descriptors from `start`: within one live heap of `type` of this device. */
static bool range_valid(struct d12_device *device, SIZE_T start, UINT count, D3D12_DESCRIPTOR_HEAP_TYPE type,
                        d12_descriptor_run *run)
{
    if (!d12__descriptor_find(start, run) || run->device != device || run->type != type)
        return false;
    return count <= (run->heap_end - start) / run->increment;
}

static bool overlap(SIZE_T a, UINT a_count, SIZE_T b, UINT b_count, UINT increment)
{
    return a < b + (SIZE_T)b_count * increment && b < a + (SIZE_T)a_count * increment;
}

typedef struct copy_ranges {
    UINT count;
    const D3D12_CPU_DESCRIPTOR_HANDLE *starts;
    const UINT *sizes; /* NULL: every range is 1 descriptor */
} copy_ranges;

static UINT range_size(const copy_ranges *r, UINT i)
{
    return r->sizes ? r->sizes[i] : 1;
}

/* Every range in one heap, sources not shader-visible; the totals, sources against destinations (no overlap). */
static bool copy_valid(struct d12_device *device, const char *method, const copy_ranges *dst, const copy_ranges *src,
                       D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    d12_info_queue *info = device->info_queue;
    d12_descriptor_run run;
    UINT64 dst_total = 0, src_total = 0;
    UINT increment = d12_device_GetDescriptorHandleIncrementSize(device, type);
    if ((UINT)type > D3D12_DESCRIPTOR_HEAP_TYPE_DSV) {
        d12__msg_copy_descriptors_invalid_ranges(info, method, "DescriptorHeapsType is no D3D12_DESCRIPTOR_HEAP_TYPE");
        return false;
    }
    if ((dst->count && !dst->starts) || (src->count && !src->starts)) {
        d12__msg_copy_descriptors_invalid_ranges(info, method, "a range count is not 0 but its start array is NULL");
        return false;
    }
    for (UINT i = 0; i < dst->count; dst_total += range_size(dst, i), i++)
        if (range_size(dst, i) && !range_valid(device, dst->starts[i].ptr, range_size(dst, i), type, &run)) {
            d12__msg_copy_descriptors_invalid_ranges(info, method, "a destination range is not within one live heap of "
                                                     "DescriptorHeapsType of this device");
            return false;
        }
    for (UINT i = 0; i < src->count; src_total += range_size(src, i), i++) {
        if (!range_size(src, i))
            continue;
        if (!range_valid(device, src->starts[i].ptr, range_size(src, i), type, &run)) {
            d12__msg_copy_descriptors_invalid_ranges(info, method, "a source range is not within one live heap of "
                                                     "DescriptorHeapsType of this device");
            return false;
        }
        if (run.shader_visible) {
            d12__msg_copy_descriptors_write_only_descriptor(info, method, src->starts[i].ptr);
            return false;
        }
    }
    if (dst_total != src_total) {
        d12__msg_copy_descriptors_invalid_ranges(info, method, "the destination ranges hold a different number of "
                                                 "descriptors than the source ranges");
        return false;
    }
    for (UINT i = 0; i < dst->count; i++)
        for (UINT j = 0; j < src->count; j++)
            if (overlap(dst->starts[i].ptr, range_size(dst, i), src->starts[j].ptr, range_size(src, j), increment)) {
                d12__msg_copy_descriptors_invalid_ranges(info, method, "a source range overlaps a destination range");
                return false;
            }
    return true;
}

/* Walk both range lists together, handing the driver the longest runs that stay within one range of each. */
static void copy_runs(struct d12_device *device, const copy_ranges *dst, const copy_ranges *src,
                      D3D12_DESCRIPTOR_HEAP_TYPE type)
{
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    UINT increment = d12_device_GetDescriptorHandleIncrementSize(device, type);
    UINT di = 0, si = 0, d_done = 0, s_done = 0;
    while (di < dst->count && si < src->count) {
        UINT d_left = range_size(dst, di) - d_done, s_left = range_size(src, si) - s_done;
        UINT run = d_left < s_left ? d_left : s_left;
        if (run)
            device->gpu->descriptors.pfnCopyDescriptors(driver, run, dst->starts[di].ptr + (SIZE_T)d_done * increment,
                                                        src->starts[si].ptr + (SIZE_T)s_done * increment,
                                                        (D3D12DDI_DESCRIPTOR_HEAP_TYPE)type);
        d_done += run;
        s_done += run;
        if (d_done == range_size(dst, di))
            di++, d_done = 0;
        if (s_done == range_size(src, si))
            si++, s_done = 0;
    }
}

void d12_device_CopyDescriptors(struct d12_device *self, UINT NumDestDescriptorRanges,
                                const D3D12_CPU_DESCRIPTOR_HANDLE *pDestDescriptorRangeStarts,
                                const UINT *pDestDescriptorRangeSizes, UINT NumSrcDescriptorRanges,
                                const D3D12_CPU_DESCRIPTOR_HANDLE *pSrcDescriptorRangeStarts,
                                const UINT *pSrcDescriptorRangeSizes, D3D12_DESCRIPTOR_HEAP_TYPE DescriptorHeapsType)
{
    const char *method = "ID3D12Device::CopyDescriptors";
    copy_ranges dst = {NumDestDescriptorRanges, pDestDescriptorRangeStarts, pDestDescriptorRangeSizes};
    copy_ranges src = {NumSrcDescriptorRanges, pSrcDescriptorRangeStarts, pSrcDescriptorRangeSizes};
    if (!d12__descriptors_available(self, method) || !copy_valid(self, method, &dst, &src, DescriptorHeapsType))
        return;
    copy_runs(self, &dst, &src, DescriptorHeapsType);
}

void d12_device_CopyDescriptorsSimple(struct d12_device *self, UINT NumDescriptors,
                                      D3D12_CPU_DESCRIPTOR_HANDLE DestDescriptorRangeStart,
                                      D3D12_CPU_DESCRIPTOR_HANDLE SrcDescriptorRangeStart,
                                      D3D12_DESCRIPTOR_HEAP_TYPE DescriptorHeapsType)
{
    const char *method = "ID3D12Device::CopyDescriptorsSimple";
    copy_ranges dst = {1, &DestDescriptorRangeStart, &NumDescriptors};
    copy_ranges src = {1, &SrcDescriptorRangeStart, &NumDescriptors};
    if (!d12__descriptors_available(self, method) || !copy_valid(self, method, &dst, &src, DescriptorHeapsType))
        return;
    copy_runs(self, &dst, &src, DescriptorHeapsType);
}
