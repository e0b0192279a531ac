/* Shared by the fuzz targets of tests/fuzz: reading typed values from the fuzzer's bytes (zeros once they run out,
 * so every input is a complete program), a check that aborts with the promise it broke, and the replay driver
 * (D12_FUZZ_REPLAY: a plain program that runs every file, or every file of every directory, it is given, and ends
 * with `N passed, 0 failed`; without it, libFuzzer's main runs the target). */
#ifndef D12_FUZZ_INPUT_H
#define D12_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size, pos;
} fuzz_input;

static inline uint8_t fuzz_u8(fuzz_input *in)
{
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fuzz_u8(in) << (8 * i);
    return v;
}

static inline int fuzz_done(const fuzz_input *in)
{
    return in->pos >= in->size;
}

/* Up to `max` bytes into `out` (NUL-terminated, never containing a NUL itself); returns the length. */
static inline size_t fuzz_text(fuzz_input *in, char *out, size_t max)
{
    size_t n = fuzz_u8(in) % (max + 1), i;
    for (i = 0; i < n && !fuzz_done(in); i++) {
        uint8_t c = fuzz_u8(in);
        out[i] = (char)(c ? c : 'x');
    }
    out[i] = '\0';
    return i;
}

#define FUZZ_CHECK(name, cond)                                                                                     \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "%s: broken promise at %s:%d: %s\n", name, __FILE__, __LINE__, #cond);                 \
            abort();                                                                                               \
        }                                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef D12_FUZZ_REPLAY
#include <dirent.h>
#include <sys/stat.h>

static int fuzz_replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        exit(1);
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: a read past the input is a sanitizer report */
    memcpy(copy, buf, n);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 1;
}

static int fuzz_replay_sort(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int fuzz_replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no %s\n", path);
        exit(1);
    }
    if (!S_ISDIR(st.st_mode))
        return fuzz_replay_file(path);
    DIR *dir = opendir(path);
    char *names[4096];
    int count = 0, done = 0;
    for (struct dirent *e; dir && (e = readdir(dir)) != NULL && count < 4096;)
        if (e->d_name[0] != '.')
            names[count++] = strdup(e->d_name);
    if (dir)
        closedir(dir);
    qsort(names, (size_t)count, sizeof names[0], fuzz_replay_sort);
    for (int i = 0; i < count; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        done += fuzz_replay_path(file);
        free(names[i]);
    }
    return done;
}

int main(int argc, char **argv)
{
    int done = 0;
    for (int i = 1; i < argc; i++)
        done += fuzz_replay_path(argv[i]);
    printf("%d passed, 0 failed\n", done);
    return done > 0 ? 0 : 1;
}
#endif

#endif
