/* Shared by runtime/dxbc's files, not part of dxbc.h. */
#ifndef D12_DXBC_INTERNAL_H
#define D12_DXBC_INTERNAL_H

#include <stddef.h>

/* Writes the message into `error` (when error_size > 0) and returns -1: every parser's refusal. */
int d12__dxbc_fail(char *error, size_t error_size, const char *format, ...) __attribute__((format(printf, 3, 4)));

#endif
