/* d12cfg against hostile hives (issue 17 items 7.4-7.7; docs/reliability.md "Threat model"). The real tool, given
 * by path; one CTest test per case, each ending with `N passed, N failed`:
 *   size_limit        a hive the edit would take past the runtime's 16 MiB read cap is refused (exit 1, a message
 *                     naming the limit), the file unchanged; one just under it is edited (exit 0)
 *   concurrent        20 d12cfg runs at once, each setting another application's value: all 20 survive
 *   utf16le_no_bom, utf16be_bom, utf16be_no_bom
 *                     refused with "unsupported encoding", the file byte for byte unchanged (UTF-8 lines appended
 *                     to UTF-16 text before); utf16le_bom (regedit's) is edited and stays UTF-16LE throughout
 *   owner_kept        (root) a hive of another uid and gid, mode 0640, edited: owner, group and mode stay
 *   readonly_refused  a user who cannot write the hive (root's, 0644) in a directory they may write: refused, the file
 *                     still root's and unchanged (the rename made it theirs before); run as uid 65534 when root
 *   writable_in_place a user who may write another user's hive (root's, 0666): edited, and it stays root's */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static const char *g_cfg;
static char g_dir[64], g_err[8192];

static char *path_in(const char *name)
{
    static char paths[4][256];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 256, "%s/%s", g_dir, name);
    return p;
}

static bool write_bytes(const char *path, const void *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    bool ok = file && fwrite(bytes, 1, size, file) == size;
    if (file)
        fclose(file);
    return CHECK(ok);
}

static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    fseek(file, 0, SEEK_END);
    long n = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    *size = b ? fread(b, 1, (size_t)n, file) : 0;
    fclose(file);
    return b;
}

/* Drop `suppressions=FILE` from the sanitizer options variable `name`: another user may not be able to read a file in
 * the build tree (a clone in a 0700 folder), and the sanitizer then exits 66 before d12cfg runs. d12cfg is
 * single-threaded; it needs no suppressions. */
static void drop_suppressions(const char *name)
{
    const char *value = getenv(name);
    if (!value)
        return;
    char kept[1024] = "";
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", value);
    for (char *save = NULL, *item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save)) {
        if (strncmp(item, "suppressions=", 13) == 0)
            continue;
        size_t used = strlen(kept);
        snprintf(kept + used, sizeof kept - used, "%s%s", used ? ":" : "", item);
    }
    setenv(name, kept, 1);
}

/* d12cfg ARGS with D12RT_HKCU=hive, as `uid` (-1: ourselves); its stderr in g_err; its exit status. */
static int run_cfg(const char *hive, uid_t uid, const char *const *args)
{
    char err_path[256];
    snprintf(err_path, sizeof err_path, "%s/err.%d.txt", g_dir, (int)getpid());
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0)
            dup2(fd, 2);
        if (uid != (uid_t)-1 && (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0))
            _exit(99);
        if (uid != (uid_t)-1) {
            drop_suppressions("TSAN_OPTIONS");
            drop_suppressions("LSAN_OPTIONS");
        }
        setenv("D12RT_HKCU", hive, 1);
        const char *argv[8] = {g_cfg};
        for (int i = 0; args[i] && i < 6; i++)
            argv[i + 1] = args[i];
        execv(g_cfg, (char *const *)argv);
        _exit(98);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    size_t n = 0;
    unsigned char *e = read_bytes(err_path, &n);
    snprintf(g_err, sizeof g_err, "%.*s", (int)n, e ? (char *)e : "");
    free(e);
    unlink(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cfg(const char *hive, const char *app, const char *value)
{
    const char *args[] = {"drm", app, value, NULL};
    return run_cfg(hive, (uid_t)-1, args);
}

static bool unchanged(const char *path, const void *bytes, size_t size)
{
    size_t n = 0;
    unsigned char *now = read_bytes(path, &n);
    bool same = now && n == size && memcmp(now, bytes, size) == 0;
    free(now);
    return same;
}

#define HEADER "Windows Registry Editor Version 5.00\n\n"

/* ---- 7.4 ---- */

static void test_size_limit(void)
{
    const char *hive = path_in("user.reg");
    size_t size = (16u << 20) - 8; /* the edit adds a key and two values: past 16 MiB */
    char *text = malloc(size);
    memset(text, ' ', size);
    memcpy(text, HEADER ";", sizeof HEADER);
    text[size - 1] = '\n';
    if (!write_bytes(hive, text, size))
        return;
    CHECK_EQ_INT(cfg(hive, "Game", "on"), 1);
    if (!CHECK(strstr(g_err, "more than the 16 MiB the runtime reads") != NULL))
        fprintf(stderr, "    stderr: %s\n", g_err);
    CHECK(unchanged(hive, text, size));
    /* under the limit, with the edit: written */
    size = (16u << 20) - 4096;
    text[size - 1] = '\n';
    write_bytes(hive, text, size);
    CHECK_EQ_INT(cfg(hive, "Game", "on"), 0);
    size_t n = 0;
    unsigned char *now = read_bytes(hive, &n);
    CHECK(now && n > size && n <= (16u << 20) && memmem(now, n, "\\Game]", 6) != NULL);
    free(now);
    free(text);
}

/* ---- 7.5 ---- */

static void test_concurrent(void)
{
    const char *hive = path_in("user.reg");
    enum { RUNS = 20 };
    pid_t pids[RUNS];
    for (int i = 0; i < RUNS; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            char app[32];
            snprintf(app, sizeof app, "App%02d", i);
            _exit(cfg(hive, app, "on"));
        }
    }
    int ok = 0;
    for (int i = 0; i < RUNS; i++) {
        int status = -1;
        waitpid(pids[i], &status, 0);
        ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    CHECK_EQ_INT(ok, RUNS);
    size_t n = 0;
    unsigned char *text = read_bytes(hive, &n);
    int found = 0;
    for (int i = 0; text && i < RUNS; i++) {
        char key[64];
        snprintf(key, sizeof key, "\\App%02d]", i);
        found += memmem(text, n, key, strlen(key)) != NULL;
    }
    CHECK_EQ_INT(found, RUNS); /* 2 or 3 of 20 survived before */
    free(text);
}

/* ---- 7.6 ---- */

static size_t utf16(const char *ascii, bool big_endian, bool bom, unsigned char *out)
{
    size_t o = 0;
    if (bom) {
        out[o++] = big_endian ? 0xFE : 0xFF;
        out[o++] = big_endian ? 0xFF : 0xFE;
    }
    for (const char *c = ascii; *c; c++) {
        out[o++] = big_endian ? 0 : (unsigned char)*c;
        out[o++] = big_endian ? (unsigned char)*c : 0;
    }
    return o;
}

static const char k_utf16_text[] = HEADER "[HKEY_CURRENT_USER\\Software\\Other]\n\"Keep\"=dword:00000001\n";

static void refused_encoding(bool big_endian, bool bom)
{
    const char *hive = path_in("user.reg");
    unsigned char bytes[512];
    size_t size = utf16(k_utf16_text, big_endian, bom, bytes);
    if (!write_bytes(hive, bytes, size))
        return;
    CHECK_EQ_INT(cfg(hive, "Game", "on"), 1);
    if (!CHECK(strstr(g_err, "unsupported encoding") != NULL))
        fprintf(stderr, "    stderr: %s\n", g_err);
    CHECK(unchanged(hive, bytes, size));
}

static void test_utf16le_no_bom(void) { refused_encoding(false, false); }
static void test_utf16be_bom(void) { refused_encoding(true, true); }
static void test_utf16be_no_bom(void) { refused_encoding(true, false); }

static void test_utf16le_bom(void)
{
    const char *hive = path_in("user.reg");
    unsigned char bytes[512];
    size_t size = utf16(k_utf16_text, false, true, bytes);
    if (!write_bytes(hive, bytes, size))
        return;
    CHECK_EQ_INT(cfg(hive, "Game", "on"), 0);
    size_t n = 0;
    unsigned char *now = read_bytes(hive, &n);
    if (!CHECK(now && n > size && n % 2 == 0 && now[0] == 0xFF && now[1] == 0xFE))
        return;
    bool all_utf16 = true; /* every unit of this ASCII text has a zero high byte: no UTF-8 line was appended */
    for (size_t i = 2; i < n; i += 2)
        all_utf16 &= now[i] != 0 && now[i + 1] == 0;
    CHECK(all_utf16);
    unsigned char key[64];
    size_t key_size = utf16("\\Game]", false, false, key);
    CHECK(memmem(now, n, key, key_size) != NULL);
    free(now);
}

/* ---- 7.7 ---- */

static const char k_text[] = HEADER "[HKEY_CURRENT_USER\\Software\\Other]\n\"Keep\"=dword:00000001\n";

static void test_owner_kept(void)
{
    if (geteuid() != 0) {
        printf("not root: giving a file to another uid needs root; owner_kept is root's case\n");
        CHECK(true);
        return;
    }
    const char *hive = path_in("user.reg");
    write_bytes(hive, k_text, sizeof k_text - 1);
    CHECK_EQ_INT(chown(hive, 12345, 23456), 0);
    CHECK_EQ_INT(chmod(hive, 0640), 0);
    CHECK_EQ_INT(cfg(hive, "Game", "on"), 0);
    struct stat st;
    CHECK_EQ_INT(stat(hive, &st), 0);
    CHECK_EQ_INT(st.st_uid, 12345); /* 0 before: the temporary file root made */
    CHECK_EQ_INT(st.st_gid, 23456);
    CHECK_EQ_INT(st.st_mode & 07777, 0640);
    CHECK(!unchanged(hive, k_text, sizeof k_text - 1));
}

/* The directory is writable by everyone, so a rename would succeed: only the file's own permission may decide. As
 * root, the d12cfg run is uid 65534 (the binary copied where that user can run it); otherwise ourselves with the
 * file made read-only. */
static void setup_foreign(const char *hive, mode_t mode, uid_t *as, char *cfg_copy)
{
    CHECK_EQ_INT(chmod(g_dir, 0777), 0);
    write_bytes(hive, k_text, sizeof k_text - 1);
    *as = (uid_t)-1;
    if (geteuid() == 0) {
        *as = 65534;
        snprintf(cfg_copy, 256, "%s/d12cfg", g_dir);
        size_t n = 0;
        unsigned char *binary = read_bytes(g_cfg, &n);
        CHECK(binary && write_bytes(cfg_copy, binary, n));
        free(binary);
        CHECK_EQ_INT(chmod(cfg_copy, 0755), 0);
        g_cfg = cfg_copy;
        CHECK_EQ_INT(chmod(hive, mode), 0);
    } else {
        CHECK_EQ_INT(chmod(hive, mode & 0666 ? 0444 : mode), 0);
    }
}

static void test_readonly_refused(void)
{
    const char *hive = path_in("user.reg");
    uid_t as;
    static char copy[256];
    setup_foreign(hive, 0644, &as, copy);
    const char *args[] = {"drm", "Game", "on", NULL};
    CHECK_EQ_INT(run_cfg(hive, as, args), 1);
    if (!CHECK(strstr(g_err, "you cannot write this file") != NULL))
        fprintf(stderr, "    stderr: %s\n", g_err);
    struct stat st;
    CHECK_EQ_INT(stat(hive, &st), 0);
    CHECK_EQ_INT(st.st_uid, geteuid()); /* 65534 before: the rename gave the file to the user who ran d12cfg */
    CHECK(unchanged(hive, k_text, sizeof k_text - 1));
}

static void test_writable_in_place(void)
{
    if (geteuid() != 0) {
        printf("not root: another user's writable file needs root to set up\n");
        CHECK(true);
        return;
    }
    const char *hive = path_in("user.reg");
    uid_t as;
    static char copy[256];
    setup_foreign(hive, 0666, &as, copy);
    const char *args[] = {"drm", "Game", "on", NULL};
    CHECK_EQ_INT(run_cfg(hive, as, args), 0);
    struct stat st;
    CHECK_EQ_INT(stat(hive, &st), 0);
    CHECK_EQ_INT(st.st_uid, 0);
    CHECK_EQ_INT(st.st_mode & 07777, 0666);
    size_t n = 0;
    unsigned char *now = read_bytes(hive, &n);
    CHECK(now && memmem(now, n, "\\Game]", 6) != NULL && memmem(now, n, "\"Keep\"", 6) != NULL);
    free(now);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"size_limit", test_size_limit}, {"concurrent", test_concurrent},
        {"utf16le_no_bom", test_utf16le_no_bom}, {"utf16be_bom", test_utf16be_bom},
        {"utf16be_no_bom", test_utf16be_no_bom}, {"utf16le_bom", test_utf16le_bom},
        {"owner_kept", test_owner_kept}, {"readonly_refused", test_readonly_refused},
        {"writable_in_place", test_writable_in_place},
    };
    for (size_t i = 0; argc == 3 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            g_cfg = argv[2];
            snprintf(g_dir, sizeof g_dir, "/tmp/d12cfg-hostile-XXXXXX");
            if (!CHECK(mkdtemp(g_dir) != NULL))
                return d12test_finish();
            cases[i].run();
            char cmd[128];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
            if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", g_dir);
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_cfg_hostile CASE PATH-TO-D12CFG\n");
    return 2;
}
