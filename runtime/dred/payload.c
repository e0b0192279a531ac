/* Decoding SetMarker/BeginEvent payloads into breadcrumb-context strings (breadcrumbs.h, docs/dred.md).
 *
 * Metadata 0 is a wchar_t string (4 bytes a character here; a UTF-16 payload from code ported from Windows is told
 * apart by its Size or by code units no UTF-32 string has), 1 is ANSI (UTF-8 when it is valid UTF-8, else each byte
 * as Latin-1), 2 (WINPIX_EVENT_PIX3BLOB_VERSION) and 6345127 (WINPIX_EVENT_PIX3BLOB_V2) are WinPixEventRuntime's
 * blobs, decoded as microsoft/PixEvents' decoder (decoder/lib/EventReading.cpp) does: the event-info qword, the
 * color, the format string (8-byte chunks; a string-info qword first in the legacy format), then for a varargs event
 * up to 16 arguments, one qword each, strings with their own string info, printed through the format string.
 * Every read is bounded by Size; the result is always NUL-terminated and at most D12_DRED_CONTEXT_MAX characters. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "breadcrumbs.h"

#define D12_DRED_CONTEXT_MAX 1024u   /* characters kept of one context (PIX's own buffer is smaller) */
#define PIX_MAX_ARGUMENTS 16u          /* decoder/lib: PIX_MAX_ARGUMENTS */
#define PIX3BLOB_LEGACY 2u
#define PIX3BLOB_V2 6345127u

/* ---- A bounded output string ---- */

typedef struct out_text {
    wchar_t text[D12_DRED_CONTEXT_MAX + 1];
    size_t length;
} out_text;

static void out_char(out_text *out, uint32_t c)
{
    if (out->length < D12_DRED_CONTEXT_MAX)
        out->text[out->length++] = (wchar_t)c;
}

static void out_ascii(out_text *out, const char *s)
{
    while (*s)
        out_char(out, (unsigned char)*s++);
}

static wchar_t *out_dup(const out_text *out)
{
    wchar_t *copy = malloc((out->length + 1) * sizeof *copy);
    if (copy) {
        memcpy(copy, out->text, out->length * sizeof *copy);
        copy[out->length] = L'\0';
    }
    return copy;
}

/* ---- Character decoding ---- */

static bool valid_scalar(uint32_t c)
{
    return c <= 0x10FFFFu && (c < 0xD800u || c > 0xDFFFu);
}

/* UTF-16 code units [units, units + count) (stopping at a 0) into `out`; unpaired surrogates become U+FFFD. */
static void decode_utf16(out_text *out, const unsigned char *bytes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t u = (uint32_t)bytes[2 * i] | (uint32_t)bytes[2 * i + 1] << 8;
        if (u == 0)
            return;
        if (u >= 0xD800u && u <= 0xDBFFu && i + 1 < count) {
            uint32_t low = (uint32_t)bytes[2 * i + 2] | (uint32_t)bytes[2 * i + 3] << 8;
            if (low >= 0xDC00u && low <= 0xDFFFu) {
                out_char(out, 0x10000u + ((u - 0xD800u) << 10) + (low - 0xDC00u));
                i++;
                continue;
            }
        }
        out_char(out, u >= 0xD800u && u <= 0xDFFFu ? 0xFFFDu : u);
    }
}

/* One UTF-8 sequence at bytes[*i] (< count); false when it is not valid UTF-8. */
static bool utf8_next(const unsigned char *bytes, size_t count, size_t *i, uint32_t *c)
{
    unsigned char b = bytes[*i];
    size_t extra = b < 0x80 ? 0 : (b & 0xE0) == 0xC0 ? 1 : (b & 0xF0) == 0xE0 ? 2 : (b & 0xF8) == 0xF0 ? 3 : 4;
    if (extra == 4 || *i + extra >= count + (extra ? 0 : 1))
        return false;
    uint32_t value = extra == 0 ? b : b & (0x3Fu >> extra);
    for (size_t k = 1; k <= extra; k++) {
        if ((bytes[*i + k] & 0xC0) != 0x80)
            return false;
        value = value << 6 | (bytes[*i + k] & 0x3Fu);
    }
    static const uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
    if (value < minimum[extra] || !valid_scalar(value))
        return false;
    *i += extra + 1;
    *c = value;
    return true;
}

/* ANSI bytes up to a NUL or `count`: UTF-8 when the whole string is valid UTF-8, else Latin-1 ("widened"). */
static void decode_ansi(out_text *out, const unsigned char *bytes, size_t count)
{
    size_t length = 0;
    while (length < count && bytes[length])
        length++;
    bool utf8 = true;
    uint32_t c;
    for (size_t i = 0; i < length && utf8;)
        utf8 = utf8_next(bytes, length, &i, &c);
    for (size_t i = 0; i < length;) {
        if (utf8 && utf8_next(bytes, length, &i, &c))
            out_char(out, c);
        else
            out_char(out, bytes[i++]);
    }
}

/* Metadata 0: "a NUL-terminated wchar_t string, Size in bytes including the terminator". */
static wchar_t *decode_unicode(const unsigned char *bytes, UINT size)
{
    out_text out = {.length = 0};
    bool utf16 = size % sizeof(wchar_t) != 0 && size % 2 == 0;
    size_t units = size / sizeof(wchar_t);
    for (size_t i = 0; !utf16 && i < units; i++) {
        uint32_t c;
        memcpy(&c, bytes + i * sizeof(wchar_t), sizeof c);
        if (c == 0)
            break;
        if (!valid_scalar(c))
            utf16 = true; /* no UTF-32 string has it: two UTF-16 code units (a payload from a 2-byte-WCHAR port) */
    }
    if (utf16) {
        decode_utf16(&out, bytes, size / 2);
    } else {
        for (size_t i = 0; i < units; i++) {
            uint32_t c;
            memcpy(&c, bytes + i * sizeof(wchar_t), sizeof c);
            if (c == 0)
                break;
            out_char(&out, c);
        }
    }
    return out_dup(&out);
}

/* ---- PIX blobs ---- */

typedef struct blob {
    const unsigned char *bytes;
    size_t qwords;   /* whole qwords within Size */
} blob;

static uint64_t qword(const blob *b, size_t index)
{
    uint64_t value;
    memcpy(&value, b->bytes + index * 8, sizeof value);
    return value;
}

/* A string in the blob: its bytes and kind. */
typedef struct pix_string {
    const unsigned char *bytes;
    size_t byte_count;   /* up to the terminator or the limit */
    bool ansi;
    bool present;
} pix_string;

/* ReadString: at qword *pos (< limit), with a string-info qword first unless `known_ansi` >= 0 (V2's event metadata
 * says the kind). Advances *pos past the string's chunks. Returns false when the string info is invalid (then
 * nothing is consumed, as the decoder does). */
static bool read_string(const blob *b, size_t *pos, size_t limit, int known_ansi, pix_string *out)
{
    *out = (pix_string){NULL, 0, false, false};
    if (*pos >= limit)
        return true;
    uint64_t alignment = 0, chunk = 8;
    bool ansi = known_ansi > 0;
    if (known_ansi < 0) {
        uint64_t info = qword(b, (*pos)++);
        if (info == 0)
            return true; /* "nullptr was passed as a string parameter" */
        alignment = info >> 60 & 0xF;
        chunk = info >> 55 & 0x1F;
        ansi = (info >> 54 & 1) != 0;
        bool unused_bits = (info & ((1ull << 53) - 1)) != 0;
        if (unused_bits || (chunk != 8 && chunk != 16) || alignment >= chunk) {
            (*pos)--;
            return false;
        }
    }
    size_t begin = *pos * 8 + alignment, end = limit * 8;
    if (begin >= end) {
        *pos = limit;
        return true;
    }
    size_t unit = ansi ? 1 : 2, length = 0;
    while (begin + length + unit <= end) {
        bool zero = ansi ? b->bytes[begin + length] == 0
                         : (b->bytes[begin + length] | b->bytes[begin + length + 1]) == 0;
        length += unit;
        if (zero)
            break;
    }
    *out = (pix_string){b->bytes + begin, length, ansi, true};
    /* the string takes whole chunks from its beginning */
    size_t used = alignment + length;
    used += (chunk - used % chunk) % chunk;
    *pos += (used + 7) / 8;
    if (*pos > limit)
        *pos = limit;
    return true;
}

static void decode_pix_string(out_text *out, const pix_string *s)
{
    if (!s->present)
        return;
    if (s->ansi)
        decode_ansi(out, s->bytes, s->byte_count);
    else
        decode_utf16(out, s->bytes, s->byte_count / 2);
}

/* A decoded format string: UTF-32, NUL-terminated. */
typedef struct format_text {
    out_text text;
} format_text;

typedef struct pix_arg {
    uint64_t value;
    bool is_string;
    out_text *string; /* decoded string argument (owned by the argument array) */
} pix_arg;

static bool conversion_letter(uint32_t c)
{
    return c && strchr("ACEFGXacdefginopux", (int)c) != NULL;
}

/* PopulateFormatArguments: walk the format string's specifiers the decoder's way, taking one qword for each
 * non-string specifier, a qword then a string for %*s, a string for %s. */
static size_t populate_arguments(const blob *b, size_t pos, size_t limit, const wchar_t *format, pix_arg *args)
{
    size_t count = 0;
    for (const wchar_t *p = format; *p && count < PIX_MAX_ARGUMENTS;) {
        if (*p != L'%') {
            p++;
            continue;
        }
        size_t i = 1;
        int kind = 0; /* 0 none, 1 non-string, 2 string, 3 string with size */
        for (;; i++) {
            uint32_t c = (uint32_t)p[i];
            if (c == 0)
                break;
            if (c == '%') {
                if (i == 1)
                    i++;
                break;
            }
            if (conversion_letter(c)) {
                kind = 1;
                i++;
                break;
            }
            if (c == 'S' || c == 's') {
                kind = p[i - 1] == L'*' ? 3 : 2;
                i++;
                break;
            }
        }
        p += i;
        if (kind == 1 || kind == 3) {
            args[count++] = (pix_arg){pos < limit ? qword(b, pos) : 0, false, NULL};
            if (pos < limit)
                pos++;
        }
        if ((kind == 2 || kind == 3) && count < PIX_MAX_ARGUMENTS) {
            pix_string s;
            out_text *decoded = calloc(1, sizeof *decoded);
            if (read_string(b, &pos, limit, -1, &s) && decoded)
                decode_pix_string(decoded, &s);
            args[count++] = (pix_arg){0, true, decoded};
        }
    }
    return count;
}

/* printf over the populated arguments (the decoder hands them to StringCchPrintf as 16 UINT64s): flags, width,
 * precision, the MSVC and C99 length modifiers; %n writes nothing. */
static void print_formatted(out_text *out, const wchar_t *format, const pix_arg *args, size_t count)
{
    size_t next = 0;
#define NEXT_ARG() (next < PIX_MAX_ARGUMENTS ? (next < count ? &args[next++] : (next++, (const pix_arg *)NULL)) : NULL)
    for (const wchar_t *p = format; *p;) {
        if (*p != L'%') {
            out_char(out, (uint32_t)*p++);
            continue;
        }
        const wchar_t *start = p++;
        if (*p == L'%') {
            out_char(out, '%');
            p++;
            continue;
        }
        char spec[48];
        size_t n = 0;
        spec[n++] = '%';
        while (*p && wcschr(L"-+ #0", *p) && n < 8)
            spec[n++] = (char)*p++;
        int width = -1, precision = -1;
        if (*p == L'*') {
            const pix_arg *a = NEXT_ARG();
            width = a ? (int)(int32_t)a->value : 0;
            p++;
        } else if (*p >= L'0' && *p <= L'9') {
            width = 0;
            while (*p >= L'0' && *p <= L'9' && width < 10000)
                width = width * 10 + (int)(*p++ - L'0');
        }
        if (*p == L'.') {
            p++;
            precision = 0;
            if (*p == L'*') {
                const pix_arg *a = NEXT_ARG();
                precision = a ? (int)(int32_t)a->value : 0;
                p++;
            } else {
                while (*p >= L'0' && *p <= L'9' && precision < 10000)
                    precision = precision * 10 + (int)(*p++ - L'0');
            }
        }
        if (width > 1000)
            width = 1000;
        if (width < -1000)
            width = -1000;
        if (precision > 1000)
            precision = 1000;
        int bits = 32; /* int, and Windows' long */
        for (;;) {
            if (*p == L'l' && p[1] == L'l') { bits = 64; p += 2; }
            else if (*p == L'I' && p[1] == L'6' && p[2] == L'4') { bits = 64; p += 3; }
            else if (*p == L'I' && p[1] == L'3' && p[2] == L'2') { bits = 32; p += 3; }
            else if (*p == L'h' && p[1] == L'h') { bits = 8; p += 2; }
            else if (*p == L'h') { bits = 16; p++; }
            else if (*p == L'l' || *p == L'w' || *p == L'L') { p++; }
            else if (*p == L'I' || *p == L'z' || *p == L'j' || *p == L't') { bits = 64; p++; }
            else break;
        }
        uint32_t conv = (uint32_t)*p;
        if (conv == 0) {
            for (const wchar_t *q = start; q < p; q++)
                out_char(out, (uint32_t)*q);
            break;
        }
        p++;
        char buffer[1100];
        buffer[0] = '\0';
        if (width >= 0 || width < -1)
            n += (size_t)snprintf(spec + n, sizeof spec - n, "%d", width);
        if (precision >= 0)
            n += (size_t)snprintf(spec + n, sizeof spec - n, ".%d", precision);
        const pix_arg *a;
        if (strchr("di", (int)conv)) {
            a = NEXT_ARG();
            uint64_t v = a ? a->value : 0;
            long long s = bits == 64 ? (long long)v : bits == 16 ? (short)v : bits == 8 ? (signed char)v : (int32_t)v;
            snprintf(spec + n, sizeof spec - n, "ll%c", (char)conv);
            snprintf(buffer, sizeof buffer, spec, s);
        } else if (strchr("uoxX", (int)conv)) {
            a = NEXT_ARG();
            uint64_t v = a ? a->value : 0;
            unsigned long long u = bits == 64 ? v : bits == 16 ? (uint16_t)v : bits == 8 ? (uint8_t)v : (uint32_t)v;
            snprintf(spec + n, sizeof spec - n, "ll%c", (char)conv);
            snprintf(buffer, sizeof buffer, spec, u);
        } else if (strchr("eEfFgGaA", (int)conv)) {
            a = NEXT_ARG();
            double d = 0;
            if (a)
                memcpy(&d, &a->value, sizeof d);
            snprintf(spec + n, sizeof spec - n, "%c", (char)conv);
            snprintf(buffer, sizeof buffer, spec, d);
        } else if (conv == 'p') {
            a = NEXT_ARG();
            snprintf(buffer, sizeof buffer, "%016llX", (unsigned long long)(a ? a->value : 0)); /* MSVC's %p */
        } else if (conv == 'c' || conv == 'C') {
            a = NEXT_ARG();
            uint32_t c = a ? (uint32_t)(a->value & 0xFFFF) : 0;
            for (int k = 1; k < width; k++)
                out_char(out, ' ');
            if (c)
                out_char(out, valid_scalar(c) ? c : 0xFFFDu);
            continue;
        } else if (conv == 's' || conv == 'S') {
            a = NEXT_ARG();
            const out_text *s = a && a->is_string ? a->string : NULL;
            size_t length = s ? s->length : 6;
            if (precision >= 0 && (size_t)precision < length)
                length = (size_t)precision;
            bool left = memchr(spec, '-', n) != NULL;
            for (size_t k = length; !left && (int)k < width; k++)
                out_char(out, ' ');
            for (size_t k = 0; k < length; k++)
                out_char(out, s ? (uint32_t)s->text[k] : (uint32_t)"(null)"[k]);
            for (size_t k = length; left && (int)k < width; k++)
                out_char(out, ' ');
            continue;
        } else if (conv == 'n') {
            NEXT_ARG(); /* never written through */
            continue;
        } else {
            for (const wchar_t *q = start; q < p; q++)
                out_char(out, (uint32_t)*q);
            continue;
        }
        out_ascii(out, buffer);
    }
#undef NEXT_ARG
}

static wchar_t *format_event(const blob *b, size_t pos, size_t limit, const pix_string *format, bool varargs)
{
    out_text *format_decoded = calloc(1, sizeof *format_decoded);
    out_text *result = calloc(1, sizeof *result);
    wchar_t *text = NULL;
    if (format_decoded && result) {
        decode_pix_string(format_decoded, format);
        format_decoded->text[format_decoded->length] = L'\0';
        if (!varargs) {
            *result = *format_decoded;
        } else {
            pix_arg args[PIX_MAX_ARGUMENTS] = {{0}};
            size_t count = populate_arguments(b, pos, limit, format_decoded->text, args);
            print_formatted(result, format_decoded->text, args, count);
            for (size_t i = 0; i < count; i++)
                free(args[i].string);
        }
        text = out_dup(result);
    }
    free(format_decoded);
    free(result);
    return text;
}

/* WINPIX_EVENT_PIX3BLOB_VERSION (PIXEventsLegacy.h): type in bits 10..19 of the first qword; a color qword; a
 * context qword for the _OnContext types; the format string with its string info; arguments for the _VarArgs types. */
static wchar_t *decode_pix_legacy(const blob *b)
{
    if (b->qwords < 3)
        return NULL;
    unsigned type = (unsigned)(qword(b, 0) >> 10 & 0x3FF);
    bool on_context = (type & 0x10) != 0;
    unsigned base = type & ~0x10u;
    if (base != 0x001 && base != 0x002 && base != 0x007 && base != 0x008)
        return NULL; /* an EndEvent or not a PIX event: no text */
    size_t pos = 2 + (on_context ? 1 : 0);
    pix_string format;
    if (!read_string(b, &pos, b->qwords, -1, &format) || !format.present)
        return NULL;
    return format_event(b, pos, b->qwords, &format, base == 0x001 || base == 0x007);
}

/* WINPIX_EVENT_PIX3BLOB_V2 (PIXEventsCommon.h): size in qwords (bits 0..6), type (7..11), metadata (12..19: 0x1 on
 * context, 0x2 ANSI, 0xF0 an explicit color qword follows); the string without string info; arguments when the event
 * is longer than its string. */
static wchar_t *decode_pix_v2(const blob *b)
{
    if (b->qwords < 2)
        return NULL;
    uint64_t info = qword(b, 0);
    size_t size = (size_t)(info & 0x7F);
    unsigned type = (unsigned)(info >> 7 & 0x1F), metadata = (unsigned)(info >> 12 & 0xFF);
    if ((type != 1 && type != 2) || size == 0)
        return NULL; /* only BeginEvent and SetMarker carry text */
    size_t limit = size < 0x7F && size < b->qwords ? size : b->qwords;
    size_t pos = 1;
    if ((metadata & 0xF0) == 0xF0)
        pos++;
    if (metadata & 0x1)
        pos++;
    pix_string format;
    if (!read_string(b, &pos, limit, (metadata & 0x2) ? 1 : 0, &format) || !format.present)
        return NULL;
    return format_event(b, pos, limit, &format, pos < limit);
}

wchar_t *d12__dred_decode_payload(UINT metadata, const void *data, UINT size)
{
    if (data == NULL || size == 0)
        return NULL;
    const unsigned char *bytes = data;
    if (metadata == 0)
        return decode_unicode(bytes, size);
    if (metadata == 1) {
        out_text out = {.length = 0};
        decode_ansi(&out, bytes, size);
        return out_dup(&out);
    }
    blob b = {bytes, size / 8};
    if (metadata == PIX3BLOB_LEGACY)
        return decode_pix_legacy(&b);
    if (metadata == PIX3BLOB_V2)
        return decode_pix_v2(&b);
    return NULL; /* an unknown metadata: no context (the op is still a breadcrumb) */
}
