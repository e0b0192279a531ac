/* The answers of CheckFeatureSupport / CheckFeatureSupport1 that cannot change, kept per device (features.c).
 *
 * A driver's capabilities are fixed for its device ("the driver's answer cannot change": D3D12 reads the caps
 * once, at device creation). For a feature whose struct has no input field, the whole answer — the caller's
 * bytes after the driver answered, the layouts were converted and the struct was clamped, and the HRESULT — is
 * a function of (feature, caller's layout, clamp version, entry point) alone; the clamp version is keyed by the
 * SDKVersion the caller passed (on one device it resolves to one version). The first query of such a key
 * takes the full path and, when it emitted no message (nothing was clamped), stores the answer; later queries
 * copy it. docs/performance.md ("CheckFeatureSupport") says why this is exact. Lock-free: entries are
 * immutable once published and freed with the device. */
#ifndef D12_FEATURE_CACHE_H
#define D12_FEATURE_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "d12caps.h"

/* Keys kept per feature; a key beyond these always takes the full path. */
#define D12_FEATURE_CACHE_KEYS 4
/* Features cached: D3D12_FEATURE values below this. */
#define D12_FEATURE_CACHE_FEATURES 64

struct d12_feature_answer;

typedef struct d12_feature_cache {
    _Atomic(struct d12_feature_answer *) answers[D12_FEATURE_CACHE_FEATURES][D12_FEATURE_CACHE_KEYS];
} d12_feature_cache;

/* Whether the answer for this key may be cached: a feature with a struct none of whose fields is an input. */
bool d12__feature_cacheable(UINT feature, const d12_caps_layout *layout);

/* The cached answer: copies the output fields into `data` and returns true with *hr set; false when none. */
bool d12__feature_cache_lookup(d12_feature_cache *cache, UINT feature, UINT size, d12_caps_version version,
                               bool legacy, void *data, HRESULT *hr);

/* Store the answer the full path gave (`data`, `hr`) for this key. Does nothing when the key's slots are full
 * or memory is short (the next query takes the full path again). */
void d12__feature_cache_store(d12_feature_cache *cache, UINT feature, const d12_caps_layout *layout, UINT size,
                              d12_caps_version version, bool legacy, const void *data, HRESULT hr);

void d12__feature_cache_destroy(d12_feature_cache *cache);

#endif
