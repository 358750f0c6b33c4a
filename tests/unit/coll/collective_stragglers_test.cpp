// The straggler rank (bench/coll/collective_stragglers.hpp): arrival lags from the barrier waits
// against hand-computed figures, the records of one size, and the rule that names one rank only
// when it alone keeps the others waiting.
#include <gtest/gtest.h>

#include "bench/coll/collective_stragglers.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

TEST(ArrivalLags, TheRankThatArrivesLastEverySampleCarriesTheOthersWait) {
  // Ranks 0 and 1 wait 10 ms in every barrier; rank 2 arrives last and waits nothing. Rank 2's
  // lateness: median of the others' waits (10 ms) - 0 = 10000 us a sample; the mean without its
  // largest, (4 x 10000 - 10000) / 3 = 10000 us. Rank 0's: median of (10 ms, 0) = 5 ms - 10 ms,
  // below 0: 0.
  const std::vector<double> on_cpu(4, 0.0);
  const std::vector<RankSampleTimes> ranks{{{0.010, 0.010, 0.010, 0.010}, {}, on_cpu},
                                           {{0.010, 0.010, 0.010, 0.010}, {}, on_cpu},
                                           {{0.0, 0.0, 0.0, 0.0}, {}, on_cpu}};
  const ArrivalLags lags = arrival_lags(ranks);
  ASSERT_EQ(lags.held_back_us.size(), 3u);
  EXPECT_DOUBLE_EQ(lags.held_back_us[0], 0);
  EXPECT_DOUBLE_EQ(lags.held_back_us[1], 0);
  EXPECT_NEAR(lags.held_back_us[2], 10000, 1e-6);
  EXPECT_NEAR(lags.lateness_us[2], 10000, 1e-6);
  EXPECT_DOUBLE_EQ(lags.off_cpu_us[2], 0);
  EXPECT_EQ(lags.last_arrivals, (std::vector<int>{0, 0, 4}));
  EXPECT_EQ(lags.samples, 4u);
}

TEST(ArrivalLags, OneDeschedulingIsLeftOutAndUnevenSampleCountsUseTheFewest) {
  // Rank 1 is 50 ms late in one sample only (a process descheduled once): its largest lateness is
  // left out of the mean, so its lag is 0. Rank 0 reported a fifth sample the others did not.
  const std::vector<double> on_cpu(5, 0.0);
  const std::vector<RankSampleTimes> ranks{{{1e-5, 1e-5, 0.05, 1e-5, 9.0}, {}, on_cpu},
                                           {{1e-5, 1e-5, 0.0, 1e-5}, {}, on_cpu},
                                           {{1e-5, 1e-5, 0.05, 1e-5}, {}, on_cpu}};
  const ArrivalLags lags = arrival_lags(ranks);
  EXPECT_EQ(lags.samples, 4u);
  EXPECT_NEAR(lags.held_back_us[1], 0, 1e-6);
  EXPECT_EQ(lags.last_arrivals[1], 1);
}

TEST(ArrivalLags, ARankOffTheCpuHoldsTheOthersBackWhereItsLatenessCannotShow) {
  // Rank 1 was descheduled inside the barrier after its arrival counted: it waited longest (60 ms,
  // so the others look late by its wait) but was off the CPU for 50 ms of each sample. Its held-
  // back time per sample is max(lateness 0, off-CPU 50000 us); rank 0's is max(lateness of
  // median(60 ms, 1 ms) - 1 ms = 29.5 ms, off-CPU 0.1 ms) = 29500 us: rank 1 holds the most.
  const std::vector<RankSampleTimes> ranks{{{1e-3, 1e-3, 1e-3}, {}, {1e-4, 1e-4, 1e-4}},
                                           {{0.06, 0.06, 0.06}, {}, {0.05, 0.05, 0.05}},
                                           {{1e-3, 1e-3, 1e-3}, {}, {1e-4, 1e-4, 1e-4}}};
  const ArrivalLags lags = arrival_lags(ranks);
  EXPECT_NEAR(lags.held_back_us[1], 50000, 1e-6);
  EXPECT_NEAR(lags.off_cpu_us[1], 50000, 1e-6);
  EXPECT_NEAR(lags.lateness_us[1], 0, 1e-6);
  EXPECT_NEAR(lags.held_back_us[0], 29500, 1e-6);
}

TEST(ArrivalLags, OneRankOrOneSampleHasNoLag) {
  EXPECT_EQ(arrival_lags({{{0.1, 0.2}, {}, {0, 0}}}).held_back_us, std::vector<double>{0});
  const ArrivalLags single = arrival_lags({{{0.01}, {}, {0}}, {{0.0}, {}, {0}}});
  EXPECT_EQ(single.held_back_us, (std::vector<double>{0, 0}));
  EXPECT_EQ(single.last_arrivals, (std::vector<int>{0, 1}));
}

TEST(ArrivalMeasurements, OneSizeGivesTheLagAndEachRanksOwnTimeByRank) {
  Measurement base;
  base.probe = "coll.all_reduce";
  base.size_bytes = 65536;
  base.params = {{"placement", "out"}};
  const std::vector<RankSampleTimes> ranks{
      {{0.010, 0.010, 0.010, 0.010}, {100e-6, 200e-6, 300e-6, 400e-6}, {0, 0, 0, 0}},
      {{0.010, 0.010, 0.010, 0.010}, {100e-6, 100e-6, 100e-6, 100e-6}, {0, 0, 0, 0}},
      {{0.0, 0.0, 0.0, 0.0}, {50e-6, 50e-6, 50e-6, 50e-6}, {2e-3, 2e-3, 2e-3, 2e-3}}};
  const auto records = arrival_measurements(base, ranks, {"n0", "n1", "n2"}, 1234.5);
  ASSERT_EQ(records.size(), 2u);
  const Measurement& lag = records[0];
  EXPECT_EQ(lag.metric, "held_back_us");
  EXPECT_EQ(lag.probe, "coll.all_reduce");
  EXPECT_NEAR(lag.value, 10000, 1e-6);
  ASSERT_EQ(lag.by_rank.size(), 3u);
  EXPECT_EQ(lag.by_rank[2].host, "n2");
  EXPECT_EQ(lag.params.at("last_rank"), "2");
  EXPECT_EQ(lag.params.at("last_host"), "n2");
  EXPECT_EQ(lag.params.at("last_in"), "4 of 4");
  EXPECT_EQ(lag.params.at("last_arrivals"), "0,0,4");
  EXPECT_EQ(lag.params.at("timed_us"), "1234.5");
  EXPECT_EQ(lag.params.at("lateness_us"), "0,0,10000");
  EXPECT_EQ(lag.params.at("off_cpu_us"), "0,0,2000");
  EXPECT_EQ(lag.params.at("placement"), "out");

  const Measurement& own = records[1];
  EXPECT_EQ(own.metric, "rank_time_us");
  // Rank 0's median of 100, 200, 300, 400 us is 250 us, the largest; its first sample 100 us.
  EXPECT_NEAR(own.value, 250, 1e-6);
  ASSERT_TRUE(own.stats);
  EXPECT_NEAR(own.stats->max, 400, 1e-6);
  EXPECT_EQ(own.params.at("slowest_rank"), "0");
  EXPECT_EQ(own.params.at("first_sample_us"), "100");
  EXPECT_NEAR(own.by_rank[1].value, 100, 1e-6);
  EXPECT_NEAR(own.by_rank[2].value, 50, 1e-6);

  EXPECT_TRUE(arrival_measurements(base, {ranks[0]}, {"n0"}, 1).empty());
}

std::string text_of(const std::vector<double>& values) {
  std::string text;
  for (const double value : values) text += (text.empty() ? "" : ",") + std::to_string(value);
  return text;
}

Measurement lag_record(std::uint64_t size, std::vector<double> lags_us, const char* last_arrivals,
                       int samples, double timed_us, const char* off_cpu_us = "") {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "held_back_us";
  m.unit = "us";
  m.host = "n0,n1,n2";
  m.subject = "world";
  m.size_bytes = size;
  for (std::size_t r = 0; r < lags_us.size(); ++r) {
    m.by_rank.push_back({static_cast<int>(r), "n" + std::to_string(r), lags_us[r]});
  }
  m.params = {{"placement", "out"},
              {"last_arrivals", last_arrivals},
              {"samples", std::to_string(samples)},
              {"timed_us", std::to_string(timed_us)},
              {"lateness_us", text_of(lags_us)},
              {"off_cpu_us", off_cpu_us}};
  return m;
}

TEST(CollectiveStragglers, OneRankThatKeepsEveryoneWaitingIsAWarnNamingItsRankAndHost) {
  // Rank 2 imposes 10000 us x 20 + 5000 us x 20 = 300 ms over 40 samples (7.5 ms a sample); rank
  // 0 100 us x 20 = 2 ms. Timed: 100 + 300 = 400 ms, so 75% on top; 300 / 302 = 99% of the lag.
  const std::vector<Measurement> records{lag_record(65536, {0, 0, 10000}, "0,0,20", 20, 100000),
                                         lag_record(1048576, {100, 0, 5000}, "1,0,19", 20, 300000)};
  const auto findings = judge_collective_stragglers(records, StragglerRule{});
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.severity, Severity::warn);
  EXPECT_EQ(f.host, "n2");
  EXPECT_EQ(f.rank, 2);
  EXPECT_EQ(f.subject, "rank 2");
  EXPECT_NEAR(*f.observed, 0.75, 1e-9);
  EXPECT_NE(f.message.find("rank 2 (n2) holds the others back"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("holds the others back: 300 ms in all, 7.5 ms per sample over 40 "
                           "samples (late at the barrier 7.5 ms, off the CPU 0 us; last to "
                           "arrive in 39)"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("75% on top of the 400 ms"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("99% of all ranks' held-back time; most at 64KiB"), std::string::npos)
      << f.message;
  EXPECT_NE(f.evidence.find("rank 0 (n0) 2 ms (late 2 ms, off CPU 0 us, last 1)"),
            std::string::npos)
      << f.evidence;
  EXPECT_NE(f.remedy.find("look at n2 first"), std::string::npos);
}

TEST(CollectiveStragglers, NoiseSpreadOverRanksAndCheapLagsNameNoOne) {
  const StragglerRule rule;
  // The others' wait is 300 ms against 2 s of operations: 15%, below a quarter.
  EXPECT_TRUE(
      judge_collective_stragglers({lag_record(65536, {0, 0, 15000}, "0,0,20", 20, 2e6)}, rule)
          .empty());
  // Two ranks lag alike: neither holds three quarters of the waiting.
  EXPECT_TRUE(
      judge_collective_stragglers({lag_record(65536, {9000, 0, 10000}, "9,0,11", 20, 1e5)}, rule)
          .empty());
  // 10 ms in all, below 20 ms.
  EXPECT_TRUE(
      judge_collective_stragglers({lag_record(65536, {0, 0, 500}, "0,0,20", 20, 1e4)}, rule)
          .empty());
  // Not taken, or one sample: nothing to judge.
  Measurement waived = lag_record(65536, {0, 0, 10000}, "0,0,20", 20, 1e5);
  waived.status = MeasurementStatus::waived;
  EXPECT_TRUE(judge_collective_stragglers({waived}, rule).empty());
  EXPECT_TRUE(
      judge_collective_stragglers({lag_record(65536, {0, 0, 1e6}, "0,0,1", 1, 1e5)}, rule).empty());
}

TEST(CollectiveStragglers, TheProfileMovesTheBoundsAndABadValueNamesItsLine) {
  Profile loose;
  loose.node = {{"coll_straggler_ratio", "0.1"}, {"coll_straggler_ms", "5"}};
  const StragglerRule rule = straggler_rule_from(loose);
  EXPECT_DOUBLE_EQ(rule.min_share_of_time, 0.1);
  EXPECT_DOUBLE_EQ(rule.min_total_ms, 5);
  EXPECT_EQ(
      judge_collective_stragglers({lag_record(65536, {0, 0, 15000}, "0,0,20", 20, 2e6)}, rule)
          .size(),
      1u);

  Profile bad;
  bad.path = "site.toml";
  bad.node = {{"coll_straggler_ratio", "lots"}};
  bad.node_lines = {{"coll_straggler_ratio", 7}};
  try {
    make_collective_straggler_judge().validate(bad);
    FAIL() << "a ratio of 'lots' was accepted";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("coll_straggler_ratio = \"lots\""), std::string::npos) << what;
    EXPECT_NE(what.find("site.toml:7"), std::string::npos) << what;
  }
  Profile zero;
  zero.node = {{"coll_straggler_ms", "0"}};
  EXPECT_THROW(straggler_rule_from(zero), ConfigError);
}

}  // namespace
}  // namespace fabcheck
