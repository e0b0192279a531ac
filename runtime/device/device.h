/* The device: ID3D12Device ... ID3D12Device11, ID3D12Device17, and ID3D12InfoQueue(1) when the debug layer
 * was enabled before D3D12CreateDevice. One device per adapter while it is alive and not removed
 * (docs/device.md). Locks: see docs/locking.md. */
#ifndef D12_DEVICE_H
#define D12_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "d12_com.h"
#include "d12caps.h"
#include "debug.h"
#include "driver.h"
#include "drm.h"
#include "feature_cache.h"
#include "flush.h"
#include "infoqueue.h"
#include "object.h"
#include "objtable.h"

struct d12_device {
    struct d12__device_com com;
    atomic_ulong refcount;
    d12_object_data object; /* private data and name; its own leaf lock */

    /* Fixed at creation, read without a lock. */
    d12_debug_settings settings;  /* the debug settings latched by D3D12CreateDevice */
    d12_caps_flavor flavor;       /* D12RT_FLAVOR */
    d12_info_queue *info_queue;   /* NULL unless settings.debug_layer */
    d12_driver_device *driver;    /* the driver's device */

    /* The driver-reported-messages channel and the objects a driver may name (their own locking). */
    d12_objtable objects;         /* the device's live runtime objects, the device itself included */
    d12_objtable_entry entry;     /* the device's row: hRTDevice, D3D12DDI_HT_D12RT_DEVICE */
    d12_drm drm;

    /* GPU work (queue.c, list.c, fence.c, resource.c). */
    const d12_driver_gpu_funcs *gpu;  /* fixed: NULL when the driver has no GPU work */
    d12_driver_gpu_hooks gpu_hooks;   /* fixed: the fence and command-list-error callbacks' targets */
    pthread_mutex_t children_lock;    /* guards `queues` and `fences`; ranked above a queue's lock */
    struct d12_command_queue *queues;
    struct d12_fence *fences;
    d12_flush flush;                  /* the flush engine (flush.h) */
    struct d12_correlation *correlation; /* fixed: command-list state indices; NULL unless the channel is enabled */

    /* Device removal in two steps (docs/dred-gpu.md, "Removal"): `removal_claim` is the compare-exchange the first
     * reason wins (the GPU stops at it: progress reports answer D3DDDIERR_DEVICEREMOVED); `removed_reason` is
     * published after DRED froze the GPU state, and is what every other reader sees. S_OK until then, never
     * changes after. */
    _Atomic HRESULT removal_claim;
    _Atomic HRESULT removed_reason;
    _Atomic(struct d12_tdr *) tdr;    /* the TDR watchdog (runtime/tdr.c); NULL until the first queue of a 0127 driver */
    uint32_t tdr_delay_ms;            /* fixed: D12RT_TDR_DELAY_MS latched at D3D12CreateDevice */
    atomic_bool legacy_query_warned; /* the CheckFeatureSupport deprecation warning, once per device */
    d12_feature_cache feature_cache; /* CheckFeatureSupport answers that cannot change (feature_cache.h) */

    struct d12_dred *dred;            /* fixed: DRED state and output (runtime/dred/dred.h); never NULL after creation */
};

/* Remove the device: the first reason wins; later calls change nothing. Returns true for the call that
 * removed it. The debug layer says why. A removal that is no GPU fault: DRED's state UNKNOWN. */
bool d12__device_remove(struct d12_device *device, HRESULT reason, const char *why);

/* The same for a GPU fault or hang, with what is known of it (dred/dred.h's d12_fault_info; fault->reason is the
 * removal reason). In order, on the winning thread with no runtime lock held: claim (the GPU stops), DRED freeze,
 * publish the reason, message 232 and the detail, detach from the adapter, wake every fence and waiter, and when
 * the driver-reported-messages channel is off, DRED's completion (the removal flush completes it otherwise). */
struct d12_fault_info;
bool d12__device_remove_fault(struct d12_device *device, const struct d12_fault_info *fault, const char *why);

/* Whether a removal has been claimed (possibly not yet published): the GPU stops at the claim. */
bool d12__device_removal_claimed(struct d12_device *device);

/* Whether the device is removed, without surfacing it: for code that reacts to a removal but tells the application
 * nothing (fence waits, the flush engine, ExecuteCommandLists). */
bool d12__device_is_removed(struct d12_device *device);

/* DXGI_ERROR_DEVICE_REMOVED once the device is removed, else S_OK; a removal another thread claimed is waited for
 * until it is published (device.c, surfaced_reason), so application calls only. A method returning what this
 * returns surfaces the removal to the application, so the first such call makes the removal flush (flush.h). */
HRESULT d12__device_removed(struct d12_device *device);

/* The checks every GPU-object creation starts with: removal (surfaced), then whether the driver has GPU work
 * (DXGI_ERROR_UNSUPPORTED and a debug-layer message when not). */
HRESULT d12__device_check_gpu_create(struct d12_device *device, const char *method);

/* The device's fence list: every fence is woken when the device is removed or a queue abandons its waits. */
void d12__device_link_fence(struct d12_device *device, struct d12_fence *fence);
void d12__device_unlink_fence(struct d12_device *device, struct d12_fence *fence);
void d12__device_wake_fences(struct d12_device *device);

/* D3D12CreateDevice (runtime/entry.c documents the arguments). */
HRESULT d12__device_create(IUnknown *adapter, D3D_FEATURE_LEVEL minimum, const IID *riid, void **device);

/* ID3D12Debug::EnableDebugLayer was called: a device that exists now is removed ("Calling this API after
 * creating the D3D12 device will cause the D3D12 runtime to remove the device."). */
void d12__device_debug_layer_enabled_late(void);

#endif
