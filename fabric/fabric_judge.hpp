// Judges fabric measurements (PCIe links, IB ports, counter changes) into findings with evidence,
// for the checks that are not plain thresholds: links below their own maximum, ports down,
// counters growing or stuck, and the node's expected PCIe tiers, port count and rate.
#pragma once

#include <optional>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

struct PcieExpectation {
  int gen = 0;    // minimum generation; 0: not checked
  int width = 0;  // minimum lane count; 0: not checked
};

// More RDMA ports than any node has (a node holds at most a few dozen): a bound for checking input.
inline constexpr int kMaxIbPortsOfANode = 1024;

struct FabricExpectations {
  PcieExpectation gpu;
  PcieExpectation hca;  // RDMA adapters (IB, RoCE)
  PcieExpectation nic;  // other network controllers
  PcieExpectation nvme;
  // Active RDMA ports the node must have: nullopt does not check (no device is then WAIVED), 0
  // expects none, N > 0 makes fewer (or no RDMA device at all) a FAIL.
  std::optional<int> ib_ports;
  double ib_rate_gbps = 0;  // minimum port rate in Gb/s; 0: not checked
};

// Findings for measurements of fabric.pcie_links, fabric.ib_ports and fabric.ib_counters (others
// are ignored). Only problems and WAIVED/ERROR records give findings (plus a PASS note for a GPU
// read at idle below its max generation), so a healthy node yields no FAIL or WARN.
std::vector<Finding> judge_fabric_measurements(const std::vector<Measurement>& measurements,
                                               const FabricExpectations& expectations);

}  // namespace fabcheck
