/* The driver-reported-messages channel (drm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlation.h"
#include "d12_ddi_validation.h"
#include "d12_messages.h"
#include "drm.h"

/* The newest feature version this runtime understands. */
#define D12_DRM_HIGHEST_VERSION D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0

static HRESULT hook_report(void *context, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    return d12__drm_report(context, message);
}

static HRESULT hook_query_identity(void *context, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size, CHAR *identity)
{
    return d12__drm_query_identity(context, object, size, identity);
}

void d12__drm_init(d12_drm *drm, d12_info_queue *info_queue, d12_objtable *objects)
{
    memset(drm, 0, sizeof *drm);
    drm->info_queue = info_queue;
    drm->objects = objects;
    drm->hooks.report = hook_report;
    drm->hooks.query_identity = hook_query_identity;
    drm->hooks.context = drm;
    atomic_init(&drm->enabled, false);
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
    return NULL;
}

static HRESULT turn_off(d12_drm *drm)
{
    atomic_store_explicit(&drm->enabled, false, memory_order_release);
    drm->version = D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE;
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
        d12__info_queue_wants(drm->info_queue, category, severity, id))
        d12__correlation_resolve(drm->correlation, message->CommandListStateIndex, format_prefix, &request);
    char *prefix = request.prefix;
    if (!prefix) {
        /* "forwards pMessage->pDescription verbatim": the InfoQueue copies it and never splits it on '\n'. */
        return d12__info_queue_report_text(drm->info_queue, category, severity, id, message->pDescription);
    }
    size_t prefix_length = strlen(prefix), length = strlen(message->pDescription);
    char *text = malloc(prefix_length + length + 1);
    if (text) {
        memcpy(text, prefix, prefix_length);
        memcpy(text + prefix_length, message->pDescription, length + 1);
    }
    /* Out of memory for the annotated text: the message still arrives, unannotated. */
    bool whole = d12__info_queue_report_text(drm->info_queue, category, severity, id,
                                             text ? text : message->pDescription);
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
