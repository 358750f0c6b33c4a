// Robust statistics over peers (median, MAD) and the outlier test fabcheck applies at every level:
// GPUs of a node, ports and links of a node, nodes of a sweep, node pairs.
#pragma once

#include <cstddef>
#include <vector>

namespace fabcheck {

// Median of the finite values (any order; the two middle values averaged for an even count); NaN
// when there is none.
double median_of(std::vector<double> values);

// Median absolute deviation from `center` over the finite values (not scaled); NaN when none.
double median_absolute_deviation(const std::vector<double>& values, double center);

// MAD x this estimates the standard deviation of normally distributed values.
inline constexpr double kMadToSigma = 1.4826;

// Which side of the peers is the degraded one: lower for bandwidth and rates, higher for latency.
enum class WorseSide { lower, higher };

struct OutlierPolicy {
  WorseSide worse = WorseSide::lower;
  // A value must be this far from the peer median (|value - median| / |median|) to be named at
  // all, so a tight healthy fleet raises nothing however small its spread...
  double min_relative_gap = 0.05;
  // ...and this far to be a FAIL rather than a WARN.
  double fail_relative_gap = 0.10;
  // ...and further than this many robust standard deviations (kMadToSigma x MAD; Iglewicz and
  // Hoaglin's modified z-score of 3.5), so a naturally wide spread is not called a fault. With
  // MAD = 0 (most peers identical) any value beyond the gap is an outlier.
  double robust_z = 3.5;
  // Fewer finite values than this: nothing is judged (one value has no peers).
  std::size_t min_peers = 2;
  // Fewer than this (two peers): the worse one is named against the better one, at most as a WARN,
  // since two values cannot tell which of them is wrong.
  std::size_t min_peers_to_fail = 3;
};

struct PeerSummary {
  std::size_t count = 0;  // finite values
  double median = 0;
  double mad = 0;  // unscaled
};

struct Outlier {
  std::size_t index = 0;  // into the values given
  double value = 0;
  double reference = 0;     // the peer median (with two peers: the better peer)
  double relative_gap = 0;  // (value - reference) / |reference|: negative below
  double robust_z = 0;      // |value - median| / (kMadToSigma x MAD); infinite when MAD = 0
  bool fail = false;        // beyond fail_relative_gap with enough peers
};

struct OutlierReport {
  PeerSummary peers;
  std::vector<Outlier> outliers;  // in input order; only on the worse side
};

// Non-finite values are ignored (neither peers nor outliers).
PeerSummary summarise_peers(const std::vector<double>& values);

// The values that stand out from their peers on the worse side by the policy's three tests.
// n = 0 or 1: none. n = 2: the worse one when its gap to the better exceeds the gap (WARN only).
// n >= 3: median and MAD over all values, each value tested against them.
OutlierReport find_outliers(const std::vector<double>& values, const OutlierPolicy& policy = {});

}  // namespace fabcheck
