/* The driver-name rule (docs/drivers.md "Choosing a driver"; issue 18 item 1), in one place for the runtime's loader
 * and the tools that take --driver (d12conform; d12bench passes its value on as D12RT_DRIVER):
 * a value without a '/' names a driver, found as <libdir>/d12rt/libd12rt_<name>.so, then libd12rt_<name>.so beside
 * libd12rt.so, <libdir> being the directory libd12rt.so was loaded from (so a moved install and the build tree work).
 * A value with a '/' is a path. Header-only: the tools link libd12rt.so, whose internals are hidden. */
#ifndef D12_DRIVER_NAME_H
#define D12_DRIVER_NAME_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define D12_DRIVER_NAME_PATH_MAX 4096

static inline bool d12__driver_is_name(const char *value)
{
    return value && value[0] && strchr(value, '/') == NULL;
}

/* The directory of the shared object holding `symbol` (a function of libd12rt.so), into `dir`; "." when dladdr
 * names no directory or fails. */
static inline void d12__driver_library_dir(const void *symbol, char *dir, size_t size)
{
    Dl_info info;
    const char *slash = NULL;
    if (dladdr(symbol, &info) && info.dli_fname)
        slash = strrchr(info.dli_fname, '/');
    int n = slash ? snprintf(dir, size, "%.*s", (int)(slash - info.dli_fname), info.dli_fname) : -1;
    if (n < 0 || (size_t)n >= size)
        snprintf(dir, size, ".");
}

/* The two places a driver `name` may be, in order, into `tried`; returns the index of the first that exists, or -1. */
static inline int d12__driver_name_find(const char *libdir, const char *name,
                                        char tried[2][D12_DRIVER_NAME_PATH_MAX])
{
    int n[2] = {snprintf(tried[0], D12_DRIVER_NAME_PATH_MAX, "%s/d12rt/libd12rt_%s.so", libdir, name),
                snprintf(tried[1], D12_DRIVER_NAME_PATH_MAX, "%s/libd12rt_%s.so", libdir, name)};
    for (int i = 0; i < 2; i++)
        if (n[i] > 0 && n[i] < D12_DRIVER_NAME_PATH_MAX && access(tried[i], F_OK) == 0)
            return i;
    return -1;
}

#endif
