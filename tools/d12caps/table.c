/* d12caps: text tables (every column as wide as its widest cell) and what the reports print above them. */
#include "d12caps_tool.h"

table_row *table_add(table *t, bool heading)
{
    if (t->count == MAX_ROWS)
        return NULL;
    table_row *row = &t->rows[t->count++];
    memset(row, 0, sizeof(*row));
    row->heading = heading;
    return row;
}

void table_heading(table *t, const char *format, ...)
{
    table_row *row = table_add(t, true);
    if (!row)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(row->cell[0], CELL_BYTES, format, args);
    va_end(args);
}

void table_print(const table *t)
{
    int width[MAX_COLUMNS] = {0};
    for (int r = 0; r < t->count; r++)
        for (int c = 0; c < t->columns && !t->rows[r].heading; c++) {
            int length = (int)strlen(t->rows[r].cell[c]);
            width[c] = length > width[c] ? length : width[c];
        }
    for (int r = 0; r < t->count; r++) {
        const table_row *row = &t->rows[r];
        if (row->heading) {
            printf("%s\n", row->cell[0]);
            continue;
        }
        int last = t->columns - 1;
        while (last > 0 && row->cell[last][0] == '\0')
            last--;
        for (int c = 0; c <= last; c++)
            if (c < last)
                printf("%-*s  ", width[c], row->cell[c]);
            else
                printf("%s\n", row->cell[c]);
    }
}

/* ---- Reports ---- */

void describe_version(const query *q, d12_caps_flavor flavor, char *out, size_t size)
{
    if (q->version.number != q->version.requested)
        snprintf(out, size, "SDK %u, treated as %u (a %s runtime remaps its preview version %u)",
                 q->version.requested, q->version.number, flavor_name(flavor), q->version.requested);
    else
        snprintf(out, size, "SDK %u (%s line)", q->version.number, d12_caps_line_name(q->version.line));
}

/* Resolve a requested version; a too-new one is reported the way CheckFeatureSupport1 fails. */
bool start_query(query *q, d12_caps_flavor flavor, UINT requested, bool json)
{
    memset(q, 0, sizeof(*q));
    q->flavor = flavor;
    q->runtime = runtime_version(flavor);
    if (d12_caps_resolve_version(flavor, requested, &q->version) == D12_CAPS_OK)
        return true;
    char reason[256];
    snprintf(reason, sizeof(reason),
             "SDK %u is newer than the %s runtime's version %u: CheckFeatureSupport1 returns E_INVALIDARG "
             "without querying capabilities", requested, flavor_name(flavor), q->runtime.number);
    fprintf(stderr, "d12caps: %s\n", reason);
    if (json) {
        printf("{\"requested\": %u, \"flavor\": \"%s\", \"hresult\": \"E_INVALIDARG\", \"error\": ", requested,
               flavor_name(flavor));
        json_string(reason);
        printf("}\n");
    }
    return false;
}

bool field_differs(const field_view *f)
{
    return kind_is_clamped(f->field->kind) && f->seen != f->truth;
}

const char *field_mark(const field_view *f)
{
    if (f->clamped)
        return "*";
    return f->answer != f->truth ? "<" : "";
}

void legend(void)
{
    printf("Legend: * clamped by CheckFeatureSupport1 for that SDK; < the app asked for no more (in/out field:\n"
           "        it passes the highest value its own headers define); n/a feature not available at that SDK\n"
           "        (E_INVALIDARG). Flags in hex; --sdk N lists their bit names.\n\n");
}

/* Which spec the linked tables came from: the tool is also built over the fixture spec's tables. */
