/* Generation-checked runtime handles (issue 10 item 4; docs/conformance.md, "What the runtime guarantees").
 *
 * The spec makes a report on a destroyed device the driver's bug ("Calling it on a destroyed device ... is a
 * use-after-free"). d12rt is stronger: hRTDevice is not a pointer but a token, (generation << 16) | (slot + 1), into
 * a fixed table of slots. A callback resolves it with d12__rthandle_acquire, which reads only the table (never
 * memory the token might once have pointed at): a token whose slot was unregistered since, or that never named a
 * slot, resolves to NULL and the callback answers E_INVALIDARG (or ignores the call when it returns VOID). A
 * resolved object stays alive until d12__rthandle_release: unregistering waits for every use in flight, so a
 * callback racing with device destruction either sees the device whole or not at all.
 *
 * Threads: every function may be called on any thread. acquire/release are two atomic operations on the slot;
 * register/unregister take a mutex (device creation and destruction only). */
#ifndef D12_RTHANDLE_H
#define D12_RTHANDLE_H

#include <stdbool.h>

#include "d12rt/d3d12ddi.h"

/* Live runtime handles at once; a register beyond it fails (E_OUTOFMEMORY). */
#define D12_RTHANDLE_SLOTS 4096u

/* A fresh token naming `object`. */
HRESULT d12__rthandle_register(void *object, void **token);
/* The object `token` names and one use of it, or NULL (stale, foreign or NULL token). */
void *d12__rthandle_acquire(const void *token);
/* Give back the use an acquire that returned non-NULL took. */
void d12__rthandle_release(const void *token);
/* Invalidate `token` (every later acquire gets NULL) and wait until no use of it is in flight. NULL is ignored.
 * Never called on a thread that holds a use of `token` (it would wait for itself): see d12__rthandle_defer. */
void d12__rthandle_unregister(const void *token);
/* When the calling thread holds a use of `token` (it is inside a callback that acquired it, and the application's
 * code run from there dropped the object's last reference), record destroy(argument) to run on this thread right
 * after its outermost use is given back, and answer true; otherwise false (destroy now). Issue 17 item 7.1. */
bool d12__rthandle_defer(const void *token, void (*destroy)(void *), void *argument);

/* The runtime handles of the other objects a driver is given and may pass back (hRTCommandQueue, hRTCommandList,
 * hRTFence, hRTResource) are not their addresses either but serial numbers, D12_RTHANDLE_SERIAL_TAG | n, n counting
 * from 1 process-wide and never handed out twice: the runtime resolves one by looking its value up (the device's
 * live-object table, a queue list), so a stale handle — its object released and the address reused by a new object —
 * names nothing, where an address would have named the new object. The tag keeps a serial from ever decoding as a
 * device token (tokens are below 2^48). A 64-bit count does not wrap in the life of a process. */
#define D12_RTHANDLE_SERIAL_TAG ((uintptr_t)0xD12 << 52)
void *d12__rthandle_serial(void);

#endif
