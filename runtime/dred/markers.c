/* ID3D12CommandQueue::SetMarker, BeginEvent, EndEvent (docs/dred.md, "Queue markers").
 *
 * Windows' DRED output has command-list nodes only: a breadcrumb is an op of a command list's recording, and its
 * index is an op index of that list. A queue marker has no list, no op index and no GPU work, so it appears nowhere
 * in the DRED structs (and d12rt's DDI has no marker entry to hand it to a driver). The calls are accepted and
 * checked for nothing, as on a Windows runtime without PIX attached. */
#include "queue.h"

void d12_command_queue_SetMarker(struct d12_command_queue *self, UINT Metadata, const void *pData, UINT Size)
{
    (void)self, (void)Metadata, (void)pData, (void)Size;
}

void d12_command_queue_BeginEvent(struct d12_command_queue *self, UINT Metadata, const void *pData, UINT Size)
{
    (void)self, (void)Metadata, (void)pData, (void)Size;
}

void d12_command_queue_EndEvent(struct d12_command_queue *self)
{
    (void)self;
}
