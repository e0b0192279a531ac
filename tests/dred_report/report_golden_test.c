/* Golden files of the DRED report (tests/dred_report/golden/CASE.json and CASE.txt): the reports of
 * report_cases.h, written to JSON and rendered as the `d12dred show` tree, must match the checked-in files byte
 * for byte, so the format cannot change by accident; and every golden JSON read back must write out identically
 * and render the same tree (read -> write round-trip identity).
 *
 *     report_golden_test golden CASE DIR      built report vs DIR/CASE.json and DIR/CASE.txt
 *     report_golden_test roundtrip CASE DIR   DIR/CASE.json read, written and rendered again
 *     report_golden_test write DIR            (re)writes every golden file: review the diff before committing */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "report_cases.h"

static char *read_file(const char *dir, const char *name, const char *ext, size_t *length)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len <= 1) {
            char *grown = realloc(data, cap *= 2);
            if (!grown) {
                free(data);
                data = NULL;
            } else {
                data = grown;
            }
        }
    }
    fclose(f);
    if (data)
        data[len] = '\0';
    *length = len;
    return data;
}

static char *render_to_string(const d12dred_report *report)
{
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    if (!f)
        return NULL;
    int rc = d12dred_report_render(report, f);
    fclose(f);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Equal, or the first differing line on stderr. */
static void check_same_text(const char *what, const char *actual, const char *expected)
{
    if (!CHECK(actual && expected))
        return;
    if (CHECK(strcmp(actual, expected) == 0))
        return;
    unsigned line = 1;
    const char *a = actual, *e = expected;
    while (*a && *a == *e) {
        if (*a == '\n')
            line++;
        a++, e++;
    }
    const char *a_end = strchr(a, '\n'), *e_end = strchr(e, '\n');
    fprintf(stderr, "    %s differs at line %u:\n    actual:   %.*s\n    expected: %.*s\n", what, line,
            (int)(a_end ? a_end - a : (long)strlen(a)), a, (int)(e_end ? e_end - e : (long)strlen(e)), e);
}

static int golden(const report_case *c, const char *dir)
{
    d12dred_report *report = c->build();
    if (!CHECK(report))
        return d12test_finish();
    size_t json_length, golden_length, text_length;
    char *json = d12dred_report_to_json(report, &json_length);
    char *expected_json = read_file(dir, c->name, ".json", &golden_length);
    check_same_text("JSON", json, expected_json);
    CHECK_EQ_INT(json_length, golden_length);
    char *text = render_to_string(report);
    char *expected_text = read_file(dir, c->name, ".txt", &text_length);
    check_same_text("show tree", text, expected_text);
    free(json), free(expected_json), free(text), free(expected_text);
    d12dred_report_free(report);
    return d12test_finish();
}

static int roundtrip(const report_case *c, const char *dir)
{
    size_t length, text_length;
    char *file = read_file(dir, c->name, ".json", &length);
    char *expected_text = read_file(dir, c->name, ".txt", &text_length);
    if (!CHECK(file && expected_text))
        return d12test_finish();
    char error[256] = "";
    d12dred_report *report = NULL;
    CHECK_EQ_INT(d12dred_report_parse_buffer(file, length, &report, error, sizeof error), 0);
    CHECK_EQ_STR(error, "");
    if (report) {
        size_t again_length;
        char *again = d12dred_report_to_json(report, &again_length);
        check_same_text("JSON written after reading", again, file);
        CHECK_EQ_INT(again_length, length);
        char *text = render_to_string(report);
        check_same_text("show tree after reading", text, expected_text);
        /* Every member d12rt writes is one the reader knows: none is left over as an extra (d12dred html would show
         * it a second time, as an unknown member). */
        for (size_t i = 0; i < report->extra_count; i++)
            fprintf(stderr, "unexpected extra: %s.%s\n", report->extras[i].owner, report->extras[i].key);
        CHECK_EQ_INT(report->extra_count, 0);
        /* And the built report compares equal to the read one. */
        d12dred_report *built = c->build();
        CHECK_EQ_INT(d12dred_report_diff(built, report, NULL), 0);
        d12dred_report_free(built);
        free(again), free(text);
    }
    d12dred_report_free(report);
    free(file), free(expected_text);
    return d12test_finish();
}

static int write_all(const char *dir)
{
    for (size_t i = 0; i < sizeof report_cases / sizeof report_cases[0]; i++) {
        d12dred_report *report = report_cases[i].build();
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.json", dir, report_cases[i].name);
        CHECK_EQ_INT(d12dred_report_write_file(report, path), 0);
        snprintf(path, sizeof path, "%s/%s.txt", dir, report_cases[i].name);
        FILE *f = fopen(path, "w");
        CHECK(f && d12dred_report_render(report, f) == 0);
        if (f)
            fclose(f);
        d12dred_report_free(report);
        printf("wrote %s/%s.{json,txt}\n", dir, report_cases[i].name);
    }
    return d12test_finish();
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return write_all(argv[2]);
    const report_case *c = argc == 4 ? find_report_case(argv[2]) : NULL;
    if (c && strcmp(argv[1], "golden") == 0)
        return golden(c, argv[3]);
    if (c && strcmp(argv[1], "roundtrip") == 0)
        return roundtrip(c, argv[3]);
    fprintf(stderr, "usage: report_golden_test golden|roundtrip CASE DIR | write DIR\n");
    return 2;
}
