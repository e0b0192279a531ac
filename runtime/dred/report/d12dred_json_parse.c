/* The bounded recursive-descent JSON parser (RFC 8259) of the d12dred_report reader: text -> a small tree
 * (d12dred_internal.h). Hostile input is the design case: the input is bounded (D12DRED_MAX_FILE_BYTES), nesting
 * is bounded (D12DRED_MAX_DEPTH, so the recursion is too), every read checks the end of the buffer, strings must
 * be valid UTF-8 and their escapes valid (surrogates paired, no \u0000: the model's strings are C strings),
 * numbers follow the JSON grammar (kept as text; the mapper converts them with overflow checks), duplicate keys
 * are refused, and nothing may follow the value. Errors are one line: `line L, column C: what is wrong`. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

/* ---- The tree ---------------------------------------------------------------------------------------------- */

void d12__dred_jfree(jvalue *value)
{
    if (!value)
        return;
    for (size_t i = 0; i < value->count; i++) {
        d12__dred_jfree(value->items[i]);
        if (value->keys)
            free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    free(value->text);
    free(value);
}

typedef struct parser {
    const unsigned char *p, *end, *line_start;
    unsigned line;
    char *error;
    size_t error_size;
    int failed;
    size_t values;      /* values made so far */
    size_t max_values;  /* D12DRED_MAX_VALUES (tests lower it) */
} parser;

static int parse_fail(parser *ps, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int parse_fail(parser *ps, const char *format, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = 1;
    if (ps->error && ps->error_size) {
        int n = snprintf(ps->error, ps->error_size, "line %u, column %u: ", ps->line,
                         (unsigned)(ps->p - ps->line_start) + 1);
        if (n >= 0 && (size_t)n < ps->error_size) {
            va_list args;
            va_start(args, format);
            vsnprintf(ps->error + n, ps->error_size - (size_t)n, format, args);
            va_end(args);
        }
    }
    return -1;
}

static void skip_space(parser *ps)
{
    while (ps->p < ps->end) {
        unsigned char c = *ps->p;
        if (c == '\n') {
            ps->p++;
            ps->line++;
            ps->line_start = ps->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ps->p++;
        } else {
            break;
        }
    }
}

static jvalue *new_value(parser *ps, jtype type)
{
    /* The tree costs ~80 bytes a value however short its text ("0," is two bytes): a budget keeps a hostile file's
     * memory bounded (about 1.3 GB at the limit; a real report holds ~10 values an op). */
    if (++ps->values > ps->max_values) {
        parse_fail(ps, "more than %zu JSON values", ps->max_values);
        return NULL;
    }
    jvalue *value = calloc(1, sizeof *value);
    if (!value) {
        parse_fail(ps, "out of memory");
        return NULL;
    }
    value->type = type;
    value->line = ps->line;
    value->column = (unsigned)(ps->p - ps->line_start) + 1;
    return value;
}

static int hex4(parser *ps, uint32_t *out)
{
    /* *out is written on every path: at -O3 gcc inlines this into parse_escape but cannot see that parse_fail
     * returns nonzero, and would otherwise warn that the caller may read it unset (-Wmaybe-uninitialized). */
    *out = 0;
    if (ps->end - ps->p < 4)
        return parse_fail(ps, "truncated \\u escape");
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = ps->p[i];
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        else
            return parse_fail(ps, "invalid \\u escape");
        value = value << 4 | digit;
    }
    ps->p += 4;
    *out = value;
    return 0;
}

/* One escape after the backslash, appended to buf as UTF-8. */
static int parse_escape(parser *ps, d12__dred_buf *buf)
{
    if (ps->p >= ps->end)
        return parse_fail(ps, "truncated escape");
    unsigned char c = *ps->p++;
    static const char simple_in[] = "\"\\/bfnrt", simple_out[] = "\"\\/\b\f\n\r\t";
    const char *hit = c ? strchr(simple_in, c) : NULL;
    if (hit) {
        d12__dred_buf_append(buf, &simple_out[hit - simple_in], 1);
        return 0;
    }
    if (c != 'u')
        return parse_fail(ps, "invalid escape '\\%c'", c >= 0x20 && c < 0x7F ? c : '?');
    uint32_t cp;
    if (hex4(ps, &cp) != 0)
        return -1;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return parse_fail(ps, "unpaired surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t low;
        if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
            return parse_fail(ps, "unpaired surrogate in \\u escape");
        ps->p += 2;
        if (hex4(ps, &low) != 0)
            return -1;
        if (low < 0xDC00 || low > 0xDFFF)
            return parse_fail(ps, "unpaired surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp == 0)
        return parse_fail(ps, "\\u0000 is not allowed in a report string");
    char utf8[4];
    d12__dred_buf_append(buf, utf8, d12__dred_utf8_encode(utf8, cp));
    return 0;
}

/* A string at ps->p (the opening quote); its decoded UTF-8 in *text / *length. */
static int parse_string_text(parser *ps, char **text, size_t *length)
{
    d12__dred_buf buf = {0};
    ps->p++;  /* the quote */
    /* Fast path: printable ASCII without escapes (names, keys, enum words) is copied as it is. */
    const unsigned char *scan = ps->p;
    while (scan < ps->end && *scan >= 0x20 && *scan < 0x80 && *scan != '"' && *scan != '\\')
        scan++;
    if (scan < ps->end && *scan == '"') {
        size_t n = (size_t)(scan - ps->p);
        char *copy = malloc(n + 1);
        if (!copy)
            return parse_fail(ps, "out of memory");
        memcpy(copy, ps->p, n);
        copy[n] = '\0';
        ps->p = scan + 1;
        *text = copy;
        *length = n;
        return 0;
    }
    for (;;) {
        if (ps->p >= ps->end) {
            free(buf.data);
            return parse_fail(ps, "unterminated string");
        }
        unsigned char c = *ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20) {
            free(buf.data);
            return parse_fail(ps, "control character in string");
        }
        if (c == '\\') {
            ps->p++;
            if (parse_escape(ps, &buf) != 0) {
                free(buf.data);
                return -1;
            }
            continue;
        }
        uint32_t cp;
        size_t n = d12__dred_utf8_decode(ps->p, (size_t)(ps->end - ps->p), &cp);
        if (n == 0) {
            free(buf.data);
            return parse_fail(ps, "invalid UTF-8 in string");
        }
        d12__dred_buf_append(&buf, (const char *)ps->p, n);
        ps->p += n;
    }
    if (buf.failed) {
        free(buf.data);
        return parse_fail(ps, "out of memory");
    }
    if (!buf.data) {
        buf.data = malloc(1);
        if (!buf.data)
            return parse_fail(ps, "out of memory");
        buf.data[0] = '\0';
    }
    *text = buf.data;
    *length = buf.length;
    return 0;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* RFC 8259 number grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static jvalue *parse_number(parser *ps)
{
    const unsigned char *start = ps->p;
    jvalue *value = new_value(ps, J_NUMBER);
    if (!value)
        return NULL;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p >= ps->end || !is_digit(*ps->p))
        goto bad;
    if (*ps->p == '0')
        ps->p++;
    else
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p))
            goto bad;
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p))
            goto bad;
        while (ps->p < ps->end && is_digit(*ps->p))
            ps->p++;
    }
    value->length = (size_t)(ps->p - start);
    value->text = malloc(value->length + 1);
    if (!value->text) {
        d12__dred_jfree(value);
        parse_fail(ps, "out of memory");
        return NULL;
    }
    memcpy(value->text, start, value->length);
    value->text[value->length] = '\0';
    return value;
bad:
    d12__dred_jfree(value);
    parse_fail(ps, "invalid number");
    return NULL;
}

static jvalue *parse_value(parser *ps, unsigned depth);

static int push_item(parser *ps, jvalue *container, jvalue *item, char *key)
{
    if (container->count == container->capacity) {
        size_t capacity = container->capacity ? container->capacity * 2 : 4;
        jvalue **items = realloc(container->items, capacity * sizeof *items);
        if (!items)
            return parse_fail(ps, "out of memory");
        container->items = items;
        if (container->type == J_OBJECT) {
            char **keys = realloc(container->keys, capacity * sizeof *keys);
            if (!keys)
                return parse_fail(ps, "out of memory");
            container->keys = keys;
        }
        container->capacity = capacity;
    }
    container->items[container->count] = item;
    if (container->type == J_OBJECT)
        container->keys[container->count] = key;
    container->count++;
    return 0;
}

static jvalue *parse_array(parser *ps, unsigned depth)
{
    jvalue *array = new_value(ps, J_ARRAY);
    if (!array)
        return NULL;
    ps->p++;  /* [ */
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return array;
    }
    for (;;) {
        jvalue *item = parse_value(ps, depth + 1);
        if (!item || push_item(ps, array, item, NULL) != 0) {
            d12__dred_jfree(item);
            d12__dred_jfree(array);
            return NULL;
        }
        skip_space(ps);
        if (ps->p >= ps->end) {
            parse_fail(ps, "unterminated array");
            break;
        }
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == ']') {
            ps->p++;
            return array;
        }
        parse_fail(ps, "expected ',' or ']' in array");
        break;
    }
    d12__dred_jfree(array);
    return NULL;
}

static jvalue *parse_object(parser *ps, unsigned depth)
{
    jvalue *object = new_value(ps, J_OBJECT);
    if (!object)
        return NULL;
    ps->p++;  /* { */
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return object;
    }
    for (;;) {
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            parse_fail(ps, ps->p >= ps->end ? "unterminated object" : "expected a string key in object");
            break;
        }
        char *key;
        size_t key_length;
        if (parse_string_text(ps, &key, &key_length) != 0)
            break;
        if (object->count == D12DRED_MAX_OBJECT_MEMBERS) {  /* a report's objects have at most 13 */
            parse_fail(ps, "an object with more than %u members", D12DRED_MAX_OBJECT_MEMBERS);
            free(key);
            break;
        }
        for (size_t i = 0; i < object->count; i++) {
            if (strcmp(object->keys[i], key) == 0) {
                parse_fail(ps, "duplicate key \"%.40s\"", key);
                free(key);
                d12__dred_jfree(object);
                return NULL;
            }
        }
        skip_space(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            free(key);
            parse_fail(ps, "expected ':' after object key");
            break;
        }
        ps->p++;
        jvalue *item = parse_value(ps, depth + 1);
        if (!item || push_item(ps, object, item, key) != 0) {
            free(key);
            d12__dred_jfree(item);
            break;
        }
        skip_space(ps);
        if (ps->p >= ps->end) {
            parse_fail(ps, "unterminated object");
            break;
        }
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == '}') {
            ps->p++;
            return object;
        }
        parse_fail(ps, "expected ',' or '}' in object");
        break;
    }
    d12__dred_jfree(object);
    return NULL;
}

static jvalue *parse_literal(parser *ps, const char *word, jtype type)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) {
        parse_fail(ps, "invalid literal");
        return NULL;
    }
    jvalue *value = new_value(ps, type);
    ps->p += n;
    return value;
}

static jvalue *parse_value(parser *ps, unsigned depth)
{
    if (depth > D12DRED_MAX_DEPTH) {
        parse_fail(ps, "nesting deeper than %u", D12DRED_MAX_DEPTH);
        return NULL;
    }
    skip_space(ps);
    if (ps->p >= ps->end) {
        parse_fail(ps, "unexpected end of input");
        return NULL;
    }
    switch (*ps->p) {
    case '{': return parse_object(ps, depth);
    case '[': return parse_array(ps, depth);
    case '"': {
        jvalue *value = new_value(ps, J_STRING);
        if (value && parse_string_text(ps, &value->text, &value->length) != 0) {
            d12__dred_jfree(value);
            return NULL;
        }
        return value;
    }
    case 't': return parse_literal(ps, "true", J_TRUE);
    case 'f': return parse_literal(ps, "false", J_FALSE);
    case 'n': return parse_literal(ps, "null", J_NULL);
    default:
        if (*ps->p == '-' || is_digit(*ps->p))
            return parse_number(ps);
        parse_fail(ps, "unexpected character '%c'", *ps->p >= 0x20 && *ps->p < 0x7F ? *ps->p : '?');
        return NULL;
    }
}

jvalue *d12__dred_json_parse(const char *data, size_t size, char *error, size_t error_size)
{
    return d12__dred_json_parse_bounded(data, size, D12DRED_MAX_VALUES, error, error_size);
}

jvalue *d12__dred_json_parse_bounded(const char *data, size_t size, size_t max_values, char *error, size_t error_size)
{
    parser ps = {(const unsigned char *)data, (const unsigned char *)data + size, (const unsigned char *)data, 1,
                 error, error_size, 0, 0, max_values};
    if (size > D12DRED_MAX_FILE_BYTES) {
        parse_fail(&ps, "input of %zu bytes is larger than the limit of %zu", size, D12DRED_MAX_FILE_BYTES);
        return NULL;
    }
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        parse_fail(&ps, "a byte order mark is not allowed (RFC 8259)");
        return NULL;
    }
    jvalue *root = parse_value(&ps, 1);
    if (!root)
        return NULL;
    skip_space(&ps);
    if (ps.p != ps.end) {
        parse_fail(&ps, "unexpected data after the JSON value");
        d12__dred_jfree(root);
        return NULL;
    }
    return root;
}


/* The value a mapping error's JSON path names ("$.timelines[0].events[1].seq: ..."), or the deepest one of it the
 * document has (a missing key names its object): its line, so that a reader can say FILE: line L (issue 32). */
unsigned d12dred_report_error_line(const char *data, size_t size, const char *error)
{
    if (!data || !error || error[0] != '$')
        return 0;
    jvalue *root = d12__dred_json_parse(data, size, NULL, 0);
    const jvalue *at = root;
    const char *p = error + 1;
    while (at && (*p == '.' || *p == '[')) {
        const jvalue *next = NULL;
        if (*p == '[') {
            char *end = NULL;
            unsigned long long index = strtoull(p + 1, &end, 10);
            if (at->type == J_ARRAY && end && *end == ']' && index < at->count)
                next = at->items[index];
            p = end && *end == ']' ? end + 1 : p + 1;
        } else {
            size_t length = strcspn(p + 1, ".[:");
            for (size_t i = 0; at->type == J_OBJECT && i < at->count && !next; i++)
                if (strlen(at->keys[i]) == length && memcmp(at->keys[i], p + 1, length) == 0)
                    next = at->items[i];
            p += 1 + length;
        }
        if (!next)
            break;
        at = next;
    }
    unsigned line = at ? at->line : 0;
    d12__dred_jfree(root);
    return line;
}
