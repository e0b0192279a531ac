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

typedef struct d12_flush {
    _Atomic uint64_t completions; /* bumped each time a queue's completion mark moves */
    _Atomic uint64_t flushed;     /* the `completions` value the last completed-work flush was made for */
    atomic_bool removal_flushed;  /* the removal flush was made (or claimed by a thread making it) */
} d12_flush;

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
