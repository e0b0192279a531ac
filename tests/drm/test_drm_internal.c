/* Driver-reported messages inside the runtime: runtime/drm.c and runtime/objtable.c over the built-in reference
 * driver, called through the very callbacks the driver gets (d12__driver_device_callbacks), so each check covers
 * the DDI path a driver takes. `test_drm_internal CASE`; one translation unit (harness.h counters are per unit),
 * the generated validation cases #included. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12_ddi_validation.h"
#include "drm.h"
#include "harness.h"

#include "ddi_validation_cases.c"

/* A device's worth of channel: InfoQueue, object table, channel, a reference-driver device whose callbacks
 * reach the channel, and (when enabled) the feature on. */
typedef struct fixture {
    d12_driver_adapter *adapter;
    d12_info_queue *queue;
    d12_objtable objects;
    d12_drm drm;
    d12_driver_device *device;
    const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *cb;
    D3D12DDI_HRTDEVICE rt;
} fixture;

static bool fixture_open(fixture *f, bool enable)
{
    memset(f, 0, sizeof *f);
    if (!CHECK(SUCCEEDED(d12__driver_adapter_open(NULL, &f->adapter))) ||
        !CHECK(SUCCEEDED(d12__info_queue_create(&f->queue))))
        return false;
    d12_info_queue_SetMuteDebugOutput(f->queue, TRUE);
    d12_info_queue_SetMessageCountLimit(f->queue, UINT64_MAX);
    d12__objtable_init(&f->objects);
    d12__drm_init(&f->drm, f->queue, &f->objects);
    d12_driver_device_desc desc = {D3D12DDI_CREATE_DEVICE_FLAG_DEBUGGABLE, NULL, NULL, &f->drm.hooks, NULL};
    if (!CHECK(SUCCEEDED(d12__driver_create_device(f->adapter, &desc, &f->device))))
        return false;
    f->cb = d12__driver_device_callbacks(f->device);
    f->rt = d12__driver_device_rt_handle(f->device);
    if (enable)
        CHECK_EQ_INT(d12__drm_enable(&f->drm, f->device), S_OK);
    return true;
}

static void fixture_close(fixture *f)
{
    d12__driver_destroy_device(f->device);
    d12__objtable_destroy(&f->objects);
    d12__info_queue_destroy(f->queue);
    d12__driver_adapter_close(f->adapter);
}

static HRESULT report(fixture *f, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *m)
{
    return f->cb->pfnReportMessageCb(f->rt, m);
}

static D3D12_MESSAGE *last_message(fixture *f)
{
    UINT64 count = d12_info_queue_GetNumStoredMessages(f->queue);
    SIZE_T length = 0;
    if (!count || FAILED(d12_info_queue_GetMessage(f->queue, count - 1, NULL, &length)))
        return NULL;
    D3D12_MESSAGE *m = malloc(length);
    if (m && FAILED(d12_info_queue_GetMessage(f->queue, count - 1, m, &length))) {
        free(m);
        return NULL;
    }
    return m;
}

static unsigned g_callback_calls;

static void count_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d,
                           void *context)
{
    (void)c, (void)s, (void)d, (void)context;
    if (id == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
        __atomic_fetch_add(&g_callback_calls, 1, __ATOMIC_RELAXED);
}

/* ---- the generated validation cases ---- */

/* One case against the predicate and through pfnReportMessageCb: same HRESULT; an accepted message is stored
 * once (mapped severity and category, text verbatim) and reaches the callback, a rejected one neither. */
static void run_case(fixture *on, fixture *off, const d12_ddi_case_report_message *c)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m;
    d12_ddi_example_report_message(&m);
    if (c->change)
        c->change(&m);
    const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *p = c->null_param ? NULL : &m;
    const char *rule = "unset";
    if (!d12test_record(d12__ddi_check_report_message(c->preconditions, p, &rule) == c->expected, __FILE__,
                        __LINE__, c->name))
        return;
    CHECK_EQ_STR(rule, c->rule);
    fixture *f = c->preconditions ? on : off;
    UINT64 stored = d12_info_queue_GetNumStoredMessages(f->queue);
    unsigned calls = g_callback_calls;
    HRESULT hr = report(f, p);
    d12test_record(hr == c->expected, __FILE__, __LINE__, c->name);
    bool accepted = c->expected == S_OK;
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(f->queue), stored + accepted);
    CHECK_EQ_INT(g_callback_calls, calls + accepted);
    D3D12_MESSAGE *last = accepted ? last_message(f) : NULL;
    if (last) {
        D3D12_MESSAGE_SEVERITY severity;
        D3D12_MESSAGE_CATEGORY category;
        CHECK(d12__ddi_map_message_severity_0126(m.Severity, &severity) && last->Severity == severity);
        CHECK(d12__ddi_map_message_category_0126(m.Category, &category) && last->Category == category);
        CHECK_EQ_INT(last->ID, D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE);
        CHECK_EQ_STR(last->pDescription, m.pDescription);
    }
    free(last);
}

static void test_validation(void)
{
    fixture on, off;
    if (!fixture_open(&on, true) || !fixture_open(&off, false))
        return;
    DWORD a, b;
    d12_info_queue_RegisterMessageCallback(on.queue, count_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &a);
    d12_info_queue_RegisterMessageCallback(off.queue, count_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &b);
    size_t count = sizeof d12_ddi_cases_report_message / sizeof d12_ddi_cases_report_message[0];
    unsigned negatives = 0;
    for (size_t i = 0; i < count; i++) {
        run_case(&on, &off, &d12_ddi_cases_report_message[i]);
        negatives += d12_ddi_cases_report_message[i].expected != S_OK;
    }
    CHECK(negatives >= 9 && count - negatives >= 20); /* every rule has both kinds of case */
    printf("%zu generated cases (%u negative)\n", count, negatives);
    fixture_close(&off);
    fixture_close(&on);
}

/* The DDI enums map onto the API's value for value, and nothing outside them maps. */
static void test_enum_mapping(void)
{
    D3D12_MESSAGE_SEVERITY s;
    D3D12_MESSAGE_CATEGORY c;
    CHECK(d12__ddi_map_message_severity_0126(D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE, &s) &&
          s == D3D12_MESSAGE_SEVERITY_MESSAGE);
    CHECK(d12__ddi_map_message_category_0126(D3D12DDI_MESSAGE_CATEGORY_0126_STATE_OBJECT_DATABASE, &c) &&
          c == D3D12_MESSAGE_CATEGORY_STATE_OBJECT_DATABASE);
    CHECK_EQ_INT(D3D12_MESSAGE_CATEGORY_STATE_OBJECT_DATABASE, 11);
    for (int v = 0; v <= 11; v++)
        CHECK(d12__ddi_map_message_category_0126((D3D12DDI_MESSAGE_CATEGORY_0126)v, &c) && (int)c == v);
    CHECK(!d12__ddi_map_message_severity_0126((D3D12DDI_MESSAGE_SEVERITY_0126)5, &s));
    CHECK(!d12__ddi_map_message_category_0126((D3D12DDI_MESSAGE_CATEGORY_0126)12, &c));
}

/* ---- enablement ---- */

/* The reference driver reports the initialization message from inside pfnEnableExtendedFeature; the channel
 * counts as enabled before that call, so it is stored; the feature's table is then filled. */
static void test_enable_inside_call(void)
{
    fixture f;
    if (!fixture_open(&f, true))
        return;
    CHECK(d12__drm_enabled(&f.drm));
    CHECK_EQ_INT(f.drm.version, D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1); /* v2: both list 2u */
    CHECK(f.drm.funcs.pfnFlushDriverReportedMessages != NULL && f.drm.funcs.pfnSetCommandListStateIndex != NULL);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(f.queue), 1);
    D3D12_MESSAGE *m = last_message(&f);
    if (m)
        CHECK_EQ_STR(m->pDescription, "D3D12 Driver Reported Messages Enabled");
    free(m);
    CHECK_EQ_INT(d12__drm_pick_version(f.adapter), D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1);
    fixture_close(&f);
}

/* ---- concurrency ---- */

#define THREADS 8
#define REPORTS 2000

static void *reporter(void *arg)
{
    fixture *f = arg;
    char text[64];
    unsigned failures = 0;
    for (int i = 0; i < REPORTS; i++) {
        snprintf(text, sizeof text, "thread report %d", i);
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {(UINT64)i, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING,
                                                   D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, text, 0xFFFFFFFFu};
        failures += report(f, &m) != S_OK;
        D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 bad = m;
        bad.pDescription = NULL;
        failures += report(f, &bad) != E_INVALIDARG;
    }
    return (void *)(uintptr_t)failures;
}

/* "Concurrent calls on the same hDevice are permitted ... Concurrent callers block; they do not corrupt state":
 * every accepted report stored and delivered exactly once, every rejected one nowhere. */
static void test_concurrency(void)
{
    fixture f;
    if (!fixture_open(&f, true))
        return;
    DWORD cookie;
    g_callback_calls = 0;
    d12_info_queue_RegisterMessageCallback(f.queue, count_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL, &cookie);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, reporter, &f);
    uintptr_t failures = 0;
    for (int i = 0; i < THREADS; i++) {
        void *result;
        pthread_join(threads[i], &result);
        failures += (uintptr_t)result;
    }
    CHECK_EQ_INT(failures, 0);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(f.queue), 1 + THREADS * REPORTS);
    CHECK_EQ_INT(d12__info_queue_pending(f.queue), 0);
    CHECK_EQ_INT(g_callback_calls, THREADS * REPORTS);
    fixture_close(&f);
}

/* A report made from inside an application callback (a driver reporting while the application is being told
 * about an earlier message) is accepted and delivered after the running callback, not lost or deadlocked. */
static fixture *g_reentrant;
static unsigned g_reentrant_depth;

static void reentrant_callback(D3D12_MESSAGE_CATEGORY c, D3D12_MESSAGE_SEVERITY s, D3D12_MESSAGE_ID id, LPCSTR d,
                               void *context)
{
    (void)c, (void)s, (void)id, (void)context;
    if (strcmp(d, "outer") != 0)
        return;
    g_reentrant_depth++;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {1, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "inner", 0xFFFFFFFFu};
    CHECK_EQ_INT(report(g_reentrant, &m), S_OK);
}

static void test_reentrant(void)
{
    fixture f;
    if (!fixture_open(&f, true))
        return;
    g_reentrant = &f;
    DWORD cookie;
    d12_info_queue_RegisterMessageCallback(f.queue, reentrant_callback, D3D12_MESSAGE_CALLBACK_FLAG_NONE, NULL,
                                           &cookie);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {1, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
                                               D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "outer", 0xFFFFFFFFu};
    CHECK_EQ_INT(report(&f, &m), S_OK);
    CHECK_EQ_INT(g_reentrant_depth, 1);
    CHECK_EQ_INT(d12_info_queue_GetNumStoredMessages(f.queue), 3); /* init, outer, inner */
    D3D12_MESSAGE *last = last_message(&f);
    if (last)
        CHECK_EQ_STR(last->pDescription, "inner");
    free(last);
    fixture_close(&f);
}

/* ---- object identity ---- */

static HRESULT identity(fixture *f, void *handle, D3D12DDI_HANDLETYPE type, SIZE_T *size, CHAR *out)
{
    D3D12DDI_HANDLE_AND_TYPE object = {handle, type};
    return f->cb->pfnQueryObjectIdentityCb(f->rt, object, size, out);
}

/* An object as a future runtime object registers itself: its own handle value, API pointer and name. */
typedef struct fake_object {
    d12_object_data data;
    d12_objtable_entry entry;
    int api; /* stands in for the COM interface */
} fake_object;

static void fake_add(fixture *f, fake_object *o, D3D12DDI_HANDLETYPE type, const char *interface_name)
{
    d12__object_data_init(&o->data);
    o->entry.handle = o; /* the runtime handle value the driver gets */
    o->entry.type = type;
    o->entry.api_object = &o->api;
    o->entry.interface_name = interface_name;
    o->entry.data = &o->data;
    d12__objtable_add(&f->objects, &o->entry);
}

static void fake_remove(fixture *f, fake_object *o)
{
    d12__objtable_remove(&f->objects, &o->entry);
    d12__object_data_destroy(&o->data);
}

/* The two-call pattern, DXGI_ERROR_MORE_DATA with the size, and both formats. */
static void test_identity_two_call(void)
{
    fixture f;
    if (!fixture_open(&f, false))
        return;
    fake_object o;
    fake_add(&f, &o, D3D12DDI_HT_0012_RESOURCE, "ID3D12Resource");
    char expected[96], buffer[96];
    snprintf(expected, sizeof expected, "0x%016llX:'Unnamed ID3D12Resource Object'",
             (unsigned long long)(uintptr_t)&o.api);
    SIZE_T size = 12345;
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_0012_RESOURCE, &size, NULL), S_OK);
    CHECK_EQ_INT(size, strlen(expected) + 1);
    SIZE_T needed = size;
    size = needed - 1;
    memset(buffer, '#', sizeof buffer);
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_0012_RESOURCE, &size, buffer), DXGI_ERROR_MORE_DATA);
    CHECK_EQ_INT(size, needed);
    CHECK_EQ_INT(buffer[0], '#'); /* nothing written */
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_0012_RESOURCE, &size, buffer), S_OK);
    CHECK_EQ_STR(buffer, expected);
    WCHAR name[] = {'M', 'y', 'V', 'e', 'r', 't', 'e', 'x', 'B', 'u', 'f', 'f', 'e', 'r', 0};
    CHECK_EQ_INT(d12__object_set_name(&o.data, name), S_OK);
    snprintf(expected, sizeof expected, "0x%016llX:'MyVertexBuffer'", (unsigned long long)(uintptr_t)&o.api);
    size = sizeof buffer;
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_0012_RESOURCE, &size, buffer), S_OK);
    CHECK_EQ_STR(buffer, expected);
    CHECK_EQ_INT(size, strlen(expected) + 1);
    fake_remove(&f, &o);
    fixture_close(&f);
}

/* "On invalid inputs ... the runtime returns E_INVALIDARG and writes no output": NULL size, NULL handle, an
 * unknown type, a handle of another type, a bogus handle (never dereferenced), an object already destroyed. */
static void test_identity_invalid(void)
{
    fixture f;
    if (!fixture_open(&f, false))
        return;
    fake_object o;
    fake_add(&f, &o, D3D12DDI_HT_COMMAND_LIST, "ID3D12GraphicsCommandList");
    char buffer[64];
    memset(buffer, '#', sizeof buffer);
    SIZE_T size = sizeof buffer;
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_COMMAND_LIST, NULL, buffer), E_INVALIDARG);
    CHECK_EQ_INT(identity(&f, NULL, D3D12DDI_HT_COMMAND_LIST, &size, buffer), E_INVALIDARG);
    CHECK_EQ_INT(identity(&f, &o, (D3D12DDI_HANDLETYPE)12345, &size, buffer), E_INVALIDARG);
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_0012_RESOURCE, &size, buffer), E_INVALIDARG);
    CHECK_EQ_INT(identity(&f, (void *)(uintptr_t)0xDEAD0000u, D3D12DDI_HT_COMMAND_LIST, &size, buffer),
                 E_INVALIDARG);
    fake_remove(&f, &o);
    CHECK_EQ_INT(identity(&f, &o, D3D12DDI_HT_COMMAND_LIST, &size, buffer), E_INVALIDARG);
    CHECK_EQ_INT(size, sizeof buffer);
    CHECK_EQ_INT(buffer[0], '#');
    fixture_close(&f);
}

/* The table holds many objects (it grows), finds each by value and type, and forgets removed ones. */
static void test_objtable_many(void)
{
    fixture f;
    if (!fixture_open(&f, false))
        return;
    enum { N = 1000 };
    fake_object *objects = calloc(N, sizeof *objects);
    if (!CHECK(objects != NULL))
        return;
    for (int i = 0; i < N; i++)
        fake_add(&f, &objects[i], i % 2 ? D3D12DDI_HT_FENCE : D3D12DDI_HT_HEAP, "ID3D12Fence");
    CHECK(f.objects.bucket_count >= N / 2);
    unsigned found = 0;
    for (int i = 0; i < N; i++) {
        SIZE_T size = 0;
        found += identity(&f, &objects[i], i % 2 ? D3D12DDI_HT_FENCE : D3D12DDI_HT_HEAP, &size, NULL) == S_OK;
        found += identity(&f, &objects[i], i % 2 ? D3D12DDI_HT_HEAP : D3D12DDI_HT_FENCE, &size, NULL) == S_OK;
    }
    CHECK_EQ_INT(found, N);
    for (int i = 0; i < N; i += 2)
        fake_remove(&f, &objects[i]);
    CHECK_EQ_INT(f.objects.count, N / 2);
    found = 0;
    for (int i = 0; i < N; i++) {
        SIZE_T size = 0;
        found += identity(&f, &objects[i], i % 2 ? D3D12DDI_HT_FENCE : D3D12DDI_HT_HEAP, &size, NULL) == S_OK;
    }
    CHECK_EQ_INT(found, N / 2);
    for (int i = 1; i < N; i += 2)
        fake_remove(&f, &objects[i]);
    free(objects);
    fixture_close(&f);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"validation", test_validation}, {"enum_mapping", test_enum_mapping},
        {"enable_inside_call", test_enable_inside_call}, {"concurrency", test_concurrency},
        {"reentrant", test_reentrant}, {"identity_two_call", test_identity_two_call},
        {"identity_invalid", test_identity_invalid}, {"objtable_many", test_objtable_many},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: test_drm_internal CASE\n");
    return 2;
}
