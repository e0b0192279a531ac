/* The report's nodes (runtime/dred/report.c builds the rest): one per command list whose submission was outstanding
 * at removal, its ops with their depth and context, the op the fault is attributed to (exact: the driver named it;
 * suspect: the first outstanding one) with the state it saw, and the driver's correlated messages attached to the op
 * they name. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "d12dred_report.h"
#include "device.h"
#include "dred_internal.h"
#include "list.h"
#include "queue.h"

static const d12_dred_context *find_context(const d12_dred_list *l, UINT index)
{
    UINT lo = 0, hi = l->context_count; /* sorted by index (record order) */
    while (lo < hi) {
        UINT mid = lo + (hi - lo) / 2;
        if (l->contexts[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->context_count && l->contexts[lo].index == index ? &l->contexts[lo] : NULL;
}

/* The op's arguments as text, a draw's count checked against what the views bound at it hold (an index is 2 bytes
 * for DXGI_FORMAT_R16_UINT (57), else 4). */
static void set_arguments(const d12_dred_list *l, UINT index, const d12_dred_bundle_work *bw, UINT op,
                          const d12_dred_state_change *const vb[32], const d12_dred_state_change *ib,
                          d12dred_op_state *state)
{
    d12_dred_capacity capacity = {UINT64_MAX, 0, UINT64_MAX};
    for (unsigned s = 0; s < 32; s++) {
        if (vb[s] && vb[s]->address && vb[s]->stride && vb[s]->size / vb[s]->stride < capacity.vertices) {
            capacity.vertices = vb[s]->size / vb[s]->stride;
            capacity.vertex_slot = s;
        }
    }
    if (ib && ib->address)
        capacity.indices = ib->size / (ib->stride == 57 ? 2u : 4u);
    char *arguments = bw ? d12__dred_args_text(bw->kind, &bw->args, &capacity)
                         : d12__dred_work_arguments_text(l, index, op, &capacity);
    if (arguments)
        d12dred_op_state_set_arguments(state, arguments);
    free(arguments);
}

/* The op's arguments (draws, dispatches, CopyBufferRegion), and the views and root descriptors current at op
 * `index` (the state log replayed up to it), each VA resolved against the ledger (report_sites.c): the name right
 * after the address, where in the buffer it lies, and what the access does past its end. */
static void fill_op_state(struct d12_dred *dred, const d12_dred_list *l, UINT index, const d12_dred_bundle_work *bw,
                          d12dred_op *op)
{
    d12dred_op_state *state = d12dred_op_get_state(op);
    if (state == NULL)
        return;
    uint64_t recorded = atomic_load_explicit(&l->closed_seq, memory_order_relaxed);
    const d12_dred_state_change *vb[32] = {0}, *ib = NULL, *root[6][64] = {{0}}, *copy[2] = {NULL, NULL};
    for (UINT i = 0; i < l->change_count && l->changes[i].op <= index; i++) {
        const d12_dred_state_change *c = &l->changes[i];
        if (bw && c->op == index && c->step > bw->position + 1)
            break; /* set in the bundle after this draw: not what it saw (the log is in record order) */
        if (c->kind == D12_DRED_STATE_VERTEX_BUFFER && c->slot < 32)
            vb[c->slot] = c;
        else if (c->kind == D12_DRED_STATE_INDEX_BUFFER)
            ib = c;
        else if (c->kind == D12_DRED_STATE_ROOT_DESCRIPTOR && c->which < 6 && c->slot < 64)
            root[c->which][c->slot] = c;
        else if (c->kind == D12_DRED_STATE_COPY && c->op == index && c->which < 2)
            copy[c->which] = c; /* this op's own sides only */
    }
    set_arguments(l, index, bw, op->op, vb, ib, state);
    char *name;
    for (unsigned s = 0; s < 32; s++) {
        if (vb[s] && vb[s]->address) {
            d12dred_va_site site = {0};
            d12__dred_resolve_site(dred, recorded, vb[s]->address, vb[s]->size, false, &name, &site);
            if (d12dred_op_state_add_vertex_buffer(state, s, vb[s]->address, vb[s]->size, vb[s]->stride, name) == 0)
                state->vertex_buffers[state->vertex_buffer_count - 1].site = site;
            else
                d12__dred_free_va_site(&site);
            free(name);
        }
    }
    if (ib && ib->address) {
        d12dred_va_site site = {0};
        d12__dred_resolve_site(dred, recorded, ib->address, ib->size, false, &name, &site);
        if (d12dred_op_state_set_index_buffer(state, ib->address, ib->size, ib->stride, name) == 0) {
            d12__dred_free_va_site(&state->index_buffer.site);
            state->index_buffer.site = site;
        } else {
            d12__dred_free_va_site(&site);
        }
        free(name);
    }
    /* A draw uses the graphics root arguments, a dispatch the compute ones. A CBV reads 256 bytes, an SRV or UAV 4
     * (the reference driver's access model, docs/dred-gpu.md); a UAV is written through. */
    bool compute = op->op == D3D12_AUTO_BREADCRUMB_OP_DISPATCH;
    for (unsigned which = compute ? 3 : 0; which < (compute ? 6u : 3u); which++) {
        for (unsigned p = 0; p < 64; p++) {
            const d12_dred_state_change *c = root[which][p];
            if (!c)
                continue;
            d12dred_root_kind kind = (d12dred_root_kind)(which % 3);
            d12dred_va_site site = {0};
            d12__dred_resolve_site(dred, recorded, c->address, kind == D12DRED_ROOT_CBV ? 256 : 4,
                                   kind == D12DRED_ROOT_UAV, &name, &site);
            if (d12dred_op_state_add_root_descriptor(state, p, kind, c->address, name) == 0)
                state->root_descriptors[state->root_descriptor_count - 1].site = site;
            else
                d12__dred_free_va_site(&site);
            free(name);
        }
    }
    if (op->op == D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION && copy[0] && copy[1]) {
        d12dred_va_site sites[2] = {{0}, {0}};
        char *names[2];
        for (int k = 0; k < 2; k++)
            d12__dred_resolve_site(dred, recorded, copy[k]->address, copy[k]->size, k == 0, &names[k], &sites[k]);
        /* each side as its buffer (start) and the offset into it; unresolved: the VA itself */
        UINT64 base[2], offset[2];
        for (int k = 0; k < 2; k++) {
            offset[k] = sites[k].has_offset ? sites[k].offset : 0;
            base[k] = copy[k]->address - offset[k];
        }
        if (d12dred_op_state_set_copy(state, copy[0]->size, base[1], offset[1], names[1], base[0], offset[0],
                                      names[0]) == 0) {
            state->copy_dst.site.note = sites[0].note;
            state->copy_src.site.note = sites[1].note;
        } else {
            free(sites[0].note);
            free(sites[1].note);
        }
        free(names[0]);
        free(names[1]);
    }
}

/* ---- Bundles (issue 32 item 1) ---- */

/* An attributed EXECUTEBUNDLE op and its bundle's draws, each with the state it saw, built at the freeze (the list may
 * be re-recorded after it): the op shows one, and a driver message of the removal flush that names another (stage 2,
 * d12__dred_report_attach_message) puts that one in its place. */
typedef struct bundle_draw {
    UINT kind, ordinal, position;
    d12dred_op_state *state; /* while it is not the op's */
} bundle_draw;
struct d12_dred_bundle_pick {
    struct d12_dred_bundle_pick *next;
    size_t node;
    UINT index;     /* the EXECUTEBUNDLE op */
    UINT64 identity;
    char *name;
    bundle_draw *draws;
    UINT count, shown;
};

/* Show draw `k` under the op: its state becomes the op's, the one shown before goes back to its draw. */
static void show_bundle_draw(struct d12_dred_bundle_pick *pick, d12dred_op *op, UINT k, bool named)
{
    if (k != pick->shown) {
        d12dred_op_state *previous = op->state;
        op->state = pick->draws[k].state;
        pick->draws[k].state = NULL;
        if (pick->shown < pick->count)
            pick->draws[pick->shown].state = previous;
        else
            d12dred_op_state_free(previous); /* the first draw shown: the op had no state yet */
        pick->shown = k;
    }
    d12dred_op_set_bundle_draw(op, pick->name, pick->draws[k].position, pick->draws[k].kind, named);
}

/* The bundle executed at op `index`: every draw's state, and the one the report shows -- the driver named the op
 * (`exact`: the bundle's last command before the counter write after it, i.e. its last draw; d3d12ddi.h's OpIndex
 * rule), else the first (suspect: the EXECUTEBUNDLE is the first outstanding op, so all its draws were). A bundle
 * without draws, or one whose record ran out of memory, shows the op's state as any op. */
static void fill_bundle(struct d12_dred *dred, const d12_dred_list *l, UINT index, bool exact, d12dred_op *op,
                        size_t node, struct d12_dred_bundle_pick **picks)
{
    UINT first, count;
    const d12_dred_bundle_run *run = d12__dred_bundle_at(l, index, &first, &count);
    struct d12_dred_bundle_pick *pick = run && count ? calloc(1, sizeof *pick) : NULL;
    bundle_draw *draws = pick ? calloc(count, sizeof *draws) : NULL;
    if (draws == NULL) {
        free(pick);
        fill_op_state(dred, l, index, NULL, op);
        return;
    }
    *pick = (struct d12_dred_bundle_pick){*picks, node, index, run->identity, run->name ? strdup(run->name) : NULL,
                                          draws, count, count};
    *picks = pick;
    for (UINT k = 0; k < count; k++) {
        const d12_dred_bundle_work *w = &l->bundle_works[first + k];
        d12dred_op draw = {.index = index, .op = w->kind};
        fill_op_state(dred, l, index, w, &draw);
        draws[k] = (bundle_draw){w->kind, w->ordinal, w->position, draw.state};
    }
    show_bundle_draw(pick, op, exact ? count - 1 : 0, exact);
}

void d12__dred_bundle_picks_free(struct d12_dred_bundle_pick *picks)
{
    while (picks) {
        struct d12_dred_bundle_pick *next = picks->next;
        for (UINT k = 0; k < picks->count; k++)
            d12dred_op_state_free(picks->draws[k].state);
        free(picks->draws);
        free(picks->name);
        free(picks);
        picks = next;
    }
}

static void fill_node(struct d12_dred *dred, d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *n,
                      uint64_t submission, UINT32 attributed, d12dred_attribution attribution,
                      struct d12_dred_bundle_pick **picks)
{
    struct d12_command_list *list = (struct d12_command_list *)((char *)n->pCommandList -
                                                               offsetof(struct d12_command_list, com.list));
    const d12_dred_list *l = list->dred;
    bool out_of_memory;
    char *list_name = d12__object_name_dup(&list->device_child.object, &out_of_memory);
    struct d12_command_queue *queue = (struct d12_command_queue *)((char *)n->pCommandQueue -
                                                                  offsetof(struct d12_command_queue, com.queue));
    char *queue_name = d12__object_name_dup(&queue->device_child.object, &out_of_memory);
    d12dred_node *node = d12dred_report_add_node(r, list_name, queue_name, submission, n->BreadcrumbCount,
                                                 *n->pLastBreadcrumbValue);
    free(list_name);
    free(queue_name);
    if (node == NULL)
        return;
    UINT kept = n->BreadcrumbCount < D12_DRED_RING_SLOTS ? n->BreadcrumbCount : D12_DRED_RING_SLOTS;
    UINT first = n->BreadcrumbCount - kept;
    d12dred_node_reserve_ops(node, kept);
    uint32_t depth = 0;
    for (UINT i = first; i < n->BreadcrumbCount; i++) {
        UINT op_value = (UINT)n->pCommandHistory[i % D12_DRED_RING_SLOTS];
        if (op_value == D3D12_AUTO_BREADCRUMB_OP_ENDEVENT && depth > 0)
            depth--;
        const d12_dred_context *c = find_context(l, i);
        char *text = c ? d12dred_utf8_from_wide(c->text) : NULL;
        d12dred_op *op = d12dred_node_add_op(node, i, op_value, depth, text);
        free(text);
        if (op_value == D3D12_AUTO_BREADCRUMB_OP_BEGINEVENT)
            depth++;
        if (op && i == attributed && attribution != D12DRED_ATTRIBUTION_NONE) {
            d12dred_op_set_attribution(op, attribution);
            if (op_value == D3D12_AUTO_BREADCRUMB_OP_EXECUTEBUNDLE)
                fill_bundle(dred, l, i, attribution == D12DRED_ATTRIBUTION_EXACT, op, r->node_count - 1, picks);
            else
                fill_op_state(dred, l, i, NULL, op);
        }
    }
    /* Issue 19 item 1: the node's status from what the GPU reported, not from the counts alone. */
    UINT32 completed = *n->pLastBreadcrumbValue;
    bool named = attribution == D12DRED_ATTRIBUTION_EXACT;
    bool begun = atomic_load_explicit(&queue->tdr.began_ns, memory_order_acquire) != 0 &&
                 atomic_load_explicit(&queue->tdr.list, memory_order_relaxed) == (void *)list;
    d12dred_node_set_status(node, named || (completed < n->BreadcrumbCount && (completed > 0 || begun))
                                      ? D12DRED_SUBMISSION_IN_PROGRESS
                                  : n->BreadcrumbCount > 0 && completed >= n->BreadcrumbCount
                                      ? D12DRED_SUBMISSION_COMPLETED
                                      : D12DRED_SUBMISSION_NOT_STARTED);
    d12dred_node_fill_event_stacks(node); /* item 2 */
}

/* The submission serial a node's list belongs to (its first outstanding one, as the node was built from). */
static uint64_t submission_of(struct d12_dred *dred, const D3D12_AUTO_BREADCRUMB_NODE1 *n)
{
    uint64_t serial = 0;
    pthread_mutex_lock(&dred->track_lock);
    for (d12_dred_submission *s = dred->submissions; s && !serial; s = s->next) {
        if (s->serial != 0 && atomic_load(&s->queue->completed) >= s->serial)
            continue; /* known complete: not the one the node shows */
        for (UINT i = 0; i < s->count; i++)
            if (n->pCommandList == (const ID3D12GraphicsCommandList *)&s->lists[i]->com.list)
                serial = s->serial;
    }
    pthread_mutex_unlock(&dred->track_lock);
    return serial;
}

void d12__dred_report_fill_nodes(struct d12_device *device, d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *head,
                                 struct d12_dred_bundle_pick **picks)
{
    struct d12_dred *dred = device->dred;
    const d12_fault_info *fault = &dred->fault;
    /* exact: the driver named the op; else suspect: the first outstanding op of the first node that did not finish,
     * on the faulting queue when it is known (Windows' completed count is beside it in the node). */
    const D3D12_AUTO_BREADCRUMB_NODE1 *suspect = NULL;
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = head; n && !suspect; n = n->pNext) {
        bool queue_ok = fault->queue == NULL ||
                        n->pCommandQueue == (const ID3D12CommandQueue *)&fault->queue->com.queue;
        if (queue_ok && *n->pLastBreadcrumbValue < n->BreadcrumbCount)
            suspect = n;
    }
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = head; n; n = n->pNext) {
        bool exact = fault->list && fault->op_index != D12_DRED_OP_INDEX_UNKNOWN &&
                     n->pCommandList == (const ID3D12GraphicsCommandList *)&fault->list->com.list;
        bool gpu_fault = fault->state != D3D12_DRED_DEVICE_STATE_UNKNOWN;
        d12dred_attribution a = exact ? D12DRED_ATTRIBUTION_EXACT
                                : (n == suspect && gpu_fault && !(fault->list && fault->op_index != D12_DRED_OP_INDEX_UNKNOWN))
                                    ? D12DRED_ATTRIBUTION_SUSPECT : D12DRED_ATTRIBUTION_NONE;
        UINT32 index = exact ? fault->op_index : *n->pLastBreadcrumbValue;
        fill_node(dred, r, n, submission_of(dred, n), index, a, picks);
    }
}

/* "[Kind #N]" of a correlated message: the kind's op and the ordinal (0-based among that kind's calls in the
 * recording, as the correlation counts them: "[Draw #0]" is the recording's first draw). */
static bool parse_correlation(const char *text, UINT *op, uint32_t *ordinal)
{
    static const struct {
        const char *kind;
        UINT op;
    } kinds[] = {{"[DrawIndexed #", D3D12_AUTO_BREADCRUMB_OP_DRAWINDEXEDINSTANCED},
                 {"[Draw #", D3D12_AUTO_BREADCRUMB_OP_DRAWINSTANCED},
                 {"[Dispatch #", D3D12_AUTO_BREADCRUMB_OP_DISPATCH},
                 {"[CopyBufferRegion #", D3D12_AUTO_BREADCRUMB_OP_COPYBUFFERREGION},
                 {"[CopyResource #", D3D12_AUTO_BREADCRUMB_OP_COPYRESOURCE}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *at = strstr(text, kinds[k].kind);
        if (at) {
            *op = kinds[k].op;
            *ordinal = (uint32_t)strtoul(at + strlen(kinds[k].kind), NULL, 10);
            return true;
        }
    }
    return false;
}

/* A message about a draw of an attributed bundle ("0x<bundle>:'Name' [Draw #n] ..."): the driver's finding about the
 * draw that faulted (CORRUPTION, the severity of the finding a driver reports before its fault callback) puts that
 * draw under the op, exactly; a message about the draw shown joins the op's messages. True when it was the bundle's. */
static bool attach_bundle_message(d12dred_report *r, struct d12_dred_bundle_pick *picks, const D3D12_MESSAGE *m,
                                  UINT kind, uint32_t ordinal)
{
    for (struct d12_dred_bundle_pick *pick = picks; pick; pick = pick->next) {
        char identity[32];
        int length = snprintf(identity, sizeof identity, "0x%016llX:", (unsigned long long)pick->identity);
        if (strncasecmp(m->pDescription, identity, (size_t)length) != 0 || pick->node >= r->node_count)
            continue;
        d12dred_op *op = d12dred_node_find_op(r->nodes[pick->node], pick->index);
        for (UINT k = 0; op && k < pick->count; k++) {
            if (pick->draws[k].kind != kind || pick->draws[k].ordinal != ordinal)
                continue;
            if (m->Severity == D3D12_MESSAGE_SEVERITY_CORRUPTION && !(op->bundle_draw && op->bundle_draw->named &&
                                                                      k == pick->shown)) {
                show_bundle_draw(pick, op, k, true);
                d12dred_op_set_attribution(op, D12DRED_ATTRIBUTION_EXACT);
            }
            if (k == pick->shown)
                d12dred_op_add_message(op, (uint32_t)m->ID, (uint32_t)m->Category, (uint32_t)m->Severity,
                                       m->pDescription);
            return true;
        }
    }
    return false;
}

/* Attach a correlated message to the op it names: the node whose list's identity ("0x<pointer>") starts the
 * message, the ordinal-th op of that kind in its recording; or a bundle's draw (attach_bundle_message). */
void d12__dred_report_attach_message(d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *head,
                                     struct d12_dred_bundle_pick *picks, const D3D12_MESSAGE *m)
{
    UINT op_value;
    uint32_t ordinal;
    if (!parse_correlation(m->pDescription, &op_value, &ordinal) ||
        attach_bundle_message(r, picks, m, op_value, ordinal))
        return;
    size_t i = 0;
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = head; n && i < r->node_count; n = n->pNext, i++) {
        char identity[32];
        snprintf(identity, sizeof identity, "0x%016llX", (unsigned long long)(uintptr_t)n->pCommandList);
        if (strncasecmp(m->pDescription, identity, strlen(identity)) != 0)
            continue;
        d12dred_node *node = r->nodes[i];
        if (node->op_count && node->ops[0].index != 0)
            return; /* the ring wrapped: the ordinal counts ops that are no longer kept */
        uint32_t seen = 0;
        for (size_t k = 0; k < node->op_count; k++) {
            if (node->ops[k].op == op_value && seen++ == ordinal) {
                d12dred_op_add_message(&node->ops[k], (uint32_t)m->ID, (uint32_t)m->Category, (uint32_t)m->Severity,
                                       m->pDescription);
                return;
            }
        }
    }
}
