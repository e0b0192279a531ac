/* d12conform, the oblig.* tests: the driver's obligations. (one file per area; conform.h says how to add one). */
#include "conform.h"

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

const conform_test conform_tests_oblig[] = {
    {"oblig.not_enabled", "driver", "If the runtime does not enable the extended feature on a device, the driver must "
     "not generate driver-reported messages on that device.", t_oblig_not_enabled},
    {"oblig.foreign_index", "driver", "The driver must cache the most recent CommandListStateIndex received for a given "
     "command list and include it in ... any D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 that the driver attributes to that "
     "command list operation.", t_oblig_foreign_index},
    {"oblig.after_destroy", "driver", "pfnReportMessageCb is valid only between device creation and device destruction.",
     t_oblig_after_destroy},
    {"oblig.well_formed", "driver", "pDescription must be a non-NULL, NUL-terminated string ... Severity within "
     "[CORRUPTION, MESSAGE] ... Category within [APPLICATION_DEFINED, STATE_OBJECT_DATABASE]", t_oblig_well_formed},
};
const size_t conform_tests_oblig_count = sizeof conform_tests_oblig / sizeof conform_tests_oblig[0];
