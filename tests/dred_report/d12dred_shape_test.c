/* ctest dred_report.shape.<case> (issue 17 item 7.9): d12dred on 32 MB files that cannot be reports. Before, a
 * 32 MB array of numbers took 1.9 GB and 11 s before it was refused. d12dred runs with its address space capped at
 * 256 MiB, eight times the input (outside the sanitizers, which reserve terabytes): a tree built first would run out
 * of memory and say so; the refusal by shape must come instead, naming the shape. Ends with `N passed, N failed`.
 *   number_array      [1,1,1,...]               the top level is an array
 *   array_of_numbers  {"nodes":[1,1,...]}       an array holds a number
 *   scalars_after     {"nodes":[{},1,1,...]}    more JSON values than the bytes allow
 *   event_stack_long  {"event_stack":[1,1,...]} more JSON values than the bytes allow (the one array of numbers a
 *                                               report has passes the shape check, and the budget still holds)
 *   notes_long        {"notes":["","",...]}     the same for the one array of strings
 *   empty_objects     {"nodes":[{},{},...]}     more JSON values than the bytes allow
 *   golden            a written report (tests/dred_report/golden/long_node.json) is still shown, under the same cap */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char g_dir[64], g_err[4096];

static int run_d12dred(const char *tool, const char *file)
{
    char err_path[128];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", g_dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), null = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        dup2(null, 1);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
        struct rlimit limit = {256ul << 20, 256ul << 20};
        setrlimit(RLIMIT_AS, &limit);
#endif
        execl(tool, tool, "show", file, (char *)NULL);
        _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    FILE *e = fopen(err_path, "r");
    size_t n = e ? fread(g_err, 1, sizeof g_err - 1, e) : 0;
    g_err[n] = 0;
    if (e)
        fclose(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* head, then `unit` repeated to 32 MB, then tail */
static bool make_file(const char *path, const char *head, const char *unit, const char *first, const char *tail)
{
    FILE *file = fopen(path, "w");
    if (!CHECK(file != NULL))
        return false;
    fputs(head, file);
    fputs(first, file);
    size_t unit_size = strlen(unit);
    for (size_t written = 0; written < (32u << 20); written += unit_size)
        fputs(unit, file);
    fputs(tail, file);
    return CHECK(fclose(file) == 0);
}

static void refused(const char *tool, const char *head, const char *first, const char *unit, const char *tail,
                    const char *reason)
{
    char path[128];
    snprintf(path, sizeof path, "%s/hostile.json", g_dir);
    if (!make_file(path, head, unit, first, tail))
        return;
    CHECK_EQ_INT(run_d12dred(tool, path), 3);
    if (!CHECK(strstr(g_err, reason) != NULL))
        fprintf(stderr, "    stderr: %s\n", g_err);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: d12dred_shape_test CASE D12DRED GOLDEN-DIR\n");
        return 2;
    }
    const char *c = argv[1], *tool = argv[2];
    snprintf(g_dir, sizeof g_dir, "/tmp/d12dred-shape-XXXXXX");
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return d12test_finish();
    if (strcmp(c, "number_array") == 0)
        refused(tool, "[", "1", ",1", "]", "not a DRED report: the top level is an array, not an object");
    else if (strcmp(c, "array_of_numbers") == 0)
        refused(tool, "{\"nodes\": [", "1", ",1", "]}", "not a DRED report: an array holds a number");
    else if (strcmp(c, "scalars_after") == 0)
        refused(tool, "{\"nodes\": [", "{}", ",1", "]}", "not a DRED report: more than");
    else if (strcmp(c, "event_stack_long") == 0)
        refused(tool, "{\"nodes\": [{\"ops\": [{\"event_stack\": [", "1", ",1", "]}]}]}", "not a DRED report: more than");
    else if (strcmp(c, "notes_long") == 0)
        refused(tool, "{\"notes\": [", "\"\"", ",\"\"", "]}", "not a DRED report: more than");
    else if (strcmp(c, "empty_objects") == 0)
        refused(tool, "{\"nodes\": [", "{}", ",{}", "]}", "not a DRED report: more than");
    else if (strcmp(c, "golden") == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/long_node.json", argv[3]);
        CHECK_EQ_INT(run_d12dred(tool, path), 0);
        CHECK_EQ_STR(g_err, "");
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        CHECK(false);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return d12test_finish();
}
