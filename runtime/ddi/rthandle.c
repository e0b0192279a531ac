/* Generation-checked runtime handles (rthandle.h). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rthandle.h"

typedef struct slot {
    _Atomic uint32_t generation; /* the generation a live token of this slot carries; bumped at unregister */
    _Atomic uint32_t uses;       /* acquires in flight */
    _Atomic bool live;
    void *object;                /* written before `live` is set (release), read after it is seen (acquire) */
} slot;

static slot g_slots[D12_RTHANDLE_SLOTS];

/* The uses the calling thread holds, innermost last (issue 17 item 7.1): an application callback run from inside a
 * driver callback may drop the last reference to the device whose token that callback holds, and unregistering
 * would then wait for its own thread's use for ever. d12__rthandle_defer finds the thread's outermost use and hands
 * it the rest of the destruction, which runs once that use is given back. Uses nest (a callback into the runtime
 * that calls the driver, which calls back); beyond SCOPE_DEPTH nested uses the deeper ones are counted, not kept. */
#define SCOPE_DEPTH 16u
typedef struct scope {
    const void *token;
    void (*deferred)(void *);
    void *argument;
} scope;
static _Thread_local scope t_scopes[SCOPE_DEPTH];
static _Thread_local unsigned t_depth;

static void scope_push(const void *token)
{
    if (t_depth < SCOPE_DEPTH)
        t_scopes[t_depth] = (scope){token, NULL, NULL};
    t_depth++;
}

/* Pop the innermost use of `token` (uses are given back innermost first; a use given back out of order is found
 * by its token), returning the destruction it was handed, if any. */
static scope scope_pop(const void *token)
{
    scope popped = {token, NULL, NULL};
    if (t_depth == 0)
        return popped;
    if (t_depth > SCOPE_DEPTH) {
        t_depth--;
        return popped;
    }
    unsigned i = t_depth;
    while (i > 0 && t_scopes[i - 1].token != token)
        i--;
    if (i == 0)
        return popped; /* not acquired on this thread: a plain release */
    popped = t_scopes[i - 1];
    for (; i < t_depth; i++)
        t_scopes[i - 1] = t_scopes[i];
    t_depth--;
    return popped;
}
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* register/unregister; a leaf */

static bool decode(const void *token, slot **out, uint32_t *generation)
{
    uintptr_t value = (uintptr_t)token;
    uintptr_t index = value & 0xFFFFu;
    if (value >> 48 || index == 0 || index > D12_RTHANDLE_SLOTS) /* a serial (or garbage) is no token */
        return false;
    *out = &g_slots[index - 1];
    *generation = (uint32_t)(value >> 16);
    return true;
}

HRESULT d12__rthandle_register(void *object, void **token)
{
    *token = NULL;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < D12_RTHANDLE_SLOTS; i++) {
        slot *s = &g_slots[i];
        if (atomic_load(&s->live) || atomic_load(&s->uses))
            continue;
        /* Generation 0 is never handed out, so no token of a fresh slot matches by accident. */
        uint32_t generation = atomic_load(&s->generation) + 1;
        if (generation == 0)
            generation = 1;
        atomic_store(&s->generation, generation);
        s->object = object;
        atomic_store(&s->live, true);
        pthread_mutex_unlock(&g_lock);
        *token = (void *)(((uintptr_t)generation << 16) | (uintptr_t)(i + 1));
        return S_OK;
    }
    pthread_mutex_unlock(&g_lock);
    return E_OUTOFMEMORY;
}

void *d12__rthandle_acquire(const void *token)
{
    slot *s;
    uint32_t generation;
    if (!decode(token, &s, &generation))
        return NULL;
    /* Count the use first, then check (seq_cst on both sides, like unregister): either unregister sees this use
     * and waits for it, or this sees the bumped generation and backs out. */
    atomic_fetch_add(&s->uses, 1);
    if (atomic_load(&s->generation) != generation || !atomic_load(&s->live)) {
        atomic_fetch_sub(&s->uses, 1);
        return NULL;
    }
    scope_push(token);
    return s->object;
}

void d12__rthandle_release(const void *token)
{
    slot *s;
    uint32_t generation;
    if (!decode(token, &s, &generation))
        return;
    scope popped = scope_pop(token);
    atomic_fetch_sub(&s->uses, 1);
    if (popped.deferred)
        popped.deferred(popped.argument); /* the thread's outermost use is over: the destruction it put off */
}

bool d12__rthandle_defer(const void *token, void (*destroy)(void *), void *argument)
{
    unsigned kept = t_depth < SCOPE_DEPTH ? t_depth : SCOPE_DEPTH;
    for (unsigned i = 0; token && i < kept; i++) {
        if (t_scopes[i].token == token) {
            if (t_scopes[i].deferred)
                return false; /* one destruction per object */
            t_scopes[i].deferred = destroy;
            t_scopes[i].argument = argument;
            return true;
        }
    }
    return false;
}

void *d12__rthandle_serial(void)
{
    static _Atomic uint64_t next = 1;
    return (void *)(D12_RTHANDLE_SERIAL_TAG | (uintptr_t)atomic_fetch_add_explicit(&next, 1, memory_order_relaxed));
}

void d12__rthandle_unregister(const void *token)
{
    slot *s;
    uint32_t generation;
    if (!token || !decode(token, &s, &generation))
        return;
    pthread_mutex_lock(&g_lock);
    if (atomic_load(&s->generation) == generation && atomic_load(&s->live)) {
        atomic_store(&s->live, false);
        atomic_store(&s->generation, generation + 1);
    }
    pthread_mutex_unlock(&g_lock);
    while (atomic_load(&s->uses) != 0)
        sched_yield();
}
