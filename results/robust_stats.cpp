// Median, MAD and the peer outlier test (relative gap, robust z, worse side only).
#include "results/robust_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabcheck {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Median of `values` in place (reorders them); the vector holds finite values only.
double median_in_place(std::vector<double>& values) {
  if (values.empty()) return kNaN;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return lower + (upper - lower) / 2;
}

std::vector<double> finite_only(const std::vector<double>& values) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double value : values) {
    if (std::isfinite(value)) finite.push_back(value);
  }
  return finite;
}

double relative_gap(double value, double reference) {
  const double difference = value - reference;
  if (reference != 0) return difference / std::fabs(reference);
  if (difference == 0) return 0;
  return difference > 0 ? kInfinity : -kInfinity;
}

bool on_worse_side(double gap, WorseSide worse) {
  return worse == WorseSide::lower ? gap < 0 : gap > 0;
}

}  // namespace

double median_of(std::vector<double> values) {
  std::vector<double> finite = finite_only(values);
  return median_in_place(finite);
}

double median_absolute_deviation(const std::vector<double>& values, double center) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double value : values) {
    if (std::isfinite(value)) deviations.push_back(std::fabs(value - center));
  }
  return median_in_place(deviations);
}

PeerSummary summarise_peers(const std::vector<double>& values) {
  PeerSummary summary;
  std::vector<double> finite = finite_only(values);
  summary.count = finite.size();
  if (finite.empty()) return summary;
  summary.median = median_in_place(finite);
  for (double& value : finite) value = std::fabs(value - summary.median);
  summary.mad = median_in_place(finite);
  return summary;
}

OutlierReport find_outliers(const std::vector<double>& values, const OutlierPolicy& policy) {
  OutlierReport report;
  report.peers = summarise_peers(values);
  const std::size_t n = report.peers.count;
  if (n < std::max<std::size_t>(policy.min_peers, 2)) return report;

  if (n == 2) {
    // No spread to speak of: the worse one against the better one, by the gap alone.
    std::size_t first = values.size();
    std::size_t second = values.size();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) continue;
      (first == values.size() ? first : second) = i;
    }
    const bool first_worse = policy.worse == WorseSide::lower ? values[first] < values[second]
                                                              : values[first] > values[second];
    const std::size_t worse = first_worse ? first : second;
    const std::size_t better = first_worse ? second : first;
    const double gap = relative_gap(values[worse], values[better]);
    if (on_worse_side(gap, policy.worse) && std::fabs(gap) > policy.min_relative_gap) {
      Outlier outlier;
      outlier.index = worse;
      outlier.value = values[worse];
      outlier.reference = values[better];
      outlier.relative_gap = gap;
      outlier.robust_z = report.peers.mad > 0 ? std::fabs(values[worse] - report.peers.median) /
                                                    (kMadToSigma * report.peers.mad)
                                              : kInfinity;
      outlier.fail = n >= policy.min_peers_to_fail && std::fabs(gap) > policy.fail_relative_gap;
      report.outliers.push_back(outlier);
    }
    return report;
  }

  const double median = report.peers.median;
  const double sigma = kMadToSigma * report.peers.mad;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i];
    if (!std::isfinite(value)) continue;
    const double gap = relative_gap(value, median);
    if (!on_worse_side(gap, policy.worse) || std::fabs(gap) <= policy.min_relative_gap) continue;
    const double deviation = std::fabs(value - median);
    const double z = sigma > 0 ? deviation / sigma : kInfinity;
    if (z <= policy.robust_z) continue;
    Outlier outlier;
    outlier.index = i;
    outlier.value = value;
    outlier.reference = median;
    outlier.relative_gap = gap;
    outlier.robust_z = z;
    outlier.fail = n >= policy.min_peers_to_fail && std::fabs(gap) > policy.fail_relative_gap;
    report.outliers.push_back(outlier);
  }
  return report;
}

}  // namespace fabcheck
