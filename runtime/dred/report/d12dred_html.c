/* `d12dred html`: the report as one self-contained HTML page (issue 32 item 8; docs/dred-report.md "The page").
 *
 * No script, no external file, no URL: inline CSS only, and a Content-Security-Policy of `default-src 'none'` so
 * that the page can fetch nothing even if something slipped through. Every string of the report is an application's
 * (names, contexts, messages) and is escaped (d12__dred_html_escape). The words are show's: the op lines, the op
 * state, the messages, the allocations and the verdict are built with the same helpers as the `show` tree
 * (d12dred_render.c) and then escaped, so the page and `show` state the same facts in the same words.
 *
 * Order: the verdict and the faulting op first (in the first screen), then the queues with their submissions, the
 * breadcrumb tree (a <details> per BeginEvent/EndEvent group, open on the way to the attributed ops; the faulting op
 * highlighted), the page fault with its VA map, the driver messages, the fences, and whatever members this d12dred
 * does not know as a key/value tree (d12dred_html_tree.c). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12_dred_names.h"
#include "d12dred_html_internal.h"

typedef d12__dred_buf buf;

#define put d12__dred_buf_puts
#define putf d12__dred_buf_printf
#define esc_text d12__dred_html_text
#define esc_name d12__dred_html_name
#define esc_fragment d12__dred_html_fragment

/* A node with at most this many ops has every BeginEvent group open; a longer one only those on the way to an
 * attributed op or the last completed one (show's long-node window, d12dred_render.c). */
#define HTML_OPEN_NODE_OPS 64u
/* With at most this many nodes every node is open; with more, the nodes holding an attributed op. */
#define HTML_OPEN_NODES 4u

static const char k_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#fafafa}"
    "main{max-width:1200px;margin:0 auto;padding:12px 20px 40px}"
    "h1{font-size:20px;margin:4px 0 8px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ccc}"
    "h3{font-size:15px;margin:14px 0 6px}code,pre,.op,.line{font:13px/1.4 ui-monospace,monospace}"
    "pre{margin:2px 0 4px;white-space:pre-wrap;word-break:break-all}"
    ".dim{color:#666;font-weight:normal}.null{color:#888}.str{color:#0a4f8f}"
    "#summary{display:grid;grid-template-columns:1fr 1fr;gap:10px}"
    ".box{border:1px solid #bbb;border-radius:6px;padding:8px 12px;background:#fff}"
    ".box h2{margin:0 0 4px;border:0;font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:#555}"
    "#verdict{border-left:6px solid #b00020}#fault-op{border-left:6px solid #e65100}"
    "#verdict-text{font-size:16px;font-weight:600;margin:2px 0;word-break:break-word}"
    ".big{font-size:15px;font-weight:600;word-break:break-all}"
    "#facts{grid-column:1/3;display:flex;flex-wrap:wrap;gap:4px 22px;margin:0}"
    "#facts div{white-space:nowrap}#facts dt,#facts dd{display:inline;margin:0}#facts dt{color:#555;margin-right:6px}"
    "nav{margin:10px 0 0;font-size:13px}nav a{margin-right:14px}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:4px 0}"
    "dl.facts dt{color:#555}dl.facts dd{margin:0}"
    "table{border-collapse:collapse;margin:4px 0 8px}th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;"
    "vertical-align:top}th{background:#eee}"
    ".queue{margin:8px 0 14px}.mark{color:#b00020}.backwards,.down{color:#b00020;font-weight:600}"
    "tr.st-in-progress td:nth-child(2){color:#e65100;font-weight:600}tr.st-not-started td:nth-child(2){color:#666}"
    "details.node{border:1px solid #bbb;border-radius:6px;margin:8px 0;background:#fff}"
    "details.node>summary{padding:6px 10px;background:#f0f0f4;cursor:pointer}"
    ".ops{padding:4px 10px 8px}details.ev>summary{cursor:pointer}details.ev>summary>.op{display:inline-block}"
    "details.ev>.body{margin-left:22px}"
    "details.skip>summary{color:#666;cursor:pointer;font-style:italic}"
    ".op{padding:1px 4px;border-radius:3px}.opl{white-space:pre-wrap}.op.done{color:#2e7d32}"
    ".op.fault{background:#ffd7d7;outline:2px solid #b00020;color:#000}"
    ".op.suspect{background:#ffe9c7;outline:2px solid #e65100;color:#000}"
    ".op .state,.op .msg,.op .bundle{margin-left:28px;color:#333}.msg.s0,.msg.s1{color:#b00020}.msg.s2{color:#8a5a00}"
    ".vamap{display:flex;flex-wrap:wrap;align-items:stretch;gap:4px;margin:6px 0}"
    ".cell{border:2px solid #888;border-radius:4px;padding:4px 8px;max-width:340px;background:#fff;"
    "font:12px/1.4 ui-monospace,monospace;word-break:break-all}"
    ".cell.live{border-color:#2e7d32;background:#eef8ee}.cell.freed{border-color:#b00020;background:#fdeeee;"
    "border-style:dashed}.cell.holds{box-shadow:0 0 0 3px #ffb300}"
    ".cell.va{border-color:#000;background:#fff3c4;font-weight:600}"
    ".tag{display:block;font:11px system-ui,sans-serif;text-transform:uppercase;color:#555}"
    ".vaside{display:flex;flex-wrap:wrap;gap:16px}.vaside>div{flex:1 1 420px;min-width:0}"
    ".timeline{margin:4px 0 10px;padding-left:8px;list-style:none}.timeline li.released{color:#b00020}"
    ".tltitle{margin:6px 0 2px}"
    ".gap{align-self:center;color:#666;font-size:12px;padding:0 4px;border-top:2px dotted #999}"
    "dl.kv{margin:2px 0 2px 8px}dl.kv>dt{font-weight:600;float:left;clear:left;margin-right:8px}"
    "dl.kv>dd{margin:0 0 2px 0;overflow:hidden}ol.kv{margin:2px 0;padding-left:28px}";

/* ---- The head and the first screen ------------------------------------------------------------------------- */

static void page_head(buf *b, const d12dred_report *r, const char *title)
{
    put(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>DRED report: ");
    esc_text(b, r->reason_name ? r->reason_name : "?");
    buf f = {0};
    d12__dred_put_enum(&f, d12_dred_device_state_name(r->device_state), r->device_state);
    put(b, ", ");
    esc_fragment(b, &f);
    if (title) {
        put(b, " \xE2\x80\x94 "); /* an em dash */
        esc_text(b, title);
    }
    putf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", k_style);
}

static int is_stall(const d12dred_report *r)
{
    return d12dred_report_is_stall(r);
}

/* A stall report (D12RT_STALL_MS) is of a device that was not removed: its moment is the report's, in the present. */
static const char *moment(const d12dred_report *r)
{
    return is_stall(r) ? "when the stall was reported" : "before removal";
}

/* The verdict, in show's words and order: a hang's or stall's (the deadlock, a fence gone backwards: show's header
 * `verdict`), the page fault's, the cause (`removed_by`), the stall; the first is the headline. When there is none of
 * them, the reason and device state say what is known. */
static void summary_verdict(buf *b, const d12dred_report *r)
{
    put(b, "<section class=\"box\" id=\"verdict\"><h2>Verdict</h2>\n<p id=\"verdict-text\">");
    buf f = {0};
    const char *wait_verdict = d12dred_report_wait_verdict(r);
    if (wait_verdict) {
        esc_text(b, wait_verdict);
    } else if (r->page_fault) {
        d12__dred_put_verdict(&f, r->page_fault);
        esc_fragment(b, &f);
    } else if (r->removed_by) {
        esc_text(b, r->removed_by);
    } else if (is_stall(r)) {
        d12__dred_put_stall(&f, r);
        esc_fragment(b, &f);
    } else {
        esc_text(b, r->reason_name ? r->reason_name : "?");
        putf(b, ", device state ");
        d12__dred_put_enum(&f, d12_dred_device_state_name(r->device_state), r->device_state);
        esc_fragment(b, &f);
        put(b, r->features.page_fault ? ": no page fault" : "");
    }
    put(b, "</p>\n");
    if (r->page_fault && wait_verdict) { /* what the headline did not say */
        put(b, "<p>");
        d12__dred_put_verdict(&f, r->page_fault);
        esc_fragment(b, &f);
        put(b, "</p>\n");
    }
    if (r->page_fault) {
        put(b, "<p>page fault at ");
        d12__dred_html_va(b, r->page_fault);
        put(b, "</p>\n");
    }
    if (r->page_fault && r->page_fault->detail) {
        put(b, "<p class=\"detail\">");
        esc_text(b, r->page_fault->detail);
        put(b, "</p>\n");
    }
    if (r->removed_by && (wait_verdict || r->page_fault)) {
        put(b, "<p>cause: ");
        esc_text(b, r->removed_by);
        put(b, "</p>\n");
    }
    if (is_stall(r) && (wait_verdict || r->page_fault || r->removed_by)) {
        put(b, "<p>");
        d12__dred_put_stall(&f, r);
        esc_fragment(b, &f);
        put(b, "</p>\n");
    }
    put(b, "</section>\n");
}

/* Show's mark of the first outstanding op where no op is attributed (once per node: the scan is the node's length). */
static int mark_first_outstanding(const d12dred_node *n)
{
    return !d12__dred_node_has_attribution(n) && n->completed_count < n->breadcrumb_count;
}

static void put_op_line(buf *b, const d12dred_report *r, const d12dred_node *n, const d12dred_op *op, int mark_first)
{
    buf f = {0};
    d12__dred_put_op_line(&f, r, n, op, mark_first);
    esc_fragment(b, &f);
}

/* The bundle's draw under an EXECUTEBUNDLE op, in show's words (issue 32 item 1). */
static void put_bundle_draw(buf *b, const d12dred_op *op)
{
    if (!op->bundle_draw)
        return;
    buf f = {0};
    d12__dred_put_bundle_draw(&f, op->bundle_draw);
    put(b, "<div class=\"bundle\">");
    esc_fragment(b, &f);
    put(b, "</div>");
}

static void put_message(buf *b, const d12dred_message *m)
{
    buf f = {0};
    d12__dred_put_message(&f, m);
    putf(b, "<div class=\"msg s%" PRIu32 "\">", m->severity > 4 ? 4u : m->severity);
    esc_fragment(b, &f);
    put(b, "</div>\n");
}

static void put_node_title(buf *b, size_t index, const d12dred_node *n)
{
    buf f = {0};
    d12__dred_put_node_title(&f, index, n);
    esc_fragment(b, &f);
}

static void summary_fault_op(buf *b, const d12dred_report *r)
{
    d12__dred_fault_site site = d12__dred_find_fault(r);
    put(b, "<section class=\"box\" id=\"fault-op\"><h2>Faulting op</h2>\n");
    if (!site.op) {
        put(b, r->node_count ? "<p>none: no op was attributed (no list was running an op the GPU had not finished)</p>"
                             : r->features.auto_breadcrumbs ? "<p>none: no command list was outstanding</p>"
                                                            : "<p>none (auto-breadcrumbs were off)</p>");
        put(b, "</section>\n");
        return;
    }
    size_t node = (size_t)d12dred_report_node_index(r, site.node);
    putf(b, "<p class=\"big\"><a href=\"#op-%zu-%" PRIu32 "\" id=\"fault-op-line\">", node, site.op->index);
    put_op_line(b, r, site.node, site.op, mark_first_outstanding(site.node));
    put(b, "</a></p>\n<p>");
    put_node_title(b, node, site.node);
    putf(b, "; %" PRIu32 " of %" PRIu32 " ops completed (%s)</p>\n", site.node->completed_count,
         site.node->breadcrumb_count, d12__dred_node_status_text(site.node));
    put_bundle_draw(b, site.op);
    if (site.op->state && site.op->state->arguments) {
        put(b, "<p><code>");
        esc_text(b, site.op->state->arguments);
        put(b, "</code></p>\n");
    }
    for (size_t i = 0; i < site.op->message_count && i < 2; i++)
        put_message(b, &site.op->messages[i]);
    put(b, "</section>\n");
}

static void fact(buf *b, const char *label)
{
    putf(b, "<div><dt>%s</dt><dd>", label);
}

/* A fact that is a report string, when the report has it. */
static void text_fact(buf *b, const char *label, const char *text)
{
    if (!text)
        return;
    fact(b, label);
    esc_text(b, text);
    put(b, "</dd></div>");
}

static void summary_facts(buf *b, const d12dred_report *r)
{
    put(b, "<dl id=\"facts\">");
    if (!is_stall(r)) { /* a stall has no removal reason (issue 32 item 4) */
        fact(b, "reason");
        esc_text(b, r->reason_name ? r->reason_name : "?");
        putf(b, " (0x%08" PRIx32 ")</dd></div>", (uint32_t)r->reason);
    }
    if (!is_stall(r)) { /* nor a removal state */
        fact(b, "device state");
        buf f = {0};
        d12__dred_put_enum(&f, d12_dred_device_state_name(r->device_state), r->device_state);
        esc_fragment(b, &f);
        put(b, "</dd></div>");
    }
    if (r->page_fault) {
        fact(b, "page fault");
        d12__dred_html_va(b, r->page_fault);
        put(b, "</dd></div>");
    }
    fact(b, "kind");
    put(b, is_stall(r) ? "stall (the device was not removed)</dd></div>" : "removal</dd></div>");
    if (r->stalled_ms)
        putf(b, "<div><dt>no GPU progress for</dt><dd>%" PRIu32 " ms</dd></div>", r->stalled_ms);
    if (r->process_name || r->process_id) {
        fact(b, "process");
        esc_text(b, r->process_name ? r->process_name : "?");
        putf(b, " (pid %" PRIu32 ")</dd></div>", r->process_id);
    }
    text_fact(b, "time", r->timestamp);
    text_fact(b, "driver", r->driver);
    text_fact(b, "runtime", r->runtime_version);
    if (r->tdr_delay_ms)
        putf(b, "<div><dt>TDR delay</dt><dd>%" PRIu32 " ms</dd></div>", r->tdr_delay_ms);
    const d12dred_features *ft = &r->features;
    putf(b, "<div><dt>features</dt><dd>%s%s%s%s%s%s</dd></div>", ft->auto_breadcrumbs ? "auto-breadcrumbs " : "",
         ft->markers_only ? "(markers only) " : "", ft->breadcrumb_contexts ? "breadcrumb-contexts " : "",
         ft->page_fault ? "page-fault " : "", ft->watson_dump ? "watson-dump " : "",
         ft->auto_breadcrumbs || ft->breadcrumb_contexts || ft->page_fault || ft->watson_dump ? "" : "none");
    put(b, "</dl>\n");
}

static void page_summary(buf *b, const d12dred_report *r)
{
    put(b, "<h1>DRED report <span class=\"dim\">(schema ");
    putf(b, "%" PRIu32 ")</span></h1>\n<div id=\"summary\">\n", r->schema_version);
    summary_verdict(b, r);
    summary_fault_op(b, r);
    summary_facts(b, r);
    put(b, "</div>\n");
    for (size_t i = 0; i < r->note_count; i++) {
        put(b, "<p class=\"note\">note: ");
        esc_text(b, r->notes[i]);
        put(b, "</p>\n");
    }
    put(b, "<nav><a href=\"#queues\">Queues</a><a href=\"#breadcrumbs\">Breadcrumbs</a>");
    if (r->page_fault || !is_stall(r))
        put(b, "<a href=\"#page-fault\">Page fault</a>");
    put(b, "<a href=\"#messages\">Driver messages</a><a href=\"#fences\">Fences</a></nav>\n");
}

/* ---- Queues ------------------------------------------------------------------------------------------------ */

/* A fence as show names it: 'name', 'name' (0x...) where two fences of the report share it, unnamed fence 0x... */
static void put_fence(buf *b, const d12dred_report *r, const char *name, int has_id, uint64_t id)
{
    buf f = {0};
    d12__dred_put_fence(&f, r, name, has_id, id);
    esc_fragment(b, &f);
}

static void put_wait(buf *b, const d12dred_report *r, const d12dred_wait *w, const char *relation)
{
    put_fence(b, r, w->fence, w->has_fence_id, w->fence_id);
    putf(b, " %s %" PRIu64 " (%s %" PRIu64 " %s)", relation, w->value, is_stall(r) ? "at" : "was", w->fence_value,
         moment(r));
}

/* The extras of the object at `format` (a JSON path with up to two indices). */
static void extras_at(buf *b, d12__dred_html_extras *extras, const char *format, size_t i, size_t j)
{
    if (!extras->order)
        return; /* none (the usual case: no path to format per op) */
    char owner[96];
    snprintf(owner, sizeof owner, format, i, j);
    d12__dred_html_extras_of(b, extras, owner);
}

static void page_submission(buf *b, const d12dred_report *r, const d12dred_submission *s,
                            d12__dred_html_extras *extras, size_t queue, size_t index)
{
    const char *status = d12dred_submission_status_name(s->status);
    putf(b, "<tr class=\"st-%s\"><td>#", status ? status : "unknown");
    if (s->sequence)
        putf(b, "%" PRIu64, s->sequence);
    else
        put(b, "?");
    putf(b, "</td><td>%s", d12__dred_status_text(s->status));
    if (s->waiting_on) {
        put(b, " (waiting on ");
        put_wait(b, r, s->waiting_on, "&gt;=");
        put(b, ")");
    }
    put(b, "</td><td>");
    for (size_t j = 0; j < s->list_count; j++) {
        put(b, j ? ", " : "");
        int32_t node = s->lists[j].node;
        if (node >= 0 && (size_t)node < r->node_count)
            putf(b, "<a href=\"#node-%" PRId32 "\">", node);
        esc_name(b, s->lists[j].list);
        if (node >= 0 && (size_t)node < r->node_count)
            putf(b, " [node %" PRId32 "]</a>", node);
    }
    extras_at(b, extras, "$.queues[%zu].submissions[%zu]", queue, index);
    put(b, "</td></tr>\n");
}

static void page_queue(buf *b, const d12dred_report *r, size_t index, d12__dred_html_extras *extras)
{
    const d12dred_queue *q = r->queues[index];
    putf(b, "<div class=\"queue%s\" id=\"queue-%zu\"><h3>queue ", q->faulted ? " faulted" : "", index);
    esc_name(b, q->name);
    const char *type = d12dred_queue_type_name(q->type);
    if (type)
        putf(b, " (%s)", type);
    else
        putf(b, " (type %" PRIu32 ")", q->type);
    put(b, q->faulted ? " <span class=\"mark\">\xE2\x86\x90 faulted here</span></h3>\n" : "</h3>\n");
    extras_at(b, extras, "$.queues[%zu]", index, 0);
    if (q->submission_count == 0 && q->wait_count == 0)
        put(b, "<p class=\"dim\">nothing outstanding</p>\n");
    if (q->submission_count) {
        put(b, "<table><thead><tr><th>submission</th><th>status</th><th>command lists</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < q->submission_count; i++)
            page_submission(b, r, q->submissions[i], extras, index, i);
        put(b, "</tbody></table>\n");
    }
    for (size_t i = 0; i < q->wait_count; i++) {
        put(b, "<div class=\"line\">pending wait  fence ");
        put_wait(b, r, &q->waits[i], "&gt;=");
        if (q->waits[i].backwards) {
            put(b, "<div class=\"backwards\">");
            esc_text(b, q->waits[i].backwards);
            put(b, "</div>");
        }
        extras_at(b, extras, "$.queues[%zu].pending_waits[%zu]", index, i);
        put(b, "</div>\n");
    }
    for (size_t i = 0; i < q->signal_count; i++) {
        const d12dred_wait *s = &q->signals[i];
        put(b, "<div class=\"line\">queued signal fence ");
        put_wait(b, r, s, "=");
        if (s->behind_wait >= 0 && (size_t)s->behind_wait < q->wait_count) {
            const d12dred_wait *w = &q->waits[s->behind_wait];
            put(b, ", behind the wait on ");
            put_fence(b, r, w->fence, w->has_fence_id, w->fence_id);
        }
        extras_at(b, extras, "$.queues[%zu].queued_signals[%zu]", index, i);
        put(b, "</div>\n");
    }
    put(b, "</div>\n");
}

static void page_queues(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    put(b, "<section id=\"queues\"><h2>Queues</h2>\n");
    if (!r->queue_count)
        put(b, "<p>none recorded</p>\n");
    for (size_t i = 0; i < r->queue_count; i++)
        page_queue(b, r, i, extras);
    if (r->deadlock) {
        put(b, "<p class=\"line\" id=\"deadlock\">");
        esc_text(b, r->deadlock);
        put(b, "</p>\n");
    }
    put(b, "</section>\n");
}

/* ---- The breadcrumb tree ----------------------------------------------------------------------------------- */

typedef struct tree {
    const d12dred_report *r;
    const d12dred_node *n;
    size_t node;
    const unsigned char *in_stack; /* BEGINEVENTs enclosing an attributed or the last completed op, or NULL */
    int mark_first;                /* mark_first_outstanding(n) */
    uint32_t open[33];             /* depths of the open BeginEvent groups (as deep as show indents) */
    size_t open_count;
    d12__dred_html_extras *extras;
} tree;

static void put_op(buf *b, tree *t, size_t i, unsigned extra_indent)
{
    const d12dred_op *op = &t->n->ops[i];
    const char *mark = op->attribution == D12DRED_ATTRIBUTION_EXACT     ? " fault"
                       : op->attribution == D12DRED_ATTRIBUTION_SUSPECT ? " suspect"
                                                                        : "";
    putf(b, "<div class=\"op %s%s\" id=\"op-%zu-%" PRIu32 "\"", op->index < t->n->completed_count ? "done" : "pending",
         mark, t->node, op->index);
    if (extra_indent)
        putf(b, " style=\"margin-left:%ucm\"", extra_indent);
    put(b, "><span class=\"opl\">");
    put_op_line(b, t->r, t->n, op, t->mark_first);
    put(b, "</span>");
    put_bundle_draw(b, op);
    if (op->state) {
        buf f = {0};
        d12__dred_render_state(&f, 0, op->state);
        put(b, "<pre class=\"state\">");
        esc_fragment(b, &f);
        put(b, "</pre>");
    }
    for (size_t m = 0; m < op->message_count; m++)
        put_message(b, &op->messages[m]);
    extras_at(b, t->extras, "$.nodes[%zu].ops[%zu]", t->node, i);
    extras_at(b, t->extras, "$.nodes[%zu].ops[%zu].state", t->node, i);
    put(b, "</div>\n");
}

/* Extra indentation of an op deeper than the open groups (its BeginEvent was not kept, or is hidden). */
static unsigned deeper(const tree *t, const d12dred_op *op)
{
    uint32_t depth = op->depth > 32 ? 32 : op->depth;
    return depth > t->open_count ? (unsigned)(depth - t->open_count) : 0;
}

static void close_groups(buf *b, tree *t, uint32_t depth)
{
    while (t->open_count && t->open[t->open_count - 1] >= depth) {
        put(b, "</div></details>\n");
        t->open_count--;
    }
}

static void put_shown_op(buf *b, tree *t, size_t i)
{
    const d12dred_op *op = &t->n->ops[i];
    close_groups(b, t, op->depth);
    if (op->op != 1 || t->open_count == sizeof t->open / sizeof t->open[0]) { /* not a BEGINEVENT */
        put_op(b, t, i, deeper(t, op));
        return;
    }
    int open = t->n->op_count <= HTML_OPEN_NODE_OPS || (t->in_stack && t->in_stack[i]);
    putf(b, "<details class=\"ev\"%s><summary>", open ? " open" : "");
    put_op(b, t, i, deeper(t, op));
    put(b, "</summary><div class=\"body\">\n");
    t->open[t->open_count++] = op->depth;
}

static void page_node_ops(buf *b, tree *t)
{
    const d12dred_node *n = t->n;
    for (size_t i = 0; i < n->op_count;) {
        if (d12__dred_op_shown(n, &n->ops[i], t->in_stack)) {
            put_shown_op(b, t, i++);
            continue;
        }
        /* a run of ops outside show's window: collapsed, flat */
        size_t end = i;
        while (end < n->op_count && !d12__dred_op_shown(n, &n->ops[end], t->in_stack))
            end++;
        putf(b, "<details class=\"skip\"><summary>... %zu ops (#%" PRIu32 "..#%" PRIu32 ") ...</summary>\n", end - i,
             n->ops[i].index, n->ops[end - 1].index);
        for (; i < end; i++)
            put_op(b, t, i, deeper(t, &n->ops[i]));
        put(b, "</details>\n");
    }
    close_groups(b, t, 0);
}

static void page_node(buf *b, const d12dred_report *r, size_t index, d12__dred_html_extras *extras)
{
    const d12dred_node *n = r->nodes[index];
    int open = r->node_count <= HTML_OPEN_NODES || d12__dred_node_has_attribution(n);
    putf(b, "<details class=\"node\" id=\"node-%zu\"%s><summary>", index, open ? " open" : "");
    put_node_title(b, index, n);
    putf(b, " <span class=\"dim\">%" PRIu32 " of %" PRIu32 " ops completed (%s)</span></summary>\n<div class=\"ops\">\n",
         n->completed_count, n->breadcrumb_count, d12__dred_node_status_text(n));
    if (n->op_count && n->ops[0].index > 0)
        putf(b, "<p class=\"dim\">only the last %zu of %" PRIu32 " ops are kept</p>\n", n->op_count,
             n->breadcrumb_count);
    extras_at(b, extras, "$.nodes[%zu]", index, 0);
    unsigned char *in_stack = d12__dred_event_stacks(n);
    tree t = {.r = r, .n = n, .node = index, .in_stack = in_stack, .mark_first = mark_first_outstanding(n),
              .extras = extras};
    page_node_ops(b, &t);
    free(in_stack);
    put(b, "</div></details>\n");
}

static void page_nodes(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    putf(b, "<section id=\"breadcrumbs\"><h2>Command lists outstanding %s</h2>\n",
         is_stall(r) ? "now" : "at removal");
    if (!r->node_count)
        put(b, r->features.auto_breadcrumbs ? "<p>none</p>\n" : "<p>none (auto-breadcrumbs were off)</p>\n");
    for (size_t i = 0; i < r->node_count; i++)
        page_node(b, r, i, extras);
    put(b, "</section>\n");
}

/* ---- Messages and fences ----------------------------------------------------------------------------------- */

static void page_messages(buf *b, const d12dred_report *r)
{
    putf(b, "<section id=\"messages\"><h2>Driver messages%s</h2>\n", is_stall(r) ? "" : " of the removal flush");
    if (!r->flush_message_count)
        put(b, "<p>none</p>\n");
    for (size_t i = 0; i < r->flush_message_count; i++)
        put_message(b, &r->flush_messages[i]);
    put(b, "</section>\n");
}

static void fence_row(buf *b, const d12dred_report *r, const char *queue, const d12dred_wait *w, const char *what,
                      const char *relation)
{
    put(b, "<tr><td>");
    put_fence(b, r, w->fence, w->has_fence_id, w->fence_id);
    put(b, "</td><td>");
    esc_name(b, queue);
    putf(b, "</td><td>%s %s %" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n", what, relation, w->value, w->fence_value);
}

/* The waits and signals outstanding, per fence and queue, with the value each fence had reached. */
static void page_outstanding(buf *b, const d12dred_report *r)
{
    size_t rows = 0;
    for (size_t q = 0; q < r->queue_count; q++)
        rows += r->queues[q]->wait_count + r->queues[q]->signal_count;
    if (!rows) {
        put(b, "<p>no GPU wait or signal was outstanding</p>\n");
        return;
    }
    putf(b, "<table><thead><tr><th>fence</th><th>queue</th><th>outstanding</th><th>value %s</th></tr></thead>"
            "<tbody>\n", moment(r));
    for (size_t q = 0; q < r->queue_count; q++) {
        const d12dred_queue *queue = r->queues[q];
        for (size_t i = 0; i < queue->wait_count; i++)
            fence_row(b, r, queue->name, &queue->waits[i], "waits", "&gt;=");
        for (size_t i = 0; i < queue->signal_count; i++)
            fence_row(b, r, queue->name, &queue->signals[i], "signals", "=");
    }
    put(b, "</tbody></table>\n");
}

/* `fences` (issue 32 item 3): each fence's value, its highest, and its last changes with who made them; a change to
 * a value below the highest reached is marked (the fence went backwards there). */
static void page_fence_history(buf *b, const d12dred_report *r)
{
    if (!r->fence_count)
        return;
    putf(b, "<h3>History</h3>\n<table id=\"fence-history\"><thead><tr><th>fence</th><th>value %s</th><th>highest</th>"
            "<th>last changes, oldest first</th></tr></thead><tbody>\n", moment(r));
    for (size_t i = 0; i < r->fence_count; i++) {
        const d12dred_fence *f = r->fences[i];
        put(b, "<tr><td>");
        put_fence(b, r, f->name, 1, f->id);
        putf(b, "</td><td%s>%" PRIu64 "</td><td>%" PRIu64 "</td><td>", f->value < f->highest ? " class=\"down\"" : "",
             f->value, f->highest);
        uint64_t reached = 0;
        for (size_t j = 0; j < f->change_count; j++) {
            const d12dred_fence_change *c = &f->changes[j];
            putf(b, "<div%s>%" PRIu64 " by ", c->value < reached ? " class=\"down\"" : "", c->value);
            esc_text(b, c->by ? c->by : "?");
            put(b, " (");
            esc_text(b, c->call ? c->call : "?");
            put(b, c->value < reached ? ") \xE2\x86\x93 went backwards</div>" : ")</div>");
            reached = c->value > reached ? c->value : reached;
        }
        put(b, f->change_count ? "</td></tr>\n" : "none recorded</td></tr>\n");
    }
    put(b, "</tbody></table>\n");
}

static void page_fences(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    put(b, "<section id=\"fences\"><h2>Fences</h2>\n");
    page_outstanding(b, r);
    page_fence_history(b, r);
    for (size_t i = 0; i < r->fence_count; i++)
        extras_at(b, extras, "$.fences[%zu]", i, 0);
    put(b, "</section>\n");
}

char *d12dred_report_to_html(const d12dred_report *r, const char *title, size_t *length)
{
    if (!r)
        return NULL;
    d12__dred_html_extras extras;
    if (d12__dred_html_extras_init(&extras, r) != 0)
        return NULL;
    buf b = {0};
    page_head(&b, r, title);
    page_summary(&b, r);
    page_queues(&b, r, &extras);
    page_nodes(&b, r, &extras);
    d12__dred_html_page_fault(&b, r, &extras);
    d12__dred_html_timelines(&b, r, &extras);
    page_messages(&b, r);
    page_fences(&b, r, &extras);
    d12__dred_html_extras_sections(&b, &extras);
    d12__dred_html_extras_rest(&b, &extras);
    put(&b, "</main>\n</body>\n</html>\n");
    d12__dred_html_extras_free(&extras);
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    if (length)
        *length = b.length;
    return b.data;
}
