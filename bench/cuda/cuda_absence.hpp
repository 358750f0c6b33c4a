// Why the CUDA runtime found no device, told from what it said and what is known of the driver
// (pure, so each case is tested without one): the missing libcuda.so.1, a driver older than the
// CUDA fabcheck was built with, or cudart's own words with NVML's where NVML could not start.
#pragma once

#include <string>

namespace fabcheck {

struct CudaDriverFacts {
  bool insufficient_driver = false;  // cudart answered cudaErrorInsufficientDriver
  bool no_device = false;            // cudart answered cudaErrorNoDevice
  std::string error_text;            // cudaGetErrorString of the answer
  bool libcuda_present = false;      // libcuda.so.1 opens here
  int driver_cuda_version = 0;       // cudaDriverGetVersion: 12040 for CUDA 12.4; 0 unknown
  int runtime_cuda_version = 0;      // CUDART_VERSION built with: 13000
  std::string driver_version;        // NVML's "550.54.15"; "" unknown
  std::string nvml_reason;           // why NVML could not start; "" when it did
};

// "libcuda.so.1 not found: no NVIDIA driver", "driver 550.54.15 supports CUDA 12.4, older than the
// CUDA 13.0 fabcheck was built with", else the error text (and NVML's reason when it has one).
std::string no_cuda_device_reason(const CudaDriverFacts& facts);

// "13.0" for 13000.
std::string cuda_version_text(int version);

}  // namespace fabcheck
