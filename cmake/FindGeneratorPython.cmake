# Find a Python 3 that imports jinja2, yaml and pycparser. `python3` on PATH may be a pyenv interpreter
# without Debian's modules, so /usr/bin/python3 is tried too; D12RT_PYTHON overrides the search.
set(_d12rt_python_candidates)
if(D12RT_PYTHON)
  list(APPEND _d12rt_python_candidates ${D12RT_PYTHON})
endif()
find_program(_d12rt_path_python3 python3)
list(APPEND _d12rt_python_candidates /usr/bin/python3 ${_d12rt_path_python3})
set(D12RT_GENERATOR_PYTHON "")
foreach(candidate IN LISTS _d12rt_python_candidates)
  if(EXISTS "${candidate}")
    execute_process(COMMAND "${candidate}" -c "import jinja2, yaml, pycparser"
                    RESULT_VARIABLE _d12rt_result OUTPUT_QUIET ERROR_QUIET)
    if(_d12rt_result EQUAL 0)
      set(D12RT_GENERATOR_PYTHON "${candidate}")
      break()
    endif()
  endif()
endforeach()
if(NOT D12RT_GENERATOR_PYTHON)
  message(FATAL_ERROR
    "d12rt: no Python 3 interpreter imports jinja2, yaml and pycparser (tried: ${_d12rt_python_candidates}).\n"
    "Install them from Debian: apt-get install python3-jinja2 python3-yaml python3-pycparser\n"
    "or point -DD12RT_PYTHON=/path/to/python3 at an interpreter that has them.")
endif()
message(STATUS "d12rt: generator Python: ${D12RT_GENERATOR_PYTHON}")
