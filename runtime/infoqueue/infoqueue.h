/* d12_info_queue: the message queue behind ID3D12InfoQueue and ID3D12InfoQueue1 (d3d12-semantics.md 4.2-4.6).
 *
 * One object per device. It stores messages (count limit, oldest evicted first), filters them through a
 * storage-filter stack when they arrive and a retrieval-filter stack when they are read, writes the ones that
 * pass the storage filter to stderr unless muted, breaks on chosen severities/categories/IDs and delivers
 * messages to registered callbacks. Every decision the documents leave open is in docs/infoqueue.md.
 *
 * Threading: every function may be called from any thread at any time, concurrently. The object has one
 * lock, a leaf (docs/locking.md): nothing else is taken while it is held, and neither callbacks, debug output
 * nor message formatting run under it. Callbacks run one at a time per queue, in message order; a reporting
 * thread never waits for another thread's callback (its message is queued and delivered by the thread that
 * is delivering), and a message raised inside a callback is delivered after that callback returns.
 *
 * The COM layer forwards every ID3D12InfoQueue1 method (except QueryInterface/AddRef/Release) to the
 * d12_info_queue_<Method> function of the same name, parameters and return type.
 */
#ifndef D12_INFOQUEUE_H
#define D12_INFOQUEUE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include "d12rt/d3d12_ext.h" /* v2: D3D12_MESSAGE1, D3D12_DRIVER_MESSAGE_FILTER */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct d12_info_queue d12_info_queue;

/* ---- Lifetime (runtime-internal) ---- */

/* A new queue: limit D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT, empty filter stacks, nothing muted, no
 * break-on, no callbacks. The break action is read from D12RT_BREAK now (docs/infoqueue.md, "Break").
 * Returns S_OK, E_INVALIDARG (NULL out) or E_OUTOFMEMORY (*out = NULL). */
HRESULT d12__info_queue_create(d12_info_queue **out);

/* Frees the queue. The caller guarantees no other thread uses it any more (the COM object's last Release). */
void d12__info_queue_destroy(d12_info_queue *queue);

/* ---- Reporting (runtime-internal): lazy formatting ---- */

/* Writes the message text into buf (at most size bytes, NUL included, like snprintf) and returns the text's
 * full length without the NUL. Called at most twice per report, only when the message will be stored, printed
 * or delivered, and never with the InfoQueue lock held (it may take other runtime locks). */
typedef size_t (*d12__info_queue_format_fn)(char *buf, size_t size, void *context);

/* Would a message with these properties be stored, printed or delivered to a callback right now? A hint for
 * callers that must do costly work to gather a message's arguments; reporting is lazy anyway. */
bool d12__info_queue_wants(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                           D3D12_MESSAGE_ID id);

/* Report a message whose text comes from format(buf, size, context). */
void d12__info_queue_report_fn(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                               D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, d12__info_queue_format_fn format,
                               void *context);

/* Report a message whose text is printf(format, args); args is consumed only if the text is needed. */
void d12__info_queue_report_v(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, va_list args);

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void d12__info_queue_report_f(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                              D3D12_MESSAGE_ID id, const char *format, ...);

/* Report a message whose text is given verbatim (driver-reported messages: the spec forbids touching it). False
 * when it could not be had whole for lack of memory: then it is neither stored nor delivered (counted discarded). */
bool d12__info_queue_report_text(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                 D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text);

/* ---- v2 of driver-reported messages (docs/driver-reported-messages-v2.md) ---- */

/* d12__info_queue_report_text / _wants for a driver message with its identity (vendor_id != 0): the
 * driver-message filters apply to it as described at ID3D12InfoQueue2 below. */
bool d12__info_queue_report_driver_text(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                        D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, const char *text,
                                        UINT vendor_id, UINT64 vendor_message_id);
bool d12__info_queue_wants_driver(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category,
                                  D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id, UINT vendor_id,
                                  UINT64 vendor_message_id);

/* The registry's per-application pairs (d12cfg drm-allow / drm-deny), set once at device creation: applied to every
 * driver message on top of the application's stack (a message passes both). E_OUTOFMEMORY: nothing set. */
HRESULT d12__info_queue_set_registry_driver_filter(d12_info_queue *queue, const D3D12_DRIVER_MESSAGE_FILTER *filter);

/* ID3D12InfoQueue2 (infoqueue/infoqueue2.c, infoqueue/driver_filter.c). */
HRESULT d12_info_queue_GetMessage1(d12_info_queue *queue, UINT64 MessageIndex, D3D12_MESSAGE1 *pMessage,
                                   SIZE_T *pMessageByteLength);
HRESULT d12_info_queue_PushDriverMessageFilter(d12_info_queue *queue, const D3D12_DRIVER_MESSAGE_FILTER *pFilter);
void d12_info_queue_PopDriverMessageFilter(d12_info_queue *queue);
HRESULT d12_info_queue_RegisterMessageCallback1(d12_info_queue *queue, D3D12MessageFunc1 CallbackFunc,
                                                D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext,
                                                DWORD *pCallbackCookie);
/* Depth of the driver-message filter stack (tests). */
UINT d12__info_queue_driver_filter_depth(d12_info_queue *queue);

/* Messages reported and not yet handed to every callback (a test and shutdown aid). */
size_t d12__info_queue_pending(d12_info_queue *queue);

/* ---- ID3D12InfoQueue ---- */

HRESULT d12_info_queue_SetMessageCountLimit(d12_info_queue *queue, UINT64 MessageCountLimit);
void d12_info_queue_ClearStoredMessages(d12_info_queue *queue);
HRESULT d12_info_queue_GetMessage(d12_info_queue *queue, UINT64 MessageIndex, D3D12_MESSAGE *pMessage,
                                  SIZE_T *pMessageByteLength);
UINT64 d12_info_queue_GetNumMessagesAllowedByStorageFilter(d12_info_queue *queue);
UINT64 d12_info_queue_GetNumMessagesDeniedByStorageFilter(d12_info_queue *queue);
UINT64 d12_info_queue_GetNumStoredMessages(d12_info_queue *queue);
UINT64 d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(d12_info_queue *queue);
UINT64 d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(d12_info_queue *queue);
UINT64 d12_info_queue_GetMessageCountLimit(d12_info_queue *queue);
HRESULT d12_info_queue_AddStorageFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter);
HRESULT d12_info_queue_GetStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                        SIZE_T *pFilterByteLength);
void d12_info_queue_ClearStorageFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushEmptyStorageFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushCopyOfStorageFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushStorageFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter);
void d12_info_queue_PopStorageFilter(d12_info_queue *queue);
UINT d12_info_queue_GetStorageFilterStackSize(d12_info_queue *queue);
HRESULT d12_info_queue_AddRetrievalFilterEntries(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter);
HRESULT d12_info_queue_GetRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter,
                                          SIZE_T *pFilterByteLength);
void d12_info_queue_ClearRetrievalFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushEmptyRetrievalFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushCopyOfRetrievalFilter(d12_info_queue *queue);
HRESULT d12_info_queue_PushRetrievalFilter(d12_info_queue *queue, D3D12_INFO_QUEUE_FILTER *pFilter);
void d12_info_queue_PopRetrievalFilter(d12_info_queue *queue);
UINT d12_info_queue_GetRetrievalFilterStackSize(d12_info_queue *queue);
HRESULT d12_info_queue_AddMessage(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category,
                                  D3D12_MESSAGE_SEVERITY Severity, D3D12_MESSAGE_ID ID, LPCSTR pDescription);
HRESULT d12_info_queue_AddApplicationMessage(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity,
                                             LPCSTR pDescription);
HRESULT d12_info_queue_SetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category, BOOL bEnable);
HRESULT d12_info_queue_SetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity, BOOL bEnable);
HRESULT d12_info_queue_SetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID, BOOL bEnable);
BOOL d12_info_queue_GetBreakOnCategory(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY Category);
BOOL d12_info_queue_GetBreakOnSeverity(d12_info_queue *queue, D3D12_MESSAGE_SEVERITY Severity);
BOOL d12_info_queue_GetBreakOnID(d12_info_queue *queue, D3D12_MESSAGE_ID ID);
void d12_info_queue_SetMuteDebugOutput(d12_info_queue *queue, BOOL bMute);
BOOL d12_info_queue_GetMuteDebugOutput(d12_info_queue *queue);

/* ---- ID3D12InfoQueue1 ---- */

HRESULT d12_info_queue_RegisterMessageCallback(d12_info_queue *queue, D3D12MessageFunc CallbackFunc,
                                               D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext,
                                               DWORD *pCallbackCookie);
HRESULT d12_info_queue_UnregisterMessageCallback(d12_info_queue *queue, DWORD CallbackCookie);

#ifdef __cplusplus
}
#endif

/* Test hooks. Stored messages examined by GetMessage / GetNumStoredMessagesAllowedByRetrievalFilter so far (the
 * retrieval cost, counted); and the next cookie RegisterMessageCallback tries (to reach cookie reuse without 2^32
 * registrations). */
uint64_t d12__info_queue_test_visits(d12_info_queue *queue);
void d12__info_queue_test_set_next_cookie(d12_info_queue *queue, DWORD cookie);

/* Whether the calling thread is inside an application's message callback (ID3D12InfoQueue1::
 * RegisterMessageCallback): the flush engine makes no flush from there (docs/locking.md). */
bool d12__info_queue_in_callback(void);

#endif
