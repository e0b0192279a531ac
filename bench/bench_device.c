/* d12bench rows, the device family: CheckFeatureSupport and CheckFeatureSupport1 through libd12rt on a
 * reference-driver device. */
#define COBJMACROS
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "bench.h"

typedef struct device_case {
    ID3D12Device17 *device;
    UINT sdk_version;
    void *data;
    UINT size;
    D3D12_FEATURE feature;
    HRESULT last;
} device_case;

static ID3D12Device17 *device;
static D3D12_FEATURE_DATA_D3D12_OPTIONS5 device_options5;
static device_case cfs_options5, cfs1_options5_620, cfs1_options5_606;

static void run_cfs(void *context, uint64_t iterations)
{
    device_case *c = context;
    HRESULT hr = S_OK;
    for (uint64_t i = 0; i < iterations; i++) {
        hr |= ID3D12Device17_CheckFeatureSupport(c->device, c->feature, c->data, c->size);
        BENCH_TOUCH(c->data);
    }
    c->last = hr;
}

static void run_cfs1(void *context, uint64_t iterations)
{
    device_case *c = context;
    HRESULT hr = S_OK;
    for (uint64_t i = 0; i < iterations; i++) {
        hr |= ID3D12Device17_CheckFeatureSupport1(c->device, c->feature, c->data, c->size, c->sdk_version);
        BENCH_TOUCH(c->data);
    }
    c->last = hr;
}

void bench_device_setup(void)
{
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device))) {
        bench_fail_setup("D3D12CreateDevice (reference driver)");
        return;
    }
    device_case base = {device, 0, &device_options5, sizeof(device_options5), D3D12_FEATURE_D3D12_OPTIONS5, S_OK};
    cfs_options5 = base;
    cfs1_options5_620 = base;
    cfs1_options5_620.sdk_version = D12RT_SDK_VERSION;
    cfs1_options5_606 = base;
    cfs1_options5_606.sdk_version = 606;
    int legacy = bench_add_row("device", "CheckFeatureSupport OPTIONS5", "baseline: legacy query, reference driver",
                         run_cfs, &cfs_options5, -1, false);
    bench_add_row("device", "CheckFeatureSupport1 OPTIONS5 (SDK 620)", "resolve + check + driver + clamp", run_cfs1,
            &cfs1_options5_620, legacy, false);
    bench_add_row("device", "CheckFeatureSupport1 OPTIONS5 (SDK 606)", "an older SDK version", run_cfs1,
            &cfs1_options5_606, legacy, false);
}

void bench_device_check(void)
{
    const device_case *cases[] = {&cfs_options5, &cfs1_options5_620, &cfs1_options5_606};
    for (size_t i = 0; device != NULL && i < sizeof(cases) / sizeof(cases[0]); i++)
        if (cases[i]->last != S_OK)
            bench_fail_setup("a CheckFeatureSupport row did not return S_OK");
}

void bench_device_teardown(void)
{
    if (device != NULL)
        ID3D12Device17_Release(device);
}
