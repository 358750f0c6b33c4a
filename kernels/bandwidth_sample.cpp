// Bandwidth measurements from timed samples (median GB/s), and the host-side pattern check.
#include "kernels/bandwidth_sample.hpp"

#include <stdexcept>

#include "bench/core/stats.hpp"
#include "kernels/random_pattern.hpp"

namespace fabcheck {

Measurement bandwidth_measurement(const GpuLabel& label, const std::string& probe,
                                  const std::string& metric, std::uint64_t size,
                                  double bytes_per_sample,
                                  const std::vector<double>& sample_seconds) {
  if (sample_seconds.empty()) throw std::invalid_argument(probe + " " + metric + ": no samples");
  std::vector<double> rates;
  for (double seconds : sample_seconds) {
    if (!(seconds > 0)) {
      throw std::invalid_argument(probe + " " + metric + ": a sample took no time");
    }
    rates.push_back(bytes_per_sample / seconds / 1e9);
  }
  const SampleStats stats = compute_stats(rates);
  Measurement m = gpu_measurement(label, probe, metric, stats.median, "GB/s");
  m.size_bytes = size;
  m.stats = stats;
  return m;
}

std::uint64_t count_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                       std::uint64_t seed) {
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (data[i] != pattern_value(seed, i)) ++wrong;
  }
  return wrong;
}

}  // namespace fabcheck
