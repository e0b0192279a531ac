/* Tests of runtime/registry.c (the .reg parser, locations, per-application settings and the overlay) and of
 * tools/d12cfg end to end. One program; `test_registry NAME [D12CFG]` runs one case (a CTest test each).
 * harness.h counts per translation unit, so everything is in this file. */
#define _GNU_SOURCE /* setenv, open_memstream, mkdtemp */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "registry.h"

#define CU "HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\Direct3D12\\"
#define LM "HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Direct3D\\Direct3D12\\"
#define HDR "Windows Registry Editor Version 5.00\n\n"

static const char *d12cfg_path;
static char tmp_dir[64];

/* ---- helpers ---------------------------------------------------------------------------------------------- */

/* Parses `bytes`, collecting the warnings (one string) in *warnings. */
static d12_reg_file parse_bytes(const void *bytes, size_t size, char **warnings)
{
    size_t wsize = 0;
    FILE *w = open_memstream(warnings, &wsize);
    d12_reg_file f;
    int rc = d12__registry_parse_buffer(bytes, size, "t.reg", w, &f);
    fclose(w);
    CHECK_EQ_INT(rc, 0);
    return f;
}

static d12_reg_file parse_text(const char *text, char **warnings)
{
    return parse_bytes(text, strlen(text), warnings);
}

static unsigned count_lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The warning text contains exactly one line for `t.reg:N:` */
static unsigned warnings_for_line(const char *warnings, unsigned number)
{
    char tag[32];
    snprintf(tag, sizeof tag, "t.reg:%u:", number);
    unsigned n = 0;
    for (const char *p = warnings; (p = strstr(p, tag)); p++)
        n += p == warnings || p[-1] == '\n';
    return n;
}

static uint32_t dword_or(const d12_reg_file *f, const char *key, const char *name, uint32_t missing)
{
    uint32_t v = 0;
    return d12__registry_get_dword(f, key, name, &v, NULL) ? v : missing;
}

#define NONE 0xDEADBEEFu

static void write_file(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(fwrite(bytes, 1, size, f), size);
        fclose(f);
    }
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            buf = realloc(buf, cap);
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (size)
        *size = n;
    return buf;
}

static char *tmp_path(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", tmp_dir, name);
    return p;
}

static void make_tmp_dir(void)
{
    strcpy(tmp_dir, "/tmp/d12reg.XXXXXX");
    CHECK(mkdtemp(tmp_dir) != NULL);
    unsetenv("D12RT_APP_NAME");
    setenv("D12RT_HKCU", tmp_path("user.reg"), 1);
    setenv("D12RT_HKLM", tmp_path("system.reg"), 1);
}

static void remove_tmp_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* UTF-16LE with a BOM, as regedit exports. */
static unsigned char *utf16(const char *ascii, size_t *size)
{
    size_t n = strlen(ascii);
    unsigned char *b = malloc(2 * n + 2);
    b[0] = 0xFF;
    b[1] = 0xFE;
    for (size_t i = 0; i < n; i++) {
        b[2 + 2 * i] = (unsigned char)ascii[i];
        b[3 + 2 * i] = 0;
    }
    *size = 2 * n + 2;
    return b;
}

/* ---- parser ----------------------------------------------------------------------------------------------- */

static void test_utf16_bom_crlf(void)
{
    /* "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\S\Caf\u00e9]\r\n"V"=dword:0000000a\r\n" */
    static const unsigned char bytes[] = {
        0xFF, 0xFE, 'W', 0, 'i', 0, 'n', 0, 'd', 0, 'o', 0, 'w', 0, 's', 0, ' ', 0, 'R', 0, 'e', 0, 'g', 0, 'i', 0,
        's', 0, 't', 0, 'r', 0, 'y', 0, ' ', 0, 'E', 0, 'd', 0, 'i', 0, 't', 0, 'o', 0, 'r', 0, ' ', 0, 'V', 0,
        'e', 0, 'r', 0, 's', 0, 'i', 0, 'o', 0, 'n', 0, ' ', 0, '5', 0, '.', 0, '0', 0, '0', 0, '\r', 0, '\n', 0,
        '\r', 0, '\n', 0, '[', 0, 'H', 0, 'K', 0, 'E', 0, 'Y', 0, '_', 0, 'C', 0, 'U', 0, 'R', 0, 'R', 0, 'E', 0,
        'N', 0, 'T', 0, '_', 0, 'U', 0, 'S', 0, 'E', 0, 'R', 0, '\\', 0, 'S', 0, '\\', 0, 'C', 0, 'a', 0, 'f', 0,
        0xE9, 0, ']', 0, '\r', 0, '\n', 0, '"', 0, 'V', 0, '"', 0, '=', 0, 'd', 0, 'w', 0, 'o', 0, 'r', 0, 'd', 0,
        ':', 0, '0', 0, '0', 0, '0', 0, '0', 0, '0', 0, '0', 0, '0', 0, 'a', 0, '\r', 0, '\n', 0};
    char *w;
    d12_reg_file f = parse_bytes(bytes, sizeof bytes, &w);
    CHECK_EQ_INT(f.encoding, D12_REG_UTF16LE);
    CHECK(f.crlf);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_STR(w, "");
    CHECK_EQ_INT(dword_or(&f, "HKEY_CURRENT_USER\\S\\Caf\xC3\xA9", "V", NONE), 10);
    CHECK_EQ_INT(f.lines[3].number, 4);
    d12__registry_free(&f);
    free(w);

    /* a surrogate pair, an unpaired surrogate and a dangling byte decode without failing */
    static const unsigned char odd[] = {0xFF, 0xFE, ';', 0, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, '\n', 0, 'x'};
    f = parse_bytes(odd, sizeof odd, &w);
    CHECK(strstr(f.text, "\xF0\x9F\x98\x80\xEF\xBF\xBD\n\xEF\xBF\xBD") != NULL);
    CHECK_EQ_INT(f.warnings, 1); /* the last line, U+FFFD, is not a .reg line */
    d12__registry_free(&f);
    free(w);
}

static void test_utf8(void)
{
    const char *text = HDR "[" CU "App]\n\"EnableDriverReportedMessagesOr\"=dword:00000001\n";
    char *w;
    d12_reg_file f = parse_text(text, &w);
    CHECK_EQ_INT(f.encoding, D12_REG_UTF8);
    CHECK(!f.crlf);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "App", "EnableDriverReportedMessagesOr", NONE), 1);
    d12__registry_free(&f);
    free(w);

    char bom[256];
    snprintf(bom, sizeof bom, "\xEF\xBB\xBF%s", text);
    f = parse_text(bom, &w);
    CHECK_EQ_INT(f.encoding, D12_REG_UTF8_BOM);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "App", "EnableDriverReportedMessagesOr", NONE), 1);
    d12__registry_free(&f);
    free(w);

    f = parse_text("REGEDIT4\r\n[" CU "App]\r\n\"A\"=dword:2\r\n", &w);
    CHECK(f.crlf);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "App", "A", NONE), 2);
    d12__registry_free(&f);
    free(w);
}

static void test_comments(void)
{
    char *w;
    d12_reg_file f = parse_text("; leading comment\n\n" HDR "; a comment\n   \n\t; indented\n[" CU
                                "App]\n; between\n\"A\"=dword:00000003 ; trailing\n  \"B\"=dword:4\t\n",
                                &w);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_STR(w, "");
    CHECK_EQ_INT(dword_or(&f, CU "App", "A", NONE), 3);
    CHECK_EQ_INT(dword_or(&f, CU "App", "B", NONE), 4);
    d12__registry_free(&f);
    free(w);
}

static void test_deletions(void)
{
    char *w;
    d12_reg_file f = parse_text(HDR "[" CU "A]\n\"X\"=dword:1\n\"Y\"=dword:2\n\"X\"=-\n"
                                    "[" CU "B\\Sub]\n\"Z\"=dword:3\n[" CU "C]\n\"W\"=dword:4\n"
                                    "[-" CU "B]\n[-" CU "C]\n[" CU "C]\n",
                                &w);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "A", "X", NONE), NONE); /* "X"=- */
    CHECK_EQ_INT(dword_or(&f, CU "A", "Y", NONE), 2);
    CHECK_EQ_INT(dword_or(&f, CU "B\\Sub", "Z", NONE), NONE); /* [-parent] deletes the subkey */
    CHECK_EQ_INT(dword_or(&f, CU "C", "W", NONE), NONE);      /* re-created key starts empty */
    CHECK(!d12__registry_key_exists(&f, CU "B"));
    CHECK(!d12__registry_key_exists(&f, CU "B\\Sub"));
    CHECK(d12__registry_key_exists(&f, CU "C"));
    CHECK(d12__registry_key_exists(&f, CU "A"));
    CHECK(d12__registry_key_exists(&f, "HKEY_CURRENT_USER\\Software")); /* parents of a created key */
    /* a deletion of a sibling with a common prefix deletes nothing */
    d12__registry_free(&f);
    free(w);
    f = parse_text(HDR "[" CU "AB]\n\"X\"=dword:1\n[-" CU "A]\n", &w);
    CHECK_EQ_INT(dword_or(&f, CU "AB", "X", NONE), 1);
    d12__registry_free(&f);
    free(w);
}

static void test_case_insensitive(void)
{
    char *w;
    d12_reg_file f = parse_text(HDR "[hkey_current_user\\SOFTWARE\\microsoft\\Direct3D\\direct3d12\\MyApp]\n"
                                    "\"enabledriverreportedmessagesor\"=DWORD:0000000A\n",
                                &w);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "myapp", "EnableDriverReportedMessagesOr", NONE), 10);
    CHECK_EQ_INT(dword_or(&f, CU "myapp2", "EnableDriverReportedMessagesOr", NONE), NONE);
    CHECK(d12__registry_name_equal("AbC", "aBc"));
    CHECK(!d12__registry_name_equal("AbC", "aBcd"));
    d12__registry_free(&f);
    free(w);
}

static void test_value_types(void)
{
    char *w;
    d12_reg_file f = parse_text(HDR "[" CU "A]\n"
                                    "\"S\"=\"a \\\"quoted\\\" \\\\ string\"\n"
                                    "@=\"default\"\n"
                                    "\"B\"=hex:01,02,ff\n"
                                    "\"Q\"=hex(b):01,00,00,00,00,00,00,00\n"
                                    "\"D4\"=hex(4):2a,00,00,01\n"
                                    "\"D3\"=hex(4):2a,00,00\n"
                                    "\"E\"=hex:\n"
                                    "\"L\"=hex(7):41,00,\\\n"
                                    "  42,00,\\\n"
                                    "  00,00\n"
                                    "\"After\"=dword:7\n"
                                    "\"R\"=dword:1\n"
                                    "\"R\"=\"now a string\"\n",
                                &w);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_STR(w, "");
    CHECK_EQ_INT(dword_or(&f, CU "A", "D4", NONE), 0x0100002A);
    CHECK_EQ_INT(dword_or(&f, CU "A", "D3", NONE), NONE);
    CHECK_EQ_INT(dword_or(&f, CU "A", "S", NONE), NONE);
    CHECK_EQ_INT(dword_or(&f, CU "A", "R", NONE), NONE); /* a value of another type replaces the dword */
    unsigned line = 0;
    uint32_t v = 0;
    CHECK(d12__registry_get_dword(&f, CU "A", "After", &v, &line));
    CHECK_EQ_INT(line, 14); /* the continued value took three physical lines */
    int types = 0;
    for (size_t i = 0; i < f.count; i++) {
        const d12_reg_line *l = &f.lines[i];
        if (l->kind != D12_REG_LINE_VALUE)
            continue;
        if (!strcmp(l->name, "S"))
            types += l->type == D12_REG_SZ;
        if (!strcmp(l->name, ""))
            types += l->type == D12_REG_SZ;
        if (!strcmp(l->name, "B") || !strcmp(l->name, "E"))
            types += l->type == D12_REG_BINARY;
        if (!strcmp(l->name, "Q"))
            types += l->type == 0xB;
        if (!strcmp(l->name, "L"))
            types += l->type == 7 && l->number == 11;
    }
    CHECK_EQ_INT(types, 6);
    d12__registry_free(&f);
    free(w);
}

/* Every syntax rule: the valid form reads with no warning, the invalid form is skipped with exactly one warning
 * naming its line, and the lines around it still read. */
static const struct rule_case {
    const char *good, *bad;
} rule_cases[] = {
    {"[" CU "K]", "[" CU "K"},                             /* a key line ends with ']' */
    {"[" CU "K]", "[HKEY_NOWHERE\\K]"},                    /* a known root */
    {"[" CU "K]", "[" CU "\\K]"},                          /* no empty component */
    {"[" CU "K]", "[" CU "K\\]"},                          /* ... nor a trailing backslash */
    {"[" CU "K]", "[]"},                                   /* no empty key */
    {"\"V\"=dword:a", "\"V\"=dword:"},                     /* 1 to 8 hex digits */
    {"\"V\"=dword:0000000a", "\"V\"=dword:123456789"},     /* not 9 */
    {"\"V\"=dword:ffffffff", "\"V\"=dword:xyz"},           /* hex digits */
    {"\"V\"=dword:1 ; note", "\"V\"=dword:1 x"},           /* only a comment may follow */
    {"\"V\"=\"text\"", "\"V\"=\"text"},                    /* a terminated string */
    {"\"V\\\\x\"=dword:1", "\"V\\qx\"=dword:1"},           /* only \\ and \" escapes */
    {"\"V\"=dword:1", "\"V\" dword:1"},                    /* '=' after the name */
    {"\"V\"=dword:1", "\"V\"=qword:1"},                    /* a known data type */
    {"\"V\"=hex:01,02", "\"V\"=hex:01,,02"},               /* bytes separated by one ',' */
    {"\"V\"=hex:1,2", "\"V\"=hex:123"},                    /* one or two digits a byte */
    {"\"V\"=hex:01,02", "\"V\"=hex:01 02"},                /* ',' between bytes */
    {"\"V\"=hex(b):00", "\"V\"=hex(zz):00"},               /* hex(N) with hex N */
    {"\"V\"=hex(b):00", "\"V\"=hex(b)00"},                 /* ':' after the type */
    {"\"V\"=-", "\"V\"=- x"},                              /* a deletion is just '-' */
    {"; comment", "comment without a semicolon"},          /* anything else is malformed */
    {"", "Windows Registry Editor Version 5.00"},          /* the header once, first */
    {"\"V\"=dword:1", "\"V\"=dword:1\0"},                  /* (the NUL case is built below) */
};

static void check_rule(const char *line, bool good, size_t index)
{
    char text[1024];
    size_t n = (size_t)snprintf(text, sizeof text, HDR "[" CU "Before]\n\"X\"=dword:5\n%s\n[" CU "After]\n\"Y\"=dword:6\n", line);
    if (!good && index == sizeof rule_cases / sizeof rule_cases[0] - 1) {
        /* a NUL inside a line */
        char *p = strstr(text, "dword:1\n");
        memmove(p + 8, p + 7, n - (size_t)(p + 7 - text));
        p[7] = '\0';
        n++;
    }
    char *w;
    d12_reg_file f = parse_bytes(text, n, &w);
    CHECK_EQ_INT(dword_or(&f, CU "Before", "X", NONE), 5);
    CHECK_EQ_INT(dword_or(&f, CU "After", "Y", NONE), 6);
    if (good) {
        if (!d12test_record(f.warnings == 0 && !*w, __FILE__, __LINE__, "valid form reads without warning"))
            fprintf(stderr, "    line \"%s\": %s\n", line, w);
    } else {
        bool one = f.warnings == 1 && count_lines(w) == 1 && warnings_for_line(w, 5) == 1 &&
                   strstr(w, "line skipped") != NULL;
        if (!d12test_record(one, __FILE__, __LINE__, "invalid form skipped with one warning naming t.reg:5"))
            fprintf(stderr, "    line \"%s\": %s\n", line, w);
        CHECK_EQ_INT(f.lines[4].kind, D12_REG_LINE_MALFORMED);
    }
    d12__registry_free(&f);
    free(w);
}

static void test_malformed_rules(void)
{
    for (size_t i = 0; i < sizeof rule_cases / sizeof rule_cases[0]; i++) {
        check_rule(rule_cases[i].good, true, i);
        check_rule(rule_cases[i].bad, false, i);
    }
    /* a key component of 255 bytes is fine, 256 is not */
    char line[600];
    snprintf(line, sizeof line, "[" CU "%0255d]", 0);
    check_rule(line, true, 0);
    snprintf(line, sizeof line, "[" CU "%0256d]", 0);
    check_rule(line, false, 0);
}

static void test_malformed_many(void)
{
    char *w;
    d12_reg_file f = parse_text(HDR "\"Orphan\"=dword:1\n"         /* 3: value outside a key */
                                    "[" CU "A]\n"                  /* 4 */
                                    "junk\n"                       /* 5 */
                                    "\"V\"=dword:zz\n"             /* 6 */
                                    "\"Good\"=dword:1\n"           /* 7 */
                                    "[-" CU "A]\n"                 /* 8 */
                                    "\"AfterDelete\"=dword:1\n"    /* 9: value outside a key */
                                    "[" CU "A]\n"                  /* 10 */
                                    "\"Good2\"=dword:2\n",         /* 11 */
                                &w);
    CHECK_EQ_INT(f.warnings, 4);
    CHECK_EQ_INT(count_lines(w), 4);
    CHECK_EQ_INT(warnings_for_line(w, 3), 1);
    CHECK_EQ_INT(warnings_for_line(w, 5), 1);
    CHECK_EQ_INT(warnings_for_line(w, 6), 1);
    CHECK_EQ_INT(warnings_for_line(w, 9), 1);
    CHECK_EQ_INT(warnings_for_line(w, 7), 0);
    CHECK_EQ_INT(dword_or(&f, CU "A", "Good2", NONE), 2);
    CHECK_EQ_INT(dword_or(&f, CU "A", "Good", NONE), NONE);
    d12__registry_free(&f);
    free(w);
}

static void test_missing_header(void)
{
    char *w;
    d12_reg_file f = parse_text("\n; c\n[" CU "A]\n\"V\"=dword:1\n", &w);
    CHECK_EQ_INT(f.warnings, 1);
    CHECK_EQ_INT(count_lines(w), 1);
    CHECK_EQ_INT(warnings_for_line(w, 3), 1);
    CHECK(strstr(w, "header") != NULL);
    CHECK_EQ_INT(dword_or(&f, CU "A", "V", NONE), 1); /* read on */
    d12__registry_free(&f);
    free(w);
    /* a malformed first line gets its own warning only */
    f = parse_text("garbage\n[" CU "A]\n\"V\"=dword:1\n", &w);
    CHECK_EQ_INT(f.warnings, 1);
    CHECK_EQ_INT(warnings_for_line(w, 1), 1);
    CHECK_EQ_INT(count_lines(w), 1);
    CHECK_EQ_INT(dword_or(&f, CU "A", "V", NONE), 1);
    d12__registry_free(&f);
    free(w);
}

static void test_empty_and_missing(void)
{
    char *w;
    d12_reg_file f = parse_bytes("", 0, &w);
    CHECK_EQ_INT(f.count, 0);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "A", "V", NONE), NONE);
    d12__registry_free(&f);
    free(w);
    f = parse_text("Windows Registry Editor Version 5.00", &w); /* header only, no line break */
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(f.count, 1);
    d12__registry_free(&f);
    free(w);
    f = parse_bytes("\xFF\xFE", 2, &w); /* a UTF-16 BOM alone */
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(f.count, 0);
    d12__registry_free(&f);
    free(w);

    make_tmp_dir();
    CHECK_EQ_INT(d12__registry_load(tmp_path("nope.reg"), stderr, &f), 0);
    CHECK(!f.exists);
    CHECK(!f.unreadable);
    CHECK_EQ_INT(f.warnings, 0);
    CHECK_EQ_INT(dword_or(&f, CU "A", "V", NONE), NONE);
    d12__registry_free(&f);
    /* a directory where the file should be: one warning, no values */
    CHECK_EQ_INT(mkdir(tmp_path("dir.reg"), 0755), 0);
    FILE *ws = open_memstream(&w, &(size_t){0});
    CHECK_EQ_INT(d12__registry_load(tmp_path("dir.reg"), ws, &f), 0);
    fclose(ws);
    CHECK(f.unreadable);
    CHECK_EQ_INT(count_lines(w), 1);
    CHECK(strstr(w, "dir.reg") != NULL);
    d12__registry_free(&f);
    free(w);
    remove_tmp_dir();
}

static void test_huge_lines(void)
{
    size_t big = 3u << 20;
    char *text = malloc(big * 3 + 1024);
    size_t n = (size_t)sprintf(text, HDR "[" CU "A]\n;");
    memset(text + n, 'c', big); /* a 3 MiB comment */
    n += big;
    n += (size_t)sprintf(text + n, "\n\"");
    memset(text + n, 'N', 20000); /* a value name longer than 16383 bytes */
    n += 20000;
    n += (size_t)sprintf(text + n, "\"=dword:1\n\"Bin\"=hex:00");
    for (int i = 0; i < 100000; i++) /* a binary value continued over 100001 lines */
        n += (size_t)sprintf(text + n, ",\\\n  %02x", i & 0xFF);
    n += (size_t)sprintf(text + n, "\n\"Last\"=dword:9\n");
    char *w;
    d12_reg_file f = parse_bytes(text, n, &w);
    CHECK_EQ_INT(f.warnings, 1);
    CHECK_EQ_INT(warnings_for_line(w, 5), 1);
    unsigned line = 0;
    uint32_t v = 0;
    CHECK(d12__registry_get_dword(&f, CU "A", "Last", &v, &line));
    CHECK_EQ_INT(v, 9);
    CHECK_EQ_INT(line, 6 + 100001);
    d12__registry_free(&f);
    free(w);

    /* a file over the size limit is not read */
    make_tmp_dir();
    size_t over = D12_REG_MAX_FILE_BYTES + 1;
    char *huge = malloc(over);
    memset(huge, ';', over);
    write_file(tmp_path("huge.reg"), huge, over);
    FILE *ws = open_memstream(&w, &(size_t){0});
    CHECK_EQ_INT(d12__registry_load(tmp_path("huge.reg"), ws, &f), 0);
    fclose(ws);
    CHECK(f.unreadable);
    CHECK_EQ_INT(count_lines(w), 1);
    d12__registry_free(&f);
    free(w);
    /* ... while a file at the limit is */
    write_file(tmp_path("huge.reg"), huge, over - 1);
    CHECK_EQ_INT(d12__registry_load(tmp_path("huge.reg"), NULL, &f), 0);
    CHECK(!f.unreadable);
    CHECK_EQ_INT(f.count, 1);
    d12__registry_free(&f);
    free(huge);
    free(text);
    remove_tmp_dir();
}

static void test_lines_tile(void)
{
    char *w;
    const char *text = HDR "[" CU "A]\r\n\"B\"=hex:00,\\\r\n 01\r\nbad\n\"C\"=dword:1";
    d12_reg_file f = parse_text(text, &w);
    size_t pos = 0;
    for (size_t i = 0; i < f.count; i++) {
        CHECK_EQ_INT(f.lines[i].begin, pos);
        pos = f.lines[i].end;
    }
    CHECK_EQ_INT(pos, strlen(text));
    CHECK_EQ_INT(f.count, 6);
    CHECK_EQ_INT(f.lines[3].kind, D12_REG_LINE_VALUE);
    CHECK_EQ_INT(f.lines[4].kind, D12_REG_LINE_MALFORMED);
    CHECK_EQ_INT(f.lines[4].number, 6);
    CHECK_EQ_INT(dword_or(&f, CU "A", "C", NONE), 1); /* the last line has no line break */
    d12__registry_free(&f);
    free(w);
}

static void test_subkeys(void)
{
    char *w;
    d12_reg_file f = parse_text(HDR "[" CU "One]\n[" CU "two\\Sub]\n[" CU "ONE]\n[" CU "Gone]\n[-" CU
                                    "Gone]\n[HKEY_CURRENT_USER\\Software\\Other\\X]\n",
                                &w);
    char **names;
    long n = d12__registry_subkeys(&f, "HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\Direct3D12", &names);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(names[0], "One");
        CHECK_EQ_STR(names[1], "two");
    }
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
    d12__registry_free(&f);
    free(w);
}

/* ---- locations and names ---------------------------------------------------------------------------------- */

static void test_paths(void)
{
    char p[D12_REG_PATH_MAX];
    setenv("D12RT_HKCU", "/x/u.reg", 1);
    setenv("D12RT_HKLM", "/x/s.reg", 1);
    CHECK(d12__registry_hkcu_path(p, sizeof p));
    CHECK_EQ_STR(p, "/x/u.reg");
    CHECK(d12__registry_hklm_path(p, sizeof p));
    CHECK_EQ_STR(p, "/x/s.reg");
    unsetenv("D12RT_HKCU");
    unsetenv("D12RT_HKLM");
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    setenv("HOME", "/home/u", 1);
    CHECK(d12__registry_hkcu_path(p, sizeof p));
    CHECK_EQ_STR(p, "/cfg/d12rt/user.reg");
    setenv("XDG_CONFIG_HOME", "relative", 1); /* ignored, as the XDG spec says */
    CHECK(d12__registry_hkcu_path(p, sizeof p));
    CHECK_EQ_STR(p, "/home/u/.config/d12rt/user.reg");
    setenv("XDG_CONFIG_HOME", "", 1);
    CHECK(d12__registry_hkcu_path(p, sizeof p));
    CHECK_EQ_STR(p, "/home/u/.config/d12rt/user.reg");
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    CHECK(!d12__registry_hkcu_path(p, sizeof p));
    CHECK_EQ_STR(p, "");
    CHECK(d12__registry_hklm_path(p, sizeof p));
    CHECK_EQ_STR(p, "/etc/d12rt/system.reg");
    setenv("D12RT_HKLM", "", 1); /* empty is unset */
    CHECK(d12__registry_hklm_path(p, sizeof p));
    CHECK_EQ_STR(p, "/etc/d12rt/system.reg");
    char small[8];
    setenv("D12RT_HKCU", "/a/much/longer/path.reg", 1);
    CHECK(!d12__registry_hkcu_path(small, sizeof small));
    CHECK(d12__registry_app_key(p, sizeof p, D12_REG_HKCU_ROOT, "game.exe"));
    CHECK_EQ_STR(p, CU "game.exe");
    CHECK(!d12__registry_app_key(small, sizeof small, D12_REG_HKCU_ROOT, "game.exe"));
}

static void test_app_name(void)
{
    char name[D12_REG_MAX_NAME + 1];
    unsetenv("D12RT_APP_NAME");
    CHECK(d12__registry_app_name(name, sizeof name));
    CHECK_EQ_STR(name, "test_registry"); /* the executable's file name */
    setenv("D12RT_APP_NAME", "Game.exe", 1);
    CHECK(d12__registry_app_name(name, sizeof name));
    CHECK_EQ_STR(name, "Game.exe");
    setenv("D12RT_APP_NAME", "bad\\name", 1); /* would address a subkey: ignored */
    CHECK(d12__registry_app_name(name, sizeof name));
    CHECK_EQ_STR(name, "test_registry");
    setenv("D12RT_APP_NAME", "", 1);
    CHECK(d12__registry_app_name(name, sizeof name));
    CHECK_EQ_STR(name, "test_registry");
    CHECK(d12__registry_valid_app_name("a b]c.exe"));
    CHECK(!d12__registry_valid_app_name(""));
    CHECK(!d12__registry_valid_app_name("a\nb"));
    char longest[300];
    memset(longest, 'a', sizeof longest);
    longest[255] = '\0';
    CHECK(d12__registry_valid_app_name(longest));
    longest[255] = 'a';
    longest[256] = '\0';
    CHECK(!d12__registry_valid_app_name(longest));

    /* the settings follow D12RT_APP_NAME */
    make_tmp_dir();
    const char *reg = HDR "[" CU "Game.exe]\n\"EnableDriverReportedMessagesOr\"=dword:1\n";
    write_file(tmp_path("user.reg"), reg, strlen(reg));
    d12_app_settings s;
    setenv("D12RT_APP_NAME", "game.EXE", 1);
    d12__registry_app_settings(NULL, &s);
    CHECK_EQ_STR(s.app_name, "game.EXE");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 1);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKCU);
    CHECK_EQ_STR(s.hkcu_path, tmp_path("user.reg"));
    unsetenv("D12RT_APP_NAME");
    d12__registry_app_settings(NULL, &s);
    CHECK_EQ_STR(s.app_name, "test_registry");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 0);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_DEFAULT);
    d12__registry_app_settings("Game.exe", &s); /* an explicit name wins over both */
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 1);
    remove_tmp_dir();
}

/* ---- settings and the overlay ------------------------------------------------------------------------------ */

static void hive_text(char *buf, size_t size, const char *root, int and_v, int or_v)
{
    int n = snprintf(buf, size, HDR "[%sApp]\n", root);
    if (and_v >= 0)
        n += snprintf(buf + n, size - (size_t)n, "\"EnableDriverReportedMessagesAnd\"=dword:%08x\n", (unsigned)and_v);
    if (or_v >= 0)
        snprintf(buf + n, size - (size_t)n, "\"EnableDriverReportedMessagesOr\"=dword:%08x\n", (unsigned)or_v);
}

/* One configuration: HKCU's And/Or and HKLM's (-1: absent); checks every app value against ((app&And)|Or)&1. */
static void check_drm(int cu_and, int cu_or, int lm_and, int lm_or)
{
    char cu_text[512], lm_text[512], *w1, *w2;
    hive_text(cu_text, sizeof cu_text, CU, cu_and, cu_or);
    hive_text(lm_text, sizeof lm_text, LM, lm_and, lm_or);
    d12_reg_file cu = parse_text(cu_text, &w1), lm = parse_text(lm_text, &w2);
    d12_app_settings s;
    d12__registry_resolve(&cu, &lm, "app", &s);
    uint32_t and_v = cu_and >= 0 ? (uint32_t)cu_and : lm_and >= 0 ? (uint32_t)lm_and : 1;
    uint32_t or_v = cu_or >= 0 ? (uint32_t)cu_or : lm_or >= 0 ? (uint32_t)lm_or : 0;
    d12_reg_source and_src = cu_and >= 0 ? D12_SOURCE_HKCU : lm_and >= 0 ? D12_SOURCE_HKLM : D12_SOURCE_DEFAULT;
    d12_reg_source or_src = cu_or >= 0 ? D12_SOURCE_HKCU : lm_or >= 0 ? D12_SOURCE_HKLM : D12_SOURCE_DEFAULT;
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].value, and_v);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, or_v);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].source, and_src);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, or_src);
    for (int app = 0; app < 2; app++) {
        d12_registry_overlay o = d12__registry_overlay(&s, true, app);
        if (!d12test_record(o.driver_reported_messages == (((app & and_v) | or_v) & 1), __FILE__, __LINE__,
                            "overlay = ((app & And) | Or) & 1"))
            fprintf(stderr, "    cu %d/%d lm %d/%d app %d\n", cu_and, cu_or, lm_and, lm_or, app);
        CHECK_EQ_INT(o.driver_reported_messages_active, o.driver_reported_messages);
    }
    d12__registry_free(&cu);
    d12__registry_free(&lm);
    free(w1);
    free(w2);
}

static void test_drm_combinations(void)
{
    /* the four And/Or combinations, each from HKCU alone, HKLM alone, and HKCU over an opposite HKLM */
    for (int a = 0; a < 2; a++)
        for (int o = 0; o < 2; o++) {
            check_drm(a, o, -1, -1);
            check_drm(-1, -1, a, o);
            check_drm(a, o, !a, !o);
        }
    check_drm(-1, -1, -1, -1); /* defaults: the application decides */
    check_drm(0, -1, -1, 1);   /* per value: And from HKCU, Or from HKLM -> forced on */
    check_drm(-1, 0, 0, -1);   /* And from HKLM, Or from HKCU -> forced off */

    /* the named outcomes */
    d12_app_settings s;
    d12__registry_resolve(NULL, NULL, "x", &s);
    CHECK(!d12__registry_overlay(&s, true, false).driver_reported_messages);
    CHECK(d12__registry_overlay(&s, true, true).driver_reported_messages);
    s.values[D12_SETTING_DRM_OR].value = 1; /* force on */
    CHECK(d12__registry_overlay(&s, true, false).driver_reported_messages);
    s.values[D12_SETTING_DRM_OR].value = 0;
    s.values[D12_SETTING_DRM_AND].value = 0; /* force off */
    CHECK(!d12__registry_overlay(&s, true, true).driver_reported_messages);
    s.values[D12_SETTING_DRM_AND].value = 2; /* only bit 0 counts */
    CHECK(!d12__registry_overlay(&s, true, true).driver_reported_messages);
    s.values[D12_SETTING_DRM_AND].value = 1;
    s.values[D12_SETTING_DRM_OR].value = 2;
    CHECK(!d12__registry_overlay(&s, true, false).driver_reported_messages);
}

static void test_debug_layer_forcing(void)
{
    char *w;
    d12_reg_file cu = parse_text(HDR "[" CU "On]\n\"D3D12SDKLayerFlagsOr\"=dword:1\n\"RequireSDKLayers\"=dword:1\n"
                                     "\"EnableDriverReportedMessagesOr\"=dword:1\n"
                                     "[" CU "Off]\n\"D3D12SDKLayerFlagsAnd\"=dword:fffffffe\n"
                                     "[" CU "OtherBits]\n\"D3D12SDKLayerFlagsOr\"=dword:fffffffe\n",
                                 &w);
    d12_app_settings s;
    d12__registry_resolve(&cu, NULL, "none", &s);
    CHECK_EQ_INT(s.values[D12_SETTING_LAYER_AND].value, 0xFFFFFFFFu);
    CHECK_EQ_INT(s.values[D12_SETTING_LAYER_OR].value, 0);
    CHECK_EQ_INT(s.values[D12_SETTING_REQUIRE_LAYERS].value, 0);
    CHECK(d12__registry_overlay(&s, true, true).debug_layer);
    CHECK(!d12__registry_overlay(&s, false, true).debug_layer);
    CHECK(!d12__registry_overlay(&s, false, true).driver_reported_messages_active); /* needs the layer */
    CHECK(d12__registry_overlay(&s, false, true).driver_reported_messages);
    CHECK(!d12__registry_overlay(&s, false, true).require_sdk_layers);

    d12__registry_resolve(&cu, NULL, "On", &s);
    d12_registry_overlay o = d12__registry_overlay(&s, false, false);
    CHECK(o.debug_layer);
    CHECK(o.require_sdk_layers);
    CHECK(o.driver_reported_messages_active); /* forced on, with a forced-on layer */

    d12__registry_resolve(&cu, NULL, "Off", &s);
    o = d12__registry_overlay(&s, true, true);
    CHECK(!o.debug_layer);
    CHECK(o.driver_reported_messages);
    CHECK(!o.driver_reported_messages_active);

    d12__registry_resolve(&cu, NULL, "OtherBits", &s); /* bits other than 0 mean nothing */
    CHECK(!d12__registry_overlay(&s, false, false).debug_layer);
    CHECK(d12__registry_overlay(&s, true, false).debug_layer);

    CHECK_EQ_STR(d12__registry_setting_name(D12_SETTING_REQUIRE_LAYERS), "RequireSDKLayers");
    CHECK_EQ_INT(d12__registry_setting_default(D12_SETTING_DRM_AND), 1);
    CHECK(d12__registry_setting_name(D12_SETTING_COUNT) == NULL);
    d12__registry_free(&cu);
    free(w);
}

static void test_app_settings_files(void)
{
    make_tmp_dir();
    const char *cu = HDR "[" CU "App]\n\"EnableDriverReportedMessagesAnd\"=dword:0\n";
    const char *lm = HDR "[" LM "App]\n\"EnableDriverReportedMessagesAnd\"=dword:1\n"
                         "\"EnableDriverReportedMessagesOr\"=dword:1\n"
                         "[" CU "App]\n\"RequireSDKLayers\"=dword:1\n"; /* the wrong root in HKLM: ignored */
    write_file(tmp_path("user.reg"), cu, strlen(cu));
    write_file(tmp_path("system.reg"), lm, strlen(lm));
    d12_app_settings s;
    d12__registry_app_settings("App", &s);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].value, 0);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].source, D12_SOURCE_HKCU);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].line, 4);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 1);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKLM);
    CHECK_EQ_INT(s.values[D12_SETTING_REQUIRE_LAYERS].source, D12_SOURCE_DEFAULT);
    CHECK_EQ_STR(s.hklm_path, tmp_path("system.reg"));
    d12__registry_app_settings("bad\\name", &s); /* an unusable name: defaults */
    CHECK_EQ_STR(s.app_name, "");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_DEFAULT);
    remove(tmp_path("user.reg"));
    remove(tmp_path("system.reg"));
    d12__registry_app_settings("App", &s); /* no files: defaults */
    for (unsigned id = 0; id < D12_SETTING_COUNT; id++) {
        CHECK_EQ_INT(s.values[id].source, D12_SOURCE_DEFAULT);
        CHECK_EQ_INT(s.values[id].value, d12__registry_setting_default(id));
    }
    remove_tmp_dir();
}

/* ---- d12cfg end to end ------------------------------------------------------------------------------------ */

static char cfg_out[1 << 16], cfg_err[1 << 16];

/* Runs d12cfg with `args` (shell words), capturing stdout and stderr; returns its exit status. */
static int d12cfg(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", d12cfg_path, args, tmp_path("out.txt"), tmp_path("err.txt"));
    int status = system(cmd);
    char *o = read_file(tmp_path("out.txt"), NULL), *e = read_file(tmp_path("err.txt"), NULL);
    snprintf(cfg_out, sizeof cfg_out, "%s", o ? o : "");
    snprintf(cfg_err, sizeof cfg_err, "%s", e ? e : "");
    free(o);
    free(e);
    remove(tmp_path("out.txt"));
    remove(tmp_path("err.txt"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static d12_app_settings settings_of(const char *app)
{
    d12_app_settings s;
    d12__registry_app_settings(app, &s);
    return s;
}

static void test_cfg_drm(void)
{
    make_tmp_dir();
    setenv("D12RT_HKCU", tmp_path("new/dir/user.reg"), 1); /* the directory is created */
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    d12_app_settings s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 1);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKCU);
    CHECK(d12__registry_overlay(&s, true, false).driver_reported_messages);
    size_t size;
    char *text = read_file(tmp_path("new/dir/user.reg"), &size);
    CHECK(text && !strncmp(text, "Windows Registry Editor Version 5.00\n", 37)); /* UTF-8, LF */
    free(text);

    CHECK_EQ_INT(d12cfg("drm Game off"), 0);
    s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].value, 0);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 0);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKCU);
    CHECK(!d12__registry_overlay(&s, true, true).driver_reported_messages);

    CHECK_EQ_INT(d12cfg("drm Game app"), 0);
    s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_AND].source, D12_SOURCE_DEFAULT);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_DEFAULT);
    CHECK(d12__registry_overlay(&s, true, true).driver_reported_messages);
    CHECK(!d12__registry_overlay(&s, true, false).driver_reported_messages);
    text = read_file(tmp_path("new/dir/user.reg"), &size);
    CHECK(text && !strstr(text, "Game")); /* the emptied key is gone */
    free(text);
    remove_tmp_dir();
}

static void test_cfg_system(void)
{
    make_tmp_dir();
    CHECK_EQ_INT(d12cfg("--system drm Game on"), 0);
    CHECK(access(tmp_path("user.reg"), F_OK) != 0); /* HKCU untouched */
    d12_app_settings s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKLM);
    char *text = read_file(tmp_path("system.reg"), NULL);
    CHECK(text && strstr(text, "[" LM "Game]") != NULL);
    free(text);
    /* HKCU force-off wins over HKLM force-on; back to app-controlled in HKCU defers to HKLM again */
    CHECK_EQ_INT(d12cfg("drm Game off"), 0);
    s = settings_of("Game");
    CHECK(!d12__registry_overlay(&s, true, true).driver_reported_messages);
    CHECK_EQ_INT(d12cfg("drm Game app"), 0);
    s = settings_of("Game");
    CHECK(d12__registry_overlay(&s, true, false).driver_reported_messages);
    CHECK_EQ_INT(d12cfg("drm Game --system app"), 0); /* --system anywhere */
    s = settings_of("Game");
    CHECK(!d12__registry_overlay(&s, true, false).driver_reported_messages);
    remove_tmp_dir();
}

static void test_cfg_debug_layer(void)
{
    make_tmp_dir();
    CHECK_EQ_INT(d12cfg("debug-layer Game on"), 0);
    d12_app_settings s = settings_of("Game");
    d12_registry_overlay o = d12__registry_overlay(&s, false, false);
    CHECK(o.debug_layer);
    CHECK(o.require_sdk_layers);
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    s = settings_of("Game");
    CHECK(d12__registry_overlay(&s, false, false).driver_reported_messages_active); /* DXCPL's full force-on */
    CHECK_EQ_INT(d12cfg("debug-layer Game off"), 0);
    s = settings_of("Game");
    o = d12__registry_overlay(&s, true, true);
    CHECK(!o.debug_layer);
    CHECK(!o.require_sdk_layers);
    CHECK(!o.driver_reported_messages_active);
    CHECK_EQ_INT(s.values[D12_SETTING_LAYER_AND].value, 0xFFFFFFFEu);
    CHECK_EQ_INT(d12cfg("debug-layer Game app"), 0);
    s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_LAYER_AND].source, D12_SOURCE_DEFAULT);
    CHECK_EQ_INT(s.values[D12_SETTING_LAYER_OR].source, D12_SOURCE_DEFAULT);
    CHECK_EQ_INT(s.values[D12_SETTING_REQUIRE_LAYERS].source, D12_SOURCE_DEFAULT);
    CHECK_EQ_INT(s.values[D12_SETTING_DRM_OR].value, 1); /* the other setting is left alone */
    CHECK(d12__registry_overlay(&s, true, false).debug_layer);
    CHECK(!d12__registry_overlay(&s, false, false).debug_layer);
    remove_tmp_dir();
}

static void test_cfg_show(void)
{
    make_tmp_dir();
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    CHECK_EQ_INT(d12cfg("--system debug-layer Game on"), 0);
    CHECK_EQ_INT(d12cfg("show Game"), 0);
    char want[512];
    CHECK(strstr(cfg_out, "application: Game\n") != NULL);
    snprintf(want, sizeof want, "%-32s 0x00000001  HKCU %s:4\n", "EnableDriverReportedMessagesOr",
             tmp_path("user.reg"));
    CHECK(strstr(cfg_out, want) != NULL);
    snprintf(want, sizeof want, "%-32s 0x00000001  HKLM %s:4\n", "D3D12SDKLayerFlagsOr", tmp_path("system.reg"));
    CHECK(strstr(cfg_out, want) != NULL);
    snprintf(want, sizeof want, "%-32s 0x00000001  default\n", "EnableDriverReportedMessagesAnd");
    CHECK(strstr(cfg_out, want) != NULL);
    CHECK(strstr(cfg_out, "driver-reported messages: forced on\n") != NULL);
    CHECK(strstr(cfg_out, "debug layer: forced on (RequireSDKLayers)\n") != NULL);
    CHECK_EQ_STR(cfg_err, "");
    CHECK_EQ_INT(d12cfg("show Other"), 0);
    CHECK(strstr(cfg_out, "driver-reported messages: application-controlled\n") != NULL);
    CHECK(strstr(cfg_out, "debug layer: application-controlled\n") != NULL);
    remove(tmp_path("system.reg"));
    CHECK_EQ_INT(d12cfg("show Game"), 0);
    CHECK(strstr(cfg_out, "(missing)") != NULL);
    remove_tmp_dir();
}

static void test_cfg_list(void)
{
    make_tmp_dir();
    CHECK_EQ_INT(d12cfg("list"), 0);
    CHECK_EQ_STR(cfg_out, "");
    CHECK_EQ_INT(d12cfg("drm Alpha on"), 0);
    CHECK_EQ_INT(d12cfg("--system drm ALPHA off"), 0);
    CHECK_EQ_INT(d12cfg("--system debug-layer Beta off"), 0);
    CHECK_EQ_INT(d12cfg("list"), 0);
    CHECK_EQ_STR(cfg_out, "Alpha: driver-reported messages: forced on; debug layer: application-controlled; "
                          "DRED auto-breadcrumbs: system-controlled; DRED page fault: system-controlled; "
                          "DRED breadcrumb context: system-controlled\n"
                          "Beta: driver-reported messages: application-controlled; debug layer: forced off; "
                          "DRED auto-breadcrumbs: system-controlled; DRED page fault: system-controlled; "
                          "DRED breadcrumb context: system-controlled\n");
    CHECK_EQ_INT(d12cfg("drm Alpha app"), 0); /* only HKLM configures it now */
    CHECK_EQ_INT(d12cfg("list"), 0);
    CHECK(strstr(cfg_out, "ALPHA: driver-reported messages: forced off;") != NULL);
    remove_tmp_dir();
}

static void test_cfg_preserve(void)
{
    make_tmp_dir();
    /* a regedit export (UTF-16LE, CRLF) with comments, other keys, other values of the app, a malformed line */
    const char *before = "Windows Registry Editor Version 5.00\r\n\r\n; keep me\r\n"
                         "[HKEY_CURRENT_USER\\Software\\Other]\r\n\"Keep\"=\"yes\"\r\n\r\n"
                         "[" CU "Game]\r\n\"Mine\"=dword:00000007\r\n\"EnableDriverReportedMessagesOr\"=dword:00000000\r\n"
                         "bogus line\r\n\r\n[" CU "Game\\Sub]\r\n\"Deep\"=hex:01,\\\r\n  02\r\n";
    size_t n;
    unsigned char *bytes = utf16(before, &n);
    write_file(tmp_path("user.reg"), bytes, n);
    free(bytes);
    CHECK_EQ_INT(chmod(tmp_path("user.reg"), 0600), 0);
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    CHECK(strstr(cfg_err, "user.reg:10: warning") != NULL); /* the malformed line is reported, and kept */

    d12_reg_file f;
    CHECK_EQ_INT(d12__registry_load(tmp_path("user.reg"), NULL, &f), 0);
    CHECK_EQ_INT(f.encoding, D12_REG_UTF16LE);
    CHECK(f.crlf);
    const char *after = "Windows Registry Editor Version 5.00\r\n\r\n; keep me\r\n"
                        "[HKEY_CURRENT_USER\\Software\\Other]\r\n\"Keep\"=\"yes\"\r\n\r\n"
                        "[" CU "Game]\r\n\"Mine\"=dword:00000007\r\nbogus line\r\n"
                        "\"EnableDriverReportedMessagesOr\"=dword:00000001\r\n"
                        "\r\n[" CU "Game\\Sub]\r\n\"Deep\"=hex:01,\\\r\n  02\r\n";
    CHECK_EQ_STR(f.text, after);
    d12__registry_free(&f);
    struct stat st;
    CHECK_EQ_INT(stat(tmp_path("user.reg"), &st), 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600); /* the mode is kept */

    /* app-controlled removes only our values; the key keeps its other value */
    CHECK_EQ_INT(d12cfg("drm Game app"), 0);
    CHECK_EQ_INT(d12__registry_load(tmp_path("user.reg"), NULL, &f), 0);
    CHECK(strstr(f.text, "\"Mine\"=dword:00000007\r\nbogus line\r\n\r\n[") != NULL);
    CHECK(strstr(f.text, "; keep me") != NULL);
    CHECK(strstr(f.text, "EnableDriverReported") == NULL);
    d12__registry_free(&f);

    /* a key deleted later in the file gets a new section at the end */
    const char *deleted = HDR "[" CU "Game]\n\"X\"=dword:1\n[-" CU "Game]\n";
    write_file(tmp_path("user.reg"), deleted, strlen(deleted));
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    char *text = read_file(tmp_path("user.reg"), NULL);
    CHECK_EQ_STR(text, HDR "[" CU "Game]\n\"X\"=dword:1\n[-" CU "Game]\n\n[" CU
                           "Game]\n\"EnableDriverReportedMessagesOr\"=dword:00000001\n");
    free(text);

    /* a file without a header gets one; its lines stay */
    const char *headless = "; just a comment";
    write_file(tmp_path("user.reg"), headless, strlen(headless));
    CHECK_EQ_INT(d12cfg("drm Game off"), 0);
    text = read_file(tmp_path("user.reg"), NULL);
    CHECK_EQ_STR(text, HDR "; just a comment\n\n[" CU "Game]\n\"EnableDriverReportedMessagesAnd\"=dword:00000000\n"
                           "\"EnableDriverReportedMessagesOr\"=dword:00000000\n");
    free(text);
    remove_tmp_dir();
}

static unsigned files_in(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    unsigned n = 0;
    CHECK(p && fscanf(p, "%u", &n) == 1);
    if (p)
        pclose(p);
    return n;
}

static void test_cfg_atomic(void)
{
    make_tmp_dir();
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(d12cfg(i % 2 ? "drm Game off" : "drm Game on"), 0);
        CHECK_EQ_INT(d12cfg("--system debug-layer Game on"), 0);
    }
    /* user.reg and system.reg and their .lock files (issue 17 item 7.5); no temporary file left */
    CHECK_EQ_INT(files_in(tmp_dir), 4);
    struct stat st;
    CHECK_EQ_INT(stat(tmp_path("system.reg"), &st), 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0644); /* a new hive is readable by everyone */

    /* a symbolic link: the file it names is replaced, the link stays */
    CHECK_EQ_INT(mkdir(tmp_path("real"), 0755), 0);
    CHECK_EQ_INT(symlink(tmp_path("real/user.reg"), tmp_path("link.reg")), 0);
    setenv("D12RT_HKCU", tmp_path("link.reg"), 1);
    CHECK_EQ_INT(d12cfg("drm Game on"), 0);
    CHECK_EQ_INT(lstat(tmp_path("link.reg"), &st), 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK_EQ_INT(settings_of("Game").values[D12_SETTING_DRM_OR].source, D12_SOURCE_HKCU);
    CHECK_EQ_INT(files_in(tmp_path("real")), 2); /* user.reg and user.reg.lock beside the file the link names */

    /* a hive that cannot be read is not overwritten; a directory that cannot be written fails cleanly */
    setenv("D12RT_HKCU", tmp_path("real"), 1);
    CHECK_EQ_INT(d12cfg("drm Game on"), 1);
    CHECK(strstr(cfg_err, "not rewritten") != NULL);
    setenv("D12RT_HKCU", "/proc/no/such/dir/user.reg", 1);
    CHECK_EQ_INT(d12cfg("drm Game on"), 1);
    CHECK(strstr(cfg_err, "unchanged") != NULL);
    remove_tmp_dir();
}

/* DRED (dred-api): `dred APP FEATURE on|off|system` writes the D3D12_DRED_ENABLEMENT number (2, 1) or deletes it;
 * `show` prints the values and what an application leaving them SYSTEM_CONTROLLED gets; the overlay applies them
 * only under SYSTEM_CONTROLLED. */
static void test_cfg_dred(void)
{
    make_tmp_dir();
    CHECK_EQ_INT(d12cfg("dred Game breadcrumbs on"), 0);
    CHECK_EQ_INT(d12cfg("--system dred Game page-fault on"), 0);
    CHECK_EQ_INT(d12cfg("dred Game page-fault off"), 0);
    CHECK_EQ_INT(d12cfg("dred Game context on"), 0);
    d12_app_settings s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_AUTO_BREADCRUMBS].value, 2);
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_AUTO_BREADCRUMBS].source, D12_SOURCE_HKCU);
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_PAGE_FAULT].value, 1); /* HKCU over HKLM */
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_CONTEXT].value, 2);
    /* the application's SYSTEM_CONTROLLED takes the registry's value; its FORCED_* wins */
    CHECK_EQ_INT(d12__registry_dred_enablement(&s, D12_SETTING_DRED_AUTO_BREADCRUMBS, 0), 2);
    CHECK_EQ_INT(d12__registry_dred_enablement(&s, D12_SETTING_DRED_AUTO_BREADCRUMBS, 1), 1);
    CHECK_EQ_INT(d12__registry_dred_enablement(&s, D12_SETTING_DRED_PAGE_FAULT, 2), 2);
    CHECK_EQ_INT(d12__registry_dred_enablement(&s, D12_SETTING_DRED_PAGE_FAULT, 0), 1);
    CHECK_EQ_INT(d12cfg("show Game"), 0);
    CHECK(strstr(cfg_out, "DredAutoBreadcrumbs              0x00000002  HKCU") != NULL);
    CHECK(strstr(cfg_out, "DredPageFault                    0x00000001  HKCU") != NULL);
    CHECK(strstr(cfg_out, "DRED auto-breadcrumbs: forced on\nDRED page fault: forced off\n"
                          "DRED breadcrumb context: forced on\n") != NULL);
    /* system: the HKCU value goes, HKLM's FORCED_ON shows through */
    CHECK_EQ_INT(d12cfg("dred Game page-fault system"), 0);
    s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_PAGE_FAULT].value, 2);
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_PAGE_FAULT].source, D12_SOURCE_HKLM);
    /* bad feature or mode: usage, nothing written */
    CHECK_EQ_INT(d12cfg("dred Game watson on"), 2);
    CHECK_EQ_INT(d12cfg("dred Game breadcrumbs app"), 2);
    CHECK_EQ_INT(d12cfg("dred Game breadcrumbs"), 2);
    s = settings_of("Game");
    CHECK_EQ_INT(s.values[D12_SETTING_DRED_AUTO_BREADCRUMBS].value, 2);
    /* a value that is no enablement number stays SYSTEM_CONTROLLED */
    d12_app_settings junk = s;
    junk.values[D12_SETTING_DRED_CONTEXT].value = 9;
    CHECK_EQ_INT(d12__registry_dred_enablement(&junk, D12_SETTING_DRED_CONTEXT, 0), 0);
    remove_tmp_dir();
}

static void test_cfg_usage(void)
{
    make_tmp_dir();
    static const char *const bad[] = {
        "", "frobnicate", "drm", "drm Game", "drm Game maybe", "drm Game on extra", "show", "show A B",
        "list extra", "--system show Game", "--system list", "--bogus list", "drm 'a\\b' on", "drm '' on",
        "debug-layer Game",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = d12cfg(bad[i]);
        if (!d12test_record(rc == 2 && strstr(cfg_err, "usage: d12cfg") != NULL, __FILE__, __LINE__,
                            "usage error: exit 2 and usage on stderr"))
            fprintf(stderr, "    args \"%s\": rc %d\n", bad[i], rc);
        CHECK_EQ_STR(cfg_out, "");
    }
    CHECK(access(tmp_path("user.reg"), F_OK) != 0); /* nothing was written */
    static const char *const good[] = {"--help", "list", "show Game", "drm Game on", "debug-layer Game app",
                                       "-- drm -dash on"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = d12cfg(good[i]);
        if (!d12test_record(rc == 0 && !strstr(cfg_err, "usage"), __FILE__, __LINE__, "valid: exit 0"))
            fprintf(stderr, "    args \"%s\": rc %d: %s\n", good[i], rc, cfg_err);
    }
    CHECK_EQ_INT(settings_of("-dash").values[D12_SETTING_DRM_OR].value, 1);
    remove_tmp_dir();
}

/* ---- dispatch --------------------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    {"utf16_bom_crlf", test_utf16_bom_crlf},
    {"utf8", test_utf8},
    {"comments", test_comments},
    {"deletions", test_deletions},
    {"case_insensitive", test_case_insensitive},
    {"value_types", test_value_types},
    {"malformed_rules", test_malformed_rules},
    {"malformed_many", test_malformed_many},
    {"missing_header", test_missing_header},
    {"empty_and_missing", test_empty_and_missing},
    {"huge_lines", test_huge_lines},
    {"lines_tile", test_lines_tile},
    {"subkeys", test_subkeys},
    {"paths", test_paths},
    {"app_name", test_app_name},
    {"drm_combinations", test_drm_combinations},
    {"debug_layer_forcing", test_debug_layer_forcing},
    {"app_settings_files", test_app_settings_files},
    {"cfg_drm", test_cfg_drm},
    {"cfg_system", test_cfg_system},
    {"cfg_debug_layer", test_cfg_debug_layer},
    {"cfg_show", test_cfg_show},
    {"cfg_list", test_cfg_list},
    {"cfg_preserve", test_cfg_preserve},
    {"cfg_atomic", test_cfg_atomic},
    {"cfg_usage", test_cfg_usage},
    {"cfg_dred", test_cfg_dred},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_registry NAME [D12CFG]\n");
        return 2;
    }
    d12cfg_path = argc > 2 ? argv[2] : "d12cfg";
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (!strcmp(argv[1], tests[i].name)) {
            tests[i].run();
            return d12test_finish();
        }
    fprintf(stderr, "test_registry: unknown test %s\n", argv[1]);
    return 2;
}
