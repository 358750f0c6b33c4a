// What the gpu.* probes need, as requirements the registry checks before they run: NVML with a GPU
// (gpu.health), two GPUs visible to the process (gpu.p2p). CUDA itself is cuda_requirement().
#pragma once

#include "bench/core/probe.hpp"
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {

// NVML loads (libnvidia-ml from the driver, opened at run time) and sees at least one GPU.
Requirement nvml_requirement();

// At least two CUDA devices visible to this process (check after cuda_requirement()).
Requirement gpu_pair_requirement();

}  // namespace fabcheck
