/* The flush engine (docs/locking.md, "Flush engine"): when the runtime calls the driver's
 * pfnFlushDriverReportedMessages, and when it lets go of command-list state that messages may refer to.
 *
 * driver-reported-messages.txt, "Flush and Message Processing": the flush is "always issued on an application
 * thread, from inside an API call the application made" — ExecuteCommandLists and Wait "only for work the runtime
 * has already observed to be complete", queue destruction unconditionally — and device removal adds "one
 * synchronous flush ... at most once per device". It is device-wide, never waits for the GPU, runs with every
 * runtime lock released, and is never made from inside an application's message callback or from inside another
 * flush on the same thread.
 *
 * Completion is observed by polling: each queue's signal callback publishes the queue's completion mark, then bumps
 * `completions` (release); the application's own fence is set after that, so an application that saw its fence
 * reach a value finds `completions` moved on its next ExecuteCommandLists or Wait (acquire). */
#ifndef D12_FLUSH_H
#define D12_FLUSH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct d12_device;
struct d12_submission;

typedef struct d12_flush {
    _Atomic uint64_t completions; /* bumped each time a queue's completion mark moves */
    _Atomic uint64_t flushed;     /* the `completions` value the last completed-work flush was made for */
    atomic_bool removal_flushed;  /* the removal flush was made (or claimed by a thread making it) */
    atomic_bool removal_done;     /* ... and it and DRED's stage 2 (the dump rewritten) returned */
    /* The device's children lock: the retiring flushes (completed-work and queue-destruction flushes) in progress. */
    uint64_t begun;                   /* retiring flushes begun so far: the last one's number */
    struct d12_flush_pass *in_flight; /* those begun and not returned, any order */
    /* The retention records of destroyed queues, kept while a flush in progress may still be delivering a message
     * of their work (queue.c, "Retention across flushes"; docs/drm.md "Correlation under load"). */
    struct d12_submission *orphans;
} d12_flush;

/* One retiring flush in progress (on its thread's stack). */
typedef struct d12_flush_pass {
    uint64_t number; /* in the order the flushes began (marked) */
    struct d12_flush_pass *next;
} d12_flush_pass;

/* With the device's children lock held (queue.c's retirement walk): number `pass` and count it in progress. */
void d12__flush_pass_begin(d12_flush *flush, d12_flush_pass *pass);
/* With the same lock held: `pass` returned. Answers the highest number up to which every flush has returned;
 * *begun_by_now is the number of the last flush begun so far (any of them may be delivering a message of what
 * `pass` marked). */
uint64_t d12__flush_pass_end(d12_flush *flush, d12_flush_pass *pass, uint64_t *begun_by_now);

void d12__flush_init(d12_flush *flush);

/* A queue's completion mark moved (its signal callback, on the driver's timeline thread). */
void d12__flush_note_completion(struct d12_device *device);

/* ExecuteCommandLists and Wait: flush if completed work was observed since the last such flush. The common case
 * (nothing new) is one acquire load and one relaxed load. */
void d12__flush_completed(struct d12_device *device);

/* Queue destruction: flush unconditionally (when the feature is enabled and not nested). */
void d12__flush_now(struct d12_device *device);

/* Device removal was surfaced to the application: the one removal flush, the first time only. */
void d12__flush_on_removal(struct d12_device *device);

#endif
