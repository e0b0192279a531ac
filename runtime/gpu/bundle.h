/* Bundles (issue 17 item 6; docs/bundles.md): D3D12_COMMAND_LIST_TYPE_BUNDLE allocators and lists, recorded by the
 * runtime itself and replayed into the calling direct list's driver list at ExecuteBundle, so a driver needs no
 * bundle entry in the DDI (the WDK's pfnExecuteBundle has no counterpart in d12rt's DDI; the reference driver and the
 * skeleton are unchanged).
 *
 * A bundle list's `ddi` is d12__bundle_ddi and its `handle` names a d12_bundle_log (the recorded calls): every
 * recording method of list.c reaches the log through the same `self->ddi->pfn...(self->handle, ...)` calls that
 * reach a driver for other lists, so the draw path has no bundle branch. Its state indices come from its own
 * recorder (the bundle is the owner: a driver message about a replayed draw is annotated with the bundle's identity
 * and the draw's ordinal within the bundle); each replay passes the draw's stored index to the driver with
 * pfnSetCommandListStateIndex on the calling list, and the calling list's recording adopts the bundle's
 * (correlation.h) so its submissions keep the bundle's indices resolvable. A bundle has no DRED state of its own:
 * the calling list records EXECUTEBUNDLE, with the bundle's identity as the op's breadcrumb context.
 *
 * Threads: a log is written by the bundle's recording thread and read by ExecuteBundle's, which D3D12 orders (a bundle
 * is closed before it is executed). */
#ifndef D12_BUNDLE_H
#define D12_BUNDLE_H

#include <stdbool.h>

#include "list.h"

/* The recording table of bundle lists. */
extern const D3D12DDI_COMMAND_LIST_FUNCS_3D_0126 d12__bundle_ddi;

/* CreateCommandList(BUNDLE), in place of the driver's list: the log, `ddi` and (correlation on) the state index
 * hook. S_OK or E_OUTOFMEMORY. */
HRESULT d12__bundle_create(struct d12_command_list *list);
/* The list's destruction: frees what the log holds (list_destroy frees the log itself). */
void d12__bundle_destroy(struct d12_command_list *list);

/* A call a bundle may not record (recording-command-lists-and-bundles.md, "Bundle restrictions": "If any of these
 * APIs are called on a bundle, the runtime will drop the call. The debug layer will issue an error"): INVALID_BUNDLE_API
 * and the recording error E_FAIL ("E_FAIL if ... an invalid API was called during command list recording", Close). */
void d12__bundle_refuse(struct d12_command_list *list, const char *method);

/* Whether `list` is a bundle, which then refuses `method` (dropped, reported). */
static inline bool d12__bundle_refuses(struct d12_command_list *list, const char *method)
{
    if (__builtin_expect(list->type != D3D12_COMMAND_LIST_TYPE_BUNDLE, 1))
        return false;
    d12__bundle_refuse(list, method);
    return true;
}

#endif
