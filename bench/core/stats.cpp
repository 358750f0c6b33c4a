// Sample statistics: interpolated percentiles, mean and coefficient of variation.
#include "bench/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabcheck {

double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.size() == 1) return sorted.front();
  const double position =
      std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

SampleStats compute_stats(std::vector<double> samples) {
  SampleStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.count = samples.size();
  stats.min = samples.front();
  stats.max = samples.back();
  stats.median = percentile_sorted(samples, 50);
  stats.p99 = percentile_sorted(samples, 99);
  const double n = static_cast<double>(samples.size());
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double squares = 0;
  for (double s : samples) squares += (s - stats.mean) * (s - stats.mean);
  stats.cv = stats.mean != 0 ? std::sqrt(squares / n) / stats.mean : 0;
  return stats;
}

}  // namespace fabcheck
