/* d12cfg: the DirectX Control Panel (DXCPL / d3dconfig) of d12rt: per-application registry settings.
 *
 *   d12cfg [--system] drm APP on|off|app
 *   d12cfg [--system] debug-layer APP on|off|app
 *   d12cfg [--system] dred APP breadcrumbs|page-fault|context on|off|system
 *   d12cfg [--system] drm-deny|drm-allow APP VID:MID
 *   d12cfg [--system] drm-clear APP
 *   d12cfg [--system] drm-flags APP FLAGS|app
 *   d12cfg [--system] vulkan-validation APP off|core|sync|gpuav|system
 *   d12cfg show APP
 *   d12cfg list
 *
 * It reads and writes the same .reg files as the runtime, through the runtime's own parser (registry.h), so what
 * `show` prints is what D3D12CreateDevice will use. Values and their meaning: docs/registry.md. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "d12cfg_edit.h"
#include "registry.h"
#include "registry_drm.h"

#define EXIT_USAGE 2

/* d12cfg_help (what --help prints) and d12cfg_usage (its usage lines) come from tools/help/d12cfg.txt, which is
 * also the manual page (cmake/ToolHelp.cmake). */
#include "d12cfg_help.h"

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "d12cfg: %s\n", why);
    fputs(d12cfg_usage, stderr);
    return EXIT_USAGE;
}

typedef enum mode { MODE_ON, MODE_OFF, MODE_APP } mode;

static const char *const mode_names[] = {"forced on", "forced off", "application-controlled"};

static bool parse_mode(const char *s, mode *m)
{
    static const char *const words[] = {"on", "off", "app"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, words[i])) {
            *m = (mode)i;
            return true;
        }
    return false;
}

/* ---- Writing ---- */

#define CHANGE_SET(id, v) {d12__registry_setting_name(id), true, (v)}
#define CHANGE_DEL(id) {d12__registry_setting_name(id), false, 0}

/* Force-on needs only Or (it wins over any And); force-off writes both so that neither a stray Or in this hive
 * nor an HKLM value can turn it back on; app-controlled deletes both, which defers to the other hive. */
static size_t drm_changes(mode m, d12_reg_change *c)
{
    const d12_reg_change on[] = {CHANGE_DEL(D12_SETTING_DRM_AND), CHANGE_SET(D12_SETTING_DRM_OR, 1)};
    const d12_reg_change off[] = {CHANGE_SET(D12_SETTING_DRM_AND, 0), CHANGE_SET(D12_SETTING_DRM_OR, 0)};
    const d12_reg_change app[] = {CHANGE_DEL(D12_SETTING_DRM_AND), CHANGE_DEL(D12_SETTING_DRM_OR)};
    memcpy(c, m == MODE_ON ? on : m == MODE_OFF ? off : app, sizeof on);
    return 2;
}

/* As DXCPL's "Force On": the layer bit in Or and RequireSDKLayers; "Force Off" clears only the layer bit. */
static size_t layer_changes(mode m, d12_reg_change *c)
{
    const d12_reg_change on[] = {CHANGE_DEL(D12_SETTING_LAYER_AND),
                                 CHANGE_SET(D12_SETTING_LAYER_OR, D12_LAYER_FLAG_DEBUG),
                                 CHANGE_SET(D12_SETTING_REQUIRE_LAYERS, 1)};
    const d12_reg_change off[] = {CHANGE_SET(D12_SETTING_LAYER_AND, ~D12_LAYER_FLAG_DEBUG),
                                  CHANGE_SET(D12_SETTING_LAYER_OR, 0), CHANGE_SET(D12_SETTING_REQUIRE_LAYERS, 0)};
    const d12_reg_change app[] = {CHANGE_DEL(D12_SETTING_LAYER_AND), CHANGE_DEL(D12_SETTING_LAYER_OR),
                                  CHANGE_DEL(D12_SETTING_REQUIRE_LAYERS)};
    memcpy(c, m == MODE_ON ? on : m == MODE_OFF ? off : app, sizeof on);
    return 3;
}

/* DRED: one D3D12_DRED_ENABLEMENT value (2 FORCED_ON, 1 FORCED_OFF); `system` deletes it (SYSTEM_CONTROLLED). */
static const struct {
    const char *word;
    d12_reg_setting_id id;
    const char *label;
} dred_features[] = {
    {"breadcrumbs", D12_SETTING_DRED_AUTO_BREADCRUMBS, "DRED auto-breadcrumbs"},
    {"page-fault", D12_SETTING_DRED_PAGE_FAULT, "DRED page fault"},
    {"context", D12_SETTING_DRED_CONTEXT, "DRED breadcrumb context"},
};
#define DRED_FEATURES (sizeof dred_features / sizeof dred_features[0])

static const char *const dred_value_names[] = {"system-controlled", "forced off", "forced on"};

static size_t dred_changes(d12_reg_setting_id id, mode m, d12_reg_change *c)
{
    c[0] = m == MODE_APP ? (d12_reg_change)CHANGE_DEL(id) : (d12_reg_change)CHANGE_SET(id, m == MODE_ON ? 2u : 1u);
    return 1;
}

/* Applies the changes to APP's key of the hive `system` names; `clear`: the update also deletes every driver-message
 * pair the hive sets there (drm-clear), read under the same lock as the rest of the update. */
static int edit_app(bool system, const char *app, const d12_reg_change *changes, size_t count, bool clear);

static int cmd_set(bool system, const char *what, int dred_feature, const char *app, mode m)
{
    d12_reg_change c[3];
    size_t count = dred_feature >= 0 ? dred_changes(dred_features[dred_feature].id, m, c)
                   : !strcmp(what, "drm") ? drm_changes(m, c) : layer_changes(m, c);
    return edit_app(system, app, c, count, false);
}

static int edit_app(bool system, const char *app, const d12_reg_change *c, size_t count, bool clear)
{
    char path[D12_REG_PATH_MAX], key[D12_REG_PATH_MAX];
    bool have = system ? d12__registry_hklm_path(path, sizeof path) : d12__registry_hkcu_path(path, sizeof path);
    if (!have) {
        fprintf(stderr, "d12cfg: no user hive: set D12RT_HKCU, XDG_CONFIG_HOME or HOME\n");
        return 1;
    }
    d12__registry_app_key(key, sizeof key, system ? D12_REG_HKLM_ROOT : D12_REG_HKCU_ROOT, app);
    /* locked, checked, mode and owner kept (d12cfg_edit.h); drm-clear's names are read from the locked file */
    return d12__reg_update_names(path, key, c, count, clear ? d12__reg_drm_value_names : NULL, stderr);
}

/* drm-deny / drm-allow APP VID:MID, drm-clear APP, drm-flags APP FLAGS|app (registry_drm.h has the values). */
static int run_drm_pairs(bool system, int argc, char **argv)
{
    const char *cmd = argv[0], *app = argv[1];
    if (!strcmp(cmd, "drm-clear")) {
        if (argc != 2)
            return usage("drm-clear takes one APP");
        const d12_reg_change flags = {D12_REG_DRM_FLAGS, false, 0};
        return edit_app(system, app, &flags, 1, true);
    }
    if (argc != 3)
        return usage(!strcmp(cmd, "drm-flags") ? "expected drm-flags APP FLAGS|app" : "expected APP VID:MID");
    if (!strcmp(cmd, "drm-flags")) {
        char *end = NULL;
        unsigned long flags = strcmp(argv[2], "app") ? strtoul(argv[2], &end, 16) : 0;
        if (end && (*end || end == argv[2] || flags > 0x7FFFFFFFul))
            return usage("FLAGS is hexadecimal, at most 7FFFFFFF (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS), or app");
        const d12_reg_change change = {D12_REG_DRM_FLAGS, end != NULL, (uint32_t)flags};
        return edit_app(system, app, &change, 1, false);
    }
    d12_reg_drm_pair pair;
    if (!d12__reg_drm_parse_pair(argv[2], &pair))
        return usage("VID:MID is two hexadecimal numbers (VendorId 1..FFFFFFFF, VendorMessageId 64-bit), e.g. 1414:2A");
    char name[80];
    snprintf(name, sizeof name, "%s%X:%llX", !strcmp(cmd, "drm-deny") ? D12_REG_DRM_DENY_PREFIX : D12_REG_DRM_ALLOW_PREFIX,
             (unsigned)pair.vendor_id, (unsigned long long)pair.vendor_message_id);
    const d12_reg_change change = {name, true, 1};
    return edit_app(system, app, &change, 1, false);
}

/* vulkan-validation APP off|core|sync|gpuav|system: the Vulkan driver's VulkanValidation, a REG_DWORD (the mode's
 * number); `system` deletes it (the other hive's value, else off). The driver reads it once, when its adapter
 * opens, unless D12RT_VULKAN_VALIDATION is set (docs/vulkan.md). */
static const char *const vulkan_modes[] = {"off", "core", "sync", "gpuav"};

static int run_vulkan_validation(bool system, int argc, char **argv)
{
    if (argc != 3)
        return usage("expected vulkan-validation APP off|core|sync|gpuav|system");
    d12_reg_change change = {D12_REG_VULKAN_VALIDATION, false, 0};
    if (strcmp(argv[2], "system")) {
        change.set = true;
        while (change.value < 4 && strcmp(argv[2], vulkan_modes[change.value]))
            change.value++;
        if (change.value == 4)
            return usage("expected off, core, sync, gpuav or system");
    }
    return edit_app(system, argv[1], &change, 1, false);
}

/* show: the Vulkan validation mode APP gets from the registry (HKCU first), and where it comes from. */
static void print_vulkan_validation(const d12_app_settings *s, const d12_reg_file *cu, const d12_reg_file *lm,
                                    const char *app)
{
    char key[D12_REG_PATH_MAX];
    uint32_t type = 0, value = 0;
    unsigned line = 0;
    bool in_cu = d12__registry_app_key(key, sizeof key, D12_REG_HKCU_ROOT, app) &&
                 d12__registry_get_value(cu, key, D12_REG_VULKAN_VALIDATION, &type, &value, &line);
    bool in_lm = !in_cu && d12__registry_app_key(key, sizeof key, D12_REG_HKLM_ROOT, app) &&
                 d12__registry_get_value(lm, key, D12_REG_VULKAN_VALIDATION, &type, &value, &line);
    if (!in_cu && !in_lm) {
        printf("Vulkan validation: off (default)\n");
        return;
    }
    const char *hive = in_cu ? "HKCU" : "HKLM", *path = in_cu ? s->hkcu_path : s->hklm_path;
    if (type != D12_REG_DWORD || value > 3)
        printf("Vulkan validation: off (%s %s:%u is not a REG_DWORD 0 to 3)\n", hive, path, line);
    else
        printf("Vulkan validation: %s (%s %s:%u)\n", vulkan_modes[value], hive, path, line);
}

/* show: the driver-message pairs and the forced categories APP gets (both hives). */
static void print_drm_pairs(const d12_reg_file *cu, const d12_reg_file *lm, const char *app)
{
    d12_reg_drm drm;
    if (!d12__reg_drm_resolve(cu, lm, app, stderr, &drm)) {
        fprintf(stderr, "d12cfg: out of memory\n");
        return;
    }
    for (size_t i = 0; i < drm.deny_count; i++)
        printf("driver message denied: %X:%llX\n", (unsigned)drm.deny[i].vendor_id,
               (unsigned long long)drm.deny[i].vendor_message_id);
    for (size_t i = 0; i < drm.allow_count; i++)
        printf("driver message allowed: %X:%llX\n", (unsigned)drm.allow[i].vendor_id,
               (unsigned long long)drm.allow[i].vendor_message_id);
    if (drm.flags_forced)
        printf("driver-reported message categories: forced to 0x%X\n", (unsigned)drm.flags);
    else
        printf("driver-reported message categories: application-controlled\n");
    d12__reg_drm_free(&drm);
}

/* ---- Reading ---- */

/* Only the bit that means something decides: (app & And | Or) & bit. */
static mode mask_mode(uint32_t and_mask, uint32_t or_mask, uint32_t bit)
{
    return or_mask & bit ? MODE_ON : !(and_mask & bit) ? MODE_OFF : MODE_APP;
}

static void print_source(const d12_app_settings *s, const d12_reg_setting *v)
{
    if (v->source == D12_SOURCE_DEFAULT)
        printf("default\n");
    else
        printf("%s %s:%u\n", v->source == D12_SOURCE_HKCU ? "HKCU" : "HKLM",
               v->source == D12_SOURCE_HKCU ? s->hkcu_path : s->hklm_path, v->line);
}

static void print_hive(const char *label, const char *path, const d12_reg_file *f)
{
    printf("%s: %s%s\n", label, path[0] ? path : "(none)",
           !path[0] ? "" : !f->exists ? " (missing)" : f->unreadable ? " (unreadable)" : "");
}

static void print_modes(const d12_app_settings *s, const char *sep)
{
    const d12_reg_setting *v = s->values;
    mode drm = mask_mode(v[D12_SETTING_DRM_AND].value, v[D12_SETTING_DRM_OR].value, 1);
    mode layer =
        mask_mode(v[D12_SETTING_LAYER_AND].value, v[D12_SETTING_LAYER_OR].value, D12_LAYER_FLAG_DEBUG);
    printf("driver-reported messages: %s%s", mode_names[drm], sep);
    printf("debug layer: %s%s%s", mode_names[layer],
           v[D12_SETTING_REQUIRE_LAYERS].value ? " (RequireSDKLayers)" : "", sep);
    /* What an application that leaves the feature SYSTEM_CONTROLLED gets (its FORCED_* wins). */
    for (size_t i = 0; i < DRED_FEATURES; i++) {
        uint32_t value = v[dred_features[i].id].value;
        printf("%s: %s%s", dred_features[i].label, value <= 2 ? dred_value_names[value] : "system-controlled",
               i + 1 < DRED_FEATURES ? sep : "\n");
    }
}

static int load_both(d12_app_settings *s, d12_reg_file *cu, d12_reg_file *lm)
{
    d12_reg_file empty = {0};
    *cu = *lm = empty;
    int rc = 0;
    if (d12__registry_hkcu_path(s->hkcu_path, sizeof s->hkcu_path))
        rc |= d12__registry_load(s->hkcu_path, stderr, cu);
    if (d12__registry_hklm_path(s->hklm_path, sizeof s->hklm_path))
        rc |= d12__registry_load(s->hklm_path, stderr, lm);
    if (rc != 0)
        fprintf(stderr, "d12cfg: out of memory\n");
    return rc;
}

static int cmd_show(const char *app)
{
    d12_app_settings s = {0};
    d12_reg_file cu, lm;
    if (load_both(&s, &cu, &lm) != 0)
        return 1;
    d12__registry_resolve(&cu, &lm, app, &s);
    printf("application: %s\n", app);
    print_hive("HKCU", s.hkcu_path, &cu);
    print_hive("HKLM", s.hklm_path, &lm);
    for (unsigned id = 0; id < D12_SETTING_COUNT; id++) {
        printf("%-32s 0x%08x  ", d12__registry_setting_name(id), (unsigned)s.values[id].value);
        print_source(&s, &s.values[id]);
    }
    print_modes(&s, "\n");
    print_drm_pairs(&cu, &lm, app);
    print_vulkan_validation(&s, &cu, &lm, app);
    d12__registry_free(&cu);
    d12__registry_free(&lm);
    return 0;
}

static bool is_new_app(char **apps, long count, const char *name)
{
    for (long k = 0; k < count; k++)
        if (d12__registry_name_equal(apps[k], name))
            return false;
    return d12__registry_valid_app_name(name);
}

/* The apps of one hive appended to *apps (case-insensitively new ones only); -1 when out of memory. */
static long add_apps(const d12_reg_file *f, const char *root, char ***apps, long count)
{
    char parent[D12_REG_PATH_MAX], **names;
    snprintf(parent, sizeof parent, "%s\\%s", root, D12_REG_APPS_KEY);
    long n = d12__registry_subkeys(f, parent, &names);
    for (long i = 0; i < n; i++) {
        if (count >= 0 && is_new_app(*apps, count, names[i])) {
            char **grown = realloc(*apps, (size_t)(count + 1) * sizeof *grown);
            if (grown) {
                *apps = grown;
                (*apps)[count++] = names[i];
                continue;
            }
            count = -1;
        }
        free(names[i]);
    }
    free(names);
    return n < 0 ? -1 : count;
}

static int cmd_list(void)
{
    d12_app_settings s = {0};
    d12_reg_file cu, lm;
    if (load_both(&s, &cu, &lm) != 0)
        return 1;
    char **apps = NULL;
    long count = add_apps(&cu, D12_REG_HKCU_ROOT, &apps, 0);
    if (count >= 0)
        count = add_apps(&lm, D12_REG_HKLM_ROOT, &apps, count);
    for (long i = 0; i < count; i++) {
        d12__registry_resolve(&cu, &lm, apps[i], &s);
        printf("%s: ", apps[i]);
        print_modes(&s, "; ");
    }
    for (long i = 0; i < count; i++)
        free(apps[i]);
    free(apps);
    d12__registry_free(&cu);
    d12__registry_free(&lm);
    if (count < 0)
        fprintf(stderr, "d12cfg: out of memory\n");
    return count < 0;
}

/* ---- Command line ---- */

/* dred APP FEATURE on|off|system */
static int run_dred(bool system, int argc, char **argv)
{
    int feature = -1;
    for (size_t i = 0; argc >= 3 && i < DRED_FEATURES; i++)
        if (!strcmp(argv[2], dred_features[i].word))
            feature = (int)i;
    if (argc != 4 || feature < 0)
        return usage("expected dred APP breadcrumbs|page-fault|context on|off|system");
    mode m;
    if (!strcmp(argv[3], "system"))
        m = MODE_APP;
    else if (strcmp(argv[3], "app") == 0 || !parse_mode(argv[3], &m))
        return usage("expected on, off or system");
    return cmd_set(system, "dred", feature, argv[1], m);
}

static int run(bool system, int argc, char **argv)
{
    if (argc == 0)
        return usage("missing command");
    const char *cmd = argv[0];
    if (!strcmp(cmd, "list"))
        return argc != 1 ? usage("list takes no argument") : system ? usage("--system applies to drm, debug-layer and dred")
                                                                    : cmd_list();
    if (argc < 2 || !d12__registry_valid_app_name(argv[1]))
        return usage(argc < 2 ? "missing APP" : "APP must be 1 to 255 bytes, no backslash or control character");
    if (!strcmp(cmd, "show"))
        return argc != 2 ? usage("show takes one APP") : system ? usage("--system applies to drm, debug-layer and dred")
                                                                : cmd_show(argv[1]);
    if (!strcmp(cmd, "dred"))
        return run_dred(system, argc, argv);
    if (!strncmp(cmd, "drm-", 4) && (!strcmp(cmd, "drm-deny") || !strcmp(cmd, "drm-allow") ||
                                     !strcmp(cmd, "drm-clear") || !strcmp(cmd, "drm-flags")))
        return run_drm_pairs(system, argc, argv);
    if (!strcmp(cmd, "vulkan-validation"))
        return run_vulkan_validation(system, argc, argv);
    if (strcmp(cmd, "drm") && strcmp(cmd, "debug-layer"))
        return usage("unknown command");
    mode m;
    if (argc != 3 || !parse_mode(argv[2], &m))
        return usage("expected on, off or app");
    return cmd_set(system, cmd, -1, argv[1], m);
}

enum { OPT_SYSTEM = 0x200 };

int main(int argc, char **argv)
{
    /* Options may come anywhere (getopt_long permutes); `--` ends them, so an APP may start with '-'. A new
     * option is one line here and one in tools/help/d12cfg.txt. */
    static const struct option long_options[] = {
        D12_TOOL_COMMON_OPTIONS,
        {"system", no_argument, NULL, OPT_SYSTEM},
        {NULL, 0, NULL, 0},
    };
    bool system = false;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            return d12_tool_print_help(d12cfg_help);
        case D12_TOOL_OPT_VERSION:
            return d12_tool_print_version("d12cfg");
        case OPT_SYSTEM:
            system = true;
            break;
        default:
            return d12_tool_bad_option("d12cfg", d12cfg_usage, c, optopt, argv, optind);
        }
    }
    return run(system, argc - optind, argv + optind);
}
