/* D3D12SerializeRootSignature and D3D12SerializeVersionedRootSignature: validate, then write the RTS0 chunk in a
 * DXBC container of its own (what Windows returns; runtime/dxbc writes both). Out-pointers as on Windows: success
 * sets *ppErrorBlob to NULL; a failure leaves *ppBlob as it was and sets *ppErrorBlob to the error text. */
#include "rootsig.h"

#include "dxbc.h"

#include <stdlib.h>

static HRESULT refuse(HRESULT hr, const char *text, ID3D10Blob **error_blob)
{
    if (error_blob)
        *error_blob = d12__blob_create_text(text);
    return hr;
}

HRESULT d12__rootsig_serialize(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, ID3D10Blob **blob,
                               ID3D10Blob **error_blob)
{
    if (error_blob)
        *error_blob = NULL;
    if (!blob)
        return refuse(E_INVALIDARG, "ppBlob is NULL.", error_blob);
    d12_rootsig_problem problem;
    HRESULT hr = d12__rootsig_validate(desc, 0, &problem);
    if (FAILED(hr))
        return refuse(hr, problem.text, error_blob);
    size_t rts0_size = 0, size = 0;
    void *rts0 = d12_rts0_write(desc, &rts0_size);
    d12_dxbc_chunk chunk = {D12_DXBC_TAG_RTS0, (uint32_t)rts0_size, rts0};
    void *container = rts0 ? d12_dxbc_write(&chunk, 1, &size) : NULL;
    ID3D10Blob *out = container ? d12__blob_create(container, size) : NULL;
    free(container);
    free(rts0);
    if (!out)
        return refuse(E_OUTOFMEMORY, "Out of memory.", error_blob);
    *blob = out;
    return S_OK;
}

/* The 1.0 entry point serializes a 1.0 description; another version is refused (its struct is 1.0's). */
HRESULT d12__rootsig_serialize_1_0(const D3D12_ROOT_SIGNATURE_DESC *desc, D3D_ROOT_SIGNATURE_VERSION version,
                                   ID3D10Blob **blob, ID3D10Blob **error_blob)
{
    if (error_blob)
        *error_blob = NULL;
    if (version != D3D_ROOT_SIGNATURE_VERSION_1_0)
        return refuse(E_INVALIDARG, "D3D12SerializeRootSignature serializes version 1.0 (1) only; use "
                                    "D3D12SerializeVersionedRootSignature.", error_blob);
    if (!desc)
        return refuse(E_INVALIDARG, "The root signature description is NULL.", error_blob);
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC versioned = {.Version = D3D_ROOT_SIGNATURE_VERSION_1_0, .Desc_1_0 = *desc};
    return d12__rootsig_serialize(&versioned, blob, error_blob);
}
