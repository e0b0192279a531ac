/* What every ID3D12Object keeps: private data by GUID (GetPrivateData, SetPrivateData,
 * SetPrivateDataInterface) and its name (SetName). Names are kept as given (WCHAR is a 4-byte wchar_t here, so
 * UTF-32) and, converted once at SetName, as UTF-8 for messages and identity strings. docs/com.md. */
#ifndef D12_OBJECT_H
#define D12_OBJECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

struct d12__private_entry;

typedef struct d12_object_data {
    pthread_mutex_t lock; /* leaf lock: guards everything below; never held while calling out */
    struct d12__private_entry *entries;
    size_t count;
    char *name_utf8; /* NULL until a name is set (SetName or the WKPDID_D3DDebugObjectName(W) GUIDs) */
} d12_object_data;

void d12__object_data_init(d12_object_data *data);
/* Frees every entry and releases every stored interface. */
void d12__object_data_destroy(d12_object_data *data);

/* ID3D12Object methods, with D3D12's conventions: GetPrivateData with a NULL size pointer is E_INVALIDARG; an
 * unknown GUID sets *size to 0 and returns DXGI_ERROR_NOT_FOUND; a NULL buffer asks for the size (S_OK); a
 * short buffer gets DXGI_ERROR_MORE_DATA with the size needed; an interface entry comes back AddRef'ed.
 * SetPrivateData(guid, N, NULL) deletes the entry for any N: S_OK when there was one, S_FALSE when there was none
 * (a size of 0 with data deletes too); SetPrivateDataInterface(guid, NULL) stores a NULL interface entry, which
 * GetPrivateData returns as S_OK, a NULL pointer and sizeof(IUnknown *) (Windows' behaviour, issue 8 item 8). */
/* Whether an object whose last reference is gone (being destroyed: no other thread can reach it, so no lock) holds
 * any private data entry, a name being one: lets its destruction skip lookups that would all miss. */
bool d12__object_dying_has_private_data(const d12_object_data *data);
HRESULT d12__object_get_private_data(d12_object_data *data, const GUID *guid, UINT *size, void *out);
HRESULT d12__object_set_private_data(d12_object_data *data, const GUID *guid, UINT size, const void *in);
HRESULT d12__object_set_private_data_interface(d12_object_data *data, const GUID *guid, const IUnknown *object);
HRESULT d12__object_set_name(d12_object_data *data, LPCWSTR name);

/* The object's name as UTF-8, copied into `out` (always NUL-terminated); returns false when it has none. */
bool d12__object_name(d12_object_data *data, char *out, size_t size);

/* The object's whole name as a malloc'ed UTF-8 string; NULL when it has none. *out_of_memory says which NULL
 * it is. */
char *d12__object_name_dup(d12_object_data *data, bool *out_of_memory);

/* UTF-32 (a NUL-terminated WCHAR string here) to UTF-8; invalid code points become U+FFFD. Returns a malloc'ed
 * string or NULL when out of memory. */
char *d12__utf32_to_utf8(const WCHAR *text, size_t length);

#endif
