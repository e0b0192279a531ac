/* The debug interfaces of D3D12GetDebugInterface: ID3D12Debug ... ID3D12Debug7 and
 * ID3D12DeviceRemovedExtendedDataSettings(1, 2). Their settings are process-global; D3D12CreateDevice takes a
 * snapshot (d12__debug_settings) that stays fixed for that device's life. */
#ifndef D12_DEBUG_H
#define D12_DEBUG_H

#include <stdatomic.h>
#include <stdbool.h>

#include "d12_com.h"

typedef struct d12_debug_settings {
    bool debug_layer;
    bool gpu_based_validation;
    bool synchronized_queue_validation;
    D3D12_GPU_BASED_VALIDATION_FLAGS gpu_based_validation_flags;
    bool auto_name;
    bool force_legacy_barrier_validation;
    bool driver_reported_messages; /* ID3D12Debug7: the latest call before D3D12CreateDevice wins */
    D3D12_DRED_ENABLEMENT auto_breadcrumbs;
    D3D12_DRED_ENABLEMENT page_fault;
    D3D12_DRED_ENABLEMENT watson_dump;
    D3D12_DRED_ENABLEMENT breadcrumb_context;
    bool markers_only_breadcrumbs;
} d12_debug_settings;

/* The process-global debug object (one instance; its reference count is kept but it is never freed). */
struct d12_debug {
    struct d12__debug_com com;
    atomic_ulong refcount;
};

struct d12_dred_settings {
    struct d12__dred_settings_com com;
    atomic_ulong refcount;
};

/* A consistent copy of the current settings. */
d12_debug_settings d12__debug_settings(void);

/* D3D12GetDebugInterface's work: the interface `riid` of the debug or DRED-settings object. */
HRESULT d12__debug_get_interface(const IID *riid, void **object);

#endif
