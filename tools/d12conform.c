/* d12conform: the driver-reported-messages conformance suite (driver-reported-messages.txt v0.3; issue 10;
 * docs/conformance.md). Driver-agnostic: it uses libd12rt's public API, d12rt/d3d12ddi.h's constants, the documented
 * settings (D12RT_DRIVER, D12RT_HKCU/D12RT_HKLM, D12RT_APP_NAME) and the DDI trace (D12RT_DDI_TRACE) — never a
 * driver's private export or its message text.
 *
 *   d12conform [--driver PATH] [--list] [--run GLOB] [--json] [--junit FILE] [--timeout SECONDS]
 *
 * Each test runs in its own process (a re-exec of this program with --child NAME and a fresh environment: the trace
 * and the debug settings are per process), killed after the timeout; a crash or a hang fails that test only. */
#define _GNU_SOURCE
#define COBJMACROS
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "d12conform_v2.h" /* the version-2 tests (issue 20) */

#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"

typedef enum { PASS = 0, FAIL = 1, NOT_EXERCISED = 3 } outcome;

/* ======== failure reporting inside a child ======== */

static outcome g_result = PASS;

__attribute__((format(printf, 1, 2))) static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stdout, "    ");
    vfprintf(stdout, format, args);
    fputc('\n', stdout);
    va_end(args);
    g_result = FAIL;
}

#define EXPECT(cond, ...)                                                                                         \
    do {                                                                                                          \
        if (!(cond))                                                                                              \
            fail(__VA_ARGS__);                                                                                    \
    } while (0)

static void sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ======== the DDI trace (docs/conformance.md, "The DDI trace") ======== */

typedef struct record {
    char dir;          /* '>' runtime -> driver, '<' driver -> runtime */
    unsigned long id;  /* '>' lines: the call number */
    char name[64];
    char *line;
} record;

typedef struct trace {
    record *r;
    size_t count;
} trace;

static char g_trace_path[PATH_MAX];

static void trace_free(trace *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->r[i].line);
    free(t->r);
    t->r = NULL;
    t->count = 0;
}

/* The trace as written so far (the runtime writes each line before the call it describes returns). */
static trace trace_read(void)
{
    trace t = {0};
    FILE *file = fopen(g_trace_path, "r");
    char *line = NULL;
    size_t size = 0, capacity = 0;
    ssize_t length;
    while (file && (length = getline(&line, &size, file)) > 0) {
        if (line[0] != '>' && line[0] != '<')
            continue;
        if (line[length - 1] == '\n')
            line[length - 1] = '\0';
        if (t.count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            t.r = realloc(t.r, capacity * sizeof *t.r);
        }
        record *r = &t.r[t.count++];
        memset(r, 0, sizeof *r);
        r->dir = line[0];
        r->line = strdup(line);
        if (r->dir == '>')
            sscanf(line, "> #%lu t=%*d %63s", &r->id, r->name);
        else
            sscanf(line, "< t=%*d %63s", r->name);
    }
    free(line);
    if (file)
        fclose(file);
    return t;
}

/* The value of `key=` in a record, or NULL. The line is scanned token by token, a quoted value (\" and \\ escaped)
 * being one token, so a description that contains " hr=" cannot be mistaken for the field. */
static const char *field(const record *r, const char *key, char *out, size_t size)
{
    size_t key_length = strlen(key);
    for (const char *p = r->line; *p;) {
        while (*p == ' ')
            p++;
        const char *equals = strchr(p, '=');
        const char *space = strchr(p, ' ');
        bool match = equals && (!space || equals < space) && (size_t)(equals - p) == key_length &&
                     strncmp(p, key, key_length) == 0;
        const char *v = equals && (!space || equals < space) ? equals + 1 : p;
        size_t n = 0;
        if (*v == '"') {
            for (v++; *v && *v != '"'; v++) {
                char c = *v;
                if (*v == '\\' && v[1] == 'n') {
                    c = '\n';
                    v++;
                } else if (*v == '\\' && v[1] == 'x' && v[2] && v[3]) {
                    char hex[3] = {v[2], v[3], 0};
                    c = (char)strtol(hex, NULL, 16);
                    v += 3;
                } else if (*v == '\\' && v[1]) {
                    c = *++v;
                }
                if (match && n + 1 < size)
                    out[n++] = c;
            }
            if (*v == '"')
                v++;
        } else {
            for (; *v && *v != ' '; v++) {
                if (match && n + 1 < size)
                    out[n++] = *v;
            }
        }
        if (match) {
            out[n] = '\0';
            return out;
        }
        p = v;
    }
    return NULL;
}

static unsigned long long field_u(const record *r, const char *key)
{
    char buffer[64];
    return field(r, key, buffer, sizeof buffer) ? strtoull(buffer, NULL, 0) : ~0ull;
}

static bool is(const record *r, const char *name)
{
    return strcmp(r->name, name) == 0;
}

/* How many records named `name` the trace holds right now. */
static size_t count_now(const char *name)
{
    trace t = trace_read();
    size_t n = 0;
    for (size_t i = 0; i < t.count; i++)
        n += is(&t.r[i], name);
    trace_free(&t);
    return n;
}

/* The `in=` call name of a callback record ("-" when none). */
static const char *inside(const record *r, char *out, size_t size)
{
    if (!field(r, "in", out, size))
        return "-";
    char *colon = strchr(out, ':');
    return colon ? colon + 1 : out;
}

/* Devices in the trace: hRTDevice and hDrvDevice from pfnCreateDevice, and the record index of its
 * pfnDestroyDevice (SIZE_MAX while alive). */
typedef struct device_life {
    char rt[32], drv[32];
    size_t created, destroyed;
} device_life;

static size_t devices_of(const trace *t, device_life *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++) {
        const record *r = &t->r[i];
        if (is(r, "pfnCreateDevice") && n < max) {
            field(r, "hRTDevice", out[n].rt, sizeof out[n].rt);
            field(r, "hDrvDevice", out[n].drv, sizeof out[n].drv);
            out[n].created = i;
            out[n].destroyed = SIZE_MAX;
            n++;
        } else if (is(r, "pfnDestroyDevice")) {
            char h[32];
            field(r, "hDevice", h, sizeof h);
            for (size_t d = n; d-- > 0;) {
                if (out[d].destroyed == SIZE_MAX && strcmp(out[d].drv, h) == 0) {
                    out[d].destroyed = i;
                    break;
                }
            }
        }
    }
    return n;
}

/* ======== the application side ======== */

static bool debug_settings(bool debug_layer, int drm /* -1: leave */)
{
    ID3D12Debug7 *debug = NULL;
    if (FAILED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))) {
        fail("D3D12GetDebugInterface(ID3D12Debug7) failed");
        return false;
    }
    if (debug_layer)
        ID3D12Debug7_EnableDebugLayer(debug);
    if (drm >= 0)
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, drm ? TRUE : FALSE);
    ID3D12Debug7_Release(debug);
    return true;
}

static ID3D12Device *new_device(void)
{
    ID3D12Device *device = NULL;
    HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
    if (FAILED(hr)) {
        fail("D3D12CreateDevice failed (0x%08X)", (unsigned)hr);
        return NULL;
    }
    return device;
}

static ID3D12InfoQueue1 *info_queue(ID3D12Device *device)
{
    ID3D12InfoQueue1 *queue = NULL;
    if (FAILED(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue1, (void **)&queue)))
        return NULL;
    ID3D12InfoQueue1_SetMuteDebugOutput(queue, TRUE);
    return queue;
}

static D3D12_MESSAGE *stored(ID3D12InfoQueue1 *queue, UINT64 i)
{
    SIZE_T length = 0;
    if (FAILED(ID3D12InfoQueue1_GetMessage(queue, i, NULL, &length)))
        return NULL;
    D3D12_MESSAGE *message = malloc(length);
    if (message && FAILED(ID3D12InfoQueue1_GetMessage(queue, i, message, &length))) {
        free(message);
        message = NULL;
    }
    return message;
}

/* A queue with an allocator, a list (closed), a fence and two buffers for copies. */
typedef struct gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 fence_value;
    ID3D12Resource *src, *dst;
} gpu;

static ID3D12Resource *buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width)
{
    D3D12_HEAP_PROPERTIES heap = {0};
    heap.Type = type;
    D3D12_RESOURCE_DESC desc = {0};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = width;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    D3D12_RESOURCE_STATES state = type == D3D12_HEAP_TYPE_UPLOAD ? D3D12_RESOURCE_STATE_GENERIC_READ
                                                                 : D3D12_RESOURCE_STATE_COPY_DEST;
    ID3D12Resource *resource = NULL;
    HRESULT hr = ID3D12Device_CreateCommittedResource(device, &heap, D3D12_HEAP_FLAG_NONE, &desc, state, NULL,
                                                      &IID_ID3D12Resource, (void **)&resource);
    if (FAILED(hr))
        fail("CreateCommittedResource failed (0x%08X)", (unsigned)hr);
    return resource;
}

static bool gpu_open(gpu *g, ID3D12Device *device)
{
    memset(g, 0, sizeof *g);
    g->device = device;
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    if (FAILED(ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&g->queue)) ||
        FAILED(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT, &IID_ID3D12CommandAllocator,
                                                   (void **)&g->allocator)) ||
        FAILED(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocator, NULL,
                                              &IID_ID3D12GraphicsCommandList, (void **)&g->list)) ||
        FAILED(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&g->fence))) {
        fail("creating a queue, allocator, list or fence failed");
        return false;
    }
    g->src = buffer(device, D3D12_HEAP_TYPE_UPLOAD, 4096);
    g->dst = buffer(device, D3D12_HEAP_TYPE_READBACK, 4096);
    ID3D12GraphicsCommandList_Close(g->list);
    return g->src && g->dst;
}

/* Record a copy, a draw and a dispatch (GPU work of each kind) into the list. */
static void record_work(gpu *g)
{
    ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL);
    ID3D12GraphicsCommandList_CopyBufferRegion(g->list, g->dst, 0, g->src, 0, 256);
    ID3D12GraphicsCommandList_DrawInstanced(g->list, 3, 1, 0, 0);
    ID3D12GraphicsCommandList_Dispatch(g->list, 1, 1, 1);
    ID3D12GraphicsCommandList_Close(g->list);
}

static void execute(gpu *g)
{
    ID3D12CommandList *lists[] = {(ID3D12CommandList *)g->list};
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
}

/* Signal the queue and wait on the CPU until the GPU got there. */
static bool signal_and_wait(gpu *g)
{
    g->fence_value++;
    ID3D12CommandQueue_Signal(g->queue, g->fence, g->fence_value);
    for (int i = 0; i < 5000; i++) {
        if (ID3D12Fence_GetCompletedValue(g->fence) >= g->fence_value)
            return true;
        sleep_ms(1);
    }
    fail("the fence did not reach %llu within 5 s", (unsigned long long)g->fence_value);
    return false;
}

/* The queue first: its destruction finishes the work submitted, which may still read the buffers (in D3D12 the
 * application keeps a submission's resources alive until the GPU is done with them). */
static void gpu_close(gpu *g)
{
    if (g->queue)
        ID3D12CommandQueue_Release(g->queue);
    if (g->src)
        ID3D12Resource_Release(g->src);
    if (g->dst)
        ID3D12Resource_Release(g->dst);
    if (g->fence)
        ID3D12Fence_Release(g->fence);
    if (g->list)
        ID3D12GraphicsCommandList_Release(g->list);
    if (g->allocator)
        ID3D12CommandAllocator_Release(g->allocator);
}

/* A workload through every flush point: execute + signal + wait, execute again, Wait, queue destruction. */
static void workload(ID3D12Device *device)
{
    gpu g;
    if (!gpu_open(&g, device)) {
        gpu_close(&g);
        return;
    }
    for (int i = 0; i < 3; i++) {
        record_work(&g);
        execute(&g);
        signal_and_wait(&g);
    }
    ID3D12CommandQueue_Wait(g.queue, g.fence, g.fence_value);
    execute(&g);
    gpu_close(&g);
}

/* One device's life with the settings given, the workload, then its release. */
static void device_life_with(bool debug_layer, int drm)
{
    if (!debug_settings(debug_layer, drm))
        return;
    ID3D12Device *device = new_device();
    if (!device)
        return;
    workload(device);
    ID3D12Device_Release(device);
}

static void write_registry(const char *values)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s.reg", g_trace_path);
    FILE *file = fopen(path, "w");
    if (!file) {
        fail("cannot write %s", path);
        return;
    }
    fprintf(file, "Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\"
            "Direct3D12\\%s]\n%s", getenv("D12RT_APP_NAME"), values);
    fclose(file);
}

/* ======== checks over the trace ======== */

static size_t count_records(const trace *t, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += is(&t->r[i], name);
    return n;
}

/* The feature's own DDI never called (the device was not enabled). */
static void expect_feature_off(const trace *t, const char *why)
{
    size_t enables = count_records(t, "pfnEnableExtendedFeature"), flushes = count_records(t, "pfnFlushDriverReportedMessages"),
           indices = count_records(t, "pfnSetCommandListStateIndex");
    EXPECT(enables == 0, "%s: pfnEnableExtendedFeature was called %zu times", why, enables);
    EXPECT(flushes == 0, "%s: pfnFlushDriverReportedMessages was called %zu times", why, flushes);
    EXPECT(indices == 0, "%s: pfnSetCommandListStateIndex was called %zu times", why, indices);
    for (size_t i = 0; i < t->count; i++) {
        char type[16];
        if (is(&t->r[i], "pfnFillDDITable") && field(&t->r[i], "tableType", type, sizeof type) && atoi(type) == 47)
            fail("%s: the driver-reported-messages table (47) was filled", why);
    }
}

static bool feature_advertised(const trace *t)
{
    /* the driver listed feature 32 when the runtime asked for its versions */
    for (size_t i = 0; i < t->count; i++) {
        if (is(&t->r[i], "pfnGetSupportedExtendedFeatureVersions") && field_u(&t->r[i], "Feature") == 32)
            return true;
    }
    return false;
}

static void expect_feature_on(const trace *t)
{
    size_t enables = count_records(t, "pfnEnableExtendedFeature");
    EXPECT(enables == 1, "pfnEnableExtendedFeature was called %zu times (expected once)", enables);
}

/* ======== the tests ======== */

/* -- the initialization message -- */

/* Reports made inside pfnEnableExtendedFeature, and all reports, of the first device. */
static void init_reports(const trace *t, const record **first_inside, size_t *inside_count, size_t *all_count)
{
    *first_inside = NULL;
    *inside_count = *all_count = 0;
    for (size_t i = 0; i < t->count; i++) {
        char in[96];
        if (!is(&t->r[i], "pfnReportMessageCb"))
            continue;
        ++*all_count;
        if (strcmp(inside(&t->r[i], in, sizeof in), "pfnEnableExtendedFeature") == 0) {
            if (!*first_inside)
                *first_inside = &t->r[i];
            ++*inside_count;
        }
    }
}

static trace enabled_device_trace(void)
{
    trace t = {0};
    if (!debug_settings(true, 1))
        return t;
    ID3D12Device *device = new_device();
    if (device)
        ID3D12Device_Release(device);
    return trace_read();
}

static outcome t_init_once(void)
{
    trace t = enabled_device_trace();
    if (!feature_advertised(&t)) {
        fail("the driver does not advertise D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES");
        return g_result;
    }
    const record *first;
    size_t in_enable, all;
    init_reports(&t, &first, &in_enable, &all);
    EXPECT(in_enable == 1, "%zu reports were made inside pfnEnableExtendedFeature (exactly one is required)", in_enable);
    trace_free(&t);
    return g_result;
}

static outcome t_init_before_return(void)
{
    trace t = enabled_device_trace();
    const record *first;
    size_t in_enable, all;
    init_reports(&t, &first, &in_enable, &all);
    /* the first report of the device must come from inside the enable call */
    for (size_t i = 0; i < t.count; i++) {
        char in[96];
        if (is(&t.r[i], "pfnReportMessageCb")) {
            EXPECT(strcmp(inside(&t.r[i], in, sizeof in), "pfnEnableExtendedFeature") == 0,
                   "the first report was made inside %s, not inside pfnEnableExtendedFeature", in);
            break;
        }
    }
    EXPECT(all > 0, "the driver made no report at all during device creation");
    trace_free(&t);
    return g_result;
}

typedef enum { F_SEVERITY, F_CATEGORY, F_INDEX, F_TEXT } init_field;

static outcome init_field_test(init_field which)
{
    trace t = enabled_device_trace();
    const record *first;
    size_t in_enable, all;
    init_reports(&t, &first, &in_enable, &all);
    if (!first) {
        trace_free(&t);
        printf("    no report inside pfnEnableExtendedFeature to check (see init.exactly_once)\n");
        return NOT_EXERCISED;
    }
    char text[1100];
    switch (which) {
    case F_SEVERITY:
        EXPECT(field_u(first, "Severity") == D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE, "Severity is %llu, not MESSAGE (4)",
               field_u(first, "Severity"));
        break;
    case F_CATEGORY:
        EXPECT(field_u(first, "Category") == D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION,
               "Category is %llu, not INITIALIZATION (2)", field_u(first, "Category"));
        break;
    case F_INDEX:
        EXPECT(field_u(first, "CommandListStateIndex") == 0xFFFFFFFFull, "CommandListStateIndex is 0x%llX, not 0xFFFFFFFF",
               field_u(first, "CommandListStateIndex"));
        break;
    case F_TEXT:
        EXPECT(field(first, "pDescription", text, sizeof text) && strcmp(text, INIT_TEXT) == 0,
               "pDescription is \"%s\", not \"" INIT_TEXT "\"", field(first, "pDescription", text, sizeof text) ? text : "NULL");
        break;
    }
    trace_free(&t);
    return g_result;
}

static outcome t_init_severity(void) { return init_field_test(F_SEVERITY); }
static outcome t_init_category(void) { return init_field_test(F_CATEGORY); }
static outcome t_init_index(void) { return init_field_test(F_INDEX); }
static outcome t_init_text(void) { return init_field_test(F_TEXT); }

/* The application sees the message in the InfoQueue (the runtime's delivery of it). */
static outcome t_init_infoqueue(void)
{
    if (!debug_settings(true, 1))
        return g_result;
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *queue = device ? info_queue(device) : NULL;
    unsigned found = 0;
    for (UINT64 i = 0; queue && i < ID3D12InfoQueue1_GetNumStoredMessages(queue); i++) {
        D3D12_MESSAGE *m = stored(queue, i);
        if (m && m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE) {
            found++;
            EXPECT(m->Severity == D3D12_MESSAGE_SEVERITY_MESSAGE && m->Category == D3D12_MESSAGE_CATEGORY_INITIALIZATION &&
                       strcmp(m->pDescription, INIT_TEXT) == 0,
                   "stored driver message: severity %d, category %d, \"%s\"", (int)m->Severity, (int)m->Category,
                   m->pDescription);
        }
        free(m);
    }
    EXPECT(found == 1, "%u driver-reported messages stored after D3D12CreateDevice (expected the one)", found);
    if (queue)
        ID3D12InfoQueue1_Release(queue);
    if (device)
        ID3D12Device_Release(device);
    return g_result;
}

/* -- enablement -- */

static outcome t_enable_no_debug_layer(void)
{
    device_life_with(false, 1);
    trace t = trace_read();
    expect_feature_off(&t, "opted in without the debug layer");
    trace_free(&t);
    return g_result;
}

static outcome t_enable_not_opted_in(void)
{
    device_life_with(true, -1);
    trace t = trace_read();
    expect_feature_off(&t, "debug layer without the opt-in");
    trace_free(&t);
    return g_result;
}

static outcome t_enable_registry_off(void)
{
    write_registry("\"EnableDriverReportedMessagesAnd\"=dword:00000000\n");
    device_life_with(true, 1);
    trace t = trace_read();
    expect_feature_off(&t, "EnableDriverReportedMessagesAnd=0");
    trace_free(&t);
    return g_result;
}

static outcome t_enable_registry_on(void)
{
    write_registry("\"EnableDriverReportedMessagesOr\"=dword:00000001\n");
    device_life_with(true, -1);
    trace t = trace_read();
    expect_feature_on(&t);
    trace_free(&t);
    return g_result;
}

static outcome t_enable_last_call_wins(void)
{
    debug_settings(true, 1);
    debug_settings(false, 0); /* TRUE then FALSE: off */
    ID3D12Device *device = new_device();
    if (device)
        ID3D12Device_Release(device);
    EXPECT(count_now("pfnEnableExtendedFeature") == 0, "TRUE then FALSE: the feature was enabled");
    debug_settings(false, 1); /* FALSE then TRUE: on */
    device = new_device();
    if (device)
        ID3D12Device_Release(device);
    EXPECT(count_now("pfnEnableExtendedFeature") == 1, "FALSE then TRUE: the feature was not enabled once");
    return g_result;
}

static outcome t_enable_latch(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = new_device();
    if (!device)
        return g_result;
    debug_settings(false, 0); /* after D3D12CreateDevice returned: no effect on this device */
    size_t flushes = count_now("pfnFlushDriverReportedMessages");
    workload(device);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > flushes, "turning the toggle off after creation stopped the flushes");
    ID3D12Device_Release(device);
    device = new_device(); /* a new device latches the new value */
    if (device)
        ID3D12Device_Release(device);
    EXPECT(count_now("pfnEnableExtendedFeature") == 1, "the device created after the toggle went off was enabled");
    return g_result;
}

static outcome t_enable_once_per_device(void)
{
    debug_settings(true, 1);
    for (int i = 0; i < 3; i++) {
        ID3D12Device *device = new_device();
        if (device)
            ID3D12Device_Release(device);
    }
    trace t = trace_read();
    size_t creates = count_records(&t, "pfnCreateDevice"), enables = 0;
    for (size_t i = 0; i < t.count; i++) {
        if (!is(&t.r[i], "pfnEnableExtendedFeature"))
            continue;
        enables++;
        /* issue 20: version 1 or 2 (the negotiation itself is v2.negotiate's), the same for every device */
        unsigned long long version = field_u(&t.r[i], "FeatureVersion");
        static unsigned long long first_version;
        if (!first_version)
            first_version = version;
        EXPECT(field_u(&t.r[i], "Feature") == 32 && (version == 1 || version == 2) && version == first_version,
               "pfnEnableExtendedFeature(Feature=%llu, FeatureVersion=%llu): not the negotiated 32 / %llu",
               field_u(&t.r[i], "Feature"), version, first_version);
    }
    EXPECT(enables == creates, "%zu enables for %zu devices", enables, creates);
    trace_free(&t);
    return g_result;
}

/* -- the sentinel ID -- */

static unsigned g_none_calls, g_ignore_calls;

static void APIENTRY on_none(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d, void *x)
{
    (void)c, (void)s, (void)d, (void)x;
    g_none_calls += id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
}

static void APIENTRY on_ignore(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d, void *x)
{
    (void)c, (void)s, (void)d, (void)x;
    g_ignore_calls += id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
}

static UINT64 sentinel_stored(ID3D12InfoQueue1 *q)
{
    UINT64 n = 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue1_GetNumStoredMessages(q); i++) {
        D3D12_MESSAGE *m = stored(q, i);
        n += m && m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE;
        free(m);
    }
    return n;
}

/* Messages of the sentinel ID added while the deny filter is pushed, then after it is popped. A silent driver reports
 * nothing after creation, so the sentinel ID's routing is exercised with ID3D12InfoQueue::AddMessage
 * (docs/conformance.md says why). */
static outcome t_filter_deny(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *q = device ? info_queue(device) : NULL;
    if (!q)
        return FAIL;
    DWORD c1 = 0, c2 = 0;
    ID3D12InfoQueue1_RegisterMessageCallback(q, on_none, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &c1);
    ID3D12InfoQueue1_RegisterMessageCallback(q, on_ignore, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, NULL, &c2);
    D3D12_MESSAGE_ID deny[] = {D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE};
    D3D12_INFO_QUEUE_FILTER filter = {0};
    filter.DenyList.NumIDs = 1;
    filter.DenyList.pIDList = deny;
    ID3D12InfoQueue1_PushStorageFilter(q, &filter);
    UINT64 before = sentinel_stored(q);
    ID3D12InfoQueue1_AddMessage(q, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "denied");
    workload(device);
    EXPECT(sentinel_stored(q) == before, "a message of the denied sentinel ID was stored");
    EXPECT(g_none_calls == 0, "a FLAG_NONE callback got %u denied messages", g_none_calls);
    EXPECT(g_ignore_calls >= 1, "an IGNORE_FILTERS callback got no denied message");
    ID3D12InfoQueue1_PopStorageFilter(q);
    unsigned ignore = g_ignore_calls;
    ID3D12InfoQueue1_AddMessage(q, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_ERROR,
                                D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, "allowed");
    EXPECT(sentinel_stored(q) == before + 1, "after PopStorageFilter the message was not stored");
    EXPECT(g_none_calls == 1 && g_ignore_calls == ignore + 1, "after PopStorageFilter: callbacks %u (NONE), %u (IGNORE)",
           g_none_calls, g_ignore_calls - ignore);
    ID3D12InfoQueue1_UnregisterMessageCallback(q, c1);
    ID3D12InfoQueue1_UnregisterMessageCallback(q, c2);
    ID3D12InfoQueue1_Release(q);
    ID3D12Device_Release(device);
    return g_result;
}

/* -- flush points (the runtime's side, whatever the driver reports) -- */

static bool enabled_gpu(gpu *g, ID3D12Device **device)
{
    if (!debug_settings(true, 1) || !(*device = new_device()))
        return false;
    if (!gpu_open(g, *device)) {
        gpu_close(g);
        ID3D12Device_Release(*device);
        return false;
    }
    return true;
}

static outcome t_flush_on_execute(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g); /* completed work, observed */
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&g);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "ExecuteCommandLists after completed work made no flush");
    signal_and_wait(&g);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

static outcome t_flush_on_wait(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g);
    size_t before = count_now("pfnFlushDriverReportedMessages");
    ID3D12CommandQueue_Wait(g.queue, g.fence, g.fence_value);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "ID3D12CommandQueue::Wait after completed work made no flush");
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "never the submission being made": inside ExecuteCommandLists the flush precedes the submission's
 * pfnExecuteCommandLists. */
static outcome t_flush_not_current(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g);
    signal_and_wait(&g);
    trace t = trace_read();
    size_t start = t.count;
    trace_free(&t);
    execute(&g);
    t = trace_read();
    size_t flush_at = SIZE_MAX, execute_at = SIZE_MAX;
    for (size_t i = start; i < t.count; i++) {
        if (is(&t.r[i], "pfnFlushDriverReportedMessages") && flush_at == SIZE_MAX)
            flush_at = i;
        if (is(&t.r[i], "pfnExecuteCommandLists") && execute_at == SIZE_MAX)
            execute_at = i;
    }
    EXPECT(flush_at != SIZE_MAX, "no flush was made");
    EXPECT(execute_at != SIZE_MAX && flush_at < execute_at, "the flush came after the submission reached the driver");
    trace_free(&t);
    signal_and_wait(&g);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "The flush itself is device-wide": work completed on queue A is flushed by a call on queue B. */
static outcome t_flush_device_wide(void)
{
    gpu a, b;
    ID3D12Device *device;
    if (!enabled_gpu(&a, &device))
        return FAIL;
    if (!gpu_open(&b, device)) {
        gpu_close(&b);
        gpu_close(&a);
        ID3D12Device_Release(device);
        return FAIL;
    }
    record_work(&a);
    record_work(&b);
    execute(&a);
    signal_and_wait(&a);
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&b); /* queue B has no completed work of its own */
    EXPECT(count_now("pfnFlushDriverReportedMessages") > before, "queue B's ExecuteCommandLists did not flush queue A's completed work");
    signal_and_wait(&b);
    gpu_close(&b);
    gpu_close(&a);
    ID3D12Device_Release(device);
    return g_result;
}

/* "Queue destruction flushes unconditionally, including for submissions the GPU has not finished". */
static outcome t_flush_queue_destruction(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    record_work(&g);
    execute(&g); /* never signalled */
    trace t = trace_read();
    size_t start = t.count;
    trace_free(&t);
    ID3D12CommandQueue_Release(g.queue);
    g.queue = NULL;
    t = trace_read();
    size_t destroyed = SIZE_MAX, flushed = SIZE_MAX;
    for (size_t i = start; i < t.count; i++) {
        if (is(&t.r[i], "pfnDestroyCommandQueue") && destroyed == SIZE_MAX)
            destroyed = i;
        if (is(&t.r[i], "pfnFlushDriverReportedMessages") && flushed == SIZE_MAX)
            flushed = i;
    }
    EXPECT(destroyed != SIZE_MAX, "releasing the queue did not destroy the driver's queue");
    EXPECT(flushed != SIZE_MAX, "releasing the queue made no flush");
    trace_free(&t);
    gpu_close(&g);
    ID3D12Device_Release(device);
    return g_result;
}

/* "It is invoked at most once per device, and only after a removal has been detected." Removal by executing an
 * open command list, then several calls that surface it. */
static outcome t_flush_removal_once(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    ID3D12GraphicsCommandList_Reset(g.list, g.allocator, NULL); /* left open */
    size_t before = count_now("pfnFlushDriverReportedMessages");
    execute(&g);
    HRESULT reason = ID3D12Device_GetDeviceRemovedReason(device);
    EXPECT(FAILED(reason), "executing an open command list did not remove the device (reason 0x%08X)", (unsigned)reason);
    for (int i = 0; i < 3; i++) {
        ID3D12Device_GetDeviceRemovedReason(device);
        ID3D12Fence_GetCompletedValue(g.fence);
        execute(&g);
    }
    size_t after = count_now("pfnFlushDriverReportedMessages");
    gpu_close(&g);
    EXPECT(after - before == 1, "%zu flushes after the removal (exactly one removal flush)", after - before);
    EXPECT(count_now("pfnFlushDriverReportedMessages") == after, "queue destruction flushed again after the removal flush");
    ID3D12Device_Release(device);
    return g_result;
}

/* -- correlation -- */

/* Item 4: "pfnSetCommandListStateIndex precedes every GPU-work call with a fresh index". */
static outcome t_corr_index_before_work(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    for (int i = 0; i < 3; i++) {
        record_work(&g);
        execute(&g);
        signal_and_wait(&g);
    }
    gpu_close(&g);
    ID3D12Device_Release(device);
    trace t = trace_read();
    static const char *work[] = {"pfnDrawInstanced", "pfnDrawIndexedInstanced", "pfnDispatch", "pfnCopyBufferRegion",
                                 "pfnCopyResource"};
    unsigned long long seen[4096];
    size_t seen_count = 0, checked = 0;
    for (size_t i = 0; i < t.count; i++) {
        bool is_work = false;
        for (size_t k = 0; k < sizeof work / sizeof work[0]; k++)
            is_work |= is(&t.r[i], work[k]);
        if (!is_work)
            continue;
        checked++;
        char list[32], prev_list[32];
        field(&t.r[i], "hDrvCommandList", list, sizeof list);
        const record *p = i > 0 ? &t.r[i - 1] : NULL;
        if (!p || !is(p, "pfnSetCommandListStateIndex") || !field(p, "hDrvCommandList", prev_list, sizeof prev_list) ||
            strcmp(prev_list, list) != 0) {
            fail("%s on %s was not directly preceded by pfnSetCommandListStateIndex for that list", t.r[i].name, list);
            continue;
        }
        unsigned long long index = field_u(p, "CommandListStateIndex");
        for (size_t s = 0; s < seen_count; s++)
            EXPECT(seen[s] != index, "state index 0x%llX was issued twice", index);
        if (seen_count < 4096)
            seen[seen_count++] = index;
    }
    EXPECT(checked >= 9, "only %zu GPU-work calls reached the driver", checked);
    trace_free(&t);
    return g_result;
}

/* The InfoQueue text of the driver messages, in order. */
static size_t driver_texts(ID3D12InfoQueue1 *q, char **out, size_t max)
{
    size_t n = 0;
    for (UINT64 i = 0; q && i < ID3D12InfoQueue1_GetNumStoredMessages(q) && n < max; i++) {
        D3D12_MESSAGE *m = stored(q, i);
        if (m && m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
            out[n++] = strdup(m->pDescription);
        free(m);
    }
    return n;
}

typedef struct corr_run {
    trace t;
    char *texts[512];
    size_t text_count;
} corr_run;

/* An enabled device, the workload, and what it stored; the device is released afterwards. */
static bool corr_collect(corr_run *run)
{
    memset(run, 0, sizeof *run);
    if (!debug_settings(true, 1))
        return false;
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *q = device ? info_queue(device) : NULL;
    if (!q)
        return false;
    workload(device);
    run->text_count = driver_texts(q, run->texts, 512);
    ID3D12InfoQueue1_Release(q);
    ID3D12Device_Release(device);
    run->t = trace_read();
    return true;
}

static void corr_free(corr_run *run)
{
    for (size_t i = 0; i < run->text_count; i++)
        free(run->texts[i]);
    trace_free(&run->t);
}

static bool issued(const trace *t, size_t before, unsigned long long index)
{
    for (size_t i = 0; i < before; i++) {
        if (is(&t->r[i], "pfnSetCommandListStateIndex") && field_u(&t->r[i], "CommandListStateIndex") == index)
            return true;
    }
    return false;
}

/* Accepted reports in order match the stored driver messages in order (nothing filtered here). */
static outcome corr_check(bool want_issued)
{
    corr_run run;
    if (!corr_collect(&run))
        return FAIL;
    size_t accepted = 0, exercised = 0;
    for (size_t i = 0; i < run.t.count; i++) {
        const record *r = &run.t.r[i];
        if (!is(r, "pfnReportMessageCb") || field_u(r, "hr") != 0)
            continue;
        size_t k = accepted++;
        char text[1100];
        if (k >= run.text_count || !field(r, "pDescription", text, sizeof text))
            continue;
        unsigned long long index = field_u(r, "CommandListStateIndex");
        bool was_issued = index != 0xFFFFFFFFull && issued(&run.t, i, index);
        /* made inside a call into the driver (a recording call, or the flush that retires its submission): within
         * the validity window; one from a driver thread of its own may be stale, so it is not judged */
        char in[96];
        bool fresh = was_issued && strcmp(inside(r, in, sizeof in), "-") != 0;
        if (want_issued && was_issued && fresh) {
            exercised++;
            size_t tl = strlen(text), sl = strlen(run.texts[k]);
            EXPECT(sl > tl && strcmp(run.texts[k] + sl - tl, text) == 0,
                   "a report with issued index 0x%llX was not annotated: \"%s\"", index, run.texts[k]);
        } else if (!want_issued && !was_issued) {
            exercised++;
            EXPECT(strcmp(run.texts[k], text) == 0, "a report with index 0x%llX (not issued) was modified: \"%s\"",
                   index, run.texts[k]);
        }
    }
    corr_free(&run);
    if (g_result == PASS && exercised == 0) {
        printf("    the driver made no report with %s index\n", want_issued ? "an issued" : "a 0xFFFFFFFF or unissued");
        return NOT_EXERCISED;
    }
    return g_result;
}

static outcome t_corr_annotated(void) { return corr_check(true); }
static outcome t_corr_unannotated(void) { return corr_check(false); }

/* -- the driver's obligations -- */

static outcome t_oblig_not_enabled(void)
{
    device_life_with(true, -1); /* the feature off */
    device_life_with(true, 0);
    trace t = trace_read();
    size_t reports = count_records(&t, "pfnReportMessageCb");
    EXPECT(reports == 0, "the driver reported %zu messages on devices where the feature was not enabled", reports);
    trace_free(&t);
    return g_result;
}

/* Two devices in sequence; no report on the second carries an index only the first was given. The first device
 * records twice as much, so its last indices are values the second never gets (indices are per device). */
static outcome t_oblig_foreign_index(void)
{
    if (debug_settings(true, 1)) {
        ID3D12Device *device = new_device();
        if (device) {
            workload(device);
            workload(device);
            ID3D12Device_Release(device);
        }
    }
    device_life_with(true, 1);
    trace t = trace_read();
    device_life lives[8];
    size_t n = devices_of(&t, lives, 8);
    EXPECT(n == 2, "expected two devices in the trace, found %zu", n);
    for (size_t i = 0; n == 2 && i < t.count; i++) {
        const record *r = &t.r[i];
        char rt[32];
        if (!is(r, "pfnReportMessageCb") || !field(r, "hRTDevice", rt, sizeof rt))
            continue;
        unsigned long long index = field_u(r, "CommandListStateIndex");
        if (index == 0xFFFFFFFFull || strcmp(rt, lives[1].rt) != 0)
            continue;
        /* issued on the second device (its lifetime in the trace) or never? */
        bool own = false, foreign = false;
        for (size_t j = 0; j < i; j++) {
            if (!is(&t.r[j], "pfnSetCommandListStateIndex") || field_u(&t.r[j], "CommandListStateIndex") != index)
                continue;
            if (j > lives[1].created)
                own = true;
            else
                foreign = true;
        }
        EXPECT(own || !foreign, "a report on the second device carries index 0x%llX, issued on the first", index);
    }
    trace_free(&t);
    return g_result;
}

static outcome t_oblig_after_destroy(void)
{
    device_life_with(true, 1);
    sleep_ms(300); /* a driver thread that outlives the device would report now */
    trace t = trace_read();
    device_life lives[4];
    size_t n = devices_of(&t, lives, 4);
    for (size_t i = 0; n && i < t.count; i++) {
        char rt[32];
        if ((is(&t.r[i], "pfnReportMessageCb") || is(&t.r[i], "pfnQueryObjectIdentityCb")) &&
            field(&t.r[i], "hRTDevice", rt, sizeof rt) && strcmp(rt, lives[0].rt) == 0 && i > lives[0].destroyed)
            fail("%s on the device after pfnDestroyDevice returned (runtime answered hr=0x%08llX)", t.r[i].name,
                 field_u(&t.r[i], "hr"));
    }
    trace_free(&t);
    return g_result;
}

static outcome t_oblig_well_formed(void)
{
    device_life_with(true, 1);
    trace t = trace_read();
    for (size_t i = 0; i < t.count; i++) {
        const record *r = &t.r[i];
        char text[8];
        if (!is(r, "pfnReportMessageCb"))
            continue;
        if (!field(r, "Severity", text, sizeof text)) {
            fail("a report with a NULL pMessage");
            continue;
        }
        EXPECT(field_u(r, "Severity") <= 4, "a report with severity %llu", field_u(r, "Severity"));
        EXPECT(field_u(r, "Category") <= 11, "a report with category %llu", field_u(r, "Category"));
        EXPECT(strncmp(strstr(r->line, "pDescription=") + 13, "NULL", 4) != 0, "a report with a NULL pDescription");
    }
    trace_free(&t);
    return g_result;
}

/* -- stress -- */

static outcome t_stress_devices(void)
{
    debug_settings(true, 1);
    for (int i = 0; i < 16; i++) {
        ID3D12Device *device = new_device();
        if (!device)
            break;
        if (i % 4 == 0)
            workload(device);
        ID3D12Device_Release(device);
    }
    trace t = trace_read();
    size_t creates = count_records(&t, "pfnCreateDevice"), enables = count_records(&t, "pfnEnableExtendedFeature");
    size_t inits = 0;
    for (size_t i = 0; i < t.count; i++) {
        char in[96];
        inits += is(&t.r[i], "pfnReportMessageCb") &&
                 strcmp(inside(&t.r[i], in, sizeof in), "pfnEnableExtendedFeature") == 0;
    }
    EXPECT(creates == 16 && enables == 16, "%zu devices, %zu enables (16 each expected)", creates, enables);
    EXPECT(inits == 16, "%zu initialization reports for 16 devices", inits);
    trace_free(&t);
    return g_result;
}

typedef struct stress_arg {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    int id;
    bool ok;
} stress_arg;

static void *stress_thread(void *p)
{
    stress_arg *a = p;
    ID3D12CommandAllocator *allocator = NULL;
    ID3D12GraphicsCommandList *list = NULL;
    ID3D12Fence *fence = NULL;
    ID3D12Resource *src = buffer(a->device, D3D12_HEAP_TYPE_UPLOAD, 256), *dst = buffer(a->device, D3D12_HEAP_TYPE_READBACK, 256);
    a->ok = src && dst &&
            SUCCEEDED(ID3D12Device_CreateCommandAllocator(a->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                          &IID_ID3D12CommandAllocator, (void **)&allocator)) &&
            SUCCEEDED(ID3D12Device_CreateCommandList(a->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, NULL,
                                                     &IID_ID3D12GraphicsCommandList, (void **)&list)) &&
            SUCCEEDED(ID3D12Device_CreateFence(a->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence));
    for (UINT64 round = 1; a->ok && round <= 20; round++) {
        uint32_t *in = NULL, *out = NULL;
        D3D12_RANGE none = {0, 0};
        ID3D12Resource_Map(src, 0, &none, (void **)&in);
        if (in)
            in[0] = (uint32_t)(a->id * 1000 + round);
        ID3D12Resource_Unmap(src, 0, NULL);
        if (round > 1)
            ID3D12GraphicsCommandList_Reset(list, allocator, NULL);
        ID3D12GraphicsCommandList_CopyBufferRegion(list, dst, 0, src, 0, 4);
        ID3D12GraphicsCommandList_DrawInstanced(list, 3, 1, 0, 0);
        ID3D12GraphicsCommandList_Close(list);
        ID3D12CommandList *lists[] = {(ID3D12CommandList *)list};
        ID3D12CommandQueue_ExecuteCommandLists(a->queue, 1, lists);
        ID3D12CommandQueue_Signal(a->queue, fence, round);
        for (int w = 0; w < 5000 && ID3D12Fence_GetCompletedValue(fence) < round; w++)
            sleep_ms(1);
        ID3D12Resource_Map(dst, 0, NULL, (void **)&out);
        a->ok = out && out[0] == (uint32_t)(a->id * 1000 + round);
        ID3D12Resource_Unmap(dst, 0, &none);
    }
    if (fence)
        ID3D12Fence_Release(fence);
    if (list)
        ID3D12GraphicsCommandList_Release(list);
    if (allocator)
        ID3D12CommandAllocator_Release(allocator);
    if (src)
        ID3D12Resource_Release(src);
    if (dst)
        ID3D12Resource_Release(dst);
    return NULL;
}

static outcome t_stress_threads(void)
{
    debug_settings(true, 1);
    ID3D12Device *device = new_device();
    if (!device)
        return FAIL;
    ID3D12CommandQueue *queues[4] = {0};
    D3D12_COMMAND_QUEUE_DESC desc = {D3D12_COMMAND_LIST_TYPE_DIRECT, 0, D3D12_COMMAND_QUEUE_FLAG_NONE, 0};
    for (int i = 0; i < 4; i++)
        ID3D12Device_CreateCommandQueue(device, &desc, &IID_ID3D12CommandQueue, (void **)&queues[i]);
    pthread_t threads[8];
    stress_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (stress_arg){device, queues[i % 4], i, false};
        pthread_create(&threads[i], NULL, stress_thread, &args[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(threads[i], NULL);
        EXPECT(args[i].ok, "thread %d: a copy did not arrive (or a setup call failed)", i);
    }
    for (int i = 0; i < 4; i++)
        if (queues[i])
            ID3D12CommandQueue_Release(queues[i]);
    ID3D12Device_Release(device);
    EXPECT(count_now("pfnFlushDriverReportedMessages") > 0, "no flush was made");
    return g_result;
}

/* ======== the table ======== */

typedef struct test {
    const char *name;
    const char *checks; /* "driver" or "runtime" */
    const char *spec;   /* the sentence it checks */
    outcome (*run)(void);
} test;

static const test k_tests[] = {
    {"init.exactly_once", "driver", "A driver that implements driver-reported messages must report exactly one message "
     "when the runtime enables the feature on a device during device creation", t_init_once},
    {"init.before_return", "driver", "immediately after the feature has been enabled, and before EnableExtendedFeature "
     "returns", t_init_before_return},
    {"init.severity", "driver", "Severity | D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE", t_init_severity},
    {"init.category", "driver", "Category | D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION", t_init_category},
    {"init.index", "driver", "CommandListStateIndex | 0xFFFFFFFF — no command list is in scope during device creation",
     t_init_index},
    {"init.text", "driver", "pDescription | The exact ASCII string below: D3D12 Driver Reported Messages Enabled",
     t_init_text},
    {"init.infoqueue", "runtime", "The runtime stamps the resulting D3D12_MESSAGE with ID = "
     "D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE and forwards pMessage->pDescription verbatim", t_init_infoqueue},
    {"enable.no_debug_layer", "runtime", "If the debug layer is not enabled, the toggle has no effect on that device.",
     t_enable_no_debug_layer},
    {"enable.not_opted_in", "runtime", "SetEnableDriverReportedMessages opts in (Enable = TRUE) or out (Enable = FALSE, "
     "the default)", t_enable_not_opted_in},
    {"enable.registry_forced_off", "runtime", "This overlay is applied at device creation ... so the registry value "
     "wins over the application's choice (EnableDriverReportedMessagesAnd=0)", t_enable_registry_off},
    {"enable.registry_forced_on", "runtime", "Driver-reported messages can be forced on or off for an application "
     "without modifying that application (EnableDriverReportedMessagesOr=1)", t_enable_registry_on},
    {"enable.last_call_wins", "runtime", "If the app calls SetEnableDriverReportedMessages multiple times prior to "
     "D3D12CreateDevice returning, the most recent value wins.", t_enable_last_call_wins},
    {"enable.latch", "runtime", "toggle changes made after D3D12CreateDevice returns have no effect on already-created "
     "devices", t_enable_latch},
    {"enable.once_per_device", "runtime", "the runtime enables the feature per device by calling "
     "pfnEnableExtendedFeature(hDevice, D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, Version)", t_enable_once_per_device},
    {"filter.sentinel_deny", "runtime", "Apps filter or suppress driver-sourced messages as a class by the sentinel ID "
     "... through the normal ID3D12InfoQueue::PushStorageFilter path", t_filter_deny},
    {"flush.on_execute", "runtime", "The runtime issues it for a command queue during "
     "ID3D12CommandQueue::ExecuteCommandLists ... only for work the runtime has already observed to be complete",
     t_flush_on_execute},
    {"flush.on_wait", "runtime", "The runtime issues it for a command queue during ... ID3D12CommandQueue::Wait",
     t_flush_on_wait},
    {"flush.not_current_submission", "runtime", "A flush carries work that has already completed — never the "
     "submission being made", t_flush_not_current},
    {"flush.device_wide", "runtime", "The flush itself is device-wide rather than scoped to the queue that triggered it",
     t_flush_device_wide},
    {"flush.queue_destruction", "runtime", "Queue destruction flushes unconditionally, including for submissions the "
     "GPU has not finished", t_flush_queue_destruction},
    {"flush.removal_once", "runtime", "This device-removal flush ... is invoked at most once per device, and only after "
     "a removal has been detected.", t_flush_removal_once},
    {"corr.index_before_work", "runtime", "The runtime calls pfnSetCommandListStateIndex on the driver before each draw, "
     "dispatch, or other GPU-work generating command list API call.", t_corr_index_before_work},
    {"corr.issued_annotated", "runtime", "When a message carries an index the runtime can still resolve, the runtime "
     "prefixes the driver's description with the identity of the command list", t_corr_annotated},
    {"corr.unissued_unmodified", "runtime", "Messages whose index is 0xFFFFFFFF, unknown, or no longer resolvable are "
     "surfaced unmodified.", t_corr_unannotated},
    {"oblig.not_enabled", "driver", "If the runtime does not enable the extended feature on a device, the driver must "
     "not generate driver-reported messages on that device.", t_oblig_not_enabled},
    {"oblig.foreign_index", "driver", "The driver must cache the most recent CommandListStateIndex received for a given "
     "command list and include it in ... any D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 that the driver attributes to that "
     "command list operation.", t_oblig_foreign_index},
    {"oblig.after_destroy", "driver", "pfnReportMessageCb is valid only between device creation and device destruction.",
     t_oblig_after_destroy},
    {"oblig.well_formed", "driver", "pDescription must be a non-NULL, NUL-terminated string ... Severity within "
     "[CORRUPTION, MESSAGE] ... Category within [APPLICATION_DEFINED, STATE_OBJECT_DATABASE]", t_oblig_well_formed},
    {"stress.devices_in_sequence", "driver", "report exactly one message when the runtime enables the feature on a "
     "device (16 devices in sequence)", t_stress_devices},
    {"stress.threads", "runtime", "pfnReportMessageCb is thread-safe and reentrant (4 queues, 8 threads recording and "
     "submitting while flushes run)", t_stress_threads},
};
#define TEST_COUNT (sizeof k_tests / sizeof k_tests[0])

/* ---- issue 20: the version-2 tests (d12conform_v2.c) follow; the parent needs only their names (a child runs them
 * through d12conform_v2_tests). ---- */
#define ALL_MAX (TEST_COUNT + 64)
static test g_all[ALL_MAX];
static size_t g_all_count;

static void all_tests_init(void)
{
    for (size_t i = 0; i < TEST_COUNT; i++)
        g_all[g_all_count++] = k_tests[i];
    for (size_t i = 0; i < d12conform_v2_test_count && g_all_count < ALL_MAX; i++)
        g_all[g_all_count++] = (test){d12conform_v2_tests[i].name, d12conform_v2_tests[i].checks,
                                      d12conform_v2_tests[i].spec, NULL};
}
/* ---- end issue 20 ---- */

/* ======== the parent: processes, timeouts, output ======== */

typedef struct result {
    const test *test;
    outcome outcome;
    char *output;
    double seconds;
} result;

static char *read_all(int fd)
{
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    ssize_t n;
    while (text && (n = read(fd, text + size, capacity - size - 1)) > 0) {
        size += (size_t)n;
        if (capacity - size < 1024)
            text = realloc(text, capacity *= 2);
    }
    if (text)
        text[size] = '\0';
    return text;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static result run_one(const test *t, const char *driver, unsigned timeout)
{
    result r = {t, FAIL, NULL, 0};
    char dir[] = "/tmp/d12conform.XXXXXX";
    if (!mkdtemp(dir)) {
        r.output = strdup("    cannot create a temporary directory\n");
        return r;
    }
    char trace_path[PATH_MAX], reg_path[PATH_MAX + 8];
    snprintf(trace_path, sizeof trace_path, "%s/ddi.trace", dir);
    snprintf(reg_path, sizeof reg_path, "%s.reg", trace_path);
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0)
        return r;
    double start = now_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fd[1], STDOUT_FILENO);
        dup2(pipe_fd[1], STDERR_FILENO);
        close(pipe_fd[0]);
        setenv("D12RT_DDI_TRACE", trace_path, 1);
        setenv("D12RT_HKCU", reg_path, 1);
        setenv("D12RT_HKLM", "/nonexistent/d12conform.reg", 1);
        setenv("D12RT_APP_NAME", "d12conform", 1);
        if (driver)
            setenv("D12RT_DRIVER", driver, 1);
        else
            unsetenv("D12RT_DRIVER");
        execl("/proc/self/exe", "d12conform", "--child", t->name, (char *)NULL);
        _exit(127);
    }
    close(pipe_fd[1]);
    /* the child's output is read as it comes, so a chatty child never blocks on a full pipe */
    size_t size = 0, capacity = 4096;
    char *text = calloc(1, capacity);
    bool timed_out = false;
    int status = 0;
    for (;;) {
        struct pollfd p = {pipe_fd[0], POLLIN, 0};
        int remaining = (int)((start + timeout - now_seconds()) * 1000);
        if (remaining <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, remaining < 100 ? remaining : 100) > 0) {
            if (capacity - size < 1024)
                text = realloc(text, capacity *= 2);
            ssize_t n = read(pipe_fd[0], text + size, capacity - size - 1);
            if (n <= 0)
                break;
            size += (size_t)n;
            text[size] = '\0';
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            pid = 0;
            break;
        }
    }
    if (pid)
        waitpid(pid, &status, 0);
    char *rest = read_all(pipe_fd[0]);
    close(pipe_fd[0]);
    r.seconds = now_seconds() - start;
    size_t extra = rest ? strlen(rest) : 0;
    text = realloc(text, size + extra + 256);
    if (rest)
        memcpy(text + size, rest, extra + 1);
    free(rest);
    if (timed_out) {
        r.outcome = FAIL;
        strcat(text, "    timed out (a driver call did not return)\n");
    } else if (WIFSIGNALED(status)) {
        r.outcome = FAIL;
        snprintf(text + strlen(text), 128, "    crashed (signal %d)\n", WTERMSIG(status));
    } else {
        int code = WEXITSTATUS(status);
        r.outcome = code == 0 ? PASS : code == NOT_EXERCISED ? NOT_EXERCISED : FAIL;
    }
    r.output = text;
    unlink(trace_path);
    unlink(reg_path);
    rmdir(dir);
    return r;
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else if ((unsigned char)*s >= 0x20 || *s == '\n')
            fputc(*s, out);
    }
}

static const char *outcome_name(outcome o)
{
    return o == PASS ? "passed" : o == NOT_EXERCISED ? "not exercised" : "failed";
}

static int usage(void)
{
    fprintf(stderr, "usage: d12conform [--driver PATH] [--list] [--run GLOB] [--json] [--junit FILE] [--timeout SECONDS]\n"
                    "  without --driver the built-in reference driver is tested\n");
    return 2;
}

static int run_child(const char *name)
{
    snprintf(g_trace_path, sizeof g_trace_path, "%s", getenv("D12RT_DDI_TRACE") ? getenv("D12RT_DDI_TRACE") : "");
    for (size_t i = 0; i < TEST_COUNT; i++) {
        if (strcmp(k_tests[i].name, name) == 0) {
            outcome o = k_tests[i].run();
            fflush(stdout);
            return (int)(g_result == FAIL ? FAIL : o);
        }
    }
    for (size_t i = 0; i < d12conform_v2_test_count; i++) { /* issue 20 */
        if (strcmp(d12conform_v2_tests[i].name, name) == 0) {
            int o = d12conform_v2_tests[i].run();
            fflush(stdout);
            return o;
        }
    }
    fprintf(stderr, "d12conform: no test %s\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    const char *driver = NULL, *glob = "*", *junit = NULL;
    bool list = false, json = false;
    unsigned timeout = 10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--child") == 0 && i + 1 < argc)
            return run_child(argv[i + 1]);
        else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc)
            driver = argv[++i];
        else if (strcmp(argv[i], "--run") == 0 && i + 1 < argc)
            glob = argv[++i];
        else if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc)
            junit = argv[++i];
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            timeout = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--list") == 0)
            list = true;
        else if (strcmp(argv[i], "--json") == 0)
            json = true;
        else
            return usage();
    }
    if (timeout == 0)
        return usage();
    char resolved[PATH_MAX];
    if (driver && !realpath(driver, resolved)) {
        fprintf(stderr, "d12conform: --driver %s: %s\n", driver, strerror(errno));
        return 2;
    }
    if (driver)
        driver = resolved;
    all_tests_init();
    if (list) {
        for (size_t i = 0; i < g_all_count; i++) {
            if (fnmatch(glob, g_all[i].name, 0) == 0)
                printf("%-28s %-8s %s\n", g_all[i].name, g_all[i].checks, g_all[i].spec);
        }
        return 0;
    }
    result results[ALL_MAX];
    size_t count = 0, passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < g_all_count; i++) {
        if (fnmatch(glob, g_all[i].name, 0) != 0)
            continue;
        result r = run_one(&g_all[i], driver, timeout);
        passed += r.outcome == PASS;
        failed += r.outcome == FAIL;
        skipped += r.outcome == NOT_EXERCISED;
        if (!json) {
            printf("%-14s %s (%s) %.2fs\n", r.outcome == PASS ? "PASS" : r.outcome == FAIL ? "FAIL" : "NOT EXERCISED",
                   r.test->name, r.test->checks, r.seconds);
            if (r.outcome != PASS && r.output && *r.output)
                fputs(r.output, stdout);
            fflush(stdout);
        }
        results[count++] = r;
    }
    if (count == 0) {
        fprintf(stderr, "d12conform: no test matches %s\n", glob);
        return 2;
    }
    if (json) {
        printf("{\"driver\": ");
        json_string(stdout, driver ? driver : "built-in reference driver");
        printf(", \"tests\": [\n");
        for (size_t i = 0; i < count; i++) {
            printf("  {\"name\": \"%s\", \"checks\": \"%s\", \"result\": \"%s\", \"seconds\": %.3f, \"spec\": ",
                   results[i].test->name, results[i].test->checks, outcome_name(results[i].outcome), results[i].seconds);
            json_string(stdout, results[i].test->spec);
            printf(", \"output\": ");
            json_string(stdout, results[i].output);
            printf("}%s\n", i + 1 < count ? "," : "");
        }
        printf("]}\n");
    }
    if (junit) {
        FILE *out = fopen(junit, "w");
        if (!out) {
            fprintf(stderr, "d12conform: --junit %s: %s\n", junit, strerror(errno));
            return 2;
        }
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"d12conform\" tests=\"%zu\" "
                "failures=\"%zu\" skipped=\"%zu\">\n", count, failed, skipped);
        for (size_t i = 0; i < count; i++) {
            fprintf(out, "  <testcase classname=\"d12conform.%s\" name=\"%s\" time=\"%.3f\">", results[i].test->checks,
                    results[i].test->name, results[i].seconds);
            if (results[i].outcome != PASS) {
                fprintf(out, results[i].outcome == FAIL ? "<failure message=\"" : "<skipped message=\"");
                xml_text(out, results[i].test->spec);
                fprintf(out, "\">");
                xml_text(out, results[i].output);
                fprintf(out, results[i].outcome == FAIL ? "</failure>" : "</skipped>");
            }
            fprintf(out, "</testcase>\n");
        }
        fprintf(out, "</testsuite>\n");
        fclose(out);
    }
    for (size_t i = 0; i < count; i++)
        free(results[i].output);
    /* with --json the summary goes to stderr, so stdout stays one JSON document */
    FILE *summary = json ? stderr : stdout;
    if (skipped)
        fprintf(summary, "%zu passed, %zu failed, %zu not exercised\n", passed, failed, skipped);
    else
        fprintf(summary, "%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
