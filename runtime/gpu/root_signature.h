/* ID3D12RootSignature and ID3D12Device::CreateRootSignature (docs/root-signatures.md; issue 30 items 3 and 6).
 *
 * A root signature is created from a serialized blob (a DXBC container holding RTS0: what the serializers write, or
 * a shader's container embedding one), parsed and checked by runtime/rootsig (the debug layer's rules, one place
 * each), kept at version 1.1 and handed to the driver through the descriptor table (pfnCreateRootSignature).
 *
 * The internal API other parts use (command lists binding it, pipeline states checking a shader against it): the
 * object is immutable after creation, so everything below is read without a lock. Hold a reference
 * (d12_root_signature_AddRef) for as long as a pointer is kept. */
#ifndef D12_ROOT_SIGNATURE_H
#define D12_ROOT_SIGNATURE_H

#include <stdatomic.h>

#include "child.h"
#include "d12_com.h"
#include "driver.h"

struct d12_root_signature {
    struct d12__root_signature_com com;
    atomic_ulong refcount;
    d12_device_child device_child;
    /* Fixed at creation. */
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc; /* version 1.1, one allocation (runtime/dxbc's d12_rootsig_convert) */
    D3D_ROOT_SIGNATURE_VERSION blob_version;   /* the version the blob was serialized at */
    UINT dword_count;                          /* its size in root-argument DWORDs (at most 64) */
    const d12_driver_gpu_funcs *gpu;
    D3D12DDI_HROOTSIGNATURE handle;            /* the driver's object */
    bool constructed;                          /* pfnCreateRootSignature succeeded: destroy it with the object */
};

/* The d12rt root signature behind an application's pointer; NULL for NULL or an object that is not d12rt's. */
struct d12_root_signature *d12__root_signature_from(ID3D12RootSignature *iface);

/* Its description at version 1.1 (parameters in order, their ranges, static samplers, flags). */
static inline const D3D12_ROOT_SIGNATURE_DESC1 *d12__root_signature_desc(const struct d12_root_signature *signature)
{
    return &signature->desc->Desc_1_1;
}

#endif
