/* The DRED output (ID3D12DeviceRemovedExtendedData, 1, 2): built once at d12__dred_freeze from the state at removal,
 * immutable afterwards, the same pointers on every call, freed at the device's last Release (docs/dred.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "device.h"
#include "dred_internal.h"
#include "heap.h"
#include "list.h"
#include "queue.h"
#include "resource.h"

/* Everything the output owns, freed in one go. */
typedef struct arena {
    void **blocks;
    size_t count, capacity;
    bool failed;
} arena;

static void *arena_keep(arena *a, void *block)
{
    if (block == NULL)
        return NULL;
    if (a->count == a->capacity) {
        size_t capacity = a->capacity ? a->capacity * 2 : 64;
        void **grown = realloc(a->blocks, capacity * sizeof *grown);
        if (grown == NULL) {
            free(block);
            a->failed = true;
            return NULL;
        }
        a->blocks = grown;
        a->capacity = capacity;
    }
    a->blocks[a->count++] = block;
    return block;
}

static void *arena_calloc(arena *a, size_t count, size_t size)
{
    return count ? arena_keep(a, calloc(count, size)) : NULL;
}

struct d12_dred_output {
    arena memory;
    D3D12_AUTO_BREADCRUMB_NODE1 *breadcrumbs;  /* head, NULL: none outstanding */
    UINT64 page_fault_va;
    D3D12_DRED_PAGE_FAULT_FLAGS page_fault_flags;
    D3D12_DRED_ALLOCATION_NODE1 *existing;     /* head, NULL: none */
    D3D12_DRED_ALLOCATION_NODE1 *freed;        /* head, NULL: none */
    struct d12_dred_report_state *report;      /* d12rt's own report (report.c), NULL without one */
};

/* pLastBreadcrumbValue of a node whose list has no GPU counter: "Never return NULL; point at a 0." */
static const UINT32 k_zero = 0;

/* ---- Auto-breadcrumb nodes ---- */

static bool submission_outstanding(const d12_dred_submission *s)
{
    /* "submitted and not known complete": the queue's completion mark does not cover it (serial 0: the driver was
     * being handed it when the device was removed) */
    return s->serial == 0 || atomic_load_explicit(&s->queue->completed, memory_order_acquire) < s->serial;
}

static bool already_listed(const D3D12_AUTO_BREADCRUMB_NODE1 *head, const struct d12_command_list *list)
{
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *node = head; node; node = node->pNext)
        if (node->pCommandList == (const ID3D12GraphicsCommandList *)&list->com.list)
            return true;
    return false;
}

static void keep_names(arena *a, d12_object_data *data, const char **name_a, const wchar_t **name_w)
{
    char *na;
    wchar_t *nw;
    d12__dred_object_names(data, &na, &nw);
    *name_a = arena_keep(a, na);
    *name_w = arena_keep(a, nw);
}

/* One node: the list's recording as it is — closed and untouched since it was submitted, unless `reset_since`: the
 * application reset the list after submitting it (legal in D3D12) and may be recording into it on another thread
 * right now, so nothing of the recording is read: the node names the list and queue, with no ops (BreadcrumbCount 0,
 * completed 0). A Reset waits for a freeze in progress (breadcrumbs.c), so a recording read here is not changing. */
static D3D12_AUTO_BREADCRUMB_NODE1 *build_node(arena *a, struct d12_command_queue *queue, struct d12_command_list *list,
                                               bool reset_since)
{
    D3D12_AUTO_BREADCRUMB_NODE1 *node = arena_calloc(a, 1, sizeof *node);
    d12_dred_list *dred = list->dred;
    if (node == NULL || dred == NULL)
        return NULL;
    keep_names(a, &list->device_child.object, &node->pCommandListDebugNameA, &node->pCommandListDebugNameW);
    keep_names(a, &queue->device_child.object, &node->pCommandQueueDebugNameA, &node->pCommandQueueDebugNameW);
    node->pCommandList = (ID3D12GraphicsCommandList *)&list->com.list;
    node->pCommandQueue = (ID3D12CommandQueue *)&queue->com.queue;
    if (reset_since) {
        node->pCommandHistory = arena_calloc(a, 1, sizeof *node->pCommandHistory);
        node->pLastBreadcrumbValue = &k_zero;
        return node;
    }
    node->BreadcrumbCount = dred->count;
    /* The ring as it is: op i in slot i % 65536. */
    UINT kept = dred->count < D12_DRED_RING_SLOTS ? dred->count : D12_DRED_RING_SLOTS;
    D3D12_AUTO_BREADCRUMB_OP *history = arena_calloc(a, kept ? kept : 1, sizeof *history);
    if (history && kept)
        memcpy(history, dred->ring, kept * sizeof *history);
    node->pCommandHistory = history;
    /* The completed count, copied now with acquire ordering: the frozen output does not move if a timeline writes
     * once more before it stops. */
    UINT32 *value = arena_calloc(a, 1, sizeof *value);
    if (value && dred->write_immediate)
        *value = __atomic_load_n(dred->counter.cpu, __ATOMIC_ACQUIRE);
    node->pLastBreadcrumbValue = value ? value : &k_zero;
    if (dred->context_count) {
        D3D12_DRED_BREADCRUMB_CONTEXT *contexts = arena_calloc(a, dred->context_count, sizeof *contexts);
        for (UINT i = 0; contexts && i < dred->context_count; i++) {
            size_t length = wcslen(dred->contexts[i].text);
            wchar_t *text = arena_calloc(a, length + 1, sizeof *text);
            if (text)
                memcpy(text, dred->contexts[i].text, length * sizeof *text);
            contexts[i] = (D3D12_DRED_BREADCRUMB_CONTEXT){dred->contexts[i].index, text ? text : (wchar_t *)L""};
        }
        node->BreadcrumbContextsCount = contexts ? dred->context_count : 0;
        node->pBreadcrumbContexts = contexts;
    }
    return node;
}

/* One node per outstanding list, queue by queue (in the order the queues first submitted), in submission order. */
static D3D12_AUTO_BREADCRUMB_NODE1 *build_breadcrumbs(struct d12_dred *dred, arena *a)
{
    D3D12_AUTO_BREADCRUMB_NODE1 *head = NULL, **tail = &head;
    pthread_mutex_lock(&dred->track_lock);
    for (d12_dred_submission *first = dred->submissions; first; first = first->next) {
        bool queue_seen = false;
        for (d12_dred_submission *earlier = dred->submissions; earlier != first; earlier = earlier->next)
            queue_seen = queue_seen || earlier->queue == first->queue;
        if (queue_seen)
            continue;
        for (d12_dred_submission *s = first; s; s = s->next) {
            if (s->queue != first->queue || !submission_outstanding(s))
                continue;
            for (UINT i = 0; i < s->count; i++) {
                if (already_listed(head, s->lists[i]))
                    continue; /* one node per list, at its first outstanding submission (docs/dred.md) */
                D3D12_AUTO_BREADCRUMB_NODE1 *node = build_node(a, s->queue, s->lists[i], d12__dred_reset_since(s, i));
                if (node) {
                    *tail = node;
                    tail = (D3D12_AUTO_BREADCRUMB_NODE1 **)&node->pNext;
                }
            }
        }
    }
    pthread_mutex_unlock(&dred->track_lock);
    return head;
}

/* ---- Page-fault nodes ---- */

static D3D12_DRED_ALLOCATION_NODE1 *allocation_node(arena *a, const void *object, char *name_a, wchar_t *name_w,
                                                    D3D12_DRED_ALLOCATION_TYPE type)
{
    D3D12_DRED_ALLOCATION_NODE1 *node = arena_calloc(a, 1, sizeof *node);
    if (node == NULL) {
        free(name_a);
        free(name_w);
        return NULL;
    }
    node->ObjectNameA = arena_keep(a, name_a);
    node->ObjectNameW = arena_keep(a, name_w);
    node->AllocationType = type; /* a committed buffer: RESOURCE, no separate heap node; a heap: HEAP (heaps.c) */
    node->pObject = object;
    return node;
}

static bool contains(UINT64 start, UINT64 size, UINT64 va)
{
    return va >= start && va - start < size;
}

static void build_page_fault(struct d12_dred *dred, arena *a, struct d12_dred_output *out)
{
    out->page_fault_va = dred->fault.state == D3D12_DRED_DEVICE_STATE_PAGEFAULT ? dred->fault.fault_va : 0;
    out->page_fault_flags = (D3D12_DRED_PAGE_FAULT_FLAGS)(out->page_fault_va ? dred->fault.fault_flags : 0);
    if (out->page_fault_va == 0)
        return; /* "page-fault output after a hang is S_OK with VA 0 and no nodes" */
    UINT64 va = out->page_fault_va;
    D3D12_DRED_ALLOCATION_NODE1 **existing = &out->existing, **freed = &out->freed;
    pthread_mutex_lock(&dred->ledger_lock);
    for (d12_dred_allocation *r = dred->live.next; r != &dred->live; r = r->next) {
        if (!contains(r->start, r->size, va))
            continue;
        char *na;
        wchar_t *nw;
        d12__dred_object_names(&r->resource->device_child.object, &na, &nw);
        D3D12_DRED_ALLOCATION_NODE1 *node =
            allocation_node(a, &r->resource->com.resource, na, nw, D3D12_DRED_ALLOCATION_TYPE_RESOURCE);
        if (node) {
            *existing = node;
            existing = (D3D12_DRED_ALLOCATION_NODE1 **)&node->pNext;
        }
    }
    /* The heaps holding the VA, after the resources placed in them (docs/heaps.md). */
    for (const d12_dred_heap *h = d12__dred_heap_holding(dred, NULL, va); h; h = d12__dred_heap_holding(dred, h, va)) {
        char *na;
        wchar_t *nw;
        d12__dred_object_names(&h->heap->device_child.object, &na, &nw);
        D3D12_DRED_ALLOCATION_NODE1 *node = allocation_node(a, &h->heap->com.heap, na, nw, D3D12_DRED_ALLOCATION_TYPE_HEAP);
        if (node) {
            *existing = node;
            existing = (D3D12_DRED_ALLOCATION_NODE1 **)&node->pNext;
        }
    }
    /* The most recent free first. */
    uint64_t kept = dred->freed_total < D12_DRED_FREED_RING ? dred->freed_total : D12_DRED_FREED_RING;
    for (uint64_t k = 0; k < kept; k++) {
        const d12_dred_freed *r = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
        if (!contains(r->start, r->size, va))
            continue;
        char *na = r->name_a ? strdup(r->name_a) : NULL;
        wchar_t *nw = NULL;
        if (r->name_w && (nw = malloc((wcslen(r->name_w) + 1) * sizeof *nw)) != NULL)
            wcscpy(nw, r->name_w);
        D3D12_DRED_ALLOCATION_NODE1 *node = allocation_node(a, r->object, na, nw, (D3D12_DRED_ALLOCATION_TYPE)r->type);
        if (node) {
            *freed = node;
            freed = (D3D12_DRED_ALLOCATION_NODE1 **)&node->pNext;
        }
    }
    pthread_mutex_unlock(&dred->ledger_lock);
}

/* ---- Building, completing, freeing ---- */

const D3D12_AUTO_BREADCRUMB_NODE1 *d12__dred_output_breadcrumbs(const struct d12_dred_output *output)
{
    return output->breadcrumbs;
}

struct d12_dred_output *d12__dred_output_build(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    struct d12_dred_output *out = calloc(1, sizeof *out);
    if (out == NULL)
        return NULL;
    if (dred->enabled.auto_breadcrumbs)
        out->breadcrumbs = build_breadcrumbs(dred, &out->memory);
    if (dred->enabled.page_fault)
        build_page_fault(dred, &out->memory, out);
    out->report = d12__dred_report_freeze(device, out->breadcrumbs);
    return out;
}

struct d12_dred_report_state *d12__dred_output_report_state(struct d12_dred_output *output)
{
    return output ? output->report : NULL;
}

void d12__dred_output_write_dump(struct d12_device *device, struct d12_dred_output *output)
{
    if (output)
        d12__dred_report_write_dump(device, output->report);
}

void d12__dred_output_complete(struct d12_device *device, struct d12_dred_output *output)
{
    if (output)
        d12__dred_report_complete(device, output->report);
}

void d12__dred_output_free(struct d12_dred_output *output)
{
    if (output == NULL)
        return;
    d12__dred_report_free(output->report);
    for (size_t i = 0; i < output->memory.count; i++)
        free(output->memory.blocks[i]);
    free(output->memory.blocks);
    free(output);
}

/* ---- The interfaces ---- */

/* Whether the removal has been frozen yet. The removing thread freezes right after its compare-exchange wins (BRIEF
 * §3); a caller that sees the device removed a moment before waits for it, and a removal whose path never froze
 * (none should) is frozen here as one that was no GPU fault. */
static void wait_frozen(struct d12_device *device)
{
    for (int i = 0; i < 200 && !d12__dred_frozen(device); i++) {
        struct timespec pause = {0, 500000}; /* 0.5 ms, at most 100 ms in all */
        nanosleep(&pause, NULL);
    }
    d12__dred_ensure_frozen(device);
}

/* The return code every output method shares: "Before removal every output call returns
 * DXGI_ERROR_NOT_CURRENTLY_AVAILABLE ... after removal a feature that was off returns DXGI_ERROR_UNSUPPORTED". */
static HRESULT output_available(struct d12_device *device, bool feature_on, const void *out)
{
    if (!d12__device_is_removed(device))
        return DXGI_ERROR_NOT_CURRENTLY_AVAILABLE;
    wait_frozen(device);
    if (!feature_on)
        return DXGI_ERROR_UNSUPPORTED;
    if (out == NULL)
        return E_INVALIDARG;
    return device->dred->output ? S_OK : E_OUTOFMEMORY;
}

HRESULT d12_device_GetAutoBreadcrumbsOutput1(struct d12_device *self, D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT1 *pOutput)
{
    HRESULT hr = output_available(self, self->dred->enabled.auto_breadcrumbs, pOutput);
    if (SUCCEEDED(hr))
        pOutput->pHeadAutoBreadcrumbNode = self->dred->output->breadcrumbs;
    return hr;
}

HRESULT d12_device_GetAutoBreadcrumbsOutput(struct d12_device *self, D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT *pOutput)
{
    HRESULT hr = output_available(self, self->dred->enabled.auto_breadcrumbs, pOutput);
    /* "NODE1 ... must be castable to NODE": one list serves both. */
    if (SUCCEEDED(hr))
        pOutput->pHeadAutoBreadcrumbNode = (const D3D12_AUTO_BREADCRUMB_NODE *)self->dred->output->breadcrumbs;
    return hr;
}

HRESULT d12_device_GetPageFaultAllocationOutput2(struct d12_device *self, D3D12_DRED_PAGE_FAULT_OUTPUT2 *pOutput)
{
    HRESULT hr = output_available(self, self->dred->enabled.page_fault, pOutput);
    if (SUCCEEDED(hr)) {
        const struct d12_dred_output *out = self->dred->output;
        pOutput->PageFaultVA = out->page_fault_va;
        pOutput->pHeadExistingAllocationNode = out->existing;
        pOutput->pHeadRecentFreedAllocationNode = out->freed;
        pOutput->PageFaultFlags = out->page_fault_flags;
    }
    return hr;
}

HRESULT d12_device_GetPageFaultAllocationOutput1(struct d12_device *self, D3D12_DRED_PAGE_FAULT_OUTPUT1 *pOutput)
{
    HRESULT hr = output_available(self, self->dred->enabled.page_fault, pOutput);
    if (SUCCEEDED(hr)) {
        pOutput->PageFaultVA = self->dred->output->page_fault_va;
        pOutput->pHeadExistingAllocationNode = self->dred->output->existing;
        pOutput->pHeadRecentFreedAllocationNode = self->dred->output->freed;
    }
    return hr;
}

HRESULT d12_device_GetPageFaultAllocationOutput(struct d12_device *self, D3D12_DRED_PAGE_FAULT_OUTPUT *pOutput)
{
    HRESULT hr = output_available(self, self->dred->enabled.page_fault, pOutput);
    if (SUCCEEDED(hr)) {
        /* ALLOCATION_NODE1 starts with ALLOCATION_NODE's fields: one list serves both. */
        pOutput->PageFaultVA = self->dred->output->page_fault_va;
        pOutput->pHeadExistingAllocationNode = (const D3D12_DRED_ALLOCATION_NODE *)self->dred->output->existing;
        pOutput->pHeadRecentFreedAllocationNode = (const D3D12_DRED_ALLOCATION_NODE *)self->dred->output->freed;
    }
    return hr;
}

D3D12_DRED_DEVICE_STATE d12_device_GetDeviceState(struct d12_device *self)
{
    /* "UNKNOWN ... only known if DRED event occurred" [I:4783]: UNKNOWN until removed, then the removal's state (a
     * removal that was no GPU fault stays UNKNOWN, docs/dred.md) */
    if (!d12__device_is_removed(self))
        return D3D12_DRED_DEVICE_STATE_UNKNOWN;
    wait_frozen(self);
    return d12__dred_device_state(self);
}
