/* d12conform: failure reporting inside a child, the DDI trace and the checks over it (docs/conformance.md,
 * "The DDI trace"). */
#include "conform.h"

/* ======== failure reporting inside a child ======== */

outcome g_result = PASS;

void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stdout, "    ");
    vfprintf(stdout, format, args);
    fputc('\n', stdout);
    va_end(args);
    g_result = FAIL;
}

void sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* ======== the DDI trace (docs/conformance.md, "The DDI trace") ======== */

char g_trace_path[PATH_MAX];

void trace_free(trace *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->r[i].line);
    free(t->r);
    t->r = NULL;
    t->count = 0;
}

/* The trace as written so far (the runtime writes each line before the call it describes returns). */
trace trace_read(void)
{
    trace t = {0};
    FILE *file = fopen(g_trace_path, "r");
    char *line = NULL;
    size_t size = 0, capacity = 0;
    ssize_t length;
    while (file && (length = getline(&line, &size, file)) > 0) {
        if (line[0] != '>' && line[0] != '<')
            continue;
        if (line[length - 1] == '\n')
            line[length - 1] = '\0';
        if (t.count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            t.r = realloc(t.r, capacity * sizeof *t.r);
        }
        record *r = &t.r[t.count++];
        memset(r, 0, sizeof *r);
        r->dir = line[0];
        r->line = strdup(line);
        if (r->dir == '>')
            sscanf(line, "> #%lu t=%*d %63s", &r->id, r->name);
        else
            sscanf(line, "< t=%*d %63s", r->name);
    }
    free(line);
    if (file)
        fclose(file);
    return t;
}

/* The value of `key=` in a record, or NULL. The line is scanned token by token, a quoted value (\" and \\ escaped)
 * being one token, so a description that contains " hr=" cannot be mistaken for the field. */
const char *field(const record *r, const char *key, char *out, size_t size)
{
    size_t key_length = strlen(key);
    for (const char *p = r->line; *p;) {
        while (*p == ' ')
            p++;
        const char *equals = strchr(p, '=');
        const char *space = strchr(p, ' ');
        bool match = equals && (!space || equals < space) && (size_t)(equals - p) == key_length &&
                     strncmp(p, key, key_length) == 0;
        const char *v = equals && (!space || equals < space) ? equals + 1 : p;
        size_t n = 0;
        if (*v == '"') {
            for (v++; *v && *v != '"'; v++) {
                char c = *v;
                if (*v == '\\' && v[1] == 'n') {
                    c = '\n';
                    v++;
                } else if (*v == '\\' && v[1] == 'x' && v[2] && v[3]) {
                    char hex[3] = {v[2], v[3], 0};
                    c = (char)strtol(hex, NULL, 16);
                    v += 3;
                } else if (*v == '\\' && v[1]) {
                    c = *++v;
                }
                if (match && n + 1 < size)
                    out[n++] = c;
            }
            if (*v == '"')
                v++;
        } else {
            for (; *v && *v != ' '; v++) {
                if (match && n + 1 < size)
                    out[n++] = *v;
            }
        }
        if (match) {
            out[n] = '\0';
            return out;
        }
        p = v;
    }
    return NULL;
}

unsigned long long field_u(const record *r, const char *key)
{
    char buffer[64];
    return field(r, key, buffer, sizeof buffer) ? strtoull(buffer, NULL, 0) : ~0ull;
}

bool is(const record *r, const char *name)
{
    return strcmp(r->name, name) == 0;
}

/* How many records named `name` the trace holds right now. */
size_t count_now(const char *name)
{
    trace t = trace_read();
    size_t n = 0;
    for (size_t i = 0; i < t.count; i++)
        n += is(&t.r[i], name);
    trace_free(&t);
    return n;
}

/* The `in=` call name of a callback record ("-" when none). */
const char *inside(const record *r, char *out, size_t size)
{
    if (!field(r, "in", out, size))
        return "-";
    char *colon = strchr(out, ':');
    return colon ? colon + 1 : out;
}

size_t devices_of(const trace *t, device_life *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++) {
        const record *r = &t->r[i];
        if (is(r, "pfnCreateDevice") && n < max) {
            field(r, "hRTDevice", out[n].rt, sizeof out[n].rt);
            field(r, "hDrvDevice", out[n].drv, sizeof out[n].drv);
            out[n].created = i;
            out[n].destroyed = SIZE_MAX;
            n++;
        } else if (is(r, "pfnDestroyDevice")) {
            char h[32];
            field(r, "hDevice", h, sizeof h);
            for (size_t d = n; d-- > 0;) {
                if (out[d].destroyed == SIZE_MAX && strcmp(out[d].drv, h) == 0) {
                    out[d].destroyed = i;
                    break;
                }
            }
        }
    }
    return n;
}


/* ======== checks over the trace ======== */

size_t count_records(const trace *t, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += is(&t->r[i], name);
    return n;
}

/* The feature's own DDI never called (the device was not enabled). */
void expect_feature_off(const trace *t, const char *why)
{
    size_t enables = count_records(t, "pfnEnableExtendedFeature"), flushes = count_records(t, "pfnFlushDriverReportedMessages"),
           indices = count_records(t, "pfnSetCommandListStateIndex");
    EXPECT(enables == 0, "%s: pfnEnableExtendedFeature was called %zu times", why, enables);
    EXPECT(flushes == 0, "%s: pfnFlushDriverReportedMessages was called %zu times", why, flushes);
    EXPECT(indices == 0, "%s: pfnSetCommandListStateIndex was called %zu times", why, indices);
    for (size_t i = 0; i < t->count; i++) {
        char type[16];
        if (is(&t->r[i], "pfnFillDDITable") && field(&t->r[i], "tableType", type, sizeof type) && atoi(type) == 47)
            fail("%s: the driver-reported-messages table (47) was filled", why);
    }
}

bool feature_advertised(const trace *t)
{
    /* the driver listed feature 32 when the runtime asked for its versions */
    for (size_t i = 0; i < t->count; i++) {
        if (is(&t->r[i], "pfnGetSupportedExtendedFeatureVersions") && field_u(&t->r[i], "Feature") == 32)
            return true;
    }
    return false;
}

void expect_feature_on(const trace *t)
{
    size_t enables = count_records(t, "pfnEnableExtendedFeature");
    EXPECT(enables == 1, "pfnEnableExtendedFeature was called %zu times (expected once)", enables);
}


/* Whether the runtime issued `index` before record `before`. */
bool issued(const trace *t, size_t before, unsigned long long index)
{
    for (size_t i = 0; i < before; i++) {
        if (is(&t->r[i], "pfnSetCommandListStateIndex") && field_u(&t->r[i], "CommandListStateIndex") == index)
            return true;
    }
    return false;
}
