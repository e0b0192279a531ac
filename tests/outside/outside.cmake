# d12rt_outside_program(NAME SOURCE CASES...): an outside program (tests/outside/outside.h) and its tests:
#   <name>.ref.<case>      on the reference driver
#   <name>.vulkan.<case>   on the Vulkan driver (label vulkan), where it is built
#   <name>.vkd3d.<case>    the same source built against Debian's vkd3d 1.2 (libvkd3d-utils on lavapipe, label vkd3d),
#                          through the ms_abi copy of the WSL stubs that bench/peer made (bench is configured first)
# The executable is <name>_outside (and <name>_outside_vkd3d).
find_package(Vulkan QUIET)
pkg_check_modules(D12_OUTSIDE_VKD3D QUIET libvkd3d-utils)
set(D12_OUTSIDE_ENV "D12RT_REFDRV_PROFILE=;D12RT_FLAVOR=;D12RT_REFDRV_SET_ERROR=;D12RT_REFDRV_DRM=;D12RT_BREAK=none;D12RT_HKCU=/nonexistent/d12rt-test/user.reg;D12RT_HKLM=/nonexistent/d12rt-test/system.reg")

function(d12rt_outside_program name source)
  set(cases ${ARGN})
  add_executable(${name}_outside ${source})
  target_link_libraries(${name}_outside PRIVATE d12rt PkgConfig::DXHEADERS)
  foreach(case IN LISTS cases)
    add_test(NAME ${name}.ref.${case} COMMAND ${name}_outside ${case})
    set_tests_properties(${name}.ref.${case} PROPERTIES TIMEOUT 60 ENVIRONMENT "D12RT_DRIVER=;${D12_OUTSIDE_ENV}")
  endforeach()
  if(TARGET d12rt_vulkan AND TARGET Vulkan::Vulkan)
    add_dependencies(${name}_outside d12rt_vulkan)
    foreach(case IN LISTS cases)
      add_test(NAME ${name}.vulkan.${case} COMMAND ${name}_outside ${case})
      set_tests_properties(${name}.vulkan.${case} PROPERTIES TIMEOUT 120 LABELS vulkan ENVIRONMENT
        "D12RT_DRIVER=$<TARGET_FILE:d12rt_vulkan>;XDG_RUNTIME_DIR=/tmp;VK_DRIVER_FILES=${D12RT_TEST_VK_DRIVER_FILES};D12RT_VULKAN_VALIDATION=;D12RT_VULKAN_DEVICE=;LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/vulkan/lsan.supp;${D12_OUTSIDE_ENV}")
    endforeach()
  endif()
  if(TARGET d12peer_vkd3d AND D12_OUTSIDE_VKD3D_FOUND)
    add_executable(${name}_outside_vkd3d ${source})
    target_compile_definitions(${name}_outside_vkd3d PRIVATE PEER_VKD3D)
    target_include_directories(${name}_outside_vkd3d BEFORE PRIVATE ${PROJECT_BINARY_DIR}/bench/peer/msabi_stubs)
    target_link_libraries(${name}_outside_vkd3d PRIVATE PkgConfig::DXHEADERS ${D12_OUTSIDE_VKD3D_LINK_LIBRARIES})
    foreach(case IN LISTS cases)
      add_test(NAME ${name}.vkd3d.${case} COMMAND ${name}_outside_vkd3d ${case})
      set_tests_properties(${name}.vkd3d.${case} PROPERTIES TIMEOUT 60 LABELS vkd3d ENVIRONMENT
                           "XDG_RUNTIME_DIR=/tmp;VK_DRIVER_FILES=${D12RT_TEST_VK_DRIVER_FILES}")
    endforeach()
  endif()
endfunction()
