/* The harness of the outside programs (tests/descriptors, tests/buffers): programs written against the public D3D12
 * API alone, built against d12rt (run on the reference driver and on the Vulkan driver) and, with PEER_VKD3D, against
 * Debian's vkd3d 1.2 on lavapipe, so that every expectation is one a correct D3D12 implementation meets.
 *
 * vkd3d 1.2 has no ID3D12InfoQueue and no debug layer, so the vkd3d build compiles but does not run:
 *   D3D12_RULE(check)    a check of a rule D3D12 has and vkd3d 1.2 lacks (each one named in the program's docs);
 *   D3D12_MESSAGE(id)    "the newest stored message is `id`, the only error since the last check";
 *   D3D12_MESSAGE_TEXT(id, text)  the same, its description containing `text`;
 *   INVALID_CALL(call)   a call that is undefined behaviour in vkd3d 1.2 (it does not validate);
 *   NO_ERROR_MESSAGE()   "no error message since the last check".
 * A program defines its cases and calls outside_main(); each case runs in a process of its own, on a device made with
 * the debug layer on (d12rt) and its info queue in g_info. Output ends with "N passed, N failed"; exit 0 only when
 * nothing failed, 2 for an unknown case. */
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
#define D3D12_RULE(check) do { if (0) { check; } } while (0) /* compiled, not run */
#define D3D12_MESSAGE(id) ((void)0)
#define D3D12_MESSAGE_TEXT(id, text) ((void)0)
#define INVALID_CALL(call) do { if (0) { call; } } while (0)
#define NO_ERROR_MESSAGE() ((void)0)
#else
#define D3D12_RULE(check) check
#define D3D12_MESSAGE(id) outside_expect_message(id, NULL, __LINE__)
#define D3D12_MESSAGE_TEXT(id, text) outside_expect_message(id, text, __LINE__)
#define INVALID_CALL(call) call
#define NO_ERROR_MESSAGE() outside_expect_no_error(__LINE__)
#endif

static unsigned outside_passed, outside_failed;
static ID3D12Device *g_device;
static ID3D12InfoQueue *g_info;

#define CHECK(cond) outside_check((cond), __LINE__, #cond)
#define CHECK_HR(actual, expected) outside_check_hr((actual), (expected), __LINE__, #actual)

static inline int outside_check(int ok, int line, const char *what)
{
    if (ok) {
        outside_passed++;
    } else {
        outside_failed++;
        fprintf(stderr, "FAIL line %d: %s\n", line, what);
    }
    return ok;
}

static inline int outside_check_hr(HRESULT actual, HRESULT expected, int line, const char *what)
{
    if (actual == expected) {
        outside_passed++;
        return 1;
    }
    outside_failed++;
    fprintf(stderr, "FAIL line %d: %s is 0x%08X, expected 0x%08X\n", line, what, (unsigned)actual, (unsigned)expected);
    return 0;
}

#ifndef PEER_VKD3D
/* Calls `visit` on every stored message; clears the queue afterwards. */
static inline void outside_each_message(void (*visit)(const D3D12_MESSAGE *message, void *context), void *context)
{
    UINT64 count = g_info ? ID3D12InfoQueue_GetNumStoredMessages(g_info) : 0;
    for (UINT64 i = 0; i < count; i++) {
        SIZE_T size = 0;
        ID3D12InfoQueue_GetMessage(g_info, i, NULL, &size);
        D3D12_MESSAGE *message = malloc(size);
        if (message && SUCCEEDED(ID3D12InfoQueue_GetMessage(g_info, i, message, &size)))
            visit(message, context);
        free(message);
    }
    if (g_info)
        ID3D12InfoQueue_ClearStoredMessages(g_info);
}

typedef struct outside_expected {
    D3D12_MESSAGE_ID id;
    const char *text;
    int found, errors;
} outside_expected;

static inline void outside_visit_expected(const D3D12_MESSAGE *message, void *context)
{
    outside_expected *expected = context;
    int match = message->ID == expected->id && (!expected->text || strstr(message->pDescription, expected->text));
    expected->found |= match;
    if (message->Severity > D3D12_MESSAGE_SEVERITY_ERROR)
        return;
    expected->errors++;
    if (!match)
        fprintf(stderr, "    error %d: %s\n", (int)message->ID, message->pDescription);
}

/* Exactly one error message since the last check: `id`, its description containing `text` where given. */
static inline void outside_expect_message(D3D12_MESSAGE_ID id, const char *text, int line)
{
    outside_expected expected = {id, text, 0, 0};
    outside_each_message(outside_visit_expected, &expected);
    if (!outside_check(expected.found && expected.errors == 1, line, "exactly one error message, the expected one"))
        fprintf(stderr, "    expected message %d%s%s; %d errors stored\n", (int)id, text ? " with " : "",
                text ? text : "", expected.errors);
}

static inline void outside_expect_no_error(int line)
{
    outside_expected expected = {(D3D12_MESSAGE_ID)-1, NULL, 0, 0};
    outside_each_message(outside_visit_expected, &expected);
    outside_check(expected.errors == 0, line, "no error message");
}
#endif

/* Struct-returning methods: the Microsoft x64 convention of a C++ method passes the result's address after `this`,
 * which the vkd3d build (ms_abi) must spell out; the System V build calls them as declared. */
#ifdef PEER_VKD3D
#define STRUCT_CALL(type, object, method)                                                                            \
    ({                                                                                                             \
        type result_;                                                                                              \
        typedef type *(STDMETHODCALLTYPE * fn_)(__typeof__(object), type *);                                       \
        ((fn_)(void *)(object)->lpVtbl->method)((object), &result_);                                               \
        result_;                                                                                                   \
    })
#else
#define STRUCT_CALL(type, object, method) ((object)->lpVtbl->method(object))
#endif

typedef struct outside_case {
    const char *name;
    void (*run)(void);
} outside_case;

/* Runs the case named by argv[1] on a new device (the debug layer on, where d12rt). */
static inline int outside_main(const outside_case *cases, size_t count, int argc, char **argv)
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
        printf("%u passed, %u failed\n", outside_passed, outside_failed);
        return outside_failed ? 1 : 0;
    }
    if (argc == 2 && outside_passed + outside_failed == 0) {
        fprintf(stderr, "usage: %s CASE (an unknown case: %s)\n", argv[0], argv[1]);
        return 2;
    }
    printf("%u passed, %u failed\n", outside_passed, outside_failed);
    return 1;
}

#endif
