/* Shared helpers of the driver tests: capture what a call prints on stderr, write a temporary file, and read
 * a feature struct's field by name through libd12caps' layout tables (so a test names fields, not offsets). */
#ifndef D12_DRIVER_TEST_H
#define D12_DRIVER_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12caps.h"
#include "harness.h"

static int d12t_saved_stderr = -1;
static FILE *d12t_capture;

/* Send fd 2 to a temporary file until capture_end(). */
static inline void capture_begin(void)
{
    fflush(stderr);
    d12t_capture = tmpfile();
    d12t_saved_stderr = dup(2);
    dup2(fileno(d12t_capture), 2);
}

/* Restore stderr; return everything written meanwhile (malloc'd, NUL-terminated). */
static inline char *capture_end(void)
{
    fflush(stderr);
    dup2(d12t_saved_stderr, 2);
    close(d12t_saved_stderr);
    long size = ftell(d12t_capture);
    char *text = (char *)calloc(1, (size_t)(size > 0 ? size : 0) + 1);
    rewind(d12t_capture);
    if (size > 0 && fread(text, 1, (size_t)size, d12t_capture) != (size_t)size)
        text[0] = '\0';
    fclose(d12t_capture);
    return text;
}

/* Write `text` to a new temporary file; returns its path (static buffer, one at a time). */
static inline const char *temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/d12-driver-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return NULL;
    close(fd);
    return path;
}

static inline const d12_caps_field *field_named(UINT feature, UINT size, const char *name)
{
    const d12_caps_feature *found = d12_caps_find_feature(feature);
    for (uint32_t l = 0; found && l < found->layout_count; l++) {
        const d12_caps_layout *layout = &found->layouts[l];
        for (uint32_t i = 0; layout->size == size && i < layout->field_count; i++) {
            if (!strcmp(layout->fields[i].name, name))
                return &layout->fields[i];
        }
    }
    return NULL;
}

/* A field's value (sign-extended from 4 bytes: tiers and BOOLs are small); -999 when there is no such field. */
static inline int64_t field_value(UINT feature, const void *data, UINT size, const char *name)
{
    const d12_caps_field *field = field_named(feature, size, name);
    if (!field || field->size > sizeof(int64_t))
        return -999; /* none, or opaque data (e.g. a WCHAR array) */
    int64_t value = 0;
    memcpy(&value, (const unsigned char *)data + field->offset, field->size);
    if (field->size == 4)
        value = (int32_t)value;
    return value;
}

#endif
