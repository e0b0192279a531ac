/* The `d12dred html` page without a browser (d12dred_report_to_html; the browser checks are check_html.py):
 *
 *   extras    members the reader does not know (a later d12rt's) are kept as report->extras with their owner's JSON
 *             path, and the page shows each one where its owner is (the top level as its own section, a queue's,
 *             a submission's, a wait's in the queue, an op's under the op, the rest with their path); a report
 *             d12rt writes has none
 *   escape    every application string (names, contexts, messages, unknown members' keys and values) is escaped:
 *             the page holds no markup of them, only entities
 *   order     the page's parts are in their order (verdict, faulting op, queues, breadcrumbs, page fault, messages,
 *             fences), the faulting op's link names the tree's op, which is marked `fault` and inside open groups
 *
 *     report_html_test CASE GOLDEN_DIR     (ctest dred_report.html_page.CASE) */
#define _DEFAULT_SOURCE

#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "d12dred_report.h"

#define HOSTILE "<script>alert(1)</script><img src=x onerror=alert(2)>"

/* A small report with unknown members at the top level, in a queue, a submission, a node, an op and the page fault. */
static const char EXTRAS[] =
    "{\"schema_version\": 1, \"reason\": {\"hresult\": \"0x887a0006\", \"name\": \"DXGI_ERROR_DEVICE_HUNG\"},\n"
    " \"device_state\": {\"value\": 7, \"name\": \"PAGEFAULT\"},\n"
    " \"features\": {\"auto_breadcrumbs\": true, \"breadcrumb_contexts\": true, \"markers_only\": false,"
    " \"page_fault\": true, \"watson_dump\": false, \"future_flag\": true},\n"
    " \"runtime_version\": \"d12rt 0.1.0\", \"timestamp\": null, \"process\": {\"name\": \"app\", \"id\": 7},"
    " \"driver\": null, \"tdr_delay_ms\": 2000,\n"
    " \"fence_history\": [{\"fence\": \"Frame fence\", \"value\": 10, \"by\": \"Streaming queue\"},"
    " {\"fence\": \"Frame fence\", \"value\": 3, \"by\": \"" HOSTILE "\"}],\n"
    " \"queues\": [{\"name\": \"Q\", \"type\": {\"value\": 0, \"name\": \"DIRECT\"}, \"faulted\": true,\n"
    "   \"submissions\": [{\"sequence\": 1, \"status\": \"in-progress\", \"lists\": [{\"list\": \"L\", \"node\": 0}],"
    " \"reset_in_flight\": {\"generation\": [1, 2]}}],\n"
    "   \"pending_waits\": [], \"queue_extra\": \"per queue\"}],\n"
    " \"nodes\": [{\"list\": \"L\", \"queue\": \"Q\", \"submission\": 1, \"breadcrumb_count\": 2, \"completed_count\": 1,\n"
    "   \"node_extra\": true,\n"
    "   \"ops\": [{\"index\": 0, \"op\": 4, \"name\": \"DRAWINDEXEDINSTANCED\", \"depth\": 0, \"context\": \"ctx\","
    " \"attribution\": null, \"state\": null, \"messages\": []},"
    " {\"index\": 1, \"op\": 4, \"name\": \"DRAWINDEXEDINSTANCED\", \"depth\": 0, \"context\": null,"
    " \"attribution\": \"exact\", \"state\": null, \"messages\": [], \"bundle_op\": {\"" HOSTILE "\": 7}}]}],\n"
    " \"page_fault\": {\"va\": \"0x1000\", \"flags\": 0, \"verdict\": \"never-mapped\", \"existing\": [], \"freed\": [],"
    " \"nearest_below\": null, \"nearest_above\": null, \"timeline\": null},\n"
    " \"flush_messages\": []}\n";

static d12dred_report *parse(const char *data, size_t length)
{
    char error[512] = "";
    d12dred_report *report = NULL;
    CHECK_EQ_INT(d12dred_report_parse_buffer(data, length, &report, error, sizeof error), 0);
    CHECK_EQ_STR(error, "");
    return report;
}

/* Where `needle` starts in the page after `from` (NULL: not there). */
static const char *after(const char *page, const char *from, const char *needle)
{
    const char *at = from ? strstr(page, from) : page;
    return at ? strstr(at, needle) : NULL;
}

static void extras(void)
{
    d12dred_report *report = parse(EXTRAS, strlen(EXTRAS));
    if (!CHECK(report != NULL))
        return;
    static const char *const expected[][2] = {
        {"$", "fence_history"}, {"$.queues[0].submissions[0]", "reset_in_flight"}, {"$.queues[0]", "queue_extra"},
        {"$.nodes[0]", "node_extra"}, {"$.nodes[0].ops[1]", "bundle_op"}, {"$.page_fault", "timeline"},
        {"$.features", "future_flag"},
    };
    size_t count = sizeof expected / sizeof expected[0];
    CHECK_EQ_INT(report->extra_count, count);
    for (size_t i = 0; i < count; i++) {
        int found = 0;
        for (size_t j = 0; j < report->extra_count; j++)
            found |= strcmp(report->extras[j].owner, expected[i][0]) == 0 &&
                     strcmp(report->extras[j].key, expected[i][1]) == 0;
        if (!CHECK(found))
            fprintf(stderr, "    no extra %s.%s\n", expected[i][0], expected[i][1]);
    }
    char *page = d12dred_report_to_html(report, "x.json", NULL);
    if (CHECK(page != NULL)) {
        /* each where its owner is */
        CHECK(after(page, "<section class=\"extra\"><h2>fence_history", "Streaming queue") != NULL);
        CHECK(after(page, "id=\"queue-0\"", "<dt>queue_extra</dt><dd><span class=\"str\">per queue</span>") != NULL);
        CHECK(after(page, "id=\"node-0\"", "<dt>node_extra</dt><dd>true</dd>") != NULL);
        CHECK(after(page, "id=\"op-0-1\"", "<dt>bundle_op</dt>") != NULL);
        CHECK(after(page, "id=\"page-fault\"", "<dt>timeline</dt><dd><span class=\"null\">null</span>") != NULL);
        CHECK(after(page, "id=\"queue-0\"", "<dt>reset_in_flight</dt>") != NULL);
        CHECK(after(page, "<section id=\"other\">", "$.features.future_flag") != NULL);
        /* an array of flat objects is a table, its values in the cells */
        CHECK(after(page, "fence_history", "<th>fence</th><th>value</th><th>by</th>") != NULL);
        CHECK(after(page, "fence_history", "<td>10</td>") != NULL);
        CHECK(strstr(page, "<script") == NULL && strstr(page, "<img") == NULL);
        CHECK(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;") != NULL);
    }
    free(page);
    d12dred_report_free(report);
}

/* Every string the builder takes, as markup; the page must show it only as text. */
static void escape(void)
{
    d12dred_report *r = d12dred_report_new();
    d12dred_report_set_reason(r, (int32_t)0x887A0006, HOSTILE);
    d12dred_report_set_device_state(r, 7);
    d12dred_report_set_process(r, HOSTILE, 1);
    d12dred_report_set_driver(r, HOSTILE);
    d12dred_report_set_removed_by(r, HOSTILE);
    d12dred_report_add_note(r, HOSTILE);
    d12dred_report_set_kind(r, "removal");
    d12dred_queue *q = d12dred_report_add_queue(r, HOSTILE, 0);
    d12dred_queue_add_wait(q, HOSTILE, 2, 1);
    d12dred_queue_add_signal(q, HOSTILE, 3, 1, 1, 0);
    d12dred_node *n = d12dred_report_add_node(r, HOSTILE, HOSTILE, 1, 3, 1);
    d12dred_submission_add_list(d12dred_queue_add_submission(q, 1, D12DRED_SUBMISSION_IN_PROGRESS), HOSTILE, 0);
    d12dred_node_add_op(n, 0, 1, 0, HOSTILE);
    d12dred_op *op = d12dred_node_add_op(n, 1, 4, 1, HOSTILE);
    d12dred_op_set_attribution(op, D12DRED_ATTRIBUTION_EXACT);
    d12dred_op_add_message(op, 1506, 0, 0, HOSTILE);
    d12dred_op_state *s = d12dred_op_get_state(op);
    d12dred_op_state_set_arguments(s, HOSTILE);
    d12dred_op_state_add_vertex_buffer(s, 0, 0x1000, 16, 4, HOSTILE);
    d12dred_page_fault *pf = d12dred_report_set_page_fault(r, 0x1000, 0);
    d12dred_page_fault_set_verdict(pf, D12DRED_VERDICT_USE_AFTER_FREE);
    d12dred_page_fault_add_freed(pf, HOSTILE, 1, 0x1000, 0x10000, true);
    d12dred_page_fault_set_below(pf, HOSTILE, 1, 0, 0x1000, 0, false);
    d12dred_page_fault_set_detail(pf, HOSTILE);
    d12dred_report_add_flush_message(r, 1506, 0, 0, HOSTILE);
    d12dred_report_find_deadlock(r);
    char *page = d12dred_report_to_html(r, HOSTILE, NULL);
    if (CHECK(page != NULL)) {
        CHECK(strstr(page, "<script") == NULL);
        CHECK(strstr(page, "<img") == NULL);
        CHECK(strstr(page, "onerror=alert(2)>") == NULL);
        /* the title, the verdict, the op line, the map, the message: each an escaped copy */
        size_t copies = 0;
        for (const char *p = page; (p = strstr(p, "&lt;script&gt;alert(1)&lt;/script&gt;")); p++)
            copies++;
        CHECK(copies >= 15);
    }
    free(page);
    d12dred_report_free(r);
}

/* The faulting op's link in the first screen, show's op line in it. */
#define FAULT_LINK "<a href=\"#op-0-5\" id=\"fault-op-line\">#5 DRAWINDEXEDINSTANCED(4)  &lt;- FAULT (exact)</a>"

static void order(const char *dir)
{
    char path[1024], error[512] = "";
    snprintf(path, sizeof path, "%s/page_fault_exact.json", dir);
    d12dred_report *report = NULL;
    CHECK_EQ_INT(d12dred_report_read_json(path, &report, error, sizeof error), 0);
    CHECK_EQ_STR(error, "");
    char *page = report ? d12dred_report_to_html(report, "page_fault_exact.json", NULL) : NULL;
    if (CHECK(page != NULL)) {
        static const char *const parts[] = {"<title>DRED report: DXGI_ERROR_DEVICE_HUNG, PAGEFAULT (7) ",
                                            "id=\"verdict\"", "never-mapped: no allocation", "id=\"fault-op\"",
                                            FAULT_LINK,
                                            "id=\"queues\"", "id=\"breadcrumbs\"",
                                            "<details class=\"ev\" open><summary><div class=\"op done\" id=\"op-0-2\"",
                                            "<div class=\"op pending fault\" id=\"op-0-5\">", "id=\"page-fault\"",
                                            "id=\"fault-va\"", "id=\"messages\"", "id=\"fences\"", "</html>\n"};
        const char *at = page;
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            const char *found = at ? strstr(at, parts[i]) : NULL;
            if (!CHECK(found != NULL))
                fprintf(stderr, "    not found (in order): %s\n", parts[i]);
            at = found ? found + strlen(parts[i]) : at;
        }
        CHECK(strstr(page, "http:") == NULL && strstr(page, "https:") == NULL && strstr(page, "file:") == NULL &&
              strstr(page, "src=") == NULL);
    }
    free(page);
    d12dred_report_free(report);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: report_html_test extras|escape|order [GOLDEN_DIR]\n");
        return 2;
    }
    if (strcmp(argv[1], "extras") == 0)
        extras();
    else if (strcmp(argv[1], "escape") == 0)
        escape();
    else if (strcmp(argv[1], "order") == 0 && argc == 3)
        order(argv[2]);
    else
        return 2;
    return d12test_finish();
}
