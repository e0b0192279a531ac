// ctest runtime_cxx.feature_support.<case>: the installed DirectX-Headers' d3dx12.h, CD3DX12FeatureSupport::Init,
// on a d12rt device (the build tree's libd12rt.so), and every value it exposes compared with a direct
// ID3D12Device::CheckFeatureSupport call on the same feature with the same struct. Where Init falls back to
// defaults after a failed query, the comparison does too; but every feature Init queries is one d12rt knows,
// so each direct query must also succeed.
//
// The probes are redone here independently: HighestShaderModel (from D3D_HIGHEST_SHADER_MODEL down, the first
// answer that is not E_INVALIDARG), HighestRootSignatureVersion (from 1.1 down, likewise), MaxSupportedFeatureLevel
// (every level d3dcommon.h knows, at once).
//
// Cases (argv[1]) say what the probes must find, not only that the two agree:
//   default  the reference driver's default profile: SM 6.8 (the highest d3dx12.h asks for; the driver has at least
//            that), root signature 1.1, feature level 12.2
//   lowered  D12RT_REFDRV_PROFILE=profiles/lowered.txt: SM 6.5, root signature 1.0, feature level 11.1, so every
//            probe answers below what it asked
#include <wsl/winadapter.h>
#include <wsl/wrladapter.h>
#include <directx/d3d12.h>
#include <directx/d3dx12.h>
#include <d12rt/d3d12_ext.h>
#include <dxguids/dxguids.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "harness.h"

namespace {

template <typename T> HRESULT query(ID3D12Device *device, D3D12_FEATURE feature, T *data)
{
    return device->CheckFeatureSupport(feature, data, sizeof(*data));
}

// A direct query of a feature Init reads once: it must succeed; if it fails, Init's fallback is all zeros
// (except where `fallback` says otherwise), so the comparison uses that.
template <typename T> T direct(ID3D12Device *device, D3D12_FEATURE feature, const char *name, T fallback = T{})
{
    T data{};
    HRESULT hr = query(device, feature, &data);
    if (!CHECK(SUCCEEDED(hr)))
        std::fprintf(stderr, "    CheckFeatureSupport(%s) = 0x%08x\n", name, static_cast<unsigned>(hr));
    return SUCCEEDED(hr) ? data : fallback;
}
#define DIRECT(type, feature) direct<type>(device, feature, #feature)

// CD3DX12FeatureSupport::QueryHighestShaderModel's rule, written out: highest first, stop at the first answer that
// is not E_INVALIDARG.
D3D_SHADER_MODEL probe_shader_model(ID3D12Device *device, HRESULT *result)
{
    std::vector<int> models; // D3D_HIGHEST_SHADER_MODEL (6.8 in DirectX-Headers 1.606) ... 6.0, then 5.1
    for (int model = D3D_HIGHEST_SHADER_MODEL; model >= D3D_SHADER_MODEL_6_0; model--)
        models.push_back(model);
    models.push_back(D3D_SHADER_MODEL_5_1);
    for (int model : models) {
        D3D12_FEATURE_DATA_SHADER_MODEL data = {static_cast<D3D_SHADER_MODEL>(model)};
        *result = query(device, D3D12_FEATURE_SHADER_MODEL, &data);
        if (*result != E_INVALIDARG)
            return SUCCEEDED(*result) ? data.HighestShaderModel : static_cast<D3D_SHADER_MODEL>(0);
    }
    *result = S_OK;
    return static_cast<D3D_SHADER_MODEL>(0);
}

D3D_ROOT_SIGNATURE_VERSION probe_root_signature(ID3D12Device *device, HRESULT *result)
{
    for (D3D_ROOT_SIGNATURE_VERSION version : {D3D_ROOT_SIGNATURE_VERSION_1_1, D3D_ROOT_SIGNATURE_VERSION_1_0}) {
        D3D12_FEATURE_DATA_ROOT_SIGNATURE data = {version};
        *result = query(device, D3D12_FEATURE_ROOT_SIGNATURE, &data);
        if (*result != E_INVALIDARG)
            return SUCCEEDED(*result) ? data.HighestVersion : static_cast<D3D_ROOT_SIGNATURE_VERSION>(0);
    }
    *result = S_OK;
    return static_cast<D3D_ROOT_SIGNATURE_VERSION>(0);
}

D3D_FEATURE_LEVEL probe_feature_level(ID3D12Device *device, HRESULT *result)
{
    static const D3D_FEATURE_LEVEL levels[] = {
        D3D_FEATURE_LEVEL_12_2, D3D_FEATURE_LEVEL_12_1, D3D_FEATURE_LEVEL_12_0, D3D_FEATURE_LEVEL_11_1,
        D3D_FEATURE_LEVEL_11_0, D3D_FEATURE_LEVEL_10_1, D3D_FEATURE_LEVEL_10_0, D3D_FEATURE_LEVEL_9_3,
        D3D_FEATURE_LEVEL_9_2,  D3D_FEATURE_LEVEL_9_1,  D3D_FEATURE_LEVEL_1_0_CORE};
    D3D12_FEATURE_DATA_FEATURE_LEVELS data = {};
    data.NumFeatureLevels = sizeof(levels) / sizeof(levels[0]);
    data.pFeatureLevelsRequested = levels;
    *result = query(device, D3D12_FEATURE_FEATURE_LEVELS, &data);
    return SUCCEEDED(*result) ? data.MaxSupportedFeatureLevel : static_cast<D3D_FEATURE_LEVEL>(0);
}

void compare_static_features(ID3D12Device *device, const CD3DX12FeatureSupport &fs)
{
    auto o = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS, D3D12_FEATURE_D3D12_OPTIONS);
    CHECK_EQ_INT(fs.DoublePrecisionFloatShaderOps(), o.DoublePrecisionFloatShaderOps);
    CHECK_EQ_INT(fs.OutputMergerLogicOp(), o.OutputMergerLogicOp);
    CHECK_EQ_INT(fs.MinPrecisionSupport(), o.MinPrecisionSupport);
    CHECK_EQ_INT(fs.TiledResourcesTier(), o.TiledResourcesTier);
    CHECK_EQ_INT(fs.ResourceBindingTier(), o.ResourceBindingTier);
    CHECK_EQ_INT(fs.PSSpecifiedStencilRefSupported(), o.PSSpecifiedStencilRefSupported);
    CHECK_EQ_INT(fs.TypedUAVLoadAdditionalFormats(), o.TypedUAVLoadAdditionalFormats);
    CHECK_EQ_INT(fs.ROVsSupported(), o.ROVsSupported);
    CHECK_EQ_INT(fs.ConservativeRasterizationTier(), o.ConservativeRasterizationTier);
    CHECK_EQ_INT(fs.StandardSwizzle64KBSupported(), o.StandardSwizzle64KBSupported);
    CHECK_EQ_INT(fs.CrossAdapterRowMajorTextureSupported(), o.CrossAdapterRowMajorTextureSupported);
    CHECK_EQ_INT(fs.VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation(),
                 o.VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation);
    CHECK_EQ_INT(fs.ResourceHeapTier(), o.ResourceHeapTier);

    // Two values d3dx12.h combines from two features: the same rule over the direct answers.
    auto cross = DIRECT(D3D12_FEATURE_DATA_CROSS_NODE, D3D12_FEATURE_CROSS_NODE);
    CHECK_EQ_INT(fs.CrossNodeSharingTier(), cross.SharingTier > D3D12_CROSS_NODE_SHARING_TIER_NOT_SUPPORTED
                                                ? cross.SharingTier
                                                : o.CrossNodeSharingTier);
    CHECK_EQ_INT(fs.CrossNodeAtomicShaderInstructions(), cross.AtomicShaderInstructions);
    auto va = DIRECT(D3D12_FEATURE_DATA_GPU_VIRTUAL_ADDRESS_SUPPORT, D3D12_FEATURE_GPU_VIRTUAL_ADDRESS_SUPPORT);
    CHECK_EQ_INT(fs.MaxGPUVirtualAddressBitsPerResource(), o.MaxGPUVirtualAddressBitsPerResource > 0
                                                               ? o.MaxGPUVirtualAddressBitsPerResource
                                                               : va.MaxGPUVirtualAddressBitsPerResource);
    CHECK_EQ_INT(fs.MaxGPUVirtualAddressBitsPerProcess(), va.MaxGPUVirtualAddressBitsPerProcess);

    auto o1 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS1, D3D12_FEATURE_D3D12_OPTIONS1);
    CHECK_EQ_INT(fs.WaveOps(), o1.WaveOps);
    CHECK_EQ_INT(fs.WaveLaneCountMin(), o1.WaveLaneCountMin);
    CHECK_EQ_INT(fs.WaveLaneCountMax(), o1.WaveLaneCountMax);
    CHECK_EQ_INT(fs.TotalLaneCount(), o1.TotalLaneCount);
    CHECK_EQ_INT(fs.ExpandedComputeResourceStates(), o1.ExpandedComputeResourceStates);
    CHECK_EQ_INT(fs.Int64ShaderOps(), o1.Int64ShaderOps);

    auto o2 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS2, D3D12_FEATURE_D3D12_OPTIONS2);
    CHECK_EQ_INT(fs.DepthBoundsTestSupported(), o2.DepthBoundsTestSupported);
    CHECK_EQ_INT(fs.ProgrammableSamplePositionsTier(), o2.ProgrammableSamplePositionsTier);

    auto cache = DIRECT(D3D12_FEATURE_DATA_SHADER_CACHE, D3D12_FEATURE_SHADER_CACHE);
    CHECK_EQ_INT(fs.ShaderCacheSupportFlags(), cache.SupportFlags);

    auto o3 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS3, D3D12_FEATURE_D3D12_OPTIONS3);
    CHECK_EQ_INT(fs.CopyQueueTimestampQueriesSupported(), o3.CopyQueueTimestampQueriesSupported);
    CHECK_EQ_INT(fs.CastingFullyTypedFormatSupported(), o3.CastingFullyTypedFormatSupported);
    CHECK_EQ_INT(fs.WriteBufferImmediateSupportFlags(), o3.WriteBufferImmediateSupportFlags);
    CHECK_EQ_INT(fs.ViewInstancingTier(), o3.ViewInstancingTier);
    CHECK_EQ_INT(fs.BarycentricsSupported(), o3.BarycentricsSupported);

    auto heaps = DIRECT(D3D12_FEATURE_DATA_EXISTING_HEAPS, D3D12_FEATURE_EXISTING_HEAPS);
    CHECK_EQ_INT(fs.ExistingHeapsSupported(), heaps.Supported);

    auto o4 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS4, D3D12_FEATURE_D3D12_OPTIONS4);
    CHECK_EQ_INT(fs.MSAA64KBAlignedTextureSupported(), o4.MSAA64KBAlignedTextureSupported);
    CHECK_EQ_INT(fs.SharedResourceCompatibilityTier(), o4.SharedResourceCompatibilityTier);
    CHECK_EQ_INT(fs.Native16BitShaderOpsSupported(), o4.Native16BitShaderOpsSupported);

    auto o5 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS5, D3D12_FEATURE_D3D12_OPTIONS5);
    CHECK_EQ_INT(fs.SRVOnlyTiledResourceTier3(), o5.SRVOnlyTiledResourceTier3);
    CHECK_EQ_INT(fs.RenderPassesTier(), o5.RenderPassesTier);
    CHECK_EQ_INT(fs.RaytracingTier(), o5.RaytracingTier);

    auto displayable = DIRECT(D3D12_FEATURE_DATA_DISPLAYABLE, D3D12_FEATURE_DISPLAYABLE);
    CHECK_EQ_INT(fs.DisplayableTexture(), displayable.DisplayableTexture);

    auto o6 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS6, D3D12_FEATURE_D3D12_OPTIONS6);
    CHECK_EQ_INT(fs.AdditionalShadingRatesSupported(), o6.AdditionalShadingRatesSupported);
    CHECK_EQ_INT(fs.PerPrimitiveShadingRateSupportedWithViewportIndexing(),
                 o6.PerPrimitiveShadingRateSupportedWithViewportIndexing);
    CHECK_EQ_INT(fs.VariableShadingRateTier(), o6.VariableShadingRateTier);
    CHECK_EQ_INT(fs.ShadingRateImageTileSize(), o6.ShadingRateImageTileSize);
    CHECK_EQ_INT(fs.BackgroundProcessingSupported(), o6.BackgroundProcessingSupported);

    auto o7 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS7, D3D12_FEATURE_D3D12_OPTIONS7);
    CHECK_EQ_INT(fs.MeshShaderTier(), o7.MeshShaderTier);
    CHECK_EQ_INT(fs.SamplerFeedbackTier(), o7.SamplerFeedbackTier);

    auto o8 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS8, D3D12_FEATURE_D3D12_OPTIONS8);
    CHECK_EQ_INT(fs.UnalignedBlockTexturesSupported(), o8.UnalignedBlockTexturesSupported);

    auto o9 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS9, D3D12_FEATURE_D3D12_OPTIONS9);
    CHECK_EQ_INT(fs.MeshShaderPipelineStatsSupported(), o9.MeshShaderPipelineStatsSupported);
    CHECK_EQ_INT(fs.MeshShaderSupportsFullRangeRenderTargetArrayIndex(),
                 o9.MeshShaderSupportsFullRangeRenderTargetArrayIndex);
    CHECK_EQ_INT(fs.AtomicInt64OnTypedResourceSupported(), o9.AtomicInt64OnTypedResourceSupported);
    CHECK_EQ_INT(fs.AtomicInt64OnGroupSharedSupported(), o9.AtomicInt64OnGroupSharedSupported);
    CHECK_EQ_INT(fs.DerivativesInMeshAndAmplificationShadersSupported(),
                 o9.DerivativesInMeshAndAmplificationShadersSupported);
    CHECK_EQ_INT(fs.WaveMMATier(), o9.WaveMMATier);

    auto o10 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS10, D3D12_FEATURE_D3D12_OPTIONS10);
    CHECK_EQ_INT(fs.VariableRateShadingSumCombinerSupported(), o10.VariableRateShadingSumCombinerSupported);
    CHECK_EQ_INT(fs.MeshShaderPerPrimitiveShadingRateSupported(), o10.MeshShaderPerPrimitiveShadingRateSupported);

    auto o11 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS11, D3D12_FEATURE_D3D12_OPTIONS11);
    CHECK_EQ_INT(fs.AtomicInt64OnDescriptorHeapResourceSupported(), o11.AtomicInt64OnDescriptorHeapResourceSupported);

    D3D12_FEATURE_DATA_D3D12_OPTIONS12 o12_fallback = {};
    o12_fallback.MSPrimitivesPipelineStatisticIncludesCulledPrimitives = D3D12_TRI_STATE_UNKNOWN;
    auto o12 = direct(device, D3D12_FEATURE_D3D12_OPTIONS12, "D3D12_FEATURE_D3D12_OPTIONS12", o12_fallback);
    CHECK_EQ_INT(fs.MSPrimitivesPipelineStatisticIncludesCulledPrimitives(),
                 o12.MSPrimitivesPipelineStatisticIncludesCulledPrimitives);
    CHECK_EQ_INT(fs.EnhancedBarriersSupported(), o12.EnhancedBarriersSupported);
    CHECK_EQ_INT(fs.RelaxedFormatCastingSupported(), o12.RelaxedFormatCastingSupported);

    auto o13 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS13, D3D12_FEATURE_D3D12_OPTIONS13);
    CHECK_EQ_INT(fs.UnrestrictedBufferTextureCopyPitchSupported(), o13.UnrestrictedBufferTextureCopyPitchSupported);
    CHECK_EQ_INT(fs.UnrestrictedVertexElementAlignmentSupported(), o13.UnrestrictedVertexElementAlignmentSupported);
    CHECK_EQ_INT(fs.InvertedViewportHeightFlipsYSupported(), o13.InvertedViewportHeightFlipsYSupported);
    CHECK_EQ_INT(fs.InvertedViewportDepthFlipsZSupported(), o13.InvertedViewportDepthFlipsZSupported);
    CHECK_EQ_INT(fs.TextureCopyBetweenDimensionsSupported(), o13.TextureCopyBetweenDimensionsSupported);
    CHECK_EQ_INT(fs.AlphaBlendFactorSupported(), o13.AlphaBlendFactorSupported);

    auto o14 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS14, D3D12_FEATURE_D3D12_OPTIONS14);
    CHECK_EQ_INT(fs.AdvancedTextureOpsSupported(), o14.AdvancedTextureOpsSupported);
    CHECK_EQ_INT(fs.WriteableMSAATexturesSupported(), o14.WriteableMSAATexturesSupported);
    CHECK_EQ_INT(fs.IndependentFrontAndBackStencilRefMaskSupported(), o14.IndependentFrontAndBackStencilRefMaskSupported);

    auto o15 = DIRECT(D3D12_FEATURE_DATA_D3D12_OPTIONS15, D3D12_FEATURE_D3D12_OPTIONS15);
    CHECK_EQ_INT(fs.TriangleFanSupported(), o15.TriangleFanSupported);
    CHECK_EQ_INT(fs.DynamicIndexBufferStripCutSupported(), o15.DynamicIndexBufferStripCutSupported);
}

void compare_node_features(ID3D12Device *device, const CD3DX12FeatureSupport &fs, UINT node)
{
    D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_SUPPORT session = {node, D3D12_PROTECTED_RESOURCE_SESSION_SUPPORT_FLAG_NONE};
    CHECK_EQ_INT(query(device, D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_SUPPORT, &session), S_OK);
    CHECK_EQ_INT(fs.ProtectedResourceSessionSupport(node), session.Support);

    D3D12_FEATURE_DATA_ARCHITECTURE1 arch = {};
    arch.NodeIndex = node;
    CHECK_EQ_INT(query(device, D3D12_FEATURE_ARCHITECTURE1, &arch), S_OK);
    CHECK_EQ_INT(fs.TileBasedRenderer(node), arch.TileBasedRenderer);
    CHECK_EQ_INT(fs.UMA(node), arch.UMA);
    CHECK_EQ_INT(fs.CacheCoherentUMA(node), arch.CacheCoherentUMA);
    CHECK_EQ_INT(fs.IsolatedMMU(node), arch.IsolatedMMU);
    // ARCHITECTURE is ARCHITECTURE1 without IsolatedMMU: the same answers.
    D3D12_FEATURE_DATA_ARCHITECTURE arch0 = {};
    arch0.NodeIndex = node;
    CHECK_EQ_INT(query(device, D3D12_FEATURE_ARCHITECTURE, &arch0), S_OK);
    CHECK_EQ_INT(arch0.TileBasedRenderer, arch.TileBasedRenderer);
    CHECK_EQ_INT(arch0.UMA, arch.UMA);
    CHECK_EQ_INT(arch0.CacheCoherentUMA, arch.CacheCoherentUMA);

    D3D12_FEATURE_DATA_SERIALIZATION serialization = {};
    serialization.NodeIndex = node;
    CHECK_EQ_INT(query(device, D3D12_FEATURE_SERIALIZATION, &serialization), S_OK);
    CHECK_EQ_INT(fs.HeapSerializationTier(node), serialization.HeapSerializationTier);

    D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_TYPE_COUNT count = {};
    count.NodeIndex = node;
    CHECK_EQ_INT(query(device, D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_TYPE_COUNT, &count), S_OK);
    CHECK_EQ_INT(fs.ProtectedResourceSessionTypeCount(node), count.Count);

    std::vector<GUID> types(count.Count);
    D3D12_FEATURE_DATA_PROTECTED_RESOURCE_SESSION_TYPES typed = {};
    typed.NodeIndex = node;
    typed.Count = count.Count;
    typed.pTypes = types.data();
    HRESULT hr = query(device, D3D12_FEATURE_PROTECTED_RESOURCE_SESSION_TYPES, &typed);
    if (FAILED(hr))
        types.clear(); // what d3dx12.h keeps after a failure
    std::vector<GUID> seen = fs.ProtectedResourceSessionTypes(node);
    CHECK_EQ_INT(seen.size(), types.size());
    CHECK(seen.size() == types.size() && (types.empty() || std::memcmp(seen.data(), types.data(),
                                                                       types.size() * sizeof(GUID)) == 0));
}

// The getters that query on demand: the same call, the same answer.
void compare_on_demand(ID3D12Device *device, CD3DX12FeatureSupport &fs)
{
    static const DXGI_FORMAT formats[] = {DXGI_FORMAT_R8G8B8A8_UNORM, DXGI_FORMAT_D32_FLOAT, DXGI_FORMAT_BC7_UNORM,
                                          DXGI_FORMAT_NV12, DXGI_FORMAT_R32G32B32A32_FLOAT};
    for (DXGI_FORMAT format : formats) {
        D3D12_FORMAT_SUPPORT1 support1 = D3D12_FORMAT_SUPPORT1_NONE;
        D3D12_FORMAT_SUPPORT2 support2 = D3D12_FORMAT_SUPPORT2_NONE;
        D3D12_FEATURE_DATA_FORMAT_SUPPORT support = {format, D3D12_FORMAT_SUPPORT1_NONE, D3D12_FORMAT_SUPPORT2_NONE};
        HRESULT hr = query(device, D3D12_FEATURE_FORMAT_SUPPORT, &support);
        CHECK_EQ_INT(fs.FormatSupport(format, support1, support2), hr);
        if (SUCCEEDED(hr)) {
            CHECK_EQ_INT(support1, support.Support1);
            CHECK_EQ_INT(support2, support.Support2);
        }

        D3D12_FEATURE_DATA_FORMAT_INFO info = {format, 0};
        UINT8 planes = 0xFF;
        hr = query(device, D3D12_FEATURE_FORMAT_INFO, &info);
        CHECK_EQ_INT(fs.FormatInfo(format, planes), hr);
        CHECK_EQ_INT(planes, SUCCEEDED(hr) ? info.PlaneCount : 0);

        for (UINT samples : {1u, 4u}) {
            D3D12_FEATURE_DATA_MULTISAMPLE_QUALITY_LEVELS levels = {format, samples,
                                                                    D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE, 0};
            UINT count = 0xFFFF;
            hr = query(device, D3D12_FEATURE_MULTISAMPLE_QUALITY_LEVELS, &levels);
            CHECK_EQ_INT(fs.MultisampleQualityLevels(format, samples, D3D12_MULTISAMPLE_QUALITY_LEVELS_FLAG_NONE,
                                                     count),
                         hr);
            CHECK_EQ_INT(count, SUCCEEDED(hr) ? levels.NumQualityLevels : 0);
        }
    }

    static const D3D12_COMMAND_LIST_TYPE types[] = {D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                                                    D3D12_COMMAND_LIST_TYPE_COPY};
    for (D3D12_COMMAND_LIST_TYPE type : types) {
        for (UINT priority : {static_cast<UINT>(D3D12_COMMAND_QUEUE_PRIORITY_NORMAL),
                              static_cast<UINT>(D3D12_COMMAND_QUEUE_PRIORITY_HIGH),
                              static_cast<UINT>(D3D12_COMMAND_QUEUE_PRIORITY_GLOBAL_REALTIME)}) {
            D3D12_FEATURE_DATA_COMMAND_QUEUE_PRIORITY data = {type, priority, FALSE};
            HRESULT hr = query(device, D3D12_FEATURE_COMMAND_QUEUE_PRIORITY, &data);
            CHECK_EQ_INT(fs.CommandQueuePrioritySupported(type, priority), SUCCEEDED(hr) && data.PriorityForTypeIsSupported);
        }
    }

    D3D12_FEATURE_DATA_QUERY_META_COMMAND meta = {};
    D3D12_FEATURE_DATA_QUERY_META_COMMAND meta_direct = {};
    CHECK_EQ_INT(fs.QueryMetaCommand(meta), query(device, D3D12_FEATURE_QUERY_META_COMMAND, &meta_direct));
}

struct expected_probes {
    D3D_SHADER_MODEL shader_model;
    D3D_ROOT_SIGNATURE_VERSION root_signature;
    D3D_FEATURE_LEVEL feature_level;
};

} // namespace

int main(int argc, char **argv)
{
    expected_probes expected;
    if (argc == 2 && std::strcmp(argv[1], "default") == 0) {
        expected = {D3D_SHADER_MODEL_6_8, D3D_ROOT_SIGNATURE_VERSION_1_1, D3D_FEATURE_LEVEL_12_2};
    } else if (argc == 2 && std::strcmp(argv[1], "lowered") == 0) {
        expected = {D3D_SHADER_MODEL_6_5, D3D_ROOT_SIGNATURE_VERSION_1_0, D3D_FEATURE_LEVEL_11_1};
    } else {
        std::fprintf(stderr, "usage: %s default|lowered\n", argv[0]);
        return 2;
    }

    Microsoft::WRL::ComPtr<ID3D12Device> device;
    CHECK_EQ_INT(D3D12CreateDevice(nullptr, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&device)), S_OK);
    if (!CHECK(device != nullptr))
        return d12test_finish();

    CD3DX12FeatureSupport fs;
    HRESULT init = fs.Init(device.Get());
    if (!CHECK(init == S_OK))
        std::fprintf(stderr, "    CD3DX12FeatureSupport::Init = 0x%08x\n", static_cast<unsigned>(init));
    CHECK_EQ_INT(fs.GetStatus(), S_OK);

    compare_static_features(device.Get(), fs);
    UINT nodes = device->GetNodeCount();
    CHECK_EQ_INT(nodes, 1); // the reference adapter
    for (UINT node = 0; node < nodes; node++)
        compare_node_features(device.Get(), fs, node);
    compare_on_demand(device.Get(), fs);

    // The probes: the same answer as d3dx12.h, and the answer the profile implies.
    HRESULT hr;
    D3D_SHADER_MODEL model = probe_shader_model(device.Get(), &hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(fs.HighestShaderModel(), model);
    CHECK_EQ_INT(model, expected.shader_model);
    D3D_ROOT_SIGNATURE_VERSION root = probe_root_signature(device.Get(), &hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(fs.HighestRootSignatureVersion(), root);
    CHECK_EQ_INT(root, expected.root_signature);
    D3D_FEATURE_LEVEL level = probe_feature_level(device.Get(), &hr);
    CHECK_EQ_INT(hr, S_OK);
    CHECK_EQ_INT(fs.MaxSupportedFeatureLevel(), level);
    CHECK_EQ_INT(level, expected.feature_level);

    // What makes the probes terminate where they do: versions the runtime does not know are E_INVALIDARG.
    D3D12_FEATURE_DATA_SHADER_MODEL unknown_model = {static_cast<D3D_SHADER_MODEL>(0x70)};
    CHECK_EQ_INT(query(device.Get(), D3D12_FEATURE_SHADER_MODEL, &unknown_model), E_INVALIDARG);
    D3D12_FEATURE_DATA_ROOT_SIGNATURE unknown_root = {static_cast<D3D_ROOT_SIGNATURE_VERSION>(0x7)};
    CHECK_EQ_INT(query(device.Get(), D3D12_FEATURE_ROOT_SIGNATURE, &unknown_root), E_INVALIDARG);

    std::printf("HighestShaderModel 0x%x, HighestRootSignatureVersion 0x%x, MaxSupportedFeatureLevel 0x%x, "
                "RaytracingTier %d, MeshShaderTier %d\n",
                fs.HighestShaderModel(), fs.HighestRootSignatureVersion(), fs.MaxSupportedFeatureLevel(),
                fs.RaytracingTier(), fs.MeshShaderTier());

    CHECK_EQ_INT(device.Detach()->Release(), 0);
    return d12test_finish();
}
