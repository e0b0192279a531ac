/* D12RT_DRED_DUMP files written with a deadline (dump.h, docs/dred.md "The dump is written before the removal is
 * seen"). The removing thread serialises the report in memory and hands the bytes to a writer thread; it waits for
 * the file to be renamed into place at most D12_DRED_DUMP_TIMEOUT_MS, so a folder on a hung filesystem costs the
 * application a few seconds and one message, never the removal itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "d12dred_report.h"
#include "dump.h"

/* The order of the writes of one file (a removal's report is written at freeze and may be rewritten at stage 2):
 * an older write that finishes late never replaces a newer one. Shared by the report and its writer threads. */
struct d12_dred_dump_order {
    pthread_mutex_t lock;
    _Atomic unsigned refs;
    uint64_t issued;  /* generations handed out (under lock) */
    uint64_t renamed; /* the newest generation renamed into place (under lock) */
};

d12_dred_dump_order *d12__dred_dump_order_new(void)
{
    d12_dred_dump_order *order = calloc(1, sizeof *order);
    if (order) {
        pthread_mutex_init(&order->lock, NULL);
        atomic_init(&order->refs, 1);
    }
    return order;
}

void d12__dred_dump_order_release(d12_dred_dump_order *order)
{
    if (order && atomic_fetch_sub(&order->refs, 1) == 1) {
        pthread_mutex_destroy(&order->lock);
        free(order);
    }
}

typedef struct dump_job {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done, abandoned;     /* under lock: the writer finished / the waiter gave up (the writer then frees) */
    int rc, error;
    char *dir, *path;
    char *data;
    size_t length;
    d12_dred_dump_order *order; /* a reference, or NULL */
    uint64_t generation;
} dump_job;

static void job_free(dump_job *job)
{
    pthread_mutex_destroy(&job->lock);
    pthread_cond_destroy(&job->cond);
    free(job->dir);
    free(job->path);
    free(job->data);
    d12__dred_dump_order_release(job->order);
    free(job);
}

/* Issue 29: under RLIMIT_FSIZE a write past the limit raises SIGXFSZ, whose default action killed the application
 * (and left the temporary file). The signal is blocked on the writing thread for the write, so write(2) fails with
 * EFBIG instead and the file-writing code removes its temporary file. The SIGXFSZ that write raised is thread-directed
 * and now pending on this thread: it is taken back with sigtimedwait before the mask is restored, so nothing is left
 * for the application; one pending before (the application's own, when this runs on its thread because no writer
 * thread could be started) is left alone. The application's handler and disposition are never touched. */
static int write_without_sigxfsz(dump_job *job)
{
    sigset_t xfsz, saved, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &saved);
    bool pending_before = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
    int rc = d12dred_mkdir_parents(job->dir);
    if (rc == 0)
        rc = job->order ? d12dred_write_file_ordered(job->path, job->data, job->length, &job->order->lock,
                                                     &job->order->renamed, job->generation)
                        : d12dred_write_file_atomic(job->path, job->data, job->length);
    int error = errno;
    if (!pending_before && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
        const struct timespec now = {0, 0};
        while (sigtimedwait(&xfsz, NULL, &now) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    errno = error;
    return rc;
}

static void *writer(void *arg)
{
    dump_job *job = arg;
    int rc = write_without_sigxfsz(job);
    int error = rc ? errno : 0;
    pthread_mutex_lock(&job->lock);
    job->done = true;
    job->rc = rc;
    job->error = error;
    bool abandoned = job->abandoned;
    pthread_cond_signal(&job->cond);
    pthread_mutex_unlock(&job->lock);
    if (abandoned)
        job_free(job);
    return NULL;
}

int d12__dred_dump_write(const char *dir, const char *path, char *data, size_t length, unsigned timeout_ms,
                         d12_dred_dump_order *order)
{
    dump_job *job = calloc(1, sizeof *job);
    if (job == NULL || (job->dir = strdup(dir)) == NULL || (job->path = strdup(path)) == NULL) {
        if (job) {
            free(job->dir);
            free(job);
        }
        free(data);
        fprintf(stderr, "d12rt: D12RT_DRED_DUMP: cannot write %s: out of memory\n", path);
        return -1;
    }
    job->data = data;
    job->length = length;
    if (order) {
        atomic_fetch_add(&order->refs, 1);
        job->order = order;
        pthread_mutex_lock(&order->lock);
        job->generation = ++order->issued;
        pthread_mutex_unlock(&order->lock);
    }
    pthread_mutex_init(&job->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&job->cond, &attr);
    pthread_condattr_destroy(&attr);

    pthread_t thread;
    pthread_attr_t thread_attr;
    pthread_attr_init(&thread_attr);
    pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
    int started = pthread_create(&thread, &thread_attr, writer, job);
    pthread_attr_destroy(&thread_attr);
    if (started != 0) { /* no thread to spare: write on this one, without the deadline */
        writer(job);
    }

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000u;
    deadline.tv_nsec += (long)(timeout_ms % 1000u) * 1000000l;
    if (deadline.tv_nsec >= 1000000000l) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000l;
    }
    pthread_mutex_lock(&job->lock);
    while (!job->done) {
        if ((timeout_ms == 0 || pthread_cond_timedwait(&job->cond, &job->lock, &deadline) == ETIMEDOUT) &&
            !job->done) {
            job->abandoned = true;
            pthread_mutex_unlock(&job->lock);
            if (timeout_ms == 0)
                return 1; /* not waited for, on purpose: it lands in order when it can */
            fprintf(stderr,
                    "d12rt: D12RT_DRED_DUMP: writing %s did not finish within %u ms; gave up (the removal is "
                    "reported without it)\n",
                    path, timeout_ms);
            return 1;
        }
    }
    int rc = job->rc, error = job->error;
    pthread_mutex_unlock(&job->lock);
    if (rc != 0 && timeout_ms != 0 && error == EFBIG) /* timeout 0: a rewrite; the first write said what went wrong */
        fprintf(stderr, "d12rt: D12RT_DRED_DUMP: cannot write %s: it would exceed the process's file size limit "
                        "(RLIMIT_FSIZE); nothing was left behind\n", path);
    else if (rc != 0 && timeout_ms != 0)
        fprintf(stderr, "d12rt: D12RT_DRED_DUMP: cannot write %s: %s\n", path, strerror(error));
    job_free(job);
    return rc;
}
