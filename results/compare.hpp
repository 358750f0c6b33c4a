// Regression against earlier figures: the same host, subject, figure, size and conditions in a
// reference (an earlier run, or the last runs of a fleet history), each figure within a tolerance
// from the reference's own spread, one finding per subject (a node's device, or a link), and each
// node's trend.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/finding.hpp"
#include "results/fleet_store.hpp"
#include "results/metric_catalog.hpp"

namespace fabcheck {

struct CompareOptions {
  const MetricCatalog* catalog = nullptr;  // which side is worse; a metric it lacks is skipped
  // A figure worse than its reference by more than its tolerance FAILs, by more than half of it
  // WARNs. Its tolerance is the widest of: this floor; `robust_sigmas` robust sigmas (kMadToSigma
  // x MAD, relative to the reference) of the earlier runs' own figures, given at least
  // `min_runs_for_spread` of them; and the spread of the earlier samples where the records keep
  // their statistics (1 - median/p99, or p99/median - 1 where lower is better) — never more than
  // `max_tolerance`, so that a fall to a half (a 2x slowdown) always FAILs.
  double tolerance = 0.10;
  double robust_sigmas = 3;
  std::size_t min_runs_for_spread = 3;
  double max_tolerance = 0.5;
};

// The tolerance of one figure and why it is that ("the floor (--tolerance); ...").
struct FigureTolerance {
  double fraction = 0;
  std::string why;
};

// `reference` are the earlier runs' figures (each run's median), `center` their median,
// `sample_spread` the earlier samples' relative spread (NaN when the records keep none).
FigureTolerance figure_tolerance(const std::vector<double>& reference, double center,
                                 double sample_spread, const CompareOptions& options);

struct TrendPoint {
  std::string when;  // the reference run's start (or its directory), "now" for the current
  double ratio = 1;  // median over the node's figures of value / reference value
  std::size_t figures = 0;
};

struct NodeTrend {
  std::string host;
  std::vector<TrendPoint> points;  // reference runs in order, then "now"
};

struct Comparison {
  // WARN / FAIL, one per subject (a host's device; a link, "a/mlx5_0--b/mlx5_0" whichever end
  // measured it, or "gpu0--gpu1" on its host), every figure that fell listed in it (each at its
  // worst size, with its tolerance), the worst first; probe, metric, observed and expected are the
  // worst figure's.
  std::vector<Finding> findings;
  std::vector<NodeTrend> trends;  // every host of the current runs that the reference knows
  std::size_t compared = 0;       // figures found in both
  std::size_t only_now = 0;       // figures the reference lacks
};

// Whether reference run `a` is the run `b` being compared: the same directory (how a run appended
// to a history by `run --history` is found: history runs carry no hosts), or, for a run directory
// given as the reference, the same start and a host in common (a copy of the run).
bool same_run(const RunInfo& a, const RunInfo& b);
// For each reference run, whether it is one of `now`'s runs; those are never a reference.
std::vector<bool> runs_compared(const FleetStore& now, const FleetStore& reference);

// The reference figure of each key is the median over the reference's runs of each run's median;
// performance figures only (results/metric_catalog.hpp: is_performance_unit).
Comparison compare_figures(const FleetStore& now, const FleetStore& reference,
                           const CompareOptions& options);

}  // namespace fabcheck
