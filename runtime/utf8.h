/* UTF-8 encoding shared by object names (UTF-32 WCHARs) and .reg files (UTF-16LE). */
#ifndef D12_UTF8_H
#define D12_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Write `code` as UTF-8 into `out` (room for 4 bytes) and return the byte count. A surrogate or a value past
 * U+10FFFF is not a character: it becomes U+FFFD, so damaged input still yields readable text. */
static inline size_t d12__utf8_put(char *out, uint32_t code)
{
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        code = 0xFFFD;
    if (code < 0x80) {
        out[0] = (char)code;
        return 1;
    }
    if (code < 0x800) {
        out[0] = (char)(0xC0 | (code >> 6));
        out[1] = (char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        out[0] = (char)(0xE0 | (code >> 12));
        out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[2] = (char)(0x80 | (code & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (code >> 18));
    out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[3] = (char)(0x80 | (code & 0x3F));
    return 4;
}

#endif
