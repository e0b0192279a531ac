/* d12bench's driver-call row: the reference driver's pfnWriteBufferImmediate called directly, the way the runtime's
 * DRED auto-breadcrumbs call it after every op (runtime/dred/breadcrumbs.c, d12__dred_record: one
 * D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 {the counter's GPU VA, the op count}, mode MARKER_OUT, on an open
 * list of a build-0127 device). Issue 9: "Breadcrumbs add no more than the write-immediate DDI call plus 2 ns to
 * recording an op": `DrawInstanced (DRED auto-breadcrumbs)` - `DrawInstanced (feature off)` is compared with this
 * row in --check-budget (by the minimum) and in bench/callgrind_rows.py (by instruction count).
 *
 * The driver is the one linked into the runtime (d12_refdrv_static: its own instance here, opened as a runtime of
 * DDI build 0127 opens it, with stub callbacks), in this process: no queue, no GPU timeline. As in the DRED row, the
 * list is closed and reset every 4096 writes outside the timed part, so its recording stays small.
 *
 * Row (group "gpu"):
 *   pfnWriteBufferImmediate (reference driver, as DRED calls it)   one MARKER_OUT write per operation
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu.h"
#include "refdrv.h"

#define WRITES_PER_RECORDING 4096u

typedef struct ddi_bench {
    D3D12DDI_ADAPTERFUNCS adapter_funcs;
    D3D12DDI_HADAPTER adapter;
    D3D12DDI_HDEVICE device;
    D3D12DDI_DEVICE_FUNCS_CORE_0126 core;
    D3D12DDI_COMMAND_LIST_FUNCS_3D_0127 list_funcs;
    D3D12DDI_HCOMMANDALLOCATOR allocator;
    D3D12DDI_HCOMMANDLIST list;
    D3D12DDI_HRESOURCE counter;
    D3D12_GPU_VIRTUAL_ADDRESS counter_va;
    unsigned writes; /* in the current recording */
    UINT count;      /* the op count DRED would write */
    bool open;
} ddi_bench;

static ddi_bench g;

/* The runtime's callbacks, as stubs: the row makes no report and no error. */
static VOID APIENTRY stub_set_error(D3D12DDI_HRTDEVICE device, HRESULT hr)
{
    (void)device, (void)hr;
}

static VOID APIENTRY stub_set_list_error(D3D12DDI_HRTCOMMANDLIST list, HRESULT hr)
{
    (void)list, (void)hr;
}

static HRESULT APIENTRY stub_report(D3D12DDI_HRTDEVICE device, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *message)
{
    (void)device, (void)message;
    return S_OK;
}

static HRESULT APIENTRY stub_identity(D3D12DDI_HRTDEVICE device, D3D12DDI_HANDLE_AND_TYPE object, SIZE_T *size,
                                      char *name)
{
    (void)device, (void)object, (void)name;
    if (size)
        *size = 0;
    return E_INVALIDARG;
}

static const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 k_callbacks = {stub_set_error, stub_set_list_error, stub_report,
                                                                     stub_identity, NULL};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A fresh recording (untimed), as the DRED row's list reset: the runtime's DEFAULT write of 0 first. */
static void restart_recording(void)
{
    g.list_funcs.pfnCloseCommandList(g.list);
    g.core.pfnResetCommandAllocator(g.allocator);
    D3D12DDIARG_RESETCOMMANDLIST_0126 reset = {g.allocator};
    g.list_funcs.pfnResetCommandList(g.list, &reset);
    D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 zero = {g.counter_va, 0};
    D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT;
    g.list_funcs.pfnWriteBufferImmediate(g.list, 1, &zero, &mode);
    g.writes = 0;
    g.count = 0;
}

/* The timed loop (a function of its own: bench/callgrind_rows.py counts the instructions inside it). Each
 * operation is exactly d12__dred_record's call: a parameter and a mode on the stack, the count bumped. */
__attribute__((noinline)) static void write_immediates(unsigned batch)
{
    for (unsigned i = 0; i < batch; i++) {
        D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127 param = {g.counter_va, ++g.count};
        D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_0127 mode = D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT;
        g.list_funcs.pfnWriteBufferImmediate(g.list, 1, &param, &mode);
    }
}

static double time_write_immediates(void *context, uint64_t iterations)
{
    (void)context;
    double total = 0;
    while (iterations > 0) {
        if (g.writes == WRITES_PER_RECORDING)
            restart_recording();
        unsigned batch = WRITES_PER_RECORDING - g.writes;
        if (batch > iterations)
            batch = (unsigned)iterations;
        double start = now_ns();
        write_immediates(batch);
        total += now_ns() - start;
        g.writes += batch;
        iterations -= batch;
    }
    return total;
}

static void *private_memory(SIZE_T size)
{
    return size ? calloc(1, size) : NULL;
}

static bool open_driver(void)
{
    D3D12DDIARG_OPENADAPTER open = {{NULL}, {NULL}, NULL, &g.adapter_funcs};
    if (FAILED(d12_refdrv_OpenAdapter12(&open)))
        return false;
    g.adapter = open.hAdapter;
    D3D12DDIARG_CALCPRIVATEDEVICESIZE calc = {D3D12DDI_INTERFACE_VERSION_R8, D3D12DDI_BUILD_VERSION_0127 << 16, 0};
    g.device.pDrvPrivate = private_memory(g.adapter_funcs.pfnCalcPrivateDeviceSize(g.adapter, &calc));
    D3D12DDIARG_CREATEDEVICE_0003 create = {{(void *)1}, calc.Interface, calc.Version, {NULL},
                                            g.device, {.p12UMCallbacks_0126 = &k_callbacks}, 0};
    D3D12DDI_HRTTABLE none = {NULL};
    if (!g.device.pDrvPrivate || FAILED(g.adapter_funcs.pfnCreateDevice(g.adapter, &create)) ||
        FAILED(g.adapter_funcs.pfnFillDDITable(g.adapter, D3D12DDI_TABLE_TYPE_DEVICE_CORE, &g.core, sizeof g.core, 0,
                                               none)) ||
        FAILED(g.adapter_funcs.pfnFillDDITable(g.adapter, D3D12DDI_TABLE_TYPE_COMMAND_LIST_3D, &g.list_funcs,
                                               sizeof g.list_funcs, 0, none)))
        return false;
    D3D12DDIARG_CREATECOMMANDALLOCATOR_0126 allocator = {D3D12DDI_COMMAND_QUEUE_FLAG_3D};
    g.allocator.pDrvPrivate = private_memory(g.core.pfnCalcPrivateCommandAllocatorSize(g.device, &allocator));
    if (!g.allocator.pDrvPrivate || FAILED(g.core.pfnCreateCommandAllocator(g.device, &allocator, g.allocator)))
        return false;
    D3D12DDIARG_CREATERESOURCE_0126 counter = {D3D12DDI_HEAP_TYPE_DEFAULT, 256};
    g.counter.pDrvPrivate = private_memory(g.core.pfnCalcPrivateResourceSize(g.device, &counter));
    if (!g.counter.pDrvPrivate ||
        FAILED(g.core.pfnCreateResource(g.device, &counter, g.counter, (D3D12DDI_HRTRESOURCE){(void *)2})))
        return false;
    g.counter_va = g.core.pfnGetResourceGPUVirtualAddress(g.device, g.counter);
    D3D12DDIARG_CREATECOMMANDLIST_0126 list = {D3D12DDI_COMMAND_QUEUE_FLAG_3D, g.allocator};
    g.list.pDrvPrivate = private_memory(g.core.pfnCalcPrivateCommandListSize(g.device, &list));
    if (!g.list.pDrvPrivate ||
        FAILED(g.core.pfnCreateCommandList(g.device, &list, g.list, (D3D12DDI_HRTCOMMANDLIST){(void *)3})))
        return false;
    g.open = true;
    restart_recording();
    return true;
}

void bench_ddi_setup(int baseline)
{
    if (!open_driver()) {
        bench_fail_setup("the reference driver opened directly (DDI build 0127) for the write-immediate row");
        return;
    }
    bench_add_timed_row("gpu", "pfnWriteBufferImmediate (reference driver, as DRED calls it)",
                        "the driver's call alone: one MARKER_OUT write (compare with the DRED row's added cost)",
                        time_write_immediates, NULL, baseline);
}

void bench_ddi_teardown(void)
{
    if (!g.open)
        return;
    g.list_funcs.pfnCloseCommandList(g.list);
    g.core.pfnDestroyCommandList(g.device, g.list);
    g.core.pfnDestroyResource(g.device, g.counter);
    g.core.pfnDestroyCommandAllocator(g.device, g.allocator);
    g.adapter_funcs.pfnDestroyDevice(g.device);
    g.adapter_funcs.pfnCloseAdapter(g.adapter);
    free(g.list.pDrvPrivate);
    free(g.counter.pDrvPrivate);
    free(g.allocator.pDrvPrivate);
    free(g.device.pDrvPrivate);
    g.open = false;
}
