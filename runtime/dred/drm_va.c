/* Version 2 of driver-reported messages: GPU virtual-address naming for pfnQueryGpuVaIdentityCb
 * (docs/driver-reported-messages-v2.md "Naming a GPU virtual address"), over DRED's allocation ledger
 * (runtime/dred/ledger.c: the live buffers and the ring of the 65 000 most recent frees), which it turns on for a
 * device where version 2 is enabled even when page-fault DRED is off. No second ledger.
 *
 *   live:                 0x<COM pointer>:'<name>' + 0x80
 *   past Width, or in the 64 KiB guard gap after a live allocation:   ... + 0x10000 (past its end)
 *   freed recently:       ... + 0x80 (released)       (the name it had at release)
 *   anything else:        DXGI_ERROR_NOT_FOUND ("an address that no allocation ever held")
 *
 * Called from the driver's pfnQueryGpuVaIdentityCb on any thread; takes only the ledger lock (a leaf), and the
 * object-data lock of a live resource under it, as DRED's report does. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "objtable.h"
#include "resource.h"

#define D12_DRM_VA_GUARD_GAP 0x10000ull /* the unmapped 64 KiB after every allocation (docs/dred-gpu.md) */

static char *with_offset(const void *api_object, const char *name, UINT64 offset, const char *suffix)
{
    char *identity = d12__format_identity(api_object, "ID3D12Resource", name);
    if (!identity)
        return NULL;
    int length = snprintf(NULL, 0, "%s + 0x%llX%s", identity, (unsigned long long)offset, suffix);
    char *out = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (out)
        snprintf(out, (size_t)length + 1, "%s + 0x%llX%s", identity, (unsigned long long)offset, suffix);
    free(identity);
    return out;
}

static HRESULT name_va(void *owner, UINT64 va, char **text)
{
    struct d12_device *device = owner;
    struct d12_dred *dred = device->dred;
    *text = NULL;
    if (!dred || !dred->freed)
        return DXGI_ERROR_NOT_FOUND;
    HRESULT hr = DXGI_ERROR_NOT_FOUND;
    pthread_mutex_lock(&dred->ledger_lock);
    const d12_dred_allocation *hit = NULL;
    for (const d12_dred_allocation *a = dred->live.next; a != &dred->live && !hit; a = a->next)
        if (va >= a->start && va - a->start < a->size + D12_DRM_VA_GUARD_GAP)
            hit = a; /* inside it, or in the gap that follows it */
    if (hit) {
        bool out_of_memory = false;
        char *name = d12__object_name_dup(&hit->resource->device_child.object, &out_of_memory);
        UINT64 offset = va - hit->start;
        *text = out_of_memory ? NULL
                              : with_offset(&hit->resource->com.resource, name, offset,
                                            offset >= hit->width ? " (past its end)" : "");
        free(name);
        hr = *text ? S_OK : E_OUTOFMEMORY;
    } else {
        uint64_t kept = dred->freed_total < D12_DRED_FREED_RING ? dred->freed_total : D12_DRED_FREED_RING;
        for (uint64_t k = 0; k < kept; k++) { /* the most recent free first */
            const d12_dred_freed *f = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
            if (va < f->start || va - f->start >= f->size)
                continue;
            char *name = f->name_w ? d12dred_utf8_from_wide(f->name_w) : f->name_a ? strdup(f->name_a) : NULL;
            bool named = name || (!f->name_w && !f->name_a);
            *text = named ? with_offset(f->object, name, va - f->start, " (released)") : NULL;
            free(name);
            hr = *text ? S_OK : E_OUTOFMEMORY;
            break;
        }
    }
    pthread_mutex_unlock(&dred->ledger_lock);
    return hr;
}

/* device.c, right after a successful enable: version 2 drivers get VA naming. */
void d12__drm_va_connect(struct d12_device *device)
{
    if (device->drm.version < D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 || !device->dred)
        return;
    if (!device->dred->freed && FAILED(d12__dred_ledger_init(device->dred)))
        return; /* out of memory: no naming (pfnQueryGpuVaIdentityCb answers E_INVALIDARG) */
    device->dred->va_names = true;
    d12__drm_set_va_namer(&device->drm, name_va, device);
}
