/* The DRED end-to-end cases' shared steps (test_dred_diagnosis.c, test_dred_round3.c): DRED on with a dump folder of
 * the case's own, RemoveDevice, reading this process's report files, the `d12dred show` tree, and cleaning up.
 * The including file defines `static char g_dir[]` (a mkdtemp template) and includes gpu_harness.h first. */
#ifndef D12_TEST_DRED_CASE_H
#define D12_TEST_DRED_CASE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12dred_report.h"


static inline void set_dred(D3D12_DRED_ENABLEMENT breadcrumbs, D3D12_DRED_ENABLEMENT page_fault)
{
    ID3D12DeviceRemovedExtendedDataSettings2 *s = NULL;
    if (!CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12DeviceRemovedExtendedDataSettings2, (void **)&s), S_OK))
        return;
    ID3D12DeviceRemovedExtendedDataSettings2_SetAutoBreadcrumbsEnablement(s, breadcrumbs);
    ID3D12DeviceRemovedExtendedDataSettings2_SetPageFaultEnablement(s, page_fault);
    ID3D12DeviceRemovedExtendedDataSettings2_SetBreadcrumbContextEnablement(s, D3D12_DRED_ENABLEMENT_FORCED_ON);
    ID3D12DeviceRemovedExtendedDataSettings2_Release(s);
}

/* A dump folder of its own, DRED on, a device. */
static inline ID3D12Device *setup(void)
{
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return NULL;
    setenv("D12RT_DRED_DUMP", g_dir, 1);
    set_dred(D3D12_DRED_ENABLEMENT_FORCED_ON, D3D12_DRED_ENABLEMENT_FORCED_ON);
    return create_device(false);
}

static inline void remove_device(ID3D12Device *device)
{
    ID3D12Device5 *device5 = NULL;
    if (CHECK_HR(ID3D12Device_QueryInterface(device, &IID_ID3D12Device5, (void **)&device5), S_OK)) {
        ID3D12Device5_RemoveDevice(device5);
        ID3D12Device5_Release(device5);
    }
}

/* The report file `name` of this process in the dump folder (d12dred-<pid>-1.json or d12rt-stall-<pid>-N.json). */
static inline d12dred_report *read_report(const char *prefix, unsigned n)
{
    char path[512], error[512] = "";
    snprintf(path, sizeof path, "%s/%s-%d-%u.json", g_dir, prefix, (int)getpid(), n);
    d12dred_report *r = NULL;
    if (!CHECK_EQ_INT_RET(d12dred_report_read_json(path, &r, error, sizeof error), 0))
        fprintf(stderr, "    %s\n", error);
    return r;
}

static inline d12dred_report *removal_report(void) { return read_report("d12dred", 1); }

/* The `d12dred show` tree of a report. */
static inline char *render(const d12dred_report *r)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (f) {
        CHECK_EQ_INT(d12dred_report_render(r, f), 0);
        fclose(f);
    }
    return text;
}

static inline bool contains(const char *text, const char *needle)
{
    bool ok = text && strstr(text, needle) != NULL;
    if (!ok)
        fprintf(stderr, "    missing: %s\n%s\n", needle, text ? text : "(no text)");
    return ok;
}

static inline const d12dred_queue *queue_named(const d12dred_report *r, const char *name)
{
    for (size_t i = 0; r && i < r->queue_count; i++)
        if (r->queues[i]->name && strcmp(r->queues[i]->name, name) == 0)
            return r->queues[i];
    return NULL;
}

/* A 256-byte-aligned DEFAULT buffer of `width` bytes named `name` (NULL: unnamed). */
static inline ID3D12Resource *named_buffer(ID3D12Device *device, UINT64 width, const wchar_t *name)
{
    ID3D12Resource *buffer = make_buffer(device, D3D12_HEAP_TYPE_DEFAULT, width);
    if (buffer && name)
        ID3D12Resource_SetName(buffer, name);
    return buffer;
}

/* Waits (up to 5 s) for the GPU fault or hang to remove the device. */
static inline void wait_removed(ID3D12Device *device)
{
    for (int i = 0; i < 1000 && ID3D12Device_GetDeviceRemovedReason(device) == S_OK; i++)
        sleep_ms(5);
    CHECK_HR(ID3D12Device_GetDeviceRemovedReason(device), DXGI_ERROR_DEVICE_HUNG);
}

static inline void cleanup(void)
{
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
    CHECK_EQ_INT(system(command), 0);
}

#endif
