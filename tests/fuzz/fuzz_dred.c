/* Fuzz target: any bytes as a D12RT_DRED_DUMP report file, through the d12dred report reader
 * (runtime/dred/report/: d12dred_report_parse_buffer, what `d12dred show` and `d12dred diff` read). Promises
 * (d12dred_report.h, docs/dred-report.md): the reader parses the input or refuses it whole (-1, *out NULL, one
 * non-empty error line, no partial report); a parsed report round-trips: written back as JSON, that JSON parses,
 * its report writes the very same JSON (the writer is deterministic, so equal text is an equal report) and
 * d12dred_report_diff finds no difference; and rendering it (the `show` tree) succeeds. Seeds: the golden reports
 * of tests/dred_report, a report the runtime wrote at a removal, and hostile ones (corpus/dred/). */
#define _DEFAULT_SOURCE
#include "fuzz_input.h"
#include "d12dred_report.h"

#define NAME "fuzz_dred"

static FILE *sink(void)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    FUZZ_CHECK(NAME, null != NULL);
    return null;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    d12dred_report *report = (d12dred_report *)1; /* the reader must set it, to NULL on failure */
    char error[256];
    memset(error, 'x', sizeof error);
    if (d12dred_report_parse_buffer((const char *)data, size, &report, error, sizeof error) != 0) {
        FUZZ_CHECK(NAME, report == NULL);
        FUZZ_CHECK(NAME, memchr(error, '\0', sizeof error) != NULL && error[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(NAME, report != NULL);
    size_t length = 0;
    char *json = d12dred_report_to_json(report, &length);
    FUZZ_CHECK(NAME, json != NULL && length == strlen(json));
    d12dred_report *again = NULL;
    if (d12dred_report_parse_buffer(json, length, &again, error, sizeof error) != 0) {
        fprintf(stderr, "%s: the reader refused what the writer wrote: %s\n", NAME, error);
        abort();
    }
    size_t again_length = 0;
    char *json_again = d12dred_report_to_json(again, &again_length);
    FUZZ_CHECK(NAME, json_again != NULL);
    FUZZ_CHECK(NAME, again_length == length && memcmp(json, json_again, length) == 0);
    FUZZ_CHECK(NAME, d12dred_report_diff(report, again, NULL) == 0);
    FUZZ_CHECK(NAME, d12dred_report_render(report, sink()) == 0);
    free(json_again);
    free(json);
    d12dred_report_free(again);
    d12dred_report_free(report);
    return 0;
}
