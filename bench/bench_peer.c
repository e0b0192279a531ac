/* d12bench --peer: the peer program (bench/peer/peer.c) built against d12rt and against vkd3d, run as two worker
 * processes whose rows d12bench interleaves like its own: each repetition asks each worker in turn to time N
 * operations of a row. Each d12rt row's baseline is the same row on vkd3d, so the ratio column is d12rt / vkd3d. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "peer_rows.h"

typedef struct peer_worker {
    const char *implementation;
    const char *path;
    pid_t pid;
    int to_worker, from_worker;
    char description[PEER_DESCRIPTION_SIZE]; /* what it runs on, from the worker (peer_describe.c) */
    char what[2][PEER_DESCRIPTION_SIZE + 64]; /* the rows' descriptions: [0] baseline, [1] with a ratio */
} peer_worker;

#ifdef D12BENCH_PEER_VKD3D
static peer_worker vkd3d = {"vkd3d", D12BENCH_PEER_VKD3D, -1, -1, -1, "", {"", ""}};
#endif
static peer_worker d12rt = {"d12rt", D12BENCH_PEER_D12RT, -1, -1, -1, "", {"", ""}};

typedef struct peer_row_context {
    peer_worker *worker;
    int row;
} peer_row_context;

static peer_row_context contexts[2][PEER_ROW_COUNT];
static char names[2][PEER_ROW_COUNT][96];

static bool start(peer_worker *w)
{
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0)
        return false;
    fflush(NULL);
    w->pid = fork();
    if (w->pid < 0)
        return false;
    if (w->pid == 0) {
        dup2(to[0], STDIN_FILENO);
        dup2(from[1], STDOUT_FILENO);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        /* Both workers over the same Vulkan ICD: the caller's choice (VK_DRIVER_FILES or VK_ICD_FILENAMES), else
         * Mesa's lavapipe (the software Vulkan driver) when it is installed. The rows' descriptions name the
         * device each side opened (bench_peer_setup warns when they differ). */
        static const char lavapipe[] = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
        if (getenv("VK_ICD_FILENAMES") == NULL && getenv("VK_DRIVER_FILES") == NULL && access(lavapipe, R_OK) == 0)
            setenv("VK_ICD_FILENAMES", lavapipe, 1);
        setenv("XDG_RUNTIME_DIR", "/tmp", 0); /* the loader warns without it */
        setenv("VKD3D_DEBUG", "none", 0);
        setenv("VKD3D_SHADER_DEBUG", "none", 0);
        execl(w->path, w->path, "--worker", (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    w->to_worker = to[1];
    w->from_worker = from[0];
    double ready = -1.0;
    if (read(w->from_worker, &ready, sizeof ready) != sizeof ready || ready <= 0)
        return false;
    size_t got = 0;
    while (got < sizeof w->description) {
        ssize_t n = read(w->from_worker, w->description + got, sizeof w->description - got);
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    w->description[sizeof w->description - 1] = '\0';
    return true;
}

/* The device part of a description ("... on Vulkan device '...'"), or "" when it names none. */
static const char *device_of(const peer_worker *w)
{
    const char *at = strstr(w->description, "Vulkan device '");
    return at ? at : "";
}

static void describe_rows(peer_worker *w)
{
    snprintf(w->what[0], sizeof w->what[0], "the peer program on %.255s (baseline)", w->description);
    snprintf(w->what[1], sizeof w->what[1], "the same program on %s (ratio: %s / vkd3d)", w->description,
             w->implementation);
}

static double run_peer_row(void *context, uint64_t iterations)
{
    peer_row_context *c = context;
    peer_request request = {c->row, iterations};
    double ns = -1.0;
    if (write(c->worker->to_worker, &request, sizeof request) != sizeof request ||
        read(c->worker->from_worker, &ns, sizeof ns) != sizeof ns || ns < 0) {
        fprintf(stderr, "d12bench: the %s peer worker failed on row '%s'\n", c->worker->implementation,
                peer_row_names[c->row]);
        exit(2);
    }
    return ns;
}

/* Add row r of one side; a d12rt row's baseline is the vkd3d row added just before it (-1: none). */
static int add_row_of(int side, peer_worker *w, int r, int baseline)
{
    contexts[side][r] = (peer_row_context){w, r};
    snprintf(names[side][r], sizeof names[side][r], "%s: %s", w->implementation, peer_row_names[r]);
    int index = bench_add_timed_row("peer", names[side][r], w->what[side], run_peer_row, &contexts[side][r], baseline);
    if (r == PEER_COPY_THROUGHPUT)
        bench_rows[index].bytes_per_op = (double)PEER_COPY_BYTES;
    return index;
}

int bench_peer_row_index[2][PEER_ROW_COUNT]; /* [0] vkd3d, [1] d12rt; -1 when not added */

bool bench_peer_setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < PEER_ROW_COUNT; r++)
            bench_peer_row_index[s][r] = -1;
#ifdef D12BENCH_PEER_VKD3D
    if (!start(&vkd3d)) {
        bench_fail_setup("the vkd3d peer worker (" D12BENCH_PEER_VKD3D " --worker) did not start");
        return false;
    }
    if (!start(&d12rt)) {
        bench_fail_setup("the d12rt peer worker (" D12BENCH_PEER_D12RT " --worker) did not start");
        return false;
    }
    describe_rows(&vkd3d);
    describe_rows(&d12rt);
    if (*device_of(&d12rt) && strcmp(device_of(&d12rt), device_of(&vkd3d)) != 0)
        fprintf(stderr, "d12bench --peer: the two sides run on different Vulkan devices:\n  %s\n  %s\n",
                vkd3d.description, d12rt.description);
    for (int r = 0; r < PEER_ROW_COUNT; r++) { /* side by side: each vkd3d row, then the same row on d12rt */
        bench_peer_row_index[0][r] = add_row_of(0, &vkd3d, r, -1);
        bench_peer_row_index[1][r] = add_row_of(1, &d12rt, r, bench_peer_row_index[0][r]);
    }
    return true;
#else
    fprintf(stderr, "d12bench --peer: the vkd3d peer was not built (CMake found no libvkd3d-utils: apt-get install "
                    "libvkd3d-dev mesa-vulkan-drivers and reconfigure); only the d12rt side runs\n");
    if (!start(&d12rt)) {
        bench_fail_setup("the d12rt peer worker did not start");
        return false;
    }
    describe_rows(&d12rt);
    for (int r = 0; r < PEER_ROW_COUNT; r++)
        bench_peer_row_index[1][r] = add_row_of(1, &d12rt, r, -1);
    return false;
#endif
}

static void stop(peer_worker *w)
{
    if (w->pid <= 0)
        return;
    peer_request quit = {-1, 0};
    if (write(w->to_worker, &quit, sizeof quit) != sizeof quit)
        kill(w->pid, SIGTERM);
    close(w->to_worker);
    close(w->from_worker);
    waitpid(w->pid, NULL, 0);
    w->pid = -1;
}

void bench_peer_teardown(void)
{
#ifdef D12BENCH_PEER_VKD3D
    stop(&vkd3d);
#endif
    stop(&d12rt);
}
