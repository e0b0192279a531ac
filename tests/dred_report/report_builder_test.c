/* The d12dred_report builder and helpers: UTF-8 sanitising and wide-string conversion, string ownership, op
 * lookup, node indices, the atomic file write, timestamps, names, NULL arguments, and diff's notion of "same".
 *
 *     report_builder_test CASE      (ctest dred_report.builder.CASE) */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "report_cases.h"

static void utf8(void)
{
    char *s = d12dred_utf8_sanitize("plain", 5);
    CHECK_EQ_STR(s, "plain");
    free(s);
    /* Invalid bytes become U+FFFD (EF BF BD), one per bad byte; valid sequences stay. */
    s = d12dred_utf8_sanitize("a\xFF" "b\xC0\xAF" "c\xE2\x9C\x93", 9);
    CHECK_EQ_STR(s, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD" "c\xE2\x9C\x93");
    free(s);
    s = d12dred_utf8_sanitize("\xED\xA0\x80", 3);  /* an encoded surrogate */
    CHECK_EQ_STR(s, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    free(s);
    s = d12dred_utf8_sanitize("\xF0\x9F\x98", 3);  /* truncated 4-byte sequence */
    CHECK_EQ_STR(s, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    free(s);
    CHECK(d12dred_utf8_sanitize(NULL, 0) == NULL);
}

static void wide(void)
{
    char *s = d12dred_utf8_from_wide(L"Scene \u00e9\u2713");
    CHECK_EQ_STR(s, "Scene \xC3\xA9\xE2\x9C\x93");
    free(s);
    wchar_t astral[] = {0x1F600, 0xD800, 0x110000, 'x', 0};  /* a valid astral, a surrogate, past U+10FFFF */
    s = d12dred_utf8_from_wide(astral);
    CHECK_EQ_STR(s, "\xF0\x9F\x98\x80\xEF\xBF\xBD\xEF\xBF\xBDx");
    free(s);
    s = d12dred_utf8_from_wide(L"");
    CHECK_EQ_STR(s, "");
    free(s);
    CHECK(d12dred_utf8_from_wide(NULL) == NULL);
}

/* The builder copies its strings (the caller's buffer may change) and sanitises them. */
static void ownership(void)
{
    d12dred_report *r = d12dred_report_new();
    CHECK_EQ_INT(r->schema_version, D12DRED_SCHEMA_VERSION);
    char name[] = "Queue A";
    d12dred_queue *q = d12dred_report_add_queue(r, name, 2);
    name[6] = 'B';
    CHECK_EQ_STR(q->name, "Queue A");
    CHECK_EQ_INT(q->type, 2);
    CHECK_EQ_INT(d12dred_report_set_reason(r, 5, "bad\xFF"), 0);
    CHECK_EQ_STR(r->reason_name, "bad\xEF\xBF\xBD");
    CHECK_EQ_INT(d12dred_report_set_reason(r, 6, NULL), 0);
    CHECK(r->reason_name == NULL);
    CHECK_EQ_INT(r->reason, 6);
    d12dred_report_free(r);
}

static void ops(void)
{
    d12dred_report *r = d12dred_report_new();
    d12dred_node *a = d12dred_report_add_node(r, "A", "Q", 1, 1000, 10);
    d12dred_node *b = d12dred_report_add_node(r, "B", "Q", 2, 0, 0);
    CHECK_EQ_INT(d12dred_report_node_index(r, a), 0);
    CHECK_EQ_INT(d12dred_report_node_index(r, b), 1);
    CHECK_EQ_INT(d12dred_report_node_index(r, NULL), -1);
    CHECK_EQ_INT(r->node_count, 2);
    for (uint32_t i = 0; i < 1000; i++)  /* growth moves ops; find_op uses indices, not old pointers */
        CHECK(d12dred_node_add_op(a, 500 + i, i % 54, 0, i == 7 ? "seven" : NULL) != NULL);
    CHECK_EQ_INT(a->op_count, 1000);
    CHECK(d12dred_node_find_op(a, 499) == NULL);
    CHECK(d12dred_node_find_op(a, 1500) == NULL);
    d12dred_op *op = d12dred_node_find_op(a, 507);
    CHECK(op && op->op == 7 && op->context && strcmp(op->context, "seven") == 0);
    CHECK(d12dred_node_find_op(a, 1499) == &a->ops[999]);
    CHECK_EQ_INT(d12dred_node_reserve_ops(b, 70000), 0);
    CHECK(b->op_capacity >= 70000);
    d12dred_op *first = d12dred_node_add_op(b, 0, 1, 0, NULL);
    for (uint32_t i = 1; i < 70000; i++)
        d12dred_node_add_op(b, i, 0, 1, NULL);
    CHECK(first == &b->ops[0]);  /* reserved: no move */
    d12dred_op_state *state = d12dred_op_get_state(first);
    CHECK(state && d12dred_op_get_state(first) == state);  /* created once */
    d12dred_report_free(r);
}

static void null_arguments(void)
{
    CHECK(d12dred_report_add_queue(NULL, "x", 0) == NULL);
    CHECK(d12dred_report_add_node(NULL, "x", "y", 0, 0, 0) == NULL);
    CHECK(d12dred_node_add_op(NULL, 0, 0, 0, NULL) == NULL);
    CHECK(d12dred_queue_add_submission(NULL, 1, D12DRED_SUBMISSION_COMPLETED) == NULL);
    CHECK_EQ_INT(d12dred_submission_add_list(NULL, "x", 0), -1);
    CHECK_EQ_INT(d12dred_queue_add_wait(NULL, "f", 1, 0), -1);
    CHECK(d12dred_op_get_state(NULL) == NULL);
    CHECK_EQ_INT(d12dred_op_add_message(NULL, 0, 0, 0, "x"), -1);
    CHECK(d12dred_report_set_page_fault(NULL, 0, 0) == NULL);
    CHECK(d12dred_page_fault_add_freed(NULL, "x", 0, 0, 0, true) == NULL);
    CHECK_EQ_INT(d12dred_report_render(NULL, stdout), -1);
    CHECK(d12dred_report_to_json(NULL, NULL) == NULL);
    CHECK_EQ_INT(d12dred_report_diff(NULL, NULL, NULL), 1);
    d12dred_report_free(NULL);
    d12dred_report *r = d12dred_report_new();
    d12dred_submission *s = d12dred_queue_add_submission(d12dred_report_add_queue(r, NULL, 0), 1,
                                                         D12DRED_SUBMISSION_NOT_STARTED);
    CHECK_EQ_INT(d12dred_submission_add_list(s, NULL, -7), 0);
    CHECK_EQ_INT(s->lists[0].node, -1);  /* any negative index means "no node" */
    d12dred_report_free(r);
}

/* The builder refuses what the reader would refuse, so every report written reads back. */
static void refusals(void)
{
    d12dred_report *r = d12dred_report_new();
    d12dred_queue *q = d12dred_report_add_queue(r, "Q", 0);
    CHECK(d12dred_queue_add_submission(q, 1, (d12dred_submission_status)3) == NULL);
    CHECK_EQ_INT(q->submission_count, 0);
    d12dred_submission *s = d12dred_queue_add_submission(q, 1, D12DRED_SUBMISSION_COMPLETED);
    CHECK_EQ_INT(d12dred_submission_add_list(s, "L", 5), 0);  /* names no node (yet): written as -1 */
    d12dred_node *n = d12dred_report_add_node(r, "L", "Q", 1, 3, 1);
    CHECK(d12dred_node_add_op(n, 5, 0, 0, NULL) != NULL);
    CHECK(d12dred_node_add_op(n, 5, 0, 0, NULL) == NULL);  /* not above the last */
    CHECK(d12dred_node_add_op(n, 4, 0, 0, NULL) == NULL);
    CHECK(d12dred_node_add_op(n, 6, 0, 0, NULL) != NULL);
    CHECK_EQ_INT(n->op_count, 2);
    d12dred_op_state *st = d12dred_op_get_state(&n->ops[0]);
    CHECK_EQ_INT(d12dred_op_state_add_root_descriptor(st, 0, (d12dred_root_kind)3, 0, NULL), -1);
    CHECK_EQ_INT(st->root_descriptor_count, 0);
    size_t length;
    char *json = d12dred_report_to_json(r, &length);
    CHECK(json && strstr(json, "{\"list\": \"L\", \"node\": -1}") != NULL);
    d12dred_report *back = NULL;
    char error[256] = "";
    CHECK_EQ_INT(d12dred_report_parse_buffer(json, length, &back, error, sizeof error), 0);
    CHECK_EQ_STR(error, "");
    d12dred_report_free(back);
    free(json);
    d12dred_report_free(r);
}

static void write_file(void)
{
    char dir[] = "/tmp/d12dred-builder-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    char path[256], tmp_left[300];
    snprintf(path, sizeof path, "%s/report.json", dir);
    d12dred_report *r = case_hang_suspect();
    CHECK_EQ_INT(d12dred_report_write_file(r, path), 0);
    d12dred_report *back = NULL;
    char error[256];
    CHECK_EQ_INT(d12dred_report_read_json(path, &back, error, sizeof error), 0);
    CHECK_EQ_INT(d12dred_report_diff(r, back, NULL), 0);
    d12dred_report_free(back);
    snprintf(tmp_left, sizeof tmp_left, "%s.%ld.tmp", path, (long)getpid());
    CHECK(access(tmp_left, F_OK) != 0);  /* the temporary file was renamed away */
    /* A folder that does not exist: -1 with errno, nothing left behind. */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir/report.json", dir);
    errno = 0;
    CHECK_EQ_INT(d12dred_report_write_file(r, missing), -1);
    CHECK_EQ_INT(errno, ENOENT);
    d12dred_report_free(r);
    unlink(path);
    CHECK_EQ_INT(rmdir(dir), 0);  /* empty: no stray temporary file */
}

static void timestamp(void)
{
    d12dred_report *r = d12dred_report_new();
    CHECK_EQ_INT(d12dred_report_set_timestamp_seconds(r, 0), 0);
    CHECK_EQ_STR(r->timestamp, "1970-01-01T00:00:00Z");
    CHECK_EQ_INT(d12dred_report_set_timestamp_seconds(r, 1796128200), 0);
    CHECK_EQ_STR(r->timestamp, "2026-12-01T12:30:00Z");
    CHECK_EQ_INT(d12dred_report_set_timestamp(r, "custom"), 0);
    CHECK_EQ_STR(r->timestamp, "custom");
    d12dred_report_free(r);
}

static void names(void)
{
    CHECK_EQ_STR(d12dred_attribution_name(D12DRED_ATTRIBUTION_EXACT), "exact");
    CHECK_EQ_STR(d12dred_attribution_name(D12DRED_ATTRIBUTION_SUSPECT), "suspect");
    CHECK(d12dred_attribution_name(D12DRED_ATTRIBUTION_NONE) == NULL);
    CHECK_EQ_STR(d12dred_submission_status_name(D12DRED_SUBMISSION_NOT_STARTED), "not-started");
    CHECK_EQ_STR(d12dred_verdict_name(D12DRED_VERDICT_OUT_OF_BOUNDS), "out-of-bounds");
    CHECK(d12dred_verdict_name(D12DRED_VERDICT_NONE) == NULL);
    CHECK_EQ_STR(d12dred_root_kind_name(D12DRED_ROOT_UAV), "UAV");
    CHECK_EQ_STR(d12dred_queue_type_name(3), "COPY");
    CHECK(d12dred_queue_type_name(7) == NULL);
    CHECK_EQ_STR(d12dred_severity_name(0), "CORRUPTION");
    CHECK(d12dred_severity_name(5) == NULL);
    CHECK_EQ_STR(d12dred_category_name(9), "EXECUTION");
    CHECK_EQ_STR(d12dred_category_name(11), "STATE_OBJECT_DATABASE");
    CHECK(d12dred_category_name(12) == NULL);
}

/* diff: what counts as the same faulting op and verdict. */
static void diff(void)
{
    d12dred_report *a = case_page_fault_exact(), *b = case_page_fault_exact();
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 0);
    b->timestamp[0] = '1';  /* metadata is not compared */
    b->process_id = 1;
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 0);
    d12dred_op *fault = d12dred_node_find_op(b->nodes[0], 5);
    fault->attribution = D12DRED_ATTRIBUTION_SUSPECT;  /* same op, lower confidence: different */
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 1);
    fault->attribution = D12DRED_ATTRIBUTION_EXACT;
    b->page_fault->verdict = D12DRED_VERDICT_USE_AFTER_FREE;
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 1);
    b->page_fault->verdict = D12DRED_VERDICT_NEVER_MAPPED;
    b->device_state = 6;
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 1);
    d12dred_report_free(b);
    /* Two use-after-free verdicts naming different freed allocations differ. */
    d12dred_report *u1 = case_use_after_free(), *u2 = case_use_after_free();
    CHECK_EQ_INT(d12dred_report_diff(u1, u2, NULL), 0);
    free(u2->page_fault->freed[0]->name);
    u2->page_fault->freed[0]->name = strdup("Staging 4");
    CHECK_EQ_INT(d12dred_report_diff(u1, u2, NULL), 1);
    d12dred_report_free(u1);
    d12dred_report_free(u2);
    d12dred_report_free(a);
}

/* diff on a fault inside a bundle (issue 32 item 1): another draw of the bundle, or the same draw no driver named, is
 * another faulting op; the same draw is the same bug. */
static void diff_bundle(void)
{
    d12dred_report *a = case_bundle_fault(), *b = case_bundle_fault();
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 0);
    d12dred_op *fault = d12dred_node_find_op(b->nodes[0], 3);
    CHECK_EQ_INT(d12dred_op_set_bundle_draw(fault, "Foliage bundle", 0, 3, true), 0);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    CHECK_EQ_INT(d12dred_report_diff(a, b, out), 1);
    fclose(out);
    CHECK(text && strstr(text, "different: 'Scene list' on 'Direct queue' #3 EXECUTEBUNDLE(16) (exact) [bundle "
                                "'Foliage bundle', #1] DRAWINSTANCED(3) | ") != NULL);
    free(text);
    CHECK_EQ_INT(d12dred_op_set_bundle_draw(fault, "Foliage bundle", 1, 3, false), 0);
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 1);
    CHECK_EQ_INT(d12dred_op_set_bundle_draw(fault, "Foliage bundle", 1, 3, true), 0);
    CHECK_EQ_INT(d12dred_report_diff(a, b, NULL), 0);
    d12dred_report_free(a);
    d12dred_report_free(b);
}

/* The use-after-free verdict's re-creation sentence (issue 32 item 7) comes only from a release of the freed name at
 * the faulting VA followed by a creation under that name at another VA; each other timeline gives none. `edit`
 * changes case_recreated's timeline before the sentence is made (the case made it once: the detail is reset). */
static const char *const k_stale =
    "released before the list was submitted (stale list): release #1 of 'Emitter params' came before submission #43, "
    "whose list still used it; re-record the list, or keep the buffer alive while the list can be submitted";

static void recreation_case(const char *what, void (*edit)(d12dred_timeline *t), uint64_t recorded_at,
                            const char *expected_tail)
{
    d12dred_report *r = case_recreated();
    d12dred_page_fault_set_detail(r->page_fault, k_stale);
    d12dred_timeline *t = r->timelines[0];
    if (edit)
        edit(t);
    int rc = d12dred_report_note_recreation(r, recorded_at);
    if (rc != (expected_tail ? 1 : 0))
        fprintf(stderr, "    case: %s\n", what);
    CHECK_EQ_INT(rc, expected_tail ? 1 : 0);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s%s", k_stale, expected_tail ? expected_tail : "");
    CHECK_EQ_STR(r->page_fault->detail, expected);
    d12dred_report_free(r);
}

static void same_va(d12dred_timeline *t) { t->events[2].va = t->events[0].va; }
static void other_name(d12dred_timeline *t)
{
    free(t->events[2].name);
    t->events[2].name = strdup("Emitter params 2");
}
static void before_release(d12dred_timeline *t) /* the creation elsewhere came first: no re-creation after it */
{
    t->events[1].released = false;
    t->events[2].released = true;
    t->events[2].va = t->events[0].va;
}
static void not_named(d12dred_timeline *t) /* the re-creation left out */
{
    free(t->events[2].name);
    free(t->events[2].queue);
    t->event_count = 2;
}
static void created_first_submission(d12dred_timeline *t) { t->events[2].after_submission = 0; }

static void recreation(void)
{
    recreation_case("re-created elsewhere", NULL, 40,
                    "; 'Emitter params' was released at submission #41 and re-created at #42 at another VA "
                    "(0x100040000); the list recorded at #40 still used the old one");
    recreation_case("recording submission unknown", NULL, 0,
                    "; 'Emitter params' was released at submission #41 and re-created at #42 at another VA "
                    "(0x100040000); the faulting list still used the old one");
    recreation_case("re-created before any submission", created_first_submission, 40,
                    "; 'Emitter params' was released at submission #41 and re-created before any submission at "
                    "another VA (0x100040000); the list recorded at #40 still used the old one");
    recreation_case("re-created at the same VA", same_va, 40, NULL);
    recreation_case("another name", other_name, 40, NULL);
    recreation_case("no release before it", before_release, 40, NULL);
    recreation_case("never re-created", not_named, 40, NULL);
    /* not a use-after-free: nothing */
    d12dred_report *r = case_recreated();
    d12dred_page_fault_set_detail(r->page_fault, NULL);
    r->page_fault->verdict = D12DRED_VERDICT_NEVER_MAPPED;
    CHECK_EQ_INT(d12dred_report_note_recreation(r, 40), 0);
    CHECK(r->page_fault->detail == NULL);
    d12dred_report_free(r);
    /* events out of order are refused by the builder */
    d12dred_timeline *t = NULL;
    r = d12dred_report_new();
    if (CHECK((t = d12dred_report_add_timeline(r, 0x1000, 0x1000, 0x2000)) != NULL)) {
        d12dred_timeline_event e = {false, "A", 34, 0x1000, 0x1000, 5, 0, 0, NULL};
        CHECK_EQ_INT(d12dred_timeline_add_event(t, &e), 0);
        CHECK_EQ_INT(d12dred_timeline_add_event(t, &e), -1);
        e.seq = 4;
        CHECK_EQ_INT(d12dred_timeline_add_event(t, &e), -1);
        CHECK_EQ_INT(t->event_count, 1);
    }
    d12dred_report_free(r);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*run)(void); } cases[] = {
        {"utf8", utf8}, {"wide", wide}, {"ownership", ownership}, {"ops", ops}, {"null_arguments", null_arguments},
        {"write_file", write_file}, {"timestamp", timestamp}, {"names", names}, {"diff", diff}, {"refusals", refusals},
        {"diff_bundle", diff_bundle}, {"recreation", recreation},
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return d12test_finish();
        }
    }
    fprintf(stderr, "usage: report_builder_test CASE\n");
    return 2;
}
