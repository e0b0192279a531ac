/* The .reg file: decoding, the parser, loading and the lookups that replay a parsed file (registry.h,
 * docs/registry.md). Which files, which keys and what the values mean are overlay.c's; rewriting a file is
 * tools/d12cfg_edit.c's (the writer, on the line list kept here).
 *
 * Parsing never stops early: each logical line is classified on its own, a malformed one is kept in the line list
 * (so d12cfg preserves it) with one warning, and the next line starts afresh. Lookups replay the line list, which
 * gives import order semantics without building a tree. */
#define _POSIX_C_SOURCE 200809L

#include "registry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utf8.h"

static const char header5[] = "Windows Registry Editor Version 5.00";
static const char header4[] = "REGEDIT4";

/* ------------------------------------------------------------------------------------------------------------
 * Decoding: everything becomes UTF-8 text. */

/* UTF-16LE to UTF-8; unpaired surrogates and a dangling odd byte become U+FFFD rather than an error, so a
 * damaged file still yields its readable lines. */
static char *utf16le_to_utf8(const unsigned char *b, size_t n, size_t *out_size)
{
    /* each unit gives at most 3 bytes (a pair gives 4 for 2 units); +3 for a dangling byte, +1 for the NUL */
    char *out = malloc(n / 2 * 3 + 4);
    if (!out)
        return NULL;
    size_t o = 0, i = 0;
    while (i + 1 < n) {
        uint32_t u = b[i] | (uint32_t)b[i + 1] << 8;
        i += 2;
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < n) {
            uint32_t lo = b[i] | (uint32_t)b[i + 1] << 8;
            if (lo >= 0xDC00 && lo < 0xE000) {
                i += 2;
                o += d12__utf8_put(out + o, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                continue;
            }
        }
        o += d12__utf8_put(out + o, u); /* an unpaired surrogate becomes U+FFFD */
    }
    if (i < n)
        o += d12__utf8_put(out + o, 0xFFFD);
    out[o] = '\0';
    *out_size = o;
    return out;
}

static int decode(const unsigned char *b, size_t n, d12_reg_file *f)
{
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
        f->encoding = D12_REG_UTF16LE;
        f->text = utf16le_to_utf8(b + 2, n - 2, &f->size);
        return f->text ? 0 : -1;
    }
    size_t skip = 0;
    f->encoding = D12_REG_UTF8;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        f->encoding = D12_REG_UTF8_BOM;
        skip = 3;
    }
    f->size = n - skip;
    f->text = malloc(f->size + 1);
    if (!f->text)
        return -1;
    if (f->size)
        memcpy(f->text, b + skip, f->size);
    f->text[f->size] = '\0';
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------
 * Small text helpers over (pointer, length) spans: lines are not NUL-terminated. */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static bool span_ieq_prefix(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)prefix[i]))
            return false;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)ascii_lower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static char *dup_span(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

bool d12__registry_name_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
            return false;
        if (!*a)
            return true;
    }
}

bool d12__registry_key_at_or_under(const char *key, const char *ancestor)
{
    size_t n = strlen(ancestor);
    if (strlen(key) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)key[i]) != ascii_lower((unsigned char)ancestor[i]))
            return false;
    return key[n] == '\0' || key[n] == '\\';
}

/* ------------------------------------------------------------------------------------------------------------
 * Classifying one logical line. Each parse_* returns NULL on success or the reason the line is malformed. */

static const char *const roots[] = {"HKEY_CURRENT_USER",   "HKEY_LOCAL_MACHINE", "HKEY_CLASSES_ROOT",
                                    "HKEY_USERS",          "HKEY_CURRENT_CONFIG"};

static const char *check_key_path(const char *s, size_t n)
{
    if (n == 0)
        return "empty key name";
    size_t comp = 0, first_len = 0;
    bool first = true;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '\\') {
            comp++;
            continue;
        }
        if (comp == 0)
            return "empty component in key name";
        if (comp > D12_REG_MAX_NAME)
            return "key name component longer than 255 bytes";
        if (first)
            first_len = comp;
        first = false;
        comp = 0;
    }
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++)
        if (first_len == strlen(roots[r]) && span_ieq_prefix(s, n, roots[r]))
            return NULL;
    return "key outside HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE, HKEY_CLASSES_ROOT, HKEY_USERS, HKEY_CURRENT_CONFIG";
}

static const char *parse_key(const char *s, size_t n, d12_reg_line *line)
{
    if (s[n - 1] != ']')
        return "key line does not end with ']'";
    bool del = n >= 2 && s[1] == '-';
    const char *path = s + 1 + del;
    size_t len = n - 2 - del;
    const char *why = check_key_path(path, len);
    if (why)
        return why;
    if (!(line->key = dup_span(path, len)))
        return "";
    line->kind = del ? D12_REG_LINE_KEY_DELETE : D12_REG_LINE_KEY;
    return NULL;
}

/* A quoted string starting at s[*i] == '"', with the escapes \\ and \"; *i ends after the closing quote.
 * When out is non-NULL the unescaped bytes go there (it has room for n bytes). */
static const char *parse_quoted(const char *s, size_t n, size_t *i, char *out, size_t *out_len)
{
    size_t o = 0;
    for (size_t k = *i + 1; k < n; k++) {
        char c = s[k];
        if (c == '"') {
            *i = k + 1;
            if (out_len)
                *out_len = o;
            return NULL;
        }
        if (c == '\\') {
            if (k + 1 >= n || (s[k + 1] != '\\' && s[k + 1] != '"'))
                return "unknown escape in a quoted string (only \\\\ and \\\" exist)";
            c = s[++k];
        }
        if (out)
            out[o] = c;
        o++;
    }
    return "unterminated quoted string";
}

/* After the data: white space, then nothing or a `;` comment. */
static const char *check_tail(const char *s, size_t n, size_t i)
{
    while (i < n && is_blank(s[i]))
        i++;
    return i == n || s[i] == ';' ? NULL : "unexpected text after the value";
}

static const char *parse_dword(const char *s, size_t n, size_t i, d12_reg_line *line)
{
    size_t digits = 0;
    uint32_t v = 0;
    for (; i < n && hex_digit(s[i]) >= 0; i++, digits++)
        v = v << 4 | (uint32_t)hex_digit(s[i]);
    if (digits == 0 || digits > 8)
        return "dword value needs 1 to 8 hex digits";
    line->type = D12_REG_DWORD;
    line->is_dword = true;
    line->dword = v;
    return check_tail(s, n, i);
}

/* The `(N)` of hex(N): at s[*i] == '('. */
static const char *parse_hex_type(const char *s, size_t n, size_t *i, uint32_t *type)
{
    size_t digits = 0;
    for (*type = 0, ++*i; *i < n && hex_digit(s[*i]) >= 0; ++*i, digits++)
        *type = *type << 4 | (uint32_t)hex_digit(s[*i]);
    if (digits == 0 || digits > 8 || *i >= n || s[*i] != ')')
        return "hex(N): needs a type of 1 to 8 hex digits";
    ++*i;
    return NULL;
}

/* hex: / hex(N): bytes "hh,hh,..." (continuations already joined). A hex(4) of exactly four bytes is a dword,
 * little-endian, as regedit stores it. */
static const char *parse_hex(const char *s, size_t n, size_t i, d12_reg_line *line)
{
    uint32_t type = D12_REG_BINARY, low = 0;
    const char *why = i < n && s[i] == '(' ? parse_hex_type(s, n, &i, &type) : NULL;
    if (why)
        return why;
    if (i >= n || s[i] != ':')
        return "hex value needs ':'";
    size_t count = 0;
    for (i++;; count++) {
        while (i < n && is_blank(s[i]))
            i++;
        if (i == n || s[i] == ';')
            break;
        if (count && s[i++] != ',')
            return "hex bytes must be separated by ','";
        while (i < n && is_blank(s[i]))
            i++;
        size_t start = i;
        uint32_t byte = 0;
        for (; i < n && hex_digit(s[i]) >= 0 && i - start < 3; i++)
            byte = byte << 4 | (uint32_t)hex_digit(s[i]);
        if (i == start || i - start > 2)
            return "hex bytes must be one or two hex digits each";
        if (count < 4)
            low |= byte << (8 * count);
    }
    line->type = type;
    line->is_dword = type == D12_REG_DWORD && count == 4;
    line->dword = line->is_dword ? low : 0;
    return NULL;
}

static const char *parse_data(const char *s, size_t n, size_t i, d12_reg_line *line)
{
    if (i < n && s[i] == '-') {
        line->kind = D12_REG_LINE_VALUE_DELETE;
        return check_tail(s, n, i + 1);
    }
    line->kind = D12_REG_LINE_VALUE;
    if (i < n && s[i] == '"') {
        const char *why = parse_quoted(s, n, &i, NULL, NULL);
        line->type = D12_REG_SZ;
        return why ? why : check_tail(s, n, i);
    }
    if (span_ieq_prefix(s + i, n - i, "dword:"))
        return parse_dword(s, n, i + 6, line);
    if (span_ieq_prefix(s + i, n - i, "hex"))
        return parse_hex(s, n, i + 3, line);
    return "unknown value data (expected dword:, hex:, hex(N):, a quoted string or -)";
}

static const char *parse_value(const char *s, size_t n, d12_reg_line *line)
{
    size_t i = 0, len = 0;
    if (s[0] == '@') {
        i = 1;
    } else {
        const char *why = parse_quoted(s, n, &i, NULL, &len);
        if (why)
            return why;
    }
    if (!(line->name = malloc(len + 1)))
        return "";
    if (s[0] == '"') {
        size_t j = 0;
        parse_quoted(s, n, &j, line->name, NULL);
    }
    line->name[len] = '\0';
    if (len > 16383)
        return "value name longer than 16383 bytes";
    while (i < n && is_blank(s[i]))
        i++;
    if (i >= n || s[i] != '=')
        return "value name must be followed by '='";
    for (i++; i < n && is_blank(s[i]);)
        i++;
    return parse_data(s, n, i, line);
}

/* ------------------------------------------------------------------------------------------------------------
 * The line loop. */

typedef struct parser {
    d12_reg_file *f;
    const char *display;
    FILE *warnings;
    char *join;          /* a continued value line, joined */
    size_t join_cap;
    bool seen_content;   /* a non-blank line came before */
    bool in_key;         /* values now belong to a key */
    bool oom;
} parser;

static void warn(parser *p, unsigned number, const char *what, bool skipped)
{
    p->f->warnings++;
    if (p->warnings)
        fprintf(p->warnings, "%s:%u: warning: %s%s\n", p->display, number, what, skipped ? "; line skipped" : "");
}

static bool join_append(parser *p, size_t *len, const char *s, size_t n)
{
    if (*len + n + 1 > p->join_cap) {
        size_t cap = (*len + n + 1) * 2;
        char *j = realloc(p->join, cap);
        if (!j)
            return false;
        p->join = j;
        p->join_cap = cap;
    }
    memcpy(p->join + *len, s, n);
    *len += n;
    return true;
}

/* The physical line at `pos`: its content without the line break (trailing blanks trimmed) and where the next
 * line starts. */
static void physical_line(const char *t, size_t size, size_t pos, size_t *content_end, size_t *next)
{
    const char *nl = memchr(t + pos, '\n', size - pos);
    size_t end = nl ? (size_t)(nl - t) : size;
    *next = nl ? end + 1 : size;
    while (end > pos && is_blank(t[end - 1]))
        end--;
    *content_end = end;
}

static size_t skip_leading_blanks(const char *t, size_t pos, size_t end)
{
    while (pos < end && is_blank(t[pos]))
        pos++;
    return pos;
}

/* Gathers the logical line starting at `pos` (a value continued by trailing backslashes) into s/n; returns the
 * offset after it and counts the physical lines it took. */
static size_t logical_line(parser *p, size_t pos, const char **s, size_t *n, unsigned *physical)
{
    const char *t = p->f->text;
    size_t end, next;
    physical_line(t, p->f->size, pos, &end, &next);
    pos = skip_leading_blanks(t, pos, end);
    *s = t + pos;
    *n = end - pos;
    *physical = 1;
    if (!(*n && (t[pos] == '"' || t[pos] == '@') && t[end - 1] == '\\'))
        return next;
    size_t len = 0;
    bool ok = join_append(p, &len, t + pos, end - pos - 1);
    while (ok && t[end - 1] == '\\' && next < p->f->size) {
        pos = next;
        physical_line(t, p->f->size, pos, &end, &next);
        pos = skip_leading_blanks(t, pos, end);
        (*physical)++;
        bool more = end > pos && t[end - 1] == '\\';
        ok = join_append(p, &len, t + pos, end - pos - more);
        if (!more)
            break;
    }
    p->oom |= !ok;
    *s = p->join;
    *n = ok ? len : 0;
    return next;
}

static const char *classify(parser *p, const char *s, size_t n, d12_reg_line *line)
{
    if (n == 0 || s[0] == ';')
        return NULL;
    if (memchr(s, '\0', n))
        return "NUL character in the line";
    if ((n == sizeof header5 - 1 && !memcmp(s, header5, n)) || (n == sizeof header4 - 1 && !memcmp(s, header4, n))) {
        line->kind = D12_REG_LINE_HEADER;
        return p->seen_content ? "header repeated after the first line" : NULL;
    }
    if (s[0] == '[')
        return parse_key(s, n, line);
    if (s[0] == '"' || s[0] == '@') {
        const char *why = parse_value(s, n, line);
        if (!why && !p->in_key)
            why = "value outside a key (no [KEY] line before it, or the key was deleted)";
        return why;
    }
    return "not a header, [KEY], value or ; comment";
}

static void free_line(d12_reg_line *line)
{
    free(line->key);
    free(line->name);
    line->key = line->name = NULL;
}

/* Classifies one logical line, warns about it if needed, and updates the parser's state. */
static void take_line(parser *p, d12_reg_line *line, const char *s, size_t n)
{
    const char *why = classify(p, s, n, line);
    if (why && !*why) {
        p->oom = true;
        return;
    }
    if (why) {
        free_line(line);
        line->kind = D12_REG_LINE_MALFORMED;
        warn(p, line->number, why, true);
    } else if (line->kind != D12_REG_LINE_BLANK && line->kind != D12_REG_LINE_HEADER && !p->seen_content) {
        warn(p, line->number, "no \"Windows Registry Editor Version 5.00\" header before this line; reading on",
             false);
    }
    if (line->kind == D12_REG_LINE_KEY || line->kind == D12_REG_LINE_KEY_DELETE)
        p->in_key = line->kind == D12_REG_LINE_KEY;
    if (line->kind != D12_REG_LINE_BLANK)
        p->seen_content = true;
}

static bool push_line(d12_reg_file *f, size_t *cap)
{
    if (f->count == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        d12_reg_line *l = realloc(f->lines, c * sizeof *l);
        if (!l)
            return false;
        f->lines = l;
        *cap = c;
    }
    memset(&f->lines[f->count++], 0, sizeof f->lines[0]);
    return true;
}

static void parse_lines(parser *p)
{
    d12_reg_file *f = p->f;
    size_t cap = 0, pos = 0;
    unsigned number = 1;
    const char *nl = memchr(f->text, '\n', f->size);
    f->crlf = nl && nl > f->text && nl[-1] == '\r';
    while (pos < f->size && !p->oom) {
        if (!push_line(f, &cap)) {
            p->oom = true;
            break;
        }
        d12_reg_line *line = &f->lines[f->count - 1];
        const char *s;
        size_t n;
        unsigned physical;
        line->begin = pos;
        line->number = number;
        pos = logical_line(p, pos, &s, &n, &physical);
        line->end = pos;
        number += physical;
        if (!p->oom)
            take_line(p, line, s, n);
    }
}

void d12__registry_free(d12_reg_file *file)
{
    for (size_t i = 0; i < file->count; i++)
        free_line(&file->lines[i]);
    free(file->lines);
    free(file->text);
    memset(file, 0, sizeof *file);
}

int d12__registry_parse_buffer(const void *bytes, size_t size, const char *display_name, FILE *warnings,
                               d12_reg_file *out)
{
    memset(out, 0, sizeof *out);
    if (decode(bytes, size, out) != 0) {
        errno = ENOMEM;
        return -1;
    }
    parser p = {.f = out, .display = display_name ? display_name : "(registry)", .warnings = warnings};
    parse_lines(&p);
    free(p.join);
    if (p.oom) {
        d12__registry_free(out);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------
 * Reading a file. */

static int load_warn(FILE *warnings, const char *path, const char *what, int err, d12_reg_file *out)
{
    if (warnings)
        fprintf(warnings, "%s: warning: %s%s%s; read as empty\n", path, what, err ? ": " : "",
                err ? strerror(err) : "");
    memset(out, 0, sizeof *out);
    out->exists = true;
    out->unreadable = true;
    out->warnings = 1;
    out->text = calloc(1, 1);
    return out->text ? 0 : -1;
}

int d12__registry_load(const char *path, FILE *warnings, d12_reg_file *out)
{
    memset(out, 0, sizeof *out);
    /* Nothing the path names may block device creation or take unbounded memory (a FIFO, /dev/zero): the shared
     * safe read (cfgfile.h) opens without blocking, reads only a regular file, and at most 16 MiB of it. */
    unsigned char *bytes;
    size_t size;
    char why[160];
    switch (d12_cfgfile_read(path, D12_REG_MAX_FILE_BYTES, D12_CFGFILE_MAX_HIVE_TEXT, &bytes, &size, why,
                             sizeof why)) {
    case D12_CFGFILE_ABSENT:
        out->text = calloc(1, 1);
        return out->text ? 0 : -1;
    case D12_CFGFILE_NO_MEMORY:
        return -1;
    case D12_CFGFILE_UNREADABLE:
        return load_warn(warnings, path, why, 0, out);
    case D12_CFGFILE_OK:
        break;
    }
    int rc = d12__registry_parse_buffer(bytes, size, path, warnings, out);
    free(bytes);
    out->exists = true;
    return rc;
}

/* ------------------------------------------------------------------------------------------------------------
 * Lookups: replay the lines in order. */

bool d12__registry_get_dword(const d12_reg_file *file, const char *key, const char *name, uint32_t *value,
                             unsigned *line)
{
    bool current = false, found = false;
    for (size_t i = 0; i < file->count; i++) {
        const d12_reg_line *l = &file->lines[i];
        switch (l->kind) {
        case D12_REG_LINE_KEY:
            current = d12__registry_name_equal(l->key, key);
            break;
        case D12_REG_LINE_KEY_DELETE:
            found &= !d12__registry_key_at_or_under(key, l->key);
            current = false;
            break;
        case D12_REG_LINE_VALUE:
        case D12_REG_LINE_VALUE_DELETE:
            if (!current || !d12__registry_name_equal(l->name, name))
                break;
            /* a value of another type replaces the dword: it is then absent as a dword */
            found = l->kind == D12_REG_LINE_VALUE && l->is_dword;
            if (found) {
                *value = l->dword;
                if (line)
                    *line = l->number;
            }
            break;
        default:
            break;
        }
    }
    return found;
}

bool d12__registry_get_value(const d12_reg_file *file, const char *key, const char *name, uint32_t *type,
                             uint32_t *dword, unsigned *line)
{
    bool current = false;
    const d12_reg_line *found = NULL;
    for (size_t i = 0; i < file->count; i++) {
        const d12_reg_line *l = &file->lines[i];
        if (l->kind == D12_REG_LINE_KEY)
            current = d12__registry_name_equal(l->key, key);
        else if (l->kind == D12_REG_LINE_KEY_DELETE) {
            if (found && d12__registry_key_at_or_under(key, l->key))
                found = NULL;
            current = false;
        } else if ((l->kind == D12_REG_LINE_VALUE || l->kind == D12_REG_LINE_VALUE_DELETE) && current &&
                   d12__registry_name_equal(l->name, name))
            found = l->kind == D12_REG_LINE_VALUE ? l : NULL;
    }
    if (!found)
        return false;
    /* dword: and hex(4): with 4 bytes are REG_DWORD; hex(4): of another length stays type 4 with no data */
    *type = found->is_dword ? D12_REG_DWORD : found->type;
    *dword = found->is_dword ? found->dword : 0;
    if (line)
        *line = found->number;
    return true;
}

bool d12__registry_key_exists(const d12_reg_file *file, const char *key)
{
    bool exists = false;
    for (size_t i = 0; i < file->count; i++) {
        const d12_reg_line *l = &file->lines[i];
        if (l->kind == D12_REG_LINE_KEY && d12__registry_key_at_or_under(l->key, key))
            exists = true;
        else if (l->kind == D12_REG_LINE_KEY_DELETE && d12__registry_key_at_or_under(key, l->key))
            exists = false;
    }
    return exists;
}

static bool seen_name(char **names, long count, const char *s, size_t n)
{
    for (long i = 0; i < count; i++)
        if (strlen(names[i]) == n && span_ieq_prefix(s, n, names[i]))
            return true;
    return false;
}

static void free_names(char **names, long count)
{
    for (long i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* Collects the distinct first components below `parent` of every [KEY] line, existing or not. */
static long candidate_subkeys(const d12_reg_file *file, const char *parent, char ***names)
{
    size_t plen = strlen(parent);
    long count = 0;
    *names = NULL;
    for (size_t i = 0; i < file->count; i++) {
        const d12_reg_line *l = &file->lines[i];
        if (l->kind != D12_REG_LINE_KEY || !d12__registry_key_at_or_under(l->key, parent) || l->key[plen] != '\\')
            continue;
        const char *s = l->key + plen + 1;
        size_t n = strcspn(s, "\\");
        if (seen_name(*names, count, s, n))
            continue;
        char **grown = realloc(*names, (size_t)(count + 1) * sizeof *grown);
        char *copy = grown ? dup_span(s, n) : NULL;
        if (grown)
            *names = grown;
        if (!copy) {
            free_names(*names, count);
            *names = NULL;
            return -1;
        }
        (*names)[count++] = copy;
    }
    return count;
}

long d12__registry_subkeys(const d12_reg_file *file, const char *parent, char ***names)
{
    long count = candidate_subkeys(file, parent, names);
    if (count < 0)
        return -1;
    long kept = 0;
    for (long i = 0; i < count; i++) {
        char key[D12_REG_PATH_MAX];
        int len = snprintf(key, sizeof key, "%s\\%s", parent, (*names)[i]);
        if (len > 0 && (size_t)len < sizeof key && d12__registry_key_exists(file, key))
            (*names)[kept++] = (*names)[i];
        else
            free((*names)[i]);
    }
    return kept;
}
