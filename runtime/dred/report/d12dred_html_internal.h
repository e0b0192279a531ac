/* The pieces of the `d12dred html` page (d12dred_html.c) kept in their own files: escaping, the page fault's VA map
 * (d12dred_html_va.c) and the generic key/value tree of the members this d12dred does not know
 * (d12dred_html_tree.c). Not part of the library's API. */
#ifndef D12DRED_HTML_INTERNAL_H
#define D12DRED_HTML_INTERNAL_H

#include <stddef.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

/* Text as HTML: & < > " ' as entities (a name in a report is an application's string: `<script>` must stay text),
 * nothing else touched. */
void d12__dred_html_escape(d12__dred_buf *b, const char *text);
/* A report string as show prints it (control characters as \n, \t, \xNN), escaped. */
void d12__dred_html_text(d12__dred_buf *b, const char *text);
/* A fragment built with show's helpers (d12dred_render.c), escaped into the page; frees the fragment. */
void d12__dred_html_fragment(d12__dred_buf *b, d12__dred_buf *fragment);
/* 'name' or (unnamed), as show prints it, escaped. */
void d12__dred_html_name(d12__dred_buf *b, const char *name);


/* The members the reader did not know (report->extras), found by their owner's JSON path. */
typedef struct d12__dred_html_extras {
    const d12dred_report *report;
    const d12dred_extra **order; /* report->extras sorted by owner (NULL: none, or out of memory) */
    unsigned char *shown; /* per extra: already on the page */
} d12__dred_html_extras;

int d12__dred_html_extras_init(d12__dred_html_extras *x, const d12dred_report *r);
void d12__dred_html_extras_free(d12__dred_html_extras *x);
/* The extras whose owner is exactly `owner` ("$.queues[0]"), as a key/value list; nothing when there are none. */
void d12__dred_html_extras_of(d12__dred_buf *b, d12__dred_html_extras *x, const char *owner);
/* The top level's extras each as its own section (a later d12rt's `fence_history`, `resource_timeline`, ...). */
void d12__dred_html_extras_sections(d12__dred_buf *b, d12__dred_html_extras *x);
/* Every extra not shown yet, with its owner's path (an unknown member of a submission, a wait, a state, ...). */
void d12__dred_html_extras_rest(d12__dred_buf *b, d12__dred_html_extras *x);

/* The VA as show prints it: `0x1000 (read)`, `(write)`, `(read, flags 0x80000000)`. */
void d12__dred_html_va(d12__dred_buf *b, const d12dred_page_fault *pf);
/* The page fault's section: the VA, the verdict, its extras, the map of the VA among its neighbours, live and freed,
 * and beside it the resource timelines. */
void d12__dred_html_page_fault(d12__dred_buf *b, const d12dred_report *r, d12__dred_html_extras *extras);
/* The resource timelines' own section, for a report that names VAs without a page fault (a hang's op state). */
void d12__dred_html_timelines(d12__dred_buf *b, const d12dred_report *r, d12__dred_html_extras *extras);

#endif
