/* d12conform's version-2 tests (docs/driver-reported-messages-v2.md, "Conformance additions"). Like the version-1
 * tests they use only libd12rt's public API, d12rt/d3d12ddi.h's constants, the documented settings and the DDI
 * trace (D12RT_DDI_TRACE, D12RT_HKCU, D12RT_APP_NAME, set by the parent for each test). A version-1 driver passes the
 * runtime's version-2 tests (they check that it sees exactly the version-1 DDI) and is not exercised by the driver
 * obligations of version 2 (3: "not exercised", never a failure). */
#include "conform.h"

#define DEFINED_FLAGS 0x1Fu /* GENERAL | SYNCHRONIZATION | RAYTRACING | WORK_GRAPHS | SHADER */

/* ---- the trace: every line ('>', '<' and '=') ---- */

typedef struct lines {
    char **line;
    size_t count;
} lines;

static lines trace_lines(void)
{
    lines t = {0};
    const char *path = getenv("D12RT_DDI_TRACE");
    FILE *file = path ? fopen(path, "r") : NULL;
    char *line = NULL;
    size_t size = 0, capacity = 0;
    ssize_t length;
    while (file && (length = getline(&line, &size, file)) > 0) {
        if (line[0] == '#')
            continue;
        if (line[length - 1] == '\n')
            line[length - 1] = '\0';
        if (t.count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            t.line = realloc(t.line, capacity * sizeof *t.line);
        }
        t.line[t.count++] = strdup(line);
    }
    free(line);
    if (file)
        fclose(file);
    return t;
}

static void lines_free(lines *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->line[i]);
    free(t->line);
    memset(t, 0, sizeof *t);
}

/* Whether line i is a `kind` ('>', '<', '=') line of entry point `name`. */
static bool line_is(const lines *t, size_t i, char kind, const char *name)
{
    const char *l = t->line[i];
    if (l[0] != kind)
        return false;
    const char *n = kind == '<' ? strchr(l + 2, ' ') : strchr(strchr(l + 2, ' ') + 1, ' ');
    size_t length = strlen(name);
    return n && strncmp(n + 1, name, length) == 0 && (n[1 + length] == ' ' || n[1 + length] == '\0');
}

/* The numeric value of `key=` on line i (the first such token), or `otherwise`. */
static unsigned long long line_u(const lines *t, size_t i, const char *key, unsigned long long otherwise)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char *p = strstr(t->line[i], pattern);
    return p ? strtoull(p + strlen(pattern), NULL, 0) : otherwise;
}

/* The '=' line answering the '>' line i (same call number), or SIZE_MAX. */
static size_t result_of(const lines *t, size_t i)
{
    unsigned long call = 0;
    if (sscanf(t->line[i], "> #%lu", &call) != 1)
        return SIZE_MAX;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "= #%lu ", call);
    for (size_t k = i + 1; k < t->count; k++)
        if (strncmp(t->line[k], prefix, strlen(prefix)) == 0)
            return k;
    return SIZE_MAX;
}

static size_t first(const lines *t, char kind, const char *name, size_t from)
{
    for (size_t i = from; i < t->count; i++)
        if (line_is(t, i, kind, name))
            return i;
    return SIZE_MAX;
}

/* The feature version the runtime enabled (0 when it enabled none). */
static unsigned enabled_version(const lines *t)
{
    size_t i = first(t, '>', "pfnEnableExtendedFeature", 0);
    return i == SIZE_MAX ? 0 : (unsigned)line_u(t, i, "FeatureVersion", 0);
}

/* ---- the application ---- */

static ID3D12Device *enabled_device(void)
{
    ID3D12Debug7 *debug = NULL;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))) {
        fail("D3D12GetDebugInterface(ID3D12Debug7) failed");
        return NULL;
    }
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    EXPECT(SUCCEEDED(hr), "D3D12CreateDevice failed (0x%08X)", (unsigned)hr);
    return device;
}

static ID3D12InfoQueue2 *info_queue2(ID3D12Device *device)
{
    ID3D12InfoQueue2 *q = NULL;
    HRESULT hr = ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue2, (void **)&q);
    EXPECT(SUCCEEDED(hr), "QueryInterface(ID3D12InfoQueue2) failed (0x%08X)", (unsigned)hr);
    if (q)
        ID3D12InfoQueue2_SetMuteDebugOutput(q, TRUE);
    return q;
}

/* The first stored driver-reported message through GetMessage1 (malloc'ed), or NULL. */
static D3D12_MESSAGE1 *first_driver_message(ID3D12InfoQueue2 *q)
{
    for (UINT64 i = 0; i < ID3D12InfoQueue2_GetNumStoredMessages(q); i++) {
        SIZE_T length = 0;
        if (ID3D12InfoQueue2_GetMessage1(q, i, NULL, &length) != S_FALSE)
            continue;
        D3D12_MESSAGE1 *m = malloc(length);
        if (m && ID3D12InfoQueue2_GetMessage1(q, i, m, &length) == S_OK &&
            m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
            return m;
        free(m);
    }
    return NULL;
}

/* Record draws, a dispatch and a copy, execute, signal, wait, and execute again (a flush point), then release. */
static void v2_workload(ID3D12Device *device)
{
    ID3D12CommandQueue *queue = NULL;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (FAILED(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue)) ||
        FAILED(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                   (void **)&allocator)) ||
        FAILED(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                              &IID_ID3D12GraphicsCommandList, (void **)&list)) ||
        FAILED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence))) {
        fail("creating a queue, allocator, list or fence failed");
    } else {
        for (int i = 0; i < 4; i++)
            ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
        ID3D12GraphicsCommandList_Close(list);
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
        ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
        ID3D12CommandQueue_Signal(queue, fence, 1);
        for (int i = 0; i < 5000 && ID3D12Fence_GetCompletedValue(fence) < 1; i++)
            sleep_ms(1);
        ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
    }
    if (queue)
        ID3D12CommandQueue_Release(queue);
    if (list)
        ID3D12GraphicsCommandList_Release(list);
    if (allocator)
        ID3D12CommandAllocator_Release(allocator);
    if (fence)
        ID3D12Fence_Release(fence);
}

/* ---- the tests ---- */

/* "The runtime negotiates the highest version both sides understand ... a version-1 driver gets version 1 and sees
 * exactly today's calls". Version 2 enabled: table D12RT_DRIVER_REPORTED_MESSAGES_1 filled right after table 47
 * and SupportedFlags asked once; version 1: no version-2 table or entry point is ever called. */
static outcome t_negotiate(void)
{
    ID3D12Device *device = enabled_device();
    if (device) {
        v2_workload(device);
        ID3D12Device_Release(device);
    }
    lines t = trace_lines();
    unsigned version = enabled_version(&t);
    size_t fills = 0, gets = 0, sets = 0, fill_at = SIZE_MAX, table47 = SIZE_MAX;
    for (size_t i = 0; i < t.count; i++) {
        if (line_is(&t, i, '>', "pfnFillDDITable")) {
            unsigned long long type = line_u(&t, i, "tableType", 0);
            if (type == (unsigned long long)D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1)
                fills++, fill_at = i;
            if (type == 47)
                table47 = i;
        }
        gets += line_is(&t, i, '>', "pfnGetSupportedDriverReportedMessageFlags");
        sets += line_is(&t, i, '>', "pfnSetDriverReportedMessageFlags");
    }
    if (version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1) {
        EXPECT(fills == 1, "version 2 enabled, but table D12RT_DRIVER_REPORTED_MESSAGES_1 was filled %zu times", fills);
        EXPECT(table47 != SIZE_MAX && fill_at > table47, "table D12RT_DRIVER_REPORTED_MESSAGES_1 was not filled after "
               "table 47");
        EXPECT(gets == 1, "pfnGetSupportedDriverReportedMessageFlags was called %zu times (expected once)", gets);
    } else if (version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0) {
        EXPECT(fills == 0 && gets == 0 && sets == 0, "a version-1 device saw version-2 calls (%zu fills, %zu flag "
               "queries, %zu flag sets)", fills, gets, sets);
    } else {
        fail("pfnEnableExtendedFeature asked for version %u (none, or one neither side defines)", version);
    }
    lines_free(&t);
    return g_result;
}

/* "VendorId comes from a new adapter capability the runtime queries at adapter open for every driver version". */
static outcome t_identity_queried(void)
{
    ID3D12Device *device = enabled_device();
    if (device)
        ID3D12Device_Release(device);
    lines t = trace_lines();
    size_t queries = 0, create = first(&t, '>', "pfnCreateDevice", 0), at = SIZE_MAX;
    for (size_t i = 0; i < t.count; i++) {
        if (line_is(&t, i, '>', "pfnGetCaps") &&
            line_u(&t, i, "Type", 0) == (unsigned long long)D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY) {
            queries++;
            if (at == SIZE_MAX)
                at = i;
        }
    }
    EXPECT(queries == 1, "D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY was asked %zu times (expected once)", queries);
    EXPECT(at < create, "the adapter identity was not asked before the first pfnCreateDevice");
    lines_free(&t);
    return g_result;
}

/* "Every stored driver message keeps (VendorId, VendorMessageId) ... a driver that does not answer it gets VendorId
 * 0xFFFF (never 0)"; GetMessage1 "follows GetMessage's two-call pattern". */
static outcome t_identity_surfaced(void)
{
    ID3D12Device *device = enabled_device();
    ID3D12InfoQueue2 *q = device ? info_queue2(device) : NULL;
    D3D12_MESSAGE1 *m = q ? first_driver_message(q) : NULL;
    lines t = trace_lines();
    size_t report = first(&t, '<', "pfnReportMessageCb", 0), ask = SIZE_MAX;
    for (size_t i = 0; i < t.count && ask == SIZE_MAX; i++)
        if (line_is(&t, i, '>', "pfnGetCaps") &&
            line_u(&t, i, "Type", 0) == (unsigned long long)D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY)
            ask = i;
    size_t answer = ask == SIZE_MAX ? SIZE_MAX : result_of(&t, ask);
    bool answered = answer != SIZE_MAX && line_u(&t, answer, "hr", 1) == 0;
    if (report == SIZE_MAX || !m) {
        fail("no driver-reported message to read (the mandatory message is missing)");
    } else {
        unsigned long long traced = line_u(&t, report, "VendorMessageId", ~0ull);
        EXPECT(m->VendorMessageId == traced, "VendorMessageId 0x%016llX, but the driver reported 0x%016llX",
               (unsigned long long)m->VendorMessageId, traced);
        EXPECT(m->VendorId != 0, "a driver message has VendorId 0 (that means a runtime message)");
        if (!answered)
            EXPECT(m->VendorId == 0xFFFF, "the driver did not answer the identity, yet VendorId is 0x%X", m->VendorId);
        EXPECT(m->DescriptionByteLength == strlen(m->pDescription) + 1, "DescriptionByteLength %zu for %zu bytes",
               (size_t)m->DescriptionByteLength, strlen(m->pDescription) + 1);
    }
    if (q) {
        UINT64 past = ID3D12InfoQueue2_GetNumStoredMessages(q);
        SIZE_T length = 0;
        EXPECT(ID3D12InfoQueue2_GetMessage1(q, past, NULL, &length) == E_INVALIDARG,
               "GetMessage1 past the last message did not fail");
        EXPECT(ID3D12InfoQueue2_GetMessage1(q, 0, NULL, NULL) == E_INVALIDARG, "GetMessage1 with no length did not fail");
    }
    free(m);
    lines_free(&t);
    if (q)
        ID3D12InfoQueue2_Release(q);
    if (device)
        ID3D12Device_Release(device);
    return g_result;
}

/* "d12cfg drm-deny ... a registry deny always applies": the second device's mandatory message, denied by its
 * (VendorId, VendorMessageId) under the application's key, is reported by the driver (S_OK) and not stored; the
 * first device's, before the value existed, was. */
static outcome t_registry_deny(void)
{
    ID3D12Device *device = enabled_device();
    ID3D12InfoQueue2 *q = device ? info_queue2(device) : NULL;
    D3D12_MESSAGE1 *m = q ? first_driver_message(q) : NULL;
    if (q)
        ID3D12InfoQueue2_Release(q);
    if (device)
        ID3D12Device_Release(device);
    if (!m) {
        fail("the first device stored no driver message");
        return g_result;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", getenv("D12RT_HKCU") ? getenv("D12RT_HKCU") : "");
    FILE *file = fopen(path, "w");
    if (!file) {
        fail("cannot write %s", path);
        free(m);
        return g_result;
    }
    fprintf(file, "Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\"
            "Direct3D12\\%s]\n\"DriverMessageDeny:%X:%llX\"=dword:00000001\n", getenv("D12RT_APP_NAME"), m->VendorId,
            (unsigned long long)m->VendorMessageId);
    fclose(file);
    device = enabled_device();
    q = device ? info_queue2(device) : NULL;
    D3D12_MESSAGE1 *again = q ? first_driver_message(q) : NULL;
    EXPECT(again == NULL || again->VendorId != m->VendorId || again->VendorMessageId != m->VendorMessageId,
           "the denied (0x%X, 0x%016llX) was stored", m->VendorId, (unsigned long long)m->VendorMessageId);
    lines t = trace_lines();
    size_t reports = 0;
    for (size_t i = 0; i < t.count; i++)
        reports += line_is(&t, i, '<', "pfnReportMessageCb") && line_u(&t, i, "hr", 1) == 0;
    EXPECT(reports >= 2, "the driver's reports on the two devices were not both accepted (%zu)", reports);
    lines_free(&t);
    free(again);
    free(m);
    if (q)
        ID3D12InfoQueue2_Release(q);
    if (device)
        ID3D12Device_Release(device);
    return g_result;
}

/* SupportedFlags "GENERAL for a version-1 driver" (else what the driver supports); "A device starts with every
 * supported category on"; "flags outside SupportedFlags: E_INVALIDARG"; the runtime "passes [them] to the driver
 * through a version-2 DDI entry" (never to a version-1 driver). */
static outcome t_flags(void)
{
    ID3D12Device *device = enabled_device();
    if (!device)
        return g_result;
    D3D12_FEATURE_DATA_DRIVER_REPORTED_MESSAGES data = {(D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)0};
    HRESULT hr = ID3D12Device_CheckFeatureSupport(device, D3D12_FEATURE_DRIVER_REPORTED_MESSAGES, &data, sizeof data);
    EXPECT(hr == S_OK, "CheckFeatureSupport(D3D12_FEATURE_DRIVER_REPORTED_MESSAGES) failed (0x%08X)", (unsigned)hr);
    lines t = trace_lines();
    unsigned version = enabled_version(&t);
    size_t get = first(&t, '>', "pfnGetSupportedDriverReportedMessageFlags", 0);
    size_t answer = get == SIZE_MAX ? SIZE_MAX : result_of(&t, get);
    UINT expected = version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1 && answer != SIZE_MAX
                        ? (UINT)line_u(&t, answer, "value", 0) & 0x7FFFFFFFu
                        : D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL;
    lines_free(&t);
    EXPECT((UINT)data.SupportedFlags == expected, "SupportedFlags 0x%X, expected 0x%X", (UINT)data.SupportedFlags,
           expected);
    ID3D12DebugDevice3 *dd = NULL;
    hr = ID3D12Device_QueryInterface(device, &IID_ID3D12DebugDevice3, (void **)&dd);
    EXPECT(SUCCEEDED(hr), "QueryInterface(ID3D12DebugDevice3) failed (0x%08X)", (unsigned)hr);
    if (dd) {
        EXPECT((UINT)ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd) == expected,
               "the device did not start with every supported category on");
        UINT outside = ~expected & 0x7FFFFFFFu;
        outside &= ~(outside - 1); /* the lowest unsupported category */
        if (outside)
            EXPECT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS)(expected |
                                                                                                          outside)) ==
                       E_INVALIDARG,
                   "SetDriverReportedMessageFlags with 0x%X outside SupportedFlags did not fail", outside);
        EXPECT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE) == S_OK,
               "SetDriverReportedMessageFlags(NONE) failed");
        EXPECT(ID3D12DebugDevice3_GetDriverReportedMessageFlags(dd) == D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE,
               "GetDriverReportedMessageFlags does not answer the set just made");
        ID3D12DebugDevice3_Release(dd);
    }
    t = trace_lines();
    size_t set = first(&t, '>', "pfnSetDriverReportedMessageFlags", 0), sets = 0;
    for (size_t i = 0; i < t.count; i++)
        sets += line_is(&t, i, '>', "pfnSetDriverReportedMessageFlags");
    if (version == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1)
        EXPECT(sets == 1 && line_u(&t, set, "Flags", ~0ull) == 0, "the driver was not told NONE once (%zu calls)", sets);
    else
        EXPECT(sets == 0, "a version-1 driver got pfnSetDriverReportedMessageFlags");
    lines_free(&t);
    ID3D12Device_Release(device);
    return g_result;
}

/* ---- driver obligations (version 2 only) ---- */

/* Whether the device got version 2: else the driver's version-2 obligations are not exercised. */
static bool version2(void)
{
    lines t = trace_lines();
    bool v2 = enabled_version(&t) == D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1;
    lines_free(&t);
    if (!v2)
        printf("    a version-1 driver: nothing of version 2 to check\n");
    return v2;
}

/* "SupportedFlags: the categories the driver validates (GENERAL 0x1, SYNCHRONIZATION 0x2, RAYTRACING 0x4,
 * WORK_GRAPHS 0x8, SHADER 0x10)": no bit that no category defines. */
static outcome t_supported_flags_defined(void)
{
    ID3D12Device *device = enabled_device();
    if (device)
        ID3D12Device_Release(device);
    if (!version2())
        return g_result == FAIL ? FAIL : NOT_EXERCISED;
    lines t = trace_lines();
    size_t get = first(&t, '>', "pfnGetSupportedDriverReportedMessageFlags", 0);
    size_t answer = get == SIZE_MAX ? SIZE_MAX : result_of(&t, get);
    if (answer == SIZE_MAX) {
        fail("pfnGetSupportedDriverReportedMessageFlags was never answered");
    } else {
        unsigned long long value = line_u(&t, answer, "value", 0);
        EXPECT((value & ~(unsigned long long)DEFINED_FLAGS) == 0, "SupportedFlags 0x%llX has bits 0x%llX no category "
               "defines", value, value & ~(unsigned long long)DEFINED_FLAGS);
    }
    lines_free(&t);
    return g_result;
}

/* "A category that is off must cost the driver nothing (skip its checks), and the driver must not report its
 * messages": with every category off, the driver reports nothing on the device while it records and runs work. */
static outcome t_category_off(void)
{
    ID3D12Device *device = enabled_device();
    if (!device)
        return g_result;
    if (!version2()) {
        ID3D12Device_Release(device);
        return g_result == FAIL ? FAIL : NOT_EXERCISED;
    }
    ID3D12DebugDevice3 *dd = NULL;
    if (SUCCEEDED(ID3D12Device_QueryInterface(device, &IID_ID3D12DebugDevice3, (void **)&dd))) {
        EXPECT(ID3D12DebugDevice3_SetDriverReportedMessageFlags(dd, D3D12_DRIVER_REPORTED_MESSAGE_FLAG_NONE) == S_OK,
               "SetDriverReportedMessageFlags(NONE) failed");
        ID3D12DebugDevice3_Release(dd);
    }
    v2_workload(device);
    ID3D12Device_Release(device);
    lines t = trace_lines();
    size_t set = first(&t, '>', "pfnSetDriverReportedMessageFlags", 0), destroy = first(&t, '>', "pfnDestroyDevice", 0);
    size_t reports = 0;
    for (size_t i = set == SIZE_MAX ? t.count : set; i < t.count && i < destroy; i++)
        reports += line_is(&t, i, '<', "pfnReportMessageCb");
    EXPECT(set != SIZE_MAX, "the driver was never told the categories");
    EXPECT(reports == 0, "the driver reported %zu messages with every category off", reports);
    lines_free(&t);
    return g_result;
}

/* "A version-2 driver answers D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY" (VendorId not 0; its messages' identity). */
static outcome t_identity_answered(void)
{
    ID3D12Device *device = enabled_device();
    if (device)
        ID3D12Device_Release(device);
    if (!version2())
        return g_result == FAIL ? FAIL : NOT_EXERCISED;
    lines t = trace_lines();
    size_t ask = SIZE_MAX;
    for (size_t i = 0; i < t.count && ask == SIZE_MAX; i++)
        if (line_is(&t, i, '>', "pfnGetCaps") &&
            line_u(&t, i, "Type", 0) == (unsigned long long)D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY)
            ask = i;
    size_t answer = ask == SIZE_MAX ? SIZE_MAX : result_of(&t, ask);
    EXPECT(answer != SIZE_MAX && line_u(&t, answer, "hr", 1) == 0,
           "the driver did not answer D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY");
    lines_free(&t);
    return g_result;
}

const conform_test conform_tests_v2[] = {
    {"v2.negotiate", "runtime", "The runtime negotiates the highest version both sides understand: a version-1 driver "
     "gets version 1 and sees exactly today's calls; a version-2 driver gets table D12RT_DRIVER_REPORTED_MESSAGES_1",
     t_negotiate},
    {"v2.identity_queried", "runtime", "VendorId comes from an adapter capability the runtime queries at adapter open "
     "for every driver version (D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY)", t_identity_queried},
    {"v2.identity_surfaced", "runtime", "Every stored driver message keeps (VendorId, VendorMessageId); a driver that "
     "does not answer gets VendorId 0xFFFF, never 0", t_identity_surfaced},
    {"v2.registry_deny", "runtime", "d12cfg drm-deny APP VID:MID ... a registry deny always applies", t_registry_deny},
    {"v2.flags", "runtime", "SupportedFlags (GENERAL for a version-1 driver); a device starts with every supported "
     "category on; flags outside SupportedFlags: E_INVALIDARG; passed to the driver through a version-2 DDI entry",
     t_flags},
    {"v2.supported_flags_defined", "driver", "SupportedFlags holds only the categories the delta defines (GENERAL, "
     "SYNCHRONIZATION, RAYTRACING, WORK_GRAPHS, SHADER)", t_supported_flags_defined},
    {"v2.category_off", "driver", "A category that is off must cost the driver nothing, and the driver must not "
     "report its messages", t_category_off},
    {"v2.identity_answered", "driver", "A version-2 driver answers D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY",
     t_identity_answered},
};
const size_t conform_tests_v2_count = sizeof conform_tests_v2 / sizeof conform_tests_v2[0];
