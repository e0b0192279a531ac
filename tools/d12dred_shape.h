/* d12dred's early refusal of a file that cannot be a DRED report (issue 17 item 7.9; docs/reliability.md "Threat
 * model"), before the JSON tree is built: a 32 MB array of numbers took 1.9 GB and 11 s to be refused, the tree
 * costing ~100 bytes a value however short its text. One pass over the bytes, no allocation:
 *   - the top level must be an object (a report is one);
 *   - every array must hold objects (every array of a report does: queues, submissions, lists, waits, nodes, ops,
 *     messages, vertex buffers, root descriptors, allocations);
 *   - at most one JSON value per 8 bytes of input, plus 4096 (written reports have one per 16 to 22 bytes), so the
 *     tree the parser then builds stays within a small multiple of the file (about 12 times).
 * The file itself is read as every config file is (cfgfile.h): no blocking open, a regular file only, at most
 * D12DRED_MAX_FILE_BYTES. */
#ifndef D12DRED_SHAPE_H
#define D12DRED_SHAPE_H

#include <stddef.h>

#include "d12dred_report.h"

/* JSON values allowed for `size` bytes of input. */
#define D12DRED_SHAPE_MAX_VALUES(size) ((size) / 8 + 4096)

/* 0 when `data` may be a report; -1 with the reason in `error` (no path in it). */
int d12dred_shape_check(const char *data, size_t size, char *error, size_t error_size);

/* Read `path` safely, check its shape, then parse it (d12dred_report_parse_buffer). 0, or -1 with `error` filled:
 * "cannot read PATH: ..." when the file could not be read, else the reason without the path. */
int d12dred_shape_load(const char *path, d12dred_report **out, char *error, size_t error_size);

#endif
