/* v2 of driver-reported messages (docs/driver-reported-messages-v2.md "Filtering one driver message"): the
 * per-device stack of driver-message filters (ID3D12InfoQueue2::PushDriverMessageFilter / PopDriverMessageFilter)
 * and the registry's per-application filter (d12cfg drm-allow / drm-deny), applied on top of it.
 *
 * "The driver-message filters are per device and form a stack: the top one applies; Push(NULL) pushes 'no filter';
 * Pop on an empty stack does nothing. In a filter, deny wins; then, if NumAllow > 0, only listed pairs pass."
 * Runtime messages (VendorId 0) never reach these checks (report.c). Everything here runs under the InfoQueue
 * lock (a leaf): the lists are copied at push, so a check reads only memory the queue owns. */
#include "internal.h"

#include "d12_messages.h"

#include <stdlib.h>
#include <string.h>

/* More nesting than any application needs; a loop that pushes without popping gets E_OUTOFMEMORY, not unbounded
 * memory (the same answer as a failed allocation). */
#define IQ_DRIVER_FILTER_MAX_DEPTH 4096u

typedef struct iq_driver_filter {
    UINT allow_count, deny_count;
    D3D12_DRIVER_MESSAGE_IDENTITY *allow, *deny; /* one allocation: allow, then deny */
} iq_driver_filter;

struct iq_driver_filters {
    UINT depth, capacity;
    iq_driver_filter *stack; /* [depth - 1] is the top; a filter with no lists is "no filter" (Push(NULL)) */
    iq_driver_filter registry;
};

/* Issue 29: a 10^6-pair filter cost 2.5 ms a denied message, a linear scan under the InfoQueue lock. The lists are
 * sorted by (VendorId, VendorMessageId) when they are copied, with no lock held (O(N log N) once), so a check under
 * the lock is a binary search: O(log N) whatever the filter's size. No getter returns the lists, so their order is
 * the runtime's to choose. */
static int identity_order(const D3D12_DRIVER_MESSAGE_IDENTITY *a, UINT vendor_id, UINT64 vendor_message_id)
{
    if (a->VendorId != vendor_id)
        return a->VendorId < vendor_id ? -1 : 1;
    if (a->VendorMessageId != vendor_message_id)
        return a->VendorMessageId < vendor_message_id ? -1 : 1;
    return 0;
}

static int identity_compare(const void *a, const void *b)
{
    const D3D12_DRIVER_MESSAGE_IDENTITY *y = b;
    return identity_order(a, y->VendorId, y->VendorMessageId);
}

static bool listed(const D3D12_DRIVER_MESSAGE_IDENTITY *list, UINT count, const iq_identity *who)
{
    UINT low = 0, high = count; /* the answer, if any, is in [low, high) */
    while (low < high) {
        UINT middle = low + (high - low) / 2;
        int order = identity_order(&list[middle], who->vendor_id, who->vendor_message_id);
        if (order == 0)
            return true;
        if (order < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return false;
}

static bool filter_passes(const iq_driver_filter *filter, const iq_identity *who)
{
    if (listed(filter->deny, filter->deny_count, who))
        return false; /* "deny wins" */
    return filter->allow_count == 0 || listed(filter->allow, filter->allow_count, who);
}

bool d12__iq_driver_passes(const d12_info_queue *queue, const iq_identity *who)
{
    const struct iq_driver_filters *f = queue->driver_filters;
    if (!f)
        return true;
    /* "a registry deny always applies, on top of whatever the application pushes" */
    if (!filter_passes(&f->registry, who))
        return false;
    return f->depth == 0 || filter_passes(&f->stack[f->depth - 1], who);
}

bool d12__iq_driver_filtering(const d12_info_queue *queue)
{
    const struct iq_driver_filters *f = queue->driver_filters;
    return f && (f->depth > 0 || f->registry.allow_count || f->registry.deny_count);
}

static void filter_free(iq_driver_filter *filter)
{
    free(filter->allow);
    memset(filter, 0, sizeof *filter);
}

void d12__iq_driver_filters_free(d12_info_queue *queue)
{
    struct iq_driver_filters *f = queue->driver_filters;
    if (!f)
        return;
    for (UINT i = 0; i < f->depth; i++)
        filter_free(&f->stack[i]);
    filter_free(&f->registry);
    free(f->stack);
    free(f);
    queue->driver_filters = NULL;
}

/* A copy of the application's filter (NULL: "no filter"), made with no lock held. */
static HRESULT filter_copy(const D3D12_DRIVER_MESSAGE_FILTER *in, iq_driver_filter *out)
{
    memset(out, 0, sizeof *out);
    if (!in || (in->NumAllow == 0 && in->NumDeny == 0))
        return S_OK;
    if ((in->NumAllow && !in->pAllowList) || (in->NumDeny && !in->pDenyList))
        return E_INVALIDARG; /* a count with no list: the same rule as D3D12_INFO_QUEUE_FILTER's lists */
    size_t count = (size_t)in->NumAllow + in->NumDeny;
    if (count > SIZE_MAX / sizeof(D3D12_DRIVER_MESSAGE_IDENTITY))
        return E_OUTOFMEMORY;
    D3D12_DRIVER_MESSAGE_IDENTITY *items = malloc(count * sizeof *items);
    if (!items)
        return E_OUTOFMEMORY;
    if (in->NumAllow)
        memcpy(items, in->pAllowList, in->NumAllow * sizeof *items);
    if (in->NumDeny)
        memcpy(items + in->NumAllow, in->pDenyList, in->NumDeny * sizeof *items);
    qsort(items, in->NumAllow, sizeof *items, identity_compare);
    qsort(items + in->NumAllow, in->NumDeny, sizeof *items, identity_compare);
    *out = (iq_driver_filter){in->NumAllow, in->NumDeny, items, items + in->NumAllow};
    return S_OK;
}

/* The queue's filter state, created on first use (lock held). */
static struct iq_driver_filters *filters_of(d12_info_queue *queue)
{
    if (!queue->driver_filters)
        queue->driver_filters = calloc(1, sizeof *queue->driver_filters);
    return queue->driver_filters;
}

HRESULT d12_info_queue_PushDriverMessageFilter(d12_info_queue *queue, const D3D12_DRIVER_MESSAGE_FILTER *pFilter)
{
    iq_driver_filter copy;
    HRESULT hr = filter_copy(pFilter, &copy);
    if (hr == E_INVALIDARG) {
        bool allow = pFilter->NumAllow && !pFilter->pAllowList;
        d12__msg_driver_message_filter_invalid(queue, allow ? "NumAllow" : "NumDeny",
                                               allow ? pFilter->NumAllow : pFilter->NumDeny,
                                               allow ? "pAllowList" : "pDenyList");
    }
    if (FAILED(hr))
        return hr;
    iq_lock(queue);
    struct iq_driver_filters *f = filters_of(queue);
    if (f && f->depth == f->capacity && f->capacity < IQ_DRIVER_FILTER_MAX_DEPTH) {
        UINT capacity = f->capacity ? f->capacity * 2 : 4;
        iq_driver_filter *stack = realloc(f->stack, capacity * sizeof *stack);
        if (stack) {
            f->stack = stack;
            f->capacity = capacity;
        }
    }
    if (!f || f->depth == f->capacity) {
        hr = E_OUTOFMEMORY;
    } else {
        f->stack[f->depth++] = copy;
        d12__iq_settings_changed(queue);
    }
    iq_unlock(queue);
    if (FAILED(hr))
        free(copy.allow);
    return hr;
}

void d12_info_queue_PopDriverMessageFilter(d12_info_queue *queue)
{
    iq_driver_filter popped = {0};
    iq_lock(queue);
    struct iq_driver_filters *f = queue->driver_filters;
    if (f && f->depth > 0) { /* "Pop on an empty stack does nothing" */
        popped = f->stack[--f->depth];
        d12__iq_settings_changed(queue);
    }
    iq_unlock(queue);
    free(popped.allow); /* no free() under the lock */
}

UINT d12__info_queue_driver_filter_depth(d12_info_queue *queue)
{
    iq_lock(queue);
    UINT depth = queue->driver_filters ? queue->driver_filters->depth : 0;
    iq_unlock(queue);
    return depth;
}

HRESULT d12__info_queue_set_registry_driver_filter(d12_info_queue *queue, const D3D12_DRIVER_MESSAGE_FILTER *filter)
{
    if (!queue)
        return S_OK;
    iq_driver_filter copy;
    HRESULT hr = filter_copy(filter, &copy);
    if (FAILED(hr))
        return hr;
    iq_driver_filter old = {0};
    iq_lock(queue);
    struct iq_driver_filters *f = filters_of(queue);
    if (!f) {
        hr = E_OUTOFMEMORY;
    } else {
        old = f->registry;
        f->registry = copy;
        d12__iq_settings_changed(queue);
    }
    iq_unlock(queue);
    free(FAILED(hr) ? copy.allow : old.allow);
    return hr;
}
