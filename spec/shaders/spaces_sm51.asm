// Shader model 5.1 bindings with register spaces and ranges: CB0 = b3 in space 1, T0 = structured t2 in space 2,
// U0 = raw u1 in space 3, U1 = a range u4..u7 in space 0 (the range is what vkd3d-shader 1.2 cannot compile
// correctly: docs/shaders.md; the DXBC reader reports it). Its RTS0 is a 1.1 table of the same registers.
.root_signature 1.1
.root_table: cbv b3 space=1 flags=0x8; srv t2 space=2; uav u1 space=3; uav u4 count=4
cs_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[3:3][2], immediateIndexed, space=1
dcl_resource_structured T0[2:2], 4, space=2
dcl_uav_raw U0[1:1], space=3
dcl_uav_raw U1[4:7], space=0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 8, 8, 1
ld_structured r0.x, vThreadID.x, l(0), T0[2].xxxx
iadd r0.x, r0.x, CB0[3][1].x
ishl r1.x, vThreadID.x, l(2)
store_raw U0[1].x, r1.x, r0.x
store_raw U1[5].x, r1.x, r0.x
ret
