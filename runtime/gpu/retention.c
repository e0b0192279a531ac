/* Retention of submitted recordings (retention.h): the records ExecuteCommandLists keeps on its lists' recordings
 * while correlation is on, and their retirement across flushes, for live queues and for a destroyed queue's orphans.
 * Split from queue.c along the data's path: a submission's recordings are held here when it is counted and released
 * here once every flush that may deliver its findings has returned. */
#include <stdlib.h>
#include <string.h>

#include "correlation.h"
#include "device.h"
#include "flush.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"
#include "retention.h"

/* Recordings a retention record holds without a second allocation. */
#define SUBMISSION_INLINE 4
/* Retained submissions a queue keeps before its first compaction (and at least between two). */
#define COMPACT_MIN 64u

/* A retention record: the references one ExecuteCommandLists call (or a run of consecutive calls submitting the same
 * recordings) holds on its lists' recordings, only while correlation is on and only on recordings that can still
 * resolve an index. Records are reused through the queue's `spare` list (docs/performance.md, "ExecuteCommandLists"). */
struct d12_submission {
    uint64_t serial;        /* queue lock: the last ExecuteCommandLists it covers */
    uint64_t flush;         /* queue lock: the flush that marked it for retirement; 0: none yet */
    uint64_t release_after; /* queue lock: once that flush returned, the last flush begun by then; 0: not yet */
    struct d12_submission *next;
    struct d12_command_queue *queue; /* whose `spare` list it returns to (while that queue is the device's) */
    UINT count;
    d12_recording **recordings; /* inline_recordings, or an array of its own for more than SUBMISSION_INLINE */
    d12_recording *inline_recordings[SUBMISSION_INLINE];
};

/* ---- Retention of the submitted recordings ----
 *
 * "The runtime references the command list's state table at ExecuteCommandLists time and releases it only once that
 * submission's messages have been processed." Four things keep that cheap and bounded (docs/performance.md,
 * "Bounded retention"):
 *   - a hold is taken only on a recording that can still resolve an index (d12__recording_resolvable): one whose
 *     blocks were all evicted (or that took none) could never annotate a message;
 *   - consecutive submissions of the same recordings share one record (its serial moves on): resubmitting a list
 *     costs no record and no reference;
 *   - records come from the queue's spare list, under the queue lock d12__retention_record holds anyway, and go back
 *     to it when retired; and when unmarked records pile up (no Signal is ever reached), a compaction drops every
 *     record whose holds are all useless (evicted, or held by a later record of the queue, which is never released
 *     earlier), so a queue keeps at most about twice as many records as the device has live recordings. */

/* The recordings of `lists` a submission would hold (those that can still resolve an index), into `held`. */
UINT d12__retention_holdable(UINT count, struct d12_command_list *const *lists, d12_recording **held)
{
    UINT holds = 0;
    for (UINT i = 0; i < count; i++) {
        d12_recording *recording = d12__recorder_recording(&lists[i]->recorder);
        if (recording && d12__recording_resolvable(recording))
            held[holds++] = recording;
    }
    return holds;
}

/* Whether `s` holds exactly `held`. Called with queue->lock held. */
static bool same_recordings(const struct d12_submission *s, UINT holds, d12_recording *const *held)
{
    if (s->count != holds)
        return false;
    for (UINT i = 0; i < holds; i++)
        if (s->recordings[i] != held[i])
            return false;
    return true;
}

/* A record from the spare list (or a new one) referencing `held`; NULL when memory ran out (the submission then
 * simply is not annotated). Called with queue->lock held: it only takes atomic references, no lock. */
static struct d12_submission *new_submission(struct d12_command_queue *queue, UINT holds, d12_recording *const *held)
{
    struct d12_submission *s = queue->spare;
    if (s)
        queue->spare = s->next;
    else if (!(s = malloc(sizeof *s)))
        return NULL;
    s->recordings = s->inline_recordings;
    if (holds > SUBMISSION_INLINE && !(s->recordings = malloc(holds * sizeof *s->recordings))) {
        s->recordings = s->inline_recordings;
        s->next = queue->spare;
        queue->spare = s;
        return NULL;
    }
    s->flush = 0;
    s->release_after = 0;
    s->next = NULL;
    s->queue = queue;
    s->count = holds;
    for (UINT i = 0; i < holds; i++) {
        d12__recording_ref(held[i]);
        s->recordings[i] = held[i];
    }
    return s;
}

/* Drop the holds of a chain of records taken out of their queue (retired, compacted or abandoned). No lock held:
 * the last reference on a recording may destroy its command list (and call the driver). */
static void release_holds(struct d12_submission *chain)
{
    for (struct d12_submission *s = chain; s; s = s->next)
        for (UINT i = 0; i < s->count; i++)
            d12__recording_unref(s->recordings[i]);
}

/* Back to the inline array, freeing an array of its own (a record that held more than SUBMISSION_INLINE). */
static void drop_recordings_array(struct d12_submission *s)
{
    if (s->recordings != s->inline_recordings)
        free(s->recordings);
    s->recordings = s->inline_recordings;
}

static void free_submission(struct d12_submission *s)
{
    drop_recordings_array(s);
    free(s);
}

/* Put a chain of released records on `queue`'s spare list. Called with queue->lock held. */
static void keep_spares(struct d12_command_queue *queue, struct d12_submission *chain)
{
    while (chain) {
        struct d12_submission *s = chain;
        chain = s->next;
        drop_recordings_array(s);
        s->count = 0;
        s->next = queue->spare;
        queue->spare = s;
    }
}

/* Open addressing over recording pointers (compaction only). */
static bool seen_insert(d12_recording **set, size_t mask, d12_recording *recording)
{
    size_t i = ((uintptr_t)recording >> 4) * 0x9E3779B97F4A7C15ull & mask;
    while (set[i] && set[i] != recording)
        i = (i + 1) & mask;
    bool fresh = set[i] == NULL;
    set[i] = recording;
    return fresh;
}

/* Bounded retention: drop the unmarked records whose every hold is useless — the recording can no longer resolve an
 * index, or a later record of this queue holds it too (records are marked and released in list order, so the later
 * one keeps it at least as long). Afterwards every unmarked record holds a resolvable recording no later record
 * holds, so they are at most as many as the device's recordings with a live block. Returns the dropped chain
 * (release_holds then keep_spares, after the lock). Called with queue->lock held. */
static struct d12_submission *compact(struct d12_command_queue *queue)
{
    uint32_t n = 0;
    size_t holds = 0;
    for (struct d12_submission *s = queue->unmarked; s; s = s->next, n++)
        holds += s->count;
    size_t size = 16;
    while (size < 2 * holds)
        size *= 2;
    /* The records newest first, then the set of recordings seen: one allocation per compaction. NULL (out of
     * memory): only the records whose recordings are all unresolvable are dropped. */
    void **memory = calloc(n + size, sizeof *memory);
    struct d12_submission **order = (struct d12_submission **)memory;
    d12_recording **seen = memory ? (d12_recording **)(memory + n) : NULL;
    uint32_t i = n;
    for (struct d12_submission *s = queue->unmarked; s && memory; s = s->next)
        order[--i] = s;
    /* Newest first: a record is kept when one of its recordings resolves and no newer record holds it. */
    for (uint32_t k = 0; memory && k < n; k++) {
        struct d12_submission *s = order[k];
        bool keep = false;
        for (UINT h = 0; h < s->count; h++)
            keep |= seen_insert(seen, size - 1, s->recordings[h]) && d12__recording_resolvable(s->recordings[h]);
        s->release_after = keep ? 0 : UINT64_MAX; /* a drop mark, cleared below: unmarked records have 0 */
    }
    struct d12_submission *dropped = NULL, **dropped_tail = &dropped;
    struct d12_submission **link = &queue->submissions, *newest = NULL;
    while (*link != queue->unmarked) {
        newest = *link;
        link = &(*link)->next;
    }
    queue->unmarked = NULL;
    uint32_t kept = 0;
    while (*link) {
        struct d12_submission *s = *link;
        bool drop = memory ? s->release_after == UINT64_MAX : true;
        for (UINT h = 0; !memory && h < s->count; h++)
            drop &= !d12__recording_resolvable(s->recordings[h]);
        s->release_after = 0;
        if (drop) {
            *link = s->next;
            s->next = NULL;
            *dropped_tail = s;
            dropped_tail = &s->next;
            continue;
        }
        if (!queue->unmarked)
            queue->unmarked = s;
        kept++;
        newest = s;
        link = &s->next;
    }
    free(memory);
    queue->submissions_tail = link;
    queue->newest = newest;
    queue->unmarked_count = kept;
    queue->compact_at = kept * 2 > COMPACT_MIN ? kept * 2 : COMPACT_MIN;
    return dropped;
}

/* Count the submission (its serial) and retain its recordings: the newest record's serial moves on when it holds the
 * same recordings and no flush marked it yet, else a new record is linked. Returns the serial; *dropped, the records
 * a compaction took out (to release after the lock). */
uint64_t d12__retention_record(struct d12_command_queue *queue, UINT holds, d12_recording *const *held,
                               struct d12_submission **dropped)
{
    *dropped = NULL;
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    uint64_t serial = ++queue->submitted;
    if (holds) {
        struct d12_submission *newest = queue->newest;
        if (newest && newest->flush == 0 && same_recordings(newest, holds, held)) {
            newest->serial = serial;
        } else {
            struct d12_submission *s = new_submission(queue, holds, held);
            if (s) {
                s->serial = serial;
                *queue->submissions_tail = s;
                queue->submissions_tail = &s->next;
                queue->newest = s;
                if (!queue->unmarked)
                    queue->unmarked = s;
                if (++queue->unmarked_count >= queue->compact_at)
                    *dropped = compact(queue);
            }
        }
    }
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
    return serial;
}

/* ---- Retention across flushes ---- */

/* Mark with `flush` the submissions completed so far that no flush marked yet (the list is in serial order). Called
 * with queue->lock held. */
static void mark_completed(struct d12_command_queue *queue, uint64_t flush)
{
    uint64_t completed = atomic_load(&queue->completed);
    while (queue->unmarked && queue->unmarked->serial <= completed) {
        queue->unmarked->flush = flush;
        queue->unmarked = queue->unmarked->next;
        queue->unmarked_count--;
    }
}

void d12__queues_mark_retirement(struct d12_device *device, struct d12_flush_pass *pass)
{
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    d12__flush_pass_begin(&device->flush, pass); /* under the lock: numbers follow the order of the marks */
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        d12__lock(&queue->lock, D12_RANK_QUEUE);
        mark_completed(queue, pass->number);
        d12__unlock(&queue->lock, D12_RANK_QUEUE);
    }
    /* A destroyed queue's work has all run (its driver queue drained before it went): every record is complete. */
    for (struct d12_submission *s = device->flush.orphans; s; s = s->next)
        if (s->flush == 0)
            s->flush = pass->number;
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

/* Flush `flush` returned when flush `begun` was the last one begun: note that on what it marked (the marked
 * submissions are the list's head, in the order of their marks). Called with queue->lock held. */
static void note_returned(struct d12_command_queue *queue, uint64_t flush, uint64_t begun)
{
    for (struct d12_submission *s = queue->submissions; s && s->flush != 0; s = s->next) {
        if (s->flush == flush)
            s->release_after = begun;
    }
}

/* Detach, from the head, the submissions whose flush returned and every flush begun by then too (all up to
 * `returned` have), appending them to *tail. Called with queue->lock held. */
static struct d12_submission **detach_released(struct d12_command_queue *queue, uint64_t returned,
                                               struct d12_submission **tail)
{
    while (queue->submissions && queue->submissions->release_after != 0 &&
           queue->submissions->release_after <= returned) {
        struct d12_submission *submission = queue->submissions;
        queue->submissions = submission->next;
        submission->next = NULL;
        *tail = submission;
        tail = &submission->next;
    }
    if (!queue->submissions) {
        queue->submissions_tail = &queue->submissions;
        queue->newest = NULL;
    }
    return tail;
}

/* Give retired records back to their queues' spare lists. A queue may have been destroyed since they were detached
 * (its final Release racing this flush): one no longer in the device's list has freed its spares, so its records
 * are freed here. The children lock keeps a listed queue from going meanwhile. */
static void recycle(struct d12_device *device, struct d12_submission *chain)
{
    if (!chain)
        return;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    while (chain) {
        /* The chain is detached queue by queue: one run of records per queue. */
        struct d12_submission *run = chain, **end = &chain->next;
        while (*end && (*end)->queue == run->queue)
            end = &(*end)->next;
        chain = *end;
        *end = NULL;
        struct d12_command_queue *queue = device->queues;
        while (queue && queue != run->queue)
            queue = queue->next;
        if (!queue) {
            for (struct d12_submission *next; run; run = next) {
                next = run->next;
                free_submission(run);
            }
            continue;
        }
        d12__lock(&queue->lock, D12_RANK_QUEUE);
        keep_spares(queue, run);
        d12__unlock(&queue->lock, D12_RANK_QUEUE);
    }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
}

/* Issue 17 item 1: a queue's final Release used to drop its retention records as soon as its own flush returned,
 * but a flush begun earlier on another thread may hold that queue's findings and still be delivering them (the
 * driver's flush hands over whatever it holds when called; the application's callbacks make a delivery slow): the
 * recording was freed under it and the finding arrived bare. The destroyed queue's records become the device's
 * orphans instead, retired by the same rule as any queue's: once the flush that marked them and every flush begun by
 * the time it returned have returned. With no flush in progress at all nothing can be delivering them. Called with
 * the children lock held. */
static struct d12_submission **detach_orphans(d12_flush *flush, uint64_t pass, uint64_t begun, uint64_t returned,
                                              struct d12_submission **tail)
{
    bool idle = flush->in_flight == NULL;
    for (struct d12_submission **link = &flush->orphans; *link;) {
        struct d12_submission *s = *link;
        if (s->flush != 0 && s->flush == pass)
            s->release_after = begun;
        if (idle || (s->release_after != 0 && s->release_after <= returned)) {
            *link = s->next;
            s->next = NULL;
            *tail = s;
            tail = &s->next;
        } else {
            link = &s->next;
        }
    }
    return tail;
}

/* After a queue's destruction flush (or none, when none may be made now): the orphans nothing can be delivering any
 * more go. */
void d12__retention_release_idle_orphans(struct d12_device *device)
{
    struct d12_submission *released = NULL;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    if (device->flush.in_flight == NULL)
        detach_orphans(&device->flush, 0, 0, 0, &released);
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    release_holds(released);
    recycle(device, released);
}

void d12__queues_retire(struct d12_device *device, struct d12_flush_pass *pass)
{
    struct d12_submission *retired = NULL, **tail = &retired;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    uint64_t begun;
    uint64_t returned = d12__flush_pass_end(&device->flush, pass, &begun);
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        d12__lock(&queue->lock, D12_RANK_QUEUE);
        note_returned(queue, pass->number, begun);
        tail = detach_released(queue, returned, tail);
        d12__unlock(&queue->lock, D12_RANK_QUEUE);
    }
    tail = detach_orphans(&device->flush, pass->number, begun, returned, tail);
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    release_holds(retired); /* may destroy command lists (and call the driver): no lock held */
    recycle(device, retired);
}

void d12__retention_init(struct d12_command_queue *queue)
{
    queue->submissions_tail = &queue->submissions;
    queue->compact_at = COMPACT_MIN;
}

void d12__retention_drop(struct d12_command_queue *queue, struct d12_submission *dropped)
{
    if (!dropped)
        return;
    release_holds(dropped);
    d12__lock(&queue->lock, D12_RANK_QUEUE);
    keep_spares(queue, dropped);
    d12__unlock(&queue->lock, D12_RANK_QUEUE);
}

void d12__retention_orphan(struct d12_device *device, struct d12_command_queue *queue)
{
    if (!queue->submissions)
        return;
    for (struct d12_submission *s = queue->submissions; s; s = s->next)
        s->queue = NULL; /* recycle() frees them */
    *queue->submissions_tail = device->flush.orphans;
    device->flush.orphans = queue->submissions;
    queue->submissions = NULL;
    queue->submissions_tail = &queue->submissions;
    queue->unmarked = queue->newest = NULL;
    queue->unmarked_count = 0;
}

void d12__retention_free(struct d12_command_queue *queue)
{
    release_holds(queue->submissions);
    for (struct d12_submission *s = queue->submissions, *next; s; s = next) {
        next = s->next;
        free_submission(s);
    }
    for (struct d12_submission *s = queue->spare, *next; s; s = next) {
        next = s->next;
        free_submission(s);
    }
    queue->submissions = NULL;
    queue->submissions_tail = &queue->submissions;
    queue->unmarked = queue->newest = queue->spare = NULL;
    queue->unmarked_count = 0;
}
