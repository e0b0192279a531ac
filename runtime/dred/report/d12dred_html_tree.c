/* `d12dred html`: escaping, and the members of a report this d12dred does not know (a later d12rt's additive members,
 * docs/dred-report.md "Additive members") shown as a readable key/value tree instead of being dropped: an object as a
 * definition list, an array of flat objects as a table, any other array as a numbered list, a long one collapsed. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "d12dred_html_internal.h"

typedef d12__dred_buf buf;

/* Arrays longer than this start collapsed; a table has at most this many columns (the rest as a list). */
#define TREE_OPEN_ITEMS 20u
#define TREE_MAX_COLUMNS 16u

void d12__dred_html_escape(buf *b, const char *text)
{
    const char *run = text;
    for (const char *p = text; *p; p++) {
        const char *entity = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '"' ? "&quot;"
                           : *p == '\'' ? "&#39;" : NULL;
        if (!entity)
            continue;
        d12__dred_buf_append(b, run, (size_t)(p - run));
        d12__dred_buf_puts(b, entity);
        run = p + 1;
    }
    d12__dred_buf_puts(b, run);
}

void d12__dred_html_fragment(buf *b, buf *fragment)
{
    if (fragment->failed)
        b->failed = 1;
    else if (fragment->data)
        d12__dred_html_escape(b, fragment->data);
    free(fragment->data);
    *fragment = (buf){0};
}

void d12__dred_html_text(buf *b, const char *text)
{
    buf f = {0};
    d12__dred_put_text(&f, text ? text : "");
    d12__dred_html_fragment(b, &f);
}

void d12__dred_html_name(buf *b, const char *name)
{
    buf f = {0};
    d12__dred_put_name(&f, name);
    d12__dred_html_fragment(b, &f);
}

/* ---- The generic tree -------------------------------------------------------------------------------------- */

static void tree_value(buf *b, const jvalue *v);

static int is_scalar(const jvalue *v)
{
    return v->type != J_OBJECT && v->type != J_ARRAY;
}

static void tree_scalar(buf *b, const jvalue *v)
{
    switch (v->type) {
    case J_NULL: d12__dred_buf_puts(b, "<span class=\"null\">null</span>"); break;
    case J_FALSE: d12__dred_buf_puts(b, "false"); break;
    case J_TRUE: d12__dred_buf_puts(b, "true"); break;
    case J_NUMBER: d12__dred_html_escape(b, v->text); break;
    default:
        d12__dred_buf_puts(b, "<span class=\"str\">");
        d12__dred_html_text(b, v->text);
        d12__dred_buf_puts(b, "</span>");
    }
}

/* The columns of an array of objects whose members are all scalars (first-seen order), or 0: not a table. */
static size_t table_columns(const jvalue *array, const char **columns)
{
    size_t count = 0;
    for (size_t i = 0; i < array->count; i++) {
        const jvalue *row = array->items[i];
        if (row->type != J_OBJECT)
            return 0;
        for (size_t k = 0; k < row->count; k++) {
            if (!is_scalar(row->items[k]))
                return 0;
            size_t c = 0;
            while (c < count && strcmp(columns[c], row->keys[k]) != 0)
                c++;
            if (c == count) {
                if (count == TREE_MAX_COLUMNS)
                    return 0;
                columns[count++] = row->keys[k];
            }
        }
    }
    return count;
}

static void tree_table(buf *b, const jvalue *array, const char **columns, size_t count)
{
    d12__dred_buf_puts(b, "<table class=\"kv\"><thead><tr>");
    for (size_t c = 0; c < count; c++) {
        d12__dred_buf_puts(b, "<th>");
        d12__dred_html_text(b, columns[c]);
        d12__dred_buf_puts(b, "</th>");
    }
    d12__dred_buf_puts(b, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < array->count; i++) {
        const jvalue *row = array->items[i];
        d12__dred_buf_puts(b, "<tr>");
        for (size_t c = 0; c < count; c++) {
            d12__dred_buf_puts(b, "<td>");
            for (size_t k = 0; k < row->count; k++)
                if (strcmp(row->keys[k], columns[c]) == 0)
                    tree_scalar(b, row->items[k]);
            d12__dred_buf_puts(b, "</td>");
        }
        d12__dred_buf_puts(b, "</tr>\n");
    }
    d12__dred_buf_puts(b, "</tbody></table>");
}

static void tree_array(buf *b, const jvalue *v)
{
    if (v->count == 0) {
        d12__dred_buf_puts(b, "<span class=\"null\">[] (empty)</span>");
        return;
    }
    int collapsed = v->count > TREE_OPEN_ITEMS;
    if (collapsed)
        d12__dred_buf_printf(b, "<details><summary>%zu items</summary>", v->count);
    const char *columns[TREE_MAX_COLUMNS];
    size_t count = table_columns(v, columns);
    if (count) {
        tree_table(b, v, columns, count);
    } else {
        d12__dred_buf_puts(b, "<ol class=\"kv\" start=\"0\">");
        for (size_t i = 0; i < v->count; i++) {
            d12__dred_buf_puts(b, "<li>");
            tree_value(b, v->items[i]);
            d12__dred_buf_puts(b, "</li>");
        }
        d12__dred_buf_puts(b, "</ol>");
    }
    if (collapsed)
        d12__dred_buf_puts(b, "</details>");
}

static void tree_member(buf *b, const char *key, const jvalue *v)
{
    d12__dred_buf_puts(b, "<dt>");
    d12__dred_html_text(b, key);
    d12__dred_buf_puts(b, "</dt><dd>");
    tree_value(b, v);
    d12__dred_buf_puts(b, "</dd>\n");
}

static void tree_value(buf *b, const jvalue *v)
{
    if (v->type == J_ARRAY) {
        tree_array(b, v);
    } else if (v->type == J_OBJECT) {
        d12__dred_buf_puts(b, "<dl class=\"kv\">");
        for (size_t i = 0; i < v->count; i++)
            if (v->items[i])
                tree_member(b, v->keys[i], v->items[i]);
        d12__dred_buf_puts(b, "</dl>");
    } else {
        tree_scalar(b, v);
    }
}

/* ---- Extras by owner ----------------------------------------------------------------------------------------- */

/* By owner, then in document order (pointers into one array compare by position). */
static int by_owner(const void *a, const void *b)
{
    const d12dred_extra *x = *(const d12dred_extra *const *)a, *y = *(const d12dred_extra *const *)b;
    int c = strcmp(x->owner, y->owner);
    return c ? c : (x > y) - (x < y);
}

int d12__dred_html_extras_init(d12__dred_html_extras *x, const d12dred_report *r)
{
    *x = (d12__dred_html_extras){r, NULL, NULL};
    if (!r->extra_count)
        return 0;
    x->order = malloc(r->extra_count * sizeof *x->order);
    x->shown = calloc(r->extra_count, 1);
    if (!x->order || !x->shown) {
        d12__dred_html_extras_free(x);
        return -1;
    }
    for (size_t i = 0; i < r->extra_count; i++)
        x->order[i] = &r->extras[i];
    qsort(x->order, r->extra_count, sizeof *x->order, by_owner);
    return 0;
}

void d12__dred_html_extras_free(d12__dred_html_extras *x)
{
    free(x->order);
    free(x->shown);
    x->order = NULL;
    x->shown = NULL;
}

/* The first position in x->order whose owner is `owner`, or extra_count. */
static size_t first_of(const d12__dred_html_extras *x, const char *owner)
{
    size_t lo = 0, hi = x->order ? x->report->extra_count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(x->order[mid]->owner, owner) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void d12__dred_html_extras_of(buf *b, d12__dred_html_extras *x, const char *owner)
{
    size_t count = x->order ? x->report->extra_count : 0;
    size_t i = first_of(x, owner);
    if (i >= count || strcmp(x->order[i]->owner, owner) != 0)
        return;
    d12__dred_buf_puts(b, "<dl class=\"kv extra\">");
    for (; i < count && strcmp(x->order[i]->owner, owner) == 0; i++) {
        const d12dred_extra *e = x->order[i];
        tree_member(b, e->key, e->value);
        x->shown[x->order[i] - x->report->extras] = 1;
    }
    d12__dred_buf_puts(b, "</dl>\n");
}

void d12__dred_html_extras_sections(buf *b, d12__dred_html_extras *x)
{
    size_t count = x->order ? x->report->extra_count : 0;
    for (size_t i = first_of(x, "$"); i < count && strcmp(x->order[i]->owner, "$") == 0; i++) {
        const d12dred_extra *e = x->order[i];
        d12__dred_buf_puts(b, "<section class=\"extra\"><h2>");
        d12__dred_html_text(b, e->key);
        d12__dred_buf_puts(b, " <span class=\"dim\">(a member this d12dred shows as it is)</span></h2>\n");
        tree_value(b, e->value);
        d12__dred_buf_puts(b, "</section>\n");
        x->shown[x->order[i] - x->report->extras] = 1;
    }
}

void d12__dred_html_extras_rest(buf *b, d12__dred_html_extras *x)
{
    const d12dred_report *r = x->report;
    int any = 0;
    for (size_t i = 0; x->order && i < r->extra_count; i++) {
        const d12dred_extra *e = x->order[i];
        if (x->shown[x->order[i] - x->report->extras])
            continue;
        if (!any++)
            d12__dred_buf_puts(b, "<section id=\"other\"><h2>Other members</h2>\n<p class=\"dim\">Members this d12dred "
                                  "does not know (a later d12rt's), where the report has them.</p>\n<dl class=\"kv\">");
        d12__dred_buf_puts(b, "<dt><code>");
        d12__dred_html_text(b, e->owner);
        d12__dred_buf_puts(b, ".");
        d12__dred_html_text(b, e->key);
        d12__dred_buf_puts(b, "</code></dt><dd>");
        tree_value(b, e->value);
        d12__dred_buf_puts(b, "</dd>\n");
    }
    if (any)
        d12__dred_buf_puts(b, "</dl></section>\n");
}
