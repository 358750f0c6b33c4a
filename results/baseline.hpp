// Baselines: a profile written from known-good runs, so hardware no shipped profile lists gets
// expectations from its own golden nodes (median and spread per probe, metric, size and kind of
// subject; thresholds from them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/fleet_store.hpp"
#include "results/metric_catalog.hpp"

namespace fabcheck {

struct BaselineOptions {
  const MetricCatalog* catalog = nullptr;  // which side is worse; a metric it lacks is left out
  std::string name;                        // the profile's name
  std::string description;
  // PASS down to the median less this fraction (SuperBench fails bandwidth 5 % below a
  // baseline), or less `robust_sigmas` of the golden figures' own spread when that is wider...
  double pass_fraction = 0.05;
  // ...FAIL beyond this fraction (or twice that spread); WARN between.
  double fail_fraction = 0.10;
  double robust_sigmas = 3;
  std::string created_utc;  // for the comment and the sources
  // Extra top-level TOML (a [node] table) the caller adds; written before the [[expect]] entries.
  std::string extra_toml;
};

struct BaselineEntry {
  std::string probe, metric, unit, subject_pattern;
  std::uint64_t size = 0;
  bool has_size = false;
  bool higher_is_better = true;
  double median = 0, mad = 0, pass = 0, warn = 0;
  std::size_t figures = 0, hosts = 0;
};

// One entry per (probe, metric, size, kind of subject) among the ok performance figures
// (is_performance_unit) of `store`.
std::vector<BaselineEntry> baseline_entries(const FleetStore& store,
                                            const BaselineOptions& options);

// The profile as TOML text: a header saying where it comes from, [profile], the caller's extra
// tables, and one [[expect]] per entry with its median and spread as the source.
std::string baseline_profile_toml(const FleetStore& store, const BaselineOptions& options);

}  // namespace fabcheck
