/* Driver-message pairs and filters at scale (issue 29: a hive's pairs were matched by a linear search per line, so
 * 32 000 pairs took D3D12CreateDevice 58 s and `d12cfg show` / `drm-clear` 12 s at 16 000; a 10^6-pair filter pushed
 * by the application cost 2.5 ms a denied message, a linear scan under the InfoQueue lock). Sizes at which the old
 * O(N^2) / O(N) work takes minutes (and so ctest's TIMEOUT fails the case); now O(N) to read, O(log N) to look up.
 * Every case also checks the answers (which pairs pass), not only that it finished.
 *   test_drm_v2_scale registry_pairs   a hive of 150 000 pairs after a [-KEY] that removes 50 000 earlier ones
 *   test_drm_v2_scale d12cfg_pairs D12CFG   `d12cfg show` lists them all, `drm-clear` removes them all
 *   test_drm_v2_scale filter_million   a pushed filter of 10^6 denied pairs, 100 000 denied reports */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

#define VENDOR 0x1414u /* the reference driver's */
#define LATE_PAIRS 150000u
#define EARLY_PAIRS 50000u
#define EARLY_BASE 0x1000000ull
#define APP_KEY "HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\Direct3D12\\test_drm_v2"

static HRESULT (*shim_report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);

static HRESULT report(UINT64 id, const char *text)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {id, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, 0xFFFFFFFFu};
    return shim_report(&m);
}

static ID3D12InfoQueue2 *open_device(ID3D12Device **device)
{
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return NULL;
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)device), S_OK);
    void *shim = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    *(void **)&shim_report = shim ? dlsym(shim, "d12_drmshim_report") : NULL;
    ID3D12InfoQueue2 *iq = NULL;
    if (*device && CHECK(shim_report != NULL))
        CHECK_EQ_INT(ID3D12Device_QueryInterface(*device, &IID_ID3D12InfoQueue2, (void **)&iq), S_OK);
    if (iq) {
        ID3D12InfoQueue2_SetMuteDebugOutput(iq, TRUE);
        CHECK_EQ_INT(ID3D12InfoQueue2_SetMessageCountLimit(iq, UINT64_MAX), S_OK); /* the counts below are exact */
    }
    return iq;
}

/* Reports `count` messages with ids first, first + step, ...; how many were stored. */
static UINT64 stored_of(ID3D12InfoQueue2 *iq, UINT64 first, UINT64 step, unsigned count)
{
    UINT64 before = ID3D12InfoQueue2_GetNumStoredMessages(iq);
    for (unsigned i = 0; i < count; i++)
        CHECK_EQ_INT(report(first + i * step, "scale"), S_OK);
    return ID3D12InfoQueue2_GetNumStoredMessages(iq) - before;
}

/* The hive: EARLY_PAIRS pairs, the app's key deleted, then LATE_PAIRS pairs denying the even ids 0, 2, 4, ... */
static bool write_hive(char *path, size_t size)
{
    snprintf(path, size, "/tmp/d12_pairs_XXXXXX");
    int fd = mkstemp(path);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!CHECK(file != NULL))
        return false;
    fprintf(file, "Windows Registry Editor Version 5.00\n\n[" APP_KEY "]\n");
    for (unsigned i = 0; i < EARLY_PAIRS; i++)
        fprintf(file, "\"DriverMessageDeny:%X:%llX\"=dword:00000001\n", VENDOR, EARLY_BASE + i);
    fprintf(file, "\n[-" APP_KEY "]\n\n[" APP_KEY "]\n");
    for (unsigned i = 0; i < LATE_PAIRS; i++)
        fprintf(file, "\"DriverMessageDeny:%X:%llX\"=dword:00000001\n", VENDOR, 2ull * i);
    return CHECK(fclose(file) == 0);
}

static void test_registry_pairs(void)
{
    char path[64];
    if (!write_hive(path, sizeof path))
        return;
    setenv("D12RT_HKCU", path, 1);
    ID3D12Device *device = NULL;
    ID3D12InfoQueue2 *iq = open_device(&device);
    if (iq) {
        CHECK_EQ_INT(stored_of(iq, 0, 2 * (LATE_PAIRS / 1000), 1000), 0); /* denied, spread over the list */
        CHECK_EQ_INT(stored_of(iq, 2ull * (LATE_PAIRS - 1), 1, 1), 0);   /* the last one */
        CHECK_EQ_INT(stored_of(iq, 1, 2 * (LATE_PAIRS / 1000), 1000), 1000); /* odd ids pass */
        CHECK_EQ_INT(stored_of(iq, EARLY_BASE, EARLY_PAIRS / 100, 100), 100); /* removed by [-KEY]: pass */
        ID3D12InfoQueue2_Release(iq);
    }
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    unlink(path);
}

/* Lines of `command`'s output that start with `prefix`. */
static unsigned lines_starting(const char *command, const char *prefix)
{
    FILE *pipe = popen(command, "r");
    if (!CHECK(pipe != NULL))
        return 0;
    static char line[512];
    unsigned n = 0;
    while (fgets(line, sizeof line, pipe))
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    CHECK_EQ_INT(pclose(pipe), 0);
    return n;
}

static void test_d12cfg_pairs(const char *d12cfg)
{
    char path[64], command[512];
    if (!write_hive(path, sizeof path))
        return;
    setenv("D12RT_HKCU", path, 1);
    snprintf(command, sizeof command, "'%s' show test_drm_v2", d12cfg);
    CHECK_EQ_INT(lines_starting(command, "driver message denied: "), LATE_PAIRS);
    snprintf(command, sizeof command, "'%s' drm-clear test_drm_v2", d12cfg);
    CHECK_EQ_INT(system(command), 0);
    snprintf(command, sizeof command, "'%s' show test_drm_v2", d12cfg);
    CHECK_EQ_INT(lines_starting(command, "driver message denied: "), 0);
    unlink(path);
    snprintf(command, sizeof command, "%s.lock", path);
    unlink(command);
}

/* A 10^6-pair deny filter (in no particular order) and an allow-everything-else: 100 000 denied reports. */
static void test_filter_million(void)
{
    enum { PAIRS = 1000000 };
    D3D12_DRIVER_MESSAGE_IDENTITY *deny = malloc(PAIRS * sizeof *deny);
    if (!CHECK(deny != NULL))
        return;
    for (UINT i = 0; i < PAIRS; i++) /* a permutation of the even ids below 2*PAIRS */
        deny[i] = (D3D12_DRIVER_MESSAGE_IDENTITY){VENDOR, 2ull * ((i * 7919ull) % PAIRS)};
    ID3D12Device *device = NULL;
    ID3D12InfoQueue2 *iq = open_device(&device);
    if (iq) {
        D3D12_DRIVER_MESSAGE_FILTER filter = {0, NULL, PAIRS, deny};
        CHECK_EQ_INT(ID3D12InfoQueue2_PushDriverMessageFilter(iq, &filter), S_OK);
        deny[0].VendorMessageId = 1; /* copied at push: the application's array is its own again */
        CHECK_EQ_INT(stored_of(iq, 0, 20, 100000), 0);
        CHECK_EQ_INT(stored_of(iq, 2ull * (PAIRS - 1), 1, 1), 0);
        CHECK_EQ_INT(stored_of(iq, 1, 2000, 1000), 1000);
        CHECK_EQ_INT(stored_of(iq, 2ull * PAIRS, 2, 10), 10); /* past the list */
        ID3D12InfoQueue2_PopDriverMessageFilter(iq);
        CHECK_EQ_INT(stored_of(iq, 0, 20, 100), 100);
        ID3D12InfoQueue2_Release(iq);
    }
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    free(deny);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "registry_pairs") == 0)
        test_registry_pairs();
    else if (argc == 3 && strcmp(argv[1], "d12cfg_pairs") == 0)
        test_d12cfg_pairs(argv[2]);
    else if (argc == 2 && strcmp(argv[1], "filter_million") == 0)
        test_filter_million();
    else {
        fprintf(stderr, "usage: test_drm_v2_scale registry_pairs|d12cfg_pairs D12CFG|filter_million\n");
        return 2;
    }
    return d12test_finish();
}
