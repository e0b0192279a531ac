/* d12conform: the driver-reported-messages conformance suite (driver-reported-messages.txt v0.3; issue 10;
 * docs/conformance.md). Driver-agnostic: it uses libd12rt's public API, d12rt/d3d12ddi.h's constants, the documented
 * settings (D12RT_DRIVER, D12RT_HKCU/D12RT_HKLM, D12RT_APP_NAME) and the DDI trace (D12RT_DDI_TRACE) — never a
 * driver's private export or its message text.
 *
 *   d12conform [--driver PATH] [--list] [--run GLOB] [--json] [--junit FILE] [--timeout SECONDS]
 *
 * Each test runs in its own process (a re-exec of this program with --child NAME and a fresh environment: the trace
 * and the debug settings are per process), killed after the timeout; a crash or a hang fails that test only. */
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "driver_name.h"
#include "conform.h"
/* d12conform_help (what --help prints) and d12conform_usage (its usage lines): tools/help/d12conform.txt, which is
 * also the manual page (cmake/ToolHelp.cmake). */
#include "d12conform_help.h"

/* ======== the table: every area's tests, in CONFORM_AREAS order ======== */

#define MAX_TESTS 256
static const conform_test *g_tests[MAX_TESTS];
static size_t g_test_count;

static void collect_tests(void)
{
#define CONFORM_AREA(name)                                                                                        \
    for (size_t i = 0; i < conform_tests_##name##_count && g_test_count < MAX_TESTS; i++)                          \
        g_tests[g_test_count++] = &conform_tests_##name[i];
    CONFORM_AREAS
#undef CONFORM_AREA
}

/* ======== the parent: processes, timeouts, output ======== */

typedef struct result {
    const conform_test *test;
    outcome outcome;
    char *output;
    double seconds;
} result;

static char *read_all(int fd)
{
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    ssize_t n;
    while (text && (n = read(fd, text + size, capacity - size - 1)) > 0) {
        size += (size_t)n;
        if (capacity - size < 1024)
            text = realloc(text, capacity *= 2);
    }
    if (text)
        text[size] = '\0';
    return text;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static result run_one(const conform_test *t, const char *driver, unsigned timeout)
{
    result r = {t, FAIL, NULL, 0};
    char dir[] = "/tmp/d12conform.XXXXXX";
    if (!mkdtemp(dir)) {
        r.output = strdup("    cannot create a temporary directory\n");
        return r;
    }
    char trace_path[PATH_MAX], reg_path[PATH_MAX + 8];
    snprintf(trace_path, sizeof trace_path, "%s/ddi.trace", dir);
    snprintf(reg_path, sizeof reg_path, "%s.reg", trace_path);
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0)
        return r;
    double start = now_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fd[1], STDOUT_FILENO);
        dup2(pipe_fd[1], STDERR_FILENO);
        close(pipe_fd[0]);
        setenv("D12RT_DDI_TRACE", trace_path, 1);
        setenv("D12RT_HKCU", reg_path, 1);
        setenv("D12RT_HKLM", "/nonexistent/d12conform.reg", 1);
        setenv("D12RT_APP_NAME", "d12conform", 1);
        if (driver)
            setenv("D12RT_DRIVER", driver, 1);
        else
            unsetenv("D12RT_DRIVER");
        execl("/proc/self/exe", "d12conform", "--child", t->name, (char *)NULL);
        _exit(127);
    }
    close(pipe_fd[1]);
    /* the child's output is read as it comes, so a chatty child never blocks on a full pipe */
    size_t size = 0, capacity = 4096;
    char *text = calloc(1, capacity);
    bool timed_out = false;
    int status = 0;
    for (;;) {
        struct pollfd p = {pipe_fd[0], POLLIN, 0};
        /* milliseconds left, in double: (int)(timeout * 1000) overflowed past INT_MAX / 1000 seconds */
        double left_ms = (start + (double)timeout - now_seconds()) * 1000;
        int remaining = left_ms >= 100 ? 100 : (int)left_ms;
        if (remaining <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, remaining) > 0) {
            if (capacity - size < 1024)
                text = realloc(text, capacity *= 2);
            ssize_t n = read(pipe_fd[0], text + size, capacity - size - 1);
            if (n <= 0)
                break;
            size += (size_t)n;
            text[size] = '\0';
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            pid = 0;
            break;
        }
    }
    if (pid)
        waitpid(pid, &status, 0);
    char *rest = read_all(pipe_fd[0]);
    close(pipe_fd[0]);
    r.seconds = now_seconds() - start;
    size_t extra = rest ? strlen(rest) : 0;
    text = realloc(text, size + extra + 256);
    if (rest)
        memcpy(text + size, rest, extra + 1);
    free(rest);
    if (timed_out) {
        r.outcome = FAIL;
        strcat(text, "    timed out (a driver call did not return)\n");
    } else if (WIFSIGNALED(status)) {
        r.outcome = FAIL;
        snprintf(text + strlen(text), 128, "    crashed (signal %d)\n", WTERMSIG(status));
    } else {
        int code = WEXITSTATUS(status);
        r.outcome = code == 0 ? PASS : code == NOT_EXERCISED ? NOT_EXERCISED : FAIL;
    }
    r.output = text;
    unlink(trace_path);
    unlink(reg_path);
    rmdir(dir);
    return r;
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else if ((unsigned char)*s >= 0x20 || *s == '\n')
            fputc(*s, out);
    }
}

static const char *outcome_name(outcome o)
{
    return o == PASS ? "passed" : o == NOT_EXERCISED ? "not exercised" : "failed";
}

static int usage_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *format, ...)
{
    char why[512];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    return d12_tool_usage_error("d12conform", d12conform_usage, "%s", why);
}

/* Seconds to wait for one test: digits only (strtoull alone would take "-1" as 2^64 - 1 and " 5" as 5), 1 to
 * D12CONFORM_MAX_TIMEOUT, the most the parent's poll (int milliseconds) can wait for in one go. */
#define D12CONFORM_MAX_TIMEOUT (INT_MAX / 1000)
static bool parse_timeout(const char *text, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long long seconds = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || seconds < 1 ||
        seconds > D12CONFORM_MAX_TIMEOUT)
        return false;
    *out = (unsigned)seconds;
    return true;
}

static int run_child(const char *name)
{
    snprintf(g_trace_path, sizeof g_trace_path, "%s", getenv("D12RT_DDI_TRACE") ? getenv("D12RT_DDI_TRACE") : "");
    for (size_t i = 0; i < g_test_count; i++) {
        if (strcmp(g_tests[i]->name, name) == 0) {
            outcome o = g_tests[i]->run();
            fflush(stdout);
            return (int)(g_result == FAIL ? FAIL : o);
        }
    }
    fprintf(stderr, "d12conform: no test %s\n", name);
    return 2;
}

enum { OPT_DRIVER = 0x200, OPT_LIST, OPT_RUN, OPT_JSON, OPT_JUNIT, OPT_TIMEOUT, OPT_CHILD };

int main(int argc, char **argv)
{
    collect_tests();
    const char *driver = NULL, *glob = "*", *junit = NULL;
    bool list = false, json = false;
    unsigned timeout = 10;
    static const struct option long_options[] = {
        D12_TOOL_COMMON_OPTIONS,
        {"driver", required_argument, NULL, OPT_DRIVER},
        {"list", no_argument, NULL, OPT_LIST},
        {"run", required_argument, NULL, OPT_RUN},
        {"json", no_argument, NULL, OPT_JSON},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        /* internal: the re-exec of this program that runs one test (run_one) */
        {"child", required_argument, NULL, OPT_CHILD},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            return d12_tool_print_help(d12conform_help);
        case D12_TOOL_OPT_VERSION:
            return d12_tool_print_version("d12conform");
        case OPT_CHILD:
            return run_child(optarg);
        case OPT_DRIVER:
            driver = optarg;
            break;
        case OPT_RUN:
            glob = optarg;
            break;
        case OPT_JUNIT:
            junit = optarg;
            break;
        case OPT_TIMEOUT:
            if (!parse_timeout(optarg, &timeout))
                return usage_error("--timeout %s: not a whole number of seconds from 1 to %d", optarg,
                                   D12CONFORM_MAX_TIMEOUT);
            break;
        case OPT_LIST:
            list = true;
            break;
        case OPT_JSON:
            json = true;
            break;
        default:
            return d12_tool_bad_option("d12conform", d12conform_usage, c, optopt, argv, optind);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    char resolved[PATH_MAX];
    char tried[2][D12_DRIVER_NAME_PATH_MAX];
    if (d12__driver_is_name(driver)) { /* the runtime's rule (driver_name.h): beside the libd12rt.so this links */
        char dir[2048];
        d12__driver_library_dir((const void *)&D3D12CreateDevice, dir, sizeof dir);
        int found = d12__driver_name_find(dir, driver, tried);
        if (found < 0) {
            fprintf(stderr, "d12conform: --driver %s: no driver named %s: no %s, no %s\n", driver, driver, tried[0],
                    tried[1]);
            return 2;
        }
        driver = tried[found];
    }
    if (driver && !realpath(driver, resolved)) {
        fprintf(stderr, "d12conform: --driver %s: %s\n", driver, strerror(errno));
        return 2;
    }
    if (driver)
        driver = resolved;
    if (list) {
        for (size_t i = 0; i < g_test_count; i++) {
            if (fnmatch(glob, g_tests[i]->name, 0) == 0)
                printf("%-28s %-8s %s\n", g_tests[i]->name, g_tests[i]->checks, g_tests[i]->spec);
        }
        return 0;
    }
    result results[MAX_TESTS];
    size_t count = 0, passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < g_test_count; i++) {
        if (fnmatch(glob, g_tests[i]->name, 0) != 0)
            continue;
        result r = run_one(g_tests[i], driver, timeout);
        passed += r.outcome == PASS;
        failed += r.outcome == FAIL;
        skipped += r.outcome == NOT_EXERCISED;
        if (!json) {
            printf("%-14s %s (%s) %.2fs\n", r.outcome == PASS ? "PASS" : r.outcome == FAIL ? "FAIL" : "NOT EXERCISED",
                   r.test->name, r.test->checks, r.seconds);
            if (r.outcome != PASS && r.output && *r.output)
                fputs(r.output, stdout);
            fflush(stdout);
        }
        results[count++] = r;
    }
    if (count == 0) {
        fprintf(stderr, "d12conform: no test matches %s\n", glob);
        return 2;
    }
    if (json) {
        printf("{\"driver\": ");
        json_string(stdout, driver ? driver : "built-in reference driver");
        printf(", \"tests\": [\n");
        for (size_t i = 0; i < count; i++) {
            printf("  {\"name\": \"%s\", \"checks\": \"%s\", \"result\": \"%s\", \"seconds\": %.3f, \"spec\": ",
                   results[i].test->name, results[i].test->checks, outcome_name(results[i].outcome), results[i].seconds);
            json_string(stdout, results[i].test->spec);
            printf(", \"output\": ");
            json_string(stdout, results[i].output);
            printf("}%s\n", i + 1 < count ? "," : "");
        }
        printf("]}\n");
    }
    if (junit) {
        FILE *out = fopen(junit, "w");
        if (!out) {
            fprintf(stderr, "d12conform: --junit %s: %s\n", junit, strerror(errno));
            return 2;
        }
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"d12conform\" tests=\"%zu\" "
                "failures=\"%zu\" skipped=\"%zu\">\n", count, failed, skipped);
        for (size_t i = 0; i < count; i++) {
            fprintf(out, "  <testcase classname=\"d12conform.%s\" name=\"%s\" time=\"%.3f\">", results[i].test->checks,
                    results[i].test->name, results[i].seconds);
            if (results[i].outcome != PASS) {
                fprintf(out, results[i].outcome == FAIL ? "<failure message=\"" : "<skipped message=\"");
                xml_text(out, results[i].test->spec);
                fprintf(out, "\">");
                xml_text(out, results[i].output);
                fprintf(out, results[i].outcome == FAIL ? "</failure>" : "</skipped>");
            }
            fprintf(out, "</testcase>\n");
        }
        fprintf(out, "</testsuite>\n");
        fclose(out);
    }
    for (size_t i = 0; i < count; i++)
        free(results[i].output);
    /* with --json the summary goes to stderr, so stdout stays one JSON document */
    FILE *summary = json ? stderr : stdout;
    if (skipped)
        fprintf(summary, "%zu passed, %zu failed, %zu not exercised\n", passed, failed, skipped);
    else
        fprintf(summary, "%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
