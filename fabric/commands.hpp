// The logic of `fabcheck nccl-log FILE...` and `fabcheck inventory`: read, judge, print, exit code.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "fabric/fabric_judge.hpp"
#include "fabric/nccl_transport_rules.hpp"
#include "results/finding.hpp"
#include "results/profile.hpp"

namespace fabcheck {

struct NcclLogOptions {
  NcclTransportExpectations
      expectations;              // --expect-network IB|Socket|any, --expect-gdr, --expect-p2p
  bool list_connections = true;  // print the rank pairs and their transports
  // --sysfs-root: the node's sysfs (its active RDMA ports and GPU-to-HCA placement are evidence of
  // what NCCL should have used); "" reads none.
  std::string sysfs_root;
};

// Exit code: 0 pass, 1 a FAIL finding, 2 a file missing or unreadable (message on stderr),
// 3 nothing recognisable (no NCCL transport lines in any file).
int nccl_log_command(const std::vector<std::string>& files, const NcclLogOptions& options,
                     std::FILE* out);

struct InventoryOptions {
  std::string sysfs_root = "/";     // --sysfs-root
  std::string counters_after_root;  // --counters-after DIR: a later snapshot of the same node
  double counter_interval_s = 0;    // --counter-interval S: live re-read of the IB counters
  bool gpus_under_load = false;     // --gpus-under-load: GPU link generations are judged
  FabricExpectations expectations;  // --expect-gpu-pcie 5x16, --expect-ib-ports 8, ...
  std::optional<Profile> profile;   // --profile, loaded by the caller against the full catalog
  // What the caller judged of the node beyond the fabric (the GPUs and NVMe controllers on the
  // bus: host/node_hardware.hpp), printed after the tables and counted in the verdict.
  std::string node_report;
  std::vector<Finding> node_findings;
};

// Reads PCIe links and IB ports under the root, judges them, prints the devices and findings.
// Exit code: 0 pass (or warn), 1 a FAIL finding, 3 an ERROR finding.
int inventory_command(const InventoryOptions& options, std::FILE* out);

// Parses "5x16" (generation and width), "5" or "x16" into an expectation; ConfigError naming the
// option and value otherwise.
PcieExpectation parse_pcie_expectation(const std::string& option, const std::string& value);

}  // namespace fabcheck
