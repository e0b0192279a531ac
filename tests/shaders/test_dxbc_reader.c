/* The DXBC reader's refusals (runtime/dxbc/dxbc.h): each case breaks one thing in a container or program built
 * from a generated shader and checks the one-line error; the unbroken neighbour is accepted.
 *
 *     test_dxbc_reader CASE     (ctest shaders.reader.CASE)     test_dxbc_reader --list */
#include "case_main.h"

#include <stdlib.h>
#include <string.h>

#include "d12_shaders.h"
#include "dxbc.h"

/* A container of raw_fill's chunks with its SHEX tokens replaced by `tokens` (count DWORDs); malloc'd. */
static uint8_t *with_program(const uint32_t *tokens, uint32_t count, size_t *size)
{
    d12_dxbc dxbc;
    CHECK_EQ_INT(d12_dxbc_parse(d12_shader_raw_fill, sizeof d12_shader_raw_fill, &dxbc, NULL, 0), 0);
    for (uint32_t i = 0; i < dxbc.chunk_count; i++)
        if (dxbc.chunks[i].tag == D12_DXBC_TAG_SHEX)
            dxbc.chunks[i] = (d12_dxbc_chunk){D12_DXBC_TAG_SHEX, 4 * count, (const uint8_t *)tokens};
    return d12_dxbc_write(dxbc.chunks, dxbc.chunk_count, size);
}

/* Parses a program; returns the error text ("" when accepted) in `error`. */
static int program(const uint32_t *tokens, uint32_t count, char *error, size_t error_size)
{
    size_t size = 0;
    uint8_t *blob = with_program(tokens, count, &size);
    d12_dxbc dxbc;
    d12_dxbc_program p;
    error[0] = '\0';
    int rc = d12_dxbc_parse(blob, size, &dxbc, error, error_size);
    if (rc == 0)
        rc = d12_dxbc_program_parse(&dxbc, &p, error, error_size);
    if (rc == 0)
        d12_dxbc_program_free(&p);
    free(blob);
    return rc;
}

#define CS50 0x00050050u
#define RET 0x0100003Eu
#define TEMPS(n) 0x02000068u, (n)

static void expect_refused(const uint32_t *tokens, uint32_t count, const char *text)
{
    char error[160];
    CHECK_EQ_INT(program(tokens, count, error, sizeof error), -1);
    if (!CHECK(strstr(error, text) != NULL))
        fprintf(stderr, "    error \"%s\" lacks \"%s\"\n", error, text);
}

static void expect_accepted(const uint32_t *tokens, uint32_t count)
{
    char error[160];
    if (!CHECK(program(tokens, count, error, sizeof error) == 0))
        fprintf(stderr, "    refused: %s\n", error);
}

static void case_container(const void *unused)
{
    (void)unused;
    char error[160];
    d12_dxbc dxbc;
    size_t size = sizeof d12_shader_raw_fill;
    uint8_t *copy = malloc(size);
    CHECK_EQ_INT(d12_dxbc_parse(d12_shader_raw_fill, 31, &dxbc, error, sizeof error), -1);
    CHECK(strstr(error, "smaller than the 32-byte header") != NULL);
    memcpy(copy, d12_shader_raw_fill, size);
    copy[0] = 'X';
    CHECK_EQ_INT(d12_dxbc_parse(copy, size, &dxbc, error, sizeof error), -1);
    CHECK_EQ_STR(error, "DXBC: no DXBC magic");
    CHECK_EQ_INT(d12_dxbc_parse(d12_shader_raw_fill, size - 4, &dxbc, error, sizeof error), -1);
    CHECK(strstr(error, "is not the blob's") != NULL);
    /* A chunk offset outside the blob, checksum made right: only the offset is wrong. */
    memcpy(copy, d12_shader_raw_fill, size);
    copy[32] = 0xF0, copy[33] = 0xFF;
    uint32_t sum[4];
    d12_dxbc_checksum(copy, size, sum);
    memcpy(copy + 4, sum, sizeof sum);
    CHECK_EQ_INT(d12_dxbc_parse(copy, size, &dxbc, error, sizeof error), -1);
    CHECK(strstr(error, "is outside the blob") != NULL);
    /* The writer's container reads back, chunk for chunk. */
    CHECK_EQ_INT(d12_dxbc_parse(d12_shader_raw_fill, size, &dxbc, error, sizeof error), 0);
    size_t written = 0;
    uint8_t *again = d12_dxbc_write(dxbc.chunks, dxbc.chunk_count, &written);
    CHECK(written == size && memcmp(again, d12_shader_raw_fill, size) == 0);
    free(again);
    free(copy);
}

static void case_program_lengths(const void *unused)
{
    (void)unused;
    const uint32_t good[] = {CS50, 5, TEMPS(1), RET};
    expect_accepted(good, 5);
    const uint32_t past_chunk[] = {CS50, 9, TEMPS(1), RET};
    expect_refused(past_chunk, 5, "program length 9 DWORDs");
    const uint32_t zero[] = {CS50, 5, 0x00000068u, 1, RET};
    expect_refused(zero, 5, "of length 0");
    const uint32_t past_program[] = {CS50, 3, TEMPS(1), RET};
    expect_refused(past_program, 5, "runs past the program");
    const uint32_t extra[] = {CS50, 6, 0x03000068u, 1, 7, RET};
    expect_refused(extra, 6, "DWORDs more than it uses");
    const uint32_t version[] = {0x00070070u, 3, RET};
    expect_refused(version, 3, "not shader model 4 or 5");
}

static void case_declarations(const void *unused)
{
    (void)unused;
    /* dcl_uav_raw u0 (5.0): operand 0x0011E000 then the index. */
    const uint32_t good[] = {CS50, 6, 0x0300009Du, 0x0011E000u, 0, RET};
    expect_accepted(good, 6);
    /* The operand of a raw UAV declaration naming a resource (t) instead. */
    const uint32_t wrong_type[] = {CS50, 6, 0x0300009Du, 0x00107000u, 0, RET};
    expect_refused(wrong_type, 6, "declaration operand of register type 7");
    /* A relative index in a declaration. */
    const uint32_t relative[] = {CS50, 7, 0x0400009Du, 0x0091E000u, 0x00100001u, 0, RET};
    expect_refused(relative, 7, "declaration operand");
    /* 5.1: a range whose upper register is below its lower one. */
    const uint32_t range[] = {0x00050051u, 9, 0x0600009Du, 0x0031E000u, 0, 4, 2, 0, RET};
    expect_refused(range, 9, "register range [4:2] ends before it starts");
    const uint32_t range_ok[] = {0x00050051u, 9, 0x0600009Du, 0x0031E000u, 0, 2, 4, 0, RET};
    expect_accepted(range_ok, 9);
    /* An operand of N components. */
    const uint32_t n_components[] = {CS50, 5, 0x02000036u, 0x00000003u, RET};
    expect_refused(n_components, 5, "N components");
}

static const d12test_case cases[] = {
    {"container", case_container, NULL},
    {"program_lengths", case_program_lengths, NULL},
    {"declarations", case_declarations, NULL},
};

int main(int argc, char **argv)
{
    return d12test_case_main(argc, argv, cases, sizeof cases / sizeof *cases, NULL);
}
