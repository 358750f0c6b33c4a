// Findings from the recorded sysfs trees: the healthy node flags nothing, each defect is named.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench/sys/config_error.hpp"
#include "fabric/commands.hpp"
#include "fabric/fabric_judge.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/register.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

std::string tree(const std::string& name) {
  return std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/" + name;
}

FabricExpectations h100_node() {
  FabricExpectations e;
  e.gpu = {5, 16};
  e.hca = {5, 16};
  e.nvme = {4, 4};
  e.ib_ports = 8;
  e.ib_rate_gbps = 400;
  return e;
}

std::vector<Finding> judge_tree(const std::string& name, const FabricExpectations& e) {
  auto measurements = pcie_link_measurements(read_pcie_links(tree(name)), false);
  auto ports = ib_port_measurements(read_ib_ports(tree(name)));
  measurements.insert(measurements.end(), ports.begin(), ports.end());
  return judge_fabric_measurements(measurements, e);
}

std::vector<Finding> problems(const std::vector<Finding>& findings) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out), [](const Finding& f) {
    return f.severity == Severity::fail || f.severity == Severity::warn ||
           f.severity == Severity::error;
  });
  return out;
}

const Finding* find(const std::vector<Finding>& findings, const std::string& subject,
                    const std::string& metric) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) {
    return f.subject == subject && f.metric == metric;
  });
  return it == findings.end() ? nullptr : &*it;
}

std::string run_inventory(const InventoryOptions& options, int& code) {
  std::FILE* out = std::tmpfile();
  code = inventory_command(options, out);
  std::rewind(out);
  std::string text;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, out)) > 0) text.append(buffer, n);
  std::fclose(out);
  return text;
}

TEST(FabricJudge, HealthyNodeFlagsNothing) {
  auto findings = judge_tree("healthy", h100_node());
  EXPECT_TRUE(problems(findings).empty()) << problems(findings).front().message;
  // The idle GPU is noted, not failed.
  const Finding* idle = find(findings, "0000:f8:00.0", "idle_link_gen_deficit");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->severity, Severity::pass);
  EXPECT_NE(idle->message.find("idle"), std::string::npos);
}

TEST(FabricJudge, GpuTrainedDownToGen4x8) {
  auto findings = judge_tree("degraded", h100_node());
  const Finding* gpu = find(findings, "0000:38:00.0", "link_width_deficit");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->severity, Severity::fail);
  EXPECT_EQ(gpu->observed, 8.0);  // lanes missing
  EXPECT_NE(gpu->message.find("gpu"), std::string::npos);
  EXPECT_NE(gpu->message.find("upstream port 0000:37:00.0"), std::string::npos);
  EXPECT_NE(gpu->message.find("Gen4 x8, max Gen5 x16"), std::string::npos);
}

TEST(FabricJudge, NvmeAtX2) {
  auto findings = judge_tree("degraded", h100_node());
  const Finding* nvme = find(findings, "0000:0b:00.0", "link_width_deficit");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->severity, Severity::fail);
  EXPECT_NE(nvme->message.find("nvme"), std::string::npos);
  EXPECT_NE(nvme->message.find("Gen4 x2, max Gen4 x4"), std::string::npos);
  EXPECT_NE(nvme->message.find("0000:00:03.1"), std::string::npos);
}

TEST(FabricJudge, HcaAt200WhereNdrIsExpected) {
  auto findings = judge_tree("degraded", h100_node());
  const Finding* rate = find(findings, "mlx5_2/1", "port_rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->severity, Severity::fail);
  EXPECT_EQ(rate->observed, 200.0);
  EXPECT_EQ(rate->expected, 400.0);
  EXPECT_NE(rate->message.find("200 Gb/sec (4X HDR)"), std::string::npos);
}

TEST(FabricJudge, PortDown) {
  auto findings = judge_tree("degraded", h100_node());
  const Finding* down = find(findings, "mlx5_5/1", "port_active");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->severity, Severity::fail);
  EXPECT_NE(down->message.find("1: DOWN"), std::string::npos);
  EXPECT_NE(down->message.find("3: Disabled"), std::string::npos);
  const Finding* count = find(findings, "node", "active_ports");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->observed, 7.0);
  EXPECT_EQ(count->expected, 8.0);
}

TEST(FabricJudge, SaturatedCounter) {
  auto findings = judge_tree("degraded", h100_node());
  const Finding* stuck = find(findings, "mlx5_6/1", "saturated_counters");
  ASSERT_NE(stuck, nullptr);
  EXPECT_EQ(stuck->severity, Severity::warn);
  EXPECT_NE(stuck->message.find("counters/link_downed stuck at its maximum 255"),
            std::string::npos);
}

TEST(FabricJudge, DegradedTreeHasExactlyTheseProblems) {
  auto found = problems(judge_tree("degraded", h100_node()));
  std::vector<std::string> keys;
  for (const auto& f : found) keys.push_back(f.subject + " " + f.metric);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"0000:0b:00.0 link_width_deficit",
                                            "0000:38:00.0 link_width_deficit", "mlx5_2/1 port_rate",
                                            "mlx5_5/1 port_active", "mlx5_6/1 saturated_counters",
                                            "node active_ports"}));
}

TEST(FabricJudge, SymbolErrorsGrowingBetweenSnapshots) {
  auto before = read_ib_counters(tree("counters-before"));
  auto after = read_ib_counters(tree("counters-after"));
  auto records = ib_counter_measurements(before, after, 60);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value, 32.0);
  EXPECT_EQ(records[0].params.at("counters/symbol_error"), "+32");
  auto findings = judge_fabric_measurements(records, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_NE(findings[0].message.find("counters/symbol_error +32"), std::string::npos);
  // The same snapshot twice: nothing grew.
  EXPECT_TRUE(judge_fabric_measurements(ib_counter_measurements(before, before, 60), {}).empty());
}

TEST(FabricJudge, NoRdmaDeviceIsWaivedUnlessPortsAreExpected) {
  auto records = ib_port_measurements({});
  FabricExpectations none;
  auto waived = judge_fabric_measurements(records, none);
  ASSERT_EQ(waived.size(), 1u);
  EXPECT_EQ(waived[0].severity, Severity::waived);
  EXPECT_NE(waived[0].message.find("no RDMA device"), std::string::npos);

  FabricExpectations eight;
  eight.ib_ports = 8;
  auto failed = judge_fabric_measurements(records, eight);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].severity, Severity::fail);
  EXPECT_NE(failed[0].message.find("no RDMA device on a node that expects 8"), std::string::npos);
}

TEST(FabricJudge, DeviceAtItsMaxBelowTheExpectedTier) {
  FabricExpectations e;
  e.nvme = {5, 4};  // Gen5 NVMe expected; the tree has Gen4 drives running at their max
  auto findings = problems(judge_tree("healthy", e));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].metric, "nvme_link_gen");
  EXPECT_EQ(findings[0].expected, 5.0);
}

// Defaults from siblings: no expectation given, the node's own ports and links set the bar.
TEST(FabricSiblings, HealthyNodeFlagsNothingWithoutExpectations) {
  auto findings = problems(judge_tree("healthy", {}));
  EXPECT_TRUE(findings.empty()) << findings.front().message;
}

TEST(FabricSiblings, HalfRatePortAmongSevenIsAFailWithoutAnyProfile) {
  auto findings = judge_tree("degraded", {});
  const Finding* rate = find(findings, "mlx5_2/1", "port_rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->severity, Severity::fail);
  EXPECT_EQ(rate->observed, 200.0);
  EXPECT_EQ(rate->expected, 400.0);
  EXPECT_NE(rate->message.find("50% below the 400 of its 6 sibling ports"), std::string::npos)
      << rate->message;  // mlx5_5 is down: not a sibling to compare rates with
  EXPECT_NE(rate->message.find("inferred from its siblings"), std::string::npos);
  EXPECT_NE(rate->source.find("inferred: median of 7 ports"), std::string::npos) << rate->source;
  // Everything else the degraded tree holds is found by the node's own rules, once each.
  std::vector<std::string> keys;
  for (const auto& f : problems(findings)) keys.push_back(f.subject + " " + f.metric);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"0000:0b:00.0 link_width_deficit",
                                      "0000:38:00.0 link_width_deficit", "mlx5_2/1 port_rate",
                                      "mlx5_5/1 port_active", "mlx5_6/1 saturated_counters"}));
}

TEST(FabricSiblings, ExplicitRateWins) {
  FabricExpectations hdr;
  hdr.ib_rate_gbps = 200;  // HDR nodes: 200 is what was asked for
  EXPECT_EQ(find(problems(judge_tree("degraded", hdr)), "mlx5_2/1", "port_rate"), nullptr);
}

std::vector<Measurement> gpu_links(const std::vector<std::pair<int, int>>& gen_width) {
  std::vector<PcieLinkState> links;
  for (std::size_t i = 0; i < gen_width.size(); ++i) {
    PcieLinkState link;
    link.bdf = "0000:" + std::to_string(18 + i * 32) + ":00.0";
    link.kind = PcieDeviceKind::gpu;
    link.vendor = "0x10de";
    link.device = "0x2330";
    const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
    link.current_gts = link.max_gts = gts[gen_width[i].first];
    link.current_width = link.max_width = gen_width[i].second;
    links.push_back(link);
  }
  auto measurements = pcie_link_measurements(links, true);
  for (auto& m : measurements) m.host = "node07";
  return measurements;
}

TEST(FabricSiblings, GpuAtGen4x8AmongGen5x16SiblingsFailsAtItsOwnMax) {
  // Its own max is Gen4 x8 (a riser or slot that only offers that): no deficit, but its siblings
  // say what the node should have.
  auto findings =
      problems(judge_fabric_measurements(gpu_links({{5, 16}, {5, 16}, {4, 8}, {5, 16}}), {}));
  std::vector<std::string> keys;
  for (const auto& f : findings) keys.push_back(f.subject + " " + f.metric);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"0000:82:00.0 gpu_link_gen", "0000:82:00.0 gpu_link_width"}));
  for (const auto& f : findings) {
    EXPECT_EQ(f.severity, Severity::fail);
    EXPECT_EQ(f.host, "node07");
    EXPECT_NE(f.message.find("3 sibling devices of the same model (gpu 0x10de:0x2330)"),
              std::string::npos)
        << f.message;
  }
  // An explicit tier wins: Gen4 x8 asked for, Gen4 x8 found.
  FabricExpectations gen4;
  gen4.gpu = {4, 8};
  EXPECT_TRUE(
      problems(judge_fabric_measurements(gpu_links({{5, 16}, {5, 16}, {4, 8}}), gen4)).empty());
  // Two siblings: the narrower one is named, as a WARN.
  auto pair = problems(judge_fabric_measurements(gpu_links({{5, 16}, {5, 8}}), {}));
  ASSERT_EQ(pair.size(), 1u);
  EXPECT_EQ(pair[0].severity, Severity::warn);
  // One device has no siblings.
  EXPECT_TRUE(problems(judge_fabric_measurements(gpu_links({{4, 8}}), {})).empty());
}

TEST(InventoryCommand, HalfRatePortFailsWithNoFlags) {
  InventoryOptions options;
  options.sysfs_root = tree("degraded");
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("FAIL   fabric.ib_ports mlx5_2/1: mlx5_2/1 port_rate 200 is 50% below"),
            std::string::npos)
      << text;
}

TEST(PcieExpectationOption, Parses) {
  auto full = parse_pcie_expectation("--expect-gpu-pcie", "5x16");
  EXPECT_EQ(full.gen, 5);
  EXPECT_EQ(full.width, 16);
  auto gen = parse_pcie_expectation("--expect-gpu-pcie", "Gen4");
  EXPECT_EQ(gen.gen, 4);
  EXPECT_EQ(gen.width, 0);
  auto width = parse_pcie_expectation("--expect-gpu-pcie", "x8");
  EXPECT_EQ(width.gen, 0);
  EXPECT_EQ(width.width, 8);
  for (const char* bad : {"", "7x16", "5x", "5x64", "fast"}) {
    try {
      parse_pcie_expectation("--expect-nvme-pcie", bad);
      ADD_FAILURE() << bad;
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("--expect-nvme-pcie"), std::string::npos);
    }
  }
}

TEST(InventoryCommand, HealthyTreePasses) {
  InventoryOptions options;
  options.sysfs_root = tree("healthy");
  options.expectations = h100_node();
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("0000:18:00.0  gpu   Gen5 x16 (max Gen5 x16)"), std::string::npos) << text;
  EXPECT_NE(text.find("RDMA ports (8)"), std::string::npos);
  EXPECT_NE(text.find("verdict: PASS (1 pass, 0 warn, 0 fail, 0 waived, 0 error); exit code 0"),
            std::string::npos)
      << text;
}

TEST(InventoryCommand, DegradedTreeFails) {
  InventoryOptions options;
  options.sysfs_root = tree("degraded");
  options.expectations = h100_node();
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("FAIL   fabric.ib_ports mlx5_5/1"), std::string::npos) << text;
}

// A value that is there but is not what sysfs holds (a width "banana", a rate "fast") was read as
// no value and the node passed. Now each is an ERROR naming the file, and the run is not a pass.
TEST(InventoryCommand, GarbageValuesAreNamedAndNeverPass) {
  namespace fs = std::filesystem;
  const fs::path copy =
      fs::temp_directory_path() / ("fabcheck-garbage-sysfs-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(tree("healthy"), copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path gpu = fs::canonical(copy / "sys/bus/pci/devices/0000:18:00.0");
  const fs::path port = fs::canonical(copy / "sys/class/infiniband/mlx5_0") / "ports/1";
  std::ofstream(gpu / "current_link_width") << "banana\n";
  std::ofstream(port / "rate") << "fast\n";
  InventoryOptions options;
  options.sysfs_root = copy.string();
  options.expectations = h100_node();
  int code = -1;
  const std::string text = run_inventory(options, code);
  fs::remove_all(copy);
  EXPECT_EQ(code, 3) << text;
  EXPECT_NE(text.find("current_link_width: holds \"banana\", not a link width"), std::string::npos)
      << text;
  EXPECT_NE(text.find("ports/1/rate: holds \"fast\", not a rate"), std::string::npos) << text;
  EXPECT_EQ(text.find("verdict: PASS"), std::string::npos) << text;
}

TEST(InventoryCommand, CounterSnapshots) {
  InventoryOptions options;
  options.sysfs_root = tree("counters-before");
  options.counters_after_root = tree("counters-after");
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 1) << text;
  EXPECT_NE(text.find("counters/symbol_error +32"), std::string::npos) << text;
}

TEST(InventoryCommand, NoRdmaDeviceExpectedFailsElseWaived) {
  InventoryOptions options;
  options.sysfs_root = tree("no-such-tree");
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("WAIVED"), std::string::npos);
  options.expectations.ib_ports = 8;
  run_inventory(options, code);
  EXPECT_EQ(code, 1);
}

TEST(FabricProfile, ExpectationsAsProfileEntries) {
  Registry registry;
  register_fabric_probes(registry);
  Profile profile =
      load_profile(std::string(FABCHECK_FIXTURES_DIR) + "/fabric/profiles/h100-ndr-fabric.toml",
                   registry.catalog());
  InventoryOptions options;
  options.sysfs_root = tree("degraded");
  options.profile = profile;
  int code = -1;
  std::string text = run_inventory(options, code);
  EXPECT_EQ(code, 1) << text;
  auto measurements = pcie_link_measurements(read_pcie_links(tree("degraded")), false);
  auto ports = ib_port_measurements(read_ib_ports(tree("degraded")));
  measurements.insert(measurements.end(), ports.begin(), ports.end());
  std::vector<std::string> failed;
  for (const auto& f : evaluate(measurements, profile)) {
    if (f.severity == Severity::fail) failed.push_back(f.subject + " " + f.metric);
  }
  std::sort(failed.begin(), failed.end());
  EXPECT_EQ(failed, (std::vector<std::string>{"0000:0b:00.0 link_width_deficit",
                                              "0000:38:00.0 link_width_deficit",
                                              "mlx5_2/1 port_rate", "node active_ports"}));
  options.sysfs_root = tree("healthy");
  run_inventory(options, code);
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace fabcheck

namespace fabcheck {
namespace {

TEST(FabricJudge, GrowthAroundAHeavyProbeNamesTheProbeCounterAndPort) {
  auto before = read_ib_counters(tree("counters-before"));
  auto after = read_ib_counters(tree("counters-after"));
  auto records = ib_counter_growth(before, after, 12.5);
  ASSERT_EQ(records.size(), 1u);
  records[0].params["during"] = "coll.all_reduce";  // as the runner tags it
  auto findings = judge_fabric_measurements(records, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "mlx5_0/1");
  EXPECT_NE(findings[0].message.find("during coll.all_reduce (12.5 s)"), std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("counters/symbol_error +32"), std::string::npos);
  // Nothing changed: no record at all (the run-long fabric.ib_counters still reports zeros).
  EXPECT_TRUE(ib_counter_growth(before, before, 1).empty());
}

TEST(FabricJudge, RoceCongestionCountersWarn) {
  std::map<std::string, CounterSnapshot> before = {
      {"mlx5_2/1",
       {{"hw_counters/np_ecn_marked_roce_packets", 100},
        {"hw_counters/rp_cnp_handled", 7},
        {"hw_counters/out_of_sequence", 0},
        {"counters/port_xmit_data", 5}}},
      {"mlx5_3/1", {{"hw_counters/np_ecn_marked_roce_packets", 0}}}};
  auto after = before;
  after["mlx5_2/1"]["hw_counters/np_ecn_marked_roce_packets"] = 4100;
  after["mlx5_2/1"]["hw_counters/rp_cnp_handled"] = 57;
  after["mlx5_2/1"]["hw_counters/out_of_sequence"] = 3;
  after["mlx5_2/1"]["counters/port_xmit_data"] = 5000000;  // traffic: not a finding
  auto records = ib_counter_growth(before, after, 4);
  for (auto& m : records) m.params["during"] = "coll.all_gather";
  auto findings = judge_fabric_measurements(records, {});
  ASSERT_EQ(findings.size(), 2u);
  std::map<std::string, const Finding*> by_metric;
  for (const auto& f : findings) by_metric[f.metric] = &f;
  ASSERT_TRUE(by_metric.count("congestion_counter_delta"));
  EXPECT_EQ(by_metric["congestion_counter_delta"]->severity, Severity::warn);
  EXPECT_NE(by_metric["congestion_counter_delta"]->message.find(
                "hw_counters/np_ecn_marked_roce_packets +4000"),
            std::string::npos);
  EXPECT_NE(by_metric["congestion_counter_delta"]->message.find("hw_counters/rp_cnp_handled +50"),
            std::string::npos);
  ASSERT_TRUE(by_metric.count("error_counter_delta"));
  EXPECT_EQ(by_metric["error_counter_delta"]->severity, Severity::fail);
  EXPECT_NE(by_metric["error_counter_delta"]->message.find("hw_counters/out_of_sequence +3"),
            std::string::npos);
  EXPECT_EQ(by_metric["error_counter_delta"]->subject, "mlx5_2/1");
}

}  // namespace
}  // namespace fabcheck
