// What this process's GPU stack offers: the CUDA devices it sees (or why none), the requirement
// every probe that drives a GPU declares, and the NCCL library it loads.
#pragma once

#include <string>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct CudaAvailability {
  bool available = false;
  // Why not: "built without CUDA", "no CUDA device (<cudaGetErrorString>)".
  std::string reason;
  int device_count = 0;  // visible CUDA devices in this process
};

// Cheap (asks the CUDA runtime once, then remembers); never hangs or throws on a machine without
// a driver. For Probe::applies and `fabcheck list`.
CudaAvailability cuda_availability();

// A CUDA build with a visible GPU: what every GPU probe (gpu.*, the NCCL collectives) needs.
Requirement cuda_requirement();

// The NCCL library this process loads ("2.28.3"), for the versions a pre-flight records; "" in a
// build without CUDA, "unknown" when NCCL does not say.
std::string nccl_library_version();

}  // namespace fabcheck
