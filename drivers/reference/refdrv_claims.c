/* What d12rt implements, as capability-profile lines (refdrv_profile.h): the claims of the default profile of both
 * drivers. Every field not named here is 0 — NOT_SUPPORTED, FALSE, no flags — because the objects and calls it
 * would promise are refused (issue 27: "a capability is claimed only when its objects and calls work"). A line
 * lands here in the same change that makes its objects work, with the reason; docs/claims.md lists the gap between
 * these claims and what feature levels 11_0 and 12_0 require. The built-in `newest-tiers` profile is the model
 * instead (every tier at its newest), for demonstrating CheckFeatureSupport1's clamping. */
#include <stddef.h>

#include "refdrv_profile.h"

const char *const d12__refdrv_implemented_claims[] = {
    /* The floors D3D12 has no "not supported" value for: tier 1 of binding and heaps is what every D3D12 device
     * reports, and nothing above tier 1 is claimed (binding tier 1's per-stage limits: docs/claims.md says which
     * Vulkan devices fall short of them).
     * Heap tier 1 is what CreateHeap implements: one category per heap (docs/heaps.md; tier 2's
     * ALLOW_ALL_BUFFERS_AND_TEXTURES would promise textures, which cannot be placed). */
    "D3D12_FEATURE_D3D12_OPTIONS.ResourceBindingTier = D3D12_RESOURCE_BINDING_TIER_1",
    "D3D12_FEATURE_D3D12_OPTIONS.ResourceHeapTier = D3D12_RESOURCE_HEAP_TIER_1",
    "D3D12_FEATURE_D3D12_OPTIONS21.ExecuteIndirectTier = D3D12_EXECUTE_INDIRECT_TIER_1_0",
    /* Shader model 5.1 is D3D12's floor: no DXIL is compiled, so nothing of shader model 6 is claimed. */
    "D3D12_FEATURE_SHADER_MODEL.HighestShaderModel = D3D_SHADER_MODEL_5_1",
    /* CreateRootSignature takes versions 1.0 and 1.1 on both drivers (docs/root-signatures.md); DirectX-Headers
     * 1.606 has no 1.2. */
    "D3D12_FEATURE_ROOT_SIGNATURE.HighestVersion = D3D_ROOT_SIGNATURE_VERSION_1_1",
    /* The seed's sample program (driver-reported-messages.txt) creates its device at 12_0; nothing above 12_0
     * until its required features exist (docs/claims.md: what 11_0 and 12_0 require that d12rt lacks). */
    "D3D12_FEATURE_FEATURE_LEVELS.MaxSupportedFeatureLevel = D3D_FEATURE_LEVEL_12_0",
    /* Buffers live in one address space the driver's own page table maps (drivers/common/drvcommon_va.c): a
     * resource may span 40 bits, the process 47, as D3D12's minimums for 64-bit processes. */
    "D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT.MaxGPUVirtualAddressBitsPerResource = 40",
    "D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT.MaxGPUVirtualAddressBitsPerProcess = 47",
    "D3D12_FEATURE_D3D12_OPTIONS.MaxGPUVirtualAddressBitsPerResource = 40",
    /* The reference driver is software: its "GPU" memory is the process's memory (as WARP reports); its page
     * table is its own (IsolatedMMU). The Vulkan driver answers ARCHITECTURE from its VkPhysicalDevice. */
    "D3D12_FEATURE_ARCHITECTURE.UMA = TRUE",
    "D3D12_FEATURE_ARCHITECTURE.CacheCoherentUMA = TRUE",
    "D3D12_FEATURE_ARCHITECTURE1.UMA = TRUE",
    "D3D12_FEATURE_ARCHITECTURE1.CacheCoherentUMA = TRUE",
    "D3D12_FEATURE_ARCHITECTURE1.IsolatedMMU = TRUE",
    /* Barriers on compute lists take every state (runtime/gpu/list.c restricts none). */
    "D3D12_FEATURE_D3D12_OPTIONS1.ExpandedComputeResourceStates = TRUE",
    /* D3D12's limits for the binding tier claimed (heaps of that size when heaps come) and for Dispatch. */
    "D3D12_FEATURE_D3D12_OPTIONS19.MaxSamplerDescriptorHeapSize = 2048",
    "D3D12_FEATURE_D3D12_OPTIONS19.MaxSamplerDescriptorHeapSizeWithStaticSamplers = 2048",
    "D3D12_FEATURE_D3D12_OPTIONS19.MaxViewDescriptorHeapSize = 1000000",
    "D3D12_FEATURE_D3D12_OPTIONS22.Max1DDispatchSize = 65535",
    "D3D12_FEATURE_HARDWARE_SCHEDULING_QUEUE_GROUPINGS.ComputeQueuesPer3DQueue = 1",
    NULL,
};
