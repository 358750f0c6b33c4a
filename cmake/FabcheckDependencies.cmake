# Finds fabcheck's dependencies: header-only ones (system or carried in FABCHECK_DEPS_DIR), and the optional MPI, HDF5, CUDA.

# Header-only: toml++, nlohmann-json, CLI11, fmt (used header-only so a carried copy of the headers is enough).
set(_fabcheck_hints "${FABCHECK_DEPS_DIR}/include")
find_path(FABCHECK_TOMLPP_INCLUDE toml++/toml.h HINTS ${_fabcheck_hints})
find_path(FABCHECK_JSON_INCLUDE nlohmann/json.hpp HINTS ${_fabcheck_hints})
find_path(FABCHECK_CLI11_INCLUDE CLI/CLI.hpp HINTS ${_fabcheck_hints})
find_path(FABCHECK_FMT_INCLUDE fmt/format.h HINTS ${_fabcheck_hints})
foreach(_dep TOMLPP JSON CLI11 FMT)
  if(NOT FABCHECK_${_dep}_INCLUDE)
    message(FATAL_ERROR "fabcheck: header dependency ${_dep} not found; run scripts/setup.sh "
                        "(or scripts/device-prepare.sh to carry them in ${FABCHECK_DEPS_DIR})")
  endif()
endforeach()
add_library(fabcheck_headers INTERFACE)
target_include_directories(fabcheck_headers SYSTEM INTERFACE
  ${FABCHECK_TOMLPP_INCLUDE} ${FABCHECK_JSON_INCLUDE} ${FABCHECK_CLI11_INCLUDE} ${FABCHECK_FMT_INCLUDE})
target_compile_definitions(fabcheck_headers INTERFACE TOML_HEADER_ONLY=1 TOML_EXCEPTIONS=1)
# fmt: the compiled library where installed (much faster to build against), else header-only from
# the carried headers (a GPU node without libfmt-dev).
find_package(fmt CONFIG QUIET)
if(fmt_FOUND AND NOT FABCHECK_FMT_HEADER_ONLY)
  target_link_libraries(fabcheck_headers INTERFACE fmt::fmt)
else()
  target_compile_definitions(fabcheck_headers INTERFACE FMT_HEADER_ONLY=1)
endif()

find_package(Threads REQUIRED)

# MPI (optional): without it fabcheck runs single-process.
set(FABCHECK_HAVE_MPI OFF)
if(NOT FABCHECK_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(FABCHECK_HAVE_MPI ON)
  elseif(FABCHECK_WITH_MPI STREQUAL "ON")
    message(FATAL_ERROR "FABCHECK_WITH_MPI=ON but MPI was not found")
  endif()
endif()

# HDF5 (optional): run.h5 beside the JSON files.
set(FABCHECK_HAVE_HDF5 OFF)
if(NOT FABCHECK_WITH_HDF5 STREQUAL "OFF")
  find_package(HDF5 COMPONENTS C)
  if(HDF5_FOUND)
    set(FABCHECK_HAVE_HDF5 ON)
  elseif(FABCHECK_WITH_HDF5 STREQUAL "ON")
    message(FATAL_ERROR "FABCHECK_WITH_HDF5=ON but HDF5 was not found")
  endif()
endif()

# CUDA (optional): the kernels/ probes and the NCCL backend.
set(FABCHECK_HAVE_CUDA OFF)
if(NOT FABCHECK_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)  # no GPU here to ask, and CUDA 13 has no sm_70
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(FABCHECK_HAVE_CUDA ON)
  elseif(FABCHECK_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "FABCHECK_WITH_CUDA=ON but nvcc was not found")
  endif()
endif()
if(FABCHECK_HAVE_CUDA)
  find_path(FABCHECK_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include)
  find_library(FABCHECK_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)
  if(NOT FABCHECK_NCCL_INCLUDE OR NOT FABCHECK_NCCL_LIBRARY)
    message(FATAL_ERROR "CUDA found but NCCL (nccl.h, libnccl) was not")
  endif()
  # NCCL's and cuBLAS's headers only: both are opened with dlopen when a probe needs them
  # (bench/cuda/nccl_library.hpp, cublas_library.hpp), and the CUDA runtime is linked statically
  # (it opens the driver's libcuda.so.1 itself), so the binary starts on a node without any of them.
  add_library(fabcheck_nccl INTERFACE)
  target_include_directories(fabcheck_nccl SYSTEM INTERFACE ${FABCHECK_NCCL_INCLUDE})
  add_library(fabcheck_cuda_runtime INTERFACE)
  target_link_libraries(fabcheck_cuda_runtime INTERFACE CUDA::cudart_static)
  target_include_directories(fabcheck_cuda_runtime SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
endif()
