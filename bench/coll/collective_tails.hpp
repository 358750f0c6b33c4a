// A collective's stalled operations: a size whose slowest timed sample is far above its median
// (one iteration in which a rank held every other back), judged whatever the profile states.
#pragma once

#include <vector>

#include "bench/core/registry.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// A size stalled when its slowest sample is at least `max_over_median` times its median and at
// least `min_excess_us` above it (so microseconds of jitter on a fast size never count), over at
// least `min_samples` samples. Profile [node] coll_stall_ratio and coll_stall_ms set the first two.
struct StallRule {
  double max_over_median = 20;
  double min_excess_us = 50000;  // 50 ms: above a loaded scheduler's time slices
  std::size_t min_samples = 5;
};

// The rule with the profile's [node] coll_stall_ratio / coll_stall_ms; ConfigError naming the
// profile, line and value when one is not a number above its floor.
StallRule stall_rule_from(const Profile& profile);

// A WARN for each collective time (coll.* time_us with its samples' statistics) that stalled:
// the slowest sample, its multiple of the median, which sample it was, the p99.
std::vector<Finding> judge_collective_tails(const std::vector<Measurement>& measurements,
                                            const StallRule& rule);

Judge make_collective_tail_judge();

}  // namespace fabcheck
