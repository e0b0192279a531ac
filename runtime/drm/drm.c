/* The driver-reported-messages channel (drm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlation.h"
#include "d12_ddi_validation.h"
#include "d12_messages.h"
#include "drm.h"

/* The newest feature version this runtime understands. */
#define D12_DRM_HIGHEST_VERSION D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1
#define D12_DRM_FLAGS_ALL 0x7FFFFFFFu /* D3D12_DRIVER_REPORTED_MESSAGE_FLAG_ALL */

static HRESULT hook_report(void *context, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    return d12__drm_report(context, message);
}

static HRESULT hook_query_identity(void *context, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size, CHAR *identity)
{
    return d12__drm_query_identity(context, object, size, identity);
}

static HRESULT hook_query_va(void *context, UINT64 va, SIZE_T *size, CHAR *identity);

void d12__drm_init(d12_drm *drm, d12_info_queue *info_queue, d12_objtable *objects)
{
    memset(drm, 0, sizeof *drm);
    drm->info_queue = info_queue;
    drm->objects = objects;
    drm->hooks.report = hook_report;
    drm->hooks.query_identity = hook_query_identity;
    drm->hooks.query_va = hook_query_va;
    drm->hooks.context = drm;
    drm->vendor_id = D3D12DDI_D12RT_VENDOR_ID_UNKNOWN;
    atomic_init(&drm->enabled, false);
    atomic_init(&drm->flags, 0);
}

void d12__drm_init_vendor(d12_drm *drm, UINT vendor_id)
{
    drm->vendor_id = vendor_id ? vendor_id : D3D12DDI_D12RT_VENDOR_ID_UNKNOWN; /* never 0: "a runtime message" */
}

bool d12__drm_enabled(d12_drm *drm)
{
    return atomic_load_explicit(&drm->enabled, memory_order_acquire);
}

/* ---- Enabling ---- */

UINT32 d12__drm_pick_version(const d12_driver_adapter *adapter)
{
    /* A driver on an older DDI build never got pfnReportMessageCb, so it cannot honour the feature. */
    if (!d12__driver_adapter_has_message_callbacks(adapter))
        return D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE;
    /* "The runtime negotiates the highest version both sides understand" */
    return d12__driver_pick_feature_version(adapter, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES,
                                            D12_DRM_HIGHEST_VERSION);
}

/* The feature's table, every slot checked; NULL, or why it is unusable. */
static const char *fill_funcs(d12_drm *drm, d12_driver_device *device)
{
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 funcs = {0};
    HRESULT hr = d12__driver_fill_table(device, D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES, &funcs,
                                        sizeof funcs);
    if (FAILED(hr))
        return "could not be filled (pfnFillDDITable failed)";
    if (!funcs.pfnFlushDriverReportedMessages || !funcs.pfnSetCommandListStateIndex)
        return "has a NULL slot";
    drm->funcs = funcs;
    drm->supported = D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL; /* a version-1 driver: all of it is GENERAL */
    if (drm->version < D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1)
        return NULL;
    /* Version 2: its own table, right after table 47 ("a version-1 driver ... sees exactly today's calls"). */
    D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 funcs1 = {0};
    hr = d12__driver_fill_table(device, D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1, &funcs1, sizeof funcs1);
    if (FAILED(hr))
        return "(version 2) could not be filled (pfnFillDDITable of D12RT_DRIVER_REPORTED_MESSAGES_1 failed)";
    if (!funcs1.pfnGetSupportedDriverReportedMessageFlags || !funcs1.pfnSetDriverReportedMessageFlags)
        return "(version 2) has a NULL slot";
    drm->funcs1 = funcs1;
    drm->supported = funcs1.pfnGetSupportedDriverReportedMessageFlags(d12__driver_device_handle(device)) &
                     D12_DRM_FLAGS_ALL;
    drm->device = device;
    return NULL;
}

static HRESULT turn_off(d12_drm *drm)
{
    atomic_store_explicit(&drm->enabled, false, memory_order_release);
    drm->version = D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE;
    drm->supported = 0;
    atomic_store_explicit(&drm->flags, 0, memory_order_relaxed);
    return E_FAIL;
}

/* Issue 10 item 5: a driver that implements the feature but negotiated a build without its callbacks would otherwise
 * have it turned off with no diagnostic at all. Once per device in its InfoQueue, once per process on stderr. */
static void warn_if_build_too_old(d12_drm *drm, const d12_driver_adapter *adapter)
{
    static atomic_bool warned_on_stderr;
    UINT32 count;
    if (d12__driver_adapter_has_message_callbacks(adapter) ||
        !d12__driver_extended_feature_versions(adapter, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, &count))
        return;
    unsigned build = D3D12DDI_VERSION_OF_SUPPORTED(d12__driver_adapter_version(adapter)) >> 16;
    if (!atomic_exchange(&warned_on_stderr, true))
        fprintf(stderr, "d12rt: driver %s implements driver-reported messages but negotiated DDI build %u; the "
                "feature needs 0126 or later, so it is off\n", d12__driver_adapter_name(adapter), build);
    if (drm->info_queue)
        d12__msg_driver_reported_messages_build_too_old(drm->info_queue, d12__driver_adapter_name(adapter), build);
}

HRESULT d12__drm_enable(d12_drm *drm, d12_driver_device *device)
{
    d12_driver_adapter *adapter = d12__driver_device_adapter(device);
    UINT32 version = d12__drm_pick_version(adapter);
    if (version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE)
        warn_if_build_too_old(drm, adapter);
    if (version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE || !drm->info_queue)
        return S_FALSE; /* "the toggle has no observable effect on that device's ID3D12InfoQueue" */
    /* "The device counts as enabled ... before that call is made, so reports made inside it are kept" */
    drm->version = version;
    /* v2: a version-1 driver's reports from inside the enable call are kept (its categories start on) */
    atomic_store_explicit(&drm->flags, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL, memory_order_relaxed);
    atomic_store_explicit(&drm->enabled, true, memory_order_release);
    HRESULT hr = d12__driver_enable_extended_feature(device, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES,
                                                     version);
    if (FAILED(hr)) {
        d12__msg_driver_reported_messages_enable_failed(drm->info_queue, d12__driver_adapter_name(adapter), version,
                                                        (unsigned)hr);
        return turn_off(drm);
    }
    const char *why = fill_funcs(drm, device);
    if (why) {
        d12__msg_driver_reported_messages_table_failed(drm->info_queue, d12__driver_adapter_name(adapter), why);
        return turn_off(drm);
    }
    /* "A device starts with every supported category on" */
    atomic_store_explicit(&drm->flags, drm->supported, memory_order_relaxed);
    return S_OK;
}

/* ---- Reporting ---- */

void d12__drm_set_correlation(d12_drm *drm, struct d12_correlation *correlation,
                              char *(*prefix)(void *owner, int kind, uint32_t ordinal))
{
    drm->correlation = correlation;
    drm->prefix = prefix;
}

/* d12__correlation_resolve's `format`: build the prefix while the list is certainly alive. */
typedef struct prefix_request {
    d12_drm *drm;
    char *prefix;
} prefix_request;

static void format_prefix(void *context, void *owner, d12_work_kind kind, uint32_t ordinal)
{
    prefix_request *request = context;
    request->prefix = request->drm->prefix(owner, (int)kind, ordinal);
}

/* Command list state correlation: "When a message carries an index the runtime can still resolve, the runtime
 * prefixes the driver's description with the identity of the command list that recorded the work, and the kind
 * and ordinal of that work within the command list ... Messages whose index is 0xFFFFFFFF, unknown, or no longer
 * resolvable are surfaced unmodified." The index is resolved only when the message will be used (the InfoQueue's
 * filters say so), and resolved now: later it may no longer be. */
static bool surface(d12_drm *drm, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                    const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    D3D12_MESSAGE_ID id = D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
    prefix_request request = {drm, NULL};
    if (drm->correlation && message->CommandListStateIndex != D12_STATE_INDEX_NONE &&
        d12__info_queue_wants_driver(drm->info_queue, category, severity, id, drm->vendor_id,
                                     message->VendorMessageId))
        d12__correlation_resolve(drm->correlation, message->CommandListStateIndex, format_prefix, &request);
    char *prefix = request.prefix;
    if (!prefix) {
        /* "forwards pMessage->pDescription verbatim": the InfoQueue copies it and never splits it on '\n'. */
        return d12__info_queue_report_driver_text(drm->info_queue, category, severity, id, message->pDescription,
                                                  drm->vendor_id, message->VendorMessageId);
    }
    size_t prefix_length = strlen(prefix), length = strlen(message->pDescription);
    char *text = malloc(prefix_length + length + 1);
    if (text) {
        memcpy(text, prefix, prefix_length);
        memcpy(text + prefix_length, message->pDescription, length + 1);
    }
    /* Out of memory for the annotated text: the message still arrives, unannotated. */
    bool whole = d12__info_queue_report_driver_text(drm->info_queue, category, severity, id,
                                                    text ? text : message->pDescription, drm->vendor_id,
                                                    message->VendorMessageId);
    free(text);
    free(prefix);
    return whole;
}

HRESULT d12__drm_report(d12_drm *drm, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    HRESULT hr = d12__ddi_check_report_message(d12__drm_enabled(drm), message, NULL);
    if (FAILED(hr))
        return hr; /* "A dropped message produces no InfoQueue entry and no registered-callback invocation." */
    D3D12_MESSAGE_SEVERITY severity;
    D3D12_MESSAGE_CATEGORY category;
    d12__ddi_map_message_severity_0126(message->Severity, &severity); /* in range: validated above */
    d12__ddi_map_message_category_0126(message->Category, &category);
    /* v2: "for a version-1 driver, NONE makes the runtime drop that driver's messages" (S_OK: the application's
     * choice, not a driver defect, as for a filtered message). A version-2 driver filters its own categories. */
    if (drm->version < D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 &&
        atomic_load_explicit(&drm->flags, memory_order_relaxed) == 0)
        return S_OK;
    /* Out of memory for the InfoQueue entry: the message is neither stored nor delivered, and the driver is told
     * (reliability.fault.report.alloc; docs/reliability.md "Failure injection"). */
    return surface(drm, category, severity, message) ? S_OK : E_OUTOFMEMORY;
}

/* ---- Object identity ---- */

/* "hRTObject.Type is not a recognized D3D12DDI_HANDLETYPE" is E_INVALIDARG like an unknown handle; the table
 * only holds recognized types, so a lookup answers both. */
HRESULT d12__drm_query_identity(d12_drm *drm, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size, CHAR *identity)
{
    if (!size || !object.Handle)
        return E_INVALIDARG; /* "... and writes no output" */
    char *text;
    HRESULT hr = d12__objtable_identity(drm->objects, object.Handle, object.Type, &text);
    if (FAILED(hr))
        return hr;
    SIZE_T needed = strlen(text) + 1; /* "sizes in bytes (including the null terminator)" */
    if (identity && *size < needed) {
        hr = DXGI_ERROR_MORE_DATA;
    } else if (identity) {
        memcpy(identity, text, needed);
    }
    *size = needed;
    free(text);
    return hr;
}

/* ---- Version 2: categories and GPU VA naming (docs/driver-reported-messages-v2.md) ---- */

UINT d12__drm_supported_flags(d12_drm *drm)
{
    return d12__drm_enabled(drm) ? drm->supported : 0;
}

UINT d12__drm_flags(d12_drm *drm)
{
    return d12__drm_enabled(drm) ? atomic_load_explicit(&drm->flags, memory_order_relaxed) : 0;
}

/* Stores and tells a version-2 driver; no runtime lock is held across the call (there is none here). */
static void apply_flags(d12_drm *drm, UINT flags)
{
    atomic_store_explicit(&drm->flags, flags, memory_order_relaxed);
    if (drm->version >= D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 && drm->device)
        drm->funcs1.pfnSetDriverReportedMessageFlags(d12__driver_device_handle(drm->device), flags);
}

HRESULT d12__drm_set_flags(d12_drm *drm, UINT flags)
{
    /* "flags outside SupportedFlags: E_INVALIDARG" (SupportedFlags is 0 where the feature is not enabled) */
    if (flags & ~d12__drm_supported_flags(drm))
        return E_INVALIDARG;
    if (!d12__drm_enabled(drm))
        return S_OK; /* NONE on a device without the feature: nothing to change */
    apply_flags(drm, flags);
    return S_OK;
}

void d12__drm_force_flags(d12_drm *drm, UINT flags)
{
    if (!d12__drm_enabled(drm))
        return;
    flags &= drm->supported;
    if (flags != atomic_load_explicit(&drm->flags, memory_order_relaxed))
        apply_flags(drm, flags);
}

void d12__drm_set_va_namer(d12_drm *drm, HRESULT (*name_va)(void *owner, UINT64 va, char **text), void *owner)
{
    drm->name_va = name_va;
    drm->va_owner = owner;
}

/* pfnQueryGpuVaIdentityCb: "the same two-call UTF-8 contract and error rules as pfnQueryObjectIdentityCb" — a NULL
 * size is E_INVALIDARG; an address no allocation ever held DXGI_ERROR_NOT_FOUND (the namer's); version 2 only. */
static HRESULT hook_query_va(void *context, UINT64 va, SIZE_T *size, CHAR *identity)
{
    d12_drm *drm = context;
    if (!size || !d12__drm_enabled(drm) || drm->version < D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 ||
        !drm->name_va)
        return E_INVALIDARG;
    char *text;
    HRESULT hr = drm->name_va(drm->va_owner, va, &text);
    if (FAILED(hr))
        return hr;
    SIZE_T needed = strlen(text) + 1;
    if (identity && *size < needed)
        hr = DXGI_ERROR_MORE_DATA;
    else if (identity)
        memcpy(identity, text, needed);
    *size = needed;
    free(text);
    return hr;
}
