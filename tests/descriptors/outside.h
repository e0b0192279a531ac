/* What the outside programs of tests/descriptors share (descriptors_outside.c, rootsig_outside.c): public D3D12 API
 * only, built against d12rt and, with PEER_VKD3D, against Debian's vkd3d 1.2 (no ID3D12InfoQueue there: the
 * debug layer's checks are compiled but not run). Each program includes it once. */
#ifndef D12_TESTS_OUTSIDE_H
#define D12_TESTS_OUTSIDE_H

#define COBJMACROS
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>

#ifdef PEER_VKD3D
/* What vkd3d 1.2 does not do that D3D12's debug layer does; those checks are left out of the vkd3d build (each
 * noted in docs/descriptors.md and docs/root-signatures.md, "vkd3d 1.2"). For descriptors:
 * - no ID3D12InfoQueue: no message can be read;
 * - CreateDescriptorHeap checks neither the shader-visible limits nor RTV/DSV visibility (it creates the heap), and
 *   crashes on a NULL ppvHeap (D3D12 answers S_FALSE);
 * - a heap that is not shader-visible still has a GPU start (D3D12: the null handle);
 * - views, samplers and copies are not validated: an invalid one is undefined behaviour there (an assertion for a
 *   counter on a raw view, heap corruption for a copy past a heap's end), so the vkd3d build makes no invalid call. */
#define D3D12_RULE(check) do { if (0) { check; } } while (0) /* compiled, not run */
#define D3D12_MESSAGE(id) ((void)0)
#define INVALID_CALL(call) do { if (0) { call; } } while (0)
#define NO_ERROR_MESSAGE() ((void)0)
#else
#define D3D12_RULE(check) check
#define D3D12_MESSAGE(id) expect_message(id, __LINE__)
#define INVALID_CALL(call) call
#define NO_ERROR_MESSAGE() expect_no_error(__LINE__)
#endif

static unsigned passed, failed;

#define CHECK(cond) check((cond), __LINE__, #cond)
#define CHECK_HR(actual, expected) check_hr((actual), (expected), __LINE__, #actual)

static int check(int ok, int line, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL line %d: %s\n", line, what);
    }
    return ok;
}

static int check_hr(HRESULT actual, HRESULT expected, int line, const char *what)
{
    if (actual == expected) {
        passed++;
        return 1;
    }
    failed++;
    fprintf(stderr, "FAIL line %d: %s is 0x%08X, expected 0x%08X\n", line, what, (unsigned)actual, (unsigned)expected);
    return 0;
}

static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;

#ifndef PEER_VKD3D
/* The newest stored message is `id` (an error), and it is the only error since the last check. */
static void expect_message(D3D12_MESSAGE_ID id, int line)
{
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    int found = 0, errors = 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *message = malloc(size);
        if (message && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, message, &size))) {
            errors += message->Severity <= D3D12_MESSAGE_SEVERITY_ERROR;
            found |= message->ID == id;
        }
        free(message);
    }
    if (!check(found && errors == 1, line, "exactly one error message, with the expected ID"))
        fprintf(stderr, "    expected message %d; %d errors stored\n", (int)id, errors);
    if (g_info)
        ID3D12InfoQueue_ClearStoredMessages(g_info);
}

static void expect_no_error(int line)
{
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    int errors = 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *message = malloc(size);
        if (message && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, message, &size)) &&
            message->Severity <= D3D12_MESSAGE_SEVERITY_ERROR) {
            errors++;
            fprintf(stderr, "    unexpected error %d: %s\n", (int)message->ID, message->pDescription);
        }
        free(message);
    }
    check(errors == 0, line, "no error message");
    if (g_info)
        ID3D12InfoQueue_ClearStoredMessages(g_info);
}
#endif

typedef struct outside_case {
    const char *name;
    void (*run)(void);
} outside_case;

/* Runs the case argv[1] names on a fresh device (the debug layer on where d12rt is the runtime): exit 0 only when
 * nothing failed; 2 with a usage line for an unknown case. */
static int outside_main(int argc, char **argv, const outside_case *cases, size_t count)
{
    for (size_t i = 0; argc == 2 && i < count; i++) {
        if (strcmp(argv[1], cases[i].name))
            continue;
#ifndef PEER_VKD3D
        ID3D12Debug *debug = NULL;
        if (SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug, (void **)&debug))) {
            ID3D12Debug_EnableDebugLayer(debug);
            ID3D12Debug_Release(debug);
        }
#endif
        HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&g_device);
        if (!CHECK_HR(hr, S_OK))
            break;
#ifndef PEER_VKD3D
        CHECK_HR(ID3D12Device_QueryInterface(g_device, &IID_ID3D12InfoQueue, (void **)&g_info), S_OK);
#endif
        cases[i].run();
        if (g_info)
            ID3D12InfoQueue_Release(g_info);
        CHECK(ID3D12Device_Release(g_device) == 0);
        printf("%u passed, %u failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (argc == 2 && passed + failed == 0) {
        fprintf(stderr, "usage: %s CASE (an unknown case: %s)\n", argv[0], argv[1]);
        return 2;
    }
    printf("%u passed, %u failed\n", passed, failed);
    return 1;
}


#endif
