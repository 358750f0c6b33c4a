# The folders, what each may include, and the check that holds them to it at build time.
#
#   bench/sys    the system layer: sysfs, procfs, NVML, hwloc, child processes, text, time   (nothing)
#   results      the data model, profiles, evaluator, writers                               (sys)
#   bench/core   the framework: probes, registry, plans, World, runner, reporters, sentinel (sys, results)
#   bench/cuda   the CUDA layer: devices, errors, memory, spin gate, availability           (+ core)
#   bench/sdc    the SDC screen's exact chains, CRC32C units, vote, sdc.* options            (+ core)
#   families     bench/coll, kernels (gpu), fabric, storage, host: the probes              (+ cuda), never each other
#   bench/cli    the commands and main, the one place naming every family                  (everything)
set(FABCHECK_FOLDERS bench/sys results bench/core bench/cuda bench/sdc bench/coll kernels fabric storage host
                     bench/cli)
set(FABCHECK_LAYERS_UNDER_FAMILIES bench/sys results bench/core bench/cuda bench/sdc)
set(FABCHECK_MAY_INCLUDE_bench/sys "")
set(FABCHECK_MAY_INCLUDE_results bench/sys)
set(FABCHECK_MAY_INCLUDE_bench/core bench/sys results)
set(FABCHECK_MAY_INCLUDE_bench/cuda bench/sys results bench/core)
set(FABCHECK_MAY_INCLUDE_bench/sdc bench/sys results bench/core)
foreach(family bench/coll kernels fabric storage host)
  set(FABCHECK_MAY_INCLUDE_${family} ${FABCHECK_LAYERS_UNDER_FAMILIES})
endforeach()
set(FABCHECK_MAY_INCLUDE_bench/cli ${FABCHECK_FOLDERS})

# Every source and header of `folder` (relative to the source root) checked against its rule
# whenever one of them changes; `target` builds only after the check passed.
function(fabcheck_include_rule target folder)
  if(NOT DEFINED FABCHECK_MAY_INCLUDE_${folder})
    message(FATAL_ERROR "fabcheck: ${folder} has no include rule in cmake/FabcheckLayers.cmake")
  endif()
  file(GLOB files CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/${folder}/*.cpp" "${PROJECT_SOURCE_DIR}/${folder}/*.hpp"
       "${PROJECT_SOURCE_DIR}/${folder}/*.cu" "${PROJECT_SOURCE_DIR}/${folder}/*.cuh"
       "${PROJECT_SOURCE_DIR}/${folder}/*.def")
  string(REPLACE "/" "_" name "${folder}")
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${name}.include_rule")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND ${CMAKE_COMMAND} "-DFOLDER=${folder}" "-DMAY_INCLUDE=${FABCHECK_MAY_INCLUDE_${folder}}"
            "-DFILES=${files}" "-DKNOWN=${FABCHECK_FOLDERS}" "-DROOT=${PROJECT_SOURCE_DIR}"
            "-DSTAMP=${stamp}" -P "${PROJECT_SOURCE_DIR}/cmake/check_includes.cmake"
    DEPENDS ${files} "${PROJECT_SOURCE_DIR}/cmake/check_includes.cmake"
            "${PROJECT_SOURCE_DIR}/cmake/FabcheckLayers.cmake"
    COMMENT "Checking the include rule of ${folder}/"
    VERBATIM)
  add_custom_target(${target}_include_rule DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_include_rule)
endfunction()
