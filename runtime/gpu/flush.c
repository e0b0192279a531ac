/* The flush engine (flush.h). */
#include <sched.h>

#include "device.h"
#include "dred/dred.h"
#include "flush.h"
#include "queue.h"

/* The flush this thread is making, if any: a report from inside it may reach an application callback that calls
 * ExecuteCommandLists, which must not flush again. */
static _Thread_local bool flushing;

void d12__flush_init(d12_flush *flush)
{
    atomic_init(&flush->completions, 0);
    atomic_init(&flush->flushed, 0);
    atomic_init(&flush->removal_flushed, false);
    atomic_init(&flush->removal_done, false);
    flush->begun = 0;
    flush->in_flight = NULL;
    flush->orphans = NULL;
}

void d12__flush_note_completion(struct d12_device *device)
{
    atomic_fetch_add_explicit(&device->flush.completions, 1, memory_order_release);
}

/* "no nested flush from inside an application callback", nor from inside a flush. */
static bool may_flush_now(struct d12_device *device)
{
    return d12__drm_enabled(&device->drm) && !flushing && !d12__info_queue_in_callback();
}

/* A removed device gets one flush more, the removal flush, and no other: "Any messages that become available only
 * after this flush call are not surfaced through this feature." */
static bool may_flush(struct d12_device *device)
{
    return may_flush_now(device) && !d12__device_is_removed(device);
}

static void call_driver_flush(struct d12_device *device)
{
    flushing = true;
    /* No runtime lock is held here: "The runtime releases its internal locks before invoking the flush DDI
     * precisely so the driver can call pfnReportMessageCb from inside it." */
    device->drm.funcs.pfnFlushDriverReportedMessages(d12__driver_device_handle(device->driver));
    flushing = false;
}

void d12__flush_pass_begin(d12_flush *flush, d12_flush_pass *pass)
{
    pass->number = ++flush->begun;
    pass->next = flush->in_flight;
    flush->in_flight = pass;
}

uint64_t d12__flush_pass_end(d12_flush *flush, d12_flush_pass *pass, uint64_t *begun_by_now)
{
    *begun_by_now = flush->begun;
    uint64_t oldest = flush->begun + 1;
    for (d12_flush_pass **link = &flush->in_flight; *link;) {
        if (*link == pass) {
            *link = pass->next;
            continue;
        }
        if ((*link)->number < oldest)
            oldest = (*link)->number;
        link = &(*link)->next;
    }
    return oldest - 1;
}

/* Flush, then release the submissions every queue had completed when the flush began: "the runtime references the
 * command list's state table at ExecuteCommandLists time and releases it only once that submission's messages have
 * been processed". Flushes may overlap on several application threads, and a driver's flush delivers whatever it
 * holds when it is called, so any flush begun before this one returned may be delivering a message of a submission
 * this one marked: such a submission goes once every one of those has returned too (docs/locking.md, "Flush
 * engine"). */
static void flush_and_retire(struct d12_device *device)
{
    d12_flush_pass pass;
    d12__queues_mark_retirement(device, &pass);
    call_driver_flush(device);
    d12__queues_retire(device, &pass);
}

void d12__flush_completed(struct d12_device *device)
{
    uint64_t seen = atomic_load_explicit(&device->flush.completions, memory_order_acquire);
    uint64_t done = atomic_load_explicit(&device->flush.flushed, memory_order_relaxed);
    if (seen == done || !may_flush(device))
        return;
    /* One thread flushes for what it saw; another that lost the race has its completions covered by this flush
     * or finds them on its next call ("The runtime guarantees nothing about how many flushes ... produces"). */
    if (!atomic_compare_exchange_strong(&device->flush.flushed, &done, seen))
        return;
    flush_and_retire(device);
}

void d12__flush_now(struct d12_device *device)
{
    if (may_flush(device))
        flush_and_retire(device);
}

void d12__flush_on_removal(struct d12_device *device)
{
    if (!may_flush_now(device))
        return;
    /* "invoked at most once per device, and only after a removal has been detected", however many threads race */
    if (atomic_exchange(&device->flush.removal_flushed, true)) {
        /* Another thread is making it: this one surfaces the removal only once the dump it rewrites is in place
         * (issue 19 item 6), so an application that exits right after seeing the removal leaves no temporary file.
         * Not from inside the flush or a callback (may_flush_now), so never a wait for this thread itself. */
        while (!atomic_load_explicit(&device->flush.removal_done, memory_order_acquire))
            sched_yield();
        return;
    }
    call_driver_flush(device);
    d12__dred_complete(device); /* BRIEF section 3: "once the driver-reported-messages removal flush has returned" */
    atomic_store_explicit(&device->flush.removal_done, true, memory_order_release);
}
