/* GPU work as Windows has it, where issue 29's red team and the peers' buffer tests found d12rt differing:
 *   dispatch_*      Dispatch counts above D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION are dropped with
 *                   OVERSIZED_DISPATCH (1296) and never reach the driver (D12RT_DDI_TRACE shows which did); Close
 *                   stays S_OK; zero and the limit itself are legal and silent.
 * One process per case, through libd12rt's public ABI; each case runs on both drivers (tests/vulkan). */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gpu_harness.h"

/* ======== Dispatch ======== */

/* The pfnDispatch lines the DDI trace (D12RT_DDI_TRACE, set by CMake) holds, as "X Y Z" each, newline-separated. */
static void traced_dispatches(char *out, size_t size)
{
    out[0] = '\0';
    const char *path = getenv("D12RT_DDI_TRACE");
    FILE *file = path ? fopen(path, "r") : NULL;
    if (!CHECK(file != NULL))
        return;
    char line[1024];
    size_t used = 0;
    while (fgets(line, sizeof line, file)) {
        unsigned x, y, z;
        const char *at = strstr(line, " pfnDispatch ");
        if (line[0] == '>' && at &&
            sscanf(strstr(at, "ThreadGroupCountX="), "ThreadGroupCountX=%u ThreadGroupCountY=%u ThreadGroupCountZ=%u",
                   &x, &y, &z) == 3) {
            int n = snprintf(out + used, size - used, "%u %u %u\n", x, y, z);
            if (n > 0 && (size_t)n < size - used)
                used += (size_t)n;
        }
    }
    fclose(file);
}

/* Each oversized dimension alone, and all three: one ERROR each naming the first dimension over and the limit; the
 * limit itself and a zero count pass silently to the driver; Close S_OK; the list executes. */
static void test_dispatch_oversized(void)
{
    ID3D12Device *device = create_device(true);
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_COMPUTE, &ctx))
        return;
    static const struct {
        UINT x, y, z;
        const char *text; /* NULL: legal */
    } calls[] = {
        {65536, 1, 1, "ThreadGroupCountX = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {1, 65536, 1, "ThreadGroupCountY = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {1, 1, 0xFFFFFFFFu,
         "ThreadGroupCountZ = 4294967295 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535)"},
        {65536, 65536, 65536,
         "ThreadGroupCountX = 65536 exceeds D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION (65535); the dispatch "
         "is dropped"},
        {65535, 1, 1, NULL}, /* the limit in each dimension (not all at once: 2.8e14 groups would trip the TDR) */
        {1, 65535, 1, NULL},
        {1, 1, 65535, NULL},
        {0, 1, 1, NULL},
        {0, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        ID3D12InfoQueue_ClearStoredMessages(iq);
        ID3D12GraphicsCommandList_Dispatch(ctx.list, calls[i].x, calls[i].y, calls[i].z);
        if (calls[i].text) {
            message_info info = {0};
            if (CHECK(check_one_message(iq, D3D12_MESSAGE_ID_OVERSIZED_DISPATCH, calls[i].text, __FILE__, __LINE__,
                                        "OVERSIZED_DISPATCH"))) {
                count_id(iq, D3D12_MESSAGE_ID_OVERSIZED_DISPATCH, NULL, &info);
                CHECK_EQ_INT(info.severity, D3D12_MESSAGE_SEVERITY_ERROR);
            }
            CHECK_EQ_INT(ID3D12InfoQueue_GetNumStoredMessages(iq), 1);
        } else {
            if (!CHECK(ID3D12InfoQueue_GetNumStoredMessages(iq) == 0))
                dump_messages(iq);
        }
    }
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK); /* not a recording error */
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
    char traced[512];
    traced_dispatches(traced, sizeof traced);
    CHECK_EQ_STR(traced, "65535 1 1\n1 65535 1\n1 1 65535\n0 1 1\n0 0 0\n"); /* the driver saw exactly the legal ones */
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* Without the debug layer: still dropped (the driver never sees it), and no message (there is no InfoQueue). */
static void test_dispatch_oversized_no_debug_layer(void)
{
    ID3D12Device *device = create_device(false);
    gpu_context ctx;
    if (!device || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 1, 1, 70000);
    ID3D12GraphicsCommandList_Dispatch(ctx.list, 2, 3, 4);
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK(finish(&ctx));
    char traced[512];
    traced_dispatches(traced, sizeof traced);
    CHECK_EQ_STR(traced, "2 3 4\n");
    release_context(&ctx);
    RELEASE_LAST(device);
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {
    {"dispatch_oversized", test_dispatch_oversized},
    {"dispatch_oversized_no_debug_layer", test_dispatch_oversized_no_debug_layer},
};

int main(int argc, char **argv)
{
    /* The trace is appended to (opened when the library loaded, O_APPEND): empty it, so a rerun starts clean. */
    const char *trace = getenv("D12RT_DDI_TRACE");
    if (trace && *trace && truncate(trace, 0) != 0)
        perror(trace);
    for (size_t i = 0; argc == 2 && i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (!strcmp(argv[1], k_cases[i].name)) {
            k_cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_gpu_issue29 CASE\n");
    return 2;
}
