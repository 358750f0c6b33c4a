// What this process's GPU stack offers: the CUDA devices it sees (or why none), the requirement
// every probe that drives a GPU declares, and the NCCL and cuBLAS libraries it loads on demand.
#pragma once

#include <string>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct CudaAvailability {
  bool available = false;
  // Why not: "built without CUDA", "no CUDA device (libcuda.so.1 not found: no NVIDIA driver)",
  // "no CUDA device (driver 550.54.15 supports CUDA 12.4, older than the CUDA 13.0 fabcheck was
  // built with)", "no CUDA device (<cudaGetErrorString>)".
  std::string reason;
  int device_count = 0;  // visible CUDA devices in this process
};

// Cheap (asks the CUDA runtime once, then remembers); never hangs or throws on a machine without
// a driver. For Probe::applies and `fabcheck list`.
CudaAvailability cuda_availability();

// A CUDA build with a visible GPU: what every GPU probe (gpu.*, the NCCL collectives) needs.
Requirement cuda_requirement();

// A visible GPU and NCCL loaded (gpu probes that run collectives: coll.nic_loopback).
Requirement nccl_requirement();
// A visible GPU and cuBLAS loaded (gpu.gemm).
Requirement cublas_requirement();

// "" when the library loads here (dlopen, on first use), else why not: "libnccl.so.2 not found
// (NCCL not installed, or not on the library path)", "built without CUDA".
std::string nccl_missing();
std::string cublas_missing();

// The NCCL library this process loads ("2.28.3"), for the versions a pre-flight records; "" in a
// build without CUDA, "unknown" when NCCL does not say, "none (<why>)" when it cannot load.
std::string nccl_library_version();

// The files this process loads NCCL and cuBLAS from, links resolved
// ("/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9"): which of several installed copies runs. ""
// where it cannot load or in a build without CUDA. The first call loads the library.
std::string nccl_library_path();
std::string cublas_library_path();

}  // namespace fabcheck
