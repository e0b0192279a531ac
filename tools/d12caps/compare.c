/* d12caps: `d12caps compare A B`: the same for two SDK versions side by side. */
#include "d12caps_tool.h"

static void compare_cell(char *out, const query *q, const feature_view *view, const field_view *f)
{
    if (view->status != D12_CAPS_OK) {
        snprintf(out, CELL_BYTES, "n/a");
        return;
    }
    char value[VALUE_BYTES];
    format_value(f->field, f->seen, q->version, true, value, sizeof(value));
    snprintf(out, CELL_BYTES, "%s%s", value, field_mark(f));
}

/* The field of `view` with this name (layouts differ between versions, so match by name). */
static const field_view *find_field(const feature_view *view, const char *name)
{
    for (uint32_t i = 0; view->status == D12_CAPS_OK && i < view->count; i++)
        if (strcmp(view->fields[i].field->name, name) == 0)
            return &view->fields[i];
    return NULL;
}

static bool compare_differs(const field_view *a, const field_view *b)
{
    if (!a || !b)
        return (a && field_differs(a)) || (b && field_differs(b));
    return field_differs(a) || field_differs(b) || a->seen != b->seen;
}

static void compare_row(table *t, query *q[2], const feature_view *view[2], const field_view *f[2])
{
    const field_view *any = f[0] ? f[0] : f[1];
    table_row *row = table_add(t, false);
    if (!row)
        return;
    snprintf(row->cell[0], CELL_BYTES, "  %s", any->field->name);
    snprintf(row->cell[1], CELL_BYTES, "%s", kind_name(any->field->kind));
    if (!kind_is_clamped(any->field->kind)) {
        snprintf(row->cell[2], CELL_BYTES, "(never clamped)");
        return;
    }
    format_value(any->field, any->truth, q[0]->runtime, true, row->cell[2], CELL_BYTES);
    for (int s = 0; s < 2; s++) {
        if (f[s])
            compare_cell(row->cell[3 + s], q[s], view[s], f[s]);
        else
            snprintf(row->cell[3 + s], CELL_BYTES, "n/a");
    }
}

/* The layout whose fields the rows follow: the newer of the two that exist. */
static const feature_view *row_source(const feature_view *view[2])
{
    if (view[1]->status == D12_CAPS_OK && view[1]->count >= view[0]->count)
        return view[1];
    return view[0]->status == D12_CAPS_OK ? view[0] : view[1];
}

static void compare_heading(table *t, query *q[2], const feature_view *view[2])
{
    const d12_caps_feature *feature = view[0]->feature;
    char status[CELL_BYTES] = "";
    for (int s = 0; s < 2; s++)
        if (view[s]->status != D12_CAPS_OK)
            snprintf(status + strlen(status), sizeof(status) - strlen(status), "%s%s at SDK %u (E_INVALIDARG)",
                     status[0] ? "; " : ": ", view[s]->reason, q[s]->version.number);
    table_heading(t, "%s (%u)%s", feature->name, feature->value, status);
}

static void compare_feature(table *t, query *q[2], const feature_view *view[2], const options *opts)
{
    const feature_view *source = row_source(view);
    bool rows = false;
    for (uint32_t i = 0; source->status == D12_CAPS_OK && i < source->count; i++) {
        const char *name = source->fields[i].field->name;
        const field_view *f[2] = {find_field(view[0], name), find_field(view[1], name)};
        bool clamped_kind = kind_is_clamped(source->fields[i].field->kind);
        if ((!clamped_kind && !opts->all) || (opts->changed && !compare_differs(f[0], f[1])))
            continue;
        if (!rows)
            compare_heading(t, q, view);
        rows = true;
        compare_row(t, q, view, f);
    }
    if (!rows && !opts->changed)
        compare_heading(t, q, view);
}

static void compare_text(query *q[2], const options *opts)
{
    static feature_view views[2];
    const feature_view *view[2] = {&views[0], &views[1]};
    char what[2][256];
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    for (int s = 0; s < 2; s++)
        describe_version(q[s], opts->flavor, what[s], sizeof(what[s]));
    printf("What apps built against two SDK versions see on the %s runtime (%u)\n  A: %s\n  B: %s\n",
           flavor_name(opts->flavor), q[0]->runtime.number, what[0], what[1]);
    profile_line(q[0]);
    legend();
    report_table.count = 0;
    report_table.columns = 6;
    table_row *header = table_add(&report_table, false);
    snprintf(header->cell[0], CELL_BYTES, "feature / field");
    snprintf(header->cell[1], CELL_BYTES, "kind");
    snprintf(header->cell[2], CELL_BYTES, "true");
    for (int s = 0; s < 2; s++)
        snprintf(header->cell[3 + s], CELL_BYTES, "SDK %u", q[s]->version.requested);
    totals sum[2] = {{0, 0, 0}, {0, 0, 0}};
    for (uint32_t i = 0; i < count; i++) {
        for (int s = 0; s < 2; s++) {
            evaluate(q[s], &features[i], &views[s]);
            count_view(&views[s], &sum[s]);
        }
        compare_feature(&report_table, q, view, opts);
    }
    table_print(&report_table);
    for (int s = 0; s < 2; s++)
        printf("%sSDK %u: %u features available, %u not; %u field%s clamped\n", s ? "" : "\n",
               q[s]->version.requested, sum[s].available, sum[s].unavailable, sum[s].clamped,
               sum[s].clamped == 1 ? "" : "s");
}

int run_compare(const options *opts)
{
    static query queries[2];
    query *q[2] = {&queries[0], &queries[1]};
    UINT numbers[2];
    if (opts->positional_count != 2 || opts->have_sdk)
        return usage_error("compare takes two SDK versions: d12caps compare A B");
    for (int s = 0; s < 2; s++)
        if (!parse_version(opts->positional[s], &numbers[s]))
            return usage_error("SDK version '%s' is not a number", opts->positional[s]);
    for (int s = 0; s < 2; s++)
        if (!start_query(q[s], opts->flavor, numbers[s], opts->json))
            return 1;
    if (!opts->json) {
        compare_text(q, opts);
        return 0;
    }
    printf("{\"compare\": [\n");
    for (int s = 0; s < 2; s++) {
        json_query(q[s]);
        printf(s ? "\n" : ",\n");
    }
    printf("]}\n");
    return 0;
}

