# The include rule's own test (ctest include_rule): the check passes on every folder of the tree as
# it is, fails on a planted sideways include (a family including another family, a layer including
# what sits above it) naming the file, the line and the rule, and passes again without it.
#   cmake -DROOT=<source dir> -P include_rule_test.cmake
include("${ROOT}/cmake/FabcheckLayers.cmake")

# Runs the check of `folder` over `files` as the build does; sets `${out}_result` and `${out}_text`.
function(check_folder out folder files)
  execute_process(
    COMMAND ${CMAKE_COMMAND} "-DFOLDER=${folder}" "-DMAY_INCLUDE=${FABCHECK_MAY_INCLUDE_${folder}}"
            "-DFILES=${files}" "-DKNOWN=${FABCHECK_FOLDERS}" "-DROOT=${ROOT}"
            -P "${ROOT}/cmake/check_includes.cmake"
    RESULT_VARIABLE result ERROR_VARIABLE text OUTPUT_VARIABLE ignored)
  set(${out}_result "${result}" PARENT_SCOPE)
  set(${out}_text "${text}" PARENT_SCOPE)
endfunction()

set(failures "")
foreach(folder IN LISTS FABCHECK_FOLDERS)
  file(GLOB files "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.cu"
       "${ROOT}/${folder}/*.cuh" "${ROOT}/${folder}/*.def")
  if(NOT files)
    string(APPEND failures "\n  ${folder}/ has no files: the rule checks nothing there")
  endif()
  check_folder(tree "${folder}" "${files}")
  if(NOT tree_result EQUAL 0)
    string(APPEND failures "\n  the tree as it is breaks the rule:\n${tree_text}")
  endif()
endforeach()

# Planted: each line is (folder, what its file includes, whether the rule allows it).
set(planted_dir "${CMAKE_CURRENT_BINARY_DIR}/include_rule_planted")
file(REMOVE_RECURSE "${planted_dir}")
set(cases
    "kernels|fabric/ib_port.hpp|no"       "host|kernels/gpu_label.hpp|no"
    "fabric|bench/coll/engine.hpp|no"     "storage|bench/cli/commands.hpp|no"
    "bench/core|bench/coll/engine.hpp|no" "bench/sys|results/finding.hpp|no"
    "results|bench/core/world.hpp|no"     "bench/cuda|kernels/gpu_label.hpp|no"
    "kernels|bench/cuda/cuda_error.hpp|yes" "host|bench/sys/sysfs_file.hpp|yes"
    "bench/coll|bench/core/world.hpp|yes" "bench/cli|fabric/ib_port.hpp|yes")
foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 folder)
  list(GET parts 1 included)
  list(GET parts 2 allowed)
  set(file "${planted_dir}/${folder}/planted.cpp")
  file(WRITE "${file}" "// planted\n#include <vector>\n#include \"${included}\"\n")
  check_folder(planted "${folder}" "${file}")
  if(allowed STREQUAL "no")
    if(planted_result EQUAL 0)
      string(APPEND failures "\n  ${folder}/ including ${included} passed the check")
    elseif(NOT planted_text MATCHES "planted.cpp:3: includes \"${included}\"")
      string(APPEND failures "\n  ${folder}/ including ${included}: no file and line in: ${planted_text}")
    endif()
  elseif(NOT planted_result EQUAL 0)
    string(APPEND failures "\n  ${folder}/ including ${included} was refused:\n${planted_text}")
  endif()
endforeach()
file(REMOVE_RECURSE "${planted_dir}")

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "include rule test:${failures}")
endif()
message(STATUS "include rule: every folder passes; 8 planted sideways includes refused, 4 allowed ones pass")
