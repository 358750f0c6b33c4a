// LatencyHistogram: bucket index = (shift, top kSubBucketBits bits of the value).
#include "storage/latency_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fabcheck {

namespace {

constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << LatencyHistogram::kSubBucketBits;
constexpr std::uint64_t kHalf = kSubBuckets / 2;
constexpr std::size_t kBucketCount =
    static_cast<std::size_t>((64 - LatencyHistogram::kSubBucketBits) * kHalf + kSubBuckets);

// Bucket width as a power of two: 0 for the exact range.
int shift_of_index(std::size_t index) {
  return index < kSubBuckets ? 0 : static_cast<int>(index / kHalf) - 1;
}

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBucketCount, 0) {}

std::size_t LatencyHistogram::bucket_index(std::uint64_t value) {
  if (value < kSubBuckets) return static_cast<std::size_t>(value);
  const int msb = 63 - std::countl_zero(value);
  const int shift = msb - (kSubBucketBits - 1);
  return static_cast<std::size_t>(static_cast<std::uint64_t>(shift) * kHalf + (value >> shift));
}

std::uint64_t LatencyHistogram::bucket_lowest(std::size_t index) {
  const int shift = shift_of_index(index);
  return (static_cast<std::uint64_t>(index) - static_cast<std::uint64_t>(shift) * kHalf) << shift;
}

std::uint64_t LatencyHistogram::bucket_highest(std::size_t index) {
  return bucket_lowest(index) + ((std::uint64_t{1} << shift_of_index(index)) - 1);
}

void LatencyHistogram::record(std::uint64_t value_ns) {
  ++counts_[bucket_index(value_ns)];
  if (count_ == 0 || value_ns < min_) min_ = value_ns;
  max_ = std::max(max_, value_ns);
  ++count_;
  const double value = static_cast<double>(value_ns);
  sum_ += value;
  sum_squares_ += value * value;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
}

double LatencyHistogram::stddev() const {
  if (count_ == 0) return 0.0;
  const double m = mean();
  return std::sqrt(std::max(0.0, sum_squares_ / static_cast<double>(count_) - m * m));
}

std::uint64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const double clamped = std::clamp(p, 0.0, 100.0);
  const auto wanted = std::max<std::uint64_t>(
      1,
      static_cast<std::uint64_t>(std::ceil(clamped * static_cast<double>(count_) / 100.0 - 1e-9)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) return std::clamp(bucket_highest(i), min_, max_);
  }
  return max_;
}

SampleStats LatencyHistogram::stats_us() const {
  SampleStats stats;
  stats.count = static_cast<std::size_t>(count_);
  if (count_ == 0) return stats;
  stats.min = static_cast<double>(min()) / 1e3;
  stats.median = static_cast<double>(percentile(50)) / 1e3;
  stats.max = static_cast<double>(max()) / 1e3;
  stats.p99 = static_cast<double>(percentile(99)) / 1e3;
  stats.mean = mean() / 1e3;
  stats.cv = mean() == 0 ? 0.0 : stddev() / mean();
  return stats;
}

}  // namespace fabcheck
