/* ID3D12RootSignature and ID3D12Device::CreateRootSignature (root_signature.h, docs/root-signatures.md). */
#include <stdio.h>
#include <stdlib.h>

#include "d12_messages.h"
#include "descriptor_heap.h"
#include "device.h"
#include "dxbc.h"
#include "root_signature.h"
#include "rootsig.h"

struct d12_root_signature *d12__root_signature_from(ID3D12RootSignature *iface)
{
    return d12__root_signature_unwrap(iface);
}

ULONG d12_root_signature_AddRef(struct d12_root_signature *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

static void root_signature_destroy(struct d12_root_signature *signature)
{
    struct d12_device *device = signature->device_child.device;
    if (signature->constructed)
        signature->gpu->descriptors.pfnDestroyRootSignature(d12__driver_device_handle(device->driver),
                                                             signature->handle);
    free(signature->handle.pDrvPrivate);
    free(signature->desc);
    d12__device_child_destroy(&signature->device_child);
    free(signature);
}

ULONG d12_root_signature_Release(struct d12_root_signature *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        root_signature_destroy(self);
    return left;
}

void d12_root_signature_not_implemented(struct d12_root_signature *self, const char *interface_name,
                                        const char *method)
{
    d12__msg_method_not_implemented(self->device_child.device->info_queue, interface_name, method);
}

/* ---- ID3D12Device::CreateRootSignature ---- */

/* The blob's description at version 1.1, checked as the debug layer checks it (runtime/rootsig: every rule in one
 * place, the device's own included); NULL with the message said when the blob is refused. */
static D3D12_VERSIONED_ROOT_SIGNATURE_DESC *parse_and_check(struct d12_device *device, UINT node_mask,
                                                            const void *blob, SIZE_T size, HRESULT *hr,
                                                            D3D_ROOT_SIGNATURE_VERSION *blob_version)
{
    char error[160];
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *parsed = NULL;
    *hr = E_INVALIDARG;
    if (node_mask > 1) {
        d12__msg_create_root_signature_invalid_configuration(device->info_queue,
                                                             "nodeMask names a node the adapter lacks");
        return NULL;
    }
    int status = -1;
    if (blob && size)
        status = d12__rootsig_parse_blob(blob, size, &parsed, error, sizeof error);
    else
        snprintf(error, sizeof error, "pBlobWithRootSignature is NULL or blobLengthInBytes is 0");
    if (status == D12_ROOTSIG_NO_RTS0) {
        d12__msg_create_root_signature_blob_not_found(device->info_queue);
        return NULL;
    }
    if (status) {
        d12__msg_create_root_signature_deserialize_failed(device->info_queue, error);
        return NULL;
    }
    d12_rootsig_problem problem;
    /* device_checks: this device offers no shader model 6.6, so the heap-indexing flags are refused. */
    if (FAILED(d12__rootsig_validate(parsed, 1, &problem))) {
        if (problem.id == D3D12_MESSAGE_ID_CREATE_ROOT_SIGNATURE_NOT_SUPPORTED_ON_DEVICE)
            d12__msg_create_root_signature_not_supported_on_device(device->info_queue, problem.text);
        else
            d12__msg_create_root_signature_invalid_configuration(device->info_queue, problem.text);
        free(parsed);
        return NULL;
    }
    *blob_version = parsed->Version;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *as11 = d12_rootsig_convert(parsed, D3D_ROOT_SIGNATURE_VERSION_1_1);
    free(parsed);
    *hr = as11 ? S_OK : E_OUTOFMEMORY;
    return as11;
}

static HRESULT create_driver_root_signature(struct d12_device *device, struct d12_root_signature *signature)
{
    const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT *ddi = &signature->gpu->descriptors;
    D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT args = {signature->desc, 1};
    D3D12DDI_HDEVICE driver = d12__driver_device_handle(device->driver);
    void *memory;
    HRESULT hr = d12__driver_private_alloc(device->driver, "RootSignature",
                                           ddi->pfnCalcPrivateRootSignatureSize(driver, &args), &memory);
    if (FAILED(hr))
        return hr;
    signature->handle = (D3D12DDI_HROOTSIGNATURE){memory};
    if (FAILED(hr = ddi->pfnCreateRootSignature(driver, &args, signature->handle)))
        return hr;
    signature->constructed = true;
    return S_OK;
}

HRESULT d12_device_CreateRootSignature(struct d12_device *self, UINT nodeMask, const void *pBlobWithRootSignature,
                                       SIZE_T blobLengthInBytes, const IID *riid, void **ppvRootSignature)
{
    const char *method = "ID3D12Device::CreateRootSignature";
    if (ppvRootSignature)
        *ppvRootSignature = NULL;
    HRESULT hr = d12__device_check_gpu_create(self, method);
    if (FAILED(hr))
        return hr;
    if (!d12__descriptors_available(self, method))
        return E_NOTIMPL;
    D3D_ROOT_SIGNATURE_VERSION blob_version = D3D_ROOT_SIGNATURE_VERSION_1_0;
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc =
        parse_and_check(self, nodeMask, pBlobWithRootSignature, blobLengthInBytes, &hr, &blob_version);
    if (!desc)
        return hr;
    if (riid == NULL || ppvRootSignature == NULL) { /* checked after the blob, as for every creation method */
        free(desc);
        return riid == NULL ? E_INVALIDARG : S_FALSE;
    }
    struct d12_root_signature *signature = calloc(1, sizeof *signature);
    if (!signature) {
        free(desc);
        return E_OUTOFMEMORY;
    }
    d12__root_signature_com_init(&signature->com);
    atomic_init(&signature->refcount, 1);
    d12__device_child_init(&signature->device_child, self, &signature->com.root_signature, "ID3D12RootSignature");
    signature->desc = desc;
    signature->blob_version = blob_version;
    for (UINT i = 0; i < desc->Desc_1_1.NumParameters; i++)
        signature->dword_count += d12__rootsig_parameter_dwords(&desc->Desc_1_1.pParameters[i]);
    signature->gpu = self->gpu;
    if (FAILED(hr = create_driver_root_signature(self, signature))) {
        root_signature_destroy(signature);
        return hr;
    }
    hr = d12__root_signature_QueryInterface(signature, riid, ppvRootSignature);
    d12_root_signature_Release(signature);
    return hr;
}
