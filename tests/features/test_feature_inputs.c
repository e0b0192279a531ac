/* CheckFeatureSupport(1) inputs as both peers' suites and the spec expect them (issue 17 items 2 and 5), through the
 * public ABI. `test_feature_inputs CASE` runs one case; CMake registers each as its own test.
 *
 * old_sdk:            SDKVersion 0 ... 3 (older than every SDK) answer as SDK 4, the oldest: OPTIONS and OPTIONS5
 *                     succeed with the bytes SDK 4 gets; a feature that came later and a wrong size are still
 *                     E_INVALIDARG, untouched, with a message that names what is wrong (docs/clamping.md §1, §4).
 * unknown_levels:     FEATURE_LEVELS compares levels as numbers: {0x0000, 0x3000} answers 0x3000 (wine-vkd3d's and
 *                     vkd3d-proton's test_check_feature_support); NumFeatureLevels 0 / a NULL list: E_INVALIDARG.
 * no_level_below:     none of the requested levels is at or below the device's: S_OK, MaxSupportedFeatureLevel 0
 *                     (docs/device.md); registered with the 11_1 profile, so {12_0, 12_1} is such a list.
 * shader_model_zero:  HighestShaderModel 0 is E_INVALIDARG with the debug-layer error; 5_1 answers 5_1. */
#define COBJMACROS
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

static ID3D12Device17 *create_device(ID3D12InfoQueue1 **queue)
{
    ID3D12Debug *debug = NULL;
    if (CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug)))) {
        ID3D12Debug_EnableDebugLayer(debug);
        ID3D12Debug_Release(debug);
    }
    ID3D12Device17 *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device), S_OK);
    *queue = NULL;
    if (device != NULL &&
        CHECK(SUCCEEDED(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)queue))))
        ID3D12InfoQueue1_SetMuteDebugOutput(*queue, TRUE);
    return device;
}

static void release(ID3D12Device17 *device, ID3D12InfoQueue1 *queue)
{
    if (queue != NULL)
        ID3D12InfoQueue1_Release(queue);
    if (device != NULL)
        CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* How many stored messages have exactly this description. */
static unsigned count_exact(ID3D12InfoQueue1 *queue, const char *text)
{
    unsigned found = 0;
    UINT64 count = queue != NULL ? ID3D12InfoQueue1_GetNumStoredMessages(queue) : 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        if (message != NULL && SUCCEEDED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length)) &&
            strcmp(message->pDescription, text) == 0)
            found++;
        free(message);
    }
    return found;
}

enum { BUFFER = 256 };

/* One CheckFeatureSupport1 call on a buffer of sentinel bytes; `*touched` says whether any byte changed. */
static HRESULT query1(ID3D12Device17 *device, D3D12_FEATURE feature, unsigned char *data, UINT size, UINT sdk,
                      bool *touched)
{
    unsigned char before[BUFFER];
    for (size_t i = 0; i < BUFFER; i++)
        data[i] = (unsigned char)(0xA5u ^ (i * 7u));
    memset(data, 0, size);
    memcpy(before, data, BUFFER);
    HRESULT hr = ID3D12Device17_CheckFeatureSupport1(device, feature, data, size, sdk);
    *touched = memcmp(before, data, BUFFER) != 0;
    return hr;
}

static void test_old_sdk(void)
{
    ID3D12InfoQueue1 *queue;
    ID3D12Device17 *device = create_device(&queue);
    if (device == NULL)
        return;
    static const struct {
        D3D12_FEATURE feature;
        UINT size;
    } always[] = {{D3D12_FEATURE_D3D12_OPTIONS, sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS)},
                  {D3D12_FEATURE_D3D12_OPTIONS5, sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS5)}};
    for (size_t f = 0; f < sizeof always / sizeof always[0]; f++) {
        alignas(16) unsigned char oldest[BUFFER], older[BUFFER];
        bool touched;
        CHECK_EQ_INT(query1(device, always[f].feature, oldest, always[f].size, 4, &touched), S_OK);
        for (UINT sdk = 0; sdk < 4; sdk++) {
            CHECK_EQ_INT(query1(device, always[f].feature, older, always[f].size, sdk, &touched), S_OK);
            CHECK(memcmp(older, oldest, BUFFER) == 0); /* the bytes SDK 4 gets, nothing past the struct */
        }
    }
    /* The answer is the driver's, not zeros: the reference driver reports ResourceBindingTier 3. */
    D3D12_FEATURE_DATA_D3D12_OPTIONS options = {0};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS, &options, sizeof options, 0),
                 S_OK);
    CHECK_EQ_INT(options.ResourceBindingTier, D3D12_RESOURCE_BINDING_TIER_3);

    /* A feature that came later (OPTIONS12: retail 600) is still refused at 0, untouched, and the message says
     * the feature is what did not exist, not the size. */
    alignas(16) unsigned char data[BUFFER];
    bool touched = true;
    CHECK_EQ_INT(query1(device, D3D12_FEATURE_D3D12_OPTIONS12, data, sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS12), 0,
                        &touched),
                 E_INVALIDARG);
    CHECK(!touched);
    CHECK_EQ_INT(count_exact(queue, "ID3D12Device17::CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS12): the feature "
                                    "did not exist at SDKVersion 0 (it came with SDK 600)"),
                 1);
    /* ... and at 600 it answers. */
    CHECK_EQ_INT(query1(device, D3D12_FEATURE_D3D12_OPTIONS12, data, sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS12), 600,
                        &touched),
                 S_OK);

    /* A wrong size at 0: refused, untouched; the message lists the sizes the struct had. */
    touched = true;
    UINT wrong = sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS5) + 4;
    CHECK_EQ_INT(query1(device, D3D12_FEATURE_D3D12_OPTIONS5, data, wrong, 2, &touched), E_INVALIDARG);
    CHECK(!touched);
    char text[256];
    snprintf(text, sizeof text,
             "CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS5): FeatureSupportDataSize %u matches no layout of "
             "D3D12_FEATURE_DATA_D3D12_OPTIONS5 at SDKVersion 2 (its sizes there: %u)",
             wrong, (unsigned)sizeof(D3D12_FEATURE_DATA_D3D12_OPTIONS5));
    CHECK_EQ_INT(count_exact(queue, text), 1);
    release(device, queue);
}

static HRESULT levels_query(ID3D12Device17 *device, bool legacy, const D3D_FEATURE_LEVEL *list, UINT count,
                            D3D_FEATURE_LEVEL *answer)
{
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {count, list, (D3D_FEATURE_LEVEL)0x7777};
    HRESULT hr = legacy ? ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels)
                        : ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_FEATURE_LEVELS, &levels,
                                                              sizeof levels, D3D12_SDK_VERSION);
    *answer = levels.MaxSupportedFeatureLevel;
    return hr;
}

static void test_unknown_levels(void)
{
    ID3D12InfoQueue1 *queue;
    ID3D12Device17 *device = create_device(&queue);
    if (device == NULL)
        return;
    static const D3D_FEATURE_LEVEL invalid[] = {(D3D_FEATURE_LEVEL)0x0000, (D3D_FEATURE_LEVEL)0x3000};
    static const D3D_FEATURE_LEVEL mixed[] = {(D3D_FEATURE_LEVEL)0xb080, D3D_FEATURE_LEVEL_11_0,
                                              (D3D_FEATURE_LEVEL)0xF000};
    for (int legacy = 0; legacy <= 1; legacy++) {
        D3D_FEATURE_LEVEL answer;
        CHECK_EQ_INT(levels_query(device, legacy, invalid, 2, &answer), S_OK);
        CHECK_EQ_INT(answer, 0x3000);
        /* Compared as numbers: 0xb080 (no level) lies between 11_0 and 11_1 and is the highest at or below. */
        CHECK_EQ_INT(levels_query(device, legacy, mixed, 3, &answer), S_OK);
        CHECK_EQ_INT(answer, 0xb080);
        /* The list itself is still checked. */
        CHECK_EQ_INT(levels_query(device, legacy, invalid, 0, &answer), E_INVALIDARG);
        CHECK_EQ_INT(answer, 0x7777);
        CHECK_EQ_INT(levels_query(device, legacy, NULL, 2, &answer), E_INVALIDARG);
        CHECK_EQ_INT(answer, 0x7777);
    }
    release(device, queue);
}

static void test_no_level_below(void)
{
    ID3D12InfoQueue1 *queue;
    ID3D12Device17 *device = create_device(&queue);
    if (device == NULL)
        return;
    static const D3D_FEATURE_LEVEL above[] = {D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_12_1};
    static const D3D_FEATURE_LEVEL reached[] = {D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_11_1};
    for (int legacy = 0; legacy <= 1; legacy++) {
        D3D_FEATURE_LEVEL answer;
        CHECK_EQ_INT(levels_query(device, legacy, above, 2, &answer), S_OK);
        CHECK_EQ_INT(answer, 0);
        CHECK_EQ_INT(levels_query(device, legacy, reached, 2, &answer), S_OK);
        CHECK_EQ_INT(answer, D3D_FEATURE_LEVEL_11_1);
    }
    release(device, queue);
}

static void test_shader_model_zero(void)
{
    ID3D12InfoQueue1 *queue;
    ID3D12Device17 *device = create_device(&queue);
    if (device == NULL)
        return;
    D3D12_FEATURE_DATA_SHADER_MODEL model = {(D3D_SHADER_MODEL)0};
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model,
                                                     D3D12_SDK_VERSION),
                 E_INVALIDARG);
    CHECK_EQ_INT(model.HighestShaderModel, 0);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model),
                 E_INVALIDARG);
    CHECK_EQ_INT(count_exact(queue, "ID3D12Device::CheckFeatureSupport1: pFeatureSupportData is invalid: an input "
                                    "field holds a value this runtime does not know"),
                 1);
    CHECK_EQ_INT(count_exact(queue, "ID3D12Device::CheckFeatureSupport: pFeatureSupportData is invalid: an input "
                                    "field holds a value this runtime does not know"),
                 1);
    model.HighestShaderModel = D3D_SHADER_MODEL_5_1;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_SHADER_MODEL, &model, sizeof model,
                                                     D3D12_SDK_VERSION),
                 S_OK);
    CHECK_EQ_INT(model.HighestShaderModel, D3D_SHADER_MODEL_5_1);
    release(device, queue);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"old_sdk", test_old_sdk},
                 {"unknown_levels", test_unknown_levels},
                 {"no_level_below", test_no_level_below},
                 {"shader_model_zero", test_shader_model_zero}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_feature_inputs old_sdk|unknown_levels|no_level_below|shader_model_zero\n");
    return 2;
}
