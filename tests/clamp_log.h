/* A clamp report callback for tests: remembers how many fields were clamped and the last report. */
#ifndef D12_TEST_CLAMP_LOG_H
#define D12_TEST_CLAMP_LOG_H

#include <stdio.h>

#include "d12caps.h"

typedef struct report_log {
    unsigned count;
    char feature[96];
    char field[96];
    d12_caps_version version;
    int64_t before, after;
} report_log;

static void on_report(void *context, const d12_caps_clamp_report *report)
{
    report_log *log = context;
    log->count++;
    snprintf(log->feature, sizeof log->feature, "%s", report->feature->name);
    snprintf(log->field, sizeof log->field, "%s", report->field->name);
    log->version = report->version;
    log->before = report->before;
    log->after = report->after;
}

#endif
