/* DRED's record of the bundles a list executed (issue 32 item 1; breadcrumbs.h, docs/dred.md "Bundles"): which bundle
 * ran at each EXECUTEBUNDLE op, and its draws and dispatches with their arguments, so that the report can name the
 * draw the driver named and the state it saw. Written by the recording thread (ExecuteBundle), read at a freeze
 * under the same rules as the rest of the recording (breadcrumbs.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "breadcrumbs.h"

/* Room for one more element of `size` bytes; false when out of memory. */
static bool grow(void **items, UINT *capacity, UINT count, size_t size)
{
    if (count < *capacity)
        return true;
    UINT wanted = *capacity ? *capacity * 2 : 4;
    void *grown = wanted > *capacity ? realloc(*items, wanted * size) : NULL;
    if (grown == NULL)
        return false;
    *items = grown;
    *capacity = wanted;
    return true;
}

void d12__dred_bundle_begin(d12_dred_list *dred, UINT64 identity, const char *name)
{
    if (dred == NULL || !dred->track_state)
        return;
    if (!grow((void **)&dred->bundle_runs, &dred->bundle_run_capacity, dred->bundle_run_count,
              sizeof *dred->bundle_runs))
        return; /* no run: the report names no draw of this bundle */
    dred->bundle_runs[dred->bundle_run_count++] =
        (d12_dred_bundle_run){dred->count, identity, name ? strdup(name) : NULL};
    dred->bundle_step = 1;
}

void d12__dred_bundle_work(d12_dred_list *dred, UINT kind, UINT ordinal, const UINT32 args[5])
{
    if (dred == NULL || dred->bundle_step == 0)
        return;
    UINT position = dred->bundle_step - 1;
    dred->bundle_step++; /* the changes after this draw are not what it saw */
    if (!grow((void **)&dred->bundle_works, &dred->bundle_work_capacity, dred->bundle_work_count,
              sizeof *dred->bundle_works))
        return;
    d12_dred_bundle_work *work = &dred->bundle_works[dred->bundle_work_count++];
    *work = (d12_dred_bundle_work){.op = dred->count, .position = position, .ordinal = ordinal, .kind = kind};
    memcpy(work->args.u32, args, sizeof work->args.u32);
}

void d12__dred_bundle_end(d12_dred_list *dred)
{
    if (dred)
        dred->bundle_step = 0;
}

void d12__dred_bundles_clear(d12_dred_list *dred)
{
    for (UINT i = 0; i < dred->bundle_run_count; i++)
        free(dred->bundle_runs[i].name);
    dred->bundle_run_count = 0;
    dred->bundle_work_count = 0;
    dred->bundle_step = 0;
}

const d12_dred_bundle_run *d12__dred_bundle_at(const d12_dred_list *dred, UINT op, UINT *first, UINT *count)
{
    const d12_dred_bundle_run *run = NULL;
    for (UINT i = 0; i < dred->bundle_run_count && !run; i++) /* few per list: a scan */
        if (dred->bundle_runs[i].op == op)
            run = &dred->bundle_runs[i];
    *first = *count = 0;
    for (UINT i = 0; run && i < dred->bundle_work_count; i++) {
        if (dred->bundle_works[i].op != op)
            continue;
        if (*count == 0)
            *first = i;
        ++*count;
    }
    return run;
}
