/* The JSON -> model mapper's helpers (d12dred_json_read.c), shared with the mapping of issue 19's additive members
 * (d12dred_json_read_ext.c). Not part of the library's API: the short names are macros for d12__dred_map_* ones. */
#ifndef D12DRED_JSON_MAP_H
#define D12DRED_JSON_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "d12dred_internal.h"
#include "d12dred_report.h"

typedef struct mapper {
    char path[512];
    char *error;
    size_t error_size;
    int failed;
} mapper;

#define map_fail d12__dred_map_fail
#define push_key d12__dred_map_push_key
#define push_index d12__dred_map_push_index
#define pop d12__dred_map_pop
#define type_word d12__dred_map_type_word
#define get d12__dred_map_get
#define key_uint d12__dred_map_key_uint
#define key_u32 d12__dred_map_key_u32
#define key_string d12__dred_map_key_string
#define key_hex d12__dred_map_key_hex
#define key_array d12__dred_map_key_array
#define key_word d12__dred_map_key_word
#define key_bool d12__dred_map_key_bool
#define key_enum d12__dred_map_key_enum
#define adopt d12__dred_map_adopt

int map_fail(mapper *m, const char *format, ...) __attribute__((format(printf, 2, 3)));
size_t push_key(mapper *m, const char *key);
size_t push_index(mapper *m, size_t index);
void pop(mapper *m, size_t mark);
const char *type_word(const jvalue *value);
/* The member `key` of an object, or NULL when absent. */
const jvalue *get(const jvalue *object, const char *key);
int key_uint(mapper *m, const jvalue *object, const char *key, uint64_t max, uint64_t *out);
int key_u32(mapper *m, const jvalue *object, const char *key, uint32_t *out);
int key_string(mapper *m, const jvalue *object, const char *key, char **out);
int key_hex(mapper *m, const jvalue *object, const char *key, uint64_t *out);
int key_bool(mapper *m, const jvalue *object, const char *key, bool *out);
/* An enum object {"value": N, "name": string|null}: the number is what counts (the name is re-derived). */
int key_enum(mapper *m, const jvalue *object, const char *key, uint32_t *out);
int key_array(mapper *m, const jvalue *object, const char *key, int (*each)(mapper *, const jvalue *, void *),
              void *context);
int key_word(mapper *m, const jvalue *object, const char *key, const char *(*name_of)(int), int count,
             int null_value, int *out);
void adopt(char **slot, char *text);

/* Issue 19's additive members (d12dred_json_read_ext.c): each optional (an older version-1 file lacks it). */
int d12__dred_map_site(mapper *m, const jvalue *value, d12dred_va_site *site);
int d12__dred_map_state_ext(mapper *m, const jvalue *value, d12dred_op_state *state);
int d12__dred_map_op_ext(mapper *m, const jvalue *value, d12dred_op *op);
int d12__dred_map_node_ext(mapper *m, const jvalue *value, d12dred_node *node);
int d12__dred_map_submission_ext(mapper *m, const jvalue *value, d12dred_submission *submission);
int d12__dred_map_wait_ext(mapper *m, const jvalue *value, d12dred_wait *wait);
int d12__dred_map_queue_ext(mapper *m, const jvalue *value, d12dred_queue *queue);
int d12__dred_map_page_fault_ext(mapper *m, const jvalue *value, d12dred_page_fault *page_fault);
int d12__dred_map_report_ext(mapper *m, const jvalue *value, d12dred_report *report);

#endif
