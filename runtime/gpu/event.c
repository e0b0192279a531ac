/* Held application events (event.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kcmp.h>

#include "event.h"
#include "lockrank.h"

struct d12_event {
    int fd;          /* the runtime's duplicate (close-on-exec) */
    int vouched;     /* an epoll instance holding (this file, number) for each number it was acquired through, or -1 */
    int number;      /* the application's descriptor it was last acquired through (g_lock) */
    bool has_id;     /* fdinfo gave the eventfd-id */
    uint64_t id;     /* the eventfd-id: unique among live eventfds, and this one lives while held */
    unsigned refs;   /* registrations (g_lock); 0: parked */
    uint64_t parked_at; /* g_tick when parked (g_lock): the oldest parked one goes first */
    struct d12_event *next; /* g_events (g_lock) */
};

/* Everything below: g_lock. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct d12_event *g_events; /* held and parked events, one per distinct eventfd */
static unsigned g_parked;          /* events in g_events with no registration */
static uint64_t g_tick;
/* Descriptor number -> the event last acquired through it (direct-mapped; a hint, checked with kcmp). */
static struct {
    int number;
    struct d12_event *event;
} g_recent[D12_EVENT_RECENT_SLOTS];
typedef enum { KCMP_UNTRIED, KCMP_WORKS, KCMP_MISSING } kcmp_state;
static kcmp_state g_kcmp = KCMP_UNTRIED;
static pid_t g_pid; /* getpid(), which glibc does not cache; 0 again in a forked child */

static void forked_child(void)
{
    g_pid = 0;
}

static pid_t self_pid(void)
{
    if (g_pid == 0) {
        static bool watching_fork;
        if (!watching_fork)
            watching_fork = pthread_atfork(NULL, NULL, forked_child) == 0;
        g_pid = getpid();
    }
    return g_pid;
}

/* kcmp(KCMP_FILE) of two of our descriptors (g_lock held): 0 same open file, 1 different (or `b` is not open), -1
 * kcmp is unavailable (no CONFIG_KCMP, or a seccomp filter): the cache is then off for good. */
static int compare_files(int a, int b)
{
    if (g_kcmp == KCMP_MISSING)
        return -1;
    pid_t self = self_pid();
    long result = syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
    if (result < 0 && errno != EBADF) {
        g_kcmp = KCMP_MISSING;
        return -1;
    }
    g_kcmp = KCMP_WORKS;
    return result == 0 ? 0 : 1;
}

/* The one-syscall identity check (issue 17 item 4). An epoll item is keyed by (open file, descriptor number), and
 * EPOLL_CTL_MOD finds one only when `number` names that very file now. Each held event has its own epoll instance
 * and adds to it only (its own file, a number just proved to name it): so MOD(number) succeeding is proof that the
 * number still names the event's file, as kcmp equal is, at about a third of kcmp's cost (kcmp takes both tasks'
 * exec locks and looks both descriptors up; MOD one mutex and one tree lookup). Items of numbers that moved on never
 * match another file, and go with the instance when the event is discarded. Without epoll: kcmp. */
static void vouch(struct d12_event *event, int number)
{
    if (event->vouched < 0)
        event->vouched = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event interest = {0, {0}};
    if (event->vouched >= 0 && epoll_ctl(event->vouched, EPOLL_CTL_ADD, number, &interest) != 0 && errno != EEXIST) {
        close(event->vouched); /* cannot vouch for this number: kcmp decides for this event from now on */
        event->vouched = -1;
    }
}

/* 0: `number` names the event's file now; 1: it does not (or is not open); -1: no way to tell (kcmp missing). */
static int still_names(struct d12_event *event, int number)
{
    if (event->vouched < 0)
        return compare_files(event->fd, number);
    struct epoll_event interest = {0, {0}};
    return epoll_ctl(event->vouched, EPOLL_CTL_MOD, number, &interest) == 0 ? 0 : 1;
}

/* What /proc/self/fdinfo/<fd> says: whether it is an eventfd ("eventfd-count:") and its "eventfd-id:" if listed. */
typedef struct {
    bool readable, is_eventfd, has_id;
    uint64_t id;
} fdinfo;

static fdinfo read_fdinfo(int fd)
{
    fdinfo info = {false, false, false, 0};
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *file = fopen(path, "re");
    if (!file)
        return info;
    info.readable = true;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "eventfd-count:", 14) == 0)
            info.is_eventfd = true;
        else if (sscanf(line, "eventfd-id: %" SCNu64, &info.id) == 1)
            info.has_id = true;
    }
    fclose(file);
    return info;
}

/* Whether `fd` is the same open file as `held`'s duplicate: by eventfd-id, else by kcmp (false when it fails). */
static bool same_event(const struct d12_event *held, int fd, const fdinfo *info)
{
    if (info->has_id && held->has_id)
        return held->id == info->id;
    return compare_files(held->fd, fd) == 0;
}

/* A new held event for `fd` (its duplicate taken), or NULL (out of memory or descriptors). */
static struct d12_event *hold_new(int fd, const fdinfo *info)
{
    struct d12_event *event = malloc(sizeof *event);
    if (!event)
        return NULL;
    event->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (event->fd < 0) {
        free(event);
        return NULL;
    }
    event->vouched = -1;
    event->number = fd;
    event->has_id = info->has_id;
    event->id = info->id;
    event->refs = 1;
    event->parked_at = 0;
    return event;
}

static void remember(struct d12_event *event, int number)
{
    size_t i = (unsigned)number % D12_EVENT_RECENT_SLOTS;
    g_recent[i].number = number;
    g_recent[i].event = event;
    event->number = number;
}

static void take_reference(struct d12_event *event)
{
    if (event->refs++ == 0)
        g_parked--;
}

/* Unlink `event` from the table and the cache; the caller closes and frees it (outside the lock). */
static void forget(struct d12_event *event)
{
    for (struct d12_event **link = &g_events; *link; link = &(*link)->next) {
        if (*link == event) {
            *link = event->next;
            break;
        }
    }
    for (size_t i = 0; i < D12_EVENT_RECENT_SLOTS; i++) {
        if (g_recent[i].event == event)
            g_recent[i].event = NULL;
    }
    if (event->refs == 0)
        g_parked--;
}

static void discard(struct d12_event *event)
{
    if (event->vouched >= 0)
        close(event->vouched);
    close(event->fd);
    free(event);
}

/* The fast path: `number` is the descriptor an event was last acquired through and still the same open file (one
 * kcmp; the duplicate we hold keeps that file alive, so no other file can compare equal to it). Then that is an
 * eventfd without asking fdinfo. A parked event whose number now names something else (closed, or reused by another
 * file) is closed here: the application has let go of it. */
static struct d12_event *acquire_recent(int number, struct d12_event **stale)
{
    *stale = NULL;
    size_t slot = (unsigned)number % D12_EVENT_RECENT_SLOTS;
    struct d12_event *event = g_recent[slot].event;
    if (!event || g_recent[slot].number != number || event->number != number)
        return NULL;
    int same = still_names(event, number);
    if (same == 0) {
        take_reference(event);
        return event;
    }
    if (same > 0 && event->refs == 0) {
        forget(event);
        *stale = event;
    }
    return NULL;
}

/* The slow path: fdinfo says whether `fd` is an eventfd, and which one. */
static HRESULT acquire_checked(int fd, d12_event **out, d12_event_problem *problem)
{
    if (fcntl(fd, F_GETFD) < 0) {
        *problem = D12_EVENT_NOT_OPEN;
        return E_INVALIDARG;
    }
    fdinfo info = read_fdinfo(fd);
    if (!info.readable || !info.is_eventfd) {
        *problem = D12_EVENT_NOT_EVENTFD;
        return E_INVALIDARG;
    }
    d12__lock(&g_lock, D12_RANK_EVENTS);
    struct d12_event *event = g_events;
    while (event && !same_event(event, fd, &info))
        event = event->next;
    if (event) {
        take_reference(event);
    } else if ((event = hold_new(fd, &info))) {
        event->next = g_events;
        g_events = event;
    }
    if (event) {
        remember(event, fd);
        vouch(event, fd); /* the next registration through `fd` is one epoll_ctl */
    }
    d12__unlock(&g_lock, D12_RANK_EVENTS);
    *out = event;
    return event ? S_OK : E_OUTOFMEMORY;
}

HRESULT d12__event_acquire(HANDLE handle, d12_event **out, d12_event_problem *problem)
{
    *out = NULL;
    *problem = D12_EVENT_OK;
    intptr_t value = (intptr_t)handle;
    if (value < 0 || value > INT32_MAX) {
        *problem = D12_EVENT_NOT_OPEN;
        return E_INVALIDARG;
    }
    int fd = (int)value;
    struct d12_event *stale;
    d12__lock(&g_lock, D12_RANK_EVENTS);
    struct d12_event *event = acquire_recent(fd, &stale);
    d12__unlock(&g_lock, D12_RANK_EVENTS);
    if (stale)
        discard(stale);
    if (event) {
        *out = event;
        return S_OK;
    }
    return acquire_checked(fd, out, problem);
}

void d12__event_signal(d12_event *event)
{
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(event->fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
}

/* The parked event that has waited longest. */
static struct d12_event *oldest_parked(void)
{
    struct d12_event *oldest = NULL;
    for (struct d12_event *event = g_events; event; event = event->next) {
        if (event->refs == 0 && (!oldest || event->parked_at < oldest->parked_at))
            oldest = event;
    }
    return oldest;
}

void d12__event_release(d12_event *event)
{
    if (!event)
        return;
    struct d12_event *closing = NULL;
    d12__lock(&g_lock, D12_RANK_EVENTS);
    if (--event->refs == 0) {
        /* Park it, with no system call on the signal's path (issue 17 item 4: a check here, even one F_GETFD, cost
         * as much as the whole identity check of the registration): the next registration through its number costs
         * one epoll_ctl. Whether the number still names this file is decided then (a parked event whose number names
         * something else is closed there); a parked duplicate is never written, whatever the number names. At most
         * D12_EVENT_PARKED_MAX are parked: the oldest goes. */
        g_parked++;
        event->parked_at = ++g_tick;
        if (g_parked > D12_EVENT_PARKED_MAX) {
            closing = oldest_parked();
            forget(closing);
        }
    }
    d12__unlock(&g_lock, D12_RANK_EVENTS);
    if (closing)
        discard(closing);
}
