/* Work that never completes (docs/vulkan.md, "Work that never completes"). Found on the lent H200: a kernel chunk
 * that read the real-fault probe (the null page) stalled there. The NVIDIA driver reported no VK_ERROR_DEVICE_LOST,
 * vkGetDeviceFaultInfoEXT answered VK_ERROR_UNKNOWN, the runtime's TDR removed the device as HUNG, and at device
 * destruction vkDeviceWaitIdle never returned: the process had to be killed. So:
 * - the driver takes such a device for lost itself: 5 s after removal (vkdrv_queue.c, LOST_WAIT_NS), or in
 *   real-fault mode as soon as a chunk whose kernel set its fault word (it then reads the probe, and nothing else
 *   can hold it) has not completed D12_VKDRV_STALL_NS later (d12__vkdrv_stall_decide, vkdrv_fault.c);
 * - a device taken for lost that way is abandoned: none of its Vulkan objects is destroyed any more, since the work
 *   that never completed may use any of them (destroying them is invalid usage, and waiting for it never ends);
 *   process exit frees them. The adapter's VkInstance is kept for the same reason.
 * - the test hook D12RT_VULKAN_TEST_STUCK=N makes the device's N-th queue submission also wait on a timeline
 *   semaphore nobody signals until device destruction, so lavapipe shows the same never-completing work
 *   (`vulkan.lost.stuck_*`). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "d12_envnum.h"
#include "vkdrv.h"

void d12__vkdrv_stuck_init(d12__vkdrv_device *device)
{
    d12__vkdrv_diag *diag = &device->diag;
    atomic_init(&diag->abandoned, false);
    atomic_init(&diag->submissions, 0);
    diag->stuck_at = 0;
    uint64_t n = 0;
    if (d12_env_number("D12RT_VULKAN_TEST_STUCK", "a submission number", 1, 1000000, false, &n, stderr,
                       "d12rt Vulkan driver", "ignored") != D12_ENV_NUMBER)
        return;
    VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
    if (vkCreateSemaphore(device->vk, &info, NULL, &diag->stuck_gate) != VK_SUCCESS) {
        diag->stuck_gate = VK_NULL_HANDLE;
        return;
    }
    diag->stuck_at = (unsigned)n;
}

/* On an abandoned device the hook's gate is opened, not destroyed: the stuck batch then completes on objects that are
 * never freed, so a Vulkan driver whose process exit waits for pending work (NVIDIA's, fourth H200 run) lets the
 * test end. Only the hook has a gate to open; work held by a real fault has none, and its process still needs
 * killing there (docs/vulkan.md, "Work that never completes"). */
void d12__vkdrv_stuck_fini(d12__vkdrv_device *device)
{
    VkSemaphore gate = device->diag.stuck_gate;
    device->diag.stuck_gate = VK_NULL_HANDLE;
    if (!gate)
        return;
    if (!d12__vkdrv_abandoned(device)) {
        vkDestroySemaphore(device->vk, gate, NULL);
        return;
    }
    VkSemaphoreSignalInfo open = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = gate, .value = 1};
    if (vkSignalSemaphore(device->vk, &open) == VK_SUCCESS)
        fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_TEST_STUCK: the stuck submission's gate is opened at "
                        "device destruction, so process exit does not wait on it\n");
}

bool d12__vkdrv_test_stuck_wait(d12__vkdrv_device *device, VkSemaphoreSubmitInfo *wait)
{
    d12__vkdrv_diag *diag = &device->diag;
    if (!diag->stuck_at ||
        atomic_fetch_add_explicit(&diag->submissions, 1, memory_order_relaxed) + 1 != diag->stuck_at)
        return false;
    *wait = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .semaphore = diag->stuck_gate,
                                    .value = 1, /* never signalled */
                                    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    return true;
}

void d12__vkdrv_abandon(d12__vkdrv_device *device)
{
    if (atomic_exchange(&device->diag.abandoned, true))
        return;
    atomic_store(&device->adapter->abandoned_device, true);
    fprintf(stderr, "d12rt Vulkan driver: work submitted to '%s' never completed and Vulkan reported no loss; the "
                    "device's Vulkan objects are left for process exit to free (destroying them would wait on that "
                    "work forever)\n",
            device->adapter->properties.deviceName);
}
