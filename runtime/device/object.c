/* Private data and names of ID3D12Object (runtime/object.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "object.h"
#include "utf8.h"

struct d12__private_entry {
    GUID guid;
    bool is_interface; /* SetPrivateDataInterface's entry (data == NULL) */
    IUnknown *object;  /* its interface, AddRef'ed while stored; NULL for a NULL interface */
    void *data;
    UINT size;
};

static bool guid_equal(const GUID *a, const GUID *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

void d12__object_data_init(d12_object_data *data)
{
    pthread_mutex_init(&data->lock, NULL);
    data->entries = NULL;
    data->count = 0;
    data->name_utf8 = NULL;
}

static void entry_clear(struct d12__private_entry *entry)
{
    if (entry->object != NULL)
        entry->object->lpVtbl->Release(entry->object);
    free(entry->data);
}

void d12__object_data_destroy(d12_object_data *data)
{
    for (size_t i = 0; i < data->count; i++)
        entry_clear(&data->entries[i]);
    free(data->entries);
    free(data->name_utf8);
    pthread_mutex_destroy(&data->lock);
}

static struct d12__private_entry *find(d12_object_data *data, const GUID *guid)
{
    for (size_t i = 0; i < data->count; i++) {
        if (guid_equal(&data->entries[i].guid, guid))
            return &data->entries[i];
    }
    return NULL;
}

bool d12__object_dying_has_private_data(const d12_object_data *data)
{
    return data->count != 0;
}

HRESULT d12__object_get_private_data(d12_object_data *data, const GUID *guid, UINT *size, void *out)
{
    if (guid == NULL || size == NULL)
        return E_INVALIDARG;
    pthread_mutex_lock(&data->lock);
    struct d12__private_entry *entry = find(data, guid);
    HRESULT hr = S_OK;
    if (entry == NULL) {
        *size = 0;
        hr = DXGI_ERROR_NOT_FOUND;
    } else if (out == NULL) {
        *size = entry->size;
    } else if (*size < entry->size) {
        *size = entry->size;
        hr = DXGI_ERROR_MORE_DATA;
    } else {
        if (entry->is_interface) {
            if (entry->object != NULL)
                entry->object->lpVtbl->AddRef(entry->object); /* a leaf call: the stored object is not ours */
            memcpy(out, &entry->object, sizeof(entry->object));
        } else {
            memcpy(out, entry->data, entry->size);
        }
        *size = entry->size;
    }
    pthread_mutex_unlock(&data->lock);
    return hr;
}

static void remove_entry(d12_object_data *data, struct d12__private_entry *entry)
{
    entry_clear(entry);
    *entry = data->entries[--data->count];
}

/* Store `entry` (taking ownership of its data/object) in place of any entry with its GUID. */
static HRESULT store(d12_object_data *data, struct d12__private_entry *entry)
{
    struct d12__private_entry *old = find(data, &entry->guid);
    if (old != NULL) {
        entry_clear(old);
        *old = *entry;
        return S_OK;
    }
    struct d12__private_entry *grown = realloc(data->entries, (data->count + 1) * sizeof(*grown));
    if (grown == NULL)
        return E_OUTOFMEMORY;
    data->entries = grown;
    data->entries[data->count++] = *entry;
    return S_OK;
}

/* The name GUIDs also set the name that messages and identity strings use. */
static void update_name(d12_object_data *data, const GUID *guid, UINT size, const void *in)
{
    char *name = NULL;
    if (guid_equal(guid, &WKPDID_D3DDebugObjectNameW)) {
        if (in != NULL)
            name = d12__utf32_to_utf8(in, size / sizeof(WCHAR));
    } else if (guid_equal(guid, &WKPDID_D3DDebugObjectName)) {
        if (in != NULL && (name = malloc((size_t)size + 1)) != NULL) {
            memcpy(name, in, size);
            name[size] = '\0';
        }
    } else {
        return;
    }
    free(data->name_utf8);
    data->name_utf8 = name;
}

HRESULT d12__object_set_private_data(d12_object_data *data, const GUID *guid, UINT size, const void *in)
{
    if (guid == NULL)
        return E_INVALIDARG;
    HRESULT hr = S_OK;
    pthread_mutex_lock(&data->lock);
    if (in == NULL || size == 0) {
        struct d12__private_entry *old = find(data, guid);
        if (old != NULL)
            remove_entry(data, old);
        else
            hr = S_FALSE; /* nothing to delete */
        update_name(data, guid, 0, NULL);
    } else {
        struct d12__private_entry entry = {*guid, false, NULL, malloc(size), size};
        if (entry.data == NULL) {
            hr = E_OUTOFMEMORY;
        } else {
            memcpy(entry.data, in, size);
            if (FAILED(hr = store(data, &entry)))
                free(entry.data);
            else
                update_name(data, guid, size, in);
        }
    }
    pthread_mutex_unlock(&data->lock);
    return hr;
}

HRESULT d12__object_set_private_data_interface(d12_object_data *data, const GUID *guid, const IUnknown *object)
{
    if (guid == NULL)
        return E_INVALIDARG;
    IUnknown *stored = (IUnknown *)object; /* NULL: a NULL entry, not a deletion */
    if (stored != NULL)
        stored->lpVtbl->AddRef(stored);
    struct d12__private_entry entry = {*guid, true, stored, NULL, sizeof(stored)};
    pthread_mutex_lock(&data->lock);
    HRESULT hr = store(data, &entry);
    pthread_mutex_unlock(&data->lock);
    if (FAILED(hr) && stored != NULL)
        stored->lpVtbl->Release(stored);
    return hr;
}

HRESULT d12__object_set_name(d12_object_data *data, LPCWSTR name)
{
    if (name == NULL)
        return E_INVALIDARG;
    size_t length = wcslen(name);
    if (length >= UINT32_MAX / sizeof(WCHAR))
        return E_INVALIDARG;
    /* D3D12's SetName is SetPrivateData(WKPDID_D3DDebugObjectNameW) of the string with its terminator. */
    return d12__object_set_private_data(data, &WKPDID_D3DDebugObjectNameW, (UINT)((length + 1) * sizeof(WCHAR)), name);
}

bool d12__object_name(d12_object_data *data, char *out, size_t size)
{
    pthread_mutex_lock(&data->lock);
    bool named = data->name_utf8 != NULL;
    if (size > 0)
        snprintf(out, size, "%s", named ? data->name_utf8 : "");
    pthread_mutex_unlock(&data->lock);
    return named;
}

char *d12__object_name_dup(d12_object_data *data, bool *out_of_memory)
{
    pthread_mutex_lock(&data->lock);
    size_t size = data->name_utf8 ? strlen(data->name_utf8) + 1 : 0;
    char *name = size ? malloc(size) : NULL;
    if (name)
        memcpy(name, data->name_utf8, size);
    *out_of_memory = size && !name;
    pthread_mutex_unlock(&data->lock);
    return name;
}

char *d12__utf32_to_utf8(const WCHAR *text, size_t length)
{
    char *out = malloc(length * 4 + 1);
    if (out == NULL)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < length && text[i] != 0; i++)
        used += d12__utf8_put(out + used, (uint32_t)text[i]);
    out[used] = '\0';
    return out;
}
