/* A driver's true capabilities (driver.h, "True capabilities"): the size a feature's data has for a flavor, and
 * pfnGetCaps, its inputs copied and its answer checked; the adapter's identity (version 2), asked at open. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "d12rt/d3d12_ext.h" /* D3D12_FEATURE_D12RT_SHADER_EXECUTION */
#include "driver_internal.h"

/* ---- True capabilities ---- */

UINT d12__driver_feature_data_size(UINT feature, d12_caps_flavor flavor)
{
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    d12_caps_version version;
    UINT size = 0;
    if (!found || !found->struct_name)
        return 0;
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &version);
    for (uint32_t i = 0; i < found->layout_count; i++) {
        const d12_caps_layout *layout = &found->layouts[i];
        if (layout->first[version.line] <= version.number && layout->size > size)
            size = layout->size;
    }
    return size;
}

/* Any layout of the feature, on either line: the runtime's newest for its flavor is one of them. */
static const d12_caps_layout *layout_of_size(const d12_caps_feature *feature, UINT size)
{
    for (uint32_t i = 0; feature && feature->struct_name && i < feature->layout_count; i++) {
        if (feature->layouts[i].size == size)
            return &feature->layouts[i];
    }
    return NULL;
}

/* A zeroed copy holding only the input fields: the driver sees the application's inputs and nothing else,
 * and a driver that leaves a field alone answers 0, not whatever the application's struct held. */
static void copy_inputs(const d12_caps_layout *layout, const void *from, unsigned char *to)
{
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        if (field->kind == D12_CAPS_FIELD_INPUT || field->kind == D12_CAPS_FIELD_INOUT)
            memcpy(to + field->offset, (const unsigned char *)from + field->offset, field->size);
    }
}

HRESULT d12__driver_get_feature_data(d12_driver_adapter *adapter, D3D12_FEATURE feature, void *data, UINT size)
{
    const d12_caps_layout *layout = layout_of_size(d12_caps_find_feature((UINT)feature), size);
    if (!layout || !data)
        return E_INVALIDARG;
    unsigned char *copy = calloc(1, size);
    if (!copy)
        return E_OUTOFMEMORY;
    copy_inputs(layout, data, copy);
    D3D12DDIARG_GETCAPS args = {D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA, &feature, copy, size};
    HRESULT hr = adapter->funcs.pfnGetCaps(adapter->handle, &args);
    if (SUCCEEDED(hr))
        memcpy(data, copy, size);
    free(copy);
    return hr;
}

bool d12__driver_executes_shaders(d12_driver_adapter *adapter)
{
    static const D3D12_FEATURE feature = D3D12_FEATURE_D12RT_SHADER_EXECUTION;
    D3D12_FEATURE_DATA_D12RT_SHADER_EXECUTION answer = {FALSE};
    D3D12DDIARG_GETCAPS args = {D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA, &feature, &answer, sizeof answer};
    return SUCCEEDED(adapter->funcs.pfnGetCaps(adapter->handle, &args)) && answer.ExecutesShaders;
}

/* ---- The adapter's identity ---- */

/* v2 of driver-reported messages: "queried at adapter open for every driver version"; no answer is no failure. */
void d12__driver_query_adapter_identity(d12_driver_adapter *adapter)
{
    D3D12DDI_D12RT_ADAPTER_IDENTITY identity = {0};
    /* pInfo names no feature, so a version-1 driver that reads it before checking Type answers "unknown" */
    static const D3D12_FEATURE no_feature = (D3D12_FEATURE)0xFFFFFFFF;
    D3D12DDIARG_GETCAPS args = {D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, &no_feature, &identity, sizeof identity};
    if (FAILED(adapter->funcs.pfnGetCaps(adapter->handle, &args)) || identity.VendorId == 0)
        identity = (D3D12DDI_D12RT_ADAPTER_IDENTITY){D3D12DDI_D12RT_VENDOR_ID_UNKNOWN, 0, 0, 0};
    adapter->identity = identity;
}

D3D12DDI_D12RT_ADAPTER_IDENTITY d12__driver_adapter_identity(const d12_driver_adapter *adapter)
{
    return adapter->identity;
}
