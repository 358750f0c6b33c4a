// The requirement every GPU probe declares: a CUDA build with a visible GPU.
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {

Requirement cuda_requirement() {
#if defined(FABCHECK_HAVE_CUDA)
  constexpr bool kBuilt = true;
#else
  constexpr bool kBuilt = false;
#endif
  return {"CUDA", kBuilt, [](const World&, const RunOptions&) {
            const CudaAvailability cuda = cuda_availability();
            return cuda.available ? std::string() : cuda.reason;
          }};
}

}  // namespace fabcheck
