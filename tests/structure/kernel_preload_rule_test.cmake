# Every kernel of kernels/kernels.cu is loaded by kernels::preload() (a cudaFuncGetAttributes on
# each), and the fake CUDA runtime's preload() marks each of them loaded: a kernel added without
# its preload line would be loaded lazily behind a closed spin gate on a GPU (issue 24 (4)). Fails
# naming the kernel; checks itself on a planted one.
#   cmake -DROOT=<source dir> -P kernel_preload_rule_test.cmake

# `${out}`: the kernels (`__global__ void NAME(`) of `text` that `text`'s preload() does not list
# as `&NAME`.
function(missing_preloads out text)
  string(REGEX MATCHALL "__global__ void [a-z_0-9]+\\(" kernels "${text}")
  string(REGEX MATCH "cudaError_t preload\\(\\) {.*return cudaSuccess;" body "${text}")
  set(missing "")
  foreach(kernel IN LISTS kernels)
    string(REGEX REPLACE "__global__ void ([a-z_0-9]+)\\(" "\\1" name "${kernel}")
    string(FIND "${body}" "&${name})" at)
    if(at EQUAL -1)
      list(APPEND missing "${name}")
    endif()
  endforeach()
  list(LENGTH kernels count)
  set(${out} "${missing}" PARENT_SCOPE)
  set(${out}_count "${count}" PARENT_SCOPE)
endfunction()

file(READ "${ROOT}/kernels/kernels.cu" text)
missing_preloads(missing "${text}")
if(missing_count LESS 5)
  message(FATAL_ERROR "kernel_preload_rule: only ${missing_count} kernels found in kernels/kernels.cu")
endif()
if(NOT missing STREQUAL "")
  message(FATAL_ERROR "kernel_preload_rule: kernels/kernels.cu: not in preload(): ${missing}")
endif()

# The fake runtime marks every launch name it models loaded (names as its launch_* give them).
file(READ "${ROOT}/tests/unit/cudafake/fake_cuda_runtime.cuda.cpp" fake)
string(REGEX MATCHALL "stream, \"[a-z_]+\"" launched "${fake}")
string(REGEX MATCH "cudaError_t preload\\(\\) {[^}]*}" fake_preload "${fake}")
foreach(launch IN LISTS launched)
  string(REGEX REPLACE "stream, \"([a-z_]+)\"" "\\1" name "${launch}")
  string(FIND "${fake_preload}" "\"${name}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "kernel_preload_rule: the fake runtime's preload() does not load \"${name}\"")
  endif()
endforeach()

# The check itself: a planted kernel without its line is found.
missing_preloads(planted "__global__ void a_kernel(int x) {}\n__global__ void b_kernel() {}\ncudaError_t preload() {\n  f(&a_kernel);\n  return cudaSuccess;\n}\n")
if(NOT planted STREQUAL "b_kernel")
  message(FATAL_ERROR "kernel_preload_rule: the check missed a planted kernel (found: ${planted})")
endif()
message(STATUS "kernel_preload_rule: ${missing_count} kernels, each preloaded")
