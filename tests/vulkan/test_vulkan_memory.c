/* The Vulkan driver's buffer memory (docs/vulkan.md "Buffer memory"): a released buffer's Vulkan memory is reused
 * for the next buffer of its heap type and size (drivers/vulkan/vkdrv_cache.c), and a committed resource still
 * reads as zero, whether its memory is fresh or reused (zeroed at first use: Map, a copy, a kernel), while the GPU
 * VA contract holds (a new VA, never an old one, the gap after it). `test_vulkan_memory CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

#define SIZE 65536u

static void fill(ID3D12Resource *buffer, size_t size, unsigned char seed)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(seed + i * 7) | 1; /* never 0 */
    ID3D12Resource_Unmap(buffer, 0, NULL);
}

/* How many of the buffer's first `size` bytes are not zero (through Map). */
static size_t nonzero_bytes(ID3D12Resource *buffer, size_t size)
{
    unsigned char *data = NULL;
    size_t count = size;
    if (CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK)) {
        count = 0;
        for (size_t i = 0; i < size; i++)
            count += data[i] != 0;
        ID3D12Resource_Unmap(buffer, 0, NULL);
    }
    return count;
}

/* Reset the allocator and the list: the driver drops the last recording's references to its buffers. */
static void restart(gpu_context *ctx)
{
    CHECK_HR(ID3D12CommandAllocator_Reset(ctx->allocator), S_OK);
    CHECK_HR(ID3D12GraphicsCommandList_Reset(ctx->list, ctx->allocator, NULL), S_OK);
}

/* `width` bytes of a DEFAULT buffer, copied to a READBACK buffer on the GPU: how many are not zero. */
static size_t default_nonzero(ID3D12Device *device, gpu_context *ctx, ID3D12Resource *buffer, UINT64 width)
{
    ID3D12Resource *readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, width);
    if (!readback)
        return width;
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx->list, readback, 0, buffer, 0, width);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx->list), S_OK);
    execute(ctx->queue, ctx->list);
    finish(ctx);
    size_t count = nonzero_bytes(readback, width);
    restart(ctx);
    RELEASE_LAST(readback);
    return count;
}

/* A DEFAULT buffer the GPU filled is released; the next DEFAULT buffers of its span (64 KiB: the same size, and a
 * smaller one) read as zero on the GPU, at addresses past the old one's end and its gap. */
static void test_reused_default_reads_zero(void)
{
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    for (UINT64 width = SIZE; width >= 1000; width = width == SIZE ? 1000 : 0) {
        ID3D12Resource *upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, SIZE);
        ID3D12Resource *old = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, SIZE);
        if (!upload || !old)
            break;
        fill(upload, SIZE, 0x5A);
        ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, old, 0, upload, 0, SIZE);
        CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
        execute(ctx.queue, ctx.list);
        finish(&ctx);
        restart(&ctx);
        CHECK_EQ_INT(default_nonzero(device, &ctx, old, SIZE), SIZE); /* the copy ran: every byte is the pattern */
        D3D12_GPU_VIRTUAL_ADDRESS old_va = ID3D12Resource_GetGPUVirtualAddress(old);
        RELEASE_LAST(old);
        RELEASE_LAST(upload);
        ID3D12Resource *fresh = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, width);
        if (!fresh)
            break;
        CHECK(ID3D12Resource_GetGPUVirtualAddress(fresh) >= old_va + 2 * SIZE); /* never reused, a gap after */
        CHECK_EQ_INT(default_nonzero(device, &ctx, fresh, width), 0);
        RELEASE_LAST(fresh);
    }
    release_context(&ctx);
    RELEASE_LAST(device);
}

/* An UPLOAD buffer the application wrote is released; the next of its size maps as zero; so does a READBACK one. */
static void test_reused_upload_maps_zero(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    D3D12_HEAP_TYPE types[] = {D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK};
    for (int t = 0; t < 2; t++) {
        ID3D12Resource *old = make_buffer(device, types[t], SIZE);
        if (!old)
            break;
        fill(old, SIZE, 0x33);
        CHECK_EQ_INT(nonzero_bytes(old, SIZE), SIZE);
        RELEASE_LAST(old);
        ID3D12Resource *fresh = make_buffer(device, types[t], SIZE);
        if (!fresh)
            break;
        CHECK_EQ_INT(nonzero_bytes(fresh, SIZE), 0);
        RELEASE_LAST(fresh);
    }
    RELEASE_LAST(device);
}

/* Many buffers created and released in turn, each written and checked: every one reads zero first. */
static void test_reuse_cycles(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    for (int i = 0; i < 200; i++) {
        UINT64 width = (i % 3 == 0) ? 256 : (i % 3 == 1) ? SIZE : 3 * SIZE;
        ID3D12Resource *buffer = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, width);
        if (!buffer)
            break;
        if (!CHECK_EQ_INT_RET(nonzero_bytes(buffer, (size_t)width), 0))
            i = 200;
        fill(buffer, (size_t)width, (unsigned char)i);
        RELEASE_LAST(buffer);
    }
    RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"reused_default_reads_zero", test_reused_default_reads_zero},
    {"reused_upload_maps_zero", test_reused_upload_maps_zero},
    {"reuse_cycles", test_reuse_cycles},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_vulkan_memory CASE (unknown case)\n");
    return 2;
}
