/* ctest lockrank.<case>: the debug-build lock-order check (runtime/lockrank.h), compiled here with assertions on in
 * every preset. `ordered` takes ranks inward and in sequence (allowed); `inverted` takes a lower rank while holding
 * a higher one, which must abort with the "lock order violated" line; `same_rank` takes two locks of one rank at
 * once, which is a violation too. The violations run in a forked child whose end and stderr the test checks. */
#undef NDEBUG
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "lockrank.h"

static pthread_mutex_t children = PTHREAD_MUTEX_INITIALIZER, queue = PTHREAD_MUTEX_INITIALIZER,
                       fence = PTHREAD_MUTEX_INITIALIZER, table = PTHREAD_MUTEX_INITIALIZER;

static void ordered(void)
{
    d12__lock(&children, D12_RANK_CHILDREN);
    d12__lock(&queue, D12_RANK_QUEUE);
    d12__lock(&table, D12_RANK_OBJTABLE);
    d12__unlock(&table, D12_RANK_OBJTABLE);
    d12__unlock(&queue, D12_RANK_QUEUE);
    d12__lock(&fence, D12_RANK_FENCE); /* the queue's rank again, once the queue lock is gone */
    d12__unlock(&fence, D12_RANK_FENCE);
    d12__unlock(&children, D12_RANK_CHILDREN);
    d12__lock(&table, D12_RANK_OBJTABLE); /* nothing held any more: any rank */
    d12__unlock(&table, D12_RANK_OBJTABLE);
    CHECK(true);
}

static void inverted(void)
{
    d12__lock(&table, D12_RANK_OBJTABLE);
    d12__lock(&queue, D12_RANK_QUEUE); /* aborts */
}

static void same_rank(void)
{
    d12__lock(&queue, D12_RANK_QUEUE);
    d12__lock(&fence, D12_RANK_FENCE); /* aborts: queue and fence locks are never held together */
}

/* Run `violation` in a child: it must die of SIGABRT after one "lock order violated" line on stderr. */
static void expect_abort(void (*violation)(void))
{
    int err[2];
    if (!CHECK(pipe(err) == 0))
        return;
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        dup2(err[1], 2);
        violation();
        _exit(0); /* not reached when the check works */
    }
    close(err[1]);
    char text[512] = {0};
    size_t length = 0;
    ssize_t got;
    while (length < sizeof text - 1 && (got = read(err[0], text + length, sizeof text - 1 - length)) > 0)
        length += (size_t)got;
    close(err[0]);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK(strstr(text, "d12rt: lock order violated: taking a rank-") != NULL);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (strcmp(which, "ordered") == 0)
        ordered();
    else if (strcmp(which, "inverted") == 0)
        expect_abort(inverted);
    else if (strcmp(which, "same_rank") == 0)
        expect_abort(same_rank);
    else
        CHECK(!"unknown case");
    return d12test_finish();
}
