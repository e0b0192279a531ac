/* DRED (Device Removed Extended Data): the runtime side. Settings latched at D3D12CreateDevice, auto-breadcrumbs
 * recorded by the runtime into every command list, the allocation ledger for page faults, and the output built once at
 * removal (ID3D12DeviceRemovedExtendedData, 1, 2) plus d12rt's own report (runtime/dred/report/).
 *
 * The removal hooks below are the contract with the removal path (BRIEF §3): runtime/device.c and the fault, hang and
 * driver-error paths call them. docs/dred.md documents the behaviour and the decisions. */
#ifndef D12_DRED_H
#define D12_DRED_H

#include <stdbool.h>
#include <stdint.h>

#include "d12_com.h"

struct d12_device;
struct d12_command_queue;
struct d12_command_list;

typedef struct d12_fault_info {
    HRESULT reason;                /* the removal reason (DXGI_ERROR_DEVICE_HUNG for faults and hangs, ...) */
    D3D12_DRED_DEVICE_STATE state; /* D3D12_DRED_DEVICE_STATE_HUNG / _PAGEFAULT / _FAULT, or _UNKNOWN for a removal
                                      that was no GPU fault (driver SetErrorCb, an open list executed, debug layer late) */
    UINT64 fault_va;               /* page fault: the faulting VA; else 0 */
    UINT32 fault_flags;            /* D3D12DDI_PAGE_FAULT_FLAG_* */
    struct d12_command_queue *queue;  /* the queue that faulted or hung, or NULL */
    struct d12_command_list *list;    /* the runtime command list, or NULL when unknown */
    UINT32 op_index;               /* breadcrumb op index in that list's recording, or 0xFFFFFFFF */
    const char *removed_by;        /* a removal nobody's GPU caused: who asked for it (the report's `removed_by`), or
                                      NULL */
} d12_fault_info;

#define D12_DRED_OP_INDEX_UNKNOWN 0xFFFFFFFFu

/* A live buffer's record in the allocation ledger (page-fault DRED, runtime/dred/ledger.c), embedded in its
 * d12_resource so a create and a release allocate nothing for it; linked in the device's live list (under the
 * ledger lock) while `resource` is non-NULL. */
typedef struct d12_dred_allocation {
    struct d12_dred_allocation *prev, *next;
    struct d12_resource *resource;
    UINT64 start, size;            /* the whole 64 KiB-granular allocation */
    UINT64 width;                  /* the buffer's Width (out-of-bounds distances) */
    uint64_t created;              /* its creation's number in the ledger's timeline ring (0: none recorded) */
} d12_dred_allocation;

/* Stage 1: called exactly once per device, by the thread whose removal won (first reason wins), with no runtime lock
 * held, BEFORE fences are forced to UINT64_MAX and before any waiter is released, so the GPU state it snapshots
 * (completed breadcrumb counts with acquire loads, fence values, pending waits) is the state at removal. */
void d12__dred_freeze(struct d12_device *device, const d12_fault_info *fault);

/* Stage 2: called once the driver-reported-messages removal flush has returned (or right after freeze when the
 * channel is off): attach the driver's correlated messages, complete the report, write D12RT_DRED_DUMP. */
void d12__dred_complete(struct d12_device *device);

/* Called from queue destruction and from the device's last Release: completes the report if stage 2 never ran
 * (the application never surfaced the removal). Idempotent. */
void d12__dred_finish(struct d12_device *device);

/* ---- Per-device state (device->dred) ---- */

/* What DRED does on one device: latched at D3D12CreateDevice from the settings and the registry (never changes). */
typedef struct d12_dred_enabled {
    bool auto_breadcrumbs;
    bool page_fault;
    bool breadcrumb_context;  /* only with auto_breadcrumbs */
    bool markers_only;        /* only with auto_breadcrumbs */
    bool watson_dump;         /* latched and reported; d12rt has no Watson */
} d12_dred_enabled;

struct d12_dred;
struct d12_debug_settings;

/* What the latched settings (after the registry overlay) turn on: FORCED_ON on, FORCED_OFF and SYSTEM_CONTROLLED off
 * (the registry has already replaced SYSTEM_CONTROLLED by its value when it has one). Contexts and markers-only apply
 * only with auto-breadcrumbs on. */
d12_dred_enabled d12__dred_resolve(const struct d12_debug_settings *settings);

/* Create the device's DRED state (device->dred), latching `enabled`. E_OUTOFMEMORY leaves device->dred NULL. */
HRESULT d12__dred_create(struct d12_device *device, const d12_dred_enabled *enabled);
/* Once the driver's device exists (device->gpu set): pick up the driver's write-immediate entry. */
void d12__dred_connect(struct d12_device *device);
/* At the device's last Release, after d12__dred_finish: close before the driver's device is destroyed (what uses
 * the driver goes; a later removal does not freeze), destroy after it and its callbacks are gone (the rest). */
void d12__dred_close(struct d12_device *device);
void d12__dred_destroy(struct d12_device *device);

/* The latched enablement (all off for a device without DRED state). */
d12_dred_enabled d12__dred_enabled(const struct d12_device *device);

/* The device state GetDeviceState answers: UNKNOWN until frozen. */
D3D12_DRED_DEVICE_STATE d12__dred_device_state(const struct d12_device *device);

/* Whether stage 1 ran. */
bool d12__dred_frozen(const struct d12_device *device);

/* ---- Hooks of the rest of the runtime ---- */

struct d12_dred_submission;
struct d12_resource;

/* ExecuteCommandLists (queue.c): `begin` before the driver is handed the lists (so a fault during the call still
 * finds them), `end` with the serial the queue counted it as. Both are no-ops (NULL) with breadcrumbs off, except
 * that `end` notes the serial for the ledger's timeline ("after submission #41") with page-fault DRED on. */
struct d12_dred_submission *d12__dred_submit_begin(struct d12_command_queue *queue, UINT count,
                                                   struct d12_command_list *const *lists);
void d12__dred_submit_end(struct d12_command_queue *queue, struct d12_dred_submission *submission, uint64_t serial);
/* ID3D12CommandAllocator::Reset while submission `serial` of `queue`, a list recorded into it, was in flight
 * (COMMAND_ALLOCATOR_SYNC): kept for the report. `allocator` (the name, may be NULL) is copied. */
void d12__dred_note_allocator_reset(struct d12_device *device, const struct d12_command_queue *queue, uint64_t serial,
                                    const char *allocator);
/* A queue is being destroyed: its submissions are no longer tracked (after d12__dred_finish). */
void d12__dred_queue_destroyed(struct d12_command_queue *queue);

/* The allocation ledger (resource.c), page-fault DRED only: a committed buffer was created / is being released. */
void d12__dred_resource_created(struct d12_resource *resource);
void d12__dred_resource_released(struct d12_resource *resource);

/* ---- Heaps (issue 33, runtime/dred/heaps.c, docs/heaps.md) ---- */
struct d12_heap;
/* A heap's record in the ledger, embedded in its d12_heap: linked in the device's heap list (under the ledger lock)
 * while `heap` is set. Its placed resources are ordinary records of the live list (their d12_resource names the
 * heap). `active` is the resource of the heap an aliasing barrier activated last, and that barrier's op index in its
 * list (the ledger lock guards both; a released resource is no longer active). */
typedef struct d12_dred_heap {
    struct d12_dred_heap *prev, *next;
    struct d12_heap *heap;
    UINT64 start, size; /* the heap's whole 64 KiB-granular range */
    uint64_t id;        /* the device's heap number (1, 2, ...): what the ring's records of its resources name */
    struct d12_resource *active;
    char *active_name;  /* the active resource's name when it was released (malloc'ed; active is then NULL) */
    UINT32 active_op;
    uint64_t created;   /* its creation's number in the ledger's timeline ring (0: none recorded) */
} d12_dred_heap;
void d12__dred_heap_created(struct d12_heap *heap);
void d12__dred_heap_released(struct d12_heap *heap);
/* ResourceBarrier recorded an aliasing barrier whose pResourceAfter is `after` (a placed resource), at op `op` of
 * its list (D12_DRED_OP_INDEX_UNKNOWN without breadcrumbs). */
void d12__dred_aliasing_barrier(struct d12_resource *after, UINT32 op);

#endif
