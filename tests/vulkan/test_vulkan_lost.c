/* Device loss through libd12rt's public ABI (docs/vulkan.md, "Device loss", "Real faults"):
 * - D12RT_VULKAN_REAL_FAULTS: on only on a device with VK_EXT_device_fault's deviceFault; elsewhere (lavapipe)
 *   device creation writes one warning naming the reason and the mode is off. The test asks Vulkan itself whether
 *   the device the driver picks offers the feature, so it holds on lavapipe and on the lent H200 alike.
 * - the loss path end to end with the test hook D12RT_VULKAN_TEST_DEVICE_LOST=N (the device's N-th completed wait
 *   reports VK_ERROR_DEVICE_LOST): the device is removed, the op in flight is named, queued work never runs.
 * - work that never completes, with the test hook D12RT_VULKAN_TEST_STUCK=N (the device's N-th submission waits on a
 *   semaphore nobody signals; vkdrv_stuck.c): the TDR removes the device, the driver takes it for lost 5 s later,
 *   abandons its Vulkan objects, and every release returns (the H200 showed a stalled kernel that made
 *   vkDeviceWaitIdle wait forever).
 * `test_vulkan_lost CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "d12rt/d3d12_ext.h"
#include "gpu_harness.h"
#include "stderr_capture.h"

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
    stderr_capture capture;
    if (!CHECK(stderr_capture_begin(&capture)))
        return NULL;
    ID3D12Device *device = create_device(false);
    static char text[8192];
    stderr_capture_end(&capture, text, sizeof text);
    CHECK(device != NULL);
    if (device)
        RELEASE_LAST(device);
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
        CHECK(strstr(text, "real-fault mode on") != NULL); /* it names the probe and the loss records there are */
        CHECK(strstr(text, "dereferences the null page") != NULL);
    } else {
        CHECK(strstr(text, "real-fault mode on") == NULL);
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

static void fill_bytes(ID3D12Resource *buffer, size_t size, unsigned char seed)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(seed + i);
    ID3D12Resource_Unmap(buffer, 0, NULL);
}

static unsigned char first_byte(ID3D12Resource *buffer)
{
    unsigned char *data = NULL, value = 0xEE;
    if (CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK) && data)
        value = data[0];
    ID3D12Resource_Unmap(buffer, 0, NULL);
    return value;
}

/* A copy, a draw, a copy; the second wait (the draw's kernel chunk) reports the loss. With DRED on (breadcrumbs,
 * page faults) and driver-reported messages: removal HUNG with DRED state FAULT (no address: lavapipe has no
 * VK_EXT_device_fault), the CORRUPTION message on the draw naming the record that chose it (the only submission in
 * flight held one op), the copy before it done and the one after it never run. */
static void test_lost_names_draw(void)
{
    setenv("D12RT_VULKAN_TEST_DEVICE_LOST", "2", 1);
    ID3D12DeviceRemovedExtendedDataSettings2 *settings = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&settings), S_OK))
        return;
    ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(settings, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(settings, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_Release(settings);
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource *vertices = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    ID3D12Resource *before = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *after = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    fill_bytes(src, 256, 7);
    D3D12_VERTEX_BUFFER_VIEW vb = {ID3D12Resource_GetGPUVirtualAddress(vertices), 4096, 16};
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, before, 0, src, 0, 256);
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &vb);
    /* 300 000 invocations: too many to be recorded inline (D12_VKDRV_INLINE_MAX_INVOCATIONS), so the draw is a
     * submission of its own between the copies' two, and the second wait is the draw's */
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 100000, 0, 0);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, after, 0, src, 0, 256);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    ctx.value++;
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, ctx.value), S_OK);
    CHECK(wait_fence(ctx.fence, UINT64_MAX)); /* removal sets every fence to UINT64_MAX */
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
    ID3D12DeviceRemovedExtendedData2 *dred = NULL;
    if (CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData2, (void **)&dred), S_OK)) {
        CHECK_EQ_INT(ID3D12DeviceRemovedExtendedData2_GetDeviceState(dred), D3D12_DRED_DEVICE_STATE_FAULT);
        D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 out = {0};
        CHECK_HR(ID3D12DeviceRemovedExtendedData2_GetAutoBreadcrumbsOutput1(dred, &out), S_OK);
        /* The copy completed, the draw did not (its MARKER_OUT was never recorded into the chunk). */
        CHECK(out.pHeadAutoBreadcrumbNode && out.pHeadAutoBreadcrumbNode->pLastBreadcrumbValue &&
              *out.pHeadAutoBreadcrumbNode->pLastBreadcrumbValue == 1);
        ID3D12DeviceRemovedExtendedData2_Release(dred);
    }
    CHECK(check_one_message(iq, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE,
                            "[Draw #0] The GPU faulted with no faulting address. The device was lost "
                            "(VK_ERROR_DEVICE_LOST from vkWaitForFences). The op is named by submission: the only "
                            "submission in flight held one op.",
                            __FILE__, __LINE__, "the loss"));
    CHECK_EQ_INT(first_byte(before), 7);
    CHECK_EQ_INT(first_byte(after), 0);
    RELEASE_LAST(src);
    RELEASE_LAST(vertices);
    RELEASE_LAST(before);
    RELEASE_LAST(after);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A copy into a READBACK buffer, executed, signalled and waited for; `text` gets what the driver wrote on stderr
 * meanwhile, including the releases of every object. Returns the removal reason (S_OK: not removed). */
static HRESULT copy_and_release(unsigned char *copied, char *text, size_t size, long long *release_ms)
{
    stderr_capture capture;
    if (!CHECK(stderr_capture_begin(&capture)))
        return E_FAIL;
    HRESULT reason = E_FAIL;
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (device && make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx)) {
        ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
        ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
        fill_bytes(src, 256, 7);
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, src, 0, 256);
        CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
        execute(ctx.queue, ctx.list);
        ctx.value++;
        /* The loss may already have removed the device: the queue's thread runs ahead of this one. */
        HRESULT hr = ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, ctx.value);
        CHECK(hr == S_OK || hr == DXGI_ERROR_DEVICE_REMOVED);
        CHECK(wait_fence(ctx.fence, ctx.value)); /* reached, or UINT64_MAX at removal */
        reason = ID3D12Device_GetDeviceRemovedReason(device);
        *copied = first_byte(dst);
        long long start = now_ms();
        RELEASE_LAST(src);
        RELEASE_LAST(dst);
        release_context(&ctx);
        RELEASE_LAST(device);
        *release_ms = now_ms() - start;
    }
    stderr_capture_end(&capture, text, size);
    return reason;
}

/* The first submission never completes: removed by the TDR (HUNG), the copy never ran, the driver took the device
 * for lost 5 s after removal and abandoned its objects, releasing everything returned, and the hook's gate was
 * opened at destruction. */
static void test_stuck_submission(void)
{
    setenv("D12RT_VULKAN_TEST_STUCK", "1", 1);
    setenv("D12RT_TDR_DELAY_MS", "300", 1);
    static char text[16384];
    unsigned char copied = 0xEE;
    long long release_ms = -1;
    CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), DXGI_ERROR_DEVICE_HUNG);
    CHECK_EQ_INT(copied, 0); /* READBACK memory starts zeroed; the copy never ran */
    CHECK(strstr(text, "the driver took the device for lost: no completion 5 s after removal; Vulkan reported nothing") !=
          NULL);
    CHECK(strstr(text, "VK_ERROR_DEVICE_LOST") == NULL); /* Vulkan never said so */
    CHECK(strstr(text, "never completed and Vulkan reported no loss; the device's Vulkan objects are left for "
                       "process exit to free") != NULL);
    /* The hook's gate is opened at destruction (the NVIDIA driver's exit would wait on the stuck batch). */
    CHECK(strstr(text, "the stuck submission's gate is opened at device destruction") != NULL);
    /* Bounded: the queue's destruction joins a timeline that gives up 5 s after removal, nothing waits longer. */
    CHECK(release_ms >= 0 && release_ms < 20000);
    printf("releases took %lld ms\n", release_ms);
}

/* With D12RT_VULKAN_TEST_STUCK=value the copy completes and nothing is abandoned; what the driver wrote is returned. */
static const char *copy_completes_with(const char *value)
{
    setenv("D12RT_VULKAN_TEST_STUCK", value, 1);
    static char text[16384];
    unsigned char copied = 0xEE;
    long long release_ms = -1;
    CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), S_OK);
    CHECK_EQ_INT(copied, 7);
    CHECK(strstr(text, "left for process exit") == NULL);
    CHECK(strstr(text, "gate is opened") == NULL); /* not abandoned: the gate is destroyed, not opened */
    return text;
}

/* Positive and negative of the hook: a value that is no count is reported and ignored, the copy runs. */
static void test_stuck_bad_value(void)
{
    CHECK(strstr(copy_completes_with("soon"), "D12RT_VULKAN_TEST_STUCK=soon is not a submission number from 1 to 1000000; ignored") != NULL);
}

/* The hook's count: the second submission is the stuck one, so a first copy on its own completes. */
static void test_stuck_later(void)
{
    copy_completes_with("2");
}

/* Issue 29: D12RT_VULKAN_FAULT_LOG naming a FIFO with no reader hung device loss (fopen blocked), then queue
 * release, for ever. The loss is reported, the record stays on stderr with one line saying why the log was refused,
 * and every release returns (alarm: a hang fails the test instead of running to ctest's timeout). */
static void test_fault_log_fifo(void)
{
    char dir[] = "/tmp/d12_faultlog_XXXXXX", path[64];
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (!CHECK(mkfifo(path, 0600) == 0))
        return;
    setenv("D12RT_VULKAN_FAULT_LOG", path, 1);
    setenv("D12RT_VULKAN_TEST_DEVICE_LOST", "1", 1);
    alarm(60);
    static char text[16384];
    unsigned char copied = 0xEE;
    long long release_ms = -1;
    CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), DXGI_ERROR_DEVICE_HUNG);
    alarm(0);
    CHECK(strstr(text, "VK_ERROR_DEVICE_LOST from") != NULL); /* the record, on stderr */
    char expected[160];
    snprintf(expected, sizeof expected, "D12RT_VULKAN_FAULT_LOG=%s: a FIFO with no reader; the record is on stderr only",
             path);
    if (!CHECK(strstr(text, expected) != NULL))
        fprintf(stderr, "    stderr was:\n%s", text);
    unlink(path);
    rmdir(dir);
}

/* The positive pair: a regular file gets the record appended (what was there stays). */
static void test_fault_log_file(void)
{
    char path[] = "/tmp/d12_faultlog_XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0))
        return;
    CHECK(write(fd, "before\n", 7) == 7);
    close(fd);
    setenv("D12RT_VULKAN_FAULT_LOG", path, 1);
    setenv("D12RT_VULKAN_TEST_DEVICE_LOST", "1", 1);
    static char text[16384];
    unsigned char copied = 0xEE;
    long long release_ms = -1;
    CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), DXGI_ERROR_DEVICE_HUNG);
    char log[8192] = "";
    FILE *file = fopen(path, "r");
    if (CHECK(file != NULL)) {
        log[fread(log, 1, sizeof log - 1, file)] = '\0';
        fclose(file);
    }
    static const char prefix[] = "before\nd12rt Vulkan driver: VK_ERROR_DEVICE_LOST from ";
    CHECK(strncmp(log, prefix, sizeof prefix - 1) == 0);
    CHECK(strstr(log, "  verdict: ") != NULL);
    CHECK(strstr(text, "D12RT_VULKAN_FAULT_LOG=") == NULL); /* no refusal line */
    unlink(path);
}

/* Issue 29: D12RT_VULKAN_TEST_DEVICE_LOST=4294967297 read as 1 (strtoul cast to 32 bits) and lost the device on its
 * first wait. Out of range: one line, the hook off, the copy completes; 18446744073709551616 (past 64 bits) too. */
static void test_device_lost_overflow(void)
{
    static const char *const values[] = {"4294967297", "18446744073709551616", "-1", " 1", "1x"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        setenv("D12RT_VULKAN_TEST_DEVICE_LOST", values[i], 1);
        static char text[16384];
        unsigned char copied = 0xEE;
        long long release_ms = -1;
        CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), S_OK);
        CHECK_EQ_INT(copied, 7);
        char expected[160];
        snprintf(expected, sizeof expected,
                 "d12rt Vulkan driver: D12RT_VULKAN_TEST_DEVICE_LOST=%s is not a wait number (0: off) from 0 to "
                 "4294967295; ignored\n", values[i]);
        if (!CHECK(strstr(text, expected) != NULL))
            fprintf(stderr, "    value %s, stderr was:\n%s", values[i], text);
    }
}

/* The largest value in range is taken (no loss within one wait), silently. */
static void test_device_lost_max(void)
{
    setenv("D12RT_VULKAN_TEST_DEVICE_LOST", "4294967295", 1);
    static char text[16384];
    unsigned char copied = 0xEE;
    long long release_ms = -1;
    CHECK_HR(copy_and_release(&copied, text, sizeof text, &release_ms), S_OK);
    CHECK_EQ_INT(copied, 7);
    CHECK(strstr(text, "D12RT_VULKAN_TEST_DEVICE_LOST") == NULL);
}

/* D12RT_VULKAN_TEST_STUCK past 64 bits: refused, not saturated to a huge count. */
static void test_stuck_overflow(void)
{
    CHECK(strstr(copy_completes_with("18446744073709551617"),
                 "D12RT_VULKAN_TEST_STUCK=18446744073709551617 is not a submission number from 1 to 1000000; ignored") !=
          NULL);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"fault_log_fifo", test_fault_log_fifo},
    {"fault_log_file", test_fault_log_file},
    {"device_lost_overflow", test_device_lost_overflow},
    {"device_lost_max", test_device_lost_max},
    {"stuck_overflow", test_stuck_overflow},
    {"stuck_submission", test_stuck_submission},
    {"stuck_bad_value", test_stuck_bad_value},
    {"stuck_later", test_stuck_later},
    {"lost_names_draw", test_lost_names_draw},
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
