/* The CheckFeatureSupport answer cache (runtime/feature_cache.c, docs/performance.md "CheckFeatureSupport: what is
 * cached and why it is exact"): repeated queries answer as the first did; a clamped answer is not cached (its
 * warning comes on every query); a feature with inputs is answered from its inputs every time; threads querying at
 * once all get the full path's answer.
 *
 *   test_feature_cache CASE     (ctest perf.feature_cache.CASE)
 */
#define COBJMACROS
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

static ID3D12Device17 *create_device(void)
{
    ID3D12Debug *debug = NULL;
    if (CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug)))) {
        ID3D12Debug_EnableDebugLayer(debug);
        ID3D12Debug_Release(debug);
    }
    ID3D12Device17 *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device), S_OK);
    return device;
}

/* Stored messages whose description contains `text`. */
static unsigned count_containing(ID3D12Device17 *device, const char *text)
{
    ID3D12InfoQueue *queue = NULL;
    if (!CHECK(SUCCEEDED(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue))))
        return 0;
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue_GetNumStoredMessages(queue);
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        if (message != NULL && SUCCEEDED(ID3D12InfoQueue_GetMessage(queue, i, message, &length)) &&
            strstr(message->pDescription, text) != NULL)
            found++;
        free(message);
    }
    ID3D12InfoQueue_Release(queue);
    return found;
}

/* Repeated queries of features without inputs, through both entry points and two SDK versions, answer with the
 * same bytes as the first (full-path) query, whatever the caller's struct held before. */
static void repeat(void)
{
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 first, again;
    D3D12_FEATURE_DATA_D3D12_OPTIONS options_first, options_again;
    const UINT versions[] = {D12RT_SDK_VERSION, 606, 0};
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 4; i++) {
            D3D12_FEATURE_DATA_D3D12_OPTIONS5 *options5 = i == 0 ? &first : &again;
            D3D12_FEATURE_DATA_D3D12_OPTIONS *options = i == 0 ? &options_first : &options_again;
            memset(options5, i == 0 ? 0x11 : 0x77, sizeof *options5);
            memset(options, i == 0 ? 0x11 : 0x77, sizeof *options);
            HRESULT hr5, hr;
            if (versions[v] == 0) { /* legacy CheckFeatureSupport */
                hr5 = ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, options5,
                                                         sizeof *options5);
                hr = ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS, options, sizeof *options);
            } else {
                hr5 = ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, options5,
                                                          sizeof *options5, versions[v]);
                hr = ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS, options,
                                                         sizeof *options, versions[v]);
            }
            CHECK_EQ_INT(hr5, S_OK);
            CHECK_EQ_INT(hr, S_OK);
        }
        CHECK(memcmp(&first, &again, sizeof first) == 0);
        CHECK(memcmp(&options_first, &options_again, sizeof options_first) == 0);
    }
    /* A bad size is refused every time, cached answers or not. */
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
    for (int i = 0; i < 2; i++)
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                                         sizeof options5 - 4, D12RT_SDK_VERSION), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, NULL, sizeof options5,
                                                     D12RT_SDK_VERSION), E_INVALIDARG);
    /* A version above the runtime's is refused (looked up before it is resolved, it finds nothing cached). */
    memset(&options5, 0x5A, sizeof options5);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5,
                                                     D12RT_SDK_VERSION + 1), E_INVALIDARG);
    CHECK_EQ_INT(options5.RaytracingTier, 0x5A5A5A5A); /* "without ... modifying pFeatureSupportData" */
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* A feature with inputs is answered from them each time: the same feature asked with other inputs answers
 * otherwise (a cache keyed without the inputs would repeat the first answer). */
static void inputs(void)
{
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    static const D3D_FEATURE_LEVEL low[] = {D3D_FEATURE_LEVEL_11_0}, wide[] = {D3D_FEATURE_LEVEL_11_0,
                                                                                 D3D_FEATURE_LEVEL_12_0};
    for (int i = 0; i < 3; i++) {
        D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {1, low, 0};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_FEATURE_LEVELS, &levels,
                                                         sizeof levels, D12RT_SDK_VERSION), S_OK);
        CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_11_0);
        levels = (D3D12_FEATURE_DATA_FEATURE_LEVELS){2, wide, 0};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_FEATURE_LEVELS, &levels,
                                                         sizeof levels, D12RT_SDK_VERSION), S_OK);
        CHECK_EQ_INT(levels.MaxSupportedFeatureLevel, D3D_FEATURE_LEVEL_12_0);
        D3D12_FEATURE_DATA_SHADER_MODEL model = {D3D_SHADER_MODEL_6_0};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model,
                                                         D12RT_SDK_VERSION), S_OK);
        CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_6_0);
        model.HighestShaderModel = D3D_SHADER_MODEL_6_5;
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model,
                                                         D12RT_SDK_VERSION), S_OK);
        CHECK(model.HighestShaderModel > D3D_SHADER_MODEL_6_0);
        /* NodeIndex is an input: 1 is refused every time, 0 accepted. */
        D3D12_FEATURE_DATA_ARCHITECTURE architecture = {1, FALSE, FALSE, FALSE};
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_ARCHITECTURE, &architecture,
                                                         sizeof architecture, D12RT_SDK_VERSION), E_INVALIDARG);
        architecture.NodeIndex = 0;
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_ARCHITECTURE, &architecture,
                                                         sizeof architecture, D12RT_SDK_VERSION), S_OK);
    }
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* Run with D12RT_REFDRV_PROFILE=raytracing_13.txt: RaytracingTier 13 is clamped on every query, and every query
 * warns (a clamped answer is never served from the cache). */
static void clamped_warns_each_time(void)
{
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    for (int i = 0; i < 3; i++) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                                         sizeof options5, D12RT_SDK_VERSION), S_OK);
        CHECK_EQ_INT(options5.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
    }
    CHECK_EQ_INT(count_containing(device, "RaytracingTier clamped for SDKVersion"), 3);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* Threads querying at once (the first queries race to store the answer): every answer is the full path's. */
#define THREADS 4
static ID3D12Device17 *shared_device;
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 reference5;
static D3D12_FEATURE_DATA_D3D12_OPTIONS reference;
static unsigned thread_mismatches;

static void *query_thread(void *argument)
{
    (void)argument;
    for (int i = 0; i < 2000; i++) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
        D3D12_FEATURE_DATA_D3D12_OPTIONS options;
        UINT version = i % 2 ? D12RT_SDK_VERSION : 606;
        if (ID3D12Device17_CheckFeatureSupport1(shared_device, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                                sizeof options5, version) != S_OK ||
            memcmp(&options5, &reference5, sizeof options5) != 0 ||
            ID3D12Device17_CheckFeatureSupport1(shared_device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options,
                                                version) != S_OK ||
            memcmp(&options, &reference, sizeof options) != 0)
            __atomic_add_fetch(&thread_mismatches, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void threads(void)
{
    /* The reference answers, from another device (the full path, nothing cached there yet). */
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &reference5,
                                                     sizeof reference5, D12RT_SDK_VERSION), S_OK);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS, &reference,
                                                     sizeof reference, D12RT_SDK_VERSION), S_OK);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
    shared_device = create_device();
    if (shared_device == NULL)
        return;
    pthread_t ids[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&ids[t], NULL, query_thread, NULL);
    for (int t = 0; t < THREADS; t++)
        pthread_join(ids[t], NULL);
    CHECK_EQ_INT(thread_mismatches, 0);
    CHECK_EQ_INT(ID3D12Device17_Release(shared_device), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"repeat", repeat},
        {"inputs", inputs},
        {"clamped_warns_each_time", clamped_warns_each_time},
        {"threads", threads},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_feature_cache CASE\n");
    return 2;
}
