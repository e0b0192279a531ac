/* Auto-breadcrumbs on command lists and the device's counter pool (breadcrumbs.h). */
#define _GNU_SOURCE /* asprintf */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dred_internal.h"
#include "list.h"

typedef D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 wbi_param;

/* ---- Counter pool ---- */

static d12_dred_pool_buffer *pool_buffer_create(struct d12_device *device)
{
    const d12_driver_gpu_funcs *gpu = device->gpu;
    d12_dred_pool_buffer *buffer = calloc(1, sizeof *buffer);
    if (buffer == NULL)
        return NULL;
    D3D12DDIARG_CREATERESOURCE_0126 args = {D3D12DDI_HEAP_TYPE_READBACK, D12_DRED_POOL_BYTES};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    void *memory = NULL;
    if (FAILED(d12__driver_private_alloc(device->driver, "Resource", gpu->core.pfnCalcPrivateResourceSize(driver, &args),
                                         &memory))) {
        free(buffer);
        return NULL;
    }
    buffer->handle.pDrvPrivate = memory;
    D3D12DDI_HRTRESOURCE rt_handle = {buffer}; /* runtime-internal: not in the object table, so never named */
    void *cpu = NULL;
    if (FAILED(gpu->core.pfnCreateResource(driver, &args, buffer->handle, rt_handle))) {
        free(memory);
        free(buffer);
        return NULL;
    }
    if (FAILED(gpu->core.pfnMapResource(driver, buffer->handle, &cpu)) || cpu == NULL) {
        gpu->core.pfnDestroyResource(driver, buffer->handle);
        free(memory);
        free(buffer);
        return NULL;
    }
    buffer->cpu = cpu;
    buffer->gpu_va = gpu->core.pfnGetResourceGPUVirtualAddress(driver, buffer->handle);
    memset((void *)buffer->cpu, 0, D12_DRED_POOL_BYTES);
    buffer->free_count = D12_DRED_POOL_SLOTS;
    for (uint32_t i = 0; i < D12_DRED_POOL_SLOTS; i++)
        buffer->free_slots[i] = D12_DRED_POOL_SLOTS - 1 - i; /* slot 0 is handed out first */
    return buffer;
}

/* A counter slot, or one with gpu_va 0 (then the list has no GPU counter; *pLastBreadcrumbValue shows 0). */
static d12_dred_counter counter_take(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    d12_dred_counter counter = {0};
    pthread_mutex_lock(&dred->pool_lock);
    d12_dred_pool_buffer *buffer = dred->pool;
    while (buffer && buffer->free_count == 0)
        buffer = buffer->next;
    if (buffer == NULL && (buffer = pool_buffer_create(device)) != NULL) {
        buffer->next = dred->pool;
        dred->pool = buffer;
    }
    if (buffer) {
        uint32_t slot = buffer->free_slots[--buffer->free_count];
        counter = (d12_dred_counter){&buffer->cpu[slot], buffer->gpu_va + 4u * slot, buffer, slot};
        *counter.cpu = 0;
    }
    pthread_mutex_unlock(&dred->pool_lock);
    return counter;
}

static void counter_give_back(struct d12_device *device, d12_dred_counter *counter)
{
    if (counter->buffer == NULL)
        return;
    struct d12_dred *dred = device->dred;
    pthread_mutex_lock(&dred->pool_lock);
    /* After a removal the slot stays taken: the frozen output copied its value, and nothing reuses it anyway. */
    counter->buffer->free_slots[counter->buffer->free_count++] = counter->index;
    pthread_mutex_unlock(&dred->pool_lock);
    counter->buffer = NULL;
}

void d12__dred_pool_destroy(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    D3D12DDI_HDEVICE driver = device->driver ? d12__driver_device_handle(device->driver) : (D3D12DDI_HDEVICE){0};
    for (d12_dred_pool_buffer *buffer = dred->pool, *next; buffer; buffer = next) {
        next = buffer->next;
        device->gpu->core.pfnUnmapResource(driver, buffer->handle);
        device->gpu->core.pfnDestroyResource(driver, buffer->handle);
        free(buffer->handle.pDrvPrivate);
        free(buffer);
    }
    dred->pool = NULL;
}

/* ---- A list's breadcrumb state ---- */

/* d12_dred_list.write without a driver write-immediate (a pre-0127 driver, or no counter memory). */
static VOID APIENTRY no_write_immediate(D3D12DDI_HCOMMANDLIST list, UINT count,
                                        const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                        const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes)
{
    (void)list, (void)count, (void)params, (void)modes;
}

HRESULT d12__dred_list_create(struct d12_device *device, struct d12_command_list *list, d12_dred_list **out)
{
    (void)list;
    *out = NULL;
    struct d12_dred *dred = device->dred;
    if (dred == NULL || !dred->enabled.auto_breadcrumbs)
        return S_OK;
    d12_dred_list *state = calloc(1, sizeof *state);
    /* Preallocated once per list: recording an op never allocates. */
    D3D12_AUTO_BREADCRUMB_OP *ring = state ? malloc(D12_DRED_RING_SLOTS * sizeof *ring) : NULL;
    d12_dred_work_args *args = ring ? malloc(D12_DRED_RING_SLOTS * sizeof *args) : NULL;
    if (args == NULL) {
        free(ring);
        free(state);
        return E_OUTOFMEMORY;
    }
    state->ring = ring;
    state->args = args;
    state->markers_only = dred->enabled.markers_only;
    state->contexts_on = dred->enabled.breadcrumb_context;
    state->track_state = true;
    state->write_immediate = dred->write_immediate;
    if (state->write_immediate) {
        state->counter = counter_take(device);
        if (state->counter.gpu_va == 0)
            state->write_immediate = NULL; /* no counter memory: the history still records */
    }
    state->write = state->write_immediate ? state->write_immediate : no_write_immediate;
    state->marker = (D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127){state->counter.gpu_va, 0};
    state->marker_mode = D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
    *out = state;
    return S_OK;
}

static void clear_contexts(d12_dred_list *dred)
{
    for (UINT i = 0; i < dred->context_count; i++)
        free(dred->contexts[i].text);
    dred->context_count = 0;
}

void d12__dred_list_destroy(struct d12_device *device, d12_dred_list *dred)
{
    if (dred == NULL)
        return;
    if (!d12__dred_frozen(device))
        counter_give_back(device, &dred->counter);
    clear_contexts(dred);
    free(dred->contexts);
    free(dred->changes);
    d12__dred_bundles_clear(dred);
    free(dred->bundle_runs);
    free(dred->bundle_works);
    free(dred->ring);
    free(dred->args);
    free(dred);
}

void d12__dred_list_begin(struct d12_command_list *list)
{
    d12_dred_list *dred = list->dred;
    if (dred == NULL)
        return;
    /* D3D12 lets a list be reset while its last recording executes: wait for a freeze in progress (it may be reading
     * this recording), and tell later ones that this list no longer holds what was submitted. */
    struct d12_dred *device_dred = list->device_child.device->dred;
    pthread_mutex_lock(&device_dred->freeze_lock);
    atomic_fetch_add_explicit(&dred->generation, 1, memory_order_relaxed);
    pthread_mutex_unlock(&device_dred->freeze_lock);
    dred->count = 0;
    dred->change_count = 0;
    d12__dred_bundles_clear(dred);
    dred->state_overflow = false;
    clear_contexts(dred);
    if (dred->write_immediate) {
        /* BRIEF §2: "at the start of every recording a DEFAULT write of 0 (so each execution restarts the count)". */
        wbi_param param = {dred->counter.gpu_va, 0};
        D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT;
        dred->write_immediate(list->handle, 1, &param, &mode);
    }
}

void d12__dred_list_close(struct d12_command_list *list)
{
    d12_dred_list *dred = list->dred;
    if (dred == NULL)
        return;
    struct d12_dred *device_dred = list->device_child.device->dred;
    atomic_store_explicit(&dred->closed_seq, atomic_load_explicit(&device_dred->free_seq, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&dred->closed_submission,
                          atomic_load_explicit(&device_dred->last_serial, memory_order_relaxed), memory_order_relaxed);
}

/* Whether the ring slot of op `index` holds the op (and so, for a work op, its arguments): the recording reached it
 * and no later op took the slot. */
static bool in_ring(const d12_dred_list *dred, UINT index)
{
    return index < dred->count && dred->count - index <= D12_DRED_RING_SLOTS && dred->count != UINT_MAX;
}

static bool debug_heap_fill(UINT64 v, bool wide)
{
    static const UINT32 fills[] = {0xCDCDCDCDu, 0xDDDDDDDDu, 0xFEEEFEEEu, 0xBAADF00Du};
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++)
        if (wide ? v == ((UINT64)fills[i] << 32 | fills[i]) : v == fills[i])
            return true;
    return false;
}

char *d12__dred_work_arguments_text(const d12_dred_list *dred, UINT index, UINT op, const d12_dred_capacity *capacity)
{
    /* Noted only with breadcrumb contexts on (the list's dred_args; docs/dred.md "The op's arguments"). */
    if (dred == NULL || !dred->contexts_on || !in_ring(dred, index) ||
        (UINT)dred->ring[index & D12_DRED_RING_MASK] != op)
        return NULL;
    return d12__dred_args_text(op, &dred->args[index & D12_DRED_RING_MASK], capacity);
}

/* A draw's count past what the bound views hold, from its start (issue 32 item 6: "absurd counts (above what the
 * bound resources could hold)"): the words after the value, or NULL. d12rt has no input layout, so every bound vertex
 * buffer is taken as per-vertex data: hence the question mark, as the other flags have. */
static const char *count_above(UINT op, unsigned i, const UINT32 *a, const d12_dred_capacity *capacity, char *words,
                               size_t size)
{
    if (capacity == NULL || i != 0)
        return NULL;
    UINT64 end = (UINT64)a[0] + a[2]; /* count + StartVertexLocation / StartIndexLocation */
    if (op == D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED && capacity->vertices != UINT64_MAX && end > capacity->vertices)
        snprintf(words, size, "above what the buffers hold? (vertex buffer slot %u holds %llu vertices; "
                 "StartVertexLocation %u)", capacity->vertex_slot, (unsigned long long)capacity->vertices, a[2]);
    else if (op == D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED && capacity->indices != UINT64_MAX &&
             end > capacity->indices)
        snprintf(words, size, "above what the buffers hold? (the index buffer holds %llu indices; StartIndexLocation "
                 "%u)", (unsigned long long)capacity->indices, a[2]);
    else
        return NULL;
    return words;
}

char *d12__dred_args_text(UINT op, const d12_dred_work_args *a, const d12_dred_capacity *capacity)
{
    /* The parameter names of the ID3D12GraphicsCommandList methods (d3d12.h). */
    static const char *const names[][5] = {
        [D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED] = {"VertexCountPerInstance", "InstanceCount", "StartVertexLocation",
                                                    "StartInstanceLocation"},
        [D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED] = {"IndexCountPerInstance", "InstanceCount",
                                                           "StartIndexLocation", "BaseVertexLocation",
                                                           "StartInstanceLocation"},
        [D3D12_AUTO_BREADCRUMB_OP_DISPATCH] = {"ThreadGroupCountX", "ThreadGroupCountY", "ThreadGroupCountZ"},
        [D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION] = {"DstOffset", "SrcOffset", "NumBytes"},
    };
    if (op >= sizeof names / sizeof names[0] || names[op][0] == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        return NULL;
    char above[160];
    for (unsigned i = 0; i < 5 && names[op][i]; i++) {
        bool wide = op == D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION;
        UINT64 v = wide ? a->u64[i] : a->u32[i];
        fprintf(out, "%s%s=", i ? ", " : "", names[op][i]);
        /* "an argument value that matches a debug-heap fill ... is shown in hex with 'uninitialized? (debug-heap
         * fill)'" (issue 19 item 4): the bytes an uninitialized variable has under the MSVC debug heap */
        bool is_signed = op == D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED && i == 3;
        /* every flagged value in hex and in decimal, the form an application's log shows (issue 32 item 6) */
        if (debug_heap_fill(v, wide))
            fprintf(out, wide ? "0x%016llX (%llu) uninitialized? (debug-heap fill)"
                              : "0x%08llX (%llu) uninitialized? (debug-heap fill)",
                    (unsigned long long)v, (unsigned long long)v);
        else if (!wide && !is_signed && v >= 0xFFFF0000u)
            /* a small negative number passed as a count (0xFFFFFFFF: -1): a subtraction that went below zero */
            fprintf(out, "0x%08llX (%llu) wrapped? (%d as a signed count)", (unsigned long long)v, (unsigned long long)v,
                    (int)(INT)(UINT)v);
        else if (!wide && count_above(op, i, a->u32, capacity, above, sizeof above))
            fprintf(out, "0x%08llX (%llu) %s", (unsigned long long)v, (unsigned long long)v, above);
        else if (is_signed)
            fprintf(out, "%d", (int)(INT)a->u32[3]); /* BaseVertexLocation is signed */
        else
            fprintf(out, "%llu", (unsigned long long)v);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void d12__dred_state(d12_dred_list *dred, d12_dred_state_kind kind, unsigned which, unsigned slot, UINT64 address,
                     UINT size, UINT stride)
{
    if (dred->change_count == dred->change_capacity) {
        UINT capacity = dred->change_capacity ? dred->change_capacity * 2 : 64;
        d12_dred_state_change *grown = realloc(dred->changes, capacity * sizeof *grown);
        if (grown == NULL) {
            dred->state_overflow = true;
            return;
        }
        dred->changes = grown;
        dred->change_capacity = capacity;
    }
    dred->changes[dred->change_count++] =
        (d12_dred_state_change){dred->count, (uint8_t)kind, (uint8_t)which, (uint16_t)slot, address, size, stride,
                                dred->bundle_step};
}

/* A context for the op about to be recorded (SetMarker, BeginEvent), when contexts are on. */
void d12__dred_add_context(d12_dred_list *dred, UINT metadata, const void *data, UINT size)
{
    if (!dred->contexts_on)
        return;
    wchar_t *text = d12__dred_decode_payload(metadata, data, size);
    if (text == NULL)
        return;
    if (dred->context_count == dred->context_capacity) {
        UINT capacity = dred->context_capacity ? dred->context_capacity * 2 : 16;
        d12_dred_context *grown = realloc(dred->contexts, capacity * sizeof *grown);
        if (grown == NULL) {
            free(text);
            return;
        }
        dred->contexts = grown;
        dred->context_capacity = capacity;
    }
    /* "BreadcrumbIndex of ops that have left the ring: use the absolute index, the number space of v" */
    dred->contexts[dred->context_count++] = (d12_dred_context){dred->count, text};
}
