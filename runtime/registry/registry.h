/* The registry overlay: `.reg` text files (Windows Registry Editor 5.00) stand for the HKCU and HKLM hives, and
 * the per-application Direct3D 12 values read from them at device creation. Format subset, paths, values and
 * their semantics: docs/registry.md.
 *
 * A parsed file keeps its text and one entry per logical line, so d12cfg can rewrite a file while keeping every
 * line it does not own byte for byte; lookups replay the lines in order, exactly as importing the file would
 * (a later line wins, `[-KEY]` deletes the key and everything under it). Nothing here has global state: every
 * function may run on any thread. */
#ifndef D12_REGISTRY_H
#define D12_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cfgfile.h"

/* Value types (winnt.h numbering; `hex(N):` gives type N). */
#define D12_REG_SZ 1u
#define D12_REG_BINARY 3u
#define D12_REG_DWORD 4u

/* Files larger than this are not read (one warning): a hive holds a few settings, not megabytes. The one limit
 * d12cfg also refuses to write past (cfgfile.h; issue 17 item 7.4). */
#define D12_REG_MAX_FILE_BYTES D12_CFGFILE_MAX_HIVE_BYTES
/* Windows' limit on a key name component; also the longest application name. */
#define D12_REG_MAX_NAME 255u
#define D12_REG_PATH_MAX 4096u

#define D12_REG_HKCU_ROOT "HKEY_CURRENT_USER"
#define D12_REG_HKLM_ROOT "HKEY_LOCAL_MACHINE"
#define D12_REG_APPS_KEY "Software\\Microsoft\\Direct3D\\Direct3D12"

typedef enum d12_reg_encoding {
    D12_REG_UTF8,     /* no byte-order mark */
    D12_REG_UTF8_BOM, /* EF BB BF */
    D12_REG_UTF16LE,  /* FF FE, as regedit exports */
} d12_reg_encoding;

typedef enum d12_reg_line_kind {
    D12_REG_LINE_BLANK, /* empty, white space or a `;` comment */
    D12_REG_LINE_HEADER,
    D12_REG_LINE_KEY,          /* [KEY] */
    D12_REG_LINE_KEY_DELETE,   /* [-KEY] */
    D12_REG_LINE_VALUE,        /* "Name"=data or @=data */
    D12_REG_LINE_VALUE_DELETE, /* "Name"=- */
    D12_REG_LINE_MALFORMED,    /* skipped, with one warning */
} d12_reg_line_kind;

/* One logical line: a hex value continued with a trailing `\` spans several physical lines. */
typedef struct d12_reg_line {
    d12_reg_line_kind kind;
    unsigned number;   /* its first physical line, from 1 */
    size_t begin, end; /* its bytes in d12_reg_file.text, line breaks included */
    char *key;         /* KEY, KEY_DELETE: the path as written */
    char *name;        /* VALUE, VALUE_DELETE: the name, unescaped ("" for @) */
    uint32_t type;     /* VALUE: D12_REG_SZ, D12_REG_DWORD, or N of hex(N) (hex: is D12_REG_BINARY) */
    bool is_dword;     /* VALUE: a 32-bit value (dword:, or hex(4): with exactly 4 bytes) */
    uint32_t dword;
} d12_reg_line;

typedef struct d12_reg_file {
    char *text; /* the file as UTF-8 (a UTF-16LE file converted), NUL-terminated after size bytes */
    size_t size;
    d12_reg_encoding encoding;
    bool crlf;   /* its first line break is CRLF (d12cfg writes new lines the same way) */
    bool exists;     /* d12__registry_load found a file */
    bool unreadable; /* ... but could not read it (it stands as an empty hive; d12cfg must not overwrite it) */
    d12_reg_line *lines;
    size_t count;
    unsigned warnings; /* lines skipped (and a missing header) */
} d12_reg_file;

/* Parses `size` bytes (UTF-16LE with a BOM, or UTF-8 with or without one). Each malformed line is skipped with
 * one line on `warnings` (NULL: none) naming `display_name:line`. Returns 0, or -1 with errno ENOMEM (then *out
 * is empty). Any input is accepted; this is the entry point of the fuzz target. Free with d12__registry_free. */
int d12__registry_parse_buffer(const void *bytes, size_t size, const char *display_name, FILE *warnings,
                               d12_reg_file *out);

/* Reads and parses the file at `path`. A missing file is an empty hive (no warning, exists = false); an
 * unreadable or oversized one is an empty hive with one warning. Returns -1 only when out of memory. */
int d12__registry_load(const char *path, FILE *warnings, d12_reg_file *out);

void d12__registry_free(d12_reg_file *file);

/* Key and value names compare case-insensitively (ASCII letters), as on Windows. */
bool d12__registry_name_equal(const char *a, const char *b);
/* `key` is `ancestor` or lies below it (case-insensitively). */
bool d12__registry_key_at_or_under(const char *key, const char *ancestor);

/* The dword value `name` of `key` (a full path, root included) once the whole file is applied. Returns false
 * when it is absent, deleted, or not a dword; *line gets the line that set it (may be NULL). */
bool d12__registry_get_dword(const d12_reg_file *file, const char *key, const char *name, uint32_t *value,
                             unsigned *line);

/* Any value `name` of `key` once the whole file is applied: its type (D12_REG_DWORD for a 32-bit value, else the
 * line's type) and, for a REG_DWORD, its data (else 0). False when it is absent or deleted. */
bool d12__registry_get_value(const d12_reg_file *file, const char *key, const char *name, uint32_t *type,
                             uint32_t *dword, unsigned *line);

/* Whether `key` exists once the whole file is applied (creating a subkey creates its parents). */
bool d12__registry_key_exists(const d12_reg_file *file, const char *key);

/* The existing direct subkeys of `parent`, each once (first spelling), in order of appearance: a malloc'ed
 * array of malloc'ed names in *names. Returns the count, or -1 when out of memory. */
long d12__registry_subkeys(const d12_reg_file *file, const char *parent, char ***names);

/* ---- Locations and the per-application key ---- */

/* The HKCU file: $D12RT_HKCU, or ${XDG_CONFIG_HOME:-$HOME/.config}/d12rt/user.reg. Returns false (and an empty
 * string) when there is none (no HOME) or it does not fit. */
bool d12__registry_hkcu_path(char *buf, size_t size);
/* The HKLM file: $D12RT_HKLM, or /etc/d12rt/system.reg. */
bool d12__registry_hklm_path(char *buf, size_t size);

/* A usable application name: 1 to 255 bytes, no backslash, no control character. */
bool d12__registry_valid_app_name(const char *name);
/* $D12RT_APP_NAME when set and valid (invalid: one warning on stderr, then ignored), else the file name of
 * /proc/self/exe. Returns false when neither gives a name. */
bool d12__registry_app_name(char *buf, size_t size);
/* "<root>\Software\Microsoft\Direct3D\Direct3D12\<app>"; false when it does not fit. */
bool d12__registry_app_key(char *buf, size_t size, const char *root, const char *app);

/* ---- The per-application settings ---- */

/* The Vulkan driver's validation mode (REG_DWORD 0 off, 1 core, 2 sync, 3 gpuav), read by the driver itself through
 * pfnQueryRegistryCb (drivers/vulkan/vkdrv.h D12_VKDRV_REGISTRY_VALIDATION names the same value); d12cfg writes it. */
#define D12_REG_VULKAN_VALIDATION "VulkanValidation"

typedef enum d12_reg_setting_id {
    D12_SETTING_DRM_AND,        /* EnableDriverReportedMessagesAnd, default 1 */
    D12_SETTING_DRM_OR,         /* EnableDriverReportedMessagesOr, default 0 */
    D12_SETTING_LAYER_AND,      /* D3D12SDKLayerFlagsAnd, default 0xFFFFFFFF */
    D12_SETTING_LAYER_OR,       /* D3D12SDKLayerFlagsOr, default 0 */
    D12_SETTING_REQUIRE_LAYERS, /* RequireSDKLayers, default 0 */
    /* DRED (issue 9): D3D12_DRED_ENABLEMENT numbers; they decide what the application leaves SYSTEM_CONTROLLED. */
    D12_SETTING_DRED_AUTO_BREADCRUMBS, /* DredAutoBreadcrumbs, default 0 (SYSTEM_CONTROLLED) */
    D12_SETTING_DRED_PAGE_FAULT,       /* DredPageFault, default 0 */
    D12_SETTING_DRED_CONTEXT,          /* DredBreadcrumbContext, default 0 */
    D12_SETTING_COUNT
} d12_reg_setting_id;

typedef enum d12_reg_source { D12_SOURCE_DEFAULT, D12_SOURCE_HKCU, D12_SOURCE_HKLM } d12_reg_source;

typedef struct d12_reg_setting {
    uint32_t value;
    d12_reg_source source;
    unsigned line; /* the line of the hive file that set it (0 for a default) */
} d12_reg_setting;

typedef struct d12_app_settings {
    char app_name[D12_REG_MAX_NAME + 1]; /* "" when no name could be found: every value is then its default */
    char hkcu_path[D12_REG_PATH_MAX];    /* the files read ("" when there is none) */
    char hklm_path[D12_REG_PATH_MAX];
    d12_reg_setting values[D12_SETTING_COUNT];
} d12_app_settings;

/* Bit 0 of the layer flags is the debug layer (the only bit defined; the others are kept, unused). */
#define D12_LAYER_FLAG_DEBUG 1u

const char *d12__registry_setting_name(d12_reg_setting_id id);
uint32_t d12__registry_setting_default(d12_reg_setting_id id);

/* Reads both hives for `app_name` (NULL: d12__registry_app_name) and resolves each value HKCU first, then HKLM,
 * then its default. Warnings about the files go to stderr. False when a hive could not be read for lack of
 * memory (its values are then defaults, which D3D12CreateDevice does not use: docs/reliability.md). */
bool d12__registry_app_settings(const char *app_name, d12_app_settings *out);

/* The same over hives already parsed (NULL: absent); leaves out's paths alone. */
void d12__registry_resolve(const d12_reg_file *hkcu, const d12_reg_file *hklm, const char *app_name,
                           d12_app_settings *out);

/* One value under the application's key for a driver (pfnQueryRegistryCb, docs/registry.md): both hives read now
 * for d12__registry_app_name's application, HKCU first, then HKLM. False when neither has it (or no application
 * name, or no memory); warnings about the files go to stderr. */
typedef struct d12_reg_app_value {
    uint32_t type, dword;
    d12_reg_source source;
    unsigned line;
} d12_reg_app_value;
bool d12__registry_app_value(const char *name, d12_reg_app_value *out);

/* What the device runs with once the overlay is applied to the application's latched choices. */
typedef struct d12_registry_overlay {
    bool debug_layer;              /* ((app_layer & LayerAnd) | LayerOr) & 1 */
    bool driver_reported_messages; /* ((app_drm & DrmAnd) | DrmOr) & 1: the toggle, the registry winning */
    bool driver_reported_messages_active; /* the toggle and the debug layer both on: the spec's condition */
    bool require_sdk_layers;       /* RequireSDKLayers != 0 (docs/registry.md: never fails here) */
} d12_registry_overlay;

d12_registry_overlay d12__registry_overlay(const d12_app_settings *settings, bool app_debug_layer,
                                           bool app_driver_reported_messages);

/* A DRED enablement after the overlay (D3D12_DRED_ENABLEMENT numbers: 0 SYSTEM_CONTROLLED, 1 FORCED_OFF,
 * 2 FORCED_ON): the application's FORCED_OFF/FORCED_ON wins; its SYSTEM_CONTROLLED defers to the registry value
 * `id`. A registry value that is no enablement number stays SYSTEM_CONTROLLED (off). docs/registry.md. */
uint32_t d12__registry_dred_enablement(const d12_app_settings *settings, d12_reg_setting_id id, uint32_t app_value);

#endif
