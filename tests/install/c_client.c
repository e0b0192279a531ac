/* An outside C client of an installed d12rt, built with nothing but `pkg-config --cflags --libs d12rt` (ctest
 * install.c_client) or with find_package(d12rt) and d12rt::d12rt (install.cmake_client). It uses the public
 * contract the way an application would: COBJMACROS, the IIDs d12rt exports (IID_ID3D12Debug7,
 * IID_ID3D12Device17) next to DirectX-Guids' standard ones, the debug layer, the InfoQueue and CheckFeatureSupport1.
 *
 * D12RT_EXPECT_LIBDIR (optional): the directory libd12rt.so must have been loaded from (the moved prefix), which
 * proves the client does not run against the build tree. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#define COBJMACROS
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "../harness.h"

/* docs/infoqueue.md: the runtime's project message IDs; CHECKFEATURESUPPORT1_SDK_VERSION_TOO_NEW is 0x10001. */
#define SDK_VERSION_TOO_NEW_ID ((D3D12_MESSAGE_ID)0x10001)

static int find_libd12rt(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (base != NULL && strncmp(base + 1, "libd12rt.so", strlen("libd12rt.so")) == 0) {
        *(char **)data = realpath(info->dlpi_name, NULL);
        return 1;
    }
    return 0;
}

static void check_loaded_from_prefix(void)
{
    const char *expect = getenv("D12RT_EXPECT_LIBDIR");
    char *loaded = NULL;
    dl_iterate_phdr(find_libd12rt, &loaded);
    CHECK(loaded != NULL);
    if (expect != NULL && *expect != '\0' && loaded != NULL) {
        char *dir = realpath(expect, NULL);
        CHECK(dir != NULL);
        if (dir != NULL) {
            size_t n = strlen(dir);
            if (!CHECK(strncmp(loaded, dir, n) == 0 && loaded[n] == '/'))
                fprintf(stderr, "    libd12rt loaded from %s, expected under %s\n", loaded, dir);
        }
        free(dir);
    }
    printf("libd12rt: %s\n", loaded ? loaded : "(not found)");
    free(loaded);
}

/* Stored message `index` (GetMessage's two-call pattern); the caller frees it. */
static D3D12_MESSAGE *get_message(ID3D12InfoQueue1 *queue, UINT64 index)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue1_GetMessage(queue, index, NULL, &length)) || length < sizeof(D3D12_MESSAGE))
        return NULL;
    D3D12_MESSAGE *message = malloc(length);
    if (message != NULL && FAILED(ID3D12InfoQueue1_GetMessage(queue, index, message, &length))) {
        free(message);
        return NULL;
    }
    return message;
}

int main(void)
{
    check_loaded_from_prefix();

    /* The debug layer through our ID3D12Debug7, before the device exists. */
    ID3D12Debug7 *debug = NULL;
    CHECK_EQ_INT(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK);
    if (!CHECK(debug != NULL))
        return d12test_finish();
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);

    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (!CHECK(device != NULL))
        return d12test_finish();

    ID3D12Device17 *device17 = NULL;
    ID3D12InfoQueue1 *queue = NULL;
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12Device17, (void **)&device17), S_OK);
    CHECK_EQ_INT(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue), S_OK);
    if (!CHECK(device17 != NULL && queue != NULL))
        return d12test_finish();
    ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    ID3D12InfoQueue1_ClearStoredMessages(queue);

    /* Accepted versions: the runtime's own, the application's DirectX-Headers one, the remapped preview one. */
    const UINT accepted[] = {D12RT_SDK_VERSION, D3D12_SDK_VERSION, D12RT_PREVIEW_SDK_VERSION};
    for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
        D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5;
        memset(&options5, 0, sizeof(options5));
        CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device17, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                                         sizeof(options5), accepted[i]),
                     S_OK);
        CHECK(options5.RaytracingTier >= D3D12_RAYTRACING_TIER_1_1);
        CHECK(options5.RenderPassesTier >= D3D12_RENDER_PASS_TIER_0);
    }
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumStoredMessages(queue), 0);

    /* Too new: E_INVALIDARG, the data untouched, and one error naming the version in the InfoQueue. */
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 untouched, options5;
    memset(&untouched, 0xA5, sizeof(untouched));
    memcpy(&options5, &untouched, sizeof(options5));
    const UINT too_new = D12RT_SDK_VERSION + 1;
    CHECK_EQ_INT(ID3D12Device17_CheckFeatureSupport1(device17, D3D12_FEATURE_D3D12_OPTIONS5, &options5,
                                                     sizeof(options5), too_new),
                 E_INVALIDARG);
    CHECK(memcmp(&options5, &untouched, sizeof(options5)) == 0);
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumStoredMessages(queue), 1);
    D3D12_MESSAGE *message = get_message(queue, 0);
    if (CHECK(message != NULL)) {
        char expected[64];
        snprintf(expected, sizeof(expected), "SDKVersion %u is newer", too_new);
        CHECK_EQ_INT(message->Severity, D3D12_MESSAGE_SEVERITY_ERROR);
        CHECK_EQ_INT(message->ID, SDK_VERSION_TOO_NEW_ID);
        if (!CHECK(message->pDescription != NULL && strstr(message->pDescription, expected) != NULL))
            fprintf(stderr, "    description: %s\n", message->pDescription ? message->pDescription : "(null)");
        CHECK_EQ_INT(message->DescriptionByteLength, strlen(message->pDescription) + 1);
        free(message);
    }

    /* Reference counts: everything released, the device last. */
    CHECK_EQ_INT(ID3D12InfoQueue1_Release(queue), 2);
    CHECK_EQ_INT(ID3D12Device17_Release(device17), 1);
    CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    ID3D12Debug7_Release(debug);
    return d12test_finish();
}
