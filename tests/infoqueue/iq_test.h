/* Shared helpers of the InfoQueue tests: a queue per test, messages by text, stderr capture, a callback log. */
#ifndef D12_IQ_TEST_H
#define D12_IQ_TEST_H

#include <pthread.h>

#include "harness.h"
#include "infoqueue.h"

#define CAT_MISC D3D12_MESSAGE_CATEGORY_MISCELLANEOUS
#define CAT_EXEC D3D12_MESSAGE_CATEGORY_EXECUTION
#define SEV_ERROR D3D12_MESSAGE_SEVERITY_ERROR
#define SEV_WARNING D3D12_MESSAGE_SEVERITY_WARNING
#define SEV_INFO D3D12_MESSAGE_SEVERITY_INFO

d12_info_queue *iqt_create(void);

/* AddMessage(category, severity, id, text), checked to return S_OK. */
void iqt_add(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, UINT id,
             const char *text);

/* The description of retrievable message `index` (static buffer), or NULL if GetMessage fails. */
const char *iqt_text(d12_info_queue *queue, UINT64 index);

/* Redirects stderr to a temporary file until iqt_capture_end, which returns what was written (static). */
void iqt_capture_begin(void);
const char *iqt_capture_end(void);

/* A callback log, safe from any thread. */
#define IQT_LOG_MAX 40000
typedef struct iqt_entry {
    int tag;
    D3D12_MESSAGE_CATEGORY category;
    D3D12_MESSAGE_SEVERITY severity;
    D3D12_MESSAGE_ID id;
    char text[64];
} iqt_entry;

typedef struct iqt_log {
    pthread_mutex_t lock;
    int count;
    iqt_entry entries[IQT_LOG_MAX];
} iqt_log;

void iqt_log_init(iqt_log *log);
void iqt_log_add(iqt_log *log, int tag, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                 D3D12_MESSAGE_ID id, const char *text);

/* A registered callback's context: where it logs and under which tag. */
typedef struct iqt_sink {
    iqt_log *log;
    int tag;
} iqt_sink;

void iqt_log_callback(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                      const char *text, void *context);

/* Tests, by name (test_main.c dispatches). Each returns nothing; checks go to the harness. */
#define IQT_TESTS(X)                                                                                             \
    X(defaults) X(counters) X(limit_eviction) X(limit_unlimited) X(limit_lowered) X(limit_zero)                  \
    X(clear_keeps_counters) X(getmessage_layout) X(getmessage_errors) X(getmessage_retrieval_index)              \
    X(stack_operations) X(stack_auto_push) X(filter_get_layout) X(filter_get_errors) X(filter_validation)        \
    X(allow_deny) X(storage_vs_retrieval) X(push_copy) X(add_message_validation) X(application_message)          \
    X(break_setters) X(break_trap) X(break_log) X(debug_output) X(callbacks_basic) X(callback_validation)         \
    X(callback_flags) X(callback_nested_report) X(callback_self_unregister) X(callback_getmessage)               \
    X(callback_register_inside) X(unregister_waits) X(slow_callback_does_not_block) X(concurrent_reports)        \
    X(lazy_format) X(wants) X(report_variants) X(catalogue) X(getmessage_many_unfiltered)                      \
    X(getmessage_many_filtered) X(getmessage_model) X(getmessage_poll_newest) X(getmessage_clear_refill)         \
    X(callback_cookie_reuse) X(getmessage_concurrent_poll) X(report_plain_settings) X(report_recycled_sizes)

#define IQT_DECLARE(name) void iqt_##name(void);
IQT_TESTS(IQT_DECLARE)

#endif
