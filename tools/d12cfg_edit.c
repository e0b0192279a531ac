/* d12cfg's .reg editor (d12cfg_edit.h). The file is rewritten from its own line list: a line is either copied
 * as it was or dropped, and new value lines are inserted at one place, so comments, other keys, other values and
 * even malformed lines survive an edit untouched. */
#define _XOPEN_SOURCE 700 /* realpath, mkstemp, faccessat */
#define _DEFAULT_SOURCE    /* flock */

#include "d12cfg_edit.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgfile.h"
#include "nameset.h"

#define NO_LINE ((size_t)-1)

typedef struct text_buf {
    char *p;
    size_t n, cap;
    bool oom;
} text_buf;

static void put(text_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void put_str(text_buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* Ends the text so far with a line break (a file's last line may lack one). A last line ending in a backslash
 * would continue a value onto the next line, so an empty line closes it first. */
static void end_line(text_buf *b, const char *nl)
{
    if (b->n && b->p[b->n - 1] != '\n')
        put_str(b, nl);
    size_t end = b->n ? b->n - 1 : 0;
    while (end > 0 && (b->p[end - 1] == ' ' || b->p[end - 1] == '\t' || b->p[end - 1] == '\r'))
        end--;
    if (end > 0 && b->p[end - 1] == '\\')
        put_str(b, nl);
}


static bool any_set(const d12_reg_change *changes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (changes[i].set)
            return true;
    return false;
}

static bool is_key_line(const d12_reg_line *l)
{
    return l->kind == D12_REG_LINE_KEY || l->kind == D12_REG_LINE_KEY_DELETE;
}

/* A blank line with nothing on it (a comment is content: it is kept, and keeps its section). */
static bool empty_line(const d12_reg_file *f, const d12_reg_line *l)
{
    if (l->kind != D12_REG_LINE_BLANK)
        return false;
    for (size_t i = l->begin; i < l->end; i++)
        if (f->text[i] != ' ' && f->text[i] != '\t' && f->text[i] != '\r' && f->text[i] != '\n')
            return false;
    return true;
}

/* Drops every line of a [key] section that sets or deletes a changed name. The changed names are a hash set (issue
 * 29: a linear search per line made drm-clear of 16 000 pairs take 12 s). False only for lack of memory. */
static bool mark_changed_values(const d12_reg_file *f, const char *key, const d12_reg_change *changes,
                                size_t count, bool *drop)
{
    d12_reg_nameset changed = {0};
    for (size_t i = 0; i < count; i++) {
        if (!d12__reg_nameset_add(&changed, changes[i].name, i)) {
            d12__reg_nameset_free(&changed);
            return false;
        }
    }
    bool current = false;
    size_t at;
    for (size_t i = 0; i < f->count; i++) {
        const d12_reg_line *l = &f->lines[i];
        if (is_key_line(l))
            current = l->kind == D12_REG_LINE_KEY && d12__registry_name_equal(l->key, key);
        else if (current && l->name && d12__reg_nameset_find(&changed, l->name, &at))
            drop[i] = true;
    }
    d12__reg_nameset_free(&changed);
    return true;
}

/* The last [key] line that no later [-key] (or [-ancestor]) undoes, or NO_LINE. */
static size_t target_section(const d12_reg_file *f, const char *key)
{
    size_t last = NO_LINE;
    for (size_t i = 0; i < f->count; i++) {
        const d12_reg_line *l = &f->lines[i];
        if (l->kind == D12_REG_LINE_KEY && d12__registry_name_equal(l->key, key))
            last = i;
        else if (l->kind == D12_REG_LINE_KEY_DELETE && d12__registry_key_at_or_under(key, l->key))
            last = NO_LINE;
    }
    return last;
}

/* New values go after the section's last value (or malformed) line, before its trailing blank lines. */
static size_t insertion_line(const d12_reg_file *f, size_t section)
{
    size_t at = section;
    for (size_t i = section + 1; i < f->count && !is_key_line(&f->lines[i]); i++)
        if (f->lines[i].kind != D12_REG_LINE_BLANK)
            at = i;
    return at;
}

/* A [key] section (not the insertion target) whose every line is dropped or empty goes away with them. */
static void drop_empty_sections(const d12_reg_file *f, const char *key, size_t target, bool *drop)
{
    for (size_t i = 0; i < f->count; i++) {
        const d12_reg_line *l = &f->lines[i];
        if (i == target || l->kind != D12_REG_LINE_KEY || !d12__registry_name_equal(l->key, key))
            continue;
        size_t end = i + 1;
        bool empty = true;
        for (; end < f->count && !is_key_line(&f->lines[end]); end++)
            empty &= drop[end] || empty_line(f, &f->lines[end]);
        if (!empty)
            continue;
        for (size_t k = i; k < end; k++)
            drop[k] = true;
    }
}

static void put_values(text_buf *b, const d12_reg_change *changes, size_t count, const char *nl)
{
    for (size_t i = 0; i < count; i++) {
        if (!changes[i].set)
            continue;
        put_str(b, "\"");
        for (const char *c = changes[i].name; *c; c++) {
            if (*c == '\\' || *c == '"')
                put(b, "\\", 1);
            put(b, c, 1);
        }
        char data[32];
        snprintf(data, sizeof data, "\"=dword:%08x", (unsigned)changes[i].value);
        put_str(b, data);
        put_str(b, nl);
    }
}

static bool needs_header(const d12_reg_file *f)
{
    for (size_t i = 0; i < f->count; i++)
        if (f->lines[i].kind != D12_REG_LINE_BLANK)
            return f->lines[i].kind != D12_REG_LINE_HEADER;
    return true;
}

static void put_new_section(text_buf *b, const char *key, const d12_reg_change *changes, size_t count,
                            const char *nl)
{
    end_line(b, nl);
    size_t k = strlen(nl);
    /* a blank line between sections, as regedit writes them */
    if (b->n < 2 * k || memcmp(b->p + b->n - 2 * k, nl, k) != 0)
        put_str(b, nl);
    put_str(b, "[");
    put_str(b, key);
    put_str(b, "]");
    put_str(b, nl);
    put_values(b, changes, count, nl);
}

static void build(const d12_reg_file *f, const char *key, const d12_reg_change *changes, size_t count,
                  const bool *drop, size_t insert_after, text_buf *b)
{
    const char *nl = f->crlf ? "\r\n" : "\n";
    if (needs_header(f)) {
        put_str(b, "Windows Registry Editor Version 5.00");
        put_str(b, nl);
        if (f->count && !empty_line(f, &f->lines[0]))
            put_str(b, nl);
    }
    for (size_t i = 0; i < f->count; i++) {
        if (!drop[i])
            put(b, f->text + f->lines[i].begin, f->lines[i].end - f->lines[i].begin);
        if (i == insert_after) {
            end_line(b, nl);
            put_values(b, changes, count, nl);
        }
    }
    if (any_set(changes, count) && insert_after == NO_LINE)
        put_new_section(b, key, changes, count, nl);
}

static bool verify(const char *text, size_t size, const char *key, const d12_reg_change *changes, size_t count)
{
    d12_reg_file f;
    if (d12__registry_parse_buffer(text, size, "(edited)", NULL, &f) != 0)
        return false;
    /* Every changed name read back in one pass (one d12__registry_get_dword each was O(names x lines)). */
    const char **names = calloc(count ? count : 1, sizeof *names);
    bool *found = calloc(count ? count : 1, sizeof *found);
    uint32_t *values = calloc(count ? count : 1, sizeof *values);
    for (size_t i = 0; names && i < count; i++)
        names[i] = changes[i].name;
    bool ok = names && found && values && d12__registry_get_dwords(&f, key, names, count, found, values);
    for (size_t i = 0; ok && i < count; i++)
        ok = found[i] == changes[i].set && (!found[i] || values[i] == changes[i].value);
    free(names);
    free(found);
    free(values);
    d12__registry_free(&f);
    return ok;
}

d12_reg_edit_result d12__reg_edit(const d12_reg_file *file, const char *key, const d12_reg_change *changes,
                                  size_t count, char **text, size_t *size)
{
    *text = NULL;
    *size = 0;
    bool *drop = calloc(file->count + 1, sizeof *drop);
    if (!drop)
        return D12_REG_EDIT_NOMEM;
    if (!mark_changed_values(file, key, changes, count, drop)) {
        free(drop);
        return D12_REG_EDIT_NOMEM;
    }
    size_t target = any_set(changes, count) ? target_section(file, key) : NO_LINE;
    drop_empty_sections(file, key, target, drop);
    text_buf b = {0};
    build(file, key, changes, count, drop, target == NO_LINE ? NO_LINE : insertion_line(file, target), &b);
    free(drop);
    put(&b, "", 0); /* a NUL-terminated buffer even when empty */
    if (b.oom) {
        free(b.p);
        return D12_REG_EDIT_NOMEM;
    }
    if (!verify(b.p, b.n, key, changes, count)) {
        free(b.p);
        return D12_REG_EDIT_UNVERIFIED;
    }
    *text = b.p;
    *size = b.n;
    return D12_REG_EDIT_OK;
}

/* ------------------------------------------------------------------------------------------------------------
 * Encoding. */

/* One code point from UTF-8; anything invalid (stray continuation, overlong form, surrogate, past U+10FFFF,
 * truncated sequence) is one byte of U+FFFD. */
static size_t next_code_point(const unsigned char *s, size_t n, uint32_t *cp)
{
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
                                : s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : 0;
    *cp = 0xFFFD;
    if (len == 0 || len > n)
        return 1;
    uint32_t v = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 1;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 1;
    *cp = v;
    return len;
}

static unsigned char *to_utf16le(const char *text, size_t size, size_t *out_size)
{
    /* two units (4 bytes) at most per input byte, plus the BOM */
    unsigned char *out = malloc(size * 4 + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    out[o++] = 0xFF;
    out[o++] = 0xFE;
    for (size_t i = 0; i < size;) {
        uint32_t cp;
        i += next_code_point((const unsigned char *)text + i, size - i, &cp);
        uint32_t units[2] = {cp, 0};
        size_t count = 1;
        if (cp >= 0x10000) {
            units[0] = 0xD800 + ((cp - 0x10000) >> 10);
            units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
            count = 2;
        }
        for (size_t u = 0; u < count; u++) {
            out[o++] = (unsigned char)(units[u] & 0xFF);
            out[o++] = (unsigned char)(units[u] >> 8);
        }
    }
    *out_size = o;
    return out;
}

unsigned char *d12__reg_encode(const char *text, size_t size, d12_reg_encoding encoding, size_t *out_size)
{
    if (encoding == D12_REG_UTF16LE)
        return to_utf16le(text, size, out_size);
    size_t bom = encoding == D12_REG_UTF8_BOM ? 3 : 0;
    unsigned char *out = malloc(size + bom + 1);
    if (!out)
        return NULL;
    memcpy(out, "\xEF\xBB\xBF", bom);
    memcpy(out + bom, text, size);
    *out_size = size + bom;
    return out;
}

/* ------------------------------------------------------------------------------------------------------------
 * Atomic replacement. */

static int mkdir_parents(char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        int rc = mkdir_parents(dir);
        *slash = '/';
        if (rc != 0)
            return rc;
    }
    return mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static int write_all(int fd, const unsigned char *bytes, size_t size)
{
    while (size) {
        ssize_t w = write(fd, bytes, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        bytes += w;
        size -= (size_t)w;
    }
    return 0;
}

#define KEEP_OWNER_IMPOSSIBLE 1

/* Writes the temporary file (mode and owner of the file it replaces, 0644 for a new one) and fsyncs it. */
static int write_temp(const char *target, char *tmp, const unsigned char *bytes, size_t size, const char **step)
{
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *step = "cannot create a temporary file";
        return -1;
    }
    struct stat st;
    bool exists = stat(target, &st) == 0;
    mode_t mode = exists ? st.st_mode & 07777 : 0644;
    int rc = -1;
    struct stat mine;
    /* The replacement keeps the replaced file's owner and group (issue 17 item 7.7): a rename would otherwise hand
     * the file to whoever ran d12cfg. Who may not give a file away (not root) and does not own it gets
     * KEEP_OWNER_IMPOSSIBLE, and the caller rewrites the file in place instead. The owner goes first: chown clears
     * the set-id bits that fchmod then restores. */
    if (exists && fstat(fd, &mine) == 0 && (mine.st_uid != st.st_uid || mine.st_gid != st.st_gid) &&
        fchown(fd, st.st_uid, st.st_gid) != 0) {
        close(fd);
        unlink(tmp);
        return KEEP_OWNER_IMPOSSIBLE;
    }
    if (fchmod(fd, mode) != 0)
        *step = "cannot set the temporary file's mode";
    else if (write_all(fd, bytes, size) != 0)
        *step = "cannot write the temporary file";
    else if (fsync(fd) != 0)
        *step = "cannot fsync the temporary file";
    else
        rc = 0;
    if (close(fd) != 0 && rc == 0) {
        *step = "cannot close the temporary file";
        rc = -1;
    }
    if (rc != 0) {
        int err = errno;
        unlink(tmp);
        errno = err;
    }
    return rc;
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* best effort: the rename is done; some file systems refuse directory fsync */
        close(fd);
    }
}

/* The directory of `target` and a temporary name beside it: "<dir>/.<name>.XXXXXX". */
static int temp_name(const char *target, char *dir, size_t dir_size, char *tmp, size_t tmp_size)
{
    const char *slash = strrchr(target, '/');
    size_t dlen = !slash ? 0 : slash == target ? 1 : (size_t)(slash - target);
    const char *name = slash ? slash + 1 : target;
    if (dlen + 2 > dir_size)
        return -1;
    memcpy(dir, slash ? target : ".", slash ? dlen : 1);
    dir[slash ? dlen : 1] = '\0';
    int n = snprintf(tmp, tmp_size, "%.*s.%s.XXXXXX", (int)(name - target), target, name);
    return n >= 0 && (size_t)n < tmp_size ? 0 : -1;
}

/* One link's target, relative to the link's directory when it is relative. */
static int follow_link(char *target, size_t size)
{
    char link[PATH_MAX], joined[PATH_MAX];
    ssize_t n = readlink(target, link, sizeof link - 1);
    if (n < 0)
        return -1;
    link[n] = '\0';
    const char *slash = strrchr(target, '/');
    int len = link[0] == '/' || !slash
                  ? snprintf(joined, sizeof joined, "%s", link)
                  : snprintf(joined, sizeof joined, "%.*s%s", (int)(slash + 1 - target), target, link);
    if (len < 0 || (size_t)len >= size || (size_t)len >= sizeof joined)
        return -1;
    memcpy(target, joined, (size_t)len + 1);
    return 0;
}

/* `path`, or the file symbolic links at `path` name, existing or not (renaming over a link would replace the link,
 * not the file). */
static int resolve_target(const char *path, char *target, size_t size)
{
    int n = snprintf(target, size, "%s", path);
    if (n < 0 || (size_t)n >= size)
        return -1;
    struct stat st;
    for (int depth = 0; lstat(target, &st) == 0 && S_ISLNK(st.st_mode); depth++)
        if (depth == 40 || follow_link(target, size) != 0)
            return -1;
    return 0;
}

/* The file belongs to someone else who lets this user write it: rewritten through its own inode, so owner, group,
 * mode and hard links stay (not atomic against a crash, as a rename would be; d12cfg's lock still keeps concurrent
 * runs apart). */
static int write_in_place(const char *target, const unsigned char *bytes, size_t size, const char **step)
{
    int fd = open(target, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *step = "cannot open the file to rewrite it";
        return -1;
    }
    int rc = -1;
    if (write_all(fd, bytes, size) != 0)
        *step = "cannot rewrite the file";
    else if (ftruncate(fd, (off_t)size) != 0)
        *step = "cannot truncate the file";
    else if (fsync(fd) != 0)
        *step = "cannot fsync the file";
    else
        rc = 0;
    int err = errno;
    close(fd);
    errno = err;
    return rc;
}

int d12__reg_write_atomic(const char *path, const void *bytes, size_t size, const char **step)
{
    char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
    if (resolve_target(path, target, sizeof target) != 0 || temp_name(target, dir, sizeof dir, tmp, sizeof tmp)) {
        *step = "cannot resolve the path";
        return -1;
    }
    if (mkdir_parents(dir) != 0) {
        *step = "cannot create the directory";
        return -1;
    }
    int written = write_temp(target, tmp, bytes, size, step);
    if (written == KEEP_OWNER_IMPOSSIBLE)
        return write_in_place(target, bytes, size, step);
    if (written != 0)
        return -1;
    if (rename(tmp, target) != 0) {
        int err = errno;
        *step = "cannot rename the temporary file";
        unlink(tmp);
        errno = err;
        return -1;
    }
    fsync_dir(dir);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------
 * Read, edit, write: one update of a hive (issue 17 items 7.4-7.7). */

/* The encodings d12cfg can rewrite: UTF-8 (with or without its BOM) and UTF-16LE with its BOM, as regedit writes.
 * A file that is UTF-16 without a BOM (NUL bytes in the text), UTF-16BE, or holds a NUL anywhere would get UTF-8
 * lines appended to it, a mixed file neither side can read: NULL when the bytes are one of those, else the name. */
static const char *unsupported_encoding(const unsigned char *b, size_t n)
{
    if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF)
        return "UTF-16BE";
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE)
        return NULL; /* UTF-16LE with its BOM: decoded and re-encoded */
    if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF)
        return "UTF-32BE";
    const unsigned char *nul = memchr(b, 0, n);
    if (!nul)
        return NULL;
    size_t at = (size_t)(nul - b);
    return at % 2 ? "UTF-16LE without a byte-order mark" : "UTF-16BE without a byte-order mark";
}

/* Holds an exclusive advisory lock on the sidecar file "<target>.lock" (created 0644, never removed: removing it
 * would let two runs lock two different files). Every d12cfg run holds it from reading the hive until its rename
 * is done, so concurrent runs apply their edits one after another instead of each rewriting the file it read. */
static int lock_hive(const char *target, const char **step)
{
    char lock[PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", target) >= (int)sizeof lock) {
        *step = "the path is too long";
        return -1;
    }
    int fd = open(lock, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd < 0) {
        *step = "cannot open the lock file beside it";
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int err = errno;
            close(fd);
            errno = err;
            *step = "cannot lock the lock file beside it";
            return -1;
        }
    }
    return fd;
}

static int refuse(FILE *errors, const char *path, const char *what)
{
    fprintf(errors, "d12cfg: %s: %s; the file is unchanged\n", path, what);
    return 1;
}

/* Under the lock: read, check, edit, encode, check the size, write. */
/* The changes plus a delete of every name `names` finds (none when NULL): *all is malloc'ed; false out of memory. */
static bool with_names(const d12_reg_file *hive, const char *key, const d12_reg_change *changes, size_t count,
                       d12_reg_names_fn names, d12_reg_change **all, size_t *all_count, char ***found, long *named)
{
    *found = NULL;
    *named = names ? names(hive, key, found) : 0;
    if (*named < 0)
        return false;
    *all = calloc((size_t)*named + count + 1, sizeof **all);
    if (!*all)
        return false;
    for (long i = 0; i < *named; i++)
        (*all)[i] = (d12_reg_change){(*found)[i], false, 0};
    if (count)
        memcpy(*all + *named, changes, count * sizeof *changes);
    *all_count = (size_t)*named + count;
    return true;
}

static void free_names(char **found, long named)
{
    for (long i = 0; i < named; i++)
        free(found[i]);
    free(found);
}

static int update_locked(const char *path, const char *target, const char *key, const d12_reg_change *changes,
                         size_t count, d12_reg_names_fn names, FILE *errors)
{
    unsigned char *raw;
    size_t raw_size;
    char why[160], what[256];
    d12_cfgfile_status status = d12_cfgfile_read(target, D12_CFGFILE_MAX_HIVE_BYTES, D12_CFGFILE_MAX_HIVE_TEXT, &raw,
                                                 &raw_size, why, sizeof why);
    if (status == D12_CFGFILE_NO_MEMORY)
        return refuse(errors, path, "out of memory");
    if (status == D12_CFGFILE_UNREADABLE) {
        snprintf(what, sizeof what, "cannot be read (%s), so it is not rewritten", why);
        return refuse(errors, path, what);
    }
    bool exists = status == D12_CFGFILE_OK;
    const char *encoding = exists ? unsupported_encoding(raw, raw_size) : NULL;
    if (encoding) {
        free(raw);
        snprintf(what, sizeof what, "unsupported encoding (%s)", encoding);
        return refuse(errors, path, what);
    }
    /* "Refuse when the user could not write the file itself": the rename needs only the directory, so without this
     * a user could replace a read-only file, or one of another user's, with a file of their own. The effective IDs
     * decide, as they do for open (AT_EACCESS); root may write any file, as open would let it. */
    if (exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0) {
        int err = errno;
        free(raw);
        snprintf(what, sizeof what, "you cannot write this file (%s), so it is not replaced", strerror(err));
        return refuse(errors, path, what);
    }
    d12_reg_file hive;
    int parsed = d12__registry_parse_buffer(raw ? raw : (const unsigned char *)"", raw_size, path, errors, &hive);
    free(raw);
    if (parsed != 0)
        return refuse(errors, path, "out of memory");
    hive.exists = exists;
    char *text;
    size_t size, bytes_size, all_count = 0;
    d12_reg_change *all = NULL;
    char **found = NULL;
    long named = 0;
    if (!with_names(&hive, key, changes, count, names, &all, &all_count, &found, &named)) {
        free(all);
        free_names(found, named > 0 ? named : 0);
        d12__registry_free(&hive);
        return refuse(errors, path, "out of memory");
    }
    d12_reg_edit_result r = d12__reg_edit(&hive, key, all, all_count, &text, &size);
    free(all);
    free_names(found, named);
    d12_reg_encoding out_encoding = exists ? hive.encoding : D12_REG_UTF8; /* regedit's UTF-16LE stays UTF-16LE */
    d12__registry_free(&hive);
    if (r != D12_REG_EDIT_OK)
        return refuse(errors, path, r == D12_REG_EDIT_NOMEM ? "out of memory"
                                                            : "the edited file would not read back as written");
    unsigned char *bytes = d12__reg_encode(text, size, out_encoding, &bytes_size);
    free(text);
    if (!bytes)
        return refuse(errors, path, "out of memory");
    /* The runtime reads no hive larger than this (every setting would then read as absent): one limit, both sides. */
    if (bytes_size > D12_CFGFILE_MAX_HIVE_BYTES) {
        free(bytes);
        snprintf(what, sizeof what, "the edited file would be %zu bytes, more than the %s the runtime reads",
                 bytes_size, D12_CFGFILE_MAX_HIVE_TEXT);
        return refuse(errors, path, what);
    }
    const char *step = "out of memory";
    int rc = d12__reg_write_atomic(target, bytes, bytes_size, &step);
    if (rc != 0) {
        snprintf(what, sizeof what, "%s: %s", step, strerror(errno));
        refuse(errors, path, what);
    }
    free(bytes);
    return rc == 0 ? 0 : 1;
}

int d12__reg_update(const char *path, const char *key, const d12_reg_change *changes, size_t count, FILE *errors)
{
    return d12__reg_update_names(path, key, changes, count, NULL, errors);
}

int d12__reg_update_names(const char *path, const char *key, const d12_reg_change *changes, size_t count,
                          d12_reg_names_fn names, FILE *errors)
{
    char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
    if (resolve_target(path, target, sizeof target) != 0 || temp_name(target, dir, sizeof dir, tmp, sizeof tmp))
        return refuse(errors, path, "cannot resolve the path");
    if (mkdir_parents(dir) != 0) {
        char what[256];
        snprintf(what, sizeof what, "cannot create the directory: %s", strerror(errno));
        return refuse(errors, path, what);
    }
    const char *step = NULL;
    int lock = lock_hive(target, &step);
    if (lock < 0) {
        char what[256];
        snprintf(what, sizeof what, "%s: %s", step, strerror(errno));
        return refuse(errors, path, what);
    }
    int rc = update_locked(path, target, key, changes, count, names, errors);
    close(lock); /* releases the lock */
    return rc;
}
