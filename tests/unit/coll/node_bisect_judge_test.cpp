// coll.node_bisect's judge on records written as its probe writes them (tests/doubles/
// bisect_records.hpp, synthetic fabrics): nothing for a healthy world, a FAIL for a slow node, a
// FAIL for a slow link that drains neither, a WARN for a slow path between halves that drains
// none, a WARN when the records end early, and the run's gap read from its records.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "bench/coll/node_bisect.hpp"
#include "tests/doubles/bisect_records.hpp"

namespace fabcheck {
namespace {

std::vector<std::string> names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("nb" + std::to_string(i));
  return out;
}

// A group's figure: 10 GB/s, 2 when it holds `slow`, or when its ring crosses from below `split`
// to above, or joins `link_a` and `link_b` as neighbours.
std::function<double(const BisectGroup&)> fabric(int slow, int split = 0, int link_a = -1,
                                                 int link_b = -1) {
  return [=](const BisectGroup& group) {
    const auto& m = group.members;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const int a = m[i];
      const int b = m[(i + 1) % m.size()];
      if (a == slow) return 2.0;
      if (split > 0 && (a < split) != (b < split)) return 2.0;
      if ((a == link_a && b == link_b) || (a == link_b && b == link_a)) return 2.0;
    }
    return 10.0;
  };
}

TEST(NodeBisectJudge, HealthyWorldRaisesNothing) {
  const auto records = synthetic::bisect_records(names(8), fabric(-1));
  EXPECT_EQ(records.size(), 6u);  // world and two halves, busbw and time each
  for (const auto& f : judge_node_bisect(records, Profile{})) ADD_FAILURE() << f.message;
}

TEST(NodeBisectJudge, SlowNodeIsAFailOnItsHost) {
  const auto findings =
      judge_node_bisect(synthetic::bisect_records(names(8), fabric(5)), Profile{});
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_EQ(f.probe, kNodeBisectProbe);
  EXPECT_EQ(f.subject, "nb5");
  EXPECT_EQ(f.host, "nb5");
  EXPECT_DOUBLE_EQ(*f.observed, 2.0);
  EXPECT_DOUBLE_EQ(*f.expected, 5.0);  // (1 - 0.5) x the step's fastest group, 10
  EXPECT_EQ(*f.size_bytes, 4u << 20);
  EXPECT_NE(f.message.find("known-good node nb1"), std::string::npos) << f.message;
  // The chain: the world, the half, the quarter, the partner pair.
  EXPECT_NE(f.evidence.find("step 0 world nb0..nb7: 2 GB/s slow"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("step 1 half nb4..nb7: 2 GB/s slow"), std::string::npos);
  EXPECT_NE(f.evidence.find("step 2 half nb4,nb5: 2 GB/s slow"), std::string::npos);
  EXPECT_NE(f.evidence.find("step 3 partner nb1,nb5: 2 GB/s slow"), std::string::npos);
}

TEST(NodeBisectJudge, SlowLinkIsAFailThatNamesBothEnds) {
  const auto findings =
      judge_node_bisect(synthetic::bisect_records(names(8), fabric(-1, 0, 4, 5)), Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "nb4--nb5");
  EXPECT_EQ(findings[0].host, "nb4,nb5");
  EXPECT_NE(findings[0].evidence.find("repeat nb4,nb5: 2 GB/s slow"), std::string::npos);
}

TEST(NodeBisectJudge, SlowPathBetweenHalvesIsAWarnOnEveryNode) {
  const auto findings =
      judge_node_bisect(synthetic::bisect_records(names(4), fabric(-1, 2)), Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].subject, "nb0,nb1--nb2,nb3");
  EXPECT_EQ(findings[0].host, "nb0,nb1,nb2,nb3");
  EXPECT_NE(findings[0].message.find("no node"), std::string::npos);
}

TEST(NodeBisectJudge, RecordsEndingEarlyAreAWarnNeverAPass) {
  auto records = synthetic::bisect_records(names(8), fabric(5));
  // Drop the last step (the partner pairs): the slow node is not named, and the judge says why.
  std::erase_if(records, [](const Measurement& m) { return param_of(m, kBisectStepParam) == "3"; });
  const auto findings = judge_node_bisect(records, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].subject, "bisection");
  EXPECT_NE(findings[0].message.find("no figure for step 3 group 0"), std::string::npos)
      << findings[0].message;
}

TEST(NodeBisectJudge, AFailedGroupNamesItsNode) {
  auto figure = [](const BisectGroup& group) {
    for (const int node : group.members) {
      if (node == 6) return std::nan("");
    }
    return 10.0;
  };
  const auto findings = judge_node_bisect(synthetic::bisect_records(names(8), figure), Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].host, "nb6");
}

TEST(NodeBisectJudge, TheRunsGapOnItsRecordsDecides) {
  // Half nb4..nb7 at 6 GB/s against 10: fast at gap 0.5 (slow below 5), slow at 0.3 (below 7).
  auto figure = [](const BisectGroup& group) {
    for (const int node : group.members) {
      if (node == 7) return 6.0;
    }
    return 10.0;
  };
  EXPECT_TRUE(judge_node_bisect(synthetic::bisect_records(names(8), figure), Profile{}).empty());
  auto records = synthetic::bisect_records(names(8), figure, 0.3);
  for (auto& m : records) m.params["min_gap"] = "0.3";
  const auto findings = judge_node_bisect(records, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].host, "nb7");
  EXPECT_DOUBLE_EQ(*findings[0].expected, 7.0);
}

}  // namespace
}  // namespace fabcheck
