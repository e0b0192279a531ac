# d12rt_tool_help(TARGET NAME [INSTALL]): the command line of an installed tool (docs/tools.md).
#
# tools/help/NAME.txt is the one source of NAME's `--help` text and of its manual page: at build time
# tools/help/manpage.py makes ${CMAKE_CURRENT_BINARY_DIR}/help/NAME_help.h (the C strings NAME_help and
# NAME_usage, included by the tool) and help/NAME.1 (roff), so neither can drift from the other; ctest
# tools_cli_NAME_man checks the page against what the built tool prints. The target also gets
# D12RT_VERSION="<project version>" (what --version prints) and tools/ on its include path (cli.h). INSTALL
# installs the page as share/man/man1/NAME.1 (CMAKE_INSTALL_MANDIR).
function(d12rt_tool_help target name)
  cmake_parse_arguments(PARSE_ARGV 2 arg "INSTALL" "" "")
  set(source ${PROJECT_SOURCE_DIR}/tools/help/${name}.txt)
  set(script ${PROJECT_SOURCE_DIR}/tools/help/manpage.py)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/help)
  file(MAKE_DIRECTORY ${dir})
  add_custom_command(OUTPUT ${dir}/${name}_help.h
                     COMMAND ${D12RT_GENERATOR_PYTHON} ${script} header ${name} ${source} ${dir}/${name}_help.h
                     DEPENDS ${source} ${script}
                     COMMENT "help text of ${name} (tools/help/${name}.txt)" VERBATIM)
  add_custom_command(OUTPUT ${dir}/${name}.1
                     COMMAND ${D12RT_GENERATOR_PYTHON} ${script} man ${name} ${PROJECT_VERSION} ${source}
                             ${dir}/${name}.1
                     DEPENDS ${source} ${script}
                     COMMENT "manual page ${name}.1 (tools/help/${name}.txt)" VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${name}_help.h ${dir}/${name}.1)
  target_include_directories(${target} PRIVATE ${dir} ${PROJECT_SOURCE_DIR}/tools)
  target_compile_definitions(${target} PRIVATE D12RT_VERSION="${PROJECT_VERSION}")
  set_property(TARGET ${target} PROPERTY D12RT_MAN_PAGE ${dir}/${name}.1)
  if(arg_INSTALL)
    install(FILES ${dir}/${name}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endfunction()
