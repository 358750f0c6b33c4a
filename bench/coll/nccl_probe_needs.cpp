// What a probe on the NCCL backend declares it needs: NCCL, in a CUDA build with a visible GPU.
#include "bench/coll/nccl_backend.hpp"

namespace fabcheck {

Requirement nccl_requirement() {
#if defined(FABCHECK_HAVE_CUDA)
  constexpr bool kBuilt = true;
#else
  constexpr bool kBuilt = false;
#endif
  return {"CUDA", kBuilt, [](const World&, const RunOptions&) {
            const NcclAvailability nccl = nccl_availability();
            return nccl.available ? std::string() : nccl.reason;
          }};
}

}  // namespace fabcheck
