/* d12caps (the tool; libd12caps is runtime/caps/d12caps.h): what its files share. main.c parses the command line
 * and dispatches; view.c runs a feature through the calls CheckFeatureSupport1 makes and formats values; table.c
 * prints text tables and the report headers; sdk.c is `--sdk N`, compare.c `compare A B`, catalog.c `history`,
 * `enums` and `versions`. */
#ifndef D12CAPS_TOOL_H
#define D12CAPS_TOOL_H

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

/* ---- One query (view.c) ---- */

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

/* ---- Text tables (table.c): rows collected first so every column is as wide as its widest cell ---- */

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

typedef struct totals {
    uint32_t available, unavailable, clamped;
} totals;

/* The text table of a report (large: static rather than on the stack; sdk.c). */
extern table report_table;

/* ---- Functions, by file: main.c, view.c, table.c, sdk.c, then the commands ---- */

int usage_error(const char *format, ...);
bool parse_version(const char *text, UINT *out);
/* JSON string with the escapes RFC 8259 requires; names and messages here are ASCII. */
void json_string(const char *text);
d12_caps_version runtime_version(d12_caps_flavor flavor);
const char *flavor_name(d12_caps_flavor flavor);
UINT cfs1_version(d12_caps_line line);
const char *kind_name(d12_caps_field_kind kind);
const char *enum_kind_name(d12_caps_enum_kind kind);
bool kind_is_clamped(d12_caps_field_kind kind);
/* Run one feature through the calls CheckFeatureSupport1 makes, with the profile as the driver. */
void evaluate(query *q, const d12_caps_feature *feature, feature_view *view);
void format_value(const d12_caps_field *field, int64_t value, d12_caps_version version, bool narrow,
                  char *out, size_t size);
table_row *table_add(table *t, bool heading);
void table_heading(table *t, const char *format, ...);
void table_print(const table *t);
void describe_version(const query *q, d12_caps_flavor flavor, char *out, size_t size);
/* Resolve a requested version; a too-new one is reported the way CheckFeatureSupport1 fails. */
bool start_query(query *q, d12_caps_flavor flavor, UINT requested, bool json);
bool field_differs(const field_view *f);
const char *field_mark(const field_view *f);
void legend(void);
void profile_line(const query *q);
void count_view(const feature_view *view, totals *sum);
void json_query(query *q);
int run_sdk(const options *opts);
int run_compare(const options *opts);
int run_history(const options *opts);
int run_enums(const options *opts);
int run_versions(const options *opts);

#endif
