/* A set of registry value names compared as the registry compares them (ASCII case-insensitively), each with a
 * caller's index: O(1) expected to find or add (issue 29: the driver-message pairs of a hive were matched by a linear
 * search per line, so 32 000 pairs took D3D12CreateDevice 58 s and `d12cfg show` / `drm-clear` 12 s at 16 000).
 * Open addressing over a power-of-two table kept at most half full; the names are the caller's (not copied) and must
 * outlive the set. Used by registry_drm.c (replaying a hive's pairs) and tools/d12cfg_edit.c (the changed names). */
#ifndef D12_REGISTRY_NAMESET_H
#define D12_REGISTRY_NAMESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct d12_reg_nameset {
    struct d12_reg_nameset_slot {
        const char *name; /* NULL: empty */
        size_t index;
    } *slots;
    size_t capacity, count;
} d12_reg_nameset;

/* The index stored with `name`, or false. */
bool d12__reg_nameset_find(const d12_reg_nameset *set, const char *name, size_t *index);

/* Adds `name` with `index` (a name already there keeps its index). False only for lack of memory. */
bool d12__reg_nameset_add(d12_reg_nameset *set, const char *name, size_t index);

void d12__reg_nameset_free(d12_reg_nameset *set);

struct d12_reg_file;
/* d12__registry_get_dword for `count` names at once, in one pass over the file (d12cfg's read-back check of an edit
 * that changes thousands of values): found[i] and values[i] for names[i]. False only for lack of memory. */
bool d12__registry_get_dwords(const struct d12_reg_file *file, const char *key, const char *const *names, size_t count,
                              bool *found, uint32_t *values);

#endif
