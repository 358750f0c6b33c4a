// The reason no CUDA device is there, from the facts gathered by cuda_availability().
#include "bench/cuda/cuda_absence.hpp"

namespace fabcheck {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string no_cuda_device_reason(const CudaDriverFacts& facts) {
  if ((facts.insufficient_driver || facts.no_device) && !facts.libcuda_present) {
    return "libcuda.so.1 not found: no NVIDIA driver";
  }
  if (facts.insufficient_driver && facts.driver_cuda_version > 0 &&
      facts.driver_cuda_version < facts.runtime_cuda_version) {
    const std::string which =
        facts.driver_version.empty() ? "the driver" : "driver " + facts.driver_version;
    return which + " supports CUDA " + cuda_version_text(facts.driver_cuda_version) +
           ", older than the CUDA " + cuda_version_text(facts.runtime_cuda_version) +
           " fabcheck was built with";
  }
  if (!facts.nvml_reason.empty()) return facts.error_text + "; " + facts.nvml_reason;
  return facts.error_text;
}

}  // namespace fabcheck
