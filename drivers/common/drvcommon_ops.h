/* The op log both drivers record (drivers/reference/refdrv_gpu.h's commands, drivers/vulkan/vkdrv.h's ops): the op
 * types, the root descriptor kinds and the arguments of one op, the same for both so that the execution-time rules
 * (drvcommon_rules.h) replay either driver's recording. Each driver's record wraps these arguments with what only it
 * keeps (the Vulkan driver: whether a Vulkan command was recorded, and in which command buffer). */
#ifndef D12_DRVCOMMON_OPS_H
#define D12_DRVCOMMON_OPS_H

#include <stdint.h>

#include "d12rt/d3d12ddi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define D12_DRV_MAX_VERTEX_BUFFERS 32
#define D12_DRV_MAX_ROOT_PARAMETERS 64

typedef enum d12__drv_op_type {
    D12_DRV_OP_SET_VERTEX_BUFFER, /* one slot per record (a NULL view unbinds it) */
    D12_DRV_OP_SET_INDEX_BUFFER,
    D12_DRV_OP_SET_ROOT, /* graphics or compute root CBV/SRV/UAV */
    D12_DRV_OP_DRAW,
    D12_DRV_OP_DRAW_INDEXED,
    D12_DRV_OP_DISPATCH,
    D12_DRV_OP_COPY,
    D12_DRV_OP_BARRIER,
    D12_DRV_OP_WRITE_IMMEDIATE, /* pfnWriteBufferImmediate (build 0127): one record per write */
} d12__drv_op_type;

typedef enum d12__drv_root_kind {
    D12_DRV_ROOT_CBV,
    D12_DRV_ROOT_SRV,
    D12_DRV_ROOT_UAV,
} d12__drv_root_kind;

/* A vertex or index buffer view, or a root descriptor's address. */
typedef struct d12__drv_view {
    UINT64 address; /* 0: unbound */
    UINT32 size, stride_or_format;
} d12__drv_view;

/* The arguments of one op, by its type. */
typedef union d12__drv_op_args {
    d12__drv_view view; /* SET_VERTEX_BUFFER, SET_INDEX_BUFFER, SET_ROOT */
    struct {
        UINT32 count, instances, start; /* a dispatch: the group counts X, Y, Z */
        INT32 base_vertex;
    } draw;
    struct {
        UINT64 dst, src, size; /* GPU virtual addresses: resolved at execution */
        /* The first byte past each resource the call named (its VA + Width): the copy is checked against those
         * resources, not against whatever allocation its addresses reach (issue 29: a copy past its destination's
         * end that landed exactly on the next buffer was written by one driver, dropped by the other, reported by
         * neither). 0: not known (the range is then checked against the allocation it lies in). */
        UINT64 dst_end, src_end;
    } copy;
    struct {
        UINT64 dest; /* GPU virtual address, 4-byte aligned: resolved at execution */
        UINT32 value;
    } write;
} d12__drv_op_args;

#ifdef __cplusplus
}
#endif

#endif
