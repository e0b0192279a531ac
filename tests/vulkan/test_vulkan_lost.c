/* D12RT_VULKAN_REAL_FAULTS through libd12rt's public ABI (docs/vulkan.md, "Real faults"): the mode is on only on a
 * device with VK_EXT_device_fault's deviceFault; elsewhere (lavapipe) device creation writes one warning naming
 * the reason and the mode is off. The test asks Vulkan itself whether the device the driver picks offers the
 * feature, so it holds on lavapipe and on the lent H200 alike. `test_vulkan_lost CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "gpu_harness.h"

/* The device the driver picks by default (the first discrete GPU, else the first): does it offer deviceFault? */
static bool device_offers_fault(void)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    if (!CHECK(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS))
        return false;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, NULL);
    VkPhysicalDevice devices[16];
    if (count > 16)
        count = 16;
    vkEnumeratePhysicalDevices(instance, &count, devices);
    VkPhysicalDevice chosen = count ? devices[0] : VK_NULL_HANDLE;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[i], &properties);
        if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
            chosen = devices[i];
            break;
        }
    }
    bool offered = false;
    uint32_t extensions = 0;
    if (chosen && vkEnumerateDeviceExtensionProperties(chosen, NULL, &extensions, NULL) == VK_SUCCESS) {
        VkExtensionProperties *all = calloc(extensions ? extensions : 1, sizeof *all);
        if (all && vkEnumerateDeviceExtensionProperties(chosen, NULL, &extensions, all) == VK_SUCCESS) {
            for (uint32_t i = 0; i < extensions; i++)
                offered = offered || strcmp(all[i].extensionName, VK_EXT_DEVICE_FAULT_EXTENSION_NAME) == 0;
        }
        free(all);
    }
    if (offered) {
        VkPhysicalDeviceFaultFeaturesEXT fault = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT};
        VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &fault};
        vkGetPhysicalDeviceFeatures2(chosen, &features);
        offered = fault.deviceFault;
    }
    vkDestroyInstance(instance, NULL);
    return offered;
}

/* What device creation wrote on stderr with D12RT_VULKAN_REAL_FAULTS=value. */
static char *stderr_of_device_creation(const char *value)
{
    setenv("D12RT_VULKAN_REAL_FAULTS", value, 1);
    char path[] = "/tmp/d12rt-real-faults-XXXXXX";
    int file = mkstemp(path);
    if (!CHECK(file >= 0))
        return NULL;
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(file, STDERR_FILENO);
    ID3D12Device *device = create_device(false);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    CHECK(device != NULL);
    if (device)
        RELEASE_LAST(device);
    static char text[8192];
    ssize_t n = pread(file, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    close(file);
    unlink(path);
    fputs(text, stderr); /* shown in the test's log */
    return text;
}

static void test_real_faults_env(void)
{
    bool offered = device_offers_fault();
    const char *text = stderr_of_device_creation("1");
    if (!text)
        return;
    const char *warning = strstr(text, "D12RT_VULKAN_REAL_FAULTS=1 needs VK_EXT_device_fault with deviceFault");
    if (offered) {
        CHECK(warning == NULL);
    } else {
        CHECK(warning != NULL);
        CHECK(strstr(text, "real-fault mode off") != NULL);
    }
    printf("deviceFault %s\n", offered ? "offered: real-fault mode on" : "not offered: real-fault mode off");
}

static void test_real_faults_bad_value(void)
{
    const char *text = stderr_of_device_creation("yes");
    CHECK(text && strstr(text, "D12RT_VULKAN_REAL_FAULTS=yes is not 0 or 1; real-fault mode off"));
}

static void test_real_faults_off(void)
{
    const char *text = stderr_of_device_creation("0");
    CHECK(text && !strstr(text, "REAL_FAULTS"));
    text = stderr_of_device_creation("");
    CHECK(text && !strstr(text, "REAL_FAULTS"));
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"real_faults_env", test_real_faults_env},
    {"real_faults_bad_value", test_real_faults_bad_value},
    {"real_faults_off", test_real_faults_off},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_vulkan_lost CASE (unknown case)\n");
    return 2;
}
