/* The driver boundary's shared internals (runtime/ddi/): the adapter and device records and the one-line report of
 * a broken driver. driver.c loads and opens a driver and makes its devices, negotiate.c agrees the DDI version and
 * reads the tables a driver offers at adapter init, driver_caps.c reads its true capabilities. Only these three
 * files include this header. */
#ifndef D12_DRIVER_INTERNAL_H
#define D12_DRIVER_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "driver.h"

#define BUILTIN_NAME "built-in reference driver"

typedef struct extended_feature {
    D3D12DDI_FEATURE_0020 feature;
    UINT32 *versions;
    UINT32 version_count;
} extended_feature;

struct d12_driver_adapter {
    char *path; /* NULL: the built-in driver */
    D3D12DDI_ADAPTERFUNCS funcs;
    D3D12DDI_HADAPTER handle;
    UINT64 version;
    LUID luid;
    bool has_extended;
    D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 extended;
    D3D12DDI_FEATURE_0020 *features; /* the same features as `extended_features`, as one array */
    extended_feature *extended_features;
    UINT32 feature_count;
    bool has_gpu;            /* the three GPU-work tables were offered and filled */
    d12_driver_gpu_funcs gpu;
    /* docs/driver-reported-messages-v2.md: D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, asked at open of every
     * driver (driver_caps.c); VendorId D3D12DDI_D12RT_VENDOR_ID_UNKNOWN when it does not answer (or answers 0). */
    D3D12DDI_D12RT_ADAPTER_IDENTITY identity;
};

struct d12_driver_device {
    struct d12_driver_device *next_live; /* g_live_devices (g_live_devices_lock) */
    d12_driver_adapter *adapter;
    d12_driver_error_hook on_error;
    void *context;
    const d12_driver_message_hooks *messages;
    const d12_driver_gpu_hooks *gpu;
    D3D12DDI_HDEVICE handle;
    void *rt_token; /* hRTDevice.handle: a generation-checked token (rthandle.h), never this pointer */
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 callbacks; /* must live as long as the driver's device */
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 kt_callbacks;  /* likewise; an older build's driver reads the 0110 prefix */
};

/* "d12rt: driver NAME: what", one line: the message a user sees when a driver is broken. */
__attribute__((format(printf, 2, 3))) static inline HRESULT broken(const d12_driver_adapter *adapter,
                                                                   const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "d12rt: driver %s: ", d12__driver_adapter_name(adapter));
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return DXGI_ERROR_DRIVER_INTERNAL_ERROR;
}

/* A driver call that failed: out of memory is the driver's answer, passed on as it is (D3D12CreateDevice returns it
 * and the next one opens the adapter again: docs/reliability.md "Failure injection"); any other failure is a broken
 * driver. The line is printed either way. */
#define CALL_FAILED(adapter, hr, ...) ((hr) == E_OUTOFMEMORY ? (broken(adapter, __VA_ARGS__), E_OUTOFMEMORY) \
                                                             : broken(adapter, __VA_ARGS__))

/* negotiate.c: the DDI version (the highest both sides support) and the optional tables (extended features, the
 * GPU-work tables), at adapter open. A failure is a broken driver (its line printed) or E_OUTOFMEMORY. */
HRESULT d12__driver_negotiate(d12_driver_adapter *adapter);
HRESULT d12__driver_init_optional_tables(d12_driver_adapter *adapter);

/* driver_caps.c: ask the adapter's identity (version 2 of driver-reported messages) into adapter->identity; no
 * answer is no failure. Called at open, before the optional tables. */
void d12__driver_query_adapter_identity(d12_driver_adapter *adapter);

#endif
