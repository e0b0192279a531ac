/* What every device child shares (ID3D12Object, ID3D12DeviceChild): a reference on its device, its private data
 * and name, and — for the objects a driver may name in pfnQueryObjectIdentityCb — its row in the device's live-
 * object table. The COM generator delegates ID3D12Object's and ID3D12DeviceChild's methods here (spec/com.yaml,
 * `delegate`), so each object writes none of them. */
#ifndef D12_CHILD_H
#define D12_CHILD_H

#include "object.h"
#include "objtable.h"

struct d12_device;

typedef struct d12_device_child {
    struct d12_device *device; /* a reference, held until d12__device_child_destroy; fixed */
    d12_object_data object;    /* private data and name (its own leaf lock) */
    d12_objtable_entry entry;  /* registered only when the driver can name the object */
    bool registered;
} d12_device_child;

/* AddRef the device; `api_object` is the interface pointer the application gets. */
void d12__device_child_init(d12_device_child *child, struct d12_device *device, const void *api_object,
                            const char *interface_name);

/* The runtime handle the driver is given for this object (D3D12DDI_HRT*.handle): a serial (rthandle.h), fixed from
 * init, never the object's address. */
void *d12__device_child_rt_handle(const d12_device_child *child);

/* Make the object nameable by the driver: (its runtime handle, type) is what the driver passes to
 * pfnQueryObjectIdentityCb; d12__objtable_object resolves it to `object`. */
void d12__device_child_register(d12_device_child *child, void *object, D3D12DDI_HANDLETYPE type);

/* Stop the driver naming it. Idempotent; d12__device_child_destroy does it too. */
void d12__device_child_unregister(d12_device_child *child);

/* Unregister, free the private data and release the device (which may destroy it): the object's last step. */
void d12__device_child_destroy(d12_device_child *child);

HRESULT d12_device_child_GetPrivateData(d12_device_child *child, const GUID *guid, UINT *pDataSize, void *pData);
HRESULT d12_device_child_SetPrivateData(d12_device_child *child, const GUID *guid, UINT DataSize, const void *pData);
HRESULT d12_device_child_SetPrivateDataInterface(d12_device_child *child, const GUID *guid, const IUnknown *pData);
HRESULT d12_device_child_SetName(d12_device_child *child, LPCWSTR Name);
/* QueryInterface on the device: E_POINTER for a NULL ppvDevice. */
HRESULT d12_device_child_GetDevice(d12_device_child *child, const IID *riid, void **ppvDevice);

#endif
