/* test_infoqueue NAME: runs one InfoQueue test (each is its own ctest test) and prints `N passed, N failed`. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <unistd.h>

#include "iq_test.h"

d12_info_queue *iqt_create(void)
{
    d12_info_queue *queue = NULL;
    if (!CHECK(d12__info_queue_create(&queue) == S_OK && queue)) {
        d12test_finish();
        exit(1);
    }
    return queue;
}

void iqt_add(d12_info_queue *queue, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, UINT id,
             const char *text)
{
    CHECK_EQ_INT(d12_info_queue_AddMessage(queue, category, severity, (D3D12_MESSAGE_ID)id, text), S_OK);
}

const char *iqt_text(d12_info_queue *queue, UINT64 index)
{
    static union {
        D3D12_MESSAGE message;
        char bytes[4096];
    } buffer;
    SIZE_T length = 0;
    if (d12_info_queue_GetMessage(queue, index, NULL, &length) != S_FALSE || length > sizeof(buffer))
        return NULL;
    if (d12_info_queue_GetMessage(queue, index, &buffer.message, &length) != S_OK)
        return NULL;
    return buffer.message.pDescription;
}

static int iqt_saved_stderr = -1;
static FILE *iqt_capture_file;

void iqt_capture_begin(void)
{
    fflush(stderr);
    iqt_saved_stderr = dup(2);
    iqt_capture_file = tmpfile();
    dup2(fileno(iqt_capture_file), 2);
}

const char *iqt_capture_end(void)
{
    static char text[8192];
    fflush(stderr);
    dup2(iqt_saved_stderr, 2);
    close(iqt_saved_stderr);
    rewind(iqt_capture_file);
    size_t n = fread(text, 1, sizeof(text) - 1, iqt_capture_file);
    text[n] = '\0';
    fclose(iqt_capture_file);
    return text;
}

void iqt_log_init(iqt_log *log)
{
    pthread_mutex_init(&log->lock, NULL);
    log->count = 0;
}

void iqt_log_add(iqt_log *log, int tag, D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity,
                 D3D12_MESSAGE_ID id, const char *text)
{
    pthread_mutex_lock(&log->lock);
    if (log->count < IQT_LOG_MAX) {
        iqt_entry *entry = &log->entries[log->count++];
        entry->tag = tag;
        entry->category = category;
        entry->severity = severity;
        entry->id = id;
        snprintf(entry->text, sizeof(entry->text), "%s", text);
    }
    pthread_mutex_unlock(&log->lock);
}

void iqt_log_callback(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                      const char *text, void *context)
{
    iqt_sink *sink = context;
    iqt_log_add(sink->log, sink->tag, category, severity, id, text);
}

typedef struct iqt_test {
    const char *name;
    void (*run)(void);
} iqt_test;

#define IQT_ENTRY(name) {#name, iqt_##name},
static const iqt_test iqt_tests[] = {IQT_TESTS(IQT_ENTRY)};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof(iqt_tests) / sizeof(iqt_tests[0]); i++) {
        if (strcmp(argv[1], iqt_tests[i].name) == 0) {
            iqt_tests[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: %s TEST\ntests:", argv[0]);
    for (size_t i = 0; i < sizeof(iqt_tests) / sizeof(iqt_tests[0]); i++)
        fprintf(stderr, " %s", iqt_tests[i].name);
    fprintf(stderr, "\n");
    return 2;
}

/* The tests are compiled into this translation unit: harness.h keeps its pass/fail counters per translation
 * unit, so checks made in a separately compiled file would never reach the closing line. */
#include "test_callbacks.c"
#include "test_retrieval.c"
#include "test_storage.c"
#include "test_report.c"
