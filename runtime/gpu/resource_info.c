/* ID3D12Device::GetResourceAllocationInfo(1) and GetCopyableFootprints(1) for buffers (issue 29 item 3: both
 * answered nothing; vkd3d-proton's footprint tests and outside programs size their uploads with them). The rules:
 * - allocation info: "Buffers: 64KB" alignment (D3D12_RESOURCE_DESC), each buffer's size rounded up to it and placed
 *   one after the other (Info1 gives each its offset); no descs is {0, 1}; a desc that cannot be placed (not a buffer
 *   d12rt can create, an alignment other than 0 or 64 KiB, a size that overflows) makes SizeInBytes UINT64_MAX, with
 *   the debug layer's GETRESOURCEALLOCATIONINFO_INVALIDRDESCS naming it.
 * - footprints of a buffer (one subresource): Offset = BaseOffset, Format UNKNOWN, Width = Width, Height = Depth = 1,
 *   RowPitch = Width rounded up to D3D12_TEXTURE_DATA_PITCH_ALIGNMENT (256), one row of Width bytes, total Width.
 *   An invalid request (no desc, not a buffer, a subresource range past the one, BaseOffset not a multiple of
 *   D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT) sets every output it was given to all ones, with one message. Textures
 *   are refused as such until d12rt creates them. */
#include <stdint.h>
#include <string.h>

#include "d12_messages.h"
#include "device.h"
#include "resource.h"

#define BUFFER_ALIGNMENT ((UINT64)D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT)

/* The size `desc` takes in a heap (a multiple of 64 KiB), or UINT64_MAX with `why` when it cannot be placed. */
static UINT64 placed_size(const D3D12_RESOURCE_DESC *desc, const char **why)
{
    *why = d12__buffer_desc_problem(desc);
    if (!*why && desc->Alignment != 0 && desc->Alignment != BUFFER_ALIGNMENT)
        *why = "a buffer's Alignment is 0 or D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT (64 KiB)";
    if (!*why && desc->Width > UINT64_MAX - (BUFFER_ALIGNMENT - 1))
        *why = "Width rounded up to 64 KiB does not fit in 64 bits";
    return *why ? UINT64_MAX : (desc->Width + BUFFER_ALIGNMENT - 1) & ~(BUFFER_ALIGNMENT - 1);
}

static D3D12_RESOURCE_ALLOCATION_INFO allocation_info(struct d12_device *self, const char *method, UINT count,
                                                      const D3D12_RESOURCE_DESC *descs,
                                                      D3D12_RESOURCE_ALLOCATION_INFO1 *each)
{
    D3D12_RESOURCE_ALLOCATION_INFO total = {0, 1}; /* no descs: {0, 1}, as Windows answers */
    if (count && !descs) {
        d12__msg_getresourceallocationinfo_invalidrdescs(self->info_queue, method, 0, "pResourceDescs is NULL");
        return (D3D12_RESOURCE_ALLOCATION_INFO){UINT64_MAX, BUFFER_ALIGNMENT};
    }
    for (UINT i = 0; i < count; i++) {
        const char *why;
        UINT64 size = placed_size(&descs[i], &why);
        total.Alignment = BUFFER_ALIGNMENT;
        if (size == UINT64_MAX || total.SizeInBytes == UINT64_MAX || total.SizeInBytes > UINT64_MAX - size) {
            if (why && total.SizeInBytes != UINT64_MAX)
                d12__msg_getresourceallocationinfo_invalidrdescs(self->info_queue, method, i, why);
            else if (!why && total.SizeInBytes != UINT64_MAX)
                d12__msg_getresourceallocationinfo_invalidrdescs(self->info_queue, method, i,
                                                                 "the sizes together do not fit in 64 bits");
            total.SizeInBytes = UINT64_MAX;
            if (each)
                each[i] = (D3D12_RESOURCE_ALLOCATION_INFO1){UINT64_MAX, BUFFER_ALIGNMENT, UINT64_MAX};
            continue;
        }
        if (each)
            each[i] = (D3D12_RESOURCE_ALLOCATION_INFO1){total.SizeInBytes, BUFFER_ALIGNMENT, size};
        total.SizeInBytes += size;
    }
    return total;
}

D3D12_RESOURCE_ALLOCATION_INFO d12_device_GetResourceAllocationInfo(struct d12_device *self, UINT visibleMask,
                                                                    UINT numResourceDescs,
                                                                    const D3D12_RESOURCE_DESC *pResourceDescs)
{
    (void)visibleMask; /* one node: every mask names it or none, and buffers are placed the same either way */
    return allocation_info(self, "GetResourceAllocationInfo", numResourceDescs, pResourceDescs, NULL);
}

D3D12_RESOURCE_ALLOCATION_INFO d12_device_GetResourceAllocationInfo1(struct d12_device *self, UINT visibleMask,
                                                                     UINT numResourceDescs,
                                                                     const D3D12_RESOURCE_DESC *pResourceDescs,
                                                                     D3D12_RESOURCE_ALLOCATION_INFO1 *pInfo1)
{
    (void)visibleMask;
    return allocation_info(self, "GetResourceAllocationInfo1", numResourceDescs, pResourceDescs, pInfo1);
}

/* Every output the caller gave, all ones (the answer to an invalid request). */
static void footprints_invalid(UINT count, D3D12_PLACED_SUBRESOURCE_FOOTPRINT *layouts, UINT *rows, UINT64 *row_sizes,
                               UINT64 *total)
{
    for (UINT i = 0; i < count; i++) {
        if (layouts)
            memset(&layouts[i], 0xFF, sizeof layouts[i]);
        if (rows)
            rows[i] = UINT32_MAX;
        if (row_sizes)
            row_sizes[i] = UINT64_MAX;
    }
    if (total)
        *total = UINT64_MAX;
}

static void footprints(struct d12_device *self, const char *method, const D3D12_RESOURCE_DESC *desc, UINT first,
                       UINT count, UINT64 base, D3D12_PLACED_SUBRESOURCE_FOOTPRINT *layouts, UINT *rows,
                       UINT64 *row_sizes, UINT64 *total)
{
    const char *why = !desc ? "pResourceDesc is NULL" : d12__buffer_desc_problem(desc);
    if (why) {
        d12__msg_getcopyablefootprints_invaliddesc(self->info_queue, method, why);
    } else if (first > 1 || count > 1 - first) {
        d12__msg_getcopyablefootprints_invalidsubresourcerange(self->info_queue, method, first, count);
        why = "range";
    } else if (base % D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT) {
        d12__msg_getcopyablefootprints_invalidbaseoffset(self->info_queue, method, base);
        why = "offset";
    } else if (desc->Width > UINT32_MAX - (D3D12_TEXTURE_DATA_PITCH_ALIGNMENT - 1)) {
        /* Footprint.Width and RowPitch are UINTs: a wider buffer has no footprint (copies of it are by range). */
        d12__msg_getcopyablefootprints_invaliddesc(self->info_queue, method,
                                                   "a buffer's Width must fit a footprint's 32-bit RowPitch");
        why = "width";
    }
    if (why) {
        footprints_invalid(count, layouts, rows, row_sizes, total);
        return;
    }
    if (total)
        *total = count ? desc->Width : 0;
    if (!count)
        return;
    UINT width = (UINT)desc->Width;
    if (layouts) {
        layouts[0].Offset = base;
        layouts[0].Footprint = (D3D12_SUBRESOURCE_FOOTPRINT){
            DXGI_FORMAT_UNKNOWN, width, 1, 1,
            (width + D3D12_TEXTURE_DATA_PITCH_ALIGNMENT - 1) & ~(D3D12_TEXTURE_DATA_PITCH_ALIGNMENT - 1)};
    }
    if (rows)
        rows[0] = 1;
    if (row_sizes)
        row_sizes[0] = desc->Width;
}

void d12_device_GetCopyableFootprints(struct d12_device *self, const D3D12_RESOURCE_DESC *pResourceDesc,
                                      UINT FirstSubresource, UINT NumSubresources, UINT64 BaseOffset,
                                      D3D12_PLACED_SUBRESOURCE_FOOTPRINT *pLayouts, UINT *pNumRows,
                                      UINT64 *pRowSizeInBytes, UINT64 *pTotalBytes)
{
    footprints(self, "GetCopyableFootprints", pResourceDesc, FirstSubresource, NumSubresources, BaseOffset, pLayouts,
               pNumRows, pRowSizeInBytes, pTotalBytes);
}

void d12_device_GetCopyableFootprints1(struct d12_device *self, const D3D12_RESOURCE_DESC1 *pResourceDesc,
                                       UINT FirstSubresource, UINT NumSubresources, UINT64 BaseOffset,
                                       D3D12_PLACED_SUBRESOURCE_FOOTPRINT *pLayouts, UINT *pNumRows,
                                       UINT64 *pRowSizeInBytes, UINT64 *pTotalBytes)
{
    /* DESC1 is DESC plus SamplerFeedbackMipRegion, which a buffer leaves zero. */
    D3D12_RESOURCE_DESC desc;
    if (pResourceDesc)
        memcpy(&desc, pResourceDesc, sizeof desc);
    const char *method = "GetCopyableFootprints1";
    const D3D12_MIP_REGION *region = pResourceDesc ? &pResourceDesc->SamplerFeedbackMipRegion : NULL;
    if (region && (region->Width || region->Height || region->Depth)) {
        d12__msg_getcopyablefootprints_invaliddesc(self->info_queue, method,
                                                   "a buffer's SamplerFeedbackMipRegion is zero");
        footprints_invalid(NumSubresources, pLayouts, pNumRows, pRowSizeInBytes,
                           pTotalBytes);
        return;
    }
    footprints(self, method, pResourceDesc ? &desc : NULL, FirstSubresource, NumSubresources, BaseOffset, pLayouts,
               pNumRows, pRowSizeInBytes, pTotalBytes);
}
