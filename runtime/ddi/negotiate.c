/* DDI version negotiation and the tables a driver offers, read once at adapter open (driver.h, driver_internal.h):
 * the two-call list queries, bounded; the version; the extended features and their versions; the GPU-work
 * tables. Everything a driver returns is checked before use. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "ddi_trace.h"
#include "driver_internal.h"

static const UINT64 k_runtime_versions[] = D12RT_DDI_SUPPORTED_VERSIONS;

/* ---- Two-call list queries, bounded ---- */

/* The count half of a two-call query: a failure or a count above D12_DRIVER_MAX_LIST is a broken driver. */
static HRESULT checked_count(const d12_driver_adapter *adapter, const char *what, HRESULT hr, UINT32 count)
{
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "%s failed (0x%08X)", what, (unsigned)hr);
    if (count > D12_DRIVER_MAX_LIST)
        return broken(adapter, "%s reported %u entries (at most %u accepted)", what, count, D12_DRIVER_MAX_LIST);
    return S_OK;
}

/* The fill half: it may not report more entries than the array it was given. */
static HRESULT checked_fill(const d12_driver_adapter *adapter, const char *what, HRESULT hr, UINT32 given,
                            UINT32 written)
{
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "%s failed (0x%08X) filling %u entries", what, (unsigned)hr, given);
    if (written > given)
        return broken(adapter, "%s wrote %u entries into room for %u", what, written, given);
    return S_OK;
}

/* ---- Version negotiation ---- */

static UINT64 highest_common(const UINT64 *driver_versions, UINT32 count)
{
    UINT64 best = 0;
    for (UINT32 i = 0; i < count; i++) {
        for (size_t j = 0; j < sizeof k_runtime_versions / sizeof k_runtime_versions[0]; j++) {
            if (driver_versions[i] == k_runtime_versions[j] && driver_versions[i] > best)
                best = driver_versions[i];
        }
    }
    return best;
}

HRESULT d12__driver_negotiate(d12_driver_adapter *adapter)
{
    UINT32 count = 0;
    HRESULT hr = adapter->funcs.pfnGetSupportedVersions(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedVersions", hr, count)))
        return hr;
    UINT64 versions[D12_DRIVER_MAX_LIST];
    UINT32 written = count;
    hr = adapter->funcs.pfnGetSupportedVersions(adapter->handle, &written, count ? versions : NULL);
    if (count && FAILED(hr = checked_fill(adapter, "pfnGetSupportedVersions", hr, count, written)))
        return hr;
    adapter->version = highest_common(versions, count ? written : 0);
    if (!adapter->version) {
        fprintf(stderr, "d12rt: driver %s: no DDI version in common with the runtime (it lists %u; the runtime "
                "implements D3D12DDI_SUPPORTED_0x%016llX and older)\n", d12__driver_adapter_name(adapter),
                count, (unsigned long long)k_runtime_versions[D12RT_DDI_SUPPORTED_VERSION_COUNT - 1]);
        return DXGI_ERROR_UNSUPPORTED;
    }
    return S_OK;
}

/* ---- Extended features, queried once at adapter init (the spec; d3d12ddi.h says how this differs) ---- */

/* The d12rt optional tables (0x0D12....) a driver lists: flags of their own, beside the WDK's mask. */
typedef struct d12rt_tables {
    bool descriptors, heaps, pipelines, binding;
} d12rt_tables;

static void note_d12rt_table(d12rt_tables *d12rt, D3D12DDI_TABLE_TYPE type)
{
    switch (type) {
    case D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS: d12rt->descriptors = true; break;
    case D3D12DDI_TABLE_TYPE_D12RT_HEAPS: d12rt->heaps = true; break;
    case D3D12DDI_TABLE_TYPE_D12RT_PIPELINES: d12rt->pipelines = true; break;
    case D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING: d12rt->binding = true; break;
    default: break;
    }
}

/* The tables the driver offers: *offered has bit N for a WDK table type N < 64; the d12rt types that the runtime
 * asks for are flags in *d12rt. */
static HRESULT offered_tables(d12_driver_adapter *adapter, UINT64 *offered, d12rt_tables *d12rt)
{
    UINT32 count = 0;
    *offered = 0;
    memset(d12rt, 0, sizeof *d12rt);
    HRESULT hr = adapter->funcs.pfnGetOptionalDDITables(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetOptionalDDITables", hr, count)))
        return hr;
    D3D12DDI_TABLE_REQUEST tables[D12_DRIVER_MAX_LIST];
    UINT32 written = count;
    if (!count)
        return S_OK;
    hr = adapter->funcs.pfnGetOptionalDDITables(adapter->handle, &written, tables);
    if (FAILED(hr = checked_fill(adapter, "pfnGetOptionalDDITables", hr, count, written)))
        return hr;
    for (UINT32 i = 0; i < written; i++) {
        if (tables[i].numTables == 0)
            continue;
        if ((UINT)tables[i].tableType < 64)
            *offered |= 1ull << tables[i].tableType;
        note_d12rt_table(d12rt, tables[i].tableType);
    }
    return S_OK;
}

static bool offers(UINT64 offered, D3D12DDI_TABLE_TYPE type)
{
    return (offered >> type) & 1;
}

static HRESULT fill_extended_table(d12_driver_adapter *adapter)
{
    D3D12DDI_HRTTABLE none = {NULL};
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    HRESULT hr = adapter->funcs.pfnFillDDITable(adapter->handle, D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, t,
                                                sizeof *t, 0, none);
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "pfnFillDDITable(EXTENDED_FEATURES) failed (0x%08X) though the table is "
                           "offered", (unsigned)hr);
    if (!t->pfnGetSupportedExtendedFeatures || !t->pfnGetSupportedExtendedFeatureVersions ||
        !t->pfnEnableExtendedFeature)
        return broken(adapter, "the extended-features table has a NULL slot");
    d12__ddi_trace_wrap_extended(t);
    adapter->has_extended = true;
    return S_OK;
}

static HRESULT query_feature_versions(d12_driver_adapter *adapter, extended_feature *entry)
{
    const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    UINT32 count = 0;
    HRESULT hr = t->pfnGetSupportedExtendedFeatureVersions(adapter->handle, entry->feature, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedExtendedFeatureVersions", hr, count)))
        return hr;
    if (!count)
        return broken(adapter, "extended feature %d has no versions", (int)entry->feature);
    entry->versions = calloc(count, sizeof *entry->versions);
    if (!entry->versions)
        return E_OUTOFMEMORY;
    UINT32 written = count;
    hr = t->pfnGetSupportedExtendedFeatureVersions(adapter->handle, entry->feature, &written, entry->versions);
    if (FAILED(hr = checked_fill(adapter, "pfnGetSupportedExtendedFeatureVersions", hr, count, written)))
        return hr;
    entry->version_count = written;
    return S_OK;
}

static HRESULT query_extended_features(d12_driver_adapter *adapter)
{
    const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 *t = &adapter->extended;
    UINT32 count = 0;
    HRESULT hr = t->pfnGetSupportedExtendedFeatures(adapter->handle, &count, NULL);
    if (FAILED(hr = checked_count(adapter, "pfnGetSupportedExtendedFeatures", hr, count)) || !count)
        return hr;
    adapter->features = calloc(count, sizeof *adapter->features);
    adapter->extended_features = calloc(count, sizeof *adapter->extended_features);
    if (!adapter->features || !adapter->extended_features)
        return E_OUTOFMEMORY;
    UINT32 written = count;
    hr = t->pfnGetSupportedExtendedFeatures(adapter->handle, &written, adapter->features);
    if (FAILED(hr = checked_fill(adapter, "pfnGetSupportedExtendedFeatures", hr, count, written)))
        return hr;
    for (UINT32 i = 0; i < written; i++) {
        adapter->extended_features[i].feature = adapter->features[i];
        adapter->feature_count = i + 1; /* counted as it goes, so a failure frees what was allocated */
        if (FAILED(hr = query_feature_versions(adapter, &adapter->extended_features[i])))
            return hr;
    }
    return S_OK;
}

static HRESULT init_extended_features(d12_driver_adapter *adapter, UINT64 offered)
{
    if (!offers(offered, D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES))
        return S_OK;
    HRESULT hr = fill_extended_table(adapter);
    if (FAILED(hr))
        return hr;
    return query_extended_features(adapter);
}

/* ---- GPU-work tables, filled once at adapter init (d3d12ddi.h, "GPU work") ---- */

/* Whether every slot of a table of function pointers is set (a table is nothing but function pointers). */
static bool all_slots_set(const void *table, size_t size)
{
    for (size_t offset = 0; offset < size; offset += sizeof(void (*)(void))) {
        void (*slot)(void);
        memcpy(&slot, (const char *)table + offset, sizeof slot);
        if (!slot)
            return false;
    }
    return true;
}

static HRESULT fill_gpu_table(d12_driver_adapter *adapter, D3D12DDI_TABLE_TYPE type, const char *name, void *table,
                              size_t size)
{
    D3D12DDI_HRTTABLE none = {NULL};
    HRESULT hr = adapter->funcs.pfnFillDDITable(adapter->handle, type, table, size, 0, none);
    if (FAILED(hr))
        return CALL_FAILED(adapter, hr, "pfnFillDDITable(%s) failed (0x%08X) though the table is offered", name,
                           (unsigned)hr);
    if (!all_slots_set(table, size))
        return broken(adapter, "the %s table has a NULL slot", name);
    return S_OK;
}

/* An optional d12rt table beside the GPU-work tables (descriptors: docs/descriptors.md; heaps: docs/heaps.md): a
 * driver without it keeps working and its devices refuse what it would create. Offered but broken (a failed fill, a
 * NULL slot) is a broken driver, as for the others. */
static HRESULT init_optional_table(d12_driver_adapter *adapter, bool offered, D3D12DDI_TABLE_TYPE type,
                                   const char *name, void *table, size_t size, bool *has)
{
    if (!offered)
        return S_OK;
    HRESULT hr = fill_gpu_table(adapter, type, name, table, size);
    if (FAILED(hr))
        return hr;
    *has = true;
    return S_OK;
}

/* The compute tables (docs/pipelines.md) come as a pair: a pipeline state nobody can bind, or binding calls with
 * no pipeline state to run, is a broken driver. */
static HRESULT check_compute_pair(d12_driver_adapter *adapter, const d12rt_tables *d12rt)
{
    if (d12rt->pipelines == d12rt->binding)
        return S_OK;
    return broken(adapter, "it offers %s without %s; a driver offers both compute tables or neither",
                  d12rt->pipelines ? "D12RT_PIPELINES" : "D12RT_COMMAND_LIST_BINDING",
                  d12rt->pipelines ? "D12RT_COMMAND_LIST_BINDING" : "D12RT_PIPELINES");
}

static HRESULT init_optional_tables(d12_driver_adapter *adapter, const d12rt_tables *d12rt)
{
    d12_driver_gpu_funcs *gpu = &adapter->gpu;
    bool has_binding = false; /* has_pipelines stands for the pair: set only when both filled */
    bool has_pipelines = false;
    HRESULT hr;
    if (FAILED(hr = check_compute_pair(adapter, d12rt)) ||
        FAILED(hr = init_optional_table(adapter, d12rt->descriptors, D3D12DDI_TABLE_TYPE_D12RT_DESCRIPTORS,
                                        "D12RT_DESCRIPTORS", &gpu->descriptors, sizeof gpu->descriptors,
                                        &gpu->has_descriptors)) ||
        FAILED(hr = init_optional_table(adapter, d12rt->heaps, D3D12DDI_TABLE_TYPE_D12RT_HEAPS, "D12RT_HEAPS",
                                        &gpu->heaps, sizeof gpu->heaps, &gpu->has_heaps)) ||
        FAILED(hr = init_optional_table(adapter, d12rt->pipelines, D3D12DDI_TABLE_TYPE_D12RT_PIPELINES,
                                        "D12RT_PIPELINES", &gpu->pipelines, sizeof gpu->pipelines,
                                        &has_pipelines)) ||
        FAILED(hr = init_optional_table(adapter, d12rt->binding, D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING,
                                        "D12RT_COMMAND_LIST_BINDING", &gpu->binding, sizeof gpu->binding,
                                        &has_binding)))
        return hr;
    gpu->has_pipelines = has_pipelines && has_binding;
    if (gpu->has_descriptors)
        d12__ddi_trace_wrap_descriptors(&gpu->descriptors);
    if (gpu->has_heaps)
        d12__ddi_trace_wrap_heaps(&gpu->heaps);
    if (gpu->has_pipelines)
        d12__ddi_trace_wrap_compute(&gpu->pipelines, &gpu->binding);
    return S_OK;
}

/* A driver offering none of the three tables has no GPU work; one offering some but not all is broken. */
static HRESULT init_gpu_tables(d12_driver_adapter *adapter, UINT64 offered, const d12rt_tables *d12rt)
{
    int count = offers(offered, D3D12DDI_TABLE_TYPE_DEVICE_CORE) + offers(offered, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D) +
                offers(offered, D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D);
    if (count == 0)
        return S_OK;
    if (count != 3)
        return broken(adapter, "it offers %d of the three GPU-work tables (DEVICE_CORE, COMMAND_LIST_3D, "
                      "COMMAND_QUEUE_3D); a driver offers all of them or none", count);
    d12_driver_gpu_funcs *gpu = &adapter->gpu;
    HRESULT hr;
    if (FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_DEVICE_CORE, "DEVICE_CORE", &gpu->core, sizeof gpu->core)) ||
        FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, "COMMAND_LIST_3D", &gpu->list,
                                   d12__driver_adapter_has_0127(adapter) ? sizeof gpu->list_0127 : sizeof gpu->list)) ||
        FAILED(hr = fill_gpu_table(adapter, D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, "COMMAND_QUEUE_3D", &gpu->queue,
                                   sizeof gpu->queue)))
        return hr;
    d12__ddi_trace_wrap_gpu(gpu, d12__driver_adapter_has_0127(adapter));
    if (FAILED(hr = init_optional_tables(adapter, d12rt)))
        return hr;
    adapter->has_gpu = true;
    return S_OK;
}

HRESULT d12__driver_init_optional_tables(d12_driver_adapter *adapter)
{
    UINT64 offered;
    d12rt_tables d12rt;
    d12__driver_query_adapter_identity(adapter);
    HRESULT hr = offered_tables(adapter, &offered, &d12rt);
    if (FAILED(hr) || FAILED(hr = init_extended_features(adapter, offered)))
        return hr;
    return init_gpu_tables(adapter, offered, &d12rt);
}

/* ---- Extended-feature queries ---- */

const D3D12DDI_FEATURE_0020 *d12__driver_extended_features(const d12_driver_adapter *adapter, UINT32 *count)
{
    *count = adapter->feature_count;
    return adapter->features;
}

static const extended_feature *find_feature(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature)
{
    for (UINT32 i = 0; i < adapter->feature_count; i++) {
        if (adapter->extended_features[i].feature == feature)
            return &adapter->extended_features[i];
    }
    return NULL;
}

const UINT32 *d12__driver_extended_feature_versions(const d12_driver_adapter *adapter,
                                                    D3D12DDI_FEATURE_0020 feature, UINT32 *count)
{
    const extended_feature *entry = find_feature(adapter, feature);
    *count = entry ? entry->version_count : 0;
    return entry ? entry->versions : NULL;
}

UINT32 d12__driver_pick_feature_version(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature,
                                        UINT32 highest_known)
{
    UINT32 count, best = 0;
    const UINT32 *versions = d12__driver_extended_feature_versions(adapter, feature, &count);
    for (UINT32 i = 0; i < count; i++) {
        if (versions[i] <= highest_known && versions[i] > best)
            best = versions[i];
    }
    return best;
}

