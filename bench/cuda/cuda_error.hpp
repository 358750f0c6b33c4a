// FABCHECK_CUDA(call): a failed CUDA runtime call throws, naming the call, host file and line.
// Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace fabcheck {

inline void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  throw std::runtime_error(std::string("CUDA: ") + call + " failed: " + cudaGetErrorString(error) +
                           " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace fabcheck

#define FABCHECK_CUDA(call)                                                           \
  do {                                                                                \
    const cudaError_t fabcheck_cuda_status_ = (call);                                 \
    if (fabcheck_cuda_status_ != cudaSuccess) {                                       \
      ::fabcheck::throw_cuda_error(fabcheck_cuda_status_, #call, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)
