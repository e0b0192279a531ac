/* Legacy ID3D12Device::CheckFeatureSupport and its pin (docs/clamping.md section 5; issue 8 items 3 and 9),
 * through the public ABI. `test_legacy_pin CASE` runs one case; CMake registers each as its own test, with the
 * flavor (D12RT_FLAVOR) and the driver profile it needs.
 *
 * every_feature: for every case of generated/tests/caps_legacy_cases.c of the device's flavor (every
 * D3D12_FEATURE number the spec named, every size its struct had, both flavors), the expected status from the
 * independent oracle: a rejected case returns E_INVALIDARG and touches nothing; an accepted one answers exactly
 * as CheckFeatureSupport1 at the pinned level does (same HRESULT, same bytes) and the pin adds no failure
 * (same HRESULT as CheckFeatureSupport1 at the runtime's own version). */
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

#include "caps_legacy_cases.h"
#include "harness.h"

enum { BUFFER = 1024 + 64 };

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

static ID3D12InfoQueue1 *info_queue_of(ID3D12Device17 *device)
{
    ID3D12InfoQueue1 *queue = NULL;
    CHECK_EQ_INT(ID3D12Device17_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), S_OK);
    if (queue != NULL)
        ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

/* How many stored messages have exactly this description; the severity of the last. */
static unsigned count_exact(ID3D12InfoQueue1 *queue, const char *text, D3D12_MESSAGE_SEVERITY *severity)
{
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue1_GetNumStoredMessages(queue);
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        if (message != NULL && SUCCEEDED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length)) &&
            strcmp(message->pDescription, text) == 0) {
            found++;
            if (severity != NULL)
                *severity = message->Severity;
        }
        free(message);
    }
    return found;
}

static unsigned count_containing(ID3D12InfoQueue1 *queue, const char *text)
{
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue1_GetNumStoredMessages(queue);
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *message = malloc(length);
        if (message != NULL && SUCCEEDED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length)) &&
            strstr(message->pDescription, text) != NULL)
            found++;
        free(message);
    }
    return found;
}

static d12_caps_flavor flavor_of_environment(void)
{
    const char *flavor = getenv("D12RT_FLAVOR");
    return flavor != NULL && strcmp(flavor, "preview") == 0 ? D12_CAPS_FLAVOR_PREVIEW : D12_CAPS_FLAVOR_RETAIL;
}

static const D3D_FEATURE_LEVEL requested_levels[] = {D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_12_0,
                                                      D3D_FEATURE_LEVEL_12_1};

/* The caller's struct: zero inputs (valid for most features), a level list for FEATURE_LEVELS, a root signature
 * version the runtime knows for ROOT_SIGNATURE; sentinel bytes past `size`. */
static void prepare(unsigned char *buffer, UINT feature, UINT size)
{
    for (size_t i = 0; i < BUFFER; i++)
        buffer[i] = (unsigned char)(0x5Au ^ (i * 13u));
    memset(buffer, 0, size);
    if (feature == D3D12_FEATURE_FEATURE_LEVELS && size == sizeof(D3D12_FEATURE_DATA_FEATURE_LEVELS)) {
        D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {3, requested_levels, 0};
        memcpy(buffer, &levels, sizeof levels);
    }
    if (feature == D3D12_FEATURE_ROOT_SIGNATURE && size == sizeof(D3D12_FEATURE_DATA_ROOT_SIGNATURE)) {
        D3D12_FEATURE_DATA_ROOT_SIGNATURE root = {D3D_ROOT_SIGNATURE_VERSION_1_1};
        memcpy(buffer, &root, sizeof root);
    }
}

static unsigned mismatches;

static void record(bool ok, const d12_caps_legacy_case *c, const char *what, long long expected, long long actual)
{
    if (ok) {
        d12test_passed++;
        return;
    }
    d12test_failed++;
    if (mismatches++ < 20)
        fprintf(stderr, "mismatch: %s (%u) size %u, pinned %u: %s: expected %lld, got %lld\n", c->name, c->feature,
                c->size, c->pinned, what, expected, actual);
}

static void test_every_feature(void)
{
    d12_caps_flavor flavor = flavor_of_environment();
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    UINT own = d12_caps_runtime_version(flavor);
    unsigned run = 0, rejected = 0;
    for (uint32_t i = 0; i < d12_caps_legacy_case_count; i++) {
        const d12_caps_legacy_case *c = &d12_caps_legacy_cases[i];
        if (c->flavor != flavor)
            continue;
        run++;
        alignas(16) unsigned char legacy[BUFFER], pinned[BUFFER], current[BUFFER], before[BUFFER];
        prepare(legacy, c->feature, c->size);
        prepare(pinned, c->feature, c->size);
        prepare(current, c->feature, c->size);
        memcpy(before, legacy, BUFFER);
        HRESULT hr = ID3D12Device17_CheckFeatureSupport(device, (D3D12_FEATURE)c->feature, legacy, c->size);
        if (!c->accepted) {
            rejected++;
            record(hr == E_INVALIDARG, c, "rejected: HRESULT", E_INVALIDARG, hr);
            record(memcmp(legacy, before, BUFFER) == 0, c, "rejected: data untouched", 1, 0);
            continue;
        }
        HRESULT at_pin = ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)c->feature, pinned, c->size,
                                                             c->pinned);
        HRESULT at_own = ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)c->feature, current, c->size, own);
        record(hr == at_pin, c, "accepted: HRESULT as CheckFeatureSupport1 at the pin", at_pin, hr);
        record(hr == at_own, c, "accepted: HRESULT as CheckFeatureSupport1 at the runtime's version", at_own, hr);
        record(memcmp(legacy, pinned, BUFFER) == 0, c, "accepted: bytes as CheckFeatureSupport1 at the pin", 1, 0);
    }
    printf("%u legacy cases of this flavor, %u rejected\n", run, rejected);
    CHECK(run > 0);
    CHECK(rejected > 0);
    if (queue != NULL) {
        /* A feature newer than the pin is named with the pinned level. */
        char text[256];
        snprintf(text, sizeof text, "did not exist at the pinned level SDK %u", d12_caps_legacy_version(flavor).number);
        CHECK_EQ_INT(count_containing(queue, text) > 0, flavor == D12_CAPS_FLAVOR_PREVIEW);
        ID3D12InfoQueue1_Release(queue);
    }
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* The observation: with D12RT_FLAVOR=preview, the 721 features reached legacy callers with their true
 * tiers. Now E_INVALIDARG, data untouched, an error naming the pin; CheckFeatureSupport1(721) still answers. */
static void test_preview_721_features(void)
{
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    unsigned char dump[12], untouched[12];
    memset(dump, 0xEE, sizeof dump);
    memcpy(untouched, dump, sizeof dump);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, (D3D12_FEATURE)71, dump, sizeof dump), E_INVALIDARG);
    CHECK(memcmp(dump, untouched, sizeof dump) == 0);
    D3D12_MESSAGE_SEVERITY severity = 0;
    CHECK_EQ_INT(count_exact(queue,
                             "ID3D12Device::CheckFeatureSupport(D3D12_FEATURE_DUMP_FILE): the feature did not exist at "
                             "the pinned level SDK 720; call ID3D12Device17::CheckFeatureSupport1 with your "
                             "D3D12_SDK_VERSION",
                             &severity),
                 1);
    CHECK_EQ_INT(severity, D3D12_MESSAGE_SEVERITY_ERROR);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)71, dump, sizeof dump, 721), S_OK);
    UINT tier;
    memcpy(&tier, dump + 4, sizeof tier);
    CHECK_EQ_INT(tier, 2); /* D3D12_DUMP_FILE_DRIVER_TIER_2, the reference driver's true tier */
    /* PARTIAL_GRAPHICS_PROGRAMS (67) and GUID_TEXTURE_LAYOUT (55), also 721: refused the same way. */
    UINT partial = 0xEEEEEEEE;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, (D3D12_FEATURE)67, &partial, sizeof partial),
                 E_INVALIDARG);
    CHECK_EQ_INT(partial, 0xEEEEEEEE);
    /* OPTIONS_PREVIEW existed at 720 in its 12-byte layout: legacy answers that one; the 20-byte layout of 721
     * did not exist at the pin. */
    unsigned char preview[20];
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, (D3D12_FEATURE)72, preview, 12), S_OK);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, (D3D12_FEATURE)72, preview, 20), E_INVALIDARG);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, (D3D12_FEATURE)72, preview, 20, 721), S_OK);
    ID3D12InfoQueue1_Release(queue);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

/* The profile makes the driver report RaytracingTier 13 (no SDK's value: protected). The warning of a legacy
 * call names CheckFeatureSupport and the pinned level; CheckFeatureSupport1's names the SDKVersion. */
static void test_clamp_warning_text(void)
{
    d12_caps_flavor flavor = flavor_of_environment();
    UINT pinned = d12_caps_legacy_version(flavor).number, own = d12_caps_runtime_version(flavor);
    ID3D12Device17 *device = create_device();
    if (device == NULL)
        return;
    ID3D12InfoQueue1 *queue = info_queue_of(device);
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof options),
                 S_OK);
    CHECK_EQ_INT(options.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
    char text[512];
    snprintf(text, sizeof text,
             "ID3D12Device::CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS5): "
             "D3D12_FEATURE_DATA_D3D12_OPTIONS5.RaytracingTier clamped to the pinned level SDK %u from 13 to 12",
             pinned);
    D3D12_MESSAGE_SEVERITY severity = 0;
    CHECK_EQ_INT(count_exact(queue, text, &severity), 1);
    CHECK_EQ_INT(severity, D3D12_MESSAGE_SEVERITY_WARNING);
    CHECK_EQ_INT(count_containing(queue, "CheckFeatureSupport1"), 1); /* only the deprecation warning's advice */
    CHECK_EQ_INT(count_containing(queue, "SDKVersion"), 0);
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device, D3D12_FEATURE_D3D12_OPTIONS5, &options, sizeof options,
                                                    own), S_OK);
    CHECK_EQ_INT(options.RaytracingTier, D3D12_RAYTRACING_TIER_1_2);
    snprintf(text, sizeof text,
             "ID3D12Device17::CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS5): "
             "D3D12_FEATURE_DATA_D3D12_OPTIONS5.RaytracingTier clamped for SDKVersion %u from 13 to 12", own);
    CHECK_EQ_INT(count_exact(queue, text, NULL), 1);
    ID3D12InfoQueue1_Release(queue);
    CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"every_feature", test_every_feature},
        {"preview_721_features", test_preview_721_features},
        {"clamp_warning_text", test_clamp_warning_text},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            if (mismatches > 20)
                fprintf(stderr, "... and %u more mismatches\n", mismatches - 20);
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_legacy_pin CASE\n");
    return 2;
}
