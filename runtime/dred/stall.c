/* ID3D12Device5::RemoveDevice and the opt-in stall detector (issue 19 item 5, docs/dred.md "Deadlocks").
 *
 * RemoveDevice removes the device as any removal does (reason DXGI_ERROR_DEVICE_REMOVED, DRED state UNKNOWN: it was
 * no GPU fault), with `removed_by` in the report, and makes the removal flush at once (the application asked for the
 * removal, so it is surfaced to it now).
 *
 * D12RT_STALL_MS=N (1 to 3 600 000, latched at D3D12CreateDevice, only with D12RT_DRED_DUMP set): a thread per device
 * samples every queue every N/4 ms (at least 1, at most 250); when nothing moved anywhere on the device -- no
 * completion mark, no OP_BEGIN, no breadcrumb counter of a tracked submission, no fence operation passed back -- for
 * N ms while some queue holds a fence operation it has not passed back (a GPU Wait, or a Signal behind one), it writes
 * one report, D12RT_DRED_DUMP/d12rt-stall-<pid>-<n>.json (the removal report's schema, `kind` "stall"), and waits for
 * progress before it reports again. The device is not removed: a deadlock is the application's bug, and Windows does
 * not TDR on a wait either (docs/dred-gpu.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"
#include "dred_internal.h"
#include "flush.h"
#include "list.h"
#include "lockrank.h"
#include "queue.h"

struct d12_dred_stall {
    struct d12_device *device;
    unsigned stall_ms, tick_ms;
    pthread_t thread;
    pthread_mutex_t lock; /* leaf: `stop` and `wake` */
    pthread_cond_t wake;
    bool stop;
};

void d12_device_RemoveDevice(struct d12_device *self)
{
    d12_fault_info fault = {.reason = DXGI_ERROR_DEVICE_REMOVED, .state = D3D12_DRED_DEVICE_STATE_UNKNOWN,
                            .op_index = D12_DRED_OP_INDEX_UNKNOWN,
                            .removed_by = "removed by the application (ID3D12Device5::RemoveDevice)"};
    d12__device_remove_fault(self, &fault, "the application called ID3D12Device5::RemoveDevice");
    d12__flush_on_removal(self); /* "the removal flush": the application is the one that asked */
}

/* D12RT_STALL_MS: 0 (off) unless a whole number of milliseconds from 1 to an hour; anything else one line. */
static unsigned stall_ms_from_environment(void)
{
    const char *text = getenv("D12RT_STALL_MS");
    if (!text || !*text)
        return 0;
    unsigned long long value = 0;
    const char *c = text;
    for (; *c >= '0' && *c <= '9' && value <= 3600000ull; c++)
        value = value * 10 + (unsigned)(*c - '0');
    if (*c || value == 0 || value > 3600000ull) {
        fprintf(stderr, "d12rt: D12RT_STALL_MS=%s is not a whole number of milliseconds from 1 to 3600000; the stall "
                        "detector stays off\n", text);
        return 0;
    }
    const char *dump = getenv("D12RT_DRED_DUMP");
    if (!dump || !*dump) {
        fprintf(stderr, "d12rt: D12RT_STALL_MS is set but D12RT_DRED_DUMP is not: stall reports have nowhere to go; the "
                        "stall detector stays off\n");
        return 0;
    }
    return (unsigned)value;
}

static void count_operation(void *context, bool wait, struct d12_fence *fence, UINT64 value, uint64_t serial)
{
    (void)wait, (void)fence, (void)value, (void)serial;
    ++*(uint64_t *)context;
}

/* What moved on the device (a sum that changes whenever anything progresses) and whether work is pending: a queue
 * holds a fence operation its timeline has not passed back. */
static uint64_t progress_signature(struct d12_device *device, bool *pending)
{
    struct d12_dred *dred = device->dred;
    uint64_t signature = 0;
    *pending = false;
    d12__lock(&device->children_lock, D12_RANK_CHILDREN);
    for (struct d12_command_queue *queue = device->queues; queue; queue = queue->next) {
        signature += atomic_load_explicit(&queue->completed, memory_order_acquire) * 0x9E3779B97F4A7C15ull;
        signature += atomic_load_explicit(&queue->tdr.began_ns, memory_order_acquire);
        uint64_t operations = 0;
        d12__queue_for_each_operation(queue, count_operation, &operations);
        signature += operations * 0x100000001B3ull;
        *pending = *pending || operations > 0;
    }
    d12__unlock(&device->children_lock, D12_RANK_CHILDREN);
    pthread_mutex_lock(&dred->track_lock);
    for (d12_dred_submission *s = dred->submissions; s; s = s->next)
        for (UINT i = 0; i < s->count; i++) {
            d12_dred_list *l = s->lists[i]->dred;
            if (l && l->write_immediate)
                signature += __atomic_load_n(l->counter.cpu, __ATOMIC_ACQUIRE);
        }
    pthread_mutex_unlock(&dred->track_lock);
    return signature;
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Wait one tick; true when the detector is to stop. */
static bool wait_tick(struct d12_dred_stall *stall)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += stall->tick_ms / 1000u;
    until.tv_nsec += (long)(stall->tick_ms % 1000u) * 1000000l;
    if (until.tv_nsec >= 1000000000l) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000l;
    }
    pthread_mutex_lock(&stall->lock);
    while (!stall->stop && pthread_cond_timedwait(&stall->wake, &stall->lock, &until) != ETIMEDOUT) {
    }
    bool stop = stall->stop;
    pthread_mutex_unlock(&stall->lock);
    return stop;
}

static void *stall_thread(void *arg)
{
    struct d12_dred_stall *stall = arg;
    struct d12_device *device = stall->device;
    bool pending = false, reported = false;
    uint64_t last = progress_signature(device, &pending), since = now_ms();
    while (!wait_tick(stall)) {
        if (d12__device_removal_claimed(device))
            break; /* a removal writes its own report */
        uint64_t signature = progress_signature(device, &pending);
        uint64_t now = now_ms();
        if (signature != last || !pending) {
            last = signature;
            since = now;
            reported = false; /* progress: the next stall is a new one */
            continue;
        }
        if (!reported && now - since >= stall->stall_ms) {
            reported = true;
            d12__dred_write_stall_report(device, (unsigned)(now - since));
        }
    }
    return NULL;
}

void d12__dred_stall_start(struct d12_device *device)
{
    struct d12_dred *dred = device->dred;
    unsigned ms = dred ? stall_ms_from_environment() : 0;
    if (ms == 0)
        return;
    struct d12_dred_stall *stall = calloc(1, sizeof *stall);
    if (!stall)
        return;
    stall->device = device;
    stall->stall_ms = ms;
    stall->tick_ms = ms / 4 ? (ms / 4 < 250 ? ms / 4 : 250) : 1;
    pthread_mutex_init(&stall->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&stall->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&stall->thread, NULL, stall_thread, stall) != 0) {
        fprintf(stderr, "d12rt: D12RT_STALL_MS: cannot start the stall detector: %s\n", strerror(errno));
        pthread_mutex_destroy(&stall->lock);
        pthread_cond_destroy(&stall->wake);
        free(stall);
        return;
    }
    dred->stall = stall;
}

void d12__dred_stall_stop(struct d12_device *device)
{
    struct d12_dred_stall *stall = device->dred ? device->dred->stall : NULL;
    if (!stall)
        return;
    pthread_mutex_lock(&stall->lock);
    stall->stop = true;
    pthread_cond_signal(&stall->wake);
    pthread_mutex_unlock(&stall->lock);
    pthread_join(stall->thread, NULL);
    pthread_mutex_destroy(&stall->lock);
    pthread_cond_destroy(&stall->wake);
    free(stall);
    device->dred->stall = NULL;
}
