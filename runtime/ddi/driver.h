/* The runtime side of the driver boundary (d12rt/d3d12ddi.h): load the driver, open its adapter, negotiate
 * the DDI version, query its extended features once, read its true capabilities, and create and destroy
 * driver devices whose errors reach a runtime hook.
 *
 * Which driver: D12RT_DRIVER=/path/driver.so is dlopen()ed and its OpenAdapter12 dlsym()ed; unset (or empty),
 * the built-in reference driver (drivers/reference/, linked in) serves.
 *
 * Failure HRESULTs (each with one `d12rt: ...` line on stderr naming the driver):
 *   E_FAIL                           the file cannot be loaded, or has no OpenAdapter12 (dlerror() quoted)
 *   what OpenAdapter12 returned      it failed
 *   DXGI_ERROR_UNSUPPORTED           no DDI version in common
 *   DXGI_ERROR_DRIVER_INTERNAL_ERROR a misbehaving driver: a NULL table slot, a failed or absurd list query,
 *                                    a private device size of 0 or above D12_DRIVER_MAX_PRIVATE_SIZE
 * A misbehaving driver never crashes the runtime through these paths: every slot is checked before use and
 * every size and count is bounded.
 *
 * Threads: an adapter is immutable once opened, so every query may run on any thread; calls into the driver
 * are made with no runtime lock held by this module (callers must not hold one either, DESIGN.md). */
#ifndef D12_DRIVER_H
#define D12_DRIVER_H

#include <stdbool.h>

#include "d12caps.h"
#include "d12rt/d3d12ddi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct d12_driver_adapter d12_driver_adapter;
typedef struct d12_driver_device d12_driver_device;

/* Largest private device size the runtime allocates; a driver asking for more is broken. */
#define D12_DRIVER_MAX_PRIVATE_SIZE ((SIZE_T)64 << 20)
/* Largest count a driver's list query (versions, tables, features) may report. */
#define D12_DRIVER_MAX_LIST 256u

/* Receives the driver's pfnSetErrorCb(hRTDevice, reason) for one device, on whatever thread the driver
 * called from, with no runtime lock held. `reason` is passed unchanged (S_OK included: the DDI says any code
 * removes the device); mapping and first-reason-wins are the device's business. */
typedef void (*d12_driver_error_hook)(void *context, HRESULT reason);

/* Receive the driver-reported-messages callbacks of one device (pfnReportMessageCb, pfnQueryObjectIdentityCb),
 * on whatever thread the driver called from, with no runtime lock held; what they return goes back to the
 * driver unchanged. */
typedef struct d12_driver_message_hooks {
    HRESULT (*report)(void *context, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message);
    HRESULT (*query_identity)(void *context, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size, CHAR *identity);
    /* feature version 2's pfnQueryGpuVaIdentityCb (NULL: E_INVALIDARG) */
    HRESULT (*query_va)(void *context, UINT64 va, SIZE_T *size, CHAR *identity);
    void *context;
} d12_driver_message_hooks;

/* Receive a device's GPU-work callbacks (the kernel-thunk stand-ins pfnSignalFenceFromGpuCb and
 * pfnWaitForFenceFromGpuCb, and pfnSetCommandListErrorCb), on whatever thread the driver called from (a queue's
 * timeline thread, usually), with no runtime lock held. The handles are passed as the driver gave them; checking
 * them is the hooks' business. */
typedef struct d12_driver_gpu_hooks {
    /* DDI build 0127 (pfnDeviceFaultCb, pfnReportGpuProgressCb); never called for a driver of an older build. */
    void (*fault)(void *context, const D3D12DDICB_DEVICEFAULT_0127 *fault);
    HRESULT (*progress)(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDICB_GPUPROGRESS_0127 *progress);
    HRESULT (*signal)(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDIARG_FENCE_OPERATION_0126 *operation);
    HRESULT (*wait)(void *context, D3D12DDI_HRTCOMMANDQUEUE queue, const D3D12DDIARG_FENCE_OPERATION_0126 *operation);
    /* pfnSetCommandListErrorCb names no device: asked of each live device in turn, it answers whether `list` is
     * one of the device's live command lists (and only then acts on hr). */
    bool (*list_error)(void *context, D3D12DDI_HRTCOMMANDLIST list, HRESULT hr);
    void *context;
} d12_driver_gpu_hooks;

/* The driver's GPU-work tables (filled once per adapter). The command-list table is filled in the negotiated
 * build's layout: D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 from build 0127 on, else _0126 (then
 * list_0127.pfnWriteBufferImmediate is NULL: the driver has no write-immediate, so no DRED breadcrumbs). */
typedef struct d12_driver_gpu_funcs {
    D3D12DDI_DEVICE_FUNCS_CORE_0126 core;
    union {
        D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 list;      /* every build */
        D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 list_0127; /* the same slots, then pfnWriteBufferImmediate */
    };
    D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 queue;
    /* The optional descriptor table (docs/descriptors.md): valid when has_descriptors. */
    D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT descriptors;
    bool has_descriptors;
    D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT heaps; /* valid when has_heaps (docs/heaps.md) */
    bool has_heaps; /* the driver offered D3D12DDI_TABLE_TYPE_D12RT_HEAPS: heaps and placed buffers */
    /* The compute pair (docs/pipelines.md), valid when has_pipelines: D3D12DDI_TABLE_TYPE_D12RT_PIPELINES and
     * D3D12DDI_TABLE_TYPE_D12RT_COMMAND_LIST_BINDING, offered both or neither (one alone refuses the adapter). */
    D3D12DDI_DEVICE_FUNCS_PIPELINES_D12RT pipelines;
    D3D12DDI_COMMAND_LIST_FUNCS_BINDING_D12RT binding;
    bool has_pipelines;
} d12_driver_gpu_funcs;

/* Whether the negotiated build is 0127 or later: the driver has pfnWriteBufferImmediate and was handed
 * pfnDeviceFaultCb and pfnReportGpuProgressCb (so the TDR watchdog can watch its queues). */
bool d12__driver_adapter_has_0127(const d12_driver_adapter *adapter);

typedef struct d12_driver_device_desc {
    D3D12DDI_CREATE_DEVICE_FLAGS flags; /* e.g. DEBUGGABLE when the debug layer is on */
    d12_driver_error_hook on_error;     /* NULL: errors are printed on stderr and otherwise ignored */
    void *context;                      /* passed to on_error */
    const d12_driver_message_hooks *messages; /* NULL: both callbacks answer E_INVALIDARG; must outlive the device */
    const d12_driver_gpu_hooks *gpu;          /* NULL: the fence callbacks answer E_INVALIDARG; must outlive it */
} d12_driver_device_desc;

/* ---- The adapter ---- */

/* Answers a driver's pfnQueryRegistryCb (D3D12DDI_D12RT_ADAPTERCALLBACKS, passed to every OpenAdapter12): `query`
 * arrives checked, its outputs zeroed; returns S_OK, DXGI_ERROR_NOT_FOUND or E_OUTOFMEMORY. The hub hands in the
 * registry's reader before the first adapter opens; until then (tests, tools) every value is absent. */
typedef HRESULT (*d12_driver_registry_query)(D3D12DDICB_D12RT_QUERYREGISTRY *query);
void d12__driver_set_registry_query(d12_driver_registry_query query);

/* The process's adapter: opened on the first call (per D12RT_DRIVER) and kept for the life of the process;
 * every later call returns the same adapter, or the same failure without a second stderr line. */
HRESULT d12__driver_adapter_get(d12_driver_adapter **out);

/* Open a driver's adapter: `path` a driver .so, or NULL for the built-in reference driver. Calls
 * OpenAdapter12, checks every slot, negotiates the version (the highest D3D12DDI_SUPPORTED token both the
 * runtime and pfnGetSupportedVersions list) and, when pfnGetOptionalDDITables offers the extended-features
 * table, fills it and stores the extended features and their versions. For tests and tools; the runtime uses
 * d12__driver_adapter_get. */
HRESULT d12__driver_adapter_open(const char *path, d12_driver_adapter **out);

/* pfnCloseAdapter, then free; the library stays loaded (a driver may have left threads or atexit handlers).
 * Every device of the adapter must be destroyed first. NULL is ignored. */
void d12__driver_adapter_close(d12_driver_adapter *adapter);

/* The driver's path, or "built-in reference driver". */
const char *d12__driver_adapter_name(const d12_driver_adapter *adapter);

/* The negotiated D3D12DDI_SUPPORTED_<build> token. */
UINT64 d12__driver_adapter_version(const d12_driver_adapter *adapter);

/* The extended features the driver reported at adapter init (not owned by the caller; *count may be 0). */
const D3D12DDI_FEATURE_0020 *d12__driver_extended_features(const d12_driver_adapter *adapter, UINT32 *count);

/* The versions the driver reported for `feature`, or NULL with *count 0 when it did not report the feature. */
const UINT32 *d12__driver_extended_feature_versions(const d12_driver_adapter *adapter,
                                                    D3D12DDI_FEATURE_0020 feature, UINT32 *count);

/* The highest version of `feature` that the driver reported and that is at most `highest_known` (the
 * runtime's newest for that feature); 0 (the spec's _NONE) when there is none. */
UINT32 d12__driver_pick_feature_version(const d12_driver_adapter *adapter, D3D12DDI_FEATURE_0020 feature,
                                        UINT32 highest_known);

/* ---- True capabilities ---- */

/* The size of `feature`'s newest struct layout at the runtime's own SDK version for `flavor`: the size to
 * pass to d12__driver_get_feature_data. 0 for a feature the runtime does not answer. */
UINT d12__driver_feature_data_size(UINT feature, d12_caps_flavor flavor);

/* Ask the driver for its TRUE data for `feature` (D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA). `data` holds `size`
 * bytes, a layout size of the feature (d12__driver_feature_data_size); its input fields (NodeIndex, Format,
 * ...) are passed to the driver, every other byte arrives zeroed. On success `data` holds the driver's
 * answer, unclamped; on failure (E_INVALIDARG for a feature or size the runtime does not know, or what
 * pfnGetCaps returned) `data` is untouched. */
HRESULT d12__driver_get_feature_data(d12_driver_adapter *adapter, D3D12_FEATURE feature, void *data, UINT size);

/* Whether the driver runs the application's shaders (D3D12_FEATURE_D12RT_SHADER_EXECUTION through
 * D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA): a driver that fails the query, or does not know it, runs none. */
bool d12__driver_executes_shaders(d12_driver_adapter *adapter);

/* The adapter's identity (D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, asked at open); VendorId
 * D3D12DDI_D12RT_VENDOR_ID_UNKNOWN when the driver did not answer. */
D3D12DDI_D12RT_ADAPTER_IDENTITY d12__driver_adapter_identity(const d12_driver_adapter *adapter);

/* ---- Devices ---- */

/* Whether the negotiated DDI build hands the driver D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 (build 0126 or
 * later): without pfnReportMessageCb a driver cannot report, so the runtime does not enable the feature. */
bool d12__driver_adapter_has_message_callbacks(const d12_driver_adapter *adapter);

/* Create a driver device: pfnCalcPrivateDeviceSize (0 or above D12_DRIVER_MAX_PRIVATE_SIZE is a broken
 * driver), allocate that much (zeroed, 64-byte aligned), pfnCreateDevice with the negotiated version and the
 * runtime's callbacks (D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 from build 0126 on), whose pfnSetErrorCb calls
 * desc->on_error and whose message callbacks call desc->messages. The hooks may run before this returns: *out
 * holds the device from just before pfnCreateDevice is called (NULL again if it fails). */
HRESULT d12__driver_create_device(d12_driver_adapter *adapter, const d12_driver_device_desc *desc,
                                  d12_driver_device **out);

/* pfnDestroyDevice, then free the private memory. After it returns the hook is never called again for this
 * device. NULL is ignored. */
void d12__driver_destroy_device(d12_driver_device *device);
/* Issue 17 item 7.1: when the calling thread is inside a callback of `device` (pfnReportMessageCb running the
 * application's message callback, which dropped the last device reference), schedule destroy(argument) for the moment
 * that callback returns, and answer true; false: the caller destroys now. */
bool d12__driver_defer_destroy(d12_driver_device *device, void (*destroy)(void *), void *argument);

/* pfnEnableExtendedFeature(hDevice, feature, version). E_INVALIDARG without calling the driver when the
 * adapter did not report that feature and version at init; otherwise what the driver returned. */
HRESULT d12__driver_enable_extended_feature(d12_driver_device *device, D3D12DDI_FEATURE_0020 feature,
                                            UINT32 version);

/* pfnFillDDITable(hAdapter, type, table, size, 0, NULL) for a table a device's feature needs, e.g.
 * D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES once that feature is enabled: what the driver returned. */
HRESULT d12__driver_fill_table(d12_driver_device *device, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size);

d12_driver_adapter *d12__driver_device_adapter(const d12_driver_device *device);

/* The runtime's handle of the device as the driver sees it (hRTDevice: its callbacks' first argument, and the
 * Handle of a D3D12DDI_HT_D12RT_DEVICE object). */
D3D12DDI_HRTDEVICE d12__driver_device_rt_handle(const d12_driver_device *device);

/* The callbacks the driver got at pfnCreateDevice: what a driver calls, for tests that play the driver. */
const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *d12__driver_device_callbacks(const d12_driver_device *device);

/* The driver's handle of the device (its private memory), e.g. for a driver's own test hooks. */
D3D12DDI_HDEVICE d12__driver_device_handle(const d12_driver_device *device);

/* A LUID for the device's adapter, unique among the adapters this process opened (GetAdapterLuid). */
LUID d12__driver_adapter_luid(const d12_driver_device *device);

/* ---- GPU work ---- */

/* The driver's GPU-work tables, or NULL when the driver offers none (then there are no queues, allocators, lists
 * or resources: DXGI_ERROR_UNSUPPORTED). A driver offering only some of them, or one with a NULL slot, does not
 * get an adapter (DXGI_ERROR_DRIVER_INTERNAL_ERROR). */
const d12_driver_gpu_funcs *d12__driver_gpu_funcs(const d12_driver_device *device);

/* Private memory for a driver object whose pfnCalcPrivate<what>Size returned `size`: zeroed, 64-byte aligned,
 * freed with free(). E_OUTOFMEMORY; DXGI_ERROR_DRIVER_INTERNAL_ERROR when the size is 0 or above
 * D12_DRIVER_MAX_PRIVATE_SIZE (a broken driver: one stderr line says so). */
HRESULT d12__driver_private_alloc(const d12_driver_device *device, const char *what, SIZE_T size, void **memory);

#ifdef __cplusplus
}
#endif

#endif
