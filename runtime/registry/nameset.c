/* The case-insensitive name set (nameset.h). */
#include "nameset.h"

#include <stdint.h>
#include <stdlib.h>

#include "registry.h"

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* FNV-1a of the lower-cased name: equal names (d12__registry_name_equal) hash equally. */
static uint64_t hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ lower(*c)) * 0x100000001b3ull;
    return h;
}

/* The slot holding `name`, or the empty slot where it would go. */
static struct d12_reg_nameset_slot *probe(const d12_reg_nameset *set, const char *name)
{
    size_t mask = set->capacity - 1;
    for (size_t i = (size_t)hash(name) & mask;; i = (i + 1) & mask) {
        struct d12_reg_nameset_slot *slot = &set->slots[i];
        if (!slot->name || d12__registry_name_equal(slot->name, name))
            return slot;
    }
}

bool d12__reg_nameset_find(const d12_reg_nameset *set, const char *name, size_t *index)
{
    if (!set->capacity)
        return false;
    const struct d12_reg_nameset_slot *slot = probe(set, name);
    if (!slot->name)
        return false;
    *index = slot->index;
    return true;
}

static bool grow(d12_reg_nameset *set)
{
    size_t capacity = set->capacity ? set->capacity * 2 : 16;
    struct d12_reg_nameset_slot *old = set->slots;
    size_t old_capacity = set->capacity;
    set->slots = calloc(capacity, sizeof *set->slots);
    if (!set->slots) {
        set->slots = old;
        return false;
    }
    set->capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].name)
            *probe(set, old[i].name) = old[i];
    free(old);
    return true;
}

bool d12__reg_nameset_add(d12_reg_nameset *set, const char *name, size_t index)
{
    if ((set->count + 1) * 2 > set->capacity && !grow(set))
        return false;
    struct d12_reg_nameset_slot *slot = probe(set, name);
    if (!slot->name) {
        *slot = (struct d12_reg_nameset_slot){name, index};
        set->count++;
    }
    return true;
}

void d12__reg_nameset_free(d12_reg_nameset *set)
{
    free(set->slots);
    set->slots = NULL;
    set->capacity = set->count = 0;
}

bool d12__registry_get_dwords(const d12_reg_file *file, const char *key, const char *const *names, size_t count,
                              bool *found, uint32_t *values)
{
    d12_reg_nameset set = {0};
    for (size_t i = 0; i < count; i++) {
        found[i] = false;
        if (!d12__reg_nameset_add(&set, names[i], i)) {
            d12__reg_nameset_free(&set);
            return false;
        }
    }
    size_t *stamps = calloc(count ? count : 1, sizeof *stamps), step = 0, cleared = 0;
    bool current = false;
    for (size_t i = 0; stamps && i < file->count; i++) {
        const d12_reg_line *l = &file->lines[i];
        size_t at;
        if (l->kind == D12_REG_LINE_KEY) {
            current = d12__registry_name_equal(l->key, key);
        } else if (l->kind == D12_REG_LINE_KEY_DELETE) {
            if (d12__registry_key_at_or_under(key, l->key))
                cleared = step; /* every value found so far is gone */
            current = false;
        } else if ((l->kind == D12_REG_LINE_VALUE || l->kind == D12_REG_LINE_VALUE_DELETE) && current &&
                   d12__reg_nameset_find(&set, l->name, &at)) {
            /* as d12__registry_get_dword: a value of another type replaces the dword */
            found[at] = l->kind == D12_REG_LINE_VALUE && l->is_dword;
            values[at] = l->dword;
            stamps[at] = ++step;
        }
    }
    for (size_t i = 0; stamps && i < count; i++)
        found[i] &= stamps[i] > cleared;
    for (size_t i = 0, first; stamps && i < count; i++) { /* a name asked twice: the set kept its first index */
        if (d12__reg_nameset_find(&set, names[i], &first) && first != i) {
            found[i] = found[first];
            values[i] = values[first];
        }
    }
    bool ok = stamps != NULL;
    free(stamps);
    d12__reg_nameset_free(&set);
    return ok;
}
