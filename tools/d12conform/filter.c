/* d12conform, the filter.* tests: the sentinel ID: driver messages filtered as a class through the InfoQueue. (one
 * file per area; conform.h says how to add one). */
#include "conform.h"

static unsigned g_none_calls, g_ignore_calls;

static void APIENTRY on_none(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d, void *x)
{
    (void)c, (void)s, (void)d, (void)x;
    g_none_calls += id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
}

static void APIENTRY on_ignore(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d, void *x)
{
    (void)c, (void)s, (void)d, (void)x;
    g_ignore_calls += id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
}

static UINT64 sentinel_stored(ID3D12InfoQueue1 *q)
{
    UINT64 n = 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue1_GetNumStoredMessages(q); i++) {
        D3D12_MESSAGE *m = stored(q, i);
        n += m && m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
        free(m);
    }
    return n;
}

/* Messages of the sentinel ID added while the deny filter is pushed, then after it is popped. A silent driver reports
 * nothing after creation, so the sentinel ID's routing is exercised with ID3D12InfoQueue::AddMessage
 * (docs/conformance.md says why). */
static outcome t_filter_deny(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *q = device ? info_queue(device) : NULL;
    if (!q)
        return FAIL;
    DWORD c1 = 0, c2 = 0;
    ID3D12InfoQueue1_RegisterMessageCallback(q, on_none, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &c1);
    ID3D12InfoQueue1_RegisterMessageCallback(q, on_ignore, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, NULL, &c2);
    D3D12_MESSAGE_ID deny[] = {D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE};
    D3D12_INFO_QUEUE_FILTER filter = {0};
    filter.DenyList.NumIDs = 1;
    filter.DenyList.pIDList = deny;
    ID3D12InfoQueue1_PushStorageFilter(q, &filter);
    UINT64 before = sentinel_stored(q);
    ID3D12InfoQueue1_AddMessage(q, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "denied");
    workload(device);
    EXPECT(sentinel_stored(q) == before, "a message of the denied sentinel ID was stored");
    EXPECT(g_none_calls == 0, "a FLAG_NONE callback got %u denied messages", g_none_calls);
    EXPECT(g_ignore_calls >= 1, "an IGNORE_FILTERS callback got no denied message");
    ID3D12InfoQueue1_PopStorageFilter(q);
    unsigned ignore = g_ignore_calls;
    ID3D12InfoQueue1_AddMessage(q, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "allowed");
    EXPECT(sentinel_stored(q) == before + 1, "after PopStorageFilter the message was not stored");
    EXPECT(g_none_calls == 1 && g_ignore_calls == ignore + 1, "after PopStorageFilter: callbacks %u (NONE), %u (IGNORE)",
           g_none_calls, g_ignore_calls - ignore);
    ID3D12InfoQueue1_UnregisterMessageCallback(q, c1);
    ID3D12InfoQueue1_UnregisterMessageCallback(q, c2);
    ID3D12InfoQueue1_Release(q);
    ID3D12Device_Release(device);
    return g_result;
}

const conform_test conform_tests_filter[] = {
    {"filter.sentinel_deny", "runtime", "Apps filter or suppress driver-sourced messages as a class by the sentinel ID "
     "... through the normal ID3D12InfoQueue::PushStorageFilter path", t_filter_deny},
};
const size_t conform_tests_filter_count = sizeof conform_tests_filter / sizeof conform_tests_filter[0];
