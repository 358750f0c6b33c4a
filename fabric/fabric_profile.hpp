// What a profile's [node] table says the fabric should have: PCIe tiers per device kind, RDMA port
// count and rate; and the judge that holds the measurements to it.
#pragma once

#include "bench/core/registry.hpp"
#include "fabric/fabric_judge.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// gpu_pcie, hca_pcie, nic_pcie, nvme_pcie ("5x16"), hcas (active RDMA ports; ib_ports is its
// older name), ib_rate_gbps (Gb/s).
NodeSettingCatalog fabric_node_settings();

// Throws ConfigError naming the profile file, line and value when a [node] value is malformed.
FabricExpectations fabric_expectations_from(const Profile& profile);

// The fabric judge for the runner: judge_fabric_measurements against the profile's [node] table.
Judge make_fabric_judge();

}  // namespace fabcheck
