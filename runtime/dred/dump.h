/* Writing a D12RT_DRED_DUMP file with a deadline (dump.c): used by the report (report.c) for removal reports and by
 * the stall detector (stall.c). Calls no other part of the runtime and holds no runtime lock. */
#ifndef D12_DRED_DUMP_H
#define D12_DRED_DUMP_H

#include <stddef.h>

/* "a write that cannot finish within a few seconds gives up with one message and the removal is surfaced anyway" */
#define D12_DRED_DUMP_TIMEOUT_MS 5000u

/* Create DIR with its parents and write PATH (in DIR) atomically from `data` (malloc'ed; ownership passes here),
 * waiting at most `timeout_ms`. 0: the file is complete and in place. -1: it could not be written (one line on
 * stderr). 1: not within the deadline (one line on stderr; the write may still finish later on its own thread). */
typedef struct d12_dred_dump_order d12_dred_dump_order;
d12_dred_dump_order *d12__dred_dump_order_new(void);
void d12__dred_dump_order_release(d12_dred_dump_order *order);
/* `order` (may be NULL): the writes of one file, so that a late older write never replaces a newer one.
 * `timeout_ms` 0: do not wait at all, say nothing (a rewrite after an earlier write timed out). */
int d12__dred_dump_write(const char *dir, const char *path, char *data, size_t length, unsigned timeout_ms,
                         d12_dred_dump_order *order);

#endif
