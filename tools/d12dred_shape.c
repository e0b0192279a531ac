/* d12dred's early refusal of a file that cannot be a DRED report (d12dred_shape.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfgfile.h"
#include "d12dred_shape.h"

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static const char *kind_of(char c)
{
    return c == '[' ? "an array" : c == '"' ? "a string" : c == 't' || c == 'f' ? "a boolean" : c == 'n' ? "null"
                                                                                                      : "a number";
}

/* The report's arrays hold objects, except these two members (docs/dred-report.schema.json): an op's
 * `event_stack` holds op indices, a report's `notes` strings. */
static bool holds_scalars(const char *key, size_t length, char first)
{
    if (length == 11 && memcmp(key, "event_stack", 11) == 0)
        return first == '-' || (first >= '0' && first <= '9');
    return length == 5 && memcmp(key, "notes", 5) == 0 && first == '"';
}

/* The lexer only counts values and looks at what follows '[' and precedes ':': strings are skipped whole (escapes
 * included), everything the parser would reject is left for the parser to name exactly. An array whose first
 * element is an object but whose later ones are scalars ("[{}, 1, 1, ...]") spends the value budget: two bytes a
 * value is four times over it. */
int d12dred_shape_check(const char *data, size_t size, char *error, size_t error_size)
{
    const char *p = data, *end = data + size;
    if (size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        return 0; /* the parser's own message */
    p = skip_space(p, end);
    if (p < end && *p != '{') {
        snprintf(error, error_size, "not a DRED report: the top level is %s, not an object", kind_of(*p));
        return -1;
    }
    size_t values = 0, limit = D12DRED_SHAPE_MAX_VALUES(size);
    const char *key = NULL; /* the last member name, for the '[' after it */
    size_t key_length = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            const char *start = ++p;
            for (; p < end && *p != '"'; p++) {
                if (*p == '\\')
                    p++;
            }
            size_t length = (size_t)(p - start);
            p++;
            const char *next = skip_space(p, end);
            if (next < end && *next == ':') { /* a key, not a value */
                key = start;
                key_length = length;
                p = next + 1;
                continue;
            }
            values++;
        } else if (c == '{') {
            values++;
            p++;
        } else if (c == '[') {
            values++;
            const char *next = skip_space(p + 1, end);
            if (next < end && *next != '{' && *next != ']' && !(key && holds_scalars(key, key_length, *next))) {
                snprintf(error, error_size, "not a DRED report: an array holds %s (a report's arrays hold objects)",
                         kind_of(*next));
                return -1;
            }
            key = NULL; /* an array's elements have no member name of their own */
            p = next;
        } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            values++;
            while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' &&
                   *p != '\t')
                p++;
        } else {
            p++;
        }
        if (values > limit) {
            snprintf(error, error_size,
                     "not a DRED report: more than %zu JSON values in %zu bytes (a report has one per 16 bytes or more)",
                     limit, size);
            return -1;
        }
    }
    return 0;
}

int d12dred_shape_load(const char *path, d12dred_report **out, char *error, size_t error_size)
{
    *out = NULL;
    unsigned char *bytes;
    size_t size;
    char why[160];
    char max_text[32];
    snprintf(max_text, sizeof max_text, "%zu MiB", D12DRED_MAX_FILE_BYTES >> 20);
    d12_cfgfile_status status = d12_cfgfile_read(path, D12DRED_MAX_FILE_BYTES, max_text, &bytes, &size, why, sizeof why);
    struct stat st;
    if (status == D12_CFGFILE_UNREADABLE && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(why, sizeof why, "is a directory"); /* the mistake users make most (issue 19 item 8) */
    if (status != D12_CFGFILE_OK) {
        snprintf(error, error_size, "cannot read %s: %s", path,
                 status == D12_CFGFILE_ABSENT ? "No such file or directory"
                 : status == D12_CFGFILE_NO_MEMORY ? "out of memory" : why);
        return -1;
    }
    int rc = d12dred_shape_check((const char *)bytes, size, error, error_size);
    if (rc == 0)
        rc = d12dred_report_parse_buffer((const char *)bytes, size, out, error, error_size);
    unsigned line = rc ? d12dred_report_error_line((const char *)bytes, size, error) : 0;
    if (line) { /* a member that is wrong: `FILE: line L: $.path: what` (a parse error says its line itself) */
        char copy[512];
        snprintf(copy, sizeof copy, "%s", error);
        snprintf(error, error_size, "line %u: %s", line, copy);
    }
    free(bytes);
    return rc;
}
