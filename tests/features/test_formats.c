/* Format queries answer for the format asked about (issue 8 item 7; docs/formats.md), through the public ABI.
 * `test_formats CASE` runs one case; CMake registers each as its own test.
 *
 * generated: every case of generated/tests/format_cases.c (every DXGI_FORMAT number, every gap, numbers beyond),
 * whose expected answers generator/part_formats.py computed from the rules and spec/formats.yaml, through
 * CheckFeatureSupport1 and legacy CheckFeatureSupport alike. The other cases are the rules one by one,
 * positive and negative. */
#define COBJMACROS
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <d12rt/d3d12_ext.h>

#include "format_cases.h"
#include "harness.h"

#define SDK 620 /* the retail runtime's own version */

static ID3D12Device17 *device;

static HRESULT query(D3D12_FEATURE feature, void *data, UINT size, bool legacy)
{
    return legacy ? ID3D12Device17_CheckFeatureSupport(device, feature, data, size)
                  : ID3D12Device17_CheckFeatureSupport1(device, feature, data, size, SDK);
}

static HRESULT format_info(UINT format, UINT8 *planes, bool legacy)
{
    D3D12_FEATURE_DATA_FORMAT_INFO info = {(DXGI_FORMAT)format, 0xEE};
    HRESULT hr = query(D3D12_FEATURE_FORMAT_INFO, &info, sizeof info, legacy);
    CHECK_EQ_INT(info.Format, format); /* the input is left alone */
    *planes = info.PlaneCount;
    return hr;
}

static HRESULT format_support(UINT format, D3D12_FEATURE_DATA_FORMAT_SUPPORT *out, bool legacy)
{
    D3D12_FEATURE_DATA_FORMAT_SUPPORT support = {(DXGI_FORMAT)format, (D3D12_FORMAT_SUPPORT1)0xEEEEEEEE,
                                                 (D3D12_FORMAT_SUPPORT2)0xEEEEEEEE};
    HRESULT hr = query(D3D12_FEATURE_FORMAT_SUPPORT, &support, sizeof support, legacy);
    CHECK_EQ_INT(support.Format, format);
    *out = support;
    return hr;
}

static HRESULT quality_levels(UINT format, UINT count, D3D12_MULTISAMPLE_QUALITY_LEVEL_FLAGS flags, UINT *levels,
                              bool legacy)
{
    D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS data = {(DXGI_FORMAT)format, count, flags, 77};
    HRESULT hr = query(D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &data, sizeof data, legacy);
    CHECK_EQ_INT(data.Format, format);
    CHECK_EQ_INT(data.SampleCount, count);
    CHECK_EQ_INT(data.Flags, flags); /* "Flags is preserved" */
    *levels = data.NumQualityLevels;
    return hr;
}

static unsigned mismatches;

static void expect(bool ok, UINT format, const char *what, long long expected, long long actual)
{
    if (ok) {
        d12test_passed++;
        return;
    }
    d12test_failed++;
    if (mismatches++ < 20)
        fprintf(stderr, "mismatch: format %u: %s: expected %#llx, got %#llx\n", format, what, expected, actual);
}

static void test_generated(void)
{
    for (int legacy = 0; legacy <= 1; legacy++) {
        for (uint32_t i = 0; i < d12_format_case_count; i++) {
            const d12_format_case *c = &d12_format_cases[i];
            UINT8 planes;
            HRESULT hr = format_info(c->format, &planes, legacy);
            expect(hr == c->info_hr, c->format, "FORMAT_INFO hr", c->info_hr, hr);
            if (SUCCEEDED(c->info_hr))
                expect(planes == c->planes, c->format, "PlaneCount", c->planes, planes);
            D3D12_FEATURE_DATA_FORMAT_SUPPORT support;
            hr = format_support(c->format, &support, legacy);
            expect(hr == c->support_hr, c->format, "FORMAT_SUPPORT hr", c->support_hr, hr);
            expect((UINT)support.Support1 == c->support1, c->format, "Support1", c->support1, support.Support1);
            expect((UINT)support.Support2 == c->support2, c->format, "Support2", c->support2, support.Support2);
        }
        for (uint32_t i = 0; i < d12_quality_case_count; i++) {
            const d12_quality_case *c = &d12_quality_cases[i];
            D3D12_MULTISAMPLE_QUALITY_LEVEL_FLAGS flags =
                i % 2 ? D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_TILED_RESOURCE : D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE;
            UINT levels;
            HRESULT hr = quality_levels(c->format, c->sample_count, flags, &levels, legacy);
            expect(hr == c->hr, c->format, "MULTISAMPLE_QUALITY_LEVELS hr", c->hr, hr);
            expect(levels == c->levels, c->format, "NumQualityLevels", c->levels, levels);
        }
    }
    printf("%u format cases, %u quality-level cases, each through both entry points\n", d12_format_case_count,
           d12_quality_case_count);
}

/* FORMAT_INFO: S_OK for every format up to B4G4R4A4_UNORM but R1_UNORM; UNKNOWN has one plane; two for the
 * depth-stencil formats with stencil and their typeless/view forms and the planar video formats. */
static void test_format_info(void)
{
    UINT8 planes;
    for (UINT format = DXGI_FORMAT_UNKNOWN; format <= DXGI_FORMAT_B4G4R4A4_UNORM; format++) {
        HRESULT hr = format_info(format, &planes, false);
        expect(hr == (format == DXGI_FORMAT_R1_UNORM ? E_INVALIDARG : S_OK), format, "FORMAT_INFO hr", 0, hr);
    }
    CHECK_EQ_INT(format_info(DXGI_FORMAT_UNKNOWN, &planes, false), S_OK);
    CHECK_EQ_INT(planes, 1);
    const UINT two[] = {DXGI_FORMAT_D24_UNORM_S8_UINT, DXGI_FORMAT_R24G8_TYPELESS, DXGI_FORMAT_R24_UNORM_X8_TYPELESS,
                        DXGI_FORMAT_X24_TYPELESS_G8_UINT, DXGI_FORMAT_D32_FLOAT_S8X24_UINT,
                        DXGI_FORMAT_R32G8X24_TYPELESS, DXGI_FORMAT_R32_FLOAT_X8X24_TYPELESS,
                        DXGI_FORMAT_X32_TYPELESS_G8X24_UINT, DXGI_FORMAT_NV12, DXGI_FORMAT_P010, DXGI_FORMAT_P016,
                        DXGI_FORMAT_420_OPAQUE, DXGI_FORMAT_NV11};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++) {
        CHECK_EQ_INT(format_info(two[i], &planes, false), S_OK);
        expect(planes == 2, two[i], "PlaneCount", 2, planes);
    }
    /* Negative: one plane for formats without stencil or chroma plane. */
    const UINT one[] = {DXGI_FORMAT_D32_FLOAT, DXGI_FORMAT_D16_UNORM, DXGI_FORMAT_R32_TYPELESS, DXGI_FORMAT_R8G8B8A8_UNORM,
                        DXGI_FORMAT_YUY2, DXGI_FORMAT_AYUV, DXGI_FORMAT_BC7_UNORM};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        CHECK_EQ_INT(format_info(one[i], &planes, false), S_OK);
        expect(planes == 1, one[i], "PlaneCount", 1, planes);
    }
    CHECK_EQ_INT(format_info(DXGI_FORMAT_R1_UNORM, &planes, false), E_INVALIDARG);
    CHECK_EQ_INT(format_info(116, &planes, false), E_INVALIDARG); /* between B4G4R4A4_UNORM and P208: no format */
    CHECK_EQ_INT(format_info(0xFFFFFFFF, &planes, false), E_INVALIDARG);
}

/* FORMAT_SUPPORT: UNKNOWN reports BUFFER (Support2 0 or TILED); an unsupported format is E_FAIL; the answer is
 * the format's own. */
static void test_format_support(void)
{
    D3D12_FEATURE_DATA_FORMAT_SUPPORT unknown, rgba, r32, d32, bc1, r16, r8, srgb;
    CHECK_EQ_INT(format_support(DXGI_FORMAT_UNKNOWN, &unknown, false), S_OK);
    CHECK_EQ_INT(unknown.Support1, D3D12_FORMAT_SUPPORT1_BUFFER);
    CHECK(unknown.Support2 == D3D12_FORMAT_SUPPORT2_NONE || unknown.Support2 == D3D12_FORMAT_SUPPORT2_TILED);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_R8G8B8A8_UNORM, &rgba, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_R32_UINT, &r32, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_D32_FLOAT, &d32, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_BC1_UNORM, &bc1, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_R16_UINT, &r16, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_R8_UNORM, &r8, false), S_OK);
    CHECK_EQ_INT(format_support(DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, &srgb, false), S_OK);
    /* Positive and negative per capability. */
    CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET);
    CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_BLENDABLE);
    CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_DISPLAY);
    CHECK(!(rgba.Support1 & D3D12_FORMAT_SUPPORT1_DEPTH_STENCIL));
    CHECK(!(rgba.Support1 & D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER));
    CHECK(d32.Support1 & D3D12_FORMAT_SUPPORT1_DEPTH_STENCIL);
    CHECK(!(d32.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET));
    CHECK(!(d32.Support1 & D3D12_FORMAT_SUPPORT1_BUFFER));
    CHECK(r32.Support1 & D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER);
    CHECK(r16.Support1 & D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER);
    CHECK(!(r8.Support1 & D3D12_FORMAT_SUPPORT1_IA_INDEX_BUFFER));
    CHECK(r32.Support2 & D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_ADD);
    CHECK(!(rgba.Support2 & D3D12_FORMAT_SUPPORT2_UAV_ATOMIC_ADD));
    CHECK(!(r32.Support1 & D3D12_FORMAT_SUPPORT1_BLENDABLE)); /* integer formats do not blend */
    CHECK(bc1.Support1 & D3D12_FORMAT_SUPPORT1_SHADER_SAMPLE);
    CHECK(!(bc1.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET));
    CHECK(!(srgb.Support1 & D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW)); /* sRGB has no typed UAV */
    CHECK(rgba.Support1 & D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW);
    /* Different formats, different answers (the bug: every format answered alike). */
    CHECK(rgba.Support1 != r32.Support1 && rgba.Support1 != d32.Support1 && d32.Support1 != bc1.Support1);
    /* Unsupported: E_FAIL and no flags. */
    const UINT unsupported[] = {DXGI_FORMAT_R1_UNORM, DXGI_FORMAT_P8, DXGI_FORMAT_A8P8, DXGI_FORMAT_AI44,
                                DXGI_FORMAT_IA44, DXGI_FORMAT_420_OPAQUE, 116, 0xFFFF};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        D3D12_FEATURE_DATA_FORMAT_SUPPORT none;
        HRESULT hr = format_support(unsupported[i], &none, false);
        expect(hr == E_FAIL, unsupported[i], "FORMAT_SUPPORT hr", E_FAIL, hr);
        expect(none.Support1 == 0 && none.Support2 == 0, unsupported[i], "no flags", 0, none.Support1 | none.Support2);
    }
}

/* MULTISAMPLE_QUALITY_LEVELS: the rules. */
static void test_quality_levels(void)
{
    UINT levels;
    /* SampleCount 0: E_FAIL, NumQualityLevels zeroed. */
    CHECK_EQ_INT(quality_levels(DXGI_FORMAT_R8G8B8A8_UNORM, 0, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels,
                                false), E_FAIL);
    CHECK_EQ_INT(levels, 0);
    CHECK_EQ_INT(quality_levels(DXGI_FORMAT_UNKNOWN, 0, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels, false),
                 E_FAIL);
    /* SampleCount 1: one level for every format, UNKNOWN and unsupported ones included. */
    for (UINT format = 0; format <= 200; format++) {
        HRESULT hr = quality_levels(format, 1, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels, false);
        expect(hr == S_OK && levels == 1, format, "one sample, one level", 1, levels);
    }
    /* Counts D3D12 does not define: S_OK and 0. */
    const UINT odd[] = {3, 5, 6, 7, 12, 33, 64, 0x80000000u};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        CHECK_EQ_INT(quality_levels(DXGI_FORMAT_R8G8B8A8_UNORM, odd[i], D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE,
                                    &levels, false), S_OK);
        CHECK_EQ_INT(levels, 0);
    }
    /* UNKNOWN above one sample: 0. */
    const UINT counts[] = {2, 4, 8, 16, 32};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        CHECK_EQ_INT(quality_levels(DXGI_FORMAT_UNKNOWN, counts[i], D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE,
                                    &levels, false), S_OK);
        CHECK_EQ_INT(levels, 0);
    }
    /* Flags preserved, both values. */
    CHECK_EQ_INT(quality_levels(DXGI_FORMAT_R8G8B8A8_UNORM, 4, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_TILED_RESOURCE,
                                &levels, false), S_OK);
    CHECK(levels >= 1);
    /* Every render-target format supports 4x with at least one level; a format that cannot be a render target or
     * depth buffer has none (BC1, R32G32B32_FLOAT, the typeless ones). */
    unsigned render_targets = 0;
    for (UINT format = 0; format <= 200; format++) {
        D3D12_FEATURE_DATA_FORMAT_SUPPORT support;
        if (FAILED(format_support(format, &support, false)))
            continue;
        HRESULT hr = quality_levels(format, 4, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels, false);
        CHECK_EQ_INT(hr, S_OK);
        if (support.Support1 & D3D12_FORMAT_SUPPORT1_RENDER_TARGET) {
            render_targets++;
            expect(levels >= 1, format, "render target format at 4x", 1, levels);
        }
        if (!(support.Support1 & (D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RENDERTARGET)))
            expect(levels == 0, format, "no multisampling without MULTISAMPLE_RENDERTARGET", 0, levels);
    }
    CHECK(render_targets > 40);
    CHECK_EQ_INT(quality_levels(DXGI_FORMAT_D32_FLOAT, 4, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels, false),
                 S_OK);
    CHECK(levels >= 1);
    CHECK_EQ_INT(quality_levels(DXGI_FORMAT_BC1_UNORM, 4, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, &levels, false),
                 S_OK);
    CHECK_EQ_INT(levels, 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"generated", test_generated},
        {"format_info", test_format_info},
        {"format_support", test_format_support},
        {"quality_levels", test_quality_levels},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device17, (void **)&device), S_OK);
        if (device != NULL) {
            cases[i].run();
            CHECK_EQ_INT(ID3D12Device17_Release(device), 0);
        }
        if (mismatches > 20)
            fprintf(stderr, "... and %u more mismatches\n", mismatches - 20);
        return d12test_finish();
    }
    fprintf(stderr, "usage: test_formats CASE\n");
    return 2;
}
