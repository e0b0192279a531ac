/* The application's compute shaders through the public D3D12 API (issue 31; docs/pipelines.md, "Dispatch on the
 * Vulkan driver"): an outside program (tests/outside/outside.h), run on d12rt's drivers and on Debian's vkd3d 1.2,
 * with the project's own shaders (spec/shaders: raw_fill, typed_bits). On a device that runs no shader
 * (D3D12_FEATURE_D12RT_SHADER_EXECUTION FALSE: the reference driver) every case says so and checks nothing.
 *   table_constants   raw_fill through a descriptor table (UAV u0 at slot 2 of a shader-visible heap) and root
 *                     constants (b0): word i = i * 3 + 100 for the 128 threads, the 32 words after them untouched
 *   root_views        raw_fill through its own root signature (RTS0: root CBV b0, root UAV u0)
 *   typed_uav         typed_bits: typed SRV t0 and typed UAV u0 (R32G32B32A32_UINT), its bit operations checked
 *   volatile          one list executed twice, the table's descriptor rewritten between the executions to name
 *                     another buffer: the second execution writes that buffer (root signature 1.0 "volatile";
 *                     vkd3d 1.2 copies descriptors at record time: a D3D12_RULE)
 *   uav_barrier       two dispatches on one UAV with a UAV barrier between: the second one's words
 *   clear_uav         ClearUnorderedAccessViewUint/Float on raw, R32_UINT, R32_FLOAT, R8G8B8A8_UNORM and
 *                     R16G16B16A16_UINT buffer views: each range holds the converted value, its neighbours untouched
 *   dispatches_1000   1 000 dispatches in one list (root constants changed and a UAV barrier between each): the
 *                     last one's words; on d12rt's Vulkan driver in at most 20 vkQueueSubmit2 calls
 *   root_uav_released a released buffer behind a root UAV: the device is removed (DXGI_ERROR_DEVICE_HUNG family) and
 *                     DRED's page fault names the freed buffer (d12rt only: vkd3d 1.2 has no DRED)
 *   null_descriptor   raw_fill through a table slot holding a null UAV (pResource NULL): the dispatch runs, its
 *                     writes are dropped, nothing is reported and the device stays (the buffer the slot named before
 *                     keeps its words)
 *   uninitialized_slot (d12rt, driver-reported messages on: drm_on.reg) a table slot never written: the driver's
 *                     GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED (VendorMessageId 938) on the [Dispatch #N] and the
 *                     dispatch not run; the same list with the slot written runs (the positive twin: table_constants)
 *   no_compiler       (its ctest hides libvkd3d-shader.so.1 from the Vulkan driver) CreateComputePipelineState is
 *                     E_INVALIDARG with CREATECOMPUTEPIPELINESTATE_INVALID_SHADER, no pipeline state made (d12rt only)
 *   sync_clean        (its ctest runs under D12RT_VULKAN_VALIDATION=sync, D12RT_VULKAN_VALIDATION_STRICT=1: any
 *                     validation message aborts) two dispatches writing one UAV with a UAV barrier between them: no
 *                     message at all (the sets, views, barriers and dispatches are valid Vulkan; d12rt only). The
 *                     hazard without the barrier is not asserted: Debian's layer (1.3.239) reports none for texel
 *                     buffer descriptors (docs/pipelines.md) */
#define _GNU_SOURCE
#include <time.h>
#include <wchar.h>

#include "../outside/outside.h"

#ifndef PEER_VKD3D
#include <dlfcn.h>

#include "d12rt/d3d12_ext.h"
#endif

#include "d12_shaders.h"

#include "compute_helpers.h"

/* ---- Cases ---- */

static void test_table_constants(void)
{
    fill_case f;
    if (fill_begin(&f)) {
        constants(f.c.list, 3, 100);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words);
        fill_is(words, WRITTEN, WORDS, 3, 100, 0xDEADBEEFu, __LINE__);
        NO_ERROR_MESSAGE();
    }
    fill_end(&f);
}

static void test_root_views(void)
{
    context c;
    if (!executes_shaders() || !context_make(&c)) {
        return;
    }
    const d12_shader_blob *blob = blob_named("raw_fill"); /* its RTS0: root CBV b0 (param 0), root UAV u0 (param 1) */
    ID3D12RootSignature *signature = NULL;
    CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, blob->code, blob->size, &IID_ID3D12RootSignature,
                                              (void **)&signature),
             S_OK);
    ID3D12PipelineState *state = signature ? pipeline("raw_fill", signature) : NULL;
    const uint32_t cb[64] = {7, 5};
    ID3D12Resource *cbv = upload(cb, sizeof cb); /* 256 bytes: a root CBV's alignment */
    ID3D12Resource *out = filled_uav(&c, 0x11111111u);
    if (state && cbv && out) {
        CHECK_HR(ID3D12CommandAllocator_Reset(c.allocator), S_OK);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(c.list, c.allocator, state), S_OK);
        ID3D12GraphicsCommandList_SetComputeRootSignature(c.list, signature);
        ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(c.list, 0, ID3D12Resource_GetGPUVirtualAddress(cbv));
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(c.list, 1, ID3D12Resource_GetGPUVirtualAddress(out));
        ID3D12GraphicsCommandList_Dispatch(c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(c.list), S_OK);
        context_run(&c);
        uint32_t words[WORDS];
        read_back(&c, out, words, sizeof words);
        fill_is(words, WRITTEN, WORDS, 7, 5, 0x11111111u, __LINE__);
        NO_ERROR_MESSAGE();
    }
    if (out)
        ID3D12Resource_Release(out);
    if (cbv)
        ID3D12Resource_Release(cbv);
    if (state)
        ID3D12PipelineState_Release(state);
    if (signature)
        ID3D12RootSignature_Release(signature);
    context_free(&c);
}

static uint32_t countbits(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static uint32_t bfrev(uint32_t v)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((v >> i) & 1u) << (31 - i);
    return r;
}

/* typed_bits.asm, on the CPU. */
static void typed_bits(const uint32_t in[4], uint32_t out[4])
{
    uint32_t x = in[0], y = in[1], z = in[2], w = in[3];
    uint32_t mask = 0xFu << 8, insert = z ^ x;
    uint32_t lowest = 0;
    while (y && !((y >> lowest) & 1u))
        lowest++;
    out[0] = ((x & 0xff00ff00u) >> 8) + countbits(x);
    out[1] = (uint32_t)((int32_t)(y | 0x0fu) >> 1) + (y ? lowest : 0xFFFFFFFFu);
    out[2] = (((insert << 8) & mask) | (y & ~mask)) ^ bfrev(z);
    out[3] = (~w >> 2) & 7u;
}

static void test_typed_uav(void)
{
    context c;
    if (!executes_shaders() || !context_make(&c))
        return;
    enum { ELEMENTS = 16 };
    static const D3D12_DESCRIPTOR_RANGE ranges[2] = {{D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0},
                                                     {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 1}};
    D3D12_ROOT_PARAMETER param = {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {2, ranges},
                                  D3D12_SHADER_VISIBILITY_ALL};
    ID3D12RootSignature *signature = root_signature(&param, 1);
    ID3D12PipelineState *state = signature ? pipeline("typed_bits", signature) : NULL;
    uint32_t input[ELEMENTS][4];
    for (unsigned i = 0; i < ELEMENTS; i++)
        for (unsigned k = 0; k < 4; k++)
            input[i][k] = 0x9E3779B9u * (i * 4 + k + 1) ^ (0x01010101u << k);
    ID3D12Resource *src = upload(input, sizeof input);
    ID3D12Resource *out = filled_uav(&c, 0);
    ID3D12DescriptorHeap *h = heap(2, 1);
    if (state && src && out && h) {
        D3D12_SHADER_RESOURCE_VIEW_DESC srv = {.Format = DXGI_FORMAT_R32G32B32A32_UINT,
                                               .ViewDimension = D3D12_SRV_DIMENSION_BUFFER,
                                               .Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING};
        srv.Buffer.NumElements = ELEMENTS;
        ID3D12Device_CreateShaderResourceView(g_device, src, &srv, cpu_handle(h, 0));
        uav(out, DXGI_FORMAT_R32G32B32A32_UINT, 0, ELEMENTS, cpu_handle(h, 1));
        CHECK_HR(ID3D12CommandAllocator_Reset(c.allocator), S_OK);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(c.list, c.allocator, state), S_OK);
        ID3D12GraphicsCommandList_SetComputeRootSignature(c.list, signature);
        ID3D12GraphicsCommandList_SetDescriptorHeaps(c.list, 1, &h);
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(c.list, 0, gpu_handle(h, 0));
        ID3D12GraphicsCommandList_Dispatch(c.list, 1, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(c.list), S_OK);
        context_run(&c);
        uint32_t words[ELEMENTS][4];
        read_back(&c, out, words, sizeof words);
        int same = 1;
        for (unsigned i = 0; i < ELEMENTS; i++) {
            uint32_t expected[4];
            typed_bits(input[i], expected);
            for (unsigned k = 0; k < 4; k++) {
                if (words[i][k] != expected[k] && same) {
                    fprintf(stderr, "    element %u.%u is 0x%08X, expected 0x%08X\n", i, k, words[i][k], expected[k]);
                    same = 0;
                }
            }
        }
        CHECK(same);
        NO_ERROR_MESSAGE();
    }
    if (h)
        ID3D12DescriptorHeap_Release(h);
    if (out)
        ID3D12Resource_Release(out);
    if (src)
        ID3D12Resource_Release(src);
    if (state)
        ID3D12PipelineState_Release(state);
    if (signature)
        ID3D12RootSignature_Release(signature);
    context_free(&c);
}

static void test_volatile(void)
{
    fill_case f;
    ID3D12Resource *second = NULL;
    if (fill_begin(&f)) {
        constants(f.c.list, 2, 9);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        second = filled_uav(&f.c, 0x22222222u);
        /* filled_uav reset the list: record the dispatch again, once, and execute it twice */
        CHECK_HR(ID3D12CommandAllocator_Reset(f.c.allocator), S_OK);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(f.c.list, f.c.allocator, f.state), S_OK);
        ID3D12GraphicsCommandList_SetComputeRootSignature(f.c.list, f.signature);
        ID3D12GraphicsCommandList_SetDescriptorHeaps(f.c.list, 1, &f.heap);
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(f.c.list, 1, gpu_handle(f.heap, 2));
        constants(f.c.list, 4, 1);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        /* The table's slot now names the second buffer: the same list writes it at its next execution. */
        uav(second, DXGI_FORMAT_UNKNOWN, 0, WORDS, cpu_handle(f.heap, 2));
        context_run(&f.c);
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words);
        fill_is(words, WRITTEN, WORDS, 4, 1, 0xDEADBEEFu, __LINE__);
        read_back(&f.c, second, words, sizeof words);
        D3D12_RULE(fill_is(words, WRITTEN, WORDS, 4, 1, 0x22222222u, __LINE__));
        NO_ERROR_MESSAGE();
    }
    if (second)
        ID3D12Resource_Release(second);
    fill_end(&f);
}

static void test_uav_barrier(void)
{
    fill_case f;
    if (fill_begin(&f)) {
        constants(f.c.list, 1, 50);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        uav_barrier(f.c.list, f.out);
        constants(f.c.list, 5, 6);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words);
        fill_is(words, WRITTEN, WORDS, 5, 6, 0xDEADBEEFu, __LINE__);
        NO_ERROR_MESSAGE();
    }
    fill_end(&f);
}

/* One clear: a view of `count` elements of `format` at byte 64 of a 256-byte buffer of 0xAB bytes; the bytes it
 * covers are `pattern` repeated, the others untouched. */
static void clear_case(context *c, DXGI_FORMAT format, UINT element, UINT count, const UINT *uints,
                       const FLOAT *floats, const unsigned char *pattern, size_t pattern_size, int line)
{
    enum { BYTES = 256, AT = 64 };
    ID3D12Resource *resource = buffer(D3D12_HEAP_TYPE_DEFAULT, BYTES);
    unsigned char fill[BYTES];
    memset(fill, 0xAB, sizeof fill);
    ID3D12Resource *src = upload(fill, sizeof fill);
    ID3D12DescriptorHeap *gpu = heap(1, 1), *cpu = heap(1, 0);
    if (!resource || !src || !gpu || !cpu)
        return;
    uav(resource, format, AT / element, count, cpu_handle(gpu, 0));
    uav(resource, format, AT / element, count, cpu_handle(cpu, 0));
    CHECK_HR(ID3D12CommandAllocator_Reset(c->allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(c->list, c->allocator, NULL), S_OK);
    D3D12_RESOURCE_BARRIER barrier = {.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION};
    barrier.Transition = (D3D12_RESOURCE_TRANSITION_BARRIER){resource, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
                                                             D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                             D3D12_RESOURCE_STATE_COPY_DEST};
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    ID3D12GraphicsCommandList_CopyBufferRegion(c->list, resource, 0, src, 0, BYTES);
    barrier.Transition.StateBefore = D3D12_RESOURCE_STATE_COPY_DEST;
    barrier.Transition.StateAfter = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;
    ID3D12GraphicsCommandList_ResourceBarrier(c->list, 1, &barrier);
    ID3D12GraphicsCommandList_SetDescriptorHeaps(c->list, 1, &gpu);
    if (uints)
        ID3D12GraphicsCommandList_ClearUnorderedAccessViewUint(c->list, gpu_handle(gpu, 0), cpu_handle(cpu, 0),
                                                               resource, uints, 0, NULL);
    else
        ID3D12GraphicsCommandList_ClearUnorderedAccessViewFloat(c->list, gpu_handle(gpu, 0), cpu_handle(cpu, 0),
                                                                resource, floats, 0, NULL);
    CHECK_HR(ID3D12GraphicsCommandList_Close(c->list), S_OK);
    context_run(c);
    unsigned char bytes[BYTES];
    read_back(c, resource, bytes, sizeof bytes);
    size_t end = AT + (size_t)count * element;
    int same = 1;
    for (size_t b = 0; b < BYTES && same; b++) {
        unsigned char expected = b >= AT && b < end ? pattern[(b - AT) % pattern_size] : 0xAB;
        if (bytes[b] != expected) {
            fprintf(stderr, "    byte %zu is 0x%02X, expected 0x%02X\n", b, bytes[b], expected);
            same = 0;
        }
    }
    outside_check(same, line, "the cleared bytes");
    NO_ERROR_MESSAGE();
    ID3D12DescriptorHeap_Release(cpu);
    ID3D12DescriptorHeap_Release(gpu);
    ID3D12Resource_Release(src);
    ID3D12Resource_Release(resource);
}

static void test_clear_uav(void)
{
    context c;
    if (!executes_shaders() || !context_make(&c))
        return;
    static const UINT raw[4] = {0x12345678u, 1, 2, 3};
    static const unsigned char raw_bytes[4] = {0x78, 0x56, 0x34, 0x12};
    clear_case(&c, DXGI_FORMAT_UNKNOWN, 4, 16, raw, NULL, raw_bytes, 4, __LINE__);
    static const UINT r32[4] = {0xCAFEF00Du, 0, 0, 0};
    static const unsigned char r32_bytes[4] = {0x0D, 0xF0, 0xFE, 0xCA};
    clear_case(&c, DXGI_FORMAT_R32_UINT, 4, 8, r32, NULL, r32_bytes, 4, __LINE__);
    static const FLOAT f32[4] = {1.5f, 0, 0, 0};
    static const unsigned char f32_bytes[4] = {0x00, 0x00, 0xC0, 0x3F};
    clear_case(&c, DXGI_FORMAT_R32_FLOAT, 4, 8, NULL, f32, f32_bytes, 4, __LINE__);
    /* 0.25 -> 63.75 -> 64 (round to nearest), 2.0 clamped. Not 0.5: 127.5 is a tie, which D3D's 0.6-ULP conversion
     * tolerance leaves to the implementation (vkd3d 1.2 on the H200 wrote 127, lavapipe 128). */
    static const FLOAT unorm[4] = {1.0f, 0.0f, 0.25f, 2.0f};
    static const unsigned char unorm_bytes[4] = {0xFF, 0x00, 0x40, 0xFF};
    clear_case(&c, DXGI_FORMAT_R8G8B8A8_UNORM, 4, 8, NULL, unorm, unorm_bytes, 4, __LINE__);
    static const UINT u16[4] = {1, 2, 3, 0xFFFF}; /* in range (out of range, vkd3d 1.2 saturates) */
    static const unsigned char u16_bytes[8] = {1, 0, 2, 0, 3, 0, 0xFF, 0xFF};
    clear_case(&c, DXGI_FORMAT_R16G16B16A16_UINT, 8, 4, u16, NULL, u16_bytes, 8, __LINE__);
    context_free(&c);
}

#ifndef PEER_VKD3D
/* The Vulkan driver's count of vkQueueSubmit2 calls (d12_vkdrv_test_queue_submits); ~0: not that driver. */
static unsigned long long queue_submits(void)
{
    const char *path = getenv("D12RT_DRIVER");
    void *driver = path && *path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    unsigned long long (*count)(void) =
        driver ? (unsigned long long (*)(void))dlsym(driver, "d12_vkdrv_test_queue_submits") : NULL;
    unsigned long long n = count ? count() : ~0ull;
    if (driver)
        dlclose(driver);
    return n;
}
#endif

static void test_dispatches_1000(void)
{
    fill_case f;
    if (fill_begin(&f)) {
        for (uint32_t i = 0; i < 1000; i++) {
            constants(f.c.list, 3, i);
            ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
            uav_barrier(f.c.list, f.out);
        }
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
#ifndef PEER_VKD3D
        unsigned long long before = queue_submits();
#endif
        context_run(&f.c);
#ifndef PEER_VKD3D
        unsigned long long submits = queue_submits() - before;
        printf("1 000 dispatches: %llu vkQueueSubmit2 calls\n", submits);
        if (before != ~0ull)
            CHECK(submits <= 20);
#endif
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words);
        fill_is(words, WRITTEN, WORDS, 3, 999, 0xDEADBEEFu, __LINE__);
        NO_ERROR_MESSAGE();
    }
    fill_end(&f);
}

static void test_null_descriptor(void)
{
    fill_case f;
    if (fill_begin(&f)) {
        D3D12_UNORDERED_ACCESS_VIEW_DESC desc = {.Format = DXGI_FORMAT_R32_TYPELESS,
                                                 .ViewDimension = D3D12_UAV_DIMENSION_BUFFER};
        desc.Buffer.NumElements = WORDS;
        desc.Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
        ID3D12Device_CreateUnorderedAccessView(g_device, NULL, NULL, &desc, cpu_handle(f.heap, 2));
        constants(f.c.list, 3, 100);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), S_OK);
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words);
        fill_is(words, 0, WORDS, 0, 0, 0xDEADBEEFu, __LINE__);
        NO_ERROR_MESSAGE();
    }
    fill_end(&f);
}

#ifndef PEER_VKD3D
/* Whether a stored message is the driver's DESCRIPTOR_UNINITIALIZED finding (its description names the register). */
static void visit_uninitialized(const D3D12_MESSAGE *message, void *context)
{
    if (message->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE &&
        strstr(message->pDescription, "GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED") &&
        strstr(message->pDescription, "u0"))
        ++*(int *)context;
}

static void test_uninitialized_slot(void)
{
    fill_case f;
    if (fill_begin(&f)) {
        /* the table starts at slot 3, which nothing wrote (slot 2 holds the UAV) */
        ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(f.c.list, 1, gpu_handle(f.heap, 3));
        constants(f.c.list, 3, 100);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        CHECK_HR(ID3D12Device_GetDeviceRemovedReason(g_device), S_OK);
        uint32_t words[WORDS];
        read_back(&f.c, f.out, words, sizeof words); /* flushes the execution's findings (a Signal) */
        int found = 0;
        outside_each_message(visit_uninitialized, &found);
        CHECK(found == 1);
        fill_is(words, 0, WORDS, 0, 0, 0xDEADBEEFu, __LINE__);
    }
    fill_end(&f);
}

/* A released buffer behind a root UAV: the device is removed, DRED's page fault names it among the freed. */
static void test_root_uav_released(void)
{
    ID3D12DeviceRemovedExtendedDataSettings *settings = NULL;
    context c;
    if (!executes_shaders() || !context_make(&c))
        return;
    const d12_shader_blob *blob = blob_named("raw_fill");
    ID3D12RootSignature *signature = NULL;
    CHECK_HR(ID3D12Device_CreateRootSignature(g_device, 0, blob->code, blob->size, &IID_ID3D12RootSignature,
                                              (void **)&signature),
             S_OK);
    ID3D12PipelineState *state = signature ? pipeline("raw_fill", signature) : NULL;
    const uint32_t cb[64] = {1, 2};
    ID3D12Resource *cbv = upload(cb, sizeof cb);
    ID3D12Resource *gone = buffer(D3D12_HEAP_TYPE_DEFAULT, 65536);
    (void)settings;
    if (state && cbv && gone) {
        ID3D12Resource_SetName(gone, L"Particles");
        D3D12_GPU_VIRTUAL_ADDRESS va = ID3D12Resource_GetGPUVirtualAddress(gone);
        CHECK_HR(ID3D12CommandAllocator_Reset(c.allocator), S_OK);
        CHECK_HR(ID3D12GraphicsCommandList_Reset(c.list, c.allocator, state), S_OK);
        ID3D12GraphicsCommandList_SetComputeRootSignature(c.list, signature);
        ID3D12GraphicsCommandList_SetComputeRootConstantBufferView(c.list, 0, ID3D12Resource_GetGPUVirtualAddress(cbv));
        ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(c.list, 1, va);
        ID3D12GraphicsCommandList_Dispatch(c.list, 1, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(c.list), S_OK);
        ID3D12Resource_Release(gone); /* before the list executes */
        gone = NULL;
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)c.list};
        ID3D12CommandQueue_ExecuteCommandLists(c.queue, 1, lists);
        ID3D12CommandQueue_Signal(c.queue, c.fence, ++c.value); /* S_OK, or DEVICE_REMOVED once it is */
        for (unsigned spin = 0; ID3D12Fence_GetCompletedValue(c.fence) < c.value && spin < 60000; spin++) {
            struct timespec t = {0, 1000000};
            nanosleep(&t, NULL);
        }
        HRESULT reason = ID3D12Device_GetDeviceRemovedReason(g_device);
        CHECK(reason == DXGI_ERROR_DEVICE_HUNG || reason == DXGI_ERROR_DEVICE_RESET ||
              reason == DXGI_ERROR_DEVICE_REMOVED);
        ID3D12DeviceRemovedExtendedData *dred = NULL;
        if (CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12DeviceRemovedExtendedData, (void **)&dred),
                     S_OK)) {
            D3D12_DRED_PAGE_FAULT_OUTPUT fault = {0};
            if (CHECK_HR(ID3D12DeviceRemovedExtendedData_GetPageFaultAllocationOutput(dred, &fault), S_OK)) {
                CHECK(fault.PageFaultVA == va);
                int named = 0;
                for (const D3D12_DRED_ALLOCATION_NODE *n = fault.pHeadRecentFreedAllocationNode; n; n = n->pNext)
                    named |= n->ObjectNameW && !wcscmp(n->ObjectNameW, L"Particles");
                CHECK(named);
            }
            D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT crumbs = {0};
            ID3D12DeviceRemovedExtendedData_GetAutoBreadcrumbsOutput(dred, &crumbs);
            ID3D12DeviceRemovedExtendedData_Release(dred);
        }
        /* the removal's own messages; nothing else is asserted about them */
        if (g_info)
            ID3D12InfoQueue_ClearStoredMessages(g_info);
    }
    if (gone)
        ID3D12Resource_Release(gone);
    if (cbv)
        ID3D12Resource_Release(cbv);
    if (state)
        ID3D12PipelineState_Release(state);
    if (signature)
        ID3D12RootSignature_Release(signature);
    context_free(&c);
}

static void test_no_compiler(void)
{
    static const D3D12_DESCRIPTOR_RANGE range = {D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 0};
    D3D12_ROOT_PARAMETER params[2] = {
        {D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, .Constants = {0, 0, 4}, D3D12_SHADER_VISIBILITY_ALL},
        {D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, .DescriptorTable = {1, &range}, D3D12_SHADER_VISIBILITY_ALL},
    };
    ID3D12RootSignature *signature = root_signature(params, 2);
    const d12_shader_blob *blob = blob_named("raw_fill");
    D3D12_COMPUTE_PIPELINE_STATE_DESC desc = {signature, {blob->code, blob->size}, 0, {NULL, 0},
                                              D3D12_PIPELINE_STATE_FLAG_NONE};
    ID3D12PipelineState *state = (ID3D12PipelineState *)(uintptr_t)1;
    CHECK_HR(ID3D12Device_CreateComputePipelineState(g_device, &desc, &IID_ID3D12PipelineState, (void **)&state),
             E_INVALIDARG);
    CHECK(state == NULL);
    D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATECOMPUTEPIPELINESTATE_INVALID_SHADER, "could not compile");
    /* with the same root signature and a compiler, the same desc works: compute.vulkan.table_constants */
    if (signature)
        ID3D12RootSignature_Release(signature);
}

/* Whether a stored message is a driver-reported SYNC-HAZARD. */
static void visit_hazard(const D3D12_MESSAGE *message, void *context)
{
    if (message->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE && strstr(message->pDescription, "SYNC-HAZARD"))
        ++*(int *)context;
}

/* The SYNC-HAZARD driver messages of two dispatches on one UAV, with or without a UAV barrier between them. */
static int hazards_after(int barrier)
{
    fill_case f;
    int hazards = -1;
    if (fill_begin(&f)) {
        constants(f.c.list, 1, 1);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        if (barrier)
            uav_barrier(f.c.list, f.out);
        constants(f.c.list, 2, 2);
        ID3D12GraphicsCommandList_Dispatch(f.c.list, 2, 1, 1);
        CHECK_HR(ID3D12GraphicsCommandList_Close(f.c.list), S_OK);
        context_run(&f.c);
        hazards = 0;
        outside_each_message(visit_hazard, &hazards);
    }
    fill_end(&f);
    return hazards;
}

static void test_sync_clean(void)
{
    int with = hazards_after(1);
    printf("SYNC-HAZARD messages with a UAV barrier: %d\n", with);
    if (with >= 0)
        CHECK(with == 0);
}
#endif

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"table_constants", test_table_constants},
        {"root_views", test_root_views},
        {"typed_uav", test_typed_uav},
        {"volatile", test_volatile},
        {"uav_barrier", test_uav_barrier},
        {"clear_uav", test_clear_uav},
        {"dispatches_1000", test_dispatches_1000},
        {"null_descriptor", test_null_descriptor},
#ifndef PEER_VKD3D
        {"root_uav_released", test_root_uav_released},
        {"sync_clean", test_sync_clean},
        {"no_compiler", test_no_compiler},
        {"uninitialized_slot", test_uninitialized_slot},
#endif
    };
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
