/* The failure-injection build against the shipped one (docs/reliability.md "Failure injection"):
 *   test_fault_hook shipped|fi LIBRARY
 * dlopens LIBRARY (libd12rt.so or libd12rt_fi.so) with D12RT_FAULT_ALLOC or D12RT_FAULT_DDI set (by CMake) and checks
 * that the shipped library exports no hook and ignores the variables (D3D12CreateDevice succeeds), while the
 * injection build exports the hook and fails the first D3D12CreateDevice with E_OUTOFMEMORY, then succeeds.
 *   test_fault_hook trace LIBRARY FILE
 * checks the DDI trace's `=` result lines around an injected driver-call failure (check_trace). */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "harness.h"

/* test_fault_hook trace LIBRARY FILE (D12RT_FAULT_DDI=1, D12RT_DDI_TRACE=FILE): the trace's `=` lines. Each names
 * the call of an earlier `>` line of the same thread and entry point; the injected failure of call 1 (the first
 * pfnGetSupportedVersions, call #2 after OpenAdapter12) shows hr=0x8007000E and the next device's calls S_OK. */
static int check_trace(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!CHECK(file != NULL))
        return d12test_finish();
    enum { MAX_CALLS = 4096 };
    static char names[MAX_CALLS][64];
    static long threads[MAX_CALLS];
    char line[4096];
    unsigned results = 0, injected = 0, succeeded = 0;
    while (fgets(line, sizeof line, file)) {
        unsigned long id = 0;
        long thread = 0;
        char name[64], rest[64];
        if (sscanf(line, "> #%lu t=%ld %63s", &id, &thread, name) == 3 && id < MAX_CALLS) {
            snprintf(names[id], sizeof names[id], "%s", name);
            threads[id] = thread;
        } else if (sscanf(line, "= #%lu t=%ld %63s %63s", &id, &thread, name, rest) == 4) {
            results++;
            bool matches = id < MAX_CALLS && strcmp(names[id], name) == 0 && threads[id] == thread;
            if (!d12test_record(matches, __FILE__, __LINE__, "a `=` line names an earlier `>` call"))
                fprintf(stderr, "    %s", line);
            if (strcmp(name, "pfnGetSupportedVersions") == 0 && strcmp(rest, "hr=0x8007000E") == 0)
                injected += id == 2;
            if (strcmp(name, "pfnCreateDevice") == 0 && strcmp(rest, "hr=0x00000000") == 0)
                succeeded++;
        }
    }
    fclose(file);
    CHECK(results > 10);
    CHECK_EQ_INT(injected, 1);
    CHECK_EQ_INT(succeeded, 1);
    return d12test_finish();
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "trace") == 0) {
        unlink(argv[3]); /* the library opens D12RT_DDI_TRACE (appending) when it loads, below */
        void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        PFN_D3D12_CREATE_DEVICE create = library ? (PFN_D3D12_CREATE_DEVICE)dlsym(library, "D3D12CreateDevice") : NULL;
        if (!CHECK(create != NULL))
            return d12test_finish();
        ID3D12Device *device = NULL;
        CHECK_EQ_INT(create(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), E_OUTOFMEMORY);
        CHECK_EQ_INT(create(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
        if (device)
            CHECK_EQ_INT(ID3D12Device_Release(device), 0);
        return check_trace(argv[3]);
    }
    if (argc != 3)
        return 2;
    bool fi = strcmp(argv[1], "fi") == 0;
    void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!CHECK(library != NULL))
        return d12test_finish();
    const char *hooks[] = {"d12_fault_arm", "d12_fault_disarm", "d12_fault_allocations", "d12_fault_ddi_calls",
                           "d12_fault_injected", "d12__fault_malloc", "d12__fault_ddi_fails"};
    for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
        bool exported = dlsym(library, hooks[i]) != NULL;
        bool public_hook = hooks[i][4] != '_'; /* d12_fault_*: the hook; d12__*: internal, never exported */
        if (!d12test_record(exported == (fi && public_hook), __FILE__, __LINE__, hooks[i]))
            fprintf(stderr, "    %s %s exported by %s\n", hooks[i], exported ? "is" : "is not", argv[2]);
    }
    PFN_D3D12_CREATE_DEVICE create = (PFN_D3D12_CREATE_DEVICE)dlsym(library, "D3D12CreateDevice");
    if (!CHECK(create != NULL))
        return d12test_finish();
    ID3D12Device *device = NULL;
    HRESULT hr = create(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    CHECK_EQ_INT(hr, fi ? E_OUTOFMEMORY : S_OK);
    CHECK(fi ? device == NULL : device != NULL);
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    device = NULL;
    CHECK_EQ_INT(create(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    return d12test_finish();
}
