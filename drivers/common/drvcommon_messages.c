/* The driver-reported messages plumbing both drivers share (drvcommon_messages.h says what it owns and why). */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drvcommon_messages.h"
#include "drvcommon_rules.h"

/* One message found on a timeline and held for the next flush. */
typedef struct pending_message {
    struct pending_message *next;
    UINT64 vendor_message_id;
    D3D12DDI_MESSAGE_SEVERITY_0126 severity;
    D3D12DDI_MESSAGE_CATEGORY_0126 category;
    UINT32 state_index;
    char *text; /* malloc'ed */
} pending_message;

/* Reported with the lock released (the spec forbids calling pfnReportMessageCb under a driver lock). */
struct d12__drv_pending {
    pthread_mutex_t lock;
    pending_message *head, **tail; /* guarded by lock */
};

HRESULT d12__drv_report_initialization(const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                                       D3D12DDI_HRTDEVICE rt_device)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message = {
        .VendorMessageId = D12_REFDRV_DRM_INIT_ID,
        .Severity = D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE,
        .Category = D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION,
        .pDescription = D12_REFDRV_DRM_INIT_TEXT,
        .CommandListStateIndex = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126, /* no command list in scope */
    };
    return callbacks->pfnReportMessageCb(rt_device, &message);
}

static void free_messages(pending_message *message)
{
    for (pending_message *next; message; message = next) {
        next = message->next;
        free(message->text);
        free(message);
    }
}

d12__drv_pending *d12__drv_pending_new(void)
{
    d12__drv_pending *pending = calloc(1, sizeof *pending);
    if (!pending)
        return NULL;
    pending->tail = &pending->head;
    if (pthread_mutex_init(&pending->lock, NULL) != 0) {
        free(pending);
        return NULL;
    }
    return pending;
}

void d12__drv_pending_free(d12__drv_pending *pending)
{
    if (!pending)
        return;
    free_messages(pending->head);
    pthread_mutex_destroy(&pending->lock);
    free(pending);
}

void d12__drv_pending_add(d12__drv_pending *pending, UINT64 vendor_message_id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                          D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *text)
{
    pending_message *message = calloc(1, sizeof *message);
    if (!message || !(message->text = strdup(text))) {
        free(message);
        return;
    }
    message->vendor_message_id = vendor_message_id;
    message->severity = severity;
    message->category = category;
    message->state_index = state_index;
    pthread_mutex_lock(&pending->lock);
    *pending->tail = message;
    pending->tail = &message->next;
    pthread_mutex_unlock(&pending->lock);
}

void d12__drv_pending_flush(d12__drv_pending *pending, const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks,
                            D3D12DDI_HRTDEVICE rt_device)
{
    pthread_mutex_lock(&pending->lock);
    pending_message *messages = pending->head;
    pending->head = NULL;
    pending->tail = &pending->head;
    pthread_mutex_unlock(&pending->lock);
    for (pending_message *m = messages; m; m = m->next) {
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 message = {m->vendor_message_id, m->severity, m->category, m->text,
                                                         m->state_index};
        callbacks->pfnReportMessageCb(rt_device, &message);
    }
    free_messages(messages);
}

size_t d12__drv_pending_count(d12__drv_pending *pending)
{
    size_t count = 0;
    pthread_mutex_lock(&pending->lock);
    for (const pending_message *m = pending->head; m; m = m->next)
        count++;
    pthread_mutex_unlock(&pending->lock);
    return count;
}

char *d12__drv_va_name(const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *callbacks, D3D12DDI_HRTDEVICE rt_device,
                       UINT32 drm_version, UINT64 va)
{
    PFND3D12DDI_QUERYGPUVAIDENTITY_CB_1 query = callbacks->pfnQueryGpuVaIdentityCb;
    if (drm_version < D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 || !query)
        return NULL;
    SIZE_T size = 0; /* the first call asks for the size, the second fills the name */
    if (FAILED(query(rt_device, va, &size, NULL)) || !size)
        return NULL;
    char *name = malloc(size);
    if (name && SUCCEEDED(query(rt_device, va, &size, name)))
        return name;
    free(name); /* renamed between the calls (longer now), or no memory: the message goes without the name */
    return NULL;
}
