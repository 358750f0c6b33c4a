// The GPU stack in a CUDA build: device detection through cudart, NCCL's version through NCCL.
#include "bench/cuda/cuda_availability.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace fabcheck {
namespace {

CudaAvailability query_availability() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return {false, "no CUDA device (" + std::string(cudaGetErrorString(error)) + ")", 0};
  }
  if (count <= 0) return {false, "no CUDA device (none visible)", 0};
  return {true, "", count};
}

}  // namespace

CudaAvailability cuda_availability() {
  static const CudaAvailability availability = query_availability();
  return availability;
}

std::string nccl_library_version() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

}  // namespace fabcheck
