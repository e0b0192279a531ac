/* `d12dred diff`'s aspects of issue 32 item 5: what tells two hangs apart -- the report's kind (removal or stall),
 * the removal's cause (`removed_by`), the verdict of the waits (the deadlock cycle, a fence that went backwards) and
 * the pending waits and queued signals per queue. Each is described after normalizing what differs between any two
 * runs of one bug: numbers in verdicts (addresses, fence values, thread ids) are dropped, and a fence value is
 * compared relative to the fence's value at the report (the gap still to go), not as an absolute number. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

typedef d12__dred_buf buf;

void d12__dred_describe_kind(buf *b, const d12dred_report *r)
{
    d12__dred_buf_puts(b, d12dred_report_is_stall(r) ? "stall (the device was not removed)" : "removal");
}

void d12__dred_describe_cause(buf *b, const d12dred_report *r)
{
    if (r->removed_by)
        d12__dred_put_text(b, r->removed_by);
    else
        d12__dred_buf_puts(b, d12dred_report_is_stall(r) ? "none (not removed)" : "the GPU or the driver");
}

static int is_word_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Text with every number (decimal or 0x hex) that stands alone outside a quoted name replaced by '#': two runs differ
 * in those (fence values, identities, thread ids), not in the words or the names ('F1', ID3D12CommandQueue stay). */
static void put_without_numbers(buf *b, const char *text)
{
    d12__dred_buf c = {0};
    int quoted = 0;
    for (const char *p = text; *p;) {
        if (*p == '\'')
            quoted = !quoted;
        if (!quoted && *p >= '0' && *p <= '9' && (p == text || !is_word_char(p[-1]))) {
            if (p[0] == '0' && p[1] == 'x')
                p += 2;
            while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))
                p++;
            d12__dred_buf_append(&c, "#", 1);
        } else {
            d12__dred_buf_append(&c, p++, 1);
        }
    }
    d12__dred_buf_append(&c, "", 1);
    if (c.failed)
        b->failed = 1;
    else
        d12__dred_put_text(b, c.data);
    free(c.data);
}

void d12__dred_describe_wait_verdict(buf *b, const d12dred_report *r)
{
    const char *verdict = d12dred_report_wait_verdict(r);
    if (verdict)
        put_without_numbers(b, verdict);
    else
        d12__dred_buf_puts(b, "none");
}

/* The gap a wait still has to go (+N), or how far past the signal's value the fence already is: relative values. */
static void put_relative(buf *b, uint64_t value, uint64_t at)
{
    if (value >= at)
        d12__dred_buf_printf(b, "+%" PRIu64, value - at);
    else
        d12__dred_buf_printf(b, "-%" PRIu64, at - value);
}

void d12__dred_describe_waits(buf *b, const d12dred_report *r)
{
    int any = 0;
    for (size_t i = 0; i < r->queue_count; i++) {
        const d12dred_queue *q = r->queues[i];
        if (!q->wait_count && !q->signal_count)
            continue;
        d12__dred_buf_puts(b, any++ ? "; " : "");
        d12__dred_put_name(b, q->name);
        d12__dred_buf_puts(b, ":");
        for (size_t j = 0; j < q->wait_count + q->signal_count; j++) {
            bool wait = j < q->wait_count;
            const d12dred_wait *w = wait ? &q->waits[j] : &q->signals[j - q->wait_count];
            d12__dred_buf_puts(b, wait ? " waits " : " signals ");
            d12__dred_put_name(b, w->fence);
            d12__dred_buf_puts(b, " ");
            put_relative(b, w->value, w->fence_value);
            if (w->backwards)
                d12__dred_buf_puts(b, " (went backwards)");
            if (!wait && w->behind_wait >= 0)
                d12__dred_buf_printf(b, " behind wait %" PRId32, w->behind_wait);
        }
    }
    if (!any)
        d12__dred_buf_puts(b, "none");
}
