// Counting wrongly copied elements on the GPU (pattern and triad checks). Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fabcheck {

// Elements of device buffer `data` (on the current device) that differ from pattern_value(seed, i).
std::uint64_t device_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                        std::uint64_t seed, cudaStream_t stream);

// Elements of `a` that differ from triad_value(seed_b, seed_c, scalar, i).
std::uint64_t device_triad_mismatches(const std::uint64_t* a, std::size_t count,
                                      std::uint64_t seed_b, std::uint64_t seed_c,
                                      std::uint64_t scalar, cudaStream_t stream);

}  // namespace fabcheck
