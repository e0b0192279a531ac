/* d12cfg's .reg editor: changes a few dword values of one key in a parsed hive while every other line of the
 * file stays byte for byte, and writes the result atomically. Separate from d12cfg.c so the fuzz target can
 * drive it (tests/registry/fuzz_reg.c). */
#ifndef D12CFG_EDIT_H
#define D12CFG_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "registry.h"

/* Set `name` to dword `value`, or (set = false) make it absent. */
typedef struct d12_reg_change {
    const char *name;
    bool set;
    uint32_t value;
} d12_reg_change;

typedef enum d12_reg_edit_result {
    D12_REG_EDIT_OK,
    D12_REG_EDIT_NOMEM,
    D12_REG_EDIT_UNVERIFIED, /* the new text would not read back as asked: nothing is produced */
} d12_reg_edit_result;

/* The new UTF-8 text of `file` with `changes` applied to `key` (a full path). Every line that sets or deletes a
 * changed name inside a section of `key` is dropped; the values set go at the end of the last [key] section
 * when nothing after it deletes the key, else into a new section at the end of the file; a section of `key` left
 * with nothing but blank lines is removed; a file without a header gets one. The result is parsed again and
 * must give exactly the changed values, or D12_REG_EDIT_UNVERIFIED. *text is malloc'ed. */
d12_reg_edit_result d12__reg_edit(const d12_reg_file *file, const char *key, const d12_reg_change *changes,
                                  size_t count, char **text, size_t *size);

/* UTF-8 text in `encoding` (UTF-16LE gets its BOM; invalid UTF-8 bytes become U+FFFD). NULL when out of memory. */
unsigned char *d12__reg_encode(const char *text, size_t size, d12_reg_encoding encoding, size_t *out_size);

/* Replaces `path` atomically: creates its directory if needed, writes a temporary file beside it, fsyncs it,
 * gives it the old file's mode (0644 for a new one), renames it over `path` (the target of a symbolic link) and
 * fsyncs the directory. Returns 0, or -1 with errno and *step naming what failed. */
int d12__reg_write_atomic(const char *path, const void *bytes, size_t size, const char **step);

/* One d12cfg update of the hive at `path` (issue 17 items 7.4-7.7): under an exclusive advisory lock on the sidecar
 * "<file>.lock", read the file (safely: cfgfile.h), refuse an encoding it cannot rewrite ("unsupported encoding"),
 * a file the user could not write itself, and a result larger than the runtime reads (16 MiB), then edit, encode
 * and replace it keeping its mode and owner. Each refusal is one line on `errors` naming `path`; nothing changes.
 * Returns 0 or 1 (d12cfg's exit status). */
int d12__reg_update(const char *path, const char *key, const d12_reg_change *changes, size_t count, FILE *errors);

/* The names of values under `key` of the parsed hive that an update is to delete as well (d12cfg drm-clear:
 * d12__reg_drm_value_names); -1 out of memory. Each name and the array are malloc'ed. */
typedef long (*d12_reg_names_fn)(const d12_reg_file *hive, const char *key, char ***names);

/* d12__reg_update, and (`names` not NULL) also a delete of every name `names` finds in the file as read under the
 * lock, so nothing another d12cfg writes meanwhile is lost or half-cleared. */
int d12__reg_update_names(const char *path, const char *key, const d12_reg_change *changes, size_t count,
                          d12_reg_names_fn names, FILE *errors);

#endif
