/* d12conform's version-2 tests (tools/d12conform_v2.c; docs/driver-reported-messages-v2.md "Conformance"): the
 * suite lists them after the version-1 tests and runs each in its own process like the others. A test returns 0
 * (passed), 1 (failed) or 3 (not exercised: a version-1 driver has no version-2 obligation to check). */
#ifndef D12CONFORM_V2_H
#define D12CONFORM_V2_H

#include <stddef.h>

typedef struct d12conform_v2_test {
    const char *name;
    const char *checks; /* "driver" or "runtime" */
    const char *spec;   /* the sentence of the delta it checks */
    int (*run)(void);
} d12conform_v2_test;

extern const d12conform_v2_test d12conform_v2_tests[];
extern const size_t d12conform_v2_test_count;

#endif
