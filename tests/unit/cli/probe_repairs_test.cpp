// Every probe's repairs (ProbeInfo::repairs, results/repair.hpp) as the registry holds them: what
// each kind of FAIL a node is drained for tells the operator to do, no probe whose FAIL is
// "unclassified", no rule that no metric can match, codes and repairs in automation's words.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench/cli/probe_families.hpp"
#include "bench/core/registry.hpp"
#include "results/repair.hpp"

namespace fabcheck {
namespace {

struct Everything {
  Registry registry;
  RepairTable table;
  Everything() {
    register_all_probes(registry);
    for (const Probe* probe : registry.all()) table[probe->id()] = probe->info().repairs;
  }
};

Finding fail(const std::string& probe, const std::string& metric) {
  Finding finding;
  finding.severity = Severity::fail;
  finding.probe = probe;
  finding.metric = metric;
  return finding;
}

TEST(ProbeRepairs, EachKindOfFailHasItsCodeAndFirstRepair) {
  const Everything all;
  // probe, metric, code, repair: written from what an operator does for each (NVIDIA's Xid and
  // row-remapping guidance; a link trained low is reseated; an IB port or flapping link recabled;
  // wrong bits from a GPU are an RMA; a slow figure with no part named is inspected).
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {"gpu.gemm", "wrong_elements", "gpu-wrong-results", "rma"},
      {"gpu.hbm_bw", "wrong_elements", "gpu-wrong-results", "rma"},
      {"coll.all_reduce", "wrong_elements", "data-corruption", "inspect"},
      {"storage.seq_read", "wrong_elements", "data-corruption", "inspect"},
      {"gpu.health", "row_remap_failure", "gpu-row-remap-failed", "rma"},
      {"node.preflight", "row_remap_failure", "gpu-row-remap-failed", "rma"},
      {"node.preflight", "retired_pages", "gpu-retired-pages", "rma"},
      {"gpu.health", "remapped_rows_pending", "gpu-memory-remap-pending", "reboot"},
      {"node.preflight", "row_remap_pending", "gpu-memory-remap-pending", "reboot"},
      {"gpu.health", "ecc_uncorrected_volatile", "gpu-ecc-uncorrected", "reboot"},
      {"gpu.health", "nvlink_inactive", "nvlink-down", "reboot"},
      {"gpu.health", "error_counter_delta", "gpu-link-errors", "reseat"},
      {"gpu.health", "pcie_width", "pcie-link-degraded", "reseat"},
      {"gpu.health", "foreign_memory_gb", "gpu-in-use", "inspect"},
      {"gpu.health", "temperature_c", "gpu-thermal", "inspect"},
      {"gpu.gemm", "thermal_throttle_fraction", "gpu-thermal", "inspect"},
      {"gpu.gemm", "hw_slowdown_fraction", "gpu-hw-slowdown", "inspect"},
      {"gpu.gemm", "sm_clock_end_mhz", "gpu-throttled", "inspect"},
      {"gpu.hbm_bw", "triad_bw", "gpu-slow", "inspect"},
      {"fabric.ib_counters", "error_counter_delta", "ib-link-errors", "replace-cable"},
      {"fabric.ib_counters", "congestion_counter_delta", "ib-congestion", "inspect"},
      {"fabric.ib_ports", "port_rate", "ib-port-slow", "replace-cable"},
      {"fabric.ib_ports", "port_active", "ib-port-down", "replace-cable"},
      {"fabric.ib_ports", "active_ports", "ib-port-down", "replace-cable"},
      {"fabric.pcie_links", "gpu_link_width", "pcie-link-degraded", "reseat"},
      {"fabric.pcie_links", "idle_link_gen_deficit", "pcie-link-degraded", "reseat"},
      {"fabric.pcie_links", "aer_fatal", "pcie-errors", "reseat"},
      {"fabric.nccl_transport", "ib_channels_without_gdr", "gpudirect-rdma-off", "inspect"},
      {"fabric.nccl_transport", "inter_node_socket_channels", "nccl-transport", "inspect"},
      {"fabric.rdma_bw", "write_bw", "rdma-slow", "inspect"},
      {"fabric.topology", "numa_mismatch", "topology", "inspect"},
      {"node.kernel_log", "xid_events", "gpu-xid", "reboot"},
      {"node.kernel_log", "sxid_events", "nvswitch-xid", "reboot"},
      {"node.kernel_log", "link_flaps", "link-flapping", "replace-cable"},
      {"node.kernel_log", "pcie_limited", "pcie-link-degraded", "reseat"},
      {"node.kernel_log", "aer_errors", "pcie-errors", "reseat"},
      {"node.preflight", "gpus_unusable", "gpu-driver-missing", "reboot"},
      {"node.preflight", "gpus_on_bus", "gpu-missing", "reseat"},
      {"node.preflight", "nvme_on_bus", "nvme-missing", "reseat"},
      {"node.preflight", "fabric_manager", "fabric-manager-down", "reboot"},
      {"node.preflight", "foreign_processes", "gpu-in-use", "inspect"},
      {"coll.node_pairs", "exchange_busbw", "node-slow-vs-peers", "inspect"},
      {"coll.all_reduce", "busbw", "collective-slow", "inspect"},
      {"storage.fsync_lat", "fsync_p99_us", "storage-slow", "inspect"},
      {"host.cpu", "other_cpu_cores", "cpu-taken", "inspect"},
      {"host.numa", "cpus_off_gpu_numa", "numa-binding", "inspect"},
      {"host.mem_bw", "triad_bw", "memory-bandwidth", "inspect"},
  };
  for (const auto& [probe, metric, code, action] : cases) {
    ASSERT_NE(all.registry.find(probe), nullptr) << probe;
    const Repair repair = repair_of(fail(probe, metric), all.table);
    EXPECT_EQ(repair.code, code) << probe << " " << metric;
    EXPECT_EQ(repair.action, action) << probe << " " << metric;
  }
}

TEST(ProbeRepairs, EveryProbeNamesARepairForEveryFigureInAutomationsWords) {
  const Everything all;
  const std::set<std::string> actions = {"reboot", "reseat", "replace-cable", "rma", "inspect"};
  // Each rule a metric can match: a pattern is matched by a metric of some probe that has it
  // (a rule the families share, like the gpu.* ones, by one of them).
  std::map<std::tuple<std::string, std::string, std::string>, bool> matched;
  for (const Probe* probe : all.registry.all()) {
    const auto& rules = probe->info().repairs;
    ASSERT_FALSE(rules.empty()) << probe->id() << " declares no repairs";
    EXPECT_EQ(rules.back().metric, "") << probe->id() << ": its last rule must take every figure";
    for (const RepairRule& rule : rules) {
      EXPECT_EQ(actions.count(rule.action), 1u) << probe->id() << ": " << rule.action;
      ASSERT_FALSE(rule.code.empty()) << probe->id();
      for (const char c : rule.code) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '-') << rule.code;
      EXPECT_NE(rule.code.front(), '-') << rule.code;
      EXPECT_NE(rule.code.back(), '-') << rule.code;
      bool& any = matched[{rule.metric, rule.code, rule.action}];
      for (const MetricSpec& metric : probe->metrics())
        any = any || repair_metric_matches(rule.metric, metric.name);
    }
    for (const MetricSpec& metric : probe->metrics())
      EXPECT_NE(repair_of(fail(probe->id(), metric.name), all.table).code, "unclassified")
          << probe->id() << " " << metric.name;
  }
  for (const auto& [rule, any] : matched)
    EXPECT_TRUE(any) << "no metric matches rule \"" << std::get<0>(rule) << "\" -> "
                     << std::get<1>(rule);
}

}  // namespace
}  // namespace fabcheck
