/* `d12dred html`: the page fault's section. Beside show's facts (the VA, the verdict, its detail) a map of the VA
 * among the allocations the report names -- the live ones holding it, the freed ones that held it, the nearest below
 * and above -- as one bar in address order, not to scale (a wild VA is terabytes from its neighbours): each
 * allocation a cell in show's words (`'name' TYPE [start, end), width W, released ...`) with how it lies to the VA,
 * the gaps to the neighbours as their byte distance, the faulting VA as a marked cell among them. Beside the map, the
 * resource timelines (issue 32 item 7) in show --timeline's words. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12dred_html_internal.h"

typedef d12__dred_buf buf;

typedef enum role { ROLE_EXISTING, ROLE_FREED, ROLE_BELOW, ROLE_ABOVE } role;

typedef struct cell {
    const d12dred_allocation *allocation; /* NULL: the faulting VA */
    role role;
} cell;

/* The allocations in address order (live before freed at one address). */
static int by_address(const void *a, const void *b)
{
    const cell *x = a, *y = b;
    if (x->allocation->va != y->allocation->va)
        return x->allocation->va < y->allocation->va ? -1 : 1;
    return (int)x->role - (int)y->role;
}

static void put_gap(buf *b, uint64_t bytes)
{
    buf f = {0};
    d12__dred_put_distance(&f, bytes);
    d12__dred_buf_puts(b, "<div class=\"gap\">");
    d12__dred_html_fragment(b, &f);
    d12__dred_buf_puts(b, "</div>\n");
}

static void put_allocation_cell(buf *b, const cell *c, uint64_t va)
{
    const d12dred_allocation *a = c->allocation;
    int holds = va >= a->va && va - a->va < a->size;
    d12__dred_buf_printf(b, "<div class=\"cell %s%s\">", a->freed ? "freed" : "live", holds ? " holds" : "");
    d12__dred_buf_printf(b, "<span class=\"tag\">%s</span>", c->role == ROLE_BELOW ? "nearest below"
                                                           : c->role == ROLE_ABOVE ? "nearest above"
                                                           : a->freed ? "freed" : "live");
    buf f = {0};
    d12__dred_put_allocation(&f, a);
    d12__dred_html_fragment(b, &f);
    d12__dred_buf_puts(b, "<br><span class=\"rel\">");
    if (holds) {
        d12__dred_buf_printf(b, "holds the VA at +0x%" PRIx64, va - a->va);
    } else if (c->role == ROLE_BELOW || c->role == ROLE_ABOVE) {
        d12__dred_buf_puts(b, c->role == ROLE_BELOW ? "ends " : "starts ");
        d12__dred_put_distance(&f, a->distance);
        d12__dred_html_fragment(b, &f);
        d12__dred_buf_puts(b, c->role == ROLE_BELOW ? " below the VA" : " above the VA");
    }
    d12__dred_buf_puts(b, "</span></div>\n");
}

void d12__dred_html_va(buf *b, const d12dred_page_fault *pf)
{
    d12__dred_buf_printf(b, "<code>0x%" PRIx64 "</code> (%s", pf->va, (pf->flags & 1u) ? "write" : "read");
    if (pf->flags & ~1u)
        d12__dred_buf_printf(b, ", flags 0x%" PRIx32, pf->flags);
    d12__dred_buf_puts(b, ")");
}

static void put_va_cell(buf *b, const d12dred_page_fault *pf)
{
    d12__dred_buf_puts(b, "<div class=\"cell va\" id=\"fault-va\"><span class=\"tag\">faulting VA</span>");
    d12__dred_html_va(b, pf);
    d12__dred_buf_puts(b, "</div>\n");
}

/* The cells of the map in address order, the VA's cell after every allocation starting at or below it. */
static size_t place_cells(const d12dred_page_fault *pf, cell *cells)
{
    size_t n = 0;
    for (size_t i = 0; i < pf->existing_count; i++)
        cells[n++] = (cell){pf->existing[i], ROLE_EXISTING};
    for (size_t i = 0; i < pf->freed_count; i++)
        cells[n++] = (cell){pf->freed[i], ROLE_FREED};
    if (pf->below)
        cells[n++] = (cell){pf->below, ROLE_BELOW};
    if (pf->above)
        cells[n++] = (cell){pf->above, ROLE_ABOVE};
    qsort(cells, n, sizeof *cells, by_address);
    size_t at = 0;
    while (at < n && cells[at].allocation->va <= pf->va)
        at++;
    for (size_t i = n; i > at; i--)
        cells[i] = cells[i - 1];
    cells[at] = (cell){NULL, ROLE_EXISTING};
    return n + 1;
}

static void put_map(buf *b, const d12dred_page_fault *pf)
{
    size_t count = pf->existing_count + pf->freed_count + 3;
    cell *cells = malloc(count * sizeof *cells);
    if (!cells) {
        b->failed = 1;
        return;
    }
    count = place_cells(pf, cells);
    d12__dred_buf_puts(b, "<h3>The VA among its neighbours</h3>\n<p class=\"dim\">In address order, not to scale: live "
                          "allocations green, freed ones red, the faulting VA marked; the gaps are byte distances.</p>\n"
                          "<div class=\"vamap\" id=\"va-map\">\n");
    for (size_t i = 0; i < count; i++) {
        const cell *c = &cells[i];
        if (!c->allocation) {
            if (i > 0 && cells[i - 1].role == ROLE_BELOW)
                put_gap(b, cells[i - 1].allocation->distance);
            put_va_cell(b, pf);
            if (i + 1 < count && cells[i + 1].role == ROLE_ABOVE)
                put_gap(b, cells[i + 1].allocation->distance);
        } else {
            put_allocation_cell(b, c, pf->va);
        }
    }
    d12__dred_buf_puts(b, "</div>\n");
    free(cells);
}

/* Each timeline as show --timeline prints it: its title, then one line per event, oldest first. */
static void put_timelines(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    d12__dred_buf_puts(b, "<h3>Resource timelines</h3>\n<div id=\"timelines\">\n");
    if (!r->timeline_count)
        d12__dred_buf_puts(b, r->features.page_fault ? "<p class=\"dim\">none (no creation or release of a VA the "
                                                       "report names is left in the ledger's ring)</p>\n"
                                                     : "<p class=\"dim\">no data (page-fault reporting was off)</p>\n");
    for (size_t i = 0; i < r->timeline_count; i++) {
        const d12dred_timeline *t = r->timelines[i];
        buf f = {0};
        d12__dred_put_timeline_title(&f, t);
        d12__dred_buf_puts(b, "<p class=\"tltitle\">");
        d12__dred_html_fragment(b, &f);
        d12__dred_buf_puts(b, "</p>\n<ol class=\"timeline\">\n");
        for (size_t j = 0; j < t->event_count; j++) {
            d12__dred_put_timeline_event(&f, r, t, &t->events[j]);
            d12__dred_buf_printf(b, "<li class=\"%s\">", t->events[j].released ? "released" : "created");
            d12__dred_html_fragment(b, &f);
            d12__dred_buf_puts(b, "</li>\n");
        }
        d12__dred_buf_puts(b, "</ol>\n");
        char owner[48];
        snprintf(owner, sizeof owner, "$.timelines[%zu]", i);
        d12__dred_html_extras_of(b, extras, owner);
    }
    d12__dred_buf_puts(b, "</div>\n");
}

void d12__dred_html_page_fault(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    const d12dred_page_fault *pf = r->page_fault;
    if (!pf && r->kind && strcmp(r->kind, "stall") == 0)
        return; /* a device that was not removed has no page fault to speak of */
    d12__dred_buf_puts(b, "<section id=\"page-fault\"><h2>Page fault</h2>\n");
    if (!pf) {
        d12__dred_buf_puts(b, r->features.page_fault ? "<p>none (the removal was no page fault)</p>\n"
                                                     : "<p>no data (page-fault reporting was off)</p>\n");
        d12__dred_buf_puts(b, "</section>\n");
        return;
    }
    d12__dred_buf_puts(b, "<dl class=\"facts\"><dt>VA</dt><dd>");
    d12__dred_html_va(b, pf);
    d12__dred_buf_puts(b, "</dd>\n<dt>verdict</dt><dd>");
    buf f = {0};
    d12__dred_put_verdict(&f, pf);
    d12__dred_html_fragment(b, &f);
    d12__dred_buf_puts(b, "</dd>\n");
    if (pf->detail) {
        d12__dred_buf_puts(b, "<dt>detail</dt><dd>");
        d12__dred_html_text(b, pf->detail);
        d12__dred_buf_puts(b, "</dd>\n");
    }
    d12__dred_buf_printf(b, "<dt>existing</dt><dd>%zu live allocation%s holding the VA</dd>\n<dt>freed</dt><dd>%zu "
                            "freed allocation%s that held it</dd></dl>\n", pf->existing_count,
                         pf->existing_count == 1 ? "" : "s", pf->freed_count, pf->freed_count == 1 ? "" : "s");
    d12__dred_html_extras_of(b, extras, "$.page_fault");
    d12__dred_buf_puts(b, "<div class=\"vaside\"><div>\n");
    put_map(b, pf);
    d12__dred_buf_puts(b, "</div>\n<div>\n");
    put_timelines(b, r, extras);
    d12__dred_buf_puts(b, "</div></div>\n</section>\n");
}

void d12__dred_html_timelines(buf *b, const d12dred_report *r, d12__dred_html_extras *extras)
{
    if (r->page_fault || !r->timeline_count)
        return; /* with a page fault they are beside its VA map */
    d12__dred_buf_puts(b, "<section id=\"timelines-section\"><h2>Resource timelines</h2>\n");
    put_timelines(b, r, extras);
    d12__dred_buf_puts(b, "</section>\n");
}
