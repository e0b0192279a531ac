/* Buffers as Windows creates them, their allocation info and copyable footprints, through the public D3D12 API alone
 * (issue 29 item 3, "Checked by"; docs/resources.md): built against d12rt (run on the reference driver and on the
 * Vulkan driver) and against Debian's vkd3d 1.2 on lavapipe (tests/buffers/CMakeLists.txt), so that every
 * expectation is one a correct D3D12 implementation meets. tests/gpu/test_gpu_issue29.c checks the same rules from
 * inside (the exact message texts); this program proves them against an implementation that is not ours.
 *
 *   buffers_outside CASE   render_target_default | refusals | acceleration_structure | allocation_info |
 *                          allocation_info1 | footprints | footprints_invalid
 *
 * What vkd3d 1.2 does differently, left out of its build (tests/outside/outside.h):
 * - no ID3D12InfoQueue: no message can be read;
 * - ALLOW_DEPTH_STENCIL on a buffer is accepted (D3D12: E_INVALIDARG, CREATERESOURCE_INVALIDMISCFLAGS);
 * - GetResourceAllocationInfo answers {0, 0} for no descs (D3D12: {0, 1}) and for more than one desc (it handles one);
 * - GetCopyableFootprints accepts a BaseOffset that is not a multiple of 512
 *   (D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT; D3D12: every output all-ones, GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET);
 * - no ID3D12Device4, so no GetResourceAllocationInfo1.
 * Measured with this program (every other check here runs on vkd3d 1.2 and passes). */
#include "../outside/outside.h"

static D3D12_RESOURCE_DESC buffer_desc(UINT64 width)
{
    D3D12_RESOURCE_DESC desc = {D3D12_RESOURCE_DIMENSION_BUFFER, 0, width, 1, 1, 1, DXGI_FORMAT_UNKNOWN, {1, 0},
                                D3D12_TEXTURE_LAYOUT_ROW_MAJOR, D3D12_RESOURCE_FLAG_NONE};
    return desc;
}

static D3D12_RESOURCE_STATES initial_state(D3D12_HEAP_TYPE type)
{
    return type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
           : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                              : D3D12_RESOURCE_STATE_COMMON;
}

/* Creates a 256-byte committed buffer and releases it; a failure must leave the out-pointer NULL. */
static HRESULT try_buffer(D3D12_HEAP_TYPE type, D3D12_RESOURCE_FLAGS flags, D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {type, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_MEMORY_POOL_UNKNOWN, 1, 1};
    D3D12_RESOURCE_DESC desc = buffer_desc(256);
    desc.Flags = flags;
    ID3D12Resource *resource = (ID3D12Resource *)(uintptr_t)1; /* a failure must clear it */
    HRESULT hr = ID3D12Device_CreateCommittedResource(g_device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (SUCCEEDED(hr))
        CHECK(ID3D12Resource_Release(resource) == 0);
    else
        CHECK(resource == NULL);
    return hr;
}

#define RT D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET
#define UAV D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS

/* ---- render_target_default: ALLOW_RENDER_TARGET on a DEFAULT buffer is allowed, alone and with UAV ---- */
static void test_render_target_default(void)
{
    CHECK_HR(try_buffer(D3D12_HEAP_TYPE_DEFAULT, RT, D3D12_RESOURCE_STATE_COMMON), S_OK);
    CHECK_HR(try_buffer(D3D12_HEAP_TYPE_DEFAULT, RT | UAV, D3D12_RESOURCE_STATE_COMMON), S_OK);
    CHECK_HR(try_buffer(D3D12_HEAP_TYPE_DEFAULT, UAV, D3D12_RESOURCE_STATE_COMMON), S_OK);
    NO_ERROR_MESSAGE();
}

/* ---- refusals: DEPTH_STENCIL and SIMULTANEOUS_ACCESS on any buffer, RT and UAV on the CPU heaps ---- */
static void test_refusals(void)
{
    const D3D12_HEAP_TYPE heaps[] = {D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    for (size_t h = 0; h < 3; h++) {
        D3D12_RULE(CHECK_HR(try_buffer(heaps[h], D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, initial_state(heaps[h])),
                            E_INVALIDARG));
        D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDMISCFLAGS, "ALLOW_DEPTH_STENCIL");
        CHECK_HR(try_buffer(heaps[h], D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS, initial_state(heaps[h])),
                 E_INVALIDARG);
        D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDMISCFLAGS, "ALLOW_SIMULTANEOUS_ACCESS");
    }
    for (size_t h = 1; h < 3; h++) {
        CHECK_HR(try_buffer(heaps[h], RT, initial_state(heaps[h])), E_INVALIDARG);
        D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALIDHEAPPROPERTIES, "ALLOW_RENDER_TARGET");
        CHECK_HR(try_buffer(heaps[h], UAV, initial_state(heaps[h])), E_INVALIDARG);
        D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALIDHEAPPROPERTIES, "ALLOW_UNORDERED_ACCESS");
    }
    /* The positive twins: the same heaps without the flags. */
    for (size_t h = 0; h < 3; h++)
        CHECK_HR(try_buffer(heaps[h], D3D12_RESOURCE_FLAG_NONE, initial_state(heaps[h])), S_OK);
    NO_ERROR_MESSAGE();
}

/* ---- acceleration_structure: the state needs ALLOW_UNORDERED_ACCESS; with it, ray tracing must be offered ---- */
static void test_acceleration_structure(void)
{
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(g_device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5),
             S_OK);
    int offered = options5.RaytracingTier != D3D12_RAYTRACING_TIER_NOT_SUPPORTED;
    const D3D12_RESOURCE_STATES state = D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE;
    CHECK_HR(try_buffer(D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_FLAG_NONE, state), E_INVALIDARG);
    D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDDESC, "ALLOW_UNORDERED_ACCESS");
    CHECK_HR(try_buffer(D3D12_HEAP_TYPE_DEFAULT, UAV, state), offered ? S_OK : E_INVALIDARG);
    if (!offered)
        D3D12_MESSAGE_TEXT(D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDDESC, "ray tracing");
    NO_ERROR_MESSAGE();
}

/* GetResourceAllocationInfo returns a struct: under vkd3d's ms_abi its address follows `this`. */
static D3D12_RESOURCE_ALLOCATION_INFO allocation_info(UINT mask, UINT count, const D3D12_RESOURCE_DESC *descs)
{
#ifdef PEER_VKD3D
    D3D12_RESOURCE_ALLOCATION_INFO info;
    typedef D3D12_RESOURCE_ALLOCATION_INFO *(STDMETHODCALLTYPE * fn)(ID3D12Device *, D3D12_RESOURCE_ALLOCATION_INFO *,
                                                                     UINT, UINT, const D3D12_RESOURCE_DESC *);
    ((fn)(void *)g_device->lpVtbl->GetResourceAllocationInfo)(g_device, &info, mask, count, descs);
    return info;
#else
    return ID3D12Device_GetResourceAllocationInfo(g_device, mask, count, descs);
#endif
}

#define K64 ((UINT64)65536)

static int info_is(D3D12_RESOURCE_ALLOCATION_INFO info, UINT64 size, UINT64 alignment, int line)
{
    int ok = outside_check(info.SizeInBytes == size && info.Alignment == alignment, line, "allocation info");
    if (!ok)
        fprintf(stderr, "    got {%llu, %llu}, expected {%llu, %llu}\n", (unsigned long long)info.SizeInBytes,
                (unsigned long long)info.Alignment, (unsigned long long)size, (unsigned long long)alignment);
    return ok;
}

/* ---- allocation_info: 64 KiB alignment, sizes rounded up to it; {0, 1} for no descs; UINT64_MAX unplaceable ---- */
static void test_allocation_info(void)
{
    const UINT64 widths[][2] = {{1, K64}, {K64, K64}, {K64 + 1, 2 * K64}, {1000000, 16 * K64}};
    for (size_t i = 0; i < 4; i++) {
        D3D12_RESOURCE_DESC desc = buffer_desc(widths[i][0]);
        info_is(allocation_info(0, 1, &desc), widths[i][1], K64, __LINE__);
        desc.Alignment = K64; /* the one explicit alignment a buffer has */
        info_is(allocation_info(1, 1, &desc), widths[i][1], K64, __LINE__);
    }
    D3D12_RESOURCE_DESC two[2] = {buffer_desc(10), buffer_desc(K64 + 10)};
    D3D12_RULE(info_is(allocation_info(0, 2, two), 3 * K64, K64, __LINE__));
    NO_ERROR_MESSAGE();
    D3D12_RULE(info_is(allocation_info(0, 0, NULL), 0, 1, __LINE__));
    D3D12_RESOURCE_DESC misaligned = buffer_desc(64);
    misaligned.Alignment = 4096;
    CHECK(allocation_info(0, 1, &misaligned).SizeInBytes == UINT64_MAX);
    D3D12_MESSAGE(D3D12_MESSAGE_ID_GETRESOURCEALLOCATIONINFO_INVALIDRDESCS);
}

/* ---- allocation_info1: ID3D12Device4's per-desc answers, placed one after another at 64 KiB boundaries ---- */
static void test_allocation_info1(void)
{
#ifndef PEER_VKD3D
    ID3D12Device4 *device4 = NULL;
    if (!CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12Device4, (void **)&device4), S_OK))
        return;
    D3D12_RESOURCE_DESC three[3] = {buffer_desc(10), buffer_desc(K64 + 10), buffer_desc(K64)};
    D3D12_RESOURCE_ALLOCATION_INFO1 each[3];
    info_is(ID3D12Device4_GetResourceAllocationInfo1(device4, 0, 3, three, each), 4 * K64, K64, __LINE__);
    CHECK(each[0].Offset == 0 && each[0].SizeInBytes == K64 && each[0].Alignment == K64);
    CHECK(each[1].Offset == K64 && each[1].SizeInBytes == 2 * K64 && each[1].Alignment == K64);
    CHECK(each[2].Offset == 3 * K64 && each[2].SizeInBytes == K64 && each[2].Alignment == K64);
    NO_ERROR_MESSAGE();
    ID3D12Device4_Release(device4);
#endif
}

typedef struct footprints {
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT layout[2];
    UINT rows[2];
    UINT64 row_size[2], total;
} footprints;

/* ---- footprints: Offset = BaseOffset, UNKNOWN, Width, 1 × 1, RowPitch = Width rounded up to 256, one row ---- */
static void test_footprints(void)
{
    const UINT64 widths[][2] = {{1000, 1024}, {256, 256}, {1, 256}, {65537, 65792}};
    for (size_t i = 0; i < 4; i++) {
        D3D12_RESOURCE_DESC desc = buffer_desc(widths[i][0]);
        footprints o;
        memset(&o, 0xAB, sizeof o);
        ID3D12Device_GetCopyableFootprints(g_device, &desc, 0, 1, 1024, o.layout, o.rows, o.row_size, &o.total);
        CHECK(o.layout[0].Offset == 1024);
        CHECK(o.layout[0].Footprint.Format == DXGI_FORMAT_UNKNOWN);
        CHECK(o.layout[0].Footprint.Width == widths[i][0]);
        CHECK(o.layout[0].Footprint.Height == 1 && o.layout[0].Footprint.Depth == 1);
        CHECK(o.layout[0].Footprint.RowPitch == widths[i][1]);
        CHECK(o.rows[0] == 1 && o.row_size[0] == widths[i][0] && o.total == widths[i][0]);
        UINT64 total = 0; /* every output is optional */
        ID3D12Device_GetCopyableFootprints(g_device, &desc, 0, 1, 0, NULL, NULL, NULL, &total);
        CHECK(total == widths[i][0]);
    }
    NO_ERROR_MESSAGE();
}

static int all_ones(const void *p, size_t size)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < size; i++)
        if (b[i] != 0xFF)
            return 0;
    return 1;
}


/* ---- footprints_invalid: a subresource range past the buffer's one, a BaseOffset not a multiple of 512: every
 * output all-ones ---- */
static void test_footprints_invalid(void)
{
    D3D12_RESOURCE_DESC desc = buffer_desc(1000);
    const struct {
        UINT first, count;
        UINT64 base;
        D3D12_MESSAGE_ID id;
    } bad[] = {
        {1, 1, 0, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE},
        {0, 2, 0, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE},
        {0, 1, 100, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        footprints o;
        memset(&o, 0, sizeof o);
        ID3D12Device_GetCopyableFootprints(g_device, &desc, bad[i].first, bad[i].count, bad[i].base, o.layout, o.rows,
                                           o.row_size, &o.total);
        int filled = all_ones(o.layout, bad[i].count * sizeof o.layout[0]) &&
                     all_ones(o.rows, bad[i].count * sizeof(UINT)) &&
                     all_ones(o.row_size, bad[i].count * sizeof(UINT64)) && o.total == UINT64_MAX;
        if (bad[i].base)
            D3D12_RULE(CHECK(filled));
        else
            CHECK(filled);
        D3D12_MESSAGE(bad[i].id);
    }
    /* The positive twin: BaseOffset 512 is placed. */
    footprints o;
    ID3D12Device_GetCopyableFootprints(g_device, &desc, 0, 1, 512, o.layout, o.rows, o.row_size, &o.total);
    CHECK(o.layout[0].Offset == 512 && o.total == 1000);
    NO_ERROR_MESSAGE();
}

int main(int argc, char **argv)
{
    static const outside_case cases[] = {
        {"render_target_default", test_render_target_default}, {"refusals", test_refusals},
        {"acceleration_structure", test_acceleration_structure}, {"allocation_info", test_allocation_info},
        {"allocation_info1", test_allocation_info1}, {"footprints", test_footprints},
        {"footprints_invalid", test_footprints_invalid},
    };
    return outside_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
