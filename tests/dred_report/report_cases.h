/* Reports built through the d12dred_report builder API, one per feature of the model; shared by the golden,
 * round-trip and diff tests (tests/dred_report/README.md). Every value is fixed, so the output is too. */
#ifndef D12_DRED_REPORT_CASES_H
#define D12_DRED_REPORT_CASES_H

#include <string.h>

#include "d12dred_report.h"

#define HR_DEVICE_HUNG ((int32_t)0x887A0006)
#define HR_DEVICE_REMOVED ((int32_t)0x887A0005)
enum { STATE_UNKNOWN = 0, STATE_HUNG = 3, STATE_PAGEFAULT = 7 };
enum { TYPE_RESOURCE = 34, TYPE_HEAP = 25 };
enum { OP_SETMARKER = 0, OP_BEGINEVENT = 1, OP_ENDEVENT = 2, OP_DRAWINSTANCED = 3, OP_DRAWINDEXEDINSTANCED = 4,
       OP_DISPATCH = 6, OP_COPYBUFFERREGION = 7, OP_RESOURCEBARRIER = 15, OP_EXECUTEBUNDLE = 16, OP_BARRIER = 45 };
enum { SEV_CORRUPTION = 0, SEV_ERROR = 1, SEV_WARNING = 2, CAT_EXECUTION = 9, MSG_DRIVER = 1506 };

static inline void case_header(d12dred_report *r, int32_t reason, const char *reason_name, uint32_t state, int dred_on)
{
    d12dred_report_set_reason(r, reason, reason_name);
    d12dred_report_set_device_state(r, state);
    d12dred_features f = {dred_on, dred_on, false, dred_on, false};
    d12dred_report_set_features(r, &f);
    d12dred_report_set_runtime_version(r, "d12rt 0.1.0");
    d12dred_report_set_timestamp_seconds(r, 1796128200);  /* 2026-12-01T12:30:00Z */
    d12dred_report_set_process(r, "golden", 4242);
    d12dred_report_set_driver(r, "d12rt reference driver");
    d12dred_report_set_tdr_delay_ms(r, 2000);
}

/* The case study: a scene node whose mesh index was never set draws through a 0xCD... vertex buffer address. */
static inline d12dred_report *case_page_fault_exact(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_PAGEFAULT, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue_set_faulted(q, true);
    d12dred_submission *done = d12dred_queue_add_submission(q, 1, D12DRED_SUBMISSION_COMPLETED);
    d12dred_submission_add_list(done, "Upload list", -1);
    d12dred_node *n = d12dred_report_add_node(r, "Scene list", "Direct queue", 2, 9, 5);
    d12dred_submission *running = d12dred_queue_add_submission(q, 2, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(running, "Scene list", d12dred_report_node_index(r, n));
    d12dred_node_add_op(n, 0, OP_BEGINEVENT, 0, "Frame 1");
    d12dred_node_add_op(n, 1, OP_RESOURCEBARRIER, 1, NULL);
    d12dred_node_add_op(n, 2, OP_BEGINEVENT, 1, "Scene graph");
    d12dred_node_add_op(n, 3, OP_DRAWINDEXEDINSTANCED, 2, NULL);
    d12dred_node_add_op(n, 4, OP_SETMARKER, 2, "node 'Helmet'");
    d12dred_op *fault = d12dred_node_add_op(n, 5, OP_DRAWINDEXEDINSTANCED, 2, NULL);
    d12dred_op_set_attribution(fault, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_state *s = d12dred_op_get_state(fault);
    d12dred_op_state_set_arguments(s, "IndexCountPerInstance=36, InstanceCount=1, StartIndexLocation=0, "
                                      "BaseVertexLocation=0, StartInstanceLocation=0");
    d12dred_op_state_add_vertex_buffer(s, 0, 0xCDCDCDCDCDCDCDCDull, 0xCDCDCDCD, 0xCDCDCDCD, NULL);
    d12dred_op_state_set_index_buffer(s, 0x100020000ull, 72, 42, "Mesh 0 indices");
    d12dred_op_state_add_root_descriptor(s, 0, D12DRED_ROOT_CBV, 0x100040000ull, "Camera constants");
    d12dred_op_add_message(fault, MSG_DRIVER, CAT_EXECUTION, SEV_CORRUPTION,
                           "DrawIndexedInstanced: vertex buffer slot 0 reads VA 0xcdcdcdcdcdcdcdcd, which no "
                           "allocation maps (page fault)");
    d12dred_node_add_op(n, 6, OP_SETMARKER, 2, "node \"Sponza\" \xE2\x9C\x93");
    d12dred_node_add_op(n, 7, OP_ENDEVENT, 1, NULL);
    d12dred_node_add_op(n, 8, OP_ENDEVENT, 0, NULL);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0xCDCDCDCDCDCDCDCDull, 0);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_NEVER_MAPPED);
    d12dred_report_add_flush_message(r, MSG_DRIVER, CAT_EXECUTION, SEV_CORRUPTION,
                                     "DrawIndexedInstanced: vertex buffer slot 0 reads VA 0xcdcdcdcdcdcdcdcd, which "
                                     "no allocation maps (page fault)");
    return r;
}

/* A copy reads a staging buffer released after the list was recorded. */
static inline d12dred_report *case_use_after_free(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_PAGEFAULT, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Copy queue", 3);
    d12dred_queue_set_faulted(q, true);
    d12dred_node *n = d12dred_report_add_node(r, "Streaming copies", "Copy queue", 7, 3, 1);
    d12dred_submission *s = d12dred_queue_add_submission(q, 7, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(s, "Streaming copies", d12dred_report_node_index(r, n));
    d12dred_node_add_op(n, 0, OP_COPYBUFFERREGION, 0, NULL);
    d12dred_op *fault = d12dred_node_add_op(n, 1, OP_COPYBUFFERREGION, 0, NULL);
    d12dred_op_set_attribution(fault, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_state_set_arguments(d12dred_op_get_state(fault),
                                   "pDstBuffer='Texture pool' + 0x0, pSrcBuffer='Staging 3' + 0x100, NumBytes=4096");
    d12dred_node_add_op(n, 2, OP_COPYBUFFERREGION, 0, NULL);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x100230100ull, 0);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_USE_AFTER_FREE);
    d12dred_allocation *freed = d12dred_page_fault_add_freed(pf, "Staging 3", TYPE_RESOURCE, 0x100230000ull, 0x10000,
                                                             true);
    freed->width = 8192;
    d12dred_page_fault_add_freed(pf, "Staging 1", TYPE_RESOURCE, 0x100230000ull, 0x10000, false)->width = 65536;
    d12dred_page_fault_set_below(pf, "Texture pool", TYPE_RESOURCE, 0x100200000ull, 0x20000, 0x10100, false);
    return r;
}

/* A dispatch writes 64 bytes past the end of a UAV's 64 KiB allocation. */
static inline d12dred_report *case_out_of_bounds(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_PAGEFAULT, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Compute queue", 2);
    d12dred_queue_set_faulted(q, true);
    d12dred_node *n = d12dred_report_add_node(r, "Particles", "Compute queue", 12, 2, 0);
    d12dred_submission *s = d12dred_queue_add_submission(q, 12, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(s, "Particles", d12dred_report_node_index(r, n));
    d12dred_op *fault = d12dred_node_add_op(n, 0, OP_DISPATCH, 0, NULL);
    d12dred_op_set_attribution(fault, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_state *st = d12dred_op_get_state(fault);
    d12dred_op_state_set_arguments(st, "ThreadGroupCountX=1025, ThreadGroupCountY=1, ThreadGroupCountZ=1");
    d12dred_op_state_add_root_descriptor(st, 1, D12DRED_ROOT_UAV, 0x100300000ull, "Particle state");
    d12dred_op_state_add_root_descriptor(st, 2, D12DRED_ROOT_SRV, 0x100500000ull, NULL);
    d12dred_op_add_message(fault, MSG_DRIVER, CAT_EXECUTION, SEV_CORRUPTION,
                           "Dispatch: root UAV 1 writes VA 0x100310040, 64 bytes past the end of 'Particle state'");
    d12dred_op_add_message(fault, MSG_DRIVER, CAT_EXECUTION, SEV_WARNING, "Dispatch: 1025 groups of 64 threads");
    d12dred_node_add_op(n, 1, OP_RESOURCEBARRIER, 0, NULL);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x100310040ull, 1);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_OUT_OF_BOUNDS);
    d12dred_page_fault_set_below(pf, "Particle state", TYPE_RESOURCE, 0x100300000ull, 0x10000, 64, false)->width =
        65536;
    d12dred_page_fault_set_above(pf, "Particle spawn", TYPE_RESOURCE, 0x100320000ull, 0x10000, 0xFFC0, false);
    return r;
}

/* A TDR: an absurd instance count on the direct queue, the copy queue waiting on a fence never signalled. */
static inline d12dred_report *case_hang_suspect(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_HUNG, 1);
    d12dred_report_set_tdr_delay_ms(r, 200);
    d12dred_queue *direct = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue_set_faulted(direct, true);
    d12dred_queue *copy = d12dred_report_add_queue(r, "Copy queue", 3);
    d12dred_node *hung = d12dred_report_add_node(r, "Frame 41", "Direct queue", 41, 4, 2);
    d12dred_node *queued = d12dred_report_add_node(r, "Frame 42", "Direct queue", 42, 2, 0);
    d12dred_node *waiting = d12dred_report_add_node(r, "Readback", "Copy queue", 5, 1, 0);
    d12dred_submission_add_list(d12dred_queue_add_submission(direct, 40, D12DRED_SUBMISSION_COMPLETED), "Frame 40", -1);
    d12dred_submission_add_list(d12dred_queue_add_submission(direct, 41, D12DRED_SUBMISSION_IN_PROGRESS), "Frame 41",
                                d12dred_report_node_index(r, hung));
    d12dred_submission *next = d12dred_queue_add_submission(direct, 42, D12DRED_SUBMISSION_NOT_STARTED);
    d12dred_submission_add_list(next, "Frame 42", d12dred_report_node_index(r, queued));
    d12dred_submission_add_list(next, NULL, -1);
    d12dred_queue_add_wait(copy, "Frame fence", 42, 40);
    d12dred_submission_add_list(d12dred_queue_add_submission(copy, 5, D12DRED_SUBMISSION_NOT_STARTED), "Readback",
                                d12dred_report_node_index(r, waiting));
    d12dred_node_add_op(hung, 0, OP_RESOURCEBARRIER, 0, NULL);
    d12dred_node_add_op(hung, 1, OP_DRAWINSTANCED, 0, NULL);
    d12dred_op *suspect = d12dred_node_add_op(hung, 2, OP_DRAWINSTANCED, 0, NULL);
    d12dred_op_set_attribution(suspect, D12DRED_ATTRIBUTION_SUSPECT);
    d12dred_op_state *st = d12dred_op_get_state(suspect);
    d12dred_op_state_set_arguments(st, "VertexCountPerInstance=3, InstanceCount=4294967295, StartVertexLocation=0, "
                                       "StartInstanceLocation=0");
    d12dred_op_state_add_vertex_buffer(st, 0, 0x100010000ull, 36, 12, "Triangle");
    d12dred_node_add_op(hung, 3, OP_RESOURCEBARRIER, 0, NULL);
    d12dred_node_add_op(queued, 0, OP_DRAWINSTANCED, 0, NULL);
    d12dred_node_add_op(queued, 1, OP_RESOURCEBARRIER, 0, NULL);
    d12dred_node_add_op(waiting, 0, OP_COPYBUFFERREGION, 0, NULL);
    return r;
}

/* Numbers newer than this d12dred: ops, an allocation type, a queue type, a device state, severities. */
static inline d12dred_report *case_unknown_values(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, (int32_t)0x887A0007, "DXGI_ERROR_DEVICE_RESET", 5, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Future queue", 9);
    d12dred_node *n = d12dred_report_add_node(r, "Future list", "Future queue", 1, 5, 3);
    d12dred_submission_add_list(d12dred_queue_add_submission(q, 1, D12DRED_SUBMISSION_IN_PROGRESS), "Future list",
                                d12dred_report_node_index(r, n));
    d12dred_node_add_op(n, 0, OP_BARRIER, 0, NULL);
    d12dred_node_add_op(n, 1, 53, 0, NULL);
    d12dred_node_add_op(n, 2, 54, 0, "first op after 53");
    d12dred_op *far = d12dred_node_add_op(n, 3, 0xFFFFFFFFu, 0, NULL);
    d12dred_op_add_message(far, 7, 99, 17, "a message of an unknown severity and category");
    d12dred_node_add_op(n, 4, 200, 0, NULL);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x1000ull, 0x80000000u);
    d12dred_page_fault_add_existing(pf, "Reserved", 26, 0x0, 0x10000);
    d12dred_page_fault_add_existing(pf, "Heap", TYPE_HEAP, 0x0, 0x100000);
    d12dred_page_fault_set_above(pf, "Far away", TYPE_RESOURCE, 0xFFFFCDCECDCF0000ull, 0x10000,
                                 0xFFFFCDCECDCF0000ull - 0x1000, false);
    return r;
}

/* A hang the watchdog pinned on one op (exact): the mark says HANG, not FAULT. */
static inline d12dred_report *case_hang_exact(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_HUNG, 1);
    d12dred_report_set_tdr_delay_ms(r, 300);
    d12dred_queue *q = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue_set_faulted(q, true);
    /* Removed while the runtime was handing the submission to the driver: not numbered yet (sequence 0). */
    d12dred_node *n = d12dred_report_add_node(r, "Scene list", "Direct queue", 0, 3, 1);
    d12dred_submission_add_list(d12dred_queue_add_submission(q, 0, D12DRED_SUBMISSION_IN_PROGRESS), "Scene list",
                                d12dred_report_node_index(r, n));
    d12dred_node_add_op(n, 0, OP_SETMARKER, 0, "node 'Grass'");
    d12dred_op *hung = d12dred_node_add_op(n, 1, OP_DRAWINDEXEDINSTANCED, 0, NULL);
    d12dred_op_set_attribution(hung, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_state *st = d12dred_op_get_state(hung);
    d12dred_op_state_set_arguments(st, "IndexCountPerInstance=36, InstanceCount=3452816845");
    d12dred_op_state_set_index_buffer(st, 0x100041000ull, 72, 57, "Geometry pool");
    d12dred_node_add_op(n, 2, OP_ENDEVENT, 0, NULL);
    return r;
}

/* DRED off: a removal that was no GPU fault, with the removal flush's messages and nothing else. */
static inline d12dred_report *case_dred_off(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_REMOVED, "DXGI_ERROR_DEVICE_REMOVED", STATE_UNKNOWN, 0);
    d12dred_report_set_driver(r, NULL);
    d12dred_report_set_tdr_delay_ms(r, 0);
    d12dred_report_add_queue(r, "Idle queue", 0);
    d12dred_report_add_flush_message(r, MSG_DRIVER, CAT_EXECUTION, SEV_ERROR, "SetErrorCb: E_OUTOFMEMORY");
    d12dred_report_add_flush_message(r, MSG_DRIVER, 2, 3, "tab\tand newline\nand \"quotes\" and \\ and \x01");
    return r;
}

/* A long list (the show tree elides the ops far from the completed count) and a wrapped ring (the first kept op
 * is not op 0), markers only, no attribution: the first outstanding op is marked without a label. */
static inline d12dred_report *case_long_node(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_HUNG, 1);
    r->features.markers_only = true;
    d12dred_queue *q = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_node *n = d12dred_report_add_node(r, "Long list", "Direct queue", 3, 200, 150);
    d12dred_node *wrapped = d12dred_report_add_node(r, "Wrapped list", "Direct queue", 4, 70100, 70090);
    d12dred_submission *s = d12dred_queue_add_submission(q, 3, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(s, "Long list", d12dred_report_node_index(r, n));
    d12dred_submission_add_list(s, "Wrapped list", d12dred_report_node_index(r, wrapped));
    d12dred_node_reserve_ops(n, 200);
    for (uint32_t i = 0; i < 200; i++) {
        char context[32];
        snprintf(context, sizeof context, "marker %u", i);
        d12dred_node_add_op(n, i, i % 10 == 0 ? OP_BEGINEVENT : i % 10 == 9 ? OP_ENDEVENT : OP_SETMARKER,
                            i % 10 == 0 ? 0 : 1, i % 10 == 9 ? NULL : context);
    }
    for (uint32_t i = 70080; i < 70100; i++)
        d12dred_node_add_op(wrapped, i, OP_SETMARKER, 0, NULL);
    return r;
}

/* Issue 19's additions in one report: RemoveDevice's cause, a settings note, two queues waiting on each other (queued
 * signals behind waits, a submission waiting, the deadlock verdict), a node whose attributed op sits 100 ops into
 * two events (the event stack outside the shown window), VA sites, a UAV write, a copy's two sides, a verdict
 * detail. */
static inline d12dred_report *case_deadlock(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_REMOVED, "DXGI_ERROR_DEVICE_REMOVED", STATE_UNKNOWN, 1);
    d12dred_report_set_removed_by(r, "removed by the application (ID3D12Device5::RemoveDevice)");
    d12dred_report_add_note(r, "DRED settings changed after the device was created are ignored: DRED settings are "
                               "latched at device creation (D3D12CreateDevice)");
    d12dred_queue *a = d12dred_report_add_queue(r, "A", 0);
    d12dred_queue *b = d12dred_report_add_queue(r, "B", 2);
    d12dred_queue_add_wait(a, "F1", 1, 0);
    d12dred_queue_add_signal(a, "F2", 1, 0, 1, 0);
    d12dred_queue_add_wait(b, "F2", 1, 0);
    b->waits[0].after_submission = 0;
    d12dred_queue_add_signal(b, "F1", 1, 0, 0, 0);
    d12dred_node *n = d12dred_report_add_node(r, "Frame", "A", 1, 104, 0);
    d12dred_submission *s = d12dred_queue_add_submission(a, 1, D12DRED_SUBMISSION_NOT_STARTED);
    d12dred_submission_add_list(s, "Frame", d12dred_report_node_index(r, n));
    d12dred_submission_set_waiting_on(s, &a->waits[0]);
    d12dred_node_reserve_ops(n, 104);
    d12dred_node_add_op(n, 0, OP_BEGINEVENT, 0, "Frame");
    d12dred_node_add_op(n, 1, OP_BEGINEVENT, 1, "GBuffer");
    for (uint32_t i = 2; i < 100; i++)
        d12dred_node_add_op(n, i, OP_RESOURCEBARRIER, 2, NULL);
    d12dred_op *copy = d12dred_node_add_op(n, 100, OP_COPYBUFFERREGION, 2, NULL);
    d12dred_op_set_attribution(copy, D12DRED_ATTRIBUTION_SUSPECT);
    d12dred_op_state *st = d12dred_op_get_state(copy);
    d12dred_op_state_set_arguments(st, "DstOffset=98304, SrcOffset=0, NumBytes=65536");
    d12dred_op_state_add_vertex_buffer(st, 0, 0x100020000ull, 432, 12, "Tree VB");
    d12dred_va_site_set(&st->vertex_buffers[0].site, true, 0, "released after the list was recorded");
    d12dred_op_state_add_root_descriptor(st, 0, D12DRED_ROOT_CBV, 0x100040000ull, "Per-draw CB ring");
    d12dred_va_site_set(&st->root_descriptors[0].site, true, 0x10000,
                        "at its end; read [+0x10000, +0x10100) is past it");
    d12dred_op_state_add_root_descriptor(st, 1, D12DRED_ROOT_UAV, 0xCDCDCDCDCDCDCDCDull, NULL);
    d12dred_va_site_set(&st->root_descriptors[1].site, false, 0, "uninitialized? (debug-heap fill)");
    d12dred_op_state_set_copy(st, 0x10000, 0x100060000ull, 0, "Staging chunk 7", 0x100080000ull, 0x18000,
                              "Mesh pool");
    d12dred_va_site_set(&st->copy_dst.site, true, 0x18000, "write [+0x18000, +0x28000) runs 0x8000 (32768) bytes "
                                                           "past its end");
    d12dred_node_add_op(n, 101, OP_ENDEVENT, 1, NULL);
    d12dred_node_add_op(n, 102, OP_ENDEVENT, 0, NULL);
    d12dred_node_add_op(n, 103, OP_RESOURCEBARRIER, 0, NULL);
    d12dred_node_fill_event_stacks(n);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x1000A0000ull, 1);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_OUT_OF_BOUNDS);
    d12dred_allocation *below = d12dred_page_fault_set_below(pf, "Mesh pool", TYPE_RESOURCE, 0x100080000ull, 0x20000,
                                                             0, false);
    below->width = 0x20000;
    d12dred_page_fault_set_detail(pf, "copy destination [+0x18000, +0x28000) of a 0x20000-byte buffer: 0x8000 (32768) "
                                      "bytes past its end");
    pf->has_overrun = true; /* issue 32: the verdict line names the access's overrun */
    pf->overrun = 0x8000;
    d12dred_report_find_deadlock(r);
    return r;
}

/* A wait and a signal of the fence `id` (issue 32's fence_id). */
static inline d12dred_wait *case_fence_op(d12dred_queue *q, int wait, const char *fence, uint64_t id, uint64_t value,
                                          uint64_t at, int32_t behind)
{
    if (wait ? d12dred_queue_add_wait(q, fence, value, at) : d12dred_queue_add_signal(q, fence, value, at, 1, behind))
        return NULL;
    d12dred_wait *w = wait ? &q->waits[q->wait_count - 1] : &q->signals[q->signal_count - 1];
    w->has_fence_id = true;
    w->fence_id = id;
    return w;
}

/* Issue 32 (additive members of round 3): a stall report -- present tense, no reason, no page-fault section, how
 * long -- with a fence that went backwards (its history: who set it lower) and two fences named alike that make
 * no deadlock (issue 29: by identity, worded with the identity where the names are ambiguous). */
static inline d12dred_report *case_stall_fences(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, 0, NULL, STATE_UNKNOWN, 1);
    d12dred_report_set_kind(r, "stall");
    r->stalled_ms = 1500;
    d12dred_queue *direct = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue *upload = d12dred_report_add_queue(r, "Upload queue", 3);
    d12dred_report_add_queue(r, "Streaming queue", 3);
    case_fence_op(direct, 1, "Frame fence", 0x5000, 10, 3, -1);
    d12dred_submission *s = d12dred_queue_add_submission(direct, 7, D12DRED_SUBMISSION_NOT_STARTED);
    d12dred_submission_add_list(s, "Scene list", -1);
    d12dred_submission_set_waiting_on(s, &direct->waits[0]);
    /* 'Gate' 0x6000 awaited by the upload queue and 'Gate' 0x7000 signalled behind it by the direct queue: two
     * fences, no cycle (matched by name it read as one) */
    case_fence_op(upload, 1, "Gate", 0x6000, 1, 0, -1);
    case_fence_op(upload, 0, "Copy done", 0x8000, 1, 0, 0);
    case_fence_op(direct, 0, "Gate", 0x7000, 1, 0, 0);
    d12dred_fence *frame = d12dred_report_add_fence(r, 0x5000, "Frame fence", 3, 10);
    d12dred_fence_add_change(frame, 9, "queue 'Direct queue'", "ID3D12CommandQueue::Signal");
    d12dred_fence_add_change(frame, 10, "queue 'Direct queue'", "ID3D12CommandQueue::Signal");
    d12dred_fence_add_change(frame, 3, "queue 'Streaming queue'", "ID3D12CommandQueue::Signal");
    d12dred_fence *gate = d12dred_report_add_fence(r, 0x6000, "Gate", 0, 0);
    d12dred_fence_add_change(gate, 0, "CPU thread 4243", "ID3D12Fence::Signal");
    d12dred_report_add_fence(r, 0x7000, "Gate", 0, 0);
    d12dred_report_add_fence(r, 0x8000, "Copy done", 0, 0);
    d12dred_report_find_backwards(r);
    d12dred_report_find_deadlock(r);
    return r;
}

/* Issue 32 item 1: a draw inside 'Foliage bundle' reads 'Foliage VB', released before the submission; the driver's
 * finding names the bundle's draw #1, so the EXECUTEBUNDLE is exact and shows that draw with the state it saw. */
static inline d12dred_report *case_bundle_fault(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_PAGEFAULT, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue_set_faulted(q, true);
    d12dred_node *n = d12dred_report_add_node(r, "Scene list", "Direct queue", 4, 5, 3);
    d12dred_submission *s = d12dred_queue_add_submission(q, 4, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(s, "Scene list", d12dred_report_node_index(r, n));
    d12dred_node_add_op(n, 0, OP_BEGINEVENT, 0, "Vegetation");
    d12dred_node_add_op(n, 1, OP_DRAWINSTANCED, 1, NULL);
    d12dred_node_add_op(n, 2, OP_EXECUTEBUNDLE, 1, "0x00005581A0C4E010:'Rock bundle'");
    d12dred_op *fault = d12dred_node_add_op(n, 3, OP_EXECUTEBUNDLE, 1, "0x00005581A0C4F200:'Foliage bundle'");
    d12dred_op_set_attribution(fault, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_set_bundle_draw(fault, "Foliage bundle", 1, OP_DRAWINSTANCED, true);
    d12dred_op_state *st = d12dred_op_get_state(fault);
    d12dred_op_state_set_arguments(st, "VertexCountPerInstance=96, InstanceCount=400, StartVertexLocation=0, "
                                       "StartInstanceLocation=0");
    d12dred_op_state_add_vertex_buffer(st, 0, 0x100060000ull, 1152, 12, "Foliage VB");
    d12dred_va_site_set(&st->vertex_buffers[0].site, true, 0, "released after the list was recorded");
    const char *text = "0x00005581A0C4F200:'Foliage bundle' [Draw #1] Page fault: The vertex buffer view in slot 0 "
                       "reads GPU virtual address 0x0000000100060000, which is in no live buffer: "
                       "0x00005581A0D01000:'Foliage VB' + 0x0 (released).";
    d12dred_op_add_message(fault, MSG_DRIVER, CAT_EXECUTION, SEV_CORRUPTION, text);
    d12dred_node_add_op(n, 4, OP_ENDEVENT, 0, NULL);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x100060000ull, 0);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_USE_AFTER_FREE);
    d12dred_page_fault_add_freed(pf, "Foliage VB", TYPE_RESOURCE, 0x100060000ull, 0x10000, true)->width = 1152;
    d12dred_page_fault_set_below(pf, "Rock VB", TYPE_RESOURCE, 0x100040000ull, 0x10000, 0x10000, false)->width = 864;
    d12dred_report_add_flush_message(r, MSG_DRIVER, CAT_EXECUTION, SEV_CORRUPTION, text);
    return r;
}

/* Issue 32 item 7: 'Emitter params' released after submission #41 and re-created after #42 at another VA, while the
 * list recorded after #40 still draws from the old one; its timeline, and the verdict's re-creation sentence. */
static inline void case_event(d12dred_timeline *t, int released, const char *name, uint64_t va, uint64_t seq,
                              uint64_t ns_before, uint64_t after)
{
    d12dred_timeline_event e = {released != 0, (char *)name, TYPE_RESOURCE, va, 0x10000, seq, ns_before, after,
                                after ? (char *)"Direct queue" : NULL};
    d12dred_timeline_add_event(t, &e);
}

static inline d12dred_report *case_recreated(void)
{
    d12dred_report *r = d12dred_report_new();
    case_header(r, HR_DEVICE_HUNG, "DXGI_ERROR_DEVICE_HUNG", STATE_PAGEFAULT, 1);
    d12dred_queue *q = d12dred_report_add_queue(r, "Direct queue", 0);
    d12dred_queue_set_faulted(q, true);
    d12dred_node *n = d12dred_report_add_node(r, "Particles list", "Direct queue", 43, 1, 0);
    d12dred_submission *s = d12dred_queue_add_submission(q, 43, D12DRED_SUBMISSION_IN_PROGRESS);
    d12dred_submission_add_list(s, "Particles list", d12dred_report_node_index(r, n));
    d12dred_op *fault = d12dred_node_add_op(n, 0, OP_DRAWINSTANCED, 0, NULL);
    d12dred_op_set_attribution(fault, D12DRED_ATTRIBUTION_SUSPECT);
    d12dred_op_state *st = d12dred_op_get_state(fault);
    d12dred_op_state_add_vertex_buffer(st, 0, 0x100020000ull, 256, 16, "Emitter params");
    d12dred_va_site_set(&st->vertex_buffers[0].site, true, 0, "released after the list was recorded");
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x100020000ull, 0);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_USE_AFTER_FREE);
    d12dred_page_fault_add_freed(pf, "Emitter params", TYPE_RESOURCE, 0x100020000ull, 0x10000, true)->width = 256;
    d12dred_page_fault_set_below(pf, "Spark VB", TYPE_RESOURCE, 0x100000000ull, 0x10000, 0x10000, false)->width = 4096;
    d12dred_page_fault_set_above(pf, "Emitter params", TYPE_RESOURCE, 0x100040000ull, 0x10000, 0x20000, false)->width =
        256;
    d12dred_page_fault_set_detail(pf, "released before the list was submitted (stale list): release #1 of 'Emitter "
                                      "params' came before submission #43, whose list still used it; re-record the "
                                      "list, or keep the buffer alive while the list can be submitted");
    d12dred_timeline *t = d12dred_report_add_timeline(r, 0x100020000ull, 0x100020000ull, 0x100030000ull);
    case_event(t, 0, "Emitter params", 0x100020000ull, 2, 41250000, 0);
    case_event(t, 1, "Emitter params", 0x100020000ull, 3, 16500000, 41);
    case_event(t, 0, "Emitter params", 0x100040000ull, 4, 16125000, 42);
    d12dred_report_note_recreation(r, 40);
    return r;
}

typedef struct report_case {
    const char *name;
    d12dred_report *(*build)(void);
} report_case;

static const report_case report_cases[] = {
    {"page_fault_exact", case_page_fault_exact}, {"use_after_free", case_use_after_free},
    {"out_of_bounds", case_out_of_bounds},       {"hang_suspect", case_hang_suspect},
    {"unknown_values", case_unknown_values},     {"dred_off", case_dred_off},
    {"long_node", case_long_node},               {"hang_exact", case_hang_exact},
    {"deadlock", case_deadlock},                 {"stall_fences", case_stall_fences},
    {"bundle_fault", case_bundle_fault},         {"recreated", case_recreated},
};

static inline const report_case *find_report_case(const char *name)
{
    for (size_t i = 0; i < sizeof report_cases / sizeof report_cases[0]; i++)
        if (strcmp(report_cases[i].name, name) == 0)
            return &report_cases[i];
    return NULL;
}

#endif
