/* ID3DBlob (ID3D10Blob): an immutable buffer with a reference count; what the serializers return. */
#include "rootsig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ID3D10Blob *d12__blob_create(const void *data, size_t size)
{
    struct d12_blob *blob = malloc(sizeof *blob + (size ? size : 1));
    if (!blob)
        return NULL;
    d12__blob_com_init(&blob->com);
    atomic_init(&blob->refcount, 1);
    blob->size = size;
    if (size)
        memcpy(blob->data, data, size);
    return &blob->com.blob;
}

ID3D10Blob *d12__blob_create_text(const char *text)
{
    return d12__blob_create(text, strlen(text) + 1);
}

ULONG d12_blob_AddRef(struct d12_blob *self)
{
    return (ULONG)atomic_fetch_add(&self->refcount, 1) + 1;
}

ULONG d12_blob_Release(struct d12_blob *self)
{
    ULONG left = (ULONG)atomic_fetch_sub(&self->refcount, 1) - 1;
    if (left == 0)
        free(self);
    return left;
}

void d12_blob_not_implemented(struct d12_blob *self, const char *interface_name, const char *method)
{
    (void)self;
    fprintf(stderr, "d12rt: %s::%s is not implemented\n", interface_name, method);
}

LPVOID d12_blob_GetBufferPointer(struct d12_blob *self)
{
    return self->data;
}

SIZE_T d12_blob_GetBufferSize(struct d12_blob *self)
{
    return self->size;
}
