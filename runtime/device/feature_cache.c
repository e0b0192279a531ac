/* CheckFeatureSupport's answers that cannot change (feature_cache.h). */
#include <stdlib.h>
#include <string.h>

#include "feature_cache.h"

/* One byte range of output fields in the caller's layout (adjacent fields merged): only these bytes are
 * written, as the full path writes only the output fields (padding and unknown bytes stay the caller's). */
typedef struct d12_feature_range {
    uint16_t offset, size;
} d12_feature_range;

struct d12_feature_answer {
    uint64_t key; /* answer_key: size, requested version and entry point in one word, compared at once */
    HRESULT hr;
    uint32_t range_count;
    d12_feature_range ranges[8];
    unsigned char bytes[]; /* `size` bytes: the caller's struct as the full path left it */
};

static bool is_input_kind(d12_caps_field_kind kind)
{
    return kind == D12_CAPS_FIELD_INPUT || kind == D12_CAPS_FIELD_INOUT || kind == D12_CAPS_FIELD_SHADER_MODEL ||
           kind == D12_CAPS_FIELD_ROOT_SIGNATURE_VERSION || kind == D12_CAPS_FIELD_FEATURE_LEVEL;
}

bool d12__feature_cacheable(UINT feature, const d12_caps_layout *layout)
{
    if (feature >= D12_FEATURE_CACHE_FEATURES || layout == NULL)
        return false;
    for (uint32_t i = 0; i < layout->field_count; i++)
        if (is_input_kind(layout->fields[i].kind))
            return false;
    return true;
}

/* The requested SDK version stands for the clamp version: on a device (one flavor) the resolved number and line are
 * a function of it, so a CheckFeatureSupport1 caller can look its answer up before resolving (features.c). */
static uint64_t answer_key(UINT size, d12_caps_version version, bool legacy)
{
    return (uint64_t)version.requested << 32 | (uint64_t)(size & 0x3FFFFFFFu) << 2 | (legacy ? 1u : 0u);
}

bool d12__feature_cache_lookup(d12_feature_cache *cache, UINT feature, UINT size, d12_caps_version version,
                               bool legacy, void *data, HRESULT *hr)
{
    if (feature >= D12_FEATURE_CACHE_FEATURES)
        return false;
    if (size > 0x3FFFFFFFu)
        return false; /* never a feature struct's size: the full path refuses it */
    uint64_t key = answer_key(size, version, legacy);
    for (int k = 0; k < D12_FEATURE_CACHE_KEYS; k++) {
        const struct d12_feature_answer *answer =
            atomic_load_explicit(&cache->answers[feature][k], memory_order_acquire);
        if (answer == NULL)
            return false;
        if (answer->key != key)
            continue;
        for (uint32_t r = 0; r < answer->range_count; r++)
            memcpy((char *)data + answer->ranges[r].offset, answer->bytes + answer->ranges[r].offset,
                   answer->ranges[r].size);
        *hr = answer->hr;
        return true;
    }
    return false;
}

/* The caller's output fields as merged byte ranges; false when they need more ranges than an answer holds. */
static bool output_ranges(const d12_caps_layout *layout, struct d12_feature_answer *answer)
{
    answer->range_count = 0;
    for (uint32_t i = 0; i < layout->field_count; i++) {
        const d12_caps_field *field = &layout->fields[i];
        d12_feature_range *last = answer->range_count ? &answer->ranges[answer->range_count - 1] : NULL;
        if (last != NULL && (uint32_t)last->offset + last->size == field->offset) {
            last->size = (uint16_t)(last->size + field->size);
            continue;
        }
        if (answer->range_count == sizeof answer->ranges / sizeof answer->ranges[0] || field->offset > UINT16_MAX ||
            field->size > UINT16_MAX)
            return false;
        answer->ranges[answer->range_count++] = (d12_feature_range){(uint16_t)field->offset, (uint16_t)field->size};
    }
    return true;
}

void d12__feature_cache_store(d12_feature_cache *cache, UINT feature, const d12_caps_layout *layout, UINT size,
                              d12_caps_version version, bool legacy, const void *data, HRESULT hr)
{
    if (!d12__feature_cacheable(feature, layout) || size > 0x3FFFFFFFu)
        return;
    struct d12_feature_answer *answer = malloc(sizeof *answer + size);
    if (answer == NULL)
        return;
    *answer = (struct d12_feature_answer){answer_key(size, version, legacy), hr, 0, {{0, 0}}};
    memcpy(answer->bytes, data, size);
    if (!output_ranges(layout, answer)) {
        free(answer);
        return;
    }
    for (int k = 0; k < D12_FEATURE_CACHE_KEYS; k++) {
        struct d12_feature_answer *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&cache->answers[feature][k], &expected, answer,
                                                    memory_order_acq_rel, memory_order_acquire))
            return;
        if (expected->key == answer->key)
            break; /* another thread stored the same answer first */
    }
    free(answer);
}

void d12__feature_cache_destroy(d12_feature_cache *cache)
{
    for (int f = 0; f < D12_FEATURE_CACHE_FEATURES; f++)
        for (int k = 0; k < D12_FEATURE_CACHE_KEYS; k++)
            free(atomic_load_explicit(&cache->answers[f][k], memory_order_relaxed));
}
