// The CUDA devices this rank drives and how measurements name them. Built only with CUDA.
#pragma once

#include <vector>

#include "bench/core/world.hpp"
#include "kernels/gpu_label.hpp"

namespace fabcheck {

// The ordinals this rank drives (devices_for_rank over the visible devices).
std::vector<int> devices_of_this_rank(const World& world);

// Bus id and model from CUDA, index from NVML where it knows the bus id (label_for_cuda_device).
GpuLabel cuda_device_label(int ordinal);

}  // namespace fabcheck
