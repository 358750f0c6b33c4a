// coll.node_pairs' judge over records as the probe writes them: a slow node named by its host, a
// slow link as "A--B", nothing for a healthy cluster, and the profile's pair_min_gap.
#include <gtest/gtest.h>

#include "bench/coll/node_pairs.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

Measurement figure(const std::string& a, const std::string& b, double value, const char* pass) {
  Measurement m;
  m.probe = kNodePairsProbe;
  m.metric = "exchange_busbw";
  m.unit = "GB/s";
  m.host = std::min(a, b);
  m.peer = std::max(a, b);
  m.subject = link_subject(a, b);
  m.rank = -1;
  m.value = value;
  m.size_bytes = 4 << 20;
  m.params = {{"pass", pass}, {"operation", "exchange"}};
  return m;
}

// Four nodes: every pair at `healthy`, except the pairs `slow` names.
std::vector<Measurement> cluster(const std::vector<std::pair<std::string, std::string>>& slow) {
  const std::vector<std::string> nodes{"n0", "n1", "n2", "n3"};
  std::vector<Measurement> records;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (std::size_t b = a + 1; b < nodes.size(); ++b) {
      bool is_slow = false;
      for (const auto& [x, y] : slow) {
        is_slow = is_slow || (x == nodes[a] && y == nodes[b]) || (y == nodes[a] && x == nodes[b]);
      }
      records.push_back(figure(nodes[a], nodes[b], is_slow ? 0.05 : 1.2, "first"));
      // A smaller size, not the matrix figure: must be ignored.
      Measurement small = records.back();
      small.size_bytes = 65536;
      small.value = 0.01;
      records.push_back(small);
    }
  }
  return records;
}

TEST(NodePairsJudge, ASlowNodeIsNamedByItsHost) {
  auto records = cluster({{"n2", "n0"}, {"n2", "n1"}, {"n2", "n3"}});
  records.push_back(figure("n2", "n0", 0.04, "confirm"));
  const auto findings = judge_node_pairs(records, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "n2");
  EXPECT_EQ(findings[0].host, "n2");
  EXPECT_EQ(findings[0].size_bytes, 4u << 20);
  EXPECT_NEAR(*findings[0].expected, 0.6, 1e-9);  // half of the 1.2 GB/s reference
  EXPECT_NE(findings[0].message.find("node n2 is slow"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("n0 0.04"), std::string::npos) << findings[0].message;
}

TEST(NodePairsJudge, ASlowLinkIsNamedAsALinkAndNoNodeIsBlamed) {
  auto records = cluster({{"n3", "n1"}});
  for (const auto& [a, b, value] : std::vector<std::tuple<const char*, const char*, double>>{
           {"n1", "n3", 0.05}, {"n0", "n1", 1.1}, {"n2", "n3", 1.3}}) {
    records.push_back(figure(a, b, value, "confirm"));
  }
  const auto findings = judge_node_pairs(records, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "n1--n3");
  EXPECT_NE(findings[0].message.find("link n1--n3 is slow"), std::string::npos);
}

TEST(NodePairsJudge, AHealthyClusterRaisesNothing) {
  EXPECT_TRUE(judge_node_pairs(cluster({}), Profile{}).empty());
}

TEST(NodePairsJudge, ASuspectNotMeasuredAgainIsOnlyAWarning) {
  const auto findings = judge_node_pairs(cluster({{"n3", "n1"}}), Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].subject, "n1--n3");
}

TEST(NodePairsJudge, TheProfileSetsTheGap) {
  // 0.05 of 1.2 is 4 %: slow under any gap up to 0.95; a gap of 0.99 lets it pass.
  Profile lenient;
  lenient.node["pair_min_gap"] = "0.99";
  lenient.node_lines["pair_min_gap"] = 3;
  EXPECT_TRUE(judge_node_pairs(cluster({{"n3", "n1"}}), lenient).empty());
  Profile bad;
  bad.path = "cluster.toml";
  bad.node["pair_min_gap"] = "40%";
  bad.node_lines["pair_min_gap"] = 7;
  try {
    make_node_pairs_judge().validate(bad);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("cluster.toml:7"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("40%"), std::string::npos);
  }
}

TEST(NodePairsJudge, TheGapGivenToTheRunWinsOverTheProfile) {
  // The run was given --opt pairs.min_gap=0.99 (on its records): the slow link passes under it,
  // whatever the profile says; without it the profile's default gap names the link.
  auto records = cluster({{"n3", "n1"}});
  Profile strict;
  strict.node["pair_min_gap"] = "0.2";
  strict.node_lines["pair_min_gap"] = 3;
  ASSERT_FALSE(judge_node_pairs(records, strict).empty());
  for (Measurement& m : records) m.params[kPairMinGapParam] = "0.99";
  EXPECT_TRUE(judge_node_pairs(records, strict).empty());
  for (Measurement& m : records) m.params[kPairMinGapParam] = "2";
  EXPECT_THROW(judge_node_pairs(records, strict), ConfigError);
}

// The records of a run given --opt pairs.topology: n0, n1 under leaf0, n2, n3 under leaf1.
void with_leaves(std::vector<Measurement>& records) {
  auto leaf = [](const std::string& host) { return host < "n2" ? "leaf0" : "leaf1"; };
  for (Measurement& m : records) {
    m.params[kHostSwitchParam] = leaf(m.host);
    m.params[kPeerSwitchParam] = leaf(m.peer);
    m.params[kSwitchRouteParam] =
        leaf(m.host) == leaf(m.peer) ? leaf(m.host) : std::string("leaf0,spine,leaf1");
    m.params[kTopologyParam] = "/etc/slurm/topology.conf";
  }
}

TEST(NodePairsJudge, ASlowTrunkIsASwitchLinkThatDrainsNoNode) {
  auto records = cluster({{"n0", "n2"}, {"n0", "n3"}, {"n1", "n2"}, {"n1", "n3"}});
  records.push_back(figure("n0", "n2", 0.04, "confirm"));
  records.push_back(figure("n1", "n3", 0.05, "confirm"));
  with_leaves(records);
  const auto findings = judge_node_pairs(records, Profile{});
  ASSERT_EQ(findings.size(), 1u) << findings[0].message;
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "leaf0--leaf1");
  // Every node of both leaves: a finding about many nodes drains none (node_verdicts.hpp).
  EXPECT_EQ(findings[0].host, "n0,n1,n2,n3");
  EXPECT_NEAR(*findings[0].observed, 0.05, 1e-9);
  for (const char* part :
       {"between leaf0 (n0,n1) and leaf1 (n2,n3) is slow", "4 of 4 pairs",
        "n0--n2 0.04, n1--n3 0.05", "route leaf0 > spine > leaf1", "/etc/slurm/topology.conf"}) {
    EXPECT_NE(findings[0].message.find(part), std::string::npos)
        << part << ": " << findings[0].message;
  }
  EXPECT_NE(findings[0].remedy.find("drain no node"), std::string::npos);
}

TEST(NodePairsJudge, WithoutATopologyTheSameShapeIsAWarningAboutInferredGroups) {
  auto records = cluster({{"n0", "n2"}, {"n0", "n3"}, {"n1", "n2"}, {"n1", "n3"}});
  records.push_back(figure("n0", "n2", 0.04, "confirm"));
  records.push_back(figure("n1", "n3", 0.05, "confirm"));
  const auto findings = judge_node_pairs(records, Profile{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].subject, "group 1--group 2");
  EXPECT_NE(findings[0].message.find("groups inferred from the matrix"), std::string::npos)
      << findings[0].message;
}

TEST(NodePairsOptions, ScheduleAndGapAreChecked) {
  RunOptions options;
  EXPECT_EQ(pair_schedule_from(options), PairSchedule::all);
  options.extra["pairs"] = "quick";
  EXPECT_EQ(pair_schedule_from(options), PairSchedule::quick);
  options.extra["pairs"] = "some";
  EXPECT_THROW(pair_schedule_from(options), ConfigError);
  options.extra["pairs.min_gap"] = "1.5";
  EXPECT_THROW(localisation_rule_from(options), ConfigError);
  options.extra["pairs.min_gap"] = "0.25";
  EXPECT_DOUBLE_EQ(localisation_rule_from(options).min_gap, 0.25);
}

}  // namespace
}  // namespace fabcheck
