/* The registry's driver-message pairs and forced categories (registry_drm.h). The lines of a hive are replayed as
 * importing it would (registry.c's d12__registry_get_dword does the same for one value): a later line wins, a
 * value delete or `[-KEY]` removes. */
#define _POSIX_C_SOURCE 200809L

#include "registry_drm.h"
#include "nameset.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool parse_hex(const char *s, const char **end, uint64_t *value)
{
    uint64_t v = 0;
    const char *c = s;
    for (; *c; c++) {
        unsigned digit;
        if (*c >= '0' && *c <= '9')
            digit = (unsigned)(*c - '0');
        else if (*c >= 'a' && *c <= 'f')
            digit = (unsigned)(*c - 'a' + 10);
        else if (*c >= 'A' && *c <= 'F')
            digit = (unsigned)(*c - 'A' + 10);
        else
            break;
        if (c - s >= 16)
            return false; /* more than 64 bits */
        v = v << 4 | digit;
    }
    *end = c;
    *value = v;
    return c != s;
}

bool d12__reg_drm_parse_pair(const char *text, d12_reg_drm_pair *out)
{
    const char *end;
    uint64_t vid, mid;
    if (!text || !parse_hex(text, &end, &vid) || *end != ':' || vid == 0 || vid > 0xFFFFFFFFull)
        return false;
    if (!parse_hex(end + 1, &end, &mid) || *end)
        return false;
    *out = (d12_reg_drm_pair){(uint32_t)vid, mid};
    return true;
}

/* One named value as the replay leaves it. */
typedef struct entry {
    char *name;
    bool present;
    uint32_t value;
    unsigned line;
    size_t stamp; /* the replay step that set it: a [-KEY] after it (cleared >= stamp) removed it */
} entry;

/* Issue 29: looked up by name through a hash set, and a [-KEY] line marks a step instead of visiting every entry, so
 * a hive of N pairs replays in O(N) (it was O(N^2): 32 000 pairs took D3D12CreateDevice 58 s). */
typedef struct entries {
    entry *items;
    size_t count, capacity;
    d12_reg_nameset names; /* name -> index in items */
    size_t step, cleared;
} entries;

static bool is_ours(const char *name)
{
    return strncasecmp(name, D12_REG_DRM_DENY_PREFIX, strlen(D12_REG_DRM_DENY_PREFIX)) == 0 ||
           strncasecmp(name, D12_REG_DRM_ALLOW_PREFIX, strlen(D12_REG_DRM_ALLOW_PREFIX)) == 0 ||
           d12__registry_name_equal(name, D12_REG_DRM_FLAGS);
}

static entry *find(entries *e, const char *name)
{
    size_t i;
    return d12__reg_nameset_find(&e->names, name, &i) ? &e->items[i] : NULL;
}

static entry *find_or_add(entries *e, const char *name)
{
    entry *found = find(e, name);
    if (found)
        return found;
    if (e->count == e->capacity) {
        size_t capacity = e->capacity ? e->capacity * 2 : 8;
        entry *items = realloc(e->items, capacity * sizeof *items);
        if (!items)
            return NULL;
        e->items = items;
        e->capacity = capacity;
    }
    char *copy = strdup(name);
    if (!copy || !d12__reg_nameset_add(&e->names, copy, e->count)) {
        free(copy);
        return NULL;
    }
    e->items[e->count] = (entry){copy, false, 0, 0, 0};
    return &e->items[e->count++];
}

static void entries_free(entries *e)
{
    for (size_t i = 0; i < e->count; i++)
        free(e->items[i].name);
    free(e->items);
    d12__reg_nameset_free(&e->names);
    memset(e, 0, sizeof *e);
}

/* Replays one hive's lines for `key`. */
static bool replay(const d12_reg_file *hive, const char *key, entries *e)
{
    bool current = false;
    for (size_t i = 0; hive && i < hive->count; i++) {
        const d12_reg_line *l = &hive->lines[i];
        if (l->kind == D12_REG_LINE_KEY) {
            current = d12__registry_name_equal(l->key, key);
        } else if (l->kind == D12_REG_LINE_KEY_DELETE) {
            if (d12__registry_key_at_or_under(key, l->key))
                e->cleared = e->step; /* everything set so far is gone */
            current = false;
        } else if ((l->kind == D12_REG_LINE_VALUE || l->kind == D12_REG_LINE_VALUE_DELETE) && current &&
                   is_ours(l->name)) {
            entry *x = find_or_add(e, l->name);
            if (!x)
                return false;
            x->present = l->kind == D12_REG_LINE_VALUE && l->is_dword;
            x->value = l->dword;
            x->line = l->number;
            x->stamp = ++e->step;
        }
    }
    for (size_t k = 0; k < e->count; k++)
        e->items[k].present &= e->items[k].stamp > e->cleared;
    return true;
}

/* Grown by doubling (a count that is a power of two is full), so N appends cost O(N). */
static bool append(d12_reg_drm_pair **list, size_t *count, d12_reg_drm_pair pair)
{
    if (*count == 0 || (*count & (*count - 1)) == 0) {
        d12_reg_drm_pair *grown = realloc(*list, (*count ? *count * 2 : 1) * sizeof *grown);
        if (!grown)
            return false;
        *list = grown;
    }
    (*list)[(*count)++] = pair;
    return true;
}

/* The entries of one hive merged in: a name HKCU already decided stays HKCU's. */
static bool collect(const d12_reg_file *hive, const char *root, const char *app, FILE *warnings, d12_reg_drm *out,
                    entries *decided)
{
    char key[D12_REG_PATH_MAX];
    if (!hive || !d12__registry_app_key(key, sizeof key, root, app))
        return true;
    entries e = {0};
    bool ok = replay(hive, key, &e);
    for (size_t i = 0; ok && i < e.count; i++) {
        entry *x = &e.items[i];
        if (find(decided, x->name))
            continue;
        entry *d = find_or_add(decided, x->name);
        if (!d) {
            ok = false;
            break;
        }
        if (!x->present)
            continue;
        if (d12__registry_name_equal(x->name, D12_REG_DRM_FLAGS)) {
            out->flags_forced = true;
            out->flags = x->value;
            continue;
        }
        bool deny = strncasecmp(x->name, D12_REG_DRM_DENY_PREFIX, strlen(D12_REG_DRM_DENY_PREFIX)) == 0;
        const char *pair_text = x->name + strlen(deny ? D12_REG_DRM_DENY_PREFIX : D12_REG_DRM_ALLOW_PREFIX);
        d12_reg_drm_pair pair;
        if (!d12__reg_drm_parse_pair(pair_text, &pair)) {
            if (warnings)
                fprintf(warnings, "d12rt: warning: %s:%u: value \"%s\" is not <prefix><VID hex>:<MID hex>; ignored\n",
                        root, x->line, x->name);
            continue;
        }
        if (x->value != 0)
            ok = deny ? append(&out->deny, &out->deny_count, pair) : append(&out->allow, &out->allow_count, pair);
    }
    entries_free(&e);
    return ok;
}

bool d12__reg_drm_resolve(const d12_reg_file *hkcu, const d12_reg_file *hklm, const char *app, FILE *warnings,
                          d12_reg_drm *out)
{
    memset(out, 0, sizeof *out);
    if (!app || !d12__registry_valid_app_name(app))
        return true;
    entries decided = {0};
    bool ok = collect(hkcu, D12_REG_HKCU_ROOT, app, warnings, out, &decided) &&
              collect(hklm, D12_REG_HKLM_ROOT, app, warnings, out, &decided);
    entries_free(&decided);
    if (!ok)
        d12__reg_drm_free(out);
    return ok;
}

bool d12__reg_drm_load(d12_reg_drm *out)
{
    char app[D12_REG_MAX_NAME + 1], cu_path[D12_REG_PATH_MAX], lm_path[D12_REG_PATH_MAX];
    d12_reg_file cu = {0}, lm = {0};
    memset(out, 0, sizeof *out);
    if (!d12__registry_app_name(app, sizeof app))
        return true;
    int rc = 0;
    if (d12__registry_hkcu_path(cu_path, sizeof cu_path))
        rc |= d12__registry_load(cu_path, NULL, &cu); /* the device's overlay already warned about these files */
    if (d12__registry_hklm_path(lm_path, sizeof lm_path))
        rc |= d12__registry_load(lm_path, NULL, &lm);
    bool ok = rc == 0 && d12__reg_drm_resolve(&cu, &lm, app, stderr, out);
    d12__registry_free(&cu);
    d12__registry_free(&lm);
    return ok;
}

void d12__reg_drm_free(d12_reg_drm *drm)
{
    free(drm->allow);
    free(drm->deny);
    memset(drm, 0, sizeof *drm);
}

long d12__reg_drm_value_names(const d12_reg_file *hive, const char *key, char ***names)
{
    entries e = {0};
    *names = NULL;
    if (!replay(hive, key, &e)) {
        entries_free(&e);
        return -1;
    }
    long count = 0;
    char **out = calloc(e.count ? e.count : 1, sizeof *out);
    if (!out) {
        entries_free(&e);
        return -1;
    }
    for (size_t i = 0; i < e.count; i++) {
        if (e.items[i].present && !d12__registry_name_equal(e.items[i].name, D12_REG_DRM_FLAGS)) {
            out[count++] = e.items[i].name;
            e.items[i].name = NULL;
        }
    }
    entries_free(&e);
    *names = out;
    return count;
}
