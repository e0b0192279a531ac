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
    return s->object;
}

void d12__rthandle_release(const void *token)
{
    slot *s;
    uint32_t generation;
    if (decode(token, &s, &generation))
        atomic_fetch_sub(&s->uses, 1);
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
