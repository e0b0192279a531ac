/* Opening a file a setting names, safely (issue 17 items 7.2-7.4; docs/reliability.md "Threat model").
 *
 * Every path the environment or a hive names (the registry hives, D12RT_REFDRV_PROFILE, D12RT_DDI_TRACE) may name
 * anything: a FIFO nobody writes, /dev/zero, /dev/urandom, a directory, a socket. Opening one must never block (a
 * library constructor or device creation would hang) and reading one must never take unbounded memory. So: the open
 * is non-blocking (a FIFO's open returns at once) and takes no controlling terminal, only a regular file is used,
 * and a file is read up to a cap, one byte past which is noticed without reading the rest.
 *
 * One small static library (PIC) that the runtime (registry, DDI trace), the reference driver (its profile) and
 * d12cfg link: the same rules, and the same hive size limit, everywhere. No global state; any thread. */
#ifndef D12_CFGFILE_H
#define D12_CFGFILE_H

#include <stddef.h>

/* The largest hive the runtime reads and d12cfg writes: a hive holds a few settings, not megabytes. */
#define D12_CFGFILE_MAX_HIVE_BYTES ((size_t)16 << 20)
#define D12_CFGFILE_MAX_HIVE_TEXT "16 MiB"
/* The largest reference driver profile read (a few hundred lines in practice). */
#define D12_CFGFILE_MAX_PROFILE_BYTES ((size_t)1 << 20)
#define D12_CFGFILE_MAX_PROFILE_TEXT "1 MiB"

typedef enum d12_cfgfile_status {
    D12_CFGFILE_OK,
    D12_CFGFILE_ABSENT,     /* ENOENT: nothing there (a hive that does not exist yet reads as empty) */
    D12_CFGFILE_NO_MEMORY,
    D12_CFGFILE_UNREADABLE, /* `why` says what: "cannot open: ...", "not a regular file", "larger than 16 MiB" */
} d12_cfgfile_status;

/* Read all of the regular file `path`, which may have at most `max_bytes` (`max_text` names that size in `why`).
 * OK: *bytes is malloc'ed with *size bytes and a NUL after them. Otherwise *bytes is NULL and, for UNREADABLE,
 * `why` (why_size bytes, may be 0) says why without the path. */
d12_cfgfile_status d12_cfgfile_read(const char *path, size_t max_bytes, const char *max_text, unsigned char **bytes,
                                    size_t *size, char *why, size_t why_size);

/* Open `path` for appending (created with mode 0644 when absent), never blocking: a FIFO without a reader, a device
 * or anything but a regular file is refused. Returns the descriptor (O_CLOEXEC), or -1 with `why` filled. */
int d12_cfgfile_open_append(const char *path, char *why, size_t why_size);

#endif
