/* Bundles (bundle.h; docs/bundles.md). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "correlation.h"
#include "d12_messages.h"
#include "device.h"
#include "dred/breadcrumbs.h"
#include "foreign.h"
#include "objtable.h"

typedef enum bundle_op {
    OP_VERTEX_BUFFER, /* one slot: the API's IASetVertexBuffers is recorded a slot at a time */
    OP_INDEX_BUFFER,
    OP_ROOT,          /* `which`: a d12_dred_root_kind, the setter */
    OP_DRAW,
    OP_DRAW_INDEXED,
    OP_DISPATCH,
    /* The compute binding calls (D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING), replayed into the caller's binding
     * table in order (docs/pipelines.md). */
    OP_PIPELINE,       /* u.objects[0]: the driver's pipeline state */
    OP_ROOT_SIGNATURE, /* u.objects[0]: the driver's root signature */
    OP_HEAPS,          /* u.objects: the driver's heaps, `slot` of them */
    OP_TABLE,          /* slot: the root parameter; u.address: the GPU handle */
    OP_CONSTANT,       /* slot: the root parameter; u.constant: one 32-bit constant at its offset */
} bundle_op;

typedef struct bundle_command {
    uint8_t op;      /* bundle_op */
    uint8_t which;   /* OP_ROOT: the setter (D12_DRED_ROOT_*) */
    bool bound;      /* OP_VERTEX_BUFFER, OP_INDEX_BUFFER: a view (false: the slot is unbound, the API's NULL) */
    UINT slot;       /* vertex buffer slot; root parameter index */
    UINT32 index;    /* draws and dispatches: the state index the bundle's recorder issued for it */
    union {
        D3D12DDI_VERTEX_BUFFER_VIEW vertex;
        D3D12DDI_INDEX_BUFFER_VIEW index;
        UINT64 address;
        void *objects[2];
        struct {
            UINT offset, value;
        } constant;
        struct {
            UINT a, b, c, e;
            INT d;
        } work;      /* DrawInstanced (a, b, c, e), DrawIndexedInstanced (a, b, c, d, e), Dispatch (a, b, c) */
    } u;
} bundle_command;

typedef struct d12_bundle_log {
    struct d12_command_list *list;
    bundle_command *commands;
    size_t count, capacity;
    UINT32 pending_index; /* pfnSetCommandListStateIndex's last value, for the work call that follows */
} d12_bundle_log;

static d12_bundle_log *log_of(D3D12DDI_HCOMMANDLIST handle)
{
    return handle.pDrvPrivate;
}

/* The first recording error is what Close returns (list.c's record_error). */
static void bundle_error(struct d12_command_list *list, HRESULT hr)
{
    HRESULT none = S_OK;
    atomic_compare_exchange_strong(&list->error, &none, hr);
}

/* Room for one more call, or NULL (out of memory: the call is dropped and Close returns E_OUTOFMEMORY). */
static bundle_command *append(D3D12DDI_HCOMMANDLIST handle, bundle_op op)
{
    d12_bundle_log *log = log_of(handle);
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? log->capacity * 2 : 16;
        bundle_command *grown = realloc(log->commands, capacity * sizeof *grown);
        if (!grown) {
            bundle_error(log->list, E_OUTOFMEMORY);
            return NULL;
        }
        log->commands = grown;
        log->capacity = capacity;
    }
    bundle_command *command = &log->commands[log->count++];
    memset(command, 0, sizeof *command);
    command->op = (uint8_t)op;
    command->index = D12_STATE_INDEX_NONE;
    return command;
}

/* ---- The recording table (what list.c's methods call for a bundle) ---- */

static VOID APIENTRY bundle_close(D3D12DDI_HCOMMANDLIST handle)
{
    (void)handle; /* the log is complete as it is */
}

static VOID APIENTRY bundle_reset(D3D12DDI_HCOMMANDLIST handle, const D3D12DDIARG_RESETCOMMANDLIST_0126 *args)
{
    (void)args;
    log_of(handle)->count = 0; /* earlier ExecuteBundle calls copied what they replayed */
    log_of(handle)->pending_index = D12_STATE_INDEX_NONE;
}

static VOID APIENTRY bundle_set_vertex_buffers(D3D12DDI_HCOMMANDLIST handle, UINT start, UINT count,
                                               const D3D12DDI_VERTEX_BUFFER_VIEW *views)
{
    for (UINT i = 0; i < count; i++) {
        bundle_command *command = append(handle, OP_VERTEX_BUFFER);
        if (!command)
            return;
        command->slot = start + i;
        command->bound = views != NULL;
        if (views)
            command->u.vertex = views[i];
    }
}

static VOID APIENTRY bundle_set_index_buffer(D3D12DDI_HCOMMANDLIST handle, const D3D12DDI_INDEX_BUFFER_VIEW *view)
{
    bundle_command *command = append(handle, OP_INDEX_BUFFER);
    if (!command)
        return;
    command->bound = view != NULL;
    if (view)
        command->u.index = *view;
}

static void bundle_root(D3D12DDI_HCOMMANDLIST handle, unsigned which, UINT parameter, UINT64 address)
{
    bundle_command *command = append(handle, OP_ROOT);
    if (!command)
        return;
    command->which = (uint8_t)which;
    command->slot = parameter;
    command->u.address = address;
}

#define BUNDLE_ROOT(name, which)                                                                              \
    static VOID APIENTRY name(D3D12DDI_HCOMMANDLIST handle, UINT parameter, UINT64 address)                   \
    {                                                                                                         \
        bundle_root(handle, which, parameter, address);                                                       \
    }
BUNDLE_ROOT(bundle_graphics_cbv, D12_DRED_ROOT_GRAPHICS_CBV)
BUNDLE_ROOT(bundle_graphics_srv, D12_DRED_ROOT_GRAPHICS_SRV)
BUNDLE_ROOT(bundle_graphics_uav, D12_DRED_ROOT_GRAPHICS_UAV)
BUNDLE_ROOT(bundle_compute_cbv, D12_DRED_ROOT_COMPUTE_CBV)
BUNDLE_ROOT(bundle_compute_srv, D12_DRED_ROOT_COMPUTE_SRV)
BUNDLE_ROOT(bundle_compute_uav, D12_DRED_ROOT_COMPUTE_UAV)
#undef BUNDLE_ROOT

static void bundle_work(D3D12DDI_HCOMMANDLIST handle, bundle_op op, UINT a, UINT b, UINT c, INT d, UINT e)
{
    bundle_command *command = append(handle, op);
    if (!command)
        return;
    command->index = log_of(handle)->pending_index;
    log_of(handle)->pending_index = D12_STATE_INDEX_NONE;
    command->u.work.a = a;
    command->u.work.b = b;
    command->u.work.c = c;
    command->u.work.d = d;
    command->u.work.e = e;
}

static VOID APIENTRY bundle_draw(D3D12DDI_HCOMMANDLIST handle, UINT vertices, UINT instances, UINT start_vertex,
                                 UINT start_instance)
{
    bundle_work(handle, OP_DRAW, vertices, instances, start_vertex, 0, start_instance);
}

static VOID APIENTRY bundle_draw_indexed(D3D12DDI_HCOMMANDLIST handle, UINT indices, UINT instances,
                                         UINT start_index, INT base_vertex, UINT start_instance)
{
    bundle_work(handle, OP_DRAW_INDEXED, indices, instances, start_index, base_vertex, start_instance);
}

static VOID APIENTRY bundle_dispatch(D3D12DDI_HCOMMANDLIST handle, UINT x, UINT y, UINT z)
{
    bundle_work(handle, OP_DISPATCH, x, y, z, 0, 0);
}

static VOID APIENTRY bundle_set_pipeline(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HPIPELINESTATE state)
{
    bundle_command *command = append(handle, OP_PIPELINE);
    if (command)
        command->u.objects[0] = state.pDrvPrivate;
}

static VOID APIENTRY bundle_set_root_signature(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HROOTSIGNATURE signature)
{
    bundle_command *command = append(handle, OP_ROOT_SIGNATURE);
    if (command)
        command->u.objects[0] = signature.pDrvPrivate;
}

static VOID APIENTRY bundle_set_heaps(D3D12DDI_HCOMMANDLIST handle, UINT count, const D3D12DDI_HDESCRIPTORHEAP *heaps)
{
    bundle_command *command = append(handle, OP_HEAPS);
    if (!command)
        return;
    command->slot = count < 2 ? count : 2; /* the runtime checked: at most one heap of each of the two types */
    for (UINT i = 0; i < command->slot; i++)
        command->u.objects[i] = heaps[i].pDrvPrivate;
}

static VOID APIENTRY bundle_set_table(D3D12DDI_HCOMMANDLIST handle, UINT parameter, UINT64 base)
{
    bundle_command *command = append(handle, OP_TABLE);
    if (command) {
        command->slot = parameter;
        command->u.address = base;
    }
}

static VOID APIENTRY bundle_set_constants(D3D12DDI_HCOMMANDLIST handle, UINT parameter, UINT count, const UINT *values,
                                          UINT offset)
{
    for (UINT i = 0; i < count; i++) {
        bundle_command *command = append(handle, OP_CONSTANT);
        if (!command)
            return;
        command->slot = parameter;
        command->u.constant.offset = offset + i;
        command->u.constant.value = values[i];
    }
}

/* A bundle cannot clear (list_pipeline.c refuses it before the table): these slots are never called. */
static VOID APIENTRY bundle_no_clear_uint(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu,
                                          D3D12DDI_HRESOURCE resource, const UINT *values)
{
    (void)handle, (void)gpu, (void)cpu, (void)resource, (void)values;
}

static VOID APIENTRY bundle_no_clear_float(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu,
                                           D3D12DDI_HRESOURCE resource, const FLOAT *values)
{
    (void)handle, (void)gpu, (void)cpu, (void)resource, (void)values;
}

static const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT k_bundle_binding = {
    bundle_set_pipeline, bundle_set_root_signature, bundle_set_heaps,     bundle_set_table,
    bundle_set_constants, bundle_no_clear_uint,     bundle_no_clear_float,
};

/* One compute binding call of the bundle into the caller's binding table (none: the driver has no compute tables). */
static void replay_binding(struct d12_command_list *caller, const bundle_command *c)
{
    const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT *binding = caller->binding;
    if (!binding)
        return;
    D3D12DDI_HCOMMANDLIST handle = caller->handle;
    switch ((bundle_op)c->op) {
    case OP_PIPELINE: binding->pfnSetPipelineState(handle, (D3D12DDI_HPIPELINESTATE){c->u.objects[0]}); break;
    case OP_ROOT_SIGNATURE:
        binding->pfnSetComputeRootSignature(handle, (D3D12DDI_HROOTSIGNATURE){c->u.objects[0]});
        break;
    case OP_HEAPS: {
        D3D12DDI_HDESCRIPTORHEAP heaps[2] = {{c->u.objects[0]}, {c->u.objects[1]}};
        binding->pfnSetDescriptorHeaps(handle, c->slot, heaps);
        break;
    }
    case OP_TABLE: binding->pfnSetComputeRootDescriptorTable(handle, c->slot, c->u.address); break;
    case OP_CONSTANT:
        binding->pfnSetComputeRoot32BitConstants(handle, c->slot, 1, &c->u.constant.value, c->u.constant.offset);
        break;
    default: break;
    }
}

/* Copies and barriers never get here: list.c refuses them in a bundle before they reach its table. */
const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 d12__bundle_ddi = {
    .pfnCloseCommandList = bundle_close,
    .pfnResetCommandList = bundle_reset,
    .pfnIaSetVertexBuffers = bundle_set_vertex_buffers,
    .pfnIaSetIndexBuffer = bundle_set_index_buffer,
    .pfnSetGraphicsRootConstantBufferView = bundle_graphics_cbv,
    .pfnSetGraphicsRootShaderResourceView = bundle_graphics_srv,
    .pfnSetGraphicsRootUnorderedAccessView = bundle_graphics_uav,
    .pfnSetComputeRootConstantBufferView = bundle_compute_cbv,
    .pfnSetComputeRootShaderResourceView = bundle_compute_srv,
    .pfnSetComputeRootUnorderedAccessView = bundle_compute_uav,
    .pfnDrawInstanced = bundle_draw,
    .pfnDrawIndexedInstanced = bundle_draw_indexed,
    .pfnDispatch = bundle_dispatch,
};

/* The bundle's pfnSetCommandListStateIndex: kept for the work call that follows (list.c's before_work). */
static VOID APIENTRY bundle_set_state_index(D3D12DDI_HCOMMANDLIST handle, UINT32 index)
{
    log_of(handle)->pending_index = index;
}

HRESULT d12__bundle_create(struct d12_command_list *list)
{
    d12_bundle_log *log = calloc(1, sizeof *log);
    if (!log)
        return E_OUTOFMEMORY;
    log->list = list;
    log->pending_index = D12_STATE_INDEX_NONE;
    list->handle.pDrvPrivate = log;
    list->ddi = &d12__bundle_ddi;
    if (list->binding)
        list->binding = &k_bundle_binding; /* the driver has the compute tables: the bundle logs the calls */
    if (list->set_state_index)
        list->set_state_index = bundle_set_state_index;
    return S_OK;
}

void d12__bundle_destroy(struct d12_command_list *list)
{
    d12_bundle_log *log = log_of(list->handle);
    if (log)
        free(log->commands);
}

void d12__bundle_refuse(struct d12_command_list *list, const char *method)
{
    d12__msg_invalid_bundle_api(list->device_child.device->info_queue, method);
    bundle_error(list, E_FAIL);
}

/* ---- ExecuteBundle ---- */

static PFND3D12DDI_SET_ROOT_BUFFER_VIEW root_setter(const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 *ddi, unsigned which)
{
    switch (which) {
    case D12_DRED_ROOT_GRAPHICS_CBV: return ddi->pfnSetGraphicsRootConstantBufferView;
    case D12_DRED_ROOT_GRAPHICS_SRV: return ddi->pfnSetGraphicsRootShaderResourceView;
    case D12_DRED_ROOT_GRAPHICS_UAV: return ddi->pfnSetGraphicsRootUnorderedAccessView;
    case D12_DRED_ROOT_COMPUTE_CBV: return ddi->pfnSetComputeRootConstantBufferView;
    case D12_DRED_ROOT_COMPUTE_SRV: return ddi->pfnSetComputeRootShaderResourceView;
    default: return ddi->pfnSetComputeRootUnorderedAccessView;
    }
}

/* DRED's record of a replayed draw or dispatch (issue 32 item 1): its op, its ordinal among the bundle's calls of its
 * kind (`*ordinal`, counted up) and its arguments in the method's parameter order, as d12__dred_note_args32 keeps
 * a list's own (Dispatch's unused d and e are 0). */
static void note_work(d12_dred_list *dred, const bundle_command *c, UINT *ordinal)
{
    static const UINT ops[] = {[OP_DRAW - OP_DRAW] = D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED,
                               [OP_DRAW_INDEXED - OP_DRAW] = D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED,
                               [OP_DISPATCH - OP_DRAW] = D3D12_AUTO_BREADCRUMB_OP_DISPATCH};
    const UINT32 indexed[5] = {c->u.work.a, c->u.work.b, c->u.work.c, (UINT32)c->u.work.d, c->u.work.e};
    const UINT32 other[5] = {c->u.work.a, c->u.work.b, c->u.work.c, c->u.work.e, 0};
    d12__dred_bundle_work(dred, ops[c->op - OP_DRAW], (*ordinal)++, c->op == OP_DRAW_INDEXED ? indexed : other);
}

/* The bundle's calls, in order, into the caller's driver list: its bindings are the caller's from here on ("All of
 * the state that is set in a bundle will affect the state of the parent command list"), and the caller's bindings
 * are the bundle's ("Bundles inherit all state from the parent command list ... except the pipeline state object
 * and primitive topology": d12rt has neither). A work call gets the index the bundle's recorder issued for it. */
static void replay(struct d12_command_list *caller, const d12_bundle_log *log)
{
    const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 *ddi = caller->ddi;
    D3D12DDI_HCOMMANDLIST handle = caller->handle;
    UINT ordinals[3] = {0, 0, 0}; /* per kind, as the bundle's recorder counts them ("[Draw #n]") */
    for (size_t i = 0; i < log->count; i++) {
        const bundle_command *c = &log->commands[i];
        switch ((bundle_op)c->op) {
        case OP_VERTEX_BUFFER:
            ddi->pfnIaSetVertexBuffers(handle, c->slot, 1, c->bound ? &c->u.vertex : NULL);
            d12__dred_note_state(caller->dred, D12_DRED_STATE_VERTEX_BUFFER, 0, c->slot, c->bound ?
                                 c->u.vertex.BufferLocation : 0, c->bound ? c->u.vertex.SizeInBytes : 0,
                                 c->bound ? c->u.vertex.StrideInBytes : 0);
            break;
        case OP_INDEX_BUFFER:
            ddi->pfnIaSetIndexBuffer(handle, c->bound ? &c->u.index : NULL);
            d12__dred_note_state(caller->dred, D12_DRED_STATE_INDEX_BUFFER, 0, 0, c->bound ? c->u.index.BufferLocation
                                 : 0, c->bound ? c->u.index.SizeInBytes : 0, c->bound ? (UINT)c->u.index.Format : 0);
            break;
        case OP_ROOT:
            root_setter(ddi, c->which)(handle, c->slot, c->u.address);
            d12__dred_note_state(caller->dred, D12_DRED_STATE_ROOT_DESCRIPTOR, c->which, c->slot, c->u.address, 0, 0);
            break;
        case OP_DRAW:
        case OP_DRAW_INDEXED:
        case OP_DISPATCH:
            if (caller->set_state_index)
                caller->set_state_index(handle, c->index);
            if (c->op == OP_DRAW)
                ddi->pfnDrawInstanced(handle, c->u.work.a, c->u.work.b, c->u.work.c, c->u.work.e);
            else if (c->op == OP_DRAW_INDEXED)
                ddi->pfnDrawIndexedInstanced(handle, c->u.work.a, c->u.work.b, c->u.work.c, c->u.work.d, c->u.work.e);
            else
                ddi->pfnDispatch(handle, c->u.work.a, c->u.work.b, c->u.work.c);
            if (caller->dred_work)
                note_work(caller->dred_work, c, &ordinals[c->op - OP_DRAW]);
            break;
        default:
            replay_binding(caller, c);
            break;
        }
    }
}

/* DRED: EXECUTEBUNDLE in the calling list (the bundle's own ops are not breadcrumbs, as on Windows), with the
 * bundle's identity as the op's breadcrumb context when contexts are on, so the report names the bundle; the
 * replay between begin and end records the bundle's draws beside the op (issue 32 item 1: the report names the draw
 * the driver named, with the state it saw). */
static void replay_with_breadcrumb(struct d12_command_list *caller, struct d12_command_list *bundle)
{
    if (!caller->dred_work) {
        replay(caller, log_of(bundle->handle));
        return;
    }
    bool out_of_memory = false;
    char *name = d12__object_name_dup(&bundle->device_child.object, &out_of_memory);
    d12__dred_bundle_begin(caller->dred_work, (UINT64)(uintptr_t)&bundle->com.list, name);
    replay(caller, log_of(bundle->handle));
    d12__dred_bundle_end(caller->dred_work);
    char *identity = out_of_memory ? NULL : d12__format_identity(&bundle->com.list, "ID3D12GraphicsCommandList", name);
    free(name);
    if (identity) /* metadata 1: an ANSI string, Size with its terminator */
        d12__dred_add_context(caller->dred_work, 1, identity, (UINT)strlen(identity) + 1);
    free(identity);
    d12__dred_record(caller->dred_work, caller->handle, D3D12_AUTO_BREADCRUMB_OP_EXECUTEBUNDLE);
}

/* ExecuteBundle's runtime validation: "the 'callee' is a bundle and ... the 'caller' is a direct command list ... the
 * bundle has been closed. If the contract is violated, the runtime will silently drop the call. Validation failure
 * will result in Close returning E_INVALIDARG" (nf-d3d12-id3d12graphicscommandlist-executebundle); the debug layer
 * says why. NULL: the bundle to replay. */
static struct d12_command_list *callee(struct d12_command_list *self, ID3D12GraphicsCommandList *api)
{
    struct d12_device *device = self->device_child.device;
    struct d12_command_list *bundle = d12__command_list_unwrap(api);
    const char *problem = self->type == D3D12_COMMAND_LIST_TYPE_BUNDLE
                              ? "the calling list is a bundle (a bundle cannot execute a bundle)"
                          : self->type != D3D12_COMMAND_LIST_TYPE_DIRECT
                              ? "the calling list is not a direct command list"
                          : !bundle ? "pCommandList is NULL or not a d12rt command list"
                          : bundle->type != D3D12_COMMAND_LIST_TYPE_BUNDLE ? "pCommandList is not a bundle"
                          : NULL;
    if (problem) {
        d12__msg_execute_bundle_type(device->info_queue, problem);
    } else if (d12__foreign(device, bundle->device_child.device, "ID3D12GraphicsCommandList::ExecuteBundle",
                            "pCommandList", "the call is dropped and Close returns E_INVALIDARG")) {
        problem = "foreign";
    } else if (atomic_load(&bundle->open)) {
        d12__msg_execute_bundle_open_bundle(device->info_queue);
        problem = "open";
    } else if (FAILED(atomic_load(&bundle->error))) {
        d12__msg_execute_bundle_type(device->info_queue, "the bundle's Close failed (it recorded an error)");
        problem = "failed";
    }
    if (problem) {
        bundle_error(self, E_INVALIDARG);
        return NULL;
    }
    return bundle;
}

void d12_command_list_ExecuteBundle(struct d12_command_list *self, ID3D12GraphicsCommandList *pCommandList)
{
    if (!atomic_load_explicit(&self->open, memory_order_relaxed)) {
        d12__msg_command_list_closed(self->device_child.device->info_queue, "ExecuteBundle", "the call is ignored");
        return;
    }
    struct d12_command_list *bundle = callee(self, pCommandList);
    if (!bundle)
        return;
    /* The caller's submissions keep the bundle's indices resolvable (out of memory: they resolve while the bundle's
     * recording lives, i.e. until the bundle is reset or destroyed). */
    if (self->set_state_index)
        d12__recording_adopt(d12__recorder_recording(&self->recorder), d12__recorder_recording(&bundle->recorder));
    replay_with_breadcrumb(self, bundle);
}

/* ---- The calls a bundle may not record, which d12rt does not implement for other lists either ---- */

#define REFUSED_IN_BUNDLES(method, params, ...)                                                                   \
    void d12_command_list_##method params                                                                         \
    {                                                                                                             \
        static atomic_flag reported = ATOMIC_FLAG_INIT;                                                           \
        (void)0, __VA_ARGS__;                                                                                     \
        if (self->type == D3D12_COMMAND_LIST_TYPE_BUNDLE && atomic_load(&self->open))                             \
            d12__bundle_refuse(self, #method);                                                                    \
        else if (self->type != D3D12_COMMAND_LIST_TYPE_BUNDLE && !atomic_flag_test_and_set(&reported))            \
            d12_command_list_not_implemented(self, "ID3D12GraphicsCommandList", #method);                         \
    }

REFUSED_IN_BUNDLES(ClearState, (struct d12_command_list *self, ID3D12PipelineState *pPipelineState),
                   (void)pPipelineState)
REFUSED_IN_BUNDLES(ClearDepthStencilView,
                   (struct d12_command_list *self, D3D12_CPU_DESCRIPTOR_HANDLE DepthStencilView,
                    D3D12_CLEAR_FLAGS ClearFlags, FLOAT Depth, UINT8 Stencil, UINT NumRects, const D3D12_RECT *pRects),
                   (void)DepthStencilView, (void)ClearFlags, (void)Depth, (void)Stencil, (void)NumRects, (void)pRects)
REFUSED_IN_BUNDLES(ClearRenderTargetView,
                   (struct d12_command_list *self, D3D12_CPU_DESCRIPTOR_HANDLE RenderTargetView,
                    const FLOAT ColorRGBA[4], UINT NumRects, const D3D12_RECT *pRects),
                   (void)RenderTargetView, (void)ColorRGBA, (void)NumRects, (void)pRects)
REFUSED_IN_BUNDLES(CopyTextureRegion,
                   (struct d12_command_list *self, const D3D12_TEXTURE_COPY_LOCATION *pDst, UINT DstX, UINT DstY,
                    UINT DstZ, const D3D12_TEXTURE_COPY_LOCATION *pSrc, const D3D12_BOX *pSrcBox),
                   (void)pDst, (void)DstX, (void)DstY, (void)DstZ, (void)pSrc, (void)pSrcBox)
REFUSED_IN_BUNDLES(CopyTiles,
                   (struct d12_command_list *self, ID3D12Resource *pTiledResource,
                    const D3D12_TILED_RESOURCE_COORDINATE *pTileRegionStartCoordinate,
                    const D3D12_TILE_REGION_SIZE *pTileRegionSize, ID3D12Resource *pBuffer,
                    UINT64 BufferStartOffsetInBytes, D3D12_TILE_COPY_FLAGS Flags),
                   (void)pTiledResource, (void)pTileRegionStartCoordinate, (void)pTileRegionSize, (void)pBuffer,
                   (void)BufferStartOffsetInBytes, (void)Flags)
REFUSED_IN_BUNDLES(DiscardResource,
                   (struct d12_command_list *self, ID3D12Resource *pResource, const D3D12_DISCARD_REGION *pRegion),
                   (void)pResource, (void)pRegion)
REFUSED_IN_BUNDLES(ResolveSubresource,
                   (struct d12_command_list *self, ID3D12Resource *pDstResource, UINT DstSubresource,
                    ID3D12Resource *pSrcResource, UINT SrcSubresource, DXGI_FORMAT Format),
                   (void)pDstResource, (void)DstSubresource, (void)pSrcResource, (void)SrcSubresource, (void)Format)
REFUSED_IN_BUNDLES(SetPredication,
                   (struct d12_command_list *self, ID3D12Resource *pBuffer, UINT64 AlignedBufferOffset,
                    D3D12_PREDICATION_OP Operation),
                   (void)pBuffer, (void)AlignedBufferOffset, (void)Operation)
REFUSED_IN_BUNDLES(BeginQuery,
                   (struct d12_command_list *self, ID3D12QueryHeap *pQueryHeap, D3D12_QUERY_TYPE Type, UINT Index),
                   (void)pQueryHeap, (void)Type, (void)Index)
REFUSED_IN_BUNDLES(EndQuery,
                   (struct d12_command_list *self, ID3D12QueryHeap *pQueryHeap, D3D12_QUERY_TYPE Type, UINT Index),
                   (void)pQueryHeap, (void)Type, (void)Index)
REFUSED_IN_BUNDLES(ResolveQueryData,
                   (struct d12_command_list *self, ID3D12QueryHeap *pQueryHeap, D3D12_QUERY_TYPE Type,
                    UINT StartIndex, UINT NumQueries, ID3D12Resource *pDestinationBuffer,
                    UINT64 AlignedDestinationBufferOffset),
                   (void)pQueryHeap, (void)Type, (void)StartIndex, (void)NumQueries, (void)pDestinationBuffer,
                   (void)AlignedDestinationBufferOffset)
REFUSED_IN_BUNDLES(SOSetTargets,
                   (struct d12_command_list *self, UINT StartSlot, UINT NumViews,
                    const D3D12_STREAM_OUTPUT_BUFFER_VIEW *pViews),
                   (void)StartSlot, (void)NumViews, (void)pViews)
REFUSED_IN_BUNDLES(OMSetRenderTargets,
                   (struct d12_command_list *self, UINT NumRenderTargetDescriptors,
                    const D3D12_CPU_DESCRIPTOR_HANDLE *pRenderTargetDescriptors, BOOL RTsSingleHandleToDescriptorRange,
                    const D3D12_CPU_DESCRIPTOR_HANDLE *pDepthStencilDescriptor),
                   (void)NumRenderTargetDescriptors, (void)pRenderTargetDescriptors,
                   (void)RTsSingleHandleToDescriptorRange, (void)pDepthStencilDescriptor)
REFUSED_IN_BUNDLES(RSSetViewports,
                   (struct d12_command_list *self, UINT NumViewports, const D3D12_VIEWPORT *pViewports),
                   (void)NumViewports, (void)pViewports)
REFUSED_IN_BUNDLES(RSSetScissorRects, (struct d12_command_list *self, UINT NumRects, const D3D12_RECT *pRects),
                   (void)NumRects, (void)pRects)
#undef REFUSED_IN_BUNDLES
