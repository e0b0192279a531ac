/* ctest conform.build_too_old / conform.build_current (issue 10 item 5): a driver that implements driver-reported
 * messages but negotiates DDI build 0110 gets the feature turned off with a WARNING (DRIVER_REPORTED_MESSAGES_BUILD_TOO_OLD,
 * 0x10100) in every opted-in device's InfoQueue and one `d12rt:` line on stderr per process; a 0126 driver gets
 * neither. Public API only; the driver (D12RT_DRIVER) is examples/driver_skeleton built with -DOLD_BUILD=1, or not.
 * `test_old_build old|current`. */
#define _GNU_SOURCE
#define COBJMACROS
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>

#include "harness.h"

#define BUILD_TOO_OLD_ID 0x10100

static unsigned count_warnings(ID3D12Device *device)
{
    ID3D12InfoQueue *queue = NULL;
    unsigned found = 0;
    if (FAILED(ID3D12Device_QueryInterface(device, &IID_ID3D12InfoQueue, (void **)&queue)))
        return 0;
    for (UINT64 i = 0; i < ID3D12InfoQueue_GetNumStoredMessages(queue); i++) {
        SIZE_T length = 0;
        ID3D12InfoQueue_GetMessage(queue, i, NULL, &length);
        D3D12_MESSAGE *m = malloc(length);
        if (m && SUCCEEDED(ID3D12InfoQueue_GetMessage(queue, i, m, &length)) && m->ID == BUILD_TOO_OLD_ID) {
            found++;
            CHECK_EQ_INT(m->Severity, D3D12_MESSAGE_SEVERITY_WARNING);
            CHECK(strstr(m->pDescription, "negotiated DDI build 110") != NULL);
        }
        free(m);
    }
    ID3D12InfoQueue_Release(queue);
    return found;
}

int main(int argc, char **argv)
{
    bool old = argc == 2 && strcmp(argv[1], "old") == 0;
    ID3D12Debug7 *debug = NULL;
    if (!CHECK(SUCCEEDED(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug))))
        return d12test_finish();
    ID3D12Debug7_EnableDebugLayer(debug);
    ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
    ID3D12Debug7_Release(debug);
    /* stderr into a file for the two device creations */
    char path[] = "/tmp/d12-old-build.XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    unsigned warnings[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        ID3D12Device *device = NULL;
        CHECK_EQ_INT(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
        if (device) {
            warnings[i] = count_warnings(device);
            ID3D12Device_Release(device);
        }
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    char text[8192] = {0};
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    (void)n;
    close(fd);
    unlink(path);
    unsigned lines = 0;
    for (const char *p = text; (p = strstr(p, "d12rt: driver ")) != NULL; p++)
        lines += strstr(p, "negotiated DDI build") != NULL && strchr(p, '\n') > strstr(p, "negotiated DDI build");
    CHECK_EQ_INT(warnings[0], old ? 1 : 0);
    CHECK_EQ_INT(warnings[1], old ? 1 : 0); /* every device's InfoQueue */
    CHECK_EQ_INT(lines, old ? 1 : 0);       /* stderr: once per process */
    if (!old && lines)
        fprintf(stderr, "%s", text);
    return d12test_finish();
}
