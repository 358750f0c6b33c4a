// Sample statistics against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/core/stats.hpp"

namespace fabcheck {
namespace {

TEST(Stats, EmptyGivesZeros) {
  const auto s = compute_stats({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median, 0.0);
}

TEST(Stats, OneSample) {
  const auto s = compute_stats({4.0});
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.min, 4.0);
  EXPECT_EQ(s.median, 4.0);
  EXPECT_EQ(s.p99, 4.0);
  EXPECT_EQ(s.cv, 0.0);
}

TEST(Stats, UnsortedInput) {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population stddev 2 -> cv 0.4; median 4.5.
  const auto s = compute_stats({9, 4, 5, 4, 2, 7, 4, 5});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.cv, 0.4);
  // p99: position 0.99 * 7 = 6.93 -> 7 + 0.93 * (9 - 7) = 8.86.
  EXPECT_NEAR(s.p99, 8.86, 1e-12);
}

TEST(Stats, PercentileInterpolatesLinearly) {
  const std::vector<double> sorted{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 0), 10);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 100), 100);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 50), 55);      // position 4.5
  EXPECT_NEAR(percentile_sorted(sorted, 99), 99.1, 1e-12);  // position 8.91
  EXPECT_NEAR(percentile_sorted(sorted, 25), 32.5, 1e-12);  // position 2.25
}

TEST(Stats, HundredSamplesP99) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(i);
  const auto s = compute_stats(samples);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_NEAR(s.p99, 99.01, 1e-12);  // position 98.01
}

}  // namespace
}  // namespace fabcheck
