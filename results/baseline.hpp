// Baselines: a profile written from known-good runs, so hardware no shipped profile lists gets
// expectations from its own golden nodes (median and spread per probe, metric, size, kind of
// subject and shape of the figure; thresholds from them).
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
  // baseline), or less `robust_sigmas` of the golden figures' own spread, or to the worst golden
  // figure, whichever is widest...
  double pass_fraction = 0.05;
  // ...FAIL beyond this fraction (or twice that spread, or the PASS margin plus the difference of
  // the fractions); WARN between.
  double fail_fraction = 0.10;
  double robust_sigmas = 3;
  std::string created_utc;  // for the comment and the sources
  // Extra top-level TOML (a [node] table) the caller adds; written before the [[expect]] entries.
  std::string extra_toml;
};

// The golden figures of one shape (FleetStore::conditions_text: backend, type, placement, ranks,
// hosts, ...) within an entry, with the thresholds they alone give.
struct BaselineShape {
  std::string conditions;  // "" when the figures carry none
  double median = 0, mad = 0, pass = 0, warn = 0;
  std::size_t figures = 0;
  // The worst golden figure and its run: PASS reaches at least down to it (a source run passes
  // its own baseline), so where it lies further from the median than the fractions and the
  // robust spread, it sets the threshold (`by_worst`).
  double worst = 0;
  std::string worst_run;
  bool by_worst = false;
  std::size_t outside = 0;  // figures that would not PASS the entry's thresholds (none, by design)
};

struct BaselineEntry {
  std::string probe, metric, unit, subject_pattern;
  std::uint64_t size = 0;
  bool has_size = false;
  bool higher_is_better = true;
  // The profile's own scope keys, set only where the shapes of one figure differ in them (the
  // figure was measured with both backends, or on one host and on several): one entry each.
  std::string backend;                             // "" or the backend
  std::string host_scope;                          // "", "single" or "multi"
  double median = 0, mad = 0, pass = 0, warn = 0;  // those of the shape the thresholds come from
  std::size_t figures = 0, hosts = 0;
  // Every shape of these figures, in conditions order. Several only where every run measured
  // each of them (placement in and out in one run) and the profile cannot tell them apart: each
  // shape's thresholds come from its own figures, and the entry takes the most lenient, so that
  // each shape's golden figures pass (never a median of figures of different shapes).
  std::vector<BaselineShape> shapes;
};

// One entry per (probe, metric, size, kind of subject, and backend or host scope where those
// differ) among the ok performance figures (is_performance_unit) of `store`.
std::vector<BaselineEntry> baseline_entries(const FleetStore& store,
                                            const BaselineOptions& options);

// Runs that measured the same figure in different shapes (one at 8 ranks, another at 16; one
// in place, another out of place): a profile keeps one expectation per figure and size, so those
// runs cannot make one baseline. One line per figure that differs ("coll.all_reduce busbw at 1MiB
// (world): [... ranks=16 ...] in run C; [... ranks=8 ...] in run A, run B", a run's shapes joined
// by " + "), empty when every run's shapes agree.
std::vector<std::string> baseline_mixed_shapes(const FleetStore& store,
                                               const BaselineOptions& options);

// The profile as TOML text: a header saying where it comes from, [profile], the caller's extra
// tables, and one [[expect]] per entry with its median and spread as the source.
std::string baseline_profile_toml(const FleetStore& store, const BaselineOptions& options);

}  // namespace fabcheck
