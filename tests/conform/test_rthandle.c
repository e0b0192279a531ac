/* ctest conform.rthandle_*: generation-checked runtime handles (runtime/rthandle.h, issue 10 item 4).
 *   rthandle_live       a registered token resolves to its object (and keeps resolving while a use is held)
 *   rthandle_stale      after unregister the token resolves to nothing; a slot reused later gets another token
 *                       and the old one still resolves to nothing
 *   rthandle_foreign    NULL, a raw pointer, slot 0, a slot past the table: nothing (no read through any of them)
 *   rthandle_race       threads acquiring while the token is unregistered: once unregister returned, no use is in
 *                       flight and none starts */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "rthandle.h"

static int g_object_a, g_object_b;

static void live(void)
{
    void *token = NULL;
    CHECK_EQ_INT(d12__rthandle_register(&g_object_a, &token), S_OK);
    CHECK(token != NULL && token != (void *)&g_object_a);
    CHECK(d12__rthandle_acquire(token) == &g_object_a);
    CHECK(d12__rthandle_acquire(token) == &g_object_a);
    d12__rthandle_release(token);
    d12__rthandle_release(token);
    d12__rthandle_unregister(token);
}

static void stale(void)
{
    void *first = NULL, *second = NULL;
    CHECK_EQ_INT(d12__rthandle_register(&g_object_a, &first), S_OK);
    d12__rthandle_unregister(first);
    CHECK(d12__rthandle_acquire(first) == NULL);
    CHECK_EQ_INT(d12__rthandle_register(&g_object_b, &second), S_OK);
    CHECK(second != first);
    CHECK(d12__rthandle_acquire(first) == NULL); /* even if the slot is the same one */
    CHECK(d12__rthandle_acquire(second) == &g_object_b);
    d12__rthandle_release(second);
    d12__rthandle_unregister(second);
    d12__rthandle_unregister(first); /* twice: ignored */
    CHECK(d12__rthandle_acquire(second) == NULL);
}

static void foreign(void)
{
    CHECK(d12__rthandle_acquire(NULL) == NULL);
    CHECK(d12__rthandle_acquire(&g_object_a) == NULL); /* a pointer: its generation bits match no live slot */
    CHECK(d12__rthandle_acquire((void *)(uintptr_t)0x10000) == NULL);                        /* slot 0 */
    CHECK(d12__rthandle_acquire((void *)(uintptr_t)(0x10000 | (D12_RTHANDLE_SLOTS + 1))) == NULL); /* past the end */
    void *token = NULL;
    CHECK_EQ_INT(d12__rthandle_register(&g_object_a, &token), S_OK);
    CHECK(d12__rthandle_acquire((void *)((uintptr_t)token + 0x10000)) == NULL); /* right slot, wrong generation */
    d12__rthandle_unregister(token);
}

static void *token_g;
static atomic_bool stop, after_unregister;
static atomic_int in_use, violations;

static void *acquirer(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        if (d12__rthandle_acquire(token_g)) {
            if (atomic_load(&after_unregister))
                atomic_fetch_add(&violations, 1); /* a use that started after unregister returned */
            atomic_fetch_add(&in_use, 1);
            atomic_fetch_sub(&in_use, 1);
            d12__rthandle_release(token_g);
        }
    }
    return NULL;
}

static void race(void)
{
    for (int round = 0; round < 50; round++) {
        CHECK_EQ_INT(d12__rthandle_register(&g_object_a, &token_g), S_OK);
        atomic_store(&stop, false);
        atomic_store(&after_unregister, false);
        pthread_t threads[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&threads[i], NULL, acquirer, NULL);
        d12__rthandle_unregister(token_g);
        atomic_store(&after_unregister, true);
        CHECK_EQ_INT(atomic_load(&in_use), 0);
        atomic_store(&stop, true);
        for (int i = 0; i < 4; i++)
            pthread_join(threads[i], NULL);
    }
    CHECK_EQ_INT(atomic_load(&violations), 0);
}

int main(int argc, char **argv)
{
    const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"live", live}, {"stale", stale}, {"foreign", foreign}, {"race", race}};
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    return 2;
}
