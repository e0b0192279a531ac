/* The Vulkan driver's command lists, shared by the files that record them (private to them; vkdrv.h declares what the
 * rest of the driver calls). A list records into a VkCommandBuffer inside each DDI call, along the path an op takes:
 *   vkdrv_list.c     lifecycle: Create/Reset (a fresh recording), Close, Destroy; the DDI table
 *   vkdrv_record.c   the op log and the command buffers: append an op, hold its buffers, segments cut by estimated
 *                    work (charge), the label/scope around each vkCmd*, the re-recording of one op (record_op)
 *   vkdrv_draw.c     bindings, draws and dispatches (inline kernels in the recording's arena)
 *   vkdrv_copy.c     copies, and the ordering D3D12 gives copies whose destinations overlap
 *   vkdrv_barrier.c  resource barriers, write-immediates, the driver's own barriers
 * Every address is resolved against the driver's VA map first; a range that is not wholly inside one live buffer is
 * never recorded into Vulkan: the op log keeps it, and the timeline reports it as the reference driver does. */
#ifndef D12_VKDRV_LIST_H
#define D12_VKDRV_LIST_H

#include "vkdrv.h"

static inline d12__vkdrv_command_list *d12__vkdrv_list_of(D3D12DDI_HCOMMANDLIST handle)
{
    return (d12__vkdrv_command_list *)handle.pDrvPrivate;
}

/* The current segment's command buffer: VK_NULL_HANDLE until a Vulkan command is recorded into it (open_current). */
static inline VkCommandBuffer d12__vkdrv_current(const d12__vkdrv_command_list *list)
{
    return list->recording->cbs[list->recording->cb_count - 1];
}

/* ---- vkdrv_record.c ---- */
void d12__vkdrv_list_error(d12__vkdrv_command_list *list, HRESULT hr);
/* *array grown (doubling, from 64 items) so that it holds count + 1 items; false: out of memory. */
bool d12__vkdrv_grow(void **array, size_t *capacity, size_t count, size_t item);
/* The next op of the log, zeroed but for its type, state index and segment; NULL: the list is closed or in error. */
d12__vkdrv_op *d12__vkdrv_append(d12__vkdrv_command_list *list, d12__vkdrv_op_type type);
bool d12__vkdrv_hold(d12__vkdrv_command_list *list, d12__vkdrv_buffer *buffer);
d12__vkdrv_buffer *d12__vkdrv_resolve(d12__vkdrv_device *device, UINT64 address, UINT64 size);
VkCommandBuffer d12__vkdrv_open_current(d12__vkdrv_command_list *list);
bool d12__vkdrv_new_segment(d12__vkdrv_recording *recording);
void d12__vkdrv_end_segment(d12__vkdrv_command_list *list);
void d12__vkdrv_charge(d12__vkdrv_command_list *list, UINT64 ns);
/* `bytes` (16-aligned) of the recording's arena: a block and an offset. false: out of memory. */
bool d12__vkdrv_arena_slot(d12__vkdrv_recording *recording, size_t bytes, UINT32 *block, UINT32 *offset);
/* Before recording an op of `ns` estimated work: a long one is preceded by the breadcrumb of the ops before it. */
void d12__vkdrv_crumb_before(d12__vkdrv_command_list *list, UINT64 ns);
/* A MARKER_OUT write of `value` at `offset` in `buffer` (held by the recording), recorded before the next Vulkan
 * command of the list; a later MARKER_OUT write to the same word with no Vulkan command between replaces it. */
void d12__vkdrv_marker_defer(d12__vkdrv_command_list *list, const d12__vkdrv_buffer *buffer, UINT64 offset,
                             UINT32 value);
/* At Close: the breadcrumb of the ops since the last one. */
void d12__vkdrv_crumb_close(d12__vkdrv_command_list *list);
void d12__vkdrv_vk_begin(d12__vkdrv_command_list *list);
void d12__vkdrv_vk_end(d12__vkdrv_command_list *list);

/* ---- vkdrv_draw.c: the DDI's bindings, draws and dispatches ---- */
VOID APIENTRY d12__vkdrv_set_vertex_buffers(D3D12DDI_HCOMMANDLIST handle, UINT start, UINT count,
                                            const D3D12DDI_VERTEX_BUFFER_VIEW *views);
VOID APIENTRY d12__vkdrv_set_index_buffer(D3D12DDI_HCOMMANDLIST handle, const D3D12DDI_INDEX_BUFFER_VIEW *view);
VOID APIENTRY d12__vkdrv_set_graphics_root_cbv(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_set_graphics_root_srv(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_set_graphics_root_uav(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_set_compute_root_cbv(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_set_compute_root_srv(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_set_compute_root_uav(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 address);
VOID APIENTRY d12__vkdrv_draw(D3D12DDI_HCOMMANDLIST handle, UINT vertices, UINT instances, UINT start_vertex,
                              UINT start_instance);
VOID APIENTRY d12__vkdrv_draw_indexed(D3D12DDI_HCOMMANDLIST handle, UINT indices, UINT instances, UINT start_index,
                                      INT base_vertex, UINT start_instance);
VOID APIENTRY d12__vkdrv_dispatch(D3D12DDI_HCOMMANDLIST handle, UINT x, UINT y, UINT z);

/* ---- vkdrv_copy.c ---- */
VOID APIENTRY d12__vkdrv_copy_buffer_region(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                            D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes);
VOID APIENTRY d12__vkdrv_copy_resource(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src);
/* vkCmdCopyBuffer2 of `size` bytes at the two VAs (each inside its buffer: the caller checked). */
void d12__vkdrv_cmd_copy(VkCommandBuffer cb, const d12__vkdrv_buffer *dst, UINT64 dst_va, const d12__vkdrv_buffer *src,
                         UINT64 src_va, UINT64 size);
/* The application's barrier ordered every earlier copy before every later one: none is tracked any more. */
void d12__vkdrv_copies_ordered(d12__vkdrv_command_list *list);

/* ---- vkdrv_barrier.c ---- */
VOID APIENTRY d12__vkdrv_resource_barrier(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                          const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers);
VOID APIENTRY d12__vkdrv_write_buffer_immediate(D3D12DDI_HCOMMANDLIST handle, UINT count,
                                                const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *params,
                                                const D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 *modes);
void d12__vkdrv_buffer_barrier(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                               VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                               VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
void d12__vkdrv_record_write(const d12__vkdrv_device *device, VkCommandBuffer cb, const d12__vkdrv_buffer *dst,
                             UINT64 offset, UINT32 value, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode);

#endif
