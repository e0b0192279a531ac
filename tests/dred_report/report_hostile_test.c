/* Hostile input for the report reader (d12dred_report_parse_buffer): each case is one edit of a small valid report
 * (or a generated input), and must be refused with exactly the expected error, *out NULL, no crash, no leak (the
 * asan preset runs these too). The control case proves the unedited base parses, so every refusal is the edit's.
 *
 *     report_hostile_test CASE [GOLDEN_DIR]     (ctest dred_report.hostile.CASE) */
#define _DEFAULT_SOURCE

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"
#include "d12dred_internal.h"
#include "d12dred_report.h"

static const char BASE[] =
    "{\"schema_version\": 1, \"reason\": {\"hresult\": \"0x887a0006\", \"name\": \"DXGI_ERROR_DEVICE_HUNG\"},\n"
    " \"device_state\": {\"value\": 7, \"name\": \"PAGEFAULT\"},\n"
    " \"features\": {\"auto_breadcrumbs\": true, \"breadcrumb_contexts\": true, \"markers_only\": false,"
    " \"page_fault\": true, \"watson_dump\": false},\n"
    " \"runtime_version\": \"d12rt 0.1.0\", \"timestamp\": null, \"process\": {\"name\": \"app\", \"id\": 7},"
    " \"driver\": null, \"tdr_delay_ms\": 2000,\n"
    " \"queues\": [{\"name\": \"Q\", \"type\": {\"value\": 0, \"name\": \"DIRECT\"}, \"faulted\": true,\n"
    "   \"submissions\": [{\"sequence\": 1, \"status\": \"in-progress\", \"lists\": [{\"list\": \"L\", \"node\": 0}]}],\n"
    "   \"pending_waits\": [{\"fence\": \"F\", \"value\": 2, \"fence_value\": 1}]}],\n"
    " \"nodes\": [{\"list\": \"L\", \"queue\": \"Q\", \"submission\": 1, \"breadcrumb_count\": 2, \"completed_count\": 1,\n"
    "   \"ops\": [{\"index\": 0, \"op\": 4, \"name\": \"DRAWINDEXEDINSTANCED\", \"depth\": 0, \"context\": \"ctx\","
    " \"attribution\": \"exact\", \"state\": null, \"messages\": []}]}],\n"
    " \"page_fault\": {\"va\": \"0x1000\", \"flags\": 0, \"verdict\": \"never-mapped\", \"existing\": [], \"freed\": [],"
    " \"nearest_below\": null, \"nearest_above\": null},\n"
    " \"flush_messages\": []}\n";

typedef struct edit_case {
    const char *name;
    const char *from;     /* text of BASE replaced (must occur), NULL: `to` is the whole input */
    const char *to;
    size_t to_length;     /* 0: strlen(to) (set for inputs holding NUL bytes) */
    const char *error;    /* the exact error, or NULL: must parse */
} edit_case;

#define RAW(s) s, sizeof(s) - 1

static const edit_case EDITS[] = {
    {"control", "", "", 0, NULL},
    {"empty", NULL, "", 0, "line 1, column 1: unexpected end of input"},
    {"whitespace", NULL, " \n\t ", 0, "line 2, column 3: unexpected end of input"},
    {"not_an_object", NULL, "[1, 2]", 0, "$: expected an object, got an array"},
    {"bare_string", NULL, "\"report\"", 0, "$: expected an object, got a string"},
    {"no_schema_version", "\"schema_version\": 1, ", "", 0,
     "$: missing key \"schema_version\" (not a d12rt DRED report)"},
    {"schema_version_newer", "\"schema_version\": 1", "\"schema_version\": 2", 0,
     "$.schema_version: schema version 2 is not supported (this d12dred reads 1 to 1)"},
    {"schema_version_zero", "\"schema_version\": 1", "\"schema_version\": 0", 0,
     "$.schema_version: schema version 0 is not supported (this d12dred reads 1 to 1)"},
    {"schema_version_string", "\"schema_version\": 1", "\"schema_version\": \"1\"", 0,
     "$.schema_version: expected an integer, got a string"},
    {"huge_integer", "\"schema_version\": 1", "\"schema_version\": 18446744073709551616", 0,
     "$.schema_version: integer 18446744073709551616 is too large"},
    {"integer_too_large_for_field", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": 4294967296", 0,
     "$.tdr_delay_ms: integer 4294967296 is larger than 4294967295"},
    {"uint64_max_accepted", "\"value\": 2, \"fence_value\": 1", "\"value\": 18446744073709551615, \"fence_value\": 1",
     0, NULL},
    {"fraction", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": 1.5", 0, "$.tdr_delay_ms: expected an integer, got 1.5"},
    {"exponent", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": 1e999", 0,
     "$.tdr_delay_ms: expected an integer, got 1e999"},
    {"negative_count", "\"breadcrumb_count\": 2", "\"breadcrumb_count\": -2", 0,
     "$.nodes[0].breadcrumb_count: expected a non-negative integer, got -2"},
    {"node_minus_one_accepted", "\"node\": 0", "\"node\": -1", 0, NULL},
    {"node_minus_two", "\"node\": 0", "\"node\": -2", 0,
     "$.queues[0].submissions[0].lists[0].node: expected a non-negative integer, got -2"},
    {"node_out_of_range", "\"node\": 0", "\"node\": 1", 0,
     "$.queues[0].submissions[0].lists[0].node: node 1 does not exist (the report has 1)"},
    {"leading_zero", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": 02000", 0,
     "line 4, column 125: expected ',' or '}' in object"},
    {"plus_sign", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": +2000", 0,
     "line 4, column 124: unexpected character '+'"},
    {"bare_minus", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": -", 0, "line 4, column 125: invalid number"},
    {"dot_without_digits", "\"tdr_delay_ms\": 2000", "\"tdr_delay_ms\": 2.", 0, "line 4, column 126: invalid number"},
    {"bad_literal", "\"timestamp\": null", "\"timestamp\": nul", 0, "line 4, column 49: invalid literal"},
    {"truncated_literal", NULL, "{\"a\": tru", 0, "line 1, column 7: invalid literal"},
    {"trailing_data", "\"flush_messages\": []}\n", "\"flush_messages\": []}\nx", 0,
     "line 12, column 1: unexpected data after the JSON value"},
    {"two_documents", "\"flush_messages\": []}\n", "\"flush_messages\": []} {}", 0,
     "line 11, column 24: unexpected data after the JSON value"},
    {"byte_order_mark", NULL, "\xEF\xBB\xBF{}", 0, "line 1, column 1: a byte order mark is not allowed (RFC 8259)"},
    {"trailing_comma", "\"flush_messages\": []}", "\"flush_messages\": [],}", 0,
     "line 11, column 23: expected a string key in object"},
    {"missing_colon", "\"driver\": null", "\"driver\" null", 0, "line 4, column 101: expected ':' after object key"},
    {"unterminated_string", NULL, "{\"a\": \"abc", 0, "line 1, column 11: unterminated string"},
    {"unterminated_array", NULL, "{\"a\": [1, 2", 0, "line 1, column 12: unterminated array"},
    {"control_char_in_string", "\"context\": \"ctx\"", "\"context\": \"c\x01x\"", 0,
     "line 9, column 91: control character in string"},
    {"nul_byte_in_string", NULL, RAW("{\"a\": \"x\0y\"}"), "line 1, column 9: control character in string"},
    {"nul_byte_outside", NULL, RAW("{\0}"), "line 1, column 2: expected a string key in object"},
    {"bad_utf8_byte", "\"context\": \"ctx\"", "\"context\": \"c\xFFx\"", 0,
     "line 9, column 91: invalid UTF-8 in string"},
    {"bad_utf8_overlong", "\"context\": \"ctx\"", "\"context\": \"\xC0\xAF\"", 0,
     "line 9, column 90: invalid UTF-8 in string"},
    {"bad_utf8_surrogate", "\"context\": \"ctx\"", "\"context\": \"\xED\xA0\x80\"", 0,
     "line 9, column 90: invalid UTF-8 in string"},
    {"bad_utf8_truncated", "\"context\": \"ctx\"", "\"context\": \"\xE2\x9C\"", 0,
     "line 9, column 90: invalid UTF-8 in string"},
    {"bad_utf8_above_max", "\"context\": \"ctx\"", "\"context\": \"\xF4\x90\x80\x80\"", 0,
     "line 9, column 90: invalid UTF-8 in string"},
    {"bad_utf8_lone_continuation", "\"context\": \"ctx\"", "\"context\": \"\x80\"", 0,
     "line 9, column 90: invalid UTF-8 in string"},
    {"utf8_accepted", "\"context\": \"ctx\"", "\"context\": \"\xC3\xA9\xE2\x9C\x93\xF0\x9F\x98\x80\"", 0, NULL},
    {"escape_unpaired_high", "\"context\": \"ctx\"", "\"context\": \"\\ud800\"", 0,
     "line 9, column 96: unpaired surrogate in \\u escape"},
    {"escape_unpaired_low", "\"context\": \"ctx\"", "\"context\": \"\\udc00\"", 0,
     "line 9, column 96: unpaired surrogate in \\u escape"},
    {"escape_high_then_other", "\"context\": \"ctx\"", "\"context\": \"\\ud800\\u0041\"", 0,
     "line 9, column 102: unpaired surrogate in \\u escape"},
    {"escape_nul", "\"context\": \"ctx\"", "\"context\": \"\\u0000\"", 0,
     "line 9, column 96: \\u0000 is not allowed in a report string"},
    {"escape_unknown", "\"context\": \"ctx\"", "\"context\": \"\\x41\"", 0, "line 9, column 92: invalid escape '\\x'"},
    {"escape_truncated", NULL, "{\"a\": \"\\u12", 0, "line 1, column 10: truncated \\u escape"},
    {"escape_bad_hex", "\"context\": \"ctx\"", "\"context\": \"\\u12g4\"", 0, "line 9, column 92: invalid \\u escape"},
    {"escape_pair_accepted", "\"context\": \"ctx\"", "\"context\": \"\\ud83d\\ude00 \\u00e9 \\\" \\\\ \\/ \\b\"", 0,
     NULL},
    {"wrong_type_array", "\"flush_messages\": []", "\"flush_messages\": {}", 0,
     "$.flush_messages: expected an array, got an object"},
    {"wrong_type_reason", "\"reason\": {\"hresult\": \"0x887a0006\", \"name\": \"DXGI_ERROR_DEVICE_HUNG\"}",
     "\"reason\": \"DXGI_ERROR_DEVICE_HUNG\"", 0, "$.reason: expected an object, got a string"},
    {"wrong_type_bool", "\"page_fault\": true", "\"page_fault\": 1", 0,
     "$.features.page_fault: expected true or false, got a number"},
    {"wrong_type_string", "\"list\": \"L\", \"queue\"", "\"list\": 5, \"queue\"", 0,
     "$.nodes[0].list: expected a string or null, got a number"},
    {"wrong_type_enum_value", "\"device_state\": {\"value\": 7,", "\"device_state\": {\"value\": \"7\",", 0,
     "$.device_state.value: expected an integer, got a string"},
    /* "a version-1 reader ignores members it does not know" (issue 19): a later d12rt's additive member parses */
    {"unknown_key", "\"driver\": null,", "\"driver\": null, \"extra\": 1,", 0, NULL},
    {"additive_event_stack_type", "\"messages\": []}]}]", "\"messages\": [], \"event_stack\": \"x\"}]}]", 0,
     "$.nodes[0].ops[0].event_stack: expected an array or null, got a string"},
    {"additive_bundle_draw_named", "\"messages\": []}]}]",
     "\"messages\": [], \"bundle_draw\": {\"bundle\": \"B\", \"position\": 0, \"op\": 3, \"name\": null, "
     "\"named\": 1}}]}]", 0, "$.nodes[0].ops[0].bundle_draw.named: expected true or false, got a number"},
    {"additive_bundle_draw_missing", "\"messages\": []}]}]",
     "\"messages\": [], \"bundle_draw\": {\"bundle\": \"B\", \"op\": 3, \"name\": null, \"named\": true}}]}]",
     0, "$.nodes[0].ops[0].bundle_draw: missing key \"position\""},
    {"additive_bundle_draw_position", "\"messages\": []}]}]",
     "\"messages\": [], \"bundle_draw\": {\"bundle\": null, \"position\": -1, \"op\": 3, \"name\": null, "
     "\"named\": false}}]}]", 0, "$.nodes[0].ops[0].bundle_draw.position: expected a non-negative integer, got -1"},
    {"additive_event_stack_after_op", "\"messages\": []}]}]", "\"messages\": [], \"event_stack\": [0]}]}]", 0,
     "$.nodes[0].ops[0].event_stack[0]: an enclosing BEGINEVENT must come before the op (0 >= 0)"},
    {"additive_kind_unknown", "\"flush_messages\": []}", "\"flush_messages\": [], \"kind\": \"crash\"}", 0,
     "$.kind: unknown value \"crash\""},
    {"additive_status_unknown", "\"completed_count\": 1,", "\"completed_count\": 1, \"status\": \"running\",", 0,
     "$.nodes[0].status: unknown value \"running\""},
    {"additive_signal_behind_missing_wait", "\"fence_value\": 1}]}]",
     "\"fence_value\": 1}], \"queued_signals\": [{\"fence\": \"F\", \"value\": 1, \"fence_value\": 0, "
     "\"after_submission\": 0, \"behind_wait\": 1}]}]", 0,
     "$.queues[0].queued_signals[0].behind_wait: wait 1 does not exist (the queue has 1)"},
    {"additive_members_accepted", "\"flush_messages\": []}",
     "\"flush_messages\": [], \"kind\": \"stall\", \"removed_by\": null, \"deadlock\": \"deadlock: ...\", "
     "\"notes\": [\"n\"]}", 0, NULL},
    {"missing_key", "\"driver\": null,", "", 0, "$: missing key \"driver\""},
    {"duplicate_key", "\"driver\": null,", "\"driver\": null, \"driver\": null,", 0,
     "line 4, column 116: duplicate key \"driver\""},
    {"unknown_status", "\"in-progress\"", "\"running\"", 0,
     "$.queues[0].submissions[0].status: unknown value \"running\""},
    {"unknown_attribution", "\"exact\"", "\"maybe\"", 0, "$.nodes[0].ops[0].attribution: unknown value \"maybe\""},
    {"unknown_verdict", "\"never-mapped\"", "\"dangling\"", 0, "$.page_fault.verdict: unknown value \"dangling\""},
    {"null_status", "\"in-progress\"", "null", 0, "$.queues[0].submissions[0].status: expected a string, got null"},
    {"hex_uppercase_prefix", "\"0x1000\"", "\"0X1000\"", 0,
     "$.page_fault.va: expected a hex string \"0x...\" of 1 to 16 digits, got \"0X1000\""},
    {"hex_no_digits", "\"0x1000\"", "\"0x\"", 0,
     "$.page_fault.va: expected a hex string \"0x...\" of 1 to 16 digits, got \"0x\""},
    {"hex_too_long", "\"0x1000\"", "\"0x10000000000000000\"", 0,
     "$.page_fault.va: expected a hex string \"0x...\" of 1 to 16 digits, got \"0x10000000000000000\""},
    {"hex_uppercase_digits", "\"0x1000\"", "\"0xABC\"", 0,
     "$.page_fault.va: expected lowercase hex digits, got \"0xABC\""},
    {"hex_number", "\"va\": \"0x1000\"", "\"va\": 4096", 0,
     "$.page_fault.va: expected a hex string \"0x...\", got a number"},
    {"hresult_too_wide", "\"0x887a0006\"", "\"0x1887a0006\"", 0,
     "$.reason.hresult: an HRESULT has at most 8 hex digits"},
    {"ops_out_of_order", "\"messages\": []}]}]",
     "\"messages\": []}, {\"index\": 0, \"op\": 4, \"name\": null, \"depth\": 0, \"context\": null, "
     "\"attribution\": null, \"state\": null, \"messages\": []}]}]", 0,
     "$.nodes[0].ops[1].index: op index 0 does not follow 0 (ops are in increasing order)"},
    {"state_wrong_shape", "\"state\": null", "\"state\": {\"arguments\": null}", 0,
     "$.nodes[0].ops[0].state: missing key \"vertex_buffers\""},
    {"root_kind_unknown", "\"state\": null",
     "\"state\": {\"arguments\": null, \"vertex_buffers\": [], \"index_buffer\": null, \"root_descriptors\": "
     "[{\"parameter\": 0, \"kind\": \"RTV\", \"va\": \"0x0\", \"resource\": null}]}", 0,
     "$.nodes[0].ops[0].state.root_descriptors[0].kind: unknown value \"RTV\""},
};

/* BASE with `from` (its first occurrence) replaced by `to`. */
static char *apply(const edit_case *c, size_t *length)
{
    size_t to_length = c->to_length ? c->to_length : strlen(c->to);
    if (!c->from) {
        char *copy = malloc(to_length + 1);
        memcpy(copy, c->to, to_length);
        *length = to_length;
        return copy;
    }
    const char *at = strstr(BASE, c->from);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - BASE), from_length = strlen(c->from), tail = strlen(at + from_length);
    char *out = malloc(head + to_length + tail + 1);
    memcpy(out, BASE, head);
    memcpy(out + head, c->to, to_length);
    memcpy(out + head + to_length, at + from_length, tail + 1);
    *length = head + to_length + tail;
    return out;
}

static void run_edit(const edit_case *c)
{
    size_t length = 0;
    char *input = apply(c, &length);
    if (!CHECK(input != NULL)) {
        fprintf(stderr, "    case %s: text to replace not in the base report\n", c->name);
        return;
    }
    char error[512] = "unset";
    d12dred_report *report = (d12dred_report *)&report;  /* must be overwritten */
    int rc = d12dred_report_parse_buffer(input, length, &report, error, sizeof error);
    if (c->error) {
        CHECK_EQ_INT(rc, -1);
        CHECK(report == NULL);
        CHECK_EQ_STR(error, c->error);
    } else {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_STR(error, "");
        CHECK(report != NULL);
    }
    if (rc == 0 && report && strcmp(c->name, "escape_pair_accepted") == 0)
        CHECK_EQ_STR(report->nodes[0]->ops[0].context, "\xF0\x9F\x98\x80 \xC3\xA9 \" \\ / \b");
    if (rc == 0 && report && strcmp(c->name, "utf8_accepted") == 0)
        CHECK_EQ_STR(report->nodes[0]->ops[0].context, "\xC3\xA9\xE2\x9C\x93\xF0\x9F\x98\x80");
    if (rc == 0 && report && strcmp(c->name, "uint64_max_accepted") == 0)
        CHECK(report->queues[0]->waits[0].value == UINT64_MAX);
    if (rc == 0 && report && strcmp(c->name, "control") == 0) {
        CHECK_EQ_INT(report->reason, (int32_t)0x887A0006);
        CHECK_EQ_INT(report->device_state, 7);
        CHECK_EQ_INT(report->queue_count, 1);
        CHECK_EQ_INT(report->nodes[0]->ops[0].attribution, D12DRED_ATTRIBUTION_EXACT);
        CHECK_EQ_INT(report->page_fault->verdict, D12DRED_VERDICT_NEVER_MAPPED);
        CHECK_EQ_INT(report->queues[0]->submissions[0]->lists[0].node, 0);
    }
    if (rc == 0)
        d12dred_report_free(report);
    free(input);
}

/* ---- Generated inputs -------------------------------------------------------------------------------------- */

static int parse_expect(const char *data, size_t length, const char *error_prefix)
{
    char error[512] = "";
    d12dred_report *report = NULL;
    int rc = d12dred_report_parse_buffer(data, length, &report, error, sizeof error);
    if (rc == 0)
        d12dred_report_free(report);
    if (error_prefix && rc == 0)
        return 0;
    if (error_prefix && strncmp(error, error_prefix, strlen(error_prefix)) != 0 && strstr(error, error_prefix) == NULL) {
        fprintf(stderr, "    got \"%s\", expected \"%s\"\n", error, error_prefix);
        return 0;
    }
    return rc != 0 || !error_prefix;
}

/* '[' repeated: the parser stops at D12DRED_MAX_DEPTH, never recursing deeper. */
static void deep_nesting(void)
{
    size_t n = 100000;
    char *data = malloc(n);
    memset(data, '[', n);
    CHECK(parse_expect(data, n, "nesting deeper than 64"));
    memset(data, '{', n);
    CHECK(parse_expect(data, n, "expected a string key in object"));  /* '{' needs a key first */
    for (size_t i = 0; i + 5 < n; i += 5)
        memcpy(data + i, "{\"a\":", 5);
    CHECK(parse_expect(data, n - n % 5, "nesting deeper than 64"));
    free(data);
    /* 64 levels are JSON the parser accepts (then not a report); 65 are refused as too deep. */
    char within[200], beyond[200];
    memset(within, '[', 64), memset(within + 64, ']', 64);
    memset(beyond, '[', 65), memset(beyond + 65, ']', 65);
    CHECK(parse_expect(within, 128, "$: expected an object, got an array"));
    CHECK(parse_expect(beyond, 130, "nesting deeper than 64"));
}

static char *read_golden(const char *dir, const char *name, size_t *length)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = malloc(1 << 20);
    *length = fread(data, 1, (1 << 20) - 1, f);
    fclose(f);
    return data;
}

/* Every proper prefix of a real report is refused (cleanly); the whole file parses. */
static void truncated(const char *dir)
{
    static const char *const names[] = {"page_fault_exact", "hang_suspect", "dred_off"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t length;
        char *data = read_golden(dir, names[k], &length);
        if (!CHECK(data != NULL))
            continue;
        size_t refused = 0;
        for (size_t cut = 0; cut < length; cut++) {
            /* A copy of exactly `cut` bytes, so asan sees any read past the end. */
            char *prefix = malloc(cut ? cut : 1);
            memcpy(prefix, data, cut);
            d12dred_report *report = NULL;
            char error[256];
            int whitespace_tail = 1;
            for (size_t i = cut; i < length; i++)
                whitespace_tail &= data[i] == '\n';
            if (d12dred_report_parse_buffer(prefix, cut, &report, error, sizeof error) != 0)
                refused++;
            else if (!whitespace_tail)
                fprintf(stderr, "    %s: prefix of %zu bytes accepted\n", names[k], cut);
            d12dred_report_free(report);
            free(prefix);
        }
        CHECK_EQ_INT(refused, length - 1);  /* only dropping the final newline still leaves a whole report */
        CHECK(parse_expect(data, length, NULL));
        free(data);
    }
}

/* A buffer above D12DRED_MAX_FILE_BYTES is refused before any of it is read (untouched anonymous pages). */
static void too_large(void)
{
    size_t size = D12DRED_MAX_FILE_BYTES + 1;
    void *pages = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!CHECK(pages != MAP_FAILED))
        return;
    CHECK(parse_expect(pages, size, "line 1, column 1: input of 268435457 bytes is larger than the limit of 268435456"));
    munmap(pages, size);
}

/* An object of 64 members is JSON the parser accepts; one of 65 is refused (the duplicate check stays cheap). */
static void object_members(void)
{
    char text[2048];
    size_t n = 0;
    text[n++] = '{';
    for (int i = 0; i < 64; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"k%d\": 0", i ? ", " : "", i);
    size_t before_last = n;
    n += (size_t)snprintf(text + n, sizeof text - n, "}");
    CHECK(parse_expect(text, n, "$: missing key \"schema_version\" (not a d12rt DRED report)"));
    n = before_last + (size_t)snprintf(text + before_last, sizeof text - before_last, ", \"k64\": 0}");
    CHECK(parse_expect(text, n, "an object with more than 64 members"));
}

/* The value budget (D12DRED_MAX_VALUES in the real parser, lowered here): one value more is refused cleanly. */
static void value_budget(void)
{
    char text[4096];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < 999; i++)  /* the array and 999 numbers: 1000 values */
        n += (size_t)snprintf(text + n, sizeof text - n, "%s0", i ? "," : "");
    text[n++] = ']';
    char error[256] = "";
    jvalue *tree = d12__dred_json_parse_bounded(text, n, 1000, error, sizeof error);
    CHECK(tree != NULL);
    CHECK_EQ_STR(error, "");
    d12__dred_jfree(tree);
    tree = d12__dred_json_parse_bounded(text, n, 999, error, sizeof error);
    CHECK(tree == NULL);
    CHECK_EQ_STR(error, "line 1, column 1998: more than 999 JSON values");
    d12__dred_jfree(tree);
    CHECK_EQ_INT(D12DRED_MAX_VALUES, 16u << 20);
}

/* Arguments the API refuses. */
static void bad_arguments(void)
{
    char error[128];
    d12dred_report *report = (d12dred_report *)&report;
    CHECK_EQ_INT(d12dred_report_parse_buffer(NULL, 4, &report, error, sizeof error), -1);
    CHECK(report == NULL);
    CHECK_EQ_STR(error, "no input");
    CHECK_EQ_INT(d12dred_report_parse_buffer("{}", 2, NULL, error, sizeof error), -1);
    /* A tiny error buffer is truncated, never overrun. */
    char tiny[8];
    CHECK_EQ_INT(d12dred_report_parse_buffer("[", 1, &report, tiny, sizeof tiny), -1);
    CHECK_EQ_STR(tiny, "line 1,");
    CHECK_EQ_INT(d12dred_report_parse_buffer("[", 1, &report, NULL, 0), -1);
    CHECK_EQ_INT(d12dred_report_read_json("/nonexistent/report.json", &report, error, sizeof error), -1);
    CHECK_EQ_STR(error, "cannot read /nonexistent/report.json: No such file or directory");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: report_hostile_test CASE [GOLDEN_DIR]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof EDITS / sizeof EDITS[0]; i++) {
        if (strcmp(argv[1], EDITS[i].name) == 0) {
            run_edit(&EDITS[i]);
            return d12test_finish();
        }
    }
    if (strcmp(argv[1], "deep_nesting") == 0)
        deep_nesting();
    else if (strcmp(argv[1], "truncated") == 0 && argc == 3)
        truncated(argv[2]);
    else if (strcmp(argv[1], "too_large") == 0)
        too_large();
    else if (strcmp(argv[1], "bad_arguments") == 0)
        bad_arguments();
    else if (strcmp(argv[1], "object_members") == 0)
        object_members();
    else if (strcmp(argv[1], "value_budget") == 0)
        value_budget();
    else if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < sizeof EDITS / sizeof EDITS[0]; i++)
            printf("%s\n", EDITS[i].name);
        return 0;
    } else {
        fprintf(stderr, "report_hostile_test: no case %s\n", argv[1]);
        return 2;
    }
    return d12test_finish();
}
