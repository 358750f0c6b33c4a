// Registers the gpu.* probes (GPU-local copies, GEMM, launch latency, NVML health) in both builds:
// without CUDA or a GPU they are WAIVED with the reason.
#pragma once

#include "bench/core/registry.hpp"

namespace fabcheck {

void register_kernel_probes(Registry& registry);

}  // namespace fabcheck
