/* The kernel of draws and dispatches (shaders/draw.comp) and its page table. The page table is the driver's GPU
 * VA space as the GPU sees it: one 64-bit entry per 64 KiB page (the buffer device address of that page of a live
 * buffer, 0 for a gap, a freed buffer or an address never handed out), in host-visible memory the CPU updates under
 * the VA lock. A kernel translates every read through it, so a bad view address or a freed buffer is found by the
 * GPU and never dereferenced (on lavapipe a bad buffer device address kills the process). The work is cut into
 * chunks of about 5 ms, one submission each, so a huge draw runs until the runtime's TDR stops it between two
 * chunks; no kernel loops longer than the bindings. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkdrv.h"

extern const uint32_t d12__vkdrv_draw_spv[];
extern const size_t d12__vkdrv_draw_spv_size;

#define FAULT_OFFSET 2048u
#define NO_FAULT UINT64_MAX

typedef struct push {
    VkDeviceAddress table, fault, args;
    UINT64 pages, first, total;
    VkDeviceAddress probe; /* D12RT_VULKAN_REAL_FAULTS: an unmapped read dereferences this page instead */
    UINT64 real_faults;    /* 1: the mode is on for this chunk */
} push;

typedef struct fault_record {
    UINT64 va;
    UINT32 sink, pad;
} fault_record;

_Static_assert(sizeof(d12__vkdrv_kernel_args) <= FAULT_OFFSET, "the arguments fit before the fault record");

bool d12__vkdrv_host_buffer(d12__vkdrv_device *device, VkDeviceSize size, VkBuffer *buffer, VkDeviceMemory *memory,
                            void **mapped, VkDeviceAddress *address)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                               .size = size,
                               /* transfer destination: a recording's breadcrumb word is filled (vkdrv_record.c) */
                               .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (vkCreateBuffer(device->vk, &info, NULL, buffer) != VK_SUCCESS)
        return false;
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(device->vk, *buffer, &requirements);
    VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .pNext = &flags,
                                  .allocationSize = requirements.size,
                                  .memoryTypeIndex = device->type_upload}; /* host-visible and coherent */
    if (!(requirements.memoryTypeBits & (1u << device->type_upload)) ||
        vkAllocateMemory(device->vk, &alloc, NULL, memory) != VK_SUCCESS) {
        vkDestroyBuffer(device->vk, *buffer, NULL);
        return false;
    }
    VkBufferDeviceAddressInfo info_address = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = *buffer};
    if (vkBindBufferMemory(device->vk, *buffer, *memory, 0) != VK_SUCCESS ||
        vkMapMemory(device->vk, *memory, 0, VK_WHOLE_SIZE, 0, mapped) != VK_SUCCESS) {
        vkDestroyBuffer(device->vk, *buffer, NULL);
        vkFreeMemory(device->vk, *memory, NULL);
        return false;
    }
    *address = vkGetBufferDeviceAddress(device->vk, &info_address);
    memset(*mapped, 0, (size_t)size);
    return true;
}

bool d12__vkdrv_kernel_device_init(d12__vkdrv_device *device)
{
    if (pthread_mutex_init(&device->kernel_lock, NULL) != 0)
        return false;
    void *mapped;
    VkDeviceSize table_bytes = (VkDeviceSize)D12_VKDRV_PAGE_TABLE_ENTRIES * sizeof(UINT64);
    if (!d12__vkdrv_host_buffer(device, table_bytes, &device->page_table, &device->page_table_memory, &mapped,
                                &device->page_table_address)) {
        pthread_mutex_destroy(&device->kernel_lock);
        return false;
    }
    device->page_table_entries = mapped;
    return true;
}

void d12__vkdrv_kernel_device_fini(d12__vkdrv_device *device)
{
    if (d12__vkdrv_abandoned(device)) { /* the work that never completed may still use them (vkdrv_stuck.c) */
        pthread_mutex_destroy(&device->kernel_lock);
        return;
    }
    if (device->kernel_pipeline)
        vkDestroyPipeline(device->vk, device->kernel_pipeline, NULL);
    if (device->kernel_layout)
        vkDestroyPipelineLayout(device->vk, device->kernel_layout, NULL);
    if (device->kernel_module)
        vkDestroyShaderModule(device->vk, device->kernel_module, NULL);
    vkDestroyBuffer(device->vk, device->page_table, NULL);
    vkFreeMemory(device->vk, device->page_table_memory, NULL);
    pthread_mutex_destroy(&device->kernel_lock);
}

void d12__vkdrv_page_table_map(d12__vkdrv_device *device, const d12__vkdrv_buffer *buffer, bool mapped)
{
    UINT64 first = (buffer->va - D12_VKDRV_VA_BASE) / D12_VKDRV_VA_ALIGNMENT;
    UINT64 pages = buffer->span / D12_VKDRV_VA_ALIGNMENT;
    for (UINT64 p = 0; p < pages && first + p < D12_VKDRV_PAGE_TABLE_ENTRIES; p++) {
        /* relaxed atomic stores: a kernel may be reading the table (a torn entry would be a wild address) */
        __atomic_store_n(&device->page_table_entries[first + p],
                         mapped ? buffer->address + p * D12_VKDRV_VA_ALIGNMENT : 0, __ATOMIC_RELAXED);
    }
}

/* One dispatch of the kernel that reads nothing (no invocation passes `total` 0). */
static void record_warm_up(VkCommandBuffer cb, void *context)
{
    d12__vkdrv_device *device = context;
    push constants = {0};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, device->kernel_pipeline);
    vkCmdPushConstants(cb, device->kernel_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof constants, &constants);
    vkCmdDispatch(cb, 1, 1, 1);
}

/* The pipeline, created at the first draw or dispatch of the device (about 0.1 s on lavapipe; seconds under gpuav,
 * which instruments it: it is made at record time or before the op's OP_BEGIN, so the TDR never counts it). */
VkPipeline d12__vkdrv_kernel_pipeline(d12__vkdrv_device *device)
{
    if (atomic_load_explicit(&device->kernel_ready, memory_order_acquire)) /* every inline draw asks */
        return device->kernel_pipeline;
    pthread_mutex_lock(&device->kernel_lock);
    if (!device->kernel_pipeline) {
        VkShaderModuleCreateInfo module = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                           .codeSize = d12__vkdrv_draw_spv_size,
                                           .pCode = d12__vkdrv_draw_spv};
        VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push)};
        VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                             .pushConstantRangeCount = 1,
                                             .pPushConstantRanges = &range};
        if ((device->kernel_module || vkCreateShaderModule(device->vk, &module, NULL, &device->kernel_module) ==
                                          VK_SUCCESS) &&
            (device->kernel_layout ||
             vkCreatePipelineLayout(device->vk, &layout, NULL, &device->kernel_layout) == VK_SUCCESS)) {
            VkComputePipelineCreateInfo info = {
                .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                          .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                          .module = device->kernel_module,
                          .pName = "main"},
                .layout = device->kernel_layout};
            if (vkCreateComputePipelines(device->vk, VK_NULL_HANDLE, 1, &info, NULL, &device->kernel_pipeline) !=
                VK_SUCCESS)
                device->kernel_pipeline = VK_NULL_HANDLE;
        }
    }
    VkPipeline result = device->kernel_pipeline;
    /* A validation layer instruments the pipeline at its first submission too (gpuav: tens of seconds on lavapipe):
     * one empty dispatch here, outside any op's TDR clock (issue 29 item 2). */
    if (result && !atomic_load_explicit(&device->kernel_ready, memory_order_relaxed) &&
        device->adapter->validation != D12_VKDRV_VALIDATION_OFF)
        d12__vkdrv_run_once(device, record_warm_up, device);
    if (result)
        atomic_store_explicit(&device->kernel_ready, true, memory_order_release);
    pthread_mutex_unlock(&device->kernel_lock);
    return result;
}

size_t d12__vkdrv_kernel_pack(const d12__vkdrv_kernel_args *args, void *out)
{
    /* The header (index view .. pad1), then the bound vertex-buffer views, then the bound roots. */
    size_t header = offsetof(d12__vkdrv_kernel_args, vb);
    d12__vkdrv_view *views = (d12__vkdrv_view *)(void *)((unsigned char *)out + header);
    UINT32 vertex = 0, roots = 0;
    for (unsigned i = 0; i < args->vertex_buffers; i++) {
        if (args->vb[i].va)
            views[vertex++] = args->vb[i];
    }
    for (unsigned i = 0; i < args->roots; i++) {
        if (args->root[i].va)
            views[vertex + roots++] = args->root[i];
    }
    memcpy(out, args, header);
    UINT32 counts[2] = {vertex, roots};
    memcpy((unsigned char *)out + offsetof(d12__vkdrv_kernel_args, vertex_buffers), counts, sizeof counts);
    return header + (size_t)(vertex + roots) * sizeof *views;
}

void d12__vkdrv_kernel_record(d12__vkdrv_device *device, VkCommandBuffer cb, VkPipeline kernel,
                              VkDeviceAddress fault, VkDeviceAddress args, UINT64 total, bool bind)
{
    push constants = {device->page_table_address, fault, args, D12_VKDRV_PAGE_TABLE_ENTRIES, 0, total,
                      device->diag.poison, 0};
    if (bind) /* nothing else is ever bound: once per command buffer */
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernel);
    vkCmdPushConstants(cb, device->kernel_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof constants, &constants);
    vkCmdDispatch(cb, (uint32_t)((total + 63) / 64), 1, 1);
}

UINT64 d12__vkdrv_kernel_fault_va(const d12__vkdrv_kernel_queue *kq)
{
    if (!kq->mapped)
        return NO_FAULT;
    const fault_record *fault = (const fault_record *)(const void *)(kq->mapped + FAULT_OFFSET);
    return __atomic_load_n(&fault->va, __ATOMIC_ACQUIRE);
}

void d12__vkdrv_kernel_queue_fini(d12__vkdrv_device *device, d12__vkdrv_kernel_queue *kq)
{
    if (!kq->buffer)
        return;
    if (!d12__vkdrv_abandoned(device)) {
        vkDestroyBuffer(device->vk, kq->buffer, NULL);
        vkFreeMemory(device->vk, kq->memory, NULL);
    }
    memset(kq, 0, sizeof *kq);
}

static UINT64 now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (UINT64)t.tv_sec * 1000000000ull + (UINT64)t.tv_nsec;
}

/* Every buffer a view or root of the draw may reach (held while the kernel can translate into it). */
static bool hold_all(d12__vkdrv_device *device, const d12__vkdrv_kernel_args *args, d12__vkdrv_buffer ***held,
                     size_t *count)
{
    size_t capacity = 0;
    bool ok = true;
    if (args->kind == 1 && args->index.va)
        ok = d12__vkdrv_buffer_hold_range(device, args->index.va, args->index.va + args->index.size, held, count,
                                          &capacity);
    for (unsigned i = 0; ok && i < args->vertex_buffers; i++) {
        if (args->vb[i].va)
            ok = d12__vkdrv_buffer_hold_range(device, args->vb[i].va, args->vb[i].va + args->vb[i].size, held,
                                              count, &capacity);
    }
    for (unsigned i = 0; ok && i < args->roots; i++) {
        if (args->root[i].va)
            ok = d12__vkdrv_buffer_hold_range(device, args->root[i].va, args->root[i].va + args->root[i].stride, held,
                                              count, &capacity);
    }
    return ok;
}

d12__vkdrv_kernel_result d12__vkdrv_kernel_run(d12__vkdrv_device *device, d12__vkdrv_kernel_queue *kq,
                                               VkCommandPool pool, const d12__vkdrv_kernel_args *args, UINT64 total,
                                               bool (*submit)(void *context, VkCommandBuffer cb), void *context,
                                               UINT64 *fault_va)
{
    if (!total)
        return D12_VKDRV_KERNEL_DONE;
    VkPipeline kernel = d12__vkdrv_kernel_pipeline(device);
    void *mapped = NULL;
    if (!kernel || (!kq->buffer && !d12__vkdrv_host_buffer(device, 4096, &kq->buffer, &kq->memory, &mapped, &kq->address)))
        return D12_VKDRV_KERNEL_STOPPED;
    if (mapped) {
        kq->mapped = mapped;
        kq->chunk = 16384;
    }
    d12__vkdrv_kernel_pack(args, kq->mapped);
    fault_record *fault = (fault_record *)(void *)(kq->mapped + FAULT_OFFSET);
    __atomic_store_n(&fault->va, NO_FAULT, __ATOMIC_RELAXED);
    d12__vkdrv_buffer **held = NULL;
    size_t held_count = 0;
    d12__vkdrv_kernel_result result = D12_VKDRV_KERNEL_STOPPED;
    push constants = {device->page_table_address, kq->address + FAULT_OFFSET, kq->address, 0, 0, total,
                      device->diag.poison, 0};
    if (hold_all(device, args, &held, &held_count)) {
        constants.pages = d12__vkdrv_mapped_pages(device);
        result = D12_VKDRV_KERNEL_DONE;
    }
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = pool,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    while (result == D12_VKDRV_KERNEL_DONE && constants.first < total) {
        UINT64 chunk = total - constants.first < kq->chunk ? total - constants.first : kq->chunk;
        VkCommandBuffer cb;
        if (vkAllocateCommandBuffers(device->vk, &alloc, &cb) != VK_SUCCESS) {
            result = D12_VKDRV_KERNEL_STOPPED;
            break;
        }
        VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        vkBeginCommandBuffer(cb, &begin);
        /* Checked before every chunk: a buffer created since might have been given the probe's addresses. */
        constants.real_faults = d12__vkdrv_real_fault_probe(device);
        d12__vkdrv_checkpoint(device, cb, kq->checkpoint_serial, kq->checkpoint_position);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernel);
        vkCmdPushConstants(cb, device->kernel_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof constants, &constants);
        vkCmdDispatch(cb, (uint32_t)((chunk + 63) / 64), 1, 1);
        d12__vkdrv_checkpoint(device, cb, kq->checkpoint_serial, kq->checkpoint_position + 1);
        d12__vkdrv_host_barrier(cb);
        vkEndCommandBuffer(cb);
        UINT64 start = now_ns();
        bool running = submit(context, cb);
        UINT64 elapsed = now_ns() - start;
        if (!d12__vkdrv_abandoned(device))
            vkFreeCommandBuffers(device->vk, pool, 1, &cb);
        constants.first += chunk;
        UINT64 va = __atomic_load_n(&fault->va, __ATOMIC_RELAXED);
        if (va != NO_FAULT) {
            *fault_va = va;
            result = D12_VKDRV_KERNEL_FAULT;
        } else if (!running) {
            result = D12_VKDRV_KERNEL_STOPPED;
        }
        if (chunk >= 4096) /* the rate the record-time estimate uses (vkdrv_record.c) */
            atomic_store_explicit(&device->kernel_ps, elapsed * 1000 / chunk, memory_order_relaxed);
        /* The next chunk aims at D12_VKDRV_CHUNK_NS from this one's rate. */
        UINT64 next = elapsed ? (UINT64)((double)chunk * (double)D12_VKDRV_CHUNK_NS / (double)elapsed) : chunk * 2;
        if (next > chunk * 4)
            next = chunk * 4;
        kq->chunk = next < 1024 ? 1024 : next > D12_VKDRV_MAX_DISPATCH_INVOCATIONS ? D12_VKDRV_MAX_DISPATCH_INVOCATIONS
                                                                                 : next;
    }
    for (size_t i = 0; i < held_count; i++)
        d12__vkdrv_buffer_release(held[i]);
    free(held);
    return result;
}
