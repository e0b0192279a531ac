/* The Vulkan driver's buffer memory (docs/vulkan.md "Buffer memory"): a released buffer's Vulkan memory is reused
 * for the next buffer of its heap type and size (drivers/vulkan/vkdrv_cache.c), and a committed resource still
 * reads as zero, whether its memory is fresh or reused (zeroed at first use: Map, a copy, a kernel), while the GPU
 * VA contract holds (a new VA, never an old one, the gap after it); also with several threads at once, so the
 * cache's reuse path and the zero-once compare-exchange are raced (the tsan preset runs these cases).
 * `test_vulkan_memory CASE`, one ctest each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <pthread.h>
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

/* ---- Several threads at once ---- */

#define THREADS 4
#define ROUNDS 60

/* Every first Map's pointer so far, over all threads: a pointer seen before is (most likely) a mapping kept by the
 * cache and reused. Only counted and printed: a fresh allocation may land at a freed one's address too. */
static struct {
    pthread_mutex_t lock;
    void *seen[THREADS * ROUNDS + ROUNDS];
    unsigned count, again;
} g_mappings = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0};

static void note_mapping(void *data)
{
    pthread_mutex_lock(&g_mappings.lock);
    bool again = false;
    for (unsigned i = 0; i < g_mappings.count && !again; i++)
        again = g_mappings.seen[i] == data;
    if (again)
        g_mappings.again++;
    else if (g_mappings.count < sizeof g_mappings.seen / sizeof g_mappings.seen[0])
        g_mappings.seen[g_mappings.count++] = data;
    pthread_mutex_unlock(&g_mappings.lock);
}

/* Map `buffer`, count its first `size` nonzero bytes, fill them with a nonzero pattern (so whoever gets its memory
 * next gets dirty memory), unmap. The count; `size` when it cannot be mapped. */
static size_t map_check_fill(ID3D12Resource *buffer, size_t size, unsigned char seed)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return size;
    note_mapping(data);
    size_t count = 0;
    for (size_t i = 0; i < size; i++)
        count += data[i] != 0;
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(seed + i * 13) | 1;
    ID3D12Resource_Unmap(buffer, 0, NULL);
    return count;
}

typedef struct reuse_worker {
    pthread_t thread;
    ID3D12Device *device;
    unsigned index;
} reuse_worker;

/* One thread of threads_reuse: UPLOAD and READBACK buffers of three sizes (two of them one 64 KiB span, so a small
 * buffer gets a large one's memory and the reverse) created, checked zero, dirtied and released, ROUNDS times. */
static void *reuse_thread(void *argument)
{
    reuse_worker *w = argument;
    static const UINT64 k_widths[] = {256, SIZE, 3 * SIZE};
    for (unsigned i = 0; i < ROUNDS; i++) {
        UINT64 width = k_widths[(i + w->index) % 3];
        D3D12_HEAP_TYPE type = (i / 3 + w->index) % 2 ? D3D12_HEAP_TYPE_UPLOAD : D3D12_HEAP_TYPE_READBACK;
        ID3D12Resource *buffer = make_buffer(w->device, type, width);
        if (!buffer)
            break;
        if (!CHECK_EQ_INT_RET(map_check_fill(buffer, (size_t)width, (unsigned char)(w->index * 31 + i)), 0))
            i = ROUNDS; /* one failure says it; the rest would repeat it */
        RELEASE_LAST(buffer);
    }
    return NULL;
}

/* THREADS threads create, check, dirty and release buffers of the same heap types and spans at once: the cache's
 * put and take race each other and a buffer released on one thread is reused on another; every buffer reads as
 * zero at its first Map. */
static void test_threads_reuse(void)
{
    ID3D12Device *device = create_device(false);
    if (!device)
        return;
    reuse_worker workers[THREADS];
    unsigned started = 0;
    for (unsigned t = 0; t < THREADS; t++) {
        workers[t] = (reuse_worker){.device = device, .index = t};
        if (CHECK_EQ_INT_RET(pthread_create(&workers[t].thread, NULL, reuse_thread, &workers[t]), 0))
            started++;
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(workers[t].thread, NULL);
    CHECK_EQ_INT(started, THREADS);
    printf("threads_reuse: %u first Maps, %u of them at a mapping seen before\n",
           g_mappings.count + g_mappings.again, g_mappings.again);
    RELEASE_LAST(device);
}

/* threads_first_use: one buffer per round, reused dirty, whose first use THREADS threads make at once. */
typedef struct first_use {
    ID3D12Device *device;
    pthread_barrier_t start, done;
    ID3D12Resource *shared; /* written by the main thread before `start` */
} first_use;

typedef struct first_use_worker {
    pthread_t thread;
    first_use *round;
    unsigned index;
    gpu_context ctx;           /* odd threads: their own queue, allocator, list */
    ID3D12Resource *readback;  /* odd threads: the copy's destination */
} first_use_worker;

/* Even threads Map the shared buffer and read it; odd threads record a copy from it (the record-time resolve zeroes
 * it) into their READBACK buffer, dirtied first so a copy that did not run shows, execute it and read that. */
static void *first_use_thread(void *argument)
{
    first_use_worker *w = argument;
    for (unsigned i = 0; i < ROUNDS; i++) {
        if (w->readback)
            fill(w->readback, SIZE, (unsigned char)i);
        pthread_barrier_wait(&w->round->start);
        ID3D12Resource *shared = w->round->shared;
        if (!shared) {
            CHECK(shared != NULL); /* the main thread could not create it: this round is a failure */
        } else if (!w->readback) {
            CHECK_EQ_INT(nonzero_bytes(shared, SIZE), 0);
        } else {
            ID3D12GraphicsCommandList_CopyBufferRegion(w->ctx.list, w->readback, 0, shared, 0, SIZE);
            CHECK_HR(ID3D12GraphicsCommandList_Close(w->ctx.list), S_OK);
            execute(w->ctx.queue, w->ctx.list);
            finish(&w->ctx);
            restart(&w->ctx); /* the recording's reference to the shared buffer goes */
            CHECK_EQ_INT(nonzero_bytes(w->readback, SIZE), 0);
        }
        pthread_barrier_wait(&w->round->done);
    }
    return NULL;
}

/* Each round a buffer is dirtied and released, the next of its heap type and span taken (its memory, most likely),
 * and THREADS threads make that buffer's first use at once, by Map and by a recorded copy: exactly one of them
 * zeroes it, the others wait for that, and every one reads zeros. */
static void test_threads_first_use(void)
{
    first_use round = {.device = create_device(false)};
    if (!round.device)
        return;
    pthread_barrier_init(&round.start, NULL, THREADS + 1);
    pthread_barrier_init(&round.done, NULL, THREADS + 1);
    first_use_worker workers[THREADS] = {0};
    bool ready = true;
    for (unsigned t = 0; t < THREADS && ready; t++) {
        workers[t].round = &round;
        workers[t].index = t;
        if (t % 2)
            ready = make_context(round.device, D3D12_COMMAND_LIST_TYPE_DIRECT, &workers[t].ctx) &&
                    (workers[t].readback = make_buffer(round.device, D3D12_HEAP_TYPE_READBACK, SIZE)) != NULL;
    }
    unsigned started = 0;
    for (unsigned t = 0; t < THREADS && ready; t++) {
        if (pthread_create(&workers[t].thread, NULL, first_use_thread, &workers[t]) != 0) {
            fprintf(stderr, "threads_first_use: pthread_create failed\n");
            exit(1); /* the threads started wait at a barrier for THREADS + 1 */
        }
        started++;
    }
    /* Every round runs once the threads are started (they wait for all of them at the barriers). */
    unsigned reused = 0;
    for (unsigned i = 0; started && i < ROUNDS; i++) {
        ID3D12Resource *old = make_buffer(round.device, D3D12_HEAP_TYPE_UPLOAD, SIZE);
        void *old_data = NULL;
        if (old && CHECK_HR(ID3D12Resource_Map(old, 0, NULL, &old_data), S_OK))
            ID3D12Resource_Unmap(old, 0, NULL);
        if (old) {
            fill(old, SIZE, (unsigned char)(0x40 + i));
            RELEASE_LAST(old);
        }
        round.shared = make_buffer(round.device, D3D12_HEAP_TYPE_UPLOAD, SIZE);
        ready = ready && round.shared != NULL;
        pthread_barrier_wait(&round.start); /* a NULL shared: the workers' checks fail this round */
        pthread_barrier_wait(&round.done);
        if (round.shared) {
            void *data = NULL;
            if (CHECK_HR(ID3D12Resource_Map(round.shared, 0, NULL, &data), S_OK))
                ID3D12Resource_Unmap(round.shared, 0, NULL);
            reused += data && data == old_data;
            RELEASE_LAST(round.shared);
        }
    }
    CHECK(ready);
    CHECK_EQ_INT(started, THREADS);
    for (unsigned t = 0; t < started; t++)
        pthread_join(workers[t].thread, NULL);
    printf("threads_first_use: %u rounds, %u threads each; %u shared buffers had the released one's mapping\n",
           ROUNDS, THREADS, reused);
    for (unsigned t = 0; t < THREADS; t++) {
        if (workers[t].readback)
            RELEASE_LAST(workers[t].readback);
        release_context(&workers[t].ctx);
    }
    pthread_barrier_destroy(&round.start);
    pthread_barrier_destroy(&round.done);
    RELEASE_LAST(round.device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"reused_default_reads_zero", test_reused_default_reads_zero},
    {"reused_upload_maps_zero", test_reused_upload_maps_zero},
    {"reuse_cycles", test_reuse_cycles},
    {"threads_reuse", test_threads_reuse},
    {"threads_first_use", test_threads_first_use},
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
