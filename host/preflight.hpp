// node.preflight's judgement: whether a node is fit to be measured (no other job on its GPUs, GPUs
// idle, fabric manager up where NVSwitches are, no memory repair pending) and whether its versions
// match its peers'. The same rules decide, on the node itself, which heavy probes to waive.
#pragma once

#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kPreflightProbe = "node.preflight";
// Its record of the node's versions (driver, cuda, nccl, ...), in params.
inline constexpr const char* kVersionsMetric = "versions";

struct PreflightPolicy {
  double busy_utilization_pct = 5;  // above this at rest, the GPU is busy
  double held_memory_gb = 2;        // memory in use above max(this, 5% of total): held
  double held_memory_fraction = 0.05;
  double retired_pages_limit = 60;  // DCGM's limit of retired pages (SBE + DBE)
};

// Findings for node.preflight measurements of one or more hosts: FAIL for what makes a node unfit
// (another process on a GPU, a busy GPU, memory held, the fabric manager down where NVSwitches are,
// a pending page retirement or row remap, a failed remap, too many retired pages), WARN for
// persistence mode off; a healthy node yields none.
std::vector<Finding> judge_preflight(const std::vector<Measurement>& measurements,
                                     const PreflightPolicy& policy = {});

// For the whole run: each version key (driver, cuda, nccl, kernel, vbios, hca_firmware, rdma_core,
// ofed) compared across the hosts' node.preflight "versions" records; a host that differs from
// the most common value is a WARN naming both. Needs two hosts or more.
std::vector<Finding> judge_version_drift(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
