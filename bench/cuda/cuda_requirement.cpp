// The requirements GPU probes declare: a CUDA build with a visible GPU, and where a probe needs
// them, NCCL or cuBLAS loaded (on demand) beside it.
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {
namespace {

#if defined(FABCHECK_HAVE_CUDA)
constexpr bool kBuilt = true;
#else
constexpr bool kBuilt = false;
#endif

// The CUDA reason first (no GPU says more than a library missing for it), then the library's.
std::string gpu_and(std::string (*missing)()) {
  const CudaAvailability cuda = cuda_availability();
  if (!cuda.available) return cuda.reason;
  return missing();
}

}  // namespace

Requirement cuda_requirement() {
  return {"CUDA", kBuilt, [](const World&, const RunOptions&) {
            const CudaAvailability cuda = cuda_availability();
            return cuda.available ? std::string() : cuda.reason;
          }};
}

Requirement nccl_requirement() {
  return {"NCCL", kBuilt, [](const World&, const RunOptions&) { return gpu_and(&nccl_missing); }};
}

Requirement cublas_requirement() {
  return {"cuBLAS", kBuilt,
          [](const World&, const RunOptions&) { return gpu_and(&cublas_missing); }};
}

}  // namespace fabcheck
