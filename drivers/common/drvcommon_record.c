/* The record-time plumbing both drivers' command lists share (drvcommon_record.h says what it owns and why). */
#include "drvcommon_record.h"

static const char *const k_root_kind_names[] = {"CBV", "SRV", "UAV"};

void d12__drv_root_bind(d12__drv_root_state *root, unsigned index, unsigned kind, UINT64 address)
{
    root->kinds[index] = (uint8_t)kind;
    root->zero_mask = address ? root->zero_mask & ~(1ull << index) : root->zero_mask | (1ull << index);
}

const char *d12__drv_root_kind_name(unsigned kind)
{
    return k_root_kind_names[kind];
}

void d12__drv_vertex_view_args(d12__drv_op_args *u, const D3D12DDI_VERTEX_BUFFER_VIEW *view)
{
    u->view.address = view ? view->BufferLocation : 0;
    u->view.size = view ? view->SizeInBytes : 0;
    u->view.stride_or_format = view ? view->StrideInBytes : 0;
}

void d12__drv_index_view_args(d12__drv_op_args *u, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    u->view.address = view ? view->BufferLocation : 0;
    u->view.size = view ? view->SizeInBytes : 0;
    u->view.stride_or_format = view ? (UINT32)view->Format : 0;
}

void d12__drv_draw_args(d12__drv_op_args *u, UINT count, UINT instances, UINT start)
{
    u->draw.count = count;
    u->draw.instances = instances;
    u->draw.start = start;
}

bool d12__drv_write_invalid(const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *param,
                            D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode)
{
    return (param->Dest & 3) || (unsigned)mode > D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
}

/* The ops that do GPU work: a MARKER_OUT write itself is the marker, not work. */
static bool is_gpu_work(unsigned type, unsigned compute)
{
    switch ((d12__drv_op_type)type) {
    case D12_DRV_OP_DRAW:
    case D12_DRV_OP_DRAW_INDEXED:
    case D12_DRV_OP_DISPATCH:
    case D12_DRV_OP_COPY:
    case D12_DRV_OP_BARRIER:
        return true;
    case D12_DRV_OP_WRITE_IMMEDIATE:
        return compute != D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
    default:
        return false;
    }
}

void d12__drv_name_previous_op(unsigned type, unsigned compute, UINT32 *op_index, UINT32 value)
{
    if (value != 0 && is_gpu_work(type, compute) && *op_index == D3D12DDI_OP_INDEX_UNKNOWN)
        *op_index = value - 1;
}
