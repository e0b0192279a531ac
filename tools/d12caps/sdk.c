/* d12caps: `d12caps --sdk N`: what an application built against SDK N sees, field by field (text and --json). */
#include "d12caps_tool.h"

#ifdef D12CAPS_TOOL_FIXTURE
#define D12CAPS_TOOL_SPEC "tests/fixtures/future-spec/ (hypothetical values after CheckFeatureSupport1)"
#else
#define D12CAPS_TOOL_SPEC "spec/ (the real SDK history)"
#endif

void profile_line(const query *q)
{
    printf("Tables: " D12CAPS_TOOL_SPEC "\n");
    printf("True values: capability profile, each clamped field at the highest value of its enum present at\n"
           "%s %u, the runtime's own version (flags: every bit present then).\n",
           d12_caps_line_name(q->runtime.line), q->runtime.number);
}

/* Short "never clamped" summary of a layout's other fields. */
static void other_fields(const feature_view *view, char *out, size_t size)
{
    uint32_t others = 0;
    for (uint32_t i = 0; i < view->count; i++)
        others += !kind_is_clamped(view->fields[i].field->kind);
    out[0] = '\0';
    if (others)
        snprintf(out, size, "+ %u field%s never clamped (--all lists them)", others, others == 1 ? "" : "s");
}

static void sdk_field_row(table *t, const query *q, const field_view *f)
{
    table_row *row = table_add(t, false);
    if (!row)
        return;
    snprintf(row->cell[0], CELL_BYTES, "  %s", f->field->name);
    snprintf(row->cell[1], CELL_BYTES, "%s", kind_name(f->field->kind));
    if (!kind_is_clamped(f->field->kind)) {
        snprintf(row->cell[2], CELL_BYTES, "(never clamped)");
        return;
    }
    char seen[VALUE_BYTES], truth[VALUE_BYTES];
    format_value(f->field, f->seen, q->version, false, seen, sizeof(seen));
    format_value(f->field, f->truth, q->runtime, false, truth, sizeof(truth));
    if (f->clamped)
        snprintf(row->cell[2], CELL_BYTES, "%s  * clamped from %s", seen, truth);
    else if (f->answer != f->truth)
        snprintf(row->cell[2], CELL_BYTES, "%s  < the app asks for no more; true %s", seen, truth);
    else
        snprintf(row->cell[2], CELL_BYTES, "%s", seen);
}

static void sdk_feature_rows(table *t, const query *q, const feature_view *view, const options *opts)
{
    const d12_caps_feature *feature = view->feature;
    if (view->status != D12_CAPS_OK) {
        if (!opts->changed)
            table_heading(t, "%s (%u): %s at SDK %u (E_INVALIDARG)", feature->name, feature->value, view->reason,
                          q->version.number);
        return;
    }
    bool any = false;
    for (uint32_t i = 0; i < view->count; i++)
        any |= field_differs(&view->fields[i]);
    if (opts->changed && !any)
        return;
    table_heading(t, "%s (%u): %s, %u bytes%s", feature->name, feature->value, feature->struct_name,
                  view->layout->size, feature->never_clamped ? ", never clamped" : "");
    for (uint32_t i = 0; i < view->count; i++) {
        const field_view *f = &view->fields[i];
        if ((kind_is_clamped(f->field->kind) || opts->all) && (!opts->changed || field_differs(f)))
            sdk_field_row(t, q, f);
    }
    char others[CELL_BYTES];
    other_fields(view, others, sizeof(others));
    if (others[0] && !opts->all && !opts->changed)
        table_heading(t, "  %s", others);
}

void count_view(const feature_view *view, totals *sum)
{
    if (view->status != D12_CAPS_OK) {
        sum->unavailable++;
        return;
    }
    sum->available++;
    for (uint32_t i = 0; i < view->count; i++)
        sum->clamped += view->fields[i].clamped;
}

table report_table; /* large: static rather than on the stack */

static void sdk_text(query *q, const options *opts)
{
    char what[256];
    describe_version(q, opts->flavor, what, sizeof(what));
    printf("%s on the %s runtime (%u)\n", what, flavor_name(opts->flavor), q->runtime.number);
    profile_line(q);
    legend();
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    totals sum = {0, 0, 0};
    static feature_view view;
    report_table.count = 0;
    report_table.columns = 3;
    for (uint32_t i = 0; i < count; i++) {
        evaluate(q, &features[i], &view);
        count_view(&view, &sum);
        sdk_feature_rows(&report_table, q, &view, opts);
    }
    table_print(&report_table);
    printf("\n%u features: %u available at SDK %u, %u not; %u field%s clamped\n", count, sum.available,
           q->version.number, sum.unavailable, sum.clamped, sum.clamped == 1 ? "" : "s");
}

/* ---- JSON ---- */

static void json_value_names(const d12_caps_field *field, int64_t value, d12_caps_version version)
{
    if (field->kind != D12_CAPS_FIELD_FLAGS) {
        const char *name = d12_caps_value_name(field->enumeration, value, version);
        if (name)
            json_string(name);
        else
            fputs("null", stdout);
        return;
    }
    putchar('[');
    const char *separator = "";
    for (int bit = 0; bit < 32; bit++) {
        int64_t mask = INT64_C(1) << bit;
        if (!(value & mask))
            continue;
        const char *name = d12_caps_value_name(field->enumeration, mask, version);
        fputs(separator, stdout);
        if (name)
            json_string(name);
        else
            fputs("null", stdout);
        separator = ", ";
    }
    putchar(']');
}

static void json_field(const query *q, const field_view *f)
{
    printf("{\"name\": ");
    json_string(f->field->name);
    printf(", \"kind\": \"%s\", \"offset\": %u, \"size\": %u", kind_name(f->field->kind), f->field->offset,
           f->field->size);
    if (kind_is_clamped(f->field->kind)) {
        printf(", \"enum\": ");
        json_string(f->field->enumeration->name);
        printf(", \"true\": %" PRId64 ", \"true_name\": ", f->truth);
        json_value_names(f->field, f->truth, q->runtime);
        printf(", \"reported\": %" PRId64 ", \"reported_name\": ", f->seen);
        json_value_names(f->field, f->seen, q->version);
        printf(", \"clamped\": %s, \"limited_by_request\": %s", f->clamped ? "true" : "false",
               f->answer != f->truth ? "true" : "false");
    }
    putchar('}');
}

static void json_feature(const query *q, const feature_view *view)
{
    printf("{\"name\": ");
    json_string(view->feature->name);
    printf(", \"value\": %u, \"struct\": ", view->feature->value);
    if (view->feature->struct_name)
        json_string(view->feature->struct_name);
    else
        fputs("null", stdout);
    printf(", \"never_clamped\": %s", view->feature->never_clamped ? "true" : "false");
    if (view->status != D12_CAPS_OK) {
        printf(", \"available\": false, \"hresult\": \"E_INVALIDARG\", \"reason\": ");
        json_string(view->reason);
        putchar('}');
        return;
    }
    printf(", \"available\": true, \"size\": %u, \"fields\": [", view->layout->size);
    for (uint32_t i = 0; i < view->count; i++) {
        fputs(i ? ", " : "", stdout);
        json_field(q, &view->fields[i]);
    }
    printf("]}");
}

void json_query(query *q)
{
    uint32_t count;
    const d12_caps_feature *features = d12_caps_features(&count);
    static feature_view view;
    totals sum = {0, 0, 0};
    printf("{\"runtime\": {\"flavor\": \"%s\", \"version\": %u}, \"requested\": %u, \"resolved\": %u, "
           "\"line\": \"%s\",\n \"features\": [\n", flavor_name(q->flavor), q->runtime.number, q->version.requested,
           q->version.number, d12_caps_line_name(q->version.line));
    for (uint32_t i = 0; i < count; i++) {
        evaluate(q, &features[i], &view);
        count_view(&view, &sum);
        fputs(i ? ",\n  " : "  ", stdout);
        json_feature(q, &view);
    }
    printf("\n ], \"available\": %u, \"unavailable\": %u, \"clamped\": %u}", sum.available, sum.unavailable,
           sum.clamped);
}

int run_sdk(const options *opts)
{
    if (opts->positional_count)
        return usage_error("unexpected argument '%s'", opts->positional[0]);
    static query q;
    if (!start_query(&q, opts->flavor, opts->sdk, opts->json))
        return 1;
    if (opts->json) {
        json_query(&q);
        putchar('\n');
    } else {
        sdk_text(&q, opts);
    }
    return 0;
}

