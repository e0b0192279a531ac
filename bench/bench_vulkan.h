/* d12bench's rows for the Vulkan driver (bench_vulkan.c): libd12rt_vulkan.so on the machine's Vulkan device
 * (lavapipe in CI), in worker processes forked before the benchmark makes a device or a thread, one per
 * validation mode (D12RT_VULKAN_VALIDATION is read when the adapter opens). Rows only with D12BENCH_VULKAN=1, and
 * none when the driver was not built or does not start. */
#ifndef D12_BENCH_VULKAN_H
#define D12_BENCH_VULKAN_H

void bench_vulkan_setup(void);
void bench_vulkan_teardown(void);

#endif
