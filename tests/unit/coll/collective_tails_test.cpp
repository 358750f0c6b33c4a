// The stall rule (bench/coll/collective_tails.hpp): a size whose slowest sample is far above its
// median is named with the sample, the multiple and the p99; jitter and slow sizes are not.
#include <gtest/gtest.h>

#include "bench/coll/collective_tails.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

Measurement timed(double median, double p99, double max, std::size_t count = 20) {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "time_us";
  m.unit = "us";
  m.host = "n0,n1";
  m.subject = "world";
  m.rank = -1;
  m.size_bytes = 65536;
  m.value = median;
  SampleStats stats;
  stats.count = count;
  stats.min = median * 0.9;
  stats.median = median;
  stats.p99 = p99;
  stats.max = max;
  m.stats = stats;
  m.params = {{"placement", "out"}, {"max_sample", "7 of 20"}};
  return m;
}

TEST(CollectiveTails, TheRecordedStallIsAWarnNamingTheSampleTheMultipleAndTheP99) {
  // The stored record that passed: median 10.6 us, p99 76 ms, max 94 ms (94000 / 10.6 = 8868).
  const auto findings = judge_collective_tails({timed(10.6, 76000, 94000)}, StallRule{});
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.severity, Severity::warn);
  EXPECT_EQ(f.metric, "time_us");
  EXPECT_EQ(f.host, "n0,n1");
  EXPECT_EQ(f.observed, 94000.0);
  EXPECT_EQ(f.expected, 10.6);
  EXPECT_EQ(f.message,
            "coll.all_reduce at 64KiB (out-of-place): one timed sample took 94 ms, 8868x the "
            "median 10.6 us (sample 7 of 20; p99 76 ms, 20 samples): an operation stalled, one "
            "rank holding every other back");
  EXPECT_EQ(f.source.rfind("inferred: ", 0), 0u) << f.source;
  EXPECT_NE(f.remedy.find("gpu.health"), std::string::npos);
}

TEST(CollectiveTails, JitterSlowSizesAndFewSamplesAreNot) {
  const StallRule rule;
  // Healthy: max 14 us at a 10.6 us median.
  EXPECT_TRUE(judge_collective_tails({timed(10.6, 13, 14)}, rule).empty());
  // 500x the median but 4.99 ms above it: a scheduler's time slice, not a stall.
  EXPECT_TRUE(judge_collective_tails({timed(10, 4000, 5000)}, rule).empty());
  // 900 ms above a 100 ms median but only 10x: a slow size, judged by its bandwidth.
  EXPECT_TRUE(judge_collective_tails({timed(100000, 900000, 1000000)}, rule).empty());
  // The recorded stall over 4 samples: too few to tell.
  EXPECT_TRUE(judge_collective_tails({timed(10.6, 76000, 94000, 4)}, rule).empty());
  // Exactly at a bound is a stall: 20x (5 ms median, 100 ms max), 50 ms above (2.5 ms, 52.5 ms).
  EXPECT_EQ(judge_collective_tails({timed(5000, 90000, 100000)}, rule).size(), 1u);
  EXPECT_EQ(judge_collective_tails({timed(2500, 50000, 52500)}, rule).size(), 1u);
  // A bandwidth, or a time without samples: nothing to judge.
  Measurement busbw = timed(10.6, 76000, 94000);
  busbw.metric = "busbw";
  Measurement bare = timed(10.6, 76000, 94000);
  bare.stats.reset();
  EXPECT_TRUE(judge_collective_tails({busbw, bare}, rule).empty());
}

TEST(CollectiveTails, TheProfileSetsTheBoundsAndABadValueNamesFileLineAndValue) {
  Profile strict;
  strict.node = {{"coll_stall_ratio", "5"}, {"coll_stall_ms", "1"}};
  const StallRule rule = stall_rule_from(strict);
  EXPECT_EQ(rule.max_over_median, 5.0);
  EXPECT_EQ(rule.min_excess_us, 1000.0);
  // 500x and 4.99 ms above: a stall under the site's bounds.
  EXPECT_EQ(judge_collective_tails({timed(10, 4000, 5000)}, rule).size(), 1u);
  Profile bad;
  bad.path = "site.toml";
  bad.node = {{"coll_stall_ratio", "lots"}};
  bad.node_lines = {{"coll_stall_ratio", 9}};
  try {
    make_collective_tail_judge().validate(bad);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("site.toml:9"), std::string::npos) << what;
    EXPECT_NE(what.find("coll_stall_ratio = \"lots\""), std::string::npos) << what;
  }
  Profile below;
  below.node = {{"coll_stall_ratio", "1"}};
  EXPECT_THROW(stall_rule_from(below), ConfigError);
}

}  // namespace
}  // namespace fabcheck
