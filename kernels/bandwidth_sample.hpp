// A bandwidth figure from timed samples: GB/s of each sample, the median as the value, statistics
// over the samples; and the host-side check of a copied pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gpu_label.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// `bytes_per_sample` moved in each of `sample_seconds`; value = median GB/s (1e9 B/s), size_bytes
// = `size`. Throws std::invalid_argument for no samples or a non-positive time.
Measurement bandwidth_measurement(const GpuLabel& label, const std::string& probe,
                                  const std::string& metric, std::uint64_t size,
                                  double bytes_per_sample,
                                  const std::vector<double>& sample_seconds);

// Elements of `data` that differ from pattern_value(seed, i).
std::uint64_t count_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                       std::uint64_t seed);

}  // namespace fabcheck
