/* Pipeline states and shader execution through the public API (issue 31; docs/pipelines.md), on whichever driver
 * D12RT_DRIVER names (tests/pipelines/CMakeLists.txt runs each case on the drivers it is meant for).
 *
 *   test_pipelines CASE
 *     executes_false        CheckFeatureSupport(D3D12_FEATURE_D12RT_SHADER_EXECUTION) is FALSE (the reference driver;
 *                           the Vulkan driver without vkd3d-shader, which says so once on stderr)
 *     executes_true         ... is TRUE (the Vulkan driver with vkd3d-shader), and CheckFeatureSupport1 agrees
 *     executes_bad_size     a NULL pointer or a size other than the struct's: E_INVALIDARG and the message
 *
 * Ends with "N passed, N failed". */
#define COBJMACROS
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12rt/d3d12_ext.h"

#include "case_main.h"
#include "vulkan/stderr_capture.h"

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;

static int setup(void)
{
    ID3D12Debug *debug = NULL;
    if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))) {
        ID3D12Debug_EnableDebugLayer(debug);
        ID3D12Debug_Release(debug);
    }
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g_device))) {
        fprintf(stderr, "D3D12CreateDevice failed\n");
        return 1;
    }
    ID3D12Device_QueryInterface(g_device, &IID_ID3D12InfoQueue, (void **)&g_info);
    return 0;
}

/* How many stored messages contain `text`. */
static unsigned stored_containing(const char *text)
{
    unsigned found = 0;
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *m = malloc(size);
        if (m && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, m, &size)) && strstr(m->pDescription, text))
            found++;
        free(m);
    }
    return found;
}

static BOOL executes(HRESULT *hr)
{
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data = {(BOOL)0x55};
    *hr = ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, &data, sizeof data);
    return data.ExecutesShaders;
}

static void test_executes_false(const void *arg)
{
    (void)arg;
    /* The Vulkan driver loads vkd3d-shader at the first question: its one line on stderr is said then, once. */
    stderr_capture capture;
    bool capturing = stderr_capture_begin(&capture);
    HRESULT hr;
    BOOL first = executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(first, FALSE);
    BOOL second = executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(second, FALSE);
    static char text[4096];
    stderr_capture_end(&capture, text, sizeof text);
    const char *vulkan = getenv("D12RT_VULKAN_TEST_VKD3D_SHADER");
    if (capturing && vulkan && *vulkan) {
        const char *said = strstr(text, "no shader support");
        CHECK(said != NULL);
        CHECK(said == NULL || strstr(said + 1, "no shader support") == NULL); /* once */
    }
}

static void test_executes_true(const void *arg)
{
    (void)arg;
    HRESULT hr;
    CHECK_EQ_INT(executes(&hr), TRUE);
    CHECK_EQ_INT(hr, S_OK);
    ID3D12Device17 *device17 = NULL;
    if (CHECK(SUCCEEDED(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device17, (void **)&device17)))) {
        D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data = {FALSE};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device17, D3D12_FEATURE_D12RT_SHADER_EXECUTION, &data,
                                                         sizeof data, D3D12_SDK_VERSION),
                     S_OK);
        CHECK_EQ_INT(data.ExecutesShaders, TRUE);
        ID3D12Device17_Release(device17);
    }
}

static void test_executes_bad_size(const void *arg)
{
    (void)arg;
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION data[2] = {{(BOOL)0x55}, {(BOOL)0x55}};
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, data, sizeof data),
                 E_INVALIDARG);
    CHECK_EQ_INT(data[0].ExecutesShaders, 0x55); /* untouched */
    CHECK_EQ_INT(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D12RT_SHADER_EXECUTION, NULL, 4),
                 E_INVALIDARG);
    CHECK_EQ_INT(stored_containing("(D3D12_FEATURE_D12RT_SHADER_EXECUTION): pFeatureSupportData is NULL or "
                                   "FeatureSupportDataSize 8 is not 4"),
                 1);
    CHECK_EQ_INT(stored_containing("(D3D12_FEATURE_D12RT_SHADER_EXECUTION): pFeatureSupportData is NULL or "
                                   "FeatureSupportDataSize 4 is not 4"),
                 1);
    /* the positive twin: the struct's size is answered, whatever the driver */
    HRESULT hr;
    (void)executes(&hr);
    CHECK_EQ_INT(hr, S_OK);
}

static const d12test_case k_cases[] = {
    {"executes_false", test_executes_false, NULL},
    {"executes_true", test_executes_true, NULL},
    {"executes_bad_size", test_executes_bad_size, NULL},
};

int main(int argc, char **argv)
{
    int rc = d12test_case_main(argc, argv, k_cases, sizeof k_cases / sizeof k_cases[0], setup);
    if (g_info)
        ID3D12InfoQueue_Release(g_info);
    if (g_device)
        ID3D12Device_Release(g_device);
    return rc;
}
