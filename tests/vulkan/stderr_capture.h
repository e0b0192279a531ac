/* What the process writes on stderr between two calls, for tests of the Vulkan driver's warnings and loss records
 * (they go to stderr by design). Every thread's writes are captured (descriptor 2 itself is redirected); the text is
 * also written to the real stderr afterwards, so it stays in the test's log. */
#ifndef D12RT_TESTS_VULKAN_STDERR_CAPTURE_H
#define D12RT_TESTS_VULKAN_STDERR_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct stderr_capture {
    int file, saved;
} stderr_capture;

/* false: no temporary file (the capture is off; stderr_capture_end then gives ""). */
static inline bool stderr_capture_begin(stderr_capture *c)
{
    char path[] = "/tmp/d12rt-stderr-XXXXXX";
    c->file = mkstemp(path);
    c->saved = -1;
    if (c->file < 0)
        return false;
    unlink(path);
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    dup2(c->file, STDERR_FILENO);
    return true;
}

/* stderr back as it was; `text` (of `size` bytes) holds what was written, NUL-terminated and cut to fit. */
static inline const char *stderr_capture_end(stderr_capture *c, char *text, size_t size)
{
    text[0] = '\0';
    if (c->file < 0)
        return text;
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    ssize_t n = pread(c->file, text, size - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    close(c->file);
    fputs(text, stderr);
    return text;
}

#endif
