/* Hostile files named by the environment (issue 17 items 7.2 and 7.3; docs/reliability.md "Threat model"), one
 * process per case, each ending with `N passed, N failed`:
 *   profile_fifo, profile_dev_zero, profile_dev_urandom, profile_directory, profile_too_large
 *       D12RT_REFDRV_PROFILE names it: device creation returns at once (a 20 s alarm fails the case; the FIFO hung
 *       the open, /dev/zero reached 3.3 GB in 10 s), fails with E_INVALIDARG, and says why on stderr; the address
 *       space is capped at 1 GiB outside the sanitizers, so reading without bound would fail the case too
 *   profile_regular   the same reader still reads a regular profile (a positive twin)
 *   trace_fifo        D12RT_DDI_TRACE names a FIFO nobody reads: a program linking libd12rt reaches main (the
 *                     library constructor's open blocked for ever), saying on stderr that there is no trace
 *   trace_regular     a regular trace file is still written from the constructor on */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>

#include "harness.h"

static char g_dir[64];

static bool make_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/d12rt-hostile-XXXXXX");
    return CHECK(mkdtemp(g_dir) != NULL);
}

static void cap_address_space(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    struct rlimit limit = {1ul << 30, 1ul << 30};
    setrlimit(RLIMIT_AS, &limit);
#endif
}

/* Run `argv0 child` with `variable=value` in a child process, its stderr in a file; true when it exited within
 * 20 s (then *status and the stderr text are filled). */
static bool run_child(const char *argv0, const char *child_case, const char *variable, const char *value,
                      int *status, char *err_text, size_t err_size)
{
    char err_path[128];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", g_dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, 2);
        setenv(variable, value, 1);
        execl(argv0, argv0, child_case, (char *)NULL);
        _exit(127);
    }
    bool exited = false;
    for (int i = 0; i < 2000 && !exited; i++) {
        if (waitpid(pid, status, WNOHANG) == pid)
            exited = true;
        else
            usleep(10000);
    }
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, status, 0);
    }
    err_text[0] = 0;
    FILE *file = fopen(err_path, "r");
    if (file) {
        size_t n = fread(err_text, 1, err_size - 1, file);
        err_text[n] = 0;
        fclose(file);
    }
    return exited;
}

/* ---- D12RT_REFDRV_PROFILE ---- */

static void profile_case(const char *argv0, const char *path, const char *expect_reason)
{
    int status = 0;
    char err[4096];
    bool exited = run_child(argv0, "profile_child", "D12RT_REFDRV_PROFILE", path, &status, err, sizeof err);
    if (!CHECK(exited))
        fprintf(stderr, "    device creation with D12RT_REFDRV_PROFILE=%s did not return within 20 s\n", path);
    CHECK(WIFEXITED(status));
    /* the child exits 0 when CreateDevice failed with E_INVALIDARG, 1 when it succeeded, 2 on anything else */
    CHECK_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, expect_reason ? 0 : 1);
    if (expect_reason && !CHECK(strstr(err, expect_reason) != NULL))
        fprintf(stderr, "    stderr: %s\n", err);
}

static int profile_child(void)
{
    cap_address_space();
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    if (device)
        ID3D12Device_Release(device);
    fprintf(stderr, "CreateDevice: 0x%08X\n", (unsigned)hr);
    return hr == E_INVALIDARG ? 0 : SUCCEEDED(hr) ? 1 : 2;
}

static void test_profile_fifo(const char *argv0)
{
    char path[128];
    snprintf(path, sizeof path, "%s/profile.fifo", g_dir);
    CHECK_EQ_INT(mkfifo(path, 0600), 0);
    profile_case(argv0, path, "not a regular file");
}

static void test_profile_dev_zero(const char *argv0) { profile_case(argv0, "/dev/zero", "not a regular file"); }
static void test_profile_dev_urandom(const char *argv0) { profile_case(argv0, "/dev/urandom", "not a regular file"); }
static void test_profile_directory(const char *argv0) { profile_case(argv0, g_dir, "not a regular file"); }

static void test_profile_too_large(const char *argv0)
{
    char path[128];
    snprintf(path, sizeof path, "%s/large.txt", g_dir);
    FILE *file = fopen(path, "w");
    if (!CHECK(file != NULL))
        return;
    for (int i = 0; i < (1 << 20) / 16 + 1; i++)
        fputs("# padding line\n\n", file); /* comments only: valid, just too large */
    fclose(file);
    profile_case(argv0, path, "larger than 1 MiB");
}

static void test_profile_regular(const char *argv0)
{
    char path[128];
    snprintf(path, sizeof path, "%s/comments.txt", g_dir);
    FILE *file = fopen(path, "w");
    if (!CHECK(file != NULL))
        return;
    fputs("# a profile with nothing but a comment: the defaults\n", file);
    fclose(file);
    profile_case(argv0, path, NULL);
}

/* ---- D12RT_DDI_TRACE ---- */

static void test_trace_fifo(const char *argv0)
{
    char path[128];
    snprintf(path, sizeof path, "%s/trace.fifo", g_dir);
    CHECK_EQ_INT(mkfifo(path, 0600), 0);
    int status = 0;
    char err[4096];
    bool exited = run_child(argv0, "main_reached", "D12RT_DDI_TRACE", path, &status, err, sizeof err);
    if (!CHECK(exited))
        fprintf(stderr, "    the program did not reach main within 20 s (the trace's open blocked)\n");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!CHECK(strstr(err, "a FIFO with no reader") != NULL && strstr(err, "no trace") != NULL))
        fprintf(stderr, "    stderr: %s\n", err);
}

static void test_trace_regular(const char *argv0)
{
    char path[128];
    snprintf(path, sizeof path, "%s/trace.txt", g_dir);
    int status = 0;
    char err[4096];
    CHECK(run_child(argv0, "main_reached", "D12RT_DDI_TRACE", path, &status, err, sizeof err));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char text[256] = "";
    FILE *file = fopen(path, "r");
    if (CHECK(file != NULL)) {
        CHECK(fgets(text, sizeof text, file) != NULL);
        fclose(file);
    }
    CHECK_EQ_STR(text, "# d12rt DDI trace 1\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "profile_child") == 0)
        return profile_child();
    if (argc == 2 && strcmp(argv[1], "main_reached") == 0) {
        /* reaching here is the point; touch the library so it is really loaded */
        ID3D12Debug *debug = NULL;
        if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug)))
            ID3D12Debug_Release(debug);
        return 0;
    }
    static const struct {
        const char *name;
        void (*run)(const char *argv0);
    } cases[] = {
        {"profile_fifo", test_profile_fifo}, {"profile_dev_zero", test_profile_dev_zero},
        {"profile_dev_urandom", test_profile_dev_urandom}, {"profile_directory", test_profile_directory},
        {"profile_too_large", test_profile_too_large}, {"profile_regular", test_profile_regular},
        {"trace_fifo", test_trace_fifo}, {"trace_regular", test_trace_regular},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            if (make_dir())
                cases[i].run("/proc/self/exe");
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_hostile_files CASE\n");
    return 2;
}
