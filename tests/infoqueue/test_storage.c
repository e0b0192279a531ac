/* InfoQueue storage, counters, GetMessage, filter stacks, allow/deny, AddMessage, break, debug output, lazy
 * formatting and the message catalogue (d3d12-semantics.md 4.2-4.5; decisions in docs/infoqueue.md). */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "d12_messages.h"
#include "iq_test.h"

#define GUARD 0xA5

static void add_n(d12_info_queue *queue, int n, D3D12_MESSAGE_SEVERITY severity)
{
    char text[32];
    for (int i = 0; i < n; i++) {
        snprintf(text, sizeof(text), "m%d", i);
        iqt_add(queue, CAT_MISC, severity, 100, text);
    }
}

static bool all_bytes(const unsigned char *p, size_t n, unsigned char value)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != value)
            return false;
    return true;
}

void iqt_defaults(void)
{
    d12_info_queue *q = iqt_create();
    CHECK_EQ_INT(d12_info_queue_GetMessageCountLimit(q), D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT);
    CHECK_EQ_INT(d12_info_queue_GetMessageCountLimit(q), 1024);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetMuteDebugOutput(q), FALSE);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnSeverity(q, SEV_ERROR), FALSE);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnCategory(q, CAT_MISC), FALSE);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnID(q, D3D12_MESSAGE_ID_STRING_FROM_APPLICATION), FALSE);
    CHECK_EQ_INT(d12__info_queue_create(NULL), E_INVALIDARG);
    d12__info_queue_destroy(q);
    d12__info_queue_destroy(NULL); /* allowed, does nothing */
}

void iqt_counters(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    D3D12_MESSAGE_SEVERITY deny[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER storage = {.DenyList = {.NumSeverities = 1, .pSeverityList = deny}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &storage), S_OK);
    D3D12_MESSAGE_SEVERITY allow[] = {SEV_ERROR};
    D3D12_INFO_QUEUE_FILTER retrieval = {.AllowList = {.NumSeverities = 1, .pSeverityList = allow}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &retrieval), S_OK);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 4), S_OK);
    add_n(q, 3, SEV_ERROR);   /* allowed, stored, retrievable */
    add_n(q, 2, SEV_WARNING); /* allowed, stored, not retrievable; pushes the first error out */
    add_n(q, 5, SEV_INFO);    /* denied */
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 5);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 5);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 4);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 1);
    d12__info_queue_destroy(q);
}

void iqt_limit_eviction(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 3), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetMessageCountLimit(q), 3);
    add_n(q, 5, SEV_ERROR);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 3);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 5); /* exceeds the limit */
    CHECK_EQ_STR(iqt_text(q, 0), "m2"); /* oldest first; m0 and m1 were pushed out */
    CHECK_EQ_STR(iqt_text(q, 1), "m3");
    CHECK_EQ_STR(iqt_text(q, 2), "m4");
    d12__info_queue_destroy(q);

    /* The default limit: 1024 kept of 1030, the first six gone. */
    q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    add_n(q, 1030, SEV_WARNING);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1024);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 6);
    CHECK_EQ_STR(iqt_text(q, 0), "m6");
    CHECK_EQ_STR(iqt_text(q, 1023), "m1029");
    d12__info_queue_destroy(q);
}

void iqt_limit_unlimited(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, UINT64_MAX), S_OK);
    CHECK(d12_info_queue_GetMessageCountLimit(q) == UINT64_MAX);
    add_n(q, 3000, SEV_WARNING);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 3000);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 0);
    CHECK_EQ_STR(iqt_text(q, 0), "m0");
    CHECK_EQ_STR(iqt_text(q, 2999), "m2999");
    d12__info_queue_destroy(q);
}

void iqt_limit_lowered(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    add_n(q, 5, SEV_WARNING);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 2), S_OK); /* evicts the oldest three now */
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 3);
    CHECK_EQ_STR(iqt_text(q, 0), "m3");
    CHECK_EQ_STR(iqt_text(q, 1), "m4");
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 10), S_OK); /* raising it brings nothing back */
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    d12__info_queue_destroy(q);
}

void iqt_limit_zero(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 0), S_OK);
    add_n(q, 4, SEV_WARNING);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 4);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 4);
    CHECK(iqt_text(q, 0) == NULL);
    d12__info_queue_destroy(q);
}

void iqt_clear_keeps_counters(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 2), S_OK);
    add_n(q, 3, SEV_WARNING);
    d12_info_queue_ClearStoredMessages(q);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 3);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 1);
    CHECK_EQ_INT(d12_info_queue_GetMessageCountLimit(q), 2);
    iqt_add(q, CAT_MISC, SEV_ERROR, 7, "after clear");
    CHECK_EQ_STR(iqt_text(q, 0), "after clear");
    d12__info_queue_destroy(q);
}

void iqt_getmessage_layout(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_add(q, CAT_EXEC, SEV_WARNING, 4242, "hello, queue");
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, NULL, &length), S_FALSE);
    SIZE_T expected = sizeof(D3D12_MESSAGE) + sizeof("hello, queue"); /* the NUL is included */
    CHECK_EQ_INT(length, expected);
    unsigned char *buffer = malloc(expected + 64);
    memset(buffer, GUARD, expected + 64);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, (D3D12_MESSAGE *)buffer, &length), S_OK);
    CHECK_EQ_INT(length, expected);
    D3D12_MESSAGE *m = (D3D12_MESSAGE *)buffer;
    CHECK_EQ_INT(m->Category, CAT_EXEC);
    CHECK_EQ_INT(m->Severity, SEV_WARNING);
    CHECK_EQ_INT(m->ID, 4242);
    CHECK_EQ_INT(m->DescriptionByteLength, sizeof("hello, queue"));
    CHECK(m->pDescription == (const char *)(m + 1)); /* right after the struct, inside the buffer */
    CHECK_EQ_STR(m->pDescription, "hello, queue");
    CHECK(all_bytes(buffer + expected, 64, GUARD)); /* nothing written past the size it asked for */
    /* Not removed by reading. */
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1);
    free(buffer);
    d12__info_queue_destroy(q);
}

void iqt_getmessage_errors(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "abc");
    SIZE_T needed = sizeof(D3D12_MESSAGE) + 4;
    /* NULL length pointer. */
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, NULL, NULL), E_INVALIDARG);
    /* Out of range: E_INVALIDARG, length untouched; in range: S_FALSE. */
    SIZE_T length = 77;
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 1, NULL, &length), E_INVALIDARG);
    CHECK_EQ_INT(length, 77);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, UINT64_MAX, NULL, &length), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, NULL, &length), S_FALSE);
    CHECK_EQ_INT(length, needed);
    /* Too small by one byte: E_INVALIDARG, buffer untouched, length set to what is needed. */
    unsigned char buffer[256];
    memset(buffer, GUARD, sizeof(buffer));
    length = needed - 1;
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, (D3D12_MESSAGE *)buffer, &length), E_INVALIDARG);
    CHECK(all_bytes(buffer, sizeof(buffer), GUARD));
    CHECK_EQ_INT(length, needed);
    /* Exactly the size: S_OK. */
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, (D3D12_MESSAGE *)buffer, &length), S_OK);
    CHECK(all_bytes(buffer + needed, sizeof(buffer) - needed, GUARD));
    d12__info_queue_destroy(q);
}

void iqt_getmessage_retrieval_index(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "e0");
    iqt_add(q, CAT_MISC, SEV_WARNING, 2, "w0");
    iqt_add(q, CAT_MISC, SEV_ERROR, 3, "e1");
    D3D12_MESSAGE_SEVERITY allow[] = {SEV_ERROR};
    D3D12_INFO_QUEUE_FILTER f = {.AllowList = {.NumSeverities = 1, .pSeverityList = allow}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &f), S_OK);
    CHECK_EQ_STR(iqt_text(q, 0), "e0");
    CHECK_EQ_STR(iqt_text(q, 1), "e1"); /* the index counts only retrievable messages */
    CHECK(iqt_text(q, 2) == NULL);
    d12_info_queue_PopRetrievalFilter(q);
    CHECK_EQ_STR(iqt_text(q, 1), "w0");
    d12__info_queue_destroy(q);
}

void iqt_stack_operations(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_PopStorageFilter(q);   /* empty stack: no-op */
    d12_info_queue_ClearStorageFilter(q); /* empty stack: no-op */
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 0);
    CHECK_EQ_INT(d12_info_queue_PushEmptyStorageFilter(q), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 1);
    CHECK_EQ_INT(d12_info_queue_PushCopyOfStorageFilter(q), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 2);
    D3D12_MESSAGE_ID ids[] = {(D3D12_MESSAGE_ID)5};
    D3D12_INFO_QUEUE_FILTER f = {.DenyList = {.NumIDs = 1, .pIDList = ids}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &f), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 3);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 0); /* the stacks are separate */
    /* Clear empties the top but keeps it on the stack. */
    d12_info_queue_ClearStorageFilter(q);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 3);
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, NULL, &length), S_FALSE);
    CHECK_EQ_INT(length, sizeof(D3D12_INFO_QUEUE_FILTER));
    for (int i = 0; i < 3; i++)
        d12_info_queue_PopStorageFilter(q);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 0);
    /* The retrieval stack mirrors it. */
    CHECK_EQ_INT(d12_info_queue_PushEmptyRetrievalFilter(q), S_OK);
    CHECK_EQ_INT(d12_info_queue_PushCopyOfRetrievalFilter(q), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 2);
    d12_info_queue_ClearRetrievalFilter(q);
    d12_info_queue_PopRetrievalFilter(q);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 1);
    d12__info_queue_destroy(q);
}

void iqt_stack_auto_push(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    D3D12_MESSAGE_SEVERITY deny[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER f = {.DenyList = {.NumSeverities = 1, .pSeverityList = deny}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &f), S_OK); /* empty stack: pushes one first */
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 1);
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &f), S_OK); /* adds to the top, no new push */
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 1);
    iqt_add(q, CAT_MISC, SEV_INFO, 1, "denied");
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 1);
    CHECK_EQ_INT(d12_info_queue_AddRetrievalFilterEntries(q, &f), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 1);
    d12__info_queue_destroy(q);
}

void iqt_filter_get_layout(void)
{
    d12_info_queue *q = iqt_create();
    D3D12_MESSAGE_CATEGORY cats[] = {CAT_MISC, CAT_EXEC};
    D3D12_MESSAGE_SEVERITY sevs[] = {SEV_ERROR};
    D3D12_MESSAGE_ID ids[] = {(D3D12_MESSAGE_ID)7, (D3D12_MESSAGE_ID)8, (D3D12_MESSAGE_ID)0x10000};
    D3D12_MESSAGE_SEVERITY deny_sevs[] = {SEV_INFO, D3D12_MESSAGE_SEVERITY_MESSAGE};
    D3D12_INFO_QUEUE_FILTER f = {
        .AllowList = {.NumCategories = 2, .pCategoryList = cats, .NumSeverities = 1, .pSeverityList = sevs},
        .DenyList = {.NumSeverities = 2, .pSeverityList = deny_sevs, .NumIDs = 3, .pIDList = ids}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &f), S_OK);
    /* Entries added later go to the same top filter, after the first ones. */
    D3D12_MESSAGE_ID more[] = {(D3D12_MESSAGE_ID)9};
    D3D12_INFO_QUEUE_FILTER g = {.DenyList = {.NumIDs = 1, .pIDList = more}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &g), S_OK);
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, NULL, &length), S_FALSE);
    SIZE_T expected = sizeof(D3D12_INFO_QUEUE_FILTER) + (2 + 1 + 2 + 4) * sizeof(UINT);
    CHECK_EQ_INT(length, expected);
    unsigned char *buffer = malloc(expected + 32);
    memset(buffer, GUARD, expected + 32);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, (D3D12_INFO_QUEUE_FILTER *)buffer, &length), S_OK);
    CHECK(all_bytes(buffer + expected, 32, GUARD));
    D3D12_INFO_QUEUE_FILTER *out = (D3D12_INFO_QUEUE_FILTER *)buffer;
    const unsigned char *begin = buffer + sizeof(*out), *end = buffer + expected;
#define INSIDE(p) ((const unsigned char *)(p) >= begin && (const unsigned char *)(p) < end)
    CHECK_EQ_INT(out->AllowList.NumCategories, 2);
    CHECK(INSIDE(out->AllowList.pCategoryList));
    CHECK_EQ_INT(out->AllowList.pCategoryList[1], CAT_EXEC);
    CHECK_EQ_INT(out->AllowList.NumSeverities, 1);
    CHECK(INSIDE(out->AllowList.pSeverityList));
    CHECK_EQ_INT(out->AllowList.pSeverityList[0], SEV_ERROR);
    CHECK_EQ_INT(out->AllowList.NumIDs, 0);
    CHECK(out->AllowList.pIDList == NULL);
    CHECK_EQ_INT(out->DenyList.NumCategories, 0);
    CHECK(out->DenyList.pCategoryList == NULL);
    CHECK_EQ_INT(out->DenyList.NumSeverities, 2);
    CHECK(INSIDE(out->DenyList.pSeverityList));
    CHECK_EQ_INT(out->DenyList.pSeverityList[1], D3D12_MESSAGE_SEVERITY_MESSAGE);
    CHECK_EQ_INT(out->DenyList.NumIDs, 4);
    CHECK(INSIDE(out->DenyList.pIDList));
    CHECK(INSIDE(out->DenyList.pIDList + 3));
    CHECK_EQ_INT(out->DenyList.pIDList[2], 0x10000);
    CHECK_EQ_INT(out->DenyList.pIDList[3], 9);
#undef INSIDE
    /* The copy is usable as input: pushing it gives the same filter again. */
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, out), S_OK);
    SIZE_T again = 0;
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, NULL, &again), S_FALSE);
    CHECK_EQ_INT(again, expected);
    free(buffer);
    /* An empty stack reads as one all-zero filter. */
    d12_info_queue *empty = iqt_create();
    D3D12_INFO_QUEUE_FILTER zero;
    memset(&zero, GUARD, sizeof(zero));
    length = sizeof(zero);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilter(empty, &zero, &length), S_OK);
    CHECK_EQ_INT(length, sizeof(zero));
    CHECK(zero.AllowList.NumCategories == 0 && zero.AllowList.pCategoryList == NULL && zero.DenyList.NumIDs == 0);
    d12__info_queue_destroy(empty);
    d12__info_queue_destroy(q);
}

void iqt_filter_get_errors(void)
{
    d12_info_queue *q = iqt_create();
    D3D12_MESSAGE_ID ids[] = {(D3D12_MESSAGE_ID)1, (D3D12_MESSAGE_ID)2};
    D3D12_INFO_QUEUE_FILTER f = {.AllowList = {.NumIDs = 2, .pIDList = ids}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &f), S_OK);
    SIZE_T needed = sizeof(D3D12_INFO_QUEUE_FILTER) + 2 * sizeof(UINT);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilter(q, NULL, NULL), E_INVALIDARG);
    unsigned char buffer[256];
    memset(buffer, GUARD, sizeof(buffer));
    SIZE_T length = needed - 1;
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilter(q, (D3D12_INFO_QUEUE_FILTER *)buffer, &length), E_INVALIDARG);
    CHECK(all_bytes(buffer, sizeof(buffer), GUARD));
    CHECK_EQ_INT(length, needed);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilter(q, (D3D12_INFO_QUEUE_FILTER *)buffer, &length), S_OK);
    CHECK(all_bytes(buffer + needed, sizeof(buffer) - needed, GUARD));
    d12__info_queue_destroy(q);
}

void iqt_filter_validation(void)
{
    d12_info_queue *q = iqt_create();
    D3D12_MESSAGE_CATEGORY bad_cat[] = {(D3D12_MESSAGE_CATEGORY)12};
    D3D12_MESSAGE_SEVERITY bad_sev[] = {(D3D12_MESSAGE_SEVERITY)5};
    D3D12_INFO_QUEUE_FILTER null_list = {.AllowList = {.NumIDs = 1, .pIDList = NULL}};
    D3D12_INFO_QUEUE_FILTER cat = {.DenyList = {.NumCategories = 1, .pCategoryList = bad_cat}};
    D3D12_INFO_QUEUE_FILTER sev = {.AllowList = {.NumSeverities = 1, .pSeverityList = bad_sev}};
    /* Negative: nothing pushed, not even the auto-push of AddEntries. */
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &null_list), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &cat), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &sev), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &cat), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddRetrievalFilterEntries(q, &sev), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 0);
    /* Positive: the highest category (STATE_OBJECT_DATABASE, 11) and severity (MESSAGE, 4), any ID, and a
     * zero count with a NULL list. */
    D3D12_MESSAGE_CATEGORY good_cat[] = {(D3D12_MESSAGE_CATEGORY)11};
    D3D12_MESSAGE_SEVERITY good_sev[] = {D3D12_MESSAGE_SEVERITY_MESSAGE};
    D3D12_MESSAGE_ID any_id[] = {(D3D12_MESSAGE_ID)0x7fffffff};
    D3D12_INFO_QUEUE_FILTER good = {
        .AllowList = {.NumCategories = 1, .pCategoryList = good_cat, .NumSeverities = 1, .pSeverityList = good_sev},
        .DenyList = {.NumIDs = 1, .pIDList = any_id, .NumCategories = 0, .pCategoryList = NULL}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &good), S_OK);
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &good), S_OK);
    D3D12_INFO_QUEUE_FILTER nothing = {0};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &nothing), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetRetrievalFilterStackSize(q), 1);
    d12__info_queue_destroy(q);
}

/* Stores one message and says whether it passed the storage filter. */
static bool passes(d12_info_queue *q, D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, UINT id)
{
    UINT64 before = d12_info_queue_GetNumMessagesAllowedByStorageFilter(q);
    iqt_add(q, c, s, id, "x");
    return d12_info_queue_GetNumMessagesAllowedByStorageFilter(q) == before + 1;
}

void iqt_allow_deny(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    /* Empty filter: everything passes. */
    CHECK_EQ_INT(d12_info_queue_PushEmptyStorageFilter(q), S_OK);
    CHECK(passes(q, CAT_MISC, SEV_INFO, 1));
    /* Allow list on one dimension: only those. */
    D3D12_MESSAGE_SEVERITY errors[] = {SEV_ERROR, D3D12_MESSAGE_SEVERITY_CORRUPTION};
    D3D12_INFO_QUEUE_FILTER allow = {.AllowList = {.NumSeverities = 2, .pSeverityList = errors}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &allow), S_OK);
    CHECK(passes(q, CAT_MISC, SEV_ERROR, 1));
    CHECK(passes(q, CAT_EXEC, D3D12_MESSAGE_SEVERITY_CORRUPTION, 2));
    CHECK(!passes(q, CAT_MISC, SEV_WARNING, 1));
    /* Allow lists on two dimensions: both must match. */
    D3D12_MESSAGE_CATEGORY exec[] = {CAT_EXEC};
    D3D12_INFO_QUEUE_FILTER more = {.AllowList = {.NumCategories = 1, .pCategoryList = exec}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &more), S_OK);
    CHECK(passes(q, CAT_EXEC, SEV_ERROR, 1));
    CHECK(!passes(q, CAT_MISC, SEV_ERROR, 1));
    CHECK(!passes(q, CAT_EXEC, SEV_WARNING, 1));
    /* Deny wins over allow: ID 13 is denied although its category and severity are allowed. */
    D3D12_MESSAGE_ID thirteen[] = {(D3D12_MESSAGE_ID)13};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumIDs = 1, .pIDList = thirteen}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &deny), S_OK);
    CHECK(!passes(q, CAT_EXEC, SEV_ERROR, 13));
    CHECK(passes(q, CAT_EXEC, SEV_ERROR, 14));
    /* The same value in allow and deny: denied. */
    D3D12_INFO_QUEUE_FILTER both = {.AllowList = {.NumSeverities = 1, .pSeverityList = &errors[0]},
                                    .DenyList = {.NumSeverities = 1, .pSeverityList = &errors[0]}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &both), S_OK);
    CHECK(!passes(q, CAT_MISC, SEV_ERROR, 1));
    CHECK(!passes(q, CAT_MISC, SEV_WARNING, 1)); /* not allowed either */
    /* Deny lists on two dimensions: matching either one denies. */
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny_two = {
        .DenyList = {.NumSeverities = 1, .pSeverityList = info, .NumIDs = 1, .pIDList = thirteen}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny_two), S_OK);
    CHECK(!passes(q, CAT_MISC, SEV_INFO, 1));
    CHECK(!passes(q, CAT_MISC, SEV_ERROR, 13));
    CHECK(passes(q, CAT_MISC, SEV_ERROR, 12));
    /* Popping restores the filter below. */
    d12_info_queue_PopStorageFilter(q);
    d12_info_queue_PopStorageFilter(q);
    CHECK(!passes(q, CAT_EXEC, SEV_ERROR, 13));
    CHECK(passes(q, CAT_EXEC, SEV_ERROR, 12));
    d12__info_queue_destroy(q);
}

void iqt_storage_vs_retrieval(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny_info = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    CHECK_EQ_INT(d12_info_queue_PushRetrievalFilter(q, &deny_info), S_OK);
    iqt_add(q, CAT_MISC, SEV_INFO, 1, "i0");
    iqt_add(q, CAT_MISC, SEV_ERROR, 2, "e0");
    /* The retrieval filter hides, it does not drop. */
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), 1);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 0);
    CHECK_EQ_STR(iqt_text(q, 0), "e0");
    d12_info_queue_ClearRetrievalFilter(q);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessagesAllowedByRetrievalFilter(q), 2);
    CHECK_EQ_STR(iqt_text(q, 0), "i0");
    /* The storage filter drops at arrival, and later changes do not bring messages back. */
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny_info), S_OK);
    iqt_add(q, CAT_MISC, SEV_INFO, 3, "i1");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 1);
    d12_info_queue_PopStorageFilter(q);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    /* A storage filter change leaves already stored messages alone. */
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny_info), S_OK);
    CHECK_EQ_STR(iqt_text(q, 0), "i0");
    d12__info_queue_destroy(q);
}

void iqt_push_copy(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny_info = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny_info), S_OK);
    CHECK_EQ_INT(d12_info_queue_PushCopyOfStorageFilter(q), S_OK);
    CHECK(!passes(q, CAT_MISC, SEV_INFO, 1)); /* the copy denies INFO too */
    D3D12_MESSAGE_SEVERITY warn[] = {SEV_WARNING};
    D3D12_INFO_QUEUE_FILTER deny_warn = {.DenyList = {.NumSeverities = 1, .pSeverityList = warn}};
    CHECK_EQ_INT(d12_info_queue_AddStorageFilterEntries(q, &deny_warn), S_OK);
    CHECK(!passes(q, CAT_MISC, SEV_WARNING, 1));
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetStorageFilter(q, NULL, &length), S_FALSE);
    CHECK_EQ_INT(length, sizeof(D3D12_INFO_QUEUE_FILTER) + 2 * sizeof(UINT));
    d12_info_queue_PopStorageFilter(q); /* the original is unchanged by additions to the copy */
    CHECK(passes(q, CAT_MISC, SEV_WARNING, 1));
    CHECK(!passes(q, CAT_MISC, SEV_INFO, 1));
    /* A copy of an empty stack is an empty filter. */
    d12_info_queue_PopStorageFilter(q);
    CHECK_EQ_INT(d12_info_queue_PushCopyOfStorageFilter(q), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetStorageFilterStackSize(q), 1);
    CHECK(passes(q, CAT_MISC, SEV_INFO, 1));
    d12__info_queue_destroy(q);
}

void iqt_add_message_validation(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, CAT_MISC, (D3D12_MESSAGE_SEVERITY)5, (D3D12_MESSAGE_ID)1, "x"),
                 E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, (D3D12_MESSAGE_CATEGORY)12, SEV_ERROR, (D3D12_MESSAGE_ID)1, "x"),
                 E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddApplicationMessage(q, SEV_ERROR, NULL), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_AddApplicationMessage(q, (D3D12_MESSAGE_SEVERITY)-1, "x"), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 0);
    /* Positive: any ID, the highest category and severity, an empty description. */
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)0x7fffffff, "any id"), S_OK);
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1506, "driver id"), S_OK);
    CHECK_EQ_INT(d12_info_queue_AddMessage(q, (D3D12_MESSAGE_CATEGORY)11, D3D12_MESSAGE_SEVERITY_MESSAGE,
                                           (D3D12_MESSAGE_ID)0, ""),
                 S_OK);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 3);
    CHECK_EQ_STR(iqt_text(q, 2), "");
    SIZE_T length = 0;
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 2, NULL, &length), S_FALSE);
    CHECK_EQ_INT(length, sizeof(D3D12_MESSAGE) + 1);
    d12__info_queue_destroy(q);
}

void iqt_application_message(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_AddApplicationMessage(q, SEV_WARNING, "from the app"), S_OK);
    union {
        D3D12_MESSAGE m;
        char bytes[256];
    } buffer;
    SIZE_T length = sizeof(buffer);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, &buffer.m, &length), S_OK);
    CHECK_EQ_INT(buffer.m.Category, D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED);
    CHECK_EQ_INT(buffer.m.Severity, SEV_WARNING);
    CHECK_EQ_INT(buffer.m.ID, D3D12_MESSAGE_ID_STRING_FROM_APPLICATION);
    CHECK_EQ_STR(buffer.m.pDescription, "from the app");
    d12__info_queue_destroy(q);
}

void iqt_break_setters(void)
{
    d12_info_queue *q = iqt_create();
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, SEV_ERROR, TRUE), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnSeverity(q, SEV_ERROR), TRUE);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnSeverity(q, SEV_WARNING), FALSE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, SEV_ERROR, FALSE), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnSeverity(q, SEV_ERROR), FALSE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnCategory(q, (D3D12_MESSAGE_CATEGORY)11, TRUE), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnCategory(q, (D3D12_MESSAGE_CATEGORY)11), TRUE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)0x12345, TRUE), S_OK);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)0x12345, TRUE), S_OK); /* twice: still one */
    CHECK_EQ_INT(d12_info_queue_GetBreakOnID(q, (D3D12_MESSAGE_ID)0x12345), TRUE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)0x12345, FALSE), S_OK);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnID(q, (D3D12_MESSAGE_ID)0x12345), FALSE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)77, FALSE), S_OK); /* never set: fine */
    /* Negative: out-of-range category and severity; the getters then say FALSE. */
    CHECK_EQ_INT(d12_info_queue_SetBreakOnCategory(q, (D3D12_MESSAGE_CATEGORY)12, TRUE), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, (D3D12_MESSAGE_SEVERITY)5, TRUE), E_INVALIDARG);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnCategory(q, (D3D12_MESSAGE_CATEGORY)12), FALSE);
    CHECK_EQ_INT(d12_info_queue_GetBreakOnSeverity(q, (D3D12_MESSAGE_SEVERITY)5), FALSE);
    /* Mute round trip. */
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_GetMuteDebugOutput(q), TRUE);
    d12_info_queue_SetMuteDebugOutput(q, FALSE);
    CHECK_EQ_INT(d12_info_queue_GetMuteDebugOutput(q), FALSE);
    d12__info_queue_destroy(q);
}

static volatile sig_atomic_t traps;

static void on_trap(int signal_number)
{
    (void)signal_number;
    traps++;
}

void iqt_break_trap(void)
{
    struct sigaction action = {.sa_handler = on_trap};
    sigemptyset(&action.sa_mask);
    sigaction(SIGTRAP, &action, NULL);
    setenv("D12RT_BREAK", "trap", 1);
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, SEV_ERROR, TRUE), S_OK);
    iqt_add(q, CAT_MISC, SEV_WARNING, 1, "no break");
    CHECK_EQ_INT(traps, 0);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "break");
    CHECK_EQ_INT(traps, 1);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2); /* stored before the break */
    /* A denied message does not break. */
    D3D12_MESSAGE_SEVERITY errors[] = {SEV_ERROR};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = errors}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny), S_OK);
    iqt_add(q, CAT_MISC, SEV_ERROR, 1, "denied");
    CHECK_EQ_INT(traps, 1);
    d12_info_queue_PopStorageFilter(q);
    /* Category and ID. */
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, SEV_ERROR, FALSE), S_OK);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnCategory(q, CAT_EXEC, TRUE), S_OK);
    iqt_add(q, CAT_EXEC, SEV_INFO, 1, "category");
    CHECK_EQ_INT(traps, 2);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)99, TRUE), S_OK);
    iqt_add(q, CAT_MISC, SEV_INFO, 99, "id");
    CHECK_EQ_INT(traps, 3);
    iqt_add(q, CAT_MISC, SEV_INFO, 98, "other id");
    CHECK_EQ_INT(traps, 3);
    /* A message matching several settings breaks once. */
    iqt_add(q, CAT_EXEC, SEV_INFO, 99, "both");
    CHECK_EQ_INT(traps, 4);
    /* D12RT_BREAK=none: nothing. */
    setenv("D12RT_BREAK", "none", 1);
    d12_info_queue *quiet = iqt_create();
    d12_info_queue_SetMuteDebugOutput(quiet, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(quiet, SEV_ERROR, TRUE), S_OK);
    iqt_add(quiet, CAT_MISC, SEV_ERROR, 1, "break");
    CHECK_EQ_INT(traps, 4);
    d12__info_queue_destroy(quiet);
    unsetenv("D12RT_BREAK");
    d12__info_queue_destroy(q);
}

void iqt_break_log(void)
{
    setenv("D12RT_BREAK", "log", 1);
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetBreakOnSeverity(q, D3D12_MESSAGE_SEVERITY_CORRUPTION, TRUE), S_OK);
    iqt_capture_begin();
    d12_info_queue_AddMessage(q, CAT_EXEC, D3D12_MESSAGE_SEVERITY_CORRUPTION, (D3D12_MESSAGE_ID)232, "bad");
    d12_info_queue_AddMessage(q, CAT_EXEC, SEV_ERROR, (D3D12_MESSAGE_ID)232, "not a break");
    const char *out = iqt_capture_end();
    CHECK_EQ_STR(out, "d12rt: break on D3D12 CORRUPTION message #232 (EXECUTION); set D12RT_BREAK=trap to stop "
                      "here\n");
    d12__info_queue_destroy(q);
    /* An unknown value is reported once at creation and falls back to auto. */
    setenv("D12RT_BREAK", "sometimes", 1);
    iqt_capture_begin();
    q = iqt_create();
    out = iqt_capture_end();
    CHECK_EQ_STR(out, "d12rt: D12RT_BREAK=sometimes is not one of auto, trap, log, none; using auto\n");
    d12__info_queue_destroy(q);
    unsetenv("D12RT_BREAK");
}

void iqt_debug_output(void)
{
    d12_info_queue *q = iqt_create();
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    d12_info_queue_PushStorageFilter(q, &deny);
    iqt_capture_begin();
    d12_info_queue_AddMessage(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)0x10000, "printed");
    d12_info_queue_AddMessage(q, CAT_MISC, SEV_INFO, (D3D12_MESSAGE_ID)5, "denied: not printed");
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    d12_info_queue_AddMessage(q, CAT_EXEC, SEV_WARNING, (D3D12_MESSAGE_ID)6, "muted: stored, not printed");
    d12_info_queue_SetMuteDebugOutput(q, FALSE);
    d12_info_queue_AddApplicationMessage(q, SEV_WARNING, "app");
    const char *out = iqt_capture_end();
    CHECK_EQ_STR(out, "D3D12 ERROR: printed [ MISCELLANEOUS ERROR #65536 ]\n"
                      "D3D12 WARNING: app [ APPLICATION_DEFINED WARNING #1 ]\n");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 3);
    CHECK_EQ_STR(iqt_text(q, 1), "muted: stored, not printed");
    d12__info_queue_destroy(q);
}

/* ---- Lazy formatting ---- */

typedef struct counting_format {
    int calls;
    const char *text;
} counting_format;

static size_t count_and_format(char *buf, size_t size, void *context)
{
    counting_format *f = context;
    f->calls++;
    return (size_t)snprintf(buf, size, "%s", f->text);
}

static void ignore_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, const char *t,
                            void *context)
{
    (void)c, (void)s, (void)id, (void)t;
    ++*(int *)context;
}

void iqt_lazy_format(void)
{
    d12_info_queue *q = iqt_create();
    D3D12_MESSAGE_SEVERITY all[] = {D3D12_MESSAGE_SEVERITY_CORRUPTION, SEV_ERROR, SEV_WARNING, SEV_INFO,
                                    D3D12_MESSAGE_SEVERITY_MESSAGE};
    D3D12_INFO_QUEUE_FILTER deny_all = {.DenyList = {.NumSeverities = 5, .pSeverityList = all}};
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny_all), S_OK);
    counting_format f = {0, "formatted"};
    for (int i = 0; i < 100; i++)
        d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 0); /* everything denied, no callback: never formatted */
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 100);
    /* A FLAG_NONE callback does not change that: it sees only what passes. */
    int seen = 0;
    DWORD cookie = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, ignore_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &seen,
                                                        &cookie),
                 S_OK);
    d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 0);
    CHECK_EQ_INT(seen, 0);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cookie), S_OK);
    /* An IGNORE_FILTERS callback needs the text of denied messages too. */
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, ignore_callback, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS,
                                                        &seen, &cookie),
                 S_OK);
    d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 1);
    CHECK_EQ_INT(seen, 1);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cookie), S_OK);
    /* Passing, muted, limit 0, no callback: nobody needs the text. */
    d12_info_queue_PopStorageFilter(q);
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    d12_info_queue_SetMessageCountLimit(q, 0);
    d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 1);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 1);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 1);
    /* Stored: formatted once (a short text fits the first attempt). */
    d12_info_queue_SetMessageCountLimit(q, 10);
    d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 2);
    CHECK_EQ_STR(iqt_text(q, 0), "formatted");
    d12__info_queue_destroy(q);
}

void iqt_wants(void)
{
    d12_info_queue *q = iqt_create();
    CHECK(d12__info_queue_wants(q, CAT_MISC, SEV_INFO, (D3D12_MESSAGE_ID)1)); /* stored and printed */
    D3D12_MESSAGE_SEVERITY info[] = {SEV_INFO};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = info}};
    d12_info_queue_PushStorageFilter(q, &deny);
    CHECK(!d12__info_queue_wants(q, CAT_MISC, SEV_INFO, (D3D12_MESSAGE_ID)1));
    CHECK(d12__info_queue_wants(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1));
    int seen = 0;
    DWORD cookie = 0;
    d12_info_queue_RegisterMessageCallback(q, ignore_callback, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, &seen, &cookie);
    CHECK(d12__info_queue_wants(q, CAT_MISC, SEV_INFO, (D3D12_MESSAGE_ID)1));
    d12_info_queue_UnregisterMessageCallback(q, cookie);
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    d12_info_queue_SetMessageCountLimit(q, 0);
    CHECK(!d12__info_queue_wants(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1));
    CHECK(!d12__info_queue_wants(NULL, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1));
    d12__info_queue_destroy(q);
}

void iqt_report_variants(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    d12__info_queue_report_f(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, "%s=%d", "x", 42);
    d12__info_queue_report_text(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1506, "verbatim %s %d");
    char long_text[1000];
    memset(long_text, 'L', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    counting_format f = {0, long_text};
    d12__info_queue_report_fn(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, count_and_format, &f);
    CHECK_EQ_INT(f.calls, 2); /* longer than the first attempt's buffer: measured, then written */
    d12__info_queue_report_text(q, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, long_text);
    d12__info_queue_report_text(NULL, CAT_MISC, SEV_ERROR, (D3D12_MESSAGE_ID)1, "no queue: ignored");
    CHECK_EQ_STR(iqt_text(q, 0), "x=42");
    CHECK_EQ_STR(iqt_text(q, 1), "verbatim %s %d");
    CHECK_EQ_STR(iqt_text(q, 2), long_text);
    CHECK_EQ_STR(iqt_text(q, 3), long_text);
    SIZE_T length = 0;
    d12_info_queue_GetMessage(q, 2, NULL, &length);
    CHECK_EQ_INT(length, sizeof(D3D12_MESSAGE) + sizeof(long_text));
    CHECK_EQ_INT(d12__info_queue_pending(q), 0);
    d12__info_queue_destroy(q);
}

void iqt_catalogue(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    d12__msg_method_not_implemented(q, "ID3D12Device", "CreateHeap");
    d12__msg_checkfeaturesupport1_field_clamped(q, "D3D12_FEATURE_D3D12_OPTIONS5", "D3D12_FEATURE_DATA_D3D12_OPTIONS5",
                                                "RaytracingTier", 616, 12, 11);
    d12__msg_device_removed(q, (HRESULT)0x887A0005, "EnableDebugLayer after device creation");
    d12__info_queue_report(q, D12_MSG_CREATEDEVICE_INVALIDARGS, "ppDevice is not NULL but riid is");
    union {
        D3D12_MESSAGE m;
        char bytes[512];
    } buffer;
    SIZE_T length = sizeof(buffer);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 0, &buffer.m, &length), S_OK);
    CHECK_EQ_STR(buffer.m.pDescription, "ID3D12Device::CreateHeap is not implemented by d12rt");
    CHECK_EQ_INT(buffer.m.ID, 0x10000);
    CHECK_EQ_INT(buffer.m.Category, CAT_MISC);
    CHECK_EQ_INT(buffer.m.Severity, SEV_ERROR);
    length = sizeof(buffer);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 1, &buffer.m, &length), S_OK);
    CHECK_EQ_STR(buffer.m.pDescription, "ID3D12Device17::CheckFeatureSupport1(D3D12_FEATURE_D3D12_OPTIONS5): "
                                        "D3D12_FEATURE_DATA_D3D12_OPTIONS5.RaytracingTier clamped for SDKVersion 616 "
                                        "from 12 to 11");
    CHECK_EQ_INT(buffer.m.Severity, SEV_WARNING);
    CHECK_EQ_STR(iqt_text(q, 2), "The device was removed (reason 0x887a0005): EnableDebugLayer after device creation");
    length = sizeof(buffer);
    CHECK_EQ_INT(d12_info_queue_GetMessage(q, 3, &buffer.m, &length), S_OK);
    CHECK_EQ_INT(buffer.m.ID, D3D12_MESSAGE_ID_CREATEDEVICE_INVALIDARGS);
    CHECK_EQ_STR(buffer.m.pDescription, "D3D12CreateDevice: ppDevice is not NULL but riid is");
    /* The table: project IDs inside the range, every ID once, lookups by ID. */
    for (int i = 0; i < D12_MSG_COUNT; i++) {
        const d12_message_info *info = &d12_messages[i];
        CHECK(info->id < D3D12_MESSAGE_ID_D3D12_MESSAGES_END ||
              (info->id >= D12_MESSAGE_ID_PROJECT_FIRST && info->id <= D12_MESSAGE_ID_PROJECT_LAST));
        CHECK(d12__message_info(info->id) == info);
        CHECK(info->format && info->name);
    }
    CHECK(d12__message_info((D3D12_MESSAGE_ID)2) == NULL);
    CHECK_EQ_STR(d12__message_info(D12_MESSAGE_ID_DEVICE_REMOVED)->name, "DEVICE_REMOVED");
    /* Everything denied: the catalogue path formats nothing and counts the denials. */
    D3D12_MESSAGE_SEVERITY errors[] = {SEV_ERROR};
    D3D12_INFO_QUEUE_FILTER deny = {.DenyList = {.NumSeverities = 1, .pSeverityList = errors}};
    d12_info_queue_PushStorageFilter(q, &deny);
    d12__msg_method_not_implemented(q, "ID3D12Device", "CreateHeap");
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 1);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 4);
    d12__info_queue_destroy(q);
}
