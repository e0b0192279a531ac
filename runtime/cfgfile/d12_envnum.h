/* Reading a number from the environment, range-checked (issue 29: D12RT_VULKAN_TEST_DEVICE_LOST=4294967297 read as
 * 1, a strtoul result truncated to 32 bits). Every numeric environment value of the runtime, the drivers and the
 * tools goes through d12_env_number: the text must be a whole number (decimal digits only; with `hex` also 0x and
 * hex digits), with no sign, blank or suffix, no wider than 64 bits, and from `min` to `max`. Anything else is one
 * line on `err` naming the variable, its text and the range, and the caller's fallback applies.
 *
 * Header-only (static inline, libc only): the runtime, the failure-injection hook (whose constructor runs before
 * anything is linked in), both drivers and the tools include it without a link dependency. Any thread. */
#ifndef D12_ENVNUM_H
#define D12_ENVNUM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef enum d12_env_status {
    D12_ENV_UNSET,   /* unset or empty: silently the default */
    D12_ENV_NUMBER,  /* *value set */
    D12_ENV_REFUSED, /* not a number in range: one line on err, *value untouched */
} d12_env_status;

static inline int d12_env_digit(char c, unsigned base)
{
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return (unsigned)d < base ? d : -1;
}

/* Whole number in 64 bits: digits only (strtoull would take blanks, a sign that wraps, and saturate on overflow). */
static inline bool d12_env_parse_u64(const char *text, bool hex, uint64_t *out)
{
    unsigned base = 10;
    if (hex && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
    }
    if (!*text)
        return false;
    uint64_t value = 0;
    for (; *text; text++) {
        int d = d12_env_digit(*text, base);
        if (d < 0 || value > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        value = value * base + (uint64_t)d;
    }
    *out = value;
    return true;
}

/* `name` as a number from min to max. `what` says what it is ("a whole number of milliseconds"), `who` prefixes the
 * line ("d12rt", "d12rt Vulkan driver"), `otherwise` says what happens instead ("using 2000", "ignored"). */
static inline d12_env_status d12_env_number(const char *name, const char *what, uint64_t min, uint64_t max, bool hex,
                                            uint64_t *value, FILE *err, const char *who, const char *otherwise)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return D12_ENV_UNSET;
    uint64_t parsed = 0;
    if (d12_env_parse_u64(text, hex, &parsed) && parsed >= min && parsed <= max) {
        *value = parsed;
        return D12_ENV_NUMBER;
    }
    if (err)
        fprintf(err, "%s: %s=%s is not %s from %llu to %llu; %s\n", who, name, text, what, (unsigned long long)min,
                (unsigned long long)max, otherwise);
    return D12_ENV_REFUSED;
}

#endif
