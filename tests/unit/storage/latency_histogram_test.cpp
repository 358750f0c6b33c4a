// LatencyHistogram: bucket layout and percentiles against hand-computed sequences.
#include "storage/latency_histogram.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(LatencyHistogram, ValuesBelow256AreExact) {
  for (std::uint64_t v : {0ull, 1ull, 127ull, 255ull}) {
    EXPECT_EQ(LatencyHistogram::bucket_index(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_lowest(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_highest(v), v);
  }
}

TEST(LatencyHistogram, BucketsAboveAreLogLinear) {
  // 256..511 in buckets of 2, 512..1023 in buckets of 4, 8192..16383 in buckets of 64.
  EXPECT_EQ(LatencyHistogram::bucket_index(256), 256u);
  EXPECT_EQ(LatencyHistogram::bucket_index(257), 256u);
  EXPECT_EQ(LatencyHistogram::bucket_index(258), 257u);
  EXPECT_EQ(LatencyHistogram::bucket_index(511), 383u);
  EXPECT_EQ(LatencyHistogram::bucket_index(512), 384u);
  EXPECT_EQ(LatencyHistogram::bucket_lowest(LatencyHistogram::bucket_index(990)), 988u);
  EXPECT_EQ(LatencyHistogram::bucket_highest(LatencyHistogram::bucket_index(990)), 991u);
  EXPECT_EQ(LatencyHistogram::bucket_lowest(LatencyHistogram::bucket_index(10000)), 9984u);
  EXPECT_EQ(LatencyHistogram::bucket_highest(LatencyHistogram::bucket_index(10000)), 10047u);
}

TEST(LatencyHistogram, EveryValueFallsInsideItsBucketWithinOnePartIn128) {
  for (std::uint64_t v = 1; v < (1ull << 40); v = v * 3 + 7) {
    const std::size_t index = LatencyHistogram::bucket_index(v);
    EXPECT_LE(LatencyHistogram::bucket_lowest(index), v) << v;
    EXPECT_GE(LatencyHistogram::bucket_highest(index), v) << v;
    // The most a reported value (the bucket's top) can exceed a recorded one, relative to it.
    const double spread = static_cast<double>(LatencyHistogram::bucket_highest(index) -
                                              LatencyHistogram::bucket_lowest(index));
    EXPECT_LT(spread / static_cast<double>(v), 1.0 / 128) << v;
  }
}

TEST(LatencyHistogram, SmallValuesGiveExactNearestRankPercentiles) {
  LatencyHistogram histogram;
  for (std::uint64_t v = 100; v >= 1; --v) histogram.record(v);  // order does not matter
  EXPECT_EQ(histogram.count(), 100u);
  EXPECT_EQ(histogram.percentile(50), 50u);
  EXPECT_EQ(histogram.percentile(99), 99u);
  EXPECT_EQ(histogram.percentile(99.9), 100u);
  EXPECT_EQ(histogram.percentile(0), 1u);
  EXPECT_EQ(histogram.min(), 1u);
  EXPECT_EQ(histogram.max(), 100u);
  EXPECT_DOUBLE_EQ(histogram.mean(), 50.5);
}

TEST(LatencyHistogram, OneToThousandReportsBucketTops) {
  LatencyHistogram histogram;
  for (std::uint64_t v = 1; v <= 1000; ++v) histogram.record(v);
  EXPECT_EQ(histogram.percentile(50), 501u);    // rank 500, bucket 500..501
  EXPECT_EQ(histogram.percentile(99), 991u);    // rank 990, bucket 988..991
  EXPECT_EQ(histogram.percentile(99.9), 999u);  // rank 999, bucket 996..999
  EXPECT_EQ(histogram.percentile(100), 1000u);  // bucket 1000..1003, clamped to the max
}

TEST(LatencyHistogram, TailIsSeenByP99AndP999) {
  LatencyHistogram histogram;
  for (int i = 0; i < 985; ++i) histogram.record(100);
  for (int i = 0; i < 10; ++i) histogram.record(10000);
  for (int i = 0; i < 5; ++i) histogram.record(20000);
  EXPECT_EQ(histogram.percentile(50), 100u);
  EXPECT_EQ(histogram.percentile(98.5), 100u);    // rank 985 is the last 100
  EXPECT_EQ(histogram.percentile(99), 10047u);    // rank 990 in the 9984..10047 bucket
  EXPECT_EQ(histogram.percentile(99.9), 20000u);  // 19968..20095 clamped to the max
}

TEST(LatencyHistogram, StatsAreInMicroseconds) {
  LatencyHistogram histogram;
  for (std::uint64_t v : {1000ull, 2000ull, 3000ull, 4000ull}) histogram.record(v);
  const SampleStats stats = histogram.stats_us();
  EXPECT_EQ(stats.count, 4u);
  EXPECT_DOUBLE_EQ(stats.min, 1.0);
  EXPECT_DOUBLE_EQ(stats.max, 4.0);
  EXPECT_DOUBLE_EQ(stats.mean, 2.5);
  EXPECT_NEAR(stats.median, 2.0, 2.0 / 128);  // rank 2 -> 2000's bucket
  EXPECT_NEAR(stats.cv, 1.118034 / 2.5, 1e-6);
}

TEST(LatencyHistogram, MergeAddsCounts) {
  LatencyHistogram a;
  LatencyHistogram b;
  for (std::uint64_t v = 1; v <= 50; ++v) a.record(v);
  for (std::uint64_t v = 51; v <= 100; ++v) b.record(v);
  a.merge(b);
  EXPECT_EQ(a.count(), 100u);
  EXPECT_EQ(a.percentile(50), 50u);
  EXPECT_EQ(a.max(), 100u);
}

TEST(LatencyHistogram, EmptyHistogramIsZero) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.percentile(99), 0u);
  EXPECT_EQ(histogram.stats_us().count, 0u);
}

}  // namespace
}  // namespace fabcheck
