/* d12bench's rows for the Vulkan driver (bench_vulkan.c): libd12rt_vulkan.so on the machine's Vulkan device
 * (lavapipe in CI), in worker processes forked before the benchmark makes a device or a thread, one per
 * validation mode (D12RT_VULKAN_VALIDATION is read when the adapter opens). The validation-off rows are in every
 * run (but --peer, --row and --no-vulkan); the core/sync/gpuav rows with --vulkan-validation (or D12BENCH_VULKAN=1).
 * None, with a line on stderr saying why, when the driver was not built or opens no device. */
#include <stdbool.h>
#ifndef D12_BENCH_VULKAN_H
#define D12_BENCH_VULKAN_H

void bench_vulkan_setup(bool validation_modes);
void bench_vulkan_teardown(void);

#endif
