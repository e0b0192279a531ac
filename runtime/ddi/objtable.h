/* The live-object table: which runtime handles a driver may name in pfnQueryObjectIdentityCb, and what each one
 * is (driver-reported-messages.txt, "Object identity"). One table per device.
 *
 * Every runtime object a driver gets a handle of embeds a d12_objtable_entry, registers it when the object is
 * created and removes it before the object is destroyed. A lookup compares handle VALUES only: it never reads
 * through the pointer a driver passed, so a bogus handle is "no such object" (E_INVALIDARG), never a crash; and
 * since the values are serials never handed out twice (rthandle.h), so is a stale one. The table is a hash of
 * chains keyed by (handle, type): O(1) for the thousands of resources a device may hold; adding never fails (when the
 * table cannot grow, chains get longer).
 *
 * Locks: `lock` (a mutex) guards the buckets and every entry's `next`. Lookups are rare (a driver composing a
 * message), additions and removals happen at object creation and destruction, so a mutex suffices. It ranks just above the object data lock (runtime/object.h), the only lock taken under it
 * (to copy an object's name), and is never held while calling the driver or the application. */
#ifndef D12_OBJTABLE_H
#define D12_OBJTABLE_H

#include <pthread.h>
#include <stddef.h>

#include "d12rt/d3d12ddi.h"
#include "object.h"

#define D12_OBJTABLE_INITIAL_BUCKETS 16

typedef struct d12_objtable_entry {
    struct d12_objtable_entry *next; /* guarded by the table's lock */
    /* Fixed while registered. */
    const void *handle;          /* the runtime handle's value the driver sees (D3D12DDI_HRT*.handle): a serial
                                  * (rthandle.h) or the device's token, never an address */
    void *object;                /* the runtime object it names (struct d12_command_list *, ...) */
    D3D12DDI_HANDLETYPE type;    /* the type the driver must pass with it */
    const void *api_object;      /* the COM pointer the application holds: the identity's 0x... part */
    const char *interface_name;  /* e.g. "ID3D12Device": 'Unnamed <interface_name> Object' */
    d12_object_data *data;       /* its SetName name */
} d12_objtable_entry;

typedef struct d12_objtable {
    pthread_mutex_t lock;
    d12_objtable_entry **buckets; /* `initial` until the table grows */
    size_t bucket_count;          /* a power of two */
    size_t count;
    d12_objtable_entry *initial[D12_OBJTABLE_INITIAL_BUCKETS];
} d12_objtable;

void d12__objtable_init(d12_objtable *table);
/* Every entry must have been removed (they belong to their objects; the table frees only its buckets). */
void d12__objtable_destroy(d12_objtable *table);

/* Register `entry` (its fixed fields filled). A (handle, type) pair must not be registered twice. */
void d12__objtable_add(d12_objtable *table, d12_objtable_entry *entry);
/* Unregister `entry`; one that is not registered is ignored (so failure paths may call it). */
void d12__objtable_remove(d12_objtable *table, d12_objtable_entry *entry);

/* The identity string of the live object (handle, type), malloc'ed: "0x%016llX:'name'" with the API object
 * pointer, or "0x%016llX:'Unnamed <Interface> Object'" when no name is set. E_INVALIDARG when no such object
 * is registered, E_OUTOFMEMORY. */
HRESULT d12__objtable_identity(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type, char **out);

/* The identity string itself (what d12__objtable_identity returns), for an object's own pointer, interface name and
 * UTF-8 name (NULL: unnamed); malloc'ed, NULL when out of memory. */
char *d12__format_identity(const void *api_object, const char *interface_name, const char *name);

/* Whether (handle, type) is a registered object right now. */
bool d12__objtable_contains(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type);

/* The runtime object (handle, type) names right now, or NULL: a stale handle (its object released; a new object may
 * sit at its old address, but never gets its value) or a bogus one. */
void *d12__objtable_object(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type);

#endif
