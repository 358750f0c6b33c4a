// The gpu.* requirements, from the process's NVML session and CUDA device count.
#include "kernels/gpu_requirements.hpp"

#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

Requirement nvml_requirement() {
  return {"NVML", true, [](const World&, const RunOptions&) {
            const NvmlSession& nvml = process_nvml();
            if (!nvml.ok()) return "no CUDA device (" + nvml.reason + ")";
            if (nvml.device_count == 0) return std::string("no CUDA device (NVML sees none)");
            return std::string();
          }};
}

Requirement gpu_pair_requirement() {
  return {"two GPUs", cuda_requirement().in_build, [](const World&, const RunOptions&) {
            const CudaAvailability cuda = cuda_availability();
            if (cuda.device_count >= 2) return std::string();
            return "fewer than 2 GPUs visible to this process (" +
                   std::to_string(cuda.device_count) + ")";
          }};
}

}  // namespace fabcheck
