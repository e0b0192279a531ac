/* runtime/rootsig: root signatures on the application's side (docs/root-signatures.md; issue 30 item 3).
 *
 * Owns: the exports D3D12SerializeRootSignature, D3D12SerializeVersionedRootSignature,
 * D3D12CreateRootSignatureDeserializer and D3D12CreateVersionedRootSignatureDeserializer (their work; entry.c
 * exports them), the ID3DBlob object (blob.c), the deserializer object (deserializer.c) and the debug layer's
 * validation of a description (validate.c). Byte layout, parsing and version conversion are runtime/dxbc's
 * (rts0.c), shared with the drivers. Calls nothing but runtime/dxbc and libc: these exports work without a device. */
#ifndef D12_ROOTSIG_H
#define D12_ROOTSIG_H

#include <stdatomic.h>
#include <stddef.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "d12_com.h"

/* ID3DBlob: a copy of the bytes it was made with. */
struct d12_blob {
    struct d12__blob_com com;
    atomic_ulong refcount;
    size_t size;
    unsigned char data[]; /* 8-aligned after the header */
};

/* A blob holding a copy of `size` bytes (NULL on out of memory). */
ID3D10Blob *d12__blob_create(const void *data, size_t size);

/* A blob holding `text` and its NUL (what an error blob holds). */
ID3D10Blob *d12__blob_create_text(const char *text);

/* Both deserializer interfaces on one object; the descriptions are immutable once made. */
struct d12_rootsig_deserializer {
    struct d12__rootsig_deserializer_com com;
    atomic_ulong refcount;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *unconverted; /* at the blob's version */
    /* Conversions, made on first request and kept for the object's life (pointers handed out stay valid);
     * published with a compare-and-swap, so concurrent callers agree on one. */
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *_Atomic converted[2]; /* [0]: 1.0, [1]: 1.1 */
};

/* A problem the debug layer finds in a description: its message ID and text (the error blob's). */
typedef struct d12_rootsig_problem {
    D3D12_MESSAGE_ID id;
    char text[256];
} d12_rootsig_problem;

/* The debug layer's checks of a description (docs/root-signatures.md lists them): S_OK, or E_INVALIDARG with
 * `problem` filled. `device_checks`: also what CreateRootSignature refuses on this device
 * (the *_HEAP_DIRECTLY_INDEXED flags while shader model 6.6 is not offered). */
HRESULT d12__rootsig_validate(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, int device_checks,
                              d12_rootsig_problem *problem);

/* The DWORDs a parameter of a 1.1 description takes in the root arguments (D3D12's root cost): a table 1, a root
 * view 2, constants Num32BitValues (capped at 65, so a sum never wraps). */
UINT d12__rootsig_parameter_dwords(const D3D12_ROOT_PARAMETER1 *param);

/* The exports' work (serialize.c, deserializer.c). */
HRESULT d12__rootsig_serialize(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc, ID3D10Blob **blob,
                               ID3D10Blob **error_blob);
HRESULT d12__rootsig_serialize_1_0(const D3D12_ROOT_SIGNATURE_DESC *desc, D3D_ROOT_SIGNATURE_VERSION version,
                                   ID3D10Blob **blob, ID3D10Blob **error_blob);
HRESULT d12__rootsig_deserializer_create(const void *data, SIZE_T size, const IID *riid, void **object);

/* The parsed description of a serialized root signature or of a shader's RTS0 chunk: 0 and *out (free()), or
 * a line in `error` and -1 (not a valid container, or a broken RTS0) or D12_ROOTSIG_NO_RTS0 (a valid container
 * without an RTS0 chunk: CreateRootSignature's BLOB_NOT_FOUND). */
#define D12_ROOTSIG_NO_RTS0 (-2)
int d12__rootsig_parse_blob(const void *data, size_t size, D3D12_VERSIONED_ROOT_SIGNATURE_DESC **out, char *error,
                            size_t error_size);

#endif
