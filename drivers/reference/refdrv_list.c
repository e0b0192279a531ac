/* The reference driver's command allocators and command lists. A list records into a refcounted, append-only
 * recording of fixed-size commands in chunks, so recording a draw is one append (no lock, no atomic, no
 * formatting unless a record-time finding is reported), and a submission keeps the recording alive by taking
 * a reference: a list can be reset or destroyed while its work executes. Record-time findings (an indexed draw
 * with no index buffer, a root descriptor at address 0) are reported at once, from the recording call. */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "refdrv_gpu.h"


static d12__refdrv_command_list *list_of(D3D12DDI_HCOMMANDLIST handle)
{
    return (d12__refdrv_command_list *)handle.pDrvPrivate;
}

/* ---- Recordings ---- */

static d12__refdrv_recording *new_recording(void)
{
    d12__refdrv_recording *recording = calloc(1, sizeof *recording);
    if (recording)
        atomic_init(&recording->refs, 1);
    return recording;
}

void d12__refdrv_recording_retain(d12__refdrv_recording *recording)
{
    atomic_fetch_add_explicit(&recording->refs, 1, memory_order_relaxed);
}

void d12__refdrv_recording_release(d12__refdrv_recording *recording)
{
    if (!recording || atomic_fetch_sub_explicit(&recording->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (d12__refdrv_chunk *chunk = recording->head, *next; chunk; chunk = next) {
        next = chunk->next;
        free(chunk);
    }
    free(recording);
}

/* A recording error: the runtime's Close returns it (only the 0126 callbacks have the slot). */
static void list_error(d12__refdrv_command_list *list, HRESULT hr)
{
    if (list->device->callbacks.pfnSetCommandListErrorCb)
        list->device->callbacks.pfnSetCommandListErrorCb(list->rt_list, hr);
}

/* Room for one more command, or NULL (out of memory, reported; the caller drops the command). The chunk is
 * never moved, so the timeline of an earlier submission can read the commands recorded before it. */
d12__refdrv_command *d12__refdrv_list_append(d12__refdrv_command_list *list, unsigned type)
{
    d12__refdrv_recording *recording = list->recording;
    if (recording && recording->tail && recording->tail->count == D12_REFDRV_CHUNK_COMMANDS &&
        recording->tail->next) {
        recording->tail = recording->tail->next; /* a chunk kept from the list's previous recording (start_recording) */
    } else if (recording && (!recording->tail || recording->tail->count == D12_REFDRV_CHUNK_COMMANDS)) {
        d12__refdrv_chunk *chunk = malloc(sizeof *chunk);
        if (chunk) {
            chunk->next = NULL;
            chunk->count = 0;
            if (recording->tail)
                recording->tail->next = chunk;
            else
                recording->head = chunk;
            recording->tail = chunk;
        } else {
            recording = NULL;
        }
    }
    if (!recording || list->closed) {
        list_error(list, recording ? E_INVALIDARG : E_OUTOFMEMORY);
        return NULL;
    }
    d12__refdrv_command *command = &recording->tail->commands[recording->tail->count++];
    command->type = (uint8_t)type;
    command->state_index = list->state_index;
    command->op_index = D3D12DDI_OP_INDEX_UNKNOWN;
    return command;
}

d12__refdrv_recording *d12__refdrv_list_recording(D3D12DDI_HCOMMANDLIST handle)
{
    d12__refdrv_recording *recording = list_of(handle)->recording;
    if (recording)
        d12__refdrv_recording_retain(recording);
    return recording;
}

/* ---- Allocators ---- */

SIZE_T APIENTRY d12__refdrv_calc_private_allocator_size(D3D12DDI_HDEVICE device,
                                                        const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_command_allocator);
}

HRESULT APIENTRY d12__refdrv_create_allocator(D3D12DDI_HDEVICE device,
                                              const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args,
                                              D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    (void)device;
    if (!args || !allocator.pDrvPrivate)
        return E_INVALIDARG;
    ((d12__refdrv_command_allocator *)allocator.pDrvPrivate)->flags = args->QueueFlags;
    return S_OK;
}

VOID APIENTRY d12__refdrv_destroy_allocator(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    (void)device;
    (void)allocator;
}

/* Nothing to reclaim: each recording owns its chunks and frees them when its last holder (the list, or a
 * submission still executing it) lets go, and a list's Reset reuses its own recording's chunks when nothing else
 * holds them (start_recording). A hardware driver would recycle the allocator's command memory here; sharing
 * memory per allocator would make a reset race the timelines still reading it. */
VOID APIENTRY d12__refdrv_reset_allocator(D3D12DDI_HCOMMANDALLOCATOR allocator)
{
    (void)allocator;
}

/* ---- Lists ---- */

SIZE_T APIENTRY d12__refdrv_calc_private_list_size(D3D12DDI_HDEVICE device,
                                                   const D3D12DDIARG_CREATECOMMANDLIST_0126 *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__refdrv_command_list);
}

/* The list's recording emptied for reuse, when nothing but the list holds it (no submission of it is pending: the
 * acquire pairs with the release of the last submission's reference, so its timeline's reads came before). Its
 * chunks stay linked and are refilled in order (append), so a Reset costs no free and the next recording no malloc
 * or page faults up to the size of the largest recording so far: the cost per draw stays flat with recording size
 * (docs/performance.md "Cost per draw against recording size"). NULL when a submission still holds it. */
static d12__refdrv_recording *reusable_recording(d12__refdrv_command_list *list)
{
    d12__refdrv_recording *recording = list->recording;
    if (!recording || atomic_load_explicit(&recording->refs, memory_order_acquire) != 1)
        return NULL;
    /* Chunks after the tail are empty already (this loop emptied them when they were used), so only the used
     * ones are touched: a small recording after a large one pays for its own size. */
    for (d12__refdrv_chunk *chunk = recording->head; chunk; chunk = chunk->next) {
        bool last = chunk == recording->tail;
        chunk->count = 0;
        if (last)
            break;
    }
    recording->tail = recording->head;
    return recording;
}

/* A fresh recording and fresh record-time state, as Create and Reset give. */
static HRESULT start_recording(d12__refdrv_command_list *list)
{
    d12__refdrv_recording *reused = reusable_recording(list);
    if (!reused)
        d12__refdrv_recording_release(list->recording);
    list->recording = reused ? reused : new_recording();
    if (list->recording)
        list->recording->rt_list = list->rt_list;
    list->closed = false;
    list->index_buffer_bound = false;
    memset(&list->graphics, 0, sizeof list->graphics);
    memset(&list->compute, 0, sizeof list->compute);
    return list->recording ? S_OK : E_OUTOFMEMORY;
}

HRESULT APIENTRY d12__refdrv_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                         D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRTCOMMANDLIST rt_list)
{
    d12__refdrv_command_list *list = list_of(handle);
    if (!args || !list)
        return E_INVALIDARG;
    memset(list, 0, sizeof *list);
    list->device = (d12__refdrv_device *)device.pDrvPrivate;
    list->rt_list = rt_list;
    list->state_index = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    return start_recording(list);
}

VOID APIENTRY d12__refdrv_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST handle)
{
    (void)device;
    d12__refdrv_recording_release(list_of(handle)->recording);
    list_of(handle)->recording = NULL;
}

static VOID APIENTRY close_list(D3D12DDI_HCOMMANDLIST handle)
{
    list_of(handle)->closed = true;
}

/* The old recording lives on in the submissions that hold it. */
static VOID APIENTRY reset_list(D3D12DDI_HCOMMANDLIST handle, const D3D12DDIARG_RESETCOMMANDLIST_0126 *args)
{
    (void)args;
    d12__refdrv_command_list *list = list_of(handle);
    if (FAILED(start_recording(list)))
        list_error(list, E_OUTOFMEMORY);
}

static VOID APIENTRY set_vertex_buffers(D3D12DDI_HCOMMANDLIST handle, UINT start, UINT count,
                                        const D3D12DDI_VERTEX_BUFFER_VIEW *views)
{
    d12__refdrv_command_list *list = list_of(handle);
    for (UINT i = 0; i < count && start + i < D12_REFDRV_MAX_VERTEX_BUFFERS; i++) {
        d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_SET_VERTEX_BUFFER);
        if (!command)
            return;
        command->slot = (uint8_t)(start + i);
        d12__drv_vertex_view_args(&command->u, views ? &views[i] : NULL);
    }
}

static VOID APIENTRY set_index_buffer(D3D12DDI_HCOMMANDLIST handle, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    d12__refdrv_command_list *list = list_of(handle);
    d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_SET_INDEX_BUFFER);
    if (!command)
        return;
    list->index_buffer_bound = view != NULL;
    d12__drv_index_view_args(&command->u, view);
}

static void set_root(D3D12DDI_HCOMMANDLIST handle, bool compute, d12__refdrv_root_kind kind, UINT index,
                     UINT64 address)
{
    d12__refdrv_command_list *list = list_of(handle);
    if (index >= D12_REFDRV_MAX_ROOT_PARAMETERS) {
        list_error(list, E_INVALIDARG);
        return;
    }
    d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_SET_ROOT);
    if (!command)
        return;
    d12__drv_root_bind(compute ? &list->compute : &list->graphics, index, kind, address);
    command->slot = (uint8_t)index;
    command->root_kind = (uint8_t)kind;
    command->compute = compute;
    command->u.view.address = address;
}

#define ROOT_SETTER(name, compute, kind)                                                                      \
    static VOID APIENTRY name(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address)                      \
    {                                                                                                         \
        set_root(handle, compute, kind, index, address);                                                      \
    }
ROOT_SETTER(set_graphics_root_cbv, false, D12_REFDRV_ROOT_CBV)
ROOT_SETTER(set_graphics_root_srv, false, D12_REFDRV_ROOT_SRV)
ROOT_SETTER(set_graphics_root_uav, false, D12_REFDRV_ROOT_UAV)
ROOT_SETTER(set_compute_root_cbv, true, D12_REFDRV_ROOT_CBV)
ROOT_SETTER(set_compute_root_srv, true, D12_REFDRV_ROOT_SRV)
ROOT_SETTER(set_compute_root_uav, true, D12_REFDRV_ROOT_UAV)

/* The rare path of a draw or dispatch: one report per root parameter bound to address 0. */
static void report_null_roots(d12__refdrv_command_list *list, const d12__refdrv_root_state *root)
{
    for (unsigned i = 0; i < D12_REFDRV_MAX_ROOT_PARAMETERS; i++) {
        if (root->zero_mask & (1ull << i)) {
            d12__refdrv_report_now(list->device, D12_REFDRV_MSG_ROOT_DESCRIPTOR_NULL,
                                   D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, list->state_index,
                                   D12_DRV_TEXT_ROOT_DESCRIPTOR_NULL, i, d12__drv_root_kind_name(root->kinds[i]));
        }
    }
}

static VOID APIENTRY draw(D3D12DDI_HCOMMANDLIST handle, UINT vertices, UINT instances, UINT start_vertex,
                          UINT start_instance)
{
    (void)start_instance;
    d12__refdrv_command_list *list = list_of(handle);
    if (list->graphics.zero_mask && d12__refdrv_validating(list->device))
        report_null_roots(list, &list->graphics);
    d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_DRAW);
    if (!command)
        return;
    d12__drv_draw_args(&command->u, vertices, instances, start_vertex);
}

static VOID APIENTRY draw_indexed(D3D12DDI_HCOMMANDLIST handle, UINT indices, UINT instances, UINT start_index,
                                  INT base_vertex, UINT start_instance)
{
    (void)start_instance;
    d12__refdrv_command_list *list = list_of(handle);
    if (!list->index_buffer_bound && d12__refdrv_validating(list->device)) {
        d12__refdrv_report_now(list->device, D12_REFDRV_MSG_NO_INDEX_BUFFER, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                               list->state_index, D12_DRV_TEXT_NO_INDEX_BUFFER);
    }
    if (list->graphics.zero_mask)
        report_null_roots(list, &list->graphics);
    d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_DRAW_INDEXED);
    if (!command)
        return;
    d12__drv_draw_args(&command->u, indices, instances, start_index);
    command->u.draw.base_vertex = base_vertex;
}

static VOID APIENTRY dispatch(D3D12DDI_HCOMMANDLIST handle, UINT x, UINT y, UINT z)
{
    d12__refdrv_command_list *list = list_of(handle);
    if (list->compute.zero_mask)
        report_null_roots(list, &list->compute);
    d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_DISPATCH);
    if (!command)
        return;
    d12__drv_draw_args(&command->u, x, y, z);
}

/* Copies are recorded by address, so one whose buffer is destroyed before it executes faults at execution
 * instead of touching freed memory. */
static void record_copy(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                        D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 size)
{
    d12__refdrv_command *command = d12__refdrv_list_append(list_of(handle), D12_REFDRV_CMD_COPY);
    if (!command)
        return;
    UINT64 dst_va = d12__refdrv_resource_va(dst), src_va = d12__refdrv_resource_va(src);
    command->u.copy.dst = dst_va + dst_offset;
    command->u.copy.src = src_va + src_offset;
    command->u.copy.size = size;
    command->u.copy.dst_end = dst_va + d12__refdrv_resource_size(dst);
    command->u.copy.src_end = src_va + d12__refdrv_resource_size(src);
}

static VOID APIENTRY copy_buffer_region(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                        D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    record_copy(handle, dst, dst_offset, src, src_offset, bytes);
}

static VOID APIENTRY copy_resource(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    record_copy(handle, dst, 0, src, 0, d12__refdrv_resource_size(src));
}

/* Recorded (so a recording is a faithful log) but nothing to do at execution: the timeline runs one command
 * at a time and the memory is coherent. */
static VOID APIENTRY resource_barrier(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                      const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers)
{
    (void)barriers;
    d12__refdrv_command *command = count ? d12__refdrv_list_append(list_of(handle), D12_REFDRV_CMD_BARRIER) : NULL;
    if (command)
        command->u.draw.count = count;
}

/* ---- Write-immediate (DDI build 0127) ---- */

/* The OpIndex of the command before a MARKER_OUT write (drivers/common/drvcommon_record.h). Called before the
 * MARKER_OUT write is appended, so the tail is the command before it. */
static void name_previous_op(d12__refdrv_command_list *list, UINT32 value)
{
    d12__refdrv_chunk *tail = list->recording ? list->recording->tail : NULL;
    if (!tail || !tail->count)
        return;
    d12__refdrv_command *previous = &tail->commands[tail->count - 1];
    d12__drv_name_previous_op(previous->type, previous->compute, &previous->op_index, value);
}

/* One command per write, so each is a step of the timeline like any other command. A misaligned Dest or an
 * unknown mode is a recording error (the runtime's Close fails) and that write is dropped. */
static VOID APIENTRY write_buffer_immediate(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                            const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes)
{
    d12__refdrv_command_list *list = list_of(handle);
    if (count && !params) {
        list_error(list, E_INVALIDARG);
        return;
    }
    for (UINT i = 0; i < count; i++) {
        D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = modes ? modes[i] : D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT;
        if (d12__drv_write_invalid(&params[i], mode)) {
            list_error(list, E_INVALIDARG);
            continue;
        }
        if (mode == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT && !list->closed)
            name_previous_op(list, params[i].Value);
        d12__refdrv_command *command = d12__refdrv_list_append(list, D12_REFDRV_CMD_WRITE_IMMEDIATE);
        if (!command)
            return;
        command->compute = (uint8_t)mode;
        command->u.write.dest = params[i].Dest;
        command->u.write.value = params[i].Value;
    }
}

const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 d12__refdrv_command_list_funcs = {
    close_list,         reset_list,         set_vertex_buffers,    set_index_buffer,      set_graphics_root_cbv,
    set_graphics_root_srv, set_graphics_root_uav, set_compute_root_cbv, set_compute_root_srv, set_compute_root_uav,
    draw,               draw_indexed,       dispatch,              copy_buffer_region,    copy_resource,
    resource_barrier,   write_buffer_immediate,
};
