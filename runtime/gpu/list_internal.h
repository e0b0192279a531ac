/* What the command list's files share:
 * list.c owns the recording state, list_binding.c the binding setters, list_barriers.c ResourceBarrier. Private to
 * runtime/gpu/. */
#ifndef D12_LIST_INTERNAL_H
#define D12_LIST_INTERNAL_H

#include "list.h"

/* D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT */
#define D12_VERTEX_SLOTS 32u
#define D12_BARRIER_STACK 16u

/* Whether the list records: a recording call on a closed list is reported (COMMAND_LIST_CLOSED) and dropped. */
bool d12__list_recording(struct d12_command_list *list, const char *method);

/* A recording error: the first one is what Close returns ("E_INVALIDARG if an invalid argument was passed to the
 * command list API during recording"). */
void d12__list_record_error(struct d12_command_list *list, HRESULT hr);

/* Correlation: "The runtime calls pfnSetCommandListStateIndex on the driver before each draw, dispatch, or other
 * GPU-work generating command list API call". */
static inline void d12__list_before_work(struct d12_command_list *list, d12_work_kind kind)
{
    if (list->set_state_index)
        list->set_state_index(list->handle, d12__recorder_issue(&list->recorder, kind));
}

/* The binding state back to "nothing bound" (a new recording, the list's end): references on root signatures and
 * pipeline states go. */
void d12__list_binding_reset(struct d12_command_list *list);

/* The list's binding state, made at the first binding call; NULL (a recording error) when out of memory. */
d12_list_bindings *d12__list_bindings_of(struct d12_command_list *list);

/* Keep a reference on a pipeline state or root signature the recording named until the binding state is reset
 * (d12_list_bindings.kept). false: out of memory (a recording error; the call must be dropped). */
bool d12__list_keep(struct d12_command_list *list, struct d12_pipeline_state *pipeline,
                    struct d12_root_signature *root_signature);

/* Dispatch's debug-layer checks (list_pipeline.c): COMMAND_LIST_PIPELINE_STATE_NOT_SET and
 * COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_NOT_SET with the dispatch's "[Dispatch #n]"; it is forwarded all the same. */
void d12__list_check_dispatch(struct d12_command_list *list);

/* SetPipelineState's work, shared by CreateCommandList's and Reset's pInitialState (list_pipeline.c). */
void d12__list_set_pipeline_state(struct d12_command_list *list, ID3D12PipelineState *state, const char *method);

#endif
