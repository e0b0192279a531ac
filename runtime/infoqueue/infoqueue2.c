/* v2 of driver-reported messages: ID3D12InfoQueue2's GetMessage1 and RegisterMessageCallback1
 * (docs/driver-reported-messages-v2.md "API"); the filter stack is driver_filter.c. A stored message's identity is
 * kept in its node (internal.h, iq_stored.who), set where the message is stored (report.c). */
#include "internal.h"

#include <string.h>

/* "GetMessage1 follows GetMessage's two-call pattern and index rules": a NULL pMessage gets the size (S_FALSE), a
 * short buffer E_INVALIDARG with the size, an index past the retrievable messages E_INVALIDARG; the text follows
 * the struct in the caller's buffer, as with GetMessage. */
HRESULT d12_info_queue_GetMessage1(d12_info_queue *queue, UINT64 MessageIndex, D3D12_MESSAGE1 *pMessage,
                                   SIZE_T *pMessageByteLength)
{
    if (!pMessageByteLength)
        return E_INVALIDARG;
    HRESULT hr = S_OK;
    iq_lock(queue);
    const iq_stored *node = d12__iq_find_retrievable(queue, MessageIndex);
    SIZE_T needed = node ? sizeof(D3D12_MESSAGE1) + node->message.DescriptionByteLength : 0;
    if (!node) {
        hr = E_INVALIDARG;
    } else if (!pMessage) {
        hr = S_FALSE;
    } else if (*pMessageByteLength < needed) {
        hr = E_INVALIDARG;
    } else {
        char *text = (char *)(pMessage + 1);
        memcpy(text, node->text, node->message.DescriptionByteLength);
        *pMessage = (D3D12_MESSAGE1){node->message.Category, node->message.Severity, node->message.ID, text,
                                     node->message.DescriptionByteLength, node->who.vendor_id,
                                     node->who.vendor_message_id};
    }
    if (node)
        *pMessageByteLength = needed; /* also on a too-small buffer, so the caller can retry */
    iq_unlock(queue);
    return hr;
}

/* The same registration, cookies and rules as RegisterMessageCallback; UnregisterMessageCallback ends it. */
HRESULT d12_info_queue_RegisterMessageCallback1(d12_info_queue *queue, D3D12MessageFunc1 CallbackFunc,
                                                D3D12_MESSAGE_CALLBACK_FLAGS CallbackFilterFlags, void *pContext,
                                                DWORD *pCallbackCookie)
{
    if (!CallbackFunc) {
        if (pCallbackCookie)
            *pCallbackCookie = 0;
        return E_INVALIDARG;
    }
    return d12__iq_register(queue, NULL, CallbackFunc, CallbackFilterFlags, pContext, pCallbackCookie);
}
