// Typed buffer SRV t0 (uint) -> typed buffer UAV u0 (uint) through the bit operations (and, or, xor, not, shifts,
// bfi, ubfe, countbits, firstbit, bfrev), then a typed read back of u0 (ld_uav_typed).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_buffer (uint,uint,uint,uint) t0
dcl_uav_typed_buffer (uint,uint,uint,uint) u0
dcl_input vThreadID.x
dcl_temps 3
dcl_thread_group 16, 1, 1
ld r0.xyzw, vThreadID.xxxx, t0.xyzw
and r1.x, r0.x, l(0xff00ff00)
or r1.y, r0.y, l(0x0f)
xor r1.z, r0.z, r0.x
not r1.w, r0.w
ushr r1.x, r1.x, l(8)
ishr r1.y, r1.y, l(1)
bfi r1.z, l(4), l(8), r1.z, r0.y
ubfe r1.w, l(3), l(2), r1.w
countbits r2.x, r0.x
firstbit_lo r2.y, r0.y
bfrev r2.z, r0.z
iadd r1.x, r1.x, r2.x
iadd r1.y, r1.y, r2.y
xor r1.z, r1.z, r2.z
store_uav_typed u0.xyzw, vThreadID.xxxx, r1.xyzw
ld_uav_typed r2.xyzw, vThreadID.xxxx, u0.xyzw
ret
