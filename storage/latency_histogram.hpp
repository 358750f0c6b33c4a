// LatencyHistogram: log-linear buckets (HdrHistogram's layout) over nanoseconds, so p50/p99/p99.9
// of millions of I/Os cost a fixed 60 KiB and stay within 1/128 of the true value.
#pragma once

#include <cstdint>
#include <vector>

#include "results/measurement.hpp"

namespace fabcheck {

class LatencyHistogram {
 public:
  // Values below 2^kSubBucketBits are kept exactly; above, buckets are 2^-(kSubBucketBits-1) wide
  // relative to their value.
  static constexpr int kSubBucketBits = 8;

  LatencyHistogram();

  void record(std::uint64_t value_ns);
  // Adds another histogram's counts (e.g. the same pattern on several threads).
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ == 0 ? 0 : min_; }
  std::uint64_t max() const { return max_; }
  double mean() const;
  double stddev() const;  // population
  // Nearest rank: the smallest recorded bucket holding at least p% of the values, reported as the
  // highest value that bucket can hold (never under-reporting a latency), clamped to [min, max].
  // 0 for an empty histogram. p in [0, 100].
  std::uint64_t percentile(double p) const;

  // Statistics in microseconds: median = p50, p99 = p99, from the buckets.
  SampleStats stats_us() const;

  // Bucket arithmetic, public for tests.
  static std::size_t bucket_index(std::uint64_t value);
  static std::uint64_t bucket_lowest(std::size_t index);
  static std::uint64_t bucket_highest(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  double sum_ = 0;
  double sum_squares_ = 0;
};

}  // namespace fabcheck
