/* d12dred_report's strings and arrays: UTF-8 encode/decode, the sanitising copy every string of the model goes
 * through (invalid UTF-8 becomes U+FFFD, so a report is always valid JSON), wide names to UTF-8, and the array
 * growth the builder and the reader share. */
#define _POSIX_C_SOURCE 200809L

#include "d12dred_report.h"

#include <stdlib.h>
#include <string.h>

#include "d12dred_internal.h"

/* ---- UTF-8 ------------------------------------------------------------------------------------------------- */

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t d12__dred_utf8_encode(char out[4], uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    return put_utf8(out, cp);
}

/* Decodes one UTF-8 sequence at text[0..length): its code point in *cp and its byte count, or 0 when the bytes
 * are not a valid, shortest-form sequence of a scalar value (RFC 3629). */
size_t d12__dred_utf8_decode(const unsigned char *text, size_t length, uint32_t *cp)
{
    unsigned char b = text[0];
    size_t need;
    uint32_t value, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if ((b & 0xE0) == 0xC0) {
        need = 2, value = b & 0x1F, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
        need = 3, value = b & 0x0F, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
        need = 4, value = b & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (length < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((text[i] & 0xC0) != 0x80)
            return 0;
        value = (value << 6) | (text[i] & 0x3F);
    }
    if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return 0;
    *cp = value;
    return need;
}

char *d12dred_utf8_sanitize(const char *text, size_t length)
{
    if (!text)
        return NULL;
    /* Worst case: every byte becomes U+FFFD (3 bytes). */
    if (length > (SIZE_MAX - 1) / 3)
        return NULL;
    char *out = malloc(length * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < length;) {
        uint32_t cp;
        size_t n = d12__dred_utf8_decode((const unsigned char *)text + i, length - i, &cp);
        if (n == 0) {
            o += put_utf8(out + o, 0xFFFD);
            i++;
        } else {
            memcpy(out + o, text + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    char *shrunk = realloc(out, o + 1);
    return shrunk ? shrunk : out;
}

char *d12dred_utf8_from_wide(const wchar_t *wide)
{
    if (!wide)
        return NULL;
    size_t count = wcslen(wide);
    if (count > (SIZE_MAX - 1) / 4)
        return NULL;
    char *out = malloc(count * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < count; i++)
        o += d12__dred_utf8_encode(out + o, (uint32_t)wide[i]);
    out[o] = '\0';
    char *shrunk = realloc(out, o + 1);
    return shrunk ? shrunk : out;
}

/* Replaces *slot by a sanitized copy of text (NULL clears it). */
int d12__dred_set_string(char **slot, const char *text)
{
    char *copy = NULL;
    if (text) {
        copy = d12dred_utf8_sanitize(text, strlen(text));
        if (!copy)
            return -1;
    }
    free(*slot);
    *slot = copy;
    return 0;
}

/* Grows an array of `size`-byte elements to hold one more; 0 on success. */
int d12__dred_grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 0;
    size_t wanted = *capacity ? *capacity * 2 : 4;
    if (wanted > SIZE_MAX / size)
        return -1;
    void *grown = realloc(*items, wanted * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = wanted;
    return 0;
}
