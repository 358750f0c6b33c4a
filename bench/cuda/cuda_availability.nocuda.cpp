// The GPU stack in a build without CUDA: never available, with the reason.
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {

CudaAvailability cuda_availability() { return {false, "built without CUDA", 0}; }

std::string nccl_missing() { return "built without CUDA"; }

std::string cublas_missing() { return "built without CUDA"; }

std::string nccl_library_version() { return ""; }

std::string nccl_library_path() { return ""; }

std::string cublas_library_path() { return ""; }

}  // namespace fabcheck
