// Tests of the robust statistics: median and MAD by hand, and the peer outlier test on no, one and
// several outliers, identical values, n = 0, 1, 2, 3, the higher-is-worse side and NaN.
#include "results/robust_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fabcheck {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::size_t> indices(const OutlierReport& report) {
  std::vector<std::size_t> out;
  for (const auto& outlier : report.outliers) out.push_back(outlier.index);
  return out;
}

TEST(RobustStats, MedianOddEvenEmptyAndNaN) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({7}), 7);
  EXPECT_TRUE(std::isnan(median_of({})));
  EXPECT_DOUBLE_EQ(median_of({kNaN, 5, 1, kNaN, 3}), 3);
}

TEST(RobustStats, MadByHand) {
  // values 1 2 3 4 100: median 3, deviations 2 1 0 1 97 -> MAD 1
  EXPECT_DOUBLE_EQ(median_absolute_deviation({1, 2, 3, 4, 100}, 3), 1);
  const PeerSummary summary = summarise_peers({1, 2, 3, 4, 100});
  EXPECT_EQ(summary.count, 5u);
  EXPECT_DOUBLE_EQ(summary.median, 3);
  EXPECT_DOUBLE_EQ(summary.mad, 1);
}

TEST(RobustStats, NoOutlierInATightHealthyFleet) {
  // +-2 % noise around 400: every gap is below the 5 % minimum, however small the MAD.
  std::vector<double> values;
  for (int i = 0; i < 64; ++i) values.push_back(400 * (1 + 0.02 * std::sin(i * 1.7)));
  EXPECT_TRUE(find_outliers(values).outliers.empty());
}

TEST(RobustStats, IdenticalValuesRaiseNothing) {
  EXPECT_TRUE(find_outliers(std::vector<double>(8, 400)).outliers.empty());
}

TEST(RobustStats, OneHalfRatePortAmongSevenIsAFail) {
  const OutlierReport report = find_outliers({400, 400, 200, 400, 400, 400, 400, 400});
  ASSERT_EQ(indices(report), std::vector<std::size_t>{2});
  const Outlier& outlier = report.outliers.front();
  EXPECT_DOUBLE_EQ(outlier.reference, 400);
  EXPECT_DOUBLE_EQ(outlier.relative_gap, -0.5);
  EXPECT_TRUE(std::isinf(outlier.robust_z));  // MAD 0
  EXPECT_TRUE(outlier.fail);
}

TEST(RobustStats, SeveralOutliersAreAllNamed) {
  const OutlierReport report = find_outliers({100, 99, 101, 60, 100, 98, 70, 100, 102, 100});
  EXPECT_EQ(indices(report), (std::vector<std::size_t>{3, 6}));
}

TEST(RobustStats, SmallGapIsAWarnLargeGapAFail) {
  // median 100; 93 is 7 % below (WARN), 85 is 15 % below (FAIL)
  const OutlierReport report = find_outliers({100, 100, 100, 93, 100, 85, 100});
  ASSERT_EQ(report.outliers.size(), 2u);
  EXPECT_FALSE(report.outliers[0].fail);
  EXPECT_TRUE(report.outliers[1].fail);
}

TEST(RobustStats, BetterSideIsNeverAnOutlier) {
  EXPECT_TRUE(find_outliers({100, 100, 100, 200}).outliers.empty());
  OutlierPolicy latency;
  latency.worse = WorseSide::higher;
  EXPECT_TRUE(find_outliers({10, 10, 10, 5}, latency).outliers.empty());
  EXPECT_EQ(indices(find_outliers({10, 10, 10, 20}, latency)), std::vector<std::size_t>{3});
}

TEST(RobustStats, WideNaturalSpreadIsNotAFault) {
  // Storage spread +-15 %: a value 14 % below the median is inside 3.5 robust sigmas.
  const OutlierReport report = find_outliers({85, 115, 100, 90, 110, 95, 105, 86, 114});
  EXPECT_TRUE(report.outliers.empty());
}

TEST(RobustStats, NoPeersNoJudgement) {
  EXPECT_TRUE(find_outliers({}).outliers.empty());
  EXPECT_TRUE(find_outliers({1}).outliers.empty());
  EXPECT_TRUE(find_outliers({kNaN, 5}).outliers.empty());  // one finite value
}

TEST(RobustStats, TwoPeersNameTheWorseAsAWarnOnly) {
  const OutlierReport report = find_outliers({400, 200});
  ASSERT_EQ(indices(report), std::vector<std::size_t>{1});
  EXPECT_DOUBLE_EQ(report.outliers[0].reference, 400);  // against the better peer
  EXPECT_DOUBLE_EQ(report.outliers[0].relative_gap, -0.5);
  EXPECT_FALSE(report.outliers[0].fail);
  EXPECT_TRUE(find_outliers({400, 390}).outliers.empty());  // 2.5 % apart
}

TEST(RobustStats, ThreePeersOneBad) {
  const OutlierReport report = find_outliers({98, 60, 100});
  ASSERT_EQ(indices(report), std::vector<std::size_t>{1});
  EXPECT_DOUBLE_EQ(report.outliers[0].reference, 98);
  EXPECT_TRUE(report.outliers[0].fail);
  // Two of three bad: the majority is what "normal" means; nothing stands out on the worse side.
  EXPECT_TRUE(find_outliers({200, 200, 400}).outliers.empty());
}

TEST(RobustStats, MinPeersPolicy) {
  OutlierPolicy policy;
  policy.min_peers = 4;
  EXPECT_TRUE(find_outliers({100, 100, 50}, policy).outliers.empty());
  EXPECT_EQ(find_outliers({100, 100, 100, 50}, policy).outliers.size(), 1u);
}

TEST(RobustStats, ZeroMedianGivesInfiniteGap) {
  OutlierPolicy errors;
  errors.worse = WorseSide::higher;
  const OutlierReport report = find_outliers({0, 0, 0, 0, 5}, errors);
  ASSERT_EQ(report.outliers.size(), 1u);
  EXPECT_TRUE(std::isinf(report.outliers[0].relative_gap));
}

}  // namespace
}  // namespace fabcheck
