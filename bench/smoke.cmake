# bench.smoke: `d12bench --quick` and `d12bench --quick --json --no-vulkan` run, exit 0 and print every row below;
# `d12bench --peer --quick` prints the d12rt side of every peer row (and the vkd3d side when it was built);
# `d12bench --check-budget --scaling --quick --json --no-vulkan` (every other row at once) exits 0 or 1 (a budget
# out: the figures of --quick mean nothing) and judges every budget. Only presence is checked, never a figure.
# The Vulkan group (bench_vulkan.c: a worker process on the Vulkan driver, the 1M-vertex kernel row the slowest of
# the run) runs once, in the first run, and its validation-off rows must be there when the driver was built
# (-DVULKAN=1); the other runs pass --no-vulkan, so that four runs stay within the timeout under the sanitizers on
# CI's 2 cores. With -DVALIDATION=1 (ctest bench.smoke_vulkan_validation) only that first run is made, with
# --vulkan-validation, and the per-validation-mode rows are checked instead.
set(rows
  "memcpy OPTIONS5"
  "clamp OPTIONS5 (nothing clamped)"
  "clamp OPTIONS5 (RaytracingTier 13 clamped)"
  "clamp OPTIONS5 (clamped, report callback)"
  "memcpy OPTIONS21"
  "clamp OPTIONS21 (nothing clamped)"
  "memcpy SHADER_CACHE"
  "clamp SHADER_CACHE flags (nothing clamped)"
  "memcpy FEATURE_LEVELS"
  "clamp FEATURE_LEVELS (nothing clamped)"
  "empty indirect call"
  "d12_caps_resolve_version"
  "d12_caps_check_query"
  "report_text stored"
  "report_text denied by storage filter"
  "report_f stored (formatted)"
  "report_f denied by storage filter"
  "report_text stored, callback"
  "report_text stored, 1 thread"
  "report_text stored, 2 threads"
  "report_text stored, 4 threads"
  "report_text stored, 8 threads"
  "DrawInstanced (feature off)"
  "DrawInstanced (feature on: correlation)"
  "ExecuteCommandLists (feature off)"
  "ExecuteCommandLists (feature on, nothing to flush)"
  "ExecuteCommandLists (feature off, 2 lists alternating)"
  "ExecuteCommandLists (feature on, 2 lists alternating)"
  "DrawInstanced (DRED auto-breadcrumbs)"
  "pfnWriteBufferImmediate (reference driver, as DRED calls it)"
  "committed buffer create + release (DRED off)"
  "committed buffer create + release (page-fault tracking)"
  "CheckFeatureSupport OPTIONS5"
  "CheckFeatureSupport1 OPTIONS5 (SDK 620)"
  "CheckFeatureSupport1 OPTIONS5 (SDK 606)"
  "eventfd write + read (floor)"
  "dup + write + close + read (guarded floor)"
  "fence event wait (SetEventOnCompletion + Signal + read)"
  "frame of 10 000 draws, CPU (DRED off)"
  "frame of 10 000 draws, CPU (breadcrumbs)"
  "frame of 10 000 draws, CPU (DRED everything)"
  "frame of 10 000 draws, GPU (DRED off)"
  "frame of 10 000 draws, GPU (breadcrumbs)"
  "frame of 10 000 draws, GPU (DRED everything)")

set(vulkan_rows
  "CopyBufferRegion recorded (Vulkan driver, validation off)"
  "ExecuteCommandLists + fence, 1 copy (Vulkan driver)"
  "DrawInstanced 3 vertices executed (Vulkan driver kernel)"
  "DrawInstanced 1M vertices executed (Vulkan driver kernel)"
  "200 000 disjoint copies recorded, rising (Vulkan driver)"
  "200 000 disjoint copies recorded, falling (Vulkan driver)")
set(first_run --quick)
if(VALIDATION AND NOT VULKAN)
  message(STATUS "the Vulkan driver was not built: no Vulkan rows to check")
  return()
endif()
if(VALIDATION)
  list(APPEND first_run --vulkan-validation)
  list(APPEND vulkan_rows
    "CopyBufferRegion recorded (Vulkan driver, validation core)"
    "CopyBufferRegion recorded (Vulkan driver, validation sync)"
    "CopyBufferRegion recorded (Vulkan driver, validation gpuav)")
endif()
if(VULKAN)
  list(APPEND rows ${vulkan_rows})
endif()
execute_process(COMMAND ${D12BENCH} ${first_run} RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "d12bench ${first_run} exited with ${rc}\n${table}${err}")
endif()
foreach(row IN LISTS rows)
  string(FIND "${table}" "  ${row} " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "d12bench ${first_run} did not print the row '${row}'\n${table}${err}")
  endif()
endforeach()
if(VALIDATION)
  message(STATUS "d12bench ${first_run}: every row, the Vulkan rows of each validation mode among them")
  return()
endif()
if(VULKAN)
  list(REMOVE_ITEM rows ${vulkan_rows})
endif()

execute_process(COMMAND ${D12BENCH} --quick --json --no-vulkan RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "d12bench --quick --json exited with ${rc}\n${json}${err}")
endif()
string(JSON count ERROR_VARIABLE json_error LENGTH "${json}" rows)
if(json_error)
  message(FATAL_ERROR "d12bench --quick --json: not the expected JSON (${json_error})\n${json}")
endif()
set(names "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" rows ${i} name)
  string(JSON ns GET "${json}" rows ${i} ns_per_op)
  list(APPEND names "${name}")
endforeach()
foreach(row IN LISTS rows)
  list(FIND names "${row}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "d12bench --quick --json has no row '${row}'\n${json}")
  endif()
endforeach()
# The memory rows (bench/bench_memory.c): in the table and in --json's "memory" array.
set(memory_rows
  "bytes per live state index (max live 65536)"
  "heap in use after 10^3 unsignalled submissions (feature on)"
  "heap in use after 10^4 unsignalled submissions (feature on)"
  "heap in use after 10^4 unsignalled submissions (feature off)"
  "peak RSS during 10^4 unsignalled submissions (feature on)"
  "peak RSS during 10^4 unsignalled submissions (feature off)")
string(JSON memory_count ERROR_VARIABLE json_error LENGTH "${json}" memory)
if(json_error)
  message(FATAL_ERROR "d12bench --quick --json: no memory array (${json_error})\n${json}")
endif()
set(memory_names "")
math(EXPR memory_last "${memory_count} - 1")
foreach(i RANGE ${memory_last})
  string(JSON name GET "${json}" memory ${i} name)
  string(JSON value GET "${json}" memory ${i} value)
  list(APPEND memory_names "${name}")
endforeach()
foreach(row IN LISTS memory_rows)
  list(FIND memory_names "${row}" found)
  string(FIND "${table}" "  ${row} " at)
  if(found EQUAL -1 OR at EQUAL -1)
    message(FATAL_ERROR "d12bench --quick: no memory row '${row}' in the table and in --json\n${table}\n${json}")
  endif()
endforeach()
message(STATUS "d12bench: ${count} rows in the table and in --json")

set(peer_rows
  "CheckFeatureSupport(OPTIONS5)"
  "CreateCommittedResource 64 KiB buffer + Release"
  "record CopyBufferRegion"
  "ExecuteCommandLists + Signal + spin (small copy)"
  "CPU Fence Signal + GetCompletedValue"
  "fence wait with an event (CPU Signal)"
  "record 10 000 draws (Reset..Close)"
  "record CopyBufferRegion, 4 threads at once"
  "ExecuteCommandLists + Signal + event wait (small copy)"
  "copy 32 MiB DEFAULT->DEFAULT on the GPU (execute + event wait)"
  "CreateComputePipelineState (raw_fill) + Release"
  "execute 1 000 dispatches (raw_fill, root views) + event wait")
execute_process(COMMAND ${D12BENCH} --peer --quick RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "d12bench --peer --quick exited with ${rc}\n${table}${err}")
endif()
foreach(row IN LISTS peer_rows)
  string(FIND "${table}" "  d12rt: ${row} " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "d12bench --peer --quick did not print the row 'd12rt: ${row}'\n${table}")
  endif()
endforeach()

execute_process(COMMAND ${D12BENCH} --check-budget --scaling --quick --json --no-vulkan RESULT_VARIABLE rc OUTPUT_VARIABLE json
                ERROR_VARIABLE err)
if(NOT (rc EQUAL 0 OR rc EQUAL 1))
  message(FATAL_ERROR "d12bench --check-budget --scaling --quick --json exited with ${rc}\n${json}${err}")
endif()
string(JSON budgets ERROR_VARIABLE json_error LENGTH "${json}" budgets)
if(json_error OR NOT budgets EQUAL 10)
  message(FATAL_ERROR "d12bench --check-budget --json: expected 10 budgets (${json_error})\n${json}")
endif()
message(STATUS "d12bench: --peer and --check-budget run; ${budgets} budgets judged")
