/* Execution of a compute segment (vkdrv_compute.h; docs/pipelines.md, "Dispatch on the Vulkan driver"), on the
 * queue's timeline thread, one piece of about D12_VKDRV_CHUNK_NS of estimated work at a time:
 *   1. every register each dispatch's pipeline declares is resolved NOW from the descriptor heap's driver-owned
 *      memory (root signature 1.0 "volatile": a descriptor written between two ExecuteCommandLists is seen), or from
 *      the root views; a register that cannot be bound is reported and its dispatch does not run, a page fault ends
 *      the piece at its op;
 *   2. the descriptor sets are allocated from a pool of the piece's own and written (a dispatch whose descriptors
 *      equal the previous one's reuses its set) — before any command buffer that binds them is recorded, so no
 *      set is ever updated after it was bound (no UPDATE_AFTER_BIND is needed);
 *   3. the command buffer is recorded: the boundary barrier, the dispatches, clears and the application's barriers.
 * A null descriptor is bound to the driver's null buffer: its read half is never written (reads 0), its write half
 * is cleared at the start of each piece that binds it (writes are dropped; a read after a write through two null
 * UAVs within one piece may see that write). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h" /* d12__vkdrv_grow */

/* GPU-based validation's D3D12_MESSAGE_IDs, the VendorMessageIds of the findings (issue 31 item 4). */
#define GBV_ROOT_ARGUMENT_UNINITIALIZED 935u
#define GBV_DESCRIPTOR_HEAP_INDEX_OUT_OF_BOUNDS 936u
#define GBV_DESCRIPTOR_UNINITIALIZED 938u
#define GBV_DESCRIPTOR_TYPE_MISMATCH 939u
/* A descriptor the Vulkan driver cannot bind (an offset below the device's alignment): the dispatch is not run. */
#define D12_VKDRV_MSG_DESCRIPTOR_UNBINDABLE 0x0D12000000000404ull
#define NULL_HALF (64u << 10) /* the null buffer: [0, 64 KiB) read, [64 KiB, 128 KiB) written */

/* One descriptor as it will be written. */
typedef struct resolved {
    VkDescriptorType type;
    VkBuffer buffer;
    VkDeviceSize offset, range;
    VkFormat format;
} resolved;

typedef struct op_plan {
    VkDescriptorSet set; /* VK_NULL_HANDLE: the op does not run (a dispatch refused, or not a dispatch) */
    const d12__vkdrv_pso *pso;
    const d12__vkdrv_cs_state *state;
} op_plan;

struct d12__vkdrv_cs_piece {
    VkCommandBuffer cb;
    size_t from, end;
    bool faulted, null_written;
    UINT64 fault_va;
    UINT fault_flags;
    VkDescriptorPool pool;
    op_plan *plans;
    VkBufferView *views;
    size_t view_count, view_capacity;
    d12__vkdrv_buffer **held;
    size_t held_count, held_capacity;
    resolved last[2 * D12_VKDRV_SHADER_MAX_BINDINGS]; /* the previous dispatch's, for reuse */
    uint32_t last_count;
    const d12__vkdrv_pso *last_pso;
    VkDescriptorSet last_set;
};

/* ---- The null buffer (created at the first null descriptor; kernel_lock) ---- */

static VkBuffer null_buffer(d12__vkdrv_device *device)
{
    pthread_mutex_lock(&device->kernel_lock);
    if (!device->cs_null) {
        VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 2 * NULL_HALF,
                                   .usage = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                            VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                                            VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT};
        VkBuffer buffer;
        VkMemoryRequirements req;
        if (vkCreateBuffer(device->vk, &info, NULL, &buffer) == VK_SUCCESS) {
            vkGetBufferMemoryRequirements(device->vk, buffer, &req);
            VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                          .allocationSize = req.size,
                                          .memoryTypeIndex = device->type_upload};
            /* UPLOAD memory: zeroed by the memset below, never written by the host again. */
            void *mapped = NULL;
            if ((req.memoryTypeBits >> device->type_upload & 1) &&
                vkAllocateMemory(device->vk, &alloc, NULL, &device->cs_null_memory) == VK_SUCCESS &&
                vkBindBufferMemory(device->vk, buffer, device->cs_null_memory, 0) == VK_SUCCESS &&
                vkMapMemory(device->vk, device->cs_null_memory, 0, VK_WHOLE_SIZE, 0, &mapped) == VK_SUCCESS) {
                memset(mapped, 0, 2 * NULL_HALF);
                vkUnmapMemory(device->vk, device->cs_null_memory);
                device->cs_null = buffer;
            } else {
                vkDestroyBuffer(device->vk, buffer, NULL);
                if (device->cs_null_memory)
                    vkFreeMemory(device->vk, device->cs_null_memory, NULL);
                device->cs_null_memory = VK_NULL_HANDLE;
            }
        }
    }
    VkBuffer buffer = device->cs_null;
    pthread_mutex_unlock(&device->kernel_lock);
    return buffer;
}

void d12__vkdrv_cs_device_fini(d12__vkdrv_device *device)
{
    if (device->cs_null) {
        vkDestroyBuffer(device->vk, device->cs_null, NULL);
        vkFreeMemory(device->vk, device->cs_null_memory, NULL);
    }
}

/* ---- Resolution ---- */

static const char k_letters[] = {'b', 't', 'u', 's'};
static const char *const k_kinds[] = {"CBV", "SRV", "UAV", "Sampler"};

/* "UAV u0 (root parameter 1, table slot 3)" */
static void register_name(const d12__vkdrv_pipeline_register *r, char *out, size_t size)
{
    const d12_dxbc_binding *d = &r->declared;
    int n = snprintf(out, size, "%s %c%u", k_kinds[d->kind], k_letters[d->kind], d->lower);
    if (d->space && n > 0 && (size_t)n < size)
        n += snprintf(out + n, size - (size_t)n, ", space%u", d->space);
    if (n > 0 && (size_t)n < size) {
        if (r->where.type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE)
            snprintf(out + n, size - (size_t)n, " (root parameter %u, table slot %llu)", r->where.parameter,
                     (unsigned long long)r->where.table_offset);
        else
            snprintf(out + n, size - (size_t)n, " (root parameter %u)", r->where.parameter);
    }
}

static void hold(d12__vkdrv_cs_piece *piece, d12__vkdrv_buffer *buffer)
{
    if (piece->held_count && piece->held[piece->held_count - 1] == buffer) {
        d12__vkdrv_buffer_release(buffer);
        return;
    }
    if (!d12__vkdrv_grow((void **)&piece->held, &piece->held_capacity, piece->held_count, sizeof *piece->held)) {
        d12__vkdrv_buffer_release(buffer); /* out of memory: the op still runs; the recording holds its buffers */
        return;
    }
    piece->held[piece->held_count++] = buffer;
}

typedef enum outcome { RUN, SKIP, FAULT } outcome;

/* The resolution of one dispatch: its device, the op, and the outcome's message. */
typedef struct resolving {
    d12__vkdrv_device *device;
    d12__vkdrv_cs_piece *piece;
    const d12__vkdrv_op *op;
} resolving;

static outcome refuse(const resolving *x, UINT64 id, const char *name, const d12__vkdrv_pipeline_register *r,
                      const char *what)
{
    char reg[128];
    register_name(r, reg, sizeof reg);
    d12__vkdrv_report_later(x->device, id, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                            D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, x->op->state_index,
                            "%s: %s %s; the dispatch was not run.", name, reg, what);
    return SKIP;
}

static outcome page_fault(const resolving *x, const d12__vkdrv_pipeline_register *r, UINT64 va)
{
    char reg[128];
    register_name(r, reg, sizeof reg);
    char *va_name = d12__vkdrv_va_name(x->device, va); /* v2: "0x...:'Particles' (released)" */
    bool write = r->declared.kind == D12_DXBC_UAV;
    d12__vkdrv_report_later(x->device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                            D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, x->op->state_index,
                            "Page fault: %s of the dispatch %s GPU virtual address 0x%016llX, which is in no live "
                            "buffer%s%s.",
                            reg, write ? "accesses" : "reads", (unsigned long long)va, va_name ? ": " : "",
                            va_name ? va_name : "");
    free(va_name);
    x->piece->fault_va = va;
    x->piece->fault_flags = write ? D3D12DDI_PAGE_FAULT_FLAG_WRITE : D3D12DDI_PAGE_FAULT_FLAG_NONE;
    return FAULT;
}

/* A buffer range as the register's Vulkan descriptor: `format` for a texel buffer (typed views), bounded by the
 * buffer's allocation and the device's limits. */
static outcome bind_range(const resolving *x, const d12__vkdrv_pipeline_register *r, VkDescriptorType type,
                          UINT64 va, UINT64 range, VkFormat format, resolved *out)
{
    const VkPhysicalDeviceLimits *limits = &x->device->adapter->properties.limits;
    bool texel = type != VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    if (!va) { /* a null descriptor: the null buffer's read half, or its write half for a UAV */
        VkBuffer null = null_buffer(x->device);
        if (!null)
            return refuse(x, D12_VKDRV_MSG_DESCRIPTOR_UNBINDABLE, "Out of memory", r, "(a null descriptor)");
        bool written = r->declared.kind == D12_DXBC_UAV;
        x->piece->null_written |= written;
        *out = (resolved){type, null, written ? NULL_HALF : 0, 256, format};
        return RUN;
    }
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(x->device, va);
    if (!buffer)
        return page_fault(x, r, va);
    hold(x->piece, buffer);
    UINT64 offset = va - buffer->va;
    VkDeviceSize alignment = texel ? limits->minTexelBufferOffsetAlignment : limits->minUniformBufferOffsetAlignment;
    if (alignment && offset % alignment)
        return refuse(x, D12_VKDRV_MSG_DESCRIPTOR_UNBINDABLE, "D12RT_VULKAN_DESCRIPTOR_UNBINDABLE", r,
                      "starts at an offset the Vulkan device cannot bind (not a multiple of its buffer offset "
                      "alignment)");
    UINT64 left = buffer->span - offset;
    if (range > left)
        range = left;
    if (texel) {
        UINT64 size = 4; /* the format's element size (every format the driver views is 4, 8 or 16 bytes, or less) */
        switch (format) {
        case VK_FORMAT_R32G32B32A32_SFLOAT: case VK_FORMAT_R32G32B32A32_UINT: case VK_FORMAT_R32G32B32A32_SINT:
            size = 16;
            break;
        case VK_FORMAT_R32G32_SFLOAT: case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32_SINT:
        case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R16G16B16A16_UINT: case VK_FORMAT_R16G16B16A16_SINT:
            size = 8;
            break;
        case VK_FORMAT_R16_SFLOAT: case VK_FORMAT_R16_UINT: case VK_FORMAT_R16_SINT:
            size = 2;
            break;
        case VK_FORMAT_R8_UNORM: case VK_FORMAT_R8_UINT: case VK_FORMAT_R8_SINT:
            size = 1;
            break;
        default:
            break;
        }
        if (range / size > limits->maxTexelBufferElements)
            range = (UINT64)limits->maxTexelBufferElements * size;
        range -= range % size;
    } else { /* a constant buffer reads at most 4 096 vectors (D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT) */
        if (range > D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT * 16u)
            range = D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT * 16u;
        if (range > limits->maxUniformBufferRange)
            range = limits->maxUniformBufferRange;
    }
    if (!range)
        return refuse(x, D12_VKDRV_MSG_DESCRIPTOR_UNBINDABLE, "D12RT_VULKAN_DESCRIPTOR_UNBINDABLE", r,
                      "views no whole element");
    *out = (resolved){type, buffer->vk, offset, range, format};
    return RUN;
}

static VkDescriptorType kind_type(d12__vkdrv_view_kind kind)
{
    return kind == D12_VKDRV_VIEW_CBV ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
           : kind == D12_VKDRV_VIEW_SRV ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                        : VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
}

/* A table's register: the heap's descriptor as it is now. */
static outcome resolve_table(const resolving *x, const d12__vkdrv_cs_state *state,
                             const d12__vkdrv_pipeline_register *r, resolved *out, resolved *counter)
{
    const d12__drv_descriptor_heap *heap = state->heaps[r->declared.kind == D12_DXBC_SAMPLER];
    UINT64 base = state->tables[r->where.parameter];
    if (!base)
        return refuse(x, GBV_ROOT_ARGUMENT_UNINITIALIZED, "GPU_BASED_VALIDATION_ROOT_ARGUMENT_UNINITIALIZED", r,
                      "is in a descriptor table that was never set");
    UINT64 handle = base + r->where.table_offset * D12_VKDRV_DESCRIPTOR_SIZE;
    if (!heap || handle < heap->va || (handle - heap->va) / D12_VKDRV_DESCRIPTOR_SIZE >= heap->desc.NumDescriptors)
        return refuse(x, GBV_DESCRIPTOR_HEAP_INDEX_OUT_OF_BOUNDS,
                      "GPU_BASED_VALIDATION_DESCRIPTOR_HEAP_INDEX_OUT_OF_BOUNDS", r,
                      "lies past the end of the bound descriptor heap");
    d12__vkdrv_view_desc view;
    d12__vkdrv_view_read((SIZE_T)(heap->cpu + (handle - heap->va)), &view);
    if (view.kind == D12_VKDRV_VIEW_NONE)
        return refuse(x, GBV_DESCRIPTOR_UNINITIALIZED, "GPU_BASED_VALIDATION_DESCRIPTOR_UNINITIALIZED", r,
                      "reads a descriptor that was never written");
    bool typed_register = r->declared.resource == D12_DXBC_RESOURCE_TYPED;
    /* the view's kind, and typed or not (raw and structured alike), as the shader declares it; a null descriptor
     * of the right kind matches any */
    if (kind_type(view.kind) != r->type ||
        (view.kind != D12_VKDRV_VIEW_CBV && view.va && typed_register != (view.format != VK_FORMAT_UNDEFINED)))
        return refuse(x, GBV_DESCRIPTOR_TYPE_MISMATCH, "GPU_BASED_VALIDATION_DESCRIPTOR_TYPE_MISMATCH", r,
                      "reads a descriptor of another type than the shader declares");
    VkFormat format = r->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER                 ? VK_FORMAT_UNDEFINED
                      : typed_register && view.format != VK_FORMAT_UNDEFINED ? view.format
                                                                               : VK_FORMAT_R32_UINT;
    outcome o = bind_range(x, r, r->type, view.va, view.range, format, out);
    if (o == RUN && r->counter_binding != UINT32_MAX)
        o = bind_range(x, r, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, view.counter_va, 4, VK_FORMAT_R32_UINT, counter);
    return o;
}

/* A root view's register: its buffer from the address on (a root view has no size: to its buffer's end). */
static outcome resolve_root(const resolving *x, const d12__vkdrv_cs_state *state,
                            const d12__vkdrv_pipeline_register *r, resolved *out)
{
    UINT64 va = state->roots[r->where.parameter];
    if (!va)
        return page_fault(x, r, 0); /* a root view at VA 0 is a page fault there (issue 31 item 3) */
    return bind_range(x, r, r->type, va, UINT64_MAX,
                      r->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ? VK_FORMAT_UNDEFINED : VK_FORMAT_R32_UINT, out);
}

/* Every descriptor binding of the dispatch's set, by binding number. */
static outcome resolve_dispatch(const resolving *x, const op_plan *plan, resolved *out, uint32_t *count)
{
    const d12__vkdrv_pipeline *pipeline = &plan->pso->pipeline;
    *count = 0;
    for (uint32_t i = 0; i < pipeline->register_count; i++) {
        const d12__vkdrv_pipeline_register *r = &pipeline->registers[i];
        if (r->push_constants)
            continue;
        if (r->declared.kind == D12_DXBC_SAMPLER)
            return refuse(x, D12_VKDRV_MSG_DESCRIPTOR_UNBINDABLE, "D12RT_VULKAN_DESCRIPTOR_UNBINDABLE", r,
                          "is a sampler, which the Vulkan driver's compute dispatches do not bind yet");
        outcome o = r->where.type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE
                        ? resolve_table(x, plan->state, r, &out[r->binding],
                                        r->counter_binding != UINT32_MAX ? &out[r->counter_binding] : NULL)
                        : resolve_root(x, plan->state, r, &out[r->binding]);
        if (o != RUN)
            return o;
        uint32_t last = r->counter_binding != UINT32_MAX && r->counter_binding > r->binding ? r->counter_binding
                                                                                           : r->binding;
        if (last + 1 > *count)
            *count = last + 1;
    }
    return RUN;
}

/* ---- Descriptor sets ---- */

static VkBufferView make_view(d12__vkdrv_device *device, d12__vkdrv_cs_piece *piece, const resolved *d)
{
    VkBufferViewCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, .buffer = d->buffer,
                                   .format = d->format, .offset = d->offset, .range = d->range};
    VkBufferView view;
    if (!d12__vkdrv_grow((void **)&piece->views, &piece->view_capacity, piece->view_count, sizeof *piece->views) ||
        vkCreateBufferView(device->vk, &info, NULL, &view) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    piece->views[piece->view_count++] = view;
    return view;
}

/* The set of a dispatch: the previous one's when its descriptors are the same, else a new one, written now. */
static VkDescriptorSet write_set(d12__vkdrv_device *device, d12__vkdrv_cs_piece *piece, const d12__vkdrv_pso *pso,
                                 const resolved *descriptors, uint32_t count)
{
    if (piece->last_pso == pso && piece->last_count == count && piece->last_set &&
        memcmp(piece->last, descriptors, count * sizeof *descriptors) == 0)
        return piece->last_set;
    VkDescriptorSetAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = piece->pool, .descriptorSetCount = 1,
                                         .pSetLayouts = &pso->pipeline.set_layout};
    VkDescriptorSet set;
    if (vkAllocateDescriptorSets(device->vk, &alloc, &set) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    VkWriteDescriptorSet writes[2 * D12_VKDRV_SHADER_MAX_BINDINGS];
    VkDescriptorBufferInfo buffers[2 * D12_VKDRV_SHADER_MAX_BINDINGS];
    VkBufferView views[2 * D12_VKDRV_SHADER_MAX_BINDINGS];
    for (uint32_t b = 0; b < count; b++) {
        const resolved *d = &descriptors[b];
        writes[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                           .dstBinding = b, .descriptorCount = 1, .descriptorType = d->type};
        if (d->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
            buffers[b] = (VkDescriptorBufferInfo){d->buffer, d->offset, d->range};
            writes[b].pBufferInfo = &buffers[b];
        } else {
            if (!(views[b] = make_view(device, piece, d)))
                return VK_NULL_HANDLE;
            writes[b].pTexelBufferView = &views[b];
        }
    }
    vkUpdateDescriptorSets(device->vk, count, writes, 0, NULL);
    memcpy(piece->last, descriptors, count * sizeof *descriptors);
    piece->last_count = count;
    piece->last_pso = pso;
    piece->last_set = set;
    return set;
}

/* ---- The piece ---- */

static const d12__vkdrv_cs_entry *entry_of(const d12__vkdrv_recording *recording, const d12__vkdrv_op *op)
{
    return op->cs ? &recording->cs->entries[op->cs - 1] : NULL;
}

/* The piece's end (about D12_VKDRV_CHUNK_NS of estimated work, at least one op) and the descriptors its dispatches
 * may need, by type (uniform buffers, uniform texel, storage texel). */
static size_t plan_piece(const d12__vkdrv_device *device, const d12__vkdrv_recording *recording, size_t from,
                         size_t to, uint32_t counts[3], uint32_t *sets)
{
    UINT64 estimate = 0, rate = atomic_load_explicit(&device->kernel_ps, memory_order_relaxed);
    size_t i = from;
    counts[0] = counts[1] = counts[2] = *sets = 0;
    for (; i < to && (i == from || estimate < D12_VKDRV_CHUNK_NS); i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        const d12__vkdrv_cs_entry *entry = entry_of(recording, op);
        estimate += D12_VKDRV_OP_OVERHEAD_NS;
        if (!entry || entry->kind != D12_VKDRV_CS_DISPATCH)
            continue;
        const d12__vkdrv_pso *pso = recording->cs->states[entry->state].pso;
        UINT64 groups = (UINT64)op->u.draw.count * op->u.draw.instances * op->u.draw.start;
        estimate += groups * pso->estimate_threads * rate / 1000;
        (*sets)++;
        for (uint32_t r = 0; r < pso->pipeline.register_count; r++) {
            const d12__vkdrv_pipeline_register *reg = &pso->pipeline.registers[r];
            if (reg->push_constants)
                continue;
            counts[reg->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ? 0
                   : reg->type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ? 1 : 2]++;
            if (reg->counter_binding != UINT32_MAX)
                counts[2]++;
        }
    }
    return i;
}

static bool make_pool(d12__vkdrv_device *device, d12__vkdrv_cs_piece *piece, const uint32_t counts[3], uint32_t sets)
{
    VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, counts[0] ? counts[0] : 1},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, counts[1] ? counts[1] : 1},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, counts[2] ? counts[2] : 1}};
    VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = sets ? sets : 1, .poolSizeCount = 3, .pPoolSizes = sizes};
    return vkCreateDescriptorPool(device->vk, &info, NULL, &piece->pool) == VK_SUCCESS;
}

/* Step 1 and 2 for every op of the piece; a fault ends the piece at its op. */
static void resolve_piece(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, d12__vkdrv_cs_piece *piece)
{
    static _Thread_local resolved descriptors[2 * D12_VKDRV_SHADER_MAX_BINDINGS];
    for (size_t i = piece->from; i < piece->end; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        const d12__vkdrv_cs_entry *entry = entry_of(recording, op);
        op_plan *plan = &piece->plans[i - piece->from];
        resolving x = {device, piece, op};
        if (entry && (entry->kind == D12_VKDRV_CS_CLEAR || entry->kind == D12_VKDRV_CS_WRITE)) {
            bool clear = entry->kind == D12_VKDRV_CS_CLEAR;
            UINT64 va = clear ? entry->clear.va : op->u.write.dest;
            d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, va);
            if (buffer && va + (clear ? entry->clear.size : 4) <= buffer->va + buffer->span) {
                hold(piece, buffer);
                continue;
            }
            d12__vkdrv_buffer_release(buffer);
            char *va_name = d12__vkdrv_va_name(device, va);
            d12__vkdrv_report_later(device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                                    D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, op->state_index,
                                    "Page fault: %s writes GPU virtual address 0x%016llX, which is in no live "
                                    "buffer%s%s.",
                                    clear ? "ClearUnorderedAccessView" : "The write-immediate", (unsigned long long)va,
                                    va_name ? ": " : "", va_name ? va_name : "");
            free(va_name);
            piece->fault_va = va;
            piece->fault_flags = D3D12DDI_PAGE_FAULT_FLAG_WRITE;
        } else if (!entry || entry->kind != D12_VKDRV_CS_DISPATCH) {
            continue;
        } else {
            plan->state = &recording->cs->states[entry->state];
            plan->pso = plan->state->pso;
            uint32_t count;
            outcome o = resolve_dispatch(&x, plan, descriptors, &count);
            if (o == RUN)
                plan->set = write_set(device, piece, plan->pso, descriptors, count);
            if (o != FAULT)
                continue;
        }
        if (!device->has_0127)
            continue; /* before build 0127 nobody can be told: the op does not run, the timeline goes on */
        piece->faulted = true;
        piece->end = i;
        return;
    }
}

static void uav_barrier(VkCommandBuffer cb)
{
    VkMemoryBarrier2 memory = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                               VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                               .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                               VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                               .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT |
                                                VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT};
    VkDependencyInfo dependency = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
                                   .pMemoryBarriers = &memory};
    vkCmdPipelineBarrier2(cb, &dependency);
}

/* vkCmdFillBuffer for a pattern of one repeated 32-bit word; else vkCmdUpdateBuffer in 64 KiB pieces. */
static void record_clear(d12__vkdrv_device *device, VkCommandBuffer cb, const d12__vkdrv_cs_clear *clear)
{
    d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, clear->va); /* held by the piece: live */
    if (!buffer)
        return;
    UINT64 offset = clear->va - buffer->va, size = clear->size;
    if (size > buffer->span - offset)
        size = buffer->span - offset;
    unsigned char word[4];
    for (unsigned b = 0; b < 4; b++)
        word[b] = clear->pattern[b % clear->pattern_size];
    bool uniform = true;
    for (unsigned b = 0; b < clear->pattern_size && uniform; b++)
        uniform = clear->pattern[b] == word[b % 4];
    if (uniform) {
        uint32_t value;
        memcpy(&value, word, sizeof value);
        vkCmdFillBuffer(cb, buffer->vk, offset, size, value);
    } else {
        static _Thread_local unsigned char chunk[65536];
        for (size_t b = 0; b < sizeof chunk; b++)
            chunk[b] = clear->pattern[b % clear->pattern_size];
        for (UINT64 at = 0; at < size; at += sizeof chunk)
            vkCmdUpdateBuffer(cb, buffer->vk, offset + at, size - at < sizeof chunk ? size - at : sizeof chunk, chunk);
    }
    d12__vkdrv_buffer_release(buffer);
}

static void record_dispatch(d12__vkdrv_device *device, VkCommandBuffer cb, const op_plan *plan,
                            const d12__vkdrv_op *op, const d12__vkdrv_pso **bound)
{
    const d12__vkdrv_pipeline *pipeline = &plan->pso->pipeline;
    d12__vkdrv_adapter *adapter = device->adapter;
    bool labels = adapter->validation != D12_VKDRV_VALIDATION_OFF && adapter->ext.begin_label;
    if (labels) { /* the submit-time validation messages name the dispatch ([Dispatch #N]) */
        char name[32];
        snprintf(name, sizeof name, "d12op %u", op->state_index);
        VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = name};
        adapter->ext.begin_label(cb, &label);
    }
    if (adapter->validation != D12_VKDRV_VALIDATION_OFF)
        d12__vkdrv_validation_scope(op->state_index);
    if (*bound != plan->pso)
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline);
    *bound = plan->pso;
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout, 0, 1, &plan->set, 0, NULL);
    if (pipeline->push_constant_bytes)
        vkCmdPushConstants(cb, pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pipeline->push_constant_bytes,
                           plan->state->push);
    vkCmdDispatch(cb, op->u.draw.count, op->u.draw.instances, op->u.draw.start);
    if (labels)
        adapter->ext.end_label(cb);
    if (adapter->validation != D12_VKDRV_VALIDATION_OFF)
        d12__vkdrv_validation_scope(D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
}

/* Step 3: the command buffer of the piece's ops. */
static bool record_piece(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, VkCommandPool pool,
                         d12__vkdrv_cs_piece *piece)
{
    VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (vkAllocateCommandBuffers(device->vk, &alloc, &piece->cb) != VK_SUCCESS) {
        piece->cb = VK_NULL_HANDLE;
        return false;
    }
    VkCommandBuffer cb = piece->cb;
    vkBeginCommandBuffer(cb, &begin);
    if (piece->null_written) /* the null buffer's write half reads 0 again */
        vkCmdFillBuffer(cb, device->cs_null, NULL_HALF, NULL_HALF, 0);
    d12__vkdrv_full_barrier(cb); /* after the work before the piece (the chunk boundary) */
    const d12__vkdrv_pso *bound = NULL;
    for (size_t i = piece->from; i < piece->end; i++) {
        const d12__vkdrv_op *op = &recording->ops[i];
        const d12__vkdrv_cs_entry *entry = entry_of(recording, op);
        if (!entry)
            continue;
        d12__vkdrv_checkpoint(device, cb, recording->serial, i);
        if (entry->kind == D12_VKDRV_CS_BARRIER) {
            if (entry->uav_only)
                uav_barrier(cb);
            else
                d12__vkdrv_full_barrier(cb);
        } else if (entry->kind == D12_VKDRV_CS_CLEAR) {
            record_clear(device, cb, &entry->clear);
        } else if (entry->kind == D12_VKDRV_CS_WRITE) {
            d12__vkdrv_buffer *dst = d12__vkdrv_buffer_acquire(device, op->u.write.dest); /* held: live */
            if (dst)
                d12__vkdrv_record_write(device, cb, dst, op->u.write.dest - dst->va, op->u.write.value,
                                        (D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127)op->compute);
            d12__vkdrv_buffer_release(dst);
        } else if (piece->plans[i - piece->from].set) {
            record_dispatch(device, cb, &piece->plans[i - piece->from], op, &bound);
        }
    }
    d12__vkdrv_checkpoint(device, cb, recording->serial, piece->end);
    return vkEndCommandBuffer(cb) == VK_SUCCESS;
}

d12__vkdrv_cs_piece *d12__vkdrv_cs_prepare(d12__vkdrv_device *device, const d12__vkdrv_recording *recording,
                                           VkCommandPool pool, size_t from, size_t to)
{
    d12__vkdrv_cs_piece *piece = calloc(1, sizeof *piece);
    if (!piece)
        return NULL;
    uint32_t counts[3], sets;
    piece->from = from;
    piece->end = plan_piece(device, recording, from, to, counts, &sets);
    piece->plans = calloc(piece->end - from, sizeof *piece->plans);
    if (!piece->plans || !make_pool(device, piece, counts, sets)) {
        d12__vkdrv_cs_piece_free(device, pool, piece);
        return NULL;
    }
    resolve_piece(device, recording, piece);
    if (piece->end > piece->from && !record_piece(device, recording, pool, piece)) {
        d12__vkdrv_cs_piece_free(device, pool, piece);
        return NULL;
    }
    return piece;
}

VkCommandBuffer d12__vkdrv_cs_piece_cb(const d12__vkdrv_cs_piece *piece)
{
    return piece->cb;
}

size_t d12__vkdrv_cs_piece_end(const d12__vkdrv_cs_piece *piece)
{
    return piece->end;
}

bool d12__vkdrv_cs_piece_fault(const d12__vkdrv_cs_piece *piece, UINT64 *va, UINT *flags)
{
    *va = piece->fault_va;
    *flags = piece->fault_flags;
    return piece->faulted;
}

void d12__vkdrv_cs_piece_free(d12__vkdrv_device *device, VkCommandPool pool, d12__vkdrv_cs_piece *piece)
{
    if (!piece)
        return;
    if (!d12__vkdrv_abandoned(device)) { /* work that never completed may still use them (vkdrv_stuck.c) */
        if (piece->cb)
            vkFreeCommandBuffers(device->vk, pool, 1, &piece->cb);
        for (size_t i = 0; i < piece->view_count; i++)
            vkDestroyBufferView(device->vk, piece->views[i], NULL);
        if (piece->pool)
            vkDestroyDescriptorPool(device->vk, piece->pool, NULL);
        for (size_t i = 0; i < piece->held_count; i++)
            d12__vkdrv_buffer_release(piece->held[i]);
    }
    free(piece->views);
    free(piece->held);
    free(piece->plans);
    free(piece);
}
