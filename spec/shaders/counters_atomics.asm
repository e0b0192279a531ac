// UAV counters and atomics: a structured u0 (stride 4) appended through imm_atomic_alloc and read back through
// imm_atomic_consume, and a raw u1 of totals updated by atomic_iadd, atomic_umax, atomic_or and
// imm_atomic_cmp_exch/imm_atomic_iadd.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_structured u0, 4
dcl_uav_raw u1
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
imm_atomic_alloc r0.x, u0
store_structured u0.x, r0.x, l(0), vThreadID.x
atomic_iadd u1, l(0), l(1)
atomic_umax u1, l(4), vThreadID.x
atomic_or u1, l(8), vThreadID.x
imm_atomic_cmp_exch r1.x, u1, l(12), l(0), vThreadID.x
imm_atomic_iadd r1.y, u1, l(16), r1.x
ult r1.z, vThreadID.x, l(32)
if_nz r1.z
  imm_atomic_consume r0.y, u0
endif
ret
