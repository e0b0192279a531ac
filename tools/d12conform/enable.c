/* d12conform, the enable.* tests: enablement: the debug layer, the opt-in, the registry overlay, the latch, once
 * per device. (one file per area; conform.h says how to add one). */
#include "conform.h"

#include <unistd.h>

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

const conform_test conform_tests_enable[] = {
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
};
const size_t conform_tests_enable_count = sizeof conform_tests_enable / sizeof conform_tests_enable[0];
