/* Helpers shared by the files of the d12dred_report library (not part of its API). */
#ifndef D12DRED_INTERNAL_H
#define D12DRED_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "d12dred_report.h"

/* UTF-8 of one scalar value (a surrogate or a value past U+10FFFF becomes U+FFFD); returns the byte count. */
size_t d12__dred_utf8_encode(char out[4], uint32_t cp);
/* One valid shortest-form UTF-8 sequence at text[0..length): its byte count and *cp, or 0 when invalid. */
size_t d12__dred_utf8_decode(const unsigned char *text, size_t length, uint32_t *cp);
/* *slot = a sanitized copy of text (NULL clears); 0, or -1 when out of memory (then *slot is unchanged). */
int d12__dred_set_string(char **slot, const char *text);
/* Ensures room for one more `size`-byte element in *items (capacity doubling); 0, or -1 when out of memory. */
int d12__dred_grow(void **items, size_t *capacity, size_t count, size_t size);

/* A growable text buffer for the JSON writer and the renderer. `failed` sticks once memory ran out. */
typedef struct d12__dred_buf {
    char *data;
    size_t length;
    size_t capacity;
    int failed;
} d12__dred_buf;

void d12__dred_buf_append(d12__dred_buf *buf, const char *text, size_t length);
void d12__dred_buf_puts(d12__dred_buf *buf, const char *text);
void d12__dred_buf_printf(d12__dred_buf *buf, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Rendering helpers (d12dred_render.c), shared with d12dred_diff.c: text with control characters escaped, 'name'
 * or (unnamed), NAME(n) of an op, an enum's name (n), and writing a buffer out (freeing it; -1 on error). */
void d12__dred_put_text(d12__dred_buf *b, const char *text);
void d12__dred_put_name(d12__dred_buf *b, const char *name);
void d12__dred_put_op_name(d12__dred_buf *b, uint32_t op);
void d12__dred_put_enum(d12__dred_buf *b, const char *name, uint32_t value);
int d12__dred_emit(d12__dred_buf *b, FILE *out);
/* The pieces of the `show` tree that the HTML page (d12dred_html.c) shows in the same words: an op's line without its
 * indentation (`#i NAME(n) "context"  <- marks`), the op's state (show's lines, `indent` spaces in), one message
 * (`[SEVERITY] CATEGORY #id: text`), an allocation, the page-fault verdict (`use-after-free: 'X' + 0x40, ...`), a
 * byte distance, a submission's and a node's status words. */
void d12__dred_put_op_line(d12__dred_buf *b, const d12dred_report *r, const d12dred_node *n, const d12dred_op *op,
                           int first_outstanding_mark);
void d12__dred_render_state(d12__dred_buf *b, unsigned indent, const d12dred_op_state *s);
/* `[bundle 'Foliage bundle', #1] DRAWINSTANCED(12)` and, for a draw no driver named, why it is the one shown
 * (d12dred_bundles.c); no newline. */
void d12__dred_put_bundle_draw(d12__dred_buf *b, const d12dred_bundle_draw *draw);
void d12__dred_free_bundle_draw(d12dred_bundle_draw *draw);
/* `node 0: list 'L' on queue 'Q', submission #2` */
void d12__dred_put_node_title(d12__dred_buf *b, size_t index, const d12dred_node *n);
void d12__dred_put_message(d12__dred_buf *b, const d12dred_message *message);
void d12__dred_put_allocation(d12__dred_buf *b, const d12dred_allocation *a);
void d12__dred_put_verdict(d12__dred_buf *b, const d12dred_page_fault *pf);
void d12__dred_put_distance(d12__dred_buf *b, uint64_t bytes);
/* A stall report's kind line: `stall: no GPU progress for N ms while work was pending (D12RT_STALL_MS); ...` */
void d12__dred_put_stall(d12__dred_buf *b, const d12dred_report *r);
const char *d12__dred_status_text(d12dred_submission_status status);
const char *d12__dred_node_status_text(const d12dred_node *n);
/* Whether the node has an attributed op (else its first outstanding op is marked), whether a long node shows an op
 * (show's window), and which ops are BEGINEVENTs enclosing an attributed or the last completed op (calloc'd flags per
 * kept op; NULL when out of memory). */
int d12__dred_node_has_attribution(const d12dred_node *n);
int d12__dred_op_shown(const d12dred_node *n, const d12dred_op *op, const unsigned char *in_stack);
unsigned char *d12__dred_event_stacks(const d12dred_node *n);

/* The op a report blames (d12dred_diff.c): its first `exact` op, else its first `suspect` one ({NULL, NULL}: none). */
typedef struct d12__dred_fault_site {
    const d12dred_node *node;
    const d12dred_op *op;
} d12__dred_fault_site;
d12__dred_fault_site d12__dred_find_fault(const d12dred_report *r);

/* The words a report uses for a fence (d12dred_fences.c): 'name', with " (0x...)" when another fence of the report
 * shares the name, or "unnamed fence 0x..." -- the identity decides, the name is for the reader (issue 29). */
struct d12dred_report;
void d12__dred_put_fence(d12__dred_buf *b, const struct d12dred_report *report, const char *name, int has_id,
                         uint64_t id);

/* `diff`'s aspects of issue 32 (d12dred_diff_waits.c): kind, cause, the waits' verdict, the waits and signals. */
void d12__dred_describe_kind(d12__dred_buf *b, const struct d12dred_report *r);
void d12__dred_describe_cause(d12__dred_buf *b, const struct d12dred_report *r);
void d12__dred_describe_wait_verdict(d12__dred_buf *b, const struct d12dred_report *r);
void d12__dred_describe_waits(d12__dred_buf *b, const struct d12dred_report *r);

/* Timelines (d12dred_timeline.c): one event's line (`#3 created 'X' [0x.., 0x..) after submission #1, 1.250 ms
 * before the removal`, no indentation, no newline), diff's aspect (the events in order, times, VAs and sequence
 * numbers left out), and freeing them (d12dred_report_free). */
void d12__dred_put_timeline_event(d12__dred_buf *b, const d12dred_report *r, const d12dred_timeline *t,
                                  const d12dred_timeline_event *e);
void d12__dred_put_timeline_title(d12__dred_buf *b, const d12dred_timeline *t);
void d12__dred_describe_timelines(d12__dred_buf *b, const d12dred_report *r);
void d12__dred_free_timelines(d12dred_report *report);

/* The JSON tree (d12dred_json_parse.c). Objects keep their keys in order, in keys[] alongside items[]. */
typedef enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jvalue jvalue;
struct jvalue {
    jtype type;
    char *text;           /* J_STRING: the decoded UTF-8; J_NUMBER: the literal */
    size_t length;
    jvalue **items;       /* J_ARRAY: values; J_OBJECT: values, with keys[] alongside */
    char **keys;
    size_t count;
    size_t capacity;
    unsigned line, column;
    unsigned char used;   /* the mapper looked this member up (d12__dred_map_get): the rest are a report's extras */
};

/* Parses the whole buffer; NULL with `line L, column C: ...` in error on failure. */
jvalue *d12__dred_json_parse(const char *data, size_t size, char *error, size_t error_size);
/* The same with another value budget (tests: the real one, D12DRED_MAX_VALUES, takes gigabytes to reach). */
jvalue *d12__dred_json_parse_bounded(const char *data, size_t size, size_t max_values, char *error,
                                     size_t error_size);
void d12__dred_jfree(jvalue *value);
/* After mapping: moves every object member the mapper never looked up out of the tree into report->extras (its
 * owner's JSON path, its key, its value). 0, or -1 when out of memory. */
int d12__dred_collect_extras(jvalue *root, d12dred_report *report);
/* Frees report->extras (d12dred_report_free). */
void d12__dred_free_extras(d12dred_report *report);

#endif
