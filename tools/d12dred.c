/* d12dred: reads the DRED reports d12rt writes on removal (D12RT_DRED_DUMP=DIR) and shows them.
 *
 *     d12dred show FILE           the report as a tree (docs/dred-report.md)
 *     d12dred show FILE --json    the report as normalised JSON (what d12rt would write for it)
 *     d12dred show FILE --timeline VA   the creations and releases of the resources that held VA (issue 32 item 7)
 *     d12dred diff A B            compare two runs: reason, device state, faulting op, page-fault verdict
 *     d12dred html FILE [-o OUT]  the report as one self-contained HTML page (stdout, or OUT written atomically)
 *
 * Exit status: 0 success (diff: the reports agree), 1 diff: they differ (show --timeline: the report has no timeline
 * of VA), 2 usage error, 3 a file that cannot be read or is not a valid report (the reason on stderr: `d12dred: FILE:
 * line L, column C: ...`). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "d12dred_report.h"
/* d12dred_help (what --help prints) and d12dred_usage (its usage lines): tools/help/d12dred.txt, which is also the
 * manual page (cmake/ToolHelp.cmake). */
#include "d12dred_help.h"
#include "d12dred_shape.h"

enum { EXIT_SAME = 0, EXIT_DIFFERENT = 1, EXIT_USAGE = 2, EXIT_BAD_FILE = 3 };

static int usage(void)
{
    return d12_tool_usage_error("d12dred", d12dred_usage, NULL);
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

/* `timeline`: NULL for the tree (or --json), else the VA whose timeline to print. */
static int show(const char *path, int json, const char *timeline)
{
    d12dred_report *report = load(path);
    if (!report)
        return EXIT_BAD_FILE;
    int rc = timeline ? d12dred_report_render_timeline(report, strtoull(timeline, NULL, 0), stdout)
             : json   ? d12dred_report_write_json(report, stdout)
                      : d12dred_report_render(report, stdout);
    d12dred_report_free(report);
    if (rc < 0) {
        fprintf(stderr, "d12dred: cannot write the output\n");
        return EXIT_BAD_FILE;
    }
    return rc == 1 ? EXIT_DIFFERENT : EXIT_SAME; /* 1: no timeline of that VA (the line says so) */
}

/* A VA as `show --timeline` takes it: 0x-prefixed hex or decimal, all of it a number below 2^64. */
static int valid_va(const char *text)
{
    char *end = NULL;
    errno = 0;
    (void)strtoull(text, &end, 0);
    return *text && *text != '-' && end && *end == '\0' && errno == 0;
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

/* The page of `d12dred html` (docs/dred-report.md "The page"): to stdout, or to OUT through a temporary file and a
 * rename (a browser reloading OUT never sees half a page). The page's title names the report's file. */
static int html(const char *path, const char *output)
{
    d12dred_report *report = load(path);
    if (!report)
        return EXIT_BAD_FILE;
    const char *slash = strrchr(path, '/');
    size_t length = 0;
    char *page = d12dred_report_to_html(report, slash ? slash + 1 : path, &length);
    d12dred_report_free(report);
    if (!page) {
        fprintf(stderr, "d12dred: out of memory\n");
        return EXIT_BAD_FILE;
    }
    int rc = 0;
    if (output) {
        rc = d12dred_write_file_atomic(output, page, length);
        if (rc != 0)
            fprintf(stderr, "d12dred: cannot write %s: %s\n", output, strerror(errno));
    } else if (fwrite(page, 1, length, stdout) != length || fflush(stdout) != 0) {
        fprintf(stderr, "d12dred: cannot write the output\n");
        rc = -1;
    }
    free(page);
    return rc == 0 ? EXIT_SAME : EXIT_BAD_FILE;
}

enum { OPT_JSON = 0x200, OPT_TIMELINE };

int main(int argc, char **argv)
{
    static const struct option long_options[] = {
        D12_TOOL_COMMON_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"timeline", required_argument, NULL, OPT_TIMELINE},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    int json = 0;
    const char *output = NULL, *timeline = NULL;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", long_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            return d12_tool_print_help(d12dred_help);
        case D12_TOOL_OPT_VERSION:
            return d12_tool_print_version("d12dred");
        case OPT_JSON:
            json = 1;
            break;
        case 'o':
            output = optarg;
            break;
        case OPT_TIMELINE:
            if (!valid_va(optarg)) {
                fprintf(stderr, "d12dred: --timeline wants a VA (0x... or decimal), not '%s'\n", optarg);
                return usage();
            }
            timeline = optarg;
            break;
        default:
            return d12_tool_bad_option("d12dred", d12dred_usage, c, optopt, argv, optind);
        }
    }
    /* getopt_long moved the options in front: argv[optind..] are the command and its operands, in order */
    int count = argc - optind;
    char **args = argv + optind;
    /* --json and --timeline (one of them) belong to show, -o to html */
    if (count == 2 && strcmp(args[0], "show") == 0 && !output && !(json && timeline))
        return show(args[1], json, timeline);
    if (count == 3 && strcmp(args[0], "diff") == 0 && !json && !output && !timeline)
        return diff(args[1], args[2]);
    if (count == 2 && strcmp(args[0], "html") == 0 && !json && !timeline)
        return html(args[1], output);
    if (count >= 1 && strcmp(args[0], "show") != 0 && strcmp(args[0], "diff") != 0 && strcmp(args[0], "html") != 0)
        fprintf(stderr, "d12dred: unknown command '%s'\n", args[0]);
    return usage();
}
