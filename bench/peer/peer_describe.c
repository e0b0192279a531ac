/* What a peer worker runs on, in words, for d12bench's row descriptions (it prints them; static text would be
 * wrong on another machine): the implementation, its driver, and the Vulkan device that driver uses.
 *
 * - vkd3d: the VkPhysicalDevice vkd3d chose for the device (`vkd3d_get_vk_physical_device`, exported by libvkd3d,
 *   looked up at run time so that vkd3d's own header and its copy of the D3D12 declarations stay out), named by
 *   `vkGetPhysicalDeviceProperties` from the loader vkd3d opened.
 * - d12rt: the driver D12RT_DRIVER names (else the built-in reference driver, a CPU simulation). For the Vulkan
 *   driver the runtime offers no way to ask which device it opened, so the device is found here by the driver's
 *   documented rule (docs/vulkan.md; drivers/vulkan/vkdrv_adapter.c `pick_physical_device`: D12RT_VULKAN_DEVICE=N,
 *   else the first discrete GPU, else the first device) on an instance of our own over the same loader and ICDs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_rows.h"

#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#include <vulkan/vulkan.h>
#define PEER_HAVE_VULKAN 1
#endif
#endif

#ifdef PEER_HAVE_VULKAN
static void *loader(void)
{
    static void *handle;
    if (!handle)
        handle = dlopen("libvulkan.so.1", RTLD_NOW);
    return handle;
}

static void name_device(VkPhysicalDevice device, char *out, size_t size)
{
    PFN_vkGetPhysicalDeviceProperties properties_of =
        loader() ? (PFN_vkGetPhysicalDeviceProperties)dlsym(loader(), "vkGetPhysicalDeviceProperties") : NULL;
    if (!device || !properties_of) {
        snprintf(out, size, "an unknown Vulkan device");
        return;
    }
    VkPhysicalDeviceProperties p;
    properties_of(device, &p);
    snprintf(out, size, "Vulkan device '%.100s' (Vulkan %u.%u, driver version 0x%x)", p.deviceName,
             VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion), p.driverVersion);
}
#endif

#ifdef PEER_VKD3D
void peer_describe(void *d3d12_device, char *out, size_t size)
{
    char device[160] = "an unknown Vulkan device";
#ifdef PEER_HAVE_VULKAN
    VkPhysicalDevice (*physical_of)(void *) = (VkPhysicalDevice(*)(void *))dlsym(RTLD_DEFAULT,
                                                                               "vkd3d_get_vk_physical_device");
    if (physical_of)
        name_device(physical_of(d3d12_device), device, sizeof device);
#else
    (void)d3d12_device;
#endif
    snprintf(out, size, "vkd3d 1.2 on %.200s", device);
}
#else
#ifdef PEER_HAVE_VULKAN
/* The Vulkan driver's rule (see the top of this file), on an instance of our own. */
static void vulkan_driver_device(char *out, size_t size)
{
    snprintf(out, size, "an unknown Vulkan device");
    PFN_vkGetInstanceProcAddr gipa =
        loader() ? (PFN_vkGetInstanceProcAddr)dlsym(loader(), "vkGetInstanceProcAddr") : NULL;
    if (!gipa)
        return;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    if (!create || create(&info, NULL, &instance) != VK_SUCCESS)
        return;
    PFN_vkEnumeratePhysicalDevices enumerate =
        (PFN_vkEnumeratePhysicalDevices)gipa(instance, "vkEnumeratePhysicalDevices");
    PFN_vkGetPhysicalDeviceProperties properties_of =
        (PFN_vkGetPhysicalDeviceProperties)gipa(instance, "vkGetPhysicalDeviceProperties");
    PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(instance, "vkDestroyInstance");
    VkPhysicalDevice devices[16];
    uint32_t count = 16;
    if (enumerate && properties_of && enumerate(instance, &count, devices) >= 0 && count) {
        uint32_t chosen = 0;
        const char *text = getenv("D12RT_VULKAN_DEVICE");
        if (text && *text) {
            chosen = (uint32_t)strtoul(text, NULL, 10);
        } else {
            for (uint32_t i = 0; i < count; i++) {
                VkPhysicalDeviceProperties p;
                properties_of(devices[i], &p);
                if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
                    chosen = i;
                    break;
                }
            }
        }
        if (chosen < count)
            name_device(devices[chosen], out, size);
    }
    if (destroy)
        destroy(instance, NULL);
}
#endif

void peer_describe(void *d3d12_device, char *out, size_t size)
{
    (void)d3d12_device;
    const char *driver = getenv("D12RT_DRIVER");
    if (!driver || !*driver) {
        snprintf(out, size, "d12rt + the built-in reference driver (a CPU simulation, no Vulkan)");
        return;
    }
    char device[200] = "";
#ifdef PEER_HAVE_VULKAN
    if (strstr(driver, "vulkan"))
        vulkan_driver_device(device, sizeof device);
#endif
    const char *base = strrchr(driver, '/'); /* a path: its file name says which driver */
    snprintf(out, size, "d12rt + driver '%.40s'%s%.180s", base ? base + 1 : driver, *device ? " on " : "", device);
}
#endif
