/* The device's DRED state, shared by the files of runtime/dred/ (dred.h is the rest of the runtime's view). */
#ifndef D12_DRED_INTERNAL_H
#define D12_DRED_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "breadcrumbs.h"
#include "debug.h"
#include "dred.h"

struct d12_resource;
struct d12_dred_output;

/* One ExecuteCommandLists call while breadcrumbs are on: its lists' memory is held (list_hold) until the submission
 * is known complete or its queue goes, so a removal can still name them. */
typedef struct d12_dred_submission {
    struct d12_command_queue *queue;
    uint64_t serial;               /* the queue's serial; 0 while the driver is being handed it */
    struct d12_dred_submission *next;
    uint64_t free_seq;             /* the ledger's free sequence at submission (stale list or in flight, issue 19) */
    UINT count;
    struct d12_command_list *lists[]; /* then `count` uint32_t: each list's recording generation at submission */
} d12_dred_submission;

/* The recording generation (breadcrumbs.h) each of the submission's lists had when it was submitted. */
static inline uint32_t *d12__dred_submission_generations(d12_dred_submission *s)
{
    return (uint32_t *)(void *)(s->lists + s->count);
}

/* Whether list `i` of `s` was reset since it was submitted: its recording then belongs to the application's thread
 * and the freeze reads none of it (docs/dred.md). A list without breadcrumbs: false. */
bool d12__dred_reset_since(d12_dred_submission *s, UINT i);

/* A 64 KiB READBACK buffer of 16 384 counter slots, created through the driver and mapped for the device's life. */
#define D12_DRED_POOL_BYTES 65536u
#define D12_DRED_POOL_SLOTS (D12_DRED_POOL_BYTES / 4u)
typedef struct d12_dred_pool_buffer {
    D3D12DDI_HRESOURCE handle;
    UINT64 gpu_va;
    volatile UINT32 *cpu;
    uint32_t free_count;
    uint32_t free_slots[D12_DRED_POOL_SLOTS];
    struct d12_dred_pool_buffer *next;
} d12_dred_pool_buffer;

/* The allocation ledger (page-fault DRED): live buffers in a doubly-linked list, the 65 000 most recent frees in a
 * ring. O(1) per create and per release; a removal matches linearly. */
#define D12_DRED_FREED_RING 65000u

typedef struct d12_dred_freed {
    UINT64 start, size, width;
    const void *object;            /* the freed ID3D12Resource's address (dangles: never dereferenced) */
    char *name_a;                  /* the debug names as they were at release (malloc'ed, NULL: none) */
    wchar_t *name_w;
    uint64_t seq;                  /* the free sequence number (compared with a list's closed_seq) */
    uint32_t type;                 /* D3D12_DRED_ALLOCATION_TYPE: RESOURCE, or HEAP (issue 33) */
    uint64_t heap;                 /* the heap's id (d12_dred_heap) a placed resource was in, or a HEAP's own; 0: none */
    char *active_name;             /* a HEAP: the resource an aliasing barrier activated last (malloc'ed) or NULL */
    uint32_t active_op;            /* a HEAP: that barrier's op */
} d12_dred_freed;

/* The resource timeline (issue 32 item 7, docs/dred.md "Resource timeline"): the ledger's creations and releases
 * of resources and heaps, in a ring of the newest D12_DRED_EVENT_RING, written under the ledger lock. */
#define D12_DRED_EVENT_RING 16384u

typedef struct d12_dred_event {
    uint64_t seq;                  /* 1, 2, ...: creations and releases counted together */
    uint64_t created;              /* the creation's seq of the object it is about (its own for a creation) */
    uint64_t time_ns;              /* CLOCK_MONOTONIC */
    uint64_t submission;           /* the device's latest ExecuteCommandLists (its queue's serial; 0: none yet) */
    const void *queue;             /* that submission's queue (an identity, compared only) */
    UINT64 start, size;
    uint64_t free_seq;             /* a release: its record's number in the freed ring (the names); 0: none */
    uint32_t type;                 /* D3D12_DRED_ALLOCATION_TYPE */
    bool released;
} d12_dred_event;

struct d12_dred {
    d12_dred_enabled enabled;       /* fixed */
    bool track_submissions;         /* fixed: breadcrumbs on, or D12RT_DRED_DUMP set (the report's queues) */
    d12_dred_write_immediate_fn write_immediate; /* fixed: the driver's, or NULL */

    /* Stage 1: `freeze_lock` makes it run once; `frozen` is release-stored when the output is complete. */
    pthread_mutex_t freeze_lock;    /* outermost of the DRED locks; held while the output is built */
    atomic_bool frozen;
    bool closed;                    /* under freeze_lock: the device is being destroyed (d12__dred_close); a removal
                                       no longer freezes, its pool and submissions being gone */
    d12_fault_info fault;           /* written once by freeze, then immutable */
    HRESULT reason;
    struct d12_dred_output *output; /* built at freeze, freed at the device's last Release */

    /* Stage 2. */
    pthread_mutex_t complete_lock;  /* leaf */
    bool completed;
    unsigned dumps_written;         /* D12RT_DRED_DUMP files written (one per removal) */

    /* Submissions (breadcrumbs on). */
    pthread_mutex_t track_lock;     /* leaf: nothing is called while it is held */
    d12_dred_submission *submissions, **submissions_tail;
    unsigned tracked;               /* submissions in the list */
    /* track_lock: the last allocator Resets made while a submission of theirs was in flight (COMMAND_ALLOCATOR_SYNC,
     * issue 32 item 2), a ring: the report names the reset beside that submission. */
    struct {
        const void *queue;          /* an identity, compared only */
        uint64_t serial;
        char *allocator;            /* its name (malloc'ed, NULL: unnamed) */
    } allocator_resets[8];
    unsigned allocator_reset_count;

    /* Counter pool. */
    pthread_mutex_t pool_lock;      /* leaf */
    d12_dred_pool_buffer *pool;

    /* Ledger (page fault on). */
    pthread_mutex_t ledger_lock;    /* leaf */
    d12_dred_allocation live;       /* sentinel of the live list */
    d12_dred_heap heaps;            /* sentinel of the live heaps' list (heaps.c) */
    uint64_t heap_ids;              /* heaps numbered so far (heaps.c) */
    unsigned long live_count;
    d12_dred_freed *freed;          /* D12_DRED_FREED_RING records */
    uint64_t freed_total;           /* frees so far: the ring holds the last min(total, 65 000) */
    _Atomic uint64_t free_seq;
    d12_dred_event *events;         /* D12_DRED_EVENT_RING records (page-fault DRED on), or NULL */
    uint64_t event_total;           /* events so far: the ring holds the last min(total, D12_DRED_EVENT_RING) */
    _Atomic uint64_t last_serial;   /* written under the ledger lock: the device's latest submission (its queue's */
    const void *last_queue;         /* serial) and its queue; read by the ring (locked) and by Close (relaxed) */

    struct d12_dred_stall *stall;   /* D12RT_STALL_MS's detector (stall.c), or NULL */
    d12_debug_settings settings_at_creation; /* the process-global settings as D3D12CreateDevice latched them */
    bool va_names; /* set once at device creation (runtime/dred/drm_va.c): the ledger also serves GPU VA naming */
};

/* ---- Counter pool (breadcrumbs.c) ---- */
void d12__dred_pool_destroy(struct d12_device *device);

/* ---- Ledger (ledger.c) ---- */
HRESULT d12__dred_ledger_init(struct d12_dred *dred);
void d12__dred_ledger_fini(struct d12_dred *dred);
/* Free a ring record's strings and zero it. */
void d12__dred_freed_clear(d12_dred_freed *record);
/* Put a release into the ring of recent frees (ledger lock held); what fell out is returned in *freed, for the
 * caller to free its names after unlocking. Returns the release's free sequence number (0: frozen, not kept). */
uint64_t d12__dred_ledger_push_freed(struct d12_device *device, d12_dred_freed *freed);
/* The timeline ring (ledger.c): the monotonic clock read outside the lock, then one event pushed with the ledger lock
 * held; returns its seq (0: no ring). `created` 0 for a creation (its own seq). */
uint64_t d12__dred_now_ns(void);
uint64_t d12__dred_ledger_push_event(struct d12_dred *dred, bool released, uint64_t created, UINT64 start,
                                     UINT64 size, uint32_t type, uint64_t free_seq, uint64_t time_ns);
struct d12dred_report;
/* The report's timelines (report_timeline.c): per VA the report names, its holders' events; then the use-after-free
 * verdict's re-creation sentence. No lock held. */
void d12__dred_report_fill_timelines(struct d12_device *device, struct d12dred_report *r);

/* ---- Heaps (heaps.c) ---- */
/* A placed resource is being released (ledger lock held; `freed` its ring record, names copied): the active alias
 * keeps its name. */
void d12__dred_heap_resource_released(struct d12_resource *resource, const d12_dred_freed *freed);
/* The next live heap after `after` (NULL: from the first) whose range holds `va`, or NULL. Ledger lock held. */
const d12_dred_heap *d12__dred_heap_holding(struct d12_dred *dred, const d12_dred_heap *after, UINT64 va);
struct d12dred_page_fault;
/* The page fault's heaps: each heap holding the VA as an existing allocation (type HEAP) and the aliasing sentence.
 * Ledger lock held. */
void d12__dred_heaps_page_fault(struct d12_dred *dred, struct d12dred_page_fault *pf, UINT64 va);

/* ---- Output (output.c) ---- */
/* Build the Windows structs (and the report model) from the state at removal. Called once, under freeze_lock. */
struct d12_dred_output *d12__dred_output_build(struct d12_device *device);
void d12__dred_output_complete(struct d12_device *device, struct d12_dred_output *output);
void d12__dred_output_free(struct d12_dred_output *output);

/* ---- d12rt's report (report.c): the model filled at freeze, completed (driver messages, D12RT_DRED_DUMP) at
 * stage 2. ---- */
struct d12_dred_report_state;
struct d12_dred_report_state *d12__dred_report_freeze(struct d12_device *device,
                                                      const D3D12_AUTO_BREADCRUMB_NODE1 *breadcrumbs);
void d12__dred_report_complete(struct d12_device *device, struct d12_dred_report_state *report);
void d12__dred_report_free(struct d12_dred_report_state *report);
/* Write D12RT_DRED_DUMP's file now (the freezing thread, before the removal is published). */
void d12__dred_report_write_dump(struct d12_device *device, struct d12_dred_report_state *report);
void d12__dred_output_write_dump(struct d12_device *device, struct d12_dred_output *output);
/* The frozen breadcrumb nodes' head (NULL: none). */
const D3D12_AUTO_BREADCRUMB_NODE1 *d12__dred_output_breadcrumbs(const struct d12_dred_output *output);

/* ---- The report's nodes (report_nodes.c) ---- */
struct d12dred_report;
/* An attributed EXECUTEBUNDLE op's bundle draws, kept from the freeze to stage 2 (issue 32 item 1). */
struct d12_dred_bundle_pick;
/* One node per breadcrumb node, its ops, the attributed op and the state it saw; *picks gets the bundles'. */
void d12__dred_report_fill_nodes(struct d12_device *device, struct d12dred_report *r,
                                 const D3D12_AUTO_BREADCRUMB_NODE1 *head, struct d12_dred_bundle_pick **picks);
/* A correlated driver message ("0x<list> ... [Draw #k]", or a bundle's "0x<bundle>:'B' [Draw #k]") onto the op it
 * names. */
void d12__dred_report_attach_message(struct d12dred_report *r, const D3D12_AUTO_BREADCRUMB_NODE1 *head,
                                     struct d12_dred_bundle_pick *picks, const D3D12_MESSAGE *m);
void d12__dred_bundle_picks_free(struct d12_dred_bundle_pick *picks);

/* ---- Where a VA of an op's state lies, what a verdict means to fix (report_sites.c) ---- */
struct d12dred_va_site;
struct d12dred_report;
struct d12dred_page_fault;
/* The allocation holding `va` (live, in the guard gap after a live one, or recently freed) as a name and a site:
 * offset into it and a note relating the access [va, va + length) (`write`: a write) to it. *name malloc'ed or NULL.
 * `recorded`: the list's closed_seq (the frees before its Close; UINT64_MAX: unknown). Takes the ledger lock. */
void d12__dred_resolve_site(struct d12_dred *dred, uint64_t recorded, UINT64 va, UINT64 length, bool write,
                            char **name, struct d12dred_va_site *site);
/* The page fault's `detail`: out-of-bounds relates the attributed op's access to the buffer below. */
void d12__dred_out_of_bounds_detail(struct d12dred_report *r, struct d12dred_page_fault *pf);

/* ---- The report's fences (report_fences.c) ---- */
struct d12_fence;
/* A fence's identity in the report: the application's ID3D12Fence pointer. */
uint64_t d12__dred_fence_id(struct d12_fence *fence);
/* The fences a report's waits and signals name, each held once (d12__fence_hold: no lock) while the queues are
 * visited under their locks; their histories are read after (a fence's lock is never taken under a queue's). */
typedef struct d12_dred_fence_set {
    struct d12_fence **items;
    size_t count, capacity;
} d12_dred_fence_set;
void d12__dred_fence_set_add(d12_dred_fence_set *set, struct d12_fence *fence);
/* Each fence (once) into the report's `fences` with its history; device->children_lock held (setters' names), no
 * queue lock. */
void d12__dred_fence_set_note(struct d12_device *device, struct d12dred_report *r, d12_dred_fence_set *set);
/* Let the fences go (a last hold unlinks a fence under the children lock: call with no lock held). */
void d12__dred_fence_set_release(d12_dred_fence_set *set);

/* ---- The stall detector (stall.c) ---- */
void d12__dred_stall_start(struct d12_device *device);
void d12__dred_stall_stop(struct d12_device *device);
/* Build a report of the device as it is now, without removing it, and write D12RT_DRED_DUMP/d12rt-stall-<pid>-<n>.json
 * (report.c; n counted per process over all devices). Nothing when the device was frozen meanwhile. */
void d12__dred_write_stall_report(struct d12_device *device, unsigned stalled_ms);
struct d12_dred_report_state *d12__dred_output_report_state(struct d12_dred_output *output);

/* Freeze now (state UNKNOWN) when the device is removed and no removal path froze it. */
void d12__dred_ensure_frozen(struct d12_device *device);

/* ---- Names ---- */
/* The debug names of an object's private data: A (WKPDID_D3DDebugObjectName, NUL-terminated copy) and W
 * (WKPDID_D3DDebugObjectNameW, what SetName sets). Each malloc'ed or NULL. */
void d12__dred_object_names(struct d12_object_data *data, char **name_a, wchar_t **name_w);

/* Tracked submissions (dred.c): unhold and free a chain (no lock held). */
void d12__dred_release_submissions(d12_dred_submission *chain);

#endif
