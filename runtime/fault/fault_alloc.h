/* Forced-included (`-include`) into every runtime source of the failure-injection build (libd12rt_fi.so,
 * runtime/fault/CMakeLists.txt; docs/reliability.md "Failure injection"), and into nothing else: the runtime's
 * allocation calls become counting wrappers (runtime/fault/fault.c) that make exactly the Nth one fail, while the
 * driver, the tools and the tests keep the real allocator. No system header is included here (the sources decide
 * their feature macros, `_GNU_SOURCE` first): the libc declarations that follow are rewritten by the same macros
 * into compatible declarations of the wrappers. */
#ifndef D12_FAULT_ALLOC_H
#define D12_FAULT_ALLOC_H

void *d12__fault_malloc(__SIZE_TYPE__ size);
void *d12__fault_calloc(__SIZE_TYPE__ count, __SIZE_TYPE__ size);
void *d12__fault_realloc(void *pointer, __SIZE_TYPE__ size);
void *d12__fault_aligned_alloc(__SIZE_TYPE__ alignment, __SIZE_TYPE__ size);
int d12__fault_posix_memalign(void **out, __SIZE_TYPE__ alignment, __SIZE_TYPE__ size);
char *d12__fault_strdup(const char *text);
char *d12__fault_strndup(const char *text, __SIZE_TYPE__ size);

#define malloc(size) d12__fault_malloc(size)
#define calloc(count, size) d12__fault_calloc(count, size)
#define realloc(pointer, size) d12__fault_realloc(pointer, size)
#define aligned_alloc(alignment, size) d12__fault_aligned_alloc(alignment, size)
#define posix_memalign(out, alignment, size) d12__fault_posix_memalign(out, alignment, size)
#define strdup(text) d12__fault_strdup(text)
#define strndup(text, size) d12__fault_strndup(text, size)

#endif
