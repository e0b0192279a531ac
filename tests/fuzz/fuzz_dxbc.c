/* Fuzz target: any bytes through the DXBC reader (runtime/dxbc/dxbc.h). The first byte chooses: even, the rest is
 * a container whose checksum is made right first (so the fuzzer gets past it to the chunks); odd, the rest is a
 * bare RTS0 chunk. Promises: every parser accepts or refuses (-1, a one-line error, nothing to free), never
 * reads outside the bytes (the replay copies them into an allocation of exactly their size); an accepted
 * container's chunks lie inside it; an accepted RTS0 round-trips: written, parsed and written again, the same
 * bytes; its conversions to 1.0 and 1.1 succeed and write. Seeds: the generated shaders and serialized root
 * signatures of every parameter type (corpus/dxbc/). */
#define _DEFAULT_SOURCE
#include <stdlib.h>

#include "fuzz_input.h"
#include "dxbc.h"

#define NAME "fuzz_dxbc"

static void check_error(const char *error, size_t size)
{
    FUZZ_CHECK(NAME, memchr(error, '\0', size) != NULL && error[0] != '\0');
}

static void rts0(const uint8_t *data, size_t size)
{
    char error[160];
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc = (void *)1;
    if (d12_rts0_parse(data, size, &desc, error, sizeof error)) {
        FUZZ_CHECK(NAME, desc == NULL);
        check_error(error, sizeof error);
        return;
    }
    size_t first_size = 0, second_size = 0;
    void *first = d12_rts0_write(desc, &first_size);
    FUZZ_CHECK(NAME, first != NULL);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *again = NULL;
    FUZZ_CHECK(NAME, d12_rts0_parse(first, first_size, &again, error, sizeof error) == 0);
    void *second = d12_rts0_write(again, &second_size);
    FUZZ_CHECK(NAME, second_size == first_size && memcmp(first, second, first_size) == 0);
    for (int v = D3D_ROOT_SIGNATURE_VERSION_1_0; v <= D3D_ROOT_SIGNATURE_VERSION_1_1; v++) {
        D3D12_VERSIONED_ROOT_SIGNATURE_DESC *converted = d12_rootsig_convert(desc, (D3D_ROOT_SIGNATURE_VERSION)v);
        FUZZ_CHECK(NAME, converted != NULL && converted->Version == (D3D_ROOT_SIGNATURE_VERSION)v);
        size_t n = 0;
        free(d12_rts0_write(converted, &n));
        free(converted);
    }
    free(second);
    free(first);
    free(again);
    free(desc);
}

static void container(uint8_t *data, size_t size)
{
    char error[160];
    d12_dxbc dxbc;
    if (size >= 32 && memcmp(data, "DXBC", 4) == 0) {
        uint32_t sum[4];
        d12_dxbc_checksum(data, size, sum);
        memcpy(data + 4, sum, sizeof sum);
    }
    if (d12_dxbc_parse(data, size, &dxbc, error, sizeof error)) {
        check_error(error, sizeof error);
        return;
    }
    for (uint32_t i = 0; i < dxbc.chunk_count; i++)
        FUZZ_CHECK(NAME, dxbc.chunks[i].data >= data && dxbc.chunks[i].data + dxbc.chunks[i].size <= data + size);
    d12_dxbc_program program;
    if (d12_dxbc_program_parse(&dxbc, &program, error, sizeof error) == 0) {
        for (uint32_t i = 0; i < program.binding_count; i++)
            FUZZ_CHECK(NAME, program.bindings[i].lower <= program.bindings[i].upper);
        d12_dxbc_program_free(&program);
    } else {
        check_error(error, sizeof error);
        FUZZ_CHECK(NAME, program.bindings == NULL && program.binding_count == 0);
    }
    const d12_dxbc_chunk *chunk = d12_dxbc_find(&dxbc, D12_DXBC_TAG_RTS0);
    if (chunk)
        rts0(chunk->data, chunk->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t *copy = malloc(size - 1 ? size - 1 : 1); /* exactly the bytes: a read past them is a report */
    FUZZ_CHECK(NAME, copy != NULL);
    memcpy(copy, data + 1, size - 1);
    if (data[0] & 1)
        rts0(copy, size - 1);
    else
        container(copy, size - 1);
    free(copy);
    return 0;
}
