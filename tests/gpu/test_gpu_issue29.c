/* GPU work as Windows has it, where issue 29's red team and the peers' buffer tests found d12rt differing:
 *   dispatch_*      Dispatch counts above D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION are dropped with
 *                   OVERSIZED_DISPATCH (1296) and never reach the driver (D12RT_DDI_TRACE shows which did); Close
 *                   stays S_OK; zero and the limit itself are legal and silent.
 *   buffer_*        buffers as Windows creates them (vkd3d-proton's invalid_buffer_desc_tests, test_buffer_rtv_dsv_usage):
 *                   ALLOW_RENDER_TARGET accepted on DEFAULT; the refusals with their debug-layer IDs; the
 *                   acceleration-structure state's rules.
 *   allocation_info, footprints*   GetResourceAllocationInfo(1) and GetCopyableFootprints(1) for buffers.
 *   copy_onto_next_buffer  a copy past its destination's end that lands exactly on the next buffer: reported by
 *                   both drivers the same way, the next buffer untouched.
 * One process per case, through libd12rt's public ABI; each case runs on both drivers (tests/vulkan). */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12rt/d3d12_ext.h" /* ID3D12Debug7, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE (past the 1.606 headers) */
#include "../gpu_harness.h"

/* ======== Dispatch ======== */

/* The pfnDispatch lines the DDI trace (D12RT_DDI_TRACE, set by CMake) holds, as "X Y Z" each, newline-separated. */
static void traced_dispatches(char *out, size_t size)
{
    out[0] = '\0';
    const char *path = getenv("D12RT_DDI_TRACE");
    FILE *file = path ? fopen(path, "r") : NULL;
    if (!CHECK(file != NULL))
        return;
    char line[1024];
    size_t used = 0;
    while (fgets(line, sizeof line, file)) {
        unsigned x, y, z;
        const char *at = strstr(line, " pfnDispatch ");
        if (line[0] == '>' && at &&
            sscanf(strstr(at, "ThreadGroupCountX="), "ThreadGroupCountX=%u ThreadGroupCountY=%u ThreadGroupCountZ=%u",
                   &x, &y, &z) == 3) {
            int n = snprintf(out + used, size - used, "%u %u %u\n", x, y, z);
            if (n > 0 && (size_t)n < size - used)
                used += (size_t)n;
        }
    }
    fclose(file);
}

/* Each oversized dimension alone, and all three: one ERROR each naming the first dimension over and the limit; the
 * limit itself and a zero count pass silently to the driver; Close S_OK; the list executes. */
static void test_dispatch_oversized(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &ctx))
        return;
    static const struct {
        UINT x, y, z;
        const char *text; /* NULL: legal */
    } calls[] = {
        {65536, 1, 1, "ThreadGroupCountX = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {1, 65536, 1, "ThreadGroupCountY = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {1, 1, 0xFFFFFFFFu,
         "ThreadGroupCountZ = 4294967295 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {65536, 65536, 65536,
         "ThreadGroupCountX = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535); the dispatch "
         "is dropped"},
        {65535, 1, 1, NULL}, /* the limit in each dimension (not all at once: 2.8e14 groups would trip the TDR) */
        {1, 65535, 1, NULL},
        {1, 1, 65535, NULL},
        {0, 1, 1, NULL},
        {0, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        ID3D12GraphicsCommandList_Dispatch(ctx.list, calls[i].x, calls[i].y, calls[i].z);
        if (calls[i].text) {
            message_info info = {0};
            if (CHECK(check_one_message(iq, D3D12_MESSAGE_ID_OVERSIZED_DISPATCH, calls[i].text, __FILE__, __LINE__,
                                        "OVERSIZED_DISPATCH"))) {
                count_id(iq, D3D12_MESSAGE_ID_OVERSIZED_DISPATCH, NULL, &info);
                CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
            }
            CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 1);
        } else {
            if (!CHECK(ID3D12InfoQueue_GetNumStoredMessages(iq) == 0))
                dump_messages(iq);
        }
    }
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK); /* not a recording error */
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    char traced[512];
    traced_dispatches(traced, sizeof traced);
    CHECK_EQ_STR(traced, "65535 1 1\n1 65535 1\n1 1 65535\n0 1 1\n0 0 0\n"); /* the driver saw exactly the legal ones */
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* Without the debug layer: still dropped (the driver never sees it), and no message (there is no InfoQueue). */
static void test_dispatch_oversized_no_debug_layer(void)
{
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 70000);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 2, 3, 4);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    char traced[512];
    traced_dispatches(traced, sizeof traced);
    CHECK_EQ_STR(traced, "2 3 4\n");
    release_context(&ctx);
    RELEASE_LAST(device);
}


/* ======== A copy past its destination's end, onto the next buffer ======== */

/* The stored message whose text contains `text`, or NULL (malloc'ed). */
static D3D12_MESSAGE *find_text(ID3D12InfoQueue *iq, const char *text)
{
    for (UINT64 i = 0; i < ID3D12InfoQueue_GetNumStoredMessages(iq); i++) {
        D3D12_MESSAGE *m = stored_message(iq, i);
        if (m && strstr(m->pDescription, text))
            return m;
        free(m);
    }
    return NULL;
}

/* The red team's case: CopyBufferRegion into 'Small' at the offset where 'Neighbour' begins (the VA space puts a
 * 64 KiB gap after every allocation, so the offset skips Small's span and its gap). Both drivers: the debug layer's
 * ERROR at record time (841, Close S_OK), at execution the driver's COPY_PAST_END finding naming Small, whatever the
 * bytes there hold, and Neighbour untouched (before: the reference driver wrote it, the Vulkan driver dropped the
 * copy, neither said so). A copy inside Small is the positive twin: it lands. */
static void test_copy_onto_next_buffer(void)
{
    ID3D12Device *device = create_drm_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *small = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *neighbour = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *src = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    ID3D12Resource_SetName(small, L"Small");
    ID3D12Resource_SetName(neighbour, L"Neighbour");
    unsigned char *bytes = NULL;
    D3D12_RANGE none = {0, 0};
    if (CHECK_HR(ID3D12Resource_Map(src, 0, NULL, (void **)&bytes), S_OK)) {
        memset(bytes, 0xAB, 256);
        ID3D12Resource_Unmap(src, 0, NULL);
    }
    D3D12_GPU_VIRTUAL_ADDRESS small_va = ID3D12Resource_GetGPUVirtualAddress(small);
    D3D12_GPU_VIRTUAL_ADDRESS neighbour_va = ID3D12Resource_GetGPUVirtualAddress(neighbour);
    if (!CHECK(neighbour_va > small_va + 256))
        return;
    UINT64 offset = neighbour_va - small_va;
    ID3D12InfoQueue_ClearStoredMessages(iq);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, small, offset, src, 0, 16);
    CHECK_EQ_INT(count_id(iq, D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS, NULL, NULL), 1);
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, small, 240, src, 0, 16); /* inside: lands */
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx.allocator), S_OK); /* a flush point: the findings are delivered */
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx.list, ctx.allocator, NULL), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    char expected[160];
    snprintf(expected, sizeof expected, "The copy destination covers 16 bytes from offset %llu of ",
             (unsigned long long)offset);
    D3D12_MESSAGE *m = find_text(iq, expected);
    if (CHECK(m != NULL)) {
        CHECK_EQ_INT(m->ID, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE);
        CHECK_EQ_INT(m->Severity, D3D12_MESSAGE_SEVERITY_ERROR);
        CHECK(strstr(m->pDescription, "'Small', which has 256 bytes:") != NULL);
        if (!strstr(m->pDescription, "'Small'"))
            fprintf(stderr, "finding: %s\n", m->pDescription);
    } else {
        dump_messages(iq);
    }
    free(m);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    unsigned char *read = NULL;
    D3D12_RANGE all = {0, 256};
    if (CHECK_HR(ID3D12Resource_Map(neighbour, 0, &all, (void **)&read), S_OK)) {
        bool untouched = true;
        for (int i = 0; i < 256; i++)
            untouched &= read[i] != 0xAB;
        CHECK(untouched);
        ID3D12Resource_Unmap(neighbour, 0, &none);
    }
    if (CHECK_HR(ID3D12Resource_Map(small, 0, &all, (void **)&read), S_OK)) {
        CHECK_EQ_INT(read[240], 0xAB);
        CHECK_EQ_INT(read[255], 0xAB);
        ID3D12Resource_Unmap(small, 0, &none);
    }
    RELEASE_LAST(src);
    RELEASE_LAST(neighbour);
    RELEASE_LAST(small);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== Buffers as Windows creates them ======== */

static HRESULT try_buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, D3D12_RESOURCE_FLAGS flags,
                          D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES heap = {0};
    heap.Type = type;
    D3D12_RESOURCE_DESC desc = buffer_desc(256);
    desc.Flags = flags;
    ID3D12Resource *resource = NULL;
    HRESULT hr = ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (resource)
        RELEASE_LAST(resource);
    return hr;
}

static D3D12_RESOURCE_STATES heap_state(D3D12_HEAP_TYPE type)
{
    return type == D3D12_HEAP_TYPE_UPLOAD     ? D3D12_RESOURCE_STATE_GENERIC_READ
           : type == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST
                                              : D3D12_RESOURCE_STATE_COMMON;
}

/* Windows allows ALLOW_RENDER_TARGET on a DEFAULT buffer (vkd3d-proton test_buffer_rtv_dsv_usage), alone and with
 * ALLOW_UNORDERED_ACCESS; no message. */
static void test_buffer_render_target_default(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET,
                        D3D12_RESOURCE_STATE_COMMON), S_OK);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT,
                        D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET | D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                        D3D12_RESOURCE_STATE_COMMON), S_OK);
    if (!CHECK(ID3D12InfoQueue_GetNumStoredMessages(iq) == 0))
        dump_messages(iq);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ALLOW_DEPTH_STENCIL and ALLOW_SIMULTANEOUS_ACCESS on any buffer: E_INVALIDARG, INVALIDMISCFLAGS naming the flag;
 * RENDER_TARGET / UNORDERED_ACCESS on UPLOAD and READBACK: INVALIDHEAPPROPERTIES naming flag and heap. */
static void test_buffer_refusals(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    const D3D12_HEAP_TYPE heaps[] = {D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    for (size_t h = 0; h < 3; h++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        CHECK_HR(try_buffer(device, heaps[h], D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, heap_state(heaps[h])),
                 E_INVALIDARG);
        check_one_message(iq, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDMISCFLAGS,
                          "D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL cannot be used with D3D12_RESOURCE_DIMENSION_BUFFER",
                          __FILE__, __LINE__, "depth stencil");
        ID3D12InfoQueue_ClearStoredMessages(iq);
        CHECK_HR(try_buffer(device, heaps[h], D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS, heap_state(heaps[h])),
                 E_INVALIDARG);
        check_one_message(iq, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDMISCFLAGS,
                          "D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS cannot be used", __FILE__, __LINE__,
                          "simultaneous access");
    }
    for (size_t h = 1; h < 3; h++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        CHECK_HR(try_buffer(device, heaps[h], D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET, heap_state(heaps[h])),
                 E_INVALIDARG);
        check_one_message(iq, D3D12_MESSAGE_ID_CREATERESOURCEANDHEAP_INVALIDHEAPPROPERTIES,
                          h == 1 ? "D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET cannot be used on a D3D12_HEAP_TYPE_UPLOAD"
                                 : "D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET cannot be used on a D3D12_HEAP_TYPE_READBACK",
                          __FILE__, __LINE__, "render target on a CPU heap");
    }
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* A buffer created in RAYTRACING_ACCELERATION_STRUCTURE: without ALLOW_UNORDERED_ACCESS E_INVALIDARG saying so; with
 * it, E_INVALIDARG saying why where ray tracing is not offered (both drivers by default: neither claims what it does
 * not do, docs/claims.md) and accepted where it is (the reference driver with D12RT_REFDRV_PROFILE=newest-tiers):
 * `offered` is what the case expects. */
static void acceleration_structure(bool offered)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    D3D12_FEATURE_DATA_D3D12_OPTIONS5 options5 = {0};
    CHECK_HR(ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_D3D12_OPTIONS5, &options5, sizeof options5), S_OK);
    CHECK((options5.RaytracingTier != D3D12_RAYTRACING_TIER_NOT_SUPPORTED) == offered);
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_FLAG_NONE,
                        D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE), E_INVALIDARG);
    check_one_message(iq, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDDESC,
                      "RAYTRACING_ACCELERATION_STRUCTURE needs D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS", __FILE__,
                      __LINE__, "without UAV");
    ID3D12InfoQueue_ClearStoredMessages(iq);
    CHECK_HR(try_buffer(device, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                        D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE), offered ? S_OK : E_INVALIDARG);
    if (offered) /* no message: not even #1328, an acceleration structure keeps its state */
        CHECK(ID3D12InfoQueue_GetNumStoredMessages(iq) == 0);
    else
        check_one_message(iq, D3D12_MESSAGE_ID_CREATERESOURCE_INVALIDDESC, "this device offers no ray tracing",
                          __FILE__, __LINE__, "no ray tracing");
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void test_buffer_acceleration_structure(void) { acceleration_structure(false); }
static void test_buffer_acceleration_structure_raytracing(void) { acceleration_structure(true); }

/* ======== GetResourceAllocationInfo(1) ======== */

static void check_info(D3D12_RESOURCE_ALLOCATION_INFO info, UINT64 size, UINT64 alignment, int line)
{
    if (!d12test_record(info.SizeInBytes == size && info.Alignment == alignment, __FILE__, line, "allocation info"))
        fprintf(stderr, "    got {%llu, %llu}, expected {%llu, %llu}\n", (unsigned long long)info.SizeInBytes,
                (unsigned long long)info.Alignment, (unsigned long long)size, (unsigned long long)alignment);
}

static void test_allocation_info(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    ID3D12Device4 *device4 = NULL;
    if (!iq || !CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12Device4, (void **)&device4), S_OK))
        return;
    const UINT64 k64 = 65536;
    check_info(ID3D12Device_GetResourceAllocationInfo(device, 0, 0, NULL), 0, 1, __LINE__);
    const UINT64 widths[][2] = {{1, k64}, {k64, k64}, {k64 + 1, 2 * k64}, {1000000, 16 * k64}};
    for (size_t i = 0; i < 4; i++) {
        D3D12_RESOURCE_DESC desc = buffer_desc(widths[i][0]);
        check_info(ID3D12Device_GetResourceAllocationInfo(device, 0, 1, &desc), widths[i][1], k64, __LINE__);
        desc.Alignment = k64; /* the one explicit alignment a buffer has */
        check_info(ID3D12Device_GetResourceAllocationInfo(device, 1, 1, &desc), widths[i][1], k64, __LINE__);
    }
    /* Three at once: placed one after the other, each at a 64 KiB boundary. */
    D3D12_RESOURCE_DESC three[3] = {buffer_desc(10), buffer_desc(k64 + 10), buffer_desc(k64)};
    D3D12_RESOURCE_ALLOCATION_INFO1 each[3];
    check_info(ID3D12Device4_GetResourceAllocationInfo1(device4, 0, 3, three, each), 4 * k64, k64, __LINE__);
    CHECK(each[0].Offset == 0 && each[0].SizeInBytes == k64 && each[0].Alignment == k64);
    CHECK(each[1].Offset == k64 && each[1].SizeInBytes == 2 * k64 && each[1].Alignment == k64);
    CHECK(each[2].Offset == 3 * k64 && each[2].SizeInBytes == k64 && each[2].Alignment == k64);
    CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 0);
    /* What cannot be placed: SizeInBytes UINT64_MAX, one message naming the desc. */
    D3D12_RESOURCE_DESC texture = buffer_desc(64);
    texture.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
    D3D12_RESOURCE_DESC aligned = buffer_desc(64), huge = buffer_desc(UINT64_MAX), empty = buffer_desc(0);
    aligned.Alignment = 4096;
    const D3D12_RESOURCE_DESC bad[] = {texture, aligned, huge, empty};
    const char *why[] = {"d12rt creates buffers only", "a buffer's Alignment is 0 or", "does not fit in 64 bits",
                         "a buffer has Width > 0"};
    for (size_t i = 0; i < 4; i++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        D3D12_RESOURCE_ALLOCATION_INFO info = ID3D12Device_GetResourceAllocationInfo(device, 0, 1, &bad[i]);
        CHECK(info.SizeInBytes == UINT64_MAX);
        check_one_message(iq, D3D12_MESSAGE_ID_GETRESOURCEALLOCATIONINFO_INVALIDRDESCS, why[i], __FILE__, __LINE__,
                          "unplaceable");
    }
    D3D12_RESOURCE_DESC mixed[2] = {buffer_desc(10), texture};
    CHECK(ID3D12Device4_GetResourceAllocationInfo1(device4, 0, 2, mixed, each).SizeInBytes == UINT64_MAX);
    CHECK(each[0].Offset == 0 && each[0].SizeInBytes == k64 && each[1].SizeInBytes == UINT64_MAX);
    ID3D12Device4_Release(device4);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== GetCopyableFootprints(1) ======== */

typedef struct footprint_out {
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT layout[2];
    UINT rows[2];
    UINT64 row_size[2], total;
} footprint_out;

static bool all_ones(const void *p, size_t size)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < size; i++)
        if (b[i] != 0xFF)
            return false;
    return true;
}

static void test_footprints(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    if (!iq)
        return;
    const UINT64 widths[][2] = {{1000, 1024}, {256, 256}, {1, 256}, {65537, 65792}};
    for (size_t i = 0; i < 4; i++) {
        D3D12_RESOURCE_DESC desc = buffer_desc(widths[i][0]);
        footprint_out o;
        memset(&o, 0xAB, sizeof o);
        ID3D12Device_GetCopyableFootprints(device, &desc, 0, 1, 1024, o.layout, o.rows, o.row_size, &o.total);
        CHECK(o.layout[0].Offset == 1024);
        CHECK_EQ_INT(o.layout[0].Footprint.Format, DXGI_FORMAT_UNKNOWN);
        CHECK(o.layout[0].Footprint.Width == widths[i][0]);
        CHECK_EQ_INT(o.layout[0].Footprint.Height, 1);
        CHECK_EQ_INT(o.layout[0].Footprint.Depth, 1);
        CHECK(o.layout[0].Footprint.RowPitch == widths[i][1]);
        CHECK_EQ_INT(o.rows[0], 1);
        CHECK(o.row_size[0] == widths[i][0] && o.total == widths[i][0]);
        UINT64 total = 0; /* the outputs are optional */
        ID3D12Device_GetCopyableFootprints(device, &desc, 0, 1, 0, NULL, NULL, NULL, &total);
        CHECK(total == widths[i][0]);
    }
    CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 0);
    /* Invalid requests: every output all ones, one message each. */
    D3D12_RESOURCE_DESC buffer = buffer_desc(1000), texture = buffer_desc(64);
    texture.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
    const struct {
        const D3D12_RESOURCE_DESC *desc;
        UINT first, count;
        UINT64 base;
        D3D12_MESSAGE_ID id;
        const char *text;
    } bad[] = {
        {&buffer, 1, 1, 0, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE, "FirstSubresource 1 +"},
        {&buffer, 0, 2, 0, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE, "NumSubresources 2"},
        {&buffer, 0, 1, 100, D3D12_MESSAGE_ID_GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET, "BaseOffset 100"},
        {&texture, 0, 1, 0, (D3D12_MESSAGE_ID)0x10B00, "d12rt creates buffers only"},
        {NULL, 0, 1, 0, (D3D12_MESSAGE_ID)0x10B00, "pResourceDesc is NULL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        footprint_out o;
        memset(&o, 0, sizeof o);
        ID3D12Device_GetCopyableFootprints(device, bad[i].desc, bad[i].first, bad[i].count, bad[i].base, o.layout,
                                           o.rows, o.row_size, &o.total);
        CHECK(all_ones(o.layout, bad[i].count * sizeof o.layout[0]) && all_ones(o.rows, bad[i].count * sizeof o.rows[0]) &&
              all_ones(o.row_size, bad[i].count * sizeof o.row_size[0]) && o.total == UINT64_MAX);
        check_one_message(iq, bad[i].id, bad[i].text, __FILE__, __LINE__, "invalid footprint request");
    }
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* GetCopyableFootprints1 (ID3D12Device8, D3D12_RESOURCE_DESC1): the same answers. */
static void test_footprints1(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12Device8 *device8 = NULL;
    if (!device || !CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12Device8, (void **)&device8), S_OK))
        return;
    D3D12_RESOURCE_DESC1 desc = {0};
    D3D12_RESOURCE_DESC plain = buffer_desc(300);
    memcpy(&desc, &plain, sizeof plain);
    footprint_out o;
    ID3D12Device8_GetCopyableFootprints1(device8, &desc, 0, 1, 512, o.layout, o.rows, o.row_size, &o.total);
    CHECK(o.layout[0].Offset == 512 && o.layout[0].Footprint.Width == 300 && o.layout[0].Footprint.RowPitch == 512);
    CHECK(o.rows[0] == 1 && o.row_size[0] == 300 && o.total == 300);
    desc.SamplerFeedbackMipRegion.Width = 4;
    ID3D12Device8_GetCopyableFootprints1(device8, &desc, 0, 1, 512, o.layout, o.rows, o.row_size, &o.total);
    CHECK(o.total == UINT64_MAX && o.rows[0] == UINT32_MAX);
    ID3D12Device8_Release(device8);
    RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"buffer_render_target_default", test_buffer_render_target_default},
    {"buffer_refusals", test_buffer_refusals},
    {"buffer_acceleration_structure", test_buffer_acceleration_structure},
    {"buffer_acceleration_structure_raytracing", test_buffer_acceleration_structure_raytracing},
    {"allocation_info", test_allocation_info},
    {"footprints", test_footprints},
    {"footprints1", test_footprints1},
    {"dispatch_oversized", test_dispatch_oversized},
    {"dispatch_oversized_no_debug_layer", test_dispatch_oversized_no_debug_layer},
    {"copy_onto_next_buffer", test_copy_onto_next_buffer},
};

int main(int argc, char **argv)
{
    /* The trace is appended to (opened when the library loaded, O_APPEND): empty it, so a rerun starts clean. */
    const char *trace = getenv("D12RT_DDI_TRACE");
    if (trace && *trace && truncate(trace, 0) != 0)
        perror(trace);
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_gpu_issue29 CASE\n");
    return 2;
}
