// The repair of a FAIL from its probe's rules (results/repair.hpp): the metric patterns, the first
// rule deciding, the fallbacks, and the drain carrying the repair of its first FAIL.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "results/node_verdicts.hpp"
#include "results/repair.hpp"

namespace fabcheck {
namespace {

Finding fail(const std::string& probe, const std::string& metric, const std::string& host = "n1") {
  Finding finding;
  finding.severity = Severity::fail;
  finding.probe = probe;
  finding.metric = metric;
  finding.host = host;
  finding.message = probe + " " + metric;
  return finding;
}

TEST(Repair, MetricPatterns) {
  EXPECT_TRUE(repair_metric_matches("", "anything"));
  EXPECT_TRUE(repair_metric_matches("port_rate", "port_rate"));
  EXPECT_FALSE(repair_metric_matches("port_rate", "port_rate_x"));
  EXPECT_TRUE(repair_metric_matches("aer_*", "aer_fatal"));
  EXPECT_FALSE(repair_metric_matches("aer_*", "no_aer_fatal"));
  EXPECT_TRUE(repair_metric_matches("*_pending", "retired_pages_pending"));
  EXPECT_FALSE(repair_metric_matches("*_pending", "pending_rows"));
  EXPECT_TRUE(repair_metric_matches("*clock*", "sm_clock_end_mhz"));
  EXPECT_FALSE(repair_metric_matches("*clock*", "sm_clk"));
  EXPECT_FALSE(repair_metric_matches("*_pending", "_pendin"));
}

TEST(Repair, TheFirstMatchingRuleOfTheProbeDecides) {
  const RepairTable table = {
      {"fabric.ib_ports",
       {{"port_rate", "ib-port-slow", repair_action::replace_cable},
        {"", "ib-port-down", repair_action::replace_cable}}},
      {"gpu.gemm", {{"wrong_elements", "gpu-wrong-results", repair_action::rma}}}};
  Repair repair = repair_of(fail("fabric.ib_ports", "port_rate"), table);
  EXPECT_EQ(repair.code, "ib-port-slow");
  EXPECT_EQ(repair.action, "replace-cable");
  repair = repair_of(fail("fabric.ib_ports", "port_active"), table);
  EXPECT_EQ(repair.code, "ib-port-down");
  repair = repair_of(fail("gpu.gemm", "bf16_tflops"), table);  // no rule of the probe matches
  EXPECT_EQ(repair.code, "unclassified");
  EXPECT_EQ(repair.action, "inspect");
  repair = repair_of(fail("gpu.other", "wrong_elements"), table);  // another probe's rule: not it
  EXPECT_EQ(repair.code, "unclassified");
  EXPECT_EQ(repair_of_incomplete().code, "incomplete");
  EXPECT_EQ(repair_of_incomplete().action, "rerun");
}

TEST(Repair, ADrainCarriesTheRepairOfItsFirstFailAndAHoldRerun) {
  const RepairTable table = {
      {"fabric.pcie_links", {{"", "pcie-link-degraded", repair_action::reseat}}},
      {"coll.all_reduce", {{"", "collective-slow", repair_action::inspect}}}};
  const std::vector<std::string> hosts = {"n1", "n2"};
  const std::vector<Finding> findings = {fail("fabric.pcie_links", "gpu_link_width", "n1"),
                                         fail("coll.all_reduce", "busbw", "n1")};
  const auto nodes = node_verdicts(findings, hosts, false);
  const auto actions = node_actions(nodes, findings, "", table);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].host, "n1");
  EXPECT_EQ(actions[0].code, "pcie-link-degraded");
  EXPECT_EQ(actions[0].repair, "reseat");
  const auto json = node_answers_json(nodes, actions, findings);
  EXPECT_EQ(json.at("drain").at(0).at("code"), "pcie-link-degraded");
  EXPECT_EQ(json.at("drain").at(0).at("repair"), "reseat");

  const auto held = node_actions(node_verdicts({}, hosts, true), {}, "rank 1 (n2) stopped", table);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[1].action, "hold");
  EXPECT_EQ(held[1].code, "incomplete");
  EXPECT_EQ(held[1].repair, "rerun");
}

}  // namespace
}  // namespace fabcheck
