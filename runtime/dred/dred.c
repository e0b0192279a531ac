/* DRED per-device state, settings resolution, the removal hooks and submission tracking (dred.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "dred_internal.h"
#include "list.h"
#include "queue.h"

/* Submissions tracked per device before the oldest is taken as complete: an application that never signals
 * would otherwise pin every list it ever executed (docs/dred.md). */
#define D12_DRED_MAX_TRACKED 4096u

d12_dred_enabled d12__dred_resolve(const d12_debug_settings *settings)
{
    d12_dred_enabled enabled = {0};
    enabled.auto_breadcrumbs = settings->auto_breadcrumbs == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.page_fault = settings->page_fault == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.watson_dump = settings->watson_dump == D3D12_DRED_ENABLEMENT_FORCED_ON;
    /* "Contexts and markers-only mode apply only when auto-breadcrumbs are on" (issue 9, item 1). */
    enabled.breadcrumb_context =
        enabled.auto_breadcrumbs && settings->breadcrumb_context == D3D12_DRED_ENABLEMENT_FORCED_ON;
    enabled.markers_only = enabled.auto_breadcrumbs && settings->markers_only_breadcrumbs;
    return enabled;
}

/* The driver's write-immediate entry (DDI build 0127), or NULL. */
static d12_dred_write_immediate_fn driver_write_immediate(struct d12_device *device)
{
    /* "a driver built against today's header (listing only 126) still loads and works, without the 0127 additions":
     * then the slot is NULL and lists have a history but no GPU counter (docs/dred.md). */
    return device->gpu ? device->gpu->list_0127.pfnWriteBufferImmediate : NULL;
}

HRESULT d12__dred_create(struct d12_device *device, const d12_dred_enabled *enabled)
{
    struct d12_dred *dred = calloc(1, sizeof(*dred));
    if (dred == NULL)
        return E_OUTOFMEMORY;
    dred->enabled = *enabled;
    dred->settings_at_creation = d12__debug_settings(); /* item 8: a later change is noted in the report */
    const char *dump = getenv("D12RT_DRED_DUMP");
    dred->track_submissions = enabled->auto_breadcrumbs || (dump && *dump);
    atomic_init(&dred->frozen, false);
    atomic_init(&dred->free_seq, 0);
    atomic_init(&dred->last_serial, 0);
    pthread_mutex_init(&dred->freeze_lock, NULL);
    pthread_mutex_init(&dred->complete_lock, NULL);
    pthread_mutex_init(&dred->track_lock, NULL);
    pthread_mutex_init(&dred->pool_lock, NULL);
    pthread_mutex_init(&dred->ledger_lock, NULL);
    dred->submissions_tail = &dred->submissions;
    device->dred = dred;
    if (enabled->page_fault && FAILED(d12__dred_ledger_init(dred))) {
        d12__dred_destroy(device);
        return E_OUTOFMEMORY;
    }
    return S_OK;
}

/* The GPU-work table is known only once the driver's device exists. */
void d12__dred_connect(struct d12_device *device)
{
    if (device->dred && device->dred->enabled.auto_breadcrumbs)
        device->dred->write_immediate = driver_write_immediate(device);
    if (device->dred && device->gpu)
        d12__dred_stall_start(device);
}

/* Issue 29: a driver thread calling pfnQueryGpuVaIdentityCb or pfnSetErrorCb while the device was destroyed found
 * DRED's data freed (it went before the driver, because its counter pool is driver resources). Now in two steps:
 * close, before pfnDestroyDevice, gives back what uses the driver (the pool, the tracked submissions, the stall
 * thread) and marks DRED closed under the freeze lock, so a removal that comes from the driver now (pfnSetErrorCb)
 * no longer freezes, and one in progress has finished; destroy, after pfnDestroyDevice returned and the runtime
 * handle was unregistered (no callback can run any more, docs/locking.md), frees what callbacks can reach: the
 * ledger the VA identity reads, the output, the locks. */
void d12__dred_close(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    pthread_mutex_lock(&dred->freeze_lock);
    bool already = dred->closed;
    dred->closed = true;
    pthread_mutex_unlock(&dred->freeze_lock);
    if (already)
        return;
    d12__dred_stall_stop(device);
    d12_dred_submission *chain = dred->submissions;
    dred->submissions = NULL;
    d12__dred_release_submissions(chain);
    d12__dred_pool_destroy(device);
}

void d12__dred_destroy(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    d12__dred_close(device); /* a creation that failed never closed it */
    d12__dred_output_free(dred->output);
    d12__dred_ledger_fini(dred);
    for (unsigned i = 0; i < sizeof dred->allocator_resets / sizeof dred->allocator_resets[0]; i++)
        free(dred->allocator_resets[i].allocator);
    pthread_mutex_destroy(&dred->freeze_lock);
    pthread_mutex_destroy(&dred->complete_lock);
    pthread_mutex_destroy(&dred->track_lock);
    pthread_mutex_destroy(&dred->pool_lock);
    pthread_mutex_destroy(&dred->ledger_lock);
    free(dred);
    device->dred = NULL;
}

void d12__dred_note_allocator_reset(struct d12_device *device, const struct d12_command_queue *queue, uint64_t serial,
                                    const char *allocator)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    char *copy = allocator ? strdup(allocator) : NULL;
    const unsigned slots = sizeof dred->allocator_resets / sizeof dred->allocator_resets[0];
    pthread_mutex_lock(&dred->track_lock);
    unsigned at = dred->allocator_reset_count++ % slots;
    char *old = dred->allocator_resets[at].allocator;
    dred->allocator_resets[at].queue = queue;
    dred->allocator_resets[at].serial = serial;
    dred->allocator_resets[at].allocator = copy;
    pthread_mutex_unlock(&dred->track_lock);
    free(old);
}

d12_dred_enabled d12__dred_enabled(const struct d12_device *device)
{
    d12_dred_enabled none = {0};
    return device->dred ? device->dred->enabled : none;
}

bool d12__dred_frozen(const struct d12_device *device)
{
    return device->dred != NULL && atomic_load_explicit(&device->dred->frozen, memory_order_acquire);
}

D3D12_DRED_DEVICE_STATE d12__dred_device_state(const struct d12_device *device)
{
    return d12__dred_frozen(device) ? device->dred->fault.state : D3D12_DRED_DEVICE_STATE_UNKNOWN;
}

/* ---- The removal hooks ---- */

void d12__dred_freeze(struct d12_device *device, const d12_fault_info *fault)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    bool froze = false;
    pthread_mutex_lock(&dred->freeze_lock);
    if (!dred->closed && !atomic_load_explicit(&dred->frozen, memory_order_relaxed)) { /* "exactly once per device" */
        froze = true;
        dred->fault = *fault;
        if (dred->fault.list == NULL)
            dred->fault.op_index = D12_DRED_OP_INDEX_UNKNOWN;
        HRESULT reason = atomic_load(&device->removed_reason);
        dred->reason = FAILED(reason) ? reason : fault->reason;
        dred->output = d12__dred_output_build(device);
        atomic_store_explicit(&dred->frozen, true, memory_order_release);
    }
    pthread_mutex_unlock(&dred->freeze_lock);
    /* The dump is complete on disk before the removal is published (issue 19 item 6): the caller publishes the
     * reason, forces fences to UINT64_MAX and fires events only after this returns, so an application that reads
     * the reason and exits at once still leaves the whole report. Outside freeze_lock: a list Reset waits for
     * that lock, and a slow folder must not stall it. Stage 2 rewrites the file only to add flush messages. */
    if (froze)
        d12__dred_output_write_dump(device, dred->output);
}

/* A removal whose path did not call d12__dred_freeze (none should): freeze it now as a non-GPU-fault removal, so
 * the output exists whenever the device is removed. */
void d12__dred_ensure_frozen(struct d12_device *device)
{
    if (device->dred == NULL || d12__dred_frozen(device) || !d12__device_is_removed(device))
        return;
    d12_fault_info unknown = {atomic_load(&device->removed_reason), D3D12_DRED_DEVICE_STATE_UNKNOWN, 0, 0, NULL, NULL,
                              D12_DRED_OP_INDEX_UNKNOWN, NULL};
    d12__dred_freeze(device, &unknown);
}

static void complete_once(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    if (dred == NULL)
        return;
    d12__dred_ensure_frozen(device);
    if (!d12__dred_frozen(device))
        return;
    pthread_mutex_lock(&dred->complete_lock);
    if (!dred->completed) {
        dred->completed = true;
        d12__dred_output_complete(device, dred->output);
    }
    pthread_mutex_unlock(&dred->complete_lock);
}

void d12__dred_complete(struct d12_device *device)
{
    complete_once(device);
}

void d12__dred_finish(struct d12_device *device)
{
    complete_once(device);
}

/* ---- Submissions ---- */

void d12__dred_release_submissions(d12_dred_submission *chain)
{
    while (chain) {
        d12_dred_submission *next = chain->next;
        for (UINT i = 0; i < chain->count; i++)
            d12__command_list_owner_ops.unref(chain->lists[i]);
        free(chain);
        chain = next;
    }
}

/* Unlink the submissions known complete (the queue's completion mark covers them) and, past the cap, the oldest.
 * Called with track_lock held; the caller releases what comes back without it. */
static d12_dred_submission *take_retired(struct d12_dred *dred)
{
    d12_dred_submission *retired = NULL, **retired_tail = &retired;
    for (d12_dred_submission **link = &dred->submissions; *link;) {
        d12_dred_submission *s = *link;
        bool complete = s->serial != 0 && atomic_load_explicit(&s->queue->completed, memory_order_acquire) >= s->serial;
        bool over_cap = dred->tracked > D12_DRED_MAX_TRACKED && link == &dred->submissions;
        if (complete || over_cap) {
            *link = s->next;
            s->next = NULL;
            *retired_tail = s;
            retired_tail = &s->next;
            dred->tracked--;
        } else {
            link = &s->next;
        }
    }
    dred->submissions_tail = &dred->submissions;
    while (*dred->submissions_tail)
        dred->submissions_tail = &(*dred->submissions_tail)->next;
    return retired;
}

bool d12__dred_reset_since(d12_dred_submission *s, UINT i)
{
    const d12_dred_list *l = s->lists[i]->dred;
    return l && atomic_load_explicit(&l->generation, memory_order_relaxed) != d12__dred_submission_generations(s)[i];
}

d12_dred_submission *d12__dred_submit_begin(struct d12_command_queue *queue, UINT count,
                                            struct d12_command_list *const *lists)
{
    struct d12_dred *dred = queue->device_child.device->dred;
    if (dred == NULL || !dred->track_submissions || d12__dred_frozen(queue->device_child.device))
        return NULL;
    d12_dred_submission *s = malloc(sizeof *s + count * (sizeof s->lists[0] + sizeof(uint32_t)));
    if (s == NULL)
        return NULL; /* out of memory: this submission will not be named by a removal */
    *s = (d12_dred_submission){queue, 0, NULL, atomic_load_explicit(&dred->free_seq, memory_order_relaxed), count};
    for (UINT i = 0; i < count; i++) {
        s->lists[i] = lists[i];
        d12__dred_submission_generations(s)[i] =
            lists[i]->dred ? atomic_load_explicit(&lists[i]->dred->generation, memory_order_relaxed) : 0;
        d12__command_list_owner_ops.ref(lists[i]);
    }
    pthread_mutex_lock(&dred->track_lock);
    d12_dred_submission *retired = take_retired(dred);
    *dred->submissions_tail = s;
    dred->submissions_tail = &s->next;
    dred->tracked++;
    pthread_mutex_unlock(&dred->track_lock);
    d12__dred_release_submissions(retired);
    return s;
}

void d12__dred_submit_end(struct d12_command_queue *queue, d12_dred_submission *submission, uint64_t serial)
{
    struct d12_dred *dred = queue->device_child.device->dred;
    if (dred && dred->events) { /* the timeline's "after submission #41" (issue 32 item 7): one leaf lock per call */
        pthread_mutex_lock(&dred->ledger_lock);
        atomic_store_explicit(&dred->last_serial, serial, memory_order_relaxed);
        dred->last_queue = queue;
        pthread_mutex_unlock(&dred->ledger_lock);
    }
    if (submission == NULL)
        return;
    pthread_mutex_lock(&dred->track_lock);
    submission->serial = serial;
    pthread_mutex_unlock(&dred->track_lock);
}

void d12__dred_queue_destroyed(struct d12_command_queue *queue)
{
    struct d12_dred *dred = queue->device_child.device->dred;
    if (dred == NULL)
        return;
    d12_dred_submission *dropped = NULL, **tail = &dropped;
    pthread_mutex_lock(&dred->track_lock);
    for (d12_dred_submission **link = &dred->submissions; *link;) {
        d12_dred_submission *s = *link;
        if (s->queue == queue) {
            *link = s->next;
            s->next = NULL;
            *tail = s;
            tail = &s->next;
            dred->tracked--;
        } else {
            link = &s->next;
        }
    }
    dred->submissions_tail = &dred->submissions;
    while (*dred->submissions_tail)
        dred->submissions_tail = &(*dred->submissions_tail)->next;
    pthread_mutex_unlock(&dred->track_lock);
    d12__dred_release_submissions(dropped);
}

/* ---- Names ---- */

static void *private_data_copy(d12_object_data *data, const GUID *guid, UINT extra, UINT *size_out)
{
    UINT size = 0;
    if (d12__object_get_private_data(data, guid, &size, NULL) != S_OK || size == 0)
        return NULL;
    unsigned char *copy = calloc(1, (size_t)size + extra);
    if (copy == NULL)
        return NULL;
    UINT got = size;
    if (d12__object_get_private_data(data, guid, &got, copy) != S_OK) {
        free(copy);
        return NULL;
    }
    *size_out = got;
    return copy;
}

void d12__dred_object_names(d12_object_data *data, char **name_a, wchar_t **name_w)
{
    UINT size = 0;
    /* A: "WKPDID_D3DDebugObjectName private data"; the bytes as given, NUL-terminated here. */
    *name_a = private_data_copy(data, &WKPDID_D3DDebugObjectName, 1, &size);
    /* W: what SetName stores (the string with its terminator); a terminator is added in case it lacks one. */
    *name_w = private_data_copy(data, &WKPDID_D3DDebugObjectNameW, 2 * sizeof(wchar_t), &size); /* room for a whole terminator after a partial character */
}
