// Regression against earlier figures: the same host, subject, figure, size and conditions in a
// reference (an earlier run, or the last runs of a fleet history), and each node's trend.
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
  double tolerance = 0.10;  // worse by more than this: FAIL; by more than half of it: WARN
};

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
  std::vector<Finding> findings;  // WARN / FAIL, one per subject and figure at its worst size
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
