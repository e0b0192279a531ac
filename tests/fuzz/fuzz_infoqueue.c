/* Fuzz target: sequences of InfoQueue calls (runtime/infoqueue.c) decoded from the input: reports with any
 * category, severity and ID (valid or not), GetMessage with NULL, short, exact and large buffers, storage and
 * retrieval filters pushed, popped, added to, cleared and read back into short and exact buffers, count limits
 * (0, small, unlimited), clears, break-on settings and callbacks that re-enter the queue (GetMessage, AddMessage,
 * Unregister of themselves). After every call it checks the promises of docs/infoqueue.md: the store never exceeds
 * the limit, the retrievable messages never exceed the stored ones, every retrievable index answers and the next
 * one does not, a copied message is laid out as documented, and the counters never go down. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "fuzz_input.h"
#include "infoqueue.h"

#define NAME "fuzz_infoqueue"
#define MAX_COOKIES 8

typedef struct fuzz_state {
    d12_info_queue *queue;
    DWORD cookies[MAX_COOKIES];
    unsigned cookie_count;
    UINT64 allowed, denied, discarded;
    unsigned callback_calls;
} fuzz_state;

static _Thread_local int callback_depth;

/* A callback that re-enters the queue: reads the newest message, sometimes reports one of its own. */
static void reentrant_callback(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                               LPCSTR description, void *context)
{
    fuzz_state *s = context;
    FUZZ_CHECK(NAME, description != NULL);
    (void)strlen(description); /* must be a string */
    s->callback_calls++;
    if (callback_depth++ == 0) {
        UINT64 n = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(s->queue);
        SIZE_T length = 0;
        if (n)
            FUZZ_CHECK(NAME, d12_info_queue_GetMessage(s->queue, n - 1, NULL, &length) == S_FALSE);
        if ((id & 3) == 0)
            d12_info_queue_AddMessage(s->queue, category, severity, (D3D12_MESSAGE_ID)(id + 1), "from a callback");
    }
    callback_depth--;
}

static void list_items(fuzz_input *in, UINT *count, UINT *items, unsigned max, UINT modulo)
{
    *count = fuzz_u8(in) % (max + 1);
    for (UINT i = 0; i < *count; i++)
        items[i] = modulo ? fuzz_u8(in) % modulo : fuzz_u32(in) % 64;
}

/* A filter whose lists hold categories (0..13: 12 and 13 are invalid), severities (0..5: 5 invalid), IDs. */
typedef struct fuzz_filter {
    D3D12_INFO_QUEUE_FILTER filter;
    UINT lists[2][3][4];
} fuzz_filter;

static D3D12_INFO_QUEUE_FILTER *decode_filter(fuzz_input *in, fuzz_filter *f)
{
    memset(f, 0, sizeof *f);
    D3D12_INFO_QUEUE_FILTER_DESC *sides[2] = {&f->filter.AllowList, &f->filter.DenyList};
    for (int s = 0; s < 2; s++) {
        list_items(in, &sides[s]->NumCategories, f->lists[s][0], 4, 14);
        list_items(in, &sides[s]->NumSeverities, f->lists[s][1], 4, 6);
        list_items(in, &sides[s]->NumIDs, f->lists[s][2], 4, 0);
        sides[s]->pCategoryList = (D3D12_MESSAGE_CATEGORY *)f->lists[s][0];
        sides[s]->pSeverityList = (D3D12_MESSAGE_SEVERITY *)f->lists[s][1];
        sides[s]->pIDList = (D3D12_MESSAGE_ID *)f->lists[s][2];
    }
    return &f->filter;
}

/* GetStorageFilter / GetRetrievalFilter with no buffer, a short one and the size asked for. */
static void read_filter(fuzz_input *in, fuzz_state *s, bool retrieval)
{
    HRESULT (*get)(d12_info_queue *, D3D12_INFO_QUEUE_FILTER *, SIZE_T *) =
        retrieval ? d12_info_queue_GetRetrievalFilter : d12_info_queue_GetStorageFilter;
    SIZE_T length = 0;
    FUZZ_CHECK(NAME, get(s->queue, NULL, &length) == S_FALSE && length >= sizeof(D3D12_INFO_QUEUE_FILTER));
    SIZE_T asked = fuzz_u8(in) % 2 ? length : length - 1;
    D3D12_INFO_QUEUE_FILTER *out = malloc(asked);
    SIZE_T given = asked;
    HRESULT hr = get(s->queue, out, &given);
    FUZZ_CHECK(NAME, asked == length ? hr == S_OK : hr == E_INVALIDARG);
    FUZZ_CHECK(NAME, given == length);
    free(out);
}

static void get_message(fuzz_input *in, fuzz_state *s)
{
    UINT64 count = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(s->queue);
    UINT64 index = fuzz_u8(in) % (count + 2);
    SIZE_T length = 0;
    HRESULT hr = d12_info_queue_GetMessage(s->queue, index, NULL, &length);
    if (index >= count) {
        FUZZ_CHECK(NAME, hr == E_INVALIDARG);
        return;
    }
    FUZZ_CHECK(NAME, hr == S_FALSE && length > sizeof(D3D12_MESSAGE));
    uint8_t mode = fuzz_u8(in) % 3; /* short, exact, large */
    SIZE_T size = mode == 0 ? length - 1 : mode == 1 ? length : length + 64;
    D3D12_MESSAGE *message = malloc(size);
    SIZE_T given = size;
    hr = d12_info_queue_GetMessage(s->queue, index, message, &given);
    FUZZ_CHECK(NAME, given == length);
    if (mode == 0) {
        FUZZ_CHECK(NAME, hr == E_INVALIDARG);
    } else {
        FUZZ_CHECK(NAME, hr == S_OK);
        FUZZ_CHECK(NAME, message->pDescription == (const char *)(message + 1));
        FUZZ_CHECK(NAME, message->DescriptionByteLength == strlen(message->pDescription) + 1);
        FUZZ_CHECK(NAME, sizeof(D3D12_MESSAGE) + message->DescriptionByteLength == length);
    }
    free(message);
}

static void check_invariants(fuzz_state *s)
{
    UINT64 stored = d12_info_queue_GetNumStoredMessages(s->queue);
    UINT64 limit = d12_info_queue_GetMessageCountLimit(s->queue);
    UINT64 retrievable = d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(s->queue);
    FUZZ_CHECK(NAME, stored <= limit);
    FUZZ_CHECK(NAME, retrievable <= stored);
    SIZE_T length = 0;
    FUZZ_CHECK(NAME, d12_info_queue_GetMessage(s->queue, retrievable, NULL, &length) == E_INVALIDARG);
    if (retrievable)
        FUZZ_CHECK(NAME, d12_info_queue_GetMessage(s->queue, retrievable - 1, NULL, &length) == S_FALSE);
    UINT64 allowed = d12_info_queue_GetNumMessagesAllowedByStorageFilter(s->queue);
    UINT64 denied = d12_info_queue_GetNumMessagesDeniedByStorageFilter(s->queue);
    UINT64 discarded = d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(s->queue);
    FUZZ_CHECK(NAME, allowed >= s->allowed && denied >= s->denied && discarded >= s->discarded);
    s->allowed = allowed, s->denied = denied, s->discarded = discarded;
}

static void step(fuzz_input *in, fuzz_state *s)
{
    char text[64];
    fuzz_filter f;
    uint8_t op = fuzz_u8(in) % 20;
    switch (op) {
    case 0:
    case 1: { /* the common case, twice as likely */
        D3D12_MESSAGE_CATEGORY category = (D3D12_MESSAGE_CATEGORY)(fuzz_u8(in) % 14);
        D3D12_MESSAGE_SEVERITY severity = (D3D12_MESSAGE_SEVERITY)(fuzz_u8(in) % 6);
        D3D12_MESSAGE_ID id = (D3D12_MESSAGE_ID)(fuzz_u8(in) % 16);
        fuzz_text(in, text, sizeof text - 1);
        HRESULT hr = d12_info_queue_AddMessage(s->queue, category, severity, id, fuzz_u8(in) % 16 ? text : NULL);
        FUZZ_CHECK(NAME, hr == S_OK || hr == E_INVALIDARG);
        break;
    }
    case 2:
        fuzz_text(in, text, sizeof text - 1);
        d12_info_queue_AddApplicationMessage(s->queue, (D3D12_MESSAGE_SEVERITY)(fuzz_u8(in) % 6), text);
        break;
    case 3:
    case 4:
        get_message(in, s);
        break;
    case 5: {
        static const UINT64 limits[] = {0, 1, 3, 17, 1024, UINT64_MAX};
        FUZZ_CHECK(NAME, d12_info_queue_SetMessageCountLimit(s->queue, limits[fuzz_u8(in) % 6]) == S_OK);
        break;
    }
    case 6:
        d12_info_queue_ClearStoredMessages(s->queue);
        FUZZ_CHECK(NAME, d12_info_queue_GetNumStoredMessages(s->queue) == 0);
        break;
    case 7:
        d12_info_queue_PushStorageFilter(s->queue, decode_filter(in, &f));
        break;
    case 8:
        d12_info_queue_PushRetrievalFilter(s->queue, decode_filter(in, &f));
        break;
    case 9:
        fuzz_u8(in) % 2 ? d12_info_queue_PopStorageFilter(s->queue) : d12_info_queue_PopRetrievalFilter(s->queue);
        break;
    case 10:
        d12_info_queue_AddStorageFilterEntries(s->queue, decode_filter(in, &f));
        break;
    case 11:
        d12_info_queue_AddRetrievalFilterEntries(s->queue, decode_filter(in, &f));
        break;
    case 12:
        switch (fuzz_u8(in) % 4) {
        case 0: d12_info_queue_PushEmptyStorageFilter(s->queue); break;
        case 1: d12_info_queue_PushEmptyRetrievalFilter(s->queue); break;
        case 2: d12_info_queue_PushCopyOfStorageFilter(s->queue); break;
        default: d12_info_queue_PushCopyOfRetrievalFilter(s->queue); break;
        }
        break;
    case 13:
        read_filter(in, s, fuzz_u8(in) % 2);
        break;
    case 14:
        fuzz_u8(in) % 2 ? d12_info_queue_ClearStorageFilter(s->queue) : d12_info_queue_ClearRetrievalFilter(s->queue);
        break;
    case 15:
        if (s->cookie_count < MAX_COOKIES) {
            DWORD cookie = 0;
            D3D12_MESSAGE_CALLBACK_FLAGS flags = (D3D12_MESSAGE_CALLBACK_FLAGS)(fuzz_u8(in) % 3);
            HRESULT hr = d12_info_queue_RegisterMessageCallback(s->queue, reentrant_callback, flags, s, &cookie);
            FUZZ_CHECK(NAME, flags <= 1 ? hr == S_OK && cookie != 0 : hr == E_INVALIDARG && cookie == 0);
            for (unsigned i = 0; i < s->cookie_count; i++)
                FUZZ_CHECK(NAME, s->cookies[i] != cookie || cookie == 0); /* never a live cookie */
            if (cookie)
                s->cookies[s->cookie_count++] = cookie;
        }
        break;
    case 16: {
        if (s->cookie_count == 0) {
            FUZZ_CHECK(NAME, d12_info_queue_UnregisterMessageCallback(s->queue, fuzz_u32(in)) == E_INVALIDARG);
            break;
        }
        unsigned i = fuzz_u8(in) % s->cookie_count;
        FUZZ_CHECK(NAME, d12_info_queue_UnregisterMessageCallback(s->queue, s->cookies[i]) == S_OK);
        FUZZ_CHECK(NAME, d12_info_queue_UnregisterMessageCallback(s->queue, s->cookies[i]) == E_INVALIDARG);
        s->cookies[i] = s->cookies[--s->cookie_count];
        break;
    }
    case 17: {
        BOOL enable = fuzz_u8(in) % 2;
        d12_info_queue_SetBreakOnCategory(s->queue, (D3D12_MESSAGE_CATEGORY)(fuzz_u8(in) % 14), enable);
        d12_info_queue_SetBreakOnSeverity(s->queue, (D3D12_MESSAGE_SEVERITY)(fuzz_u8(in) % 6), enable);
        d12_info_queue_SetBreakOnID(s->queue, (D3D12_MESSAGE_ID)(fuzz_u8(in) % 16), enable);
        break;
    }
    default:
        fuzz_text(in, text, sizeof text - 1);
        d12__info_queue_report_f(s->queue, D3D12_MESSAGE_CATEGORY_MISCELLANEOUS, D3D12_MESSAGE_SEVERITY_WARNING,
                                 (D3D12_MESSAGE_ID)(fuzz_u8(in) % 16), "runtime report: %s", text);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        setenv("D12RT_BREAK", "none", 1); /* break-on settings are fuzzed; a SIGTRAP would end the run */
        once = 1;
    }
    fuzz_state s = {0};
    FUZZ_CHECK(NAME, d12__info_queue_create(&s.queue) == S_OK);
    d12_info_queue_SetMuteDebugOutput(s.queue, TRUE);
    fuzz_input in = {data, size, 0};
    for (unsigned steps = 0; !fuzz_done(&in) && steps < 4096; steps++) {
        step(&in, &s);
        check_invariants(&s);
    }
    while (s.cookie_count)
        FUZZ_CHECK(NAME, d12_info_queue_UnregisterMessageCallback(s.queue, s.cookies[--s.cookie_count]) == S_OK);
    d12__info_queue_destroy(s.queue);
    return 0;
}
