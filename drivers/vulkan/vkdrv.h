/* libd12rt_vulkan.so: d12rt's second driver, on Vulkan (docs/vulkan.md). It implements the same DDI as the
 * reference driver (d12rt/d3d12ddi.h) and keeps its contracts (docs/refdrv.md, docs/gpu-work.md): the GPU VA
 * space is the driver's own (64 KiB aligned, an unmapped gap after every buffer, a released range quarantined for
 * 65 000 releases), copies, writes and small draws are real Vulkan commands recorded into a VkCommandBuffer inside
 * the DDI call, a queue is a timeline thread that owns a VkFence, and findings use the reference driver's VendorMessageIds.
 *
 * Files: vkdrv_adapter.c (instance, physical device, caps, tables), vkdrv_device.c (VkDevice, messages),
 * vkdrv_memory.c (buffers, VA space), vkdrv_allocator.c (allocators = command pools), vkdrv_list.c and
 * the files vkdrv_list.h names (lists), vkdrv_check.c (the
 * execution-time checks shared with the reference driver's rules), vkdrv_queue.c (timelines),
 * vkdrv_validation.c (the VK_EXT_debug_utils messenger), vkdrv_messages.c (version 2 of driver-reported messages:
 * the validation mode's source, categories, GPU VA naming), vkdrv_shader.c (vkd3d-shader 1.2 at run time: DXBC to
 * SPIR-V), vkdrv_pipeline.c (compute pipelines over layouts of their own; docs/pipelines.md).
 *
 * Environment (read at OpenAdapter12):
 *   D12RT_VULKAN_DEVICE=N          the physical device (default: the first discrete GPU, else the first)
 *   D12RT_VULKAN_VALIDATION=off|core|sync|gpuav   Vulkan validation as driver-reported messages (default: the
 *                                  application's registry value VulkanValidation, else off)
 *   D12RT_VULKAN_VALIDATION_STRICT=1  test hook: any validation message is written to stderr and the process
 *                                  aborts (the suites run under `sync` that must see no validation message at all)
 *   D12RT_VULKAN_DRM=on|v1         driver-reported messages: `on` (the default) lists versions 1 and 2; `v1` is a
 *                                  test hook listing version 1 only, so the runtime negotiates version 1 (no
 *                                  version-2 table, no categories, no VA names); anything else is reported, and on
 * and at device creation (vkdrv_lost.c):
 *   D12RT_VULKAN_REAL_FAULTS=1     an unmapped page makes the kernel dereference a truly unmapped device address
 *                                  (only with VK_EXT_device_fault's deviceFault; elsewhere a warning, and off)
 *   D12RT_VULKAN_FAULT_LOG=FILE    the records of a device loss are appended to FILE (always on stderr too)
 *   D12RT_VULKAN_TEST_DEVICE_LOST=N  test hook: the device's N-th completed wait reports VK_ERROR_DEVICE_LOST
 *   D12RT_VULKAN_TEST_STUCK=N      test hook: the device's N-th submission never completes (vkdrv_stuck.c)
 * and at the first shader question (vkdrv_shader.h): D12RT_VULKAN_TEST_VKD3D_SHADER=NAME, VKD3D_SHADER_DEBUG.
 */
#ifndef D12_VKDRV_H
#define D12_VKDRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <vulkan/vulkan.h>

#include "d12rt/d3d12ddi.h"

#include "drvcommon_ops.h"
#include "drvcommon_record.h"
#include "drvcommon_rules.h"
#include "drvcommon_va.h"
#include "refdrv.h" /* the VendorMessageIds, the profile (refdrv_profile.h) */
#include "vkdrv_fault.h"  /* the pure decisions of device loss and write-immediate */
#include "vkdrv_ranges.h" /* the copy destinations of a list */

#define D12_VKDRV_VA_BASE D12_DRV_VA_BASE /* drivers/common/drvcommon_va.h */
#define D12_VKDRV_VA_ALIGNMENT D12_DRV_VA_ALIGNMENT
#define D12_VKDRV_MAX_VERTEX_BUFFERS D12_DRV_MAX_VERTEX_BUFFERS /* drivers/common/drvcommon_ops.h */
#define D12_VKDRV_MAX_ROOT_PARAMETERS D12_DRV_MAX_ROOT_PARAMETERS
/* The messenger's findings: 0x0D12000100000000 | (uint32_t)messageIdNumber (docs/vulkan.md). */
#define D12_VKDRV_MSG_VALIDATION_BASE 0x0D12000100000000ull
#define D12_VKDRV_MSG_VALIDATION_MODE 0x0D12000000000401ull /* INFO: the validation mode of the adapter */
/* The per-application registry value of the validation mode (REG_DWORD 0 off, 1 core, 2 sync, 3 gpuav;
 * docs/registry.md), read through pfnQueryRegistryCb when D12RT_VULKAN_VALIDATION is unset. */
#define D12_VKDRV_REGISTRY_VALIDATION "VulkanValidation"
#define D12_VKDRV_REG_DWORD 4u
/* Feature version 2's categories (D3D12_DRIVER_REPORTED_MESSAGE_FLAGS). */
#define D12_VKDRV_DRM_GENERAL 0x1u
#define D12_VKDRV_DRM_SYNCHRONIZATION 0x2u
/* The buffers of one validation message named through pfnQueryGpuVaIdentityCb, at most. */
#define D12_VKDRV_MAX_NAMED_OBJECTS 4u
/* The page table of the kernels: one 64-bit entry per 64 KiB page from D12_VKDRV_VA_BASE (the page's buffer device
 * address, 0: unmapped), 2^20 entries (64 GiB of VA; an address above reads as unmapped). */
#define D12_VKDRV_PAGE_TABLE_ENTRIES (1u << 20)
/* A draw's or dispatch's invocations run in chunks of about this many nanoseconds, one submission each; a list's
 * ops are cut into command buffers of about this much estimated work (vkdrv_record.c, "charge"). */
#define D12_VKDRV_CHUNK_NS 5000000ull
/* The record-time estimate: per op, plus bytes x copy_ps / 1000 or invocations x kernel_ps / 1000, the rates measured
 * on earlier lists (defaults until then). */
#define D12_VKDRV_OP_OVERHEAD_NS 2000ull
#define D12_VKDRV_DEFAULT_COPY_PS 250ull     /* per byte: 4 GB/s */
#define D12_VKDRV_DEFAULT_KERNEL_PS 50000ull /* per invocation: 50 ns */
/* A draw or dispatch of at most this many invocations is recorded into the list's command buffer (one vkCmdDispatch
 * of its kernel); a larger one closes the command buffer and runs in chunks at execution (vkdrv_kernel.c). */
#define D12_VKDRV_INLINE_MAX_INVOCATIONS 65536ull
/* The driver's breadcrumbs (vkdrv_record.c): one is written after the ops recorded since the last once their
 * estimated work reaches this many nanoseconds, before an op estimated this long, and at every command buffer's end. */
#define D12_VKDRV_CRUMB_NS 100000ull
/* The host-visible blocks holding the inline kernels' arguments and fault words (a recording's arena). */
#define D12_VKDRV_ARENA_BLOCK (64u << 10)
#define D12_VKDRV_NO_ARENA UINT32_MAX
#define D12_VKDRV_MAX_DISPATCH_INVOCATIONS (65535ull * 64ull)
/* A timeline waits for its GPU work in slices of this many nanoseconds, reporting progress between them. */
#define D12_VKDRV_WAIT_SLICE_NS 5000000ull
/* Real-fault mode: a chunk whose kernel set its fault word and has not completed this long after its submission is
 * held by the MMU fault of its probe read (vkdrv_stuck.c); below the runtime's default TDR delay of 2 s, above the
 * chunk length (about 5 ms) by two orders of magnitude. */
#define D12_VKDRV_STALL_NS 500000000ull
/* The cache of released buffers' Vulkan memory (vkdrv_cache.c): entries, bytes, and the largest span kept. */
#define D12_VKDRV_CACHE_ENTRIES 64
#define D12_VKDRV_CACHE_BYTES (32ull << 20)
#define D12_VKDRV_CACHE_MAX_SPAN (4ull << 20)

typedef enum d12__vkdrv_validation {
    D12_VKDRV_VALIDATION_OFF,
    D12_VKDRV_VALIDATION_CORE,
    D12_VKDRV_VALIDATION_SYNC,
    D12_VKDRV_VALIDATION_GPUAV,
} d12__vkdrv_validation;

typedef struct d12__vkdrv_vk_ext {
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    PFN_vkCmdBeginDebugUtilsLabelEXT begin_label;
    PFN_vkCmdEndDebugUtilsLabelEXT end_label;
} d12__vkdrv_vk_ext;

typedef struct d12__vkdrv_adapter {
    D3D12DDI_HRTADAPTER rt_adapter;
    d12__refdrv_profile profile;
    d12__vkdrv_validation validation;
    char validation_source[64]; /* where the mode came from, for its INFO message */
    bool strict; /* D12RT_VULKAN_VALIDATION_STRICT */
    bool drm_v1_only; /* D12RT_VULKAN_DRM=v1: driver-reported messages listed as version 1 alone */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t queue_family;
    bool debug_utils;
    d12__vkdrv_vk_ext ext;
    atomic_bool abandoned_device; /* a device of it was abandoned (vkdrv_stuck.c): the VkInstance is kept */
} d12__vkdrv_adapter;

struct d12__vkdrv_inflight;

/* Device loss (vkdrv_lost.c): what the device offers for it, the submissions in flight, the freed buffers. */
typedef struct d12__vkdrv_diag {
    bool device_fault, checkpoints, buffer_marker, real_faults; /* enabled at device creation */
    PFN_vkGetDeviceFaultInfoEXT get_fault_info;
    PFN_vkCmdSetCheckpointNV set_checkpoint; /* NULL: no checkpoint is recorded (zero cost) */
    PFN_vkGetQueueCheckpointDataNV get_checkpoints; /* the extension's query (VkPipelineStageFlagBits) */
    PFN_vkCmdWriteBufferMarker2AMD write_marker; /* NULL: the barrier + fill path */
    UINT64 poison, poison_size; /* the real-fault probe: the null page, [0, 4 KiB) (vkdrv_lost.c) */
    atomic_uint_fast64_t next_serial; /* recordings' serials (the checkpoints' markers), from 1 */
    pthread_mutex_t lock;             /* lost, inflight, freed */
    bool lost;                        /* VK_ERROR_DEVICE_LOST seen: the first observer reported it */
    struct d12__vkdrv_inflight *inflight;
    d12__vkdrv_fault_range *freed; /* a ring of the last D12_VKDRV_FREED_RANGES destroyed buffers */
    size_t freed_count, freed_next;
    /* D12RT_VULKAN_TEST_DEVICE_LOST=N (test hook): the device's N-th completed wait reports VK_ERROR_DEVICE_LOST */
    unsigned test_lose_at;
    atomic_uint waits;
    atomic_bool simulated; /* the hook fired: the device is not really lost (no checkpoint query: its VU) */
    /* Work that never completes (vkdrv_stuck.c): the device is abandoned (no Vulkan object is destroyed any more);
     * D12RT_VULKAN_TEST_STUCK=N (test hook): the N-th submission also waits on stuck_gate, never signalled. */
    atomic_bool abandoned;
    unsigned stuck_at;
    atomic_uint submissions;
    VkSemaphore stuck_gate;
} d12__vkdrv_diag;
#define D12_VKDRV_FREED_RANGES 4096u

typedef struct d12__vkdrv_device {
    d12__vkdrv_adapter *adapter;
    D3D12DDI_HRTDEVICE rt_device;
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 callbacks;
    D3D12DDI_KERNEL_THUNK_CALLBACKS_0127 kt;
    bool has_kt, has_0127, drm_enabled;
    /* Feature version 2: the version enabled, and the categories the runtime wants (all supported ones until
     * pfnSetDriverReportedMessageFlags says otherwise). */
    UINT32 drm_version;
    _Atomic UINT drm_flags;
    atomic_bool mode_reported;
    VkDevice vk;
    VkQueue queue;
    pthread_mutex_t queue_lock; /* vkQueueSubmit: the VkQueue is shared by every d12 queue of the device */
    uint32_t type_device, type_upload, type_readback; /* memory type indices */
    bool readback_coherent;
    d12__drv_va_space va; /* the buffers (drivers/common/drvcommon_va.h); its map hook keeps the page table */
    /* The kernels' page table (written under va.lock) and pipeline (created at the first draw or dispatch). */
    VkBuffer page_table;
    VkDeviceMemory page_table_memory;
    UINT64 *page_table_entries;
    VkDeviceAddress page_table_address;
    pthread_mutex_t kernel_lock;
    VkShaderModule kernel_module;
    VkPipelineLayout kernel_layout;
    VkPipeline kernel_pipeline; /* guarded by kernel_lock until set */
    atomic_bool kernel_ready;   /* kernel_pipeline is set (release): read without the lock from then on */
    struct d12__drv_pending *pending; /* timeline findings for the next flush (drivers/common/drvcommon_messages.h) */
    d12__vkdrv_diag diag;
    /* The rates of the record-time estimate (picoseconds per byte copied, per kernel invocation), measured. */
    atomic_uint_fast64_t copy_ps, kernel_ps;
    /* Released buffers whose Vulkan objects wait for reuse (vkdrv_cache.c), under cache_lock. */
    pthread_mutex_t cache_lock;
    struct d12__vkdrv_buffer *cache[D12_VKDRV_CACHE_ENTRIES];
    size_t cache_count;
    UINT64 cache_bytes;
    /* VK_KHR_push_descriptor (enabled where offered): root views are push descriptors (vkdrv_rootsig.c). */
    bool push_descriptors;
    uint32_t max_push_descriptors;
    /* The null descriptors' buffer of the application's dispatches (vkdrv_bind.c), created under kernel_lock. */
    VkBuffer cs_null;
    VkDeviceMemory cs_null_memory;
} d12__vkdrv_device;

/* A buffer: the Vulkan buffer covers the whole 64 KiB-granular allocation (the span), so an access past Width but
 * inside the span reads real memory, as the VA contract says. Refcounted: the resource object holds one, every
 * recording that recorded a command on it holds one, so its Vulkan objects outlive the last GPU use. */
typedef struct d12__vkdrv_buffer {
    atomic_uint refs;
    d12__vkdrv_device *device;
    UINT64 va, size, span;
    VkBuffer vk;
    VkDeviceMemory memory;
    VkDeviceAddress address; /* the buffer device address (the page table's entries) */
    void *mapped; /* UPLOAD, READBACK (and DEFAULT on a unified-memory device): persistently mapped */
    uint32_t memory_type;
    /* Zeroed at first use (vkdrv_cache.c): a drvcommon_once.h state, and the bytes from 0 that may be nonzero. */
    atomic_int zero_state;
    UINT64 dirty;
    D3D12DDI_HRTRESOURCE rt_resource;
    D3D12DDI_HEAP_TYPE heap_type;
    /* Its resource was released (set before its VA is): an op that used it and whose completion the driver had not
     * observed by then is a use after free (issue 28 item 3; vkdrv_queue.c). */
    atomic_bool released;
} d12__vkdrv_buffer;
_Static_assert(offsetof(d12__vkdrv_buffer, refs) == 0, "the VA space takes references through the first member");

/* A committed buffer owns `buffer` (offset 0); a placed one holds a reference on its heap's and is the `width`
 * bytes at `offset` in it (vkdrv_heap.c, docs/heaps.md). */
typedef struct d12__vkdrv_resource {
    d12__vkdrv_buffer *buffer;
    UINT64 offset, width;
    bool placed;
} d12__vkdrv_resource;

/* A heap: a buffer allocated as a committed one is (vkdrv_heap.c). */
typedef struct d12__vkdrv_heap {
    d12__vkdrv_buffer *buffer;
} d12__vkdrv_heap;

/* ---- The op log: what a list recorded, in the reference driver's form, for the execution-time checks. ---- */
/* The op types are the drivers' shared op log (drivers/common/drvcommon_ops.h), under this driver's names. */
typedef d12__drv_op_type d12__vkdrv_op_type;
#define D12_VKDRV_OP_SET_VERTEX_BUFFER D12_DRV_OP_SET_VERTEX_BUFFER
#define D12_VKDRV_OP_SET_INDEX_BUFFER D12_DRV_OP_SET_INDEX_BUFFER
#define D12_VKDRV_OP_SET_ROOT D12_DRV_OP_SET_ROOT
#define D12_VKDRV_OP_DRAW D12_DRV_OP_DRAW
#define D12_VKDRV_OP_DRAW_INDEXED D12_DRV_OP_DRAW_INDEXED
#define D12_VKDRV_OP_DISPATCH D12_DRV_OP_DISPATCH
#define D12_VKDRV_OP_COPY D12_DRV_OP_COPY
#define D12_VKDRV_OP_BARRIER D12_DRV_OP_BARRIER
#define D12_VKDRV_OP_WRITE_IMMEDIATE D12_DRV_OP_WRITE_IMMEDIATE

typedef struct d12__vkdrv_op {
    uint8_t type, slot, root_kind, compute; /* d12__drv_op_type, as d12__refdrv_command; WRITE_IMMEDIATE: compute = mode */
    bool recorded;      /* a Vulkan command was recorded for it (its ranges passed the record-time check) */
    uint32_t segment;   /* the command buffer it was recorded in (a draw or dispatch ends one) */
    UINT32 state_index;
    UINT32 op_index;
    /* A draw or dispatch recorded inline (recorded true): its fault word and arguments in the recording's arena
     * (block, offset); D12_VKDRV_NO_ARENA: no invocation, nothing to run. */
    UINT32 arena, arena_offset;
    UINT32 cs; /* an op of a compute segment: its entry in the recording's compute log + 1 (vkdrv_compute.h) */
    d12__drv_op_args u; /* drivers/common/drvcommon_ops.h */
} d12__vkdrv_op;

/* One host-visible block of a recording's arena. */
typedef struct d12__vkdrv_arena_block {
    VkBuffer buffer;
    VkDeviceMemory memory;
    unsigned char *mapped;
    VkDeviceAddress address;
    size_t used;
} d12__vkdrv_arena_block;

/* A command pool: the allocator's, refcounted because a recording still executing keeps its command buffer (and
 * so the pool) alive after the allocator is destroyed. Command buffers released by a timeline are freed on the
 * recording thread (the pool is externally synchronized with every command buffer recording from it). */
typedef struct d12__vkdrv_pool {
    atomic_uint refs;
    d12__vkdrv_device *device;
    VkCommandPool vk;
    pthread_mutex_t garbage_lock;
    VkCommandBuffer *garbage;
    size_t garbage_count, garbage_capacity;
    bool allocator_alive; /* guarded by garbage_lock: false once the allocator is destroyed */
} d12__vkdrv_pool;

typedef struct d12__vkdrv_recording {
    atomic_uint refs;
    d12__vkdrv_device *device;
    UINT64 serial; /* the device's count of recordings: the NV checkpoints' markers name it */
    d12__vkdrv_pool *pool;
    /* The command buffers: one, plus one after each draw or dispatch (whose kernel runs between them). */
    VkCommandBuffer *cbs;
    size_t cb_count, cb_capacity;
    D3D12DDI_HRTCOMMANDLIST rt_list;
    d12__vkdrv_op *ops;
    size_t op_count, op_capacity;
    d12__vkdrv_buffer **buffers; /* every buffer a recorded command names, one reference each */
    size_t buffer_count, buffer_capacity;
    d12__vkdrv_arena_block *arena; /* the inline kernels' arguments and fault words, the breadcrumb word */
    size_t arena_count, arena_capacity;
    struct d12__vkdrv_cs_log *cs; /* the compute log (vkdrv_compute.h); NULL: no compute segment */
    /* The driver's breadcrumb word in the arena (D12_VKDRV_NO_ARENA until the first breadcrumb is recorded): the GPU
     * writes n there once ops [0, n) completed; the timeline zeroes it before each submission (vkdrv_record.c). */
    UINT32 crumb_block, crumb_offset;
} d12__vkdrv_recording;

typedef struct d12__vkdrv_command_allocator {
    d12__vkdrv_pool *pool;
} d12__vkdrv_command_allocator;

typedef struct d12__vkdrv_command_list {
    d12__vkdrv_device *device;
    D3D12DDI_HRTCOMMANDLIST rt_list;
    d12__vkdrv_pool *pool; /* the allocator's pool of the current recording (a reference) */
    d12__vkdrv_recording *recording;
    UINT32 state_index;
    bool closed, index_buffer_bound;
    d12__drv_root_state graphics, compute; /* drivers/common/drvcommon_record.h */
    /* Copy destinations since the application's last barrier: a copy whose destination overlaps one of them is
     * serialized after it (D3D12 orders such copies; vkd3d-proton does the same). */
    d12__vkdrv_ranges copy_dsts; /* disjoint, O(log N) in any order (vkdrv_ranges.h) */
    d12__drv_bindings bound; /* the bindings as recorded so far: an inline kernel's arguments */
    UINT64 estimate_ns;      /* the current command buffer's estimated GPU work */
    struct d12__vkdrv_cs_list *cs; /* the compute binding state (vkdrv_compute.h); NULL until a compute call */
    /* Breadcrumbs (vkdrv_record.c): the estimated work since the last one, whether an op was recorded since, and
     * the value the next one writes (the ops before it completed). */
    UINT64 crumb_ns;
    bool crumb_pending;
    size_t crumb_value;
    /* A MARKER_OUT write not yet recorded (vkdrv_record.c, d12__vkdrv_marker_defer): recorded before the next Vulkan
     * command, or replaced by the next MARKER_OUT write to the same word when no Vulkan command came between. */
    bool marker_pending;
    const d12__vkdrv_buffer *marker_buffer; /* held by the recording */
    UINT64 marker_offset;
    UINT32 marker_value, marker_state_index;
    size_t marker_position; /* the op-log position after the write (the breadcrumb value once it is recorded) */
} d12__vkdrv_command_list;

/* ---- vkdrv_adapter.c ---- */
HRESULT APIENTRY d12_vkdrv_OpenAdapter12(D3D12DDIARG_OPENADAPTER *args);

/* ---- vkdrv_device.c ---- */
SIZE_T APIENTRY d12__vkdrv_calc_private_device_size(D3D12DDI_HADAPTER adapter,
                                                    const D3D12DDIARG_CALCPRIVATEDEVICESIZE *args);
HRESULT APIENTRY d12__vkdrv_create_device(D3D12DDI_HADAPTER adapter, const D3D12DDIARG_CREATEDEVICE_0003 *args);
VOID APIENTRY d12__vkdrv_destroy_device(D3D12DDI_HDEVICE device);
HRESULT APIENTRY d12__vkdrv_enable_extended_feature(D3D12DDI_HDEVICE device, D3D12DDI_FEATURE_0020 feature,
                                                    UINT32 version);
extern const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 d12__vkdrv_drm_funcs;
extern const D3D12DDI_DEVICE_FUNCS_CORE_0126 d12__vkdrv_device_core_funcs;
/* Descriptor heaps, views and samplers (vkdrv_descriptors.c, docs/descriptors.md). */
extern const D3D12DDI_DEVICE_FUNCS_DESCRIPTORS_D12RT d12__vkdrv_descriptor_funcs;

/* ---- Root signatures (vkdrv_rootsig.c; docs/root-signatures.md "The Vulkan driver's layout") ---- */
#define D12_VKDRV_MAX_SETS 32u /* descriptor sets of one pipeline layout, at most (maxBoundDescriptorSets caps it) */

typedef enum d12__vkdrv_root_kind {
    D12_VKDRV_ROOT_TABLE,          /* bindings from `binding` on in `set`, one per range and descriptor kind */
    D12_VKDRV_ROOT_PUSH_CONSTANTS, /* push constants at byte `offset` */
    D12_VKDRV_ROOT_UBO_CONSTANTS,  /* the root set's uniform buffer (binding `binding` of set 0) at byte `offset` */
    D12_VKDRV_ROOT_VIEW,           /* one buffer descriptor: binding `binding` of set 0 */
} d12__vkdrv_root_kind;

/* Where one root parameter lives in the Vulkan layout. */
typedef struct d12__vkdrv_root_parameter {
    d12__vkdrv_root_kind kind;
    uint32_t set, binding, offset;
} d12__vkdrv_root_parameter;

/* A root signature: its description (1.1, a copy) and its layout. Immutable after creation. */
typedef struct d12__vkdrv_root_signature {
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc;
    d12__vkdrv_root_parameter *parameters; /* one per root parameter (in the same private memory) */
    uint32_t table_count, table_sets;      /* tables; sets they may take (maxBoundDescriptorSets - 2) */
    uint32_t sampler_set, set_count;       /* the static samplers' set (when any); sets in all */
    uint32_t push_constant_bytes, ubo_constant_bytes, ubo_binding;
    bool root_set_pushed; /* set 0 is a push-descriptor set */
    bool per_pipeline;    /* beyond the per-stage limits: no Vulkan objects here, pipelines build their own */
    VkDescriptorSetLayout set_layouts[D12_VKDRV_MAX_SETS];
    VkPipelineLayout layout;
    VkSampler *static_samplers; /* one per static sampler (in the same private memory) */
    uint32_t static_sampler_count;
} d12__vkdrv_root_signature;

SIZE_T APIENTRY d12__vkdrv_calc_root_signature_size(D3D12DDI_HDEVICE device,
                                                    const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args);
HRESULT APIENTRY d12__vkdrv_create_root_signature(D3D12DDI_HDEVICE device,
                                                  const D3D12DDIARG_CREATE_ROOT_SIGNATURE_D12RT *args,
                                                  D3D12DDI_HROOTSIGNATURE signature);
VOID APIENTRY d12__vkdrv_destroy_root_signature(D3D12DDI_HDEVICE device, D3D12DDI_HROOTSIGNATURE signature);
/* Whether the physical device offers VK_KHR_push_descriptor (vkdrv_device.c enables it then), and its limit. */
bool d12__vkdrv_push_descriptor_query(VkPhysicalDevice physical, uint32_t *max_push_descriptors);
extern const D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 d12__vkdrv_command_list_funcs;
extern const D3D12DDI_COMMAND_QUEUE_FUNCS_CORE_0126 d12__vkdrv_command_queue_funcs;
void d12__vkdrv_report_mode(d12__vkdrv_device *device);
void d12__vkdrv_report_now(d12__vkdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                           D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *format, ...)
    __attribute__((format(printf, 6, 7)));
void d12__vkdrv_report_later(d12__vkdrv_device *device, UINT64 id, D3D12DDI_MESSAGE_SEVERITY_0126 severity,
                             D3D12DDI_MESSAGE_CATEGORY_0126 category, UINT32 state_index, const char *format, ...)
    __attribute__((format(printf, 6, 7)));
/* A one-off command buffer run to completion (buffer zeroing on a device without host-visible device memory). */
bool d12__vkdrv_run_once(d12__vkdrv_device *device, void (*record)(VkCommandBuffer cb, void *context),
                         void *context);

/* ---- vkdrv_memory.c ---- */
/* The device's VA space, its map hook keeping the kernels' page table (d12__vkdrv_page_table_map). */
bool d12__vkdrv_va_init(d12__drv_va_space *va);
d12__vkdrv_buffer *d12__vkdrv_buffer_acquire(d12__vkdrv_device *device, UINT64 address);
/* Every live buffer overlapping [start, end), a reference each, appended to *held (grown with realloc); and the
 * page count mapped so far (what a kernel may translate). false: out of memory. */
bool d12__vkdrv_buffer_hold_range(d12__vkdrv_device *device, UINT64 start, UINT64 end, d12__vkdrv_buffer ***held,
                                  size_t *count, size_t *capacity);
UINT64 d12__vkdrv_mapped_pages(d12__vkdrv_device *device);
void d12__vkdrv_buffer_retain(d12__vkdrv_buffer *buffer);
void d12__vkdrv_buffer_release(d12__vkdrv_buffer *buffer);
/* ---- vkdrv_cache.c ---- */
/* Before any access to a buffer's bytes (Map, a recorded copy or write, a kernel's hold): zero what may be nonzero,
 * once; a thread that finds another zeroing waits for it. */
void d12__vkdrv_buffer_ready(d12__vkdrv_buffer *buffer);
/* A host-visible buffer whose bytes [0, dirty) are to be zeroed at first use. */
void d12__vkdrv_buffer_zero_later(d12__vkdrv_buffer *buffer, UINT64 dirty);
/* A cached buffer of that memory type and span (its Vulkan objects, mapping and device address), or NULL. */
d12__vkdrv_buffer *d12__vkdrv_cache_take(d12__vkdrv_device *device, uint32_t memory_type, UINT64 span);
/* The last reference of `buffer` went: cache its Vulkan objects, or destroy them. */
void d12__vkdrv_cache_put(d12__vkdrv_buffer *buffer);
/* Destroy every cached buffer (device destruction). */
void d12__vkdrv_cache_drain(d12__vkdrv_device *device);
d12__vkdrv_buffer *d12__vkdrv_resource_buffer(D3D12DDI_HRESOURCE resource);
/* The resource's bytes in its buffer: offset 0 and its Width for a committed one, its heap offset for a placed one. */
UINT64 d12__vkdrv_resource_offset(D3D12DDI_HRESOURCE resource);
UINT64 d12__vkdrv_resource_width(D3D12DDI_HRESOURCE resource);
/* A buffer of `width` bytes in `heap_type`'s memory with one reference and its own range of the VA space (a
 * committed buffer's or a heap's); E_OUTOFMEMORY when its memory or range cannot be had. */
HRESULT d12__vkdrv_buffer_allocate(d12__vkdrv_device *device, D3D12DDI_HEAP_TYPE heap_type, UINT64 width,
                                   D3D12DDI_HRTRESOURCE rt, d12__vkdrv_buffer **out);
/* The buffer's range dies now (a later use faults; a device fault there is a use after free); its Vulkan objects
 * live while a recording names them. */
void d12__vkdrv_buffer_free_range(d12__vkdrv_device *device, d12__vkdrv_buffer *buffer);
SIZE_T APIENTRY d12__vkdrv_calc_private_resource_size(D3D12DDI_HDEVICE device,
                                                      const D3D12DDIARG_CREATERESOURCE_0126 *args);
HRESULT APIENTRY d12__vkdrv_create_resource(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATERESOURCE_0126 *args,
                                            D3D12DDI_HRESOURCE resource, D3D12DDI_HRTRESOURCE rt_resource);
VOID APIENTRY d12__vkdrv_destroy_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);
HRESULT APIENTRY d12__vkdrv_map_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource, void **data);
VOID APIENTRY d12__vkdrv_unmap_resource(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);
UINT64 APIENTRY d12__vkdrv_resource_gpu_va(D3D12DDI_HDEVICE device, D3D12DDI_HRESOURCE resource);

/* ---- vkdrv_heap.c (D3D12DDI_TABLE_TYPE_D12RT_HEAPS) ---- */
extern const D3D12DDI_DEVICE_FUNCS_HEAPS_D12RT d12__vkdrv_heap_funcs;

/* ---- vkdrv_allocator.c ---- */
/* A pool's last reference gone: the VkCommandPool (and every command buffer still in it) destroyed. */
void d12__vkdrv_pool_release(d12__vkdrv_pool *pool);
/* Free the command buffers the timelines gave back (on the pool's recording thread). */
void d12__vkdrv_pool_collect(d12__vkdrv_pool *pool);
/* A recording's command buffer nothing executes any more: freed at once or handed to the pool's owner. */
void d12__vkdrv_pool_give_back(d12__vkdrv_pool *pool, VkCommandBuffer cb);
SIZE_T APIENTRY d12__vkdrv_calc_private_allocator_size(D3D12DDI_HDEVICE device,
                                                       const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args);
HRESULT APIENTRY d12__vkdrv_create_allocator(D3D12DDI_HDEVICE device,
                                             const D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 *args,
                                             D3D12DDI_HCOMMANDALLOCATOR allocator);
VOID APIENTRY d12__vkdrv_destroy_allocator(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDALLOCATOR allocator);
VOID APIENTRY d12__vkdrv_reset_allocator(D3D12DDI_HCOMMANDALLOCATOR allocator);

/* ---- vkdrv_list.c, vkdrv_record.c, vkdrv_barrier.c (the rest of the list files: vkdrv_list.h) ---- */
SIZE_T APIENTRY d12__vkdrv_calc_private_list_size(D3D12DDI_HDEVICE device,
                                                  const D3D12DDIARG_CREATECOMMANDLIST_0126 *args);
HRESULT APIENTRY d12__vkdrv_create_list(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDLIST_0126 *args,
                                        D3D12DDI_HCOMMANDLIST list, D3D12DDI_HRTCOMMANDLIST rt_list);
VOID APIENTRY d12__vkdrv_destroy_list(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDLIST list);
d12__vkdrv_recording *d12__vkdrv_list_recording(D3D12DDI_HCOMMANDLIST list);
void d12__vkdrv_recording_release(d12__vkdrv_recording *recording);
/* The Vulkan command of one op (copies, writes, barriers, inline kernels; the rest record nothing), into `cb`: the list's recording call
 * and the truncated re-recording of a faulting submission (vkdrv_queue.c) share it. */
void d12__vkdrv_record_op(d12__vkdrv_device *device, const d12__vkdrv_recording *recording, VkCommandBuffer cb,
                         const d12__vkdrv_op *op);
/* The driver's breadcrumb: `value` written into the recording's breadcrumb word once every earlier command of the
 * stages `stages` completed (vkCmdWriteBufferMarker2AMD where offered, else a barrier on the word alone, from those
 * stages to the transfer stage, and vkCmdFillBuffer); with the NV checkpoint of the same position. Nothing when the
 * recording has no breadcrumb word. */
void d12__vkdrv_crumb_record(const d12__vkdrv_device *device, const d12__vkdrv_recording *recording,
                             VkCommandBuffer cb, VkPipelineStageFlags2 stages, size_t value);
/* The recording's breadcrumb word (NULL: none): zeroed by the timeline before a submission, read between its wait
 * slices (the watchdog) and after a loss. */
static inline uint32_t *d12__vkdrv_crumb_word(const d12__vkdrv_recording *recording)
{
    if (recording->crumb_block == D12_VKDRV_NO_ARENA)
        return NULL;
    return (uint32_t *)(void *)(recording->arena[recording->crumb_block].mapped + recording->crumb_offset);
}
/* The barrier that opens every executed list (the ExecuteCommandLists boundary) and the device-to-host barrier
 * that closes it. */
void d12__vkdrv_full_barrier(VkCommandBuffer cb);
void d12__vkdrv_host_barrier(VkCommandBuffer cb);

/* ---- vkdrv_check.c ---- */
typedef struct d12__vkdrv_fault {
    bool faulted;
    UINT64 va;
    UINT flags;
    size_t op; /* the op that faulted */
} d12__vkdrv_fault;

/* The kernel's arguments (the GLSL Args block of shaders/draw.comp, std430). */
typedef struct d12__vkdrv_view {
    UINT64 va;
    UINT32 size, stride;
} d12__vkdrv_view;
typedef struct d12__vkdrv_kernel_args {
    d12__vkdrv_view index; /* stride: bytes per index */
    UINT32 kind, count, start; /* kind: 0 draw, 1 indexed draw, 2 dispatch */
    INT32 base_vertex;
    UINT32 vertex_buffers, roots, pad0, pad1;
    d12__vkdrv_view vb[D12_VKDRV_MAX_VERTEX_BUFFERS];
    d12__vkdrv_view root[D12_VKDRV_MAX_ROOT_PARAMETERS]; /* stride: the bytes the root reads */
} d12__vkdrv_kernel_args;

/* A replay of a recording's op log with the reference driver's execution-time rules (docs/refdrv.md), one segment
 * at a time: findings are queued on the device; `skip[i]` is set for each op whose effect must not run; the first
 * page fault of a copy or write stops the walk and is returned. Draws and dispatches get the overrun findings here;
 * their page faults are the kernel's to find (vkdrv_kernel.c). */
typedef struct d12__vkdrv_walk d12__vkdrv_walk;
d12__vkdrv_walk *d12__vkdrv_walk_begin(d12__vkdrv_device *device);
/* For each inline draw or dispatch, the buffers its bindings reach are held until d12__vkdrv_walk_unhold, and
 * `may_fault[i]` says whether a binding it reads is not wholly inside live buffers (its kernel may fault: it then
 * runs last in its submission, so nothing after it runs when it does). */
void d12__vkdrv_walk_ops(d12__vkdrv_walk *walk, const d12__vkdrv_recording *recording, size_t from, size_t to,
                         bool *skip, bool *may_fault, d12__vkdrv_fault *fault);
/* What the draw or dispatch `op` reads, as the kernel's arguments. */
void d12__vkdrv_walk_args(const d12__vkdrv_walk *walk, const d12__vkdrv_op *op, d12__vkdrv_kernel_args *args);
/* The same from bindings (the list's at record time). */
void d12__vkdrv_bindings_args(const d12__drv_bindings *b, const d12__vkdrv_op *op, d12__vkdrv_kernel_args *args);
/* The arguments of the draw or dispatch at `position`, its bindings replayed from the recording's start (the rare
 * path of an inline kernel's fault: its message names the binding). */
void d12__vkdrv_args_at(const d12__vkdrv_recording *recording, size_t position, d12__vkdrv_kernel_args *args);
/* Release what the walk held for the inline kernels (after their submission completed). */
void d12__vkdrv_walk_unhold(d12__vkdrv_walk *walk);
/* A buffer an op of the walk's segment uses (held until d12__vkdrv_walk_unhold), in op order. */
typedef struct d12__vkdrv_use {
    size_t op;
    d12__vkdrv_buffer *buffer;
    UINT64 va; /* the first byte of it the op accesses */
    bool write;
} d12__vkdrv_use;
/* The first use by an op in [from, end) of a buffer released since the walk (NULL: none): the rule of a use after
 * free. */
const d12__vkdrv_use *d12__vkdrv_walk_freed(const d12__vkdrv_walk *walk, size_t from, size_t end);
void d12__vkdrv_walk_end(d12__vkdrv_walk *walk);
/* The reference driver's words for what faulted at `va` among the arguments (NULL: none of them). */
const char *d12__vkdrv_args_what(const d12__vkdrv_kernel_args *args, UINT64 va, char *buffer, size_t size);

/* ---- vkdrv_kernel.c ---- */
typedef struct d12__vkdrv_kernel_queue {
    VkBuffer buffer; /* the arguments (offset 0) and the fault record (offset 2048), host-visible */
    VkDeviceMemory memory;
    unsigned char *mapped;
    VkDeviceAddress address;
    UINT64 chunk; /* invocations of the next chunk (adapted to D12_VKDRV_CHUNK_NS) */
    UINT64 checkpoint_serial; /* the op the chunks run, for their NV checkpoints */
    size_t checkpoint_position;
} d12__vkdrv_kernel_queue;
typedef enum d12__vkdrv_kernel_result {
    D12_VKDRV_KERNEL_DONE,
    D12_VKDRV_KERNEL_FAULT,   /* *fault_va: the lowest address that did not translate */
    D12_VKDRV_KERNEL_STOPPED, /* the device was removed between two chunks (the TDR) */
} d12__vkdrv_kernel_result;
/* A host-visible, coherent, mapped buffer with a device address (zeroed). */
bool d12__vkdrv_host_buffer(d12__vkdrv_device *device, VkDeviceSize size, VkBuffer *buffer, VkDeviceMemory *memory,
                            void **mapped, VkDeviceAddress *address);
/* The kernel's pipeline, created at the first call (VK_NULL_HANDLE: it could not be). */
VkPipeline d12__vkdrv_kernel_pipeline(d12__vkdrv_device *device);
/* The arguments as the kernel reads them (only the bound views, packed) into `out` (at most sizeof *args bytes);
 * returns the bytes written. */
size_t d12__vkdrv_kernel_pack(const d12__vkdrv_kernel_args *args, void *out);
/* One dispatch of the kernel over `total` invocations (at most D12_VKDRV_INLINE_MAX_INVOCATIONS) into `cb`, its
 * pipeline bound first when `bind` (the command buffer's first kernel). */
void d12__vkdrv_kernel_record(d12__vkdrv_device *device, VkCommandBuffer cb, VkPipeline kernel,
                              VkDeviceAddress fault, VkDeviceAddress args, UINT64 total, bool bind);
/* The page table and the pipeline of a device (page table at device creation; pipeline lazily). */
bool d12__vkdrv_kernel_device_init(d12__vkdrv_device *device);
void d12__vkdrv_kernel_device_fini(d12__vkdrv_device *device);
void d12__vkdrv_kernel_queue_fini(d12__vkdrv_device *device, d12__vkdrv_kernel_queue *kq);
/* Run a draw or dispatch (`total` invocations: vertices x instances, or X*Y*Z groups) to its end in chunks of about
 * 5 ms; `submit` submits one chunk and waits for it (false: the device is removed, stop). */
d12__vkdrv_kernel_result d12__vkdrv_kernel_run(d12__vkdrv_device *device, d12__vkdrv_kernel_queue *kq,
                                               VkCommandPool pool, const d12__vkdrv_kernel_args *args, UINT64 total,
                                               bool (*submit)(void *context, VkCommandBuffer cb), void *context,
                                               UINT64 *fault_va);
/* The lowest driver VA the kernel found unmapped in the chunk last run (UINT64_MAX: none). */
UINT64 d12__vkdrv_kernel_fault_va(const d12__vkdrv_kernel_queue *kq);
/* Page-table maintenance (va.lock held for writing: the VA space's map hook). */
void d12__vkdrv_page_table_map(d12__vkdrv_device *device, const d12__vkdrv_buffer *buffer, bool mapped);

/* ---- vkdrv_queue.c ---- */
SIZE_T APIENTRY d12__vkdrv_calc_private_queue_size(D3D12DDI_HDEVICE device,
                                                   const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args);
HRESULT APIENTRY d12__vkdrv_create_queue(D3D12DDI_HDEVICE device, const D3D12DDIARG_CREATECOMMANDQUEUE_0126 *args,
                                         D3D12DDI_HCOMMANDQUEUE queue, D3D12DDI_HRTCOMMANDQUEUE rt_queue);
VOID APIENTRY d12__vkdrv_destroy_queue(D3D12DDI_HDEVICE device, D3D12DDI_HCOMMANDQUEUE queue);

/* ---- vkdrv_lost.c ---- */
/* What a timeline has in flight (registered per queue; set before each submission, cleared after its wait). */
typedef struct d12__vkdrv_inflight {
    struct d12__vkdrv_inflight *next;
    D3D12DDI_HRTCOMMANDQUEUE rt_queue;
    const d12__vkdrv_recording *recording; /* NULL: nothing in flight */
    size_t first, end;                      /* op-log positions submitted */
    const d12__vkdrv_kernel_queue *kernel;  /* a kernel chunk: its fault word and arguments */
} d12__vkdrv_inflight;
/* Device creation: the extensions and features to enable where offered (VK_EXT_device_fault,
 * VK_NV_device_diagnostic_checkpoints, VK_AMD_buffer_marker), chained in front of *chain; D12RT_VULKAN_REAL_FAULTS. */
typedef struct d12__vkdrv_diag_request {
    const char *names[3];
    uint32_t count;
    VkPhysicalDeviceFaultFeaturesEXT fault;
    bool device_fault, checkpoints, buffer_marker, real_faults;
    unsigned test_lose_at;
} d12__vkdrv_diag_request;
void d12__vkdrv_diag_query(d12__vkdrv_adapter *adapter, d12__vkdrv_diag_request *request, void **chain);
bool d12__vkdrv_diag_init(d12__vkdrv_device *device, const d12__vkdrv_diag_request *request);
void d12__vkdrv_diag_fini(d12__vkdrv_device *device);
void d12__vkdrv_inflight_add(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight);
void d12__vkdrv_inflight_remove(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight);
void d12__vkdrv_inflight_set(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight,
                             const d12__vkdrv_recording *recording, size_t first, size_t end,
                             const d12__vkdrv_kernel_queue *kernel);
/* The test hook D12RT_VULKAN_TEST_DEVICE_LOST: whether this completed wait is to report VK_ERROR_DEVICE_LOST. */
bool d12__vkdrv_test_lose(d12__vkdrv_device *device);
/* true once the device was lost (nothing more is submitted). */
bool d12__vkdrv_is_lost(d12__vkdrv_device *device);
/* VK_ERROR_DEVICE_LOST from `call` on the timeline of `self` (NULL: outside a timeline), or (`inferred`) the driver
 * took the device for lost for the reason `call` says though Vulkan reported nothing: the first observer gathers
 * the device's records, names the op (d12__vkdrv_loss_decide), queues the CORRUPTION message and calls
 * pfnDeviceFaultCb. */
void d12__vkdrv_device_lost(d12__vkdrv_device *device, d12__vkdrv_inflight *self, const char *call, bool inferred);
/* A buffer destroyed: its device addresses are remembered (a later fault there is a use after free). */
void d12__vkdrv_note_freed(d12__vkdrv_device *device, const d12__vkdrv_buffer *buffer);
/* The NV checkpoint before the op at `position` of recording `serial` (nothing without the extension). */
static inline void d12__vkdrv_checkpoint(const d12__vkdrv_device *device, VkCommandBuffer cb, UINT64 serial,
                                         size_t position)
{
    if (device->diag.set_checkpoint)
        device->diag.set_checkpoint(cb, (const void *)(uintptr_t)d12__vkdrv_checkpoint_encode(serial, position));
}
/* Whether the next kernel chunk dereferences the real-fault probe (diag.poison): false when the mode is off or a
 * live buffer of the device overlaps the probe range (then nothing is dereferenced: the page table's fault record
 * alone reports). */
bool d12__vkdrv_real_fault_probe(d12__vkdrv_device *device);

/* ---- vkdrv_stuck.c: work that never completes ---- */
void d12__vkdrv_stuck_init(d12__vkdrv_device *device);
void d12__vkdrv_stuck_fini(d12__vkdrv_device *device);
/* The test hook D12RT_VULKAN_TEST_STUCK: true (and *wait filled) when this submission is to wait forever. */
bool d12__vkdrv_test_stuck_wait(d12__vkdrv_device *device, VkSemaphoreSubmitInfo *wait);
/* The driver took the device for lost because its work never completed: from now on no Vulkan object of it is
 * destroyed (one line on stderr, once). */
void d12__vkdrv_abandon(d12__vkdrv_device *device);
static inline bool d12__vkdrv_abandoned(const d12__vkdrv_device *device)
{
    return atomic_load_explicit(&((d12__vkdrv_device *)device)->diag.abandoned, memory_order_relaxed);
}

/* ---- vkdrv_messages.c ---- */
/* The validation mode and where it came from (adapter->validation, ->validation_source). */
void d12__vkdrv_validation_decide(d12__vkdrv_adapter *adapter, const D3D12DDI_D12RT_ADAPTERCALLBACKS *callbacks);
UINT d12__vkdrv_supported_drm_flags(const d12__vkdrv_adapter *adapter);
UINT d12__vkdrv_validation_category(const char *message_id_name);
extern const D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_1 d12__vkdrv_drm1_funcs;
/* The runtime's name of a GPU VA (pfnQueryGpuVaIdentityCb: "0x...:'MyVB' + 0x80", "(released)", "(past its end)");
 * NULL before version 2 or when the runtime knows none. malloc'ed. */
char *d12__vkdrv_va_name(d12__vkdrv_device *device, UINT64 va);
/* `text` followed by " [Buffers: <name>, ...]" for the live buffers among the VkBuffer handles; NULL: none named. */
char *d12__vkdrv_name_buffers(d12__vkdrv_device *device, const char *text, const uint64_t *buffers, unsigned count);
/* Whether the device reports messages of `category` now (the feature enabled and the category on). */
static inline bool d12__vkdrv_reporting(d12__vkdrv_device *device, UINT category)
{
    return device->drm_enabled && (atomic_load_explicit(&device->drm_flags, memory_order_relaxed) & category);
}
/* d12__vkdrv_report_now / _later for a message of `category` (the plain ones are GENERAL). */
void d12__vkdrv_report_category_now(d12__vkdrv_device *device, UINT category, UINT64 id,
                                    D3D12DDI_MESSAGE_SEVERITY_0126 severity, D3D12DDI_MESSAGE_CATEGORY_0126 kind,
                                    UINT32 state_index, const char *text);
void d12__vkdrv_report_category_later(d12__vkdrv_device *device, UINT category, UINT64 id,
                                      D3D12DDI_MESSAGE_SEVERITY_0126 severity, D3D12DDI_MESSAGE_CATEGORY_0126 kind,
                                      UINT32 state_index, const char *text);

/* ---- vkdrv_validation.c ---- */
/* The layers and pNext chain for the adapter's instance in `mode`; false: the layer is not installed. */
bool d12__vkdrv_validation_instance(d12__vkdrv_validation mode, VkInstanceCreateInfo *info,
                                    VkValidationFeaturesEXT *features);
VkBool32 VKAPI_PTR d12__vkdrv_messenger(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                        VkDebugUtilsMessageTypeFlagsEXT types,
                                        const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);
/* The state index the record-time messages of this thread belong to (set around each vkCmd* of a list). */
void d12__vkdrv_validation_scope(UINT32 state_index);
/* Report what the messenger queued on this thread: `now` from a recording call (STATE_SETTING, the scope's index),
 * else held for the next flush (EXECUTION, the index of the op's debug label, else 0xFFFFFFFF). */
void d12__vkdrv_validation_drain(d12__vkdrv_device *device, bool now);
const char *d12__vkdrv_validation_name(d12__vkdrv_validation mode);
/* Drop what the messenger queued on this thread with no device to report it (the instance's destruction). */
void d12__vkdrv_validation_discard(void);

#endif
