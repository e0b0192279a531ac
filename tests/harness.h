/* A minimal test harness: CHECK_* record failures with file:line and keep going; every test program ends
 * with `return d12test_finish();`, which prints the closing line `N passed, N failed` and returns non-zero
 * when anything failed. */
#ifndef D12_TEST_HARNESS_H
#define D12_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned d12test_passed, d12test_failed;

/* Checks may run on several threads at once (threading tests): the counters are bumped atomically (GCC/Clang
 * builtins, so the header serves C and C++ alike). */
static inline int d12test_record(int ok, const char *file, int line, const char *what)
{
    if (ok) {
        __atomic_fetch_add(&d12test_passed, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&d12test_failed, 1, __ATOMIC_RELAXED);
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) d12test_record(!!(cond), __FILE__, __LINE__, #cond)

#define CHECK_EQ_INT(actual, expected)                                                                  \
    do {                                                                                                \
        long long d12t_a_ = (long long)(actual), d12t_e_ = (long long)(expected);                       \
        if (!d12test_record(d12t_a_ == d12t_e_, __FILE__, __LINE__, #actual " == " #expected))          \
            fprintf(stderr, "    actual %lld, expected %lld\n", d12t_a_, d12t_e_);                       \
    } while (0)

#define CHECK_EQ_STR(actual, expected)                                                                  \
    do {                                                                                                \
        const char *d12t_a_ = (actual), *d12t_e_ = (expected);                                          \
        int d12t_ok_ = d12t_a_ && d12t_e_ ? strcmp(d12t_a_, d12t_e_) == 0 : d12t_a_ == d12t_e_;         \
        if (!d12test_record(d12t_ok_, __FILE__, __LINE__, #actual " == " #expected))                    \
            fprintf(stderr, "    actual \"%s\", expected \"%s\"\n", d12t_a_ ? d12t_a_ : "(null)",        \
                    d12t_e_ ? d12t_e_ : "(null)");                                                      \
    } while (0)

static inline int d12test_finish(void)
{
    unsigned passed = __atomic_load_n(&d12test_passed, __ATOMIC_SEQ_CST);
    unsigned failed = __atomic_load_n(&d12test_failed, __ATOMIC_SEQ_CST);
    printf("%u passed, %u failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

#endif
