/* The functions libd12rt.so exports, with DirectX-Headers' signatures. */
#include "debug.h"
#include "device.h"
#include "rootsig.h"

#define D12_EXPORT __attribute__((visibility("default")))

/* NULL pAdapter: the default adapter (the only one). A device of the adapter that is alive and not removed is
 * returned again with a reference added. NULL ppDevice: S_FALSE once the arguments and the adapter's feature
 * level are checked, and no device is made. */
D12_EXPORT HRESULT WINAPI D3D12CreateDevice(IUnknown *pAdapter, D3D_FEATURE_LEVEL MinimumFeatureLevel, REFIID riid,
                                            void **ppDevice)
{
    return d12__device_create(pAdapter, MinimumFeatureLevel, riid, ppDevice);
}

/* ID3D12Debug ... ID3D12Debug7 and ID3D12DeviceRemovedExtendedDataSettings(1, 2); NULL ppvDebug: S_FALSE for
 * an interface the runtime has. */
D12_EXPORT HRESULT WINAPI D3D12GetDebugInterface(REFIID riid, void **ppvDebug)
{
    return d12__debug_get_interface(riid, ppvDebug);
}

/* Root signatures (runtime/rootsig/, docs/root-signatures.md): serialization and deserialization need no device. */
D12_EXPORT HRESULT WINAPI D3D12SerializeRootSignature(const D3D12_ROOT_SIGNATURE_DESC *pRootSignature,
                                                      D3D_ROOT_SIGNATURE_VERSION Version, ID3DBlob **ppBlob,
                                                      ID3DBlob **ppErrorBlob)
{
    return d12__rootsig_serialize_1_0(pRootSignature, Version, ppBlob, ppErrorBlob);
}

D12_EXPORT HRESULT WINAPI D3D12SerializeVersionedRootSignature(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *pRootSignature,
                                                               ID3DBlob **ppBlob, ID3DBlob **ppErrorBlob)
{
    return d12__rootsig_serialize(pRootSignature, ppBlob, ppErrorBlob);
}

D12_EXPORT HRESULT WINAPI D3D12CreateRootSignatureDeserializer(LPCVOID pSrcData, SIZE_T SrcDataSizeInBytes,
                                                               REFIID pRootSignatureDeserializerInterface,
                                                               void **ppRootSignatureDeserializer)
{
    return d12__rootsig_deserializer_create(pSrcData, SrcDataSizeInBytes, pRootSignatureDeserializerInterface,
                                            ppRootSignatureDeserializer);
}

D12_EXPORT HRESULT WINAPI D3D12CreateVersionedRootSignatureDeserializer(LPCVOID pSrcData, SIZE_T SrcDataSizeInBytes,
                                                                        REFIID pRootSignatureDeserializerInterface,
                                                                        void **ppRootSignatureDeserializer)
{
    return d12__rootsig_deserializer_create(pSrcData, SrcDataSizeInBytes, pRootSignatureDeserializerInterface,
                                            ppRootSignatureDeserializer);
}
