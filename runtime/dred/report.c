/* d12rt's own removal report (BRIEF §4, runtime/dred/report/): filled from the runtime's state at d12__dred_freeze,
 * completed at stage 2 with the driver's messages of the removal flush, and written once per removal into
 * D12RT_DRED_DUMP (docs/dred.md). The Windows structs stay exactly Windows-shaped; everything beyond them is here. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "d12_dred_names.h"
#include "d12dred_report.h"
#include "device.h"
#include "debug.h"
#include "dred_internal.h"
#include "dump.h"
#include "fence.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"
#include "resource.h"

struct d12_dred_report_state {
    d12dred_report *report;
    UINT64 messages_at_freeze;  /* InfoQueue messages stored + discarded when the removal was frozen */
    char *dump_dir;             /* D12RT_DRED_DUMP, latched at freeze */
    char *dump_path;            /* the removal's file, named at its first write */
    struct d12_dred_dump_order *dump_order; /* its writes, in order (dump.c) */
    bool dump_written, dump_failed, dump_timed_out;
    struct d12_dred_bundle_pick *bundle_picks; /* report_nodes.c: the attributed bundles' draws, for stage 2 */
};

static const char *hresult_name(HRESULT hr)
{
    switch ((ULONG)hr) {
    case 0x887A0006u: return "DXGI_ERROR_DEVICE_HUNG";
    case 0x887A0005u: return "DXGI_ERROR_DEVICE_REMOVED";
    case 0x887A0007u: return "DXGI_ERROR_DEVICE_RESET";
    case 0x887A0020u: return "DXGI_ERROR_DRIVER_INTERNAL_ERROR";
    case 0x887A0001u: return "DXGI_ERROR_INVALID_CALL";
    case 0x8007000Eu: return "E_OUTOFMEMORY";
    default: return NULL;
    }
}

static char *object_name(d12_object_data *data)
{
    bool out_of_memory;
    return d12__object_name_dup(data, &out_of_memory);
}

/* ---- Header ---- */

static void fill_header(struct d12_device *device, d12dred_report *r)
{
    struct d12_dred *dred = device->dred;
    d12dred_report_set_reason(r, (int32_t)dred->reason, hresult_name(dred->reason));
    d12dred_report_set_device_state(r, (uint32_t)dred->fault.state);
    d12dred_features f = {dred->enabled.auto_breadcrumbs, dred->enabled.breadcrumb_context, dred->enabled.markers_only,
                          dred->enabled.page_fault, dred->enabled.watson_dump};
    d12dred_report_set_features(r, &f);
    d12dred_report_set_runtime_version(r, "d12rt " D12RT_VERSION_STRING);
    d12dred_report_set_timestamp_seconds(r, (int64_t)time(NULL));
    char exe[256] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *slash = strrchr(exe, '/');
    d12dred_report_set_process(r, slash ? slash + 1 : exe, (uint32_t)getpid());
    if (device->driver) /* NULL: the driver removed the device from inside its own creation */
        d12dred_report_set_driver(r, d12__driver_adapter_name(d12__driver_device_adapter(device->driver)));
    /* The delay the watchdog ran with (latched and range-checked at creation), not the variable's text again. */
    d12dred_report_set_tdr_delay_ms(r, device->tdr_delay_ms);
    if (dred->fault.removed_by)
        d12dred_report_set_removed_by(r, dred->fault.removed_by);
    /* Issue 19 item 8: a setting changed since D3D12CreateDevice affects later devices only (docs/dred.md). */
    d12_debug_settings now = d12__debug_settings(), *then = &dred->settings_at_creation;
    if (now.auto_breadcrumbs != then->auto_breadcrumbs || now.page_fault != then->page_fault ||
        now.breadcrumb_context != then->breadcrumb_context || now.watson_dump != then->watson_dump ||
        now.markers_only_breadcrumbs != then->markers_only_breadcrumbs)
        d12dred_report_add_note(r, "DRED settings changed after the device was created are ignored: DRED settings are "
                                   "latched at device creation (D3D12CreateDevice)");
}

/* ---- Queues ---- */

/* The queue's fence operations not passed back, in order: pending Waits (satisfied ones too, as the GPU has not
 * passed them yet) and queued Signals, each with the fence's raw value (the one before removal forced what the
 * application reads to UINT64_MAX). A Signal queued after an unsatisfied Wait is behind it. */
typedef struct operation_visit {
    struct d12_device *device;
    d12dred_report *report;
    d12dred_queue *queue;
    int32_t last_unsatisfied; /* index in queue->waits of the last unsatisfied wait visited, or -1 */
    d12_dred_fence_set *fences; /* the fences named, held: their histories are read after the queue lock goes */
} operation_visit;

static void add_operation(void *context, bool wait, struct d12_fence *fence, UINT64 value, uint64_t serial)
{
    operation_visit *v = context;
    char *name = object_name(&fence->device_child.object);
    UINT64 at = atomic_load_explicit(&fence->value, memory_order_acquire);
    d12dred_wait *added = NULL;
    if (wait) {
        if (d12dred_queue_add_wait(v->queue, name, value, at) == 0) {
            added = &v->queue->waits[v->queue->wait_count - 1];
            added->after_submission = serial;
            if (at < value)
                v->last_unsatisfied = (int32_t)(v->queue->wait_count - 1);
        }
    } else if (d12dred_queue_add_signal(v->queue, name, value, at, serial, v->last_unsatisfied) == 0) {
        added = &v->queue->signals[v->queue->signal_count - 1];
    }
    if (added) { /* the fence by identity (issue 29), with its history (issue 32 item 3) */
        added->has_fence_id = true;
        added->fence_id = d12__dred_fence_id(fence);
        d12__dred_fence_set_add(v->fences, fence); /* its lock is never taken under a queue's (docs/locking.md) */
    }
    free(name);
}

/* The first unsatisfied pending Wait queued before submission `serial` (the GPU reaches the submission only after
 * it), or NULL. */
static const d12dred_wait *wait_before(const d12dred_queue *q, uint64_t serial)
{
    for (size_t i = 0; i < q->wait_count; i++)
        if (q->waits[i].fence_value < q->waits[i].value && q->waits[i].after_submission < serial)
            return &q->waits[i];
    return NULL;
}

/* Whether the GPU reported something of list `i` of `s` having run: its counter moved, the driver named one of its
 * ops in the fault, or its queue's timeline reported an op of it as begun (OP_BEGIN, still current). */
static bool list_started(struct d12_dred *dred, d12_dred_submission *s, UINT i)
{
    struct d12_command_list *list = s->lists[i];
    d12_dred_list *l = list->dred;
    if (l && l->write_immediate && !d12__dred_reset_since(s, i) && __atomic_load_n(l->counter.cpu, __ATOMIC_ACQUIRE) > 0)
        return true;
    if (dred->fault.list == list && dred->fault.op_index != D12_DRED_OP_INDEX_UNKNOWN)
        return true;
    return atomic_load_explicit(&s->queue->tdr.began_ns, memory_order_acquire) != 0 &&
           atomic_load_explicit(&s->queue->tdr.list, memory_order_relaxed) == (void *)list;
}

/* A submission's status from what the GPU reported: completed when its queue's completion mark covers it or every
 * list's counter reached its count; in progress when one of its lists has started (list_started); not started
 * otherwise -- behind a pending GPU Wait, `waiting` is that wait. A driver that reports no progress (before DDI
 * 0127: no counter, no OP_BEGIN) gives no evidence, so there the first unfinished submission is taken as in
 * progress, as before. */
static d12dred_submission_status submission_status(struct d12_dred *dred, d12_dred_submission *s, bool *earlier_open,
                                                   const d12dred_queue *q, const d12dred_wait **waiting)
{
    *waiting = NULL;
    bool covered = s->serial != 0 && atomic_load(&s->queue->completed) >= s->serial;
    bool all_done = true, started = false;
    for (UINT i = 0; i < s->count; i++) {
        d12_dred_list *l = s->lists[i]->dred;
        UINT32 v = l && l->write_immediate ? __atomic_load_n(l->counter.cpu, __ATOMIC_ACQUIRE) : 0;
        /* A list reset since: its count is the new recording's (and the application's thread's to write). */
        all_done = all_done && l && l->write_immediate && !d12__dred_reset_since(s, i) && v == l->count;
        started = started || list_started(dred, s, i);
    }
    if (covered || (all_done && s->count > 0))
        return D12DRED_SUBMISSION_COMPLETED;
    bool first = !*earlier_open;
    *earlier_open = true;
    if (started)
        return D12DRED_SUBMISSION_IN_PROGRESS;
    *waiting = wait_before(q, s->serial);
    if (*waiting == NULL && first && dred->write_immediate == NULL)
        return D12DRED_SUBMISSION_IN_PROGRESS; /* no progress reporting: the old count-based guess */
    return D12DRED_SUBMISSION_NOT_STARTED;
}

/* Issue 32 item 2: a list Reset while its submission was in flight is legal (D3D12 lets it be re-recorded at once),
 * but its executed ops are then gone from DRED (docs/dred.md, "Lists reset"): the report says so beside the node. */
static void note_reset_in_flight(d12dred_report *r, d12_dred_submission *s, UINT i, const char *queue,
                                 const char *list)
{
    d12_dred_list *l = s->lists[i]->dred;
    if (!d12__dred_reset_since(s, i) || !l)
        return;
    char *note = NULL;
    if (asprintf(&note, "list %s%s%s on queue '%s', submission #%llu: the list was reset (recording generation %u "
                        "\xe2\x86\x92 %u) while this submission was in flight: its ops are no longer known",
                 list ? "'" : "", list ? list : "(unnamed)", list ? "'" : "", queue ? queue : "?",
                 (unsigned long long)s->serial, (unsigned)d12__dred_submission_generations(s)[i],
                 (unsigned)atomic_load_explicit(&l->generation, memory_order_relaxed)) >= 0)
        d12dred_report_add_note(r, note);
    free(note);
}

/* An allocator Reset while this submission was in flight (COMMAND_ALLOCATOR_SYNC): the cause a reader looks for. */
static void note_allocator_reset(struct d12_dred *dred, d12dred_report *r, d12_dred_submission *s, const char *queue)
{
    const unsigned slots = sizeof dred->allocator_resets / sizeof dred->allocator_resets[0];
    unsigned kept = dred->allocator_reset_count < slots ? dred->allocator_reset_count : slots;
    for (unsigned k = 0; k < kept; k++) {
        if (dred->allocator_resets[k].queue != (const void *)s->queue || dred->allocator_resets[k].serial != s->serial)
            continue;
        const char *name = dred->allocator_resets[k].allocator;
        char *note = NULL;
        if (asprintf(&note, "cause: command allocator %s%s%s was reset while submission #%llu of queue '%s', recorded "
                            "into it, was in flight (ID3D12CommandAllocator::Reset, COMMAND_ALLOCATOR_SYNC): the GPU "
                            "executed memory the application had handed back",
                     name ? "'" : "", name ? name : "(unnamed)", name ? "'" : "", (unsigned long long)s->serial,
                     queue ? queue : "?") >= 0)
            d12dred_report_add_note(r, note);
        free(note);
    }
}

static int32_t node_index_of(d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *head, struct d12_command_list *list)
{
    int32_t i = 0;
    for (const D3D12_AUTO_BREADCRUMB_NODE1 *n = head; n; n = n->pNext, i++)
        if (n->pCommandList == (const ID3D12GraphicsCommandList *)&list->com.list)
            return i < (int32_t)r->node_count ? i : -1;
    return -1;
}

/* "The submission number is never #?" (issue 19 item 7): a submission the removal caught while the runtime was
 * handing it to the driver has no serial yet; it gets the one it was about to get (the queue's count so far, plus
 * its place among the queue's unnumbered ones). Called before the report reads any serial. */
static void number_pending_submissions(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        d12__lock(&queue->lock, D12_RANK_QUEUE);
        uint64_t next = queue->submitted;
        d12__unlock(&queue->lock, D12_RANK_QUEUE);
        pthread_mutex_lock(&dred->track_lock);
        for (d12_dred_submission *s = dred->submissions; s; s = s->next)
            if (s->queue == queue && s->serial == 0)
                s->serial = ++next;
        pthread_mutex_unlock(&dred->track_lock);
    }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

static void fill_queues(struct d12_device *device, d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *head)
{
    struct d12_dred *dred = device->dred;
    d12_dred_fence_set fences = {0};
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        char *name = object_name(&queue->device_child.object);
        d12dred_queue *q = d12dred_report_add_queue(r, name, (uint32_t)queue->desc.Type);
        free(name);
        if (q == NULL)
            continue;
        d12dred_queue_set_faulted(q, queue == dred->fault.queue);
        operation_visit visit = {device, r, q, -1, &fences};
        d12__queue_for_each_operation(queue, add_operation, &visit);
        pthread_mutex_lock(&dred->track_lock);
        bool earlier_open = false;
        for (d12_dred_submission *s = dred->submissions; s; s = s->next) {
            if (s->queue != queue)
                continue;
            const d12dred_wait *waiting;
            d12dred_submission_status status = submission_status(dred, s, &earlier_open, q, &waiting);
            d12dred_submission *sub = d12dred_queue_add_submission(q, s->serial, status);
            if (sub && waiting)
                d12dred_submission_set_waiting_on(sub, waiting);
            for (UINT i = 0; sub && i < s->count; i++) {
                char *list_name = object_name(&s->lists[i]->device_child.object);
                d12dred_submission_add_list(sub, list_name, node_index_of(r, head, s->lists[i]));
                note_reset_in_flight(r, s, i, q->name, list_name);
                free(list_name);
            }
            note_allocator_reset(dred, r, s, q->name);
        }
        pthread_mutex_unlock(&dred->track_lock);
    }
    d12__dred_fence_set_note(device, r, &fences); /* under the children lock only: the setters' queue names */
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    d12__dred_fence_set_release(&fences);         /* a last hold may unlink a fence: no lock held */
    d12dred_report_find_backwards(r);
    d12dred_report_find_deadlock(r);
}

/* ---- Page fault: matches, verdict, neighbours ---- */

#define D12_DRED_GUARD_GAP 0x10000ull /* the unmapped 64 KiB after every allocation (docs/dred-gpu.md) */

/* Issue 19 item 4: which use-after-free it is, from the release's sequence number and the faulting list's
 * submission (the ledger's free sequence when it was executed): released after the submission began, while it was in
 * flight (defer the release behind a fence), or before it was submitted (a stale list that outlived its resources). */
static void use_after_free_detail(struct d12_dred *dred, d12dred_page_fault *pf, uint64_t release)
{
    const d12_fault_info *fault = &dred->fault;
    uint64_t serial = 0, at_submit = 0;
    pthread_mutex_lock(&dred->track_lock);
    for (d12_dred_submission *s = dred->submissions; s && !serial; s = s->next) {
        if (s->serial != 0 && atomic_load(&s->queue->completed) >= s->serial)
            continue;
        for (UINT i = 0; i < s->count; i++)
            if (fault->list && s->lists[i] == fault->list) {
                serial = s->serial;
                at_submit = s->free_seq;
            }
    }
    pthread_mutex_unlock(&dred->track_lock);
    if (!serial)
        return; /* the submission is not known: the verdict says what is known */
    const char *name = pf->freed_count && pf->freed[0]->name ? pf->freed[0]->name : "the buffer";
    char *detail = NULL;
    int n = release > at_submit
                ? asprintf(&detail, "released while a submission using it was in flight: release #%llu of '%s' came "
                                    "after ExecuteCommandLists of submission #%llu; release it only once a fence "
                                    "signalled after that submission has completed",
                           (unsigned long long)release, name, (unsigned long long)serial)
                : asprintf(&detail, "released before the list was submitted (stale list): release #%llu of '%s' came "
                                    "before submission #%llu, whose list still used it; re-record the list, or keep "
                                    "the buffer alive while the list can be submitted",
                           (unsigned long long)release, name, (unsigned long long)serial);
    if (n >= 0)
        d12dred_page_fault_set_detail(pf, detail);
    free(detail);
}

static void fill_page_fault(struct d12_device *device, d12dred_report *r)
{
    struct d12_dred *dred = device->dred;
    const d12_fault_info *fault = &dred->fault;
    if (!dred->enabled.page_fault || fault->state != D3D12_DRED_DEVICE_STATE_PAGEFAULT)
        return;
    UINT64 va = fault->fault_va;
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, va, fault->fault_flags);
    if (pf == NULL)
        return;
    bool recorded_known = fault->list && fault->list->dred;
    uint64_t recorded = recorded_known ? atomic_load_explicit(&fault->list->dred->closed_seq, memory_order_relaxed) : 0;
    pthread_mutex_lock(&dred->ledger_lock);
    const d12_dred_allocation *below = NULL, *above = NULL;
    for (const d12_dred_allocation *a = dred->live.next; a != &dred->live; a = a->next) {
        if (va >= a->start && va - a->start < a->size) {
            char *name = object_name(&a->resource->device_child.object);
            d12dred_allocation *x = d12dred_page_fault_add_existing(pf, name, D3D12_DRED_ALLOCATION_TYPE_RESOURCE,
                                                                    a->start, a->size);
            if (x)
                x->width = a->width;
            free(name);
        } else if (a->start + a->size <= va) {
            if (!below || a->start + a->size > below->start + below->size)
                below = a;
        } else if (a->start > va) {
            if (!above || a->start < above->start)
                above = a;
        }
    }
    uint64_t kept = dred->freed_total < D12_DRED_FREED_RING ? dred->freed_total : D12_DRED_FREED_RING;
    uint64_t release = 0; /* the newest matching release's sequence number (1-based) */
    for (uint64_t k = 0; k < kept; k++) {
        const d12_dred_freed *f = &dred->freed[(dred->freed_total - 1 - k) % D12_DRED_FREED_RING];
        if (va < f->start || va - f->start >= f->size)
            continue;
        if (release == 0)
            release = f->seq;
        char *name = f->name_w ? d12dred_utf8_from_wide(f->name_w) : f->name_a ? strdup(f->name_a) : NULL;
        /* "released after the list was recorded": freed after the faulting list's Close */
        d12dred_allocation *x = d12dred_page_fault_add_freed(pf, name, f->type, f->start, f->size,
                                                             recorded_known && f->seq > recorded);
        if (x)
            x->width = f->width;
        free(name);
    }
    if (below) {
        char *name = object_name(&below->resource->device_child.object);
        d12dred_allocation *x = d12dred_page_fault_set_below(pf, name, D3D12_DRED_ALLOCATION_TYPE_RESOURCE, below->start,
                                                             below->size, va - (below->start + below->size), false);
        if (x)
            x->width = below->width;
        free(name);
    }
    if (above) {
        char *name = object_name(&above->resource->device_child.object);
        d12dred_allocation *x = d12dred_page_fault_set_above(pf, name, D3D12_DRED_ALLOCATION_TYPE_RESOURCE, above->start,
                                                             above->size, above->start - va, false);
        if (x)
            x->width = above->width;
        free(name);
    }
    d12__dred_heaps_page_fault(dred, pf, va); /* the heaps holding it, and which alias was active (heaps.c) */
    /* The verdict: in a live allocation (none: the fault is not explained by the ledger); in a freed one only
     * (use-after-free); in the guard gap right after a live one (out of bounds); anywhere else (never mapped). */
    d12dred_verdict verdict = pf->existing_count ? D12DRED_VERDICT_NONE
                              : pf->freed_count ? D12DRED_VERDICT_USE_AFTER_FREE
                              : below && va - (below->start + below->size) < D12_DRED_GUARD_GAP
                                  ? D12DRED_VERDICT_OUT_OF_BOUNDS
                                  : D12DRED_VERDICT_NEVER_MAPPED;
    d12dred_page_fault_set_verdict(pf, verdict);
    pthread_mutex_unlock(&dred->ledger_lock);
    if (verdict == D12DRED_VERDICT_USE_AFTER_FREE && release)
        use_after_free_detail(dred, pf, release);
    d12__dred_out_of_bounds_detail(r, pf);
}

/* ---- Stage 1 and 2 ---- */

struct d12_dred_report_state *d12__dred_report_freeze(struct d12_device *device,
                                                      const D3D12_AUTO_BREADCRUMB_NODE1 *breadcrumbs)
{
    struct d12_dred_report_state *state = calloc(1, sizeof *state);
    if (state == NULL || (state->report = d12dred_report_new()) == NULL) {
        free(state);
        return NULL;
    }
    const char *dir = getenv("D12RT_DRED_DUMP");
    state->dump_dir = dir && *dir ? strdup(dir) : NULL;
    if (device->info_queue)
        state->messages_at_freeze = d12_info_queue_GetNumStoredMessages(device->info_queue) +
                                    d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(device->info_queue);
    fill_header(device, state->report);
    number_pending_submissions(device);
    d12__dred_report_fill_nodes(device, state->report, breadcrumbs, &state->bundle_picks);
    fill_queues(device, state->report, breadcrumbs);
    fill_page_fault(device, state->report);
    d12__dred_report_fill_timelines(device, state->report); /* last: the VAs the report names (report_timeline.c) */
    return state;
}

/* The driver's messages of the removal flush: stored in the InfoQueue since the freeze. */
static void attach_flush_messages(struct d12_device *device, struct d12_dred_report_state *state,
                                  const D3D12_AUTO_BREADCRUMB_NODE1 *head)
{
    d12_info_queue *iq = device->info_queue;
    if (iq == NULL)
        return;
    UINT64 discarded = d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(iq);
    UINT64 stored = d12_info_queue_GetNumStoredMessages(iq);
    UINT64 first = state->messages_at_freeze > discarded ? state->messages_at_freeze - discarded : 0;
    for (UINT64 i = first; i < stored; i++) {
        SIZE_T length = 0;
        if (FAILED(d12_info_queue_GetMessage(iq, i, NULL, &length)) || length == 0)
            continue;
        D3D12_MESSAGE *m = malloc(length);
        if (m && d12_info_queue_GetMessage(iq, i, m, &length) == S_OK &&
            m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) {
            d12dred_report_add_flush_message(state->report, (uint32_t)m->ID, (uint32_t)m->Category,
                                             (uint32_t)m->Severity, m->pDescription);
            d12__dred_report_attach_message(state->report, head, state->bundle_picks, m);
        }
        free(m);
    }
}

/* DIR/<prefix>-<pid>-<n>.json with n counted per process (over all its devices: issue 29, a second device's report
 * must not replace the first's) and skipping a name a report (a regular file) already has in DIR: a process of an
 * earlier boot, or of another PID namespace, with the same pid must not lose its report either. malloc'ed, NULL when out of memory. */
static char *unused_path(const char *dir, const char *prefix, _Atomic unsigned *counter)
{
    char path[4096];
    for (int tries = 0; tries < 100000; tries++) {
        snprintf(path, sizeof path, "%s/%s-%u-%u.json", dir, prefix, (unsigned)getpid(), atomic_fetch_add(counter, 1) + 1);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            break; /* no report there (a planted symlink or FIFO is replaced by the rename, never followed) */
    }
    return strdup(path);
}

/* D12RT_DRED_DUMP=DIR: exactly one file per removal, "d12dred-<pid>-<n>.json", written atomically (dump.c). The
 * first write happens at freeze, before the removal is published (d12__dred_report_write_dump); stage 2 replaces
 * the file (same name, same atomic rename) only when the removal flush brought driver messages to attach. */
static void write_dump(struct d12_device *device, struct d12_dred_report_state *state)
{
    static _Atomic unsigned removals;
    if (state->dump_dir == NULL || state->dump_failed)
        return;
    if (state->dump_order == NULL && (state->dump_order = d12__dred_dump_order_new()) == NULL)
        return;
    if (state->dump_path == NULL && (state->dump_path = unused_path(state->dump_dir, "d12dred", &removals)) == NULL)
        return;
    size_t length = 0;
    char *json = d12dred_report_to_json(state->report, &length);
    if (json == NULL) {
        fprintf(stderr, "d12rt: D12RT_DRED_DUMP: cannot write %s: out of memory\n", state->dump_path);
        return;
    }
    /* After a write that timed out, a rewrite (stage 2's messages) is not waited for again: it is queued behind the
     * first in the file's order and lands when the folder answers (one message per removal, one wait). */
    unsigned timeout = state->dump_timed_out ? 0 : D12_DRED_DUMP_TIMEOUT_MS;
    int rc = d12__dred_dump_write(state->dump_dir, state->dump_path, json, length, timeout, state->dump_order);
    if (rc != 0) {
        state->dump_failed = rc < 0;   /* it cannot be written: not tried again */
        state->dump_timed_out = rc > 0; /* late: a rewrite is queued behind it, not waited for */
        return;
    }
    if (!state->dump_written)
        device->dred->dumps_written++;
    state->dump_written = true;
}

void d12__dred_report_write_dump(struct d12_device *device, struct d12_dred_report_state *state)
{
    if (state)
        write_dump(device, state);
}

void d12__dred_report_complete(struct d12_device *device, struct d12_dred_report_state *state)
{
    if (state == NULL)
        return;
    size_t before = state->report->flush_message_count;
    attach_flush_messages(device, state, device->dred->output ? d12__dred_output_breadcrumbs(device->dred->output)
                                                              : NULL);
    if (!state->dump_written || state->report->flush_message_count != before)
        write_dump(device, state);
}

/* D12RT_STALL_MS (stall.c): the report of the device as it is now, `kind` "stall", in its own file. Built by the
 * freeze's code under freeze_lock with a fault of "nothing" (the device is not removed), so it reads the same state
 * the same way; a removal that froze meanwhile wins and no stall report is written. */
void d12__dred_write_stall_report(struct d12_device *device, unsigned stalled_ms)
{
    struct d12_dred *dred = device->dred;
    pthread_mutex_lock(&dred->freeze_lock);
    if (atomic_load_explicit(&dred->frozen, memory_order_relaxed)) {
        pthread_mutex_unlock(&dred->freeze_lock);
        return;
    }
    d12_fault_info saved = dred->fault;
    HRESULT saved_reason = dred->reason;
    dred->fault = (d12_fault_info){.reason = S_OK, .state = D3D12_DRED_DEVICE_STATE_UNKNOWN,
                                   .op_index = D12_DRED_OP_INDEX_UNKNOWN};
    dred->reason = S_OK;
    struct d12_dred_output *output = d12__dred_output_build(device);
    dred->fault = saved;
    dred->reason = saved_reason;
    pthread_mutex_unlock(&dred->freeze_lock);
    struct d12_dred_report_state *state = d12__dred_output_report_state(output);
    if (state && state->dump_dir) {
        static _Atomic unsigned stalls; /* per process, not per device (issue 29) */
        d12dred_report_set_kind(state->report, "stall");
        state->report->stalled_ms = stalled_ms; /* `show`: "stall: no GPU progress for N ms ..." */
        char *path = unused_path(state->dump_dir, "d12rt-stall", &stalls);
        size_t length = 0;
        char *json = path ? d12dred_report_to_json(state->report, &length) : NULL;
        if (json)
            d12__dred_dump_write(state->dump_dir, path, json, length, D12_DRED_DUMP_TIMEOUT_MS, NULL);
        free(path);
    }
    d12__dred_output_free(output);
}

void d12__dred_report_free(struct d12_dred_report_state *state)
{
    if (state == NULL)
        return;
    d12dred_report_free(state->report);
    d12__dred_bundle_picks_free(state->bundle_picks);
    free(state->dump_dir);
    free(state->dump_path);
    d12__dred_dump_order_release(state->dump_order);
    free(state);
}
