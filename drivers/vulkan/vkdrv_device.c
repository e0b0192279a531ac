/* The Vulkan driver's device: a VkDevice with one VkQueue (shared by the device's d12 queues under queue_lock),
 * the memory types of the three heap types, and the driver-reported messages (found while recording: reported at
 * once; found on a timeline: held for the next flush, as the reference driver does). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_adapter.h"
#include "drvcommon_messages.h"
#include "vkdrv_compute.h"

static d12__vkdrv_device *device_of(D3D12DDI_HDEVICE handle)
{
    return (d12__vkdrv_device *)handle.pDrvPrivate;
}

SIZE_T APIENTRY d12__vkdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                    const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args)
{
    (void)adapter;
    (void)args;
    return sizeof(d12__vkdrv_device);
}

/* The first memory type with all of `want`, preferring one that also has `prefer`; UINT32_MAX: none. */
static uint32_t memory_type(const VkPhysicalDeviceMemoryProperties *memory, uint32_t allowed,
                            VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer)
{
    uint32_t fallback = UINT32_MAX;
    for (uint32_t i = 0; i < memory->memoryTypeCount; i++) {
        VkMemoryPropertyFlags flags = memory->memoryTypes[i].propertyFlags;
        if (!(allowed & (1u << i)) || (flags & want) != want)
            continue;
        if ((flags & prefer) == prefer)
            return i;
        if (fallback == UINT32_MAX)
            fallback = i;
    }
    return fallback;
}

static HRESULT create_vk_device(d12__vkdrv_device *device)
{
    d12__vkdrv_adapter *adapter = device->adapter;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = adapter->queue_family,
                                     .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkPhysicalDeviceVulkan13Features v13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                            .synchronization2 = VK_TRUE,
                                            .maintenance4 = VK_TRUE}; /* the kernel's SPIR-V 1.6 uses LocalSizeId */
    /* The kernels read through buffer device addresses with 64-bit arithmetic and a 64-bit atomicMin. */
    VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &v13,
                                            .timelineSemaphore = VK_TRUE,
                                            .bufferDeviceAddress = VK_TRUE,
                                            .shaderBufferInt64Atomics = VK_TRUE};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                          .pNext = &v12,
                                          .features = {.shaderInt64 = VK_TRUE}};
    /* The application's typed UAV loads and stores compile to format-less storage texel buffer accesses
     * (vkd3d-shader 1.2: docs/pipelines.md), where the device offers them. */
    VkPhysicalDeviceFeatures offered;
    vkGetPhysicalDeviceFeatures(adapter->physical, &offered);
    features.features.shaderStorageImageReadWithoutFormat = offered.shaderStorageImageReadWithoutFormat;
    features.features.shaderStorageImageWriteWithoutFormat = offered.shaderStorageImageWriteWithoutFormat;
    /* Device loss as DRED data (vkdrv_lost.c): VK_EXT_device_fault, NV checkpoints, AMD buffer markers where
     * offered. */
    d12__vkdrv_diag_request diag;
    d12__vkdrv_diag_query(adapter, &diag, &v13.pNext);
    /* Root views as push descriptors (vkdrv_rootsig.c) where the device offers them. */
    const char *names[sizeof diag.names / sizeof *diag.names + 1];
    memcpy(names, diag.names, diag.count * sizeof *names);
    uint32_t name_count = diag.count;
    device->push_descriptors = d12__vkdrv_push_descriptor_query(adapter->physical, &device->max_push_descriptors);
    if (device->push_descriptors)
        names[name_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                               .pNext = &features,
                               .queueCreateInfoCount = 1,
                               .pQueueCreateInfos = &queue,
                               .enabledExtensionCount = name_count,
                               .ppEnabledExtensionNames = names};
    VkResult result = vkCreateDevice(adapter->physical, &info, NULL, &device->vk);
    if (result != VK_SUCCESS) {
        fprintf(stderr, "d12rt Vulkan driver: vkCreateDevice failed (%d)\n", (int)result);
        device->vk = VK_NULL_HANDLE;
        return result == VK_ERROR_OUT_OF_HOST_MEMORY ? E_OUTOFMEMORY : E_FAIL;
    }
    vkGetDeviceQueue(device->vk, adapter->queue_family, 0, &device->queue);
    const VkPhysicalDeviceMemoryProperties *memory = &adapter->memory;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    /* DEFAULT: device-local (host-visible too where the device has such memory: then zeroing is a memset);
     * UPLOAD: host-visible and coherent, so Map's writes need no flush; READBACK: host-visible, cached where
     * offered (then invalidated before a fence is passed back when it is not coherent). */
    device->type_device = memory_type(memory, UINT32_MAX, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host);
    device->type_upload = memory_type(memory, UINT32_MAX, host | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
    device->type_readback = memory_type(memory, UINT32_MAX, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
                                                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (device->type_device == UINT32_MAX)
        device->type_device = device->type_upload;
    if (device->type_upload == UINT32_MAX || device->type_readback == UINT32_MAX) {
        vkDestroyDevice(device->vk, NULL);
        device->vk = VK_NULL_HANDLE;
        return E_FAIL;
    }
    device->readback_coherent =
        (memory->memoryTypes[device->type_readback].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    if (!d12__vkdrv_kernel_device_init(device)) {
        vkDestroyDevice(device->vk, NULL);
        device->vk = VK_NULL_HANDLE;
        return E_OUTOFMEMORY;
    }
    if (!d12__vkdrv_diag_init(device, &diag)) {
        d12__vkdrv_kernel_device_fini(device);
        vkDestroyDevice(device->vk, NULL);
        device->vk = VK_NULL_HANDLE;
        return E_OUTOFMEMORY;
    }
    return S_OK;
}

HRESULT APIENTRY d12__vkdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args)
{
    if (!args || !args->hDrvDevice.pDrvPrivate || !args->p12UMCallbacks || !args->p12UMCallbacks->pfnSetErrorCb)
        return E_INVALIDARG;
    d12__vkdrv_device *device = device_of(args->hDrvDevice);
    memset(device, 0, sizeof *device);
    device->adapter = (d12__vkdrv_adapter *)adapter.pDrvPrivate;
    device->rt_device = args->hRTDevice;
    atomic_init(&device->copy_ps, D12_VKDRV_DEFAULT_COPY_PS);
    atomic_init(&device->kernel_ps, D12_VKDRV_DEFAULT_KERNEL_PS);
    d12__drv_copy_callbacks(args, &device->callbacks, &device->kt, &device->has_kt, &device->has_0127);
    if (!(device->pending = d12__drv_pending_new()))
        return E_OUTOFMEMORY;
    if (pthread_mutex_init(&device->queue_lock, NULL) != 0) {
        d12__drv_pending_free(device->pending);
        return E_OUTOFMEMORY;
    }
    if (pthread_mutex_init(&device->cache_lock, NULL) != 0) {
        pthread_mutex_destroy(&device->queue_lock);
        d12__drv_pending_free(device->pending);
        return E_OUTOFMEMORY;
    }
    HRESULT hr = d12__vkdrv_va_init(&device->va) ? create_vk_device(device) : E_OUTOFMEMORY;
    if (FAILED(hr)) {
        d12__drv_va_fini(&device->va);
        pthread_mutex_destroy(&device->cache_lock);
        pthread_mutex_destroy(&device->queue_lock);
        d12__drv_pending_free(device->pending);
        device->pending = NULL;
    }
    d12__vkdrv_validation_drain(device, false); /* what the layer said about the device's creation */
    return hr;
}

/* Every queue, list, allocator and resource is gone (the runtime destroyed them first); the buffers and pools
 * that recordings still held were released when their submissions completed, since queue destruction joins the
 * timeline after its last submission. */
VOID APIENTRY d12__vkdrv_destroy_device(D3D12DDI_HDEVICE handle)
{
    d12__vkdrv_device *device = device_of(handle);
    if (device->vk) {
        bool abandoned = d12__vkdrv_abandoned(device); /* then waiting would never end (vkdrv_stuck.c) */
        if (!abandoned)
            vkDeviceWaitIdle(device->vk); /* VK_ERROR_DEVICE_LOST after a loss: destroying is still allowed */
        d12__vkdrv_cache_drain(device);
        d12__vkdrv_kernel_device_fini(device);
        if (!abandoned)
            d12__vkdrv_cs_device_fini(device);
        d12__vkdrv_stuck_fini(device);
        d12__vkdrv_diag_fini(device);
        if (!abandoned)
            vkDestroyDevice(device->vk, NULL);
    }
    d12__vkdrv_validation_drain(device, false);
    d12__drv_pending_free(device->pending);
    d12__drv_va_fini(&device->va);
    pthread_mutex_destroy(&device->cache_lock);
    pthread_mutex_destroy(&device->queue_lock);
    memset(device, 0, sizeof *device);
}

HRESULT APIENTRY d12__vkdrv_enable_extended_feature(D3D12DDI_HDEVICE handle, D3D12DDI_FEATURE_0020 feature,
                                                    UINT32 version)
{
    d12__vkdrv_device *device = device_of(handle);
    if (feature != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES ||
        (version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 &&
         (version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 || device->adapter->drm_v1_only)) ||
        !device->callbacks.pfnReportMessageCb)
        return E_INVALIDARG;
    /* Version 1 has no categories: everything the mode loaded is reported. Version 2 starts with every supported
     * category on ("what SetEnableDriverReportedMessages(TRUE) means today"). */
    device->drm_version = version;
    atomic_store_explicit(&device->drm_flags, d12__vkdrv_supported_drm_flags(device->adapter), memory_order_relaxed);
    device->drm_enabled = true;
    /* "exactly one message ... before EnableExtendedFeature returns": the initialization message; the
     * validation mode's INFO message comes with the device's first object (d12__vkdrv_report_mode). */
    HRESULT hr = d12__drv_report_initialization(&device->callbacks, device->rt_device);
    if (FAILED(hr))
        fprintf(stderr, "d12rt Vulkan driver: the runtime rejected the initialization message (0x%08X)\n",
                (unsigned)hr);
    return S_OK;
}

/* The one INFO message naming the validation mode (decided when the adapter opened), from the first object creation
 * after the feature was enabled: the enable call itself may report only the initialization message. */
void d12__vkdrv_report_mode(d12__vkdrv_device *device)
{
    if (device->adapter->validation == D12_VKDRV_VALIDATION_OFF || !device->drm_enabled ||
        atomic_exchange_explicit(&device->mode_reported, true, memory_order_relaxed))
        return;
    d12__vkdrv_report_now(device, D12_VKDRV_MSG_VALIDATION_MODE, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
                          D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION, D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126,
                          "Vulkan validation: %s (%s) on %s.", d12__vkdrv_validation_name(device->adapter->validation),
                          device->adapter->validation_source, device->adapter->properties.deviceName);
}

void d12__vkdrv_report_category_now(d12__vkdrv_device *device, UINT category, UINT64 id,
                                    D3D12DDI_MESSAGE_SEVERITY_0126 severity, D3D12DDI_MESSAGE_CATEGORY_0126 kind,
                                    UINT32 state_index, const char *text)
{
    if (!d12__vkdrv_reporting(device, category)) /* v2: a category that is off is filtered here */
        return;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message = {id, severity, kind, text, state_index};
    device->callbacks.pfnReportMessageCb(device->rt_device, &message);
}

/* Out of memory, the finding is lost (drivers/common/drvcommon_messages.h). */
void d12__vkdrv_report_category_later(d12__vkdrv_device *device, UINT category, UINT64 id,
                                      D3D12DDI_MESSAGE_SEVERITY_0126 severity, D3D12DDI_MESSAGE_CATEGORY_0126 kind,
                                      UINT32 state_index, const char *text)
{
    if (!d12__vkdrv_reporting(device, category))
        return;
    d12__drv_pending_add(device->pending, id, severity, kind, state_index, text);
}

/* The driver's own findings: GENERAL, as all of the reference driver's. */
void d12__vkdrv_report_now(d12__vkdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                           D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *format, ...)
{
    if (!d12__vkdrv_reporting(device, D12_VKDRV_DRM_GENERAL))
        return;
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    d12__vkdrv_report_category_now(device, D12_VKDRV_DRM_GENERAL, id, severity, category, state_index, text);
}

void d12__vkdrv_report_later(d12__vkdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                             D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *format, ...)
{
    if (!d12__vkdrv_reporting(device, D12_VKDRV_DRM_GENERAL))
        return;
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    d12__vkdrv_report_category_later(device, D12_VKDRV_DRM_GENERAL, id, severity, category, state_index, text);
}

static VOID APIENTRY flush_driver_reported_messages(D3D12DDI_HDEVICE handle)
{
    d12__vkdrv_device *device = device_of(handle);
    d12__drv_pending_flush(device->pending, &device->callbacks, device->rt_device);
}

static VOID APIENTRY set_command_list_state_index(D3D12DDI_HCOMMANDLIST command_list, UINT32 index)
{
    ((d12__vkdrv_command_list *)command_list.pDrvPrivate)->state_index = index;
}

bool d12__vkdrv_run_once(d12__vkdrv_device *device, void (*record)(VkCommandBuffer cb, void *context),
                         void *context)
{
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                         .queueFamilyIndex = device->adapter->queue_family};
    VkCommandPool pool;
    if (vkCreateCommandPool(device->vk, &pool_info, NULL, &pool) != VK_SUCCESS)
        return false;
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VkCommandBuffer cb;
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    bool ok = vkAllocateCommandBuffers(device->vk, &alloc, &cb) == VK_SUCCESS &&
              vkCreateFence(device->vk, &fence_info, NULL, &fence) == VK_SUCCESS;
    if (ok) {
        VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        vkBeginCommandBuffer(cb, &begin);
        record(cb, context);
        vkEndCommandBuffer(cb);
        VkCommandBufferSubmitInfo cb_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                             .commandBuffer = cb};
        VkSubmitInfo2 submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                                .commandBufferInfoCount = 1,
                                .pCommandBufferInfos = &cb_info};
        VkResult result = VK_ERROR_DEVICE_LOST;
        if (!d12__vkdrv_is_lost(device)) {
            pthread_mutex_lock(&device->queue_lock);
            result = vkQueueSubmit2(device->queue, 1, &submit, fence);
            pthread_mutex_unlock(&device->queue_lock);
            /* Bounded (a fill of one buffer): a device that never completes it is taken for lost. */
            if (result == VK_SUCCESS && (result = vkWaitForFences(device->vk, 1, &fence, VK_TRUE,
                                                                  5000000000ull)) == VK_TIMEOUT) {
                d12__vkdrv_abandon(device);
                result = VK_ERROR_DEVICE_LOST;
            }
            if (result == VK_ERROR_DEVICE_LOST)
                d12__vkdrv_device_lost(device, NULL, "vkQueueSubmit2 or vkWaitForFences (buffer zeroing)", false);
        }
        ok = result == VK_SUCCESS;
    }
    if (d12__vkdrv_abandoned(device))
        return false; /* the fence and the pool may belong to the work that never completed */
    if (fence)
        vkDestroyFence(device->vk, fence, NULL);
    vkDestroyCommandPool(device->vk, pool, NULL);
    return ok;
}

const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__vkdrv_drm_funcs = {
    flush_driver_reported_messages, set_command_list_state_index};

const D3D12DDI_DEVICE_FUNCS_CORE_0126 d12__vkdrv_device_core_funcs = {
    d12__vkdrv_calc_private_queue_size,     d12__vkdrv_create_queue,       d12__vkdrv_destroy_queue,
    d12__vkdrv_calc_private_allocator_size, d12__vkdrv_create_allocator,   d12__vkdrv_destroy_allocator,
    d12__vkdrv_reset_allocator,             d12__vkdrv_calc_private_list_size, d12__vkdrv_create_list,
    d12__vkdrv_destroy_list,                d12__vkdrv_calc_private_resource_size, d12__vkdrv_create_resource,
    d12__vkdrv_destroy_resource,            d12__vkdrv_map_resource,       d12__vkdrv_unmap_resource,
    d12__vkdrv_resource_gpu_va,
};
