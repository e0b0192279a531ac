/* The pipelines table and the binding table of the Vulkan driver (vkdrv_compute.h; /work contract compute-ddi):
 * a pipeline state is a vkdrv_pipeline.c pipeline; the list keeps its compute binding state and snapshots it into the
 * recording's compute log at each dispatch with a pipeline state; such dispatches, buffer UAV clears and the barriers
 * between them form compute segments that vkdrv_bind.c resolves and records at execution. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv_compute.h"
#include "vkdrv_list.h"

/* ---- The pipelines table ---- */

static SIZE_T APIENTRY calc_pso_size(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATE_COMPUTE_PIPELINE_STATE_D12RT *args)
{
    (void)device;
    (void)args;
    return sizeof(d12__vkdrv_pso);
}

/* The shader compiled over a layout of the pipeline's own (vkdrv_pipeline.c). E_INVALIDARG when it cannot be (the
 * reason on stderr, in D3D12 terms, where the compiler's lines go: the runtime's message says the driver could not
 * compile it), E_OUTOFMEMORY. */
static HRESULT APIENTRY create_pso(D3D12DDI_HDEVICE handle, const D3D12DDIARG_CREATE_COMPUTE_PIPELINE_STATE_D12RT *args,
                                   D3D12DDI_HPIPELINESTATE hpso)
{
    d12__vkdrv_device *device = handle.pDrvPrivate;
    d12__vkdrv_pso *pso = hpso.pDrvPrivate;
    const d12__vkdrv_root_signature *signature = args ? args->hRootSignature.pDrvPrivate : NULL;
    memset(pso, 0, sizeof *pso);
    if (!args || !signature || !args->pShaderBytecode)
        return E_INVALIDARG;
    char why[1024] = "";
    d12_dxbc dxbc;
    d12_dxbc_program program;
    if (d12_dxbc_parse(args->pShaderBytecode, args->BytecodeLength, &dxbc, why, sizeof why) != 0 ||
        d12_dxbc_program_parse(&dxbc, &program, why, sizeof why) != 0) {
        fprintf(stderr, "d12rt Vulkan driver: CreateComputePipelineState: %s\n", why);
        return E_INVALIDARG;
    }
    const D3D12_ROOT_SIGNATURE_DESC1 *desc = &signature->desc->Desc_1_1;
    uint32_t offsets[D12_VKDRV_MAX_ROOT_PARAMETERS];
    for (UINT i = 0; i < desc->NumParameters && i < D12_VKDRV_MAX_ROOT_PARAMETERS; i++)
        offsets[i] = signature->parameters[i].kind == D12_VKDRV_ROOT_PUSH_CONSTANTS ? signature->parameters[i].offset
                                                                                   : UINT32_MAX;
    d12__vkdrv_pipeline_root root = {desc, offsets, signature->push_constant_bytes};
    VkResult result = d12__vkdrv_pipeline_create(device->vk, args->pShaderBytecode, args->BytecodeLength, &program,
                                                 &root, &pso->pipeline, why, sizeof why);
    pso->estimate_threads = program.thread_group[0] * program.thread_group[1] * program.thread_group[2];
    d12_dxbc_program_free(&program);
    if (result == VK_SUCCESS)
        return S_OK;
    fprintf(stderr, "d12rt Vulkan driver: CreateComputePipelineState: %s\n", why);
    return result == VK_ERROR_OUT_OF_HOST_MEMORY || result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? E_OUTOFMEMORY
                                                                                             : E_INVALIDARG;
}

static VOID APIENTRY destroy_pso(D3D12DDI_HDEVICE handle, D3D12DDI_HPIPELINESTATE hpso)
{
    d12__vkdrv_device *device = handle.pDrvPrivate;
    d12__vkdrv_pso *pso = hpso.pDrvPrivate;
    if (!d12__vkdrv_abandoned(device))
        d12__vkdrv_pipeline_destroy(device->vk, &pso->pipeline);
}

const D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT d12__vkdrv_pipeline_funcs = {
    .pfnCalcPrivateComputePipelineStateSize = calc_pso_size,
    .pfnCreateComputePipelineState = create_pso,
    .pfnDestroyPipelineState = destroy_pso,
};

/* ---- The list's binding state ---- */

static d12__vkdrv_cs_list *cs_of(d12__vkdrv_command_list *list)
{
    if (!list->cs && !(list->cs = calloc(1, sizeof *list->cs)))
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
    return list->cs;
}

static d12__vkdrv_cs_log *log_of(d12__vkdrv_command_list *list)
{
    d12__vkdrv_recording *recording = list->recording;
    if (recording && !recording->cs && !(recording->cs = calloc(1, sizeof *recording->cs)))
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
    return recording ? recording->cs : NULL;
}

void d12__vkdrv_cs_reset(d12__vkdrv_command_list *list)
{
    if (list->cs)
        *list->cs = (d12__vkdrv_cs_list){.dirty = true};
}

void d12__vkdrv_cs_free(d12__vkdrv_command_list *list)
{
    free(list->cs);
    list->cs = NULL;
}

void d12__vkdrv_cs_log_free(d12__vkdrv_cs_log *log)
{
    if (!log)
        return;
    free(log->states);
    free(log->entries);
    free(log->segments);
    free(log);
}

bool d12__vkdrv_cs_segment(const d12__vkdrv_recording *recording, size_t segment)
{
    const d12__vkdrv_cs_log *log = recording->cs;
    return log && segment < log->segment_capacity && log->segments[segment];
}

void d12__vkdrv_cs_leave(d12__vkdrv_command_list *list)
{
    d12__vkdrv_cs_list *cs = list->cs;
    if (!cs || !cs->segment)
        return;
    cs->segment = false; /* first: end_segment appends nothing, but keep the hook from coming back */
    d12__vkdrv_end_segment(list);
}

/* Whether the current segment holds only bindings and no command buffer (then it can be a compute segment). */
static bool segment_bindings_only(const d12__vkdrv_command_list *list)
{
    const d12__vkdrv_recording *recording = list->recording;
    if (d12__vkdrv_current(list))
        return false;
    for (size_t i = recording->op_count; i > 0 && recording->ops[i - 1].segment == recording->cb_count - 1; i--)
        if (!d12__drv_is_binding(recording->ops[i - 1].type))
            return false;
    return true;
}

/* The current segment becomes (or stays) a compute segment. false: the list is closed or out of memory. */
static bool enter(d12__vkdrv_command_list *list, d12__vkdrv_cs_list *cs, d12__vkdrv_cs_log *log)
{
    if (!list->recording || list->closed)
        return false;
    if (!cs->segment) {
        if (!segment_bindings_only(list))
            d12__vkdrv_end_segment(list);
        if (list->closed)
            return false;
        cs->segment = true;
    }
    size_t segment = list->recording->cb_count - 1;
    if (segment >= log->segment_capacity) {
        size_t next = log->segment_capacity ? log->segment_capacity * 2 : 64;
        while (next <= segment)
            next *= 2;
        uint8_t *grown = realloc(log->segments, next);
        if (!grown) {
            d12__vkdrv_list_error(list, E_OUTOFMEMORY);
            return false;
        }
        memset(grown + log->segment_capacity, 0, next - log->segment_capacity);
        log->segments = grown;
        log->segment_capacity = next;
    }
    log->segments[segment] = 1;
    return true;
}

/* An op of the compute segment and its entry (the op's `cs` names it). NULL: closed, in error or out of memory. */
static d12__vkdrv_cs_entry *append_entry(d12__vkdrv_command_list *list, d12__vkdrv_op_type type, d12__vkdrv_cs_kind kind)
{
    d12__vkdrv_cs_list *cs = cs_of(list);
    d12__vkdrv_cs_log *log = cs ? log_of(list) : NULL;
    if (!log || !enter(list, cs, log))
        return NULL;
    if (!d12__vkdrv_grow((void **)&log->entries, &log->entry_capacity, log->entry_count, sizeof *log->entries)) {
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
        return NULL;
    }
    cs->segment = false; /* d12__vkdrv_append's hook must not end the segment for this op */
    d12__vkdrv_op *op = d12__vkdrv_append(list, type);
    cs->segment = true;
    if (!op)
        return NULL;
    op->cs = (UINT32)(++log->entry_count);
    d12__vkdrv_cs_entry *entry = &log->entries[log->entry_count - 1];
    memset(entry, 0, sizeof *entry);
    entry->kind = kind;
    return entry;
}

/* The state a dispatch runs with: the list's, with the root views as bound now; a snapshot only when it changed. */
static bool snapshot(d12__vkdrv_command_list *list, uint32_t *index)
{
    d12__vkdrv_cs_list *cs = list->cs;
    d12__vkdrv_cs_log *log = list->recording->cs;
    for (unsigned i = 0; i < D12_VKDRV_MAX_ROOT_PARAMETERS; i++) {
        UINT64 address = (list->bound.compute_mask >> i & 1) ? list->bound.compute[i].address : 0;
        if (cs->state.roots[i] != address) {
            cs->state.roots[i] = address;
            cs->dirty = true;
        }
    }
    if (!cs->dirty && log->state_count) {
        *index = (uint32_t)(log->state_count - 1);
        return true;
    }
    if (!d12__vkdrv_grow((void **)&log->states, &log->state_capacity, log->state_count, sizeof *log->states))
        return false;
    log->states[log->state_count] = cs->state;
    *index = (uint32_t)log->state_count++;
    cs->dirty = false;
    return true;
}

bool d12__vkdrv_cs_dispatch(d12__vkdrv_command_list *list, UINT x, UINT y, UINT z)
{
    d12__vkdrv_cs_list *cs = list->cs;
    if (!cs || !cs->state.pso)
        return false;
    d12__vkdrv_cs_entry *entry = append_entry(list, D12_VKDRV_OP_DISPATCH, D12_VKDRV_CS_DISPATCH);
    if (!entry)
        return true;
    d12__vkdrv_op *op = &list->recording->ops[list->recording->op_count - 1];
    d12__drv_draw_args(&op->u, x, y, z);
    if (!snapshot(list, &entry->state))
        d12__vkdrv_list_error(list, E_OUTOFMEMORY);
    return true;
}

bool d12__vkdrv_cs_barrier(d12__vkdrv_command_list *list, UINT count, const D3D12DDIARG_RESOURCE_BARRIER_0126 *barriers)
{
    if (!list->cs || !list->cs->segment || !count || !barriers)
        return false;
    d12__vkdrv_cs_entry *entry = append_entry(list, D12_VKDRV_OP_BARRIER, D12_VKDRV_CS_BARRIER);
    if (!entry)
        return true;
    list->recording->ops[list->recording->op_count - 1].u.draw.count = count;
    entry->uav_only = true;
    for (UINT i = 0; i < count; i++)
        entry->uav_only = entry->uav_only && barriers[i].Type == D3D12DDI_RESOURCE_BARRIER_TYPE_UAV;
    d12__vkdrv_copies_ordered(list);
    return true;
}

bool d12__vkdrv_cs_write(d12__vkdrv_command_list *list, const D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 *param,
                         D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode)
{
    if (!list->cs || !list->cs->segment)
        return false;
    if (append_entry(list, D12_VKDRV_OP_WRITE_IMMEDIATE, D12_VKDRV_CS_WRITE)) {
        d12__vkdrv_op *op = &list->recording->ops[list->recording->op_count - 1];
        op->compute = (uint8_t)mode;
        op->u.write.dest = param->Dest;
        op->u.write.value = param->Value;
    }
    return true;
}

static VOID APIENTRY set_pipeline_state(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HPIPELINESTATE pso)
{
    d12__vkdrv_cs_list *cs = cs_of(d12__vkdrv_list_of(handle));
    if (cs) {
        cs->state.pso = pso.pDrvPrivate;
        cs->dirty = true;
    }
}

/* D3D12: binding a different root signature clears the root arguments (tables and constants here; the root views
 * stay the drivers' shared bindings, as the check kernel reads them). */
static VOID APIENTRY set_compute_root_signature(D3D12DDI_HCOMMANDLIST handle, D3D12DDI_HROOTSIGNATURE signature)
{
    d12__vkdrv_cs_list *cs = cs_of(d12__vkdrv_list_of(handle));
    if (!cs || cs->state.signature == signature.pDrvPrivate)
        return;
    cs->state.signature = signature.pDrvPrivate;
    memset(cs->state.tables, 0, sizeof cs->state.tables);
    memset(cs->state.push, 0, sizeof cs->state.push);
    cs->dirty = true;
}

static VOID APIENTRY set_descriptor_heaps(D3D12DDI_HCOMMANDLIST handle, UINT count, const D3D12DDI_HDESCRIPTORHEAP *heaps)
{
    d12__vkdrv_cs_list *cs = cs_of(d12__vkdrv_list_of(handle));
    if (!cs)
        return;
    cs->state.heaps[0] = cs->state.heaps[1] = NULL;
    for (UINT i = 0; i < count && heaps; i++) {
        const d12__drv_descriptor_heap *heap = heaps[i].pDrvPrivate;
        if (heap && (UINT)heap->desc.Type <= D3D12DDI_DESCRIPTOR_HEAP_TYPE_SAMPLER)
            cs->state.heaps[heap->desc.Type] = heap;
    }
    cs->dirty = true;
}

static VOID APIENTRY set_compute_root_descriptor_table(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT64 base)
{
    d12__vkdrv_cs_list *cs = cs_of(d12__vkdrv_list_of(handle));
    if (cs && index < D12_VKDRV_MAX_ROOT_PARAMETERS) {
        cs->state.tables[index] = base;
        cs->dirty = true;
    }
}

static VOID APIENTRY set_compute_root_32bit_constants(D3D12DDI_HCOMMANDLIST handle, UINT index, UINT count,
                                                      const UINT *values, UINT offset)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    d12__vkdrv_cs_list *cs = cs_of(list);
    const d12__vkdrv_root_signature *signature = cs ? cs->state.signature : NULL;
    if (!signature || !values || index >= signature->desc->Desc_1_1.NumParameters)
        return;
    const d12__vkdrv_root_parameter *where = &signature->parameters[index];
    if (where->kind != D12_VKDRV_ROOT_PUSH_CONSTANTS) {
        /* past maxPushConstantsSize: a pipeline over such a root signature was refused at creation */
        return;
    }
    size_t at = (size_t)where->offset + (size_t)offset * 4, bytes = (size_t)count * 4;
    if (at > sizeof cs->state.push || bytes > sizeof cs->state.push - at)
        return;
    memcpy(cs->state.push + at, values, bytes);
    cs->dirty = true;
}

/* ---- ClearUnorderedAccessView{Uint,Float} on buffer UAVs ---- */

/* The channels of a typed UAV format: count, bits each, and how a float is converted ('f' float, 'u' uint, 's' sint,
 * 'n' unorm). false: not a format the driver views (vkdrv_descriptors.c's list). */
static bool channels_of(DXGI_FORMAT format, unsigned *count, unsigned *bits, char *type)
{
    static const struct { DXGI_FORMAT format; unsigned count, bits; char type; } k[] = {
        {DXGI_FORMAT_R32G32B32A32_FLOAT, 4, 32, 'f'}, {DXGI_FORMAT_R32G32B32A32_UINT, 4, 32, 'u'},
        {DXGI_FORMAT_R32G32B32A32_SINT, 4, 32, 's'}, {DXGI_FORMAT_R32G32_FLOAT, 2, 32, 'f'},
        {DXGI_FORMAT_R32G32_UINT, 2, 32, 'u'}, {DXGI_FORMAT_R32G32_SINT, 2, 32, 's'},
        {DXGI_FORMAT_R16G16B16A16_FLOAT, 4, 16, 'f'}, {DXGI_FORMAT_R16G16B16A16_UINT, 4, 16, 'u'},
        {DXGI_FORMAT_R16G16B16A16_SINT, 4, 16, 's'}, {DXGI_FORMAT_R32_FLOAT, 1, 32, 'f'},
        {DXGI_FORMAT_R32_UINT, 1, 32, 'u'}, {DXGI_FORMAT_R32_SINT, 1, 32, 's'},
        {DXGI_FORMAT_R8G8B8A8_UNORM, 4, 8, 'n'}, {DXGI_FORMAT_R8G8B8A8_UINT, 4, 8, 'u'},
        {DXGI_FORMAT_R8G8B8A8_SINT, 4, 8, 's'}, {DXGI_FORMAT_R16G16_FLOAT, 2, 16, 'f'},
        {DXGI_FORMAT_R16G16_UINT, 2, 16, 'u'}, {DXGI_FORMAT_R16G16_SINT, 2, 16, 's'},
        {DXGI_FORMAT_R16_FLOAT, 1, 16, 'f'}, {DXGI_FORMAT_R16_UINT, 1, 16, 'u'},
        {DXGI_FORMAT_R16_SINT, 1, 16, 's'}, {DXGI_FORMAT_R8_UNORM, 1, 8, 'n'},
        {DXGI_FORMAT_R8_UINT, 1, 8, 'u'}, {DXGI_FORMAT_R8_SINT, 1, 8, 's'},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].format == format) {
            *count = k[i].count;
            *bits = k[i].bits;
            *type = k[i].type;
            return true;
        }
    }
    return false;
}

/* IEEE half from float (round to nearest even; overflow to infinity, NaN kept). */
static uint16_t half_of(float value)
{
    uint32_t f;
    memcpy(&f, &value, sizeof f);
    uint32_t sign = (f >> 16) & 0x8000u, exponent = (f >> 23) & 0xFFu, mantissa = f & 0x7FFFFFu;
    if (exponent == 0xFF)
        return (uint16_t)(sign | 0x7C00u | (mantissa ? 0x200u : 0));
    int e = (int)exponent - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) { /* a subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mantissa |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13), rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
        half++; /* may carry into the exponent: still right (up to infinity) */
    return (uint16_t)(sign | half);
}

/* One element of `format` from the four values, as ClearUnorderedAccessViewUint (the low bits of each value, no
 * conversion) or ...Float (float formats converted, UNORM clamped and scaled) define it. false: Float on an integer
 * format (D3D12: "the operation is invalid and not performed"). */
static bool typed_pattern(DXGI_FORMAT format, const UINT *uints, const FLOAT *floats, d12__vkdrv_cs_clear *clear)
{
    unsigned count, bits;
    char type;
    if (!channels_of(format, &count, &bits, &type) || (floats && (type == 'u' || type == 's')))
        return false;
    clear->pattern_size = count * bits / 8;
    for (unsigned c = 0; c < count; c++) {
        uint32_t value;
        if (!floats)
            value = uints[c];
        else if (type == 'n')
            value = (uint32_t)lrintf(fminf(fmaxf(isnan(floats[c]) ? 0.0f : floats[c], 0.0f), 1.0f) *
                                     (float)((1u << bits) - 1));
        else if (bits == 16)
            value = half_of(floats[c]);
        else
            memcpy(&value, &floats[c], sizeof value);
        for (unsigned b = 0; b < bits / 8; b++)
            clear->pattern[c * bits / 8 + b] = (unsigned char)(value >> (8 * b)); /* little-endian */
    }
    return true;
}

/* A clear the driver does not perform, said (never silently). */
#define D12_VKDRV_MSG_CLEAR_NOT_PERFORMED 0x0D12000000000403ull

static void clear_uav(D3D12DDI_HCOMMANDLIST handle, SIZE_T cpu, const UINT *uints, const FLOAT *floats)
{
    d12__vkdrv_command_list *list = d12__vkdrv_list_of(handle);
    d12__vkdrv_view_desc view;
    d12__vkdrv_view_read(cpu, &view);
    d12__vkdrv_cs_clear clear = {.va = view.va, .size = view.range};
    const char *why = NULL;
    if (view.kind != D12_VKDRV_VIEW_UAV)
        why = "the CPU descriptor is no unordered access view";
    else if (view.format == VK_FORMAT_UNDEFINED) { /* raw or structured: Values[0] in every 32-bit word */
        memcpy(clear.pattern, floats ? (const void *)floats : (const void *)uints, 4);
        clear.pattern_size = 4;
    } else if (!typed_pattern(view.dxgi, uints, floats, &clear))
        why = "ClearUnorderedAccessViewFloat on an integer format is invalid and not performed";
    if (!why && ((clear.va | clear.size) & 3))
        why = "the view's range is not 4-byte aligned, which vkCmdFillBuffer and vkCmdUpdateBuffer need";
    if (why) {
        d12__vkdrv_report_now(list->device, D12_VKDRV_MSG_CLEAR_NOT_PERFORMED, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR,
                              D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, list->state_index,
                              "ClearUnorderedAccessView%s: not performed: %s.", floats ? "Float" : "Uint", why);
        return;
    }
    if (!clear.va || !clear.size)
        return; /* a null descriptor: nothing is written */
    d12__vkdrv_cs_entry *entry = append_entry(list, D12_VKDRV_OP_BARRIER, D12_VKDRV_CS_CLEAR);
    if (entry)
        entry->clear = clear;
}

static VOID APIENTRY clear_uav_uint(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu, D3D12DDI_HRESOURCE resource,
                                    const UINT values[4])
{
    (void)gpu;
    (void)resource; /* the runtime checked the view is this resource's */
    clear_uav(handle, cpu, values, NULL);
}

static VOID APIENTRY clear_uav_float(D3D12DDI_HCOMMANDLIST handle, UINT64 gpu, SIZE_T cpu,
                                     D3D12DDI_HRESOURCE resource, const FLOAT values[4])
{
    (void)gpu;
    (void)resource;
    clear_uav(handle, cpu, NULL, values);
}

const D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT d12__vkdrv_binding_funcs = {
    .pfnSetPipelineState = set_pipeline_state,
    .pfnSetComputeRootSignature = set_compute_root_signature,
    .pfnSetDescriptorHeaps = set_descriptor_heaps,
    .pfnSetComputeRootDescriptorTable = set_compute_root_descriptor_table,
    .pfnSetComputeRoot32BitConstants = set_compute_root_32bit_constants,
    .pfnClearUnorderedAccessViewUint = clear_uav_uint,
    .pfnClearUnorderedAccessViewFloat = clear_uav_float,
};
