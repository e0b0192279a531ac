// Fills a raw UAV: word i = i * multiplier + cb0[0].y, for every thread of a 64-wide group. The smallest compute
// shader of the tests (root CBV b0 and root UAV u0, embedded as RTS0 for CreateRootSignature from a shader).
.root_signature 1.0
.root_cbv b0
.root_uav u0
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer cb0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
imad r0.x, vThreadID.x, cb0[0].x, cb0[0].y
ishl r1.x, vThreadID.x, l(2)
store_raw u0.x, r1.x, r0.x
ret
