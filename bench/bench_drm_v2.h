/* d12bench's version-2 driver-reported-messages rows (bench_drm_v2.c): what per-message identity and the
 * driver-message filters cost the report path (docs/driver-reported-messages-v2.md). */
#ifndef D12_BENCH_DRM_V2_H
#define D12_BENCH_DRM_V2_H

/* Add the rows (no fork, no device: an InfoQueue of its own per row). */
void bench_drm_v2_setup(void);

#endif
