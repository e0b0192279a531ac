/* Issue 32 item 1: an EXECUTEBUNDLE op's draw in the report model (d12dred_report.h, `bundle_draw`) and its words in
 * `show` and the page. Windows DRED counts the EXECUTEBUNDLE only, so the draw is no op of the node: it is a member
 * of the EXECUTEBUNDLE op, whose `state` is the state that draw saw (docs/dred-report.md). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

void d12__dred_free_bundle_draw(d12dred_bundle_draw *draw)
{
    if (draw)
        free(draw->bundle);
    free(draw);
}

int d12dred_op_set_bundle_draw(d12dred_op *op, const char *bundle, uint32_t position, uint32_t draw_op, bool named)
{
    if (!op)
        return -1;
    d12dred_bundle_draw *draw = calloc(1, sizeof *draw);
    if (!draw || d12__dred_set_string(&draw->bundle, bundle) != 0) {
        free(draw);
        return -1;
    }
    draw->position = position;
    draw->op = draw_op;
    draw->named = named;
    d12__dred_free_bundle_draw(op->bundle_draw);
    op->bundle_draw = draw;
    return 0;
}

void d12__dred_put_bundle_draw(d12__dred_buf *b, const d12dred_bundle_draw *draw)
{
    d12__dred_buf_puts(b, "[bundle ");
    d12__dred_put_name(b, draw->bundle);
    d12__dred_buf_printf(b, ", #%" PRIu32 "] ", draw->position);
    d12__dred_put_op_name(b, draw->op);
    if (!draw->named)
        d12__dred_buf_puts(b, "  (its first draw: no driver named one)");
}
