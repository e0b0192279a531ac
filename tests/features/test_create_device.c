/* D3D12CreateDevice's argument checks (issue 8 item 6, docs/create-device.md), through the public ABI only.
 * `test_create_device CASE` runs one case; CMake registers each as its own test. */
#define COBJMACROS
#include <stdio.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

/* A create that must fail without making a device: *ppDevice stays as the caller set it to NULL. */
static void expect_refused(D3D_FEATURE_LEVEL level, HRESULT expected)
{
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, level, &IID_ID3D12Device, (void **)&device), expected);
    CHECK(device == NULL);
    /* The same check decides the NULL-output form: no S_FALSE for a level that is refused. */
    CHECK_EQ_INT(D3D12CreateDevice(NULL, level, &IID_ID3D12Device, NULL), expected);
}

static void expect_created(D3D_FEATURE_LEVEL level)
{
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, level, &IID_ID3D12Device, (void **)&device), S_OK);
    CHECK(device != NULL);
    if (device != NULL)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, level, &IID_ID3D12Device, NULL), S_FALSE);
}

/* 9_1, 9_2, 9_3, 10_0, 10_1 are D3D11 levels; 0 and numbers that are no level are refused. */
static void test_refused_levels(void)
{
    const D3D_FEATURE_LEVEL refused[] = {D3D_FEATURE_LEVEL_9_1, D3D_FEATURE_LEVEL_9_2, D3D_FEATURE_LEVEL_9_3,
                                         D3D_FEATURE_LEVEL_10_0, D3D_FEATURE_LEVEL_10_1, (D3D_FEATURE_LEVEL)0,
                                         (D3D_FEATURE_LEVEL)1, (D3D_FEATURE_LEVEL)0x1234, (D3D_FEATURE_LEVEL)0xb001,
                                         (D3D_FEATURE_LEVEL)0xc300, (D3D_FEATURE_LEVEL)-1};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        expect_refused(refused[i], E_INVALIDARG);
}

/* Every D3D12 level the reference adapter supports (it reports 12_2) and the compute-only levels. */
static void test_accepted_levels(void)
{
    const D3D_FEATURE_LEVEL accepted[] = {D3D_FEATURE_LEVEL_1_0_CORE, (D3D_FEATURE_LEVEL)0x100 /* 1_0_GENERIC */,
                                          D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_12_0,
                                          D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_2};
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
        expect_created(accepted[i]);
}

/* Windows checks the output pointer before the interface: NULL riid + NULL ppDevice is S_FALSE; NULL riid with
 * an output pointer is E_INVALIDARG and no device. A refused level wins over both. */
static void test_null_riid(void)
{
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, NULL, NULL), S_FALSE);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_12_2, NULL, NULL), S_FALSE);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_1_0_CORE, NULL, NULL), S_FALSE);
    ID3D12Device *device = NULL;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, NULL, (void **)&device), E_INVALIDARG);
    CHECK(device == NULL);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_10_0, NULL, NULL), E_INVALIDARG);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, (D3D_FEATURE_LEVEL)0, NULL, NULL), E_INVALIDARG);
}

/* The combinations that were right before and stay so: an adapter object is refused (d12rt has no DXGI
 * adapters), an interface the device lacks is E_NOINTERFACE with *ppDevice NULL. */
static void test_existing_combinations(void)
{
    ID3D12Device *device = NULL;
    ID3D12Device *fake_adapter = NULL;
    CHECK_EQ_INT(D3D12CreateDevice((IUnknown *)&fake_adapter, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device,
                                   (void **)&device), E_INVALIDARG);
    CHECK_EQ_INT(D3D12CreateDevice((IUnknown *)&fake_adapter, D3D_FEATURE_LEVEL_11_0, NULL, NULL), E_INVALIDARG);
    CHECK(device == NULL);
    void *other = (void *)1;
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Fence, &other), E_NOINTERFACE);
    CHECK(other == NULL);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Fence, NULL), S_FALSE);
}

/* The profile makes the adapter 11_1: 12_0 is a valid level it does not reach (DXGI_ERROR_UNSUPPORTED), even
 * with a NULL output pointer or a NULL riid; 10_0 stays E_INVALIDARG. */
static void test_unsupported_level(void)
{
    expect_refused(D3D_FEATURE_LEVEL_12_0, DXGI_ERROR_UNSUPPORTED);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_12_0, NULL, NULL), DXGI_ERROR_UNSUPPORTED);
    expect_refused(D3D_FEATURE_LEVEL_10_0, E_INVALIDARG);
    expect_created(D3D_FEATURE_LEVEL_11_1);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"refused_levels", test_refused_levels},     {"accepted_levels", test_accepted_levels},
        {"null_riid", test_null_riid},               {"existing_combinations", test_existing_combinations},
        {"unsupported_level", test_unsupported_level},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_create_device CASE\n");
    return 2;
}
