/* The registry overlay: where the hives are, which application's key applies, and the per-application Direct3D 12
 * settings read from them (registry.h, docs/registry.md). Reads parsed files through registry.c's lookups. */
#define _POSIX_C_SOURCE 200809L

#include "registry.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------------
 * Locations and names. */

static bool set_path(char *buf, size_t size, const char *a, const char *b)
{
    int n = snprintf(buf, size, "%s%s", a, b);
    if (n < 0 || (size_t)n >= size) {
        if (size)
            buf[0] = '\0';
        return false;
    }
    return true;
}

static const char *env_nonempty(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

bool d12__registry_hkcu_path(char *buf, size_t size)
{
    const char *v = env_nonempty("D12RT_HKCU");
    if (v)
        return set_path(buf, size, v, "");
    /* the XDG spec says a relative XDG_CONFIG_HOME is to be ignored */
    v = env_nonempty("XDG_CONFIG_HOME");
    if (v && v[0] == '/')
        return set_path(buf, size, v, "/d12rt/user.reg");
    v = env_nonempty("HOME");
    if (v)
        return set_path(buf, size, v, "/.config/d12rt/user.reg");
    if (size)
        buf[0] = '\0';
    return false;
}

bool d12__registry_hklm_path(char *buf, size_t size)
{
    const char *v = env_nonempty("D12RT_HKLM");
    return set_path(buf, size, v ? v : "/etc/d12rt/system.reg", "");
}

bool d12__registry_valid_app_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > D12_REG_MAX_NAME)
        return false;
    for (size_t i = 0; i < n; i++)
        if (name[i] == '\\' || (unsigned char)name[i] < 0x20 || name[i] == 0x7F)
            return false;
    return true;
}

static bool exe_name(char *buf, size_t size)
{
    char path[D12_REG_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return false;
    path[n] = '\0';
    /* the kernel marks an executable that was replaced or removed since it started */
    static const char deleted[] = " (deleted)";
    size_t len = (size_t)n, dl = sizeof deleted - 1;
    if (len > dl && !strcmp(path + len - dl, deleted))
        path[len - dl] = '\0';
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return d12__registry_valid_app_name(base) && set_path(buf, size, base, "");
}

bool d12__registry_app_name(char *buf, size_t size)
{
    const char *v = getenv("D12RT_APP_NAME");
    if (v && d12__registry_valid_app_name(v) && set_path(buf, size, v, ""))
        return true;
    if (v)
        fprintf(stderr, "d12rt: warning: D12RT_APP_NAME is not a usable key name (1 to 255 bytes, no backslash "
                        "or control character); using the executable's name\n");
    if (exe_name(buf, size))
        return true;
    if (size)
        buf[0] = '\0';
    return false;
}

bool d12__registry_app_key(char *buf, size_t size, const char *root, const char *app)
{
    int n = snprintf(buf, size, "%s\\%s\\%s", root, D12_REG_APPS_KEY, app);
    return n > 0 && (size_t)n < size;
}

/* ------------------------------------------------------------------------------------------------------------
 * Settings. */

static const struct {
    const char *name;
    uint32_t def;
} settings_table[D12_SETTING_COUNT] = {
    [D12_SETTING_DRM_AND] = {"EnableDriverReportedMessagesAnd", 1},
    [D12_SETTING_DRM_OR] = {"EnableDriverReportedMessagesOr", 0},
    [D12_SETTING_LAYER_AND] = {"D3D12SDKLayerFlagsAnd", 0xFFFFFFFFu},
    [D12_SETTING_LAYER_OR] = {"D3D12SDKLayerFlagsOr", 0},
    [D12_SETTING_REQUIRE_LAYERS] = {"RequireSDKLayers", 0},
    /* DRED (dred-api): D3D12_DRED_ENABLEMENT numbers, 0 = SYSTEM_CONTROLLED */
    [D12_SETTING_DRED_AUTO_BREADCRUMBS] = {"DredAutoBreadcrumbs", 0},
    [D12_SETTING_DRED_PAGE_FAULT] = {"DredPageFault", 0},
    [D12_SETTING_DRED_CONTEXT] = {"DredBreadcrumbContext", 0},
};

const char *d12__registry_setting_name(d12_reg_setting_id id)
{
    return (unsigned)id < D12_SETTING_COUNT ? settings_table[id].name : NULL;
}

uint32_t d12__registry_setting_default(d12_reg_setting_id id)
{
    return (unsigned)id < D12_SETTING_COUNT ? settings_table[id].def : 0;
}

static bool lookup(const d12_reg_file *hive, const char *root, const char *app, const char *name,
                   d12_reg_setting *out, d12_reg_source source)
{
    char key[D12_REG_PATH_MAX];
    if (!hive || !app[0] || !d12__registry_app_key(key, sizeof key, root, app))
        return false;
    if (!d12__registry_get_dword(hive, key, name, &out->value, &out->line))
        return false;
    out->source = source;
    return true;
}

void d12__registry_resolve(const d12_reg_file *hkcu, const d12_reg_file *hklm, const char *app_name,
                           d12_app_settings *out)
{
    const char *app = app_name && d12__registry_valid_app_name(app_name) ? app_name : "";
    set_path(out->app_name, sizeof out->app_name, app, "");
    for (unsigned id = 0; id < D12_SETTING_COUNT; id++) {
        d12_reg_setting *s = &out->values[id];
        const char *name = settings_table[id].name;
        if (lookup(hkcu, D12_REG_HKCU_ROOT, app, name, s, D12_SOURCE_HKCU))
            continue;
        if (lookup(hklm, D12_REG_HKLM_ROOT, app, name, s, D12_SOURCE_HKLM))
            continue;
        *s = (d12_reg_setting){settings_table[id].def, D12_SOURCE_DEFAULT, 0};
    }
}

bool d12__registry_app_settings(const char *app_name, d12_app_settings *out)
{
    memset(out, 0, sizeof *out);
    char app[D12_REG_MAX_NAME + 1] = "";
    if (app_name)
        set_path(app, sizeof app, app_name, "");
    else
        d12__registry_app_name(app, sizeof app);
    d12_reg_file hkcu = {0}, hklm = {0};
    bool cu_path = d12__registry_hkcu_path(out->hkcu_path, sizeof out->hkcu_path);
    int cu = cu_path ? d12__registry_load(out->hkcu_path, stderr, &hkcu) : 1;
    bool lm_path = d12__registry_hklm_path(out->hklm_path, sizeof out->hklm_path);
    int lm = lm_path ? d12__registry_load(out->hklm_path, stderr, &hklm) : 1;
    d12__registry_resolve(cu == 0 ? &hkcu : NULL, lm == 0 ? &hklm : NULL, app, out);
    d12__registry_free(&hkcu);
    d12__registry_free(&hklm);
    return cu >= 0 && lm >= 0; /* -1: out of memory (d12__registry_load) */
}

static bool value_in(const char *path, const char *root, const char *app, const char *name, d12_reg_source source,
                     d12_reg_app_value *out)
{
    d12_reg_file hive = {0};
    char key[D12_REG_PATH_MAX];
    bool found = false;
    if (path[0] && d12__registry_app_key(key, sizeof key, root, app) && d12__registry_load(path, stderr, &hive) == 0)
        found = d12__registry_get_value(&hive, key, name, &out->type, &out->dword, &out->line);
    d12__registry_free(&hive);
    if (found)
        out->source = source;
    return found;
}

bool d12__registry_app_value(const char *name, d12_reg_app_value *out)
{
    memset(out, 0, sizeof *out);
    char app[D12_REG_MAX_NAME + 1], path[D12_REG_PATH_MAX];
    if (!name || !d12__registry_app_name(app, sizeof app))
        return false;
    if (d12__registry_hkcu_path(path, sizeof path) &&
        value_in(path, D12_REG_HKCU_ROOT, app, name, D12_SOURCE_HKCU, out))
        return true;
    return d12__registry_hklm_path(path, sizeof path) &&
           value_in(path, D12_REG_HKLM_ROOT, app, name, D12_SOURCE_HKLM, out);
}

d12_registry_overlay d12__registry_overlay(const d12_app_settings *settings, bool app_debug_layer,
                                           bool app_driver_reported_messages)
{
    const d12_reg_setting *v = settings->values;
    uint32_t layer = ((app_debug_layer ? D12_LAYER_FLAG_DEBUG : 0) & v[D12_SETTING_LAYER_AND].value) |
                     v[D12_SETTING_LAYER_OR].value;
    uint32_t drm = ((app_driver_reported_messages ? 1u : 0u) & v[D12_SETTING_DRM_AND].value) |
                   v[D12_SETTING_DRM_OR].value;
    d12_registry_overlay o = {
        .debug_layer = (layer & D12_LAYER_FLAG_DEBUG) != 0,
        .driver_reported_messages = (drm & 1u) != 0,
        .require_sdk_layers = v[D12_SETTING_REQUIRE_LAYERS].value != 0,
    };
    o.driver_reported_messages_active = o.debug_layer && o.driver_reported_messages;
    return o;
}

/* DRED: "an explicit FORCED_ON/FORCED_OFF from the application wins"; SYSTEM_CONTROLLED is what the system (here
 * the per-application registry value) decides. */
uint32_t d12__registry_dred_enablement(const d12_app_settings *settings, d12_reg_setting_id id, uint32_t app_value)
{
    if (app_value == 1u || app_value == 2u)
        return app_value;
    uint32_t system = settings->values[id].value;
    return system == 1u || system == 2u ? system : 0u;
}
