// Peer judgement at every level, with no table: a figure far below its peers (median and MAD,
// results/robust_stats.hpp) is named, with its gap to the peer median and the tier it matches.
//   - within a node: GPUs, HCAs, GPU pairs of one node (same probe, metric, size, conditions);
//   - across nodes: each node's median against the other nodes';
//   - node pairs: each pair's figure against the other pairs', a rail against its pair's other
//     rails, an HCA slow in most of its pairs named as that host's HCA (whichever end measured),
//     and a node all of whose pairs are slow named as the node;
//   - across runs only (shared-path storage, PeerJudgeOptions::across_runs_only): each node
//     measured alone on a path (the only host of its run there) against the other nodes measured
//     alone on the same path with the same probe, metric, conditions, size and ranks per node; a
//     node far below their median is a WARN (never a FAIL: it may be contention on the shared
//     filesystem while it ran). Never within a run, where ranks and hosts split one filesystem.
// Figures judged: GB/s, Gb/s, us, IOPS, op/s and TFLOP/s metrics of ok measurements; counters and
// states are their family judges' business.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "results/finding.hpp"
#include "results/fleet_store.hpp"
#include "results/measurement.hpp"
#include "results/metric_catalog.hpp"
#include "results/profile.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck {

struct PeerJudgeOptions {
  // Which side is worse comes from here; a metric it does not list is not judged.
  const MetricCatalog* catalog = nullptr;
  // Tiers for the findings' notes (may be null).
  const Profile* profile = nullptr;
  OutlierPolicy policy;  // the worse side is set per metric
  // Both sets come from the probes' own declarations (ProbeInfo::peers), gathered by the CLI
  // (bench/cli/peer_settings.hpp); empty here, so every figure is compared.
  // (probe, metric) whose within-node comparison a family judge makes itself (the GPU judge's
  // slow-GPU rule); they are still compared across nodes.
  std::set<std::pair<std::string, std::string>> judged_within_node_elsewhere{};
  // Probes left alone entirely (a family judge names their outliers, or they have no peers)...
  std::set<std::string> excluded_probes{};
  // ...but for these (probe, metric): compared across runs only (PeerComparison::across_runs_only),
  // whether or not the probe is excluded, and never as the figures above are.
  std::set<std::pair<std::string, std::string>> across_runs_only{};
  // Such a figure is named only this far below the median of its peers (and beyond the policy's
  // robust sigmas), and only among at least three nodes: a shared filesystem's rate moves with
  // what its other clients do between one node's run and the next, far more than a GPU's.
  double across_runs_min_gap = 0.25;
  // A node whose pairs are outliers at least this often (and in at least two pairs) is named
  // itself instead of each of its pairs; so is one end of rails (a host's HCA) instead of its
  // partners' rails.
  double node_pair_share = 0.5;
};

// Findings (WARN and FAIL only) over every row of the store; one per subject and figure, at its
// worst size ("at 9 of 12 sizes" when it stands out at several).
std::vector<Finding> judge_peers(const FleetStore& store, const PeerJudgeOptions& options);

// The same over one run's measurements (for the runner's whole-run judge).
std::vector<Finding> judge_peer_measurements(const std::vector<Measurement>& measurements,
                                             const PeerJudgeOptions& options);

}  // namespace fabcheck
