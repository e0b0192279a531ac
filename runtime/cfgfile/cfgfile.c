/* Opening a file a setting names, safely (cfgfile.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgfile.h"

static void say(char *why, size_t why_size, const char *what, int err)
{
    if (why_size)
        snprintf(why, why_size, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
}

/* Reads at most max_bytes + 1 bytes, so an oversized file is noticed without reading it all. */
static unsigned char *read_capped(int fd, size_t max_bytes, size_t *size, int *err)
{
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap > max_bytes)
                break;
            unsigned char *b = realloc(buf, cap * 2 + 1);
            if (!b) {
                free(buf);
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = errno;
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (buf)
        buf[n] = 0;
    *size = n;
    return buf;
}

d12_cfgfile_status d12_cfgfile_read(const char *path, size_t max_bytes, const char *max_text, unsigned char **bytes,
                                    size_t *size, char *why, size_t why_size)
{
    *bytes = NULL;
    *size = 0;
    say(why, why_size, "", 0);
    /* O_NONBLOCK: opening a FIFO returns at once (a blocking open waits for a writer for ever); O_NOCTTY: a terminal
     * never becomes ours. Only a regular file is then read, so /dev/zero or a FIFO is never read at all. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT)
        return D12_CFGFILE_ABSENT;
    if (fd < 0) {
        say(why, why_size, "cannot open", errno);
        return D12_CFGFILE_UNREADABLE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        say(why, why_size, "cannot read", errno);
        close(fd);
        return D12_CFGFILE_UNREADABLE;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        say(why, why_size, "not a regular file", 0);
        return D12_CFGFILE_UNREADABLE;
    }
    int err = ENOMEM;
    unsigned char *buf = read_capped(fd, max_bytes, size, &err);
    close(fd);
    if (!buf && err == ENOMEM)
        return D12_CFGFILE_NO_MEMORY;
    if (!buf) {
        say(why, why_size, "cannot read", err);
        return D12_CFGFILE_UNREADABLE;
    }
    if (*size > max_bytes) {
        free(buf);
        *size = 0;
        char what[64];
        snprintf(what, sizeof what, "larger than %s", max_text);
        say(why, why_size, what, 0);
        return D12_CFGFILE_UNREADABLE;
    }
    *bytes = buf;
    return D12_CFGFILE_OK;
}

int d12_cfgfile_open_append(const char *path, char *why, size_t why_size)
{
    /* O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of blocking the open for ever. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
    if (fd < 0) {
        say(why, why_size, errno == ENXIO ? "a FIFO with no reader" : "cannot open", errno == ENXIO ? 0 : errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        say(why, why_size, "not a regular file", 0);
        close(fd);
        return -1;
    }
    /* A regular file: writes never block, and the writers expect whole writes. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}
