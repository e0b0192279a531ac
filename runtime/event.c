/* Held application events (event.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kcmp.h>

#include "event.h"
#include "lockrank.h"

struct d12_event {
    int fd;          /* the runtime's duplicate (close-on-exec) */
    bool has_id;     /* fdinfo gave the eventfd-id */
    uint64_t id;     /* the eventfd-id: unique among live eventfds, and this one lives while held */
    unsigned refs;   /* g_lock */
    struct d12_event *next; /* g_events (g_lock) */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct d12_event *g_events; /* held events, one per distinct eventfd */

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
    pid_t self = getpid();
    return syscall(SYS_kcmp, self, self, KCMP_FILE, held->fd, fd) == 0;
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
    event->has_id = info->has_id;
    event->id = info->id;
    event->refs = 1;
    return event;
}

HRESULT d12__event_acquire(HANDLE handle, d12_event **out, d12_event_problem *problem)
{
    *out = NULL;
    *problem = D12_EVENT_OK;
    intptr_t value = (intptr_t)handle;
    if (value < 0 || value > INT32_MAX || fcntl((int)value, F_GETFD) < 0) {
        *problem = D12_EVENT_NOT_OPEN;
        return E_INVALIDARG;
    }
    int fd = (int)value;
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
        event->refs++;
    } else if ((event = hold_new(fd, &info))) {
        event->next = g_events;
        g_events = event;
    }
    d12__unlock(&g_lock, D12_RANK_EVENTS);
    *out = event;
    return event ? S_OK : E_OUTOFMEMORY;
}

void d12__event_signal(d12_event *event)
{
    uint64_t one = 1;
    ssize_t written;
    do {
        written = write(event->fd, &one, sizeof one);
    } while (written < 0 && errno == EINTR);
}

void d12__event_release(d12_event *event)
{
    if (!event)
        return;
    d12__lock(&g_lock, D12_RANK_EVENTS);
    bool last = --event->refs == 0;
    if (last) {
        for (struct d12_event **link = &g_events; *link; link = &(*link)->next) {
            if (*link == event) {
                *link = event->next;
                break;
            }
        }
    }
    d12__unlock(&g_lock, D12_RANK_EVENTS);
    if (last) {
        close(event->fd);
        free(event);
    }
}
