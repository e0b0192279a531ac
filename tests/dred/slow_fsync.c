/* LD_PRELOAD for dred.dump_write_timeout: fsync of a D12RT_DRED_DUMP temporary file (".d12dred-...tmp") sleeps a
 * minute, as a write to a hung network folder would; every other fsync is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int fsync(int fd)
{
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) {
        target[n] = '\0';
        if (strstr(target, "/.d12dred-"))
            sleep(60);
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
}
