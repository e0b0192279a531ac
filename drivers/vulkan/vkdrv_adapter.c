/* The Vulkan driver's adapter: OpenAdapter12 creates the VkInstance (with the validation layer when
 * D12RT_VULKAN_VALIDATION or the application's registry asks for it: decided here, once), picks the physical device (D12RT_VULKAN_DEVICE), and
 * answers caps from the reference driver's `implemented` profile and format tables, limited by what the Vulkan
 * device offers and describing the device as it is (ARCHITECTURE). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12_envnum.h"
#include "drvcommon_adapter.h"
#include "vkdrv_compute.h"
#include "vkdrv_shader.h"

static d12__vkdrv_adapter *adapter_of(D3D12DDI_HADAPTER handle)
{
    return (d12__vkdrv_adapter *)handle.pDrvPrivate;
}

/* The profile's answer, then what the Vulkan device cannot do taken away: a D3D12 driver on Vulkan reports what
 * it can translate (vkd3d-proton derives the same OPTIONS fields from the same Vulkan features). */
/* UMA when the device is the CPU or integrated with it; cache-coherent UMA when, as well, one memory type is device
 * local, host visible, coherent and cached (vkd3d-proton decides the same from the same properties); a GPU's own
 * page tables make its MMU isolated. The H200 is a discrete GPU: not UMA. */
static void describe_architecture(const d12__vkdrv_adapter *adapter, BOOL *uma, BOOL *coherent, BOOL *isolated)
{
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(adapter->physical, &memory);
    VkPhysicalDeviceType type = adapter->properties.deviceType;
    const VkMemoryPropertyFlags all = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    *uma = type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    *coherent = FALSE;
    for (uint32_t i = 0; *uma && i < memory.memoryTypeCount; i++) {
        if ((memory.memoryTypes[i].propertyFlags & all) == all)
            *coherent = TRUE;
    }
    *isolated = TRUE;
}

static void fill_architecture(const d12__vkdrv_adapter *adapter, D3D12_FEATURE feature, void *data, UINT size)
{
    BOOL uma, coherent, isolated;
    describe_architecture(adapter, &uma, &coherent, &isolated);
    if (feature == D3D12_FEATURE_ARCHITECTURE && size >= sizeof(D3D12_FEATURE_DATA_ARCHITECTURE)) {
        D3D12_FEATURE_DATA_ARCHITECTURE *architecture = data;
        architecture->TileBasedRenderer = FALSE;
        architecture->UMA = uma;
        architecture->CacheCoherentUMA = coherent;
    } else if (feature == D3D12_FEATURE_ARCHITECTURE1 && size >= sizeof(D3D12_FEATURE_DATA_ARCHITECTURE1)) {
        D3D12_FEATURE_DATA_ARCHITECTURE1 *architecture = data;
        architecture->TileBasedRenderer = FALSE;
        architecture->UMA = uma;
        architecture->CacheCoherentUMA = coherent;
        architecture->IsolatedMMU = isolated;
    }
}

static HRESULT APIENTRY get_caps(D3D12DDI_HADAPTER handle, const D3D12DDIARG_GETCAPS *args)
{
    /* The adapter's identity: the Vulkan device's own PCI IDs (0x10DE NVIDIA; 0x10005, Mesa's Khronos-registered
     * vendor ID, on lavapipe), so a message's (VendorId, VendorMessageId) names the device that found it. */
    if (args && args->Type == D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY) {
        const VkPhysicalDeviceProperties *p = &adapter_of(handle)->properties;
        return d12__drv_adapter_identity(args, p->vendorID ? p->vendorID : D3D12DDI_D12RT_VENDOR_ID_UNKNOWN,
                                         p->deviceID);
    }
    if (!args || args->Type != D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA || !args->pInfo)
        return E_INVALIDARG;
    d12__vkdrv_adapter *adapter = adapter_of(handle);
    D3D12_FEATURE feature = *(const D3D12_FEATURE *)args->pInfo;
    if (feature == D3D12_FEATURE_D12RT_SHADER_EXECUTION) /* the application's shaders run when vkd3d-shader loads */
        return d12__drv_shader_execution(args, d12__vkdrv_shader_available());
    HRESULT hr = d12__refdrv_profile_fill(&adapter->profile, (UINT)feature, args->pData, args->DataSize);
    if (FAILED(hr))
        return hr;
    fill_architecture(adapter, feature, args->pData, args->DataSize);
    VkPhysicalDeviceFeatures features;
    vkGetPhysicalDeviceFeatures(adapter->physical, &features);
    if (feature == D3D12_FEATURE_D3D12_OPTIONS && args->DataSize >= sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS)) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS *options = args->pData;
        if (!features.shaderFloat64)
            options->DoublePrecisionFloatShaderOps = FALSE;
    } else if (feature == D3D12_FEATURE_D3D12_OPTIONS1 &&
               args->DataSize >= sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS1)) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS1 *options = args->pData;
        if (!features.shaderInt64)
            options->Int64ShaderOps = FALSE;
    }
    return S_OK;
}

static HRESULT APIENTRY get_supported_extended_features(D3D12DDI_HADAPTER adapter, UINT32 *entries,
                                                        D3D12DDI_FEATURE_0020 *features)
{
    (void)adapter;
    if (!entries)
        return E_INVALIDARG;
    if (features && *entries < 1)
        return D12_DRV_ERROR_INSUFFICIENT_BUFFER;
    if (features)
        features[0] = D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES;
    *entries = 1;
    return S_OK;
}

static HRESULT APIENTRY get_supported_extended_feature_versions(D3D12DDI_HADAPTER adapter,
                                                                D3D12DDI_FEATURE_0020 feature, UINT32 *entries,
                                                                UINT32 *versions)
{
    if (feature != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES)
        return E_INVALIDARG;
    /* D12RT_VULKAN_DRM=v1 lists the first version alone. */
    return d12__drv_copy_list(entries, versions, d12__drv_drm_versions, adapter_of(adapter)->drm_v1_only ? 1 : 2,
                              sizeof(UINT32));
}

static HRESULT APIENTRY fill_ddi_table(D3D12DDI_HADAPTER adapter, D3D12DDI_TABLE_TYPE type, void *table,
                                       SIZE_T size, UINT number, D3D12DDI_HRTTABLE rt_table)
{
    static const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 k_extended = {
        get_supported_extended_features, get_supported_extended_feature_versions,
        d12__vkdrv_enable_extended_feature};
    (void)rt_table;
    if (number != 0 || !table)
        return E_INVALIDARG;
    switch (type) {
    case D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES:
        return d12__drv_copy_table(table, size, &k_extended, sizeof k_extended);
    case D3D12DDI_TABLE_TYPE_DEVICE_CORE:
        return d12__drv_copy_table(table, size, &d12__vkdrv_device_core_funcs, sizeof d12__vkdrv_device_core_funcs);
    case D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D:
        return d12__drv_copy_list_table(table, size, &d12__vkdrv_command_list_funcs);
    case D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS:
        return d12__drv_copy_table(table, size, &d12__vkdrv_descriptor_funcs, sizeof d12__vkdrv_descriptor_funcs);
    case D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D:
        return d12__drv_copy_table(table, size, &d12__vkdrv_command_queue_funcs,
                                   sizeof d12__vkdrv_command_queue_funcs);
    case D3D12DDI_TABLE_TYPE_D12RT_HEAPS:
        return d12__drv_copy_table(table, size, &d12__vkdrv_heap_funcs, sizeof d12__vkdrv_heap_funcs);
    case D3D12DDI_TABLE_TYPE_D12RT_PIPELINES: /* the application's compute work (vkdrv_compute.h) */
        return d12__drv_copy_table(table, size, &d12__vkdrv_pipeline_funcs, sizeof d12__vkdrv_pipeline_funcs);
    case D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING:
        return d12__drv_copy_table(table, size, &d12__vkdrv_binding_funcs, sizeof d12__vkdrv_binding_funcs);
    case D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES:
        return d12__drv_copy_table(table, size, &d12__vkdrv_drm_funcs, sizeof d12__vkdrv_drm_funcs);
    case D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1:
        if (adapter_of(adapter)->drm_v1_only)
            return E_INVALIDARG; /* a version-1 driver has no version-2 table */
        return d12__drv_copy_table(table, size, &d12__vkdrv_drm1_funcs, sizeof d12__vkdrv_drm1_funcs);
    default:
        return E_INVALIDARG;
    }
}

/* D12RT_VULKAN_DRM=on|v1 (vkdrv.h): whether driver-reported messages are listed as version 1 alone. Anything else is
 * reported and means `on`, the driver's normal behaviour (as D12RT_REFDRV_DRM does in the reference driver). */
static bool drm_v1_only_from_environment(void)
{
    const char *mode = getenv("D12RT_VULKAN_DRM");
    if (!mode || !*mode || strcmp(mode, "on") == 0)
        return false;
    if (strcmp(mode, "v1") == 0)
        return true;
    fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_DRM=%s is not on or v1; using on\n", mode);
    return false;
}

static void free_adapter(d12__vkdrv_adapter *adapter)
{
    if (atomic_load(&adapter->abandoned_device)) {
        /* An abandoned device is the instance's child, and its messenger's user data is the adapter: all three are
         * left for process exit (vkdrv_stuck.c). */
        d12__vkdrv_validation_discard();
        return;
    }
    if (adapter->messenger)
        adapter->ext.destroy_messenger(adapter->instance, adapter->messenger, NULL);
    if (adapter->instance)
        vkDestroyInstance(adapter->instance, NULL);
    d12__vkdrv_validation_discard();
    d12__refdrv_profile_free(&adapter->profile);
    free(adapter);
}

static HRESULT APIENTRY close_adapter(D3D12DDI_HADAPTER handle)
{
    free_adapter(adapter_of(handle));
    return S_OK;
}

static bool has_instance_extension(const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceExtensionProperties(NULL, &count, NULL) != VK_SUCCESS)
        return false;
    VkExtensionProperties *all = calloc(count ? count : 1, sizeof *all);
    bool found = false;
    if (all && vkEnumerateInstanceExtensionProperties(NULL, &count, all) == VK_SUCCESS) {
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(all[i].extensionName, name) == 0;
    }
    free(all);
    return found;
}

static HRESULT create_instance(d12__vkdrv_adapter *adapter)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "d12rt",
                             .pEngineName = "libd12rt_vulkan",
                             .apiVersion = VK_API_VERSION_1_3};
    const char *extensions[1];
    uint32_t extension_count = 0;
    adapter->debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (adapter->debug_utils)
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app,
                                 .enabledExtensionCount = extension_count,
                                 .ppEnabledExtensionNames = extensions};
    VkValidationFeaturesEXT features;
    if (adapter->validation != D12_VKDRV_VALIDATION_OFF) {
        if (!adapter->debug_utils || !d12__vkdrv_validation_instance(adapter->validation, &info, &features)) {
            fprintf(stderr, "d12rt Vulkan driver: Vulkan validation %s (%s) needs VK_LAYER_KHRONOS_validation and "
                            "VK_EXT_debug_utils (apt install vulkan-validationlayers)\n",
                    d12__vkdrv_validation_name(adapter->validation), adapter->validation_source);
            return E_FAIL;
        }
    }
    VkResult result = vkCreateInstance(&info, NULL, &adapter->instance);
    if (result != VK_SUCCESS) {
        adapter->instance = VK_NULL_HANDLE;
        fprintf(stderr, "d12rt Vulkan driver: vkCreateInstance failed (%d)\n", (int)result);
        return E_FAIL;
    }
    if (adapter->debug_utils) {
        adapter->ext.create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            adapter->instance, "vkCreateDebugUtilsMessengerEXT");
        adapter->ext.destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            adapter->instance, "vkDestroyDebugUtilsMessengerEXT");
        adapter->ext.begin_label =
            (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(adapter->instance, "vkCmdBeginDebugUtilsLabelEXT");
        adapter->ext.end_label =
            (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(adapter->instance, "vkCmdEndDebugUtilsLabelEXT");
    }
    if (adapter->validation != D12_VKDRV_VALIDATION_OFF && adapter->ext.create_messenger) {
        VkDebugUtilsMessengerCreateInfoEXT messenger = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = d12__vkdrv_messenger,
            .pUserData = adapter};
        if (adapter->ext.create_messenger(adapter->instance, &messenger, NULL, &adapter->messenger) != VK_SUCCESS) {
            adapter->messenger = VK_NULL_HANDLE;
            return E_FAIL;
        }
    }
    return S_OK;
}

/* D12RT_VULKAN_DEVICE=N, else the first discrete GPU, else the first device; it must offer Vulkan 1.3
 * (synchronization2, timeline semaphores and vkCmdCopyBuffer2 are core there) and a queue with compute. */
static HRESULT pick_physical_device(d12__vkdrv_adapter *adapter)
{
    uint32_t count = 0;
    if (vkEnumeratePhysicalDevices(adapter->instance, &count, NULL) != VK_SUCCESS || !count) {
        fprintf(stderr, "d12rt Vulkan driver: no Vulkan device (is VK_DRIVER_FILES set, mesa-vulkan-drivers installed?)\n");
        return E_FAIL;
    }
    VkPhysicalDevice *devices = calloc(count, sizeof *devices);
    if (!devices)
        return E_OUTOFMEMORY;
    vkEnumeratePhysicalDevices(adapter->instance, &count, devices);
    uint32_t chosen = 0;
    uint64_t n = 0;
    d12_env_status given = d12_env_number("D12RT_VULKAN_DEVICE", "a device index", 0, count - 1, false, &n, stderr,
                                          "d12rt Vulkan driver", "the adapter does not open");
    if (given == D12_ENV_REFUSED) {
        free(devices);
        return E_INVALIDARG;
    }
    if (given == D12_ENV_NUMBER) {
        chosen = (uint32_t)n;
    } else {
        for (uint32_t i = 0; i < count; i++) {
            VkPhysicalDeviceProperties properties;
            vkGetPhysicalDeviceProperties(devices[i], &properties);
            if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
                chosen = i;
                break;
            }
        }
    }
    adapter->physical = devices[chosen];
    free(devices);
    vkGetPhysicalDeviceProperties(adapter->physical, &adapter->properties);
    vkGetPhysicalDeviceMemoryProperties(adapter->physical, &adapter->memory);
    if (adapter->properties.apiVersion < VK_API_VERSION_1_3) {
        fprintf(stderr, "d12rt Vulkan driver: %s offers Vulkan %u.%u; the driver needs 1.3\n",
                adapter->properties.deviceName, VK_API_VERSION_MAJOR(adapter->properties.apiVersion),
                VK_API_VERSION_MINOR(adapter->properties.apiVersion));
        return E_FAIL;
    }
    uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(adapter->physical, &families, NULL);
    VkQueueFamilyProperties *family = calloc(families ? families : 1, sizeof *family);
    if (!family)
        return E_OUTOFMEMORY;
    vkGetPhysicalDeviceQueueFamilyProperties(adapter->physical, &families, family);
    HRESULT hr = E_FAIL;
    for (uint32_t i = 0; i < families; i++) {
        if (family[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            adapter->queue_family = i;
            hr = S_OK;
            break;
        }
    }
    free(family);
    return hr;
}

HRESULT APIENTRY d12_vkdrv_OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    if (!args || !args->pAdapterFuncs)
        return E_INVALIDARG;
    d12__vkdrv_adapter *adapter = calloc(1, sizeof *adapter);
    if (!adapter)
        return E_OUTOFMEMORY;
    /* What d12rt implements, never D12RT_REFDRV_PROFILE: this driver's claims are what it implements and what its
     * VkPhysicalDevice offers (get_caps). */
    HRESULT hr = d12__refdrv_profile_load_implemented(&adapter->profile, stderr);
    if (FAILED(hr)) {
        free(adapter);
        return hr;
    }
    adapter->rt_adapter = args->hRTAdapter;
    d12__vkdrv_validation_decide(adapter, args->pAdapterCallbacks); /* vkdrv_messages.c */
    const char *strict = getenv("D12RT_VULKAN_VALIDATION_STRICT");
    adapter->strict = strict && strcmp(strict, "1") == 0;
    adapter->drm_v1_only = drm_v1_only_from_environment();
    hr = create_instance(adapter);
    if (SUCCEEDED(hr))
        hr = pick_physical_device(adapter);
    if (FAILED(hr)) {
        free_adapter(adapter);
        return hr;
    }
    const D3D12DDI_ADAPTERFUNCS funcs = {
        d12__vkdrv_calc_private_device_size, d12__vkdrv_create_device,        close_adapter,
        d12__drv_get_supported_versions,     get_caps,
        /* with the compute pair (vkdrv_compute.h): the application's compute shaders */
        d12__drv_get_optional_ddi_tables_compute, fill_ddi_table,             d12__vkdrv_destroy_device};
    *args->pAdapterFuncs = funcs;
    args->hAdapter.pDrvPrivate = adapter;
    return S_OK;
}

HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    return d12_vkdrv_OpenAdapter12(args);
}
