/* The runtime's own references to application events (SetEventOnCompletion's hEvent: an eventfd descriptor cast to
 * HANDLE, the WSL convention). docs/gpu-work.md, "Events".
 *
 * On Windows closing an event handle after registering it is safe: the kernel keeps the event alive. Here the
 * runtime does the same by holding a duplicate descriptor (F_DUPFD_CLOEXEC) of the application's eventfd, so the
 * registration fires on the duplicate and never writes into whatever file later reuses the application's number.
 * Registrations share one duplicate per distinct eventfd (refcounted), so one event registered 10000 times costs one
 * descriptor. An eventfd's identity is its `eventfd-id` in /proc/self/fdinfo (every eventfd shares one anonymous
 * inode, so st_dev/st_ino cannot tell two apart); where fdinfo has no eventfd-id (older kernels), kcmp(KCMP_FILE)
 * against the held duplicates tells whether it is one already held; where neither works, each registration holds
 * its own duplicate.
 *
 * The cost of asking fdinfo (an open, two reads and a close of a procfs file: ~8000 instructions and 9 system calls
 * per registration) is paid once per event, not per registration: the runtime remembers which event each descriptor
 * number was last acquired through (D12_EVENT_RECENT_SLOTS, direct-mapped by number) and a registration through that
 * number again is one epoll_ctl(EPOLL_CTL_MOD) of the number on the event's own epoll instance (issue 17 item 4). An
 * epoll item is keyed by (open file, number) and the instance holds items of the event's own file only, each added
 * right after the number was proved to name it: MOD succeeding is proof that the number names that file now (the
 * held duplicate keeps it alive, so no other file can be it), as kcmp(KCMP_FILE) equal is, at about a fifth of
 * kcmp's cost. Each held event so holds two descriptors (the duplicate and the epoll instance). When the last
 * registration of an event fires or is dropped, the event is PARKED (kept, with no registration) without any check
 * on the signal's path, so the usual "register, wait, register again" loop never asks fdinfo again; a parked event is
 * closed when its number is next seen naming something else, and when more than D12_EVENT_PARKED_MAX are parked (the
 * oldest goes). A parked duplicate is never written (only registrations fire). Cost: at most D12_EVENT_PARKED_MAX
 * parked events, and an eventfd the application closes after its registrations fired lives on until one of those
 * happens. Without an epoll instance an event falls back to kcmp; without kcmp either (a kernel without CONFIG_KCMP,
 * a seccomp filter) nothing is cached and every registration asks fdinfo.
 *
 * What is an eventfd: /proc/self/fdinfo/N lists an `eventfd-count:` line for an eventfd and for nothing else (the
 * kernel's eventfd show_fdinfo); a descriptor that is not open, or whose fdinfo cannot be read, is refused too.
 *
 * Locks: one process-wide mutex (D12_RANK_EVENTS, a leaf) guards the table of held events; a registration's
 * reference is released under a fence's lock. Signalling takes no lock. */
#ifndef D12_EVENT_H
#define D12_EVENT_H

#include <stdint.h>

#include <wsl/winadapter.h>

typedef struct d12_event d12_event;

/* Descriptor numbers remembered for the one-kcmp fast path (direct-mapped by number). */
#define D12_EVENT_RECENT_SLOTS 64
/* Duplicates kept with no registration (parked) at most. */
#define D12_EVENT_PARKED_MAX 4

/* Why an hEvent was refused (for the debug layer's message). */
typedef enum {
    D12_EVENT_OK,
    D12_EVENT_NOT_OPEN,      /* not an open file descriptor */
    D12_EVENT_NOT_EVENTFD,   /* open, but no eventfd (a pipe, a file, a socket, ...) */
} d12_event_problem;

/* A reference to the eventfd `handle` names: S_OK with *out; E_INVALIDARG with *problem when it is no open eventfd;
 * E_OUTOFMEMORY when memory or a descriptor for the duplicate cannot be had. */
HRESULT d12__event_acquire(HANDLE handle, d12_event **out, d12_event_problem *problem);

/* "signal = write(fd, 1)" on the runtime's duplicate. Never blocks (the counter is far below its maximum). */
void d12__event_signal(d12_event *event);

/* Drop a reference; the last parks the event (see above). */
void d12__event_release(d12_event *event);

#endif
