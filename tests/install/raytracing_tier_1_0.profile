# Reference-driver profile for ctest install.cxx_client: raytracing below the sample's D3D12_RAYTRACING_TIER_1_1.
D3D12_FEATURE_D3D12_OPTIONS5.RaytracingTier = D3D12_RAYTRACING_TIER_1_0
