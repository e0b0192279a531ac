/* InfoQueue filters: the decision a reported message gets (the storage filter, mute, break-on, who wants its
 * text: d12__iq_decide, the first step of a message's path), and the lists, filters and filter stacks behind the
 * storage and retrieval filter methods (deny wins; docs/infoqueue.md "Decisions") with the break-on and mute
 * settings. Nothing here calls another file of runtime/infoqueue/ on a message's path. Lock: docs/locking.md. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- Lists, filters and stacks (caller holds the lock or owns the object) ---- */

static bool iq_list_reserve(iq_list *list, UINT extra)
{
    if (extra == 0 || list->count + (uint64_t)extra <= list->capacity)
        return true;
    uint64_t wanted = (uint64_t)list->count + extra;
    if (wanted > UINT32_MAX / 2)
        return false;
    UINT capacity = list->capacity ? list->capacity : 4;
    while (capacity < wanted)
        capacity *= 2;
    UINT *items = realloc(list->items, capacity * sizeof(*items));
    if (!items)
        return false;
    list->items = items;
    list->capacity = capacity;
    return true;
}

static void iq_list_remove(iq_list *list, UINT value)
{
    UINT kept = 0;
    for (UINT i = 0; i < list->count; i++)
        if (list->items[i] != value)
            list->items[kept++] = list->items[i];
    list->count = kept;
}

static void iq_filter_free(iq_filter *filter)
{
    for (int d = 0; d < IQ_DIMS; d++) {
        free(filter->allow[d].items);
        free(filter->deny[d].items);
    }
    memset(filter, 0, sizeof(*filter));
}

static bool iq_stack_push(iq_stack *stack)
{
    if (stack->depth == stack->capacity) {
        UINT capacity = stack->capacity ? stack->capacity * 2 : 4;
        iq_filter *filters = realloc(stack->filters, capacity * sizeof(*filters));
        if (!filters)
            return false;
        stack->filters = filters;
        stack->capacity = capacity;
    }
    memset(&stack->filters[stack->depth++], 0, sizeof(iq_filter));
    return true;
}

void d12__iq_stack_free(iq_stack *stack)
{
    for (UINT i = 0; i < stack->depth; i++)
        iq_filter_free(&stack->filters[i]);
    free(stack->filters);
    memset(stack, 0, sizeof(*stack));
}

/* The three lists of one side of a D3D12 filter, as (count, pointer) pairs. */
static void iq_desc_lists(const D3D12_INFO_QUEUE_FILTER_DESC *desc, UINT count[IQ_DIMS], const UINT *items[IQ_DIMS])
{
    count[IQ_DIM_CATEGORY] = desc->NumCategories;
    items[IQ_DIM_CATEGORY] = (const UINT *)desc->pCategoryList;
    count[IQ_DIM_SEVERITY] = desc->NumSeverities;
    items[IQ_DIM_SEVERITY] = (const UINT *)desc->pSeverityList;
    count[IQ_DIM_ID] = desc->NumIDs;
    items[IQ_DIM_ID] = (const UINT *)desc->pIDList;
}

/* E_INVALIDARG for a NULL filter, a count with a NULL list, or a category/severity out of range. */
static HRESULT iq_desc_validate(const D3D12_INFO_QUEUE_FILTER_DESC *desc)
{
    UINT count[IQ_DIMS];
    const UINT *items[IQ_DIMS];
    iq_desc_lists(desc, count, items);
    const UINT limit[IQ_DIMS] = {IQ_CATEGORY_COUNT, IQ_SEVERITY_COUNT, UINT32_MAX};
    for (int d = 0; d < IQ_DIMS; d++) {
        if (count[d] && !items[d])
            return E_INVALIDARG;
        for (UINT i = 0; d != IQ_DIM_ID && i < count[d]; i++)
            if (items[d][i] >= limit[d])
                return E_INVALIDARG;
    }
    return S_OK;
}

static HRESULT iq_filter_validate(const D3D12_INFO_QUEUE_FILTER *filter)
{
    if (!filter)
        return E_INVALIDARG;
    HRESULT hr = iq_desc_validate(&filter->AllowList);
    return FAILED(hr) ? hr : iq_desc_validate(&filter->DenyList);
}

static bool iq_lists_append(iq_list lists[IQ_DIMS], const D3D12_INFO_QUEUE_FILTER_DESC *desc, bool reserve_only)
{
    UINT count[IQ_DIMS];
    const UINT *items[IQ_DIMS];
    iq_desc_lists(desc, count, items);
    for (int d = 0; d < IQ_DIMS; d++) {
        if (reserve_only) {
            if (!iq_list_reserve(&lists[d], count[d]))
                return false;
        } else if (count[d]) {
            memcpy(lists[d].items + lists[d].count, items[d], count[d] * sizeof(UINT));
            lists[d].count += count[d];
        }
    }
    return true;
}

/* Appends the entries (validated) to a filter: reserve everything first so a failure changes nothing. */
static HRESULT iq_filter_add(iq_filter *target, const D3D12_INFO_QUEUE_FILTER *filter)
{
    if (!iq_lists_append(target->allow, &filter->AllowList, true) ||
        !iq_lists_append(target->deny, &filter->DenyList, true))
        return E_OUTOFMEMORY;
    iq_lists_append(target->allow, &filter->AllowList, false);
    iq_lists_append(target->deny, &filter->DenyList, false);
    return S_OK;
}

/* The filter as a D3D12 filter whose lists point into `from` (for copying and for GetStorageFilter). */
static D3D12_INFO_QUEUE_FILTER iq_filter_view(const iq_filter *from)
{
    D3D12_INFO_QUEUE_FILTER view;
    D3D12_INFO_QUEUE_FILTER_DESC *side[2] = {&view.AllowList, &view.DenyList};
    const iq_list *lists[2] = {from->allow, from->deny};
    for (int s = 0; s < 2; s++) {
        side[s]->NumCategories = lists[s][IQ_DIM_CATEGORY].count;
        side[s]->pCategoryList = (D3D12_MESSAGE_CATEGORY *)lists[s][IQ_DIM_CATEGORY].items;
        side[s]->NumSeverities = lists[s][IQ_DIM_SEVERITY].count;
        side[s]->pSeverityList = (D3D12_MESSAGE_SEVERITY *)lists[s][IQ_DIM_SEVERITY].items;
        side[s]->NumIDs = lists[s][IQ_DIM_ID].count;
        side[s]->pIDList = (D3D12_MESSAGE_ID *)lists[s][IQ_DIM_ID].items;
    }
    return view;
}

static SIZE_T iq_filter_byte_size(const iq_filter *filter)
{
    SIZE_T entries = 0;
    for (int d = 0; d < IQ_DIMS; d++)
        entries += (SIZE_T)filter->allow[d].count + filter->deny[d].count;
    return sizeof(D3D12_INFO_QUEUE_FILTER) + entries * sizeof(UINT);
}

/* Copies one list to `*cursor` inside the output buffer and returns where it went (NULL when empty). */
static void *iq_emit_list(const iq_list *list, unsigned char **cursor)
{
    if (list->count == 0)
        return NULL;
    void *at = *cursor;
    memcpy(at, list->items, list->count * sizeof(UINT));
    *cursor += list->count * sizeof(UINT);
    return at;
}

/* One contiguous buffer: the struct, then allow categories, severities, IDs, then deny ones. */
static void iq_filter_emit(const iq_filter *filter, D3D12_INFO_QUEUE_FILTER *out)
{
    unsigned char *cursor = (unsigned char *)(out + 1);
    D3D12_INFO_QUEUE_FILTER view = iq_filter_view(filter);
    D3D12_INFO_QUEUE_FILTER_DESC *side[2] = {&view.AllowList, &view.DenyList};
    const iq_list *lists[2] = {filter->allow, filter->deny};
    for (int s = 0; s < 2; s++) {
        side[s]->pCategoryList = iq_emit_list(&lists[s][IQ_DIM_CATEGORY], &cursor);
        side[s]->pSeverityList = iq_emit_list(&lists[s][IQ_DIM_SEVERITY], &cursor);
        side[s]->pIDList = iq_emit_list(&lists[s][IQ_DIM_ID], &cursor);
    }
    *out = view;
}

/* A retrieval filter changed: what filtered reads remember is stale. */
static void iq_filter_changed(d12_info_queue *queue, const iq_stack *stack)
{
    if (stack == &queue->retrieval)
        queue->retrieval_gen++;
    d12__iq_settings_changed(queue);
}

static bool iq_filter_empty(const iq_filter *filter)
{
    for (int d = 0; d < IQ_DIMS; d++)
        if (filter->allow[d].count || filter->deny[d].count)
            return false;
    return true;
}

static bool iq_breaks_on_anything(const d12_info_queue *queue)
{
    if (queue->break_ids.count)
        return true;
    for (UINT c = 0; c < IQ_CATEGORY_COUNT; c++)
        if (queue->break_category[c])
            return true;
    for (UINT s = 0; s < IQ_SEVERITY_COUNT; s++)
        if (queue->break_severity[s])
            return true;
    return false;
}

void d12__iq_settings_changed(d12_info_queue *queue)
{
    const iq_stack *storage = &queue->storage;
    bool passes_all = storage->depth == 0 || iq_filter_empty(&storage->filters[storage->depth - 1]);
    queue->plain = passes_all && !iq_breaks_on_anything(queue) && queue->mute && queue->callback_count == 0 &&
                   queue->limit > 0 && !d12__iq_driver_filtering(queue) /* v2 */;
}

/* ---- The decision (a message's path: report.c calls it once, with the lock held) ---- */

iq_decision d12__iq_decide(d12_info_queue *queue, UINT category, UINT severity, UINT id, const iq_identity *who)
{
    if (queue->plain) /* passes, stored, nothing to print, deliver or break on */
        return IQ_PLAIN;
    iq_decision d = {0};
    d.passed = iq_stack_passes(&queue->storage, category, severity, id);
    /* v2: a driver message the driver-message filters stop is treated as the storage filter's ("A message that does
     * not pass is neither stored nor delivered ... except callbacks registered with IGNORE_FILTERS") */
    if (d.passed && who->vendor_id != 0 && !d12__iq_driver_passes(queue, who))
        d.passed = false;
    d.print = d.passed && !queue->mute;
    d.store = d.passed && queue->limit > 0;
    d.deliver = queue->ignore_filter_callbacks > 0 || (d.passed && queue->callback_count > 0) || d.print;
    d.brk = d.passed && iq_breaks_on(queue, category, severity, id);
    if (!d.passed)
        queue->denied++;
    else if (!d.store && !d.deliver) {
        queue->allowed++;
        queue->discarded++; /* limit 0: passed, and discarded at once */
    }
    return d;
}

bool d12__info_queue_wants(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                           D3D12_MESSAGE_ID id)
{
    return d12__info_queue_wants_driver(queue, category, severity, id, 0, 0);
}

bool d12__info_queue_wants_driver(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                  D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, UINT vendor_id,
                                  UINT64 vendor_message_id)
{
    if (!queue)
        return false;
    iq_identity who = {vendor_id, vendor_message_id};
    iq_lock(queue);
    bool passed = iq_stack_passes(&queue->storage, category, severity, id) &&
                  (vendor_id == 0 || d12__iq_driver_passes(queue, &who));
    bool wanted = queue->ignore_filter_callbacks > 0 ||
                  (passed && (queue->limit > 0 || !queue->mute || queue->callback_count > 0));
    iq_unlock(queue);
    return wanted;
}

/* ---- Filter stacks (shared by the storage and retrieval methods) ---- */

static HRESULT iq_add_entries(d12_info_queue *queue, iq_stack *stack, const D3D12_INFO_QUEUE_FILTER *filter)
{
    HRESULT hr = iq_filter_validate(filter);
    if (FAILED(hr))
        return hr;
    iq_lock(queue);
    bool pushed = stack->depth == 0; /* the IDL: an empty stack gets an empty filter first */
    if (pushed && !iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else
        hr = iq_filter_add(&stack->filters[stack->depth - 1], filter);
    if (FAILED(hr) && pushed && stack->depth)
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static HRESULT iq_get_filter(d12_info_queue *queue, iq_stack *stack, D3D12_INFO_QUEUE_FILTER *out, SIZE_T *length)
{
    if (!length)
        return E_INVALIDARG;
    static const iq_filter empty;
    HRESULT hr = S_OK;
    iq_lock(queue);
    const iq_filter *top = stack->depth ? &stack->filters[stack->depth - 1] : &empty;
    SIZE_T needed = iq_filter_byte_size(top);
    if (!out)
        hr = S_FALSE;
    else if (*length < needed)
        hr = E_INVALIDARG;
    else
        iq_filter_emit(top, out);
    *length = needed;
    iq_unlock(queue);
    return hr;
}

static void iq_clear_filter(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    if (stack->depth)
        iq_filter_free(&stack->filters[stack->depth - 1]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
}

static HRESULT iq_push_empty(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    HRESULT hr = iq_stack_push(stack) ? S_OK : E_OUTOFMEMORY;
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

/* A copy of the top (an empty filter when the stack is empty). */
static HRESULT iq_push_copy(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    HRESULT hr = S_OK;
    if (!iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else if (stack->depth > 1) {
        D3D12_INFO_QUEUE_FILTER view = iq_filter_view(&stack->filters[stack->depth - 2]);
        hr = iq_filter_add(&stack->filters[stack->depth - 1], &view);
        if (FAILED(hr))
            iq_filter_free(&stack->filters[--stack->depth]);
    }
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static HRESULT iq_push_filter(d12_info_queue *queue, iq_stack *stack, const D3D12_INFO_QUEUE_FILTER *filter)
{
    HRESULT hr = iq_filter_validate(filter); /* an invalid filter pushes nothing */
    if (FAILED(hr))
        return hr;
    iq_lock(queue);
    if (!iq_stack_push(stack))
        hr = E_OUTOFMEMORY;
    else if (FAILED(hr = iq_filter_add(&stack->filters[stack->depth - 1], filter)))
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
    return hr;
}

static void iq_pop(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    if (stack->depth)
        iq_filter_free(&stack->filters[--stack->depth]);
    iq_filter_changed(queue, stack);
    iq_unlock(queue);
}

static UINT iq_depth(d12_info_queue *queue, iq_stack *stack)
{
    iq_lock(queue);
    UINT depth = stack->depth;
    iq_unlock(queue);
    return depth;
}

HRESULT d12_info_queue_AddStorageFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_add_entries(queue, &queue->storage, pFilter);
}

HRESULT d12_info_queue_GetStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                        SIZE_T *pFilterByteLength)
{
    return iq_get_filter(queue, &queue->storage, pFilter, pFilterByteLength);
}

void d12_info_queue_ClearStorageFilter(d12_info_queue *queue)
{
    iq_clear_filter(queue, &queue->storage);
}

HRESULT d12_info_queue_PushEmptyStorageFilter(d12_info_queue *queue)
{
    return iq_push_empty(queue, &queue->storage);
}

HRESULT d12_info_queue_PushCopyOfStorageFilter(d12_info_queue *queue)
{
    return iq_push_copy(queue, &queue->storage);
}

HRESULT d12_info_queue_PushStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_push_filter(queue, &queue->storage, pFilter);
}

void d12_info_queue_PopStorageFilter(d12_info_queue *queue)
{
    iq_pop(queue, &queue->storage);
}

UINT d12_info_queue_GetStorageFilterStackSize(d12_info_queue *queue)
{
    return iq_depth(queue, &queue->storage);
}

HRESULT d12_info_queue_AddRetrievalFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_add_entries(queue, &queue->retrieval, pFilter);
}

HRESULT d12_info_queue_GetRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                          SIZE_T *pFilterByteLength)
{
    return iq_get_filter(queue, &queue->retrieval, pFilter, pFilterByteLength);
}

void d12_info_queue_ClearRetrievalFilter(d12_info_queue *queue)
{
    iq_clear_filter(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushEmptyRetrievalFilter(d12_info_queue *queue)
{
    return iq_push_empty(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushCopyOfRetrievalFilter(d12_info_queue *queue)
{
    return iq_push_copy(queue, &queue->retrieval);
}

HRESULT d12_info_queue_PushRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter)
{
    return iq_push_filter(queue, &queue->retrieval, pFilter);
}

void d12_info_queue_PopRetrievalFilter(d12_info_queue *queue)
{
    iq_pop(queue, &queue->retrieval);
}

UINT d12_info_queue_GetRetrievalFilterStackSize(d12_info_queue *queue)
{
    return iq_depth(queue, &queue->retrieval);
}

/* ---- Break and mute ---- */

HRESULT d12_info_queue_SetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category, BOOL bEnable)
{
    if ((UINT)Category >= IQ_CATEGORY_COUNT)
        return E_INVALIDARG;
    iq_lock(queue);
    queue->break_category[Category] = bEnable != FALSE;
    d12__iq_settings_changed(queue);
    iq_unlock(queue);
    return S_OK;
}

HRESULT d12_info_queue_SetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity, BOOL bEnable)
{
    if ((UINT)Severity >= IQ_SEVERITY_COUNT)
        return E_INVALIDARG;
    iq_lock(queue);
    queue->break_severity[Severity] = bEnable != FALSE;
    d12__iq_settings_changed(queue);
    iq_unlock(queue);
    return S_OK;
}

HRESULT d12_info_queue_SetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID, BOOL bEnable)
{
    HRESULT hr = S_OK;
    iq_lock(queue);
    if (!bEnable)
        iq_list_remove(&queue->break_ids, ID);
    else if (!iq_list_has(&queue->break_ids, ID)) {
        if (iq_list_reserve(&queue->break_ids, 1))
            queue->break_ids.items[queue->break_ids.count++] = ID;
        else
            hr = E_OUTOFMEMORY;
    }
    d12__iq_settings_changed(queue);
    iq_unlock(queue);
    return hr;
}

BOOL d12_info_queue_GetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category)
{
    if ((UINT)Category >= IQ_CATEGORY_COUNT)
        return FALSE;
    iq_lock(queue);
    BOOL value = queue->break_category[Category];
    iq_unlock(queue);
    return value;
}

BOOL d12_info_queue_GetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity)
{
    if ((UINT)Severity >= IQ_SEVERITY_COUNT)
        return FALSE;
    iq_lock(queue);
    BOOL value = queue->break_severity[Severity];
    iq_unlock(queue);
    return value;
}

BOOL d12_info_queue_GetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID)
{
    iq_lock(queue);
    BOOL value = iq_list_has(&queue->break_ids, ID);
    iq_unlock(queue);
    return value;
}

void d12_info_queue_SetMuteDebugOutput(d12_info_queue *queue, BOOL bMute)
{
    iq_lock(queue);
    queue->mute = bMute != FALSE;
    d12__iq_settings_changed(queue);
    iq_unlock(queue);
}

BOOL d12_info_queue_GetMuteDebugOutput(d12_info_queue *queue)
{
    iq_lock(queue);
    BOOL value = queue->mute;
    iq_unlock(queue);
    return value;
}

