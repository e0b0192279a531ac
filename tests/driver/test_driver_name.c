/* D12RT_DRIVER=<name> (a value without a '/'; docs/drivers.md "Choosing a driver"), through libd12rt.so itself: the
 * test copies libd12rt.so into a fresh directory T and the reference driver under a name made for this run into
 * T/d12rt/ and/or T/, dlopen()s T's libd12rt.so (this program links no d12rt) and creates a device.
 *
 *   subdir        T/d12rt/libd12rt_<name>.so is the driver
 *   beside        T/libd12rt_<name>.so (beside libd12rt.so) is the driver
 *   subdir_first  both exist: T/d12rt/ wins, the other is never loaded
 *   unknown       neither exists and nothing of that name is on the library search path: E_FAIL and the line
 *                 "d12rt: D12RT_DRIVER=<name>: no driver named <name>: no T/d12rt/libd12rt_<name>.so, no
 *                 T/libd12rt_<name>.so, and not on the library search path: <dlerror>"
 *   search_path   D12RT_DRIVER=libd12_refdrv.so, a file name found on LD_LIBRARY_PATH (what a value without a '/'
 *                 meant before driver names): still the driver
 *
 * LIBD12RT_SO and REFDRV_SO are the built files, given by path. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "harness.h"

/* IID_ID3D12Device, {189819f1-1db6-4b57-be54-1821339b85f7} (d3d12.h). */
static const GUID k_iid_device = {0x189819f1, 0x1db6, 0x4b57, {0xbe, 0x54, 0x18, 0x21, 0x33, 0x9b, 0x85, 0xf7}};

typedef HRESULT(WINAPI *create_device_fn)(IUnknown *, D3D_FEATURE_LEVEL, REFIID, void **);

static char g_dir[256], g_name[64];

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[65536];
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    int ok = in >= 0 && out >= 0 && n == 0;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return ok;
}

static void path_in(char *out, size_t size, const char *sub)
{
    snprintf(out, size, "%s/%s", g_dir, sub);
}

/* T with libd12rt.so.0 in it; the driver name for this run (never one that exists anywhere else). */
static void make_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/d12rt-name-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    snprintf(g_name, sizeof g_name, "t%ld", (long)getpid());
    char path[512];
    path_in(path, sizeof path, "d12rt");
    CHECK(mkdir(path, 0755) == 0);
    path_in(path, sizeof path, "libd12rt.so.0");
    CHECK(copy_file(LIBD12RT_SO, path));
}

static void install_driver(const char *sub)
{
    char file[128], path[512];
    snprintf(file, sizeof file, "%s/libd12rt_%s.so", sub, g_name);
    path_in(path, sizeof path, file);
    CHECK(copy_file(REFDRV_SO, path));
}

static int loaded(const char *sub)
{
    char file[128], path[512];
    snprintf(file, sizeof file, "%s/libd12rt_%s.so", sub, g_name);
    path_in(path, sizeof path, file);
    void *library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (library)
        dlclose(library); /* drops only the reference NOLOAD added */
    return library != NULL;
}

/* Creates a device through T's libd12rt.so with D12RT_DRIVER=value; stderr's text into *text (caller frees). */
static HRESULT create_device(const char *value, char **text)
{
    setenv("D12RT_DRIVER", value, 1);
    char path[512];
    path_in(path, sizeof path, "libd12rt.so.0");
    void *runtime = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(runtime != NULL);
    if (!runtime) {
        fprintf(stderr, "%s\n", dlerror());
        return E_UNEXPECTED;
    }
    create_device_fn create = (create_device_fn)dlsym(runtime, "D3D12CreateDevice");
    CHECK(create != NULL);
    char captured_path[] = "/tmp/d12rt-name-stderr-XXXXXX";
    int captured = mkstemp(captured_path), saved = dup(2);
    fflush(stderr);
    dup2(captured, 2);
    ID3D12Device *device = NULL;
    HRESULT hr = create ? create(NULL, D3D_FEATURE_LEVEL_11_0, &k_iid_device, (void **)&device) : E_UNEXPECTED;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *text = calloc(1, 4096);
    ssize_t got = pread(captured, *text, 4095, 0);
    (void)got;
    close(captured);
    unlink(captured_path);
    if (device)
        device->lpVtbl->Release(device);
    return hr;
}

static void cleanup(void)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
    CHECK(system(command) == 0);
}

static void case_subdir(void)
{
    make_dir();
    install_driver("d12rt");
    char *text = NULL;
    CHECK_EQ_INT(create_device(g_name, &text), S_OK);
    CHECK(loaded("d12rt"));
    CHECK_EQ_STR(text, "");
    free(text);
    cleanup();
}

static void case_beside(void)
{
    make_dir();
    install_driver(".");
    char *text = NULL;
    CHECK_EQ_INT(create_device(g_name, &text), S_OK);
    CHECK(loaded("."));
    CHECK(!loaded("d12rt"));
    CHECK_EQ_STR(text, "");
    free(text);
    cleanup();
}

static void case_subdir_first(void)
{
    make_dir();
    install_driver("d12rt");
    install_driver(".");
    char *text = NULL;
    CHECK_EQ_INT(create_device(g_name, &text), S_OK);
    CHECK(loaded("d12rt"));
    CHECK(!loaded("."));
    free(text);
    cleanup();
}

static void case_unknown(void)
{
    make_dir();
    char *text = NULL, expected[2048];
    CHECK_EQ_INT(create_device(g_name, &text), E_FAIL);
    snprintf(expected, sizeof expected,
             "d12rt: D12RT_DRIVER=%s: no driver named %s: no %s/d12rt/libd12rt_%s.so, no %s/libd12rt_%s.so, and not "
             "on the library search path: %s: cannot open shared object file: No such file or directory\n",
             g_name, g_name, g_dir, g_name, g_dir, g_name, g_name);
    CHECK_EQ_STR(text, expected);
    free(text);
    cleanup();
}

static void case_search_path(void)
{
    make_dir();
    char *text = NULL;
    CHECK_EQ_INT(create_device("libd12_refdrv.so", &text), S_OK);
    CHECK_EQ_STR(text, "");
    void *library = dlopen("libd12_refdrv.so", RTLD_NOW | RTLD_NOLOAD);
    CHECK(library != NULL);
    if (library)
        dlclose(library);
    free(text);
    cleanup();
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"subdir", case_subdir}, {"beside", case_beside}, {"subdir_first", case_subdir_first},
    {"unknown", case_unknown}, {"search_path", case_search_path},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_driver_name CASE (unknown case)\n");
    return 2;
}
