/* Device loss as DRED data (docs/vulkan.md, "Device loss"). At device creation the driver enables what the device
 * offers for it: VK_EXT_device_fault (deviceFault), VK_NV_device_diagnostic_checkpoints, VK_AMD_buffer_marker. When
 * a submit or a wait returns VK_ERROR_DEVICE_LOST, the first timeline to see it gathers, under the diag lock, the
 * device's fault record (vkGetDeviceFaultInfoEXT, counts then records), the queue's last checkpoints
 * (vkGetQueueCheckpointData2NV), the submissions in flight with their kernels' fault words and the breadcrumb
 * values their MARKER_OUT writes left, and the device addresses of every live and recently destroyed buffer; the
 * pure functions of vkdrv_fault.c translate the address and name the op; then, with no lock held, the record goes
 * to stderr (and D12RT_VULKAN_FAULT_LOG), the CORRUPTION message is queued and pfnDeviceFaultCb called. Every
 * later submission is dropped. The real-fault mode's probe range (D12RT_VULKAN_REAL_FAULTS) is chosen here too. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfgfile.h"
#include "d12_envnum.h"
#include "vkdrv.h"

#define PROBE_SIZE 0x1000ull
#define MAX_ADDRESSES 16u
#define MAX_VENDOR 8u
#define MAX_CANDIDATES 64u

static bool has_extension(const VkExtensionProperties *all, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(all[i].extensionName, name) == 0)
            return true;
    }
    return false;
}

void d12__vkdrv_diag_query(d12__vkdrv_adapter *adapter, d12__vkdrv_diag_request *request, void **chain)
{
    memset(request, 0, sizeof *request);
    uint32_t count = 0;
    VkExtensionProperties *all = NULL;
    if (vkEnumerateDeviceExtensionProperties(adapter->physical, NULL, &count, NULL) == VK_SUCCESS && count &&
        (all = calloc(count, sizeof *all)) &&
        vkEnumerateDeviceExtensionProperties(adapter->physical, NULL, &count, all) != VK_SUCCESS)
        count = 0;
    if (has_extension(all, count, VK_EXT_DEVICE_FAULT_EXTENSION_NAME)) {
        VkPhysicalDeviceFaultFeaturesEXT fault = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT};
        VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &fault};
        vkGetPhysicalDeviceFeatures2(adapter->physical, &features);
        if (fault.deviceFault) {
            request->device_fault = true;
            request->names[request->count++] = VK_EXT_DEVICE_FAULT_EXTENSION_NAME;
            request->fault = (VkPhysicalDeviceFaultFeaturesEXT){
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FAULT_FEATURES_EXT, .pNext = *chain, .deviceFault = VK_TRUE};
            *chain = &request->fault;
        }
    }
    if (has_extension(all, count, VK_NV_DEVICE_DIAGNOSTIC_CHECKPOINTS_EXTENSION_NAME)) {
        request->checkpoints = true;
        request->names[request->count++] = VK_NV_DEVICE_DIAGNOSTIC_CHECKPOINTS_EXTENSION_NAME;
    }
    if (has_extension(all, count, VK_AMD_BUFFER_MARKER_EXTENSION_NAME)) {
        request->buffer_marker = true;
        request->names[request->count++] = VK_AMD_BUFFER_MARKER_EXTENSION_NAME;
    }
    free(all);
    uint64_t lose = 0; /* issue 29: 4294967297 read as 1 through a truncating cast */
    d12_env_number("D12RT_VULKAN_TEST_DEVICE_LOST", "a wait number (0: off)", 0, UINT32_MAX, false, &lose, stderr,
                   "d12rt Vulkan driver", "ignored");
    request->test_lose_at = (unsigned)lose;
    const char *real = getenv("D12RT_VULKAN_REAL_FAULTS");
    if (real && *real && strcmp(real, "0") != 0) {
        if (strcmp(real, "1") != 0)
            fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_REAL_FAULTS=%s is not 0 or 1; real-fault mode off\n",
                    real);
        else if (!request->device_fault)
            fprintf(stderr,
                    "d12rt Vulkan driver: D12RT_VULKAN_REAL_FAULTS=1 needs VK_EXT_device_fault with deviceFault, which "
                    "%s does not offer; real-fault mode off (page faults stay the page table's)\n",
                    adapter->properties.deviceName);
        else
            request->real_faults = true;
    }
}

bool d12__vkdrv_diag_init(d12__vkdrv_device *device, const d12__vkdrv_diag_request *request)
{
    d12__vkdrv_diag *diag = &device->diag;
    if (pthread_mutex_init(&diag->lock, NULL) != 0)
        return false;
    atomic_init(&diag->next_serial, 1);
    atomic_init(&diag->waits, 0);
    atomic_init(&diag->simulated, false);
    diag->test_lose_at = request->test_lose_at;
    d12__vkdrv_stuck_init(device);
    diag->device_fault = request->device_fault;
    diag->checkpoints = request->checkpoints;
    diag->buffer_marker = request->buffer_marker;
    if (diag->device_fault) {
        diag->get_fault_info = (PFN_vkGetDeviceFaultInfoEXT)vkGetDeviceProcAddr(device->vk, "vkGetDeviceFaultInfoEXT");
        diag->freed = calloc(D12_VKDRV_FREED_RANGES, sizeof *diag->freed);
    }
    if (diag->checkpoints) {
        diag->set_checkpoint = (PFN_vkCmdSetCheckpointNV)vkGetDeviceProcAddr(device->vk, "vkCmdSetCheckpointNV");
        /* The extension's own query, which every driver offering it has (vkGetQueueCheckpointData2NV exists only
         * where the driver pairs it with synchronization2: not on the H200). Its TOP_OF_PIPE and BOTTOM_OF_PIPE bits
         * are the only stages the loss path reads, the same in both. */
        diag->get_checkpoints =
            (PFN_vkGetQueueCheckpointDataNV)vkGetDeviceProcAddr(device->vk, "vkGetQueueCheckpointDataNV");
        if (!diag->get_checkpoints)
            diag->set_checkpoint = NULL;
    }
    if (diag->buffer_marker)
        diag->write_marker =
            (PFN_vkCmdWriteBufferMarker2AMD)vkGetDeviceProcAddr(device->vk, "vkCmdWriteBufferMarker2AMD");
    if (request->real_faults && diag->get_fault_info) {
        /* The probe is the null page, device addresses [0, PROBE_SIZE): Vulkan reserves address 0 as the null
         * pointer (vkGetBufferDeviceAddress never returns it) and GPU drivers keep the page around it unmapped so
         * that a null dereference faults. The first design, a buffer allocated and freed at device creation,
         * failed on the H200: the NVIDIA driver hands a freed range to the next allocation at once (docs/vulkan.md,
         * "Real faults"). That no live buffer of the device reached the page is checked before every chunk. */
        diag->poison = 0;
        diag->poison_size = PROBE_SIZE;
        diag->real_faults = true;
        fprintf(stderr,
                "d12rt Vulkan driver: real-fault mode on '%s': an unmapped read dereferences the null page; the loss "
                "records: vkGetDeviceFaultInfoEXT, checkpoints %s, buffer markers %s\n",
                device->adapter->properties.deviceName,
                diag->get_checkpoints ? "vkGetQueueCheckpointDataNV" : "none",
                diag->write_marker ? "vkCmdWriteBufferMarker2AMD" : "none (barrier + fill)");
    } else if (request->real_faults) {
        fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_REAL_FAULTS=1: vkGetDeviceFaultInfoEXT is missing; "
                        "real-fault mode off\n");
    }
    return true;
}

void d12__vkdrv_diag_fini(d12__vkdrv_device *device)
{
    free(device->diag.freed);
    device->diag.freed = NULL;
    pthread_mutex_destroy(&device->diag.lock);
}

void d12__vkdrv_inflight_add(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight)
{
    pthread_mutex_lock(&device->diag.lock);
    inflight->recording = NULL;
    inflight->next = device->diag.inflight;
    device->diag.inflight = inflight;
    pthread_mutex_unlock(&device->diag.lock);
}

void d12__vkdrv_inflight_remove(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight)
{
    pthread_mutex_lock(&device->diag.lock);
    for (d12__vkdrv_inflight **p = &device->diag.inflight; *p; p = &(*p)->next) {
        if (*p == inflight) {
            *p = inflight->next;
            break;
        }
    }
    pthread_mutex_unlock(&device->diag.lock);
}

void d12__vkdrv_inflight_set(d12__vkdrv_device *device, d12__vkdrv_inflight *inflight,
                             const d12__vkdrv_recording *recording, size_t first, size_t end,
                             const d12__vkdrv_kernel_queue *kernel)
{
    pthread_mutex_lock(&device->diag.lock);
    inflight->recording = recording;
    inflight->first = first;
    inflight->end = end;
    inflight->kernel = kernel;
    pthread_mutex_unlock(&device->diag.lock);
}

bool d12__vkdrv_test_lose(d12__vkdrv_device *device)
{
    if (!device->diag.test_lose_at ||
        atomic_fetch_add_explicit(&device->diag.waits, 1, memory_order_relaxed) + 1 != device->diag.test_lose_at)
        return false;
    atomic_store_explicit(&device->diag.simulated, true, memory_order_relaxed);
    return true;
}

bool d12__vkdrv_is_lost(d12__vkdrv_device *device)
{
    pthread_mutex_lock(&device->diag.lock);
    bool lost = device->diag.lost;
    pthread_mutex_unlock(&device->diag.lock);
    return lost;
}

void d12__vkdrv_note_freed(d12__vkdrv_device *device, const d12__vkdrv_buffer *buffer)
{
    d12__vkdrv_diag *diag = &device->diag;
    if (!diag->freed || !buffer)
        return;
    pthread_mutex_lock(&diag->lock);
    diag->freed[diag->freed_next] = (d12__vkdrv_fault_range){buffer->address, buffer->span, buffer->va, true};
    diag->freed_next = (diag->freed_next + 1) % D12_VKDRV_FREED_RANGES;
    if (diag->freed_count < D12_VKDRV_FREED_RANGES)
        diag->freed_count++;
    pthread_mutex_unlock(&diag->lock);
}

/* A d12__drv_va_visit step: false (stop) when the live buffer's device addresses overlap the probe's. */
static bool clear_of_probe(void *context, void *object)
{
    const d12__vkdrv_diag *diag = context;
    const d12__vkdrv_buffer *b = object;
    return b->address + b->span <= diag->poison || b->address >= diag->poison + diag->poison_size;
}

bool d12__vkdrv_real_fault_probe(d12__vkdrv_device *device)
{
    d12__vkdrv_diag *diag = &device->diag;
    if (!diag->real_faults)
        return false;
    bool clear = d12__drv_va_visit(&device->va, 0, UINT64_MAX, clear_of_probe, diag);
    if (clear && !(device->page_table_address + (UINT64)D12_VKDRV_PAGE_TABLE_ENTRIES * 8 <= diag->poison ||
                   device->page_table_address >= diag->poison + diag->poison_size))
        clear = false;
    if (!clear)
        fprintf(stderr, "d12rt Vulkan driver: a live buffer took the real-fault probe's device addresses; this "
                        "chunk's unmapped reads are not dereferenced\n");
    return clear;
}

/* ---- The loss ---- */

typedef struct gathered {
    d12__vkdrv_device *device;
    d12__vkdrv_loss_candidate candidates[MAX_CANDIDATES];
    const d12__vkdrv_inflight *inflight[MAX_CANDIDATES];
    d12__vkdrv_loss_records records;
    VkDeviceFaultCountsEXT counts;
    VkDeviceFaultAddressInfoEXT addresses[MAX_ADDRESSES];
    VkDeviceFaultVendorInfoEXT vendor[MAX_VENDOR];
    char description[VK_MAX_DESCRIPTION_SIZE];
    VkResult fault_result;
    bool fault_info;
    uint32_t checkpoint_count;
} gathered;

static bool op_is_work(const d12__vkdrv_op *op)
{
    return op->type >= D12_VKDRV_OP_DRAW &&
           !(op->type == D12_VKDRV_OP_WRITE_IMMEDIATE && op->compute == D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT);
}

static bool is_work(size_t candidate, size_t position, void *context)
{
    const gathered *g = context;
    const d12__vkdrv_recording *r = g->inflight[candidate]->recording;
    return position < r->op_count && op_is_work(&r->ops[position]);
}

/* The last MARKER_OUT write of ops [first, end) whose destination holds its value (host-visible memory only). */
static bool read_markers(d12__vkdrv_device *device, const d12__vkdrv_inflight *f, size_t *position)
{
    bool found = false;
    for (size_t i = f->first; i < f->end && i < f->recording->op_count; i++) {
        const d12__vkdrv_op *op = &f->recording->ops[i];
        if (op->type != D12_VKDRV_OP_WRITE_IMMEDIATE || op->compute != D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT ||
            !op->recorded)
            continue;
        d12__vkdrv_buffer *buffer = d12__vkdrv_buffer_acquire(device, op->u.write.dest);
        if (buffer && buffer->mapped &&
            __atomic_load_n((const uint32_t *)(const void *)((const unsigned char *)buffer->mapped +
                                                             (op->u.write.dest - buffer->va)),
                            __ATOMIC_ACQUIRE) == op->u.write.value) {
            *position = i;
            found = true;
        }
        d12__vkdrv_buffer_release(buffer);
    }
    return found;
}

/* The driver's breadcrumb word of the submission (vkdrv_record.c): ops [0, n) completed, so the last op known
 * complete is n - 1, a breadcrumb as good as a MARKER_OUT write there (the later of the two counts). */
static void read_crumb(const d12__vkdrv_inflight *f, d12__vkdrv_loss_candidate *c)
{
    const uint32_t *word = f->kernel ? NULL : d12__vkdrv_crumb_word(f->recording);
    size_t done = word ? __atomic_load_n(word, __ATOMIC_ACQUIRE) : 0;
    if (done <= f->first || done > f->end || (c->marker && c->marker_position >= done - 1))
        return;
    c->marker = true;
    c->marker_position = done - 1;
}

static void gather_fault_info(gathered *g)
{
    d12__vkdrv_device *device = g->device;
    if (!device->diag.get_fault_info)
        return;
    /* The two-call pattern: counts first, then the records (the vendor binary is not asked for). */
    g->counts = (VkDeviceFaultCountsEXT){.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_COUNTS_EXT};
    VkResult result = device->diag.get_fault_info(device->vk, &g->counts, NULL);
    if (result != VK_SUCCESS) {
        g->fault_result = result;
        return;
    }
    if (g->counts.addressInfoCount > MAX_ADDRESSES)
        g->counts.addressInfoCount = MAX_ADDRESSES;
    if (g->counts.vendorInfoCount > MAX_VENDOR)
        g->counts.vendorInfoCount = MAX_VENDOR;
    g->counts.vendorBinarySize = 0;
    VkDeviceFaultInfoEXT info = {.sType = VK_STRUCTURE_TYPE_DEVICE_FAULT_INFO_EXT,
                                 .pAddressInfos = g->counts.addressInfoCount ? g->addresses : NULL,
                                 .pVendorInfos = g->counts.vendorInfoCount ? g->vendor : NULL};
    result = device->diag.get_fault_info(device->vk, &g->counts, &info);
    g->fault_result = result;
    if (result != VK_SUCCESS && result != VK_INCOMPLETE)
        return;
    g->fault_info = true;
    memcpy(g->description, info.description, sizeof g->description);
    g->description[sizeof g->description - 1] = '\0';
}

/* A checkpoint's marker and stages. */
static void note_checkpoint(gathered *g, const void *marker_pointer, VkPipelineStageFlags2 stage)
{
    UINT64 marker = (UINT64)(uintptr_t)marker_pointer;
    if (stage & VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT) {
        g->records.top = true;
        g->records.top_marker = marker;
    }
    if (stage & VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT) {
        g->records.bottom = true;
        g->records.bottom_marker = marker;
    }
}

static void gather_checkpoints(gathered *g)
{
    d12__vkdrv_device *device = g->device;
    /* "The device that queue belongs to must be in the lost state": not after the test hook's loss, nor when the
     * driver took the device for lost itself (work that never completed, vkdrv_stuck.c: Vulkan said nothing). */
    if (!device->diag.get_checkpoints || atomic_load_explicit(&device->diag.simulated, memory_order_relaxed) ||
        d12__vkdrv_abandoned(device))
        return;
    /* The VkQueue is shared by the device's timelines: no submission runs on it meanwhile (lock order: diag.lock,
     * then queue_lock; a timeline never takes diag.lock while it holds queue_lock). */
    uint32_t count = 0;
    pthread_mutex_lock(&device->queue_lock);
    device->diag.get_checkpoints(device->queue, &count, NULL);
    VkCheckpointDataNV *data = count ? calloc(count, sizeof *data) : NULL;
    for (uint32_t i = 0; data && i < count; i++)
        data[i].sType = VK_STRUCTURE_TYPE_CHECKPOINT_DATA_NV;
    if (data)
        device->diag.get_checkpoints(device->queue, &count, data);
    pthread_mutex_unlock(&device->queue_lock);
    if (!data)
        return;
    g->checkpoint_count = count;
    for (uint32_t i = 0; i < count; i++)
        note_checkpoint(g, data[i].pCheckpointMarker, (VkPipelineStageFlags2)data[i].stage);
    free(data);
}

typedef struct range_list {
    d12__vkdrv_fault_range *ranges;
    size_t count, capacity;
} range_list;

/* A d12__drv_va_visit step: the live buffer's device and driver ranges appended (false: out of memory). */
static bool add_live_range(void *context, void *object)
{
    range_list *list = context;
    const d12__vkdrv_buffer *b = object;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        d12__vkdrv_fault_range *grown = realloc(list->ranges, capacity * sizeof *grown);
        if (!grown)
            return false;
        list->ranges = grown;
        list->capacity = capacity;
    }
    list->ranges[list->count++] = (d12__vkdrv_fault_range){b->address, b->span, b->va, false};
    return true;
}

/* The buffers' device addresses, live then freed, and the first data address translated. */
static void translate_address(gathered *g)
{
    d12__vkdrv_device *device = g->device;
    const VkDeviceFaultAddressInfoEXT *data = NULL;
    for (uint32_t i = 0; g->fault_info && i < g->counts.addressInfoCount && !data; i++) {
        if (d12__vkdrv_fault_access(g->addresses[i].addressType))
            data = &g->addresses[i];
    }
    if (!data)
        return;
    range_list live = {0};
    if (!d12__drv_va_visit(&device->va, 0, UINT64_MAX, add_live_range, &live)) {
        free(live.ranges);
        live.ranges = NULL;
    }
    size_t n = live.count;
    d12__vkdrv_fault_range *ranges = realloc(live.ranges, (n + device->diag.freed_count + 1) * sizeof *ranges);
    if (!ranges) {
        free(live.ranges);
        n = 0; /* out of memory: the address is reported as it is */
    }
    for (size_t i = 0; ranges && i < device->diag.freed_count; i++)
        ranges[n++] = device->diag.freed[i];
    g->records.address = true;
    g->records.reported_address = data->reportedAddress;
    g->records.access = d12__vkdrv_fault_access(data->addressType);
    g->records.translation = d12__vkdrv_translate(ranges, n, data->reportedAddress, device->diag.poison,
                                                  device->diag.poison_size);
    free(ranges);
}

static const char *where(const gathered *g, const d12__vkdrv_loss_verdict *v)
{
    if (v->source == D12_VKDRV_LOSS_KERNEL &&
        (!g->records.address || g->records.translation.kind == D12_VKDRV_VA_POISON ||
         g->records.translation.kind == D12_VKDRV_VA_NONE))
        return "which is in no live buffer (the kernel dereferenced the unmapped probe address for it)";
    switch (g->records.translation.kind) {
    case D12_VKDRV_VA_LIVE:
        return "which is inside a live buffer";
    case D12_VKDRV_VA_FREED:
        return "which is in a destroyed buffer";
    case D12_VKDRV_VA_GAP:
        return "which is in the unmapped gap after a buffer";
    default:
        return "a Vulkan device address in no buffer of the driver, live or freed (reported as it is)";
    }
}

static size_t append(char *text, size_t size, size_t used, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *text, size_t size, size_t used, const char *format, ...)
{
    if (used >= size)
        return used;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text + used, size - used, format, args);
    va_end(args);
    return n < 0 ? used : used + (size_t)n;
}

/* How the loss came: Vulkan's word, or the driver's inference (issue 28 item 7: a loss the driver infers never
 * claims VK_ERROR_DEVICE_LOST). */
static size_t loss_words(char *text, size_t size, size_t used, const char *call, bool inferred)
{
    return inferred ? append(text, size, used, "the driver took the device for lost: %s; Vulkan reported nothing", call)
                    : append(text, size, used, "VK_ERROR_DEVICE_LOST from %s", call);
}

/* The fault record as the driver received it: stderr, and appended to D12RT_VULKAN_FAULT_LOG. */
static void log_record(const gathered *g, const d12__vkdrv_loss_verdict *v, const char *call, bool inferred,
                       UINT32 op_index)
{
    char text[4096];
    size_t n = loss_words(text, sizeof text, append(text, sizeof text, 0, "d12rt Vulkan driver: "), call, inferred);
    n = append(text, sizeof text, n, "\n");
    if (!g->device->diag.get_fault_info)
        n = append(text, sizeof text, n, "  VK_EXT_device_fault: not enabled on this device\n");
    else if (!g->fault_info)
        n = append(text, sizeof text, n, "  vkGetDeviceFaultInfoEXT: %d\n", (int)g->fault_result);
    else
        n = append(text, sizeof text, n, "  vkGetDeviceFaultInfoEXT: %d, description \"%s\", %u address(es), %u vendor "
                                         "record(s)\n",
                   (int)g->fault_result, g->description, g->counts.addressInfoCount, g->counts.vendorInfoCount);
    for (uint32_t i = 0; g->fault_info && i < g->counts.addressInfoCount; i++)
        n = append(text, sizeof text, n, "  address type %d 0x%016llX precision 0x%llX\n",
                   (int)g->addresses[i].addressType, (unsigned long long)g->addresses[i].reportedAddress,
                   (unsigned long long)g->addresses[i].addressPrecision);
    for (uint32_t i = 0; g->fault_info && i < g->counts.vendorInfoCount; i++)
        n = append(text, sizeof text, n, "  vendor \"%.*s\" code 0x%llX data 0x%llX\n", VK_MAX_DESCRIPTION_SIZE,
                   g->vendor[i].description, (unsigned long long)g->vendor[i].vendorFaultCode,
                   (unsigned long long)g->vendor[i].vendorFaultData);
    if (!g->device->diag.set_checkpoint)
        n = append(text, sizeof text, n, "  checkpoints: not offered\n");
    else if (d12__vkdrv_abandoned(g->device))
        n = append(text, sizeof text, n, "  checkpoints: not asked (Vulkan did not report the device lost)\n");
    else
        n = append(text, sizeof text, n, "  checkpoints: %u, top %s0x%llX, bottom %s0x%llX\n", g->checkpoint_count,
                   g->records.top ? "" : "(none) ", (unsigned long long)g->records.top_marker,
                   g->records.bottom ? "" : "(none) ", (unsigned long long)g->records.bottom_marker);
    if (g->records.address)
        n = append(text, sizeof text, n, "  translated: kind %d, driver VA 0x%016llX\n",
                   (int)g->records.translation.kind, (unsigned long long)g->records.translation.va);
    for (size_t i = 0; i < g->records.candidate_count; i++) {
        const d12__vkdrv_loss_candidate *c = &g->candidates[i];
        n = append(text, sizeof text, n, "  in flight: recording %llu ops [%zu, %zu)%s%s\n",
                   (unsigned long long)c->serial, c->first, c->end, c->single ? " one op" : "",
                   c->kernel_fault ? " kernel fault word set" : "");
    }
    n = append(text, sizeof text, n, "  verdict: source %s, op index %u, %s 0x%016llX: %s\n",
               d12__vkdrv_loss_source_name(v->source), (unsigned)op_index,
               v->page_fault ? "page fault at" : "fault, no address", (unsigned long long)v->va, v->why);
    fputs(text, stderr);
    /* Issue 29: fopen(path, "a") of a FIFO blocked until a reader came, inside device loss, and so queue release for
     * ever. Opened as the runtime opens every file a setting names (runtime/cfgfile/): never blocking, regular files
     * only; anything else is one line on stderr and the record stays on stderr alone. */
    const char *path = getenv("D12RT_VULKAN_FAULT_LOG");
    if (!path || !*path)
        return;
    char why[128];
    int fd = d12_cfgfile_open_append(path, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_FAULT_LOG=%s: %s; the record is on stderr only\n", path, why);
        return;
    }
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    if (written < 0 || (size_t)written != length)
        fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_FAULT_LOG=%s: the record could not be written whole\n", path);
    close(fd);
}

void d12__vkdrv_device_lost(d12__vkdrv_device *device, d12__vkdrv_inflight *self, const char *call, bool inferred)
{
    gathered *g = calloc(1, sizeof *g);
    pthread_mutex_lock(&device->diag.lock);
    if (device->diag.lost || !g) {
        bool first = !device->diag.lost;
        device->diag.lost = true;
        pthread_mutex_unlock(&device->diag.lock);
        free(g);
        if (first) /* out of memory: the removal still happens, without the records */
            device->callbacks.pfnSetErrorCb(device->rt_device, D3DDDIERR_DEVICEREMOVED);
        return;
    }
    device->diag.lost = true;
    g->device = device;
    gather_fault_info(g);
    gather_checkpoints(g);
    size_t count = 0;
    for (const d12__vkdrv_inflight *f = device->diag.inflight; f && count < MAX_CANDIDATES; f = f->next) {
        if (!f->recording)
            continue;
        d12__vkdrv_loss_candidate *c = &g->candidates[count];
        c->serial = f->recording->serial;
        c->first = f->first;
        c->end = f->end;
        size_t work = 0;
        for (size_t i = f->first; i < f->end && i < f->recording->op_count; i++)
            work += op_is_work(&f->recording->ops[i]);
        c->single = work == 1;
        c->kernel_va = f->kernel ? d12__vkdrv_kernel_fault_va(f->kernel) : UINT64_MAX;
        /* Only real-fault mode dereferences what the kernel records; elsewhere a set word caused no loss. */
        c->kernel_fault = device->diag.real_faults && c->kernel_va != UINT64_MAX;
        c->marker = read_markers(device, f, &c->marker_position);
        read_crumb(f, c);
        g->inflight[count++] = f;
    }
    g->records.candidates = g->candidates;
    g->records.candidate_count = count;
    translate_address(g);
    d12__vkdrv_loss_verdict v = d12__vkdrv_loss_decide(&g->records, is_work, g);
    /* What the callbacks need, copied out before the lock goes (the recordings may be released after it). */
    D3D12DDICB_DEVICEFAULT_0127 report = {
        .ExecutionState = v.page_fault ? D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT
                                       : D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAFAULT,
        .FaultedVirtualAddress = v.page_fault ? v.va : 0,
        .PageFaultFlags = v.page_fault ? d12__vkdrv_fault_flags(v.access) : 0,
        .hRTCommandQueue = self ? self->rt_queue : (D3D12DDI_HRTCOMMANDQUEUE){NULL},
        .OpIndex = D3D12DDI_OP_INDEX_UNKNOWN,
    };
    UINT32 state_index = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    char what[64] = "The op";
    if (v.candidate != SIZE_MAX) {
        const d12__vkdrv_inflight *f = g->inflight[v.candidate];
        report.hRTCommandQueue = f->rt_queue;
        report.hRTCommandList = f->recording->rt_list;
        if (v.position != SIZE_MAX) {
            report.OpIndex = f->recording->ops[v.position].op_index;
            state_index = f->recording->ops[v.position].state_index;
        }
        if (v.source == D12_VKDRV_LOSS_KERNEL && f->kernel) {
            char buffer[64];
            const char *name = d12__vkdrv_args_what((const d12__vkdrv_kernel_args *)(const void *)f->kernel->mapped,
                                                    v.va, buffer, sizeof buffer);
            if (name)
                snprintf(what, sizeof what, "%s", name);
        }
    }
    pthread_mutex_unlock(&device->diag.lock);

    log_record(g, &v, call, inferred, report.OpIndex); /* self NULL: seen outside a timeline (buffer zeroing) */
    char text[1024];
    size_t n = v.page_fault ? append(text, sizeof text, 0, "Page fault: %s %s GPU virtual address 0x%016llX, %s. ", what,
                                     d12__vkdrv_fault_access_name(v.access), (unsigned long long)v.va, where(g, &v))
                            : append(text, sizeof text, 0, "The GPU faulted with no faulting address. ");
    n = loss_words(text, sizeof text, append(text, sizeof text, n, "The device was lost ("), call, inferred);
    n = append(text, sizeof text, n, ")");
    if (g->fault_info && (g->description[0] || g->counts.addressInfoCount || g->counts.vendorInfoCount))
        n = append(text, sizeof text, n, "; VK_EXT_device_fault: \"%s\"", g->description);
    for (uint32_t i = 0; g->fault_info && i < g->counts.vendorInfoCount; i++)
        n = append(text, sizeof text, n, "; vendor: \"%.*s\"", VK_MAX_DESCRIPTION_SIZE, g->vendor[i].description);
    append(text, sizeof text, n, ". The op is named by %s: %s.", d12__vkdrv_loss_source_name(v.source), v.why);
    d12__vkdrv_report_later(device, D12_REFDRV_MSG_PAGE_FAULT, D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION,
                            D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, state_index, "%s", text);
    free(g);
    if (device->has_0127)
        device->kt.pfnDeviceFaultCb(device->rt_device, &report);
    else
        device->callbacks.pfnSetErrorCb(device->rt_device, D3DDDIERR_DEVICEREMOVED);
}
