/* d12conform, the init.* tests: the initialization message: reported once, inside pfnEnableExtendedFeature, with
 * the spec's fields. (one file per area; conform.h says how to add one). */
#include "conform.h"

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

const conform_test conform_tests_init[] = {
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
};
const size_t conform_tests_init_count = sizeof conform_tests_init / sizeof conform_tests_init[0];
