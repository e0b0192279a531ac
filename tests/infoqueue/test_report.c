/* The report path's one-critical-section forms (docs/performance.md "Report path"): the settings summary a
 * muted, callback-free queue reports through, and the pooled delivery nodes. */

/* Each setting changed after the queue reached the plain state (muted, no filter, no break-on, no callback, limit
 * above 0) still takes effect on the next report, and undoing it makes reports plain (stored) again. */
void iqt_report_plain_settings(void)
{
    setenv("D12RT_BREAK", "log", 1);
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_add(q, CAT_EXEC, SEV_WARNING, 1, "plain");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1);

    D3D12_MESSAGE_SEVERITY warning = SEV_WARNING;
    D3D12_INFO_QUEUE_FILTER deny = {0};
    deny.DenyList.NumSeverities = 1;
    deny.DenyList.pSeverityList = &warning;
    CHECK_EQ_INT(d12_info_queue_PushStorageFilter(q, &deny), S_OK);
    iqt_add(q, CAT_EXEC, SEV_WARNING, 1, "denied");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 1);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDeniedByStorageFilter(q), 1);
    d12_info_queue_PopStorageFilter(q);
    iqt_add(q, CAT_EXEC, SEV_WARNING, 1, "stored again");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);

    d12_info_queue_SetMuteDebugOutput(q, FALSE);
    iqt_capture_begin();
    iqt_add(q, CAT_EXEC, SEV_WARNING, 7, "printed");
    const char *out = iqt_capture_end();
    CHECK_EQ_STR(out, "D3D12 WARNING: printed [ EXECUTION WARNING #7 ]\n");
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    iqt_capture_begin();
    iqt_add(q, CAT_EXEC, SEV_WARNING, 7, "muted again");
    CHECK_EQ_STR(iqt_capture_end(), "");

    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)9, TRUE), S_OK);
    iqt_capture_begin();
    iqt_add(q, CAT_EXEC, SEV_INFO, 9, "breaks");
    CHECK_EQ_STR(iqt_capture_end(), "d12rt: break on D3D12 INFO message #9 (EXECUTION); set D12RT_BREAK=trap to stop "
                                    "here\n");
    CHECK_EQ_INT(d12_info_queue_SetBreakOnID(q, (D3D12_MESSAGE_ID)9, FALSE), S_OK);
    iqt_capture_begin();
    iqt_add(q, CAT_EXEC, SEV_INFO, 9, "no break");
    CHECK_EQ_STR(iqt_capture_end(), "");

    static iqt_log log;
    iqt_log_init(&log);
    iqt_sink sink = {&log, 1};
    DWORD cookie = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &cookie),
                 S_OK);
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "to the callback");
    CHECK_EQ_INT(log.count, 1);
    CHECK_EQ_STR(log.entries[0].text, "to the callback");
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cookie), S_OK);
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "not to the callback");
    CHECK_EQ_INT(log.count, 1);

    UINT64 stored = d12_info_queue_GetNumStoredMessages(q);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 0), S_OK);
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "limit 0");
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 0);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 2), S_OK);
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "a");
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "b");
    iqt_add(q, CAT_EXEC, SEV_INFO, 3, "c"); /* at the limit: the oldest's node carries it */
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(q), 2);
    CHECK_EQ_STR(iqt_text(q, 0), "b");
    CHECK_EQ_STR(iqt_text(q, 1), "c");
    CHECK(stored > 0);
    d12__info_queue_destroy(q);
    unsetenv("D12RT_BREAK");
}

/* Recycled nodes and pooled delivery nodes of every size: texts shorter and longer than a node's minimum (and
 * longer than the node being recycled) are stored and delivered exactly once, in order, intact, across the
 * eviction of a full store and block boundaries. */
void iqt_report_recycled_sizes(void)
{
    d12_info_queue *q = iqt_create();
    d12_info_queue_SetMuteDebugOutput(q, TRUE);
    CHECK_EQ_INT(d12_info_queue_SetMessageCountLimit(q, 5), S_OK);
    static iqt_log log;
    iqt_log_init(&log);
    iqt_sink sink = {&log, 1};
    DWORD cookie = 0;
    CHECK_EQ_INT(d12_info_queue_RegisterMessageCallback(q, iqt_log_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &sink,
                                                        &cookie),
                 S_OK);
    static char text[3000][400];
    unsigned bad_store = 0, bad_delivery = 0;
    for (unsigned i = 0; i < 3000; i++) {
        size_t length = i % 7 == 0 ? 300 : i % 3 == 0 ? 130 : 10; /* around IQ_MIN_TEXT (128) */
        int n = snprintf(text[i], sizeof text[i], "m%u:", i);
        memset(text[i] + n, 'a' + (char)(i % 26), length);
        text[i][n + length] = '\0';
        iqt_add(q, CAT_EXEC, SEV_INFO, i, text[i]);
        const char *newest = iqt_text(q, d12_info_queue_GetNumStoredMessages(q) - 1);
        bad_store += !newest || strcmp(newest, text[i]) != 0;
        if (i >= 4) {
            const char *oldest = iqt_text(q, 0);
            bad_store += !oldest || strcmp(oldest, text[i - 4]) != 0;
        }
    }
    CHECK_EQ_INT(bad_store, 0);
    CHECK_EQ_INT(log.count, 3000);
    for (int i = 0; i < log.count && i < 3000; i++) /* the log keeps 63 characters of each text */
        bad_delivery += log.entries[i].id != (D3D12_MESSAGE_ID)i || strncmp(log.entries[i].text, text[i], 63) != 0;
    CHECK_EQ_INT(bad_delivery, 0);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesDiscardedByMessageCountLimit(q), 2995);
    CHECK_EQ_INT(d12_info_queue_GetNumMessagesAllowedByStorageFilter(q), 3000);
    CHECK_EQ_INT(d12_info_queue_UnregisterMessageCallback(q, cookie), S_OK);
    d12__info_queue_destroy(q);
}
