/* The failure-injection build against the shipped one (docs/reliability.md "Failure injection"):
 *   test_fault_hook shipped|fi LIBRARY
 * dlopens LIBRARY (libd12rt.so or libd12rt_fi.so) with D12RT_FAULT_ALLOC or D12RT_FAULT_DDI set (by CMake) and checks
 * that the shipped library exports no hook and ignores the variables (D3D12CreateDevice succeeds), while the
 * injection build exports the hook and fails the first D3D12CreateDevice with E_OUTOFMEMORY, then succeeds. */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#include "harness.h"

int main(int argc, char **argv)
{
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
