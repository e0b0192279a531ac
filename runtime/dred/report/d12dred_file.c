/* Writing a report file safely (docs/dred-report.md, "Writing a file"): the folder is created with its parents, the
 * temporary file is created with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name in the target folder (never a
 * name an attacker who can write there could plant a symlink or a FIFO at), checked to be a regular file, written,
 * fsync'ed and renamed into place, so a reader sees no file or the whole one. */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "d12dred_report.h"

int d12dred_mkdir_parents(const char *dir)
{
    size_t length = strlen(dir);
    if (length == 0) {
        errno = ENOENT;
        return -1;
    }
    char *copy = strdup(dir);
    if (!copy)
        return -1;
    /* Each prefix ending before a '/', then the whole path: an existing component is fine, a file in the way is
     * ENOTDIR from the next mkdir (or from the final check). */
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int saved = errno;
            free(copy);
            errno = saved;
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(copy, 0777);
    int saved = errno;
    free(copy);
    if (rc != 0 && saved != EEXIST) {
        errno = saved;
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* A temporary name nobody can guess in advance: pid, time and an address-space-dependent counter. O_EXCL makes a
 * collision (or a planted entry) a retry, never an open of someone else's file. */
static int open_temporary(int dir_fd, const char *base, char *name, size_t size)
{
    static unsigned long counter;
    for (int attempt = 0; attempt < 64; attempt++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned long mix = (unsigned long)now.tv_nsec ^ ((unsigned long)now.tv_sec << 20) ^
                            (unsigned long)(uintptr_t)&now ^ (__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 2654435761ul);
        snprintf(name, size, ".%s.%lx.%08lx.tmp", base, (long)getpid() & 0xFFFFFFl, mix & 0xFFFFFFFFul);
        int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
        if (fd >= 0) {
            struct stat st;
            if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* O_EXCL makes this impossible; checked anyway */
                close(fd);
                errno = EINVAL;
                return -1;
            }
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

int d12dred_write_file_atomic(const char *path, const void *data, size_t length)
{
    return d12dred_write_file_ordered(path, data, length, NULL, NULL, 0);
}

int d12dred_write_file_ordered(const char *path, const void *data, size_t length, pthread_mutex_t *lock,
                               uint64_t *renamed, uint64_t generation)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    const char *base = slash ? slash + 1 : path;
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int saved = errno;
    free(dir);
    if (dir_fd < 0) {
        errno = saved;
        return -1;
    }
    char name[512];
    int fd = open_temporary(dir_fd, base, name, sizeof name);
    if (fd < 0) {
        saved = errno;
        close(dir_fd);
        errno = saved;
        return -1;
    }
    const char *p = data;
    size_t left = length;
    int ok = 1;
    while (ok && left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = 0;
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    ok = ok && fsync(fd) == 0;
    saved = errno;
    ok = close(fd) == 0 && ok;
    bool superseded = false, locked = ok && lock;
    if (locked)
        pthread_mutex_lock(lock);
    if (locked && *renamed > generation) {
        superseded = true; /* a newer write of this file is in place: this older one must not replace it */
    } else if (ok && renameat(dir_fd, name, dir_fd, base) != 0) {
        saved = errno;
        ok = 0;
    } else if (locked) {
        *renamed = generation;
    }
    if (locked)
        pthread_mutex_unlock(lock);
    if (superseded)
        unlinkat(dir_fd, name, 0);
    if (!ok) {
        saved = saved ? saved : errno;
        unlinkat(dir_fd, name, 0);
    }
    close(dir_fd);
    if (!ok)
        errno = saved;
    return ok ? 0 : -1;
}
