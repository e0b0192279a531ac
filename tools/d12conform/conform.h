/* d12conform's shared declarations: what a test area (one .c file per area of the specification) needs from the
 * child-side harness (trace.c: failure reporting, the DDI trace and the checks over it; app.c: the application
 * side over the public API) and how it hands its tests to the runner (main.c).
 *
 * Adding an area: a new file defining `const conform_test conform_tests_NAME[]` and `conform_tests_NAME_count`,
 * one CONFORM_AREA(NAME) line in CONFORM_AREAS below (the order is the order of --list and of a run), and the
 * file in tools/CMakeLists.txt. */
#ifndef D12CONFORM_H
#define D12CONFORM_H

#define COBJMACROS
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#define INIT_TEXT "D3D12 Driver Reported Messages Enabled"

typedef enum { PASS = 0, FAIL = 1, NOT_EXERCISED = 3 } outcome;

/* ---- failure reporting inside a child (trace.c) ---- */

/* The child's result so far: fail() makes it FAIL whatever the test returns. */
extern outcome g_result;
__attribute__((format(printf, 1, 2))) void fail(const char *format, ...);

#define EXPECT(cond, ...)                                                                                         \
    do {                                                                                                          \
        if (!(cond))                                                                                              \
            fail(__VA_ARGS__);                                                                                    \
    } while (0)

void sleep_ms(unsigned ms);

/* ---- the DDI trace (trace.c; docs/conformance.md, "The DDI trace") ---- */

typedef struct record {
    char dir;          /* '>' runtime -> driver, '<' driver -> runtime */
    unsigned long id;  /* '>' lines: the call number */
    char name[64];
    char *line;
} record;

typedef struct trace {
    record *r;
    size_t count;
} trace;

/* The child's D12RT_DDI_TRACE (its hive is this path + ".reg"). */
extern char g_trace_path[PATH_MAX];

void trace_free(trace *t);
/* The trace as written so far (the runtime writes each line before the call it describes returns). */
trace trace_read(void);
/* The value of `key=` in a record, or NULL. */
const char *field(const record *r, const char *key, char *out, size_t size);
unsigned long long field_u(const record *r, const char *key);
bool is(const record *r, const char *name);
/* How many records named `name` the trace holds right now. */
size_t count_now(const char *name);
/* The `in=` call name of a callback record ("-" when none). */
const char *inside(const record *r, char *out, size_t size);

/* Devices in the trace: hRTDevice and hDrvDevice from pfnCreateDevice, and the record index of its
 * pfnDestroyDevice (SIZE_MAX while alive). */
typedef struct device_life {
    char rt[32], drv[32];
    size_t created, destroyed;
} device_life;
size_t devices_of(const trace *t, device_life *out, size_t max);

/* ---- checks over the trace (trace.c) ---- */

size_t count_records(const trace *t, const char *name);
/* The feature's own DDI never called (the device was not enabled). */
void expect_feature_off(const trace *t, const char *why);
bool feature_advertised(const trace *t);
void expect_feature_on(const trace *t);
/* Whether the runtime issued `index` before record `before`. */
bool issued(const trace *t, size_t before, unsigned long long index);

/* ---- the application side (app.c) ---- */

bool debug_settings(bool debug_layer, int drm /* -1: leave */);
ID3D12Device *new_device(void);
ID3D12InfoQueue1 *info_queue(ID3D12Device *device);
/* Stored message i (malloc'ed), or NULL. */
D3D12_MESSAGE *stored(ID3D12InfoQueue1 *queue, UINT64 i);

/* A queue with an allocator, a list (closed), a fence and two buffers for copies. */
typedef struct gpu {
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 fence_value;
    ID3D12Resource *src, *dst;
} gpu;

ID3D12Resource *buffer(ID3D12Device *device, D3D12_HEAP_TYPE type, UINT64 width);
bool gpu_open(gpu *g, ID3D12Device *device);
/* Record a copy, a draw and a dispatch (GPU work of each kind) into the list. */
void record_work(gpu *g);
void execute(gpu *g);
/* Signal the queue and wait on the CPU until the GPU got there. */
bool signal_and_wait(gpu *g);
void gpu_close(gpu *g);
/* A workload through every flush point: execute + signal + wait, execute again, Wait, queue destruction. */
void workload(ID3D12Device *device);
/* One device's life with the settings given, the workload, then its release. */
void device_life_with(bool debug_layer, int drm);
void write_registry(const char *values);
/* A device with the feature on and a gpu on it; false (everything released) when either fails. */
bool enabled_gpu(gpu *g, ID3D12Device **device);

/* ---- the tests, area by area ---- */

typedef struct conform_test {
    const char *name;
    const char *checks; /* "driver" or "runtime" */
    const char *spec;   /* the sentence it checks */
    outcome (*run)(void);
} conform_test;

#define CONFORM_AREAS                                                                                             \
    CONFORM_AREA(init)                                                                                            \
    CONFORM_AREA(enable)                                                                                          \
    CONFORM_AREA(filter)                                                                                          \
    CONFORM_AREA(flush)                                                                                           \
    CONFORM_AREA(corr)                                                                                            \
    CONFORM_AREA(oblig)                                                                                           \
    CONFORM_AREA(stress)                                                                                          \
    CONFORM_AREA(v2) /* issue 20: version 2 of driver-reported messages, after every version-1 area */            \
    CONFORM_AREA(compute) /* issue 31: GPU-based validation of a dispatch's descriptors, as driver messages */

#define CONFORM_AREA(name)                                                                                        \
    extern const conform_test conform_tests_##name[];                                                             \
    extern const size_t conform_tests_##name##_count;
CONFORM_AREAS
#undef CONFORM_AREA

#endif
