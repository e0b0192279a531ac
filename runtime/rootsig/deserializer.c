/* The root signature deserializer (ID3D12RootSignatureDeserializer and ID3D12VersionedRootSignatureDeserializer on
 * one object): the blob is parsed once (a DXBC container holding RTS0, or a bare RTS0 chunk is refused as on
 * Windows), kept at its own version, and converted on request with Windows' rules (runtime/dxbc/rts0.c). */
#include "rootsig.h"

#include "dxbc.h"

#include <stdio.h>
#include <stdlib.h>

int d12__rootsig_parse_blob(const void *data, size_t size, D3D12_VERSIONED_ROOT_SIGNATURE_DESC **out, char *error,
                            size_t error_size)
{
    d12_dxbc dxbc;
    *out = NULL;
    if (d12_dxbc_parse(data, size, &dxbc, error, error_size))
        return -1;
    const d12_dxbc_chunk *chunk = d12_dxbc_find(&dxbc, D12_DXBC_TAG_RTS0);
    if (!chunk) {
        snprintf(error, error_size, "DXBC: no RTS0 (root signature) chunk");
        return D12_ROOTSIG_NO_RTS0;
    }
    return d12_rts0_parse(chunk->data, chunk->size, out, error, error_size);
}

HRESULT d12__rootsig_deserializer_create(const void *data, SIZE_T size, const IID *riid, void **object)
{
    if (!object)
        return E_POINTER;
    *object = NULL;
    if (!riid)
        return E_POINTER;
    char error[160];
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc;
    if (!data || d12__rootsig_parse_blob(data, size, &desc, error, sizeof error))
        return E_INVALIDARG;
    struct d12_rootsig_deserializer *self = calloc(1, sizeof *self);
    if (!self) {
        free(desc);
        return E_OUTOFMEMORY;
    }
    d12__rootsig_deserializer_com_init(&self->com);
    atomic_init(&self->refcount, 1);
    self->unconverted = desc;
    HRESULT hr = d12__rootsig_deserializer_QueryInterface(self, riid, object);
    d12_rootsig_deserializer_Release(self); /* the interface's reference is the only one, or none */
    return hr;
}

ULONG d12_rootsig_deserializer_AddRef(struct d12_rootsig_deserializer *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

ULONG d12_rootsig_deserializer_Release(struct d12_rootsig_deserializer *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0) {
        free(self->unconverted);
        free(atomic_load(&self->converted[0]));
        free(atomic_load(&self->converted[1]));
        free(self);
    }
    return left;
}

void d12_rootsig_deserializer_not_implemented(struct d12_rootsig_deserializer *self, const char *interface_name,
                                              const char *method)
{
    (void)self;
    fprintf(stderr, "d12rt: %s::%s is not implemented\n", interface_name, method);
}

/* The description at `version`: the blob's own, or a conversion made once and kept. */
static const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *at_version(struct d12_rootsig_deserializer *self,
                                                             D3D_ROOT_SIGNATURE_VERSION version)
{
    if (version == self->unconverted->Version)
        return self->unconverted;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *_Atomic *slot = &self->converted[version == D3D_ROOT_SIGNATURE_VERSION_1_1];
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *made = atomic_load(slot), *expected = NULL;
    if (made)
        return made;
    made = d12_rootsig_convert(self->unconverted, version);
    if (made && !atomic_compare_exchange_strong(slot, &expected, made)) {
        free(made); /* another caller's conversion won */
        made = expected;
    }
    return made;
}

const D3D12_ROOT_SIGNATURE_DESC *d12_rootsig_deserializer_GetRootSignatureDesc(struct d12_rootsig_deserializer *self)
{
    const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc = at_version(self, D3D_ROOT_SIGNATURE_VERSION_1_0);
    return desc ? &desc->Desc_1_0 : NULL;
}

HRESULT d12_rootsig_deserializer_GetRootSignatureDescAtVersion(struct d12_rootsig_deserializer *self,
                                                               D3D_ROOT_SIGNATURE_VERSION convertToVersion,
                                                               const D3D12_VERSIONED_ROOT_SIGNATURE_DESC **ppDesc)
{
    if (!ppDesc)
        return E_INVALIDARG;
    if (convertToVersion != D3D_ROOT_SIGNATURE_VERSION_1_0 && convertToVersion != D3D_ROOT_SIGNATURE_VERSION_1_1)
        return E_INVALIDARG;
    const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc = at_version(self, convertToVersion);
    if (!desc)
        return E_OUTOFMEMORY;
    *ppDesc = desc;
    return S_OK;
}

const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *
d12_rootsig_deserializer_GetUnconvertedRootSignatureDesc(struct d12_rootsig_deserializer *self)
{
    return self->unconverted;
}
