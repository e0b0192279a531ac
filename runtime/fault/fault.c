/* Failure injection (d12_fault.h, docs/reliability.md "Failure injection"): the counting allocation wrappers that
 * runtime/fault/fault_alloc.h redirects the runtime's allocations to, the failable-driver-call countdown the DDI
 * wrappers ask (fault.h), and the hook. Built only into libd12rt_fi.so, without the forced include (this file calls
 * the real allocator). */
#define _GNU_SOURCE

#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cfgfile/d12_envnum.h"
#include "d12_fault.h"
#include "fault.h"

#define D12_FAULT_EXPORT __attribute__((visibility("default")))

enum { ALLOC, DDI, KINDS };

/* One arming: the call number of each kind that fails (0: none), the calls counted, the failures made. */
typedef struct countdown {
    bool used; /* armed at least once on this thread: the getters answer its counts */
    bool armed;
    uint64_t fail_at[KINDS];
    uint64_t count[KINDS];
    uint64_t injected;
} countdown;

/* d12_fault_arm: the calling thread's (deterministic whatever other threads do). */
static _Thread_local countdown t_local;

/* D12RT_FAULT_ALLOC / D12RT_FAULT_DDI: every thread's, fixed when the library loads. */
static struct {
    bool armed;
    uint64_t fail_at[KINDS];
    _Atomic uint64_t count[KINDS];
    _Atomic uint64_t injected;
} g_process;

static uint64_t env_number(const char *name)
{
    uint64_t value = 0;
    d12_env_number(name, "a call number (0: off)", 0, UINT64_MAX, true, &value, stderr, "d12rt", "ignored");
    return value;
}

__attribute__((constructor)) static void arm_from_environment(void)
{
    g_process.fail_at[ALLOC] = env_number("D12RT_FAULT_ALLOC");
    g_process.fail_at[DDI] = env_number("D12RT_FAULT_DDI");
    g_process.armed = g_process.fail_at[ALLOC] || g_process.fail_at[DDI];
}

/* D12RT_FAULT_BACKTRACE=1: the stack of each injected failure on stderr (which call site a sweep's N is). */
static void show_injection(int kind)
{
    static int wanted = -1;
    if (wanted < 0) {
        const char *text = getenv("D12RT_FAULT_BACKTRACE");
        wanted = text && *text && strcmp(text, "0") != 0;
    }
    if (!wanted)
        return;
    void *frames[32];
    int count = backtrace(frames, 32);
    fprintf(stderr, "d12rt: injected failure of %s:\n", kind == ALLOC ? "an allocation" : "a driver call");
    backtrace_symbols_fd(frames, count, 2);
}

/* Count one call of `kind`; whether it is the one to fail. */
static bool fails(int kind)
{
    if (t_local.armed) {
        if (++t_local.count[kind] != t_local.fail_at[kind])
            return false;
        t_local.injected++;
        show_injection(kind);
        return true;
    }
    if (!g_process.armed)
        return false;
    uint64_t n = atomic_fetch_add_explicit(&g_process.count[kind], 1, memory_order_relaxed) + 1;
    if (n != g_process.fail_at[kind])
        return false;
    atomic_fetch_add_explicit(&g_process.injected, 1, memory_order_relaxed);
    show_injection(kind);
    return true;
}

bool d12__fault_ddi_fails(void)
{
    return fails(DDI);
}

/* ---- The allocation wrappers (fault_alloc.h) ---- */

#define FAIL_ALLOCATION()                                                                                         \
    do {                                                                                                          \
        if (fails(ALLOC)) {                                                                                       \
            errno = ENOMEM;                                                                                       \
            return NULL;                                                                                          \
        }                                                                                                         \
    } while (0)

void *d12__fault_malloc(size_t size)
{
    FAIL_ALLOCATION();
    return malloc(size);
}

void *d12__fault_calloc(size_t count, size_t size)
{
    FAIL_ALLOCATION();
    return calloc(count, size);
}

/* A failed realloc leaves the block as it was, as the real one does. */
void *d12__fault_realloc(void *pointer, size_t size)
{
    FAIL_ALLOCATION();
    return realloc(pointer, size);
}

void *d12__fault_aligned_alloc(size_t alignment, size_t size)
{
    FAIL_ALLOCATION();
    return aligned_alloc(alignment, size);
}

int d12__fault_posix_memalign(void **out, size_t alignment, size_t size)
{
    if (fails(ALLOC))
        return ENOMEM;
    return posix_memalign(out, alignment, size);
}

char *d12__fault_strdup(const char *text)
{
    FAIL_ALLOCATION();
    return strdup(text);
}

char *d12__fault_strndup(const char *text, size_t size)
{
    FAIL_ALLOCATION();
    return strndup(text, size);
}

/* ---- The hook (d12_fault.h) ---- */

D12_FAULT_EXPORT void d12_fault_arm(uint64_t alloc_nth, uint64_t ddi_nth)
{
    t_local = (countdown){.used = true, .armed = true, .fail_at = {alloc_nth, ddi_nth}};
}

D12_FAULT_EXPORT void d12_fault_disarm(void)
{
    t_local.armed = false;
}

D12_FAULT_EXPORT uint64_t d12_fault_allocations(void)
{
    return t_local.used ? t_local.count[ALLOC] : atomic_load(&g_process.count[ALLOC]);
}

D12_FAULT_EXPORT uint64_t d12_fault_ddi_calls(void)
{
    return t_local.used ? t_local.count[DDI] : atomic_load(&g_process.count[DDI]);
}

D12_FAULT_EXPORT uint64_t d12_fault_injected(void)
{
    return t_local.used ? t_local.injected : atomic_load(&g_process.injected);
}
