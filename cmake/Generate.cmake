# d12rt_generate(NAME n SPEC dir OUT dir OUTPUTS_VAR var): run generator/gen.py when a spec file, template or
# generator source changes. Inputs and outputs come from the generator itself (--list-inputs/--list-outputs).
function(d12rt_generate)
  cmake_parse_arguments(GEN "" "NAME;SPEC;OUT;OUTPUTS_VAR" "" ${ARGN})
  set(gen ${PROJECT_SOURCE_DIR}/generator/gen.py)
  foreach(mode inputs outputs)
    execute_process(COMMAND ${D12RT_GENERATOR_PYTHON} ${gen} --spec ${GEN_SPEC} --out ${GEN_OUT} --list-${mode}
                    OUTPUT_VARIABLE _list OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _result)
    if(NOT _result EQUAL 0)
      message(FATAL_ERROR "d12rt: generator/gen.py --list-${mode} failed")
    endif()
    set(_${mode} ${_list})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gen})
  add_custom_command(
    OUTPUT ${_outputs}
    COMMAND ${D12RT_GENERATOR_PYTHON} ${gen} --spec ${GEN_SPEC} --out ${GEN_OUT}
    DEPENDS ${_inputs}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Generating ${GEN_NAME} from ${GEN_SPEC}"
    VERBATIM)
  set(${GEN_OUTPUTS_VAR} ${_outputs} PARENT_SCOPE)
endfunction()
