/* Version 2 of driver-reported messages in the Vulkan driver (docs/driver-reported-messages-v2.md, docs/vulkan.md),
 * as the reference driver implements it (drivers/reference/refdrv_device.c, refdrv_memory.c):
 *   - the validation mode, decided once when the adapter opens: D12RT_VULKAN_VALIDATION, else the application's
 *     registry value VulkanValidation (through the runtime's pfnQueryRegistryCb), else off;
 *   - SupportedFlags by that mode (GENERAL always; SYNCHRONIZATION when sync validation is loaded: sync, gpuav);
 *   - the version-2 table (pfnGetSupportedDriverReportedMessageFlags, pfnSetDriverReportedMessageFlags): a category
 *     that is off is filtered here, in the driver; a loaded layer still costs what it costs;
 *   - a validation message's category (its VUID names a synchronization hazard: SYNCHRONIZATION, else GENERAL);
 *   - GPU virtual addresses named through pfnQueryGpuVaIdentityCb ("0x...:'MyVB' + 0x80"), also for the buffers a
 *     validation message names. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_messages.h"
#include "vkdrv.h"

/* ---- The validation mode ---- */

static bool mode_from_name(const char *name, d12__vkdrv_validation *mode)
{
    static const char *const k_names[] = {"off", "core", "sync", "gpuav"};
    for (unsigned i = 0; i < sizeof k_names / sizeof k_names[0]; i++) {
        if (strcmp(name, k_names[i]) == 0) {
            *mode = (d12__vkdrv_validation)i;
            return true;
        }
    }
    return false;
}

/* "Decided once, when the adapter opens." The environment wins over the registry (docs/vulkan.md: a developer's
 * D12RT_VULKAN_VALIDATION in a shell is the nearer, more deliberate choice than a per-application default). A bad
 * value of either is a warning on stderr and off; a bad environment value does not fall back to the registry (the
 * developer asked for something: off is what they get, and the warning says why). */
void d12__vkdrv_validation_decide(d12__vkdrv_adapter *adapter, const D3D12DDI_D12RT_ADAPTERCALLBACKS *callbacks)
{
    adapter->validation = D12_VKDRV_VALIDATION_OFF;
    snprintf(adapter->validation_source, sizeof adapter->validation_source, "default");
    const char *env = getenv("D12RT_VULKAN_VALIDATION");
    if (env && *env) {
        if (mode_from_name(env, &adapter->validation))
            snprintf(adapter->validation_source, sizeof adapter->validation_source, "D12RT_VULKAN_VALIDATION");
        else
            fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_VALIDATION=%s is not off, core, sync or gpuav; "
                            "using off\n", env);
        return;
    }
    D3D12DDICB_D12RT_QUERYREGISTRY query = {.pValueName = D12_VKDRV_REGISTRY_VALIDATION};
    if (!callbacks || !callbacks->pfnQueryRegistryCb ||
        callbacks->pfnQueryRegistryCb(adapter->rt_adapter, &query) != S_OK)
        return; /* absent (or a runtime without the callback): off */
    const char *hive = query.Source == D3D12DDI_D12RT_REGISTRY_SOURCE_LOCAL_MACHINE ? "HKEY_LOCAL_MACHINE"
                                                                                    : "HKEY_CURRENT_USER";
    if (query.ValueType != D12_VKDRV_REG_DWORD || query.OutputDword > D12_VKDRV_VALIDATION_GPUAV) {
        fprintf(stderr, "d12rt Vulkan driver: the registry value %s (%s) is not a REG_DWORD 0 (off), 1 (core), "
                        "2 (sync) or 3 (gpuav): type %u, value %u; using off\n",
                D12_VKDRV_REGISTRY_VALIDATION, hive, query.ValueType, query.OutputDword);
        return;
    }
    adapter->validation = (d12__vkdrv_validation)query.OutputDword;
    snprintf(adapter->validation_source, sizeof adapter->validation_source, "registry %s, %s",
             D12_VKDRV_REGISTRY_VALIDATION, hive);
}

/* SupportedFlags "reflect what its validation mode loaded": GENERAL (the driver's own findings, core validation)
 * always; SYNCHRONIZATION where synchronization validation is loaded (sync, and gpuav, which loads it too). SHADER
 * is not advertised: GPU-assisted validation instruments the driver's own kernel (d12rt runs no application
 * shader), so what it could find is a driver bug, not an application's shader error. */
UINT d12__vkdrv_supported_drm_flags(const d12__vkdrv_adapter *adapter)
{
    UINT flags = D12_VKDRV_DRM_GENERAL;
    if (adapter->validation == D12_VKDRV_VALIDATION_SYNC || adapter->validation == D12_VKDRV_VALIDATION_GPUAV)
        flags |= D12_VKDRV_DRM_SYNCHRONIZATION;
    return flags;
}

/* A validation message's category: the layer's message id names a synchronization-validation finding
 * ("SYNC-HAZARD-READ-AFTER-WRITE", "SYNC-HAZARD-WRITE-AFTER-WRITE", ...): SYNCHRONIZATION; every other (core VUIDs,
 * GPU-AV, performance warnings): GENERAL. */
UINT d12__vkdrv_validation_category(const char *message_id_name)
{
    return message_id_name && strncmp(message_id_name, "SYNC-", 5) == 0 ? D12_VKDRV_DRM_SYNCHRONIZATION
                                                                         : D12_VKDRV_DRM_GENERAL;
}

/* ---- Feature version 2's table ---- */

static d12__vkdrv_device *device_of(D3D12DDI_HDEVICE handle)
{
    return (d12__vkdrv_device *)handle.pDrvPrivate;
}

static UINT APIENTRY get_supported_drm_flags(D3D12DDI_HDEVICE handle)
{
    return d12__vkdrv_supported_drm_flags(device_of(handle)->adapter);
}

/* Read by the recording and timeline threads with relaxed loads: a change applies to what is reported after it. */
static VOID APIENTRY set_drm_flags(D3D12DDI_HDEVICE handle, UINT flags)
{
    d12__vkdrv_device *device = device_of(handle);
    atomic_store_explicit(&device->drm_flags, flags & d12__vkdrv_supported_drm_flags(device->adapter),
                          memory_order_relaxed);
}

const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 d12__vkdrv_drm1_funcs = {get_supported_drm_flags,
                                                                                set_drm_flags};

/* ---- GPU virtual-address naming ---- */

char *d12__vkdrv_va_name(d12__vkdrv_device *device, UINT64 va)
{
    return d12__drv_va_name(&device->callbacks, device->rt_device, device->drm_version, va);
}

typedef struct vk_buffer_search {
    uint64_t handle;
    UINT64 va; /* 0: not found */
} vk_buffer_search;

/* A d12__drv_va_visit step: false (stop) at the live buffer whose VkBuffer is the one searched for. */
static bool match_vk_buffer(void *context, void *object)
{
    vk_buffer_search *search = context;
    const d12__vkdrv_buffer *buffer = object;
    if ((uint64_t)buffer->vk != search->handle)
        return true;
    search->va = buffer->va;
    return false;
}

/* The GPU VA of the live buffer whose VkBuffer is `handle` (0: none; a buffer already destroyed is not named). */
static UINT64 va_of_vk_buffer(d12__vkdrv_device *device, uint64_t handle)
{
    vk_buffer_search search = {handle, 0};
    d12__drv_va_visit(&device->va, 0, UINT64_MAX, match_vk_buffer, &search);
    return search.va;
}

/* A validation message with the D3D12 names of the buffers it names: "<layer text> [Buffers: 0x...:'B' + 0x0]".
 * The runtime is asked with no driver lock held. NULL: nothing to add (the caller reports the layer's text). */
char *d12__vkdrv_name_buffers(d12__vkdrv_device *device, const char *text, const uint64_t *buffers, unsigned count)
{
    char *names[D12_VKDRV_MAX_NAMED_OBJECTS] = {0};
    size_t extra = 0;
    unsigned named = 0;
    for (unsigned i = 0; i < count && i < D12_VKDRV_MAX_NAMED_OBJECTS; i++) {
        UINT64 va = va_of_vk_buffer(device, buffers[i]);
        if (va && (names[named] = d12__vkdrv_va_name(device, va)))
            extra += strlen(names[named++]) + 2;
    }
    char *out = NULL;
    if (named && (out = malloc(strlen(text) + extra + sizeof " [Buffers: ]"))) {
        char *p = out + sprintf(out, "%s [Buffers: ", text);
        for (unsigned i = 0; i < named; i++)
            p += sprintf(p, "%s%s", i ? ", " : "", names[i]);
        strcpy(p, "]");
    }
    for (unsigned i = 0; i < named; i++)
        free(names[i]);
    return out;
}
