/* d12caps: what an application built against an Agility SDK version sees from CheckFeatureSupport1.
 *
 *   d12caps --sdk N [--flavor retail|preview] [--json] [--all] [--changed]
 *   d12caps compare A B [--flavor retail|preview] [--json] [--all] [--changed]
 *   d12caps history ENUM [--json]
 *   d12caps enums | versions [--json]
 *
 * Every fact comes from libd12caps (d12caps.h): the tool holds no table of its own, so it shows exactly what
 * the runtime does. The "true" capabilities are a profile, not a GPU: every clamped field at the highest value
 * of its enum present at the runtime's own version for the flavor (flags: every bit present then), run through
 * the same check/clamp calls CheckFeatureSupport1 makes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d12caps.h"

#define EXIT_USAGE 2
#define MAX_FIELDS 32
#define MAX_LEVELS 32
#define DATA_BYTES 2048
#define NAME_BYTES 512

static const char usage_text[] =
    "usage: d12caps --sdk N [--flavor retail|preview] [--json] [--all] [--changed]\n"
    "       d12caps compare A B [--flavor retail|preview] [--json] [--all] [--changed]\n"
    "       d12caps history ENUM [--json]\n"
    "       d12caps enums [--json]\n"
    "       d12caps versions [--json]\n"
    "\n"
    "  --sdk N      what an application built against Agility SDK version N sees, field by field\n"
    "  compare A B  the same for two SDK versions side by side\n"
    "  history ENUM every value of a capability enum with its first/removed version per line\n"
    "  enums        the capability enums `history` knows\n"
    "  versions     the SDK versions of the retail and preview lines\n"
    "  --flavor F   the runtime answering: retail or preview (`d12caps versions` shows their SDK versions);\n"
    "               default $D12RT_FLAVOR, else retail\n"
    "  --json       machine-readable output\n"
    "  --all        also list fields that are never clamped (bool, integer, input, ...)\n"
    "  --changed    only fields an app sees differently from the true value (clamped or limited by its own\n"
    "               request), or, with compare, differently at A and at B (where both have the feature)\n"
    "  --json output always holds every feature and field.\n";

/* ---- Options ---- */

typedef struct options {
    const char *command; /* NULL: --sdk */
    const char *positional[2];
    int positional_count;
    bool have_sdk;
    UINT sdk;
    d12_caps_flavor flavor;
    bool json;
    bool all;
    bool changed;
} options;

static int usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("d12caps: ", stderr);
    vfprintf(stderr, format, args);
    fputs("\n\n", stderr);
    va_end(args);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}

static bool parse_version(const char *text, UINT *out)
{
    char *end;
    errno = 0;
    unsigned long long number = strtoull(text, &end, 10);
    /* strtoull accepts a sign and leading blanks; a version is digits only. */
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || number > UINT32_MAX)
        return false;
    *out = (UINT)number;
    return true;
}

static bool parse_flavor(const char *text, d12_caps_flavor *out)
{
    if (strcmp(text, "retail") == 0) {
        *out = D12_CAPS_FLAVOR_RETAIL;
        return true;
    }
    if (strcmp(text, "preview") == 0) {
        *out = D12_CAPS_FLAVOR_PREVIEW;
        return true;
    }
    return false;
}

/* Handle one option at argv[*i]; returns 0, or the exit code of a usage error. */
static int parse_option(int argc, char **argv, int *i, options *opts)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--json") == 0) {
        opts->json = true;
    } else if (strcmp(arg, "--all") == 0) {
        opts->all = true;
    } else if (strcmp(arg, "--changed") == 0) {
        opts->changed = true;
    } else if (strcmp(arg, "--flavor") == 0 || strcmp(arg, "--sdk") == 0) {
        if (*i + 1 >= argc)
            return usage_error("%s needs a value", arg);
        const char *value = argv[++*i];
        if (arg[2] == 'f' && !parse_flavor(value, &opts->flavor))
            return usage_error("unknown flavor '%s' (retail or preview)", value);
        if (arg[2] == 's' && !parse_version(value, &opts->sdk))
            return usage_error("SDK version '%s' is not a number", value);
        opts->have_sdk |= arg[2] == 's';
    } else {
        return usage_error("unknown option '%s'", arg);
    }
    return 0;
}

static int parse_args(int argc, char **argv, options *opts)
{
    if (!d12_caps_flavor_from_environment(&opts->flavor))
        return usage_error("D12RT_FLAVOR='%s' is neither retail nor preview", getenv("D12RT_FLAVOR"));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (strncmp(argv[i], "--", 2) == 0) {
            int code = parse_option(argc, argv, &i, opts);
            if (code)
                return code;
        } else if (!opts->command && !opts->have_sdk && opts->positional_count == 0) {
            opts->command = argv[i];
        } else if (opts->positional_count < 2) {
            opts->positional[opts->positional_count++] = argv[i];
        } else {
            return usage_error("unexpected argument '%s'", argv[i]);
        }
    }
    return 0;
}

/* ---- Small helpers ---- */

/* JSON string with the escapes RFC 8259 requires; names and messages here are ASCII. */
static void json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static d12_caps_version runtime_version(d12_caps_flavor flavor)
{
    d12_caps_version version;
    /* The runtime's own number is never above itself, so this cannot fail. */
    d12_caps_resolve_version(flavor, d12_caps_runtime_version(flavor), &version);
    return version;
}

static const char *flavor_name(d12_caps_flavor flavor)
{
    return flavor == D12_CAPS_FLAVOR_PREVIEW ? "preview" : "retail";
}

static UINT cfs1_version(d12_caps_line line)
{
    return line == D12_CAPS_LINE_PREVIEW ? D12_CAPS_CFS1_PREVIEW_SDK_VERSION : D12_CAPS_CFS1_RETAIL_SDK_VERSION;
}

static const char *kind_name(d12_caps_field_kind kind)
{
    static const char *const names[] = {"tier", "flags", "shader_model", "root_signature_version",
                                        "feature_level", "bool", "integer", "input", "inout", "opaque"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static const char *enum_kind_name(d12_caps_enum_kind kind)
{
    static const char *const names[] = {"feature", "tier", "flags", "shader_model", "root_signature_version",
                                        "feature_level"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static bool kind_is_clamped(d12_caps_field_kind kind)
{
    return kind <= D12_CAPS_FIELD_FEATURE_LEVEL;
}

/* Length of the prefix every value name of the enum shares, cut after an underscore, so that
 * D3D12_RAYTRACING_TIER_1_2 reads "1_2" in narrow columns. */
static size_t common_prefix(const d12_caps_enum *enumeration)
{
    const char *first = enumeration->values[0].name;
    size_t length = strlen(first);
    for (uint32_t i = 1; i < enumeration->count; i++) {
        const char *name = enumeration->values[i].name;
        size_t same = 0;
        while (same < length && name[same] == first[same])
            same++;
        length = same;
    }
    while (length > 0 && first[length - 1] != '_')
        length--;
    return length;
}

/* ---- The capability profile and one query ---- */

/* The profile's true value: the highest value present at the runtime's version (flags: all bits). */
static int64_t profile_value(const d12_caps_enum *enumeration, d12_caps_version runtime)
{
    bool flags = enumeration->kind == D12_CAPS_ENUM_FLAGS, found = false;
    int64_t result = 0;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *v = &enumeration->values[i];
        if (v->alias || !d12_caps_value_present(v, runtime))
            continue;
        if (flags)
            result |= v->value;
        else if (!found || v->value > result)
            result = v->value;
        found = true;
    }
    return result;
}

/* What the application's own headers define: the highest value present at its version (an in/out request). */
static bool highest_known(const d12_caps_enum *enumeration, d12_caps_version version, int64_t *out)
{
    bool found = false;
    for (uint32_t i = 0; i < enumeration->count; i++) {
        const d12_caps_enum_value *v = &enumeration->values[i];
        if (!v->alias && d12_caps_value_present(v, version) && (!found || v->value > *out)) {
            *out = v->value;
            found = true;
        }
    }
    return found;
}

typedef struct field_view {
    const d12_caps_field *field;
    int64_t truth;   /* the profile's value */
    int64_t answer;  /* what the driver fills in: the truth, limited by the app's request for in/out fields */
    int64_t seen;    /* what the application reads after clamping */
    bool clamped;    /* the clamp callback fired for this field */
} field_view;

typedef struct feature_view {
    const d12_caps_feature *feature;
    d12_caps_status status;
    const char *reason; /* why the query fails, when status != OK */
    const d12_caps_layout *layout;
    field_view fields[MAX_FIELDS];
    uint32_t count;
} feature_view;

typedef struct query {
    d12_caps_flavor flavor;
    d12_caps_version runtime;
    d12_caps_version version;
    union {
        D3D12_FEATURE_DATA_FEATURE_LEVELS levels;
        uint64_t align;
        unsigned char bytes[DATA_BYTES];
    } data;
    D3D_FEATURE_LEVEL requested[MAX_LEVELS];
} query;

static int64_t read_field(const query *q, const d12_caps_field *field)
{
    if (field->kind == D12_CAPS_FIELD_FLAGS) {
        uint32_t bits;
        memcpy(&bits, q->data.bytes + field->offset, sizeof(bits));
        return bits;
    }
    int32_t value; /* tiers are C enums: signed, so D3D12_TRI_STATE_UNKNOWN reads -1 */
    memcpy(&value, q->data.bytes + field->offset, sizeof(value));
    return value;
}

static void write_field(query *q, const d12_caps_field *field, int64_t value)
{
    int32_t narrow = (int32_t)value;
    memcpy(q->data.bytes + field->offset, &narrow, sizeof(narrow));
}

/* The newest layout of the feature on the version's line at or before it: what the app's headers declare. */
static const d12_caps_layout *newest_layout(const d12_caps_feature *feature, d12_caps_version version)
{
    const d12_caps_layout *best = NULL;
    for (uint32_t i = 0; i < feature->layout_count; i++) {
        const d12_caps_layout *layout = &feature->layouts[i];
        uint32_t first = layout->first[version.line];
        if (first != D12_CAPS_NEVER && first <= version.number &&
            (!best || first >= best->first[version.line]))
            best = layout;
    }
    return best;
}

static void on_clamp(void *context, const d12_caps_clamp_report *report)
{
    feature_view *view = context;
    for (uint32_t i = 0; i < view->count; i++)
        if (view->fields[i].field == report->field)
            view->fields[i].clamped = true;
}

/* Fill every input the way an application built against the version would: the feature levels and the
 * highest shader model / root signature version its headers define. */
static void fill_requests(query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++) {
        const d12_caps_field *field = view->fields[i].field;
        int64_t known = 0;
        if (field->kind == D12_CAPS_FIELD_FEATURE_LEVEL) {
            UINT n = 0;
            for (uint32_t k = 0; k < field->enumeration->count && n < MAX_LEVELS; k++)
                if (d12_caps_value_present(&field->enumeration->values[k], q->version))
                    q->requested[n++] = (D3D_FEATURE_LEVEL)field->enumeration->values[k].value;
            q->data.levels.NumFeatureLevels = n;
            q->data.levels.pFeatureLevelsRequested = q->requested;
        } else if (field->kind == D12_CAPS_FIELD_SHADER_MODEL ||
                   field->kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION) {
            highest_known(field->enumeration, q->version, &known);
            write_field(q, field, known);
            view->fields[i].answer = known < view->fields[i].truth ? known : view->fields[i].truth;
        }
    }
}

/* A driver answers MaxSupportedFeatureLevel with the highest requested level it supports. */
static int64_t driver_feature_level(const query *q, int64_t truth)
{
    int64_t best = 0;
    for (UINT i = 0; i < q->data.levels.NumFeatureLevels; i++)
        if (q->requested[i] <= truth && q->requested[i] > best)
            best = q->requested[i];
    return best;
}

static void fill_answers(query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++) {
        field_view *f = &view->fields[i];
        if (!kind_is_clamped(f->field->kind))
            continue;
        if (f->field->kind == D12_CAPS_FIELD_FEATURE_LEVEL)
            f->answer = driver_feature_level(q, f->truth);
        write_field(q, f->field, f->answer);
    }
}

static void read_seen(const query *q, feature_view *view)
{
    for (uint32_t i = 0; i < view->count; i++)
        if (kind_is_clamped(view->fields[i].field->kind))
            view->fields[i].seen = read_field(q, view->fields[i].field);
}

static const char *status_reason(d12_caps_status status)
{
    switch (status) {
    case D12_CAPS_VERSION_TOO_NEW: return "SDK version newer than the runtime";
    case D12_CAPS_UNKNOWN_FEATURE: return "a feature this runtime does not answer";
    case D12_CAPS_BAD_SIZE: return "no struct size valid at this version";
    case D12_CAPS_BAD_INPUT: return "an input the runtime does not know";
    default: return "";
    }
}

static void init_fields(query *q, feature_view *view)
{
    view->count = view->layout->field_count < MAX_FIELDS ? view->layout->field_count : MAX_FIELDS;
    for (uint32_t i = 0; i < view->count; i++) {
        field_view *f = &view->fields[i];
        f->field = &view->layout->fields[i];
        if (kind_is_clamped(f->field->kind) && f->field->enumeration)
            f->truth = f->answer = profile_value(f->field->enumeration, q->runtime);
    }
}

/* Run one feature through the calls CheckFeatureSupport1 makes, with the profile as the driver. */
static void evaluate(query *q, const d12_caps_feature *feature, feature_view *view)
{
    memset(view, 0, sizeof(*view));
    memset(&q->data, 0, sizeof(q->data));
    view->feature = feature;
    view->layout = feature->struct_name ? newest_layout(feature, q->version) : NULL;
    if (!view->layout || view->layout->size > DATA_BYTES) {
        view->status = feature->struct_name ? D12_CAPS_BAD_SIZE : D12_CAPS_UNKNOWN_FEATURE;
        view->reason = feature->struct_name ? "not available" : "not answered by this runtime";
        return;
    }
    view->status = d12_caps_check_query(feature->value, view->layout->size, q->version);
    init_fields(q, view);
    fill_requests(q, view);
    if (view->status == D12_CAPS_OK)
        view->status = d12_caps_check_inputs(q->flavor, feature->value, q->data.bytes, view->layout->size);
    if (view->status != D12_CAPS_OK) {
        view->reason = status_reason(view->status);
        return;
    }
    fill_answers(q, view);
    view->status = d12_caps_clamp(feature->value, q->data.bytes, view->layout->size, q->version, on_clamp, view);
    read_seen(q, view);
}

/* ---- Formatting values ---- */

/* "1_2 (12)" in narrow (short) form, "D3D12_RAYTRACING_TIER_1_2 (12)" in full form. */
static void format_tier(const d12_caps_field *field, int64_t value, d12_caps_version version, bool narrow,
                        char *out, size_t size)
{
    const char *name = d12_caps_value_name(field->enumeration, value, version);
    if (!name) {
        snprintf(out, size, "%" PRId64 " (no name)", value);
        return;
    }
    const char *shown = narrow ? name + common_prefix(field->enumeration) : name;
    char number[24];
    snprintf(number, sizeof(number), "%" PRId64, value);
    if (strcmp(shown, number) == 0)
        snprintf(out, size, "%s", shown);
    else
        snprintf(out, size, "%s (%s)", shown, number);
}

/* "0x3 10_BIT|16_BIT": the hex value, then each set bit's short name (an unnamed bit in hex). */
static void format_flags(const d12_caps_field *field, int64_t value, d12_caps_version version, char *out,
                         size_t size)
{
    size_t prefix = common_prefix(field->enumeration);
    int used = snprintf(out, size, "0x%" PRIx64, (uint64_t)value);
    const char *separator = " ";
    if (value == 0) {
        const char *none = d12_caps_value_name(field->enumeration, 0, version);
        if (none)
            snprintf(out + used, size - (size_t)used, " %s", none + prefix);
        return;
    }
    for (int bit = 0; bit < 32 && (size_t)used < size; bit++) {
        int64_t mask = INT64_C(1) << bit;
        if (!(value & mask))
            continue;
        const char *name = d12_caps_value_name(field->enumeration, mask, version);
        if (name)
            used += snprintf(out + used, size - (size_t)used, "%s%s", separator, name + prefix);
        else
            used += snprintf(out + used, size - (size_t)used, "%s0x%" PRIx64, separator, (uint64_t)mask);
        separator = "|";
    }
    if ((size_t)used >= size) /* too many names for the cell: the count says enough */
        snprintf(out, size, "0x%" PRIx64 " (%d bits)", (uint64_t)value, __builtin_popcountll((uint64_t)value));
}

static void format_value(const d12_caps_field *field, int64_t value, d12_caps_version version, bool narrow,
                         char *out, size_t size)
{
    if (field->kind == D12_CAPS_FIELD_FLAGS && narrow)
        snprintf(out, size, "0x%" PRIx64, (uint64_t)value);
    else if (field->kind == D12_CAPS_FIELD_FLAGS)
        format_flags(field, value, version, out, size);
    else
        format_tier(field, value, version, narrow, out, size);
}

/* ---- Text tables: rows collected first so every column is as wide as its widest cell ---- */

#define CELL_BYTES 256
#define VALUE_BYTES 100 /* a formatted value, with room to spare in a cell */
#define MAX_ROWS 1024
#define MAX_COLUMNS 6

typedef struct table_row {
    bool heading; /* one cell spanning the line: a feature's name and status */
    char cell[MAX_COLUMNS][CELL_BYTES];
} table_row;

typedef struct table {
    table_row rows[MAX_ROWS];
    int count;
    int columns;
} table;

static table_row *table_add(table *t, bool heading)
{
    if (t->count == MAX_ROWS)
        return NULL;
    table_row *row = &t->rows[t->count++];
    memset(row, 0, sizeof(*row));
    row->heading = heading;
    return row;
}

static void table_heading(table *t, const char *format, ...)
{
    table_row *row = table_add(t, true);
    if (!row)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(row->cell[0], CELL_BYTES, format, args);
    va_end(args);
}

static void table_print(const table *t)
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

static void describe_version(const query *q, d12_caps_flavor flavor, char *out, size_t size)
{
    if (q->version.number != q->version.requested)
        snprintf(out, size, "SDK %u, treated as %u (a %s runtime remaps its preview version %u)",
                 q->version.requested, q->version.number, flavor_name(flavor), q->version.requested);
    else
        snprintf(out, size, "SDK %u (%s line)", q->version.number, d12_caps_line_name(q->version.line));
}

/* Resolve a requested version; a too-new one is reported the way CheckFeatureSupport1 fails. */
static bool start_query(query *q, d12_caps_flavor flavor, UINT requested, bool json)
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

static bool field_differs(const field_view *f)
{
    return kind_is_clamped(f->field->kind) && f->seen != f->truth;
}

static const char *field_mark(const field_view *f)
{
    if (f->clamped)
        return "*";
    return f->answer != f->truth ? "<" : "";
}

static void legend(void)
{
    printf("Legend: * clamped by CheckFeatureSupport1 for that SDK; < the app asked for no more (in/out field:\n"
           "        it passes the highest value its own headers define); n/a feature not available at that SDK\n"
           "        (E_INVALIDARG). Flags in hex; --sdk N lists their bit names.\n\n");
}

/* Which spec the linked tables came from: the tool is also built over the fixture spec's tables. */
#ifdef D12CAPS_TOOL_FIXTURE
#define D12CAPS_TOOL_SPEC "tests/fixtures/future-spec/ (hypothetical values after CheckFeatureSupport1)"
#else
#define D12CAPS_TOOL_SPEC "spec/ (the real SDK history)"
#endif

static void profile_line(const query *q)
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

typedef struct totals {
    uint32_t available, unavailable, clamped;
} totals;

static void count_view(const feature_view *view, totals *sum)
{
    if (view->status != D12_CAPS_OK) {
        sum->unavailable++;
        return;
    }
    sum->available++;
    for (uint32_t i = 0; i < view->count; i++)
        sum->clamped += view->fields[i].clamped;
}

static table report_table; /* large: static rather than on the stack */

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

static void json_query(query *q)
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

static int run_sdk(const options *opts)
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

/* ---- compare A B ---- */

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

static int run_compare(const options *opts)
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

/* ---- history ENUM, enums ---- */

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

static int run_history(const options *opts)
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

static int run_enums(const options *opts)
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

static int run_versions(const options *opts)
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

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(const options *);
    } commands[] = {{"compare", run_compare}, {"history", run_history}, {"enums", run_enums},
                    {"versions", run_versions}};
    options opts = {0};
    int code = parse_args(argc, argv, &opts);
    if (code)
        return code;
    if (!opts.command)
        return opts.have_sdk ? run_sdk(&opts) : usage_error("nothing to do");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(opts.command, commands[i].name) == 0)
            return commands[i].run(&opts);
    return usage_error("unknown command '%s'", opts.command);
}
