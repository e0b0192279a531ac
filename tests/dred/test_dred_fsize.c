/* A D12RT_DRED_DUMP report under RLIMIT_FSIZE (issue 29: the write past the limit raised SIGXFSZ, which killed the
 * application and left the temporary file). Now: the removal is reported, one stderr line says the file would exceed
 * the limit, the folder is left empty (no report, no temporary file), no SIGXFSZ is left pending, and the
 * application's own handler, mask and pending signal are as it left them.
 *   test_dred_fsize default   SIGXFSZ at its default action (terminate): the process lives
 *   test_dred_fsize handler   the application's handler is installed: never run by the dump, still installed
 *   test_dred_fsize pending   the application blocks SIGXFSZ and has one pending: still pending, mask unchanged
 *   test_dred_fsize fits      the positive pair: a limit the report fits under, the report written whole */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <d12rt/d3d12_ext.h>

#include "gpu_harness.h"

static volatile sig_atomic_t g_handled;

static void on_sigxfsz(int signal)
{
    (void)signal;
    g_handled++;
}

static unsigned entries(const char *dir, char *first, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n++ == 0 && first)
            snprintf(first, size, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

static unsigned count_lines_with(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, needle);
        n += hit && hit < line + length;
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* Removes a device through ID3D12Device5::RemoveDevice with the soft file size limit at `limit` bytes, stderr going
 * to a pipe (a file would be under the limit too). What was written on stderr lands in `text`. */
static void remove_under_limit(rlim_t limit, char *text, size_t size)
{
    int pipe_fds[2];
    if (!CHECK(pipe(pipe_fds) == 0))
        return;
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    fflush(stderr);
    int saved_stderr = dup(STDERR_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit lowered = {limit, old.rlim_max};
    CHECK(setrlimit(RLIMIT_FSIZE, &lowered) == 0);
    ID3D12Device *device = create_device(false);
    ID3D12Device5 *device5 = NULL;
    if (device && CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12Device5, (void **)&device5), S_OK)) {
        ID3D12Device5_RemoveDevice(device5);
        CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_REMOVED);
        ID3D12Device5_Release(device5);
    }
    if (device)
        RELEASE_LAST(device);
    setrlimit(RLIMIT_FSIZE, &old);
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    close(pipe_fds[1]);
    ssize_t n = read(pipe_fds[0], text, size - 1);
    text[n > 0 ? n : 0] = '\0';
    close(pipe_fds[0]);
    fputs(text, stderr);
}

static bool sigxfsz_pending(void)
{
    sigset_t pending;
    return sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

typedef enum { DEFAULT, HANDLER, PENDING, FITS } mode;

static void run(mode how)
{
    char dir[] = "/tmp/d12dred_fsize_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    struct sigaction handler = {0};
    handler.sa_handler = on_sigxfsz;
    if (how == HANDLER)
        CHECK(sigaction(SIGXFSZ, &handler, NULL) == 0);
    sigset_t xfsz, mask_before, mask_after;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    if (how == PENDING) {
        pthread_sigmask(SIG_BLOCK, &xfsz, NULL);
        raise(SIGXFSZ); /* the application's own, pending on this thread */
        CHECK(sigxfsz_pending());
    }
    pthread_sigmask(SIG_BLOCK, NULL, &mask_before);
    static char text[8192];
    remove_under_limit(how == FITS ? 16 << 20 : 512, text, sizeof text);
    pthread_sigmask(SIG_BLOCK, NULL, &mask_after);
    CHECK(sigismember(&mask_after, SIGXFSZ) == sigismember(&mask_before, SIGXFSZ)); /* the mask as it was */
    char first[256] = "";
    unsigned n = entries(dir, first, sizeof first);
    if (how == FITS) {
        CHECK_EQ_INT(n, 1);
        CHECK(strncmp(first, "d12dred-", 8) == 0 && strstr(first, ".tmp") == NULL);
        CHECK_EQ_INT(count_lines_with(text, "D12RT_DRED_DUMP"), 0);
    } else {
        if (!CHECK_EQ_INT_RET(n, 0)) /* no report, no temporary file */
            fprintf(stderr, "    left behind: %s\n", first);
        CHECK_EQ_INT(count_lines_with(text, "D12RT_DRED_DUMP"), 1);
        CHECK(strstr(text, "would exceed the process's file size limit (RLIMIT_FSIZE); nothing was left behind\n"));
    }
    if (how == PENDING) {
        CHECK(sigxfsz_pending()); /* the application's signal is still there for it */
        const struct timespec now = {0, 0};
        CHECK_EQ_INT(sigtimedwait(&xfsz, NULL, &now), SIGXFSZ);
    }
    CHECK(!sigxfsz_pending()); /* nothing left for the application */
    if (how == HANDLER) {
        CHECK_EQ_INT(g_handled, 0); /* the dump's own SIGXFSZ never reached the application's handler */
        struct sigaction now;
        CHECK(sigaction(SIGXFSZ, NULL, &now) == 0 && now.sa_handler == on_sigxfsz);
    }
    char path[512];
    for (int i = 0; how == FITS && i < 1 && snprintf(path, sizeof path, "%s/%s", dir, first) > 0; i++)
        unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"default", "handler", "pending", "fits"};
    for (int i = 0; argc == 2 && i < 4; i++) {
        if (strcmp(argv[1], names[i]) == 0) {
            run((mode)i);
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_fsize default|handler|pending|fits\n");
    return 2;
}
