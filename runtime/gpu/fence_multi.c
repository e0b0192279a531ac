/* ID3D12Device1::SetEventOnMultipleFenceCompletion (docs/gpu-work.md, "Multiple fences"): one event, or a blocking
 * wait, for a set of (fence, value) pairs, when ALL of them or ANY one is reached.
 *
 * A set is one allocation: the header below and one fence waiter (fence.h) per pair, each registered on its fence
 * like a SetEventOnCompletion. A member is done when its fence reaches its value, when the application releases the
 * fence (it counts as reached: vkd3d-proton's tests/d3d12_sync.c, "releasing the fence unblocks all waiters"), or
 * when the device is removed (every fence then reads UINT64_MAX). `remaining` counts the members still needed (ALL:
 * all of them, ANY: one); the member that takes it to 0 fires the set, once: it signals the event (and drops the
 * runtime's reference to it) or wakes the blocked caller. The set's memory goes with its last reference (one per
 * member, one for the caller until it registered every member): with ANY, members whose fences never get there keep
 * only that memory, not the event, until their fence is released.
 *
 * Locks: members are done under their fence's lock; firing takes only the events leaf lock (event.h) or writes the
 * caller's private eventfd. Nothing here holds two fences' locks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "d12_messages.h"
#include "device.h"
#include "event.h"
#include "fence.h"

struct d12_fence_multi {
    atomic_uint remaining; /* members still needed before the set fires; 0: fired */
    atomic_uint refs;      /* members not done + the caller while registering */
    d12_event *event;      /* the application's event (NULL: the caller blocks on `wake`) */
    int wake;              /* NULL event: a private eventfd the caller reads, written once when the set fires */
    d12_fence_waiter members[];
};

static void multi_unref(struct d12_fence_multi *multi)
{
    if (atomic_fetch_sub_explicit(&multi->refs, 1, memory_order_acq_rel) == 1)
        free(multi);
}

/* Take one from `remaining` unless it is 0 already; true when this took it to 0 (the caller fires the set). */
static bool count_down(struct d12_fence_multi *multi)
{
    unsigned left = atomic_load_explicit(&multi->remaining, memory_order_acquire);
    while (left != 0) {
        if (atomic_compare_exchange_weak_explicit(&multi->remaining, &left, left - 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            return left == 1;
    }
    return false;
}

static void fire_set(struct d12_fence_multi *multi)
{
    if (multi->event != NULL) {
        d12__event_signal(multi->event);
        d12__event_release(multi->event); /* no one touches it again: `remaining` is 0 for good */
        return;
    }
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(multi->wake, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
}

void d12__fence_multi_member_done(struct d12_fence_multi *multi)
{
    if (count_down(multi))
        fire_set(multi);
    multi_unref(multi);
}

static HRESULT invalid(struct d12_device *device, const char *parameter, const char *why)
{
    d12__msg_invalid_argument(device->info_queue, "ID3D12Device1", "SetEventOnMultipleFenceCompletion", parameter,
                              why);
    return E_INVALIDARG;
}

/* Every argument is checked before anything is registered: a refused call changes nothing. */
static HRESULT check_arguments(struct d12_device *self, ID3D12Fence *const *fences, const UINT64 *values, UINT count,
                               D3D12_MULTIPLE_FENCE_WAIT_FLAGS flags)
{
    if (count == 0)
        return invalid(self, "NumFences", "it is 0");
    if (flags != D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL && flags != D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY)
        return invalid(self, "Flags", "it is neither D3D12_MULTIPLE_FENCE_WAIT_FLAG_ALL nor _ANY");
    if (fences == NULL)
        return invalid(self, "ppFences", "it is NULL"); /* Windows crashes here; bad input never crashes here */
    if (values == NULL)
        return invalid(self, "pFenceValues", "it is NULL");
    for (UINT i = 0; i < count; i++) {
        if (d12__fence_unwrap(fences[i]) == NULL)
            return invalid(self, "ppFences", "an entry is NULL or not a d12rt fence");
    }
    return S_OK;
}

static HRESULT take_event(struct d12_device *self, HANDLE handle, d12_event **event)
{
    d12_event_problem problem;
    HRESULT hr = d12__event_acquire(handle, event, &problem);
    if (hr == E_INVALIDARG)
        return invalid(self, "hEvent",
                       problem == D12_EVENT_NOT_OPEN
                           ? "it is not an open file descriptor (events are eventfd descriptors cast to HANDLE)"
                           : "it is not an eventfd (a pipe, a file or a socket is no event)");
    return hr;
}

/* Block until the private eventfd is written (the set fired). */
static void wait_fired(int wake)
{
    uint64_t count;
    ssize_t got;
    do {
        got = read(wake, &count, sizeof count);
    } while (got < 0 && errno == EINTR);
}

HRESULT d12_device_SetEventOnMultipleFenceCompletion(struct d12_device *self, ID3D12Fence *const *ppFences,
                                                     const UINT64 *pFenceValues, UINT NumFences,
                                                     D3D12_MULTIPLE_FENCE_WAIT_FLAGS Flags, HANDLE hEvent)
{
    HRESULT hr = check_arguments(self, ppFences, pFenceValues, NumFences, Flags);
    if (FAILED(hr))
        return hr;
    if (NumFences == UINT32_MAX)
        return E_OUTOFMEMORY; /* `refs` counts NumFences + 1 (and no such array fits in memory anyway) */
    /* UINT fences of 32 bytes each: at most 128 GiB, no overflow of size_t. */
    struct d12_fence_multi *multi = malloc(sizeof *multi + (size_t)NumFences * sizeof(d12_fence_waiter));
    if (multi == NULL)
        return E_OUTOFMEMORY;
    multi->event = NULL;
    multi->wake = -1;
    if (hEvent != NULL) {
        hr = take_event(self, hEvent, &multi->event);
    } else if ((multi->wake = eventfd(0, EFD_CLOEXEC)) < 0) {
        hr = E_OUTOFMEMORY; /* out of descriptors */
    }
    if (FAILED(hr)) {
        free(multi);
        return hr;
    }
    atomic_init(&multi->remaining, Flags == D3D12_MULTIPLE_FENCE_WAIT_FLAG_ANY ? 1u : NumFences);
    atomic_init(&multi->refs, NumFences + 1u);
    for (UINT i = 0; i < NumFences; i++)
        multi->members[i] = (d12_fence_waiter){pFenceValues[i], NULL, multi, NULL};
    /* Registered one fence at a time (never two fence locks): a member already reached fires at once, and the set
     * may fire before the last member is registered (ANY, or ALL with every value reached). */
    for (UINT i = 0; i < NumFences; i++)
        d12__fence_add_waiter(d12__fence_unwrap(ppFences[i]), &multi->members[i]);
    int wake = multi->wake;
    multi_unref(multi); /* from here on the set may be gone: only `wake` (ours to close) is used */
    if (wake >= 0) {
        wait_fired(wake);
        close(wake);
    }
    return S_OK;
}
