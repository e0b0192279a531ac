# d12rt_generate(NAME n SPEC dir OUT dir [PARTS a,b] OUTPUTS_VAR var): runs generator/gen.py when a spec file, template or
# generator source changes, and sets var to the stamp file that targets depend on. Inputs and outputs come from the generator itself (--list-inputs/--list-outputs).
# gen.py leaves unchanged outputs untouched (so nothing recompiles for nothing); a stamp file records the run,
# so it does not repeat on every build either.
function(d12rt_generate)
  cmake_parse_arguments(GEN "" "NAME;SPEC;OUT;PARTS;OUTPUTS_VAR" "" ${ARGN})
  set(gen ${PROJECT_SOURCE_DIR}/generator/gen.py)
  set(parts)
  if(GEN_PARTS)
    set(parts --parts ${GEN_PARTS})
  endif()
  foreach(mode inputs outputs)
    execute_process(COMMAND ${D12RT_GENERATOR_PYTHON} ${gen} --spec ${GEN_SPEC} --out ${GEN_OUT} ${parts} --list-${mode}
                    OUTPUT_VARIABLE _list OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _result)
    if(NOT _result EQUAL 0)
      message(FATAL_ERROR "d12rt: generator/gen.py --list-${mode} failed")
    endif()
    set(_${mode} ${_list})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gen})
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/generate_${GEN_NAME}.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    BYPRODUCTS ${_outputs}
    COMMAND ${D12RT_GENERATOR_PYTHON} ${gen} --spec ${GEN_SPEC} --out ${GEN_OUT} ${parts}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${_inputs}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Generating ${GEN_NAME} from ${GEN_SPEC}"
    VERBATIM)
  set(${GEN_OUTPUTS_VAR} ${stamp} PARENT_SCOPE)
endfunction()
