/* Device children's shared part (child.h). */
#include "child.h"
#include "device.h"
#include "rthandle.h"

void d12__device_child_init(d12_device_child *child, struct d12_device *device, const void *api_object,
                            const char *interface_name)
{
    child->device = device;
    d12_device_AddRef(device);
    d12__object_data_init(&child->object);
    child->entry.handle = d12__rthandle_serial(); /* what the driver is given, from its constructor on */
    child->entry.object = NULL;
    child->entry.api_object = api_object;
    child->entry.interface_name = interface_name;
    child->entry.data = &child->object;
    child->registered = false;
}

void *d12__device_child_rt_handle(const d12_device_child *child)
{
    return (void *)child->entry.handle;
}

void d12__device_child_register(d12_device_child *child, void *object, D3D12DDI_HANDLETYPE type)
{
    child->entry.object = object;
    child->entry.type = type;
    d12__objtable_add(&child->device->objects, &child->entry);
    child->registered = true;
}

void d12__device_child_unregister(d12_device_child *child)
{
    if (!child->registered)
        return;
    d12__objtable_remove(&child->device->objects, &child->entry);
    child->registered = false;
}

void d12__device_child_destroy(d12_device_child *child)
{
    d12__device_child_unregister(child);
    d12__object_data_destroy(&child->object);
    d12_device_Release(child->device);
}

HRESULT d12_device_child_GetPrivateData(d12_device_child *child, const GUID *guid, UINT *pDataSize, void *pData)
{
    return d12__object_get_private_data(&child->object, guid, pDataSize, pData);
}

HRESULT d12_device_child_SetPrivateData(d12_device_child *child, const GUID *guid, UINT DataSize, const void *pData)
{
    return d12__object_set_private_data(&child->object, guid, DataSize, pData);
}

HRESULT d12_device_child_SetPrivateDataInterface(d12_device_child *child, const GUID *guid, const IUnknown *pData)
{
    return d12__object_set_private_data_interface(&child->object, guid, pData);
}

HRESULT d12_device_child_SetName(d12_device_child *child, LPCWSTR Name)
{
    return d12__object_set_name(&child->object, Name);
}

HRESULT d12_device_child_GetDevice(d12_device_child *child, const IID *riid, void **ppvDevice)
{
    return d12__device_QueryInterface(child->device, riid, ppvDevice);
}
