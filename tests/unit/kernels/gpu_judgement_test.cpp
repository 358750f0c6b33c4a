// The GPU node rules on recorded measurement sets of an 8x H100 node (tests/fixtures/gpu/): each
// fault flagged on the right GPU with the right severity, a healthy node flagging nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/sys/config_error.hpp"
#include "kernels/gpu_judgement.hpp"
#include "kernels/gpu_node_record.hpp"
#include "results/record_json.hpp"

namespace fabcheck {
namespace {

std::vector<Measurement> load_set(const std::string& name) {
  const std::string path = std::string(FABCHECK_FIXTURES_DIR) + "/gpu/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<Measurement> measurements;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    measurements.push_back(
        measurement_from_json(nlohmann::json::parse(line), path + ":" + std::to_string(number)));
  }
  return measurements;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings)
    out += std::string(to_string(f.severity)) + " " + f.message + "\n";
  return out;
}

// The set has one fault: exactly the expected findings, all on `subject`.
void expect_only(const std::vector<Finding>& findings, const std::string& subject,
                 const std::vector<std::pair<std::string, Severity>>& metrics) {
  ASSERT_EQ(findings.size(), metrics.size()) << describe(findings);
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    EXPECT_EQ(findings[i].subject, subject) << describe(findings);
    EXPECT_EQ(findings[i].metric, metrics[i].first) << describe(findings);
    EXPECT_EQ(findings[i].severity, metrics[i].second) << describe(findings);
    EXPECT_EQ(findings[i].host, "gpu-node-a");
    EXPECT_FALSE(findings[i].evidence.empty());
    EXPECT_FALSE(findings[i].remedy.empty());
  }
}

TEST(GpuNodeRecord, GroupsTheSetByHostAndGpu) {
  const auto nodes = gpu_nodes_from_measurements(load_set("healthy.jsonl"));
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].host, "gpu-node-a");
  ASSERT_EQ(nodes[0].gpus.size(), 8u);
  const GpuRecord& gpu5 = nodes[0].gpus[5];
  EXPECT_EQ(gpu5.index, 5);
  EXPECT_EQ(gpu5.bus_id, "0000:ab:00.0");
  EXPECT_EQ(gpu5.describe(), "gpu5 (0000:ab:00.0)");
  ASSERT_TRUE(gpu5.idle && gpu5.load);
  EXPECT_EQ(gpu5.idle->pcie_gen, 1);
  EXPECT_EQ(gpu5.load->pcie_gen, 5);
  EXPECT_DOUBLE_EQ(gpu5.performance.at("gpu.gemm/bf16_tflops"), 654.7);  // 662 x 0.989
}

TEST(GpuJudgement, HealthyNodeFlagsNothing) {
  // Its GPUs idle at PCIe Gen1 (power saving) and run at Gen5 under load: no finding.
  const auto findings = judge_gpu_measurements(load_set("healthy.jsonl"));
  EXPECT_TRUE(findings.empty()) << describe(findings);
}

TEST(GpuJudgement, IdleLoweredLinkGenerationAloneIsNotAFailure) {
  std::vector<Measurement> idle_only;
  for (const Measurement& m : load_set("healthy.jsonl")) {
    if (m.probe == "gpu.health") idle_only.push_back(m);
  }
  const auto nodes = gpu_nodes_from_measurements(idle_only);
  ASSERT_EQ(nodes.size(), 1u);
  ASSERT_TRUE(nodes[0].gpus[0].idle);
  EXPECT_EQ(nodes[0].gpus[0].idle->pcie_gen, 1);
  EXPECT_EQ(nodes[0].gpus[0].idle->pcie_gen_max, 5);
  const auto findings = judge_gpu_node(nodes[0]);
  EXPECT_TRUE(findings.empty()) << describe(findings);
}

TEST(GpuJudgement, OneGpuTwelvePercentSlowAmongEightFails) {
  const auto findings = judge_gpu_measurements(load_set("slow_gpu.jsonl"));
  expect_only(findings, "gpu5", {{"bf16_tflops", Severity::fail}});
  const Finding& slow = findings[0];
  EXPECT_EQ(slow.probe, "gpu.gemm");
  EXPECT_EQ(slow.unit, "TFLOP/s");
  // 0.88 x the median of the eight figures, (660.7 + 662.0) / 2 = 661.35, is 582.0.
  EXPECT_DOUBLE_EQ(*slow.observed, 582.0);
  const double median = (660.7 + 662.0) / 2;
  EXPECT_NEAR(*slow.expected, median * 0.95, 1e-9);
  EXPECT_NEAR(*slow.warn_at, median * 0.90, 1e-9);
  EXPECT_NE(slow.message.find("gpu5 (0000:ab:00.0) on gpu-node-a"), std::string::npos)
      << slow.message;
  EXPECT_NE(slow.message.find("is 12.0% below the node median"), std::string::npos) << slow.message;
}

TEST(GpuJudgement, SixPercentSlowWarnsAndFourPercentPasses) {
  auto set = load_set("healthy.jsonl");
  for (Measurement& m : set) {
    if (m.metric == "bf16_tflops" && m.subject == "gpu1") m.value = 661.4 * 0.94;
    if (m.metric == "bf16_tflops" && m.subject == "gpu2") m.value = 661.4 * 0.96;
  }
  const auto findings = judge_gpu_measurements(set);
  expect_only(findings, "gpu1", {{"bf16_tflops", Severity::warn}});
}

// Only these GPUs' records: a node with fewer GPUs.
std::vector<Measurement> only_gpus(const std::vector<Measurement>& set,
                                   const std::vector<std::string>& subjects) {
  std::vector<Measurement> out;
  for (const Measurement& m : set) {
    if (std::find(subjects.begin(), subjects.end(), m.subject) != subjects.end()) out.push_back(m);
  }
  return out;
}

TEST(GpuJudgement, PeerCountsOneTwoThree) {
  auto set = load_set("healthy.jsonl");
  for (Measurement& m : set) {
    if (m.metric == "bf16_tflops" && m.subject == "gpu1") m.value = 661.4 * 0.80;
  }
  // One GPU: no peers, nothing to say.
  EXPECT_TRUE(judge_gpu_measurements(only_gpus(set, {"gpu1"})).empty());
  // Two: the slower one is named, but only as a WARN (two cannot tell which is wrong).
  const auto two = judge_gpu_measurements(only_gpus(set, {"gpu0", "gpu1"}));
  expect_only(two, "gpu1", {{"bf16_tflops", Severity::warn}});
  EXPECT_NE(two[0].message.find("below the other GPU's"), std::string::npos) << two[0].message;
  // Three: the median of the other two says it is slow.
  expect_only(judge_gpu_measurements(only_gpus(set, {"gpu0", "gpu1", "gpu2"})), "gpu1",
              {{"bf16_tflops", Severity::fail}});
}

TEST(GpuJudgement, HotGpuWithThermalThrottleFails) {
  const auto findings = judge_gpu_measurements(load_set("hot_throttled.jsonl"));
  // Its SM clock under load is 11% below its peers' too: both name gpu2.
  expect_only(findings, "gpu2",
              {{"sm_clock_mhz", Severity::fail}, {"clock_event_reasons", Severity::fail}});
  const Finding& hot = findings[1];
  EXPECT_EQ(hot.probe, "gpu.gemm");
  EXPECT_NE(hot.message.find("gpu2 (0000:3a:00.0)"), std::string::npos) << hot.message;
  EXPECT_NE(hot.message.find("thermal slowdown (thermal-sw,thermal-hw) at 87 C"), std::string::npos)
      << hot.message;
  EXPECT_NE(hot.evidence.find("temperature 87 C"), std::string::npos) << hot.evidence;
}

TEST(GpuJudgement, HotWithoutThrottleOnlyWarns) {
  auto set = load_set("healthy.jsonl");
  for (Measurement& m : set) {
    if (m.metric == "temperature_c" && m.subject == "gpu7" && m.params["phase"] == "load") {
      m.value = 86;
    }
  }
  expect_only(judge_gpu_measurements(set), "gpu7", {{"temperature_c", Severity::warn}});
}

TEST(GpuJudgement, Gen4UnderLoadWhereGen5IsMaxFails) {
  const auto findings = judge_gpu_measurements(load_set("pcie_gen4_under_load.jsonl"));
  expect_only(findings, "gpu6", {{"pcie_gen", Severity::fail}});
  EXPECT_EQ(*findings[0].observed, 4);
  EXPECT_EQ(*findings[0].expected, 5);
  EXPECT_NE(findings[0].message.find("gpu6 (0000:ba:00.0) on gpu-node-a: PCIe link downtrained "
                                     "under load: Gen4 x16 where Gen5 x16 is max"),
            std::string::npos)
      << findings[0].message;
}

TEST(GpuJudgement, InactiveNvlinkFails) {
  const auto findings = judge_gpu_measurements(load_set("nvlink_inactive.jsonl"));
  expect_only(findings, "gpu3", {{"nvlink_inactive", Severity::fail}});
  EXPECT_NE(findings[0].message.find("gpu3 (0000:5d:00.0) on gpu-node-a: 17 of 18 NVLink links "
                                     "active (inactive: link 7)"),
            std::string::npos)
      << findings[0].message;
}

TEST(GpuJudgement, StrangerHolding30GbFails) {
  const auto findings = judge_gpu_measurements(load_set("foreign_memory.jsonl"));
  expect_only(findings, "gpu1", {{"foreign_memory_gb", Severity::fail}});
  EXPECT_EQ(*findings[0].observed, 30.0);
  EXPECT_NE(findings[0].message.find("30.0 GB of GPU memory already held by other processes "
                                     "(48211:30.0GB)"),
            std::string::npos)
      << findings[0].message;
}

TEST(GpuJudgement, RowRemapPendingFails) {
  const auto findings = judge_gpu_measurements(load_set("row_remap_pending.jsonl"));
  expect_only(findings, "gpu4", {{"remapped_rows_pending", Severity::fail}});
  EXPECT_NE(findings[0].message.find("gpu4 (0000:9a:00.0) on gpu-node-a: row remap pending"),
            std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].remedy.find("reset the GPU"), std::string::npos);
}

TEST(GpuJudgement, UncorrectableEccAndRemapFailureFail) {
  auto set = load_set("healthy.jsonl");
  for (Measurement& m : set) {
    if (m.subject != "gpu0" || m.params["phase"] != "idle") continue;
    if (m.metric == "ecc_uncorrected_volatile") m.value = 3;
    if (m.metric == "row_remap_failure") m.value = 1;
  }
  expect_only(
      judge_gpu_measurements(set), "gpu0",
      {{"ecc_uncorrected_volatile", Severity::fail}, {"row_remap_failure", Severity::fail}});
}

TEST(GpuJudgement, NodesAreJudgedApartFromEachOther) {
  // A second, uniformly slower node (A100-like figures) does not make the first one's GPUs slow.
  auto set = load_set("healthy.jsonl");
  const std::size_t first = set.size();
  for (std::size_t i = 0; i < first; ++i) {
    Measurement other = set[i];
    other.host = "gpu-node-b";
    if (other.metric == "bf16_tflops") other.value *= 0.45;
    set.push_back(other);
  }
  EXPECT_TRUE(judge_gpu_measurements(set).empty());
}

// A node of `gpus` GPUs with `links` NVLinks each, `active` of them active (idle reading).
GpuNodeRecord nvlink_node(int gpus, int links, const std::vector<int>& active) {
  GpuNodeRecord node;
  node.host = "node-a";
  for (int g = 0; g < gpus; ++g) {
    GpuRecord gpu;
    gpu.index = g;
    gpu.bus_id = "0000:1" + std::to_string(g) + ":00.0";
    GpuTelemetry t;
    t.index = g;
    t.nvlink_links = links;
    for (int link = active[static_cast<std::size_t>(g)]; link < links; ++link) {
      t.nvlink_inactive.push_back(link);
    }
    gpu.idle = t;
    node.gpus.push_back(gpu);
  }
  return node;
}

// Defect 6: a GPU with no NVLink in use (a one-GPU slice, a PCIe card, a VM) reports every link
// inactive; that is no fault unless the profile says the node has NVLink, or its peers' links are
// up.
TEST(GpuJudgementNvlink, AllLinksDownWithNoPeerUpAndNoProfileIsNoFinding) {
  EXPECT_TRUE(judge_gpu_node(nvlink_node(1, 18, {0})).empty());
  EXPECT_TRUE(judge_gpu_node(nvlink_node(2, 12, {0, 0})).empty());
}

TEST(GpuJudgementNvlink, AllLinksDownWhereTheProfileExpectsNvlinkFails) {
  GpuJudgementPolicy policy;
  policy.expected_nvlinks = 18;
  const auto findings = judge_gpu_node(nvlink_node(1, 18, {0}), policy);
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_NE(findings[0].message.find("0 of 18 NVLink links active"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("the profile expects 18 active (gpu_nvlinks)"),
            std::string::npos)
      << findings[0].message;
}

TEST(GpuJudgementNvlink, SomeLinksDownWhileOthersAreUpFails) {
  const auto findings = judge_gpu_node(nvlink_node(2, 18, {18, 12}));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].subject, "gpu1");
  EXPECT_NE(findings[0].message.find("12 of 18 NVLink links active"), std::string::npos);
}

TEST(GpuJudgementNvlink, OneGpuWithEveryLinkDownAmongPeersWithLinksUpFails) {
  const auto findings = judge_gpu_node(nvlink_node(4, 18, {18, 18, 0, 18}));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].subject, "gpu2");
  EXPECT_NE(findings[0].message.find("3 other GPU(s) of this node have active links"),
            std::string::npos)
      << findings[0].message;
}

TEST(GpuJudgementNvlink, EveryLinkUpAsTheProfileExpectsIsNoFinding) {
  GpuJudgementPolicy policy;
  policy.expected_nvlinks = 18;
  EXPECT_TRUE(judge_gpu_node(nvlink_node(2, 18, {18, 18}), policy).empty());
}

TEST(GpuJudgementNvlink, TheProfilesGpuNvlinksIsReadAndCheckedWithFileAndLine) {
  Profile profile;
  profile.path = "h.toml";
  EXPECT_FALSE(gpu_policy_from(profile).expected_nvlinks.has_value());
  profile.node["gpu_nvlinks"] = "18";
  profile.node_lines["gpu_nvlinks"] = 9;
  EXPECT_EQ(gpu_policy_from(profile).expected_nvlinks, 18);
  profile.node["gpu_nvlinks"] = "eighteen";
  try {
    gpu_policy_from(profile);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "h.toml:9: [node] gpu_nvlinks = \"eighteen\": expected a whole number 0..64");
  }
  EXPECT_EQ(gpu_node_settings().count("gpu_nvlinks"), 1u);
}

}  // namespace
}  // namespace fabcheck
