/* ctest lockrank.driver_call_*: the check at every driver entry point (runtime/ddi_trace.c, issue 10 item 4): no
 * ranked runtime lock is held while the driver runs. runtime/driver.c, ddi_trace.c and lockrank.c are compiled here
 * with assertions on, so the check is tested in every preset; the driver is the built-in reference driver.
 *   driver_call_unlocked   pfnGetCaps through the runtime's (wrapped) adapter table with no lock held: answered
 *   driver_call_locked     the same call holding a rank-3 (queue) lock: a forked child aborts naming the entry point */
#undef NDEBUG
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "harness.h"
#include "lockrank.h"

static HRESULT feature_levels(d12_driver_adapter *adapter)
{
    D3D_FEATURE_LEVEL minimum = D3D_FEATURE_LEVEL_11_0;
    D3D12_FEATURE_DATA_FEATURE_LEVELS levels = {1, &minimum, 0};
    return d12__driver_get_feature_data(adapter, D3D12_FEATURE_FEATURE_LEVELS, &levels, sizeof levels);
}

static void unlocked(d12_driver_adapter *adapter)
{
    CHECK_EQ_INT(feature_levels(adapter), S_OK);
}

static void locked(d12_driver_adapter *adapter)
{
    int pipe_fd[2];
    CHECK_EQ_INT(pipe(pipe_fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fd[1], STDERR_FILENO);
        static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
        d12__lock(&queue_lock, D12_RANK_QUEUE);
        feature_levels(adapter); /* aborts */
        _exit(0);
    }
    close(pipe_fd[1]);
    char text[512] = {0};
    ssize_t n = read(pipe_fd[0], text, sizeof text - 1);
    (void)n;
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(text, "pfnGetCaps called with a rank-3 runtime lock held") != NULL);
    if (!strstr(text, "pfnGetCaps"))
        fprintf(stderr, "    child said: %s\n", text);
}

int main(int argc, char **argv)
{
    d12_driver_adapter *adapter = NULL;
    if (argc != 2 || FAILED(d12__driver_adapter_open(NULL, &adapter))) {
        fprintf(stderr, "usage: test_driver_call unlocked|locked\n");
        return 2;
    }
    if (strcmp(argv[1], "unlocked") == 0)
        unlocked(adapter);
    else if (strcmp(argv[1], "locked") == 0)
        locked(adapter);
    d12__driver_adapter_close(adapter);
    return d12test_finish();
}
