/* Programs of several named cases, each its own CTest test: `PROGRAM CASE` runs one (after `setup`, whose non-zero
 * answer is the exit code: 77 skips), `PROGRAM --list` names them. Used with harness.h. */
#ifndef D12_TEST_CASE_MAIN_H
#define D12_TEST_CASE_MAIN_H

#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct d12test_case {
    const char *name;
    void (*run)(const void *arg);
    const void *arg;
} d12test_case;

static inline int d12test_case_main(int argc, char **argv, const d12test_case *cases, size_t count,
                                    int (*setup)(void))
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", cases[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE | --list\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < count; i++)
        if (strcmp(cases[i].name, argv[1]) == 0) {
            int rc = setup ? setup() : 0;
            if (rc)
                return rc;
            cases[i].run(cases[i].arg);
            return d12test_finish();
        }
    fprintf(stderr, "%s: no case '%s'\n", argv[0], argv[1]);
    return 2;
}

#endif
