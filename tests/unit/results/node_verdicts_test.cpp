// Tests of the per-node answers: a verdict per node from the findings naming it alone, drain for a
// FAIL with the finding as reason, hold for an unfinished run, nothing for a figure across nodes,
// reasons a scheduler can take as one argument, and the operator's action in a FAIL's remedy.
#include "results/node_verdicts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <random>

namespace fabcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Finding finding(Severity severity, const std::string& host, const std::string& message) {
  Finding f;
  f.severity = severity;
  f.probe = "fabric.pcie_links";
  f.host = host;
  f.message = message;
  f.remedy = "reseat the card";
  return f;
}

TEST(NodeVerdicts, EachNodeIsJudgedByTheFindingsThatNameItAlone) {
  const std::vector<Finding> findings = {
      finding(Severity::pass, "node01", "ok"),
      finding(Severity::warn, "node01", "a bit slow"),
      finding(Severity::fail, "node07", "GPU 3 (0000:9a:00.0) at Gen4 x8 (max Gen5 x16)"),
      finding(Severity::fail, "node07", "GPU 5 (0000:bb:00.0) at Gen5 x8"),
      finding(Severity::pass, "node07", "ok"),
      finding(Severity::fail, "node01,node07", "all_reduce busbw 20 GB/s below 300"),
  };
  const auto nodes = node_verdicts(findings, {"node01", "node07", "node09"}, false);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].host, "node01");
  EXPECT_EQ(nodes[0].verdict, Verdict::warn);  // the across-nodes FAIL is nobody's alone
  EXPECT_EQ(nodes[1].verdict, Verdict::fail);
  EXPECT_EQ(nodes[1].counts.at(Severity::fail), 2);
  EXPECT_EQ(nodes[1].counts.at(Severity::pass), 1);
  ASSERT_EQ(nodes[1].findings.size(), 2u);
  EXPECT_EQ(nodes[1].findings[0], 2u);
  EXPECT_EQ(nodes[2].verdict, Verdict::pass);  // measured nothing wrong
  EXPECT_EQ(nodes[2].counts.at(Severity::error), 0);

  const auto actions = node_actions(nodes, findings, "");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].host, "node07");
  EXPECT_EQ(actions[0].action, "drain");
  EXPECT_EQ(actions[0].reason,
            "fabcheck: GPU 3 (0000:9a:00.0) at Gen4 x8 (max Gen5 x16) (+1 more)");

  const auto json = node_answers_json(nodes, actions, findings);
  EXPECT_EQ(json["drain"].size(), 1u);
  EXPECT_EQ(json["drain"][0]["host"], "node07");
  EXPECT_EQ(json["hold"].size(), 0u);
  ASSERT_EQ(json["across_nodes"].size(), 1u);
  EXPECT_EQ(json["across_nodes"][0]["hosts"], "node01,node07");
  EXPECT_EQ(json["nodes"][1]["verdict"], "fail");
  EXPECT_EQ(json["nodes"][1]["worst"].size(), 2u);
  EXPECT_EQ(json["nodes"][0]["counts"]["warn"], 1);
}

TEST(NodeVerdicts, AnUnfinishedRunHoldsEveryNodeWithoutAFailAndDrainsTheOnesWithOne) {
  const std::vector<Finding> findings = {
      finding(Severity::fail, "node02", "port mlx5_1/1 down"),
      finding(Severity::pass, "node03", "ok"),
  };
  const auto nodes = node_verdicts(findings, {"node02", "node03"}, true);
  EXPECT_EQ(nodes[0].verdict, Verdict::fail);
  EXPECT_EQ(nodes[1].verdict, Verdict::incomplete);
  const auto actions = node_actions(nodes, findings, "probe coll.all_reduce timed out on rank 1");
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0].action, "drain");
  EXPECT_EQ(actions[1].action, "hold");
  EXPECT_EQ(actions[1].reason, "fabcheck: incomplete: probe coll.all_reduce timed out on rank 1");
}

TEST(NodeVerdicts, AnErrorOnOneNodeHoldsThatNodeOnly) {
  const std::vector<Finding> findings = {finding(Severity::error, "node04", "ibstat hung"),
                                         finding(Severity::pass, "node05", "ok")};
  const auto nodes = node_verdicts(findings, {"node04", "node05"}, false);
  const auto actions = node_actions(nodes, findings, "");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].host, "node04");
  EXPECT_EQ(actions[0].action, "hold");
  EXPECT_EQ(actions[0].reason, "fabcheck: incomplete: ibstat hung");
}

TEST(NodeVerdicts, ReasonsAreOnePrintableBoundedArgument) {
  EXPECT_EQ(scheduler_reason("line\nbreak \"quoted\" 'single' back\\slash\t"),
            "fabcheck: line break `quoted` `single` back`slash");
  EXPECT_EQ(scheduler_reason("in step \"probe coll.all_reduce\"  (x)  "),
            "fabcheck: in step `probe coll.all_reduce` (x)");
  const std::string long_text(500, 'x');
  const std::string reason = scheduler_reason(long_text, 50);
  EXPECT_EQ(reason.size(), 50u);
  EXPECT_THAT(reason, StartsWith("fabcheck: xxx"));
  EXPECT_EQ(reason.substr(47), "...");
  // Never cut inside a UTF-8 character: "é" is two bytes.
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xC3\xA9";
  const std::string cut = scheduler_reason(accents, 20);
  EXPECT_LE(cut.size(), 20u);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  const std::string body = cut.substr(10, cut.size() - 13);
  EXPECT_EQ(body.size() % 2, 0u) << cut;
  // Invalid bytes become U+FFFD rather than reaching the scheduler.
  EXPECT_THAT(scheduler_reason("bad\xff"), HasSubstr("\xEF\xBF\xBD"));
}

TEST(NodeVerdicts, AFailNamingOneNodeCarriesTheOperatorsActionFirst) {
  const std::vector<std::string> kHosts = {"node07"};
  const Finding one = finding(Severity::fail, "node07", "GPU 3 (0000:9a:00.0) at Gen4 x8");
  EXPECT_EQ(remedy_with_operator_action(one, kHosts),
            "drain node07: GPU 3 (0000:9a:00.0) at Gen4 x8; then reseat the card");
  Finding bare = one;
  bare.remedy.clear();
  EXPECT_EQ(remedy_with_operator_action(bare, kHosts),
            "drain node07: GPU 3 (0000:9a:00.0) at Gen4 x8");
  // Across nodes, or not a FAIL: the remedy stays as it was.
  EXPECT_EQ(remedy_with_operator_action(finding(Severity::fail, "a,b", "slow"), {"a", "b"}),
            "reseat the card");
  EXPECT_EQ(remedy_with_operator_action(finding(Severity::warn, "node07", "slow"), kHosts),
            "reseat the card");
}

// A node whose name holds a comma is one node of the run: its FAIL drains it (it used to be read as
// "across nodes" and drained nobody); a figure across two hosts, one of them that node, is still
// across nodes.
TEST(NodeVerdicts, AHostWhoseNameHoldsACommaIsOneNode) {
  const std::vector<std::string> hosts = {"gpu,07", "gpu08"};
  const std::vector<Finding> findings = {
      finding(Severity::fail, "gpu,07", "GPU 3 (0000:9a:00.0) at Gen4 x8"),
      finding(Severity::fail, "gpu,07,gpu08", "all_reduce busbw 20 GB/s below 300"),
  };
  EXPECT_TRUE(names_one_node(findings[0], hosts));
  EXPECT_FALSE(names_one_node(findings[1], hosts));
  EXPECT_EQ(hosts_named(findings[1], hosts), hosts);
  const auto nodes = node_verdicts(findings, hosts, false);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].host, "gpu,07");
  EXPECT_EQ(nodes[0].verdict, Verdict::fail);
  const auto actions = node_actions(nodes, findings, "");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].host, "gpu,07");
  EXPECT_EQ(actions[0].action, "drain");
  EXPECT_EQ(remedy_with_operator_action(findings[0], hosts),
            "drain gpu,07: GPU 3 (0000:9a:00.0) at Gen4 x8; then reseat the card");
  const auto json = node_answers_json(nodes, actions, findings);
  ASSERT_EQ(json["drain"].size(), 1u);
  EXPECT_EQ(json["drain"][0]["host"], "gpu,07");
  EXPECT_EQ(json["across_nodes"].size(), 1u);
}

// Property: for random host lists (names with commas among them), a finding naming any one host of
// the list names one node, drained alone, and one naming a join of two or more of them names
// exactly those.
TEST(NodeVerdicts, OneNodeIsDecidedFromTheListOfHosts) {
  std::mt19937 random(14);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> hosts;
    const int count = 2 + static_cast<int>(random() % 5);
    for (int i = 0; i < count; ++i) {
      std::string name = "n" + std::to_string(round) + "x" + std::to_string(i);
      if (random() % 3 == 0) name += ",r" + std::to_string(random() % 4);
      hosts.push_back(name);
    }
    for (const std::string& host : hosts) {
      ASSERT_TRUE(names_one_node(finding(Severity::fail, host, "x"), hosts)) << host;
      ASSERT_EQ(node_actions(node_verdicts({finding(Severity::fail, host, "x")}, hosts, false),
                             {finding(Severity::fail, host, "x")}, "")
                    .size(),
                1u)
          << host;
    }
    // A join of two or more distinct hosts, in list order (as the world joins them).
    std::vector<std::string> some;
    for (const std::string& host : hosts)
      if (random() % 2 == 0) some.push_back(host);
    if (some.size() >= 2) {
      std::string joined;
      for (const std::string& host : some) joined += (joined.empty() ? "" : ",") + host;
      const Finding across = finding(Severity::fail, joined, "x");
      ASSERT_FALSE(names_one_node(across, hosts)) << joined;
      ASSERT_EQ(hosts_named(across, hosts), some) << joined;
    }
  }
}

}  // namespace
}  // namespace fabcheck
