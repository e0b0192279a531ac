# Install and packaging of libd12rt (included from the top-level CMakeLists.txt after runtime/).
#
#   cmake --install build --prefix PREFIX
#
# installs, all relocatable (nothing below names PREFIX; move the tree and it still works):
#   PREFIX/lib/libd12rt.so.0.1.0, libd12rt.so.0, libd12rt.so     the runtime and its soname links
#   PREFIX/include/d12rt/d3d12_ext.h, d3d12ddi.h                  the public headers (generated/include/d12rt)
#   PREFIX/bin/d12conform                                         the conformance suite (installed by tools/)
#   PREFIX/lib/pkgconfig/d12rt.pc                                 every path derived from ${pcfiledir}
#   PREFIX/lib/cmake/d12rt/d12rtConfig.cmake, d12rtConfigVersion.cmake, d12rtTargets*.cmake
#                                                                 find_package(d12rt) -> target d12rt::d12rt
#   PREFIX/bin/d12dred                                            the DRED report viewer (installed by tools/)
#   PREFIX/bin/d12cfg                                             per-application registry settings (tools/)
#   PREFIX/bin/d12caps                                            clamp tables per SDK version (tools/)
#   PREFIX/share/man/man1/d12cfg.1, d12caps.1, d12dred.1, d12conform.1
#                                                                 their manual pages, made from tools/help/*.txt
#                                                                 like their --help (cmake/ToolHelp.cmake)
# The four programs of DESIGN.md's public contract: d12cfg, d12caps, d12dred, d12conform. Those linking
# libd12rt.so (d12conform) carry INSTALL_RPATH $ORIGIN/../lib; the others link static libraries only.
# lib/ is CMAKE_INSTALL_LIBDIR (GNUInstallDirs: `lib` unless the configured prefix is /usr on a multiarch system),
# include/ is CMAKE_INSTALL_INCLUDEDIR; both must be relative for the tree to be relocatable.
#
# DirectX-Headers is not installed by us: d12rt.pc names it in `Requires:` (so its -I flags and -lDirectX-Guids,
# which defines the standard IIDs, come with ours) and d12rtConfig.cmake finds it through pkg-config. The IIDs of
# d3d12_ext.h (IID_ID3D12Device17, IID_ID3D12Debug7) are defined in libd12rt itself.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(dir IN ITEMS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_MANDIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "${dir} (${${dir}}) must be relative to the install prefix: d12rt's install is relocatable")
  endif()
endforeach()

set(D12RT_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/d12rt)
set(D12RT_PKGCONFIG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS d12rt EXPORT d12rtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/generated/include/d12rt/d3d12_ext.h
              ${PROJECT_SOURCE_DIR}/generated/include/d12rt/d3d12ddi.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/d12rt)

# ---- pkg-config: prefix is ${pcfiledir} plus the way back up from the .pc file's directory.
file(RELATIVE_PATH D12RT_PC_TO_PREFIX "/prefix/${D12RT_PKGCONFIG_INSTALL_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" D12RT_PC_TO_PREFIX "${D12RT_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/d12rt.pc.in ${PROJECT_BINARY_DIR}/install/d12rt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/d12rt.pc DESTINATION ${D12RT_PKGCONFIG_INSTALL_DIR})

# ---- CMake package: the exported target (paths relative to the installed file, CMake's own mechanism), a
# config that finds DirectX-Headers through pkg-config first, and a version file.
install(EXPORT d12rtTargets NAMESPACE d12rt:: DESTINATION ${D12RT_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/d12rtConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/install/d12rtConfig.cmake
                              INSTALL_DESTINATION ${D12RT_CMAKE_INSTALL_DIR}
                              NO_SET_AND_CHECK_MACRO)
# SONAME is libd12rt.so.0: the same major version is the same ABI.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/d12rtConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/d12rtConfig.cmake ${PROJECT_BINARY_DIR}/install/d12rtConfigVersion.cmake
        DESTINATION ${D12RT_CMAKE_INSTALL_DIR})
