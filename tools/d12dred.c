/* d12dred: reads the DRED reports d12rt writes on removal (D12RT_DRED_DUMP=DIR) and shows them.
 *
 *     d12dred show FILE           the report as a tree (docs/dred-report.md)
 *     d12dred show FILE --json    the report as normalised JSON (what d12rt would write for it)
 *     d12dred diff A B            compare two runs: reason, device state, faulting op, page-fault verdict
 *
 * Exit status: 0 success (diff: the reports agree), 1 diff: they differ, 2 usage error, 3 a file that cannot be
 * read or is not a valid report (the reason on stderr: `d12dred: FILE: line L, column C: ...`). */
#include <stdio.h>
#include <string.h>

#include "d12dred_report.h"
#include "d12dred_shape.h"

enum { EXIT_SAME = 0, EXIT_DIFFERENT = 1, EXIT_USAGE = 2, EXIT_BAD_FILE = 3 };

static int usage(FILE *out)
{
    fprintf(out, "usage: d12dred show FILE [--json]\n"
                 "       d12dred diff A B\n"
                 "Shows a DRED report written by d12rt (D12RT_DRED_DUMP=DIR), or compares two.\n"
                 "Exit status: 0 success or same, 1 different (diff), 2 usage, 3 unreadable or invalid report.\n");
    return out == stdout ? EXIT_SAME : EXIT_USAGE;
}

static d12dred_report *load(const char *path)
{
    char error[512];
    d12dred_report *report;
    /* refused by shape before the tree is built, and read as a config file is (d12dred_shape.h; issue 17 item 7.9) */
    if (d12dred_shape_load(path, &report, error, sizeof error) != 0) {
        /* read_json names the file itself when it cannot read it; a parse error is about its contents. */
        if (strncmp(error, "cannot read ", 12) == 0 || strstr(error, path) == error + 0)
            fprintf(stderr, "d12dred: %s\n", error);
        else
            fprintf(stderr, "d12dred: %s: %s\n", path, error);
        return NULL;
    }
    return report;
}

static int show(const char *path, int json)
{
    d12dred_report *report = load(path);
    if (!report)
        return EXIT_BAD_FILE;
    int rc = json ? d12dred_report_write_json(report, stdout) : d12dred_report_render(report, stdout);
    d12dred_report_free(report);
    if (rc != 0) {
        fprintf(stderr, "d12dred: cannot write the output\n");
        return EXIT_BAD_FILE;
    }
    return EXIT_SAME;
}

static int diff(const char *a_path, const char *b_path)
{
    d12dred_report *a = load(a_path);
    d12dred_report *b = a ? load(b_path) : NULL;
    if (!a || !b) {
        d12dred_report_free(a);
        return EXIT_BAD_FILE;
    }
    int rc = d12dred_report_diff(a, b, stdout);
    d12dred_report_free(a);
    d12dred_report_free(b);
    return rc == 0 ? EXIT_SAME : EXIT_DIFFERENT;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return usage(stdout);
    if (argc >= 3 && strcmp(argv[1], "show") == 0) {
        if (argc == 3)
            return show(argv[2], 0);
        if (argc == 4 && strcmp(argv[3], "--json") == 0)
            return show(argv[2], 1);
        if (argc == 4 && strcmp(argv[2], "--json") == 0)
            return show(argv[3], 1);
    }
    if (argc == 4 && strcmp(argv[1], "diff") == 0)
        return diff(argv[2], argv[3]);
    if (argc >= 2 && strcmp(argv[1], "show") != 0 && strcmp(argv[1], "diff") != 0)
        fprintf(stderr, "d12dred: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
