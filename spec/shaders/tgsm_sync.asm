// Thread-group shared memory and barriers: each thread writes its flattened index into g0, waits (sync_g_t), reads
// its neighbour's word and stores it to raw UAV u0 after a UAV barrier (sync_uglobal); also a structured g1.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw_glc u0
dcl_tgsm_raw g0, 256
dcl_tgsm_structured g1, 4, 64
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadGroupID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadIDInGroupFlattened, l(2)
store_raw g0.x, r0.x, vThreadIDInGroupFlattened
store_structured g1.x, vThreadIDInGroupFlattened, l(0), vThreadGroupID.x
sync_g_t
iadd r0.y, vThreadIDInGroupFlattened, l(1)
and r0.y, r0.y, l(63)
ishl r0.y, r0.y, l(2)
ld_raw r1.x, r0.y, g0.xxxx
ld_structured r1.y, vThreadIDInGroupFlattened, l(0), g1.xxxx
iadd r1.x, r1.x, r1.y
store_raw u0.x, r0.x, r1.x
sync_uglobal
ret
