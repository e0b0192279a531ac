/* d12dred_report: d12rt's own post-mortem report of one device removal (issue 9 item 5), shared by libd12rt
 * (which fills it at removal and writes D12RT_DRED_DUMP files) and the d12dred tool (which reads and shows them).
 *
 * The model is plain C. Every string in it is UTF-8 owned by the report (the builder copies what it is given,
 * replacing invalid UTF-8 by U+FFFD, so a written report is always valid JSON); NULL means "absent" (JSON null).
 * Everything is freed by d12dred_report_free. The runtime builds a report through the add/set functions below
 * and never touches JSON; readers walk the structs (read-only).
 *
 * Pointer stability: the queue, submission, node, allocation and op-state pointers the builder returns stay valid
 * until the report is freed. A `d12dred_op *` (ops are one array per node, as a node may hold 65 536 of them) is
 * valid until the next d12dred_node_add_op on the same node; d12dred_node_reserve_ops avoids the moves.
 * Builder functions return NULL / -1 only when memory runs out (or an argument is NULL); the report stays
 * consistent (what was added is there) and can still be written.
 *
 * File format, fields and the `show` tree: docs/dred-report.md; JSON Schema: docs/dred-report.schema.json. */
#ifndef D12DRED_REPORT_H
#define D12DRED_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The JSON's top-level `schema_version`. A reader rejects a higher one ("written by a newer d12rt"). */
#define D12DRED_SCHEMA_VERSION 1u

/* Limits the reader enforces on hostile input (a larger file is refused, never partly read). */
#define D12DRED_MAX_FILE_BYTES ((size_t)256 << 20)
#define D12DRED_MAX_DEPTH 64u
#define D12DRED_MAX_VALUES (16u << 20)      /* JSON values in one file (a 65 536-op node is ~600 000) */
#define D12DRED_MAX_OBJECT_MEMBERS 64u      /* members of one JSON object (a report's have at most 13) */

/* An op's attribution (issue 9 item 5): `exact` when the driver named the op (the fault callback's OpIndex),
 * `suspect` for the first outstanding op when nobody did. */
typedef enum d12dred_attribution {
    D12DRED_ATTRIBUTION_NONE = 0,
    D12DRED_ATTRIBUTION_EXACT = 1,
    D12DRED_ATTRIBUTION_SUSPECT = 2,
} d12dred_attribution;

/* A submission's state at removal, from the queue's completed fence/progress snapshot. */
typedef enum d12dred_submission_status {
    D12DRED_SUBMISSION_COMPLETED = 0,
    D12DRED_SUBMISSION_IN_PROGRESS = 1,
    D12DRED_SUBMISSION_NOT_STARTED = 2,
} d12dred_submission_status;

/* The page fault's verdict from the allocation ledger. */
typedef enum d12dred_verdict {
    D12DRED_VERDICT_NONE = 0,           /* no verdict (tracking off, or nothing decided) */
    D12DRED_VERDICT_USE_AFTER_FREE = 1, /* the VA lies in a recently freed allocation and in no live one */
    D12DRED_VERDICT_OUT_OF_BOUNDS = 2,  /* in no allocation, past the end of the nearest one below */
    D12DRED_VERDICT_NEVER_MAPPED = 3,   /* in no allocation, live or freed, and near none */
} d12dred_verdict;

/* The kind of a root descriptor in an op's state. */
typedef enum d12dred_root_kind {
    D12DRED_ROOT_CBV = 0,
    D12DRED_ROOT_SRV = 1,
    D12DRED_ROOT_UAV = 2,
} d12dred_root_kind;

/* Which DRED features were enabled on the device (latched at D3D12CreateDevice). */
typedef struct d12dred_features {
    bool auto_breadcrumbs;
    bool breadcrumb_contexts;
    bool markers_only;
    bool page_fault;
    bool watson_dump;
} d12dred_features;

/* An InfoQueue message: a driver-reported message of the removal flush, or one attached to the op it names. */
typedef struct d12dred_message {
    uint32_t id;        /* D3D12_MESSAGE_ID (1506 for driver-reported messages) */
    uint32_t category;  /* D3D12_MESSAGE_CATEGORY */
    uint32_t severity;  /* D3D12_MESSAGE_SEVERITY: 0 CORRUPTION, 1 ERROR, 2 WARNING, 3 INFO, 4 MESSAGE */
    char *text;
} d12dred_message;

/* Where a VA of an op's state lies (issue 19 item 3, additive members `offset` and `note`): the offset into the
 * allocation that holds it (live or freed, or the one whose guard gap it is in), and how it relates to it. */
typedef struct d12dred_va_site {
    bool has_offset;
    uint64_t offset;    /* va - the allocation's start */
    char *note;         /* e.g. "released after the list was recorded", "at its end; read [+0x10000, +0x10100) is
                           past it" (NULL: inside a live buffer, or nothing known) */
} d12dred_va_site;

typedef struct d12dred_vertex_buffer {
    uint32_t slot;
    uint64_t va;        /* BufferLocation */
    uint32_t size;      /* SizeInBytes */
    uint32_t stride;    /* StrideInBytes */
    char *resource;     /* the resource's name (NULL: unknown or unnamed) */
    d12dred_va_site site;
} d12dred_vertex_buffer;

typedef struct d12dred_index_buffer {
    uint64_t va;
    uint32_t size;
    uint32_t format;    /* DXGI_FORMAT */
    char *resource;
    d12dred_va_site site;
} d12dred_index_buffer;

typedef struct d12dred_root_descriptor {
    uint32_t parameter; /* root parameter index */
    d12dred_root_kind kind;
    uint64_t va;
    char *resource;
    d12dred_va_site site;
    /* `access`: "read" (CBV, SRV) or "write" (UAV: a shader may write through it), derived from the kind */
} d12dred_root_descriptor;

/* One side of a copy (issue 19 item 3): the buffer and the byte range of it the copy touches. */
typedef struct d12dred_copy_side {
    uint64_t va;        /* the resource's GPU VA (0: unknown) */
    uint64_t offset;    /* the range [offset, offset + bytes) within it */
    char *resource;
    d12dred_va_site site;
} d12dred_copy_side;

/* The state the faulting op used: its arguments, vertex/index buffer views and root descriptors. */
typedef struct d12dred_op_state {
    char *arguments;    /* e.g. "IndexCountPerInstance=36, InstanceCount=1, ..." (NULL: none recorded) */
    d12dred_vertex_buffer *vertex_buffers;
    size_t vertex_buffer_count;
    bool has_index_buffer;
    d12dred_index_buffer index_buffer;
    d12dred_root_descriptor *root_descriptors;
    size_t root_descriptor_count;
    bool has_copy;                 /* CopyBufferRegion: `copy` {bytes, src, dst} */
    uint64_t copy_bytes;
    d12dred_copy_side copy_src, copy_dst;
} d12dred_op_state;

/* `bundle_draw` (issue 32 item 1): for an attributed EXECUTEBUNDLE op, the bundle's draw or dispatch the fault is
 * put on -- the one the driver named (its fault, or its message "0x...:'Bundle' [Draw #n] ..."), else the bundle's
 * first (its EXECUTEBUNDLE being the first outstanding op, all its draws were). The op's `state` is that draw's. */
typedef struct d12dred_bundle_draw {
    char *bundle;       /* the bundle's name, or NULL */
    uint32_t position;  /* among the bundle's draws and dispatches, from 0 */
    uint32_t op;        /* the draw's D3D12_AUTO_BREADCRUMB_OP */
    bool named;         /* the driver named this draw; false: the bundle's first, suspect */
} d12dred_bundle_draw;

typedef struct d12dred_op {
    uint32_t index;     /* absolute index in the recording (the number space of the completed count) */
    uint32_t op;        /* D3D12_AUTO_BREADCRUMB_OP value; an unknown one prints as its number */
    uint32_t depth;     /* BeginEvent/EndEvent nesting depth at the op (a BEGINEVENT has its outer depth) */
    char *context;      /* the breadcrumb context (DRED 1.2), or NULL */
    d12dred_attribution attribution;
    d12dred_op_state *state;       /* the faulting op's state, or NULL */
    d12dred_message *messages;     /* the driver's correlated messages naming this op */
    size_t message_count;
    /* `event_stack` (issue 19 item 2): for an attributed op and the last completed one, the indices of the kept
     * BEGINEVENT ops enclosing it, outermost first (has_event_stack false: JSON null). */
    bool has_event_stack;
    uint32_t *event_stack;
    size_t event_stack_count;
    d12dred_bundle_draw *bundle_draw; /* NULL: absent (JSON: no member) */
} d12dred_op;

/* One command list whose submission was outstanding at removal (a D3D12_AUTO_BREADCRUMB_NODE1). */
typedef struct d12dred_node {
    char *list;                 /* the list's name */
    char *queue;                /* the name of the queue it ran on */
    uint64_t submission;        /* the queue's submission sequence number it belongs to (0: unknown) */
    uint32_t breadcrumb_count;  /* BreadcrumbCount: ops recorded (keeps counting past the ring) */
    uint32_t completed_count;   /* *pLastBreadcrumbValue: ops completed; op `completed_count` is the first outstanding */
    d12dred_op *ops;            /* the ops kept (the ring's last 65 536), by increasing index */
    size_t op_count;
    size_t op_capacity;         /* internal */
    /* `status` (issue 19 item 1): from what the GPU reported (counter, fault, OP_BEGIN); has_status false: absent
     * (an older report: the renderer derives it from the counts). */
    bool has_status;
    d12dred_submission_status status;
} d12dred_node;

/* One command list of a submission, with the report node that shows it (-1: none, e.g. it completed). */
typedef struct d12dred_submission_list {
    char *list;
    int32_t node;
} d12dred_submission_list;

/* A queue's GPU Wait that had not been satisfied at removal (or a Signal queued and not executed), with the fence as
 * it was before removal. */
typedef struct d12dred_wait {
    char *fence;                /* the fence's name */
    uint64_t value;             /* the value waited for / to be signalled */
    uint64_t fence_value;       /* the fence's completed value before removal forced it to UINT64_MAX */
    uint64_t after_submission;  /* `after_submission`: ExecuteCommandLists calls queued before it on its queue */
    int32_t behind_wait;        /* a signal's `behind_wait`: the index in its queue's waits of the pending Wait queued
                                   before it (the GPU reaches the signal only once that wait is satisfied), or -1 */
    /* Issue 32 (additive): `fence_id`, the fence's identity in this report (the runtime writes the object's address;
     * two fences may share a name, an unnamed one has none), has_fence_id false in an older file; a pending wait's
     * `backwards`: "'Frame fence' went backwards: 10 (reached) -> 3, set by queue 'Streaming queue' Signal" when the
     * fence had reached the awaited value and was set lower since, or NULL. */
    bool has_fence_id;
    uint64_t fence_id;
    char *backwards;
} d12dred_wait;

/* Issue 32 (additive `fences[]`): a fence a pending wait or queued signal names, with its history. */
typedef struct d12dred_fence_change {
    uint64_t value;             /* the value it was set to */
    char *by;                   /* "queue 'Streaming queue'" or "CPU thread 4242" */
    char *call;                 /* "ID3D12CommandQueue::Signal" or "ID3D12Fence::Signal" */
} d12dred_fence_change;

typedef struct d12dred_fence {
    uint64_t id;                /* its identity (fence_id of the waits and signals that name it) */
    char *name;
    uint64_t value;             /* its value when the report was made (before a removal forced UINT64_MAX) */
    uint64_t highest;           /* the highest value it ever had */
    d12dred_fence_change *changes; /* its last few changes, oldest first */
    size_t change_count;
} d12dred_fence;

typedef struct d12dred_submission {
    uint64_t sequence;          /* 1 for the queue's first ExecuteCommandLists, then counting */
    d12dred_submission_status status;
    d12dred_submission_list *lists;
    size_t list_count;
    d12dred_wait *waiting_on;   /* `waiting_on`: not started behind this pending GPU Wait (NULL: none) */
} d12dred_submission;

typedef struct d12dred_queue {
    char *name;
    uint32_t type;              /* D3D12_COMMAND_LIST_TYPE */
    bool faulted;               /* the queue the fault or hang happened on */
    d12dred_submission **submissions; /* in submission order */
    size_t submission_count;
    d12dred_wait *waits;        /* pending waits, in the order they were queued */
    size_t wait_count;
    d12dred_wait *signals;      /* `queued_signals`: Signals queued and not executed at removal, in order */
    size_t signal_count;
} d12dred_queue;

typedef struct d12dred_allocation {
    char *name;
    uint32_t type;              /* D3D12_DRED_ALLOCATION_TYPE */
    uint64_t va;                /* start of the allocation's range (its whole 64 KiB-granular allocation) */
    uint64_t size;              /* bytes in the range */
    uint64_t width;             /* the resource's requested size (Width), 0 when not a buffer or unknown */
    bool freed;                 /* released before removal */
    bool freed_after_recording; /* released after the faulting list was recorded (use-after-free evidence) */
    uint64_t distance;          /* nearest neighbours only: bytes between the VA and the range (0 otherwise) */
} d12dred_allocation;

typedef struct d12dred_page_fault {
    uint64_t va;                /* PageFaultVA */
    uint32_t flags;             /* PageFaultFlags (D3D12DDI_PAGE_FAULT_FLAG_WRITE 0x1) */
    d12dred_verdict verdict;
    d12dred_allocation **existing;   /* live allocations whose range contains the VA */
    size_t existing_count;
    d12dred_allocation **freed;      /* recently freed allocations whose range contained it */
    size_t freed_count;
    d12dred_allocation *below;       /* nearest allocation ending at or below the VA, or NULL */
    d12dred_allocation *above;       /* nearest allocation starting above the VA, or NULL */
    char *detail;                    /* `detail`: what the verdict means to fix (issue 19 item 4), or NULL */
    bool has_overrun;                /* `overrun` (issue 32): bytes the faulting access runs past the buffer's */
    uint64_t overrun;                /* Width (an out-of-bounds verdict with the access known), else null */
    /* `aliasing` (issue 33, docs/heaps.md): the resources placed over the faulting range and the one an aliasing
     * barrier activated last, "'A' and 'B' alias this range; 'B' was the active one, since the aliasing barrier at
     * op #12", or NULL (no heap holds the VA). */
    char *aliasing;
} d12dred_page_fault;

/* A member of a read report that this d12dred does not know (a later d12rt's additive member, docs/dred-report.md):
 * kept as the parser's tree (struct jvalue, d12dred_internal.h) so that `d12dred html` can show it as a key/value
 * tree instead of dropping it. Only the reader fills these; a report the runtime builds has none. */
struct jvalue;
typedef struct d12dred_extra {
    char *owner;                /* the JSON path of the object holding it: "$", "$.queues[0]", "$.nodes[1].ops[3]" */
    char *key;                  /* the member's name */
    struct jvalue *value;       /* its value (owned) */
} d12dred_extra;

/* Issue 32 item 7 (additive `timelines[]`): the creations and releases of the resources that held a VA the report
 * names (the faulting VA, its neighbours, the freed allocations, every VA of an op's state), from the ledger's ring of
 * recent events (docs/dred.md, "Resource timeline"). */
typedef struct d12dred_timeline_event {
    bool released;              /* `event`: "released", else "created" */
    char *name;                 /* the resource's name: at its release; a creation's is the name it got (SetName
                                   follows creation), as it was at its release or when the report was made */
    uint32_t type;              /* D3D12_DRED_ALLOCATION_TYPE (RESOURCE, HEAP) */
    uint64_t va;                /* the resource's range [va, va + size) */
    uint64_t size;
    uint64_t seq;               /* the ledger's event number (creations and releases counted together, from 1) */
    uint64_t ns_before;         /* nanoseconds before the report was made (the removal's freeze), monotonic clock */
    uint64_t after_submission;  /* the device's latest ExecuteCommandLists when it happened (its queue's number,
                                   "#41"); 0: none yet */
    char *queue;                /* that submission's queue, or NULL (none, or a queue destroyed since) */
} d12dred_timeline_event;
typedef struct d12dred_timeline {
    uint64_t va;                /* the VA the report names */
    uint64_t start, end;        /* the range the resources that held it covered, [start, end) */
    d12dred_timeline_event *events; /* oldest first; the holders' events and their re-creations under the same name */
    size_t event_count;
    uint64_t earlier;           /* `earlier`: events of these resources left out (the oldest) past the report's cap */
} d12dred_timeline;
typedef struct d12dred_report {
    uint32_t schema_version;    /* D12DRED_SCHEMA_VERSION for a new report; what the file said for a read one */
    int32_t reason;             /* the removal reason HRESULT */
    char *reason_name;          /* e.g. "DXGI_ERROR_DEVICE_HUNG" */
    uint32_t device_state;      /* D3D12_DRED_DEVICE_STATE (0 UNKNOWN, 3 HUNG, 6 FAULT, 7 PAGEFAULT) */
    d12dred_features features;
    char *runtime_version;      /* e.g. "d12rt 0.1.0" */
    char *timestamp;            /* UTC, ISO 8601: "2026-12-01T12:30:00Z" */
    char *process_name;
    uint32_t process_id;
    char *driver;               /* the driver's name or path, or NULL */
    uint32_t tdr_delay_ms;      /* the hang detector's delay in effect (0: unknown) */
    d12dred_queue **queues;
    size_t queue_count;
    d12dred_node **nodes;       /* per queue in submission order, queues in the order of `queues` */
    size_t node_count;
    d12dred_page_fault *page_fault;  /* NULL: no page-fault data (not a page fault, or reporting off) */
    d12dred_message *flush_messages; /* the driver's messages of the removal flush, in delivery order */
    size_t flush_message_count;
    /* Additive members of issue 19 (absent in older version-1 files: NULL / none). */
    char *removed_by;           /* `removed_by`: "the application (ID3D12Device5::RemoveDevice)", ... */
    char *deadlock;             /* `deadlock`: the cycle of GPU waits, "queue 'A' waits 'F1' >= 1 (at 0), ..." */
    char **notes;               /* `notes`: facts a reader must know to trust the report */
    size_t note_count;
    char *kind;                 /* `kind`: "removal" (NULL, the default) or "stall" (D12RT_STALL_MS) */
    /* Additive members of issue 32 (absent in older files: none / 0). */
    d12dred_fence **fences;     /* `fences`: every fence a pending wait or queued signal names, with its history */
    size_t fence_count;
    uint32_t stalled_ms;        /* `stalled_ms`: a stall report's time without GPU progress (0: a removal) */
    d12dred_timeline **timelines; /* `timelines` (issue 32 item 7): one per distinct set of holders */
    size_t timeline_count;
    d12dred_extra *extras;      /* read reports: the members the reader did not know, in document order */
    size_t extra_count;
} d12dred_report;

/* ---- Building ---------------------------------------------------------------------------------------------- */

d12dred_report *d12dred_report_new(void);
void d12dred_report_free(d12dred_report *report);

/* Strings may be NULL (absent). Each setter replaces what was there; 0 on success, -1 when out of memory. */
int d12dred_report_set_reason(d12dred_report *report, int32_t reason, const char *reason_name);
void d12dred_report_set_device_state(d12dred_report *report, uint32_t device_state);
void d12dred_report_set_features(d12dred_report *report, const d12dred_features *features);
int d12dred_report_set_runtime_version(d12dred_report *report, const char *version);
int d12dred_report_set_timestamp(d12dred_report *report, const char *iso8601_utc);
/* Sets the timestamp from a time_t-like count of seconds since the epoch (UTC). */
int d12dred_report_set_timestamp_seconds(d12dred_report *report, int64_t seconds);
int d12dred_report_set_process(d12dred_report *report, const char *name, uint32_t id);
int d12dred_report_set_driver(d12dred_report *report, const char *driver);
void d12dred_report_set_tdr_delay_ms(d12dred_report *report, uint32_t tdr_delay_ms);

d12dred_queue *d12dred_report_add_queue(d12dred_report *report, const char *name, uint32_t type);
void d12dred_queue_set_faulted(d12dred_queue *queue, bool faulted);
d12dred_submission *d12dred_queue_add_submission(d12dred_queue *queue, uint64_t sequence,
                                                 d12dred_submission_status status);
/* `node`: the index in report->nodes of the node showing this list (d12dred_report_node_index), or -1 (an index
 * that names no node when the report is written is written as -1). A submission with a `status` that is none of
 * the enum's is refused (NULL), as is a root descriptor with an unknown kind (-1). */
int d12dred_submission_add_list(d12dred_submission *submission, const char *list, int32_t node);
int d12dred_queue_add_wait(d12dred_queue *queue, const char *fence, uint64_t value, uint64_t fence_value);

d12dred_node *d12dred_report_add_node(d12dred_report *report, const char *list, const char *queue,
                                      uint64_t submission, uint32_t breadcrumb_count, uint32_t completed_count);
/* The index of a node in report->nodes, or -1. */
int32_t d12dred_report_node_index(const d12dred_report *report, const d12dred_node *node);
int d12dred_node_reserve_ops(d12dred_node *node, size_t count);
/* Appends an op; NULL unless `index` is above the node's last op's (a report keeps them in order, and the reader
 * refuses any other). `context` may be NULL. */
d12dred_op *d12dred_node_add_op(d12dred_node *node, uint32_t index, uint32_t op, uint32_t depth, const char *context);
/* The op of a node with this absolute index, or NULL. */
d12dred_op *d12dred_node_find_op(d12dred_node *node, uint32_t index);
void d12dred_op_set_attribution(d12dred_op *op, d12dred_attribution attribution);
int d12dred_op_add_message(d12dred_op *op, uint32_t id, uint32_t category, uint32_t severity, const char *text);
/* The op's state, created empty on first use (NULL when out of memory). */
d12dred_op_state *d12dred_op_get_state(d12dred_op *op);
int d12dred_op_state_set_arguments(d12dred_op_state *state, const char *arguments);
int d12dred_op_state_add_vertex_buffer(d12dred_op_state *state, uint32_t slot, uint64_t va, uint32_t size,
                                       uint32_t stride, const char *resource);
int d12dred_op_state_set_index_buffer(d12dred_op_state *state, uint64_t va, uint32_t size, uint32_t format,
                                      const char *resource);
int d12dred_op_state_add_root_descriptor(d12dred_op_state *state, uint32_t parameter, d12dred_root_kind kind,
                                         uint64_t va, const char *resource);

/* Creates the page-fault section (or returns the existing one, VA and flags updated). */
d12dred_page_fault *d12dred_report_set_page_fault(d12dred_report *report, uint64_t va, uint32_t flags);
void d12dred_page_fault_set_verdict(d12dred_page_fault *page_fault, d12dred_verdict verdict);
d12dred_allocation *d12dred_page_fault_add_existing(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                    uint64_t va, uint64_t size);
d12dred_allocation *d12dred_page_fault_add_freed(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, bool freed_after_recording);
/* The nearest allocation below (ending at or before the VA) or above (starting after it), `distance` bytes away
 * (below: VA - end of range; above: start - VA). Replaces an earlier one on that side. */
d12dred_allocation *d12dred_page_fault_set_below(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, uint64_t distance, bool freed);
d12dred_allocation *d12dred_page_fault_set_above(d12dred_page_fault *page_fault, const char *name, uint32_t type,
                                                 uint64_t va, uint64_t size, uint64_t distance, bool freed);
/* Extra facts of an allocation (width, freed_after_recording) are plain fields: set them on the returned pointer. */

int d12dred_report_add_flush_message(d12dred_report *report, uint32_t id, uint32_t category, uint32_t severity,
                                     const char *text);

/* ---- Issue 19 additions (d12dred_diagnosis.c) -------------------------------------------------------------- */

void d12dred_node_set_status(d12dred_node *node, d12dred_submission_status status);
int d12dred_op_set_event_stack(d12dred_op *op, const uint32_t *indices, size_t count);
int d12dred_queue_add_signal(d12dred_queue *queue, const char *fence, uint64_t value, uint64_t fence_value,
                             uint64_t after_submission, int32_t behind_wait);
int d12dred_submission_set_waiting_on(d12dred_submission *submission, const d12dred_wait *wait);
int d12dred_va_site_set(d12dred_va_site *site, bool has_offset, uint64_t offset, const char *note);
int d12dred_op_state_set_copy(d12dred_op_state *state, uint64_t bytes, uint64_t src_va, uint64_t src_offset,
                              const char *src, uint64_t dst_va, uint64_t dst_offset, const char *dst);
int d12dred_page_fault_set_detail(d12dred_page_fault *page_fault, const char *detail);
int d12dred_page_fault_set_aliasing(d12dred_page_fault *page_fault, const char *aliasing);
int d12dred_report_set_removed_by(d12dred_report *report, const char *removed_by);
int d12dred_report_set_kind(d12dred_report *report, const char *kind);
int d12dred_report_add_note(d12dred_report *report, const char *note);
/* The cycle among the queues' pending waits and queued signals (issue 19 item 5), as report->deadlock:
 * `queue 'A' waits 'F1' >= 1 (at 0), signalled only by queue 'B' behind its wait on 'F2' >= 1 (at 0)`. Sets NULL
 * when there is none. 0, or -1 when out of memory. */
int d12dred_report_find_deadlock(d12dred_report *report);
/* For the node's attributed ops and its last completed one: the event stack (the kept BEGINEVENT ops enclosing each,
 * by the BEGINEVENT/ENDEVENT nesting of the kept ops). 0, or -1 when out of memory. */
int d12dred_node_fill_event_stacks(d12dred_node *node);
/* The node's status: `status` when the file had it, else from the counts (older reports). */
d12dred_submission_status d12dred_node_status(const d12dred_node *node);
/* Internal: free what the additions own. */
void d12__dred_free_va_site(d12dred_va_site *site);

/* ---- Issue 32 additions (d12dred_fences.c) ------------------------------------------------------------------ */

d12dred_fence *d12dred_report_add_fence(d12dred_report *report, uint64_t id, const char *name, uint64_t value,
                                        uint64_t highest);
int d12dred_fence_add_change(d12dred_fence *fence, uint64_t value, const char *by, const char *call);
/* The report's fence with this identity, or NULL. */
const d12dred_fence *d12dred_report_find_fence(const d12dred_report *report, uint64_t id);
int d12dred_wait_set_backwards(d12dred_wait *wait, const char *backwards);
/* For every pending wait whose fence reached the awaited value and was set lower since (its history says so):
 * `backwards`, "'Frame fence' went backwards: 10 (reached) -> 3, set by queue 'Streaming queue' Signal". 0 or -1. */
int d12dred_report_find_backwards(d12dred_report *report);
/* True when a report is a stall report (`kind` "stall"): the device was not removed. */
bool d12dred_report_is_stall(const d12dred_report *report);
/* The one-line verdict of a hang or stall: the deadlock, else the first backwards fence, else NULL (not owned). */
const char *d12dred_report_wait_verdict(const d12dred_report *report);

/* ---- Issue 32 item 1: bundles (d12dred_bundles.c) --------------------------------------------------------- */

/* Sets (replaces) the op's bundle draw; 0, or -1 when out of memory. */
int d12dred_op_set_bundle_draw(d12dred_op *op, const char *bundle, uint32_t position, uint32_t draw_op, bool named);
/* Frees a state (d12dred_op_get_state's) no op owns any more. */
void d12dred_op_state_free(d12dred_op_state *state);

/* ---- Issue 32 item 7: resource timelines (d12dred_timeline.c) ------------------------------------------- */
/* At most this many events per timeline: the newest are kept, the rest counted in `earlier`. */
#define D12DRED_TIMELINE_MAX_EVENTS 64u
d12dred_timeline *d12dred_report_add_timeline(d12dred_report *report, uint64_t va, uint64_t start, uint64_t end);
/* Appends a copy of *event (its strings copied); -1 when out of memory or the event's seq is not above the last's. */
int d12dred_timeline_add_event(d12dred_timeline *timeline, const d12dred_timeline_event *event);
/* The first timeline whose VA is `va`, else the first whose range holds it; NULL: none. */
const d12dred_timeline *d12dred_report_find_timeline(const d12dred_report *report, uint64_t va);
/* A use-after-free whose freed resource was re-created under the same name at another VA: appends to the page
 * fault's `detail` "'Emitter params' was released at submission #41 and re-created at #42 at another VA
 * (0x...); the list recorded at #40 still used the old one" (`recorded_at` 0: "the faulting list"). 1 when it did,
 * 0 when nothing applies, -1 when out of memory. */
int d12dred_report_note_recreation(d12dred_report *report, uint64_t recorded_at);
/* `d12dred show --timeline VA`: the timeline of `va`, one line per event. 0; 1 when the report has none for it
 * (a line saying so is written); -1 on a write error. */
int d12dred_report_render_timeline(const d12dred_report *report, uint64_t va, FILE *out);
/* ---- Helpers ----------------------------------------------------------------------------------------------- */

/* A wide string (wchar_t: UTF-32 on Linux, as SetName's and context strings are) as a malloc'd UTF-8 string;
 * invalid code points become U+FFFD. NULL in, NULL out (and NULL when out of memory). Free with free(). */
char *d12dred_utf8_from_wide(const wchar_t *wide);
/* A malloc'd copy of `text` (`length` bytes) with every invalid UTF-8 sequence replaced by U+FFFD. */
char *d12dred_utf8_sanitize(const char *text, size_t length);

/* Names used in the JSON and the tree; NULL for a number they do not know. */
const char *d12dred_attribution_name(d12dred_attribution attribution);        /* "exact", "suspect", NULL for none */
const char *d12dred_submission_status_name(d12dred_submission_status status); /* "completed", "in-progress", ... */
const char *d12dred_verdict_name(d12dred_verdict verdict);                    /* "use-after-free", ..., NULL */
const char *d12dred_root_kind_name(d12dred_root_kind kind);                   /* "CBV", "SRV", "UAV" */
const char *d12dred_queue_type_name(uint32_t type);                           /* "DIRECT", "COMPUTE", "COPY", ... */
const char *d12dred_severity_name(uint32_t severity);                         /* "CORRUPTION", "ERROR", ... */
const char *d12dred_category_name(uint32_t category);                         /* "EXECUTION", ... */

/* ---- JSON, rendering, comparison --------------------------------------------------------------------------- */

/* Writes the report as JSON (UTF-8, deterministic: fixed key order, two-space indentation, a final newline).
 * 0 on success, -1 on a write error. */
int d12dred_report_write_json(const d12dred_report *report, FILE *out);
/* The same JSON as a malloc'd NUL-terminated string (length in *length when not NULL); NULL when out of memory. */
char *d12dred_report_to_json(const d12dred_report *report, size_t *length);
/* Writes PATH atomically (a temporary file in the same folder, then rename): a reader never sees half a report.
 * 0 on success, -1 with errno set. */
int d12dred_report_write_file(const d12dred_report *report, const char *path);
/* The same for any bytes (d12dred_file.c): the temporary file is created in PATH's folder with
 * O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name (a planted symlink or FIFO is never opened), checked to be a
 * regular file, written, fsync'ed, renamed over PATH. 0 on success, -1 with errno set (nothing left behind). */
int d12dred_write_file_atomic(const char *path, const void *data, size_t length);
/* The same, ordered among writes of one file: the rename happens under `lock` only while *renamed <= `generation`
 * (then *renamed = generation); an older write finishing after a newer one is dropped (0, nothing left behind). */
#include <pthread.h>
int d12dred_write_file_ordered(const char *path, const void *data, size_t length, pthread_mutex_t *lock,
                               uint64_t *renamed, uint64_t generation);
/* mkdir -p: DIR and its missing parents (0777 less the umask). 0 when DIR is then a directory, else -1 with errno
 * (ENOTDIR: something that is no directory is in the way). */
int d12dred_mkdir_parents(const char *dir);

/* Parses a report from memory (the whole of `data`, `size` bytes; no NUL needed). Bounded: at most
 * D12DRED_MAX_FILE_BYTES, nesting at most D12DRED_MAX_DEPTH; hostile input returns an error, never crashes.
 * On success *out holds a new report (free it) and 0 is returned. On failure *out is NULL, -1 is returned and
 * `error` (when not NULL, `error_size` bytes) holds one line: `line L, column C: what is wrong` for bad JSON, or
 * `$.queues[0].type: what is wrong` for JSON that is not a report. Also bounded: D12DRED_MAX_VALUES values,
 * D12DRED_MAX_OBJECT_MEMBERS members per object (so memory and time stay proportional to a real report's). */
int d12dred_report_parse_buffer(const char *data, size_t size, d12dred_report **out, char *error, size_t error_size);
/* Reads and parses a file ("cannot read FILE: ..." in `error` when it cannot be read). */
int d12dred_report_read_json(const char *path, d12dred_report **out, char *error, size_t error_size);
/* The line of the value a mapping error ("$.timelines[0].end: ...") names in the document, or of the deepest part of
 * its path the document has; 0 for any other error (a parse error says its line itself). */
unsigned d12dred_report_error_line(const char *data, size_t size, const char *error);

/* Renders the `d12dred show` tree (docs/dred-report.md). 0 on success, -1 on a write error. */
int d12dred_report_render(const d12dred_report *report, FILE *out);
/* The report as one self-contained HTML page (`d12dred html`, docs/dred-report.md "The page"): a malloc'd
 * NUL-terminated string (length in *length when not NULL), or NULL when out of memory. `title` (may be NULL) names the
 * report's file in the page's title. */
char *d12dred_report_to_html(const d12dred_report *report, const char *title, size_t *length);

/* Compares two reports: same reason, device state, faulting op (list, queue, index, op, attribution) and page-fault
 * verdict (and its allocation)? Writes one line per aspect to `out` (may be NULL). 0: the same, 1: different. */
int d12dred_report_diff(const d12dred_report *a, const d12dred_report *b, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* D12DRED_REPORT_H */
