/* The D12RT_DRED_DUMP file is written before the application can see the removal (issue 19 item 6): complete and
 * renamed into place before any call returns DXGI_ERROR_DEVICE_REMOVED/HUNG, before a fence reads UINT64_MAX and
 * before an event fires, whatever thread removed the device (here the GPU timeline, on a page fault); the folder is
 * created with its parents; the temporary file is never a name planted in advance (a symlink, a FIFO); a write that
 * cannot finish gives up with one message and the removal is surfaced anyway.
 * `test_dred_dump CASE` runs one case; CMake registers each. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "d12dred_report.h"
#include "gpu_harness.h"

#define REPEATS 25

static void set_dred_on(void)
{
    ID3D12DeviceRemovedExtendedDataSettings2 *s = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&s), S_OK))
        return;
    ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
}

static void enable_messages(void)
{
    ID3D12Debug7 *debug = NULL;
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK)) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
}

typedef enum watch { WATCH_REASON, WATCH_FENCE, WATCH_EVENT } watch;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Create a device, execute a draw that reads a never-mapped VA (the GPU timeline removes the device), signal a fence
 * behind it, and return as soon as the application can see the removal the way `how` looks. *seconds: how long
 * from ExecuteCommandLists until then. Returns whether the removal was seen (within 60 s). */
typedef struct watched {
    ID3D12Device *device;
    gpu_context ctx;
    int event;
} watched;

static watched g_watched = {NULL, {0}, -1};

/* What fault_and_watch made (the exit_* children exit without it, as the application under test does). */
static void release_watched(void)
{
    if (g_watched.event >= 0)
        close(g_watched.event);
    release_context(&g_watched.ctx);
    if (g_watched.device)
        RELEASE_LAST(g_watched.device);
    g_watched = (watched){NULL, {0}, -1};
}

static bool fault_and_watch(watch how, bool messages, double *seconds)
{
    set_dred_on();
    if (messages)
        enable_messages();
    ID3D12Device *device = g_watched.device = create_device(messages);
    gpu_context *c = &g_watched.ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, c))
        return false;
    gpu_context ctx = *c;
    D3D12_VERTEX_BUFFER_VIEW view = {0x00007F0000000000ull, 256, 16};
    ID3D12GraphicsCommandList_IASetVertexBuffers(ctx.list, 0, 1, &view);
    ID3D12GraphicsCommandList_DrawInstanced(ctx.list, 3, 1, 0, 0);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    int event = g_watched.event = how == WATCH_EVENT ? new_event() : -1;
    if (event >= 0)
        CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    double start = now_s();
    execute(ctx.queue, ctx.list);
    ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1);
    bool seen = false;
    while (!seen && now_s() - start < 60) {
        switch (how) {
        case WATCH_REASON: seen = FAILED(ID3D12Device_GetDeviceRemovedReason(device)); break;
        case WATCH_FENCE: seen = ID3D12Fence_GetCompletedValue(ctx.fence) == UINT64_MAX; break;
        case WATCH_EVENT: seen = fired(event, 100, NULL); break;
        }
    }
    *seconds = now_s() - start;
    return seen;
}

/* The entries of `dir` other than . and ..; the first one's name in `first`. */
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

/* The report at `path` is a whole, valid report of the page fault. */
static bool check_report(const char *path)
{
    d12dred_report *r = NULL;
    char error[512] = "";
    if (!CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0)) {
        fprintf(stderr, "    %s: %s\n", path, error);
        return false;
    }
    bool ok = CHECK_EQ_INT_RET(r->device_state, D3D12_DRED_DEVICE_STATE_PAGEFAULT);
    d12dred_report_free(r);
    return ok;
}

static void remove_tree(const char *dir)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "    could not remove %s\n", dir);
}

/* The application sees the removal and exits at once (_exit: no destructor, no device Release), REPEATS times:
 * every run leaves exactly its one complete report, no temporary file. */
static void exit_at_once(watch how, bool messages)
{
    char dir[] = "/tmp/d12dred_exit_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    unsigned whole = 0;
    for (int run = 0; run < REPEATS; run++) {
        pid_t child = fork();
        if (child == 0) {
            /* A fresh process that exits the moment it sees the removal, leaving its threads and objects as a real
             * application would: ThreadSanitizer must not call those leaks (they are the point of the test). */
            const char *tsan = getenv("TSAN_OPTIONS");
            char options[1024];
            snprintf(options, sizeof options, "%s%sreport_thread_leaks=0", tsan ? tsan : "", tsan ? ":" : "");
            setenv("TSAN_OPTIONS", options, 1);
            char mode[8];
            snprintf(mode, sizeof mode, "%d%d", (int)how, messages ? 1 : 0);
            execl("/proc/self/exe", "test_dred_dump", "exit_child", mode, (char *)NULL);
            _exit(127);
        }
        int status = 0;
        if (!CHECK(child > 0 && waitpid(child, &status, 0) == child) ||
            !CHECK_EQ_INT_RET(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0))
            break;
        char name[256] = "", expected[64];
        snprintf(expected, sizeof expected, "d12dred-%d-1.json", (int)child);
        unsigned n = entries(dir, name, sizeof name);
        bool one = CHECK_EQ_INT_RET(n, 1) && CHECK(strcmp(name, expected) == 0);
        if (!one)
            fprintf(stderr, "    run %d: %u entries, first '%s'\n", run, n, name);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (one && check_report(path))
            whole++;
        unlink(path);
        if (n > 1)
            remove_tree(dir), mkdir(dir, 0700);
    }
    CHECK_EQ_INT(whole, REPEATS);
    remove_tree(dir);
}

static void test_exit_reason(void) { exit_at_once(WATCH_REASON, false); }
static void test_exit_fence(void) { exit_at_once(WATCH_FENCE, false); }
static void test_exit_event(void) { exit_at_once(WATCH_EVENT, false); }
static void test_exit_reason_messages(void) { exit_at_once(WATCH_REASON, true); }
static void test_exit_fence_messages(void) { exit_at_once(WATCH_FENCE, true); }

/* D12RT_DRED_DUMP=/tmp/x/a/b/c with only /tmp/x existing: the folder is made with its parents. */
static void test_parents_created(void)
{
    char base[] = "/tmp/d12dred_parents_XXXXXX";
    if (!CHECK(mkdtemp(base) != NULL))
        return;
    char dir[256], path[512];
    snprintf(dir, sizeof dir, "%s/a/b/c", base);
    setenv("D12RT_DRED_DUMP", dir, 1);
    double seconds;
    CHECK(fault_and_watch(WATCH_REASON, false, &seconds));
    release_watched();
    snprintf(path, sizeof path, "%s/d12dred-%d-1.json", dir, (int)getpid());
    char name[256] = "";
    CHECK_EQ_INT(entries(dir, name, sizeof name), 1);
    check_report(path);
    remove_tree(base);
}

/* The names an attacker (or a stale run) could plant: the temporary name the runtime used to open with
 * fopen("wb") and the final name. */
static void planted_names(const char *dir, char *tmp, char *final, size_t size)
{
    snprintf(final, size, "%.200s/d12dred-%d-1.json", dir, (int)getpid());
    snprintf(tmp, size, "%.300s.%ld.tmp", final, (long)getpid());
}

/* Symlinks planted at both names point at a victim file: the removal never writes through them (the victim keeps
 * its bytes), the final name becomes a regular file holding the report. */
static void test_symlink_planted(void)
{
    char dir[] = "/tmp/d12dred_symlink_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    char victim[256], tmp[512], final[512];
    snprintf(victim, sizeof victim, "%s.victim", dir);
    FILE *f = fopen(victim, "w");
    if (!CHECK(f != NULL))
        return;
    fputs("precious\n", f);
    fclose(f);
    planted_names(dir, tmp, final, sizeof tmp);
    CHECK_EQ_INT(symlink(victim, tmp), 0);
    CHECK_EQ_INT(symlink(victim, final), 0);
    setenv("D12RT_DRED_DUMP", dir, 1);
    double seconds;
    CHECK(fault_and_watch(WATCH_REASON, false, &seconds));
    release_watched();
    char text[64] = "";
    f = fopen(victim, "r");
    if (CHECK(f != NULL)) {
        CHECK(fgets(text, sizeof text, f) != NULL);
        fclose(f);
    }
    CHECK_EQ_STR(text, "precious\n");
    struct stat st;
    CHECK(lstat(final, &st) == 0 && S_ISREG(st.st_mode));
    check_report(final);
    CHECK(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode)); /* left alone */
    unlink(victim);
    remove_tree(dir);
}

/* A FIFO planted at the old temporary name (nobody reads it): the removal neither blocks on it nor writes into it. */
static void test_fifo_planted(void)
{
    char dir[] = "/tmp/d12dred_fifo_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    char tmp[512], final[512];
    planted_names(dir, tmp, final, sizeof tmp);
    CHECK_EQ_INT(mkfifo(tmp, 0600), 0);
    setenv("D12RT_DRED_DUMP", dir, 1);
    double seconds = 0;
    CHECK(fault_and_watch(WATCH_REASON, false, &seconds));
    release_watched();
    CHECK(seconds < 30);
    check_report(final);
    struct stat st;
    CHECK(lstat(tmp, &st) == 0 && S_ISFIFO(st.st_mode));
    remove_tree(dir);
}

/* Run `child_case` of this program in a child with `preload` (or none) and stderr into `log`; its exit status. */
static int run_child(const char *child_case, const char *preload, const char *log)
{
    pid_t child = fork();
    if (child == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, 2);
        if (preload) {
            setenv("LD_PRELOAD", preload, 1);
            /* Under AddressSanitizer the preloaded (uninstrumented) module comes before the ASan runtime in the
             * library list, which ASan refuses by default; the order is harmless here (the module only wraps
             * fsync), so keep the sanitizer's other options and allow it. */
            const char *asan = getenv("ASAN_OPTIONS");
            char options[512];
            snprintf(options, sizeof options, "%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
            setenv("ASAN_OPTIONS", options, 1);
        }
        execl("/proc/self/exe", "test_dred_dump", child_case, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static unsigned count_lines_with(const char *log, const char *text)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[1024];
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, text) != NULL;
    fclose(f);
    return n;
}

/* The child of write_timeout: the dump's fsync sleeps a minute (slow_fsync.so); the removal must be seen anyway,
 * after the deadline and long before the minute. */
static void test_write_timeout_child(void)
{
    double seconds = 0;
    CHECK(fault_and_watch(WATCH_REASON, false, &seconds));
    fprintf(stderr, "seen after %.1f s\n", seconds);
    CHECK(seconds >= 4.0 && seconds < 30.0);
    release_watched();
}

/* A write that cannot finish within the deadline: one message, the removal surfaced anyway. */
static void test_write_timeout(void)
{
    char dir[] = "/tmp/d12dred_slow_XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    setenv("D12RT_DRED_DUMP", dir, 1);
    const char *preload = getenv("D12_TEST_SLOW_FSYNC");
    if (!CHECK(preload != NULL))
        return;
    char log[300];
    snprintf(log, sizeof log, "%s.log", dir);
    CHECK_EQ_INT(run_child("write_timeout_child", preload, log), 0);
    CHECK_EQ_INT(count_lines_with(log, "d12rt: D12RT_DRED_DUMP: writing "), 1);
    CHECK_EQ_INT(count_lines_with(log, "did not finish within 5000 ms"), 1);
    unlink(log);
    remove_tree(dir);
}

/* The negative: D12RT_DRED_DUMP names a regular file. One message, the removal surfaced, the file untouched. */
static void test_not_a_directory_child(void)
{
    double seconds = 0;
    CHECK(fault_and_watch(WATCH_REASON, false, &seconds));
    release_watched();
}

static void test_not_a_directory(void)
{
    char file[] = "/tmp/d12dred_file_XXXXXX";
    int fd = mkstemp(file);
    if (!CHECK(fd >= 0))
        return;
    CHECK_EQ_INT(write(fd, "x", 1), 1);
    close(fd);
    setenv("D12RT_DRED_DUMP", file, 1);
    char log[300];
    snprintf(log, sizeof log, "%s.log", file);
    CHECK_EQ_INT(run_child("not_a_directory_child", NULL, log), 0);
    CHECK_EQ_INT(count_lines_with(log, "d12rt: D12RT_DRED_DUMP: cannot write"), 1);
    CHECK_EQ_INT(count_lines_with(log, "Not a directory"), 1);
    struct stat st;
    CHECK(stat(file, &st) == 0 && st.st_size == 1);
    unlink(log);
    unlink(file);
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"exit_reason", test_exit_reason},
    {"exit_fence", test_exit_fence},
    {"exit_event", test_exit_event},
    {"exit_reason_messages", test_exit_reason_messages},
    {"exit_fence_messages", test_exit_fence_messages},
    {"parents_created", test_parents_created},
    {"symlink_planted", test_symlink_planted},
    {"fifo_planted", test_fifo_planted},
    {"write_timeout", test_write_timeout},
    {"write_timeout_child", test_write_timeout_child},
    {"not_a_directory", test_not_a_directory},
    {"not_a_directory_child", test_not_a_directory_child},
};

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "exit_child") == 0) { /* exit_at_once's child: sees the removal, exits at once */
        double seconds;
        _exit(fault_and_watch((watch)(argv[2][0] - '0'), argv[2][1] == '1', &seconds) ? 0 : 3);
    }
    for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_dred_dump CASE\n");
    return 2;
}
