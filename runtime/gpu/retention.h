/* Retention of submitted recordings (retention.c), queue.c's helpers: what ExecuteCommandLists holds on its lists'
 * recordings while correlation is on, and what a queue's destruction does with them. d12__queues_mark_retirement and
 * d12__queues_retire (queue.h, the flush engine's side) live in retention.c too. */
#ifndef D12_RETENTION_H
#define D12_RETENTION_H

#include "correlation.h"

struct d12_command_queue;
struct d12_command_list;
struct d12_device;
struct d12_submission;

/* A new queue's empty retention (no records; the first compaction after COMPACT_MIN unmarked records). */
void d12__retention_init(struct d12_command_queue *queue);
/* The recordings of `lists` a submission would hold (those that can still resolve an index), into `held`. */
UINT d12__retention_holdable(UINT count, struct d12_command_list *const *lists, d12_recording **held);
/* Count the submission (its serial, under the queue lock) and retain `held`; *dropped: records a compaction took
 * out, for d12__retention_drop once the lock is released. */
uint64_t d12__retention_record(struct d12_command_queue *queue, UINT holds, d12_recording *const *held,
                               struct d12_submission **dropped);
/* Release the holds of `dropped` (no lock held: the last reference may destroy a list) and keep the records. */
void d12__retention_drop(struct d12_command_queue *queue, struct d12_submission *dropped);
/* A destroyed queue's records become the device's orphans. Called with the children lock and queue->lock held. */
void d12__retention_orphan(struct d12_device *device, struct d12_command_queue *queue);
/* After a queue's destruction flush: the orphans nothing can be delivering any more go. No lock held. */
void d12__retention_release_idle_orphans(struct d12_device *device);
/* The queue's own records and spares, freed with their holds (the queue is going). No lock held. */
void d12__retention_free(struct d12_command_queue *queue);

#endif
