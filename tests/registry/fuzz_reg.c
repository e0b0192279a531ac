/* libFuzzer target: any bytes through the .reg parser, every lookup the runtime and d12cfg make over the result,
 * then d12cfg's editor. Besides crashes and sanitizer reports it checks the promises made in registry.h and
 * d12cfg_edit.h: the lines tile the text in order, every malformed line was counted as a warning, and an edit of
 * any file reads back exactly as asked (never D12_REG_EDIT_UNVERIFIED) and survives encoding.
 * Built with -DD12RT_FUZZ=ON under clang; with D12_FUZZ_REPLAY it is a plain program replaying files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12cfg_edit.h"
#include "registry.h"

#define APP_KEY D12_REG_HKCU_ROOT "\\" D12_REG_APPS_KEY "\\a"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_reg: broken promise: %s\n", what);
        abort();
    }
}

static void check_lines(const d12_reg_file *f)
{
    size_t pos = 0, malformed = 0;
    unsigned number = 0;
    for (size_t i = 0; i < f->count; i++) {
        const d12_reg_line *l = &f->lines[i];
        check(l->begin == pos && l->end > l->begin && l->end <= f->size && l->number > number, "lines tile");
        check((l->key != NULL) == (l->kind == D12_REG_LINE_KEY || l->kind == D12_REG_LINE_KEY_DELETE), "key");
        check((l->name != NULL) == (l->kind == D12_REG_LINE_VALUE || l->kind == D12_REG_LINE_VALUE_DELETE),
              "name");
        malformed += l->kind == D12_REG_LINE_MALFORMED;
        pos = l->end;
        number = l->number;
    }
    check(pos == f->size && f->text[f->size] == '\0', "text covered");
    check(malformed <= f->warnings && f->warnings <= malformed + 1, "one warning per malformed line");
}

static void lookups(const d12_reg_file *f)
{
    d12_app_settings s;
    d12__registry_resolve(f, f, "a", &s);
    d12__registry_overlay(&s, true, true);
    char **names = NULL;
    long n = d12__registry_subkeys(f, D12_REG_HKCU_ROOT "\\" D12_REG_APPS_KEY, &names);
    for (long i = 0; i < n; i++) {
        d12__registry_resolve(f, NULL, names[i], &s);
        free(names[i]);
    }
    free(names);
}

/* An edit chosen by the input's last byte: each of two values set (to 0 or 1) or deleted. */
static void edit(const d12_reg_file *f, unsigned char choice)
{
    d12_reg_change c[2] = {{"EnableDriverReportedMessagesAnd", choice & 1, (choice >> 1) & 1},
                           {"enabledriverreportedmessagesor", (choice >> 2) & 1, (choice >> 3) & 1}};
    char *text;
    size_t size;
    d12_reg_edit_result r = d12__reg_edit(f, APP_KEY, c, 2, &text, &size);
    check(r != D12_REG_EDIT_UNVERIFIED, "an edit reads back as asked");
    if (r != D12_REG_EDIT_OK)
        return;
    size_t bytes_size;
    unsigned char *bytes = d12__reg_encode(text, size, f->encoding, &bytes_size);
    d12_reg_file again;
    if (bytes && d12__registry_parse_buffer(bytes, bytes_size, "edited.reg", NULL, &again) == 0) {
        for (int i = 0; i < 2; i++) {
            uint32_t v;
            int found = d12__registry_get_dword(&again, APP_KEY, c[i].name, &v, NULL);
            check(found == c[i].set && (!found || v == c[i].value), "an encoded edit reads back as asked");
        }
        d12__registry_free(&again);
    }
    free(bytes);
    free(text);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    d12_reg_file f;
    if (d12__registry_parse_buffer(data, size, "fuzz.reg", NULL, &f) != 0)
        return 0;
    check_lines(&f);
    lookups(&f);
    edit(&f, size ? data[size - 1] : 0);
    d12__registry_free(&f);
    return 0;
}

#ifdef D12_FUZZ_REPLAY
int main(int argc, char **argv)
{
    int done = 0;
    for (int i = 1; i < argc; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (!in) {
            fprintf(stderr, "fuzz_reg_replay: cannot open %s\n", argv[i]);
            return 1;
        }
        static unsigned char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, in);
        fclose(in);
        LLVMFuzzerTestOneInput(buf, n);
        done++;
    }
    printf("%d passed, 0 failed\n", done);
    return done > 0 ? 0 : 1;
}
#endif
