/* The Vulkan driver's pure decisions about device loss and write-immediate (vkdrv_fault.c; docs/vulkan.md,
 * "Device loss"): no Vulkan call, no driver state, so tests/vulkan unit-tests them with recorded fault records on
 * any machine (test_vulkan_fault.c). The impure side (vkdrv_lost.c) gathers the records after VK_ERROR_DEVICE_LOST
 * and feeds them here. */
#ifndef D12_VKDRV_FAULT_H
#define D12_VKDRV_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "d12rt/d3d12ddi.h"

/* ---- Vulkan buffer device address -> the driver's GPU VA ---- */

/* One Vulkan buffer the driver made, live or freed: its buffer device address range [address, address + size)
 * (size: the VkBuffer's size, the allocation's 64 KiB-granular span) and the driver VA it backs. */
typedef struct d12__vkdrv_fault_range {
    UINT64 address, size;
    UINT64 va;
    bool freed;
} d12__vkdrv_fault_range;

typedef enum d12__vkdrv_va_kind {
    D12_VKDRV_VA_NONE,   /* in no buffer of the driver, live or freed: the address is reported as it is */
    D12_VKDRV_VA_LIVE,   /* inside a live buffer */
    D12_VKDRV_VA_FREED,  /* inside a buffer destroyed before the loss */
    D12_VKDRV_VA_GAP,    /* less than 64 KiB past the end of one: the driver VA lies in that buffer's gap */
    D12_VKDRV_VA_POISON, /* inside the real-fault probe range (D12RT_VULKAN_REAL_FAULTS) */
} d12__vkdrv_va_kind;

typedef struct d12__vkdrv_va_translation {
    d12__vkdrv_va_kind kind;
    UINT64 va;     /* the driver VA (NONE: the address itself; POISON: the offset into the probe) */
    size_t range;  /* the index of the range found (LIVE, FREED, GAP) */
} d12__vkdrv_va_translation;

/* The address as the device reported it, sign extension above bit 47 removed when the address is in no range as
 * reported (vkd3d-proton issue 3221: ffff80004083e000 for 0x000080004083e000). `poison`/`poison_size`: the probe
 * range, 0 when there is none. A live range wins over a freed one (never both: the driver's VA space is never
 * reused, but the Vulkan driver may hand a freed buffer's device addresses to a new buffer). */
d12__vkdrv_va_translation d12__vkdrv_translate(const d12__vkdrv_fault_range *ranges, size_t count, UINT64 address,
                                               UINT64 poison, UINT64 poison_size);

/* The access of a VkDeviceFaultAddressTypeEXT: 'r', 'w', 'x', or 0 for an instruction pointer or NONE (no data
 * address). The D3D12DDI_PAGE_FAULT_FLAGS of it: WRITE for 'w', NONE otherwise (the DDI has no execute bit: an
 * execute fault is a fetch, reported as a read and named "execute" in the CORRUPTION message). */
char d12__vkdrv_fault_access(VkDeviceFaultAddressTypeEXT type);
UINT d12__vkdrv_fault_flags(char access);
const char *d12__vkdrv_fault_access_name(char access);

/* ---- NV checkpoints: one marker per op, (recording serial, op-log position) ---- */

#define D12_VKDRV_CHECKPOINT_POSITION_BITS 24u
#define D12_VKDRV_CHECKPOINT_POSITION_MAX ((1u << D12_VKDRV_CHECKPOINT_POSITION_BITS) - 1u)
/* The marker set before the op at `position` of the recording `serial` (and at the end of a segment, with the next
 * position): its TOP_OF_PIPE passed means that op started; its BOTTOM_OF_PIPE passed, that every op before it
 * completed. A position past the maximum saturates (it decodes as unknown). */
UINT64 d12__vkdrv_checkpoint_encode(UINT64 serial, size_t position);
bool d12__vkdrv_checkpoint_decode(UINT64 marker, UINT64 *serial, size_t *position);

/* ---- Which op the loss names ---- */

/* A submission in flight when the device was lost, as its timeline recorded it. */
typedef struct d12__vkdrv_loss_candidate {
    UINT64 serial;         /* the recording's */
    size_t first, end;     /* op-log positions [first, end) of the GPU work submitted */
    bool single;           /* exactly one GPU op in flight (a kernel chunk, or a segment holding one) */
    bool kernel_fault;     /* the kernel recorded an untranslatable address before it dereferenced the probe */
    UINT64 kernel_va;      /* that address (the driver's own VA) */
    bool marker;           /* a breadcrumb of this submission (a MARKER_OUT write, or the driver's own) was read back */
    size_t marker_position;/* the op-log position of the last op it says completed */
} d12__vkdrv_loss_candidate;

typedef struct d12__vkdrv_loss_records {
    const d12__vkdrv_loss_candidate *candidates;
    size_t candidate_count;
    /* VK_NV_device_diagnostic_checkpoints: the last marker whose TOP_OF_PIPE / BOTTOM_OF_PIPE was reached */
    bool top, bottom;
    UINT64 top_marker, bottom_marker;
    /* VK_EXT_device_fault: the first data address (read, write or execute), translated */
    bool address;
    d12__vkdrv_va_translation translation;
    UINT64 reported_address;
    char access;
} d12__vkdrv_loss_records;

typedef enum d12__vkdrv_loss_source {
    D12_VKDRV_LOSS_UNKNOWN,
    D12_VKDRV_LOSS_KERNEL,     /* the kernel's own record of the unmapped address it dereferenced */
    D12_VKDRV_LOSS_CHECKPOINT, /* NV checkpoints */
    D12_VKDRV_LOSS_SUBMISSION, /* the only submission in flight held one op */
    D12_VKDRV_LOSS_MARKER,     /* breadcrumb values read back */
} d12__vkdrv_loss_source;

typedef struct d12__vkdrv_loss_verdict {
    d12__vkdrv_loss_source source;
    size_t candidate;  /* SIZE_MAX: none */
    size_t position;   /* the op named (SIZE_MAX: unknown) */
    bool page_fault;   /* a data address is known: ERROR_DMAPAGEFAULT with va; else ERROR_DMAFAULT */
    UINT64 va;         /* the faulting address in the driver's VA space (or the reported one, as it is) */
    char access;       /* 'r', 'w', 'x' or 0 */
    const char *why;   /* one sentence: which source named the op, and why it was chosen */
} d12__vkdrv_loss_verdict;

/* `is_work(position, context)`: whether the op at that position of a candidate does GPU work (named ops are work,
 * never a state setter). */
d12__vkdrv_loss_verdict d12__vkdrv_loss_decide(const d12__vkdrv_loss_records *records,
                                               bool (*is_work)(size_t candidate, size_t position, void *context),
                                               void *context);
const char *d12__vkdrv_loss_source_name(d12__vkdrv_loss_source source);

/* ---- Write-immediate: vkCmdWriteBufferMarker2AMD or barrier + vkCmdFillBuffer ---- */

typedef struct d12__vkdrv_wbi_path {
    bool marker;                 /* vkCmdWriteBufferMarker2AMD */
    VkPipelineStageFlags2 stage; /* its stage (marker only) */
} d12__vkdrv_wbi_path;

/* VK_AMD_buffer_marker enabled (with synchronization2: core 1.3): MARKER_IN at TOP_OF_PIPE (written once every
 * earlier command started), MARKER_OUT at ALL_COMMANDS (once every earlier command completed: BOTTOM_OF_PIPE in a
 * first scope is ALL_COMMANDS under synchronization2), DEFAULT at TOP_OF_PIPE (D3D12: "the same as normal
 * copy-write operations", ordered after nothing but earlier writes). Else the fill path. */
/* Real-fault mode: whether a chunk not completed `waited_ns` after its submission is held by the MMU fault of its
 * probe read (so the device is lost, though Vulkan says nothing): the mode is on, the chunk's kernel set its fault
 * word (`kernel_va` not UINT64_MAX: it then read the probe) and `stall_ns` have passed. */
bool d12__vkdrv_stall_decide(bool real_faults, UINT64 kernel_va, UINT64 waited_ns, UINT64 stall_ns);

d12__vkdrv_wbi_path d12__vkdrv_wbi_choose(bool buffer_marker, D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode);

/* The kernel invocations of a draw (a x b: vertices x instances) or a dispatch (a x b x c thread groups), saturated
 * at UINT64_MAX: X*Y*Z of three 32-bit counts can pass 2^64, and a product that wrapped (to 0, or to a small count)
 * would make a dispatch that is too long to run finish at once (issue 29). UINT64_MAX invocations run, chunk by
 * chunk, until the TDR removes the device. */
UINT64 d12__vkdrv_invocations(UINT32 a, UINT32 b, UINT32 c, bool dispatch);

#endif
