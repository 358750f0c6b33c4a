// Judgement of a GPU node: the slow GPU among its peers (DCGM's rule, with the median), hot or
// throttling GPUs, PCIe links below their max under load, NVLinks down, memory held by strangers,
// ECC and row-remap problems. Pure functions over recorded telemetry and measurements.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <optional>
#include "kernels/gpu_node_record.hpp"

#include "results/figure_ref.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/profile.hpp"

namespace fabcheck {

struct GpuJudgementPolicy {
  // Slow: a figure below the node median by more than this fraction (DCGM uses a tolerance of
  // the peers' mean; the median is not dragged by the slow GPU itself).
  double slow_warn_fraction = 0.05;
  double slow_fail_fraction = 0.10;
  // Hot: at or above this temperature without throttling yet (H100/H200/A100 slow down near 87-90).
  double hot_warn_c = 85;
  // Memory held by other processes before the job starts.
  double foreign_memory_warn_gb = 0.5;
  double foreign_memory_fail_gb = 2.0;
  // Active NVLinks every GPU must have (profile [node] gpu_nvlinks); unset: the node is judged by
  // its own links only (some up and others down), since a PCIe card or a one-GPU slice has none.
  std::optional<int> expected_nvlinks;
};

// The [node] keys the GPU judge reads (gpu_nvlinks), and a policy with the profile's values.
// Throws ConfigError naming file and line for a bad value.
NodeSettingCatalog gpu_node_settings();
GpuJudgementPolicy gpu_policy_from(const Profile& profile);

// Findings (WARN or FAIL only; a healthy node yields none) for one node. Every finding names the
// GPU (subject "gpu<N>", its bus id in the message), the host, evidence and a remedy.
std::vector<Finding> judge_gpu_node(const GpuNodeRecord& node,
                                    const GpuJudgementPolicy& policy = {});

// The (probe, metric) figures whose slow GPU judge_gpu_node names among the node's GPUs. Their
// probes declare the same (ProbeInfo::peers, which the generic peer judge is set up from, so it
// leaves their within-node comparison to this judge); tests/unit/kernels holds the two equal.
std::vector<std::pair<std::string, std::string>> gpu_figures_judged_among_peers();

// For the runner, on the root, after every probe ran: groups the run's measurements by host and
// GPU and judges each node. It reads only telemetry and the figures compared among peers.
std::vector<Finding> judge_gpu_measurements(const std::vector<Measurement>& measurements,
                                            const GpuJudgementPolicy& policy = {});
// What judge_gpu_measurements reads: every telemetry metric (temperature_c, pcie_gen, ...) of any
// gpu.* probe (gpu.health at rest, gpu.gemm under load), and gpu_figures_judged_among_peers().
std::vector<FigureRef> gpu_judge_reads();

}  // namespace fabcheck
