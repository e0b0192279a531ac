// Structured SRV t0 -> structured UAV u0 (stride 8: a float and a uint): exercises float and integer arithmetic,
// compares, movc, if/else and a counted loop with break, so the SPIR-V of control flow is validated too.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_structured t0, 8
dcl_uav_structured u0, 8
dcl_input vThreadID.x
dcl_temps 4
dcl_thread_group 32, 1, 1
ld_structured r0.xy, vThreadID.x, l(0), t0.xyxx
mad r1.x, r0.x, l(2.0), l(0.5)
mul_sat r1.y, |r0.x|, l(0.25)
div r1.x, r1.x, l(3.0)
sqrt r1.z, r1.y
lt r2.x, r1.x, l(1.0)
movc r1.x, r2.x, r1.x, -r1.z
ftou r1.w, r1.x
mov r3.x, l(0)
mov r3.y, l(0)
loop
  uge r2.y, r3.x, r0.y
  breakc_nz r2.y
  iadd r3.y, r3.y, r3.x
  iadd r3.x, r3.x, l(1)
endloop
ieq r2.z, r3.y, l(0)
if_nz r2.z
  umax r3.y, r1.w, l(7)
else
  imin r3.y, r3.y, l(-1)
  ineg r3.z, r3.y
  imax r3.y, r3.y, r3.z
endif
store_structured u0.xy, vThreadID.x, l(0), r1.xyxx
store_structured u0.x, vThreadID.x, l(4), r3.y
ret
