/* The failure-injection sweep (issue 12 item 4; docs/reliability.md "Failure injection"), through the public ABI of
 * libd12rt_fi.so, the failure-injection build of the runtime (runtime/fault/d12_fault.h), over the reference driver
 * behind tests/drm's shim (D12RT_DRIVER), which keeps the real allocator and lets the test report as the driver.
 *
 *   test_fault_sweep PHASE KIND [MAX | =N]      (=N: only the child for N, in this process, to debug it)
 *
 * PHASE: create, record, submit, report, removal, fault (below); KIND: alloc (the Nth allocation of the runtime
 * fails) or ddi (the Nth runtime->driver call that returns an HRESULT fails with E_OUTOFMEMORY). The phase runs once
 * in a child process with nothing failing, counting the calls the armed part makes (count C); then for N = 1..C (every
 * N when C <= MAX, default 400; else the first and last 100 and an even sample between, MAX in all) a child runs it
 * with the Nth failing. The countdown is armed on the application thread around the phase only (setup and checks run
 * unarmed); each child asserts:
 *   - every API call answered S_OK or an HRESULT of the documented table (allowed_*, below), and an object out
 *     pointer is NULL exactly when creation failed;
 *   - the Nth call was reached (exactly one failure injected): the prefix 1..N-1 is deterministic;
 *   - the failure was absorbed or surfaced, never half-done: the device is not removed by it (except where the table
 *     says so), the work that was accepted runs (the copy's bytes land), every message whose report returned S_OK
 *     is stored exactly once and delivered to the callback exactly once, and one whose report failed is neither;
 *   - afterwards, unarmed, the same calls succeed (the failure left no broken state);
 *   - every object is released to 0; the child exits normally (exit, not _exit), so under ASan LeakSanitizer
 *     checks it for leaks.
 * The parent fails on any child that exits non-zero or on a signal (a crash, ASan, a leak), naming PHASE KIND N, and
 * prints which HRESULT each call site answered over the sweep. Ends with `N passed, N failed`.
 *
 * Phases:
 *   create   D3D12GetDebugInterface (debug layer + driver-reported messages on, DRED forced on) and D3D12CreateDevice
 *            (adapter open, negotiation, the feature's enable and its initialization message, DRED), QueryInterface
 *   record   CreateCommandAllocator, CreateCommandList, two CreateCommittedResource, Map, SetName, a copy, draws, a
 *            dispatch, a barrier, Close; then the copy executes (or, Close failing, the list records again)
 *   submit   ExecuteCommandLists, Signal, Wait, SetEventOnCompletion, a second submission; the copy lands
 *   report   16 pfnReportMessageCb reports as the driver, 8 AddMessage, 8 AddApplicationMessage, with a callback
 *   removal  executing an open list removes the device on the application thread (DXGI_ERROR_INVALID_CALL): DRED's
 *            freeze and its D12RT_DRED_DUMP report, the removal flush, the DRED outputs, the removal message
 *   fault    a GPU page fault (unarmed, on the driver's timeline) surfaced by the application: GetDeviceRemovedReason,
 *            the removal flush, the DRED outputs and the report file */
#define _GNU_SOURCE
#define COBJMACROS

#include <dirent.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "gpu_harness.h"
#include "d12rt/d3d12_ext.h"
#include "d12rt/d3d12ddi.h"
#include "d12_fault.h"

#define MAX_DEFAULT 400u
#define REPORTS 16
#define ADDS 8
#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"
#define MSG_DEVICE_REMOVED ((D3D12_MESSAGE_ID)0x10006)

/* ======== the documented HRESULTs (docs/reliability.md "Failure injection") ======== */

/* What a call that may allocate or call the driver answers under injection: success or out of memory. */
static const HRESULT allowed_oom[] = {S_OK, E_OUTOFMEMORY};

static int g_results_fd = -1; /* the child's line per call site: "site 0xHRESULT" */

/* Record `hr` of call `site`: it must be one of `allowed`. Returns whether it was S_OK. */
static bool expect_in(const char *site, HRESULT hr, const HRESULT *allowed, size_t count, const char *file, int line)
{
    bool ok = false;
    for (size_t i = 0; i < count; i++)
        ok = ok || hr == allowed[i];
    if (!d12test_record(ok, file, line, site))
        fprintf(stderr, "    %s answered 0x%08X, not a documented HRESULT\n", site, (unsigned)hr);
    if (g_results_fd >= 0) {
        char text[128];
        int n = snprintf(text, sizeof text, "%s 0x%08X\n", site, (unsigned)hr);
        ssize_t ignored = write(g_results_fd, text, (size_t)n);
        (void)ignored;
    }
    return hr == S_OK;
}
#define EXPECT(site, hr, allowed) expect_in(site, hr, allowed, sizeof allowed / sizeof allowed[0], __FILE__, __LINE__)
#define EXPECT_OOM(site, hr) EXPECT(site, hr, allowed_oom)

/* ======== the driver shim (tests/drm) ======== */

static HRESULT (*shim_report)(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);

static bool load_shim(void)
{
    void *library = dlopen(getenv("D12RT_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
    if (!CHECK(library != NULL))
        return false;
    *(void **)&shim_report = dlsym(library, "d12_drmshim_report");
    return CHECK(shim_report != NULL);
}

/* ======== setup (unarmed) ======== */

/* Debug layer + driver-reported messages + DRED breadcrumbs, page faults and contexts forced on; how the
 * D3D12GetDebugInterface calls answered (a failure leaves that setting alone). */
static void debug_settings(bool armed_phase)
{
    ID3D12Debug7 *debug = NULL;
    HRESULT hr = D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug);
    if (armed_phase ? EXPECT_OOM("D3D12GetDebugInterface(Debug7)", hr) : CHECK_HR(hr, S_OK)) {
        ID3D12Debug7_EnableDebugLayer(debug);
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    } else {
        CHECK(debug == NULL);
    }
    ID3D12DeviceRemovedExtendedDataSettings1 *dred = NULL;
    hr = D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings1, (void **)&dred);
    if (armed_phase ? EXPECT_OOM("D3D12GetDebugInterface(DREDSettings1)", hr) : CHECK_HR(hr, S_OK)) {
        ID3D12DeviceRemovedExtendedDataSettings1_SetAutoBreadcrumbsEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_SetPageFaultEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_SetBreadcrumbContextEnablement(dred, D3D12_DRED_ENABLEMENT_FORCED_ON);
        ID3D12DeviceRemovedExtendedDataSettings1_Release(dred);
    } else {
        CHECK(dred == NULL);
    }
}

static ID3D12Device *new_device(void)
{
    debug_settings(false);
    ID3D12Device *device = NULL;
    CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device && !load_shim()) {
        ID3D12Device_Release(device);
        return NULL;
    }
    return device;
}

/* Stored messages whose text is exactly `text`. */
static unsigned count_text(ID3D12InfoQueue *iq, const char *text)
{
    unsigned found = 0;
    UINT64 count = ID3D12InfoQueue_GetNumStoredMessages(iq);
    for (UINT64 i = 0; i < count; i++) {
        D3D12_MESSAGE *message = stored_message(iq, i);
        found += message && strcmp(message->pDescription, text) == 0;
        free(message);
    }
    return found;
}

static void fill(ID3D12Resource *buffer, UINT32 value)
{
    unsigned char *data = NULL;
    if (!CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK))
        return;
    for (size_t i = 0; i < 256; i += 4)
        memcpy(data + i, &value, 4);
    ID3D12Resource_Unmap(buffer, 0, NULL);
}

static UINT32 first_word(ID3D12Resource *buffer)
{
    UINT32 value = 0xFFFFFFFFu;
    unsigned char *data = NULL;
    if (CHECK_HR(ID3D12Resource_Map(buffer, 0, NULL, (void **)&data), S_OK)) {
        memcpy(&value, data, sizeof value);
        ID3D12Resource_Unmap(buffer, 0, NULL);
    }
    return value;
}

/* A queue, allocator, closed list holding a copy upload -> readback, fence; buffers filled with `pattern`. */
typedef struct {
    gpu_context ctx;
    ID3D12Resource *upload, *readback;
} copy_setup;

static bool make_copy_setup(ID3D12Device *device, copy_setup *s, UINT32 pattern)
{
    memset(s, 0, sizeof *s);
    if (!make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &s->ctx))
        return false;
    s->upload = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    s->readback = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    if (!s->upload || !s->readback)
        return false;
    fill(s->upload, pattern);
    ID3D12GraphicsCommandList_CopyBufferRegion(s->ctx.list, s->readback, 0, s->upload, 0, 64);
    return CHECK_HR(ID3D12GraphicsCommandList_Close(s->ctx.list), S_OK);
}

static void release_copy_setup(copy_setup *s)
{
    if (s->upload)
        RELEASE_LAST(s->upload);
    if (s->readback)
        RELEASE_LAST(s->readback);
    release_context(&s->ctx);
}

static void check_not_removed(ID3D12Device *device)
{
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), S_OK);
}

/* ======== the phases: each arms around its calls (the runner disarms after) ======== */

typedef struct {
    uint64_t alloc_nth, ddi_nth;
} arming;

/* ---- create ---- */

/* The initialization messages a device made here shows: 1, or 0 when the registry forces the feature off
 * (reliability.fault.create_registry.*: D12RT_HKCU names fault_drm_off.reg, so a device made with the hive skipped
 * would show 1). */
static unsigned expected_init_messages(void)
{
    return getenv("D12_FAULT_REGISTRY_DRM_OFF") ? 0 : 1;
}

static void phase_create(arming a)
{
    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    debug_settings(true);
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    bool created = EXPECT_OOM("D3D12CreateDevice", hr);
    ID3D12InfoQueue *iq = NULL;
    if (created) {
        hr = ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&iq);
        EXPECT_OOM("QueryInterface(InfoQueue)", hr);
    } else {
        CHECK(device == NULL);
    }
    d12_fault_disarm();

    if (device) {
        check_not_removed(device);
        if (iq) {
            ID3D12InfoQueue_SetMuteDebugOutput(iq, TRUE);
            /* The driver's initialization message: once when the feature was enabled; the enable failing leaves it
             * off (a WARNING says so), so at most once. */
            CHECK(count_text(iq, INIT_TEXT) <= expected_init_messages());
            ID3D12InfoQueue_Release(iq);
        }
        /* The live device is the adapter's: creating again returns it. */
        ID3D12Device *again = NULL;
        CHECK_HR(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&again), S_OK);
        CHECK(again == device);
        if (again)
            ID3D12Device_Release(again);
        RELEASE_LAST(device);
    }
    /* Unarmed, a new device comes up whole: the failure left nothing broken behind (adapter, settings). */
    ID3D12Device *fresh = new_device();
    if (!fresh)
        return;
    ID3D12InfoQueue *fresh_iq = info_queue_of(fresh);
    if (fresh_iq) {
        CHECK_EQ_INT(count_text(fresh_iq, INIT_TEXT), expected_init_messages());
        ID3D12InfoQueue_Release(fresh_iq);
    }
    copy_setup s;
    if (make_copy_setup(fresh, &s, 0x1234ABCDu)) {
        execute(s.ctx.queue, s.ctx.list);
        if (finish(&s.ctx))
            CHECK_EQ_INT(first_word(s.readback), 0x1234ABCDu);
    }
    release_copy_setup(&s);
    RELEASE_LAST(fresh);
}

/* ---- record ---- */

static void phase_record(arming a)
{
    ID3D12Device *device = new_device();
    ID3D12CommandQueue *queue = NULL;
    ID3D12Fence *fence = NULL;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (!device ||
        !CHECK_HR(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queue), S_OK) ||
        !CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence), S_OK))
        return;

    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Resource *upload = NULL, *readback = NULL;
    HRESULT close_hr = E_FAIL;
    bool copied = false;
    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    bool ok = EXPECT_OOM("CreateCommandAllocator",
                         ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                             &IID_ID3D12CommandAllocator, (void **)&allocator));
    CHECK(ok == (allocator != NULL));
    if (allocator) {
        ok = EXPECT_OOM("CreateCommandList",
                        ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                       &IID_ID3D12GraphicsCommandList, (void **)&list));
        CHECK(ok == (list != NULL));
    }
    ok = EXPECT_OOM("CreateCommittedResource(UPLOAD)", create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256, &upload));
    CHECK(ok == (upload != NULL));
    ok = EXPECT_OOM("CreateCommittedResource(READBACK)",
                    create_buffer(device, D3D12_HEAP_TYPE_READBACK, 256, &readback));
    CHECK(ok == (readback != NULL));
    void *mapped = NULL;
    if (upload && EXPECT_OOM("Map", ID3D12Resource_Map(upload, 0, NULL, &mapped))) {
        memset(mapped, 0x5A, 256);
        ID3D12Resource_Unmap(upload, 0, NULL);
    }
    if (list) {
        EXPECT_OOM("SetName", ID3D12GraphicsCommandList_SetName(list, L"fault sweep list"));
        copied = upload && readback;
        if (copied)
            ID3D12GraphicsCommandList_CopyBufferRegion(list, readback, 0, upload, 0, 64);
        for (int i = 0; i < 3; i++)
            ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Dispatch(list, 1, 1, 1);
        D3D12_RESOURCE_BARRIER barrier = {0};
        barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
        ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &barrier);
        close_hr = ID3D12GraphicsCommandList_Close(list);
        EXPECT_OOM("Close", close_hr);
    }
    d12_fault_disarm();
    check_not_removed(device);

    /* Unarmed: whatever failed is made again, a list whose Close failed records again, and the copy runs. */
    if (!allocator)
        CHECK_HR(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                     &IID_ID3D12CommandAllocator, (void **)&allocator), S_OK);
    if (!list && allocator && CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                                      allocator, NULL, &IID_ID3D12GraphicsCommandList,
                                                                      (void **)&list), S_OK))
        close_hr = E_FAIL; /* a new open list: record below */
    if (!upload)
        CHECK_HR(create_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256, &upload), S_OK);
    if (!readback)
        CHECK_HR(create_buffer(device, D3D12_HEAP_TYPE_READBACK, 256, &readback), S_OK);
    if (!list || !upload || !readback)
        goto out;
    fill(upload, 0x5A5A5A5Au);
    if (close_hr != S_OK || !copied) {
        if (close_hr != E_FAIL) /* closed (with the error, or without the copy): Reset starts a new recording */
            CHECK_HR(ID3D12GraphicsCommandList_Reset(list, allocator, NULL), S_OK);
        ID3D12GraphicsCommandList_CopyBufferRegion(list, readback, 0, upload, 0, 64);
        CHECK_HR(ID3D12GraphicsCommandList_Close(list), S_OK);
    }
    execute(queue, list);
    CHECK_HR(ID3D12CommandQueue_Signal(queue, fence, 1), S_OK);
    if (CHECK(wait_fence(fence, 1)))
        CHECK_EQ_INT(first_word(readback), 0x5A5A5A5Au);
    check_not_removed(device);
out:
    if (list)
        RELEASE_LAST(list);
    if (allocator)
        RELEASE_LAST(allocator);
    if (upload)
        RELEASE_LAST(upload);
    if (readback)
        RELEASE_LAST(readback);
    RELEASE_LAST(queue);
    RELEASE_LAST(fence);
    RELEASE_LAST(device);
}

/* ---- submit ---- */

static void phase_submit(arming a)
{
    ID3D12Device *device = new_device();
    copy_setup s;
    ID3D12Fence *gate = NULL;
    if (!device || !make_copy_setup(device, &s, 0xC0FFEE00u) ||
        !CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&gate), S_OK))
        return;
    int event = new_event();

    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    execute(s.ctx.queue, s.ctx.list);
    bool signalled = EXPECT_OOM("Signal", ID3D12CommandQueue_Signal(s.ctx.queue, s.ctx.fence, 1));
    bool registered = EXPECT_OOM("SetEventOnCompletion",
                                 ID3D12Fence_SetEventOnCompletion(s.ctx.fence, 1, as_handle(event)));
    EXPECT_OOM("Wait", ID3D12CommandQueue_Wait(s.ctx.queue, gate, 0));
    execute(s.ctx.queue, s.ctx.list);
    bool signalled2 = EXPECT_OOM("Signal(2)", ID3D12CommandQueue_Signal(s.ctx.queue, s.ctx.fence, 2));
    d12_fault_disarm();

    /* What was accepted runs: the event of an accepted Signal fires, the copy lands. */
    if (signalled && registered)
        CHECK(fired(event, WAIT_MS, NULL));
    CHECK_HR(ID3D12CommandQueue_Signal(s.ctx.queue, s.ctx.fence, 3), S_OK);
    if (CHECK(wait_fence(s.ctx.fence, 3)))
        CHECK_EQ_INT(first_word(s.readback), 0xC0FFEE00u);
    (void)signalled2;
    check_not_removed(device);
    close(event);
    RELEASE_LAST(gate);
    release_copy_setup(&s);
    RELEASE_LAST(device);
}

/* ---- report ---- */

static unsigned g_delivered[REPORTS + 2 * ADDS]; /* callback deliveries per message of this phase */

static void count_delivery(D3D12_MESSAGE_CATEGORY category, D3D12_MESSAGE_SEVERITY severity, D3D12_MESSAGE_ID id,
                           LPCSTR description, void *context)
{
    (void)category, (void)severity, (void)id, (void)context;
    unsigned index = 0;
    if (description && sscanf(description, "fault sweep message %u", &index) == 1 && index < REPORTS + 2 * ADDS)
        g_delivered[index]++;
}

static void phase_report(arming a)
{
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *iq1 = NULL;
    if (!device ||
        !CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&iq1), S_OK))
        return;
    ID3D12InfoQueue1_SetMuteDebugOutput(iq1, TRUE);
    DWORD cookie = 0;
    CHECK_HR(ID3D12InfoQueue1_RegisterMessageCallback(iq1, count_delivery, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                                      &cookie), S_OK);
    UINT64 stored_before = ID3D12InfoQueue1_GetNumStoredMessages(iq1);
    HRESULT result[REPORTS + 2 * ADDS];
    char text[REPORTS + 2 * ADDS][64];
    for (unsigned i = 0; i < REPORTS + 2 * ADDS; i++)
        snprintf(text[i], sizeof text[i], "fault sweep message %u", i);

    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    for (unsigned i = 0; i < REPORTS; i++) {
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {0xD12F00 + i, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                                   D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text[i], 0xFFFFFFFFu};
        result[i] = shim_report(&m);
        EXPECT_OOM("pfnReportMessageCb", result[i]);
    }
    for (unsigned i = REPORTS; i < REPORTS + ADDS; i++) {
        result[i] = ID3D12InfoQueue1_AddMessage(iq1, D3D12_MESSAGE_CATEGORY_MISCELLANEOUS,
                                                D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_ID_UNKNOWN, text[i]);
        EXPECT_OOM("AddMessage", result[i]);
    }
    for (unsigned i = REPORTS + ADDS; i < REPORTS + 2 * ADDS; i++) {
        result[i] = ID3D12InfoQueue1_AddApplicationMessage(iq1, D3D12_MESSAGE_SEVERITY_WARNING, text[i]);
        EXPECT_OOM("AddApplicationMessage", result[i]);
    }
    d12_fault_disarm();

    /* Exactly-once accounting: an accepted message is stored once and delivered once; a refused one neither. */
    unsigned accepted = 0;
    for (unsigned i = 0; i < REPORTS + 2 * ADDS; i++) {
        unsigned expected = result[i] == S_OK;
        accepted += expected;
        unsigned stored = count_text((ID3D12InfoQueue *)iq1, text[i]);
        if (!d12test_record(stored == expected && g_delivered[i] == expected, __FILE__, __LINE__, "exactly once"))
            fprintf(stderr, "    message %u: report 0x%08X, stored %u, delivered %u\n", i, (unsigned)result[i],
                    stored, g_delivered[i]);
    }
    CHECK_EQ_INT(ID3D12InfoQueue1_GetNumStoredMessages(iq1), stored_before + accepted);
    /* Unarmed, reporting works again. */
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {1, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "after the sweep", 0xFFFFFFFFu};
    CHECK_HR(shim_report(&m), S_OK);
    CHECK_EQ_INT(count_text((ID3D12InfoQueue *)iq1, "after the sweep"), 1);
    check_not_removed(device);
    CHECK_HR(ID3D12InfoQueue1_UnregisterMessageCallback(iq1, cookie), S_OK);
    ID3D12InfoQueue1_Release(iq1);
    RELEASE_LAST(device);
}

/* ---- removal and fault ---- */

/* Report files this process wrote into D12RT_DRED_DUMP (removed once counted); each must be a whole JSON object. */
static unsigned count_reports(void)
{
    const char *dir = getenv("D12RT_DRED_DUMP");
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "d12dred-%d-", (int)getpid());
    unsigned found = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        FILE *file = fopen(path, "r");
        char first = 0, last = 0;
        int c;
        while (file && (c = fgetc(file)) != EOF) {
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
                continue;
            if (!first)
                first = (char)c;
            last = (char)c;
        }
        if (file)
            fclose(file);
        if (!d12test_record(first == '{' && last == '}', __FILE__, __LINE__, "the report is a whole JSON object"))
            fprintf(stderr, "    %s\n", path);
        unlink(path);
        found++;
    }
    closedir(d);
    return found;
}

/* What the armed GetAutoBreadcrumbsOutput answered: E_OUTOFMEMORY when DRED's freeze could not allocate its
 * output, which then stays so (the GPU state it records is gone); the unarmed read must answer the same. */
static HRESULT g_armed_breadcrumbs = S_OK;

/* The DRED outputs of a removed device, armed: S_OK or E_OUTOFMEMORY each. */
static void read_dred(ID3D12Device *device)
{
    ID3D12DeviceRemovedExtendedData *dred = NULL;
    if (!EXPECT_OOM("QueryInterface(DRED)",
                    ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData, (void **)&dred)))
        return;
    D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT breadcrumbs = {0};
    D3D12_DRED_PAGE_FAULT_OUTPUT fault = {0};
    g_armed_breadcrumbs = ID3D12DeviceRemovedExtendedData_GetAutoBreadcrumbsOutput(dred, &breadcrumbs);
    EXPECT_OOM("GetAutoBreadcrumbsOutput", g_armed_breadcrumbs);
    EXPECT_OOM("GetPageFaultAllocationOutput",
               ID3D12DeviceRemovedExtendedData_GetPageFaultAllocationOutput(dred, &fault));
    ID3D12DeviceRemovedExtendedData_Release(dred);
}

/* After a removal, unarmed: one reason, the outputs readable, at most one removal message and one report. */
static void check_removal(ID3D12Device *device, ID3D12InfoQueue *iq, HRESULT reason)
{
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), reason);
    ID3D12DeviceRemovedExtendedData *dred = NULL;
    if (CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12DeviceRemovedExtendedData, (void **)&dred), S_OK)) {
        D3D12_DRED_AUTO_BREADCRUMBS_OUTPUT breadcrumbs = {0};
        CHECK_HR(ID3D12DeviceRemovedExtendedData_GetAutoBreadcrumbsOutput(dred, &breadcrumbs), g_armed_breadcrumbs);
        ID3D12DeviceRemovedExtendedData_Release(dred);
    }
    CHECK(count_id(iq, MSG_DEVICE_REMOVED, NULL, NULL) <= 1);
    CHECK(count_reports() <= 1);
    ID3D12Fence *another = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&another),
             DXGI_ERROR_DEVICE_REMOVED);
}

static void phase_removal(arming a)
{
    ID3D12Device *device = new_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    copy_setup s;
    ID3D12GraphicsCommandList *open = NULL;
    if (!iq || !make_copy_setup(device, &s, 0x0BADF00Du) ||
        !CHECK_HR(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, s.ctx.allocator, NULL,
                                                 &IID_ID3D12GraphicsCommandList, (void **)&open), S_OK))
        return;
    execute(s.ctx.queue, s.ctx.list);
    finish(&s.ctx); /* breadcrumbs of completed work for the report */

    static const HRESULT allowed_removed[] = {DXGI_ERROR_INVALID_CALL};
    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    execute(s.ctx.queue, open); /* still recording: removes the device (DXGI_ERROR_INVALID_CALL) */
    EXPECT("GetDeviceRemovedReason", ID3D12Device_GetDeviceRemovedReason(device), allowed_removed);
    read_dred(device);
    static const HRESULT allowed_signal[] = {DXGI_ERROR_DEVICE_REMOVED};
    EXPECT("Signal(removed)", ID3D12CommandQueue_Signal(s.ctx.queue, s.ctx.fence, 10), allowed_signal);
    d12_fault_disarm();

    check_removal(device, iq, DXGI_ERROR_INVALID_CALL);
    CHECK(ID3D12Fence_GetCompletedValue(s.ctx.fence) == UINT64_MAX);
    RELEASE_LAST(open);
    release_copy_setup(&s);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

static void phase_fault(arming a)
{
    ID3D12Device *device = new_device();
    ID3D12InfoQueue *iq = device ? info_queue_of(device) : NULL;
    gpu_context ctx;
    if (!iq || !make_context(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &ctx))
        return;
    ID3D12Resource *dst = make_buffer(device, D3D12_HEAP_TYPE_READBACK, 256);
    ID3D12Resource *doomed = make_buffer(device, D3D12_HEAP_TYPE_UPLOAD, 256);
    if (!dst || !doomed)
        return;
    ID3D12GraphicsCommandList_CopyBufferRegion(ctx.list, dst, 0, doomed, 0, 64);
    RELEASE_LAST(doomed); /* after recording, before execution: the copy page-faults on the GPU */
    CHECK_HR(ID3D12GraphicsCommandList_Close(ctx.list), S_OK);
    int event = new_event();
    CHECK_HR(ID3D12Fence_SetEventOnCompletion(ctx.fence, 1, as_handle(event)), S_OK);
    /* The queue held on a gate until the Signal is in, so the fault comes after it (tests/dred_gpu's submit_gated). */
    ID3D12Fence *gate = NULL;
    CHECK_HR(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&gate), S_OK);
    CHECK_HR(ID3D12CommandQueue_Wait(ctx.queue, gate, 1), S_OK);
    execute(ctx.queue, ctx.list);
    CHECK_HR(ID3D12CommandQueue_Signal(ctx.queue, ctx.fence, 1), S_OK);
    CHECK_HR(ID3D12Fence_Signal(gate, 1), S_OK);
    RELEASE_LAST(gate);
    CHECK(fired(event, WAIT_MS, NULL)); /* removal sets every fence to UINT64_MAX */

    static const HRESULT allowed_hung[] = {DXGI_ERROR_DEVICE_HUNG};
    d12_fault_arm(a.alloc_nth, a.ddi_nth);
    EXPECT("GetDeviceRemovedReason", ID3D12Device_GetDeviceRemovedReason(device), allowed_hung);
    read_dred(device);
    d12_fault_disarm();

    check_removal(device, iq, DXGI_ERROR_DEVICE_HUNG);
    close(event);
    RELEASE_LAST(dst);
    release_context(&ctx);
    ID3D12InfoQueue_Release(iq);
    RELEASE_LAST(device);
}

/* ======== the sweep ======== */

/* `driver_calls`: whether the phase makes runtime->driver calls that return an HRESULT. Submission, reporting and
 * removal call only VOID entry points (pfnExecuteCommandLists, pfnSignalFence, pfnWaitForFence,
 * pfnFlushDriverReportedMessages) or none: their ddi sweep proves there is nothing to fail (0 counted). */
static const struct {
    const char *name;
    void (*run)(arming);
    bool driver_calls;
} g_phases[] = {
    {"create", phase_create, true}, {"record", phase_record, true}, {"submit", phase_submit, false},
    {"report", phase_report, false}, {"removal", phase_removal, false}, {"fault", phase_fault, false},
};

typedef struct {
    uint64_t calls, injected;
} child_counts;

void *volatile g_leak; /* D12_FAULT_SWEEP_LEAK's block, unreachable once overwritten */

/* The child: run the phase with the Nth call of `kind` failing (0: none), report the counts on `counts_fd` and the
 * call sites' answers on `results_fd`; exit (not _exit: LeakSanitizer runs at exit) 0 when every check held. */
static void child(void (*run)(arming), bool ddi, uint64_t nth, int counts_fd, int results_fd)
{
    g_results_fd = results_fd;
    d12test_passed = d12test_failed = 0; /* not the parent's (forked) */
    arming a = {ddi ? 0 : nth, ddi ? nth : 0};
    run(a);
    d12_fault_disarm();
    /* Tests of the sweep itself (reliability.fault.sweep_catches_*, WILL_FAIL): a child that crashes or leaks. */
    if (nth == 2 && getenv("D12_FAULT_SWEEP_CRASH"))
        raise(SIGSEGV);
    if (nth == 2 && getenv("D12_FAULT_SWEEP_LEAK")) {
        g_leak = malloc(64);
        g_leak = NULL; /* the only pointer to it is gone */
    }
    child_counts counts = {ddi ? d12_fault_ddi_calls() : d12_fault_allocations(), d12_fault_injected()};
    if (nth && !d12test_record(counts.injected == 1, __FILE__, __LINE__, "the Nth call was reached"))
        fprintf(stderr, "    %llu failures injected\n", (unsigned long long)counts.injected);
    ssize_t ignored = write(counts_fd, &counts, sizeof counts);
    (void)ignored;
    fflush(NULL);
    exit(d12test_failed || !d12test_passed ? 1 : 0);
}

/* Call sites and the HRESULTs they answered over the sweep. */
#define MAX_SITES 64
static struct {
    char site[64];
    unsigned hr;
    unsigned times;
} g_seen[MAX_SITES];

static void tally(const char *lines)
{
    char site[64];
    unsigned hr;
    int used;
    while (sscanf(lines, "%63s 0x%X\n%n", site, &hr, &used) == 2) {
        lines += used;
        int i = 0;
        while (i < MAX_SITES && g_seen[i].times && (strcmp(g_seen[i].site, site) != 0 || g_seen[i].hr != hr))
            i++;
        if (i == MAX_SITES)
            continue;
        snprintf(g_seen[i].site, sizeof g_seen[i].site, "%s", site);
        g_seen[i].hr = hr;
        g_seen[i].times++;
    }
}

/* Run one child; whether it passed. *counts gets what it reported. */
static bool run_child(void (*run)(arming), bool ddi, uint64_t nth, child_counts *counts)
{
    int counts_pipe[2], results_pipe[2];
    if (pipe(counts_pipe) != 0 || pipe(results_pipe) != 0)
        return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(counts_pipe[0]);
        close(results_pipe[0]);
        child(run, ddi, nth, counts_pipe[1], results_pipe[1]);
    }
    close(counts_pipe[1]);
    close(results_pipe[1]);
    static char results[1 << 16];
    size_t length = 0;
    ssize_t n;
    while ((n = read(results_pipe[0], results + length, sizeof results - 1 - length)) > 0)
        length += (size_t)n;
    results[length] = '\0';
    close(results_pipe[0]);
    memset(counts, 0, sizeof *counts);
    bool reported = read(counts_pipe[0], counts, sizeof *counts) == (ssize_t)sizeof *counts;
    close(counts_pipe[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    tally(results);
    bool passed = reported && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!passed)
        fprintf(stderr, "    N=%llu: %s %d\n", (unsigned long long)nth,
                WIFSIGNALED(status) ? "killed by signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return passed;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "alloc") != 0 && strcmp(argv[2], "ddi") != 0)) {
        fprintf(stderr, "usage: test_fault_sweep PHASE alloc|ddi [MAX]\n");
        return 2;
    }
    void (*run)(arming) = NULL;
    bool driver_calls = false;
    for (size_t i = 0; i < sizeof g_phases / sizeof g_phases[0]; i++) {
        if (strcmp(argv[1], g_phases[i].name) == 0) {
            run = g_phases[i].run;
            driver_calls = g_phases[i].driver_calls;
        }
    }
    if (!run) {
        fprintf(stderr, "unknown phase %s\n", argv[1]);
        return 2;
    }
    bool ddi = strcmp(argv[2], "ddi") == 0;
    if (argc > 3 && argv[3][0] == '=') { /* "=N": run the child for N alone, in this process (to debug one N) */
        int results = open("/dev/null", O_WRONLY), counts = open("/dev/null", O_WRONLY);
        child(run, ddi, strtoull(argv[3] + 1, NULL, 0), counts, results);
    }
    uint64_t max = argc > 3 ? strtoull(argv[3], NULL, 0) : MAX_DEFAULT;

    child_counts counts;
    if (!CHECK(run_child(run, ddi, 0, &counts)))
        return d12test_finish();
    uint64_t total = counts.calls;
    /* The calls that count must exist, or the sweep proves nothing; a phase without failable driver calls has none. */
    if (!d12test_record(ddi && !driver_calls ? total == 0 : total > 0, __FILE__, __LINE__, "calls counted"))
        fprintf(stderr, "    %llu calls counted\n", (unsigned long long)total);
    uint64_t swept = 0, failed = 0;
    for (uint64_t nth = 1; nth <= total; nth++) {
        bool edge = nth <= max / 4 || nth > total - max / 4;
        uint64_t stride = total > max ? (total + max / 2 - 1) / (max / 2) : 1;
        if (total > max && !edge && nth % stride != 0)
            continue;
        swept++;
        child_counts c;
        if (!CHECK(run_child(run, ddi, nth, &c))) {
            failed++;
            fprintf(stderr, "    ^ %s %s N=%llu of %llu failed\n", argv[1], argv[2], (unsigned long long)nth,
                    (unsigned long long)total);
        }
    }
    printf("%s %s: %llu calls counted, %llu swept, %llu failed\n", argv[1], argv[2], (unsigned long long)total,
           (unsigned long long)swept, (unsigned long long)failed);
    for (int i = 0; i < MAX_SITES && g_seen[i].times; i++)
        printf("  %-40s 0x%08X x%u\n", g_seen[i].site, g_seen[i].hr, g_seen[i].times);
    return d12test_finish();
}
