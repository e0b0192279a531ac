/* The live-object table (objtable.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockrank.h"
#include "objtable.h"

/* Fibonacci hashing of the handle value and type: handles are allocation addresses, whose low bits are alike. */
static size_t bucket_of(const d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type)
{
    uint64_t key = (uint64_t)(uintptr_t)handle ^ ((uint64_t)(uint32_t)type << 48);
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (table->bucket_count - 1);
}

void d12__objtable_init(d12_objtable *table)
{
    memset(table, 0, sizeof *table);
    pthread_mutex_init(&table->lock, NULL);
    table->buckets = table->initial;
    table->bucket_count = D12_OBJTABLE_INITIAL_BUCKETS;
}

void d12__objtable_destroy(d12_objtable *table)
{
    if (table->buckets != table->initial)
        free(table->buckets);
    pthread_mutex_destroy(&table->lock);
}

/* Double the buckets when chains average two entries; on allocation failure keep the old ones. Called with
 * the lock held. */
static void grow(d12_objtable *table)
{
    if (table->count < table->bucket_count * 2)
        return;
    size_t old_count = table->bucket_count;
    d12_objtable_entry **old = table->buckets, **fresh = calloc(old_count * 2, sizeof *fresh);
    if (!fresh)
        return;
    table->buckets = fresh;
    table->bucket_count = old_count * 2;
    for (size_t i = 0; i < old_count; i++) {
        for (d12_objtable_entry *e = old[i], *next; e; e = next) {
            next = e->next;
            size_t b = bucket_of(table, e->handle, e->type);
            e->next = fresh[b];
            fresh[b] = e;
        }
    }
    if (old != table->initial)
        free(old);
}

void d12__objtable_add(d12_objtable *table, d12_objtable_entry *entry)
{
    d12__lock(&table->lock, D12_RANK_OBJTABLE);
    size_t b = bucket_of(table, entry->handle, entry->type);
    entry->next = table->buckets[b];
    table->buckets[b] = entry;
    table->count++;
    grow(table);
    d12__unlock(&table->lock, D12_RANK_OBJTABLE);
}

void d12__objtable_remove(d12_objtable *table, d12_objtable_entry *entry)
{
    d12__lock(&table->lock, D12_RANK_OBJTABLE);
    for (d12_objtable_entry **link = &table->buckets[bucket_of(table, entry->handle, entry->type)]; *link;
         link = &(*link)->next) {
        if (*link == entry) {
            *link = entry->next;
            table->count--;
            break;
        }
    }
    d12__unlock(&table->lock, D12_RANK_OBJTABLE);
}

/* The entry for (handle, type), comparing values only. Called with the lock held. */
static const d12_objtable_entry *find(const d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type)
{
    for (const d12_objtable_entry *e = table->buckets[bucket_of(table, handle, type)]; e; e = e->next) {
        if (e->handle == handle && e->type == type)
            return e;
    }
    return NULL;
}

/* "0x000001D4A0E50A40:'MyVertexBuffer'" or "0x000001D4A0E50A40:'Unnamed ID3D12Resource Object'" (the spec's
 * examples), malloc'ed. */
char *d12__format_identity(const void *api_object, const char *interface_name, const char *name)
{
    unsigned long long address = (unsigned long long)(uintptr_t)api_object;
    const char *pattern = name ? "0x%016llX:'%s'" : "0x%016llX:'Unnamed %s Object'";
    const char *text = name ? name : interface_name;
    int length = snprintf(NULL, 0, pattern, address, text);
    char *out = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (out)
        snprintf(out, (size_t)length + 1, pattern, address, text);
    return out;
}

HRESULT d12__objtable_identity(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type, char **out)
{
    *out = NULL;
    d12__lock(&table->lock, D12_RANK_OBJTABLE);
    const d12_objtable_entry *entry = find(table, handle, type);
    const void *api_object = entry ? entry->api_object : NULL;
    const char *interface_name = entry ? entry->interface_name : NULL;
    bool out_of_memory = false;
    /* Copied under the table lock: the object cannot be destroyed before it is removed from the table. */
    char *name = entry ? d12__object_name_dup(entry->data, &out_of_memory) : NULL;
    d12__unlock(&table->lock, D12_RANK_OBJTABLE);
    if (!entry)
        return E_INVALIDARG;
    if (!out_of_memory)
        *out = d12__format_identity(api_object, interface_name, name);
    free(name);
    return *out ? S_OK : E_OUTOFMEMORY;
}

void *d12__objtable_object(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type)
{
    d12__lock(&table->lock, D12_RANK_OBJTABLE);
    const d12_objtable_entry *entry = find(table, handle, type);
    void *object = entry ? entry->object : NULL;
    d12__unlock(&table->lock, D12_RANK_OBJTABLE);
    return object;
}

bool d12__objtable_contains(d12_objtable *table, const void *handle, D3D12DDI_HANDLETYPE type)
{
    d12__lock(&table->lock, D12_RANK_OBJTABLE);
    bool found = find(table, handle, type) != NULL;
    d12__unlock(&table->lock, D12_RANK_OBJTABLE);
    return found;
}
