/* The DXBC container: its checksum (MD5's compression function, RFC 1321 section 3.4, with DXBC's own last block:
 * docs/shaders.md), reading a container whole or refusing it, and writing one. */
#include "dxbc.h"
#include "dxbc_internal.h"

/* A refusal with its line of text (`error` and `error_size` are the function's parameters). */
#define FAIL(...) d12__dxbc_fail(error, error_size, __VA_ARGS__)

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 32u /* magic, checksum, version, total size, chunk count */

static uint32_t rotl(uint32_t v, unsigned n)
{
    return (v << n) | (v >> (32 - n));
}

static void md5_compress(uint32_t state[4], const uint8_t block[64])
{
    static const uint8_t shifts[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    static const uint32_t sines[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
        0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
        0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
        0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
        0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
        0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
        0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
    };
    uint32_t w[16], a = state[0], b = state[1], c = state[2], d = state[3];
    for (unsigned i = 0; i < 16; i++)
        w[i] = d12_dxbc_u32(block, 4 * i);
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned g;
        switch (i / 16) {
        case 0: f = (b & c) | (~b & d), g = i; break;
        case 1: f = (d & b) | (~d & c), g = (5 * i + 1) % 16; break;
        case 2: f = b ^ c ^ d, g = (3 * i + 5) % 16; break;
        default: f = c ^ (b | ~d), g = (7 * i) % 16; break;
        }
        f += a + sines[i] + w[g];
        a = d, d = c, c = b;
        b += rotl(f, shifts[i / 16][i % 4]);
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
}

static void put_u32(uint8_t *at, uint32_t v)
{
    at[0] = (uint8_t)v, at[1] = (uint8_t)(v >> 8), at[2] = (uint8_t)(v >> 16), at[3] = (uint8_t)(v >> 24);
}

void d12_dxbc_checksum(const void *data, size_t size, uint32_t checksum[4])
{
    uint32_t state[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    const uint8_t *bytes = (const uint8_t *)data + 20;
    size_t length = size > 20 ? size - 20 : 0, whole = length - length % 64;
    for (size_t at = 0; at < whole; at += 64)
        md5_compress(state, bytes + at);
    size_t rest = length - whole;
    uint32_t bits = (uint32_t)(length * 8);
    uint8_t block[64] = {0};
    if (rest < 56) {
        /* The bit count first, the leftover bytes, 0x80, zeros, and (bits >> 2) | 1 last. */
        put_u32(block, bits);
        memcpy(block + 4, bytes + whole, rest);
        block[4 + rest] = 0x80;
    } else {
        memcpy(block, bytes + whole, rest);
        block[rest] = 0x80;
        md5_compress(state, block);
        memset(block, 0, sizeof block);
        put_u32(block, bits);
    }
    put_u32(block + 60, (bits >> 2) | 1);
    md5_compress(state, block);
    memcpy(checksum, state, sizeof state);
}

int d12__dxbc_fail(char *error, size_t error_size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (error_size)
        vsnprintf(error, error_size, format, args);
    va_end(args);
    return -1;
}

int d12_dxbc_parse(const void *data, size_t size, d12_dxbc *out, char *error, size_t error_size)
{
    const uint8_t *bytes = data;
    memset(out, 0, sizeof *out);
    if (!data || size < HEADER_SIZE)
        return FAIL("DXBC: %zu bytes, smaller than the 32-byte header", data ? size : 0);
    if (memcmp(bytes, "DXBC", 4) != 0)
        return FAIL("DXBC: no DXBC magic");
    uint32_t total = d12_dxbc_u32(bytes, 24), count = d12_dxbc_u32(bytes, 28);
    if (total != size)
        return FAIL("DXBC: the header's size %u is not the blob's %zu bytes", total, size);
    uint32_t sum[4];
    d12_dxbc_checksum(bytes, size, sum);
    for (unsigned i = 0; i < 4; i++)
        if (sum[i] != d12_dxbc_u32(bytes, 4 + 4 * i))
            return FAIL("DXBC: checksum mismatch");
    if (d12_dxbc_u32(bytes, 20) != 1)
        return FAIL("DXBC: container version %u (1 expected)", d12_dxbc_u32(bytes, 20));
    if (count > D12_DXBC_MAX_CHUNKS || count > (size - HEADER_SIZE) / 4)
        return FAIL("DXBC: %u chunks", count);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t offset = d12_dxbc_u32(bytes, HEADER_SIZE + 4 * i);
        if (offset < HEADER_SIZE + 4 * count || offset > size - 8 || offset % 4)
            return FAIL("DXBC: chunk %u at offset %u is outside the blob", i, offset);
        uint32_t chunk_size = d12_dxbc_u32(bytes, offset + 4);
        if (chunk_size > size - 8 - offset)
            return FAIL("DXBC: chunk %u (%u bytes at %u) runs past the end", i, chunk_size, offset);
        out->chunks[i] = (d12_dxbc_chunk){d12_dxbc_u32(bytes, offset), chunk_size, bytes + offset + 8};
    }
    out->chunk_count = count;
    return 0;
}

const d12_dxbc_chunk *d12_dxbc_find(const d12_dxbc *dxbc, uint32_t tag)
{
    for (uint32_t i = 0; i < dxbc->chunk_count; i++)
        if (dxbc->chunks[i].tag == tag)
            return &dxbc->chunks[i];
    return NULL;
}

void *d12_dxbc_write(const d12_dxbc_chunk *chunks, uint32_t count, size_t *size)
{
    size_t total = HEADER_SIZE + 4 * (size_t)count;
    for (uint32_t i = 0; i < count; i++)
        total += 8 + ((chunks[i].size + 3u) & ~3u);
    uint8_t *out = calloc(1, total);
    if (!out)
        return NULL;
    memcpy(out, "DXBC", 4);
    put_u32(out + 20, 1);
    put_u32(out + 24, (uint32_t)total);
    put_u32(out + 28, count);
    size_t at = HEADER_SIZE + 4 * (size_t)count;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t padded = (chunks[i].size + 3u) & ~3u;
        put_u32(out + HEADER_SIZE + 4 * i, (uint32_t)at);
        put_u32(out + at, chunks[i].tag);
        put_u32(out + at + 4, padded);
        if (chunks[i].size)
            memcpy(out + at + 8, chunks[i].data, chunks[i].size);
        at += 8 + padded;
    }
    uint32_t sum[4];
    d12_dxbc_checksum(out, total, sum);
    for (unsigned i = 0; i < 4; i++)
        put_u32(out + 4 + 4 * i, sum[i]);
    *size = total;
    return out;
}
