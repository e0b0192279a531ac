/* d12caps: `d12caps history ENUM`, `enums` and `versions`: the capability enums and SDK versions libd12caps
 * knows. */
#include "d12caps_tool.h"

static void describe_presence(const d12_caps_enum_value *v, d12_caps_line line, char *out, size_t size)
{
    if (v->first[line] == D12_CAPS_NEVER)
        snprintf(out, size, "never");
    else if (v->stop[line] == D12_CAPS_FOREVER)
        snprintf(out, size, "%u on", v->first[line]);
    else
        snprintf(out, size, "%u, removed at %u", v->first[line], v->stop[line]);
}

static void history_text(const d12_caps_enum *e)
{
    printf("%s (%s): %u value%s. \"N on\": present from SDK N; \"removed at M\": absent from M on.\n"
           "Protected (clamped for an SDK that did not have it): not shipped on either line before\n"
           "CheckFeatureSupport1 came to that line (retail %u, preview %u).\n\n",
           e->name, enum_kind_name(e->kind), e->count, e->count == 1 ? "" : "s", cfs1_version(D12_CAPS_LINE_RETAIL),
           cfs1_version(D12_CAPS_LINE_PREVIEW));
    report_table.count = 0;
    report_table.columns = 6;
    table_row *header = table_add(&report_table, false);
    const char *titles[] = {"value", "number", "retail", "preview", "tag", "protected"};
    for (int c = 0; c < 6; c++)
        snprintf(header->cell[c], CELL_BYTES, "%s", titles[c]);
    for (uint32_t i = 0; i < e->count; i++) {
        const d12_caps_enum_value *v = &e->values[i];
        table_row *row = table_add(&report_table, false);
        if (!row)
            break;
        snprintf(row->cell[0], CELL_BYTES, "%s%s", v->name, v->alias ? " (alias)" : "");
        snprintf(row->cell[1], CELL_BYTES, "%" PRId64, v->value);
        describe_presence(v, D12_CAPS_LINE_RETAIL, row->cell[2], CELL_BYTES);
        describe_presence(v, D12_CAPS_LINE_PREVIEW, row->cell[3], CELL_BYTES);
        snprintf(row->cell[4], CELL_BYTES, "%s", v->tag);
        snprintf(row->cell[5], CELL_BYTES, "%s", d12_caps_value_protected(e, v->value) ? "yes" : "no");
    }
    table_print(&report_table);
}

static void json_version_or_null(uint32_t number, uint32_t none)
{
    if (number == none)
        fputs("null", stdout);
    else
        printf("%u", number);
}

static void history_json(const d12_caps_enum *e)
{
    printf("{\"name\": ");
    json_string(e->name);
    printf(", \"kind\": \"%s\", \"values\": [", enum_kind_name(e->kind));
    for (uint32_t i = 0; i < e->count; i++) {
        const d12_caps_enum_value *v = &e->values[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_string(v->name);
        printf(", \"value\": %" PRId64 ", \"alias\": %s, \"tag\": ", v->value, v->alias ? "true" : "false");
        json_string(v->tag);
        printf(", \"protected\": %s", d12_caps_value_protected(e, v->value) ? "true" : "false");
        for (int line = 0; line < 2; line++) {
            printf(", \"%s\": {\"first\": ", d12_caps_line_name((d12_caps_line)line));
            json_version_or_null(v->first[line], D12_CAPS_NEVER);
            printf(", \"stop\": ");
            json_version_or_null(v->stop[line], D12_CAPS_FOREVER);
            putchar('}');
        }
        putchar('}');
    }
    printf("\n]}\n");
}

int run_history(const options *opts)
{
    if (opts->positional_count != 1 || opts->have_sdk)
        return usage_error("history takes one enum name, e.g. d12caps history D3D12_RAYTRACING_TIER");
    const d12_caps_enum *e = d12_caps_find_enum(opts->positional[0]);
    if (!e) {
        fprintf(stderr, "d12caps: unknown enum '%s' (`d12caps enums` lists the %s)\n", opts->positional[0],
                "capability enums, e.g. D3D12_RAYTRACING_TIER");
        return EXIT_USAGE;
    }
    if (opts->json)
        history_json(e);
    else
        history_text(e);
    return 0;
}

int run_enums(const options *opts)
{
    uint32_t count;
    const d12_caps_enum *enums = d12_caps_enums(&count);
    if (opts->positional_count || opts->have_sdk)
        return usage_error("enums takes no argument");
    printf(opts->json ? "[" : "");
    for (uint32_t i = 0; i < count; i++) {
        if (opts->json) {
            printf("%s{\"name\": ", i ? ", " : "");
            json_string(enums[i].name);
            printf(", \"kind\": \"%s\", \"values\": %u}", enum_kind_name(enums[i].kind), enums[i].count);
        } else {
            printf("%-52s %-22s %u values\n", enums[i].name, enum_kind_name(enums[i].kind), enums[i].count);
        }
    }
    printf(opts->json ? "]\n" : "");
    return 0;
}

/* ---- versions ---- */

static void version_notes(d12_caps_line line, UINT number, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int f = 0; f < 2; f++) {
        d12_caps_version runtime = runtime_version((d12_caps_flavor)f);
        d12_caps_version legacy = d12_caps_legacy_version((d12_caps_flavor)f);
        if (runtime.line == line && runtime.number == number)
            used += (size_t)snprintf(out + used, size - used, "%s%s runtime", used ? "; " : "",
                                     flavor_name((d12_caps_flavor)f));
        if (legacy.line == line && legacy.number == number)
            used += (size_t)snprintf(out + used, size - used, "%slegacy CheckFeatureSupport pinned here",
                                     used ? "; " : "");
    }
    if (number == cfs1_version(line))
        snprintf(out + used, size - used, "%sCheckFeatureSupport1", used ? "; " : "");
}

static void versions_json(void)
{
    printf("{");
    for (int line = 0; line < 2; line++) {
        uint32_t count;
        const UINT *numbers = d12_caps_sdk_versions((d12_caps_line)line, &count);
        printf("%s\"%s\": {\"versions\": [", line ? ", " : "", d12_caps_line_name((d12_caps_line)line));
        for (uint32_t i = 0; i < count; i++)
            printf("%s%u", i ? ", " : "", numbers[i]);
        printf("], \"runtime\": %u, \"check_feature_support1\": %u, \"legacy\": %u}",
               d12_caps_runtime_version((d12_caps_flavor)line), cfs1_version((d12_caps_line)line),
               d12_caps_legacy_version((d12_caps_flavor)line).number);
    }
    printf(", \"preview_first\": %u}\n", (unsigned)D12_CAPS_PREVIEW_FIRST);
}

int run_versions(const options *opts)
{
    if (opts->positional_count || opts->have_sdk)
        return usage_error("versions takes no argument");
    if (opts->json) {
        versions_json();
        return 0;
    }
    for (int line = 0; line < 2; line++) {
        uint32_t count;
        const UINT *numbers = d12_caps_sdk_versions((d12_caps_line)line, &count);
        printf("%s%s line (SDK version numbers %s %u):\n", line ? "\n" : "", d12_caps_line_name((d12_caps_line)line),
               line ? "from" : "below", (unsigned)D12_CAPS_PREVIEW_FIRST);
        for (uint32_t i = 0; i < count; i++) {
            char notes[256];
            const char *tags = d12_caps_sdk_version_tags((d12_caps_line)line, numbers[i]);
            version_notes((d12_caps_line)line, numbers[i], notes, sizeof(notes));
            printf("  %4u  %-*s%s\n", numbers[i], notes[0] ? 40 : 0, tags[0] ? tags : "(no tag)", notes);
        }
    }
    printf("\nA retail runtime treats its preview version %u as %u; other preview numbers are not remapped.\n",
           d12_caps_runtime_version(D12_CAPS_FLAVOR_PREVIEW), d12_caps_runtime_version(D12_CAPS_FLAVOR_RETAIL));
    return 0;
}
