/* A minimal d12rt driver, written from the installed d12rt/d3d12ddi.h alone (docs/conformance.md; build it with
 * the Makefile next to this file, from an installed d12rt and pkg-config). Start your driver from here.
 *
 * As it stands (DEFECT=0, the default) it is the silent driver: it advertises driver-reported messages, reports exactly the mandated
 * initialization message from inside pfnEnableExtendedFeature, and otherwise reports nothing; it does real GPU work
 * (a timeline thread per queue, fence operations passed back through pKTCallbacks in order, zero-filled buffers,
 * buffer copies executed on the timeline), and passes every test of d12conform. d12rt's own tests build it again
 * with -DDEFECT=N (tests/conform), each breaking exactly one rule, to prove the suite fails them
 * (tests/conform/defects.txt names the tests each must fail):
 *   1 no_init            no initialization message
 *   2 two_init           the initialization message twice
 *   3 init_severity      severity ERROR instead of MESSAGE
 *   4 init_category      category MISCELLANEOUS instead of INITIALIZATION
 *   5 init_index         CommandListStateIndex 0 instead of 0xFFFFFFFF
 *   6 init_text          a different description
 *   7 init_late          the message after pfnEnableExtendedFeature returned (from the table fill that follows)
 *   8 report_disabled    an INFO report at every queue creation, also on devices where the feature is off
 *   9 foreign_index      at every flush, reports with the last state index a destroyed device was given
 *  10 after_destroy      a background thread reports 20 ms after pfnDestroyDevice returned
 *  11 flush_hang         pfnFlushDriverReportedMessages never returns (sleeps 60 s)
 *  12 null_description   at every flush, a report with a NULL pDescription
 * With -DV2=1 it is a version-2 driver (docs/driver-reported-messages-v2.md: lists feature versions 1u and 2u,
 * answers D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY, fills D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1 and
 * skips a category that is off), passing every version-2 test; its defects:
 *  13 v2_bad_flags       SupportedFlags has a bit no category defines (0x80)
 *  14 v2_ignores_flags   keeps reporting its GENERAL draw messages after the category was turned off
 *  15 v2_no_identity     does not answer D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY
 * Without V2 (the default) it stays a version-1 driver.
 * No header of the runtime or of the reference driver is used. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <d12rt/d3d12ddi.h>

#ifndef DEFECT
#define DEFECT 0
#endif
/* d12rt's tests also build it as a driver of DDI build 0110 (-DOLD_BUILD=1): it still advertises the feature, which
 * the runtime cannot enable without build 0126's callbacks (it warns). */
#ifndef OLD_BUILD
#define OLD_BUILD 0
#endif
/* ... and as a probe (-DFLUSH_PROBE=1): each flush lasts 50 ms and the most flushes in progress at once is exported
 * (conform_probe_max_flushes), for tests/conform/test_flush_overlap.c. */
#ifndef FLUSH_PROBE
#define FLUSH_PROBE 0
#endif
/* ... and as a reporting driver (-DREPORT_DRAWS=1): a correct driver that also reports an INFO message for every
 * draw, from inside pfnDrawInstanced, with the index cached for it (what a record-time finding looks like), so the
 * suite's correlation tests have something to judge. */
#ifndef REPORT_DRAWS
#define REPORT_DRAWS 0
#endif
#ifndef V2
#define V2 0
#endif
/* d12rt's tests: a version-2 table with a NULL slot (-DV2_NULL_SLOT=1), which the runtime must refuse. */
#ifndef V2_NULL_SLOT
#define V2_NULL_SLOT 0
#endif
#define V2_VENDOR_ID 0xC0F0u   /* the identity a version-2 skeleton answers: a made-up PCI vendor */
#define V2_FLAG_GENERAL 0x1u   /* D3D12_DRIVER_REPORTED_MESSAGE_FLAG_GENERAL: what its draw messages are */

#define EXPORT __attribute__((visibility("default")))
#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"
#define VENDOR_INIT_ID 0xC0F0000000000001ull

/* ---- objects (each lives in the private memory the runtime allocated) ---- */

typedef struct device {
    D3D12DDI_HRTDEVICE rt;
    PFND3D12DDI_REPORTMESSAGE_CB_0126 report;  /* copied: the callback table dies with the device */
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0110 kt;
    bool enabled;
    _Atomic UINT32 last_index; /* the last pfnSetCommandListStateIndex on any of its lists */
    _Atomic UINT flags;        /* V2: the categories the runtime wants (pfnSetDriverReportedMessageFlags) */
} device;

typedef struct buffer {
    unsigned char *memory;
    UINT64 width, va;
} buffer;

typedef enum { CMD_COPY_REGION, CMD_COPY_WHOLE } cmd_kind;
typedef struct command {
    cmd_kind kind;
    buffer *dst, *src;
    UINT64 dst_offset, src_offset, bytes;
} command;

typedef struct list {
    device *dev;
    command *commands;
    size_t count, capacity;
    UINT32 index; /* the latest pfnSetCommandListStateIndex */
} list;

typedef enum { OP_EXECUTE, OP_SIGNAL, OP_WAIT, OP_QUIT } op_kind;
typedef struct op {
    struct op *next;
    op_kind kind;
    D3D12DDIARG_FENCE_OPERATION_0126 fence;
    command *commands; /* EXECUTE: a copy of the recordings, in order */
    size_t count;
} op;

typedef struct queue {
    device *dev;
    D3D12DDI_HRTCOMMANDQUEUE rt;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    op *head, *tail;
} queue;

static device *g_late_device; /* init_late: the device whose enable has not reported yet */
/* foreign_index: the last index the most recently destroyed device was given (0xFFFFFFFF: none yet) */
static _Atomic UINT32 g_stale_index = 0xFFFFFFFFu;

/* ---- reporting ---- */

static void report(device *d, D3D12DDI_MESSAGE_SEVERITY_0126 severity, D3D12DDI_MESSAGE_CATEGORY_0126 category,
                   const char *text, UINT32 index)
{
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m = {VENDOR_INIT_ID, severity, category, text, index};
    if (d->report)
        d->report(d->rt, &m);
}

static void report_init(device *d)
{
    D3D12DDI_MESSAGE_SEVERITY_0126 severity = DEFECT == 3 ? D3D12DDI_MESSAGE_SEVERITY_0126_ERROR
                                                          : D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE;
    D3D12DDI_MESSAGE_CATEGORY_0126 category = DEFECT == 4 ? D3D12DDI_MESSAGE_CATEGORY_0126_MISCELLANEOUS
                                                          : D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION;
    UINT32 index = DEFECT == 5 ? 0u : D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    report(d, severity, category, DEFECT == 6 ? "D3D12 driver reported messages enabled" : INIT_TEXT, index);
}

/* ---- two-call lists ---- */

static HRESULT copy_list(UINT32 *entries, void *out, const void *items, UINT32 count, size_t size)
{
    if (!entries)
        return E_INVALIDARG;
    if (!out) {
        *entries = count;
        return S_OK;
    }
    if (*entries < count)
        return D3D12DDI_HRESULT_INSUFFICIENT_BUFFER; /* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */
    memcpy(out, items, count * size);
    *entries = count;
    return S_OK;
}

/* ---- the timeline ---- */

static void run_commands(const command *c, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (c[i].kind == CMD_COPY_REGION)
            memmove(c[i].dst->memory + c[i].dst_offset, c[i].src->memory + c[i].src_offset, c[i].bytes);
        else
            memmove(c[i].dst->memory, c[i].src->memory, c[i].src->width);
    }
}

static void *timeline(void *arg)
{
    queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (!q->head)
            pthread_cond_wait(&q->cond, &q->lock);
        op *o = q->head;
        q->head = o->next;
        if (!q->head)
            q->tail = NULL;
        pthread_mutex_unlock(&q->lock);
        op_kind kind = o->kind;
        /* No driver lock is held across a callback (a wait callback blocks). */
        if (kind == OP_EXECUTE)
            run_commands(o->commands, o->count);
        else if (kind == OP_SIGNAL)
            q->dev->kt.pfnSignalFenceFromGpuCb(q->dev->rt, q->rt, &o->fence);
        else if (kind == OP_WAIT)
            q->dev->kt.pfnWaitForFenceFromGpuCb(q->dev->rt, q->rt, &o->fence);
        free(o->commands);
        free(o);
        if (kind == OP_QUIT)
            return NULL;
    }
}

static void push(queue *q, op *o)
{
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = o;
    else
        q->head = o;
    q->tail = o;
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

static op *new_op(op_kind kind)
{
    op *o = calloc(1, sizeof *o);
    if (o)
        o->kind = kind;
    return o;
}

/* ---- queue table ---- */

static VOID APIENTRY execute_command_lists(D3D12DDI_HCOMMANDQUEUE hq, UINT count, const D3D12DDI_HCOMMANDLIST *lists)
{
    queue *q = hq.pDrvPrivate;
    op *o = new_op(OP_EXECUTE);
    size_t total = 0;
    for (UINT i = 0; i < count; i++)
        total += ((list *)lists[i].pDrvPrivate)->count;
    if (!o || (total && !(o->commands = malloc(total * sizeof *o->commands)))) {
        free(o);
        return; /* minimal driver: an execution it cannot hold is lost (the fences still pass) */
    }
    for (UINT i = 0; i < count; i++) {
        list *l = lists[i].pDrvPrivate;
        if (l->count == 0)
            continue; /* a list of draws only records nothing here (l->commands may be NULL) */
        memcpy(o->commands + o->count, l->commands, l->count * sizeof *l->commands);
        o->count += l->count;
    }
    push(q, o);
}

static void fence_op(D3D12DDI_HCOMMANDQUEUE hq, const D3D12DDIARG_FENCE_OPERATION_0126 *operation, op_kind kind)
{
    op *o = new_op(kind);
    if (!o)
        return;
    o->fence = *operation;
    push(hq.pDrvPrivate, o);
}

static VOID APIENTRY signal_fence(D3D12DDI_HCOMMANDQUEUE hq, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_op(hq, operation, OP_SIGNAL);
}

static VOID APIENTRY wait_for_fence(D3D12DDI_HCOMMANDQUEUE hq, const D3D12DDIARG_FENCE_OPERATION_0126 *operation)
{
    fence_op(hq, operation, OP_WAIT);
}

/* ---- device core table ---- */

static SIZE_T APIENTRY queue_size(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *a)
{
    (void)d, (void)a;
    return sizeof(queue);
}

static HRESULT APIENTRY create_queue(D3D12DDI_HDEVICE hd, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *a,
                                     D3D12DDI_HCOMMANDQUEUE hq, D3D12DDI_HRTCOMMANDQUEUE rt)
{
    (void)a;
    queue *q = hq.pDrvPrivate;
    q->dev = hd.pDrvPrivate;
    q->rt = rt;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    if (pthread_create(&q->thread, NULL, timeline, q) != 0)
        return E_OUTOFMEMORY;
    if (DEFECT == 8)
        report(q->dev, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_STATE_CREATION,
               "queue created", D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
    return S_OK;
}

/* Everything submitted runs first; no callback for the queue follows the return. */
static VOID APIENTRY destroy_queue(D3D12DDI_HDEVICE hd, D3D12DDI_HCOMMANDQUEUE hq)
{
    (void)hd;
    queue *q = hq.pDrvPrivate;
    op *o = new_op(OP_QUIT);
    while (!o) {
        usleep(1000);
        o = new_op(OP_QUIT);
    }
    push(q, o);
    pthread_join(q->thread, NULL);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
}

static SIZE_T APIENTRY allocator_size(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *a)
{
    (void)d, (void)a;
    return 16;
}

static HRESULT APIENTRY create_allocator(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *a,
                                         D3D12DDI_HCOMMANDALLOCATOR h)
{
    (void)d, (void)a, (void)h;
    return S_OK;
}

static VOID APIENTRY destroy_allocator(D3D12DDI_HDEVICE d, D3D12DDI_HCOMMANDALLOCATOR h)
{
    (void)d, (void)h;
}

static VOID APIENTRY reset_allocator(D3D12DDI_HCOMMANDALLOCATOR h)
{
    (void)h;
}

static SIZE_T APIENTRY list_size(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATECOMMANDLIST_0126 *a)
{
    (void)d, (void)a;
    return sizeof(list);
}

static HRESULT APIENTRY create_list(D3D12DDI_HDEVICE hd, const D3D12DDIARG_CREATECOMMANDLIST_0126 *a,
                                    D3D12DDI_HCOMMANDLIST hl, D3D12DDI_HRTCOMMANDLIST rt)
{
    (void)a, (void)rt;
    list *l = hl.pDrvPrivate;
    l->dev = hd.pDrvPrivate;
    l->index = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    return S_OK;
}

static VOID APIENTRY destroy_list(D3D12DDI_HDEVICE d, D3D12DDI_HCOMMANDLIST hl)
{
    (void)d;
    free(((list *)hl.pDrvPrivate)->commands);
}

static SIZE_T APIENTRY resource_size(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATERESOURCE_0126 *a)
{
    (void)d, (void)a;
    return sizeof(buffer);
}

static _Atomic UINT64 g_next_va = 0x100000000ull;

static HRESULT APIENTRY create_resource(D3D12DDI_HDEVICE d, const D3D12DDIARG_CREATERESOURCE_0126 *a,
                                        D3D12DDI_HRESOURCE hr_, D3D12DDI_HRTRESOURCE rt)
{
    (void)d, (void)rt;
    buffer *b = hr_.pDrvPrivate;
    if (!a || a->Width == 0)
        return E_INVALIDARG;
    b->memory = aligned_alloc(256, (a->Width + 255) / 256 * 256);
    if (!b->memory)
        return E_OUTOFMEMORY;
    memset(b->memory, 0, (a->Width + 255) / 256 * 256);
    b->width = a->Width;
    /* 64 KiB-aligned ranges, never reused, with a gap after each */
    UINT64 span = (a->Width + 0xFFFFull) / 0x10000ull * 0x10000ull + 0x10000ull;
    b->va = atomic_fetch_add(&g_next_va, span);
    return S_OK;
}

static VOID APIENTRY destroy_resource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE h)
{
    (void)d;
    free(((buffer *)h.pDrvPrivate)->memory);
}

static HRESULT APIENTRY map_resource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE h, void **data)
{
    (void)d;
    *data = ((buffer *)h.pDrvPrivate)->memory;
    return S_OK;
}

static VOID APIENTRY unmap_resource(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE h)
{
    (void)d, (void)h;
}

static UINT64 APIENTRY resource_va(D3D12DDI_HDEVICE d, D3D12DDI_HRESOURCE h)
{
    (void)d;
    return ((buffer *)h.pDrvPrivate)->va;
}

static const D3D12DDI_DEVICE_FUNCS_CORE_0126 k_core = {
    queue_size, create_queue, destroy_queue, allocator_size, create_allocator, destroy_allocator, reset_allocator,
    list_size, create_list, destroy_list, resource_size, create_resource, destroy_resource, map_resource,
    unmap_resource, resource_va,
};
static const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 k_queue = {execute_command_lists, signal_fence, wait_for_fence};

/* ---- command list table ---- */

static void append(D3D12DDI_HCOMMANDLIST hl, command c)
{
    list *l = hl.pDrvPrivate;
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 16;
        command *grown = realloc(l->commands, capacity * sizeof *grown);
        if (!grown)
            return;
        l->commands = grown;
        l->capacity = capacity;
    }
    l->commands[l->count++] = c;
}

static VOID APIENTRY close_list(D3D12DDI_HCOMMANDLIST hl)
{
    (void)hl;
}

static VOID APIENTRY reset_list(D3D12DDI_HCOMMANDLIST hl, const D3D12DDIARG_RESETCOMMANDLIST_0126 *a)
{
    (void)a;
    ((list *)hl.pDrvPrivate)->count = 0;
}

static VOID APIENTRY set_vertex_buffers(D3D12DDI_HCOMMANDLIST hl, UINT s, UINT n, const D3D12DDI_VERTEX_BUFFER_VIEW *v)
{
    (void)hl, (void)s, (void)n, (void)v;
}

static VOID APIENTRY set_index_buffer(D3D12DDI_HCOMMANDLIST hl, const D3D12DDI_INDEX_BUFFER_VIEW *v)
{
    (void)hl, (void)v;
}

static VOID APIENTRY set_root_view(D3D12DDI_HCOMMANDLIST hl, UINT i, UINT64 location)
{
    (void)hl, (void)i, (void)location;
}

static VOID APIENTRY draw(D3D12DDI_HCOMMANDLIST hl, UINT a, UINT b, UINT c, UINT d)
{
    (void)a, (void)b, (void)c, (void)d;
    list *l = hl.pDrvPrivate;
    /* V2: "a category that is off must cost the driver nothing": the check is skipped, not only its report */
    bool wanted = !V2 || DEFECT == 14 || (atomic_load(&l->dev->flags) & V2_FLAG_GENERAL);
    if (REPORT_DRAWS && l->dev->enabled && wanted)
        report(l->dev, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_STATE_SETTING,
               "draw recorded", l->index);
}

static VOID APIENTRY draw_indexed(D3D12DDI_HCOMMANDLIST hl, UINT a, UINT b, UINT c, INT d, UINT e)
{
    (void)hl, (void)a, (void)b, (void)c, (void)d, (void)e;
}

static VOID APIENTRY dispatch(D3D12DDI_HCOMMANDLIST hl, UINT x, UINT y, UINT z)
{
    (void)hl, (void)x, (void)y, (void)z;
}

static VOID APIENTRY copy_region(D3D12DDI_HCOMMANDLIST hl, D3D12DDI_HRESOURCE dst, UINT64 dst_offset,
                                 D3D12DDI_HRESOURCE src, UINT64 src_offset, UINT64 bytes)
{
    command c = {CMD_COPY_REGION, dst.pDrvPrivate, src.pDrvPrivate, dst_offset, src_offset, bytes};
    append(hl, c);
}

static VOID APIENTRY copy_resource(D3D12DDI_HCOMMANDLIST hl, D3D12DDI_HRESOURCE dst, D3D12DDI_HRESOURCE src)
{
    command c = {CMD_COPY_WHOLE, dst.pDrvPrivate, src.pDrvPrivate, 0, 0, 0};
    append(hl, c);
}

static VOID APIENTRY barrier(D3D12DDI_HCOMMANDLIST hl, UINT n, const D3D12DDIARG_RESOURCE_BARRIER_0126 *b)
{
    (void)hl, (void)n, (void)b; /* one command at a time, coherent memory */
}

static const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 k_list = {
    close_list, reset_list, set_vertex_buffers, set_index_buffer, set_root_view, set_root_view, set_root_view,
    set_root_view, set_root_view, set_root_view, draw, draw_indexed, dispatch, copy_region, copy_resource, barrier,
};

/* ---- driver-reported messages table ---- */

static _Atomic int g_flushes_now, g_flushes_max;

EXPORT int conform_probe_max_flushes(void)
{
    return atomic_load(&g_flushes_max);
}

static void probe_flush(void)
{
    int now = atomic_fetch_add(&g_flushes_now, 1) + 1;
    for (int max = atomic_load(&g_flushes_max); now > max && !atomic_compare_exchange_weak(&g_flushes_max, &max, now);) {
    }
    usleep(50000);
    atomic_fetch_sub(&g_flushes_now, 1);
}

static VOID APIENTRY flush(D3D12DDI_HDEVICE hd)
{
    device *d = hd.pDrvPrivate;
    if (FLUSH_PROBE)
        probe_flush();
    if (DEFECT == 11)
        sleep(60);
    if (DEFECT == 12)
        report(d, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, NULL,
               D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
    if (DEFECT == 9 && atomic_load(&g_stale_index) != 0xFFFFFFFFu)
        report(d, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "stale work",
               atomic_load(&g_stale_index));
}

static VOID APIENTRY set_state_index(D3D12DDI_HCOMMANDLIST hl, UINT32 index)
{
    list *l = hl.pDrvPrivate;
    l->index = index;
    atomic_store(&l->dev->last_index, index);
}

static const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 k_drm = {flush, set_state_index};

/* ---- extended features ---- */

static HRESULT APIENTRY get_features(D3D12DDI_HADAPTER a, UINT32 *n, D3D12DDI_FEATURE_0020 *out)
{
    static const D3D12DDI_FEATURE_0020 k[] = {D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES};
    (void)a;
    return copy_list(n, out, k, 1, sizeof k[0]);
}

static HRESULT APIENTRY get_feature_versions(D3D12DDI_HADAPTER a, D3D12DDI_FEATURE_0020 f, UINT32 *n, UINT32 *out)
{
    static const UINT32 k[] = {D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0,
                               D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1};
    (void)a;
    if (f != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES)
        return E_INVALIDARG;
    return copy_list(n, out, k, V2 ? 2 : 1, sizeof k[0]);
}

/* The mandated message: "exactly one message ... immediately after the feature has been enabled, and before
 * EnableExtendedFeature returns". */
static HRESULT APIENTRY enable_feature(D3D12DDI_HDEVICE hd, D3D12DDI_FEATURE_0020 f, UINT32 version)
{
    device *d = hd.pDrvPrivate;
    if (f != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES ||
        (version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 &&
         (!V2 || version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_1)))
        return E_INVALIDARG;
    atomic_store(&d->flags, V2_FLAG_GENERAL); /* every supported category starts on */
    d->enabled = true;
    if (DEFECT != 1 && DEFECT != 7)
        report_init(d);
    if (DEFECT == 2)
        report_init(d);
    if (DEFECT == 7)
        g_late_device = d; /* reported from the table fill that follows this call */
    return S_OK;
}

static const D3D12DDI_EXTENDED_FEATURES_FUNCS_0020 k_extended = {get_features, get_feature_versions, enable_feature};

/* V2: the categories it validates (its draw messages are GENERAL) and the ones the runtime wants. */
static UINT APIENTRY get_supported_flags(D3D12DDI_HDEVICE hd)
{
    (void)hd;
    return DEFECT == 13 ? V2_FLAG_GENERAL | 0x80u : V2_FLAG_GENERAL;
}

static VOID APIENTRY set_flags(D3D12DDI_HDEVICE hd, UINT flags)
{
    atomic_store(&((device *)hd.pDrvPrivate)->flags, flags);
}

static const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 k_drm1 = {get_supported_flags,
                                                                       V2_NULL_SLOT ? NULL : set_flags};

/* ---- adapter ---- */

static SIZE_T APIENTRY device_size(D3D12DDI_HADAPTER a, const D3D12DDIARG_CALCPRIVATEDEVICESIZE *p)
{
    (void)a, (void)p;
    return sizeof(device);
}

static HRESULT APIENTRY create_device(D3D12DDI_HADAPTER a, const D3D12DDIARG_CREATEDEVICE_0003 *p)
{
    (void)a;
    device *d = p->hDrvDevice.pDrvPrivate;
    d->rt = p->hRTDevice;
    /* the _0126 callbacks exist from build 0126 on; an older build reads only the _0003 prefix */
    d->report = OLD_BUILD ? NULL : p->p12UMCallbacks_0126->pfnReportMessageCb;
    d->kt = *p->pKTCallbacks;
    atomic_init(&d->last_index, 0xFFFFFFFFu);
    return S_OK;
}

static void *report_late(void *arg)
{
    device copy = *(device *)arg;
    free(arg);
    usleep(20000);
    report(&copy, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING, D3D12DDI_MESSAGE_CATEGORY_0126_CLEANUP, "late",
           D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126);
    return NULL;
}

static VOID APIENTRY destroy_device(D3D12DDI_HDEVICE hd)
{
    device *d = hd.pDrvPrivate;
    if (DEFECT == 9 && atomic_load(&d->last_index) != 0xFFFFFFFFu)
        atomic_store(&g_stale_index, atomic_load(&d->last_index));
    if (DEFECT == 10 && d->enabled) {
        device *copy = malloc(sizeof *copy);
        pthread_t thread;
        if (copy) {
            *copy = *d;
            if (pthread_create(&thread, NULL, report_late, copy) == 0)
                pthread_detach(thread);
            else
                free(copy);
        }
    }
}

static HRESULT APIENTRY close_adapter(D3D12DDI_HADAPTER a)
{
    (void)a;
    return S_OK;
}

static HRESULT APIENTRY get_versions(D3D12DDI_HADAPTER a, UINT32 *n, UINT64 *out)
{
    static const UINT64 k[] = {OLD_BUILD ? D3D12DDI_SUPPORTED_0110 : D3D12DDI_SUPPORTED_0126};
    (void)a;
    return copy_list(n, out, k, 1, sizeof k[0]);
}

/* The one feature the runtime asks at device creation: FEATURE_LEVELS (D3D12CreateDevice's minimum level). */
static HRESULT APIENTRY get_caps(D3D12DDI_HADAPTER a, const D3D12DDIARG_GETCAPS *p)
{
    (void)a;
    if (V2 && DEFECT != 15 && p && p->Type == D3D12DDICAPS_TYPE_D12RT_ADAPTER_IDENTITY && p->pData &&
        p->DataSize >= sizeof(D3D12DDI_D12RT_ADAPTER_IDENTITY)) {
        const D3D12DDI_D12RT_ADAPTER_IDENTITY identity = {V2_VENDOR_ID, 0x0001, 0, 0};
        memcpy(p->pData, &identity, sizeof identity);
        return S_OK;
    }
    if (!p || p->Type != D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA || !p->pInfo)
        return E_INVALIDARG;
    if (*(const D3D12_FEATURE *)p->pInfo != D3D12_FEATURE_FEATURE_LEVELS ||
        p->DataSize != sizeof(D3D12_FEATURE_DATA_FEATURE_LEVELS))
        return E_INVALIDARG;
    ((D3D12_FEATURE_DATA_FEATURE_LEVELS *)p->pData)->MaxSupportedFeatureLevel = D3D_FEATURE_LEVEL_12_0;
    return S_OK;
}

static HRESULT APIENTRY get_tables(D3D12DDI_HADAPTER a, UINT32 *n, D3D12DDI_TABLE_REQUEST *out)
{
    static const D3D12DDI_TABLE_REQUEST k[] = {
        {D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, 1}, {D3D12DDI_TABLE_TYPE_DEVICE_CORE, 1},
        {D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, 1}, {D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D, 1},
    };
    (void)a;
    return copy_list(n, out, k, 4, sizeof k[0]);
}

static HRESULT APIENTRY fill_table(D3D12DDI_HADAPTER a, D3D12DDI_TABLE_TYPE type, void *table, SIZE_T size, UINT n,
                                   D3D12DDI_HRTTABLE rt)
{
    (void)a, (void)n, (void)rt;
    const void *source;
    SIZE_T need;
    switch (type) {
    case D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES: source = &k_extended; need = sizeof k_extended; break;
    case D3D12DDI_TABLE_TYPE_DEVICE_CORE: source = &k_core; need = sizeof k_core; break;
    case D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D: source = &k_list; need = sizeof k_list; break;
    case D3D12DDI_TABLE_TYPE_COMMAND_QUEUE_3D: source = &k_queue; need = sizeof k_queue; break;
    case D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES: source = &k_drm; need = sizeof k_drm; break;
    case D3D12DDI_TABLE_TYPE_D12RT_DRIVER_REPORTED_MESSAGES_1:
        if (!V2)
            return E_INVALIDARG;
        source = &k_drm1;
        need = sizeof k_drm1;
        break;
    default: return E_INVALIDARG;
    }
    if (size < need)
        return E_INVALIDARG;
    memcpy(table, source, need);
    if (DEFECT == 7 && type == D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES && g_late_device) {
        report_init(g_late_device); /* after pfnEnableExtendedFeature returned */
        g_late_device = NULL;
    }
    return S_OK;
}

static const D3D12DDI_ADAPTERFUNCS k_adapter = {
    device_size, create_device, close_adapter, get_versions, get_caps, get_tables, fill_table, destroy_device,
};

static int g_adapter_object;

EXPORT HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    if (!args || !args->pAdapterFuncs)
        return E_INVALIDARG;
    *args->pAdapterFuncs = k_adapter;
    args->hAdapter.pDrvPrivate = &g_adapter_object;
    return S_OK;
}
